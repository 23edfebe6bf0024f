//! Requests and responses of every tool: serde for JSON, schemars for the schemas agents see.
//!
//! Argument names follow the tool-call contract; common spellings from other agent tools are
//! accepted as aliases (`file_path` for `path`, `old_str` for `old_string`...).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A schema with no `description` or `default` anywhere in it.
fn without_descriptions(schema: &mut schemars::Schema) {
    fn strip(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                map.remove("description");
                map.remove("default");
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut value = schema.clone().to_value();
    strip(&mut value);
    if let Ok(stripped) = schemars::Schema::try_from(value) {
        *schema = stripped;
    }
}

/// edit_file's schema without the empty defaults of old_string and new_string, which are
/// required unless `edits` is given.
fn without_text_defaults(schema: &mut schemars::Schema) {
    if let Some(serde_json::Value::Object(properties)) = schema.get_mut("properties") {
        for name in ["old_string", "new_string"] {
            if let Some(serde_json::Value::Object(field)) = properties.get_mut(name) {
                field.remove("default");
            }
        }
    }
}

fn yes() -> bool {
    true
}
fn dot() -> String {
    ".".to_owned()
}
fn three() -> usize {
    3
}
fn hundred() -> usize {
    100
}
fn thousand() -> usize {
    1000
}
fn project_md() -> String {
    "PROJECT.md".to_owned()
}

// ---------------------------------------------------------------------------------------------
// The words of responses, typed. Each serialises to the contract's word and its schema stays a
// plain string, so the JSON contract is the enum's words.

/// What a file holds: `python`, `typescript`, `tsx`, `javascript`, `jsx`, `markdown`, `json`,
/// `text` or `binary`.
///
/// `binary` is the vfs codec's verdict (NUL bytes); every other word is
/// `editkit_analyze::detect`'s kind of the decoded text (`text` without the `analyze` feature).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FileType {
    /// Python source.
    Python,
    /// TypeScript source.
    Typescript,
    /// TypeScript with JSX.
    Tsx,
    /// JavaScript source.
    Javascript,
    /// JavaScript with JSX.
    Jsx,
    /// Markdown.
    Markdown,
    /// JSON.
    Json,
    /// Any other text.
    Text,
    /// Not text.
    Binary,
}

impl FileType {
    /// The contract's word.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            FileType::Python => "python",
            FileType::Typescript => "typescript",
            FileType::Tsx => "tsx",
            FileType::Javascript => "javascript",
            FileType::Jsx => "jsx",
            FileType::Markdown => "markdown",
            FileType::Json => "json",
            FileType::Text => "text",
            FileType::Binary => "binary",
        }
    }
}

impl std::fmt::Display for FileType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a symbol is: `function`, `async_function`, `class`, `method`, `interface`,
/// `type_alias`, `enum` or `namespace`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SymbolKind {
    /// A function (or a binding of an arrow function or function expression).
    Function,
    /// An `async` function.
    AsyncFunction,
    /// A class.
    Class,
    /// A function defined directly in a class.
    Method,
    /// A TypeScript interface.
    Interface,
    /// A TypeScript type alias.
    TypeAlias,
    /// A TypeScript enum.
    Enum,
    /// A TypeScript namespace or ambient module.
    Namespace,
}

/// What a patch does to one file: `add`, `update`, `delete` or `move`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PatchAction {
    /// A new file.
    Add,
    /// A file changed in place.
    Update,
    /// A file removed.
    Delete,
    /// A file moved (and possibly changed).
    Move,
}

// ---------------------------------------------------------------------------------------------
// Shared pieces of responses.

/// One syntax error, 1-based positions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SyntaxErrorInfo {
    /// Line of the error's start.
    pub line: usize,
    /// Column of the error's start (in characters).
    pub column: usize,
    /// Line of the error's end.
    pub end_line: usize,
    /// Column of the error's end.
    pub end_column: usize,
    /// What is wrong there.
    pub message: String,
}

/// A function, class, method or other named definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SymbolInfo {
    /// The symbol's own name.
    pub name: String,
    /// `function`, `async_function`, `class`, `method`, `interface`, `type_alias`, `enum`...
    #[schemars(with = "String")]
    pub kind: SymbolKind,
    /// 1-based first line (the `def`/`class` line for decorated Python definitions).
    pub line: usize,
    /// 1-based last line.
    pub end_line: usize,
    /// Dotted path of the enclosing class or function, if any.
    pub parent: Option<String>,
}

/// A Markdown heading.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HeaderInfo {
    /// 1 to 6.
    pub level: u8,
    /// The heading's text.
    pub text: String,
    /// 1-based line.
    pub line: usize,
}

/// A Markdown code block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CodeBlockInfo {
    /// The fence's info string (language), if any.
    pub language: Option<String>,
    /// The code.
    pub code: String,
    /// 1-based line of the block's start.
    pub line: usize,
}

/// A Markdown link or image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LinkInfo {
    /// The link text (or image alt text).
    pub text: String,
    /// The destination.
    pub url: String,
    /// 1-based line.
    pub line: usize,
    /// Whether it is an image.
    pub image: bool,
}

