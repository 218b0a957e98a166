package openai

import (
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"
	"unicode"

	sdk "github.com/openai/openai-go/v3"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/internal/openaix"
	"github.com/foley-audio/foley/verify"
)

// DefaultAudioLMModel is the audio LM asked for when none is configured.
const DefaultAudioLMModel = "Qwen/Qwen2-Audio-7B-Instruct"

// DefaultTau is the listen rung's default threshold on P(yes).
const DefaultTau = 0.5

// TopLogprobs is how many alternatives of the first answer token the audio
// LM is asked for (vLLM's default ceiling, --max-logprobs, is 20).
const TopLogprobs = 20

// AudioLMConfig configures an AudioLMJudge. Only BaseURL is required; every
// zero field takes its default.
type AudioLMConfig struct {
	// BaseURL is the server's OpenAI base URL, e.g. http://host:8000/v1;
	// requests go to BaseURL + "/chat/completions".
	BaseURL string
	// Model is the model asked for (default DefaultAudioLMModel).
	Model string
	// APIKey, when set, is sent as "Authorization: Bearer APIKey"; when
	// empty no Authorization header is sent (vLLM without --api-key needs
	// none).
	APIKey string
	// Tau is the threshold on P(yes): the clip matches iff P(yes) >= Tau
	// (default DefaultTau; 0 takes the default, as a threshold of 0 would
	// pass every clip).
	Tau float64
	// Timeout bounds each attempt, and the download of a remote clip
	// (default DefaultTimeout).
	Timeout time.Duration
	// MaxRetries is the number of retries after the first attempt
	// (default DefaultMaxRetries; negative for none).
	MaxRetries int
	// AllowRemote lets the judge fetch clips whose URI is http(s)://.
	AllowRemote bool
	// MaxRemoteBytes bounds the bytes read of a remote clip
	// (default DefaultMaxRemoteBytes).
	MaxRemoteBytes int64
	// HTTPClient sends the requests and downloads (default: a client of
	// its own).
	HTTPClient *http.Client
}

// AudioLMJudge is the listen rung: an audio language model, served behind
// an OpenAI-compatible chat-completions API, hears the clip and is asked
// whether it contains the wanted sound. Its confidence is the AQAScore:
// P(yes) / (P(yes) + P(no)) over the first answer token's top logprobs.
// It is safe for concurrent use.
type AudioLMJudge struct {
	svc  service
	tau  float64
	clip clipLoader
}

var (
	_ foley.IdentifiedJudge = (*AudioLMJudge)(nil)
	_ foley.CheckableJudge  = (*AudioLMJudge)(nil)
)

// NewAudioLMJudge checks cfg and returns the judge. It does not contact the
// server; Check does.
func NewAudioLMJudge(cfg AudioLMConfig) (*AudioLMJudge, error) {
	base, err := openaix.CheckBaseURL("audio LM", EnvAudioLMURL, cfg.BaseURL, "http://localhost:8000/v1")
	if err != nil {
		return nil, err
	}
	if err := verify.CheckTau("audio LM tau", cfg.Tau); err != nil {
		return nil, err
	}
	if cfg.MaxRemoteBytes < 0 {
		return nil, foley.Errorf(foley.Invalid, "audio LM: the limit on remote clips, %d bytes, is negative", cfg.MaxRemoteBytes)
	}
	if cfg.Timeout < 0 {
		return nil, foley.Errorf(foley.Invalid, "audio LM: the timeout %s is negative", cfg.Timeout)
	}
	tau := cfg.Tau
	if tau == 0 {
		tau = DefaultTau
	}
	model := cmp.Or(strings.TrimSpace(cfg.Model), DefaultAudioLMModel)
	svc := newService("audio LM", EnvAudioLMURL, EnvAudioLMAPIKey, base, model, cfg.APIKey, cfg.Timeout, cfg.MaxRetries, cfg.HTTPClient)
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	return &AudioLMJudge{
		svc: svc,
		tau: tau,
		clip: clipLoader{
			allowRemote: cfg.AllowRemote,
			maxBytes:    cmp.Or(cfg.MaxRemoteBytes, DefaultMaxRemoteBytes),
			timeout:     svc.Timeout,
			client:      hc,
		},
	}, nil
}

// Name implements foley.Judge: "audiolm:" and the model.
func (j *AudioLMJudge) Name() string { return "audiolm:" + j.svc.Model }

// Model returns the model asked for.
func (j *AudioLMJudge) Model() string { return j.svc.Model }

// BaseURL returns the server's base URL.
func (j *AudioLMJudge) BaseURL() string { return j.svc.Base }

// Tau returns the threshold on P(yes).
func (j *AudioLMJudge) Tau() float64 { return j.tau }

// Identity implements foley.IdentifiedJudge: the kind, the model, the
// prompt version and tau, e.g.
// "audiolm|Qwen/Qwen2-Audio-7B-Instruct|prompt=v1|tau=0.5". The server's
// URL is left out, so that cached verdicts survive moving the server.
func (j *AudioLMJudge) Identity() string {
	return fmt.Sprintf("audiolm|%s|prompt=%s|tau=%g", j.svc.Model, verify.JudgePromptVersion, j.tau)
}

