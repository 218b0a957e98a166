package audio

import (
	"bytes"
	"math"
	"os"
	"testing"
)

// tone makes a sine of freq Hz at amplitude amp (peak) for secs seconds on
// every channel.
func tone(rate, channels int, freq, amp, secs float64) *Clip {
	n := int(secs * float64(rate))
	c := &Clip{SampleRate: rate, Channels: channels, Samples: make([]float32, n*channels)}
	for i := range n {
		v := float32(amp * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)))
		for ch := range channels {
			c.Samples[i*channels+ch] = v
		}
	}
	return c
}

// rmsDB is the RMS of the middle half of a mono clip, in dB relative to a
// unit-amplitude sine (so a full-scale sine reads 0).
func rmsDB(c *Clip) float64 {
	s := c.Samples[len(c.Samples)/4 : 3*len(c.Samples)/4]
	sum := 0.0
	for _, v := range s {
		sum += float64(v) * float64(v)
	}
	return 10*math.Log10(sum/float64(len(s))) + 3.0103
}

func TestResamplePassbandAndStopband(t *testing.T) {
	for _, tc := range []struct {
		in, out int
	}{{48000, 16000}, {44100, 16000}, {44100, 48000}, {48000, 44100}, {22050, 16000}, {8000, 48000}} {
		low := math.Min(float64(tc.in), float64(tc.out)) / 2
		// Passband: flat to 90% of the lower Nyquist frequency.
		for _, f := range []float64{50, 1000, 0.5 * low, 0.9 * low} {
			c, err := tone(tc.in, 1, f, 0.5, 1).Resample(tc.out)
			if err != nil {
				t.Fatal(err)
			}
			if g := rmsDB(c) - 20*math.Log10(0.5); math.Abs(g) > 0.1 {
				t.Errorf("%d→%d Hz: a %.0f Hz tone comes out at %+.3f dB, want within ±0.1 dB", tc.in, tc.out, f, g)
			}
		}
		if tc.out > tc.in {
			continue // nothing lies above the new Nyquist frequency
		}
		// Stopband: tones above the new Nyquist frequency are gone.
		for _, f := range []float64{1.02 * low, 1.25 * low, 0.95 * float64(tc.in) / 2} {
			if f <= low || f >= 0.98*float64(tc.in)/2 {
				continue // not a tone the input can hold above the new Nyquist
			}
			c, err := tone(tc.in, 1, f, 1, 1).Resample(tc.out)
			if err != nil {
				t.Fatal(err)
			}
			if g := rmsDB(c); g > -60 {
				t.Errorf("%d→%d Hz: a %.0f Hz tone (above %.0f Hz) is only attenuated to %.1f dB, want <= -60", tc.in, tc.out, f, low, g)
			}
		}
	}
}

func TestResampleLengthAndStreaming(t *testing.T) {
	src := tone(44100, 2, 440, 0.5, 0.37)
	whole, err := src.Resample(16000)
	if err != nil {
		t.Fatal(err)
	}
	wantFrames := (src.Frames()*16000 + 44099) / 44100
	if whole.Frames() != wantFrames || whole.Channels != 2 || whole.SampleRate != 16000 {
		t.Fatalf("%d frames of %d channels at %d Hz; want %d frames", whole.Frames(), whole.Channels, whole.SampleRate, wantFrames)
	}
	// The same in uneven pieces.
	r, _ := NewResampler(44100, 16000, 2)
	var out []float32
	for i, step := 0, 2; i < len(src.Samples); step = step*3%1000 + 1 {
		end := min(i+step, len(src.Samples))
		out = r.Process(src.Samples[i:end], out)
		i = end
	}
	out = r.Flush(out)
	if !equalF32(out, whole.Samples) {
		t.Errorf("streaming in pieces differs from one call (%d vs %d samples)", len(out), len(whole.Samples))
	}
	// Same rate is a copy.
	same, _ := src.Resample(44100)
	if same != src {
		t.Error("resampling to the same rate copied")
	}
	if _, err := src.Resample(0); err == nil {
		t.Error("rate 0: no error")
	}
}

