//! Unified diffs (`git diff`, `diff -u`): `---`/`+++` headers, `@@ -l,n +l,n @@` hunks,
//! `/dev/null` for additions and deletions, `rename from`/`rename to`.
//!
//! Hunk counts are honoured while they last but agents' counts drift, so a hunk also goes on
//! while lines look like hunk lines; line numbers are kept only as a hint.

use super::{Hunk, Line, Operation, join_lines};
use crate::error::{Error, Result};

/// One file's section, gathered before it becomes an [`Operation`].
#[derive(Debug, Default)]
struct Section {
    line: usize,
    /// Paths from `diff --git a/x b/y`, used when no `---`/`+++` follow.
    git_paths: Option<(String, String)>,
    /// Whether a `diff --git` line opened the section (then `a/`/`b/` prefixes are certain).
    git: bool,
    old_path: Option<Option<String>>,
    new_path: Option<Option<String>>,
    rename_from: Option<String>,
    rename_to: Option<String>,
    new_file: bool,
    deleted_file: bool,
    /// `old mode`/`new mode` lines: a section that may rightly have no hunks.
    mode_change: bool,
    /// An `index a..b` line with two blobs, or a `similarity index` under 100 %: git says the
    /// content changes, so the section must have hunks.
    content_changes: bool,
    /// The `index` line names the empty blob as the new content (an empty file added).
    empty_blob_after: bool,
    /// Added and removed lines of its hunks, for a `format-patch` summary.
    insertions: usize,
    deletions: usize,
    hunks: Vec<Hunk>,
}

/// git's name for the empty blob, of which an `index` line gives a prefix.
const EMPTY_BLOB: &str = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";

/// `N files changed, I insertions(+), D deletions(-)` of a `git format-patch` summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Summary {
    files: usize,
    insertions: Option<usize>,
    deletions: Option<usize>,
}

fn summary_line(text: &str) -> Option<Summary> {
    let mut parts = text.trim().split(", ");
    let files = parts.next()?.strip_suffix(" changed")?;
    let files = files.strip_suffix(" files").or_else(|| files.strip_suffix(" file"))?.parse().ok()?;
    let mut summary = Summary { files, insertions: None, deletions: None };
    for part in parts {
        let count = |suffixes: [&str; 2]| {
            suffixes.iter().find_map(|suffix| part.strip_suffix(suffix)).and_then(|n| n.parse().ok())
        };
        if let Some(n) = count([" insertions(+)", " insertion(+)"]) {
            summary.insertions = Some(n);
        } else if let Some(n) = count([" deletions(-)", " deletion(-)"]) {
            summary.deletions = Some(n);
        } else {
            return None;
        }
    }
    Some(summary)
}

/// The old start line of a `@@ -l,n +l,n @@` header.
pub(super) fn old_start_of_header(text: &str) -> Option<usize> {
    parse_header(text).map(|h| h.old_start)
}

struct Header {
    old_start: usize,
    old_count: Option<usize>,
    new_count: Option<usize>,
}

fn parse_header(text: &str) -> Option<Header> {
    let rest = text.strip_prefix("@@")?.trim_start();
    let mut parts = rest.split_whitespace();
    let old = parts.next()?.strip_prefix('-')?;
    let new = parts.next()?.strip_prefix('+')?;
    let range = |s: &str| -> Option<(usize, Option<usize>)> {
        match s.split_once(',') {
            Some((start, count)) => Some((start.parse().ok()?, Some(count.parse().ok()?))),
            None => Some((s.parse().ok()?, None)),
        }
    };
    let (old_start, old_count) = range(old)?;
    let (_, new_count) = range(new)?;
    // `-l` without a count means one line.
    Some(Header { old_start, old_count: Some(old_count.unwrap_or(1)), new_count: Some(new_count.unwrap_or(1)) })
}

/// A path from a `---`/`+++` line: timestamp dropped, quotes undone; `None` for `/dev/null`.
fn header_path(text: &str) -> Option<String> {
    let text = text.split('\t').next().unwrap_or(text).trim_end();
    let path = unquote(text);
    if path == "/dev/null" { None } else { Some(path) }
}

