//! The one error type of the crate, and the near-miss hint carried by `NotFound`.
//!
//! Errors carry what a retry needs: `NotFound` the closest region and its first differing line
//! with whitespace made visible (a near miss says what `·`, `→` and `␍` mean), `AlreadyApplied`
//! the line where the new text already stands (only a copy of the new text standing as whole
//! lines counts), `Ambiguous` every candidate's line. They render in their caller's `Words`
//! (`Error::message`): an edit's "old text" and `replace_all` advice by default, a patch hunk's
//! "lines" and `@@`-anchor advice for the patch crate, which never rewrites a matcher message.

use std::fmt;

use crate::Rung;

/// Why no edit was made. Every variant has a stable [`Error::kind`] word and a message an agent
/// can act on.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// The text to find is empty.
    EmptyNeedle,
    /// No rung of the ladder found the text.
    NotFound {
        /// The most similar region, when one is worth showing.
        closest: Option<NearMiss>,
    },
    /// The deciding rung found more than one candidate (or, on the block-anchor rung, more than
    /// one candidate within the score margin of the best one). Nothing was changed.
    Ambiguous {
        /// How many candidates the deciding rung found (saturates at the candidate limit).
        count: usize,
        /// 1-based first lines of the candidates, in file order, each listed once (at most 20).
        lines: Vec<usize>,
        /// The rung that found them.
        rung: Rung,
    },
    /// The block-anchor rung found a similar region, but the change cannot be applied to the
    /// file's own lines without guessing (a line the old text leaves out stands where the change
    /// rewrites or inserts, the change rewrites a line that is not in the file, or, with
    /// [`crate::MatchOptions::changed_lines_exact`], a line to remove differs in the file). Its kind
    /// is `not_found`: the old text, as written, is not in the file.
    Unaligned {
        /// 1-based first line of the similar region.
        first_line: usize,
        /// 1-based last line of the similar region (inclusive).
        last_line: usize,
        /// The block-anchor score of the region, from 0.0 to 1.0.
        similarity: f64,
        /// What stops the change, naming the lines.
        reason: String,
    },
    /// `old` is absent but `new` is present: the edit seems to have landed already.
    AlreadyApplied {
        /// 1-based line where the new text starts.
        line: usize,
    },
    /// `old` equals `new`, or the replacement leaves the text unchanged.
    NoChange,
    /// A bound on the work was hit.
    LimitExceeded {
        /// What grew too large: `haystack_bytes`, `needle_bytes`, `matches` or `fuzzy_work`.
        what: &'static str,
        /// The limit in force.
        limit: u64,
        /// What to do about it.
        advice: &'static str,
    },
    /// The text after the replacement would be larger than [`crate::Limits::max_output_bytes`];
    /// found before it was built. Its kind is `limit_exceeded`.
    OutputTooLarge {
        /// The size the text would have, in bytes: exact when the last replacement was
        /// counted, else what was counted so far plus, for each match left, the last
        /// replacement's growth.
        size: u64,
        /// The limit in force.
        limit: u64,
    },
    /// The byte range given to confine the search is outside the text or not on char boundaries.
    InvalidRange {
        /// Start of the range given.
        start: usize,
        /// End of the range given.
        end: usize,
        /// Length of the text in bytes.
        len: usize,
    },
}

/// How a message names what was searched for and how to make an ambiguous match unique: the
/// matcher's errors serve an edit's old text and a patch hunk's lines alike, and each caller
/// has them rendered in its own words ([`Error::message`]) instead of rewording them.
///
/// ```
/// use editkit_matcher::Words;
/// let hunk = Words { subject: "lines", disambiguate: "add context lines to make it unique" };
/// let err = editkit_matcher::find("x\nx\n", "x", &Default::default()).unwrap_err();
/// assert!(err.to_string().starts_with("old text matches 2 places"));
/// assert!(err.message(hunk).starts_with("lines matches 2 places"));
/// assert!(err.message(hunk).ends_with("add context lines to make it unique"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Words {
    /// What the searched text is called (`old text`).
    pub subject: &'static str,
    /// How to make an ambiguous match unique.
    pub disambiguate: &'static str,
}

impl Words {
    /// An edit's words, those of [`Error`]'s `Display`.
    pub const EDIT: Words =
        Words { subject: "old text", disambiguate: "add surrounding lines to make it unique, or use replace_all" };
}

impl Error {
    /// The message in `words`; `Display` gives it in [`Words::EDIT`].
    #[must_use]
    pub fn message(&self, words: Words) -> String {
        let Words { subject, disambiguate } = words;
        match self {
            Error::EmptyNeedle => {
                format!("{subject} is empty; give the exact text to replace, with a line or two of context")
            }
            Error::NotFound { closest } => format!("{subject} not found{}", not_found_hint(closest.as_ref())),
            Error::Ambiguous { count, lines, rung } => format!(
                "{subject} matches {count} places ({rung} rung) starting at {}; {disambiguate}",
                list_lines(lines, *count)
            ),
            Error::Unaligned { first_line, last_line, reason, .. } => format!(
                "{subject} not found as written: lines {first_line}-{last_line} hold a similar block, but {reason}; read those lines and copy them exactly, then retry"
            ),
            Error::AlreadyApplied { line } => format!(
                "{subject} not found, but the new text is already present at line {line}; the edit seems to be applied already, read the file before retrying"
            ),
            Error::NoChange => "the replacement leaves the text unchanged; old and new text are the same".to_owned(),
            Error::LimitExceeded { what, limit, advice } => format!("{what} exceeds the limit of {limit}; {advice}"),
            Error::OutputTooLarge { size, limit } => format!(
                "the text after the replacement would be {size} bytes, over the limit of {limit} bytes; replace fewer \
                 places or with shorter text"
            ),
            Error::InvalidRange { start, end, len } => {
                format!("search range {start}..{end} is not a range of the {len}-byte text on character boundaries")
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(Words::EDIT))
    }
}

impl std::error::Error for Error {}

impl Error {
    /// The stable snake_case word for this error: `empty_needle`, `not_found`, `ambiguous`,
    /// `already_applied`, `no_change`, `limit_exceeded` or `invalid_range`.
    ///
    /// ```
    /// let err = editkit_matcher::find("a", "", &Default::default()).unwrap_err();
    /// assert_eq!(err.kind(), "empty_needle");
    /// ```
    #[must_use]
    pub const fn kind(&self) -> &'static str {
        self.error_kind().as_str()
    }

