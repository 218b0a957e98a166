package verify

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/foley-audio/foley"
	"golang.org/x/time/rate"
)

// DefaultConcurrency is how many candidates Shortlist verifies at once.
const DefaultConcurrency = 8

// Options configure Shortlist.
type Options struct {
	Level   foley.VerifyLevel // the highest rung to climb
	TauClap float64           // the clap rung's threshold
	// Judge answers above clap; nil means Judges{}.For(Level).
	Judge foley.Judge
	// Concurrency bounds the candidates verified at once; 0 means
	// DefaultConcurrency.
	Concurrency int
	// Done, when not nil, is called after each candidate, from the
	// goroutine that verified it.
	Done func(i int, r Result)
}

// Result is one candidate's outcome: a verdict, or the error that kept it
// from having one.
type Result struct {
	Verdict foley.Verdict
	Err     error
}

// Shortlist verifies each candidate against event with Match, up to
// opts.Concurrency at a time, and returns the results in input order. A
// candidate that has not passed the licence gate gets an Unlicensed error.
// When ctx is cancelled, the candidates not yet started get its error.
func Shortlist(ctx context.Context, event foley.SoundEvent, cands []foley.Candidate, opts Options) []Result {
	results := make([]Result, len(cands))
	n := opts.Concurrency
	if n <= 0 {
		n = DefaultConcurrency
	}
	n = min(n, len(cands))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(cands) {
					return
				}
				var r Result
				if err := ctx.Err(); err != nil {
					r.Err = err
				} else {
					r.Verdict, r.Err = safeMatch(ctx, event, cands[i], opts)
				}
				results[i] = r
				if opts.Done != nil {
					opts.Done(i, r)
				}
			}
		})
	}
	wg.Wait()
	return results
}

// safeMatch is Match that turns a judge's panic into an Internal error,
// so that one bad judge cannot take a server down.
func safeMatch(ctx context.Context, event foley.SoundEvent, c foley.Candidate, opts Options) (v foley.Verdict, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = foley.Verdict{}, foley.Errorf(foley.Internal, "verify: the judge failed on %q: %v", c.Sound.ID, p)
		}
	}()
	return Match(ctx, event, c, opts.Level, opts.Judge, opts.TauClap)
}

// RateLimited wraps j so that it is asked at most perSecond times a second
// (with bursts of up to burst calls), waiting for its turn or for ctx. Wrap
// each model server's judge once and share the wrapper, so that all the
// calls to that server share the limit. perSecond <= 0 gives j back.
func RateLimited(j foley.Judge, perSecond float64, burst int) foley.Judge {
	if perSecond <= 0 || j == nil {
		return j
	}
	return &limitedJudge{j: j, lim: rate.NewLimiter(rate.Limit(perSecond), max(burst, 1))}
}

type limitedJudge struct {
	j   foley.Judge
	lim *rate.Limiter
}

func (l *limitedJudge) Name() string { return l.j.Name() }

// Identity is the wrapped judge's: waiting does not change a verdict.
func (l *limitedJudge) Identity() string {
	if ij, ok := l.j.(foley.IdentifiedJudge); ok {
		return ij.Identity()
	}
	return ""
}

// Check passes through to the wrapped judge when it can be checked.
func (l *limitedJudge) Check(ctx context.Context) error {
	if cj, ok := l.j.(foley.CheckableJudge); ok {
		return cj.Check(ctx)
	}
	return nil
}

// Unwrap returns the judge being limited.
func (l *limitedJudge) Unwrap() foley.Judge { return l.j }

func (l *limitedJudge) Judge(ctx context.Context, e foley.SoundEvent, c foley.Candidate, level foley.VerifyLevel) (foley.Verdict, error) {
	if err := l.lim.Wait(ctx); err != nil {
		return foley.Verdict{}, err
	}
	return l.j.Judge(ctx, e, c, level)
}
