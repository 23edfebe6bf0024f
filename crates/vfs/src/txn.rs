//! Low-level primitives for transactions (the patch crate's two-phase commit): staging new
//! content beside a target, backups by hard link, renames by canonical path, and the state
//! folder for journals.
//!
//! These act on canonical relative paths (from [`Workspace::resolve`] or from a journal this
//! workspace wrote) and skip the blocked-glob check so that editkit can manage its own temp,
//! backup and state files. They still go through the root's directory handle: whatever a path
//! or journal says, nothing outside the root is reachable.

use std::io::{Read, Write};

use cap_std::fs::{Dir, OpenOptions};

use crate::error::{Error, Result};
use crate::workspace::{Workspace, split_parent, temp_name};

/// New content written to a temp file beside its target, fsynced, not yet renamed into place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Staged {
    /// Canonical path of the target.
    pub target: String,
    /// Canonical path of the temp file holding the new content (same directory as the target).
    pub temp: String,
}

impl Workspace {
    /// Writes `bytes` to a fresh temp file in the target's directory (created if missing when
    /// `create_dirs`), copies the target's permission bits if it exists, and fsyncs. Nothing
    /// visible changes until [`Workspace::rename_raw`] moves it over the target.
    ///
    /// # Errors
    /// Policy errors for `path`, [`Error::IsDirectory`], [`Error::NotFound`] for a missing
    /// parent without `create_dirs`, [`Error::Io`].
    pub fn stage(&self, path: &str, bytes: &[u8], create_dirs: bool) -> Result<Staged> {
        self.stage_named(path, &temp_name(), bytes, create_dirs)
    }

    /// As [`Workspace::stage`], with the temp file's name chosen by the caller, so that a
    /// journal written *before* staging can name it (recovery then finds every temp file even
    /// when the process died while staging). `temp_name` must be a plain file name starting
    /// with `.editkit-` (hidden from listings) and must not exist yet.
    ///
    /// # Errors
    /// As [`Workspace::stage`]; [`Error::InvalidPath`] for a name that is not a plain
    /// `.editkit-` file name; [`Error::Exists`] when a file of that name exists.
    pub fn stage_as(&self, path: &str, temp_name: &str, bytes: &[u8], create_dirs: bool) -> Result<Staged> {
        let plain = temp_name.starts_with(".editkit-")
            && !temp_name.contains(['/', '\\', '\0'])
            && temp_name.len() <= crate::policy::MAX_COMPONENT_BYTES;
        if !plain {
            return Err(Error::InvalidPath {
                path: temp_name.to_owned(),
                reason: "a temp name must be a plain file name starting with `.editkit-`".into(),
            });
        }
        self.stage_named(path, temp_name, bytes, create_dirs)
    }

    fn stage_named(&self, path: &str, temp_file: &str, bytes: &[u8], create_dirs: bool) -> Result<Staged> {
        let target = self.resolve(path)?;
        let (parent_rel, name) = split_parent(&target).ok_or_else(|| Error::IsDirectory { path: path.to_owned() })?;
        if create_dirs && !parent_rel.is_empty() {
            self.root_dir().create_dir_all(parent_rel).map_err(|e| Error::from_io("create directory", path, e))?;
        }
        let parent = self.dir_raw(path, parent_rel)?;
        let permissions = match parent.symlink_metadata(name) {
            Ok(meta) if meta.is_dir() => return Err(Error::IsDirectory { path: path.to_owned() }),
            Ok(meta) => Some(meta.permissions()),
            Err(_) => None,
        };
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        let mut created = false;
        let result = (|| {
            let mut file = parent.open_with(temp_file, &options)?;
            created = true;
            // The mode first: the new content is never readable more widely than the old.
            if let Some(permissions) = permissions {
                file.set_permissions(permissions)?;
            }
            file.write_all(bytes)?;
            file.sync_all()
        })();
        if let Err(err) = result {
            // Never remove a file this call did not create (a name collision).
            if created {
                let _ = parent.remove_file(temp_file);
            }
            return Err(Error::from_io("stage", path, err));
        }
        let temp = if parent_rel.is_empty() { temp_file.to_owned() } else { format!("{parent_rel}/{temp_file}") };
        Ok(Staged { target, temp })
    }

