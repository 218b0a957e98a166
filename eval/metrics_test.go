package eval

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 || (math.IsNaN(a) && math.IsNaN(b)) }

// The values below are worked out by hand.
//
// ranked = [x, a, y, b, c], grades a=3, b=2, c=1, d=3 (d not retrieved).
func TestRankingMetricsByHand(t *testing.T) {
	ranked := []string{"x", "a", "y", "b", "c"}
	g := Grades{"a": 3, "b": 2, "c": 1, "d": 3}

	// DCG@5 = 0/log2(2) + 3/log2(3) + 0/log2(4) + 2/log2(5) + 1/log2(6)
	//       = 0 + 1.892789 + 0 + 0.861353 + 0.386853 = 3.140995
	// IDCG@5 over grades 3,3,2,1: 3/1 + 3/log2(3) + 2/log2(4) + 1/log2(5)
	//       = 3 + 1.892789 + 1 + 0.430677 = 6.323466
	dcg := 3/math.Log2(3) + 2/math.Log2(5) + 1/math.Log2(6)
	idcg := 3 + 3/math.Log2(3) + 2.0/2 + 1/math.Log2(5)
	if got := NDCG(ranked, g, 5); !near(got, dcg/idcg) || math.Abs(got-0.4967205) > 1e-6 {
		t.Errorf("nDCG@5 = %v, want %v (0.4967205)", got, dcg/idcg)
	}
	// At k = 2 only a counts: (3/log2 3) / (3 + 3/log2 3) = 1.892789 / 4.892789.
	if got := NDCG(ranked, g, 2); math.Abs(got-0.386852) > 1e-6 {
		t.Errorf("nDCG@2 = %v, want 0.386852", got)
	}
	// Relevant (grade >= 1): a, b, c, d. Top 1: none; top 5: a, b, c.
	for k, want := range map[int]float64{1: 0, 2: 0.25, 4: 0.5, 5: 0.75, 10: 0.75} {
		if got := Recall(ranked, g, k, 1); !near(got, want) {
			t.Errorf("recall@%d = %v, want %v", k, got, want)
		}
	}
	// Grade >= 2: a, b, d; top 5 holds a, b.
	if got := Recall(ranked, g, 5, 2); !near(got, 2.0/3) {
		t.Errorf("recall@5 (grade>=2) = %v, want 2/3", got)
	}
	// AP@10: hits at ranks 2, 4, 5: precisions 1/2, 2/4, 3/5; sum 1.6;
	// divided by min(4 relevant, 10) = 4: 0.4.
	if got := AveragePrecision(ranked, g, 10, 1); !near(got, 0.4) {
		t.Errorf("AP@10 = %v, want 0.4", got)
	}
	// AP@2: one hit at rank 2, precision 1/2, divided by min(4, 2) = 2.
	if got := AveragePrecision(ranked, g, 2, 1); !near(got, 0.25) {
		t.Errorf("AP@2 = %v, want 0.25", got)
	}
	if got := ReciprocalRank(ranked, g, 1); !near(got, 0.5) {
		t.Errorf("RR = %v, want 0.5", got)
	}
	if got := ReciprocalRank(ranked, g, 3); !near(got, 0.5) {
		t.Errorf("RR (grade 3) = %v, want 0.5", got)
	}
	if got := ReciprocalRank([]string{"x", "y"}, g, 1); got != 0 {
		t.Errorf("RR with no hit = %v, want 0", got)
	}
}

func TestPerfectAndEmpty(t *testing.T) {
	g := Grades{"a": 3, "b": 2}
	if got := NDCG([]string{"a", "b", "x"}, g, 10); !near(got, 1) {
		t.Errorf("ideal ranking nDCG = %v, want 1", got)
	}
	// Swapped: (2 + 3/log2 3) / (3 + 2/log2 3).
	if got := NDCG([]string{"b", "a"}, g, 10); !near(got, (2+3/math.Log2(3))/(3+2/math.Log2(3))) {
		t.Errorf("swapped nDCG = %v", got)
	}
	none := Grades{"z": 0}
	for name, v := range map[string]float64{
		"ndcg": NDCG([]string{"a"}, none, 10), "recall": Recall([]string{"a"}, none, 10, 1),
		"ap": AveragePrecision([]string{"a"}, none, 10, 1), "rr": ReciprocalRank([]string{"a"}, none, 1),
	} {
		if !math.IsNaN(v) {
			t.Errorf("%s with nothing relevant = %v, want NaN", name, v)
		}
	}
	if got := NDCG(nil, g, 10); got != 0 {
		t.Errorf("empty ranking nDCG = %v, want 0", got)
	}
}

func TestConfusionByHand(t *testing.T) {
	var c Confusion
	// 3 accepted relevant, 1 accepted wrong, 2 rejected relevant, 4 rejected wrong.
	for range 3 {
		c.Add(true, true)
	}
	c.Add(true, false)
	for range 2 {
		c.Add(false, true)
	}
	for range 4 {
		c.Add(false, false)
	}
	// precision 3/4, recall 3/5, F1 = 2*.75*.6/1.35 = 0.666..., accept 4/10.
	if !near(c.Precision(), 0.75) || !near(c.Recall(), 0.6) || !near(c.F1(), 2.0/3) || !near(c.AcceptRate(), 0.4) || c.Total() != 10 {
		t.Errorf("%+v: P %v R %v F1 %v accept %v", c, c.Precision(), c.Recall(), c.F1(), c.AcceptRate())
	}
	var empty Confusion
	if !math.IsNaN(empty.Precision()) || !math.IsNaN(empty.F1()) {
		t.Error("empty confusion should be NaN")
	}
	zero := Confusion{FP: 1, FN: 1}
	if zero.F1() != 0 {
		t.Errorf("F1 with P=R=0 is %v, want 0", zero.F1())
	}
}

func TestMean(t *testing.T) {
	if m, n := mean([]float64{1, math.NaN(), 0.5}); !near(m, 0.75) || n != 2 {
		t.Errorf("mean %v over %d", m, n)
	}
	if m, n := mean(nil); !math.IsNaN(m) || n != 0 {
		t.Errorf("mean of nothing %v %d", m, n)
	}
}
