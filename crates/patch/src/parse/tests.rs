use super::*;

fn update_hunks(patch: &Patch, index: usize) -> &[Hunk] {
    match patch.operations().get(index) {
        Some(Operation::Update { hunks, .. }) => hunks,
        other => panic!("expected an update, got {other:?}"),
    }
}

#[test]
fn begin_patch_chunks_split_context_removed_and_added() {
    let patch = parse(
        "*** Begin Patch\n*** Update File: a.py\n@@ def f():\n     x = 1\n-    return x\n+    return x + 1\n*** End Patch\n",
    )
    .unwrap();
    assert_eq!(patch.dialect(), Dialect::BeginPatch);
    let hunks = update_hunks(&patch, 0);
    assert_eq!(hunks.len(), 1);
    assert_eq!(hunks[0].anchors, ["def f():"]);
    assert_eq!(hunks[0].old, ["    x = 1", "    return x"]);
    assert_eq!(hunks[0].new, ["    x = 1", "    return x + 1"]);
    assert_eq!(hunks[0].line, 3);
}

#[test]
fn first_chunk_may_omit_the_marker_and_anchors_stack() {
    let patch =
        parse("*** Update File: a\n-x\n+y\n@@ class A\n@@ def f\n-z\n+w\n*** End of File\n*** End Patch\n").unwrap();
    let hunks = update_hunks(&patch, 0);
    assert_eq!(hunks.len(), 2);
    assert_eq!(hunks[1].anchors, ["class A", "def f"]);
    assert!(hunks[1].end_of_file);
    assert!(!hunks[0].end_of_file);
}

#[test]
fn heredoc_and_fence_wrappers_are_stripped() {
    let body = "*** Begin Patch\n*** Delete File: x\n*** End Patch";
    for wrapped in
        [format!("apply_patch <<'EOF'\n{body}\nEOF\n"), format!("```diff\n{body}\n```\n"), format!("  \n{body}\n\n")]
    {
        let patch = parse(&wrapped).unwrap();
        assert_eq!(patch.operations(), [Operation::Delete { path: "x".into(), content: None, line: 3 }]);
    }
}