/// Problems reported after a write by the built-in syntax check and external checkers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DiagnosticsInfo {
    /// Whether any checker reported a problem.
    pub has_problems: bool,
    /// Syntax errors found by the built-in parser.
    pub syntax_errors: Vec<SyntaxErrorInfo>,
    /// After an edit or patch of an existing file that left syntax errors: how many the
    /// statements it touched had before. More errors now than before means the change
    /// introduced them; as many means the file was already broken there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub syntax_errors_before: Option<u64>,
    /// Output of external checkers that reported problems (name and capped output).
    pub checkers: Vec<CheckerInfo>,
    /// How the external checker was confined: `landlock`, `landlock without network rules
    /// (kernel Landlock ABI n)` or `unavailable: <why>`. Given with a checker's report, and
    /// whenever a checker ran without full Landlock confinement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confinement: Option<String>,
    /// The built-in syntax check was not made (the part to parse is past a parse limit): why,
    /// and the size. A skipped check is not a clean one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<SkippedCheckInfo>,
}

/// A built-in syntax check that was not made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SkippedCheckInfo {
    /// Why, naming the limit.
    pub reason: String,
    /// Bytes the check would have parsed.
    pub size_bytes: u64,
}

/// One external checker's report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CheckerInfo {
    /// The checker (`ruff`, `python`, `eslint`...).
    pub name: String,
    /// Whether it passed.
    pub ok: bool,
    /// Its output, capped.
    pub output: String,
}

// ---------------------------------------------------------------------------------------------
// read_file

/// Read a text file with its hash (arms the staleness guard for later writes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ReadFileRequest {
    /// File path, relative to the workspace root.
    #[serde(alias = "file_path", alias = "filepath")]
    #[schemars(extend("x-aliases" = ["file_path", "filepath"]))]
    pub path: String,
    /// First line to return, 1-based (default: 1).
    #[serde(default)]
    pub offset: Option<usize>,
    /// Most lines to return (default: the whole file).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Return the last this many lines (instead of `offset`/`limit`).
    #[serde(default)]
    pub tail: Option<usize>,
    /// Compute code facts (syntax, symbols) or the Markdown outline (default: for whole reads
    /// up to 256 KiB).
    #[serde(default)]
    pub include_symbols: Option<bool>,
    /// The whole file exactly as on disk (line endings and BOM kept); not with offset/limit/tail.
    #[serde(default)]
    pub raw: bool,
    /// WHATWG label
    #[serde(default)]
    pub encoding: Option<String>,
}

/// A file's content and facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReadFileResponse {
    /// Canonical path relative to the root.
    pub path: String,
    /// The text (LF line endings; the original endings are kept on write), or the requested
    /// range of lines. Empty for binary files.
    pub content: String,
    /// SHA-256 of the whole file on disk; pass it as `expected_hash` to guard a later write.
    #[schemars(with = "String")]
    pub sha256: editkit_vfs::Sha256,
    /// `python`, `typescript`, `tsx`, `javascript`, `jsx`, `markdown`, `json`, `text` or `binary`.
    #[schemars(with = "String")]
    pub file_type: FileType,
    /// Lines in the whole file.
    pub line_count: usize,
    /// Size on disk.
    pub size_bytes: u64,
    /// Whether the file is binary (then `content` is empty).
    pub is_binary: bool,
    /// `lf`, `cr_lf`, `cr`, `mixed` or `none`.
    #[schemars(with = "String")]
    pub line_endings: editkit_vfs::LineEndings,
    /// Whether the file starts with its encoding's BOM (UTF-8 or UTF-16).
    pub bom: bool,
    /// WHATWG label of the file's encoding (null if binary).
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub encoding: Option<editkit_vfs::Encoding>,
    /// Whether `content` is a range of lines rather than the whole file.
    pub partial: bool,
    /// First line in `content`, 1-based.
    #[serde(default)]
    pub start_line: usize,
    /// Last line in `content` (`start_line - 1` when it holds none: an empty file or `limit: 0`).
    #[serde(default)]
    pub end_line: usize,
    /// Lines in the whole file (as `line_count`).
    #[serde(default)]
    pub total_lines: usize,
    /// Set when the read was longer than the page bound and was cut after `end_line`: pass it
    /// as `offset` to read on. `null` when `content` holds every line asked for.
    #[serde(default)]
    pub next_offset: Option<usize>,
    /// Whether the facts below were computed (see `include_symbols`); when false they are empty
    /// because they were not asked for, not because the file has none.
    #[serde(default)]
    pub facts_included: bool,
    /// For code: whether it parses.
    pub is_valid: Option<bool>,
    /// For code: syntax errors.
    pub errors: Vec<SyntaxErrorInfo>,
    /// For code: definitions.
    pub symbols: Vec<SymbolInfo>,
    /// For Markdown: headings.
    pub headers: Vec<HeaderInfo>,
    /// For Markdown: code blocks.
    pub code_blocks: Vec<CodeBlockInfo>,
    /// For Markdown: links and images.
    pub links: Vec<LinkInfo>,
}

// ---------------------------------------------------------------------------------------------
// write_file, write_python_file, write_markdown_file

/// Write a whole file atomically.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct WriteFileRequest {
    /// File path, relative to the workspace root.
    #[serde(alias = "file_path", alias = "filepath")]
    #[schemars(extend("x-aliases" = ["file_path", "filepath"]))]
    pub path: String,
    /// The complete new content.
    pub content: String,
    /// Create missing parent directories.
    #[serde(default = "yes")]
    pub create_dirs: bool,
    /// Write even if the file changed since it was read.
    #[serde(default)]
    pub force: bool,
    /// Your read's sha256: refused unless the file still has it (even with force); stateless HTTP needs it.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub expected_hash: Option<editkit_vfs::Sha256>,
    /// Only create: refused (exists) if anything stands where the path leads.
    #[serde(default)]
    pub create_new: bool,
    /// WHATWG label
    #[serde(default)]
    pub encoding: Option<String>,
}

