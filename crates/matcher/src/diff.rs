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

/// Up to how many items, old and new together, a diff runs without a deadline: Myers' work is
/// at most the square of it (a few microseconds), less than reading the clock as it goes.
const UNTIMED_ITEMS: usize = 128;

/// The line operations turning `old` into `new` (any hashable items), bounded in time.
#[must_use]
pub fn ops<T: Eq + std::hash::Hash>(old: &[T], new: &[T]) -> Vec<DiffOp> {
    let deadline = (old.len() + new.len() > UNTIMED_ITEMS).then(|| Instant::now() + DIFF_TIMEOUT);
    similar::capture_diff_slices_deadline(Algorithm::Myers, old, new, deadline)
}

/// The lines of `text`, each with its `\n` (the last one without, when the text does not end
/// with one), cut only where a windowed diff reads them: the count of the whole text's lines,
/// and the lines of a few runs of them (segments). A small change of a large file cuts the
/// lines around the change, not every line.
struct Cut<'a> {
    text: &'a str,
    count: usize,
    /// Each segment: the index of its first line, the byte offset it starts at, its lines.
    segments: Vec<(usize, usize, Vec<&'a str>)>,
}

/// How many bytes the count of line ends skips at once before it steps line by line.
const COUNT_BLOCK: usize = 4096;

impl<'a> Cut<'a> {
    /// `text` with the lines of `runs` (line ranges in order; each ends past the last line it
    /// holds) cut; runs that meet or overlap become one segment. `None` when a run is out of
    /// order or past the text's end.
    fn new(text: &'a str, runs: impl Iterator<Item = std::ops::Range<usize>>) -> Option<Cut<'a>> {
        let bytes = text.as_bytes();
        let mut cut = Cut { text, count: line_count(text), segments: Vec::new() };
        // Where the scan stands: a line index and the offset that line starts at.
        let (mut line, mut at) = (0, 0);
        for run in runs {
            if run.end > cut.count {
                return None;
            }
            // A run that meets or overlaps the last segment extends it.
            let extends = cut.segments.last().is_some_and(|(first, _, lines)| run.start <= first + lines.len());
            if !extends {
                at = skip_lines(bytes, at, run.start.checked_sub(line)?)?;
                line = run.start;
                cut.segments.push((line, at, Vec::new()));
            }
            let (_, _, lines) = cut.segments.last_mut()?;
            while line < run.end {
                let end = memchr::memchr(b'\n', bytes.get(at..)?).map_or(bytes.len(), |nl| at + nl + 1);
                lines.push(text.get(at..end)?);
                (line, at) = (line + 1, end);
            }
        }
        Some(cut)
    }

    /// The lines in `range`, when one segment holds them all (any empty range in the text).
    fn get(&self, range: std::ops::Range<usize>) -> Option<&[&'a str]> {
        if range.is_empty() && range.start <= self.count {
            return Some(&[]);
        }
        let segment = self.segments.partition_point(|(first, ..)| *first <= range.start).checked_sub(1)?;
        let (first, _, lines) = self.segments.get(segment)?;
        lines.get(range.start.checked_sub(*first)?..range.end.checked_sub(*first)?)
    }

    /// The byte offset line `index` starts at (the text's length for the line past the last),
    /// when a segment holds it or ends before it.
    fn offset(&self, index: usize) -> Option<usize> {
        if index == 0 {
            return Some(0);
        }
        if index == self.count {
            return Some(self.text.len());
        }
        let segment = self.segments.partition_point(|(first, ..)| *first <= index).checked_sub(1)?;
        let (first, start, lines) = self.segments.get(segment)?;
        let offset = |line: &str| line.as_ptr() as usize - self.text.as_ptr() as usize;
        match index.checked_sub(*first)? {
            within if within < lines.len() => lines.get(within).map(|line| offset(line)),
            within if within == lines.len() => Some(lines.last().map_or(*start, |line| offset(line) + line.len())),
            _ => None,
        }
    }

    /// The bytes of lines `range`: one slice, compared at once rather than line by line.
    fn span(&self, range: std::ops::Range<usize>) -> Option<&'a str> {
        self.text.get(self.offset(range.start)?..self.offset(range.end)?)
    }
}

