// Command foley finds the right sound effect for a wanted sound event and
// proves that it is the right one.
//
// Results go to stdout (a table, or JSON with --json), diagnostics to
// stderr. Exit status: 0 on success, 2 on bad input, 1 on any other failure.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/obs"
	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// streams are the command's standard files.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// run executes the command line args and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	shutdown, err := obs.Setup(ctx, version)
	if err != nil {
		fmt.Fprintf(stderr, "foley: tracing: %v\n", err)
		return 1
	}
	defer func() {
		// Flush the spans of this run; a collector that is down costs at
		// most a few seconds and is reported, not fatal.
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := shutdown(sctx); err != nil {
			fmt.Fprintf(stderr, "foley: tracing: exporting spans: %v\n", err)
		}
	}()
	root := newRoot(streams{stdin, stdout, stderr})
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err = root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "foley: %v\n", err)
	var fe *foley.Error
	if !errors.As(err, &fe) {
		// cobra's own errors: an unknown command, flag or argument.
		fmt.Fprintln(stderr, "Run 'foley --help' for usage.")
		return 2
	}
	return exitCode(err)
}

// exitCode maps an error to the exit status: 2 for bad input, 1 otherwise.
func exitCode(err error) int {
	switch foley.CodeOf(err) {
	case "":
		return 0
	case foley.Invalid:
		return 2
	default:
		return 1
	}
}

func newRoot(s streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "foley",
		Short: "Find the right sound effect for a wanted sound event, and prove it is the right one",
		Long: `foley searches a sound library for a wanted sound event, drops every clip
whose licence does not allow the intended use (fail-closed), and verifies the
survivors up a ladder of checks, cheapest first:

  clap    the retrieval cosine must clear a threshold (free, no model)
  listen  an audio language model hears the clip
  judge   an LLM arbitrates ties and scene consistency

Every verdict says which judge produced it.`,
		Example: `  foley find "a heavy wooden door slams shut"
  foley verify "a heavy wooden door slams shut" --candidates examples/shortlist.json
  foley licenses https://creativecommons.org/licenses/by-nc/4.0/`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return foley.Errorf(foley.Invalid, "%s: %w (see 'foley %s --help')", c.Name(), err, c.Name())
	})
	root.AddCommand(newVerifyCmd(s), newLicensesCmd(s), newProbeCmd(s), newIndexCmd(s), newSearchCmd(s), newShowCmd(s), newStatsCmd(s), newJudgesCmd(s), newEvalCmd(s), newFindCmd(s), newCreditsCmd(s), newServeCmd(s), newMCPCmd(s), newMigrateCmd(s))
	return root
}

// usageError is bad input on the command line.
func usageError(format string, args ...any) error {
	return foley.Errorf(foley.Invalid, format, args...)
}

// runE adapts a command body so that every error it returns carries a code:
// errors without one are Internal (exit 1), leaving the uncoded errors of
// run to cobra's own usage errors (exit 2).
func runE(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := fn(cmd, args)
		var fe *foley.Error
		if err != nil && !errors.As(err, &fe) {
			return foley.WrapError(foley.Internal, err)
		}
		return err
	}
}

// version is foley's version: the module version when installed with go
// install, else "devel" (with the VCS revision when the build recorded it).
var version = func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "devel-" + s.Value[:12]
		}
	}
	return "devel"
}()
