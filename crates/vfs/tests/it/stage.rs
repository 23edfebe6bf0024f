//! Transaction steps on canonical paths: folder handles for a batch, state-folder batches.
//! (Staging by a path as given, `Txn::stage_as`, is crate-internal: its tests are unit tests in
//! `src/txn/tests.rs`.)

use editkit_vfs::{CanonicalPath, ErrorKind, Workspace};

/// From how many paths `make_durable` flushes the file system at once: the crate's private
/// tuning (`txn.rs`, whose unit test checks that this agrees).
const SYNCFS_FROM: usize = 8;

/// `path`, canonical already, as the transaction steps take it.
fn cp(workspace: &Workspace, path: &str) -> CanonicalPath {
    workspace.canonical_recorded(path).unwrap()
}

#[test]
fn state_entries_removed_soon_are_gone_at_once_and_unlinked_before_the_workspace_is() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let open =
        || Workspace::builder(root.path(), editkit_vfs::ambient_authority()).state_dir(state.path()).open().unwrap();
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
    assert_eq!(open().txn().state_remove_soon("../escape").unwrap_err().error_kind(), ErrorKind::InvalidArgs);
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
    let workspace = Workspace::open(root, editkit_vfs::ambient_authority()).unwrap();
    let folders = workspace.txn().folders();

    // A batch: stage both, back both up, flush, rename, remove the backups.
    let p = |path: &str| cp(&workspace, path);
    let a = folders.stage_deferred(&p("src/a.txt"), ".editkit-t-0.tmp", b"A\n", false).unwrap();
    let b = folders.stage_deferred(&p("src/deep/b.txt"), ".editkit-t-1.tmp", b"B\n", false).unwrap();
    assert_eq!((a.temp.as_str(), b.temp.as_str()), ("src/.editkit-t-0.tmp", "src/deep/.editkit-t-1.tmp"));
    let mode = std::fs::metadata(root.join(a.temp.as_str())).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640, "the staged file has the target's mode");
    folders.hard_link(&p("src/a.txt"), &p("src/.editkit-t-0.bak")).unwrap();
    folders.hard_link(&p("src/deep/b.txt"), &p("src/deep/.editkit-t-1.bak")).unwrap();
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
    assert!(flushed.len() >= SYNCFS_FROM);
    folders.make_durable(&flushed.map(p)).unwrap();
    folders.make_durable(&["src", "src/deep", "src/a.txt"].map(p)).unwrap();
    assert!(folders.make_durable([&p("src/missing.txt")]).is_err(), "a path that is not there is not flushed");
    folders.rename(&a.temp, &p("src/a.txt")).unwrap();
    folders.rename(&b.temp, &p("src/deep/b.txt")).unwrap();
    assert_eq!(std::fs::read_to_string(root.join("src/.editkit-t-0.bak")).unwrap(), "a\n");
    folders.remove_file(&p("src/.editkit-t-0.bak")).unwrap();
    folders.remove_file(&p("src/deep/.editkit-t-1.bak")).unwrap();
    assert_eq!(std::fs::read_to_string(root.join("src/a.txt")).unwrap(), "A\n");
    assert_eq!(std::fs::read_to_string(root.join("src/deep/b.txt")).unwrap(), "B\n");
    assert_eq!(workspace.list_dir("src").unwrap(), ["a.txt", "deep/"]);
    assert_eq!(std::fs::read_dir(root.join("src")).unwrap().count(), 2, "no backup or temp is left");

    // What is gone already, or never was, is not an error to remove.
    folders.remove_file(&p("src/.editkit-t-0.bak")).unwrap();
    folders.remove_file(&p("missing/folder/x.txt")).unwrap();
    // A folder is never removed as a file.
    assert!(folders.remove_file(&p("src/deep")).is_err());
    assert!(root.join("src/deep").is_dir());
    // Names that are not plain hidden names are refused before anything is opened.
    for name in ["plain.tmp", ".editkit-a/b.tmp", "../.editkit-x", ""] {
        let err = folders.stage_deferred(&p("src/a.txt"), name, b"x", false).unwrap_err();
        assert_eq!(err.error_kind(), ErrorKind::InvalidArgs, "{name:?}");
    }
    // A taken temp name is never overwritten.
    std::fs::write(root.join("src/.editkit-taken"), "mine\n").unwrap();
    assert!(folders.stage_deferred(&p("src/a.txt"), ".editkit-taken", b"x", false).is_err());
    assert_eq!(std::fs::read_to_string(root.join("src/.editkit-taken")).unwrap(), "mine\n");

    // A link on the way is never followed, for any step.
    assert!(folders.stage_deferred(&p("out/x.txt"), ".editkit-t-2.tmp", b"x", true).is_err());
    assert!(folders.hard_link(&p("out/x.txt"), &p("src/.editkit-t-3.bak")).is_err());
    assert!(folders.rename(&p("out/x.txt"), &p("src/stolen.txt")).is_err());
    // (A removal through a link finds nothing to remove: the link is no folder of the root.)
    let _ = folders.remove_file(&p("out/x.txt"));
    assert!(outside.path().join("x.txt").exists());
    // A folder the batch holds, moved away by another process and replaced: the batch says so
    // before anything is renamed into it; an untouched batch says nothing.
    let held = workspace.txn().folders();
    held.stage_deferred(&p("src/deep/b.txt"), ".editkit-t-5.tmp", b"x", false).unwrap();
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
    assert!(fresh.stage_deferred(&p("src/deep/x.txt"), ".editkit-t-4.tmp", b"x", false).is_err());
    let _ = fresh.remove_file(&p("src/deep/x.txt"));
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
    let workspace = Workspace::open(root, editkit_vfs::ambient_authority()).unwrap();
    let folders = workspace.txn().folders();
    let p = |path: &str| cp(&workspace, path);
    assert!(folders.holds(&p("src/a.txt"), planned));
    assert!(folders.holds(&p("src/big.bin"), &big), "compared a block at a time past 64 KiB");
    let mut last_differs = big.clone();
    *last_differs.last_mut().unwrap() ^= 1;
    assert!(!folders.holds(&p("src/big.bin"), &last_differs));
    assert!(!folders.holds(&p("src/a.txt"), b"one\ntwo\nthreE\n"), "same size, another byte");
    assert!(!folders.holds(&p("src/a.txt"), b"one\ntwo\n"), "the file is longer");
    assert!(!folders.holds(&p("src/a.txt"), b"one\ntwo\nthree\nfour\n"), "the file is shorter");
    assert!(!folders.holds(&p("src/missing.txt"), planned));
    // A folder, even given as many bytes as its size says: judged by its type.
    let folder_size = usize::try_from(std::fs::metadata(root.join("src/dir")).unwrap().len()).unwrap();
    assert!(!folders.holds(&p("src/dir"), &vec![0; folder_size]), "a folder holds no bytes");
    assert!(!folders.holds(&p("nowhere/a.txt"), planned), "a missing folder");

    // Swapped for a link to a file with the very bytes: not the file planned against.
    std::fs::remove_file(root.join("src/a.txt")).unwrap();
    std::os::unix::fs::symlink("same.txt", root.join("src/a.txt")).unwrap();
    assert!(!folders.holds(&p("src/a.txt"), planned), "a link is never followed");
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
    assert!(!folders.holds(&p("src/a.txt"), b""));
    // Put back by another process (a new inode) with the same bytes: it holds them.
    std::fs::remove_file(root.join("src/a.txt")).unwrap();
    std::fs::write(root.join("src/a.txt"), planned).unwrap();
    assert!(folders.holds(&p("src/a.txt"), planned));
}

