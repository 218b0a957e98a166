package eval

import (
	"encoding/json"
	"fmt"
	"os"
)

// Baseline is a committed measurement that the test suite holds the
// shipped golden set to: nDCG@10 must not drop below Value - Tolerance.
type Baseline struct {
	Metric       string             `json:"metric"` // ndcg_at_10
	Value        float64            `json:"value"`
	Tolerance    float64            `json:"tolerance"`
	GoldenSHA256 string             `json:"golden_sha256"`
	CorpusSHA256 string             `json:"corpus_sha256"`
	Embedder     string             `json:"embedder"`
	Also         map[string]float64 `json:"also,omitempty"` // other metrics at the time, for reference
	Measured     string             `json:"measured"`       // how to measure it again
}

// BaselinePath is where the baseline is committed, relative to the eval
// package.
const BaselinePath = "baseline.json"

// ReadBaseline reads a baseline file.
func ReadBaseline(path string) (*Baseline, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var bl Baseline
	if err := json.Unmarshal(b, &bl); err != nil {
		return nil, fmt.Errorf("baseline %s: %v", path, err)
	}
	return &bl, nil
}

// Write writes the baseline as indented JSON.
func (b *Baseline) Write(path string) error {
	out, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(out, '\n'), 0o644)
}

// Check compares a new measurement with the baseline: an error, saying by
// how much, when got is below Value - Tolerance.
func (b *Baseline) Check(got float64) error {
	if got < b.Value-b.Tolerance {
		return fmt.Errorf("%s dropped to %.4f, below the baseline %.4f minus the tolerance %.4f (%+.4f)", b.Metric, got, b.Value, b.Tolerance, got-b.Value)
	}
	return nil
}
