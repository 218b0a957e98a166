package demo

import "math"

// The recipes, one function a sound. Each returns its channels, Rate
// samples a second, as long as the clip (g.n); finish normalises them.

// Weather and water.

func rainRoof(g *gen) [][]float64 {
	swell := g.smooth(g.n, 0.8, 0.8, 1.1)
	return g.stereo(func() []float64 {
		x := mul(scale(filt(g.white(g.n), highpass(400, 0.7), lowpass(9000, 0.7)), 0.2), swell)
		add(x, filt(g.brown(g.n), lowpass(220, 0.7)), 0, 0.06)
		for _, t := range g.events(0, g.dur(), 350) {
			d := filt(g.burst(g.uni(0.0008, 0.003)), bandpass(g.logUni(1200, 7000), 1.2))
			add(x, d, t, 0.5*math.Pow(g.Float64(), 2))
		}
		for _, t := range g.events(0, g.dur(), 40) { // heavier drops drum on the roof
			strike(x, t, g.uni(0.1, 0.3), mode{g.uni(500, 900), 0.01, 1}, mode{g.uni(1500, 2500), 0.004, 0.5})
		}
		return x
	})
}

func rainWindow(g *gen) [][]float64 {
	x := scale(filt(g.white(g.n), highpass(2500, 0.7)), 0.02)
	for _, t := range g.events(0, g.dur(), 22) {
		a := 0.2 + 0.8*math.Pow(g.Float64(), 3)
		f := g.uni(2500, 5500)
		strike(x, t, a, mode{f, g.uni(0.003, 0.008), 1}, mode{f * g.uni(1.5, 2.2), 0.002, 0.4})
		add(x, filt(g.burst(0.0003), highpass(3000, 0.7)), t, 0.3*a)
	}
	return [][]float64{reverb(x, 0.25, 0.3, 0.15, 0)}
}

func windGusts(g *gen) [][]float64 {
	gust := g.smooth(g.n, 0.9, 0, 1)
	for i, v := range gust {
		gust[i] = 0.15 + 0.85*v*v
	}
	return g.stereo(func() []float64 {
		wob := g.smooth(g.n, 3, -1, 1)
		centre, rush := g.buf(), g.buf()
		for i := range centre {
			centre[i] = 280 + 650*gust[i] + 60*wob[i]
			rush[i] = 2.5 * centre[i]
		}
		x := sweep(g.pink(g.n), bandpass(500, 3), centre, 3) // the howl
		add(x, sweep(g.white(g.n), bandpass(1000, 0.7), rush, 0.7), 0, 0.25)
		add(x, filt(g.brown(g.n), lowpass(100, 0.7)), 0, 0.12)
		return mul(x, gust)
	})
}

func thunder(g *gen) [][]float64 {
	env := envelope(g.n, func(t float64) float64 {
		return ad(t, 0.25, 0.25, 0.7) + 0.8*ad(t, 0.9, 0.2, 0.9) + 0.6*ad(t, 1.7, 0.3, 1.2) + 0.35*ad(t, 3.0, 0.4, 1.0)
	})
	x := filt(mul(mul(g.brown(g.n), env), g.smooth(g.n, 12, 0.5, 1)), lowpass(160, 0.7), lowpass(200, 0.7))
	add(x, filt(mul(g.white(g.n), env), bandpass(400, 1)), 0, 0.01) // a trace of the crack, far away
	return [][]float64{fadeOut(reverb(x, 2.5, 0.6, 0.3, 0), 0.5)}
}

func waterDrip(g *gen) [][]float64 {
	x := g.buf()
	for t := 0.15; t < g.dur()-0.3; t += g.uni(0.55, 0.95) {
		bubble(x, t, g.uni(0.6, 1), g.uni(800, 1300), g.uni(0.018, 0.03), g.uni(25, 45))
		add(x, filt(g.burst(0.0004), bandpass(3000, 1)), t, 0.1)
	}
	return [][]float64{reverb(x, 1.4, 0.4, 0.35, 0)}
}

func stream(g *gen) [][]float64 {
	swell := g.smooth(g.n, 2, 0.7, 1)
	return g.stereo(func() []float64 {
		x := mul(scale(filt(g.pink(g.n), bandpass(700, 0.6)), 0.12), swell)
		for _, t := range g.events(0, g.dur(), 110) {
			bubble(x, t, 0.35*math.Pow(g.Float64(), 1.5), g.logUni(350, 2500), g.uni(0.006, 0.02), g.uni(10, 60))
		}
		add(x, filt(g.white(g.n), highpass(4000, 0.7)), 0, 0.015)
		return x
	})
}

