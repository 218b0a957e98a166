package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/anthropic"
	"github.com/foley-audio/foley/openai"
	"github.com/foley-audio/foley/verify"
	"github.com/spf13/cobra"
)

// rungJudge is the judge a rung resolved to, and why.
type rungJudge struct {
	Level  foley.VerifyLevel
	Judge  foley.Judge
	Source string // what configured it: an environment variable, or "built in"
	Model  bool   // a model judge (not deterministic)
}

// resolvedJudges holds the judge of each rung above clap.
type resolvedJudges struct {
	Listen, Judge rungJudge
}

// resolveJudges picks each rung's judge from the environment:
//
//	listen: the audio LM at FOLEY_AUDIOLM_URL, else string-overlap
//	judge:  Claude when ANTHROPIC_API_KEY is set, else the LLM at
//	        FOLEY_LLM_URL, else string-overlap
//
// A variable set to a bad value is an Invalid error naming it.
func resolveJudges() (resolvedJudges, error) {
	overlap := verify.StringOverlapJudge{Threshold: verify.DefaultOverlapThreshold}
	r := resolvedJudges{
		Listen: rungJudge{Level: foley.LevelListen, Judge: overlap, Source: "built in (set FOLEY_AUDIOLM_URL for an audio LM)"},
		Judge:  rungJudge{Level: foley.LevelJudge, Judge: overlap, Source: "built in (set ANTHROPIC_API_KEY or FOLEY_LLM_URL for an LLM)"},
	}
	alm, err := openai.AudioLMFromEnv()
	if err != nil {
		return r, err
	}
	if alm != nil {
		r.Listen = rungJudge{Level: foley.LevelListen, Judge: alm, Model: true, Source: "FOLEY_AUDIOLM_URL=" + os.Getenv("FOLEY_AUDIOLM_URL")}
	}
	claude, err := anthropic.FromEnv()
	if err != nil {
		return r, err
	}
	llm, err := openai.LLMFromEnv()
	if err != nil {
		return r, err
	}
	switch {
	case claude != nil:
		r.Judge = rungJudge{Level: foley.LevelJudge, Judge: claude, Model: true, Source: "ANTHROPIC_API_KEY"}
	case llm != nil:
		r.Judge = rungJudge{Level: foley.LevelJudge, Judge: llm, Model: true, Source: "FOLEY_LLM_URL=" + os.Getenv("FOLEY_LLM_URL")}
	}
	return r, nil
}

// rung returns the resolution for level (listen or judge).
func (r resolvedJudges) rung(level foley.VerifyLevel) rungJudge {
	if level == foley.LevelJudge {
		return r.Judge
	}
	return r.Listen
}

// judgesRow is one line of foley judges.
type judgesRow struct {
	Rung       string `json:"rung"`
	Judge      string `json:"judge"`
	Identity   string `json:"identity,omitempty"`
	Model      bool   `json:"model"` // false: a deterministic judge, no network
	Source     string `json:"configured_by"`
	Status     string `json:"status"` // ok, failed, built in, not checked
	Error      string `json:"error,omitempty"`
	ResponseMS *int64 `json:"response_ms,omitempty"`
}

func newJudgesCmd(s streams) *cobra.Command {
	var (
		asJSON  bool
		noCheck bool
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "judges",
		Short: "Show which judge answers at each rung, and check that configured model servers answer",
		Long: `judges prints, for each rung of the ladder, the judge that foley verify will use
and what configured it, and asks each configured model server whether it
answers (a cheap request that costs no tokens: the list of models, or the
model's description).

  clap    always the clap judge: clap_score against --tau-clap, no model
  listen  the audio LM at FOLEY_AUDIOLM_URL (FOLEY_AUDIOLM_MODEL, default
          Qwen/Qwen2-Audio-7B-Instruct); otherwise string-overlap
  judge   Claude when ANTHROPIC_API_KEY is set (FOLEY_JUDGE_MODEL, default
          claude-opus-4-8); else the LLM at FOLEY_LLM_URL (FOLEY_LLM_MODEL);
          otherwise string-overlap

string-overlap compares the query with a clip's caption and tags: it never
hears the clip. The exit status is 1 when a configured server does not answer.`,
		Example: `  foley judges
  FOLEY_AUDIOLM_URL=http://gpu:8000/v1 foley judges --json
  foley judges --no-check`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if timeout <= 0 {
				return usageError("--timeout must be positive, got %v", timeout)
			}
			rj, err := resolveJudges()
			if err != nil {
				return err
			}
			rows := []judgesRow{{Rung: "clap", Judge: "clap", Source: "built in", Status: "built in"}}
			failed := 0
			checks := []rungJudge{rj.Listen, rj.Judge}
			rows = append(rows, make([]judgesRow, len(checks))...)
			var wg sync.WaitGroup
			for i, r := range checks {
				row := &rows[i+1]
				*row = judgesRow{Rung: r.Level.String(), Judge: r.Judge.Name(), Model: r.Model, Source: r.Source, Status: "built in"}
				if ij, ok := r.Judge.(foley.IdentifiedJudge); ok {
					row.Identity = ij.Identity()
				}
				cj, ok := r.Judge.(foley.CheckableJudge)
				if !ok {
					continue
				}
				if noCheck {
					row.Status = "not checked"
					continue
				}
				wg.Go(func() {
					ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
					defer cancel()
					start := time.Now()
					err := cj.Check(ctx)
					ms := time.Since(start).Milliseconds()
					row.ResponseMS = &ms
					if err != nil {
						row.Status, row.Error = "failed", err.Error()
						return
					}
					row.Status = "ok"
				})
			}
			wg.Wait()
			for _, r := range rows {
				if r.Status == "failed" {
					failed++
				}
			}
			if asJSON {
				err = writeJSON(s.out, rows)
			} else {
				err = printJudges(s.out, rows)
			}
			if err != nil {
				return err
			}
			if failed > 0 {
				return foley.Errorf(foley.Unavailable, "judges: %d configured model server(s) did not answer (see the status column)", failed)
			}
			return nil
		}),
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print a JSON array of {rung, judge, identity, model, configured_by, status, error, response_ms}")
	f.BoolVar(&noCheck, "no-check", false, "do not contact the configured servers; only show the resolution")
	f.DurationVar(&timeout, "timeout", 10*time.Second, "how long each server may take to answer the check, e.g. 3s")
	return cmd
}

func printJudges(w interface{ Write([]byte) (int, error) }, rows []judgesRow) error {
	t := newTable(w, "RUNG", "JUDGE", "CONFIGURED BY", "STATUS")
	for _, r := range rows {
		status := r.Status
		if r.Error != "" {
			status += ": " + r.Error
		} else if r.ResponseMS != nil {
			status += fmt.Sprintf(" (%d ms)", *r.ResponseMS)
		}
		judge := r.Judge
		if !r.Model && r.Rung != "clap" {
			judge += " (text only, does not hear the clip)"
		}
		t.row(r.Rung, judge, strings.TrimSpace(r.Source), status)
	}
	return t.flush()
}
