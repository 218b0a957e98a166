#!/bin/sh
# Regenerates the FLAC fixtures in this directory and reference.txt, the
# SHA-256 of each fixture's PCM as decoded by the reference decoder (flac
# -d), every sample left-justified in a signed 32-bit little-endian word.
# Needs sox, flac, ffmpeg and go. Run from anywhere:
#   sh internal/flac/testdata/make-fixtures.sh
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Repeatable noise and dither, so that a rerun gives the same files.
sox() { command sox -R "$@"; }

# material RATE CHANNELS BITS SECONDS OUT.wav: tones (a different pitch on
# each channel) over quiet pink noise, faded in, like recorded material.
material() {
	rate=$1 ch=$2 bits=$3 dur=$4 out=$5
	tones=""
	f=220
	i=0
	while [ $i -lt "$ch" ]; do
		tones="$tones sine $f"
		f=$((f * 5 / 4 + 7))
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	sox -n -r "$rate" -c "$ch" -b 32 -e signed "$tmp/tone.wav" synth "$dur" $tones vol 0.6
	sox -n -r "$rate" -c "$ch" -b 32 -e signed "$tmp/noise.wav" synth "$dur" pinknoise vol 0.05
	sox -m "$tmp/tone.wav" "$tmp/noise.wav" -b "$bits" -t wavpcm "$out" fade 0.02
}

