#!/usr/bin/env bash
# Decode benchmark: foley's decoders against ffmpeg, side by side, in one run.
#
# Makes one-minute files in every format foley reads (44.1 kHz stereo: pink
# noise mixed with a tone sweep and clicks, which is harder to compress than
# silence), decodes each with foley (one thread) and with
# `ffmpeg -threads 1 -i F -f null -`, three times each, and prints the CPU
# time of the best run and the throughput ratio foley/ffmpeg (above 1 means
# foley is faster). Needs sox and ffmpeg (apt-get install sox ffmpeg).
#
# Then measures the peak memory of `foley probe` on a one-hour WAV.
# Usage: bench/decode/run.sh [--no-hour]
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for tool in sox ffmpeg; do
  command -v $tool >/dev/null || { echo "bench/decode needs $tool (apt-get install $tool)" >&2; exit 1; }
done

q() { "$@" 2>/dev/null; }
q sox -n -r 44100 -c 2 -b 24 "$work/src.wav" synth 60 pinknoise synth 60 sine mix 100-15000 gain -6
q sox "$work/src.wav" -b 16 "$work/wav16.wav"
q sox "$work/src.wav" -b 24 "$work/wav24.wav"
q sox "$work/src.wav" -b 32 -e floating-point "$work/wavf32.wav"
q ffmpeg -loglevel error -y -i "$work/src.wav" -c:a flac -sample_fmt s16 "$work/flac16.flac"
q ffmpeg -loglevel error -y -i "$work/src.wav" -c:a flac -sample_fmt s32 "$work/flac24.flac"
q ffmpeg -loglevel error -y -i "$work/src.wav" -c:a libmp3lame -b:a 192k "$work/mp3_192k.mp3"
q ffmpeg -loglevel error -y -i "$work/src.wav" -c:a libmp3lame -q:a 2 "$work/mp3_vbr.mp3"
q ffmpeg -loglevel error -y -i "$work/src.wav" -c:a libvorbis -q:a 5 "$work/ogg_q5.ogg"
rm "$work/src.wav"
files=("$work"/wav16.wav "$work"/wav24.wav "$work"/wavf32.wav "$work"/flac16.flac "$work"/flac24.flac "$work"/mp3_192k.mp3 "$work"/mp3_vbr.mp3 "$work"/ogg_q5.ogg)

go build -o "$work/decode" ./bench/decode
go build -o "$work/foley" ./cmd/foley
"$work/decode" -runs 3 "${files[@]}" > "$work/foley.jsonl"

ffmpeg_cpu() { # best user+system CPU seconds of three runs
  local best=""
  for _ in 1 2 3; do
    local line u s t
    line=$(ffmpeg -hide_banner -nostdin -benchmark -threads 1 -i "$1" -f null - 2>&1 | grep 'bench: utime' | tail -1)
    u=$(sed -E 's/.*utime=([0-9.]+)s.*/\1/' <<<"$line")
    s=$(sed -E 's/.*stime=([0-9.]+)s.*/\1/' <<<"$line")
    t=$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.4f", u+s}')
    if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$t; fi
  done
  echo "$best"
}

printf '%-14s %-10s %12s %12s %14s %9s\n' FILE CODEC FOLEY_CPU_S FFMPEG_CPU_S "FOLEY_x_RT" RATIO
while read -r line; do
  file=$(sed -E 's/.*"file":"([^"]+)".*/\1/' <<<"$line")
  codec=$(sed -E 's/.*"codec":"([^"]+)".*/\1/' <<<"$line")
  fcpu=$(sed -E 's/.*"cpu_seconds":([0-9.e-]+).*/\1/' <<<"$line")
  mcpu=$(ffmpeg_cpu "$file")
  awk -v n="$(basename "$file")" -v c="$codec" -v f="$fcpu" -v m="$mcpu" \
    'BEGIN{printf "%-14s %-10s %12.4f %12.4f %14.0f %8.2fx\n", n, c, f, m, 60/f, m/f}'
done < "$work/foley.jsonl"

if [ "${1:-}" != "--no-hour" ]; then
  echo
  q sox -n -r 48000 -c 2 -b 16 "$work/hour.wav" synth 3600 pinknoise gain -10
  /usr/bin/time -f '%M' -o "$work/rss" "$work/foley" probe "$work/hour.wav" > /dev/null
  awk -v k="$(cat "$work/rss")" 'BEGIN{printf "foley probe on a one-hour 48 kHz stereo WAV: peak RSS %.1f MiB (goal: under 64 MiB)\n", k/1024}'
fi
