package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/embed"
	"github.com/foley-audio/foley/eval"
	"github.com/foley-audio/foley/verify"
	"github.com/spf13/cobra"
)

// evalFlags are the flags every eval subcommand shares.
type evalFlags struct {
	golden string
	corpus string
	lib    libraryFlags
	k      int
	grade  int
	asJSON bool
	plot   string
}

func (f *evalFlags) add(cmd *cobra.Command, plotWhat string) {
	fl := cmd.Flags()
	fl.StringVar(&f.golden, "golden", "", "the golden set (default: the shipped set of foley's evaluation corpus)")
	fl.StringVar(&f.corpus, "corpus", "", "a corpus JSON file (an array of sound records) to evaluate over instead of a library (default with neither: the shipped corpus)")
	fl.StringVar(&f.lib.path, "library", "", "evaluate over this library (its clips must carry the golden set's ids)")
	fl.IntVarP(&f.k, "k", "k", 10, "the cut-off: nDCG@k, and the shortlist length that is judged or calibrated")
	fl.IntVar(&f.grade, "min-grade", 1, "the lowest grade that counts as relevant: 1 acceptable, 2 good, 3 exact")
	fl.BoolVar(&f.asJSON, "json", false, "print the report as JSON")
	if plotWhat != "" {
		fl.StringVar(&f.plot, "plot", "", plotWhat+" to this .svg or .png file")
	}
}

// evalSetup is what an evaluation runs over.
type evalSetup struct {
	golden *eval.Golden
	search eval.Searcher
	audio  bool // the clips have audio a listening judge can hear
	where  string
	close  func()
}

// open loads the golden set and the library or corpus it is measured on.
func (f *evalFlags) open(ctx context.Context, errw io.Writer) (*evalSetup, error) {
	if f.k < 1 || f.k > 1000 {
		return nil, usageError("-k must be 1..1000, got %d", f.k)
	}
	if f.grade < 1 || f.grade > 3 {
		return nil, usageError("--min-grade must be 1, 2 or 3, got %d", f.grade)
	}
	if f.plot != "" {
		if _, err := eval.PlotFormat(f.plot); err != nil {
			return nil, err
		}
	}
	if f.corpus != "" && f.lib.path != "" {
		return nil, usageError("give --corpus or --library, not both")
	}
	var (
		g   *eval.Golden
		err error
	)
	if f.golden == "" {
		g, err = eval.ShippedGolden()
	} else {
		g, err = eval.LoadGolden(f.golden)
	}
	if err != nil {
		return nil, err
	}
	if f.lib.path != "" {
		f.lib.existing = true
		lib, err := f.lib.open(ctx)
		if err != nil {
			return nil, err
		}
		emb, err := queryEmbedder(ctx, lib)
		if err != nil {
			lib.Close()
			return nil, err
		}
		if err := checkGoldenIDs(ctx, g, func(id string) bool { _, err := lib.Get(ctx, id); return err == nil }, lib.Location()); err != nil {
			lib.Close()
			return nil, err
		}
		var search eval.Searcher = eval.LibrarySearcher(lib, emb)
		if emb == nil {
			search = eval.LibrarySearcher(lib, nil)
		}
		return &evalSetup{golden: g, search: search, audio: true, where: lib.Location(), close: func() { lib.Close() }}, nil
	}
	var c *eval.Corpus
	if f.corpus == "" {
		c, err = eval.ShippedCorpus()
	} else {
		var b []byte
		if b, err = os.ReadFile(f.corpus); err != nil {
			return nil, usageError("--corpus: %v", err)
		}
		c, err = eval.ParseCorpus(b, f.corpus)
	}
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for _, r := range c.Records {
		ids[r.ID] = true
	}
	if err := checkGoldenIDs(ctx, g, func(id string) bool { return ids[id] }, c.Source); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "foley-eval-")
	if err != nil {
		return nil, err
	}
	emb := embed.NewHash(0)
	lib, err := eval.BuildLibrary(ctx, filepath.Join(dir, "corpus.db"), c, emb)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &evalSetup{golden: g, search: eval.LibrarySearcher(lib, emb), where: fmt.Sprintf("%s (%d clips, %s)", c.Source, len(c.Records), emb.Model()),
		close: func() { lib.Close(); os.RemoveAll(dir) }}, nil
}

