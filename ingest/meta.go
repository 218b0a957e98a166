package ingest

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/foley-audio/foley"
)

// fields is metadata from outside the audio file (a sidecar or a manifest
// row). nil and empty mean "not given".
type fields struct {
	ID          string
	Caption     string
	Tags        []string
	UCSCategory string
	License     *foley.License // as given; RightsVerified counts only when rightsSet
	rightsSet   bool
}

// merge fills what f lacks from g.
func (f *fields) merge(g *fields) {
	if g == nil {
		return
	}
	if f.ID == "" {
		f.ID = g.ID
	}
	if f.Caption == "" {
		f.Caption = g.Caption
	}
	if len(f.Tags) == 0 {
		f.Tags = g.Tags
	}
	if f.UCSCategory == "" {
		f.UCSCategory = g.UCSCategory
	}
	if f.License == nil {
		f.License, f.rightsSet = g.License, g.rightsSet
	}
}

// sidecarJSON is a sidecar or manifest entry: the record's shape, where
// "license" may also be a plain licence id, URL or label, and a manifest
// entry's licence fields may sit at the top level.
type sidecarJSON struct {
	File           string          `json:"file"`
	ID             string          `json:"id"`
	Caption        string          `json:"caption"`
	Tags           []string        `json:"tags"`
	UCSCategory    string          `json:"ucs_category"`
	License        json.RawMessage `json:"license"`
	LicenseID      string          `json:"license_id"`
	LicenseURL     string          `json:"license_url"`
	Creator        string          `json:"creator"`
	Title          string          `json:"title"`
	Attribution    string          `json:"attribution"`
	Source         string          `json:"source"`
	SourceID       string          `json:"source_id"`
	SourceURL      string          `json:"source_url"`
	RightsVerified *bool           `json:"rights_verified"`
}

func (s sidecarJSON) fields() (*fields, error) {
	f := &fields{ID: s.ID, Caption: strings.TrimSpace(s.Caption), Tags: cleanTags(s.Tags), UCSCategory: s.UCSCategory}
	var lic foley.License
	given := false
	if len(s.License) > 0 && string(s.License) != "null" {
		var str string
		if err := json.Unmarshal(s.License, &str); err == nil {
			lic.LicenseID, given = str, true
		} else {
			if err := json.Unmarshal(s.License, &lic); err != nil {
				return nil, fmt.Errorf("field license: %w", err)
			}
			var raw map[string]json.RawMessage
			json.Unmarshal(s.License, &raw)
			if _, ok := raw["rights_verified"]; ok {
				f.rightsSet = true
			}
			given = true
		}
	}
	for dst, v := range map[*string]string{&lic.LicenseID: s.LicenseID, &lic.LicenseURL: s.LicenseURL, &lic.Creator: s.Creator,
		&lic.Title: s.Title, &lic.Attribution: s.Attribution, &lic.Source: s.Source, &lic.SourceID: s.SourceID, &lic.SourceURL: s.SourceURL} {
		if v != "" && *dst == "" {
			*dst, given = v, true
		}
	}
	if s.RightsVerified != nil {
		lic.RightsVerified, f.rightsSet, given = *s.RightsVerified, true, true
	}
	if given {
		f.License = &lic
	}
	return f, nil
}

func cleanTags(tags []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if t != "" && !seen[strings.ToLower(t)] {
			seen[strings.ToLower(t)] = true
			out = append(out, t)
		}
	}
	return out
}

// readSidecar reads NAME.json or NAME.EXT.json beside an audio file. It
// returns the bytes too, for the metadata signature.
func readSidecar(audioPath string) (*fields, []byte, error) {
	stem := strings.TrimSuffix(audioPath, filepath.Ext(audioPath))
	for _, p := range []string{audioPath + ".json", stem + ".json"} {
		data, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		var s sidecarJSON
		dec := json.NewDecoder(bytes.NewReader(data))
		if err := dec.Decode(&s); err != nil {
			return nil, nil, fmt.Errorf("sidecar %s: %w", filepath.Base(p), err)
		}
		f, err := s.fields()
		if err != nil {
			return nil, nil, fmt.Errorf("sidecar %s: %w", filepath.Base(p), err)
		}
		return f, data, nil
	}
	return nil, nil, nil
}

// manifest is a folder's manifest.json or metadata.csv: rows by file path
// relative to the folder.
type manifest struct {
	rows map[string]*fields
	raw  map[string][]byte // each row's bytes, for the signature
	err  error             // a manifest that does not parse fails every file it covers
	name string
}

// loadManifest reads dir/manifest.json or dir/metadata.csv; nil when the
// folder has neither.
func loadManifest(dir string) *manifest {
	for _, name := range []string{"manifest.json", "metadata.csv"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		m := &manifest{rows: map[string]*fields{}, raw: map[string][]byte{}, name: name}
		if err == nil {
			if name == "manifest.json" {
				err = m.parseJSON(data)
			} else {
				err = m.parseCSV(data)
			}
		}
		if err != nil {
			m.err = fmt.Errorf("%s: %w", name, err)
		}
		return m
	}
	return nil
}

func (m *manifest) parseJSON(data []byte) error {
	var entries []json.RawMessage
	if err := json.Unmarshal(data, &entries); err != nil {
		var wrapped struct {
			Files []json.RawMessage `json:"files"`
		}
		if err2 := json.Unmarshal(data, &wrapped); err2 != nil || wrapped.Files == nil {
			return fmt.Errorf("want a JSON array of entries or {\"files\": [...]}: %w", err)
		}
		entries = wrapped.Files
	}
	for i, raw := range entries {
		var s sidecarJSON
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("entry %d: %w", i+1, err)
		}
		if s.File == "" {
			return fmt.Errorf("entry %d has no \"file\"", i+1)
		}
		f, err := s.fields()
		if err != nil {
			return fmt.Errorf("entry %d: %w", i+1, err)
		}
		key := filepath.ToSlash(filepath.Clean(s.File))
		m.rows[key], m.raw[key] = f, raw
	}
	return nil
}

// parseCSV reads a header row naming columns (file is required; caption,
// tags, license, license_url, creator, title, attribution, source,
// source_id, source_url, ucs_category, rights_verified are read), then one
// row per file. Tags are separated by ';' or ','.
func (m *manifest) parseCSV(data []byte) error {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err != nil {
		return fmt.Errorf("reading the header: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	if _, ok := col["file"]; !ok {
		return errors.New(`the header has no "file" column`)
	}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		get := func(name string) string {
			if i, ok := col[name]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		s := sidecarJSON{File: get("file"), Caption: get("caption"), UCSCategory: get("ucs_category"),
			LicenseID: get("license"), LicenseURL: get("license_url"), Creator: get("creator"), Title: get("title"),
			Attribution: get("attribution"), Source: get("source"), SourceID: get("source_id"), SourceURL: get("source_url")}
		if s.LicenseID == "" {
			s.LicenseID = get("license_id")
		}
		if t := get("tags"); t != "" {
			s.Tags = strings.FieldsFunc(t, func(r rune) bool { return r == ';' || r == ',' })
		}
		if v := get("rights_verified"); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("line %d: rights_verified %q is not true or false", line, v)
			}
			s.RightsVerified = &b
		}
		if s.File == "" {
			return fmt.Errorf("line %d has no file", line)
		}
		f, _ := s.fields()
		key := filepath.ToSlash(filepath.Clean(s.File))
		m.rows[key] = f
		m.raw[key] = []byte(strings.Join(rec, "\x1f"))
	}
}

// signature hashes the outside metadata a record is built from.
func signature(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}
