package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/audio"
	"github.com/foley-audio/foley/internal/openaix"
)

// The audio the audio LM is sent: what Qwen2-Audio's feature extractor
// expects (Whisper's: 16 kHz mono, 30 s windows).
const (
	AudioSampleRate = 16000 // Hz, mono, 16-bit WAV
	AudioMaxSeconds = 30    // only the start of a longer clip is heard
)

// DefaultMaxRemoteBytes bounds a clip downloaded from an http(s) URI.
const DefaultMaxRemoteBytes = 100 << 20

// clipLoader turns a candidate's sound URI into the WAV file the audio LM
// hears.
type clipLoader struct {
	allowRemote bool
	maxBytes    int64
	timeout     time.Duration
	client      *http.Client
}

// load returns the model WAV of the clip at uri: a path, a file:// URL or,
// when allowed, an http(s):// URL.
func (l clipLoader) load(ctx context.Context, uri string) ([]byte, error) {
	if strings.TrimSpace(uri) == "" {
		return nil, foley.Errorf(foley.Invalid, "audio LM: the candidate has no sound URI to listen to")
	}
	if !strings.Contains(uri, "://") {
		return localWAV(uri, uri)
	}
	u, err := url.Parse(uri)
	if err != nil {
		return nil, foley.Errorf(foley.Invalid, "audio LM: sound URI %q: %v", uri, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return nil, foley.Errorf(foley.Invalid, "audio LM: sound URI %q names host %q; a file:// URI must name a local file", uri, u.Host)
		}
		if u.Path == "" {
			return nil, foley.Errorf(foley.Invalid, "audio LM: sound URI %q has no path", uri)
		}
		return localWAV(u.Path, uri)
	case "http", "https":
		if !l.allowRemote {
			return nil, foley.Errorf(foley.Invalid,
				"audio LM: sound URI %q is remote and remote clips are not fetched (set %s=true to allow http(s) clips)", uri, EnvAudioLMAllowRemote)
		}
		return l.remoteWAV(ctx, uri)
	default:
		return nil, foley.Errorf(foley.Invalid, "audio LM: sound URI %q: cannot listen to %s:// (a path, file://, or http(s):// when %s=true)",
			uri, u.Scheme, EnvAudioLMAllowRemote)
	}
}

func localWAV(path, uri string) ([]byte, error) {
	wav, err := audio.ModelWAV(path, AudioSampleRate, AudioMaxSeconds)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, foley.Errorf(foley.NotFound, "audio LM: sound file %s not found: %w", uri, err)
		}
		return nil, foley.Errorf(foley.Invalid, "audio LM: cannot decode sound file %s: %w", uri, err)
	}
	return wav, nil
}

// remoteWAV streams the clip at uri into the decoder, reading at most
// l.maxBytes bytes.
func (l clipLoader) remoteWAV(ctx context.Context, uri string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, uri, nil)
	if err != nil {
		return nil, foley.Errorf(foley.Invalid, "audio LM: sound URI %q: %v", uri, err)
	}
	req.Header.Set("User-Agent", "foley")
	resp, err := l.client.Do(req)
	if err != nil {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, foley.Errorf(foley.Unavailable, "audio LM: fetching sound %s took longer than %s: %w", uri, l.timeout, err)
		}
		return nil, foley.Errorf(foley.Unavailable, "audio LM: cannot fetch sound %s: %w", uri, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return nil, foley.Errorf(foley.NotFound, "audio LM: sound %s not found: %s", uri, openaix.StatusText(resp.StatusCode))
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return nil, foley.Errorf(foley.Unavailable, "audio LM: cannot fetch sound %s: %s", uri, openaix.StatusText(resp.StatusCode))
	case resp.ContentLength > l.maxBytes:
		return nil, l.tooBig(uri, fmt.Sprintf("it is %d bytes", resp.ContentLength))
	}
	body := &limitedReader{r: resp.Body, left: l.maxBytes}
	wav, err := audio.ModelWAVReader(body, AudioSampleRate, AudioMaxSeconds)
	switch {
	case body.exceeded:
		return nil, l.tooBig(uri, "it is larger")
	case err != nil && ctx.Err() != nil:
		return nil, foley.Errorf(foley.Unavailable, "audio LM: fetching sound %s: %w", uri, ctx.Err())
	case err != nil:
		return nil, foley.Errorf(foley.Invalid, "audio LM: cannot decode sound %s: %w", uri, err)
	}
	return wav, nil
}

func (l clipLoader) tooBig(uri, size string) error {
	return foley.Errorf(foley.Invalid, "audio LM: sound %s exceeds the limit of %d bytes on remote clips (%s; %s raises the limit)",
		uri, l.maxBytes, size, EnvAudioLMMaxRemoteBytes)
}

// limitedReader reads at most left bytes and fails past them, remembering
// that it did (the decoder may not pass the error on as it is).
type limitedReader struct {
	r        io.Reader
	left     int64
	exceeded bool
}

var errTooBig = errors.New("size limit exceeded")

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.exceeded {
		return 0, errTooBig
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	if int64(n) > l.left {
		l.exceeded = true
		return int(l.left), errTooBig
	}
	l.left -= int64(n)
	return n, err
}