/// What a write did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WriteFileResponse {
    /// Canonical path relative to the root.
    pub path: String,
    /// Bytes written.
    pub size_bytes: u64,
    /// Detected file type.
    #[schemars(with = "String")]
    pub file_type: FileType,
    /// SHA-256 of the new content.
    #[schemars(with = "String")]
    pub sha256: editkit_vfs::Sha256,
    /// Whether the file was created.
    pub created: bool,
    /// Post-write diagnostics (empty when off or clean).
    pub diagnostics: DiagnosticsInfo,
}

/// Write a Python file, refusing content with syntax errors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct WritePythonFileRequest {
    /// File path, relative to the workspace root.
    #[serde(alias = "file_path", alias = "filepath")]
    #[schemars(extend("x-aliases" = ["file_path", "filepath"]))]
    pub path: String,
    /// The complete new content.
    pub content: String,
    /// Refuse content with syntax errors.
    #[serde(default = "yes")]
    pub validate: bool,
    /// Create missing parent directories.
    #[serde(default = "yes")]
    pub create_dirs: bool,
}

/// What write_python_file did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WritePythonFileResponse {
    /// Canonical path relative to the root.
    pub path: String,
    /// Bytes written.
    pub bytes_written: u64,
    /// Lines written.
    pub line_count: usize,
    /// SHA-256 of the new content.
    #[schemars(with = "String")]
    pub sha256: editkit_vfs::Sha256,
}

/// Write a Markdown file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct WriteMarkdownFileRequest {
    /// File path, relative to the workspace root.
    #[serde(alias = "file_path", alias = "filepath")]
    #[schemars(extend("x-aliases" = ["file_path", "filepath"]))]
    pub path: String,
    /// The complete new content.
    pub content: String,
    /// Create missing parent directories.
    #[serde(default = "yes")]
    pub create_dirs: bool,
}

/// What write_markdown_file did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WriteMarkdownFileResponse {
    /// Canonical path relative to the root.
    pub path: String,
    /// Bytes written.
    pub size_bytes: u64,
    /// SHA-256 of the new content.
    #[schemars(with = "String")]
    pub sha256: editkit_vfs::Sha256,
}

// ---------------------------------------------------------------------------------------------
// edit_file, edit_python_file, replace_function

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
    /// File path, relative to the workspace root.
    #[serde(alias = "file_path", alias = "filepath")]
    #[schemars(extend("x-aliases" = ["file_path", "filepath"]))]
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
    #[schemars(with = "String", extend("enum" = ["merge", "strict"]))]
    pub stale: StaleMode,
    /// Notebook cell to edit in (.ipynb)
    #[serde(default)]
    pub cell_id: Option<String>,
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

/// Edit a Python file, refusing an edit that introduces syntax errors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct EditPythonFileRequest {
    /// File path, relative to the workspace root.
    #[serde(alias = "file_path", alias = "filepath")]
    #[schemars(extend("x-aliases" = ["file_path", "filepath"]))]
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

/// What edit_python_file did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EditPythonFileResponse {
    /// The edit's details.
    #[serde(flatten)]
    pub edit: EditFileResponse,
    /// On a dry run: whether the edit would change the file.
    pub would_change: bool,
}

/// Replace a whole function or method by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ReplaceFunctionRequest {
    /// File path, relative to the workspace root.
    #[serde(alias = "file_path", alias = "filepath")]
    #[schemars(extend("x-aliases" = ["file_path", "filepath"]))]
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
}

// ---------------------------------------------------------------------------------------------
// apply_patch, undo

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
    #[schemars(with = "String", extend("enum" = ["hunks", "begin_patch", "unified"]))]
    pub dialect: Option<PatchDialect>,
    /// WHATWG label
    #[serde(default)]
    pub encoding: Option<String>,
    /// If a file changed since read: merge per hunk, or strict.
    #[serde(default)]
    #[schemars(with = "String", extend("enum" = ["merge", "strict"]))]
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

/// Restore a file to its content before the last change made through editkit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct UndoEditRequest {
    /// File path, relative to the workspace root.
    #[serde(alias = "file_path", alias = "filepath")]
    #[schemars(extend("x-aliases" = ["file_path", "filepath"]))]
    pub path: String,
    /// Restore even if the file changed since editkit's change.
    #[serde(default)]
    pub force: bool,
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

// ---------------------------------------------------------------------------------------------
// search_files, list_dir, glob, exists, delete

/// Search file contents (regex by default), honouring .gitignore.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct SearchFilesRequest {
    /// The regex (or literal, with regex=false) to look for.
    #[serde(alias = "query")]
    #[schemars(extend("x-aliases" = ["query"]))]
    pub pattern: String,
    /// Directory to search, relative to the workspace root (default: the root).
    #[serde(default = "dot", alias = "directory")]
    #[schemars(extend("x-aliases" = ["directory"]))]
    pub path: String,
    /// Only files whose path matches this glob (e.g. `src/**/*.ts`).
    #[serde(default)]
    pub glob: Option<String>,
    /// Only files with this extension (`.py` or `py`).
    #[serde(default)]
    pub file_extension: Option<String>,
    /// Treat the pattern as a regex.
    #[serde(default = "yes")]
    pub regex: bool,
    /// Case sensitivity; default smart (insensitive unless the pattern has an uppercase letter).
    #[serde(default)]
    pub case_sensitive: Option<bool>,
    /// Most matching lines to return (default: 100; at most 100,000 whatever is asked, and the
    /// matches with their context within the call's byte budget).
    #[serde(default = "hundred")]
    pub max_results: usize,
    /// Lines of context before and after each match (default: 0).
    #[serde(default)]
    pub context_lines: usize,
    /// Lines of context before each match (instead of `context_lines`).
    #[serde(default)]
    pub before_context: Option<usize>,
    /// Lines of context after each match (instead of `context_lines`).
    #[serde(default)]
    pub after_context: Option<usize>,
    /// Take dot files and folders too. Default: false, as ripgrep. Blocked paths (`.env`,
    /// `.git`, keys...) stay out whatever this says.
    #[serde(default)]
    #[schemars(description = "")]
    pub hidden: bool,
    /// Honour `.gitignore` (inside a git repository) and `.ignore` files. Default: true, as
    /// ripgrep; false takes the files they name too (`node_modules`, build output).
    #[serde(default = "yes")]
    #[schemars(description = "")]
    pub ignore_rules: bool,
    /// Take files reached through symlinks that stay inside the workspace (under the link's
    /// path). Linked folders are never entered (a link loop cannot trap the walk), and links
    /// leading outside are never followed. Default: false, as ripgrep.
    #[serde(default)]
    #[schemars(description = "")]
    pub follow_links: bool,
}

