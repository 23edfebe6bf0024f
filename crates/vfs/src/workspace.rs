//! The workspace: a cap-std directory handle on the root plus the policy, ledger and locks.

use std::collections::{HashMap, VecDeque};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use cap_std::ambient_authority;
use cap_std::fs::{Dir, File, OpenOptions, Permissions};

use crate::codec::Text;
use crate::error::{Error, Result};
use crate::hash::{Hasher, Sha256};
use crate::lock::{FileLock, LockTable};
use crate::policy::{CompiledPolicy, MAX_LINK_FOLLOWS, Policy};
use crate::state::StateStore;

/// Default for [`WorkspaceBuilder::max_read_bytes`]: 16 MiB.
pub const DEFAULT_MAX_READ_BYTES: u64 = 16 << 20;
/// The folder name earlier editkit versions kept their state in, under the root. A folder of
/// this name in a workspace is never taken for editkit's state (a repository can ship one):
/// it is always blocked and otherwise ignored; see [`Workspace::shipped_state`].
pub const LEGACY_STATE_DIR: &str = ".editkit";

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

/// Configures and opens a [`Workspace`].
#[derive(Debug, Clone)]
pub struct WorkspaceBuilder {
    root: PathBuf,
    policy: Policy,
    max_read_bytes: u64,
    state: StateChoice,
    cross_process_locks: bool,
}

impl WorkspaceBuilder {
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

    /// Opens the root directory and compiles the policy.
    ///
    /// # Security
    /// This is the one place that uses ambient authority: it opens the root by its path. Every
    /// later access goes through the root's directory handle.
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
        let root = Dir::open_ambient_dir(&real, ambient_authority()).map_err(|e| Error::from_io("open", &shown, e))?;
        let state_path = match &self.state {
            StateChoice::Exact(path) => path.clone(),
            StateChoice::Home(home) => crate::state::root_state_dir(home, &real),
            StateChoice::Default => {
                let home = crate::state::default_state_home().unwrap_or_else(|| {
                    std::env::temp_dir().join(format!("editkit-state-{}", rustix::process::geteuid().as_raw()))
                });
                crate::state::root_state_dir(&home, &real)
            }
        };
        if !state_path.is_absolute() {
            return Err(Error::InvalidPath {
                path: state_path.display().to_string(),
                reason: "the state folder must be an absolute path".into(),
            });
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
        let mut roots = vec![real.clone()];
        if self.root.is_absolute() {
            let given = crate::policy::lexical_absolute(&self.root);
            if given != real {
                roots.push(given);
            }
        }
        let policy = CompiledPolicy::new(&policy, LEGACY_STATE_DIR, roots)?;
        Ok(Workspace {
            root,
            root_real: real,
            policy,
            max_read_bytes: self.max_read_bytes,
            state: StateStore::new(state_path),
            ledger: Mutex::new(HashMap::new()),
            locks: LockTable::new(self.cross_process_locks),
        })
    }
}

/// A directory tree that every operation is confined to.
///
/// ```
/// # fn main() -> Result<(), editkit_vfs::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// let workspace = editkit_vfs::Workspace::open(dir.path())?;
/// workspace.write("notes/todo.md", b"- ship\n", &editkit_vfs::WriteOptions::default())?;
/// let file = workspace.read("notes/todo.md")?;
/// assert_eq!(file.text(), "- ship\n");
/// assert_eq!(workspace.read("../etc/passwd").unwrap_err().kind(), "outside_workspace");
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Workspace {
    root: Dir,
    root_real: PathBuf,
    policy: CompiledPolicy,
    max_read_bytes: u64,
    state: StateStore,
    /// Canonical relative path → SHA-256 (hex) of the content last read or written.
    ledger: Mutex<HashMap<String, Sha256>>,
    locks: LockTable,
}

/// A file read as text, with the facts an agent needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileText {
    path: String,
    text: Text,
    sha256: Sha256,
    size: u64,
}

impl FileText {
    /// The canonical path relative to the root (symlinks resolved).
    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }
    /// The LF-normalised text without BOM.
    #[must_use]
    pub fn text(&self) -> &str {
        self.text.as_str()
    }
    /// The decoded text with its line endings and BOM, for splicing edits back.
    #[must_use]
    pub fn decoded(&self) -> &Text {
        &self.text
    }
    /// Consumes the value, returning the decoded text.
    #[must_use]
    pub fn into_decoded(self) -> Text {
        self.text
    }
    /// SHA-256 of the bytes on disk.
    #[must_use]
    pub fn sha256(&self) -> Sha256 {
        self.sha256
    }
    /// Size on disk in bytes.
    #[must_use]
    pub fn size(&self) -> u64 {
        self.size
    }
    /// Number of lines.
    #[must_use]
    pub fn line_count(&self) -> usize {
        self.text.line_count()
    }
    /// Whether the file starts with a UTF-8 BOM.
    #[must_use]
    pub fn bom(&self) -> bool {
        self.text.bom()
    }
    /// The file's line endings, summarised.
    #[must_use]
    pub fn line_endings(&self) -> crate::LineEndings {
        self.text.line_endings()
    }
    /// Whether the file ends with a line terminator.
    #[must_use]
    pub fn trailing_newline(&self) -> bool {
        self.text.trailing_newline()
    }
}

