//! Patch text to [`Patch`]: dialect detection and the three parsers.
//!
//! Every parser works on lines with any trailing `\r` removed, reports errors with the
//! 1-based line number of the original text, and never indexes agent input unchecked.

mod star;
mod unified;

use serde::Serialize;

use crate::error::{Error, Result};

/// Largest patch text accepted, in bytes (64 MiB).
pub const MAX_PATCH_BYTES: usize = 64 << 20;

/// The notation a patch was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Dialect {
    /// `*** Update File:` sections with `@@` hunks of `old`, a `===` line, then `new`; add
    /// bodies are plain content.
    Hunks,
    /// The `*** Begin Patch` format of Codex-style agents: ` `/`-`/`+` lines, `@@ anchor`
    /// chunks, `*** Move to:`, `*** End of File`; add bodies are `+` lines.
    BeginPatch,
    /// Unified diffs from `git diff` or `diff -u`.
    Unified,
}

impl Dialect {
    /// The stable snake_case name (`hunks`, `begin_patch`, `unified`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Dialect::Hunks => "hunks",
            Dialect::BeginPatch => "begin_patch",
            Dialect::Unified => "unified",
        }
    }
}

/// A parsed patch: its dialect and its operations in patch order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    dialect: Dialect,
    operations: Vec<Operation>,
    directory: Option<String>,
}

impl Patch {
    /// The dialect the text was written in.
    #[must_use]
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The file operations, in patch order, with their paths as they will be resolved (under
    /// [`Patch::directory`] when the wrapper changed folder).
    #[must_use]
    pub fn operations(&self) -> &[Operation] {
        &self.operations
    }

    /// The folder a `cd DIR && apply_patch <<'EOF'` wrapper changed to; the operations' paths
    /// are already joined to it, and resolved by the workspace's rules like any other path.
    #[must_use]
    pub fn directory(&self) -> Option<&str> {
        self.directory.as_deref()
    }
}

/// One file operation of a patch. Paths are as written in the patch (resolved later).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Operation {
    /// Create a file that must not exist yet.
    Add {
        /// Path of the new file.
        path: String,
        /// Its whole content, LF line endings.
        content: String,
        /// 1-based patch line of the header.
        line: usize,
    },
    /// Delete a file that must exist.
    Delete {
        /// Path of the file.
        path: String,
        /// The content the patch says is deleted (unified diffs with hunks), checked before
        /// deleting so that a file changed since the diff was made is not lost.
        content: Option<String>,
        /// 1-based patch line of the header.
        line: usize,
    },
    /// Change a file that must exist, optionally moving it.
    Update {
        /// Path of the file.
        path: String,
        /// New path, when the file is also moved (the destination must not exist).
        move_to: Option<String>,
        /// The changes, in file order.
        hunks: Vec<Hunk>,
        /// 1-based patch line of the header.
        line: usize,
    },
}

impl Operation {
    /// The path the operation reads or creates first.
    #[must_use]
    pub fn path(&self) -> &str {
        match self {
            Operation::Add { path, .. } | Operation::Delete { path, .. } | Operation::Update { path, .. } => path,
        }
    }

    /// Joins the operation's paths to `dir` (absolute paths stay as written).
    fn rebase(&mut self, dir: &str) {
        let join = |path: &mut String| {
            if !path.starts_with('/') {
                *path = format!("{dir}/{path}");
            }
        };
        match self {
            Operation::Add { path, .. } | Operation::Delete { path, .. } => join(path),
            Operation::Update { path, move_to, .. } => {
                join(path);
                if let Some(to) = move_to {
                    join(to);
                }
            }
        }
    }

    /// 1-based patch line of the operation's header.
    #[must_use]
    pub fn line(&self) -> usize {
        match self {
            Operation::Add { line, .. } | Operation::Delete { line, .. } | Operation::Update { line, .. } => *line,
        }
    }
}

/// One change inside a file: these old lines become these new lines.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Hunk {
    /// Lines to find first, in order (`@@ def f():`); the old lines are searched after the last.
    pub anchors: Vec<String>,
    /// The lines to find (context and removed lines), without terminators.
    pub old: Vec<String>,
    /// The lines to put in their place (context and added lines), without terminators.
    pub new: Vec<String>,
    /// The hunk must end at the end of the file (`*** End of File`).
    pub end_of_file: bool,
    /// 1-based line where the old lines started in the patch author's copy (unified diffs): a
    /// tie-breaker between equally good places, never a requirement.
    pub old_start: Option<usize>,
    /// The old side's last line has no terminator (`\ No newline at end of file`).
    pub old_missing_newline: bool,
    /// The new side's last line has no terminator (`\ No newline at end of file`).
    pub new_missing_newline: bool,
    /// 1-based patch line where the hunk starts.
    pub line: usize,
}

