package backend

import (
	"context"
	"errors"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/verify"
)

// MigrateOptions tune Migrate.
type MigrateOptions struct {
	// After resumes a copy: records up to and including the one with this
	// cursor (from the source's Export) were copied by an earlier run.
	After string
	// Batch is how many records one write carries (default 200).
	Batch int
	// Checkpoint, when set, is called after each batch is stored with the
	// cursor to resume after and the records copied so far in this run.
	Checkpoint func(cursor string, copied int) error
	// Verdicts copies the verdict cache too, from FromVerdicts to
	// ToVerdicts, after the records.
	FromVerdicts, ToVerdicts verify.VerdictStore
}

// MigrateSummary says what a migration copied.
type MigrateSummary struct {
	From        string              `json:"from"`
	To          string              `json:"to"`
	Resumed     bool                `json:"resumed"`
	Records     int                 `json:"records"`      // copied by this run
	WithVectors int                 `json:"with_vectors"` // of which had a vector
	Refused     []foley.RecordError `json:"refused,omitempty"`
	Verdicts    int                 `json:"verdicts"`
	Seconds     float64             `json:"seconds"`
}

// Migrate copies every record of from, with its vector and the state of
// the file it was ingested from, into to, then the verdict cache. The file
// state lets the first ingest into the copy skip files that did not
// change. Writes are upserts by id, so running it again after an
// interruption, with After set to the last checkpoint, completes the copy
// without duplicates. A destination that holds vectors of another
// embedder is refused before anything is written.
func Migrate(ctx context.Context, from, to foley.Store, o MigrateOptions) (MigrateSummary, error) {
	start := time.Now()
	sum := MigrateSummary{From: from.Location(), To: to.Location(), Resumed: o.After != ""}
	if from.Location() == to.Location() {
		return sum, foley.Errorf(foley.Invalid, "migrate: --from and --to are the same library (%s)", from.Location())
	}
	fm, fd := from.Embedding()
	if tm, td := to.Embedding(); fm != "" && tm != "" && (fm != tm || fd != td) {
		return sum, foley.Errorf(foley.Invalid, "migrate: %s holds vectors of %s (%d dimensions) but %s holds vectors of %s (%d); copy into an empty library",
			from.Location(), fm, fd, to.Location(), tm, td)
	}
	batch := o.Batch
	if batch <= 0 {
		batch = 200
	}
	var entries []foley.Entry
	cursor := ""
	flush := func() error {
		if len(entries) == 0 {
			return nil
		}
		err := to.Put(ctx, entries)
		var pe *foley.PartialError
		if errors.As(err, &pe) {
			sum.Refused = append(sum.Refused, pe.Failed...)
			err = nil
		}
		if err != nil {
			return err
		}
		refused := map[int]bool{}
		if pe != nil {
			for _, f := range pe.Failed {
				refused[f.Index] = true
			}
		}
		for i, e := range entries {
			if !refused[i] {
				sum.Records++
				if e.Vector != nil {
					sum.WithVectors++
				}
			}
		}
		entries = entries[:0]
		if o.Checkpoint != nil {
			return o.Checkpoint(cursor, sum.Records)
		}
		return nil
	}
	for e, err := range from.Export(ctx, o.After) {
		if err != nil {
			sum.Seconds = time.Since(start).Seconds()
			return sum, err
		}
		entries, cursor = append(entries, foley.Entry{Record: e.Record, Vector: e.Vector, File: e.File}), e.Cursor
		if len(entries) == batch {
			if err := flush(); err != nil {
				sum.Seconds = time.Since(start).Seconds()
				return sum, err
			}
		}
	}
	if err := flush(); err != nil {
		sum.Seconds = time.Since(start).Seconds()
		return sum, err
	}
	if o.FromVerdicts != nil && o.ToVerdicts != nil {
		var part []verify.CachedVerdict
		for cv, err := range o.FromVerdicts.AllVerdicts(ctx) {
			if err != nil {
				return sum, err
			}
			if part = append(part, cv); len(part) == 500 {
				if err := o.ToVerdicts.PutVerdicts(ctx, part); err != nil {
					return sum, err
				}
				sum.Verdicts += len(part)
				part = part[:0]
			}
		}
		if err := o.ToVerdicts.PutVerdicts(ctx, part); err != nil {
			return sum, err
		}
		sum.Verdicts += len(part)
	}
	sum.Seconds = time.Since(start).Seconds()
	return sum, nil
}
