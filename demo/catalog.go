package demo

import (
	"fmt"

	"github.com/foley-audio/foley"
)

// Creator is the creator of every demo clip.
const Creator = "foley demo synthesiser"

// Source is the source of every demo clip's licence record.
const Source = "foley-demo"

// def is one entry of the catalogue.
type def struct {
	id, caption string
	tags        []string
	catID       string // the UCS CatID; the record holds its category
	secs        float64
	channels    int
	lic         foley.License
	peakDB      float64 // 0: -3
	synth       func(*gen) [][]float64
}

func cc0() foley.License {
	return foley.License{LicenseID: "CC0-1.0", LicenseURL: "https://creativecommons.org/publicdomain/zero/1.0/"}
}

// ccBY is CC BY 4.0 with a title and the credit line it asks for.
func ccBY(title string) foley.License {
	return foley.License{LicenseID: "CC-BY-4.0", LicenseURL: "https://creativecommons.org/licenses/by/4.0/", Title: title,
		Attribution: fmt.Sprintf("%q by %s, licensed under CC BY 4.0", title, Creator)}
}

// ccBYNC is CC BY-NC 4.0: the licence gate drops it for commercial use.
func ccBYNC(title string) foley.License {
	return foley.License{LicenseID: "CC-BY-NC-4.0", LicenseURL: "https://creativecommons.org/licenses/by-nc/4.0/", Title: title,
		Attribution: fmt.Sprintf("%q by %s, licensed under CC BY-NC 4.0", title, Creator)}
}

// unknown is a licence nobody could check: the licence gate drops it for
// any use.
func unknown(url string) foley.License { return foley.License{LicenseURL: url} }

