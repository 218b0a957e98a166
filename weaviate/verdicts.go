package weaviate

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/verify"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/fault"
	"github.com/weaviate/weaviate/entities/models"
)

// Verdicts is the verdict cache of a Weaviate library, in the class
// CLASS_Verdicts beside the records, so that every replica of a service
// shares what was paid for. It implements verify.VerdictStore.
type Verdicts struct{ l *Library }

var _ verify.VerdictStore = (*Verdicts)(nil)

// Verdicts returns the library's verdict cache.
func (l *Library) Verdicts() *Verdicts { return &Verdicts{l: l} }

// Close implements verify.VerdictStore.
func (v *Verdicts) Close() error { return nil }

// GetVerdict implements verify.VerdictCache.
func (v *Verdicts) GetVerdict(ctx context.Context, key verify.CacheKey) (foley.Verdict, bool, error) {
	objs, err := v.l.c.Data().ObjectsGetter().WithClassName(v.l.verdicts).WithID(objectID("verdict", key.Hash())).Do(ctx)
	var ce *fault.WeaviateClientError
	if (errors.As(err, &ce) && ce.StatusCode == http.StatusNotFound) || (err == nil && len(objs) == 0) {
		return foley.Verdict{}, false, nil
	}
	if err != nil {
		return foley.Verdict{}, false, v.l.wrap("reading a cached verdict", err)
	}
	p, _ := objs[0].Properties.(map[string]any)
	raw, _ := p["verdict"].(string)
	var out foley.Verdict
	if json.Unmarshal([]byte(raw), &out) != nil {
		return foley.Verdict{}, false, nil // a miss; the next verdict replaces it
	}
	return out, true, nil
}

// PutVerdict implements verify.VerdictCache.
func (v *Verdicts) PutVerdict(ctx context.Context, key verify.CacheKey, verdict foley.Verdict) error {
	return v.PutVerdicts(ctx, []verify.CachedVerdict{{Key: key, Verdict: verdict}})
}

// PutVerdicts implements verify.VerdictStore, in batches.
func (v *Verdicts) PutVerdicts(ctx context.Context, vs []verify.CachedVerdict) error {
	now := time.Now().UTC().Format(time.RFC3339)
	for start := 0; start < len(vs); start += BatchSize {
		part := vs[start:min(start+BatchSize, len(vs))]
		objs := make([]*models.Object, len(part))
		for i, cv := range part {
			verdict := cv.Verdict
			verdict.Cached = false
			raw, err := json.Marshal(verdict)
			if err != nil {
				return err
			}
			k := cv.Key
			objs[i] = &models.Object{Class: v.l.verdicts, ID: strfmtUUID(objectID("verdict", k.Hash())), Properties: map[string]any{
				"key_sha256": k.Hash(), "event": k.Event, "content_sha256": k.ContentSHA256, "description": k.Description,
				"level": k.Level.String(), "judge": k.Judge, "verdict": string(raw), "created_at": now,
			}}
		}
		res, err := v.l.batchObjects(ctx, objs)
		if err != nil {
			return v.l.wrap("caching verdicts", err)
		}
		for _, r := range res {
			if msg := batchError(r); msg != "" {
				return foley.Errorf(foley.Unavailable, "library %s: caching a verdict: %s", v.l.loc, msg)
			}
		}
	}
	return nil
}

// AllVerdicts implements verify.VerdictStore.
func (v *Verdicts) AllVerdicts(ctx context.Context) iter.Seq2[verify.CachedVerdict, error] {
	return func(yield func(verify.CachedVerdict, error) bool) {
		after := ""
		for {
			g := v.l.c.Data().ObjectsGetter().WithClassName(v.l.verdicts).WithLimit(exportPage)
			if after != "" {
				g = g.WithAfter(after)
			}
			objs, err := g.Do(ctx)
			if err != nil {
				yield(verify.CachedVerdict{}, v.l.wrap("reading cached verdicts", err))
				return
			}
			for _, o := range objs {
				p, _ := o.Properties.(map[string]any)
				str := func(k string) string { s, _ := p[k].(string); return s }
				cv := verify.CachedVerdict{Key: verify.CacheKey{Event: str("event"), ContentSHA256: str("content_sha256"),
					Description: str("description"), Judge: str("judge")}}
				level, err := foley.ParseVerifyLevel(str("level"))
				if err != nil || json.Unmarshal([]byte(str("verdict")), &cv.Verdict) != nil {
					continue
				}
				cv.Key.Level = level
				if !yield(cv, nil) {
					return
				}
			}
			if len(objs) < exportPage {
				return
			}
			after = objs[len(objs)-1].ID.String()
		}
	}
}

// Count returns the number of cached verdicts.
func (v *Verdicts) Count(ctx context.Context) (int, error) { return v.l.count(ctx, v.l.verdicts) }
