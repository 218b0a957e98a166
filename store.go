package foley

import (
	"fmt"
	"strings"
	"time"
)

// FileState is what ingest remembers of a file to notice changes.
type FileState struct {
	ID      string
	Path    string
	Size    int64
	MtimeNS int64
	SHA256  string // of the file's bytes
	// MetaSHA256 identifies the outside metadata (sidecar, manifest row,
	// folder licence) the record was built from, so that editing it
	// counts as a change.
	MetaSHA256 string
}

// Entry is a record to store, with its embedding and, for ingested files,
// the file's state.
type Entry struct {
	Record SoundRecord
	Vector []float32 // nil: none; its model is Record.EmbeddingModel
	File   *FileState
}

// Failure is a file ingest could not read or store, and why.
type Failure struct {
	Path   string    `json:"path"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// PartialError is a write of which some records were stored and others
// refused: a distributed library checks each object on its own.
type PartialError struct {
	Total  int // records in the write
	Failed []RecordError
}

// RecordError is one refused record of a write.
type RecordError struct {
	Index  int    // its place in the write
	ID     string // its id
	Reason string
}

// Error lists the refused records (the first five, and how many more).
func (e *PartialError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d records were not stored:", len(e.Failed), e.Total)
	for i, f := range e.Failed {
		if i == 5 {
			fmt.Fprintf(&b, " (and %d more)", len(e.Failed)-5)
			break
		}
		fmt.Fprintf(&b, " %q: %s;", f.ID, f.Reason)
	}
	return strings.TrimSuffix(b.String(), ";")
}

// Stats counts a library's records, whatever its backend.
type Stats struct {
	// Path is where the library is: its Location, a file path or a
	// weaviate:// URL.
	Path       string         `json:"path"`
	Records    int            `json:"records"`
	ByLicense  map[string]int `json:"by_license"`       // by licence table id
	ByFormat   map[string]int `json:"by_format"`        // by container format
	ByEmbedder map[string]int `json:"by_embedder"`      // "" for records without a vector
	Unlicensed int            `json:"unusable_license"` // unknown licence or unverified rights
	Failures   int            `json:"failures"`         // files ingest could not read or store
	Schema     int            `json:"schema_version"`   // of the backend's storage
}

// Entries pairs records with their vectors (vectors nil: none has one), as
// the backends' Upsert hands them to Put.
func Entries(recs []SoundRecord, vectors [][]float32) ([]Entry, error) {
	if vectors != nil && len(vectors) != len(recs) {
		return nil, Errorf(Invalid, "library: %d records but %d vectors", len(recs), len(vectors))
	}
	entries := make([]Entry, len(recs))
	for i, r := range recs {
		entries[i].Record = r
		if vectors != nil {
			entries[i].Vector = vectors[i]
		}
	}
	return entries, nil
}