impl Hunk {
    /// The old lines joined, each with a `\n`.
    #[must_use]
    pub fn old_text(&self) -> String {
        join_lines(&self.old)
    }

    /// The new lines joined, each with a `\n`.
    #[must_use]
    pub fn new_text(&self) -> String {
        join_lines(&self.new)
    }

    /// The first non-blank old line (or anchor, or new line), shortened, for messages.
    #[must_use]
    pub fn preview(&self) -> String {
        let line = self
            .old
            .iter()
            .chain(self.anchors.iter())
            .chain(self.new.iter())
            .find(|line| !line.trim().is_empty())
            .map_or("", |line| line.trim());
        shorten(line, 80)
    }
}

pub(crate) fn join_lines(lines: &[String]) -> String {
    let mut out = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
    out
}

pub(crate) fn shorten(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max_chars.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// One line of patch text: its 1-based number and its content without `\r\n`/`\n`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Line<'a> {
    pub(crate) number: usize,
    pub(crate) text: &'a str,
}

/// Parses patch text in any of the three dialects (detected automatically).
///
/// A heredoc wrapper (`apply_patch <<'EOF'` … `EOF`) or a Markdown code fence around the
/// patch is stripped first.
///
/// ```
/// let patch = editkit_patch::parse("*** Begin Patch\n*** Delete File: old.txt\n*** End Patch\n").unwrap();
/// assert_eq!(patch.dialect(), editkit_patch::Dialect::BeginPatch);
/// assert_eq!(patch.operations().len(), 1);
/// ```
///
/// # Errors
/// [`Error::TooLarge`] over [`MAX_PATCH_BYTES`]; [`Error::InvalidPatch`] with the line number;
/// [`Error::EmptyHunk`]; [`Error::NoOperations`] when the text holds no file operation.
pub fn parse(text: &str) -> Result<Patch> {
    parse_as(text, None)
}

/// Parses a patch as [`parse`] does, but in `dialect` when one is given instead of the dialect
/// its markers suggest: for callers that know what wrote the patch (an `*** Add File:` body of
/// `+ item` lines is literal text in the hunk dialect and `+`-prefixed in a Begin Patch one).
///
/// # Errors
/// As [`parse`].
pub fn parse_as(text: &str, dialect: Option<Dialect>) -> Result<Patch> {
    if text.len() > MAX_PATCH_BYTES {
        return Err(Error::TooLarge { size: text.len(), limit: MAX_PATCH_BYTES });
    }
    let all: Vec<Line<'_>> = text
        .split('\n')
        .enumerate()
        .map(|(i, raw)| Line { number: i + 1, text: raw.strip_suffix('\r').unwrap_or(raw) })
        .collect();
    // `split` yields one empty piece after a final newline; it is not a line.
    let all = match all.split_last() {
        Some((last, rest)) if last.text.is_empty() => rest,
        _ => &all[..],
    };
    let wrapped = strip_wrapper(all)?;
    let lines = wrapped.lines;
    let opened =
        lines.iter().find(|l| !l.text.trim().is_empty()).is_some_and(|l| l.text.trim().starts_with(BEGIN_PATCH));
    let dialect = dialect.or_else(|| detect(lines, opened)).ok_or_else(|| {
        match lines.iter().find(|l| !l.text.trim().is_empty()) {
            None => Error::NoOperations,
            Some(first) => Error::InvalidPatch {
                line: first.number,
                reason: "no patch header found; start with `*** Begin Patch`, `*** Update File: <path>` or a unified \
                     diff header `--- a/<path>` / `+++ b/<path>`"
                    .into(),
            },
        }
    })?;
    // The star dialects have an end marker, and nothing else can tell their last hunk or add
    // body whole: a `*** Begin Patch` patch and an `@@`/`===` patch end with `*** End Patch`.
    match dialect {
        Dialect::BeginPatch => require_end_patch(lines, wrapped.last_line, "")?,
        Dialect::Hunks => require_end_patch(
            lines,
            wrapped.last_line,
            " (an `@@`/`===` patch ends with `*** End Patch`: the new text of its last hunk has no other end)",
        )?,
        Dialect::Unified if opened => require_end_patch(lines, wrapped.last_line, "")?,
        Dialect::Unified => {}
    }
    // A header line without its line end is a header cut off (a path half written). A unified
    // diff has no end marker and its counts cannot see a line cut in its middle, so its last
    // line needs its line end too, unless it is the whole `\ No newline at end of file` marker.
    if !text.ends_with('\n')
        && let Some(last) = lines.last()
        && all.last().is_some_and(|end| end.number == last.number)
    {
        if is_header_line(last.text, dialect) || is_cut_marker(last.text, dialect) {
            return Err(incomplete(last.number, "in the middle of a header line"));
        }
        if dialect == Dialect::Unified && last.text != NO_NEWLINE_MARKER {
            return Err(incomplete(
                last.number,
                "without the line end of its last line, so that line may have been cut in its middle (end a \
                 unified diff with a newline)",
            ));
        }
    }
    let operations = match dialect {
        Dialect::Hunks | Dialect::BeginPatch => star::parse(lines, dialect)?,
        Dialect::Unified => unified::parse(lines)?,
    };
    if operations.is_empty() {
        return Err(Error::NoOperations);
    }
    let directory = match wrapped.opener {
        Some(opener) => change_directory(&opener)?,
        None => None,
    };
    let mut operations = operations;
    if let Some(dir) = &directory {
        for operation in &mut operations {
            operation.rebase(dir);
        }
    }
    Ok(Patch { dialect, operations, directory })
}

