package ingest

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/audio"
	"github.com/foley-audio/foley/embed"
	"github.com/foley-audio/foley/sqlite"
)

// writeTone writes a short WAV.
func writeTone(t *testing.T, path string, freq float64) {
	t.Helper()
	c := &audio.Clip{SampleRate: 16000, Channels: 1, Samples: make([]float32, 8000)}
	for i := range c.Samples {
		c.Samples[i] = float32(0.5 * math.Sin(2*math.Pi*freq*float64(i)/16000))
	}
	os.MkdirAll(filepath.Dir(path), 0o755)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := c.WriteWAV16(f); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(to), 0o755)
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// corpus builds a folder using every metadata source.
func corpus(t *testing.T) string {
	root := filepath.Join(t.TempDir(), "sfx")
	fx := "../audio/testdata/"
	// 1. A sidecar in the record's shape.
	writeTone(t, filepath.Join(root, "doors", "take_07.wav"), 220)
	write(t, filepath.Join(root, "doors", "take_07.json"), `{"id": "door-slam-07", "caption": "Heavy wooden door slams shut",
		"tags": ["door", "slam", "wood"], "license": {"license_id": "CC0-1.0", "creator": "Ana"}}`)
	// 2. A folder manifest (JSON) and 3. one (CSV).
	writeTone(t, filepath.Join(root, "weather", "r1.wav"), 300)
	writeTone(t, filepath.Join(root, "weather", "w1.wav"), 310)
	write(t, filepath.Join(root, "weather", "manifest.json"), `[
		{"file": "r1.wav", "caption": "Rain on a tin roof", "tags": ["rain", "roof"], "license": "https://creativecommons.org/licenses/by/4.0/", "creator": "Bo"},
		{"file": "w1.wav", "caption": "Wind howling through trees", "license_id": "CC-BY-NC-4.0", "rights_verified": false}]`)
	writeTone(t, filepath.Join(root, "animals", "d.wav"), 400)
	write(t, filepath.Join(root, "animals", "metadata.csv"), "file,caption,tags,license,creator\nd.wav,A dog barks twice,dog;bark,Attribution,Cy\n")
	// 4. Metadata in the files themselves, in every format.
	copyFile(t, fx+"wav_meta.wav", filepath.Join(root, "tagged", "meta.wav"))
	copyFile(t, fx+"flac_s16.flac", filepath.Join(root, "tagged", "rain.flac"))
	copyFile(t, fx+"mp3_id3.mp3", filepath.Join(root, "tagged", "dog.mp3"))
	copyFile(t, fx+"ogg_vorbis.ogg", filepath.Join(root, "tagged", "wind.ogg"))
	// 5. UCS file names.
	writeTone(t, filepath.Join(root, "ucs", "FEETGrav_Boots Walking Gravel_JD_FOLEYLIB.wav"), 500)
	// 6. Only folder and file names.
	writeTone(t, filepath.Join(root, "Kitchen Sounds", "glassBreakLoud-01.wav"), 600)
	// Not audio: ignored, not failed.
	write(t, filepath.Join(root, "README.txt"), "notes")
	write(t, filepath.Join(root, ".hidden", "x.wav"), "not even audio")
	return root
}

func newLib(t *testing.T) *sqlite.Library {
	t.Helper()
	l, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "foley.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func search(t *testing.T, l *sqlite.Library, q string, f foley.Filter) []foley.Candidate {
	t.Helper()
	emb := embed.NewHash(0)
	v, err := emb.EmbedText(context.Background(), []string{q})
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.Search(context.Background(), foley.SearchQuery{Text: q, Vector: v[0], Model: emb.Model(), K: 5, Filter: f})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func byCaption(t *testing.T, l *sqlite.Library) map[string]foley.SoundRecord {
	out := map[string]foley.SoundRecord{}
	for r, err := range l.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(r.URI)] = r
	}
	return out
}

