//! search_files and search_code; results mirrored from editkit-search so the schema lives with
//! the tool.

use super::defaults::{dot, hundred, yes};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

path_request! {
    directory
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
}

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
    /// Why it was skipped: `too_large`, `binary`, `not_utf8`, `outside_workspace`,
    /// `symlink_loop`, `non_utf8_name` or `unreadable`.
    #[schemars(with = "String")]
    pub reason: editkit_search::SkipReason,
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

request!(
    SearchFilesRequest { pattern: String }
    defaults { regex: bool = yes(), max_results: usize = hundred(), context_lines: usize = 0, hidden: bool = false, ignore_rules: bool = yes(), follow_links: bool = false }
    text_defaults { path = dot() }
    optional { case_sensitive: bool, before_context: usize, after_context: usize }
    optional_text { glob, file_extension }
);
