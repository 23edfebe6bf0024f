//! A language server's diagnostics of a written file, with how current they are: what the
//! post-write hook attaches to a write's `diagnostics` (see
//! [`crate::LanguageServerOptions::after_writes`]), and the server part of the `diagnostics`
//! tool's answer.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One diagnostic from a server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ServerDiagnosticInfo {
    /// 1-based line of its start.
    pub line: u32,
    /// 1-based column of its start, in the server's unit.
    pub column: u32,
    /// `error`, `warning`, `information` or `hint`.
    pub severity: String,
    /// The message (cut to 2,000 characters).
    pub message: String,
    /// Who said it (`basedpyright`, `ts`, `rustc`...), when the server says.
    pub source: Option<String>,
}

/// A server's diagnostics of one file and how current they are. Only `fresh` says the list
/// is the server's answer for the file as it is now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ServerDiagnosticsInfo {
    /// `fresh` (for `version`, the current text), `stale` (for an older `version`; `current`
    /// was sent since), `timed_out` (nothing for the current text within `limit_ms`; the
    /// list, if any, is for `last_version`) or `unavailable` (no server: `reason`, `install`).
    pub state: String,
    /// `fresh`, `stale`: the document version the diagnostics are for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i32>,
    /// `stale`: the version sent last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<i32>,
    /// `timed_out`: how long was waited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waited_ms: Option<u64>,
    /// `timed_out`: the wait allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_ms: Option<u64>,
    /// `timed_out`: the version of the newest diagnostics the server published, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_version: Option<i32>,
    /// `unavailable`: why no server answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `unavailable`: what to install, when that would help.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub install: Option<String>,
    /// The diagnostics (at most 200).
    pub diagnostics: Vec<ServerDiagnosticInfo>,
    /// How many more there were.
    pub omitted: usize,
}

impl ServerDiagnosticsInfo {
    /// The `unavailable` state: why, and what to install when no server was found.
    pub(crate) fn unavailable(reason: String, install: Option<String>) -> ServerDiagnosticsInfo {
        ServerDiagnosticsInfo {
            state: "unavailable".to_owned(),
            version: None,
            current: None,
            waited_ms: None,
            limit_ms: None,
            last_version: None,
            reason: Some(reason),
            install,
            diagnostics: Vec::new(),
            omitted: 0,
        }
    }
}
