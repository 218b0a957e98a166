package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/backend"
	"github.com/foley-audio/foley/sqlite"
	"github.com/foley-audio/foley/verify"
	"github.com/spf13/cobra"
)

// migrateCheckpoint is where a migration stands, kept in the user data
// directory between runs so that an interrupted copy resumes.
type migrateCheckpoint struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Cursor string `json:"cursor"`
	Copied int    `json:"copied"`
}

func checkpointPath(from, to string) (string, error) {
	dir, err := dataDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(from + "\x00" + to))
	return filepath.Join(dir, "foley", "migrate", hex.EncodeToString(sum[:8])+".json"), nil
}

func newMigrateCmd(s streams) *cobra.Command {
	var (
		from, to   string
		batch      int
		noVerdicts bool
		restart    bool
		asJSON     bool
	)
	cmd := &cobra.Command{
		Use:   "migrate --from LOCATION --to LOCATION",
		Short: "Copy a library (records, vectors, verdict cache) to another backend",
		Long: `migrate copies every record of one library into another, with its vector, and
then the verdict cache, so that nothing paid for is paid again. A location is a
library file or weaviate://HOST:PORT/Class.

Records are written by id, so a copy never duplicates. An interrupted copy
resumes where it stopped when run again with the same --from and --to (the
checkpoint is kept in the user data directory; --restart ignores it). The
destination must be empty or hold vectors of the same embedder. Records the
destination refuses are listed and the exit status is then 1; the others are
copied.

Each record keeps the state of the file it was ingested from (path, size,
time, hashes), so 'foley index' of the same folders into the copy skips the
files that did not change. Recorded ingest failures are not copied; the next
'foley index' tries those files again.`,
		Example: `  foley migrate --from ~/.local/share/foley/library.db --to weaviate://localhost:8080/Sounds
  foley migrate --from weaviate://db1:8080/Sounds --to backup.db --json
  FOLEY_WEAVIATE_API_KEY=... foley migrate --from sfx.db --to "weaviate://db:8080/Sfx?replicas=3&grpc=db:50051"`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			switch {
			case from == "" || to == "":
				return usageError("migrate: give both --from and --to (see 'foley migrate --help')")
			case from == to:
				return usageError("migrate: --from and --to are the same library")
			case batch < 1 || batch > 5000:
				return usageError("--batch must be 1..5000, got %d", batch)
			}
			src, err := backend.Open(ctx, from, backend.Options{Existing: true})
			if err != nil {
				return err
			}
			defer src.Close()
			dst, err := backend.Open(ctx, to, backend.Options{})
			if err != nil {
				return err
			}
			defer dst.Close()

			cpPath, err := checkpointPath(src.Location(), dst.Location())
			if err != nil {
				return foley.Errorf(foley.Internal, "migrate: no user data directory for the checkpoint: %v", err)
			}
			var cp migrateCheckpoint
			if b, err := os.ReadFile(cpPath); err == nil && !restart {
				if json.Unmarshal(b, &cp) != nil || cp.From != src.Location() || cp.To != dst.Location() {
					cp = migrateCheckpoint{}
				}
			}
			cp.From, cp.To = src.Location(), dst.Location()
			if cp.Cursor != "" {
				fmt.Fprintf(s.err, "foley: resuming the copy after %d records (--restart to start over)\n", cp.Copied)
			}
			total, err := src.Count(ctx)
			if err != nil {
				return err
			}
			bar := newProgressOf(s.err, total, "migrating", "records")
			bar.add(min(cp.Copied, total))
			done := cp.Copied
			opts := backend.MigrateOptions{After: cp.Cursor, Batch: batch, Checkpoint: func(cursor string, copied int) error {
				bar.add(copied + cp.Copied - done)
				done = copied + cp.Copied
				return writeCheckpoint(cpPath, migrateCheckpoint{From: cp.From, To: cp.To, Cursor: cursor, Copied: done})
			}}
			if !noVerdicts {
				fv, tv, err := openVerdictPair(ctx, src.Location(), dst.Location())
				if err != nil {
					bar.done()
					return err
				}
				if fv != nil {
					defer fv.Close()
					defer tv.Close()
					opts.FromVerdicts, opts.ToVerdicts = fv, tv
				}
			}
			sum, err := backend.Migrate(ctx, src, dst, opts)
			bar.done()
			if err != nil {
				if errors.Is(err, context.Canceled) {
					return foley.Errorf(foley.Internal, "migrate: interrupted after %d records; run the same command again to resume", done)
				}
				return err
			}
			sum.Records += cp.Copied
			os.Remove(cpPath)
			if asJSON {
				if err := writeJSON(s.out, sum); err != nil {
					return err
				}
			} else {
				t := newTable(s.out, "RECORDS", "WITH VECTORS", "REFUSED", "VERDICTS", "SECONDS")
				t.row(fmt.Sprint(sum.Records), fmt.Sprint(sum.WithVectors), fmt.Sprint(len(sum.Refused)), fmt.Sprint(sum.Verdicts), fmt.Sprintf("%.1f", sum.Seconds))
				t.flush()
				fmt.Fprintf(s.out, "copied %s to %s\n", sum.From, sum.To)
				for _, r := range sum.Refused {
					fmt.Fprintf(s.out, "refused: %s: %s\n", r.ID, r.Reason)
				}
			}
			if len(sum.Refused) > 0 {
				return foley.Errorf(foley.Internal, "migrate: %s refused %d records (listed above)", sum.To, len(sum.Refused))
			}
			return nil
		}),
	}
	f := cmd.Flags()
	f.StringVar(&from, "from", "", "the library to copy: a file or weaviate://HOST:PORT/Class")
	f.StringVar(&to, "to", "", "the library to copy into (created when missing)")
	f.IntVar(&batch, "batch", 200, "records per write")
	f.BoolVar(&noVerdicts, "no-verdicts", false, "do not copy the verdict cache")
	f.BoolVar(&restart, "restart", false, "ignore the checkpoint of an interrupted copy and start from the first record")
	f.BoolVar(&asJSON, "json", false, "print the summary as JSON")
	return cmd
}

// openVerdictPair opens the verdict caches of both libraries; both nil when
// the source has none (an embedded library whose cache file was never
// made).
func openVerdictPair(ctx context.Context, from, to string) (verify.VerdictStore, verify.VerdictStore, error) {
	if !backend.IsRemote(from) {
		if _, err := os.Stat(sqlite.VerdictsPath(from)); errors.Is(err, os.ErrNotExist) {
			return nil, nil, nil
		}
	}
	fv, err := backend.OpenVerdicts(ctx, from)
	if err != nil {
		return nil, nil, err
	}
	tv, err := backend.OpenVerdicts(ctx, to)
	if err != nil {
		fv.Close()
		return nil, nil, err
	}
	return fv, tv, nil
}

func writeCheckpoint(path string, cp migrateCheckpoint) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
