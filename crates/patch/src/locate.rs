//! Placing each hunk of one file: anchors, the matcher ladder, line-number hints, end pins.
//!
//! Hunks are placed in file order, each searched after the previous one's replacement. The
//! matcher's exact rung also matches inside a line; a patch's old lines must be whole lines, so
//! exact candidates are collected here (line starts only) and the matcher is asked only when
//! there is none. Line numbers from unified diffs break ties between equally good places.

use std::ops::Range;

use editkit_matcher::{Alignment, MatchOptions, Rung};
use editkit_vfs::Text;
use serde::Serialize;

use crate::error::Cause;
use crate::parse::Hunk;

/// Most exact candidates collected for one hunk.
const MAX_CANDIDATES: usize = 100_000;

/// Where one hunk landed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct HunkReport {
    /// 1-based number of the hunk within its file section.
    pub hunk: usize,
    /// 1-based line of the file (as edited by the hunks placed before it: those before it in
    /// the patch, or, for a pure addition that goes at the end, all the others) where the
    /// hunk's old lines started, or where its lines were inserted.
    pub line: usize,
    /// 1-based last line of the region the old lines matched (inclusive; `line - 1` for an
    /// insertion, which matched no line).
    pub last_line: usize,
    /// The matcher rung that placed it (`exact` for insertions after an anchor or a line number).
    pub rung: Rung,
    /// Similarity of the matched region to the hunk's old lines, 0 to 1 (1 on `exact`).
    pub score: f64,
    /// `merged` when the block-anchor region differed from the old lines by whole context lines
    /// and the hunk's change was applied to the file's own lines.
    pub alignment: Alignment,
}

impl HunkReport {
    /// Whether the hunk was placed by a tolerant rung (anything but an exact match).
    #[must_use]
    pub fn is_fuzzy(&self) -> bool {
        self.rung != Rung::Exact
    }
}

/// A hunk that could not be placed: its 0-based index and why.
pub(crate) type HunkFailure = (usize, Cause);

/// A file's text after its hunks: the new text, where each hunk landed, and the line windows
/// (old lines, new lines) outside which the text did not change, when every hunk replaced
/// whole lines (for a diff of the windows alone; `None` otherwise).
pub(crate) type Applied = (Text, Vec<HunkReport>, Option<Vec<editkit_matcher::diff::Window>>);

