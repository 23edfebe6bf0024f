//! [`CanonicalPath`]: the precondition of every transaction step, as a type.

use std::sync::atomic::{AtomicU64, Ordering};

/// A path that passed resolution and the policy of one workspace: relative to its root, `/`
/// separated, no `.`, `..` or empty component, not blocked. The transaction steps of
/// [`Txn`](crate::Txn) and [`Folders`](crate::Folders) take only this type, so nothing reaches
/// a file that the policy did not allow.
///
/// Only the workspace builds one:
/// - [`Workspace::canonical`](crate::Workspace::canonical) resolves a path as given (the
///   policy checked, links inside the root followed);
/// - [`Workspace::canonical_recorded`](crate::Workspace::canonical_recorded) checks a path this
///   workspace gave out earlier and that came back from a record (a patch journal, the undo
///   history): it must still be canonical and allowed by the policy;
/// - the transaction steps derive an editkit temp file beside one (a staged content, a
///   backup), by a name that must start with `.editkit-`.
///
/// A path belongs to the workspace that built it: a step of another workspace refuses it.
/// Every step follows no link, so a link put on the way after the check is refused, not
/// followed.
///
/// A plain string is not a canonical path, and the unchecked steps are gone:
///
/// ```compile_fail
/// # fn main() -> Result<(), editkit_vfs::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
/// let secrets = workspace.txn().read_unchecked(".env")?;
/// # Ok(()) }
/// ```
///
/// ```compile_fail
/// # fn main() -> Result<(), editkit_vfs::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
/// let secrets = workspace.txn().read(".env")?;
/// # Ok(()) }
/// ```
///
/// ```compile_fail
/// let path = editkit_vfs::CanonicalPath { rel: ".env".to_owned(), owner: 0 };
/// ```
///
/// Nor can a caller write the staleness ledger (only a held [`FileLock`](crate::FileLock) can,
/// for its file):
///
/// ```compile_fail
/// # fn main() -> Result<(), editkit_vfs::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
/// workspace.txn().record("a.txt", None);
/// # Ok(()) }
/// ```
///
/// ```compile_fail
/// let path: editkit_vfs::CanonicalPath = ".env".into();
/// ```
///
/// What compiles is resolution, which refuses:
///
/// ```
/// # fn main() -> Result<(), editkit_vfs::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join(".env"), "TOKEN=1\n").unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
/// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
/// assert_eq!(workspace.canonical(".env").unwrap_err().error_kind(), editkit_vfs::ErrorKind::Blocked);
/// assert_eq!(workspace.canonical_recorded(".env").unwrap_err().error_kind(), editkit_vfs::ErrorKind::Blocked);
/// let a = workspace.canonical("./x/../a.txt")?;
/// assert_eq!(a.as_str(), "a.txt");
/// assert_eq!(workspace.txn().read(&a)?, Some(b"one\n".to_vec()));
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CanonicalPath {
    rel: String,
    owner: u64,
}

/// A number per workspace opened in this process: which workspace built a [`CanonicalPath`].
static NEXT_OWNER: AtomicU64 = AtomicU64::new(1);

/// A fresh owner number for a workspace being opened.
pub(crate) fn new_owner() -> u64 {
    NEXT_OWNER.fetch_add(1, Ordering::Relaxed)
}

impl CanonicalPath {
    /// A path the workspace numbered `owner` checked.
    pub(crate) fn new(rel: String, owner: u64) -> CanonicalPath {
        CanonicalPath { rel, owner }
    }

    /// The number of the workspace that checked it.
    pub(crate) fn owner(&self) -> u64 {
        self.owner
    }

    /// The path, relative to the root (`""` for the root itself).
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.rel
    }

    /// The editkit temp file `name` in this path's folder (a staged content, a backup): `name`
    /// must be a plain file name starting with `.editkit-`, the names editkit keeps for its own
    /// files beside a target.
    ///
    /// # Errors
    /// [`Error::InvalidPath`](crate::Error::InvalidPath) for any other name, or for the root.
    pub(crate) fn sibling(&self, name: &str) -> crate::Result<CanonicalPath> {
        if self.rel.is_empty() {
            return Err(crate::Error::InvalidPath {
                path: self.rel.clone(),
                reason: "names the workspace root".into(),
            });
        }
        if !is_temp_name(name) {
            return Err(crate::Error::InvalidPath { path: name.to_owned(), reason: TEMP_NAME_RULE.into() });
        }
        let rel = match self.rel.rsplit_once('/') {
            Some((parent, _)) => format!("{parent}/{name}"),
            None => name.to_owned(),
        };
        Ok(CanonicalPath { rel, owner: self.owner })
    }
}

/// What [`is_temp_name`] asks of a name.
pub(crate) const TEMP_NAME_RULE: &str = "a temp name must be a plain file name starting with `.editkit-`";

/// Whether `name` is a plain file name starting with `.editkit-`, as temp names must be.
pub(crate) fn is_temp_name(name: &str) -> bool {
    name.starts_with(".editkit-")
        && !name.contains(['/', '\\', '\0'])
        && name.len() <= crate::policy::MAX_COMPONENT_BYTES
}

/// Whether `name` has the shape of the temp and backup names editkit makes beside a target
/// (`.editkit-`, then ASCII letters, digits and `-`, then `.tmp` or `.bak`). Only such a name
/// is judged by its folder, so a user pattern like `*.bak` does not stop a patch half-way; any
/// other name, `.editkit-leak.pem` say, is judged whole like every path.
pub(crate) fn is_made_name(name: &str) -> bool {
    let Some(body) = name.strip_prefix(".editkit-") else { return false };
    let Some(stem) = body.strip_suffix(".tmp").or_else(|| body.strip_suffix(".bak")) else { return false };
    !stem.is_empty() && stem.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'-')
}

impl std::fmt::Display for CanonicalPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.rel)
    }
}

impl PartialEq<&str> for CanonicalPath {
    fn eq(&self, other: &&str) -> bool {
        self.rel == *other
    }
}
