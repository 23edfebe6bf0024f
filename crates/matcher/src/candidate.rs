//! What every rung produces and spends: candidate regions, the fuzzy-work budget.

use crate::Error;
use crate::Limits;
use crate::lines::Lines;

/// A candidate region, in bytes and 0-based lines relative to the searched region.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) first_line: usize,
    /// Inclusive.
    pub(crate) last_line: usize,
    /// Set by the block-anchor rung; the others are scored once chosen.
    pub(crate) score: Option<f64>,
    /// Whether the candidate spans whole lines (then `new` may be re-indented).
    pub(crate) whole_lines: bool,
}

/// Work left for the fuzzy rungs.
pub(crate) struct Budget {
    left: u64,
    limit: u64,
}

impl Budget {
    pub(crate) fn new(limits: &Limits) -> Self {
        Self { left: limits.max_fuzzy_work, limit: limits.max_fuzzy_work }
    }

    pub(crate) fn spend(&mut self, work: u64) -> Result<(), Error> {
        match self.left.checked_sub(work) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => Err(Error::LimitExceeded {
                what: "fuzzy_work",
                limit: self.limit,
                advice: "the fuzzy search grew too large; give old text with more distinctive first and last lines, or confine the search with a range",
            }),
        }
    }
}

/// The candidate spanning lines `first..=last` (0-based) of `lines`.
pub(crate) fn line_candidate(lines: &Lines<'_>, first: usize, last: usize, trailing_newline: bool) -> Candidate {
    // A stray CR before the last line's LF stays in the file when the needle ends mid-line.
    let end = if trailing_newline {
        lines.end_with_newline(last)
    } else if lines.line(last).ends_with('\r') {
        lines.end(last) - 1
    } else {
        lines.end(last)
    };
    Candidate { start: lines.start(first), end, first_line: first, last_line: last, score: None, whole_lines: true }
}
