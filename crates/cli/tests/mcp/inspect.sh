#!/usr/bin/env bash
# Runs the MCP Inspector's CLI mode (the current release, pinned below) against `editkit mcp`.
# Protocol 2025-11-25 (the Inspector's default, legacy era): tools/list, then tools/call for each
# tool family (read, write/edit, patch, search, code, diff, editor session, undo) and every tool
# added for agents (read_files, tree, move, file_info, create_directory, insert_lines, list_roots,
# a recursive delete undone with undo_patch), on a throwaway project; then the default tool list
# (the core set, under 20 KB). Each call must succeed; the ambiguous edit at the end must come
# back with isError. Protocol 2026-07-28 (`--protocol-era modern`, which declares the tasks
# extension): read -> edit with the read's sha256 -> a stale write refused -> a 40-file patch
# run as a task (the wire shows the task and its tasks/get) -> a big search answered as its head
# plus a resource link, read back with resources/read. Every Inspector run is its own server
# process, so the 2026-07-28 steps also show the guard and the links across processes.
# The Inspector and the Node.js it needs (>= 22.19; the npm package `node` ships one) are
# installed with npm under target/inspector on the first run (again when a pin changes).
# `cargo xtask mcp-inspect` runs this script; `cargo xtask ci` too.
#
# Usage: inspect.sh [EDITKIT_BINARY]   (default: builds and uses target/debug/editkit)
set -euo pipefail
root="$(cd "$(dirname "$0")/../../../.." && pwd)"
inspector_pkg="@modelcontextprotocol/inspector@2.12.0"
node_pkg="node@22.23.3"
prefix="$root/target/inspector"
editkit="${1:-}"
if [ -z "$editkit" ]; then
    (cd "$root" && cargo build --quiet -p editkit-cli)
    editkit="$root/target/debug/editkit"
fi
editkit="$(cd "$(dirname "$editkit")" && pwd)/$(basename "$editkit")"
version_of() { node -p "require('$prefix/node_modules/$1/package.json').version" 2>/dev/null || true; }
if [ "$(version_of @modelcontextprotocol/inspector)" != "${inspector_pkg##*@}" ] || [ "$(version_of node)" != "${node_pkg##*@}" ]; then
    mkdir -p "$prefix"
    npm install --no-audit --no-fund --prefix "$prefix" "$node_pkg" "$inspector_pkg" \
        || { echo "inspect.sh: npm could not install $inspector_pkg and $node_pkg into $prefix (is the npm registry reachable?)" >&2; exit 1; }
fi
node22="$prefix/node_modules/node/bin"
launcher="$prefix/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
inspector_cli() {
    PATH="$node22:$PATH" "$node22/node" "$launcher" --cli "$@"
}
project="$(mktemp -d)"
trap 'rm -rf "$project"' EXIT
mkdir -p "$project/src"
printf 'def greet(name):\n    return "hello " + name\n\n\nclass Shop:\n    def total(self):\n        return 0\n' > "$project/src/app.py"
printf '# Notes\n\nsame\nsame\n' > "$project/notes.md"

inspect() {
    inspector_cli "$editkit" mcp --tools all --output-schemas --root "$project" "$@"
}

failures=0
call() {
    local label="$1"; shift
    local out
    if ! out="$(inspect --method tools/call "$@" 2>&1)"; then
        echo "FAIL $label: the Inspector exited with an error"; echo "$out" | head -20; failures=$((failures + 1)); return
    fi
    if grep -q '"isError": true' <<<"$out"; then
        echo "FAIL $label: isError"; echo "$out" | head -20; failures=$((failures + 1)); return
    fi
    echo "ok   $label: $(tr -d '\n' <<<"$out" | tr -s ' ' | cut -c1-150)"
}

echo "== tools/list"
list="$(inspect --method tools/list)"
summary="$(python3 -c '
import json, sys
tools = json.load(sys.stdin)["tools"]
bad = [t["name"] for t in tools if "outputSchema" not in t or "annotations" not in t or t["inputSchema"].get("type") != "object"]
if bad:
    sys.exit("tools without schemas or annotations: " + ", ".join(bad))
ro = sum(1 for t in tools if t["annotations"].get("readOnlyHint"))
print(f"{len(tools)} tools, each with input and output schemas and annotations ({ro} read-only)")
' <<<"$list")" || { echo "FAIL tools/list: $summary"; exit 1; }
echo "ok   tools/list: $summary"

