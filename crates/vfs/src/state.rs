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
/// `--state-dir` given, or the parent of an exact state folder), walked from `/` as ssh's
/// `StrictModes` walks a path ([`open_trusted`]: only folders and links of the user or root
/// on the way, none others may write to unless sticky). Every folder below it that editkit uses
/// (`editkit/` under a default base, then the root's own folder) is opened without following
/// a link (`O_NOFOLLOW | O_DIRECTORY`, relative to the handle above), judged on its handle and
/// created with mode 0700. The rule, as ssh's `StrictModes`:
/// - `base` and every folder on the way to it belong to the user or to root, and others may
///   write to one only if it is sticky (`/tmp`, mode 1777): then nobody else can rename or
///   remove what the user made in it. One others may write to without the sticky bit is
///   refused: another user could swap the user's folder in it for a link or a folder of their
///   own at any time. A link on the way is followed only when the user or root made it.
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
        let Some(base) = open_trusted(&self.base, create)? else { return Ok(None) };
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

/// Most links followed on the way to the state home (Linux `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// Opens the folder the user named (`path`, absolute), creating what is missing (mode 0700)
/// when `create`, as ssh's `StrictModes` judges a path: walked from `/` one component at a
/// time without letting the kernel follow a link, every folder on the way (the user's named
/// one included) belongs to the user or to root, and others may write to it only if it is
/// sticky (`/tmp`). A link on the way is followed only when it belongs to the user or to root
/// (its folder passed already, so nobody else put it there), and its target is walked by the
/// same rule: a folder of another user anywhere on the way (where they could plant a link to
/// the user's `.git`, or swap a folder) is refused. `None` when a folder is missing and not
/// `create`.
fn open_trusted(path: &Path, create: bool) -> Result<Option<Dir>> {
    use rustix::fs::{AtFlags, FileType, Mode, OFlags};
    let error = |reason: String| StateStore::error_at(path, reason);
    if !path.is_absolute() {
        return Err(error("the state folder must be an absolute path".into()));
    }
    let me = rustix::process::geteuid().as_raw();
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let open_root =
        || rustix::fs::open("/", flags, Mode::empty()).map_err(|err| error(std::io::Error::from(err).to_string()));
    // Each folder opened is judged on its handle before anything below it is looked at.
    let judge = |fd: &std::os::fd::OwnedFd, shown: &Path| -> Result<()> {
        let stat = rustix::fs::fstat(fd).map_err(|err| error(std::io::Error::from(err).to_string()))?;
        if stat.st_uid != me && stat.st_uid != 0 {
            return Err(StateStore::error_at(
                shown,
                "it belongs to another user, who could put a link or a folder of their own in the way of \
                 editkit's state; choose another folder with --state-dir",
            ));
        }
        if stat.st_mode & 0o022 != 0 && stat.st_mode & 0o1000 == 0 {
            return Err(StateStore::error_at(
                shown,
                format!(
                    "others may write to it (mode {:o}) and it has no sticky bit, so another user could put a link \
                     or a folder of their own in place of editkit's; run `chmod go-w` (or `chmod +t`) on it or \
                     choose another folder with --state-dir",
                    stat.st_mode & 0o7777
                ),
            ));
        }
        Ok(())
    };
    let mut current = open_root()?;
    let mut shown = PathBuf::from("/");
    judge(&current, &shown)?;
    let mut queue: std::collections::VecDeque<std::ffi::OsString> =
        path.components().filter_map(component_name).collect();
    let mut links = 0;
    while let Some(name) = queue.pop_front() {
        if name == ".." {
            return Err(error("the way to it has a `..`; give the state folder without one".into()));
        }
        let stat = match rustix::fs::statat(&current, &name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Some(stat),
            Err(rustix::io::Errno::NOENT) => None,
            Err(err) => return Err(error(std::io::Error::from(err).to_string())),
        };
        let next = shown.join(&name);
        match stat.map(|stat| (FileType::from_raw_mode(stat.st_mode), stat.st_uid)) {
            None if !create => return Ok(None),
            None => match rustix::fs::mkdirat(&current, &name, Mode::from_raw_mode(0o700)) {
                Ok(()) | Err(rustix::io::Errno::EXIST) => queue.push_front(name),
                Err(err) => {
                    return Err(StateStore::error_at(
                        &next,
                        format!("{}; choose another folder with --state-dir", std::io::Error::from(err)),
                    ));
                }
            },
            Some((FileType::Symlink, owner)) => {
                if owner != me && owner != 0 {
                    return Err(StateStore::error_at(
                        &next,
                        "it is a symbolic link of another user's; editkit follows no link another user made on \
                         the way to its state; choose another folder with --state-dir",
                    ));
                }
                links += 1;
                if links > MAX_LINKS {
                    return Err(StateStore::error_at(&next, "too many symbolic links on the way"));
                }
                let target = rustix::fs::readlinkat(&current, &name, Vec::new())
                    .map_err(|err| StateStore::error_at(&next, std::io::Error::from(err).to_string()))?;
                let target: PathBuf =
                    <std::ffi::OsString as std::os::unix::ffi::OsStringExt>::from_vec(target.into_bytes()).into();
                if target.is_absolute() {
                    current = open_root()?;
                    shown = PathBuf::from("/");
                }
                for part in target.components().filter_map(component_name).rev() {
                    queue.push_front(part);
                }
            }
            Some((FileType::Directory, _)) => {
                let fd = rustix::fs::openat(&current, &name, flags, Mode::empty())
                    .map_err(|err| StateStore::error_at(&next, std::io::Error::from(err).to_string()))?;
                judge(&fd, &next)?;
                current = fd;
                shown = next;
            }
            Some(_) => {
                return Err(StateStore::error_at(
                    &next,
                    "it is not a folder; remove it or choose another folder with --state-dir",
                ));
            }
        }
    }
    Ok(Some(Dir::from_std_file(std::fs::File::from(current))))
}

/// A path component as a name to walk (`..` kept, to be refused; `/` and `.` dropped).
fn component_name(component: std::path::Component<'_>) -> Option<std::ffi::OsString> {
    match component {
        std::path::Component::Normal(name) => Some(name.to_owned()),
        std::path::Component::ParentDir => Some("..".into()),
        std::path::Component::RootDir | std::path::Component::CurDir | std::path::Component::Prefix(_) => None,
    }
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
