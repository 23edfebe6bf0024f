//! Path resolution: a path as given becomes a canonical path relative to the root, judged by
//! the policy component by component, with links followed inside the root only.

use std::collections::VecDeque;
use std::path::Path;

use crate::canonical::CanonicalPath;
use crate::error::{Error, Result};
use crate::policy::MAX_LINK_FOLLOWS;
use crate::workspace::{EntryKind, Workspace};

/// Where resolution ended: the canonical path and what is there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resolved {
    /// Canonical relative path, no symlinks, `""` for the root.
    pub(crate) rel: String,
    /// What exists there, `None` when nothing does.
    pub(crate) kind: Option<EntryKind>,
}

impl Workspace {
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
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
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

    /// Resolves `path` like [`Workspace::resolve`], as the [`CanonicalPath`] the transaction
    /// steps of [`Workspace::txn`] take.
    ///
    /// # Errors
    /// As [`Workspace::resolve`].
    pub fn canonical(&self, path: &str) -> Result<CanonicalPath> {
        Ok(CanonicalPath::new(self.resolve_inner(path, true)?.rel, self.owner))
    }

    /// Checks a canonical path this workspace gave out earlier and that comes back from a
    /// record (a patch journal, the undo history, a plan): the same path check and policy as
    /// resolution, without looking at the disk. It must already be canonical (what
    /// [`Workspace::resolve`] returns: no `.`, `..`, empty component or absolute form) and
    /// allowed by the policy; a temp or backup name of the shape editkit makes
    /// (`.editkit-…-1.tmp`, `.bak`) is judged by its folder, as the transaction
    /// steps make it beside a file, any other name whole. Links are not looked at:
    /// every step on a canonical path follows none, so a link put on its way is refused when
    /// the step runs.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// assert_eq!(workspace.canonical_recorded("src/a.txt")?.as_str(), "src/a.txt");
    /// assert_eq!(workspace.canonical_recorded("src/.editkit-1.tmp")?.as_str(), "src/.editkit-1.tmp");
    /// assert_eq!(workspace.canonical_recorded("src/../a.txt").unwrap_err().error_kind(), editkit_vfs::ErrorKind::InvalidArgs);
    /// assert_eq!(workspace.canonical_recorded("../a.txt").unwrap_err().error_kind(), editkit_vfs::ErrorKind::OutsideWorkspace);
    /// assert_eq!(workspace.canonical_recorded(".git/config").unwrap_err().error_kind(), editkit_vfs::ErrorKind::Blocked);
    /// assert_eq!(workspace.canonical_recorded(".git/.editkit-1.tmp").unwrap_err().error_kind(), editkit_vfs::ErrorKind::Blocked);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidPath`] for a path that is not canonical, [`Error::OutsideWorkspace`],
    /// [`Error::Blocked`].
    pub fn canonical_recorded(&self, path: &str) -> Result<CanonicalPath> {
        let lexical = self.policy.normalise(path)?;
        if lexical != path {
            return Err(Error::InvalidPath {
                path: path.to_owned(),
                reason: format!("not a canonical path (`{lexical}` is); resolve it again"),
            });
        }
        // A temp or backup name editkit makes is judged by its folder; any other name whole (a
        // blocked file may be named `.editkit-x.pem`).
        let judged = match lexical.rsplit_once('/') {
            Some((parent, name)) if crate::canonical::is_made_name(name) => parent,
            None if crate::canonical::is_made_name(&lexical) => "",
            _ => &lexical,
        };
        self.check_blocked(path, judged)?;
        Ok(CanonicalPath::new(lexical, self.owner))
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
        if let Some(resolved) = self.resolve_direct(lexical, follow_last) {
            return Ok(resolved);
        }
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

    /// The common case in one open: a path with no link on the way resolves to itself. One
    /// `O_PATH` open that follows no link (the last component included) and one `fstat` on
    /// its handle replace a `statx` and an open per component. Anything else (a link on the
    /// way, a missing component, a kernel error) is left to the component walk, which gives
    /// the same answer for a path with no link and judges every other one.
    fn resolve_direct(&self, lexical: &str, follow_last: bool) -> Option<Resolved> {
        if lexical.is_empty() || lexical.split('/').any(|part| matches!(part, "" | "." | "..")) {
            return None;
        }
        let fd = crate::beneath::open(&self.root, lexical, rustix::fs::OFlags::PATH, rustix::fs::Mode::empty()).ok()?;
        let stat = rustix::fs::fstat(&fd).ok()?;
        let kind = match rustix::fs::FileType::from_raw_mode(stat.st_mode) {
            rustix::fs::FileType::Symlink if follow_last => return None,
            rustix::fs::FileType::Symlink => EntryKind::Symlink,
            rustix::fs::FileType::Directory => EntryKind::Dir,
            rustix::fs::FileType::RegularFile => EntryKind::File,
            _ => EntryKind::Other,
        };
        Some(Resolved { rel: lexical.to_owned(), kind: Some(kind) })
    }
}
