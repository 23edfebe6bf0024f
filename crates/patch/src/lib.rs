//! Multi-file patches for agent file tools: parsed in any of three dialects, planned without
//! writing, committed all-or-nothing, recovered after a crash.
//!
//! [`apply`] is the one call most callers need: it [`recover`]s a patch a killed process left
//! half done, [`parse`]s the text (the `@@`/`===` hunk format, the `*** Begin Patch` format of
//! Codex-style agents, or a unified diff, detected automatically), [`plan`]s it (every path
//! resolved through the [`editkit_vfs::Workspace`], every file locked, staleness checked, every
//! hunk placed by the [`editkit_matcher`] ladder, nothing written) and [`commit`]s it (temp
//! files, an intent journal under the state folder, backups, renames in order, undone on
//! failure). Any problem in planning gives one [`Error::Plan`] listing every failing hunk.
//! Matching work is bounded ([`ApplyOptions::max_work`]: hunks × bytes searched, summed over
//! the patch); a patch over it is refused as [`Error::WorkLimit`] before its hunks are placed.
//! The result, [`Applied`], is serialisable: files added, updated, deleted and moved, hashes,
//! and one combined unified diff.
//!
//! A file's hunks are placed in file order, each searched after the previous one. A chunk of
//! `+` lines alone names no place when no `@@` anchor or line number goes with it: it goes at
//! the end of the file whatever its rank among the file's chunks, as Codex puts it (so the
//! chunks after it are still searched in the whole file, and never in the lines it adds), and
//! so does one pinned by `*** End of File`. An anchored one goes right after its anchor (Codex
//! puts those at the end too), and the chunks after it are searched after it: one standing
//! before it is out of order, and said so.
//!
//! ```
//! # fn main() -> Result<(), editkit_patch::Error> {
//! use editkit_patch::{ApplyOptions, apply};
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("app.py"), "def main():\r\n    return 1\r\n").unwrap();
//! let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
//!
//! let patch = "*** Begin Patch
//! *** Update File: app.py
//! @@ def main():
//! -    return 1
//! +    return 2
//! *** Add File: notes.md
//! +# Notes
//! *** End Patch
//! ";
//! let applied = apply(&workspace, patch, &ApplyOptions::default())?;
//! assert_eq!(applied.updated, ["app.py"]);
//! assert_eq!(applied.added, ["notes.md"]);
//! // Untouched lines keep their CRLF endings.
//! assert_eq!(std::fs::read(dir.path().join("app.py")).unwrap(), b"def main():\r\n    return 2\r\n");
//!
//! // A hunk that is not found changes nothing, in any file, and says where it looked.
//! let bad = "*** Begin Patch\n*** Delete File: notes.md\n*** Update File: app.py\n-    return 7\n+    return 8\n*** End Patch\n";
//! let err = apply(&workspace, bad, &ApplyOptions::default()).unwrap_err();
//! assert_eq!(err.kind(), "not_found");
//! assert_eq!(err.failures()[0].path, "app.py");
//! assert!(dir.path().join("notes.md").exists());
//! # Ok(()) }
//! ```
#![deny(missing_docs)]

mod commit;
mod error;
mod limits;
mod locate;
mod merge;
mod outside;
pub mod par;
mod parse;
mod plan;
mod report;

pub use commit::{HeldLocks, commit, commit_holding, recover};
#[cfg(feature = "failpoints")]
pub use commit::{commit_with_failpoint, failpoint};
pub use error::{Cause, Error, ErrorKind, Failure, Result};
pub use limits::{DEFAULT_MAX_WORK, MAX_PATCH_FILES};
pub use locate::HunkReport;
pub use outside::OutsideChange;
pub use parse::{Dialect, Hunk, MAX_PATCH_BYTES, Operation, Patch, parse, parse_as};
pub use plan::{ApplyOptions, Plan, Shared, plan};
pub use report::{Action, Applied, FileReport, Moved, Recovery};

