# Sourced by install.sh and install-validator.sh: makes a git-ignored venv holding exactly the
# pinned packages, and leaves one that already does alone.
#
# pinned_venv NAME VENV CHECK PIN...: VENV is the venv's folder, CHECK Python code run in it
# once installed (it prints what it found), PIN each `package==version`; PYTHON picks the
# interpreter (default python3, at least 3.11).
pinned_venv() {
    local name="$1" venv="$2" check="$3"
    shift 3
    local python="${PYTHON:-python3}"
    local want have
    want="$(printf '%s\n' "$@" | sort -f)"
    if [ -x "$venv/bin/python" ]; then
        have="$("$venv/bin/python" -m pip freeze --all 2>/dev/null | grep -v -i -E '^(pip|setuptools|wheel|six)==' | sort -f || true)"
        if [ "$have" = "$want" ]; then
            echo "$name venv up to date: $venv"
            return 0
        fi
    fi
    "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python >= 3.11 needed")'
    "$python" -m venv --clear "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
    "$venv/bin/python" -c "$check"
}
