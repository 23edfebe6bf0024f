//! `Txn::stage_as`: staging under a name the caller chose (for journals written first).

use editkit_vfs::Workspace;

#[test]
fn stage_as_writes_the_named_temp_beside_the_target_and_keeps_the_target() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("dir")).unwrap();
    std::fs::write(tmp.path().join("dir/a.txt"), "old\n").unwrap();
    let workspace = Workspace::open(tmp.path()).unwrap();
    let staged = workspace.txn().stage_as("dir/a.txt", ".editkit-txn-1-0.tmp", b"new\n", false).unwrap();
    assert_eq!(staged.target, "dir/a.txt");
    assert_eq!(staged.temp, "dir/.editkit-txn-1-0.tmp");
    assert_eq!(std::fs::read(tmp.path().join("dir/.editkit-txn-1-0.tmp")).unwrap(), b"new\n");
    assert_eq!(std::fs::read(tmp.path().join("dir/a.txt")).unwrap(), b"old\n");
    // Hidden from listings like every editkit temp file.
    assert_eq!(workspace.list_dir("dir").unwrap(), ["a.txt"]);
    workspace.txn().rename_unchecked(&staged.temp, &staged.target).unwrap();
    assert_eq!(std::fs::read(tmp.path().join("dir/a.txt")).unwrap(), b"new\n");
}

#[test]
fn stage_as_creates_missing_folders_when_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(tmp.path()).unwrap();
    let err = workspace.txn().stage_as("x/y/z.txt", ".editkit-t.tmp", b"z", false).unwrap_err();
    assert_eq!(err.kind(), "not_found");
    let staged = workspace.txn().stage_as("x/y/z.txt", ".editkit-t.tmp", b"z", true).unwrap();
    assert_eq!(staged.temp, "x/y/.editkit-t.tmp");
}

#[test]
fn stage_as_refuses_names_that_are_not_plain_hidden_names() {
    let tmp = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(tmp.path()).unwrap();
    for name in ["plain.tmp", ".editkit-a/b.tmp", "../.editkit-x", ".editkit-\0", ""] {
        let err = workspace.txn().stage_as("a.txt", name, b"x", true).unwrap_err();
        assert_eq!(err.kind(), "invalid_args", "{name:?}");
    }
    assert!(workspace.list_dir("").unwrap().is_empty());
}

#[test]
fn stage_as_never_overwrites_or_removes_an_existing_file_of_that_name() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join(".editkit-taken.tmp"), "someone else's").unwrap();
    let workspace = Workspace::open(tmp.path()).unwrap();
    let err = workspace.txn().stage_as("a.txt", ".editkit-taken.tmp", b"x", true).unwrap_err();
    assert_eq!(err.kind(), "exists");
    assert_eq!(std::fs::read(tmp.path().join(".editkit-taken.tmp")).unwrap(), b"someone else's");
}

#[test]
fn copy_permissions_unchecked_gives_a_staged_file_the_mode_of_another() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("run.sh"), "echo\n").unwrap();
    std::fs::set_permissions(tmp.path().join("run.sh"), std::fs::Permissions::from_mode(0o750)).unwrap();
    let workspace = Workspace::open(tmp.path()).unwrap();
    let staged = workspace.txn().stage_as("bin/run.sh", ".editkit-mv.tmp", b"echo moved\n", true).unwrap();
    workspace.txn().copy_permissions_unchecked("run.sh", &staged.temp).unwrap();
    let mode = std::fs::metadata(tmp.path().join(&staged.temp)).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o750);
    assert_eq!(workspace.txn().copy_permissions_unchecked("missing", &staged.temp).unwrap_err().kind(), "not_found");
}

