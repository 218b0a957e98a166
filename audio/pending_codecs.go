package audio

import (
	"fmt"
	"io"
)

// openCodec opens the decoder of a compressed format. FLAC, MP3 and Ogg
// Vorbis decoders land in the next commits.
func openCodec(format Format, in io.Reader) (codec, error) {
	return nil, fmt.Errorf("decoding %s is not available in this build yet", format)
}
