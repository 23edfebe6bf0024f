//! What a patch did (or would do): serialisable results.

use serde::Serialize;

use crate::locate::HunkReport;
use crate::outside::OutsideChange;
use crate::parse::Dialect;

/// What one operation does to a file.
///
/// Not `#[non_exhaustive]` on purpose: the facade maps every action onto its contract's words in
/// one exhaustive `match`, so an action added here fails to compile there until it has a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// A new file.
    Added,
    /// An existing file changed in place.
    Updated,
    /// A file removed.
    Deleted,
    /// A file moved (and possibly changed).
    Moved,
}

/// One file operation of an applied (or previewed) patch.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct FileReport {
    /// What happened.
    pub action: Action,
    /// The file's canonical path afterwards (for a deletion, the path deleted).
    pub path: String,
    /// The canonical path it was moved from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved_from: Option<String>,
    /// SHA-256 of the file before the operation; `None` for an addition.
    pub sha256_before: Option<editkit_vfs::Sha256>,
    /// SHA-256 of the file after it; `None` for a deletion.
    pub sha256_after: Option<editkit_vfs::Sha256>,
    /// Where each hunk landed, and by which matcher rung.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hunks: Vec<HunkReport>,
    /// The change made to the file outside since the version its hunks were planned on (see
    /// [`crate::ApplyOptions::bases`]), which they were merged with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merged_with: Option<OutsideChange>,
}

/// A moved file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Moved {
    /// Canonical path before.
    pub from: String,
    /// Canonical path after.
    pub to: String,
}

/// The result of applying a patch, or of a dry run (then nothing was written).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Applied {
    /// True when nothing was written.
    pub dry_run: bool,
    /// The dialect the patch was written in.
    pub dialect: Dialect,
    /// Canonical paths of added files.
    pub added: Vec<String>,
    /// Canonical paths of files changed in place.
    pub updated: Vec<String>,
    /// Canonical paths of deleted files.
    pub deleted: Vec<String>,
    /// Moved files.
    pub moved: Vec<Moved>,
    /// One entry per operation, in patch order, with hashes and hunk placements.
    pub files: Vec<FileReport>,
    /// One combined unified diff of every change (LF-normalised text).
    pub diff: String,
    /// What recovery did before this patch, when a crashed patch was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovered: Option<Recovery>,
}

/// What [`crate::recover`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Recovery {
    /// Journals of interrupted patches that were rolled back.
    pub rolled_back: Vec<String>,
    /// Canonical paths put back to their content before the interrupted patch.
    pub restored: Vec<String>,
    /// Leftover backup folders of finished patches that were removed.
    pub cleaned: usize,
}

impl Recovery {
    /// Whether recovery found nothing to do.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rolled_back.is_empty() && self.restored.is_empty() && self.cleaned == 0
    }
}
