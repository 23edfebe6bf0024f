//! Phase 2: stage every new content, write the intent journal, back up the originals, rename
//! in order; undo on failure; recover a journal left by a killed process.
//!
//! The order of steps is what makes a crash at any moment repairable:
//! 1. the journal (`patch/<id>.json` in the state folder, which is outside the workspace)
//!    names every target, its temp file, its backup and the folders the commit will create;
//! 2. every new content goes to its temp file beside its target;
//! 3. every original is hard-linked to its backup beside it (`.editkit-patch-<id>-<n>.bak`,
//!    in the same folder, so the link and the renames never cross a file system), and the
//!    temps, backups and new folders are made durable in one batch ([`Txn::make_durable`]:
//!    one `syncfs` for a large batch on Linux, else an fsync per file and folder);
//! 4. temps are renamed over their targets and deleted files removed, in plan order, then the
//!    folders they are in are made durable in one batch;
//! 5. rewriting the journal as committed is the commit point; the backups, then the journal,
//!    are removed after it (a recovery finishes that clean-up for a committed journal).
//!
//! [`Txn::make_durable`]: editkit_vfs::Txn::make_durable
//!
//! Undoing (in process, or by [`recover`]) walks the journal backwards: a temp that still
//! exists was never renamed (remove it); otherwise a backup that still exists is renamed back
//! over its target, and a target that did not exist before is removed (a temp that was never
//! staged leaves no backup either, since backups follow staging). Every step of the undo can be
//! repeated, so a crash during recovery is repaired by the next recovery.

use std::sync::atomic::{AtomicU64, Ordering};

use editkit_vfs::Workspace;
use serde::{Deserialize, Serialize};

use crate::error::{Cause, Error, Failure, Result};
use crate::plan::Plan;
use crate::report::{Applied, Recovery};

/// Folder under the state dir holding journals and backups.
const JOURNAL_DIR: &str = "patch";
const JOURNAL_VERSION: u32 = 1;

static COUNTER: AtomicU64 = AtomicU64::new(0);

#[derive(Debug, Serialize, Deserialize)]
struct Journal {
    version: u32,
    id: String,
    /// One entry per file, in the order the renames happen.
    entries: Vec<Entry>,
    /// Directories the commit creates, shallowest first (removed on undo when empty).
    created_dirs: Vec<String>,
    /// Set at the commit point: every rename is done, only the clean-up is left.
    #[serde(default)]
    committed: bool,
}

#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    /// Canonical path of the file.
    target: String,
    /// Canonical path of the staged new content; `None` when the file is deleted.
    temp: Option<String>,
    /// Canonical path of the hard-link backup of the original, beside it; `None` when it did
    /// not exist.
    backup: Option<String>,
}

/// Fault injection for tests of the commit: a hook called before every write step (public with
/// the `failpoints` feature only; without it no hook ever returns a fault).
#[cfg_attr(not(feature = "failpoints"), allow(dead_code, unreachable_pub))]
pub mod failpoint {
    /// A write step of the commit, in the order they happen.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub enum Step {
        /// Writing the journal.
        Journal,
        /// Writing the temp file of the n-th file.
        Stage(usize),
        /// Hard-linking the backup of the n-th file.
        Backup(usize),
        /// Making the staged files, the backups and the new folders durable (one step: the whole
        /// batch is flushed at once).
        Sync,
        /// Renaming the n-th temp over its target (or removing a deleted file).
        Replace(usize),
        /// Making the renames durable and marking the journal committed (the commit point).
        Finish,
    }

    /// What the hook makes of a step.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Fault {
        /// The step fails with an I/O error; the commit rolls back as it would in real life.
        Fail,
        /// The process "dies" before the step: the commit returns at once, leaving temps,
        /// journal and backups as a killed process would.
        Crash,
    }
}

use failpoint::{Fault, Step};

