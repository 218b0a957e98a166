// Package weaviate is a foley library on Weaviate, a distributed vector
// database (sharding, replication, hybrid BM25 + vector search), for
// libraries that outgrow one machine. A library is a Weaviate class; foley
// supplies the vectors from its own embedder (the class has no vectorizer).
package weaviate

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/foley-audio/foley"
)

// EnvAPIKey names the environment variable with the API key of a Weaviate
// server that needs one.
const EnvAPIKey = "FOLEY_WEAVIATE_API_KEY"

// Location is where a Weaviate library is:
//
//	weaviate://HOST:PORT/Class[?grpc=HOST:PORT&replicas=N&shards=N&tls=1]
//
// grpc sends batch writes over Weaviate's gRPC API (faster than REST for
// large ingests); replicas and shards set the class's replication factor
// and shard count when foley creates it; tls=1 talks HTTPS.
type Location struct {
	Host     string // HOST:PORT of the REST API
	Class    string
	GRPC     string // HOST:PORT of the gRPC API; "" sends everything over REST
	Replicas int    // replication factor for a new class; 0: the server's default
	Shards   int    // shards of a new class; 0: the server's default
	TLS      bool
}

// IsLocation reports whether s names a Weaviate library rather than a file.
func IsLocation(s string) bool { return strings.HasPrefix(strings.ToLower(s), "weaviate://") }

var className = regexp.MustCompile(`^[A-Z][_0-9A-Za-z]{0,200}$`)

// ParseLocation parses a weaviate:// location, or returns an Invalid error
// naming what is wrong with it.
func ParseLocation(s string) (Location, error) {
	bad := func(format string, args ...any) (Location, error) {
		return Location{}, foley.Errorf(foley.Invalid, "library %q: "+format+" (want weaviate://HOST:PORT/Class)", append([]any{s}, args...)...)
	}
	u, err := url.Parse(s)
	if err != nil {
		return bad("%v", err)
	}
	if !strings.EqualFold(u.Scheme, "weaviate") {
		return bad("the scheme is %q, not weaviate", u.Scheme)
	}
	if u.User != nil {
		return bad("put the API key in %s, not in the location", EnvAPIKey)
	}
	l := Location{Host: u.Host, Class: strings.Trim(u.Path, "/")}
	if _, port, err := net.SplitHostPort(l.Host); err != nil || port == "" {
		return bad("the host %q has no port", u.Host)
	}
	if !className.MatchString(l.Class) {
		return bad("the class %q is not a Weaviate class name (a capital letter, then letters, digits or _)", l.Class)
	}
	if strings.Contains(l.Class, "_") && (strings.HasSuffix(l.Class, metaSuffix) || strings.HasSuffix(l.Class, verdictsSuffix) || strings.HasSuffix(l.Class, failuresSuffix)) {
		return bad("class names ending in %s, %s or %s are foley's own", metaSuffix, verdictsSuffix, failuresSuffix)
	}
	q := u.Query()
	for k := range q {
		switch k {
		case "grpc", "replicas", "shards", "tls":
		default:
			return bad("unknown parameter %q (known: grpc, replicas, shards, tls)", k)
		}
	}
	if g := q.Get("grpc"); g != "" {
		if _, port, err := net.SplitHostPort(g); err != nil || port == "" {
			return bad("grpc=%q is not HOST:PORT", g)
		}
		l.GRPC = g
	}
	for _, p := range []struct {
		name string
		dst  *int
	}{{"replicas", &l.Replicas}, {"shards", &l.Shards}} {
		if v := q.Get(p.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 1000 {
				return bad("%s=%q is not a number from 1 to 1000", p.name, v)
			}
			*p.dst = n
		}
	}
	switch q.Get("tls") {
	case "", "0", "false":
	case "1", "true":
		l.TLS = true
	default:
		return bad("tls=%q is not 1 or 0", q.Get("tls"))
	}
	return l, nil
}

// String is the location as ParseLocation reads it.
func (l Location) String() string {
	q := url.Values{}
	if l.GRPC != "" {
		q.Set("grpc", l.GRPC)
	}
	if l.Replicas > 0 {
		q.Set("replicas", strconv.Itoa(l.Replicas))
	}
	if l.Shards > 0 {
		q.Set("shards", strconv.Itoa(l.Shards))
	}
	if l.TLS {
		q.Set("tls", "1")
	}
	s := fmt.Sprintf("weaviate://%s/%s", l.Host, l.Class)
	if len(q) > 0 {
		s += "?" + q.Encode()
	}
	return s
}
