//! Locate and replace exactly one region of text, tolerating drift in whitespace, indentation,
//! typography and escaping, and never editing the wrong place.
//!
//! An agent's `old` text is looked up by a ladder of [`Rung`]s, strictest first: exact,
//! line-trimmed, unicode-normalised, whitespace-normalised, indentation-flexible,
//! escape-normalised and block-anchor. The first rung that finds anything decides: two or more
//! candidates there give [`Error::Ambiguous`], and the ladder never falls through to a looser rung
//! that could pick one of them. Every result says which rung matched and how similar the text was.
//!
//! Reach first for [`find`] and [`replace`] (or the same on a [`Ladder`]), with [`Options`] to
//! demand an exact match or to confine the search to one byte range. Errors are typed and carry
//! what an agent needs to retry: the closest region for [`Error::NotFound`], the candidate lines
//! for [`Error::Ambiguous`]. The crate is pure: `&str` in, result out, no I/O. Input is expected to
//! be LF-normalised; a stray `\r` counts as trailing whitespace on the tolerant rungs, and one
//! ending the last matched line stays in the file.
//!
//! Work is bounded ([`Limits`]): each rung is one linear pass over the lines plus budgeted extra
//! work, so a miss through the whole ladder on a 100k-line file takes milliseconds.
//!
//! ```
//! # fn main() -> Result<(), editkit_matcher::Error> {
//! let src = "def f():\n\treturn 1\n";
//! let found = editkit_matcher::Ladder::default().find(src, "    return 1")?;
//! assert_eq!(found.rung(), editkit_matcher::Rung::LineTrimmed);
//! assert_eq!(found.first_line(), 2);
//!
//! // The replacement is re-indented like the file: tabs stay tabs.
//! let options = editkit_matcher::Options::default();
//! let edited = editkit_matcher::replace(src, "    return 1", "    return 2", &options)?;
//! assert_eq!(edited.text(), "def f():\n\treturn 2\n");
//!
//! // Two equally good places: refused, with their line numbers.
//! let err = editkit_matcher::replace("x = 1\nx = 1\n", "x = 1", "x = 2", &options).unwrap_err();
//! assert_eq!(err.kind(), "ambiguous");
//! # Ok(()) }
//! ```
#![deny(missing_docs)]

mod block;
pub mod diff;
mod error;
mod ladder;
mod lines;
mod merge;
mod near_miss;
mod normalise;
mod replace;
mod rung;
mod types;

use std::ops::Range;

pub use error::{Divergence, Error, ErrorKind, NearMiss};
pub use ladder::{BLOCK_ANCHOR_MARGIN, BLOCK_ANCHOR_THRESHOLD};
pub use rung::Rung;
pub use types::{Alignment, Limits, Match, Options, Replaced};

use ladder::{Candidate, Decided, Region};

/// Most candidate lines listed in [`Error::Ambiguous`].
const MAX_LISTED_LINES: usize = 20;

/// A configured ladder: [`Options`] kept for repeated calls.
///
/// `Ladder::default()` tries every rung on the whole text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ladder {
    options: Options,
}

impl Ladder {
    /// A ladder with these options.
    #[must_use]
    pub fn new(options: Options) -> Self {
        Self { options }
    }

    /// A ladder with only the exact rung.
    #[must_use]
    pub fn strict() -> Self {
        Self::new(Options { strict: true, ..Options::default() })
    }

    /// The options in force.
    #[must_use]
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// See [`find`].
    ///
    /// # Errors
    /// As [`find`].
    pub fn find(&self, haystack: &str, needle: &str) -> Result<Match, Error> {
        find(haystack, needle, &self.options)
    }

    /// See [`find_all`].
    ///
    /// # Errors
    /// As [`find_all`].
    pub fn find_all(&self, haystack: &str, needle: &str) -> Result<Vec<Match>, Error> {
        find_all(haystack, needle, &self.options)
    }

    /// See [`replace`].
    ///
    /// # Errors
    /// As [`replace`].
    pub fn replace(&self, haystack: &str, old: &str, new: &str) -> Result<Replaced, Error> {
        replace(haystack, old, new, &self.options)
    }

    /// See [`replace_all`].
    ///
    /// # Errors
    /// As [`replace_all`].
    pub fn replace_all(&self, haystack: &str, old: &str, new: &str) -> Result<Replaced, Error> {
        replace_all(haystack, old, new, &self.options)
    }
}

