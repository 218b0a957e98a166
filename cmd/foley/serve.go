package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/demo"
	"github.com/foley-audio/foley/elevenlabs"
	"github.com/foley-audio/foley/find"
	"github.com/foley-audio/foley/refine"
	"github.com/foley-audio/foley/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// EnvAPIToken is the bearer token foley serve requires when set.
const EnvAPIToken = "FOLEY_API_TOKEN"

// buildService opens the library (the demo one when none is named) and
// wires the judges, refiner and generator the environment configures, as
// foley find does. The returned function releases them.
func buildService(ctx context.Context, s streams, lib libraryFlags, ratePerSec float64, noCache bool) (*server.Service, func(), error) {
	var closers []func()
	cleanup := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	if lib.path == "" && os.Getenv(EnvLibrary) == "" {
		dir, err := demo.DefaultDir()
		if err != nil {
			return nil, cleanup, foley.Errorf(foley.Internal, "no --library, and no cache directory for the demo library: %v", err)
		}
		path, err := demo.Ensure(ctx, dir)
		if err != nil {
			return nil, cleanup, err
		}
		lib.path = path
		fmt.Fprintf(s.err, "foley: serving the demo library at %s; pass --library for your own\n", path)
	}
	lib.existing = true
	l, err := lib.open(ctx)
	if err != nil {
		return nil, cleanup, err
	}
	closers = append(closers, func() { l.Close() })
	emb, err := queryEmbedder(ctx, l)
	if err != nil {
		return nil, cleanup, err
	}
	svc := &server.Service{Lib: l, Emb: emb, Judges: map[foley.VerifyLevel]foley.Judge{}, Version: version}
	for _, level := range []foley.VerifyLevel{foley.LevelListen, foley.LevelJudge} {
		j, closeCache, err := verifyJudge(ctx, s, level, ratePerSec, 8, noCache, libraryFlags{path: l.Location()})
		if err != nil {
			return nil, cleanup, err
		}
		closers = append(closers, closeCache)
		svc.Judges[level] = j
	}
	llm, err := refine.FromEnv()
	if err != nil {
		return nil, cleanup, err
	}
	svc.Refiner = refine.Default()
	if llm != nil {
		svc.Refiner = llm
	}
	gen, err := elevenlabs.FromEnv()
	if err != nil {
		return nil, cleanup, err
	}
	if gen != nil {
		svc.Generator = gen
		svc.Store = find.LibraryStore{Lib: l, Emb: emb, Dir: generatedDir(l)}
	}
	return svc, cleanup, nil
}

