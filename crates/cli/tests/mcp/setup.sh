#!/usr/bin/env bash
# Creates target/mcp-venv with the official MCP Python SDK, for the MCP end-to-end test
# (crates/cli/tests/it/mcp.rs runs tests/mcp/e2e.py with it). Safe to run again.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../../.." && pwd)"
venv="${MCP_VENV:-$root/target/mcp-venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import mcp" 2>/dev/null; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "mcp>=1.9,<2" \
        || { echo "setup.sh: pip could not install the MCP Python SDK (is PyPI reachable?)" >&2; exit 1; }
fi
"$venv/bin/python" -c "import importlib.metadata as m; print('mcp', m.version('mcp'), 'in $venv')"
