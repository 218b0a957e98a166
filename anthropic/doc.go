// Package anthropic is the judge rung's LLM arbiter backed by Claude, through
// the official Anthropic Go SDK (github.com/anthropics/anthropic-sdk-go/v2).
//
// A [Judge] asks one question per candidate: a single Messages API call with
// the system prompt verify.JudgeSystemPrompt, one user message
// verify.JudgePrompt(event, candidate), adaptive thinking
// (thinking: {"type": "adaptive"}) and structured output
// (output_config.format: {"type": "json_schema", "schema":
// verify.JudgeSchema()}). It sets no temperature: API version 2026-10-21,
// which the SDK sends, removed temperature, top_p and top_k. The answer's
// text block (after any thinking or redacted_thinking blocks) is decoded by
// verify.ParseJudgeAnswer. The judge reads the clip's catalogue text, not its
// audio.
//
// # Configuration
//
// [New] takes a [Config]; [FromEnv] reads it from the environment:
//
//	ANTHROPIC_API_KEY       the API key; unset means no judge (FromEnv returns nil, nil)
//	FOLEY_JUDGE_MODEL       the model, default claude-opus-4-8
//	FOLEY_JUDGE_MAX_TOKENS  max_tokens, thinking included, default 500
//	FOLEY_JUDGE_EFFORT      output_config.effort (low, medium, high, xhigh, max), default low
//	FOLEY_JUDGE_TIMEOUT     the timeout of each HTTP attempt (a Go duration), default 60s
//	ANTHROPIC_BASE_URL      the API's base URL, default https://api.anthropic.com
//
// A judge built by New reads nothing else from the environment (the SDK's own
// environment defaults are turned off), so that a Config says all there is.
//
// # Failures
//
// Failure is never a match: every failure is an error and no verdict. The
// SDK retries (Config.MaxRetries, default 3) connection errors, timed-out
// attempts, 408, 409, 429 and 5xx answers, including 529 overloaded_error,
// unless the answer's x-should-retry header says otherwise. It waits as the
// retry-after-ms or Retry-After header says (without a cap), or else with
// exponential backoff from 0.5 s to 8 s. Config.Timeout bounds each attempt;
// the caller's context bounds the whole call, waits included, so give it a
// deadline.
//
// Thinking counts against max_tokens. An answer that the model had no tokens
// left to write fails with an error saying to raise FOLEY_JUDGE_MAX_TOKENS.
//
// Every error from Judge and Check has code foley.Unavailable, whatever
// failed: the service (429, 529 and 5xx after the retries, a connection
// error, a timeout; the message names the status and the attempts), the
// request (400, 401, 403, 404; the message is the API's, such as an invalid
// key), or the answer (a refusal, no text block, an answer cut at max_tokens,
// malformed JSON, a confidence outside 0..1). In each case the judge could
// not give a verdict, and the verify ladder treats it alike. Errors of
// configuration, from New and FromEnv, have code foley.Invalid.
//
// # Observability
//
// Each Messages call is an obs span ("chat <model>", provider anthropic)
// carrying the response model and id, the input tokens (input_tokens plus
// cache_creation_input_tokens plus cache_read_input_tokens), the output
// tokens and the stop reason. The SDK's own OpenTelemetry spans are turned
// off, so that a call is not recorded twice.
package anthropic