/// Applies `hunks` to `original`, keeping untouched lines' endings, BOM and final-newline state.
pub(crate) fn apply_hunks(original: &Text, hunks: &[Hunk], strict: bool) -> Result<Applied, Vec<HunkFailure>> {
    // Room for every byte the hunks add (and a final line end), so the splices below never
    // move the text to a larger buffer.
    let lines_len = |lines: &[String]| lines.iter().fold(0usize, |sum, line| sum.saturating_add(line.len() + 1));
    let growth = hunks
        .iter()
        .fold(1usize, |sum, hunk| sum.saturating_add(lines_len(&hunk.new).saturating_sub(lines_len(&hunk.old))));
    let mut text = original.clone_with_capacity(growth);
    let had_newline = text.as_str().is_empty() || text.trailing_newline();
    if !had_newline {
        // Work on whole lines; the missing terminator is taken off again at the end.
        let len = text.as_str().len();
        text.splice(len..len, "\n").expect("the end of a text is a char boundary");
    }
    let mut want_newline = had_newline;
    let mut cursor = 0usize;
    // Newlines before `cursor`: line numbers are counted from the previous hunk, not the start.
    let mut cursor_line = 0usize;
    let mut delta: isize = 0;
    let mut reports = Vec::with_capacity(hunks.len());
    let mut failures = Vec::new();
    let mut windows = Some(Vec::with_capacity(hunks.len()));
    // New lines minus old lines so far: where a hunk's lines were in the old text.
    let mut line_delta: isize = 0;
    // A pure addition that names no place (no context, anchor or line number; or pinned by
    // `*** End of File` alone) goes at the end of the file whatever its rank, as Codex puts it: it
    // is placed after every other hunk, so it neither moves the cursor past them (they are
    // still searched in the whole file) nor offers its lines to their search.
    let (located, at_end): (Vec<usize>, Vec<usize>) = (0..hunks.len()).partition(|&idx| !goes_at_end(&hunks[idx]));
    for (idx, hunk) in located.into_iter().chain(at_end).map(|idx| (idx, &hunks[idx])) {
        match place(text.as_str(), (cursor, cursor_line), delta, hunk, strict) {
            Ok(placed) => {
                let line = match text.as_str().get(cursor..placed.range.start) {
                    Some(between) => cursor_line + count_lines(between),
                    None => line_of(text.as_str(), placed.range.start),
                } + 1;
                let matched = text.as_str().get(placed.range.clone()).unwrap_or_default();
                let last_line =
                    line + matched.trim_end_matches('\n').matches('\n').count() - usize::from(matched.is_empty());
                let before_len = text.as_str().len();
                let (range_start, range_end) = (placed.range.start, placed.range.end);
                let whole_lines = |text: &str, end: usize| {
                    end == range_start || text.as_bytes().get(end.wrapping_sub(1)) == Some(&b'\n')
                };
                let starts_line = range_start == 0 || text.as_str().as_bytes().get(range_start - 1) == Some(&b'\n');
                let old_whole = starts_line && whole_lines(text.as_str(), range_end);
                let old_count = count_lines(matched);
                splice_changed_lines(&mut text, placed.range, &placed.replacement);
                // The codec normalises `\r\n` and `\r` in the replacement, so measure what was
                // inserted in the text rather than in the replacement.
                let after_len = text.as_str().len();
                cursor = (range_end + after_len).saturating_sub(before_len).min(after_len);
                let inserted = text.as_str().get(range_start..cursor).unwrap_or_default();
                let new_count = count_lines(inserted);
                cursor_line = line - 1 + new_count;
                match windows.as_mut() {
                    Some(found) if old_whole && whole_lines(text.as_str(), cursor) => {
                        let new_start = line - 1;
                        let old_start = (new_start as isize - line_delta).max(0) as usize;
                        found.push((old_start..old_start + old_count, new_start..new_start + new_count));
                    }
                    _ => windows = None,
                }
                line_delta += new_count as isize - old_count as isize;
                delta += hunk.new.len() as isize - hunk.old.len() as isize;
                reports.push(HunkReport {
                    hunk: idx + 1,
                    line,
                    last_line,
                    rung: placed.rung,
                    score: placed.score,
                    alignment: placed.alignment,
                });
                // `\ No newline at end of file` speaks of the file's end: only a hunk that
                // reaches it may change whether the file ends with a newline.
                let reaches_end = cursor == text.as_str().len();
                if reaches_end && hunk.new_missing_newline {
                    want_newline = false;
                } else if reaches_end && hunk.old_missing_newline {
                    want_newline = true;
                }
            }
            Err(cause @ Cause::Matcher(editkit_matcher::Error::NotFound { .. })) => {
                failures.push((idx, out_of_order(text.as_str(), cursor, hunk, strict).unwrap_or(cause)));
            }
            Err(cause) => failures.push((idx, cause)),
        }
    }
    if !failures.is_empty() {
        failures.sort_by_key(|(idx, _)| *idx);
        return Err(failures);
    }
    reports.sort_by_key(|report| report.hunk);
    let len = text.as_str().len();
    if !want_newline && text.as_str().ends_with('\n') {
        text.splice(len - 1..len, "").expect("a final newline is one byte on a char boundary");
    }
    Ok((text, reports, windows))
}

/// Whether `hunk` is a pure addition whose place is the end of the file: it has no old lines
/// and no `@@` anchor, and no line number says where (or `*** End of File` says the end).
fn goes_at_end(hunk: &Hunk) -> bool {
    hunk.old.is_empty() && hunk.anchors.is_empty() && (hunk.end_of_file || hunk.old_start.is_none())
}

/// Newlines in `text`: its lines, when it holds whole lines.
fn count_lines(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count()
}

/// `OutOfOrder` when a hunk that was not found after the previous one stands before it.
fn out_of_order(hay: &str, cursor: usize, hunk: &Hunk, strict: bool) -> Option<Cause> {
    let old = hunk.old_text();
    if cursor == 0 || old.is_empty() {
        return None;
    }
    let before = hay.get(..cursor)?;
    let options = MatchOptions { strict, changed_lines_exact: true, ..MatchOptions::default() };
    let found = editkit_matcher::find(before, &old, &options).ok()?;
    Some(Cause::OutOfOrder { line: found.first_line() })
}

