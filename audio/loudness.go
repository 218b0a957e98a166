package audio

import "math"

// biquad is a second-order IIR section in transposed direct form II.
type biquad struct {
	b0, b1, b2, a1, a2 float64
	z1, z2             float64
}

func (f *biquad) step(x float64) float64 {
	y := f.b0*x + f.z1
	f.z1 = f.b1*x - f.a1*y + f.z2
	f.z2 = f.b2*x - f.a2*y
	return y
}

// kWeighting returns the two stages of the ITU-R BS.1770-4 K-weighting
// filter for a sample rate: a high-shelf pre-filter (the head) and the RLB
// high-pass. The coefficients come from the analogue prototypes through the
// bilinear transform, so that every rate, not only 48 kHz, is right.
func kWeighting(rate int) (shelf, highpass biquad) {
	fs := float64(rate)
	// Stage 1: high shelf, +4 dB above about 1.7 kHz.
	f0, gain, q := 1681.974450955533, 3.999843853973347, 0.7071752369554196
	k := math.Tan(math.Pi * f0 / fs)
	vh := math.Pow(10, gain/20)
	vb := math.Pow(vh, 0.4996667741545416)
	a0 := 1 + k/q + k*k
	shelf = biquad{
		b0: (vh + vb*k/q + k*k) / a0,
		b1: 2 * (k*k - vh) / a0,
		b2: (vh - vb*k/q + k*k) / a0,
		a1: 2 * (k*k - 1) / a0,
		a2: (1 - k/q + k*k) / a0,
	}
	// Stage 2: the RLB high-pass at about 38 Hz.
	f0, q = 38.13547087602444, 0.5003270373238773
	k = math.Tan(math.Pi * f0 / fs)
	a0 = 1 + k/q + k*k
	highpass = biquad{b0: 1, b1: -2, b2: 1, a1: 2 * (k*k - 1) / a0, a2: (1 - k/q + k*k) / a0}
	return shelf, highpass
}

// channelWeights are BS.1770's channel weights: 1 for the front channels,
// 1.41 for the surrounds, 0 for the LFE. Six channels are read as 5.1 in
// WAV/FLAC order (L R C LFE Ls Rs); other layouts weigh every channel 1.
func channelWeights(channels int) []float64 {
	w := make([]float64, channels)
	for i := range w {
		w[i] = 1
	}
	if channels == 6 {
		w[3], w[4], w[5] = 0, 1.41, 1.41
	}
	return w
}

// loudnessMeter measures integrated loudness (BS.1770-4, EBU R128) in one
// pass: K-weighted mean squares over 100 ms steps, combined into 400 ms
// blocks that overlap by 75%, gated at -70 LUFS and then 10 LU below the
// mean of the blocks above that.
type loudnessMeter struct {
	channels int
	step     int // frames in 100 ms
	weights  []float64
	shelf    []biquad
	hp       []biquad
	acc      float64 // weighted sum of squares in the current step
	filled   int     // frames in the current step
	steps    []float64
}

func newLoudnessMeter(rate, channels int) *loudnessMeter {
	m := &loudnessMeter{channels: channels, step: max(rate/10, 1), weights: channelWeights(channels)}
	for range channels {
		s, h := kWeighting(rate)
		m.shelf = append(m.shelf, s)
		m.hp = append(m.hp, h)
	}
	return m
}

func (m *loudnessMeter) write(samples []float32) {
	ch := m.channels
	for i := 0; i+ch <= len(samples); i += ch {
		for c := range ch {
			y := m.hp[c].step(m.shelf[c].step(float64(samples[i+c])))
			m.acc += m.weights[c] * y * y
		}
		m.filled++
		if m.filled == m.step {
			m.steps = append(m.steps, m.acc)
			m.acc, m.filled = 0, 0
		}
	}
}

// integrated returns the integrated loudness in LUFS; ok is false when the
// audio is shorter than one 400 ms block or every block is below the
// absolute gate (silence).
func (m *loudnessMeter) integrated() (lufs float64, ok bool) {
	if len(m.steps) < 4 {
		return 0, false
	}
	blockLen := float64(4 * m.step)
	blocks := make([]float64, 0, len(m.steps)-3)
	for i := 0; i+4 <= len(m.steps); i++ {
		z := (m.steps[i] + m.steps[i+1] + m.steps[i+2] + m.steps[i+3]) / blockLen
		blocks = append(blocks, z)
	}
	loud := func(z float64) float64 { return -0.691 + 10*math.Log10(z) }
	gatedMean := func(threshold float64) (float64, int) {
		sum, n := 0.0, 0
		for _, z := range blocks {
			if z > 0 && loud(z) > threshold {
				sum += z
				n++
			}
		}
		if n == 0 {
			return 0, 0
		}
		return sum / float64(n), n
	}
	abs, n := gatedMean(-70)
	if n == 0 {
		return 0, false
	}
	rel, n := gatedMean(loud(abs) - 10)
	if n == 0 {
		return 0, false
	}
	return loud(rel), true
}