func TestLoudnessEBU3341(t *testing.T) {
	for _, rate := range []int{48000, 44100} {
		// Test 1: 1 kHz at -23 dBFS on both channels reads -23.0 LUFS.
		amp := math.Pow(10, -23.0/20)
		if l := lufs(t, tone(rate, 2, 1000, amp, 20)); math.Abs(l+23) > 0.1 {
			t.Errorf("%d Hz: -23 dBFS tone reads %.2f LUFS, want -23.0 ± 0.1", rate, l)
		}
		// Test 2: at -33 dBFS it reads -33.0.
		if l := lufs(t, tone(rate, 2, 1000, math.Pow(10, -33.0/20), 20)); math.Abs(l+33) > 0.1 {
			t.Errorf("%d Hz: -33 dBFS tone reads %.2f LUFS", rate, l)
		}
		// Test 3 (relative gate): -36 dBFS 10 s, -23 dBFS 60 s, -36 dBFS
		// 10 s reads -23.0: the quiet parts fall below the relative gate.
		c := concat(tone(rate, 2, 1000, math.Pow(10, -36.0/20), 10), tone(rate, 2, 1000, amp, 60), tone(rate, 2, 1000, math.Pow(10, -36.0/20), 10))
		if l := lufs(t, c); math.Abs(l+23) > 0.1 {
			t.Errorf("%d Hz: relative gate case reads %.2f LUFS, want -23.0", rate, l)
		}
		// Test 5: -26 dBFS 20 s, -20 dBFS 20.1 s, -26 dBFS 20 s reads -23.0.
		c = concat(tone(rate, 2, 1000, math.Pow(10, -26.0/20), 20), tone(rate, 2, 1000, math.Pow(10, -20.0/20), 20.1), tone(rate, 2, 1000, math.Pow(10, -26.0/20), 20))
		if l := lufs(t, c); math.Abs(l+23) > 0.1 {
			t.Errorf("%d Hz: test 5 reads %.2f LUFS, want -23.0", rate, l)
		}
		// Absolute gate: silence around a tone does not lower it.
		c = concat(&Clip{SampleRate: rate, Channels: 2, Samples: make([]float32, 2*10*rate)}, tone(rate, 2, 1000, amp, 10))
		if l := lufs(t, c); math.Abs(l+23) > 0.1 {
			t.Errorf("%d Hz: tone after silence reads %.2f LUFS, want -23.0", rate, l)
		}
	}
	// Shorter than a block, or silent: no loudness.
	for _, c := range []*Clip{tone(48000, 1, 1000, 0.5, 0.3), {SampleRate: 48000, Channels: 1, Samples: make([]float32, 48000)}} {
		a := NewAnalyzer(c.SampleRate, c.Channels, DefaultQC(), 0, 0)
		a.Write(c.Samples)
		if f := a.Facts(); f.LoudnessLUFS != nil {
			t.Errorf("loudness %v for a clip with no gated block", *f.LoudnessLUFS)
		}
	}
}

func lufs(t *testing.T, c *Clip) float64 {
	t.Helper()
	a := NewAnalyzer(c.SampleRate, c.Channels, DefaultQC(), 0, 0)
	for i := 0; i < len(c.Samples); i += 4096 * c.Channels {
		a.Write(c.Samples[i:min(i+4096*c.Channels, len(c.Samples))])
	}
	f := a.Facts()
	if f.LoudnessLUFS == nil {
		t.Fatal("no loudness")
	}
	return *f.LoudnessLUFS
}

func concat(cs ...*Clip) *Clip {
	out := &Clip{SampleRate: cs[0].SampleRate, Channels: cs[0].Channels}
	for _, c := range cs {
		out.Samples = append(out.Samples, c.Samples...)
	}
	return out
}

