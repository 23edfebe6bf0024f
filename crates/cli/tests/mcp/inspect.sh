#!/usr/bin/env bash
# Runs the MCP Inspector's CLI mode against `editkit mcp`: tools/list, then tools/call for each
# tool family (read, write/edit, patch, search, code, diff, editor session, undo) and every tool
# added for agents (read_files, tree, move, file_info, create_directory, insert_lines, list_roots,
# a recursive delete undone with undo_patch), on a throwaway project; then the default tool list
# (the core set, under 20 KB). Each call must succeed; the ambiguous edit at the end must come back with isError.
# `cargo xtask mcp-inspect` runs this script. The first run downloads the Inspector (~110 MB).
#
# Usage: inspect.sh [EDITKIT_BINARY]   (default: builds and uses target/debug/editkit)
set -euo pipefail
root="$(cd "$(dirname "$0")/../../../.." && pwd)"
editkit="${1:-}"
if [ -z "$editkit" ]; then
    (cd "$root" && cargo build --quiet -p editkit-cli)
    editkit="$root/target/debug/editkit"
fi
inspector="${MCP_INSPECTOR:-@modelcontextprotocol/inspector}"
project="$(mktemp -d)"
trap 'rm -rf "$project"' EXIT
mkdir -p "$project/src"
printf 'def greet(name):\n    return "hello " + name\n\n\nclass Shop:\n    def total(self):\n        return 0\n' > "$project/src/app.py"
printf '# Notes\n\nsame\nsame\n' > "$project/notes.md"

inspect() {
    npx -y "$inspector" --cli "$editkit" mcp --tools all --output-schemas --root "$project" "$@"
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
default_list="$(npx -y "$inspector" --cli "$editkit" mcp --root "$project" --method tools/list)"
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

if [ "$failures" -ne 0 ]; then
    echo "inspect.sh: $failures check(s) failed"; exit 1
fi
echo "inspect.sh: all Inspector checks passed"
