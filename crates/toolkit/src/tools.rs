//! The tool list and JSON dispatch of the tool-call contract.
//!
//! [`specs`] describes every tool (name, description written for a model, input and output
//! JSON Schemas, MCP hints); [`call`] runs one tool on JSON arguments and always returns one
//! JSON object: `{"ok": true, ...fields}` or
//! `{"ok": false, "error": {"kind": KIND, "message": TEXT, ...details}}`.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::toolkit::Toolkit;
use crate::types::*;

/// Largest JSON argument object accepted by [`call`], in bytes of its serialised form.
pub const MAX_ARGS_BYTES: usize = 64 << 20;

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
        let error = json!({
            "type": "object",
            "description": "A refused call: `error.kind` is a stable word, `error.message` says what to do; other fields of `error` are details (candidate lines, the closest region, hashes, the failing field...).",
            "properties": {
                "ok": {"type": "boolean", "const": false},
                "error": {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "enum": crate::ERROR_KINDS},
                        "message": {"type": "string"},
                    },
                    "required": ["kind", "message"],
                },
            },
            "required": ["ok", "error"],
        });
        json!({"type": "object", "anyOf": [self.output_schema, error]})
    }
}

type Runner = fn(&Toolkit, Value) -> Result<Value>;

struct Entry {
    name: &'static str,
    description: &'static str,
    input: fn() -> Value,
    output: fn() -> Value,
    run: Runner,
    read_only: bool,
    destructive: bool,
    idempotent: bool,
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

/// Deserialises arguments, naming the offending field on failure.
fn args<T: DeserializeOwned>(value: Value) -> Result<T> {
    let value = if value.is_null() { Value::Object(Map::new()) } else { value };
    if !value.is_object() {
        return Err(Error::InvalidArgs { field: None, message: "arguments must be a JSON object".into() });
    }
    serde_path_to_error::deserialize(value).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner().to_string();
        // Missing and unknown fields are reported at the top level; take the name from the text.
        let field = if path == "." { quoted_field(&inner) } else { Some(path) };
        Error::InvalidArgs { field, message: inner }
    })
}

/// edit_file's arguments: `edits`, or `old_string` and `new_string` (in any accepted
/// spelling), never both; one missing is refused by name, as a required field is.
fn edit_args(value: Value) -> Result<EditFileRequest> {
    const OLD: [&str; 4] = ["old_string", "old_str", "old_text", "search"];
    const NEW: [&str; 4] = ["new_string", "new_str", "new_text", "replace"];
    let given = |names: &[&str]| {
        let map = value.as_object()?;
        names.iter().find(|name| map.contains_key(**name)).map(|name| (*name).to_owned())
    };
    let (old, new, replace_all, edits) = (given(&OLD), given(&NEW), given(&["replace_all"]), given(&["edits"]));
    let edit_count = value.get("edits").and_then(Value::as_array).map_or(0, Vec::len);
    // Too many edits are refused before they are read into requests.
    if edit_count > crate::MAX_EDITS {
        return Err(Error::invalid(
            "edits",
            format!(
                "{edit_count} edits in one call, more than the {} a call may hold (MAX_EDITS); split them over several \
                 calls",
                crate::MAX_EDITS
            ),
        ));
    }
    // Unknown fields and wrong types are refused first, as for every tool.
    let request = args(value)?;
    if edits.is_some() {
        if let Some(single) = old.or(new).or(replace_all) {
            return Err(Error::invalid(
                "edits",
                format!(
                    "`edits` and `{single}` were given together; give several edits as `edits` (each with its \
                     old_string, new_string and replace_all), or one as old_string and new_string"
                ),
            ));
        }
    } else {
        for (name, present) in [("old_string", old), ("new_string", new)] {
            if present.is_none() {
                return Err(Error::invalid(
                    name,
                    format!("missing field `{name}`: give old_string and new_string, or several edits as `edits`"),
                ));
            }
        }
    }
    Ok(request)
}

fn quoted_field(message: &str) -> Option<String> {
    let start = message.find('`')? + 1;
    let end = start + message[start..].find('`')?;
    Some(message[start..end].to_owned())
}

fn ok<T: Serialize>(response: T) -> Result<Value> {
    let mut value =
        serde_json::to_value(response).map_err(|e| Error::InvalidArgs { field: None, message: e.to_string() })?;
    if let Some(map) = value.as_object_mut() {
        map.insert("ok".into(), Value::Bool(true));
    }
    Ok(value)
}

