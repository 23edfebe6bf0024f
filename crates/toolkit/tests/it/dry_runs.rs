//! The read-only gate: a read-only toolkit refuses every real write and runs every dry run,
//! whichever tool writes, through JSON and through the typed methods. A dry run writes
//! nothing, so it is answered as a writable toolkit answers it.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

const PY: &str = "def f():\n    return 1\n";
const NB: &str = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 1,\n   \"id\": \"c1\",\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"x = 1\"\n   ]\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";

/// A workspace of a few files, opened read-only or not.
fn open(read_only: bool) -> (tempfile::TempDir, editkit::Toolkit) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in [("a.txt", "one\ntwo\n"), ("f.py", PY), ("PROJECT.md", "# P\n"), ("n.ipynb", NB)] {
        std::fs::write(dir.path().join(path), text).unwrap();
    }
    std::fs::create_dir(dir.path().join("d")).unwrap();
    #[allow(unused_mut, reason = "the language servers are set with the `lsp` feature")]
    let mut options = editkit::ToolkitOptions { read_only, ..Default::default() };
    // rename_symbol's dry run asks the installed server.
    #[cfg(feature = "lsp")]
    {
        options.language_servers.path = Some(crate::support::servers_path());
    }
    let toolkit = editkit::Toolkit::open(dir.path(), options).unwrap();
    (dir, toolkit)
}

