// Package ingest indexes a folder of sound files into a library: it finds
// the audio by content, reads its facts and metadata, gathers captions, tags
// and licences from sidecars, manifests, the files themselves, UCS file
// names and folder names, embeds each record and stores it. It is
// incremental: unchanged files are skipped, changed ones updated, missing
// ones removed.
package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/audio"
	"github.com/foley-audio/foley/embed"
	"github.com/foley-audio/foley/license"
)

// Target is a library that ingest can write into: either backend. The
// embedded library (sqlite.Library) defines what each method means; the
// Weaviate library (weaviate.Library) does the same.
type Target interface {
	// Location is where the library is: a file path or a weaviate:// URL.
	Location() string
	// Embedding is the model and dimension of the library's vectors; ""
	// and 0 before any vector is stored.
	Embedding() (model string, dim int)
	// ResetEmbeddings forgets the library's embedder, so that its records
	// can be embedded again with another.
	ResetEmbeddings(ctx context.Context) error
	// Files is the state of every ingested file, by path.
	Files(ctx context.Context) (map[string]foley.FileState, error)
	// ClearFailuresUnder forgets the recorded failures of the files whose
	// path starts with pathPrefix.
	ClearFailuresUnder(ctx context.Context, pathPrefix string) error
	// CountUnusable counts the records of the files whose path starts
	// with pathPrefix that the licence gate drops whatever the use.
	CountUnusable(ctx context.Context, pathPrefix string) (int, error)
	// TouchFile records the new size and modification time of a file
	// whose content did not change.
	TouchFile(ctx context.Context, path string, size, mtimeNS int64) error
	// SetFailure records (reason != "") or clears (reason == "") the
	// failure of a file.
	SetFailure(ctx context.Context, path, reason string) error
	// Put stores records with their vectors and file states. A library
	// that checks each record on its own may store some and refuse others:
	// the error is then a *foley.PartialError that names them.
	Put(ctx context.Context, entries []foley.Entry) error
	// Delete removes records; missing ids are ignored.
	Delete(ctx context.Context, ids ...string) error
}

// Options control an ingest.
type Options struct {
	// License is the licence (an id, URL or label) of every file that does
	// not name a usable one. Giving it asserts that the user holds those
	// rights, so such records count as rights-verified.
	License string
	// TrustMetadata accepts the licences files declare in their own tags
	// as verified. Without it they are recorded, but the gate drops them.
	TrustMetadata bool
	// KeepMissing keeps records of files that are gone from the folder.
	KeepMissing bool
	// Reembed embeds every record again, for a library whose embedder
	// changed.
	Reembed bool
	// Workers is the number of files read at once (default: all cores).
	Workers int
	// Progress, when set, is called after each file.
	Progress func(Progress)
}

// Progress is the state of a running ingest.
type Progress struct {
	Done, Total int
	Path        string // the file just finished
	// Outcome is what reading the file gave. A record the library then
	// refuses is counted as failed in the Summary.
	Outcome Outcome
}

// Outcome is what happened to one file.
type Outcome string

// The outcomes.
const (
	Added     Outcome = "added"
	Updated   Outcome = "updated"
	Unchanged Outcome = "unchanged"
	Removed   Outcome = "removed"
	Failed    Outcome = "failed"
)

// Summary is the result of an ingest.
type Summary struct {
	Root      string          `json:"root"`
	Library   string          `json:"library"`
	Embedder  string          `json:"embedder"`
	Added     int             `json:"added"`
	Updated   int             `json:"updated"`
	Unchanged int             `json:"unchanged"`
	Removed   int             `json:"removed"`
	Failed    int             `json:"failed"`
	Failures  []foley.Failure `json:"failures,omitempty"`
	// Unusable counts the folder's records the licence gate will drop: an
	// unknown licence, or rights nobody verified.
	Unusable    int     `json:"unusable_license"`
	Seconds     float64 `json:"seconds"`
	Interrupted bool    `json:"interrupted,omitempty"`
}

// job is one audio file found by the walk.
type job struct {
	path  string // absolute
	rel   string // relative to the root, slash-separated
	size  int64
	mtime int64
	prior *foley.FileState
}

// result is a job's outcome.
type result struct {
	job     job
	outcome Outcome
	entry   *foley.Entry     // a record to store
	touch   *foley.FileState // or only a file's new size and time
	err     error
}