/// How many lines `text` has (the last one may lack its `\n`).
fn line_count(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count() + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// The offset of the line `lines` lines after the one starting at `at` in `bytes` (line ends
/// counted a block at a time, not walked one by one); `None` past the last line end.
///
/// ```
/// use editkit_matcher::diff::skip_lines;
/// let text = b"one\ntwo\nthree\n";
/// assert_eq!(skip_lines(text, 0, 2), Some(8));
/// assert_eq!(skip_lines(text, 4, 2), Some(text.len()));
/// assert_eq!(skip_lines(text, 0, 4), None);
/// ```
#[must_use]
pub fn skip_lines(bytes: &[u8], mut at: usize, mut lines: usize) -> Option<usize> {
    while lines > 0 {
        let block = bytes.get(at..)?;
        let block = block.get(..COUNT_BLOCK.min(block.len()))?;
        if block.is_empty() {
            return None;
        }
        let ends = memchr::memchr_iter(b'\n', block).count();
        if ends < lines {
            lines -= ends;
            at += block.len();
            continue;
        }
        let nl = memchr::memchr_iter(b'\n', block).nth(lines - 1)?;
        return Some(at + nl + 1);
    }
    Some(at)
}

/// The unified diff of `old` → `new` under the given `---`/`+++` names (`a/x`, `/dev/null`).
///
/// The lines the two texts share at their start and end, past the `context` lines kept around
/// the changes, are cut before diffing (with the hunk headers' line numbers moved back), so a
/// small edit of a large file costs a scan of its bytes, not a diff of all its lines; the
/// result is the same as diffing the whole texts.
#[must_use]
pub fn unified(old_name: &str, new_name: &str, old: &str, new: &str, context: usize) -> String {
    let (skipped_lines, start, old_end, new_end) = trim_common_lines(old, new, context);
    let (old_part, new_part) = (old.get(start..old_end).unwrap_or(old), new.get(start..new_end).unwrap_or(new));
    let diff = lines(old_part, new_part).unified_diff().context_radius(context).header(old_name, new_name).to_string();
    if skipped_lines == 0 { diff } else { shift_hunks(&diff, skipped_lines) }
}

/// A pair of line ranges (0-based, end exclusive): lines of the old text and the lines of the
/// new text that stand in their place.
pub type Window = (std::ops::Range<usize>, std::ops::Range<usize>);

/// The unified diff of `old` → `new` when the two differ only inside `windows` (in order, not
/// overlapping): outside them the lines are the same, one to one. Each window is diffed on its
/// own, so a change of a few places in a large file costs a diff of those places, not of the
/// file; the lines between are compared, not hashed. `None` when a window is out of order or
/// out of range, or the lines outside the windows differ: the caller then diffs the whole
/// texts with [`unified`]. Equal texts give an empty diff, whatever the windows (changes in
/// two windows may undo each other). The format is [`unified`]'s (same headers, hunks merged when their
/// context touches, `\ No newline at end of file`); where a line repeats nearby, the lines a
/// change is drawn against may differ from a whole-text diff's, and applying either gives `new`.
///
/// ```
/// use editkit_matcher::diff;
/// let old = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n";
/// let new = "a\nB\nc\nd\ne\nf\ng\nh\nI\nj\n";
/// let windows = [(1..2, 1..2), (8..9, 8..9)];
/// let text = diff::unified_windows("a/x", "b/x", old, new, &windows, 3).unwrap();
/// assert_eq!(text, diff::unified("a/x", "b/x", old, new, 3));
/// // A difference outside the windows: not this function's to diff.
/// assert_eq!(diff::unified_windows("a/x", "b/x", old, new, &windows[..1], 3), None);
/// ```
#[must_use]
pub fn unified_windows(
    old_name: &str,
    new_name: &str,
    old: &str,
    new: &str,
    windows: &[Window],
    context: usize,
) -> Option<String> {
    if old == new {
        // Windows may hold changes that undo each other; equal texts have no diff.
        return Some(String::new());
    }
    let (old_len, new_len) = (line_count(old), line_count(new));
    let widened = widen(windows, context, old_len, new_len)?;
    // The lines a hunk may show: each widened window's, and `context` more on each side (a
    // change drawn at a window's edge has its context beyond it). A line outside them all
    // makes this `None` (the whole texts are diffed then).
    let around = |range: &std::ops::Range<usize>, len: usize| {
        range.start.saturating_sub(context)..range.end.saturating_add(context).min(len)
    };
    let old_lines = Cut::new(old, widened.iter().map(|(in_old, _)| around(in_old, old_len)))?;
    let new_lines = Cut::new(new, widened.iter().map(|(_, in_new)| around(in_new, new_len)))?;
    // Each operation, and whether it joins changes of two windows (whose lines may then share
    // more than each window's diff saw: a line one window inserts and the next deletes).
    let mut all: Vec<(DiffOp, bool)> = Vec::new();
    let mut push = |op: DiffOp| join(&mut all, op);
    let (mut at_old, mut at_new) = (0, 0);
    let ends = [(old_len..old_len, new_len..new_len)];
    for (index, (in_old, in_new)) in widened.iter().chain(&ends).enumerate() {
        let last = index == widened.len();
        if in_old.start < at_old || in_new.start < at_new || in_old.end < in_old.start || in_new.end < in_new.start {
            return None;
        }
        let between = in_old.start - at_old;
        if in_new.start - at_new != between
            || old_lines.span(at_old..in_old.start)? != new_lines.span(at_new..in_new.start)?
        {
            return None;
        }
        if between > 0 {
            push(DiffOp::Equal { old_index: at_old, new_index: at_new, len: between });
        }
        if last {
            break;
        }
        let (old_part, new_part) = (old_lines.get(in_old.clone())?, new_lines.get(in_new.clone())?);
        for op in ops(old_part, new_part) {
            push(shifted(op, in_old.start, in_new.start));
        }
        (at_old, at_new) = (in_old.end, in_new.end);
    }
    // A change joined across windows is diffed again as one, as a whole-text diff sees it.
    let mut minimal: Vec<(DiffOp, bool)> = Vec::with_capacity(all.len());
    for (op, joined) in all {
        if !joined {
            join(&mut minimal, op);
            continue;
        }
        let (old_part, new_part) = (old_lines.get(op.old_range())?, new_lines.get(op.new_range())?);
        for part in ops(old_part, new_part) {
            join(&mut minimal, shifted(part, op.old_range().start, op.new_range().start));
        }
    }
    let all: Vec<DiffOp> = minimal.into_iter().map(|(op, _)| op).collect();
    let mut out = String::new();
    for group in similar::group_diff_ops(all, context) {
        if group.iter().all(|op| matches!(op, DiffOp::Equal { .. })) {
            continue;
        }
        if out.is_empty() {
            out.push_str(&format!("--- {old_name}\n+++ {new_name}\n"));
        }
        out.push_str(&format!("{}\n", similar::udiff::UnifiedHunkHeader::new(&group)));
        for op in &group {
            let (tag, lines): (char, &[&str]) = match *op {
                DiffOp::Equal { old_index, len, .. } => (' ', old_lines.get(old_index..old_index + len)?),
                DiffOp::Delete { old_index, old_len, .. } => ('-', old_lines.get(old_index..old_index + old_len)?),
                DiffOp::Insert { new_index, new_len, .. } => ('+', new_lines.get(new_index..new_index + new_len)?),
                DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                    push_lines(&mut out, '-', old_lines.get(old_index..old_index + old_len)?);
                    ('+', new_lines.get(new_index..new_index + new_len)?)
                }
            };
            push_lines(&mut out, tag, lines);
        }
    }
    Some(out)
}

