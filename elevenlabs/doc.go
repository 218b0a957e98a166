// Package elevenlabs is a foley.Generator on the ElevenLabs
// sound-generation API: a text prompt in, a sound effect out.
//
// Each Generate sends one POST {base}/v1/sound-generation with the API key
// in the xi-api-key header, output_format as a query parameter (an MP3
// format, default mp3_44100_128) and a JSON body:
//
//	text              the prompt
//	duration_seconds  0.5..30, omitted when the request's DurationS is 0
//	                  (the model then chooses)
//	prompt_influence  0..1, omitted when nil (the API's default is 0.3)
//	loop              true for a seamless loop, omitted otherwise (the API
//	                  documents it for eleven_text_to_sound_v2 only)
//	model_id          the model, default eleven_text_to_sound_v2
//
// A request outside those ranges, or with an empty prompt, is an Invalid
// error and no call is made. The API takes no seed: GenerateRequest.Seed
// is not sent, and clips come back with a nil Seed (they are not
// reproducible).
//
// The answer is the encoded audio. It must have an audio (or
// application/octet-stream) Content-Type, and its bytes must be a sound
// file package audio decodes (an MP3 with or without an ID3 tag, or WAV,
// FLAC or Ogg Vorbis magic), or the call fails. The clip's Format is the
// format found ("mp3" for the MP3 output formats), its Generator
// "elevenlabs/" + model, and its License is LicenseID "ElevenLabs-SFX"
// from source "elevenlabs", AI-generated, with the generator and prompt,
// the prompt as title, rights verified, and the permission flags of the
// licence table (license.Normalize). That licence covers sound effects
// made on a paid plan: a free-plan key's clips carry different terms,
// which foley cannot tell from the answer.
//
// # Environment
//
// FromEnv configures a generator from the environment and returns nil when
// ELEVENLABS_API_KEY is unset:
//
//	ELEVENLABS_API_KEY      the API key
//	FOLEY_ELEVENLABS_MODEL  default eleven_text_to_sound_v2
//	ELEVENLABS_BASE_URL     default https://api.elevenlabs.io
//
// # Failures
//
// An attempt answered 429 or 5xx, or that could not connect, is retried
// MaxRetries times (default 3) with exponential backoff and jitter from
// BackoffBase (1 s, at most 30 s), or after Retry-After when the API
// sends one (a wait over MaxRetryAfter, 60 s, ends the retries at once).
// Each attempt is bounded by Timeout (default 120 s); an attempt that
// outlives it is not retried. The errors carry foley codes:
//
//   - foley.Invalid: a bad Config or environment variable; a request
//     outside the API's ranges; a request the API rejected with another
//     4xx (400, 422 …), quoting its message.
//   - foley.Unavailable: the API cannot be reached, timed out, or answered
//     429/5xx after the retries (the message names the status, the API's
//     message and code, and the number of attempts); it refused the key
//     (401, or 401 quota_exceeded when the credits are used up) or the
//     request (403); it has no such endpoint (404, 405: a wrong base URL);
//     or its 2xx answer is not audio (another Content-Type, an empty body,
//     bytes that do not decode).
//
// A cancelled or expired ctx returns its error, wrapped (errors.Is works).
// Error messages never quote the API key.
//
// # Observability
//
// Each Generate that passes the request checks runs in an obs.StartCall
// span (operation "generate_content", provider "elevenlabs", the model
// and base URL), ended with the model as the response model and no token
// counts, and counted by obs.WithUsage.
package elevenlabs
