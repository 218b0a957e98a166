package audio

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// Report is everything Probe learns about a file.
type Report struct {
	Path       string   `json:"path"`
	SizeBytes  int64    `json:"size_bytes"`
	FileSHA256 string   `json:"file_sha256"` // of the file's bytes
	Info       Info     `json:"info"`
	Facts      Facts    `json:"facts"`
	Metadata   Metadata `json:"metadata"`
	// Error is why the file could not be read to the end; the fields
	// above hold what was learnt before. A truncated file has no error,
	// only a "truncated" QC flag.
	Error string `json:"error,omitempty"`
}

// Probe reads a sound file twice, streaming: once for the hash of its bytes
// and once to decode and measure it. It never holds the whole PCM.
// buckets is the number of waveform peaks wanted (0 for none).
func Probe(path string, qc QC, buckets int) (Report, error) {
	r := Report{Path: path}
	fail := func(err error) (Report, error) {
		r.Error = err.Error()
		return r, err
	}
	f, err := os.Open(path)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	if st.IsDir() {
		return fail(fmt.Errorf("%s: is a directory", path))
	}
	r.SizeBytes = st.Size()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fail(fmt.Errorf("%s: %w", path, err))
	}
	r.FileSHA256 = hex.EncodeToString(h.Sum(nil))
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fail(fmt.Errorf("%s: %w", path, err))
	}
	d, err := NewDecoder(f)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", path, err))
	}
	r.Info, r.Metadata = d.Info(), d.Metadata()
	facts, err := Analyze(d, qc, buckets)
	r.Facts = facts
	if err != nil && !isTruncation(err) {
		return fail(fmt.Errorf("%s: after %.3f s of audio: %w", path, facts.Duration, err))
	}
	return r, nil
}
