// Package audio reads the sound files sound designers have (WAV, RF64, FLAC,
// MP3, Ogg Vorbis), and turns them into what foley needs: float32 PCM,
// resampled mono for the models, 16-bit WAV to send them, facts (duration,
// peak, loudness), quality flags, content hashes and waveform peaks.
//
// Formats are detected from the content, never the file name. Decoding
// streams: a Decoder hands out PCM a buffer at a time, and Analyze measures
// a whole file in one pass without holding its PCM.
package audio
