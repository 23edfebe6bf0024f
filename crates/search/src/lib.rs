//! Search an editkit workspace at ripgrep speed without ever leaving its root.
//!
//! [`Search`] compiles a pattern (a regular expression, or literal text) with ripgrep's
//! engine (`grep-regex`, `grep-searcher`) and runs it over a file or a directory of a
//! [`editkit_vfs::Workspace`]. The walk honours `.gitignore`, `.ignore` and hidden files as
//! ripgrep does (each switchable in [`WalkOptions`]), include/exclude globs and an extension
//! filter, and runs on every core. Every directory and file is opened relative to a directory
//! handle the walk already holds, so a symlink leading outside is never read (it is listed
//! under `skipped`) and a directory exchanged for such a link mid-walk is never entered.
//!
//! Output is bounded and deterministic: files sorted by path, at most `max_results` lines
//! (the first in path and line order), long lines cut around the match with [`CUT_MARKER`],
//! binary and non-UTF-8 files skipped with a reason. [`Files`] lists the files a search would
//! visit that match a glob.
//!
//! ```
//! # fn main() -> Result<(), editkit_search::Error> {
//! use editkit_search::Search;
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("file1.py"), "def f():\n    # TODO: handle errors\n    pass\n").unwrap();
//! std::fs::write(dir.path().join("file2.py"), "def g():\n    return 2\n").unwrap();
//! let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
//!
//! let found = Search::builder("TODO").literal(true).context(1).build()?.run(&workspace, ".")?;
//! assert_eq!(found.files_searched, 2);
//! assert_eq!(found.files_with_matches, 1);
//! let hit = &found.results[0];
//! assert_eq!(hit.file, "file1.py");
//! assert_eq!((hit.matches[0].line, hit.matches[0].column), (2, 7));
//! assert_eq!(hit.matches[0].before, ["def f():"]);
//! assert_eq!(hit.matches[0].after, ["    pass"]);
//!
//! // An invalid regex is refused with the regex engine's explanation.
//! let err = Search::builder("fn (").build().unwrap_err();
//! assert!(matches!(err, editkit_search::Error::InvalidPattern { .. }));
//! assert!(err.to_string().contains("unclosed group"));
//! # Ok(()) }
//! ```
#![deny(missing_docs)]

mod control;
mod error;
mod files;
mod output;
mod rules;
mod search;
mod sink;
mod walk;

pub use control::Control;
pub use error::{Error, Result};
pub use files::{DEFAULT_MAX_FILES, Files, FilesBuilder};
pub use output::{FileList, FileMatches, LINE_COST_BYTES, Match, SearchResults, SkipReason, Skipped};
pub use rules::WalkOptions;
pub use search::{
    Case, DEFAULT_MAX_BYTES, DEFAULT_MAX_LINE_CHARS, DEFAULT_MAX_RESULTS, MAX_CONTEXT_LINES, MAX_PATTERN_BYTES,
    MAX_RESULTS, MAX_SKIPPED, Search, SearchBuilder,
};
pub use sink::CUT_MARKER;

/// `mutex`'s guard, also when a thread panicked while holding it: the walk queue and the
/// collected matches are whole between statements, so a panic elsewhere never leaves them
/// half made.
pub(crate) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// [`std::sync::Condvar::wait`], recovering the guard as [`lock`] does.
pub(crate) fn wait<'a, T>(
    condvar: &std::sync::Condvar,
    guard: std::sync::MutexGuard<'a, T>,
) -> std::sync::MutexGuard<'a, T> {
    condvar.wait(guard).unwrap_or_else(std::sync::PoisonError::into_inner)
}
