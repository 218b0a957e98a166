package weaviate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/license"
	"github.com/google/uuid"
	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/fault"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	wgrpc "github.com/weaviate/weaviate-go-client/v5/weaviate/grpc"
	"github.com/weaviate/weaviate/entities/models"
)

// The classes beside a library's class: its settings (the embedder), its
// verdict cache and its ingest failures.
const (
	metaSuffix     = "_Meta"
	verdictsSuffix = "_Verdicts"
	failuresSuffix = "_Failures"
)

// SchemaVersion is the version of the classes this build writes.
const SchemaVersion = 1

// description marks a class as a foley library.
const description = "foley sound library"

// BatchSize is how many objects one batch request writes.
const BatchSize = 200

// DefaultTimeout bounds each request.
const DefaultTimeout = time.Minute

// writeAttempt bounds one attempt of a write, which is retried (writes are
// upserts by id, so a retry never duplicates). A write that reaches a
// cluster while its raft leader has just died can hang until the request
// is abandoned, although a new leader is elected within seconds; the
// retry then goes through.
var writeAttempt = 15 * time.Second

// batchObjects writes objects in one batch request, retrying a request that
// times out or cannot reach the server, up to three attempts.
func (l *Library) batchObjects(ctx context.Context, objs []*models.Object) ([]models.ObjectsGetResponse, error) {
	var res []models.ObjectsGetResponse
	err := l.retry(ctx, func(ctx context.Context) error {
		var err error
		res, err = l.c.Batch().ObjectsBatcher().WithObjects(objs...).Do(ctx)
		return err
	})
	return res, err
}

// retry runs a write up to three times, each attempt bounded by
// writeAttempt, while it fails for want of an answer (a timeout, a refused
// connection, a 5xx) rather than a refusal.
func (l *Library) retry(ctx context.Context, write func(context.Context) error) error {
	var err error
	for attempt := range 3 {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return err
			case <-time.After(time.Duration(attempt) * time.Second):
			}
		}
		actx, cancel := context.WithTimeout(ctx, writeAttempt)
		err = write(actx)
		cancel()
		if err == nil || ctx.Err() != nil || !transient(err) {
			return err
		}
	}
	return err
}

// transient reports whether a failed request may succeed if sent again.
func transient(err error) bool {
	var ce *fault.WeaviateClientError
	if errors.As(err, &ce) && ce.IsUnexpectedStatusCode {
		return ce.StatusCode >= 500 || ce.StatusCode == http.StatusTooManyRequests
	}
	return true // no answer: a timeout or a connection error
}

// Options tune Open.
type Options struct {
	// APIKey is sent as a bearer token; "" reads FOLEY_WEAVIATE_API_KEY.
	APIKey string
	// Timeout bounds each request; 0 means DefaultTimeout.
	Timeout time.Duration
}

// Library is a foley library in a Weaviate class. It is safe for
// concurrent use; many processes may share the class.
type Library struct {
	c   *weaviate.Client
	loc Location
	// meta, verdicts and failures are the names of the side classes.
	meta, verdicts, failures string

	mu    sync.Mutex
	model string
	dim   int
}

var _ foley.Store = (*Library)(nil)

// namespace makes object UUIDs from record ids: Weaviate objects are keyed
// by UUID, foley records by any string.
var namespace = uuid.MustParse("6f1c1f5e-4b7a-4c53-9d3e-9a3d0f4e2b10")

// objectID is the UUID of the object that holds the record with id.
func objectID(kind, id string) string {
	return uuid.NewSHA1(namespace, []byte(kind+"\x00"+id)).String()
}

