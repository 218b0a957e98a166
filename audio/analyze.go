package audio

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
)

// Facts are the measurements of a clip, made in one streaming pass.
type Facts struct {
	Frames   int64   `json:"frames"`
	Duration float64 `json:"duration_s"`
	// Levels in dB relative to full scale; nil for digital silence (-inf).
	// RMS is plain 20·log10(rms), so a full-scale sine reads -3.01 dBFS.
	PeakDBFS *float64 `json:"peak_dbfs"`
	RMSDBFS  *float64 `json:"rms_dbfs"`
	// LoudnessLUFS is the integrated loudness (ITU-R BS.1770-4 / EBU
	// R128); nil when the clip is shorter than one 400 ms block or below
	// the -70 LUFS gate.
	LoudnessLUFS   *float64  `json:"loudness_lufs"`
	DCOffset       []float64 `json:"dc_offset"` // the mean of each channel
	ClippedSamples int64     `json:"clipped_samples"`
	PCMSHA256      string    `json:"pcm_sha256"` // of the decoded float32 samples, little-endian, interleaved
	Peaks          []Peak    `json:"peaks,omitempty"`
	QC             []Flag    `json:"qc"`
}

// Peak is the lowest and highest sample of one waveform bucket, over all
// channels.
type Peak struct {
	Min float32 `json:"min"`
	Max float32 `json:"max"`
}

// Flag is a quality problem and why it was raised.
type Flag struct {
	Code   string `json:"code"` // silent, clipped, too_short, dc_offset, truncated
	Reason string `json:"reason"`
}

// QC sets the thresholds of the quality flags.
type QC struct {
	SilenceDBFS float64 // a peak below this is silent (default -60)
	MinDuration float64 // seconds; shorter is too short (default 0.1)
	MaxDC       float64 // a channel mean beyond ±this is a DC offset (default 0.01, -40 dBFS)
	ClipLevel   float32 // samples at or beyond this magnitude are at full scale (default 0.999)
	ClipRun     int     // this many full-scale samples in a row are clipping (default 3)
}

// DefaultQC returns the default thresholds.
func DefaultQC() QC {
	return QC{SilenceDBFS: -60, MinDuration: 0.1, MaxDC: 0.01, ClipLevel: 0.999, ClipRun: 3}
}

// Analyzer measures audio written to it a buffer at a time.
type Analyzer struct {
	rate, channels int
	qc             QC
	frames         int64
	peak           float32
	sumSq          float64
	sums           []float64
	clipped        int64
	clipRuns       int64
	run            []int
	hash           hash.Hash
	scratch        []byte
	loud           *loudnessMeter
	buckets        int // wanted waveform buckets; 0 for none
	bucketSize     int64
	peaks          []Peak
	cur            Peak
	curN           int64
	partial        []float32 // the start of a frame split across writes
}

// NewAnalyzer makes an analyzer for interleaved audio. buckets is the
// number of waveform peaks wanted (0 for none); expectedFrames, when known,
// lets the buckets come out evenly sized.
func NewAnalyzer(rate, channels int, qc QC, buckets int, expectedFrames int64) *Analyzer {
	a := &Analyzer{
		rate: rate, channels: channels, qc: qc,
		sums: make([]float64, channels), run: make([]int, channels),
		hash: sha256.New(), loud: newLoudnessMeter(rate, channels),
		buckets: buckets, bucketSize: 1, cur: Peak{Min: math.MaxFloat32, Max: -math.MaxFloat32},
	}
	if buckets > 0 && expectedFrames > 0 {
		a.bucketSize = max(1, (expectedFrames+int64(buckets)-1)/int64(buckets))
	}
	return a
}

// Write adds interleaved samples. Writes may split frames.
func (a *Analyzer) Write(samples []float32) {
	ch := a.channels
	if len(a.partial) > 0 {
		k := min(ch-len(a.partial), len(samples))
		a.partial = append(a.partial, samples[:k]...)
		samples = samples[k:]
		if len(a.partial) < ch {
			return
		}
		frame := a.partial
		a.partial = nil
		a.Write(frame)
	}
	if rest := len(samples) % ch; rest != 0 {
		a.partial = append(a.partial[:0], samples[len(samples)-rest:]...)
		samples = samples[:len(samples)-rest]
	}
	if len(a.scratch) < 4*len(samples) {
		a.scratch = make([]byte, 4*len(samples))
	}
	for i, v := range samples {
		binary.LittleEndian.PutUint32(a.scratch[4*i:], math.Float32bits(v))
	}
	a.hash.Write(a.scratch[:4*len(samples)])
	a.loud.write(samples)
	level := a.qc.ClipLevel
	for i := 0; i < len(samples); i += ch {
		fmin, fmax := float32(math.MaxFloat32), float32(-math.MaxFloat32)
		for c, v := range samples[i : i+ch] {
			m := v
			if m < 0 {
				m = -m
			}
			if m > a.peak {
				a.peak = m
			}
			a.sumSq += float64(v) * float64(v)
			a.sums[c] += float64(v)
			if m >= level {
				a.clipped++
				a.run[c]++
				if a.run[c] == a.qc.ClipRun {
					a.clipRuns++
				}
			} else {
				a.run[c] = 0
			}
			fmin, fmax = min(fmin, v), max(fmax, v)
		}
		if a.buckets > 0 {
			a.cur.Min, a.cur.Max = min(a.cur.Min, fmin), max(a.cur.Max, fmax)
			a.curN++
			if a.curN == a.bucketSize {
				a.pushBucket()
			}
		}
	}
	a.frames += int64(len(samples) / ch)
}

