//! write_file, write_python_file, write_markdown_file.

use super::defaults::yes;
use super::facts::DiagnosticsInfo;
use super::words::FileType;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

path_request! {
    file
    /// Write a whole file atomically.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[non_exhaustive]
    pub struct WriteFileRequest {
        pub path: String,
        /// The complete new content.
        pub content: String,
        /// Create missing parent directories.
        #[serde(default = "yes")]
        pub create_dirs: bool,
        /// Write even if the file changed since it was read.
        #[serde(default)]
        pub force: bool,
        /// Your read's sha256: refused unless the file still has it (even with force); stateless HTTP needs it.
        #[serde(default)]
        #[schemars(with = "Option<String>")]
        pub expected_hash: Option<editkit_vfs::Sha256>,
        /// Only create: refused (exists) if anything stands where the path leads.
        #[serde(default)]
        pub create_new: bool,
        /// WHATWG label
        #[serde(default)]
        pub encoding: Option<String>,
    }
}

/// What a write did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WriteFileResponse {
    /// Canonical path relative to the root.
    pub path: String,
    /// Bytes written.
    pub size_bytes: u64,
    /// Detected file type.
    #[schemars(with = "String")]
    pub file_type: FileType,
    /// SHA-256 of the new content.
    #[schemars(with = "String")]
    pub sha256: editkit_vfs::Sha256,
    /// Whether the file was created.
    pub created: bool,
    /// Post-write diagnostics (empty when off or clean).
    pub diagnostics: DiagnosticsInfo,
}

path_request! {
    file
    /// Write a Python file, refusing content with syntax errors.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[non_exhaustive]
    pub struct WritePythonFileRequest {
        pub path: String,
        /// The complete new content.
        pub content: String,
        /// Refuse content with syntax errors.
        #[serde(default = "yes")]
        pub validate: bool,
        /// Create missing parent directories.
        #[serde(default = "yes")]
        pub create_dirs: bool,
    }
}

/// What write_python_file did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WritePythonFileResponse {
    /// Canonical path relative to the root.
    pub path: String,
    /// Bytes written.
    pub bytes_written: u64,
    /// Lines written.
    pub line_count: usize,
    /// SHA-256 of the new content.
    #[schemars(with = "String")]
    pub sha256: editkit_vfs::Sha256,
}

path_request! {
    file
    /// Write a Markdown file.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[non_exhaustive]
    pub struct WriteMarkdownFileRequest {
        pub path: String,
        /// The complete new content.
        pub content: String,
        /// Create missing parent directories.
        #[serde(default = "yes")]
        pub create_dirs: bool,
    }
}

/// What write_markdown_file did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WriteMarkdownFileResponse {
    /// Canonical path relative to the root.
    pub path: String,
    /// Bytes written.
    pub size_bytes: u64,
    /// SHA-256 of the new content.
    #[schemars(with = "String")]
    pub sha256: editkit_vfs::Sha256,
}

request!(
    WriteFileRequest { path: String, content: String }
    defaults { create_dirs: bool = yes(), force: bool = false, create_new: bool = false }
    optional { expected_hash: editkit_vfs::Sha256 }
    optional_text { encoding }
);

request!(
    WritePythonFileRequest { path: String, content: String }
    defaults { validate: bool = yes(), create_dirs: bool = yes() }
);

request!(WriteMarkdownFileRequest { path: String, content: String } defaults { create_dirs: bool = yes() });
