// Package server exposes foley over the network: a JSON HTTP API and Model
// Context Protocol tools, both thin layers over Service, whose methods call
// the same functions the CLI does (the library's Search, license.Check,
// verify.Shortlist, find.Find).
package server

import (
	"context"
	"strings"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/find"
	"github.com/foley-audio/foley/license"
	"github.com/foley-audio/foley/policy"
	"github.com/foley-audio/foley/verify"
)

// Limits on one request.
const (
	MaxCandidates = 256 // candidates or ids per verify request
	MaxEvents     = 64  // events per find request
)

// Service holds what the API needs. It is safe for concurrent use.
type Service struct {
	Lib foley.Store
	Emb foley.Embedder // the library's embedder; nil for BM25-only search
	// Judges answer the rungs above clap (listen, judge); a missing one is
	// the deterministic stand-in.
	Judges    map[foley.VerifyLevel]foley.Judge
	Refiner   foley.Refiner
	Generator foley.Generator
	Store     find.ClipStore
	Version   string
}

func (s *Service) judge(level foley.VerifyLevel) foley.Judge {
	if j, ok := s.Judges[level]; ok && j != nil {
		return j
	}
	return verify.Judges{}.For(level)
}

// SearchRequest is a library search.
type SearchRequest struct {
	Query          string   `json:"q"`
	K              int      `json:"k,omitempty"`
	LicenseIDs     []string `json:"license,omitempty"`
	CommercialOnly bool     `json:"commercial,omitempty"`
	MinDurationS   float64  `json:"min_duration,omitempty"`
	MaxDurationS   float64  `json:"max_duration,omitempty"`
	UCSCategory    string   `json:"ucs,omitempty"`
}

// Search runs a hybrid search of the library.
func (s *Service) Search(ctx context.Context, req SearchRequest) ([]foley.Candidate, error) {
	q := strings.TrimSpace(req.Query)
	switch {
	case q == "":
		return nil, foley.Errorf(foley.Invalid, "q: the query is empty")
	case req.K < 0 || req.K > foley.MaxK:
		return nil, foley.Errorf(foley.Invalid, "k: must be 1..%d, got %d", foley.MaxK, req.K)
	case req.MinDurationS < 0 || req.MaxDurationS < 0 || (req.MaxDurationS > 0 && req.MaxDurationS < req.MinDurationS):
		return nil, foley.Errorf(foley.Invalid, "min_duration %g and max_duration %g make no range", req.MinDurationS, req.MaxDurationS)
	}
	k := req.K
	if k == 0 {
		k = 10
	}
	sq := foley.SearchQuery{Text: q, K: k, Filter: foley.Filter{LicenseIDs: req.LicenseIDs, CommercialOnly: req.CommercialOnly,
		MinDurationS: req.MinDurationS, MaxDurationS: req.MaxDurationS, UCSCategory: req.UCSCategory}}
	if s.Emb != nil {
		v, err := s.Emb.EmbedText(ctx, []string{q})
		if err != nil {
			return nil, err
		}
		sq.Vector, sq.Model = v[0], s.Emb.Model()
	}
	res, err := s.Lib.Search(ctx, sq)
	if res == nil && err == nil {
		res = []foley.Candidate{}
	}
	return res, err
}

// Sound returns a library record.
func (s *Service) Sound(ctx context.Context, id string) (foley.SoundRecord, error) {
	if strings.TrimSpace(id) == "" {
		return foley.SoundRecord{}, foley.Errorf(foley.Invalid, "id: empty")
	}
	return s.Lib.Get(ctx, id)
}

// VerifyRequest asks to gate and verify candidates against an event: the
// candidates themselves, or ids of library records.
type VerifyRequest struct {
	Event      foley.SoundEvent  `json:"event"`
	Candidates []foley.Candidate `json:"candidates,omitempty"`
	IDs        []string          `json:"ids,omitempty"`
	Level      string            `json:"level,omitempty"`    // clap, listen (default) or judge
	TauClap    *float64          `json:"tau_clap,omitempty"` // default 0.35
	Use        string            `json:"use,omitempty"`      // as foley verify --use; default commercial,publish,attribute
}

// VerifyRow is one candidate's outcome, in request order.
type VerifyRow struct {
	Index         int            `json:"index"`
	ID            string         `json:"id"`
	LicenseOK     bool           `json:"license_ok"`
	LicenseID     string         `json:"license_id"`
	LicenseReason string         `json:"license_reason"`
	Verdict       *foley.Verdict `json:"verdict"` // null when dropped or failed
	Error         string         `json:"error,omitempty"`
	ErrorCode     string         `json:"error_code,omitempty"`
}

// VerifyResponse is the outcome of Verify.
type VerifyResponse struct {
	Level string      `json:"level"`
	Judge string      `json:"judge"`
	Rows  []VerifyRow `json:"rows"`
}