// pushBucket ends the current waveform bucket. When there are twice as many
// buckets as wanted, neighbours merge and buckets double in size, so that
// memory stays bounded whatever the length.
func (a *Analyzer) pushBucket() {
	a.peaks = append(a.peaks, a.cur)
	a.cur, a.curN = Peak{Min: math.MaxFloat32, Max: -math.MaxFloat32}, 0
	if len(a.peaks) == 2*a.buckets {
		for i := range a.buckets {
			x, y := a.peaks[2*i], a.peaks[2*i+1]
			a.peaks[i] = Peak{min(x.Min, y.Min), max(x.Max, y.Max)}
		}
		a.peaks = a.peaks[:a.buckets]
		a.bucketSize *= 2
	}
}

// Facts returns the measurements of everything written so far.
func (a *Analyzer) Facts() Facts {
	f := Facts{Frames: a.frames, PCMSHA256: hex.EncodeToString(a.hash.Sum(nil)), ClippedSamples: a.clipped}
	if a.rate > 0 {
		f.Duration = float64(a.frames) / float64(a.rate)
	}
	db := func(v float64) *float64 {
		if v <= 0 {
			return nil
		}
		d := 20 * math.Log10(v)
		return &d
	}
	f.PeakDBFS = db(float64(a.peak))
	if n := a.frames * int64(a.channels); n > 0 {
		f.RMSDBFS = db(math.Sqrt(a.sumSq / float64(n)))
	}
	if l, ok := a.loud.integrated(); ok {
		f.LoudnessLUFS = &l
	}
	f.DCOffset = make([]float64, a.channels)
	for c, s := range a.sums {
		if a.frames > 0 {
			f.DCOffset[c] = s / float64(a.frames)
		}
	}
	f.Peaks = a.waveform()
	f.QC = a.flags(f)
	return f
}

// waveform returns exactly the wanted number of buckets, or one a frame
// when the clip is shorter.
func (a *Analyzer) waveform() []Peak {
	if a.buckets == 0 {
		return nil
	}
	all := append([]Peak(nil), a.peaks...)
	if a.curN > 0 {
		all = append(all, a.cur)
	}
	if len(all) <= a.buckets {
		return all
	}
	out := make([]Peak, a.buckets)
	for i := range out {
		from, to := i*len(all)/a.buckets, (i+1)*len(all)/a.buckets
		p := Peak{Min: math.MaxFloat32, Max: -math.MaxFloat32}
		for _, q := range all[from:max(to, from+1)] {
			p = Peak{min(p.Min, q.Min), max(p.Max, q.Max)}
		}
		out[i] = p
	}
	return out
}

func (a *Analyzer) flags(f Facts) []Flag {
	qc := []Flag{}
	switch {
	case f.PeakDBFS == nil:
		qc = append(qc, Flag{"silent", "digital silence: every sample is 0"})
	case *f.PeakDBFS < a.qc.SilenceDBFS:
		qc = append(qc, Flag{"silent", fmt.Sprintf("peak %.1f dBFS is below %.0f dBFS", *f.PeakDBFS, a.qc.SilenceDBFS)})
	}
	if a.clipRuns > 0 {
		qc = append(qc, Flag{"clipped", fmt.Sprintf("%d runs of %d or more samples at full scale (|x| >= %g); %d such samples in all",
			a.clipRuns, a.qc.ClipRun, a.qc.ClipLevel, a.clipped)})
	}
	if f.Duration < a.qc.MinDuration {
		qc = append(qc, Flag{"too_short", fmt.Sprintf("%.3f s is shorter than %g s", f.Duration, a.qc.MinDuration)})
	}
	for c, m := range f.DCOffset {
		if math.Abs(m) > a.qc.MaxDC {
			qc = append(qc, Flag{"dc_offset", fmt.Sprintf("channel %d has a mean of %+.4f (beyond ±%g)", c+1, m, a.qc.MaxDC)})
		}
	}
	return qc
}

// Analyze decodes d to the end and measures it. A decode error ends the
// pass: the facts of what was decoded come back with it, and a truncated
// file gets a "truncated" flag.
func Analyze(d *Decoder, qc QC, buckets int) (Facts, error) {
	info := d.Info()
	a := NewAnalyzer(info.SampleRate, info.Channels, qc, buckets, info.Frames)
	buf := make([]float32, 4096*info.Channels)
	for {
		n, err := d.Read(buf)
		a.Write(buf[:n])
		if errors.Is(err, io.EOF) {
			return a.Facts(), nil
		}
		if err != nil {
			f := a.Facts()
			if errors.Is(err, io.ErrUnexpectedEOF) {
				f.QC = append(f.QC, Flag{"truncated", err.Error()})
			}
			return f, err
		}
	}
}

func isTruncation(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }
