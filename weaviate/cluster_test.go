package weaviate_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/internal/librarytest"
	"github.com/foley-audio/foley/internal/weaviatetest"
	"github.com/foley-audio/foley/weaviate"
	wv "github.com/weaviate/weaviate-go-client/v5/weaviate"
)

// vec is the vector of record i: each its own.
func vec(i int) []float32 { return librarytest.Unit(4, i%4, float32(i)/50) }

// TestCluster runs a library on a three-node cluster with replication
// factor 3: with one node killed, search answers and ingest succeeds; the
// node rejoins and serves, from its own replica, what was written while it
// was away.
func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	ctx := context.Background()
	nodes := weaviatetest.StartCluster(t, 3)
	class := newClass("Cluster")
	loc := func(n *weaviatetest.Node) string { return n.Location(class) + "?replicas=3" }
	lib := open(t, loc(nodes[0]))

	put := func(l *weaviate.Library, from, to int) error {
		var recs []foley.SoundRecord
		var vecs [][]float32
		for i := from; i < to; i++ {
			recs = append(recs, librarytest.Rec(fmt.Sprintf("r%03d", i), fmt.Sprintf("door slam number %d", i)))
			vecs = append(vecs, vec(i))
		}
		return l.Upsert(ctx, recs, vecs)
	}
	if err := put(lib, 0, 50); err != nil {
		t.Fatal(err)
	}

	nodes[2].Kill()
	start := time.Now()
	res, err := lib.Search(ctx, foley.SearchQuery{Text: "door slam number 7", Vector: vec(7), Model: "test/4", K: 5})
	if err != nil || len(res) != 5 || res[0].Sound.ID != "r007" {
		t.Fatalf("search with a node down: %v %v", librarytest.IDs(res), err)
	}
	if err := put(lib, 50, 80); err != nil {
		t.Fatalf("ingest with a node down: %v", err)
	}
	t.Logf("search and ingest with node3 down took %v", time.Since(start))
	second := open(t, loc(nodes[1]))
	if n, err := second.Count(ctx); err != nil || n != 80 {
		t.Errorf("count through node2 with node3 down: %d %v", n, err)
	}

	nodes[2].Restart(t)
	// node3 catches up (async replication, read repair): its own replica
	// must hold a record written while it was down.
	c, err := wv.NewClient(wv.Config{Host: nodes[2].Host, Scheme: "http"})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		objs, err := c.Data().ObjectsGetter().WithClassName(class).WithID(weaviate.ObjectID("record", "r075")).WithNodeName("node3").Do(ctx)
		if err == nil && len(objs) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("node3 never got r075: %v\n%s", err, nodes[2].Log())
		}
		time.Sleep(time.Second)
	}
	third := open(t, loc(nodes[2]))
	got, err := third.Get(ctx, "r075")
	if err != nil || got.Caption != "door slam number 75" {
		t.Errorf("get through node3: %+v %v", got, err)
	}
	res, err = third.Search(ctx, foley.SearchQuery{Text: "door slam number 64", K: 3})
	if err != nil || len(res) == 0 || res[0].Sound.ID != "r064" {
		t.Errorf("search through node3: %v %v", librarytest.IDs(res), err)
	}
}
