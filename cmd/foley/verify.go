package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"sync"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/backend"
	"github.com/foley-audio/foley/license"
	"github.com/foley-audio/foley/verify"
	"github.com/spf13/cobra"
)

// verifyRow is one candidate's outcome, in input order.
type verifyRow struct {
	Index         int            `json:"index"` // 0-based position in the input
	ID            string         `json:"id"`
	LicenseOK     bool           `json:"license_ok"`
	LicenseID     string         `json:"license_id"`
	LicenseReason string         `json:"license_reason"`
	Verdict       *foley.Verdict `json:"verdict"` // null when the gate dropped the clip or the judge failed
	Judge         *string        `json:"judge"`   // the judge that produced the verdict
	Error         string         `json:"error,omitempty"`
}

func newVerifyCmd(s streams) *cobra.Command {
	var (
		candidates string
		levelFlag  string
		tauClap    float64
		useFlag    string
		asJSON     bool
		conc       int
		ratePerSec float64
		noCache    bool
		lib        libraryFlags
	)
	cmd := &cobra.Command{
		Use:   "verify EVENT --candidates FILE|-",
		Short: "Gate a shortlist by licence and verify each kept clip against EVENT",
		Long: `verify reads a shortlist of candidates (a JSON array, or one candidate per
line), drops every clip whose licence does not allow the intended use, and
verifies each kept clip against EVENT up the ladder to --level:

  clap    match iff clap_score >= --tau-clap
  listen  the configured audio-LM judge; with none configured, the
          string-overlap judge compares the query with the caption and tags
          (it does not hear the audio, and says so)
  judge   the configured LLM judge; with none configured, string-overlap

A rung runs only when the cheaper one passed; a clip with no clap_score (a
generated clip) goes straight to the higher rung. Each candidate is printed in
input order with its licence decision, its verdict and the judge that gave it.
'foley judges' shows which judge each rung will use and how to configure
the model judges.

Candidates are verified --concurrency at a time. A model judge's verdicts are
cached in LIBRARY.verdicts beside the library (see --library), keyed by the
event, the clip's content hash, the rung and the judge's identity (model,
prompt version, threshold), so a verdict already paid for is not paid for
again; a cached verdict says "cached". Errors are never cached.`,
		Example: `  foley verify "a heavy wooden door slams shut" --candidates examples/shortlist.json
  foley verify "door slam" -c shortlist.json --level clap --tau-clap 0.4
  foley verify "rain on a tin roof" -c - --use none --json < shortlist.json
  foley verify "a dog barks" -c list.jsonl --use commercial,publish,redistribute,revenue=250000
  FOLEY_AUDIOLM_URL=http://gpu:8000/v1 foley verify "glass breaks" -c list.json --concurrency 16 --rate 20
  foley verify "glass breaks" -c list.json --level judge --no-cache`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || args[0] == "" {
				return usageError("verify: want exactly one EVENT, the wanted sound in quotes, got %d arguments (see 'foley verify --help')", len(args))
			}
			return nil
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			level, err := foley.ParseVerifyLevel(levelFlag)
			if err != nil {
				return usageError("--level: %v", err)
			}
			if err := verify.CheckTau("--tau-clap", tauClap); err != nil {
				return err
			}
			use, err := foley.ParseIntendedUse(useFlag)
			if err != nil {
				return usageError("--use: %v", err)
			}
			if candidates == "" {
				return usageError("verify: --candidates is required (a file, or - for standard input)")
			}
			cands, err := readCandidates(candidates, s.in)
			if err != nil {
				return err
			}
			if conc < 1 {
				return usageError("--concurrency must be at least 1, got %d", conc)
			}
			if ratePerSec < 0 || math.IsNaN(ratePerSec) || math.IsInf(ratePerSec, 0) {
				return usageError("--rate must be a number of calls per second >= 0 (0: no limit), got %g", ratePerSec)
			}
			judge, closeCache, err := verifyJudge(cmd.Context(), s, level, ratePerSec, conc, noCache, lib)
			if err != nil {
				return err
			}
			defer closeCache()
			event := foley.NewEvent(args[0])
			rows, failed := verifyShortlist(cmd.Context(), s, event, cands, verify.Options{Level: level, TauClap: tauClap, Judge: judge, Concurrency: conc}, use)
			if asJSON {
				err = writeJSON(s.out, rows)
			} else {
				err = printVerifyTable(s.out, rows)
			}
			if err != nil {
				return err
			}
			noteTextJudges(s.err, rows)
			if failed > 0 {
				return foley.Errorf(foley.Unavailable, "verify: %d of %d candidates could not be judged (see the error column)", failed, len(rows))
			}
			return nil
		}),
	}
	f := cmd.Flags()
	f.StringVarP(&candidates, "candidates", "c", "", "the shortlist: a JSON array of candidates or JSON Lines; - reads standard input")
	f.StringVar(&levelFlag, "level", "listen", "the highest rung to climb: clap, listen or judge")
	f.Float64Var(&tauClap, "tau-clap", verify.DefaultTauClap, "the clap rung's threshold on clap_score, 0..1")
	f.StringVar(&useFlag, "use", foley.DefaultUse().String(), "the intended use the licences must allow ("+foley.UseSyntax+")")
	f.BoolVar(&asJSON, "json", false, "print a JSON array of {index, id, license_ok, license_id, license_reason, verdict, judge}")
	f.IntVar(&conc, "concurrency", verify.DefaultConcurrency, "how many candidates to verify at once")
	f.Float64Var(&ratePerSec, "rate", 0, "at most this many calls per second to each model server, e.g. 5 (0: no limit)")
	f.BoolVar(&noCache, "no-cache", false, "neither read nor write the verdict cache: ask the judges again")
	addLibraryFlags(cmd, &lib, false)
	cmd.Flags().Lookup("library").Usage = "the library whose verdict cache (LIBRARY.verdicts) to use (default: $" + EnvLibrary + ", else library.db in the user data directory)"
	return cmd
}