/// Commits a plan: all its files change, or none do.
///
/// ```
/// # fn main() -> Result<(), editkit_patch::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
/// let patch = editkit_patch::parse("*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n")?;
/// let plan = editkit_patch::plan(&workspace, &patch, &Default::default())?;
/// let applied = editkit_patch::commit(&workspace, plan)?;
/// assert_eq!(applied.added, ["hello.txt"]);
/// assert_eq!(std::fs::read_to_string(dir.path().join("hello.txt")).unwrap(), "hi\n");
/// # Ok(()) }
/// ```
///
/// # Errors
/// [`Error::Plan`] with a stale failure when a file changed on disk since planning (nothing
/// written); [`Error::Commit`] when a write step fails: every file is put back (or, if even
/// that fails, the journal is kept for [`recover`]).
pub fn commit(workspace: &Workspace, plan: Plan<'_>) -> Result<Applied> {
    commit_with_hook(workspace, plan, &mut |_| None).map(|(applied, _released)| applied)
}

/// [`commit`], keeping the committed files' locks: they are released when the returned
/// [`HeldLocks`] is dropped, or beside the caller's own work with [`HeldLocks::release_beside`].
/// Releasing them frees the blocks of the files the patch replaced, which costs about as much
/// as answering for a large patch.
///
/// ```
/// # fn main() -> Result<(), editkit_patch::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
/// let patch = editkit_patch::parse("*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n")?;
/// let plan = editkit_patch::plan(&workspace, &patch, &Default::default())?;
/// let (applied, held) = editkit_patch::commit_holding(&workspace, plan)?;
/// assert_eq!(held.len(), 1);
/// let added = held.release_beside(|| applied.added.len());
/// assert_eq!(added, 1);
/// # Ok(()) }
/// ```
///
/// # Errors
/// As [`commit`]; a failed commit holds nothing.
pub fn commit_holding<'ws>(workspace: &'ws Workspace, plan: Plan<'ws>) -> Result<(Applied, HeldLocks<'ws>)> {
    commit_with_hook(workspace, plan, &mut |_| None)
}

/// The locks a committed patch still holds (see [`commit_holding`]); dropping them releases
/// them.
#[derive(Debug)]
#[must_use = "dropping the locks releases them at once"]
pub struct HeldLocks<'ws> {
    locks: Vec<editkit_vfs::FileLock<'ws>>,
}

impl<'ws> HeldLocks<'ws> {
    pub(crate) fn new(locks: Vec<editkit_vfs::FileLock<'ws>>) -> Self {
        Self { locks }
    }

    /// How many locks are held.
    #[must_use]
    pub fn len(&self) -> usize {
        self.locks.len()
    }

    /// Whether none are (a dry run, or a patch that changed nothing).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.locks.is_empty()
    }

    /// Runs `work` on this thread while the locks are released on another, and returns once
    /// both are done. `work` may take any of these locks: it waits for that one's release.
    pub fn release_beside<R>(mut self, work: impl FnOnce() -> R) -> R {
        let locks = std::mem::take(&mut self.locks);
        if locks.is_empty() {
            return work();
        }
        std::thread::scope(|scope| {
            // A thread that cannot start drops its closure: the locks are released here.
            let _releasing = std::thread::Builder::new().spawn_scoped(scope, move || release(locks));
            work()
        })
    }
}

impl Drop for HeldLocks<'_> {
    fn drop(&mut self) {
        release(std::mem::take(&mut self.locks));
    }
}

/// [`commit`] with a hook called before every write step, for fault-injection tests (the
/// `failpoints` feature).
///
/// # Errors
/// As [`commit`]; an injected crash returns [`Error::Commit`] with `rolled_back: false`.
#[cfg(feature = "failpoints")]
pub fn commit_with_failpoint(
    workspace: &Workspace,
    plan: Plan<'_>,
    hook: &mut dyn FnMut(&Step) -> Option<Fault>,
) -> Result<Applied> {
    commit_with_hook(workspace, plan, hook).map(|(applied, _released)| applied)
}

