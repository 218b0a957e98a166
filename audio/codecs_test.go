package audio

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompressedFixtures(t *testing.T) {
	for _, tc := range []struct {
		file         string
		format       Format
		codec        string
		rate, ch     int
		bits         int
		title, extra string
	}{
		{"flac_s16.flac", FLAC, "flac", 48000, 2, 16, "Rain on a tin roof", "https://creativecommons.org/licenses/by/4.0/"},
		{"mp3_id3.mp3", MP3, "mp3", 44100, 1, 0, "Dog barks twice", "Medium dog, outdoors"},
		{"ogg_vorbis.ogg", Ogg, "vorbis", 48000, 2, 0, "Wind through trees", "CC0-1.0"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			d, err := Open(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			i, m := d.Info(), d.Metadata()
			if i.Format != tc.format || i.Codec != tc.codec || i.SampleRate != tc.rate || i.Channels != tc.ch || i.BitDepth != tc.bits {
				t.Errorf("info %+v", i)
			}
			if m.Title != tc.title || (m.License != tc.extra && m.Comment != tc.extra) {
				t.Errorf("metadata %+v", m)
			}
			f, err := Analyze(d, DefaultQC(), 0)
			if err != nil {
				t.Fatal(err)
			}
			// The fixtures are 0.1 s of a tone mix peaking near -3 dBFS.
			if f.Duration < 0.09 || f.Duration > 0.11 || f.PeakDBFS == nil || *f.PeakDBFS < -6 || *f.PeakDBFS > 0 {
				t.Errorf("facts: %.4f s, peak %v", f.Duration, f.PeakDBFS)
			}
		})
	}
}

func TestOpusIsNamed(t *testing.T) {
	_, err := Open("testdata/opus.ogg")
	if err == nil || !strings.Contains(err.Error(), "Opus") || !strings.Contains(err.Error(), "testdata/opus.ogg") {
		t.Errorf("Ogg Opus: %v", err)
	}
}

// TestFreedesktopSounds decodes every real Ogg file of Debian's
// sound-theme-freedesktop package.
func TestFreedesktopSounds(t *testing.T) {
	files, _ := filepath.Glob("/usr/share/sounds/freedesktop/stereo/*.oga")
	if len(files) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("sound-theme-freedesktop is missing; .ci/run should have installed it")
		}
		t.Skip("sound-theme-freedesktop is not installed (apt-get install sound-theme-freedesktop)")
	}
	for _, f := range files {
		r, err := Probe(f, DefaultQC(), 0)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if r.Info.Format != Ogg || r.Facts.Duration <= 0 || r.Facts.PeakDBFS == nil {
			t.Errorf("%s: %+v", f, r.Facts)
		}
	}
	t.Logf("decoded %d files", len(files))
}

// TestTruncatedCompressed cuts each compressed fixture in half: what is
// there decodes, then the truncation is reported.
func TestTruncatedCompressed(t *testing.T) {
	for _, file := range []string{"flac_s16.flac", "mp3_id3.mp3", "ogg_vorbis.ogg"} {
		data, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), file)
		os.WriteFile(path, data[:len(data)*9/10], 0o644) // past the headers of every fixture
		c, _, err := DecodeFile(path, 0)
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s cut short: error %v, want a truncation", file, err)
		}
		if c == nil || c.Frames() == 0 {
			t.Errorf("%s cut short: nothing decoded", file)
		}
		r, _ := Probe(path, DefaultQC(), 0)
		if r.Error != "" || !hasFlag(r.Facts, "truncated") {
			t.Errorf("%s cut short: probe error %q, flags %+v", file, r.Error, r.Facts.QC)
		}
	}
}
