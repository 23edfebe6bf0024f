//! The values a search and a listing return; all serialise to the JSON of the tool contract.

use serde::{Deserialize, Serialize};

/// What [`crate::Search::run`] found.
///
/// `results` holds files sorted by path, each with its matching lines in file order. When a
/// bound was hit (`max_results`, `max_files`, or the skipped list's bound) `truncated` is
/// `true` and `results` holds the first matches in (path, line) order, so the same tree always
/// gives the same answer. `files_searched` and `files_with_matches` count every file, also
/// those whose matches were cut.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SearchResults {
    /// The pattern as given.
    pub pattern: String,
    /// The searched path relative to the workspace root (`.` for the root).
    pub directory: String,
    /// How many files were searched (skipped files are not counted).
    pub files_searched: usize,
    /// How many searched files have at least one match.
    pub files_with_matches: usize,
    /// Files with matches, sorted by path.
    pub results: Vec<FileMatches>,
    /// Files that were not searched, with the reason, sorted by path.
    pub skipped: Vec<Skipped>,
    /// Whether `results` or `skipped` were cut at a bound.
    pub truncated: bool,
}

/// The matching lines of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FileMatches {
    /// The file's path relative to the workspace root (for a followed link, the link's path).
    pub file: String,
    /// Its matching lines in file order.
    pub matches: Vec<Match>,
    /// The file's encoding (a WHATWG label such as `windows-1252` or `utf-16le`) when it is
    /// not UTF-8: its decoded text was searched. `None` for UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
}

/// One matching line (or, for a multi-line pattern, one run of lines).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Match {
    /// 1-based line number of the (first) matching line.
    pub line: u64,
    /// 1-based column of the first match on the line, counted in characters.
    pub column: usize,
    /// 1-based column just after the first match (on its first line), in characters: the
    /// match is `column..end_column`.
    #[serde(default)]
    pub end_column: usize,
    /// The line without its line ending; lines longer than the bound are cut around the
    /// match with [`crate::CUT_MARKER`].
    pub content: String,
    /// Up to `before_context` lines before the match, nearest last (cut like `content`).
    pub before: Vec<String>,
    /// Up to `after_context` lines after the match, nearest first (cut like `content`).
    pub after: Vec<String>,
}

/// What one line of a match costs beyond its text, counted by [`Match::held_bytes`]: the
/// string that holds it and its place in the answer.
pub const LINE_COST_BYTES: usize = 64;

impl Match {
    /// Bytes the match is counted as holding: its content and context lines, each with
    /// [`LINE_COST_BYTES`] (so a budget of bytes bounds a search of one-letter lines too).
    #[must_use]
    pub fn held_bytes(&self) -> usize {
        let lines = 1 + self.before.len() + self.after.len();
        let text = self.content.len() + self.before.iter().chain(&self.after).map(String::len).sum::<usize>();
        text + lines * LINE_COST_BYTES
    }
}

/// A file or link the search did not read, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Skipped {
    /// Its path relative to the workspace root.
    pub path: String,
    /// Why it was skipped.
    pub reason: SkipReason,
    /// More detail when there is some (the size and limit, the I/O error...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// Why a file was not searched. Serialised as a snake_case word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SkipReason {
    /// Larger than the search's `max_file_size`.
    TooLarge,
    /// Contains a NUL byte (and is not UTF-16 or UTF-32): binary, as every tool calls it
    /// ([`editkit_vfs::nul_verdict`]).
    Binary,
    /// UTF-16 or UTF-32 that the codec does not establish as such (no byte-order mark and too
    /// short, or a workspace that reads UTF-8 only): `read_file` refuses it as `utf16` too.
    Utf16,
    /// Not valid UTF-8 (search it anyway with `lossy`).
    NotUtf8,
    /// A symlink that leads outside the workspace root; never followed.
    OutsideWorkspace,
    /// A symlink loop or a chain of links too long to follow.
    SymlinkLoop,
    /// The entry's name is not valid UTF-8, so no path can name it.
    NonUtf8Name,
    /// Could not be opened or read (permissions, vanished mid-search, a link that cannot be
    /// resolved...).
    Unreadable,
}

impl SkipReason {
    /// The snake_case word this reason serialises to.
    ///
    /// ```
    /// assert_eq!(editkit_search::SkipReason::NotUtf8.as_str(), "not_utf8");
    /// ```
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::TooLarge => "too_large",
            SkipReason::Binary => "binary",
            SkipReason::Utf16 => "utf16",
            SkipReason::NotUtf8 => "not_utf8",
            SkipReason::OutsideWorkspace => "outside_workspace",
            SkipReason::SymlinkLoop => "symlink_loop",
            SkipReason::NonUtf8Name => "non_utf8_name",
            SkipReason::Unreadable => "unreadable",
        }
    }
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What [`crate::Files::run`] found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FileList {
    /// The glob as given.
    pub pattern: String,
    /// The listed path relative to the workspace root (`.` for the root).
    pub directory: String,
    /// Matching files relative to the workspace root, sorted.
    pub files: Vec<String>,
    /// Links leading outside the root and other entries that could not be listed, sorted.
    pub skipped: Vec<Skipped>,
    /// Whether `files` or `skipped` were cut at a bound.
    pub truncated: bool,
}

#[cfg(test)]
mod tests {
    use super::SkipReason;

    #[test]
    fn skip_reasons_serialise_to_their_words() {
        use SkipReason::*;
        for reason in [TooLarge, Binary, Utf16, NotUtf8, OutsideWorkspace, SymlinkLoop, NonUtf8Name, Unreadable] {
            assert_eq!(serde_json::to_value(reason).unwrap(), serde_json::Value::String(reason.as_str().into()));
            assert_eq!(reason.to_string(), reason.as_str());
        }
    }
}
