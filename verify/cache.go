package verify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"iter"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/foley-audio/foley"
)

// VerdictCache stores verdicts already paid for. Implementations are safe
// for concurrent use; package sqlite has a persistent one.
type VerdictCache interface {
	// GetVerdict returns the verdict stored under key, and whether there
	// was one.
	GetVerdict(ctx context.Context, key CacheKey) (foley.Verdict, bool, error)
	// PutVerdict stores v under key, replacing what was there.
	PutVerdict(ctx context.Context, key CacheKey, v foley.Verdict) error
}

// VerdictStore is a persistent verdict cache that can also hand over its
// contents and take them in bulk, for copying between library backends.
type VerdictStore interface {
	VerdictCache
	// AllVerdicts iterates over every cached verdict with its key.
	AllVerdicts(ctx context.Context) iter.Seq2[CachedVerdict, error]
	// PutVerdicts stores many verdicts, replacing what was there.
	PutVerdicts(ctx context.Context, vs []CachedVerdict) error
	// Close releases the store.
	Close() error
}

// CachedVerdict is a verdict with the key it is cached under.
type CachedVerdict struct {
	Key     CacheKey
	Verdict foley.Verdict
}

// CacheKey is what a cached verdict depends on: the event (its query and
// whatever else a judge is shown of it), the clip (its content hash and
// the description a text judge reads), the rung, and the judge's identity
// (kind, model, prompt version, threshold).
type CacheKey struct {
	Event         string // EventKey of the event
	ContentSHA256 string // of the clip's bytes
	Description   string // DescriptionKey of the candidate's metadata
	Level         foley.VerifyLevel
	Judge         string // the judge's Identity
}

// String is the key as one line, for storage: its fields joined by tabs.
func (k CacheKey) String() string {
	return strings.Join([]string{k.Event, k.ContentSHA256, k.Description, k.Level.String(), k.Judge}, "\t")
}

// Hash is the SHA-256 of String, in hex.
func (k CacheKey) Hash() string {
	sum := sha256.Sum256([]byte(k.String()))
	return hex.EncodeToString(sum[:])
}

// EventKey is the part of an event that a judge is shown: the query, and
// for the judge rung's prompt the scene, era and place, and diegesis.
func EventKey(e foley.SoundEvent) string {
	key := strings.TrimSpace(e.Query)
	if e.Scene != "" || e.EraPlace != "" || !e.IsDiegetic() {
		key += fmt.Sprintf(" | scene=%q era_place=%q diegetic=%t", e.Scene, e.EraPlace, e.IsDiegetic())
	}
	return key
}

// DescriptionKey is a short hash of what an LLM judge reads of a clip
// (caption, tags, category and duration), so that a verdict on a clip whose
// description changed is not reused.
func DescriptionKey(r foley.SoundRecord) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%.1f", r.Caption, strings.Join(r.Tags, "\x1f"), r.UCSCategory, r.DurationS)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// ContentHash returns the clip's content hash: the record's
// content_sha256 when it has one, else the SHA-256 of the local file its
// URI names. It returns "" when neither is available (a remote clip with no
// hash), and such a clip's verdicts are not cached.
func ContentHash(r foley.SoundRecord) string {
	if r.ContentSHA256 != "" {
		return strings.ToLower(r.ContentSHA256)
	}
	path, ok := LocalPath(r.URI)
	if !ok {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// LocalPath returns the file path a URI names when it is a plain path or a
// file:// URL, and false for any other URI.
func LocalPath(uri string) (string, bool) {
	if uri == "" {
		return "", false
	}
	u, err := url.Parse(uri)
	if err != nil || u.Scheme == "" || len(u.Scheme) == 1 { // "C:\..." parses with scheme "c"
		return uri, true
	}
	if u.Scheme != "file" {
		return "", false
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", false
	}
	return u.Path, u.Path != ""
}

// Cached wraps j so that its verdicts are looked up in cache before j is
// asked, and stored after. Only a judge with an identity can be cached (an
// IdentifiedJudge); any other judge, and a nil cache, give j back
// unwrapped. A verdict read from the cache has Cached set. Errors are never
// cached. A cache that fails to read or write is treated as a miss, and
// onError (when not nil) hears about it; verification goes on.
func Cached(j foley.Judge, cache VerdictCache, onError func(error)) foley.Judge {
	ij, ok := j.(foley.IdentifiedJudge)
	if !ok || cache == nil || ij.Identity() == "" {
		return j
	}
	return &cachedJudge{j: ij, cache: cache, onError: onError}
}

type cachedJudge struct {
	j       foley.IdentifiedJudge
	cache   VerdictCache
	onError func(error)
}

func (c *cachedJudge) Name() string     { return c.j.Name() }
func (c *cachedJudge) Identity() string { return c.j.Identity() }

// Check passes through to the wrapped judge when it can be checked.
func (c *cachedJudge) Check(ctx context.Context) error {
	if cj, ok := c.j.(foley.CheckableJudge); ok {
		return cj.Check(ctx)
	}
	return nil
}

// Unwrap returns the judge that answers on a miss.
func (c *cachedJudge) Unwrap() foley.Judge { return c.j }

func (c *cachedJudge) Judge(ctx context.Context, e foley.SoundEvent, cand foley.Candidate, level foley.VerifyLevel) (foley.Verdict, error) {
	hash := ContentHash(cand.Sound)
	if hash == "" {
		return c.j.Judge(ctx, e, cand, level)
	}
	key := CacheKey{Event: EventKey(e), ContentSHA256: hash, Description: DescriptionKey(cand.Sound), Level: level, Judge: c.j.Identity()}
	v, ok, err := c.cache.GetVerdict(ctx, key)
	if err != nil {
		c.report(fmt.Errorf("verdict cache: reading: %w", err))
	} else if ok {
		v.Cached = true
		return v, nil
	}
	v, err = c.j.Judge(ctx, e, cand, level)
	if err != nil {
		return v, err
	}
	v.Cached = false
	if err := c.cache.PutVerdict(ctx, key, v); err != nil {
		c.report(fmt.Errorf("verdict cache: writing: %w", err))
	}
	return v, nil
}

func (c *cachedJudge) report(err error) {
	if c.onError != nil {
		c.onError(err)
	}
}

// MemoryCache is a VerdictCache in memory, for tests and for embedding
// programs that want no file.
type MemoryCache struct {
	m sync.Map
}

// GetVerdict implements VerdictCache.
func (m *MemoryCache) GetVerdict(_ context.Context, key CacheKey) (foley.Verdict, bool, error) {
	v, ok := m.m.Load(key.String())
	if !ok {
		return foley.Verdict{}, false, nil
	}
	return v.(foley.Verdict), true, nil
}

// PutVerdict implements VerdictCache.
func (m *MemoryCache) PutVerdict(_ context.Context, key CacheKey, v foley.Verdict) error {
	m.m.Store(key.String(), v)
	return nil
}

// Len returns the number of verdicts stored.
func (m *MemoryCache) Len() int {
	n := 0
	m.m.Range(func(any, any) bool { n++; return true })
	return n
}