func parseLevel(s string) (foley.VerifyLevel, error) {
	if s == "" {
		return foley.LevelListen, nil
	}
	l, err := foley.ParseVerifyLevel(s)
	if err != nil {
		return 0, foley.Errorf(foley.Invalid, "level: %v", err)
	}
	return l, nil
}

func parseUse(s string) (foley.IntendedUse, error) {
	if s == "" {
		return foley.DefaultUse(), nil
	}
	u, err := foley.ParseIntendedUse(s)
	if err != nil {
		return u, foley.Errorf(foley.Invalid, "use: %v", err)
	}
	return u, nil
}

func tau(name string, v *float64, def float64) (float64, error) {
	if v == nil {
		return def, nil
	}
	if err := verify.CheckTau(name, *v); err != nil {
		return 0, err
	}
	return *v, nil
}

// Verify gates the candidates for the intended use and verifies the kept
// ones up to the level, concurrently. A judge that fails gives its row an
// error; when every kept candidate failed for want of a service, Verify
// returns an Unavailable error.
func (s *Service) Verify(ctx context.Context, req VerifyRequest) (VerifyResponse, error) {
	if strings.TrimSpace(req.Event.Query) == "" {
		return VerifyResponse{}, foley.Errorf(foley.Invalid, "event.query: empty")
	}
	level, err := parseLevel(req.Level)
	if err != nil {
		return VerifyResponse{}, err
	}
	tauClap, err := tau("tau_clap", req.TauClap, verify.DefaultTauClap)
	if err != nil {
		return VerifyResponse{}, err
	}
	use, err := parseUse(req.Use)
	if err != nil {
		return VerifyResponse{}, err
	}
	cands := req.Candidates
	switch {
	case len(cands) > 0 && len(req.IDs) > 0:
		return VerifyResponse{}, foley.Errorf(foley.Invalid, "candidates and ids: give one or the other")
	case len(cands) == 0 && len(req.IDs) == 0:
		return VerifyResponse{}, foley.Errorf(foley.Invalid, "candidates: give candidates or ids of library sounds")
	case len(cands) > MaxCandidates || len(req.IDs) > MaxCandidates:
		return VerifyResponse{}, foley.Errorf(foley.Invalid, "candidates: at most %d per request", MaxCandidates)
	}
	for i, c := range cands {
		if c.Sound.ID == "" {
			return VerifyResponse{}, foley.Errorf(foley.Invalid, "candidates[%d].sound.id: empty", i)
		}
		// What the caller says about the gate is not trusted: the gate
		// runs here.
		cands[i].LicenseOK = nil
	}
	if len(req.IDs) > 0 {
		// Library sounds: their clap score is the cosine of the event's
		// query with their vector, as a search would give it.
		for i, id := range req.IDs {
			rec, err := s.Lib.Get(ctx, id)
			if err != nil {
				if foley.CodeOf(err) == foley.NotFound {
					return VerifyResponse{}, foley.Errorf(foley.NotFound, "ids[%d]: no sound %q in the library", i, id)
				}
				return VerifyResponse{}, err
			}
			cands = append(cands, foley.Candidate{Sound: rec, Origin: foley.OriginRetrieved})
		}
		if err := s.scoreClap(ctx, req.Event.Query, cands); err != nil {
			return VerifyResponse{}, err
		}
	}
	judge := s.judge(level)
	resp := VerifyResponse{Level: level.String(), Judge: judge.Name(), Rows: make([]VerifyRow, len(cands))}
	if level == foley.LevelClap {
		resp.Judge = "clap"
	}
	decisions := license.Check(cands, use)
	var kept []foley.Candidate
	var at []int
	for i, c := range cands {
		d := decisions[i]
		resp.Rows[i] = VerifyRow{Index: i, ID: c.Sound.ID, LicenseOK: d.OK, LicenseID: d.LicenseID, LicenseReason: d.Reason}
		if d.OK {
			c.LicenseOK = new(true)
			kept = append(kept, c)
			at = append(at, i)
		}
	}
	results := verify.Shortlist(ctx, req.Event, kept, verify.Options{Level: level, TauClap: tauClap, Judge: judge})
	unavailable := 0
	for k, r := range results {
		row := &resp.Rows[at[k]]
		if r.Err != nil {
			row.Error, row.ErrorCode = r.Err.Error(), string(foley.CodeOf(r.Err))
			if foley.CodeOf(r.Err) == foley.Unavailable {
				unavailable++
			}
			continue
		}
		v := r.Verdict
		row.Verdict = &v
	}
	if len(kept) > 0 && unavailable == len(kept) {
		return resp, foley.Errorf(foley.Unavailable, "verify: the %s judge could not be reached for any candidate: %s", resp.Judge, resp.Rows[at[0]].Error)
	}
	return resp, nil
}

