// Package demo builds foley's demo library: a few dozen sounds synthesised
// on the spot (rain, doors, footsteps, glass, bells, animals, interface
// sounds...), each with a caption, tags, a UCS category and a licence,
// indexed into a library file as ingest would index them. With no library
// configured, foley searches the demo library, so that it works on first
// use with no network, no key and no download.
//
// The synthesis is deterministic: every clip comes from fixed seeds and
// plain DSP (filtered noise, envelopes, resonant modes, a small
// reverberator), so the same program makes the same files byte for byte.
//
// The licences are a deliberate mix, so that the licence gate and the
// credits have something to show: most clips are CC0, a few CC BY 4.0 (with
// a credit line), a few CC BY-NC 4.0 (dropped for commercial use) and two
// have a licence nobody could verify (dropped for any use).
package demo

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"math/rand/v2"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/audio"
	"github.com/foley-audio/foley/ingest"
	"github.com/foley-audio/foley/license"
)

// Clip is one sound of the demo library: its record and its recipe.
type Clip struct {
	// Record is the clip's record, without the file: URI and
	// ContentSHA256 are set when the file is written (see Ensure).
	Record foley.SoundRecord
	// CatID is the UCS CatID the clip would be filed under, e.g.
	// DOORWood; Record.UCSCategory holds its category, e.g. DOORS.
	CatID string
	// Seed seeds the clip's random numbers; it is derived from the id.
	Seed uint64

	peakDB float64
	synth  func(*gen) [][]float64
}

// Clips returns the demo clips, in a fixed order. Each call returns new
// values.
func Clips() []Clip {
	out := make([]Clip, len(catalogue))
	for i, d := range catalogue {
		cat, ok := ingest.UCSCategory(d.catID)
		if !ok {
			panic("demo: unknown UCS CatID " + d.catID) // caught by the tests
		}
		ch := max(d.channels, 1)
		lic := d.lic
		lic.Source, lic.SourceID, lic.Creator = Source, d.id, Creator
		lic.RightsVerified = lic.LicenseID != ""
		h := fnv.New64a()
		h.Write([]byte(d.id))
		peak := d.peakDB
		if peak == 0 {
			peak = -3
		}
		out[i] = Clip{
			Record: foley.SoundRecord{
				ID:          d.id,
				Caption:     d.caption,
				Tags:        append([]string(nil), d.tags...),
				UCSCategory: cat,
				DurationS:   float64(sec(d.secs)) / Rate,
				SampleRate:  Rate,
				Channels:    ch,
				Format:      "wav",
				License:     license.Normalize(lic),
			},
			CatID:  d.catID,
			Seed:   h.Sum64(),
			peakDB: peak,
			synth:  d.synth,
		}
	}
	return out
}

// FileName is the name of the clip's file: its id and ".wav".
func (c Clip) FileName() string { return c.Record.ID + ".wav" }

// Render synthesises the clip: Record.DurationS seconds at Rate,
// Record.Channels channels, peaking at -3 dBFS (quieter for room tone).
func (c Clip) Render() *audio.Clip {
	n := sec(c.Record.DurationS)
	g := &gen{Rand: rand.New(rand.NewPCG(c.Seed, 0x666f6c6579)), n: n}
	chans := c.synth(g)
	for i, x := range chans {
		if len(x) != n { // every recipe should give n samples; make sure
			chans[i] = make([]float64, n)
			copy(chans[i], x)
		}
	}
	return finish(c.peakDB, chans...)
}

// WAV renders the clip as a 16-bit PCM WAV file.
func (c Clip) WAV() []byte {
	var b bytes.Buffer
	// WriteWAV16 fails only on an impossible format; the demo's are fixed.
	if err := c.Render().WriteWAV16(&b); err != nil {
		panic(fmt.Sprintf("demo: %s: %v", c.Record.ID, err))
	}
	return b.Bytes()
}

// String is the clip's id and caption.
func (c Clip) String() string { return c.Record.ID + ": " + c.Record.Caption }