// Run indexes root into lib with emb. Interrupting it (ctx cancelled)
// stops after the files in hand are stored, and removes nothing; running it
// again completes it.
//
// Files whose records the library refuses (a Weaviate library checks each
// one) are failures of the run, which goes on; any other error of the
// library stops it.
func Run(ctx context.Context, lib Target, emb foley.Embedder, root string, opts Options) (Summary, error) {
	start := time.Now()
	abs, err := filepath.Abs(root)
	if err != nil {
		return Summary{}, foley.Errorf(foley.Invalid, "index %s: %w", root, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return Summary{}, foley.Errorf(foley.Invalid, "index: %w", err)
	}
	if !st.IsDir() {
		return Summary{}, foley.Errorf(foley.Invalid, "index: %s is not a folder", root)
	}
	sum := Summary{Root: abs, Library: lib.Location(), Embedder: emb.Model()}
	var folderLicence *foley.License
	if opts.License != "" {
		if _, ok := license.Resolve(opts.License); !ok {
			return sum, foley.Errorf(foley.Invalid, "--license %q is not a licence foley knows (see `foley licenses`)", opts.License)
		}
		folderLicence = &foley.License{LicenseID: opts.License, RightsVerified: true, Source: "user"}
	}
	model, _ := lib.Embedding()
	if model != "" && model != emb.Model() {
		if !opts.Reembed {
			return sum, foley.Errorf(foley.Invalid, "the library %s was embedded with %s, and this ingest would use %s; run again with --reembed to embed the whole library with %s, or configure the embedder it was built with",
				lib.Location(), model, emb.Model(), emb.Model())
		}
		if err := lib.ResetEmbeddings(ctx); err != nil {
			return sum, err
		}
	}
	prior, err := lib.Files(ctx)
	if err != nil {
		return sum, err
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	jobs, walkFailures := walk(ctx, abs, libraryFile(lib.Location()), prior)
	if err := lib.ClearFailuresUnder(ctx, withSep(abs)); err != nil {
		return sum, err
	}
	total := len(jobs) + len(walkFailures)
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	b := &builder{root: abs, folderLicence: folderLicence, trust: opts.TrustMetadata, reembed: opts.Reembed, emb: emb, manifests: map[string]*manifest{}}

	in := make(chan job)
	out := make(chan result, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range in {
				out <- b.process(ctx, j)
			}
		})
	}
	go func() {
		defer close(in)
		for _, j := range jobs {
			select {
			case in <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(out) }()

	w := &writer{ctx: context.WithoutCancel(ctx), lib: lib, sum: &sum, stored: map[string]bool{}}
	seen := map[string]bool{}
	done := 0
	report := func(path string, o Outcome) {
		done++
		if opts.Progress != nil {
			opts.Progress(Progress{Done: done, Total: total, Path: path, Outcome: o})
		}
	}
	for _, f := range walkFailures {
		seen[f.Path] = true
		sum.Failed++
		sum.Failures = append(sum.Failures, f)
		w.failure(f.Path, f.Reason)
		report(f.Path, Failed)
	}
	for r := range out {
		seen[r.job.path] = true
		o := r.outcome
		switch {
		case ctx.Err() != nil && errors.Is(r.err, context.Cause(ctx)), errors.Is(r.err, context.Canceled):
			continue // not done, not failed: the next run does it
		case foley.CodeOf(r.err) == foley.Unavailable:
			// A service every file needs (the embedder) is down: stop
			// rather than fail every file for the same reason.
			cancel(r.err)
			continue
		}
		// The writer counts the outcome once it is final: a record is
		// added or updated when the library has stored it.
		if r.err != nil {
			o = Failed
			w.fail(r.job.path, r.err.Error())
		} else {
			w.success(r)
		}
		report(r.job.path, o)
		if err := w.err; err != nil {
			return sum, err
		}
	}
	if err := w.flush(); err != nil {
		return sum, err
	}
	if ctx.Err() != nil {
		sum.Interrupted = true
		sum.Seconds = time.Since(start).Seconds()
		return sum, context.Cause(ctx)
	}
	if !opts.KeepMissing {
		var gone []string
		for path, f := range prior {
			// A record stored by this run belongs to a file found now
			// (a moved file whose sidecar keeps its id).
			if !seen[path] && under(path, abs) && !w.stored[f.ID] {
				gone = append(gone, f.ID)
				w.failure(path, "")
			}
		}
		slices.Sort(gone)
		if err := lib.Delete(ctx, gone...); err != nil {
			return sum, err
		}
		sum.Removed = len(gone)
	}
	if sum.Unusable, err = lib.CountUnusable(ctx, withSep(abs)); err != nil {
		return sum, err
	}
	sum.Seconds = time.Since(start).Seconds()
	return sum, nil
}

// under reports whether path lies inside dir.
func under(path, dir string) bool { return strings.HasPrefix(path, withSep(dir)) }

// withSep ends a folder path with a separator ("/" stays "/").
func withSep(dir string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir
	}
	return dir + string(filepath.Separator)
}

// libraryFile is the file of a library at location, or "" when it is not
// a file (a weaviate:// URL).
func libraryFile(location string) string {
	if location == "" || strings.Contains(location, "://") {
		return ""
	}
	abs, err := filepath.Abs(location)
	if err != nil {
		return ""
	}
	return abs
}

// walk finds the audio files under root, by content. Hidden files and
// folders and the library's own files (those whose path starts with
// libFile, when it is not "") are skipped; files it cannot read are
// failures.
func walk(ctx context.Context, root, libFile string, prior map[string]foley.FileState) ([]job, []foley.Failure) {
	var jobs []job
	var failures []foley.Failure
	fail := func(path string, err error) {
		failures = append(failures, foley.Failure{Path: path, Reason: err.Error(), At: time.Now().UTC()})
	}
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return filepath.SkipAll
		}
		if err != nil {
			fail(path, err)
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if path != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if (libFile != "" && strings.HasPrefix(path, libFile)) || d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err == nil && info.Mode()&fs.ModeSymlink != 0 {
			info, err = os.Stat(path) // a link to a file counts as the file; links to folders are not followed
		}
		if err != nil {
			fail(path, err)
			return nil
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		j := job{path: path, size: info.Size(), mtime: info.ModTime().UnixNano()}
		j.rel, _ = filepath.Rel(root, path)
		j.rel = filepath.ToSlash(j.rel)
		if p, ok := prior[path]; ok {
			j.prior = &p
		}
		// A file already in the library is audio; anything else is
		// sniffed. Files that are not audio are not failures.
		if j.prior == nil {
			if _, err := audio.SniffFile(path); err != nil {
				var pe *fs.PathError
				if errors.As(err, &pe) {
					fail(path, err)
				}
				return nil
			}
		}
		jobs = append(jobs, j)
		return nil
	})
	return jobs, failures
}