func TestAnalyzerFactsAndFlags(t *testing.T) {
	sine := tone(48000, 2, 1000, 0.5, 1)
	f := facts(sine, 10)
	if math.Abs(*f.PeakDBFS-20*math.Log10(0.5)) > 0.01 || math.Abs(*f.RMSDBFS-(20*math.Log10(0.5)-3.0103)) > 0.01 {
		t.Errorf("peak %.3f rms %.3f", *f.PeakDBFS, *f.RMSDBFS)
	}
	if f.Frames != 48000 || f.Duration != 1 || len(f.QC) != 0 || len(f.Peaks) != 10 {
		t.Errorf("facts %+v", f)
	}
	for _, p := range f.Peaks {
		if p.Max < 0.49 || p.Min > -0.49 {
			t.Errorf("bucket %+v of a 1 kHz sine", p)
		}
	}
	for _, tc := range []struct {
		name string
		clip *Clip
		code string
	}{
		{"digital silence", &Clip{SampleRate: 8000, Channels: 1, Samples: make([]float32, 8000)}, "silent"},
		{"very quiet", tone(8000, 1, 100, 0.0005, 1), "silent"},
		{"clipped", clipped(), "clipped"},
		{"too short", tone(8000, 1, 100, 0.5, 0.05), "too_short"},
		{"dc offset", offset(tone(8000, 2, 100, 0.3, 1), 0.05), "dc_offset"},
	} {
		f := facts(tc.clip, 0)
		if !hasFlag(f, tc.code) {
			t.Errorf("%s: flags %+v lack %s", tc.name, f.QC, tc.code)
		}
		for _, fl := range f.QC {
			if fl.Reason == "" {
				t.Errorf("%s: flag %s has no reason", tc.name, fl.Code)
			}
		}
	}
	// A single full-scale sample is not clipping.
	one := tone(8000, 1, 100, 0.5, 1)
	one.Samples[10] = 1
	if hasFlag(facts(one, 0), "clipped") {
		t.Error("one full-scale sample flagged as clipping")
	}
}

func facts(c *Clip, buckets int) Facts {
	a := NewAnalyzer(c.SampleRate, c.Channels, DefaultQC(), buckets, int64(c.Frames()))
	a.Write(c.Samples)
	return a.Facts()
}

func hasFlag(f Facts, code string) bool {
	for _, fl := range f.QC {
		if fl.Code == code {
			return true
		}
	}
	return false
}

func clipped() *Clip {
	c := tone(8000, 1, 50, 2, 1)
	for i, v := range c.Samples {
		c.Samples[i] = max(-1, min(1, v))
	}
	return c
}

func offset(c *Clip, dc float32) *Clip {
	for i := range c.Samples {
		c.Samples[i] += dc
	}
	return c
}

func TestAnalyzerStreamingIsStable(t *testing.T) {
	c := tone(44100, 2, 333, 0.7, 2.3)
	whole := facts(c, 100)
	// Unknown length and odd write sizes: the same facts, the same hash,
	// and still exactly 100 buckets.
	a := NewAnalyzer(c.SampleRate, c.Channels, DefaultQC(), 100, 0)
	for i, step := 0, 2; i < len(c.Samples); step = (step*7)%5000 + 1 {
		end := min(i+step, len(c.Samples))
		a.Write(c.Samples[i:end])
		i = end
	}
	parts := a.Facts()
	if parts.PCMSHA256 != whole.PCMSHA256 || parts.Frames != whole.Frames || *parts.LoudnessLUFS != *whole.LoudnessLUFS {
		t.Errorf("streamed facts differ: %d frames, loudness %v, hash %s; vs %d, %v, %s",
			parts.Frames, *parts.LoudnessLUFS, parts.PCMSHA256, whole.Frames, *whole.LoudnessLUFS, whole.PCMSHA256)
	}
	if len(parts.Peaks) != 100 {
		t.Errorf("%d buckets, want 100", len(parts.Peaks))
	}
	// Fewer frames than buckets: one bucket per frame.
	short := facts(&Clip{SampleRate: 8000, Channels: 1, Samples: []float32{0.1, -0.2, 0.3}}, 10)
	if len(short.Peaks) != 3 || short.Peaks[1] != (Peak{-0.2, -0.2}) {
		t.Errorf("short clip peaks %+v", short.Peaks)
	}
}

