//! Hard links: a file with several names may also be `.env` or a file outside the root, and
//! nothing on the file says which. Every tool that reads, writes, lists or prints is run at
//! such a file (a link to a secret outside the root, a `tar x`-style alias of the workspace's
//! own `.env`, a Python file linked to a secret); none may show the secret or change either
//! file. Undo keeps copies, never the old inode. Under the folders the user allows
//! (`Policy::hard_links_under`, a package manager's store links) such files are served.

use std::fs;
use std::io::Write as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use editkit::{Toolkit, ToolkitOptions};
use serde_json::{Value, json};

use crate::support::{copy_tree, fixtures};

const SECRET: &str = "TOKEN=SECRET_VALUE\nPRIVATE_TAIL_7f3a\n";
/// The part of the secret no argument names: a result holding it read the file.
const TAIL: &str = "PRIVATE_TAIL_7f3a";

struct Linked {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    state: PathBuf,
}

impl Linked {
    /// `notes.txt` and `leak.py` are links to `outside/secret.txt`; `x.txt` and `src/alias.md`
    /// are links to the root's `.env`.
    fn new() -> Linked {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let (root, outside, state) = (base.join("root"), base.join("outside"), base.join("state"));
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(&outside).unwrap();
        copy_tree(&fixtures().join("calls/tree"), &root);
        fs::write(root.join(".env"), SECRET).unwrap();
        fs::write(outside.join("secret.txt"), SECRET).unwrap();
        fs::hard_link(outside.join("secret.txt"), root.join("notes.txt")).unwrap();
        fs::hard_link(outside.join("secret.txt"), root.join("leak.py")).unwrap();
        fs::hard_link(root.join(".env"), root.join("x.txt")).unwrap();
        fs::hard_link(root.join(".env"), root.join("src/alias.md")).unwrap();
        Linked { _tmp: tmp, root, outside, state }
    }

    fn toolkit(&self, options: ToolkitOptions) -> Toolkit {
        Toolkit::open(&self.root, ToolkitOptions { state_home: Some(self.state.clone()), ..options }).unwrap()
    }

    /// Bytes, mtime and link count of the two secrets.
    fn guarded(&self) -> Vec<(String, i64, u64)> {
        [self.outside.join("secret.txt"), self.root.join(".env")]
            .iter()
            .map(|path| {
                let meta = fs::metadata(path).unwrap();
                (fs::read_to_string(path).unwrap(), meta.mtime_nsec() + meta.mtime() * 1_000_000_000, meta.nlink())
            })
            .collect()
    }
}