/// Every path under `root` with its bytes (directories as `None`).
fn snapshot(root: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    let mut seen = BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            if path.is_dir() {
                seen.insert(rel, None);
                stack.push(path);
            } else {
                seen.insert(rel, Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    seen
}

/// A call of each writing tool that a writable toolkit would carry out. Every writing tool
/// must have one, so a writing tool added later is covered or this test fails.
fn call(tool: &str) -> Option<Value> {
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-two\n+2\n*** End Patch\n";
    Some(match tool {
        "write_file" => json!({"path": "a.txt", "content": "new\n"}),
        "write_python_file" => json!({"path": "f.py", "content": "x = 1\n"}),
        "write_markdown_file" => json!({"path": "PROJECT.md", "content": "# Other\n"}),
        "edit_file" => json!({"path": "a.txt", "old_string": "two", "new_string": "2"}),
        "merge_snippet" => json!({"path": "a.txt", "snippet": "one\ntwo\nthree\n"}),
        "insert_lines" => json!({"path": "a.txt", "line": -1, "text": "three"}),
        "create_directory" => json!({"path": "e"}),
        "delete" => json!({"path": "a.txt"}),
        "move" => json!({"from": "a.txt", "to": "b.txt"}),
        "undo_patch" => json!({}),
        "undo_edit" => json!({"path": "a.txt"}),
        "editor_store" => json!({"session_id": "s1"}),
        "notebook_edit" => json!({"path": "n.ipynb", "cell_id": "c1", "action": "replace", "source": "x = 2"}),
        "edit_python_file" => json!({"path": "f.py", "old_string": "return 1", "new_string": "return 2"}),
        "replace_function" => {
            json!({"path": "f.py", "function_name": "f", "new_implementation": "def f():\n    return 2\n"})
        }
        "update_project_index" => json!({"project_name": "p", "description": "d"}),
        "apply_patch" => json!({ "patch": patch }),
        "rename_symbol" => json!({"path": "f.py", "line": 1, "symbol": "f", "new_name": "g"}),
        _ => return None,
    })
}

fn takes_dry_run(spec: &editkit::tools::ToolSpec) -> bool {
    spec.input_schema["properties"].get("dry_run").is_some()
}

#[test]
fn every_writing_tool_runs_a_dry_run_on_a_read_only_toolkit_as_on_a_writable_one() {
    let mut dry_runs = 0;
    for spec in editkit::tools::specs().into_iter().filter(|spec| !spec.read_only) {
        let mut args = call(spec.name).unwrap_or_else(|| panic!("no call for the writing tool `{}`", spec.name));
        let (dir, read_only) = open(true);
        let before = snapshot(dir.path());
        // A real write is refused, naming the tool, and nothing changes.
        let refused = editkit::tools::call(&read_only, spec.name, args.clone());
        assert_eq!(refused["error"]["kind"], "blocked", "{}: {refused}", spec.name);
        assert_eq!(refused["error"]["tool"], spec.name, "{}: {refused}", spec.name);
        assert_eq!(snapshot(dir.path()), before, "{} wrote on a read-only toolkit", spec.name);
        if !takes_dry_run(&spec) {
            continue;
        }
        // A dry run is answered as a writable toolkit answers it, and writes nothing.
        args["dry_run"] = json!(true);
        let answered = editkit::tools::call(&read_only, spec.name, args.clone());
        let (_writable_dir, writable) = open(false);
        let expected = editkit::tools::call(&writable, spec.name, args.clone());
        assert_eq!(expected["ok"], true, "{}: {expected}", spec.name);
        assert_eq!(answered, expected, "{}: a dry run answered differently on a read-only toolkit", spec.name);
        assert_eq!(snapshot(dir.path()), before, "{}'s dry run wrote on a read-only toolkit", spec.name);
        dry_runs += 1;
    }
    // edit_file, insert_lines, merge_snippet, notebook_edit, apply_patch (and the code tools).
    assert!(dry_runs >= 5, "{dry_runs}");
}

#[test]
fn insert_lines_and_edit_file_answer_a_typed_dry_run_on_a_read_only_toolkit_alike() {
    let (dir, toolkit) = open(true);
    let before = snapshot(dir.path());
    let insert: editkit::InsertLinesRequest =
        serde_json::from_value(json!({"path": "a.txt", "line": -1, "text": "three", "dry_run": true})).unwrap();
    let edit: editkit::EditFileRequest = serde_json::from_value(
        json!({"path": "a.txt", "old_string": "two", "new_string": "two\nthree", "dry_run": true}),
    )
    .unwrap();
    let inserted = toolkit.insert_lines(insert.clone()).map(|r| r.diff);
    let edited = toolkit.edit_file(edit.clone()).map(|r| r.diff);
    assert_eq!(inserted.as_deref().map_err(editkit::Error::to_string), edited.as_deref().map_err(|e| e.to_string()));
    assert!(edited.unwrap().contains("+three"));
    // And a real write is refused by both, as `blocked`.
    let (mut real_insert, mut real_edit) = (insert, edit);
    (real_insert.dry_run, real_edit.dry_run) = (false, false);
    assert_eq!(toolkit.insert_lines(real_insert).unwrap_err().error_kind(), editkit::ErrorKind::Blocked);
    assert_eq!(toolkit.edit_file(real_edit).unwrap_err().error_kind(), editkit::ErrorKind::Blocked);
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn every_writing_method_is_refused_through_the_typed_api_too() {
    let (dir, toolkit) = open(true);
    let before = snapshot(dir.path());
    let markdown: editkit::WriteMarkdownFileRequest =
        serde_json::from_value(json!({"path": "PROJECT.md", "content": "# Other\n"})).unwrap();
    let refused = toolkit.write_markdown_file(markdown).unwrap_err();
    assert_eq!(refused.error_kind(), editkit::ErrorKind::Blocked);
    assert!(refused.to_string().contains("`write_markdown_file`"), "{refused}");
    assert_eq!(snapshot(dir.path()), before);
}

#[cfg(feature = "search")]
#[test]
fn a_patch_dry_run_under_a_control_is_answered_as_without_one() {
    let (dir, toolkit) = open(true);
    let before = snapshot(dir.path());
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-two\n+2\n*** End Patch\n";
    let control = editkit::search::Control::new();
    let args = json!({"patch": patch, "dry_run": true});
    let controlled = editkit::tools::call_with_control(&toolkit, "apply_patch", args.clone(), &control);
    assert_eq!(controlled, editkit::tools::call(&toolkit, "apply_patch", args));
    assert_eq!(controlled["ok"], true, "{controlled}");
    let refused = editkit::tools::call_with_control(&toolkit, "apply_patch", json!({ "patch": patch }), &control);
    assert_eq!(refused["error"]["kind"], "blocked");
    assert_eq!(snapshot(dir.path()), before);
}

/// A dry run never recovers a crashed patch: `apply_patch` with `dry_run` on a read-only
/// toolkit rolled back the journal a killed patch left in the state folder (renaming its
/// backup over a workspace file, removing the journal) before planning.
#[test]
fn a_patch_dry_run_on_a_read_only_toolkit_never_recovers_a_crashed_patch() {
    let (dir, toolkit) = open(true);
    // What a patch killed while deleting `a.txt` leaves: its backup beside it, the journal.
    std::fs::rename(dir.path().join("a.txt"), dir.path().join(".editkit-patch-7-0.bak")).unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\ntwo\nlater\n").unwrap();
    let journal = json!({"version": 1, "id": "7", "created_dirs": [], "entries": [
        {"target": "a.txt", "temp": null, "backup": ".editkit-patch-7-0.bak"},
    ]});
    let state = toolkit.workspace().state_dir().to_owned();
    std::fs::create_dir_all(state.join("patch")).unwrap();
    std::fs::write(state.join("patch/7.json"), journal.to_string()).unwrap();
    let (files, kept) = (snapshot(dir.path()), snapshot(&state));
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-two\n+2\n*** End Patch\n";
    let dry = editkit::tools::call(&toolkit, "apply_patch", json!({"patch": patch, "dry_run": true}));
    assert_eq!(dry["ok"], true, "{dry:#}");
    assert!(dry.get("recovered").is_none_or(Value::is_null), "{dry:#}");
    assert_eq!(snapshot(dir.path()), files, "a dry run changed the workspace");
    assert_eq!(snapshot(&state), kept, "a dry run changed the state folder");
}

/// Every path under `root` with its bytes, or nothing when `root` does not exist.
fn snapshot_if_any(root: &Path) -> Option<BTreeMap<String, Option<Vec<u8>>>> {
    root.exists().then(|| snapshot(root))
}

/// A dry run writes nothing anywhere: not in the workspace, not in the state folder (undo
/// history, backups, locks, journals), whatever else the call asks (`backup`, `force`).
#[test]
fn a_dry_run_on_a_read_only_toolkit_writes_nothing_in_the_state_folder_either() {
    for spec in editkit::tools::specs().into_iter().filter(|spec| !spec.read_only && takes_dry_run(spec)) {
        let mut args = call(spec.name).unwrap_or_else(|| panic!("no call for the writing tool `{}`", spec.name));
        args["dry_run"] = json!(true);
        if spec.input_schema["properties"].get("backup").is_some() {
            args["backup"] = json!(true);
        }
        if spec.input_schema["properties"].get("force").is_some() {
            args["force"] = json!(true);
        }
        let (dir, read_only) = open(true);
        let state = read_only.workspace().state_dir().to_owned();
        let (files, kept) = (snapshot(dir.path()), snapshot_if_any(&state));
        let answered = editkit::tools::call(&read_only, spec.name, args.clone());
        assert_eq!(answered["ok"], true, "{}: {answered}", spec.name);
        assert_eq!(snapshot(dir.path()), files, "{}'s dry run wrote in the workspace", spec.name);
        assert_eq!(snapshot_if_any(&state), kept, "{}'s dry run wrote in the state folder", spec.name);
    }
}
