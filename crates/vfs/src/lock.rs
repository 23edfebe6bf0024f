//! Per-file read-modify-write locks: in-process by canonical path, across processes by
//! advisory lock files in the state folder (outside the workspace, so a repository cannot
//! plant a lock file that is a link or a FIFO) and by a `flock` on the file itself (or the
//! root, for a path naming no file), which holds whatever state folder each process uses
//! (`object_lock`). A set of locks is taken without waiting while holding any.
//!
//! A lock file outlives a lock under which its file was written, so taking the lock of a file
//! written before opens a file instead of creating and removing one (on a file system without
//! a journal, creating files where many were just removed is what costs most). A lock that
//! created its lock file and wrote nothing (a refusal, a dry run) removes it again, so a
//! refusal leaves no state behind. The folder stays small: after the first lock file a
//! workspace creates, and after every [`SWEEP_EVERY`] more, if `locks/` holds more than
//! [`LOCK_FILES_KEPT`], the ones nobody holds are removed. A remover holds the file's lock
//! while removing it, and a locker checks after `flock` that the name still leads to the inode
//! it locked (else it starts over), so a removal never lets two holders in. The folder is
//! opened once and opened again if its name stops leading to it (removed or moved meanwhile).

use crate::error::{Error, Result};
use crate::files::{FileText, WriteOptions, Written};
use crate::hash::Sha256;
use crate::sync::LockExt;
use crate::workspace::Workspace;

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
/// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
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
    /// The advisory lock file, locked, while held.
    cross: Option<Cross>,
    /// Whether the locked file was written under this lock: its lock file then stays.
    wrote: std::sync::atomic::AtomicBool,
}

/// A held cross-process lock: the open, `flock`ed lock file.
#[derive(Debug)]
struct Cross {
    file: cap_std::fs::File,
    /// The folder it is in.
    dir: std::sync::Arc<crate::lock_table::LocksDir>,
    /// Its name in `locks/`.
    name: String,
    /// Whether this lock created it (else an earlier lock left it).
    created: bool,
}

impl<'ws> FileLock<'ws> {
    pub(crate) fn acquire(workspace: &'ws Workspace, given: String, rel: String) -> Result<Self> {
        Ok(Self::acquire_or_not(workspace, given, rel, true)?.expect("a lock that waits is always taken"))
    }

    /// Takes the lock of `rel`, waiting for other holders when `wait`; without it, `None` when
    /// another holder would have to be waited for (nothing is held then).
    fn acquire_or_not(workspace: &'ws Workspace, given: String, rel: String, wait: bool) -> Result<Option<Self>> {
        let table = workspace.lock_table();
        if wait {
            table.acquire(&rel);
        } else if !table.try_acquire(&rel) {
            return Ok(None);
        }
        let mut lock =
            FileLock { workspace, given, rel, cross: None, wrote: std::sync::atomic::AtomicBool::new(false) };
        if table.cross_process {
            // Dropping `lock` on any way out releases what was taken.
            match cross_process_lock(workspace, &lock.given, &lock.rel, wait)? {
                Some(cross) => lock.cross = Some(cross),
                None => return Ok(None),
            }
            if !crate::object_lock::lock(workspace, &lock.given, &lock.rel, wait)? {
                return Ok(None);
            }
        }
        Ok(Some(lock))
    }

