//! Undo history kept on disk in the state folder (outside the workspace, so a repository cannot
//! ship entries meant to be restored), so it survives a restart.
//!
//! Per file: `undo/files/<key>/<seq>-<sha256 after>.keep`, a hard link to the content before
//! the change (or `.absent` when the change created the file). Per patch:
//! `undo/patches/<seq>.json` listing every touched file's previous state, with the contents
//! one after another in `undo/patches/<seq>-all.bytes` (each at its recorded offset, with its
//! hash; records kept before that name `<seq>-<n>.bytes`, one per file, and still undo).

use serde::{Deserialize, Serialize};

use editkit_vfs::{Sha256, Workspace, WriteOptions};

use crate::error::{Error, Result};
use crate::sync::LockExt;

/// Default for [`crate::ToolkitOptions::history_bytes`]: 256 MiB of undo history per root.
/// With the default depth of 20 versions per file, that keeps every version of a dozen files of
/// 1 MiB, or the last few of files of tens of MiB, while a burst of large writes can no longer
/// fill the disk outside the workspace (20 versions of 8 files of 4 MiB were 640 MiB).
pub const DEFAULT_HISTORY_BYTES: u64 = 256 << 20;

#[derive(Debug, Serialize, Deserialize)]
struct Snapshot {
    path: String,
    existed: bool,
    after_sha256: Option<Sha256>,
    /// Where a patch's record keeps this file's content in the patch's one contents file
    /// (absent in records kept one file per content, and for a file that did not exist).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    kept: Option<KeptSlice>,
}

/// One content's place in a patch's contents file, and its hash (a damaged file restores
/// nothing).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct KeptSlice {
    offset: u64,
    len: u64,
    sha256: Sha256,
}

/// A patch's contents file: every kept content one after another (one file, one flush and one
/// rename for the whole patch, however many files it touched).
fn patch_contents(seq: u64) -> String {
    format!("undo/patches/{seq:010}-all.bytes")
}

/// An undo entry kept before a change: [`settle`] it once the change is made (older entries
/// beyond the depth are dropped only then), [`discard`] it if the change fails.
#[derive(Debug)]
pub(crate) struct Kept {
    name: String,
    /// The file's entry folder and the entries it held before this one.
    dir: String,
    older: Vec<Listed>,
    /// Where the previous content is kept (an absolute path in the state folder), when the
    /// file existed.
    pub(crate) path: Option<String>,
    /// The kept content's size.
    bytes: u64,
}

/// The bounds of a root's undo history: versions per file (and patches), and bytes in all.
pub(crate) struct Bounds<'a> {
    pub(crate) depth: usize,
    pub(crate) max_bytes: u64,
    /// Per state folder, the bytes its history held at the last count plus what was kept since
    /// (removals not subtracted, so it only overestimates): the history is counted again, and
    /// trimmed, only when this passes the bound, not on every change.
    pub(crate) estimates: &'a std::sync::Mutex<std::collections::HashMap<std::path::PathBuf, u64>>,
}

impl Bounds<'_> {
    /// `added` bytes were just kept: trims the history to its byte bound when the estimate
    /// passes it (never the entry just kept: `keep`, or the newest patch when `keep_patch`).
    fn track(&self, workspace: &Workspace, added: u64, keep: Option<&str>, keep_patch: bool) -> Result<()> {
        let key = workspace.state_dir().to_owned();
        {
            let mut estimates = self.estimates.lock_unpoisoned();
            if let Some(estimate) = estimates.get_mut(&key) {
                let grown = estimate.saturating_add(added);
                if grown <= self.max_bytes {
                    *estimate = grown;
                    return Ok(());
                }
            }
        }
        let total = bound_bytes(workspace, self.max_bytes, keep, keep_patch)?;
        self.estimates.lock_unpoisoned().insert(key, total);
        Ok(())
    }
}

