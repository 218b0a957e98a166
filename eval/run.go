package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/embed"
	"github.com/foley-audio/foley/obs"
	"github.com/foley-audio/foley/sqlite"
	"github.com/foley-audio/foley/verify"
)

// Metric is a measured value; NaN means undefined (nothing to measure) and
// is written as JSON null.
type Metric float64

// MarshalJSON writes NaN and infinities as null, other values rounded to
// six decimals.
func (m Metric) MarshalJSON() ([]byte, error) {
	f := float64(m)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, math.Round(f*1e6)/1e6, 'f', -1, 64), nil
}

// UnmarshalJSON reads null as NaN.
func (m *Metric) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*m = Metric(math.NaN())
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*m = Metric(f)
	return nil
}

// String is the value with three decimals, or "-" when undefined.
func (m Metric) String() string {
	if math.IsNaN(float64(m)) {
		return "-"
	}
	return fmt.Sprintf("%.3f", float64(m))
}

// Searcher returns the ranked shortlist for an event, at most k long.
type Searcher func(ctx context.Context, e foley.SoundEvent, k int) ([]foley.Candidate, error)

// LibrarySearcher searches lib by the event's query: hybrid (BM25 and
// vectors fused) when emb is not nil, BM25 alone otherwise.
func LibrarySearcher(lib foley.Library, emb foley.Embedder) Searcher {
	return func(ctx context.Context, e foley.SoundEvent, k int) ([]foley.Candidate, error) {
		q := foley.SearchQuery{Text: e.Query, K: k}
		if emb != nil {
			v, err := emb.EmbedText(ctx, []string{e.Query})
			if err != nil {
				return nil, err
			}
			q.Vector, q.Model = v[0], emb.Model()
		}
		return lib.Search(ctx, q)
	}
}

// BuildLibrary indexes a corpus into a new embedded library at path; see
// Fill.
func BuildLibrary(ctx context.Context, path string, c *Corpus, emb foley.Embedder) (*sqlite.Library, error) {
	lib, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		return nil, err
	}
	if err := Fill(ctx, lib, c, emb); err != nil {
		lib.Close()
		return nil, err
	}
	return lib, nil
}

// Fill writes a corpus into a library of any backend, each record embedded
// by emb from its text (caption and tags). The corpus has no audio, so a
// text embedding is all there is.
func Fill(ctx context.Context, lib foley.Library, c *Corpus, emb foley.Embedder) error {
	texts := make([]string, len(c.Records))
	recs := make([]foley.SoundRecord, len(c.Records))
	for i, r := range c.Records {
		r.EmbeddingModel = emb.Model()
		recs[i] = r
		texts[i] = embed.RecordText(r)
	}
	vecs, err := emb.EmbedText(ctx, texts)
	if err != nil {
		return err
	}
	return lib.Upsert(ctx, recs, vecs)
}

// Options configure an evaluation.
type Options struct {
	K        int // the cut-off: nDCG@K, and the shortlist judged by Fit (default 10)
	Depth    int // how deep Retrieval searches for recall and MRR (default 100)
	MinGrade int // the lowest grade that counts as relevant (default 1, acceptable)
	// Level, TauClap and Judge are the ladder Fit climbs (Judge nil:
	// Judges{}.For(Level)).
	Level       foley.VerifyLevel
	TauClap     float64
	Judge       foley.Judge
	Concurrency int     // candidates verified at once by Fit (default 8)
	Target      float64 // the precision Calibrate looks for (default 0.9)
	Step        float64 // Calibrate's threshold step (default 0.01)
	// Progress, when not nil, hears of each item done.
	Progress func(done, total int)
}

func (o *Options) defaults() {
	if o.K <= 0 {
		o.K = 10
	}
	if o.Depth < o.K {
		o.Depth = max(100, o.K)
	}
	if o.MinGrade <= 0 {
		o.MinGrade = 1
	}
	if o.Concurrency <= 0 {
		o.Concurrency = verify.DefaultConcurrency
	}
	if o.Target <= 0 {
		o.Target = 0.9
	}
	if o.Step <= 0 {
		o.Step = 0.01
	}
}