func TestIngestMetadataSources(t *testing.T) {
	ctx := context.Background()
	root := corpus(t)
	l := newLib(t)
	sum, err := Run(ctx, l, embed.NewHash(0), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Added != 10 || sum.Failed != 0 || sum.Updated+sum.Unchanged+sum.Removed != 0 {
		t.Fatalf("summary %+v", sum)
	}
	recs := byCaption(t, l)
	check := func(file, caption, licence string, verified bool, tags ...string) {
		t.Helper()
		r, ok := recs[file]
		if !ok {
			t.Errorf("%s not indexed", file)
			return
		}
		if r.Caption != caption || r.License.LicenseID != licence || r.License.RightsVerified != verified {
			t.Errorf("%s: caption %q licence %s verified %v", file, r.Caption, r.License.LicenseID, r.License.RightsVerified)
		}
		for _, tag := range tags {
			found := false
			for _, have := range r.Tags {
				found = found || have == tag
			}
			if !found {
				t.Errorf("%s: tags %v lack %q", file, r.Tags, tag)
			}
		}
		if r.DurationS <= 0 || r.SampleRate == 0 || r.Format == "" || len(r.ContentSHA256) != 64 || r.EmbeddingModel == "" {
			t.Errorf("%s: facts %+v", file, r)
		}
	}
	check("take_07.wav", "Heavy wooden door slams shut", "CC0-1.0", true, "slam")
	if recs["take_07.wav"].ID != "door-slam-07" || recs["take_07.wav"].License.Creator != "Ana" {
		t.Errorf("sidecar id/creator: %+v", recs["take_07.wav"])
	}
	check("r1.wav", "Rain on a tin roof", "CC-BY-4.0", true, "roof")
	check("w1.wav", "Wind howling through trees", "CC-BY-NC-4.0", false)
	check("d.wav", "A dog barks twice", "CC-BY-4.0", true, "bark")
	// The files' own tags: named licences are recorded, unverified.
	check("meta.wav", "A heavy wooden door slams shut", "CC0-1.0", false)
	check("rain.flac", "Steady rain, close", "CC-BY-4.0", false)
	check("dog.mp3", "Dog barks twice", "unknown", false)
	check("wind.ogg", "Gusty wind, leaves", "CC0-1.0", false)
	ucs := recs["FEETGrav_Boots Walking Gravel_JD_FOLEYLIB.wav"]
	if ucs.Caption != "Boots Walking Gravel" || ucs.UCSCategory != "FEETGrav" {
		t.Errorf("UCS name: %q %q %v", ucs.Caption, ucs.UCSCategory, ucs.Tags)
	}
	check("glassBreakLoud-01.wav", "glass Break Loud 01", "unknown", false, "kitchen", "glass", "break")
	// Every record without a sidecar or manifest licence is unusable here.
	// w1 (rights not verified), the four whose licence comes from their
	// own tags, and the two with no licence at all.
	if sum.Unusable != 7 {
		t.Errorf("unusable %d, want 7", sum.Unusable)
	}
	// Searches find what the metadata says.
	for q, want := range map[string]string{
		"heavy wooden door slam": "take_07.wav",
		"dog barking":            "d.wav",
		"rain on a roof":         "r1.wav",
		"footsteps gravel":       "FEETGrav_Boots Walking Gravel_JD_FOLEYLIB.wav",
		"glass break":            "glassBreakLoud-01.wav",
	} {
		res := search(t, l, q, foley.Filter{})
		if len(res) == 0 || filepath.Base(res[0].Sound.URI) != want {
			t.Errorf("%q: top results %v, want %s first", q, names(res), want)
		}
	}
	// Filters: commercial use keeps only verified, commercial licences.
	for _, c := range search(t, l, "wind", foley.Filter{CommercialOnly: true}) {
		if !c.Sound.License.CommercialOK || !c.Sound.License.RightsVerified {
			t.Errorf("commercial filter let %s through", c.Sound.ID)
		}
	}
	if res := search(t, l, "walking", foley.Filter{UCSCategory: "FEET"}); len(res) != 1 {
		t.Errorf("UCS filter: %v", names(res))
	}
}

func names(cs []foley.Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, filepath.Base(c.Sound.URI))
	}
	return out
}

