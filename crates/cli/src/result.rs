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
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

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
    if result.get("ok").and_then(Value::as_bool) == Some(true) {
        let text = render(tool, &result, style);
        let mut answer = CallToolResult::success(vec![ContentBlock::text(text)]);
        answer.structured_content = Some(result);
        return answer;
    }
    let message = result
        .get("error")
        .and_then(|e| {
            let kind = e.get("kind").and_then(Value::as_str)?;
            let message = e.get("message").and_then(Value::as_str)?;
            Some(format!("{}: {}", shown::line(kind), shown::lines(message)))
        })
        .unwrap_or_else(|| result.to_string());
    let mut answer = CallToolResult::error(vec![ContentBlock::text(message)]);
    answer.structured_content = Some(result);
    answer
}

fn str_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

fn num(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// The name at `key`, as a reader is shown it.
fn name(value: &Value, key: &str) -> String {
    ShownPath::new(str_of(value, key)).to_string()
}

/// The text at `key` (a message, a pattern, a word), as one line.
fn said<'a>(value: &'a Value, key: &str) -> std::borrow::Cow<'a, str> {
    shown::line(str_of(value, key))
}

fn items<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn plural(n: u64, word: &str) -> String {
    let ending = if ["ch", "sh", "s", "x"].iter().any(|end| word.ends_with(end)) { "es" } else { "s" };
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}{ending}") }
}