/// Replaces `range` with `replacement`, splicing only the runs of lines that differ, last first:
/// a context line the hunk keeps is never touched, so it keeps its own line ending even in a
/// file that mixes endings (the codec hands the endings of a spliced range out by position).
fn splice_changed_lines(text: &mut Text, range: Range<usize>, replacement: &str) {
    let old_region = text.as_str().get(range.clone()).unwrap_or_default().to_owned();
    let old_lines: Vec<&str> = old_region.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = replacement.split_inclusive('\n').collect();
    let mut offsets = Vec::with_capacity(old_lines.len() + 1);
    offsets.push(range.start);
    for line in &old_lines {
        offsets.push(offsets.last().copied().unwrap_or(range.start) + line.len());
    }
    let ops = editkit_matcher::diff::ops(&old_lines, &new_lines);
    for op in ops.iter().rev() {
        let (old_at, old_len, new_at, new_len) = match *op {
            similar::DiffOp::Equal { .. } => continue,
            similar::DiffOp::Delete { old_index, old_len, new_index } => (old_index, old_len, new_index, 0),
            similar::DiffOp::Insert { old_index, new_index, new_len } => (old_index, 0, new_index, new_len),
            similar::DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                (old_index, old_len, new_index, new_len)
            }
        };
        let piece: String = new_lines.get(new_at..new_at + new_len).unwrap_or_default().concat();
        let (start, end) = (offsets[old_at], offsets[old_at + old_len]);
        text.splice(start..end, &piece).expect("line offsets of a placed range lie on char boundaries");
    }
}

struct Placed {
    range: Range<usize>,
    replacement: String,
    rung: Rung,
    score: f64,
    alignment: Alignment,
}

impl Placed {
    fn exact(range: Range<usize>, replacement: String) -> Self {
        Self { range, replacement, rung: Rung::Exact, score: 1.0, alignment: Alignment::Aligned }
    }
}

/// Places one hunk at or after `known.0`, the cursor (`known.1` newlines stand before it).
fn place(hay: &str, known: (usize, usize), delta: isize, hunk: &Hunk, strict: bool) -> Result<Placed, Cause> {
    let cursor = known.0;
    if !hunk.anchors.is_empty()
        && !hunk.end_of_file
        && let Some(placed) = place_in_anchor_scopes(hay, known, delta, hunk, strict)?
    {
        return Ok(placed);
    }
    let mut from = cursor;
    let mut anchor_line = cursor;
    for anchor in &hunk.anchors {
        let after = find_anchor(hay, from, anchor)?;
        anchor_line =
            hay.get(..after.saturating_sub(1)).and_then(|before| before.rfind('\n')).map_or(0, |p| p + 1).max(from);
        from = after;
    }
    let old = hunk.old_text();
    let new = hunk.new_text();
    if !old.is_empty() && !hunk.anchors.is_empty() {
        // Agents often repeat the anchor as the first context line: search from the anchor
        // line itself when nothing is found after it.
        return match place_old(hay, from..hay.len(), known, delta, hunk, &old, new.clone(), strict) {
            Err(Cause::Matcher(editkit_matcher::Error::NotFound { .. }) | Cause::InsideLine { .. })
                if anchor_line < from =>
            {
                place_old(hay, anchor_line..hay.len(), known, delta, hunk, &old, new, strict)
            }
            result => result,
        };
    }
    if old.is_empty() {
        let at = if hunk.end_of_file {
            // Pinned to the end; any anchors were only checked to exist.
            hay.len()
        } else if !hunk.anchors.is_empty() {
            from
        } else if let Some(start) = hunk.old_start {
            // `@@ -l,0 ...` inserts after line l.
            let index = isize::try_from(start).unwrap_or(isize::MAX).saturating_add(delta);
            let lines = line_count(hay);
            if index < 0 || index as usize > lines {
                return Err(Cause::LineOutOfRange { line: index.max(0) as usize, lines });
            }
            let at = line_start(hay, index as usize);
            if at < cursor {
                // Hunks come in file order: this one points into or before the previous one.
                return Err(Cause::LineOutOfRange { line: index as usize, lines });
            }
            at
        } else {
            hay.len()
        };
        return Ok(Placed::exact(at..at, new));
    }
    place_old(hay, from..hay.len(), known, delta, hunk, &old, new, strict)
}

/// The lines an occurrence of a hunk's `@@` anchors governs: the anchor line, then the lines
/// after it up to the next line indented no deeper (a closing bracket there belongs to it).
#[derive(Debug, Clone)]
struct Scope {
    /// Start of the last anchor's line.
    anchor: usize,
    /// Just after the last anchor's line.
    after: usize,
    /// End of the governed lines.
    end: usize,
}

