package server

import (
	"context"
	"crypto/subtle"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/obs"
	"github.com/foley-audio/foley/verify"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Config configures the HTTP API.
type Config struct {
	// Token, when set, is the bearer token every route but /v1/health
	// requires.
	Token string
	// MaxBody bounds a request body (default 1 MiB).
	MaxBody int64
	// MaxInFlight bounds the verify and find requests served at once;
	// more are refused with 429 (default 16).
	MaxInFlight int
	// Logger logs a line per request (default: discard).
	Logger *slog.Logger
	// MCP, when not nil, is served at /mcp.
	MCP http.Handler
}

//go:embed openapi.json
var openAPI []byte

// OpenAPI returns the OpenAPI 3.1 description of the API.
func OpenAPI() []byte { return openAPI }

// Handler returns the HTTP API over svc.
func Handler(svc *Service, cfg Config) http.Handler {
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 1 << 20
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = 16
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	h := &handler{svc: svc, cfg: cfg, slots: make(chan struct{}, cfg.MaxInFlight)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/health", h.health)
	mux.HandleFunc("GET /v1/openapi.json", h.openapi)
	mux.HandleFunc("GET /v1/search", h.auth(h.search))
	mux.HandleFunc("POST /v1/verify", h.auth(h.limited(post(h, svc.Verify))))
	mux.HandleFunc("POST /v1/find", h.auth(h.limited(post(h, svc.Find))))
	mux.HandleFunc("GET /v1/sounds/{id}", h.auth(h.sound))
	mux.HandleFunc("GET /v1/sounds/{id}/audio", h.auth(h.audio))
	if cfg.MCP != nil {
		mux.Handle("/mcp", h.auth(cfg.MCP.ServeHTTP))
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, http.StatusNotFound, "not_found", fmt.Sprintf("no route %s %s (see GET /v1/openapi.json)", r.Method, r.URL.Path))
	})
	return h.wrap(mux)
}

type handler struct {
	svc   *Service
	cfg   Config
	slots chan struct{}
}

// statusWriter records the status and size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// wrap adds, around every route: the caller's trace (W3C traceparent) and
// a server span, panic recovery (a 500 that shows no internals), and a log
// line.
func (h *handler) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := obs.Tracer().Start(ctx, r.Method+" "+routeOf(r.URL.Path), trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("http.request.method", r.Method), attribute.String("url.path", r.URL.Path)))
		defer span.End()
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				h.cfg.Logger.Error("panic", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(p))
				if sw.status == 0 {
					writeError(sw, r, http.StatusInternalServerError, "internal", "internal error")
				}
			}
			span.SetAttributes(attribute.Int("http.response.status_code", sw.status))
			if sw.status >= 500 {
				span.SetStatus(codes.Error, http.StatusText(sw.status))
			}
			attrs := []any{"method", r.Method, "path", r.URL.Path, "status", sw.status, "bytes", sw.bytes,
				"duration_ms", float64(time.Since(start).Microseconds()) / 1000, "remote", r.RemoteAddr}
			if sc := span.SpanContext(); sc.IsValid() {
				attrs = append(attrs, "trace_id", sc.TraceID().String())
			}
			h.cfg.Logger.Info("request", attrs...)
		}()
		next.ServeHTTP(sw, r.WithContext(ctx))
	})
}

// routeOf names the route of a path for span names, without ids.
func routeOf(p string) string {
	if rest, ok := strings.CutPrefix(p, "/v1/sounds/"); ok {
		if strings.HasSuffix(rest, "/audio") {
			return "/v1/sounds/{id}/audio"
		}
		return "/v1/sounds/{id}"
	}
	return p
}

