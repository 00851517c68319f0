#!/usr/bin/env bash
# Batch planning on an existing engine: POSITIONS positions (default 1,000,000) near 100,000
# clustered places, planned by Spark in local mode (local[2], RDD.pipe through
# `rotate select --positions -`, one process per partition) and by one `rotate select` process.
# Checks that both give the same row for every position (exit 1 otherwise) and prints both times.
#
# Installs PySpark from PyPI into Benchmarks/.peers/spark-venv (git-ignored); needs Java 17
# (Debian: openjdk-17-jre-headless) and a release build of rotate.
#
# Usage: Benchmarks/spark/run.sh [POSITIONS]
set -euo pipefail
cd "$(dirname "$0")/../.."
positions=${1:-1000000}
rotate=${ROTATE:-$PWD/.build/release/rotate}
peers=Benchmarks/.peers
venv=$peers/spark-venv
work=$peers/spark-$positions

if ! command -v java > /dev/null; then
  echo "run.sh: Java is needed for Spark (Debian: apt-get install openjdk-17-jre-headless)" >&2
  exit 1
fi
if [ ! -x "$rotate" ]; then
  echo "run.sh: no rotate binary at $rotate (swift build -c release first, or set ROTATE)" >&2
  exit 1
fi
if ! "$venv/bin/python" -c "import pyspark" 2> /dev/null; then
  echo "installing pyspark into $venv (PyPI)" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q pyspark
fi

rm -rf "$work"
mkdir -p "$work"
"$rotate" generate --count 100000 --side-km 400 --distribution clustered --seed 29 \
  --places-out "$work/places.csv" --walk-out "$work/walk.csv" --positions-out "$work/raw.csv" --positions "$positions"
# An id per position, to match the rows of the two runs.
awk -F, 'NR == 1 { print "id," $0; next } { print "q" NR - 1 "," $0 }' "$work/raw.csv" > "$work/positions.csv"

echo "== one process: rotate select --positions" >&2
start=$EPOCHREALTIME
"$rotate" select --places "$work/places.csv" --positions "$work/positions.csv" --out "$work/one.csv" 2> /dev/null
one=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')

echo "== Spark local[2]: RDD.pipe through rotate select --positions -" >&2
spark=$(PYSPARK_PYTHON="$venv/bin/python" "$venv/bin/python" Benchmarks/spark/plan.py \
  "$rotate" "$PWD/$work/places.csv" "$PWD/$work/positions.csv" "$PWD/$work/spark" 8 2> "$work/spark.log" | tail -1) || {
  echo "run.sh: the Spark job failed; its log:" >&2
  tail -40 "$work/spark.log" >&2
  exit 1
}

# The same row for every position: compare without the line column (it counts within a file).
tail -n +2 "$work/one.csv" | cut -d, -f2- | LC_ALL=C sort > "$work/one.sorted"
cat "$work"/spark/part-* | cut -d, -f2- | LC_ALL=C sort > "$work/spark.sorted"
rows=$(wc -l < "$work/one.sorted")
if [ "$rows" -ne "$positions" ] || ! cmp -s "$work/one.sorted" "$work/spark.sorted"; then
  echo "run.sh: Spark's rows differ from one process's ($rows rows; diff below)" >&2
  diff "$work/one.sorted" "$work/spark.sorted" | head -5 >&2
  exit 1
fi
printf '{"positions":%d,"places":100000,"one_process_s":%.2f,"spark_local2_s":%.2f,"identical_rows":true}\n' "$positions" "$one" "$spark"
