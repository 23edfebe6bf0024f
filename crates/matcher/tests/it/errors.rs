//! Every error variant, its kind word and an actionable message.

use editkit_matcher::{Error, Limits, MatchOptions, Rung};

use crate::refuses;

#[test]
fn empty_needle() {
    let err = refuses("abc", "", "x", "empty_needle");
    assert_eq!(err, Error::EmptyNeedle);
    assert_eq!(editkit_matcher::find("abc", "", &MatchOptions::default()).unwrap_err(), Error::EmptyNeedle);
}

#[test]
fn no_change_when_old_equals_new() {
    refuses("abc", "b", "b", "no_change");
}

#[test]
fn no_change_when_the_replacement_equals_the_match() {
    // Found on the line-trimmed rung; the new text is the file's own line.
    refuses("x = 1 \ny\n", "x = 1  ", "x = 1 ", "no_change");
}

#[test]
fn not_found_points_at_the_closest_region() {
    let before = "def f():\n    a = 1\n    b = 2\n    return a + b\n";
    // Two lines: too short for the block-anchor rung, which would accept this middle.
    let old = "    a = 1\n    b = 3\n";
    let err = refuses(before, old, "", "not_found");
    let Error::NotFound { closest: Some(near) } = &err else { panic!("{err:?}") };
    assert_eq!((near.first_line, near.last_line), (2, 3));
    let divergence = near.divergence.as_ref().unwrap();
    assert_eq!(divergence.line, 3);
    assert_eq!(divergence.expected, "····b·=·3");
    assert_eq!(divergence.found, "····b·=·2");
    assert!(near.similarity > 0.8, "{}", near.similarity);
    let message = err.to_string();
    assert!(message.starts_with("old text not found; closest is lines 2-3"), "{message}");
    assert!(message.contains("first difference at line 3"), "{message}");
}

#[test]
fn not_found_shows_invisible_differences() {
    let err = refuses("x = 1\r\ny = 2\r\n", "x = 1\ny = 2\nz", "", "not_found");
    let Error::NotFound { closest: Some(near) } = &err else { panic!("{err:?}") };
    let divergence = near.divergence.as_ref().unwrap();
    assert_eq!(divergence.line, 1);
    assert_eq!(divergence.found, "x·=·1␍");
}

#[test]
fn not_found_without_anything_similar() {
    let err = refuses("alpha\nbeta\n", "zzzzzzzzzzzzzzzzzzz", "", "not_found");
    assert_eq!(err, Error::NotFound { closest: None });
    assert!(err.to_string().contains("read the file"));
}

#[test]
fn not_found_falls_back_to_a_similar_line() {
    let err = refuses("alpha = compute(1)\nbeta\n", "alpha = compute(2)", "", "not_found");
    let Error::NotFound { closest: Some(near) } = err else { panic!() };
    assert_eq!(near.first_line, 1);
}

#[test]
fn already_applied_when_new_is_present_once() {
    let err = refuses("a\nb = 2\n", "b = 1", "b = 2", "already_applied");
    assert_eq!(err, Error::AlreadyApplied { line: 2 });
    assert!(err.to_string().contains("applied already"));
}

#[test]
fn already_applied_when_old_sits_inside_new() {
    let before = "import os\nimport sys\n\nx = 1\n";
    refuses(before, "import os\n", "import os\nimport sys\n", "already_applied");
}

#[test]
fn ambiguous_lists_lines() {
    let err = refuses("f()\nf()\nf()\n", "f()", "g()", "ambiguous");
    assert_eq!(err, Error::Ambiguous { count: 3, lines: vec![1, 2, 3], rung: Rung::Exact });
    assert_eq!(
        err.to_string(),
        "old text matches 3 places (exact rung) starting at lines 1, 2, 3; add surrounding lines to make it unique, or use replace_all"
    );
}

#[test]
fn limits_are_errors() {
    let options =
        MatchOptions { limits: Limits { max_haystack_bytes: 4, ..Limits::default() }, ..MatchOptions::default() };
    let err = editkit_matcher::find("hello", "h", &options).unwrap_err();
    assert_eq!(err.kind(), "limit_exceeded");
    let options =
        MatchOptions { limits: Limits { max_needle_bytes: 1, ..Limits::default() }, ..MatchOptions::default() };
    assert_eq!(editkit_matcher::find("hello", "he", &options).unwrap_err().kind(), "limit_exceeded");
    let options = MatchOptions { limits: Limits { max_matches: 2, ..Limits::default() }, ..MatchOptions::default() };
    let err = editkit_matcher::replace_all("a a a", "a", "b", &options).unwrap_err();
    assert!(matches!(err, Error::LimitExceeded { what: "matches", limit: 2, .. }), "{err:?}");
}

