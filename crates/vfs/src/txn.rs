//! Low-level primitives for transactions (the patch crate's two-phase commit, the facade's
//! undo history): staging new content beside a target, backups by hard link, renames by
//! canonical path, and the state folder for journals, all behind [`Workspace::txn`].
//!
//! The steps act on [`CanonicalPath`]s, which only resolution and the policy build (see
//! [`Workspace::canonical`] and [`Workspace::canonical_recorded`]), so they need not check the
//! policy again; they go through the root's directory handle and follow no link on the way, so
//! nothing outside the root, and nothing a link points to, is reachable. The `state_*`
//! operations act on the state folder, which is outside the workspace.

use std::io::{Read, Write};

use cap_std::fs::{Dir, OpenOptions};

use crate::atomic::split_parent;
use crate::canonical::{CanonicalPath, is_temp_name};
use crate::error::{Error, Result};
use crate::sync::LockExt;
use crate::workspace::Workspace;

/// New content written to a temp file beside its target, fsynced, not yet renamed into place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Staged {
    /// Canonical path of the target.
    pub target: CanonicalPath,
    /// Canonical path of the temp file holding the new content (same directory as the target).
    pub temp: CanonicalPath,
}

/// The transaction primitives of a workspace ([`Workspace::txn`]). The steps on workspace
/// files take [`CanonicalPath`]s, which passed resolution and the policy; they stay beneath the
/// root and follow no link; `state_*` act on the state folder, outside the workspace, by names
/// checked to stay in it.
#[derive(Debug, Clone, Copy)]
pub struct Txn<'ws> {
    ws: &'ws Workspace,
}

impl Workspace {
    /// The transaction primitives: staging, renames, removals and reads by [`CanonicalPath`],
    /// and the state folder. For the patch crate's commit and recovery and the facade's
    /// undo history; every other caller wants [`Workspace::write`], [`Workspace::delete`] and
    /// friends, which check the policy.
    #[must_use]
    pub fn txn(&self) -> Txn<'_> {
        Txn { ws: self }
    }
}