/// Contents kept together are one state file, written from their parts whole (each
/// durability), and a refused name leaves nothing: no file, no temp file.
#[test]
fn parts_of_a_state_file_land_whole_or_leave_no_temp_file() {
    use editkit_vfs::Durability;
    for durability in [Durability::Full, Durability::Atomic] {
        let dir = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        let workspace = Workspace::builder(dir.path(), editkit_vfs::ambient_authority())
            .state_dir(state.path().join("s"))
            .durability(durability)
            .open()
            .unwrap();
        let parts: Vec<Vec<u8>> = (0..SYNCFS_FROM * 2).map(|n| vec![b'a' + (n % 26) as u8; n * 1000]).collect();
        let slices: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        workspace.txn().state_write_parts("undo/patches/1-all.bytes", &slices).unwrap();
        assert_eq!(workspace.txn().state_read("undo/patches/1-all.bytes").unwrap(), Some(parts.concat()));
        // Written again: replaced whole.
        workspace.txn().state_write_parts("undo/patches/1-all.bytes", &[b"x", b"y"]).unwrap();
        assert_eq!(workspace.txn().state_read("undo/patches/1-all.bytes").unwrap().as_deref(), Some(&b"xy"[..]));
        assert!(workspace.txn().state_write_parts("../escape", &slices).is_err());
        assert!(workspace.txn().state_write_parts("undo/../../escape", &slices).is_err());
        let left: Vec<String> = walkdir_names(&state.path().join("s"));
        assert!(left.iter().all(|name| !name.contains(".tmp") && !name.contains("escape")), "{left:?}");
        assert!(!state.path().join("escape").exists());
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
