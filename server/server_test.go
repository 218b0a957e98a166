package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/demo"
	"github.com/foley-audio/foley/embed"
	"github.com/foley-audio/foley/refine"
	"github.com/foley-audio/foley/server"
	"github.com/foley-audio/foley/sqlite"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

var (
	demoOnce sync.Once
	demoPath string
	demoErr  error
)

// service opens the demo library (built once per test run) behind a
// Service with the deterministic judges and the synonyms refiner.
func service(t *testing.T) *server.Service { return serviceB(t) }

func serviceB(t testing.TB) *server.Service {
	t.Helper()
	demoOnce.Do(func() {
		dir, err := filepathTemp()
		if err != nil {
			demoErr = err
			return
		}
		demoPath, demoErr = demo.Ensure(context.Background(), dir)
	})
	if demoErr != nil {
		t.Fatal(demoErr)
	}
	lib, err := sqlite.Open(context.Background(), demoPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return &server.Service{Lib: lib, Emb: embed.NewHash(0), Refiner: refine.Default(), Version: "test"}
}

var tempRoot string

func filepathTemp() (string, error) {
	return filepath.Join(tempRoot, "demo"), nil
}

func TestMain(m *testing.M) {
	dir, err := mkdtemp()
	if err != nil {
		panic(err)
	}
	tempRoot = dir
	code := m.Run()
	rmrf(dir)
	exit(code)
}

type client struct {
	t     *testing.T
	h     http.Handler
	token string
}

func (c client) do(method, path, body string, hdr ...string) (*http.Response, []byte) {
	c.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, r)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	c.h.ServeHTTP(w, req)
	res := w.Result()
	b, _ := io.ReadAll(res.Body)
	return res, b
}

// wantError checks an error answer: its status, and a message naming want.
func wantError(t *testing.T, res *http.Response, body []byte, status int, want string) {
	t.Helper()
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if res.StatusCode != status || json.Unmarshal(body, &e) != nil || e.Error.Code == "" || !strings.Contains(e.Error.Message, want) {
		t.Errorf("status %d body %s; want %d with a message naming %q", res.StatusCode, body, status, want)
	}
}

func TestRoutes(t *testing.T) {
	svc := service(t)
	var logs bytes.Buffer
	c := client{t: t, h: server.Handler(svc, server.Config{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})}

	res, body := c.do("GET", "/v1/health", "")
	if res.StatusCode != 200 || !strings.Contains(string(body), `"sounds":34`) {
		t.Errorf("health: %d %s", res.StatusCode, body)
	}
	res, body = c.do("GET", "/v1/search?q=door+slam&k=3&commercial=true", "")
	var search struct{ Results []foley.Candidate }
	if res.StatusCode != 200 || json.Unmarshal(body, &search) != nil || len(search.Results) != 3 || search.Results[0].Sound.ID != "demo-door-slam-wood" {
		t.Errorf("search: %d %s", res.StatusCode, body)
	}
	if !strings.Contains(logs.String(), `"path":"/v1/search"`) || !strings.Contains(logs.String(), `"status":200`) {
		t.Errorf("no request log line: %s", logs.String())
	}
	res, body = c.do("GET", "/v1/sounds/demo-door-knock", "")
	if res.StatusCode != 200 || !strings.Contains(string(body), `"caption"`) {
		t.Errorf("sound: %d %s", res.StatusCode, body)
	}
	res, body = c.do("GET", "/v1/sounds/nope", "")
	wantError(t, res, body, 404, "nope")

	// Verify library ids: the gate and the ladder run here.
	res, body = c.do("POST", "/v1/verify", `{"event": {"query": "a heavy wooden door slams shut"}, "ids": ["demo-door-slam-wood", "demo-door-slam-metal", "demo-door-knock"]}`)
	var vr server.VerifyResponse
	if res.StatusCode != 200 || json.Unmarshal(body, &vr) != nil || len(vr.Rows) != 3 {
		t.Fatalf("verify: %d %s", res.StatusCode, body)
	}
	if r := vr.Rows[0]; !r.LicenseOK || r.Verdict == nil || !r.Verdict.Match || r.Verdict.Judge != "string-overlap" {
		t.Errorf("slam row %+v", r)
	}
	if r := vr.Rows[1]; r.LicenseOK || r.Verdict != nil || !strings.Contains(r.LicenseReason, "commercial") {
		t.Errorf("non-commercial row %+v", r)
	}
	if r := vr.Rows[2]; r.Verdict == nil || r.Verdict.Match || r.Verdict.Level != foley.LevelClap {
		t.Errorf("knock row %+v (want the clap gate's no)", r)
	}
	// Candidates given inline; license_ok from the caller is not trusted.
	res, body = c.do("POST", "/v1/verify", `{"event": {"query": "door"}, "level": "clap", "use": "none", "candidates": [{"sound": {"id": "x", "uri": "", "caption": "c", "tags": [], "license": {"license_id": "CC-BY-NC-4.0"}}, "origin": "retrieved", "clap_score": 0.9, "license_ok": true}]}`)
	if res.StatusCode != 200 || !strings.Contains(string(body), `"license_ok":false`) {
		t.Errorf("inline candidate: %d %s", res.StatusCode, body)
	}

	res, body = c.do("POST", "/v1/find", `{"events": [{"query": "a heavy wooden door slams shut"}, {"query": "a whale sings"}], "options": {"max_refine": 1}}`)
	var fr server.FindResponse
	if res.StatusCode != 200 || json.Unmarshal(body, &fr) != nil || len(fr.Results) != 2 {
		t.Fatalf("find: %d %s", res.StatusCode, body)
	}
	if fr.Results[0].Chosen == nil || fr.Results[0].Chosen.Sound.ID != "demo-door-slam-wood" || fr.Results[1].Chosen != nil || len(fr.Credits) != 1 {
		t.Errorf("find results %+v %+v credits %+v", fr.Results[0].Chosen, fr.Results[1].Chosen, fr.Credits)
	}

	res, body = c.do("GET", "/v1/openapi.json", "")
	var spec struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if res.StatusCode != 200 || json.Unmarshal(body, &spec) != nil || spec.OpenAPI != "3.1.0" {
		t.Fatalf("openapi: %d", res.StatusCode)
	}
	for path, method := range map[string]string{"/v1/health": "get", "/v1/search": "get", "/v1/verify": "post", "/v1/find": "post",
		"/v1/sounds/{id}": "get", "/v1/sounds/{id}/audio": "get", "/v1/openapi.json": "get"} {
		if _, ok := spec.Paths[path][method]; !ok {
			t.Errorf("openapi.json does not describe %s %s", method, path)
		}
	}
	res, body = c.do("GET", "/v2/nothing", "")
	wantError(t, res, body, 404, "no route")
}

