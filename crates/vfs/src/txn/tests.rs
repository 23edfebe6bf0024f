//! Unit tests of the crate-internal transaction steps: staging by a path as given (under a
//! name the caller chose, for journals written first), deferred renames and flushes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::{CanonicalPath, ErrorKind, Workspace};

/// The integration tests of batched flushes (`tests/it/stage.rs`) cross this private
/// threshold, spelled there too.
#[test]
fn the_syncfs_threshold_is_what_the_integration_tests_assume() {
    assert_eq!(super::SYNCFS_FROM, 8);
}

/// `path`, canonical already, as the transaction steps take it.
fn cp(workspace: &Workspace, path: &str) -> CanonicalPath {
    workspace.canonical_recorded(path).unwrap()
}

const SYNCFS_FROM: usize = super::SYNCFS_FROM;

#[test]
fn stage_as_writes_the_named_temp_beside_the_target_and_keeps_the_target() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("dir")).unwrap();
    std::fs::write(tmp.path().join("dir/a.txt"), "old\n").unwrap();
    let workspace = Workspace::open(tmp.path(), crate::ambient_authority()).unwrap();
    let staged = workspace.txn().stage_as("dir/a.txt", ".editkit-txn-1-0.tmp", b"new\n", false).unwrap();
    assert_eq!(staged.target, "dir/a.txt");
    assert_eq!(staged.temp, "dir/.editkit-txn-1-0.tmp");
    assert_eq!(std::fs::read(tmp.path().join("dir/.editkit-txn-1-0.tmp")).unwrap(), b"new\n");
    assert_eq!(std::fs::read(tmp.path().join("dir/a.txt")).unwrap(), b"old\n");
    // Hidden from listings like every editkit temp file.
    assert_eq!(workspace.list_dir("dir").unwrap(), ["a.txt"]);
    workspace.txn().rename(&staged.temp, &staged.target).unwrap();
    assert_eq!(std::fs::read(tmp.path().join("dir/a.txt")).unwrap(), b"new\n");
}

#[test]
fn stage_as_creates_missing_folders_when_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(tmp.path(), crate::ambient_authority()).unwrap();
    let err = workspace.txn().stage_as("x/y/z.txt", ".editkit-t.tmp", b"z", false).unwrap_err();
    assert_eq!(err.error_kind(), ErrorKind::NotFound);
    let staged = workspace.txn().stage_as("x/y/z.txt", ".editkit-t.tmp", b"z", true).unwrap();
    assert_eq!(staged.temp, "x/y/.editkit-t.tmp");
}

#[test]
fn stage_as_refuses_names_that_are_not_plain_hidden_names() {
    let tmp = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(tmp.path(), crate::ambient_authority()).unwrap();
    for name in ["plain.tmp", ".editkit-a/b.tmp", "../.editkit-x", ".editkit-\0", ""] {
        let err = workspace.txn().stage_as("a.txt", name, b"x", true).unwrap_err();
        assert_eq!(err.error_kind(), ErrorKind::InvalidArgs, "{name:?}");
    }
    assert!(workspace.list_dir("").unwrap().is_empty());
}

#[test]
fn stage_as_never_overwrites_or_removes_an_existing_file_of_that_name() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join(".editkit-taken.tmp"), "someone else's").unwrap();
    let workspace = Workspace::open(tmp.path(), crate::ambient_authority()).unwrap();
    let err = workspace.txn().stage_as("a.txt", ".editkit-taken.tmp", b"x", true).unwrap_err();
    assert_eq!(err.error_kind(), ErrorKind::Exists);
    assert_eq!(std::fs::read(tmp.path().join(".editkit-taken.tmp")).unwrap(), b"someone else's");
}