fn file_dir(rel: &str) -> String {
    format!("undo/files/{}", &Sha256::of(rel.as_bytes()).to_string()[..24])
}

/// A per-file entry, as its name says it: `<seq>-<sha256 after the change | none>[-t<unix
/// time>[m<octal mode>]].<keep | absent>` (entries kept before times or modes were recorded
/// have none).
#[derive(Debug, Clone, PartialEq, Eq)]
struct EntryName {
    seq: u64,
    /// The file's hash after the change; `None`: the change deleted it.
    after: Option<Sha256>,
    /// The file existed before the change (its content is kept).
    existed: bool,
    /// When the entry was kept, in Unix seconds.
    time: Option<i64>,
    /// The file's permission bits before the change (the copy keeps only the owner's).
    mode: Option<u32>,
}

impl EntryName {
    /// The entry a file name in the state folder is; `None` for any other name (the state
    /// folder is input).
    fn parse(name: &str) -> Option<EntryName> {
        let (stem, existed) = match name.rsplit_once('.')? {
            (stem, "keep") => (stem, true),
            (stem, "absent") => (stem, false),
            _ => return None,
        };
        let mut parts = stem.splitn(3, '-');
        let (seq, after, time) = (parts.next()?, parts.next()?, parts.next());
        // A name that is neither `none` nor a hash is not an entry.
        let after = if after == "none" { None } else { Some(after.parse().ok()?) };
        let time = match time {
            // `t<unix time>`, then `m<octal mode>` in entries that record the file's mode.
            Some(time) => {
                Some(time.strip_prefix('t')?.split_once('m').map_or(time.get(1..)?, |(t, _)| t).parse().ok()?)
            }
            None => None,
        };
        let mode =
            stem.rsplit_once('m').and_then(|(_, mode)| u32::from_str_radix(mode, 8).ok()).filter(|mode| *mode <= 0o777);
        Some(EntryName { seq: seq.parse().ok()?, after, existed, time, mode })
    }
}

impl std::fmt::Display for EntryName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:010}-", self.seq)?;
        match self.after {
            Some(after) => write!(f, "{after}")?,
            None => f.write_str("none")?,
        }
        if let Some(time) = self.time {
            write!(f, "-t{time}")?;
            if let Some(mode) = self.mode {
                write!(f, "m{mode:o}")?;
            }
        }
        f.write_str(if self.existed { ".keep" } else { ".absent" })
    }
}

/// An entry of a file's undo folder: what its name says, and the name.
#[derive(Debug)]
struct Listed {
    entry: EntryName,
    name: String,
}

/// Seconds since the Unix epoch now (0 if the clock is before it).
fn now_unix() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// The name of the file in a per-file entry folder that says which file it is for.
const PATH_MARKER: &str = "path";

/// The sequence number after `last` (1 for the first entry); the history is full, not
/// wrapped, at `u64::MAX`.
fn next_seq(last: Option<u64>) -> Result<u64> {
    match last {
        None => Ok(1),
        Some(last) => last.checked_add(1).ok_or_else(|| {
            Error::invalid(
                "history",
                "the undo history's sequence numbers are exhausted; remove the state folder's `undo/`",
            )
        }),
    }
}

/// The entries of a file's undo folder, oldest first.
fn entries(workspace: &Workspace, dir: &str) -> Result<Vec<Listed>> {
    let mut found: Vec<Listed> = workspace
        .txn()
        .state_list(dir)?
        .into_iter()
        .filter_map(|name| Some(Listed { entry: EntryName::parse(&name)?, name }))
        .collect();
    found.sort_by(|a, b| (a.entry.seq, &a.name).cmp(&(b.entry.seq, &b.name)));
    Ok(found)
}