func oceanWaves(g *gen) [][]float64 {
	const crash = 1.7
	swell := envelope(g.n, func(t float64) float64 {
		if t < crash {
			return 0.15 + 0.85*math.Pow(t/crash, 2.5)
		}
		return 0.1 + 0.9*math.Exp(-(t-crash)/1.3) + 0.3*math.Pow(math.Max(0, t-4.6)/1.4, 2)
	})
	bright := envelope(g.n, func(t float64) float64 {
		return 350 + 5000*math.Exp(-math.Pow((t-crash-0.1)/0.5, 2)) + 800*math.Exp(-math.Abs(t-crash)/2)
	})
	foam := envelope(g.n, func(t float64) float64 { return ad(t, crash+0.2, 0.5, 1.2) })
	return g.stereo(func() []float64 {
		x := mul(scale(filt(g.brown(g.n), lowpass(400, 0.7)), 0.25), swell)
		add(x, mul(sweep(g.pink(g.n), lowpass(1000, 0.7), bright, 0.7), swell), 0, 1.5)
		add(x, mul(mul(filt(g.white(g.n), highpass(2500, 0.7)), foam), g.smooth(g.n, 40, 0.3, 1)), 0, 0.25)
		return x
	})
}

// Doors.

func doorSlamWood(g *gen) [][]float64 {
	const at = 0.06
	exc := g.buf()
	add(exc, filt(g.burst(0.006), lowpass(700, 0.7)), at, 1)
	body := g.buf()
	for _, m := range []mode{{62, 0.14, 1}, {93, 0.11, 0.8}, {138, 0.09, 0.7}, {207, 0.07, 0.6}, {281, 0.05, 0.55}, {367, 0.04, 0.45}, {512, 0.03, 0.3}, {745, 0.02, 0.15}} {
		ring(body, exc, m.f, m.tau, m.amp)
	}
	thump := g.buf()
	addTone(thump, at, 1, 0.002, 0.07, func(t float64) float64 { return 50 + 40*math.Exp(-t/0.03) })
	latch := g.buf()
	add(latch, filt(g.burst(0.0005), highpass(1500, 0.7)), at+0.004, 1)
	strike(latch, at+0.004, 0.5, mode{2350, 0.008, 1}, mode{3700, 0.005, 0.6})
	x := g.buf()
	add(x, norm(body), 0, 1)
	add(x, norm(thump), 0, 0.6)
	add(x, norm(latch), 0, 0.12)
	return [][]float64{filt(reverb(x, 0.6, 0.5, 0.25, 0), lowpass(5000, 0.7))}
}

func doorSlamMetal(g *gen) [][]float64 {
	const at = 0.08
	exc := g.buf()
	add(exc, filt(g.burst(0.01), lowpass(300, 0.7)), at, 1)
	body := g.buf()
	ring(body, exc, 75, 0.1, 1)
	ring(body, exc, 118, 0.08, 0.7)
	metal := g.buf()
	strike(metal, at, 1, mode{182, 0.7, 0.6}, mode{431, 0.55, 1}, mode{703, 0.45, 0.8}, mode{1121, 0.35, 0.6},
		mode{1642, 0.25, 0.45}, mode{2288, 0.18, 0.3}, mode{3107, 0.12, 0.2})
	latch := g.buf()
	add(latch, filt(g.burst(0.0008), highpass(1200, 0.7)), at+0.012, 1)
	strike(latch, at+0.012, 0.6, mode{1810, 0.015, 1}, mode{2930, 0.01, 0.6})
	x := g.buf()
	add(x, norm(body), 0, 1)
	add(x, norm(metal), 0, 0.45)
	add(x, norm(latch), 0, 0.25)
	return [][]float64{fadeOut(reverb(x, 1.8, 0.3, 0.45, 0), 0.5)}
}

func doorKnock(g *gen) [][]float64 {
	x := g.buf()
	for k, t := range []float64{0.15, 0.41, 0.66} {
		a := []float64{1, 0.85, 1.05}[k]
		strike(x, t, a, mode{185, 0.045, 1}, mode{405, 0.035, 0.8}, mode{720, 0.025, 0.6}, mode{1170, 0.016, 0.4}, mode{1880, 0.01, 0.25})
		add(x, filt(g.burst(0.0006), bandpass(2200, 0.8)), t, 0.15*a)
	}
	return [][]float64{reverb(x, 0.4, 0.4, 0.15, 0)}
}

