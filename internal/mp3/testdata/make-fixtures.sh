#!/bin/sh
# Regenerates the MP3 test fixtures of package mp3 with sox and ffmpeg
# (libmp3lame). Run from this directory: sh make-fixtures.sh
set -eu
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# Source material: pink noise, a chirp and a burst (transients for short blocks).
sox -n -r 48000 -c 2 "$T/src.wav" synth 1.2 pinknoise vol 0.4 : synth 0.8 sine 300:3000 vol 0.6 : \
	synth 0.3 square 150 vol 0.3 fade 0 0.3 0.25
sox -n -r 48000 -c 1 "$T/lowpass.wav" synth 2 sine 440 sine 1250 vol 0.4 fade 0.1 2 0.5

enc() { # out rate channels extra-ffmpeg-args...
	out=$1 rate=$2 ch=$3
	shift 3
	ffmpeg -v error -y -i "$T/src.wav" -ar "$rate" -ac "$ch" -c:a libmp3lame "$@" "$out"
}

enc stereo_joint_44k_128.mp3 44100 2 -b:a 128k                  # MPEG-1, joint (M/S) stereo, CBR
enc stereo_lr_48k_160.mp3 48000 2 -b:a 160k -joint_stereo 0     # MPEG-1, plain stereo
enc mono_32k_vbr.mp3 32000 1 -q:a 2                              # MPEG-1, VBR (Xing + LAME tag)
enc stereo_22k_vbr.mp3 22050 2 -q:a 5                            # MPEG-2, VBR
enc mono_16k_32.mp3 16000 1 -b:a 32k                             # MPEG-2
enc stereo_12k_vbr.mp3 12000 2 -q:a 6                            # MPEG-2.5
enc mono_11k_24.mp3 11025 1 -b:a 24k                             # MPEG-2.5
enc mono_8k_16.mp3 8000 1 -b:a 16k                               # MPEG-2.5
enc stereo_8k_vbr.mp3 8000 2 -q:a 7                              # MPEG-2.5, stereo
# MPEG-2 24 kHz: content below 5 kHz (ffmpeg 5.1 uses a wrong scalefactor band
# boundary at 24 kHz, which only matters when coded lines reach band 18).
ffmpeg -v error -y -i "$T/lowpass.wav" -ar 24000 -c:a libmp3lame -b:a 48k mono_24k_48.mp3
# A chirp through the 24 kHz band 17/18 boundary (compared with the source).
sox -n -r 24000 -c 1 "$T/chirp24.wav" synth 1.5 sine 5000:9000 vol 0.5
ffmpeg -v error -y -i "$T/chirp24.wav" -c:a libmp3lame -b:a 64k chirp_24k_64.mp3
# ID3v1 tag at the end, ID3v2.3 tag with metadata at the start.
enc id3v1_44k_96.mp3 44100 2 -b:a 96k -write_id3v1 1 -id3v2_version 3 \
	-metadata title="Fixture" -metadata artist="foley" -metadata album="tests"
# sox with libmp3lame: no Xing/LAME header, so no gapless trimming.
sox "$T/src.wav" -r 44100 -C 128 sox_44k_128.mp3
# A Layer II stream, which must be rejected.
ffmpeg -v error -y -i "$T/src.wav" -t 0.5 -c:a mp2 -b:a 128k layer2.mp2

# Reference decode (ffmpeg float) of one file, so that a test runs without ffmpeg.
ffmpeg -v error -y -i mono_8k_16.mp3 -f f32le -acodec pcm_f32le mono_8k_16.f32