/// Keeps the current state of canonical `rel` as the newest undo entry, before a change whose
/// result hashes to `after_sha256` (`None`: the change deletes the file). An existing file is
/// kept as a copy of its own (a reflink where the file system clones), never a link to its
/// inode, which a process holding the file open could still change.
pub(crate) fn keep(workspace: &Workspace, rel: &str, after_sha256: Option<Sha256>) -> Result<Kept> {
    let dir = file_dir(rel);
    let existing = entries(workspace, &dir)?;
    let seq = next_seq(existing.last().map(|last| last.entry.seq))?;
    let metadata = workspace.metadata(rel).ok().filter(|metadata| metadata.kind == editkit_vfs::EntryKind::File);
    let exists = metadata.is_some();
    let bytes = metadata.map_or(0, |metadata| metadata.size);
    if existing.is_empty() {
        // Which file the folder is for (its name is a hash of the path), for `history`.
        workspace.txn().state_write(&format!("{dir}/{PATH_MARKER}"), rel.as_bytes())?;
    }
    // The copy keeps only the owner's bits (nothing in the state folder is readable by others),
    // so the file's own mode is recorded in the name, for an undone deletion.
    let mode = metadata.map(|metadata| metadata.mode & 0o777);
    let entry = EntryName { seq, after: after_sha256, existed: exists, time: Some(now_unix()), mode };
    let name = format!("{dir}/{entry}");
    let path = if exists {
        workspace.txn().state_keep(&workspace.canonical_recorded(rel)?, &name)?;
        Some(workspace.state_dir().join(&name).display().to_string())
    } else {
        workspace.txn().state_write(&name, b"")?;
        None
    };
    Ok(Kept { name, dir, older: existing, path, bytes })
}

/// The change was made: drops the oldest entries beyond `depth` (a failed change never costs
/// an undo step). They are gone for every reader at once; freeing their blocks, which can
/// make an unlink wait, happens off the caller's path ([`editkit_vfs::Txn::state_remove_soon`]).
pub(crate) fn settle(workspace: &Workspace, kept: &Kept, bounds: &Bounds<'_>) -> Result<()> {
    let excess = (kept.older.len() + 1).saturating_sub(bounds.depth.max(1));
    for Listed { name: old, .. } in kept.older.iter().take(excess) {
        workspace.txn().state_remove_soon(&format!("{}/{old}", kept.dir))?;
    }
    bounds.track(workspace, kept.bytes, Some(&kept.name), false)
}

/// The change's result is not what was announced (a formatter rewrote it): renames the entry
/// so an undo expects `after_sha256`.
pub(crate) fn retag(workspace: &Workspace, kept: &mut Kept, after_sha256: Sha256) -> Result<()> {
    let Some((folder, file_name)) = kept.name.rsplit_once('/') else { return Ok(()) };
    let Some(entry) = EntryName::parse(file_name) else { return Ok(()) };
    let name = format!("{folder}/{}", EntryName { after: Some(after_sha256), ..entry });
    workspace.txn().state_rename(&kept.name, &name)?;
    if kept.path.is_some() {
        kept.path = Some(workspace.state_dir().join(&name).display().to_string());
    }
    kept.name = name;
    Ok(())
}

/// Forgets an entry whose change did not happen.
pub(crate) fn discard(workspace: &Workspace, kept: &Kept) {
    let _ = workspace.txn().state_remove(&kept.name);
}