// checkGoldenIDs refuses a golden set that names clips the library or
// corpus does not have: its metrics would be silently wrong.
func checkGoldenIDs(_ context.Context, g *eval.Golden, has func(string) bool, where string) error {
	var missing []string
	for _, id := range g.ClipIDs() {
		if !has(id) {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	show := missing[:min(5, len(missing))]
	return foley.Errorf(foley.Invalid, "golden set %s names %d clips that %s does not have, e.g. %q", g.Source, len(missing), where, show)
}

func newEvalCmd(s streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval retrieval|fit|calibrate",
		Short: "Measure retrieval and verification against a golden set, and calibrate the clap gate",
		Long: `eval measures how good a library, its embedder and the judges are, against a
golden set: labelled queries with graded relevance per clip (3 exact, 2 good,
1 acceptable, unlisted 0).

  retrieval  nDCG@k, recall@1/5/10, mAP@10 and MRR, overall, per UCS family
             and per kind of item
  fit        the ladder's fit precision, recall, F1, auto-accept rate and mean
             confidence on each shortlist, per UCS family x diegetic, with the
             model calls and tokens spent
  calibrate  the clap gate's precision and recall at each threshold, and the
             threshold that reaches --target precision

With no --golden, --corpus or --library, eval runs the shipped golden set over
the shipped evaluation corpus (catalogue records without audio, embedded with
the built-in text embedder).`,
		Example: `  foley eval retrieval
  foley eval retrieval --golden my-golden.json --library sfx.db --plot families.svg
  foley eval fit --level judge --json
  foley eval calibrate --target 0.95 --plot pr.png`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return usageError("eval: name what to measure: retrieval, fit or calibrate (see 'foley eval --help')")
		}),
	}
	cmd.AddCommand(newEvalRetrievalCmd(s), newEvalFitCmd(s), newEvalCalibrateCmd(s))
	return cmd
}

func newEvalRetrievalCmd(s streams) *cobra.Command {
	var f evalFlags
	var items bool
	cmd := &cobra.Command{
		Use:   "retrieval",
		Short: "nDCG@k, recall@1/5/10, mAP@10 and MRR of the library's search",
		Long: `retrieval searches for every golden item's event and scores the ranking: nDCG@k
(the grade as gain, log2 discount, against the ideal order of the graded
clips), recall@1/5/10, mAP@10 and MRR (over the first 100 results). Items with
no relevant clip (no_match) have no retrieval score and are counted apart.`,
		Example: `  foley eval retrieval
  foley eval retrieval --items --json
  foley eval retrieval --library sfx.db --golden my-golden.json --plot families.svg`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			setup, err := f.open(ctx, s.err)
			if err != nil {
				return err
			}
			defer setup.close()
			rep, err := eval.Retrieval(ctx, setup.golden, setup.search, eval.Options{K: f.k, MinGrade: f.grade})
			if err != nil {
				return err
			}
			if f.plot != "" {
				if err := eval.PlotRetrieval(rep, f.plot); err != nil {
					return err
				}
				fmt.Fprintf(s.err, "wrote %s\n", f.plot)
			}
			if !items {
				rep.Items = nil
			}
			if f.asJSON {
				return writeJSON(s.out, rep)
			}
			fmt.Fprintf(s.out, "golden set %s (%d items) over %s\n\n", setup.golden.Name, len(setup.golden.Items), setup.where)
			t := newTable(s.out, "GROUP", "ITEMS", "SCORED", fmt.Sprintf("NDCG@%d", rep.K), "R@1", "R@5", "R@10", "MAP@10", "MRR")
			row := func(r eval.RetrievalSummary) {
				t.row(r.Group, fmt.Sprint(r.Items), fmt.Sprint(r.Scored), r.NDCG.String(), r.Recall1.String(), r.Recall5.String(), r.Recall10.String(), r.MAP.String(), r.MRR.String())
			}
			row(rep.Overall)
			for _, k := range rep.Kinds {
				k.Group = "kind " + k.Group
				row(k)
			}
			for _, fam := range rep.Families {
				row(fam)
			}
			if err := t.flush(); err != nil {
				return err
			}
			if items {
				fmt.Fprintln(s.out)
				it := newTable(s.out, "ITEM", "FAMILY", "KIND", fmt.Sprintf("NDCG@%d", rep.K), "R@10", "RR", "TOP 3")
				for _, r := range rep.Items {
					it.row(r.ID, r.Family, r.Kind, r.NDCG.String(), r.Recall10.String(), r.RR.String(), fmt.Sprint(r.Top[:min(3, len(r.Top))]))
				}
				return it.flush()
			}
			return nil
		}),
	}
	f.add(cmd, "draw nDCG and recall@10 per UCS family as bars")
	cmd.Flags().BoolVar(&items, "items", false, "also list every item's metrics")
	return cmd
}

