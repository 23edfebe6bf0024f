//! A contract result as an MCP tool result: the typed result as structured content, and a
//! text block written for a model, for the clients that pass only text on. Used by the MCP
//! server and by the framing's own refusals.
//!
//! The text of a read is the file itself: one header line (path, lines shown of the total,
//! sha256, and the offset that reads on when the page bound cut it) and the lines, numbered
//! like `cat -n` (a right-aligned number and a tab) unless the server was started with
//! `--line-numbers off`. `edit_file` strips that prefix when a model copies it into
//! `old_string`. Writes, edits and patches answer what changed, the diff and any post-write
//! problems; searches answer `path:line:column: text` lines; listings one path per line; a
//! notebook read its cells (a header line per cell, its source, its outputs' summary). A
//! refusal answers `kind: message`. Other results answer their JSON.
//!
//! Every name in the text goes through [`ShownPath`] (quoted as git quotes names when it holds
//! a control character, a separator, a bidi control or a quote) and every message and pattern
//! through [`shown::line`], so a name is one line and cannot forge another; the structured
//! content keeps the exact names.

use std::fmt::Write as _;

use editkit::shown::{self, ShownPath};
use editkit::{
    ApplyPatchResponse, CheckSyntaxResponse, CreateDirectoryResponse, DeleteResponse, DiagnosticsInfo,
    EditFileResponse, EditPythonFileResponse, ExistsResponse, FileInfoResponse, FileSymbolsResponse,
    GenerateDiffResponse, GlobResponse, InsertLinesResponse, ListDirResponse, ListRootsResponse, MoveResponse,
    NotebookEditResponse, NotebookReadResponse, ReadFileResponse, ReadFilesResponse, ReplaceFunctionResponse,
    SearchFilesResponse, TreeResponse, UndoResponse, WriteFileResponse, WriteMarkdownFileResponse,
    WritePythonFileResponse,
};
use rmcp::model::{CallToolResult, ContentBlock};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::contract::{Envelope, word};

/// How the text block of a result is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TextStyle {
    /// Number the lines of a read.
    pub(crate) line_numbers: bool,
}

impl Default for TextStyle {
    fn default() -> Self {
        TextStyle { line_numbers: true }
    }
}

/// A contract object as an MCP tool result.
pub(crate) fn tool_result(tool: &str, result: Value, style: TextStyle) -> CallToolResult {
    let envelope = Envelope::deserialize(&result).unwrap_or_default();
    if envelope.ok {
        let text = render(tool, &result, style);
        let mut answer = CallToolResult::success(vec![ContentBlock::text(text)]);
        answer.structured_content = Some(result);
        return answer;
    }
    let message = envelope
        .error
        .and_then(|error| {
            Some(format!("{}: {}", shown::line(error.kind.as_deref()?), shown::lines(error.message.as_deref()?)))
        })
        .unwrap_or_else(|| result.to_string());
    let mut answer = CallToolResult::error(vec![ContentBlock::text(message)]);
    answer.structured_content = Some(result);
    answer
}

/// A name, as a reader is shown it.
fn name(path: &str) -> String {
    ShownPath::new(path).to_string()
}

fn plural(n: u64, word: &str) -> String {
    let ending = if ["ch", "sh", "s", "x"].iter().any(|end| word.ends_with(end)) { "es" } else { "s" };
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}{ending}") }
}

/// A count, for [`plural`].
fn count(n: usize) -> u64 {
    n as u64
}

/// A typed result's text block for a model: one impl per response type.
trait Render {
    /// Writes the text block of this result to `out`.
    fn render(&self, out: &mut String, style: TextStyle);
}

/// The text block of a successful result of `tool`: its typed response rendered, or, for a
/// tool without a text of its own (or a result not of its type), its JSON.
fn render(tool: &str, result: &Value, style: TextStyle) -> String {
    renderer(tool).and_then(|text| text(result, style)).unwrap_or_else(|| json_of(result))
}

/// A text block of a tool's result, `None` when the result is not of the tool's type.
type Renderer = fn(&Value, TextStyle) -> Option<String>;

