//! find_symbol, find_references, rename_symbol and diagnostics: what a language server knows.

use std::collections::BTreeMap;

use super::defaults::yes;
use super::facts::SyntaxErrorInfo;
use super::server_diagnostics::ServerDiagnosticsInfo;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Find a symbol by its name path across the workspace, through the language server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct FindSymbolRequest {
    /// The name path: `func`, `Class/method`, `Outer/Inner/method` (`.` and `::` separate too).
    pub name_path: String,
    /// Look in this file only (relative to the workspace root); its language picks the server.
    #[serde(default)]
    pub path: Option<String>,
    /// The server to ask when no path is given: `python`, `typescript` (also JavaScript) or
    /// `rust`. Default: each of these whose files the workspace holds.
    #[serde(default)]
    pub language: Option<String>,
    /// Most symbols returned (default 50, at most 200).
    #[serde(default)]
    pub max_results: Option<usize>,
}

/// One symbol found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SymbolMatch {
    /// The file, relative to its workspace root.
    pub path: String,
    /// 1-based line of its name.
    pub line: usize,
    /// 1-based column of its name, in characters.
    pub column: usize,
    /// Its name.
    pub name: String,
    /// Its kind (`function`, `class`, `method`...), as the server says.
    pub kind: String,
    /// What it is declared in (`Shape`, `pkg.util`...), when the server says.
    pub container: Option<String>,
    /// The line's text (cut to 300 characters).
    pub text: String,
    /// The server's language (`python`, `typescript`, `rust`).
    pub language: String,
}

/// Symbols matching a name path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FindSymbolResponse {
    /// The name path asked for.
    pub name_path: String,
    /// The matches, by path, then line.
    pub symbols: Vec<SymbolMatch>,
    /// Whether more matched than `max_results`.
    pub truncated: bool,
    /// Matches left out because they lie outside the workspace or in blocked files.
    pub omitted_outside: usize,
    /// False when a server had not finished loading the workspace (or could not load all of
    /// it): the list may miss symbols, and `incomplete_reason` says why.
    pub complete: bool,
    /// Why the answer may be incomplete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete_reason: Option<String>,
}

path_request! {
    file
    /// The references to a symbol, named by line and column or by name.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[non_exhaustive]
    pub struct FindReferencesRequest {
        pub path: String,
        /// 1-based line of the symbol (with column or symbol). Without it, symbol is a name path
        /// (`Class/method`) looked up in the file.
        #[serde(default)]
        pub line: Option<usize>,
        /// 1-based column, in characters, of any character of the symbol on that line.
        #[serde(default)]
        pub column: Option<usize>,
        /// The symbol's name on that line (its first whole-word occurrence), or, without line, its
        /// name path in the file.
        #[serde(default)]
        pub symbol: Option<String>,
        /// Count the declaration among the references. Default: true.
        #[serde(default = "yes")]
        pub include_declaration: bool,
        /// Most references returned (default 200, at most 10,000).
        #[serde(default)]
        pub max_results: Option<usize>,
    }
}

/// One reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReferenceInfo {
    /// The file, relative to its workspace root.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// The line's text (cut to 300 characters).
    pub text: String,
}

/// The references to a symbol.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FindReferencesResponse {
    /// The file asked about.
    pub path: String,
    /// The symbol's name at the position.
    pub symbol: String,
    /// 1-based line of the position used.
    pub line: usize,
    /// 1-based column of the position used, in characters.
    pub column: usize,
    /// The references, by path, then line, then column.
    pub references: Vec<ReferenceInfo>,
    /// How many the server gave inside the workspace.
    pub total: usize,
    /// Whether more than `max_results` were found.
    pub truncated: bool,
    /// References left out because they lie outside the workspace or in blocked files.
    pub omitted_outside: usize,
    /// False when the server had not finished loading the workspace (or could not load all
    /// of it): the list may miss references, and `incomplete_reason` says why.
    pub complete: bool,
    /// Why the answer may be incomplete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete_reason: Option<String>,
}

