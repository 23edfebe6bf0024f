//! The rungs of the ladder, from strictest to loosest.

use std::fmt;

/// One rung of the matching ladder, from the strictest ([`Rung::Exact`]) to the loosest
/// ([`Rung::BlockAnchor`]).
///
/// Rungs are tried in the order of [`Rung::ALL`]; the first rung that finds any candidate decides,
/// and a looser rung never runs after it. The ordering of the enum (`Ord`) follows the ladder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Rung {
    /// Byte-for-byte equal text, anywhere (also inside a line).
    Exact,
    /// Canonically equivalent text, anywhere: equal once both are in Unicode Normalization
    /// Form C, so a file stored decomposed (NFD) and an old text typed composed (NFC), or the
    /// other way round, match. Compatibility forms (`ﬁ` for `fi`, `①` for `1`) do not. The new
    /// text is written in the form of the text it replaces.
    CanonicalEquivalent,
    /// Whole lines equal once each line's leading and trailing whitespace is ignored.
    LineTrimmed,
    /// As [`Rung::LineTrimmed`], with typographic dashes, quotes, ellipses and odd spaces
    /// (NBSP, thin spaces, zero-width characters) compared as their ASCII forms.
    UnicodeNormalised,
    /// As [`Rung::UnicodeNormalised`], with runs of internal whitespace collapsed to one space.
    WhitespaceNormalised,
    /// As [`Rung::WhitespaceNormalised`], with blank lines ignored and tabs versus spaces and
    /// indentation depth ignored, but the relative indentation of the lines kept (measured in
    /// indentation levels, so a block indented by 2 spaces matches the same block indented by
    /// tabs).
    IndentationFlexible,
    /// A needle written with literal `\n`, `\t`, `\"`, `\'` or `\\` escapes, compared unescaped
    /// (exactly, then line by line as [`Rung::WhitespaceNormalised`]).
    EscapeNormalised,
    /// Needles of at least 3 lines: the first and last lines anchor a candidate, and the lines
    /// between are scored by similarity; accepted at 0.7 or more.
    BlockAnchor,
}

impl Rung {
    /// Every rung, in the order the ladder tries them.
    pub const ALL: [Rung; 8] = [
        Rung::Exact,
        Rung::CanonicalEquivalent,
        Rung::LineTrimmed,
        Rung::UnicodeNormalised,
        Rung::WhitespaceNormalised,
        Rung::IndentationFlexible,
        Rung::EscapeNormalised,
        Rung::BlockAnchor,
    ];

    /// The stable snake_case name of the rung, as logged and serialised
    /// (`exact`, `canonical_equivalent`, `line_trimmed`, `unicode_normalised`, `whitespace_normalised`,
    /// `indentation_flexible`, `escape_normalised`, `block_anchor`).
    ///
    /// ```
    /// assert_eq!(editkit_matcher::Rung::BlockAnchor.as_str(), "block_anchor");
    /// ```
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Rung::Exact => "exact",
            Rung::CanonicalEquivalent => "canonical_equivalent",
            Rung::LineTrimmed => "line_trimmed",
            Rung::UnicodeNormalised => "unicode_normalised",
            Rung::WhitespaceNormalised => "whitespace_normalised",
            Rung::IndentationFlexible => "indentation_flexible",
            Rung::EscapeNormalised => "escape_normalised",
            Rung::BlockAnchor => "block_anchor",
        }
    }

    /// Parses a name produced by [`Rung::as_str`].
    #[must_use]
    pub fn from_name(name: &str) -> Option<Rung> {
        Rung::ALL.into_iter().find(|rung| rung.as_str() == name)
    }

    /// Whether this is the exact rung (no tolerance at all).
    #[must_use]
    pub const fn is_exact(self) -> bool {
        matches!(self, Rung::Exact)
    }
}

impl fmt::Display for Rung {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
