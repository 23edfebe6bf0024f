//! Private directories for tool runs, and the removal of those a killed process left.

use std::path::{Path, PathBuf};

use crate::resolve::Roots;

/// A private directory and the lock that says its process is alive; removed when dropped.
#[derive(Debug)]
pub struct PrivateDir {
    dir: tempfile::TempDir,
    _lock: std::os::fd::OwnedFd,
}

impl PrivateDir {
    /// A fresh private directory in the system's temporary folder (`/tmp` if that one lies in a
    /// workspace root), named `editkit-tool-<pid>-<random>`, mode 0700, holding a shared `flock`
    /// on itself for as long as it exists (the lock goes with the process, however it ends). The
    /// first one a process makes removes those left by editkit processes that are gone (a
    /// process killed while a tool ran never removed its own).
    ///
    /// # Errors
    /// When the directory cannot be created or locked.
    pub fn new(roots: &Roots) -> std::io::Result<PrivateDir> {
        static SWEPT: std::sync::Once = std::sync::Once::new();
        let mut base = std::env::temp_dir();
        if !base.is_absolute() || roots.contain(&base) {
            base = PathBuf::from("/tmp");
        }
        SWEPT.call_once(|| remove_orphans(&base));
        let dir = tempfile::Builder::new()
            .prefix(&format!("{PRIVATE_PREFIX}{}-", std::process::id()))
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .tempdir_in(base)?;
        let lock = rustix::fs::open(
            dir.path(),
            rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        )?;
        rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockShared)?;
        Ok(PrivateDir { dir, _lock: lock })
    }

    /// The directory.
    #[must_use]
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// The name every private directory starts with, before its process id.
const PRIVATE_PREFIX: &str = "editkit-tool-";

/// At most this many entries of the temporary folder are looked at for orphans.
const ORPHAN_SCAN_LIMIT: usize = 100_000;

/// A private directory younger than this is never taken for an orphan: its process may not
/// have taken its lock yet.
const ORPHAN_MIN_AGE: std::time::Duration = std::time::Duration::from_secs(60);

/// Removes the private directories in `base` whose process is gone: directories (never a
/// link) owned by this user, named `editkit-tool-<pid>-…` for a process id no process has
/// here, older than [`ORPHAN_MIN_AGE`], and whose lock nobody holds (a process in another
/// PID namespace holds it while it lives). Anything of another user is left alone.
fn remove_orphans(base: &Path) {
    use std::os::unix::fs::MetadataExt as _;
    let Ok(entries) = std::fs::read_dir(base) else { return };
    let uid = rustix::process::geteuid().as_raw();
    for entry in entries.take(ORPHAN_SCAN_LIMIT).flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|name| name.strip_prefix(PRIVATE_PREFIX))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<i32>().ok())
            .and_then(rustix::process::Pid::from_raw)
        else {
            continue;
        };
        let path = entry.path();
        let Ok(meta) = path.symlink_metadata() else { continue };
        let old = meta.modified().ok().and_then(|at| at.elapsed().ok()).is_some_and(|age| age >= ORPHAN_MIN_AGE);
        if !meta.is_dir() || meta.uid() != uid || !old {
            continue;
        }
        // `ESRCH`: no such process; `EPERM` means one exists (another user's).
        if rustix::process::test_kill_process(pid) != Err(rustix::io::Errno::SRCH) {
            continue;
        }
        let flags = rustix::fs::OFlags::RDONLY
            | rustix::fs::OFlags::DIRECTORY
            | rustix::fs::OFlags::NOFOLLOW
            | rustix::fs::OFlags::CLOEXEC;
        let Ok(dir) = rustix::fs::open(&path, flags, rustix::fs::Mode::empty()) else { continue };
        if rustix::fs::flock(&dir, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_ok() {
            // Removes entries without following links; the folder is 0700, so only this user
            // could have put anything in it.
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}
