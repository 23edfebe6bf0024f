//! edit_file, edit_python_file, replace_function, insert_lines and merge_snippet.

use super::defaults::{without_descriptions, without_text_defaults, yes};
use super::facts::DiagnosticsInfo;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

path_request! {
    file
    /// Replace one exact (or whitespace-drifted) piece of text in a file.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    // A Python caller passes path, old_string and new_string positionally, although `edits` makes
    // the last two optional (each is required unless `edits` is given).
    #[schemars(transform = without_text_defaults, extend(
        "x-positional" = ["path", "old_string", "new_string"],
        "x-required-unless" = {"old_string": "edits", "new_string": "edits"}
    ))]
    #[non_exhaustive]
    pub struct EditFileRequest {
        pub path: String,
        /// The text to replace, copied from the file with a line or two of context so it is unique.
        #[serde(default, alias = "old_str", alias = "old_text", alias = "search")]
        #[schemars(extend("x-aliases" = ["old_str", "old_text", "search"]))]
        pub old_string: String,
        /// The replacement text.
        #[serde(default, alias = "new_str", alias = "new_text", alias = "replace")]
        #[schemars(extend("x-aliases" = ["new_str", "new_text", "replace"]))]
        pub new_string: String,
        /// Replace every occurrence instead of requiring exactly one.
        #[serde(default)]
        pub replace_all: bool,
        /// Several edits (max 64) in place of old_string/new_string, each found in the file as
        /// before the call; all or none.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub edits: Vec<EditItem>,
        /// Your read's sha256: refused unless the file still has it (even with force); stateless HTTP needs it.
        #[serde(default)]
        #[schemars(with = "Option<String>")]
        pub expected_hash: Option<editkit_vfs::Sha256>,
        /// Edit even if the file changed since it was read.
        #[serde(default)]
        pub force: bool,
        /// Report what would change without writing.
        #[serde(default)]
        pub dry_run: bool,
        /// Return the kept copy's path (undo_edit always has one).
        #[serde(default)]
        pub backup: bool,
        /// Confine the search to one symbol (`Class.method`) or Markdown section (`Usage > Flags`).
        #[serde(default)]
        pub within: Option<String>,
        /// Match old_string exactly as written, no drift tolerated.
        #[serde(default)]
        pub strict: bool,
        /// WHATWG label
        #[serde(default)]
        pub encoding: Option<String>,
        /// If changed since read: merge or strict.
        #[serde(default)]
        #[schemars(with = "String", extend("enum" = StaleMode::NAMES))]
        pub stale: StaleMode,
        /// Notebook cell to edit in (.ipynb)
        #[serde(default)]
        pub cell_id: Option<String>,
    }
}

/// What an edit does when its file changed since it was read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StaleMode {
    /// Merge the edit into the file as it is now when the lines it changes (and one line each
    /// side) are unchanged; else refuse as `stale`.
    #[default]
    Merge,
    /// Refuse every edit of a file changed since it was read as `stale`.
    Strict,
}

impl StaleMode {
    /// Every word [`StaleMode::as_str`] gives and `FromStr` takes, in the variants' order: the
    /// one list the command line offers.
    pub const NAMES: &'static [&'static str] = &["merge", "strict"];

    /// `merge` or `strict`, the contract's word.
    ///
    /// ```
    /// let mode: editkit::StaleMode = "strict".parse().unwrap();
    /// assert_eq!(mode.as_str(), "strict");
    /// ```
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            StaleMode::Merge => "merge",
            StaleMode::Strict => "strict",
        }
    }
}

impl std::str::FromStr for StaleMode {
    type Err = String;

    fn from_str(text: &str) -> std::result::Result<Self, String> {
        match text {
            "merge" => Ok(StaleMode::Merge),
            "strict" => Ok(StaleMode::Strict),
            other => Err(format!("unknown stale mode `{other}`; choose `merge` or `strict`")),
        }
    }
}

