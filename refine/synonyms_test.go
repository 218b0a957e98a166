package refine

import (
	"context"
	"slices"
	"strings"
	"testing"
	"unicode"

	"pgregory.net/rapid"

	"github.com/foley-audio/foley"
)

func synonyms(t *testing.T, ev foley.SoundEvent, tried []string, n int) []string {
	t.Helper()
	got, err := Synonyms{}.Refine(context.Background(), ev, "the best clip was something else", tried, n)
	if err != nil {
		t.Fatalf("Refine(%q): %v", ev.Query, err)
	}
	return got
}

// TestSynonymsPinned pins the whole answer for a few events, checked by
// hand.
func TestSynonymsPinned(t *testing.T) {
	for _, tc := range []struct {
		query, catID string
		want         []string
	}{
		{"a heavy wooden door slams shut", "DOORWood", []string{
			"wooden door slam", "door slam", "door bang", "doors slam", "door shut", "door impact",
			"door close", "door crash", "wood door slam", "door"}},
		{"a heavy wooden door slams shut", "", []string{
			"wooden door slam", "door slam", "door bang", "door shut", "door impact",
			"door close", "door crash", "wood door slam", "door"}},
		{"a dog barks in the distance", "ANMLDog", []string{
			"dog bark", "dog woof", "hound bark", "animals bark", "dog yap", "animal bark", "puppy bark", "dog"}},
		{"heavy rain on a tin roof", "RAINGen", []string{
			"heavy rain", "rain on roof", "rain", "rain roof", "rain patter", "downpour", "rain drip",
			"rainfall", "weather", "rain pour", "drizzle"}},
		{"a man walks on gravel", "", []string{
			"man footsteps", "footsteps on gravel", "footsteps", "footsteps gravel", "footsteps walk", "footfall",
			"footsteps run", "steps", "footsteps shuffle", "male footsteps"}},
		{"car horn honking", "VEHHorn", []string{
			"car horn honk", "horn honk", "car horn beep", "vehicles honk", "car horn toot", "vehicle horn honk",
			"vehicle honk", "car hooter honk", "car horn", "horn"}},
		{"someone knocks on the door", "", []string{"door knock", "door rap", "door tap", "door impact", "door"}},
		{"The church bell rang.", "", []string{
			"church bell ring", "bell ring", "church bell chime", "church chime ring", "church bell toll",
			"church bell ding", "church bell", "bell"}},
		{"thunder", "", []string{"thunder rumble", "thunderclap", "thunder crack", "rumble", "storm", "thunder clap", "weather"}},
		{"a gun fires twice", "GUNPistl", []string{
			"gun fire", "gun shoot", "firearm fire", "guns fire", "gun blast", "weapon fire", "gun"}},
		{"a woman screams", "", []string{
			"woman scream", "woman shriek", "female scream", "woman yell", "person scream", "woman voice",
			"woman screech", "lady scream", "human scream", "woman"}},
	} {
		ev := foley.SoundEvent{Query: tc.query, UCSCatID: tc.catID}
		if got := synonyms(t, ev, []string{tc.query}, 20); !slices.Equal(got, tc.want) {
			t.Errorf("%q (%s):\n got %q\nwant %q", tc.query, tc.catID, got, tc.want)
		}
	}
}