// RetrievalItem is one item's retrieval metrics.
type RetrievalItem struct {
	ID       string   `json:"id"`
	Family   string   `json:"family"`
	Kind     string   `json:"kind,omitempty"`
	NDCG     Metric   `json:"ndcg_at_k"`
	Recall1  Metric   `json:"recall_at_1"`
	Recall5  Metric   `json:"recall_at_5"`
	Recall10 Metric   `json:"recall_at_10"`
	AP       Metric   `json:"ap_at_10"`
	RR       Metric   `json:"reciprocal_rank"`
	Top      []string `json:"top"` // the first K clip ids
}

// RetrievalSummary averages items' metrics; items with nothing relevant
// (no_match items) have undefined metrics and are left out (Scored says
// how many count).
type RetrievalSummary struct {
	Group    string `json:"group"`
	Items    int    `json:"items"`
	Scored   int    `json:"scored"`
	NDCG     Metric `json:"ndcg_at_k"`
	Recall1  Metric `json:"recall_at_1"`
	Recall5  Metric `json:"recall_at_5"`
	Recall10 Metric `json:"recall_at_10"`
	MAP      Metric `json:"map_at_10"`
	MRR      Metric `json:"mrr"`
}

// RetrievalReport is the result of Retrieval.
type RetrievalReport struct {
	Golden   string             `json:"golden"`
	K        int                `json:"k"`
	Depth    int                `json:"depth"`
	MinGrade int                `json:"min_grade"`
	Overall  RetrievalSummary   `json:"overall"`
	Families []RetrievalSummary `json:"families"`
	Kinds    []RetrievalSummary `json:"kinds"`
	Items    []RetrievalItem    `json:"items"`
}

// Retrieval searches for every item's event and scores the ranking
// against its grades: nDCG@K, recall@1/5/10, mAP@10 and MRR (over Depth
// results), per item, averaged, and per UCS family and item kind.
func Retrieval(ctx context.Context, g *Golden, search Searcher, o Options) (*RetrievalReport, error) {
	o.defaults()
	rep := &RetrievalReport{Golden: g.Name, K: o.K, Depth: o.Depth, MinGrade: o.MinGrade}
	for i, it := range g.Items {
		res, err := search(ctx, it.Event, o.Depth)
		if err != nil {
			return nil, fmt.Errorf("item %q: searching for %q: %w", it.ID, it.Event.Query, err)
		}
		ranked := make([]string, len(res))
		for j, c := range res {
			ranked[j] = c.Sound.ID
		}
		rep.Items = append(rep.Items, RetrievalItem{
			ID: it.ID, Family: it.Family(), Kind: it.Kind,
			NDCG:     Metric(NDCG(ranked, it.Relevance, o.K)),
			Recall1:  Metric(Recall(ranked, it.Relevance, 1, o.MinGrade)),
			Recall5:  Metric(Recall(ranked, it.Relevance, 5, o.MinGrade)),
			Recall10: Metric(Recall(ranked, it.Relevance, 10, o.MinGrade)),
			AP:       Metric(AveragePrecision(ranked, it.Relevance, 10, o.MinGrade)),
			RR:       Metric(ReciprocalRank(ranked, it.Relevance, o.MinGrade)),
			Top:      ranked[:min(o.K, len(ranked))],
		})
		if o.Progress != nil {
			o.Progress(i+1, len(g.Items))
		}
	}
	rep.Overall = summarize("all", rep.Items)
	rep.Families = groupSummaries(rep.Items, func(it RetrievalItem) string { return it.Family })
	rep.Kinds = groupSummaries(rep.Items, func(it RetrievalItem) string { return it.Kind })
	return rep, nil
}

func summarize(group string, items []RetrievalItem) RetrievalSummary {
	col := func(f func(RetrievalItem) Metric) (Metric, int) {
		xs := make([]float64, len(items))
		for i, it := range items {
			xs[i] = float64(f(it))
		}
		m, n := mean(xs)
		return Metric(m), n
	}
	s := RetrievalSummary{Group: group, Items: len(items)}
	s.NDCG, s.Scored = col(func(it RetrievalItem) Metric { return it.NDCG })
	s.Recall1, _ = col(func(it RetrievalItem) Metric { return it.Recall1 })
	s.Recall5, _ = col(func(it RetrievalItem) Metric { return it.Recall5 })
	s.Recall10, _ = col(func(it RetrievalItem) Metric { return it.Recall10 })
	s.MAP, _ = col(func(it RetrievalItem) Metric { return it.AP })
	s.MRR, _ = col(func(it RetrievalItem) Metric { return it.RR })
	return s
}