/// Appends `op` to `all`, joining it with the last operation when both are equal lines (one run)
/// or both changes (one change: its `-` lines, then its `+`), as a whole-text diff gives them;
/// a change joined so is marked.
fn join(all: &mut Vec<(DiffOp, bool)>, op: DiffOp) {
    match (all.last_mut(), op) {
        (Some((DiffOp::Equal { len, .. }, _)), DiffOp::Equal { len: more, .. }) => *len += more,
        (Some((last, joined)), op) if !matches!(last, DiffOp::Equal { .. }) && !matches!(op, DiffOp::Equal { .. }) => {
            *last = change(last.old_range().start..op.old_range().end, last.new_range().start..op.new_range().end);
            *joined = true;
        }
        _ => all.push((op, false)),
    }
}

/// `windows` each widened by up to `lines` of the (equal) lines around it, not past its
/// neighbours or the texts' ends, so that a change at a window's edge is drawn against the
/// lines beside it as a whole-text diff draws it (an inserted blank line next to a blank
/// line, say). `None` when the windows are out of order.
fn widen(windows: &[Window], lines: usize, old_len: usize, new_len: usize) -> Option<Vec<Window>> {
    let mut widened: Vec<Window> = Vec::with_capacity(windows.len());
    for (index, (old, new)) in windows.iter().enumerate() {
        if old.end < old.start || new.end < new.start || old.end > old_len || new.end > new_len {
            return None;
        }
        let (floor_old, floor_new) = widened.last().map_or((0, 0), |(o, n)| (o.end, n.end));
        if old.start < floor_old || new.start < floor_new {
            return None;
        }
        let (ceil_old, ceil_new) = windows.get(index + 1).map_or((old_len, new_len), |(o, n)| (o.start, n.start));
        let before = lines.min(old.start - floor_old).min(new.start - floor_new);
        let after = lines.min(ceil_old.saturating_sub(old.end)).min(ceil_new.saturating_sub(new.end));
        widened.push((old.start - before..old.end + after, new.start - before..new.end + after));
    }
    Some(widened)
}

