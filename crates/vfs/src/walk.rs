//! Directory handles for walking the tree without ever leaving the root.

use cap_std::fs::{Dir, File};
use rustix::fs::{AtFlags, FileType, Mode, OFlags};

use crate::error::{Error, Result};
use crate::workspace::{EntryKind, Workspace};

/// One entry of a directory inside the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The entry's name.
    pub name: String,
    /// Its path relative to the root (through the directory, not the link's target).
    pub rel: String,
    /// What it is; for a symlink, what its target is (the link stays inside the root).
    /// `None` for a dangling link.
    pub kind: Option<EntryKind>,
    /// Whether the entry is a symlink.
    pub symlink: bool,
}

impl Entry {
    /// The name, with `/` appended for directories.
    #[must_use]
    pub(crate) fn display_name(&self) -> String {
        match self.kind {
            Some(EntryKind::Dir) => format!("{}/", self.name),
            _ => self.name.clone(),
        }
    }
}

/// An entry a listing leaves out, from [`WorkspaceDir::entries_with_skipped`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedEntry {
    /// The entry's name (converted lossily when it is not UTF-8).
    pub name: String,
    /// Its path relative to the root, through the directory.
    pub rel: String,
    /// Whether the entry is a symlink.
    pub symlink: bool,
    /// Why it is left out.
    pub reason: SkipReason,
}

/// Why an entry is left out of a listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkipReason {
    /// The entry, or the target of a link, matches a blocked pattern of the policy.
    Blocked,
    /// A symlink that leads outside the workspace root.
    OutsideWorkspace,
    /// A symlink loop, or a chain of links too long to follow.
    SymlinkLoop,
    /// A symlink that cannot be resolved for another reason (a malformed or unreadable target).
    Unresolvable,
    /// The name is not valid UTF-8, so no editkit path can name it.
    NonUtf8Name,
}

/// An open directory inside the workspace. Sub-directories and files are opened relative to
/// this handle, so a directory swapped for a link to the outside after it was opened is never
/// entered.
#[derive(Debug)]
pub struct WorkspaceDir<'ws> {
    workspace: &'ws Workspace,
    dir: Dir,
    rel: String,
}

impl<'ws> WorkspaceDir<'ws> {
    pub(crate) fn new(workspace: &'ws Workspace, dir: Dir, rel: String) -> Self {
        WorkspaceDir { workspace, dir, rel }
    }

    /// The directory's canonical path relative to the root (`""` for the root).
    #[must_use]
    pub fn rel(&self) -> &str {
        &self.rel
    }

    fn child_rel(&self, name: &str) -> String {
        if self.rel.is_empty() { name.to_owned() } else { format!("{}/{name}", self.rel) }
    }

    /// The directory's entries in no particular order. Blocked entries, names that are not
    /// UTF-8, editkit's temp and backup files (`.editkit-*`) and symlinks that lead outside the root are left out.
    ///
    /// # Errors
    /// [`Error::Io`] when the directory cannot be read.
    pub(crate) fn entries(&self) -> Result<Vec<Entry>> {
        self.scan(None)
    }

    /// The directory's entries in no particular order, plus the entries left out, each with
    /// the reason: blocked entries, symlinks that lead outside the root (or loop, or cannot be
    /// resolved) and names that are not UTF-8. Tools that report what they skipped (search) use this.
    /// editkit's own temp and backup files (`.editkit-*`) are in neither list.
    ///
    /// # Errors
    /// [`Error::Io`] when the directory cannot be read.
    pub fn entries_with_skipped(&self) -> Result<(Vec<Entry>, Vec<SkippedEntry>)> {
        let mut skipped = Vec::new();
        let entries = self.scan(Some(&mut skipped))?;
        Ok((entries, skipped))
    }

    /// Lists the directory; when `skipped` is given, the entries left out are pushed to it.
    fn scan(&self, skipped: Option<&mut Vec<SkippedEntry>>) -> Result<Vec<Entry>> {
        let mut out = Vec::new();
        match skipped {
            Some(list) => self.scan_each(Some(&mut |entry| list.push(entry)), |entry| out.push(entry))?,
            None => self.scan_each(None, |entry| out.push(entry))?,
        }
        Ok(out)
    }