// Open connects to the library at location (a weaviate:// URL), creating
// its classes on first use.
func Open(ctx context.Context, location string, opts Options) (*Library, error) {
	loc, err := ParseLocation(location)
	if err != nil {
		return nil, err
	}
	key := opts.APIKey
	if key == "" {
		key = os.Getenv(EnvAPIKey)
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	cfg := weaviate.Config{Host: loc.Host, Scheme: "http", Timeout: opts.Timeout, StartupTimeout: 0}
	if loc.TLS {
		cfg.Scheme = "https"
	}
	if key != "" {
		cfg.Headers = map[string]string{"Authorization": "Bearer " + key}
	}
	if loc.GRPC != "" {
		cfg.GrpcConfig = &wgrpc.Config{Host: loc.GRPC, Secured: loc.TLS}
	}
	c, err := weaviate.NewClient(cfg)
	if err != nil {
		return nil, foley.Errorf(foley.Unavailable, "library %s: cannot reach Weaviate at %s: %v", loc, loc.Host, err)
	}
	l := &Library{c: c, loc: loc, meta: loc.Class + metaSuffix, verdicts: loc.Class + verdictsSuffix, failures: loc.Class + failuresSuffix}
	if err := l.ensureSchema(ctx); err != nil {
		return nil, err
	}
	if err := l.loadMeta(ctx); err != nil {
		return nil, err
	}
	return l, nil
}

// Location implements foley.Store.
func (l *Library) Location() string { return l.loc.String() }

// Class is the Weaviate class of the records.
func (l *Library) Class() string { return l.loc.Class }

// Close implements foley.Library. The client holds no resources that need
// releasing beyond idle connections.
func (l *Library) Close() error { return nil }

// wrap turns a client error into a foley error that names the library and
// what was being done.
func (l *Library) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var fe *foley.Error
	if errors.As(err, &fe) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return foley.Errorf(foley.Unavailable, "library %s: %s: %w", l.loc, op, err)
	}
	var ce *fault.WeaviateClientError
	if errors.As(err, &ce) && ce.IsUnexpectedStatusCode {
		msg := strings.TrimSpace(ce.Msg)
		switch {
		case ce.StatusCode == http.StatusUnauthorized || ce.StatusCode == http.StatusForbidden:
			return foley.Errorf(foley.Invalid, "library %s: %s: Weaviate refused the credentials (HTTP %d); set %s to a key it accepts: %s", l.loc, op, ce.StatusCode, EnvAPIKey, msg)
		case ce.StatusCode == http.StatusNotFound:
			return foley.Errorf(foley.NotFound, "library %s: %s: %s", l.loc, op, msg)
		case ce.StatusCode == http.StatusUnprocessableEntity || ce.StatusCode == http.StatusBadRequest:
			return foley.Errorf(foley.Invalid, "library %s: %s: Weaviate refused it: %s", l.loc, op, msg)
		}
		return foley.Errorf(foley.Unavailable, "library %s: %s: Weaviate answered HTTP %d: %s", l.loc, op, ce.StatusCode, msg)
	}
	if ce != nil && ce.DerivedFromError != nil {
		err = ce.DerivedFromError
	}
	return foley.Errorf(foley.Unavailable, "library %s: %s: cannot reach Weaviate at %s (is the server running?): %v", l.loc, op, l.loc.Host, err)
}

func text(name string, tokenization string, searchable, filterable bool) *models.Property {
	return &models.Property{Name: name, DataType: []string{"text"}, Tokenization: tokenization,
		IndexSearchable: new(searchable), IndexFilterable: new(filterable)}
}

func stored(name, dataType string) *models.Property {
	p := &models.Property{Name: name, DataType: []string{dataType}, IndexFilterable: new(false), IndexSearchable: new(false)}
	if dataType != "text" {
		p.IndexSearchable = nil
	}
	return p
}

// recordClass is the class of the records: the caption and tags; the
// searched words (caption, tags, file name, category, stemmed; BM25 with the
// embedded backend's column weights); the fields filters test; the ingest
// bookkeeping; and the whole record as JSON.
func (l *Library) recordClass() *models.Class {
	c := &models.Class{
		Class:       l.loc.Class,
		Description: description,
		Vectorizer:  "none",
		// The BM25 query's words are chosen by foley (without stopwords),
		// as in the embedded backend; Weaviate indexes every word.
		InvertedIndexConfig: &models.InvertedIndexConfig{Stopwords: &models.StopwordConfig{Preset: "none"},
			Bm25: &models.BM25Config{K1: 1.2, B: 0.75}},
		VectorIndexConfig: map[string]any{"distance": "cosine"},
		Properties: []*models.Property{
			text("record_id", "field", false, true),
			text("caption", "word", false, false),
			{Name: "tags", DataType: []string{"text[]"}, Tokenization: "word", IndexSearchable: new(false)},
			// The searched words, stemmed by foley (see terms).
			text("caption_terms", "whitespace", true, false),
			text("tags_terms", "whitespace", true, false),
			text("filename_terms", "whitespace", true, false),
			text("category_terms", "whitespace", true, false),
			text("license_id", "lowercase", false, true),
			{Name: "commercial_ok", DataType: []string{"boolean"}},
			{Name: "rights_verified", DataType: []string{"boolean"}},
			{Name: "duration_s", DataType: []string{"number"}},
			text("ucs_category", "lowercase", false, true),
			text("format", "field", false, true),
			text("embedding_model", "field", false, true),
			text("path", "field", false, true),
			// Decimal text, not int: Weaviate keeps numbers as float64
			// (exact to 2^53 only) and its GraphQL Int has 32 bits, so
			// a modification time in nanoseconds came back rounded
			// (REST) or null (GraphQL).
			stored("size", "text"),
			stored("mtime_ns", "text"),
			text("content_sha256", "field", false, true),
			text("meta_sha256", "field", false, false),
			stored("record", "text"),
		},
	}
	if l.loc.Replicas > 0 {
		c.ReplicationConfig = &models.ReplicationConfig{Factor: int64(l.loc.Replicas), AsyncEnabled: l.loc.Replicas > 1}
	}
	if l.loc.Shards > 0 {
		c.ShardingConfig = map[string]any{"desiredCount": l.loc.Shards}
	}
	return c
}

