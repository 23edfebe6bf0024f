//! The tool catalog: every tool declared once, as [`Tool`], with its name, description,
//! argument and result types, and what it may do ([`Access`]); the named tool sets
//! ([`TOOLSETS`]) and a toolkit's choice among them ([`ToolSelection`]).
//!
//! The list is written once, in [`tool_list`]; this module makes the enum and the specs from
//! it and `tools` makes the dispatcher from it, so a tool cannot be named in one and missing
//! in the other.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Value, json};

use crate::error::{Error, Result};
use crate::types::*;

/// What a tool may do, which decides whether a read-only toolkit runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Access {
    /// Never writes.
    Reads,
    /// Never writes, but belongs to an editor session, whose work ends in a write
    /// (`editor_store`): not offered by a read-only toolkit's tool list.
    Session,
    /// Writes files (or, given `dry_run`, shows what it would write).
    Writes,
}

/// Calls `$callback!` with the tool list: for each tool, its [`Tool`] variant, its name in the
/// contract, its request and response types, the [`crate::Toolkit`] method that runs it (and
/// the argument parser when not the common one, and the method taking a stop control when it
/// has one), its [`Access`], its MCP hints and its description, written for a model.
macro_rules! tool_list {
    ($callback:ident) => {
        $callback! {
            ReadFile "read_file" (ReadFileRequest => ReadFileResponse) read_file, Reads, destructive = false, idempotent = true,
                "Read a text file inside the workspace. Returns the content (LF line endings; offset/limit or tail pick lines, start_line/end_line of total_lines say which; a long read ends early with next_offset, where to read on), its sha256, file_type and line_count; for code also is_valid, syntax errors and symbols, and for Markdown headers, code blocks and links, on whole reads of files up to 256 KiB or with include_symbols (facts_included says which); an offset past the end is refused with the line count; binary files give is_binary and size only. Reading arms the staleness guard: a later write or edit is refused if the file changes on disk in between. Legacy encodings are decoded when detected. Refuses paths outside the workspace, blocked files (.git, .env, keys), files over the size limit.";
            WriteFile "write_file" (WriteFileRequest => WriteFileResponse) write_file, Writes, destructive = true, idempotent = true,
                "Create or overwrite a whole file atomically (parent directories created by default). Prefer edit_file for changing part of a file. Refused when the file changed since you read it (read it again, or pass force) and whenever expected_hash does not match. Returns sha256 and post-write diagnostics.";
            WritePythonFile "write_python_file" (WritePythonFileRequest => WritePythonFileResponse) write_python_file, Writes, destructive = true, idempotent = true,
                "Write a whole Python file, refusing content with syntax errors (error kind syntax_error with line, column and message; nothing is written) unless validate is false.";
            WriteMarkdownFile "write_markdown_file" (WriteMarkdownFileRequest => WriteMarkdownFileResponse) write_markdown_file, Writes, destructive = true, idempotent = true,
                "Write a whole Markdown file atomically.";
            EditFile "edit_file" (EditFileRequest => EditFileResponse) edit_file parse edit_args, Writes, destructive = true, idempotent = false,
                "Replace old_string with new_string in a file. old_string must identify exactly one place: copy it from the file with a line or two of context. Small drift in whitespace, indentation, quotes/dashes or escaping is tolerated and the result names the matching rung and score; the new text is re-indented like the file. Refuses (changing nothing) when the text matches several places (ambiguous, with their lines; add context or use replace_all), is not found (not_found, with the closest region and the first differing line), is already applied, or the file changed since you read it. Several files: apply_patch; code with elided parts: merge_snippet.";
            MergeSnippet "merge_snippet" (MergeSnippetRequest => MergeSnippetResponse) merge_snippet, Writes, destructive = true, idempotent = false,
                "Merge a lazy snippet into one file: the changed parts, each with a line or two of the file's own code around it, the rest elided by marker comments holding ... (# ... existing code ..., // ...). Chunks land where their lines align uniquely and in order (whitespace and indentation tolerated); new lines are inserted or replace the lines between aligned neighbours. Lines a chunk leaves out without a marker are refused (not_found, reason unaligned) unless deletions is allow; a chunk aligning twice is ambiguous. In Python/TS/JS a chunk inside a definition the snippet names (class C:, a marker, def m():) aligns within C.m only; in Markdown within the section its header names. Use it for scattered changes written as code; edit_file for exact replacements; apply_patch for several files.";
            InsertLines "insert_lines" (InsertLinesRequest => InsertLinesResponse) insert_lines, Writes, destructive = false, idempotent = false,
                "Insert text after a given line of a file (line 0 inserts at the top; the file's line count, or -1, appends). The new lines take the file's line endings. Refused when the line is past the end (the message gives the line count). A file changed since you read it is merged if the lines around are untouched, else stale. Undo with undo_edit; dry_run shows the diff without writing.";
            GenerateDiff "generate_diff" (GenerateDiffRequest => GenerateDiffResponse) generate_diff, Reads, destructive = false, idempotent = true,
                "Show the unified diff between a file and proposed new content, without writing anything.";
            ListDir "list_dir" (ListDirRequest => ListDirResponse) list_dir, Reads, destructive = false, idempotent = true,
                "List a directory inside the workspace: sorted names, directories ending with /. Blocked entries and links leading outside are left out.";
            Exists "exists" (PathRequest => ExistsResponse) exists, Reads, destructive = false, idempotent = true,
                "Check whether a path exists inside the workspace and whether it is a file or a directory.";
            FileInfo "file_info" (PathRequest => FileInfoResponse) file_info, Reads, destructive = false, idempotent = true,
                "What a path is (file, dir or other), its size, modification time (Unix seconds) and permissions, and for a text file its file_type and line_count, without reading its content.";
            CreateDirectory "create_directory" (PathRequest => CreateDirectoryResponse) create_directory, Writes, destructive = false, idempotent = true,
                "Create a directory inside the workspace, with any missing parents. A directory that exists already is fine (created: false); a file in the way is refused.";
            Delete "delete" (DeleteRequest => DeleteResponse) delete, Writes, destructive = true, idempotent = false,
                "Delete a file, a directory or a symlink (never its target). A directory that is not empty needs recursive: true. The workspace root cannot be deleted. Undo a file's deletion with undo_edit, a directory's with undo_patch (its files are kept; up to 10,000 files and 256 MiB, a larger directory is refused).";
            ReadFiles "read_files" (ReadFilesRequest => ReadFilesResponse) read_files, Reads, destructive = false, idempotent = true,
                "Read several files in one call (up to 64): each answers what read_file would (content, sha256, lines) or its own error (kind and message) without stopping the others. Symbols and outlines only with include_symbols. Arms the staleness guard for each file read.";
            Tree "tree" (TreeRequest => TreeResponse) tree with tree_with, Reads, destructive = false, idempotent = true,
                "Show the directories and files under a directory to a depth (default 3), honouring .gitignore and hidden-file rules like search_files; each directory says how many files it holds at any depth, and sizes: true adds bytes. Stops at 10,000 files (truncated: true).";
            Move "move" (MoveRequest => MoveResponse) move_path, Writes, destructive = true, idempotent = false,
                "Move or rename a file or directory inside the workspace (from, to), creating missing parent directories. Refused when something exists at to (a file can be replaced with overwrite: true; a directory never). A file move is undone with undo_patch.";
            ListRoots "list_roots" (NoArgs => ListRootsResponse) list_roots, Reads, destructive = false, idempotent = true,
                "List the workspace roots, the only directories the tools may read or write (relative paths resolve in the primary one), and whether writes are refused.";
            History "history" (HistoryRequest => HistoryResponse) history, Reads, destructive = false, idempotent = true,
                "List the undo history: each file's kept versions (newest first, with sizes and times) and the recorded multi-file changes (patches, file moves, recursive deletes). With a path, also whether its current content came from an edit (undo_edit restores it) or a patch (undo_patch undoes the whole change). `evicted` says how many of the oldest versions were dropped to keep the root's history within its byte bound.";
            UndoPatch "undo_patch" (UndoPatchRequest => UndoResponse) undo_patch, Writes, destructive = true, idempotent = false,
                "Undo the last multi-file change made through editkit as a whole: an apply_patch, a move of a file, or a recursive delete of a directory. Refused if any of its files changed since, unless force.";
            UndoEdit "undo_edit" (UndoEditRequest => UndoResponse) undo_edit, Writes, destructive = true, idempotent = false,
                "Restore a file to its content before the last change made through editkit (write, edit, replace_function, delete; a file the change created is deleted). Refused if the file changed since, unless force.";
            EditorLoad "editor_load" (EditorLoadRequest => EditorLoadResponse) editor_load, Session, destructive = false, idempotent = false,
                "Load a file into an editor session for several edits before one write. Returns a session_id for editor_read, editor_write, editor_edit, editor_diff, editor_store and editor_clear. Sessions are bounded in number and bytes (the least recently used is evicted, unstored changes lost); over stateless HTTP one expires 30 min after its last change. A gone session answers not_found: load the file again. Store or clear when done.";
            EditorRead "editor_read" (EditorReadRequest => EditorReadResponse) editor_read, Session, destructive = false, idempotent = true,
                "Read an editor session's buffer, or a range of its lines (offset is 1-based).";
            EditorWrite "editor_write" (EditorWriteRequest => EditorStateResponse) editor_write, Session, destructive = false, idempotent = true,
                "Replace an editor session's whole buffer (nothing is written to disk until editor_store).";
            EditorEdit "editor_edit" (EditorEditRequest => EditorStateResponse) editor_edit, Session, destructive = false, idempotent = false,
                "Replace text in an editor session's buffer with the same matching rules as edit_file (refuses ambiguous or missing text).";
            EditorDiff "editor_diff" (SessionRequest => GenerateDiffResponse) editor_diff, Session, destructive = false, idempotent = true,
                "Show the diff between the file on disk and an editor session's buffer.";
            EditorStore "editor_store" (SessionRequest => EditorStoreResponse) editor_store, Writes, destructive = true, idempotent = true,
                "Write an editor session's buffer to its file atomically. Refused if the file changed on disk since the session loaded it.";
            EditorClear "editor_clear" (SessionRequest => EditorClearResponse) editor_clear, Session, destructive = false, idempotent = false,
                "Close an editor session, discarding changes that were not stored.";
            NotebookRead "notebook_read" (NotebookReadRequest => NotebookReadResponse) notebook_read, Reads, destructive = false, idempotent = true,
                "Read a Jupyter notebook (.ipynb, nbformat 4) by cell: each cell's id (nbformat 4.5 ids; cell-<index> in older notebooks), cell_type, source as text, execution_count and a text summary of its outputs (streams and text/plain shown, images and other data named with their size, never inlined; max_output_chars per cell). Arms the staleness guard like read_file. Edit a cell with notebook_edit, or inside one with edit_file and cell_id.";
            NotebookEdit "notebook_edit" (NotebookEditRequest => NotebookEditResponse) notebook_edit, Writes, destructive = true, idempotent = false,
                "Change one cell of a Jupyter notebook, named by cell_id or index: replace its source (and cell_type), insert_before or insert_after it a new cell (source, cell_type default code), or delete it. Only that cell's JSON text changes (the file's indentation, key order and line endings are kept); a changed code cell's outputs and execution_count are cleared. Refused when the notebook changed since you read it (read it again, or pass force); undo with undo_edit; dry_run shows the diff without writing.";
            #[cfg(feature = "analyze")]
            EditPythonFile "edit_python_file" (EditPythonFileRequest => EditPythonFileResponse) edit_python_file, Writes, destructive = true, idempotent = false,
                "Replace old_string with new_string in a Python file, like edit_file, but refuse an edit that would introduce syntax errors (nothing is written). dry_run reports would_change without writing.";
            #[cfg(feature = "analyze")]
            ReplaceFunction "replace_function" (ReplaceFunctionRequest => ReplaceFunctionResponse) replace_function, Writes, destructive = true, idempotent = false,
                "Replace a whole function or method by name (func, Class.method, Outer.Inner.method) in a Python, TypeScript, TSX or JavaScript file. The new definition is re-indented to fit and decorators are kept unless it brings its own. Refuses unknown names (listing the available ones), duplicates (with their lines) and results that would not parse.";
            #[cfg(feature = "analyze")]
            FileSymbols "file_symbols" (PathRequest => FileSymbolsResponse) file_symbols, Reads, destructive = false, idempotent = true,
                "List the functions, classes, methods, interfaces, type aliases and enums of a Python, TypeScript, TSX or JavaScript file, with lines and parents.";
            #[cfg(feature = "analyze")]
            CheckSyntax "check_syntax" (PathRequest => CheckSyntaxResponse) check_syntax, Reads, destructive = false, idempotent = true,
                "Check a Python, TypeScript, TSX, JavaScript or JSON file for syntax errors, with line and column of each.";
            #[cfg(feature = "analyze")]
            UpdateProjectIndex "update_project_index" (UpdateProjectIndexRequest => UpdateProjectIndexResponse) update_project_index, Writes, destructive = true, idempotent = true,
                "Create or refresh the title and the Description, Structure and Instructions sections of a project index Markdown file (PROJECT.md by default) without touching its other sections.";
            #[cfg(feature = "search")]
            SearchFiles "search_files" (SearchFilesRequest => SearchFilesResponse) search_files with search_files_with, Reads, destructive = false, idempotent = true,
                "Search file contents under a directory with a regex (or a literal with regex=false), like ripgrep: .gitignore and hidden files are respected, binary files skipped. Filter with glob (src/**/*.ts) or file_extension (.py). Returns matching lines with line and column, files sorted, and whether results were cut at max_results.";
            #[cfg(feature = "search")]
            SearchCode "search_code" (SearchFilesRequest => SearchFilesResponse) search_code with search_code_with, Reads, destructive = false, idempotent = true,
                "Search code like search_files, in Python files by default (file_extension .py).";
            #[cfg(feature = "search")]
            Glob "glob" (GlobRequest => GlobResponse) glob with glob_with, Reads, destructive = false, idempotent = true,
                "Find files by glob pattern (**/*.py) under a directory, respecting .gitignore. Returns sorted paths relative to the workspace root.";
            #[cfg(feature = "patch")]
            ApplyPatch "apply_patch" (ApplyPatchRequest => ApplyPatchResponse) apply_patch with apply_patch_with, Writes, destructive = true, idempotent = false,
                "Apply a multi-file patch atomically: every file changes or none does. Accepts the *** Begin Patch format (*** Add File / *** Update File with @@ chunks of ' ', '-', '+' lines / *** Delete File / *** Move to), @@ hunks of old text, ===, new text, and unified diffs (git diff). Hunks are located by content with the same tolerant but unambiguous matching as edit_file (strict: exact text only); '-' lines must stand in the file up to whitespace, and each hunk's placement (lines, rung, score) is returned. The patch must be complete: a *** Begin Patch or @@/=== patch ends with *** End Patch, a unified diff with a newline. A file changed since you read it is merged per hunk when each hunk's lines and one line each side are untouched (merged_with); else stale. On any failure nothing is written and the error lists every failing hunk. One file: edit_file, or merge_snippet for code with elided parts.";
            #[cfg(feature = "lsp")]
            FindSymbol "find_symbol" (FindSymbolRequest => FindSymbolResponse) find_symbol, Reads, destructive = false, idempotent = true,
                "Find where symbols are defined across the workspace by name path (func, Class/method), through the language server found on PATH outside the workspace: basedpyright or pyright (Python), typescript-language-server (TypeScript/JavaScript), rust-analyzer (Rust). Returns each match's path, line, column, kind, container and line text; path limits the search to one file, language picks the server. complete: false (with incomplete_reason) says a server had not finished loading the workspace. Without a server: unavailable, naming what to install (file_symbols needs none).";
            #[cfg(feature = "lsp")]
            FindReferences "find_references" (FindReferencesRequest => FindReferencesResponse) find_references, Reads, destructive = false, idempotent = true,
                "Find every reference to a symbol across the workspace through its language server. Name the symbol by path and line with column or its name on that line (symbol), or by symbol alone as a name path (Class/method) in that file. Returns each reference's path, line, column and line text, sorted; references outside the workspace or in blocked files are only counted (omitted_outside). complete: false (with incomplete_reason) says the server had not finished loading the workspace, so some may be missing. Without a server: unavailable, naming what to install.";
            #[cfg(feature = "lsp")]
            RenameSymbol "rename_symbol" (RenameSymbolRequest => RenameSymbolResponse) rename_symbol, Writes, destructive = true, idempotent = false,
                "Rename a symbol (path and line with column or symbol, or symbol as a name path; new_name) everywhere its language server finds it, as one atomic change: every file changes or none, with apply_patch's journal, crash recovery and undo_patch. dry_run returns the whole diff and a plan; give the plan back with the real run and the whole rename is refused (stale) if any file changed since. Refused whole, nothing written, when an edit would touch a file outside the workspace or blocked, or a file changed since the server read it. Without a server: unavailable, naming what to install.";
            #[cfg(feature = "lsp")]
            Diagnostics "diagnostics" (DiagnosticsRequest => DiagnosticsResponse) diagnostics, Reads, destructive = false, idempotent = true,
                "A file's errors and warnings from its language server (or those of every file open with the running servers), each answer with its freshness: state fresh (for the file as it is now, version given), stale (for an older version), timed_out (nothing for the current text within wait_ms; never an empty list passed off as clean) or unavailable (no server: reason and what to install). The built-in syntax check's answer comes beside it.";
        }
    };
}
pub(crate) use tool_list;