impl Txn<'_> {
    /// Writes `bytes` to a fresh temp file in the target's directory (created if missing when
    /// `create_dirs`), copies the target's permission bits if it exists, and fsyncs it (unless the
    /// durability is [`crate::Durability::Atomic`]). Nothing
    /// visible changes until [`Txn::rename`] moves it over the target.
    ///
    /// # Errors
    /// Policy errors for `path`, [`Error::IsDirectory`], [`Error::NotFound`] for a missing
    /// parent without `create_dirs`, [`Error::Io`].
    #[cfg(test)]
    pub(crate) fn stage(&self, path: &str, bytes: &[u8], create_dirs: bool) -> Result<Staged> {
        self.stage_named(path, &crate::atomic::temp_name(), bytes, create_dirs, true)
    }

    /// As [`Txn::stage`], with the temp file's name chosen by the caller, so that a
    /// journal written *before* staging can name it (recovery then finds every temp file even
    /// when the process died while staging). `temp_name` must be a plain file name starting
    /// with `.editkit-` (hidden from listings) and must not exist yet.
    ///
    /// # Errors
    /// As [`Txn::stage`]; [`Error::InvalidPath`] for a name that is not a plain
    /// `.editkit-` file name; [`Error::Exists`] when a file of that name exists.
    #[cfg(test)]
    pub(crate) fn stage_as(&self, path: &str, temp_name: &str, bytes: &[u8], create_dirs: bool) -> Result<Staged> {
        self.stage_chosen(path, temp_name, bytes, create_dirs, true)
    }

    /// As [`Txn::stage_as`], but the temp file is not fsynced: the caller makes it durable with
    /// [`Txn::make_durable`] before it is renamed into place, so that a batch of files costs one
    /// flush instead of one per file.
    ///
    /// # Errors
    /// As [`Txn::stage_as`].
    #[cfg(test)]
    pub(crate) fn stage_as_deferred(
        &self,
        path: &str,
        temp_name: &str,
        bytes: &[u8],
        create_dirs: bool,
    ) -> Result<Staged> {
        self.stage_chosen(path, temp_name, bytes, create_dirs, false)
    }

    /// Staging under a caller's temp name, which must be a plain `.editkit-` file name.
    #[cfg(test)]
    fn stage_chosen(&self, path: &str, temp_name: &str, bytes: &[u8], create_dirs: bool, sync: bool) -> Result<Staged> {
        if !is_temp_name(temp_name) {
            return Err(Error::InvalidPath {
                path: temp_name.to_owned(),
                reason: crate::canonical::TEMP_NAME_RULE.into(),
            });
        }
        self.stage_named(path, temp_name, bytes, create_dirs, sync)
    }

    #[cfg(test)]
    fn stage_named(&self, path: &str, temp_file: &str, bytes: &[u8], create_dirs: bool, sync: bool) -> Result<Staged> {
        let target = self.ws.canonical(path)?;
        let (parent_rel, _) =
            split_parent(target.as_str()).ok_or_else(|| Error::IsDirectory { path: path.to_owned() })?;
        let parent = if create_dirs { self.dir_created(path, parent_rel)? } else { self.dir_raw(path, parent_rel)? };
        self.stage_in(&parent, path, target, temp_file, bytes, sync)
    }

    /// Writes `bytes` to the new file `temp_file` of `parent`, the folder of canonical `target`
    /// (`path` as the caller gave it, for errors), with the target's permission bits when it
    /// exists.
    fn stage_in(
        &self,
        parent: &Dir,
        path: &str,
        target: CanonicalPath,
        temp_file: &str,
        bytes: &[u8],
        sync: bool,
    ) -> Result<Staged> {
        let (_, name) = split_parent(target.as_str()).ok_or_else(|| Error::IsDirectory { path: path.to_owned() })?;
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
            if sync && self.ws.durability.syncs() { file.sync_all() } else { Ok(()) }
        })();
        if let Err(err) = result {
            // Never remove a file this call did not create (a name collision).
            if created {
                let _ = parent.remove_file(temp_file);
            }
            return Err(Error::from_io("stage", path, err));
        }
        let temp = target.sibling(temp_file)?;
        Ok(Staged { target, temp })
    }

    /// Renames canonical `from` to canonical `to` (replacing `to`), then fsyncs the directory.
    ///
    /// # Errors
    /// [`Error::NotFound`], [`Error::Io`]; [`Error::Changed`] if a folder on the way was
    /// swapped for a link; [`Error::InvalidPath`] for a path of another workspace.
    pub fn rename(&self, from: &CanonicalPath, to: &CanonicalPath) -> Result<()> {
        let (from_dir, to_dir) = self.rename_raw(self.own(from)?, self.own(to)?)?;
        if let Some(to_dir) = &to_dir {
            self.sync(to_dir);
        }
        self.sync(&from_dir);
        Ok(())
    }

    /// Renames like [`Txn::rename`] without the directory fsync: the caller makes the
    /// renames of a batch durable with one [`Txn::make_durable`] of their folders.
    ///
    /// # Errors
    /// As [`Txn::rename`].
    #[cfg(test)]
    pub(crate) fn rename_deferred(&self, from: &CanonicalPath, to: &CanonicalPath) -> Result<()> {
        self.rename_raw(self.own(from)?, self.own(to)?).map(drop)
    }

    /// The rename itself; gives the source's folder and, when it differs, the target's.
    fn rename_raw(&self, from: &str, to: &str) -> Result<(Dir, Option<Dir>)> {
        let (from_parent, from_name) = split_parent(from).ok_or_else(|| root_refused(from))?;
        let (to_parent, to_name) = split_parent(to).ok_or_else(|| root_refused(to))?;
        let from_dir = self.dir_raw(from, from_parent)?;
        self.refuse_folder_move(&from_dir, from_name, from, to)?;
        let to_dir = if from_parent == to_parent { None } else { Some(self.dir_raw(to, to_parent)?) };
        self.ws.adopt(to, &from_dir, from_name);
        self.ws.vacate(from);
        from_dir
            .rename(from_name, to_dir.as_ref().unwrap_or(&from_dir), to_name)
            .map_err(|e| Error::from_io("rename", from, e))?;
        Ok((from_dir, to_dir))
    }

    /// Makes durable what was written so far to the canonical `paths` (files, and folders
    /// whose entries changed, by the canonical path of the folder), unless the durability is
    /// [`crate::Durability::Atomic`]. Past [`SYNCFS_FROM`] paths, on Linux, the paths on the
    /// root's file system are flushed by one `syncfs` (one journal commit for the whole batch,
    /// and whatever else is pending on that file system); a path on another file system (a
    /// mount inside the root) is fsynced itself. Otherwise one fsync per path.
    ///
    /// # Errors
    /// [`Error::Io`] when a path cannot be opened or the flush reports an error: the changes
    /// may not be on disk, so a transaction must not go on to rely on them.
    #[cfg(test)]
    pub(crate) fn make_durable<'p>(&self, paths: impl IntoIterator<Item = &'p CanonicalPath>) -> Result<()> {
        if !self.ws.durability.syncs() {
            return Ok(());
        }
        let mut paths: Vec<&str> = paths.into_iter().map(|path| self.own(path)).collect::<Result<_>>()?;
        paths.sort_unstable();
        paths.dedup();
        let open = |path: &str| {
            crate::beneath::open(
                self.ws.root_dir(),
                path,
                rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY,
                rustix::fs::Mode::empty(),
            )
            .map_err(|e| Error::from_io("sync", path, e))
        };
        let fsync = |path: &str, fd: &std::os::fd::OwnedFd| {
            rustix::fs::fsync(fd).map_err(|e| Error::from_io("sync", path, e.into()))
        };
        #[cfg(target_os = "linux")]
        if paths.len() >= SYNCFS_FROM {
            // The root handle is an `O_PATH` descriptor, which `syncfs` refuses: the root itself.
            let root = open("")?;
            let root_dev = rustix::fs::fstat(&root).map_err(|e| Error::from_io("sync", "", e.into()))?.st_dev;
            match rustix::fs::syncfs(&root) {
                Ok(()) => {
                    for path in paths {
                        let fd = open(path)?;
                        let on_root = rustix::fs::fstat(&fd).is_ok_and(|stat| stat.st_dev == root_dev);
                        if !on_root {
                            fsync(path, &fd)?;
                        }
                    }
                    return Ok(());
                }
                // A kernel or filter without it: the paths one by one.
                Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {}
                Err(err) => return Err(Error::from_io("sync", "", err.into())),
            }
        }
        for path in paths {
            fsync(path, &open(path)?)?;
        }
        Ok(())
    }

    /// Removes the file (or empty directory) at canonical `path`; a missing one is not an
    /// error.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn remove(&self, path: &CanonicalPath) -> Result<()> {
        let path = self.own(path)?;
        let (parent_rel, name) = split_parent(path).ok_or_else(|| root_refused(path))?;
        self.ws.vacate(path);
        let parent = match self.dir_raw(path, parent_rel) {
            Ok(parent) => parent,
            Err(Error::NotFound { .. }) => return Ok(()),
            Err(err) => return Err(err),
        };
        remove_entry(&parent, name).map_err(|err| Error::from_io("remove", path, err))
    }

    /// Gives the file at canonical `to` the permission bits of the file at canonical `from`
    /// (a file moved by writing its new content under the new name keeps its mode).
    ///
    /// # Errors
    /// [`Error::NotFound`], [`Error::Io`].
    pub fn copy_permissions(&self, from: &CanonicalPath, to: &CanonicalPath) -> Result<()> {
        let mode = mode_of(self.ws.root_dir(), self.own(from)?)?;
        self.set_mode_raw(self.own(to)?, mode)
    }

    /// Makes the entries of the directory at canonical `dir` (a file's folder)
    /// durable: hard links and folders created in it survive a power loss once this returns.
    ///
    /// # Errors
    /// [`Error::Io`] when the directory cannot be opened.
    #[cfg(test)]
    pub(crate) fn sync_dir(&self, dir: &CanonicalPath) -> Result<()> {
        let dir = self.own(dir)?;
        if self.ws.durability.syncs() {
            crate::atomic::sync_dir(&self.dir_raw(dir, dir)?);
        }
        Ok(())
    }

    /// Whether a directory entry exists at canonical `path`, without following a final link
    /// (a backup of a deleted symlink is the link itself).
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn entry_exists(&self, path: &CanonicalPath) -> Result<bool> {
        let path = self.own(path)?;
        let (parent_rel, name) = split_parent(path).ok_or_else(|| root_refused(path))?;
        let parent = match self.dir_raw(path, parent_rel) {
            Ok(parent) => parent,
            Err(Error::NotFound { .. }) => return Ok(false),
            Err(err) => return Err(err),
        };
        match parent.symlink_metadata(name) {
            Ok(_) => Ok(true),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(err) => Err(Error::from_io("stat", path, err)),
        }
    }

    /// Reads the regular file at canonical `path` without the ledger (for recovery); `None`
    /// when it does not exist.
    ///
    /// # Errors
    /// [`Error::Io`]; [`Error::InvalidPath`] for a FIFO, socket or device.
    pub fn read(&self, path: &CanonicalPath) -> Result<Option<Vec<u8>>> {
        let path = self.own(path)?;
        match crate::beneath::file(self.ws.root_dir(), path) {
            Ok(mut file) => {
                let stat = crate::atomic::regular_stat(path, &file)?;
                self.ws.check_links(path, path, stat.st_nlink)?;
                let mut bytes = Vec::new();
                file.read_to_end(&mut bytes).map_err(|e| Error::from_io("read", path, e))?;
                Ok(Some(bytes))
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(Error::from_io("read", path, err)),
        }
    }

    /// Reads the file at canonical `path` in one open, when it is a regular file of at most
    /// `limit` bytes: `None` for anything else (missing, a folder, a link, a FIFO or device,
    /// larger, unreadable), which the caller then looks at with the checked calls
    /// ([`Workspace::metadata`] and friends) to say why. For a transaction's many reads of
    /// paths it resolved already.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    /// std::fs::create_dir(dir.path().join("folder")).unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// let [a, folder, missing] = ["a.txt", "folder", "missing.txt"].map(|path| workspace.canonical(path).unwrap());
    /// assert_eq!(workspace.txn().read_plain(&a, 100).as_deref(), Some(&b"one\n"[..]));
    /// assert_eq!(workspace.txn().read_plain(&a, 3), None);
    /// assert_eq!(workspace.txn().read_plain(&folder, 100), None);
    /// assert_eq!(workspace.txn().read_plain(&missing, 100), None);
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn read_plain(&self, path: &CanonicalPath, limit: u64) -> Option<Vec<u8>> {
        let path = self.own(path).ok()?;
        if path.is_empty() {
            return None;
        }
        let flags = rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY;
        let fd = crate::beneath::open(self.ws.root_dir(), path, flags, rustix::fs::Mode::empty()).ok()?;
        let stat = rustix::fs::fstat(&fd).ok()?;
        let size = u64::try_from(stat.st_size).ok()?;
        if rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::RegularFile
            || size > limit
            || self.ws.check_links(path, path, stat.st_nlink).is_err()
        {
            return None;
        }
        let mut file = std::fs::File::from(fd);
        // One read of the whole file, then one that finds its end (or what grew meanwhile).
        let mut bytes = Vec::with_capacity(usize::try_from(size).ok()?.saturating_add(1));
        (&mut file).take(limit.saturating_add(1)).read_to_end(&mut bytes).ok()?;
        (bytes.len() as u64 <= limit).then_some(bytes)
    }

    /// Writes `bytes` atomically to `name` in the state folder (e.g. `patch/1.json`),
    /// creating the folder (outside the workspace; see [`Workspace::state_dir`]) if needed.
    ///
    /// # Errors
    /// [`Error::InvalidPath`] for a name with `..` or an absolute name, [`Error::State`] when the
    /// state folder cannot be created or is not safe, [`Error::Io`].
    pub fn state_write(&self, name: &str, bytes: &[u8]) -> Result<()> {
        self.state_write_parts(name, &[bytes])
    }

    /// Writes `parts`, one after another, as the one file `name` of the state folder, whole
    /// as [`Txn::state_write`] writes it (one temp file, flushed, renamed): many contents kept
    /// together cost one file, one flush and one rename, and are never copied into one buffer
    /// first.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// let state = tempfile::tempdir().unwrap();
    /// let workspace = editkit_vfs::Workspace::builder(dir.path(), editkit_vfs::ambient_authority()).state_dir(state.path().join("s")).open()?;
    /// workspace.txn().state_write_parts("undo/kept", &[b"one ", b"", b"two"])?;
    /// assert_eq!(workspace.txn().state_read("undo/kept")?, Some(b"one two".to_vec()));
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`Txn::state_write`]; on an error no temp file is left and `name` is as it was.
    pub fn state_write_parts(&self, name: &str, parts: &[&[u8]]) -> Result<()> {
        crate::state::check_name(name)?;
        let state = self.ws.state_store().ensure()?;
        let (parent_rel, file_name) = split_parent(name).ok_or_else(|| root_refused(name))?;
        if !parent_rel.is_empty() {
            crate::beneath::create_private_dirs(state, parent_rel).map_err(|e| Error::from_io("write", name, e))?;
        }
        let parent = crate::beneath::dir(state, parent_rel).map_err(|e| Error::from_io("write", name, e))?;
        let temp = crate::atomic::stage_with(&parent, Some(private_file()), self.ws.durability, |file| {
            parts.iter().try_for_each(|part| std::io::Write::write_all(file, part))
        })
        .map_err(|e| Error::from_io("write", name, e))?;
        crate::atomic::place(&parent, &temp, file_name, self.ws.durability, false)
            .map_err(|e| Error::from_io("write", name, e))
    }

    /// The size in bytes and the status-change time (nanoseconds since the Unix epoch: when
    /// the entry was written, linked or renamed into the state folder) of the regular file
    /// `name` in the state folder, judged without following a link; `None` when it (or the
    /// folder) does not exist or is not a regular file.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// let state = tempfile::tempdir().unwrap();
    /// let workspace = editkit_vfs::Workspace::builder(dir.path(), editkit_vfs::ambient_authority()).state_dir(state.path().join("s")).open()?;
    /// assert_eq!(workspace.txn().state_metadata("undo/a")?, None);
    /// workspace.txn().state_write("undo/a", b"abc")?;
    /// assert_eq!(workspace.txn().state_metadata("undo/a")?.map(|(size, _)| size), Some(3));
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`Txn::state_read`].
    pub fn state_metadata(&self, name: &str) -> Result<Option<(u64, i64)>> {
        crate::state::check_name(name)?;
        let Some(state) = self.ws.state_store().existing()? else { return Ok(None) };
        let fd = match crate::beneath::open(state, name, rustix::fs::OFlags::PATH, rustix::fs::Mode::empty()) {
            Ok(fd) => fd,
            Err(err) if matches!(err.kind(), std::io::ErrorKind::NotFound) => return Ok(None),
            Err(err) if crate::beneath::is_swapped(&err) => return Ok(None),
            Err(err) => return Err(Error::from_io("stat", name, err)),
        };
        let stat = rustix::fs::fstat(&fd).map_err(|e| Error::from_io("stat", name, e.into()))?;
        if rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::RegularFile {
            return Ok(None);
        }
        let changed = stat.st_ctime.saturating_mul(1_000_000_000).saturating_add(stat.st_ctime_nsec as i64);
        Ok(Some((stat.st_size.try_into().unwrap_or(0), changed)))
    }

    /// Reads `name` in the state folder; `None` when it (or the folder) does not exist.
    ///
    /// # Errors
    /// As [`Txn::state_write`]; [`Error::InvalidPath`] for an entry that is not a
    /// regular file.
    pub fn state_read(&self, name: &str) -> Result<Option<Vec<u8>>> {
        crate::state::check_name(name)?;
        match self.ws.state_store().existing()? {
            Some(state) => read_regular(state, name),
            None => Ok(None),
        }
    }

    /// Removes `name` (a file or an empty folder) in the state folder; a missing one is not
    /// an error.
    ///
    /// # Errors
    /// As [`Txn::state_write`].
    pub fn state_remove(&self, name: &str) -> Result<()> {
        let Some((parent, file_name)) = self.state_parent_for_removal(name)? else { return Ok(()) };
        remove_entry(&parent, file_name).map_err(|err| Error::from_io("remove", name, err))
    }

    /// The folder holding state entry `name` and the entry's own name, for removing it;
    /// `None` when the state folder or that folder does not exist (nothing to remove).
    fn state_parent_for_removal<'n>(&self, name: &'n str) -> Result<Option<(Dir, &'n str)>> {
        crate::state::check_name(name)?;
        let Some(state) = self.ws.state_store().existing()? else { return Ok(None) };
        let (parent_rel, file_name) = split_parent(name).ok_or_else(|| root_refused(name))?;
        let parent = match crate::beneath::dir(state, parent_rel) {
            Ok(parent) => parent,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(err) => return Err(Error::from_io("remove", name, err)),
        };
        Ok(Some((parent, file_name)))
    }

    /// Removes the file `name` in the state folder off the caller's path. It is renamed at
    /// once to a hidden name in its folder, which [`Txn::state_list`] never shows, and unlinked
    /// by a thread of the workspace: where freeing a large file's blocks waits for the device
    /// (a file system mounted `discard`), the caller does not wait. A workspace dropped waits
    /// for the removals handed over; a hidden name left by a killed process is removed when a
    /// listing of its folder finds it. A missing `name` is not an error.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// let state = tempfile::tempdir().unwrap();
    /// let workspace = editkit_vfs::Workspace::builder(dir.path(), editkit_vfs::ambient_authority()).state_dir(state.path()).open()?;
    /// workspace.txn().state_write("undo/old.keep", &vec![b'x'; 1 << 20])?;
    /// workspace.txn().state_remove_soon("undo/old.keep")?;
    /// assert!(workspace.txn().state_list("undo")?.is_empty());
    /// drop(workspace);
    /// assert_eq!(std::fs::read_dir(state.path().join("undo")).unwrap().count(), 0);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`Txn::state_write`].
    pub fn state_remove_soon(&self, name: &str) -> Result<()> {
        let Some((parent, file_name)) = self.state_parent_for_removal(name)? else { return Ok(()) };
        let hidden = crate::reap::hidden_name();
        match parent.symlink_metadata(file_name) {
            Ok(meta) if meta.is_dir() => {
                return remove_entry(&parent, file_name).map_err(|e| Error::from_io("remove", name, e));
            }
            Ok(_) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(err) => return Err(Error::from_io("remove", name, err)),
        }
        match parent.rename(file_name, &parent, &hidden) {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(err) => return Err(Error::from_io("remove", name, err)),
        }
        self.ws.reaper.remove(parent, hidden);
        Ok(())
    }

    /// Sorted names in the folder `dir` of the state folder (empty when missing). Names handed
    /// over by [`Txn::state_remove_soon`] are not shown, and hidden files another process left
    /// there are handed over for removal.
    ///
    /// # Errors
    /// As [`Txn::state_write`].
    pub fn state_list(&self, dir: &str) -> Result<Vec<String>> {
        crate::state::check_name(dir)?;
        let Some(state) = self.ws.state_store().existing()? else { return Ok(Vec::new()) };
        let folder = match crate::beneath::dir(state, dir) {
            Ok(folder) => folder,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(err) => return Err(Error::from_io("list", dir, err)),
        };
        let mut names = Vec::new();
        let mut left = Vec::new();
        let own = crate::reap::own_prefix();
        for entry in folder.entries().map_err(|e| Error::from_io("list", dir, e))? {
            let entry = entry.map_err(|e| Error::from_io("list", dir, e))?;
            match entry.file_name().into_string() {
                // This process's own are on their way out already.
                Ok(name) if name.starts_with(&own) => {}
                Ok(name) if name.starts_with(crate::reap::HIDDEN_PREFIX) => {
                    if entry.file_type().is_ok_and(|kind| kind.is_file()) {
                        left.push(name);
                    }
                }
                Ok(name) => names.push(name),
                Err(_) => {}
            }
        }
        // Hidden files left by another process (killed before it removed them, or removing
        // them now, which makes a second attempt harmless).
        for name in left {
            if let Ok(folder) = folder.try_clone() {
                self.ws.reaper.remove(folder, name);
            }
        }
        names.sort();
        Ok(names)
    }

    /// Renames `from` to `to` within the state folder (replacing `to`).
    ///
    /// # Errors
    /// As [`Txn::state_write`]; [`Error::NotFound`].
    pub fn state_rename(&self, from: &str, to: &str) -> Result<()> {
        crate::state::check_name(from)?;
        crate::state::check_name(to)?;
        let state = self.ws.state_store().existing()?.ok_or_else(|| Error::NotFound { path: from.to_owned() })?;
        let (from_parent, from_name) = split_parent(from).ok_or_else(|| root_refused(from))?;
        let (to_parent, to_name) = split_parent(to).ok_or_else(|| root_refused(to))?;
        let from_dir = crate::beneath::dir(state, from_parent).map_err(|e| Error::from_io("rename", from, e))?;
        let to_dir = crate::beneath::dir(state, to_parent).map_err(|e| Error::from_io("rename", to, e))?;
        from_dir.rename(from_name, &to_dir, to_name).map_err(|e| Error::from_io("rename", from, e))?;
        self.sync(&to_dir);
        Ok(())
    }

    /// Keeps the regular file at `rel` (in the workspace) as `name` in the state
    /// folder: a copy of its own, with the same permission bits, never a link to the file's
    /// inode (an outside process holding the file open, or another name of it, could change
    /// what an undo restores). The copy is a reflink where the file system clones (Btrfs, XFS),
    /// else the kernel copies the bytes (`copy_file_range`). A file with several names is
    /// refused as every read refuses it. Returns whether the copy was a reflink.
    ///
    /// # Errors
    /// As [`Txn::state_write`]; [`Error::NotFound`] when `rel` does not exist;
    /// [`Error::HardLinked`]; [`Error::InvalidPath`] for anything but a regular file.
    pub fn state_keep(&self, rel: &CanonicalPath, name: &str) -> Result<bool> {
        let rel = self.own(rel)?;
        crate::state::check_name(name)?;
        let state = self.ws.state_store().ensure()?;
        let (name_parent, name_file) = split_parent(name).ok_or_else(|| root_refused(name))?;
        if rel.is_empty() {
            return Err(root_refused(rel));
        }
        // Only a regular file is kept: opened without following a link, judged on the handle.
        let source = crate::beneath::file(self.ws.root_dir(), rel).map_err(|e| Error::from_io("keep", rel, e))?;
        let stat = crate::atomic::regular_stat(rel, &source)?;
        self.ws.check_links(rel, rel, stat.st_nlink)?;
        if !name_parent.is_empty() {
            crate::beneath::create_private_dirs(state, name_parent).map_err(|e| Error::from_io("keep", name, e))?;
        }
        let to = crate::beneath::dir(state, name_parent).map_err(|e| Error::from_io("keep", name, e))?;
        // The owner's bits only: the copy is the user's alone (a file others may read is not
        // copied readable to them), and never set-user-ID or set-group-ID (the copy belongs to
        // whoever runs editkit, root perhaps, not to the file's owner).
        let permissions =
            cap_std::fs::Permissions::from_std(std::os::unix::fs::PermissionsExt::from_mode(stat.st_mode & 0o700));
        // Bounded like a read: a file another process keeps appending to cannot fill the disk.
        let limit = self.ws.max_read_bytes().max(u64::try_from(stat.st_size).unwrap_or(0));
        let mut cloned = None;
        let temp = crate::atomic::stage_with(&to, Some(permissions), self.ws.durability, |file| {
            cloned = copy_contents(&source, file, limit)?;
            match cloned {
                Some(_) => Ok(()),
                None => Err(std::io::Error::other("it grew past the read limit while it was copied")),
            }
        })
        .map_err(|e| Error::from_io("keep", rel, e))?;
        crate::atomic::place(&to, &temp, name_file, self.ws.durability, false)
            .map_err(|e| Error::from_io("keep", name, e))?;
        Ok(cloned == Some(true))
    }

    /// Gives the regular file at `rel` the permission bits `mode` (at most `0o777`: never
    /// set-user-ID or set-group-ID), following no link.
    ///
    /// # Errors
    /// [`Error::Io`]; [`Error::InvalidPath`] for anything but a regular file.
    pub fn set_mode(&self, rel: &CanonicalPath, mode: u32) -> Result<()> {
        self.set_mode_raw(self.own(rel)?, mode & 0o777)
    }

    /// Gives the file at `rel` the permission bits of `name` in the state folder (an undone
    /// deletion gets its mode back).
    ///
    /// # Errors
    /// As [`Txn::state_read`]; [`Error::NotFound`].
    pub fn state_copy_permissions(&self, name: &str, rel: &CanonicalPath) -> Result<()> {
        let rel = self.own(rel)?;
        crate::state::check_name(name)?;
        let state = self.ws.state_store().existing()?.ok_or_else(|| Error::NotFound { path: name.to_owned() })?;
        let mode = mode_of(state, name)?;
        self.set_mode_raw(rel, mode)
    }

    /// Sets the permission bits of the regular file at canonical `rel`, following no link; a
    /// file with several names is refused as every open refuses it (its mode is that of every
    /// name, `.env`'s perhaps).
    fn set_mode_raw(&self, rel: &str, mode: u32) -> Result<()> {
        let file =
            crate::beneath::file(self.ws.root_dir(), rel).map_err(|e| Error::from_io("set permissions", rel, e))?;
        let stat = crate::atomic::regular_stat(rel, &file)?;
        self.ws.check_links(rel, rel, stat.st_nlink)?;
        rustix::fs::fchmod(&file, rustix::fs::Mode::from_raw_mode(mode))
            .map_err(|e| Error::from_io("set permissions", rel, e.into()))
    }

    fn dir_raw(&self, given: &str, rel: &str) -> Result<Dir> {
        crate::beneath::dir(self.ws.root_dir(), rel).map_err(|e| Error::from_io("open directory", given, e))
    }

    /// The directory at canonical `rel`, created with its missing parents first when it does
    /// not exist (one open when it does).
    fn dir_created(&self, given: &str, rel: &str) -> Result<Dir> {
        match crate::beneath::dir(self.ws.root_dir(), rel) {
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                crate::beneath::create_dirs(self.ws.root_dir(), rel)
                    .map_err(|e| Error::from_io("create directory", given, e))?;
                self.dir_raw(given, rel)
            }
            opened => opened.map_err(|e| Error::from_io("open directory", given, e)),
        }
    }
}