/// The folder a heredoc wrapper changes to before running the patch command
/// (`cd sub && apply_patch <<'EOF'`, `cd sub; apply_patch <<EOF`), relative to the workspace
/// root; `None` without `cd`. A folder editkit cannot resolve (a variable, `~`, `-`, a glob,
/// a command substitution) is refused: dropping it would edit files of another folder.
fn change_directory(opener: &Line<'_>) -> Result<Option<String>> {
    let command = opener.text.get(..opener.text.find("<<").unwrap_or(opener.text.len())).unwrap_or_default();
    let mut directory: Option<String> = None;
    for part in command.split("&&").flat_map(|part| part.split(';')) {
        let part = part.trim().trim_start_matches('(').trim();
        let Some(rest) = part.strip_prefix("cd ").or_else(|| (part == "cd").then_some("")) else { continue };
        let dir = rest.trim();
        let unquoted = dir
            .strip_prefix('\'')
            .and_then(|d| d.strip_suffix('\''))
            .or_else(|| dir.strip_prefix('"').and_then(|d| d.strip_suffix('"')))
            .unwrap_or(dir);
        let unresolvable = unquoted.is_empty()
            || unquoted == "-"
            || unquoted.starts_with('~')
            || unquoted.contains(['$', '`', '*', '?', '[', ' ', '\'', '"']);
        if unresolvable {
            return Err(Error::InvalidPatch {
                line: opener.number,
                reason: format!(
                    "the wrapper changes to the folder `{}`, which editkit cannot resolve; give the patch's paths \
                     relative to the workspace root, without the `cd`",
                    shorten(dir, 60)
                ),
            });
        }
        let unquoted = unquoted.trim_end_matches('/');
        directory = Some(match directory {
            Some(previous) if !unquoted.starts_with('/') => format!("{previous}/{unquoted}"),
            _ => unquoted.to_owned(),
        });
    }
    Ok(directory.filter(|dir| !dir.is_empty() && dir != "."))
}

/// The patch inside its wrapper, and the wrapper's opening line when there was one.
struct Wrapped<'l, 'a> {
    lines: &'l [Line<'a>],
    /// 1-based number of the last line of the whole text (for messages about its end).
    last_line: usize,
    /// The heredoc's opening line (`cd sub && apply_patch <<'EOF'`), when there was one.
    opener: Option<Line<'a>>,
}

/// The message of a patch that stops before its end.
pub(crate) fn incomplete(line: usize, what: &str) -> Error {
    Error::InvalidPatch {
        line,
        reason: format!("the patch is incomplete: it ends at line {line} {what}; it may have been cut off"),
    }
}

/// Strips a heredoc wrapper (`cmd <<'EOF'` … `EOF`) or a Markdown fence around the patch. An
/// opened wrapper that is never closed means the text was cut off.
fn strip_wrapper<'l, 'a>(lines: &'l [Line<'a>]) -> Result<Wrapped<'l, 'a>> {
    let first = lines.iter().position(|l| !l.text.trim().is_empty());
    let last = lines.iter().rposition(|l| !l.text.trim().is_empty());
    let last_line = last.and_then(|i| lines.get(i)).map_or(lines.len(), |l| l.number);
    let unwrapped = Wrapped { lines, last_line, opener: None };
    let (Some(first), Some(last)) = (first, last) else { return Ok(unwrapped) };
    let (Some(open), Some(close)) = (lines.get(first), lines.get(last)) else { return Ok(unwrapped) };
    let open_text = open.text.trim();
    let close_text = close.text.trim();
    if let Some(word) = heredoc_word(open_text) {
        if first < last && close_text == word {
            return Ok(Wrapped { lines: lines.get(first + 1..last).unwrap_or(lines), last_line, opener: Some(*open) });
        }
        return Err(incomplete(last_line, &format!("without the heredoc's closing `{word}`")));
    }
    if open_text.starts_with("```") {
        if first < last && close_text == "```" {
            return Ok(Wrapped { lines: lines.get(first + 1..last).unwrap_or(lines), last_line, opener: None });
        }
        return Err(incomplete(last_line, "without the closing ``` of its Markdown fence"));
    }
    Ok(unwrapped)
}

