//! A repository that ships its own `.editkit/` (links, FIFOs, crafted journals, undo entries,
//! lock files, a file in place of the folder) gets nothing done through it: editkit keeps its
//! state outside the workspace and never reads, writes, deletes or waits on anything because
//! of what is planted there. A sentinel folder outside the root, `.env` and `.git/` are
//! compared byte for byte, by mtime and by link count after every attack.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{MetadataExt, symlink};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use editkit::{Toolkit, ToolkitOptions};
use serde_json::{Value, json};

use crate::support::{copy_tree, fixtures};

const SECRET: &str = "TOKEN=SECRET_VALUE\n";
const PLANTED: &str = "PLANTED BY THE REPOSITORY\n";
const PATCH: &str =
    "*** Begin Patch\n*** Update File: src/app.py\n@@\n-# TODO: localise\n+# Localised upstream.\n*** End Patch\n";

/// A workspace copied from the example tree, with secrets, a `.git` folder and a sentinel
/// folder outside the root.
struct Hostile {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

/// What must never change: bytes, mtime and link count of every entry (links by target).
type Snapshot = BTreeMap<PathBuf, (String, i64, u64)>;

impl Hostile {
    fn new() -> Hostile {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let (root, outside) = (base.join("root"), base.join("outside"));
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(outside.join("deep")).unwrap();
        copy_tree(&fixtures().join("calls/tree"), &root);
        fs::write(root.join(".env"), SECRET).unwrap();
        fs::create_dir_all(root.join(".git/hooks")).unwrap();
        fs::create_dir_all(root.join(".git/info")).unwrap();
        fs::write(root.join(".git/config"), "[core]\n").unwrap();
        fs::write(outside.join("secret.txt"), SECRET).unwrap();
        fs::write(outside.join("deep/keep.txt"), "outside\n").unwrap();
        Hostile { _tmp: tmp, root, outside }
    }

    fn state(&self, rel: &str) -> PathBuf {
        let path = self.root.join(".editkit").join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        path
    }

    fn toolkit(&self, read_only: bool) -> Toolkit {
        Toolkit::open(&self.root, ToolkitOptions { read_only, ..ToolkitOptions::default() }).unwrap()
    }

    fn guarded(&self) -> Snapshot {
        let mut snapshot = Snapshot::new();
        for path in [self.outside.clone(), self.root.join(".env"), self.root.join(".git"), self.root.join(".editkit")] {
            snapshot_into(&path, &mut snapshot);
        }
        snapshot
    }
}

fn snapshot_into(path: &Path, snapshot: &mut Snapshot) {
    let Ok(meta) = fs::symlink_metadata(path) else { return };
    let content = if meta.is_symlink() {
        format!("link {:?}", fs::read_link(path).unwrap())
    } else if meta.is_dir() {
        for entry in fs::read_dir(path).unwrap() {
            snapshot_into(&entry.unwrap().path(), snapshot);
        }
        "dir".to_owned()
    } else if meta.is_file() {
        String::from_utf8_lossy(&fs::read(path).unwrap()).into_owned()
    } else {
        "special".to_owned()
    };
    snapshot.insert(path.to_owned(), (content, meta.mtime_nsec() + meta.mtime() * 1_000_000_000, meta.nlink()));
}

fn call(toolkit: &Toolkit, tool: &str, args: Value) -> Value {
    editkit::tools::call(toolkit, tool, args)
}

/// Runs `work` with a hang guard: a planted FIFO must never make editkit wait.
fn within_a_minute<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(work());
    });
    receiver.recv_timeout(Duration::from_secs(60)).expect("editkit hung on something the repository planted")
}

/// Plants the attack, runs `work` on the tree, and checks that nothing guarded changed, that
/// no secret or planted content reached the workspace's files or the results, and that the
/// shipped `.editkit` is still exactly as shipped.
fn attack(plant: impl FnOnce(&Hostile), work: impl FnOnce(&Hostile) -> Vec<Value>) {
    let tree = Hostile::new();
    plant(&tree);
    let before = tree.guarded();
    let results = work(&tree);
    assert_eq!(tree.guarded(), before, "a guarded file, the sentinel or the shipped .editkit changed");
    for result in &results {
        let text = result.to_string();
        assert!(!text.contains("SECRET_VALUE") && !text.contains("PLANTED"), "a result leaked: {text}");
    }
    for rel in ["src/app.py", "src/util.ts", "docs/guide.md"] {
        let content = fs::read_to_string(tree.root.join(rel)).unwrap();
        assert!(!content.contains("SECRET_VALUE") && !content.contains("PLANTED"), "{rel} got: {content}");
    }
    for hook in ["pre-commit", "post-checkout"] {
        assert!(!tree.root.join(".git/hooks").join(hook).exists(), "a hook appeared");
    }
}

