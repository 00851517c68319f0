#!/usr/bin/env bash
# Creates the git-ignored venv Benchmarks/.peers/stays-venv for Benchmarks/stays/peer_stays.py:
# trackintel (MIT; an independent stay detector, its sliding staypoints after Li et al. 2008) and
# its dependencies, every version pinned. Idempotent: a venv that already has exactly these
# versions is left alone.
#
# Usage: bash Benchmarks/stays/install.sh   (PYTHON=python3.12 to pick the interpreter; Python
# >= 3.11, which trackintel 1.4.2 and numpy 2.4.6 require)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="$root/Benchmarks/.peers/stays-venv"
pins=(
    certifi==2026.10.19.post1
    charset-normalizer==3.5.3
    cloudpickle==3.1.3
    contourpy==1.3.3
    cycler==0.12.1
    fonttools==4.69.1
    GeoAlchemy2==0.21.0
    geopandas==1.2.0
    idna==3.21
    joblib==1.6.0
    kiwisolver==1.5.1
    matplotlib==3.11.2
    narwhals==2.29.0
    networkx==3.6.1
    numpy==2.4.6
    osmnx==2.1.1
    packaging==26.4
    pandas==3.1.2
    pillow==13.0.0
    pyogrio==0.13.0
    pyparsing==3.3.3
    pyproj==3.7.2
    python-dateutil==4.0.0
    requests==2.34.2
    scikit-learn==1.9.1
    scipy==1.17.1
    shapely==2.2.0
    similaritymeasures==1.5.0
    SQLAlchemy==2.1.9
    threadpoolctl==3.8.0
    tqdm==4.70.1
    trackintel==1.4.2
    typing_extensions==4.16.0
    tzdata==2026.6
    urllib3==2.8.0
)
. "$root/Benchmarks/footprints/pinned-venv.sh"
pinned_venv stays "$venv" 'import trackintel; print("stays venv ready: trackintel", trackintel.__version__)' "${pins[@]}"