// doorCreak is stick-slip friction: a train of pulses whose rate wanders
// from a slow creak to a squeak, ringing the door's resonances.
func doorCreak(g *gen) [][]float64 {
	drift := g.smooth(g.n, 1.3, 0, 1)
	grab := g.smooth(g.n, 7, 0.6, 1)
	wobble := sine(g.n, 5, 20)
	env := envelope(g.n, func(t float64) float64 { return gate(t, 0.2, 3.6, 0.4) })
	pulses := g.buf()
	var ph float64
	for i := range pulses {
		f0 := 70 + 380*drift[i]*drift[i] + wobble[i]
		if ph += f0 / Rate; ph >= 1 {
			ph -= 1 + g.uni(0, 0.08)
			pulses[i] = env[i] * grab[i] * g.uni(0.7, 1)
		}
	}
	x := g.buf()
	for _, m := range []mode{{620, 0.012, 1}, {1340, 0.009, 0.8}, {2270, 0.006, 0.5}, {3650, 0.004, 0.3}} {
		ring(x, pulses, m.f, m.tau, m.amp)
	}
	return [][]float64{reverb(x, 0.5, 0.4, 0.15, 0)}
}

// Footsteps.

func footstepsWood(g *gen) [][]float64 {
	x := g.buf()
	step := func(t, a float64) {
		add(x, filt(g.burst(0.002), lowpass(1800, 0.7)), t, 0.3*a)
		strike(x, t, a, mode{g.uni(90, 100), 0.05, 0.7}, mode{178, 0.045, 1}, mode{g.uni(300, 320), 0.035, 0.7}, mode{520, 0.025, 0.4}, mode{870, 0.015, 0.25})
	}
	for k := 0; ; k++ {
		t := 0.25 + 0.56*float64(k) + g.uni(-0.02, 0.02)
		if t > g.dur()-0.4 {
			break
		}
		a := []float64{1, 0.85}[k%2] * g.uni(0.9, 1.1)
		step(t, a)                        // heel
		step(t+g.uni(0.06, 0.09), 0.45*a) // toe
	}
	return [][]float64{reverb(x, 0.5, 0.5, 0.15, 0)}
}

func footstepsGravel(g *gen) [][]float64 {
	x := g.buf()
	crunch := func(t, length, a float64, grains int) {
		for range grains {
			u := g.Float64()
			d := filt(g.burst(g.uni(0.0003, 0.002)), bandpass(g.logUni(600, 6000), 1.5))
			add(x, d, t+length*u, a*g.uni(0.1, 1)*math.Exp(-2*u))
		}
		add(x, filt(g.burst(0.015), lowpass(300, 0.7)), t, 0.5*a)
	}
	for k := 0; ; k++ {
		t := 0.3 + 0.6*float64(k) + g.uni(-0.03, 0.03)
		if t > g.dur()-0.4 {
			break
		}
		crunch(t, 0.09, 1, 70)                     // heel
		crunch(t+g.uni(0.09, 0.12), 0.12, 0.7, 60) // toe
	}
	return [][]float64{reverb(x, 0.3, 0.5, 0.08, 0)}
}

// Glass, metal, wood.

func glassClink(g *gen) [][]float64 {
	x := g.buf()
	clink := func(t, a float64) {
		strike(x, t, a, mode{2640, 0.4, 1}, mode{5990, 0.22, 0.5}, mode{9420, 0.1, 0.3}, // one glass
			mode{2910, 0.35, 0.8}, mode{6380, 0.18, 0.45}, mode{10150, 0.08, 0.25}) // the other
		add(x, filt(g.burst(0.0002), highpass(2000, 0.7)), t, 0.4*a)
	}
	clink(0.08, 1)
	clink(0.62, 0.35)
	return [][]float64{fadeOut(reverb(x, 0.5, 0.3, 0.12, 0), 0.3)}
}

