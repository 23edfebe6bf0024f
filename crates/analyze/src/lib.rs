//! Code awareness for editkit: what a file is, whether it parses, what it defines, and edits
//! scoped to one definition or one Markdown section.
//!
//! Everything here except [`diagnose`] and [`format_source`] is a pure function over text:
//! - [`detect`] gives a [`FileKind`] from a path and decoded text (whether bytes are text is the
//!   vfs codec's verdict);
//! - [`check_syntax`] gives a [`SyntaxReport`] with line/column errors (tree-sitter for Python,
//!   TypeScript, TSX, JavaScript and JSX; serde_json for JSON);
//! - [`symbols`] lists [`Symbol`]s; [`symbol_range`] and [`replace_function`] find or replace
//!   one of them by its dotted path (`Class.method`);
//! - [`outline`] and [`section_range`] do the same for Markdown headers, code blocks and links.
//!
//! Parsing is bounded in size ([`MAX_PARSE_BYTES`]) and time ([`PARSE_TIME_LIMIT`]).
//!
//! ```
//! use editkit_analyze::{detect, replace_function, symbols, FileKind};
//! # fn main() -> Result<(), editkit_analyze::Error> {
//! let src = "class Greeter:\n    def hello(self):\n        return 'hi'\n";
//! let kind = detect("greet.py", src);
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
//!
//! # Security
//! [`diagnose`] and [`format_source`] run external checkers and formatters through
//! [`editkit_run`], contained as that crate describes (a private working directory, programs
//! found only outside the workspace roots, a scrubbed environment, the content on stdin,
//! Landlock, time and output bounds). Their default argv also ignores repository
//! configuration (`ruff --isolated`, `black --config` on an empty file,
//! `prettier --no-config --no-editorconfig`, rustfmt with `--config-path` on an empty file,
//! `python3 -I -B`, eslint `--no-config-lookup`), and the Python check compiles the source
//! with `compile()`, never `py_compile`, so no bytecode is written.
//!
//! [`format_source`] returns the formatted text; writing it is the caller's job (the editkit
//! facade writes it through editkit-vfs under the file's lock).

#![deny(missing_docs)]

mod cache;
mod change;
mod edit;
mod error;
mod kind;
mod markdown;
mod neutral;
mod parse;
mod region;
mod symbols;
mod syntax;
mod syntax_error;
mod tools;
mod worker;

/// The Python files of `fixtures/code/python` (real code nobody here wrote), in name order,
/// for the unit tests that run over the corpus.
#[cfg(test)]
pub(crate) fn python_corpus() -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/code/python");
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .unwrap_or_else(|error| panic!("the Python corpus at {}: {error}", root.display()))
        .map(|entry| entry.expect("a corpus entry").path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "py"))
        .collect();
    files.sort();
    assert!(files.len() > 10, "the Python corpus at {} holds {} files", root.display(), files.len());
    files
}

pub use cache::{CheckCache, DEFAULT_CACHED_BYTES, DEFAULT_CACHED_FILES};
pub use change::{ChangeReport, CheckScope, change_region, check_change, check_change_within};
pub use edit::{replace_function, replace_function_checked, symbol_range};
/// The runner's bounds and tool type, re-exported: editkit's checkers and formatters are
/// [`ExternalTool`]s run by [`editkit_run`].
pub use editkit_run::{ExternalTool, MAX_FORMATTED_BYTES, MAX_OUTPUT_CHARS, MAX_TOOL_INPUT_BYTES, TOOL_TIMEOUT};
pub use error::{Error, ErrorKind};
pub use kind::{FileKind, detect};
pub use markdown::{CodeBlock, Header, Link, Outline, Splice, outline, section_range, set_section, set_title};
pub use parse::{MAX_PARSE_BYTES, MAX_PARSE_TOKENS, PARSE_TIME_LIMIT};
pub use symbols::{Symbol, SymbolKind, symbols};
pub use syntax::{SyntaxReport, check_syntax};
pub use syntax_error::SyntaxError;
pub use tools::{
    CheckerReport, Diagnostics, DiagnosticsMode, DiagnosticsOptions, FormatOptions, FormatReport, SkippedCheck,
    SkippedTool, diagnose, diagnose_cached, diagnose_change, diagnose_change_within, format_source,
};

/// `mutex`'s guard, also when a thread panicked while holding it: every value kept behind a
/// mutex here (cached trees, the worker slot) is whole between statements, so a panic
/// elsewhere never leaves it half made.
pub(crate) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
