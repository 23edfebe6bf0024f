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
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_haystack_bytes: 256 << 20,
            max_needle_bytes: 1 << 20,
            max_matches: 100_000,
            max_fuzzy_work: 50_000_000,
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

    /// Similarity of the found text to the needle, from 0.0 to 1.0: 1.0 on the exact rung, the
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