func TestWAV16RoundTrip(t *testing.T) {
	c := tone(16000, 1, 440, 0.9, 0.5)
	c.Samples[0], c.Samples[1] = 1.5, -2 // clamped
	var buf bytes.Buffer
	if err := c.WriteWAV16(&buf); err != nil {
		t.Fatal(err)
	}
	d, got, err := decodeAll(t, bytes.NewReader(buf.Bytes()), 1024)
	if err != nil {
		t.Fatal(err)
	}
	if d.Info().Codec != "pcm_s16le" || d.Info().SampleRate != 16000 || len(got) != len(c.Samples) {
		t.Fatalf("info %+v, %d samples", d.Info(), len(got))
	}
	if got[0] != 32767.0/32768 || got[1] != -1 {
		t.Errorf("clamping: %v %v", got[0], got[1])
	}
	for i := 2; i < len(got); i++ {
		if math.Abs(float64(got[i]-c.Samples[i])) > 0.5/32768+1e-9 {
			t.Fatalf("sample %d: %v vs %v", i, got[i], c.Samples[i])
		}
	}
}

func TestClipOps(t *testing.T) {
	c := &Clip{SampleRate: 10, Channels: 2, Samples: make([]float32, 2*100)}
	for i := range 100 {
		c.Samples[2*i], c.Samples[2*i+1] = float32(i), float32(-i)
	}
	if m := c.Mono(); m.Channels != 1 || m.Frames() != 100 || m.Samples[7] != 0 {
		t.Errorf("mono: %+v", m.Samples[:8])
	}
	if tr := c.Trim(3); tr.Frames() != 30 || tr.Samples[2] != 1 {
		t.Errorf("trim: %d frames", tr.Frames())
	}
	if tr := c.Trim(30); tr.Frames() != 100 {
		t.Errorf("trim beyond the end: %d frames", tr.Frames())
	}
	if w := c.Window(9.5, 2); w.Frames() != 5 || w.Samples[0] != 95 {
		t.Errorf("window at the end: %d frames from %v", w.Frames(), w.Samples)
	}
	ws := c.Windows(4, 2)
	// Starts at 0, 2, 4; the window that would reach past 10 s ends at it.
	if len(ws) != 4 || ws[3].Samples[0] != 60 || ws[3].Frames() != 40 {
		t.Errorf("windows: %d, last starts at %v", len(ws), ws[len(ws)-1].Samples[0])
	}
	if len(c.Trim(2).Windows(4, 2)) != 1 {
		t.Error("a clip shorter than a window is not one window")
	}
}

func TestModelWAV(t *testing.T) {
	b, err := ModelWAV("testdata/wav_ext_51_s24.wav", 16000, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	d, got, err := decodeAll(t, bytes.NewReader(b), 512)
	if err != nil {
		t.Fatal(err)
	}
	if i := d.Info(); i.SampleRate != 16000 || i.Channels != 1 || i.Codec != "pcm_s16le" || len(got) != 800 {
		t.Errorf("info %+v, %d samples; want 16 kHz mono 16-bit, 800 samples (0.05 s)", i, len(got))
	}
	data, _ := os.ReadFile("testdata/mp3_id3.mp3")
	if b, err := ModelWAVReader(bytes.NewReader(data), 16000, 30); err != nil || len(b) < 44+2*1000 {
		t.Errorf("ModelWAVReader: %d bytes, %v", len(b), err)
	}
	if _, err := ModelWAV("testdata/aiff.aiff", 16000, 30); err == nil {
		t.Error("AIFF: no error")
	}
}
