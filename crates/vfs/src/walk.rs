//! Directory handles for walking the tree without ever leaving the root.

use cap_std::fs::{Dir, File};

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
    pub fn display_name(&self) -> String {
        match self.kind {
            Some(EntryKind::Dir) => format!("{}/", self.name),
            _ => self.name.clone(),
        }
    }
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
    pub fn entries(&self) -> Result<Vec<Entry>> {
        let io = |e| Error::from_io("list", &self.rel, e);
        let mut out = Vec::new();
        for entry in self.dir.entries().map_err(io)? {
            let entry = entry.map_err(io)?;
            let Ok(name) = entry.file_name().into_string() else { continue };
            if name.starts_with(".editkit-") {
                continue;
            }
            let rel = self.child_rel(&name);
            if self.workspace.is_blocked(&rel) {
                continue;
            }
            let file_type = entry.file_type().map_err(io)?;
            let (kind, symlink) = if file_type.is_symlink() {
                match self.workspace.resolve_inner(&rel, true) {
                    Ok(resolved) => (resolved.kind, true),
                    Err(_) => continue,
                }
            } else if file_type.is_dir() {
                (Some(EntryKind::Dir), false)
            } else if file_type.is_file() {
                (Some(EntryKind::File), false)
            } else {
                (Some(EntryKind::Other), false)
            };
            out.push(Entry { name, rel, kind, symlink });
        }
        Ok(out)
    }

    /// Opens the sub-directory `name` relative to this handle.
    ///
    /// # Errors
    /// [`Error::OutsideWorkspace`] if it became a link leading out, [`Error::NotFound`],
    /// [`Error::Io`].
    pub fn open_subdir(&self, name: &str) -> Result<WorkspaceDir<'ws>> {
        let rel = self.child_rel(name);
        check_name(name, &rel)?;
        let dir = self.dir.open_dir(name).map_err(|e| Error::from_io("open directory", &rel, e))?;
        Ok(WorkspaceDir { workspace: self.workspace, dir, rel })
    }

    /// Opens the file `name` for reading, relative to this handle.
    ///
    /// # Errors
    /// [`Error::OutsideWorkspace`] if it is a link leading out, [`Error::Blocked`],
    /// [`Error::NotFound`], [`Error::Io`].
    pub fn open_file(&self, name: &str) -> Result<File> {
        let rel = self.child_rel(name);
        check_name(name, &rel)?;
        if self.workspace.is_blocked(&rel) {
            return Err(Error::Blocked { path: rel, pattern: "(workspace policy)".into() });
        }
        self.dir.open(name).map_err(|e| Error::from_io("read", &rel, e))
    }

    /// Reads the bytes of the file `name` (up to the workspace's read limit).
    ///
    /// # Errors
    /// As [`WorkspaceDir::open_file`], plus [`Error::TooLarge`].
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
