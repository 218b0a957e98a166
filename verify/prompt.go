package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/foley-audio/foley"
)

// JudgePromptVersion names the wording of JudgePrompt and ListenPrompt. It is
// part of every model judge's identity, so that changing the wording
// invalidates cached verdicts.
const JudgePromptVersion = "v1"

// ListenPrompt is the question the listen rung asks an audio LM about the
// clip it hears.
func ListenPrompt(event foley.SoundEvent) string {
	return fmt.Sprintf("Does this audio contain %s? Answer strictly yes or no.", strings.TrimSpace(event.Query))
}

// JudgeSystemPrompt tells an LLM judge what it arbitrates.
const JudgeSystemPrompt = `You are the final check of a sound-effects search for a sound designer. ` +
	`You are given a wanted sound event and the catalogue description of one candidate clip (its caption and tags; ` +
	`you cannot hear it). Decide whether the clip is the wanted sound: the same sound-producing object and action, ` +
	`not merely a similar mood. When a scene is given, also decide whether the clip fits it (era, place, setting). ` +
	`Answer with match (true or false), confidence (your probability, from 0 to 1, that the clip is the wanted sound) ` +
	`and a one-sentence reason.`

// JudgePrompt is the user message an LLM judge gets for candidate c: the
// wanted event, the candidate's caption, tags and category, and the scene
// when the event carries one.
func JudgePrompt(event foley.SoundEvent, c foley.Candidate) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Wanted sound event: %s\n", strings.TrimSpace(event.Query))
	if event.Scene != "" {
		fmt.Fprintf(&b, "Scene: %s\n", strings.TrimSpace(event.Scene))
	}
	if event.EraPlace != "" {
		fmt.Fprintf(&b, "Era and place: %s\n", strings.TrimSpace(event.EraPlace))
	}
	if !event.IsDiegetic() {
		b.WriteString("The sound is non-diegetic (heard by the audience, not by the characters).\n")
	}
	b.WriteString("\nCandidate clip:\n")
	fmt.Fprintf(&b, "Caption: %s\n", strings.TrimSpace(c.Sound.Caption))
	tags := "(none)"
	if len(c.Sound.Tags) > 0 {
		tags = strings.Join(c.Sound.Tags, ", ")
	}
	fmt.Fprintf(&b, "Tags: %s\n", tags)
	if c.Sound.UCSCategory != "" {
		fmt.Fprintf(&b, "Category: %s\n", c.Sound.UCSCategory)
	}
	if c.Sound.DurationS > 0 {
		fmt.Fprintf(&b, "Duration: %.1f s\n", c.Sound.DurationS)
	}
	b.WriteString("\nIs this clip the wanted sound event?")
	return b.String()
}

// JudgeSchema is the JSON schema of an LLM judge's answer: match, confidence
// and reason, all required, nothing else.
func JudgeSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"match":      map[string]any{"type": "boolean", "description": "true if the clip is the wanted sound event"},
			"confidence": map[string]any{"type": "number", "description": "probability, 0 to 1, that the clip is the wanted sound"},
			"reason":     map[string]any{"type": "string", "description": "one sentence saying why"},
		},
		"required":             []string{"match", "confidence", "reason"},
		"additionalProperties": false,
	}
}

// JudgeAnswer is an LLM judge's answer, as JudgeSchema describes it.
type JudgeAnswer struct {
	Match      bool
	Confidence float64
	Reason     string
}

// ParseJudgeAnswer decodes and checks an LLM judge's answer text: a JSON
// object with exactly match (boolean), confidence (a number in 0..1) and
// reason (a string). Anything else is an error that says what was wrong,
// and never a match.
func ParseJudgeAnswer(text string) (JudgeAnswer, error) {
	var raw struct {
		Match      *bool    `json:"match"`
		Confidence *float64 `json:"confidence"`
		Reason     *string  `json:"reason"`
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(strings.TrimSpace(text))))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return JudgeAnswer{}, fmt.Errorf("the answer is not the JSON object the schema asks for: %v (answer: %s)", err, excerpt(text))
	}
	if dec.More() {
		return JudgeAnswer{}, fmt.Errorf("the answer has text after its JSON object (answer: %s)", excerpt(text))
	}
	switch {
	case raw.Match == nil:
		return JudgeAnswer{}, fmt.Errorf("the answer has no \"match\" (answer: %s)", excerpt(text))
	case raw.Confidence == nil:
		return JudgeAnswer{}, fmt.Errorf("the answer has no \"confidence\" (answer: %s)", excerpt(text))
	case raw.Reason == nil:
		return JudgeAnswer{}, fmt.Errorf("the answer has no \"reason\" (answer: %s)", excerpt(text))
	case math.IsNaN(*raw.Confidence) || *raw.Confidence < 0 || *raw.Confidence > 1:
		return JudgeAnswer{}, fmt.Errorf("the answer's confidence %g is outside 0..1", *raw.Confidence)
	}
	return JudgeAnswer{Match: *raw.Match, Confidence: *raw.Confidence, Reason: strings.TrimSpace(*raw.Reason)}, nil
}

// excerpt shortens s for an error message.
func excerpt(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 200 {
		return fmt.Sprintf("%q...", s[:200])
	}
	return fmt.Sprintf("%q", s)
}