    /// Renames canonical `from` to canonical `to` (replacing `to`), then fsyncs the directory.
    ///
    /// # Errors
    /// [`Error::NotFound`], [`Error::Io`]; [`Error::OutsideWorkspace`] if a component was
    /// swapped for a link leading out.
    pub fn rename_raw(&self, from: &str, to: &str) -> Result<()> {
        let (from_parent, from_name) = split_parent(from).ok_or_else(|| root_refused(from))?;
        let (to_parent, to_name) = split_parent(to).ok_or_else(|| root_refused(to))?;
        let from_dir = self.dir_raw(from, from_parent)?;
        let to_dir =
            if from_parent == to_parent { from_dir.try_clone() } else { self.root_dir().open_dir_or_root(to_parent) }
                .map_err(|e| Error::from_io("rename", to, e))?;
        from_dir.rename(from_name, &to_dir, to_name).map_err(|e| Error::from_io("rename", from, e))?;
        sync(&to_dir);
        if from_parent != to_parent {
            sync(&from_dir);
        }
        Ok(())
    }

    /// Makes `backup` (canonical) a hard link to the file at canonical `original`, so the
    /// original content survives a later rename over `original`.
    ///
    /// # Errors
    /// [`Error::NotFound`], [`Error::Exists`], [`Error::Io`].
    pub fn hard_link_raw(&self, original: &str, backup: &str) -> Result<()> {
        let (backup_parent, _) = split_parent(backup).ok_or_else(|| root_refused(backup))?;
        if !backup_parent.is_empty() {
            self.root_dir().create_dir_all(backup_parent).map_err(|e| Error::from_io("link", backup, e))?;
        }
        self.root_dir().hard_link(original, self.root_dir(), backup).map_err(|e| Error::from_io("link", original, e))
    }

