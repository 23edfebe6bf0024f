//! Confining the search to one byte range.

use editkit_matcher::{Error, MatchOptions, Rung};

fn within(range: std::ops::Range<usize>) -> MatchOptions {
    MatchOptions { within: Some(range), ..MatchOptions::default() }
}

const SRC: &str = "def a():\n    return 1\n\ndef b():\n    return 1\n";

#[test]
fn a_range_makes_a_duplicate_unique() {
    let start = SRC.find("def b").unwrap();
    let found = editkit_matcher::find(SRC, "return 1", &within(start..SRC.len())).unwrap();
    assert_eq!(found.byte_range(), 36..44);
    assert_eq!(found.first_line(), 5);
    let edited = editkit_matcher::replace(SRC, "return 1", "return 2", &within(start..SRC.len())).unwrap();
    assert_eq!(edited.text(), "def a():\n    return 1\n\ndef b():\n    return 2\n");
}

#[test]
fn fuzzy_rungs_respect_the_range_and_report_whole_text_lines() {
    let start = SRC.find("def b").unwrap();
    let found = editkit_matcher::find(SRC, "return 1  ", &within(start..SRC.len())).unwrap();
    assert_eq!(found.rung(), Rung::LineTrimmed);
    assert_eq!(found.line_range(), 4..5);
    assert_eq!(found.byte_range(), 32..44);
}

#[test]
fn text_outside_the_range_is_not_found() {
    let err = editkit_matcher::find(SRC, "def a", &within(10..SRC.len())).unwrap_err();
    assert_eq!(err.kind(), "not_found");
}

#[test]
fn not_found_hint_uses_whole_text_lines() {
    let start = SRC.find("def b").unwrap();
    let err = editkit_matcher::find(SRC, "def b():\n    return 7", &within(start..SRC.len())).unwrap_err();
    let Error::NotFound { closest: Some(near) } = err else { panic!("{err:?}") };
    assert_eq!(near.first_line, 4);
    assert_eq!(near.divergence.unwrap().line, 5);
}

#[test]
fn bad_ranges_are_refused() {
    let err = editkit_matcher::find("héllo", "l", &within(0..2)).unwrap_err();
    assert_eq!(err, Error::InvalidRange { start: 0, end: 2, len: 6 });
    let err = editkit_matcher::find("hello", "l", &within(2..9)).unwrap_err();
    assert_eq!(err.kind(), "invalid_range");
    #[allow(clippy::reversed_empty_ranges)]
    let reversed = within(3..1);
    assert_eq!(editkit_matcher::find("hello", "l", &reversed).unwrap_err().kind(), "invalid_range");
}