fn commit_with_hook<'ws>(
    workspace: &'ws Workspace,
    plan: Plan<'ws>,
    hook: &mut dyn FnMut(&Step) -> Option<Fault>,
) -> Result<(Applied, HeldLocks<'ws>)> {
    let Plan { locks, writes, mut preview } = plan;
    preview.dry_run = false;
    // The locks kept other editkit writers out; anyone else is caught here, before any write.
    // Each file is compared with what was read when planning (rather than hashed again), by
    // a few threads when there are many, through the handles of the folders the commit then
    // writes in (each opened once); what differs is looked at again the slow way, to say what
    // is there now.
    let folders = workspace.txn().folders();
    let now = crate::par::map(&writes, RECHECKS_PER_THREAD, crate::par::compute_threads(), |write| {
        match (write.before(), write.sha256_before) {
            (Some(before), Some(sha256))
                if workspace.canonical_recorded(&write.path).is_ok_and(|path| folders.holds(&path, before)) =>
            {
                Ok(Some(sha256))
            }
            (Some(before), Some(sha256)) => workspace.current_hash_knowing(&write.path, before, sha256),
            _ => workspace.current_hash(&write.path),
        }
    });
    let mut stale = Vec::new();
    for (write, now) in writes.iter().zip(now) {
        let now = now?;
        if now != write.sha256_before {
            stale.push(Failure {
                path: write.path.clone(),
                hunk: None,
                patch_line: 0,
                preview: String::new(),
                cause: Cause::Vfs(editkit_vfs::Error::Stale {
                    path: write.path.clone(),
                    expected: write.sha256_before,
                    current: now,
                }),
            });
        }
    }
    if !stale.is_empty() {
        return Err(Error::Plan { failures: stale });
    }
    if writes.is_empty() {
        return Ok((preview, HeldLocks::new(locks)));
    }
    let id = new_id();
    let mut journal = Journal {
        version: JOURNAL_VERSION,
        id: id.clone(),
        entries: Vec::with_capacity(writes.len()),
        created_dirs: missing_parents(workspace, writes.iter().filter(|w| w.after.is_some()).map(|w| w.path.as_str())),
        committed: false,
    };
    let mut journal_written = false;
    // How many entries, in order, had their target replaced (renamed over or deleted).
    let mut replaced = 0;
    let outcome = execute(workspace, &folders, &writes, hook, &mut journal, &mut journal_written, &mut replaced);
    match outcome {
        Ok(()) => {
            clean_up(workspace, &journal);
            // The ledger takes what was written, through each file's lock.
            let by_path: std::collections::HashMap<&str, &editkit_vfs::FileLock<'_>> =
                locks.iter().map(|lock| (lock.path(), lock)).collect();
            for write in &writes {
                if let Some(lock) = by_path.get(write.path.as_str()) {
                    lock.record(write.sha256_after);
                }
            }
            // Their lock files stay for the next writer of these files.
            for lock in &locks {
                lock.mark_written();
            }
            Ok((preview, HeldLocks::new(locks)))
        }
        Err(Stop::Crashed(step)) => Err(Error::Commit {
            step,
            rolled_back: false,
            source: Box::new(editkit_vfs::Error::Io {
                op: "commit",
                path: String::new(),
                source: std::io::Error::other("injected crash"),
            }),
        }),
        Err(Stop::Failed(step, source)) => {
            // Before the journal nothing was written at all.
            let rolled_back = !journal_written
                || (rollback(workspace, &journal, Some(replaced)).is_ok()
                    && workspace.txn().state_remove(&journal_name(&id)).is_ok());
            if rolled_back {
                remove_backups(workspace, &journal);
                // A folder moved away while the batch held it (refused by `check_unmoved`
                // before any rename) keeps what was staged or linked in it, out of reach of
                // the paths above: removed through the handles the batch wrote through.
                for entry in &journal.entries {
                    for name in entry.temp.iter().chain(&entry.backup) {
                        if let Ok(name) = workspace.canonical_recorded(name) {
                            let _ = folders.remove_file(&name);
                        }
                    }
                }
            }
            drop(locks);
            Err(Error::Commit { step, rolled_back, source: Box::new(source) })
        }
    }
}

