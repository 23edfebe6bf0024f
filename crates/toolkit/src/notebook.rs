//! Jupyter notebooks (nbformat 4) read and changed a cell at a time, as JSON text.
//!
//! A notebook is parsed twice over the same text: once into values (the cells' contents) and
//! once by `scan` into byte ranges (where each cell, and each of a cell's members, stands).
//! A change is a few `(range, text)` splices inside the changed cell, or one splice inserting
//! or removing a whole cell, written in the notebook's own indentation; every byte outside
//! them is kept, so the file's key order, indentation and line endings stay as they were. No
//! I/O here: the toolkit reads and writes (`notebook_tools.rs`).

use std::ops::Range;

use serde_json::{Map, Value};

/// Most cells a notebook may hold for the notebook tools.
pub const MAX_CELLS: usize = 10_000;
/// Largest cell source a notebook tool takes or writes, in bytes.
pub const MAX_SOURCE_BYTES: usize = 1 << 20;
/// Largest `max_output_chars` a `notebook_read` may ask for (characters of output summary per
/// cell).
pub const MAX_OUTPUT_CHARS: usize = 20_000;
/// Nesting depth past which the scanner refuses (serde_json refuses past 128 too).
const MAX_DEPTH: usize = 128;

/// Why a notebook could not be read or changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file is not an nbformat 4 notebook.
    #[error("not an nbformat 4 notebook: {reason}; notebook tools read and write .ipynb files only")]
    NotNotebook {
        /// What is wrong with it.
        reason: String,
    },
    /// No cell has this id, or the index is past the last cell.
    #[error("no cell {cell} in the notebook, which has {count} cells{}; read it with notebook_read for the cells' ids", if ids.is_empty() { String::new() } else { format!(" (ids {ids})") })]
    NoCell {
        /// The cell asked for, as given (`id "x"` or `index 7`).
        cell: String,
        /// How many cells the notebook has.
        count: usize,
        /// The first ids, comma-separated.
        ids: String,
    },
    /// The notebook holds more cells than the tools take.
    #[error("the notebook has {count} cells, over the limit of {limit} (`MAX_CELLS`); edit it as JSON with edit_file")]
    TooManyCells {
        /// Cells in the notebook (or after the change).
        count: usize,
        /// [`MAX_CELLS`].
        limit: usize,
    },
    /// A cell source over [`MAX_SOURCE_BYTES`].
    #[error(
        "the cell source is {size} bytes, over the limit of {limit} bytes (`MAX_SOURCE_BYTES`); split it over several cells"
    )]
    SourceTooLarge {
        /// Its size in bytes.
        size: usize,
        /// [`MAX_SOURCE_BYTES`].
        limit: usize,
    },
}

/// A cell's type in nbformat 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `code`.
    Code,
    /// `markdown`.
    Markdown,
    /// `raw`.
    Raw,
}

impl Kind {
    /// The nbformat word.
    #[must_use]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Kind::Code => "code",
            Kind::Markdown => "markdown",
            Kind::Raw => "raw",
        }
    }
}

/// One cell: where it stands in the text and what it holds.
#[derive(Debug, Clone)]
pub(crate) struct Cell {
    /// The cell object's bytes in the notebook text.
    pub(crate) range: Range<usize>,
    /// Its members: key, value range.
    members: Vec<(String, Range<usize>)>,
    /// The cell as a value.
    pub(crate) value: Map<String, Value>,
    /// Its id: the nbformat 4.5 `id`, or `cell-<index>` when the cell has none.
    pub(crate) id: String,
    /// Whether `id` is positional (the cell has no `id` of its own).
    pub(crate) positional_id: bool,
}

impl Cell {
    /// `cell_type`, as written.
    #[must_use]
    pub(crate) fn cell_type(&self) -> &str {
        self.value.get("cell_type").and_then(Value::as_str).unwrap_or("")
    }

    /// The source as one text (nbformat's list of lines joined).
    #[must_use]
    pub(crate) fn source(&self) -> String {
        multiline(self.value.get("source"))
    }

    /// `execution_count` of a code cell.
    #[must_use]
    pub(crate) fn execution_count(&self) -> Option<i64> {
        self.value.get("execution_count").and_then(Value::as_i64)
    }

    /// `outputs` of a code cell.
    #[must_use]
    pub(crate) fn outputs(&self) -> &[Value] {
        self.value.get("outputs").and_then(Value::as_array).map_or(&[], Vec::as_slice)
    }

