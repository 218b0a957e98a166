package audio

import (
	"errors"
	"fmt"
	"io"
	"math"
)

// Clip is decoded audio held in memory: interleaved float32 samples.
type Clip struct {
	SampleRate int
	Channels   int
	Samples    []float32 // interleaved, len is a multiple of Channels
}

// Frames is the length in frames (samples per channel).
func (c *Clip) Frames() int {
	if c.Channels == 0 {
		return 0
	}
	return len(c.Samples) / c.Channels
}

// Duration is the length in seconds.
func (c *Clip) Duration() float64 {
	if c.SampleRate == 0 {
		return 0
	}
	return float64(c.Frames()) / float64(c.SampleRate)
}

// ReadAll decodes d to the end, or to maxFrames frames when maxFrames > 0.
// A truncated file returns the clip of what was there together with the
// truncation error.
func ReadAll(d *Decoder, maxFrames int64) (*Clip, error) {
	info := d.Info()
	c := &Clip{SampleRate: info.SampleRate, Channels: info.Channels}
	if info.Frames > 0 {
		want := info.Frames
		if maxFrames > 0 {
			want = min(want, maxFrames)
		}
		// The header's claim sizes the first allocation only up to a
		// small bound: a lying header must not allocate by its claim.
		c.Samples = make([]float32, 0, min(want, 1<<14)*int64(info.Channels))
	}
	buf := make([]float32, 8192*info.Channels)
	for {
		n, err := d.Read(buf)
		if maxFrames > 0 {
			left := (maxFrames - int64(c.Frames())) * int64(info.Channels)
			n = int(min(int64(n), left))
		}
		c.Samples = append(c.Samples, buf[:n]...)
		if maxFrames > 0 && int64(c.Frames()) >= maxFrames {
			return c, nil
		}
		switch {
		case errors.Is(err, io.EOF):
			return c, nil
		case err != nil:
			return c, err
		}
	}
}

// DecodeFile decodes a whole file, or its first maxSeconds when
// maxSeconds > 0.
func DecodeFile(path string, maxSeconds float64) (*Clip, Info, error) {
	d, err := Open(path)
	if err != nil {
		return nil, Info{}, err
	}
	defer d.Close()
	var maxFrames int64
	if maxSeconds > 0 {
		maxFrames = int64(math.Ceil(maxSeconds * float64(d.Info().SampleRate)))
	}
	c, err := ReadAll(d, maxFrames)
	if err != nil {
		err = fmt.Errorf("%s: %w", path, err)
	}
	return c, d.Info(), err
}

// Mono returns the clip downmixed to one channel, the mean of its
// channels. A mono clip is returned as it is.
func (c *Clip) Mono() *Clip {
	if c.Channels <= 1 {
		return c
	}
	n := c.Frames()
	out := make([]float32, n)
	scale := 1 / float32(c.Channels)
	for i := range out {
		var s float32
		for _, v := range c.Samples[i*c.Channels : (i+1)*c.Channels] {
			s += v
		}
		out[i] = s * scale
	}
	return &Clip{SampleRate: c.SampleRate, Channels: 1, Samples: out}
}

// Trim returns the first maxSeconds of the clip (sharing its samples), or
// the clip when it is not longer.
func (c *Clip) Trim(maxSeconds float64) *Clip {
	return c.Window(0, maxSeconds)
}

// Window returns the part of the clip that starts at start seconds and
// lasts at most length seconds, sharing its samples. A window past the end
// is empty.
func (c *Clip) Window(start, length float64) *Clip {
	n := c.Frames()
	from := min(max(int(math.Round(start*float64(c.SampleRate))), 0), n)
	to := n
	if length >= 0 {
		to = min(from+int(math.Round(length*float64(c.SampleRate))), n)
	}
	return &Clip{SampleRate: c.SampleRate, Channels: c.Channels, Samples: c.Samples[from*c.Channels : to*c.Channels]}
}

// Windows cuts the clip into windows of length seconds every hop seconds,
// as CLAP embeds long clips. A clip no longer than one window is one
// window; the last window ends at the end of the clip.
func (c *Clip) Windows(length, hop float64) []*Clip {
	if length <= 0 || hop <= 0 || c.Duration() <= length {
		return []*Clip{c}
	}
	var out []*Clip
	for start := 0.0; ; start += hop {
		if start+length >= c.Duration() {
			out = append(out, c.Window(math.Max(0, c.Duration()-length), length))
			return out
		}
		out = append(out, c.Window(start, length))
	}
}
