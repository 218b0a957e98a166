package foley

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
)

// SoundEvent is a wanted sound: "a heavy wooden door slams shut".
type SoundEvent struct {
	Query string `json:"query"`
	Layer Layer  `json:"layer,omitempty"`
	// Diegetic says whether the sound exists inside the story world (a door
	// the character hears) rather than outside it (a stinger, a UI whoosh).
	// Absent means diegetic; use IsDiegetic to read it.
	Diegetic *bool `json:"diegetic,omitempty"`
	// Salience is how prominent the sound is in the mix, 0 (barely there)
	// to 1 (the focus). Absent when not said.
	Salience *float64 `json:"salience,omitempty"`
	// Onset is where the sound starts in the narration, in seconds.
	Onset    *float64 `json:"onset,omitempty"`
	Loop     bool     `json:"loop,omitempty"`      // the sound must loop seamlessly
	UCSCatID string   `json:"ucs_catid,omitempty"` // Universal Category System CatID, e.g. DOORWood
	AudioSet []string `json:"audioset,omitempty"`  // AudioSet labels, e.g. "Slam"
	EraPlace string   `json:"era_place,omitempty"` // e.g. "1920s Paris"
	// Scene describes the surrounding scene, for the judge rung's
	// consistency check.
	Scene string `json:"scene,omitempty"`
}

// NewEvent returns a diegetic event for query.
func NewEvent(query string) SoundEvent { return SoundEvent{Query: query} }

// IsDiegetic reports whether the event is diegetic; an event that does not
// say is.
func (e SoundEvent) IsDiegetic() bool { return e.Diegetic == nil || *e.Diegetic }

// Validate checks what decoding cannot: a query to search for.
func (e SoundEvent) Validate() error {
	if e.Query == "" {
		return Errorf(Invalid, "event: query is empty")
	}
	if r := checkEvent(e); r != nil {
		return Errorf(Invalid, "event: %s is %v (want %s)", r.field, r.value, r.want)
	}
	return nil
}

func checkEvent(e SoundEvent) *outOfRange {
	if e.Salience != nil && !(*e.Salience >= 0 && *e.Salience <= 1) {
		return &outOfRange{"salience", *e.Salience, "0..1"}
	}
	if e.Onset != nil && !(*e.Onset >= 0 && !math.IsInf(*e.Onset, 0)) {
		return &outOfRange{"onset", *e.Onset, "seconds >= 0"}
	}
	return nil
}

// UnmarshalJSON decodes an event and checks the ranges of its numbers.
func (e *SoundEvent) UnmarshalJSON(b []byte) error {
	type plain SoundEvent
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	if r := checkEvent(SoundEvent(p)); r != nil {
		return r.jsonError()
	}
	*e = SoundEvent(p)
	return nil
}

// SoundRecord is one clip of a sound library.
type SoundRecord struct {
	ID             string  `json:"id"`
	ContentSHA256  string  `json:"content_sha256,omitempty"` // of the file's bytes
	URI            string  `json:"uri"`                      // a path, file:// or http(s):// URL
	Caption        string  `json:"caption"`
	Tags           TagList `json:"tags"`
	UCSCategory    string  `json:"ucs_category,omitempty"`
	DurationS      float64 `json:"duration_s,omitempty"`
	SampleRate     int     `json:"sample_rate,omitempty"`
	Channels       int     `json:"channels,omitempty"`
	Format         string  `json:"format,omitempty"` // wav, flac, mp3, ogg
	License        License `json:"license"`
	EmbeddingModel string  `json:"embedding_model,omitempty"`
}

// TagList is a record's tags. It is written as [] rather than null when
// empty, as the Python project expects a list.
type TagList []string

// MarshalJSON implements json.Marshaler.
func (t TagList) MarshalJSON() ([]byte, error) {
	if t == nil {
		return []byte("[]"), nil
	}
	return json.Marshal([]string(t))
}

// UnmarshalJSON decodes a record and checks its numbers.
func (r *SoundRecord) UnmarshalJSON(b []byte) error {
	type plain SoundRecord
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	switch {
	case !(p.DurationS >= 0) || math.IsInf(p.DurationS, 0):
		return (&outOfRange{"duration_s", p.DurationS, "seconds >= 0"}).jsonError()
	case p.SampleRate < 0:
		return (&outOfRange{"sample_rate", float64(p.SampleRate), "Hz >= 0"}).jsonError()
	case p.Channels < 0:
		return (&outOfRange{"channels", float64(p.Channels), ">= 0"}).jsonError()
	}
	*r = SoundRecord(p)
	return nil
}

