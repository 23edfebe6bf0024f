//! list_dir, glob, exists, file_info, create_directory, delete, tree, move and list_roots.

use super::defaults::{dot, three, yes};
use super::words::{FileType, Mode};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

path_request! {
    directory
    /// List a directory.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[non_exhaustive]
    pub struct ListDirRequest {
        pub path: String,
    }
}

/// A directory's entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ListDirResponse {
    /// The directory, canonical.
    pub path: String,
    /// Sorted names; directories end with `/`. At most [`crate::MAX_LIST_ENTRIES`], the first
    /// in this order.
    pub entries: Vec<String>,
    /// How many entries the directory holds (blocked entries and links leading out not counted).
    pub total_entries: usize,
    /// Whether `entries` was cut at [`crate::MAX_LIST_ENTRIES`].
    pub truncated: bool,
    /// Entries left out because their names are not UTF-8 (no path can name them).
    pub unnamed_entries: usize,
}

path_request! {
    directory
    /// Find files by glob, honouring .gitignore.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[non_exhaustive]
    pub struct GlobRequest {
        /// Glob relative to `path` (`**/*.py`); `*` does not cross `/`.
        pub pattern: String,
        /// Directory to search under (default: the root).
        pub path: String,
        /// Take dot files and folders too. Default: false, as ripgrep. Blocked paths (`.env`,
        /// `.git`, keys...) stay out whatever this says.
        #[serde(default)]
        #[schemars(description = "")]
        pub hidden: bool,
        /// Honour `.gitignore` (inside a git repository) and `.ignore` files. Default: true, as
        /// ripgrep; false takes the files they name too (`node_modules`, build output).
        #[serde(default = "yes")]
        #[schemars(description = "")]
        pub ignore_rules: bool,
        /// Take files reached through symlinks that stay inside the workspace (under the link's
        /// path). Linked folders are never entered (a link loop cannot trap the walk), and links
        /// leading outside are never followed. Default: false, as ripgrep.
        #[serde(default)]
        #[schemars(description = "")]
        pub follow_links: bool,
    }
}

/// Files matching a glob.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GlobResponse {
    /// The pattern.
    pub pattern: String,
    /// Sorted paths relative to the root.
    pub matches: Vec<String>,
    /// Whether the list was cut at its bound.
    pub truncated: bool,
}

path_request! {
    file
    /// A path argument alone.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[non_exhaustive]
    pub struct PathRequest {
        /// Path, relative to the workspace root.
        pub path: String,
    }
}

/// Whether a path exists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ExistsResponse {
    /// The path as given.
    pub path: String,
    /// Whether something is there.
    pub exists: bool,
    /// `file`, `dir` or `other` when it exists.
    #[schemars(with = "Option<String>")]
    pub kind: Option<editkit_vfs::EntryKind>,
}

/// What is known about a path without reading it as an agent would.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileInfoResponse {
    /// Canonical path relative to the root.
    pub path: String,
    /// `file`, `dir` or `other` (links are followed).
    #[schemars(with = "String")]
    pub kind: editkit_vfs::EntryKind,
    /// Size on disk (0 for a directory).
    pub size_bytes: u64,
    /// Last modification, seconds since the Unix epoch.
    pub modified_unix: i64,
    /// Last modification, nanoseconds since the Unix epoch.
    pub modified_ns: i64,
    /// Last status change (`ctime`: content, mode, links or name changed), nanoseconds since
    /// the Unix epoch.
    pub changed_ns: i64,
    /// Permission bits in octal (`0644`).
    pub permissions: Mode,
    /// For a text file: `python`, `markdown`, `text`... or `binary`; none for a directory.
    #[schemars(with = "Option<String>")]
    pub file_type: Option<FileType>,
    /// For a text file within the read limit: its lines.
    pub line_count: Option<usize>,
}

/// What create_directory did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CreateDirectoryResponse {
    /// Canonical path relative to the root.
    pub path: String,
    /// Whether the directory was created (false: it existed already).
    pub created: bool,
}

