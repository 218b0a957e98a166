// Package find is foley's main loop: from wanted sound events to accepted,
// licensed, verified clips. For each event it searches the library, gates
// the shortlist by licence, verifies the survivors up the ladder (cheapest
// rung first, the expensive rungs only for the best few), and lets
// policy.Decide choose: use a clip, refine the query and search again,
// generate a clip (which climbs the same ladder), or choose silence.
package find

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/license"
	"github.com/foley-audio/foley/obs"
	"github.com/foley-audio/foley/policy"
	"github.com/foley-audio/foley/verify"
)

// DefaultK is how many clips a search shortlists.
const DefaultK = 10

// DefaultMaxExpensive is how many clap-passing candidates, best clap score
// first, may climb to the expensive rungs.
const DefaultMaxExpensive = 3

// DefaultVariants is how many query variants a refine step asks for.
const DefaultVariants = 3

// ClipStore keeps a generated clip: it writes the audio, adds a record to
// the library, and returns the record.
type ClipStore interface {
	AddGenerated(ctx context.Context, clip foley.GeneratedClip, event foley.SoundEvent) (foley.SoundRecord, error)
}

// Options configure Find. The zero value of a field takes its default.
type Options struct {
	K           int               // shortlist length (DefaultK)
	Level       foley.VerifyLevel // the highest rung (default listen)
	TauClap     float64           // the clap threshold (verify.DefaultTauClap; set NoTauClapDefault to use 0)
	TauRetrieve float64           // the confidence a clip needs to be used (policy.DefaultTauRetrieve)
	Use         foley.IntendedUse // the use the licences must allow
	// Budget bounds refining and generating; nil is policy.DefaultBudget.
	Budget *policy.Budget
	// Judge answers above clap; nil is verify.Judges{}.For(Level).
	Judge foley.Judge
	// Refiner proposes query variants on refine; nil skips refining (the
	// decision says so).
	Refiner foley.Refiner
	// Generator makes clips on generate; nil means generation is wanted
	// and unavailable (the decision says so).
	Generator foley.Generator
	// Store keeps generated clips; required with a Generator.
	Store ClipStore
	// MaxExpensive bounds the candidates verified above clap per search
	// (DefaultMaxExpensive); Exhaustive verifies every clap-passing one.
	MaxExpensive int
	Exhaustive   bool
	Variants     int // query variants per refine (DefaultVariants)
	Concurrency  int // candidates verified at once in exhaustive mode
	// Progress, when not nil, hears of each event done.
	Progress func(done, total int)
}

func (o *Options) defaults() {
	if o.K <= 0 {
		o.K = DefaultK
	}
	if o.Level == 0 {
		o.Level = foley.LevelListen
	}
	if o.TauRetrieve == 0 {
		o.TauRetrieve = policy.DefaultTauRetrieve
	}
	if o.Budget == nil {
		b := policy.DefaultBudget()
		o.Budget = &b
	}
	if o.MaxExpensive <= 0 {
		o.MaxExpensive = DefaultMaxExpensive
	}
	if o.Variants <= 0 {
		o.Variants = DefaultVariants
	}
	if o.Concurrency <= 0 {
		o.Concurrency = verify.DefaultConcurrency
	}
}

