package find

import (
	"context"

	"github.com/foley-audio/foley"
)

// Comparison is what cost-aware verification saves against exhaustive
// verification on a set of events, and what it costs in decisions.
type Comparison struct {
	Events     int `json:"events"`
	CostAware  int `json:"cost_aware_verifications"` // above clap
	Exhaustive int `json:"exhaustive_verifications"`
	Same       int `json:"same_decision"` // the same action and the same clip
	// Differ lists the events decided differently.
	Differ []string `json:"differ,omitempty"`
}

// Ratio is the cost-aware verifications over the exhaustive ones.
func (c Comparison) Ratio() float64 {
	if c.Exhaustive == 0 {
		return 0
	}
	return float64(c.CostAware) / float64(c.Exhaustive)
}

// Agreement is the share of events decided the same.
func (c Comparison) Agreement() float64 {
	if c.Events == 0 {
		return 1
	}
	return float64(c.Same) / float64(c.Events)
}

// CompareExhaustive runs Find twice over events, cost-aware and
// exhaustive, with the same options otherwise, and compares.
func CompareExhaustive(ctx context.Context, search Searcher, events []foley.SoundEvent, o Options) (Comparison, error) {
	o.Exhaustive = false
	lean, err := Find(ctx, search, events, o)
	if err != nil {
		return Comparison{}, err
	}
	o.Exhaustive = true
	full, err := Find(ctx, search, events, o)
	if err != nil {
		return Comparison{}, err
	}
	cmp := Comparison{Events: len(events)}
	for i := range lean {
		cmp.CostAware += lean[i].Cost.Expensive
		cmp.Exhaustive += full[i].Cost.Expensive
		if lean[i].Action == full[i].Action && chosenID(lean[i]) == chosenID(full[i]) {
			cmp.Same++
		} else {
			cmp.Differ = append(cmp.Differ, events[i].Query)
		}
	}
	return cmp, nil
}

func chosenID(r Result) string {
	if r.Chosen == nil {
		return ""
	}
	return r.Chosen.Sound.ID
}
