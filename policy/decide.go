// Package policy holds the single decision of foley's loop: given the
// licensed and verified candidates for an event, use a clip, refine the query
// and search again, generate a clip, or choose silence. It is pure: no I/O,
// no clock, no randomness.
package policy

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/foley-audio/foley"
)

// DefaultTauRetrieve is the confidence a verified clip needs to be used
// without further search.
const DefaultTauRetrieve = 0.5

// Action is what the loop does next for an event.
type Action int

// The actions.
const (
	Use      Action = iota + 1 // use Decision.Candidate
	Refine                     // rewrite the query and search again
	Generate                   // ask a generator for a clip
	Drop                       // choose silence
)

var actionNames = []string{"", "use", "refine", "generate", "drop"}

func (a Action) String() string {
	if a > 0 && int(a) < len(actionNames) {
		return actionNames[a]
	}
	return fmt.Sprintf("action(%d)", int(a))
}

// MarshalText implements encoding.TextMarshaler.
func (a Action) MarshalText() ([]byte, error) {
	if a <= 0 || int(a) >= len(actionNames) {
		return nil, fmt.Errorf("invalid action %d", int(a))
	}
	return []byte(a.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler: use, refine, generate
// or drop.
func (a *Action) UnmarshalText(b []byte) error {
	for i, n := range actionNames {
		if i > 0 && n == string(b) {
			*a = Action(i)
			return nil
		}
	}
	return fmt.Errorf("invalid action %q (valid: use, refine, generate, drop)", b)
}

// Budget bounds the work spent on an event.
type Budget struct {
	MaxRefine     int  `json:"max_refine"`      // refine loops allowed
	MaxGenerate   int  `json:"max_generate"`    // generations allowed
	AllowGenerate bool `json:"allow_generate"`  // generation is permitted at all
	ResetPerEvent bool `json:"reset_per_event"` // StartEvent zeroes what was spent
	Generated     int  `json:"generated"`       // generations spent so far
}

// DefaultBudget allows two refine loops and one generation per event.
func DefaultBudget() Budget {
	return Budget{MaxRefine: 2, MaxGenerate: 1, AllowGenerate: true, ResetPerEvent: true}
}

// CanGenerate reports whether a generation is allowed and left.
func (b Budget) CanGenerate() bool { return b.AllowGenerate && b.Generated < b.MaxGenerate }

// StartEvent begins a new event: with ResetPerEvent, what was spent on the
// last one is forgotten; without it, the budget is shared by all events.
func (b *Budget) StartEvent() {
	if b.ResetPerEvent {
		b.Generated = 0
	}
}

// Validate reports a negative limit or count as an Invalid error.
func (b Budget) Validate() error {
	switch {
	case b.MaxRefine < 0:
		return foley.Errorf(foley.Invalid, "budget: max_refine must be >= 0, got %d", b.MaxRefine)
	case b.MaxGenerate < 0:
		return foley.Errorf(foley.Invalid, "budget: max_generate must be >= 0, got %d", b.MaxGenerate)
	case b.Generated < 0:
		return foley.Errorf(foley.Invalid, "budget: generated must be >= 0, got %d", b.Generated)
	}
	return nil
}

// Decision is what to do next for an event, and why.
type Decision struct {
	Action    Action           `json:"action"`
	Candidate *foley.Candidate `json:"candidate,omitempty"` // the clip to use (Use only)
	// BestEffort marks a Use of a clip that matched but stayed below
	// tau_retrieve, chosen because every budget was spent.
	BestEffort bool   `json:"best_effort,omitempty"`
	Reason     string `json:"reason"`
}

// Decide chooses the next step for event. kept are the candidates the
// licence gate kept; verified are candidates that went through the ladder
// (each with a verdict); loop is the number of refine loops already done for
// this event. In order:
//
//  1. a non-diegetic event generates while the budget allows, unless a
//     generated clip already reached tau_retrieve;
//  2. the best matching verified clip with confidence >= tauRetrieve is used;
//  3. else the query is refined while loop < MaxRefine;
//  4. else a clip is generated while the generation budget lasts;
//  5. else the best matching verified clip is used as a best effort;
//  6. else silence.
//
// The best clip is the matching one of highest confidence; ties go to the
// earlier one. A candidate that has not passed the gate is an Unlicensed
// error and one without a verdict an Invalid one: deciding on them is a bug.
func Decide(event foley.SoundEvent, kept, verified []foley.Candidate, tauRetrieve float64, budget Budget, loop int) (Decision, error) {
	if math.IsNaN(tauRetrieve) || tauRetrieve < 0 || tauRetrieve > 1 {
		return Decision{}, foley.Errorf(foley.Invalid, "decide: tau_retrieve must be between 0 and 1, got %g", tauRetrieve)
	}
	if loop < 0 {
		return Decision{}, foley.Errorf(foley.Invalid, "decide: loop must be >= 0, got %d", loop)
	}
	if err := budget.Validate(); err != nil {
		return Decision{}, err
	}
	for _, c := range slices.Concat(kept, verified) {
		if !c.Licensed() {
			return Decision{}, foley.Errorf(foley.Unlicensed, "decide: candidate %q has not passed the licence gate", c.Sound.ID)
		}
	}
	var best *foley.Candidate
	generatedOK := false
	for i := range verified {
		c := &verified[i]
		if c.Verdict == nil {
			return Decision{}, foley.Errorf(foley.Invalid, "decide: candidate %q has no verdict; verify before deciding", c.Sound.ID)
		}
		if !c.Verdict.Match {
			continue
		}
		if best == nil || c.Verdict.Confidence > best.Verdict.Confidence {
			best = c
		}
		if c.Origin == foley.OriginGenerated && c.Verdict.Confidence >= tauRetrieve {
			generatedOK = true
		}
	}
	gen := func() string { return fmt.Sprintf("generation %d of %d", budget.Generated+1, budget.MaxGenerate) }

	if !event.IsDiegetic() && budget.CanGenerate() && !generatedOK {
		return Decision{Action: Generate, Reason: "non-diegetic event: a generated sound is preferred (" + gen() + ")"}, nil
	}
	if best != nil && best.Verdict.Confidence >= tauRetrieve {
		return Decision{Action: Use, Candidate: clone(best),
			Reason: fmt.Sprintf("%s: confidence %.3f >= tau_retrieve %g", describe(best), best.Verdict.Confidence, tauRetrieve)}, nil
	}
	why := shortfall(kept, verified, best, tauRetrieve)
	if loop < budget.MaxRefine {
		return Decision{Action: Refine, Reason: fmt.Sprintf("%s; refine %d of %d", why, loop+1, budget.MaxRefine)}, nil
	}
	if budget.CanGenerate() {
		return Decision{Action: Generate, Reason: fmt.Sprintf("%s; refine budget spent; %s", why, gen())}, nil
	}
	if best != nil {
		return Decision{Action: Use, Candidate: clone(best), BestEffort: true,
			Reason: fmt.Sprintf("best effort, every budget spent: %s: confidence %.3f < tau_retrieve %g", describe(best), best.Verdict.Confidence, tauRetrieve)}, nil
	}
	spent := "refine budget spent"
	switch {
	case !budget.AllowGenerate:
		spent += ", generation not allowed"
	default:
		spent += ", generation budget spent"
	}
	return Decision{Action: Drop, Reason: fmt.Sprintf("silence: %s; %s", why, spent)}, nil
}

// shortfall says why no clip can be used outright.
func shortfall(kept, verified []foley.Candidate, best *foley.Candidate, tau float64) string {
	switch {
	case len(kept) == 0 && len(verified) == 0:
		return "no candidate passed the licence gate"
	case best != nil:
		return fmt.Sprintf("best match %s has confidence %.3f < tau_retrieve %g", describe(best), best.Verdict.Confidence, tau)
	case len(verified) == 0:
		return fmt.Sprintf("%d licensed candidates, none verified", len(kept))
	}
	reasons := make([]string, 0, len(verified))
	for _, c := range verified {
		reasons = append(reasons, fmt.Sprintf("%s: %s", c.Sound.ID, c.Verdict.Reason))
		if len(reasons) == 3 {
			break
		}
	}
	return fmt.Sprintf("none of %d verified candidates matched (%s)", len(verified), strings.Join(reasons, "; "))
}

// describe names a matching candidate and who matched it.
func describe(c *foley.Candidate) string {
	judge := c.Verdict.Judge
	if judge == "" {
		judge = "an unnamed judge"
	}
	return fmt.Sprintf("%q (matched by %s at %s)", c.Sound.ID, judge, c.Verdict.Level)
}

func clone(c *foley.Candidate) *foley.Candidate {
	cp := c.Clone()
	return &cp
}