impl std::fmt::Display for StaleMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A change made to a file since it was read, which an edit was merged with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MergedWith {
    /// 1-based first and last line of each changed region, in the file as it was found.
    pub lines: Vec<[usize; 2]>,
    /// The outside change (the version read → the file as found), bounded.
    pub diff: String,
    /// Whether the diff was cut.
    pub diff_truncated: bool,
}

/// One edit of `edits`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
// The item's fields mean what edit_file's own do: their schema needs no words of its own.
#[schemars(transform = without_descriptions)]
#[non_exhaustive]
pub struct EditItem {
    /// The text to replace.
    pub old_string: String,
    /// The replacement.
    pub new_string: String,
    /// Every occurrence.
    #[serde(default)]
    pub replace_all: bool,
}

impl EditItem {
    /// One edit replacing `old_string` with `new_string` (exactly one place).
    #[must_use]
    pub fn new(old_string: impl Into<String>, new_string: impl Into<String>) -> Self {
        EditItem { old_string: old_string.into(), new_string: new_string.into(), replace_all: false }
    }

    /// Sets `replace_all`.
    #[must_use]
    pub fn replace_all(mut self, replace_all: bool) -> Self {
        self.replace_all = replace_all;
        self
    }
}

/// Where one edit of a several-edit call landed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EditPlacement {
    /// How many places this edit replaced.
    pub replacements: usize,
    /// The rung that found its old_string.
    #[schemars(with = "String")]
    pub rung: editkit_matcher::Rung,
    /// Similarity of the matched text to its old_string, 0 to 1.
    pub score: f64,
    /// `aligned` or `merged`, as for a single edit.
    #[schemars(with = "String")]
    pub alignment: editkit_matcher::Alignment,
    /// 1-based first and last line of its (first) region, in the file before the call.
    pub line_range: [usize; 2],
    /// First and last line of every place it replaced.
    pub line_ranges: Vec<[usize; 2]>,
}

/// What an edit did (or would do, on a dry run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EditFileResponse {
    /// Canonical path relative to the root.
    pub path: String,
    /// How many places were replaced.
    pub replacements: usize,
    /// The matching strategy that found the text: `exact`, `canonical_equivalent`,
    /// `line_trimmed`, `unicode_normalised`, `whitespace_normalised`, `indentation_flexible`,
    /// `escape_normalised` or `block_anchor`.
    #[schemars(with = "String")]
    pub rung: editkit_matcher::Rung,
    /// Similarity of the matched text to `old_string`, 0 to 1 (1 for exact).
    pub score: f64,
    /// `aligned` (the region stands line for line for `old_string`) or `merged` (a
    /// `block_anchor` region differing by whole lines: the change was applied to the file's own
    /// lines, keeping lines `old_string` left out and never writing lines it invented).
    #[schemars(with = "String")]
    pub alignment: editkit_matcher::Alignment,
    /// 1-based first and last line of the (first) replaced region, in the old file.
    pub line_range: [usize; 2],
    /// First and last line of every replacement, counted as `line_range` counts the first's.
    #[serde(default)]
    pub line_ranges: Vec<[usize; 2]>,
    /// Unified diff of the change, bounded (10 lines a hunk, 200 characters a line).
    pub diff: String,
    /// Whether the diff was cut.
    pub diff_truncated: bool,
    /// Size before, bytes.
    pub old_size: u64,
    /// Size after, bytes.
    pub new_size: u64,
    /// SHA-256 of the new content.
    #[schemars(with = "String")]
    pub sha256: editkit_vfs::Sha256,
    /// Where the previous content is kept, when `backup` was asked.
    pub backup_path: Option<String>,
    /// Whether this was a dry run (nothing written).
    pub dry_run: bool,
    /// Whether `old_string` (and `new_string`) were copied from a numbered read and lost their
    /// line-number prefixes before matching.
    #[serde(default)]
    pub line_numbers_stripped: bool,
    /// Post-write diagnostics.
    pub diagnostics: DiagnosticsInfo,
    /// With `edits`: where each edit landed, in the order given (the fields above then sum
    /// them up: the loosest rung, the lowest score, the first region).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edits: Vec<EditPlacement>,
    /// When the file had changed since it was read and the edit was merged with that change:
    /// the lines it touched and its diff (line numbers above are of the file as found).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged_with: Option<MergedWith>,
}

