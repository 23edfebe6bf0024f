//! A tree with a workspace root, a prefix-sharing sibling and an outside folder holding a
//! sentinel, plus a snapshot of everything outside the root.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use editkit_vfs::{Encoding, FileLock, FileText, Sha256, Workspace, WriteOptions, Written};

pub const SENTINEL: &str = "SENTINEL";

pub struct Tree {
    pub _tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub evil: PathBuf,
    pub out: PathBuf,
}

impl Tree {
    pub fn new() -> Tree {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("root");
        let evil = base.join("root_evil");
        let out = base.join("outside");
        for dir in [&root, &evil, &out, &root.join("dir"), &root.join(".git"), &root.join("sub"), &out.join("sub")] {
            fs::create_dir_all(dir).unwrap();
        }
        fs::write(root.join("file.txt"), "inside\n").unwrap();
        fs::write(root.join("dir/inner.txt"), "inner\n").unwrap();
        fs::write(root.join(".git/config"), "[core]\n").unwrap();
        fs::write(root.join(".env"), "TOKEN=1\n").unwrap();
        fs::write(root.join("sub/.env"), "TOKEN=2\n").unwrap();
        fs::write(root.join("key.pem"), "-----BEGIN-----\n").unwrap();
        fs::write(evil.join("file.txt"), SENTINEL).unwrap();
        fs::write(out.join("sentinel.txt"), SENTINEL).unwrap();
        Tree { _tmp: tmp, root, evil, out }
    }

    pub fn workspace(&self) -> Workspace {
        Workspace::open(&self.root, editkit_vfs::ambient_authority()).unwrap()
    }

    /// Everything outside the root: paths, file contents, link targets.
    pub fn outside_snapshot(&self) -> BTreeMap<PathBuf, String> {
        let mut snapshot = BTreeMap::new();
        for dir in [&self.out, &self.evil] {
            snapshot_into(dir, &mut snapshot);
        }
        // Nothing may appear beside the three folders either.
        for entry in fs::read_dir(self.root.parent().unwrap()).unwrap() {
            snapshot.insert(entry.unwrap().path(), "entry".into());
        }
        snapshot
    }
}

/// A write through `lock` of the new content of a file read through it as `read`: its last
/// check compares the bytes on disk with `read`'s instead of hashing them.
pub fn write_over(
    lock: &FileLock<'_>,
    read: &FileText,
    bytes: &[u8],
    options: &WriteOptions,
) -> editkit_vfs::Result<Written> {
    let sha256 = options.content_sha256.unwrap_or_else(|| Sha256::of(bytes));
    lock.write_beside(Some(read), bytes, options, || Ok::<_, editkit_vfs::Error>((sha256, ())))
        .map(|(written, ())| written)
        .map_err(|(err, _)| err)
}

/// `path` read in `encoding` (`None`: the one detected), recorded in the read ledger.
pub fn read_as(workspace: &Workspace, path: &str, encoding: Option<Encoding>) -> editkit_vfs::Result<FileText> {
    workspace.lock(path)?.read_for_write_in(encoding, None, true, |_| ()).map(|(file, ())| file)
}

fn snapshot_into(path: &Path, snapshot: &mut BTreeMap<PathBuf, String>) {
    let meta = fs::symlink_metadata(path).unwrap();
    if meta.is_symlink() {
        snapshot.insert(path.to_owned(), format!("link {:?}", fs::read_link(path).unwrap()));
    } else if meta.is_dir() {
        snapshot.insert(path.to_owned(), "dir".into());
        for entry in fs::read_dir(path).unwrap() {
            snapshot_into(&entry.unwrap().path(), snapshot);
        }
    } else {
        snapshot.insert(path.to_owned(), fs::read_to_string(path).unwrap_or_default());
    }
}

/// `held` keeps `other`'s locker of `path` waiting until it is dropped, then lets it in.
pub fn assert_excludes(other: &Workspace, path: &str, held: editkit_vfs::FileLock<'_>) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let lock = other.lock(path).unwrap();
            tx.send(()).unwrap();
            drop(lock);
        });
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert!(rx.try_recv().is_err(), "another workspace got in while the lock of {path} was held");
        drop(held);
        rx.recv().unwrap();
    });
}