/// Finds the one place `needle` stands in `haystack`.
///
/// ```
/// let options = editkit_matcher::Options::default();
/// let found = editkit_matcher::find("a = 1\nb = 2\n", "b = 2", &options).unwrap();
/// assert_eq!(found.byte_range(), 6..11);
/// assert_eq!(found.rung().as_str(), "exact");
/// ```
///
/// # Errors
/// [`Error::EmptyNeedle`]; [`Error::NotFound`] with the closest region; [`Error::Ambiguous`]
/// when the deciding rung has two or more candidates; [`Error::InvalidRange`] for a bad
/// [`Options::within`]; [`Error::LimitExceeded`] when a bound in [`Limits`] is hit.
pub fn find(haystack: &str, needle: &str, options: &Options) -> Result<Match, Error> {
    let region = Region::new(haystack, needle, options)?;
    let decided = ladder::climb(&region, needle, options)?.ok_or_else(|| not_found(&region, needle))?;
    let chosen = choose_one(&region, &decided)?;
    let mut cells = SCORE_CELLS;
    Ok(to_match(&region, &decided, chosen, &mut cells))
}

/// Finds every non-overlapping place the deciding rung finds, in text order (for replace-all).
///
/// # Errors
/// As [`find`], except that several candidates are not an error; more than
/// [`Limits::max_matches`] gives [`Error::LimitExceeded`].
pub fn find_all(haystack: &str, needle: &str, options: &Options) -> Result<Vec<Match>, Error> {
    let region = Region::new(haystack, needle, options)?;
    let decided = ladder::climb(&region, needle, options)?.ok_or_else(|| not_found(&region, needle))?;
    let chosen = choose_all(&region, &decided, options)?;
    let mut cells = SCORE_CELLS;
    Ok(chosen.into_iter().map(|candidate| to_match(&region, &decided, candidate, &mut cells)).collect())
}

/// Replaces the one place `old` stands in `haystack` with `new`.
///
/// Bytes outside the matched range are kept as they are. On a tolerant rung matching whole
/// lines, `new` is re-indented by the difference between the needle's indentation and the
/// file's (tabs stay tabs).
///
/// ```
/// let options = editkit_matcher::Options::default();
/// let edited = editkit_matcher::replace("a = 1\n", "a = 1", "a = 2", &options).unwrap();
/// assert_eq!(edited.text(), "a = 2\n");
/// let again = editkit_matcher::replace(edited.text(), "a = 1", "a = 2", &options).unwrap_err();
/// assert_eq!(again.kind(), "already_applied");
/// ```
///
/// # Errors
/// As [`find`], plus [`Error::NoChange`] when `old == new` or the result equals the input, and
/// [`Error::AlreadyApplied`] when `old` is absent but `new` is present exactly once (or the only
/// exact match of `old` sits inside an exact copy of `new`).
pub fn replace(haystack: &str, old: &str, new: &str, options: &Options) -> Result<Replaced, Error> {
    replace_with(haystack, old, new, options, false)
}

/// Replaces every non-overlapping candidate of the deciding rung.
///
/// # Errors
/// As [`replace`], except that several candidates are not an error; [`Error::AlreadyApplied`]
/// when `old` is absent and `new` is present at least once.
pub fn replace_all(haystack: &str, old: &str, new: &str, options: &Options) -> Result<Replaced, Error> {
    replace_with(haystack, old, new, options, true)
}

fn replace_with(haystack: &str, old: &str, new: &str, options: &Options, all: bool) -> Result<Replaced, Error> {
    if old.is_empty() {
        return Err(Error::EmptyNeedle);
    }
    if old == new {
        return Err(Error::NoChange);
    }
    let region = Region::new(haystack, old, options)?;
    let Some(decided) = ladder::climb(&region, old, options)? else {
        return Err(already_applied(&region, new, all).unwrap_or_else(|| not_found(&region, old)));
    };
    let chosen = if all { choose_all(&region, &decided, options)? } else { vec![choose_one(&region, &decided)?] };
    let mut text = String::with_capacity(haystack.len() + new.len());
    let mut matches = Vec::with_capacity(chosen.len());
    let mut inserted = Vec::with_capacity(chosen.len());
    let mut copied_to = 0;
    let mut cells = SCORE_CELLS;
    let mut built = String::new();
    for candidate in &chosen {
        let mut found = to_match(&region, &decided, candidate.clone(), &mut cells);
        let range = found.byte_range();
        let matched = slice(haystack, range.clone());
        let mut replacement = replace::replacement(new, &decided.needle, matched, decided.rung, candidate.whole_lines);
        if decided.rung == Rung::BlockAnchor {
            let (merged, alignment) = merge::merge(
                &decided.needle,
                new,
                matched,
                &replacement,
                found.first_line(),
                options.changed_lines_exact,
            )
            .map_err(|err| match err {
                Error::Unaligned { first_line, last_line, reason, .. } => {
                    Error::Unaligned { first_line, last_line, similarity: found.score(), reason }
                }
                other => other,
            })?;
            found.alignment = alignment;
            replacement = std::borrow::Cow::Owned(merged);
        }
        text.push_str(slice(haystack, copied_to..range.start));
        let at = text.len();
        text.push_str(&replacement);
        built = replacement.into_owned();
        inserted.push(at..text.len());
        copied_to = range.end;
        matches.push(found);
    }
    text.push_str(slice(haystack, copied_to..haystack.len()));
    if text == haystack {
        // The block-anchor rung found text equal to `new` but not to `old`: the edit landed before.
        // On the normalising rungs, `old` itself equals the region: the edit changes nothing.
        return Err(match matches.first() {
            Some(found) if found.rung() == Rung::BlockAnchor => Error::AlreadyApplied { line: found.first_line() },
            _ => Error::NoChange,
        });
    }
    if !all
        && let [only] = chosen.as_slice()
        && let Some(err) = lands_inside_new(&region, only, old, new, decided.rung)
            .or_else(|| (built != new).then(|| lands_inside_new(&region, only, old, &built, decided.rung)).flatten())
    {
        return Err(err);
    }
    Ok(Replaced { text, matches, inserted })
}