enum Stop {
    Failed(String, editkit_vfs::Error),
    Crashed(String),
}

fn step<T>(
    hook: &mut dyn FnMut(&Step) -> Option<Fault>,
    step: Step,
    name: impl FnOnce() -> String,
    action: impl FnOnce() -> editkit_vfs::Result<T>,
) -> Result<T, Stop> {
    match hook(&step) {
        Some(Fault::Crash) => Err(Stop::Crashed(name())),
        Some(Fault::Fail) => {
            let name = name();
            let source = editkit_vfs::Error::Io {
                op: "commit",
                path: name.clone(),
                source: std::io::Error::other("injected failure"),
            };
            Err(Stop::Failed(name, source))
        }
        None => action().map_err(|source| Stop::Failed(name(), source)),
    }
}

fn execute(
    workspace: &Workspace,
    folders: &editkit_vfs::Folders<'_>,
    writes: &[crate::plan::FileWrite],
    hook: &mut dyn FnMut(&Step) -> Option<Fault>,
    journal: &mut Journal,
    journal_written: &mut bool,
    replaced: &mut usize,
) -> Result<(), Stop> {
    let id = journal.id.clone();
    // Every name is chosen before the journal is written, so recovery knows them all.
    for (idx, write) in writes.iter().enumerate() {
        let temp = write.after.as_ref().map(|_| {
            let name = temp_name(&id, idx);
            match write.path.rsplit_once('/') {
                Some((parent, _)) => format!("{parent}/{name}"),
                None => name,
            }
        });
        let backup = write.sha256_before.as_ref().map(|_| beside(&write.path, &backup_name(&id, idx)));
        journal.entries.push(Entry { target: write.path.clone(), temp, backup });
    }
    let bytes = serde_json::to_vec_pretty(&*journal).expect("a journal of strings serialises");
    step(hook, Step::Journal, || "journal".to_owned(), || workspace.txn().state_write(&journal_name(&id), &bytes))?;
    *journal_written = true;
    // The folders the last staleness check opened are written in next: one moved away since
    // (another process) is refused before anything is staged or linked in it.
    folders.check_unmoved().map_err(|err| Stop::Failed("journal".to_owned(), err))?;
    stage_all(workspace, folders, writes, &id, hook)?;
    for (idx, entry) in journal.entries.iter().enumerate() {
        if let Some(backup) = &entry.backup {
            step(
                hook,
                Step::Backup(idx),
                || format!("back up {}", entry.target),
                || {
                    folders.hard_link(
                        &workspace.canonical_recorded(&entry.target)?,
                        &workspace.canonical_recorded(backup)?,
                    )
                },
            )?;
        }
    }
    // The staged files, the backups and the new folders must be on disk before any original is
    // replaced, or a power loss could keep a replaced file whose backup never reached the disk:
    // one flush for the whole batch.
    let parent_of = |path: &str| path.rsplit_once('/').map_or(String::new(), |(parent, _)| parent.to_owned());
    let before_renames: Vec<String> = journal
        .entries
        .iter()
        .filter_map(|e| e.temp.clone())
        .chain(journal.entries.iter().filter_map(|e| e.backup.as_deref()).map(parent_of))
        .chain(journal.created_dirs.iter().map(|dir| parent_of(dir)))
        .collect();
    step(
        hook,
        Step::Sync,
        || "sync staged files and backups".to_owned(),
        || {
            folders.make_durable(&recorded(workspace, &before_renames)?)?;
            // Every folder renamed into is still where the plan resolved it, beneath the root
            // (another process may have moved one while the batch held its handle).
            folders.check_unmoved()
        },
    )?;
    for (idx, entry) in journal.entries.iter().enumerate() {
        match &entry.temp {
            Some(temp) => {
                step(
                    hook,
                    Step::Replace(idx),
                    || format!("rename {}", entry.target),
                    || {
                        folders
                            .rename(&workspace.canonical_recorded(temp)?, &workspace.canonical_recorded(&entry.target)?)
                    },
                )?;
            }
            None => {
                step(
                    hook,
                    Step::Replace(idx),
                    || format!("delete {}", entry.target),
                    || workspace.txn().remove(&workspace.canonical_recorded(&entry.target)?),
                )?;
            }
        }
        *replaced = idx + 1;
    }
    // Every rename and removal is on disk before the journal says committed, or a power loss
    // after the commit point could keep some files old with their backups gone.
    let renamed: Vec<String> =
        journal.entries.iter().map(|e| parent_of(&e.target)).chain(journal.created_dirs.iter().cloned()).collect();
    journal.committed = true;
    let bytes = serde_json::to_vec_pretty(&*journal).expect("a journal of strings serialises");
    step(
        hook,
        Step::Finish,
        || "finish".to_owned(),
        || {
            folders.make_durable(&recorded(workspace, &renamed)?)?;
            workspace.txn().state_write(&journal_name(&id), &bytes)
        },
    )
}