/// The mode of a file editkit writes in its state folder: 0600, readable by the user alone.
fn private_file() -> cap_std::fs::Permissions {
    cap_std::fs::Permissions::from_std(std::os::unix::fs::PermissionsExt::from_mode(0o600))
}

/// Removes the entry `name` of `parent` (a file, a link itself, or an empty folder); a missing
/// one is not an error.
fn remove_entry(parent: &Dir, name: &str) -> std::io::Result<()> {
    let result = match parent.symlink_metadata(name) {
        Ok(meta) if meta.is_dir() => parent.remove_dir(name),
        Ok(_) => parent.remove_file(name),
        Err(err) => Err(err),
    };
    match result {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Copies `source` into the empty `target`, at most `limit` bytes (`Ok(None)` past it): a
/// reflink where the file system clones, else `copy_file_range` (the kernel copies, or clones
/// where it can), else a read and a write. Returns whether it was a reflink.
fn copy_contents(source: &cap_std::fs::File, target: &cap_std::fs::File, limit: u64) -> std::io::Result<Option<bool>> {
    if rustix::fs::ioctl_ficlone(target, source).is_ok() {
        return Ok(Some(true));
    }
    let mut copied: u64 = 0;
    loop {
        let chunk = usize::try_from((limit + 1).saturating_sub(copied).min(1 << 30)).unwrap_or(1 << 30);
        match rustix::fs::copy_file_range(source, None, target, None, chunk) {
            Ok(0) => return Ok(Some(false)),
            Ok(n) => {
                copied += n as u64;
                if copied > limit {
                    return Ok(None);
                }
            }
            // No in-kernel copy between these two (another file system on an old kernel, or
            // none at all): read and write.
            Err(
                rustix::io::Errno::XDEV
                | rustix::io::Errno::NOSYS
                | rustix::io::Errno::INVAL
                | rustix::io::Errno::OPNOTSUPP,
            ) if copied == 0 => {
                let mut reader = std::io::Read::take(source, limit + 1);
                let copied = std::io::copy(&mut reader, &mut &*target)?;
                return Ok((copied <= limit).then_some(false));
            }
            Err(err) => return Err(err.into()),
        }
    }
}

/// Reads the regular file `rel` below `dir`, following no link; `None` when missing.
fn read_regular(dir: &Dir, rel: &str) -> Result<Option<Vec<u8>>> {
    match crate::beneath::file(dir, rel) {
        Ok(mut file) => {
            crate::atomic::check_regular(rel, &file)?;
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes).map_err(|e| Error::from_io("read", rel, e))?;
            Ok(Some(bytes))
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(Error::from_io("read", rel, err)),
    }
}

/// The permission bits of the entry `rel` below `dir` (a final link is not followed).
fn mode_of(dir: &Dir, rel: &str) -> Result<u32> {
    let fd = crate::beneath::open(dir, rel, rustix::fs::OFlags::PATH, rustix::fs::Mode::empty())
        .map_err(|e| Error::from_io("stat", rel, e))?;
    Ok(rustix::fs::fstat(&fd).map_err(|e| Error::from_io("stat", rel, e.into()))?.st_mode & 0o7777)
}

/// From how many paths [`Folders::make_durable`] flushes the whole file system at once (on Linux)
/// instead of fsyncing each. On ext4 here a `syncfs` after writing 100 small files took 18 ms
/// where 100 fsyncs took 60–80 ms, and one costs about what a single fsync does when little
/// else is pending; a single write (a file and its folder) keeps its own two fsyncs, so an
/// edit never waits on other writers' data.
pub(crate) const SYNCFS_FROM: usize = 8;

fn root_refused(path: &str) -> Error {
    Error::InvalidPath { path: path.to_owned(), reason: "names the workspace root".into() }
}

impl Txn<'_> {
    /// The path of canonical `path`, when this workspace checked it.
    fn own<'p>(&self, path: &'p CanonicalPath) -> Result<&'p str> {
        if path.owner() == self.ws.owner {
            // [`CanonicalPath::sibling`] adds a temp name without the policy: judge one not of
            // the shape editkit makes here (a blocked file may be named `.editkit-x.pem`); its
            // folder passed already.
            let rel = path.as_str();
            let name = rel.rsplit_once('/').map_or(rel, |(_, name)| name);
            if is_temp_name(name)
                && !crate::canonical::is_made_name(name)
                && let Some(pattern) = self.ws.policy.blocked_by(rel)
            {
                return Err(Error::Blocked { path: rel.to_owned(), pattern: pattern.to_owned() });
            }
            Ok(rel)
        } else {
            Err(Error::InvalidPath {
                path: path.as_str().to_owned(),
                reason: "it was resolved by another workspace; resolve it in this one".into(),
            })
        }
    }

    /// The checks of a rename of canonical `from` (the entry `name` of `dir`) to canonical
    /// `to`, as [`Workspace::rename`] makes them: a folder holding a blocked entry stays where
    /// it is, and no folder moves into one where files with several names are served. One
    /// `fstatat` for a file.
    fn refuse_folder_move(&self, dir: &Dir, name: &str, from: &str, to: &str) -> Result<()> {
        match dir.symlink_metadata(name) {
            Ok(meta) if meta.is_dir() => {
                self.ws.refuse_blocked_inside(from, dir, name, from)?;
                self.ws.refuse_folder_into_hard_links(from, to, to)
            }
            _ => Ok(()),
        }
    }

    /// fsyncs `dir` unless the workspace's durability is [`crate::Durability::Atomic`].
    fn sync(&self, dir: &Dir) {
        if self.ws.durability.syncs() {
            crate::atomic::sync_dir(dir);
        }
    }
}

