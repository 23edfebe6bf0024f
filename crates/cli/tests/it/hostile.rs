//! `editkit apply` and `editkit recover` on a repository that ships a hostile `.editkit/`:
//! crafted journals and backups, links to the root, to `.git` and out of the root. Nothing is
//! acted on, the commands say what they ignored, and the state lands outside the workspace.

use std::fs;
use std::os::unix::fs::symlink;

use super::{read, root_arg, run, stderr, stdout, workspace};

const PATCH: &str = "*** Begin Patch\n*** Update File: app.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n";

fn plant(root: &std::path::Path, outside: &std::path::Path) {
    let patch = root.join(".editkit/patch");
    fs::create_dir_all(patch.join("7")).expect("test setup");
    let journal = r#"{"version":1,"id":"7","created_dirs":[],"entries":[{"target":".env","temp":null,"backup":".editkit/patch/7/0"},{"target":"keep.txt","temp":"x.tmp","backup":null}]}"#;
    fs::write(patch.join("7.json"), journal).expect("test setup");
    fs::write(patch.join("7/0"), "PLANTED\n").expect("test setup");
    symlink("..", patch.join("root")).expect("test setup");
    symlink("../../.git", patch.join("git")).expect("test setup");
    symlink(outside, patch.join("out")).expect("test setup");
}

#[test]
fn apply_and_recover_ignore_a_shipped_state_folder() {
    let dir =
        workspace(&[("app.py", "x = 1\n"), ("keep.txt", "keep\n"), (".env", "TOKEN=1\n"), (".git/config", "[core]\n")]);
    let outside = tempfile::tempdir().expect("test setup");
    fs::write(outside.path().join("sentinel.txt"), "outside\n").expect("test setup");
    let state = tempfile::tempdir().expect("test setup");
    plant(dir.path(), outside.path());
    let root = root_arg(dir.path());
    let state_arg = state.path().display().to_string();

    let recovered = run(&["recover", "--root", &root, "--state-dir", &state_arg], "");
    assert_eq!(recovered.status.code(), Some(0), "{}", stderr(&recovered));
    assert!(stdout(&recovered).contains("nothing to recover"), "{}", stdout(&recovered));
    assert!(stderr(&recovered).contains("was ignored"), "{}", stderr(&recovered));
    let dry = run(&["apply", "-", "--dry-run", "--root", &root, "--state-dir", &state_arg], PATCH);
    assert_eq!(dry.status.code(), Some(0), "{}", stderr(&dry));
    assert_eq!(fs::read_dir(state.path()).expect("test setup").count(), 0, "a dry run created state");
    let applied = run(&["apply", "-", "--root", &root, "--state-dir", &state_arg], PATCH);
    assert_eq!(applied.status.code(), Some(0), "{}", stderr(&applied));

    assert_eq!(read(dir.path(), "app.py"), "x = 2\n");
    assert_eq!(read(dir.path(), "keep.txt"), "keep\n");
    assert_eq!(read(dir.path(), ".env"), "TOKEN=1\n");
    assert_eq!(read(dir.path(), ".git/config"), "[core]\n");
    assert_eq!(read(dir.path(), ".editkit/patch/7/0"), "PLANTED\n");
    assert!(dir.path().join(".editkit/patch/7.json").exists());
    assert_eq!(fs::read_to_string(outside.path().join("sentinel.txt")).expect("test setup"), "outside\n");
    assert_eq!(fs::read_dir(outside.path()).expect("test setup").count(), 1);
    // The state is outside the workspace, under --state-dir.
    assert_eq!(fs::read_dir(state.path()).expect("test setup").count(), 1);
    let names: Vec<String> = fs::read_dir(dir.path())
        .expect("test setup")
        .map(|e| e.expect("test setup").file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.starts_with(".editkit-")), "{names:?}");
}
