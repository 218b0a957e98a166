package audio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// WriteWAV16 writes the clip as a 16-bit PCM WAV file, the form the
// audio-LM and CLAP servers are sent. Samples are rounded to the nearest
// step and clamped to full scale.
func (c *Clip) WriteWAV16(w io.Writer) error {
	if c.Channels < 1 || c.Channels > maxChannels || c.SampleRate < 1 || c.SampleRate > maxSampleRate {
		return fmt.Errorf("wav: cannot write %d channels at %d Hz", c.Channels, c.SampleRate)
	}
	dataLen := int64(len(c.Samples)) * 2
	if dataLen > math.MaxUint32-36 {
		return fmt.Errorf("wav: %d bytes of samples do not fit a 16-bit WAV file", dataLen)
	}
	bw := bufio.NewWriter(w)
	var h [44]byte
	copy(h[0:], "RIFF")
	binary.LittleEndian.PutUint32(h[4:], uint32(36+dataLen))
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], wavPCM)
	binary.LittleEndian.PutUint16(h[22:], uint16(c.Channels))
	binary.LittleEndian.PutUint32(h[24:], uint32(c.SampleRate))
	binary.LittleEndian.PutUint32(h[28:], uint32(c.SampleRate*c.Channels*2))
	binary.LittleEndian.PutUint16(h[32:], uint16(c.Channels*2))
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], uint32(dataLen))
	bw.Write(h[:])
	// Encode a block of samples at a time: one Write per sample is slow
	// (and very slow under the race detector).
	var buf [8192]byte
	for start := 0; start < len(c.Samples); start += len(buf) / 2 {
		block := c.Samples[start:min(start+len(buf)/2, len(c.Samples))]
		for i, v := range block {
			s := min(max(math.Round(float64(v)*32768), -32768), 32767)
			binary.LittleEndian.PutUint16(buf[2*i:], uint16(int16(s)))
		}
		bw.Write(buf[:2*len(block)])
	}
	return bw.Flush()
}

// ModelWAV decodes at most the first maxSeconds of a sound file (all of it
// when maxSeconds <= 0), downmixes it to mono, resamples it to rate and
// returns it as a 16-bit WAV file: what the audio models are sent.
func ModelWAV(path string, rate int, maxSeconds float64) ([]byte, error) {
	c, _, err := DecodeFile(path, maxSeconds)
	if err != nil {
		return nil, err
	}
	if c.Frames() == 0 {
		return nil, fmt.Errorf("%s: no audio", path)
	}
	return modelWAV(c, rate)
}

// ModelWAVReader is ModelWAV for a sound file read from r (downloaded, say).
func ModelWAVReader(r io.Reader, rate int, maxSeconds float64) ([]byte, error) {
	d, err := NewDecoder(r)
	if err != nil {
		return nil, err
	}
	var maxFrames int64
	if maxSeconds > 0 {
		maxFrames = int64(math.Ceil(maxSeconds * float64(d.Info().SampleRate)))
	}
	c, err := ReadAll(d, maxFrames)
	if err != nil {
		return nil, err
	}
	if c.Frames() == 0 {
		return nil, fmt.Errorf("no audio")
	}
	return modelWAV(c, rate)
}

func modelWAV(c *Clip, rate int) ([]byte, error) {
	m, err := c.Mono().Resample(rate)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := m.WriteWAV16(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
