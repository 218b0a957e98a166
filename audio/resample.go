package audio

import (
	"fmt"
	"math"
	"sync"

	"github.com/foley-audio/foley/internal/vecindex"
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
	phases   int         // table rows - 1; == q when each phase has its exact row
	hist     [][]float32 // per channel; hist[c][i] is input sample offset+i
	offset   int64
	base     int64 // integer part of the next output's input time
	num      int64 // fractional part, in 1/q
	in, out  int64 // frames consumed and produced
	kernel   []float32
	copyOnly bool
	partial  []float32 // the start of a frame split across Process calls
}

// filterTables caches the filter table of each rate pair: building one
// takes longer than resampling a second of audio with it.
var filterTables sync.Map // [2]int{inRate, outRate} -> *filterEntry

type filterEntry struct {
	once  sync.Once
	half  int
	table []float32
}

// rsExactPhases is the most output phases a rate pair may have for its
// table to hold each phase exactly (48 kHz to 16 kHz has 1, 44.1 kHz to
// 16 kHz has 160); above it, rows at 1/rsPhases steps are interpolated.
const rsExactPhases = 512

// filterTable returns W (the taps on each side) and the polyphase table
// for resampling inRate to outRate, shared and read-only. It has
// phases+1 rows; row i is the kernel for an output i/phases of the way
// between two input samples.
func filterTable(inRate, outRate, phases int) (int, []float32) {
	e, _ := filterTables.LoadOrStore([3]int{inRate, outRate, phases}, &filterEntry{})
	fe := e.(*filterEntry)
	fe.once.Do(func() { fe.half, fe.table = buildFilterTable(inRate, outRate, phases) })
	return fe.half, fe.table
}

func buildFilterTable(inRate, outRate, phases int) (int, []float32) {
	// Cutoff in cycles per input sample, doubled (the sinc's scale).
	fc2 := rsRolloff * math.Min(1, float64(outRate)/float64(inRate))
	half := int(math.Ceil(rsZeros / fc2))
	taps := 2 * half
	table := make([]float32, (phases+1)*taps)
	i0b := besselI0(rsBeta)
	vals := make([]float64, taps)
	for ph := 0; ph <= phases; ph++ {
		frac := float64(ph) / float64(phases)
		row := table[ph*taps : (ph+1)*taps]
		sum := 0.0
		for j := range taps {
			vals[j] = 0
			tau := float64(half-1-j) + frac
			x := tau / float64(half)
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
	return half, table
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
	r.phases = rsPhases
	if r.q <= rsExactPhases {
		r.phases = int(r.q)
	}
	r.half, r.table = filterTable(inRate, outRate, r.phases)
	taps := 2 * r.half
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
		var k []float32
		if int64(r.phases) == r.q {
			k = r.table[r.num*int64(taps) : (r.num+1)*int64(taps)]
		} else {
			pos := float64(r.num) / float64(r.q) * float64(r.phases)
			ph := int(pos)
			a := float32(pos - float64(ph))
			row0 := r.table[ph*taps : (ph+1)*taps]
			row1 := r.table[(ph+1)*taps : (ph+2)*taps]
			k = r.kernel[:taps]
			for j := range k {
				k[j] = row0[j] + a*(row1[j]-row0[j])
			}
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

// dot is the inner product of two equal-length vectors (SIMD where the
// CPU has it).
func dot(x, k []float32) float32 { return vecindex.Dot(x, k[:len(x)]) }

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
