#!/usr/bin/env bash
# Creates or updates target/mcp-venv with the official MCP Python SDK (current major, 2.x) and
# jsonschema, for the MCP end-to-end test (crates/cli/tests/it/mcp.rs runs tests/mcp/e2e.py with
# it). Safe to run again: an existing venv with an older SDK (1.x) is upgraded in place, and a
# venv that already satisfies the requirements is left as it is without asking PyPI.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../../.." && pwd)"
venv="${MCP_VENV:-$root/target/mcp-venv}"
requirements=("mcp>=2.3,<3" "jsonschema>=4")
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" \
        || { echo "setup.sh: python3 -m venv failed (on Debian: apt-get install python3-venv)" >&2; exit 1; }
fi
# pip's own resolver decides whether the installed versions satisfy the requirements: a satisfied
# requirement is kept without contacting the index, an unsatisfied one (mcp 1.x) is upgraded.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${requirements[@]}" \
    || { echo "setup.sh: pip could not install ${requirements[*]} into $venv (is PyPI reachable?)" >&2; exit 1; }
"$venv/bin/python" - "$venv" <<'PY'
import importlib.metadata as m
import sys

version = m.version("mcp")
major = int(version.split(".")[0])
if major != 2:
    sys.exit(f"setup.sh: {sys.argv[1]} has mcp {version}, but the end-to-end test is written for mcp 2.x")
print("mcp", version, "jsonschema", m.version("jsonschema"), "in", sys.argv[1])
PY
