// Package verify is the verify ladder: the rungs clap, listen and judge, the
// deterministic judges that need no model, and the resolution of which judge
// answers at which rung.
package verify

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/foley-audio/foley"
)

// DefaultTauClap is the clap rung's default threshold on the retrieval
// cosine.
const DefaultTauClap = 0.35

// DefaultOverlapThreshold is the StringOverlapJudge's default threshold.
const DefaultOverlapThreshold = 0.3

// ClapJudge is the clap rung: it gates on the candidate's retrieval cosine.
// No model, no network. It matches iff clap_score >= Tau; a missing score
// counts as 0. The confidence is the score clamped to 0..1, so that it
// compares with the higher rungs' confidences.
type ClapJudge struct {
	Tau float64
}

// Name implements foley.Judge.
func (ClapJudge) Name() string { return "clap" }

// Judge implements foley.Judge. The verdict's level is always clap, whatever
// level is asked.
func (j ClapJudge) Judge(_ context.Context, _ foley.SoundEvent, c foley.Candidate, _ foley.VerifyLevel) (foley.Verdict, error) {
	score, shown := 0.0, "none (counted as 0)"
	if c.ClapScore != nil && !math.IsNaN(*c.ClapScore) {
		score = *c.ClapScore
		shown = fmt.Sprintf("%.3f", score)
	}
	return foley.Verdict{
		Match:      score >= j.Tau,
		Confidence: clamp01(score),
		Reason:     fmt.Sprintf("clap_score=%s vs tau=%g", shown, j.Tau),
		Level:      foley.LevelClap,
		Judge:      j.Name(),
	}, nil
}

func clamp01(x float64) float64 { return math.Max(0, math.Min(1, x)) }

// StringOverlapJudge is the deterministic stand-in for the listen and judge
// rungs when no model is configured, and the hermetic judge of the tests. It
// compares words, not sound: the Jaccard overlap of the event query's
// tokens with the tokens of the candidate's caption and tags. It never hears
// the clip, and its reasons say so.
type StringOverlapJudge struct {
	Threshold float64
}

// Name implements foley.Judge.
func (StringOverlapJudge) Name() string { return "string-overlap" }

// Judge implements foley.Judge. The verdict echoes the requested level.
func (j StringOverlapJudge) Judge(_ context.Context, e foley.SoundEvent, c foley.Candidate, level foley.VerifyLevel) (foley.Verdict, error) {
	query := tokens(e.Query)
	text := tokens(c.Sound.Caption)
	for _, t := range c.Sound.Tags {
		for tok := range tokens(t) {
			text[tok] = struct{}{}
		}
	}
	overlap := jaccard(query, text)
	return foley.Verdict{
		Match:      overlap >= j.Threshold,
		Confidence: overlap,
		Reason: fmt.Sprintf("word overlap %.3f vs threshold %g (query vs caption and tags; text only, audio not heard)",
			overlap, j.Threshold),
		Level: level,
		Judge: j.Name(),
	}, nil
}

var tokenRE = regexp.MustCompile(`[a-z0-9]+`)

// tokens returns the set of runs of [a-z0-9] in the lower-cased text.
func tokens(s string) map[string]struct{} {
	set := map[string]struct{}{}
	for _, t := range tokenRE.FindAllString(strings.ToLower(s), -1) {
		set[t] = struct{}{}
	}
	return set
}

// jaccard is |a ∩ b| / |a ∪ b|, and 0 when both are empty.
func jaccard(a, b map[string]struct{}) float64 {
	inter := 0
	for t := range a {
		if _, ok := b[t]; ok {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}
