package demo

import (
	"math"
	"math/rand/v2"

	"github.com/foley-audio/foley/audio"
)

// The shared DSP of the synthesiser. Signals are []float64 at Rate; the
// helpers are small and plain so that each sound reads as a recipe.

// Rate is the sample rate of every demo clip.
const Rate = 48000

// gen is the source of randomness of one clip and its length.
type gen struct {
	*rand.Rand
	n int // frames
}

// sec converts seconds to samples.
func sec(s float64) int { return int(math.Round(s * Rate)) }

// uni is uniform in [lo, hi).
func (g *gen) uni(lo, hi float64) float64 { return lo + (hi-lo)*g.Float64() }

// logUni is log-uniform in [lo, hi): even over octaves.
func (g *gen) logUni(lo, hi float64) float64 { return lo * math.Pow(hi/lo, g.Float64()) }

// buf is a silent signal as long as the clip.
func (g *gen) buf() []float64 { return make([]float64, g.n) }

// noise is a fast generator of white noise for bulk signals, seeded from
// the clip's generator: xorshift64*, uniform, scaled to unit variance.
type noise uint64

func (g *gen) noise() noise { return noise(g.Uint64() | 1) }

func (s *noise) next() float64 {
	x := uint64(*s)
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	*s = noise(x)
	return (float64((x*2685821657736338717)>>11)/(1<<53)*2 - 1) * math.Sqrt(3)
}

// white is white noise of unit variance.
func (g *gen) white(n int) []float64 {
	x := make([]float64, n)
	s := g.noise()
	for i := range x {
		x[i] = s.next()
	}
	return x
}

// pink is noise falling 3 dB per octave (Paul Kellet's filter), about unit
// RMS.
func (g *gen) pink(n int) []float64 {
	x := g.white(n)
	var b0, b1, b2, b3, b4, b5, b6 float64
	for i, w := range x {
		b0 = 0.99886*b0 + w*0.0555179
		b1 = 0.99332*b1 + w*0.0750759
		b2 = 0.96900*b2 + w*0.1538520
		b3 = 0.86650*b3 + w*0.3104856
		b4 = 0.55000*b4 + w*0.5329522
		b5 = -0.7616*b5 - w*0.0168980
		x[i] = (b0 + b1 + b2 + b3 + b4 + b5 + b6 + w*0.5362) * 0.2
		b6 = w * 0.115926
	}
	return x
}

// brown is noise falling 6 dB per octave (a leaky integral of white
// noise), about unit RMS.
func (g *gen) brown(n int) []float64 {
	x := g.white(n)
	var y float64
	for i, w := range x {
		y = 0.998*y + 0.063*w
		x[i] = y
	}
	return x
}

// smooth is a random control signal: values drawn uniformly in [lo, hi]
// perRate times a second, joined smoothly.
func (g *gen) smooth(n int, perSec, lo, hi float64) []float64 {
	step := Rate / perSec
	pts := make([]float64, int(float64(n)/step)+3)
	for i := range pts {
		pts[i] = g.uni(lo, hi)
	}
	x := make([]float64, n)
	for i := range x {
		p := float64(i) / step
		k := int(p)
		f := p - float64(k)
		f = f * f * (3 - 2*f) // smoothstep
		x[i] = pts[k]*(1-f) + pts[k+1]*f
	}
	return x
}

// events are the times of a Poisson process of perSec events a second in
// [from, to).
func (g *gen) events(from, to, perSec float64) []float64 {
	var ts []float64
	for t := from + g.ExpFloat64()/perSec; t < to; t += g.ExpFloat64() / perSec {
		ts = append(ts, t)
	}
	return ts
}

// biquad is a second-order filter (RBJ cookbook), direct form I so that it
// may be retuned while running.
type biquad struct {
	kind               byte // 'l'owpass, 'h'ighpass, 'b'andpass (0 dB peak)
	b0, b1, b2, a1, a2 float64
	x1, x2, y1, y2     float64
	lastF, lastQ       float64
}

func newBiquad(kind byte, f, q float64) *biquad {
	b := &biquad{kind: kind}
	b.tune(f, q)
	return b
}

func lowpass(f, q float64) *biquad  { return newBiquad('l', f, q) }
func highpass(f, q float64) *biquad { return newBiquad('h', f, q) }
func bandpass(f, q float64) *biquad { return newBiquad('b', f, q) }