    /// Takes the locks of `paths` (canonical, each with the path given for it) in their
    /// order, never waiting while holding one: when a lock after the first is taken, all are
    /// released, that one is waited for alone, and the set is taken again. Two callers locking
    /// overlapping sets, here or in other processes, whatever the order of the objects their
    /// locks fall on (a file, or the root for a path naming no file), never deadlock.
    pub(crate) fn acquire_all(workspace: &'ws Workspace, paths: &[(String, String)]) -> Result<Vec<Self>> {
        if workspace.lock_table().cross_process
            && let Some((_, given)) = paths.first()
        {
            reserve_descriptors(given, paths.len())?;
        }
        'again: loop {
            let mut held = Vec::with_capacity(paths.len());
            for (rel, given) in paths {
                match Self::acquire_or_not(workspace, given.clone(), rel.clone(), held.is_empty())? {
                    Some(lock) => held.push(lock),
                    None => {
                        drop(held);
                        drop(Self::acquire(workspace, given.clone(), rel.clone())?);
                        continue 'again;
                    }
                }
            }
            return Ok(held);
        }
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
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// let lock = workspace.lock("a.txt")?;
    /// let seen = lock.read()?.sha256();
    /// std::fs::write(dir.path().join("a.txt"), "two\n").unwrap();
    /// let err = lock.read_expecting(Some(seen)).unwrap_err();
    /// assert_eq!(err.error_kind(), editkit_vfs::ErrorKind::Stale);
    /// assert_eq!(workspace.recorded_hash("a.txt")?, Some(seen));
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::Stale`]; as [`Workspace::read`].
    pub fn read_expecting(&self, expected_sha256: Option<Sha256>) -> Result<FileText> {
        self.workspace.read_expecting(&self.rel, expected_sha256).map_err(|err| self.named(err))
    }

    /// Reads the locked file for a read-modify-write under the staleness guard, the decision
    /// a write makes too: refused as [`Error::Stale`] unless its content hashes to `expected`
    /// (always honoured) or, without it and unless `force`, to what this workspace
    /// last read or wrote. The check and the returned text come from one read; errors name
    /// the path the lock was taken with.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// workspace.read("a.txt")?;
    /// std::fs::write(dir.path().join("a.txt"), "two\n").unwrap();
    /// let lock = workspace.lock("./a.txt")?;
    /// let err = lock.read_for_write(None, false).unwrap_err();
    /// assert!(matches!(&err, editkit_vfs::Error::Stale { path, .. } if path == "./a.txt"));
    /// assert_eq!(lock.read_for_write(None, true)?.text(), "two\n");
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::Stale`]; as [`Workspace::read`].
    pub fn read_for_write(&self, expected: Option<Sha256>, force: bool) -> Result<FileText> {
        self.workspace.check_writable_at(&self.given, &self.rel)?;
        let expected = self.workspace.expected_hash(&self.rel, expected, force);
        self.read_expecting(expected)
    }

    /// [`FileLock::read_for_write`], running `work` on the decoded text while a large file's
    /// bytes are hashed on another thread: an edit matches and splices while the staleness
    /// guard's hash is computed. The answers are those of `read_for_write`: stale content is
    /// refused as [`Error::Stale`] whatever `work` returned. `work` must only compute; the
    /// caller writes (if at all) after this returns.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// let lock = workspace.lock("a.txt")?;
    /// let (read, upper) = lock.read_for_write_with(None, false, |text| text.as_str().to_uppercase())?;
    /// lock.write(upper.as_bytes(), &Default::default())?;
    /// assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "ONE\n");
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`FileLock::read_for_write`].
    pub fn read_for_write_with<T>(
        &self,
        expected: Option<Sha256>,
        force: bool,
        work: impl FnOnce(&crate::Text) -> T,
    ) -> Result<(FileText, T)> {
        self.read_for_write_in(None, expected, force, work)
    }

    /// [`FileLock::read_for_write_with`] in the encoding the caller names (`None`: the one
    /// detected).
    ///
    /// # Errors
    /// As [`FileLock::read_for_write`]; [`Error::NotInEncoding`] for bytes not in `encoding`.
    pub fn read_for_write_in<T>(
        &self,
        encoding: Option<crate::Encoding>,
        expected: Option<Sha256>,
        force: bool,
        work: impl FnOnce(&crate::Text) -> T,
    ) -> Result<(FileText, T)> {
        self.workspace.check_writable_at(&self.given, &self.rel)?;
        let expected = self.workspace.expected_hash(&self.rel, expected, force);
        self.workspace.read_expecting_with(&self.rel, expected, encoding, work).map_err(|err| self.named(err))
    }

    /// `err` naming the path the lock was taken with, as every vfs error names the caller's.
    fn named(&self, err: Error) -> Error {
        match err {
            Error::Stale { expected, current, .. } => Error::Stale { path: self.given.clone(), expected, current },
            other => other,
        }
    }

    /// SHA-256 of the locked file's current content, `None` if it does not exist.
    ///
    /// # Errors
    /// As [`Workspace::current_hash`].
    pub fn current_hash(&self) -> Result<Option<Sha256>> {
        self.workspace.current_hash(&self.rel)
    }

    /// Writes the locked file atomically; see [`Workspace::write`].
    ///
    /// # Errors
    /// As [`Workspace::write`].
    pub fn write(&self, bytes: &[u8], options: &WriteOptions) -> Result<Written> {
        let written = self.workspace.write_locked(&self.given, &self.rel, bytes, options)?;
        self.mark_written();
        Ok(written)
    }

    /// The SHA-256 of `bytes`, a new content for the locked file. On a large content the
    /// hashing resumes after the whole 64 KiB blocks it shares with the file's content last
    /// given to [`Workspace::remember_content`], which are compared instead: an edit late in a
    /// large file hashes little more than what follows it. Once `bytes` are written, remembering
    /// them lets the next content resume in turn. The digest is always `Sha256::of(bytes)`.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// use editkit_vfs::Sha256;
    /// let dir = tempfile::tempdir().unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// let lock = workspace.lock("big.py")?;
    /// let mut content = "x = 1\n".repeat(100_000);
    /// for round in 0..3 {
    ///     content.push_str(&format!("y = {round}\n"));
    ///     let sha256 = lock.sha256_of_new(content.as_bytes());
    ///     assert_eq!(sha256, Sha256::of(content.as_bytes()));
    ///     let options = editkit_vfs::WriteOptions { content_sha256: Some(sha256), ..Default::default() };
    ///     lock.write(content.as_bytes(), &options)?;
    ///     workspace.remember_content("big.py", sha256, content.clone().into_bytes());
    /// }
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn sha256_of_new(&self, bytes: &[u8]) -> Sha256 {
        crate::hash::HashMemo::digest_new(&self.workspace.memo, &self.rel, bytes)
    }

    /// Writes like [`FileLock::write`] while `beside` works out what the write needs: the
    /// content's SHA-256, which it returns, and anything the caller must do before the file
    /// changes (an undo entry, say). On a large content (from [`Sha256::pays_beside`]) `beside`
    /// and the last check run on another thread while this one writes and flushes the temp
    /// file, so the flush costs no time of its own. With `read`, what was read through this
    /// lock, the write's last check (that the file still holds what the staleness guard vouched
    /// for) compares the bytes on disk with `read`'s instead of hashing them (a fraction of the
    /// cost on a large file); the result is the same.
    /// [`WriteOptions::content_sha256`] is not read: `beside` gives the hash, with the same
    /// promise (it is recorded for the staleness guard as given; debug builds check it).
    ///
    /// The file is replaced only once `beside` succeeded and the last staleness check passed;
    /// otherwise the temp file is removed and nothing changes. The error comes back with what
    /// `beside` returned, when it ran, so the caller can take back what it did.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// use editkit_vfs::Sha256;
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// let lock = workspace.lock("a.txt")?;
    /// let read = lock.read_for_write(None, false)?;
    /// let new = b"two\n";
    /// let beside = || Ok::<_, editkit_vfs::Error>((Sha256::of(new), "kept"));
    /// let (written, kept) = lock.write_beside(Some(&read), new, &Default::default(), beside).map_err(|(e, _)| e)?;
    /// assert_eq!((written.sha256, kept), (Sha256::of(new), "kept"));
    /// // Changed from outside after the read: refused, and `beside`'s value comes back.
    /// let read = lock.read_for_write(None, false)?;
    /// std::fs::write(dir.path().join("a.txt"), "six\n").unwrap();
    /// let beside = || Ok::<_, editkit_vfs::Error>((Sha256::of(b"ten\n"), "kept"));
    /// let (err, kept) = lock.write_beside(Some(&read), b"ten\n", &Default::default(), beside).unwrap_err();
    /// assert_eq!((err.error_kind(), kept), (editkit_vfs::ErrorKind::Stale, Some("kept")));
    /// assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"six\n");
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`Workspace::write`], or `beside`'s own error; with `beside`'s value when it ran.
    #[allow(clippy::type_complexity)]
    pub fn write_beside<R, E>(
        &self,
        read: Option<&FileText>,
        bytes: &[u8],
        options: &WriteOptions,
        beside: impl FnOnce() -> std::result::Result<(Sha256, R), E> + Send,
    ) -> std::result::Result<(Written, R), (E, Option<R>)>
    where
        R: Send,
        E: From<Error> + Send,
    {
        let written = self.workspace.write_locked_beside(&self.given, &self.rel, bytes, options, read, beside)?;
        self.mark_written();
        Ok(written)
    }

    /// Says the locked file was written under this lock by other means than the guard's own
    /// writes (a transaction's renames): its lock file then stays for the next lock of the
    /// file instead of being removed on release. [`FileLock::write`] and
    /// [`FileLock::write_beside`] say it themselves.
    pub fn mark_written(&self) {
        self.wrote.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Says a transaction's steps (a staged content renamed into place, a removal, a rollback)
    /// left the locked file holding the content of hash `sha256`, or nothing (`None`: deleted,
    /// moved away, or put back to what it was before): the staleness ledger takes it as what
    /// this workspace last wrote there, as it takes [`FileLock::write`]'s own writes, and with
    /// `None` forgets the file. The ledger has no other writer outside this crate: only the
    /// holder of a file's lock records it, and a write under that lock could have put any
    /// content there anyway.
    pub fn record(&self, sha256: Option<Sha256>) {
        match sha256 {
            Some(sha256) => self.workspace.record(&self.rel, sha256),
            None => self.workspace.forget(&self.rel),
        }
    }
}

