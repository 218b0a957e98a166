package foley

// VerifyLevel is a rung of the verify ladder. Rungs are ordered, cheapest
// first: LevelClap < LevelListen < LevelJudge. The zero value means "not set".
type VerifyLevel int

// The rungs of the ladder.
const (
	LevelClap   VerifyLevel = iota + 1 // the retrieval cosine clears a threshold (free)
	LevelListen                        // an audio language model hears the clip
	LevelJudge                         // an LLM arbitrates ties and scene consistency
)

var levels = enum[VerifyLevel]{what: "verify level", names: []string{"", "clap", "listen", "judge"}}

// Levels lists the rungs in ladder order.
func Levels() []VerifyLevel { return []VerifyLevel{LevelClap, LevelListen, LevelJudge} }

// ParseVerifyLevel reads "clap", "listen" or "judge" (any case). Any other
// text is an Invalid error that names the text and the valid levels.
func ParseVerifyLevel(s string) (VerifyLevel, error) { return levels.parse(s) }

func (l VerifyLevel) String() string { return levels.String(l) }

// Valid reports whether l is one of the three rungs.
func (l VerifyLevel) Valid() bool { return l != 0 && levels.ok(l) }

// MarshalText implements encoding.TextMarshaler.
func (l VerifyLevel) MarshalText() ([]byte, error) { return levels.marshalText(l) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (l *VerifyLevel) UnmarshalText(b []byte) error { return levels.unmarshalText(b, l) }

// Origin says where a candidate's clip came from.
type Origin int

// The origins. The zero value is OriginRetrieved.
const (
	OriginRetrieved Origin = iota // found by a library search
	OriginGenerated               // made by a generator for this event
)

var origins = enum[Origin]{what: "origin", names: []string{"retrieved", "generated"}}

// ParseOrigin reads "retrieved" or "generated".
func ParseOrigin(s string) (Origin, error) { return origins.parse(s) }

func (o Origin) String() string { return origins.String(o) }

// MarshalText implements encoding.TextMarshaler.
func (o Origin) MarshalText() ([]byte, error) { return origins.marshalText(o) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (o *Origin) UnmarshalText(b []byte) error { return origins.unmarshalText(b, o) }

// Layer is the part of a sound design an event belongs to. The zero value
// means "not said".
type Layer int

// The layers.
const (
	LayerAmbience Layer = iota + 1 // beds and backgrounds: rain, room tone, city
	LayerFoley                     // sounds of people moving and handling things
	LayerSFX                       // hard effects: doors, impacts, vehicles
	LayerMusic                     // score, stings
	LayerDialogue                  // voices
)

var layers = enum[Layer]{what: "layer", names: []string{"", "ambience", "foley", "sfx", "music", "dialogue"}}

// ParseLayer reads a layer name (any case).
func ParseLayer(s string) (Layer, error) { return layers.parse(s) }

func (l Layer) String() string { return layers.String(l) }

// MarshalText implements encoding.TextMarshaler.
func (l Layer) MarshalText() ([]byte, error) { return layers.marshalText(l) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (l *Layer) UnmarshalText(b []byte) error { return layers.unmarshalText(b, l) }