// builder turns files into records. It is shared by the workers.
type builder struct {
	root          string
	folderLicence *foley.License
	trust         bool
	reembed       bool
	emb           foley.Embedder

	mu        sync.Mutex
	manifests map[string]*manifest // by folder; nil when the folder has none
}

func (b *builder) manifestFor(dir string) *manifest {
	b.mu.Lock()
	defer b.mu.Unlock()
	m, ok := b.manifests[dir]
	if !ok {
		m = loadManifest(dir)
		b.manifests[dir] = m
	}
	return m
}

// outside gathers the metadata from outside the file: its sidecar, then its
// folder's manifest row. The signature identifies them.
func (b *builder) outside(j job) (*fields, string, error) {
	side, sideRaw, err := readSidecar(j.path)
	if err != nil {
		return nil, "", err
	}
	var row *fields
	var rowRaw []byte
	if m := b.manifestFor(filepath.Dir(j.path)); m != nil {
		if m.err != nil {
			return nil, "", m.err
		}
		key := filepath.ToSlash(filepath.Base(j.path))
		row, rowRaw = m.rows[key], m.raw[key]
	}
	f := &fields{}
	f.merge(side)
	f.merge(row)
	folder := ""
	if b.folderLicence != nil {
		folder = b.folderLicence.LicenseID
	}
	trust := "0"
	if b.trust {
		trust = "1"
	}
	return f, signature([]byte(recipeVersion), sideRaw, rowRaw, []byte(folder), []byte(trust), []byte(b.emb.Model())), nil
}

// recipeVersion changes when the way records are built changes, so that
// every file is read again.
const recipeVersion = "ingest-1"