#[test]
fn copy_permissions_gives_a_staged_file_the_mode_of_another() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("run.sh"), "echo\n").unwrap();
    std::fs::set_permissions(tmp.path().join("run.sh"), std::fs::Permissions::from_mode(0o750)).unwrap();
    let workspace = Workspace::open(tmp.path(), crate::ambient_authority()).unwrap();
    let staged = workspace.txn().stage_as("bin/run.sh", ".editkit-mv.tmp", b"echo moved\n", true).unwrap();
    workspace.txn().copy_permissions(&cp(&workspace, "run.sh"), &staged.temp).unwrap();
    let mode = std::fs::metadata(tmp.path().join(staged.temp.as_str())).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o750);
    assert_eq!(
        workspace.txn().copy_permissions(&cp(&workspace, "missing"), &staged.temp).unwrap_err().error_kind(),
        ErrorKind::NotFound
    );
}

/// `Durability::Atomic` changes only whether writes are fsynced: a write, a staged rename and a
/// state file land exactly as with `Full`, and `Full` is the default. (That a killed process
/// never leaves a torn file or patch either way is the patch crate's crash test.)
#[test]
fn atomic_durability_writes_what_full_durability_writes() {
    use crate::{Durability, Workspace, WriteOptions};
    let dir = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    assert_eq!(
        Workspace::builder(dir.path(), crate::ambient_authority()).state_dir(state.path()).open().unwrap().durability,
        Durability::Full
    );
    let workspace = Workspace::builder(dir.path(), crate::ambient_authority())
        .state_dir(state.path())
        .durability(Durability::Atomic)
        .open()
        .unwrap();
    assert_eq!(workspace.durability, Durability::Atomic);
    workspace.write("a/b.txt", b"one\n", &WriteOptions { create_dirs: true, ..Default::default() }).unwrap();
    assert_eq!(std::fs::read(dir.path().join("a/b.txt")).unwrap(), b"one\n");
    let staged = workspace.txn().stage("a/b.txt", b"two\n", false).unwrap();
    workspace.txn().rename(&staged.temp, &staged.target).unwrap();
    assert_eq!(std::fs::read(dir.path().join("a/b.txt")).unwrap(), b"two\n");
    workspace.txn().state_write("notes/x", b"kept").unwrap();
    assert_eq!(workspace.txn().state_read("notes/x").unwrap().as_deref(), Some(&b"kept"[..]));
    workspace.txn().sync_dir(&cp(&workspace, "a")).unwrap();
    assert_eq!("atomic".parse::<Durability>(), Ok(Durability::Atomic));
    assert!("sometimes".parse::<Durability>().unwrap_err().contains("`full` or `atomic`"));
}

#[test]
fn deferred_staging_and_renames_land_the_same_bytes_and_a_batch_is_made_durable() {
    let tmp = tempfile::tempdir().unwrap();
    for dir in ["a", "b"] {
        std::fs::create_dir(tmp.path().join(dir)).unwrap();
    }
    let workspace = Workspace::open(tmp.path(), crate::ambient_authority()).unwrap();
    let txn = workspace.txn();
    let mut temps = Vec::new();
    for i in 0..SYNCFS_FROM + 2 {
        let target = format!("{}/f{i}.txt", if i % 2 == 0 { "a" } else { "b" });
        let staged = txn.stage_as_deferred(&target, &format!(".editkit-t{i}.tmp"), format!("{i}\n").as_bytes(), false);
        temps.push(staged.unwrap());
    }
    // Below the batch size each path is fsynced, above it the file system is flushed at once:
    // both succeed on what was staged.
    let folders = ["a", "b", ""].map(|path| cp(&workspace, path));
    txn.make_durable(temps.iter().take(2).map(|s| &s.temp)).unwrap();
    txn.make_durable(temps.iter().map(|s| &s.temp).chain(&folders)).unwrap();
    for staged in &temps {
        txn.rename_deferred(&staged.temp, &staged.target).unwrap();
    }
    txn.make_durable(&folders[..2]).unwrap();
    for (i, staged) in temps.iter().enumerate() {
        assert_eq!(std::fs::read_to_string(tmp.path().join(staged.target.as_str())).unwrap(), format!("{i}\n"));
    }
    assert_eq!(workspace.list_dir("a").unwrap().len(), temps.len().div_ceil(2));
    // A path that is not there is an error, not a silent success: its changes are not on disk.
    let err = txn.make_durable([&cp(&workspace, "a/missing.txt")]).unwrap_err();
    assert_eq!(err.error_kind(), ErrorKind::NotFound, "{err}");
    // A deferred stage refuses the names `stage_as` refuses.
    assert_eq!(
        txn.stage_as_deferred("a/x.txt", "plain.tmp", b"x", false).unwrap_err().error_kind(),
        ErrorKind::InvalidArgs
    );
}

