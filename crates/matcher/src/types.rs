//! MatchOptions in, matches and replacements out.

use std::ops::Range;

use crate::Rung;

/// Bounds on the work one call may do. Hitting one gives [`crate::Error::LimitExceeded`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Largest text searched, in bytes. Default: 256 MiB.
    pub max_haystack_bytes: usize,
    /// Largest needle, in bytes. Default: 1 MiB.
    pub max_needle_bytes: usize,
    /// Most candidates one rung may collect (`find` reports `Ambiguous` with the count saturated
    /// there; `find_all`/`replace_all` fail). Default: 100 000.
    pub max_matches: usize,
    /// Budget of work beyond one linear scan per rung, in rough character comparisons: bytes
    /// verified for overlapping exact occurrences, lines compared after a candidate's first one
    /// (16 each), and similarity scoring on the block-anchor rung. Default: 50 000 000.
    pub max_fuzzy_work: u64,
    /// Largest text a replacement may produce, in bytes: the haystack's length plus, for each
    /// match, what its replacement adds. It is counted before each replacement is built, so a
    /// `replace_all` of many places by a long text is refused
    /// ([`crate::Error::OutputTooLarge`]) having built at most this much. Default: 256 MiB.
    pub max_output_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_haystack_bytes: 256 << 20,
            max_needle_bytes: 1 << 20,
            max_matches: 100_000,
            max_fuzzy_work: 50_000_000,
            max_output_bytes: 256 << 20,
        }
    }
}

/// How to search. Any combination of fields is valid; start from `MatchOptions::default()`.
///
/// ```
/// let options = editkit_matcher::MatchOptions { strict: true, ..Default::default() };
/// let err = editkit_matcher::find("a  b", "a b", &options).unwrap_err();
/// assert_eq!(err.kind(), "not_found");
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MatchOptions {
    /// Only the exact rung runs. Default: false.
    pub strict: bool,
    /// Confine the search to this byte range of the haystack (for example one function).
    /// Ranges and line numbers in results stay relative to the whole haystack. It must lie on
    /// character boundaries. Default: the whole haystack.
    pub within: Option<Range<usize>>,
    /// Bounds on the work. Default: [`Limits::default`].
    pub limits: Limits,
    /// On the block-anchor rung, every line the change removes or rewrites must stand in the
    /// file as the old text has it (up to whitespace and typography); a stale copy of a line is
    /// refused rather than placed by similarity. Patches set it: a `-` line is a claim about
    /// the file, not drift. Default: false (an `edit_file` old text may misremember a line it
    /// rewrites).
    pub changed_lines_exact: bool,
}

/// How the region a match found corresponds to the old text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Alignment {
    /// Line for line: the new text replaced the region as written.
    Aligned,
    /// The block-anchor region differs from the old text by whole lines (left out, invented or
    /// misremembered): the change was applied to the file's own lines, so lines the old text
    /// never mentioned were kept and lines the file never had were not written.
    Merged,
}

impl Alignment {
    /// The stable snake_case name (`aligned`, `merged`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Alignment::Aligned => "aligned",
            Alignment::Merged => "merged",
        }
    }
}

/// Where a needle was found, by which rung, and how similar the found text is.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Match {
    pub(crate) byte_range: Range<usize>,
    pub(crate) line_range: Range<usize>,
    pub(crate) rung: Rung,
    pub(crate) score: f64,
    pub(crate) alignment: Alignment,
}

impl Match {
    /// Byte range of the found text in the whole haystack; always on character boundaries.
    #[must_use]
    pub fn byte_range(&self) -> Range<usize> {
        self.byte_range.clone()
    }

    /// 0-based, half-open range of the lines the found text touches (line `n` is the one after
    /// the `n`-th `\n`).
    #[must_use]
    pub fn line_range(&self) -> Range<usize> {
        self.line_range.clone()
    }

    /// 1-based number of the first line touched, for messages.
    #[must_use]
    pub fn first_line(&self) -> usize {
        self.line_range.start + 1
    }

    /// 1-based number of the last line touched (inclusive), for messages.
    #[must_use]
    pub fn last_line(&self) -> usize {
        self.line_range.end.max(self.line_range.start + 1)
    }

    /// The rung that found it.
    #[must_use]
    pub fn rung(&self) -> Rung {
        self.rung
    }

    /// Similarity of the found text to the needle, from 0.0 to 1.0: 1.0 on the exact and
    /// canonical-equivalence rungs (the same text in another normalisation form), the
    /// character-level similarity on the normalising rungs (a line-level estimate for very long
    /// needles), and the score of the middle lines on the block-anchor rung.
    #[must_use]
    pub fn score(&self) -> f64 {
        self.score
    }

    /// How the region corresponds to the old text: [`Alignment::Merged`] only from a replacement
    /// on the block-anchor rung whose region differs from the old text by whole lines.
    #[must_use]
    pub fn alignment(&self) -> Alignment {
        self.alignment
    }
}

