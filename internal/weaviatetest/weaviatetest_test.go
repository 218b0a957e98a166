package weaviatetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	code := m.Run()
	StopShared()
	os.Exit(code)
}

// get returns the status and body of GET http://host/path.
func get(t *testing.T, host, path string) (int, []byte) {
	t.Helper()
	resp, err := httpClient.Get("http://" + host + path)
	if err != nil {
		t.Fatalf("GET %s%s: %v", host, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s%s: %v", host, path, err)
	}
	return resp.StatusCode, body
}

// eventually retries f until it returns nil or timeout passes.
func eventually(t *testing.T, timeout time.Duration, f func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func TestBinaryEnv(t *testing.T) {
	t.Setenv("FOLEY_WEAVIATE_SERVER", filepath.Join(t.TempDir(), "missing"))
	if p, err := Binary(); err == nil {
		t.Fatalf("Binary() = %q with a missing FOLEY_WEAVIATE_SERVER, want error", p)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	t.Setenv("FOLEY_WEAVIATE_SERVER", exe)
	if p, err := Binary(); err != nil || p != exe {
		t.Fatalf("Binary() = %q, %v; want %q", p, err, exe)
	}
}

func TestStart(t *testing.T) {
	n := Start(t)
	if n.Name != "node1" || !strings.HasPrefix(n.Host, "127.0.0.1:") || !strings.HasPrefix(n.GRPC, "127.0.0.1:") {
		t.Errorf("node = %+v", n)
	}
	if got, want := n.Location("Sound"), "weaviate://"+n.Host+"/Sound"; got != want {
		t.Errorf("Location = %q, want %q", got, want)
	}
	if code, body := get(t, n.Host, "/v1/.well-known/ready"); code != http.StatusOK {
		t.Fatalf("ready: %d %s", code, body)
	}
	code, body := get(t, n.Host, "/v1/meta")
	if code != http.StatusOK {
		t.Fatalf("meta: %d %s", code, body)
	}
	var meta struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(body, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Version != "1.35.2" {
		t.Errorf("version = %q, want 1.35.2", meta.Version)
	}
	if n.Log() == "" {
		t.Error("Log() is empty")
	}

	// Stopping twice and killing a stopped node are no-ops; the cleanup
	// stops it once more and removes the data dir.
	n.Stop()
	n.Stop()
	n.Kill()
	if err := n.ready(); err == nil {
		t.Error("stopped node still answers")
	}
	if _, err := os.Stat(filepath.Join(n.Dir, "raft")); err != nil {
		t.Errorf("data dir after Stop: %v", err)
	}
}

func TestShared(t *testing.T) {
	a := Shared(t)
	b := Shared(t)
	if a != b {
		t.Fatal("Shared returned two nodes")
	}
	if err := a.ready(); err != nil {
		t.Fatal(err)
	}
}

func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-node cluster")
	}
	nodes := StartCluster(t, 3)
	if err := nodes[0].healthy(3); err != nil {
		t.Fatal(err)
	}
	for i, n := range nodes {
		if err := n.ready(); err != nil {
			t.Fatalf("node %d: %v", i+1, err)
		}
	}
	// A schema change on node1 goes through raft to every node.
	createClass(t, nodes[0], "ClusterBefore")
	for _, n := range nodes {
		eventually(t, 10*time.Second, func() error { return hasClass(n, "ClusterBefore") })
	}

	nodes[2].Kill()
	if err := nodes[2].ready(); err == nil {
		t.Fatal("killed node still answers")
	}
	// The other two keep a raft quorum. Check them a few times, as losing
	// a member may take a moment to show.
	for range 3 {
		for _, n := range nodes[:2] {
			eventually(t, 30*time.Second, n.ready)
		}
		time.Sleep(time.Second)
	}
	code, body := get(t, nodes[0].Host, "/v1/nodes")
	t.Logf("with node3 down, /v1/nodes on node1: %d %s", code, body)
	// Two of three voters still commit schema changes.
	createClass(t, nodes[1], "ClusterDuring")

	nodes[2].Restart(t)
	if err := nodes[2].ready(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	eventually(t, 60*time.Second, func() error { return nodes[0].healthy(3) })
	t.Logf("node1 lists 3 healthy nodes %v after the restart", time.Since(start).Round(time.Millisecond))
	// The restarted node kept its data and caught up with the raft log.
	for _, class := range []string{"ClusterBefore", "ClusterDuring"} {
		eventually(t, 10*time.Second, func() error { return hasClass(nodes[2], class) })
	}
}

// createClass creates class (without vectorizer) through n.
func createClass(t *testing.T, n *Node, class string) {
	t.Helper()
	body := `{"class":"` + class + `","vectorizer":"none","properties":[{"name":"title","dataType":["text"]}]}`
	resp, err := httpClient.Post("http://"+n.Host+"/v1/schema", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("create %s on %s: %s %s", class, n.Name, resp.Status, b)
	}
}

// hasClass returns an error unless n's schema has class.
func hasClass(n *Node, class string) error {
	resp, err := httpClient.Get("http://" + n.Host + "/v1/schema/" + class)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: GET /v1/schema/%s: %s %s", n.Name, class, resp.Status, b)
	}
	return nil
}

func TestLaunch(t *testing.T) {
	binary(t) // skip (fail in CI) without the server
	dir := t.TempDir()
	n, err := Launch(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Stop()
	if n.PID() <= 0 {
		t.Errorf("PID() = %d for a running node", n.PID())
	}
	if n.Dir != filepath.Join(dir, "node1") {
		t.Errorf("Dir = %q, want it under %q", n.Dir, dir)
	}
	if err := n.ready(); err != nil {
		t.Fatal(err)
	}
	n.Stop()
	if pid := n.PID(); pid != 0 {
		t.Errorf("PID() = %d after Stop, want 0", pid)
	}
}