    /// The typed kind of this error.
    #[must_use]
    pub const fn error_kind(&self) -> ErrorKind {
        match self {
            Error::EmptyNeedle => ErrorKind::EmptyNeedle,
            Error::NotFound { .. } | Error::Unaligned { .. } => ErrorKind::NotFound,
            Error::Ambiguous { .. } => ErrorKind::Ambiguous,
            Error::AlreadyApplied { .. } => ErrorKind::AlreadyApplied,
            Error::NoChange => ErrorKind::NoChange,
            Error::LimitExceeded { .. } | Error::OutputTooLarge { .. } => ErrorKind::LimitExceeded,
            Error::InvalidRange { .. } => ErrorKind::InvalidRange,
        }
    }
}

impl Error {
    /// The region most like the old text, when the error is a miss that has one: a `NotFound`
    /// with a near miss, or an `Unaligned` block (its lines and score; no divergence line, the
    /// reason names the lines instead).
    #[must_use]
    pub fn closest(&self) -> Option<NearMiss> {
        match self {
            Error::NotFound { closest } => closest.clone(),
            Error::Unaligned { first_line, last_line, similarity, .. } => Some(NearMiss {
                first_line: *first_line,
                last_line: *last_line,
                similarity: *similarity,
                divergence: None,
            }),
            _ => None,
        }
    }
}

fn not_found_hint(closest: Option<&NearMiss>) -> String {
    match closest {
        Some(near) => format!("; {near}"),
        None => "; no similar region either, read the file and copy the text exactly".to_owned(),
    }
}

fn list_lines(lines: &[usize], count: usize) -> String {
    let listed: Vec<String> = lines.iter().map(usize::to_string).collect();
    match lines {
        // Several places starting on one line (side by side, or blocks of different lengths).
        [line] if count > 1 => format!("line {line} ({count} places start on it)"),
        [line] => format!("line {line}"),
        _ => format!("lines {}", listed.join(", ")),
    }
}

/// The region most similar to a needle that was not found: enough to retry without a new read.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct NearMiss {
    /// 1-based first line of the region.
    pub first_line: usize,
    /// 1-based last line of the region (inclusive).
    pub last_line: usize,
    /// Similarity of the region to the needle, from 0.0 to 1.0.
    pub similarity: f64,
    /// The first line where the region and the needle differ.
    pub divergence: Option<Divergence>,
}

/// The first differing line of a near miss, whitespace and CR made visible
/// (`·` space, `→` tab, `␍` CR, `\u{00a0}`-style escapes for other invisible characters).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Divergence {
    /// 1-based line in the text.
    pub line: usize,
    /// The needle's line there, made visible.
    pub expected: String,
    /// The text's line there, made visible (`<end of text>` past the end).
    pub found: String,
}

impl fmt::Display for NearMiss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.first_line == self.last_line {
            write!(f, "closest is line {}", self.first_line)?;
        } else {
            write!(f, "closest is lines {}-{}", self.first_line, self.last_line)?;
        }
        write!(f, " (similarity {:.2})", self.similarity)?;
        if let Some(divergence) = &self.divergence {
            write!(
                f,
                ", first difference at line {}: expected `{}`, found `{}`",
                divergence.line, divergence.expected, divergence.found
            )?;
        }
        f.write_str("; copy those lines exactly and retry")?;
        if let Some(divergence) = &self.divergence {
            let shown = format!("{}{}", divergence.expected, divergence.found);
            let marks: Vec<&str> = [('·', "`·` marks a space"), ('→', "`→` a tab"), ('␍', "`␍` a carriage return")]
                .into_iter()
                .filter(|(mark, _)| shown.contains(*mark))
                .map(|(_, meaning)| meaning)
                .collect();
            if !marks.is_empty() {
                write!(f, " ({}; they are not in the file)", marks.join(", "))?;
            }
        }
        Ok(())
    }
}

/// What kind of failure a matcher [`Error`] is.
///
/// Not `#[non_exhaustive]` on purpose: the facade maps every kind in one exhaustive `match`, so
/// a kind added here fails to compile there until the contract says what it becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// `empty_needle`: an empty old text
    EmptyNeedle,
    /// `not_found`: the old text is not in the text (or not as written)
    NotFound,
    /// `ambiguous`: more than one place matches
    Ambiguous,
    /// `already_applied`: the new text already stands there
    AlreadyApplied,
    /// `no_change`: the old and new text are the same
    NoChange,
    /// `limit_exceeded`: past a work or match bound
    LimitExceeded,
    /// `invalid_range`: a line range outside the text
    InvalidRange,
}

impl ErrorKind {
    /// The stable snake_case word.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::EmptyNeedle => "empty_needle",
            ErrorKind::NotFound => "not_found",
            ErrorKind::Ambiguous => "ambiguous",
            ErrorKind::AlreadyApplied => "already_applied",
            ErrorKind::NoChange => "no_change",
            ErrorKind::LimitExceeded => "limit_exceeded",
            ErrorKind::InvalidRange => "invalid_range",
        }
    }
}
