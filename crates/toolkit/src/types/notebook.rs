//! notebook_read and notebook_edit.

use super::defaults::thousand;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

path_request! {
    notebook
    /// Read a Jupyter notebook by cell.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[non_exhaustive]
    pub struct NotebookReadRequest {
        pub path: String,
        /// Characters of output summary per cell (default 1000, at most 20000).
        #[serde(default = "thousand")]
        pub max_output_chars: usize,
    }
}

/// A notebook's cells.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NotebookReadResponse {
    /// Canonical path relative to the root.
    pub path: String,
    /// SHA-256 of the file.
    #[schemars(with = "String")]
    pub sha256: editkit_vfs::Sha256,
    /// `4.<minor>`; from 4.5 cells carry ids of their own.
    pub nbformat: String,
    /// The cells in order.
    pub cells: Vec<NotebookCell>,
}

/// One notebook cell as notebook_read shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NotebookCell {
    /// 0-based position.
    pub index: usize,
    /// The cell's id (nbformat 4.5), or `cell-<index>` for a cell without one (older
    /// notebooks), which names it until cells are inserted or deleted before it.
    pub id: String,
    /// `code`, `markdown` or `raw`.
    pub cell_type: String,
    /// The source as one text.
    pub source: String,
    /// A code cell's execution count.
    pub execution_count: Option<i64>,
    /// How many outputs a code cell has.
    pub output_count: usize,
    /// The outputs in text: streams and text/plain shown, images and other data named with
    /// their size, tracebacks counted; bounded by `max_output_chars`.
    pub outputs: String,
    /// Whether `outputs` was cut.
    pub outputs_truncated: bool,
}

/// A notebook cell's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CellType {
    /// Code, run by the kernel.
    Code,
    /// Markdown text.
    Markdown,
    /// Raw text, passed through.
    Raw,
}

/// What notebook_edit does to the cell it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NotebookAction {
    /// Give the cell a new source (and type).
    Replace,
    /// Insert a new cell before it.
    InsertBefore,
    /// Insert a new cell after it.
    InsertAfter,
    /// Remove it.
    Delete,
}

path_request! {
    notebook
    /// Change one cell of a notebook.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[non_exhaustive]
    pub struct NotebookEditRequest {
        pub path: String,
        /// replace, insert_before, insert_after or delete.
        #[serde(alias = "edit_mode")]
        #[schemars(with = "String", extend("enum" = super::defaults::words::<NotebookAction>(), "x-aliases" = ["edit_mode"]))]
        pub action: NotebookAction,
        /// The cell's id (from notebook_read); or give index.
        #[serde(default)]
        pub cell_id: Option<String>,
        /// The cell's 0-based index; or give cell_id. Index 0 inserts into an empty notebook.
        #[serde(default)]
        pub index: Option<usize>,
        /// The new cell's source (replace, insert_*).
        #[serde(default, alias = "new_source")]
        #[schemars(extend("x-aliases" = ["new_source"]))]
        pub source: Option<String>,
        /// The new cell's type (default: the cell's own for replace, code for an insert).
        #[serde(default)]
        #[schemars(with = "String", extend("enum" = super::defaults::words::<CellType>()))]
        pub cell_type: Option<CellType>,
        /// Your read's sha256: refused unless the file still has it (even with force); stateless HTTP needs it.
        #[serde(default)]
        #[schemars(with = "Option<String>")]
        pub expected_hash: Option<editkit_vfs::Sha256>,
        /// Edit even if the file changed since it was read.
        #[serde(default)]
        pub force: bool,
        /// Report what would change without writing.
        #[serde(default)]
        pub dry_run: bool,
    }
}

/// What notebook_edit did (or would do, on a dry run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NotebookEditResponse {
    /// Canonical path relative to the root.
    pub path: String,
    /// The action done.
    pub action: NotebookAction,
    /// Index of the changed, inserted or deleted cell.
    pub index: usize,
    /// Id of that cell (for an insert, the new cell's).
    pub cell_id: String,
    /// Cells after the change.
    pub cell_count: usize,
    /// Unified diff of the notebook file.
    pub diff: String,
    /// Whether the diff was cut at its bound.
    pub diff_truncated: bool,
    /// SHA-256 of the new content.
    #[schemars(with = "String")]
    pub sha256: editkit_vfs::Sha256,
    /// Whether this was a dry run.
    pub dry_run: bool,
}

request!(NotebookReadRequest { path: String } defaults { max_output_chars: usize = thousand() });

request!(
    NotebookEditRequest { path: String, action: NotebookAction }
    defaults { force: bool = false, dry_run: bool = false }
    optional { index: usize, cell_type: CellType, expected_hash: editkit_vfs::Sha256 }
    optional_text { cell_id, source }
);