/// List a directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ListDirRequest {
    /// Directory, relative to the workspace root (default: the root).
    #[serde(default = "dot", alias = "directory")]
    #[schemars(extend("x-aliases" = ["directory"]))]
    pub path: String,
}

/// A directory's entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ListDirResponse {
    /// The directory, canonical.
    pub path: String,
    /// Sorted names; directories end with `/`. At most [`crate::MAX_LIST_ENTRIES`], the first
    /// in this order.
    pub entries: Vec<String>,
    /// How many entries the directory holds (blocked entries and links leading out not counted).
    pub total_entries: usize,
    /// Whether `entries` was cut at [`crate::MAX_LIST_ENTRIES`].
    pub truncated: bool,
    /// Entries left out because their names are not UTF-8 (no path can name them).
    pub unnamed_entries: usize,
}

/// Find files by glob, honouring .gitignore.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct GlobRequest {
    /// Glob relative to `path` (`**/*.py`); `*` does not cross `/`.
    pub pattern: String,
    /// Directory to search under (default: the root).
    #[serde(default = "dot", alias = "directory")]
    #[schemars(extend("x-aliases" = ["directory"]))]
    pub path: String,
    /// Take dot files and folders too. Default: false, as ripgrep. Blocked paths (`.env`,
    /// `.git`, keys...) stay out whatever this says.
    #[serde(default)]
    #[schemars(description = "")]
    pub hidden: bool,
    /// Honour `.gitignore` (inside a git repository) and `.ignore` files. Default: true, as
    /// ripgrep; false takes the files they name too (`node_modules`, build output).
    #[serde(default = "yes")]
    #[schemars(description = "")]
    pub ignore_rules: bool,
    /// Take files reached through symlinks that stay inside the workspace (under the link's
    /// path). Linked folders are never entered (a link loop cannot trap the walk), and links
    /// leading outside are never followed. Default: false, as ripgrep.
    #[serde(default)]
    #[schemars(description = "")]
    pub follow_links: bool,
}

/// Files matching a glob.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GlobResponse {
    /// The pattern.
    pub pattern: String,
    /// Sorted paths relative to the root.
    pub matches: Vec<String>,
    /// Whether the list was cut at its bound.
    pub truncated: bool,
}

/// A path argument alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct PathRequest {
    /// Path, relative to the workspace root.
    #[serde(alias = "file_path", alias = "filepath")]
    #[schemars(extend("x-aliases" = ["file_path", "filepath"]))]
    pub path: String,
}

/// Whether a path exists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ExistsResponse {
    /// The path as given.
    pub path: String,
    /// Whether something is there.
    pub exists: bool,
    /// `file`, `dir` or `other` when it exists.
    #[schemars(with = "Option<String>")]
    pub kind: Option<editkit_vfs::EntryKind>,
}

/// Insert text after a line of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct InsertLinesRequest {
    /// File path, relative to the workspace root.
    #[serde(alias = "file_path", alias = "filepath")]
    #[schemars(extend("x-aliases" = ["file_path", "filepath"]))]
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
    #[schemars(with = "String", extend("enum" = ["merge", "strict"]))]
    pub stale: StaleMode,
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

/// Merge a lazy snippet (the changed parts of a file, the rest elided by marker comments).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct MergeSnippetRequest {
    /// File path, relative to the workspace root.
    #[serde(alias = "file_path", alias = "filepath")]
    #[schemars(extend("x-aliases" = ["file_path", "filepath"]))]
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
    #[schemars(with = "String", extend("enum" = ["refuse", "allow"]))]
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
    #[schemars(with = "String", extend("enum" = ["merge", "strict"]))]
    pub stale: StaleMode,
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

/// Read a Jupyter notebook by cell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct NotebookReadRequest {
    /// Notebook path (.ipynb), relative to the workspace root.
    #[serde(alias = "file_path", alias = "notebook_path")]
    #[schemars(extend("x-aliases" = ["file_path", "notebook_path"]))]
    pub path: String,
    /// Characters of output summary per cell (default 1000, at most 20000).
    #[serde(default = "thousand")]
    pub max_output_chars: usize,
}

/// A notebook's cells.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NotebookReadResponse {
    /// Canonical path relative to the root.
    pub path: String,
    /// SHA-256 of the file.
    #[schemars(with = "String")]
    pub sha256: editkit_vfs::Sha256,
    /// `4.<minor>`; from 4.5 cells carry ids of their own.
    pub nbformat: String,
    /// The cells in order.
    pub cells: Vec<NotebookCell>,
}

