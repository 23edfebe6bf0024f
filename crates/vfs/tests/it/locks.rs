//! Read-modify-write serialisation across threads and processes.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use editkit_vfs::{Durability, Workspace, WriteOptions};

/// The crate's private tuning of lock-file sweeps (`lock.rs`, whose unit test checks that these
/// agree): how many lock files `locks/` keeps, and how many new ones between two sweeps.
const LOCK_FILES_KEPT: usize = 1024;
const SWEEP_EVERY: usize = 256;

const CHILD_ENV: &str = "EDITKIT_VFS_LOCK_CHILD";

fn increment(workspace: &Workspace, path: &str, times: usize) {
    for _ in 0..times {
        let lock = workspace.lock(path).unwrap();
        let current: u64 = lock.read().unwrap().text().trim().parse().unwrap();
        lock.write(format!("{}\n", current + 1).as_bytes(), &WriteOptions::default()).unwrap();
    }
}

#[test]
fn eight_threads_increment_one_counter_without_losing_an_update() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("counter.txt"), "0\n").unwrap();
    std::os::unix::fs::symlink("counter.txt", tmp.path().join("alias")).unwrap();
    let workspace = Arc::new(Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap());
    // Different spellings of the same file must share one lock.
    let spellings = ["counter.txt", "./counter.txt", "alias", "x/../counter.txt"];
    std::thread::scope(|scope| {
        for thread in 0..8 {
            let workspace = Arc::clone(&workspace);
            scope.spawn(move || increment(&workspace, spellings[thread % spellings.len()], 1000));
        }
    });
    assert_eq!(std::fs::read_to_string(tmp.path().join("counter.txt")).unwrap(), "8000\n");
    assert_eq!(lock_files(tmp.path()), 1, "one lock file, kept for the next lock of that file");
}

#[test]
fn different_files_do_not_block_each_other() {
    let tmp = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
    let first = workspace.lock("a.txt").unwrap();
    // Would deadlock if locks were global.
    let second = workspace.lock("b.txt").unwrap();
    assert_ne!(first.path(), second.path());
    let many = {
        drop((first, second));
        workspace.lock_entries(["b.txt", "a.txt", "./a.txt"]).unwrap()
    };
    assert_eq!(many.iter().map(|l| l.path()).collect::<Vec<_>>(), ["a.txt", "b.txt"]);
}

/// Runs only as a child process of the test below: increments the counter 250 times and,
/// between increments, writes 12 files never written before, so that every process creates
/// lock files enough to sweep `locks/` (the counter's lock file included, whenever nobody
/// holds it) many times while the others wait for the counter.
#[test]
fn child_increments() {
    let Ok(root) = std::env::var(CHILD_ENV) else { return };
    let workspace = Workspace::builder(Path::new(&root), editkit_vfs::ambient_authority())
        .durability(Durability::Atomic)
        .open()
        .unwrap();
    let me = std::process::id();
    for round in 0..250 {
        increment(&workspace, "counter.txt", 1);
        for other in 0..12 {
            workspace.write(&format!("other/{me}-{round}-{other}.txt"), b"x\n", &WriteOptions::default()).unwrap();
        }
    }
}