func TestAudio(t *testing.T) {
	c := client{t: t, h: server.Handler(service(t), server.Config{})}
	res, body := c.do("GET", "/v1/sounds/demo-clock-tick/audio", "")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "audio/wav" || string(body[:4]) != "RIFF" || res.Header.Get("Accept-Ranges") != "bytes" {
		t.Fatalf("audio: %d %v", res.StatusCode, res.Header)
	}
	res, part := c.do("GET", "/v1/sounds/demo-clock-tick/audio", "", "Range", "bytes=4-11")
	if res.StatusCode != 206 || !bytes.Equal(part, body[4:12]) || res.Header.Get("Content-Range") != "bytes 4-11/"+itoa(len(body)) {
		t.Errorf("range: %d %q %v", res.StatusCode, part, res.Header)
	}
	res, _ = c.do("GET", "/v1/sounds/demo-clock-tick/audio", "", "Range", "bytes=99999999-")
	if res.StatusCode != 416 {
		t.Errorf("unsatisfiable range: %d", res.StatusCode)
	}
	// Ids are not paths.
	res, body = c.do("GET", "/v1/sounds/..%2f..%2fetc%2fpasswd/audio", "")
	if res.StatusCode != 404 {
		t.Errorf("a path as an id: %d %s", res.StatusCode, body)
	}
}

func TestBadInput(t *testing.T) {
	c := client{t: t, h: server.Handler(service(t), server.Config{MaxBody: 2048})}
	for _, tc := range []struct {
		method, path, body string
		status             int
		want               string
	}{
		{"GET", "/v1/search", "", 400, "q"},
		{"GET", "/v1/search?q=door&k=zero", "", 400, "k"},
		{"GET", "/v1/search?q=door&k=5000", "", 400, "k"},
		{"GET", "/v1/search?q=door&min_duration=x", "", 400, "min_duration"},
		{"GET", "/v1/search?q=door&commercial=maybe", "", 400, "commercial"},
		{"POST", "/v1/verify", "", 400, "empty"},
		{"POST", "/v1/verify", "{", 400, "JSON"},
		{"POST", "/v1/verify", `{"event": {"query": "x"}, "ids": ["a"], "colour": 1}`, 400, "colour"},
		{"POST", "/v1/verify", `{"event": {"query": ""}, "ids": ["a"]}`, 400, "event.query"},
		{"POST", "/v1/verify", `{"event": {"query": "x"}}`, 400, "candidates"},
		{"POST", "/v1/verify", `{"event": {"query": "x"}, "ids": ["a"], "level": "loud"}`, 400, "level"},
		{"POST", "/v1/verify", `{"event": {"query": "x"}, "ids": ["a"], "tau_clap": 7}`, 400, "tau_clap"},
		{"POST", "/v1/verify", `{"event": {"query": "x"}, "ids": ["a"], "use": "sell"}`, 400, "use"},
		{"POST", "/v1/verify", `{"event": {"query": "x", "layer": "loud"}, "ids": ["a"]}`, 400, "layer"},
		{"POST", "/v1/verify", `{"event": {"query": "x"}, "ids": ["no-such-sound"]}`, 404, "no-such-sound"},
		{"POST", "/v1/verify", `{"event": {"query": "x"}, "ids": ["` + strings.Repeat("a", 3000) + `"]}`, 413, "2048"},
		{"POST", "/v1/find", `{"events": []}`, 400, "events"},
		{"POST", "/v1/find", `{"events": [{"query": "x"}], "options": {"max_refine": -1}}`, 400, "max_refine"},
		{"POST", "/v1/find", `{"events": [{"query": 5}]}`, 400, "query"},
	} {
		res, body := c.do(tc.method, tc.path, tc.body)
		wantError(t, res, body, tc.status, tc.want)
	}
	req := httptest.NewRequest("POST", "/v1/verify", strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "text/plain")
	w := httptest.NewRecorder()
	c.h.ServeHTTP(w, req)
	if w.Code != 415 {
		t.Errorf("text/plain body: %d", w.Code)
	}
}

