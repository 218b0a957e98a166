package demo

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/audio"
	"github.com/foley-audio/foley/embed"
	"github.com/foley-audio/foley/ingest"
	"github.com/foley-audio/foley/license"
	"github.com/foley-audio/foley/sqlite"
)

// shared is the demo library the tests build once, in a cache directory of
// their own.
var shared struct {
	once      sync.Once
	root      string // removed by TestMain
	dir, lib  string
	err       error
	clips     map[string]*audio.Clip // decoded from the built files
	decodeErr error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.root != "" {
		os.RemoveAll(shared.root)
	}
	os.Exit(code)
}

// built builds the shared demo library, once, and decodes its clips.
func built(t *testing.T) (dir, lib string, clips map[string]*audio.Clip) {
	t.Helper()
	shared.once.Do(func() {
		shared.root, shared.err = os.MkdirTemp("", "foley-demo-test-")
		if shared.err != nil {
			return
		}
		shared.dir = filepath.Join(shared.root, "cache", "foley", "demo")
		shared.lib, shared.err = Ensure(context.Background(), shared.dir)
		if shared.err != nil {
			return
		}
		shared.clips = map[string]*audio.Clip{}
		for _, c := range Clips() {
			a, _, err := audio.DecodeFile(filepath.Join(shared.dir, ClipsDir, c.FileName()), 0)
			if err != nil {
				shared.err = err
				return
			}
			shared.clips[c.Record.ID] = a
		}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.dir, shared.lib, shared.clips
}

func byID(t *testing.T) map[string]Clip {
	m := map[string]Clip{}
	for _, c := range Clips() {
		m[c.Record.ID] = c
	}
	return m
}

func TestCatalogue(t *testing.T) {
	clips := Clips()
	if n := len(clips); n < 30 || n > 40 {
		t.Errorf("%d clips, want about 32", n)
	}
	ids, seeds := map[string]bool{}, map[uint64]bool{}
	counts := map[string]int{}
	for _, c := range clips {
		r := c.Record
		if ids[r.ID] || !strings.HasPrefix(r.ID, "demo-") {
			t.Errorf("id %q: repeated or without the demo- prefix", r.ID)
		}
		ids[r.ID] = true
		if seeds[c.Seed] {
			t.Errorf("%s: seed repeated", r.ID)
		}
		seeds[c.Seed] = true
		if r.Caption == "" || len(r.Tags) < 4 || len(r.Tags) > 8 {
			t.Errorf("%s: caption %q, %d tags; want a caption and 4-8 tags", r.ID, r.Caption, len(r.Tags))
		}
		for _, tag := range r.Tags {
			if tag != strings.ToLower(strings.TrimSpace(tag)) || tag == "" {
				t.Errorf("%s: tag %q is not a trimmed lower-case word", r.ID, tag)
			}
		}
		if cat, ok := ingest.UCSCategory(c.CatID); !ok || cat != r.UCSCategory {
			t.Errorf("%s: CatID %s gives %q, record says %q", r.ID, c.CatID, cat, r.UCSCategory)
		}
		if r.DurationS < 1 || r.DurationS > 6 || r.SampleRate != Rate || (r.Channels != 1 && r.Channels != 2) || r.Format != "wav" {
			t.Errorf("%s: %g s, %d Hz, %d channels, %q", r.ID, r.DurationS, r.SampleRate, r.Channels, r.Format)
		}
		l := r.License
		if l.Source != Source || l.Creator != Creator || l.SourceID != r.ID {
			t.Errorf("%s: licence source %q creator %q source id %q", r.ID, l.Source, l.Creator, l.SourceID)
		}
		if l != license.Normalize(l) {
			t.Errorf("%s: licence not normalised: %+v", r.ID, l)
		}
		counts[l.LicenseID]++
		switch l.LicenseID {
		case "CC-BY-4.0", "CC-BY-NC-4.0":
			if l.Title == "" || !strings.Contains(l.Attribution, l.Title) || !l.RightsVerified {
				t.Errorf("%s: %s without a title, a credit line or verified rights: %+v", r.ID, l.LicenseID, l)
			}
		case "CC0-1.0":
			if !l.RightsVerified {
				t.Errorf("%s: CC0 without verified rights", r.ID)
			}
		case license.Unknown:
			if l.RightsVerified {
				t.Errorf("%s: an unknown licence with verified rights", r.ID)
			}
		default:
			t.Errorf("%s: licence %s", r.ID, l.LicenseID)
		}
	}
	if counts["CC0-1.0"] <= len(clips)/2 || counts["CC-BY-4.0"] < 4 || counts["CC-BY-4.0"] > 6 ||
		counts["CC-BY-NC-4.0"] < 2 || counts["CC-BY-NC-4.0"] > 3 || counts[license.Unknown] < 1 || counts[license.Unknown] > 2 {
		t.Errorf("licence mix %v: want mostly CC0, about 5 CC-BY, 2-3 NC, 1-2 unknown", counts)
	}

	// The gate keeps the door slam for the default (commercial) use,
	// drops the non-commercial door, and drops the unknown licences for
	// any use.
	m := byID(t)
	if d := license.Keep(m["demo-door-slam-wood"].Record.License, foley.DefaultUse()); !d.OK || d.LicenseID != "CC0-1.0" {
		t.Errorf("door slam: %+v, want CC0 and kept", d)
	}
	nonCommercial := foley.IntendedUse{Publish: true, CanAttribute: true}
	var ncDoor bool
	for _, c := range clips {
		l := c.Record.License
		commercial, personal := license.Keep(l, foley.DefaultUse()), license.Keep(l, nonCommercial)
		switch l.LicenseID {
		case "CC-BY-NC-4.0":
			ncDoor = ncDoor || strings.HasPrefix(c.Record.ID, "demo-door-")
			if commercial.OK || !personal.OK {
				t.Errorf("%s: NC kept for commercial use (%v) or dropped for non-commercial use (%v)", c.Record.ID, commercial, personal)
			}
		case license.Unknown:
			if commercial.OK || personal.OK {
				t.Errorf("%s: unknown licence kept", c.Record.ID)
			}
		default:
			if !commercial.OK {
				t.Errorf("%s: dropped for commercial use: %s", c.Record.ID, commercial.Reason)
			}
		}
	}
	if !ncDoor {
		t.Error("no non-commercial door clip")
	}
	for _, id := range []string{"demo-door-knock", "demo-door-creak"} {
		if _, ok := m[id]; !ok {
			t.Errorf("no %s", id)
		}
	}
	if !reflect.DeepEqual(clips[0].Record, Clips()[0].Record) {
		t.Error("Clips differs between calls")
	}
}

// TestDeterministic renders clips again and compares them with the files
// the build wrote (from other goroutines): the same bytes. Under the race
// detector only the short clips, to keep the test fast.
func TestDeterministic(t *testing.T) {
	dir, _, _ := built(t)
	for _, c := range Clips() {
		if raceEnabled && (c.Record.DurationS > 2 || c.Record.Channels > 1) {
			continue
		}
		b := c.WAV()
		f, err := os.ReadFile(filepath.Join(dir, ClipsDir, c.FileName()))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, f) {
			t.Errorf("%s: rendering again gives other bytes", c.Record.ID)
		}
	}
}

func TestFiles(t *testing.T) {
	_, _, decoded := built(t)
	for _, c := range Clips() {
		r := c.Record
		a := decoded[r.ID]
		if a.SampleRate != Rate || a.Channels != r.Channels || a.Duration() != r.DurationS {
			t.Errorf("%s: %d Hz, %d channels, %g s; the record says %d, %d, %g", r.ID, a.SampleRate, a.Channels, a.Duration(), r.SampleRate, r.Channels, r.DurationS)
		}
		var peak float32
		sums := make([]float64, a.Channels)
		for i, v := range a.Samples {
			peak = max(peak, v, -v)
			sums[i%a.Channels] += float64(v)
		}
		if db := dB(float64(peak)); db >= -0.5 || db <= -12 || (c.peakDB == -3 && db < -3.1) {
			t.Errorf("%s: peak %.2f dBFS, want -3 (and within -12..0)", r.ID, db)
		}
		for ch, s := range sums {
			if m := s / float64(a.Frames()); m > 1e-3 || m < -1e-3 {
				t.Errorf("%s: channel %d has a DC offset of %.5f", r.ID, ch, m)
			}
		}
		// The first and last samples are faded: no click at the ends.
		for _, v := range []float32{a.Samples[0], a.Samples[len(a.Samples)-1]} {
			if v > 0.01 || v < -0.01 {
				t.Errorf("%s: starts or ends at %g", r.ID, v)
			}
		}
	}
}

// TestSounds checks that each sound has the spectrum or rhythm its caption
// says.
func TestSounds(t *testing.T) {
	_, _, decoded := built(t)
	specs := map[string]spectrum{}
	spec := func(id string) spectrum {
		if specs[id] == nil {
			specs[id] = spectrumOf(decoded[id], 0, 0)
		}
		return specs[id]
	}
	checks := map[string]func(t *testing.T, c *audio.Clip, p spectrum){
		"demo-door-slam-wood": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "energy below 500 Hz", p.band(0, 500), 0.8, 1)
			want(t, "onsets", float64(onsets(energyEnvelope(c, 0.01), 0.01, 0.1)), 1, 1)
			want(t, "centroid, as a fraction of the glass clink's", p.centroid()/spec("demo-glass-clink").centroid(), 0, 0.1)
		},
		"demo-door-knock": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "knocks", float64(onsets(energyEnvelope(c, 0.01), 0.01, 0.1)), 3, 3)
			want(t, "energy below 1.5 kHz", p.band(0, 1500), 0.8, 1)
		},
		"demo-door-creak": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "centroid", p.centroid(), 500, 3000)
		},
		"demo-door-slam-metal": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "energy below 500 Hz", p.band(0, 500), 0.6, 1)
		},
		"demo-glass-clink": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "centroid", p.centroid(), 2000, 24000)
			hz, prom := p.peak()
			want(t, "peak frequency", hz, 2000, 12000)
			want(t, "peak prominence", prom, 1000, 1e300)
		},
		"demo-glass-break": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "centroid", p.centroid(), 3000, 24000)
			want(t, "flatness, as a multiple of the clink's", p.flatness(200, 10000)/spec("demo-glass-clink").flatness(200, 10000), 10, 1e300)
		},
		"demo-rain-roof": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "flatness 200 Hz-10 kHz", p.flatness(200, 10000), 0.5, 1)
			want(t, "centroid", p.centroid(), 1500, 8000)
		},
		"demo-rain-window": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "energy above 2 kHz", p.band(2000, 24000), 0.7, 1)
		},
		"demo-wind-gusts": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "gust range (loudest / quietest 100 ms)", swing(energyEnvelope(c, 0.1)), 4, 1e300)
			want(t, "flatness 200 Hz-10 kHz", p.flatness(200, 10000), 0.1, 1)
		},
		"demo-thunder-distant": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "energy below 300 Hz", p.band(0, 300), 0.9, 1)
		},
		"demo-ocean-waves": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "surge (loudest / quietest 100 ms)", swing(energyEnvelope(c, 0.1)), 4, 1e300)
			want(t, "flatness 200 Hz-10 kHz", p.flatness(200, 10000), 0.1, 1)
		},
		"demo-stream": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "energy 300 Hz-4 kHz", p.band(300, 4000), 0.7, 1)
		},
		"demo-water-drip": func(t *testing.T, c *audio.Clip, p spectrum) {
			hz, _ := p.peak()
			want(t, "peak frequency", hz, 700, 3000)
			want(t, "drips", float64(onsets(energyEnvelope(c, 0.01), 0.01, 0.3)), 4, 8)
		},
		"demo-footsteps-wood": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "energy below 1 kHz", p.band(0, 1000), 0.8, 1)
			want(t, "step period", period(energyEnvelope(c, 0.01), 0.01, 0.3, 1), 0.5, 0.62)
		},
		"demo-footsteps-gravel": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "centroid", p.centroid(), 1500, 8000)
			want(t, "step period", period(energyEnvelope(c, 0.01), 0.01, 0.3, 1), 0.54, 0.66)
		},
		"demo-church-bell": func(t *testing.T, c *audio.Clip, p spectrum) {
			early, eProm := spectrumOf(c, 0.3, 1.3).peak()
			late, lProm := spectrumOf(c, 1.5, 2.9).peak()
			want(t, "late / early strongest partial", late/early, 0.99, 1.01)
			want(t, "early prominence", eProm, 1e4, 1e300)
			want(t, "late prominence", lProm, 1e4, 1e300)
		},
		"demo-metal-clang": func(t *testing.T, c *audio.Clip, p spectrum) {
			_, prom := p.peak()
			want(t, "peak prominence", prom, 1e4, 1e300)
			want(t, "centroid", p.centroid(), 500, 5000)
		},
		"demo-clock-tick": func(t *testing.T, c *audio.Clip, p spectrum) {
			env := energyEnvelope(c, 0.01)
			want(t, "tick period", period(env, 0.01, 0.5, 1.8), 0.97, 1.03)
			want(t, "ticks", float64(onsets(env, 0.01, 0.3)), 5, 5)
		},
		"demo-heartbeat": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "energy below 200 Hz", p.band(0, 200), 0.9, 1)
			want(t, "beat period", period(energyEnvelope(c, 0.01), 0.01, 0.6, 1.5), 60.0/68-0.03, 60.0/68+0.03)
		},
		"demo-car-idle": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "energy below 500 Hz", p.band(0, 500), 0.8, 1)
		},
		"demo-dog-bark": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "barks", float64(onsets(energyEnvelope(c, 0.01), 0.01, 0.1)), 3, 3)
			want(t, "energy 300 Hz-3 kHz", p.band(300, 3000), 0.7, 1)
		},
		"demo-cat-meow": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "energy 300 Hz-3 kHz", p.band(300, 3000), 0.7, 1)
		},
		"demo-birdsong": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "energy above 2 kHz", p.band(2000, 24000), 0.8, 1)
		},
		"demo-crowd-murmur": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "energy 100 Hz-4 kHz", p.band(100, 4000), 0.9, 1)
		},
		"demo-phone-ring": func(t *testing.T, c *audio.Clip, p spectrum) {
			hz, _ := p.peak()
			if !(near(hz, 1000, 20) || near(hz, 1250, 20)) {
				t.Errorf("peak at %.0f Hz, want 1000 or 1250", hz)
			}
			want(t, "energy 900-1400 Hz", p.band(900, 1400), 0.7, 1)
		},
		"demo-ui-click": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "energy in the first 0.2 s", energyFraction(c, 0, 0.2), 0.95, 1)
			want(t, "centroid", p.centroid(), 1500, 10000)
		},
		"demo-ui-chime": func(t *testing.T, c *audio.Clip, p spectrum) {
			hz, _ := p.peak()
			if !(near(hz, 1318.5, 15) || near(hz, 1975.5, 15)) {
				t.Errorf("peak at %.0f Hz, want E6 or B6", hz)
			}
		},
		"demo-whoosh": func(t *testing.T, c *audio.Clip, p spectrum) {
			l0, r0 := channelEnergy(c, 0, 0.6)
			l1, r1 := channelEnergy(c, 1.0, 2)
			if !(l0 > 2*r0 && r1 > 2*l1) {
				t.Errorf("left/right %.3g/%.3g before and %.3g/%.3g after: want it to pass from left to right", l0, r0, l1, r1)
			}
		},
		"demo-explosion": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "energy below 300 Hz", p.band(0, 300), 0.7, 1)
		},
		"demo-gunshot": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "energy in the first 0.3 s", energyFraction(c, 0, 0.3), 0.5, 1)
			want(t, "centroid", p.centroid(), 1000, 10000)
		},
		"demo-fire-crackle": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "crackles", float64(onsets(energyEnvelope(c, 0.005), 0.005, 0.05)), 5, 100)
			want(t, "flatness 200 Hz-10 kHz", p.flatness(200, 10000), 0.3, 1)
		},
		"demo-paper-rustle": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "centroid", p.centroid(), 2000, 10000)
			want(t, "flatness 200 Hz-10 kHz", p.flatness(200, 10000), 0.3, 1)
		},
		"demo-keyboard-typing": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "keystrokes", float64(onsets(energyEnvelope(c, 0.005), 0.005, 0.05)), 10, 60)
		},
		"demo-room-tone": func(t *testing.T, c *audio.Clip, p spectrum) {
			want(t, "energy below 300 Hz", p.band(0, 300), 0.8, 1)
			want(t, "quietest / loudest 250 ms", 1/swing(energyEnvelope(c, 0.25)), 0.3, 1)
		},
	}
	for _, c := range Clips() {
		check, ok := checks[c.Record.ID]
		if !ok {
			t.Errorf("%s: no check", c.Record.ID)
			continue
		}
		t.Run(c.Record.ID, func(t *testing.T) { check(t, decoded[c.Record.ID], spec(c.Record.ID)) })
	}
}

