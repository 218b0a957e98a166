// Package openai holds the model judges that talk to any OpenAI-compatible
// chat-completions server (vLLM, llama.cpp, Ollama, ...), through the
// official OpenAI Go SDK.
//
//   - AudioLMJudge is the listen rung. An audio language model (the
//     reference is Qwen/Qwen2-Audio-7B-Instruct served by vLLM) hears the
//     candidate's clip, decoded, downmixed to mono, resampled to 16 kHz and
//     cut to its first 30 s, sent as a base64 16-bit WAV input_audio part
//     next to verify.ListenPrompt ("Does this audio contain …? Answer
//     strictly yes or no."). It asks for one token at temperature 0 with
//     the top 20 logprobs. Its confidence is the AQAScore,
//     P(yes) / (P(yes) + P(no)), each summed over the surface forms of the
//     word among the first token's top logprobs ("Yes", " yes", "YES",
//     "yes." …). When the server gives no logprobs, or neither word is
//     among them, the text answer decides (yes 1, no 0) and the reason says
//     so; an answer that is neither is an error. The clip matches iff the
//     confidence reaches tau (default 0.5).
//   - LLMJudge is the judge rung on a text LLM. It reads the event and the
//     candidate's caption and tags (verify.JudgeSystemPrompt and
//     verify.JudgePrompt; it cannot hear the clip) and answers JSON
//     constrained by a strict json_schema response format named "verdict"
//     (verify.JudgeSchema), parsed by verify.ParseJudgeAnswer.
//
// Clips are read from a path or a file:// URI; http(s):// URIs only when
// AllowRemote is set, streamed into the decoder and failing past
// MaxRemoteBytes (a Content-Length above it fails before reading).
//
// # Environment
//
// AudioLMFromEnv and LLMFromEnv configure the judges from the environment
// and return nil when their URL variable is unset:
//
//	FOLEY_AUDIOLM_URL               base URL, e.g. http://host:8000/v1
//	FOLEY_AUDIOLM_MODEL             default Qwen/Qwen2-Audio-7B-Instruct
//	FOLEY_AUDIOLM_API_KEY           optional bearer token
//	FOLEY_AUDIOLM_TAU               threshold on P(yes), 0..1, default 0.5
//	FOLEY_AUDIOLM_TIMEOUT           per attempt, e.g. 90s, default 60s
//	FOLEY_AUDIOLM_ALLOW_REMOTE      true to fetch http(s) clips
//	FOLEY_AUDIOLM_MAX_REMOTE_BYTES  default 104857600 (100 MiB)
//	FOLEY_LLM_URL                   base URL, e.g. http://host:8000/v1
//	FOLEY_LLM_MODEL                 required with FOLEY_LLM_URL
//	FOLEY_LLM_API_KEY               optional bearer token
//	FOLEY_LLM_TIMEOUT               per attempt, default 60s
//
// Both judges send max_tokens (which vLLM, llama.cpp and Ollama all
// accept) rather than max_completion_tokens, and temperature 0.
//
// The SDK's own OPENAI_* variables are not read: neither OPENAI_API_KEY
// nor OPENAI_BASE_URL reaches these servers. Without an API key no
// Authorization header is sent.
//
// # Failures
//
// A failure is an error, never a verdict, and never a match. The SDK
// retries, MaxRetries times (default 3), an attempt that got no answer or
// was answered 408, 409, 429 or 5xx (529 included), or whose answer
// carries "x-should-retry: true". It waits as Retry-After-Ms or
// Retry-After say (a wait over 2 minutes ends the retries at once), and
// otherwise backs off exponentially from 0.5 s (at most 8 s, jittered). An
// attempt that outlives Timeout is not retried. The errors carry foley
// codes:
//
//   - foley.Invalid: a bad configuration or environment variable; a clip
//     URI that cannot be read (remote when not allowed, over the size
//     limit, undecodable); a request the server rejected with another 4xx
//     (400, 422 …), quoting its message.
//   - foley.NotFound: a clip file that does not exist (or a remote clip
//     answered 404).
//   - foley.Unavailable: the server cannot be reached, timed out, or
//     answered 408/409/429/5xx after the retries (the message names the
//     judge, the URL, the status and the number of attempts); it refused
//     the key (401, 403) or has no such endpoint or model (404); Check
//     found the model not served; and the server misbehaved: an answer
//     that is not a chat completion, has no choices, is a refusal, is cut
//     off, is empty, is not the schema's JSON, has a confidence outside
//     0..1, or is neither yes nor no.
//
// A cancelled or expired ctx returns its error, wrapped (errors.Is works).
//
// # Observability
//
// Each chat completion runs in an obs.StartCall span (operation "chat",
// provider "openai") that records the response model and id, token usage
// when the server reports it, finish reasons and errors.
package openai
