#!/usr/bin/env bash
# Search benchmark: foley's internal/vecindex against FAISS and hnswlib, on
# the same vectors and the same thread count, in one run.
#
# Generates deterministic clustered 512-d unit vectors (1000 Gaussian
# clusters; bench.py gen) for n = 100k and 1M plus 1000 queries, once, into
# a temporary directory (raw little-endian float32; the exact top 10 of
# every query is computed there too), then measures per size:
#   - foley Flat vs FAISS IndexFlatIP: single-query latency p50/p99, QPS;
#   - foley HNSW vs hnswlib (M=16, efConstruction=200, each ef tuned to
#     recall@10 >= 0.95): build time, latency, QPS, recall@10;
#   - the peak RSS of each process, and foley's index memory / raw bytes.
# Each measurement runs in its own process. Prints a table and the ratios.
#
# Usage: bench/search/run.sh [--small] [--threads N] [--keep DIR]
#   --small      only n = 100k
#   --threads N  GOMAXPROCS = OMP_NUM_THREADS = N (default: all cores)
#   --keep DIR   keep data and results in DIR (reused when present)
set -euo pipefail
cd "$(dirname "$0")/../.."

sizes="100000,1000000"
threads=$(nproc)
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --small) sizes="100000" ;;
    --threads) threads="$2"; shift ;;
    --keep) keep="$2"; shift ;;
    *) echo "usage: $0 [--small] [--threads N] [--keep DIR]" >&2; exit 2 ;;
  esac
  shift
done

# Debian's Python and packages (not a virtualenv's).
py=/usr/bin/python3
if ! "$py" -c 'import faiss, hnswlib, numpy' 2>/dev/null; then
  echo "installing python3-faiss python3-hnswlib python3-numpy" >&2
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  # OpenBLAS makes the exact ground truth (a batch product) quick.
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    python3-faiss python3-hnswlib python3-numpy libopenblas0-pthread >/dev/null
fi

if [ -n "$keep" ]; then
  work="$keep"; mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
export OMP_NUM_THREADS="$threads" OPENBLAS_NUM_THREADS="$threads" GOMAXPROCS="$threads"

go build -o "$work/search" ./bench/search
want_sizes=$(tr ',' ' ' <<<"$sizes")
have=$("$py" -c "import json,sys; print(' '.join(str(s) for s in json.load(open(sys.argv[1]))['sizes']))" "$work/meta.json" 2>/dev/null || true)
need_gen=0
for n in $want_sizes; do
  grep -qw "$n" <<<"$have" || need_gen=1
done
if [ $need_gen = 1 ]; then
  echo "generating vectors for n = $sizes ..." >&2
  "$py" bench/search/bench.py gen --dir "$work" --sizes "$sizes" >&2
fi

results="$work/results.jsonl"
: > "$results"
for n in $want_sizes; do
  # Exact search scans everything per query: time fewer queries at 1M.
  fq=1000; [ "$n" -ge 1000000 ] && fq=300
  echo "n=$n: foley Flat" >&2
  "$work/search" -dir "$work" -n "$n" -mode flat -threads "$threads" -queries "$fq" >> "$results"
  echo "n=$n: FAISS IndexFlatIP" >&2
  "$py" bench/search/bench.py faiss --dir "$work" --n "$n" --threads "$threads" --queries "$fq" >> "$results"
  echo "n=$n: foley HNSW" >&2
  "$work/search" -dir "$work" -n "$n" -mode hnsw -threads "$threads" >> "$results"
  echo "n=$n: hnswlib" >&2
  "$py" bench/search/bench.py hnswlib --dir "$work" --n "$n" --threads "$threads" >> "$results"
done
echo
"$py" bench/search/bench.py report --results "$results" --threads "$threads"