/// A temp name was judged by its folder alone: a blocked file whose name starts with
/// `.editkit-` (`.editkit-leak.pem`, blocked by `**/*.pem`) became a canonical path through
/// `canonical_recorded` or `CanonicalPath::sibling`, and the steps read, kept, linked, renamed
/// and removed it. A unit test: a sibling is built without the policy, a constructor only the
/// crate has.
#[test]
fn a_blocked_file_with_a_temp_name_is_never_reached() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::create_dir(root.join("dir")).unwrap();
    std::fs::write(root.join("file.txt"), "inside\n").unwrap();
    std::fs::write(root.join("dir/inner.txt"), "inner\n").unwrap();
    std::fs::write(root.join(".editkit-leak.pem"), "-----BEGIN-----\n").unwrap();
    std::fs::write(root.join("dir/.editkit-id.key"), "secret\n").unwrap();
    let workspace = Workspace::open(root, crate::ambient_authority()).unwrap();
    let file = workspace.canonical("file.txt").unwrap();
    let inner = workspace.canonical("dir/inner.txt").unwrap();
    for (path, beside) in [(".editkit-leak.pem", &file), ("dir/.editkit-id.key", &inner)] {
        assert_eq!(workspace.canonical(path).unwrap_err().error_kind(), ErrorKind::Blocked, "{path}");
        assert_eq!(workspace.canonical_recorded(path).unwrap_err().error_kind(), ErrorKind::Blocked, "{path}");
        let name = path.rsplit('/').next().unwrap();
        // A sibling is built without the policy; every step refuses it.
        let Ok(sibling) = beside.sibling(name) else { continue };
        let txn = workspace.txn();
        assert_eq!(txn.read(&sibling).unwrap_err().error_kind(), ErrorKind::Blocked, "{path}");
        assert_eq!(txn.read_plain(&sibling, 1 << 20), None, "{path}");
        assert!(txn.entry_exists(&sibling).is_err(), "{path}");
        assert!(txn.state_keep(&sibling, "undo/leak").is_err(), "{path}");
        assert!(txn.set_mode(&sibling, 0o644).is_err(), "{path}");
        assert!(txn.copy_permissions(&file, &sibling).is_err(), "{path}");
        assert!(txn.rename(&sibling, &workspace.canonical("leak.txt").unwrap()).is_err(), "{path}");
        let folders = txn.folders();
        assert!(!folders.holds(&sibling, b"secret\n"), "{path}");
        assert!(folders.hard_link(&sibling, &file.sibling(".editkit-copy").unwrap()).is_err(), "{path}");
        assert!(folders.remove_file(&sibling).is_err(), "{path}");
        assert!(txn.remove(&sibling).is_err(), "{path}");
    }
    assert_eq!(workspace.txn().state_read("undo/leak").unwrap(), None);
    assert!(!root.join("leak.txt").exists());
    assert!(!root.join(".editkit-copy").exists());
    assert_eq!(std::fs::read_to_string(root.join(".editkit-leak.pem")).unwrap(), "-----BEGIN-----\n");
    assert_eq!(std::fs::read_to_string(root.join("dir/.editkit-id.key")).unwrap(), "secret\n");
}
