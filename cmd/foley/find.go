package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/demo"
	"github.com/foley-audio/foley/elevenlabs"
	"github.com/foley-audio/foley/find"
	"github.com/foley-audio/foley/policy"
	"github.com/foley-audio/foley/refine"
	"github.com/foley-audio/foley/verify"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// findRun is what foley find prints with --json and saves for foley
// credits.
type findRun struct {
	Library   string        `json:"library"`
	Demo      bool          `json:"demo_library,omitempty"`
	Level     string        `json:"level"`
	Judge     string        `json:"judge"`
	Refiner   string        `json:"refiner"`
	Generator string        `json:"generator"`
	Results   []find.Result `json:"results"`
	Cost      find.Cost     `json:"cost"`
}

// lastRunPath is where foley find keeps its last run for foley credits.
func lastRunPath() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "foley", "last-find.json"), nil
}

func newFindCmd(s streams) *cobra.Command {
	var (
		eventsFile   string
		lib          libraryFlags
		levelFlag    string
		k            int
		tauClap      float64
		tauRetrieve  float64
		useFlag      string
		exhaustive   bool
		maxExpensive int
		maxRefine    int
		maxGenerate  int
		noGenerate   bool
		sharedBudget bool
		asJSON       bool
		conc         int
		ratePerSec   float64
		noCache      bool
		color        string
	)
	cmd := &cobra.Command{
		Use:   "find EVENT... | --events FILE",
		Short: "Find a licensed, verified clip for each wanted sound event",
		Long: `find is foley's main job. For each event it searches the library (-k clips,
filtered for the intended use), drops every clip whose licence does not allow
that use, verifies the rest up the ladder to --level, and decides:

  use       the best verified clip reaches --tau-retrieve
  refine    search again with query variants (synonyms, broader words, the
            UCS category; an LLM refiner when ANTHROPIC_API_KEY or
            FOLEY_LLM_URL is set), fused with the original by rank
  generate  ask a sound generator (ElevenLabs, when ELEVENLABS_API_KEY is set)
            for a clip; it is stored in the library and climbs the same ladder
  drop      silence, with the reason

Verification is cost-aware: the clap rung checks every kept clip, and only the
best --max-expensive clap-passing clips (best clap score first) climb higher,
stopping at the first that reaches --tau-retrieve; --exhaustive verifies all.

With no --library and no FOLEY_LIBRARY, find uses a demo library of about 30
synthesised clips that it builds on first use in the user cache directory: no
network, no key. Each run is also saved for 'foley credits'.`,
		Example: `  foley find "a heavy wooden door slams shut"
  foley find "rain on a tin roof" "distant thunder" --level judge --json
  foley find --events scene.ndjson --library sfx.db --use commercial,publish
  foley find "a laser zap" --max-refine 0 --exhaustive`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && eventsFile == "" {
				return usageError("find: give at least one EVENT in quotes, or --events FILE (see 'foley find --help')")
			}
			return nil
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			level, err := foley.ParseVerifyLevel(levelFlag)
			if err != nil {
				return usageError("--level: %v", err)
			}
			use, err := foley.ParseIntendedUse(useFlag)
			if err != nil {
				return usageError("--use: %v", err)
			}
			switch {
			case k < 1 || k > foley.MaxK:
				return usageError("-k must be 1..%d, got %d", foley.MaxK, k)
			case maxExpensive < 1:
				return usageError("--max-expensive must be at least 1, got %d", maxExpensive)
			case maxRefine < 0 || maxGenerate < 0:
				return usageError("--max-refine and --max-generate must be >= 0")
			case conc < 1:
				return usageError("--concurrency must be at least 1, got %d", conc)
			case color != "auto" && color != "always" && color != "never":
				return usageError("--color must be auto, always or never, got %q", color)
			}
			for _, t := range []struct {
				name string
				v    float64
			}{{"--tau-clap", tauClap}, {"--tau-retrieve", tauRetrieve}} {
				if err := verify.CheckTau(t.name, t.v); err != nil {
					return err
				}
			}
			events := make([]foley.SoundEvent, 0, len(args))
			for _, a := range args {
				if strings.TrimSpace(a) == "" {
					return usageError("find: an EVENT is empty")
				}
				events = append(events, foley.NewEvent(a))
			}
			if eventsFile != "" {
				more, err := readEvents(eventsFile, s.in)
				if err != nil {
					return err
				}
				events = append(events, more...)
			}

			// The library: the one named, or the demo.
			run := findRun{Level: level.String()}
			if lib.path == "" && os.Getenv(EnvLibrary) == "" {
				dir, err := demo.DefaultDir()
				if err != nil {
					return foley.Errorf(foley.Internal, "find: no --library, and no cache directory for the demo library: %v", err)
				}
				path, err := demo.Ensure(ctx, dir)
				if err != nil {
					return err
				}
				lib.path, run.Demo = path, true
				fmt.Fprintf(s.err, "foley: using the demo library at %s (about 30 synthesised clips); index your own sounds with 'foley index DIR' and pass --library\n", path)
			}
			lib.existing = true
			l, err := lib.open(ctx)
			if err != nil {
				return err
			}
			defer l.Close()
			run.Library = l.Location()
			emb, err := queryEmbedder(ctx, l)
			if err != nil {
				return err
			}

			opts := find.Options{K: k, Level: level, TauClap: tauClap, TauRetrieve: tauRetrieve, Use: use,
				MaxExpensive: maxExpensive, Exhaustive: exhaustive, Concurrency: conc}
			budget := policy.Budget{MaxRefine: maxRefine, MaxGenerate: maxGenerate, AllowGenerate: !noGenerate, ResetPerEvent: !sharedBudget}
			opts.Budget = &budget
			run.Judge = "clap"
			if level != foley.LevelClap {
				judge, closeCache, err := verifyJudge(ctx, s, level, ratePerSec, conc, noCache, libraryFlags{path: l.Location()})
				if err != nil {
					return err
				}
				defer closeCache()
				opts.Judge = judge
				run.Judge = judge.Name()
			}
			llm, err := refine.FromEnv()
			if err != nil {
				return err
			}
			opts.Refiner = refine.Default()
			if llm != nil {
				opts.Refiner = llm
			}
			run.Refiner = opts.Refiner.Name()
			gen, err := elevenlabs.FromEnv()
			if err != nil {
				return err
			}
			run.Generator = "none (set ELEVENLABS_API_KEY)"
			if gen != nil && !noGenerate {
				opts.Generator = gen
				opts.Store = find.LibraryStore{Lib: l, Emb: emb, Dir: generatedDir(l)}
				run.Generator = gen.Name()
			}

			bar := newProgressOf(s.err, len(events), "finding", "events")
			opts.Progress = func(int, int) { bar.add(1) }
			results, err := find.Find(ctx, find.LibrarySearcher(l, emb), events, opts)
			bar.done()
			if err != nil && len(results) == 0 {
				return err
			}
			run.Results = results
			for _, r := range results {
				c := r.Cost
				run.Cost.ModelCalls += c.ModelCalls
				run.Cost.FailedCalls += c.FailedCalls
				run.Cost.InputTokens += c.InputTokens
				run.Cost.OutputTokens += c.OutputTokens
				run.Cost.Expensive += c.Expensive
				run.Cost.Cached += c.Cached
				run.Cost.Searches += c.Searches
				run.Cost.Generations += c.Generations
			}
			saveLastRun(s.err, run)
			if asJSON {
				if werr := writeJSON(s.out, run); werr != nil {
					return werr
				}
			} else {
				colors := color == "always" || color == "auto" && isTerminal(s.out) && os.Getenv("NO_COLOR") == ""
				if werr := printFind(s.out, run, colors); werr != nil {
					return werr
				}
			}
			if err != nil {
				return err
			}
			failed := 0
			for _, r := range results {
				if r.Error != "" {
					failed++
				}
			}
			if failed > 0 {
				return foley.Errorf(foley.Unavailable, "find: %d of %d events failed (see their errors)", failed, len(results))
			}
			return nil
		}),
	}
	f := cmd.Flags()
	f.StringVar(&eventsFile, "events", "", "a file of events: a JSON array of sound events or one per line (JSON Lines); - reads standard input")
	addLibraryFlags(cmd, &lib, true)
	cmd.Flags().Lookup("library").Usage = "the library to search (default: $" + EnvLibrary + ", else the demo library)"
	f.StringVar(&levelFlag, "level", "listen", "the highest rung to climb: clap, listen or judge")
	f.IntVarP(&k, "k", "k", find.DefaultK, "clips shortlisted per search")
	f.Float64Var(&tauClap, "tau-clap", verify.DefaultTauClap, "the clap rung's threshold on clap_score, 0..1")
	f.Float64Var(&tauRetrieve, "tau-retrieve", policy.DefaultTauRetrieve, "the confidence a verified clip needs to be used, 0..1")
	f.StringVar(&useFlag, "use", foley.DefaultUse().String(), "the intended use the licences must allow ("+foley.UseSyntax+")")
	f.BoolVar(&exhaustive, "exhaustive", false, "verify every clap-passing clip above clap, not only the best few")
	f.IntVar(&maxExpensive, "max-expensive", find.DefaultMaxExpensive, "clap-passing clips verified above clap per search, best clap score first")
	f.IntVar(&maxRefine, "max-refine", policy.DefaultBudget().MaxRefine, "refine loops per event")
	f.IntVar(&maxGenerate, "max-generate", policy.DefaultBudget().MaxGenerate, "generations per event")
	f.BoolVar(&noGenerate, "no-generate", false, "never generate, even with a generator configured")
	f.BoolVar(&sharedBudget, "shared-budget", false, "share the generation budget across all events instead of resetting it per event")
	f.BoolVar(&asJSON, "json", false, "print the run as JSON: {library, level, judge, refiner, generator, results, cost}")
	f.IntVar(&conc, "concurrency", verify.DefaultConcurrency, "clips verified at once with --exhaustive")
	f.Float64Var(&ratePerSec, "rate", 0, "at most this many calls per second to each model server (0: no limit)")
	f.BoolVar(&noCache, "no-cache", false, "neither read nor write the verdict cache")
	f.StringVar(&color, "color", "auto", "colour the table: auto (on a terminal, unless NO_COLOR is set), always or never")
	return cmd
}