/// Fewest files worth a thread of their own for the last staleness check.
const RECHECKS_PER_THREAD: usize = 16;

/// Most threads staging temp files at once.
const STAGING_THREADS: usize = 8;

/// Stages every new content, not yet durable (the [`Step::Sync`] after the backups flushes the
/// batch at once). The temp files are written on this thread, or by a few threads when the
/// first ones show that each create is slow (see [`crate::par::parts_if_slow`]); the hook
/// still sees the steps in order, and a fault at step n lets exactly the steps before it
/// happen.
fn stage_all(
    workspace: &Workspace,
    folders: &editkit_vfs::Folders<'_>,
    writes: &[crate::plan::FileWrite],
    id: &str,
    hook: &mut dyn FnMut(&Step) -> Option<Fault>,
) -> Result<(), Stop> {
    let mut todo: Vec<(usize, &crate::plan::FileWrite, &[u8])> = Vec::new();
    let mut fault = None;
    for (idx, write) in writes.iter().enumerate() {
        let Some(bytes) = write.bytes() else { continue };
        match hook(&Step::Stage(idx)) {
            None => todo.push((idx, write, bytes)),
            Some(found) => {
                fault = Some((found, format!("stage {}", write.path)));
                break;
            }
        }
    }
    let stage_part = |part: &[(usize, &crate::plan::FileWrite, &[u8])]| {
        for (idx, write, bytes) in part {
            let staged = workspace
                .canonical_recorded(&write.path)
                .and_then(|target| folders.stage_deferred(&target, &temp_name(id, *idx), bytes, true))
                .and_then(|staged| match &write.permissions_from {
                    Some(from) => workspace.txn().copy_permissions(&workspace.canonical_recorded(from)?, &staged.temp),
                    None => Ok(()),
                });
            if let Err(err) = staged {
                return Some((format!("stage {}", write.path), err));
            }
        }
        None
    };
    // Every part has finished when `parts` returns (a thread left running would go on past
    // the rollback); the first failure in order is the step's. A panicking stager cannot
    // happen short of a bug: it is reported as a failed step, so the commit still rolls back.
    let failed = crate::par::parts_if_slow(&todo, PROBED_FILES, SLOW_FILE, STAGING_THREADS, stage_part)
        .into_iter()
        .find_map(|outcome| outcome.unwrap_or_else(|_| Some(panicked("stage"))));
    if let Some((name, err)) = failed {
        return Err(Stop::Failed(name, err));
    }
    match fault {
        None => Ok(()),
        Some((Fault::Crash, name)) => Err(Stop::Crashed(name)),
        Some((Fault::Fail, name)) => Err(Stop::Failed(
            name.clone(),
            editkit_vfs::Error::Io { op: "commit", path: name, source: std::io::Error::other("injected failure") },
        )),
    }
}

