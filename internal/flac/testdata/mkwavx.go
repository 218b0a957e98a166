//go:build ignore

// mkwavx writes a WAVE_FORMAT_EXTENSIBLE file with fewer valid bits than
// its container (12 bits in 16, 20 in 24, 4 in 8), which sox cannot write,
// so that flac encodes at that bit depth. make-fixtures.sh runs it:
//
//	go run mkwavx.go IN.s32 OUT.wav RATE CHANNELS CONTAINERBITS VALIDBITS
//
// IN.s32 holds interleaved little-endian 32-bit samples (sox -b 32 -e
// signed -t raw); each is reduced to VALIDBITS by dropping low bits and
// stored left-justified in the container.
package main

import (
	"encoding/binary"
	"log"
	"os"
	"strconv"
)

func main() {
	if len(os.Args) != 7 {
		log.Fatal("usage: mkwavx IN.s32 OUT.wav RATE CHANNELS CONTAINERBITS VALIDBITS")
	}
	raw, err := os.ReadFile(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	num := func(s string) int {
		v, err := strconv.Atoi(s)
		if err != nil {
			log.Fatal(err)
		}
		return v
	}
	rate, ch, cbits, vbits := num(os.Args[3]), num(os.Args[4]), num(os.Args[5]), num(os.Args[6])
	bps := cbits / 8
	var data []byte
	for i := 0; i+4 <= len(raw); i += 4 {
		v := int32(binary.LittleEndian.Uint32(raw[i:]))
		v = v >> (32 - vbits) << (cbits - vbits) // keep vbits, left-justify in cbits
		if cbits == 8 {
			data = append(data, byte(v)+128) // 8-bit WAV is unsigned
			continue
		}
		for b := range bps {
			data = append(data, byte(v>>(8*b)))
		}
	}
	le16 := binary.LittleEndian.AppendUint16
	le32 := binary.LittleEndian.AppendUint32
	var f []byte
	f = le16(f, 0xFFFE)
	f = le16(f, uint16(ch))
	f = le32(f, uint32(rate))
	f = le32(f, uint32(rate*ch*bps))
	f = le16(f, uint16(ch*bps))
	f = le16(f, uint16(cbits))
	f = le16(f, 22)
	f = le16(f, uint16(vbits))
	f = le32(f, uint32(1)<<ch-1)
	f = append(f, 1, 0, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xaa, 0, 0x38, 0x9b, 0x71) // PCM GUID
	var body []byte
	body = append(body, "WAVEfmt "...)
	body = le32(body, uint32(len(f)))
	body = append(body, f...)
	body = append(body, "data"...)
	body = le32(body, uint32(len(data)))
	body = append(body, data...)
	out := append([]byte("RIFF"), le32(nil, uint32(len(body)))...)
	if err := os.WriteFile(os.Args[2], append(out, body...), 0o644); err != nil {
		log.Fatal(err)
	}
}
