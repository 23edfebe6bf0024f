#!/usr/bin/env bash
# Installs the real checkers and formatters the containment tests run against
# (crates/analyze/tests/it/hostile_tools.rs, crates/toolkit/tests/it/hostile_tools.rs):
#   $EDITKIT_TEST_TOOLS/venv   a virtual environment with ruff and black (from PyPI)
#   $EDITKIT_TEST_TOOLS/npm    an npm prefix with prettier (from npm)
# EDITKIT_TEST_TOOLS defaults to target/test-tools in the repository. rustfmt comes from the
# Rust toolchain (`rustup component add rustfmt`). Safe to run again.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../../.." && pwd)"
tools="${EDITKIT_TEST_TOOLS:-$root/target/test-tools}"
venv="$tools/venv"
npm_prefix="$tools/npm"
mkdir -p "$tools"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
if ! "$venv/bin/ruff" --version >/dev/null 2>&1 || ! "$venv/bin/black" --version >/dev/null 2>&1; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "ruff>=0.6,<1" "black>=24,<27" \
        || { echo "setup.sh: pip could not install ruff and black (is PyPI reachable?)" >&2; exit 1; }
fi
if ! "$npm_prefix/bin/prettier" --version >/dev/null 2>&1; then
    command -v npm >/dev/null \
        || { echo "setup.sh: npm is missing; install Node.js (with npm) to get prettier" >&2; exit 1; }
    npm install --silent --no-audit --no-fund --prefix "$npm_prefix" --global "prettier@3" \
        || { echo "setup.sh: npm could not install prettier (is the npm registry reachable?)" >&2; exit 1; }
fi
if ! rustfmt --version >/dev/null 2>&1; then
    rustup component add rustfmt \
        || { echo "setup.sh: rustfmt is missing and rustup could not add it" >&2; exit 1; }
fi
echo "ruff $("$venv/bin/ruff" --version), $("$venv/bin/black" --version | head -n 1), prettier $("$npm_prefix/bin/prettier" --version), $(rustfmt --version) in $tools"
