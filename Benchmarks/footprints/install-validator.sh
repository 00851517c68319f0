#!/usr/bin/env bash
# Creates the git-ignored venv Benchmarks/.peers/geojson-venv for
# Benchmarks/footprints/validate_geojson.py: geojson-validator (an independent RFC 7946 structure
# and geometry checker, built on shapely) and its dependencies, every version pinned.
# Idempotent: a venv that already has exactly these versions is left alone.
#
# Usage: bash Benchmarks/footprints/install-validator.sh   (PYTHON=python3.12 to pick the
# interpreter; Python >= 3.11, which numpy 2.4.6 and shapely 2.2.0 require)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="$root/Benchmarks/.peers/geojson-venv"
pins=(
    geojson-validator==0.7.0
    shapely==2.2.0
    numpy==2.4.6
    loguru==0.7.3
    requests==2.34.2
    certifi==2026.10.19.post1
    charset-normalizer==3.5.3
    idna==3.21
    urllib3==2.8.0
)
. "$(dirname "${BASH_SOURCE[0]}")/pinned-venv.sh"
pinned_venv geojson "$venv" 'import importlib.metadata as m, shapely; print("geojson venv ready:", "geojson-validator", m.version("geojson-validator"), "shapely", shapely.__version__)' "${pins[@]}"
