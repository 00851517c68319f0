#!/usr/bin/env bash
# Side-by-side index benchmark: rotate against nanoflann (C++, leaf 10 and 32), scipy cKDTree and
# pykdtree (batched, one thread) and a numpy brute force, on identical points and queries, one
# after another on this machine. Peers are installed here, into Benchmarks/.peers (git-ignored);
# the project itself stays dependency-free.
#
# usage: Benchmarks/compare.sh [SIZES] [K] [PROCESSES]   e.g. Benchmarks/compare.sh "10000 100000 1000000" 18 3
# Prints one table per distribution (clustered: 200 towns of ~20 km; globe: uniform) and writes
# Benchmarks/.peers/results.jsonl. Every peer's first 1,000 answers are checked against brute force.
# rotate and nanoflann run PROCESSES times each (default 3), taking turns, and the table shows the
# median of their per-process medians: one process's timings depend on where its memory landed
# (the same binary varies by up to ±10 % between processes at 1,000,000 places, far less within one).
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${1:-"10000 100000 1000000"}
k=${2:-18}
processes=${3:-3}
peers=Benchmarks/.peers
data=$peers/data
mkdir -p "$data"

if [ ! -f /usr/include/nanoflann.hpp ]; then
  echo "installing libnanoflann-dev (Debian)" >&2
  apt-get install -y libnanoflann-dev >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y libnanoflann-dev >/dev/null; }
fi
if [ ! -x "$peers/venv/bin/python" ]; then
  echo "installing numpy, scipy, pykdtree, pandas into $peers/venv (PyPI)" >&2
  python3 -m venv "$peers/venv"
  "$peers/venv/bin/pip" install -q numpy scipy pykdtree pandas
fi
g++ -O3 -march=native -std=c++17 Benchmarks/peers/nanoflann_knn.cpp -o "$peers/nanoflann_knn"
swift build -c release >/dev/null
rotate=.build/release/rotate
benchmarks=.build/release/RotateBenchmarks
python="$peers/venv/bin/python"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
results=$peers/results.jsonl
: > "$results"

for dist in clustered globe; do
  for n in $sizes; do
    places=$data/$dist-$n.csv positions=$data/$dist-$n-positions.csv
    if [ ! -f "$places" ]; then
      $rotate generate --distribution "$dist" --count "$n" --positions 200000 --vectors --seed 7 \
        --places-out "$places" --positions-out "$positions" 2>/dev/null
    fi
    tag="\"dist\":\"$dist\",\"n\":$n"
    echo "== $dist, N = $n" >&2
    for process in $(seq 1 "$processes"); do
      $rotate bench --places "$places" --positions "$positions" --by center --k "$k" --repetitions 3 --json --quiet \
        --write-neighbors "$data/check-rotate.csv" | sed "s/^{/{\"peer\":\"rotate\",$tag,/" >> "$results"
      $rotate bench --places "$places" --positions "$positions" --by edge --k "$k" --repetitions 3 --json --quiet \
        | sed "s/^{/{\"peer\":\"rotate by edge (equal radii)\",$tag,/" >> "$results"
      $rotate bench --places "$places" --positions "$positions" --by edge --mixed-radii --k "$k" --repetitions 3 --json --quiet \
        | sed "s/^{/{\"peer\":\"rotate by edge (radii 20 m-5 km)\",$tag,/" >> "$results"
      for leaf in 10 32; do
        "$peers/nanoflann_knn" "$places" "$positions" "$k" "$leaf" 3 "$data/check-nanoflann-$leaf.csv" | sed "s/^{/{$tag,/" >> "$results"
      done
    done
    $benchmarks --read-places "$places" --json | sed "s/^{/{\"peer\":\"rotate PlacesCSV.read\",$tag,/" >> "$results"
    "$python" Benchmarks/peers/python_peers.py "$places" "$positions" "$k" 3 "$data/check" | sed "s/^{/{$tag,/" >> "$results"
    "$python" Benchmarks/peers/report.py verify "$data" "$k" | sed "s/^{/{$tag,/" >> "$results"
  done
done
"$python" Benchmarks/peers/report.py table "$results"