#[test]
fn markers_tolerate_surrounding_whitespace_and_crlf() {
    let patch = parse("  *** Begin Patch  \r\n *** Add File:  new.txt \r\n+a\r\n+b\r\n*** End Patch  \r\n").unwrap();
    match &patch.operations()[0] {
        Operation::Add { path, content, .. } => {
            assert_eq!(path, "new.txt");
            assert_eq!(content, "a\nb\n");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_hunks_add_body_closed_by_the_no_newline_marker_is_taken_as_written() {
    // Every line before the marker is content, blank ones too; the last has no line end.
    let patch = parse(
        "*** Add File: a.txt\nx\ny\n\n\n\\ No newline at end of file\n\n*** Add File: b.txt\nz\n\\ No newline at end of file\n*** Add File: c.txt\nw\n\n*** End Patch\n",
    )
    .unwrap();
    let contents: Vec<&str> = patch
        .operations()
        .iter()
        .map(|op| match op {
            Operation::Add { content, .. } => content.as_str(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(contents, ["x\ny\n\n", "z", "w\n"]);
}

#[test]
fn hunk_dialect_reads_old_separator_new() {
    let patch = parse(
        "*** Update File: a.txt\n@@\none\ntwo\n===\nuno\ntwo\n\n@@\nthree\n===\ntres\n*** Add File: b.txt\nplain\n*** End Patch\n",
    )
    .unwrap();
    assert_eq!(patch.dialect(), Dialect::Hunks);
    let hunks = update_hunks(&patch, 0);
    assert_eq!(hunks.len(), 2);
    assert_eq!(hunks[0].old, ["one", "two"]);
    // The blank line before the next `@@` is a separator, not content.
    assert_eq!(hunks[0].new, ["uno", "two"]);
    assert_eq!(hunks[1].new, ["tres"]);
    assert!(matches!(&patch.operations()[1], Operation::Add { content, .. } if content == "plain\n"));
}

#[test]
fn hunk_without_separator_is_refused_with_its_line() {
    let err =
        parse("*** Update File: a.txt\n@@\none\n===\n*** Update File: b.txt\n@@\ntwo\n*** End Patch\n").unwrap_err();
    assert!(matches!(err, Error::InvalidPatch { line: 6, .. }), "{err}");
    // Without any `===` the patch reads as Begin Patch, which names the unprefixed line.
    let err = parse("*** Update File: a.txt\n@@\none\n*** End Patch\n").unwrap_err();
    assert!(matches!(err, Error::InvalidPatch { line: 3, .. }), "{err}");
}

#[test]
fn unified_diff_with_git_headers_renames_and_no_newline() {
    let text = "diff --git a/old.rs b/new.rs\nsimilarity index 90%\nrename from old.rs\nrename to new.rs\nindex 1..2 100644\n--- a/old.rs\n+++ b/new.rs\n@@ -1,2 +1,2 @@\n fn a() {}\n-fn b() {}\n\\ No newline at end of file\n+fn c() {}\n\\ No newline at end of file\n";
    let patch = parse(text).unwrap();
    assert_eq!(patch.dialect(), Dialect::Unified);
    match &patch.operations()[0] {
        Operation::Update { path, move_to, hunks, .. } => {
            assert_eq!(path, "old.rs");
            assert_eq!(move_to.as_deref(), Some("new.rs"));
            assert_eq!(hunks[0].old_start, Some(1));
            assert!(hunks[0].old_missing_newline && hunks[0].new_missing_newline);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn unified_add_and_delete_use_dev_null() {
    let text =
        "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n";
    let patch = parse(text).unwrap();
    assert_eq!(
        patch.operations(),
        [
            Operation::Add { path: "n.txt".into(), content: "a\nb\n".into(), line: 1 },
            Operation::Delete { path: "gone.txt".into(), content: Some("x\n".into()), line: 6 }
        ]
    );
}

#[test]
fn drifting_counts_do_not_cut_a_hunk_short() {
    // The header claims 1 old line; the body has 3.
    let text = "--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n a\n-b\n+B\n c\n";
    let patch = parse(text).unwrap();
    let hunks = update_hunks(&patch, 0);
    assert_eq!(hunks[0].old, ["a", "b", "c"]);
    assert_eq!(hunks[0].new, ["a", "B", "c"]);
}

#[test]
fn removed_line_that_looks_like_a_header_is_kept_while_counts_last() {
    let text = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n--- a\n+++ b\n-c\n+d\n";
    let patch = parse(text).unwrap();
    let hunks = update_hunks(&patch, 0);
    assert_eq!(hunks[0].old, ["-- a", "c"]);
    assert_eq!(hunks[0].new, ["++ b", "d"]);
}

#[test]
fn errors_name_the_line() {
    let cases: &[(&str, usize)] = &[
        ("*** Begin Patch\n*** Update File: a\n@@\n junk\nnot a diff line\n", 5),
        ("*** Begin Patch\n*** Update File: b\n-x\n+y\n*** Add File: a\nno plus\n", 6),
        ("*** Begin Patch\n*** Frobnicate File: a\n", 2),
        ("*** Begin Patch\n*** Update File: a\n*** End Patch\n", 2),
        ("--- a/x\n+++ b/x\n@@ -z +1 @@\n-a\n", 3),
        ("hello\n", 1),
    ];
    for (text, line) in cases {
        match parse(text) {
            Err(Error::InvalidPatch { line: got, .. }) => assert_eq!(got, *line, "{text:?}"),
            other => panic!("{text:?}: {other:?}"),
        }
    }
}

#[test]
fn empty_input_and_empty_hunks() {
    assert!(matches!(parse(""), Err(Error::NoOperations)));
    assert!(matches!(parse("*** Begin Patch\n*** End Patch\n"), Err(Error::NoOperations)));
    let err = parse("*** Begin Patch\n*** Update File: a\n@@\n same\n*** End Patch\n").unwrap_err();
    assert!(matches!(err, Error::EmptyHunk { line: 3, .. }), "{err}");
    let err = parse("*** Update File: a\n@@\nx\n===\nx\n*** End Patch\n").unwrap_err();
    assert!(matches!(err, Error::EmptyHunk { .. }), "{err}");
}

#[test]
fn quoted_git_paths_are_unquoted() {
    let text = "diff --git \"a/sp ace.txt\" \"b/sp ace.txt\"\n--- \"a/sp ace.txt\"\n+++ \"b/sp ace.txt\"\n@@ -1 +1 @@\n-a\n+b\n";
    let patch = parse(text).unwrap();
    assert_eq!(patch.operations()[0].path(), "sp ace.txt");
}

#[test]
fn binary_patches_are_refused() {
    let text = "diff --git a/x.png b/x.png\nindex 1..2\nGIT binary patch\nliteral 5\n";
    assert!(matches!(parse(text), Err(Error::InvalidPatch { line: 3, .. })));
}
