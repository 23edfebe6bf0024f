//! The details of a refused call: the fields of the contract's error object beside `kind` and
//! `message`, typed, so the tools' result schemas describe them.

use schemars::JsonSchema;
use serde::Serialize;

use super::facts::SyntaxErrorInfo;
use super::words::Mode;

/// Details of a refused call, each present only when it applies (most errors give a few).
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct ErrorDetails {
    /// The path the error is about (relative to its root), or what was to be undone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The argument to fix.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// The tool refused (unknown, or writing on a read-only toolkit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The workspace roots, for a path outside every one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<String>>,
    /// `stale`: the hash the file was expected to have (`null`: expected absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Option<String>>")]
    pub expected_sha256: Option<Option<editkit_vfs::Sha256>>,
    /// `stale`: the hash the file has now (`null`: it is absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Option<String>>")]
    pub current_sha256: Option<Option<editkit_vfs::Sha256>>,
    /// The size refused, in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    /// The limit it passed, in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit_bytes: Option<u64>,
    /// The name of the limit (an option or a constant: `max_read_bytes`, `MAX_CELLS`...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
    /// `blocked`: the policy pattern the path matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// `blocked`: the file's hard-link count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub links: Option<u64>,
    /// `permission_denied`: the file's permission bits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// Byte offset of the first byte that does not decode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
    /// `not_utf8`: the encoding the bytes look like.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guess: Option<String>,
    /// The encoding concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    /// `not_encodable`: the character the encoding cannot hold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub character: Option<String>,
    /// A 1-based line: the character's, or where the new text already is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// `not_found`: the region most like the text looked for (`null`: none close).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closest: Option<Option<NearMissInfo>>,
    /// Why a similar region cannot take the change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `ambiguous`: how many places match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<usize>,
    /// The 1-based lines concerned (the places that match, a region's first and last).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<Vec<usize>>,
    /// The matching rung of an ambiguous match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rung: Option<String>,
    /// Of several edits in one call, the 0-based index of the one refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edit_index: Option<usize>,
    /// A change made outside since the read: the first and last line of the edit it meets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edit_lines: Option<[usize; 2]>,
    /// A change made outside since the read: the ranges of lines it changed (first, last).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outside_lines: Option<Vec<[usize; 2]>>,
    /// A change made outside since the read, as a diff.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outside_diff: Option<String>,
    /// merge_snippet: the 1-based chunk of the snippet refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunk: Option<usize>,
    /// merge_snippet: the chunk's first and last line in the snippet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet_lines: Option<[usize; 2]>,
    /// merge_snippet: the snippet line concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet_line: Option<usize>,
    /// merge_snippet: lines the chunk would delete.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deleted: Option<usize>,
    /// merge_snippet: the definition concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub definition: Option<String>,
    /// replace_function: the names there are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub available: Option<Vec<String>>,
    /// The syntax errors refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub syntax_errors: Option<Vec<SyntaxErrorInfo>>,
    /// apply_patch: every failing hunk (path, hunk, kind, message, closest region...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Vec<serde_json::Map<String, serde_json::Value>>>")]
    pub failures: Option<Vec<serde_json::Value>>,
    /// The editor session concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The session expired.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expired: Option<bool>,
    /// The session is in use by another call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub busy: Option<bool>,
    /// The session was evicted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evicted: Option<bool>,
    /// The evicted session held changes not stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unstored_changes_lost: Option<bool>,
    /// A notebook's cell count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cell_count: Option<usize>,
    /// The most cells a notebook may have.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_cells: Option<usize>,
    /// `unavailable`: the language whose server does not answer (`python`, `typescript`, `rust`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// `unavailable`: what to install so a server answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub install: Option<String>,
}

/// The region of a text most like what was looked for.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct NearMissInfo {
    /// 1-based first line of the region.
    pub first_line: usize,
    /// 1-based last line of the region (inclusive).
    pub last_line: usize,
    /// Similarity of the region to the text looked for, from 0.0 to 1.0.
    pub similarity: f64,
    /// The first line where they differ.
    pub divergence: Option<DivergenceInfo>,
}

/// The first differing line of a near miss, whitespace made visible.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct DivergenceInfo {
    /// 1-based line in the text.
    pub line: usize,
    /// The line looked for, made visible.
    pub expected: String,
    /// The text's line there, made visible.
    pub found: String,
}

impl From<editkit_matcher::NearMiss> for NearMissInfo {
    fn from(near: editkit_matcher::NearMiss) -> Self {
        NearMissInfo {
            first_line: near.first_line,
            last_line: near.last_line,
            similarity: near.similarity,
            divergence: near.divergence.map(|d| DivergenceInfo { line: d.line, expected: d.expected, found: d.found }),
        }
    }
}