/// A replace_all of 1,000 places by a 10 KiB text is refused by its output size, counted
/// from the matches before the text is built, and the size is the one the text would have.
#[test]
fn replace_all_output_is_bounded_before_it_is_built() {
    let haystack = "a\n".repeat(1_000);
    let new = "b".repeat(10 << 10);
    let limit = 1 << 20;
    let options =
        MatchOptions { limits: Limits { max_output_bytes: limit, ..Limits::default() }, ..MatchOptions::default() };
    let err = editkit_matcher::plan_replace_all(&haystack, "a", &new, &options).unwrap_err();
    assert_eq!(err.kind(), "limit_exceeded");
    let expected = (haystack.len() + 1_000 * (new.len() - 1)) as u64;
    assert!(matches!(err, Error::OutputTooLarge { size, limit: 1_048_576 } if size == expected), "{err:?}");
    assert!(err.to_string().contains("replace fewer places"), "{err}");
    // Just under the limit it is built.
    let fits = "b".repeat(limit / 1_000 - 2);
    let replaced = editkit_matcher::replace_all(&haystack, "a", &fits, &options).unwrap();
    assert!(replaced.text().len() <= limit);
}

#[test]
fn fuzzy_work_is_bounded() {
    let block = "def f(a):\n    total = a + 1\n    return total\n";
    let before = block.repeat(50);
    let old = "def f(a):\n    totl = a + 1\n    return total\n";
    let options =
        MatchOptions { limits: Limits { max_fuzzy_work: 100, ..Limits::default() }, ..MatchOptions::default() };
    let err = editkit_matcher::find(&before, old, &options).unwrap_err();
    assert!(matches!(err, Error::LimitExceeded { what: "fuzzy_work", .. }), "{err:?}");
    assert!(err.to_string().contains("more distinctive"));
}

#[test]
fn kinds_and_messages_are_lowercase_words() {
    let errors = [
        Error::EmptyNeedle,
        Error::NotFound { closest: None },
        Error::Ambiguous { count: 2, lines: vec![1, 2], rung: Rung::Exact },
        Error::AlreadyApplied { line: 1 },
        Error::NoChange,
        Error::InvalidRange { start: 3, end: 1, len: 2 },
    ];
    for err in errors {
        let kind = err.kind();
        assert!(kind.chars().all(|c| c.is_ascii_lowercase() || c == '_'), "{kind}");
        let message = err.to_string();
        assert!(message.starts_with(|c: char| c.is_lowercase()), "{message}");
        assert!(!message.ends_with('.'), "{message}");
    }
}

#[test]
fn dense_overlapping_exact_occurrences_are_bounded() {
    let before = "a".repeat(1 << 20);
    let needle = "a".repeat(10_000);
    let err = editkit_matcher::find(&before, &needle, &MatchOptions::default()).unwrap_err();
    assert!(matches!(err, Error::LimitExceeded { what: "fuzzy_work", .. }), "{err:?}");
}

#[test]
fn long_needles_over_repetitive_text_are_bounded() {
    let before = "}\n".repeat(100_000);
    let needle = format!("{}x", "}\n".repeat(500));
    // A smaller budget than the default keeps the debug build quick; the path is the same.
    let options =
        MatchOptions { limits: Limits { max_fuzzy_work: 2_000_000, ..Limits::default() }, ..MatchOptions::default() };
    let err = editkit_matcher::find(&before, &needle, &options).unwrap_err();
    assert!(matches!(err, Error::LimitExceeded { what: "fuzzy_work", .. }), "{err:?}");
}

#[test]
fn block_anchor_retry_of_a_landed_edit_is_already_applied() {
    // The edit inserted a line into the block; retrying it anchors on the new block.
    let old = "def f(a):\n    total = a + 1\n    total *= 2\n    return total\n";
    let new = "def f(a):\n    total = a + 1\n    log(total)\n    total *= 2\n    return total\n";
    let before = format!("import x\n\n{new}\nprint(f(1))\n");
    let err = refuses(&before, old, new, "already_applied");
    assert_eq!(err, Error::AlreadyApplied { line: 3 });
}

/// Two places side by side on one line are named as such, not as overlapping blocks.
#[test]
fn places_side_by_side_on_one_line_are_counted_on_it() {
    let err =
        editkit_matcher::replace("cat concat\n", "cat", "dog", &editkit_matcher::MatchOptions::default()).unwrap_err();
    assert_eq!(err.kind(), "ambiguous");
    assert!(err.to_string().contains("line 1 (2 places start on it)"), "{err}");
}