path_request! {
    file
    /// Edit a Python file, refusing an edit that introduces syntax errors.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[non_exhaustive]
    pub struct EditPythonFileRequest {
        pub path: String,
        /// The text to replace.
        #[serde(alias = "old_content")]
        #[schemars(extend("x-aliases" = ["old_content"]))]
        pub old_string: String,
        /// The replacement text.
        #[serde(alias = "new_content")]
        #[schemars(extend("x-aliases" = ["new_content"]))]
        pub new_string: String,
        /// Keep the previous content for undo and return its path.
        #[serde(default = "yes")]
        pub backup: bool,
        /// Check without writing.
        #[serde(default)]
        pub dry_run: bool,
    }
}

/// What edit_python_file did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EditPythonFileResponse {
    /// The edit's details.
    #[serde(flatten)]
    pub edit: EditFileResponse,
    /// On a dry run: whether the edit would change the file.
    pub would_change: bool,
}

path_request! {
    file
    /// Replace a whole function or method by name.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[non_exhaustive]
    pub struct ReplaceFunctionRequest {
        pub path: String,
        /// `func`, `Class.method` or `Outer.Inner.method`.
        pub function_name: String,
        /// The complete new definition (any indentation; it is re-indented to fit).
        pub new_implementation: String,
        /// Keep the previous content for undo and return its path.
        #[serde(default = "yes")]
        pub backup: bool,
        /// Answer the diff and the new content's hash without writing.
        #[serde(default)]
        pub dry_run: bool,
        /// Refuse a result with more syntax errors than the file had (default: true); false leaves
        /// the judgement to the caller (an application checking with its own parser).
        #[serde(default = "yes")]
        pub validate: bool,
    }
}

/// What replace_function did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReplaceFunctionResponse {
    /// Canonical path relative to the root.
    pub path: String,
    /// The function that was replaced.
    pub function_replaced: String,
    /// Where the previous content is kept, when `backup` was asked.
    pub backup_path: Option<String>,
    /// Unified diff of the change (bounded).
    pub diff: String,
    /// SHA-256 of the new content (that the file would have, on a dry run).
    #[schemars(with = "String")]
    pub sha256: editkit_vfs::Sha256,
    /// Whether this was a dry run (nothing written).
    pub dry_run: bool,
    /// The written file's diagnostics from its language server, with how current they are:
    /// only when the toolkit's `language_servers.after_writes` is on and editkit runs a server
    /// for the file's language (as `diagnostics.server_diagnostics` of the other writes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_diagnostics: Option<super::ServerDiagnosticsInfo>,
}

path_request! {
    file
    /// Insert text after a line of a file.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[non_exhaustive]
    pub struct InsertLinesRequest {
        pub path: String,
        /// The line after which the text goes, 1-based; 0 inserts at the top, -1 after the last
        /// line.
        // -1 is Goose's and Anthropic's editors' word for the end; `InsertLinesRequest::END` in
        // Rust. No other negative line is taken.
        #[serde(alias = "insert_line", deserialize_with = "line_or_end")]
        #[schemars(with = "i64", extend("minimum" = -1, "x-aliases" = ["insert_line"]))]
        pub line: usize,
        /// The lines to insert (a final line end is added when missing).
        #[serde(alias = "new_str", alias = "insert_text")]
        #[schemars(extend("x-aliases" = ["new_str", "insert_text"]))]
        pub text: String,
        /// Your read's sha256: refused unless the file still has it (even with force); stateless HTTP needs it.
        #[serde(default)]
        #[schemars(with = "Option<String>")]
        pub expected_hash: Option<editkit_vfs::Sha256>,
        /// Insert even if the file changed since it was read.
        #[serde(default)]
        pub force: bool,
        /// Show the diff without writing.
        #[serde(default)]
        pub dry_run: bool,
        /// If changed since read: merge or strict.
        // `merge`: `line` counts in the version read, as edit_file merges.
        #[serde(default)]
        #[schemars(with = "String", extend("enum" = StaleMode::NAMES))]
        pub stale: StaleMode,
    }
}