#[test]
fn four_processes_increment_one_counter_without_losing_an_update() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("counter.txt"), "0\n").unwrap();
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..4)
        .map(|_| {
            Command::new(&exe)
                .args(["--exact", "locks::child_increments", "--test-threads=1", "--quiet"])
                .env(CHILD_ENV, tmp.path())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    assert_eq!(std::fs::read_to_string(tmp.path().join("counter.txt")).unwrap(), "1000\n");
    // Each process created 3,000 lock files; sweeps kept the folder near its bound.
    let left = lock_files(tmp.path());
    assert!(left <= LOCK_FILES_KEPT + 4 * SWEEP_EVERY, "{left} lock files left");
}

/// Lock files left under the default state folder.
fn lock_files(root: &Path) -> usize {
    let state = Workspace::open(root, editkit_vfs::ambient_authority()).unwrap().state_dir().to_owned();
    assert!(!root.join(".editkit").exists(), "no state in the workspace");
    std::fs::read_dir(state.join("locks")).map_or(0, |entries| entries.count())
}

#[test]
fn lock_files_are_reused_and_stay_few_however_many_files_are_written() {
    let tmp = tempfile::tempdir().unwrap();
    let workspace =
        Workspace::builder(tmp.path(), editkit_vfs::ambient_authority()).durability(Durability::Atomic).open().unwrap();
    for _ in 0..3 {
        workspace.write("again.txt", b"x\n", &WriteOptions::default()).unwrap();
    }
    assert_eq!(lock_files(tmp.path()), 1, "one file's lock file serves all its writes");
    // A lock that wrote nothing leaves no lock file behind.
    drop(workspace.lock("looked-at.txt").unwrap());
    assert_eq!(lock_files(tmp.path()), 1, "a lock without a write left its file");
    let held = workspace.lock("held.txt").unwrap();
    let many = LOCK_FILES_KEPT + 3 * SWEEP_EVERY;
    for n in 0..many {
        workspace.write(&format!("f{n}.txt"), b"x\n", &WriteOptions::default()).unwrap();
    }
    let left = lock_files(tmp.path());
    assert!(left <= LOCK_FILES_KEPT + SWEEP_EVERY, "{left} lock files left after writing {many} files");
    // A sweep removes only lock files nobody holds.
    let state = workspace.state_dir().join("locks");
    let name = format!("{}.lock", &editkit_vfs::Sha256::of(b"held.txt").to_string()[..32]);
    assert!(state.join(&name).is_file(), "the held lock's file survived the sweeps");
    // And the held lock still excludes: another workspace's locker waits for it.
    crate::support::assert_excludes(
        &Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap(),
        "held.txt",
        held,
    );
}

#[test]
fn lock_files_stay_few_when_every_writer_is_a_short_process() {
    // Each workspace stands for one `editkit edit` run: it writes one file never written before.
    let tmp = tempfile::tempdir().unwrap();
    let many = LOCK_FILES_KEPT + SWEEP_EVERY;
    for n in 0..many {
        let workspace = Workspace::builder(tmp.path(), editkit_vfs::ambient_authority())
            .durability(Durability::Atomic)
            .open()
            .unwrap();
        workspace.write(&format!("f{n}.txt"), b"x\n", &WriteOptions::default()).unwrap();
    }
    let left = lock_files(tmp.path());
    assert!(left <= LOCK_FILES_KEPT + 1, "{left} lock files left after {many} one-write workspaces");
}

#[test]
fn a_locks_folder_removed_or_moved_while_a_workspace_runs_is_made_again() {
    let tmp = tempfile::tempdir().unwrap();
    let workspace =
        Workspace::builder(tmp.path(), editkit_vfs::ambient_authority()).durability(Durability::Atomic).open().unwrap();
    workspace.write("a.txt", b"a\n", &WriteOptions::default()).unwrap();
    let locks = workspace.state_dir().join("locks");
    std::fs::remove_dir_all(&locks).unwrap();
    workspace.write("b.txt", b"b\n", &WriteOptions::default()).unwrap();
    assert_eq!(lock_files(tmp.path()), 1, "the lock went to a new `locks/`");
    // Moved away: the next lock is taken where other processes look for it, not in the old one.
    std::fs::rename(&locks, workspace.state_dir().join("locks.old")).unwrap();
    workspace.write("c.txt", b"c\n", &WriteOptions::default()).unwrap();
    assert_eq!(lock_files(tmp.path()), 1, "c's lock file is in `locks/`");
    let held = workspace.lock("c.txt").unwrap();
    crate::support::assert_excludes(
        &Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap(),
        "c.txt",
        held,
    );
}
