//! The workspace: a cap-std directory handle on the root plus the policy, the read ledger, the
//! lock table and the state folder. Resolution lives in `resolve`, file operations in `files`,
//! the atomic-write steps in `atomic`, locks in `lock` and directory walks in `walk`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use cap_std::AmbientAuthority;
use cap_std::fs::Dir;

use crate::error::{Error, Result};
use crate::hash::Sha256;
use crate::lock_table::LockTable;
use crate::policy::{CompiledPolicy, Policy};
use crate::state::StateStore;

/// How long a lock waits for another process's `flock` on the file or the root before the
/// call is refused. Anyone who may read a file (or the root) may `flock` it, another user
/// included: a hold never makes editkit wait for longer than this.
pub(crate) const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Default for [`WorkspaceBuilder::max_read_bytes`]: 16 MiB.
pub const DEFAULT_MAX_READ_BYTES: u64 = 16 << 20;

/// The folder name earlier editkit versions kept their state in, under the root. A folder of
/// this name in a workspace is never taken for editkit's state (a repository can ship one):
/// it is always blocked and otherwise ignored; see [`Workspace::shipped_state`].
pub(crate) const LEGACY_STATE_DIR: &str = ".editkit";

/// Where a workspace keeps its state.
#[derive(Debug, Clone, PartialEq, Eq)]
enum StateChoice {
    /// A folder per root under [`crate::default_state_home`].
    Default,
    /// A folder per root under this one.
    Home(PathBuf),
    /// Exactly this folder.
    Exact(PathBuf),
}

/// The ambient authority a builder was given (cap-std's token shows no `Debug`).
#[derive(Clone, Copy)]
struct Authority(AmbientAuthority);

impl std::fmt::Debug for Authority {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AmbientAuthority")
    }
}

/// Configures and opens a [`Workspace`].
#[derive(Debug, Clone)]
pub struct WorkspaceBuilder {
    root: PathBuf,
    /// The authority to open `root` by its path, given to [`Workspace::builder`].
    authority: Authority,
    policy: Policy,
    max_read_bytes: u64,
    state: StateChoice,
    cross_process_locks: bool,
    durability: crate::Durability,
    lock_wait: std::time::Duration,
    detect_encodings: bool,
}

impl WorkspaceBuilder {
    /// Whether a file that is not UTF-8 is read in another encoding established with
    /// confidence (UTF-16 with a BOM, ISO-2022-JP, a detected legacy code page; see
    /// [`Text::decode`](crate::Text::decode)). With `false`, a read without an explicit encoding
    /// takes UTF-8 only, as a tool that opens files as UTF-8 does: anything else is `not_utf8`
    /// or `utf16`. Default: `true`.
    pub fn detect_encodings(&mut self, yes: bool) -> &mut Self {
        self.detect_encodings = yes;
        self
    }

    /// The path policy. Default: [`Policy::default`].
    pub fn policy(&mut self, policy: Policy) -> &mut Self {
        self.policy = policy;
        self
    }

    /// Largest file [`Workspace::read`] accepts. Default: [`DEFAULT_MAX_READ_BYTES`].
    pub fn max_read_bytes(&mut self, limit: u64) -> &mut Self {
        self.max_read_bytes = limit;
        self
    }