/// Places a hunk with `@@` anchors inside the block each occurrence of its anchors governs
/// (stacked anchors narrow it): an anchor says where, so the chunk is searched there and
/// ambiguity judged there. `None` when no scope holds the chunk: the caller then searches
/// after the first occurrence of the anchors to the end of the file, as before.
fn place_in_anchor_scopes(
    hay: &str,
    known: (usize, usize),
    delta: isize,
    hunk: &Hunk,
    strict: bool,
) -> Result<Option<Placed>, Cause> {
    let cursor = known.0;
    let mut scopes = vec![Scope { anchor: cursor, after: cursor, end: hay.len() }];
    for anchor in &hunk.anchors {
        let mut narrowed = Vec::new();
        for scope in &scopes {
            for (start, after) in anchor_lines(hay, scope.after..scope.end, anchor) {
                narrowed.push(Scope { anchor: start, after, end: block_end(hay, start, after).min(scope.end) });
            }
        }
        if narrowed.is_empty() {
            return Err(Cause::AnchorNotFound { anchor: anchor.clone(), after_line: line_of(hay, cursor) });
        }
        narrowed.truncate(MAX_SCOPES);
        scopes = narrowed;
    }
    let old = hunk.old_text();
    let new = hunk.new_text();
    if old.is_empty() {
        // A pure addition goes right after the anchors: they must name one place.
        return match scopes.as_slice() {
            [only] => Ok(Some(Placed::exact(only.after..only.after, new))),
            several => Err(ambiguous_at(several.iter().map(|s| line_of(hay, s.anchor)).collect(), Rung::Exact)),
        };
    }
    let mut placed: Vec<Placed> = Vec::new();
    let mut ambiguous_lines: Vec<usize> = Vec::new();
    let mut rung = Rung::Exact;
    for scope in &scopes {
        let mut attempt = place_old(hay, scope.after..scope.end, known, delta, hunk, &old, new.clone(), strict);
        if matches!(attempt, Err(Cause::Matcher(editkit_matcher::Error::NotFound { .. }) | Cause::InsideLine { .. })) {
            // The anchor repeated as the chunk's first context line.
            attempt = place_old(hay, scope.anchor..scope.end, known, delta, hunk, &old, new.clone(), strict);
        }
        match attempt {
            Ok(found) => placed.push(found),
            Err(Cause::Matcher(editkit_matcher::Error::Ambiguous { lines, rung: found_rung, .. })) => {
                ambiguous_lines.extend(lines.iter().map(|l| l.saturating_sub(1)));
                rung = found_rung;
            }
            Err(_) => {}
        }
    }
    if placed.len() == 1 && ambiguous_lines.is_empty() {
        return Ok(placed.pop());
    }
    if placed.is_empty() && ambiguous_lines.is_empty() {
        return Ok(None);
    }
    ambiguous_lines.extend(placed.iter().map(|p| line_of(hay, p.range.start)));
    if let Some(first) = placed.first() {
        rung = first.rung;
    }
    ambiguous_lines.sort_unstable();
    ambiguous_lines.dedup();
    Err(ambiguous_at(ambiguous_lines, rung))
}

/// Most anchor scopes followed for one hunk.
const MAX_SCOPES: usize = 1_000;

/// `Ambiguous` for 0-based `lines`.
fn ambiguous_at(lines: Vec<usize>, rung: Rung) -> Cause {
    Cause::Matcher(editkit_matcher::Error::Ambiguous {
        count: lines.len(),
        lines: lines.into_iter().map(|l| l + 1).take(20).collect(),
        rung,
    })
}

/// Every line in `range` the anchor names, at the first test that names any: equal when
/// trimmed, else starting with it, else containing it. Each as (line start, just after it).
fn anchor_lines(hay: &str, range: Range<usize>, anchor: &str) -> Vec<(usize, usize)> {
    let wanted = anchor.trim();
    let rest = hay.get(range.clone()).unwrap_or_default();
    let tests: [&dyn Fn(&str) -> bool; 3] =
        [&|line: &str| line.trim() == wanted, &|line: &str| line.trim().starts_with(wanted), &|line: &str| {
            line.contains(wanted)
        }];
    for test in tests {
        let mut found = Vec::new();
        let mut offset = range.start;
        for piece in rest.split_inclusive('\n') {
            let start = offset;
            offset += piece.len();
            if test(piece.trim_end_matches('\n')) {
                found.push((start, offset));
            }
        }
        if !found.is_empty() {
            return found;
        }
    }
    Vec::new()
}