path_request! {
    file
    /// Rename a symbol everywhere the language server finds it, all files or none.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[non_exhaustive]
    pub struct RenameSymbolRequest {
        pub path: String,
        /// 1-based line of the symbol (with column or symbol). Without it, symbol is a name path
        /// (`Class/method`) looked up in the file.
        #[serde(default)]
        pub line: Option<usize>,
        /// 1-based column, in characters, of any character of the symbol on that line.
        #[serde(default)]
        pub column: Option<usize>,
        /// The symbol's name on that line (its first whole-word occurrence), or, without line, its
        /// name path in the file.
        #[serde(default)]
        pub symbol: Option<String>,
        /// The new name.
        pub new_name: String,
        /// Show the whole diff and the plan, write nothing.
        #[serde(default)]
        pub dry_run: bool,
        /// The plan a dry run returned: the rename is refused whole (stale) if any file differs
        /// from it.
        #[serde(default)]
        #[schemars(with = "Option<BTreeMap<String, String>>")]
        pub plan: Option<BTreeMap<String, editkit_vfs::Sha256>>,
    }
}

/// One file a rename changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RenamedFileInfo {
    /// The file, relative to the workspace root.
    pub path: String,
    /// Its edits.
    pub edits: usize,
    /// SHA-256 before.
    #[schemars(with = "String")]
    pub sha256_before: editkit_vfs::Sha256,
    /// SHA-256 after (absent on a dry run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub sha256_after: Option<editkit_vfs::Sha256>,
}

/// What a rename changed, or would change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RenameSymbolResponse {
    /// The name renamed.
    pub old_name: String,
    /// The new name.
    pub new_name: String,
    /// The files, by path.
    pub files: Vec<RenamedFileInfo>,
    /// The whole unified diff (on a dry run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Path → SHA-256 before, of every file: give it back as `plan` with the real run.
    #[schemars(with = "BTreeMap<String, String>")]
    pub plan: BTreeMap<String, editkit_vfs::Sha256>,
    /// Nothing was written.
    pub dry_run: bool,
}

/// A file's (or the open files') diagnostics from the language server, with their freshness.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct DiagnosticsRequest {
    /// File path, relative to the workspace root. Default: the files open with the running
    /// servers (at most 500).
    #[serde(default)]
    pub path: Option<String>,
    /// How long to wait for the server's diagnostics of the current text, in milliseconds:
    /// one deadline for the call, however many files. Default: the toolkit's per-language
    /// wait (Python 3 s, TypeScript/JavaScript 5 s, Rust 5 s); at most 120,000.
    #[serde(default)]
    pub wait_ms: Option<u64>,
}

/// The built-in syntax check of a file (tree-sitter), answered at once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SyntaxCheckInfo {
    /// Whether it parses (true for a kind of file editkit does not parse).
    pub valid: bool,
    /// Errors with positions.
    pub errors: Vec<SyntaxErrorInfo>,
}

/// One file's diagnostics.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileDiagnosticsInfo {
    /// The file, relative to its workspace root.
    pub path: String,
    /// The server's language (`python`, `typescript`, `rust`).
    pub language: String,
    /// What the server says, and how current it is.
    pub server: ServerDiagnosticsInfo,
    /// The built-in syntax check's answer.
    pub syntax: SyntaxCheckInfo,
}

/// Diagnostics of one or more files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DiagnosticsResponse {
    /// The files, by path.
    pub files: Vec<FileDiagnosticsInfo>,
    /// Files left out past the bound (500).
    pub omitted_files: usize,
}

request!(
    FindSymbolRequest { name_path: String }
    optional { max_results: usize }
    optional_text { path, language }
);

request!(
    FindReferencesRequest { path: String }
    defaults { include_declaration: bool = true }
    optional { line: usize, column: usize, max_results: usize }
    optional_text { symbol }
);

request!(
    RenameSymbolRequest { path: String, new_name: String }
    defaults { dry_run: bool = false }
    optional { line: usize, column: usize, plan: BTreeMap<String, editkit_vfs::Sha256> }
    optional_text { symbol }
);

request!(
    DiagnosticsRequest {}
    optional { wait_ms: u64 }
    optional_text { path }
);