// Trail is what happened to one candidate in a step: its licence decision
// and the verdicts it collected, cheapest rung first.
type Trail struct {
	ID            string          `json:"id"`
	Caption       string          `json:"caption"`
	Origin        foley.Origin    `json:"origin"`
	URI           string          `json:"uri,omitempty"`
	LicenseOK     bool            `json:"license_ok"`
	LicenseID     string          `json:"license_id"`
	LicenseReason string          `json:"license_reason"`
	ClapScore     *float64        `json:"clap_score,omitempty"`
	Verdicts      []foley.Verdict `json:"verdicts"`
	// Skipped says why a clap-passing candidate did not climb higher
	// (cost-aware verification stopped before it).
	Skipped string `json:"skipped,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Step is one pass of the loop: what was searched (or generated), what
// happened to each candidate, and what the policy decided.
type Step struct {
	Loop     int             `json:"loop"`
	Queries  []string        `json:"queries,omitempty"`   // searched (the first is the event's own, then variants)
	Refiner  string          `json:"refiner,omitempty"`   // who proposed the variants
	Generate string          `json:"generator,omitempty"` // the generator of a generated clip
	Trail    []Trail         `json:"candidates"`
	Decision policy.Decision `json:"decision"`
}

// Cost is what an event cost.
type Cost struct {
	ModelCalls   int64 `json:"model_calls"`
	FailedCalls  int64 `json:"failed_calls"`
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	// Expensive counts the verifications above clap (model calls, or the
	// deterministic stand-in's answers).
	Expensive   int `json:"expensive_verifications"`
	Cached      int `json:"cached_verdicts"`
	Searches    int `json:"searches"`
	Generations int `json:"generations"`
}

// Result is the outcome for one event.
type Result struct {
	Event foley.SoundEvent `json:"event"`
	// Action is the final decision: use or drop.
	Action     policy.Action    `json:"action"`
	Reason     string           `json:"reason"`
	Chosen     *foley.Candidate `json:"chosen,omitempty"`
	BestEffort bool             `json:"best_effort,omitempty"`
	Steps      []Step           `json:"steps"`
	Cost       Cost             `json:"cost"`
	// Error is set when the event could not be decided (a search or a
	// store failed); Action is then drop.
	Error string `json:"error,omitempty"`
}

// Searcher searches the library for a query.
type Searcher func(ctx context.Context, query string, k int, f foley.Filter) ([]foley.Candidate, error)

// LibrarySearcher searches lib, hybrid when emb is not nil.
func LibrarySearcher(lib foley.Library, emb foley.Embedder) Searcher {
	return func(ctx context.Context, query string, k int, f foley.Filter) ([]foley.Candidate, error) {
		q := foley.SearchQuery{Text: query, K: k, Filter: f}
		if emb != nil {
			v, err := emb.EmbedText(ctx, []string{query})
			if err != nil {
				return nil, err
			}
			q.Vector, q.Model = v[0], emb.Model()
		}
		return lib.Search(ctx, q)
	}
}

// Find runs the loop for each event, in order, and returns a result per
// event. It returns an error only for bad options or a cancelled context;
// an event that fails has its Error set and the others go on.
func Find(ctx context.Context, search Searcher, events []foley.SoundEvent, o Options) ([]Result, error) {
	o.defaults()
	if !o.Level.Valid() {
		return nil, foley.Errorf(foley.Invalid, "find: invalid verify level %q", o.Level.String())
	}
	if err := verify.CheckTau("tau_clap", o.TauClap); err != nil {
		return nil, err
	}
	if err := verify.CheckTau("tau_retrieve", o.TauRetrieve); err != nil {
		return nil, err
	}
	if err := o.Budget.Validate(); err != nil {
		return nil, err
	}
	if o.Generator != nil && o.Store == nil {
		return nil, foley.Errorf(foley.Invalid, "find: a generator needs a store for its clips")
	}
	budget := *o.Budget
	out := make([]Result, 0, len(events))
	for i, e := range events {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if err := e.Validate(); err != nil {
			return nil, err
		}
		if strings.TrimSpace(e.Query) == "" {
			return nil, foley.Errorf(foley.Invalid, "find: event %d has an empty query", i+1)
		}
		budget.StartEvent()
		r := findOne(ctx, search, e, &o, &budget)
		out = append(out, r)
		if o.Progress != nil {
			o.Progress(i+1, len(events))
		}
	}
	return out, ctx.Err()
}

// run is one event's state.
type run struct {
	o        *Options
	event    foley.SoundEvent
	judge    foley.Judge
	verified []foley.Candidate // every candidate with a verdict, across steps
	kept     []foley.Candidate // every licensed candidate, across steps
	shown    map[string]bool   // clips shown as kept out by the licence filter
	cost     Cost
}

func findOne(ctx context.Context, search Searcher, e foley.SoundEvent, o *Options, budget *policy.Budget) Result {
	var usage obs.Usage
	ctx = obs.WithUsage(ctx, &usage)
	ctx, span := obs.Tracer().Start(ctx, "find_event")
	defer span.End()
	r := &run{o: o, event: e, judge: o.Judge}
	if r.judge == nil && o.Level != foley.LevelClap {
		r.judge = verify.Judges{}.For(o.Level)
	}
	res := Result{Event: e}
	finish := func() Result {
		t := usage.Totals()
		r.cost.ModelCalls, r.cost.FailedCalls, r.cost.InputTokens, r.cost.OutputTokens = t.Calls, t.Failed, t.InputTokens, t.OutputTokens
		res.Cost = r.cost
		return res
	}
	fail := func(err error) Result {
		res.Action, res.Error = policy.Drop, err.Error()
		res.Reason = "silence: " + err.Error()
		return finish()
	}

	queries := []string{e.Query}
	tried := []string{e.Query}
	loop := 0
	step := Step{Loop: 0, Queries: queries}
	if err := r.searchStep(ctx, search, queries, &step); err != nil {
		return fail(err)
	}
	// decide asks the policy, and when it wants a refiner or a generator
	// that is not configured, asks again as if that budget were spent, and
	// says so.
	decide := func() (policy.Decision, error) {
		b, l, note := *budget, loop, ""
		for {
			d, err := policy.Decide(e, r.kept, r.verified, o.TauRetrieve, b, l)
			switch {
			case err != nil:
				return d, err
			case d.Action == policy.Refine && o.Refiner == nil:
				l, note = b.MaxRefine, note+"; refining was wanted but no refiner is configured"
			case d.Action == policy.Generate && o.Generator == nil:
				b.AllowGenerate, note = false, note+"; generation was wanted but no generator is configured (set ELEVENLABS_API_KEY)"
			default:
				d.Reason += note
				return d, nil
			}
		}
	}
	for {
		d, err := decide()
		if err != nil {
			return fail(err)
		}
		step.Decision = d
		res.Steps = append(res.Steps, step)
		switch d.Action {
		case policy.Use:
			res.Action, res.Reason, res.Chosen, res.BestEffort = policy.Use, d.Reason, d.Candidate, d.BestEffort
			return finish()
		case policy.Drop:
			res.Action, res.Reason = policy.Drop, d.Reason
			return finish()
		case policy.Refine:
			loop++
			variants, err := o.Refiner.Refine(ctx, e, r.failure(), tried, o.Variants)
			if err != nil {
				return fail(fmt.Errorf("refining %q with %s: %w", e.Query, o.Refiner.Name(), err))
			}
			variants = fresh(variants, tried)
			step = Step{Loop: loop, Queries: append([]string{e.Query}, variants...), Refiner: o.Refiner.Name()}
			if len(variants) == 0 {
				step.Queries = nil
				step.Refiner += " (no new query)"
				continue
			}
			tried = append(tried, variants...)
			if err := r.searchStep(ctx, search, step.Queries, &step); err != nil {
				return fail(err)
			}
		case policy.Generate:
			budget.Generated++
			r.cost.Generations++
			step = Step{Loop: loop, Generate: o.Generator.Name()}
			if err := r.generateStep(ctx, &step); err != nil {
				return fail(err)
			}
		}
	}
}

// searchStep searches each query, fuses the lists by reciprocal rank, gates
// the shortlist and verifies it.
func (r *run) searchStep(ctx context.Context, search Searcher, queries []string, step *Step) error {
	f := foley.Filter{CommercialOnly: r.o.Use.Commercial}
	var lists [][]foley.Candidate
	for _, q := range queries {
		res, err := search(ctx, q, r.o.K, f)
		r.cost.Searches++
		if err != nil {
			return fmt.Errorf("searching for %q: %w", q, err)
		}
		lists = append(lists, res)
	}
	cands := fuse(lists, r.o.K)
	for i := range cands {
		cands[i].Event = &r.event
	}
	r.verifyStep(ctx, cands, step)
	if f.CommercialOnly {
		r.showFiltered(ctx, search, queries[0], lists[0], step)
	}
	return nil
}

// showFiltered adds to the trail the clips that the licence filter kept
// out of query's shortlist (in the unfiltered top K but not in the
// filtered one, and dropped by the gate), each once per event, so that the
// filter is never a silent cut.
func (r *run) showFiltered(ctx context.Context, search Searcher, query string, filtered []foley.Candidate, step *Step) {
	all, err := search(ctx, query, r.o.K, foley.Filter{})
	if err != nil {
		return // the filtered search answered; this is only for show
	}
	in := map[string]bool{}
	for _, c := range filtered {
		in[c.Sound.ID] = true
	}
	var out []foley.Candidate
	for _, c := range all {
		if !in[c.Sound.ID] && !r.shown[c.Sound.ID] {
			out = append(out, c)
		}
	}
	for i, d := range license.Check(out, r.o.Use) {
		if d.OK {
			continue // ranked out by the filter's reshuffle, not kept out by it
		}
		if r.shown == nil {
			r.shown = map[string]bool{}
		}
		r.shown[out[i].Sound.ID] = true
		step.Trail = append(step.Trail, Trail{ID: out[i].Sound.ID, Caption: out[i].Sound.Caption, Origin: out[i].Origin, URI: out[i].Sound.URI,
			LicenseID: d.LicenseID, LicenseReason: "filtered out of the search: " + d.Reason, ClapScore: out[i].ClapScore})
	}
}

// generateStep asks the generator for a clip, stores it, and puts it
// through the gate and the ladder (with no clap score, it escalates
// straight to the higher rung).
func (r *run) generateStep(ctx context.Context, step *Step) error {
	clip, err := r.o.Generator.Generate(ctx, foley.GenerateRequest{Prompt: r.event.Query, Loop: r.event.Loop})
	if err != nil {
		return fmt.Errorf("generating %q with %s: %w", r.event.Query, r.o.Generator.Name(), err)
	}
	rec, err := r.o.Store.AddGenerated(ctx, clip, r.event)
	if err != nil {
		return fmt.Errorf("storing the clip generated for %q: %w", r.event.Query, err)
	}
	c := foley.Candidate{Sound: rec, Origin: foley.OriginGenerated, Event: &r.event}
	r.verifyStep(ctx, []foley.Candidate{c}, step)
	return nil
}

// verifyStep gates cands and verifies the kept ones cost-aware: the clap
// rung on every one; above clap only the best MaxExpensive clap-passing
// ones in clap order, stopping at the first that reaches tau_retrieve (or
// every clap-passing one when Exhaustive).
func (r *run) verifyStep(ctx context.Context, cands []foley.Candidate, step *Step) {
	o := r.o
	decisions := license.Check(cands, o.Use)
	trails := make([]Trail, len(cands))
	var climb []int // indexes of kept candidates that passed clap (or have no clap score)
	for i := range cands {
		c := &cands[i]
		d := decisions[i]
		c.LicenseOK = new(d.OK)
		trails[i] = Trail{ID: c.Sound.ID, Caption: c.Sound.Caption, Origin: c.Origin, URI: c.Sound.URI, LicenseOK: d.OK,
			LicenseID: d.LicenseID, LicenseReason: d.Reason, ClapScore: c.ClapScore}
		if !d.OK {
			continue
		}
		r.kept = appendOnce(r.kept, *c)
		if prev := r.verdictOf(c.Sound.ID); prev != nil {
			// Verified in an earlier step (a refined search found it
			// again): its verdict stands, and costs nothing more.
			trails[i].Verdicts = append(trails[i].Verdicts, *prev)
			trails[i].Skipped = "verified in an earlier step"
			continue
		}
		clap, _ := verify.ClapJudge{Tau: o.TauClap}.Judge(ctx, r.event, *c, foley.LevelClap)
		if c.ClapScore != nil {
			trails[i].Verdicts = append(trails[i].Verdicts, clap)
		}
		switch {
		case o.Level == foley.LevelClap:
			c.Verdict = &clap
			r.verified = appendOnce(r.verified, *c)
		case c.ClapScore != nil && !clap.Match:
			c.Verdict = &clap // failed the gate: the clap verdict is its answer
			r.verified = appendOnce(r.verified, *c)
		default:
			climb = append(climb, i)
		}
	}
	if o.Level != foley.LevelClap {
		slices.SortStableFunc(climb, func(a, b int) int { return cmpScore(cands[b].ClapScore, cands[a].ClapScore) })
		// record notes candidate i's verdict above clap, or its error.
		record := func(i int, v foley.Verdict, err error) {
			r.cost.Expensive++
			if err != nil {
				trails[i].Error = err.Error()
				return
			}
			if v.Cached {
				r.cost.Cached++
			}
			c := cands[i]
			c.Verdict = &v
			r.verified = appendOnce(r.verified, c)
			trails[i].Verdicts = append(trails[i].Verdicts, v)
		}
		if o.Exhaustive {
			kept := make([]foley.Candidate, len(climb))
			for k, i := range climb {
				kept[k] = cands[i]
			}
			results := verify.Shortlist(ctx, r.event, kept, verify.Options{Level: o.Level, TauClap: o.TauClap, Judge: r.judge, Concurrency: o.Concurrency})
			for k, i := range climb {
				record(i, results[k].Verdict, results[k].Err)
			}
		} else {
			done := false
			for n, i := range climb {
				switch {
				case done:
					trails[i].Skipped = "not verified above clap: an earlier candidate reached tau_retrieve"
				case n >= o.MaxExpensive:
					trails[i].Skipped = fmt.Sprintf("not verified above clap: only the best %d clap-passing candidates are (use exhaustive to verify all)", o.MaxExpensive)
				default:
					v, err := verify.Match(ctx, r.event, cands[i], o.Level, r.judge, o.TauClap)
					record(i, v, err)
					done = err == nil && v.Match && v.Confidence >= o.TauRetrieve
				}
			}
		}
	}
	step.Trail = append(step.Trail, trails...)
}

// verdictOf returns the verdict an earlier step gave the clip, or nil.
func (r *run) verdictOf(id string) *foley.Verdict {
	for i := range r.verified {
		if r.verified[i].Sound.ID == id {
			return r.verified[i].Verdict
		}
	}
	return nil
}

// failure is the reason of the best verdict so far, for the refiner.
func (r *run) failure() string {
	var best *foley.Candidate
	for i := range r.verified {
		c := &r.verified[i]
		if best == nil || c.Verdict.Confidence > best.Verdict.Confidence {
			best = c
		}
	}
	if best == nil {
		return "no candidate passed the licence gate"
	}
	return fmt.Sprintf("best candidate %q (%s): %s", best.Sound.ID, best.Sound.Caption, best.Verdict.Reason)
}

// fuse merges ranked lists by reciprocal rank fusion (k = 60), keeping each
// clip's scores from the list where it ranked best, and returns the first
// n. A single list comes back as it is.
func fuse(lists [][]foley.Candidate, n int) []foley.Candidate {
	if len(lists) == 1 {
		return lists[0][:min(n, len(lists[0]))]
	}
	type entry struct {
		c     foley.Candidate
		score float64
		best  int
	}
	byID := map[string]*entry{}
	var order []string
	for _, list := range lists {
		for rank, c := range list {
			e := byID[c.Sound.ID]
			if e == nil {
				e = &entry{c: c, best: rank}
				byID[c.Sound.ID] = e
				order = append(order, c.Sound.ID)
			} else if rank < e.best {
				e.c, e.best = c, rank
			}
			e.score += 1 / float64(60+rank+1)
		}
	}
	slices.SortStableFunc(order, func(a, b string) int {
		sa, sb := byID[a].score, byID[b].score
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	out := make([]foley.Candidate, 0, min(n, len(order)))
	for _, id := range order[:min(n, len(order))] {
		e := byID[id]
		c := e.c
		c.RRFScore = new(e.score)
		out = append(out, c)
	}
	return out
}

// fresh drops variants that are empty, repeated or already tried (ignoring
// case and spacing).
func fresh(variants, tried []string) []string {
	norm := func(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }
	seen := map[string]bool{}
	for _, t := range tried {
		seen[norm(t)] = true
	}
	var out []string
	for _, v := range variants {
		k := norm(v)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, strings.TrimSpace(v))
	}
	return out
}

// appendOnce appends c unless a candidate with its id is there, in which
// case the one with a verdict (or the newer one) replaces it.
func appendOnce(list []foley.Candidate, c foley.Candidate) []foley.Candidate {
	for i := range list {
		if list[i].Sound.ID == c.Sound.ID {
			if c.Verdict != nil || list[i].Verdict == nil {
				list[i] = c
			}
			return list
		}
	}
	return append(list, c)
}

// cmpScore orders scores, a missing one (a generated clip) above any.
func cmpScore(a, b *float64) int {
	av, bv := math.Inf(1), math.Inf(1)
	if a != nil {
		av = *a
	}
	if b != nil {
		bv = *b
	}
	switch {
	case av < bv:
		return -1
	case av > bv:
		return 1
	}
	return 0
}