impl Drop for FileLock<'_> {
    fn drop(&mut self) {
        if let Some(cross) = self.cross.take() {
            // A lock file this lock created for nothing goes again, removed while still held
            // (a process waiting on it finds the name gone and starts over); closing it
            // releases the `flock`.
            if cross.created && !self.wrote.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = cross.dir.dir.remove_file(&cross.name);
            }
            drop(cross.file);
        }
        // Then the next thread of this process.
        self.workspace.lock_table().release(&self.rel);
    }
}

/// Descriptors kept free beside a set of locks, for the work done under them (folders,
/// staged files, a journal).
const SPARE_DESCRIPTORS: u64 = 256;

/// Makes sure `count` more locks (two descriptors each: the lock file and the locked file) fit
/// under the process's limit on open descriptors, raising its soft limit toward the hard one
/// when they would not, so a large set is refused up front ([`Error::TooManyLocks`]) instead
/// of failing with "too many open files" half-way through its locks.
fn reserve_descriptors(given: &str, count: usize) -> Result<()> {
    use rustix::process::{Resource, getrlimit, setrlimit};
    // Per lock: the state folder's lock file, the file itself, and the new file a write locks
    // before it renames it into place.
    let needed = (count as u64).saturating_mul(3).saturating_add(SPARE_DESCRIPTORS);
    let limit = getrlimit(Resource::Nofile);
    let (Some(soft), hard) = (limit.current, limit.maximum) else { return Ok(()) };
    // Small sets fit under any usual limit: no count of the open descriptors for them.
    if needed.saturating_mul(4) <= soft {
        return Ok(());
    }
    let open = std::fs::read_dir("/proc/self/fd").map_or(0, |entries| entries.count() as u64);
    let wanted = open.saturating_add(needed);
    if wanted <= soft {
        return Ok(());
    }
    if hard.is_none_or(|hard| wanted <= hard) {
        let raised = rustix::process::Rlimit { current: hard.map(|hard| hard.max(wanted)), maximum: hard };
        if setrlimit(Resource::Nofile, raised).is_ok() {
            return Ok(());
        }
    }
    Err(Error::TooManyLocks { path: given.to_owned(), count, needed, limit: hard.unwrap_or(soft).max(soft) })
}

