//! One case (at least) per rung, and the ladder's ordering.

use editkit_matcher::{Error, Ladder, MatchOptions, Rung};

use crate::{edits_to, refuses};

#[test]
fn exact_inside_a_line() {
    edits_to("x = foo(1)\n", "foo(1)", "bar(2)", "x = bar(2)\n", Rung::Exact);
}

#[test]
fn crlf_endings_are_kept() {
    edits_to("a\r\n  b\r\n", "b", "c", "a\r\n  c\r\n", Rung::Exact);
}

/// OpenCode's patch tests: a file stored in NFD and an old text typed in NFC (`Район: Астана`,
/// `й` being `и` + U+0306 in NFD) are the same text; the new text takes the file's form.
#[test]
fn canonical_equivalent_matches_nfd_and_nfc_both_ways() {
    let nfd = "Район: Астана".replace('й', "и\u{306}");
    let before = format!("region = \"{nfd}\"\n");
    let new_nfd = "Район: Есиль".replace('й', "и\u{306}");
    edits_to(&before, "Район: Астана", "Район: Есиль", &format!("region = \"{new_nfd}\"\n"), Rung::CanonicalEquivalent);
    edits_to("x = \"Café\"\n", "Cafe\u{301}", "The\u{301}", "x = \"Thé\"\n", Rung::CanonicalEquivalent);
    let found = Ladder::default().find(&before, "Район").unwrap();
    assert_eq!((found.rung(), found.score(), found.first_line()), (Rung::CanonicalEquivalent, 1.0, 1));
    // The exact rung still decides first: the copy in the old text's own form is taken.
    let both = format!("a = \"Район\"\na = \"{}\"\n", "Район".replace('й', "и\u{306}"));
    let found = Ladder::default().find(&both, "a = \"Район\"").unwrap();
    assert_eq!((found.rung(), found.first_line()), (Rung::Exact, 1));
    // Strict is the exact rung alone.
    let strict = Ladder::strict().find(&before, "Район").unwrap_err();
    assert_eq!(strict.kind(), "not_found");
}

/// Compatibility forms are not canonical equivalents: the ligature `ﬁ` is not `fi`.
#[test]
fn compatibility_forms_stay_different() {
    refuses("office = 1\n", "o\u{FB01}ce = 1", "x", "not_found");
    refuses("n = 2\n", "n = \u{00B2}", "x", "not_found");
}

#[test]
fn line_trimmed_ignores_trailing_whitespace() {
    edits_to(
        "def f():\n    return 1   \n",
        "    return 1\n",
        "    return 2\n",
        "def f():\n    return 2\n",
        Rung::LineTrimmed,
    );
}

#[test]
fn line_trimmed_reindents_new_text() {
    let before = "class A:\n    def f(self):\n        if x:\n            y()\n";
    let old = "if x:\n    y()  ";
    let new = "if x:\n    y()\nelse:\n    z()";
    let after = "class A:\n    def f(self):\n        if x:\n            y()\n        else:\n            z()\n";
    edits_to(before, old, new, after, Rung::LineTrimmed);
}

#[test]
fn unicode_normalised_matches_smart_quotes_and_dashes() {
    let before = "msg = \"it's done\"  # a - b\n";
    let old = "msg = \u{201c}it\u{2019}s done\u{201d}  # a \u{2014} b";
    edits_to(before, old, "msg = 'done'", "msg = 'done'\n", Rung::UnicodeNormalised);
}

#[test]
fn unicode_normalised_matches_nbsp_in_the_file() {
    let before = "a =\u{a0}1\nb = 2\n";
    edits_to(before, "a = 1", "a = 3", "a = 3\nb = 2\n", Rung::UnicodeNormalised);
}

#[test]
fn whitespace_normalised_collapses_runs() {
    let before = "if (a  &&   b) {\n  go();\n}\n";
    edits_to(before, "if (a && b) {", "if (a || b) {", "if (a || b) {\n  go();\n}\n", Rung::WhitespaceNormalised);
}

#[test]
fn indentation_flexible_skips_blank_lines_and_keeps_tabs() {
    let before = "fn() {\n\tif (a) {\n\n\t\tb();\n\t}\n}\n";
    let old = "if (a) {\n  b();\n}";
    let new = "if (a) {\n  c();\n}";
    let after = "fn() {\n\tif (a) {\n\t\tc();\n\t}\n}\n";
    edits_to(before, old, new, after, Rung::IndentationFlexible);
}

#[test]
fn indentation_flexible_keeps_relative_indentation() {
    // Same lines, but the needle's second line is not nested: not a match on that rung.
    let before = "if a:\n\n    b()\n";
    let err = refuses(before, "if a:\nb()", "if a:\nc()", "not_found");
    assert!(matches!(err, Error::NotFound { .. }));
}

#[test]
fn escape_normalised_unescapes_the_needle() {
    let before = "def f():\n    print(\"hi\")\n    return 1\n";
    let old = r#"    print(\"hi\")\n    return 1"#;
    let new = r#"    print(\"bye\")\n    return 2"#;
    edits_to(before, old, new, "def f():\n    print(\"bye\")\n    return 2\n", Rung::EscapeNormalised);
}

