#!/usr/bin/env bash
# Creates or updates target/nbformat-venv with Jupyter's own `nbformat`, whose validator the
# notebook tests (crates/toolkit/tests/it/notebooks.rs) run on every notebook they write. Safe to
# run again: a venv that already satisfies the requirement is left as it is without asking PyPI.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../../.." && pwd)"
venv="${NBFORMAT_VENV:-$root/target/nbformat-venv}"
requirements=("nbformat>=5.7,<6")
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" \
        || { echo "setup.sh: python3 -m venv failed (on Debian: apt-get install python3-venv)" >&2; exit 1; }
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${requirements[@]}" \
    || { echo "setup.sh: pip could not install ${requirements[*]} into $venv (is PyPI reachable?)" >&2; exit 1; }
"$venv/bin/python" -c 'import sys, nbformat; print("nbformat", nbformat.__version__, "in", sys.prefix)'
