#!/bin/sh
# Regenerates the Ogg fixtures in this directory with Debian's sox and ffmpeg
# (both use libvorbis for encoding). Reference decodes are not committed: the
# tests make them at run time with `ffmpeg -i F -f f32le -acodec pcm_f32le -`.
set -eu
cd "$(dirname "$0")"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FF="ffmpeg -hide_banner -loglevel error -y"

# Source material.
sox -n -r 44100 -c 2 -b 16 "$T/pink44s.wav" synth 2 pinknoise pinknoise vol 0.5
sox -n -r 48000 -c 2 -b 16 "$T/pink48s.wav" synth 1 pinknoise pinknoise vol 0.6
sox -n -r 96000 -c 2 -b 24 "$T/pink96s.wav" synth 1 pinknoise pinknoise vol 0.4
sox -n -r 8000 -c 1 -b 16 "$T/sweep8m.wav" synth 2 sine 50-3900 vol 0.7
sox -n -r 22050 -c 1 -b 16 "$T/tone22m.wav" synth 1.5 sine 440 sine 660 remix 1,2 vol 0.5 tremolo 6 80
sox -n -r 11025 -c 2 -b 16 "$T/sq11s.wav" synth 1 square 220 sine 330 vol 0.3
sox -n -r 32000 -c 2 -b 16 "$T/saw32s.wav" synth 1 sawtooth 100-2000 pinknoise vol 0.3
# Transients (clicks and noise bursts separated by silence): forces short blocks.
sox -n -r 44100 -c 1 -b 16 "$T/b1.wav" synth 0.03 whitenoise vol 0.9 fade 0 0.03 0.02 pad 0 0.15
sox "$T/b1.wav" "$T/burst.wav" repeat 7
sox "$T/burst.wav" "$T/burst2.wav" remix 1 1v0.5
# Speech-like: a buzzy source through changing formants with syllable gating.
sox -n -r 16000 -c 1 -b 16 "$T/speech16m.wav" synth 2 sawtooth 120-180 sine 700 sine 1200 remix 1v0.6,2v0.2,3v0.1 tremolo 4 95 vol 0.8
# 5.1, 3 and 8 channels (checks the channel order).
sox -n -r 48000 -c 6 -b 16 "$T/six.wav" synth 1 sine 100 sine 200 sine 300 pinknoise sine 500 sine 600 vol 0.4
sox -n -r 22050 -c 3 -b 16 "$T/three.wav" synth 0.5 sine 300 sine 500 pinknoise vol 0.4
sox -n -r 32000 -c 8 -b 16 "$T/eight.wav" synth 0.5 sine 100 sine 200 sine 300 sine 400 sine 500 sine 600 sine 700 pinknoise vol 0.3

sox "$T/pink44s.wav" -C -1 pink44_qm1_sox.ogg
$FF -i "$T/pink44s.wav" -c:a libvorbis -q:a 5 pink44_q5.ogg
$FF -i "$T/pink48s.wav" -c:a libvorbis -q:a 10 pink48_q10.ogg
sox "$T/pink96s.wav" -C 6 pink96_q6_sox.ogg
$FF -i "$T/sweep8m.wav" -c:a libvorbis -q:a 3 sweep8_mono_q3.ogg
$FF -i "$T/tone22m.wav" -c:a libvorbis -q:a 0 tone22_mono_q0.ogg
sox "$T/sq11s.wav" -C 1 square11_q1_sox.ogg
$FF -i "$T/saw32s.wav" -c:a libvorbis -q:a 7 saw32_q7.ogg
$FF -i "$T/burst2.wav" -c:a libvorbis -q:a 4 burst44_q4.ogg
$FF -i "$T/speech16m.wav" -c:a libvorbis -q:a 2 speech16_mono_q2.ogg
$FF -i "$T/six.wav" -c:a libvorbis -q:a 4 six48_q4.ogg
$FF -i "$T/three.wav" -c:a libvorbis -q:a 3 three22_q3.ogg
$FF -i "$T/eight.wav" -c:a libvorbis -q:a 3 eight32_q3.ogg

# Shorter than one block.
sox -n -r 44100 -c 1 -b 16 "$T/short1.wav" synth 100s sine 1000 vol 0.5
sox -n -r 44100 -c 2 -b 16 "$T/short2.wav" synth 1000s pinknoise vol 0.5
sox -n -r 48000 -c 1 -b 16 "$T/short3.wav" synth 1s sine 1000 vol 0.5
$FF -i "$T/short1.wav" -c:a libvorbis -q:a 5 short_100.ogg
sox "$T/short2.wav" -C 3 short_1000_sox.ogg
$FF -i "$T/short3.wav" -c:a libvorbis -q:a 5 short_1.ogg

# Comments, in this order.
sox "$T/tone22m.wav" -C 2 \
	--comment "TITLE=Test Tone" \
	--add-comment "DESCRIPTION=two sines with tremolo" \
	--add-comment "COMMENT=made by make-fixtures.sh" \
	--add-comment "ARTIST=foley" \
	--add-comment "GENRE=Sound Effect" \
	--add-comment "LICENSE=CC0" comments_sox.ogg

# Other codecs in Ogg (NewDecoder must name them).
sox -n -r 48000 -c 1 -b 16 "$T/other.wav" synth 0.1 sine 440
$FF -i "$T/other.wav" -c:a libopus -b:a 24k other_opus.ogg
$FF -i "$T/other.wav" -ar 16000 -c:a libspeex other_speex.ogg
$FF -i "$T/other.wav" -c:a flac -f ogg other_flac.ogg
$FF -f lavfi -i color=c=red:s=16x16:d=0.1 -c:v libtheora other_theora.ogg

# A chained file: two logical streams one after the other.
cat short_1000_sox.ogg tone22_mono_q0.ogg > chained.ogg