    /// Hands each entry of the directory to `visit` as it is read, holding none of them, and
    /// each entry left out to `skipped` when given.
    fn scan_each(&self, mut skipped: Option<&mut dyn FnMut(SkippedEntry)>, mut visit: impl FnMut(Entry)) -> Result<()> {
        let io = |e| Error::from_io("list", &self.rel, e);
        let mut skip = |name: String, symlink: bool, reason: SkipReason| {
            if let Some(skipped) = skipped.as_deref_mut() {
                let rel = self.child_rel(&name);
                skipped(SkippedEntry { name, rel, symlink, reason });
            }
        };
        // The entries are read through one fresh descriptor of the directory, opened for
        // reading (the handle itself may be `O_PATH`; cap-std's `entries` opens two), with each
        // entry's type from `getdents` where the file system knows it.
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NOFOLLOW;
        let fd = rustix::fs::openat(&self.dir, ".", flags, Mode::empty()).map_err(|errno| io(errno.into()))?;
        let mut reader = rustix::fs::Dir::new(fd).map_err(|errno| io(errno.into()))?;
        while let Some(entry) = reader.read() {
            let entry = entry.map_err(|errno| io(errno.into()))?;
            let raw = entry.file_name().to_bytes();
            if raw == b"." || raw == b".." {
                continue;
            }
            let file_type = match entry.file_type() {
                FileType::Unknown => rustix::fs::statat(&self.dir, entry.file_name(), AtFlags::SYMLINK_NOFOLLOW)
                    .map(|stat| FileType::from_raw_mode(stat.st_mode))
                    .map_err(|errno| io(errno.into())),
                known => Ok(known),
            };
            let name = match std::str::from_utf8(raw) {
                Ok(name) => name.to_owned(),
                Err(_) => {
                    let symlink = file_type.is_ok_and(|t| t == FileType::Symlink);
                    skip(String::from_utf8_lossy(raw).into_owned(), symlink, SkipReason::NonUtf8Name);
                    continue;
                }
            };
            if name.starts_with(".editkit-") {
                continue;
            }
            let rel = self.child_rel(&name);
            // This directory passed the policy when it was opened, so the entry alone is checked.
            if self.workspace.is_blocked_exact(&rel) {
                let symlink = file_type.is_ok_and(|t| t == FileType::Symlink);
                skip(name, symlink, SkipReason::Blocked);
                continue;
            }
            let file_type = file_type?;
            let (kind, symlink) = if file_type == FileType::Symlink {
                match self.workspace.resolve_inner(&rel, true) {
                    Ok(resolved) => (resolved.kind, true),
                    Err(err) => {
                        let reason = match err {
                            Error::OutsideWorkspace { .. } => SkipReason::OutsideWorkspace,
                            Error::SymlinkLoop { .. } => SkipReason::SymlinkLoop,
                            Error::Blocked { .. } => SkipReason::Blocked,
                            _ => SkipReason::Unresolvable,
                        };
                        skip(name, true, reason);
                        continue;
                    }
                }
            } else if file_type == FileType::Directory {
                (Some(EntryKind::Dir), false)
            } else if file_type == FileType::RegularFile {
                (Some(EntryKind::File), false)
            } else {
                (Some(EntryKind::Other), false)
            };
            visit(Entry { name, rel, kind, symlink });
        }
        Ok(())
    }

