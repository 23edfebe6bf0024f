//! editkit's own state (lock files, patch journals, undo history), kept outside the workspace.
//!
//! A repository is untrusted input, so nothing editkit relies on for its own decisions is kept
//! in it: a cloned project could ship a crafted journal, links in place of undo entries or a
//! FIFO in place of a lock file. Each root's state lives in a folder of its own under the state
//! home (default `$XDG_STATE_HOME/editkit`, else `~/.local/state/editkit`), named after the
//! root's real path (`<folder name>-<16 hex digits of its SHA-256>`), so every editkit process
//! of the same user on the same tree shares its locks and recovers its journals.
//!
//! The folder is created only when something is written (a dry run, a refusal or a read-only
//! toolkit creates nothing), with mode 0700, reached without following links, and refused if
//! another user owns it or others may write to it (see [`StateStore`] for the whole rule).
//! Folders in it are made 0700 and files 0600, whatever the folder around them allows. Entries
//! are opened without following links and read only when they are regular files.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cap_std::ambient_authority;
use cap_std::fs::Dir;

use crate::error::{Error, Result};
use crate::hash::Sha256;

/// The folder each root's state folder goes in when none is configured:
/// `$XDG_STATE_HOME/editkit`, else `$HOME/.local/state/editkit`; `None` when neither variable
/// holds an absolute path.
#[must_use]
pub fn default_state_home() -> Option<PathBuf> {
    let absolute = |var: &str| std::env::var_os(var).map(PathBuf::from).filter(|path| path.is_absolute());
    absolute("XDG_STATE_HOME")
        .map(|base| base.join("editkit"))
        .or_else(|| absolute("HOME").map(|home| home.join(".local/state/editkit")))
}

/// The name of the state folder of the root whose real path is `root_real`, in its state home.
pub(crate) fn root_state_name(root_real: &Path) -> String {
    let name: String = root_real
        .file_name()
        .map(|name| {
            name.to_string_lossy().chars().filter(|c| c.is_ascii_alphanumeric() || "-_.".contains(*c)).collect()
        })
        .unwrap_or_default();
    let name = if name.is_empty() || name.starts_with('.') { "root".to_owned() } else { name };
    let id = &Sha256::of(root_real.as_os_str().as_encoded_bytes()).to_string()[..16];
    format!("{name}-{id}")
}

/// A root's state folder, opened on first use.
///
/// It is reached from a folder the user named (`base`: `$XDG_STATE_HOME`, `~/.local/state`, the
/// `--state-dir` given, or the parent of an exact state folder), opened as given, links
/// followed, as the user's own configuration. Every folder below it that editkit uses
/// (`editkit/` under a default base, then the root's own folder) is opened without following
/// a link (`O_NOFOLLOW | O_DIRECTORY`, relative to the handle above), judged on its handle and
/// created with mode 0700. The rule, as ssh's `StrictModes`:
/// - `base` belongs to the user or to root, and others may write to it only if it is sticky
///   (`/tmp`, mode 1777): then nobody else can rename or remove what the user made in it. A
///   `base` others may write to without the sticky bit is refused: another user could swap
///   the user's folder in it for a link or a folder of their own at any time.
/// - every folder below it belongs to the user and others may not write to it; a link, a
///   file or a folder of another user in its place is refused, never followed or used.
///
/// Anything refused is an [`Error::State`] naming the folder and what is wrong.
#[derive(Debug)]
pub(crate) struct StateStore {
    path: PathBuf,
    base: PathBuf,
    below: Vec<String>,
    dir: OnceLock<Dir>,
}

impl StateStore {
    /// The state folder `base/below[0]/below[1]/...`.
    pub(crate) fn new(base: PathBuf, below: Vec<String>) -> Self {
        let path = below.iter().fold(base.clone(), |path, part| path.join(part));
        StateStore { path, base, below, dir: OnceLock::new() }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    fn error_at(path: &Path, reason: impl Into<String>) -> Error {
        Error::State { path: path.display().to_string(), reason: reason.into() }
    }

    /// The folder's handle when it exists; `None` (and nothing created) when it does not.
    pub(crate) fn existing(&self) -> Result<Option<&Dir>> {
        self.open(false)
    }

    /// The folder's handle, creating it (mode 0700, parents too) when missing.
    pub(crate) fn ensure(&self) -> Result<&Dir> {
        self.open(true)?.ok_or_else(|| Self::error_at(&self.path, "it vanished right after it was created"))
    }

    fn open(&self, create: bool) -> Result<Option<&Dir>> {
        if let Some(dir) = self.dir.get() {
            return Ok(Some(dir));
        }
        let base = match Dir::open_ambient_dir(&self.base, ambient_authority()) {
            Ok(dir) => dir,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound && !create => return Ok(None),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                use std::os::unix::fs::DirBuilderExt;
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(&self.base)
                    .map_err(|err| Self::error_at(&self.base, format!("{err}; choose another with --state-dir")))?;
                Dir::open_ambient_dir(&self.base, ambient_authority())
                    .map_err(|err| Self::error_at(&self.base, err.to_string()))?
            }
            Err(err) => return Err(Self::error_at(&self.base, err.to_string())),
        };
        check_base(&self.base, &base)?;
        let mut current = base;
        let mut path = self.base.clone();
        for part in &self.below {
            path.push(part);
            match open_below(&current, part, &path, create)? {
                Some(next) => current = next,
                None => return Ok(None),
            }
        }
        Ok(Some(self.dir.get_or_init(|| current)))
    }
}