/// The canonical paths `paths` of a journal (or named after its entries), checked again.
fn recorded(workspace: &Workspace, paths: &[String]) -> editkit_vfs::Result<Vec<editkit_vfs::CanonicalPath>> {
    paths.iter().map(|path| workspace.canonical_recorded(path)).collect()
}

/// The temp file name of the n-th file of a commit (in the target's folder).
fn temp_name(id: &str, idx: usize) -> String {
    format!(".editkit-patch-{id}-{idx}.tmp")
}

/// The backup file name of the n-th file of a commit (in the target's folder).
fn backup_name(id: &str, idx: usize) -> String {
    format!(".editkit-patch-{id}-{idx}.bak")
}

/// The path of `file` in the folder of canonical `target`.
fn beside(target: &str, file: &str) -> String {
    match target.rsplit_once('/') {
        Some((parent, _)) => format!("{parent}/{file}"),
        None => file.to_owned(),
    }
}

/// Undoes a journal's renames, newest first; returns the paths put back. Idempotent.
///
/// `replaced`: how many entries, in order, the commit that failed here replaced (renamed over
/// or deleted); the others' targets are never touched, only their temp files and backups
/// removed. `None` (a recovery after a crash) judges each entry by what is on disk: a missing
/// temp file means it was renamed.
fn rollback(workspace: &Workspace, journal: &Journal, replaced: Option<usize>) -> editkit_vfs::Result<Vec<String>> {
    let mut restored = Vec::new();
    for (index, entry) in journal.entries.iter().enumerate().rev() {
        if replaced.is_some_and(|replaced| index >= replaced) {
            // Never replaced (a failure before its step): the target holds its original, or
            // what someone else put there since; only what this commit made goes.
            for made in entry.temp.iter().chain(&entry.backup) {
                workspace.txn().remove(&workspace.canonical_recorded(made)?)?;
            }
            continue;
        }
        let target = workspace.canonical_recorded(&entry.target)?;
        if let Some(temp) = &entry.temp {
            let temp = workspace.canonical_recorded(temp)?;
            if workspace.txn().entry_exists(&temp)? {
                // Never renamed: the target still holds its original.
                workspace.txn().remove(&temp)?;
                if let Some(backup) = &entry.backup {
                    workspace.txn().remove(&workspace.canonical_recorded(backup)?)?;
                }
                continue;
            }
        }
        match &entry.backup {
            Some(backup) => {
                let backup = workspace.canonical_recorded(backup)?;
                if workspace.txn().entry_exists(&backup)? {
                    workspace.txn().rename(&backup, &target)?;
                    restored.push(entry.target.clone());
                }
            }
            None => {
                if entry.temp.is_some() {
                    workspace.txn().remove(&target)?;
                    restored.push(entry.target.clone());
                }
            }
        }
    }
    remove_dirs(workspace, &journal.created_dirs);
    Ok(restored)
}