func TestIngestLicenceOptions(t *testing.T) {
	ctx := context.Background()
	root := corpus(t)
	l := newLib(t)
	sum, err := Run(ctx, l, embed.NewHash(0), root, Options{License: "user-owned", TrustMetadata: true})
	if err != nil {
		t.Fatal(err)
	}
	recs := byCaption(t, l)
	if r := recs["glassBreakLoud-01.wav"].License; r.LicenseID != "user-owned" || !r.RightsVerified {
		t.Errorf("folder licence: %+v", r)
	}
	if r := recs["wind.ogg"].License; r.LicenseID != "CC0-1.0" || !r.RightsVerified {
		t.Errorf("trusted file licence: %+v", r)
	}
	// dog.mp3 names no licence: the folder's applies.
	if r := recs["dog.mp3"].License; r.LicenseID != "user-owned" {
		t.Errorf("dog.mp3: %+v", r)
	}
	// The manifest said rights_verified false; that stands.
	if r := recs["w1.wav"].License; r.RightsVerified || sum.Unusable != 1 {
		t.Errorf("w1: %+v, unusable %d", r, sum.Unusable)
	}
	if _, err := Run(ctx, l, embed.NewHash(0), root, Options{License: "my own licence"}); foley.CodeOf(err) != foley.Invalid {
		t.Errorf("unknown --license: %v", err)
	}
}

func TestIngestIncremental(t *testing.T) {
	ctx := context.Background()
	root := corpus(t)
	l := newLib(t)
	emb := embed.NewHash(0)
	if _, err := Run(ctx, l, emb, root, Options{}); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(ctx, l, emb, root, Options{})
	if err != nil || sum.Unchanged != 10 || sum.Added+sum.Updated+sum.Removed+sum.Failed != 0 {
		t.Fatalf("second run: %+v %v", sum, err)
	}
	// Touch without change: still unchanged. Change content: updated. Edit
	// a sidecar: updated. Delete: removed. Break a file: failed.
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(root, "tagged", "meta.wav"), later, later)
	writeTone(t, filepath.Join(root, "weather", "r1.wav"), 999)
	write(t, filepath.Join(root, "doors", "take_07.json"), `{"id": "door-slam-07", "caption": "Oak door slams", "license": "CC0-1.0"}`)
	os.Remove(filepath.Join(root, "animals", "d.wav"))
	write(t, filepath.Join(root, "tagged", "wind.ogg"), "OggS but not really")
	sum, err = Run(ctx, l, emb, root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Updated != 2 || sum.Removed != 1 || sum.Failed != 1 || sum.Unchanged != 6 || sum.Added != 0 {
		t.Errorf("third run: %+v", sum)
	}
	if len(sum.Failures) != 1 || !strings.Contains(sum.Failures[0].Reason, "ogg") || !strings.HasSuffix(sum.Failures[0].Path, "wind.ogg") {
		t.Errorf("failures %+v", sum.Failures)
	}
	if fs, _ := l.Failures(ctx); len(fs) != 1 {
		t.Errorf("recorded failures %+v", fs)
	}
	if r, _ := l.Get(ctx, "door-slam-07"); r.Caption != "Oak door slams" {
		t.Errorf("sidecar edit not picked up: %q", r.Caption)
	}
	// Restoring the file clears its failure (its record, kept while it was
	// broken, still matches it); --keep-missing keeps records of deleted
	// files.
	copyFile(t, "../audio/testdata/ogg_vorbis.ogg", filepath.Join(root, "tagged", "wind.ogg"))
	os.Remove(filepath.Join(root, "ucs", "FEETGrav_Boots Walking Gravel_JD_FOLEYLIB.wav"))
	sum, _ = Run(ctx, l, emb, root, Options{KeepMissing: true})
	if sum.Unchanged != 8 || sum.Updated != 0 || sum.Removed != 0 || sum.Failed != 0 {
		t.Errorf("fourth run: %+v", sum)
	}
	if fs, _ := l.Failures(ctx); len(fs) != 0 {
		t.Errorf("failure not cleared: %+v", fs)
	}
	if n, _ := l.Count(ctx); n != 9 {
		t.Errorf("count %d, want 9", n)
	}
}

// otherEmbedder is a text embedder with another model name.
type otherEmbedder struct{ *embed.Hash }

func (otherEmbedder) Model() string { return "other/512" }

func TestIngestEmbedderChange(t *testing.T) {
	ctx := context.Background()
	root := corpus(t)
	l := newLib(t)
	Run(ctx, l, embed.NewHash(0), root, Options{})
	_, err := Run(ctx, l, otherEmbedder{embed.NewHash(0)}, root, Options{})
	if foley.CodeOf(err) != foley.Invalid || !strings.Contains(err.Error(), "--reembed") {
		t.Fatalf("embedder change: %v", err)
	}
	sum, err := Run(ctx, l, otherEmbedder{embed.NewHash(0)}, root, Options{Reembed: true})
	if err != nil || sum.Updated != 10 {
		t.Fatalf("reembed: %+v %v", sum, err)
	}
	if m, _ := l.Embedding(); m != "other/512" {
		t.Errorf("model after reembed %q", m)
	}
}

