//! The steps of an atomic write: a unique temp file beside the target, fsync, rename over it,
//! fsync of the directory; and the checks every opened file passes.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use cap_std::fs::{Dir, File, OpenOptions, Permissions};

use crate::error::{Error, Result};

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// How far a write goes before it returns.
///
/// Both are atomic against a crash of the process: a file is always its old content or its
/// new content, never torn, because the new bytes go to a temp file that is renamed over the
/// target (and a multi-file patch is made whole or undone by recovery from its journal).
/// They differ on a power failure or kernel crash:
///
/// | | `Full` (default) | `Atomic` |
/// |---|---|---|
/// | temp file fsynced before the rename | yes | no |
/// | directory fsynced after the rename | yes | no |
/// | after a power failure | every returned write is kept | a write may be lost, the file then holds its old content (or, on file systems that do not order data before renames, may be empty); a patch may keep some files new and some old |
/// | cost | two fsyncs per write; a patch of many files flushes in two batches ([`crate::Folders::make_durable`]) | none |
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Durability {
    /// fsync the temp file and the directory: a returned write survives a power failure.
    #[default]
    Full,
    /// Temp file and rename only: never torn by a crash, but a power failure may lose it.
    Atomic,
}

impl Durability {
    /// Every word [`Durability::as_str`] gives and `FromStr` takes, in the variants' order:
    /// the one list the command line and the Python module offer.
    pub const NAMES: &'static [&'static str] = &["full", "atomic"];

    /// `true` for [`Durability::Full`].
    #[must_use]
    pub(crate) fn syncs(self) -> bool {
        self == Durability::Full
    }

    /// `full` or `atomic`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Durability::Full => "full",
            Durability::Atomic => "atomic",
        }
    }
}

impl std::str::FromStr for Durability {
    type Err = String;

    fn from_str(text: &str) -> std::result::Result<Self, String> {
        match text {
            "full" => Ok(Durability::Full),
            "atomic" => Ok(Durability::Atomic),
            other => Err(format!("unknown durability `{other}`; choose `full` or `atomic`")),
        }
    }
}

impl std::fmt::Display for Durability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Refuses anything but a regular file, judged on the open handle; gives its size.
pub(crate) fn check_regular(given: &str, file: &File) -> Result<u64> {
    Ok(u64::try_from(regular_stat(given, file)?.st_size).unwrap_or(0))
}

/// The `fstat` of an open file, refused unless it is a regular file (as [`check_regular`]).
pub(crate) fn regular_stat(given: &str, file: &impl std::os::fd::AsFd) -> Result<rustix::fs::Stat> {
    let stat = rustix::fs::fstat(file).map_err(|e| Error::from_io("read", given, e.into()))?;
    match rustix::fs::FileType::from_raw_mode(stat.st_mode) {
        rustix::fs::FileType::RegularFile => Ok(stat),
        rustix::fs::FileType::Directory => Err(Error::IsDirectory { path: given.to_owned() }),
        _ => Err(Error::InvalidPath {
            path: given.to_owned(),
            reason: "not a regular file (a FIFO, socket or device); editkit reads only regular files".into(),
        }),
    }
}

pub(crate) fn split_parent(rel: &str) -> Option<(&str, &str)> {
    if rel.is_empty() {
        return None;
    }
    Some(match rel.rfind('/') {
        Some(i) => (&rel[..i], &rel[i + 1..]),
        None => ("", rel),
    })
}

/// The first half of a whole write: `bytes` in a fresh temp file in `parent` (mode set
/// first, flushed unless `durability` says not), whose name is returned. Nothing visible
/// changes; on an error the temp file is gone.
pub(crate) fn stage(
    parent: &Dir,
    bytes: &[u8],
    permissions: Option<Permissions>,
    durability: Durability,
) -> std::io::Result<String> {
    stage_with(parent, permissions, durability, |file| file.write_all(bytes))
}

/// [`stage`] with the content written by `fill` into the fresh temp file.
pub(crate) fn stage_with(
    parent: &Dir,
    permissions: Option<Permissions>,
    durability: Durability,
    fill: impl FnOnce(&mut cap_std::fs::File) -> std::io::Result<()>,
) -> std::io::Result<String> {
    let temp = temp_name();
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    let mut created = false;
    let result = (|| {
        let mut file = parent.open_with(&temp, &options)?;
        created = true;
        // The mode first: the new content is never readable more widely than the old.
        if let Some(permissions) = permissions {
            file.set_permissions(permissions)?;
        }
        fill(&mut file)?;
        if durability.syncs() { file.sync_all() } else { Ok(()) }
    })();
    match result {
        Ok(()) => Ok(temp),
        Err(err) => {
            if created {
                let _ = parent.remove_file(&temp);
            }
            Err(err)
        }
    }
}

/// The second half of a whole write ([`stage`] first): the staged `temp` renamed to `name` (with
/// `no_replace`, never over an entry), then the folder flushed unless `durability` says not.
/// On an error the temp file is removed.
pub(crate) fn place(
    parent: &Dir,
    temp: &str,
    name: &str,
    durability: Durability,
    no_replace: bool,
) -> std::io::Result<()> {
    let result = if no_replace {
        match rustix::fs::renameat_with(parent, temp, parent, name, rustix::fs::RenameFlags::NOREPLACE) {
            // A file system without RENAME_NOREPLACE: the caller's existence check stands.
            Err(rustix::io::Errno::INVAL) => parent.rename(temp, parent, name),
            other => other.map_err(std::io::Error::from),
        }
    } else {
        parent.rename(temp, parent, name)
    };
    if result.is_err() {
        let _ = parent.remove_file(temp);
    }
    result?;
    if durability.syncs() {
        sync_dir(parent);
    }
    Ok(())
}

/// A temp-file name unique within this process and across processes.
pub(crate) fn temp_name() -> String {
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    format!(".editkit-{}-{n}.tmp", std::process::id())
}

/// Best-effort fsync of a directory so a rename in it is durable.
pub(crate) fn sync_dir(dir: &Dir) {
    // cap-std holds directories as `O_PATH` descriptors, which cannot be fsynced: open the
    // directory itself (relative to the handle, so nothing outside is reachable) to sync it.
    use rustix::fs::{Mode, OFlags, fsync, openat};
    if let Ok(fd) = openat(dir, ".", OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty()) {
        let _ = fsync(&fd);
    }
}