/// Restores canonical `rel` to its state before the last recorded change. The file's lock is
/// held from before the entry is chosen until it is removed, so two undos never take the
/// same entry.
pub(crate) fn undo(workspace: &Workspace, given: &str, rel: &str, force: bool) -> Result<usize> {
    let lock = workspace.lock(rel)?;
    let dir = file_dir(rel);
    let existing = entries(workspace, &dir)?;
    let Some(Listed { entry: EntryName { after: after_sha256, existed, mode, .. }, name }) = existing.last() else {
        return Err(Error::NothingToUndo { what: given.to_owned() });
    };
    let (after_sha256, existed) = (*after_sha256, *existed);
    let entry = format!("{dir}/{name}");
    let bytes = if existed { workspace.txn().state_read(&entry)? } else { None };
    let snapshot = Snapshot { path: rel.to_owned(), existed, after_sha256, kept: None };
    let was_missing = lock.current_hash()?.is_none();
    restore(workspace, &lock, given, &snapshot, bytes.as_deref(), force)?;
    if was_missing && existed {
        // A deleted file comes back with its mode: recorded in the entry's name, else (an
        // entry of an earlier version) the kept copy's.
        let _ = match mode {
            Some(mode) => workspace.canonical_recorded(rel).and_then(|rel| workspace.txn().set_mode(&rel, *mode)),
            None => {
                workspace.canonical_recorded(rel).and_then(|rel| workspace.txn().state_copy_permissions(&entry, &rel))
            }
        };
    }
    workspace.txn().state_remove(&entry)?;
    drop(lock);
    Ok(existing.len() - 1)
}

/// A patched file: canonical path, content before (`None`: did not exist), hash after.
pub(crate) type PatchFileState = (String, Option<Vec<u8>>, Option<Sha256>);

/// A patched file whose content before is hashed already: canonical path, content before and
/// its hash (`None`: did not exist), hash after.
pub(crate) type HashedFileState<'a> = (&'a str, Option<(&'a [u8], Sha256)>, Option<Sha256>);

/// `files` with the content before each one hashed.
fn hashed(files: &[PatchFileState]) -> Vec<HashedFileState<'_>> {
    files
        .iter()
        .map(|(path, before, after)| (path.as_str(), before.as_deref().map(|bytes| (bytes, Sha256::of(bytes))), *after))
        .collect()
}

#[derive(Debug, Serialize, Deserialize)]
struct PatchSnapshot {
    files: Vec<Snapshot>,
    /// When it was recorded (absent in records kept before times were).
    #[serde(default)]
    time_unix: Option<i64>,
}

fn sequence_numbers(workspace: &Workspace, dir: &str, suffix: &str) -> Result<Vec<u64>> {
    let mut seqs: Vec<u64> =
        workspace.txn().state_list(dir)?.iter().filter_map(|name| name.strip_suffix(suffix)?.parse().ok()).collect();
    seqs.sort_unstable();
    Ok(seqs)
}

fn restore(
    workspace: &Workspace,
    lock: &editkit_vfs::FileLock<'_>,
    given: &str,
    snapshot: &Snapshot,
    bytes: Option<&[u8]>,
    force: bool,
) -> Result<()> {
    let current = lock.current_hash()?;
    if !force && current != snapshot.after_sha256 {
        return Err(Error::Vfs(editkit_vfs::Error::Stale {
            path: given.to_owned(),
            expected: snapshot.after_sha256,
            current,
        }));
    }
    match (snapshot.existed, bytes) {
        (true, Some(bytes)) => {
            lock.write(bytes, &WriteOptions { force: true, ..Default::default() })?;
        }
        (true, None) => {
            // Never turn a lost entry into a deletion.
            return Err(Error::NothingToUndo {
                what: format!("{given} (the kept content of its last change is gone)"),
            });
        }
        (false, _) => {
            if current.is_some() {
                workspace.delete(&snapshot.path)?;
            }
        }
    }
    Ok(())
}

/// Records the previous state of every file a patch touches, dropping the entries beyond
/// `depth`.
pub(crate) fn record_patch(workspace: &Workspace, files: &[PatchFileState], bounds: &Bounds<'_>) -> Result<()> {
    record_hashed_patch(workspace, &hashed(files), bounds)
}

