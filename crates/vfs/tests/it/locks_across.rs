//! A file's lock excludes other workspaces whatever their state folder: the cross-process
//! lock falls on the file itself (or, for a path naming no file, on the root), and follows the
//! file its holder writes, creates, replaces or removes.

use std::os::unix::process::CommandExt;

use editkit_vfs::{ErrorKind, Workspace, WriteOptions};

/// Two workspaces on one root, each with a state folder of its own.
struct Pair {
    root: tempfile::TempDir,
    _states: [tempfile::TempDir; 2],
    first: Workspace,
    second: Workspace,
}

impl Pair {
    fn new() -> Pair {
        let root = tempfile::tempdir().unwrap();
        let states = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
        let open = |state: &tempfile::TempDir| {
            Workspace::builder(root.path(), editkit_vfs::ambient_authority()).state_dir(state.path()).open().unwrap()
        };
        let (first, second) = (open(&states[0]), open(&states[1]));
        Pair { root, _states: states, first, second }
    }
}

#[test]
fn a_lock_excludes_a_workspace_with_another_state_folder() {
    let pair = Pair::new();
    std::fs::write(pair.root.path().join("a.txt"), "a\n").unwrap();
    // An existing file, held while it is replaced twice.
    let held = pair.first.lock("a.txt").unwrap();
    held.write(b"b\n", &WriteOptions::default()).unwrap();
    held.write(b"c\n", &WriteOptions::default()).unwrap();
    crate::support::assert_excludes(&pair.second, "a.txt", held);
    // A file that does not exist yet, held while it is created.
    let held = pair.first.lock("new/b.txt").unwrap();
    crate::support::assert_excludes(&pair.second, "new/b.txt", held);
    let held = pair.first.lock("new/c.txt").unwrap();
    held.write(b"c\n", &WriteOptions { create_dirs: true, ..WriteOptions::default() }).unwrap();
    crate::support::assert_excludes(&pair.second, "new/c.txt", held);
    // A file removed under its lock.
    let held = pair.first.lock("a.txt").unwrap();
    pair.first.delete("a.txt").unwrap();
    crate::support::assert_excludes(&pair.second, "a.txt", held);
}

const SEALED_ENV: &str = "EDITKIT_VFS_SEALED_CHILD";

/// Under a user who may not open `root/sealed.txt` for reading: its lock falls on the root
/// folder (and the check after the grant accepts that rather than starting over for ever), so
/// it excludes lockers of that file and of a file not made yet.
fn sealed_scenario(base: &std::path::Path) {
    let root = base.join("root");
    let open = |state: &str| {
        Workspace::builder(&root, editkit_vfs::ambient_authority()).state_dir(base.join(state)).open().unwrap()
    };
    let (first, second) = (open("s1"), open("s2"));
    assert!(std::fs::File::open(root.join("sealed.txt")).is_err(), "the test user may read the sealed file");
    let held = first.lock("sealed.txt").unwrap();
    crate::support::assert_excludes(&second, "sealed.txt", held);
    let held = first.lock("sealed.txt").unwrap();
    crate::support::assert_excludes(&second, "not-yet.txt", held);
}

/// Runs only as a child process of the test below (as an unprivileged user).
#[test]
fn child_locks_a_sealed_file() {
    let Ok(base) = std::env::var(SEALED_ENV) else { return };
    sealed_scenario(std::path::Path::new(&base));
}

#[test]
fn a_file_its_user_may_not_read_is_locked_on_the_root() {
    use std::os::unix::fs::PermissionsExt;
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("root");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("sealed.txt"), "s\n").unwrap();
    std::fs::set_permissions(root.join("sealed.txt"), std::fs::Permissions::from_mode(0o000)).unwrap();
    if rustix::process::geteuid().is_root() {
        // Root reads any file: the scenario runs as `nobody` (65534), who owns the tree.
        let nobody = 65_534;
        for path in [base.path().to_owned(), root.clone(), root.join("sealed.txt")] {
            std::os::unix::fs::chown(&path, Some(nobody), Some(nobody)).unwrap();
        }
        let exe = std::env::current_exe().unwrap();
        let status = std::process::Command::new(exe)
            .args(["--exact", "locks_across::child_locks_a_sealed_file", "--test-threads=1", "--quiet"])
            .env(SEALED_ENV, base.path())
            .uid(nobody)
            .gid(nobody)
            .status()
            .unwrap();
        assert!(status.success());
    } else {
        sealed_scenario(base.path());
    }
}