rm -f ./*.flac reference.txt

# Every compression level, 16-bit stereo 44.1 kHz.
material 44100 2 16 0.3 "$tmp/s16.wav"
for l in 0 1 2 3 4 5 6 7 8; do
	flac -s -f -$l -o s16_stereo_44k_c$l.flac "$tmp/s16.wav"
done
# Block sizes: minimum, small, odd (8- and 16-bit coded), large (non-subset).
for b in 16 192 1000 4095 4608; do
	flac -s -f -b $b -o s16_stereo_44k_b$b.flac "$tmp/s16.wav"
done
for b in 16384 65535; do
	flac -s -f --lax -b $b -o s16_stereo_44k_b$b.flac "$tmp/s16.wav"
done
# Exhaustive search, high-precision coefficients, LPC order 32, Rice partition order 8.
flac -s -f --lax -8 -e -p -l 32 -r 0,8 -q 15 -o s16_stereo_44k_lpc32.flac "$tmp/s16.wav"

# Bit depths, channel counts and sample rates (every rate coding: table,
# kHz, Hz, tens of Hz).
material 8000 1 8 0.3 "$tmp/u8.wav"
flac -s -f -o u8_mono_8k.flac "$tmp/u8.wav"
material 11025 1 8 0.2 "$tmp/u8b.wav"
flac -s -f -o u8_mono_11025.flac "$tmp/u8b.wav"
material 12000 1 16 0.2 "$tmp/s16m.wav"
flac -s -f -o s16_mono_12k.flac "$tmp/s16m.wav"
material 37800 1 16 0.2 "$tmp/s16m2.wav"
flac -s -f -o s16_mono_37800.flac "$tmp/s16m2.wav"
material 96000 2 24 0.2 "$tmp/s24.wav"
flac -s -f -o s24_stereo_96k.flac "$tmp/s24.wav"
flac -s -f --lax -8 -l 32 -q 15 -o s24_stereo_96k_lpc32.flac "$tmp/s24.wav"
material 192000 2 24 0.05 "$tmp/s24b.wav"
flac -s -f -o s24_stereo_192k.flac "$tmp/s24b.wav"
material 48000 6 16 0.2 "$tmp/s16x6.wav"
flac -s -f --channel-map=none -o s16_6ch_48k.flac "$tmp/s16x6.wav"
material 22050 8 16 0.1 "$tmp/s16x8.wav"
flac -s -f --channel-map=none -o s16_8ch_22k.flac "$tmp/s16x8.wav"
material 32000 3 24 0.1 "$tmp/s24x3.wav"
flac -s -f --channel-map=none -o s24_3ch_32k.flac "$tmp/s24x3.wav"
# 32-bit, loud, so the side channel needs 33 bits.
sox -n -r 48000 -c 2 -b 32 -e signed "$tmp/s32.wav" synth 0.1 sine 300 sine 300 0 50 vol 0.999
flac -s -f -o s32_stereo_48k.flac "$tmp/s32.wav"
material 44100 2 32 0.1 "$tmp/s32b.wav"
flac -s -f -o s32_stereo_44k.flac "$tmp/s32b.wav"
# 4, 12 and 20 bits, through WAVE_FORMAT_EXTENSIBLE.
for spec in "4 8 1 8000" "12 16 1 16000" "20 24 2 48000"; do
	# shellcheck disable=SC2086
	set -- $spec
	material "$4" "$3" 32 0.1 "$tmp/x.wav"
	sox "$tmp/x.wav" -t raw -e signed -b 32 "$tmp/x.s32"
	go run mkwavx.go "$tmp/x.s32" "$tmp/x$1.wav" "$4" "$3" "$2" "$1"
	flac -s -f --lax -o s$1_$3ch_$4.flac "$tmp/x$1.wav"
done

# Subframe kinds: wasted bits (8-bit audio in 16 bits), constant (silence
# and DC), verbatim (full-scale white noise).
material 44100 2 8 0.2 "$tmp/w8.wav"
sox "$tmp/w8.wav" -b 16 "$tmp/w16.wav"
flac -s -f -o s16_wasted.flac "$tmp/w16.wav"
sox -n -r 44100 -c 2 -b 16 "$tmp/dc.wav" trim 0 0.2 dcshift 0.3
flac -s -f -o s16_constant.flac "$tmp/dc.wav"
sox -n -r 44100 -c 1 -b 16 "$tmp/white.wav" synth 0.1 whitenoise
flac -s -f -o s16_verbatim.flac "$tmp/white.wav"

# Stereo modes forced one at a time, and LPC order 32 with 15-bit
# coefficients, from ffmpeg's encoder.
material 44100 2 16 0.2 "$tmp/ff.wav"
for m in indep left_side right_side mid_side; do
	ffmpeg -hide_banner -loglevel error -y -i "$tmp/ff.wav" -c:a flac -ch_mode $m -f flac ffmpeg_$m.flac
done
material 48000 2 24 0.2 "$tmp/ff24.wav"
ffmpeg -hide_banner -loglevel error -y -i "$tmp/ff24.wav" -c:a flac -lpc_type cholesky -min_prediction_order 32 \
	-max_prediction_order 32 -lpc_coeff_precision 15 -ch_mode mid_side -f flac ffmpeg_s24_lpc32.flac

# Metadata: Vorbis comments; a PICTURE, a SEEKTABLE and padding.
material 44100 1 16 0.1 "$tmp/meta.wav"
flac -s -f -T "TITLE=Door slam, heavy oak" -T "DESCRIPTION=A heavy wooden door slams shut" \
	-T "COMMENT=recorded at 2 m" -T "ARTIST=Foley Test" -T "GENRE=Sound Effect" \
	-T "LICENSE=CC0-1.0" -T "TITLE=Zweiter Titel äöü" -o comments.flac "$tmp/meta.wav"
ffmpeg -hide_banner -loglevel error -y -f lavfi -i color=c=red:s=8x8 -frames:v 1 "$tmp/cover.png"
flac -s -f --picture="3|image/png|cover|8x8x24|$tmp/cover.png" --padding=8192 -S 10x -o picture.flac "$tmp/meta.wav"

# Reference PCM hashes: flac -d to WAV, then ffmpeg to signed 32-bit
# little-endian raw, which left-justifies every sample (raw output from
# flac itself does not do 4, 12 or 20 bits, nor sox read them).
for f in *.flac; do
	h=$(flac -s -d -c "$f" | ffmpeg -loglevel error -f wav -i - -f s32le - | sha256sum | cut -d' ' -f1)
	echo "$h $f" >>reference.txt
done
du -ch ./*.flac | tail -1