func groupSummaries(items []RetrievalItem, key func(RetrievalItem) string) []RetrievalSummary {
	groups := map[string][]RetrievalItem{}
	for _, it := range items {
		k := key(it)
		if k == "" {
			k = "(none)"
		}
		groups[k] = append(groups[k], it)
	}
	var out []RetrievalSummary
	for k, its := range groups {
		out = append(out, summarize(k, its))
	}
	slices.SortFunc(out, func(a, b RetrievalSummary) int {
		if a.Group < b.Group {
			return -1
		}
		if a.Group > b.Group {
			return 1
		}
		return 0
	})
	return out
}

// FitStratum is a judge's record on one stratum (UCS family × diegetic)
// or overall.
type FitStratum struct {
	Stratum        string `json:"stratum"`
	Judged         int    `json:"judged"`
	Errors         int    `json:"errors"` // judge failures: neither accepted nor rejected
	TP             int    `json:"accepted_relevant"`
	FP             int    `json:"accepted_wrong"`
	FN             int    `json:"rejected_relevant"`
	TN             int    `json:"rejected_wrong"`
	Precision      Metric `json:"fit_precision"`
	Recall         Metric `json:"fit_recall"`
	F1             Metric `json:"f1"`
	AcceptRate     Metric `json:"auto_accept_rate"`
	MeanConfidence Metric `json:"mean_confidence"`
	confSum        float64
}

func (s *FitStratum) add(v *foley.Verdict, relevant bool) {
	if v == nil {
		s.Errors++
		return
	}
	c := Confusion{TP: s.TP, FP: s.FP, FN: s.FN, TN: s.TN}
	c.Add(v.Match, relevant)
	s.TP, s.FP, s.FN, s.TN = c.TP, c.FP, c.FN, c.TN
	s.Judged++
	s.confSum += v.Confidence
}

func (s *FitStratum) finish() {
	c := Confusion{TP: s.TP, FP: s.FP, FN: s.FN, TN: s.TN}
	s.Precision, s.Recall, s.F1, s.AcceptRate = Metric(c.Precision()), Metric(c.Recall()), Metric(c.F1()), Metric(c.AcceptRate())
	s.MeanConfidence = Metric(math.NaN())
	if s.Judged > 0 {
		s.MeanConfidence = Metric(s.confSum / float64(s.Judged))
	}
}

// FitReport is the result of Fit.
type FitReport struct {
	Golden   string            `json:"golden"`
	Level    foley.VerifyLevel `json:"level"`
	Judge    string            `json:"judge"` // the judge above clap
	TauClap  float64           `json:"tau_clap"`
	K        int               `json:"k"`
	MinGrade int               `json:"min_grade"`
	Overall  FitStratum        `json:"overall"`
	Strata   []FitStratum      `json:"strata"`
	// Usage counts the model calls made and the tokens they spent.
	Usage     obs.UsageTotals `json:"usage"`
	FirstErrs []string        `json:"first_errors,omitempty"` // up to 5 judge errors, to see why
}

// Fit retrieves every item's shortlist (K clips), verifies each clip up to
// Level, and scores the verdicts against the grades: a clip is relevant
// when its grade is at least MinGrade, accepted when its verdict matches.
// The licence gate is not what is measured, so every shortlisted clip is
// treated as licensed. A judge's failure counts as an error, never as an
// acceptance.
func Fit(ctx context.Context, g *Golden, search Searcher, o Options) (*FitReport, error) {
	o.defaults()
	judge := o.Judge
	if judge == nil && o.Level != foley.LevelClap {
		judge = verify.Judges{}.For(o.Level)
	}
	name := "clap"
	if judge != nil {
		name = judge.Name()
	}
	var usage obs.Usage
	ctx = obs.WithUsage(ctx, &usage)
	rep := &FitReport{Golden: g.Name, Level: o.Level, Judge: name, TauClap: o.TauClap, K: o.K, MinGrade: o.MinGrade}
	overall := &FitStratum{Stratum: "all"}
	strata := map[string]*FitStratum{}
	for i, it := range g.Items {
		res, err := search(ctx, it.Event, o.K)
		if err != nil {
			return nil, fmt.Errorf("item %q: searching for %q: %w", it.ID, it.Event.Query, err)
		}
		for j := range res {
			res[j].LicenseOK = new(true)
			res[j].Event = &g.Items[i].Event
		}
		results := verify.Shortlist(ctx, it.Event, res, verify.Options{Level: o.Level, TauClap: o.TauClap, Judge: judge, Concurrency: o.Concurrency})
		key := it.Family() + "/" + map[bool]string{true: "diegetic", false: "non-diegetic"}[it.Event.IsDiegetic()]
		st := strata[key]
		if st == nil {
			st = &FitStratum{Stratum: key}
			strata[key] = st
		}
		for j, r := range results {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			relevant := it.Relevance[res[j].Sound.ID] >= o.MinGrade
			var v *foley.Verdict
			if r.Err == nil {
				v = &r.Verdict
			} else if len(rep.FirstErrs) < 5 {
				rep.FirstErrs = append(rep.FirstErrs, fmt.Sprintf("%s / %s: %v", it.ID, res[j].Sound.ID, r.Err))
			}
			overall.add(v, relevant)
			st.add(v, relevant)
		}
		if o.Progress != nil {
			o.Progress(i+1, len(g.Items))
		}
	}
	overall.finish()
	rep.Overall = *overall
	for _, st := range strata {
		st.finish()
		rep.Strata = append(rep.Strata, *st)
	}
	slices.SortFunc(rep.Strata, func(a, b FitStratum) int {
		if a.Stratum < b.Stratum {
			return -1
		}
		if a.Stratum > b.Stratum {
			return 1
		}
		return 0
	})
	rep.Usage = usage.Totals()
	return rep, nil
}

