package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/backend"
	"github.com/foley-audio/foley/embed"
	"github.com/foley-audio/foley/ingest"
	"github.com/foley-audio/foley/sqlite"
	"github.com/spf13/cobra"
)

// EnvLibrary names the library (a file, or weaviate://HOST:PORT/Class)
// when --library is not given.
const EnvLibrary = "FOLEY_LIBRARY"

// libraryPath resolves the library: the flag, then FOLEY_LIBRARY, then
// library.db in the user's data directory (XDG_DATA_HOME, or
// ~/.local/share on Linux).
func libraryPath(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if env := os.Getenv(EnvLibrary); env != "" {
		return env, nil
	}
	dir, err := dataDir()
	if err != nil {
		return "", usageError("no --library given, %s is not set, and there is no user data directory: %v", EnvLibrary, err)
	}
	return filepath.Join(dir, "foley", "library.db"), nil
}

func dataDir() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support"), nil
	case "windows":
		if d := os.Getenv("LOCALAPPDATA"); d != "" {
			return d, nil
		}
	}
	return filepath.Join(home, ".local", "share"), nil
}

// generatedDir is where generated clips of library l are kept: beside an
// embedded library's file, or in the user data directory for a library on
// a server (the record in the library names the file).
func generatedDir(l foley.Store) string {
	if backend.IsRemote(l.Location()) {
		if dir, err := dataDir(); err == nil {
			return filepath.Join(dir, "foley", "generated")
		}
		return filepath.Join(os.TempDir(), "foley-generated")
	}
	return filepath.Join(filepath.Dir(l.Location()), "generated")
}

// libraryFlags are the flags that locate and open a library.
type libraryFlags struct {
	path  string
	index string
	// existing: the command reads a library, so a missing file is an
	// error rather than a new, empty library.
	existing bool
}

func (f *libraryFlags) open(ctx context.Context) (foley.Store, error) {
	path, err := libraryPath(f.path)
	if err != nil {
		return nil, err
	}
	index := f.index
	if index == "auto" {
		index = ""
	}
	return backend.Open(ctx, path, backend.Options{Index: index, Existing: f.existing})
}

// addLibraryFlags adds --library, and --index when withIndex.
func addLibraryFlags(cmd *cobra.Command, f *libraryFlags, withIndex bool) {
	cmd.Flags().StringVar(&f.path, "library", "", "the library: a file, or weaviate://HOST:PORT/Class (default: $"+EnvLibrary+", else library.db in the user data directory)")
	if withIndex {
		cmd.Flags().StringVar(&f.index, "index", "auto", fmt.Sprintf("the vector index: exact, hnsw, or auto (HNSW from %d records)", sqlite.DefaultHNSWThreshold))
	}
}

// queryEmbedder returns the embedder that made the library's vectors, so a
// query lands in the same space; nil when the library has no vectors.
func queryEmbedder(ctx context.Context, lib foley.Store) (foley.Embedder, error) {
	model, _ := lib.Embedding()
	if model == "" {
		return nil, nil
	}
	if h := embed.NewHash(0); h.Model() == model {
		return h, nil
	}
	emb, err := embed.FromEnv(ctx)
	if err != nil {
		return nil, err
	}
	if emb.Model() != model {
		return nil, foley.Errorf(foley.Invalid, "the library %s was embedded with %s; configure that embedder (%s, %s) to search it, or re-index it with `foley index DIR --reembed`",
			lib.Location(), model, embed.EnvCLAPURL, embed.EnvCLAPModel)
	}
	return emb, nil
}

