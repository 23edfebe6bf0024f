//! generate_diff, file_symbols, check_syntax and update_project_index.

use super::defaults::{dot, project_md, three};
use super::facts::{SymbolInfo, SyntaxErrorInfo};
use super::words::FileType;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

path_request! {
    file
    /// Diff a file against proposed content, without writing.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[non_exhaustive]
    pub struct GenerateDiffRequest {
        /// File path, relative to the workspace root (a missing file diffs against empty).
        pub path: String,
        /// The proposed content.
        pub new_content: String,
        /// Lines of context around each change (default: 3).
        #[serde(default = "three")]
        pub context_lines: usize,
    }
}

/// A diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GenerateDiffResponse {
    /// Unified diff.
    pub diff: String,
    /// Lines added.
    pub additions: usize,
    /// Lines removed.
    pub deletions: usize,
    /// Whether the content differs.
    pub has_changes: bool,
}

/// Symbols of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileSymbolsResponse {
    /// Canonical path.
    pub path: String,
    /// Detected file type.
    #[schemars(with = "String")]
    pub file_type: FileType,
    /// Definitions in source order.
    pub symbols: Vec<SymbolInfo>,
}

/// Syntax check of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CheckSyntaxResponse {
    /// Canonical path.
    pub path: String,
    /// Detected file type.
    #[schemars(with = "String")]
    pub file_type: FileType,
    /// Whether it parses.
    pub valid: bool,
    /// Errors with positions.
    pub errors: Vec<SyntaxErrorInfo>,
}

/// Create or refresh named sections of a project index Markdown file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct UpdateProjectIndexRequest {
    /// Directory holding the index, relative to the workspace root (default: the root).
    #[serde(default = "dot")]
    pub project_root: String,
    /// Becomes the `# ` title line.
    #[serde(default)]
    pub project_name: Option<String>,
    /// Body of the `## Description` section.
    #[serde(default)]
    pub description: Option<String>,
    /// Body of the `## Structure` section.
    #[serde(default)]
    pub structure: Option<String>,
    /// Body of the `## Instructions` section.
    #[serde(default)]
    pub instructions: Option<String>,
    /// The index file's name (default: PROJECT.md).
    #[serde(default = "project_md")]
    pub file: String,
}

/// What update_project_index changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct UpdateProjectIndexResponse {
    /// The index file.
    pub path: String,
    /// Sections created or replaced.
    pub updated_sections: Vec<String>,
    /// Whether the file was created.
    pub created: bool,
}

request!(GenerateDiffRequest { path: String, new_content: String } defaults { context_lines: usize = three() });

request!(
    UpdateProjectIndexRequest {}
    text_defaults { project_root = dot(), file = project_md() }
    optional_text { project_name, description, structure, instructions }
);

impl Default for UpdateProjectIndexRequest {
    fn default() -> Self {
        Self::new()
    }
}
