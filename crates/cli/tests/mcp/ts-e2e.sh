#!/usr/bin/env bash
# Runs tests/mcp/e2e.mjs, the end-to-end test with the official MCP TypeScript SDK, against
# `editkit mcp` on stdio and streamable HTTP. The SDK is installed with npm under
# target/ts-sdk on the first run (pinned below; again when the pin changes). `cargo xtask ci`
# runs this script.
#
# Usage: ts-e2e.sh [EDITKIT_BINARY]   (default: builds and uses target/debug/editkit)
set -euo pipefail
root="$(cd "$(dirname "$0")/../../../.." && pwd)"
sdk="@modelcontextprotocol/sdk@1.32.2"
prefix="$root/target/ts-sdk"
editkit="${1:-}"
if [ -z "$editkit" ]; then
    (cd "$root" && cargo build --quiet -p editkit-cli)
    editkit="$root/target/debug/editkit"
fi
installed="$(node -p "require('$prefix/node_modules/@modelcontextprotocol/sdk/package.json').version" 2>/dev/null || true)"
if [ "$installed" != "${sdk##*@}" ]; then
    mkdir -p "$prefix"
    npm install --no-audit --no-fund --prefix "$prefix" "$sdk" \
        || { echo "ts-e2e.sh: npm could not install $sdk into $prefix (is the npm registry reachable?)" >&2; exit 1; }
fi
# ESM resolves packages next to the script: run a copy from the prefix.
cp "$root/crates/cli/tests/mcp/e2e.mjs" "$prefix/e2e.mjs"
node "$prefix/e2e.mjs" "$(cd "$(dirname "$editkit")" && pwd)/$(basename "$editkit")"