func newIndexCmd(s streams) *cobra.Command {
	var (
		lib    libraryFlags
		opts   ingest.Options
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "index DIR",
		Short: "Index a folder of sound files into the library (incremental)",
		Long: `index walks DIR, finds the audio files by their content (WAV, FLAC, MP3, Ogg
Vorbis), measures them, gathers their captions, tags and licences, embeds them
and stores them in the library.

Metadata comes from, in order of precedence: a sidecar NAME.json in the
record's shape; the folder's manifest.json or metadata.csv; the tags in the
file (bext, INFO, ID3, Vorbis comments); the UCS file name
(CatID_FXName_CreatorID_SourceID); the folder and file names.

Licences named by sidecars and manifests count as verified (unless they say
rights_verified: false). A licence in a file's own tags wins over --license
(it is the more specific statement) and counts as verified with
--trust-metadata or --license; otherwise it is recorded unverified. --license
names the licence of every file without one and asserts you hold those rights.
Records without a usable licence are stored, and the licence gate drops them.

Indexing is incremental: unchanged files are skipped, changed ones updated,
files gone from DIR removed (unless --keep-missing). A file that fails is
recorded with the reason and the others go on; the exit status is then 1.
Interrupting leaves a library that opens and searches; run the same command
again to complete it.

The embedder is CLAP when FOLEY_CLAP_URL is set, otherwise the built-in text
embedder (captions and tags only).`,
		Example: `  foley index ~/sfx --license user-owned
  foley index freesound-downloads/ --trust-metadata --library sfx.db
  FOLEY_CLAP_URL=http://localhost:7997 foley index ~/sfx --reembed
  foley index ~/sfx --json > summary.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError("index: want one DIR, got %d arguments (see 'foley index --help')", len(args))
			}
			return nil
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if opts.Workers < 0 {
				return usageError("--workers must be >= 0, got %d", opts.Workers)
			}
			l, err := lib.open(ctx)
			if err != nil {
				return err
			}
			defer l.Close()
			emb, err := embed.FromEnv(ctx)
			if err != nil {
				return err
			}
			p := newIngestProgress(s.err)
			opts.Progress = p.update
			target, ok := l.(ingest.Target)
			if !ok {
				return foley.Errorf(foley.Invalid, "index: the library %s cannot be indexed into", l.Location())
			}
			sum, err := ingest.Run(ctx, target, emb, args[0], opts)
			p.done()
			if sum.Root == "" {
				return err
			}
			if sl, ok := l.(*sqlite.Library); ok && err == nil {
				saved, ierr := sl.SaveIndex(ctx)
				if ierr != nil {
					return ierr
				}
				for _, f := range saved {
					fmt.Fprintf(s.err, "saved %s\n", f)
				}
			}
			if asJSON {
				if werr := writeJSON(s.out, sum); werr != nil {
					return werr
				}
			} else {
				printSummary(s.out, sum)
			}
			switch {
			case errors.Is(err, context.Canceled):
				return foley.Errorf(foley.Internal, "index: interrupted; run the same command again to complete it")
			case err != nil:
				return err
			case sum.Failed > 0:
				return foley.Errorf(foley.Internal, "index: %d files could not be indexed (listed above)", sum.Failed)
			}
			return nil
		}),
	}
	f := cmd.Flags()
	addLibraryFlags(cmd, &lib, true)
	f.StringVar(&opts.License, "license", "", "the licence (id, URL or label) of every file without a usable one; asserts you hold the rights")
	f.BoolVar(&opts.TrustMetadata, "trust-metadata", false, "count the licences files declare in their own tags as verified")
	f.BoolVar(&opts.KeepMissing, "keep-missing", false, "keep the records of files that are gone from DIR")
	f.BoolVar(&opts.Reembed, "reembed", false, "embed every record again (after changing the embedder)")
	f.IntVar(&opts.Workers, "workers", 0, "files read at once (default: the number of cores)")
	f.BoolVar(&asJSON, "json", false, "print the summary as JSON")
	return cmd
}

// ingestProgress shows ingest progress on stderr: a bar on a terminal,
// a plain line every few seconds otherwise.
type ingestProgress struct {
	w     io.Writer
	bar   *progress
	start time.Time
	last  time.Time
	total int
}

func newIngestProgress(w io.Writer) *ingestProgress {
	return &ingestProgress{w: w, start: time.Now(), last: time.Now()}
}

func (p *ingestProgress) update(pr ingest.Progress) {
	if p.bar == nil {
		p.total = pr.Total
		p.bar = newProgress(p.w, pr.Total, "indexing")
	}
	p.bar.add(1)
	if p.bar.bar == nil && (time.Since(p.last) > 2*time.Second || pr.Done == pr.Total) {
		p.last = time.Now()
		rate := float64(pr.Done) / time.Since(p.start).Seconds()
		eta := time.Duration(float64(pr.Total-pr.Done)/max(rate, 1e-9)) * time.Second
		fmt.Fprintf(p.w, "indexed %d/%d files (%.0f files/s, %s left)\n", pr.Done, pr.Total, rate, eta.Round(time.Second))
	}
}

func (p *ingestProgress) done() {
	if p.bar != nil {
		p.bar.done()
	}
}

func printSummary(w io.Writer, s ingest.Summary) {
	t := newTable(w, "ADDED", "UPDATED", "UNCHANGED", "REMOVED", "FAILED", "NO USABLE LICENCE", "SECONDS")
	t.row(fmt.Sprint(s.Added), fmt.Sprint(s.Updated), fmt.Sprint(s.Unchanged), fmt.Sprint(s.Removed), fmt.Sprint(s.Failed), fmt.Sprint(s.Unusable), fmt.Sprintf("%.1f", s.Seconds))
	t.flush()
	fmt.Fprintf(w, "library %s, embedder %s\n", s.Library, s.Embedder)
	for _, f := range s.Failures {
		fmt.Fprintf(w, "failed: %s: %s\n", f.Path, f.Reason)
	}
	if s.Unusable > 0 {
		fmt.Fprintf(w, "%d records have no usable licence (unknown, or rights not verified): the licence gate will drop them. Give --license ID if you hold the rights, or --trust-metadata to accept the licences the files declare.\n", s.Unusable)
	}
}

func newSearchCmd(s streams) *cobra.Command {
	var (
		lib        = libraryFlags{existing: true}
		k          int
		licences   []string
		commercial bool
		minDur     float64
		maxDur     float64
		ucs        string
		asJSON     bool
	)
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search the library: BM25 and vector results fused by reciprocal rank",
		Long: `search ranks the library's clips for QUERY: a full-text (BM25) list over
captions, tags, file names and categories and a vector list (the query embedded
by the library's embedder, cosine against each clip), fused by reciprocal rank
(k=60). Each result shows its clap_score (the cosine), bm25_score and
rrf_score.`,
		Example: `  foley search "heavy wooden door slams shut"
  foley search "rain on a tin roof" -k 20 --commercial --max-duration 30
  foley search footsteps --ucs FEET --license CC0-1.0 --license CC-BY-4.0 --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
				return usageError("search: want one QUERY in quotes (see 'foley search --help')")
			}
			return nil
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if k < 1 || k > foley.MaxK {
				return usageError("-k must be 1..%d, got %d", foley.MaxK, k)
			}
			if minDur < 0 || maxDur < 0 || (maxDur > 0 && maxDur < minDur) {
				return usageError("--min-duration %g and --max-duration %g make no range", minDur, maxDur)
			}
			l, err := lib.open(ctx)
			if err != nil {
				return err
			}
			defer l.Close()
			q := foley.SearchQuery{Text: args[0], K: k, Filter: foley.Filter{LicenseIDs: licences, CommercialOnly: commercial, MinDurationS: minDur, MaxDurationS: maxDur, UCSCategory: ucs}}
			emb, err := queryEmbedder(ctx, l)
			if err != nil {
				return err
			}
			if emb != nil {
				v, err := emb.EmbedText(ctx, []string{args[0]})
				if err != nil {
					return err
				}
				q.Vector, q.Model = v[0], emb.Model()
			}
			res, err := l.Search(ctx, q)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(s.out, res)
			}
			if len(res) == 0 {
				fmt.Fprintf(s.err, "no results in %s\n", l.Location())
				return nil
			}
			t := newTable(s.out, "#", "ID", "CAPTION", "LICENCE", "DURATION", "CLAP", "BM25", "RRF", "PATH")
			for i, c := range res {
				t.row(fmt.Sprint(i+1), c.Sound.ID, oneLine(c.Sound.Caption, 48), c.Sound.License.LicenseID, fmt.Sprintf("%.2f s", c.Sound.DurationS),
					score(c.ClapScore, "%.3f"), score(c.BM25Score, "%.2f"), score(c.RRFScore, "%.4f"), c.Sound.URI)
			}
			return t.flush()
		}),
	}
	f := cmd.Flags()
	addLibraryFlags(cmd, &lib, true)
	f.IntVarP(&k, "k", "k", 10, "results wanted")
	f.StringSliceVar(&licences, "license", nil, "keep only these licence ids (repeat or comma-separate)")
	f.BoolVar(&commercial, "commercial", false, "keep only clips whose licence permits commercial use, with verified rights")
	f.Float64Var(&minDur, "min-duration", 0, "keep clips at least this many seconds long")
	f.Float64Var(&maxDur, "max-duration", 0, "keep clips at most this many seconds long")
	f.StringVar(&ucs, "ucs", "", "keep clips of this UCS category or CatID prefix (e.g. DOOR, DOORWood)")
	f.BoolVar(&asJSON, "json", false, "print the candidates as JSON")
	return cmd
}