macro_rules! tool {
    ($name:literal, $request:ty, $response:ty, $method:ident, parse = $parse:path, ro = $ro:literal, destructive = $de:literal, idempotent = $id:literal, $description:literal) => {
        Entry {
            name: $name,
            description: $description,
            input: input_schema::<$request>,
            output: output_schema::<$response>,
            run: |toolkit, value| ok(toolkit.$method($parse(value)?)?),
            read_only: $ro,
            destructive: $de,
            idempotent: $id,
        }
    };
    ($name:literal, $request:ty, $response:ty, $method:ident, ro = $ro:literal, destructive = $de:literal, idempotent = $id:literal, $description:literal) => {
        Entry {
            name: $name,
            description: $description,
            input: input_schema::<$request>,
            output: output_schema::<$response>,
            run: |toolkit, value| ok(toolkit.$method(args::<$request>(value)?)?),
            read_only: $ro,
            destructive: $de,
            idempotent: $id,
        }
    };
}

fn entries() -> Vec<Entry> {
    let mut list = vec![
        tool!(
            "read_file",
            ReadFileRequest,
            ReadFileResponse,
            read_file,
            ro = true,
            destructive = false,
            idempotent = true,
            "Read a text file inside the workspace. Returns the content (LF line endings; offset/limit or tail pick lines, start_line/end_line of total_lines say which; a long read ends early with next_offset, where to read on), its sha256, file_type and line_count; for code also is_valid, syntax errors and symbols, and for Markdown headers, code blocks and links, on whole reads of files up to 256 KiB or with include_symbols (facts_included says which); an offset past the end is refused with the line count; binary files give is_binary and size only. Reading arms the staleness guard: a later write or edit is refused if the file changes on disk in between. Legacy encodings are decoded when detected. Refuses paths outside the workspace, blocked files (.git, .env, keys), files over the size limit."
        ),
        tool!(
            "write_file",
            WriteFileRequest,
            WriteFileResponse,
            write_file,
            ro = false,
            destructive = true,
            idempotent = true,
            "Create or overwrite a whole file atomically (parent directories created by default). Prefer edit_file for changing part of a file. Refused when the file changed since you read it (read it again, or pass force) and whenever expected_hash does not match. Returns sha256 and post-write diagnostics."
        ),
        tool!(
            "write_python_file",
            WritePythonFileRequest,
            WritePythonFileResponse,
            write_python_file,
            ro = false,
            destructive = true,
            idempotent = true,
            "Write a whole Python file, refusing content with syntax errors (error kind syntax_error with line, column and message; nothing is written) unless validate is false."
        ),
        tool!(
            "write_markdown_file",
            WriteMarkdownFileRequest,
            WriteMarkdownFileResponse,
            write_markdown_file,
            ro = false,
            destructive = true,
            idempotent = true,
            "Write a whole Markdown file atomically."
        ),
        tool!(
            "edit_file",
            EditFileRequest,
            EditFileResponse,
            edit_file,
            parse = edit_args,
            ro = false,
            destructive = true,
            idempotent = false,
            "Replace old_string with new_string in a file. old_string must identify exactly one place: copy it from the file with a line or two of context. Small drift in whitespace, indentation, quotes/dashes or escaping is tolerated and the result names the matching rung and score; the new text is re-indented like the file. Refuses (changing nothing) when the text matches several places (ambiguous, with their lines; add context or use replace_all), is not found (not_found, with the closest region and the first differing line), is already applied, or the file changed since you read it. Several files: apply_patch; code with elided parts: merge_snippet."
        ),
        tool!(
            "merge_snippet",
            MergeSnippetRequest,
            MergeSnippetResponse,
            merge_snippet,
            ro = false,
            destructive = true,
            idempotent = false,
            "Merge a lazy snippet into one file: the changed parts, each with a line or two of the file's own code around it, the rest elided by marker comments holding ... (# ... existing code ..., // ...). Chunks land where their lines align uniquely and in order (whitespace and indentation tolerated); new lines are inserted or replace the lines between aligned neighbours. Lines a chunk leaves out without a marker are refused (not_found, reason unaligned) unless deletions is allow; a chunk aligning twice is ambiguous. In Python/TS/JS a chunk inside a definition the snippet names (class C:, a marker, def m():) aligns within C.m only; in Markdown within the section its header names. Use it for scattered changes written as code; edit_file for exact replacements; apply_patch for several files."
        ),
        tool!(
            "insert_lines",
            InsertLinesRequest,
            InsertLinesResponse,
            insert_lines,
            ro = false,
            destructive = false,
            idempotent = false,
            "Insert text after a given line of a file (line 0 inserts at the top; the file's line count, or -1, appends). The new lines take the file's line endings. Refused when the line is past the end (the message gives the line count). A file changed since you read it is merged if the lines around are untouched, else stale. Undo with undo_edit; dry_run shows the diff without writing."
        ),
        tool!(
            "generate_diff",
            GenerateDiffRequest,
            GenerateDiffResponse,
            generate_diff,
            ro = true,
            destructive = false,
            idempotent = true,
            "Show the unified diff between a file and proposed new content, without writing anything."
        ),
        tool!(
            "list_dir",
            ListDirRequest,
            ListDirResponse,
            list_dir,
            ro = true,
            destructive = false,
            idempotent = true,
            "List a directory inside the workspace: sorted names, directories ending with /. Blocked entries and links leading outside are left out."
        ),
        tool!(
            "exists",
            PathRequest,
            ExistsResponse,
            exists,
            ro = true,
            destructive = false,
            idempotent = true,
            "Check whether a path exists inside the workspace and whether it is a file or a directory."
        ),
        tool!(
            "file_info",
            PathRequest,
            FileInfoResponse,
            file_info,
            ro = true,
            destructive = false,
            idempotent = true,
            "What a path is (file, dir or other), its size, modification time (Unix seconds) and permissions, and for a text file its file_type and line_count, without reading its content."
        ),
        tool!(
            "create_directory",
            PathRequest,
            CreateDirectoryResponse,
            create_directory,
            ro = false,
            destructive = false,
            idempotent = true,
            "Create a directory inside the workspace, with any missing parents. A directory that exists already is fine (created: false); a file in the way is refused."
        ),
        tool!(
            "delete",
            DeleteRequest,
            DeleteResponse,
            delete,
            ro = false,
            destructive = true,
            idempotent = false,
            "Delete a file, a directory or a symlink (never its target). A directory that is not empty needs recursive: true. The workspace root cannot be deleted. Undo a file's deletion with undo_edit, a directory's with undo_patch (its files are kept; up to 10,000 files and 256 MiB, a larger directory is refused)."
        ),
        tool!(
            "read_files",
            ReadFilesRequest,
            ReadFilesResponse,
            read_files,
            ro = true,
            destructive = false,
            idempotent = true,
            "Read several files in one call (up to 64): each answers what read_file would (content, sha256, lines) or its own error (kind and message) without stopping the others. Symbols and outlines only with include_symbols. Arms the staleness guard for each file read."
        ),
        tool!(
            "tree",
            TreeRequest,
            TreeResponse,
            tree,
            ro = true,
            destructive = false,
            idempotent = true,
            "Show the directories and files under a directory to a depth (default 3), honouring .gitignore and hidden-file rules like search_files; each directory says how many files it holds at any depth, and sizes: true adds bytes. Stops at 10,000 files (truncated: true)."
        ),
        tool!(
            "move",
            MoveRequest,
            MoveResponse,
            move_path,
            ro = false,
            destructive = true,
            idempotent = false,
            "Move or rename a file or directory inside the workspace (from, to), creating missing parent directories. Refused when something exists at to (a file can be replaced with overwrite: true; a directory never). A file move is undone with undo_patch."
        ),
        tool!(
            "list_roots",
            NoArgs,
            ListRootsResponse,
            list_roots,
            ro = true,
            destructive = false,
            idempotent = true,
            "List the workspace roots, the only directories the tools may read or write (relative paths resolve in the primary one), and whether writes are refused."
        ),
        tool!(
            "history",
            HistoryRequest,
            HistoryResponse,
            history,
            ro = true,
            destructive = false,
            idempotent = true,
            "List the undo history: each file's kept versions (newest first, with sizes and times) and the recorded multi-file changes (patches, file moves, recursive deletes). With a path, also whether its current content came from an edit (undo_edit restores it) or a patch (undo_patch undoes the whole change). `evicted` says how many of the oldest versions were dropped to keep the root's history within its byte bound."
        ),
        tool!(
            "undo_patch",
            UndoPatchRequest,
            UndoResponse,
            undo_patch,
            ro = false,
            destructive = true,
            idempotent = false,
            "Undo the last multi-file change made through editkit as a whole: an apply_patch, a move of a file, or a recursive delete of a directory. Refused if any of its files changed since, unless force."
        ),
        tool!(
            "undo_edit",
            UndoEditRequest,
            UndoResponse,
            undo_edit,
            ro = false,
            destructive = true,
            idempotent = false,
            "Restore a file to its content before the last change made through editkit (write, edit, replace_function, delete; a file the change created is deleted). Refused if the file changed since, unless force."
        ),
        tool!(
            "editor_load",
            EditorLoadRequest,
            EditorLoadResponse,
            editor_load,
            ro = true,
            destructive = false,
            idempotent = false,
            "Load a file into an editor session for several edits before one write. Returns a session_id for editor_read, editor_write, editor_edit, editor_diff, editor_store and editor_clear. Sessions are bounded in number and bytes (the least recently used is evicted, unstored changes lost); over stateless HTTP one expires 30 min after its last change. A gone session answers not_found: load the file again. Store or clear when done."
        ),
        tool!(
            "editor_read",
            EditorReadRequest,
            EditorReadResponse,
            editor_read,
            ro = true,
            destructive = false,
            idempotent = true,
            "Read an editor session's buffer, or a range of its lines (offset is 1-based)."
        ),
        tool!(
            "editor_write",
            EditorWriteRequest,
            EditorStateResponse,
            editor_write,
            ro = true,
            destructive = false,
            idempotent = true,
            "Replace an editor session's whole buffer (nothing is written to disk until editor_store)."
        ),
        tool!(
            "editor_edit",
            EditorEditRequest,
            EditorStateResponse,
            editor_edit,
            ro = true,
            destructive = false,
            idempotent = false,
            "Replace text in an editor session's buffer with the same matching rules as edit_file (refuses ambiguous or missing text)."
        ),
        tool!(
            "editor_diff",
            SessionRequest,
            GenerateDiffResponse,
            editor_diff,
            ro = true,
            destructive = false,
            idempotent = true,
            "Show the diff between the file on disk and an editor session's buffer."
        ),
        tool!(
            "editor_store",
            SessionRequest,
            EditorStoreResponse,
            editor_store,
            ro = false,
            destructive = true,
            idempotent = true,
            "Write an editor session's buffer to its file atomically. Refused if the file changed on disk since the session loaded it."
        ),
        tool!(
            "editor_clear",
            SessionRequest,
            EditorClearResponse,
            editor_clear,
            ro = true,
            destructive = false,
            idempotent = false,
            "Close an editor session, discarding changes that were not stored."
        ),
        tool!(
            "notebook_read",
            NotebookReadRequest,
            NotebookReadResponse,
            notebook_read,
            ro = true,
            destructive = false,
            idempotent = true,
            "Read a Jupyter notebook (.ipynb, nbformat 4) by cell: each cell's id (nbformat 4.5 ids; cell-<index> in older notebooks), cell_type, source as text, execution_count and a text summary of its outputs (streams and text/plain shown, images and other data named with their size, never inlined; max_output_chars per cell). Arms the staleness guard like read_file. Edit a cell with notebook_edit, or inside one with edit_file and cell_id."
        ),
        tool!(
            "notebook_edit",
            NotebookEditRequest,
            NotebookEditResponse,
            notebook_edit,
            ro = false,
            destructive = true,
            idempotent = false,
            "Change one cell of a Jupyter notebook, named by cell_id or index: replace its source (and cell_type), insert_before or insert_after it a new cell (source, cell_type default code), or delete it. Only that cell's JSON text changes (the file's indentation, key order and line endings are kept); a changed code cell's outputs and execution_count are cleared. Refused when the notebook changed since you read it (read it again, or pass force); undo with undo_edit; dry_run shows the diff without writing."
        ),
    ];
    #[cfg(feature = "analyze")]
    list.extend([
        tool!("edit_python_file", EditPythonFileRequest, EditPythonFileResponse, edit_python_file, ro = false, destructive = true, idempotent = false,
            "Replace old_string with new_string in a Python file, like edit_file, but refuse an edit that would introduce syntax errors (nothing is written). dry_run reports would_change without writing."),
        tool!("replace_function", ReplaceFunctionRequest, ReplaceFunctionResponse, replace_function, ro = false, destructive = true, idempotent = false,
            "Replace a whole function or method by name (func, Class.method, Outer.Inner.method) in a Python, TypeScript, TSX or JavaScript file. The new definition is re-indented to fit and decorators are kept unless it brings its own. Refuses unknown names (listing the available ones), duplicates (with their lines) and results that would not parse."),
        tool!("file_symbols", PathRequest, FileSymbolsResponse, file_symbols, ro = true, destructive = false, idempotent = true,
            "List the functions, classes, methods, interfaces, type aliases and enums of a Python, TypeScript, TSX or JavaScript file, with lines and parents."),
        tool!("check_syntax", PathRequest, CheckSyntaxResponse, check_syntax, ro = true, destructive = false, idempotent = true,
            "Check a Python, TypeScript, TSX, JavaScript or JSON file for syntax errors, with line and column of each."),
        tool!("update_project_index", UpdateProjectIndexRequest, UpdateProjectIndexResponse, update_project_index, ro = false, destructive = true, idempotent = true,
            "Create or refresh the title and the Description, Structure and Instructions sections of a project index Markdown file (PROJECT.md by default) without touching its other sections."),
    ]);
    #[cfg(feature = "search")]
    list.extend([
        tool!("search_files", SearchFilesRequest, SearchFilesResponse, search_files, ro = true, destructive = false, idempotent = true,
            "Search file contents under a directory with a regex (or a literal with regex=false), like ripgrep: .gitignore and hidden files are respected, binary files skipped. Filter with glob (src/**/*.ts) or file_extension (.py). Returns matching lines with line and column, files sorted, and whether results were cut at max_results."),
        tool!("search_code", SearchFilesRequest, SearchFilesResponse, search_code, ro = true, destructive = false, idempotent = true,
            "Search code like search_files, in Python files by default (file_extension .py)."),
        tool!("glob", GlobRequest, GlobResponse, glob, ro = true, destructive = false, idempotent = true,
            "Find files by glob pattern (**/*.py) under a directory, respecting .gitignore. Returns sorted paths relative to the workspace root."),
    ]);
    #[cfg(not(feature = "search"))]
    list.push(tool!(
        "glob",
        GlobRequest,
        GlobResponse,
        glob,
        ro = true,
        destructive = false,
        idempotent = true,
        "Find files by glob pattern (**/*.py) under a directory. Returns sorted paths relative to the workspace root."
    ));
    #[cfg(feature = "patch")]
    list.extend([
        tool!("apply_patch", ApplyPatchRequest, ApplyPatchResponse, apply_patch, ro = false, destructive = true, idempotent = false,
            "Apply a multi-file patch atomically: every file changes or none does. Accepts the *** Begin Patch format (*** Add File / *** Update File with @@ chunks of ' ', '-', '+' lines / *** Delete File / *** Move to), @@ hunks of old text, ===, new text, and unified diffs (git diff). Hunks are located by content with the same tolerant but unambiguous matching as edit_file (strict: exact text only); '-' lines must stand in the file up to whitespace, and each hunk's placement (lines, rung, score) is returned. The patch must be complete: a *** Begin Patch or @@/=== patch ends with *** End Patch, a unified diff with a newline. A file changed since you read it is merged per hunk when each hunk's lines and one line each side are untouched (merged_with); else stale. On any failure nothing is written and the error lists every failing hunk. One file: edit_file, or merge_snippet for code with elided parts."),
    ]);
    list
}