/// `Durability::Atomic` changes only whether writes are fsynced: a write, a staged rename and a
/// state file land exactly as with `Full`, and `Full` is the default. (That a killed process
/// never leaves a torn file or patch either way is the patch crate's crash test.)
#[test]
fn atomic_durability_writes_what_full_durability_writes() {
    use editkit_vfs::{Durability, Workspace, WriteOptions};
    let dir = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    assert_eq!(Workspace::builder(dir.path()).state_dir(state.path()).open().unwrap().durability(), Durability::Full);
    let workspace =
        Workspace::builder(dir.path()).state_dir(state.path()).durability(Durability::Atomic).open().unwrap();
    assert_eq!(workspace.durability(), Durability::Atomic);
    workspace.write("a/b.txt", b"one\n", &WriteOptions { create_dirs: true, ..Default::default() }).unwrap();
    assert_eq!(std::fs::read(dir.path().join("a/b.txt")).unwrap(), b"one\n");
    let staged = workspace.txn().stage("a/b.txt", b"two\n", false).unwrap();
    workspace.txn().rename_unchecked(&staged.temp, &staged.target).unwrap();
    assert_eq!(std::fs::read(dir.path().join("a/b.txt")).unwrap(), b"two\n");
    workspace.txn().state_write("notes/x", b"kept").unwrap();
    assert_eq!(workspace.txn().state_read("notes/x").unwrap().as_deref(), Some(&b"kept"[..]));
    workspace.txn().sync_dir_unchecked("a").unwrap();
    assert_eq!("atomic".parse::<Durability>(), Ok(Durability::Atomic));
    assert!("sometimes".parse::<Durability>().unwrap_err().contains("`full` or `atomic`"));
}

#[test]
fn deferred_staging_and_renames_land_the_same_bytes_and_a_batch_is_made_durable() {
    let tmp = tempfile::tempdir().unwrap();
    for dir in ["a", "b"] {
        std::fs::create_dir(tmp.path().join(dir)).unwrap();
    }
    let workspace = Workspace::open(tmp.path()).unwrap();
    let txn = workspace.txn();
    let mut temps = Vec::new();
    for i in 0..editkit_vfs::SYNCFS_FROM + 2 {
        let target = format!("{}/f{i}.txt", if i % 2 == 0 { "a" } else { "b" });
        let staged = txn.stage_as_deferred(&target, &format!(".editkit-t{i}.tmp"), format!("{i}\n").as_bytes(), false);
        temps.push(staged.unwrap());
    }
    // Below the batch size each path is fsynced, above it the file system is flushed at once:
    // both succeed on what was staged.
    txn.make_durable(temps.iter().take(2).map(|s| s.temp.as_str())).unwrap();
    txn.make_durable(temps.iter().map(|s| s.temp.as_str()).chain(["a", "b", ""])).unwrap();
    for staged in &temps {
        txn.rename_deferred_unchecked(&staged.temp, &staged.target).unwrap();
    }
    txn.make_durable(["a", "b"]).unwrap();
    for (i, staged) in temps.iter().enumerate() {
        assert_eq!(std::fs::read_to_string(tmp.path().join(&staged.target)).unwrap(), format!("{i}\n"));
    }
    assert_eq!(workspace.list_dir("a").unwrap().len(), temps.len().div_ceil(2));
    // A path that is not there is an error, not a silent success: its changes are not on disk.
    let err = txn.make_durable(["a/missing.txt"]).unwrap_err();
    assert_eq!(err.kind(), "not_found", "{err}");
    // A deferred stage refuses the names `stage_as` refuses.
    assert_eq!(txn.stage_as_deferred("a/x.txt", "plain.tmp", b"x", false).unwrap_err().kind(), "invalid_args");
}