/// Options of [`Workspace::write`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteOptions {
    /// Create missing parent directories. Default: `true`.
    pub create_dirs: bool,
    /// Write even if the file changed since this workspace read it. Default: `false`.
    pub force: bool,
    /// The SHA-256 the file must have now; always honoured, even with `force`.
    /// `Some` for a file that does not exist refuses the write.
    pub expected_hash: Option<Sha256>,
    /// Refuse if anything exists at the path. Default: `false`.
    pub create_new: bool,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions { create_dirs: true, force: false, expected_hash: None, create_new: false }
    }
}

/// What a write did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// Canonical path relative to the root.
    pub path: String,
    /// SHA-256 of the new content.
    pub sha256: Sha256,
    /// Bytes written.
    pub size: u64,
    /// Whether the file did not exist before.
    pub created: bool,
    /// SHA-256 of the content that was replaced, if any.
    pub previous_sha256: Option<Sha256>,
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

/// Where resolution ended: the canonical path and what is there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resolved {
    /// Canonical relative path, no symlinks, `""` for the root.
    pub(crate) rel: String,
    /// What exists there, `None` when nothing does.
    pub(crate) kind: Option<EntryKind>,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Workspace {
    /// A builder for a workspace rooted at `root`.
    pub fn builder(root: impl Into<PathBuf>) -> WorkspaceBuilder {
        WorkspaceBuilder {
            root: root.into(),
            policy: Policy::default(),
            max_read_bytes: DEFAULT_MAX_READ_BYTES,
            state: StateChoice::Default,
            cross_process_locks: true,
        }
    }

    /// Opens a workspace with the default policy.
    ///
    /// # Security
    /// Uses ambient authority once, to open `root`; see [`WorkspaceBuilder::open`].
    ///
    /// # Errors
    /// As [`WorkspaceBuilder::open`].
    pub fn open(root: impl Into<PathBuf>) -> Result<Workspace> {
        Workspace::builder(root).open()
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

    /// When the workspace holds an entry named [`LEGACY_STATE_DIR`] (`.editkit`), a sentence
    /// saying that it was ignored: it is not editkit's state (a repository can ship one, with
    /// journals, undo entries or links meant to be acted on), and it stays blocked.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path())?;
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
    /// let workspace = editkit_vfs::Workspace::open(dir.path())?;
    /// assert!(workspace.contains_absolute(&dir.path().join("src/../a.txt")));
    /// assert!(!workspace.contains_absolute(&dir.path().join("../elsewhere.txt")));
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn contains_absolute(&self, path: &Path) -> bool {
        path.is_absolute() && self.policy.owns(path)
    }

    /// Resolves `path` to its canonical relative form: policy checked, `..` applied, symlinks
    /// followed while they stay inside the root. The path need not exist.
    ///
    /// # Errors
    /// [`Error::InvalidPath`], [`Error::OutsideWorkspace`], [`Error::SymlinkLoop`],
    /// [`Error::Blocked`].
    pub fn resolve(&self, path: &str) -> Result<String> {
        Ok(self.resolve_inner(path, true)?.rel)
    }

    /// Resolves `path` like [`Workspace::resolve`] but does not follow a final symlink: the
    /// result names the directory entry itself (what [`Workspace::delete`] removes), so a
    /// deletion or a move can act on a link and never on the file it points to.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("real.txt"), "x\n").unwrap();
    /// std::os::unix::fs::symlink("real.txt", dir.path().join("alias.txt")).unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path())?;
    /// assert_eq!(workspace.resolve("alias.txt")?, "real.txt");
    /// assert_eq!(workspace.resolve_entry("alias.txt")?, "alias.txt");
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`Workspace::resolve`].
    pub fn resolve_entry(&self, path: &str) -> Result<String> {
        Ok(self.resolve_inner(path, false)?.rel)
    }

    /// Resolves with the policy; `follow_last` decides whether a final symlink is followed.
    pub(crate) fn resolve_inner(&self, path: &str, follow_last: bool) -> Result<Resolved> {
        let lexical = self.policy.normalise(path)?;
        self.check_blocked(path, &lexical)?;
        let resolved = self.resolve_components(path, &lexical, follow_last)?;
        self.check_blocked(path, &resolved.rel)?;
        Ok(resolved)
    }

    fn check_blocked(&self, given: &str, rel: &str) -> Result<()> {
        match self.policy.blocked_by(rel) {
            Some(pattern) => Err(Error::Blocked { path: given.to_owned(), pattern: pattern.to_owned() }),
            None => Ok(()),
        }
    }

    /// Whether `rel` itself is blocked, for a walker whose directory was checked already.
    pub(crate) fn is_blocked_exact(&self, rel: &str) -> bool {
        self.policy.blocked_exact(rel)
    }

    /// Walks `lexical` component by component relative to the root handle, following symlinks
    /// that stay inside.
    fn resolve_components(&self, given: &str, lexical: &str, follow_last: bool) -> Result<Resolved> {
        let mut pending: VecDeque<String> = lexical.split('/').filter(|p| !p.is_empty()).map(str::to_owned).collect();
        let mut resolved: Vec<String> = Vec::new();
        let mut follows = 0usize;
        let mut kind = Some(EntryKind::Dir);
        let outside = || Error::OutsideWorkspace { path: given.to_owned() };
        while let Some(part) = pending.pop_front() {
            match part.as_str() {
                "" | "." => continue,
                ".." => {
                    // Only link targets bring `..` here; the caller's own were applied lexically.
                    if resolved.pop().is_none() {
                        return Err(outside());
                    }
                    kind = Some(EntryKind::Dir);
                    continue;
                }
                _ => {}
            }
            if kind.is_none() {
                // Below a missing component everything is missing; keep the spelling.
                resolved.push(part);
                continue;
            }
            if kind != Some(EntryKind::Dir) {
                return Err(Error::NotFound { path: given.to_owned() });
            }
            let mut candidate = resolved.join("/");
            if !candidate.is_empty() {
                candidate.push('/');
            }
            candidate.push_str(&part);
            let is_last = pending.is_empty();
            match self.root.symlink_metadata(&candidate) {
                Err(err) if matches!(err.kind(), std::io::ErrorKind::NotFound) => {
                    kind = None;
                    resolved.push(part);
                }
                Err(err) => return Err(Error::from_io("resolve", given, err)),
                Ok(meta) if meta.is_symlink() && (follow_last || !is_last) => {
                    follows += 1;
                    if follows > MAX_LINK_FOLLOWS {
                        return Err(Error::SymlinkLoop { path: given.to_owned(), limit: MAX_LINK_FOLLOWS });
                    }
                    let target =
                        self.root.read_link_contents(&candidate).map_err(|e| Error::from_io("read link", given, e))?;
                    let target = target.to_str().ok_or_else(outside)?.to_owned();
                    if target.is_empty() {
                        return Err(Error::NotFound { path: given.to_owned() });
                    }
                    let mut next: VecDeque<String> = if target.starts_with('/') {
                        let absolute = crate::policy::lexical_absolute(Path::new(&target));
                        let rest = absolute.strip_prefix(&self.root_real).map_err(|_| outside())?;
                        resolved.clear();
                        rest.to_str().ok_or_else(outside)?.split('/').map(str::to_owned).collect()
                    } else {
                        target.split('/').map(str::to_owned).collect()
                    };
                    next.extend(pending.drain(..));
                    pending = next;
                    kind = Some(EntryKind::Dir);
                }
                Ok(meta) => {
                    kind = Some(if meta.is_symlink() {
                        EntryKind::Symlink
                    } else if meta.is_dir() {
                        EntryKind::Dir
                    } else if meta.is_file() {
                        EntryKind::File
                    } else {
                        EntryKind::Other
                    });
                    resolved.push(part);
                }
            }
        }
        Ok(Resolved { rel: resolved.join("/"), kind })
    }

    /// Reads a text file and records its hash in the read ledger.
    ///
    /// # Errors
    /// Policy errors, [`Error::NotFound`], [`Error::IsDirectory`], [`Error::TooLarge`],
    /// [`Error::Utf16`], [`Error::NotUtf8`], [`Error::Binary`], [`Error::Io`].
    pub fn read(&self, path: &str) -> Result<FileText> {
        self.read_expecting(path, None)
    }

    /// Reads a text file once; when `expected` is given and the bytes read do not hash to it,
    /// refuses with [`Error::Stale`] and records nothing, else records the hash like
    /// [`Workspace::read`]. The check and the content are from the same read, so no writer can
    /// slip in between them.
    pub(crate) fn read_expecting(&self, path: &str, expected: Option<Sha256>) -> Result<FileText> {
        let (rel, bytes) = self.read_raw(path)?;
        let sha256 = Sha256::of(&bytes);
        if let Some(expected) = expected
            && expected != sha256
        {
            return Err(Error::Stale { path: path.to_owned(), expected: Some(expected), current: Some(sha256) });
        }
        self.record(&rel, sha256);
        file_text(path, rel, &bytes, sha256)
    }

    /// Reads a text file like [`Workspace::read`] but records nothing: for looking at a file
    /// (its symbols, a diff against it) without arming the staleness guard, which must only
    /// vouch for content the caller was shown.
    ///
    /// # Errors
    /// As [`Workspace::read`].
    pub fn peek(&self, path: &str) -> Result<FileText> {
        let (rel, bytes) = self.read_raw(path)?;
        let sha256 = Sha256::of(&bytes);
        file_text(path, rel, &bytes, sha256)
    }

    /// Reads a file's bytes as they are and records their hash in the read ledger.
    ///
    /// # Errors
    /// As [`Workspace::read`], without the text checks.
    pub fn read_bytes(&self, path: &str) -> Result<Vec<u8>> {
        let (rel, bytes) = self.read_raw(path)?;
        self.record(&rel, Sha256::of(&bytes));
        Ok(bytes)
    }

    /// SHA-256 of a file's current content, without arming the staleness guard; `None` when
    /// nothing exists at the path.
    ///
    /// # Errors
    /// Policy errors, [`Error::IsDirectory`], [`Error::Io`].
    pub fn current_hash(&self, path: &str) -> Result<Option<Sha256>> {
        let resolved = self.resolve_inner(path, true)?;
        self.hash_of(path, &resolved.rel)
    }

    fn hash_of(&self, given: &str, rel: &str) -> Result<Option<Sha256>> {
        let mut file = match self.open_regular(given, rel) {
            Ok(file) => file,
            Err(Error::NotFound { .. }) => return Ok(None),
            Err(err) => return Err(err),
        };
        let mut hasher = Hasher::new();
        let mut buf = vec![0u8; 256 << 10];
        loop {
            let n = file.read(&mut buf).map_err(|e| Error::from_io("read", given, e))?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
        }
        Ok(Some(hasher.finish()))
    }

    fn read_raw(&self, path: &str) -> Result<(String, Vec<u8>)> {
        let resolved = self.resolve_inner(path, true)?;
        let file = self.open_regular(path, &resolved.rel)?;
        let size = file.metadata().map_err(|e| Error::from_io("read", path, e))?.len();
        if size > self.max_read_bytes {
            return Err(Error::TooLarge { path: path.to_owned(), size, limit: self.max_read_bytes });
        }
        let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        // Read one byte past the limit to notice a file that grew after the size check.
        file.take(self.max_read_bytes + 1).read_to_end(&mut bytes).map_err(|e| Error::from_io("read", path, e))?;
        if bytes.len() as u64 > self.max_read_bytes {
            return Err(Error::TooLarge {
                path: path.to_owned(),
                size: bytes.len() as u64,
                limit: self.max_read_bytes,
            });
        }
        Ok((resolved.rel, bytes))
    }

    /// Opens the regular file at canonical `rel` for reading.
    fn open_regular(&self, given: &str, rel: &str) -> Result<File> {
        if rel.is_empty() {
            return Err(Error::IsDirectory { path: given.to_owned() });
        }
        // No link is followed (the canonical path has none; one that appears is a race), and
        // the open never blocks: a FIFO or device is judged on the handle and refused.
        let file = crate::beneath::file(&self.root, rel).map_err(|e| Error::from_io("read", given, e))?;
        check_regular(given, &file)?;
        Ok(file)
    }

    pub(crate) fn record(&self, rel: &str, sha256: Sha256) {
        self.ledger.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(rel.to_owned(), sha256);
    }

    pub(crate) fn forget(&self, rel: &str) {
        let mut ledger = self.ledger.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        ledger.remove(rel);
        let prefix = format!("{rel}/");
        ledger.retain(|key, _| !key.starts_with(&prefix) || rel.is_empty());
    }

    /// The hash the read ledger holds for a path, if this workspace read or wrote it.
    ///
    /// # Errors
    /// Policy errors.
    pub fn recorded_hash(&self, path: &str) -> Result<Option<Sha256>> {
        let rel = self.resolve(path)?;
        Ok(self.ledger.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(&rel).copied())
    }

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
    /// callers locking overlapping sets never deadlock. Duplicates are locked once.
    ///
    /// # Errors
    /// As [`Workspace::lock`].
    pub fn lock_many<'a>(&self, paths: impl IntoIterator<Item = &'a str>) -> Result<Vec<FileLock<'_>>> {
        let mut resolved = Vec::new();
        for path in paths {
            resolved.push((self.resolve_inner(path, true)?.rel, path.to_owned()));
        }
        resolved.sort();
        resolved.dedup_by(|a, b| a.0 == b.0);
        resolved.into_iter().map(|(rel, given)| FileLock::acquire(self, given, rel)).collect()
    }

    /// Like [`Workspace::lock_many`], but a final symlink is not followed: each lock is keyed
    /// by the directory entry named (see [`Workspace::resolve_entry`]). For transactions that
    /// name entries, such as a patch deleting a link: the key stays the same once the link is
    /// gone, so a later recovery waits for the same locks. For a path that is not a link the
    /// key is the one [`Workspace::lock`] uses.
    ///
    /// # Errors
    /// As [`Workspace::lock_many`].
    pub fn lock_entries<'a>(&self, paths: impl IntoIterator<Item = &'a str>) -> Result<Vec<FileLock<'_>>> {
        let mut resolved = Vec::new();
        for path in paths {
            resolved.push((self.resolve_inner(path, false)?.rel, path.to_owned()));
        }
        resolved.sort();
        resolved.dedup_by(|a, b| a.0 == b.0);
        resolved.into_iter().map(|(rel, given)| FileLock::acquire(self, given, rel)).collect()
    }

    pub(crate) fn lock_table(&self) -> &LockTable {
        &self.locks
    }

    pub(crate) fn root_dir(&self) -> &Dir {
        &self.root
    }

    /// Writes `bytes` atomically: a temp file in the same directory, fsync, rename over the
    /// target, permission bits kept. A symlink that stays inside is written through (its
    /// target changes, the link stays).
    ///
    /// # Errors
    /// Policy errors, [`Error::Stale`], [`Error::IsDirectory`], [`Error::NotFound`] (missing
    /// parent without `create_dirs`), [`Error::Exists`] (with `create_new`), [`Error::Io`].
    pub fn write(&self, path: &str, bytes: &[u8], options: &WriteOptions) -> Result<Written> {
        self.lock(path)?.write(bytes, options)
    }

    /// The write itself; the caller holds the file's lock.
    pub(crate) fn write_locked(&self, given: &str, rel: &str, bytes: &[u8], options: &WriteOptions) -> Result<Written> {
        let (parent_rel, name) = split_parent(rel).ok_or_else(|| Error::IsDirectory { path: given.to_owned() })?;
        let parent = self.parent_dir(given, parent_rel, options.create_dirs)?;
        let existing = match parent.symlink_metadata(name) {
            Ok(meta) if meta.is_dir() => return Err(Error::IsDirectory { path: given.to_owned() }),
            Ok(meta) if meta.is_symlink() => {
                // Resolution saw no link here: the tree changed under us. Never replace a link.
                return Err(Error::Io {
                    op: "write",
                    path: given.to_owned(),
                    source: std::io::Error::other("the path changed to a symlink during the write; retry"),
                });
            }
            Ok(meta) => Some(meta.permissions()),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
            Err(err) => return Err(Error::from_io("write", given, err)),
        };
        if existing.is_some() && options.create_new {
            return Err(Error::Exists { path: given.to_owned() });
        }
        let previous = if existing.is_some() { self.hash_of(given, rel)? } else { None };
        self.check_fresh(given, rel, previous, options)?;
        let sha256 = Sha256::of(bytes);
        stage_and_rename(&parent, name, bytes, existing).map_err(|e| Error::from_io("write", given, e))?;
        self.record(rel, sha256);
        Ok(Written {
            path: rel.to_owned(),
            sha256,
            size: bytes.len() as u64,
            created: previous.is_none(),
            previous_sha256: previous,
        })
    }

    /// The staleness decision, made here only: the hash a read-modify-write of `rel` must find.
    /// An explicit hash is always honoured; otherwise the ledger's (what this workspace last
    /// read or wrote), unless forced.
    pub(crate) fn expected_hash(&self, rel: &str, explicit: Option<Sha256>, force: bool) -> Option<Sha256> {
        match explicit {
            Some(expected) => Some(expected),
            None if force => None,
            None => self.ledger.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(rel).copied(),
        }
    }

    /// The staleness guard of a write (see [`Workspace::expected_hash`]).
    fn check_fresh(&self, given: &str, rel: &str, current: Option<Sha256>, options: &WriteOptions) -> Result<()> {
        match self.expected_hash(rel, options.expected_hash, options.force) {
            Some(expected) if current != Some(expected) => {
                Err(Error::Stale { path: given.to_owned(), expected: Some(expected), current })
            }
            _ => Ok(()),
        }
    }

    /// Opens (creating if asked) the directory `parent_rel` as a handle.
    fn parent_dir(&self, given: &str, parent_rel: &str, create: bool) -> Result<Dir> {
        if parent_rel.is_empty() {
            return self.root.try_clone().map_err(|e| Error::from_io("open", given, e));
        }
        match crate::beneath::dir(&self.root, parent_rel) {
            Ok(dir) => Ok(dir),
            Err(err) if err.kind() == std::io::ErrorKind::NotADirectory => {
                Err(Error::NotADirectory { path: parent_rel.to_owned() })
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound && create => {
                crate::beneath::create_dirs(&self.root, parent_rel)
                    .map_err(|e| Error::from_io("create directory", given, e))?;
                crate::beneath::dir(&self.root, parent_rel).map_err(|e| Error::from_io("open", given, e))
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                Err(Error::NotFound { path: format!("{parent_rel}/") })
            }
            Err(err) => Err(Error::from_io("open", given, err)),
        }
    }

    /// Creates a directory and its missing parents.
    ///
    /// # Errors
    /// Policy errors, [`Error::NotADirectory`] when a file is in the way, [`Error::Io`].
    pub fn create_dir_all(&self, path: &str) -> Result<()> {
        let resolved = self.resolve_inner(path, true)?;
        match resolved.kind {
            Some(EntryKind::Dir) => Ok(()),
            Some(_) => Err(Error::NotADirectory { path: path.to_owned() }),
            None => crate::beneath::create_dirs(&self.root, &resolved.rel)
                .map_err(|e| Error::from_io("create directory", path, e)),
        }
    }

    /// Deletes a file, a directory (recursively) or a symlink (never its target).
    ///
    /// # Errors
    /// Policy errors, [`Error::InvalidPath`] for the root, [`Error::NotFound`], [`Error::Io`].
    pub fn delete(&self, path: &str) -> Result<EntryKind> {
        let resolved = self.resolve_inner(path, false)?;
        let (parent_rel, name) = split_parent(&resolved.rel).ok_or_else(|| Error::InvalidPath {
            path: path.to_owned(),
            reason: "the workspace root cannot be deleted".into(),
        })?;
        let kind = resolved.kind.ok_or_else(|| Error::NotFound { path: path.to_owned() })?;
        let parent = self.parent_dir(path, parent_rel, false)?;
        let meta = parent.symlink_metadata(name).map_err(|e| Error::from_io("delete", path, e))?;
        if meta.is_dir() {
            self.refuse_blocked_inside(path, &parent, name, &resolved.rel)?;
            // Checked again entry by entry as it goes: something blocked moved in meanwhile
            // stops the deletion there.
            let result = self.remove_tree(&parent, name, &resolved.rel, 0);
            self.forget(&resolved.rel);
            result?;
        } else {
            parent.remove_file(name).map_err(|e| Error::from_io("delete", path, e))?;
            self.forget(&resolved.rel);
        }
        Ok(kind)
    }

    /// Refuses to delete or move the directory `name` (in `parent`, canonical `rel`) when
    /// anything below it is blocked: a folder holding `.env` or a key file is not removed
    /// wholesale. Links are not followed.
    fn refuse_blocked_inside(&self, given: &str, parent: &Dir, name: &str, rel: &str) -> Result<()> {
        let dir = crate::beneath::dir(parent, name).map_err(|e| Error::from_io("open directory", given, e))?;
        self.check_tree(given, &dir, rel, 1)
    }

    /// Depth-first, one open directory per level (never more than [`MAX_TREE_DEPTH`]), links
    /// never entered.
    fn check_tree(&self, given: &str, dir: &Dir, rel: &str, depth: usize) -> Result<()> {
        if depth > MAX_TREE_DEPTH {
            return Err(too_deep(given));
        }
        for (name, is_dir) in list_names(given, dir)? {
            let child = format!("{rel}/{name}");
            if let Some(pattern) = self.policy.blocked_by(&child) {
                return Err(Error::Blocked { path: child, pattern: pattern.to_owned() });
            }
            if is_dir {
                let sub = crate::beneath::dir(dir, &name).map_err(|e| Error::from_io("open directory", &child, e))?;
                self.check_tree(given, &sub, &child, depth + 1)?;
            }
        }
        Ok(())
    }

    /// Removes the directory `name` of `parent` (canonical `rel`) and everything in it, entry by
    /// entry through handles that follow no link; a blocked entry found on the way stops it.
    fn remove_tree(&self, parent: &Dir, name: &str, rel: &str, depth: usize) -> Result<()> {
        if depth > MAX_TREE_DEPTH {
            return Err(too_deep(rel));
        }
        let dir = crate::beneath::dir(parent, name).map_err(|e| Error::from_io("open directory", rel, e))?;
        for (child_name, is_dir) in list_names(rel, &dir)? {
            let child = format!("{rel}/{child_name}");
            if let Some(pattern) = self.policy.blocked_by(&child) {
                return Err(Error::Blocked { path: child, pattern: pattern.to_owned() });
            }
            if is_dir {
                self.remove_tree(&dir, &child_name, &child, depth + 1)?;
            } else {
                dir.remove_file(&child_name).map_err(|e| Error::from_io("delete", &child, e))?;
            }
        }
        drop(dir);
        parent.remove_dir(name).map_err(|e| Error::from_io("delete", rel, e))
    }

    /// Renames `from` to `to` within the workspace (a symlink is moved as a link).
    ///
    /// # Errors
    /// Policy errors, [`Error::NotFound`], [`Error::Exists`] when `to` exists and `overwrite`
    /// is false, [`Error::Io`].
    pub fn rename(&self, from: &str, to: &str, overwrite: bool, create_dirs: bool) -> Result<()> {
        let source = self.resolve_inner(from, false)?;
        let target = self.resolve_inner(to, true)?;
        let (from_parent, from_name) = split_parent(&source.rel).ok_or_else(|| Error::InvalidPath {
            path: from.to_owned(),
            reason: "the workspace root cannot be moved".into(),
        })?;
        let (to_parent, to_name) = split_parent(&target.rel).ok_or_else(|| Error::InvalidPath {
            path: to.to_owned(),
            reason: "cannot move onto the workspace root".into(),
        })?;
        if source.kind.is_none() {
            return Err(Error::NotFound { path: from.to_owned() });
        }
        if target.kind.is_some() && !overwrite {
            return Err(Error::Exists { path: to.to_owned() });
        }
        let from_dir = self.parent_dir(from, from_parent, false)?;
        if source.kind == Some(EntryKind::Dir) {
            self.refuse_blocked_inside(from, &from_dir, from_name, &source.rel)?;
        }
        let to_dir = self.parent_dir(to, to_parent, create_dirs)?;
        from_dir.rename(from_name, &to_dir, to_name).map_err(|e| Error::from_io("rename", from, e))?;
        sync_dir(&to_dir);
        if from_parent != to_parent {
            sync_dir(&from_dir);
        }
        let moved = self.ledger.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(&source.rel);
        self.forget(&source.rel);
        if let Some(hash) = moved {
            self.record(&target.rel, hash);
        }
        Ok(())
    }

    /// Whether something exists at `path` (a dangling link inside the root does not count).
    ///
    /// # Errors
    /// Policy errors (a path leading outside is refused, not answered with `false`).
    pub fn exists(&self, path: &str) -> Result<bool> {
        Ok(self.resolve_inner(path, true)?.kind.is_some())
    }

    /// What the directory entry at `path` is, without following a final link (a link is
    /// [`EntryKind::Symlink`], whatever it points to); `None` when there is none.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// use editkit_vfs::EntryKind;
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("real.txt"), "x\n").unwrap();
    /// std::os::unix::fs::symlink("real.txt", dir.path().join("alias.txt")).unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path())?;
    /// assert_eq!(workspace.entry_kind("real.txt")?, Some(EntryKind::File));
    /// assert_eq!(workspace.entry_kind("alias.txt")?, Some(EntryKind::Symlink));
    /// assert_eq!(workspace.entry_kind("none.txt")?, None);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// Policy errors.
    pub fn entry_kind(&self, path: &str) -> Result<Option<EntryKind>> {
        Ok(self.resolve_inner(path, false)?.kind)
    }

    /// What `path` names (following symlinks), and its size in bytes.
    ///
    /// # Errors
    /// Policy errors, [`Error::NotFound`].
    pub fn metadata(&self, path: &str) -> Result<(EntryKind, u64)> {
        let resolved = self.resolve_inner(path, true)?;
        let kind = resolved.kind.ok_or_else(|| Error::NotFound { path: path.to_owned() })?;
        let size = if resolved.rel.is_empty() {
            0
        } else {
            let fd =
                crate::beneath::open(&self.root, &resolved.rel, rustix::fs::OFlags::PATH, rustix::fs::Mode::empty())
                    .map_err(|e| Error::from_io("stat", path, e))?;
            rustix::fs::fstat(&fd).map_err(|e| Error::from_io("stat", path, e.into()))?.st_size.unsigned_abs()
        };
        Ok((kind, size))
    }

    /// Names in a directory, sorted; directories (and links to directories inside the root)
    /// end with `/`. Blocked entries and links leading outside are left out.
    ///
    /// # Errors
    /// Policy errors, [`Error::NotFound`], [`Error::NotADirectory`], [`Error::Io`].
    pub fn list_dir(&self, path: &str) -> Result<Vec<String>> {
        let dir = self.open_dir(path)?;
        let mut names: Vec<String> = dir.entries()?.into_iter().map(|entry| entry.display_name()).collect();
        names.sort();
        Ok(names)
    }

    /// Opens a directory as a handle for walking it entry by entry without leaving the root.
    ///
    /// # Errors
    /// Policy errors, [`Error::NotFound`], [`Error::NotADirectory`], [`Error::Io`].
    pub fn open_dir(&self, path: &str) -> Result<crate::walk::WorkspaceDir<'_>> {
        let resolved = self.resolve_inner(path, true)?;
        match resolved.kind {
            None => return Err(Error::NotFound { path: path.to_owned() }),
            Some(EntryKind::Dir) => {}
            Some(_) => return Err(Error::NotADirectory { path: path.to_owned() }),
        }
        let handle = if resolved.rel.is_empty() {
            self.root.try_clone()
        } else {
            crate::beneath::dir(&self.root, &resolved.rel)
        }
        .map_err(|e| Error::from_io("open directory", path, e))?;
        Ok(crate::walk::WorkspaceDir::new(self, handle, resolved.rel))
    }

    /// Files and directories under `under` whose path relative to `under` matches `pattern`
    /// (`*` does not cross `/`, `**` does). Returns sorted paths relative to the root. Blocked
    /// entries and links leading outside are left out; linked directories are not entered.
    ///
    /// # Errors
    /// [`Error::InvalidPath`] for an absolute pattern, one with `..`, or one that does not
    /// compile; policy errors for `under`.
    pub fn glob(&self, pattern: &str, under: &str) -> Result<Vec<String>> {
        let invalid = |reason: String| Error::InvalidPath { path: pattern.to_owned(), reason };
        if pattern.starts_with('/') || pattern.split('/').any(|part| part == "..") {
            return Err(invalid("glob patterns are relative to the directory and may not contain `..`".into()));
        }
        if pattern.contains('\0') {
            return Err(invalid("contains a NUL byte".into()));
        }
        let matcher = crate::policy::compile_glob(pattern).map_err(|e| invalid(e.to_string()))?.compile_matcher();
        let base = self.open_dir(under)?;
        let base_rel = base.rel().to_owned();
        let mut found = Vec::new();
        base.walk(&mut |entry| {
            let below = entry.rel.strip_prefix(&base_rel).unwrap_or(&entry.rel).trim_start_matches('/');
            if matcher.is_match(below) {
                found.push(entry.rel.clone());
            }
            true
        })?;
        found.sort();
        Ok(found)
    }
}