/// Most attempts at a lock file before giving up (each failed attempt means another process
/// removed the file while this one waited for it).
const LOCK_ATTEMPTS: usize = 10_000;

/// Lock files `locks/` may hold before the ones nobody holds are removed.
pub(crate) const LOCK_FILES_KEPT: usize = 1024;

/// How many lock files a workspace creates between two looks at the size of `locks/`.
pub(crate) const SWEEP_EVERY: usize = 256;

fn cross_process_lock(workspace: &Workspace, given: &str, rel: &str, wait: bool) -> Result<Option<Cross>> {
    let io = |e| Error::from_io("lock", given, e);
    let locks = locks_dir(workspace, given)?;
    let dir = &locks.dir;
    let name = format!("{}.lock", &Sha256::of(rel.as_bytes()).to_string()[..32]);
    let flags = rustix::fs::OFlags::RDWR | rustix::fs::OFlags::NONBLOCK;
    for _ in 0..LOCK_ATTEMPTS {
        // Usually the file is there from an earlier lock; else it is created here.
        let mut created = false;
        let fd = match crate::beneath::open(dir, &name, flags, rustix::fs::Mode::empty()) {
            Ok(fd) => fd,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                let create = flags | rustix::fs::OFlags::CREATE | rustix::fs::OFlags::EXCL;
                match crate::beneath::open(dir, &name, create, rustix::fs::Mode::from_raw_mode(0o600)) {
                    Ok(fd) => {
                        created = true;
                        fd
                    }
                    // Another process created it meanwhile: open that one.
                    Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => continue,
                    Err(err) => return Err(io(err)),
                }
            }
            Err(err) => return Err(io(err)),
        };
        let file = cap_std::fs::File::from_std(std::fs::File::from(fd));
        let locked = crate::atomic::regular_stat(given, &file)?;
        let operation = if wait {
            rustix::fs::FlockOperation::LockExclusive
        } else {
            rustix::fs::FlockOperation::NonBlockingLockExclusive
        };
        match rustix::fs::flock(&file, operation) {
            Ok(()) => {}
            // Left in place: only a holder of its lock may remove a lock file.
            Err(rustix::io::Errno::WOULDBLOCK) => return Ok(None),
            Err(err) => return Err(io(err.into())),
        }
        // The lock counts only if the name still leads to the locked inode: a sweep may have
        // removed it (and another process created a new one) while this one waited.
        match rustix::fs::statat(dir, &name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW) {
            Ok(now) if now.st_dev == locked.st_dev && now.st_ino == locked.st_ino => {
                if created {
                    // After the lock is held, so the sweep passes over this file.
                    created_one(workspace, dir);
                }
                return Ok(Some(Cross { file, dir: locks, name, created }));
            }
            Ok(_) | Err(rustix::io::Errno::NOENT) => {}
            Err(err) => return Err(io(err.into())),
        }
    }
    Err(io(std::io::Error::other(format!(
        "the lock file {name} in {} kept being replaced; is another process looping on it?",
        workspace.state_dir().display()
    ))))
}