func glassBreak(g *gen) [][]float64 {
	const at = 0.08
	x := g.buf()
	add(x, filt(g.burst(0.012), highpass(900, 0.7)), at, 0.8)
	add(x, filt(g.burst(0.02), lowpass(250, 0.7)), at, 0.6)
	for range 160 {
		t := at + 0.005 + g.ExpFloat64()*0.22
		if g.Float64() < 0.2 {
			t += g.uni(0.3, 1.6) // shards bouncing
		}
		if t > g.dur()-0.3 {
			continue
		}
		f := g.logUni(2200, 12000)
		a := 0.4 * math.Pow(g.Float64(), 2) * math.Exp(-(t-at)/1.0)
		strike(x, t, a, mode{f, g.uni(0.008, 0.07), 1}, mode{f * g.uni(1.4, 2.3), g.uni(0.005, 0.03), 0.5})
		add(x, filt(g.burst(0.0003), highpass(2500, 0.7)), t, 0.5*a)
	}
	return [][]float64{reverb(x, 0.7, 0.3, 0.15, 0)}
}

// metalClang is a struck pipe: the inharmonic partials of a free bar, each
// doubled by a slightly detuned twin so that they beat.
func metalClang(g *gen) [][]float64 {
	const at, f1 = 0.05, 523.0
	var ms []mode
	for _, p := range []mode{{1, 1.6, 0.6}, {2.756, 1.2, 1}, {5.404, 0.8, 0.7}, {8.933, 0.5, 0.45}, {13.34, 0.3, 0.3}} {
		ms = append(ms, mode{f1 * p.f, p.tau, p.amp}, mode{f1 * p.f * 1.0035, p.tau * 0.9, p.amp * 0.4})
	}
	for range 10 {
		ms = append(ms, mode{g.logUni(900, 7000), g.uni(0.05, 0.4), g.uni(0.05, 0.15)})
	}
	x := g.buf()
	strike(x, at, 1, ms...)
	add(x, filt(g.burst(0.002), highpass(1000, 0.7)), at, 0.5)
	return [][]float64{fadeOut(reverb(x, 1.2, 0.3, 0.2, 0), 1)}
}

// churchBell is a bronze bell: hum, prime, minor-third tierce, quint,
// nominal and upper partials, the low ones in beating pairs. The nominal
// (an octave above the prime) sounds longest and loudest.
func churchBell(g *gen) [][]float64 {
	const prime = 330.0
	var ms []mode
	for i, p := range []mode{{0.5, 3, 0.35}, {1, 2.4, 0.55}, {1.19, 2, 0.5}, {1.5, 1.5, 0.3}, {2, 2.6, 1}, {2.51, 1.2, 0.35},
		{2.66, 1, 0.25}, {3.01, 0.9, 0.3}, {4.07, 0.6, 0.18}, {5.2, 0.4, 0.1}} {
		ms = append(ms, mode{prime * p.f, p.tau, p.amp})
		if i < 3 {
			ms = append(ms, mode{prime*p.f + 0.8, p.tau, p.amp * 0.3})
		}
	}
	x := g.buf()
	for _, t := range []float64{0.05, 3.0} {
		strike(x, t, 1, ms...)
		add(x, filt(g.burst(0.002), bandpass(2500, 0.7)), t, 0.3)
	}
	return [][]float64{fadeOut(reverb(x, 2.2, 0.4, 0.25, 0), 0.8)}
}

func clockTick(g *gen) [][]float64 {
	x := g.buf()
	for k := 0; ; k++ {
		t := 0.2 + float64(k)
		if t > g.dur()-0.2 {
			break
		}
		s := 1.0
		if k%2 == 1 {
			s = 0.87 // tock
		}
		strike(x, t, 1, mode{2150 * s, 0.007, 1}, mode{3420 * s, 0.005, 0.7}, mode{5230 * s, 0.004, 0.5}, mode{7900 * s, 0.003, 0.3}, mode{640, 0.012, 0.3})
		add(x, filt(g.burst(0.0003), highpass(2000, 0.7)), t, 0.5)
		strike(x, t+0.012, 0.3, mode{2900 * s, 0.004, 1}, mode{4700 * s, 0.003, 0.5}) // the escapement's second click
	}
	return [][]float64{reverb(x, 0.35, 0.4, 0.1, 0)}
}

// Vehicles, animals, people.