func score(v *float64, format string) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf(format, *v)
}

func newShowCmd(s streams) *cobra.Command {
	lib := libraryFlags{existing: true}
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "show ID",
		Short:   "Show one record of the library",
		Example: "  foley show door-slam-07\n  foley show f1a2b3c4d5e6f708 --json",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError("show: want one ID (see 'foley show --help')")
			}
			return nil
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			l, err := lib.open(cmd.Context())
			if err != nil {
				return err
			}
			defer l.Close()
			r, err := l.Get(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(s.out, r)
			}
			lic := r.License
			t := newTable(s.out, "FIELD", "VALUE")
			for _, kv := range [][2]string{
				{"id", r.ID}, {"caption", r.Caption}, {"tags", strings.Join(r.Tags, ", ")}, {"ucs_category", r.UCSCategory},
				{"uri", r.URI}, {"format", fmt.Sprintf("%s, %d Hz, %d ch, %.3f s", r.Format, r.SampleRate, r.Channels, r.DurationS)},
				{"content_sha256", r.ContentSHA256}, {"embedding_model", r.EmbeddingModel},
				{"license", fmt.Sprintf("%s (rights verified: %v)", lic.LicenseID, lic.RightsVerified)},
				{"permits", fmt.Sprintf("commercial %v, publish %v, redistribute %v, train %v, credit required %v", lic.CommercialOK, lic.DerivativeOK, lic.RedistributeOK, lic.TrainOK, lic.AttributionRequired)},
				{"creator", lic.Creator}, {"source", strings.TrimSpace(lic.Source + " " + lic.SourceURL)}, {"license_url", lic.LicenseURL},
			} {
				if kv[1] != "" {
					t.row(kv[0], kv[1])
				}
			}
			return t.flush()
		}),
	}
	addLibraryFlags(cmd, &lib, false)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the record as JSON")
	return cmd
}

