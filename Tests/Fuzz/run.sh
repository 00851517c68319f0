#!/usr/bin/env bash
# Builds and runs rotate's libFuzzer targets (places CSV, walk CSV, GPX, the sidecar's JSON lines,
# places GeoJSON).
#
# usage: Tests/Fuzz/run.sh [SECONDS] [TARGET...]      (default: 60 seconds each, every target)
# Each library module is compiled with -sanitize=fuzzer,address into .build/fuzz, then each target
# is linked with libFuzzer and run over its seed corpus (Tests/Fuzz/corpus/TARGET, kept small;
# new inputs go to .build/fuzz/corpus-TARGET, not into the repository). A crash or a hang fails
# the run and leaves the input in .build/fuzz/ (turn it into a regression test). The run is seeded
# (FUZZ_SEED, default 1) so that CI repeats itself; FUZZ_SEED=0 lets libFuzzer pick a seed, for
# longer runs that look further. Leaks inside the
# toolchain's Foundation are suppressed by name (Tests/Fuzz/lsan-suppressions.txt); any other leak fails.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
seed=${FUZZ_SEED:-1}
shift || true
targets=${*:-"places walk-csv gpx sidecar geojson"}
out=.build/fuzz
mkdir -p "$out"
# Sources/CPrefetch/include: the C module SpatialIndex imports (a header and its module map).
flags=(-sanitize=fuzzer,address -parse-as-library -Onone -g -I "$out" -I Sources/CPrefetch/include -L "$out" -swift-version 6 -package-name rotate)

# In dependency order; once a module is rebuilt, every module after it is rebuilt too.
rebuild=0
for module in Geodesy SpatialIndex PlatformFacts FencePlanner FenceRules EventEngine RotateJSON RotateFormats SyncService; do
  if [ "$rebuild" = 1 ] || [ ! -f "$out/lib$module.a" ] || [ -n "$(find Sources/$module -newer "$out/lib$module.a" -name '*.swift')" ]; then
    rebuild=1
    echo "== compiling $module" >&2
    swiftc "${flags[@]}" -module-name "$module" -emit-module -emit-module-path "$out/$module.swiftmodule" \
      -emit-library -static -o "$out/lib$module.a" Sources/$module/*.swift
  fi
done
libs=(-lSyncService -lRotateFormats -lRotateJSON -lEventEngine -lFenceRules -lFencePlanner -lPlatformFacts -lSpatialIndex -lGeodesy)

for target in $targets; do
  define=$(echo "FUZZ_$target" | tr 'a-z-' 'A-Z_')
  echo "== fuzzing $target for $seconds s" >&2
  # CSVRecordCount.swift: the tests' independent row count (standard library only), compiled in.
  swiftc "${flags[@]}" -D "$define" Tests/Fuzz/FuzzTargets.swift Tests/RotateTestSupport/CSVRecordCount.swift "${libs[@]}" -o "$out/fuzz-$target"
  mkdir -p "$out/corpus-$target"
  LSAN_OPTIONS="suppressions=$PWD/Tests/Fuzz/lsan-suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
    "$out/fuzz-$target" -seed="$seed" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -artifact_prefix="$out/$target-" \
    "$out/corpus-$target" "Tests/Fuzz/corpus/$target"
done