func newEvalFitCmd(s streams) *cobra.Command {
	var (
		f          evalFlags
		levelFlag  string
		tauClap    float64
		withModels bool
		conc       int
		ratePerSec float64
		noCache    bool
	)
	cmd := &cobra.Command{
		Use:   "fit",
		Short: "Fit precision and recall of the verify ladder on each item's shortlist",
		Long: `fit retrieves each golden item's shortlist (-k clips), verifies every clip up
to --level, and compares the verdicts with the grades: a clip is relevant when
its grade is at least --min-grade, accepted when its verdict matches. It
reports fit precision (accepted and relevant / accepted), fit recall
(accepted and relevant / relevant), F1, the auto-accept rate and the mean
confidence, overall and per UCS family x diegetic, with the model calls and
tokens spent. The licence gate is not measured: every clip counts as
licensed. A judge's failure is counted as an error, never as an acceptance.

By default the rungs above clap use the deterministic string-overlap judge,
which costs nothing. --with-models uses the configured model judges instead
(see 'foley judges'): that costs money, and the listen rung needs clips with
audio (a --library); their verdicts are cached beside the library.`,
		Example: `  foley eval fit
  foley eval fit --level clap --tau-clap 0.5
  ANTHROPIC_API_KEY=... foley eval fit --level judge --with-models --library sfx.db --golden mine.json`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			level, err := foley.ParseVerifyLevel(levelFlag)
			if err != nil {
				return usageError("--level: %v", err)
			}
			if err := verify.CheckTau("--tau-clap", tauClap); err != nil {
				return err
			}
			if conc < 1 {
				return usageError("--concurrency must be at least 1, got %d", conc)
			}
			setup, err := f.open(ctx, s.err)
			if err != nil {
				return err
			}
			defer setup.close()
			var judge foley.Judge
			if level != foley.LevelClap {
				judge = verify.Judges{}.For(level)
				if withModels {
					if level == foley.LevelListen && !setup.audio {
						return usageError("--with-models at --level listen needs clips with audio: give a --library (the corpus has none)")
					}
					j, closeCache, err := verifyJudge(ctx, s, level, ratePerSec, conc, noCache || f.lib.path == "", f.lib)
					if err != nil {
						return err
					}
					defer closeCache()
					judge = j
				}
			}
			bar := newProgressOf(s.err, len(setup.golden.Items), "judging", "items")
			rep, err := eval.Fit(ctx, setup.golden, setup.search, eval.Options{K: f.k, MinGrade: f.grade, Level: level, TauClap: tauClap, Judge: judge, Concurrency: conc,
				Progress: func(int, int) { bar.add(1) }})
			bar.done()
			if err != nil {
				return err
			}
			if f.asJSON {
				return writeJSON(s.out, rep)
			}
			fmt.Fprintf(s.out, "golden set %s (%d items) over %s\nlevel %s, judge %s, tau_clap %g, shortlists of %d\n\n",
				setup.golden.Name, len(setup.golden.Items), setup.where, rep.Level, rep.Judge, rep.TauClap, rep.K)
			t := newTable(s.out, "STRATUM", "JUDGED", "ERRORS", "PRECISION", "RECALL", "F1", "ACCEPT", "MEAN CONF")
			row := func(st eval.FitStratum) {
				t.row(st.Stratum, fmt.Sprint(st.Judged), fmt.Sprint(st.Errors), st.Precision.String(), st.Recall.String(), st.F1.String(), st.AcceptRate.String(), st.MeanConfidence.String())
			}
			row(rep.Overall)
			for _, st := range rep.Strata {
				row(st)
			}
			if err := t.flush(); err != nil {
				return err
			}
			u := rep.Usage
			fmt.Fprintf(s.out, "\nmodel calls %d (%d failed), input tokens %d, output tokens %d\n", u.Calls, u.Failed, u.InputTokens, u.OutputTokens)
			for _, e := range rep.FirstErrs {
				fmt.Fprintf(s.err, "error: %s\n", e)
			}
			if rep.Overall.Errors > 0 {
				return foley.Errorf(foley.Unavailable, "eval fit: %d verdicts could not be had (see the errors above)", rep.Overall.Errors)
			}
			return nil
		}),
	}
	f.add(cmd, "")
	fl := cmd.Flags()
	fl.StringVar(&levelFlag, "level", "listen", "the highest rung to climb: clap, listen or judge")
	fl.Float64Var(&tauClap, "tau-clap", verify.DefaultTauClap, "the clap rung's threshold, 0..1")
	fl.BoolVar(&withModels, "with-models", false, "use the configured model judges (costs money) instead of the deterministic ones")
	fl.IntVar(&conc, "concurrency", verify.DefaultConcurrency, "candidates verified at once")
	fl.Float64Var(&ratePerSec, "rate", 0, "at most this many calls per second to each model server (0: no limit)")
	fl.BoolVar(&noCache, "no-cache", false, "with --with-models, neither read nor write the verdict cache")
	return cmd
}

