// Package foley holds the domain of foley: the wanted sound event, the sound
// records of a library, the candidates a search returns, the verdicts the
// verify ladder gives them, and the small interfaces (Judge) that the rest of
// the program implements. It imports nothing of the project; every
// subpackage depends inward on it.
//
// The flow, as data:
//
//	SoundEvent ──search──► []Candidate ──license.Gate──► kept
//	kept ──verify.Match (clap → listen → judge)──► Verdict
//	policy.Decide ──► use | refine | generate | drop
//
// JSON uses the snake_case names of the Python project of the same design, so
// a Candidate written there decodes here and back. Scores that may be absent
// are pointers: a generated clip has no clap_score, and that absence changes
// how the ladder treats it.
package foley
