#!/usr/bin/env bash
# Creates the git-ignored venv Benchmarks/.peers/footprints-venv for Datasets/make_footprints.py
# and Benchmarks/footprints/check_shapely.py: pyrosm (reads .osm.pbf), shapely, pyproj and their
# dependencies, every version pinned (the same versions give the same bytes out of
# make_footprints.py). Idempotent: a venv that already has exactly these versions is left alone.
#
# Usage: bash Benchmarks/footprints/install.sh   (PYTHON=python3.12 to pick the interpreter;
# Python >= 3.11, which pyrosm 0.25.0 requires; pyproj 3.7.2 is the last release for 3.11)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="$root/Benchmarks/.peers/footprints-venv"
pins=(
    pyrosm==0.25.0
    shapely==2.2.0
    pyproj==3.7.2
    geopandas==1.2.0
    pandas==3.1.1
    numpy==2.4.6
    pyogrio==0.13.0
    protobuf==7.36.2
    python-rapidjson==1.25
    certifi==2026.10.19.post1
    packaging==26.4
    python-dateutil==4.0.0
    tqdm==4.70.1
    tzdata==2026.6
)
. "$(dirname "${BASH_SOURCE[0]}")/pinned-venv.sh"
pinned_venv footprints "$venv" 'import pyrosm, shapely, pyproj; print("footprints venv ready:", "pyrosm", pyrosm.__version__, "shapely", shapely.__version__, "pyproj", pyproj.__version__)' "${pins[@]}"
