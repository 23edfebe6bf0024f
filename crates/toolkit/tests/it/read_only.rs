//! Read-only files: a file whose owner took away its write bit (`chmod a-w`, mode 0444) is
//! not changed, replaced or removed by any tool, whatever the user editkit runs as (root
//! included, who could write it anyway, and the owner, whose write-by-rename could replace it
//! anyway): refused as `permission_denied` naming the mode, and nothing changes. Moving such a
//! file is not changing it (its content and mode go with it, as `mv` does); moving another
//! file onto it is.
//!
//! Codex's `test_apply_patch_fails_on_write_error` is the case that started it: a 0444 file
//! was updated by a patch, since the write replaces the file by rename.

use std::fs;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::Path;

use serde_json::{Value, json};

use crate::support::Env;

/// Bytes, mode, inode and modification time: what "nothing changes" means.
fn state(path: &Path) -> (Vec<u8>, u32, u64, i64, i64) {
    let meta = fs::symlink_metadata(path).unwrap();
    (fs::read(path).unwrap(), meta.mode() & 0o7777, meta.ino(), meta.mtime(), meta.mtime_nsec())
}

fn chmod(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

const PY: &str = "def f():\n    return 1\n";
const MD: &str = "# Project\n\nText.\n";
const NB: &str = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 1,\n   \"id\": \"c1\",\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"x = 1\"\n   ]\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";

/// A workspace where `ro.py`, `ro.txt`, `PROJECT.md`, `ro.ipynb` and `dir/ro.txt` are 0444, and
/// `rw.txt` 0644.
fn env() -> Env {
    let env = Env::with_files(&[
        ("ro.py", PY),
        ("ro.txt", "one\ntwo\n"),
        ("PROJECT.md", MD),
        ("ro.ipynb", NB),
        ("dir/ro.txt", "inside\n"),
        ("dir/rw.txt", "writable\n"),
        ("rw.txt", "free\n"),
    ]);
    for path in ["ro.py", "ro.txt", "PROJECT.md", "ro.ipynb", "dir/ro.txt"] {
        chmod(&env.dir.path().join(path), 0o444);
    }
    env
}

/// Calls aimed at the read-only files, per writing tool. Every tool that writes must have an
/// entry, so a writing tool added later is covered or this test fails.
fn calls(tool: &str) -> Option<Vec<Value>> {
    let patch = |body: &str| json!({ "patch": format!("*** Begin Patch\n{body}*** End Patch\n") });
    Some(match tool {
        "write_file" => vec![
            json!({"path": "ro.txt", "content": "new\n"}),
            json!({"path": "ro.txt", "content": "new\n", "force": true}),
        ],
        "edit_file" => vec![
            json!({"path": "ro.txt", "old_string": "two", "new_string": "2"}),
            json!({"path": "ro.txt", "old_string": "two", "new_string": "2", "force": true}),
            json!({"path": "ro.ipynb", "cell_id": "c1", "old_string": "x = 1", "new_string": "x = 2"}),
        ],
        "notebook_edit" => vec![
            json!({"path": "ro.ipynb", "cell_id": "c1", "action": "replace", "source": "x = 2"}),
            json!({"path": "ro.ipynb", "index": 0, "action": "insert_after", "source": "y = 1", "force": true}),
            json!({"path": "ro.ipynb", "index": 0, "action": "delete"}),
        ],
        "insert_lines" => vec![json!({"path": "ro.txt", "line": -1, "text": "three"})],
        "merge_snippet" => vec![
            json!({"path": "ro.txt", "snippet": "one\ntwo\nthree\n"}),
            json!({"path": "ro.txt", "snippet": "one\ntwo\nthree\n", "force": true}),
        ],
        "apply_patch" => vec![
            patch("*** Update File: ro.txt\n@@\n-two\n+2\n"),
            patch("*** Delete File: ro.txt\n"),
            patch("*** Update File: ro.txt\n*** Move to: elsewhere.txt\n@@\n-two\n+2\n"),
            // All or nothing: the writable file is not changed either.
            patch("*** Update File: rw.txt\n@@\n-free\n+changed\n*** Update File: ro.txt\n@@\n-two\n+2\n"),
            json!({"patch": "--- a/ro.txt\n+++ b/ro.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"}),
            json!({"patch": "@@\ntwo\n===\n2\n*** End Patch\n".replace("@@", "*** Update File: ro.txt\n@@")}),
        ],
        "replace_function" => {
            vec![json!({"path": "ro.py", "function_name": "f", "new_implementation": "def f():\n    return 2\n"})]
        }
        "edit_python_file" => vec![json!({"path": "ro.py", "old_string": "return 1", "new_string": "return 2"})],
        "write_python_file" => vec![json!({"path": "ro.py", "content": "x = 1\n"})],
        "write_markdown_file" => vec![json!({"path": "PROJECT.md", "content": "# Other\n"})],
        "update_project_index" => vec![json!({"project_name": "p", "description": "d", "structure": "s"})],
        "move" => vec![json!({"from": "rw.txt", "to": "ro.txt", "overwrite": true})],
        "delete" => vec![json!({"path": "ro.txt"}), json!({"path": "dir", "recursive": true})],
        // Covered below with a history or a session to act on.
        "undo_edit" | "undo_patch" | "editor_store" | "editor_load" | "editor_edit" | "editor_write" => vec![],
        // Writes no file.
        "create_directory" | "editor_clear" => vec![],
        // Needs a language server: the lsp tests rename across a read-only file.
        "rename_symbol" => vec![],
        _ => return None,
    })
}

#[test]
fn every_writing_tool_refuses_a_read_only_file_naming_its_mode_and_changes_nothing() {
    let env = env();
    let root = env.dir.path().to_owned();
    let watched = ["ro.py", "ro.txt", "PROJECT.md", "ro.ipynb", "dir/ro.txt", "dir/rw.txt", "rw.txt"];
    let before: Vec<_> = watched.iter().map(|path| state(&root.join(path))).collect();
    for path in ["ro.py", "ro.txt", "PROJECT.md", "rw.txt"] {
        env.ok("read_file", json!({ "path": path }));
    }
    let mut refused = 0;
    for spec in editkit::tools::specs().into_iter().filter(|spec| !spec.read_only) {
        let calls =
            calls(spec.name).unwrap_or_else(|| panic!("no read-only call for the writing tool `{}`", spec.name));
        for args in calls {
            let result = env.refused(spec.name, args.clone(), "permission_denied");
            let message = result["error"]["message"].as_str().unwrap();
            assert!(message.contains("0444") && message.contains("read-only"), "{} {args}: {message}", spec.name);
            let error = &result["error"];
            let failure = if spec.name == "apply_patch" { &error["failures"][0] } else { error };
            assert_eq!(failure["kind"], "permission_denied", "{} {args}: {error}", spec.name);
            if spec.name != "apply_patch" {
                assert_eq!(error["mode"], "0444", "{} {args}: {error}", spec.name);
            }
            refused += 1;
            let now: Vec<_> = watched.iter().map(|path| state(&root.join(path))).collect();
            assert_eq!(now, before, "{} {args} changed a file", spec.name);
            assert!(!root.join("elsewhere.txt").exists());
        }
    }
    assert!(refused >= 16, "{refused}");
}

#[test]
fn undo_and_an_editor_session_refuse_a_file_made_read_only_since() {
    let env = env();
    let root = env.dir.path().to_owned();
    env.ok("read_file", json!({"path": "rw.txt"}));
    env.ok("edit_file", json!({"path": "rw.txt", "old_string": "free", "new_string": "edited"}));
    env.ok(
        "apply_patch",
        json!({"patch": "*** Begin Patch\n*** Update File: dir/rw.txt\n@@\n-writable\n+patched\n*** End Patch\n"}),
    );
    let session = env.ok("editor_load", json!({"path": "rw.txt"}))["session_id"].clone();
    env.ok("editor_edit", json!({"session_id": session, "old_string": "edited", "new_string": "in session"}));
    chmod(&root.join("rw.txt"), 0o444);
    chmod(&root.join("dir/rw.txt"), 0o444);
    let before = (state(&root.join("rw.txt")), state(&root.join("dir/rw.txt")));
    for (tool, args) in [
        ("undo_edit", json!({"path": "rw.txt"})),
        ("undo_edit", json!({"path": "rw.txt", "force": true})),
        ("undo_patch", json!({})),
        ("undo_patch", json!({"force": true})),
        ("editor_store", json!({"session_id": session})),
    ] {
        let result = env.refused(tool, args.clone(), "permission_denied");
        assert!(result["error"]["message"].as_str().unwrap().contains("0444"), "{tool} {args}: {result:#}");
        assert_eq!((state(&root.join("rw.txt")), state(&root.join("dir/rw.txt"))), before, "{tool} {args}");
    }
    // Writable again, both undo as before.
    chmod(&root.join("rw.txt"), 0o644);
    chmod(&root.join("dir/rw.txt"), 0o644);
    env.ok("undo_patch", json!({}));
    env.ok("undo_edit", json!({"path": "rw.txt"}));
    assert_eq!(env.get("rw.txt"), "free\n");
    assert_eq!(env.get("dir/rw.txt"), "writable\n");
}

#[test]
fn a_read_only_file_moves_with_its_mode_and_a_writable_neighbour_is_edited_as_before() {
    let env = env();
    let root = env.dir.path().to_owned();
    let (content, _, inode, ..) = state(&root.join("ro.txt"));
    env.ok("move", json!({"from": "ro.txt", "to": "moved.txt"}));
    let (moved, mode, moved_inode, ..) = state(&root.join("moved.txt"));
    assert_eq!((moved, mode, moved_inode), (content.clone(), 0o444, inode));
    // A patch's move without hunks carries the bytes and the mode too.
    env.ok(
        "apply_patch",
        json!({"patch": "*** Begin Patch\n*** Update File: moved.txt\n*** Move to: back.txt\n*** End Patch\n"}),
    );
    let (back, mode, ..) = state(&root.join("back.txt"));
    assert_eq!((back, mode), (content, 0o444));
    // The owner's write bit decides: group and others' bits do not make a file read-only.
    chmod(&root.join("rw.txt"), 0o600);
    env.ok("read_file", json!({"path": "rw.txt"}));
    env.ok("edit_file", json!({"path": "rw.txt", "old_string": "free", "new_string": "edited"}));
    assert_eq!(state(&root.join("rw.txt")).1, 0o600);
    // Only the owner's write bit taken away (0o464) is read-only too.
    chmod(&root.join("rw.txt"), 0o464);
    let result =
        env.refused("write_file", json!({"path": "rw.txt", "content": "x\n", "force": true}), "permission_denied");
    assert!(result["error"]["message"].as_str().unwrap().contains("0464"), "{result:#}");
    // A new file next to read-only ones is written as before.
    env.ok("write_file", json!({"path": "dir/new.txt", "content": "new\n"}));
}
