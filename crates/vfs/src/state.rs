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
//! toolkit creates nothing), with mode 0700, and is refused if another user owns it or others
//! may write to it. Entries are still opened without following links and read only when they
//! are regular files.

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

/// The state folder of the root whose real path is `root_real`, under `home`.
pub(crate) fn root_state_dir(home: &Path, root_real: &Path) -> PathBuf {
    let name: String = root_real
        .file_name()
        .map(|name| {
            name.to_string_lossy().chars().filter(|c| c.is_ascii_alphanumeric() || "-_.".contains(*c)).collect()
        })
        .unwrap_or_default();
    let name = if name.is_empty() || name.starts_with('.') { "root".to_owned() } else { name };
    let id = &Sha256::of(root_real.as_os_str().as_encoded_bytes()).to_string()[..16];
    home.join(format!("{name}-{id}"))
}

/// A root's state folder, opened on first use.
#[derive(Debug)]
pub(crate) struct StateStore {
    path: PathBuf,
    dir: OnceLock<Dir>,
}

impl StateStore {
    pub(crate) fn new(path: PathBuf) -> Self {
        StateStore { path, dir: OnceLock::new() }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    fn error(&self, reason: impl Into<String>) -> Error {
        Error::State { path: self.path.display().to_string(), reason: reason.into() }
    }

    /// The folder's handle when it exists; `None` (and nothing created) when it does not.
    pub(crate) fn existing(&self) -> Result<Option<&Dir>> {
        if let Some(dir) = self.dir.get() {
            return Ok(Some(dir));
        }
        match Dir::open_ambient_dir(&self.path, ambient_authority()) {
            Ok(dir) => {
                self.check(&dir)?;
                Ok(Some(self.dir.get_or_init(|| dir)))
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(self.error(err.to_string())),
        }
    }

    /// The folder's handle, creating it (mode 0700, parents too) when missing.
    pub(crate) fn ensure(&self) -> Result<&Dir> {
        if let Some(dir) = self.existing()? {
            return Ok(dir);
        }
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.path)
            .map_err(|err| self.error(format!("{err}; choose another with --state-dir")))?;
        self.existing()?.ok_or_else(|| self.error("it vanished right after it was created"))
    }

    /// Refuses a folder that another user owns or that others may write to: whoever can
    /// write there could plant journals that recovery would act on.
    fn check(&self, dir: &Dir) -> Result<()> {
        let stat = rustix::fs::fstat(dir).map_err(|err| self.error(err.to_string()))?;
        if stat.st_uid != rustix::process::geteuid().as_raw() {
            return Err(self.error("it belongs to another user; choose another with --state-dir"));
        }
        if stat.st_mode & 0o022 != 0 {
            return Err(self.error(format!(
                "others may write to it (mode {:o}); run `chmod go-w` on it or choose another with --state-dir",
                stat.st_mode & 0o7777
            )));
        }
        Ok(())
    }
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
