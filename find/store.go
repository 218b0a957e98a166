package find

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/audio"
	"github.com/foley-audio/foley/embed"
	"github.com/foley-audio/foley/license"
)

// LibraryStore keeps generated clips by value: the audio is written under
// Dir (content-addressed, so the same clip is stored once) and a record
// with its generation facts (is_ai_generated, generator, prompt, seed,
// licence) is added to Lib, embedded by Emb, so later searches find it.
type LibraryStore struct {
	Lib foley.Library
	Emb foley.Embedder
	Dir string // e.g. the library's directory + "/generated"
}

// AddGenerated implements ClipStore.
func (s LibraryStore) AddGenerated(ctx context.Context, clip foley.GeneratedClip, event foley.SoundEvent) (foley.SoundRecord, error) {
	if len(clip.Audio) == 0 {
		return foley.SoundRecord{}, foley.Errorf(foley.Unavailable, "the generator returned no audio")
	}
	ext := strings.ToLower(clip.Format)
	switch ext {
	case "mp3", "wav", "flac", "ogg":
	default:
		return foley.SoundRecord{}, foley.Errorf(foley.Unavailable, "the generator returned audio in format %q (want mp3, wav, flac or ogg)", clip.Format)
	}
	sum := sha256.Sum256(clip.Audio)
	hash := hex.EncodeToString(sum[:])
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return foley.SoundRecord{}, err
	}
	path := filepath.Join(s.Dir, "gen-"+hash[:16]+"."+ext)
	if err := writeFileAtomic(path, clip.Audio); err != nil {
		return foley.SoundRecord{}, err
	}
	rep, err := audio.Probe(path, audio.DefaultQC(), 0)
	if err != nil {
		os.Remove(path)
		return foley.SoundRecord{}, foley.Errorf(foley.Unavailable, "the generated clip does not decode: %v", err)
	}
	lic := clip.License
	lic.IsAIGenerated = true
	if lic.Generator == "" {
		lic.Generator = clip.Generator
	}
	if lic.GenerationPrompt == "" {
		lic.GenerationPrompt = clip.Prompt
	}
	if lic.GenerationSeed == nil {
		lic.GenerationSeed = clip.Seed
	}
	rec := foley.SoundRecord{
		ID:            "gen-" + hash[:16],
		ContentSHA256: hash,
		URI:           path,
		Caption:       clip.Prompt,
		Tags:          append(foley.SplitWords(event.Query), "generated"),
		UCSCategory:   event.UCSCatID,
		DurationS:     rep.Facts.Duration,
		SampleRate:    rep.Info.SampleRate,
		Channels:      rep.Info.Channels,
		Format:        ext,
		License:       license.Normalize(lic),
	}
	if s.Emb != nil {
		v, err := s.Emb.EmbedText(ctx, []string{embed.RecordText(rec)})
		if err != nil {
			return foley.SoundRecord{}, err
		}
		rec.EmbeddingModel = s.Emb.Model()
		if err := s.Lib.Upsert(ctx, []foley.SoundRecord{rec}, v); err != nil {
			return foley.SoundRecord{}, err
		}
	} else if err := s.Lib.Upsert(ctx, []foley.SoundRecord{rec}, nil); err != nil {
		return foley.SoundRecord{}, err
	}
	return rec, nil
}

// writeFileAtomic writes b to path through a temporary file and a rename,
// so a reader never sees half a file.
func writeFileAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".gen-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("storing %s: %w", path, err)
	}
	return nil
}