// carIdle is a four-cylinder engine at 800 rpm: 26.7 firings a second,
// each ringing the exhaust's resonances and puffing noise.
func carIdle(g *gen) [][]float64 {
	wobble := g.smooth(g.n, 2, 0.97, 1.03)
	pulses, x := g.buf(), g.buf()
	cyl := []float64{1, 0.8, 0.92, 0.75}
	var ph float64
	k := 0
	for i := range pulses {
		if ph += 26.7 * wobble[i] / Rate; ph >= 1 {
			ph--
			pulses[i] = cyl[k%4] * g.uni(0.85, 1)
			add(x, filt(g.burst(0.008), lowpass(1200, 0.7)), float64(i)/Rate, pulses[i])
			k++
		}
	}
	for _, m := range []mode{{54, 0.03, 0.5}, {108, 0.025, 0.6}, {163, 0.02, 0.5}, {240, 0.015, 0.4}, {410, 0.01, 0.3}, {650, 0.006, 0.2}} {
		ring(x, pulses, m.f, m.tau, m.amp)
	}
	add(x, filt(g.white(g.n), bandpass(3500, 2)), 0, 0.03) // the valve train
	return [][]float64{x}
}

func dogBark(g *gen) [][]float64 {
	x := g.buf()
	for k, t0 := range []float64{0.12, 0.5, 1.35} {
		n := sec(0.22)
		jitter := g.smooth(n, 150, -0.05, 0.05)
		f0 := make([]float64, n)
		for i := range f0 {
			u := float64(i) / float64(n)
			f0[i] = (330 + 200*math.Sin(math.Pi*math.Min(u*1.6, 1))) * (1 + jitter[i])
		}
		v := norm(harmonic(f0, 6000, 1500, [3]float64{180, 250, 400}, [3]float64{1, 0.7, 0.35},
			func(int) [3]float64 { return [3]float64{650, 1250, 2600} }))
		add(v, filt(g.white(n), bandpass(1100, 0.9)), 0, 0.12) // breath
		for i := range v {
			t := float64(i) / Rate
			v[i] *= ad(t, 0, 0.012, 0.07) * (1 + 0.35*math.Sin(2*math.Pi*170*t)) // rough
		}
		add(x, v, t0, []float64{1, 0.9, 1}[k])
	}
	return [][]float64{reverb(x, 0.5, 0.4, 0.12, 0)}
}

func catMeow(g *gen) [][]float64 {
	x := g.buf()
	meow := func(t0, d, pitch, a float64) {
		n := sec(d)
		f0 := make([]float64, n)
		for i := range f0 {
			u := float64(i) / float64(n)
			f0[i] = pitch * (1 + 0.35*math.Sin(math.Pi*math.Min(u/0.7, 1)) - 0.1*u) * (1 + 0.015*math.Sin(2*math.Pi*5.5*float64(i)/Rate))
		}
		// The formants move from "mi" through "a" to "ow".
		lerp := func(a, b [3]float64, f float64) (out [3]float64) {
			for j := range out {
				out[j] = a[j] + (b[j]-a[j])*f
			}
			return out
		}
		i0, a0, u0 := [3]float64{350, 2000, 3100}, [3]float64{900, 1600, 3000}, [3]float64{450, 900, 2800}
		v := norm(harmonic(f0, 9000, 3000, [3]float64{150, 200, 300}, [3]float64{1, 0.6, 0.3}, func(i int) [3]float64 {
			if u := float64(i) / float64(n); u > 0.3 {
				return lerp(a0, u0, (u-0.3)/0.7)
			} else {
				return lerp(i0, a0, u/0.3)
			}
		}))
		add(v, filt(g.white(n), highpass(2000, 0.7)), 0, 0.03)
		for i := range v {
			u := float64(i) / float64(n)
			v[i] *= gate(u*d, 0, d, 0.08) * (0.4 + 0.6*math.Min(u/0.15, 1))
		}
		add(x, v, t0, a)
	}
	meow(0.1, 0.85, 520, 1)
	meow(1.35, 0.6, 600, 0.7)
	return [][]float64{reverb(x, 0.4, 0.5, 0.1, 0)}
}

