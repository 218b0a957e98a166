package main

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress is a progress bar on stderr when stderr is a terminal (count,
// files/s, elapsed time and ETA), and nothing otherwise, so that scripts and
// logs see no bar.
type progress struct {
	bar *progressbar.ProgressBar
}

func newProgress(w io.Writer, total int, what string) *progress {
	return newProgressOf(w, total, what, "files")
}

// newProgressOf is newProgress counting units other than files.
func newProgressOf(w io.Writer, total int, what, units string) *progress {
	f, ok := w.(*os.File)
	if !ok || total < 2 || !term.IsTerminal(int(f.Fd())) {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(units),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true), // the ETA
		progressbar.OptionClearOnFinish(),
	)}
}

func (p *progress) add(n int) {
	if p.bar != nil {
		p.bar.Add(n)
	}
}

func (p *progress) done() {
	if p.bar != nil {
		p.bar.Finish()
	}
}