fn undo_dir(rel: &str) -> String {
    format!("undo/files/{}", &editkit::vfs::Sha256::of(rel.as_bytes()).to_string()[..24])
}

fn lock_name(rel: &str) -> String {
    format!("locks/{}.lock", &editkit::vfs::Sha256::of(rel.as_bytes()).to_string()[..32])
}

#[test]
fn links_under_the_shipped_patch_folder_delete_nothing() {
    attack(
        |tree| {
            symlink("..", tree.state("patch/1")).unwrap();
            symlink("../../.git", tree.state("patch/2")).unwrap();
            symlink(&tree.outside, tree.state("patch/3")).unwrap();
            symlink(tree.root.join(".env"), tree.state("patch/4")).unwrap();
        },
        |tree| {
            let read_only = tree.toolkit(true);
            let dry = call(&read_only, "apply_patch", json!({"patch": PATCH, "dry_run": true}));
            assert_eq!(dry["ok"], true, "{dry:#}");
            let toolkit = tree.toolkit(false);
            let applied = call(&toolkit, "apply_patch", json!({"patch": PATCH}));
            assert_eq!(applied["ok"], true, "{applied:#}");
            vec![dry, applied]
        },
    );
}

#[test]
fn a_crafted_journal_and_backup_are_never_acted_on() {
    attack(
        |tree| {
            let journal = json!({"version": 1, "id": "42", "created_dirs": [], "entries": [
                {"target": "src/app.py", "temp": null, "backup": ".editkit/patch/42/0"},
                {"target": "docs/guide.md", "temp": "docs/.editkit-patch-42-1.tmp", "backup": null},
            ]});
            fs::write(tree.state("patch/42.json"), journal.to_string()).unwrap();
            fs::write(tree.state("patch/42/0"), PLANTED).unwrap();
            fs::write(tree.root.join("docs/.editkit-patch-42-1.tmp"), PLANTED).unwrap();
        },
        |tree| {
            let before = fs::read_to_string(tree.root.join("docs/guide.md")).unwrap();
            let toolkit = tree.toolkit(false);
            let applied = call(&toolkit, "apply_patch", json!({"patch": PATCH}));
            assert_eq!(applied["ok"], true, "{applied:#}");
            assert!(applied.get("recovered").is_none_or(Value::is_null), "{applied:#}");
            let recovered = editkit::patch::recover(toolkit.workspace()).unwrap();
            assert!(recovered.is_empty(), "{recovered:?}");
            assert_eq!(fs::read_to_string(tree.root.join("docs/guide.md")).unwrap(), before);
            assert_eq!(fs::read_to_string(tree.root.join("docs/.editkit-patch-42-1.tmp")).unwrap(), PLANTED);
            vec![applied]
        },
    );
}

#[test]
fn undo_entries_linking_to_secrets_are_never_restored() {
    let dir = undo_dir("src/app.py");
    attack(
        |tree| {
            symlink(tree.root.join(".env"), tree.state(&format!("{dir}/0000000005-none.keep"))).unwrap();
            symlink(tree.outside.join("secret.txt"), tree.state(&format!("{dir}/0000000006-none.keep"))).unwrap();
            let snapshot = json!({"files": [{"path": "src/app.py", "existed": true, "after_sha256": null}]});
            fs::write(tree.state("undo/patches/9999999999.json"), snapshot.to_string()).unwrap();
            symlink(tree.root.join(".env"), tree.state("undo/patches/9999999999-0.bytes")).unwrap();
        },
        |tree| {
            let toolkit = tree.toolkit(false);
            let original = fs::read_to_string(tree.root.join("src/app.py")).unwrap();
            let nothing = call(&toolkit, "undo_edit", json!({"path": "src/app.py", "force": true}));
            assert_eq!(nothing["ok"], false, "{nothing:#}");
            let nothing_patch = call(&toolkit, "undo_patch", json!({"force": true}));
            assert_eq!(nothing_patch["ok"], false, "{nothing_patch:#}");
            let edit = call(&toolkit, "write_file", json!({"path": "src/app.py", "content": "print(1)\n"}));
            assert_eq!(edit["ok"], true, "{edit:#}");
            let undone = call(&toolkit, "undo_edit", json!({"path": "src/app.py", "force": true}));
            assert_eq!(undone["ok"], true, "{undone:#}");
            assert_eq!(fs::read_to_string(tree.root.join("src/app.py")).unwrap(), original);
            let patched = call(&toolkit, "apply_patch", json!({"patch": PATCH}));
            assert_eq!(patched["ok"], true, "{patched:#}");
            let undone_patch = call(&toolkit, "undo_patch", json!({}));
            assert_eq!(undone_patch["ok"], true, "{undone_patch:#}");
            assert_eq!(fs::read_to_string(tree.root.join("src/app.py")).unwrap(), original);
            vec![nothing, nothing_patch, edit, undone, patched, undone_patch]
        },
    );
}