/// The state folder's `locks/`, created and opened on first use, and opened again when the
/// name no longer leads to the folder held open (removed or moved while this process ran:
/// locks taken in a folder others no longer see would exclude nobody).
fn locks_dir(workspace: &Workspace, given: &str) -> Result<std::sync::Arc<crate::lock_table::LocksDir>> {
    let io = |e| Error::from_io("lock", given, e);
    let state = workspace.state_store().ensure()?;
    let table = workspace.lock_table();
    let cached = table.dir.lock_unpoisoned().clone();
    if let Some(cached) = cached
        && let Ok(now) = rustix::fs::statat(state, "locks", rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
        && now.st_dev == cached.dev
        && now.st_ino == cached.ino
    {
        return Ok(cached);
    }
    crate::beneath::create_private_dirs(state, "locks").map_err(io)?;
    let dir = crate::beneath::dir(state, "locks").map_err(io)?;
    let stat = rustix::fs::fstat(&dir).map_err(|e| io(e.into()))?;
    let fresh = std::sync::Arc::new(crate::lock_table::LocksDir { dir, dev: stat.st_dev, ino: stat.st_ino });
    *table.dir.lock_unpoisoned() = Some(std::sync::Arc::clone(&fresh));
    Ok(fresh)
}

/// Counts a lock file this workspace created; on its first and every [`SWEEP_EVERY`] after,
/// sweeps `locks/` (the first, so that processes that each create a few, such as one
/// `editkit edit` after another, keep the folder small too).
fn created_one(workspace: &Workspace, dir: &cap_std::fs::Dir) {
    let created = workspace.lock_table().created.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
    if created == 1 || created.is_multiple_of(SWEEP_EVERY) {
        sweep(dir);
    }
}

/// When `locks/` holds more than [`LOCK_FILES_KEPT`] files, removes every lock file nobody
/// holds, each while holding its lock (a process waiting on it then finds the name gone and
/// starts over). Best effort: a file that cannot be opened or locked at once is left.
fn sweep(dir: &cap_std::fs::Dir) {
    let Ok(entries) = dir.entries() else { return };
    let names: Vec<String> = entries
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".lock"))
        .collect();
    if names.len() <= LOCK_FILES_KEPT {
        return;
    }
    for name in names {
        let flags = rustix::fs::OFlags::RDWR | rustix::fs::OFlags::NONBLOCK;
        let Ok(fd) = crate::beneath::open(dir, &name, flags, rustix::fs::Mode::empty()) else { continue };
        let Ok(locked) = rustix::fs::fstat(&fd) else { continue };
        if rustix::fs::FileType::from_raw_mode(locked.st_mode) != rustix::fs::FileType::RegularFile
            || rustix::fs::flock(&fd, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_err()
        {
            continue;
        }
        if let Ok(now) = rustix::fs::statat(dir, &name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
            && now.st_dev == locked.st_dev
            && now.st_ino == locked.st_ino
        {
            let _ = dir.remove_file(&name);
        }
    }
}

impl Workspace {
    /// Takes the read-modify-write lock of one file: other holders of the same file (in this
    /// process, or in another editkit process on the same tree) wait; other files do not.
    ///
    /// # Errors
    /// Policy errors; [`Error::Io`] if the cross-process lock file cannot be created.
    pub fn lock(&self, path: &str) -> Result<FileLock<'_>> {
        let resolved = self.resolve_inner(path, true)?;
        FileLock::acquire(self, path.to_owned(), resolved.rel)
    }

    /// Takes the locks of several files in one fixed (sorted, canonical) order, so that two
    /// callers locking overlapping sets never deadlock. Duplicates are locked once. A final
    /// symlink is not followed: each lock is keyed by the directory entry named (see
    /// [`Workspace::resolve_entry`]). For transactions that name entries, such as a patch
    /// deleting a link: the key stays the same once the link is gone, so a later recovery waits
    /// for the same locks. For a path that is not a link the key is the one [`Workspace::lock`]
    /// uses.
    ///
    /// # Errors
    /// As [`Workspace::lock`].
    pub fn lock_entries<'a>(&self, paths: impl IntoIterator<Item = &'a str>) -> Result<Vec<FileLock<'_>>> {
        let mut resolved = Vec::new();
        for path in paths {
            resolved.push((self.resolve_inner(path, false)?.rel, path.to_owned()));
        }
        resolved.sort();
        resolved.dedup_by(|a, b| a.0 == b.0);
        FileLock::acquire_all(self, &resolved)
    }
}