    /// Removes the file (or empty directory) at canonical `path`; a missing one is not an
    /// error.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn remove_raw(&self, path: &str) -> Result<()> {
        let root = self.root_dir();
        let result = match root.symlink_metadata(path) {
            Ok(meta) if meta.is_dir() => root.remove_dir(path),
            Ok(_) => root.remove_file(path),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(err) => Err(err),
        };
        match result {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => Err(Error::from_io("remove", path, err)),
            _ => Ok(()),
        }
    }

    /// Gives the file at canonical `to` the permission bits of the file at canonical `from`
    /// (a file moved by writing its new content under the new name keeps its mode).
    ///
    /// # Errors
    /// [`Error::NotFound`], [`Error::Io`].
    pub fn copy_permissions_raw(&self, from: &str, to: &str) -> Result<()> {
        let permissions = self.root_dir().metadata(from).map_err(|e| Error::from_io("stat", from, e))?.permissions();
        self.root_dir().set_permissions(to, permissions).map_err(|e| Error::from_io("set permissions", to, e))
    }

    /// Makes the entries of the directory at canonical `dir` (`""` for the root) durable:
    /// hard links and folders created in it survive a power loss once this returns.
    ///
    /// # Errors
    /// [`Error::Io`] when the directory cannot be opened.
    pub fn sync_dir_raw(&self, dir: &str) -> Result<()> {
        sync(&self.dir_raw(dir, dir)?);
        Ok(())
    }

    /// Whether a directory entry exists at canonical `path`, without following a final link
    /// (a backup of a deleted symlink is the link itself).
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn entry_exists_raw(&self, path: &str) -> Result<bool> {
        match self.root_dir().symlink_metadata(path) {
            Ok(_) => Ok(true),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(err) => Err(Error::from_io("stat", path, err)),
        }
    }

    /// Reads the file at canonical `path` without policy checks or ledger (for recovery);
    /// `None` when it does not exist.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn read_raw_bytes(&self, path: &str) -> Result<Option<Vec<u8>>> {
        match self.root_dir().open(path) {
            Ok(mut file) => {
                let mut bytes = Vec::new();
                file.read_to_end(&mut bytes).map_err(|e| Error::from_io("read", path, e))?;
                Ok(Some(bytes))
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(Error::from_io("read", path, err)),
        }
    }

    /// Records `sha256` as the ledger's hash of canonical `path` (after a transaction wrote
    /// it), or forgets the path with `None` (after it was deleted or moved away).
    pub fn record_raw(&self, path: &str, sha256: Option<&str>) {
        match sha256 {
            Some(sha256) => self.record(path, sha256),
            None => self.forget(path),
        }
    }

    /// Writes `bytes` atomically to `name` under the state folder (e.g. `journal/1.json`).
    ///
    /// # Errors
    /// [`Error::InvalidPath`] for a name with `..` or an absolute name, [`Error::Io`].
    pub fn state_write(&self, name: &str, bytes: &[u8]) -> Result<()> {
        let rel = self.state_rel(name)?;
        let (parent_rel, file_name) = split_parent(&rel).ok_or_else(|| root_refused(name))?;
        self.root_dir().create_dir_all(parent_rel).map_err(|e| Error::from_io("write", name, e))?;
        let parent = self.dir_raw(name, parent_rel)?;
        let gitignore = format!("{}/.gitignore", self.state_dir());
        if !self.root_dir().exists(&gitignore) {
            let _ = self.root_dir().write(&gitignore, b"*\n");
        }
        crate::workspace::stage_and_rename(&parent, file_name, bytes, None)
            .map_err(|e| Error::from_io("write", name, e))
    }

    /// Reads `name` under the state folder; `None` when it does not exist.
    ///
    /// # Errors
    /// As [`Workspace::state_write`].
    pub fn state_read(&self, name: &str) -> Result<Option<Vec<u8>>> {
        let rel = self.state_rel(name)?;
        self.read_raw_bytes(&rel)
    }

    /// Removes `name` under the state folder; a missing one is not an error.
    ///
    /// # Errors
    /// As [`Workspace::state_write`].
    pub fn state_remove(&self, name: &str) -> Result<()> {
        let rel = self.state_rel(name)?;
        self.remove_raw(&rel)
    }

    /// Sorted file names in the folder `dir` under the state folder (empty when missing).
    ///
    /// # Errors
    /// As [`Workspace::state_write`].
    pub fn state_list(&self, dir: &str) -> Result<Vec<String>> {
        let rel = self.state_rel(dir)?;
        let entries = match self.root_dir().read_dir(&rel) {
            Ok(entries) => entries,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(err) => return Err(Error::from_io("list", dir, err)),
        };
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::from_io("list", dir, e))?;
            if let Ok(name) = entry.file_name().into_string() {
                names.push(name);
            }
        }
        names.sort();
        Ok(names)
    }

    /// The canonical path of `name` under the state folder.
    ///
    /// # Errors
    /// [`Error::InvalidPath`] for an empty name, an absolute one or one with `.`/`..`.
    pub fn state_rel(&self, name: &str) -> Result<String> {
        let ok = !name.is_empty()
            && !name.starts_with('/')
            && !name.contains('\0')
            && name.split('/').all(|part| !part.is_empty() && part != "." && part != "..");
        if !ok {
            return Err(Error::InvalidPath {
                path: name.to_owned(),
                reason: "not a plain name under the state folder".into(),
            });
        }
        Ok(format!("{}/{name}", self.state_dir()))
    }

    fn dir_raw(&self, given: &str, rel: &str) -> Result<Dir> {
        self.root_dir().open_dir_or_root(rel).map_err(|e| Error::from_io("open directory", given, e))
    }
}

fn root_refused(path: &str) -> Error {
    Error::InvalidPath { path: path.to_owned(), reason: "names the workspace root".into() }
}

fn sync(dir: &Dir) {
    crate::workspace::sync_dir(dir);
}

trait OpenDirOrRoot {
    fn open_dir_or_root(&self, rel: &str) -> std::io::Result<Dir>;
}

impl OpenDirOrRoot for Dir {
    fn open_dir_or_root(&self, rel: &str) -> std::io::Result<Dir> {
        if rel.is_empty() { self.try_clone() } else { self.open_dir(rel) }
    }
}