// readCandidates decodes the shortlist from a file, or from in for "-".
func readCandidates(path string, in io.Reader) ([]foley.Candidate, error) {
	if path == "-" {
		return foley.DecodeCandidates(in, "standard input")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, usageError("--candidates: %v", err)
	}
	defer f.Close()
	return foley.DecodeCandidates(f, path)
}

// verifyJudge returns the judge of the rung above clap for level (nil for
// level clap): the resolved judge, rate limited to ratePerSec when it is a
// model judge, and cached in the verdict cache beside the library unless
// noCache. The returned function closes the cache.
func verifyJudge(ctx context.Context, s streams, level foley.VerifyLevel, ratePerSec float64, conc int, noCache bool, lib libraryFlags) (foley.Judge, func(), error) {
	nothing := func() {}
	if level == foley.LevelClap {
		return nil, nothing, nil
	}
	rj, err := resolveJudges()
	if err != nil {
		return nil, nothing, err
	}
	r := rj.rung(level)
	if !r.Model {
		return r.Judge, nothing, nil
	}
	judge := verify.RateLimited(r.Judge, ratePerSec, conc)
	if noCache {
		return judge, nothing, nil
	}
	path, err := libraryPath(lib.path)
	if err != nil {
		return nil, nothing, err
	}
	cache, err := backend.OpenVerdicts(ctx, path)
	if err != nil {
		return nil, nothing, err
	}
	var once sync.Once
	report := func(err error) {
		once.Do(func() { fmt.Fprintf(s.err, "foley: warning: %v (verifying without the cache)\n", err) })
	}
	return verify.Cached(judge, cache, report), func() { cache.Close() }, nil
}

// verifyShortlist gates the candidates and verifies the kept ones,
// opts.Concurrency at a time, with a progress bar on a terminal. It
// returns a row per candidate and the number whose judge failed.
func verifyShortlist(ctx context.Context, s streams, event foley.SoundEvent, cands []foley.Candidate, opts verify.Options, use foley.IntendedUse) ([]verifyRow, int) {
	decisions := license.Check(cands, use)
	rows := make([]verifyRow, len(cands))
	var kept []foley.Candidate
	var keptAt []int
	for i, c := range cands {
		d := decisions[i]
		rows[i] = verifyRow{Index: i, ID: c.Sound.ID, LicenseOK: d.OK, LicenseID: d.LicenseID, LicenseReason: d.Reason}
		if d.OK {
			kept = append(kept, c)
			keptAt = append(keptAt, i)
		}
	}
	bar := newProgressOf(s.err, len(kept), "verifying", "clips")
	opts.Done = func(int, verify.Result) { bar.add(1) }
	results := verify.Shortlist(ctx, event, kept, opts)
	bar.done()
	failed := 0
	for k, res := range results {
		row := &rows[keptAt[k]]
		if res.Err != nil {
			row.Error = res.Err.Error()
			failed++
			continue
		}
		v := res.Verdict
		row.Verdict = &v
		row.Judge = &v.Judge
	}
	return rows, failed
}

func printVerifyTable(w io.Writer, rows []verifyRow) error {
	t := newTable(w, "#", "ID", "LICENCE", "VERDICT", "CONF", "LEVEL", "JUDGE", "REASON")
	for _, r := range rows {
		lic := "ok " + r.LicenseID
		if !r.LicenseOK {
			lic = "dropped " + r.LicenseID
		}
		switch {
		case !r.LicenseOK:
			t.row(fmt.Sprint(r.Index+1), r.ID, lic, "-", "-", "-", "-", r.LicenseReason)
		case r.Verdict == nil:
			t.row(fmt.Sprint(r.Index+1), r.ID, lic, "error", "-", "-", "-", r.Error)
		default:
			v := r.Verdict
			verdict := "no match"
			if v.Match {
				verdict = "match"
			}
			judge := v.Judge
			if v.Cached {
				judge += " (cached)"
			}
			t.row(fmt.Sprint(r.Index+1), r.ID, lic, verdict, fmt.Sprintf("%.3f", v.Confidence), v.Level.String(), judge, v.Reason)
		}
	}
	return t.flush()
}

// noteTextJudges tells, on stderr, when a rung above clap was answered by
// the text stand-in, so that nobody reads its verdicts as listening.
func noteTextJudges(w io.Writer, rows []verifyRow) {
	for _, r := range rows {
		if r.Verdict != nil && r.Verdict.Judge == (verify.StringOverlapJudge{}).Name() {
			fmt.Fprintf(w, "note: no model judge is configured for the %s rung, so the string-overlap judge compared the query with each caption and tags; no audio was heard.\n", r.Verdict.Level)
			return
		}
	}
}