#[cfg(test)]
mod tests {
    /// The integration tests of lock-file sweeps (`tests/it/locks.rs`) bound what is left by
    /// these private numbers, spelled there too.
    #[test]
    fn the_sweep_tuning_is_what_the_integration_tests_assume() {
        assert_eq!((super::LOCK_FILES_KEPT, super::SWEEP_EVERY), (1024, 256));
    }

    /// Anyone who may read a file (or the root) may `flock` it, another user included: such a hold
    /// makes a write wait at most the lock wait, then refuses it with nothing changed. (A unit
    /// test: the lock wait is set short here, a knob no caller outside the crate needs.)
    #[test]
    fn a_hold_by_someone_else_delays_a_write_only_as_long_as_the_lock_wait() {
        let root = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("a.txt"), "one\n").unwrap();
        let workspace = crate::Workspace::builder(root.path(), crate::ambient_authority())
            .state_dir(state.path())
            .lock_wait(std::time::Duration::from_millis(300))
            .open()
            .unwrap();
        // A hold on the file itself.
        let held = std::fs::File::open(root.path().join("a.txt")).unwrap();
        held.lock().unwrap();
        let started = std::time::Instant::now();
        let err = workspace
            .write("a.txt", b"two\n", &crate::WriteOptions { force: true, ..crate::WriteOptions::default() })
            .unwrap_err();
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "waited {:?}", started.elapsed());
        assert!(err.to_string().contains("held a lock on the file"), "{err}");
        assert_eq!(std::fs::read_to_string(root.path().join("a.txt")).unwrap(), "one\n");
        drop(held);
        // A hold on the root, which a new file's lock falls on.
        let held = std::fs::File::open(root.path()).unwrap();
        held.lock().unwrap();
        let err = workspace.write("new.txt", b"x\n", &crate::WriteOptions::default()).unwrap_err();
        assert!(err.to_string().contains("workspace root"), "{err}");
        assert!(!root.path().join("new.txt").exists());
        drop(held);
        workspace.write("new.txt", b"x\n", &crate::WriteOptions::default()).unwrap();
        workspace
            .write("a.txt", b"two\n", &crate::WriteOptions { force: true, ..crate::WriteOptions::default() })
            .unwrap();
    }
}
