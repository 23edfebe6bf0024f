//! The cross-process half of a file lock that does not depend on the state folder: an
//! advisory `flock` on the workspace object the path names, so that two processes with
//! different state folders (or different `$XDG_STATE_HOME`s) still exclude each other.
//!
//! - A path naming a regular file is locked on the file itself (opened read-only, without
//!   following a link, never blocking). Writes replace a file by rename, so after the `flock`
//!   is granted the path is checked to lead to the inode locked still, else the lock starts
//!   over on what it leads to now. A holder that renames a new inode into its path (a write,
//!   a patch's rename, a rollback) locks that inode first ([`Workspace::adopt`]), so a locker
//!   that opens the path after the rename waits as well.
//! - A path naming no regular file (nothing yet, a link entry, a FIFO, a file the user may
//!   not read) is locked on the workspace's root folder: creating files serialises across
//!   processes, and a locker re-checks after the grant that the path still names no file. A
//!   holder that removes or renames away the file at its path takes the root too
//!   ([`Workspace::vacate`]), so a locker that finds the path empty waits for it.
//!
//! Inside one workspace the locks of several paths that fall on one object share one `flock`
//! (the in-process table keeps paths apart). Locks of a set are taken without waiting while
//! holding any ([`crate::FileLock`]), and what a holder takes later is the root, whose holders
//! wait for nothing more, so no wait can close a cycle.

use std::os::fd::OwnedFd;

use rustix::fs::{FlockOperation, Mode, OFlags};

use crate::error::{Error, Result};
use crate::lock_table::ObjectKey;
use crate::workspace::Workspace;

/// Most times a lock starts over because its path came to name another object meanwhile.
const ATTEMPTS: usize = 10_000;

/// `flock(LOCK_EX)` on `fd`, waiting at most `limit` when `wait` (polling, since a blocking
/// `flock` cannot be given a deadline): `Ok(false)` when another holder kept it.
fn flock_within(fd: &OwnedFd, wait: bool, limit: std::time::Duration) -> rustix::io::Result<bool> {
    let deadline = std::time::Instant::now() + limit;
    let mut pause = std::time::Duration::from_micros(200);
    loop {
        match rustix::fs::flock(fd, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => return Ok(true),
            Err(rustix::io::Errno::INTR) => {}
            Err(rustix::io::Errno::WOULDBLOCK) if wait && std::time::Instant::now() < deadline => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(std::time::Duration::from_millis(10));
            }
            Err(rustix::io::Errno::WOULDBLOCK) => return Ok(false),
            Err(err) => return Err(err),
        }
    }
}

/// What a path's cross-process lock falls on.
struct Object {
    fd: OwnedFd,
    key: ObjectKey,
    /// Whether it is the file the path names (else the root folder).
    file: bool,
}

fn key_of(fd: &OwnedFd) -> std::io::Result<ObjectKey> {
    let stat = rustix::fs::fstat(fd)?;
    Ok((stat.st_dev, stat.st_ino))
}

/// The regular file canonical `rel` names now (its device and inode), found without
/// following a link or opening anything but a path handle.
fn file_at(workspace: &Workspace, rel: &str) -> Option<ObjectKey> {
    let fd = crate::beneath::open(workspace.root_dir(), rel, OFlags::PATH, Mode::empty()).ok()?;
    let stat = rustix::fs::fstat(&fd).ok()?;
    (rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::RegularFile)
        .then_some((stat.st_dev, stat.st_ino))
}

