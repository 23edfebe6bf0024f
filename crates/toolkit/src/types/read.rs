//! read_file and read_files.

use super::facts::{CodeBlockInfo, HeaderInfo, LinkInfo, SymbolInfo, SyntaxErrorInfo};
use super::words::ErrorKind;
use super::words::FileType;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

path_request! {
    file
    /// Read a text file with its hash (arms the staleness guard for later writes).
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[non_exhaustive]
    pub struct ReadFileRequest {
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
    pub kind: ErrorKind,
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

request!(
    ReadFileRequest { path: String }
    defaults { raw: bool = false }
    optional { offset: usize, limit: usize, tail: usize, include_symbols: bool }
    optional_text { encoding }
);

request!(ReadFilesRequest { paths: Vec<String> } defaults { include_symbols: bool = false });
