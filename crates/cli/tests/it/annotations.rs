//! The MCP tool annotations hold: each tool of `--tools all` is called on a fresh workspace and
//! the files are compared before and after. `readOnlyHint` promises no change at all,
//! `destructiveHint: false` that nothing there before is removed or rewritten (only added to),
//! `idempotentHint` that a second identical call changes nothing more. A hint of `false` where
//! `true` would hold is allowed (it promises nothing); a tool that writes must show a change, so
//! each sample call is one that does something.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use super::mcp::Session;
use super::{root_arg, workspace};

const NOTEBOOK: &str = r#"{"cells": [{"cell_type": "code", "execution_count": null, "id": "c1", "metadata": {}, "outputs": [], "source": ["x = 1"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
"#;

const PATCH: &str = "*** Begin Patch\n*** Update File: lib/util.py\n@@\n-VERSION = 1\n+VERSION = 2\n*** End Patch\n";

fn fixture() -> tempfile::TempDir {
    workspace(&[
        ("src/app.py", "def greet(name):\n    return 'hello ' + name\n\n\ndef main():\n    print(greet('world'))\n"),
        ("notes.md", "# Notes\n\nsome text\n"),
        ("old/gone.txt", "bye\n"),
        ("lib/util.py", "VERSION = 1\n"),
        ("nb.ipynb", NOTEBOOK),
        ("PROJECT.md", "# Proj\n\n## Description\n\nold description\n"),
    ])
}

/// A call that does what the tool is for on the fixture: the calls that set it up (an editor
/// session's `$session` is the first setup's `session_id`), then its arguments.
fn sample(tool: &str) -> Option<(Vec<(&'static str, Value)>, Value)> {
    let load = ("editor_load", json!({"path": "src/app.py"}));
    let edit = ("edit_file", json!({"path": "src/app.py", "old_string": "'hello '", "new_string": "'hi '"}));
    let session = json!({"session_id": "$session"});
    Some(match tool {
        "read_file" | "file_symbols" | "check_syntax" | "editor_load" => (vec![], json!({"path": "src/app.py"})),
        "write_file" => (vec![], json!({"path": "notes.md", "content": "# New\n"})),
        "write_python_file" => (vec![], json!({"path": "src/app.py", "content": "X = 1\n"})),
        "write_markdown_file" => (vec![], json!({"path": "notes.md", "content": "# Doc\n"})),
        "edit_file" | "edit_python_file" => (vec![], edit.1.clone()),
        "merge_snippet" => (
            vec![],
            json!({"path": "src/app.py", "snippet": "def greet(name):\n    return 'hey ' + name\n\n\ndef main():\n"}),
        ),
        "insert_lines" => (vec![], json!({"path": "notes.md", "line": 1, "text": "added"})),
        "generate_diff" => (vec![], json!({"path": "notes.md", "new_content": "x\n"})),
        "list_dir" => (vec![], json!({"path": "."})),
        "exists" | "file_info" => (vec![], json!({"path": "notes.md"})),
        "create_directory" => (vec![], json!({"path": "made/deep"})),
        "delete" => (vec![], json!({"path": "old/gone.txt"})),
        "read_files" => (vec![], json!({"paths": ["notes.md", "src/app.py"]})),
        "tree" | "list_roots" | "history" => (vec![], json!({})),
        "move" => (vec![], json!({"from": "lib/util.py", "to": "lib/moved.py"})),
        "undo_patch" => (vec![("apply_patch", json!({"patch": PATCH}))], json!({})),
        "undo_edit" => (vec![edit], json!({"path": "src/app.py"})),
        "editor_read" | "editor_diff" | "editor_clear" | "editor_store" => {
            let setup = if tool == "editor_store" {
                vec![
                    load,
                    ("editor_edit", json!({"session_id": "$session", "old_string": "'hello '", "new_string": "'hi '"})),
                ]
            } else {
                vec![load]
            };
            (setup, session)
        }
        "editor_write" => (vec![load], json!({"session_id": "$session", "text": "Y = 2\n"})),
        "editor_edit" => {
            (vec![load], json!({"session_id": "$session", "old_string": "'hello '", "new_string": "'hi '"}))
        }
        "notebook_read" => (vec![], json!({"path": "nb.ipynb"})),
        "notebook_edit" => {
            (vec![], json!({"path": "nb.ipynb", "action": "replace", "cell_id": "c1", "source": "x = 2"}))
        }
        "replace_function" => (
            vec![],
            json!({"path": "src/app.py", "function_name": "greet", "new_implementation": "def greet(name):\n    return name\n"}),
        ),
        "update_project_index" => (vec![], json!({"description": "new description"})),
        "search_files" | "search_code" => (vec![], json!({"pattern": "greet"})),
        "glob" => (vec![], json!({"pattern": "**/*.py"})),
        "apply_patch" => (vec![], json!({"patch": PATCH})),
        "find_symbol" => (vec![], json!({"name_path": "greet", "language": "python"})),
        "find_references" => (vec![], json!({"path": "src/app.py", "line": 1, "symbol": "greet"})),
        "rename_symbol" => (vec![], json!({"path": "src/app.py", "line": 1, "symbol": "greet", "new_name": "welcome"})),
        "diagnostics" => (vec![], json!({"path": "lib/util.py"})),
        _ => return None,
    })
}

/// Every file (its bytes) and folder (`None`) under `root`.
fn snapshot(root: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    let mut seen = BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("the workspace is readable") {
            let path = entry.expect("an entry").path();
            let name = path.strip_prefix(root).expect("under the root").to_string_lossy().into_owned();
            if path.is_dir() {
                seen.insert(name, None);
                stack.push(path);
            } else {
                seen.insert(name, Some(std::fs::read(&path).expect("a file is readable")));
            }
        }
    }
    seen
}