func newServeCmd(s streams) *cobra.Command {
	var (
		addr        string
		lib         libraryFlags
		maxBody     int64
		maxInFlight int
		ratePerSec  float64
		noCache     bool
		readTO      time.Duration
		writeTO     time.Duration
		idleTO      time.Duration
		logFormat   string
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the HTTP API (and MCP at /mcp) over the library",
		Long: `serve exposes search, verify, find and the library as a JSON HTTP API, and the
same functions as Model Context Protocol tools at /mcp (streamable HTTP):

  GET  /v1/health                 liveness and the library's size (no token)
  GET  /v1/search?q=&k=&license=  hybrid search
  POST /v1/verify                 gate and verify candidates or library ids
  POST /v1/find                   the whole loop for a list of events
  GET  /v1/sounds/{id}            a record
  GET  /v1/sounds/{id}/audio      the clip, with Range support
  GET  /v1/openapi.json           the OpenAPI 3.1 description

With FOLEY_API_TOKEN set, every route but health and openapi.json needs
"Authorization: Bearer TOKEN"; without one, serve refuses to listen on
anything but a loopback address. Errors are {"error": {"code", "message"}}.
Requests are logged to stderr (slog); traces continue the caller's W3C
traceparent. SIGINT or SIGTERM lets in-flight requests finish, then exits.`,
		Example: `  foley serve
  FOLEY_API_TOKEN=s3cret foley serve --addr 0.0.0.0:8080 --library sfx.db
  curl 'http://127.0.0.1:8080/v1/search?q=door+slam&k=5'`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			token := os.Getenv(EnvAPIToken)
			if _, _, err := net.SplitHostPort(addr); err != nil {
				return usageError("--addr %q: want host:port, e.g. 127.0.0.1:8080", addr)
			}
			if token == "" && !server.IsLoopback(addr) {
				return usageError("--addr %s is not a loopback address and %s is not set: refusing to serve without a token", addr, EnvAPIToken)
			}
			if maxBody < 1024 || maxInFlight < 1 || readTO <= 0 || writeTO <= 0 || idleTO <= 0 {
				return usageError("--max-body must be >= 1024, --max-in-flight >= 1, and the timeouts positive")
			}
			var logger *slog.Logger
			switch logFormat {
			case "json":
				logger = slog.New(slog.NewJSONHandler(s.err, nil))
			case "text":
				logger = slog.New(slog.NewTextHandler(s.err, nil))
			default:
				return usageError("--log must be json or text, got %q", logFormat)
			}
			svc, cleanup, err := buildService(ctx, s, lib, ratePerSec, noCache)
			defer cleanup()
			if err != nil {
				return err
			}
			h := server.Handler(svc, server.Config{Token: token, MaxBody: maxBody, MaxInFlight: maxInFlight, Logger: logger,
				MCP: server.MCPHandler(server.NewMCPServer(svc))})
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return foley.Errorf(foley.Unavailable, "serve: %v", err)
			}
			srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: readTO, WriteTimeout: writeTO, IdleTimeout: idleTO,
				ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
			logger.Info("listening", "addr", "http://"+ln.Addr().String(), "library", svc.Lib.Location(), "token", token != "")
			fmt.Fprintf(s.err, "foley: serving on http://%s\n", ln.Addr())
			done := make(chan error, 1)
			go func() { done <- srv.Serve(ln) }()
			select {
			case err := <-done:
				return foley.Errorf(foley.Unavailable, "serve: %v", err)
			case <-ctx.Done():
			}
			logger.Info("shutting down: letting in-flight requests finish")
			sctx, cancel := context.WithTimeout(context.Background(), writeTO)
			defer cancel()
			if err := srv.Shutdown(sctx); err != nil {
				return foley.Errorf(foley.Internal, "serve: shutting down: %v", err)
			}
			if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
				return foley.Errorf(foley.Internal, "serve: %v", err)
			}
			logger.Info("stopped")
			return nil
		}),
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8080", "the address to listen on, host:port (port 0 picks a free one)")
	addLibraryFlags(cmd, &lib, true)
	cmd.Flags().Lookup("library").Usage = "the library to serve (default: $" + EnvLibrary + ", else the demo library)"
	f.Int64Var(&maxBody, "max-body", 1<<20, "the largest request body accepted, in bytes")
	f.IntVar(&maxInFlight, "max-in-flight", 16, "verify and find requests served at once; more get 429")
	f.Float64Var(&ratePerSec, "rate", 0, "at most this many calls per second to each model server (0: no limit)")
	f.BoolVar(&noCache, "no-cache", false, "neither read nor write the verdict cache")
	f.DurationVar(&readTO, "read-timeout", 30*time.Second, "how long a request may take to arrive")
	f.DurationVar(&writeTO, "write-timeout", 5*time.Minute, "how long a response may take (a find with model judges can be slow)")
	f.DurationVar(&idleTO, "idle-timeout", 2*time.Minute, "how long an idle keep-alive connection is kept")
	f.StringVar(&logFormat, "log", "json", "request log format on stderr: json or text")
	return cmd
}

func newMCPCmd(s streams) *cobra.Command {
	var (
		lib        libraryFlags
		ratePerSec float64
		noCache    bool
	)
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve foley's tools over the Model Context Protocol on stdio",
		Long: `mcp serves the tools search_sounds, verify_match, find_sounds and get_sound over
the Model Context Protocol on standard input and output, for an MCP client
(an AI agent) that starts foley as a subprocess. Diagnostics go to stderr.
'foley serve' offers the same tools over streamable HTTP at /mcp.`,
		Example: `  foley mcp --library sfx.db
  # in an MCP client's configuration: {"command": "foley", "args": ["mcp"]}`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			svc, cleanup, err := buildService(ctx, s, lib, ratePerSec, noCache)
			defer cleanup()
			if err != nil {
				return err
			}
			if err := server.NewMCPServer(svc).Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
				return foley.Errorf(foley.Unavailable, "mcp: %v", err)
			}
			return nil
		}),
	}
	addLibraryFlags(cmd, &lib, true)
	cmd.Flags().Lookup("library").Usage = "the library to serve (default: $" + EnvLibrary + ", else the demo library)"
	cmd.Flags().Float64Var(&ratePerSec, "rate", 0, "at most this many calls per second to each model server (0: no limit)")
	cmd.Flags().BoolVar(&noCache, "no-cache", false, "neither read nor write the verdict cache")
	return cmd
}