// readEvents decodes events from a file, or from in for "-".
func readEvents(path string, in io.Reader) ([]foley.SoundEvent, error) {
	if path == "-" {
		return foley.DecodeEvents(in, "standard input")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, usageError("--events: %v", err)
	}
	defer f.Close()
	return foley.DecodeEvents(f, path)
}

// saveLastRun keeps the run for foley credits; failing to is a warning.
func saveLastRun(errw io.Writer, run findRun) {
	path, err := lastRunPath()
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o755)
	}
	if err == nil {
		var b []byte
		if b, err = json.MarshalIndent(run, "", "  "); err == nil {
			tmp := path + ".tmp"
			if err = os.WriteFile(tmp, b, 0o644); err == nil {
				err = os.Rename(tmp, path)
			}
		}
	}
	if err != nil {
		fmt.Fprintf(errw, "foley: warning: could not save this run for 'foley credits': %v\n", err)
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// paint colours text when on.
type paint bool

func (p paint) c(code, s string) string {
	if !p {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}
func (p paint) green(s string) string  { return p.c("32", s) }
func (p paint) red(s string) string    { return p.c("31", s) }
func (p paint) yellow(s string) string { return p.c("33", s) }
func (p paint) dim(s string) string    { return p.c("2", s) }
func (p paint) bold(s string) string   { return p.c("1", s) }

// printFind prints each event: the decision and its reason, the chosen
// clip, the verdict trail of every step, and the cost.
func printFind(w io.Writer, run findRun, colors bool) error {
	p := paint(colors)
	fmt.Fprintf(w, "%s  level %s, judge %s, refiner %s, generator %s\n", p.dim("library "+run.Library), run.Level, run.Judge, run.Refiner, run.Generator)
	for i, r := range run.Results {
		fmt.Fprintf(w, "\n%s %s\n", p.bold(fmt.Sprintf("%d.", i+1)), p.bold(r.Event.Query))
		action := r.Action.String()
		switch {
		case r.Error != "":
			action = p.red("error")
		case r.Action == policy.Use && r.BestEffort:
			action = p.yellow("use (best effort)")
		case r.Action == policy.Use:
			action = p.green("use")
		default:
			action = p.red(action)
		}
		if c := r.Chosen; c != nil {
			lic := c.Sound.License
			attr := "no attribution needed"
			if lic.AttributionRequired {
				attr = "attribution required: see 'foley credits'"
			}
			if lic.IsAIGenerated {
				attr += "; AI-generated by " + lic.Generator
			}
			fmt.Fprintf(w, "   %s %s  %q\n", action, c.Sound.ID, c.Sound.Caption)
			fmt.Fprintf(w, "   path     %s\n", c.Sound.URI)
			fmt.Fprintf(w, "   licence  %s (%s)\n", lic.LicenseID, attr)
			if v := c.Verdict; v != nil {
				fmt.Fprintf(w, "   verdict  %s %s %.3f: %s\n", v.Level, v.Judge, v.Confidence, v.Reason)
			}
		} else {
			fmt.Fprintf(w, "   %s\n", action)
		}
		fmt.Fprintf(w, "   why      %s\n", r.Reason)
		for _, st := range r.Steps {
			what := ""
			switch {
			case st.Generate != "":
				what = "generated with " + st.Generate
			case len(st.Queries) > 0:
				what = "searched " + quoteAll(st.Queries)
				if st.Refiner != "" {
					what += " (variants by " + st.Refiner + ")"
				}
			case st.Refiner != "":
				what = "refiner " + st.Refiner
			}
			fmt.Fprintf(w, "   %s %s -> %s\n", p.dim(fmt.Sprintf("step %d", st.Loop+1)), what, st.Decision.Action)
			for _, tr := range st.Trail {
				fmt.Fprintf(w, "     %-28s %s\n", tr.ID, trailText(p, tr))
			}
		}
		c := r.Cost
		fmt.Fprintf(w, "   %s\n", p.dim(fmt.Sprintf("cost: model calls %d (cached verdicts %d), tokens %d in / %d out, verified above clap %d, searches %d, generations %d",
			c.ModelCalls, c.Cached, c.InputTokens, c.OutputTokens, c.Expensive, c.Searches, c.Generations)))
		if r.Error != "" {
			fmt.Fprintf(w, "   %s %s\n", p.red("error"), r.Error)
		}
	}
	return nil
}

func quoteAll(qs []string) string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = fmt.Sprintf("%q", q)
	}
	return strings.Join(out, ", ")
}