/// Opens the folder `name` of `parent` (at `path`, for messages) without following a link,
/// creating it with mode 0700 when missing and `create`, and judges it on its handle.
fn open_below(parent: &Dir, name: &str, path: &Path, create: bool) -> Result<Option<Dir>> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let refused = |errno: rustix::io::Errno| match errno {
        // `O_NOFOLLOW | O_DIRECTORY` on a link answers `ENOTDIR` (or `ELOOP`).
        rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR
            if rustix::fs::statat(parent, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
                .is_ok_and(|stat| rustix::fs::FileType::from_raw_mode(stat.st_mode).is_symlink()) =>
        {
            StateStore::error_at(
                path,
                "it is a symbolic link, and editkit never follows a link to its state folder (another user may \
             have planted it); remove it or choose another folder with --state-dir",
            )
        }
        rustix::io::Errno::NOTDIR | rustix::io::Errno::LOOP => {
            StateStore::error_at(path, "it is not a folder; remove it or choose another folder with --state-dir")
        }
        other => StateStore::error_at(path, std::io::Error::from(other).to_string()),
    };
    let fd = match rustix::fs::openat(parent, name, flags, Mode::empty()) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::NOENT) if !create => return Ok(None),
        Err(rustix::io::Errno::NOENT) => {
            match rustix::fs::mkdirat(parent, name, Mode::from_raw_mode(0o700)) {
                Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                Err(err) => {
                    return Err(StateStore::error_at(
                        path,
                        format!("{}; choose another with --state-dir", std::io::Error::from(err)),
                    ));
                }
            }
            rustix::fs::openat(parent, name, flags, Mode::empty()).map_err(refused)?
        }
        Err(err) => return Err(refused(err)),
    };
    let dir = Dir::from_std_file(std::fs::File::from(fd));
    check_own(path, &dir)?;
    Ok(Some(dir))
}

/// The folder the user named: theirs or root's, and sticky if others may write to it.
fn check_base(path: &Path, dir: &Dir) -> Result<()> {
    let stat = rustix::fs::fstat(dir).map_err(|err| StateStore::error_at(path, err.to_string()))?;
    let me = rustix::process::geteuid().as_raw();
    if stat.st_uid != me && stat.st_uid != 0 {
        return Err(StateStore::error_at(
            path,
            "it belongs to another user, who could replace editkit's folder in it; choose another with --state-dir",
        ));
    }
    if stat.st_mode & 0o022 != 0 && stat.st_mode & 0o1000 == 0 {
        return Err(StateStore::error_at(
            path,
            format!(
                "others may write to it (mode {:o}) and it has no sticky bit, so another user could put a link or \
                 a folder of their own in place of editkit's; run `chmod go-w` (or `chmod +t`) on it or choose \
                 another with --state-dir",
                stat.st_mode & 0o7777
            ),
        ));
    }
    Ok(())
}

/// A folder editkit uses: the user's, and nobody else may write to it (whoever can write there
/// could plant journals that recovery would act on).
fn check_own(path: &Path, dir: &Dir) -> Result<()> {
    let stat = rustix::fs::fstat(dir).map_err(|err| StateStore::error_at(path, err.to_string()))?;
    if stat.st_uid != rustix::process::geteuid().as_raw() {
        return Err(StateStore::error_at(path, "it belongs to another user; choose another with --state-dir"));
    }
    if stat.st_mode & 0o022 != 0 {
        return Err(StateStore::error_at(
            path,
            format!(
                "others may write to it (mode {:o}); run `chmod go-w` on it or choose another with --state-dir",
                stat.st_mode & 0o7777
            ),
        ));
    }
    Ok(())
}

/// Checks a state entry name: plain components, no `.`/`..`, not absolute.
pub(crate) fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && !name.starts_with('/')
        && !name.contains('\0')
        && name.split('/').all(|part| !part.is_empty() && part != "." && part != "..");
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidPath { path: name.to_owned(), reason: "not a plain name under the state folder".into() })
    }
}