/// Undoes git's C-style quoting of unusual paths (`"a/sp ace\tx"`).
fn unquote(text: &str) -> String {
    let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) else {
        return text.to_owned();
    };
    let mut bytes = Vec::with_capacity(inner.len());
    let mut chars = inner.bytes().peekable();
    while let Some(b) = chars.next() {
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        match chars.next() {
            Some(b'n') => bytes.push(b'\n'),
            Some(b't') => bytes.push(b'\t'),
            Some(b'"') => bytes.push(b'"'),
            Some(b'\\') => bytes.push(b'\\'),
            Some(d @ b'0'..=b'7') => {
                let mut value = u32::from(d - b'0');
                for _ in 0..2 {
                    match chars.peek() {
                        Some(&o @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(o - b'0');
                            chars.next();
                        }
                        _ => break,
                    }
                }
                bytes.push(u8::try_from(value & 0xff).unwrap_or(b'?'));
            }
            Some(other) => bytes.push(other),
            None => bytes.push(b'\\'),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn strip_prefix_dir(path: &str, prefix: &str) -> String {
    path.strip_prefix(prefix).unwrap_or(path).to_owned()
}

pub(super) fn parse(lines: &[Line<'_>]) -> Result<Vec<Operation>> {
    let mut sections: Vec<Section> = Vec::new();
    // The summary of a `git format-patch` mail, before its first file: what the whole holds.
    let mut summary: Option<(Summary, usize)> = None;
    let mut i = 0;
    while let Some(line) = lines.get(i) {
        let text = line.text;
        if sections.is_empty()
            && summary.is_none()
            && let Some(found) = summary_line(text)
        {
            summary = Some((found, line.number));
        }
        if let Some(rest) = text.strip_prefix("diff --git ") {
            let mut section = Section { line: line.number, git: true, ..Section::default() };
            section.git_paths = git_line_paths(rest);
            sections.push(section);
            i += 1;
            continue;
        }
        if text.starts_with("--- ") && lines.get(i + 1).is_some_and(|next| next.text.starts_with("+++ ")) {
            let old = header_path(text.get(4..).unwrap_or_default());
            let new = header_path(lines.get(i + 1).map_or("", |l| l.text.get(4..).unwrap_or_default()));
            let reuse = sections.last().is_some_and(|s| s.git && s.old_path.is_none() && s.hunks.is_empty());
            if !reuse {
                sections.push(Section { line: line.number, ..Section::default() });
            }
            if let Some(section) = sections.last_mut() {
                section.old_path = Some(old);
                section.new_path = Some(new);
            }
            i += 2;
            continue;
        }
        if text.starts_with("@@") {
            let Some(section) = sections.last_mut() else {
                return Err(Error::InvalidPatch {
                    line: line.number,
                    reason: "hunk before any file header; start the file with `--- a/<path>` and `+++ b/<path>`".into(),
                });
            };
            let (hunk, next) = read_hunk(lines, i)?;
            for body in lines.get(i + 1..next).unwrap_or_default() {
                if body.text.starts_with('+') {
                    section.insertions += 1;
                } else if body.text.starts_with('-') {
                    section.deletions += 1;
                }
            }
            section.hunks.push(hunk);
            i = next;
            continue;
        }
        if text.starts_with("--- ") && i + 1 == lines.len() {
            return Err(super::incomplete(line.number, "after a `---` file header without its `+++` line"));
        }
        if let Some(section) = sections.last_mut().filter(|s| s.git && s.hunks.is_empty()) {
            extended_header(section, line)?;
        } else if text.starts_with("GIT binary patch")
            || (text.starts_with("Binary files ") && text.ends_with(" differ"))
        {
            return Err(binary(line.number));
        }
        // Anything else (commit messages, `Only in`, `index` lines) is ignored, as `patch` does.
        i += 1;
    }
    if let Some(section) = sections.last() {
        // The last file's section stops before its changes: the text was cut off there.
        let headers_only = section.old_path.is_some() && section.hunks.is_empty();
        let bare_git = section.git
            && section.old_path.is_none()
            && section.hunks.is_empty()
            && !section.mode_change
            && !section.new_file
            && !section.deleted_file
            && section.rename_to.is_none();
        let last = lines.last().map_or(section.line, |l| l.number);
        if headers_only || bare_git {
            return Err(super::incomplete(
                last,
                &format!("in the file section of line {} before any hunk", section.line),
            ));
        }
        // git writes a section without hunks only when the content stays (a pure rename, a
        // mode change) or is empty (`index 0000000..e69de29`): otherwise its hunks were cut.
        if section.git && section.hunks.is_empty() && (section.content_changes || section.new_file) {
            let emptied = section.new_file && section.empty_blob_after;
            if !emptied {
                return Err(super::incomplete(
                    last,
                    &format!(
                        "in the file section of line {} before any hunk, though its header says the content \
                         changes",
                        section.line
                    ),
                ));
            }
        }
    }
    if let Some((summary, at)) = summary {
        let files = sections.len();
        let insertions: usize = sections.iter().map(|s| s.insertions).sum();
        let deletions: usize = sections.iter().map(|s| s.deletions).sum();
        let short = files < summary.files
            || summary.insertions.is_some_and(|n| insertions < n)
            || summary.deletions.is_some_and(|n| deletions < n);
        if short {
            let last = lines.last().map_or(at, |l| l.number);
            return Err(super::incomplete(
                last,
                &format!(
                    "with {files} file(s), {insertions} added and {deletions} removed line(s), short of the summary \
                     at line {at}"
                ),
            ));
        }
    }
    let mut operations = Vec::new();
    for section in sections {
        if let Some(operation) = into_operation(section)? {
            operations.push(operation);
        }
    }
    Ok(operations)
}

fn binary(line: usize) -> Error {
    Error::InvalidPatch { line, reason: "binary patches are not supported; give the file as text".into() }
}

fn extended_header(section: &mut Section, line: &Line<'_>) -> Result<()> {
    let text = line.text;
    if let Some(from) = text.strip_prefix("rename from ") {
        section.rename_from = Some(unquote(from.trim_end()));
    } else if let Some(to) = text.strip_prefix("rename to ") {
        section.rename_to = Some(unquote(to.trim_end()));
    } else if text.starts_with("old mode ") || text.starts_with("new mode ") {
        section.mode_change = true;
    } else if let Some(blobs) = text.strip_prefix("index ") {
        let blobs = blobs.split_whitespace().next().unwrap_or_default();
        if let Some((before, after)) = blobs.split_once("..") {
            let zero = |blob: &str| blob.bytes().all(|b| b == b'0');
            section.content_changes |= before != after && !zero(before) && !zero(after);
            section.empty_blob_after = !after.is_empty() && EMPTY_BLOB.starts_with(after);
        }
    } else if let Some(percent) = text.strip_prefix("similarity index ") {
        section.content_changes |= percent.trim() != "100%";
    } else if text.starts_with("dissimilarity index ") {
        section.content_changes = true;
    } else if text.starts_with("new file mode") {
        section.new_file = true;
    } else if text.starts_with("deleted file mode") {
        section.deleted_file = true;
    } else if text.starts_with("copy from ") || text.starts_with("copy to ") {
        return Err(Error::InvalidPatch {
            line: line.number,
            reason: "copies are not supported; add the new file with its whole content instead".into(),
        });
    } else if text.starts_with("GIT binary patch") || text.starts_with("Binary files ") {
        return Err(binary(line.number));
    }
    Ok(())
}

/// `a/x b/y` of a `diff --git` line (only unambiguous when paths have no spaces).
fn git_line_paths(rest: &str) -> Option<(String, String)> {
    if rest.starts_with('"') {
        let end = rest.get(1..)?.find('"')? + 2;
        let old = unquote(rest.get(..end)?);
        let new = unquote(rest.get(end..)?.trim());
        return Some((old, new));
    }
    let (old, new) = rest.split_once(" b/")?;
    Some((old.to_owned(), format!("b/{new}")))
}

fn read_hunk(lines: &[Line<'_>], start: usize) -> Result<(Hunk, usize)> {
    let header_line = lines.get(start).ok_or(Error::NoOperations)?;
    let header = header_line.text.trim();
    let parsed = parse_header(header);
    let mut hunk = Hunk { line: header_line.number, ..Hunk::default() };
    let (mut old_left, mut new_left) = match &parsed {
        Some(h) => {
            hunk.old_start = Some(h.old_start);
            (h.old_count, h.new_count)
        }
        None if header == "@@" || header.starts_with("@@ ") && !header.contains('-') => (None, None),
        None => {
            return Err(Error::InvalidPatch {
                line: header_line.number,
                reason: format!(
                    "malformed hunk header `{}`; expected `@@ -<line>,<count> +<line>,<count> @@`",
                    super::shorten(header, 60)
                ),
            });
        }
    };
    let mut changed = false;
    // Which side the previous line was on, for `\ No newline at end of file`.
    let mut last_prefix = ' ';
    let mut i = start + 1;
    // Whether hunk lines follow the current run of empty lines (decided once per run).
    let mut empty_run: Option<(usize, bool)> = None;
    while let Some(line) = lines.get(i) {
        let text = line.text;
        let satisfied = old_left == Some(0) && new_left == Some(0);
        let counted = old_left.is_some();
        if text.starts_with("@@") || text.starts_with("diff --git ") {
            break;
        }
        // `-- ` ends the diff of a `git format-patch` mail (the signature follows).
        if satisfied
            && (text == "-- "
                || text == "--"
                || (text == "-" && i + 1 == lines.len())
                || text.starts_with("--- ")
                || text.starts_with("+++ "))
        {
            break;
        }
        if !counted && text.starts_with("--- ") && lines.get(i + 1).is_some_and(|n| n.text.starts_with("+++ ")) {
            break;
        }
        let prefix = text.chars().next();
        match prefix {
            Some(' ') | None => {
                if prefix.is_none() && (satisfied || !counted) {
                    let follows = match empty_run {
                        Some((run_end, follows)) if i < run_end => follows,
                        _ => {
                            let run_end = lines
                                .get(i..)
                                .and_then(|rest| rest.iter().position(|l| !l.text.is_empty()))
                                .map_or(lines.len(), |p| i + p);
                            let follows = hunk_lines_follow(lines, i);
                            empty_run = Some((run_end, follows));
                            follows
                        }
                    };
                    if !follows {
                        break;
                    }
                }
                let rest = text.get(1..).unwrap_or_default().to_owned();
                hunk.old.push(rest.clone());
                hunk.new.push(rest);
                old_left = old_left.map(|n| n.saturating_sub(1));
                new_left = new_left.map(|n| n.saturating_sub(1));
                last_prefix = ' ';
            }
            Some('-') => {
                hunk.old.push(text.get(1..).unwrap_or_default().to_owned());
                old_left = old_left.map(|n| n.saturating_sub(1));
                changed = true;
                last_prefix = '-';
            }
            Some('+') => {
                hunk.new.push(text.get(1..).unwrap_or_default().to_owned());
                new_left = new_left.map(|n| n.saturating_sub(1));
                changed = true;
                last_prefix = '+';
            }
            Some('\\') => match last_prefix {
                '-' => hunk.old_missing_newline = true,
                '+' => hunk.new_missing_newline = true,
                _ => {
                    hunk.old_missing_newline = true;
                    hunk.new_missing_newline = true;
                }
            },
            Some(_) => break,
        }
        i += 1;
    }
    let missing_old = old_left.unwrap_or(0);
    let missing_new = new_left.unwrap_or(0);
    if i >= lines.len() && (missing_old > 0 || missing_new > 0) {
        // The counts of the header are not met when the text ends: cut off, or miscounted.
        let last = lines.last().map_or(header_line.number, |l| l.number);
        return Err(super::incomplete(
            last,
            &format!(
                "inside the hunk of line {} (`{}`), {missing_old} old and {missing_new} new line(s) short of its \
                 counts (if the counts are wrong instead, fix them or write `@@` without counts)",
                header_line.number,
                super::shorten(header, 40)
            ),
        ));
    }
    if !changed {
        return Err(Error::InvalidPatch {
            line: header_line.number,
            reason: "empty hunk: it has no `-` or `+` line; remove it or add the change".into(),
        });
    }
    Ok((hunk, i))
}

/// Whether a hunk line (` `, `-`, `+`, `\`) comes after the empty line `i` before anything else.
fn hunk_lines_follow(lines: &[Line<'_>], i: usize) -> bool {
    let rest = lines.get(i + 1..).unwrap_or_default();
    match rest.iter().find(|l| !l.text.is_empty()) {
        None => false,
        Some(next) => {
            let t = next.text;
            (t.starts_with(' ') || t.starts_with('-') || t.starts_with('+') || t.starts_with('\\'))
                && !t.starts_with("--- ")
                && !t.starts_with("+++ ")
        }
    }
}

/// The operation of one section; `None` for a git section that only changes the mode.
fn into_operation(section: Section) -> Result<Option<Operation>> {
    let line = section.line;
    // Strip `a/`/`b/` when git wrote the diff or both headers carry them.
    let (old, new) = match (&section.old_path, &section.new_path) {
        (Some(old), Some(new)) => (old.clone(), new.clone()),
        _ => match &section.git_paths {
            Some((old, new)) => (Some(old.clone()), Some(new.clone())),
            None => (None, None),
        },
    };
    let prefixed = section.git
        || (old.as_deref().is_none_or(|p| p.starts_with("a/")) && new.as_deref().is_none_or(|p| p.starts_with("b/")));
    let old = old.map(|p| if prefixed { strip_prefix_dir(&p, "a/") } else { p });
    let new = new.map(|p| if prefixed { strip_prefix_dir(&p, "b/") } else { p });
    let old = section.rename_from.clone().or(old);
    let new = section.rename_to.clone().or(new);
    let is_add = section.new_file || (old.is_none() && new.is_some());
    let is_delete = section.deleted_file || (new.is_none() && old.is_some());
    if is_add && !is_delete {
        let path = new.ok_or_else(|| missing_path(line))?;
        let mut content = String::new();
        let mut missing_newline = false;
        for hunk in &section.hunks {
            content.push_str(&join_lines(&hunk.new));
            missing_newline = hunk.new_missing_newline;
        }
        if missing_newline {
            content.pop();
        }
        return Ok(Some(Operation::Add { path, content, line }));
    }
    if is_delete {
        let path = old.ok_or_else(|| missing_path(line))?;
        // Without hunks, git deletes only an empty file (as `git apply` does): a deletion cut
        // before its removed lines must not take a whole file with it.
        let content = Some({
            let mut content = String::new();
            let mut missing_newline = false;
            for hunk in &section.hunks {
                content.push_str(&join_lines(&hunk.old));
                missing_newline = hunk.old_missing_newline;
            }
            if missing_newline {
                content.pop();
            }
            content
        });
        return Ok(Some(Operation::Delete { path, content, line }));
    }
    let path = old.ok_or_else(|| missing_path(line))?;
    let new = new.ok_or_else(|| missing_path(line))?;
    let move_to = (new != path).then_some(new);
    if section.hunks.is_empty() && move_to.is_none() {
        if section.git {
            return Ok(None);
        }
        return Err(Error::InvalidPatch {
            line,
            reason: format!("the diff of `{path}` has no hunks; mode changes alone are not applied"),
        });
    }
    Ok(Some(Operation::Update { path, move_to, hunks: section.hunks, line }))
}

fn missing_path(line: usize) -> Error {
    Error::InvalidPatch { line, reason: "file header without a usable path".into() }
}