/// The renderer of `tool`'s results: its response type's; `None` for a tool without a text
/// of its own.
fn renderer(tool: &str) -> Option<Renderer> {
    let text: Renderer = match tool {
        "read_file" => text::<ReadFileResponse>,
        "read_files" => text::<ReadFilesResponse>,
        "write_file" => text::<WriteFileResponse>,
        "write_python_file" => text::<WritePythonFileResponse>,
        "write_markdown_file" => text::<WriteMarkdownFileResponse>,
        "edit_file" => text::<EditFileResponse>,
        "edit_python_file" => text::<EditPythonFileResponse>,
        "insert_lines" => text::<InsertLinesResponse>,
        "replace_function" => text::<ReplaceFunctionResponse>,
        "notebook_read" => text::<NotebookReadResponse>,
        "notebook_edit" => text::<NotebookEditResponse>,
        "apply_patch" => text::<ApplyPatchResponse>,
        "search_files" | "search_code" => text::<SearchFilesResponse>,
        "glob" => text::<GlobResponse>,
        "list_dir" => text::<ListDirResponse>,
        "tree" => text::<TreeResponse>,
        "move" => text::<MoveResponse>,
        "delete" => text::<DeleteResponse>,
        "undo_edit" | "undo_patch" => text::<UndoResponse>,
        "create_directory" => text::<CreateDirectoryResponse>,
        "list_roots" => text::<ListRootsResponse>,
        "generate_diff" | "editor_diff" => text::<GenerateDiffResponse>,
        "exists" => text::<ExistsResponse>,
        "file_info" => text::<FileInfoResponse>,
        "check_syntax" => text::<CheckSyntaxResponse>,
        "file_symbols" => text::<FileSymbolsResponse>,
        _ => return None,
    };
    Some(text)
}

/// The text of `result` read as a `T`; `None` when it does not have `T`'s shape.
fn text<T: Render + DeserializeOwned>(result: &Value, style: TextStyle) -> Option<String> {
    let typed: T = crate::contract::response(result).ok()?;
    let mut out = String::new();
    typed.render(&mut out, style);
    Some(out)
}

/// A result without a text of its own: its JSON, less the envelope's `ok`. This is the text
/// block only, written for a model, which the tool result's `isError` already tells; the
/// structured content (the JSON contract) keeps `ok`, as `call` and `--json` print it.
fn json_of(result: &Value) -> String {
    let mut copy = result.clone();
    if let Some(map) = copy.as_object_mut() {
        map.remove("ok");
    }
    json_text(copy.to_string())
}

impl Render for ReadFileResponse {
    /// A read: its header line and its lines.
    fn render(&self, out: &mut String, style: TextStyle) {
        let path = name(&self.path);
        let sha = &self.sha256;
        if self.is_binary {
            let _ =
                writeln!(out, "{path} · binary, {} · sha256 {sha} (no text shown)", plural(self.size_bytes, "byte"));
            return;
        }
        let (start, end, total) = (count(self.start_line), count(self.end_line), count(self.total_lines));
        let shown = if total == 0 {
            "empty file".to_owned()
        } else if start == 1 && end == total {
            plural(total, "line")
        } else {
            format!("lines {start}-{end} of {total}")
        };
        let _ = write!(out, "{path} · {shown} · sha256 {sha}");
        if let Some(next) = self.next_offset {
            let _ = write!(out, " · cut at the page size: read on with offset {next}");
        }
        out.push('\n');
        let content = self.content.as_str();
        if style.line_numbers {
            for (n, line) in content.split_inclusive('\n').enumerate() {
                let _ = write!(out, "{:>6}\t{line}", self.start_line + n);
            }
        } else {
            out.push_str(content);
        }
        if !content.is_empty() && !content.ends_with('\n') {
            out.push('\n');
        }
        if let Some(next) = self.next_offset {
            let _ = writeln!(out, "[{} more lines: call read_file with offset {next}]", total.saturating_sub(end));
        }
    }
}

