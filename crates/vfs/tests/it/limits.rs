//! Recursive operations hold one open directory per level, never one per folder: a folder
//! with more sub-folders than the process may open descriptors is still checked, moved and
//! deleted, and a nesting deeper than `MAX_TREE_DEPTH` is refused by name.

use std::process::Command;

use editkit_vfs::{ErrorKind, MAX_TREE_DEPTH, Workspace};

const CHILD_ENV: &str = "EDITKIT_VFS_FD_CHILD";
const SUBFOLDERS: usize = 1_030;

/// Run in a child process whose descriptor limit is 256 (the limit is process-wide).
#[test]
fn child_deletes_under_a_low_descriptor_limit() {
    let Ok(root) = std::env::var(CHILD_ENV) else { return };
    let mut limit = rustix::process::getrlimit(rustix::process::Resource::Nofile);
    limit.current = Some(256);
    rustix::process::setrlimit(rustix::process::Resource::Nofile, limit).unwrap();
    let workspace = Workspace::open(&root, editkit_vfs::ambient_authority()).unwrap();
    workspace.rename("wide", "moved", editkit_vfs::RenameOptions::default()).unwrap();
    workspace.delete("moved").unwrap();
    assert!(!std::path::Path::new(&root).join("moved").exists());
}

#[test]
fn a_folder_with_more_subfolders_than_open_descriptors_is_moved_and_deleted() {
    let tmp = tempfile::tempdir().unwrap();
    for n in 0..SUBFOLDERS {
        let dir = tmp.path().join(format!("wide/{n}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("f.txt"), "x").unwrap();
    }
    let status = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "limits::child_deletes_under_a_low_descriptor_limit", "--test-threads=1", "--quiet"])
        .env(CHILD_ENV, tmp.path())
        .status()
        .unwrap();
    assert!(status.success());
    assert!(!tmp.path().join("wide").exists() && !tmp.path().join("moved").exists());
}

#[test]
fn a_nesting_deeper_than_the_limit_is_refused_by_name_and_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let mut deep = tmp.path().join("deep");
    for _ in 0..=MAX_TREE_DEPTH {
        deep.push("d");
    }
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::write(deep.join("f.txt"), "x").unwrap();
    let workspace = Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
    let err = workspace.delete("deep").unwrap_err();
    assert_eq!(err.error_kind(), ErrorKind::TooLarge);
    assert!(err.to_string().contains(&format!("deeper than {MAX_TREE_DEPTH} levels")), "{err}");
    assert!(deep.join("f.txt").exists(), "a refused delete removed something");
}

const TABLE_CHILD_ENV: &str = "EDITKIT_VFS_FD_TABLE_CHILD";

/// The size of this process's descriptor table (`FDSize` in `/proc/self/status`).
fn descriptor_table_size() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let size = status.lines().find_map(|line| line.strip_prefix("FDSize:")).expect("FDSize in /proc/self/status");
    size.trim().parse().unwrap()
}

fn open_descriptors() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

/// Run in a child process, whose table is still the small one a process starts with.
#[test]
fn child_grows_its_descriptor_table_up_to_the_hard_limit() {
    if std::env::var_os(TABLE_CHILD_ENV).is_none() {
        return;
    }
    // A soft limit under the count asked for, and a hard one under it too.
    let limits = rustix::process::Rlimit { current: Some(300), maximum: Some(600) };
    rustix::process::setrlimit(rustix::process::Resource::Nofile, limits).unwrap();
    let (before, open) = (descriptor_table_size(), open_descriptors());
    assert!(before < 600, "the child's table already holds {before}: nothing to grow");
    // Past the soft limit, up to the hard one; the limits as they were; nothing left open.
    assert_eq!(editkit_vfs::grow_descriptor_table(4096), 600);
    assert!(descriptor_table_size() >= 600, "the table holds {}", descriptor_table_size());
    let after = rustix::process::getrlimit(rustix::process::Resource::Nofile);
    assert_eq!((after.current, after.maximum), (Some(300), Some(600)));
    assert_eq!(open_descriptors(), open);
    assert!(!std::path::Path::new("/proc/self/fd/599").exists());
    assert_eq!(editkit_vfs::grow_descriptor_table(0), 0);
    println!("{TABLE_CHILD_ENV}: grown");
}

#[test]
fn the_descriptor_table_grows_at_once_to_what_is_asked_within_the_limits() {
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "limits::child_grows_its_descriptor_table_up_to_the_hard_limit", "--test-threads=1"])
        .args(["--nocapture"])
        .env(TABLE_CHILD_ENV, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    // The child test ran (an `--exact` filter that matches nothing passes too).
    assert!(stdout.contains(&format!("{TABLE_CHILD_ENV}: grown")), "{stdout}");
}
