//! Opening canonical paths below a directory handle without following any symlink.
//!
//! [`crate::Workspace`] resolves a path once (following the links that stay inside and
//! judging where they lead), and the canonical path it gets has no link in it. Every open after
//! that goes through here: with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
//! RESOLVE_NO_MAGICLINKS)` where the kernel has it, else one `O_NOFOLLOW` component at a time.
//! An entry swapped for a link after resolution (to `.env`, to `.git`, or out of the root) is
//! then refused with `ELOOP` instead of being followed, so a race can never steer an operation
//! to a blocked place, inside the root or out of it.

use std::io;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, Ordering};

use cap_std::fs::Dir;
use rustix::fs::{Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

/// Set once `openat2` turned out to be unavailable (an old kernel or a seccomp filter).
static NO_OPENAT2: AtomicBool = AtomicBool::new(false);

/// How often an `openat2` that reports a concurrent rename (`EAGAIN`) is retried.
const AGAIN_RETRIES: usize = 16;

/// Opens canonical `rel` (`""` for `dir` itself) below `dir` with `flags`, following no link
/// on the way, the last component included.
pub(crate) fn open(dir: &Dir, rel: &str, flags: OFlags, mode: Mode) -> io::Result<OwnedFd> {
    let path = if rel.is_empty() { "." } else { rel };
    let flags = flags | OFlags::CLOEXEC | OFlags::NOFOLLOW;
    if !NO_OPENAT2.load(Ordering::Relaxed) {
        let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        for _ in 0..AGAIN_RETRIES {
            match rustix::fs::openat2(dir, path, flags, mode, resolve) {
                Ok(fd) => return Ok(fd),
                Err(Errno::AGAIN | Errno::INTR) => continue,
                Err(Errno::NOSYS | Errno::PERM) => {
                    NO_OPENAT2.store(true, Ordering::Relaxed);
                    break;
                }
                Err(err) => return Err(err.into()),
            }
        }
        if !NO_OPENAT2.load(Ordering::Relaxed) {
            return Err(Errno::AGAIN.into());
        }
    }
    open_by_components(dir, rel, flags, mode)
}

/// The fallback: one `openat(O_NOFOLLOW)` per component.
fn open_by_components(dir: &Dir, rel: &str, flags: OFlags, mode: Mode) -> io::Result<OwnedFd> {
    let mut parts = rel.split('/').filter(|part| !part.is_empty()).peekable();
    let mut current: Option<OwnedFd> = None;
    while let Some(part) = parts.next() {
        if part == "." || part == ".." {
            return Err(Errno::XDEV.into());
        }
        let last = parts.peek().is_none();
        let step_flags =
            if last { flags } else { OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NOFOLLOW };
        let next = match &current {
            Some(fd) => rustix::fs::openat(fd, part, step_flags, mode),
            None => rustix::fs::openat(dir, part, step_flags, mode),
        }?;
        current = Some(next);
    }
    match current {
        Some(fd) => Ok(fd),
        None => Ok(rustix::fs::openat(dir, ".", flags, mode)?),
    }
}

/// Opens the directory at canonical `rel` below `dir` as a handle, following no link.
pub(crate) fn dir(dir: &Dir, rel: &str) -> io::Result<Dir> {
    let fd = open(dir, rel, OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty())?;
    Ok(Dir::from_std_file(std::fs::File::from(fd)))
}

/// Opens the file at canonical `rel` below `dir` for reading, following no link and never
/// blocking: a FIFO or device is opened non-blocking and then refused by the caller's type
/// check on the handle.
pub(crate) fn file(dir: &Dir, rel: &str) -> io::Result<cap_std::fs::File> {
    let fd = open(dir, rel, OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY, Mode::empty())?;
    Ok(cap_std::fs::File::from_std(std::fs::File::from(fd)))
}

/// Creates the directory `rel` below `dir` and its missing parents, following no link: an
/// existing component that is a link (or a file) is an error, never entered.
pub(crate) fn create_dirs(dir: &Dir, rel: &str) -> io::Result<()> {
    create_dirs_mode(dir, rel, 0o777)
}

/// [`create_dirs`] for editkit's state folder: missing folders are made with mode 0700, so
/// nothing in them is reachable by others whatever the folder around them allows.
pub(crate) fn create_private_dirs(dir: &Dir, rel: &str) -> io::Result<()> {
    create_dirs_mode(dir, rel, 0o700)
}

fn create_dirs_mode(dir: &Dir, rel: &str, mode: u32) -> io::Result<()> {
    let mut current: Option<Dir> = None;
    for part in rel.split('/').filter(|part| !part.is_empty()) {
        if part == "." || part == ".." {
            return Err(Errno::XDEV.into());
        }
        let base = current.as_ref().unwrap_or(dir);
        let next = match self::dir(base, part) {
            Ok(next) => next,
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                match rustix::fs::mkdirat(base, part, Mode::from_raw_mode(mode)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(err) => return Err(err.into()),
                }
                self::dir(base, part)?
            }
            Err(err) => return Err(err),
        };
        current = Some(next);
    }
    Ok(())
}

/// Whether an I/O error of an open here means "a symlink was found where resolution saw
/// none": the tree changed under the operation.
pub(crate) fn is_swapped(err: &io::Error) -> bool {
    err.raw_os_error() == Some(Errno::LOOP.raw_os_error())
}
