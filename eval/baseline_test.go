package eval

import (
	"context"
	"flag"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/embed"
	"github.com/foley-audio/foley/verify"
)

var updateBaseline = flag.Bool("update-baseline", false, "re-measure the shipped golden set and rewrite baseline.json")

// TestShippedBaseline holds the shipped golden set to the committed
// baseline: nDCG@10 over the shipped corpus with the built-in embedder must
// not drop below the baseline minus its tolerance. After a deliberate
// change (a better ranking, a new golden item), re-measure with
//
//	go test ./eval -run TestShippedBaseline -update-baseline
func TestShippedBaseline(t *testing.T) {
	ctx := context.Background()
	g, err := ShippedGolden()
	if err != nil {
		t.Fatal(err)
	}
	c, err := ShippedCorpus()
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Items) < 150 {
		t.Errorf("the shipped golden set has %d items; it must keep at least 150", len(g.Items))
	}
	emb := embed.NewHash(0)
	lib, err := BuildLibrary(ctx, filepath.Join(t.TempDir(), "corpus.db"), c, emb)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	rep, err := Retrieval(ctx, g, LibrarySearcher(lib, emb), Options{K: 10})
	if err != nil {
		t.Fatal(err)
	}
	got := float64(rep.Overall.NDCG)
	if *updateBaseline {
		bl := &Baseline{
			Metric: "ndcg_at_10", Value: math.Round(got*1e4) / 1e4, Tolerance: 0.02,
			GoldenSHA256: g.SHA256, CorpusSHA256: c.SHA256, Embedder: emb.Model(),
			Also: map[string]float64{
				"recall_at_1": round4(rep.Overall.Recall1), "recall_at_5": round4(rep.Overall.Recall5),
				"recall_at_10": round4(rep.Overall.Recall10), "map_at_10": round4(rep.Overall.MAP), "mrr": round4(rep.Overall.MRR),
			},
			Measured: "go test ./eval -run TestShippedBaseline -update-baseline",
		}
		if err := bl.Write(BaselinePath); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s: nDCG@10 %.4f", BaselinePath, got)
		return
	}
	bl, err := ReadBaseline(BaselinePath)
	if err != nil {
		t.Fatal(err)
	}
	if bl.GoldenSHA256 != g.SHA256 || bl.CorpusSHA256 != c.SHA256 || bl.Embedder != emb.Model() {
		t.Fatalf("the baseline was measured on another golden set, corpus or embedder (golden %.12s vs %.12s, corpus %.12s vs %.12s, embedder %q vs %q); re-measure: %s",
			bl.GoldenSHA256, g.SHA256, bl.CorpusSHA256, c.SHA256, bl.Embedder, emb.Model(), bl.Measured)
	}
	diff := got - bl.Value
	t.Logf("nDCG@10 %.4f, baseline %.4f (%+.4f, tolerance %.4f)", got, bl.Value, diff, bl.Tolerance)
	if err := bl.Check(got); err != nil {
		t.Errorf("the shipped golden set: %v", err)
	}
}

func TestBaselineCheck(t *testing.T) {
	bl := Baseline{Metric: "ndcg_at_10", Value: 0.70, Tolerance: 0.02}
	for got, ok := range map[float64]bool{0.75: true, 0.70: true, 0.681: true, 0.679: false, 0.5: false} {
		if err := bl.Check(got); (err == nil) != ok {
			t.Errorf("Check(%v) = %v, want ok=%v", got, err, ok)
		}
	}
	if err := bl.Check(0.65); err == nil || !strings.Contains(err.Error(), "-0.0500") {
		t.Errorf("the error does not give the difference: %v", err)
	}
}

// TestShippedFitDeterministic runs the fit evaluation of the shipped set
// with the deterministic judges, as CI does: every clip judged, no model
// call, and the string-overlap judge's known precision.
func TestShippedFitDeterministic(t *testing.T) {
	ctx := context.Background()
	g, _ := ShippedGolden()
	c, _ := ShippedCorpus()
	emb := embed.NewHash(0)
	lib, err := BuildLibrary(ctx, filepath.Join(t.TempDir(), "corpus.db"), c, emb)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	rep, err := Fit(ctx, g, LibrarySearcher(lib, emb), Options{Level: foley.LevelListen, TauClap: verify.DefaultTauClap})
	if err != nil {
		t.Fatal(err)
	}
	o := rep.Overall
	if o.Judged != 10*len(g.Items) || o.Errors != 0 || rep.Usage.Calls != 0 || rep.Judge != "string-overlap" {
		t.Errorf("judged %d errors %d calls %d judge %s", o.Judged, o.Errors, rep.Usage.Calls, rep.Judge)
	}
	t.Logf("fit precision %v recall %v F1 %v accept %v", o.Precision, o.Recall, o.F1, o.AcceptRate)
	if float64(o.Precision) < 0.8 {
		t.Errorf("fit precision %v of the deterministic ladder fell below 0.8", o.Precision)
	}
}

func round4(m Metric) float64 { return math.Round(float64(m)*1e4) / 1e4 }
