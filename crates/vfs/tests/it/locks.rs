//! Read-modify-write serialisation across threads and processes.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use editkit_vfs::{Workspace, WriteOptions};

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
    let workspace = Arc::new(Workspace::open(tmp.path()).unwrap());
    // Different spellings of the same file must share one lock.
    let spellings = ["counter.txt", "./counter.txt", "alias", "x/../counter.txt"];
    std::thread::scope(|scope| {
        for thread in 0..8 {
            let workspace = Arc::clone(&workspace);
            scope.spawn(move || increment(&workspace, spellings[thread % spellings.len()], 1000));
        }
    });
    assert_eq!(std::fs::read_to_string(tmp.path().join("counter.txt")).unwrap(), "8000\n");
    assert_eq!(lock_files(tmp.path()), 0);
}

#[test]
fn different_files_do_not_block_each_other() {
    let tmp = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(tmp.path()).unwrap();
    let first = workspace.lock("a.txt").unwrap();
    // Would deadlock if locks were global.
    let second = workspace.lock("b.txt").unwrap();
    assert_ne!(first.path(), second.path());
    let many = {
        drop((first, second));
        workspace.lock_many(["b.txt", "a.txt", "./a.txt"]).unwrap()
    };
    assert_eq!(many.iter().map(|l| l.path()).collect::<Vec<_>>(), ["a.txt", "b.txt"]);
}

/// Runs only as a child process of the test below.
#[test]
fn child_increments() {
    let Ok(root) = std::env::var(CHILD_ENV) else { return };
    let workspace = Workspace::open(Path::new(&root)).unwrap();
    increment(&workspace, "counter.txt", 250);
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
    assert_eq!(lock_files(tmp.path()), 0, "every lock file is removed by its last holder");
}

/// Lock files left under the default state folder.
fn lock_files(root: &Path) -> usize {
    let state = Workspace::open(root).unwrap().state_dir().to_owned();
    assert!(!root.join(".editkit").exists(), "no state in the workspace");
    std::fs::read_dir(state.join("locks")).map_or(0, |entries| entries.count())
}

#[test]
fn lock_files_do_not_outlive_their_locks() {
    let tmp = tempfile::tempdir().unwrap();
    let workspace = Workspace::open(tmp.path()).unwrap();
    for n in 0..200 {
        workspace.write(&format!("f{n}.txt"), b"x\n", &WriteOptions::default()).unwrap();
    }
    let held = workspace.lock("f1.txt").unwrap();
    assert_eq!(lock_files(tmp.path()), 1, "a held lock has its file");
    drop(held);
    assert_eq!(lock_files(tmp.path()), 0);
}
