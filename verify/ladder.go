package verify

import (
	"context"
	"math"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/obs"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Judges holds the model judges configured for the rungs above clap. A nil
// field means none is configured for that rung.
type Judges struct {
	Listen foley.Judge // an audio language model that hears the clip
	Judge  foley.Judge // an LLM arbiter
}

// For returns the judge that answers at level: ClapJudge at the default
// threshold for clap; for listen and judge the configured model judge, or,
// when none is configured (the zero-config default), a StringOverlapJudge.
func (j Judges) For(level foley.VerifyLevel) foley.Judge {
	var m foley.Judge
	switch level {
	case foley.LevelClap:
		return ClapJudge{Tau: DefaultTauClap}
	case foley.LevelListen:
		m = j.Listen
	case foley.LevelJudge:
		m = j.Judge
	}
	if m == nil {
		return StringOverlapJudge{Threshold: DefaultOverlapThreshold}
	}
	return m
}

// Match verifies candidate c against event up to rung level (the seed's
// verify_match). The ladder is AND-confirming:
//
//   - c must have passed the licence gate (LicenseOK true), or Match
//     returns an Unlicensed error and no verdict;
//   - the clap rung always runs (ClapJudge with tauClap); at level clap its
//     verdict is the answer;
//   - above clap, a candidate whose clap gate fails gets the clap verdict
//     back, unless it has no clap score at all (a generated clip), which
//     escalates straight to the higher rung;
//   - the higher rung is judge, or Judges{}.For(level) when judge is nil;
//     its verdict comes back with Level set to level.
//
// A judge's error is returned as an error, never as a match.
//
// Match records an OpenTelemetry span named "verify_match" (see
// SpanVerifyMatch) with the level, the candidate id and the outcome; model
// judges record their calls as its children.
func Match(ctx context.Context, event foley.SoundEvent, c foley.Candidate, level foley.VerifyLevel, judge foley.Judge, tauClap float64) (foley.Verdict, error) {
	ctx, span := obs.Tracer().Start(ctx, SpanVerifyMatch, trace.WithAttributes(
		attribute.String(AttrLevel, level.String()),
		attribute.String(AttrCandidateID, c.Sound.ID),
	))
	defer span.End()
	v, err := match(ctx, event, c, level, judge, tauClap)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
		span.SetAttributes(attribute.String(obs.AttrErrorType, string(foley.CodeOf(err))))
		return v, err
	}
	span.SetAttributes(
		attribute.Bool(AttrMatch, v.Match),
		attribute.Float64(AttrConfidence, v.Confidence),
		attribute.String(AttrJudge, v.Judge),
		attribute.String(AttrVerdictLevel, v.Level.String()),
		attribute.Bool(AttrCached, v.Cached),
	)
	return v, nil
}

// The span Match records, and its attributes.
const (
	SpanVerifyMatch  = "verify_match"
	AttrLevel        = "foley.verify.level"  // the rung asked for
	AttrCandidateID  = "foley.candidate.id"  // the clip's id
	AttrMatch        = "foley.verdict.match" // the outcome
	AttrConfidence   = "foley.verdict.confidence"
	AttrJudge        = "foley.verdict.judge"  // the judge that answered
	AttrVerdictLevel = "foley.verdict.level"  // the rung that answered (clap when the clap gate failed)
	AttrCached       = "foley.verdict.cached" // read from the verdict cache
)

func match(ctx context.Context, event foley.SoundEvent, c foley.Candidate, level foley.VerifyLevel, judge foley.Judge, tauClap float64) (foley.Verdict, error) {
	if !level.Valid() {
		return foley.Verdict{}, foley.Errorf(foley.Invalid, "verify: invalid verify level %q (valid: clap, listen, judge)", level.String())
	}
	if err := CheckTau("tau_clap", tauClap); err != nil {
		return foley.Verdict{}, err
	}
	if !c.Licensed() {
		return foley.Verdict{}, foley.Errorf(foley.Unlicensed, "verify: candidate %q has not passed the licence gate (license_ok is not true); gate before verifying", c.Sound.ID)
	}
	clap, err := ClapJudge{Tau: tauClap}.Judge(ctx, event, c, foley.LevelClap)
	if err != nil || level == foley.LevelClap {
		return clap, err
	}
	if c.ClapScore != nil && !clap.Match {
		return clap, nil
	}
	if judge == nil {
		judge = Judges{}.For(level)
	}
	if err := ctx.Err(); err != nil {
		return foley.Verdict{}, err
	}
	v, err := judge.Judge(ctx, event, c, level)
	if err != nil {
		return foley.Verdict{}, err
	}
	if !(v.Confidence >= 0 && v.Confidence <= 1) {
		return foley.Verdict{}, foley.Errorf(foley.Internal, "verify: judge %s returned confidence %g, outside 0..1", judge.Name(), v.Confidence)
	}
	v.Level = level
	if v.Judge == "" {
		v.Judge = judge.Name()
	}
	return v, nil
}

// CheckTau reports a threshold that is not a number in 0..1 as an Invalid
// error naming it.
func CheckTau(name string, tau float64) error {
	if math.IsNaN(tau) || tau < 0 || tau > 1 {
		return foley.Errorf(foley.Invalid, "%s must be between 0 and 1, got %g", name, tau)
	}
	return nil
}