impl Render for ReadFilesResponse {
    fn render(&self, out: &mut String, style: TextStyle) {
        for (n, item) in self.files.iter().enumerate() {
            if n > 0 {
                out.push('\n');
            }
            match (&item.file, &item.error) {
                (Some(file), _) => file.render(out, style),
                (None, error) => {
                    let (kind, message) =
                        error.as_ref().map_or_else(|| (String::new(), ""), |e| (word(&e.kind), e.message.as_str()));
                    let _ = writeln!(
                        out,
                        "{}: refused ({}): {}",
                        name(&item.path),
                        shown::line(&kind),
                        shown::lines(message)
                    );
                }
            }
        }
    }
}

/// `created|wrote PATH (N bytes) · sha256 H`.
fn wrote(out: &mut String, created: bool, path: &str, size: u64, sha256: &editkit::vfs::Sha256) {
    let verb = if created { "created" } else { "wrote" };
    let _ = writeln!(out, "{verb} {} ({}) · sha256 {sha256}", name(path), plural(size, "byte"));
}

impl Render for WriteFileResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        wrote(out, self.created, &self.path, self.size_bytes, &self.sha256);
        problems(out, Some(&self.diagnostics));
    }
}

impl Render for WritePythonFileResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        wrote(out, false, &self.path, self.bytes_written, &self.sha256);
    }
}

impl Render for WriteMarkdownFileResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        wrote(out, false, &self.path, self.size_bytes, &self.sha256);
    }
}

/// The head line of an edit: `VERB PATH, lines A-B (N replacements) (matched with R
/// tolerance, score S) · sha256 H`, each part when the result has it.
struct EditLine<'a> {
    verb: &'a str,
    path: &'a str,
    line_range: Option<[usize; 2]>,
    replacements: Option<usize>,
    placement: Option<(editkit::matcher::Rung, f64)>,
    sha256: &'a editkit::vfs::Sha256,
}

impl EditLine<'_> {
    fn write(&self, out: &mut String) {
        let mut line = format!("{} {}", self.verb, name(self.path));
        if let Some([first, last]) = self.line_range {
            let _ = write!(line, ", lines {first}-{last}");
        }
        if let Some(count) = self.replacements
            && count != 1
        {
            let _ = write!(line, " ({count} replacements)");
        }
        if let Some((rung, score)) = self.placement
            && !rung.is_exact()
        {
            let _ = write!(line, " (matched with {rung} tolerance, score {score:.2})");
        }
        let _ = write!(line, " · sha256 {}", self.sha256);
        out.push_str(&line);
        out.push('\n');
    }
}

impl Render for EditFileResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        EditLine {
            verb: if self.dry_run { "would change" } else { "edited" },
            path: &self.path,
            line_range: Some(self.line_range),
            replacements: Some(self.replacements),
            placement: Some((self.rung, self.score)),
            sha256: &self.sha256,
        }
        .write(out);
        diff(out, &self.diff, self.diff_truncated);
        problems(out, Some(&self.diagnostics));
    }
}

impl Render for EditPythonFileResponse {
    fn render(&self, out: &mut String, style: TextStyle) {
        self.edit.render(out, style);
    }
}

impl Render for InsertLinesResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        EditLine {
            verb: if self.dry_run { "would change" } else { "inserted into" },
            path: &self.path,
            line_range: Some(self.line_range),
            replacements: None,
            placement: None,
            sha256: &self.sha256,
        }
        .write(out);
        diff(out, &self.diff, self.diff_truncated);
        problems(out, Some(&self.diagnostics));
    }
}

impl Render for ReplaceFunctionResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        EditLine {
            verb: if self.dry_run { "would change" } else { "edited" },
            path: &self.path,
            line_range: None,
            replacements: None,
            placement: None,
            sha256: &self.sha256,
        }
        .write(out);
        diff(out, &self.diff, false);
    }
}

impl Render for NotebookReadResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        let _ = writeln!(
            out,
            "{} · nbformat {} · {} · sha256 {}",
            name(&self.path),
            shown::line(&self.nbformat),
            plural(count(self.cells.len()), "cell"),
            self.sha256
        );
        for cell in &self.cells {
            let _ = write!(
                out,
                "--- cell {} · id {} · {}",
                cell.index,
                shown::line(&cell.id),
                shown::line(&cell.cell_type)
            );
            if let Some(count) = cell.execution_count {
                let _ = write!(out, " · execution_count {count}");
            }
            out.push('\n');
            out.push_str(&cell.source);
            if !cell.source.is_empty() && !cell.source.ends_with('\n') {
                out.push('\n');
            }
            if !cell.outputs.is_empty() {
                let _ = writeln!(out, "--- outputs ({})\n{}", cell.output_count, shown::lines(&cell.outputs));
            }
        }
    }
}