// catalogue is the demo library. Ids are stable: a clip's seed is derived
// from its id, so reordering the list changes no sound.
var catalogue = []def{
	// Doors: the slam a query for "a heavy wooden door slams shut" should
	// find, and its near misses (another slam, under a non-commercial
	// licence, a knock and a creak).
	{id: "demo-door-slam-wood", caption: "A heavy wooden door slams shut, interior room",
		tags: []string{"door", "slam", "wood", "wooden", "heavy", "shut", "close", "impact"}, catID: "DOORWood",
		secs: 2, lic: cc0(), synth: doorSlamWood},
	{id: "demo-door-slam-metal", caption: "Metal fire door bangs shut in a concrete stairwell, echo",
		tags: []string{"door", "metal", "fire door", "bang", "stairwell", "echo", "reverb"}, catID: "DOORMetal",
		secs: 3, lic: ccBYNC("Stairwell Fire Door"), synth: doorSlamMetal},
	{id: "demo-door-knock", caption: "Knocking on a wooden door, three knocks",
		tags: []string{"door", "knock", "knuckles", "wood", "three", "visitor"}, catID: "DOORWood",
		secs: 1.5, lic: cc0(), synth: doorKnock},
	{id: "demo-door-creak", caption: "Old door creaks open slowly, squeaky hinge",
		tags: []string{"door", "creak", "hinge", "squeak", "open", "old", "slow"}, catID: "DOORSqueak",
		secs: 4, lic: cc0(), synth: doorCreak},

	// Weather and water.
	{id: "demo-rain-roof", caption: "Steady rain on a roof, dense drops drumming",
		tags: []string{"rain", "roof", "downpour", "drops", "weather", "ambience"}, catID: "RAINSurface",
		secs: 6, channels: 2, lic: cc0(), synth: rainRoof},
	{id: "demo-rain-window", caption: "Light rain pattering on a window pane, close drops",
		tags: []string{"rain", "window", "glass", "drops", "light", "patter"}, catID: "RAINGlass",
		secs: 5, lic: cc0(), synth: rainWindow},
	{id: "demo-wind-gusts", caption: "Strong wind gusts howling outdoors",
		tags: []string{"wind", "gusts", "howling", "storm", "outdoors", "weather"}, catID: "WINDGust",
		secs: 6, channels: 2, lic: cc0(), synth: windGusts},
	{id: "demo-thunder-distant", caption: "Distant thunder rumble rolling across the sky",
		tags: []string{"thunder", "rumble", "storm", "distant", "weather", "low"}, catID: "WTHRThunder",
		secs: 6, lic: ccBY("Far Thunder"), synth: thunder},
	{id: "demo-water-drip", caption: "Water dripping into a puddle in a cave, slow drips",
		tags: []string{"water", "drip", "drops", "cave", "puddle", "echo"}, catID: "WATRDrip",
		secs: 5, lic: cc0(), synth: waterDrip},
	{id: "demo-stream", caption: "Stream of running water babbling over rocks",
		tags: []string{"water", "stream", "brook", "running", "babbling", "river", "nature"}, catID: "WATRStream",
		secs: 6, channels: 2, lic: cc0(), synth: stream},
	{id: "demo-ocean-waves", caption: "Ocean waves crashing on a beach, surf washing over sand",
		tags: []string{"ocean", "waves", "surf", "beach", "sea", "crash"}, catID: "WATRSurf",
		secs: 6, channels: 2, lic: ccBY("Shoreline"), synth: oceanWaves},

	// Footsteps.
	{id: "demo-footsteps-wood", caption: "Footsteps walking on a wooden floor, indoors",
		tags: []string{"footsteps", "walking", "wood", "floor", "shoes", "indoors"}, catID: "FEETWood",
		secs: 4, lic: cc0(), synth: footstepsWood},
	{id: "demo-footsteps-gravel", caption: "Footsteps on gravel, slow crunchy walk",
		tags: []string{"footsteps", "gravel", "walking", "crunch", "path", "outdoors"}, catID: "FEETGravel",
		secs: 4, lic: ccBY("Gravel Path Walk"), synth: footstepsGravel},

	// Glass, metal, bells, clocks.
	{id: "demo-glass-clink", caption: "Two wine glasses clink together in a toast",
		tags: []string{"glass", "clink", "toast", "cheers", "wine glass", "ting"}, catID: "GLASClink",
		secs: 2.5, lic: cc0(), synth: glassClink},
	{id: "demo-glass-break", caption: "Glass window breaking and shattering, shards falling",
		tags: []string{"glass", "break", "shatter", "smash", "shards", "window"}, catID: "GLASBreak",
		secs: 3, lic: cc0(), synth: glassBreak},
	{id: "demo-metal-clang", caption: "Metal pipe struck, resonant clang",
		tags: []string{"metal", "clang", "pipe", "hit", "ring", "impact"}, catID: "METLImpact",
		secs: 4, lic: cc0(), synth: metalClang},
	{id: "demo-church-bell", caption: "Church bell rings twice, large bronze bell with a long decay",
		tags: []string{"bell", "church", "ringing", "toll", "bronze", "chime"}, catID: "BELLChurch",
		secs: 6, lic: ccBY("Village Bell"), synth: churchBell},
	{id: "demo-clock-tick", caption: "Mechanical clock ticking, one tick per second",
		tags: []string{"clock", "tick", "tock", "ticking", "mechanical", "time"}, catID: "CLOCKTick",
		secs: 5, lic: cc0(), synth: clockTick},

	// Vehicles, animals, people.
	{id: "demo-car-idle", caption: "Car engine idling, low rumble, exterior",
		tags: []string{"car", "engine", "idle", "motor", "rumble", "vehicle"}, catID: "VEHCar",
		secs: 5, lic: unknown("https://example.com/sound-pack/eula"), synth: carIdle},
	{id: "demo-dog-bark", caption: "Dog barking outdoors, three barks",
		tags: []string{"dog", "bark", "woof", "animal", "pet", "outdoors"}, catID: "ANMLDog",
		secs: 2, lic: cc0(), synth: dogBark},
	{id: "demo-cat-meow", caption: "Cat meowing, two meows",
		tags: []string{"cat", "meow", "animal", "pet", "kitten"}, catID: "ANMLCat",
		secs: 2.2, lic: ccBYNC("Two Meows"), synth: catMeow},
	{id: "demo-birdsong", caption: "Songbird chirping and trilling, birdsong in the morning",
		tags: []string{"bird", "birdsong", "chirp", "tweet", "trill", "nature", "morning"}, catID: "BIRDSong",
		secs: 5, lic: ccBY("Dawn Chorus Study"), synth: birdsong},
	{id: "demo-crowd-murmur", caption: "Crowd murmur, many people talking indoors, indistinct walla",
		tags: []string{"crowd", "murmur", "walla", "people", "talking", "chatter", "ambience"}, catID: "CROWDWalla",
		secs: 6, channels: 2, lic: cc0(), synth: crowdMurmur},
	{id: "demo-heartbeat", caption: "Heartbeat, slow steady thump",
		tags: []string{"heartbeat", "heart", "pulse", "thump", "body", "tension"}, catID: "HMNHeart",
		secs: 5, lic: cc0(), synth: heartbeat},

	// Fire, explosions, weapons.
	{id: "demo-fire-crackle", caption: "Campfire crackling and popping, burning wood",
		tags: []string{"fire", "crackle", "campfire", "burning", "wood", "pops"}, catID: "FIRECrackle",
		secs: 6, lic: cc0(), synth: fireCrackle},
	{id: "demo-explosion", caption: "Explosion with a deep boom and falling debris, outdoors",
		tags: []string{"explosion", "boom", "blast", "debris", "bomb", "impact"}, catID: "EXPLReal",
		secs: 5, lic: ccBYNC("Quarry Blast"), synth: explosion},
	{id: "demo-gunshot", caption: "Gunshot, single pistol shot with outdoor echo",
		tags: []string{"gunshot", "gun", "pistol", "shot", "weapon", "echo"}, catID: "GUNPistol",
		secs: 3, lic: cc0(), synth: gunshot},

	// Objects, computers, interfaces.
	{id: "demo-paper-rustle", caption: "Paper rustling and crumpling, handling a sheet",
		tags: []string{"paper", "rustle", "crumple", "sheet", "handling", "foley"}, catID: "PAPRHandle",
		secs: 4, lic: cc0(), synth: paperRustle},
	{id: "demo-keyboard-typing", caption: "Typing on a computer keyboard, fast keystrokes",
		tags: []string{"keyboard", "typing", "keys", "computer", "office", "clicks"}, catID: "COMPKeyboard",
		secs: 5, lic: cc0(), synth: keyboardTyping},
	{id: "demo-phone-ring", caption: "Telephone ringing, electronic two-tone ring",
		tags: []string{"phone", "telephone", "ring", "ringing", "call", "electronic"}, catID: "COMMTelephone",
		secs: 5, lic: unknown(""), synth: phoneRing},
	{id: "demo-ui-click", caption: "User interface click, short button press",
		tags: []string{"ui", "click", "button", "interface", "tap", "menu"}, catID: "UIClick",
		secs: 1, lic: cc0(), synth: uiClick},
	{id: "demo-ui-chime", caption: "Notification chime, bright two-note alert",
		tags: []string{"ui", "notification", "chime", "alert", "ding", "message"}, catID: "UIAlert",
		secs: 2, lic: cc0(), synth: uiChime},
	{id: "demo-whoosh", caption: "Whoosh, fast swoosh passing from left to right",
		tags: []string{"whoosh", "swoosh", "swish", "pass by", "air", "transition"}, catID: "WHSHSwoosh",
		secs: 2, channels: 2, lic: cc0(), synth: whoosh},
	{id: "demo-room-tone", caption: "Quiet room tone, indoor ambience with a faint hum",
		tags: []string{"room tone", "ambience", "quiet", "interior", "hum", "background"}, catID: "AMBRoom",
		secs: 6, channels: 2, lic: cc0(), peakDB: -9, synth: roomTone},
}
