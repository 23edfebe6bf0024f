//! Selection: which of the deciding rung's candidates an operation takes (one, or every
//! non-overlapping one), when several are a refusal, and how a replacement is built and
//! checked (already applied, landing inside its own new text).

use std::ops::Range;

use crate::candidate::{Budget, Candidate};
use crate::ladder::{self, Decided, Region};
use crate::score::{SCORE_CELLS, similarity};
use crate::{
    Alignment, BLOCK_ANCHOR_MARGIN, Error, Limits, Match, MatchOptions, Planned, Replaced, Rung, merge, near_miss,
    normalise, replace,
};

/// Most candidate lines listed in [`Error::Ambiguous`].
const MAX_LISTED_LINES: usize = 20;

/// The one place `needle` stands (see [`crate::find`]).
pub(crate) fn find_one(haystack: &str, needle: &str, options: &MatchOptions) -> Result<Match, Error> {
    let region = Region::new(haystack, needle, options)?;
    let decided = ladder::climb(&region, needle, options)?.ok_or_else(|| not_found(&region, needle))?;
    let chosen = choose_one(&region, &decided)?;
    let mut cells = SCORE_CELLS;
    Ok(to_match(&region, &decided, chosen, &mut cells))
}

/// Every non-overlapping place of the deciding rung (see [`crate::find_all`]).
pub(crate) fn find_every(haystack: &str, needle: &str, options: &MatchOptions) -> Result<Vec<Match>, Error> {
    let region = Region::new(haystack, needle, options)?;
    let decided = ladder::climb(&region, needle, options)?.ok_or_else(|| not_found(&region, needle))?;
    let chosen = choose_all(&region, &decided, options)?;
    let mut cells = SCORE_CELLS;
    Ok(chosen.into_iter().map(|candidate| to_match(&region, &decided, candidate, &mut cells)).collect())
}

pub(crate) fn replace_with(
    haystack: &str,
    old: &str,
    new: &str,
    options: &MatchOptions,
    all: bool,
) -> Result<Replaced, Error> {
    Ok(plan_with(haystack, old, new, options, all)?.apply(haystack))
}

pub(crate) fn plan_with(
    haystack: &str,
    old: &str,
    new: &str,
    options: &MatchOptions,
    all: bool,
) -> Result<Planned, Error> {
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
    let mut matches = Vec::with_capacity(chosen.len());
    let mut pieces = Vec::with_capacity(chosen.len());
    let mut cells = SCORE_CELLS;
    // The size of the text the plan makes, counted before each piece is built: a plan past
    // the output limit is refused having built at most that much.
    let limit = options.limits.max_output_bytes;
    let mut output = haystack.len();
    for (done, candidate) in chosen.iter().enumerate() {
        let mut found = to_match(&region, &decided, candidate.clone(), &mut cells);
        let range = found.byte_range();
        let matched = slice(haystack, range.clone());
        if candidate.whole_lines
            && !matches!(decided.rung, Rung::Exact | Rung::BlockAnchor)
            && let Some((a, b)) = replace::nesting_mismatch(&decided.needle, matched)
        {
            // Lines matched with their indentation ignored, but nested otherwise than the old
            // text says: the new text's indentation would be a guess.
            let (first, last) = (found.first_line(), found.last_line());
            return Err(Error::Unaligned {
                first_line: first,
                last_line: last,
                similarity: found.score(),
                reason: format!(
                    "lines {} and {} are nested differently there than in the old text (its indentation was lost \
                     or changed), so the new text cannot be indented to fit",
                    first + a,
                    first + b
                ),
            });
        }
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
        output = (output - range.len()).saturating_add(replacement.len());
        if output > limit {
            let left = (chosen.len() - done - 1) as u64;
            let growth = replacement.len().saturating_sub(range.len()) as u64;
            let size = (output as u64).saturating_add(left.saturating_mul(growth));
            return Err(Error::OutputTooLarge { size, limit: limit as u64 });
        }
        pieces.push(replacement.into_owned());
        matches.push(found);
    }
    let planned = Planned { matches, pieces };
    if planned.changes_nothing(haystack) {
        // The block-anchor rung found text equal to `new` but not to `old`: the edit landed before.
        // On the normalising rungs, `old` itself equals the region: the edit changes nothing.
        return Err(match planned.matches.first() {
            Some(found) if found.rung() == Rung::BlockAnchor => Error::AlreadyApplied { line: found.first_line() },
            _ => Error::NoChange,
        });
    }
    if !all
        && let [only] = chosen.as_slice()
        && let Some(built) = planned.pieces.first()
        && let Some(err) = lands_inside_new(&region, only, old, new, decided.rung)
            .or_else(|| (built != new).then(|| lands_inside_new(&region, only, old, built, decided.rung)).flatten())
    {
        return Err(err);
    }
    Ok(planned)
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

fn choose_all(region: &Region<'_>, decided: &Decided<'_>, options: &MatchOptions) -> Result<Vec<Candidate>, Error> {
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
    let mut budget = Budget::new(&Limits::default());
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
    let found: Vec<Candidate> =
        crate::exact::exact(text, new, 1_000, &mut budget).ok()?.into_iter().filter(whole).collect();
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