/// A replacement decided but not applied: each place found and the text that goes there.
/// Applying it costs one copy of the haystack; a caller that keeps its own text (with line
/// endings, say) splices the pieces into it instead.
#[derive(Debug, Clone, PartialEq)]
pub struct Planned {
    pub(crate) matches: Vec<Match>,
    pub(crate) pieces: Vec<String>,
}

impl Planned {
    /// The places replaced, in text order, with ranges in the haystack.
    #[must_use]
    pub fn matches(&self) -> &[Match] {
        &self.matches
    }

    /// The text that replaces each match (re-indented or merged as the rung decided), one per
    /// match.
    #[must_use]
    pub fn pieces(&self) -> &[String] {
        &self.pieces
    }

    /// Each match's byte range in the haystack with the text that goes there.
    pub fn edits(&self) -> impl Iterator<Item = (Range<usize>, &str)> {
        self.matches.iter().zip(&self.pieces).map(|(found, piece)| (found.byte_range(), piece.as_str()))
    }

    /// The rung that decided.
    #[must_use]
    pub fn rung(&self) -> Rung {
        self.matches.first().map_or(Rung::Exact, Match::rung)
    }

    /// Applies the plan to the haystack it was made for.
    ///
    /// # Panics
    /// When `haystack` is not the text the plan was made for (a range past its end or off a
    /// char boundary).
    #[must_use]
    pub fn apply(self, haystack: &str) -> Replaced {
        let growth: usize = self.edits().map(|(range, piece)| piece.len().saturating_sub(range.len())).sum();
        let mut text = String::with_capacity(haystack.len() + growth);
        let mut inserted = Vec::with_capacity(self.pieces.len());
        let mut copied_to = 0;
        for (range, piece) in self.edits() {
            text.push_str(&haystack[copied_to..range.start]);
            inserted.push(text.len()..text.len() + piece.len());
            text.push_str(piece);
            copied_to = range.end;
        }
        text.push_str(&haystack[copied_to..]);
        Replaced { text, matches: self.matches, inserted }
    }

    /// Whether applying the plan to `haystack` gives `haystack` back, found without building
    /// the new text.
    pub(crate) fn changes_nothing(&self, haystack: &str) -> bool {
        let grown: isize = self.edits().map(|(range, piece)| piece.len() as isize - range.len() as isize).sum();
        if grown != 0 {
            return false;
        }
        let hay = haystack.as_bytes();
        // `at`: where the new text built so far ends, compared with the haystack there.
        let (mut at, mut copied_to) = (0, 0);
        for (range, piece) in self.edits() {
            let gap = &hay[copied_to..range.start];
            if at != copied_to && hay.get(at..at + gap.len()) != Some(gap) {
                return false;
            }
            at += gap.len();
            if hay.get(at..at + piece.len()) != Some(piece.as_bytes()) {
                return false;
            }
            at += piece.len();
            copied_to = range.end;
        }
        // Same total length: the rest is compared at the same offset.
        let rest = &hay[copied_to..];
        at == copied_to || hay.get(at..at + rest.len()) == Some(rest)
    }
}

/// The text after a replacement, with what was matched and where the new text went.
#[derive(Debug, Clone, PartialEq)]
pub struct Replaced {
    pub(crate) text: String,
    pub(crate) matches: Vec<Match>,
    pub(crate) inserted: Vec<Range<usize>>,
}

impl Replaced {
    /// The whole new text.
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The whole new text, by value.
    #[must_use]
    pub fn into_text(self) -> String {
        self.text
    }

    /// The matches replaced, in text order, with ranges in the original haystack.
    #[must_use]
    pub fn matches(&self) -> &[Match] {
        &self.matches
    }

    /// Byte ranges of the inserted (possibly re-indented) text in [`Replaced::text`], one per
    /// match.
    #[must_use]
    pub fn inserted(&self) -> &[Range<usize>] {
        &self.inserted
    }

    /// The rung that decided.
    #[must_use]
    pub fn rung(&self) -> Rung {
        self.matches.first().map_or(Rung::Exact, Match::rung)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{Match, Planned};
    use crate::{Alignment, Rung};

    fn planned(haystack: &str, cuts: &[(usize, usize, String)]) -> Planned {
        let mut matches = Vec::new();
        let mut pieces = Vec::new();
        let mut from = 0;
        for (start, len, piece) in cuts {
            let start = from + start % (haystack.len() - from + 1);
            let end = (start + len).min(haystack.len());
            matches.push(Match {
                byte_range: start..end,
                line_range: 1..2,
                rung: Rung::Exact,
                score: 1.0,
                alignment: Alignment::Aligned,
            });
            pieces.push(piece.clone());
            from = end;
        }
        Planned { matches, pieces }
    }

    proptest! {
        #[test]
        fn a_plan_changes_nothing_exactly_when_its_text_is_the_haystack(
            haystack in "[ab]{0,12}",
            cuts in prop::collection::vec((0usize..6, 0usize..3, "[ab]{0,3}"), 0..4),
        ) {
            let plan = planned(&haystack, &cuts);
            let nothing = plan.changes_nothing(&haystack);
            prop_assert_eq!(nothing, plan.apply(&haystack).text() == haystack);
        }
    }
}