func TestAuth(t *testing.T) {
	svc := service(t)
	h := server.Handler(svc, server.Config{Token: "s3cret"})
	anon := client{t: t, h: h}
	if res, _ := anon.do("GET", "/v1/health", ""); res.StatusCode != 200 {
		t.Errorf("health needs no token: %d", res.StatusCode)
	}
	for _, p := range []string{"/v1/search?q=door", "/v1/sounds/demo-door-knock", "/v1/sounds/demo-door-knock/audio"} {
		res, body := anon.do("GET", p, "")
		wantError(t, res, body, 401, "bearer token")
		if res.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: no WWW-Authenticate", p)
		}
	}
	res, body := client{t: t, h: h, token: "wrong"}.do("POST", "/v1/verify", `{}`)
	wantError(t, res, body, 401, "bearer token")
	if res, _ := (client{t: t, h: h, token: "s3cret"}).do("GET", "/v1/search?q=door", ""); res.StatusCode != 200 {
		t.Errorf("with the token: %d", res.StatusCode)
	}
	for addr, loop := range map[string]bool{"127.0.0.1:8080": true, "localhost:0": true, "[::1]:80": true, "0.0.0.0:8080": false, ":8080": false, "10.0.0.2:80": false} {
		if server.IsLoopback(addr) != loop {
			t.Errorf("IsLoopback(%s) = %v", addr, !loop)
		}
	}
}

// slowJudge blocks until released, or fails, or panics.
type slowJudge struct {
	entered chan struct{}
	release chan struct{}
	fail    error
}

func (slowJudge) Name() string { return "slow" }
func (j slowJudge) Judge(ctx context.Context, _ foley.SoundEvent, _ foley.Candidate, level foley.VerifyLevel) (foley.Verdict, error) {
	if j.entered != nil {
		j.entered <- struct{}{}
	}
	if j.release != nil {
		<-j.release
	}
	if j.fail != nil {
		return foley.Verdict{}, j.fail
	}
	return foley.Verdict{Match: true, Confidence: 1, Reason: "ok", Level: level, Judge: "slow"}, nil
}

func TestServiceErrors(t *testing.T) {
	svc := service(t)
	// A judge service that is down: 503.
	svc.Judges = map[foley.VerifyLevel]foley.Judge{foley.LevelListen: slowJudge{fail: foley.Errorf(foley.Unavailable, "audio LM at http://gpu:8000/v1: connection refused")}}
	c := client{t: t, h: server.Handler(svc, server.Config{MaxInFlight: 1})}
	res, body := c.do("POST", "/v1/verify", `{"event": {"query": "a heavy wooden door slams shut"}, "ids": ["demo-door-slam-wood"]}`)
	wantError(t, res, body, 503, "connection refused")
	if res.Header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}

	// One verify in flight at a time: the second gets 429.
	release, entered := make(chan struct{}), make(chan struct{}, 1)
	svc.Judges[foley.LevelListen] = slowJudge{entered: entered, release: release}
	done := make(chan int)
	go func() {
		res, _ := c.do("POST", "/v1/verify", `{"event": {"query": "a heavy wooden door slams shut"}, "ids": ["demo-door-slam-wood"]}`)
		done <- res.StatusCode
	}()
	<-entered // the first request holds the only slot
	res, body = c.do("POST", "/v1/find", `{"events": [{"query": "x"}]}`)
	if status := res.StatusCode; status != 429 || res.Header.Get("Retry-After") == "" {
		t.Errorf("second request while one is in flight: %d %.300s", status, body)
	}
	close(release)
	if s := <-done; s != 200 {
		t.Errorf("the first request: %d", s)
	}

	// A library that cannot be read: 500 with no internals; health 503.
	svc.Lib.Close()
	res, body = c.do("GET", "/v1/search?q=door", "")
	wantError(t, res, body, 500, "internal error")
	if strings.Contains(string(body), "sql") {
		t.Errorf("a 500 shows internals: %s", body)
	}
	res, _ = c.do("GET", "/v1/health", "")
	if res.StatusCode != 503 {
		t.Errorf("health of a closed library: %d", res.StatusCode)
	}
}

