package foley

import "context"

// Generator makes a sound clip from a text prompt (a text-to-sound model).
// Implementations are safe for concurrent use. A generator that cannot
// reach its model returns an error (code Unavailable), never a clip.
type Generator interface {
	// Name identifies the generator and its model in output, e.g.
	// "elevenlabs:eleven_text_to_sound_v2".
	Name() string
	// Generate makes one clip for req.
	Generate(ctx context.Context, req GenerateRequest) (GeneratedClip, error)
}

// GenerateRequest asks a Generator for a clip.
type GenerateRequest struct {
	Prompt string // what the clip should sound like
	// DurationS is the wanted length in seconds; 0 lets the model choose.
	DurationS float64
	// PromptInfluence (0..1) is how literally the model follows the
	// prompt; nil takes the model's default.
	PromptInfluence *float64
	Loop            bool   // the clip must loop seamlessly
	Seed            *int64 // for reproducible output, when the model takes one
}

// GeneratedClip is a generator's answer: the encoded audio and what made it.
type GeneratedClip struct {
	Audio  []byte // the encoded file
	Format string // its container: "mp3", "wav", "flac" or "ogg"
	// Generator is "provider/model", as License.Generator records it.
	Generator string
	Prompt    string
	Seed      *int64
	// License is the licence the provider grants for its output: at least
	// LicenseID, Source and the generation fields.
	License License
}

// Refiner proposes other queries for an event whose shortlist failed to
// verify: synonyms, broader terms, the category's name. Implementations are
// safe for concurrent use.
type Refiner interface {
	// Name identifies the refiner in output, e.g. "synonyms" or
	// "anthropic:claude-opus-4-8".
	Name() string
	// Refine returns up to n new query variants for event, different from
	// the queries in tried. failure is why the last shortlist failed (the
	// best verdict's reason), for a refiner that can use it.
	Refine(ctx context.Context, event SoundEvent, failure string, tried []string, n int) ([]string, error)
}
