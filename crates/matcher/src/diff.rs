//! Line diffs bounded in time: the one place editkit turns two texts into a unified diff or a
//! list of line operations (the facade's results, patch previews, the merge of an edit into a
//! block-anchor region, a patch hunk's changed lines).
//!
//! Every diff runs `similar` with a deadline ([`DIFF_TIMEOUT`]): past it the algorithm stops
//! refining and gives larger hunks, which are still exact (applying them gives the new text);
//! a diff never takes unbounded time on agent-sized inputs.
//!
//! ```
//! use editkit_matcher::diff;
//! let text = diff::unified("a/x.txt", "b/x.txt", "one\ntwo\n", "one\n2\n", 3);
//! assert!(text.contains("-two\n+2\n"));
//! assert_eq!(diff::counts("one\ntwo\n", "one\n2\n"), (1, 1));
//! ```

use std::time::{Duration, Instant};

use similar::{Algorithm, ChangeTag, DiffOp, TextDiff};

/// The longest a diff may refine before it settles for larger hunks.
pub const DIFF_TIMEOUT: Duration = Duration::from_millis(500);
/// Most body lines shown per hunk in a bounded diff.
pub const MAX_HUNK_LINES: usize = 10;
/// Most characters shown per line in a bounded diff.
pub const MAX_LINE_CHARS: usize = 200;

fn lines<'a>(old: &'a str, new: &'a str) -> TextDiff<'a, 'a, str> {
    similar::TextDiffConfig::default().timeout(DIFF_TIMEOUT).diff_lines(old, new)
}

/// The line operations turning `old` into `new` (any hashable items), bounded in time.
#[must_use]
pub fn ops<T: Eq + std::hash::Hash>(old: &[T], new: &[T]) -> Vec<DiffOp> {
    similar::capture_diff_slices_deadline(Algorithm::Myers, old, new, Some(Instant::now() + DIFF_TIMEOUT))
}

/// The unified diff of `old` → `new` under the given `---`/`+++` names (`a/x`, `/dev/null`).
#[must_use]
pub fn unified(old_name: &str, new_name: &str, old: &str, new: &str, context: usize) -> String {
    lines(old, new).unified_diff().context_radius(context).header(old_name, new_name).to_string()
}

/// The unified diff of one file's change, named `a/<path>` and `b/<path>`.
#[must_use]
pub fn file(path: &str, old: &str, new: &str, context: usize) -> String {
    unified(&format!("a/{path}"), &format!("b/{path}"), old, new, context)
}

/// Lines added and removed.
#[must_use]
pub fn counts(old: &str, new: &str) -> (usize, usize) {
    let mut added = 0;
    let mut removed = 0;
    for change in lines(old, new).iter_all_changes() {
        match change.tag() {
            ChangeTag::Insert => added += 1,
            ChangeTag::Delete => removed += 1,
            ChangeTag::Equal => {}
        }
    }
    (added, removed)
}

/// A file's unified diff cut to [`MAX_HUNK_LINES`] body lines a hunk and [`MAX_LINE_CHARS`]
/// characters a line, with a note where something was cut; and whether anything was.
#[must_use]
pub fn bounded(path: &str, old: &str, new: &str) -> (String, bool) {
    let full = file(path, old, new, 3);
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