/// Hostile calls per tool, aimed at the linked files. Every tool the toolkit offers must have
/// an entry, so a tool added later is covered or this test fails.
fn hostile_calls(tool: &str) -> Option<Vec<Value>> {
    let linked = ["notes.txt", "x.txt", "leak.py", "src/alias.md"];
    let each = |make: &dyn Fn(&str) -> Value| -> Vec<Value> { linked.iter().map(|p| make(p)).collect() };
    Some(match tool {
        "read_file" => each(&|p| json!({"path": p})),
        "read_files" => vec![json!({"paths": linked})],
        "write_file" => [false, true]
            .into_iter()
            .flat_map(|force| {
                linked.iter().map(move |p| json!({"path": p, "content": "overwritten\n", "force": force}))
            })
            .collect(),
        "edit_file" => each(&|p| json!({"path": p, "old_string": "SECRET_VALUE", "new_string": "changed"})),
        "insert_lines" => each(&|p| json!({"path": p, "line": 0, "text": "# added"})),
        "merge_snippet" => each(&|p| json!({"path": p, "snippet": "TOKEN=SECRET_VALUE\nADDED=1\n"})),
        "notebook_read" => each(&|p| json!({"path": p})),
        "notebook_edit" => [false, true]
            .into_iter()
            .flat_map(|force| {
                linked.iter().map(move |p| json!({"path": p, "index": 0, "action": "delete", "force": force}))
            })
            .collect(),
        "apply_patch" => each(
            &|p| json!({"patch": format!("*** Begin Patch\n*** Update File: {p}\n@@\n-TOKEN=SECRET_VALUE\n+TOKEN=changed\n*** End Patch\n")}),
        ),
        "undo_edit" => each(&|p| json!({"path": p, "force": true})),
        "undo_patch" => vec![json!({"force": true})],
        "search_files" => vec![
            json!({"pattern": "PRIVATE_TAIL_[0-9a-f]+", "path": "."}),
            json!({"pattern": "TOKEN", "path": "."}),
            json!({"pattern": "PRIVATE", "path": "x.txt"}),
        ],
        "search_code" => {
            vec![json!({"pattern": "PRIVATE_TAIL_[0-9a-f]+"}), json!({"pattern": "TOKEN", "context_lines": 3})]
        }
        "glob" => vec![json!({"pattern": "**/*"})],
        "tree" => vec![json!({"path": ".", "depth": 3, "sizes": true})],
        "list_dir" => vec![json!({"path": "."}), json!({"path": "src"})],
        "file_info" => each(&|p| json!({"path": p})),
        "exists" => each(&|p| json!({"path": p})),
        "create_directory" => vec![json!({"path": "x.txt/sub"})],
        "file_symbols" => each(&|p| json!({"path": p})),
        "check_syntax" => each(&|p| json!({"path": p})),
        "generate_diff" => each(&|p| json!({"path": p, "new_content": "other\n"})),
        "replace_function" => {
            vec![json!({"path": "leak.py", "function_name": "TOKEN", "new_implementation": "def TOKEN():\n    pass\n"})]
        }
        "edit_python_file" => vec![json!({"path": "leak.py", "old_string": "SECRET_VALUE", "new_string": "x"})],
        "write_python_file" => vec![json!({"path": "leak.py", "content": "x = 1\n"})],
        "write_markdown_file" => vec![json!({"path": "src/alias.md", "content": "# x\n"})],
        "update_project_index" => vec![json!({"project_name": "p", "description": "d", "structure": "s"})],
        "history" => each(&|p| json!({"path": p})),
        "find_symbol" => each(&|p| json!({"name_path": "TOKEN", "path": p})),
        "find_references" => each(&|p| json!({"path": p, "line": 1, "symbol": "TOKEN"})),
        "rename_symbol" => each(&|p| json!({"path": p, "line": 1, "symbol": "TOKEN", "new_name": "x"})),
        "diagnostics" => each(&|p| json!({"path": p})),
        "editor_load" => each(&|p| json!({"path": p})),
        // The session tools need a session, which no linked file gives; covered by editor_load.
        "editor_read" | "editor_edit" | "editor_write" | "editor_diff" | "editor_store" | "editor_clear" => vec![],
        "list_roots" => vec![json!({})],
        // Undo would keep the content: refused too, and the names stay.
        "move" => each(&|p| json!({"from": p, "to": "moved.txt"})),
        "delete" => each(&|p| json!({"path": p})),
        _ => return None,
    })
}

#[test]
fn no_tool_reads_or_writes_a_secret_through_a_hard_link() {
    let tree = Linked::new();
    let toolkit = tree.toolkit(ToolkitOptions::default());
    let before = tree.guarded();
    let mut refusals = 0;
    for spec in editkit::tools::specs() {
        let calls = hostile_calls(spec.name).unwrap_or_else(|| panic!("no hostile call for tool `{}`", spec.name));
        for args in calls {
            let result = editkit::tools::call(&toolkit, spec.name, args.clone());
            let text = result.to_string();
            assert!(!text.contains(TAIL), "{} {args} leaked the secret: {result:#}", spec.name);
            if result["ok"] == false && result["error"]["kind"] == "blocked" {
                refusals += 1;
                let message = result["error"]["message"].as_str().unwrap();
                assert!(message.contains("hard link") || message.contains("blocked"), "{message}");
            }
            assert_eq!(tree.guarded(), before, "{} {args} changed a secret: {result:#}", spec.name);
        }
    }
    assert!(refusals >= 20, "only {refusals} calls were refused as blocked");
    // The linked names are still there, untouched, and still linked.
    for name in ["notes.txt", "x.txt", "leak.py", "src/alias.md"] {
        assert_eq!(fs::read_to_string(tree.root.join(name)).unwrap(), SECRET, "{name}");
    }
    let read = editkit::tools::call(&toolkit, "read_file", json!({"path": "x.txt"}));
    assert_eq!(read["error"]["kind"], "blocked", "{read:#}");
    assert_eq!(read["error"]["links"], 3, "{read:#}");
    assert_eq!(fs::read_to_string(tree.outside.join("secret.txt")).unwrap(), SECRET);
    assert_eq!(fs::read_to_string(tree.root.join(".env")).unwrap(), SECRET);
}