#[test]
fn state_entries_removed_soon_are_gone_at_once_and_unlinked_before_the_workspace_is() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let open = || Workspace::builder(root.path()).state_dir(state.path()).open().unwrap();
    let workspace = open();
    let txn = workspace.txn();
    for n in 0..5 {
        txn.state_write(&format!("undo/{n}.keep"), &vec![b'x'; 300_000]).unwrap();
    }
    // A hidden name left by a killed process, and a hostile folder of such a name.
    std::fs::write(state.path().join("undo/.reap-1-1"), b"left").unwrap();
    std::fs::create_dir(state.path().join("undo/.reap-1-2")).unwrap();
    for n in 0..3 {
        txn.state_remove_soon(&format!("undo/{n}.keep")).unwrap();
        // Gone for every reader as soon as the call returns.
        assert!(txn.state_read(&format!("undo/{n}.keep")).unwrap().is_none());
    }
    // Missing names, and a name that is a folder, are no error.
    txn.state_remove_soon("undo/0.keep").unwrap();
    txn.state_remove_soon("nothing/here").unwrap();
    assert_eq!(txn.state_list("undo").unwrap(), ["3.keep", "4.keep"]);
    drop(workspace);
    let mut left: Vec<String> = std::fs::read_dir(state.path().join("undo"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    // Every hidden file was unlinked, the left one included; a folder is never removed.
    assert_eq!(left, [".reap-1-2", "3.keep", "4.keep"]);
    // A name outside the state folder is refused as by every state call.
    assert_eq!(open().txn().state_remove_soon("../escape").unwrap_err().kind(), "invalid_args");
}

/// `Txn::folders`: a batch's steps through folder handles opened once. They land what the
/// per-step calls land, keep the target's mode, refuse what those refuse, and never follow a
/// link, whether a folder of the path is one when the batch first reaches it or not.
#[test]
fn folder_handles_land_a_batch_and_never_follow_a_link() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("x.txt"), "outside\n").unwrap();
    let root = tmp.path();
    std::fs::create_dir_all(root.join("src/deep")).unwrap();
    std::fs::write(root.join("src/a.txt"), "a\n").unwrap();
    std::fs::set_permissions(root.join("src/a.txt"), std::fs::Permissions::from_mode(0o640)).unwrap();
    std::fs::write(root.join("src/deep/b.txt"), "b\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("out")).unwrap();
    let workspace = Workspace::open(root).unwrap();
    let folders = workspace.txn().folders();

    // A batch: stage both, back both up, flush, rename, remove the backups.
    let a = folders.stage_deferred_unchecked("src/a.txt", ".editkit-t-0.tmp", b"A\n", false).unwrap();
    let b = folders.stage_deferred_unchecked("src/deep/b.txt", ".editkit-t-1.tmp", b"B\n", false).unwrap();
    assert_eq!((a.temp.as_str(), b.temp.as_str()), ("src/.editkit-t-0.tmp", "src/deep/.editkit-t-1.tmp"));
    let mode = std::fs::metadata(root.join(&a.temp)).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640, "the staged file has the target's mode");
    folders.hard_link_unchecked("src/a.txt", "src/.editkit-t-0.bak").unwrap();
    folders.hard_link_unchecked("src/deep/b.txt", "src/deep/.editkit-t-1.bak").unwrap();
    // Past `SYNCFS_FROM` paths one flush of the file system (each path's is checked), and
    // below it one fsync each.
    let flushed = [
        a.temp.as_str(),
        b.temp.as_str(),
        "src",
        "src/deep",
        "",
        "src/a.txt",
        "src/deep/b.txt",
        "src/.editkit-t-0.bak",
        "src/deep/.editkit-t-1.bak",
    ];
    assert!(flushed.len() >= editkit_vfs::SYNCFS_FROM);
    folders.make_durable(flushed).unwrap();
    folders.make_durable(["src", "src/deep", "src/a.txt"]).unwrap();
    assert!(folders.make_durable(["src/missing.txt"]).is_err(), "a path that is not there is not flushed");
    folders.rename_unchecked(&a.temp, "src/a.txt").unwrap();
    folders.rename_unchecked(&b.temp, "src/deep/b.txt").unwrap();
    assert_eq!(std::fs::read_to_string(root.join("src/.editkit-t-0.bak")).unwrap(), "a\n");
    folders.remove_file_unchecked("src/.editkit-t-0.bak").unwrap();
    folders.remove_file_unchecked("src/deep/.editkit-t-1.bak").unwrap();
    assert_eq!(std::fs::read_to_string(root.join("src/a.txt")).unwrap(), "A\n");
    assert_eq!(std::fs::read_to_string(root.join("src/deep/b.txt")).unwrap(), "B\n");
    assert_eq!(workspace.list_dir("src").unwrap(), ["a.txt", "deep/"]);
    assert_eq!(std::fs::read_dir(root.join("src")).unwrap().count(), 2, "no backup or temp is left");

    // What is gone already, or never was, is not an error to remove.
    folders.remove_file_unchecked("src/.editkit-t-0.bak").unwrap();
    folders.remove_file_unchecked("missing/folder/x.txt").unwrap();
    // A folder is never removed as a file.
    assert!(folders.remove_file_unchecked("src/deep").is_err());
    assert!(root.join("src/deep").is_dir());
    // Names that are not plain hidden names are refused before anything is opened.
    for name in ["plain.tmp", ".editkit-a/b.tmp", "../.editkit-x", ""] {
        let err = folders.stage_deferred_unchecked("src/a.txt", name, b"x", false).unwrap_err();
        assert_eq!(err.kind(), "invalid_args", "{name:?}");
    }
    // A taken temp name is never overwritten.
    std::fs::write(root.join("src/.editkit-taken"), "mine\n").unwrap();
    assert!(folders.stage_deferred_unchecked("src/a.txt", ".editkit-taken", b"x", false).is_err());
    assert_eq!(std::fs::read_to_string(root.join("src/.editkit-taken")).unwrap(), "mine\n");

    // A link on the way is never followed, for any step.
    assert!(folders.stage_deferred_unchecked("out/x.txt", ".editkit-t-2.tmp", b"x", true).is_err());
    assert!(folders.hard_link_unchecked("out/x.txt", "src/.editkit-t-3.bak").is_err());
    assert!(folders.rename_unchecked("out/x.txt", "src/stolen.txt").is_err());
    // (A removal through a link finds nothing to remove: the link is no folder of the root.)
    let _ = folders.remove_file_unchecked("out/x.txt");
    assert!(outside.path().join("x.txt").exists());
    // A folder the batch holds, moved away by another process and replaced: the batch says so
    // before anything is renamed into it; an untouched batch says nothing.
    let held = workspace.txn().folders();
    held.stage_deferred_unchecked("src/deep/b.txt", ".editkit-t-5.tmp", b"x", false).unwrap();
    held.check_unmoved().unwrap();
    std::fs::rename(root.join("src/deep"), outside.path().join("deep")).unwrap();
    std::fs::create_dir(root.join("src/deep")).unwrap();
    let err = held.check_unmoved().unwrap_err();
    assert!(matches!(&err, editkit_vfs::Error::Changed { path } if path == "src/deep"), "{err}");
    std::fs::remove_dir(root.join("src/deep")).unwrap();
    std::fs::rename(outside.path().join("deep"), root.join("src/deep")).unwrap();
    held.check_unmoved().unwrap();
    std::fs::remove_file(root.join("src/deep/.editkit-t-5.tmp")).unwrap();
    // A folder swapped for a link after another batch opened it: a new batch refuses it.
    std::fs::rename(root.join("src/deep"), root.join("src/deep-moved")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("src/deep")).unwrap();
    let fresh = workspace.txn().folders();
    assert!(fresh.stage_deferred_unchecked("src/deep/x.txt", ".editkit-t-4.tmp", b"x", false).is_err());
    let _ = fresh.remove_file_unchecked("src/deep/x.txt");
    assert_eq!(std::fs::read_to_string(outside.path().join("x.txt")).unwrap(), "outside\n");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1, "nothing was written outside");
}