    /// The folder for editkit's own state of this root (lock files, patch journals, undo
    /// history), used as is. It should be outside the root: a repository must not be able to
    /// ship it. If it is inside, it is blocked for every ordinary operation. Default: a folder
    /// per root under [`crate::default_state_home`].
    pub fn state_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.state = StateChoice::Exact(dir.into());
        self
    }

    /// The folder under which each root gets a state folder of its own, named after the
    /// root's real path (what [`WorkspaceBuilder::state_dir`] is by default). Default:
    /// [`crate::default_state_home`].
    pub fn state_home(&mut self, home: impl Into<PathBuf>) -> &mut Self {
        self.state = StateChoice::Home(home.into());
        self
    }

    /// Whether writes also take an advisory lock file under the state dir so that several
    /// processes on one tree serialise. Default: `true`.
    pub fn cross_process_locks(&mut self, enabled: bool) -> &mut Self {
        self.cross_process_locks = enabled;
        self
    }

    /// How far writes go before they return: fsynced ([`crate::Durability::Full`]) or only
    /// renamed into place ([`crate::Durability::Atomic`]). Default: `Full`.
    pub fn durability(&mut self, durability: crate::Durability) -> &mut Self {
        self.durability = durability;
        self
    }

    /// How long a lock waits for another process's hold on a file (or on the root, taken to
    /// create files) before the call is refused. Default: [`LOCK_WAIT`]. Tests set it short.
    #[cfg(test)]
    pub(crate) fn lock_wait(&mut self, wait: std::time::Duration) -> &mut Self {
        self.lock_wait = wait;
        self
    }

    /// Opens the root directory and compiles the policy.
    ///
    /// # Security
    /// This uses the ambient authority given to [`Workspace::builder`]: it opens the root (and
    /// later the state folder) by its path. Every access to the workspace goes through the
    /// root's directory handle.
    ///
    /// # Errors
    /// [`Error::NotFound`] or [`Error::NotADirectory`] for a bad root, [`Error::InvalidPath`]
    /// for a relative state folder or for blocked globs that do not compile.
    pub fn open(&self) -> Result<Workspace> {
        let shown = self.root.display().to_string();
        let real = std::fs::canonicalize(&self.root).map_err(|e| Error::from_io("open", &shown, e))?;
        if !real.is_dir() {
            return Err(Error::NotADirectory { path: shown });
        }
        let root = Dir::open_ambient_dir(&real, self.authority.0).map_err(|e| Error::from_io("open", &shown, e))?;
        let invalid =
            |path: &Path, reason: &str| Error::InvalidPath { path: path.display().to_string(), reason: reason.into() };
        let root_name = crate::state::root_state_name(&real);
        // The folder the user named (opened as given) and the folders below it editkit uses
        // (opened without following links).
        let (base, below) = match &self.state {
            StateChoice::Exact(path) => {
                if !path.is_absolute() {
                    return Err(invalid(path, "the state folder must be an absolute path"));
                }
                let path = crate::policy::lexical_absolute(path);
                match (path.parent(), path.file_name().and_then(|name| name.to_str())) {
                    (Some(parent), Some(name)) => (parent.to_owned(), vec![name.to_owned()]),
                    _ => return Err(invalid(&path, "the state folder must be a folder below `/` with a UTF-8 name")),
                }
            }
            StateChoice::Home(home) => (home.clone(), vec![root_name]),
            StateChoice::Default => match crate::state::default_state_home() {
                Some(home) => {
                    let parent = home.parent().map(Path::to_owned).unwrap_or_else(|| home.clone());
                    (parent, vec!["editkit".to_owned(), root_name])
                }
                None => (
                    std::env::temp_dir(),
                    vec![format!("editkit-state-{}", rustix::process::geteuid().as_raw()), root_name],
                ),
            },
        };
        // The folder holding every root's state folder (and what else editkit keeps there, as
        // the MCP server's results), when the state folder is found under a state home.
        let home = match &self.state {
            StateChoice::Exact(_) => None,
            StateChoice::Home(home) => Some(home.clone()),
            StateChoice::Default => below.first().map(|first| base.join(first)),
        };
        let state = StateStore::new(base, below);
        let state_path = state.path().to_owned();
        if !state_path.is_absolute() {
            return Err(invalid(&state_path, "the state folder must be an absolute path"));
        }
        let mut policy = self.policy.clone();
        // A state folder inside the root is editkit's alone: no tool may touch it.
        if let Ok(inside) = real_lexical(&state_path).strip_prefix(&real)
            && let Some(inside) = inside.to_str()
        {
            if inside.is_empty() {
                return Err(Error::InvalidPath {
                    path: state_path.display().to_string(),
                    reason: "the state folder cannot be the workspace root".into(),
                });
            }
            policy.blocked.push(format!("{inside}/**"));
        }
        // So is the state home: it holds the state of other roots and of other processes.
        if let Some(home) = &home
            && let Ok(inside) = real_lexical(home).strip_prefix(&real)
            && let Some(inside) = inside.to_str()
            && !inside.is_empty()
        {
            policy.blocked.push(format!("{inside}/**"));
        }
        let mut roots = vec![real.clone()];
        if self.root.is_absolute() {
            let given = crate::policy::lexical_absolute(&self.root);
            if given != real {
                roots.push(given);
            }
        }
        let policy = CompiledPolicy::new(&policy, LEGACY_STATE_DIR, roots)?;
        Ok(Workspace {
            owner: crate::canonical::new_owner(),
            root,
            root_real: real,
            policy,
            max_read_bytes: self.max_read_bytes,
            state,
            ledger: Mutex::new(HashMap::new()),
            memo: Mutex::new(crate::hash::HashMemo::default()),
            locks: LockTable::new(self.cross_process_locks),
            durability: self.durability,
            lock_wait: self.lock_wait,
            reaper: crate::reap::Reaper::default(),
            detect_encodings: self.detect_encodings,
        })
    }
}