echo "== tools/call, one per family"
call "read   read_file"     --tool-name read_file --tool-arg path=src/app.py
call "read   tail"          --tool-name read_file --tool-arg path=src/app.py --tool-arg tail=2
call "read   list_dir"      --tool-name list_dir --tool-arg path=src
call "read   exists"        --tool-name exists --tool-arg path=notes.md
call "search search_files"  --tool-name search_files --tool-arg pattern=greet
call "search glob"          --tool-name glob --tool-arg 'pattern=**/*.py'
call "code   file_symbols"  --tool-name file_symbols --tool-arg path=src/app.py
call "code   check_syntax"  --tool-name check_syntax --tool-arg path=src/app.py
call "diff   generate_diff" --tool-name generate_diff --tool-arg path=notes.md --tool-arg 'new_content=# Notes'
call "write  write_file"    --tool-name write_file --tool-arg path=new.txt --tool-arg content=hello
call "edit   edit_file"     --tool-name edit_file --tool-arg path=src/app.py --tool-arg 'old_string=return 0' --tool-arg 'new_string=return 1'
call "patch  apply_patch"   --tool-name apply_patch --tool-arg "patch=*** Begin Patch
*** Update File: src/app.py
-        return 1
+        return 2
*** Add File: added.txt
+added
*** End Patch"
call "code   replace_function" --tool-name replace_function --tool-arg path=src/app.py --tool-arg function_name=greet --tool-arg 'new_implementation=def greet(name):
    return f"hi {name}"'
call "editor editor_load"   --tool-name editor_load --tool-arg path=notes.md
call "undo   undo_edit"     --tool-name undo_edit --tool-arg path=src/app.py
call "new    read_files"    --tool-name read_files --tool-arg 'paths=["src/app.py", "notes.md"]'
call "new    tree"          --tool-name tree --tool-arg depth=2 --tool-arg sizes=true
call "new    file_info"     --tool-name file_info --tool-arg path=src/app.py
call "new    create_directory" --tool-name create_directory --tool-arg path=build/out
call "new    insert_lines"  --tool-name insert_lines --tool-arg path=notes.md --tool-arg line=1 --tool-arg text=inserted --tool-arg force=true
call "new    move"          --tool-name move --tool-arg from=added.txt --tool-arg to=moved/added.txt
call "new    undo_patch"    --tool-name undo_patch
call "new    delete"        --tool-name delete --tool-arg path=src --tool-arg recursive=true
call "new    undo_patch"    --tool-name undo_patch
call "new    list_roots"    --tool-name list_roots
[ -f "$project/added.txt" ] && [ -f "$project/src/app.py" ] || { echo "FAIL undo_patch did not restore the moved and deleted files"; failures=$((failures + 1)); }

echo "== a refusal comes back as a tool error"
out="$(inspect --method tools/call --tool-name edit_file --tool-arg path=notes.md --tool-arg old_string=same --tool-arg new_string=other 2>&1 || true)"
if grep -q '"isError": true' <<<"$out" && grep -q 'ambiguous' <<<"$out"; then
    echo "ok   ambiguous edit_file: isError with kind ambiguous"
else
    echo "FAIL ambiguous edit_file: expected isError"; echo "$out" | head -20; failures=$((failures + 1))
fi

out="$(inspect --method tools/call --tool-name read_file --tool-arg offset=2 2>&1 || true)"
if grep -q '"isError": true' <<<"$out" && grep -q 'invalid_args' <<<"$out"; then
    echo "ok   read_file without path: isError with kind invalid_args"
else
    echo "FAIL read_file without path: expected isError"; echo "$out" | head -20; failures=$((failures + 1))
fi

echo "== the default tool list"
default_list="$(inspector_cli "$editkit" mcp --root "$project" --method tools/list)"
summary="$(python3 -c '
import json, sys
text = sys.stdin.read()
tools = json.loads(text)["tools"]
size = len(json.dumps({"tools": tools}, separators=(",", ":")))
if size >= 20000:
    sys.exit(f"the default tools/list is {size} bytes")
print(f"{len(tools)} tools in {size} bytes")
' <<<"$default_list")" || { echo "FAIL default tools/list: $summary"; failures=$((failures + 1)); }
echo "ok   default tools/list: $summary"