// birdsong strings random phrases: rising-falling whistles, trills of fast
// down-chirps and down-sweeps, each with a flutter.
func birdsong(g *gen) [][]float64 {
	x := scale(filt(g.pink(g.n), lowpass(1000, 0.7)), 0.01)
	flutter := func(f float64) func(u float64) float64 {
		return func(u float64) float64 { return f * (1 + 0.02*math.Sin(2*math.Pi*35*u)) }
	}
	for t := 0.15; t < g.dur()-0.6; {
		switch g.IntN(3) {
		case 0:
			d, f, up := g.uni(0.08, 0.18), g.uni(2800, 4200), g.uni(1.2, 1.6)
			chirp(x, t, d, 0.9, func(u float64) float64 { return flutter(f)(u) * (1 + (up-1)*math.Sin(math.Pi*u)) })
			t += d + g.uni(0.04, 0.1)
		case 1:
			f := g.uni(3500, 6000)
			for range 4 + g.IntN(8) {
				chirp(x, t, 0.03, 0.6, func(u float64) float64 { return f * (1.3 - 0.5*u) })
				t += 0.045
			}
			t += g.uni(0.05, 0.12)
		default:
			d, f := g.uni(0.05, 0.12), g.uni(4000, 7000)
			chirp(x, t, d, 0.7, func(u float64) float64 { return flutter(f)(u) * (1 - 0.45*u) })
			t += d + g.uni(0.03, 0.08)
		}
		if g.Float64() < 0.2 {
			t += g.uni(0.2, 0.5) // between phrases
		}
	}
	return [][]float64{reverb(x, 0.8, 0.5, 0.15, 0)}
}

// crowdMurmur is walla: voices babbling syllables through vowel formants,
// over band-passed noise "voices", in a room.
func crowdMurmur(g *gen) [][]float64 {
	l, r := g.buf(), g.buf()
	place := func(y []float64, gain float64) {
		a := (g.uni(-0.8, 0.8) + 1) * math.Pi / 4
		gl, gr := gain*math.Cos(a), gain*math.Sin(a)
		for i, v := range y {
			l[i] += gl * v
			r[i] += gr * v
		}
	}
	vowels := [][2]float64{{800, 1200}, {500, 1900}, {320, 2300}, {520, 900}, {360, 850}, {650, 1700}}
	type syllable struct {
		from, to float64
		vowel    [2]float64
	}
	for range 8 {
		var syls []syllable
		for t := g.uni(0, 0.5); t < g.dur(); {
			d := g.uni(0.1, 0.28)
			syls = append(syls, syllable{t, t + d, vowels[g.IntN(len(vowels))]})
			t += d
			if g.Float64() < 0.25 {
				t += g.uni(0.1, 0.6)
			}
		}
		f0, inton := g.uni(95, 230), g.smooth(g.n, 3, 0.9, 1.12)
		src, hiss := g.buf(), g.noise()
		var ph float64
		for i := range src {
			if ph += f0 * inton[i] / Rate; ph >= 1 {
				ph--
			}
			src[i] = 2*ph - 1 + 0.3*hiss.next()
		}
		y := g.buf()
		f1, f2 := bandpass(500, 5), bandpass(1500, 6)
		for _, s := range syls {
			a, b := sec(s.from), min(sec(s.to), g.n)
			if a >= b {
				continue
			}
			f1.tune(s.vowel[0], 5)
			f2.tune(s.vowel[1], 6)
			seg, two := y[a:b], make([]float64, b-a)
			copy(seg, src[a:b])
			copy(two, seg)
			f1.run(seg)
			f2.run(two)
			fade := min(sec(0.04), len(seg)/2)
			for j, v := range two {
				seg[j] += 0.5 * v
			}
			for j := range fade {
				e := (1 - math.Cos(math.Pi*float64(j)/float64(fade))) / 2
				seg[j] *= e
				seg[len(seg)-1-j] *= e
			}
		}
		place(filt(y, lowpass(3000, 0.7)), g.uni(0.3, 1))
	}
	for range 4 {
		am := g.smooth(g.n, g.uni(3, 6), 0, 1)
		for i, v := range am {
			am[i] = v * v
		}
		place(mul(filt(g.white(g.n), bandpass(g.uni(300, 1400), 3)), am), 0.35)
	}
	return [][]float64{reverb(l, 0.9, 0.5, 0.35, 0), reverb(r, 0.9, 0.5, 0.35, 0.0023)}
}

func heartbeat(g *gen) [][]float64 {
	x := g.buf()
	const period = 60.0 / 68
	for t := 0.15; t < g.dur()-0.3; t += period {
		addTone(x, t, 1, 0.012, 0.05, func(s float64) float64 { return 48 - 8*s }) // lub
		addTone(x, t, 0.35, 0.01, 0.04, func(float64) float64 { return 85 })
		addTone(x, t+0.3, 0.7, 0.01, 0.04, func(float64) float64 { return 62 }) // dub
		addTone(x, t+0.3, 0.25, 0.008, 0.03, func(float64) float64 { return 115 })
		add(x, filt(g.burst(0.03), lowpass(150, 0.7)), t, 0.1)
	}
	return [][]float64{filt(x, lowpass(250, 0.7))}
}

