//! Shared pieces of responses: syntax errors, symbols, Markdown facts, diagnostics.

use super::words::{Confinement, SymbolKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
    pub confinement: Option<Confinement>,
    /// The built-in syntax check was not made (the part to parse is past a parse limit): why,
    /// and the size. A skipped check is not a clean one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<SkippedCheckInfo>,
    /// The written file's diagnostics from its language server, with how current they are
    /// (`fresh`, `stale`, `timed_out` or `unavailable`, never silent). Only when the
    /// toolkit's `language_servers.after_writes` is on (`editkit mcp` turns it on) and
    /// editkit runs a server for the file's language (Python, TypeScript/JavaScript, Rust);
    /// absent otherwise. The syntax check above does not wait for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_diagnostics: Option<super::ServerDiagnosticsInfo>,
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
