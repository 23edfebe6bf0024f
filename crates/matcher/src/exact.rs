//! The exact rung's search: every occurrence of the needle, counted against the budget. A
//! leaf the ladder and the canonical-form search both call.

use memchr::memmem;

use crate::Error;
use crate::candidate::{Budget, Candidate};

/// Every occurrence, overlapping ones included (they make a needle ambiguous too).
///
/// Each occurrence costs its length from the budget: dense overlapping occurrences of a long
/// periodic needle would otherwise take quadratic time.
pub(crate) fn exact(text: &str, needle: &str, cap: usize, budget: &mut Budget) -> Result<Vec<Candidate>, Error> {
    let finder = memmem::Finder::new(needle.as_bytes());
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut from = 0;
    // Line numbers are counted on the way, so the exact rung needs no line index.
    let (mut counted_to, mut line) = (0, 0);
    while let Some(offset) = bytes.get(from..).and_then(|rest| finder.find(rest)) {
        let start = from + offset;
        let end = start + needle.len();
        line += newlines(text, counted_to, start);
        let last_line = line + newlines(text, start, end.saturating_sub(1));
        counted_to = start;
        found.push(Candidate { start, end, first_line: line, last_line, score: None, whole_lines: false });
        if found.len() > cap {
            break;
        }
        budget.spend(needle.len() as u64)?;
        from = start + 1;
    }
    Ok(found)
}

/// How many `\n` lie in `text[from..to]`.
pub(crate) fn newlines(text: &str, from: usize, to: usize) -> usize {
    text.as_bytes().get(from..to).map_or(0, |bytes| memchr::memchr_iter(b'\n', bytes).count())
}