// tune sets the corner or centre frequency and Q, keeping the state.
func (b *biquad) tune(f, q float64) {
	if f == b.lastF && q == b.lastQ {
		return
	}
	b.lastF, b.lastQ = f, q
	f = min(max(f, 5), 0.45*Rate)
	w := 2 * math.Pi * f / Rate
	cw, sw := math.Cos(w), math.Sin(w)
	alpha := sw / (2 * q)
	a0 := 1 + alpha
	switch b.kind {
	case 'l':
		b.b0, b.b1, b.b2 = (1-cw)/2, 1-cw, (1-cw)/2
	case 'h':
		b.b0, b.b1, b.b2 = (1+cw)/2, -(1 + cw), (1+cw)/2
	default:
		b.b0, b.b1, b.b2 = alpha, 0, -alpha
	}
	b.b0, b.b1, b.b2 = b.b0/a0, b.b1/a0, b.b2/a0
	b.a1, b.a2 = -2*cw/a0, (1-alpha)/a0
}

func (b *biquad) tick(x float64) float64 {
	y := b.b0*x + b.b1*b.x1 + b.b2*b.x2 - b.a1*b.y1 - b.a2*b.y2
	b.x2, b.x1, b.y2, b.y1 = b.x1, x, b.y1, y
	return y
}

// run filters x in place.
func (b *biquad) run(x []float64) {
	b0, b1, b2, a1, a2 := b.b0, b.b1, b.b2, b.a1, b.a2
	x1, x2, y1, y2 := b.x1, b.x2, b.y1, b.y2
	for i, v := range x {
		y := b0*v + b1*x1 + b2*x2 - a1*y1 - a2*y2
		x2, x1, y2, y1 = x1, v, y1, y
		x[i] = y
	}
	b.x1, b.x2, b.y1, b.y2 = x1, x2, y1, y2
}

// filt runs x through the filters in turn, in place, and returns it.
func filt(x []float64, fs ...*biquad) []float64 {
	for _, f := range fs {
		f.run(x)
	}
	return x
}

// sweep runs x through a filter whose frequency follows freq (one value a
// sample), retuned every 32 samples.
func sweep(x []float64, b *biquad, freq []float64, q float64) []float64 {
	for i := 0; i < len(x); i += 32 {
		b.tune(freq[i], q)
		b.run(x[i:min(i+32, len(x))])
	}
	return x
}

// ring adds to dst, times gain, x through a two-pole resonator at f Hz
// whose impulse response is a unit sine decaying by 1/e every tau seconds.
func ring(dst, x []float64, f, tau, gain float64) {
	w := 2 * math.Pi * f / Rate
	r := math.Exp(-1 / (tau * Rate))
	c1, c2, g := 2*r*math.Cos(w), r*r, math.Sin(w)
	var y1, y2 float64
	for i, v := range x {
		y0 := g*v + c1*y1 - c2*y2
		dst[i] += gain * y0
		y2, y1 = y1, y0
	}
}

// mode is a decaying partial: frequency, 1/e decay time, amplitude.
type mode struct{ f, tau, amp float64 }

// strike adds to dst, from time at (seconds), the modes struck by an
// impulse of gain amp: a sum of decaying sines, each cut when it has
// decayed by 80 dB.
func strike(dst []float64, at, amp float64, modes ...mode) {
	start := sec(at)
	for _, m := range modes {
		w := 2 * math.Pi * m.f / Rate
		r := math.Exp(-1 / (m.tau * Rate))
		c1, c2 := 2*r*math.Cos(w), r*r
		// s[k] = r^k sin(wk), by its recurrence.
		s1, s2 := 0.0, -math.Sin(w)/r // s[0] = 0, s[-1]
		end := min(len(dst), start+int(9.2*m.tau*Rate))
		for i := max(start, 0); i < end; i++ {
			s0 := c1*s1 - c2*s2
			dst[i] += amp * m.amp * s1
			s2, s1 = s1, s0
		}
	}
}

// burst is a noise burst with a 1/e decay of tau seconds, length 8 tau.
func (g *gen) burst(tau float64) []float64 {
	x := g.white(max(1, sec(8*tau)))
	k, e := math.Exp(-1/(tau*Rate)), 1.0
	for i := range x {
		x[i] *= e
		e *= k
	}
	return x
}

// add adds src·gain to dst from time at (seconds), cut at dst's end.
func add(dst, src []float64, at, gain float64) {
	start := sec(at)
	for i, v := range src {
		if j := start + i; j >= 0 && j < len(dst) {
			dst[j] += gain * v
		}
	}
}

// mul multiplies x by env, in place, and returns x.
func mul(x, env []float64) []float64 {
	for i := range x {
		x[i] *= env[i]
	}
	return x
}