impl<'ws> Txn<'ws> {
    /// Folder handles for a batch of steps on canonical paths (a patch's commit): each folder
    /// is opened once, however many files of the batch are in it. See [`Folders`].
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::create_dir(dir.path().join("src")).unwrap();
    /// std::fs::write(dir.path().join("src/a.txt"), "old\n").unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// let a = workspace.canonical("src/a.txt")?;
    /// let old = workspace.canonical_recorded("src/.editkit-old")?;
    /// let folders = workspace.txn().folders();
    /// let staged = folders.stage_deferred(&a, ".editkit-new", b"new\n", false)?;
    /// folders.hard_link(&a, &old)?;
    /// folders.make_durable([&staged.temp, &workspace.canonical("src")?])?;
    /// folders.rename(&staged.temp, &a)?;
    /// folders.remove_file(&old)?;
    /// assert_eq!(std::fs::read_to_string(dir.path().join("src/a.txt")).unwrap(), "new\n");
    /// assert_eq!(std::fs::read_dir(dir.path().join("src")).unwrap().count(), 1);
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn folders(&self) -> Folders<'ws> {
        Folders { txn: *self, open: std::sync::Mutex::new(std::collections::HashMap::new()) }
    }

    /// Takes the locks of canonical `paths` (resolved already) in the one fixed order
    /// [`Workspace::lock_entries`] uses, each once, without resolving them again.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// let a = workspace.canonical("./x/../a.txt")?;
    /// let b = workspace.canonical("b.txt")?;
    /// let locks = workspace.txn().lock_entries([&a, &b, &a])?;
    /// assert_eq!(locks.iter().map(|lock| lock.path()).collect::<Vec<_>>(), ["a.txt", "b.txt"]);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::Io`] if a cross-process lock file cannot be opened or created;
    /// [`Error::InvalidPath`] for a path of another workspace.
    pub fn lock_entries<'a>(
        &self,
        paths: impl IntoIterator<Item = &'a CanonicalPath>,
    ) -> Result<Vec<crate::FileLock<'ws>>> {
        let mut paths: Vec<&str> = paths.into_iter().map(|path| self.own(path)).collect::<Result<_>>()?;
        paths.sort_unstable();
        paths.dedup();
        let paths: Vec<(String, String)> = paths.into_iter().map(|rel| (rel.to_owned(), rel.to_owned())).collect();
        crate::FileLock::acquire_all(self.ws, &paths)
    }
}