/// One notebook cell as notebook_read shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NotebookCell {
    /// 0-based position.
    pub index: usize,
    /// The cell's id (nbformat 4.5), or `cell-<index>` for a cell without one (older
    /// notebooks), which names it until cells are inserted or deleted before it.
    pub id: String,
    /// `code`, `markdown` or `raw`.
    pub cell_type: String,
    /// The source as one text.
    pub source: String,
    /// A code cell's execution count.
    pub execution_count: Option<i64>,
    /// How many outputs a code cell has.
    pub output_count: usize,
    /// The outputs in text: streams and text/plain shown, images and other data named with
    /// their size, tracebacks counted; bounded by `max_output_chars`.
    pub outputs: String,
    /// Whether `outputs` was cut.
    pub outputs_truncated: bool,
}

/// A notebook cell's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CellType {
    /// Code, run by the kernel.
    Code,
    /// Markdown text.
    Markdown,
    /// Raw text, passed through.
    Raw,
}

/// What notebook_edit does to the cell it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NotebookAction {
    /// Give the cell a new source (and type).
    Replace,
    /// Insert a new cell before it.
    InsertBefore,
    /// Insert a new cell after it.
    InsertAfter,
    /// Remove it.
    Delete,
}

/// Change one cell of a notebook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct NotebookEditRequest {
    /// Notebook path (.ipynb), relative to the workspace root.
    #[serde(alias = "file_path", alias = "notebook_path")]
    #[schemars(extend("x-aliases" = ["file_path", "notebook_path"]))]
    pub path: String,
    /// replace, insert_before, insert_after or delete.
    #[serde(alias = "edit_mode")]
    #[schemars(with = "String", extend("enum" = ["replace", "insert_before", "insert_after", "delete"], "x-aliases" = ["edit_mode"]))]
    pub action: NotebookAction,
    /// The cell's id (from notebook_read); or give index.
    #[serde(default)]
    pub cell_id: Option<String>,
    /// The cell's 0-based index; or give cell_id. Index 0 inserts into an empty notebook.
    #[serde(default)]
    pub index: Option<usize>,
    /// The new cell's source (replace, insert_*).
    #[serde(default, alias = "new_source")]
    #[schemars(extend("x-aliases" = ["new_source"]))]
    pub source: Option<String>,
    /// The new cell's type (default: the cell's own for replace, code for an insert).
    #[serde(default)]
    #[schemars(with = "String", extend("enum" = ["code", "markdown", "raw"]))]
    pub cell_type: Option<CellType>,
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
}

/// What notebook_edit did (or would do, on a dry run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NotebookEditResponse {
    /// Canonical path relative to the root.
    pub path: String,
    /// The action done.
    pub action: NotebookAction,
    /// Index of the changed, inserted or deleted cell.
    pub index: usize,
    /// Id of that cell (for an insert, the new cell's).
    pub cell_id: String,
    /// Cells after the change.
    pub cell_count: usize,
    /// Unified diff of the notebook file.
    pub diff: String,
    /// Whether the diff was cut at its bound.
    pub diff_truncated: bool,
    /// SHA-256 of the new content.
    #[schemars(with = "String")]
    pub sha256: editkit_vfs::Sha256,
    /// Whether this was a dry run.
    pub dry_run: bool,
}

/// What is known about a path without reading it as an agent would.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileInfoResponse {
    /// Canonical path relative to the root.
    pub path: String,
    /// `file`, `dir` or `other` (links are followed).
    #[schemars(with = "String")]
    pub kind: editkit_vfs::EntryKind,
    /// Size on disk (0 for a directory).
    pub size_bytes: u64,
    /// Last modification, seconds since the Unix epoch.
    pub modified_unix: i64,
    /// Last modification, nanoseconds since the Unix epoch.
    pub modified_ns: i64,
    /// Last status change (`ctime`: content, mode, links or name changed), nanoseconds since
    /// the Unix epoch.
    pub changed_ns: i64,
    /// Permission bits in octal (`0644`).
    pub permissions: String,
    /// For a text file: `python`, `markdown`, `text`... or `binary`; none for a directory.
    #[schemars(with = "Option<String>")]
    pub file_type: Option<FileType>,
    /// For a text file within the read limit: its lines.
    pub line_count: Option<usize>,
}

/// What create_directory did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CreateDirectoryResponse {
    /// Canonical path relative to the root.
    pub path: String,
    /// Whether the directory was created (false: it existed already).
    pub created: bool,
}

/// Delete a file, a symlink, or a directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct DeleteRequest {
    /// Path, relative to the workspace root.
    #[serde(alias = "file_path", alias = "filepath")]
    #[schemars(extend("x-aliases" = ["file_path", "filepath"]))]
    pub path: String,
    /// Delete a directory that is not empty, with everything in it (default: false; an empty
    /// directory needs no flag). Its files are kept in the undo history (undo_patch restores
    /// them).
    #[serde(default)]
    pub recursive: bool,
}

/// What a delete removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DeleteResponse {
    /// The path as given.
    pub path: String,
    /// `file`, `dir` or `symlink` (a link is removed, never its target).
    #[schemars(with = "String")]
    pub deleted: editkit_vfs::EntryKind,
}

/// Read several files in one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ReadFilesRequest {
    /// File paths, relative to the workspace root (at most 64).
    pub paths: Vec<String>,
    /// Compute code facts and Markdown outlines for each file.
    #[serde(default)]
    pub include_symbols: bool,
}

/// One file of a read_files call: its read, or why it could not be read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReadFilesItem {
    /// The path as given.
    pub path: String,
    /// The read, as read_file answers it; `null` when the file was refused.
    pub file: Option<Box<ReadFileResponse>>,
    /// Why the file was refused (`kind` and `message`, as a refused call's error); `null` when read.
    pub error: Option<ItemError>,
}