/// Deepest folder nesting a recursive delete, move or check goes through (one open handle per
/// level).
pub const MAX_TREE_DEPTH: usize = 256;

fn too_deep(given: &str) -> Error {
    Error::TooDeep { path: given.to_owned(), limit: MAX_TREE_DEPTH }
}

/// The names in `dir` with whether each is a real directory (not a link), read in full so the
/// listing's descriptor is closed before the caller descends.
fn list_names(given: &str, dir: &Dir) -> Result<Vec<(String, bool)>> {
    let mut names = Vec::new();
    for entry in dir.entries().map_err(|e| Error::from_io("list", given, e))? {
        let entry = entry.map_err(|e| Error::from_io("list", given, e))?;
        let is_dir = entry.file_type().map_err(|e| Error::from_io("list", given, e))?.is_dir();
        let Ok(name) = entry.file_name().into_string() else {
            return Err(Error::InvalidPath {
                path: format!("{given}/{}", entry.file_name().to_string_lossy()),
                reason: "a name inside is not UTF-8, so the policy cannot judge it; remove it by hand".into(),
            });
        };
        names.push((name, is_dir));
    }
    Ok(names)
}

/// Refuses anything but a regular file, judged on the open handle.
pub(crate) fn check_regular(given: &str, file: &File) -> Result<()> {
    let meta = file.metadata().map_err(|e| Error::from_io("read", given, e))?;
    if meta.is_dir() {
        return Err(Error::IsDirectory { path: given.to_owned() });
    }
    if !meta.is_file() {
        return Err(Error::InvalidPath {
            path: given.to_owned(),
            reason: "not a regular file (a FIFO, socket or device); editkit reads only regular files".into(),
        });
    }
    Ok(())
}

/// Splits a canonical relative path into parent and final name; `None` for the root.
/// The decoded text of bytes read from canonical `rel` (`path` as given, for errors).
fn file_text(path: &str, rel: String, bytes: &[u8], sha256: Sha256) -> Result<FileText> {
    let text = Text::decode(bytes).map_err(|err| Error::from_decode(path, err))?;
    Ok(FileText { path: rel, text, sha256, size: bytes.len() as u64 })
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

/// Writes `bytes` to a fresh temp file in `parent`, fsyncs it, renames it over `name` and
/// fsyncs the directory. The temp file is removed on failure.
pub(crate) fn stage_and_rename(
    parent: &Dir,
    name: &str,
    bytes: &[u8],
    permissions: Option<Permissions>,
) -> std::io::Result<()> {
    let temp = temp_name();
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    let result = (|| {
        let mut file = parent.open_with(&temp, &options)?;
        // The mode first: the new content is never readable more widely than the old.
        if let Some(permissions) = permissions {
            file.set_permissions(permissions)?;
        }
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        parent.rename(&temp, parent, name)
    })();
    if result.is_err() {
        let _ = parent.remove_file(&temp);
    }
    result?;
    sync_dir(parent);
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
