#!/usr/bin/env bash
# CI check of the API reference: builds it (docs/build-reference.sh: warnings, such as a symbol
# link that does not resolve, are errors), serves .build/reference on 127.0.0.1 with Python's
# static file server, and loads the main pages in headless Chromium. The pages are rendered by
# JavaScript, so each page's rendered DOM must hold content that only the renderer puts there:
#
#   the landing page       both articles' titles
#   each article           its title and a phrase from its body
#   FenceMonitor's page    the type's summary, from its doc comment
#
# It also saves a screenshot of the landing page to .build/reference-screenshot.png. Exit 1 with
# the page and the missing text on any failure.
#
# Needs python3 and chromium (Debian: `apt-get install -y chromium`; installed here when missing
# and running as root).
set -euo pipefail
cd "$(dirname "$0")/.."

docs/build-reference.sh

.ci/ensure-chromium check-reference

work=$(mktemp -d)
server=
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2> /dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# A free port: the kernel picks one for a socket bound to port 0.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
python3 -m http.server "$port" --bind 127.0.0.1 --directory .build/reference > "$work/server.log" 2>&1 &
server=$!
base="http://127.0.0.1:$port"
for _ in $(seq 50); do
  if python3 -c "import urllib.request; urllib.request.urlopen('$base/documentation/rotate/')" 2> /dev/null; then break; fi
  sleep 0.1
done

chrome=(chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=10000)
status=0
# check PATH TEXT...: the rendered DOM of PATH must contain every TEXT.
check() {
  local path=$1
  shift
  local dom="$work/dom.html"
  if ! "${chrome[@]}" --dump-dom "$base/$path" > "$work/page.html" 2> "$work/chromium.log"; then
    echo "check-reference: chromium failed to load $path:" >&2
    tail -5 "$work/chromium.log" >&2
    status=1
    return
  fi
  # The text without its tags: code voice is split by <wbr> (word-break) tags.
  sed 's/<[^>]*>//g' "$work/page.html" > "$dom"
  local missing=0
  for text in "$@"; do
    if ! grep -qF -- "$text" "$dom"; then
      echo "check-reference: $path: the rendered page lacks \"$text\"" >&2
      missing=1
    fi
  done
  if [ "$missing" = 0 ]; then echo "rendered $path: $*"; else status=1; fi
}

check documentation/rotate "Embedding in a sync service" "On the phone" "EventEngine" "SyncService"
check documentation/rotate/embeddinginasyncservice "Embedding in a sync service" "What to store, and when" "isWorthStoring(comparedTo:)"
check documentation/rotate/onthephone "On the phone" "startMonitoringSignificantLocationChanges()" "registrationRadiusMeters(minimum:)"
check documentation/eventengine/fencemonitor "One device’s geofence event engine"

if ! "${chrome[@]}" --window-size=1280,900 --screenshot="$PWD/.build/reference-screenshot.png" \
  "$base/documentation/rotate" > /dev/null 2> "$work/chromium.log"; then
  echo "check-reference: the screenshot of the landing page failed:" >&2
  tail -5 "$work/chromium.log" >&2
  status=1
fi

if [ "$status" = 0 ]; then
  echo "the API reference renders: landing page, both articles, FenceMonitor (screenshot: .build/reference-screenshot.png)"
fi
exit "$status"
