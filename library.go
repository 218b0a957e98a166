package foley

import (
	"context"
	"iter"
)

// Embedder turns text and sound into vectors in one shared space, so that a
// text query can be compared with clips by cosine similarity. Vectors are
// L2-normalised. Implementations are safe for concurrent use.
type Embedder interface {
	// Model names the embedding model; vectors of different models are
	// never compared.
	Model() string
	// Dim is the length of every vector.
	Dim() int
	// EmbedText embeds each text.
	EmbedText(ctx context.Context, texts []string) ([][]float32, error)
	// EmbedAudio embeds each sound file (a path or file:// URI). An
	// embedder that cannot hear returns an error with code Unavailable;
	// AudioCapable says so beforehand.
	EmbedAudio(ctx context.Context, uris []string) ([][]float32, error)
	// AudioCapable reports whether EmbedAudio works: whether clips are
	// embedded from their sound, or only from their text.
	AudioCapable() bool
}

// SearchQuery is a library search: full-text terms and a query vector,
// fused by reciprocal rank, with filters.
type SearchQuery struct {
	Text string // the words to match with BM25; empty for vector-only search
	// Vector is the query embedding; nil for text-only search.
	Vector []float32
	// Model is the embedder that made Vector. A library whose vectors come
	// from another model refuses the query.
	Model  string
	K      int // results wanted (default 10)
	Filter Filter
}

// Filter narrows a search.
type Filter struct {
	LicenseIDs     []string // keep only these licence ids (table ids); empty: any
	CommercialOnly bool     // keep only clips whose licence permits commercial use
	MinDurationS   float64  // 0: no minimum
	MaxDurationS   float64  // 0: no maximum
	UCSCategory    string   // a UCS category or CatID; empty: any
}

// Library is a searchable store of sound records. Implementations are safe
// for concurrent readers while one writer ingests.
type Library interface {
	// Upsert adds or replaces records, each with its embedding (nil when
	// the record has none).
	Upsert(ctx context.Context, recs []SoundRecord, vectors [][]float32) error
	// Get returns one record; a missing id is a NotFound error.
	Get(ctx context.Context, id string) (SoundRecord, error)
	// Delete removes records; missing ids are ignored.
	Delete(ctx context.Context, ids ...string) error
	// Count is the number of records.
	Count(ctx context.Context) (int, error)
	// Search returns ranked candidates with ClapScore (vector cosine),
	// BM25Score and RRFScore set where they apply.
	Search(ctx context.Context, q SearchQuery) ([]Candidate, error)
	// All iterates over every record once, in an order that is stable
	// between calls: id order in the embedded library, object order in
	// Weaviate.
	All(ctx context.Context) iter.Seq2[SoundRecord, error]
	// Close releases the library.
	Close() error
}

// Store is a Library as the commands use it, whatever its backend: it also
// says where it is and which embedder made its vectors, scores given
// records against a query vector, and hands its records over and takes
// them back with their vectors and file states, for copying between
// backends.
type Store interface {
	Library
	// Location is where the library is: a file path or a weaviate:// URL.
	Location() string
	// Embedding is the model and dimension of the library's vectors; ""
	// and 0 before any vector is stored.
	Embedding() (model string, dim int)
	// Cosines returns the cosine of q (made by model) with the vector of
	// each record in ids that has one, by id. A query of another model is
	// an Invalid error.
	Cosines(ctx context.Context, ids []string, q []float32, model string) (map[string]float64, error)
	// Export iterates over every record with its vector, in a stable
	// order, starting after the record whose Cursor is after ("" for the
	// start), so that a copy can resume where it stopped.
	Export(ctx context.Context, after string) iter.Seq2[Exported, error]
	// Put stores records with their vectors and, for records ingested
	// from files, the file states Export hands back. A backend that checks
	// each record on its own may store some and refuse others: the error
	// is then a *PartialError that names them.
	Put(ctx context.Context, entries []Entry) error
}

// Exported is a record handed over by Store.Export.
type Exported struct {
	Record SoundRecord
	Vector []float32 // nil when the record has none
	// File is the state of the file the record was ingested from, nil
	// for a record stored without one. A copy that keeps it lets the next
	// ingest skip files that did not change.
	File *FileState
	// Cursor resumes an export after this record.
	Cursor string
}
