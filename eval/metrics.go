package eval

import (
	"math"
	"slices"
)

// Grades are an item's graded relevance per clip id: 3 exact, 2 good, 1
// acceptable; a clip not listed is 0 (wrong).
type Grades map[string]int

// relevantCount is the number of clips graded at least minGrade.
func (g Grades) relevantCount(minGrade int) int {
	n := 0
	for _, v := range g {
		if v >= minGrade {
			n++
		}
	}
	return n
}

// NDCG is the normalised discounted cumulative gain of ranked at depth k:
// DCG@k = sum over ranks i = 1..k of grade(i) / log2(i + 1), divided by the
// DCG@k of the ideal ranking of all graded clips. The gain is the grade
// itself (0..3). It returns NaN when no clip has a grade above 0 (the
// metric is undefined; averages leave such items out).
func NDCG(ranked []string, g Grades, k int) float64 {
	dcg := 0.0
	for i, id := range ranked[:min(k, len(ranked))] {
		dcg += float64(g[id]) / math.Log2(float64(i)+2)
	}
	ideal := make([]int, 0, len(g))
	for _, v := range g {
		if v > 0 {
			ideal = append(ideal, v)
		}
	}
	if len(ideal) == 0 {
		return math.NaN()
	}
	slices.SortFunc(ideal, func(a, b int) int { return b - a })
	idcg := 0.0
	for i, v := range ideal[:min(k, len(ideal))] {
		idcg += float64(v) / math.Log2(float64(i)+2)
	}
	return dcg / idcg
}

// Recall is the share of the relevant clips (graded at least minGrade)
// found in the first k of ranked; NaN when there are none.
func Recall(ranked []string, g Grades, k, minGrade int) float64 {
	total := g.relevantCount(minGrade)
	if total == 0 {
		return math.NaN()
	}
	found := 0
	for _, id := range ranked[:min(k, len(ranked))] {
		if g[id] >= minGrade {
			found++
		}
	}
	return float64(found) / float64(total)
}

// AveragePrecision is AP@k: the sum, over the ranks i <= k holding a
// relevant clip, of the precision at i, divided by min(relevant, k). mAP@k
// is its mean over items. NaN when nothing is relevant.
func AveragePrecision(ranked []string, g Grades, k, minGrade int) float64 {
	total := g.relevantCount(minGrade)
	if total == 0 {
		return math.NaN()
	}
	hits, sum := 0, 0.0
	for i, id := range ranked[:min(k, len(ranked))] {
		if g[id] >= minGrade {
			hits++
			sum += float64(hits) / float64(i+1)
		}
	}
	return sum / float64(min(total, k))
}

// ReciprocalRank is 1 / the rank of the first relevant clip in ranked, 0
// when none is there; NaN when nothing is relevant. MRR is its mean.
func ReciprocalRank(ranked []string, g Grades, minGrade int) float64 {
	if g.relevantCount(minGrade) == 0 {
		return math.NaN()
	}
	for i, id := range ranked {
		if g[id] >= minGrade {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// Confusion counts a judge's decisions against the labels.
type Confusion struct {
	TP, FP, FN, TN int
}

// Add counts one decision.
func (c *Confusion) Add(accepted, relevant bool) {
	switch {
	case accepted && relevant:
		c.TP++
	case accepted:
		c.FP++
	case relevant:
		c.FN++
	default:
		c.TN++
	}
}

// Precision is TP / (TP + FP): of the clips accepted, the share that are
// relevant. NaN when nothing was accepted.
func (c Confusion) Precision() float64 { return ratio(c.TP, c.TP+c.FP) }

// Recall is TP / (TP + FN): of the relevant clips judged, the share
// accepted. NaN when none was relevant.
func (c Confusion) Recall() float64 { return ratio(c.TP, c.TP+c.FN) }

// F1 is the harmonic mean of precision and recall; NaN when either is,
// 0 when both are 0.
func (c Confusion) F1() float64 {
	p, r := c.Precision(), c.Recall()
	if math.IsNaN(p) || math.IsNaN(r) {
		return math.NaN()
	}
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// AcceptRate is the share of judged clips accepted; NaN when none was
// judged.
func (c Confusion) AcceptRate() float64 { return ratio(c.TP+c.FP, c.Total()) }

// Total is the number of decisions.
func (c Confusion) Total() int { return c.TP + c.FP + c.FN + c.TN }

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// mean is the mean of the values that are not NaN, and their count; NaN
// when there are none.
func mean(xs []float64) (float64, int) {
	sum, n := 0.0, 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			sum += x
			n++
		}
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return sum / float64(n), n
}
