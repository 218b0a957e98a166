package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/foley-audio/foley"
)

func BenchmarkPut(b *testing.B) {
	ctx := context.Background()
	l, err := Open(ctx, filepath.Join(b.TempDir(), "b.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	vec := make([]float32, 512)
	vec[0] = 1
	entries := make([]Entry, 0, 1000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := foley.SoundRecord{ID: fmt.Sprintf("r%08d", i), URI: fmt.Sprintf("/lib/%08d.wav", i), Caption: "heavy wooden door slams shut in a hall",
			Tags: []string{"door", "slam"}, DurationS: 2, Format: "wav", License: foley.License{LicenseID: "CC0-1.0", RightsVerified: true}, EmbeddingModel: "m"}
		entries = append(entries, Entry{Record: r, Vector: vec})
		if len(entries) == cap(entries) || i == b.N-1 {
			if err := l.Put(ctx, entries); err != nil {
				b.Fatal(err)
			}
			entries = entries[:0]
		}
	}
}
