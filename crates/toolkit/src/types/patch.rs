//! apply_patch, the undo tools and history.

use super::edit::{MergedWith, StaleMode};
use super::facts::DiagnosticsInfo;
use super::words::PatchAction;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Apply a multi-file patch atomically.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ApplyPatchRequest {
    /// The patch, in one of the formats above.
    #[serde(alias = "input", alias = "diff")]
    #[schemars(extend("x-aliases" = ["input", "diff"]))]
    pub patch: String,
    /// Apply even to files changed since they were read.
    #[serde(default)]
    pub force: bool,
    /// Report what would change without writing.
    #[serde(default)]
    pub dry_run: bool,
    /// Place hunks by exact text only: no tolerant rung.
    #[serde(default)]
    pub strict: bool,
    /// Read the patch as this dialect instead of guessing from its markers.
    #[serde(default)]
    #[schemars(with = "String", extend("enum" = super::defaults::words::<PatchDialect>()))]
    pub dialect: Option<PatchDialect>,
    /// WHATWG label
    #[serde(default)]
    pub encoding: Option<String>,
    /// If a file changed since read: merge per hunk, or strict.
    #[serde(default)]
    #[schemars(with = "String", extend("enum" = StaleMode::NAMES))]
    pub stale: StaleMode,
}

/// The patch formats apply_patch reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PatchDialect {
    /// `*** Update File:` sections of `@@` old `===` new hunks; added files' lines are literal.
    Hunks,
    /// `*** Begin Patch` with ` `/`-`/`+` lines; added files' lines start with `+`.
    BeginPatch,
    /// Unified diffs (`git diff`, `diff -u`).
    Unified,
}

/// Where one hunk of a patch landed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PatchedHunk {
    /// 1-based number of the hunk within its file section.
    pub hunk: usize,
    /// 1-based first and last line of the region it matched, in the file as the earlier hunks
    /// left it (an insertion matched no line: `[n, n - 1]`).
    pub lines: [usize; 2],
    /// The rung that placed it (`exact`, `line_trimmed`, ... `block_anchor`).
    #[schemars(with = "String")]
    pub rung: editkit_matcher::Rung,
    /// Similarity of the region to the hunk's old lines, 0 to 1 (1 for exact).
    pub score: f64,
    /// `aligned` or `merged` (see `edit_file`).
    #[schemars(with = "String")]
    pub alignment: editkit_matcher::Alignment,
}

/// One file a patch touches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PatchedFile {
    /// The file's path (the destination, for a move).
    pub path: String,
    /// `add`, `update`, `delete` or `move`.
    #[schemars(with = "String")]
    pub action: PatchAction,
    /// For a move: where it came from.
    pub from: Option<String>,
    /// SHA-256 of the new content (none for a delete).
    #[schemars(with = "Option<String>")]
    pub sha256: Option<editkit_vfs::Sha256>,
    /// Where each hunk landed (updates and moves with hunks).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hunks: Vec<PatchedHunk>,
    /// Whether the formatter (when formatting is on) rewrote the file after the patch; `sha256`
    /// is then the formatted content's, and `diff` still shows the patch's own change.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub formatted: bool,
    /// The change made to the file since it was read, which the hunks were merged with (see
    /// `edit_file`); hunk lines are numbered in the file as found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged_with: Option<MergedWith>,
    /// Post-write diagnostics of this file, as `edit_file` runs them (none on a dry run or a
    /// delete).
    #[serde(default)]
    pub diagnostics: DiagnosticsInfo,
}

/// What a patch did (or would do).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ApplyPatchResponse {
    /// Every file touched, in patch order.
    pub files: Vec<PatchedFile>,
    /// One combined unified diff.
    pub diff: String,
    /// Whether this was a dry run.
    pub dry_run: bool,
}

path_request! {
    file
    /// Restore a file to its content before the last change made through editkit.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[non_exhaustive]
    pub struct UndoEditRequest {
        pub path: String,
        /// Restore even if the file changed since editkit's change.
        #[serde(default)]
        pub force: bool,
    }
}

/// Undo the last patch as a whole.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct UndoPatchRequest {
    /// Restore even if files changed since the patch.
    #[serde(default)]
    pub force: bool,
}

/// What an undo restored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct UndoResponse {
    /// Files restored (deleted, for files the change had created).
    pub restored: Vec<String>,
    /// Earlier versions still available for this file (or earlier patches).
    pub remaining: usize,
}

/// The undo history, of one file or of the workspace.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct HistoryRequest {
    /// Only this file's history (and the recorded changes that touched it).
    #[serde(default, alias = "file_path")]
    #[schemars(extend("x-aliases" = ["file_path"]))]
    pub path: Option<String>,
}

/// One kept version of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HistoryVersion {
    /// Whether the file existed before the change (false: the change created it; undo deletes it).
    pub existed: bool,
    /// Size of the kept content.
    pub size_bytes: Option<u64>,
    /// When the change was made, seconds since the Unix epoch (unknown for old entries).
    pub time_unix: Option<i64>,
}

/// A file's kept versions, newest first (undo_edit restores the first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileHistory {
    /// Canonical path relative to the root.
    pub path: String,
    /// Newest first.
    pub versions: Vec<HistoryVersion>,
}

/// A recorded multi-file change (a patch, a file move, a recursive delete).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ChangeHistory {
    /// The files it touched.
    pub files: Vec<String>,
    /// When it was made, seconds since the Unix epoch (unknown for old records).
    pub time_unix: Option<i64>,
}

/// What undo_edit and undo_patch would restore.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HistoryResponse {
    /// Files with kept versions, by path.
    pub files: Vec<FileHistory>,
    /// Multi-file changes, newest first (undo_patch undoes the first).
    pub patches: Vec<ChangeHistory>,
    /// With a path: what made the file's current content, `edit` (undo_edit restores it) or
    /// `patch` (undo_patch, for the whole change); `null` when neither record matches it.
    pub last_change: Option<String>,
    /// When older versions were dropped to keep the history within its byte bound: how many
    /// and how much, in all; `null` when none was.
    pub evicted: Option<HistoryEvicted>,
}

/// Versions the undo history dropped, oldest first, to stay within its byte bound.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HistoryEvicted {
    /// Versions (and recorded patches) dropped, in all.
    pub versions: u64,
    /// Their bytes, in all.
    pub bytes: u64,
    /// When the last was dropped, seconds since the Unix epoch.
    pub time_unix: i64,
    /// The bound: most bytes of history kept for the root (`history_bytes`).
    pub max_bytes: u64,
}

request!(
    ApplyPatchRequest { patch: String }
    defaults { force: bool = false, dry_run: bool = false, strict: bool = false, stale: StaleMode = StaleMode::Merge }
    optional { dialect: PatchDialect }
    optional_text { encoding }
);

request!(UndoEditRequest { path: String } defaults { force: bool = false });

request!(UndoPatchRequest {} defaults { force: bool = false });

request!(HistoryRequest {} optional_text { path });