#[test]
fn different_existing_files_do_not_block_each_other_across_state_folders() {
    let pair = Pair::new();
    std::fs::write(pair.root.path().join("a.txt"), "a\n").unwrap();
    std::fs::write(pair.root.path().join("b.txt"), "b\n").unwrap();
    let first = pair.first.lock("a.txt").unwrap();
    // Would wait forever if the lock fell on anything both files share.
    let second = pair.second.lock("b.txt").unwrap();
    drop((first, second));
}

#[test]
fn overlapping_sets_locked_in_either_order_never_deadlock() {
    // Sorted by path, the first set falls on `a.txt` then the root (a new file), the second
    // on the root then `a.txt`: taken without waiting while holding, both always complete.
    let pair = Pair::new();
    std::fs::write(pair.root.path().join("a.txt"), "x\n").unwrap();
    std::thread::scope(|scope| {
        for (workspace, set) in [(&pair.first, ["a.txt", "n-new.txt"]), (&pair.second, ["a-new.txt", "a.txt"])] {
            scope.spawn(move || {
                for _ in 0..300 {
                    let locks = workspace.lock_entries(set).unwrap();
                    assert_eq!(locks.len(), 2);
                }
            });
        }
    });
}

const CHILD_ENV: &str = "EDITKIT_VFS_DESCRIPTOR_CHILD";

/// Runs only as a child process of the test below: under a limit of 400 open descriptors, a
/// set of 300 locks is refused as `too_large` before any is taken; 30 are taken.
#[test]
fn child_locks_under_a_low_descriptor_limit() {
    let Ok(root) = std::env::var(CHILD_ENV) else { return };
    let low = rustix::process::Rlimit { current: Some(400), maximum: Some(400) };
    rustix::process::setrlimit(rustix::process::Resource::Nofile, low).unwrap();
    let workspace = Workspace::open(&root, editkit_vfs::ambient_authority()).unwrap();
    let names: Vec<String> = (0..300).map(|n| format!("f{n}.txt")).collect();
    let err = workspace.lock_entries(names.iter().map(String::as_str)).unwrap_err();
    assert_eq!(err.error_kind(), ErrorKind::TooLarge, "{err}");
    assert!(err.to_string().contains("file descriptors"), "{err}");
    let locks = workspace.lock_entries(names[..30].iter().map(String::as_str)).unwrap();
    assert_eq!(locks.len(), 30);
}

#[test]
fn a_set_of_locks_past_the_descriptor_limit_is_refused_before_any_is_taken() {
    let root = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let status = std::process::Command::new(exe)
        .args(["--exact", "locks_across::child_locks_under_a_low_descriptor_limit", "--test-threads=1", "--quiet"])
        .env(CHILD_ENV, root.path())
        .status()
        .unwrap();
    assert!(status.success());
}

/// A file with several names is never locked itself (another of its names may be outside the
/// root, where anyone could hold it): the write is refused without waiting for that holder.
#[test]
fn a_hard_linked_file_is_refused_before_its_lock_is_waited_for() {
    let outside = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("outside.lock"), "x\n").unwrap();
    std::fs::hard_link(outside.path().join("outside.lock"), root.path().join("h.txt")).unwrap();
    let workspace =
        Workspace::builder(root.path(), editkit_vfs::ambient_authority()).state_dir(state.path()).open().unwrap();
    let held = std::fs::File::open(outside.path().join("outside.lock")).unwrap();
    held.lock().unwrap();
    let started = std::time::Instant::now();
    let err = workspace.write("h.txt", b"y\n", &WriteOptions { force: true, ..WriteOptions::default() }).unwrap_err();
    assert_eq!(err.error_kind(), ErrorKind::Blocked, "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "waited {:?}", started.elapsed());
    assert_eq!(std::fs::read_to_string(outside.path().join("outside.lock")).unwrap(), "x\n");
}