#[test]
fn a_sequence_number_at_the_top_of_its_range_does_not_capture_the_agents_undo() {
    let dir = undo_dir("src/app.py");
    attack(
        |tree| {
            fs::write(tree.state(&format!("{dir}/18446744073709551615-none.keep")), PLANTED).unwrap();
            fs::write(tree.state("undo/patches/18446744073709551615.json"), "{}").unwrap();
        },
        |tree| {
            let toolkit = tree.toolkit(false);
            let original = fs::read_to_string(tree.root.join("src/app.py")).unwrap();
            let first = call(&toolkit, "write_file", json!({"path": "src/app.py", "content": "v1\n"}));
            let second = call(&toolkit, "write_file", json!({"path": "src/app.py", "content": "v2\n"}));
            let undone = call(&toolkit, "undo_edit", json!({"path": "src/app.py"}));
            assert_eq!(undone["ok"], true, "{undone:#}");
            assert_eq!(fs::read_to_string(tree.root.join("src/app.py")).unwrap(), "v1\n");
            let undone_again = call(&toolkit, "undo_edit", json!({"path": "src/app.py"}));
            assert_eq!(fs::read_to_string(tree.root.join("src/app.py")).unwrap(), original);
            vec![first, second, undone, undone_again]
        },
    );
}

#[test]
fn a_gitignore_link_into_dot_git_creates_nothing_there() {
    attack(
        |tree| {
            symlink("../.git/hooks/post-checkout", tree.state(".gitignore")).unwrap();
            symlink("../../.git/hooks/pre-commit", tree.state("locks/.gitignore")).unwrap();
        },
        |tree| {
            let toolkit = tree.toolkit(false);
            let written = call(&toolkit, "write_file", json!({"path": "notes/a.txt", "content": "a\n"}));
            assert_eq!(written["ok"], true, "{written:#}");
            let patched = call(&toolkit, "apply_patch", json!({"patch": PATCH}));
            assert_eq!(patched["ok"], true, "{patched:#}");
            vec![written, patched]
        },
    );
}

#[test]
fn a_lock_file_linked_into_git_hooks_neither_creates_a_hook_nor_blocks_writes() {
    attack(
        |tree| {
            for rel in ["src/app.py", "notes/a.txt", "docs/guide.md"] {
                symlink("../../.git/hooks/pre-commit", tree.state(&lock_name(rel))).unwrap();
            }
        },
        |tree| {
            let toolkit = tree.toolkit(false);
            let edited = call(
                &toolkit,
                "edit_file",
                json!({"path": "src/app.py", "old_string": "# TODO: localise", "new_string": "# done"}),
            );
            assert_eq!(edited["ok"], true, "{edited:#}");
            let written = call(&toolkit, "write_file", json!({"path": "notes/a.txt", "content": "a\n"}));
            assert_eq!(written["ok"], true, "{written:#}");
            vec![edited, written]
        },
    );
}

#[test]
fn a_fifo_planted_as_a_journal_or_lock_never_hangs_a_patch() {
    attack(
        |tree| {
            for rel in [
                "patch/1.json".to_owned(),
                lock_name("src/app.py"),
                format!("{}/0000000001-none.keep", undo_dir("src/app.py")),
            ] {
                let made = std::process::Command::new("mkfifo").arg(tree.state(&rel)).status().unwrap();
                assert!(made.success(), "mkfifo failed");
            }
        },
        |tree| {
            let root = tree.root.clone();
            within_a_minute(move || {
                let toolkit = Toolkit::open(&root, ToolkitOptions::default()).unwrap();
                let dry = call(&toolkit, "apply_patch", json!({"patch": PATCH, "dry_run": true}));
                let applied = call(&toolkit, "apply_patch", json!({"patch": PATCH}));
                assert_eq!(applied["ok"], true, "{applied:#}");
                let undone = call(&toolkit, "undo_patch", json!({}));
                assert_eq!(undone["ok"], true, "{undone:#}");
                vec![dry, applied, undone]
            })
        },
    );
}

#[test]
fn a_file_or_a_link_in_place_of_the_state_folder_changes_nothing() {
    for plant in [0, 1, 2] {
        attack(
            |tree| match plant {
                0 => fs::write(tree.root.join(".editkit"), PLANTED).unwrap(),
                1 => symlink(&tree.outside, tree.root.join(".editkit")).unwrap(),
                _ => symlink(".git", tree.root.join(".editkit")).unwrap(),
            },
            |tree| {
                let toolkit = tree.toolkit(false);
                let written = call(&toolkit, "write_file", json!({"path": "notes/a.txt", "content": "a\n"}));
                assert_eq!(written["ok"], true, "{written:#}");
                let patched = call(&toolkit, "apply_patch", json!({"patch": PATCH}));
                assert_eq!(patched["ok"], true, "{patched:#}");
                let undone = call(&toolkit, "undo_patch", json!({}));
                assert_eq!(undone["ok"], true, "{undone:#}");
                assert!(toolkit.workspace().shipped_state().unwrap().contains("ignored"));
                vec![written, patched, undone]
            },
        );
    }
}