/// A refusal of one item of a call that goes on with the others.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ItemError {
    /// A stable word, as a refused call's `error.kind`.
    pub kind: String,
    /// What went wrong and what to do.
    pub message: String,
}

/// Several files, each read or refused on its own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReadFilesResponse {
    /// One item per path, in the order given.
    pub files: Vec<ReadFilesItem>,
    /// How many were read.
    pub read: usize,
    /// How many were refused.
    pub failed: usize,
}

/// Show the directories and files under a directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct TreeRequest {
    /// Directory, relative to the workspace root (default: the root).
    #[serde(default = "dot")]
    pub path: String,
    /// Levels shown below the directory (default: 3, at most 32); deeper files are counted in
    /// their directory's `files`.
    #[serde(default = "three")]
    pub depth: usize,
    /// Give each file's size, and each directory's total.
    #[serde(default)]
    pub sizes: bool,
}

/// One directory or file of a tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TreeEntry {
    /// Path relative to the workspace root; directories end with `/`.
    pub path: String,
    /// Depth below the listed directory (1: directly in it).
    pub depth: usize,
    /// For a directory: the files under it at any depth (within the walk's bound).
    pub files: Option<usize>,
    /// Bytes, when sizes were asked for (a directory: the sum of its files).
    pub size: Option<u64>,
}

/// The tree under a directory, honouring .gitignore and hidden-file rules like search_files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TreeResponse {
    /// Canonical path of the listed directory (`.` for the root).
    pub path: String,
    /// Directories and files, depth first, sorted by name.
    pub entries: Vec<TreeEntry>,
    /// Files found under the directory.
    pub total_files: usize,
    /// Whether the walk stopped at its bound (10,000 files): counts are then lower bounds.
    pub truncated: bool,
}

/// Move or rename a file or directory inside the workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct MoveRequest {
    /// The path to move, relative to the workspace root.
    #[serde(alias = "source", alias = "old_path")]
    #[schemars(extend("x-aliases" = ["source", "old_path"]))]
    pub from: String,
    /// Where it goes.
    #[serde(alias = "destination", alias = "new_path")]
    #[schemars(extend("x-aliases" = ["destination", "new_path"]))]
    pub to: String,
    /// Replace a file already at `to` (default: false: refused as `exists`). A directory is
    /// never replaced.
    #[serde(default)]
    pub overwrite: bool,
    /// Create missing parent directories of `to`.
    #[serde(default = "yes")]
    pub create_dirs: bool,
}

/// What a move did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MoveResponse {
    /// Canonical path moved from.
    pub from: String,
    /// Canonical path moved to.
    pub to: String,
    /// `file`, `dir` or `other`.
    #[schemars(with = "String")]
    pub kind: editkit_vfs::EntryKind,
    /// Whether a file at `to` was replaced.
    pub overwritten: bool,
    /// Whether undo_patch can reverse it (a file move is kept in the undo history; a directory
    /// is moved back with another move).
    pub undoable: bool,
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

/// No arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct NoArgs {}

/// One workspace root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RootInfo {
    /// The root's absolute path.
    pub path: String,
    /// Whether relative paths resolve in it (the first root).
    pub primary: bool,
}

/// Where the tools may work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ListRootsResponse {
    /// Every root; a path outside all of them is refused.
    pub roots: Vec<RootInfo>,
    /// Whether writing tools are refused.
    pub read_only: bool,
}

// ---------------------------------------------------------------------------------------------
// generate_diff, file_symbols, check_syntax, update_project_index

/// Diff a file against proposed content, without writing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct GenerateDiffRequest {
    /// File path, relative to the workspace root (a missing file diffs against empty).
    #[serde(alias = "file_path", alias = "filepath")]
    #[schemars(extend("x-aliases" = ["file_path", "filepath"]))]
    pub path: String,
    /// The proposed content.
    pub new_content: String,
    /// Lines of context around each change (default: 3).
    #[serde(default = "three")]
    pub context_lines: usize,
}

/// A diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GenerateDiffResponse {
    /// Unified diff.
    pub diff: String,
    /// Lines added.
    pub additions: usize,
    /// Lines removed.
    pub deletions: usize,
    /// Whether the content differs.
    pub has_changes: bool,
}

/// Symbols of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileSymbolsResponse {
    /// Canonical path.
    pub path: String,
    /// Detected file type.
    #[schemars(with = "String")]
    pub file_type: FileType,
    /// Definitions in source order.
    pub symbols: Vec<SymbolInfo>,
}

/// Syntax check of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CheckSyntaxResponse {
    /// Canonical path.
    pub path: String,
    /// Detected file type.
    #[schemars(with = "String")]
    pub file_type: FileType,
    /// Whether it parses.
    pub valid: bool,
    /// Errors with positions.
    pub errors: Vec<SyntaxErrorInfo>,
}

/// Create or refresh named sections of a project index Markdown file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct UpdateProjectIndexRequest {
    /// Directory holding the index, relative to the workspace root (default: the root).
    #[serde(default = "dot")]
    pub project_root: String,
    /// Becomes the `# ` title line.
    #[serde(default)]
    pub project_name: Option<String>,
    /// Body of the `## Description` section.
    #[serde(default)]
    pub description: Option<String>,
    /// Body of the `## Structure` section.
    #[serde(default)]
    pub structure: Option<String>,
    /// Body of the `## Instructions` section.
    #[serde(default)]
    pub instructions: Option<String>,
    /// The index file's name (default: PROJECT.md).
    #[serde(default = "project_md")]
    pub file: String,
}