    /// Opens the sub-directory `name` relative to this handle.
    ///
    /// # Errors
    /// [`Error::OutsideWorkspace`] if it became a link leading out, [`Error::Blocked`],
    /// [`Error::NotFound`], [`Error::Io`].
    pub fn open_subdir(&self, name: &str) -> Result<WorkspaceDir<'ws>> {
        let rel = self.child_rel(name);
        check_name(name, &rel)?;
        // Keeps the walk's invariant: every directory handle passed the policy.
        if self.workspace.is_blocked_exact(&rel) {
            return Err(Error::Blocked { path: rel, pattern: "(workspace policy)".into() });
        }
        // Opened without following a link first: the common case is one open. Only a link
        // (`ELOOP`, or `ENOTDIR` as `O_DIRECTORY` reports one) is resolved through the policy
        // and opened at the place it leads to, after the policy has judged that place (a link
        // to `.git` is blocked like `.git`).
        match crate::beneath::dir(&self.dir, name) {
            Err(err)
                if crate::beneath::is_swapped(&err)
                    || err.raw_os_error() == Some(rustix::io::Errno::NOTDIR.raw_os_error()) =>
            {
                let Some(canonical) = self.link_target(name, &rel)? else {
                    return Err(Error::from_io("open directory", &rel, err));
                };
                let dir = crate::beneath::dir(self.workspace.root_dir(), &canonical)
                    .map_err(|e| Error::from_io("open directory", &rel, e))?;
                Ok(WorkspaceDir { workspace: self.workspace, dir, rel: canonical })
            }
            Err(err) => Err(Error::from_io("open directory", &rel, err)),
            Ok(dir) => Ok(WorkspaceDir { workspace: self.workspace, dir, rel }),
        }
    }

    /// For a symlink entry, the canonical path it leads to, checked by the policy (blocked
    /// targets and links leading out are refused); `None` for anything else.
    fn link_target(&self, name: &str, rel: &str) -> Result<Option<String>> {
        match self.dir.symlink_metadata(name) {
            Ok(meta) if meta.file_type().is_symlink() => Ok(Some(self.workspace.resolve_inner(rel, true)?.rel)),
            Ok(_) => Ok(None),
            Err(err) => Err(Error::from_io("open", rel, err)),
        }
    }

    /// Opens the file `name` for reading, relative to this handle.
    ///
    /// # Errors
    /// [`Error::OutsideWorkspace`] if it is a link leading out, [`Error::Blocked`],
    /// [`Error::NotFound`], [`Error::Io`].
    pub(crate) fn open_file(&self, name: &str) -> Result<File> {
        Ok(self.open_file_sized(name)?.0)
    }

    /// Opens the file `name` for reading, relative to this handle, and gives its size, from the
    /// one `fstat` that checks it is a regular file (a search bounds file sizes with no second
    /// stat).
    ///
    /// # Errors
    /// [`Error::OutsideWorkspace`] if it is a link leading out, [`Error::Blocked`],
    /// [`Error::NotFound`], [`Error::Io`].
    pub fn open_file_sized(&self, name: &str) -> Result<(File, u64)> {
        let rel = self.child_rel(name);
        check_name(name, &rel)?;
        if self.workspace.is_blocked_exact(&rel) {
            return Err(Error::Blocked { path: rel, pattern: "(workspace policy)".into() });
        }
        // The common case in one open that follows no link; only a link (`ELOOP`: one is
        // there, or was swapped in) is resolved through the policy, which keeps it inside and
        // away from blocked paths, and opened at its canonical path.
        let mut canonical = None;
        let file = match crate::beneath::file(&self.dir, name) {
            Err(err) if crate::beneath::is_swapped(&err) => match self.link_target(name, &rel)? {
                Some(target) => crate::beneath::file(self.workspace.root_dir(), canonical.insert(target)),
                None => Err(err),
            },
            opened => opened,
        }
        .map_err(|e| Error::from_io("read", &rel, e))?;
        let stat = crate::atomic::regular_stat(&rel, &file)?;
        self.workspace.check_links(&rel, canonical.as_deref().unwrap_or(&rel), stat.st_nlink)?;
        Ok((file, u64::try_from(stat.st_size).unwrap_or(0)))
    }

    /// Reads the bytes of the file `name` (up to the workspace's read limit).
    ///
    /// # Errors
    /// As [`WorkspaceDir::open_file_sized`], plus [`Error::TooLarge`].
    pub fn read(&self, name: &str) -> Result<Vec<u8>> {
        use std::io::Read;
        let rel = self.child_rel(name);
        let file = self.open_file(name)?;
        let limit = self.workspace.max_read_bytes();
        let mut bytes = Vec::new();
        file.take(limit + 1).read_to_end(&mut bytes).map_err(|e| Error::from_io("read", &rel, e))?;
        if bytes.len() as u64 > limit {
            return Err(Error::TooLarge { path: rel, size: bytes.len() as u64, limit });
        }
        Ok(bytes)
    }

    /// Depth-first walk below this directory. `visit` sees each entry and returns whether to
    /// enter it (when it is a real directory; linked directories are never entered, so a link
    /// loop cannot trap the walk). Unreadable sub-directories are skipped.
    ///
    /// # Errors
    /// [`Error::Io`] when this directory itself cannot be read.
    pub fn walk(&self, visit: &mut dyn FnMut(&Entry) -> bool) -> Result<()> {
        let mut entries = self.entries()?;
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        for entry in entries {
            let enter = visit(&entry);
            if enter
                && entry.kind == Some(EntryKind::Dir)
                && !entry.symlink
                && let Ok(sub) = self.open_subdir(&entry.name)
            {
                let _ = sub.walk(visit);
            }
        }
        Ok(())
    }
}

fn check_name(name: &str, rel: &str) -> Result<()> {
    if name.is_empty() || name == "." || name == ".." || name.contains('/') || name.contains('\0') {
        return Err(Error::InvalidPath { path: rel.to_owned(), reason: "not a single path component".into() });
    }
    Ok(())
}

