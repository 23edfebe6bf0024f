//! A parallel walk over directory handles.
//!
//! Workers share a stack of jobs. A directory job opens the directory relative to its parent's
//! handle (never by a joined path), lists it, pushes its sub-directories as new jobs and its
//! files in small batches. A directory exchanged for a link to the outside after its parent
//! was listed is refused by the handle (`open_subdir` does not follow links out), so the walk
//! never leaves the root. Handles stay open only while jobs below them are pending, which
//! bounds the open descriptors by the tree's depth rather than its width.

use std::sync::{Arc, Condvar, Mutex};

use editkit_vfs::{EntryKind, SkipReason as VfsSkip, WorkspaceDir};

use crate::control::Control;
use crate::output::{SkipReason, Skipped};
use crate::rules::{DirNames, DirRules, Filter, below};

/// How many files one job hands to a worker.
const FILES_PER_JOB: usize = 16;

/// A file the walk admits.
pub(crate) struct FileRef<'a, 'ws> {
    /// The handle of the directory holding it.
    pub(crate) dir: &'a WorkspaceDir<'ws>,
    /// Its name in that directory.
    pub(crate) name: &'a str,
    /// Its path relative to the root (the link's path for a followed link).
    pub(crate) rel: &'a str,
    /// For a followed symlink, whether it is one (then open it through the workspace).
    pub(crate) symlink: bool,
}

/// What a walk does with each admitted file, per worker.
pub(crate) trait Visitor: Sync {
    /// Per-worker state (a searcher, buffers, partial results).
    type State: Send;
    /// A fresh state for a worker.
    fn state(&self) -> Self::State;
    /// Called once per admitted file, on some worker.
    fn file(&self, state: &mut Self::State, file: &FileRef<'_, '_>);
}

/// A directory being walked: its handle and the ignore rules in force inside it.
struct DirNode<'ws> {
    dir: WorkspaceDir<'ws>,
    rules: Arc<DirRules>,
}

enum Job<'ws> {
    /// A sub-directory `name` of `parent`, to open, list and expand.
    Dir { parent: Arc<DirNode<'ws>>, name: String },
    /// Files of `parent` to hand to the visitor: (name, rel, symlink).
    Files { parent: Arc<DirNode<'ws>>, files: Vec<(String, String, bool)> },
}

struct Queue<'ws> {
    jobs: Vec<Job<'ws>>,
    /// Workers holding a job; the walk is over when none does and the stack is empty.
    active: usize,
    /// Workers waiting for a job; wake-ups (a system call each) are sent only when some are.
    idle: usize,
}

struct Shared<'ws> {
    queue: Mutex<Queue<'ws>>,
    wake: Condvar,
}

impl<'ws> Shared<'ws> {
    fn push(&self, jobs: impl IntoIterator<Item = Job<'ws>>) {
        let mut queue = crate::lock(&self.queue);
        let before = queue.jobs.len();
        queue.jobs.extend(jobs);
        let added = queue.jobs.len() - before;
        let idle = queue.idle;
        drop(queue);
        match (added, idle) {
            (0, _) | (_, 0) => {}
            (1, _) => self.wake.notify_one(),
            _ => self.wake.notify_all(),
        }
    }

    /// The next job, or `None` when the walk is over. Marks the caller active.
    fn pop(&self) -> Option<Job<'ws>> {
        let mut queue = crate::lock(&self.queue);
        loop {
            if let Some(job) = queue.jobs.pop() {
                queue.active += 1;
                return Some(job);
            }
            if queue.active == 0 {
                let idle = queue.idle;
                drop(queue);
                if idle > 0 {
                    self.wake.notify_all();
                }
                return None;
            }
            queue.idle += 1;
            queue = crate::wait(&self.wake, queue);
            queue.idle -= 1;
        }
    }

    fn done(&self) {
        let mut queue = crate::lock(&self.queue);
        queue.active -= 1;
        let finished = queue.active == 0 && queue.jobs.is_empty() && queue.idle > 0;
        drop(queue);
        if finished {
            self.wake.notify_all();
        }
    }
}

/// Marks a worker idle again even if the visitor panicked, so the others do not wait forever.
struct Active<'a, 'ws>(&'a Shared<'ws>);

impl Drop for Active<'_, '_> {
    fn drop(&mut self) {
        self.0.done();
    }
}

/// A worker's output: the visitor state and what the walk itself skipped.
pub(crate) struct WorkerOutput<S> {
    pub(crate) state: S,
    pub(crate) skipped: Vec<Skipped>,
}