func want(t *testing.T, what string, got, lo, hi float64) {
	t.Helper()
	if !(got >= lo && got <= hi) {
		t.Errorf("%s: %.4g, want %.4g..%.4g", what, got, lo, hi)
	}
}

func near(x, y, tol float64) bool { return x >= y-tol && x <= y+tol }

func dB(x float64) float64 { return 20 * math.Log10(x) }

// swing is the loudest over the quietest frame of an energy envelope.
func swing(env []float64) float64 {
	lo, hi := env[0], env[0]
	for _, v := range env {
		lo, hi = min(lo, v), max(hi, v)
	}
	return hi / max(lo, 1e-30)
}

// energyFraction is the fraction of the clip's energy between from and to
// seconds.
func energyFraction(c *audio.Clip, from, to float64) float64 {
	var in, all float64
	for i, v := range c.Samples {
		e := float64(v) * float64(v)
		all += e
		if t := float64(i/c.Channels) / float64(c.SampleRate); t >= from && t < to {
			in += e
		}
	}
	return in / all
}

// channelEnergy is the energy of the left and right channels between from
// and to seconds.
func channelEnergy(c *audio.Clip, from, to float64) (l, r float64) {
	w := c.Window(from, to-from)
	for i := 0; i+1 < len(w.Samples); i += 2 {
		l += float64(w.Samples[i]) * float64(w.Samples[i])
		r += float64(w.Samples[i+1]) * float64(w.Samples[i+1])
	}
	return l, r
}

