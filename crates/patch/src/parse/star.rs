//! The two `*** Update File:` dialects: `@@`/`===` hunks and the `*** Begin Patch` format.

use super::{
    ADD_FILE, BEGIN_PATCH, DELETE_FILE, Dialect, END_PATCH, Hunk, Line, MOVE_FILE, Operation, UPDATE_FILE, join_lines,
};
use crate::error::{Error, Result};

const MOVE_TO: &str = "*** Move to:";
const END_OF_FILE: &str = "*** End of File";

/// Whether a star-family patch is in the `@@`/`===` dialect rather than Begin Patch: a `===`
/// line in an update section decides; otherwise any update section, or an opening
/// `*** Begin Patch`, means Begin Patch; a patch of additions only without the opener is in the
/// hunk dialect when an added line lacks the `+` prefix.
pub(super) fn looks_like_hunks(lines: &[Line<'_>], opened: bool) -> bool {
    let mut in_add = false;
    let mut in_update = false;
    let mut any_update = false;
    let mut plain_add_line = false;
    for line in lines {
        let t = line.text.trim();
        if is_section_end(t) {
            in_add = t.starts_with(ADD_FILE);
            in_update = t.starts_with(UPDATE_FILE) || t.starts_with(MOVE_FILE);
            any_update |= in_update;
            continue;
        }
        if in_update && t == "===" && !line.text.starts_with(' ') {
            return true;
        }
        plain_add_line |= in_add && !line.text.is_empty() && !line.text.starts_with('+');
    }
    !opened && !any_update && plain_add_line
}

fn is_section_end(t: &str) -> bool {
    t.starts_with(ADD_FILE)
        || t.starts_with(UPDATE_FILE)
        || t.starts_with(DELETE_FILE)
        || t.starts_with(MOVE_FILE)
        || t.starts_with(END_PATCH)
        || t.starts_with(BEGIN_PATCH)
}

fn header_path(line: &Line<'_>, marker: &str) -> Result<Option<String>> {
    let t = line.text.trim();
    let Some(rest) = t.strip_prefix(marker) else { return Ok(None) };
    let path = rest.trim();
    if path.is_empty() {
        return Err(Error::InvalidPatch { line: line.number, reason: format!("`{marker}` needs a path after it") });
    }
    Ok(Some(path.to_owned()))
}

/// The path an update section changes, and where a `*** Move File: FROM -> TO` header moves it.
fn update_header(line: &Line<'_>) -> Result<Option<(String, Option<String>)>> {
    if let Some(path) = header_path(line, UPDATE_FILE)? {
        return Ok(Some((path, None)));
    }
    let Some(both) = header_path(line, MOVE_FILE)? else { return Ok(None) };
    let mut parts = both.split(" -> ");
    match (parts.next().map(str::trim), parts.next().map(str::trim), parts.next()) {
        (Some(from), Some(to), None) if !from.is_empty() && !to.is_empty() => {
            Ok(Some((from.to_owned(), Some(to.to_owned()))))
        }
        _ => Err(Error::InvalidPatch {
            line: line.number,
            reason: format!("`{MOVE_FILE}` takes `FROM -> TO` (one ` -> ` between two paths), found `{both}`"),
        }),
    }
}

pub(super) fn parse(lines: &[Line<'_>], dialect: Dialect) -> Result<Vec<Operation>> {
    let mut operations = Vec::new();
    let mut i = 0;
    while let Some(line) = lines.get(i) {
        let t = line.text.trim();
        if t.is_empty() || t.starts_with(BEGIN_PATCH) || t.starts_with(END_PATCH) {
            i += 1;
            continue;
        }
        if let Some(path) = header_path(line, ADD_FILE)? {
            let (content, next) = add_body(lines, i + 1, dialect)?;
            operations.push(Operation::Add { path, content, line: line.number });
            i = next;
        } else if let Some(path) = header_path(line, DELETE_FILE)? {
            operations.push(Operation::Delete { path, content: None, line: line.number });
            i += 1;
        } else if let Some((path, move_to)) = update_header(line)? {
            i += 1;
            let mut move_to = move_to;
            if move_to.is_none()
                && let Some(next) = lines.get(i)
                && let Some(to) = header_path(next, MOVE_TO)?
            {
                move_to = Some(to);
                i += 1;
            }
            let (hunks, next) = match dialect {
                Dialect::Hunks => hunks_body(lines, i, &path)?,
                _ => chunks_body(lines, i, &path)?,
            };
            if hunks.is_empty() && move_to.is_none() {
                return Err(Error::InvalidPatch {
                    line: line.number,
                    reason: format!("`*** Update File: {path}` has no hunks; add a change or remove the section"),
                });
            }
            operations.push(Operation::Update { path, move_to, hunks, line: line.number });
            i = next;
        } else {
            let reason = if t.starts_with(MOVE_TO) {
                "`*** Move to:` must directly follow an `*** Update File:` line (or write `*** Move File: FROM -> TO`)"
                    .to_owned()
            } else {
                format!(
                    "expected `*** Add File:`, `*** Update File:`, `*** Delete File:` or `*** End Patch`, found `{}`",
                    super::shorten(t, 60)
                )
            };
            return Err(Error::InvalidPatch { line: line.number, reason });
        }
    }
    Ok(operations)
}

/// The content of an added file: `+` lines (Begin Patch) or plain lines (`@@`/`===` dialect),
/// up to the next section. Trailing empty lines before the next section are separators; in the
/// `@@`/`===` dialect a last line `\ No newline at end of file` instead takes every line before
/// it as written and leaves the last without a line end.
fn add_body(lines: &[Line<'_>], start: usize, dialect: Dialect) -> Result<(String, usize)> {
    let mut body: Vec<String> = Vec::new();
    let mut i = start;
    while let Some(line) = lines.get(i) {
        if is_section_end(line.text.trim()) {
            break;
        }
        let content = if line.text.is_empty() {
            ""
        } else if dialect == Dialect::Hunks {
            line.text
        } else if let Some(rest) = line.text.strip_prefix('+') {
            rest
        } else {
            return Err(Error::InvalidPatch {
                line: line.number,
                reason: format!(
                    "line {} of an added file does not start with `+`; in a `*** Begin Patch` patch every line of \
                     an added file starts with `+` (an empty line is written `+`), found `{}`",
                    line.number,
                    super::shorten(line.text, 60)
                ),
            });
        };
        body.push(content.to_owned());
        i += 1;
    }
    if dialect == Dialect::Hunks {
        while body.last().is_some_and(|l| l.trim().is_empty()) {
            body.pop();
        }
        if body.last().is_some_and(|l| l == super::NO_NEWLINE_MARKER) {
            // `\ No newline at end of file` closes the content as written: every line before
            // it, blank ones too, the last without a line end.
            let mut literal: Vec<&str> = lines.get(start..i).unwrap_or_default().iter().map(|line| line.text).collect();
            while literal.last().is_some_and(|l| *l != super::NO_NEWLINE_MARKER) {
                literal.pop();
            }
            literal.pop();
            return Ok((literal.join("\n"), i));
        }
    } else {
        // Only truly empty lines (no `+`) are separators.
        let explicit =
            lines.get(start..i).map_or(0, |ls| ls.iter().rposition(|l| !l.text.is_empty()).map_or(0, |p| p + 1));
        body.truncate(explicit);
    }
    Ok((join_lines(&body), i))
}

fn is_chunk_header(text: &str) -> bool {
    let t = text.trim_start();
    t == "@@" || t.starts_with("@@ ") || t.starts_with("@@\t")
}

/// Reads `@@ anchor` (or a unified `@@ -l,n +l,n @@` header) into the hunk.
fn chunk_header(hunk: &mut Hunk, text: &str) {
    let rest = text.trim().trim_start_matches("@@").trim();
    if rest.is_empty() {
        return;
    }
    if let Some(start) = super::unified::old_start_of_header(text.trim()) {
        hunk.old_start = Some(start);
        return;
    }
    hunk.anchors.push(rest.to_owned());
}

/// Begin Patch chunks: `@@ [anchor]` lines, then ` `/`-`/`+` lines; `*** End of File` pins
/// the chunk to the end. The first chunk may omit `@@`.
fn chunks_body(lines: &[Line<'_>], start: usize, path: &str) -> Result<(Vec<Hunk>, usize)> {
    let mut hunks = Vec::new();
    let mut current: Option<(Hunk, bool)> = None;
    let mut i = start;
    let finish = |current: Option<(Hunk, bool)>, hunks: &mut Vec<Hunk>| -> Result<()> {
        if let Some((hunk, changed)) = current {
            if !changed {
                return Err(Error::EmptyHunk { path: path.to_owned(), line: hunk.line });
            }
            hunks.push(hunk);
        }
        Ok(())
    };
    while let Some(line) = lines.get(i) {
        let raw = line.text;
        let t = raw.trim();
        if is_section_end(t) {
            break;
        }
        if t == END_OF_FILE {
            match current.as_mut() {
                Some((hunk, _)) => hunk.end_of_file = true,
                None => {
                    return Err(Error::InvalidPatch {
                        line: line.number,
                        reason: "`*** End of File` must follow the lines of a chunk".into(),
                    });
                }
            }
            finish(current.take(), &mut hunks)?;
            i += 1;
            continue;
        }
        if is_chunk_header(raw) {
            let stacked = matches!(&current, Some((hunk, _)) if hunk.old.is_empty() && hunk.new.is_empty());
            if !stacked {
                finish(current.take(), &mut hunks)?;
                current = Some((Hunk { line: line.number, ..Hunk::default() }, false));
            }
            if let Some((hunk, _)) = current.as_mut() {
                chunk_header(hunk, raw);
            }
            i += 1;
            continue;
        }
        if raw.is_empty() {
            // A run of empty lines is decided once: separators before the next section or
            // chunk, or blank context lines.
            let run_end = lines
                .get(i..)
                .and_then(|rest| rest.iter().position(|l| !l.text.is_empty()))
                .map_or(lines.len(), |p| i + p);
            if only_separators_follow(lines, i) {
                i = run_end;
                continue;
            }
            let (hunk, _) = current.get_or_insert_with(|| (Hunk { line: line.number, ..Hunk::default() }, false));
            for _ in i..run_end {
                hunk.old.push(String::new());
                hunk.new.push(String::new());
            }
            i = run_end;
            continue;
        }
        let (hunk, changed) = current.get_or_insert_with(|| (Hunk { line: line.number, ..Hunk::default() }, false));
        match raw.chars().next() {
            None => {
                hunk.old.push(String::new());
                hunk.new.push(String::new());
            }
            Some(' ') => {
                let rest = raw.get(1..).unwrap_or_default();
                hunk.old.push(rest.to_owned());
                hunk.new.push(rest.to_owned());
            }
            Some('-') => {
                hunk.old.push(raw.get(1..).unwrap_or_default().to_owned());
                *changed = true;
            }
            Some('+') => {
                hunk.new.push(raw.get(1..).unwrap_or_default().to_owned());
                *changed = true;
            }
            Some(_) => {
                return Err(Error::InvalidPatch {
                    line: line.number,
                    reason: format!(
                        "expected a line starting with ` ` (context), `-` (removed), `+` (added) or `@@`, found `{}`",
                        super::shorten(raw, 60)
                    ),
                });
            }
        }
        i += 1;
    }
    finish(current, &mut hunks)?;
    Ok((hunks, i))
}

/// Whether only empty lines stand between line `i` and the next section, chunk or the end.
fn only_separators_follow(lines: &[Line<'_>], i: usize) -> bool {
    let rest = lines.get(i..).unwrap_or_default();
    match rest.iter().find(|l| !l.text.is_empty()) {
        None => true,
        Some(next) => is_section_end(next.text.trim()) || is_chunk_header(next.text),
    }
}

/// `@@`/`===` hunks: `@@ [anchor]`, old lines, a `===` line, new lines, up to the next `@@` or
/// section.
fn hunks_body(lines: &[Line<'_>], start: usize, path: &str) -> Result<(Vec<Hunk>, usize)> {
    let mut hunks = Vec::new();
    // The hunk being read and whether its `===` was seen.
    let mut current: Option<(Hunk, bool)> = None;
    let mut i = start;
    let finish = |current: Option<(Hunk, bool)>, hunks: &mut Vec<Hunk>, at_end: Option<usize>| -> Result<()> {
        let Some((mut hunk, separated)) = current else { return Ok(()) };
        if !separated {
            if let Some(last) = at_end {
                return Err(super::incomplete(
                    last,
                    &format!("inside the hunk of line {} before its `===` line", hunk.line),
                ));
            }
            return Err(Error::InvalidPatch {
                line: hunk.line,
                reason: "hunk has no `===` line between the old and the new text".into(),
            });
        }
        // Blank lines after the new text separate hunks, unless the old text ends the same way.
        let old_blank = hunk.old.iter().rev().take_while(|l| l.trim().is_empty()).count();
        let new_blank = hunk.new.iter().rev().take_while(|l| l.trim().is_empty()).count();
        let keep = hunk.new.len() - new_blank.saturating_sub(old_blank);
        hunk.new.truncate(keep);
        if hunk.old == hunk.new {
            return Err(Error::EmptyHunk { path: path.to_owned(), line: hunk.line });
        }
        hunks.push(hunk);
        Ok(())
    };
    while let Some(line) = lines.get(i) {
        let raw = line.text;
        let t = raw.trim();
        if is_section_end(t) {
            break;
        }
        if is_chunk_header(raw) {
            let stacked = matches!(&current, Some((hunk, false)) if hunk.old.is_empty());
            if !stacked {
                finish(current.take(), &mut hunks, None)?;
                current = Some((Hunk { line: line.number, ..Hunk::default() }, false));
            }
            if let Some((hunk, _)) = current.as_mut() {
                chunk_header(hunk, raw);
            }
        } else if t == "===" && matches!(current, Some((_, false))) {
            if let Some((_, separated)) = current.as_mut() {
                *separated = true;
            }
        } else if current.is_none() && t.is_empty() {
            // Blank lines before the first hunk.
        } else {
            let (hunk, separated) =
                current.get_or_insert_with(|| (Hunk { line: line.number, ..Hunk::default() }, false));
            if *separated { hunk.new.push(raw.to_owned()) } else { hunk.old.push(raw.to_owned()) }
        }
        i += 1;
    }
    let at_end = (i >= lines.len()).then(|| lines.last().map_or(0, |l| l.number));
    finish(current, &mut hunks, at_end)?;
    Ok((hunks, i))
}