path_request! {
    file
    /// Delete a file, a symlink, or a directory.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[non_exhaustive]
    pub struct DeleteRequest {
        /// Path, relative to the workspace root.
        pub path: String,
        /// Delete a directory that is not empty, with everything in it (default: false; an empty
        /// directory needs no flag). Its files are kept in the undo history (undo_patch restores
        /// them).
        #[serde(default)]
        pub recursive: bool,
    }
}

/// What a delete removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DeleteResponse {
    /// The path as given.
    pub path: String,
    /// `file`, `dir` or `symlink` (a link is removed, never its target).
    #[schemars(with = "String")]
    pub deleted: editkit_vfs::EntryKind,
}

/// Show the directories and files under a directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct TreeRequest {
    /// Directory, relative to the workspace root (default: the root).
    #[serde(default = "dot")]
    pub path: String,
    /// Levels shown below the directory (default: 3, at most 32); deeper files are counted in
    /// their directory's `files`.
    #[serde(default = "three")]
    pub depth: usize,
    /// Give each file's size, and each directory's total.
    #[serde(default)]
    pub sizes: bool,
}

/// One directory or file of a tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TreeEntry {
    /// Path relative to the workspace root; directories end with `/`.
    pub path: String,
    /// Depth below the listed directory (1: directly in it).
    pub depth: usize,
    /// For a directory: the files under it at any depth (within the walk's bound).
    pub files: Option<usize>,
    /// Bytes, when sizes were asked for (a directory: the sum of its files).
    pub size: Option<u64>,
}

/// The tree under a directory, honouring .gitignore and hidden-file rules like search_files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TreeResponse {
    /// Canonical path of the listed directory (`.` for the root).
    pub path: String,
    /// Directories and files, depth first, sorted by name.
    pub entries: Vec<TreeEntry>,
    /// Files found under the directory.
    pub total_files: usize,
    /// Whether the walk stopped at its bound (10,000 files): counts are then lower bounds.
    pub truncated: bool,
}

/// Move or rename a file or directory inside the workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct MoveRequest {
    /// The path to move, relative to the workspace root.
    #[serde(alias = "source", alias = "old_path")]
    #[schemars(extend("x-aliases" = ["source", "old_path"]))]
    pub from: String,
    /// Where it goes.
    #[serde(alias = "destination", alias = "new_path")]
    #[schemars(extend("x-aliases" = ["destination", "new_path"]))]
    pub to: String,
    /// Replace a file already at `to` (default: false: refused as `exists`). A directory is
    /// never replaced.
    #[serde(default)]
    pub overwrite: bool,
    /// Create missing parent directories of `to`.
    #[serde(default = "yes")]
    pub create_dirs: bool,
}

/// What a move did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MoveResponse {
    /// Canonical path moved from.
    pub from: String,
    /// Canonical path moved to.
    pub to: String,
    /// `file`, `dir` or `other`.
    #[schemars(with = "String")]
    pub kind: editkit_vfs::EntryKind,
    /// Whether a file at `to` was replaced.
    pub overwritten: bool,
    /// Whether undo_patch can reverse it (a file move is kept in the undo history; a directory
    /// is moved back with another move).
    pub undoable: bool,
}

/// No arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct NoArgs {}

/// One workspace root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RootInfo {
    /// The root's absolute path.
    pub path: String,
    /// Whether relative paths resolve in it (the first root).
    pub primary: bool,
}

/// Where the tools may work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ListRootsResponse {
    /// Every root; a path outside all of them is refused.
    pub roots: Vec<RootInfo>,
    /// Whether writing tools are refused.
    pub read_only: bool,
}

request!(ListDirRequest {} text_defaults { path = dot() });

request!(
    GlobRequest { pattern: String }
    defaults { hidden: bool = false, ignore_rules: bool = yes(), follow_links: bool = false }
    text_defaults { path = dot() }
);

request!(PathRequest { path: String });

request!(DeleteRequest { path: String } defaults { recursive: bool = false });

request!(TreeRequest {} defaults { depth: usize = three(), sizes: bool = false } text_defaults { path = dot() });

request!(MoveRequest { from: String, to: String } defaults { overwrite: bool = false, create_dirs: bool = yes() });

request!(NoArgs {});

impl Default for TreeRequest {
    fn default() -> Self {
        Self::new()
    }
}

impl Default for ListDirRequest {
    fn default() -> Self {
        Self::new()
    }
}