impl Workspace {
    /// Names in a directory, sorted; directories (and links to directories inside the root)
    /// end with `/`. Blocked entries and links leading outside are left out.
    ///
    /// # Errors
    /// Policy errors, [`Error::NotFound`], [`Error::NotADirectory`], [`Error::Io`].
    pub fn list_dir(&self, path: &str) -> Result<Vec<String>> {
        Ok(self.list_dir_first(path, usize::MAX)?.0)
    }

    /// The first `limit` names of [`Workspace::list_dir`] in its order, and how many names the
    /// directory holds in all. It holds at most `limit` names at a time, however large the
    /// directory.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// for name in ["c.txt", "a.txt", "b.txt"] {
    ///     std::fs::write(dir.path().join(name), "").unwrap();
    /// }
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// assert_eq!(workspace.list_dir_first("", 2)?, (vec!["a.txt".to_owned(), "b.txt".to_owned()], 3));
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`Workspace::list_dir`].
    pub fn list_dir_first(&self, path: &str, limit: usize) -> Result<(Vec<String>, usize)> {
        let (names, total, _) = self.list_dir_counted(path, limit)?;
        Ok((names, total))
    }

    /// [`Workspace::list_dir_first`], also counting the entries whose names are not UTF-8
    /// (no path can name them, so they are left out, never shown mangled).
    ///
    /// # Errors
    /// As [`Workspace::list_dir`].
    pub fn list_dir_counted(&self, path: &str, limit: usize) -> Result<(Vec<String>, usize, usize)> {
        let dir = self.open_dir(path)?;
        // A max-heap of the smallest names seen: the largest leaves when one more comes in.
        let mut kept = std::collections::BinaryHeap::new();
        let mut total = 0;
        let mut unnamed = 0;
        let mut count_unnamed = |entry: SkippedEntry| {
            if entry.reason == SkipReason::NonUtf8Name {
                unnamed += 1;
            }
        };
        dir.scan_each(Some(&mut count_unnamed), |entry| {
            total += 1;
            kept.push(entry.display_name());
            if kept.len() > limit {
                kept.pop();
            }
        })?;
        Ok((kept.into_sorted_vec(), total, unnamed))
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
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::{SkipReason, SkippedEntry};
    use crate::Workspace;

    #[test]
    fn entries_with_skipped_reports_what_entries_leaves_out() {
        let base = tempfile::tempdir().unwrap();
        let root = base.path().join("root");
        let outside = base.path().join("outside");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(root.join("a.txt"), "a").unwrap();
        std::fs::write(root.join(".env"), "SECRET=1").unwrap();
        std::fs::write(root.join(".editkit-tmp-1"), "temp").unwrap();
        symlink(&outside, root.join("out")).unwrap();
        symlink("loop", root.join("loop")).unwrap();
        symlink("a.txt", root.join("inside")).unwrap();
        let workspace = Workspace::open(&root, crate::ambient_authority()).unwrap();
        let dir = workspace.open_dir("").unwrap();
        let (mut entries, mut skipped) = dir.entries_with_skipped().unwrap();
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        skipped.sort_by(|a, b| a.name.cmp(&b.name));
        let mut plain = dir.entries().unwrap();
        plain.sort_by(|a, b| a.name.cmp(&b.name));
        assert_eq!(entries, plain);
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["a.txt", "inside"]);
        let entry = |name: &str, symlink: bool, reason: SkipReason| SkippedEntry {
            name: name.into(),
            rel: name.into(),
            symlink,
            reason,
        };
        assert_eq!(
            skipped,
            [
                entry(".env", false, SkipReason::Blocked),
                entry(".git", false, SkipReason::Blocked),
                entry("loop", true, SkipReason::SymlinkLoop),
                entry("out", true, SkipReason::OutsideWorkspace),
            ]
        );
    }

    #[test]
    fn skipped_paths_are_relative_to_the_root() {
        let base = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(base.path().join("sub")).unwrap();
        symlink("/", base.path().join("sub/up")).unwrap();
        let workspace = Workspace::open(base.path(), crate::ambient_authority()).unwrap();
        let (entries, skipped) = workspace.open_dir("sub").unwrap().entries_with_skipped().unwrap();
        assert!(entries.is_empty());
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0].rel, "sub/up");
        assert_eq!(skipped[0].reason, SkipReason::OutsideWorkspace);
    }
}