// sideClass is a class of plain objects without vectors.
func (l *Library) sideClass(name, desc string, props ...*models.Property) *models.Class {
	c := &models.Class{Class: name, Description: desc, Vectorizer: "none", Properties: props,
		VectorIndexConfig: map[string]any{"skip": true}}
	if l.loc.Replicas > 0 {
		c.ReplicationConfig = &models.ReplicationConfig{Factor: int64(l.loc.Replicas), AsyncEnabled: l.loc.Replicas > 1}
	}
	return c
}

// ensureSchema creates the library's classes when they do not exist, and
// refuses a class of the same name that is not a foley library.
func (l *Library) ensureSchema(ctx context.Context) error {
	classes := []*models.Class{
		l.recordClass(),
		l.sideClass(l.meta, description+" settings",
			text("embedding_model", "field", false, false), stored("embedding_dim", "int"), stored("schema_version", "int")),
		l.sideClass(l.verdicts, description+" verdict cache",
			text("key_sha256", "field", false, true), stored("event", "text"), text("content_sha256", "field", false, true),
			stored("description", "text"), text("level", "field", false, true), text("judge", "field", false, true),
			stored("verdict", "text"), stored("created_at", "text")),
		l.sideClass(l.failures, description+" ingest failures",
			text("path", "field", false, true), stored("reason", "text"), stored("at", "text")),
	}
	for _, want := range classes {
		have, err := l.c.Schema().ClassGetter().WithClassName(want.Class).Do(ctx)
		var ce *fault.WeaviateClientError
		if errors.As(err, &ce) && ce.StatusCode == http.StatusNotFound {
			have, err = nil, nil
		}
		if err != nil {
			return l.wrap("reading the schema", err)
		}
		if have != nil {
			if !strings.HasPrefix(have.Description, description) {
				return foley.Errorf(foley.Invalid, "library %s: the class %s exists and is not a foley library (its description is %q); choose another class name", l.loc, want.Class, have.Description)
			}
			if err := l.checkProperties(have, want); err != nil {
				return err
			}
			continue
		}
		err = l.c.Schema().ClassCreator().WithClass(want).Do(ctx)
		if err != nil && !strings.Contains(err.Error(), "already exists") { // another process won the race
			return l.wrap("creating the class "+want.Class, err)
		}
	}
	return nil
}

// metaID is the UUID of the one settings object.
var metaID = objectID("meta", "settings")

// loadMeta reads the embedder the library's vectors come from.
func (l *Library) loadMeta(ctx context.Context) error {
	objs, err := l.c.Data().ObjectsGetter().WithClassName(l.meta).WithID(metaID).Do(ctx)
	var ce *fault.WeaviateClientError
	if errors.As(err, &ce) && ce.StatusCode == http.StatusNotFound {
		return nil
	}
	if err != nil {
		return l.wrap("reading its settings", err)
	}
	if len(objs) == 0 {
		return nil
	}
	p, _ := objs[0].Properties.(map[string]any)
	model, _ := p["embedding_model"].(string)
	dim, _ := p["embedding_dim"].(json.Number)
	d, _ := dim.Int64()
	if v, ok := p["embedding_dim"].(float64); ok {
		d = int64(v)
	}
	if version, ok := p["schema_version"].(float64); ok && int(version) > SchemaVersion {
		return foley.Errorf(foley.Invalid, "library %s: schema version %d is newer than this foley knows (%d); upgrade foley", l.loc, int(version), SchemaVersion)
	}
	l.mu.Lock()
	l.model, l.dim = model, int(d)
	l.mu.Unlock()
	return nil
}

// Embedding implements foley.Store.
func (l *Library) Embedding() (string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.model, l.dim
}

// claimEmbedding records model and dim as the library's embedder when it
// has none yet. When another writer got there first, the library keeps
// theirs, and the caller's vectors are then checked against it.
func (l *Library) claimEmbedding(ctx context.Context, model string, dim int) error {
	_, err := l.c.Data().Creator().WithClassName(l.meta).WithID(metaID).WithProperties(map[string]any{
		"embedding_model": model, "embedding_dim": dim, "schema_version": SchemaVersion,
	}).Do(ctx)
	if err != nil && !strings.Contains(err.Error(), "already exists") {
		return l.wrap("recording its embedder", err)
	}
	return l.loadMeta(ctx)
}