/// A directory tree that every operation is confined to.
///
/// ```
/// # fn main() -> Result<(), editkit_vfs::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
/// workspace.write("notes/todo.md", b"- ship\n", &editkit_vfs::WriteOptions::default())?;
/// let file = workspace.read("notes/todo.md")?;
/// assert_eq!(file.text(), "- ship\n");
/// assert_eq!(workspace.read("../etc/passwd").unwrap_err().error_kind(), editkit_vfs::ErrorKind::OutsideWorkspace);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Workspace {
    /// Which workspace a [`crate::CanonicalPath`] was checked by.
    pub(crate) owner: u64,
    pub(crate) root: Dir,
    pub(crate) root_real: PathBuf,
    pub(crate) policy: CompiledPolicy,
    pub(crate) max_read_bytes: u64,
    state: StateStore,
    /// Canonical relative path → SHA-256 of the content last read or written.
    pub(crate) ledger: Mutex<HashMap<String, Sha256>>,
    /// Contents written lately with their hashes: reading one back compares instead of hashing.
    pub(crate) memo: Mutex<crate::hash::HashMemo>,
    locks: LockTable,
    pub(crate) durability: crate::Durability,
    /// How long a lock waits for another process ([`WorkspaceBuilder::lock_wait`]).
    pub(crate) lock_wait: std::time::Duration,
    /// Unlinks state entries handed over by [`crate::Txn::state_remove_soon`].
    pub(crate) reaper: crate::reap::Reaper,
    /// [`WorkspaceBuilder::detect_encodings`].
    detect_encodings: bool,
}

/// What a path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (only reported by operations that do not follow the last link).
    Symlink,
    /// A FIFO, socket or device.
    Other,
}

/// What [`Workspace::metadata`] says about a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Metadata {
    /// What the path names (links followed).
    pub kind: EntryKind,
    /// Size in bytes (0 for the root).
    pub size: u64,
    /// Last modification, in whole seconds since the Unix epoch.
    pub modified_unix: i64,
    /// Last modification, in nanoseconds since the Unix epoch.
    pub modified_ns: i64,
    /// Last status change (the inode's `ctime`: content, mode, links, name), in nanoseconds
    /// since the Unix epoch.
    pub changed_ns: i64,
    /// The permission bits (`0o644`...), without the file type.
    pub mode: u32,
}

impl Workspace {
    /// A builder for a workspace rooted at `root`, opened with the ambient `authority` (the
    /// process's own access to the file system, [`crate::ambient_authority`]): the one thing
    /// editkit does with a path instead of a directory handle. See [`WorkspaceBuilder::open`].
    pub fn builder(root: impl Into<PathBuf>, authority: AmbientAuthority) -> WorkspaceBuilder {
        WorkspaceBuilder {
            root: root.into(),
            authority: Authority(authority),
            policy: Policy::default(),
            max_read_bytes: DEFAULT_MAX_READ_BYTES,
            state: StateChoice::Default,
            cross_process_locks: true,
            durability: crate::Durability::Full,
            lock_wait: LOCK_WAIT,
            detect_encodings: true,
        }
    }

    /// The encoding a read without one takes: `None` (detected) unless
    /// [`WorkspaceBuilder::detect_encodings`] is off, then UTF-8.
    pub fn default_encoding(&self) -> Option<crate::Encoding> {
        (!self.detect_encodings).then(crate::Encoding::utf8)
    }

