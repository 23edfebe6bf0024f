//! The ladder: each rung collects candidates; the first rung with any decides.
//!
//! The rungs are climbed strictest first (`Rung::ALL`): exact (memchr), canonical_equivalent,
//! line_trimmed, unicode_normalised (typographic dashes, quotes, odd spaces as ASCII),
//! whitespace_normalised, indentation_flexible (relative indentation kept; tabs, spaces and blank
//! lines tolerated), escape_normalised (a needle written with literal `\n`, `\t`, `\"`, `\$`),
//! block_anchor (first and last lines anchor, the middle scored by strsim and accepted at 0.7 or
//! more). The fuzzy rungs are cumulative: each tolerates what the ones before it did.
//!
//! Two candidates on the deciding rung (for block_anchor, two within 0.05 of the best score) are
//! `Ambiguous` with their lines; the ladder never falls through to a looser rung to break a tie.
//! Canonical equivalence compares the texts in NFC; the later rungs compare them as they are, so
//! an old text drifted in form and in whitespace at once is not found.

use std::borrow::Cow;

use memchr::memmem;

use crate::candidate::{Budget, Candidate, line_candidate};
use crate::exact::{exact, newlines};
use crate::lines::{Lines, NeedleLines};
use crate::normalise::{self, KeyMatcher, Level};
use crate::{Error, MatchOptions, Rung};

/// The part of the haystack searched.
pub(crate) struct Region<'a> {
    pub(crate) base: usize,
    pub(crate) base_line: usize,
    text: &'a str,
    /// Built on first use: the exact rung does without.
    lines: std::cell::OnceCell<Lines<'a>>,
}

impl<'a> Region<'a> {
    /// Checks the inputs against the options and cuts out the region to search.
    pub(crate) fn new(haystack: &'a str, needle: &str, options: &MatchOptions) -> Result<Self, Error> {
        if needle.is_empty() {
            return Err(Error::EmptyNeedle);
        }
        let limits = &options.limits;
        check_limit("haystack_bytes", haystack.len(), limits.max_haystack_bytes, "confine the search with a range")?;
        check_limit("needle_bytes", needle.len(), limits.max_needle_bytes, "use a shorter old text")?;
        let range = options.within.clone().unwrap_or(0..haystack.len());
        let invalid = || Error::InvalidRange { start: range.start, end: range.end, len: haystack.len() };
        let text = haystack.get(range.clone()).ok_or_else(invalid)?;
        let before = haystack.as_bytes().get(..range.start).ok_or_else(invalid)?;
        Ok(Self {
            base: range.start,
            base_line: memchr::memchr_iter(b'\n', before).count(),
            text,
            lines: std::cell::OnceCell::new(),
        })
    }

    pub(crate) fn text(&self) -> &'a str {
        self.text
    }

    pub(crate) fn lines(&self) -> &Lines<'a> {
        self.lines.get_or_init(|| Lines::new(self.text))
    }

    /// The 0-based line (within the region) holding byte `offset`.
    pub(crate) fn line_of(&self, offset: usize) -> usize {
        match self.lines.get() {
            Some(lines) => lines.line_of(offset),
            None => newlines(self.text, 0, offset),
        }
    }
}

fn check_limit(what: &'static str, size: usize, limit: usize, advice: &'static str) -> Result<(), Error> {
    if size > limit {
        return Err(Error::LimitExceeded { what, limit: limit as u64, advice });
    }
    Ok(())
}

/// What the deciding rung found, and the needle it searched for (unescaped on the escape rung).
pub(crate) struct Decided<'n> {
    pub(crate) rung: Rung,
    pub(crate) candidates: Vec<Candidate>,
    pub(crate) needle: Cow<'n, str>,
}