// properties is the object of a record.
func properties(r foley.SoundRecord, doc []byte, file *FileState) map[string]any {
	caption, tagText, filename, category := foley.SearchFields(r)
	tags := []string(r.Tags)
	if tags == nil {
		tags = []string{}
	}
	p := map[string]any{
		"record_id":       r.ID,
		"caption":         r.Caption,
		"tags":            tags,
		"caption_terms":   terms(caption),
		"tags_terms":      terms(tagText),
		"filename_terms":  terms(filename),
		"category_terms":  terms(category),
		"license_id":      r.License.LicenseID,
		"commercial_ok":   r.License.CommercialOK && r.License.RightsVerified,
		"rights_verified": r.License.RightsVerified,
		"duration_s":      r.DurationS,
		"ucs_category":    r.UCSCategory,
		"format":          r.Format,
		"embedding_model": r.EmbeddingModel,
		"content_sha256":  r.ContentSHA256,
		"record":          string(doc),
	}
	if file != nil {
		p["path"], p["meta_sha256"] = file.Path, file.MetaSHA256
		p["size"], p["mtime_ns"] = strconv.FormatInt(file.Size, 10), strconv.FormatInt(file.MtimeNS, 10)
		if file.SHA256 != "" {
			p["content_sha256"] = file.SHA256
		}
	}
	return p
}

// Upsert implements foley.Library. Records are written in batches; when
// Weaviate refuses some, the others are stored and the error is a
// *foley.PartialError that says which and why.
func (l *Library) Upsert(ctx context.Context, recs []foley.SoundRecord, vectors [][]float32) error {
	entries, err := foley.Entries(recs, vectors)
	if err != nil {
		return err
	}
	return l.Put(ctx, entries)
}

// FileState is what ingest remembers of a file.
type FileState = foley.FileState

// Put stores entries (records, their vectors and file states) in batches of
// BatchSize. Every entry is checked before anything is written; a batch
// Weaviate refuses whole is an error, and objects it refuses one by one are
// reported together in a *foley.PartialError after the rest are written.
func (l *Library) Put(ctx context.Context, entries []foley.Entry) error {
	model, dim := l.Embedding()
	for i := range entries {
		e := &entries[i]
		if err := foley.CheckUpsert(&e.Record, e.Vector); err != nil {
			return err
		}
		if e.Vector == nil {
			continue
		}
		if model == "" {
			if err := l.claimEmbedding(ctx, e.Record.EmbeddingModel, len(e.Vector)); err != nil {
				return err
			}
			model, dim = l.Embedding()
		}
		if e.Record.EmbeddingModel != model || len(e.Vector) != dim {
			return foley.Errorf(foley.Invalid, "library %s holds vectors of %s (%d dimensions); record %q has one of %s (%d): %s",
				l.loc, model, dim, e.Record.ID, e.Record.EmbeddingModel, len(e.Vector), foley.ReindexHint)
		}
	}
	var partial foley.PartialError
	for start := 0; start < len(entries); start += BatchSize {
		batch := entries[start:min(start+BatchSize, len(entries))]
		objs := make([]*models.Object, len(batch))
		for i, e := range batch {
			r := e.Record
			r.License = license.Normalize(r.License)
			doc, err := json.Marshal(r)
			if err != nil {
				return foley.Errorf(foley.Internal, "record %q: %v", r.ID, err)
			}
			objs[i] = &models.Object{Class: l.loc.Class, ID: strfmtUUID(objectID("record", r.ID)), Properties: properties(r, doc, e.File), Vector: e.Vector}
		}
		res, err := l.batchObjects(ctx, objs)
		if err != nil {
			return l.wrap(fmt.Sprintf("writing %d records", len(objs)), err)
		}
		for i, r := range res {
			if msg := batchError(r); msg != "" && i < len(batch) {
				if strings.Contains(msg, "vector dimensions do not match") {
					msg += dimensionHint
				}
				partial.Failed = append(partial.Failed, foley.RecordError{Index: start + i, ID: batch[i].Record.ID, Reason: msg})
			}
		}
	}
	if len(partial.Failed) > 0 {
		partial.Total = len(entries)
		return &partial
	}
	return nil
}

