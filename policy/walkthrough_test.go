package policy_test

import (
	"strings"
	"testing"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/policy"
)

// TestWalkthrough simulates foley's loop for one diegetic event whose
// verdicts never reach tau_retrieve: refine twice, generate once, then fall
// back to a best-effort clip or to silence.
func TestWalkthrough(t *testing.T) {
	tests := []struct {
		name     string
		verified []foley.Candidate
		final    policy.Action
		finalID  string
	}{
		{
			name:     "a weak match exists: best effort",
			verified: cands(cand("creak", false, 0.7), cand("thud", true, 0.35), cand("slam", true, 0.42)),
			final:    policy.Use,
			finalID:  "slam",
		},
		{
			name:     "nothing matches: drop",
			verified: cands(cand("creak", false, 0.7), cand("bell", false, 0.2)),
			final:    policy.Drop,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			event := foley.NewEvent("a heavy wooden door slams shut")
			kept := make([]foley.Candidate, len(tc.verified))
			for i, c := range tc.verified {
				kept[i] = c
				kept[i].Verdict = nil
			}
			b := policy.DefaultBudget()
			b.StartEvent()

			for loop, want := range []string{"refine 1 of 2", "refine 2 of 2"} {
				d, err := policy.Decide(event, kept, tc.verified, policy.DefaultTauRetrieve, b, loop)
				if err != nil {
					t.Fatalf("loop %d: %v", loop, err)
				}
				if d.Action != policy.Refine || !strings.Contains(d.Reason, want) {
					t.Fatalf("loop %d: %v %q, want refine with %q", loop, d.Action, d.Reason, want)
				}
			}

			d, err := policy.Decide(event, kept, tc.verified, policy.DefaultTauRetrieve, b, 2)
			if err != nil {
				t.Fatalf("loop 2: %v", err)
			}
			if d.Action != policy.Generate || d.Reason == "" {
				t.Fatalf("loop 2: %v %q, want generate", d.Action, d.Reason)
			}
			b.Generated++ // the generation was spent (and its clip did not help)

			d, err = policy.Decide(event, kept, tc.verified, policy.DefaultTauRetrieve, b, 2)
			if err != nil {
				t.Fatalf("after generation: %v", err)
			}
			if d.Action != tc.final {
				t.Fatalf("after generation: %v %q, want %v", d.Action, d.Reason, tc.final)
			}
			switch tc.final {
			case policy.Use:
				if !d.BestEffort || candID(d) != tc.finalID {
					t.Errorf("after generation: best effort %v candidate %q, want best effort %q", d.BestEffort, candID(d), tc.finalID)
				}
			case policy.Drop:
				for _, s := range []string{"silence", "generation budget spent"} {
					if !strings.Contains(d.Reason, s) {
						t.Errorf("drop reason %q does not contain %q", d.Reason, s)
					}
				}
			}

			// The next event gets a fresh generation.
			b.StartEvent()
			d, err = policy.Decide(event, kept, tc.verified, policy.DefaultTauRetrieve, b, 2)
			if err != nil || d.Action != policy.Generate {
				t.Errorf("next event, loop 2: %v %q %v, want generate", d.Action, d.Reason, err)
			}
		})
	}
}
