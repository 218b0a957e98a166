package audio

import (
	"io"

	"github.com/foley-audio/foley/internal/flac"
	"github.com/foley-audio/foley/internal/mp3"
	"github.com/foley-audio/foley/internal/vorbis"
)

// openCodec opens the decoder of a compressed format over in.
func openCodec(format Format, in io.Reader) (codec, error) {
	switch format {
	case FLAC:
		return flac.NewDecoder(in)
	case MP3:
		return mp3.NewDecoder(in)
	default:
		return vorbis.NewDecoder(in)
	}
}
