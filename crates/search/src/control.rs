//! Stopping a walk and hearing how far it got: a cancellation flag the workers check before
//! each file, and a progress callback every so many files.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Progress callback: the number of files visited so far.
type Progress = Box<dyn Fn(u64) + Send + Sync>;

/// Cancellation and progress for a [`crate::Search::run_with`] or [`crate::Files`] listing.
///
/// Every worker checks the flag before each file and each directory, so once it is set no
/// new file is opened: at most one file per worker is finished after the cancel. A cancelled
/// search answers what it found so far, with `truncated` set.
///
/// ```
/// # fn main() -> Result<(), editkit_search::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// for n in 0..50 {
///     std::fs::write(dir.path().join(format!("{n}.txt")), "needle\n").unwrap();
/// }
/// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
/// let control = editkit_search::Control::new();
/// control.cancel();
/// let found = editkit_search::Search::builder("needle").build()?.run_with(&workspace, ".", &control)?;
/// assert!(found.truncated && found.files_searched == 0);
/// # Ok(()) }
/// ```
#[derive(Default)]
pub struct Control {
    cancelled: Arc<AtomicBool>,
    progress: Option<(u64, Progress)>,
    visited: AtomicU64,
}

impl fmt::Debug for Control {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Control")
            .field("cancelled", &self.is_cancelled())
            .field("visited", &self.files_visited())
            .field("progress", &self.progress.as_ref().map(|(every, _)| every))
            .finish()
    }
}

impl Control {
    /// A control that nothing has cancelled, without progress reports.
    #[must_use]
    pub fn new() -> Self {
        Control::default()
    }

    /// A control cancelled when `flag` is set (by another thread, a signal handler, a
    /// protocol's cancel notification...).
    #[must_use]
    pub fn with_flag(flag: Arc<AtomicBool>) -> Self {
        Control { cancelled: flag, ..Control::default() }
    }

    /// Calls `report` with the number of files visited after every `every` files (on the
    /// worker that visited the last of them; keep it quick).
    #[must_use]
    pub fn on_progress(mut self, every: u64, report: impl Fn(u64) + Send + Sync + 'static) -> Self {
        self.progress = Some((every.max(1), Box::new(report)));
        self
    }

    /// Stops the walk: no new file or directory is opened.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// Whether the walk was cancelled.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// Files visited so far.
    #[must_use]
    pub fn files_visited(&self) -> u64 {
        self.visited.load(Ordering::Relaxed)
    }

    /// Counts `files` more files done by work outside a walk (a patch's files as they are
    /// planned and checked) and reports progress at once, whatever the step.
    pub fn advance(&self, files: u64) {
        let visited = self.visited.fetch_add(files, Ordering::Relaxed) + files;
        if let Some((_, report)) = &self.progress {
            report(visited);
        }
    }

    /// Counts one visited file, reporting progress when it completes a step.
    pub(crate) fn visited_one(&self) {
        let visited = self.visited.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some((every, report)) = &self.progress
            && visited.is_multiple_of(*every)
        {
            report(visited);
        }
    }
}