/// Folder handles shared by the steps of one batch ([`Txn::folders`]): staging, backups,
/// renames, removals and the flush of many files in a few folders open each folder once
/// instead of once per step. The steps are those of [`Txn`] on [`CanonicalPath`]s; each acts
/// on one name in a folder handle, so no link is followed.
///
/// A folder is opened beneath the root, following no link, when a step first needs it, and
/// the handle is kept for the batch: a folder moved meanwhile (by another process) is followed
/// by its handle. [`Folders::check_unmoved`] tells whether every folder held is still where it
/// was opened, beneath the root; a batch calls it before the steps that change what the
/// workspace shows (a patch's renames), so a folder moved away, out of the root or under a
/// blocked name, is never renamed into. Safe to share between threads.
#[derive(Debug)]
pub struct Folders<'ws> {
    txn: Txn<'ws>,
    open: std::sync::Mutex<std::collections::HashMap<String, std::sync::Arc<Dir>>>,
}

/// A name in a folder the batch holds.
type InFolder<'p> = (std::sync::Arc<Dir>, &'p str);

impl Folders<'_> {
    /// The folder at canonical `rel` (created with its missing parents when `create`).
    fn folder(&self, given: &str, rel: &str, create: bool) -> Result<std::sync::Arc<Dir>> {
        let cached = self.open.lock_unpoisoned().get(rel).cloned();
        if let Some(dir) = cached {
            return Ok(dir);
        }
        let dir = std::sync::Arc::new(if create {
            self.txn.dir_created(given, rel)?
        } else {
            self.txn.dir_raw(given, rel)?
        });
        // Two threads may open the same folder at once: every step uses the first handle kept,
        // so what one step looked at is what the others write in.
        let mut open = self.open.lock_unpoisoned();
        Ok(std::sync::Arc::clone(open.entry(rel.to_owned()).or_insert(dir)))
    }

    /// The entry at canonical `path` opened to be flushed: relative to its folder's handle
    /// when the batch holds it (one name, no link followed), else beneath the root.
    fn open_to_sync(&self, path: &str) -> Result<std::os::fd::OwnedFd> {
        let flags = rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY;
        let held = split_parent(path).and_then(|(parent_rel, name)| {
            let parent = self.open.lock_unpoisoned().get(parent_rel).cloned()?;
            Some((parent, name))
        });
        match held {
            Some((parent, name)) => rustix::fs::openat(
                &*parent,
                name,
                flags | rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::CLOEXEC,
                rustix::fs::Mode::empty(),
            )
            .map_err(|e| Error::from_io("sync", path, e.into())),
            None => crate::beneath::open(self.txn.ws.root_dir(), path, flags, rustix::fs::Mode::empty())
                .map_err(|e| Error::from_io("sync", path, e)),
        }
    }

    /// Whether every folder the batch holds is still the one its path names beneath the root:
    /// each is opened again by its path (following no link) and compared with its handle
    /// (device and inode).
    ///
    /// # Errors
    /// [`Error::Changed`] naming a folder that was moved or replaced since the batch opened it
    /// (or is gone); [`Error::Io`] when a handle cannot be looked at.
    pub fn check_unmoved(&self) -> Result<()> {
        let held: Vec<(String, std::sync::Arc<Dir>)> =
            self.open.lock_unpoisoned().iter().map(|(rel, dir)| (rel.clone(), std::sync::Arc::clone(dir))).collect();
        for (rel, dir) in held {
            let identity = |fd: &dyn std::os::fd::AsFd| {
                rustix::fs::fstat(fd)
                    .map(|stat| (stat.st_dev, stat.st_ino))
                    .map_err(|e| Error::from_io("stat", &rel, e.into()))
            };
            let Ok(now) = crate::beneath::dir(self.txn.ws.root_dir(), &rel) else {
                return Err(Error::Changed { path: rel.clone() });
            };
            if identity(&now)? != identity(&*dir)? {
                return Err(Error::Changed { path: rel.clone() });
            }
        }
        Ok(())
    }

    /// Whether the regular file at canonical `path` holds exactly `bytes`, looked at through
    /// its folder's handle: its name is opened without following a link and without blocking
    /// (a FIFO or device is not read), its size compared, then its content a block at a time.
    /// `false` for anything else: gone, a link, a folder, another size or content, or an error
    /// (the caller then looks again the slow way, to say what is there).
    #[must_use]
    pub fn holds(&self, path: &CanonicalPath, bytes: &[u8]) -> bool {
        let Ok(path) = self.txn.own(path) else { return false };
        let Some((parent_rel, name)) = split_parent(path) else { return false };
        let Ok(parent) = self.folder(path, parent_rel, false) else { return false };
        let flags = rustix::fs::OFlags::RDONLY
            | rustix::fs::OFlags::NONBLOCK
            | rustix::fs::OFlags::NOCTTY
            | rustix::fs::OFlags::NOFOLLOW
            | rustix::fs::OFlags::CLOEXEC;
        let Ok(fd) = rustix::fs::openat(&*parent, name, flags, rustix::fs::Mode::empty()) else { return false };
        let Ok(stat) = rustix::fs::fstat(&fd) else { return false };
        if rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::RegularFile
            || u64::try_from(stat.st_size).ok() != u64::try_from(bytes.len()).ok()
        {
            return false;
        }
        crate::files::holds(&mut std::fs::File::from(fd), bytes).unwrap_or(false)
    }

    /// Writes `bytes` to a new temp file `temp_name` (a plain file name starting with
    /// `.editkit-`) beside canonical `target`, with the target's permission bits when it exists,
    /// not fsynced: [`Folders::make_durable`] flushes the batch before [`Folders::rename`] moves
    /// it over the target.
    ///
    /// # Errors
    /// [`Error::InvalidPath`] for a temp name that is not a plain `.editkit-` file name or a
    /// target naming the root; [`Error::IsDirectory`]; [`Error::NotFound`] for a missing folder
    /// without `create_dirs`; [`Error::Exists`] when the temp name is taken; [`Error::Io`].
    pub fn stage_deferred(
        &self,
        target: &CanonicalPath,
        temp_name: &str,
        bytes: &[u8],
        create_dirs: bool,
    ) -> Result<Staged> {
        let rel = self.txn.own(target)?;
        if !is_temp_name(temp_name) {
            return Err(Error::InvalidPath {
                path: temp_name.to_owned(),
                reason: crate::canonical::TEMP_NAME_RULE.into(),
            });
        }
        let (parent_rel, _) = split_parent(rel).ok_or_else(|| root_refused(rel))?;
        let parent = self.folder(rel, parent_rel, create_dirs)?;
        self.txn.stage_in(&parent, rel, target.clone(), temp_name, bytes, false)
    }

    /// The folders of two canonical paths (each created with its parents when its flag says
    /// so), with each path's final name; one handle when both are in the same folder.
    fn two_folders<'p>(
        &self,
        (first, create_first): (&'p str, bool),
        (second, create_second): (&'p str, bool),
    ) -> Result<(InFolder<'p>, InFolder<'p>)> {
        let (first_parent, first_name) = split_parent(first).ok_or_else(|| root_refused(first))?;
        let (second_parent, second_name) = split_parent(second).ok_or_else(|| root_refused(second))?;
        let first_dir = self.folder(first, first_parent, create_first)?;
        let second_dir = if first_parent == second_parent {
            std::sync::Arc::clone(&first_dir)
        } else {
            self.folder(second, second_parent, create_second)?
        };
        Ok(((first_dir, first_name), (second_dir, second_name)))
    }

    /// Makes `backup` a hard link to the file at `original`, so the original content survives
    /// a later rename over `original`. A final link is linked as the link itself, never its
    /// target.
    ///
    /// # Errors
    /// [`Error::NotFound`], [`Error::Exists`], [`Error::Io`].
    pub fn hard_link(&self, original: &CanonicalPath, backup: &CanonicalPath) -> Result<()> {
        let (original, backup) = (self.txn.own(original)?, self.txn.own(backup)?);
        let ((to, backup_name), (from, original_name)) = self.two_folders((backup, true), (original, false))?;
        rustix::fs::linkat(&*from, original_name, &*to, backup_name, rustix::fs::AtFlags::empty())
            .map_err(|e| Error::from_io("link", original, e.into()))
    }

    /// Renames `from` to `to` (replacing `to`) without the folder fsync: the batch makes its
    /// renames durable with one [`Folders::make_durable`] of their folders.
    ///
    /// # Errors
    /// [`Error::NotFound`], [`Error::Io`].
    pub fn rename(&self, from: &CanonicalPath, to: &CanonicalPath) -> Result<()> {
        let (from, to) = (self.txn.own(from)?, self.txn.own(to)?);
        let ((from_dir, from_name), (to_dir, to_name)) = self.two_folders((from, false), (to, false))?;
        self.txn.refuse_folder_move(&from_dir, from_name, from, to)?;
        self.txn.ws.adopt(to, &from_dir, from_name);
        self.txn.ws.vacate(from);
        from_dir.rename(from_name, &to_dir, to_name).map_err(|e| Error::from_io("rename", from, e))
    }

    /// Removes the file or link (never a folder) at canonical `path`; a missing one, or a
    /// missing folder, is not an error.
    ///
    /// # Errors
    /// [`Error::Io`], for a folder too.
    pub fn remove_file(&self, path: &CanonicalPath) -> Result<()> {
        let path = self.txn.own(path)?;
        let (parent_rel, name) = split_parent(path).ok_or_else(|| root_refused(path))?;
        self.txn.ws.vacate(path);
        let parent = match self.folder(path, parent_rel, false) {
            Ok(parent) => parent,
            Err(Error::NotFound { .. }) => return Ok(()),
            Err(err) => return Err(err),
        };
        match rustix::fs::unlinkat(&*parent, name, rustix::fs::AtFlags::empty()) {
            Ok(()) | Err(rustix::io::Errno::NOENT) => Ok(()),
            Err(err) => Err(Error::from_io("remove", path, err.into())),
        }
    }

    /// Makes durable what was written so far to `paths` (files, and folders whose entries
    /// changed, by the canonical path of the folder), unless the durability is
    /// [`crate::Durability::Atomic`]. Past a handful of paths, on Linux, the paths on the root's
    /// file system are flushed by one `syncfs` (one journal commit for the whole batch), a
    /// path's file system read from its folder's handle (one `fstatat`, no open); a path on
    /// another file system (a mount inside the root) is fsynced itself, through the batch's
    /// handle when it holds one. Otherwise one fsync per path.
    ///
    /// # Errors
    /// [`Error::Io`] when a path cannot be opened or the flush reports an error: the changes
    /// may not be on disk, so a transaction must not go on to rely on them.
    pub fn make_durable<'p>(&self, paths: impl IntoIterator<Item = &'p CanonicalPath>) -> Result<()> {
        if !self.txn.ws.durability.syncs() {
            return Ok(());
        }
        let mut paths: Vec<&str> = paths.into_iter().map(|path| self.txn.own(path)).collect::<Result<_>>()?;
        paths.sort_unstable();
        paths.dedup();
        let fsync = |path: &str, fd: &dyn std::os::fd::AsFd| {
            rustix::fs::fsync(fd).map_err(|e| Error::from_io("sync", path, e.into()))
        };
        let held = |path: &str| self.open.lock_unpoisoned().get(path).cloned();
        #[cfg(target_os = "linux")]
        if paths.len() >= SYNCFS_FROM {
            let root = self.folder("", "", false)?;
            let root_dev = rustix::fs::fstat(&*root).map_err(|e| Error::from_io("sync", "", e.into()))?.st_dev;
            match rustix::fs::syncfs(&*root) {
                Ok(()) => {
                    for path in paths {
                        let dev = match (held(path), split_parent(path)) {
                            (Some(dir), _) => rustix::fs::fstat(&*dir),
                            (None, Some((parent_rel, name))) => {
                                let parent = self.folder(path, parent_rel, false)?;
                                rustix::fs::statat(&*parent, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
                            }
                            (None, None) => rustix::fs::fstat(&*root),
                        }
                        .map_err(|e| Error::from_io("sync", path, e.into()))?
                        .st_dev;
                        if dev != root_dev {
                            // A mount inside the root: its own flush, through the handle the
                            // batch wrote through when it holds one.
                            match held(path) {
                                Some(dir) => fsync(path, &*dir)?,
                                None => fsync(path, &self.open_to_sync(path)?)?,
                            }
                        }
                    }
                    return Ok(());
                }
                Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {}
                Err(err) => return Err(Error::from_io("sync", "", err.into())),
            }
        }
        for path in paths {
            match held(path) {
                Some(dir) => fsync(path, &*dir)?,
                None => fsync(path, &self.open_to_sync(path)?)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
