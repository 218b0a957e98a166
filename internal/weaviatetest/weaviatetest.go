// Package weaviatetest starts real Weaviate servers (weaviate-server
// processes) for tests: a single node, a shared node for a whole test
// package, or a multi-node raft cluster on the loopback interface; and,
// outside tests (benchmarks), a single node with [Launch].
//
// Every node listens on free 127.0.0.1 ports and keeps its data in a
// temporary directory. When the weaviate-server binary is not installed the
// tests are skipped (or fail when CI=true); see [InstallHint].
package weaviatetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// InstallHint is the command that installs the server.
const InstallHint = "go install github.com/weaviate/weaviate/cmd/weaviate-server@v1.35.2"

const (
	// readyTimeout bounds how long Start and Restart wait for a node.
	readyTimeout = 90 * time.Second
	// clusterTimeout bounds how long StartCluster waits for the cluster.
	clusterTimeout = 120 * time.Second
	// stopGrace is how long Stop waits after SIGTERM before SIGKILL.
	stopGrace = 10 * time.Second
	// logTail is how much of a node's output Log returns.
	logTail = 4 << 10
	// startAttempts is how often a start is tried when a port chosen as
	// free was taken by someone else before the server bound it.
	startAttempts = 3
)

// serverName is the file name of the server binary.
func serverName() string {
	if runtime.GOOS == "windows" {
		return "weaviate-server.exe"
	}
	return "weaviate-server"
}

// Binary finds weaviate-server: $FOLEY_WEAVIATE_SERVER if set, else PATH,
// else $GOBIN, else each $GOPATH/bin (go env GOPATH default ~/go/bin).
func Binary() (string, error) {
	if p := os.Getenv("FOLEY_WEAVIATE_SERVER"); p != "" {
		if err := executable(p); err != nil {
			return "", fmt.Errorf("FOLEY_WEAVIATE_SERVER: %w", err)
		}
		return p, nil
	}
	name := serverName()
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	tried := []string{"PATH"}
	gobin, gopath := os.Getenv("GOBIN"), os.Getenv("GOPATH")
	if gobin == "" && gopath == "" {
		// Neither is in the environment: ask the go command, which also
		// knows values set with go env -w.
		gobin, gopath = goEnv()
	}
	var dirs []string
	if gobin != "" {
		dirs = append(dirs, gobin)
	}
	if gopath == "" {
		if home, err := os.UserHomeDir(); err == nil {
			gopath = filepath.Join(home, "go")
		}
	}
	for _, p := range filepath.SplitList(gopath) {
		if p != "" {
			dirs = append(dirs, filepath.Join(p, "bin"))
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if executable(p) == nil {
			return p, nil
		}
		tried = append(tried, d)
	}
	return "", fmt.Errorf("%s not found in %s", name, strings.Join(tried, ", "))
}

// goEnv returns `go env GOBIN GOPATH`, or empty strings when the go command
// is unavailable. It runs the go command at most once per process.
var goEnv = sync.OnceValues(func() (gobin, gopath string) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", ""
	}
	out, err := exec.Command(goCmd, "env", "GOBIN", "GOPATH").Output()
	if err != nil {
		return "", ""
	}
	lines := strings.Split(strings.TrimRight(string(out), "\r\n"), "\n")
	if len(lines) != 2 {
		return "", ""
	}
	return strings.TrimSpace(lines[0]), strings.TrimSpace(lines[1])
})

// executable reports why p is not an executable regular file, if it is not.
func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", p)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not executable", p)
	}
	return nil
}

// binary returns the server binary, or skips tb (fails it when CI=true)
// when it is missing.
func binary(tb testing.TB) string {
	tb.Helper()
	bin, err := Binary()
	if err == nil {
		return bin
	}
	msg := notInstalled(err)
	if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
	return ""
}

// notInstalled is the message for a missing binary (err from Binary).
func notInstalled(err error) string {
	return fmt.Sprintf("weaviate-server is not installed (%v); install it with: %s", err, InstallHint)
}

