//! Races toward blocked places inside the root: while another thread swaps an entry for a link
//! to `.env` or `.git` (by retargeting a link or by an atomic exchange), 3,000 operations go
//! through it. No read returns blocked content, nothing under `.git` is written or deleted and
//! `.env` keeps its bytes.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use editkit_vfs::{Workspace, WriteOptions};

const OPERATIONS: usize = 3_000;
const ENV_SECRET: &str = "ENV_SECRET=1\n";
const GIT_SECRET: &str = "[core] GIT_SECRET\n";

struct Root {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Root {
    fn new() -> Root {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        fs::create_dir_all(root.join(".git/hooks")).unwrap();
        fs::write(root.join(".git/config"), GIT_SECRET).unwrap();
        fs::write(root.join(".git/f.txt"), GIT_SECRET).unwrap();
        fs::write(root.join(".env"), ENV_SECRET).unwrap();
        fs::create_dir(root.join("real")).unwrap();
        fs::write(root.join("real/f.txt"), "inside\n").unwrap();
        fs::write(root.join("real/config"), "plain\n").unwrap();
        Root { _tmp: tmp, root }
    }

    /// Everything under `.git` and `.env`: names, bytes and link counts.
    fn blocked_snapshot(&self) -> BTreeMap<PathBuf, (Vec<u8>, u64)> {
        use std::os::unix::fs::MetadataExt;
        let mut out = BTreeMap::new();
        let mut stack = vec![self.root.join(".git"), self.root.join(".env")];
        while let Some(path) = stack.pop() {
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                out.insert(path.clone(), (Vec::new(), 0));
                stack.extend(fs::read_dir(&path).unwrap().map(|entry| entry.unwrap().path()));
            } else {
                out.insert(path.clone(), (fs::read(&path).unwrap(), meta.nlink()));
            }
        }
        out
    }
}

fn is_secret(seen: &str) -> bool {
    seen.contains("ENV_SECRET") || seen.contains("GIT_SECRET") || seen.contains("hooks")
}

/// Reads, writes (new files and an overwrite of `config`), deletes and listings through `dir`.
fn hammer(workspace: &Workspace, dir: &str) -> usize {
    let force = WriteOptions { force: true, ..Default::default() };
    let mut succeeded = 0;
    for i in 0..OPERATIONS {
        let outcome = match i % 6 {
            0 => workspace.read(&format!("{dir}/f.txt")).map(|f| f.text().to_owned()),
            1 => workspace.write(&format!("{dir}/new-{i}.txt"), b"new", &force).map(|_| String::new()),
            2 => workspace.write(&format!("{dir}/config"), b"overwritten", &force).map(|_| String::new()),
            3 => workspace.delete(&format!("{dir}/new-{}.txt", i - 2)).map(|_| String::new()),
            4 => workspace.read_bytes(&format!("{dir}/config")).map(|b| String::from_utf8_lossy(&b).into_owned()),
            _ => workspace.list_dir(dir).map(|names| names.join(",")),
        };
        if let Ok(seen) = outcome {
            assert!(!is_secret(&seen), "op {i} through `{dir}` saw blocked content: {seen}");
            succeeded += 1;
        }
    }
    succeeded
}

fn run_race(root: &Root, dir: &str, mut swap: impl FnMut() + Send + 'static) {
    let before = root.blocked_snapshot();
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
    let workspace = Workspace::open(&root.root, editkit_vfs::ambient_authority()).unwrap();
    let succeeded = hammer(&workspace, dir);
    stop.store(true, Ordering::Relaxed);
    assert!(swapper.join().unwrap() > 0);
    assert!(succeeded > 0, "no operation ever succeeded");
    assert_eq!(root.blocked_snapshot(), before, "something under a blocked path changed");
}

fn exchange(a: &Path, b: &Path) {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).unwrap();
}

#[test]
fn a_link_retargeted_between_a_folder_and_dot_git_never_reaches_git() {
    let root = Root::new();
    symlink("real", root.root.join("flip")).unwrap();
    let base = root.root.clone();
    let mut inside = false;
    run_race(&root, "flip", move || {
        inside = !inside;
        let staged = base.join("flip.next");
        let _ = fs::remove_file(&staged);
        symlink(if inside { "real" } else { ".git" }, &staged).unwrap();
        fs::rename(&staged, base.join("flip")).unwrap();
    });
}