func (b *builder) process(ctx context.Context, j job) result {
	r := result{job: j}
	if err := ctx.Err(); err != nil {
		r.err = err
		return r
	}
	meta, sig, err := b.outside(j)
	if err != nil {
		r.err = err
		return r
	}
	if p := j.prior; p != nil && !b.reembed && p.Size == j.size && p.MtimeNS == j.mtime && p.MetaSHA256 == sig {
		r.outcome = Unchanged
		return r
	}
	rep, err := audio.Probe(j.path, audio.DefaultQC(), 0)
	if err != nil {
		r.err = err
		return r
	}
	if p := j.prior; p != nil && !b.reembed && p.SHA256 == rep.FileSHA256 && p.MetaSHA256 == sig {
		r.outcome = Unchanged // touched, not changed
		r.touch = &foley.FileState{Path: j.path, Size: j.size, MtimeNS: j.mtime}
		return r
	}
	rec := b.record(j, rep, meta)
	var vec []float32
	if b.emb.AudioCapable() {
		vs, err := b.emb.EmbedAudio(ctx, []string{j.path})
		if err != nil {
			r.err = fmt.Errorf("embedding: %w", err)
			return r
		}
		vec = vs[0]
	} else {
		vs, err := b.emb.EmbedText(ctx, []string{embed.RecordText(rec)})
		if err != nil {
			r.err = fmt.Errorf("embedding: %w", err)
			return r
		}
		vec = vs[0]
	}
	rec.EmbeddingModel = b.emb.Model()
	r.entry = &foley.Entry{Record: rec, Vector: vec,
		File: &foley.FileState{ID: rec.ID, Path: j.path, Size: j.size, MtimeNS: j.mtime, SHA256: rep.FileSHA256, MetaSHA256: sig}}
	r.outcome = Added
	if j.prior != nil {
		r.outcome = Updated
	}
	return r
}

// record builds the record of a file. Each field comes from the first
// source that has it: the sidecar, the folder manifest, the file's own
// tags, its UCS name, and its folder and file names.
func (b *builder) record(j job, rep audio.Report, meta *fields) foley.SoundRecord {
	stem := strings.TrimSuffix(filepath.Base(j.path), filepath.Ext(j.path))
	ucs, isUCS := ParseUCSName(stem)
	fm := rep.Metadata
	r := foley.SoundRecord{
		ID:            meta.ID,
		ContentSHA256: rep.FileSHA256,
		URI:           j.path,
		Caption:       first(meta.Caption, fm.Description, fm.Title, fm.Comment),
		Tags:          meta.Tags,
		UCSCategory:   meta.UCSCategory,
		DurationS:     rep.Facts.Duration,
		SampleRate:    rep.Info.SampleRate,
		Channels:      rep.Info.Channels,
		Format:        string(rep.Info.Format),
	}
	if r.ID == "" {
		sum := sha256.Sum256([]byte(j.path))
		r.ID = "f" + hex.EncodeToString(sum[:8])
	}
	if len(r.Tags) == 0 && fm.Keywords != "" {
		r.Tags = cleanTags(strings.FieldsFunc(fm.Keywords, func(c rune) bool { return c == ',' || c == ';' }))
	}
	if isUCS {
		if r.Caption == "" {
			r.Caption = ucs.FXName
		}
		if r.UCSCategory == "" {
			r.UCSCategory = ucs.CatID
		}
		if len(r.Tags) == 0 {
			r.Tags = cleanTags(append(strings.Fields(strings.ToLower(ucs.Category+" "+ucs.SubCategory)), lowerWords(ucs.FXName)...))
		}
	}
	if r.Caption == "" {
		r.Caption = strings.Join(foley.SplitWords(stem), " ")
	}
	if len(r.Tags) == 0 {
		r.Tags = pathTags(j.rel)
	}
	r.License = b.licence(meta, fm)
	return r
}

// licence picks the record's licence: the sidecar's or manifest's (verified
// unless they say otherwise), then the file's own tags, then the folder
// licence. The first that resolves to a known licence wins; when none does,
// the first one given is kept as it is (and the gate will drop it).
//
// A licence in the file's own tags counts as verified with TrustMetadata,
// or when the user vouched for the folder with a folder licence: the file's
// licence is the more specific statement (a CC-BY tag keeps its duty of
// credit under --license user-owned).
func (b *builder) licence(meta *fields, fm audio.Metadata) foley.License {
	var cands []foley.License
	if meta.License != nil {
		l := *meta.License
		if !meta.rightsSet {
			l.RightsVerified = true
		}
		cands = append(cands, l)
	}
	for _, text := range []string{fm.License, fm.Copyright} {
		if text == "" {
			continue
		}
		l := foley.License{LicenseID: text, Creator: fm.Artist, Title: fm.Title, Source: "file metadata", RightsVerified: b.trust || b.folderLicence != nil}
		if license.IsCreativeCommonsURL(text) {
			l.LicenseID, l.LicenseURL = "", text
		}
		cands = append(cands, l)
	}
	if b.folderLicence != nil {
		l := *b.folderLicence
		l.Creator = first(l.Creator, fm.Artist)
		cands = append(cands, l)
	}
	for _, l := range cands {
		if _, ok := license.ResolveRecord(l); ok {
			return l
		}
	}
	if len(cands) > 0 {
		l := cands[0]
		l.RightsVerified = false
		return l
	}
	return foley.License{LicenseID: license.Unknown, Creator: fm.Artist}
}