/// A slice at offsets the ladder produced: on char boundaries by construction.
fn slice(text: &str, range: Range<usize>) -> &str {
    text.get(range).expect("ladder ranges lie on char boundaries inside the haystack")
}

fn choose_one(region: &Region<'_>, decided: &Decided<'_>) -> Result<Candidate, Error> {
    let mut candidates = decided.candidates.clone();
    if decided.rung == Rung::BlockAnchor {
        candidates.sort_by(|a, b| b.score.unwrap_or(0.0).total_cmp(&a.score.unwrap_or(0.0)));
        let best = candidates.first().and_then(|c| c.score).unwrap_or(0.0);
        candidates.retain(|c| ties(best, c.score.unwrap_or(0.0)));
        candidates.sort_by_key(|c| c.start);
    }
    match candidates.as_slice() {
        [only] => Ok(only.clone()),
        [] => Err(not_found(region, &decided.needle)),
        several => {
            let mut lines: Vec<usize> = several.iter().map(|c| region.base_line + c.first_line + 1).collect();
            // Two candidates may start on one line (two occurrences in it, or two block ends).
            lines.dedup();
            lines.truncate(MAX_LISTED_LINES);
            Err(Error::Ambiguous { count: several.len(), lines, rung: decided.rung })
        }
    }
}

/// Whether two block-anchor scores are a tie: `margin` or less apart (with a tolerance for
/// floating-point rounding, so 0.80 and 0.75 tie as documented).
fn ties(best: f64, other: f64) -> bool {
    best - other <= BLOCK_ANCHOR_MARGIN + 1e-9
}

fn choose_all(region: &Region<'_>, decided: &Decided<'_>, options: &Options) -> Result<Vec<Candidate>, Error> {
    let limit = options.limits.max_matches;
    if decided.candidates.len() > limit {
        return Err(Error::LimitExceeded {
            what: "matches",
            limit: limit as u64,
            advice: "too many places match; use a more specific old text or confine the search with a range",
        });
    }
    let mut candidates = decided.candidates.clone();
    if decided.rung == Rung::BlockAnchor {
        // Overlapping blocks compete by score, best first; a rival within the margin of the
        // block that beat it makes the edit ambiguous.
        candidates
            .sort_by(|a, b| b.score.unwrap_or(0.0).total_cmp(&a.score.unwrap_or(0.0)).then(a.start.cmp(&b.start)));
        let mut chosen: Vec<Candidate> = Vec::with_capacity(candidates.len());
        for candidate in candidates {
            match chosen.iter().find(|kept| candidate.start < kept.end && kept.start < candidate.end) {
                None => chosen.push(candidate),
                Some(kept) if ties(kept.score.unwrap_or(0.0), candidate.score.unwrap_or(0.0)) => {
                    let mut lines =
                        vec![region.base_line + kept.first_line + 1, region.base_line + candidate.first_line + 1];
                    lines.sort_unstable();
                    lines.dedup();
                    return Err(Error::Ambiguous { count: 2, lines, rung: Rung::BlockAnchor });
                }
                Some(_) => {}
            }
        }
        chosen.sort_by_key(|c| c.start);
        return Ok(chosen);
    }
    candidates.sort_by_key(|c| c.start);
    let mut chosen: Vec<Candidate> = Vec::with_capacity(candidates.len());
    for candidate in candidates {
        if chosen.last().is_none_or(|last| candidate.start >= last.end) {
            chosen.push(candidate);
        }
    }
    Ok(chosen)
}