// Fire, impacts, weapons.

func fireCrackle(g *gen) [][]float64 {
	flicker := g.smooth(g.n, 3, 0.5, 1)
	x := mul(scale(filt(g.brown(g.n), lowpass(350, 0.7)), 0.08), flicker)
	add(x, mul(filt(g.white(g.n), highpass(3500, 0.7)), flicker), 0, 0.02)
	pop := func(t, a float64) {
		add(x, filt(g.burst(g.uni(0.0002, 0.0012)), highpass(g.uni(800, 3000), 0.7)), t, a)
		if g.Float64() < 0.3 {
			strike(x, t, 0.3*a, mode{g.uni(1500, 4000), 0.004, 1})
		}
	}
	for _, t := range g.events(0, g.dur(), 9) {
		a := 0.1 + 0.9*math.Pow(g.Float64(), 3)
		pop(t, a)
		for range g.IntN(6) { // a cluster
			pop(t+g.uni(0.003, 0.04), a*g.uni(0.1, 0.5))
		}
	}
	return [][]float64{x}
}

func explosion(g *gen) [][]float64 {
	const at = 0.1
	x := g.buf()
	add(x, filt(g.burst(0.003), lowpass(4000, 0.7)), at, 0.25) // the crack
	boom := filt(mul(g.brown(g.n), envelope(g.n, func(t float64) float64 { return ad(t, at, 0.01, 0.9) })), lowpass(140, 0.8), lowpass(180, 0.7))
	add(x, norm(boom), 0, 1)
	addTone(x, at, 0.8, 0.004, 0.35, func(t float64) float64 { return 28 + 30*math.Exp(-t/0.15) })
	for _, t := range g.events(at+0.05, 3.5, 50) { // debris
		a := 0.12 * math.Exp(-(t-at)/0.8) * g.Float64()
		add(x, filt(g.burst(g.uni(0.0005, 0.004)), bandpass(g.logUni(600, 5000), 1)), t, a)
	}
	return [][]float64{fadeOut(reverb(x, 2.5, 0.6, 0.3, 0), 0.5)}
}

func gunshot(g *gen) [][]float64 {
	const at = 0.05
	x := g.buf()
	add(x, g.burst(0.0004), at, 0.6)                           // the crack
	add(x, filt(g.burst(0.006), bandpass(1200, 0.7)), at, 0.9) // the blast
	add(x, filt(g.burst(0.035), lowpass(600, 0.7)), at, 0.7)   // the body
	echo := filt(append([]float64(nil), x...), lowpass(1800, 0.7))
	add(x, echo, 0.38, 0.3) // a wall far off
	add(x, echo, 0.9, 0.12)
	return [][]float64{fadeOut(reverb(x, 1.6, 0.5, 0.35, 0), 0.3)}
}

// Paper, computers, interfaces.

func paperRustle(g *gen) [][]float64 {
	x := g.buf()
	for t := 0.1; t < g.dur()-0.5; {
		d := g.uni(0.25, 0.7)
		for _, ct := range g.events(t, t+d, 350) {
			a := math.Sin(math.Pi*(ct-t)/d) * math.Pow(g.Float64(), 2)
			add(x, filt(g.burst(g.uni(0.0003, 0.0015)), bandpass(g.logUni(1000, 6000), 0.9)), ct, a)
		}
		bed := mul(filt(g.white(sec(d)), highpass(1000, 0.7), lowpass(7000, 0.7)), envelope(sec(d), func(s float64) float64 { return math.Sin(math.Pi * s / d) }))
		add(x, bed, t, 0.06)
		t += d + g.uni(0.05, 0.4)
	}
	return [][]float64{reverb(x, 0.3, 0.5, 0.08, 0)}
}