/// The change turning old lines `old` into new lines `new`.
fn change(old: std::ops::Range<usize>, new: std::ops::Range<usize>) -> DiffOp {
    match (old.is_empty(), new.is_empty()) {
        (false, true) => DiffOp::Delete { old_index: old.start, old_len: old.len(), new_index: new.start },
        (true, false) => DiffOp::Insert { old_index: old.start, new_index: new.start, new_len: new.len() },
        _ => DiffOp::Replace { old_index: old.start, old_len: old.len(), new_index: new.start, new_len: new.len() },
    }
}

/// `op` with its line indices moved by `old` and `new`.
fn shifted(op: DiffOp, old: usize, new: usize) -> DiffOp {
    match op {
        DiffOp::Equal { old_index, new_index, len } => {
            DiffOp::Equal { old_index: old_index + old, new_index: new_index + new, len }
        }
        DiffOp::Delete { old_index, old_len, new_index } => {
            DiffOp::Delete { old_index: old_index + old, old_len, new_index: new_index + new }
        }
        DiffOp::Insert { old_index, new_index, new_len } => {
            DiffOp::Insert { old_index: old_index + old, new_index: new_index + new, new_len }
        }
        DiffOp::Replace { old_index, old_len, new_index, new_len } => {
            DiffOp::Replace { old_index: old_index + old, old_len, new_index: new_index + new, new_len }
        }
    }
}

/// Lines of a hunk body under one tag, as `similar` writes them.
fn push_lines(out: &mut String, tag: char, lines: &[&str]) {
    for line in lines {
        out.push(tag);
        out.push_str(line);
        if !line.ends_with('\n') {
            out.push_str("\n\\ No newline at end of file\n");
        }
    }
}