impl Render for NotebookEditResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        let _ = writeln!(
            out,
            "{}{} cell {} (id {}) of {} · {} · sha256 {}",
            if self.dry_run { "would " } else { "" },
            shown::line(&word(&self.action)),
            self.index,
            shown::line(&self.cell_id),
            name(&self.path),
            plural(count(self.cell_count), "cell"),
            self.sha256
        );
        diff(out, &self.diff, self.diff_truncated);
    }
}

impl Render for ApplyPatchResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        let verb = if self.dry_run { "would patch" } else { "patched" };
        let _ = writeln!(out, "{verb} {}:", plural(count(self.files.len()), "file"));
        for file in &self.files {
            let from = file.from.as_deref().map(|f| format!(" (from {})", ShownPath::new(f))).unwrap_or_default();
            let _ = writeln!(out, "  {} {}{from}", shown::line(&word(&file.action)), name(&file.path));
        }
        diff(out, &self.diff, false);
        for file in &self.files {
            problems(out, Some(&file.diagnostics));
        }
    }
}

impl Render for SearchFilesResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        let _ = writeln!(
            out,
            "{} in {} of {} searched{}",
            plural(self.results.iter().map(|f| count(f.matches.len())).sum(), "match"),
            plural(self.files_with_matches, "file"),
            self.files_searched,
            if self.truncated { " (cut at max_results: narrow the search or raise max_results)" } else { "" }
        );
        for file in &self.results {
            let path = name(&file.file);
            for m in &file.matches {
                for before in &m.before {
                    let _ = writeln!(out, "{path}-{before}");
                }
                let _ = writeln!(out, "{path}:{}:{}: {}", m.line, m.column, m.content.trim_end_matches(['\n', '\r']));
                for after in &m.after {
                    let _ = writeln!(out, "{path}-{after}");
                }
            }
        }
    }
}

impl Render for GlobResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        let _ = writeln!(out, "{} matching {}", plural(count(self.matches.len()), "file"), shown::line(&self.pattern));
        for path in &self.matches {
            let _ = writeln!(out, "{}", ShownPath::new(path));
        }
        truncated(out, self.truncated);
    }
}

impl Render for ListDirResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        let _ = writeln!(out, "{}:", name(&self.path));
        for entry in &self.entries {
            let _ = writeln!(out, "{}", ShownPath::new(entry));
        }
        truncated(out, self.truncated);
        let unnamed = self.unnamed_entries;
        if unnamed > 0 {
            let _ = writeln!(
                out,
                "[{} left out: their names are not UTF-8, so no path can name them]",
                if unnamed == 1 { "1 entry".to_owned() } else { format!("{unnamed} entries") }
            );
        }
    }
}

impl Render for TreeResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        let _ = writeln!(out, "{} ({})", name(&self.path), plural(count(self.total_files), "file"));
        for entry in &self.entries {
            let depth = entry.depth.max(1);
            let path = entry.path.as_str();
            let last = path.trim_end_matches('/').rsplit('/').next().unwrap_or(path);
            let slash = if path.ends_with('/') { "/" } else { "" };
            let _ = write!(out, "{}{}{slash}", "  ".repeat(depth - 1), ShownPath::new(last));
            let mut notes = Vec::new();
            if let Some(files) = entry.files {
                notes.push(plural(count(files), "file"));
            }
            if let Some(size) = entry.size {
                notes.push(plural(size, "byte"));
            }
            if !notes.is_empty() {
                let _ = write!(out, " ({})", notes.join(", "));
            }
            out.push('\n');
        }
        truncated(out, self.truncated);
    }
}