/// Whether `text` is a file or section header of `dialect` (not a body line).
fn is_header_line(text: &str, dialect: Dialect) -> bool {
    let t = text.trim();
    match dialect {
        Dialect::Hunks | Dialect::BeginPatch => t.starts_with("***") && t != END_PATCH && t != "*** End of File",
        Dialect::Unified => [
            "diff --git ",
            "--- ",
            "+++ ",
            "rename from",
            "rename to",
            "new file mode",
            "deleted file mode",
            "old mode",
            "new mode",
            "similarity index",
            "index ",
            "@@",
        ]
        .iter()
        .any(|marker| text.starts_with(marker)),
    }
}

/// Whether `text` is the start of a marker line but not the marker (`@`, `==`, `*** Add`).
fn is_cut_marker(text: &str, dialect: Dialect) -> bool {
    let t = text.trim();
    let markers: &[&str] = match dialect {
        Dialect::Hunks | Dialect::BeginPatch => &[
            "@@",
            "===",
            END_PATCH,
            BEGIN_PATCH,
            ADD_FILE,
            UPDATE_FILE,
            DELETE_FILE,
            MOVE_FILE,
            "*** Move to:",
            "*** End of File",
        ],
        Dialect::Unified => &["@@", "diff --git", NO_NEWLINE_MARKER],
    };
    !t.is_empty() && markers.iter().any(|marker| marker.len() > t.len() && marker.starts_with(t))
}

/// A patch in a star dialect (or opened by `*** Begin Patch`) must be closed by
/// `*** End Patch`, as Codex requires: anything else is a patch cut off in the middle.
fn require_end_patch(lines: &[Line<'_>], last_line: usize, why: &str) -> Result<()> {
    let closed = lines.iter().rev().find(|l| !l.text.trim().is_empty()).is_some_and(|l| l.text.trim() == END_PATCH);
    if closed { Ok(()) } else { Err(incomplete(last_line, &format!("without `*** End Patch`{why}"))) }
}

/// The terminator word of a heredoc opener such as `apply_patch <<'EOF'` or `<<-"PATCH"`.
fn heredoc_word(line: &str) -> Option<&str> {
    if line.starts_with("***") || line.starts_with("---") || line.starts_with("@@") {
        return None;
    }
    let at = line.find("<<")?;
    let rest = line.get(at + 2..)?.trim_start_matches('-').trim_start();
    let rest = rest.trim_start_matches(['\'', '"']);
    let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
    let word = rest.get(..end)?;
    (!word.is_empty()).then_some(word)
}

pub(crate) const ADD_FILE: &str = "*** Add File:";
pub(crate) const UPDATE_FILE: &str = "*** Update File:";
pub(crate) const DELETE_FILE: &str = "*** Delete File:";
/// `*** Move File: FROM -> TO`, a section renaming a file (with or without hunks), as the hunk
/// dialect of some agent frameworks writes it; the same as `*** Update File: FROM` followed by
/// `*** Move to: TO`.
pub(crate) const MOVE_FILE: &str = "*** Move File:";
pub(crate) const BEGIN_PATCH: &str = "*** Begin Patch";
pub(crate) const END_PATCH: &str = "*** End Patch";
pub(crate) const NO_NEWLINE_MARKER: &str = "\\ No newline at end of file";

/// The dialect, decided by the first marker: a patch opened by `*** Begin Patch` is a Codex
/// patch (only a `===` line in an update section, which Codex never writes, makes it the hunk
/// dialect); other star-family patches are guessed from their sections.
fn detect(lines: &[Line<'_>], opened: bool) -> Option<Dialect> {
    let is_star = lines.iter().any(|l| {
        let t = l.text.trim();
        t.starts_with(BEGIN_PATCH)
            || t.starts_with(ADD_FILE)
            || t.starts_with(UPDATE_FILE)
            || t.starts_with(DELETE_FILE)
            || t.starts_with(MOVE_FILE)
    });
    if is_star {
        return Some(if star::looks_like_hunks(lines, opened) { Dialect::Hunks } else { Dialect::BeginPatch });
    }
    let unified = lines.windows(2).any(|pair| match pair {
        [a, b] => a.text.starts_with("--- ") && b.text.starts_with("+++ "),
        _ => false,
    }) || lines.iter().any(|l| l.text.starts_with("diff --git ") || l.text.starts_with("@@ -"));
    unified.then_some(Dialect::Unified)
}

#[cfg(test)]
mod tests;