func TestEnsureLibrary(t *testing.T) {
	ctx := context.Background()
	dir, libPath, _ := built(t)
	if libPath != filepath.Join(dir, LibraryFile) {
		t.Errorf("library %s, want %s", libPath, filepath.Join(dir, LibraryFile))
	}
	lib, err := sqlite.Open(ctx, libPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	if n, err := lib.Count(ctx); err != nil || n != len(Clips()) {
		t.Fatalf("Count = %d, %v; want %d", n, err, len(Clips()))
	}
	emb := embed.NewHash(0)
	if model, dim := lib.Embedding(); model != emb.Model() || dim != emb.Dim() {
		t.Errorf("library embedding %s/%d, want %s/%d", model, dim, emb.Model(), emb.Dim())
	}
	defs := byID(t)
	for r, err := range lib.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(r.URI)
		if err != nil {
			t.Errorf("%s: %v", r.ID, err)
			continue
		}
		sum := sha256.Sum256(b)
		if r.ContentSHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: content_sha256 %s is not the file's", r.ID, r.ContentSHA256)
		}
		if filepath.Dir(r.URI) != filepath.Join(dir, ClipsDir) || r.EmbeddingModel != emb.Model() {
			t.Errorf("%s: uri %s, embedding model %q", r.ID, r.URI, r.EmbeddingModel)
		}
		want := defs[r.ID].Record
		want.URI, want.ContentSHA256, want.EmbeddingModel = r.URI, r.ContentSHA256, r.EmbeddingModel
		if !reflect.DeepEqual(r, want) {
			t.Errorf("%s: stored\n%+v\nwant\n%+v", r.ID, r, want)
		}
	}
	st, err := lib.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"CC0-1.0", "CC-BY-4.0", "CC-BY-NC-4.0", license.Unknown} {
		if st.ByLicense[id] == 0 {
			t.Errorf("no %s clip in the library: %v", id, st.ByLicense)
		}
	}

	search := func(q string, f foley.Filter) []foley.Candidate {
		t.Helper()
		res, err := lib.Search(ctx, foley.SearchQuery{Text: q, Vector: emb.Embed(q), Model: emb.Model(), K: 10, Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 {
			t.Fatalf("%q: no results", q)
		}
		return res
	}
	for _, q := range []string{"door slam", "a heavy wooden door slams shut"} {
		if res := search(q, foley.Filter{}); res[0].Sound.ID != "demo-door-slam-wood" {
			t.Errorf("%q: first is %s, want demo-door-slam-wood", q, res[0].Sound.ID)
		}
	}
	// The non-commercial door is a near miss the gate drops.
	res := search("a heavy wooden door slams shut", foley.Filter{})
	var nc *foley.Candidate
	for i := range res[:5] {
		if res[i].Sound.License.LicenseID == "CC-BY-NC-4.0" {
			nc = &res[i]
		}
	}
	if nc == nil {
		t.Error("no non-commercial clip in the first 5 results for the door slam")
	} else if kept := license.Gate(res, foley.DefaultUse()); len(kept) == len(res) || kept[0].Sound.ID != "demo-door-slam-wood" {
		t.Errorf("the gate kept %d of %d, first %s", len(kept), len(res), kept[0].Sound.ID)
	}
	for _, tc := range []struct{ q, id string }{
		{"rain on a roof", "demo-rain-roof"}, {"glass breaking", "demo-glass-break"}, {"dog barking", "demo-dog-bark"},
		{"footsteps on gravel", "demo-footsteps-gravel"}, {"church bell", "demo-church-bell"}, {"whoosh", "demo-whoosh"},
	} {
		if res := search(tc.q, foley.Filter{}); res[0].Sound.ID != tc.id {
			t.Errorf("%q: first is %s, want %s", tc.q, res[0].Sound.ID, tc.id)
		}
	}
	for _, c := range search("explosion boom", foley.Filter{CommercialOnly: true}) {
		if !c.Sound.License.CommercialOK || !c.Sound.License.RightsVerified {
			t.Errorf("commercial-only search returned %s (%s)", c.Sound.ID, c.Sound.License.LicenseID)
		}
	}
}

// snapshot is the name, size and modification time of every file under
// dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		out[p] = fmt.Sprint(info.ModTime().UnixNano(), info.Size(), info.Mode())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestEnsureTwiceIsANoOp(t *testing.T) {
	dir, lib, _ := built(t)
	before := snapshot(t, dir)
	start := time.Now()
	again, err := Ensure(context.Background(), dir)
	took := time.Since(start)
	if err != nil || again != lib {
		t.Fatalf("Ensure again = %s, %v; want %s", again, err, lib)
	}
	if took > time.Second {
		t.Errorf("Ensure on a built library took %v", took)
	}
	if after := snapshot(t, dir); !reflect.DeepEqual(before, after) {
		t.Errorf("Ensure on a built library changed files")
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("beside the library: %v, want only %s", entries, filepath.Base(dir))
	}
}

