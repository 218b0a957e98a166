package weaviate

import (
	"context"

	"github.com/foley-audio/foley"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
)

// Stats returns counts by licence, format and embedder, as the embedded
// library does. The embedder of a record is its embedding_model, which
// Put clears for a record without a vector.
func (l *Library) Stats(ctx context.Context) (foley.Stats, error) {
	s := foley.Stats{Path: l.Location(), ByLicense: map[string]int{}, ByFormat: map[string]int{}, ByEmbedder: map[string]int{}, Schema: SchemaVersion}
	var err error
	if s.Records, err = l.Count(ctx); err != nil {
		return s, err
	}
	for _, g := range []struct {
		prop string
		into map[string]int
	}{{"license_id", s.ByLicense}, {"format", s.ByFormat}, {"embedding_model", s.ByEmbedder}} {
		if err := l.groupCounts(ctx, g.prop, g.into); err != nil {
			return s, err
		}
		// Objects without the property are in no group.
		n := 0
		for _, c := range g.into {
			n += c
		}
		if n < s.Records {
			g.into[""] += s.Records - n
		}
	}
	if s.Unlicensed, err = l.countWhere(ctx, l.loc.Class, unusable()); err != nil {
		return s, err
	}
	if s.Failures, err = l.count(ctx, l.failures); err != nil {
		return s, err
	}
	return s, nil
}

// groupLimit is how many groups a first groupBy asks for. Weaviate returns
// only the 100 largest groups unless told otherwise.
const groupLimit = 1000

// maxGroups bounds the groups asked for.
const maxGroups = 1_000_000

// groupCounts counts the records by the value of a text property. Group
// values are the stored values, not their tokens: license_id, tokenized
// lowercase for filters, groups by the licence table's ids.
func (l *Library) groupCounts(ctx context.Context, prop string, into map[string]int) error {
	for limit := groupLimit; ; limit *= 10 {
		agg := l.c.GraphQL().Aggregate().WithClassName(l.loc.Class).WithGroupBy(prop).WithLimit(limit).
			WithFields(metaCount, graphql.Field{Name: "groupedBy", Fields: []graphql.Field{{Name: "value"}}})
		var out struct {
			Aggregate map[string][]struct {
				GroupedBy struct {
					Value string `json:"value"`
				} `json:"groupedBy"`
				Meta struct {
					Count int `json:"count"`
				} `json:"meta"`
			}
		}
		if err := runGQL(ctx, agg, &out); err != nil {
			return l.wrap("counting records by "+prop, err)
		}
		rows := out.Aggregate[l.loc.Class]
		if len(rows) >= limit && limit < maxGroups {
			continue // perhaps cut short: ask for more
		}
		clear(into)
		for _, r := range rows {
			into[r.GroupedBy.Value] += r.Meta.Count
		}
		return nil
	}
}

// countWhere counts the objects of class that match w (nil: all of them).
func (l *Library) countWhere(ctx context.Context, class string, w *filters.WhereBuilder) (int, error) {
	agg := l.c.GraphQL().Aggregate().WithClassName(class).WithFields(metaCount)
	if w != nil {
		agg = agg.WithWhere(w)
	}
	var out struct {
		Aggregate map[string][]struct {
			Meta struct {
				Count int `json:"count"`
			} `json:"meta"`
		}
	}
	if err := runGQL(ctx, agg, &out); err != nil {
		return 0, l.wrap("counting "+class, err)
	}
	if rows := out.Aggregate[class]; len(rows) > 0 {
		return rows[0].Meta.Count, nil
	}
	return 0, nil
}
