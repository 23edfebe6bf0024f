//! Replacing: replace_all, re-indentation, trailing newlines, inserted ranges.

use editkit_matcher::{MatchOptions, Rung};

use crate::{edits_to, refuses};

#[test]
fn replace_all_replaces_every_exact_occurrence() {
    let edited = editkit_matcher::replace_all("f(1)\ng(f(1))\n", "f(1)", "h()", &MatchOptions::default()).unwrap();
    assert_eq!(edited.text(), "h()\ng(h())\n");
    assert_eq!(edited.matches().len(), 2);
    assert_eq!(edited.inserted(), &[0..3, 6..9]);
}

#[test]
fn replace_all_takes_non_overlapping_occurrences() {
    let edited = editkit_matcher::replace_all("aaaa", "aa", "b", &MatchOptions::default()).unwrap();
    assert_eq!(edited.text(), "bb");
}

#[test]
fn replace_all_on_a_fuzzy_rung_reindents_each() {
    let before = "if a:\n    x = 1\n    if b:\n        x = 1\n";
    let edited = editkit_matcher::replace_all(before, "x = 1 ", "x = 2", &MatchOptions::default()).unwrap();
    assert_eq!(edited.rung(), Rung::LineTrimmed);
    assert_eq!(edited.text(), "if a:\n    x = 2\n    if b:\n        x = 2\n");
}

#[test]
fn replace_all_already_applied() {
    let err = editkit_matcher::replace_all("b\nb\n", "a", "b", &MatchOptions::default()).unwrap_err();
    assert_eq!(err.kind(), "already_applied");
}

#[test]
fn replace_all_missing_is_not_found() {
    let err = editkit_matcher::replace_all("b\nb\n", "a", "c", &MatchOptions::default()).unwrap_err();
    assert_eq!(err.kind(), "not_found");
}

#[test]
fn trailing_newline_of_old_on_the_last_line() {
    edits_to("a\n  b", "b \n", "c\n", "a\n  c", Rung::LineTrimmed);
}

#[test]
fn deletion_is_an_edit() {
    edits_to("a\nb\nc\n", "b\n", "", "a\nc\n", Rung::Exact);
}

#[test]
fn inserted_range_covers_the_reindented_text() {
    let edited = crate::replaced("x\n\tif a:\n\t\tb()\n", "if a:\n    b()", "if a:\n    c()").unwrap();
    assert_eq!(edited.text(), "x\n\tif a:\n\t\tc()\n");
    let range = edited.inserted()[0].clone();
    assert_eq!(&edited.text()[range], "\tif a:\n\t\tc()");
}

#[test]
fn unicode_text_outside_the_match_is_kept() {
    edits_to("é = 1  \n日本 = 2\n", "é = 1", "é = 3", "é = 3  \n日本 = 2\n", Rung::Exact);
    edits_to("  日本 = 2\n", "日本 = 2 \n", "日本 = 3\n", "  日本 = 3\n", Rung::LineTrimmed);
}

#[test]
fn whitespace_only_needle_is_exact_only() {
    refuses("a\n\nb\n", "   ", "x", "not_found");
    edits_to("a  b", "  ", " ", "a b", Rung::Exact);
}

#[test]
fn a_stray_cr_on_the_last_matched_line_is_kept() {
    edits_to("a = 1\r\nb\r\n", "a = 1 ", "a = 2", "a = 2\r\nb\r\n", Rung::LineTrimmed);
}

/// Old text whose lines lost their nesting (a body written at the `def`'s column) matches the
/// file's lines trimmed, but the new text cannot be indented to fit without guessing: refused,
/// naming the lines, instead of writing the body at column 0.
#[test]
fn old_text_nested_unlike_the_file_is_refused_not_flattened() {
    let file = "def g():\n    return 2\n\nx = 1\n";
    for (old, new) in [
        ("def g():\nreturn 2", "def g():\nreturn 3"),
        ("def g():\nreturn 2\n", "def h():\nreturn 2\n"),
        ("  def g():\n  return 2", "  def g():\n  return 3"),
    ] {
        let err = editkit_matcher::replace(file, old, new, &MatchOptions::default()).unwrap_err();
        assert_eq!(err.kind(), "not_found", "{old:?}: {err}");
        let message = err.to_string();
        assert!(message.contains("lines 1 and 2") && message.contains("indent"), "{old:?}: {message}");
    }
    // Nesting kept at another width or style still lands, re-indented like the file.
    for old in ["def g():\n  return 2", "def g():\n\treturn 2", "    def g():\n        return 2"] {
        let new = old.replace("return 2", "return 3");
        let edited = editkit_matcher::replace(file, old, &new, &MatchOptions::default()).unwrap();
        assert_eq!(edited.text(), "def g():\n    return 3\n\nx = 1\n", "{old:?}");
    }
}