/// Walks the directory `start` (whose listing is `listing` and rules `rules`) with `workers`
/// threads, handing admitted files to `visitor`.
pub(crate) fn walk<'ws, V: Visitor>(
    start: WorkspaceDir<'ws>,
    listing: Listing,
    rules: Arc<DirRules>,
    filter: &Filter,
    visitor: &V,
    workers: usize,
    control: &Control,
) -> Vec<WorkerOutput<V::State>> {
    let start_rel = start.rel().to_owned();
    let shared = Shared { queue: Mutex::new(Queue { jobs: Vec::new(), active: 0, idle: 0 }), wake: Condvar::new() };
    let walker = Walker { filter, start_rel: &start_rel, shared: &shared, control };
    // The start directory is expanded before the workers begin, so that they find jobs at once.
    let mut first = WorkerOutput { state: visitor.state(), skipped: Vec::new() };
    let root = Arc::new(DirNode { dir: start, rules });
    let jobs = walker.expand(&root, listing, &mut first.skipped);
    drop(root);
    shared.push(jobs);
    let mut outputs = Vec::with_capacity(workers.max(1));
    std::thread::scope(|scope| {
        let handles: Vec<_> = (1..workers.max(1))
            .map(|_| {
                let walker = &walker;
                scope.spawn(move || {
                    let mut output = WorkerOutput { state: visitor.state(), skipped: Vec::new() };
                    walker.work(visitor, &mut output);
                    output
                })
            })
            .collect();
        walker.work(visitor, &mut first);
        outputs.push(first);
        for handle in handles {
            match handle.join() {
                Ok(output) => outputs.push(output),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    outputs
}

/// A directory's entries and the entries the workspace left out.
pub(crate) type Listing = (Vec<editkit_vfs::Entry>, Vec<editkit_vfs::SkippedEntry>);

struct Walker<'a, 'ws> {
    filter: &'a Filter,
    start_rel: &'a str,
    shared: &'a Shared<'ws>,
    control: &'a Control,
}

impl<'ws> Walker<'_, 'ws> {
    fn work<V: Visitor>(&self, visitor: &V, output: &mut WorkerOutput<V::State>) {
        while let Some(job) = self.shared.pop() {
            let _active = Active(self.shared);
            // Once cancelled, the remaining jobs are dropped unopened.
            if self.control.is_cancelled() {
                continue;
            }
            match job {
                Job::Dir { parent, name } => {
                    let rel = child_rel(parent.dir.rel(), &name);
                    // Relative to the parent's handle: a directory exchanged for a link to the
                    // outside since the parent was listed is refused here.
                    let opened = parent.dir.open_subdir(&name).and_then(|dir| {
                        let listing = dir.entries_with_skipped()?;
                        Ok((dir, listing))
                    });
                    match opened {
                        Ok((dir, listing)) => {
                            let names = DirNames::scan(&listing.0, &listing.1);
                            let rules =
                                DirRules::for_dir(&self.filter.options, &dir, Some(Arc::clone(&parent.rules)), &names);
                            drop(parent);
                            let node = Arc::new(DirNode { dir, rules });
                            let jobs = self.expand(&node, listing, &mut output.skipped);
                            self.shared.push(jobs);
                        }
                        Err(err) => output.skipped.push(walk_error(rel, &err)),
                    }
                }
                Job::Files { parent, files } => {
                    for (name, rel, symlink) in &files {
                        if self.control.is_cancelled() {
                            break;
                        }
                        let file = FileRef { dir: &parent.dir, name, rel, symlink: *symlink };
                        visitor.file(&mut output.state, &file);
                        self.control.visited_one();
                    }
                }
            }
        }
    }

    /// Filters a directory's listing into jobs: sub-directories first, then batches of files
    /// (the stack is last in, first out, so the files are searched first and the directory's
    /// handle is released early). Links leading out and other left-out entries that the rules
    /// would have visited are reported in `skipped`.
    fn expand(&self, node: &Arc<DirNode<'ws>>, listing: Listing, skipped: &mut Vec<Skipped>) -> Vec<Job<'ws>> {
        let (entries, left_out) = listing;
        let follow = self.filter.options.follow_links;
        let mut dirs = Vec::new();
        let mut files = Vec::new();
        for entry in entries {
            let below_start = below(self.start_rel, &entry.rel);
            match entry.kind {
                Some(EntryKind::Dir)
                    if !entry.symlink
                        && self.filter.admits(&node.rules, &entry.name, &entry.rel, below_start, true) =>
                {
                    dirs.push(entry.name);
                }
                Some(EntryKind::File)
                    if (follow || !entry.symlink)
                        && self.filter.admits(&node.rules, &entry.name, &entry.rel, below_start, false) =>
                {
                    files.push((entry.name, entry.rel, entry.symlink));
                }
                // Linked directories are never entered, unfollowed links are passed over (as
                // ripgrep does), and FIFOs, sockets and devices are not read.
                _ => {}
            }
        }
        for entry in left_out {
            let reason = match entry.reason {
                VfsSkip::OutsideWorkspace => SkipReason::OutsideWorkspace,
                VfsSkip::SymlinkLoop => SkipReason::SymlinkLoop,
                VfsSkip::NonUtf8Name => SkipReason::NonUtf8Name,
                VfsSkip::Unresolvable => SkipReason::Unreadable,
                // Blocked entries stay invisible, as in every listing of the workspace.
                _ => continue,
            };
            let below_start = below(self.start_rel, &entry.rel);
            if self.filter.admits(&node.rules, &entry.name, &entry.rel, below_start, false) {
                skipped.push(Skipped { path: entry.rel, reason, detail: None });
            }
        }
        let mut jobs: Vec<Job<'ws>> =
            dirs.into_iter().map(|name| Job::Dir { parent: Arc::clone(node), name }).collect();
        while !files.is_empty() {
            let rest = files.split_off(files.len().saturating_sub(FILES_PER_JOB));
            jobs.push(Job::Files { parent: Arc::clone(node), files: rest });
        }
        jobs
    }
}

pub(crate) fn child_rel(dir: &str, name: &str) -> String {
    if dir.is_empty() { name.to_owned() } else { format!("{dir}/{name}") }
}

/// A directory that could not be opened or listed, as a skipped entry.
pub(crate) fn walk_error(rel: String, err: &editkit_vfs::Error) -> Skipped {
    let reason = match err.error_kind() {
        editkit_vfs::ErrorKind::OutsideWorkspace => SkipReason::OutsideWorkspace,
        _ if matches!(err, editkit_vfs::Error::SymlinkLoop { .. }) => SkipReason::SymlinkLoop,
        _ => SkipReason::Unreadable,
    };
    Skipped { path: rel, reason, detail: Some(err.to_string()) }
}
