//! The closest region to a needle that was not found, found cheaply.

use std::collections::HashMap;

use crate::ladder::Region;
use crate::lines::NeedleLines;
use crate::normalise;
use crate::{Divergence, NearMiss};

/// Needle lines shorter than this (trimmed) are too common to vote (`}`, `else:`...).
const MIN_VOTER_LEN: usize = 4;
/// Character comparisons allowed for the fallback scan when no line matches outright.
const FALLBACK_WORK: usize = 4_000_000;
/// Below this similarity the fallback shows nothing.
const FALLBACK_FLOOR: f64 = 0.5;

/// Picks the window of needle-many lines that shares the most trimmed lines with the needle
/// (one hash lookup per line), or failing that the line most similar to the needle's first
/// line on small texts; then scores it and finds the first differing line.
pub(crate) fn closest(region: &Region<'_>, needle: &str) -> Option<NearMiss> {
    let needle = NeedleLines::new(needle);
    let lines = region.lines();
    let count = needle.lines.len();
    let start = vote(region, &needle).or_else(|| fallback(region, &needle))?;
    let end = (start + count).min(lines.len());
    let window: Vec<&str> = (start..end).map(|idx| lines.line(idx)).collect();
    let similarity = crate::score::similarity(&needle.lines.join("\n"), &window.join("\n"), &mut 1_000_000);
    let divergence = needle.lines.iter().enumerate().find_map(|(offset, expected)| {
        let found = window.get(offset);
        (found != Some(expected)).then(|| Divergence {
            line: region.base_line + start + offset + 1,
            expected: normalise::visible(expected),
            found: found.map_or_else(|| "<end of text>".to_owned(), |line| normalise::visible(line)),
        })
    });
    Some(NearMiss {
        first_line: region.base_line + start + 1,
        last_line: region.base_line + end.max(start + 1),
        similarity,
        divergence,
    })
}

fn vote(region: &Region<'_>, needle: &NeedleLines<'_>) -> Option<usize> {
    let mut voters: HashMap<&str, Vec<usize>> = HashMap::new();
    let (mut shortest, mut longest) = (usize::MAX, 0);
    for (offset, line) in needle.lines.iter().enumerate() {
        let trimmed = line.trim();
        if trimmed.len() >= MIN_VOTER_LEN {
            voters.entry(trimmed).or_default().push(offset);
            shortest = shortest.min(trimmed.len());
            longest = longest.max(trimmed.len());
        }
    }
    if voters.is_empty() {
        return None;
    }
    let mut votes: HashMap<usize, usize> = HashMap::new();
    let lines = region.lines();
    for idx in 0..lines.len() {
        let trimmed = lines.line(idx).trim();
        if trimmed.len() < shortest || trimmed.len() > longest {
            continue;
        }
        if let Some(offsets) = voters.get(trimmed) {
            for &offset in offsets {
                if let Some(start) = idx.checked_sub(offset) {
                    *votes.entry(start).or_default() += 1;
                }
            }
        }
    }
    votes.into_iter().max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0))).map(|(start, _)| start)
}

fn fallback(region: &Region<'_>, needle: &NeedleLines<'_>) -> Option<usize> {
    let (offset, first) = needle.lines.iter().enumerate().find(|(_, line)| !normalise::is_blank(line))?;
    let first = first.trim();
    let lines = region.lines();
    let width = first.chars().count().max(1);
    if lines.len().saturating_mul(width * width) > FALLBACK_WORK {
        return None;
    }
    let mut best: Option<(usize, f64)> = None;
    for idx in 0..lines.len() {
        let line = lines.line(idx).trim();
        // A line more than twice as long cannot reach the floor; bytes bound chars from above.
        if line.len() > 8 * first.len() {
            continue;
        }
        let score = strsim::normalized_levenshtein(first, line);
        if score >= FALLBACK_FLOOR && best.is_none_or(|(_, top)| score > top) {
            best = Some((idx, score));
        }
    }
    best.map(|(idx, _)| idx.saturating_sub(offset))
}