impl Render for MoveResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        let _ = writeln!(
            out,
            "moved {} {} to {}{}",
            shown::line(&word(&self.kind)),
            name(&self.from),
            name(&self.to),
            if self.overwritten { " (replacing it)" } else { "" }
        );
    }
}

impl Render for DeleteResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        let _ = writeln!(out, "deleted {} {}", shown::line(&word(&self.deleted)), name(&self.path));
    }
}

impl Render for UndoResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        let restored: Vec<String> = self.restored.iter().map(|p| name(p)).collect();
        let _ = writeln!(
            out,
            "restored {} · {} left in the history",
            restored.join(", "),
            plural(count(self.remaining), "entry")
        );
    }
}

impl Render for CreateDirectoryResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        let what = if self.created { "created directory" } else { "directory exists:" };
        let _ = writeln!(out, "{what} {}", name(&self.path));
    }
}

impl Render for ListRootsResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        let _ = writeln!(out, "workspace roots{}:", if self.read_only { " (read-only)" } else { "" });
        for root in &self.roots {
            let primary = if root.primary { " (primary: relative paths resolve here)" } else { "" };
            let _ = writeln!(out, "{}{primary}", name(&root.path));
        }
    }
}

impl Render for GenerateDiffResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        if self.diff.is_empty() {
            out.push_str("no difference\n");
        }
        diff(out, &self.diff, false);
    }
}

impl Render for ExistsResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        let _ = match &self.kind {
            Some(kind) => writeln!(out, "{} exists ({})", name(&self.path), shown::line(&word(kind))),
            None => writeln!(out, "{} does not exist", name(&self.path)),
        };
    }
}

impl Render for FileInfoResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        let _ = write!(
            out,
            "{} · {} · {} · permissions {} · modified {} (Unix time)",
            name(&self.path),
            shown::line(&word(&self.kind)),
            plural(self.size_bytes, "byte"),
            shown::line(&self.permissions.to_string()),
            self.modified_unix
        );
        if let Some(kind) = &self.file_type {
            let _ = write!(out, " · {}", shown::line(kind.as_str()));
        }
        if let Some(lines) = self.line_count {
            let _ = write!(out, " · {}", plural(count(lines), "line"));
        }
        out.push('\n');
    }
}

impl Render for CheckSyntaxResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        if self.errors.is_empty() {
            let _ = writeln!(out, "{}: no syntax errors", name(&self.path));
            return;
        }
        let _ = writeln!(out, "{}: {}", name(&self.path), plural(count(self.errors.len()), "syntax error"));
        for error in &self.errors {
            let _ = writeln!(out, "  line {}, column {}: {}", error.line, error.column, shown::line(&error.message));
        }
    }
}

impl Render for FileSymbolsResponse {
    fn render(&self, out: &mut String, _style: TextStyle) {
        let _ = writeln!(out, "{}: {}", name(&self.path), plural(count(self.symbols.len()), "symbol"));
        for symbol in &self.symbols {
            let indent = if symbol.parent.is_some() { "    " } else { "  " };
            let _ = writeln!(
                out,
                "{indent}{} {} (lines {}-{})",
                shown::line(&word(&symbol.kind)),
                shown::line(&symbol.name),
                symbol.line,
                symbol.end_line
            );
        }
    }
}

/// A result's JSON, pretty-printed, with what [`json_text`] escapes escaped as it is written:
/// the same bytes as `json_text(serde_json::to_string_pretty(result))`, in one pass.
pub(crate) fn json_pretty(result: &Value) -> Vec<u8> {
    use serde::Serialize as _;
    let mut out = Vec::with_capacity(8 * 1024);
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, Escaping(Default::default()));
    if result.serialize(&mut serializer).is_err() {
        // A `Value` always serializes; the compact text stands in all the same.
        return json_text(result.to_string()).into_bytes();
    }
    out
}

/// serde_json's pretty layout, with the characters [`shown::is_misleading`] names escaped
/// inside strings (outside them JSON is ASCII punctuation, digits and words).
struct Escaping<'a>(serde_json::ser::PrettyFormatter<'a>);