#[test]
fn every_tool_runs_normally_beside_a_shipped_state_folder_and_never_touches_it() {
    attack(
        |tree| {
            symlink("..", tree.state("patch/1")).unwrap();
            fs::write(tree.state("patch/2.json"), "{not json").unwrap();
            symlink(tree.root.join(".env"), tree.state(&format!("{}/0000000009-none.keep", undo_dir("src/app.py"))))
                .unwrap();
            symlink("../../.git/hooks/pre-commit", tree.state(&lock_name("src/app.py"))).unwrap();
        },
        |tree| {
            let toolkit = tree.toolkit(false);
            let text = fs::read_to_string(fixtures().join("calls/examples.jsonl")).unwrap();
            let mut session = String::new();
            let mut results = Vec::new();
            for line in text.lines().filter(|line| !line.trim().is_empty()) {
                let envelope: Value = serde_json::from_str(&line.replace("$SESSION", &session)).unwrap();
                let result = editkit::tools::call_json(&toolkit, &envelope);
                assert_eq!(result["ok"], true, "{line}: {result:#}");
                if envelope["tool"] == "editor_load" {
                    session = result["session_id"].as_str().unwrap().to_owned();
                }
                results.push(result);
            }
            // The state lives outside the workspace, and nowhere near the sentinel.
            let state = toolkit.workspace().state_dir().to_owned();
            assert!(!state.starts_with(&tree.root) && !state.starts_with(&tree.outside), "{state:?}");
            results
        },
    );
}

#[test]
fn dry_runs_refusals_and_read_only_toolkits_create_no_state() {
    let tree = Hostile::new();
    let state_home = tempfile::tempdir().unwrap();
    let options = |read_only| ToolkitOptions {
        read_only,
        state_home: Some(state_home.path().to_owned()),
        ..ToolkitOptions::default()
    };
    let read_only = Toolkit::open(&tree.root, options(true)).unwrap();
    assert_eq!(call(&read_only, "apply_patch", json!({"patch": PATCH, "dry_run": true}))["ok"], true);
    assert_eq!(call(&read_only, "read_file", json!({"path": "src/app.py"}))["ok"], true);
    assert_eq!(call(&read_only, "write_file", json!({"path": "a.txt", "content": "a"}))["ok"], false);
    let toolkit = Toolkit::open(&tree.root, options(false)).unwrap();
    assert_eq!(call(&toolkit, "apply_patch", json!({"patch": PATCH, "dry_run": true}))["ok"], true);
    assert_eq!(fs::read_dir(state_home.path()).unwrap().count(), 0, "state was created");
    let refused =
        call(&toolkit, "edit_file", json!({"path": "src/app.py", "old_string": "nowhere", "new_string": "x"}));
    assert_eq!(refused["ok"], false);
    assert_eq!(call(&toolkit, "write_file", json!({"path": ".env", "content": "x"}))["ok"], false);
    // A refusal that took a file's lock leaves at most the empty lock folder: no lock file,
    // no journal, no undo entry.
    assert_eq!(files_under(state_home.path()), Vec::<PathBuf>::new(), "a refusal left state behind");
    assert!(!tree.root.join(".editkit").exists());
    // The first real write creates it, outside the workspace, private to the user.
    assert_eq!(call(&toolkit, "write_file", json!({"path": "a.txt", "content": "a"}))["ok"], true);
    let state = toolkit.workspace().state_dir();
    assert!(state.starts_with(state_home.path()), "{state:?}");
    assert_eq!(fs::metadata(state).unwrap().mode() & 0o077, 0);
    assert!(!tree.root.join(".editkit").exists());
}

#[test]
fn a_state_folder_others_may_write_to_is_refused() {
    let tree = Hostile::new();
    let shared = tempfile::tempdir().unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(shared.path(), fs::Permissions::from_mode(0o777)).unwrap();
    let mut builder = editkit::vfs::Workspace::builder(&tree.root, editkit::vfs::ambient_authority());
    let workspace = builder.state_dir(shared.path()).open().unwrap();
    let err = workspace.write("a.txt", b"a", &Default::default()).unwrap_err();
    assert_eq!(err.error_kind().as_str(), "io");
    assert!(err.to_string().contains("others may write"), "{err}");
    assert!(!tree.root.join("a.txt").exists());
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() { files.extend(files_under(&path)) } else { files.push(path) }
    }
    files
}
