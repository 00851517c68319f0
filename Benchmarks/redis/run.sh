#!/usr/bin/env bash
# Sidecar benchmark against a peer: the Redis-backed location service a server developer would
# build instead of `rotate serve` (Benchmarks/redis/peer.py: places in a Redis GEO set, each
# device's state in a Redis hash, one Lua EVALSHA per report doing the widening GEOSEARCH for the
# 18 nearest places, the read of the stored selection and the HSET of the new state), measured on
# the same workload, in the same run, as `rotate serve --stdio`.
#
# Workload: 100,000 clustered places (seed 29) and DEVICES devices making REPORTS_PER_DEVICE
# location reports each, from `rotate generate --reports-out` (cached in the work dir).
# Timed, one after another, with wall clocks around whole processes:
#   - peer.py pipelined (256 reports per pipeline) and peer.py --no-pipeline, each on a fresh
#     redis-server (127.0.0.1, a free port from 6379 up, --appendonly yes --appendfsync everysec,
#     no RDB saves, its dir in the work dir), over the first PEER_REPORTS reports (default: all).
#     Loading the places (pipelined GEOADD) is timed separately and not counted.
#   - rotate serve --stdio --places places.csv $ROTATE_SERVE_ARGS (by default its state database
#     with --durability batch) over the whole reports file and,
#     when PEER_REPORTS is given, over the same first PEER_REPORTS reports (so rates compare).
#     Its time includes reading the places CSV (about 0.1 s).
# Prints a table (system, reports, seconds, reports/s, updates) and the ratio rotate/peer of the
# rates on the same reports, and checks, on the first 20,000 reports, that each device's first
# selection agrees (rotate's 17 places among the peer's 18 nearest).
#
# Installs: redis-server from Debian's packages when it is not on PATH (apt-get install -y
# redis-server; needs root), and the Python client `redis` with `hiredis` from PyPI into the
# git-ignored venv Benchmarks/.peers/redis-venv. Needs a release build of rotate (ROTATE overrides
# the path; default .build/release/rotate).
#
# Usage: Benchmarks/redis/run.sh [DEVICES (1000000)] [REPORTS_PER_DEVICE (10)] [PEER_REPORTS (all)]
# Env:   ROTATE            the rotate binary
#        ROTATE_SERVE_ARGS extra arguments of rotate serve; {work} stands for the work dir (also
#                          exported as WORK). Default '--state {work}/rotate.db --durability batch'
#                          (durable state, as the peer's AOF); set it empty for memory only.
#                          Files $WORK/rotate.db* are deleted before each rotate run.
#        PEER_MODES        which peer runs (default "pipeline single"; "pipeline" alone skips the
#                          slow one-report-per-round-trip run)
#        PEER_ARGS         extra arguments of peer.py, e.g. '--radii 1,2,3,4,6,8,16,64,256,1024'
#                          (a finer search ladder than the default 1,4,16,64,256,1024 km)
# Work dir: Benchmarks/.peers/redis-DEVICES (reports: ~90 bytes each; answers and AOF files of the
# last run are left there).
set -euo pipefail
cd "$(dirname "$0")/../.."
devices=${1:-1000000}
per_device=${2:-10}
peer_reports=${3:-}
rotate=${ROTATE:-$PWD/.build/release/rotate}
peers=Benchmarks/.peers
venv=$peers/redis-venv
WORK=$PWD/$peers/redis-$devices
export WORK
modes=${PEER_MODES:-pipeline single}
read -r -a peer_args <<< "${PEER_ARGS:-}"
rotate_args=${ROTATE_SERVE_ARGS-'--state {work}/rotate.db --durability batch'}
rotate_args=${rotate_args//\{work\}/$WORK}

say() { echo "run.sh: $*" >&2; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

if [ ! -x "$rotate" ]; then
  say "no rotate binary at $rotate (swift build -c release first, or set ROTATE)"
  exit 1
fi
if ! command -v redis-server > /dev/null; then
  if [ "$(id -u)" != 0 ]; then
    say "redis-server is not on PATH and installing it needs root: apt-get install -y redis-server (Debian package redis-server)"
    exit 1
  fi
  say "installing redis-server (Debian)"
  if ! { apt-get install -y redis-server > /dev/null 2>&1 \
         || { apt-get update > /dev/null 2>&1 && apt-get install -y redis-server > /dev/null 2>&1; }; }; then
    say "apt-get install -y redis-server failed: install the Debian package redis-server and run again"
    exit 1
  fi
fi
if ! "$venv/bin/python" -c "import redis, hiredis" 2> /dev/null; then
  say "installing redis and hiredis into $venv (PyPI)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q redis hiredis
fi
python=$venv/bin/python
say "$(redis-server --version)"

mkdir -p "$WORK"
places=$WORK/places.csv
reports=$WORK/reports.ndjson
if [ ! -f "$places" ] || [ ! -f "$reports" ] || [ "$(cat "$WORK/reports.args" 2> /dev/null)" != "$devices $per_device" ]; then
  say "generating 100000 places and $devices x $per_device reports in $WORK"
  rm -f "$WORK"/reports-*.ndjson
  "$rotate" generate --count 100000 --side-km 400 --distribution clustered --seed 29 \
    --places-out "$WORK/places.tmp.csv" --reports-out "$WORK/reports.tmp.ndjson" \
    --devices "$devices" --reports-per-device "$per_device"
  mv "$WORK/places.tmp.csv" "$places"
  mv "$WORK/reports.tmp.ndjson" "$reports"
  echo "$devices $per_device" > "$WORK/reports.args"
fi
total=$((devices * per_device))
if [ -n "$peer_reports" ] && [ "$peer_reports" -lt "$total" ]; then
  peer_file=$WORK/reports-$peer_reports.ndjson
  [ -f "$peer_file" ] || head -n "$peer_reports" "$reports" > "$peer_file"
  peer_count=$peer_reports
else
  peer_file=$reports
  peer_count=$total
fi

# --- redis-server: a fresh one (empty dir) per peer run, stopped on exit
redis_pid=
port=
stop_redis() {
  if [ -n "$redis_pid" ]; then
    kill "$redis_pid" 2> /dev/null || true
    wait "$redis_pid" 2> /dev/null || true
    redis_pid=
  fi
}
trap stop_redis EXIT
trap 'exit 130' INT TERM
start_redis() {
  stop_redis
  rm -rf "$WORK/redis"
  mkdir -p "$WORK/redis"
  port=$(python3 -c '
import socket
for port in range(6379, 6479):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port)); print(port); break
    except OSError:
        pass
    finally:
        s.close()')
  redis-server --bind 127.0.0.1 --port "$port" --dir "$WORK/redis" --appendonly yes \
    --appendfsync everysec --save "" --daemonize no --logfile "$WORK/redis/redis.log" &
  redis_pid=$!
  for _ in $(seq 100); do
    redis-cli -p "$port" ping > /dev/null 2>&1 && return 0
    kill -0 "$redis_pid" 2> /dev/null || break
    sleep 0.1
  done
  say "redis-server did not start (see $WORK/redis/redis.log)"
  exit 1
}

results=$WORK/results.tsv
: > "$results"
record() { # system reports seconds answers-file
  local updates
  updates=$(grep -c '"action":"update"' "$4" || true)
  printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$updates" >> "$results"
  local lines
  lines=$(wc -l < "$4")
  [ "$lines" = "$2" ] || say "warning: $1 wrote $lines answers for $2 reports"
}

for mode in $modes; do
  case $mode in
    pipeline) flags=() name="redis peer, pipelined 256" ;;
    single) flags=(--no-pipeline) name="redis peer, 1 report/round trip" ;;
    *) say "unknown PEER_MODES entry $mode"; exit 2 ;;
  esac
  start_redis
  start=$(now)
  "$python" Benchmarks/redis/peer.py --port "$port" --load "$places"
  end=$(now)
  say "places loaded into redis on port $port in $(elapsed "$start" "$end") s (not counted)"
  say "$name over $peer_count reports"
  start=$(now)
  "$python" Benchmarks/redis/peer.py --port "$port" "${flags[@]}" "${peer_args[@]}" < "$peer_file" > "$WORK/peer-$mode-answers.ndjson"
  end=$(now)
  record "$name" "$peer_count" "$(elapsed "$start" "$end")" "$WORK/peer-$mode-answers.ndjson"
  say "redis: $(redis-cli -p "$port" info memory | grep '^used_memory_human' | tr -d '\r'), AOF $(du -sh "$WORK/redis" | cut -f1)"
  stop_redis
