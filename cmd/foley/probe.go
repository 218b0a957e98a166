package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/audio"
	"github.com/spf13/cobra"
)

func newProbeCmd(s streams) *cobra.Command {
	var (
		asJSON  bool
		peaks   int
		minDur  float64
		silence float64
	)
	cmd := &cobra.Command{
		Use:   "probe FILE...",
		Short: "Decode sound files and report their format, levels, loudness, quality flags and metadata",
		Long: `probe reads each file (WAV, RF64, FLAC, MP3 or Ogg Vorbis; the format comes
from the content, not the name) and reports its format, sample rate, channels,
bit depth, duration, sample peak, RMS, integrated loudness (ITU-R BS.1770-4 /
EBU R128), quality flags (silent, clipped, too_short, dc_offset, truncated),
the SHA-256 of its bytes and of its decoded PCM, and the metadata it carries
(WAV bext and LIST/INFO, ID3, Vorbis comments).

Files are measured in one streaming pass; a long file is never held in memory.
A file that cannot be read is reported with the reason and the others still
print; the exit status is then 1.`,
		Example: `  foley probe door_slam.wav rain.flac
  foley probe --json library/*.ogg > facts.json
  foley probe --peaks 200 --json clip.mp3      # waveform min/max for drawing
  foley probe --min-duration 0.5 --silence -50 *.wav`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("probe: want at least one FILE (see 'foley probe --help')")
			}
			return nil
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if peaks < 0 || peaks > 100000 {
				return usageError("--peaks must be between 0 and 100000, got %d", peaks)
			}
			if minDur < 0 {
				return usageError("--min-duration must be >= 0, got %g", minDur)
			}
			qc := audio.DefaultQC()
			qc.MinDuration, qc.SilenceDBFS = minDur, silence
			reports := probeAll(args, qc, peaks, newProgress(s.err, len(args), "probing"))
			failed := 0
			for _, r := range reports {
				if r.Error != "" {
					failed++
					fmt.Fprintf(s.err, "foley: %s\n", r.Error)
				}
			}
			var err error
			if asJSON {
				err = writeJSON(s.out, reports)
			} else {
				err = printProbeTable(s.out, reports)
			}
			if err != nil {
				return err
			}
			if failed > 0 {
				return foley.Errorf(foley.Internal, "probe: %d of %d files could not be read", failed, len(reports))
			}
			return nil
		}),
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print a JSON array of reports (info, facts, metadata, hashes)")
	f.IntVar(&peaks, "peaks", 0, "also compute N waveform buckets (min/max) for drawing; JSON only")
	f.Float64Var(&minDur, "min-duration", audio.DefaultQC().MinDuration, "flag files shorter than this many seconds as too_short")
	f.Float64Var(&silence, "silence", audio.DefaultQC().SilenceDBFS, "flag files whose peak is below this dBFS as silent")
	return cmd
}

// probeAll probes files on all cores and returns the reports in the order of
// the files.
func probeAll(paths []string, qc audio.QC, peaks int, bar *progress) []audio.Report {
	reports := make([]audio.Report, len(paths))
	work := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range min(runtime.GOMAXPROCS(0), len(paths)) {
		wg.Go(func() {
			for i := range work {
				reports[i], _ = audio.Probe(paths[i], qc, peaks)
				mu.Lock()
				bar.add(1)
				mu.Unlock()
			}
		})
	}
	for i := range paths {
		work <- i
	}
	close(work)
	wg.Wait()
	bar.done()
	return reports
}

func printProbeTable(w io.Writer, reports []audio.Report) error {
	t := newTable(w, "FILE", "FORMAT", "RATE", "CH", "BITS", "DURATION", "PEAK", "RMS", "LOUDNESS", "QC")
	for _, r := range reports {
		if r.Info.Format == "" {
			t.row(r.Path, "error", "", "", "", "", "", "", "", r.Error)
			continue
		}
		i, f := r.Info, r.Facts
		bits := "-"
		if i.BitDepth > 0 {
			bits = fmt.Sprint(i.BitDepth)
		}
		var qc []string
		for _, fl := range f.QC {
			qc = append(qc, fl.Code)
		}
		if r.Error != "" {
			qc = append(qc, "error")
		}
		if len(qc) == 0 {
			qc = []string{"ok"}
		}
		t.row(r.Path, i.Format.String()+"/"+i.Codec, fmt.Sprintf("%d Hz", i.SampleRate), fmt.Sprint(i.Channels), bits,
			fmt.Sprintf("%.3f s", f.Duration), dbfs(f.PeakDBFS, "dBFS"), dbfs(f.RMSDBFS, "dBFS"), loudness(f.LoudnessLUFS), strings.Join(qc, ","))
	}
	if err := t.flush(); err != nil {
		return err
	}
	// Reasons and metadata below the table, file by file.
	for _, r := range reports {
		var lines []string
		for _, fl := range r.Facts.QC {
			lines = append(lines, fmt.Sprintf("  %s: %s", fl.Code, fl.Reason))
		}
		for _, tag := range r.Metadata.Tags {
			lines = append(lines, fmt.Sprintf("  %s = %s", tag.Key, oneLine(tag.Value, 100)))
		}
		if len(lines) > 0 {
			fmt.Fprintf(w, "\n%s\n%s\n", r.Path, strings.Join(lines, "\n"))
		}
	}
	return nil
}

func dbfs(v *float64, unit string) string {
	if v == nil {
		return "-inf"
	}
	return fmt.Sprintf("%.1f %s", *v, unit)
}

// loudness shows integrated loudness; "-" when there is none (a clip
// shorter than one 400 ms block, or below the -70 LUFS gate).
func loudness(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f LUFS", *v)
}

// oneLine flattens a value to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
