package vecindex

import "testing"

func TestEach(t *testing.T) {
	s := NewStore(2)
	s.Add(1, []float32{1, 0})
	s.Add(2, []float32{0, 1})
	s.Add(3, []float32{1, 1})
	s.Remove(2)
	got := map[int64][2]float32{}
	s.Each(func(k int64, v []float32) bool {
		got[k] = [2]float32{v[0], v[1]}
		return true
	})
	if len(got) != 2 || got[1] != [2]float32{1, 0} || got[3] != [2]float32{1, 1} {
		t.Errorf("Each saw %v", got)
	}
	n := 0
	s.Each(func(int64, []float32) bool { n++; return false })
	if n != 1 {
		t.Errorf("Each did not stop: %d calls", n)
	}
}