/// The root folder, opened to be locked.
fn root(workspace: &Workspace) -> std::io::Result<Object> {
    let fd = rustix::fs::openat(
        workspace.root_dir(),
        ".",
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    Ok(Object { key: key_of(&fd)?, fd, file: false })
}

/// The object `rel`'s lock falls on now: the regular file it names, else the root.
fn object_of(workspace: &Workspace, rel: &str) -> std::io::Result<Object> {
    if let Some(key) = file_at(workspace, rel)
        && let Ok(fd) = crate::beneath::open(workspace.root_dir(), rel, READ, Mode::empty())
    {
        let stat = rustix::fs::fstat(&fd)?;
        // A file with several names outside the folders allowed them is never locked itself
        // (another of its names may be outside the root, where anyone could hold it): the root
        // stands in, and every read of it is refused anyway. A patch's own backup links
        // (during a commit, or until a crashed one is recovered) make one of those.
        if (stat.st_dev, stat.st_ino) == key && workspace.check_links(rel, rel, stat.st_nlink).is_ok() {
            return Ok(Object { fd, key, file: true });
        }
    }
    root(workspace)
}

/// Whether `rel` still falls on `object` now that it is locked.
fn still(workspace: &Workspace, rel: &str, object: &Object) -> bool {
    match file_at(workspace, rel) {
        Some(key) if object.file => key == object.key,
        // The root stands in for a file this process may not open for reading, or may not
        // lock itself.
        Some(_) => object_of(workspace, rel).is_ok_and(|now| !now.file),
        None => !object.file,
    }
}

/// How a file is opened to be locked: read-only, never blocking.
const READ: OFlags = OFlags::RDONLY.union(OFlags::NONBLOCK).union(OFlags::NOCTTY);

/// Takes the cross-process lock of canonical `rel` for this workspace's lock of it, waiting
/// for another holder when `wait`; without it, `false` (and nothing held) when one would have
/// to be waited for.
pub(crate) fn lock(workspace: &Workspace, given: &str, rel: &str, wait: bool) -> Result<bool> {
    let io = |err: std::io::Error| Error::from_io("lock", given, err);
    let table = workspace.lock_table();
    for _ in 0..ATTEMPTS {
        let object = object_of(workspace, rel).map_err(io)?;
        if table.share(rel, object.key) {
            return Ok(true);
        }
        match flock_within(&object.fd, wait, workspace.lock_wait) {
            Ok(true) => {}
            Ok(false) if !wait => return Ok(false),
            Ok(false) => {
                return Err(io(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!(
                        "another process held a lock on {} for over {} s; retry later",
                        if object.file { "the file" } else { "the workspace root (taken to create files)" },
                        workspace.lock_wait.as_secs_f32()
                    ),
                )));
            }
            // A file system without `flock` (some network mounts, or one that emulates it with
            // byte-range locks, which need a file open for writing): the state folder's lock
            // file alone serialises, as before.
            Err(
                rustix::io::Errno::NOLCK
                | rustix::io::Errno::OPNOTSUPP
                | rustix::io::Errno::NOSYS
                | rustix::io::Errno::BADF,
            ) => return Ok(true),
            Err(err) => return Err(io(err.into())),
        }
        if still(workspace, rel, &object) {
            table.insert(rel, object.key, object.fd);
            return Ok(true);
        }
        // Replaced, created or removed while this one waited: lock what it names now.
    }
    Err(io(std::io::Error::other(format!("`{rel}` kept being replaced while its lock was taken; retry"))))
}

impl Workspace {
    /// Before the entry `name` of `dir` is renamed to canonical `to`: when this workspace
    /// holds `to`'s lock, the file about to appear there is locked for it too (a fresh inode,
    /// so this never waits), else a locker opening `to` after the rename would get in.
    pub(crate) fn adopt(&self, to: &str, dir: &cap_std::fs::Dir, name: &str) {
        let table = self.lock_table();
        if !table.cross_process || !table.holds(to) {
            return;
        }
        let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        if let Ok(fd) = rustix::fs::openat(dir, name, flags, Mode::empty())
            && let Ok(stat) = rustix::fs::fstat(&fd)
            && rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::RegularFile
        {
            let key = (stat.st_dev, stat.st_ino);
            if table.share(to, key) {
                return;
            }
            if rustix::fs::flock(&fd, FlockOperation::NonBlockingLockExclusive).is_ok() {
                table.insert(to, key, fd);
                return;
            }
        }
        // Not a file this process may read or lock: lockers of `to` then wait on the root.
        self.vacate(to);
    }

    /// Before the file at canonical `rel` is removed or renamed away: when this workspace
    /// holds `rel`'s lock, the root is locked for it too, since a locker finding `rel` empty
    /// locks the root. Waits for the root's holders, who wait for nothing more, at most
    /// [`Workspace::lock_wait`](crate::WorkspaceBuilder::lock_wait).
    pub(crate) fn vacate(&self, rel: &str) {
        let table = self.lock_table();
        if !table.cross_process || !table.holds(rel) {
            return;
        }
        let Ok(object) = root(self) else { return };
        if table.share(rel, object.key) {
            return;
        }
        // Bounded: past it the removal goes ahead without the root, as on a file system
        // without `flock`.
        if flock_within(&object.fd, true, self.lock_wait) == Ok(true) {
            table.insert(rel, object.key, object.fd);
        }
    }
}
