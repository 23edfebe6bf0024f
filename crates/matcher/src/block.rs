//! The block-anchor rung: first and last lines anchor, the middle is scored.

use crate::Error;
use crate::candidate::{Budget, Candidate, line_candidate};
use crate::lines::{Lines, NeedleLines};
use crate::normalise::{self, KeyMatcher, Level};

/// Lowest middle-lines score the block-anchor rung accepts.
pub const BLOCK_ANCHOR_THRESHOLD: f64 = 0.7;

/// Two block-anchor candidates whose scores differ by this much or less are a tie (ambiguous).
pub const BLOCK_ANCHOR_MARGIN: f64 = 0.05;

/// Candidates whose first and last lines equal the needle's (whitespace-normalised), whose line
/// count is within ½× to 2× the needle's, and whose middle lines score at least the threshold.
///
/// Work is near-linear: one pass finds the anchors, and only anchor pairs within the length
/// window are scored, each paying its quadratic similarity cost from the budget.
pub(crate) fn block_anchor(
    lines: &Lines<'_>,
    needle: &NeedleLines<'_>,
    budget: &mut Budget,
) -> Result<Vec<Candidate>, Error> {
    let mut found = Vec::new();
    let count = needle.lines.len();
    let (Some(first), Some(last)) = (needle.lines.first(), needle.lines.last()) else {
        return Ok(found);
    };
    let first_key = normalise::key(Level::Whitespace, first);
    let last_key = normalise::key(Level::Whitespace, last);
    if count < 3 || first_key.is_empty() || last_key.is_empty() {
        return Ok(found);
    }
    let middle = needle.lines.get(1..count - 1).unwrap_or_default();
    let needle_middle = join_keys(middle.iter().copied());
    let needle_chars = needle_middle.chars().count();
    let min_lines = count.div_ceil(2).max(2);
    let max_lines = count * 2;

    let mut matcher = KeyMatcher::new(Level::Whitespace);
    let lasts: Vec<usize> = (0..lines.len()).filter(|&idx| matcher.eq(lines.line(idx), &last_key)).collect();
    if lasts.is_empty() {
        return Ok(found);
    }
    for start in 0..lines.len() {
        if !matcher.eq(lines.line(start), &first_key) {
            continue;
        }
        let lowest = start + min_lines - 1;
        let highest = start + max_lines - 1;
        let from = lasts.partition_point(|&end| end < lowest);
        for &end in lasts.iter().skip(from).take_while(|&&end| end <= highest) {
            let candidate_middle = join_keys((start + 1..end).map(|idx| lines.line(idx)));
            let candidate_chars = candidate_middle.chars().count();
            // Levenshtein distance is at least the length difference: skip hopeless pairs cheaply.
            let longest = needle_chars.max(candidate_chars);
            if longest > 0 {
                let ceiling = 1.0 - needle_chars.abs_diff(candidate_chars) as f64 / longest as f64;
                if ceiling < BLOCK_ANCHOR_THRESHOLD {
                    continue;
                }
            }
            budget.spend((needle_chars as u64 + 1) * (candidate_chars as u64 + 1))?;
            let score = strsim::normalized_levenshtein(&needle_middle, &candidate_middle);
            if score >= BLOCK_ANCHOR_THRESHOLD {
                // A stray CR before the last line's LF stays, as on the other line rungs.
                found.push(Candidate {
                    score: Some(score),
                    ..line_candidate(lines, start, end, needle.trailing_newline)
                });
            }
        }
    }
    Ok(found)
}

fn join_keys<'a>(lines: impl Iterator<Item = &'a str>) -> String {
    let mut joined = String::new();
    let mut buffer = String::new();
    for (idx, line) in lines.enumerate() {
        if idx > 0 {
            joined.push('\n');
        }
        normalise::key_into(Level::Whitespace, line, &mut buffer);
        joined.push_str(&buffer);
    }
    joined
}