    fn member(&self, key: &str) -> Option<&Range<usize>> {
        self.members.iter().find(|(name, _)| name == key).map(|(_, range)| range)
    }
}

/// A parsed notebook: its cells with their places in the text.
#[derive(Debug, Clone)]
pub(crate) struct Notebook<'a> {
    text: &'a str,
    /// `nbformat_minor`.
    pub(crate) minor: u64,
    /// The `cells` array's bytes, brackets included.
    cells_range: Range<usize>,
    /// The cells in order.
    pub(crate) cells: Vec<Cell>,
    /// One level of indentation (`None`: the notebook is written on one line).
    unit: Option<String>,
}

/// A change to a notebook's text: splices on sorted, disjoint ranges.
pub(crate) type Splices = Vec<(Range<usize>, String)>;

impl<'a> Notebook<'a> {
    /// Parses `text`, which must be an nbformat 4 notebook with at most [`MAX_CELLS`] cells.
    ///
    /// # Errors
    /// [`Error::NotNotebook`] for text that is not JSON or not nbformat 4,
    /// [`Error::TooManyCells`].
    pub(crate) fn parse(text: &'a str) -> Result<Notebook<'a>, Error> {
        let not = |reason: String| Error::NotNotebook { reason };
        let value = crate::json::parse(text.as_bytes()).map_err(|e| not(e.to_string()))?;
        let Value::Object(root) = value else { return Err(not("the top level is not a JSON object".into())) };
        match root.get("nbformat").and_then(Value::as_u64) {
            Some(4) => {}
            Some(other) => {
                return Err(not(format!("it is nbformat {other}; convert it with `jupyter nbconvert --to notebook`")));
            }
            None => return Err(not("it has no `nbformat` number".into())),
        }
        let minor = root.get("nbformat_minor").and_then(Value::as_u64).unwrap_or(0);
        let Some(Value::Array(cell_values)) = root.get("cells") else {
            return Err(not("it has no `cells` list".into()));
        };
        if cell_values.len() > MAX_CELLS {
            return Err(Error::TooManyCells { count: cell_values.len(), limit: MAX_CELLS });
        }
        let scanner = Scanner { text: text.as_bytes() };
        let start = scanner.skip_ws(0);
        let root_members = scanner.members(start, 0).map_err(not)?;
        let cells_range = root_members
            .iter()
            .find(|(key, _)| key == "cells")
            .map(|(_, range)| range.clone())
            .ok_or_else(|| not("it has no `cells` list".into()))?;
        let spans = scanner.elements(cells_range.start, 1).map_err(not)?;
        if spans.len() != cell_values.len() {
            return Err(not("its `cells` list could not be located in the text".into()));
        }
        let mut cells = Vec::with_capacity(spans.len());
        for (index, (range, value)) in spans.into_iter().zip(cell_values).enumerate() {
            let Value::Object(value) = value else {
                return Err(not(format!("cell {index} is not a JSON object")));
            };
            let members = scanner.members(range.start, 2).map_err(not)?;
            let own = value.get("id").and_then(Value::as_str).map(str::to_owned);
            cells.push(Cell {
                range,
                members,
                value: value.clone(),
                positional_id: own.is_none(),
                id: own.unwrap_or_else(|| format!("cell-{index}")),
            });
        }
        let unit = indent_unit(text, &cells, &root_members);
        Ok(Notebook { text, minor, cells_range, cells, unit })
    }

    /// `4.<minor>`.
    #[must_use]
    pub(crate) fn version(&self) -> String {
        format!("4.{}", self.minor)
    }

    /// Whether cells carry ids (nbformat 4.5 and later).
    #[must_use]
    pub(crate) fn has_ids(&self) -> bool {
        self.minor >= 5
    }

    /// The index of the cell `cell_id` names (its own id first, else a positional one) or
    /// `index` names.
    ///
    /// # Errors
    /// [`Error::NoCell`].
    pub(crate) fn find(&self, cell_id: Option<&str>, index: Option<usize>) -> Result<usize, Error> {
        let found = match (cell_id, index) {
            (Some(id), _) => self
                .cells
                .iter()
                .position(|c| !c.positional_id && c.id == id)
                .or_else(|| self.cells.iter().position(|c| c.positional_id && c.id == id)),
            (None, Some(index)) => (index < self.cells.len()).then_some(index),
            (None, None) => None,
        };
        found.ok_or_else(|| {
            let cell = match (cell_id, index) {
                (Some(id), _) => format!("with id `{}`", crate::shown::line(id)),
                (None, Some(index)) => format!("at index {index}"),
                (None, None) => "named".into(),
            };
            let ids: Vec<&str> = self.cells.iter().take(20).map(|c| c.id.as_str()).collect();
            let more = if self.cells.len() > 20 { ", ..." } else { "" };
            Error::NoCell { cell, count: self.cells.len(), ids: format!("{}{more}", ids.join(", ")) }
        })
    }

    /// The indentation of the line `at` stands on, when only whitespace precedes it there.
    fn indent_at(&self, at: usize) -> Option<&str> {
        let line_start = self.text[..at].rfind('\n').map_or(0, |i| i + 1);
        let before = &self.text[line_start..at];
        before.chars().all(|c| c == ' ' || c == '\t').then_some(before)
    }

    /// `value` as JSON text in the notebook's style, its later lines indented from `base`.
    fn render(&self, value: &Value, base: &str) -> String {
        let Some(unit) = &self.unit else { return value.to_string() };
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
        let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
        // Serialising a `Value` to memory cannot fail.
        serde::Serialize::serialize(value, &mut serializer).expect("a JSON value serialises");
        let text = String::from_utf8(out).expect("serde_json writes UTF-8");
        text.replace('\n', &format!("\n{base}"))
    }

    /// The splices that give cell `index` the source `source` (and type `kind`): the cell's
    /// own members are replaced in place when its type stays, the whole cell is written again
    /// when it changes; a code cell's outputs and execution count are cleared.
    #[must_use]
    pub(crate) fn replace(&self, index: usize, source: &str, kind: Kind) -> Splices {
        let cell = &self.cells[index];
        let same_kind = cell.cell_type() == kind.as_str();
        let has_members = ["source", "outputs", "execution_count"]
            .iter()
            .all(|key| kind != Kind::Code || *key == "source" || cell.member(key).is_some());
        if same_kind && has_members && cell.member("source").is_some() {
            let mut splices = Vec::new();
            for (key, range) in &cell.members {
                let new = match key.as_str() {
                    "source" => {
                        let as_string = cell.value.get("source").is_some_and(Value::is_string);
                        let base = self.indent_at(key_line_start(self.text, range.start)).unwrap_or("");
                        self.render(&source_value(source, as_string), base)
                    }
                    "outputs" if kind == Kind::Code => "[]".to_owned(),
                    "execution_count" if kind == Kind::Code => "null".to_owned(),
                    _ => continue,
                };
                if self.text[range.clone()] != new {
                    splices.push((range.clone(), new));
                }
            }
            splices.sort_by_key(|(range, _)| range.start);
            return splices;
        }
        let mut value = Map::new();
        for key in ["id", "metadata"] {
            if let Some(kept) = cell.value.get(key) {
                value.insert(key.into(), kept.clone());
            }
        }
        if kind != Kind::Code
            && let Some(attachments) = cell.value.get("attachments")
        {
            value.insert("attachments".into(), attachments.clone());
        }
        let value = new_cell(value, source, kind);
        let base = self.indent_at(cell.range.start).unwrap_or("");
        vec![(cell.range.clone(), self.render(&value, base))]
    }

    /// The splice that inserts a new cell before (`after: false`) or after cell `index`, and
    /// the new cell's id (generated for nbformat 4.5 and later, positional before).
    ///
    /// # Errors
    /// [`Error::TooManyCells`] when the notebook already holds [`MAX_CELLS`].
    pub(crate) fn insert(
        &self,
        index: usize,
        after: bool,
        source: &str,
        kind: Kind,
    ) -> Result<(Splices, String), Error> {
        if self.cells.len() >= MAX_CELLS {
            return Err(Error::TooManyCells { count: self.cells.len() + 1, limit: MAX_CELLS });
        }
        let new_index = if self.cells.is_empty() { 0 } else { index + usize::from(after) };
        let mut value = Map::new();
        let id = if self.has_ids() {
            let id = self.fresh_id(source, new_index);
            value.insert("id".into(), Value::String(id.clone()));
            id
        } else {
            format!("cell-{new_index}")
        };
        value.insert("metadata".into(), Value::Object(Map::new()));
        let value = new_cell(value, source, kind);
        let open = self.cells_range.start + 1;
        let close = self.cells_range.end - 1;
        let Some(first) = self.cells.first() else {
            // An empty list: the cell goes one level deeper than the line of `"cells"`.
            let outer = self.indent_at(key_line_start(self.text, self.cells_range.start)).unwrap_or("").to_owned();
            let text = match &self.unit {
                Some(unit) => {
                    let base = format!("{outer}{unit}");
                    format!("\n{base}{}\n{outer}", self.render(&value, &base))
                }
                None => self.render(&value, ""),
            };
            return Ok((vec![(open..close, text)], id));
        };
        // Cells are separated as the first is set off from the `[`.
        let lead = &self.text[open..first.range.start];
        let base = self.indent_at(first.range.start).unwrap_or("");
        let rendered = self.render(&value, base);
        let cell = &self.cells[index];
        let splice = if after {
            (cell.range.end..cell.range.end, format!(",{lead}{rendered}"))
        } else {
            (cell.range.start..cell.range.start, format!("{rendered},{lead}"))
        };
        Ok((vec![splice], id))
    }

    /// The splice that removes cell `index` with one separator.
    #[must_use]
    pub(crate) fn delete(&self, index: usize) -> Splices {
        let cells = &self.cells;
        let range = if cells.len() == 1 {
            self.cells_range.start + 1..self.cells_range.end - 1
        } else if index + 1 < cells.len() {
            cells[index].range.start..cells[index + 1].range.start
        } else {
            cells[index - 1].range.end..cells[index].range.end
        };
        vec![(range, String::new())]
    }

    /// The splices that give cell `index` the source `source`, keeping its type.
    #[must_use]
    pub(crate) fn set_source(&self, index: usize, source: &str) -> Splices {
        let kind = match self.cells[index].cell_type() {
            "code" => Kind::Code,
            "raw" => Kind::Raw,
            _ => Kind::Markdown,
        };
        self.replace(index, source, kind)
    }

    /// An id no cell has: eight hex digits, as nbformat makes them, derived from the cell.
    fn fresh_id(&self, source: &str, index: usize) -> String {
        (0u32..)
            .map(|attempt| {
                let seed = format!("{attempt}\0{index}\0{}\0{source}", self.cells.len());
                editkit_vfs::Sha256::of(seed.as_bytes()).to_string()[..8].to_owned()
            })
            .find(|id| self.cells.iter().all(|c| &c.id != id))
            .expect("some attempt gives an unused id")
    }
}

/// A new cell: `value`'s members plus the type, the source and, for code, no outputs.
fn new_cell(mut value: Map<String, Value>, source: &str, kind: Kind) -> Value {
    value.insert("cell_type".into(), Value::String(kind.as_str().into()));
    value.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    value.insert("source".into(), source_value(source, false));
    if kind == Kind::Code {
        value.insert("execution_count".into(), Value::Null);
        value.insert("outputs".into(), Value::Array(Vec::new()));
    }
    // nbformat writes keys sorted; so does a `Map` without `preserve_order`.
    let mut sorted: Vec<(String, Value)> = value.into_iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    Value::Object(sorted.into_iter().collect())
}

/// A source as nbformat writes it: a list of lines, each but the last with its `\n` (or one
/// string, when the cell had one).
fn source_value(source: &str, as_string: bool) -> Value {
    if as_string {
        return Value::String(source.to_owned());
    }
    Value::Array(source.split_inclusive('\n').map(|line| Value::String(line.to_owned())).collect())
}

/// nbformat's multiline string (one string or a list of them) as one text.
fn multiline(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(lines)) => lines.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

/// Where the key of the member whose value starts at `value_start` stands: the indentation
/// is that of its line.
fn key_line_start(text: &str, value_start: usize) -> usize {
    let line_start = text[..value_start].rfind('\n').map_or(0, |i| i + 1);
    line_start + text[line_start..value_start].len() - text[line_start..value_start].trim_start().len()
}

/// One level of indentation: the step from a cell's line to its first member's, else from
/// the top level's line to its first member's; `None` when the notebook is on one line.
fn indent_unit(text: &str, cells: &[Cell], root: &[(String, Range<usize>)]) -> Option<String> {
    if !text.contains('\n') {
        return None;
    }
    let indent = |at: usize| {
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        text[line_start..at].chars().take_while(|c| *c == ' ' || *c == '\t').collect::<String>()
    };
    let step = |outer: usize, inner: usize| {
        let (outer, inner) = (indent(outer), indent(inner));
        inner.strip_prefix(outer.as_str()).filter(|step| !step.is_empty()).map(str::to_owned)
    };
    cells
        .iter()
        .find_map(|cell| cell.members.first().and_then(|(_, range)| step(cell.range.start, range.start)))
        .or_else(|| root.first().and_then(|(_, range)| step(0, range.start)))
        .or_else(|| Some(" ".into()))
}

/// A summary of `outputs` in at most `max_chars` characters: text shown (ANSI colours taken
/// out), images and other data named with their size, never inlined.
#[must_use]
pub(crate) fn summarise_outputs(outputs: &[Value], max_chars: usize) -> (String, bool) {
    let mut parts = Vec::new();
    for output in outputs {
        let kind = output.get("output_type").and_then(Value::as_str).unwrap_or("unknown");
        match kind {
            "stream" => {
                let name = output.get("name").and_then(Value::as_str).unwrap_or("stream");
                parts.push(format!("[{name}] {}", plain(&multiline(output.get("text")))));
            }
            "execute_result" | "display_data" => {
                let mut part = format!("[{kind}]");
                if let Some(Value::Object(data)) = output.get("data") {
                    for (mime, content) in data {
                        if mime == "text/plain" {
                            part.push_str(&format!(" {}", plain(&multiline(Some(content)))));
                        } else {
                            let size = match content {
                                Value::String(_) | Value::Array(_) => multiline(Some(content)).len(),
                                other => other.to_string().len(),
                            };
                            part.push_str(&format!(" <{mime}, {size} bytes, not shown>"));
                        }
                    }
                }
                parts.push(part);
            }
            "error" => {
                let name = output.get("ename").and_then(Value::as_str).unwrap_or("");
                let value = output.get("evalue").and_then(Value::as_str).unwrap_or("");
                let lines = output.get("traceback").and_then(Value::as_array).map_or(0, Vec::len);
                parts.push(format!("[error] {name}: {} (traceback of {lines} lines not shown)", plain(value)));
            }
            other => parts.push(format!("[{other}]")),
        }
    }
    let whole = parts.join("\n");
    let count = whole.chars().count();
    if count <= max_chars {
        return (whole, false);
    }
    let kept: String = whole.chars().take(max_chars).collect();
    (format!("{kept}… ({} more characters)", count - max_chars), true)
}

/// `text` without ANSI escape sequences and with its last line end dropped.
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ parameters final-byte.
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out.trim_end_matches('\n').to_owned()
}