/// The text block of a successful result of `tool`.
fn render(tool: &str, result: &Value, style: TextStyle) -> String {
    let mut out = String::new();
    match tool {
        "read_file" => read(&mut out, result, style),
        "read_files" => {
            for (n, item) in items(result, "files").iter().enumerate() {
                if n > 0 {
                    out.push('\n');
                }
                match item.get("file").filter(|f| f.is_object()) {
                    Some(file) => read(&mut out, file, style),
                    None => {
                        let error = item.get("error").unwrap_or(&Value::Null);
                        let _ = writeln!(
                            out,
                            "{}: refused ({}): {}",
                            name(item, "path"),
                            said(error, "kind"),
                            shown::lines(str_of(error, "message"))
                        );
                    }
                }
            }
        }
        "write_file" | "write_python_file" | "write_markdown_file" => {
            let verb = if result.get("created").and_then(Value::as_bool) == Some(true) { "created" } else { "wrote" };
            let size = num(result, "size_bytes").max(num(result, "bytes_written"));
            let _ = writeln!(
                out,
                "{verb} {} ({}) · sha256 {}",
                name(result, "path"),
                plural(size, "byte"),
                str_of(result, "sha256")
            );
            problems(&mut out, result.get("diagnostics"));
        }
        "edit_file" | "edit_python_file" | "insert_lines" | "replace_function" => {
            let dry = result.get("dry_run").and_then(Value::as_bool) == Some(true);
            let verb = match (tool, dry) {
                (_, true) => "would change",
                ("insert_lines", false) => "inserted into",
                _ => "edited",
            };
            let mut line = format!("{verb} {}", name(result, "path"));
            if let Some([first, last]) = result.get("line_range").and_then(Value::as_array).map(|r| {
                [r.first().and_then(Value::as_u64).unwrap_or(0), r.get(1).and_then(Value::as_u64).unwrap_or(0)]
            }) {
                let _ = write!(line, ", lines {first}-{last}");
            }
            if let Some(count) = result.get("replacements").and_then(Value::as_u64)
                && count != 1
            {
                let _ = write!(line, " ({count} replacements)");
            }
            if let Some(rung) = result.get("rung").and_then(Value::as_str)
                && rung != "exact"
            {
                let score = result.get("score").and_then(Value::as_f64).unwrap_or(0.0);
                let _ = write!(line, " (matched with {rung} tolerance, score {score:.2})");
            }
            if let Some(sha) = result.get("sha256").and_then(Value::as_str) {
                let _ = write!(line, " · sha256 {sha}");
            }
            out.push_str(&line);
            out.push('\n');
            diff(&mut out, result);
            problems(&mut out, result.get("diagnostics"));
        }
        "notebook_read" => {
            let cells = items(result, "cells");
            let _ = writeln!(
                out,
                "{} · nbformat {} · {} · sha256 {}",
                name(result, "path"),
                said(result, "nbformat"),
                plural(cells.len() as u64, "cell"),
                said(result, "sha256")
            );
            for cell in cells {
                let _ = write!(
                    out,
                    "--- cell {} · id {} · {}",
                    num(cell, "index"),
                    said(cell, "id"),
                    said(cell, "cell_type")
                );
                if let Some(count) = cell.get("execution_count").and_then(Value::as_i64) {
                    let _ = write!(out, " · execution_count {count}");
                }
                out.push('\n');
                let source = str_of(cell, "source");
                out.push_str(source);
                if !source.is_empty() && !source.ends_with('\n') {
                    out.push('\n');
                }
                let outputs = str_of(cell, "outputs");
                if !outputs.is_empty() {
                    let _ = writeln!(out, "--- outputs ({})\n{}", num(cell, "output_count"), shown::lines(outputs));
                }
            }
        }
        "notebook_edit" => {
            let dry = result.get("dry_run").and_then(Value::as_bool) == Some(true);
            let _ = writeln!(
                out,
                "{}{} cell {} (id {}) of {} · {} · sha256 {}",
                if dry { "would " } else { "" },
                said(result, "action"),
                num(result, "index"),
                said(result, "cell_id"),
                name(result, "path"),
                plural(num(result, "cell_count"), "cell"),
                said(result, "sha256")
            );
            diff(&mut out, result);
        }
        "apply_patch" => {
            let dry = result.get("dry_run").and_then(Value::as_bool) == Some(true);
            let files = items(result, "files");
            let _ = writeln!(
                out,
                "{} {}:",
                if dry { "would patch" } else { "patched" },
                plural(files.len() as u64, "file")
            );
            for file in files {
                let from = file
                    .get("from")
                    .and_then(Value::as_str)
                    .map(|f| format!(" (from {})", ShownPath::new(f)))
                    .unwrap_or_default();
                let _ = writeln!(out, "  {} {}{from}", said(file, "action"), name(file, "path"));
            }
            diff(&mut out, result);
            for file in files {
                problems(&mut out, file.get("diagnostics"));
            }
        }
        "search_files" | "search_code" => {
            let _ = writeln!(
                out,
                "{} in {} of {} searched{}",
                plural(items(result, "results").iter().map(|f| items(f, "matches").len() as u64).sum(), "match"),
                plural(num(result, "files_with_matches"), "file"),
                num(result, "files_searched"),
                if result.get("truncated").and_then(Value::as_bool) == Some(true) {
                    " (cut at max_results: narrow the search or raise max_results)"
                } else {
                    ""
                }
            );
            for file in items(result, "results") {
                let path = name(file, "file");
                for m in items(file, "matches") {
                    for before in items(m, "before") {
                        let _ = writeln!(out, "{path}-{}", before.as_str().unwrap_or(""));
                    }
                    let _ = writeln!(
                        out,
                        "{path}:{}:{}: {}",
                        num(m, "line"),
                        num(m, "column"),
                        str_of(m, "content").trim_end_matches(['\n', '\r'])
                    );
                    for after in items(m, "after") {
                        let _ = writeln!(out, "{path}-{}", after.as_str().unwrap_or(""));
                    }
                }
            }
        }
        "glob" => {
            let matches = items(result, "matches");
            let _ = writeln!(out, "{} matching {}", plural(matches.len() as u64, "file"), said(result, "pattern"));
            for path in matches {
                let _ = writeln!(out, "{}", ShownPath::new(path.as_str().unwrap_or("")));
            }
            truncated(&mut out, result);
        }
        "list_dir" => {
            let _ = writeln!(out, "{}:", name(result, "path"));
            for entry in items(result, "entries") {
                let _ = writeln!(out, "{}", ShownPath::new(entry.as_str().unwrap_or("")));
            }
            truncated(&mut out, result);
            let unnamed = num(result, "unnamed_entries");
            if unnamed > 0 {
                let _ = writeln!(
                    out,
                    "[{} left out: their names are not UTF-8, so no path can name them]",
                    if unnamed == 1 { "1 entry".to_owned() } else { format!("{unnamed} entries") }
                );
            }
        }
        "tree" => {
            let _ = writeln!(out, "{} ({})", name(result, "path"), plural(num(result, "total_files"), "file"));
            for entry in items(result, "entries") {
                let depth = num(entry, "depth").max(1) as usize;
                let path = str_of(entry, "path");
                let last = path.trim_end_matches('/').rsplit('/').next().unwrap_or(path);
                let slash = if path.ends_with('/') { "/" } else { "" };
                let _ = write!(out, "{}{}{slash}", "  ".repeat(depth - 1), ShownPath::new(last));
                let mut notes = Vec::new();
                if let Some(files) = entry.get("files").and_then(Value::as_u64) {
                    notes.push(plural(files, "file"));
                }
                if let Some(size) = entry.get("size").and_then(Value::as_u64) {
                    notes.push(plural(size, "byte"));
                }
                if !notes.is_empty() {
                    let _ = write!(out, " ({})", notes.join(", "));
                }
                out.push('\n');
            }
            truncated(&mut out, result);
        }
        "move" => {
            let _ = writeln!(
                out,
                "moved {} {} to {}{}",
                said(result, "kind"),
                name(result, "from"),
                name(result, "to"),
                if result.get("overwritten").and_then(Value::as_bool) == Some(true) { " (replacing it)" } else { "" }
            );
        }
        "delete" => {
            let _ = writeln!(out, "deleted {} {}", said(result, "deleted"), name(result, "path"));
        }
        "undo_edit" | "undo_patch" => {
            let restored: Vec<String> = items(result, "restored")
                .iter()
                .filter_map(Value::as_str)
                .map(|p| ShownPath::new(p).to_string())
                .collect();
            let _ = writeln!(
                out,
                "restored {} · {} left in the history",
                restored.join(", "),
                plural(num(result, "remaining"), "entry")
            );
        }
        "create_directory" => {
            let created = result.get("created").and_then(Value::as_bool) == Some(true);
            let _ = writeln!(
                out,
                "{} {}",
                if created { "created directory" } else { "directory exists:" },
                name(result, "path")
            );
        }
        "list_roots" => {
            let _ = writeln!(
                out,
                "workspace roots{}:",
                if result.get("read_only").and_then(Value::as_bool) == Some(true) { " (read-only)" } else { "" }
            );
            for root in items(result, "roots") {
                let primary = root.get("primary").and_then(Value::as_bool) == Some(true);
                let _ = writeln!(
                    out,
                    "{}{}",
                    name(root, "path"),
                    if primary { " (primary: relative paths resolve here)" } else { "" }
                );
            }
        }
        "generate_diff" | "editor_diff" => {
            if str_of(result, "diff").is_empty() {
                out.push_str("no difference\n");
            }
            diff(&mut out, result);
        }
        "exists" => {
            let _ = match result.get("kind").and_then(Value::as_str) {
                Some(kind) => writeln!(out, "{} exists ({})", name(result, "path"), shown::line(kind)),
                None => writeln!(out, "{} does not exist", name(result, "path")),
            };
        }
        "file_info" => {
            let _ = write!(
                out,
                "{} · {} · {} · permissions {} · modified {} (Unix time)",
                name(result, "path"),
                said(result, "kind"),
                plural(num(result, "size_bytes"), "byte"),
                said(result, "permissions"),
                result.get("modified_unix").and_then(Value::as_i64).unwrap_or(0)
            );
            if let Some(kind) = result.get("file_type").and_then(Value::as_str) {
                let _ = write!(out, " · {}", shown::line(kind));
            }
            if let Some(lines) = result.get("line_count").and_then(Value::as_u64) {
                let _ = write!(out, " · {}", plural(lines, "line"));
            }
            out.push('\n');
        }
        "check_syntax" => {
            let errors = items(result, "errors");
            if errors.is_empty() {
                let _ = writeln!(out, "{}: no syntax errors", name(result, "path"));
            } else {
                let _ = writeln!(out, "{}: {}", name(result, "path"), plural(errors.len() as u64, "syntax error"));
                for error in errors {
                    let _ = writeln!(
                        out,
                        "  line {}, column {}: {}",
                        num(error, "line"),
                        num(error, "column"),
                        said(error, "message")
                    );
                }
            }
        }
        "file_symbols" => {
            let symbols = items(result, "symbols");
            let _ = writeln!(out, "{}: {}", name(result, "path"), plural(symbols.len() as u64, "symbol"));
            for symbol in symbols {
                let indent = if symbol.get("parent").is_some_and(|p| !p.is_null()) { "    " } else { "  " };
                let _ = writeln!(
                    out,
                    "{indent}{} {} (lines {}-{})",
                    said(symbol, "kind"),
                    said(symbol, "name"),
                    num(symbol, "line"),
                    num(symbol, "end_line")
                );
            }
        }
        _ => {
            let mut copy = result.clone();
            if let Some(map) = copy.as_object_mut() {
                map.remove("ok");
            }
            out = json_text(copy.to_string());
        }
    }
    out
}