// TestSynonymsFirst checks the first few variants of many events.
func TestSynonymsFirst(t *testing.T) {
	for _, tc := range []struct {
		query, catID string
		want         []string
	}{
		{"door slam", "", []string{"door bang", "door shut", "door impact"}},
		{"Doors slamming", "", []string{"door slam", "door bang", "door shut"}},
		{"the slam of a door", "", []string{"door slam", "door bang", "door shut"}},
		{"a door in the distance slams", "", []string{"door slam", "door bang", "door shut"}},
		{"a door creaks open", "", []string{"door creak", "door squeak", "door groan"}},
		{"a man knocks on a door", "", []string{"door knock", "door rap", "door tap"}},
		{"a woman slams the door", "", []string{"door slam", "door bang", "door shut"}},
		{"a sedan door slams", "", []string{"sedan door slam", "door slam", "sedan door bang"}},
		{"barking dog", "", []string{"dog bark", "dog woof", "hound bark"}},
		{"dog", "", []string{"dog bark", "hound", "dog growl"}},
		{"a cat meows", "", []string{"cat meow", "cat mew", "kitten meow"}},
		{"a rooster crows at dawn", "", []string{"rooster crow", "rooster caw", "cockerel crow"}},
		{"a horse gallops", "", []string{"horse gallop", "horse trot", "stallion gallop"}},
		{"wolves howling at the moon", "ANMLWolf", []string{"wolf howl", "wolf wail", "animals howl"}},
		{"crackling fire", "", []string{"fire crackle", "fire crack", "flame crackle"}},
		{"glass shatters", "", []string{"glass shatter", "glass smash", "glassware shatter"}},
		{"a vase shatters on the floor", "GLASBreak", []string{"vase shatter", "vase smash", "glass shatter"}},
		{"wind howls through the trees", "", []string{"wind howl", "wind wail", "gust howl"}},
		{"water dripping in a cave", "", []string{"water drip", "water drop", "liquid drip"}},
		{"a crowd cheers", "", []string{"crowd cheer", "crowd applaud", "audience cheer"}},
		{"typing on a keyboard", "", []string{"keyboard typing", "keyboard keystroke", "computer keyboard typing"}},
		{"an old phone rings", "", []string{"old phone ring", "phone ring", "phone chime"}},
		{"a man lights a match", "", []string{"match light", "match ignite", "matchstick light"}},
		{"a man coughs", "", []string{"man cough", "man hack", "male cough"}},
		{"someone screams", "", []string{"scream", "shriek", "yell"}},
		{"a muffled explosion", "", []string{"muffled explosion", "explosion", "explosion echo"}},
		{"a woman in high heels walks down a corridor", "", []string{"woman footsteps", "footsteps in corridor", "footsteps"}},
		{"heavy footsteps on wooden stairs", "", []string{"heavy footsteps", "footsteps on stair", "footsteps"}},
		{"the kettle whistles", "", []string{"kettle whistle", "kettle toot", "teakettle whistle"}},
		{"sword clash", "", []string{"sword clang", "blade clash", "sword crash"}},
		{"a zorblax whirrs", "", []string{"zorblax whir", "zorblax whirr", "zorblax hum"}},
		{"Café door slams", "", []string{"café door slam", "door slam", "café door bang"}},
	} {
		ev := foley.SoundEvent{Query: tc.query, UCSCatID: tc.catID}
		if got := synonyms(t, ev, nil, len(tc.want)); !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.query, got, tc.want)
		}
	}
}

