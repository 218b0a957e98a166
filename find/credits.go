package find

import (
	"fmt"
	"strings"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/license"
	"github.com/foley-audio/foley/policy"
)

// Credit is the attribution of one clip used in a find run.
type Credit struct {
	ClipID              string `json:"clip_id"`
	Events              string `json:"events"` // the queries it was chosen for
	Title               string `json:"title"`
	Creator             string `json:"creator"`
	Source              string `json:"source,omitempty"`
	SourceURL           string `json:"source_url,omitempty"`
	LicenseID           string `json:"license_id"`
	LicenseName         string `json:"license_name"`
	LicenseURL          string `json:"license_url,omitempty"`
	AttributionRequired bool   `json:"attribution_required"`
	AIGenerated         bool   `json:"ai_generated,omitempty"`
	Line                string `json:"line"` // the credit line to print
}

// Credits returns a credit per clip chosen in results (each clip once, in
// the order first chosen), with a credit line: the source's own
// attribution text when it gave one, otherwise "Title" by Creator, the
// licence's name and URL; for a generated clip, the generator and prompt.
func Credits(results []Result) []Credit {
	var out []Credit
	at := map[string]int{}
	for _, r := range results {
		if r.Action != policy.Use || r.Chosen == nil {
			continue
		}
		s := r.Chosen.Sound
		if i, ok := at[s.ID]; ok {
			out[i].Events += "; " + r.Event.Query
			continue
		}
		at[s.ID] = len(out)
		out = append(out, credit(s, r.Event.Query))
	}
	return out
}

func credit(s foley.SoundRecord, query string) Credit {
	l := license.Normalize(s.License)
	name, url := license.Deed(l.LicenseID, l.LicenseURL)
	c := Credit{ClipID: s.ID, Events: query, Title: firstNonEmpty(l.Title, s.Caption, s.ID), Creator: firstNonEmpty(l.Creator, "unknown creator"),
		Source: l.Source, SourceURL: l.SourceURL, LicenseID: l.LicenseID, LicenseName: name, LicenseURL: url,
		AttributionRequired: l.AttributionRequired, AIGenerated: l.IsAIGenerated}
	switch {
	case l.Attribution != "":
		c.Line = l.Attribution
	case l.IsAIGenerated:
		c.Line = fmt.Sprintf("%q, generated with %s from the prompt %q (%s)", c.Title, firstNonEmpty(l.Generator, "a sound generator"), l.GenerationPrompt, name)
	default:
		c.Line = fmt.Sprintf("%q by %s", c.Title, c.Creator)
		if l.SourceURL != "" {
			c.Line += " (" + l.SourceURL + ")"
		}
		c.Line += ", licensed under " + name
		if url != "" && !strings.Contains(name, url) {
			c.Line += " (" + url + ")"
		}
	}
	return c
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