/// Where the middle of two texts starts and ends once the lines they share at both ends are
/// cut, keeping `context` of them on each side: the lines cut at the start, the middle's start
/// (the same in both) and its end in `old` and in `new`. Cuts fall on line starts only.
fn trim_common_lines(old: &str, new: &str, context: usize) -> (usize, usize, usize, usize) {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let prefix = common_prefix_len(a, b);
    // Back to the start of the line the first difference is on.
    let line_start = a.get(..prefix).and_then(|head| memchr::memrchr(b'\n', head)).map_or(0, |at| at + 1);
    // Keep `context` whole lines before it.
    let mut start = line_start;
    for _ in 0..context {
        if start == 0 {
            break;
        }
        start = a.get(..start - 1).and_then(|head| memchr::memrchr(b'\n', head)).map_or(0, |at| at + 1);
    }
    let skipped_lines = a.get(..start).map_or(0, |head| memchr::memchr_iter(b'\n', head).count());
    let (a_rest, b_rest) = (a.get(line_start..).unwrap_or_default(), b.get(line_start..).unwrap_or_default());
    let suffix = common_suffix_len(a_rest, b_rest);
    // Forward to the start of a line in both (the byte before the cut is the same in both).
    let starts_line = |text: &[u8], cut: usize| cut >= text.len() || text.get(text.len() - cut - 1) == Some(&b'\n');
    let mut cut = suffix;
    while cut > 0 && !(starts_line(a_rest, cut) && starts_line(b_rest, cut)) {
        cut -= 1;
    }
    // Keep `context` whole lines after the last difference.
    let mut kept = 0;
    let mut end_cut = cut;
    while kept < context && end_cut > 0 {
        // Drop the first line of the shared tail from the cut.
        let tail = a_rest.get(a_rest.len() - end_cut..).unwrap_or_default();
        end_cut -= memchr::memchr(b'\n', tail).map_or(tail.len(), |at| at + 1);
        kept += 1;
    }
    (skipped_lines, start, old.len() - end_cut, new.len() - end_cut)
}

/// How many bytes `a` and `b` share at their start (compared a block at a time first).
#[must_use]
pub fn common_prefix_len(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 4096;
    let shorter = a.len().min(b.len());
    let mut at = 0;
    while at + BLOCK <= shorter && a.get(at..at + BLOCK) == b.get(at..at + BLOCK) {
        at += BLOCK;
    }
    at + a.iter().skip(at).zip(b.iter().skip(at)).take_while(|(x, y)| x == y).count()
}

/// How many bytes `a` and `b` share at their end (compared a block at a time first).
#[must_use]
pub fn common_suffix_len(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 4096;
    let shorter = a.len().min(b.len());
    let mut n = 0;
    while n + BLOCK <= shorter && a.get(a.len() - n - BLOCK..a.len() - n) == b.get(b.len() - n - BLOCK..b.len() - n) {
        n += BLOCK;
    }
    n + a.iter().rev().skip(n).zip(b.iter().rev().skip(n)).take_while(|(x, y)| x == y).count()
}

/// `diff` with the old and new start lines of every hunk header moved down by `lines`.
fn shift_hunks(diff: &str, lines: usize) -> String {
    let mut out = String::with_capacity(diff.len() + 64);
    for line in diff.split_inclusive('\n') {
        let shifted = line.strip_prefix("@@ -").and_then(|rest| {
            let (ranges, tail) = rest.split_once(" @@")?;
            let (old, new) = ranges.split_once(" +")?;
            let shift = |range: &str| -> Option<String> {
                let (start, len) = match range.split_once(',') {
                    Some((start, len)) => (start, Some(len)),
                    None => (range, None),
                };
                let start = start.parse::<usize>().ok()? + lines;
                Some(match len {
                    Some(len) => format!("{start},{len}"),
                    None => start.to_string(),
                })
            };
            Some(format!("@@ -{} +{} @@{tail}", shift(old)?, shift(new)?))
        });
        out.push_str(shifted.as_deref().unwrap_or(line));
    }
    out
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