func TestTraceContinuesTheCallers(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prevTP, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	t.Cleanup(func() { otel.SetTracerProvider(prevTP); otel.SetTextMapPropagator(prevProp) })

	c := client{t: t, h: server.Handler(service(t), server.Config{})}
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	res, _ := c.do("POST", "/v1/verify", `{"event": {"query": "a heavy wooden door slams shut"}, "ids": ["demo-door-slam-wood"]}`,
		"traceparent", "00-"+traceID+"-00f067aa0ba902b7-01")
	if res.StatusCode != 200 {
		t.Fatal(res.StatusCode)
	}
	names := map[string]bool{}
	for _, s := range rec.Ended() {
		names[s.Name()] = true
		if s.SpanContext().TraceID().String() != traceID {
			t.Errorf("span %s is in trace %s, not the caller's", s.Name(), s.SpanContext().TraceID())
		}
	}
	if !names["POST /v1/verify"] || !names["verify_match"] {
		t.Errorf("spans %v", names)
	}
}

// TestMCP drives the MCP tools with an MCP client over in-memory
// transports.
func TestMCP(t *testing.T) {
	ctx := context.Background()
	srv := server.NewMCPServer(service(t))
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cl := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := cl.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, tool := range tools.Tools {
		got[tool.Name] = tool.InputSchema != nil
	}
	for _, name := range []string{"search_sounds", "verify_match", "find_sounds", "get_sound"} {
		if !got[name] {
			t.Errorf("tool %s missing or without an input schema", name)
		}
	}
	call := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var text strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		return text.String(), res.IsError
	}
	if out, isErr := call("search_sounds", map[string]any{"query": "door slam", "k": 2}); isErr || !strings.Contains(out, "demo-door-slam-wood") {
		t.Errorf("search_sounds: %v %s", isErr, out)
	}
	if out, isErr := call("get_sound", map[string]any{"id": "demo-church-bell"}); isErr || !strings.Contains(out, "CC-BY-4.0") {
		t.Errorf("get_sound: %v %s", isErr, out)
	}
	if out, isErr := call("verify_match", map[string]any{"event": map[string]any{"query": "a heavy wooden door slams shut", "layer": "sfx"}, "ids": []string{"demo-door-slam-wood"}}); isErr || !strings.Contains(out, `"judge":"string-overlap"`) {
		t.Errorf("verify_match: %v %s", isErr, out)
	}
	if out, isErr := call("find_sounds", map[string]any{"events": []map[string]any{{"query": "a heavy wooden door slams shut"}}}); isErr || !strings.Contains(out, `"action":"use"`) {
		t.Errorf("find_sounds: %v %s", isErr, out)
	}
	// A tool error is an error result that says what was wrong.
	if out, isErr := call("get_sound", map[string]any{"id": "nope"}); !isErr || !strings.Contains(out, "nope") {
		t.Errorf("get_sound of a missing id: %v %s", isErr, out)
	}
	if out, isErr := call("verify_match", map[string]any{"event": map[string]any{"query": "x", "layer": "loud"}, "ids": []string{"demo-door-knock"}}); !isErr || !strings.Contains(out, "layer") {
		t.Errorf("verify_match with a bad layer: %v %s", isErr, out)
	}
}

// TestMCPOverHTTP reaches the same tools at /mcp, behind the token.
func TestMCPOverHTTP(t *testing.T) {
	svc := service(t)
	h := server.Handler(svc, server.Config{Token: "tok", MCP: server.MCPHandler(server.NewMCPServer(svc))})
	ts := httptest.NewServer(h)
	defer ts.Close()
	ctx := context.Background()
	cl := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	bearer := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		r.Header.Set("Authorization", "Bearer tok")
		return http.DefaultTransport.RoundTrip(r)
	})}
	cs, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: bearer}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_sounds", Arguments: map[string]any{"query": "rain"}})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	if _, err := mcp.NewClient(&mcp.Implementation{Name: "anon", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, nil); err == nil {
		t.Error("an MCP client without the token connected")
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
