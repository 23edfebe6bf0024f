//! Code awareness for editkit: what a file is, whether it parses, what it defines, and edits
//! scoped to one definition or one Markdown section.
//!
//! Everything here except [`diagnose`] and [`format_file`] is a pure function over text:
//! - [`detect`] gives a [`FileKind`] from a path and bytes;
//! - [`check_syntax`] gives a [`SyntaxReport`] with line/column errors (tree-sitter for Python,
//!   TypeScript, TSX, JavaScript and JSX; serde_json for JSON);
//! - [`symbols`] lists [`Symbol`]s; [`symbol_range`] and [`replace_function`] find or replace
//!   one of them by its dotted path (`Class.method`);
//! - [`outline`] and [`section_range`] do the same for Markdown headers, code blocks and links.
//!
//! Parsing is bounded in size ([`MAX_PARSE_BYTES`]) and time ([`PARSE_TIME_LIMIT`]). The
//! external-tool functions run checkers and formatters as processes with a timeout on a path
//! the caller has already confined to the workspace (see their `# Security` notes).
//!
//! ```
//! use editkit_analyze::{detect, replace_function, symbols, FileKind};
//! # fn main() -> Result<(), editkit_analyze::Error> {
//! let src = "class Greeter:\n    def hello(self):\n        return 'hi'\n";
//! let kind = detect("greet.py", src.as_bytes());
//! assert_eq!(kind, FileKind::Python);
//!
//! let names: Vec<String> = symbols(kind, src)?.iter().map(|symbol| symbol.path()).collect();
//! assert_eq!(names, ["Greeter", "Greeter.hello"]);
//!
//! let new = replace_function(kind, src, "Greeter.hello", "def hello(self):\n    return 'hello'")?;
//! assert_eq!(new, "class Greeter:\n    def hello(self):\n        return 'hello'\n");
//!
//! let broken = replace_function(kind, src, "Greeter.hello", "def hello(self:\n    return 1");
//! assert_eq!(broken.map_err(|error| error.kind()), Err("syntax_error"));
//! # Ok(()) }
//! ```

#![deny(missing_docs)]

mod edit;
mod error;
mod kind;
mod markdown;
mod parse;
mod process;
mod symbols;
mod syntax;
mod tools;

pub use edit::{replace_function, symbol_range};
pub use error::Error;
pub use kind::{FileKind, detect};
pub use markdown::{CodeBlock, Header, Link, Outline, outline, section_range};
pub use parse::{MAX_PARSE_BYTES, PARSE_TIME_LIMIT};
pub use process::{MAX_OUTPUT_CHARS, TOOL_TIMEOUT};
pub use symbols::{Symbol, SymbolKind, symbols};
pub use syntax::{SyntaxError, SyntaxReport, check_syntax};
pub use tools::{
    CheckerReport, Diagnostics, DiagnosticsMode, DiagnosticsOptions, FormatOptions, FormatReport, SkippedTool, Tool,
    diagnose, format_file,
};
