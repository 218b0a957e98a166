package embed

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/foley-audio/foley"
)

// vectorHash is the SHA-256 of a vector as little-endian float32.
func vectorHash(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func norm(v []float32) float64 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	return math.Sqrt(ss)
}

func TestHashModel(t *testing.T) {
	h := NewHash(0)
	if got, want := h.Model(), "foley-hash-text-v1/512 (text only)"; got != want {
		t.Errorf("Model() = %q, want %q", got, want)
	}
	if h.Dim() != 512 {
		t.Errorf("Dim() = %d, want 512", h.Dim())
	}
	if h.AudioCapable() {
		t.Error("AudioCapable() = true, want false")
	}
	if got, want := NewHash(64).Model(), "foley-hash-text-v1/64 (text only)"; got != want {
		t.Errorf("NewHash(64).Model() = %q, want %q", got, want)
	}
}

func TestHashEmbedAudioUnavailable(t *testing.T) {
	_, err := NewHash(0).EmbedAudio(context.Background(), []string{"door.wav"})
	if foley.CodeOf(err) != foley.Unavailable {
		t.Fatalf("EmbedAudio error code = %q (%v), want unavailable", foley.CodeOf(err), err)
	}
	for _, want := range []string{"only embeds text", "captions and tags", "FOLEY_CLAP_URL", "CLAP"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestHashPinned pins exact vectors: a change here changes every stored
// vector, and must come with a new HashModelVersion.
func TestHashPinned(t *testing.T) {
	h := NewHash(0)
	for _, tc := range []struct{ text, sha string }{
		{"door", pinDoor},
		{"a heavy wooden door slams shut", pinSentence},
		{"Tür knallt zu", pinUnicode},
	} {
		if got := vectorHash(h.Embed(tc.text)); got != tc.sha {
			t.Errorf("Embed(%q) hashes to %s, want %s", tc.text, got, tc.sha)
		}
	}
	// A few exact components of "door".
	v := h.Embed("door")
	for _, c := range pinDoorComponents {
		if v[c.i] != c.v {
			t.Errorf("Embed(\"door\")[%d] = %v, want %v", c.i, v[c.i], c.v)
		}
	}
	// The word feature alone: one bucket, one sign.
	var acc [512]float64
	h.add(acc[:], 1, kindWord, "door")
	if i := slices.IndexFunc(acc[:], func(x float64) bool { return x != 0 }); i != pinDoorWordBucket || acc[i] != pinDoorWordSign {
		t.Errorf("the feature w:door lands in bucket %d with %v, want %d with %v", i, acc[max(i, 0)], pinDoorWordBucket, pinDoorWordSign)
	}
}

// The pinned values, computed once by this implementation.
const (
	pinDoor           = "989daf9ef13e18c9b1e7592f4440e7533d609007db756399126b7a009a75c081"
	pinSentence       = "2b7d82c8690c793675fa5095621aa37e63594ad8e20fee276ab66c2ab5763e87"
	pinUnicode        = "02e10c5e6e1195336a24723d1e50348c1818c8435ae1e1a8b01ad6cef09c5334"
	pinDoorWordBucket = 272
	pinDoorWordSign   = -1.0
)

// "door": the word (weight 1) and its nine n-grams (0.5/3 each), over the
// norm sqrt(1.25): 1/sqrt(1.25) = 0.8944272 and (1/6)/sqrt(1.25) = 0.1490712.
var pinDoorComponents = []struct {
	i int
	v float32
}{{9, -0.1490712}, {74, 0.1490712}, {139, 0.1490712}, {272, -0.8944272}}

func TestHashDeterministic(t *testing.T) {
	a, b := NewHash(0), NewHash(0)
	text := "Heavy wooden door slams shut, then creaks open"
	if !slices.Equal(a.Embed(text), b.Embed(text)) {
		t.Error("two embedders give two vectors for one text")
	}
	// Concurrent use gives the same vectors.
	want := a.Embed(text)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if got := a.Embed(text); !slices.Equal(got, want) {
					t.Error("concurrent Embed differs")
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestHashNormalised(t *testing.T) {
	h := NewHash(0)
	for _, text := range []string{"a", "door", "heavy wooden door slams shut", strings.Repeat("rain ", 500), "ドアが閉まる", "808 kick"} {
		v := h.Embed(text)
		if len(v) != 512 {
			t.Fatalf("len = %d", len(v))
		}
		if n := norm(v); math.Abs(n-1) > 1e-6 {
			t.Errorf("|Embed(%.20q)| = %v, want 1", text, n)
		}
	}
}

func TestHashEmpty(t *testing.T) {
	h := NewHash(0)
	door := h.Embed("door")
	for _, text := range []string{"", "   ", "!!! --- ...", "\x00\xff"} {
		v := h.Embed(text)
		if len(v) != h.Dim() {
			t.Errorf("Embed(%q) has %d numbers, want %d", text, len(v), h.Dim())
		}
		if norm(v) != 0 {
			t.Errorf("Embed(%q) is not the zero vector", text)
		}
		if c := Cosine(v, door); c != 0 {
			t.Errorf("cosine(Embed(%q), door) = %v, want 0", text, c)
		}
	}
}

func TestHashParaphrase(t *testing.T) {
	h := NewHash(0)
	a := h.Embed("heavy wooden door slams shut")
	b := h.Embed("door slam, wood, heavy")
	c := h.Embed("rain on a tin roof")
	ab, ac := Cosine(a, b), Cosine(a, c)
	t.Logf("paraphrase %.3f, unrelated %.3f", ab, ac)
	if ab < 0.35 {
		t.Errorf("cosine(paraphrase) = %.3f, want >= 0.35", ab)
	}
	if ac > 0.1 || ab-ac < 0.3 {
		t.Errorf("cosine(paraphrase) = %.3f vs cosine(unrelated) = %.3f: not far enough apart", ab, ac)
	}
	// More pairs: the paraphrase beats every unrelated text.
	for _, tc := range []struct{ q, para, other string }{
		{"a dog barks twice", "dog barking", "glass shatters"},
		{"footsteps on gravel", "gravel footstep", "thunder rumbles"},
		{"glass breaking", "broken glass shatters", "car engine idles"},
	} {
		q := h.Embed(tc.q)
		if p, o := Cosine(q, h.Embed(tc.para)), Cosine(q, h.Embed(tc.other)); p <= o+0.2 {
			t.Errorf("%q: paraphrase %q %.3f vs %q %.3f", tc.q, tc.para, p, tc.other, o)
		}
	}
}

func TestHashStemming(t *testing.T) {
	h := NewHash(0)
	slam := h.Embed("slam")
	for _, w := range []string{"slams", "slammed", "slamming"} {
		if c := Cosine(h.Embed(w), slam); c < 0.45 {
			t.Errorf("cosine(%q, slam) = %.3f, want >= 0.45", w, c)
		}
	}
	if c := Cosine(h.Embed("slams"), h.Embed("slamming")); c < 0.3 {
		t.Errorf("cosine(slams, slamming) = %.3f, want >= 0.3", c)
	}
	// A word the stem does not reach stays apart.
	if c := Cosine(h.Embed("slams"), h.Embed("creaks")); c > 0.1 {
		t.Errorf("cosine(slams, creaks) = %.3f, want about 0", c)
	}
	// Pairs are stemmed: "door slams" and "door slam" share their pair.
	if c1, c2 := Cosine(h.Embed("door slams"), h.Embed("door slam")), Cosine(h.Embed("door slams"), h.Embed("slam door")); c1 <= c2 {
		t.Errorf("word order does not count: %.3f vs %.3f", c1, c2)
	}
}

func TestStem(t *testing.T) {
	for w, want := range map[string]string{
		"slam": "slam", "slams": "slam", "slammed": "slam", "slamming": "slam",
		"close": "clos", "closes": "clos", "closed": "clos", "closing": "clos",
		"crashes": "crash", "boxes": "box", "whooshes": "whoosh", "glasses": "glass", "glass": "glass",
		"flies": "fly", "creaking": "creak", "creaks": "creak", "dripping": "drip", "rolling": "roll",
		"hissing": "hiss", "buzzes": "buzz", "rattles": "rattl", "rattling": "rattl",
		"speed": "speed", "string": "string", "this": "this", "bus": "bus", "door": "door", "wood": "wood",
		"bed": "bed", "ring": "ring", "tür": "tür", "808": "808", "kick808s": "kick808s",
	} {
		if got := stem(w); got != want {
			t.Errorf("stem(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestWords(t *testing.T) {
	for text, want := range map[string][]string{
		"Heavy-wooden DOOR, slams!": {"heavy", "wooden", "door", "slams"},
		"TR-808 kick_drum":          {"tr", "808", "kick", "drum"},
		"Die TÜR knallt zu":         {"die", "tür", "knallt", "zu"},
		"CAFÉ":                      {"café"},
		"cafe\u0301 au lait":        {"cafe\u0301", "au", "lait"},
		"ドアが閉まる。雨":                  {"ドアが閉まる", "雨"},
		"дверь хлопает":             {"дверь", "хлопает"},
		"":                          nil,
		"--- !!":                    nil,
	} {
		if got := Words(text); !slices.Equal(got, want) {
			t.Errorf("Words(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestHashUnicode(t *testing.T) {
	h := NewHash(0)
	if !slices.Equal(h.Embed("CAFÉ TÜR"), h.Embed("café tür")) {
		t.Error("case folding differs outside ASCII")
	}
	if c := Cosine(h.Embed("die Tür knallt zu"), h.Embed("Tür knallt")); c < 0.5 {
		t.Errorf("cosine of German texts sharing words = %.3f", c)
	}
	// A language without spaces is one word, but its n-grams meet.
	if c := Cosine(h.Embed("ドアが閉まる"), h.Embed("ドアが閉まった")); c <= 0.05 {
		t.Errorf("cosine(ドアが閉まる, ドアが閉まった) = %.3f, want > 0.05 from shared n-grams", c)
	}
	// Invalid UTF-8 separates words instead of failing.
	if c := Cosine(h.Embed("door\xffslam"), h.Embed("door slam")); c < 0.99 {
		t.Errorf("invalid UTF-8 as a separator: cosine %.3f", c)
	}
}

func TestHashDim(t *testing.T) {
	for _, tc := range []struct{ in, want int }{{0, 512}, {-3, 512}, {1, 1}, {64, 64}, {1000, 1000}, {MaxHashDim + 1, MaxHashDim}} {
		h := NewHash(tc.in)
		if h.Dim() != tc.want {
			t.Errorf("NewHash(%d).Dim() = %d, want %d", tc.in, h.Dim(), tc.want)
		}
		v := h.Embed("heavy wooden door slams shut")
		if len(v) != tc.want {
			t.Errorf("NewHash(%d): vector of %d numbers", tc.in, len(v))
		}
		if n := norm(v); math.Abs(n-1) > 1e-6 && n != 0 {
			t.Errorf("NewHash(%d): norm %v", tc.in, n)
		}
	}
	// One bucket: every text is +1, -1 or (when its features cancel) 0.
	v := NewHash(1).Embed("door")
	if math.Abs(float64(v[0])) != 1 && v[0] != 0 {
		t.Errorf("NewHash(1): %v", v)
	}
	// Other dimensions are other vectors, not a prefix of the default.
	if c := NewHash(64).Embed("door"); slices.Equal(c, NewHash(0).Embed("door")[:64]) {
		t.Error("dimension 64 is a prefix of dimension 512")
	}
}

func TestHashEmbedText(t *testing.T) {
	h := NewHash(128)
	texts := []string{"door slam", "", "rain on a tin roof", "door slam"}
	got, err := h.EmbedText(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(got), len(texts))
	}
	for i, text := range texts {
		if !slices.Equal(got[i], h.Embed(text)) {
			t.Errorf("vector %d differs from Embed(%q)", i, text)
		}
	}
	if none, err := h.EmbedText(context.Background(), nil); err != nil || len(none) != 0 {
		t.Errorf("EmbedText(nil) = %v, %v", none, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.EmbedText(ctx, texts); !errors.Is(err, context.Canceled) {
		t.Errorf("EmbedText with a cancelled context: %v", err)
	}
}

func TestRecordText(t *testing.T) {
	for _, tc := range []struct {
		rec  foley.SoundRecord
		want string
	}{
		{foley.SoundRecord{Caption: "Heavy wooden door slams shut", Tags: []string{"door", " slam ", ""}, UCSCategory: "DOORS"},
			"Heavy wooden door slams shut. door, slam. DOORS"},
		{foley.SoundRecord{Caption: "  ", Tags: []string{"rain"}, UCSCategory: "DOORWood"}, "rain. DOOR Wood"},
		{foley.SoundRecord{UCSCategory: "AMBForest"}, "AMB Forest"},
		{foley.SoundRecord{Caption: "Click"}, "Click"},
		{foley.SoundRecord{ID: "x", URI: "x.wav"}, ""},
	} {
		if got := RecordText(tc.rec); got != tc.want {
			t.Errorf("RecordText = %q, want %q", got, tc.want)
		}
	}
	// A record's text finds it.
	h := NewHash(0)
	rec := foley.SoundRecord{Caption: "Heavy wooden door slams shut", Tags: []string{"door", "slam"}, UCSCategory: "DOORWood"}
	rain := foley.SoundRecord{Caption: "Rain on a tin roof", Tags: []string{"rain", "metal"}, UCSCategory: "RAINSurface"}
	q := h.Embed("door slam")
	if Cosine(q, h.Embed(RecordText(rec))) <= Cosine(q, h.Embed(RecordText(rain)))+0.2 {
		t.Error("the door record does not stand out for \"door slam\"")
	}
}

func TestCosine(t *testing.T) {
	if c := Cosine([]float32{1, 0}, []float32{1, 0}); c != 1 {
		t.Errorf("identical: %v", c)
	}
	if c := Cosine([]float32{1, 0}, []float32{0, 2}); c != 0 {
		t.Errorf("orthogonal: %v", c)
	}
	if c := Cosine([]float32{3, 4}, []float32{-6, -8}); math.Abs(c+1) > 1e-12 {
		t.Errorf("opposite: %v", c)
	}
	if c := Cosine([]float32{1}, []float32{1, 0}); c != 0 {
		t.Errorf("lengths differ: %v", c)
	}
	if c := Cosine([]float32{0, 0}, []float32{1, 0}); c != 0 {
		t.Errorf("zero vector: %v", c)
	}
}

func BenchmarkHashEmbed(b *testing.B) {
	h := NewHash(0)
	text := "Heavy wooden door slams shut in a large reverberant hall, with a metallic latch click"
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		h.Embed(text)
	}
}

func BenchmarkHashEmbedText(b *testing.B) {
	h := NewHash(0)
	texts := []string{
		"Heavy wooden door slams shut. door, slam, wood. DOOR Wood",
		"Rain on a tin roof, steady, close. rain, metal, roof. RAIN Surface",
		"Dog barks twice in the distance. dog, bark, animal. ANIMALS Dog",
		"Glass bottle shatters on concrete. glass, break, debris. GLASS Break",
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.EmbedText(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
	}
}