/// A read: its header line and its lines.
fn read(out: &mut String, file: &Value, style: TextStyle) {
    let path = name(file, "path");
    let sha = said(file, "sha256");
    if file.get("is_binary").and_then(Value::as_bool) == Some(true) {
        let _ = writeln!(
            out,
            "{path} · binary, {} · sha256 {sha} (no text shown)",
            plural(num(file, "size_bytes"), "byte")
        );
        return;
    }
    let (start, end, total) = (num(file, "start_line"), num(file, "end_line"), num(file, "total_lines"));
    let shown = if total == 0 {
        "empty file".to_owned()
    } else if start == 1 && end == total {
        plural(total, "line")
    } else {
        format!("lines {start}-{end} of {total}")
    };
    let _ = write!(out, "{path} · {shown} · sha256 {sha}");
    let next = file.get("next_offset").and_then(Value::as_u64);
    if let Some(next) = next {
        let _ = write!(out, " · cut at the page size: read on with offset {next}");
    }
    out.push('\n');
    let content = str_of(file, "content");
    if style.line_numbers {
        for (n, line) in content.split_inclusive('\n').enumerate() {
            let _ = write!(out, "{:>6}\t{line}", start as usize + n);
        }
    } else {
        out.push_str(content);
    }
    if !content.is_empty() && !content.ends_with('\n') {
        out.push('\n');
    }
    if let Some(next) = next {
        let _ = writeln!(out, "[{} more lines: call read_file with offset {next}]", total.saturating_sub(end));
    }
}

