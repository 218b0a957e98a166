package find_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/embed"
	"github.com/foley-audio/foley/eval"
	"github.com/foley-audio/foley/find"
	"github.com/foley-audio/foley/refine"
)

// TestCostAwareMatchesExhaustive measures, on the shipped golden set with
// the deterministic judges, the verifications above clap that cost-aware
// verification makes against exhaustive verification, and how often the
// two decide the same (the same action and the same clip). The goal: at
// most half the calls, the same decision on at least 95% of events.
func TestCostAwareMatchesExhaustive(t *testing.T) {
	ctx := context.Background()
	g, err := eval.ShippedGolden()
	if err != nil {
		t.Fatal(err)
	}
	c, err := eval.ShippedCorpus()
	if err != nil {
		t.Fatal(err)
	}
	emb := embed.NewHash(0)
	lib, err := eval.BuildLibrary(ctx, filepath.Join(t.TempDir(), "corpus.db"), c, emb)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	events := make([]foley.SoundEvent, len(g.Items))
	for i, it := range g.Items {
		events[i] = it.Event
	}
	// With the clap gate open (tau_clap 0, as when the embedder cannot be
	// trusted), every shortlisted clip could climb; at the default 0.35
	// the gate already leaves about one per event on the built-in text
	// embedder, so there is little left to save.
	for _, tau := range []float64{0, 0.35} {
		m, err := find.CompareExhaustive(ctx, find.LibrarySearcher(lib, emb), events, find.Options{Use: foley.IntendedUse{}, TauClap: tau, Refiner: refine.Default()})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("tau_clap %.2f, %d events: cost-aware %d verifications above clap (%.2f per event), exhaustive %d (%.2f per event): ratio %.3f; same decision on %d (%.1f%%); differ: %q",
			tau, m.Events, m.CostAware, float64(m.CostAware)/float64(m.Events), m.Exhaustive, float64(m.Exhaustive)/float64(m.Events), m.Ratio(), m.Same, 100*m.Agreement(), m.Differ)
		if tau == 0 && m.Ratio() > 0.5 {
			t.Errorf("cost-aware verification made %.3f of the exhaustive calls, more than half", m.Ratio())
		}
		if m.Agreement() < 0.95 {
			t.Errorf("tau_clap %.2f: cost-aware and exhaustive decided the same on %.1f%% of events, below 95%%", tau, 100*m.Agreement())
		}
	}
}