/// Climbs the ladder; `None` when no rung found anything.
pub(crate) fn climb<'n>(
    region: &Region<'_>,
    needle: &'n str,
    options: &MatchOptions,
) -> Result<Option<Decided<'n>>, Error> {
    let cap = options.limits.max_matches;
    let decided = |rung, candidates: Vec<Candidate>, needle| Ok(Some(Decided { rung, candidates, needle }));
    let mut budget = Budget::new(&options.limits);
    let found = exact(region.text(), needle, cap, &mut budget)?;
    if !found.is_empty() {
        return decided(Rung::Exact, found, Cow::Borrowed(needle));
    }
    if options.strict {
        return Ok(None);
    }
    let found = crate::canonical::find(region.text(), needle, cap, &mut budget)?;
    if !found.is_empty() {
        return decided(Rung::CanonicalEquivalent, found, Cow::Borrowed(needle));
    }
    let needle_lines = NeedleLines::new(needle);
    // A needle of only whitespace would match every blank line on the tolerant rungs.
    let tolerant = !normalise::is_blank(needle);
    if tolerant {
        for (rung, level) in [
            (Rung::LineTrimmed, Level::Trimmed),
            (Rung::UnicodeNormalised, Level::Unicode),
            (Rung::WhitespaceNormalised, Level::Whitespace),
        ] {
            let mut found = whole_lines(region.lines(), &needle_lines, level, cap, &mut budget)?;
            if level != Level::Trimmed {
                found.extend(fragments(region.lines(), &needle_lines, level, cap));
                found.sort_by_key(|candidate| candidate.start);
            }
            if !found.is_empty() {
                return decided(rung, found, Cow::Borrowed(needle));
            }
        }
        let found = indentation_flexible(region.lines(), &needle_lines, cap, &mut budget)?;
        if !found.is_empty() {
            return decided(Rung::IndentationFlexible, found, Cow::Borrowed(needle));
        }
    }
    if needle.contains('\\') {
        let unescaped = normalise::unescape(needle);
        if unescaped != needle && !unescaped.is_empty() {
            let mut found = exact(region.text(), &unescaped, cap, &mut budget)?;
            if found.is_empty() && !normalise::is_blank(&unescaped) {
                let unescaped_lines = NeedleLines::new(&unescaped);
                found = whole_lines(region.lines(), &unescaped_lines, Level::Whitespace, cap, &mut budget)?;
            }
            if !found.is_empty() {
                return decided(Rung::EscapeNormalised, found, Cow::Owned(unescaped));
            }
        }
    }
    if tolerant {
        let found = crate::block::block_anchor(region.lines(), &needle_lines, &mut budget)?;
        if !found.is_empty() {
            return decided(Rung::BlockAnchor, found, Cow::Borrowed(needle));
        }
    }
    Ok(None)
}

/// Cost of comparing one more line of a candidate, in budget units.
const LINE_WORK: u64 = 16;

/// Runs of whole lines whose keys at `level` equal the needle's, line for line.
pub(crate) fn whole_lines(
    lines: &Lines<'_>,
    needle: &NeedleLines<'_>,
    level: Level,
    cap: usize,
    budget: &mut Budget,
) -> Result<Vec<Candidate>, Error> {
    let keys: Vec<String> = needle.lines.iter().map(|line| normalise::key(level, line)).collect();
    let mut found = Vec::new();
    let count = keys.len();
    if count == 0 || lines.len() < count || keys.iter().all(String::is_empty) {
        return Ok(found);
    }
    let mut matcher = KeyMatcher::new(level);
    for first in 0..=lines.len() - count {
        let mut compared: u64 = 0;
        let all_equal = keys.iter().enumerate().all(|(offset, key)| {
            compared += 1;
            matcher.eq(lines.line(first + offset), key)
        });
        // The first comparison at each line is the linear scan; longer runs pay.
        if compared > 1 {
            budget.spend((compared - 1) * LINE_WORK)?;
        }
        if all_equal {
            found.push(line_candidate(lines, first, first + count - 1, needle.trailing_newline));
            if found.len() > cap {
                break;
            }
        }
    }
    Ok(found)
}