#[test]
fn a_folder_exchanged_with_a_link_to_dot_git_is_never_entered() {
    let root = Root::new();
    fs::create_dir(root.root.join("swap")).unwrap();
    fs::write(root.root.join("swap/f.txt"), "inside\n").unwrap();
    symlink(".git", root.root.join("gitlink")).unwrap();
    let (a, b) = (root.root.join("swap"), root.root.join("gitlink"));
    run_race(&root, "swap", move || exchange(&a, &b));
}

#[test]
fn a_file_exchanged_with_a_link_to_dot_env_is_never_read_or_written_through() {
    let root = Root::new();
    fs::create_dir(root.root.join("files")).unwrap();
    fs::write(root.root.join("files/f.txt"), "inside\n").unwrap();
    fs::write(root.root.join("files/config"), "plain\n").unwrap();
    symlink("../.env", root.root.join("files/envlink")).unwrap();
    symlink("../.git/config", root.root.join("files/gitlink")).unwrap();
    let (f, env) = (root.root.join("files/f.txt"), root.root.join("files/envlink"));
    let (config, git) = (root.root.join("files/config"), root.root.join("files/gitlink"));
    run_race(&root, "files", move || {
        exchange(&f, &env);
        exchange(&config, &git);
    });
}

#[test]
fn a_file_replaced_by_a_link_to_dot_env_is_never_read_or_written_through() {
    let root = Root::new();
    fs::create_dir(root.root.join("files")).unwrap();
    fs::write(root.root.join("files/f.txt"), "inside\n").unwrap();
    fs::write(root.root.join("files/config"), "plain\n").unwrap();
    let base = root.root.join("files");
    let mut plain = false;
    run_race(&root, "files", move || {
        // Each name flips between a regular file and a link to a blocked file, by renaming a
        // staged entry over it (what an editor's atomic save or a checkout does).
        plain = !plain;
        for (name, bad) in [("f.txt", "../.env"), ("config", "../.git/config")] {
            let staged = base.join(format!("{name}.next"));
            let _ = fs::remove_file(&staged);
            if plain { fs::write(&staged, "inside\n") } else { symlink(bad, &staged) }.unwrap();
            fs::rename(&staged, base.join(name)).unwrap();
        }
    });
}

#[test]
fn a_dot_git_moved_into_a_folder_being_deleted_is_never_deleted() {
    let root = Root::new();
    let workspace = Workspace::open(&root.root, editkit_vfs::ambient_authority()).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let mover = {
        let (stop, base) = (Arc::clone(&stop), root.root.clone());
        std::thread::spawn(move || {
            let mut moves = 0u64;
            while !stop.load(Ordering::Relaxed) {
                // `.git` goes into `big/` (when it exists) and back.
                if fs::rename(base.join(".git"), base.join("big/deep/.git")).is_ok() {
                    moves += 1;
                    std::thread::yield_now();
                    while fs::rename(base.join("big/deep/.git"), base.join(".git")).is_err() {
                        if stop.load(Ordering::Relaxed) {
                            break;
                        }
                    }
                }
                // Out of `big/` most of the time, so deletions also succeed.
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
            moves
        })
    };
    let mut deleted = 0;
    for i in 0..OPERATIONS / 3 {
        let _ = fs::create_dir_all(root.root.join("big/deep/more"));
        let _ = fs::write(root.root.join(format!("big/deep/more/{i}.txt")), "x");
        if workspace.delete("big").is_ok() {
            deleted += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let moves = mover.join().unwrap();
    if !root.root.join(".git").exists() {
        fs::rename(root.root.join("big/deep/.git"), root.root.join(".git")).expect(".git survived in big/");
    }
    assert!(moves > 0 && deleted > 0, "moves {moves}, deletions {deleted}");
    assert_eq!(fs::read_to_string(root.root.join(".git/config")).unwrap(), GIT_SECRET);
    assert_eq!(fs::read_to_string(root.root.join(".git/f.txt")).unwrap(), GIT_SECRET);
    assert!(root.root.join(".git/hooks").is_dir());
}