done

run_rotate() { # file count label
  rm -f "$WORK"/rotate.db*
  say "rotate serve${rotate_args:+ $rotate_args} over $2 reports"
  local start end
  start=$(now)
  # shellcheck disable=SC2086
  "$rotate" serve --stdio --places "$places" $rotate_args < "$1" > "$WORK/rotate-$2-answers.ndjson" 2> "$WORK/rotate.err"
  end=$(now)
  record "rotate serve$3" "$2" "$(elapsed "$start" "$end")" "$WORK/rotate-$2-answers.ndjson"
}
run_rotate "$reports" "$total" ""
if [ "$peer_count" != "$total" ]; then
  run_rotate "$peer_file" "$peer_count" ""
fi

# --- sanity: each device's first answer, rotate's 17 places among the peer's 18 nearest
check_mode=${modes%% *}
"$python" - "$WORK/peer-$check_mode-answers.ndjson" "$WORK/rotate-$peer_count-answers.ndjson" << 'EOF' >&2
import json, sys
checked = agreed = 0
with open(sys.argv[1]) as peer, open(sys.argv[2]) as rotate:
    for _, p, r in zip(range(20000), peer, rotate):
        r = json.loads(r)
        if r.get("action") != "update" or "stop_refresh" in r:
            continue  # not a device's first selection
        p = json.loads(p)
        checked += 1
        agreed += {s["id"] for s in r["start"]} <= set(p.get("start", []))
print(f"run.sh: first selections in the first 20000 reports: {agreed} of {checked} agree "
      "(rotate's places among the peer's 18)")
EOF

echo
awk -F'\t' -v peer_count="$peer_count" '
  { rate = $2 / $3; printf "%-34s %10d %9.2f %12.0f %10d\n", $1, $2, $3, rate, $4
    if ($1 ~ /^rotate/ && $2 == peer_count) rotate_rate = rate
    if ($1 ~ /^redis/) { peer[++n] = $1; peer_rate[n] = rate } }
  BEGIN { printf "%-34s %10s %9s %12s %10s\n", "system", "reports", "seconds", "reports/s", "updates" }
  END { for (i = 1; i <= n; i++)
          printf "rotate/peer (%s): %.1fx\n", peer[i], rotate_rate / peer_rate[i] }' "$results"
if [ -n "$rotate_args" ]; then echo "(rotate serve args: $rotate_args)"; fi
if [ -n "${PEER_ARGS:-}" ]; then echo "(peer.py args: $PEER_ARGS)"; fi