/// A result's JSON as text: serde_json escapes the C0 controls, `"` and `\`; DEL, the C1
/// controls, the line and paragraph separators and the bidi controls are escaped here too
/// (`\u202e`), so the text holds none of them raw and still reads as the same JSON.
pub(crate) fn json_text(text: String) -> String {
    // A raw newline is the layout of pretty-printed JSON: serde_json escapes those in strings.
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

fn diff(out: &mut String, result: &Value) {
    let diff = str_of(result, "diff");
    if !diff.is_empty() {
        out.push_str(diff);
        if !diff.ends_with('\n') {
            out.push('\n');
        }
    }
    if result.get("diff_truncated").and_then(Value::as_bool) == Some(true) {
        out.push_str("[the diff is cut at its size bound; read the file to see the rest]\n");
    }
}

fn truncated(out: &mut String, result: &Value) {
    if result.get("truncated").and_then(Value::as_bool) == Some(true) {
        out.push_str("[the list is cut at its bound]\n");
    }
}

/// Post-write problems: syntax errors and checkers' reports.
fn problems(out: &mut String, diagnostics: Option<&Value>) {
    let Some(diagnostics) = diagnostics else { return };
    for error in items(diagnostics, "syntax_errors") {
        let _ = writeln!(
            out,
            "syntax error at line {}, column {}: {}",
            num(error, "line"),
            num(error, "column"),
            said(error, "message")
        );
    }
    for checker in items(diagnostics, "checkers") {
        if checker.get("ok").and_then(Value::as_bool) == Some(false) {
            let _ = writeln!(out, "{} reports:\n{}", said(checker, "name"), str_of(checker, "output").trim_end());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(result: &CallToolResult) -> String {
        result.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap_or_default()
    }

    #[test]
    fn a_read_is_the_file_with_a_header_and_numbered_lines() {
        let read = json!({"ok": true, "path": "a.py", "content": "x = 1\ny = \"2\"\n", "sha256": "ab",
            "start_line": 4, "end_line": 5, "total_lines": 9, "next_offset": 6, "is_binary": false});
        let result = tool_result("read_file", read, TextStyle::default());
        assert_eq!(
            text(&result),
            "a.py · lines 4-5 of 9 · sha256 ab · cut at the page size: read on with offset 6\n     4\tx = 1\n     5\ty = \"2\"\n[4 more lines: call read_file with offset 6]\n"
        );
        assert_eq!(result.structured_content.as_ref().and_then(|v| v["content"].as_str()), Some("x = 1\ny = \"2\"\n"));
    }

    #[test]
    fn listings_and_searches_are_plain_lines() {
        let found = json!({"ok": true, "files_searched": 3, "files_with_matches": 1, "truncated": false,
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
        let read = json!({"ok": true, "path": "a", "content": "x\n", "sha256": "ab", "start_line": 1, "end_line": 1, "total_lines": 1});
        assert_eq!(text(&tool_result("read_file", read, plain)), "a · 1 line · sha256 ab\nx\n");
    }

    #[test]
    fn a_notebook_read_is_its_cells() {
        let read = json!({"ok": true, "path": "n.ipynb", "nbformat": "4.5", "sha256": "ab", "cells": [
            {"index": 0, "id": "a1", "cell_type": "markdown", "source": "# T", "execution_count": null,
             "output_count": 0, "outputs": "", "outputs_truncated": false},
            {"index": 1, "id": "b2", "cell_type": "code", "source": "print(1)\n", "execution_count": 3,
             "output_count": 1, "outputs": "[stdout] 1\u{1b}", "outputs_truncated": false}]});
        assert_eq!(
            text(&tool_result("notebook_read", read, TextStyle::default())),
            "n.ipynb · nbformat 4.5 · 2 cells · sha256 ab\n--- cell 0 · id a1 · markdown\n# T\n\
             --- cell 1 · id b2 · code · execution_count 3\nprint(1)\n--- outputs (1)\n[stdout] 1\\033\n"
        );
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