func TestSynonymsTriedAndN(t *testing.T) {
	ev := foley.SoundEvent{Query: "a heavy wooden door slams shut", UCSCatID: "DOORWood"}
	tried := []string{"a heavy wooden door slams shut", "  Wooden DOOR slam ", "door\tslam"}
	if got, want := synonyms(t, ev, tried, 3), []string{"door bang", "doors slam", "door shut"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// The event's query counts as tried even when the caller leaves it out.
	if got := synonyms(t, foley.SoundEvent{Query: "door slam"}, nil, 20); slices.Contains(got, "door slam") {
		t.Errorf("got the query itself: %q", got)
	}
	for n := range 12 {
		got := synonyms(t, ev, nil, n)
		if len(got) > n || (n > 0 && len(got) == 0) {
			t.Errorf("n = %d: %d variants %q", n, len(got), got)
		}
	}
	if got := synonyms(t, ev, nil, -1); got != nil {
		t.Errorf("n = -1: %q", got)
	}
	// Everything tried: nothing left, and no error.
	all := synonyms(t, ev, nil, 100)
	if got := synonyms(t, ev, all, 100); len(got) != 0 {
		t.Errorf("with all %d variants tried: %q", len(all), got)
	}
}

func TestSynonymsOddInput(t *testing.T) {
	long := strings.Repeat("a very long and winding description of nothing much at all, ", 500) + "then a door slams"
	for _, tc := range []struct {
		name string
		ev   foley.SoundEvent
		want []string
	}{
		{"empty", foley.SoundEvent{}, nil},
		{"blank", foley.SoundEvent{Query: " \t\n "}, nil},
		{"punctuation", foley.SoundEvent{Query: "!!!"}, nil},
		{"punctuation with a category", foley.SoundEvent{Query: "!!!", UCSCatID: "DOORWood"}, []string{"doors"}},
		{"numbers", foley.SoundEvent{Query: "123 456"}, nil},
		{"unknown word", foley.SoundEvent{Query: "zorblax"}, nil},
		{"unknown category", foley.SoundEvent{Query: "door slam", UCSCatID: "NOPEThing"}, []string{"door bang", "door shut", "door impact", "door close"}},
		{"two-word category", foley.SoundEvent{Query: "water pours", UCSCatID: "FOODDrink"}, []string{"water pour", "water fill", "liquid pour", "food drink pour"}},
		{"non-ASCII", foley.SoundEvent{Query: "Ein Hund bellt"}, []string{"hund bellt", "bellt"}},
		{"accents", foley.SoundEvent{Query: "Café door slams"}, []string{"café door slam", "door slam", "café door bang", "café door shut"}},
		{"CJK", foley.SoundEvent{Query: "狗叫"}, nil},
		{"apostrophes", foley.SoundEvent{Query: "the dog's bark, isn't it?"}, []string{"dog bark", "dog woof", "hound bark", "dog yap"}},
		{"very long, the sound late", foley.SoundEvent{Query: long}, nil},
		{"very long, the sound first", foley.SoundEvent{Query: "a door slams, " + long}, []string{"door slam", "door bang", "door shut", "door impact"}},
		{"one very long word", foley.SoundEvent{Query: strings.Repeat("é", 5000)}, nil},
	} {
		got := synonyms(t, tc.ev, nil, 4)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestSynonymsProperties checks, for any query, category, tried list and
// n: at most n variants, none blank, empty of tried or repeated ones, in
// the normal form, and the same answer every time.
func TestSynonymsProperties(t *testing.T) {
	words := []string{"a", "the", "heavy", "wooden", "door", "doors", "slams", "shut", "dog", "barks", "in", "distance",
		"rain", "on", "roof", "car", "horn", "!!", "café", "狗", "loudly", "slowly", "man", "knocks", "fire", "crackling",
		"and", "then", "of", "glass", "breaks", "footsteps", "gravel", "zorblax", "123", "'s", "door slam", "bang"}
	rapid.Check(t, func(t *rapid.T) {
		var query string
		if rapid.Bool().Draw(t, "free text") {
			query = rapid.String().Draw(t, "query")
		} else {
			query = strings.Join(rapid.SliceOfN(rapid.SampledFrom(words), 0, 12).Draw(t, "words"), " ")
		}
		ev := foley.SoundEvent{
			Query:    query,
			UCSCatID: rapid.SampledFrom([]string{"", "DOORWood", "ANMLDog", "FOODDrink", "xx", "RAIN"}).Draw(t, "catid"),
		}
		tried := rapid.SliceOfN(rapid.SampledFrom(append(words, "door bang", "DOOR  BANG", "dog bark")), 0, 5).Draw(t, "tried")
		n := rapid.IntRange(-1, 25).Draw(t, "n")
		got, err := Synonyms{}.Refine(context.Background(), ev, "", tried, n)
		if err != nil {
			t.Fatalf("error %v", err)
		}
		if len(got) > max(n, 0) {
			t.Fatalf("%d variants for n = %d", len(got), n)
		}
		seen := map[string]bool{normalize(query): true}
		for _, q := range tried {
			seen[normalize(q)] = true
		}
		for _, v := range got {
			if v == "" || v != normalize(v) || strings.ToLower(v) != v {
				t.Fatalf("variant %q is not normal", v)
			}
			if seen[v] {
				t.Fatalf("variant %q repeats the query, a tried one or another: %q", v, got)
			}
			seen[v] = true
		}
		again, _ := Synonyms{}.Refine(context.Background(), ev, "another reason", slices.Clone(tried), n)
		if !slices.Equal(got, again) {
			t.Fatalf("not deterministic: %q, then %q", got, again)
		}
	})
}

func TestLemma(t *testing.T) {
	for w, want := range map[string]string{
		"slams": "slam", "slammed": "slam", "slamming": "slam", "slam": "slam",
		"doors": "door", "closes": "close", "closed": "close", "closing": "close",
		"creaking": "creak", "creaked": "creak", "rattling": "rattle", "cries": "cry", "cried": "cry",
		"crying": "cry", "puppies": "puppy", "boxes": "box", "whooshes": "whoosh", "rang": "ring",
		"rung": "ring", "broke": "break", "broken": "break", "wolves": "wolf", "mice": "mouse",
		"feet": "footsteps", "footstep": "footsteps", "footsteps": "footsteps", "glass": "glass",
		"glasses": "glass", "bus": "bus", "buses": "bus", "stepped": "step", "dripping": "drip",
		"bells": "bell", "rings": "ring", "knocked": "knock", "typed": "typing",
		"zorblaxes": "zorblaxes", "gas": "gas", "café": "café", "winding": "winding", "clothing": "clothing",
	} {
		if got := lemma(w); got != want {
			t.Errorf("lemma(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestLexicon(t *testing.T) {
	heads := 0
	for head, w := range lexicon {
		if w.kind != adj {
			heads++
		}
		if head != strings.ToLower(head) || strings.ContainsFunc(head, unicode.IsSpace) {
			t.Errorf("head word %q is not one lower-case word", head)
		}
		for _, list := range [][]string{w.syn, w.vsyn, w.acts} {
			seen := map[string]bool{}
			for _, s := range list {
				if s != strings.ToLower(s) || s == head || seen[s] {
					t.Errorf("%q: %q is upper-case, the head word itself, or repeated", head, s)
				}
				seen[s] = true
			}
		}
		if w.hyper == head {
			t.Errorf("%q is its own hypernym", head)
		}
		if _, ok := irregular[head]; ok && irregular[head] != head {
			t.Errorf("head word %q is also an irregular form of %q", head, irregular[head])
		}
	}
	if heads < 150 {
		t.Errorf("%d head words, want at least 150", heads)
	}
	for form, l := range irregular {
		if _, ok := lexicon[l]; !ok && l != form && !slices.Contains([]string{"throw", "freeze", "spit", "slide", "swing", "weep",
			"ride", "steal", "wake", "hang", "kneel", "spring", "leap", "take", "goose", "tooth", "hoof", "shelf",
			"ox", "life", "calf", "half", "wife", "thief", "lie", "die", "tie", "fish", "deer", "series", "news"}, l) {
			t.Errorf("irregular form maps to %q, which is not a head word", l)
		}
	}

	// What the brief names, by area.
	for _, head := range strings.Fields(`door footsteps rain wind thunder water fire glass metal wood dog cat bird
		horse cow car gun explosion impact cough crowd machine hammer click bell clock alarm phone paper cloth
		food kettle piano guitar drum`) {
		if _, ok := lexicon[head]; !ok {
			t.Errorf("no head word %q", head)
		}
	}
	syn := func(head string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !slices.Contains(lexicon[head].vsyn, w) {
				t.Errorf("%s: no synonym %q in %q", head, w, lexicon[head].vsyn)
			}
		}
	}
	syn("slam", "bang", "shut", "close", "crash")
	syn("knock", "rap", "tap")
	syn("creak", "squeak", "groan")
	syn("bark", "woof", "yap")
	syn("ring", "chime", "toll")
	for head, want := range map[string]string{"slam": "impact", "dog": "animal", "sedan": "car", "car": "vehicle"} {
		if got := lexicon[head].hyper; got != want {
			t.Errorf("hypernym of %s is %q, want %q", head, got, want)
		}
	}
}

func TestParseLexiconRejects(t *testing.T) {
	for _, table := range []string{
		"door n | |",                // too few columns
		"door x | | | ",             // no such kind
		"door n | a ; b | x ; y | ", // only kind b splits
		"door n | | | \ndoor n | | | ",
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("parseLexicon(%q) did not panic", table)
				}
			}()
			parseLexicon(table)
		}()
	}
}
