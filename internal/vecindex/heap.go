package vecindex

import (
	"cmp"
	"slices"
)

// Hit is one search result: a key and its inner product with the query.
type Hit struct {
	Key   int64
	Score float32
}

// worse reports whether a ranks below b: a lower score, or the same score
// and a larger key.
func worse(a, b Hit) bool {
	return a.Score < b.Score || (a.Score == b.Score && a.Key > b.Key)
}

// sortHits orders hits best first (higher score, then smaller key).
func sortHits(h []Hit) {
	slices.SortFunc(h, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
}

// topK is a bounded heap of the best hits seen, the worst on top.
type topK struct {
	k int
	h []Hit
}

// full reports whether the heap holds k hits.
func (t *topK) full() bool { return len(t.h) >= t.k }

// beats reports whether x would enter the heap.
func (t *topK) beats(x Hit) bool { return len(t.h) < t.k || worse(t.h[0], x) }

// offer adds x if it ranks among the best k.
func (t *topK) offer(x Hit) {
	if len(t.h) < t.k {
		t.h = append(t.h, x)
		h := t.h
		i := len(h) - 1
		for i > 0 {
			p := (i - 1) / 2
			if !worse(h[i], h[p]) {
				break
			}
			h[i], h[p] = h[p], h[i]
			i = p
		}
		return
	}
	if !worse(t.h[0], x) {
		return
	}
	h := t.h
	h[0] = x
	i, n := 0, len(h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && worse(h[r], h[l]) {
			m = r
		}
		if !worse(h[m], h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// cand is a graph node with its similarity to the query.
type cand struct {
	sim float32
	id  uint32
}

// maxHeap keeps the most similar on top.
type maxHeap []cand

func (h *maxHeap) push(c cand) {
	*h = append(*h, c)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p].sim >= s[i].sim {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *maxHeap) pop() cand {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	*h = s
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && s[r].sim > s[l].sim {
			m = r
		}
		if s[i].sim >= s[m].sim {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	return top
}

// minHeap keeps the least similar on top.
type minHeap []cand

func (h *minHeap) push(c cand) {
	*h = append(*h, c)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p].sim <= s[i].sim {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *minHeap) pop() cand {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	*h = s
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && s[r].sim < s[l].sim {
			m = r
		}
		if s[i].sim <= s[m].sim {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	return top
}
