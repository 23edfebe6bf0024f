//! Cases found by reading the ladder closely: each was a wrong edit or a missed refusal.

use editkit_matcher::{MatchOptions, Rung};

use crate::{edits_to, refuses, replaced};

#[test]
fn a_retried_reindented_insertion_is_already_applied() {
    // Tab-indented file, space-indented old and new: the first edit lands re-indented...
    let once = replaced("\tx = 1\n", "    x = 1", "    x = 1\n    y = 2").unwrap();
    assert_eq!(once.text(), "\tx = 1\n\ty = 2\n");
    // ...and the same call again must not insert `y = 2` a second time.
    refuses(once.text(), "    x = 1", "    x = 1\n    y = 2", "already_applied");
    let spaces = replaced("    x = 1\n", "      x = 1", "      x = 1\n      y = 2").unwrap();
    assert_eq!(spaces.text(), "    x = 1\n    y = 2\n");
    refuses(spaces.text(), "      x = 1", "      x = 1\n      y = 2", "already_applied");
}

#[test]
fn replace_all_on_block_anchor_takes_the_best_of_overlapping_blocks() {
    let old = "function f(items) {\n  total = compute_total(items)\n  tax = compute_tax(total, rate)\n  fee = compute_fee(total, tier)\n  grand = total + tax + fee\n}";
    let file = "function f(items) {\n  total = compute_total(items)\n  tax = compute_tax(total, rate)\n  fee = compute_fee(total, tier)\n}\n  grand = total + tax + fee\n}\n";
    let new = "function f(items) {\n  return 0\n}";
    // The best block (lines 1-7) holds a `}` the old text leaves out, inside the lines the change
    // rewrites: both refuse alike rather than delete it.
    let one = editkit_matcher::replace(file, old, new, &MatchOptions::default()).unwrap_err();
    let all = editkit_matcher::replace_all(file, old, new, &MatchOptions::default()).unwrap_err();
    assert_eq!(all, one, "replace_all must pick the block replace picks");
    assert!(matches!(one, editkit_matcher::Error::Unaligned { first_line: 1, last_line: 7, .. }), "{one}");
    // A change that leaves the bodies' lines in place applies to the block replace picks.
    let new = "function f(items) {\n  total = compute_total(items)\n  tax = compute_tax(total, rate)\n  fee = compute_fee(total, tier)\n  grand = total + tax + fee + 1\n}";
    let one = editkit_matcher::replace(file, old, new, &MatchOptions::default()).unwrap();
    let all = editkit_matcher::replace_all(file, old, new, &MatchOptions::default()).unwrap();
    assert_eq!(one.rung(), Rung::BlockAnchor);
    assert_eq!(all.text(), one.text(), "replace_all must pick the block replace picks");
    assert_eq!(
        all.text(),
        "function f(items) {\n  total = compute_total(items)\n  tax = compute_tax(total, rate)\n  fee = compute_fee(total, tier)\n}\n  grand = total + tax + fee + 1\n}\n"
    );
}

#[test]
fn replace_all_on_block_anchor_refuses_overlapping_blocks_that_tie() {
    // A long middle line with one typo; the block may end at the first or the second `END`,
    // and the two scores are within the margin: replace and replace_all both refuse.
    let middle: String = (0..200).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
    let typo = format!("{}#", &middle[..199]);
    let needle = format!("BEGIN\n{middle}\nEND");
    let file = format!("BEGIN\n{typo}\nEND\nEND\n");
    for all in [false, true] {
        let run = if all { editkit_matcher::replace_all } else { editkit_matcher::replace };
        let err = run(&file, &needle, "BEGIN\nx\nEND", &MatchOptions::default()).unwrap_err();
        assert_eq!(err.kind(), "ambiguous", "replace_all={all}: {err}");
    }
}

#[test]
fn a_zero_width_character_does_not_hide_an_equal_match() {
    let err = refuses("y = a + abcd;\nz = a + ab\u{200B}cd;\n", "a  +  abcd", "a + x", "ambiguous");
    assert!(matches!(&err, editkit_matcher::Error::Ambiguous { lines, .. } if lines == &[1, 2]), "{err:?}");
}

#[test]
fn reindenting_keeps_nesting_at_column_zero() {
    edits_to("x()\n", "        x()", "    if a:\n        x()", "if a:\n    x()\n", Rung::LineTrimmed);
}

#[test]
fn a_one_line_needle_still_turns_new_nesting_into_tabs() {
    edits_to("\tif x:\n", "  if x:", "  if x:\n    y()", "\tif x:\n\t\ty()\n", Rung::LineTrimmed);
}

#[test]
fn scores_exactly_the_margin_apart_are_a_tie() {
    // Middles of 20 characters: one candidate differs by 4 (0.80), the other by 5 (0.75).
    let needle = "BEGIN\nabcdefghijklmnopqrst\nEND";
    let file = "BEGIN\nabcdefghijklmnopWXYZ\nEND\nBEGIN\nabcdefghijklmnoVWXYZ\nEND\n";
    let err = refuses(file, needle, "BEGIN\nnew\nEND", "ambiguous");
    assert!(err.to_string().contains("block_anchor"), "{err}");
}

#[test]
fn block_anchor_keeps_a_stray_carriage_return() {
    let edited = replaced("A\nbbbb\nZ\r\nrest", "A\nbbbc\nZ", "A\nc\nZ").unwrap();
    assert_eq!(edited.rung(), Rung::BlockAnchor);
    assert_eq!(edited.text(), "A\nc\nZ\r\nrest");
}

#[test]
fn indentation_flexible_adds_no_blank_lines() {
    edits_to("x\n  foo()\n", "\nfoo()", "\nbar()", "x\n  bar()\n", Rung::IndentationFlexible);
    edits_to("x\n  foo()\n  z()\n", "foo()\n\n", "bar()\n\n", "x\n  bar()\n  z()\n", Rung::IndentationFlexible);
}

#[test]
fn a_new_text_inside_a_longer_line_is_not_an_edit_already_applied() {
    let err = refuses("b = 2\n", "c = 3", "b", "not_found");
    assert!(matches!(err, editkit_matcher::Error::NotFound { .. }), "{err:?}");
    // A whole-line copy still is.
    refuses("a = 1\nb = 2\n", "b = 1", "b = 2", "already_applied");
}

#[test]
fn an_escaped_template_literal_is_unescaped() {
    let file = "const url = `${base}/users/${id}`;\n";
    edits_to(
        file,
        "const url = `\\${base}/users/\\${id}`;",
        "const url = `${base}/accounts/${id}`;",
        "const url = `${base}/accounts/${id}`;\n",
        Rung::EscapeNormalised,
    );
}

#[test]
fn the_near_miss_message_says_what_the_marks_mean() {
    let err = refuses("def f():\n    return 1\n", "def f():\n  return 1\n  pass", "x", "not_found");
    let message = err.to_string();
    assert!(message.contains("`·` marks a space"), "{message}");
    assert!(!message.contains("`→` a tab"), "{message}");
}

#[test]
fn an_indented_whole_line_copy_of_new_is_already_applied() {
    refuses("if x:\n    b = 2\n", "b = 1", "b = 2", "already_applied");
}