/// Finishes what a killed process left: every journal found is rolled back (its files put back
/// to their content before that patch), and leftover backups of finished patches are removed.
/// It waits for the locks of the journal's files, so a patch still running in another process
/// is never touched; do not call it while this thread holds a [`Plan`] on the same files.
/// [`crate::apply`] calls it before every patch.
///
/// ```
/// # fn main() -> Result<(), editkit_patch::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
/// assert!(editkit_patch::recover(&workspace)?.is_empty());
/// # Ok(()) }
/// ```
///
/// # Errors
/// [`Error::Journal`] for a journal that cannot be parsed; [`Error::Vfs`] when a file cannot
/// be put back (the journal is kept, so recovery can be retried).
pub fn recover(workspace: &Workspace) -> Result<Recovery> {
    let mut recovery = Recovery::default();
    let names = workspace.txn().state_list(JOURNAL_DIR)?;
    for name in &names {
        let Some(id) = name.strip_suffix(".json") else { continue };
        let journal_name = format!("{JOURNAL_DIR}/{name}");
        let Some(journal) = read_journal(workspace, &journal_name)? else { continue };
        check_journal(workspace, &journal_name, id, &journal)?;
        let locks = workspace.lock_entries(journal.entries.iter().map(|e| e.target.as_str()))?;
        // The patch may have finished while its locks were awaited.
        let Some(journal) = read_journal(workspace, &journal_name)? else { continue };
        if journal.committed {
            // Every file already holds its new content: only the clean-up was left.
            clean_up(workspace, &journal);
            drop(locks);
            recovery.cleaned += 1;
            continue;
        }
        let restored = rollback(workspace, &journal, None)?;
        workspace.txn().state_remove(&journal_name)?;
        remove_backups(workspace, &journal);
        // Put back (or never changed): the ledger forgets them.
        for lock in &locks {
            lock.record(None);
        }
        drop(locks);
        recovery.rolled_back.push(id.to_owned());
        recovery.restored.extend(restored);
    }
    Ok(recovery)
}

fn read_journal(workspace: &Workspace, name: &str) -> Result<Option<Journal>> {
    let Some(bytes) = workspace.txn().state_read(name)? else { return Ok(None) };
    let journal: Journal = serde_json::from_slice(&bytes)
        .map_err(|err| Error::Journal { name: name.to_owned(), reason: err.to_string() })?;
    if journal.version != JOURNAL_VERSION {
        return Err(Error::Journal { name: name.to_owned(), reason: format!("unknown version {}", journal.version) });
    }
    Ok(Some(journal))
}

/// Refuses a journal editkit could not have written: recovery renames and removes the paths it
/// names without the blocked-path check, so each must be exactly what a commit of this id
/// would use (targets allowed by the policy, backups and temps beside their targets, created
/// folders above a target). The state folder is outside the workspace, so a repository cannot
/// ship a journal; this guards against a damaged or hand-edited one.
fn check_journal(workspace: &Workspace, name: &str, id: &str, journal: &Journal) -> Result<()> {
    let refuse = |reason: String| Error::Journal {
        name: name.to_owned(),
        reason: format!("{reason}; it is not a journal editkit wrote: remove it if no patch is running"),
    };
    if journal.id != id {
        return Err(refuse(format!("its id `{}` is not its file name", journal.id)));
    }
    for (idx, entry) in journal.entries.iter().enumerate() {
        let target = &entry.target;
        match workspace.resolve_entry(target) {
            Ok(canonical) if canonical == *target => {}
            Ok(_) => return Err(refuse(format!("target `{target}` is not a canonical path"))),
            Err(err) => return Err(refuse(format!("target `{target}` is refused: {err}"))),
        }
        if let Some(backup) = &entry.backup {
            let expected = beside(target, &backup_name(id, idx));
            if *backup != expected {
                return Err(refuse(format!("backup `{backup}` of `{target}` is not `{expected}`")));
            }
        }
        if let Some(temp) = &entry.temp {
            let expected = beside(target, &temp_name(id, idx));
            if *temp != expected {
                return Err(refuse(format!("temp file `{temp}` of `{target}` is not `{expected}`")));
            }
        }
    }
    for dir in &journal.created_dirs {
        let above_a_target = journal
            .entries
            .iter()
            .any(|e| e.target.strip_prefix(dir.as_str()).is_some_and(|rest| rest.starts_with('/')));
        if dir.is_empty() || !above_a_target {
            return Err(refuse(format!("created folder `{dir}` holds none of its targets")));
        }
    }
    Ok(())
}

