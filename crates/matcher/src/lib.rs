//! Locate and replace exactly one region of text, tolerating drift in whitespace, indentation,
//! typography and escaping, and never editing the wrong place.
//!
//! An agent's `old` text is looked up by a ladder of [`Rung`]s, strictest first: exact,
//! canonical-equivalent (NFC = NFD), line-trimmed, unicode-normalised, whitespace-normalised,
//! indentation-flexible, escape-normalised and block-anchor. The first rung that finds anything decides: two or more
//! candidates there give [`Error::Ambiguous`], and the ladder never falls through to a looser rung
//! that could pick one of them. Every result says which rung matched and how similar the text was.
//!
//! Reach first for [`find`] and [`replace`] (or the same on a [`Ladder`]), with [`MatchOptions`] to
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
//! let options = editkit_matcher::MatchOptions::default();
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
mod candidate;
mod canonical;
pub mod diff;
mod error;
mod exact;
mod ladder;
mod lines;
mod merge;
mod near_miss;
mod normalise;
pub mod rebase;
mod replace;
mod rung;
mod score;
mod select;
pub mod snippet;
mod types;

pub use block::{BLOCK_ANCHOR_MARGIN, BLOCK_ANCHOR_THRESHOLD};
pub use error::{Divergence, Error, ErrorKind, NearMiss, Words};
pub use rung::Rung;
pub use types::{Alignment, Limits, Match, MatchOptions, Planned, Replaced};

/// A configured ladder: [`MatchOptions`] kept for repeated calls.
///
/// `Ladder::default()` tries every rung on the whole text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ladder {
    options: MatchOptions,
}

impl Ladder {
    /// A ladder with these options.
    #[must_use]
    pub fn new(options: MatchOptions) -> Self {
        Self { options }
    }

    /// A ladder with only the exact rung.
    #[must_use]
    pub fn strict() -> Self {
        Self::new(MatchOptions { strict: true, ..MatchOptions::default() })
    }

    /// The options in force.
    #[must_use]
    pub fn options(&self) -> &MatchOptions {
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
/// let options = editkit_matcher::MatchOptions::default();
/// let found = editkit_matcher::find("a = 1\nb = 2\n", "b = 2", &options).unwrap();
/// assert_eq!(found.byte_range(), 6..11);
/// assert_eq!(found.rung().as_str(), "exact");
/// ```
///
/// # Errors
/// [`Error::EmptyNeedle`]; [`Error::NotFound`] with the closest region; [`Error::Ambiguous`]
/// when the deciding rung has two or more candidates; [`Error::InvalidRange`] for a bad
/// [`MatchOptions::within`]; [`Error::LimitExceeded`] when a bound in [`Limits`] is hit.
pub fn find(haystack: &str, needle: &str, options: &MatchOptions) -> Result<Match, Error> {
    select::find_one(haystack, needle, options)
}

/// Finds every non-overlapping place the deciding rung finds, in text order (for replace-all).
///
/// # Errors
/// As [`find`], except that several candidates are not an error; more than
/// [`Limits::max_matches`] gives [`Error::LimitExceeded`].
pub fn find_all(haystack: &str, needle: &str, options: &MatchOptions) -> Result<Vec<Match>, Error> {
    select::find_every(haystack, needle, options)
}

/// Replaces the one place `old` stands in `haystack` with `new`.
///
/// Bytes outside the matched range are kept as they are. On a tolerant rung matching whole
/// lines, `new` is re-indented by the difference between the needle's indentation and the
/// file's (tabs stay tabs).
///
/// ```
/// let options = editkit_matcher::MatchOptions::default();
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
pub fn replace(haystack: &str, old: &str, new: &str, options: &MatchOptions) -> Result<Replaced, Error> {
    select::replace_with(haystack, old, new, options, false)
}

/// Replaces every non-overlapping candidate of the deciding rung.
///
/// # Errors
/// As [`replace`], except that several candidates are not an error; [`Error::AlreadyApplied`]
/// when `old` is absent and `new` is present at least once.
pub fn replace_all(haystack: &str, old: &str, new: &str, options: &MatchOptions) -> Result<Replaced, Error> {
    select::replace_with(haystack, old, new, options, true)
}

/// What [`replace`] would do, decided with the same checks and errors, without building the
/// new text: for a caller that splices the pieces into its own copy.
///
/// ```
/// let options = editkit_matcher::MatchOptions::default();
/// let plan = editkit_matcher::plan_replace("a = 1\nb = 1\n", "b = 1", "b = 2", &options).unwrap();
/// assert_eq!(plan.edits().collect::<Vec<_>>(), [(6..11, "b = 2")]);
/// assert_eq!(plan.apply("a = 1\nb = 1\n").text(), "a = 1\nb = 2\n");
/// ```
///
/// # Errors
/// As [`replace`].
pub fn plan_replace(haystack: &str, old: &str, new: &str, options: &MatchOptions) -> Result<Planned, Error> {
    select::plan_with(haystack, old, new, options, false)
}

/// What [`replace_all`] would do, without building the new text (see [`plan_replace`]).
///
/// # Errors
/// As [`replace_all`].
pub fn plan_replace_all(haystack: &str, old: &str, new: &str, options: &MatchOptions) -> Result<Planned, Error> {
    select::plan_with(haystack, old, new, options, true)
}