// envelope is a signal of length n shaped by f(t seconds), a smooth
// function.
func envelope(n int, f func(t float64) float64) []float64 {
	const step = 16 // f is read every step samples, joined by lines
	x := make([]float64, n)
	next := f(0)
	for i := 0; i < n; i += step {
		cur := next
		next = f(float64(i+step) / Rate)
		for j := i; j < min(i+step, n); j++ {
			x[j] = cur + (next-cur)*float64(j-i)/step
		}
	}
	return x
}

// sine is a sine of f Hz and amplitude amp, n samples long, by the
// recurrence of its samples.
func sine(n int, f, amp float64) []float64 {
	x := make([]float64, n)
	w := 2 * math.Pi * f / Rate
	c, s1, s2 := 2*math.Cos(w), 0.0, -amp*math.Sin(w)
	for i := range x {
		x[i] = s1
		s1, s2 = c*s1-s2, s1
	}
	return x
}

// ad is an attack-decay envelope that starts at t0: a raised-cosine rise
// over attack seconds, then a 1/e decay every tau seconds.
func ad(t, t0, attack, tau float64) float64 {
	t -= t0
	switch {
	case t < 0:
		return 0
	case t < attack:
		return (1 - math.Cos(math.Pi*t/attack)) / 2
	}
	return math.Exp(-(t - attack) / tau)
}

// gate is 1 on [from, to) with raised-cosine edges of fade seconds, 0
// elsewhere.
func gate(t, from, to, fade float64) float64 {
	switch {
	case t < from || t >= to:
		return 0
	case t < from+fade:
		return (1 - math.Cos(math.Pi*(t-from)/fade)) / 2
	case t > to-fade:
		return (1 - math.Cos(math.Pi*(to-t)/fade)) / 2
	}
	return 1
}

// reverb is a small Schroeder reverberator (four damped combs, two
// all-passes) with the decay time rt60 (seconds) and damping (0..1, more
// is darker), mixed in at wet. spread offsets the comb delays, for a
// second channel that is not the first.
func reverb(x []float64, rt60, damp, wet, spread float64) []float64 {
	var lines [4][]float64
	var gains, lps [4]float64
	var pos [4]int
	for c, d := range []float64{0.0297, 0.0371, 0.0411, 0.0437} {
		n := sec(d + spread)
		lines[c] = make([]float64, n)
		gains[c] = math.Pow(10, -3*float64(n)/Rate/rt60)
	}
	out := make([]float64, len(x))
	for i, v := range x {
		var sum float64
		for c := range lines {
			y := lines[c][pos[c]]
			lps[c] = y*(1-damp) + lps[c]*damp
			lines[c][pos[c]] = v + gains[c]*lps[c]
			if pos[c]++; pos[c] == len(lines[c]) {
				pos[c] = 0
			}
			sum += y
		}
		out[i] = sum / 4
	}
	for _, d := range []float64{0.005, 0.0017} {
		line, k := make([]float64, sec(d+spread/7)), 0
		for i, v := range out {
			b := line[k]
			y := -0.7*v + b
			line[k] = v + 0.7*y
			if k++; k == len(line) {
				k = 0
			}
			out[i] = y
		}
	}
	for i, v := range x {
		out[i] = v + wet*out[i]
	}
	return out
}

// pan places a mono signal between left (-1) and right (+1) at constant
// power, p one value a sample.
func pan(x, p []float64) (l, r []float64) {
	l, r = make([]float64, len(x)), make([]float64, len(x))
	for i, v := range x {
		a := (p[i] + 1) * math.Pi / 4
		l[i], r[i] = v*math.Cos(a), v*math.Sin(a)
	}
	return l, r
}

// harmonic is a harmonic tone whose fundamental follows f0 (Hz, one value
// a sample), up to maxHz, shaped by three formants whose centres follow
// centres(i) (bandwidths bws, gains amps) and tilted down by 6 dB an octave
// above tilt Hz.
func harmonic(f0 []float64, maxHz, tilt float64, bws, amps [3]float64, centres func(i int) [3]float64) []float64 {
	y := make([]float64, len(f0))
	c, s, rc, rs := 1.0, 0.0, 1.0, 0.0 // the fundamental's phasor and its rotation a sample
	var fs [3]float64
	for i, f := range f0 {
		if i%16 == 0 {
			w := 2 * math.Pi * f / Rate
			rc, rs = math.Cos(w), math.Sin(w)
			m := 1 / math.Hypot(c, s)
			c, s = c*m, s*m
			fs = centres(i)
		}
		c, s = c*rc-s*rs, s*rc+c*rs
		prev, sk := 0.0, s // sin((k-1)·phase), sin(k·phase)
		var v float64
		for k := 1.0; k*f < maxHz; k++ {
			v += formants(k*f, fs, bws, amps) / (1 + k*f/tilt) * sk
			prev, sk = sk, 2*c*sk-prev
		}
		y[i] = v
	}
	return y
}

