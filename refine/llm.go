package refine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/ingest"
)

// PromptVersion names the wording of SystemPrompt and Prompt.
const PromptVersion = "v1"

// MaxQueries bounds the queries one request asks for, whatever n the
// caller passes.
const MaxQueries = 20

// maxTriedInPrompt bounds the tried queries a prompt lists: the last ones.
// The answer is filtered against all of them.
const maxTriedInPrompt = 50

// maxQueryLen drops an answer's query longer than this many bytes: a
// search query is a few words.
const maxQueryLen = 200

// SchemaName is the name of the response format the OpenAI-compatible
// refiner asks for.
const SchemaName = "queries"

// SystemPrompt tells the model what it is asked.
const SystemPrompt = `You help a sound designer search a library of sound effects. ` +
	`The library is searched with short text queries, matched against each clip's caption, tags and category ` +
	`and against the clip's audio through a text-audio embedding. A search for a wanted sound event found no clip ` +
	`that is the wanted sound. Propose other search queries, likelier to find it: a few words naming the ` +
	`sound-producing object and its action ("door slam"), synonyms ("door bang"), the words sound libraries use ` +
	`for such sounds (Universal Category System names such as "DOORS Wood"), and broader terms ("wood impact"). ` +
	`Write each query as plain English words, without quotes, operators or explanations. ` +
	`Never repeat a query that was already tried.`

// Prompt is the user message asking for up to n queries for event: the
// wanted sound, its scene and category when given, why the last search
// failed, and the queries already tried (the last 50).
func Prompt(event foley.SoundEvent, failure string, tried []string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Wanted sound event: %s\n", oneLine(event.Query))
	if s := oneLine(event.Scene); s != "" {
		fmt.Fprintf(&b, "Scene: %s\n", s)
	}
	if s := oneLine(event.EraPlace); s != "" {
		fmt.Fprintf(&b, "Era and place: %s\n", s)
	}
	if id := strings.TrimSpace(event.UCSCatID); id != "" {
		if name, ok := ingest.UCSCategory(id); ok && name != strings.ToUpper(id) {
			fmt.Fprintf(&b, "UCS category: %s (%s)\n", oneLine(id), name)
		} else {
			fmt.Fprintf(&b, "UCS category: %s\n", oneLine(id))
		}
	}
	if event.Layer != 0 {
		fmt.Fprintf(&b, "Layer: %s\n", event.Layer)
	}
	if !event.IsDiegetic() {
		b.WriteString("The sound is non-diegetic (heard by the audience, not by the characters).\n")
	}
	if f := oneLine(failure); f != "" {
		fmt.Fprintf(&b, "Why the last search failed: %s\n", f)
	}
	b.WriteString("\nQueries already tried:\n")
	listed := false
	if len(tried) > maxTriedInPrompt {
		tried = tried[len(tried)-maxTriedInPrompt:]
	}
	for _, q := range tried {
		if q = oneLine(q); q != "" {
			fmt.Fprintf(&b, "- %s\n", q)
			listed = true
		}
	}
	if !listed {
		b.WriteString("(none)\n")
	}
	if n == 1 {
		b.WriteString("\nPropose 1 new search query.")
	} else {
		fmt.Fprintf(&b, "\nPropose up to %d new search queries, the likeliest to find the sound first.", n)
	}
	return b.String()
}

// oneLine is s with its runs of white space, newlines included, made one
// space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Schema is the JSON schema of the answer: {"queries": [string, ...]} and
// nothing else.
func Schema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"queries": map[string]any{
				"type":        "array",
				"description": "new search queries, the likeliest first",
				"items":       map[string]any{"type": "string"},
			},
		},
		"required":             []string{"queries"},
		"additionalProperties": false,
	}
}

// ParseAnswer decodes an answer text, a JSON object with exactly a
// "queries" list of strings. Anything else is an error that says what was
// wrong.
func ParseAnswer(text string) ([]string, error) {
	var raw struct {
		Queries *[]string `json:"queries"`
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(strings.TrimSpace(text))))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("the answer is not the JSON object the schema asks for: %v (answer: %s)", err, excerpt(text))
	}
	if dec.More() {
		return nil, fmt.Errorf("the answer has text after its JSON object (answer: %s)", excerpt(text))
	}
	if raw.Queries == nil {
		return nil, fmt.Errorf("the answer has no \"queries\" (answer: %s)", excerpt(text))
	}
	return *raw.Queries, nil
}

// Filter keeps the usable queries of an answer: trimmed, white space made
// single spaces, not empty, not overlong, not equal (ignoring case and
// spacing) to the event's query, a tried one or an earlier one; at most n.
func Filter(queries []string, query string, tried []string, n int) []string {
	seen := map[string]bool{normalize(query): true}
	for _, q := range tried {
		seen[normalize(q)] = true
	}
	var out []string
	for _, q := range queries {
		q = oneLine(q)
		k := strings.ToLower(q)
		if q == "" || len(q) > maxQueryLen || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, q)
		if len(out) == n {
			break
		}
	}
	return out
}

// excerpt shortens s for an error message.
func excerpt(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 200 {
		return fmt.Sprintf("%q...", s[:200])
	}
	return fmt.Sprintf("%q", s)
}

// backend asks one model for the answer text to a system prompt and a user
// message. Its errors are foley errors that name the refiner.
type backend interface {
	ask(ctx context.Context, system, user string) (string, error)
	model() string
}

// LLM is a refiner that asks a language model for queries. It is safe for
// concurrent use; make one with NewAnthropic, NewOpenAI or FromEnv.
type LLM struct {
	name string
	b    backend
}

var _ foley.Refiner = (*LLM)(nil)

// Name implements foley.Refiner: "anthropic:<model>" or "llm:<model>".
func (l *LLM) Name() string { return l.name }

// Model returns the model the refiner asks.
func (l *LLM) Model() string { return l.b.model() }

// Refine implements foley.Refiner: it asks the model for up to n queries
// (at most MaxQueries) and returns the usable ones, the model's order
// kept. A failed call, a refusal, an answer that is not the schema's JSON
// or one with no usable query is an error with code foley.Unavailable;
// the refiner never makes queries up. n <= 0 asks nothing.
func (l *LLM) Refine(ctx context.Context, event foley.SoundEvent, failure string, tried []string, n int) ([]string, error) {
	if n <= 0 {
		return nil, nil
	}
	if strings.TrimSpace(event.Query) == "" {
		return nil, foley.Errorf(foley.Invalid, "refiner %s: the event has no query to refine", l.name)
	}
	ask := min(n, MaxQueries)
	text, err := l.b.ask(ctx, SystemPrompt, Prompt(event, failure, tried, ask))
	if err != nil {
		return nil, err
	}
	queries, err := ParseAnswer(text)
	if err != nil {
		return nil, foley.Errorf(foley.Unavailable, "refiner %s: %v", l.name, err)
	}
	out := Filter(queries, event.Query, tried, ask)
	if len(out) == 0 {
		return nil, foley.Errorf(foley.Unavailable,
			"refiner %s: the answer has no usable query (%d proposed, each empty, overlong, repeated or already tried)", l.name, len(queries))
	}
	return out, nil
}
