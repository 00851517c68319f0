#!/usr/bin/env bash
# The HTML replay in headless Chromium (see check_replay.py): the README's plan replayed with the
# network off, the slider checked against the plan trace, a screenshot kept in
# .build/replay-check/replay.png. Needs python3, chromium (Debian: `apt-get install -y chromium`;
# installed here when missing and running as root) and a release build of rotate.
#
#   Tests/Browser/run.sh [ROTATE]
set -euo pipefail
cd "$(dirname "$0")/../.."
rotate=${1:-.build/release/rotate}

.ci/ensure-chromium check-replay

python3 Tests/Browser/check_replay.py --rotate "$rotate" --places Datasets/shops-500.csv --walk Datasets/walk-6km.csv \
  --out .build/replay-check
echo "check-replay: screenshot in .build/replay-check/replay.png"