/// Where the block opened by the line at `start` ends: at the next non-blank line indented no
/// deeper than it (after that line when it closes a bracket), or at the end of the text.
fn block_end(hay: &str, start: usize, after: usize) -> usize {
    let indent = |line: &str| {
        line.chars().take_while(|c| c.is_whitespace()).map(|c| if c == '\t' { 4 } else { 1 }).sum::<usize>()
    };
    let own = indent(hay.get(start..after).unwrap_or_default());
    let mut offset = after;
    for piece in hay.get(after..).unwrap_or_default().split_inclusive('\n') {
        let line = piece.trim_end_matches(['\n', '\r']);
        if !line.trim().is_empty() && indent(line) <= own {
            let closes = line.trim_start().starts_with(['}', ')', ']']);
            return if closes { offset + piece.len() } else { offset };
        }
        offset += piece.len();
    }
    hay.len()
}

/// Places a hunk with old lines, searching in `range` of the text (to its end, usually).
#[allow(clippy::too_many_arguments)]
fn place_old(
    hay: &str,
    range: Range<usize>,
    known: (usize, usize),
    delta: isize,
    hunk: &Hunk,
    old: &str,
    new: String,
    strict: bool,
) -> Result<Placed, Cause> {
    let (from, until) = (range.start, range.end);
    let expected = hunk.old_start.map(|start| {
        isize::try_from(start).unwrap_or(isize::MAX).saturating_sub(1).saturating_add(delta).max(0) as usize
    });
    // A line number that names the place: when the old lines stand exactly there, the scan
    // below would choose them too (the candidate nearest the number, at distance 0), so they
    // are taken without scanning the rest of the file for others.
    if let Some(start) = expected.map(|line| line_start_from(hay, known, line))
        && start >= from
        && start + old.len() <= until
        && (!hunk.end_of_file || start + old.len() == hay.len())
        && hay.as_bytes().get(start..).is_some_and(|rest| rest.starts_with(old.as_bytes()))
    {
        return Ok(Placed::exact(start..start + old.len(), new));
    }
    // Exact candidates at line starts.
    let mut whole = Vec::new();
    let mut lines = Vec::new();
    let mut inside = Vec::new();
    // Line numbers are counted incrementally: a short hunk may occur thousands of times.
    let (mut counted_to, mut line) = (0usize, 0usize);
    let finder = memchr::memmem::Finder::new(old.as_bytes());
    let mut search = from;
    while let Some(offset) = hay.as_bytes().get(search..until).and_then(|rest| finder.find(rest)) {
        let start = search + offset;
        // Overlapping occurrences count: they make a hunk ambiguous too.
        search = start + 1;
        line += line_of(hay.get(counted_to..).unwrap_or_default(), start - counted_to);
        counted_to = start;
        let pinned_ok = !hunk.end_of_file || start + old.len() == hay.len();
        if pinned_ok && (start == 0 || hay.as_bytes().get(start - 1) == Some(&b'\n')) {
            whole.push(start);
            lines.push(line);
        } else if pinned_ok {
            inside.push(start);
        }
        if whole.len() + inside.len() > MAX_CANDIDATES {
            break;
        }
    }
    if !whole.is_empty() {
        let chosen = choose(&lines, expected, hunk.end_of_file, Rung::Exact)?;
        let start = whole.get(chosen).copied().expect("choose returns an index of the list");
        return Ok(Placed::exact(start..start + old.len(), new));
    }
    if let Some(&start) = inside.first() {
        // Only inside longer lines: accept when what precedes is indentation the hunk lost.
        let line_begin = hay.get(..start).and_then(|before| before.rfind('\n')).map_or(0, |p| p + 1);
        let prefix = hay.get(line_begin..start).unwrap_or_default();
        if inside.len() == 1 && !strict && prefix.chars().all(|c| c == ' ' || c == '\t') {
            let range = line_begin..start + old.len();
            let replacement = keep_context(hay.get(range.clone()).unwrap_or_default(), &indent(&new, prefix), hunk);
            return Ok(Placed {
                range,
                replacement,
                rung: Rung::LineTrimmed,
                score: 1.0,
                alignment: Alignment::Aligned,
            });
        }
        return Err(Cause::InsideLine { line: line_of(hay, start) + 1 });
    }
    // A `-` line is a claim about the file: on the block-anchor rung only context lines may
    // differ from it (see `MatchOptions::changed_lines_exact`).
    let options =
        MatchOptions { strict, within: Some(from..until), changed_lines_exact: true, ..MatchOptions::default() };
    let (range, found_rung) = match editkit_matcher::find(hay, old, &options) {
        Ok(found) => (found.byte_range(), found.rung()),
        Err(ambiguous @ editkit_matcher::Error::Ambiguous { count, .. }) => {
            // Every candidate (not the error's shortened list) competes on the line hint; when
            // some overlap, find_all cannot list them all, and the hunk stays ambiguous.
            let found = editkit_matcher::find_all(hay, old, &options).map_err(Cause::Matcher)?;
            if found.len() != count {
                return Err(Cause::Matcher(ambiguous));
            }
            let zero_based: Vec<usize> = found.iter().map(|m| m.line_range().start).collect();
            let rung = found.first().map_or(Rung::Exact, editkit_matcher::Match::rung);
            let chosen = choose(&zero_based, expected, hunk.end_of_file, rung)?;
            (
                found.get(chosen).map(editkit_matcher::Match::byte_range).expect("choose returns an index of the list"),
                rung,
            )
        }
        Err(editkit_matcher::Error::NotFound { .. }) => {
            // Ask `replace` for the most telling error: it notices an edit already applied.
            let err = editkit_matcher::replace(hay, old, &new, &options)
                .err()
                .unwrap_or(editkit_matcher::Error::NotFound { closest: None });
            return Err(Cause::Matcher(err));
        }
        Err(err) => return Err(Cause::Matcher(err)),
    };
    if hunk.end_of_file && range.end != hay.len() {
        return Err(Cause::NotAtEnd { line: line_of(hay, range.start) + 1 });
    }
    // Let the matcher re-indent the new lines like the file (only its one candidate is in range).
    let confined = MatchOptions { within: Some(range.clone()), ..options };
    let fallback = |range: Range<usize>, new: String| Placed {
        range,
        replacement: new,
        rung: Rung::LineTrimmed,
        score: 1.0,
        alignment: Alignment::Aligned,
    };
    let placed = match editkit_matcher::plan_replace(hay, old, &new, &confined) {
        Ok(planned) => {
            let found = planned.matches().first().cloned();
            let piece = planned.pieces().first();
            match (found, piece) {
                (Some(found), Some(piece)) => {
                    let replacement = piece.clone();
                    Placed {
                        range: found.byte_range(),
                        replacement,
                        rung: found.rung(),
                        score: found.score(),
                        alignment: found.alignment(),
                    }
                }
                _ => fallback(range, new),
            }
        }
        // A block-anchor region is only ever changed through the merge: its refusal stands.
        Err(err @ (editkit_matcher::Error::Unaligned { .. } | editkit_matcher::Error::AlreadyApplied { .. }))
            if found_rung == Rung::BlockAnchor =>
        {
            return Err(Cause::Matcher(err));
        }
        // `NoChange`/`AlreadyApplied` inside the one candidate: put the new lines as written.
        Err(_) => fallback(range, new),
    };
    let replacement = keep_context(hay.get(placed.range.clone()).unwrap_or_default(), &placed.replacement, hunk);
    Ok(Placed { replacement, ..placed })
}