// CalibrationPoint is the clap gate's precision and recall at a threshold.
type CalibrationPoint struct {
	Threshold float64 `json:"threshold"`
	Accepted  int     `json:"accepted"`
	Precision Metric  `json:"precision"`
	Recall    Metric  `json:"recall"`
}

// CalibrationReport is the result of Calibrate.
type CalibrationReport struct {
	Golden   string             `json:"golden"`
	K        int                `json:"k"`
	MinGrade int                `json:"min_grade"`
	Pairs    int                `json:"pairs"`    // shortlisted (item, clip) pairs
	Relevant int                `json:"relevant"` // of them, relevant
	Target   float64            `json:"target_precision"`
	Points   []CalibrationPoint `json:"points"`
	// Threshold is the lowest threshold whose precision reaches Target
	// (the one that keeps the most recall), with its point; nil when none
	// does.
	Threshold *CalibrationPoint `json:"threshold_for_target"`
}

// Calibrate sweeps the clap threshold from 0 to 1 by Step over the
// clap_scores of every item's shortlist (K clips) and reports, at each
// value, the precision and recall of the clap gate (accept iff clap_score
// >= threshold) against the grades, and the threshold that reaches the
// Target precision.
func Calibrate(ctx context.Context, g *Golden, search Searcher, o Options) (*CalibrationReport, error) {
	o.defaults()
	type pair struct {
		score    float64
		relevant bool
	}
	var pairs []pair
	relevant := 0
	for i, it := range g.Items {
		res, err := search(ctx, it.Event, o.K)
		if err != nil {
			return nil, fmt.Errorf("item %q: searching for %q: %w", it.ID, it.Event.Query, err)
		}
		for _, c := range res {
			score := math.Inf(-1) // no score: never passes the gate
			if c.ClapScore != nil && !math.IsNaN(*c.ClapScore) {
				score = *c.ClapScore
			}
			rel := it.Relevance[c.Sound.ID] >= o.MinGrade
			if rel {
				relevant++
			}
			pairs = append(pairs, pair{score, rel})
		}
		if o.Progress != nil {
			o.Progress(i+1, len(g.Items))
		}
	}
	rep := &CalibrationReport{Golden: g.Name, K: o.K, MinGrade: o.MinGrade, Pairs: len(pairs), Relevant: relevant, Target: o.Target}
	steps := int(math.Round(1 / o.Step))
	for s := 0; s <= steps; s++ {
		t := math.Round(float64(s)*o.Step*1e6) / 1e6
		var c Confusion
		for _, p := range pairs {
			c.Add(p.score >= t, p.relevant)
		}
		pt := CalibrationPoint{Threshold: t, Accepted: c.TP + c.FP, Precision: Metric(c.Precision()), Recall: Metric(c.Recall())}
		rep.Points = append(rep.Points, pt)
		if rep.Threshold == nil && !math.IsNaN(float64(pt.Precision)) && float64(pt.Precision) >= o.Target {
			rep.Threshold = &pt
		}
	}
	return rep, nil
}