/// A step whose thread panicked (a bug), as a failed step: the commit still rolls back.
fn panicked(op: &'static str) -> (String, editkit_vfs::Error) {
    (
        op.to_owned(),
        editkit_vfs::Error::Io {
            op,
            path: String::new(),
            source: std::io::Error::other(format!("a {op} thread panicked")),
        },
    )
}

fn journal_name(id: &str) -> String {
    format!("{JOURNAL_DIR}/{id}.json")
}

/// Removes the journal's backups (best effort: a leftover is a hidden `.editkit-` file), by a
/// few threads when the first removals show they are slow: removing a backup frees the
/// original's blocks, which on a file system that discards freed blocks at once (`discard`
/// without a journal) waits for the device each time, and those waits overlap.
fn remove_backups(workspace: &Workspace, journal: &Journal) {
    let backups: Vec<&str> = journal.entries.iter().filter_map(|entry| entry.backup.as_deref()).collect();
    // A backup is a hard link to a file or link, never a folder.
    let folders = workspace.txn().folders();
    crate::par::parts_if_slow(&backups, PROBED_FILES, SLOW_FILE, crate::par::IO_THREADS, |part| {
        for backup in part {
            if let Ok(backup) = workspace.canonical_recorded(backup) {
                let _ = folders.remove_file(&backup);
            }
        }
    });
}

/// Files staged (or backups removed) on the calling thread, timed, before the rest are
/// spread over threads or not.
const PROBED_FILES: usize = 8;

/// What a file's staging (or a backup's removal) costs on a file system where threads pay:
/// on a journaled ext4 it takes about 20 µs, less than a thread's start, while ext4 without a
/// journal searching past recently freed inodes, or discarding freed blocks at once, takes
/// 100 µs and more.
const SLOW_FILE: std::time::Duration = std::time::Duration::from_micros(50);

/// Releases a committed patch's locks. Each closes the last descriptor of the file its path
/// held before (the backup is gone by then), which frees that file's blocks: where that waits
/// on the disk (a file system that discards freed blocks at once), the locks are released by a
/// few threads, as the backups are removed.
fn release(locks: Vec<editkit_vfs::FileLock<'_>>) {
    let locks: Vec<std::sync::Mutex<Option<editkit_vfs::FileLock<'_>>>> =
        locks.into_iter().map(|lock| std::sync::Mutex::new(Some(lock))).collect();
    crate::par::parts_if_slow(&locks, PROBED_FILES, SLOW_FILE, crate::par::IO_THREADS, |part| {
        for lock in part {
            drop(lock.lock().map(|mut lock| lock.take()));
        }
    });
}

/// After the commit point: the backups go, then the journal (so a crash in between leaves a
/// committed journal that the next recovery cleans up).
fn clean_up(workspace: &Workspace, journal: &Journal) {
    remove_backups(workspace, journal);
    let _ = workspace.txn().state_remove(&journal_name(&journal.id));
}

fn remove_dirs(workspace: &Workspace, dirs: &[String]) {
    // Deepest first; a folder that is not empty stays.
    for dir in dirs.iter().rev() {
        if let Ok(dir) = workspace.canonical_recorded(dir) {
            let _ = workspace.txn().remove(&dir);
        }
    }
}

/// Parent folders of `paths` that do not exist yet, shallowest first.
fn missing_parents<'a>(workspace: &Workspace, paths: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut missing: Vec<String> = Vec::new();
    // Each folder is looked at once, however many files are in it.
    let mut checked: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for path in paths {
        let mut end = 0;
        while let Some(slash) = path.get(end..).and_then(|rest| rest.find('/')) {
            let dir = path.get(..end + slash).unwrap_or_default();
            end += slash + 1;
            if checked.insert(dir) && !workspace.exists(dir).unwrap_or(true) {
                missing.push(dir.to_owned());
            }
        }
    }
    missing.sort_by_key(|dir| dir.matches('/').count());
    missing
}

fn new_id() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("{}-{nanos}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed))
}
