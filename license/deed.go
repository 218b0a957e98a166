package license

import (
	"fmt"
	"strings"
)

// Deed returns a licence's human name and the URL of its text, for credit
// lines: Creative Commons ids get their official name and deed URL; other
// ids their id and fallbackURL (the URL the source reported, if any).
func Deed(id, fallbackURL string) (name, url string) {
	switch {
	case id == "CC0-1.0":
		return "CC0 1.0 Universal", "https://creativecommons.org/publicdomain/zero/1.0/"
	case id == "CC-Sampling+-1.0":
		return "Creative Commons Sampling Plus 1.0", "https://creativecommons.org/licenses/sampling+/1.0/"
	case strings.HasPrefix(id, "CC-BY"):
		// CC-BY-4.0, CC-BY-NC-3.0, CC-BY-SA-4.0, ...
		rest := strings.TrimPrefix(id, "CC-")
		i := strings.LastIndex(rest, "-")
		if i < 0 {
			break
		}
		elems, version := strings.Split(rest[:i], "-"), rest[i+1:]
		words := map[string]string{"BY": "Attribution", "NC": "NonCommercial", "SA": "ShareAlike", "ND": "NoDerivatives"}
		var long []string
		for _, e := range elems {
			w, ok := words[e]
			if !ok {
				return id, fallbackURL
			}
			long = append(long, w)
		}
		suffix := ""
		if version == "4.0" {
			suffix = " International"
		} else if version == "3.0" {
			suffix = " Unported"
		}
		return fmt.Sprintf("Creative Commons %s %s%s (CC %s %s)", strings.Join(long, "-"), version, suffix, strings.Join(elems, "-"), version),
			fmt.Sprintf("https://creativecommons.org/licenses/%s/%s/", strings.ToLower(strings.Join(elems, "-")), version)
	}
	return id, fallbackURL
}