// formants weighs frequency f by resonances at the centres fs with
// bandwidths bws (Hz) and gains amps.
func formants(f float64, fs, bws, amps [3]float64) float64 {
	var w float64
	for j, c := range fs {
		d := (f - c) / (bws[j] / 2)
		w += amps[j] / (1 + d*d)
	}
	return w
}

// dur is the clip's length in seconds.
func (g *gen) dur() float64 { return float64(g.n) / Rate }

// norm scales x to a peak of 1, in place, and returns it.
func norm(x []float64) []float64 {
	var p float64
	for _, v := range x {
		p = max(p, v, -v)
	}
	if p > 0 {
		for i := range x {
			x[i] /= p
		}
	}
	return x
}

// scale multiplies x by k, in place, and returns it.
func scale(x []float64, k float64) []float64 {
	for i := range x {
		x[i] *= k
	}
	return x
}

// fadeOut fades the last secs seconds of x out with a raised cosine.
func fadeOut(x []float64, secs float64) []float64 {
	n := min(sec(secs), len(x))
	for j := range n {
		x[len(x)-1-j] *= (1 - math.Cos(math.Pi*float64(j)/float64(n))) / 2
	}
	return x
}

// addTone adds a sine whose frequency follows freq(t seconds since at)
// (read every 16 samples), with an attack-decay envelope, cut when it has
// decayed by 60 dB.
func addTone(dst []float64, at, amp, attack, tau float64, freq func(t float64) float64) {
	start, na := sec(at), sec(attack)
	end := min(len(dst), start+na+sec(6.9*tau))
	c, s, rc, rs := 1.0, 0.0, 1.0, 0.0 // the phasor and its rotation a sample
	k, e := math.Exp(-1/(tau*Rate)), 1.0
	for j := 0; start+j < end; j++ {
		if j%16 == 0 {
			w := 2 * math.Pi * freq(float64(j)/Rate) / Rate
			rc, rs = math.Cos(w), math.Sin(w)
			m := 1 / math.Hypot(c, s)
			c, s = c*m, s*m
		}
		c, s = c*rc-s*rs, s*rc+c*rs
		env := e
		if j < na {
			env = (1 - math.Cos(math.Pi*float64(j)/float64(na))) / 2
		} else {
			e *= k
		}
		if i := start + j; i >= 0 {
			dst[i] += amp * env * s
		}
	}
}

// chirp adds a tone of d seconds under a sine window whose frequency
// follows freq(u), u going from 0 to 1, with a faint second harmonic.
func chirp(dst []float64, at, d, amp float64, freq func(u float64) float64) {
	var ph float64
	start, n := sec(at), sec(d)
	for k := range n {
		if i := start + k; i >= 0 && i < len(dst) {
			u := float64(k) / float64(n)
			ph += 2 * math.Pi * freq(u) / Rate
			dst[i] += amp * math.Sin(math.Pi*u) * (math.Sin(ph) + 0.12*math.Sin(2*ph))
		}
	}
}

// bubble adds a bubble (a drip's plink, a brook's babble): a sine whose
// pitch rises by rise·f each second as it decays.
func bubble(dst []float64, at, amp, f, tau, rise float64) {
	addTone(dst, at, amp, 0.0005, tau, func(t float64) float64 { return f * (1 + rise*t) })
}

// stereo runs one recipe twice for a pair of decorrelated channels.
func (g *gen) stereo(side func() []float64) [][]float64 { return [][]float64{side(), side()} }

// finish turns channels into a clip: the DC is removed, the ends faded over
// 3 ms and the whole scaled to a peak of peakDB dBFS.
func finish(peakDB float64, chans ...[]float64) *audio.Clip {
	n := len(chans[0])
	var peak float64
	for _, x := range chans {
		filt(x, highpass(20, 0.7071))
		var mean float64
		for _, v := range x {
			mean += v
		}
		mean /= float64(n)
		fade := min(sec(0.003), n/2)
		for i := range x {
			x[i] -= mean
			if i < fade {
				x[i] *= float64(i) / float64(fade)
			}
			if j := n - 1 - i; j < fade {
				x[i] *= float64(j) / float64(fade)
			}
			peak = max(peak, x[i], -x[i])
		}
	}
	gain := 0.0
	if peak > 0 {
		gain = math.Pow(10, peakDB/20) / peak
	}
	c := &audio.Clip{SampleRate: Rate, Channels: len(chans), Samples: make([]float32, n*len(chans))}
	for ch, x := range chans {
		for i, v := range x {
			c.Samples[i*len(chans)+ch] = float32(v * gain)
		}
	}
	return c
}
