//! 10,000 operations through a path while another thread swaps what the path leads to.
//! The sentinel outside the root is never read, listed or changed, and nothing is created
//! outside.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use editkit_vfs::{Workspace, WriteOptions};

use crate::support::{SENTINEL, Tree};

const OPERATIONS: usize = 10_000;

/// Runs the operation mix through `dir` and returns how many operations succeeded.
fn hammer(workspace: &Workspace, dir: &str) -> usize {
    let force = WriteOptions { force: true, ..Default::default() };
    let mut succeeded = 0;
    for i in 0..OPERATIONS {
        let outcome = match i % 5 {
            0 => workspace.read(&format!("{dir}/f.txt")).map(|f| f.text().to_owned()),
            1 => workspace.write(&format!("{dir}/new-{i}.txt"), b"new", &force).map(|_| String::new()),
            2 => workspace.write(&format!("{dir}/f.txt"), b"overwritten", &force).map(|_| String::new()),
            3 => workspace.delete(&format!("{dir}/new-{}.txt", i - 2)).map(|_| String::new()),
            _ => workspace.list_dir(dir).map(|names| names.join(",")),
        };
        if let Ok(seen) = outcome {
            assert!(!seen.contains(SENTINEL) && !seen.contains("sentinel.txt"), "op {i} saw the outside: {seen}");
            succeeded += 1;
        }
    }
    succeeded
}

fn run_race(tree: &Tree, dir: &str, mut swap: impl FnMut() + Send + 'static) {
    let before = tree.outside_snapshot();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                swap();
                swaps += 1;
            }
            swaps
        })
    };
    let workspace = tree.workspace();
    let succeeded = hammer(&workspace, dir);
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    assert!(swaps > 0);
    // Some operations land when the path points inside; the point is that none leak.
    assert!(succeeded > 0, "no operation ever succeeded");
    assert_eq!(tree.outside_snapshot(), before, "something outside the root changed");
    assert_eq!(fs::read_to_string(tree.out.join("sentinel.txt")).unwrap(), SENTINEL);
}

#[test]
fn a_link_retargeted_between_inside_and_outside_never_leads_out() {
    let tree = Tree::new();
    fs::create_dir(tree.root.join("real")).unwrap();
    fs::write(tree.root.join("real/f.txt"), "inside").unwrap();
    fs::write(tree.out.join("f.txt"), SENTINEL).unwrap();
    symlink("real", tree.root.join("flip")).unwrap();
    let (root, out) = (tree.root.clone(), tree.out.clone());
    let mut inside = false;
    run_race(&tree, "flip", move || {
        inside = !inside;
        let staged = root.join("flip.next");
        let _ = fs::remove_file(&staged);
        if inside { symlink("real", &staged) } else { symlink(&out, &staged) }.unwrap();
        fs::rename(&staged, root.join("flip")).unwrap();
    });
}

#[test]
fn a_directory_exchanged_with_an_outside_link_is_never_entered() {
    let tree = Tree::new();
    fs::create_dir(tree.root.join("swap")).unwrap();
    fs::write(tree.root.join("swap/f.txt"), "inside").unwrap();
    fs::write(tree.out.join("f.txt"), SENTINEL).unwrap();
    symlink(&tree.out, tree.root.join("swaplink")).unwrap();
    let (a, b) = (tree.root.join("swap"), tree.root.join("swaplink"));
    run_race(&tree, "swap", move || exchange(&a, &b));
}

fn exchange(a: &Path, b: &Path) {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).unwrap();
}