    /// Decodes bytes read from this workspace as its reads do: in `encoding` when given, else
    /// as [`Workspace::default_encoding`] says (detected, or UTF-8 only).
    ///
    /// # Errors
    /// As [`Text::decode`](crate::Text::decode) and [`Text::decode_as`](crate::Text::decode_as).
    pub fn decode(
        &self,
        bytes: &[u8],
        encoding: Option<crate::Encoding>,
    ) -> std::result::Result<crate::Text, crate::DecodeError> {
        match encoding.or(self.default_encoding()) {
            Some(encoding) => crate::Text::decode_as(bytes, encoding),
            None => crate::Text::decode(bytes),
        }
    }

    /// Opens a workspace with the default policy.
    ///
    /// # Security
    /// Uses the ambient `authority` to open `root` by its path; see [`WorkspaceBuilder::open`].
    ///
    /// # Errors
    /// As [`WorkspaceBuilder::open`].
    pub fn open(root: impl Into<PathBuf>, authority: AmbientAuthority) -> Result<Workspace> {
        Workspace::builder(root, authority).open()
    }

    /// The root's real (canonical) path. Shown to people; never used to open files.
    #[must_use]
    pub fn root_path(&self) -> &Path {
        &self.root_real
    }

    /// The folder holding editkit's state for this root (it may not exist yet: it is created
    /// by the first write that needs it).
    #[must_use]
    pub fn state_dir(&self) -> &Path {
        self.state.path()
    }

    pub(crate) fn state_store(&self) -> &StateStore {
        &self.state
    }

    /// When the workspace holds an entry named `.editkit`, a sentence
    /// saying that it was ignored: it is not editkit's state (a repository can ship one, with
    /// journals, undo entries or links meant to be acted on), and it stays blocked.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// assert_eq!(workspace.shipped_state(), None);
    /// std::fs::create_dir(dir.path().join(".editkit")).unwrap();
    /// assert!(workspace.shipped_state().unwrap().contains("ignored"));
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn shipped_state(&self) -> Option<String> {
        self.root.symlink_metadata(LEGACY_STATE_DIR).ok()?;
        Some(format!(
            "`{LEGACY_STATE_DIR}` in the workspace was ignored: editkit keeps its state in `{}`, never in the \
             workspace, and a `{LEGACY_STATE_DIR}` there (from an earlier editkit, or shipped by the repository) is \
             blocked and never acted on; inspect it and remove it by hand",
            self.state.path().display()
        ))
    }

    /// The read limit in bytes.
    #[must_use]
    pub fn max_read_bytes(&self) -> u64 {
        self.max_read_bytes
    }

    /// Whether an absolute path names something under this workspace's root, as opened or as
    /// its real path (`.` and `..` are applied lexically; nothing is read from disk): how a
    /// caller holding several workspaces picks the one a path belongs to.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// assert!(workspace.contains_absolute(&dir.path().join("src/../a.txt")));
    /// assert!(!workspace.contains_absolute(&dir.path().join("../elsewhere.txt")));
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn contains_absolute(&self, path: &Path) -> bool {
        path.is_absolute() && self.policy.owns(path)
    }

    /// Whether `path` is this workspace's root or under it once the links on its way are
    /// resolved as far as it exists (a folder that does not exist yet is judged by its nearest
    /// existing ancestor): how a caller refuses to put editkit's state inside a workspace.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// assert!(workspace.encloses(&dir.path().join("not/yet/made")));
    /// assert!(!workspace.encloses(&std::env::temp_dir()));
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn encloses(&self, path: &Path) -> bool {
        path.is_absolute() && real_lexical(path).starts_with(&self.root_real)
    }

    pub(crate) fn lock_table(&self) -> &LockTable {
        &self.locks
    }

    pub(crate) fn root_dir(&self) -> &Dir {
        &self.root
    }
}

/// `path` with its longest existing ancestor replaced by its real path (symlinks resolved),
/// so a folder that does not exist yet can be compared with the root's real path.
fn real_lexical(path: &Path) -> PathBuf {
    let path = crate::policy::lexical_absolute(path);
    let mut rest = Vec::new();
    let mut current = path.as_path();
    loop {
        if let Ok(real) = std::fs::canonicalize(current) {
            return rest.iter().rev().fold(real, |acc: PathBuf, part| acc.join(part));
        }
        match (current.parent(), current.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                current = parent;
            }
            _ => return path,
        }
    }
}
