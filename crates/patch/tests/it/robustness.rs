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
