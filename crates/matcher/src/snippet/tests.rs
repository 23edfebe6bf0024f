use super::{Comment, Error, SnippetOptions, merge};

#[track_caller]
fn merges_to(file: &str, snippet: &str, after: &str) {
    let merged = merge(file, snippet, &SnippetOptions::default()).unwrap();
    assert_eq!(merged.text(), after);
}

#[track_caller]
fn refused(file: &str, snippet: &str) -> Error {
    merge(file, snippet, &SnippetOptions::default()).unwrap_err()
}

const PY: &str = "import os\n\n\ndef a():\n    x = 1\n    return x\n\n\ndef b():\n    y = 2\n    return y\n";

#[test]
fn a_line_inserted_between_aligned_neighbours() {
    merges_to(
        PY,
        "# ...\ndef b():\n    y = 2\n    log(y)\n    return y\n",
        &PY.replace("    y = 2\n", "    y = 2\n    log(y)\n"),
    );
}

#[test]
fn a_line_replaced_between_aligned_neighbours() {
    merges_to(PY, "def a():\n    x = 10\n    return x\n# ... rest ...\n", &PY.replace("x = 1\n", "x = 10\n"));
}

#[test]
fn two_chunks_with_a_marker_between() {
    let snippet = "import os\nimport re\n# ... existing code ...\n    y = 2\n    return y + 1\n";
    let err = refused(PY, snippet);
    assert!(matches!(err, Error::Edge { chunk: 2, snippet_line: 5, line: 11 }), "{err:?}");
    let snippet = "import os\nimport re\n# ... existing code ...\ndef b():\n    y = 2 + 1\n    return y\n";
    merges_to(PY, snippet, &PY.replace("import os\n", "import os\nimport re\n").replace("y = 2\n", "y = 2 + 1\n"));
}

#[test]
fn the_snippet_at_column_zero_is_reindented() {
    merges_to(PY, "// ...\nx = 1\nprint(x)\nreturn x\n", &PY.replace("    x = 1\n", "    x = 1\n    print(x)\n"));
}

#[test]
fn a_forgotten_marker_is_refused_and_allowed_deletes() {
    let snippet = "def a():\n    x = 1\n    return x\n\n\ndef b():\n    return y\n";
    let err = refused(PY, snippet);
    assert!(matches!(err, Error::Unaligned { lines: [10, 10], deleted: 1, .. }), "{err:?}");
    let options = SnippetOptions { allow_deletions: true, ..Default::default() };
    assert_eq!(merge(PY, snippet, &options).unwrap().text(), PY.replace("    y = 2\n", ""));
}

#[test]
fn twins_are_ambiguous_and_absent_anchors_not_found() {
    let twins = "def f():\n    return 1\n\n\ndef f():\n    return 1\n";
    assert!(matches!(refused(twins, "def f():\n    return 2\n"), Error::Ambiguous { .. }));
    assert!(matches!(refused(PY, "def zzz():\n    pass\n"), Error::NotFound { .. }));
    assert!(matches!(refused(PY, "# ...\n\n# ...\n"), Error::Empty));
    assert!(matches!(refused(PY, "def a():\n    x = 1\n"), Error::NoChange));
}

#[test]
fn markers_in_every_style() {
    let options = |comments: Vec<Comment>| SnippetOptions { comments, ..Default::default() };
    for (marker, comment) in [
        ("# ... existing code ...", Comment::Hash),
        ("// ... rest of the file ...", Comment::Slashes),
        ("/* … */", Comment::Block),
        ("<!-- ... -->", Comment::Html),
        ("{/* ... */}", Comment::JsxBlock),
    ] {
        let snippet = format!("{marker}\ndef b():\n    y = 3\n    return y\n{marker}\n");
        let merged = merge(PY, &snippet, &options(vec![comment])).unwrap();
        assert_eq!(merged.text(), PY.replace("y = 2", "y = 3"), "{marker}");
        assert_eq!(merged.markers()[0].kept, Some([1, 8]));
        assert_eq!(merged.markers()[1].kept, None);
    }
    // A `#` line is no marker in a file whose comments are `//`.
    assert!(!super::is_marker("# ...", &[Comment::Slashes]));
}

#[test]
fn line_endings_and_a_missing_final_newline() {
    merges_to("a\nb", "b\nc\n", "a\nb\nc");
    merges_to("a\nb\n", "x\na\n", "x\na\nb\n");
}

#[test]
fn chunks_out_of_the_file_order_are_ambiguous() {
    let err = refused(PY, "def b():\n    y = 2\n    q()\n# ...\ndef a():\n    x = 1\n    p()\n");
    assert!(matches!(err, Error::Ambiguous { .. } | Error::NotFound { .. }), "{err:?}");
}

#[test]
fn the_work_is_bounded() {
    let options = SnippetOptions { max_cells: 10, ..Default::default() };
    assert!(matches!(merge(PY, "def a():\n    x = 3\n", &options), Err(Error::LimitExceeded { .. })));
}