func newStatsCmd(s streams) *cobra.Command {
	lib := libraryFlags{existing: true}
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "stats",
		Short:   "Count the library's records by licence, format and embedder",
		Example: "  foley stats\n  foley stats --library sfx.db --json",
		Args:    cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			l, err := lib.open(cmd.Context())
			if err != nil {
				return err
			}
			defer l.Close()
			sl, ok := l.(interface {
				Stats(context.Context) (foley.Stats, error)
			})
			if !ok {
				return foley.Errorf(foley.Invalid, "stats: the library %s cannot count its records", l.Location())
			}
			st, err := sl.Stats(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(s.out, st)
			}
			fmt.Fprintf(s.out, "%s: %d records, %d without a usable licence, %d files that failed to index\n", st.Path, st.Records, st.Unlicensed, st.Failures)
			t := newTable(s.out, "BY", "VALUE", "RECORDS")
			for _, g := range []struct {
				name string
				m    map[string]int
			}{{"licence", st.ByLicense}, {"format", st.ByFormat}, {"embedder", st.ByEmbedder}} {
				keys := make([]string, 0, len(g.m))
				for k := range g.m {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					v := k
					if v == "" {
						v = "(none)"
					}
					t.row(g.name, v, fmt.Sprint(g.m[k]))
				}
			}
			return t.flush()
		}),
	}
	addLibraryFlags(cmd, &lib, false)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the counts as JSON")
	return cmd
}