// batchError is the error of one object of a batch, or "".
func batchError(r models.ObjectsGetResponse) string {
	if r.Result == nil || r.Result.Errors == nil || len(r.Result.Errors.Error) == 0 {
		if r.Result != nil && r.Result.Status != nil && *r.Result.Status == "FAILED" {
			return "Weaviate did not store it"
		}
		return ""
	}
	var msgs []string
	for _, e := range r.Result.Errors.Error {
		msgs = append(msgs, e.Message)
	}
	return strings.Join(msgs, "; ")
}

// Get implements foley.Library.
func (l *Library) Get(ctx context.Context, id string) (foley.SoundRecord, error) {
	objs, err := l.c.Data().ObjectsGetter().WithClassName(l.loc.Class).WithID(objectID("record", id)).Do(ctx)
	var ce *fault.WeaviateClientError
	if (errors.As(err, &ce) && ce.StatusCode == http.StatusNotFound) || (err == nil && len(objs) == 0) {
		return foley.SoundRecord{}, foley.Errorf(foley.NotFound, "no sound with id %q in %s", id, l.loc)
	}
	if err != nil {
		return foley.SoundRecord{}, l.wrap(fmt.Sprintf("reading record %q", id), err)
	}
	return l.decode(objs[0].Properties)
}

// decode is the record of an object's properties.
func (l *Library) decode(props any) (foley.SoundRecord, error) {
	p, _ := props.(map[string]any)
	doc, _ := p["record"].(string)
	var r foley.SoundRecord
	if err := json.Unmarshal([]byte(doc), &r); err != nil {
		return r, foley.Errorf(foley.Internal, "library %s: a stored record does not decode: %v", l.loc, err)
	}
	return r, nil
}

// Delete implements foley.Library.
func (l *Library) Delete(ctx context.Context, ids ...string) error {
	// One batch delete per BatchSize ids, by object UUID.
	for start := 0; start < len(ids); start += BatchSize {
		part := ids[start:min(start+BatchSize, len(ids))]
		uuids := make([]string, len(part))
		for i, id := range part {
			uuids[i] = objectID("record", id)
		}
		w := filters.Where().WithPath([]string{"id"}).WithOperator(filters.ContainsAny).WithValueText(uuids...)
		var res *models.BatchDeleteResponse
		err := l.retry(ctx, func(ctx context.Context) error {
			var err error
			res, err = l.c.Batch().ObjectsBatchDeleter().WithClassName(l.loc.Class).WithWhere(w).WithOutput("minimal").Do(ctx)
			return err
		})
		if err != nil {
			return l.wrap(fmt.Sprintf("deleting %d records", len(part)), err)
		}
		if res != nil && res.Results != nil && res.Results.Failed > 0 {
			return foley.Errorf(foley.Unavailable, "library %s: Weaviate could not delete %d of %d records", l.loc, res.Results.Failed, len(part))
		}
	}
	return nil
}

// Count implements foley.Library.
func (l *Library) Count(ctx context.Context) (int, error) {
	return l.count(ctx, l.loc.Class)
}

func (l *Library) count(ctx context.Context, class string) (int, error) {
	return l.countWhere(ctx, class, nil)
}

// All implements foley.Library, in the order of the objects' UUIDs.
func (l *Library) All(ctx context.Context) iter.Seq2[foley.SoundRecord, error] {
	return func(yield func(foley.SoundRecord, error) bool) {
		for e, err := range l.export(ctx, "", false) {
			if !yield(e.Record, err) || err != nil {
				return
			}
		}
	}
}

// Export implements foley.Store: records with their vectors in the order
// of the objects' UUIDs; a record's Cursor is its object's UUID.
func (l *Library) Export(ctx context.Context, after string) iter.Seq2[foley.Exported, error] {
	return l.export(ctx, after, true)
}

// exportPage is how many objects one request of Export reads.
const exportPage = 500

func (l *Library) export(ctx context.Context, after string, vectors bool) iter.Seq2[foley.Exported, error] {
	return func(yield func(foley.Exported, error) bool) {
		for {
			g := l.c.Data().ObjectsGetter().WithClassName(l.loc.Class).WithLimit(exportPage)
			if after != "" {
				g = g.WithAfter(after)
			}
			if vectors {
				g = g.WithVector()
			}
			objs, err := g.Do(ctx)
			if err != nil {
				yield(foley.Exported{}, l.wrap("reading its records", err))
				return
			}
			for _, o := range objs {
				r, err := l.decode(o.Properties)
				e := foley.Exported{Record: r, Cursor: o.ID.String()}
				if props, ok := o.Properties.(map[string]any); ok {
					e.File = fileState(props)
				}
				if len(o.Vector) > 0 {
					e.Vector = []float32(o.Vector)
				}
				if !yield(e, err) || err != nil {
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