// License is the licence record of a clip: where it came from, under which
// licence, whom to credit, and what that licence permits.
//
// The permission flags are derived from LicenseID by the policy table in
// package license (license.Normalize fills them in). They are a view for
// display and search filters: the licence gate never trusts them and derives
// the permissions again from LicenseID, so a record cannot grant itself
// rights.
type License struct {
	Source     string `json:"source,omitempty"`      // freesound, bbc, user, elevenlabs, ...
	SourceID   string `json:"source_id,omitempty"`   // the id at the source
	SourceURL  string `json:"source_url,omitempty"`  // the clip's page at the source
	LicenseID  string `json:"license_id"`            // a policy table id such as CC-BY-4.0
	LicenseURL string `json:"license_url,omitempty"` // the licence as the source reported it

	// Attribution.
	Creator     string `json:"creator,omitempty"`
	Title       string `json:"title,omitempty"`
	Attribution string `json:"attribution,omitempty"` // a credit line the source asks for

	// Derived permission flags (see the type's comment).
	CommercialOK        bool     `json:"commercial_ok"`
	DerivativeOK        bool     `json:"derivative_ok"`   // may be embedded in a published work
	RedistributeOK      bool     `json:"redistribute_ok"` // may be redistributed on its own
	TrainOK             bool     `json:"train_ok"`        // may be used to train models
	AttributionRequired bool     `json:"attribution_required"`
	RevenueCapUSD       *float64 `json:"revenue_cap_usd,omitempty"` // users above this revenue may not use it

	// HasVoiceOrTrademark says the clip holds an identifiable voice or a
	// trademarked sound, which needs releases beyond the licence.
	HasVoiceOrTrademark bool `json:"has_voice_or_trademark,omitempty"`
	// RightsVerified says someone checked that the source may license the
	// clip. Unverified rights fail the gate whatever the licence says.
	RightsVerified bool `json:"rights_verified"`

	// Generation, for clips made by a model.
	IsAIGenerated    bool   `json:"is_ai_generated"`
	Generator        string `json:"generator,omitempty"` // provider/model
	GenerationPrompt string `json:"generation_prompt,omitempty"`
	GenerationSeed   *int64 `json:"generation_seed,omitempty"`
}

// Candidate is a clip proposed for an event, with the scores and verdict it
// collected on the way.
type Candidate struct {
	Sound  SoundRecord `json:"sound"`
	Origin Origin      `json:"origin"`
	Event  *SoundEvent `json:"event,omitempty"` // the event it was proposed for

	// Scores; nil means "not computed", which is not 0.
	ClapScore   *float64 `json:"clap_score,omitempty"`   // cosine of the text and audio embeddings
	BM25Score   *float64 `json:"bm25_score,omitempty"`   // full-text score
	RRFScore    *float64 `json:"rrf_score,omitempty"`    // reciprocal rank fusion of the lists
	RerankScore *float64 `json:"rerank_score,omitempty"` // a reranker's score

	Verdict *Verdict `json:"verdict,omitempty"`
	// LicenseOK is set by the licence gate: true kept, false dropped, nil
	// not yet gated. Only a candidate with true may be verified or used.
	LicenseOK  *bool  `json:"license_ok,omitempty"`
	PreviewURI string `json:"preview_uri,omitempty"`
}

// Licensed reports whether the licence gate kept the candidate.
func (c Candidate) Licensed() bool { return c.LicenseOK != nil && *c.LicenseOK }

// Verdict is the answer of a rung of the ladder: does the clip match the
// event, how sure, why, at which rung, and which judge said so.
type Verdict struct {
	Match      bool        `json:"match"`
	Confidence float64     `json:"confidence"` // 0..1
	Reason     string      `json:"reason"`
	Level      VerifyLevel `json:"level,omitempty"`
	// Judge names the judge that produced the verdict, such as "clap" or
	// "string-overlap", so that output never implies a clip was listened
	// to when it was not.
	Judge string `json:"judge,omitempty"`
	// Cached says the verdict was given earlier, for the same event, clip
	// content, rung and judge identity, and read from the verdict cache
	// rather than paid for again.
	Cached bool `json:"cached,omitempty"`
}

// UnmarshalJSON decodes a verdict and checks that confidence is in 0..1.
func (v *Verdict) UnmarshalJSON(b []byte) error {
	type plain Verdict
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	if !(p.Confidence >= 0 && p.Confidence <= 1) {
		return (&outOfRange{"confidence", p.Confidence, "0..1"}).jsonError()
	}
	*v = Verdict(p)
	return nil
}

// outOfRange is a number outside the range its field allows.
type outOfRange struct {
	field string
	value float64
	want  string
}

// jsonError reports the number in the shape encoding/json uses for type
// errors, so that the decoder prefixes the path of the field.
func (r *outOfRange) jsonError() error {
	return &json.UnmarshalTypeError{
		Value: fmt.Sprintf("number %v (want %s)", r.value, r.want),
		Type:  reflect.TypeFor[float64](),
		Field: r.field,
	}
}

// Clone returns a deep copy of c: changing the copy, through any pointer or
// slice, leaves c as it was.
func (c Candidate) Clone() Candidate {
	c.Sound = c.Sound.Clone()
	if c.Event != nil {
		e := *c.Event
		e.Diegetic = clonePtr(e.Diegetic)
		e.Salience = clonePtr(e.Salience)
		e.Onset = clonePtr(e.Onset)
		e.AudioSet = slices.Clone(e.AudioSet)
		c.Event = &e
	}
	c.ClapScore = clonePtr(c.ClapScore)
	c.BM25Score = clonePtr(c.BM25Score)
	c.RRFScore = clonePtr(c.RRFScore)
	c.RerankScore = clonePtr(c.RerankScore)
	c.Verdict = clonePtr(c.Verdict)
	c.LicenseOK = clonePtr(c.LicenseOK)
	return c
}

// Clone returns a deep copy of r.
func (r SoundRecord) Clone() SoundRecord {
	r.Tags = slices.Clone(r.Tags)
	r.License.RevenueCapUSD = clonePtr(r.License.RevenueCapUSD)
	r.License.GenerationSeed = clonePtr(r.License.GenerationSeed)
	return r
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