// Node is one running (or stopped) weaviate-server process.
type Node struct {
	// Name is the node's cluster name (CLUSTER_HOSTNAME): node1, node2, ...
	Name string
	// Host is "127.0.0.1:PORT" of the HTTP API.
	Host string
	// GRPC is "127.0.0.1:PORT" of the gRPC API.
	GRPC string
	// Dir is the data directory (PERSISTENCE_DATA_PATH). It outlives Kill,
	// Stop and Restart.
	Dir string

	bin     string
	logPath string
	env     []string // fixed settings; CLUSTER_JOIN is added per start
	gossip  int      // memberlist port; the cluster data port is gossip+1
	peers   []*Node  // every node of the cluster, this one included

	mu   sync.Mutex
	cmd  *exec.Cmd     // nil when stopped
	done chan struct{} // closed when cmd has exited
	err  error         // cmd.Wait's result, valid once done is closed
}

var classes atomic.Int64

// Class is a class name that no other call in any test process on this
// machine returns: prefix, the process id and a counter. Tests on a shared
// server (and runs with -count > 1) never see each other's objects.
func Class(prefix string) string {
	return fmt.Sprintf("%s%d_%d", prefix, os.Getpid(), classes.Add(1))
}

// Location is the foley library location of class on this node:
// "weaviate://" + Host + "/" + class.
func (n *Node) Location(class string) string {
	return "weaviate://" + n.Host + "/" + class
}

// PID is the process id of the running server, or 0 when it is stopped.
func (n *Node) PID() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil || n.cmd.Process == nil {
		return 0
	}
	select {
	case <-n.done:
		return 0
	default:
		return n.cmd.Process.Pid
	}
}

// Kill stops the process with SIGKILL and waits for it (data dir kept).
// Killing a stopped node does nothing.
func (n *Node) Kill() { n.stop(false) }

// Stop stops it with SIGTERM (then SIGKILL after 10 s) and waits.
// Stopping a stopped node does nothing.
func (n *Node) Stop() { n.stop(true) }

func (n *Node) stop(graceful bool) {
	n.mu.Lock()
	cmd, done := n.cmd, n.done
	n.mu.Unlock()
	if cmd == nil {
		return
	}
	select {
	case <-done:
	default:
		if graceful {
			terminate(cmd)
			select {
			case <-done:
			case <-time.After(stopGrace):
				kill(cmd)
				<-done
			}
		} else {
			kill(cmd)
			<-done
		}
	}
	n.mu.Lock()
	if n.cmd == cmd {
		n.cmd = nil
	}
	n.mu.Unlock()
}

// Restart starts the stopped node again with the same ports, name and data
// dir, and waits until ready (timeout 90 s). A running node is stopped
// first. A cluster node rejoins through the nodes still running and becomes
// ready only once a raft quorum is up: when a majority of the cluster is
// down, restarting its nodes one at a time times out.
func (n *Node) Restart(tb testing.TB) {
	tb.Helper()
	n.Stop()
	start := time.Now()
	if err := n.start(); err != nil {
		tb.Fatalf("weaviatetest: restart %s: %v", n.Name, err)
	}
	if err := n.waitReady(time.Now().Add(readyTimeout)); err != nil {
		tb.Fatalf("weaviatetest: restart %s: %v\n%s", n.Name, err, n.logReport())
	}
	tb.Logf("weaviatetest: %s restarted in %v", n.Name, time.Since(start).Round(time.Millisecond))
}