impl InsertLinesRequest {
    /// The `line` that inserts after the last line, whatever the file's length (-1 in JSON).
    pub const END: usize = usize::MAX;
}

/// A line number from 0, or -1 for [`InsertLinesRequest::END`].
fn line_or_end<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<usize, D::Error> {
    struct LineOrEnd;
    impl serde::de::Visitor<'_> for LineOrEnd {
        type Value = usize;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a line number from 0, or -1 for after the last line")
        }
        fn visit_u64<E: serde::de::Error>(self, line: u64) -> Result<usize, E> {
            usize::try_from(line).map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(line), &self))
        }
        fn visit_i64<E: serde::de::Error>(self, line: i64) -> Result<usize, E> {
            match line {
                -1 => Ok(InsertLinesRequest::END),
                0.. => self.visit_u64(line.unsigned_abs()),
                _ => Err(E::invalid_value(serde::de::Unexpected::Signed(line), &self)),
            }
        }
    }
    deserializer.deserialize_i64(LineOrEnd)
}

/// What insert_lines did (or would do).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InsertLinesResponse {
    /// Canonical path relative to the root.
    pub path: String,
    /// First and last line of the inserted text in the new file, 1-based.
    pub line_range: [usize; 2],
    /// Unified diff of the change.
    pub diff: String,
    /// Whether the diff was cut at its bound.
    pub diff_truncated: bool,
    /// SHA-256 of the new content.
    #[schemars(with = "String")]
    pub sha256: editkit_vfs::Sha256,
    /// Whether this was a dry run.
    pub dry_run: bool,
    /// Post-write diagnostics (empty when off or clean).
    pub diagnostics: DiagnosticsInfo,
    /// When the file had changed since it was read and the insertion was merged with that
    /// change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged_with: Option<MergedWith>,
}

path_request! {
    file
    /// Merge a lazy snippet (the changed parts of a file, the rest elided by marker comments).
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[non_exhaustive]
    pub struct MergeSnippetRequest {
        pub path: String,
        /// The changed parts with a line or two of context each, the rest elided by marker
        /// comments holding `...`.
        #[serde(alias = "code_edit")]
        #[schemars(extend("x-aliases" = ["code_edit"]))]
        pub snippet: String,
        /// Show the diff without writing.
        #[serde(default)]
        pub dry_run: bool,
        /// Lines a chunk leaves out without a marker: `refuse` (default) or `allow` (deleted).
        #[serde(default)]
        #[schemars(with = "String", extend("enum" = super::defaults::words::<Deletions>()))]
        pub deletions: Deletions,
        /// Your read's sha256: refused unless the file still has it (even with force); stateless HTTP needs it.
        #[serde(default)]
        #[schemars(with = "Option<String>")]
        pub expected_hash: Option<editkit_vfs::Sha256>,
        /// Merge even if the file changed since it was read.
        #[serde(default)]
        pub force: bool,
        /// If the file changed since read: `merge` (default) or `strict`, as for edit_file.
        #[serde(default)]
        #[schemars(with = "String", extend("enum" = StaleMode::NAMES))]
        pub stale: StaleMode,
    }
}