/// Every tool's spec, in a stable order.
#[must_use]
pub fn specs() -> Vec<ToolSpec> {
    entries()
        .into_iter()
        .map(|e| ToolSpec {
            name: e.name,
            description: e.description,
            input_schema: (e.input)(),
            output_schema: (e.output)(),
            read_only: e.read_only,
            in_read_only_set: e.read_only && !EDITOR_SESSION_TOOLS.contains(&e.name),
            destructive: e.destructive,
            idempotent: e.idempotent,
        })
        .collect()
}

/// The named tool sets, each with what it is for and its tools (a tool compiled out by a
/// feature is skipped). `core` is what an agent needs to work on a code base; the others hold
/// the seed-compatible and specialised tools.
pub const TOOLSETS: &[(&str, &str, &[&str])] = &[
    (
        "core",
        "reading, writing, editing, patching, searching and arranging files",
        &[
            "read_file",
            "read_files",
            "write_file",
            "edit_file",
            "insert_lines",
            "apply_patch",
            "undo_edit",
            "undo_patch",
            "search_files",
            "glob",
            "tree",
            "list_dir",
            "file_info",
            "create_directory",
            "move",
            "delete",
            "list_roots",
        ],
    ),
    ("paths", "exists, generate_diff and the undo history", &["exists", "generate_diff", "history"]),
    (
        "code",
        "code awareness: symbols, syntax checks, replacing a function, merging lazy snippets",
        &["file_symbols", "check_syntax", "replace_function", "merge_snippet"],
    ),
    (
        "seed",
        "the tools of the agent frameworks editkit replaces (GAIA's Python and Markdown tools)",
        &[
            "write_python_file",
            "edit_python_file",
            "replace_function",
            "search_code",
            "write_markdown_file",
            "update_project_index",
            "generate_diff",
        ],
    ),
    ("editor", "editor sessions: several edits, one write", &EDITOR_SESSION_TOOLS),
    ("notebook", "Jupyter notebooks read and edited by cell", &["notebook_read", "notebook_edit"]),
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
    /// The names chosen; `None`: every tool.
    names: Option<std::collections::BTreeSet<&'static str>>,
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

    /// Whether tool `name` is offered.
    #[must_use]
    pub fn contains(&self, name: &str) -> bool {
        self.names.as_ref().is_none_or(|names| names.contains(name))
    }

    /// Whether every tool is offered.
    #[must_use]
    pub fn is_all(&self) -> bool {
        self.names.is_none()
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
        let known = names();
        let mut chosen = std::collections::BTreeSet::new();
        for word in spec.split(',').map(str::trim) {
            if word == "all" {
                return Ok(ToolSelection::all());
            }
            if let Some((_, _, members)) = TOOLSETS.iter().find(|(set, ..)| *set == word) {
                chosen.extend(members.iter().copied().filter(|name| known.contains(name)));
            } else if let Some(name) = known.iter().find(|name| **name == word) {
                chosen.insert(*name);
            } else {
                let sets: Vec<&str> = TOOLSETS.iter().map(|(set, ..)| *set).collect();
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
        Ok(ToolSelection { names: Some(chosen), spec: Some(spec.to_owned()) })
    }
}

/// `schema` without what only documents it (`description`, `title`, `examples`): the same
/// validation in fewer bytes, for clients that receive every tool's schemas on every turn.
///
/// ```
/// let schema = serde_json::json!({"type": "object", "description": "x", "properties": {"a": {"type": "string", "description": "y"}}});
/// assert_eq!(editkit::tools::compact_schema(schema), serde_json::json!({"type": "object", "properties": {"a": {"type": "string"}}}));
/// ```
#[must_use]
pub fn compact_schema(schema: Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(key, _)| !matches!(key.as_str(), "description" | "title" | "examples"))
                .map(|(key, value)| {
                    // Inside `properties` the keys are field names, which may be any word.
                    let value = if key == "properties" {
                        match value {
                            Value::Object(fields) => {
                                Value::Object(fields.into_iter().map(|(k, v)| (k, compact_schema(v))).collect())
                            }
                            other => other,
                        }
                    } else {
                        compact_schema(value)
                    };
                    (key, value)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(compact_schema).collect()),
        other => other,
    }
}

/// The specs of the tools `selection` offers, in the order of [`specs`].
#[must_use]
pub fn selected_specs(selection: &ToolSelection) -> Vec<ToolSpec> {
    specs().into_iter().filter(|spec| selection.contains(spec.name)).collect()
}

/// The tool reference in Markdown, generated from the specs: for each set, each tool's
/// description and arguments (name, type, required or default, other accepted names). The
/// README's "Tool reference" section is this text (a test holds it current).
#[must_use]
pub fn reference_markdown() -> String {
    let specs = specs();
    let mut out = String::new();
    let mut shown: Vec<&str> = Vec::new();
    for (set, about, members) in TOOLSETS {
        let in_set: Vec<&ToolSpec> = members.iter().filter_map(|name| specs.iter().find(|s| s.name == *name)).collect();
        if in_set.is_empty() {
            continue;
        }
        out.push_str(&format!("### `{set}`: {about}\n\n"));
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

/// The tools of an editor session, whose work ends in a write (`editor_store`).
const EDITOR_SESSION_TOOLS: [&str; 7] =
    ["editor_load", "editor_read", "editor_write", "editor_edit", "editor_diff", "editor_store", "editor_clear"];

/// Tool names, in the order of [`specs`].
#[must_use]
pub fn names() -> Vec<&'static str> {
    entries().into_iter().map(|e| e.name).collect()
}

/// Runs tool `name` with JSON `args`, returning its typed result as JSON or the error.
///
/// # Errors
/// `invalid_args` for an unknown tool or arguments that do not fit; the tool's own errors.
pub fn try_call(toolkit: &Toolkit, name: &str, args: Value) -> Result<Value> {
    let entries = entries();
    let selection = &toolkit.options().tools;
    let Some(entry) = entries.iter().find(|e| e.name == name && selection.contains(e.name)) else {
        let available: Vec<&str> = entries.iter().map(|e| e.name).filter(|name| selection.contains(name)).collect();
        let mut available = available.join(", ");
        if entries.iter().any(|e| e.name == name) {
            available.push_str(&format!(
                " (`{name}` is not in the tool set `{}`: start with --tools all, or add it)",
                selection.as_str()
            ));
        }
        return Err(Error::UnknownTool { name: name.to_owned(), available });
    };
    // A dry run writes nothing, so a read-only toolkit runs it (each writing method refuses a
    // real write itself).
    if toolkit.options().read_only && !entry.read_only && args.get("dry_run") != Some(&Value::Bool(true)) {
        return Err(Error::ReadOnly { tool: name.to_owned() });
    }
    admit_size(&args)?;
    (entry.run)(toolkit, args)
}

/// Refuses arguments over [`MAX_ARGS_BYTES`], naming the largest.
fn admit_size(args: &Value) -> Result<()> {
    let size = serde_json::to_string(args).map(|s| s.len()).unwrap_or(0);
    if size > MAX_ARGS_BYTES {
        // Name the largest argument, so the caller knows which one to shrink.
        let field = args.as_object().and_then(|map| {
            map.iter()
                .max_by_key(|(_, v)| serde_json::to_string(v).map(|s| s.len()).unwrap_or(0))
                .map(|(k, _)| k.clone())
        });
        return Err(Error::InvalidArgs {
            field,
            message: format!("arguments are {size} bytes, over the {MAX_ARGS_BYTES}-byte limit"),
        });
    }
    Ok(())
}

/// Runs tool `name` like [`call`], under `control`: the walks (`search_files`, `search_code`,
/// `glob`, `tree`) stop opening files once it is cancelled and report progress through it,
/// `apply_patch` reports its files as they are planned and checked; other tools run as
/// [`call`] runs them.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "needle\n").unwrap();
/// let toolkit = editkit::Toolkit::open(dir.path(), Default::default()).unwrap();
/// let control = editkit::search::Control::new();
/// control.cancel();
/// let result = editkit::tools::call_with_control(&toolkit, "search_files", serde_json::json!({"pattern": "needle"}), &control);
/// assert_eq!((result["files_searched"].as_u64(), result["truncated"].as_bool()), (Some(0), Some(true)));
/// ```
#[cfg(feature = "search")]
#[must_use]
pub fn call_with_control(toolkit: &Toolkit, name: &str, args: Value, control: &editkit_search::Control) -> Value {
    let run = || -> Result<Value> {
        match name {
            "search_files" | "search_code" | "glob" | "tree" if toolkit.options().tools.contains(name) => {
                admit_size(&args)?;
                match name {
                    "search_files" => ok(toolkit.search_files_with(self::args(args)?, control)?),
                    "search_code" => ok(toolkit.search_code_with(self::args(args)?, control)?),
                    "glob" => ok(toolkit.glob_with(self::args(args)?, control)?),
                    _ => ok(toolkit.tree_with(self::args(args)?, control)?),
                }
            }
            #[cfg(feature = "patch")]
            "apply_patch" if toolkit.options().tools.contains(name) => {
                admit_size(&args)?;
                let request: ApplyPatchRequest = self::args(args)?;
                if toolkit.options().read_only && !request.dry_run {
                    return Err(Error::ReadOnly { tool: name.to_owned() });
                }
                ok(toolkit.apply_patch_with(request, control)?)
            }
            _ => try_call(toolkit, name, args),
        }
    };
    run().unwrap_or_else(|err| refusal(toolkit, &err))
}

/// Runs tool `name` with JSON `args` and always returns one contract object:
/// `{"ok": true, ...}` or `{"ok": false, "error": {"kind", "message", ...}}`.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let toolkit = editkit::Toolkit::open(dir.path(), Default::default()).unwrap();
/// let result = editkit::tools::call(&toolkit, "exists", serde_json::json!({"path": "nope.txt"}));
/// assert_eq!(result, serde_json::json!({"ok": true, "path": "nope.txt", "exists": false, "kind": null}));
/// let bad = editkit::tools::call(&toolkit, "exists", serde_json::json!({}));
/// assert_eq!(bad["error"]["kind"], "invalid_args");
/// assert_eq!(bad["error"]["field"], "path");
/// ```
#[must_use]
pub fn call(toolkit: &Toolkit, name: &str, args: Value) -> Value {
    match try_call(toolkit, name, args) {
        Ok(value) => value,
        Err(err) => refusal(toolkit, &err),
    }
}

/// The contract object of a refused call. A path outside the workspace also gets the roots
/// (`roots`, and named in the message), so the agent learns where it may work.
fn refusal(toolkit: &Toolkit, err: &Error) -> Value {
    let mut error = err.to_json();
    if err.error_kind() == crate::ErrorKind::OutsideWorkspace
        && let Some(map) = error.as_object_mut()
    {
        let roots: Vec<String> = toolkit.workspaces().iter().map(|w| w.root_path().display().to_string()).collect();
        // The message names each root as a reader sees it; `roots` keeps them exact.
        let shown: Vec<String> = toolkit
            .workspaces()
            .iter()
            .map(|w| crate::shown::ShownPath::from_path(w.root_path()).to_string())
            .collect();
        if let Some(Value::String(message)) = map.get_mut("message") {
            message.push_str(&format!(
                " (the workspace root{}: {})",
                if roots.len() == 1 { " is" } else { "s are" },
                shown.join(", ")
            ));
        }
        map.insert("roots".into(), json!(roots));
    }
    json!({"ok": false, "error": error})
}

/// Parses a contract call `{"tool": NAME, "args": {...}}` and runs it. `arguments` (the MCP
/// spelling) is taken for `args`; an `"id"` is allowed and ignored here (the caller echoes
/// it); any other key is refused by name, since it would otherwise run the tool with its
/// defaults. A [`Value`] cannot hold a repeated key: for JSON text, use [`call_json_text`],
/// which refuses one.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let toolkit = editkit::Toolkit::open(dir.path(), Default::default()).unwrap();
/// let call = serde_json::json!({"tool": "list_dir", "params": {"path": "src"}});
/// let result = editkit::tools::call_json(&toolkit, &call);
/// assert_eq!(result["error"]["field"], "params");
/// ```
#[must_use]
pub fn call_json(toolkit: &Toolkit, request: &Value) -> Value {
    match envelope(request) {
        Ok((name, args)) => call(toolkit, name, args),
        Err(err) => json!({"ok": false, "error": err.to_json()}),
    }
}

/// Parses a contract call from JSON text and runs it, as [`call_json`] does; the text is read
/// with [`crate::json::parse`], so a key repeated anywhere in it (the envelope, the arguments,
/// any nested object) refuses the call as `invalid_args` naming the key, and nothing runs.
/// Use this, not `serde_json` and [`call_json`], for text from outside: a parsed [`Value`]
/// has already dropped all but the last of two equal keys.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "keep\n").unwrap();
/// let toolkit = editkit::Toolkit::open(dir.path(), Default::default()).unwrap();
/// let text = br#"{"tool": "read_file", "tool": "delete", "args": {"path": "a.txt"}}"#;
/// let refused = editkit::tools::call_json_text(&toolkit, text);
/// assert_eq!(refused["error"]["kind"], "invalid_args");
/// assert_eq!(refused["error"]["field"], "tool");
/// assert!(dir.path().join("a.txt").exists());
/// ```
#[must_use]
pub fn call_json_text(toolkit: &Toolkit, text: &[u8]) -> Value {
    match crate::json::parse(text) {
        Ok(request) => call_json(toolkit, &request),
        Err(err) => json!({"ok": false, "error": Error::from(err).to_json()}),
    }
}

/// The tool name and arguments of a call object.
fn envelope(request: &Value) -> Result<(&str, Value)> {
    let invalid = |field: &str, message: String| Error::InvalidArgs { field: Some(field.into()), message };
    let Value::Object(map) = request else {
        return Err(invalid("tool", "a call is a JSON object {\"tool\": NAME, \"args\": {...}}".into()));
    };
    let name = match map.get("tool") {
        Some(Value::String(name)) => name.as_str(),
        Some(_) => return Err(invalid("tool", "`tool` must be a string naming a tool".into())),
        None => return Err(invalid("tool", "missing field `tool`: the name of the tool to call".into())),
    };
    if let Some(unknown) = map.keys().find(|key| !matches!(key.as_str(), "tool" | "args" | "arguments" | "id")) {
        let message = format!(
            "unknown field `{unknown}` in the call; a call is {{\"tool\": NAME, \"args\": {{...}}, \"id\": ANY}}"
        );
        return Err(invalid(unknown, message));
    }
    let args = match (map.get("args"), map.get("arguments")) {
        (Some(_), Some(_)) => return Err(invalid("arguments", "give `args` or `arguments`, not both".into())),
        (args, arguments) => args.or(arguments),
    };
    match args {
        None | Some(Value::Null) => Ok((name, Value::Object(Map::new()))),
        Some(args @ Value::Object(_)) => Ok((name, args.clone())),
        Some(_) => Err(invalid("args", "`args` must be a JSON object of the tool's arguments".into())),
    }
}
