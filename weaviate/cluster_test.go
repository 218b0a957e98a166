package weaviate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
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
// factor 3 and kills the node that is the raft leader (the hard case: the
// cluster must elect another): search answers and ingest succeeds on the
// other two; the node rejoins and serves, from its own replica, what was
// written while it was away.
func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	ctx := context.Background()
	nodes := weaviatetest.StartCluster(t, 3)
	class := newClass("Cluster")
	loc := func(n *weaviatetest.Node) string { return n.Location(class) + "?replicas=3" }

	put := func(l *weaviate.Library, from, to int) error {
		var recs []foley.SoundRecord
		var vecs [][]float32
		for i := from; i < to; i++ {
			recs = append(recs, librarytest.Rec(fmt.Sprintf("r%03d", i), fmt.Sprintf("door slam number %d", i)))
			vecs = append(vecs, vec(i))
		}
		return l.Upsert(ctx, recs, vecs)
	}
	if err := put(open(t, loc(nodes[0])), 0, 50); err != nil {
		t.Fatal(err)
	}

	// The victim is the raft leader; the library talks to another node.
	name := leader(t, nodes[0].Host)
	var victim *weaviatetest.Node
	var alive []*weaviatetest.Node
	for _, n := range nodes {
		if n.Name == name {
			victim = n
		} else {
			alive = append(alive, n)
		}
	}
	if victim == nil {
		t.Fatalf("no raft leader among the nodes (statistics say %q)", name)
	}
	lib := open(t, loc(alive[0]))
	victim.Kill()
	start := time.Now()
	res, err := lib.Search(ctx, foley.SearchQuery{Text: "door slam number 7", Vector: vec(7), Model: "test/4", K: 5})
	if err != nil || len(res) != 5 || res[0].Sound.ID != "r007" {
		t.Fatalf("search with the leader down: %v %v", librarytest.IDs(res), err)
	}
	if err := put(lib, 50, 80); err != nil {
		t.Fatalf("ingest with the leader down: %v", err)
	}
	t.Logf("search and ingest with %s (the leader) down took %v", victim.Name, time.Since(start))
	if n, err := open(t, loc(alive[1])).Count(ctx); err != nil || n != 80 {
		t.Errorf("count through %s with %s down: %d %v", alive[1].Name, victim.Name, n, err)
	}

	victim.Restart(t)
	restarted := time.Now()
	// The victim catches up (async replication, read repair): its own
	// replica must come to hold every record written while it was down.
	// Async replication repairs objects in no particular order, so one
	// present record says nothing of the others.
	c, err := wv.NewClient(wv.Config{Host: victim.Host, Scheme: "http"})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for i := 50; i < 80; {
		id := fmt.Sprintf("r%03d", i)
		objs, err := c.Data().ObjectsGetter().WithClassName(class).WithID(weaviate.ObjectID("record", id)).WithNodeName(victim.Name).Do(ctx)
		if err == nil && len(objs) == 1 {
			i++
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never got %s: %v\n%s", victim.Name, id, err, victim.Log())
		}
		time.Sleep(time.Second)
	}
	t.Logf("%s holds the records written while it was down %v after its restart", victim.Name, time.Since(restarted).Round(time.Second))
	back := open(t, loc(victim))
	got, err := back.Get(ctx, "r075")
	if err != nil || got.Caption != "door slam number 75" {
		t.Errorf("get through %s: %+v %v", victim.Name, got, err)
	}
	res, err = back.Search(ctx, foley.SearchQuery{Text: "door slam number 64", K: 3})
	if err != nil || len(res) == 0 || res[0].Sound.ID != "r064" {
		t.Errorf("search through %s: %v %v", victim.Name, librarytest.IDs(res), err)
	}
}

// leader is the raft leader as node host sees it.
func leader(t *testing.T, host string) string {
	resp, err := http.Get("http://" + host + "/v1/cluster/statistics")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	var st struct {
		Statistics []struct {
			Name     string `json:"name"`
			LeaderID string `json:"leaderId"`
		} `json:"statistics"`
	}
	json.NewDecoder(resp.Body).Decode(&st)
	if len(st.Statistics) == 0 {
		return "?"
	}
	return st.Statistics[0].LeaderID
}