/// What update_project_index changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct UpdateProjectIndexResponse {
    /// The index file.
    pub path: String,
    /// Sections created or replaced.
    pub updated_sections: Vec<String>,
    /// Whether the file was created.
    pub created: bool,
}

// ---------------------------------------------------------------------------------------------
// Editor sessions

/// Load a file into an editor session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct EditorLoadRequest {
    /// File path, relative to the workspace root.
    #[serde(alias = "file_path", alias = "filepath")]
    #[schemars(extend("x-aliases" = ["file_path", "filepath"]))]
    pub path: String,
}

/// A new session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EditorLoadResponse {
    /// Pass this to the other editor tools.
    pub session_id: String,
    /// Canonical path.
    pub path: String,
    /// Lines in the buffer.
    pub line_count: usize,
    /// SHA-256 of the file when loaded.
    #[schemars(with = "String")]
    pub sha256: editkit_vfs::Sha256,
}

/// Read a session's buffer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct EditorReadRequest {
    /// The session.
    pub session_id: String,
    /// First line, 1-based (default: 1).
    #[serde(default)]
    pub offset: Option<usize>,
    /// Most lines (default: all).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// A buffer's content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EditorReadResponse {
    /// The session.
    pub session_id: String,
    /// The requested lines.
    pub content: String,
    /// Lines in the whole buffer.
    pub line_count: usize,
    /// Whether the buffer differs from the file on disk when loaded.
    pub modified: bool,
}

/// Replace a session's whole buffer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct EditorWriteRequest {
    /// The session.
    pub session_id: String,
    /// The new buffer content.
    #[serde(alias = "content")]
    #[schemars(extend("x-aliases" = ["content"]))]
    pub text: String,
}

/// Edit a session's buffer with the same matcher as edit_file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct EditorEditRequest {
    /// The session.
    pub session_id: String,
    /// The text to replace.
    #[serde(alias = "old", alias = "old_str")]
    #[schemars(extend("x-aliases" = ["old", "old_str"]))]
    pub old_string: String,
    /// The replacement.
    #[serde(alias = "new", alias = "new_str")]
    #[schemars(extend("x-aliases" = ["new", "new_str"]))]
    pub new_string: String,
    /// Replace every occurrence.
    #[serde(default)]
    pub replace_all: bool,
    /// Match old_string exactly as written, with no tolerance for drift.
    #[serde(default)]
    pub strict: bool,
}

/// A session id alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct SessionRequest {
    /// The session.
    pub session_id: String,
}

/// A session's state after a change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EditorStateResponse {
    /// The session.
    pub session_id: String,
    /// Lines in the buffer.
    pub line_count: usize,
    /// Replacements made (editor_edit), 0 otherwise.
    pub replacements: usize,
    /// The rung that matched (editor_edit).
    #[schemars(with = "Option<String>")]
    pub rung: Option<editkit_matcher::Rung>,
    /// Whether the buffer differs from the file on disk when loaded.
    pub modified: bool,
}

/// What editor_store wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EditorStoreResponse {
    /// The session.
    pub session_id: String,
    /// Canonical path.
    pub path: String,
    /// Bytes written.
    pub size_bytes: u64,
    /// SHA-256 of the new content.
    #[schemars(with = "String")]
    pub sha256: editkit_vfs::Sha256,
}

/// What editor_clear did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EditorClearResponse {
    /// The session closed.
    pub session_id: String,
    /// Whether it held changes that were never stored.
    pub discarded_changes: bool,
}

// ---------------------------------------------------------------------------------------------
// Search results, mirrored from editkit-search so the schema lives with the tool.

/// One matching line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SearchMatch {
    /// 1-based line.
    pub line: u64,
    /// 1-based column of the match's start, in characters (as an editor counts them).
    pub column: u64,
    /// 1-based column just after the match's end on its first line: the match is
    /// `column..end_column`.
    #[serde(default)]
    pub end_column: u64,
    /// The line (cut with a marker when very long).
    pub content: String,
    /// Context lines before.
    pub before: Vec<String>,
    /// Context lines after.
    pub after: Vec<String>,
}

/// Matches in one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SearchFileResult {
    /// Path relative to the root.
    pub file: String,
    /// Matching lines in order.
    pub matches: Vec<SearchMatch>,
    /// The file's encoding, when not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
}

/// A file not searched, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SkippedFile {
    /// Path relative to the root.
    pub path: String,
    /// Why it was skipped.
    pub reason: String,
}

/// A search's results.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SearchFilesResponse {
    /// The pattern searched.
    pub pattern: String,
    /// The directory searched.
    pub directory: String,
    /// Files searched.
    pub files_searched: u64,
    /// Files with at least one match.
    pub files_with_matches: u64,
    /// Matches per file, files sorted.
    pub results: Vec<SearchFileResult>,
    /// Files skipped, with reasons.
    pub skipped: Vec<SkippedFile>,
    /// Whether results were cut at max_results.
    pub truncated: bool,
}

// ---------------------------------------------------------------------------------------------
// Constructors and setters of requests.

