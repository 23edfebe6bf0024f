//! Per-file read-modify-write locks: in-process by canonical path, across processes by
//! advisory lock files under the state dir.
//!
//! A lock file exists only while its lock is held: the holder removes it before releasing, so
//! `.editkit/locks/` does not grow with every path ever written. A process that was waiting on
//! the removed file notices (the path no longer names the inode it locked) and tries again.

use std::collections::HashSet;
use std::sync::{Condvar, Mutex, PoisonError};

use cap_std::fs::OpenOptions;

use crate::error::{Error, Result};
use crate::hash::sha256_hex;
use crate::workspace::{FileText, Workspace, WriteOptions, Written};

/// The set of canonical paths locked in this process.
#[derive(Debug)]
pub(crate) struct LockTable {
    held: Mutex<HashSet<String>>,
    freed: Condvar,
    cross_process: bool,
}

impl LockTable {
    pub(crate) fn new(cross_process: bool) -> Self {
        LockTable { held: Mutex::new(HashSet::new()), freed: Condvar::new(), cross_process }
    }

    fn acquire(&self, rel: &str) {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        while held.contains(rel) {
            held = self.freed.wait(held).unwrap_or_else(PoisonError::into_inner);
        }
        held.insert(rel.to_owned());
    }

    fn release(&self, rel: &str) {
        self.held.lock().unwrap_or_else(PoisonError::into_inner).remove(rel);
        self.freed.notify_all();
    }
}

/// The read-modify-write lock of one file, held until dropped.
///
/// Two spellings of one path (`a/../b.txt`, `./b.txt`, a symlink to it) share one lock because
/// the key is the canonical path. Reads and writes made through the guard see no interleaving
/// writer from this workspace, from another workspace in this process, or from another editkit
/// process on the same tree.
///
/// ```
/// # fn main() -> Result<(), editkit_vfs::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// let workspace = editkit_vfs::Workspace::open(dir.path())?;
/// workspace.write("count.txt", b"1", &Default::default())?;
/// let lock = workspace.lock("count.txt")?;
/// let n: u32 = lock.read()?.text().parse().unwrap();
/// lock.write((n + 1).to_string().as_bytes(), &Default::default())?;
/// drop(lock);
/// assert_eq!(workspace.read("count.txt")?.text(), "2");
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct FileLock<'ws> {
    workspace: &'ws Workspace,
    given: String,
    rel: String,
    /// The advisory lock file (state-relative name and open handle) while held.
    cross: Option<(String, cap_std::fs::File)>,
}

impl<'ws> FileLock<'ws> {
    pub(crate) fn acquire(workspace: &'ws Workspace, given: String, rel: String) -> Result<Self> {
        let table = workspace.lock_table();
        table.acquire(&rel);
        let cross = if table.cross_process {
            match cross_process_lock(workspace, &given, &rel) {
                Ok(held) => Some(held),
                Err(err) => {
                    table.release(&rel);
                    return Err(err);
                }
            }
        } else {
            None
        };
        Ok(FileLock { workspace, given, rel, cross })
    }

    /// The canonical path relative to the root.
    #[must_use]
    pub fn path(&self) -> &str {
        &self.rel
    }

    /// Reads the locked file as text (arming the staleness guard).
    ///
    /// # Errors
    /// As [`Workspace::read`].
    pub fn read(&self) -> Result<FileText> {
        self.workspace.read(&self.rel)
    }

    /// Reads the locked file as text, refusing it as [`Error::Stale`] (and recording nothing)
    /// unless its content hashes to `expected_sha256`: the hash the caller was promised, or
    /// the one this workspace last read. With `None`, the same as [`FileLock::read`]. The check
    /// and the returned text come from one read.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path())?;
    /// let lock = workspace.lock("a.txt")?;
    /// let seen = lock.read()?.sha256().to_owned();
    /// std::fs::write(dir.path().join("a.txt"), "two\n").unwrap();
    /// let err = lock.read_expecting(Some(&seen)).unwrap_err();
    /// assert_eq!(err.kind(), "stale");
    /// assert_eq!(workspace.recorded_hash("a.txt")?.as_deref(), Some(seen.as_str()));
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::Stale`]; as [`Workspace::read`].
    pub fn read_expecting(&self, expected_sha256: Option<&str>) -> Result<FileText> {
        self.workspace.read_expecting(&self.rel, expected_sha256)
    }

    /// SHA-256 of the locked file's current content, `None` if it does not exist.
    ///
    /// # Errors
    /// As [`Workspace::current_hash`].
    pub fn current_hash(&self) -> Result<Option<String>> {
        self.workspace.current_hash(&self.rel)
    }

    /// Writes the locked file atomically; see [`Workspace::write`].
    ///
    /// # Errors
    /// As [`Workspace::write`].
    pub fn write(&self, bytes: &[u8], options: &WriteOptions) -> Result<Written> {
        self.workspace.write_locked(&self.given, &self.rel, bytes, options)
    }
}

impl Drop for FileLock<'_> {
    fn drop(&mut self) {
        // Remove the lock file while still holding it (a waiter on this inode will see it is
        // gone and start over), close it, then let the next thread in.
        if let Some((name, file)) = self.cross.take() {
            let _ = self.workspace.root_dir().remove_file(&name);
            drop(file);
        }
        self.workspace.lock_table().release(&self.rel);
    }
}

/// Most attempts at a lock file before giving up (each failed attempt means another process
/// released and removed the file while this one waited for it).
const LOCK_ATTEMPTS: usize = 10_000;

fn cross_process_lock(workspace: &Workspace, given: &str, rel: &str) -> Result<(String, cap_std::fs::File)> {
    let root = workspace.root_dir();
    let locks_dir = format!("{}/locks", workspace.state_dir());
    let io = |e| Error::from_io("lock", given, e);
    if !root.exists(&locks_dir) {
        root.create_dir_all(&locks_dir).map_err(io)?;
        // Keep editkit's state out of version control.
        let _ = root.write(format!("{}/.gitignore", workspace.state_dir()), b"*\n");
    }
    let name = format!("{locks_dir}/{}.lock", &sha256_hex(rel.as_bytes())[..32]);
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true);
    for _ in 0..LOCK_ATTEMPTS {
        let file = root.open_with(&name, &options).map_err(io)?;
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive).map_err(|e| io(e.into()))?;
        // The lock counts only if the name still leads to the locked inode: the previous
        // holder may have removed it (and a third process created a new one) meanwhile.
        let locked = rustix::fs::fstat(&file).map_err(|e| io(e.into()))?;
        match rustix::fs::statat(root, &name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW) {
            Ok(now) if now.st_dev == locked.st_dev && now.st_ino == locked.st_ino => return Ok((name, file)),
            Ok(_) | Err(rustix::io::Errno::NOENT) => {}
            Err(err) => return Err(io(err.into())),
        }
    }
    Err(io(std::io::Error::other(format!(
        "the lock file {name} kept being replaced; is another process looping on it?"
    ))))
}
