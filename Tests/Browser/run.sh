#!/usr/bin/env bash
# The HTML replays in headless Chromium (see check_replay.py): the README's plan replayed with the
# network off, the slider checked against the plan trace, a screenshot kept in
# .build/replay-check/replay.png; then simulate's replay of rotate on iOS and on Android over the
# same walk, checked against the phone's registration log and the run's figures (screenshots in
# .build/replay-check/ios and .build/replay-check/android); then rotate on iOS over Helsinki's
# places, most registered by approach regions (.build/replay-check/helsinki-ios). Needs python3,
# chromium (Debian: `apt-get install -y chromium`; installed here when missing and running as
# root) and a release build of rotate.
#
#   Tests/Browser/run.sh [ROTATE]
set -euo pipefail
cd "$(dirname "$0")/../.."
rotate=${1:-.build/release/rotate}

.ci/ensure-chromium check-replay

check=(python3 Tests/Browser/check_replay.py --rotate "$rotate" --places Datasets/shops-500.csv --walk Datasets/walk-6km.csv)
"${check[@]}" --out .build/replay-check
for phone in ios android; do
  "${check[@]}" --platform "$phone" --out ".build/replay-check/$phone"
done
# Helsinki's shops, cafés and buildings: most are smaller than iOS resolves, so rotate registers
# them by approach regions, which the page must draw exactly while their places are monitored.
python3 Tests/Browser/check_replay.py --rotate "$rotate" --places Datasets/helsinki-places-mixed.geojson \
  --walk Datasets/walk-helsinki.csv --platform ios --expect-approach --out .build/replay-check/helsinki-ios
echo "check-replay: screenshots in .build/replay-check/replay.png, ios/, android/ and helsinki-ios/replay.png"