/// Parses, recovers, plans and commits a patch (or, with [`ApplyOptions::dry_run`], returns
/// what it would do without writing the patch's files).
///
/// Recovery runs before planning, so the patch is applied to a tree that is wholly old or
/// wholly new; what it did is in [`Applied::recovered`]. A dry run writes nothing, so it
/// recovers nothing: its preview is of the tree as it stands.
///
/// # Errors
/// As [`parse`], [`recover`], [`plan`] and [`commit`].
pub fn apply(workspace: &editkit_vfs::Workspace, text: &str, options: &ApplyOptions) -> Result<Applied> {
    apply_parsed(workspace, &parse(text)?, |_| options.clone(), |_| {})
}

/// The one sequence that applies a parsed patch, for [`apply`] and for callers that keep
/// their own books around it (the editkit facade): [`recover`] (not for a dry run, which writes
/// nothing), then [`plan`] with the options `options` makes from the patch (made again after a
/// recovery that changed the tree, so they may look at it), then `planned` sees the plan
/// (nothing written yet), then [`commit`] (or, for a dry run, [`Plan::into_preview`]).
///
/// ```
/// # fn main() -> Result<(), editkit_patch::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
/// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
/// let patch = editkit_patch::parse("*** Begin Patch\n*** Update File: a.txt\n-one\n+two\n*** End Patch\n")?;
/// let mut planned_files = 0;
/// let applied = editkit_patch::apply_parsed(
///     &workspace,
///     &patch,
///     |_| editkit_patch::ApplyOptions::default(),
///     |plan| planned_files = plan.previous().count(),
/// )?;
/// assert_eq!((planned_files, applied.updated.len()), (1, 1));
/// # Ok(()) }
/// ```
///
/// # Errors
/// As [`recover`], [`plan`] and [`commit`].
pub fn apply_parsed(
    workspace: &editkit_vfs::Workspace,
    patch: &Patch,
    options: impl Fn(&Patch) -> ApplyOptions,
    planned: impl FnOnce(&Plan<'_>),
) -> Result<Applied> {
    apply_parsed_holding(workspace, patch, options, planned).map(|(applied, _released)| applied)
}

/// [`apply_parsed`], committing with [`commit_holding`]: the committed files' locks come back
/// with the result (none for a dry run), for the caller to release beside its own work.
///
/// ```
/// # fn main() -> Result<(), editkit_patch::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
/// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
/// let patch = editkit_patch::parse("*** Begin Patch\n*** Update File: a.txt\n-one\n+two\n*** End Patch\n")?;
/// let options = |_: &editkit_patch::Patch| editkit_patch::ApplyOptions::default();
/// let (applied, held) = editkit_patch::apply_parsed_holding(&workspace, &patch, options, |_| {})?;
/// // The file is written, and still locked until `held` is released.
/// let text = held.release_beside(|| std::fs::read_to_string(dir.path().join("a.txt")).unwrap());
/// assert_eq!((applied.updated.len(), text.as_str()), (1, "two\n"));
/// # Ok(()) }
/// ```
///
/// # Errors
/// As [`apply_parsed`]; a patch that fails holds nothing.
pub fn apply_parsed_holding<'ws>(
    workspace: &'ws editkit_vfs::Workspace,
    patch: &Patch,
    options: impl Fn(&Patch) -> ApplyOptions,
    planned: impl FnOnce(&Plan<'_>),
) -> Result<(Applied, HeldLocks<'ws>)> {
    // A dry run writes nothing, a recovery included (a read-only toolkit runs dry runs): its
    // preview is of the tree as it stands. Options made before a recovery that changed the
    // tree are made again.
    let mut options_now = options(patch);
    let recovered = if options_now.dry_run { Recovery::default() } else { recover(workspace)? };
    if !recovered.is_empty() {
        options_now = options(patch);
    }
    let options = options_now;
    let plan = plan(workspace, patch, &options)?;
    planned(&plan);
    let (mut applied, held) = if options.dry_run {
        (plan.into_preview(), HeldLocks::new(Vec::new()))
    } else {
        commit_holding(workspace, plan)?
    };
    if !recovered.is_empty() {
        applied.recovered = Some(recovered);
    }
    Ok((applied, held))
}