func first(s ...string) string {
	for _, v := range s {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

func lowerWords(s string) []string { return strings.Fields(strings.ToLower(s)) }

// pathTags are the words of a file's folders and name, lower-cased, without
// numbers.
func pathTags(rel string) []string {
	rel = strings.TrimSuffix(rel, filepath.Ext(rel))
	var words []string
	for _, part := range strings.Split(rel, "/") {
		for _, w := range foley.SplitWords(part) {
			if strings.Trim(w, "0123456789") != "" {
				words = append(words, strings.ToLower(w))
			}
		}
	}
	return cleanTags(words)
}

// writer stores results in batches, records failures and counts the
// outcomes in the summary.
type writer struct {
	ctx     context.Context
	lib     Target
	sum     *Summary
	batch   []foley.Entry
	pending []pending       // what each entry of batch is
	stored  map[string]bool // the ids of the records this run stored
	err     error
}

// pending is a file whose record waits in the batch.
type pending struct {
	path    string
	outcome Outcome // Added or Updated
	// replaces is the id of the file's record before, when the new
	// record has another (the sidecar gave the file a new id).
	replaces string
}

const batchSize = 64

// success handles a file that was read: its new size and time are
// recorded, or its record joins the batch.
func (w *writer) success(r result) {
	if w.err != nil {
		return
	}
	if r.touch != nil {
		if w.err = w.lib.TouchFile(w.ctx, r.touch.Path, r.touch.Size, r.touch.MtimeNS); w.err != nil {
			return
		}
	}
	if r.entry == nil {
		w.count(r.outcome)
		return
	}
	p := pending{path: r.job.path, outcome: r.outcome}
	if prior := r.job.prior; prior != nil && prior.ID != r.entry.Record.ID {
		p.replaces = prior.ID
	}
	w.batch = append(w.batch, *r.entry)
	w.pending = append(w.pending, p)
	if len(w.batch) >= batchSize {
		w.err = w.flush()
	}
}

func (w *writer) count(o Outcome) {
	switch o {
	case Added:
		w.sum.Added++
	case Updated:
		w.sum.Updated++
	case Unchanged:
		w.sum.Unchanged++
	}
}

// fail counts a failed file and records why.
func (w *writer) fail(path, reason string) {
	w.sum.Failed++
	w.sum.Failures = append(w.sum.Failures, foley.Failure{Path: path, Reason: reason, At: time.Now().UTC()})
	w.failure(path, reason)
}

// failure records (reason != "") or clears the failure of a file.
func (w *writer) failure(path, reason string) {
	if w.err == nil {
		w.err = w.lib.SetFailure(w.ctx, path, reason)
	}
}

// flush stores the batch. Records the library refuses one by one (a
// *foley.PartialError) make their files failures; the others are counted,
// their files' failures cleared, and the records they replace deleted.
func (w *writer) flush() error {
	if w.err != nil {
		return w.err
	}
	if len(w.batch) == 0 {
		return nil
	}
	refused := map[int]string{}
	if err := w.lib.Put(w.ctx, w.batch); err != nil {
		var pe *foley.PartialError
		if !errors.As(err, &pe) {
			return err
		}
		for _, f := range pe.Failed {
			i := f.Index
			if i < 0 || i >= len(w.batch) || w.batch[i].Record.ID != f.ID {
				i = slices.IndexFunc(w.batch, func(e foley.Entry) bool { return e.Record.ID == f.ID })
			}
			if i >= 0 {
				refused[i] = f.Reason
			}
		}
		if len(refused) == 0 {
			return err // it names none of the batch
		}
	}
	var gone []string
	for i, p := range w.pending {
		if reason, ok := refused[i]; ok {
			w.fail(p.path, "the library refused its record: "+reason)
			continue
		}
		w.stored[w.batch[i].Record.ID] = true
		w.failure(p.path, "")
		w.count(p.outcome)
	}
	for i, p := range w.pending {
		if _, ok := refused[i]; !ok && p.replaces != "" {
			gone = append(gone, p.replaces)
		}
	}
	if w.err != nil {
		return w.err
	}
	// Delete a replaced record only when this run did not store another
	// under its id (two files that swapped ids).
	gone = slices.DeleteFunc(gone, func(id string) bool { return w.stored[id] })
	if err := w.lib.Delete(w.ctx, gone...); err != nil {
		return err
	}
	clear(w.batch)
	w.batch, w.pending = w.batch[:0], w.pending[:0]
	return nil
}