/// `new` with a request's required fields (every other field takes the default the JSON
/// contract gives it when absent) and one builder-style setter per optional field: text
/// fields take anything that converts into a `String`, the others their own type.
macro_rules! request {
    (
        $request:ident { $($required:ident: $rtype:ty),* $(,)? }
        $(defaults { $($field:ident: $ftype:ty = $default:expr),* $(,)? })?
        $(text_defaults { $($tfield:ident = $tdefault:expr),* $(,)? })?
        $(optional { $($opt:ident: $otype:ty),* $(,)? })?
        $(optional_text { $($topt:ident),* $(,)? })?
    ) => {
        impl $request {
            /// A request with its required fields; every other field takes the default the JSON
            /// contract gives it.
            #[must_use]
            pub fn new($($required: impl Into<$rtype>),*) -> Self {
                $request {
                    $($required: $required.into(),)*
                    $($($field: $default,)*)?
                    $($($tfield: $tdefault,)*)?
                    $($($opt: None,)*)?
                    $($($topt: None,)*)?
                }
            }
            $($(
                #[doc = concat!("Sets `", stringify!($field), "`.")]
                #[must_use]
                pub fn $field(mut self, $field: $ftype) -> Self {
                    self.$field = $field;
                    self
                }
            )*)?
            $($(
                #[doc = concat!("Sets `", stringify!($tfield), "`.")]
                #[must_use]
                pub fn $tfield(mut self, $tfield: impl Into<String>) -> Self {
                    self.$tfield = $tfield.into();
                    self
                }
            )*)?
            $($(
                #[doc = concat!("Sets `", stringify!($opt), "`.")]
                #[must_use]
                pub fn $opt(mut self, $opt: $otype) -> Self {
                    self.$opt = Some($opt);
                    self
                }
            )*)?
            $($(
                #[doc = concat!("Sets `", stringify!($topt), "`.")]
                #[must_use]
                pub fn $topt(mut self, $topt: impl Into<String>) -> Self {
                    self.$topt = Some($topt.into());
                    self
                }
            )*)?
        }
    };
}

request!(
    ReadFileRequest { path: String }
    defaults { raw: bool = false }
    optional { offset: usize, limit: usize, tail: usize, include_symbols: bool }
    optional_text { encoding }
);
request!(
    WriteFileRequest { path: String, content: String }
    defaults { create_dirs: bool = yes(), force: bool = false, create_new: bool = false }
    optional { expected_hash: editkit_vfs::Sha256 }
    optional_text { encoding }
);
request!(
    WritePythonFileRequest { path: String, content: String }
    defaults { validate: bool = yes(), create_dirs: bool = yes() }
);
request!(WriteMarkdownFileRequest { path: String, content: String } defaults { create_dirs: bool = yes() });
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
    ApplyPatchRequest { patch: String }
    defaults { force: bool = false, dry_run: bool = false, strict: bool = false, stale: StaleMode = StaleMode::Merge }
    optional { dialect: PatchDialect }
    optional_text { encoding }
);
request!(
    MergeSnippetRequest { path: String, snippet: String }
    defaults { dry_run: bool = false, deletions: Deletions = Deletions::Refuse, force: bool = false, stale: StaleMode = StaleMode::Merge }
    optional { expected_hash: editkit_vfs::Sha256 }
);
request!(UndoEditRequest { path: String } defaults { force: bool = false });
request!(UndoPatchRequest {} defaults { force: bool = false });
request!(
    SearchFilesRequest { pattern: String }
    defaults { regex: bool = yes(), max_results: usize = hundred(), context_lines: usize = 0, hidden: bool = false, ignore_rules: bool = yes(), follow_links: bool = false }
    text_defaults { path = dot() }
    optional { case_sensitive: bool, before_context: usize, after_context: usize }
    optional_text { glob, file_extension }
);
request!(ListDirRequest {} text_defaults { path = dot() });
request!(
    GlobRequest { pattern: String }
    defaults { hidden: bool = false, ignore_rules: bool = yes(), follow_links: bool = false }
    text_defaults { path = dot() }
);
request!(PathRequest { path: String });
request!(
    InsertLinesRequest { path: String, line: usize, text: String }
    defaults { force: bool = false, dry_run: bool = false, stale: StaleMode = StaleMode::Merge }
    optional { expected_hash: editkit_vfs::Sha256 }
);
request!(DeleteRequest { path: String } defaults { recursive: bool = false });
request!(ReadFilesRequest { paths: Vec<String> } defaults { include_symbols: bool = false });
request!(TreeRequest {} defaults { depth: usize = three(), sizes: bool = false } text_defaults { path = dot() });
request!(MoveRequest { from: String, to: String } defaults { overwrite: bool = false, create_dirs: bool = yes() });
request!(GenerateDiffRequest { path: String, new_content: String } defaults { context_lines: usize = three() });
request!(
    UpdateProjectIndexRequest {}
    text_defaults { project_root = dot(), file = project_md() }
    optional_text { project_name, description, structure, instructions }
);
request!(EditorLoadRequest { path: String });
request!(EditorReadRequest { session_id: String } optional { offset: usize, limit: usize });
request!(EditorWriteRequest { session_id: String, text: String });
request!(
    EditorEditRequest { session_id: String, old_string: String, new_string: String }
    defaults { replace_all: bool = false, strict: bool = false }
);
request!(SessionRequest { session_id: String });
request!(NoArgs {});
request!(HistoryRequest {} optional_text { path });
request!(NotebookReadRequest { path: String } defaults { max_output_chars: usize = thousand() });
request!(
    NotebookEditRequest { path: String, action: NotebookAction }
    defaults { force: bool = false, dry_run: bool = false }
    optional { index: usize, cell_type: CellType, expected_hash: editkit_vfs::Sha256 }
    optional_text { cell_id, source }
);

impl Default for TreeRequest {
    fn default() -> Self {
        Self::new()
    }
}

impl Default for ListDirRequest {
    fn default() -> Self {
        Self::new()
    }
}

impl Default for UpdateProjectIndexRequest {
    fn default() -> Self {
        Self::new()
    }
}