// auth requires the bearer token, when one is configured.
func (h *handler) auth(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if h.cfg.Token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(h.cfg.Token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="foley"`)
				writeError(w, r, http.StatusUnauthorized, "unauthorized", "a valid bearer token is required (Authorization: Bearer $FOLEY_API_TOKEN)")
				return
			}
		}
		next(w, r)
	}
}

// limited refuses, with 429, more than MaxInFlight expensive requests at
// once.
func (h *handler) limited(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		select {
		case h.slots <- struct{}{}:
			defer func() { <-h.slots }()
			next(w, r)
		default:
			w.Header().Set("Retry-After", "1")
			writeError(w, r, http.StatusTooManyRequests, "rate_limited", fmt.Sprintf("%d verify and find requests are already running; retry later", cap(h.slots)))
		}
	}
}

// errorBody is every error answer.
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func writeError(w http.ResponseWriter, _ *http.Request, status int, code, msg string) {
	var b errorBody
	b.Error.Code, b.Error.Message = code, msg
	writeJSON(w, status, b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"error":{"code":"internal","message":"internal error"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// fail answers a service error with its status: invalid 400, not_found
// 404, unlicensed 409, unavailable 503; anything else 500 with no internals
// (the detail is logged).
func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	switch code := foley.CodeOf(err); {
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		return // the client went away
	case code == foley.Invalid:
		writeError(w, r, http.StatusBadRequest, string(code), err.Error())
	case code == foley.NotFound:
		writeError(w, r, http.StatusNotFound, string(code), err.Error())
	case code == foley.Unlicensed:
		writeError(w, r, http.StatusConflict, string(code), err.Error())
	case code == foley.Unavailable:
		w.Header().Set("Retry-After", "5")
		writeError(w, r, http.StatusServiceUnavailable, string(code), err.Error())
	default:
		h.cfg.Logger.Error("internal error", "method", r.Method, "path", r.URL.Path, "error", err.Error())
		writeError(w, r, http.StatusInternalServerError, "internal", "internal error")
	}
}

// decode reads a JSON body of at most MaxBody bytes into v, refusing
// unknown fields.
func (h *handler) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			writeError(w, r, http.StatusUnsupportedMediaType, "invalid", fmt.Sprintf("Content-Type %q: want application/json", ct))
			return false
		}
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, h.cfg.MaxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		var typ *json.UnmarshalTypeError
		var syn *json.SyntaxError
		switch {
		case errors.As(err, &tooBig):
			writeError(w, r, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("the request body is over %d bytes", h.cfg.MaxBody))
		case errors.As(err, &typ) && typ.Field != "":
			writeError(w, r, http.StatusBadRequest, "invalid", fmt.Sprintf("%s: got %s, want %s", typ.Field, typ.Value, typ.Type))
		case errors.As(err, &syn):
			writeError(w, r, http.StatusBadRequest, "invalid", fmt.Sprintf("the body is not valid JSON at byte %d: %v", syn.Offset, err))
		case errors.Is(err, io.EOF):
			writeError(w, r, http.StatusBadRequest, "invalid", "the body is empty; want a JSON object")
		case errors.Is(err, io.ErrUnexpectedEOF):
			writeError(w, r, http.StatusBadRequest, "invalid", "the body is not valid JSON: it ends too soon")
		default:
			writeError(w, r, http.StatusBadRequest, "invalid", "the body: "+strings.TrimPrefix(err.Error(), "json: "))
		}
		return false
	}
	if dec.More() {
		writeError(w, r, http.StatusBadRequest, "invalid", "the body has data after its JSON object")
		return false
	}
	return true
}

func (h *handler) health(w http.ResponseWriter, r *http.Request) {
	n, err := h.svc.Lib.Count(r.Context())
	if err != nil {
		writeError(w, r, http.StatusServiceUnavailable, "unavailable", "the library cannot be read")
		return
	}
	model, _ := h.svc.Lib.Embedding()
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "version": h.svc.Version, "sounds": n, "embedding_model": model})
}

func (h *handler) openapi(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(openAPI)
}

func (h *handler) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := SearchRequest{Query: q.Get("q"), LicenseIDs: q["license"], UCSCategory: q.Get("ucs")}
	var err error
	num := func(name string, dst *float64) {
		if v := q.Get(name); v != "" && err == nil {
			if *dst, err = strconv.ParseFloat(v, 64); err != nil {
				err = foley.Errorf(foley.Invalid, "%s: %q is not a number", name, v)
			}
		}
	}
	if v := q.Get("k"); v != "" {
		if req.K, err = strconv.Atoi(v); err != nil || req.K < 1 {
			err = foley.Errorf(foley.Invalid, "k: %q is not a whole number >= 1", v)
		}
	}
	if v := q.Get("commercial"); v != "" && err == nil {
		if req.CommercialOnly, err = strconv.ParseBool(v); err != nil {
			err = foley.Errorf(foley.Invalid, "commercial: %q is not true or false", v)
		}
	}
	num("min_duration", &req.MinDurationS)
	num("max_duration", &req.MaxDurationS)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	res, err := h.svc.Search(r.Context(), req)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"results": res})
}

// post serves a JSON endpoint: the request body decodes into a Req, and
// call's answer is the response.
func post[Req, Resp any](h *handler, call func(context.Context, Req) (Resp, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req Req
		if !h.decode(w, r, &req) {
			return
		}
		resp, err := call(r.Context(), req)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, resp)
	}
}

func (h *handler) sound(w http.ResponseWriter, r *http.Request) {
	rec, err := h.svc.Sound(r.Context(), r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rec)
}

var audioTypes = map[string]string{"wav": "audio/wav", "flac": "audio/flac", "mp3": "audio/mpeg", "ogg": "audio/ogg"}

// audio streams a library clip, with Range support. The file is the one
// the library's record names: no part of the request is a path.
func (h *handler) audio(w http.ResponseWriter, r *http.Request) {
	rec, err := h.svc.Sound(r.Context(), r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	path, ok := verify.LocalPath(rec.URI)
	if !ok || !filepath.IsAbs(path) {
		writeError(w, r, http.StatusNotFound, "not_found", fmt.Sprintf("sound %q has no local file to stream (uri %q)", rec.ID, rec.URI))
		return
	}
	f, err := os.Open(path)
	if err != nil {
		writeError(w, r, http.StatusNotFound, "not_found", fmt.Sprintf("the file of sound %q is gone; re-index the library", rec.ID))
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		writeError(w, r, http.StatusNotFound, "not_found", fmt.Sprintf("the file of sound %q is not a regular file", rec.ID))
		return
	}
	ct := audioTypes[strings.ToLower(rec.Format)]
	if ct == "" {
		ct = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Disposition", mime.FormatMediaType("inline", map[string]string{"filename": rec.ID + filepath.Ext(path)}))
	http.ServeContent(w, r, "", st.ModTime(), f)
}

// IsLoopback reports whether addr (host:port) listens only on a loopback
// interface.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