/// A batch's last look at a file before it replaces it: `true` only for a regular file with
/// exactly the bytes planned against, reached through the folder handle without following a
/// link or blocking on a FIFO.
#[test]
fn folder_handles_say_whether_a_file_still_holds_the_bytes_planned_against() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::create_dir_all(root.join("src/dir")).unwrap();
    let planned = b"one\ntwo\nthree\n";
    std::fs::write(root.join("src/a.txt"), planned).unwrap();
    std::fs::write(root.join("src/same.txt"), planned).unwrap();
    let big: Vec<u8> = (0..200_000u32).flat_map(|n| n.to_le_bytes()).collect();
    std::fs::write(root.join("src/big.bin"), &big).unwrap();
    let workspace = Workspace::open(root).unwrap();
    let folders = workspace.txn().folders();
    assert!(folders.holds_unchecked("src/a.txt", planned));
    assert!(folders.holds_unchecked("src/big.bin", &big), "compared a block at a time past 64 KiB");
    let mut last_differs = big.clone();
    *last_differs.last_mut().unwrap() ^= 1;
    assert!(!folders.holds_unchecked("src/big.bin", &last_differs));
    assert!(!folders.holds_unchecked("src/a.txt", b"one\ntwo\nthreE\n"), "same size, another byte");
    assert!(!folders.holds_unchecked("src/a.txt", b"one\ntwo\n"), "the file is longer");
    assert!(!folders.holds_unchecked("src/a.txt", b"one\ntwo\nthree\nfour\n"), "the file is shorter");
    assert!(!folders.holds_unchecked("src/missing.txt", planned));
    // A folder, even given as many bytes as its size says: judged by its type.
    let folder_size = usize::try_from(std::fs::metadata(root.join("src/dir")).unwrap().len()).unwrap();
    assert!(!folders.holds_unchecked("src/dir", &vec![0; folder_size]), "a folder holds no bytes");
    assert!(!folders.holds_unchecked("nowhere/a.txt", planned), "a missing folder");

    // Swapped for a link to a file with the very bytes: not the file planned against.
    std::fs::remove_file(root.join("src/a.txt")).unwrap();
    std::os::unix::fs::symlink("same.txt", root.join("src/a.txt")).unwrap();
    assert!(!folders.holds_unchecked("src/a.txt", planned), "a link is never followed");
    // A FIFO is judged on its handle, never read (a blocking open would hang here).
    std::fs::remove_file(root.join("src/a.txt")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        root.join("src/a.txt"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    assert!(!folders.holds_unchecked("src/a.txt", b""));
    // Put back by another process (a new inode) with the same bytes: it holds them.
    std::fs::remove_file(root.join("src/a.txt")).unwrap();
    std::fs::write(root.join("src/a.txt"), planned).unwrap();
    assert!(folders.holds_unchecked("src/a.txt", planned));
}

#[test]
fn a_batch_of_state_files_lands_whole_or_leaves_no_temp_file() {
    use editkit_vfs::Durability;
    for durability in [Durability::Full, Durability::Atomic] {
        let dir = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        let workspace =
            Workspace::builder(dir.path()).state_dir(state.path().join("s")).durability(durability).open().unwrap();
        let names: Vec<String> =
            (0..editkit_vfs::SYNCFS_FROM * 2).map(|n| format!("undo/{}/{n}.bytes", n % 3)).collect();
        let batch: Vec<(&str, &[u8])> = names.iter().map(|name| (name.as_str(), name.as_bytes())).collect();
        workspace.txn().state_write_all(&batch).unwrap();
        for name in &names {
            assert_eq!(workspace.txn().state_read(name).unwrap().as_deref(), Some(name.as_bytes()), "{durability:?}");
        }
        // A bad name anywhere refuses the batch: the files before it were staged, never
        // renamed, and their temp files are gone.
        let mut bad: Vec<(&str, &[u8])> = (0..10).map(|_| ("undo/new/x.bytes", &b"x"[..])).collect();
        bad[6] = ("../escape", b"x");
        assert!(workspace.txn().state_write_all(&bad).is_err());
        assert_eq!(workspace.txn().state_read("undo/new/x.bytes").unwrap(), None);
        let left: Vec<String> = walkdir_names(&state.path().join("s"));
        assert!(left.iter().all(|name| !name.contains(".tmp")), "{left:?}");
    }
}

/// Every file name under `dir`, recursively.
fn walkdir_names(dir: &std::path::Path) -> Vec<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            names.extend(walkdir_names(&entry.path()));
        } else {
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    names
}