/// What merge_snippet does with file lines a chunk leaves out between two of its lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Deletions {
    /// Refuse the merge (`not_found` with `reason: unaligned`), naming the lines.
    #[default]
    Refuse,
    /// Delete them.
    Allow,
}

/// Where one chunk of a snippet landed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SnippetChunk {
    /// 1-based first and last line of the chunk in the snippet.
    pub snippet_lines: [usize; 2],
    /// 1-based first and last file line it aligned with, in the file before the merge.
    pub line_range: [usize; 2],
    /// How many of its lines aligned with the file's.
    pub aligned: usize,
    /// How many new lines it wrote.
    pub inserted: usize,
    /// How many file lines within its span it replaced or deleted.
    pub removed: usize,
    /// `syntax`: aligned within the one file definition of the name path it sits in
    /// (`definition`); `lines`: by lines over the file.
    pub alignment: SnippetAlignment,
    /// The name path of the definition it was aligned within (`Class.method`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definition: Option<String>,
}

/// How a snippet chunk was aligned with the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SnippetAlignment {
    /// Within a definition found by the syntax tree (Python, TypeScript, TSX, JavaScript) or a
    /// Markdown section.
    Syntax,
    /// By lines.
    Lines,
}

/// A marker of a snippet and the file lines it kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SnippetMarker {
    /// 1-based line of the marker in the snippet.
    pub snippet_line: usize,
    /// 1-based first and last file line it kept (none when it stands where no line is).
    pub kept: Option<[usize; 2]>,
}

/// What merge_snippet did (or would do, on a dry run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MergeSnippetResponse {
    /// Canonical path relative to the root.
    pub path: String,
    /// First and last line of each chunk's region, in the file before the merge.
    pub line_ranges: Vec<[usize; 2]>,
    /// Unified diff of the change, bounded (10 lines a hunk, 200 characters a line).
    pub diff: String,
    /// Whether the diff was cut.
    pub diff_truncated: bool,
    /// Size before, bytes.
    pub old_size: u64,
    /// Size after, bytes.
    pub new_size: u64,
    /// SHA-256 of the new content.
    #[schemars(with = "String")]
    pub sha256: editkit_vfs::Sha256,
    /// Whether this was a dry run (nothing written).
    pub dry_run: bool,
    /// Where each chunk landed, in snippet order.
    pub chunks: Vec<SnippetChunk>,
    /// Each marker and the file lines it kept, in snippet order.
    pub markers: Vec<SnippetMarker>,
    /// Post-write diagnostics.
    pub diagnostics: DiagnosticsInfo,
    /// When the file had changed since it was read and the snippet was merged with that change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged_with: Option<MergedWith>,
}

request!(
    EditFileRequest { path: String, old_string: String, new_string: String }
    defaults { replace_all: bool = false, edits: Vec<EditItem> = Vec::new(), force: bool = false, dry_run: bool = false, backup: bool = false, strict: bool = false, stale: StaleMode = StaleMode::Merge }
    optional { expected_hash: editkit_vfs::Sha256 }
    optional_text { within, encoding, cell_id }
);

request!(
    EditPythonFileRequest { path: String, old_string: String, new_string: String }
    defaults { backup: bool = yes(), dry_run: bool = false }
);

request!(
    ReplaceFunctionRequest { path: String, function_name: String, new_implementation: String }
    defaults { backup: bool = yes(), dry_run: bool = false, validate: bool = yes() }
);

request!(
    MergeSnippetRequest { path: String, snippet: String }
    defaults { dry_run: bool = false, deletions: Deletions = Deletions::Refuse, force: bool = false, stale: StaleMode = StaleMode::Merge }
    optional { expected_hash: editkit_vfs::Sha256 }
);

request!(
    InsertLinesRequest { path: String, line: usize, text: String }
    defaults { force: bool = false, dry_run: bool = false, stale: StaleMode = StaleMode::Merge }
    optional { expected_hash: editkit_vfs::Sha256 }
);