/// [`record_patch`] of files whose contents before are hashed already (a patch's plan hashed
/// them when it read them).
pub(crate) fn record_hashed_patch(
    workspace: &Workspace,
    files: &[HashedFileState<'_>],
    bounds: &Bounds<'_>,
) -> Result<()> {
    record_kept(workspace, files)?;
    settle_patch(workspace, kept_bytes(files), bounds)
}

/// The bytes a patch record keeps of `files`.
pub(crate) fn kept_bytes(files: &[HashedFileState<'_>]) -> u64 {
    files.iter().filter_map(|(_, before, _)| *before).map(|(bytes, _)| bytes.len() as u64).sum()
}

/// Records a change before it is made; [`forget_patch`] it if the change fails, else
/// [`prune_patches`] once it is made (so a failed change costs no older entry).
pub(crate) fn record_patch_kept(workspace: &Workspace, files: &[PatchFileState]) -> Result<u64> {
    record_kept(workspace, &hashed(files))
}

/// [`record_patch_kept`] of files whose contents before are hashed already; [`settle_patch`]
/// it once the change is made.
pub(crate) fn record_hashed_patch_kept(workspace: &Workspace, files: &[HashedFileState<'_>]) -> Result<u64> {
    record_kept(workspace, files)
}

/// Once the change recorded last is made: drops the changes beyond the depth, and trims the
/// history to its byte bound when `added` (the bytes the record kept) takes it past.
pub(crate) fn settle_patch(workspace: &Workspace, added: u64, bounds: &Bounds<'_>) -> Result<()> {
    prune_depth(workspace, bounds.depth)?;
    bounds.track(workspace, added, None, true)
}

fn record_kept(workspace: &Workspace, files: &[HashedFileState<'_>]) -> Result<u64> {
    let seqs = sequence_numbers(workspace, "undo/patches", ".json")?;
    let seq = next_seq(seqs.last().copied())?;
    let mut snapshots = Vec::with_capacity(files.len());
    let mut parts: Vec<&[u8]> = Vec::new();
    let mut offset = 0u64;
    for &(rel, before, after) in files {
        let kept = before.map(|(bytes, sha256)| {
            parts.push(bytes);
            let slice = KeptSlice { offset, len: bytes.len() as u64, sha256 };
            offset += slice.len;
            slice
        });
        snapshots.push(Snapshot { path: rel.to_owned(), existed: before.is_some(), after_sha256: after, kept });
    }
    // The contents flushed first, then the record that names them.
    if !parts.is_empty() {
        workspace.txn().state_write_parts(&patch_contents(seq), &parts)?;
    }
    let json = serde_json::to_vec(&PatchSnapshot { files: snapshots, time_unix: Some(now_unix()) })
        .map_err(|e| Error::invalid("history", e.to_string()))?;
    workspace.txn().state_write(&format!("undo/patches/{seq:010}.json"), &json)?;
    Ok(seq)
}

/// Every kept content of patch `seq`, in the record's order (`None` for a file that did not
/// exist, or whose content is gone). All of them are read before anything is restored: a
/// damaged record restores nothing rather than half a patch.
fn patch_kept_contents(workspace: &Workspace, seq: u64, files: &[Snapshot]) -> Result<Vec<Option<Vec<u8>>>> {
    let damaged = |path: &str| Error::NothingToUndo { what: format!("patch (the kept content of {path} is damaged)") };
    if !files.iter().any(|snapshot| snapshot.kept.is_some()) {
        // A record kept one file per content.
        return (0..files.len())
            .map(|n| Ok(workspace.txn().state_read(&format!("undo/patches/{seq:010}-{n}.bytes"))?))
            .collect();
    }
    // Its size is checked against the record before it is read.
    let expected = files.iter().filter_map(|s| s.kept).map(|slice| slice.offset.saturating_add(slice.len)).max();
    let name = patch_contents(seq);
    let all = match workspace.txn().state_metadata(&name)? {
        Some((size, _)) if Some(size) == expected => workspace.txn().state_read(&name)?.unwrap_or_default(),
        Some(_) => return Err(damaged("the patch")),
        None => Vec::new(),
    };
    files
        .iter()
        .map(|snapshot| {
            let Some(slice) = snapshot.kept else { return Ok(None) };
            if all.is_empty() && slice.len > 0 {
                return Ok(None);
            }
            let range = usize::try_from(slice.offset)
                .ok()
                .zip(usize::try_from(slice.offset.saturating_add(slice.len)).ok())
                .and_then(|(start, end)| all.get(start..end))
                .filter(|bytes| Sha256::of(bytes) == slice.sha256)
                .ok_or_else(|| damaged(&snapshot.path))?;
            Ok(Some(range.to_vec()))
        })
        .collect()
}

/// Drops the oldest recorded changes beyond the depth, then trims the history to its byte
/// bound (the newest change stays).
pub(crate) fn prune_patches(workspace: &Workspace, bounds: &Bounds<'_>) -> Result<()> {
    prune_depth(workspace, bounds.depth)?;
    let total = bound_bytes(workspace, bounds.max_bytes, None, true)?;
    bounds.estimates.lock_unpoisoned().insert(workspace.state_dir().to_owned(), total);
    Ok(())
}

/// Drops the oldest recorded changes beyond `depth`.
fn prune_depth(workspace: &Workspace, depth: usize) -> Result<()> {
    let seqs = sequence_numbers(workspace, "undo/patches", ".json")?;
    let excess = seqs.len().saturating_sub(depth.max(1));
    for old in seqs.iter().take(excess) {
        remove_patch(workspace, *old)?;
    }
    Ok(())
}

/// Drops the change recorded as `seq` (the change it describes did not happen).
pub(crate) fn forget_patch(workspace: &Workspace, seq: u64) {
    let _ = remove_patch(workspace, seq);
}

fn remove_patch(workspace: &Workspace, seq: u64) -> Result<()> {
    let prefix = format!("{seq:010}-");
    for name in workspace.txn().state_list("undo/patches")? {
        if name.starts_with(&prefix) {
            workspace.txn().state_remove(&format!("undo/patches/{name}"))?;
        }
    }
    Ok(workspace.txn().state_remove(&format!("undo/patches/{seq:010}.json"))?)
}

/// Restores every file of the last patch; checks all of them first.
pub(crate) fn undo_patch(workspace: &Workspace, force: bool) -> Result<(Vec<String>, usize)> {
    let seqs = sequence_numbers(workspace, "undo/patches", ".json")?;
    let Some(seq) = seqs.last().copied() else {
        return Err(Error::NothingToUndo { what: "patch".into() });
    };
    let json = workspace.txn().state_read(&format!("undo/patches/{seq:010}.json"))?.unwrap_or_default();
    let patch: PatchSnapshot =
        serde_json::from_slice(&json).map_err(|_| Error::NothingToUndo { what: "patch".into() })?;
    let locks = workspace.lock_entries(patch.files.iter().map(|s| s.path.as_str()))?;
    // Check every file before restoring any: a read-only file (whatever force says) and,
    // unless forced, one changed since.
    for snapshot in &patch.files {
        workspace.check_writable(&snapshot.path)?;
    }
    if !force {
        for snapshot in &patch.files {
            let current = workspace.current_hash(&snapshot.path)?;
            if current != snapshot.after_sha256 {
                return Err(Error::Vfs(editkit_vfs::Error::Stale {
                    path: snapshot.path.clone(),
                    expected: snapshot.after_sha256,
                    current,
                }));
            }
        }
    }
    let contents = patch_kept_contents(workspace, seq, &patch.files)?;
    for (snapshot, bytes) in patch.files.iter().zip(&contents) {
        if snapshot.existed && bytes.is_none() {
            return Err(Error::NothingToUndo {
                what: format!("patch (the kept content of {} is gone)", snapshot.path),
            });
        }
    }
    let mut restored = Vec::new();
    for (snapshot, bytes) in patch.files.iter().zip(&contents) {
        let Some(lock) = locks.iter().find(|l| l.path() == snapshot.path) else { continue };
        restore(workspace, lock, &snapshot.path, snapshot, bytes.as_deref(), true)?;
        restored.push(snapshot.path.clone());
    }
    drop(locks);
    remove_patch(workspace, seq)?;
    Ok((restored, seqs.len() - 1))
}

/// One kept version of a file, newest first in [`file_versions`].
pub(crate) struct Version {
    /// Whether the file existed before the change (else the change created it).
    pub(crate) existed: bool,
    /// The kept content's size.
    pub(crate) size: Option<u64>,
    /// When the change was made.
    pub(crate) time: Option<i64>,
    /// What the file held after the change.
    pub(crate) after: Option<Sha256>,
}

/// The kept versions of canonical `rel`, newest first.
pub(crate) fn file_versions(workspace: &Workspace, rel: &str) -> Result<Vec<Version>> {
    let dir = file_dir(rel);
    let mut versions = Vec::new();
    for Listed { entry: EntryName { after, existed, time, .. }, name } in entries(workspace, &dir)?.into_iter().rev() {
        let size = if existed {
            workspace.txn().state_read(&format!("{dir}/{name}"))?.map(|bytes| bytes.len() as u64)
        } else {
            None
        };
        versions.push(Version { existed, size, time, after });
    }
    Ok(versions)
}

/// Every file with kept versions (those kept before paths were recorded are left out).
pub(crate) fn files_with_history(workspace: &Workspace) -> Result<Vec<String>> {
    let mut paths = Vec::new();
    for folder in workspace.txn().state_list("undo/files")? {
        if let Some(bytes) = workspace.txn().state_read(&format!("undo/files/{folder}/{PATH_MARKER}"))?
            && let Ok(path) = String::from_utf8(bytes)
            && file_dir(&path) == format!("undo/files/{folder}")
        {
            paths.push(path);
        }
    }
    paths.sort();
    Ok(paths)
}

/// One recorded multi-file change, newest first in [`patches`].
pub(crate) struct PatchRecord {
    /// The files it touched, with what each held after it.
    pub(crate) files: Vec<(String, Option<Sha256>)>,
    /// When it was recorded.
    pub(crate) time: Option<i64>,
}

/// The recorded multi-file changes (patches, file moves, recursive deletes), newest first.
pub(crate) fn patches(workspace: &Workspace) -> Result<Vec<PatchRecord>> {
    let mut records = Vec::new();
    for seq in sequence_numbers(workspace, "undo/patches", ".json")?.into_iter().rev() {
        let Some(json) = workspace.txn().state_read(&format!("undo/patches/{seq:010}.json"))? else { continue };
        let Ok(patch) = serde_json::from_slice::<PatchSnapshot>(&json) else { continue };
        records.push(PatchRecord {
            files: patch.files.into_iter().map(|s| (s.path, s.after_sha256)).collect(),
            time: patch.time_unix,
        });
    }
    Ok(records)
}

/// The state entry recording what the byte bound evicted (for `history`).
const EVICTED: &str = "undo/evicted.json";

/// What the byte bound dropped so far, as `history` reports it.
#[derive(Debug, Default, Serialize, Deserialize)]
struct EvictedRecord {
    versions: u64,
    bytes: u64,
    time_unix: i64,
}

/// What the byte bound dropped so far in this root's history; `None` when nothing was.
pub(crate) fn evicted(workspace: &Workspace, max_bytes: u64) -> Result<Option<crate::types::HistoryEvicted>> {
    let Some(json) = workspace.txn().state_read(EVICTED)? else { return Ok(None) };
    // The state folder is input: a damaged record reports nothing rather than failing.
    let Ok(record) = serde_json::from_slice::<EvictedRecord>(&json) else { return Ok(None) };
    Ok((record.versions > 0).then_some(crate::types::HistoryEvicted {
        versions: record.versions,
        bytes: record.bytes,
        time_unix: record.time_unix,
        max_bytes,
    }))
}

/// One undo entry as the byte bound sees it: a file's version or a recorded patch.
struct Sized {
    /// When it was kept (the entry's status-change time, in nanoseconds: when it was linked,
    /// copied or written into the state folder), then its sequence number: the order of
    /// eviction.
    time: i64,
    seq: u64,
    /// Its state entries (a patch has its record and its kept contents).
    names: Vec<String>,
    bytes: u64,
    patch: Option<u64>,
}

/// Every undo entry of the root with its size and time.
fn sized_entries(workspace: &Workspace) -> Result<Vec<Sized>> {
    let txn = workspace.txn();
    let mut found = Vec::new();
    for folder in txn.state_list("undo/files")? {
        let dir = format!("undo/files/{folder}");
        for Listed { entry: EntryName { seq, .. }, name } in entries(workspace, &dir)? {
            let entry = format!("{dir}/{name}");
            let Some((bytes, time)) = txn.state_metadata(&entry)? else { continue };
            found.push(Sized { time, seq, names: vec![entry], bytes, patch: None });
        }
    }
    let names = txn.state_list("undo/patches")?;
    for seq in sequence_numbers(workspace, "undo/patches", ".json")? {
        let record = format!("undo/patches/{seq:010}.json");
        let Some((record_bytes, time)) = txn.state_metadata(&record)? else { continue };
        let prefix = format!("{seq:010}-");
        let mut entry = Sized { time, seq, names: vec![record], bytes: record_bytes, patch: Some(seq) };
        for name in names.iter().filter(|name| name.starts_with(&prefix)) {
            let kept = format!("undo/patches/{name}");
            if let Some((bytes, _)) = txn.state_metadata(&kept)? {
                entry.bytes += bytes;
                entry.names.push(kept);
            }
        }
        found.push(entry);
    }
    Ok(found)
}

/// Drops the oldest undo entries of the root until the history holds at most `max_bytes`,
/// never the one just kept (`keep`, a per-file entry's name, or the newest patch record when
/// `keep_patch`), and records what went for `history`.
pub(crate) fn bound_bytes(workspace: &Workspace, max_bytes: u64, keep: Option<&str>, keep_patch: bool) -> Result<u64> {
    let mut found = sized_entries(workspace)?;
    let mut total: u64 = found.iter().map(|entry| entry.bytes).sum();
    if total <= max_bytes {
        return Ok(total);
    }
    let newest_patch = found.iter().filter_map(|entry| entry.patch).max();
    found.sort_by_key(|entry| (entry.time, entry.seq));
    let (mut versions, mut bytes) = (0, 0);
    for entry in found {
        if total <= max_bytes {
            break;
        }
        let kept_now = match entry.patch {
            Some(seq) => keep_patch && Some(seq) == newest_patch,
            None => keep.is_some_and(|keep| entry.names.iter().any(|name| name == keep)),
        };
        if kept_now {
            continue;
        }
        match entry.patch {
            Some(seq) => remove_patch(workspace, seq)?,
            None => {
                for name in &entry.names {
                    workspace.txn().state_remove_soon(name)?;
                }
            }
        }
        total -= entry.bytes;
        versions += 1;
        bytes += entry.bytes;
    }
    if versions > 0 {
        let mut record = workspace
            .txn()
            .state_read(EVICTED)?
            .and_then(|json| serde_json::from_slice::<EvictedRecord>(&json).ok())
            .unwrap_or_default();
        record.versions = record.versions.saturating_add(versions);
        record.bytes = record.bytes.saturating_add(bytes);
        record.time_unix = now_unix();
        let json = serde_json::to_vec(&record).map_err(|e| Error::invalid("history", e.to_string()))?;
        workspace.txn().state_write(EVICTED, &json)?;
    }
    Ok(total)
}
