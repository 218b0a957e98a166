package license

import (
	"net/url"
	"regexp"
	"strings"
	"unicode"
)

// Resolve maps a licence as a source reports it to a table id: a table id
// ("CC-BY-4.0", any case), a Creative Commons URL
// ("http://creativecommons.org/publicdomain/zero/1.0/") or a label
// ("Creative Commons 0", "Attribution NonCommercial", "Sampling+",
// "Attribution-NonCommercial 4.0 International"). Anything it does not
// recognise exactly, and every ShareAlike and NoDerivatives variant, is
// Unknown with ok false.
func Resolve(s string) (id string, ok bool) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return Unknown, false
	case looksLikeURL(s):
		return resolveURL(s)
	}
	if p, ok := Lookup(s); ok {
		return p.ID, true
	}
	return resolveLabel(s)
}

func looksLikeURL(s string) bool {
	l := strings.ToLower(s)
	return strings.Contains(l, "://") || strings.HasPrefix(l, "//") ||
		strings.HasPrefix(l, "creativecommons.org/") || strings.HasPrefix(l, "www.creativecommons.org/")
}

// IsCreativeCommonsURL reports whether s is a URL on creativecommons.org.
func IsCreativeCommonsURL(s string) bool {
	_, segs, ok := ccPath(s)
	return ok && segs != nil
}

// ccPaths maps the path of a Creative Commons licence URL, after the trailing
// legalcode or deed segment is dropped, to its table id.
var ccPaths = map[string]string{
	"publicdomain/zero/1.0":  "CC0-1.0",
	"licenses/by/3.0":        "CC-BY-3.0",
	"licenses/by/4.0":        "CC-BY-4.0",
	"licenses/by-nc/3.0":     "CC-BY-NC-3.0",
	"licenses/by-nc/4.0":     "CC-BY-NC-4.0",
	"licenses/sampling+/1.0": "CC-Sampling+-1.0",
}

// ccPath parses a URL on creativecommons.org into its path segments. It
// normalises the scheme (http or https, or none), the case of the host, a
// leading www., a port, a query, a fragment and empty segments (so a
// trailing slash does not matter). ok is false for any other host.
func ccPath(s string) (u *url.URL, segs []string, ok bool) {
	s = strings.TrimSpace(s)
	switch l := strings.ToLower(s); {
	case strings.HasPrefix(l, "//"):
		s = "https:" + s
	case !strings.Contains(l, "://"):
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.User != nil {
		return nil, nil, false
	}
	if sch := strings.ToLower(u.Scheme); sch != "http" && sch != "https" {
		return nil, nil, false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host != "creativecommons.org" && host != "www.creativecommons.org" {
		return nil, nil, false
	}
	for _, seg := range strings.Split(strings.ToLower(u.Path), "/") {
		if seg != "" {
			segs = append(segs, seg)
		}
	}
	if segs == nil {
		segs = []string{}
	}
	return u, segs, true
}

func resolveURL(s string) (string, bool) {
	_, segs, ok := ccPath(s)
	if !ok {
		return Unknown, false
	}
	if n := len(segs); n > 0 && (strings.HasPrefix(segs[n-1], "legalcode") || strings.HasPrefix(segs[n-1], "deed")) {
		segs = segs[:n-1]
	}
	if id, ok := ccPaths[strings.Join(segs, "/")]; ok {
		return id, true
	}
	return Unknown, false
}

// labelWords maps the words of Creative Commons labels to the licence
// elements they name. Words with "" carry no meaning for the decision.
var labelWords = map[string]string{
	"cc": "", "license": "", "licence": "",
	"international": "", "unported": "", "generic": "", "universal": "",
	"attribution": "by", "by": "by",
	"noncommercial": "nc", "nc": "nc",
	"sharealike": "sa", "sa": "sa",
	"noderivatives": "nd", "noderivs": "nd", "nd": "nd",
	"cc0":       "zero",
	"sampling+": "sampling", "samplingplus": "sampling",
}

// labelPairs joins words that sources write apart. A "0" or "zero" means
// CC0 only right after "CC" or "Creative Commons": Flickr's licence 0, for
// one, is "All Rights Reserved".
var labelPairs = map[[2]string]string{
	{"cc", "0"}:             "cc0",
	{"cc", "zero"}:          "cc0",
	{"non", "commercial"}:   "noncommercial",
	{"share", "alike"}:      "sharealike",
	{"no", "derivatives"}:   "noderivatives",
	{"no", "derivs"}:        "noderivs",
	{"sampling", "plus"}:    "samplingplus",
	{"cc0", "1.0"}:          "cc0", // "CC0 1.0 Universal": the version is CC0's only one
	{"creative", "commons"}: "cc",
}

var versionRE = regexp.MustCompile(`^[1-9][0-9]*(\.[0-9]+)?$`)

// labelSplit reports the runes that separate the words of a label. Letters,
// digits and marks of every script stay in words, so that a word in another
// script is seen, and not understood, rather than dropped.
func labelSplit(r rune) bool {
	return !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '.' || r == '+')
}

// resolveLabel reads a label word by word. Every word must be understood;
// one that is not makes the whole label Unknown.
func resolveLabel(s string) (string, bool) {
	var raw []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), labelSplit) {
		if w = strings.Trim(w, "."); w != "" {
			raw = append(raw, w)
		}
	}
	// Join pairs until none is left, so that "Creative Commons 0" becomes
	// "cc 0" and then "cc0".
	words := raw
	for joined := true; joined; {
		joined = false
		var next []string
		for i := 0; i < len(words); i++ {
			if i+1 < len(words) {
				if j, ok := labelPairs[[2]string{words[i], words[i+1]}]; ok {
					next = append(next, j)
					i++
					joined = true
					continue
				}
			}
			next = append(next, words[i])
		}
		words = next
	}
	has := map[string]bool{}
	version := ""
	for _, w := range words {
		if el, ok := labelWords[w]; ok {
			if el != "" {
				has[el] = true
			}
			continue
		}
		if versionRE.MatchString(w) {
			if !strings.Contains(w, ".") {
				w += ".0"
			}
			if version != "" && version != w {
				return Unknown, false // two versions in one label
			}
			version = w
			continue
		}
		return Unknown, false
	}
	if has["sa"] || has["nd"] {
		return Unknown, false
	}
	only := func(want ...string) bool {
		if len(has) != len(want) {
			return false
		}
		for _, w := range want {
			if !has[w] {
				return false
			}
		}
		return true
	}
	switch {
	case only("zero") && (version == "" || version == "1.0"):
		return "CC0-1.0", true
	case only("sampling") && (version == "" || version == "1.0"):
		return "CC-Sampling+-1.0", true
	case only("by") || only("by", "nc"):
		// A label without a version, as Freesound writes them, is the
		// current version; both versions in the table permit the same.
		if version == "" {
			version = "4.0"
		}
		id := "CC-BY-" + version
		if has["nc"] {
			id = "CC-BY-NC-" + version
		}
		if p, ok := Lookup(id); ok {
			return p.ID, true
		}
	}
	return Unknown, false
}
