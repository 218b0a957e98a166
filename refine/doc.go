// Package refine proposes other search queries for a sound event whose
// shortlist failed to verify: the foley.Refiner implementations.
//
// Synonyms is deterministic and needs nothing but its tables: it reduces
// the event's query to its head noun and action ("a heavy wooden door
// slams shut": door, slam), then proposes the reduced and core phrases
// ("wooden door slam", "door slam"), synonyms of the action and the noun
// ("door bang"), the UCS category of the event's ucs_catid with the action
// ("doors slam"), and broader terms ("door impact"). The same input always
// gives the same output.
//
// LLM asks a language model instead, with structured output: Claude
// through the Anthropic Messages API (NewAnthropic), or any server of the
// OpenAI chat-completions API such as vLLM, Ollama or llama.cpp
// (NewOpenAI). FromEnv picks one from the environment:
//
//	ANTHROPIC_API_KEY    set: Claude, with
//	FOLEY_REFINE_MODEL   the model (default FOLEY_JUDGE_MODEL, then claude-opus-4-8)
//	ANTHROPIC_BASE_URL   the API's base URL (default https://api.anthropic.com)
//
//	FOLEY_LLM_URL        else, when set: an OpenAI-compatible server, with
//	FOLEY_LLM_MODEL      the model it serves (required)
//	FOLEY_LLM_API_KEY    an optional bearer token
//	FOLEY_LLM_TIMEOUT    a per-attempt timeout, a Go duration
//
// An LLM refiner never makes queries up: a failed call (after the SDK's
// retries), a refusal, an answer that is not the schema's JSON, or one with
// no usable query is an error with code foley.Unavailable.
package refine