fn to_match(region: &Region<'_>, decided: &Decided<'_>, candidate: Candidate, cells: &mut usize) -> Match {
    let matched = slice(region.text(), candidate.start..candidate.end);
    let score = match candidate.score {
        Some(score) => score,
        None if decided.rung == Rung::Exact => 1.0,
        None => similarity(&decided.needle, matched, cells),
    };
    Match {
        byte_range: region.base + candidate.start..region.base + candidate.end,
        line_range: region.base_line + candidate.first_line..region.base_line + candidate.last_line + 1,
        rung: decided.rung,
        score,
        alignment: Alignment::Aligned,
    }
}

fn not_found(region: &Region<'_>, needle: &str) -> Error {
    Error::NotFound { closest: near_miss::closest(region, needle) }
}

/// `AlreadyApplied` when `old` was not found but `new` stands in the region (exactly once, or at
/// least once for replace-all).
fn already_applied(region: &Region<'_>, new: &str, all: bool) -> Option<Error> {
    if normalise::is_blank(new) {
        return None;
    }
    let mut budget = ladder::Budget::new(&Limits::default());
    // Only a copy standing as whole lines counts (indentation and trailing blanks aside): `b`
    // inside `b = 2` is not the edit applied, `if x:` indented under a method is.
    let text = region.text();
    let whole = |c: &Candidate| {
        let line_start = text.get(..c.start).and_then(|before| before.rfind('\n')).map_or(0, |p| p + 1);
        let starts_line = text.get(line_start..c.start).is_some_and(|lead| lead.trim().is_empty());
        let rest = text.get(c.end..).unwrap_or_default();
        let ends_line = new.ends_with('\n') || rest.split('\n').next().is_none_or(|tail| tail.trim().is_empty());
        starts_line && ends_line
    };
    let found: Vec<Candidate> = ladder::exact(text, new, 1_000, &mut budget).ok()?.into_iter().filter(whole).collect();
    match found.as_slice() {
        [only] => Some(Error::AlreadyApplied { line: region.base_line + only.first_line + 1 }),
        [first, ..] if all => Some(Error::AlreadyApplied { line: region.base_line + first.first_line + 1 }),
        _ => None,
    }
}

/// `AlreadyApplied` when the one match of `old` sits inside an exact copy of `new`: replacing
/// again would apply the edit twice. On the exact rung the copy must hold `old` at the same
/// offset as `new` does; on a tolerant rung any copy of `new` covering the match counts.
fn lands_inside_new(region: &Region<'_>, chosen: &Candidate, old: &str, new: &str, rung: Rung) -> Option<Error> {
    if normalise::is_blank(new) {
        return None;
    }
    let text = region.text();
    let copy_start = if rung == Rung::Exact {
        new.match_indices(old).find_map(|(offset, _)| {
            let start = chosen.start.checked_sub(offset)?;
            text.get(start..)?.starts_with(new).then_some(start)
        })
    } else {
        // Only copies starting within `new.len()` before the match can cover it.
        let mut from = chosen.end.saturating_sub(new.len()).min(chosen.start);
        while !text.is_char_boundary(from) {
            from -= 1;
        }
        let window = text.get(from..)?;
        memchr::memmem::find_iter(window.as_bytes(), new.as_bytes())
            .map(|offset| from + offset)
            .take_while(|&start| start <= chosen.start)
            .find(|&start| start + new.len() >= chosen.end)
    }?;
    Some(Error::AlreadyApplied { line: region.base_line + region.line_of(copy_start) + 1 })
}

/// Character comparisons one call may spend scoring matches; past it scores are line-level.
const SCORE_CELLS: usize = 20_000_000;

/// Character-level similarity from 0.0 to 1.0, estimated line by line for very long inputs or
/// once `cells` (character comparisons left) runs out.
pub(crate) fn similarity(a: &str, b: &str, cells: &mut usize) -> f64 {
    const MAX_CELLS: usize = 1_000_000;
    if a == b {
        return 1.0;
    }
    let needed = a.len().saturating_mul(b.len());
    if needed <= MAX_CELLS && needed <= *cells {
        *cells -= needed;
        return strsim::normalized_levenshtein(a, b);
    }
    let a_lines: Vec<&str> = a.split('\n').map(str::trim).collect();
    let b_lines: Vec<&str> = b.split('\n').map(str::trim).collect();
    let equal = a_lines.iter().zip(&b_lines).filter(|(x, y)| x == y).count();
    equal as f64 / a_lines.len().max(b_lines.len()) as f64
}