/// Occurrences of a one-line needle inside longer lines, compared at `level` (the whole-line
/// occurrences are [`whole_lines`]' to report). A line is examined only when it holds the
/// needle's longest run of ASCII word characters verbatim, which every occurrence must.
fn fragments(lines: &Lines<'_>, needle: &NeedleLines<'_>, level: Level, cap: usize) -> Vec<Candidate> {
    let mut found = Vec::new();
    let ([line], false) = (needle.lines.as_slice(), needle.trailing_newline) else {
        return found;
    };
    let key = normalise::key(level, line);
    if key.is_empty() {
        return found;
    }
    // Runs of ASCII word characters survive every normalisation, except that a zero-width
    // character dropped from the middle of a run joins its halves: with any in the text, every
    // line is examined.
    let text = lines.text();
    let mut runs: Vec<&str> =
        key.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|run| !run.is_empty()).collect();
    if normalise::has_zero_width(text) {
        runs.clear();
    }
    runs.sort_by_key(|run| std::cmp::Reverse(run.len()));
    runs.dedup();
    let anchor = runs.first().copied().unwrap_or("");
    let candidate_lines: Box<dyn Iterator<Item = usize>> = if anchor.is_empty() {
        Box::new(0..lines.len())
    } else {
        let mut previous = None;
        Box::new(memmem::find_iter(text.as_bytes(), anchor.as_bytes()).filter_map(move |offset| {
            let idx = lines.line_of(offset);
            (previous != Some(idx)).then(|| {
                previous = Some(idx);
                idx
            })
        }))
    };
    let finder = memmem::Finder::new(key.as_bytes());
    for idx in candidate_lines {
        let line = lines.line(idx);
        if !runs.iter().all(|run| memmem::find(line.as_bytes(), run.as_bytes()).is_some()) {
            continue;
        }
        let mapped = normalise::Mapped::new(level, line);
        let bytes = mapped.text.as_bytes();
        let mut from = 0;
        while let Some(offset) = bytes.get(from..).and_then(|rest| finder.find(rest)) {
            let start = from + offset;
            let end = start + key.len();
            from = start + 1;
            let before = mapped.text.get(..start).unwrap_or("");
            let after = mapped.text.get(end..).unwrap_or("");
            if before.trim().is_empty() && after.trim().is_empty() {
                continue;
            }
            if let Some((source_start, source_end)) = mapped.source_range(start, end) {
                found.push(Candidate {
                    start: lines.start(idx) + source_start,
                    end: lines.start(idx) + source_end,
                    first_line: idx,
                    last_line: idx,
                    score: None,
                    whole_lines: false,
                });
                if found.len() > cap {
                    return found;
                }
            }
        }
    }
    found
}

/// Non-blank lines in order with equal whitespace-normalised keys and the same relative
/// indentation in levels; blank lines are skipped on both sides.
fn indentation_flexible(
    lines: &Lines<'_>,
    needle: &NeedleLines<'_>,
    cap: usize,
    budget: &mut Budget,
) -> Result<Vec<Candidate>, Error> {
    let wanted: Vec<(String, usize)> = needle
        .lines
        .iter()
        .filter(|line| !normalise::is_blank(line))
        .map(|line| (normalise::key(Level::Whitespace, line), normalise::indent_cols(line)))
        .collect();
    let mut found = Vec::new();
    let Some((first_key, first_cols)) = wanted.first() else {
        return Ok(found);
    };
    let needle_levels = levels(wanted.iter().map(|(_, cols)| *cols), *first_cols);
    let mut matcher = KeyMatcher::new(Level::Whitespace);
    let mut seen_cols = Vec::with_capacity(wanted.len());
    for first in 0..lines.len() {
        if normalise::is_blank(lines.line(first)) || !matcher.eq(lines.line(first), first_key) {
            continue;
        }
        seen_cols.clear();
        seen_cols.push(normalise::indent_cols(lines.line(first)));
        let mut idx = first;
        let mut complete = true;
        for (key, _) in wanted.iter().skip(1) {
            idx += 1;
            while idx < lines.len() && normalise::is_blank(lines.line(idx)) {
                idx += 1;
            }
            budget.spend(LINE_WORK)?;
            if idx >= lines.len() || !matcher.eq(lines.line(idx), key) {
                complete = false;
                break;
            }
            seen_cols.push(normalise::indent_cols(lines.line(idx)));
        }
        if complete && levels(seen_cols.iter().copied(), seen_cols[0]) == needle_levels {
            found.push(line_candidate(lines, first, idx, needle.trailing_newline));
            if found.len() > cap {
                break;
            }
        }
    }
    Ok(found)
}

/// Indentation relative to the first line, in units of the lines' own indentation step.
fn levels(cols: impl Iterator<Item = usize> + Clone, first_cols: usize) -> Vec<isize> {
    let relative = cols.map(|col| col as isize - first_cols as isize);
    let unit = normalise::indent_unit(relative.clone()).unwrap_or(1) as isize;
    relative.map(|rel| rel / unit).collect()
}
