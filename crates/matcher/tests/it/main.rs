//! Integration tests of `editkit-matcher`, through the public API only.
#![allow(clippy::unwrap_used)]

mod corpus;
mod diff;
mod errors;
mod merge;
mod properties;
mod replace;
mod review;
mod rungs;
#[cfg(feature = "serde")]
mod serde;
mod snippet;
mod within;

use editkit_matcher::{Error, MatchOptions, Replaced, Rung};

/// The one `replace` call the small cases go through.
#[track_caller]
pub(crate) fn replaced(before: &str, old: &str, new: &str) -> Result<Replaced, Error> {
    editkit_matcher::replace(before, old, new, &MatchOptions::default())
}

/// Asserts that replacing `old` by `new` in `before` gives `after`, on `rung`.
#[track_caller]
pub(crate) fn edits_to(before: &str, old: &str, new: &str, after: &str, rung: Rung) {
    let edited = replaced(before, old, new).unwrap_or_else(|err| panic!("edit refused: {err}"));
    assert_eq!(edited.text(), after);
    assert_eq!(edited.rung(), rung, "decided by {}", edited.rung());
}

/// Asserts that the edit is refused with the error `kind`, and returns the error.
#[track_caller]
pub(crate) fn refuses(before: &str, old: &str, new: &str, kind: &str) -> Error {
    match replaced(before, old, new) {
        Ok(edited) => panic!("expected {kind}, but edited to {:?}", edited.text()),
        Err(err) => {
            assert_eq!(err.kind(), kind, "{err}");
            err
        }
    }
}
