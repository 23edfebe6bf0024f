//! A planner regression found by fuzzing (the fuzz target's body itself runs in
//! `crates/toolkit/tests/it/patch_inputs.rs`, over the same tree).

use editkit_patch::ApplyOptions;

use crate::support::workspace_with;

/// Found by the fuzzer (`fixtures/fuzz/patch/crash-3108650ae07eb864`): an added line ending in
/// `\r` shrinks when the codec normalises it, and the next hunk was placed past the end.
#[test]
fn a_carriage_return_in_added_lines_does_not_push_the_next_hunk_past_the_end() {
    let (dir, workspace) = workspace_with(&[("a.txt", "one\ntwo\nthree\n")]);
    let patch = "--- a/a.txt\n+++ b/a.txt\n@@ -3,1 +3,1 @@\n-three\n+THREE\r\n@@ -3,0 +4,1 @@\n+four\n";
    let applied = editkit_patch::apply(&workspace, patch, &ApplyOptions::default()).unwrap();
    assert_eq!(applied.updated, ["a.txt"]);
    assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "one\ntwo\nTHREE\nfour\n");
}

/// Line numbers past what a signed offset holds: placed or refused by the text, never a panic
/// (the arithmetic on them saturates), and a refusal changes nothing.
#[test]
fn line_numbers_too_large_for_an_offset_neither_panic_nor_misplace() {
    for start in ["9223372036854775808", "18446744073709551615", "9223372036854775807"] {
        let (dir, workspace) = workspace_with(&[("a.txt", "one\ntwo\nthree\n")]);
        // Old lines found elsewhere: placed by the text (the number names no line).
        let update = format!("--- a/a.txt\n+++ b/a.txt\n@@ -{start},1 +{start},1 @@\n-two\n+TWO\n");
        let applied = editkit_patch::apply(&workspace, &update, &ApplyOptions::default()).unwrap();
        assert_eq!(applied.updated, ["a.txt"], "{start}");
        assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "one\nTWO\nthree\n");
        // An insertion after that line: there is no such line.
        let insert = format!("--- a/a.txt\n+++ b/a.txt\n@@ -{start},0 +{start},1 @@\n+four\n");
        let err = editkit_patch::apply(&workspace, &insert, &ApplyOptions::default()).unwrap_err();
        assert!(err.to_string().contains("line"), "{start}: {err}");
        assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "one\nTWO\nthree\n");
    }
}