/// On a tolerant match, the hunk's context lines are the file's lines, not the patch's
/// approximation of them: lines the hunk keeps are copied from the file byte for byte.
/// Only done when the file region and the replacement correspond line for line with the
/// hunk's old and new lines.
fn keep_context(matched: &str, replacement: &str, hunk: &Hunk) -> String {
    let file_lines: Vec<&str> = matched.split_inclusive('\n').collect();
    let mut new_lines: Vec<&str> = replacement.split_inclusive('\n').collect();
    if file_lines.len() != hunk.old.len() || new_lines.len() != hunk.new.len() {
        return replacement.to_owned();
    }
    for op in editkit_matcher::diff::ops(&hunk.old, &hunk.new) {
        if let similar::DiffOp::Equal { old_index, new_index, len } = op {
            for k in 0..len {
                if let (Some(slot), Some(line)) = (new_lines.get_mut(new_index + k), file_lines.get(old_index + k)) {
                    *slot = line;
                }
            }
        }
    }
    new_lines.concat()
}

/// Picks one of the candidate lines (0-based): the only one, the last one for an end pin, or
/// the one nearest the expected line; a tie is ambiguity.
fn choose(lines: &[usize], expected: Option<usize>, end_of_file: bool, rung: Rung) -> Result<usize, Cause> {
    if lines.len() == 1 {
        return Ok(0);
    }
    if end_of_file && !lines.is_empty() {
        return Ok(lines.len() - 1);
    }
    let ambiguous = |listed: Vec<usize>| {
        Cause::Matcher(editkit_matcher::Error::Ambiguous {
            count: listed.len(),
            lines: listed.into_iter().map(|l| l + 1).take(20).collect(),
            rung,
        })
    };
    let Some(expected) = expected else { return Err(ambiguous(lines.to_vec())) };
    let best = lines.iter().map(|l| l.abs_diff(expected)).min().unwrap_or(0);
    let nearest: Vec<usize> =
        (0..lines.len()).filter(|&i| lines.get(i).map(|l| l.abs_diff(expected)) == Some(best)).collect();
    match nearest.as_slice() {
        [only] => Ok(*only),
        _ => Err(ambiguous(nearest.iter().filter_map(|&i| lines.get(i).copied()).collect())),
    }
}

