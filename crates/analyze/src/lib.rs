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
//! [`diagnose`] and [`format_source`] run external checkers and formatters. Everything in the
//! workspace is hostile input, and so is any program a PATH entry inside it leads to. Each
//! tool therefore runs:
//! - from a fresh private temporary directory as its working directory (never the file's
//!   folder), so no `py_compile.py`, `rust-toolchain.toml`, `.prettierignore` or other file of
//!   the repository is picked up by lookup from the working directory;
//! - as an absolute program found by editkit on the absolute `PATH` entries outside every
//!   workspace root (an empty, `.` or relative entry, or one inside a root, is ignored), or as
//!   the absolute path the tool's argv names; a relative program path is refused;
//! - with a scrubbed environment: `PATH` (those entries only), `HOME`, `USER`, `LOGNAME`,
//!   `LANG`, `LANGUAGE`, `LC_*`, `TZ`, `RUSTUP_HOME`, `CARGO_HOME`, plus `TMPDIR` and
//!   `XDG_CACHE_HOME` in the private directory and `NO_COLOR`; `PYTHON*`, `NODE_OPTIONS`,
//!   `RUSTUP_TOOLCHAIN` and the rest are dropped;
//! - with repository configuration ignored by the default argv (`ruff --isolated`,
//!   `black --config` on an empty file, `prettier --no-config --no-editorconfig`, rustfmt with
//!   `--config-path` on an empty file, `python3 -I -B`, eslint `--no-config-lookup`);
//! - on the file's content given on stdin, its result read back from stdout: tools never get
//!   the file's path on disk, so they cannot follow `#[path]` modules, `__pycache__` links or
//!   `extend` settings out of the root, and nothing is written into the workspace (no
//!   bytecode: the Python check compiles the source with `compile()`, never `py_compile`);
//! - confined with Landlock where the kernel has it: no writes anywhere but the private
//!   directory and `/dev/null`, no TCP (Landlock ABI 4; UDP from ABI 10), abstract Unix
//!   sockets and signals scoped (ABI 6); reads and execution stay allowed beneath `/` so tools
//!   can load themselves, so reads are confined only by the arguments above. Each report's
//!   `confinement` says `landlock`, `landlock without network rules (kernel Landlock ABI n)`,
//!   or `unavailable: <why>` (the tool then ran with the other measures only);
//! - with a time limit (the whole process group is killed), input and output bounds.
//!
//! [`format_source`] returns the formatted text; writing it is the caller's job (the editkit
//! facade writes it through editkit-vfs under the file's lock).
//!
//! Argv templates may use `{path}` (the file's name as the caller gives it, relative to its
//! workspace root: for messages and for the tool to pick a language; nothing is read from it),
//! `{file}` (a private copy of the content, for tools that cannot read stdin; a formatter
//! using it has the copy read back instead of its stdout) and `{empty_config}` (an empty file,
//! to point a tool's `--config` option at). To run a program the repository ships (say
//! `./node_modules/.bin/prettier`), name it by absolute path in the tool's argv: that is the
//! explicit opt-in, and the program then runs with the same containment.

#![deny(missing_docs)]

mod cache;
mod change;
mod confine;
mod edit;
mod error;
mod kind;
mod markdown;
mod parse;
mod process;
mod region;
mod resolve;
mod symbols;
mod syntax;
mod tools;
mod worker;

pub use cache::{CheckCache, DEFAULT_CACHED_BYTES, DEFAULT_CACHED_FILES};
pub use change::{ChangeReport, CheckScope, change_region, check_change};
pub use edit::{replace_function, replace_function_checked, symbol_range};
pub use error::{Error, ErrorKind};
pub use kind::{FileKind, detect};
pub use markdown::{CodeBlock, Header, Link, Outline, Splice, outline, section_range, set_section, set_title};
pub use parse::{MAX_PARSE_BYTES, MAX_PARSE_TOKENS, PARSE_TIME_LIMIT};
pub use process::{MAX_FORMATTED_BYTES, MAX_OUTPUT_CHARS, MAX_TOOL_INPUT_BYTES, TOOL_TIMEOUT};
pub use symbols::{Symbol, SymbolKind, symbols};
pub use syntax::{SyntaxError, SyntaxReport, check_syntax};
pub use tools::{
    CheckerReport, Diagnostics, DiagnosticsMode, DiagnosticsOptions, ExternalTool, FormatOptions, FormatReport,
    SkippedCheck, SkippedTool, diagnose, diagnose_cached, diagnose_change, format_source,
};
