package find_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/embed"
	"github.com/foley-audio/foley/find"
	"github.com/foley-audio/foley/refine"
	"github.com/foley-audio/foley/sqlite"
)

// Example runs the loop on a small library of two catalogue records.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "foley-example-")
	defer os.RemoveAll(dir)
	lib, err := sqlite.Open(ctx, filepath.Join(dir, "sfx.db"), sqlite.Options{})
	if err != nil {
		panic(err)
	}
	defer lib.Close()
	emb := embed.NewHash(0)
	recs := []foley.SoundRecord{
		{ID: "door-slam", Caption: "Heavy wooden door slams shut", Tags: foley.TagList{"door", "slam", "wood"},
			License: foley.License{LicenseID: "CC0-1.0", RightsVerified: true}},
		{ID: "door-knock", Caption: "Three knocks on a wooden door", Tags: foley.TagList{"door", "knock"},
			License: foley.License{LicenseID: "CC0-1.0", RightsVerified: true}},
	}
	var texts []string
	for i := range recs {
		recs[i].EmbeddingModel = emb.Model()
		texts = append(texts, embed.RecordText(recs[i]))
	}
	vecs, _ := emb.EmbedText(ctx, texts)
	if err := lib.Upsert(ctx, recs, vecs); err != nil {
		panic(err)
	}

	results, err := find.Find(ctx, find.LibrarySearcher(lib, emb), []foley.SoundEvent{
		foley.NewEvent("a heavy wooden door slams shut"),
	}, find.Options{Use: foley.DefaultUse(), Refiner: refine.Default()})
	if err != nil {
		panic(err)
	}
	r := results[0]
	fmt.Println(r.Action, r.Chosen.Sound.ID, r.Chosen.Verdict.Judge)
	fmt.Println(find.Credits(results)[0].LicenseName)
	// Output:
	// use door-slam string-overlap
	// CC0 1.0 Universal
}
