package foley

import "context"

// Judge decides whether a candidate's clip is the wanted event, at a rung of
// the verify ladder. Implementations are safe for concurrent use and keep no
// per-call state on themselves.
//
// A judge that cannot reach its model returns an error, never a match.
type Judge interface {
	// Judge returns the verdict for c against event at level. The
	// verdict's Judge field names the judge.
	Judge(ctx context.Context, event SoundEvent, c Candidate, level VerifyLevel) (Verdict, error)
	// Name identifies the judge in output, e.g. "clap", "string-overlap"
	// or "audiolm:Qwen/Qwen2-Audio-7B-Instruct".
	Name() string
}

// IdentifiedJudge is a judge that names everything its verdicts depend on
// (judge kind, model, prompt version, threshold), so that a verdict it gave
// can be reused for the same event, clip and rung. Two judges with the same
// identity must give the same verdicts.
type IdentifiedJudge interface {
	Judge
	Identity() string
}

// CheckableJudge is a judge backed by a service that can be asked, cheaply,
// whether it answers (foley judges uses it).
type CheckableJudge interface {
	Judge
	Check(ctx context.Context) error
}
