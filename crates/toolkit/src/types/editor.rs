//! Editor sessions.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

path_request! {
    file
    /// Load a file into an editor session.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[non_exhaustive]
    pub struct EditorLoadRequest {
        pub path: String,
    }
}

/// A new session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EditorLoadResponse {
    /// Pass this to the other editor tools.
    pub session_id: String,
    /// Canonical path.
    pub path: String,
    /// Lines in the buffer.
    pub line_count: usize,
    /// SHA-256 of the file when loaded.
    #[schemars(with = "String")]
    pub sha256: editkit_vfs::Sha256,
}

/// Read a session's buffer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct EditorReadRequest {
    /// The session.
    pub session_id: String,
    /// First line, 1-based (default: 1).
    #[serde(default)]
    pub offset: Option<usize>,
    /// Most lines (default: all).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// A buffer's content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EditorReadResponse {
    /// The session.
    pub session_id: String,
    /// The requested lines.
    pub content: String,
    /// Lines in the whole buffer.
    pub line_count: usize,
    /// Whether the buffer differs from the file on disk when loaded.
    pub modified: bool,
}

/// Replace a session's whole buffer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct EditorWriteRequest {
    /// The session.
    pub session_id: String,
    /// The new buffer content.
    #[serde(alias = "content")]
    #[schemars(extend("x-aliases" = ["content"]))]
    pub text: String,
}

/// Edit a session's buffer with the same matcher as edit_file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct EditorEditRequest {
    /// The session.
    pub session_id: String,
    /// The text to replace.
    #[serde(alias = "old", alias = "old_str")]
    #[schemars(extend("x-aliases" = ["old", "old_str"]))]
    pub old_string: String,
    /// The replacement.
    #[serde(alias = "new", alias = "new_str")]
    #[schemars(extend("x-aliases" = ["new", "new_str"]))]
    pub new_string: String,
    /// Replace every occurrence.
    #[serde(default)]
    pub replace_all: bool,
    /// Match old_string exactly as written, with no tolerance for drift.
    #[serde(default)]
    pub strict: bool,
}

/// A session id alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct SessionRequest {
    /// The session.
    pub session_id: String,
}

/// A session's state after a change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EditorStateResponse {
    /// The session.
    pub session_id: String,
    /// Lines in the buffer.
    pub line_count: usize,
    /// Replacements made (editor_edit), 0 otherwise.
    pub replacements: usize,
    /// The rung that matched (editor_edit).
    #[schemars(with = "Option<String>")]
    pub rung: Option<editkit_matcher::Rung>,
    /// Whether the buffer differs from the file on disk when loaded.
    pub modified: bool,
}

/// What editor_store wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EditorStoreResponse {
    /// The session.
    pub session_id: String,
    /// Canonical path.
    pub path: String,
    /// Bytes written.
    pub size_bytes: u64,
    /// SHA-256 of the new content.
    #[schemars(with = "String")]
    pub sha256: editkit_vfs::Sha256,
    /// The written file's diagnostics from its language server, with how current they are:
    /// only when the toolkit's `language_servers.after_writes` is on and editkit runs a server
    /// for the file's language (as `diagnostics.server_diagnostics` of the other writes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_diagnostics: Option<super::ServerDiagnosticsInfo>,
}

/// What editor_clear did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EditorClearResponse {
    /// The session closed.
    pub session_id: String,
    /// Whether it held changes that were never stored.
    pub discarded_changes: bool,
}

request!(EditorLoadRequest { path: String });

request!(EditorReadRequest { session_id: String } optional { offset: usize, limit: usize });

request!(EditorWriteRequest { session_id: String, text: String });

request!(
    EditorEditRequest { session_id: String, old_string: String, new_string: String }
    defaults { replace_all: bool = false, strict: bool = false }
);

request!(SessionRequest { session_id: String });
