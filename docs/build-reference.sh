#!/usr/bin/env bash
# The API reference of the product's modules, built with DocC from the toolchain (no package
# plugin: the package has no dependencies).
#
#   1. `swift build` (debug; incremental after CI's earlier debug build);
#   2. `swift-symbolgraph-extract` for each product module, public symbols only, from the build's
#      module directory (the flags `swift package dump-symbol-graph` passes);
#   3. `docc convert` of the catalog docs/Rotate.docc (the landing page and the articles) with
#      every module's symbol graph: one archive holding every module, each module a top-level
#      page beside the articles, prepared for static hosting.
#
# Warnings are errors (`--warnings-as-errors`): a symbol link (``FenceMonitor``) that does not
# resolve, in an article or in a doc comment, fails the build with exit 1.
#
# usage: docs/build-reference.sh     writes .build/reference/ (git-ignored); open it through any
#                                    static file server, e.g. `python3 -m http.server -d
#                                    .build/reference` and http://127.0.0.1:8000/documentation/rotate
set -euo pipefail
cd "$(dirname "$0")/.."
modules="Geodesy SpatialIndex PlatformFacts FencePlanner FenceRules EventEngine RotateJSON RotateFormats SyncService StateStore"
output=.build/reference
graphs=.build/reference-symbol-graphs

swift build
build=$(swift build --show-bin-path)

rm -rf "$graphs"
mkdir -p "$graphs"
for module in $modules; do
  swift-symbolgraph-extract -module-name "$module" -I "$build/Modules" \
    -I Sources/CPrefetch/include -I Sources/CSQLite -target "$(uname -m)-unknown-linux-gnu" \
    -minimum-access-level public -skip-inherited-docs -output-dir "$graphs"
done

rm -rf "$output"
docc convert docs/Rotate.docc --additional-symbol-graph-dir "$graphs" \
  --fallback-display-name rotate --fallback-bundle-identifier rotate \
  --transform-for-static-hosting --warnings-as-errors --output-path "$output"
echo "the API reference of $modules is in $output (open documentation/rotate through a static server)"