// scoreClap sets each candidate's clap score from the library's vectors:
// the cosine of the query's embedding with the record's, as a search would
// give it. Records without a vector keep none.
func (s *Service) scoreClap(ctx context.Context, query string, cands []foley.Candidate) error {
	if s.Emb == nil {
		return nil
	}
	v, err := s.Emb.EmbedText(ctx, []string{query})
	if err != nil {
		return err
	}
	ids := make([]string, len(cands))
	for i, c := range cands {
		ids[i] = c.Sound.ID
	}
	cos, err := s.Lib.Cosines(ctx, ids, v[0], s.Emb.Model())
	if err != nil {
		return err
	}
	for i := range cands {
		if c, ok := cos[cands[i].Sound.ID]; ok {
			cands[i].ClapScore = new(c)
		}
	}
	return nil
}

// FindOptions tune a find request; absent fields take the CLI's defaults.
type FindOptions struct {
	K            int      `json:"k,omitempty"`
	TauClap      *float64 `json:"tau_clap,omitempty"`
	TauRetrieve  *float64 `json:"tau_retrieve,omitempty"`
	MaxExpensive int      `json:"max_expensive,omitempty"`
	Exhaustive   bool     `json:"exhaustive,omitempty"`
	MaxRefine    *int     `json:"max_refine,omitempty"`
	MaxGenerate  *int     `json:"max_generate,omitempty"`
	NoGenerate   bool     `json:"no_generate,omitempty"`
}

// FindRequest asks for clips for events.
type FindRequest struct {
	Events  []foley.SoundEvent `json:"events"`
	Level   string             `json:"level,omitempty"`
	Use     string             `json:"use,omitempty"`
	Options FindOptions        `json:"options,omitempty"`
}

// FindResponse is the outcome of Find.
type FindResponse struct {
	Level     string        `json:"level"`
	Judge     string        `json:"judge"`
	Refiner   string        `json:"refiner"`
	Generator string        `json:"generator"`
	Results   []find.Result `json:"results"`
	Credits   []find.Credit `json:"credits"`
}

// Find runs the loop for each event.
func (s *Service) Find(ctx context.Context, req FindRequest) (FindResponse, error) {
	switch {
	case len(req.Events) == 0:
		return FindResponse{}, foley.Errorf(foley.Invalid, "events: give at least one event")
	case len(req.Events) > MaxEvents:
		return FindResponse{}, foley.Errorf(foley.Invalid, "events: at most %d per request", MaxEvents)
	}
	for i, e := range req.Events {
		if strings.TrimSpace(e.Query) == "" {
			return FindResponse{}, foley.Errorf(foley.Invalid, "events[%d].query: empty", i)
		}
	}
	level, err := parseLevel(req.Level)
	if err != nil {
		return FindResponse{}, err
	}
	use, err := parseUse(req.Use)
	if err != nil {
		return FindResponse{}, err
	}
	o := req.Options
	tauClap, err := tau("options.tau_clap", o.TauClap, verify.DefaultTauClap)
	if err != nil {
		return FindResponse{}, err
	}
	tauRetrieve, err := tau("options.tau_retrieve", o.TauRetrieve, policy.DefaultTauRetrieve)
	if err != nil {
		return FindResponse{}, err
	}
	if o.K < 0 || o.K > foley.MaxK || o.MaxExpensive < 0 {
		return FindResponse{}, foley.Errorf(foley.Invalid, "options: k must be 0..%d and max_expensive >= 0", foley.MaxK)
	}
	budget := policy.DefaultBudget()
	if o.MaxRefine != nil {
		budget.MaxRefine = *o.MaxRefine
	}
	if o.MaxGenerate != nil {
		budget.MaxGenerate = *o.MaxGenerate
	}
	budget.AllowGenerate = !o.NoGenerate
	if err := budget.Validate(); err != nil {
		return FindResponse{}, foley.Errorf(foley.Invalid, "options: %v", err)
	}
	opts := find.Options{K: o.K, Level: level, TauClap: tauClap, TauRetrieve: tauRetrieve, Use: use, Budget: &budget,
		MaxExpensive: o.MaxExpensive, Exhaustive: o.Exhaustive, Refiner: s.Refiner}
	resp := FindResponse{Level: level.String(), Judge: "clap", Refiner: "none", Generator: "none"}
	if level != foley.LevelClap {
		opts.Judge = s.judge(level)
		resp.Judge = opts.Judge.Name()
	}
	if s.Refiner != nil {
		resp.Refiner = s.Refiner.Name()
	}
	if s.Generator != nil && s.Store != nil && !o.NoGenerate {
		opts.Generator, opts.Store = s.Generator, s.Store
		resp.Generator = s.Generator.Name()
	}
	results, err := find.Find(ctx, find.LibrarySearcher(s.Lib, s.Emb), req.Events, opts)
	if err != nil {
		return FindResponse{}, err
	}
	resp.Results = results
	resp.Credits = find.Credits(results)
	if resp.Credits == nil {
		resp.Credits = []find.Credit{}
	}
	return resp, nil
}