#[test]
fn block_anchor_accepts_a_close_middle() {
    let before = "def f(a):\n    total = a + 1\n    total *= 2\n    log(total)\n    return total\n";
    let old = "def f(a):\n    total = a + 2\n    total *= 2\n    log(totl)\n    return total\n";
    let new = "def f(a):\n    return (a + 1) * 2\n";
    let edited = crate::replaced(before, old, new).unwrap();
    assert_eq!(edited.rung(), Rung::BlockAnchor);
    assert_eq!(edited.text(), new);
    let score = edited.matches()[0].score();
    assert!((0.7..1.0).contains(&score), "score {score}");
}

#[test]
fn block_anchor_refuses_a_decoy_middle() {
    let before = "def f(a):\n    x = open(a)\n    data = x.read()\n    x.close()\n    return total\n";
    let old = "def f(a):\n    total = a + 1\n    total *= 2\n    log(total)\n    return total\n";
    refuses(before, old, "pass\n", "not_found");
}

#[test]
fn block_anchor_rejects_too_long_candidates() {
    let middle = "    step()\n".repeat(20);
    let before = format!("def f():\n{middle}    return 1\n");
    let old = "def f():\n    step()\n    return 1\n";
    refuses(&before, old, "", "not_found");
}

#[test]
fn block_anchor_tie_is_ambiguous() {
    let block = "def f(a):\n    total = a + 1\n    total *= 2\n    return total\n";
    let before = format!("{block}\n{block}");
    let old = "def f(a):\n    total = a + 2\n    total *= 2\n    return total\n";
    let err = refuses(&before, old, "", "ambiguous");
    assert!(matches!(err, Error::Ambiguous { count: 2, rung: Rung::BlockAnchor, .. }), "{err:?}");
}

#[test]
fn exact_duplicates_never_fall_through() {
    let err = refuses("x = 1\ny = 2\nx = 1\n", "x = 1", "x = 3", "ambiguous");
    assert_eq!(err, Error::Ambiguous { count: 2, lines: vec![1, 3], rung: Rung::Exact });
}

#[test]
fn overlapping_exact_occurrences_are_ambiguous() {
    refuses("aaa", "aa", "b", "ambiguous");
}

#[test]
fn fuzzy_duplicates_are_ambiguous_on_their_rung() {
    let err = refuses("  a = 1\n\ta = 1\n", "a = 1 ", "a = 2", "ambiguous");
    assert!(matches!(err, Error::Ambiguous { rung: Rung::LineTrimmed, count: 2, .. }), "{err:?}");
}

#[test]
fn strict_allows_only_exact() {
    let ladder = Ladder::strict();
    assert!(ladder.options().strict);
    assert_eq!(ladder.find("a  b", "a  b").unwrap().rung(), Rung::Exact);
    let err = ladder.find("  a\n", "a \n").unwrap_err();
    assert_eq!(err.kind(), "not_found");
    let loose = Ladder::new(MatchOptions::default()).find("  a\n", "a \n").unwrap();
    assert_eq!(loose.rung(), Rung::LineTrimmed);
}

#[test]
fn rung_names_are_stable() {
    let names: Vec<&str> = Rung::ALL.iter().map(|rung| rung.as_str()).collect();
    assert_eq!(
        names,
        [
            "exact",
            "canonical_equivalent",
            "line_trimmed",
            "unicode_normalised",
            "whitespace_normalised",
            "indentation_flexible",
            "escape_normalised",
            "block_anchor"
        ]
    );
    for rung in Rung::ALL {
        assert_eq!(Rung::from_name(rung.as_str()), Some(rung));
        assert_eq!(rung.to_string(), rung.as_str());
    }
    assert_eq!(Rung::from_name("fuzzy"), None);
}

#[test]
fn match_reports_lines_and_score() {
    let found = Ladder::default().find("a\nb\n  c  \nd\n", "c\nd").unwrap();
    assert_eq!(found.rung(), Rung::LineTrimmed);
    assert_eq!(found.line_range(), 2..4);
    assert_eq!(found.first_line(), 3);
    assert_eq!(found.last_line(), 4);
    assert_eq!(found.byte_range(), 4..11);
    assert!(found.score() > 0.0 && found.score() < 1.0, "{}", found.score());
}

#[test]
fn whitespace_normalised_finds_a_fragment_inside_a_line() {
    let before = "    total = compute(a,  b) + 1\n";
    edits_to(before, "compute(a, b)", "compute(b, a)", "    total = compute(b, a) + 1\n", Rung::WhitespaceNormalised);
}

#[test]
fn unicode_normalised_finds_a_fragment_inside_a_line() {
    let before = "    x = print(\"hi\") or y\n";
    edits_to(before, "print(\u{201c}hi\u{201d})", "log('hi')", "    x = log('hi') or y\n", Rung::UnicodeNormalised);
}

#[test]
fn fragments_and_whole_lines_compete_on_one_rung() {
    let before = "compute(a,  b)\nx = compute(a, \tb)\n";
    let err = refuses(before, "compute(a, b)", "f()", "ambiguous");
    assert!(matches!(err, Error::Ambiguous { count: 2, rung: Rung::WhitespaceNormalised, .. }), "{err:?}");
}

#[test]
fn two_occurrences_in_one_line_list_the_line_once() {
    let err = refuses("f(1) + f(1)\n", "f(1)", "g()", "ambiguous");
    assert_eq!(err, Error::Ambiguous { count: 2, lines: vec![1], rung: Rung::Exact });
}