/// An object's members: each key with its value's range.
type Members = Vec<(String, Range<usize>)>;

/// Finds where JSON values stand in text already known to be JSON.
struct Scanner<'t> {
    text: &'t [u8],
}

impl Scanner<'_> {
    fn skip_ws(&self, mut at: usize) -> usize {
        while at < self.text.len() && matches!(self.text[at], b' ' | b'\t' | b'\n' | b'\r') {
            at += 1;
        }
        at
    }

    /// The end of the string starting at `at` (its opening quote).
    fn string_end(&self, at: usize) -> Result<usize, String> {
        let mut i = at + 1;
        while i < self.text.len() {
            match self.text[i] {
                b'\\' => i += 2,
                b'"' => return Ok(i + 1),
                _ => i += 1,
            }
        }
        Err("a string is not closed".into())
    }

    /// The end of the value starting at `at`.
    fn value_end(&self, at: usize, depth: usize) -> Result<usize, String> {
        if depth > MAX_DEPTH {
            return Err(format!("it nests deeper than {MAX_DEPTH} levels"));
        }
        match self.text.get(at) {
            Some(b'"') => self.string_end(at),
            Some(b'{') => Ok(self.members_end(at, depth)?.1),
            Some(b'[') => Ok(self.elements_end(at, depth)?.1),
            Some(_) => {
                let mut i = at;
                while i < self.text.len() && !matches!(self.text[i], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                {
                    i += 1;
                }
                Ok(i)
            }
            None => Err("the text ends early".into()),
        }
    }

    fn members_end(&self, at: usize, depth: usize) -> Result<(Members, usize), String> {
        let mut members = Vec::new();
        let mut i = self.skip_ws(at + 1);
        if self.text.get(i) == Some(&b'}') {
            return Ok((members, i + 1));
        }
        loop {
            let key_end = self.string_end(i)?;
            let key: String = serde_json::from_slice(&self.text[i..key_end]).map_err(|e| e.to_string())?;
            i = self.skip_ws(key_end);
            if self.text.get(i) != Some(&b':') {
                return Err("a key has no value".into());
            }
            let start = self.skip_ws(i + 1);
            let end = self.value_end(start, depth + 1)?;
            members.push((key, start..end));
            i = self.skip_ws(end);
            match self.text.get(i) {
                Some(b',') => i = self.skip_ws(i + 1),
                Some(b'}') => return Ok((members, i + 1)),
                _ => return Err("an object is not closed".into()),
            }
        }
    }

    fn elements_end(&self, at: usize, depth: usize) -> Result<(Vec<Range<usize>>, usize), String> {
        let mut elements = Vec::new();
        let mut i = self.skip_ws(at + 1);
        if self.text.get(i) == Some(&b']') {
            return Ok((elements, i + 1));
        }
        loop {
            let end = self.value_end(i, depth + 1)?;
            elements.push(i..end);
            i = self.skip_ws(end);
            match self.text.get(i) {
                Some(b',') => i = self.skip_ws(i + 1),
                Some(b']') => return Ok((elements, i + 1)),
                _ => return Err("a list is not closed".into()),
            }
        }
    }

    /// The members of the object at `at`, each with its value's range.
    fn members(&self, at: usize, depth: usize) -> Result<Members, String> {
        if self.text.get(at) != Some(&b'{') {
            return Err("an object was expected".into());
        }
        Ok(self.members_end(at, depth)?.0)
    }

    /// The elements of the list at `at`.
    fn elements(&self, at: usize, depth: usize) -> Result<Vec<Range<usize>>, String> {
        if self.text.get(at) != Some(&b'[') {
            return Err("`cells` is not a list".into());
        }
        Ok(self.elements_end(at, depth)?.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NB: &str = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 3,\n   \"id\": \"a1\",\n   \"metadata\": {},\n   \"outputs\": [\n    {\n     \"name\": \"stdout\",\n     \"output_type\": \"stream\",\n     \"text\": [\n      \"hi\\n\"\n     ]\n    }\n   ],\n   \"source\": [\n    \"print('hi')\"\n   ]\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";

    fn apply(text: &str, splices: &Splices) -> String {
        let mut out = text.to_owned();
        for (range, new) in splices.iter().rev() {
            out.replace_range(range.clone(), new);
        }
        out
    }

    #[test]
    fn a_replaced_code_cell_loses_its_outputs() {
        let notebook = Notebook::parse(NB).unwrap();
        let out = apply(NB, &notebook.replace(0, "x = 1\ny = 2\n", Kind::Code));
        assert!(out.contains("\"execution_count\": null,"), "{out}");
        assert!(out.contains("\"outputs\": [],"), "{out}");
        assert!(out.contains("   \"source\": [\n    \"x = 1\\n\",\n    \"y = 2\\n\"\n   ]\n"), "{out}");
    }

    #[test]
    fn insert_and_delete_round_trip() {
        let notebook = Notebook::parse(NB).unwrap();
        let (splices, id) = notebook.insert(0, true, "# T", Kind::Markdown).unwrap();
        let out = apply(NB, &splices);
        let again = Notebook::parse(&out).unwrap();
        assert_eq!(again.cells.len(), 2);
        assert_eq!(again.cells[1].id, id);
        assert_eq!(apply(&out, &again.delete(1)), NB);
        let (splices, _) = notebook.insert(0, false, "", Kind::Raw).unwrap();
        let out = apply(NB, &splices);
        let again = Notebook::parse(&out).unwrap();
        assert_eq!(apply(&out, &again.delete(0)), NB);
        let emptied = apply(NB, &notebook.delete(0));
        assert!(emptied.contains("\"cells\": [],"), "{emptied}");
        let empty = Notebook::parse(&emptied).unwrap();
        let (splices, _) = empty.insert(0, false, "print('hi')", Kind::Code).unwrap();
        assert!(Notebook::parse(&apply(&emptied, &splices)).is_ok());
    }

    #[test]
    fn outputs_are_summarised_within_bounds() {
        let outputs: Vec<Value> = serde_json::from_str(
            r#"[{"output_type": "display_data", "data": {"image/png": "AAAA", "text/plain": ["<Figure>"]}, "metadata": {}},
                {"output_type": "error", "ename": "E", "evalue": "\u001b[31mbad\u001b[0m", "traceback": ["a", "b"]}]"#,
        )
        .unwrap();
        let (summary, cut) = summarise_outputs(&outputs, 1000);
        assert!(!cut);
        assert_eq!(
            summary,
            "[display_data] <image/png, 4 bytes, not shown> <Figure>\n[error] E: bad (traceback of 2 lines not shown)"
        );
        let (summary, cut) = summarise_outputs(&outputs, 10);
        assert!(cut && summary.starts_with("[display_d"), "{summary}");
    }
}