// small swaps the catalogue for a few quick clips for the duration of the
// test.
func small(t *testing.T) {
	t.Helper()
	saved := catalogue
	var few []def
	for _, d := range catalogue {
		switch d.id {
		case "demo-ui-click", "demo-door-knock":
			few = append(few, d)
		}
	}
	catalogue = few
	t.Cleanup(func() { catalogue = saved })
}

func count(t *testing.T, libPath string) int {
	t.Helper()
	lib, err := sqlite.Open(context.Background(), libPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	n, err := lib.Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestEnsureConcurrent(t *testing.T) {
	small(t)
	parent := t.TempDir()
	dir := filepath.Join(parent, "demo")
	var wg sync.WaitGroup
	paths, errs := make([]string, 4), make([]error, 4)
	for i := range paths {
		wg.Go(func() { paths[i], errs[i] = Ensure(context.Background(), dir) })
	}
	wg.Wait()
	for i := range paths {
		if errs[i] != nil || paths[i] != filepath.Join(dir, LibraryFile) {
			t.Errorf("Ensure %d = %s, %v", i, paths[i], errs[i])
		}
	}
	if !current(dir) || count(t, paths[0]) != 2 {
		t.Errorf("after concurrent builds: current %v", current(dir))
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Errorf("left beside the library: %v", entries)
	}
}

func TestEnsureRebuilds(t *testing.T) {
	small(t)
	ctx := context.Background()
	parent := t.TempDir()
	dir := filepath.Join(parent, "demo")
	lib, err := Ensure(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	// An outdated stamp: the whole directory is built again.
	os.WriteFile(filepath.Join(dir, VersionFile), []byte("foley-demo-0\n"), 0o644)
	os.WriteFile(filepath.Join(dir, LibraryFile+".verdicts"), []byte("old"), 0o644)
	if _, err := Ensure(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, VersionFile)); string(b) != stamp() || count(t, lib) != 2 {
		t.Errorf("after a rebuild: stamp %q, want %q", b, stamp())
	}
	if _, err := os.Stat(filepath.Join(dir, LibraryFile+".verdicts")); err == nil {
		t.Error("the old directory's files survived the rebuild")
	}
	// A missing clip.
	clip := filepath.Join(dir, ClipsDir, "demo-ui-click.wav")
	os.Remove(clip)
	if _, err := Ensure(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(clip); err != nil {
		t.Errorf("missing clip not rebuilt: %v", err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Errorf("left beside the library: %v", entries)
	}
}

func TestEnsureRefusesForeignDir(t *testing.T) {
	small(t)
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("mine"), 0o644)
	if _, err := Ensure(context.Background(), dir); err == nil {
		t.Error("Ensure replaced a directory holding other files")
	}
	if b, err := os.ReadFile(notes); err != nil || string(b) != "mine" {
		t.Errorf("notes.txt: %q, %v", b, err)
	}
}

func TestEnsureCancelled(t *testing.T) {
	small(t)
	parent := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Ensure(ctx, filepath.Join(parent, "demo")); err == nil {
		t.Error("a cancelled Ensure succeeded")
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("a cancelled Ensure left %v", entries)
	}
}

func TestDefaultDir(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	d, err := DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d, cache) || filepath.Base(d) != "demo" || filepath.Base(filepath.Dir(d)) != "foley" {
		t.Errorf("DefaultDir = %s, want .../foley/demo under %s", d, cache)
	}
}
