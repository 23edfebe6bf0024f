//! File tools AI coding agents can trust, typed and callable as JSON.
//!
//! `editkit` is the facade over the editkit crates: a [`Toolkit`] opened on one or more
//! workspace roots exposes every tool as a typed method (`read_file`, `write_file`,
//! `edit_file`, `apply_patch`, `search_files`, `replace_function`, editor sessions, undo...),
//! and [`tools`] lists each tool's name, description and JSON Schema and dispatches JSON
//! calls following the tool-call contract: `{"ok": true, ...}` or
//! `{"ok": false, "error": {"kind", "message", ...}}`.
//!
//! Names and messages in text a reader sees (a model's text block, a terminal) go through
//! [`shown`]: a name is one quoted line with its control characters escaped, while the JSON
//! keeps it exact.
//!
//! JSON text from outside goes through [`json::parse`] (or [`tools::call_json_text`]), which
//! refuses a key given twice anywhere in a call. Editor sessions are bounded in number and
//! bytes ([`ToolkitOptions::max_sessions`], [`ToolkitOptions::max_session_bytes`]; the least recently used
//! are evicted), and a patch's matching work by `ToolkitOptions::max_patch_work`.
//!
//! The lower crates are re-exported: [`vfs`] (the capability sandbox), [`matcher`] (the
//! edit ladder) and, behind the default features `analyze`, `patch`, `search` and `lsp`,
//! [`analyze`], [`patch`], [`search`] and [`lsp`] (the language-server client).
//!
//! ```
//! # fn main() -> Result<(), editkit::Error> {
//! use serde_json::json;
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("notes.md"), "# Notes\n\n- one\n").unwrap();
//! let toolkit = editkit::Toolkit::open(dir.path(), editkit::ToolkitOptions::default())?;
//!
//! let read = editkit::tools::call(&toolkit, "read_file", json!({"path": "notes.md"}));
//! assert_eq!(read["ok"], true);
//!
//! let edit = editkit::tools::call(
//!     &toolkit,
//!     "edit_file",
//!     json!({"path": "notes.md", "old_string": "- one", "new_string": "- one\n- two"}),
//! );
//! assert_eq!(edit["ok"], true);
//! assert_eq!(edit["rung"], "exact");
//!
//! let escape = editkit::tools::call(&toolkit, "read_file", json!({"path": "../secret"}));
//! assert_eq!(escape["error"]["kind"], "outside_workspace");
//! # Ok(()) }
//! ```
#![deny(missing_docs)]

mod analysis;
mod catalog;
#[cfg(feature = "analyze")]
mod code_tools;
#[cfg(feature = "patch")]
#[cfg_attr(
    all(not(test), not(feature = "lsp")),
    allow(dead_code, reason = "the edit set is applied by rename_symbol, which needs the `lsp` feature")
)]
mod edit_set;
mod editor_tools;
mod error;
mod fs_tools;
mod history;
pub mod json;
#[cfg(feature = "lsp")]
mod lsp_hook;
#[cfg(feature = "lsp")]
mod lsp_options;
#[cfg(feature = "lsp")]
mod lsp_tools;
pub mod notebook;
mod notebook_tools;
mod outside;
#[cfg(feature = "patch")]
mod patch_tools;
#[cfg(feature = "search")]
mod search_tools;
mod sessions;
mod shared_sessions;
pub mod shown;
mod snippet_tools;
mod sync;
mod toolkit;
pub mod tools;
mod types;

/// What stops or follows long work: the search's control, or nothing without the `search`
/// feature.
#[cfg(feature = "search")]
pub(crate) type Stop = editkit_search::Control;

/// Without the `search` feature nothing cancels work or hears its progress.
#[cfg(not(feature = "search"))]
#[derive(Default)]
pub(crate) struct Stop;

#[cfg(all(not(feature = "search"), feature = "patch"))]
impl Stop {
    pub(crate) fn advance(&self, _files: u64) {}
}

#[cfg(feature = "patch")]
pub use edit_set::MAX_EDIT_SET_EDITS;
pub use editkit_vfs::Durability;
#[cfg(feature = "patch")]
pub use error::EditSetError;
pub use error::{Error, MAX_MESSAGE_BYTES, MAX_QUOTE_BYTES, OutsideChange, Result};
pub use fs_tools::{MAX_READ_FILES, MAX_TREE_DEPTH, MAX_TREE_FILES, MAX_UNDO_BYTES, MAX_UNDO_FILES};
pub use history::DEFAULT_HISTORY_BYTES;
#[cfg(feature = "lsp")]
pub use lsp_hook::{MAX_HOOK_DIAGNOSTIC_BYTES, MAX_HOOK_DIAGNOSTICS, MAX_HOOK_FILES, MAX_HOOK_TEXT_BYTES};
#[cfg(feature = "lsp")]
pub use lsp_options::{LanguageServerOptions, LanguageWaits, SharedServers};
pub use outside::DEFAULT_KEPT_READ_BYTES;
pub use sessions::{DEFAULT_MAX_SESSION_BYTES, DEFAULT_MAX_SESSIONS, SessionUsage};
pub use shared_sessions::LIFETIME_MINUTES as SHARED_SESSION_MINUTES;
pub use snippet_tools::MAX_SNIPPET_BYTES;
pub use toolkit::{DEFAULT_MAX_CALL_BYTES, MAX_EDITS, MAX_LIST_ENTRIES, Toolkit, ToolkitOptions};
pub use types::*;

#[cfg(feature = "analyze")]
pub use editkit_analyze as analyze;
#[cfg(feature = "lsp")]
pub use editkit_lsp as lsp;
pub use editkit_matcher as matcher;
pub use editkit_matcher::diff;
#[cfg(feature = "patch")]
pub use editkit_patch as patch;
#[cfg(feature = "search")]
pub use editkit_search as search;
pub use editkit_vfs as vfs;

/// The README's Rust quick start, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeQuickStart;
