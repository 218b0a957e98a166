package weaviate

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/license"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/fault"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"
)

// This file is what ingest needs of a library beyond storing records: the
// state of the files it indexed, which lives on the record objects (path,
// size, mtime_ns, content_sha256, meta_sha256), and the files it could not
// index, one object each in the class CLASS_Failures. Path prefixes mean
// what they mean in the embedded library: a byte prefix of the path.

// scanPage is how many objects one request of a scan reads.
const scanPage = 500

// scanned is an object read by scan: its UUID and the properties asked for
// (absent when the object has none).
type scanned struct {
	id    string
	props map[string]any
}

// text is a text property of o, or "".
func (o scanned) text(name string) string {
	s, _ := o.props[name].(string)
	return s
}

// scan iterates over every object of class, in the order of their UUIDs
// (Weaviate's cursor), reading only the given properties.
func (l *Library) scan(ctx context.Context, class string, props ...string) iter.Seq2[scanned, error] {
	fields := make([]graphql.Field, 0, len(props)+1)
	for _, p := range props {
		fields = append(fields, graphql.Field{Name: p})
	}
	fields = append(fields, graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "id"}}})
	return func(yield func(scanned, error) bool) {
		after := ""
		for {
			get := l.c.GraphQL().Get().WithClassName(class).WithLimit(scanPage).WithFields(fields...)
			if after != "" {
				get = get.WithAfter(after)
			}
			var out struct {
				Get map[string][]map[string]any
			}
			if err := runGQL(ctx, get, &out); err != nil {
				yield(scanned{}, l.wrap("reading "+class, err))
				return
			}
			objs := out.Get[class]
			for _, m := range objs {
				add, _ := m["_additional"].(map[string]any)
				id, _ := add["id"].(string)
				delete(m, "_additional")
				for k, v := range m {
					if v == nil {
						delete(m, k)
					}
				}
				if !yield(scanned{id: id, props: m}, nil) {
					return
				}
				after = id
			}
			if len(objs) < scanPage {
				return
			}
		}
	}
}

// Files returns the state of every ingested file (every record stored with
// one), by path.
func (l *Library) Files(ctx context.Context) (map[string]foley.FileState, error) {
	out := map[string]foley.FileState{}
	for o, err := range l.scan(ctx, l.loc.Class, "record_id", "path", "size", "mtime_ns", "content_sha256", "meta_sha256") {
		if err != nil {
			return nil, err
		}
		if f := fileState(o.props); f != nil {
			out[f.Path] = *f
		}
	}
	return out, nil
}

// fileState is the ingest bookkeeping in the properties of a record
// object, nil for a record stored without a file.
func fileState(props map[string]any) *foley.FileState {
	path, ok := props["path"].(string)
	if !ok {
		return nil
	}
	o := scanned{props: props}
	f := foley.FileState{ID: o.text("record_id"), Path: path, Size: -1, SHA256: o.text("content_sha256"), MetaSHA256: o.text("meta_sha256")}
	if n, err := strconv.ParseInt(o.text("size"), 10, 64); err == nil {
		f.Size = n
	}
	if n, err := strconv.ParseInt(o.text("mtime_ns"), 10, 64); err == nil {
		f.MtimeNS = n
	}
	return &f
}

// withPath returns the UUIDs of the records of the file at path.
func (l *Library) withPath(ctx context.Context, path string) ([]string, error) {
	var ids []string
	if strings.TrimFunc(path, unicode.IsSpace) == "" {
		// Weaviate's field tokenization trims the value to nothing:
		// compare every path.
		for o, err := range l.scan(ctx, l.loc.Class, "path") {
			if err != nil {
				return nil, err
			}
			if p, ok := o.props["path"].(string); ok && p == path {
				ids = append(ids, o.id)
			}
		}
		return ids, nil
	}
	// The filter compares trimmed values; the exact path is checked here.
	get := l.c.GraphQL().Get().WithClassName(l.loc.Class).WithLimit(foley.MaxK).
		WithWhere(filters.Where().WithPath([]string{"path"}).WithOperator(filters.Equal).WithValueText(path)).
		WithFields(graphql.Field{Name: "path"}, graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "id"}}})
	var out struct {
		Get map[string][]struct {
			Path       string `json:"path"`
			Additional struct {
				ID string `json:"id"`
			} `json:"_additional"`
		}
	}
	if err := runGQL(ctx, get, &out); err != nil {
		return nil, l.wrap("finding the records of "+path, err)
	}
	for _, o := range out.Get[l.loc.Class] {
		if o.Path == path {
			ids = append(ids, o.Additional.ID)
		}
	}
	return ids, nil
}