impl serde_json::ser::Formatter for Escaping<'_> {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.0.begin_array(writer)
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.0.end_array(writer)
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, first: bool) -> std::io::Result<()> {
        self.0.begin_array_value(writer, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.0.end_array_value(writer)
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.0.begin_object(writer)
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.0.end_object(writer)
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, first: bool) -> std::io::Result<()> {
        self.0.begin_object_key(writer, first)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.0.begin_object_value(writer)
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.0.end_object_value(writer)
    }
    /// A run of a string's characters serde_json leaves as they are (it escapes the C0
    /// controls, `"` and `\` itself): ASCII from the space on holds nothing to escape but DEL.
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        if fragment.bytes().all(|byte| byte < 0x7f) {
            return writer.write_all(fragment.as_bytes());
        }
        let mut start = 0;
        for (at, c) in fragment.char_indices() {
            if shown::is_misleading(c) {
                writer.write_all(fragment.get(start..at).unwrap_or_default().as_bytes())?;
                write!(writer, "\\u{:04x}", u32::from(c))?;
                start = at + c.len_utf8();
            }
        }
        writer.write_all(fragment.get(start..).unwrap_or_default().as_bytes())
    }
}

/// A result's JSON as text: serde_json escapes the C0 controls, `"` and `\`; DEL, the C1
/// controls, the line and paragraph separators and the bidi controls are escaped here too
/// (`\u202e`), so the text holds none of them raw and still reads as the same JSON.
pub(crate) fn json_text(text: String) -> String {
    // A raw newline is the layout of pretty-printed JSON: serde_json escapes those in strings.
    // Printable ASCII and line ends (nearly every result) hold nothing to escape: one look at
    // the bytes, not a decode of each character.
    if text.bytes().all(|byte| byte == b'\n' || (b' '..=b'~').contains(&byte)) {
        return text;
    }
    let escaped = |c: char| c != '\n' && shown::is_misleading(c);
    if !text.chars().any(escaped) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if escaped(c) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}

fn diff(out: &mut String, diff: &str, cut: bool) {
    if !diff.is_empty() {
        out.push_str(diff);
        if !diff.ends_with('\n') {
            out.push('\n');
        }
    }
    if cut {
        out.push_str("[the diff is cut at its size bound; read the file to see the rest]\n");
    }
}

fn truncated(out: &mut String, truncated: bool) {
    if truncated {
        out.push_str("[the list is cut at its bound]\n");
    }
}