func keyboardTyping(g *gen) [][]float64 {
	x := g.buf()
	for t, k := 0.2, 0; t < g.dur()-0.3; k++ {
		a, f := g.uni(0.7, 1), g.uni(380, 520)
		if k%7 == 6 { // the space bar
			a, f = 1.2, 260
		}
		add(x, filt(g.burst(0.0015), bandpass(g.uni(2500, 4200), 1.2)), t, a)
		strike(x, t, 0.5*a, mode{f, 0.012, 1}, mode{f * 2.7, 0.008, 0.5}, mode{g.uni(1800, 2600), 0.004, 0.6})
		up := t + g.uni(0.06, 0.1) // the key coming back up
		add(x, filt(g.burst(0.001), bandpass(3500, 1.2)), up, 0.4*a)
		strike(x, up, 0.3*a, mode{f * 1.3, 0.006, 1})
		t += g.uni(0.09, 0.22)
		if g.Float64() < 0.08 {
			t += g.uni(0.3, 0.6)
		}
	}
	return [][]float64{reverb(x, 0.3, 0.5, 0.08, 0)}
}

func phoneRing(g *gen) [][]float64 {
	on := envelope(g.n, func(t float64) float64 {
		return gate(t, 0.1, 0.5, 0.005) + gate(t, 0.7, 1.1, 0.005) + gate(t, 3.1, 3.5, 0.005) + gate(t, 3.7, 4.1, 0.005)
	})
	// A 16 Hz trill between two tones, square-ish: sin x + sin 3x/3 +
	// sin 5x/5, from a phasor.
	rot := [2][2]float64{}
	for k, f := range []float64{1000, 1250} {
		w := 2 * math.Pi * f / Rate
		rot[k] = [2]float64{math.Cos(w), math.Sin(w)}
	}
	x := g.buf()
	c, s := 1.0, 0.0
	for i := range x {
		r := rot[(i*32/Rate)%2]
		c, s = c*r[0]-s*r[1], s*r[0]+c*r[1]
		s3 := s * s * s
		x[i] = on[i] * (s + (3*s-4*s3)/3 + (16*s3*s*s-20*s3+5*s)/5)
	}
	return [][]float64{reverb(filt(x, bandpass(1400, 0.6)), 0.3, 0.4, 0.1, 0)}
}

func uiClick(g *gen) [][]float64 {
	x := g.buf()
	add(x, filt(g.burst(0.0004), highpass(1500, 0.7)), 0.05, 0.6)
	strike(x, 0.05, 1, mode{3800, 0.003, 1}, mode{1250, 0.005, 0.4})
	strike(x, 0.11, 0.3, mode{4300, 0.002, 1})
	return [][]float64{x}
}

func uiChime(g *gen) [][]float64 {
	x := g.buf()
	for _, n := range []struct{ t, f float64 }{{0.05, 1318.5}, {0.2, 1975.5}} {
		var ms []mode
		for _, p := range []mode{{1, 0.5, 1}, {2, 0.3, 0.3}, {3, 0.15, 0.1}, {4.2, 0.08, 0.05}} {
			ms = append(ms, mode{n.f * p.f, p.tau, p.amp})
		}
		strike(x, n.t, 1, ms...)
	}
	return [][]float64{fadeOut(reverb(x, 0.6, 0.3, 0.15, 0), 0.4)}
}

// whoosh is noise through a band-pass that sweeps up and back down as the
// sound passes from left to right.
func whoosh(g *gen) [][]float64 {
	const peak = 0.85
	centre := envelope(g.n, func(t float64) float64 { return 250 * math.Pow(14, math.Exp(-math.Pow((t-peak)/0.3, 2))) })
	amp := envelope(g.n, func(t float64) float64 {
		w := 0.35
		if t > peak {
			w = 0.2
		}
		return math.Exp(-math.Pow((t-peak)/w, 2))
	})
	pos := envelope(g.n, func(t float64) float64 { return 0.9 * math.Tanh((t-peak)/0.25) })
	src := g.pink(g.n)
	add(src, g.white(g.n), 0, 0.3)
	l, r := pan(mul(sweep(src, bandpass(1000, 1.4), centre, 1.4), amp), pos)
	return [][]float64{l, r}
}

func roomTone(g *gen) [][]float64 {
	hum := sine(g.n, 60, 0.04)
	add(hum, sine(g.n, 120, 0.02), 0, 1)
	add(hum, sine(g.n, 180, 0.012), 0, 1)
	return g.stereo(func() []float64 {
		x := filt(g.brown(g.n), lowpass(180, 0.7))
		add(x, filt(g.pink(g.n), lowpass(1500, 0.7)), 0, 0.15)
		add(x, filt(g.white(g.n), highpass(5000, 0.7)), 0, 0.01)
		add(x, hum, 0, 1)
		return x
	})
}
