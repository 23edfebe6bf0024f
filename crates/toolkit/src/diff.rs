//! Unified diffs (similar), whole or bounded for tool results.

use similar::{ChangeTag, TextDiff};

/// Most body lines shown per hunk in a bounded diff.
pub const MAX_HUNK_LINES: usize = 10;
/// Most characters shown per line in a bounded diff.
pub const MAX_LINE_CHARS: usize = 200;

/// The whole unified diff of `old` → `new` for `path`.
#[must_use]
pub fn unified(path: &str, old: &str, new: &str, context: usize) -> String {
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(context)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

/// Lines added and removed.
#[must_use]
pub fn counts(old: &str, new: &str) -> (usize, usize) {
    let diff = TextDiff::from_lines(old, new);
    let mut added = 0;
    let mut removed = 0;
    for change in diff.iter_all_changes() {
        match change.tag() {
            ChangeTag::Insert => added += 1,
            ChangeTag::Delete => removed += 1,
            ChangeTag::Equal => {}
        }
    }
    (added, removed)
}

/// A unified diff cut to [`MAX_HUNK_LINES`] body lines a hunk and [`MAX_LINE_CHARS`]
/// characters a line, with a note where something was cut; and whether anything was.
#[must_use]
pub fn bounded(path: &str, old: &str, new: &str) -> (String, bool) {
    let full = unified(path, old, new, 3);
    let mut out = String::new();
    let mut truncated = false;
    let mut in_hunk_lines = 0usize;
    let mut hidden = 0usize;
    let flush_hidden = |out: &mut String, hidden: &mut usize| {
        if *hidden > 0 {
            out.push_str(&format!("… {} more line(s) in this hunk not shown\n", *hidden));
            *hidden = 0;
        }
    };
    for line in full.split_inclusive('\n') {
        if line.starts_with("@@") {
            flush_hidden(&mut out, &mut hidden);
            in_hunk_lines = 0;
            out.push_str(line);
            continue;
        }
        if line.starts_with("--- ") || line.starts_with("+++ ") {
            out.push_str(line);
            continue;
        }
        in_hunk_lines += 1;
        if in_hunk_lines > MAX_HUNK_LINES {
            hidden += 1;
            truncated = true;
            continue;
        }
        let body = line.strip_suffix('\n').unwrap_or(line);
        if body.chars().count() > MAX_LINE_CHARS {
            let cut: String = body.chars().take(MAX_LINE_CHARS).collect();
            out.push_str(&cut);
            out.push_str(" … (line cut)\n");
            truncated = true;
        } else {
            out.push_str(line);
        }
    }
    flush_hidden(&mut out, &mut hidden);
    (out, truncated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_hunks_and_lines_are_cut_with_a_note() {
        let old: String = (0..30).map(|i| format!("line {i} {}\n", "x".repeat(if i == 0 { 300 } else { 0 }))).collect();
        let new: String = (0..30).map(|i| format!("LINE {i}\n")).collect();
        let (diff, truncated) = bounded("f.txt", &old, &new);
        assert!(truncated);
        assert!(diff.contains("more line(s) in this hunk not shown"), "{diff}");
        assert!(diff.contains("(line cut)"), "{diff}");
        assert!(diff.lines().all(|l| l.chars().count() <= MAX_LINE_CHARS + 20));
    }
}
