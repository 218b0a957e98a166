package mp3

// MPEG audio frame header parsing.

const sameHeaderMask = 0xfffe0c00 // sync, version, layer, sample rate

var sampleRateTab = [3][3]int{
	{44100, 48000, 32000}, // MPEG-1
	{22050, 24000, 16000}, // MPEG-2
	{11025, 12000, 8000},  // MPEG-2.5
}

// bitrateTab[lsf][layer-1][index] in kbit/s.
var bitrateTab = [2][3][15]int{
	{
		{0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448},
		{0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384},
		{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320},
	},
	{
		{0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256},
		{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},
		{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},
	},
}

const (
	modeStereo = 0
	modeJoint  = 1
	modeDual   = 2
	modeMono   = 3
)

type frameHeader struct {
	raw        uint32
	layer      int  // 1, 2 or 3
	lsf        bool // MPEG-2 or MPEG-2.5 (one granule per frame)
	version    string
	crc        bool
	bitrate    int // kbit/s; 0 for free format
	sampleRate int
	srIndex    int // 0..8: 44.1, 48, 32, 22.05, 24, 16, 11.025, 12, 8 kHz
	mode       int
	modeExt    int
	channels   int
	frameSize  int // bytes, including the header; 0 for free format
	sideInfo   int // bytes of Layer III side information
	spf        int // samples per frame per channel
}

// parseHeader decodes a 4-byte frame header. It reports false when the word
// is not a possible MPEG audio header.
func parseHeader(h uint32) (frameHeader, bool) {
	var f frameHeader
	if h&0xffe00000 != 0xffe00000 {
		return f, false
	}
	ver := h >> 19 & 3
	layerBits := h >> 17 & 3
	brIdx := int(h >> 12 & 15)
	srIdx := int(h >> 10 & 3)
	if ver == 1 || layerBits == 0 || brIdx == 15 || srIdx == 3 {
		return f, false
	}
	f.raw = h
	f.layer = 4 - int(layerBits)
	var vrow int
	switch ver {
	case 3:
		f.version = "MPEG-1"
		vrow = 0
	case 2:
		f.version = "MPEG-2"
		vrow = 1
	default:
		f.version = "MPEG-2.5"
		vrow = 2
	}
	f.lsf = vrow != 0
	f.crc = h>>16&1 == 0
	lsfIdx := 0
	if f.lsf {
		lsfIdx = 1
	}
	f.bitrate = bitrateTab[lsfIdx][f.layer-1][brIdx]
	f.sampleRate = sampleRateTab[vrow][srIdx]
	f.srIndex = vrow*3 + srIdx
	pad := int(h >> 9 & 1)
	f.mode = int(h >> 6 & 3)
	f.modeExt = int(h >> 4 & 3)
	f.channels = 2
	if f.mode == modeMono {
		f.channels = 1
	}
	switch f.layer {
	case 1:
		f.spf = 384
		f.frameSize = (12000*f.bitrate/f.sampleRate + pad) * 4
	case 2:
		f.spf = 1152
		f.frameSize = 144000*f.bitrate/f.sampleRate + pad
	case 3:
		if f.lsf {
			f.spf = 576
			f.frameSize = 72000*f.bitrate/f.sampleRate + pad
			f.sideInfo = 17
			if f.channels == 1 {
				f.sideInfo = 9
			}
		} else {
			f.spf = 1152
			f.frameSize = 144000*f.bitrate/f.sampleRate + pad
			f.sideInfo = 32
			if f.channels == 1 {
				f.sideInfo = 17
			}
		}
	}
	if f.bitrate == 0 {
		f.frameSize = 0
	}
	return f, true
}

// layerName names the layer for error messages.
func (f *frameHeader) layerName() string {
	return [4]string{"", "Layer I", "Layer II", "Layer III"}[f.layer]
}