func newEvalCalibrateCmd(s streams) *cobra.Command {
	var (
		f      evalFlags
		target float64
		step   float64
	)
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Sweep the clap threshold: precision and recall at each value, and the threshold for a target precision",
		Long: `calibrate collects the clap_score of every clip in each golden item's shortlist
(-k clips) and sweeps the clap threshold from 0 to 1: at each value, the clap
gate (accept iff clap_score >= threshold) has a precision and a recall
against the grades. It reports the lowest threshold whose precision reaches
--target, which is the --tau-clap that keeps the most recall at that
precision.`,
		Example: `  foley eval calibrate
  foley eval calibrate --target 0.95 --plot pr.svg
  foley eval calibrate --library sfx.db --golden mine.json --json`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if !(target > 0 && target <= 1) {
				return usageError("--target must be a precision in (0, 1], got %g", target)
			}
			if !(step >= 0.001 && step <= 0.5) {
				return usageError("--step must be 0.001..0.5, got %g", step)
			}
			setup, err := f.open(ctx, s.err)
			if err != nil {
				return err
			}
			defer setup.close()
			rep, err := eval.Calibrate(ctx, setup.golden, setup.search, eval.Options{K: f.k, MinGrade: f.grade, Target: target, Step: step})
			if err != nil {
				return err
			}
			if f.plot != "" {
				if err := eval.PlotCalibration(rep, f.plot); err != nil {
					return err
				}
				fmt.Fprintf(s.err, "wrote %s\n", f.plot)
			}
			if f.asJSON {
				return writeJSON(s.out, rep)
			}
			fmt.Fprintf(s.out, "golden set %s (%d items) over %s\n%d shortlisted clips, %d relevant\n\n",
				setup.golden.Name, len(setup.golden.Items), setup.where, rep.Pairs, rep.Relevant)
			t := newTable(s.out, "TAU_CLAP", "ACCEPTED", "PRECISION", "RECALL")
			every := max(1, int(0.05/step+0.5))
			for i, pt := range rep.Points {
				if i%every == 0 || (rep.Threshold != nil && pt.Threshold == rep.Threshold.Threshold) {
					t.row(fmt.Sprintf("%.3f", pt.Threshold), fmt.Sprint(pt.Accepted), pt.Precision.String(), pt.Recall.String())
				}
			}
			if err := t.flush(); err != nil {
				return err
			}
			if th := rep.Threshold; th != nil {
				fmt.Fprintf(s.out, "\ntau_clap %.3f reaches precision %s (target %g) with recall %s\n", th.Threshold, th.Precision, target, th.Recall)
			} else {
				fmt.Fprintf(s.out, "\nno threshold reaches precision %g on this set\n", target)
			}
			return nil
		}),
	}
	f.add(cmd, "draw the precision-recall curve")
	cmd.Flags().Float64Var(&target, "target", 0.9, "the precision the threshold must reach, 0..1")
	cmd.Flags().Float64Var(&step, "step", 0.01, "the threshold step of the sweep")
	return cmd
}