#[test]
fn the_state_folder_never_holds_a_copy_of_a_linked_secret() {
    let tree = Linked::new();
    let toolkit = tree.toolkit(ToolkitOptions::default());
    for path in ["notes.txt", "x.txt"] {
        let written =
            editkit::tools::call(&toolkit, "write_file", json!({"path": path, "content": "new\n", "force": true}));
        assert_eq!(written["ok"], false, "{written:#}");
    }
    let mut stack = vec![tree.state.clone()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else { continue };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = fs::read(&path).unwrap();
                assert!(!String::from_utf8_lossy(&bytes).contains(TAIL), "{} holds the secret", path.display());
            }
        }
    }
}

#[test]
fn undo_restores_a_copy_that_no_outside_handle_can_change() {
    let tree = Linked::new();
    let toolkit = tree.toolkit(ToolkitOptions::default());
    let path = tree.root.join("src/app.py");
    let original = fs::read_to_string(&path).unwrap();
    // Another process holds the file open for writing before the agent replaces it.
    let mut held = fs::OpenOptions::new().write(true).open(&path).unwrap();
    let written = editkit::tools::call(
        &toolkit,
        "write_file",
        json!({"path": "src/app.py", "content": "print('new')\n", "force": true}),
    );
    assert_eq!(written["ok"], true, "{written:#}");
    // It rewrites what it holds: the old inode, no longer the workspace's file.
    held.write_all(b"TAMPERED = True\n").unwrap();
    held.sync_all().unwrap();
    drop(held);
    let undone = editkit::tools::call(&toolkit, "undo_edit", json!({"path": "src/app.py"}));
    assert_eq!(undone["ok"], true, "{undone:#}");
    assert_eq!(fs::read_to_string(&path).unwrap(), original, "undo restored what an outside handle wrote");
    // Every undo entry is a file of its own.
    assert_single_links(&tree.state);
}

fn assert_single_links(dir: &Path) {
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let meta = fs::symlink_metadata(entry.path()).unwrap();
        if meta.is_dir() {
            assert_single_links(&entry.path());
        } else {
            assert_eq!(meta.nlink(), 1, "{} shares its inode", entry.path().display());
        }
    }
}