// downEmbedder fails as an unreachable server does.
type downEmbedder struct{ *embed.Hash }

func (downEmbedder) Model() string      { return "clap/down" }
func (downEmbedder) AudioCapable() bool { return true }
func (downEmbedder) EmbedAudio(context.Context, []string) ([][]float32, error) {
	return nil, foley.Errorf(foley.Unavailable, "CLAP server at http://127.0.0.1:1 is not reachable")
}

func TestIngestStopsWhenEmbedderIsDown(t *testing.T) {
	l := newLib(t)
	sum, err := Run(context.Background(), l, downEmbedder{embed.NewHash(0)}, corpus(t), Options{})
	if foley.CodeOf(err) != foley.Unavailable || !sum.Interrupted || sum.Failed != 0 {
		t.Errorf("summary %+v, error %v", sum, err)
	}
}

func TestIngestInterruptedThenCompleted(t *testing.T) {
	root := corpus(t)
	l := newLib(t)
	ctx, cancel := context.WithCancel(context.Background())
	sum, err := Run(ctx, l, embed.NewHash(0), root, Options{Workers: 1, Progress: func(p Progress) {
		if p.Done == 3 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || !sum.Interrupted {
		t.Fatalf("interrupted run: %+v %v", sum, err)
	}
	n, _ := l.Count(context.Background())
	if n >= 10 {
		t.Errorf("an interrupted run stored all %d files", n)
	}
	// The library opens and searches, and the next run completes it.
	if res := search(t, l, "door", foley.Filter{}); res == nil {
		t.Error("search after interruption failed")
	}
	sum, err = Run(context.Background(), l, embed.NewHash(0), root, Options{})
	if err != nil || sum.Added+sum.Unchanged != 10 {
		t.Errorf("completing run: %+v %v", sum, err)
	}
}

func TestIngestFreedesktop(t *testing.T) {
	dir := "/usr/share/sounds/freedesktop/stereo"
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("sound-theme-freedesktop is missing; .ci/run should have installed it")
		}
		t.Skip("sound-theme-freedesktop is not installed")
	}
	l := newLib(t)
	sum, err := Run(context.Background(), l, embed.NewHash(0), dir, Options{})
	if err != nil || sum.Added < 30 || sum.Failed != 0 {
		t.Fatalf("%+v %v", sum, err)
	}
	res := search(t, l, "bell", foley.Filter{})
	if len(res) == 0 || filepath.Base(res[0].Sound.URI) != "bell.oga" {
		t.Errorf("bell: %v", names(res))
	}
}

func TestParseUCSName(t *testing.T) {
	for stem, want := range map[string]string{
		"DOORWood_Heavy Slam_JD_LIB":     "DOORS/Wood/Heavy Slam",
		"AMBForst_Dawn Chorus":           "AMBIENCE/Forst/Dawn Chorus",
		"FIREWRKRockt_Launch_AB_X_take2": "FIREWORKS/Rockt/Launch",
		"GUNAuto_Burst":                  "GUNS/Auto/Burst",
		"UIBeep_Confirm":                 "USER INTERFACE/Beep/Confirm",
	} {
		n, ok := ParseUCSName(stem)
		if got := n.Category + "/" + n.SubCategory + "/" + n.FXName; !ok || got != want {
			t.Errorf("%s: %q %v, want %q", stem, got, ok, want)
		}
	}
	for _, stem := range []string{"door_slam_01", "DOG_bark", "XYZAbc_Thing", "DOORWood", "DOORwood_x"} {
		if n, ok := ParseUCSName(stem); ok {
			t.Errorf("%s read as UCS: %+v", stem, n)
		}
	}
}

func TestUCSCategory(t *testing.T) {
	for in, want := range map[string]string{"DOORWood": "DOORS", "FIREWRKBurst": "FIREWORKS", "FIRECrackle": "FIRE", "doors": "DOORS", "FOOD & DRINK": "FOOD & DRINK", "ANML": "ANIMALS"} {
		if got, ok := UCSCategory(in); !ok || got != want {
			t.Errorf("UCSCategory(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "XYZWood", "DOORwood", "door slam"} {
		if got, ok := UCSCategory(bad); ok {
			t.Errorf("UCSCategory(%q) = %q, want unknown", bad, got)
		}
	}
}