macro_rules! declare_tools {
    ($(
        $(#[$attr:meta])*
        $variant:ident $name:literal ($request:ty => $response:ty) $method:ident $(parse $parse:ident)? $(with $with:ident)?,
        $access:ident, destructive = $destructive:literal, idempotent = $idempotent:literal,
        $description:literal;
    )*) => {
        /// A tool of the tool-call contract; [`Tool::name`] is its name there.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum Tool {
            $(
                $(#[$attr])*
                #[doc = concat!("`", $name, "`")]
                $variant,
            )*
        }

        impl Tool {
            /// Every tool compiled in, in the order of [`crate::tools::specs`].
            pub const ALL: &'static [Tool] = &[$($(#[$attr])* Tool::$variant,)*];

            /// The tool's name in the contract.
            #[must_use]
            pub const fn name(self) -> &'static str {
                match self {
                    $($(#[$attr])* Tool::$variant => $name,)*
                }
            }

            /// When to use it and what it refuses, written for a model.
            #[must_use]
            pub const fn description(self) -> &'static str {
                match self {
                    $($(#[$attr])* Tool::$variant => $description,)*
                }
            }

            /// What the tool may do.
            #[must_use]
            pub const fn access(self) -> Access {
                match self {
                    $($(#[$attr])* Tool::$variant => Access::$access,)*
                }
            }

            /// The tool may delete or overwrite content.
            #[must_use]
            pub const fn destructive(self) -> bool {
                match self {
                    $($(#[$attr])* Tool::$variant => $destructive,)*
                }
            }

            /// Calling it twice with the same arguments has no further effect.
            #[must_use]
            pub const fn idempotent(self) -> bool {
                match self {
                    $($(#[$attr])* Tool::$variant => $idempotent,)*
                }
            }

            fn input_schema(self) -> Value {
                match self {
                    $($(#[$attr])* Tool::$variant => input_schema::<$request>(),)*
                }
            }

            fn output_schema(self) -> Value {
                match self {
                    $($(#[$attr])* Tool::$variant => output_schema::<$response>(),)*
                }
            }
        }
    };
}

tool_list!(declare_tools);

impl Tool {
    /// The tool never writes.
    #[must_use]
    pub const fn read_only(self) -> bool {
        !matches!(self.access(), Access::Writes)
    }

    /// The compiled-in tool named `name`.
    #[must_use]
    pub fn named(name: &str) -> Option<Tool> {
        Tool::ALL.iter().copied().find(|tool| tool.name() == name)
    }

    /// The tool's spec: name, description, schemas and hints.
    #[must_use]
    pub fn spec(self) -> ToolSpec {
        ToolSpec {
            name: self.name(),
            description: self.description(),
            input_schema: self.input_schema(),
            output_schema: self.output_schema(),
            read_only: self.read_only(),
            in_read_only_set: self.access() == Access::Reads,
            destructive: self.destructive(),
            idempotent: self.idempotent(),
        }
    }
}

impl std::fmt::Display for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Tool {
    type Err = Error;

    fn from_str(name: &str) -> Result<Tool> {
        Tool::named(name).ok_or_else(|| {
            let known: Vec<&str> = Tool::ALL.iter().map(|tool| tool.name()).collect();
            Error::invalid("tool", format!("`{name}` is not a tool ({})", known.join(", ")))
        })
    }
}

/// A named tool set: what it is for and its tools (a tool compiled out by a feature is
/// absent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolSet {
    /// The set's name, as `--tools` takes it.
    pub name: &'static str,
    /// What the set is for.
    pub about: &'static str,
    /// Its tools.
    pub tools: &'static [Tool],
}

/// The tools of an editor session, whose work ends in a write (`editor_store`).
const EDITOR_SESSION_TOOLS: [Tool; 7] = [
    Tool::EditorLoad,
    Tool::EditorRead,
    Tool::EditorWrite,
    Tool::EditorEdit,
    Tool::EditorDiff,
    Tool::EditorStore,
    Tool::EditorClear,
];

/// The named tool sets, each with what it is for and its tools (a tool compiled out by a
/// feature is skipped). `core` is what an agent needs to work on a code base; the others hold
/// the seed-compatible and specialised tools.
pub const TOOLSETS: &[ToolSet] = &[
    ToolSet {
        name: "core",
        about: "reading, writing, editing, patching, searching and arranging files",
        tools: &[
            Tool::ReadFile,
            Tool::ReadFiles,
            Tool::WriteFile,
            Tool::EditFile,
            Tool::InsertLines,
            #[cfg(feature = "patch")]
            Tool::ApplyPatch,
            Tool::UndoEdit,
            Tool::UndoPatch,
            #[cfg(feature = "search")]
            Tool::SearchFiles,
            #[cfg(feature = "search")]
            Tool::Glob,
            Tool::Tree,
            Tool::ListDir,
            Tool::FileInfo,
            Tool::CreateDirectory,
            Tool::Move,
            Tool::Delete,
            Tool::ListRoots,
        ],
    },
    ToolSet {
        name: "paths",
        about: "exists, generate_diff and the undo history",
        tools: &[Tool::Exists, Tool::GenerateDiff, Tool::History],
    },
    ToolSet {
        name: "code",
        about: "code awareness: symbols, syntax checks, replacing a function, merging lazy snippets",
        tools: &[
            #[cfg(feature = "analyze")]
            Tool::FileSymbols,
            #[cfg(feature = "analyze")]
            Tool::CheckSyntax,
            #[cfg(feature = "analyze")]
            Tool::ReplaceFunction,
            Tool::MergeSnippet,
        ],
    },
    ToolSet {
        name: "seed",
        about: "the tools of the agent frameworks editkit replaces (GAIA's Python and Markdown tools)",
        tools: &[
            Tool::WritePythonFile,
            #[cfg(feature = "analyze")]
            Tool::EditPythonFile,
            #[cfg(feature = "analyze")]
            Tool::ReplaceFunction,
            #[cfg(feature = "search")]
            Tool::SearchCode,
            Tool::WriteMarkdownFile,
            #[cfg(feature = "analyze")]
            Tool::UpdateProjectIndex,
            Tool::GenerateDiff,
        ],
    },
    ToolSet { name: "editor", about: "editor sessions: several edits, one write", tools: &EDITOR_SESSION_TOOLS },
    ToolSet {
        name: "notebook",
        about: "Jupyter notebooks read and edited by cell",
        tools: &[Tool::NotebookRead, Tool::NotebookEdit],
    },
    ToolSet {
        name: "code_intel",
        about: "language servers found on PATH: find_symbol, find_references, rename_symbol and diagnostics with freshness",
        tools: &[
            #[cfg(feature = "lsp")]
            Tool::FindSymbol,
            #[cfg(feature = "lsp")]
            Tool::FindReferences,
            #[cfg(feature = "lsp")]
            Tool::RenameSymbol,
            #[cfg(feature = "lsp")]
            Tool::Diagnostics,
        ],
    },
];

/// Which tools a toolkit offers: `all` (the default for the library and `editkit call`), the
/// `core` set (the default of `editkit mcp`), or a comma-separated list of set and tool names
/// (`core,editor,exists`).
///
/// ```
/// let selection: editkit::tools::ToolSelection = "core,editor".parse().unwrap();
/// assert!(selection.contains("edit_file") && selection.contains("editor_load"));
/// assert!(!selection.contains("write_python_file"));
/// let refused = "core,bogus".parse::<editkit::tools::ToolSelection>().unwrap_err();
/// assert!(refused.to_string().contains("bogus"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolSelection {
    /// The tools chosen; `None`: every tool.
    tools: Option<std::collections::BTreeSet<Tool>>,
    spec: Option<String>,
}

impl ToolSelection {
    /// Every tool.
    #[must_use]
    pub fn all() -> Self {
        ToolSelection::default()
    }

    /// The `core` set.
    #[must_use]
    pub fn core() -> Self {
        "core".parse().unwrap_or_default()
    }

    /// Whether tool `name` is offered (a name that is no tool is not).
    #[must_use]
    pub fn contains(&self, name: &str) -> bool {
        Tool::named(name).is_some_and(|tool| self.offers(tool))
    }

    /// Whether `tool` is offered.
    #[must_use]
    pub fn offers(&self, tool: Tool) -> bool {
        self.tools.as_ref().is_none_or(|tools| tools.contains(&tool))
    }

    /// Whether every tool is offered.
    #[must_use]
    pub fn is_all(&self) -> bool {
        self.tools.is_none()
    }

    /// How the selection was written (`all` for every tool).
    #[must_use]
    pub fn as_str(&self) -> &str {
        self.spec.as_deref().unwrap_or("all")
    }
}

impl std::str::FromStr for ToolSelection {
    type Err = Error;

    fn from_str(spec: &str) -> Result<Self> {
        let mut chosen = std::collections::BTreeSet::new();
        for word in spec.split(',').map(str::trim) {
            if word == "all" {
                return Ok(ToolSelection::all());
            }
            if let Some(set) = TOOLSETS.iter().find(|set| set.name == word) {
                chosen.extend(set.tools.iter().copied());
            } else if let Some(tool) = Tool::named(word) {
                chosen.insert(tool);
            } else {
                let sets: Vec<&str> = TOOLSETS.iter().map(|set| set.name).collect();
                let known: Vec<&str> = Tool::ALL.iter().map(|tool| tool.name()).collect();
                return Err(Error::invalid(
                    "tools",
                    format!(
                        "`{word}` is neither a tool set ({}, all) nor a tool ({})",
                        sets.join(", "),
                        known.join(", ")
                    ),
                ));
            }
        }
        if chosen.is_empty() {
            return Err(Error::invalid("tools", "name at least one tool set or tool (core, all, ...)"));
        }
        Ok(ToolSelection { tools: Some(chosen), spec: Some(spec.to_owned()) })
    }
}

/// One tool as an agent sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The tool's name, as in the tool-call contract.
    pub name: &'static str,
    /// When to use it and what it refuses, written for a model.
    pub description: &'static str,
    /// JSON Schema of the arguments.
    pub input_schema: Value,
    /// JSON Schema of a successful result (`ok: true` plus the fields).
    pub output_schema: Value,
    /// The tool never writes.
    pub read_only: bool,
    /// Offered by a read-only toolkit: the tool never writes and its work can finish without a
    /// write (an editor session cannot: it ends in `editor_store`).
    pub in_read_only_set: bool,
    /// The tool may delete or overwrite content.
    pub destructive: bool,
    /// Calling it twice with the same arguments has no further effect.
    pub idempotent: bool,
}

impl ToolSpec {
    /// JSON Schema of any result of the tool: its successful result or the contract's error
    /// object, whose `kind` is one of [`crate::ERROR_KINDS`]. MCP clients validate the
    /// structured content of refused calls too, so this is the schema to publish as a tool's
    /// output schema.
    ///
    /// ```
    /// let toolkit_dir = tempfile::tempdir().unwrap();
    /// let toolkit = editkit::Toolkit::open(toolkit_dir.path(), Default::default()).unwrap();
    /// let spec = editkit::tools::specs().into_iter().find(|s| s.name == "read_file").unwrap();
    /// let refused = editkit::tools::call(&toolkit, "read_file", serde_json::json!({"path": "missing.txt"}));
    /// assert_eq!(refused["error"]["kind"], "not_found");
    /// let kinds = &spec.result_schema()["anyOf"][1]["properties"]["error"]["properties"]["kind"]["enum"];
    /// assert!(kinds.as_array().unwrap().contains(&refused["error"]["kind"]));
    /// ```
    #[must_use]
    pub fn result_schema(&self) -> Value {
        // The details are `ErrorDetails`' fields, each present only when it applies.
        let mut properties = match error_details_schema().get_mut("properties").map(Value::take) {
            Some(Value::Object(properties)) => properties,
            _ => serde_json::Map::new(),
        };
        properties.insert("kind".into(), json!({"type": "string", "enum": crate::ERROR_KINDS}));
        properties.insert("message".into(), json!({"type": "string"}));
        let error = json!({
            "type": "object",
            "description": "A refused call: `error.kind` is a stable word, `error.message` says what to do; other fields of `error` are details (candidate lines, the closest region, hashes, the failing field...).",
            "properties": {
                "ok": {"type": "boolean", "const": false},
                "error": {
                    "type": "object",
                    "properties": properties,
                    "required": ["kind", "message"],
                },
            },
            "required": ["ok", "error"],
        });
        json!({"type": "object", "anyOf": [self.output_schema, error]})
    }
}

fn input_schema<T: JsonSchema>() -> Value {
    let schema = SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut value = serde_json::to_value(schema).unwrap_or_else(|_| json!({"type": "object"}));
    clean(&mut value, true);
    // The request type's name and doc say what the tool's description says better.
    if let Some(object) = value.as_object_mut() {
        object.remove("title");
        object.remove("description");
    }
    value
}

/// The schema of the details of a refused call ([`ErrorDetails`]).
fn error_details_schema() -> Value {
    let schema = SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<ErrorDetails>();
    let mut value = serde_json::to_value(schema).unwrap_or_else(|_| json!({"type": "object"}));
    clean(&mut value, false);
    value
}

fn output_schema<T: JsonSchema>() -> Value {
    let schema = SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut value = serde_json::to_value(schema).unwrap_or_else(|_| json!({"type": "object"}));
    clean(&mut value, false);
    if let Some(object) = value.as_object_mut() {
        if let Some(Value::Object(properties)) = object.get_mut("properties") {
            properties.insert("ok".into(), json!({"type": "boolean", "const": true}));
        }
        match object.get_mut("required") {
            Some(Value::Array(required)) => required.push(json!("ok")),
            _ => {
                object.insert("required".into(), json!(["ok"]));
            }
        }
    }
    value
}

/// Removes what strict validators reject: the non-standard integer formats schemars emits
/// (`uint`, `uint64`...), and, in input schemas, `null` as an alternative type (optional
/// arguments are simply omitted).
fn clean(value: &mut Value, input: bool) {
    match value {
        Value::Object(map) => {
            let drop_format = map
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| f.starts_with("uint") || f.starts_with("int") || f == "double" || f == "float");
            if drop_format {
                map.remove("format");
            }
            if input
                && let Some(Value::Array(types)) = map.get("type")
                && types.len() == 2
                && types.contains(&json!("null"))
                && let Some(other) = types.iter().find(|t| *t != &json!("null")).cloned()
            {
                map.insert("type".into(), other);
                if map.get("default") == Some(&Value::Null) {
                    map.remove("default");
                }
            }
            map.remove("$schema");
            // An argument's other accepted names (`x-aliases`), told in its description too,
            // for the models that read only descriptions.
            if input && let Some(Value::Array(aliases)) = map.get("x-aliases") {
                let names: Vec<String> = aliases.iter().filter_map(Value::as_str).map(|a| format!("`{a}`")).collect();
                let note = format!("Also accepted as {}.", names.join(", "));
                let description = match map.get("description").and_then(Value::as_str) {
                    Some(text) => format!("{text} {note}"),
                    None => note,
                };
                map.insert("description".into(), Value::String(description));
            }
            for child in map.values_mut() {
                clean(child, input);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| clean(v, input)),
        _ => {}
    }
}

/// The tool reference in Markdown, generated from the specs: for each set, each tool's
/// description and arguments (name, type, required or default, other accepted names). The
/// README's "Tool reference" section is this text (a test holds it current).
#[must_use]
pub fn reference_markdown() -> String {
    let specs = specs();
    let mut out = String::new();
    let mut shown: Vec<&str> = Vec::new();
    for set in TOOLSETS {
        let in_set: Vec<&ToolSpec> =
            set.tools.iter().filter_map(|tool| specs.iter().find(|s| s.name == tool.name())).collect();
        if in_set.is_empty() {
            continue;
        }
        out.push_str(&format!("### `{}`: {}\n\n", set.name, set.about));
        for spec in in_set {
            if shown.contains(&spec.name) {
                out.push_str(&format!("- **`{}`**: see above.\n", spec.name));
                continue;
            }
            shown.push(spec.name);
            let marks = if spec.read_only {
                "read-only"
            } else if spec.destructive {
                "writes, destructive"
            } else {
                "writes"
            };
            out.push_str(&format!("- **`{}`** ({marks}): {}\n", spec.name, spec.description));
            let required: Vec<&str> = spec.input_schema["required"]
                .as_array()
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(properties) = spec.input_schema["properties"].as_object() {
                let mut names: Vec<&String> = properties.keys().collect();
                names.sort_by_key(|name| (!required.contains(&name.as_str()), name.as_str()));
                let args: Vec<String> = names
                    .into_iter()
                    .map(|name| {
                        let property = &properties[name];
                        let kind = property["type"].as_str().unwrap_or("any");
                        let mut arg = format!("`{name}` ({kind}");
                        if required.contains(&name.as_str()) {
                            arg.push_str(", required");
                        } else if let Some(default) = property.get("default") {
                            arg.push_str(&format!(", default `{default}`"));
                        }
                        if let Some(aliases) = property["x-aliases"].as_array() {
                            let aliases: Vec<String> =
                                aliases.iter().filter_map(Value::as_str).map(|a| format!("`{a}`")).collect();
                            arg.push_str(&format!("; also {}", aliases.join(", ")));
                        }
                        arg.push(')');
                        arg
                    })
                    .collect();
                if !args.is_empty() {
                    out.push_str(&format!("  Arguments: {}.\n", args.join("; ")));
                }
            }
        }
        out.push('\n');
    }
    out
}

/// Every tool's spec, in a stable order.
#[must_use]
pub fn specs() -> Vec<ToolSpec> {
    Tool::ALL.iter().map(|tool| tool.spec()).collect()
}

/// The specs of the tools `selection` offers, in the order of [`specs`].
#[must_use]
pub fn selected_specs(selection: &ToolSelection) -> Vec<ToolSpec> {
    Tool::ALL.iter().filter(|tool| selection.offers(**tool)).map(|tool| tool.spec()).collect()
}

/// Tool names, in the order of [`specs`].
#[must_use]
pub fn names() -> Vec<&'static str> {
    Tool::ALL.iter().map(|tool| tool.name()).collect()
}
