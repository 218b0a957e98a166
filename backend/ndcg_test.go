package backend_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/foley-audio/foley/embed"
	"github.com/foley-audio/foley/eval"
	"github.com/foley-audio/foley/internal/weaviatetest"
)

// TestBackendsAgreeOnGoldenSet indexes the shipped golden corpus into both
// backends and checks that retrieval quality is the same: nDCG@10 within
// 0.02 of each other.
func TestBackendsAgreeOnGoldenSet(t *testing.T) {
	ctx := context.Background()
	node := weaviatetest.Shared(t)
	g, err := eval.ShippedGolden()
	if err != nil {
		t.Fatal(err)
	}
	c, err := eval.ShippedCorpus()
	if err != nil {
		t.Fatal(err)
	}
	emb := embed.NewHash(0)
	ndcg := map[string]float64{}
	for name, loc := range map[string]string{
		"sqlite":   filepath.Join(t.TempDir(), "golden.db"),
		"weaviate": node.Location(weaviatetest.Class("Golden")),
	} {
		lib := open(t, loc)
		if err := eval.Fill(ctx, lib, c, emb); err != nil {
			t.Fatal(err)
		}
		rep, err := eval.Retrieval(ctx, g, eval.LibrarySearcher(lib, emb), eval.Options{K: 10})
		if err != nil {
			t.Fatal(err)
		}
		ndcg[name] = float64(rep.Overall.NDCG)
		t.Logf("%s: nDCG@10 %.4f, R@10 %.4f, MRR %.4f", name, rep.Overall.NDCG, rep.Overall.Recall10, rep.Overall.MRR)
	}
	if d := math.Abs(ndcg["sqlite"] - ndcg["weaviate"]); d > 0.02 || math.IsNaN(d) {
		t.Errorf("nDCG@10: embedded %.4f, Weaviate %.4f: %.4f apart, want within 0.02", ndcg["sqlite"], ndcg["weaviate"], d)
	}
}