/// The byte just after the first line at or after `from` that the anchor names: equal when
/// trimmed, else starting with it, else containing it.
fn find_anchor(hay: &str, from: usize, anchor: &str) -> Result<usize, Cause> {
    let wanted = anchor.trim();
    let rest = hay.get(from..).unwrap_or_default();
    let tests: [&dyn Fn(&str) -> bool; 3] =
        [&|line: &str| line.trim() == wanted, &|line: &str| line.trim().starts_with(wanted), &|line: &str| {
            line.contains(wanted)
        }];
    for test in tests {
        let mut offset = from;
        for piece in rest.split_inclusive('\n') {
            offset += piece.len();
            if test(piece.trim_end_matches('\n')) {
                return Ok(offset);
            }
        }
    }
    Err(Cause::AnchorNotFound { anchor: anchor.to_owned(), after_line: line_of(hay, from) })
}

/// Adds `prefix` before every non-empty line.
fn indent(text: &str, prefix: &str) -> String {
    let mut out = String::with_capacity(text.len() + prefix.len() * 4);
    for piece in text.split_inclusive('\n') {
        if piece != "\n" {
            out.push_str(prefix);
        }
        out.push_str(piece);
    }
    out
}

/// 0-based line of byte `at`.
fn line_of(hay: &str, at: usize) -> usize {
    hay.as_bytes().get(..at).map_or(0, |before| memchr::memchr_iter(b'\n', before).count())
}

fn line_count(hay: &str) -> usize {
    let newlines = memchr::memchr_iter(b'\n', hay.as_bytes()).count();
    newlines + usize::from(!hay.is_empty() && !hay.ends_with('\n'))
}

/// [`line_start`], counting from `known`: an offset of `hay` and the newlines before it (the
/// previous hunk's end), so that hunks in file order scan the file once, not once each.
fn line_start_from(hay: &str, known: (usize, usize), index: usize) -> usize {
    let (at, newlines) = known;
    let Some(before) = hay.as_bytes().get(..at) else { return line_start(hay, index) };
    if index < newlines {
        return line_start(hay, index);
    }
    if index == newlines {
        return memchr::memrchr(b'\n', before).map_or(0, |p| p + 1);
    }
    let after = hay.as_bytes().get(at..).unwrap_or_default();
    memchr::memchr_iter(b'\n', after).nth(index - newlines - 1).map_or(hay.len(), |p| at + p + 1)
}

/// Byte offset where 0-based line `index` starts (the end for the line after the last).
fn line_start(hay: &str, index: usize) -> usize {
    if index == 0 {
        return 0;
    }
    memchr::memchr_iter(b'\n', hay.as_bytes()).nth(index - 1).map_or(hay.len(), |at| at + 1)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// Counting from a known offset finds the line start counting from the beginning finds.
        #[test]
        fn line_starts_counted_from_a_known_offset_are_those_counted_from_the_start(
            hay in "[a\n]{0,40}",
            at in 0usize..50,
            index in 0usize..50,
        ) {
            let at = at.min(hay.len());
            let known = (at, super::line_of(&hay, at));
            prop_assert_eq!(super::line_start_from(&hay, known, index), super::line_start(&hay, index));
        }
    }
}