echo "== protocol 2026-07-28 (--protocol-era modern): read, edit, stale refusal, patch as a task, a big search as a link"
modern_dir="$(mktemp -d)"
trap 'rm -rf "$project" "$modern_dir"' EXIT
work="$modern_dir/project"
mkdir -p "$work/src"
printf '# Notes\n' > "$work/notes.md"
for n in $(seq 1 40); do printf 'VERSION = 1\n' > "$work/src/mod_$n.py"; done
for n in $(seq 1 900); do printf 'needle %d\n' "$n"; done > "$work/big.txt"
# The server's replies are kept (the Inspector prints only the final result), to show the task.
wire="$modern_dir/wire.jsonl"
printf '#!/usr/bin/env bash\n"%s" "$@" | tee -a "%s"\n' "$editkit" "$wire" > "$modern_dir/editkit-logged"
chmod +x "$modern_dir/editkit-logged"
modern() {
    inspector_cli "$modern_dir/editkit-logged" mcp --root "$work" --protocol-era modern --format json "$@" 2>"$modern_dir/stderr"
}
# Reads a JSON result on stdin and prints what the Python expression over it (`r`) gives.
field() { python3 -c 'import json, sys; r = json.load(sys.stdin)["result"]; print(eval(sys.argv[1]))' "$1" 2>/dev/null; }
modern_check() {
    local label="$1" ok="$2" shown="$3"
    if [ "$ok" = "True" ]; then
        echo "ok   $label"
    else
        echo "FAIL $label: $(cut -c1-400 <<<"$shown")"; failures=$((failures + 1))
    fi
}

out="$(modern --method tools/call --tool-name read_file --tool-args-json '{"path": "notes.md"}' || true)"
sha="$(field 'r["structuredContent"]["sha256"]' <<<"$out" || true)"
modern_check "read_file notes.md: sha256 ${sha:0:12}" "$([ ${#sha} -eq 64 ] && echo True)" "$out"

out="$(modern --method tools/call --tool-name edit_file --tool-args-json "{\"path\": \"notes.md\", \"old_string\": \"# Notes\", \"new_string\": \"# Notes, edited\", \"expected_hash\": \"$sha\"}" || true)"
modern_check "edit_file with the read's sha256 (another server process)" \
    "$(grep -qx '# Notes, edited' "$work/notes.md" && field 'not r.get("isError")' <<<"$out")" "$out"

out="$(modern --method tools/call --tool-name read_file --tool-args-json '{"path": "notes.md"}' || true)"
sha="$(field 'r["structuredContent"]["sha256"]' <<<"$out" || true)"
printf '# Notes, changed by a person\n' > "$work/notes.md"
out="$(modern --method tools/call --tool-name write_file --tool-args-json "{\"path\": \"notes.md\", \"content\": \"# by the agent\\n\", \"expected_hash\": \"$sha\"}" || true)"
modern_check "write_file after an outside change: isError, kind stale, the person's change kept" \
    "$(grep -qx '# Notes, changed by a person' "$work/notes.md" && field 'r.get("isError") is True and r["structuredContent"]["error"]["kind"] == "stale"' <<<"$out")" "$out"

patch="$(printf '*** Begin Patch\n'; for n in $(seq 1 40); do printf '*** Update File: src/mod_%d.py\n@@\n-VERSION = 1\n+VERSION = 2\n' "$n"; done; printf '*** End Patch\n')"
args="$(python3 -c 'import json, sys; print(json.dumps({"patch": sys.argv[1]}))' "$patch")"
: > "$wire"
out="$(modern --method tools/call --tool-name apply_patch --tool-args-json "$args" || true)"
changed="$(grep -lx 'VERSION = 2' "$work"/src/mod_*.py | wc -l)"
task="$(python3 -c '
import json, sys
replies = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
created = [m["result"] for m in replies if m.get("result", {}).get("resultType") == "task"]
done = [m for m in replies if created and m.get("result", {}).get("taskId") == created[0]["taskId"] and m["result"].get("status") == "completed"]
print(bool(created and done))
' "$wire" 2>&1)"
modern_check "apply_patch of 40 files: run as a task, polled to completion, $changed files changed" \
    "$([ "$changed" -eq 40 ] && [ "$task" = True ] && field 'not r.get("isError")' <<<"$out")" "task seen: $task; $out"

out="$(modern --method tools/call --tool-name search_files --tool-args-json '{"pattern": "needle", "max_results": 1000}' || true)"
uri="$(field '[b["uri"] for b in r["content"] if b["type"] == "resource_link"][0]' <<<"$out" || true)"
modern_check "search_files of 900 matches: its head and a resource_link ($uri)" \
    "$(field 'r["content"][0]["text"].startswith("900 matches") and "resources/read" in r["content"][0]["text"] and len(r["content"][0]["text"]) < 17 << 10' <<<"$out")" "$out"
out="$(modern --method resources/read --uri "$uri" || true)"
modern_check "resources/read of the link (another server process): all 900 matches" \
    "$(field 'sum(1 for line in r["contents"][0]["text"].splitlines() if line.startswith("big.txt:")) == 900' <<<"$out")" "$out"

if [ "$failures" -ne 0 ]; then
    echo "inspect.sh: $failures check(s) failed"; exit 1
fi
echo "inspect.sh: all Inspector checks passed"