// Check implements foley.CheckableJudge: it lists the server's models
// (GET /models) and reports an error when the server cannot be reached or
// does not serve the model.
func (j *AudioLMJudge) Check(ctx context.Context) error { return j.svc.check(ctx) }

// Judge implements foley.Judge: it loads the candidate's clip (16 kHz mono,
// its first 30 s), asks the model verify.ListenPrompt(event) about it with
// one answer token, and scores the answer. A clip that cannot be loaded, a
// server that fails, or an answer that is neither yes nor no is an error,
// never a verdict.
func (j *AudioLMJudge) Judge(ctx context.Context, event foley.SoundEvent, c foley.Candidate, level foley.VerifyLevel) (foley.Verdict, error) {
	if strings.TrimSpace(event.Query) == "" {
		return foley.Verdict{}, foley.Errorf(foley.Invalid, "audio LM: the event has no query to listen for")
	}
	wav, err := j.clip.load(ctx, c.Sound.URI)
	if err != nil {
		return foley.Verdict{}, err
	}
	params := sdk.ChatCompletionNewParams{
		Model: j.svc.Model,
		Messages: []sdk.ChatCompletionMessageParamUnion{
			sdk.UserMessage([]sdk.ChatCompletionContentPartUnionParam{
				sdk.InputAudioContentPart(sdk.ChatCompletionContentPartInputAudioInputAudioParam{
					Data:   base64.StdEncoding.EncodeToString(wav),
					Format: "wav",
				}),
				sdk.TextContentPart(verify.ListenPrompt(event)),
			}),
		},
		MaxTokens:   sdk.Int(1),
		Temperature: sdk.Float(0),
		Logprobs:    sdk.Bool(true),
		TopLogprobs: sdk.Int(TopLogprobs),
	}
	ctx, span := j.svc.StartSpan(ctx, 1)
	resp, err := j.svc.complete(ctx, params)
	var v foley.Verdict
	if err == nil {
		v, err = j.verdict(resp, level)
	}
	span.End(openaix.Result(resp), err)
	if err != nil {
		return foley.Verdict{}, err
	}
	return v, nil
}

// verdict scores the answer.
func (j *AudioLMJudge) verdict(resp *sdk.ChatCompletion, level foley.VerifyLevel) (foley.Verdict, error) {
	if len(resp.Choices) == 0 {
		return foley.Verdict{}, j.svc.BadAnswer("an answer with no choices")
	}
	choice := resp.Choices[0]
	if choice.Message.Refusal != "" {
		return foley.Verdict{}, j.svc.BadAnswer("a refusal: %s", openaix.Quote(choice.Message.Refusal))
	}
	var reason string
	pYes, pNo, why := aqaScore(choice.Logprobs.Content)
	conf := 0.0
	if pYes+pNo > 0 {
		conf = pYes / (pYes + pNo)
		reason = fmt.Sprintf("%s: P(yes)=%.3f vs tau=%g (AQAScore over the first token's top logprobs)", j.svc.Model, conf, j.tau)
	} else {
		switch answer := normalizeToken(choice.Message.Content); answer {
		case "yes", "no":
			if answer == "yes" {
				conf = 1
			}
			reason = fmt.Sprintf("%s: answered %q (%s); confidence %g from the text answer vs tau=%g, not an AQAScore",
				j.svc.Model, answer, why, conf, j.tau)
		default:
			return foley.Verdict{}, j.svc.BadAnswer("the answer %s, which is neither yes nor no (%s)", openaix.Quote(choice.Message.Content), why)
		}
	}
	return foley.Verdict{
		Match:      conf >= j.tau,
		Confidence: conf,
		Reason:     reason,
		Level:      level,
		Judge:      j.Name(),
	}, nil
}

// aqaScore sums the probabilities of the surface forms of yes and of no
// among the first token's top logprobs (and the token itself, when the
// server left it out of its alternatives). When there are none, why says
// so.
func aqaScore(content []sdk.ChatCompletionTokenLogprob) (pYes, pNo float64, why string) {
	if len(content) == 0 {
		return 0, 0, "the answer has no logprobs"
	}
	first := content[0]
	type alt struct {
		token   string
		logprob float64
	}
	alts := make([]alt, 0, len(first.TopLogprobs)+1)
	listed := false
	for _, t := range first.TopLogprobs {
		alts = append(alts, alt{t.Token, t.Logprob})
		listed = listed || (t.Token == first.Token && t.Logprob == first.Logprob)
	}
	if !listed && first.Token != "" {
		alts = append(alts, alt{first.Token, first.Logprob})
	}
	for _, a := range alts {
		if math.IsNaN(a.logprob) || a.logprob > 0 {
			continue
		}
		switch normalizeToken(a.token) {
		case "yes":
			pYes += math.Exp(a.logprob)
		case "no":
			pNo += math.Exp(a.logprob)
		}
	}
	if pYes+pNo == 0 {
		return 0, 0, "neither yes nor no is among the first token's top logprobs"
	}
	return pYes, pNo, ""
}

// normalizeToken lower-cases a token without the whitespace, punctuation
// and word-boundary markers around it: " Yes", "YES", "yes." and "▁yes"
// all become "yes".
func normalizeToken(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r) ||
			r == 'Ġ' || r == '▁' || r == 'Ċ' // byte-level BPE and SentencePiece markers
	})
	return strings.ToLower(s)
}
