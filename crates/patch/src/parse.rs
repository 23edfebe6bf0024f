//! Patch text to [`Patch`]: dialect detection and the three parsers.
//!
//! Every parser works on lines with any trailing `\r` removed, reports errors with the
//! 1-based line number of the original text, and never indexes agent input unchecked.

mod model;
mod star;
mod unified;

pub(crate) use model::{
    ADD_FILE, BEGIN_PATCH, DELETE_FILE, END_PATCH, Line, MOVE_FILE, NO_NEWLINE_MARKER, UPDATE_FILE, incomplete,
    join_lines, shorten,
};
pub use model::{Dialect, Hunk, Operation, Patch};

use crate::error::{Error, Result};

/// Largest patch text accepted, in bytes (64 MiB).
pub const MAX_PATCH_BYTES: usize = 64 << 20;

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
