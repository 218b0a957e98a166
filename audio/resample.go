package audio

import (
	"fmt"
	"math"
)

// The resampling filter: a Kaiser-windowed sinc whose passband is flat to
// 90% of the lower Nyquist frequency and whose stopband starts at that
// Nyquist frequency with about 90 dB of rejection.
const (
	rsRolloff   = 0.95 // cutoff as a fraction of the lower Nyquist frequency
	rsZeros     = 57   // zero crossings of the sinc on each side
	rsBeta      = 8.96 // Kaiser beta for ~90 dB
	rsPhases    = 256  // table rows per input sample, interpolated linearly
	rsCompactAt = 8192 // drop consumed history once this much has piled up
)

// Resampler converts interleaved audio from one sample rate to another with
// a polyphase windowed-sinc filter. It streams: feed it any number of
// Process calls, then Flush. The output position is exact rational
// arithmetic, so long streams do not drift.
type Resampler struct {
	channels int
	p, q     int64 // the input advances p/q samples per output sample
	half     int   // W: taps on each side of the output instant
	table    []float32
	hist     [][]float32 // per channel; hist[c][i] is input sample offset+i
	offset   int64
	base     int64 // integer part of the next output's input time
	num      int64 // fractional part, in 1/q
	in, out  int64 // frames consumed and produced
	kernel   []float32
	copyOnly bool
	partial  []float32 // the start of a frame split across Process calls
}

// NewResampler makes a resampler for channels interleaved channels.
func NewResampler(inRate, outRate, channels int) (*Resampler, error) {
	if inRate < 1 || inRate > maxSampleRate || outRate < 1 || outRate > maxSampleRate {
		return nil, fmt.Errorf("resample: rates must be 1..%d Hz, got %d and %d", maxSampleRate, inRate, outRate)
	}
	if channels < 1 || channels > maxChannels {
		return nil, fmt.Errorf("resample: %d channels", channels)
	}
	g := gcd(int64(inRate), int64(outRate))
	r := &Resampler{channels: channels, p: int64(inRate) / g, q: int64(outRate) / g}
	if inRate == outRate {
		r.copyOnly = true
		return r, nil
	}
	// Cutoff in cycles per input sample, doubled (the sinc's scale).
	fc2 := rsRolloff * math.Min(1, float64(outRate)/float64(inRate))
	r.half = int(math.Ceil(rsZeros / fc2))
	taps := 2 * r.half
	r.table = make([]float32, (rsPhases+1)*taps)
	i0b := besselI0(rsBeta)
	for ph := 0; ph <= rsPhases; ph++ {
		frac := float64(ph) / rsPhases
		row := r.table[ph*taps : (ph+1)*taps]
		sum := 0.0
		vals := make([]float64, taps)
		for j := range taps {
			tau := float64(r.half-1-j) + frac
			x := tau / float64(r.half)
			if math.Abs(x) >= 1 {
				continue
			}
			v := fc2 * sinc(fc2*tau) * besselI0(rsBeta*math.Sqrt(1-x*x)) / i0b
			vals[j] = v
			sum += v
		}
		for j := range taps {
			row[j] = float32(vals[j] / sum) // unit gain at DC for every phase
		}
	}
	r.kernel = make([]float32, taps)
	r.hist = make([][]float32, channels)
	for c := range r.hist {
		r.hist[c] = make([]float32, r.half, r.half+rsCompactAt) // W zeros before the first sample
	}
	r.offset = -int64(r.half)
	return r, nil
}

// Process consumes interleaved input and appends the output it can already
// produce to out. Input may split frames between calls.
func (r *Resampler) Process(in []float32, out []float32) []float32 {
	if len(r.partial) > 0 {
		k := min(r.channels-len(r.partial), len(in))
		r.partial = append(r.partial, in[:k]...)
		in = in[k:]
		if len(r.partial) < r.channels {
			return out
		}
		frame := r.partial
		r.partial = nil
		out = r.Process(frame, out)
	}
	if rest := len(in) % r.channels; rest != 0 {
		r.partial = append(r.partial[:0], in[len(in)-rest:]...)
		in = in[:len(in)-rest]
	}
	n := len(in) / r.channels
	r.in += int64(n)
	if r.copyOnly {
		r.out += int64(n)
		return append(out, in[:n*r.channels]...)
	}
	for c := range r.hist {
		h := r.hist[c]
		for i := range n {
			h = append(h, in[i*r.channels+c])
		}
		r.hist[c] = h
	}
	return r.produce(out, int64(math.MaxInt64))
}

// Flush ends the stream and appends the remaining output: in all,
// ceil(frames in × outRate / inRate) frames.
func (r *Resampler) Flush(out []float32) []float32 {
	if r.copyOnly {
		return out
	}
	for c := range r.hist {
		r.hist[c] = append(r.hist[c], make([]float32, 2*r.half+1)...)
	}
	want := (r.in*r.q + r.p - 1) / r.p
	return r.produce(out, want)
}

// produce appends outputs while the input they need is there, up to limit
// outputs in all.
func (r *Resampler) produce(out []float32, limit int64) []float32 {
	taps := 2 * r.half
	have := int64(len(r.hist[0]))
	for r.out < limit {
		first := r.base - int64(r.half) + 1 - r.offset // index of the first tap
		if first+int64(taps) > have {
			break
		}
		pos := float64(r.num) / float64(r.q) * rsPhases
		ph := int(pos)
		a := float32(pos - float64(ph))
		row0 := r.table[ph*taps : (ph+1)*taps]
		row1 := r.table[(ph+1)*taps : (ph+2)*taps]
		k := r.kernel[:taps]
		for j := range k {
			k[j] = row0[j] + a*(row1[j]-row0[j])
		}
		for c := range r.hist {
			x := r.hist[c][first : first+int64(taps)]
			out = append(out, dot(x, k))
		}
		r.out++
		r.num += r.p
		r.base += r.num / r.q
		r.num %= r.q
	}
	// Drop the history no future output needs.
	if drop := r.base - int64(r.half) + 1 - r.offset; drop > rsCompactAt {
		for c := range r.hist {
			n := copy(r.hist[c], r.hist[c][drop:])
			r.hist[c] = r.hist[c][:n]
		}
		r.offset += drop
	}
	return out
}

// dot is the inner product of two equal-length vectors, unrolled by four.
func dot(x, k []float32) float32 {
	k = k[:len(x)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * k[i]
		s1 += x[i+1] * k[i+1]
		s2 += x[i+2] * k[i+2]
		s3 += x[i+3] * k[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * k[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

// besselI0 is the modified Bessel function of the first kind, order 0.
func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	for k := 1; k < 200; k++ {
		term *= (x / 2) * (x / 2) / float64(k*k)
		sum += term
		if term < sum*1e-17 {
			break
		}
	}
	return sum
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Resample returns the clip at another sample rate.
func (c *Clip) Resample(rate int) (*Clip, error) {
	if rate == c.SampleRate {
		return c, nil
	}
	r, err := NewResampler(c.SampleRate, rate, c.Channels)
	if err != nil {
		return nil, err
	}
	want := int64(c.Frames())*int64(rate)/int64(c.SampleRate) + 1
	out := make([]float32, 0, want*int64(c.Channels))
	out = r.Process(c.Samples, out)
	out = r.Flush(out)
	return &Clip{SampleRate: rate, Channels: c.Channels, Samples: out}, nil
}
