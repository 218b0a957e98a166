package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeProcess starts foley serve as a process on a free loopback
// port, drives the API, and stops it with SIGTERM.
func TestServeProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	// Build first: useDemoCache moves HOME, and with it Go's module cache.
	bin := filepath.Join(t.TempDir(), "foley")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cache := useDemoCache(t)
	env := append(os.Environ(), "XDG_CACHE_HOME="+cache, "FOLEY_API_TOKEN=tok", "FOLEY_LIBRARY=", "ANTHROPIC_API_KEY=", "FOLEY_AUDIOLM_URL=", "FOLEY_LLM_URL=", "ELEVENLABS_API_KEY=")

	// A non-loopback address without a token is refused.
	refuse := exec.Command(bin, "serve", "--addr", "0.0.0.0:0")
	refuse.Env = append(env, "FOLEY_API_TOKEN=")
	out, _ := refuse.CombinedOutput()
	if refuse.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "refusing") {
		t.Errorf("non-loopback without a token: exit %d: %s", refuse.ProcessState.ExitCode(), out)
	}

	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--log", "json")
	cmd.Env = env
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stderr)
	base := ""
	var logged strings.Builder
	deadline := time.After(60 * time.Second)
	found := make(chan string, 1)
	go func() {
		for lines.Scan() {
			l := lines.Text()
			logged.WriteString(l + "\n")
			if u, ok := strings.CutPrefix(l, "foley: serving on "); ok {
				found <- u
			}
		}
		close(found)
	}()
	select {
	case base = <-found:
	case <-deadline:
		t.Fatal("foley serve did not start")
	}
	if base == "" {
		t.Fatalf("foley serve exited: %s", logged.String())
	}
	get := func(path string, token bool) (int, []byte) {
		req, _ := http.NewRequest("GET", base+path, nil)
		if token {
			req.Header.Set("Authorization", "Bearer tok")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, b
	}
	if code, b := get("/v1/health", false); code != 200 || !strings.Contains(string(b), `"status":"ok"`) {
		t.Errorf("health: %d %s", code, b)
	}
	if code, _ := get("/v1/search?q=door+slam", false); code != 401 {
		t.Errorf("search without the token: %d", code)
	}
	code, b := get("/v1/search?q=door+slam&k=1", true)
	var search struct {
		Results []struct {
			Sound struct{ ID string } `json:"sound"`
		} `json:"results"`
	}
	if code != 200 || json.Unmarshal(b, &search) != nil || len(search.Results) != 1 || search.Results[0].Sound.ID != "demo-door-slam-wood" {
		t.Fatalf("search: %d %s", code, b)
	}
	if code, b := get("/v1/sounds/demo-door-slam-wood/audio", true); code != 200 || string(b[:4]) != "RIFF" {
		t.Errorf("audio: %d", code)
	}
	req, _ := http.NewRequest("POST", base+"/v1/find", strings.NewReader(`{"events": [{"query": "a heavy wooden door slams shut"}]}`))
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("find: %v %v", err, res)
	}
	res.Body.Close()

	// SIGTERM: a clean exit.
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("foley serve after SIGTERM: %v\n%s", err, logged.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("foley serve did not stop on SIGTERM")
	}
	if !strings.Contains(logged.String(), `"msg":"request"`) || !strings.Contains(logged.String(), `"msg":"stopped"`) {
		t.Errorf("log lines missing:\n%s", logged.String())
	}
}