// TouchFile records a file's new size and modification time when its
// content did not change (same hash), so the next ingest skips it.
func (l *Library) TouchFile(ctx context.Context, path string, size, mtimeNS int64) error {
	ids, err := l.withPath(ctx, path)
	if err != nil {
		return err
	}
	for _, id := range ids {
		// A merge keeps the other properties and the vector.
		err := l.c.Data().Updater().WithMerge().WithClassName(l.loc.Class).WithID(id).
			WithProperties(map[string]any{"size": strconv.FormatInt(size, 10), "mtime_ns": strconv.FormatInt(mtimeNS, 10)}).Do(ctx)
		if isNotFound(err) {
			continue // deleted since
		}
		if err != nil {
			return l.wrap("recording the new time of "+path, err)
		}
	}
	return nil
}

// isNotFound reports whether err is Weaviate's 404.
func isNotFound(err error) bool {
	var ce *fault.WeaviateClientError
	return errors.As(err, &ce) && ce.StatusCode == http.StatusNotFound
}

// SetFailure records (reason != "") or clears (reason == "") the failure of
// a file.
func (l *Library) SetFailure(ctx context.Context, path, reason string) error {
	id := objectID("failure", path)
	if reason == "" {
		err := l.c.Data().Deleter().WithClassName(l.failures).WithID(id).Do(ctx)
		if err != nil && !isNotFound(err) {
			return l.wrap("clearing the failure of "+path, err)
		}
		return nil
	}
	obj := &models.Object{Class: l.failures, ID: strfmtUUID(id), Properties: map[string]any{
		"path": path, "reason": reason, "at": time.Now().UTC().Format(time.RFC3339),
	}}
	res, err := l.batchObjects(ctx, []*models.Object{obj})
	if err != nil {
		return l.wrap("recording the failure of "+path, err)
	}
	for _, r := range res {
		if msg := batchError(r); msg != "" {
			return foley.Errorf(foley.Unavailable, "library %s: recording the failure of %s: %s", l.loc, path, msg)
		}
	}
	return nil
}

