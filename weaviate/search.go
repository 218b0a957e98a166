package weaviate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/foley-audio/foley"
	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"
)

// searchProperties are the properties BM25 matches, with the embedded
// backend's column weights.
var searchProperties = []string{"caption_terms", "tags_terms^0.75", "filename_terms^0.5", "category_terms^0.5"}

var metaCount = graphql.Field{Name: "meta", Fields: []graphql.Field{{Name: "count"}}}

func strfmtUUID(s string) strfmt.UUID { return strfmt.UUID(s) }

// gqlRequest is a GraphQL query the client builds: Get or Aggregate.
type gqlRequest interface {
	Do(ctx context.Context) (*models.GraphQLResponse, error)
}

// runGQL sends req and decodes the data of its response into v. Errors the
// response carries are Invalid: Weaviate refused the query.
func runGQL(ctx context.Context, req gqlRequest, v any) error {
	res, err := req.Do(ctx)
	if err != nil {
		return err
	}
	if res == nil {
		return errors.New("no response")
	}
	if len(res.Errors) > 0 {
		var msgs []string
		for _, e := range res.Errors {
			msgs = append(msgs, e.Message)
		}
		return foley.Errorf(foley.Invalid, "Weaviate refused the query: %s", strings.Join(msgs, "; "))
	}
	b, err := json.Marshal(res.Data)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// where is a filter as a Weaviate where clause; nil when it keeps
// everything.
func where(f foley.Filter) (*filters.WhereBuilder, error) {
	var ops []*filters.WhereBuilder
	if len(f.LicenseIDs) > 0 {
		ids := make([]string, len(f.LicenseIDs))
		for i, id := range f.LicenseIDs {
			ids[i] = strings.ToLower(id)
		}
		ops = append(ops, filters.Where().WithPath([]string{"license_id"}).WithOperator(filters.ContainsAny).WithValueText(ids...))
	}
	if f.CommercialOnly {
		ops = append(ops, filters.Where().WithPath([]string{"commercial_ok"}).WithOperator(filters.Equal).WithValueBoolean(true))
	}
	if f.MinDurationS > 0 {
		ops = append(ops, filters.Where().WithPath([]string{"duration_s"}).WithOperator(filters.GreaterThanEqual).WithValueNumber(f.MinDurationS))
	}
	if f.MaxDurationS > 0 {
		ops = append(ops, filters.Where().WithPath([]string{"duration_s"}).WithOperator(filters.LessThanEqual).WithValueNumber(f.MaxDurationS))
	}
	if f.UCSCategory != "" {
		if strings.ContainsAny(f.UCSCategory, "*? \t") {
			return nil, foley.Errorf(foley.Invalid, "search: the UCS category %q has a space or a wildcard", f.UCSCategory)
		}
		ops = append(ops, filters.Where().WithPath([]string{"ucs_category"}).WithOperator(filters.Like).WithValueText(strings.ToLower(f.UCSCategory)+"*"))
	}
	switch len(ops) {
	case 0:
		return nil, nil
	case 1:
		return ops[0], nil
	}
	return filters.Where().WithOperator(filters.And).WithOperands(ops), nil
}

// hit is one result of a search query.
type hit struct {
	Record     string `json:"record"`
	Additional struct {
		ID           string    `json:"id"`
		Score        string    `json:"score"`
		ExplainScore string    `json:"explainScore"`
		Vector       []float32 `json:"vector"`
	} `json:"_additional"`
}

// Search implements foley.Library with Weaviate's hybrid query: BM25 over
// the query words and the nearest vectors to q.Vector, fused by reciprocal
// rank (Weaviate's rankedFusion, k 60), so that rankings match the embedded
// backend's. ClapScore is the cosine of each result's vector with the query
// (for text hits too, as in the embedded backend), BM25Score Weaviate's
// BM25F score for results of the keyword list, and RRFScore the fused
// score without Weaviate's alpha weights: the sum of 1/(60 + rank) over the
// lists, ranks counted from 0.
func (l *Library) Search(ctx context.Context, q foley.SearchQuery) ([]foley.Candidate, error) {
	q, err := q.Check()
	if err != nil {
		return nil, err
	}
	w, err := where(q.Filter)
	if err != nil {
		return nil, err
	}
	words := terms(strings.Join(foley.QueryWords(q.Text), " "))
	vector := q.Vector
	if vector != nil {
		model, dim := l.Embedding()
		if model == "" {
			// Another process may have stored the first vectors since.
			if err := l.loadMeta(ctx); err != nil {
				return nil, err
			}
			model, dim = l.Embedding()
		}
		if err := foley.CheckEmbedder("search", model, dim, q.Model, q.Vector); err != nil {
			return nil, err
		}
		if model == "" {
			vector = nil // no vectors yet: the text list alone
		}
	}
	if words == "" && vector == nil {
		return []foley.Candidate{}, nil
	}

	alpha, weight := float32(0.5), 0.5
	switch {
	case vector == nil:
		alpha, weight = 0, 1
	case words == "":
		alpha, weight = 1, 1
	}
	h := (&graphql.HybridArgumentBuilder{}).WithQuery(words).WithAlpha(alpha).WithFusionType(graphql.Ranked).WithProperties(searchProperties)
	if vector != nil {
		h = h.WithVector(vector)
	}
	add := []graphql.Field{{Name: "id"}, {Name: "score"}, {Name: "explainScore"}}
	if vector != nil {
		add = append(add, graphql.Field{Name: "vector"})
	}
	get := l.c.GraphQL().Get().WithClassName(l.loc.Class).WithHybrid(h).WithLimit(q.K).
		WithFields(graphql.Field{Name: "record"}, graphql.Field{Name: "_additional", Fields: add})
	if w != nil {
		get = get.WithWhere(w)
	}

	// The fused list says which lists a result came from but not its
	// BM25 score; the same BM25 query, run beside it, does.
	type bm25Result struct {
		scores map[string]float64
		err    error
	}
	bm25 := make(chan bm25Result, 1)
	if words != "" {
		go func() {
			s, err := l.bm25Scores(ctx, words, w, max(q.K, hybridDepth))
			bm25 <- bm25Result{s, err}
		}()
	} else {
		bm25 <- bm25Result{}
	}
	hits, err := l.query(ctx, get)
	b := <-bm25
	if err == nil {
		err = b.err
	}
	if err != nil {
		return nil, l.wrap("searching", err)
	}

	out := make([]foley.Candidate, 0, len(hits))
	for _, h := range hits {
		var r foley.SoundRecord
		if err := json.Unmarshal([]byte(h.Record), &r); err != nil {
			return nil, foley.Errorf(foley.Internal, "library %s: a stored record does not decode: %v", l.loc, err)
		}
		c := foley.Candidate{Sound: r, Origin: foley.OriginRetrieved}
		var fused float64
		if _, err := fmt.Sscan(h.Additional.Score, &fused); err == nil {
			c.RRFScore = new(fused / weight)
		}
		if vector != nil && len(h.Additional.Vector) == len(vector) {
			c.ClapScore = new(cosine(vector, h.Additional.Vector))
		}
		if strings.Contains(h.Additional.ExplainScore, "(Result Set keyword") {
			if s, ok := b.scores[h.Additional.ID]; ok {
				c.BM25Score = new(s)
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// hybridDepth is how many results each list of a hybrid query holds:
// Weaviate's QUERY_HYBRID_MAXIMUM_RESULTS default.
const hybridDepth = 100

// query runs a Get query and returns its results.
func (l *Library) query(ctx context.Context, get *graphql.GetBuilder) ([]hit, error) {
	var out struct {
		Get map[string][]hit
	}
	if err := runGQL(ctx, get, &out); err != nil {
		return nil, err
	}
	return out.Get[l.loc.Class], nil
}

// bm25Scores runs the keyword half of a hybrid query and returns each
// result's score by object id.
func (l *Library) bm25Scores(ctx context.Context, words string, w *filters.WhereBuilder, depth int) (map[string]float64, error) {
	b := (&graphql.BM25ArgumentBuilder{}).WithQuery(words).WithProperties(searchProperties...)
	get := l.c.GraphQL().Get().WithClassName(l.loc.Class).WithBM25(b).WithLimit(depth).
		WithFields(graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "id"}, {Name: "score"}}})
	if w != nil {
		get = get.WithWhere(w)
	}
	hits, err := l.query(ctx, get)
	if err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(hits))
	for _, h := range hits {
		var s float64
		if _, err := fmt.Sscan(h.Additional.Score, &s); err == nil {
			out[h.Additional.ID] = s
		}
	}
	return out, nil
}

// cosine is the cosine similarity of a and b (of equal length).
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// Cosines implements foley.Store.
func (l *Library) Cosines(ctx context.Context, ids []string, q []float32, model string) (map[string]float64, error) {
	out := map[string]float64{}
	lm, dim := l.Embedding()
	if lm == "" || len(ids) == 0 {
		return out, nil
	}
	if err := foley.CheckEmbedder("", lm, dim, model, q); err != nil {
		return nil, err
	}
	uuids := make([]string, len(ids))
	byUUID := make(map[string]string, len(ids))
	for i, id := range ids {
		uuids[i] = objectID("record", id)
		byUUID[uuids[i]] = id
	}
	for start := 0; start < len(uuids); start += foley.MaxK {
		part := uuids[start:min(start+foley.MaxK, len(uuids))]
		get := l.c.GraphQL().Get().WithClassName(l.loc.Class).WithLimit(len(part)).
			WithWhere(filters.Where().WithPath([]string{"id"}).WithOperator(filters.ContainsAny).WithValueText(part...)).
			WithFields(graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "id"}, {Name: "vector"}}})
		hits, err := l.query(ctx, get)
		if err != nil {
			return nil, l.wrap("reading vectors", err)
		}
		for _, h := range hits {
			if id, ok := byUUID[h.Additional.ID]; ok && len(h.Additional.Vector) == dim {
				out[id] = cosine(q, h.Additional.Vector)
			}
		}
	}
	return out, nil
}
