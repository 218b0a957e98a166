package demo

import (
	"math"
	"math/cmplx"
	"slices"

	"github.com/foley-audio/foley/audio"
)

// The measurements the tests make of the clips: a power spectrum by FFT,
// band energies, centroid, flatness and an energy envelope.

// fft transforms x in place (len a power of two).
func fft(x []complex128) {
	n := len(x)
	for i, j := 1, 0; i < n; i++ {
		bit := n >> 1
		for ; j&bit != 0; bit >>= 1 {
			j ^= bit
		}
		j ^= bit
		if i < j {
			x[i], x[j] = x[j], x[i]
		}
	}
	for size := 2; size <= n; size <<= 1 {
		w := cmplx.Exp(complex(0, -2*math.Pi/float64(size)))
		for start := 0; start < n; start += size {
			wk := complex(1, 0)
			for k := range size / 2 {
				a, b := x[start+k], x[start+k+size/2]*wk
				x[start+k], x[start+k+size/2] = a+b, a-b
				wk *= w
			}
		}
	}
}

const frame = 4096

// spectrum is the mean power spectrum (frame/2 bins, binHz apart) of the
// mono mix of c from from to to seconds (to <= 0: the end), Hann-windowed.
type spectrum []float64

const binHz = float64(Rate) / frame

func spectrumOf(c *audio.Clip, from, to float64) spectrum {
	m := c.Mono().Samples
	a, b := int(from*Rate), len(m)
	if to > 0 {
		b = min(b, int(to*Rate))
	}
	// At most 24 frames, spread evenly, overlapping by half at most.
	hop := max(frame/2, (b-a-frame)/23)
	p := make(spectrum, frame/2)
	buf := make([]complex128, frame)
	frames := 0
	for s := a; s+frame <= b; s += hop {
		for i := range buf {
			buf[i] = complex(float64(m[s+i])*hann[i], 0)
		}
		fft(buf)
		for k := range p {
			re, im := real(buf[k]), imag(buf[k])
			p[k] += re*re + im*im
		}
		frames++
	}
	for k := range p {
		p[k] /= float64(max(frames, 1))
	}
	return p
}

var hann = func() []float64 {
	w := make([]float64, frame)
	for i := range w {
		w[i] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/frame)
	}
	return w
}()

// band is the fraction of the energy between lo and hi Hz.
func (p spectrum) band(lo, hi float64) float64 {
	var in, all float64
	for k, v := range p {
		f := float64(k) * binHz
		all += v
		if f >= lo && f < hi {
			in += v
		}
	}
	return in / all
}

// centroid is the energy-weighted mean frequency.
func (p spectrum) centroid() float64 {
	var num, den float64
	for k, v := range p {
		num += float64(k) * binHz * v
		den += v
	}
	return num / den
}

// flatness is the geometric over the arithmetic mean of the power between
// lo and hi Hz: near 1 for white noise, near 0 for tones.
func (p spectrum) flatness(lo, hi float64) float64 {
	var logSum, sum float64
	n := 0
	for k, v := range p {
		if f := float64(k) * binHz; f >= lo && f < hi {
			logSum += math.Log(v + 1e-30)
			sum += v
			n++
		}
	}
	return math.Exp(logSum/float64(n)) / (sum / float64(n))
}

// peak is the frequency of the strongest bin and how many times the median
// bin it is.
func (p spectrum) peak() (hz, prominence float64) {
	k := 1
	for i := range p {
		if i > 0 && p[i] > p[k] {
			k = i
		}
	}
	sorted := slices.Clone(p)
	slices.Sort(sorted)
	return float64(k) * binHz, p[k] / sorted[len(sorted)/2]
}

// energyEnvelope is the mean square of the mono mix in frames of hop
// seconds.
func energyEnvelope(c *audio.Clip, hop float64) []float64 {
	m := c.Mono().Samples
	n := int(hop * Rate)
	var env []float64
	for s := 0; s+n <= len(m); s += n {
		var e float64
		for _, v := range m[s : s+n] {
			e += float64(v) * float64(v)
		}
		env = append(env, e/float64(n))
	}
	return env
}

// period is the lag, in seconds, between lo and hi seconds at which the
// energy envelope (hop seconds a frame) best matches itself.
func period(env []float64, hop, lo, hi float64) float64 {
	var mean float64
	for _, v := range env {
		mean += v
	}
	mean /= float64(len(env))
	best, bestLag := math.Inf(-1), 0
	for lag := int(lo / hop); lag <= int(hi/hop) && lag < len(env); lag++ {
		var r float64
		for i := 0; i+lag < len(env); i++ {
			r += (env[i] - mean) * (env[i+lag] - mean)
		}
		r /= float64(len(env) - lag)
		if r > best {
			best, bestLag = r, lag
		}
	}
	return float64(bestLag) * hop
}

// onsets counts the frames where the energy envelope rises through a tenth
// (-10 dB) of its maximum, at least gap seconds apart.
func onsets(env []float64, hop, gap float64) int {
	top := slices.Max(env)
	count, last := 0, -1e9
	for i := 1; i < len(env); i++ {
		t := float64(i) * hop
		if env[i] >= top/10 && env[i-1] < top/10 && t-last >= gap {
			count++
			last = t
		}
	}
	return count
}