#[test]
fn a_package_store_links_are_served_under_the_folders_the_user_allows() {
    let tree = Linked::new();
    let store = tree.outside.join("store");
    fs::create_dir_all(&store).unwrap();
    fs::write(store.join("abc123"), "export const answer = 42;\n").unwrap();
    fs::create_dir_all(tree.root.join("node_modules/pkg")).unwrap();
    fs::hard_link(store.join("abc123"), tree.root.join("node_modules/pkg/index.js")).unwrap();
    // An alias of `.env` planted under the allowed folder keeps a blocked name's protection
    // only when its own name is blocked; by default nothing is allowed at all.
    fs::write(tree.root.join("node_modules/pkg/.env"), SECRET).unwrap();

    let strict = tree.toolkit(ToolkitOptions::default());
    let refused = editkit::tools::call(&strict, "read_file", json!({"path": "node_modules/pkg/index.js"}));
    assert_eq!(refused["error"]["kind"], "blocked", "{refused:#}");
    let found = editkit::tools::call(&strict, "search_files", json!({"pattern": "answer", "path": "node_modules"}));
    assert_eq!(found["ok"], true, "{found:#}");
    assert_eq!(found["results"].as_array().map_or(0, Vec::len), 0, "{found:#}");

    let mut options = ToolkitOptions::default();
    options.policy.hard_links_under = vec!["node_modules/".into()];
    let allowed = tree.toolkit(options);
    let read = editkit::tools::call(&allowed, "read_file", json!({"path": "node_modules/pkg/index.js"}));
    assert_eq!(read["ok"], true, "{read:#}");
    assert!(read["content"].as_str().unwrap().contains("answer"), "{read:#}");
    let found = editkit::tools::call(&allowed, "search_files", json!({"pattern": "answer", "path": "node_modules"}));
    assert_eq!(found["results"].as_array().map_or(0, Vec::len), 1, "{found:#}");
    // An edit replaces the name with a file of its own; the store keeps its content.
    let edited = editkit::tools::call(
        &allowed,
        "edit_file",
        json!({"path": "node_modules/pkg/index.js", "old_string": "42", "new_string": "43"}),
    );
    assert_eq!(edited["ok"], true, "{edited:#}");
    assert_eq!(fs::read_to_string(store.join("abc123")).unwrap(), "export const answer = 42;\n");
    assert_eq!(fs::read_to_string(tree.root.join("node_modules/pkg/index.js")).unwrap(), "export const answer = 43;\n");
    // Blocked names stay blocked there, and links elsewhere stay refused.
    let env = editkit::tools::call(&allowed, "read_file", json!({"path": "node_modules/pkg/.env"}));
    assert_eq!(env["error"]["kind"], "blocked", "{env:#}");
    let outside = editkit::tools::call(&allowed, "read_file", json!({"path": "x.txt"}));
    assert_eq!(outside["error"]["kind"], "blocked", "{outside:#}");
    // The allowance is exactly as written: another case is another folder.
    fs::create_dir_all(tree.root.join("NODE_MODULES")).unwrap();
    fs::hard_link(store.join("abc123"), tree.root.join("NODE_MODULES/index.js")).unwrap();
    let cased = editkit::tools::call(&allowed, "read_file", json!({"path": "NODE_MODULES/index.js"}));
    assert_eq!(cased["error"]["kind"], "blocked", "{cased:#}");
    // A folder of linked files is not moved into an allowed folder, where they would be served.
    fs::create_dir_all(tree.root.join("vendor")).unwrap();
    fs::hard_link(tree.root.join(".env"), tree.root.join("vendor/b")).unwrap();
    for to in ["node_modules/vendor", "node_modules"] {
        if to == "node_modules" {
            fs::rename(tree.root.join("node_modules"), tree.root.join("modules.old")).unwrap();
        }
        let moved = editkit::tools::call(&allowed, "move", json!({"from": "vendor", "to": to}));
        assert_eq!(moved["ok"], false, "{moved:#}");
        assert!(moved["error"]["message"].as_str().unwrap().contains("hard links"), "{moved:#}");
        assert!(tree.root.join("vendor/b").exists());
    }
    let read = editkit::tools::call(&allowed, "read_file", json!({"path": "vendor/b"}));
    assert_eq!(read["error"]["kind"], "blocked", "{read:#}");
}

#[test]
fn undo_copies_never_carry_set_user_id_bits() {
    use std::os::unix::fs::PermissionsExt as _;
    let tree = Linked::new();
    let toolkit = tree.toolkit(ToolkitOptions::default());
    let path = tree.root.join("src/app.py");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o6755)).unwrap();
    let written = editkit::tools::call(
        &toolkit,
        "write_file",
        json!({"path": "src/app.py", "content": "x = 1\n", "force": true}),
    );
    assert_eq!(written["ok"], true, "{written:#}");
    let mut stack = vec![tree.state.clone()];
    let mut kept = 0;
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let meta = fs::symlink_metadata(entry.path()).unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            } else if entry.path().extension().is_some_and(|ext| ext == "keep") {
                kept += 1;
                assert_eq!(meta.permissions().mode() & 0o7000, 0, "{} keeps set-id bits", entry.path().display());
            }
        }
    }
    assert_eq!(kept, 1);
}