// trailText is one candidate's line: its licence, then each verdict.
func trailText(p paint, tr find.Trail) string {
	if !tr.LicenseOK {
		return p.red("dropped") + " " + tr.LicenseID + ": " + tr.LicenseReason
	}
	parts := []string{tr.LicenseID}
	for _, v := range tr.Verdicts {
		m := p.red("no")
		if v.Match {
			m = p.green("yes")
		}
		who := v.Level.String()
		if v.Judge != who {
			who += " " + v.Judge
		}
		s := fmt.Sprintf("%s %.3f %s", who, v.Confidence, m)
		if v.Cached {
			s += " (cached)"
		}
		parts = append(parts, s)
	}
	switch {
	case tr.Error != "":
		parts = append(parts, p.red("error: "+tr.Error))
	case tr.Skipped != "":
		parts = append(parts, p.dim(tr.Skipped))
	}
	return strings.Join(parts, " | ")
}

func newCreditsCmd(s streams) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "credits [RUN.json]",
		Short: "Print the attribution lines for the clips a find run chose",
		Long: `credits prints, for each clip a find run chose, the credit line (title,
creator, licence name and URL; the source's own attribution text when it gave
one; the generator and prompt for a generated clip), and whether the licence
requires it. RUN.json is the output of 'foley find --json'; without it,
credits reads the last run foley find saved.`,
		Example: `  foley credits
  foley credits --format csv > credits.csv
  foley find "rain" "thunder" --json > run.json && foley credits run.json --format json`,
		Args: cobra.MaximumNArgs(1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "csv" && format != "json" {
				return usageError("--format must be text, csv or json, got %q", format)
			}
			path := ""
			if len(args) == 1 {
				path = args[0]
			} else {
				p, err := lastRunPath()
				if err != nil {
					return foley.Errorf(foley.Invalid, "credits: no RUN.json given and no cache directory: %v", err)
				}
				path = p
			}
			b, err := os.ReadFile(path)
			if errors.Is(err, os.ErrNotExist) && len(args) == 0 {
				return usageError("credits: no find run yet (%s does not exist); run 'foley find EVENT' first, or give the output of 'foley find --json'", path)
			}
			if err != nil {
				return usageError("credits: %v", err)
			}
			var run findRun
			if err := json.Unmarshal(b, &run); err != nil {
				return usageError("credits: %s is not the output of 'foley find --json': %v", path, err)
			}
			credits := find.Credits(run.Results)
			switch format {
			case "json":
				if credits == nil {
					credits = []find.Credit{}
				}
				return writeJSON(s.out, credits)
			case "csv":
				cw := csv.NewWriter(s.out)
				cw.Write([]string{"clip_id", "events", "title", "creator", "license_id", "license_name", "license_url", "source_url", "attribution_required", "ai_generated", "line"})
				for _, c := range credits {
					cw.Write([]string{c.ClipID, c.Events, c.Title, c.Creator, c.LicenseID, c.LicenseName, c.LicenseURL, c.SourceURL,
						fmt.Sprint(c.AttributionRequired), fmt.Sprint(c.AIGenerated), c.Line})
				}
				cw.Flush()
				return cw.Error()
			}
			if len(credits) == 0 {
				fmt.Fprintln(s.err, "the run chose no clip; nothing to credit")
				return nil
			}
			for _, c := range credits {
				req := "credit required"
				if !c.AttributionRequired {
					req = "credit optional"
				}
				fmt.Fprintf(s.out, "%s\n    %s: %s; for %s\n", c.Line, c.ClipID, req, c.Events)
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&format, "format", "text", "text, csv or json")
	return cmd
}