// Failures lists the files ingest could not read or store, by path.
func (l *Library) Failures(ctx context.Context) ([]foley.Failure, error) {
	var out []foley.Failure
	for o, err := range l.scan(ctx, l.failures, "path", "reason", "at") {
		if err != nil {
			return nil, err
		}
		f := foley.Failure{Path: o.text("path"), Reason: o.text("reason")}
		if at, err := time.Parse(time.RFC3339, o.text("at")); err == nil {
			f.At = at.UTC()
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b foley.Failure) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// deleteChunk is how many objects one batch delete names.
const deleteChunk = 200

// ClearFailuresUnder forgets the recorded failures of files under a path
// prefix, before an ingest of that folder records them again. The prefix is
// tested here, not with Weaviate's Like, which reads '*' and '?' in paths as
// wildcards.
func (l *Library) ClearFailuresUnder(ctx context.Context, pathPrefix string) error {
	var ids []string
	for o, err := range l.scan(ctx, l.failures, "path") {
		if err != nil {
			return err
		}
		if p, ok := o.props["path"].(string); ok && strings.HasPrefix(p, pathPrefix) {
			ids = append(ids, o.id)
		}
	}
	for start := 0; start < len(ids); start += deleteChunk {
		part := ids[start:min(start+deleteChunk, len(ids))]
		res, err := l.c.Batch().ObjectsBatchDeleter().WithClassName(l.failures).WithOutput("minimal").
			WithWhere(filters.Where().WithPath([]string{"id"}).WithOperator(filters.ContainsAny).WithValueText(part...)).Do(ctx)
		if err != nil {
			return l.wrap("clearing failures", err)
		}
		if res.Results != nil && res.Results.Failed > 0 {
			return foley.Errorf(foley.Unavailable, "library %s: clearing failures: Weaviate did not delete %d of them", l.loc, res.Results.Failed)
		}
	}
	return nil
}

// unusable matches the records the licence gate drops whatever the use: an
// unknown licence, or rights nobody verified.
func unusable() *filters.WhereBuilder {
	return filters.Where().WithOperator(filters.Or).WithOperands([]*filters.WhereBuilder{
		filters.Where().WithPath([]string{"license_id"}).WithOperator(filters.Equal).WithValueText(license.Unknown),
		// Equal false, not NotEqual true: Weaviate's NotEqual also
		// counted deleted objects. Put writes the property on every
		// record.
		filters.Where().WithPath([]string{"rights_verified"}).WithOperator(filters.Equal).WithValueBoolean(false),
	})
}

// likePrefix reports whether Weaviate's Like with prefix+"*" selects the
// paths that start with prefix: the prefix has no wildcard ('*', '?') and
// does not start with a space (field tokenization trims the pattern).
// Weaviate's Like is a regular expression whose '*' does not match a
// newline, so a path with one after the prefix is missed; such names are
// not worth a scan of the library.
func likePrefix(prefix string) bool {
	return prefix != "" && !strings.ContainsAny(prefix, "*?") && strings.TrimLeftFunc(prefix, unicode.IsSpace) == prefix
}

// CountUnusable counts the records of files under a path prefix that the
// licence gate would drop whatever the use: an unknown licence, or rights
// nobody verified.
func (l *Library) CountUnusable(ctx context.Context, pathPrefix string) (int, error) {
	if likePrefix(pathPrefix) {
		w := filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{
			filters.Where().WithPath([]string{"path"}).WithOperator(filters.Like).WithValueText(pathPrefix + "*"),
			unusable(),
		})
		return l.countWhere(ctx, l.loc.Class, w)
	}
	n := 0
	for o, err := range l.scan(ctx, l.loc.Class, "path", "license_id", "rights_verified") {
		if err != nil {
			return 0, err
		}
		p, ok := o.props["path"].(string)
		if !ok || !strings.HasPrefix(p, pathPrefix) {
			continue
		}
		if verified, _ := o.props["rights_verified"].(bool); !verified || o.text("license_id") == license.Unknown {
			n++
		}
	}
	return n, nil
}

// ResetEmbeddings forgets the library's embedder, so that the records can
// be embedded again with another. The records keep their vectors until
// they are stored again. Weaviate's vector index keeps the dimension of
// the first vector for good (even once every object is deleted): vectors
// of another dimension are then refused one by one, which Put reports in a
// *foley.PartialError.
func (l *Library) ResetEmbeddings(ctx context.Context) error {
	err := l.c.Data().Deleter().WithClassName(l.meta).WithID(metaID).Do(ctx)
	if err != nil && !isNotFound(err) {
		return l.wrap("forgetting its embedder", err)
	}
	l.mu.Lock()
	l.model, l.dim = "", 0
	l.mu.Unlock()
	return nil
}

// dimensionHint follows Weaviate's refusal of a vector whose length is not
// the class's.
const dimensionHint = " (a Weaviate class keeps the vector dimension it was first given; to embed with a model of another dimension, index into a new class)"

// checkProperties refuses a class made by another build of foley, whose
// properties (missing, or of another type) this one cannot write or count.
func (l *Library) checkProperties(have, want *models.Class) error {
	types := make(map[string]string, len(have.Properties))
	for _, p := range have.Properties {
		types[strings.ToLower(p.Name)] = strings.Join(p.DataType, ",")
	}
	for _, p := range want.Properties {
		got, ok := types[strings.ToLower(p.Name)]
		switch {
		case !ok:
			return foley.Errorf(foley.Invalid, "library %s: the class %s was made by another version of foley (it has no property %s); index into a new class", l.loc, want.Class, p.Name)
		case got != strings.Join(p.DataType, ","):
			return foley.Errorf(foley.Invalid, "library %s: the class %s was made by another version of foley (its property %s is %s, not %s); index into a new class",
				l.loc, want.Class, p.Name, got, strings.Join(p.DataType, ","))
		}
	}
	return nil
}
