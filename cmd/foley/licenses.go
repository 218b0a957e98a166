package main

import (
	"fmt"
	"io"

	"github.com/foley-audio/foley/license"
	"github.com/spf13/cobra"
)

// licenceRow is a row of the policy table as foley licenses prints it.
type licenceRow struct {
	Input               string  `json:"input,omitempty"` // what was resolved, when given
	ID                  string  `json:"license_id"`
	Known               bool    `json:"known"`
	Commercial          bool    `json:"commercial_ok"`
	Derivative          bool    `json:"derivative_ok"`
	Redistribute        bool    `json:"redistribute_ok"`
	Train               bool    `json:"train_ok"`
	AttributionRequired bool    `json:"attribution_required"`
	RevenueCapUSD       float64 `json:"revenue_cap_usd,omitempty"`
	Note                string  `json:"note"`
}

func newLicensesCmd(s streams) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "licenses [LICENCE...]",
		Short: "Show the licence policy table, or how given licence ids, URLs or labels resolve",
		Long: `licenses prints the table the licence gate decides by: what each licence id
permits. Given arguments (ids, Creative Commons URLs or labels as sources
report them), it shows the table row each resolves to; anything not recognised
exactly resolves to "unknown", which permits nothing.`,
		Example: `  foley licenses
  foley licenses http://creativecommons.org/publicdomain/zero/1.0/ "Attribution NonCommercial" Sampling+
  foley licenses --json`,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			var rows []licenceRow
			if len(args) == 0 {
				for _, p := range license.Table() {
					rows = append(rows, rowOf("", p, p.ID != license.Unknown))
				}
			}
			for _, a := range args {
				id, ok := license.Resolve(a)
				p, _ := license.Lookup(id)
				rows = append(rows, rowOf(a, p, ok))
			}
			if asJSON {
				return writeJSON(s.out, rows)
			}
			return printLicences(s.out, rows, len(args) > 0)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of table rows")
	return cmd
}

func rowOf(input string, p license.Policy, known bool) licenceRow {
	return licenceRow{Input: input, ID: p.ID, Known: known, Commercial: p.Commercial, Derivative: p.Derivative,
		Redistribute: p.Redistribute, Train: p.Train, AttributionRequired: p.AttributionRequired,
		RevenueCapUSD: p.RevenueCapUSD, Note: p.Note}
}

func printLicences(w io.Writer, rows []licenceRow, withInput bool) error {
	head := []string{"LICENCE", "COMMERCIAL", "PUBLISH", "REDISTRIBUTE", "TRAIN", "NEEDS CREDIT", "REVENUE CAP", "NOTE"}
	if withInput {
		head = append([]string{"INPUT"}, head...)
	}
	t := newTable(w, head...)
	for _, r := range rows {
		cap := "-"
		if r.RevenueCapUSD > 0 {
			cap = fmt.Sprintf("USD %.0f", r.RevenueCapUSD)
		}
		cells := []string{r.ID, yes(r.Commercial), yes(r.Derivative), yes(r.Redistribute), yes(r.Train), yes(r.AttributionRequired), cap, r.Note}
		if withInput {
			cells = append([]string{r.Input}, cells...)
		}
		t.row(cells...)
	}
	return t.flush()
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
