package audio

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// Info describes a decoded stream.
type Info struct {
	Format     Format `json:"format"`
	Codec      string `json:"codec"` // pcm_s16le, pcm_f32le, flac, mp3, vorbis, ...
	SampleRate int    `json:"sample_rate"`
	Channels   int    `json:"channels"`
	BitDepth   int    `json:"bit_depth,omitempty"` // of the source samples; 0 for lossy codecs
	// Frames is the length in frames (samples per channel) the headers
	// declare; 0 when they do not say.
	Frames int64 `json:"frames,omitempty"`
}

// Duration is the declared length in seconds, 0 when unknown.
func (i Info) Duration() float64 {
	if i.SampleRate == 0 {
		return 0
	}
	return float64(i.Frames) / float64(i.SampleRate)
}

// source is a format decoder: interleaved float32 samples, io.EOF at the
// end, an error wrapping io.ErrUnexpectedEOF on truncation.
type source interface {
	Read(dst []float32) (int, error)
}

// Decoder streams float32 PCM out of a sound file.
type Decoder struct {
	info   Info
	meta   Metadata
	src    source
	closer io.Closer
	read   int64
	err    error
}

// Open opens a sound file; the format comes from its content. Errors name
// the file.
func Open(path string) (*Decoder, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	d, err := NewDecoder(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d.closer = f
	return d, nil
}

// NewDecoder reads the headers of a sound file from r and returns a decoder
// for its PCM. When r can seek and read at offsets (an *os.File, a
// bytes.Reader), metadata anywhere in the file is read (a WAV LIST chunk
// after the audio, an ID3v1 tag at the end); otherwise only what comes
// before the audio.
func NewDecoder(r io.Reader) (*Decoder, error) {
	d := &Decoder{}
	var in io.Reader
	var sized *io.SectionReader
	if ra, ok := r.(io.ReaderAt); ok {
		if sk, ok := r.(io.Seeker); ok {
			start, err1 := sk.Seek(0, io.SeekCurrent)
			end, err2 := sk.Seek(0, io.SeekEnd)
			if err1 == nil && err2 == nil {
				sized = io.NewSectionReader(ra, start, end-start)
			}
		}
	}
	var head []byte
	if sized != nil {
		head = make([]byte, sniffLen)
		n, _ := sized.ReadAt(head, 0)
		head = head[:n]
		if n := id3Size(head); n > 0 {
			meta, err := readID3v2(bufio.NewReader(io.NewSectionReader(sized, 0, n)))
			if err != nil {
				return nil, err
			}
			d.meta.merge(meta)
			sized = io.NewSectionReader(sized, min(n, sized.Size()), max(sized.Size()-n, 0))
			head = head[:cap(head)]
			k, _ := sized.ReadAt(head, 0)
			head = head[:k]
		}
		if sized.Size() >= 128+sniffLen {
			tail := make([]byte, 128)
			if _, err := sized.ReadAt(tail, sized.Size()-128); err == nil {
				d.meta.merge(readID3v1(tail))
			}
		}
		in = sized
	} else {
		br := bufio.NewReaderSize(r, 64<<10)
		head, _ = br.Peek(sniffLen)
		if id3Size(head) > 0 {
			meta, err := readID3v2(br)
			if err != nil {
				return nil, err
			}
			d.meta.merge(meta)
			head, _ = br.Peek(sniffLen)
		}
		in = br
	}
	format, err := Detect(head)
	if err != nil {
		return nil, err
	}
	d.info.Format = format
	if err := d.openFormat(format, in); err != nil {
		return nil, err
	}
	return d, nil
}

// openFormat sets up the decoder of format over in.
func (d *Decoder) openFormat(format Format, in io.Reader) error {
	switch format {
	case WAV:
		w, err := newWAV(in)
		if err != nil {
			return err
		}
		d.src = w
		d.info.Codec = wavCodec(w)
		d.info.SampleRate, d.info.Channels, d.info.BitDepth, d.info.Frames = w.rate, w.channels, w.bits, w.frames
		d.meta.merge(w.meta)
		return nil
	default:
		c, err := openCodec(format, in) // its errors name the codec
		if err != nil {
			return err
		}
		d.src = c
		d.info.Codec = map[Format]string{FLAC: "flac", MP3: "mp3", Ogg: "vorbis"}[format]
		d.info.SampleRate, d.info.Channels, d.info.BitDepth, d.info.Frames = c.SampleRate(), c.Channels(), c.BitsPerSample(), c.TotalFrames()
		d.meta.merge(vorbisComments(c.Comments()))
		if d.info.SampleRate <= 0 || d.info.Channels <= 0 {
			return fmt.Errorf("%s: the stream declares %d Hz and %d channels", format, d.info.SampleRate, d.info.Channels)
		}
		return nil
	}
}

// codec is the shape of the decoders under internal/.
type codec interface {
	source
	SampleRate() int
	Channels() int
	BitsPerSample() int
	TotalFrames() int64
	Comments() []string
}

func wavCodec(w *wavDecoder) string {
	switch w.encoding {
	case wavFloat:
		return fmt.Sprintf("pcm_f%dle", w.size*8)
	case wavALaw:
		return "pcm_alaw"
	case wavMuLaw:
		return "pcm_mulaw"
	}
	if w.size == 1 {
		return "pcm_u8"
	}
	return fmt.Sprintf("pcm_s%dle", w.size*8)
}

// Info describes the stream.
func (d *Decoder) Info() Info { return d.info }

// Metadata is the descriptive text the file carries.
func (d *Decoder) Metadata() Metadata { return d.meta }

// FramesRead is the number of frames Read has returned so far.
func (d *Decoder) FramesRead() int64 { return d.read }

// Read decodes interleaved float32 samples into dst and returns how many it
// wrote, a multiple of the channel count. At the end it returns io.EOF; a
// file that ends early gives what it had, then an error wrapping
// io.ErrUnexpectedEOF (a *TruncatedError for WAV).
func (d *Decoder) Read(dst []float32) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	n, err := d.src.Read(dst)
	if n < 0 || n > len(dst) || n%d.info.Channels != 0 {
		d.err = fmt.Errorf("%s: decoder returned %d samples for a buffer of %d", d.info.Format, n, len(dst))
		return 0, d.err
	}
	d.read += int64(n / d.info.Channels)
	if err != nil {
		d.err = err
	}
	return n, err
}

// Close closes the file Open opened.
func (d *Decoder) Close() error {
	if d.closer == nil {
		return nil
	}
	return d.closer.Close()
}