// Log returns the tail (last 4 KiB) of the process's combined
// stdout/stderr, for failure messages.
func (n *Node) Log() string {
	f, err := os.Open(n.logPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(fi.Size()-logTail, 0)
	b, err := io.ReadAll(io.NewSectionReader(f, off, fi.Size()-off))
	if err != nil {
		return ""
	}
	if off > 0 {
		// Drop the partial first line.
		if i := strings.IndexByte(string(b), '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return string(b)
}

// logReport is Log with a heading, for failure messages.
func (n *Node) logReport() string {
	return fmt.Sprintf("--- %s log tail (%s) ---\n%s", n.Name, n.logPath, n.Log())
}

// running reports whether the process has been started and not yet exited.
func (n *Node) running() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil {
		return false
	}
	select {
	case <-n.done:
		return false
	default:
		return true
	}
}

// exited returns an error if the process is not running.
func (n *Node) exited() error {
	n.mu.Lock()
	cmd, done := n.cmd, n.done
	n.mu.Unlock()
	if cmd == nil {
		return fmt.Errorf("%s is not running", n.Name)
	}
	select {
	case <-done:
		n.mu.Lock()
		err := n.err
		n.mu.Unlock()
		if err == nil {
			err = errors.New("exit status 0")
		}
		return fmt.Errorf("weaviate-server %s exited (%v)", n.Name, err)
	default:
		return nil
	}
}

// start launches the process. It must not be running.
func (n *Node) start() error {
	// Join the gossip ring through the nodes already running (none for the
	// first node of a cluster); memberlist needs only one to answer.
	var join []string
	for _, p := range n.peers {
		if p != n && p.running() {
			join = append(join, fmt.Sprintf("127.0.0.1:%d", p.gossip))
		}
	}

	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd != nil {
		return fmt.Errorf("%s is already running", n.Name)
	}
	if err := os.MkdirAll(n.Dir, 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(n.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer out.Close() // the child has its own copy
	fmt.Fprintf(out, "=== weaviatetest: starting %s at %s ===\n", n.Name, time.Now().Format(time.RFC3339Nano))
	_, port, _ := net.SplitHostPort(n.Host)
	cmd := exec.Command(n.bin, "--host", "127.0.0.1", "--port", port, "--scheme", "http")
	cmd.Dir = n.Dir
	cmd.Env = append(os.Environ(), n.env...)
	cmd.Env = append(cmd.Env, "CLUSTER_JOIN="+strings.Join(join, ","))
	cmd.Stdout = out
	cmd.Stderr = out
	setProcAttr(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	n.cmd, n.done, n.err = cmd, done, nil
	go func() {
		err := cmd.Wait()
		n.mu.Lock()
		if n.done == done {
			n.err = err
		}
		n.mu.Unlock()
		close(done)
	}()
	return nil
}

// pause sleeps for d or until the process exits.
func (n *Node) pause(d time.Duration) {
	n.mu.Lock()
	done := n.done
	n.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-done:
	}
}

// httpClient talks to the nodes. Keep-alives are off so that no connection
// outlives a killed server.
var httpClient = &http.Client{
	Timeout:   5 * time.Second,
	Transport: &http.Transport{DisableKeepAlives: true, Proxy: nil},
}

// ready reports whether GET /v1/.well-known/ready answers 200.
func (n *Node) ready() error {
	resp, err := httpClient.Get("http://" + n.Host + "/v1/.well-known/ready")
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /v1/.well-known/ready: %s", resp.Status)
	}
	return nil
}

// waitReady polls /v1/.well-known/ready until it answers 200, the process
// exits or the deadline passes.
func (n *Node) waitReady(deadline time.Time) error {
	for {
		if err := n.exited(); err != nil {
			return fmt.Errorf("%w before it was ready", err)
		}
		err := n.ready()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready at %s: %v", n.Name, n.Host, err)
		}
		n.pause(100 * time.Millisecond)
	}
}

// waitGossip waits until the node's memberlist port accepts connections, so
// that other nodes can join through it.
func (n *Node) waitGossip(deadline time.Time) error {
	addr := fmt.Sprintf("127.0.0.1:%d", n.gossip)
	for {
		if err := n.exited(); err != nil {
			return err
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: gossip port %s not listening: %v", n.Name, addr, err)
		}
		n.pause(50 * time.Millisecond)
	}
}

// nodeStatus is an entry of GET /v1/nodes.
type nodeStatus struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// nodes returns GET /v1/nodes.
func (n *Node) nodes() ([]nodeStatus, error) {
	resp, err := httpClient.Get("http://" + n.Host + "/v1/nodes")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /v1/nodes: %s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	var v struct {
		Nodes []nodeStatus `json:"nodes"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, fmt.Errorf("GET /v1/nodes: %v", err)
	}
	return v.Nodes, nil
}

// healthy returns an error unless /v1/nodes on n lists want HEALTHY nodes
// and no others.
func (n *Node) healthy(want int) error {
	list, err := n.nodes()
	if err != nil {
		return err
	}
	ok := 0
	var desc []string
	for _, s := range list {
		if s.Status == "HEALTHY" {
			ok++
		}
		desc = append(desc, s.Name+"="+s.Status)
	}
	if ok != want || len(list) != want {
		return fmt.Errorf("/v1/nodes on %s lists [%s], want %d HEALTHY nodes", n.Name, strings.Join(desc, " "), want)
	}
	return nil
}

// Start starts one node on free loopback ports with a temporary data dir
// (tb.TempDir()), waits for /v1/.well-known/ready (timeout 90 s), and
// registers tb.Cleanup to stop it. When the binary is missing it calls
// tb.Skip with a message naming InstallHint — except when the environment
// has CI=true, where it calls tb.Fatal with the same message (CI must run
// these tests).
func Start(tb testing.TB) *Node {
	tb.Helper()
	return startTB(tb, 1, readyTimeout, false)[0]
}

// StartCluster starts n nodes forming one cluster (n >= 1), waits until
// every node is ready and /v1/nodes on node 1 lists n healthy nodes
// (timeout 120 s); skip/fail as Start.
//
// The nodes are named node1..noden, gossip with each other through
// memberlist on 127.0.0.1 and all vote in raft (RAFT_BOOTSTRAP_EXPECT=n).
// A node stopped with Kill or Stop rejoins on Restart.
func StartCluster(tb testing.TB, n int) []*Node {
	tb.Helper()
	if n < 1 {
		tb.Fatalf("weaviatetest: StartCluster(%d): need at least one node", n)
	}
	return startTB(tb, n, clusterTimeout, true)
}

func startTB(tb testing.TB, count int, timeout time.Duration, checkNodes bool) []*Node {
	tb.Helper()
	bin := binary(tb)
	root := tb.TempDir()
	var nodes []*Node
	started := false
	// Registered after TempDir, so it runs before the directory is removed.
	tb.Cleanup(func() {
		if started && tb.Failed() {
			for _, n := range nodes {
				tb.Log(n.logReport())
			}
		}
		stopAll(nodes)
	})
	start := time.Now()
	nodes, err := startNodes(bin, root, count, timeout, checkNodes)
	if err != nil {
		tb.Fatalf("weaviatetest: %v", err) // err has the logs
	}
	started = true
	tb.Logf("weaviatetest: %d node(s) ready in %v", count, time.Since(start).Round(time.Millisecond))
	return nodes
}

// stopAll stops the nodes: all but the first concurrently, then the first.
// (When all leave at once, each waits 5 s in vain for its memberlist leave
// message to reach another live node.)
func stopAll(nodes []*Node) {
	if len(nodes) == 0 {
		return
	}
	var wg sync.WaitGroup
	for _, n := range nodes[1:] {
		wg.Go(n.Stop)
	}
	wg.Wait()
	nodes[0].Stop()
}

// Launch starts one node outside a test, with the settings Start uses, on
// free loopback ports: its data in dir/node1 and its output in
// dir/node1.log (dir is created if needed). It waits until the node is
// ready (timeout 90 s) and returns it; the caller stops it with Stop and
// removes dir. The error of a node that did not start includes its log
// tail; when the binary is missing, the error names [InstallHint].
//
// On Linux the server is killed when the thread that started it exits,
// as with Start; a program that wants it to outlive its caller's goroutine
// should not call Launch from a goroutine locked to its thread.
func Launch(dir string) (*Node, error) {
	bin, err := Binary()
	if err != nil {
		return nil, fmt.Errorf("weaviatetest: %s", notInstalled(err))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("weaviatetest: %w", err)
	}
	nodes, err := startNodes(bin, dir, 1, readyTimeout, false)
	if err != nil {
		return nil, fmt.Errorf("weaviatetest: %w", err)
	}
	return nodes[0], nil
}

// startNodes is launch that stops the nodes it started when it fails.
func startNodes(bin, root string, count int, timeout time.Duration, checkNodes bool) ([]*Node, error) {
	nodes, err := launch(bin, root, count, timeout, checkNodes)
	if err != nil {
		stopAll(nodes)
		return nil, err
	}
	return nodes, nil
}

// launch starts count nodes under root and waits until every one is ready
// and, if checkNodes, /v1/nodes on the first lists them all as healthy.
// It retries with other ports when a port was taken before the server
// bound it. On error the nodes returned may still run; the caller stops
// them.
func launch(bin, root string, count int, timeout time.Duration, checkNodes bool) ([]*Node, error) {
	var nodes []*Node
	var err error
	for attempt := 1; attempt <= startAttempts; attempt++ {
		if attempt > 1 {
			stopAll(nodes)
			for _, n := range nodes {
				os.RemoveAll(n.Dir)
				os.Remove(n.logPath)
			}
		}
		nodes, err = newCluster(bin, root, count)
		if err != nil {
			return nil, err
		}
		err = launchOnce(nodes, time.Now().Add(timeout), checkNodes)
		if err == nil {
			return nodes, nil
		}
		if !portTaken(nodes) {
			break
		}
	}
	var b strings.Builder
	b.WriteString(err.Error())
	for _, n := range nodes {
		b.WriteString("\n")
		b.WriteString(n.logReport())
	}
	return nodes, errors.New(b.String())
}

// portTaken reports whether a node failed because a port was in use.
func portTaken(nodes []*Node) bool {
	for _, n := range nodes {
		if !n.running() && strings.Contains(n.Log(), "address already in use") {
			return true
		}
	}
	return false
}

func launchOnce(nodes []*Node, deadline time.Time, checkNodes bool) error {
	// The first node must be gossiping before the others can join it.
	if err := nodes[0].start(); err != nil {
		return err
	}
	if len(nodes) > 1 {
		if err := nodes[0].waitGossip(deadline); err != nil {
			return err
		}
		for _, n := range nodes[1:] {
			if err := n.start(); err != nil {
				return err
			}
		}
	}
	for _, n := range nodes {
		if err := n.waitReady(deadline); err != nil {
			return err
		}
	}
	if !checkNodes {
		return nil
	}
	for {
		err := nodes[0].healthy(len(nodes))
		if err == nil {
			return nil
		}
		for _, n := range nodes {
			if xerr := n.exited(); xerr != nil {
				return xerr
			}
		}
		if time.Now().After(deadline) {
			return err
		}
		nodes[0].pause(250 * time.Millisecond)
	}
}

// newCluster creates (but does not start) count nodes under root, with
// fresh ports.
func newCluster(bin, root string, count int) ([]*Node, error) {
	type ports struct{ http, grpc, gossip, raft int }
	ps := make([]ports, count)
	var join []string
	for i := range ps {
		var err error
		p := &ps[i]
		if p.http, err = freePort(false, false); err != nil {
			return nil, err
		}
		if p.grpc, err = freePort(false, false); err != nil {
			return nil, err
		}
		// Gossip (TCP and UDP) and the cluster data port (gossip+1).
		if p.gossip, err = freePort(true, true); err != nil {
			return nil, err
		}
		// Raft and its internal RPC port (raft+1).
		if p.raft, err = freePort(true, false); err != nil {
			return nil, err
		}
		join = append(join, fmt.Sprintf("node%d:%d", i+1, p.raft))
	}
	nodes := make([]*Node, count)
	for i, p := range ps {
		name := fmt.Sprintf("node%d", i+1)
		n := &Node{
			Name:    name,
			Host:    fmt.Sprintf("127.0.0.1:%d", p.http),
			GRPC:    fmt.Sprintf("127.0.0.1:%d", p.grpc),
			Dir:     filepath.Join(root, name),
			bin:     bin,
			logPath: filepath.Join(root, name+".log"),
			gossip:  p.gossip,
			peers:   nodes,
		}
		n.env = []string{
			"PERSISTENCE_DATA_PATH=" + n.Dir,
			"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true",
			"DEFAULT_VECTORIZER_MODULE=none",
			"DISABLE_TELEMETRY=true",
			"GO_PROFILING_DISABLE=true", // else every node listens on :6060
			"LOG_FORMAT=text",
			"LOG_LEVEL=info",
			"GRPC_PORT=" + strconv.Itoa(p.grpc),
			"CLUSTER_HOSTNAME=" + name,
			// Several nodes on one host: raft addresses are the
			// memberlist address plus the port listed in RAFT_JOIN.
			"CLUSTER_IN_LOCALHOST=true",
			"CLUSTER_ADVERTISE_ADDR=127.0.0.1",
			"CLUSTER_BIND_ADDR=127.0.0.1",
			"CLUSTER_GOSSIP_BIND_PORT=" + strconv.Itoa(p.gossip),
			"CLUSTER_DATA_BIND_PORT=" + strconv.Itoa(p.gossip+1),
			"RAFT_PORT=" + strconv.Itoa(p.raft),
			"RAFT_INTERNAL_RPC_PORT=" + strconv.Itoa(p.raft+1),
			"RAFT_JOIN=" + strings.Join(join, ","),
			"RAFT_BOOTSTRAP_EXPECT=" + strconv.Itoa(count),
			// As Weaviate's own acceptance tests: fast elections and
			// failure detection (startup takes ~3 s instead of ~8 s).
			"RAFT_TIMEOUTS_MULTIPLIER=1",
			"RAFT_DRAIN_SLEEP=1ms",
			"MEMBERLIST_FAST_FAILURE_DETECTION=true",
		}
		nodes[i] = n
	}
	return nodes, nil
}

// usedPorts holds the ports handed out in this process, so that two nodes
// never get the same one even if the kernel reuses it.
var (
	portMu    sync.Mutex
	usedPorts = map[int]bool{}
)

// freePort returns a free port p; with pair, p+1 is free too; with udp, p is
// also free for UDP.
func freePort(pair, udp bool) (int, error) {
	portMu.Lock()
	defer portMu.Unlock()
	for range 200 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if usedPorts[p] || !portFree(p, udp) {
			continue
		}
		if pair && (p+1 > 65535 || usedPorts[p+1] || !portFree(p+1, false)) {
			continue
		}
		usedPorts[p] = true
		if pair {
			usedPorts[p+1] = true
		}
		return p, nil
	}
	return 0, errors.New("weaviatetest: no free port found")
}

// portFree reports whether TCP (and with udp, UDP) port p can be bound on
// every interface: some Weaviate listeners do not bind to 127.0.0.1 only.
func portFree(p int, udp bool) bool {
	addr := fmt.Sprintf(":%d", p)
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return false
	}
	l.Close()
	if udp {
		c, err := net.ListenPacket("udp", addr)
		if err != nil {
			return false
		}
		c.Close()
	}
	return true
}

// The shared node.
var (
	sharedMu   sync.Mutex
	sharedNode *Node
	sharedRoot string
	sharedErr  error
)

// Shared returns a single node shared by every test of the package that
// calls it (started on first use, for speed: startup takes seconds). Tests
// must use their own class names. Stop it from TestMain with StopShared.
// Tests must not Kill, Stop or Restart it. Skip/fail as Start.
func Shared(tb testing.TB) *Node {
	tb.Helper()
	bin := binary(tb)
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if sharedErr != nil {
		tb.Fatalf("weaviatetest: shared node failed to start: %v", sharedErr)
	}
	if sharedNode == nil {
		root, err := os.MkdirTemp("", "weaviatetest-shared-")
		if err != nil {
			tb.Fatalf("weaviatetest: %v", err)
		}
		start := time.Now()
		nodes, err := startNodes(bin, root, 1, readyTimeout, false)
		if err != nil {
			os.RemoveAll(root)
			sharedErr = err
			tb.Fatalf("weaviatetest: shared node: %v", err)
		}
		sharedNode, sharedRoot = nodes[0], root
		tb.Logf("weaviatetest: shared node ready in %v", time.Since(start).Round(time.Millisecond))
	}
	if err := sharedNode.exited(); err != nil {
		tb.Fatalf("weaviatetest: shared node: %v\n%s", err, sharedNode.logReport())
	}
	return sharedNode
}

// StopShared stops the node returned by Shared, if any, and removes its
// data dir. Call it from TestMain after m.Run.
func StopShared() {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if sharedNode != nil {
		sharedNode.Stop()
		os.RemoveAll(sharedRoot)
	}
	sharedNode, sharedRoot, sharedErr = nil, "", nil
}

// Main runs a package's tests and then stops the shared node: call it from
// TestMain.
func Main(m *testing.M) {
	code := m.Run()
	StopShared()
	os.Exit(code)
}