/// Whether every line of `before` is still in `after`, in order (only lines were added).
fn only_added(before: &[u8], after: &[u8]) -> bool {
    let before = String::from_utf8_lossy(before);
    let after = String::from_utf8_lossy(after);
    let mut rest = after.lines();
    before.lines().all(|line| rest.any(|other| other == line))
}

/// Calls `tool` with `args` (`$session` replaced), failing the test on a refusal.
#[track_caller]
fn call(session: &mut Session, id: &mut u64, tool: &str, args: &Value, editor: Option<&str>) -> Value {
    let mut text = args.to_string();
    if let Some(editor) = editor {
        text = text.replace("$session", editor);
    }
    let args: Value = serde_json::from_str(&text).expect("arguments are JSON");
    *id += 1;
    let reply = session.request(*id, "tools/call", json!({"name": tool, "arguments": args}));
    let result = &reply["result"];
    assert_eq!(result["isError"], false, "{tool} {args}: {reply}");
    result["structuredContent"].clone()
}

#[test]
fn every_tools_annotations_hold_for_what_it_does() {
    let probe = fixture();
    let mut session = Session::start(&["--tools", "all", "--root", &root_arg(probe.path())]);
    let listed = session.request(2, "tools/list", json!({}));
    session.finish();
    let tools = listed["result"]["tools"].as_array().unwrap_or_else(|| panic!("{listed}")).clone();
    assert!(tools.len() > 30, "{} tools", tools.len());
    for tool in &tools {
        let name = tool["name"].as_str().expect("a name");
        let hint = |key: &str| tool["annotations"][key].as_bool().unwrap_or_else(|| panic!("{name}: no {key}"));
        let (read_only, destructive, idempotent) =
            (hint("readOnlyHint"), hint("destructiveHint"), hint("idempotentHint"));
        let (setup, args) = sample(name).unwrap_or_else(|| panic!("no sample call for {name}: add one"));
        let dir = fixture();
        let mut session = Session::start_with_servers(&["--tools", "all", "--root", &root_arg(dir.path())]);
        let mut id = 10;
        let mut editor = None;
        for (tool, setup_args) in &setup {
            let answer = call(&mut session, &mut id, tool, setup_args, editor.as_deref());
            if let Some(opened) = answer["session_id"].as_str() {
                editor.get_or_insert_with(|| opened.to_owned());
            }
        }
        let before = snapshot(dir.path());
        call(&mut session, &mut id, name, &args, editor.as_deref());
        let after = snapshot(dir.path());
        if read_only {
            assert_eq!(before, after, "{name} is marked read-only but changed the files");
        } else {
            assert_ne!(before, after, "{name} writes, but its sample call changed nothing: pick one that does");
        }
        if !destructive {
            for (path, content) in &before {
                let kept = match (content, after.get(path)) {
                    (None, Some(None)) => true,
                    (Some(old), Some(Some(new))) => only_added(old, new),
                    _ => false,
                };
                assert!(kept, "{name} is marked not destructive but removed or rewrote {path}");
            }
        }
        if idempotent {
            // The tool's own refusal of a repeat (nothing left to do) also changes nothing.
            id += 1;
            let mut text = args.to_string();
            if let Some(editor) = &editor {
                text = text.replace("$session", editor);
            }
            let args: Value = serde_json::from_str(&text).expect("arguments are JSON");
            session.request(id, "tools/call", json!({"name": name, "arguments": args}));
            assert_eq!(after, snapshot(dir.path()), "{name} is marked idempotent but a second call changed the files");
        }
        session.finish();
    }
}