/// Post-write problems: syntax errors and checkers' reports.
fn problems(out: &mut String, diagnostics: Option<&DiagnosticsInfo>) {
    let Some(diagnostics) = diagnostics else { return };
    for error in &diagnostics.syntax_errors {
        let _ = writeln!(
            out,
            "syntax error at line {}, column {}: {}",
            error.line,
            error.column,
            shown::line(&error.message)
        );
    }
    for checker in &diagnostics.checkers {
        if !checker.ok {
            let _ = writeln!(out, "{} reports:\n{}", shown::line(&checker.name), checker.output.trim_end());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The one-pass printer gives what printing, then escaping the text, gave.
    fn printed_as_before(value: &Value) -> Result<(), String> {
        let before = json_text(serde_json::to_string_pretty(value).map_err(|err| err.to_string())?);
        let now = String::from_utf8(json_pretty(value)).map_err(|err| err.to_string())?;
        if now == before { Ok(()) } else { Err(format!("{now:?} != {before:?}")) }
    }

    #[test]
    fn pretty_json_escapes_what_the_text_escape_did_in_one_pass() {
        let every = "ascii, caf\u{e9}, \u{7f} del, \u{85} c1, \u{2028}\u{2029} separators, \u{202e}bidi\u{2066}, \u{200e}, \u{61c}, tab\t nl\n nul\u{0}, \"q\" \\ \u{1f600}";
        let value = json!({"ok": true, every: [every, {}, [], {"n": 1.5, "b": false, "z": null}], "empty": ""});
        printed_as_before(&value).unwrap();
        let printed = String::from_utf8(json_pretty(&value)).unwrap();
        assert!(
            printed.contains("\\u202ebidi\\u2066") && printed.contains("\\u007f del") && !printed.contains('\u{85}')
        );
        assert_eq!(serde_json::from_str::<Value>(&printed).unwrap(), value);
    }

    proptest::proptest! {
        #[test]
        fn pretty_json_is_the_escaped_pretty_text(
            key in "\\PC{0,8}",
            texts in proptest::collection::vec(proptest::prelude::any::<String>(), 0..4),
        ) {
            let value = json!({"ok": true, key.clone(): texts, "nested": {key: [1, "x"]}});
            proptest::prop_assert_eq!(printed_as_before(&value), Ok(()));
        }
    }

    fn text(result: &CallToolResult) -> String {
        result.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap_or_default()
    }

    /// A sha256 as results hold it.
    const HASH: &str = "ab00000000000000000000000000000000000000000000000000000000000000";

    /// A read result: `fields` over the facts a read of a small text file has.
    fn read_result(fields: Value) -> Value {
        let mut read = json!({"ok": true, "path": "a", "content": "", "sha256": HASH, "file_type": "text",
            "line_count": 0, "size_bytes": 0, "is_binary": false, "line_endings": "lf", "bom": false,
            "partial": false, "is_valid": null, "errors": [], "symbols": [], "headers": [], "code_blocks": [],
            "links": []});
        if let (Some(read), Value::Object(fields)) = (read.as_object_mut(), fields) {
            read.extend(fields);
        }
        read
    }

    #[test]
    fn a_read_is_the_file_with_a_header_and_numbered_lines() {
        let read = read_result(json!({"path": "a.py", "content": "x = 1\ny = \"2\"\n",
            "start_line": 4, "end_line": 5, "total_lines": 9, "next_offset": 6, "is_binary": false}));
        let result = tool_result("read_file", read, TextStyle::default());
        assert_eq!(
            text(&result),
            format!(
                "a.py · lines 4-5 of 9 · sha256 {HASH} · cut at the page size: read on with offset 6\n     4\tx = 1\n     5\ty = \"2\"\n[4 more lines: call read_file with offset 6]\n"
            )
        );
        assert_eq!(result.structured_content.as_ref().and_then(|v| v["content"].as_str()), Some("x = 1\ny = \"2\"\n"));
    }

    #[test]
    fn listings_and_searches_are_plain_lines() {
        let found = json!({"ok": true, "pattern": "TODO", "directory": ".", "skipped": [], "files_searched": 3, "files_with_matches": 1, "truncated": false,
            "results": [{"file": "a.py", "matches": [{"line": 2, "column": 5, "content": "x = TODO\n", "before": [], "after": []}]}]});
        assert_eq!(
            text(&tool_result("search_files", found, TextStyle::default())),
            "1 match in 1 file of 3 searched\na.py:2:5: x = TODO\n"
        );
        let tree = json!({"ok": true, "path": ".", "total_files": 2, "truncated": false, "entries": [
            {"path": "src/", "depth": 1, "files": 1, "size": null}, {"path": "src/a.rs", "depth": 2, "files": null, "size": null},
            {"path": "README.md", "depth": 1, "files": null, "size": null}]});
        assert_eq!(
            text(&tool_result("tree", tree, TextStyle::default())),
            ". (2 files)\nsrc/ (1 file)\n  a.rs\nREADME.md\n"
        );
        let plain = TextStyle { line_numbers: false };
        let read =
            read_result(json!({"path": "a", "content": "x\n", "start_line": 1, "end_line": 1, "total_lines": 1}));
        assert_eq!(text(&tool_result("read_file", read, plain)), format!("a · 1 line · sha256 {HASH}\nx\n"));
    }

    #[test]
    fn a_notebook_read_is_its_cells() {
        let read = json!({"ok": true, "path": "n.ipynb", "nbformat": "4.5", "sha256": HASH, "cells": [
            {"index": 0, "id": "a1", "cell_type": "markdown", "source": "# T", "execution_count": null,
             "output_count": 0, "outputs": "", "outputs_truncated": false},
            {"index": 1, "id": "b2", "cell_type": "code", "source": "print(1)\n", "execution_count": 3,
             "output_count": 1, "outputs": "[stdout] 1\u{1b}", "outputs_truncated": false}]});
        assert_eq!(
            text(&tool_result("notebook_read", read, TextStyle::default())),
            format!(
                "n.ipynb · nbformat 4.5 · 2 cells · sha256 {HASH}\n--- cell 0 · id a1 · markdown\n# T\n\
                 --- cell 1 · id b2 · code · execution_count 3\nprint(1)\n--- outputs (1)\n[stdout] 1\\033\n"
            )
        );
    }

    fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                std::fs::create_dir_all(&target).unwrap();
                copy_tree(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), &target).unwrap();
            }
        }
    }

    /// Every documented example's result is read as its tool's response type and rendered
    /// from it: the JSON fallback is only for tools without a text of their own.
    #[test]
    fn every_documented_result_renders_from_its_type() {
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/calls");
        let (dir, state) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        copy_tree(&fixtures.join("tree"), dir.path());
        let options = editkit::ToolkitOptions {
            tools: editkit::tools::ToolSelection::all(),
            state_home: Some(state.path().to_owned()),
            ..Default::default()
        };
        let toolkit = editkit::Toolkit::open(dir.path(), options).unwrap();
        let text = std::fs::read_to_string(fixtures.join("examples.jsonl")).unwrap();
        let (mut session, mut rendered) = (String::new(), std::collections::BTreeSet::new());
        for line in text.lines().filter(|line| !line.trim().is_empty()) {
            let call: Value = serde_json::from_str(&line.replace("$SESSION", &session)).unwrap();
            let result = editkit::tools::call_json(&toolkit, &call);
            let tool = call["tool"].as_str().unwrap();
            assert_eq!(result["ok"], true, "{tool}: {result:#}");
            if tool == "editor_load" {
                session = result["session_id"].as_str().unwrap().to_owned();
            }
            if let Some(text) = renderer(tool) {
                let shown = text(&result, TextStyle::default());
                assert!(shown.is_some_and(|text| !text.is_empty()), "{tool}: not read as its type: {result:#}");
                rendered.insert(tool.to_owned());
            }
        }
        assert!(rendered.len() >= 28, "{rendered:?}");
    }

    /// The one place a result is shown without `ok`: the text block of a tool without a text
    /// of its own. The structured content beside it is the contract object, `ok` and all.
    #[test]
    fn a_result_without_a_text_is_its_json_less_ok_beside_the_whole_object() {
        let result = json!({"ok": true, "files": [], "patches": []});
        assert!(renderer("history").is_none(), "history has a text of its own now: pick another tool");
        let answer = tool_result("history", result.clone(), TextStyle::default());
        assert_eq!(answer.is_error, Some(false));
        assert_eq!(text(&answer), r#"{"files":[],"patches":[]}"#);
        assert_eq!(answer.structured_content, Some(result));
    }

    #[test]
    fn counts_read_as_words() {
        assert_eq!(plural(1, "match"), "1 match");
        assert_eq!(plural(4, "match"), "4 matches");
        assert_eq!(plural(2, "file"), "2 files");
    }

    #[test]
    fn refusals_are_tool_errors() {
        let result = tool_result(
            "edit_file",
            json!({"ok": false, "error": {"kind": "ambiguous", "message": "2 places"}}),
            TextStyle::default(),
        );
        assert_eq!(result.is_error, Some(true));
        assert_eq!(text(&result), "ambiguous: 2 places");
        assert_eq!(result.structured_content.as_ref().map(|v| v["error"]["kind"].clone()), Some(json!("ambiguous")));
    }

    #[test]
    fn a_listing_says_how_many_entries_it_could_not_name() {
        let listed = json!({"ok": true, "path": "d", "entries": ["ok.txt"], "total_entries": 1, "truncated": false,
            "unnamed_entries": 2});
        let text = render("list_dir", &listed, TextStyle::default());
        assert!(text.contains("[2 entries left out: their names are not UTF-8"), "{text}");
        let clean = json!({"ok": true, "path": "d", "entries": ["ok.txt"], "total_entries": 1, "truncated": false,
            "unnamed_entries": 0});
        assert!(!render("list_dir", &clean, TextStyle::default()).contains("left out"));
    }
}
