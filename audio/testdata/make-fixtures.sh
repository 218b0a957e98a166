#!/usr/bin/env bash
# Regenerates the audio package's committed fixtures with Debian's sox and
# ffmpeg (apt-get install sox libsox-fmt-all ffmpeg). Each is a fraction of a
# second long, so the whole set stays small. The .f32 files are sox's own
# decode of the WAV fixtures to raw float32, the reference the tests compare
# foley's WAV decoder with.
set -euo pipefail
cd "$(dirname "$0")"
q() { "$@" 2>/dev/null; }

# A 440 Hz + 3 kHz mix with a fade, 0.1 s: enough structure to catch byte
# order, sign and scaling mistakes.
src=src.wav
q sox -n -r 48000 -c 2 -b 24 "$src" synth 0.1 sine 440 sine 3000 fade 0.01 0.1 0.02 gain -3

# WAV at every integer depth, and float.
q sox "$src" -b 8  -e unsigned-integer wav_u8.wav
q sox "$src" -b 16 -e signed-integer   wav_s16.wav
q sox "$src" -b 24 -e signed-integer   wav_s24.wav
q sox "$src" -b 32 -e signed-integer   wav_s32.wav
q sox "$src" -b 32 -e floating-point   wav_f32.wav
q sox "$src" -b 64 -e floating-point   wav_f64.wav
q sox "$src" -b 8  -e a-law            wav_alaw.wav
q sox "$src" -b 8  -e u-law            wav_mulaw.wav
# WAVE_FORMAT_EXTENSIBLE (ffmpeg writes it for more than 2 channels or
# more than 16 bits), 6 channels at 24 bits.
q ffmpeg -loglevel error -y -i "$src" -filter_complex "[0:a]pan=5.1|c0=c0|c1=c1|c2=c0|c3=c1|c4=c0|c5=c1" -c:a pcm_s24le wav_ext_51_s24.wav
# RF64 (ffmpeg -rf64 always), mono 16-bit at 16 kHz.
q ffmpeg -loglevel error -y -i "$src" -ac 1 -ar 16000 -c:a pcm_s16le -rf64 always wav_rf64.wav
# Metadata: LIST/INFO and bext.
q ffmpeg -loglevel error -y -i "$src" -ac 1 -c:a pcm_s16le -write_bext 1 \
  -metadata title="Door slam, heavy wood" -metadata comment="Recorded in a stone hallway" \
  -metadata artist="Foley Team" -metadata copyright="CC0 1.0" -metadata genre="SFX" \
  -metadata description="A heavy wooden door slams shut" wav_meta.wav
# The sox references for the WAV fixtures.
for f in wav_*.wav; do
  q sox "$f" -t f32 -e floating-point -b 32 "${f%.wav}.f32"
done

# FLAC, MP3 and Ogg Vorbis with tags.
q ffmpeg -loglevel error -y -i "$src" -c:a flac -sample_fmt s16 -frame_size 1024 \
  -metadata TITLE="Rain on a tin roof" -metadata DESCRIPTION="Steady rain, close" \
  -metadata LICENSE="https://creativecommons.org/licenses/by/4.0/" -metadata ARTIST="Foley Team" flac_s16.flac
q ffmpeg -loglevel error -y -i "$src" -ac 1 -ar 44100 -c:a libmp3lame -b:a 128k -id3v2_version 3 \
  -metadata title="Dog barks twice" -metadata comment="Medium dog, outdoors" -metadata artist="Foley Team" \
  -metadata genre="Animals" mp3_id3.mp3
q ffmpeg -loglevel error -y -i "$src" -c:a libvorbis -q:a 4 \
  -metadata TITLE="Wind through trees" -metadata DESCRIPTION="Gusty wind, leaves" \
  -metadata LICENSE="CC0-1.0" -metadata GENRE="Ambience" ogg_vorbis.ogg
# Ogg Opus: foley reports it clearly rather than reading it.
q ffmpeg -loglevel error -y -i "$src" -c:a libopus -b:a 32k opus.ogg
# Formats foley does not read, for the detection errors.
q sox "$src" aiff.aiff
rm -f "$src"
ls -l
