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

mod syntax {
    use super::super::{AlignedBy, Definition, Outline};
    use super::*;

    const TWINS: &str = "class A:\n    def run(self):\n        x = 1\n        return x\n\n\nclass B:\n    def other(self):\n        pass\n\n    def run(self):\n        x = 1\n        return x\n";

    fn def(path: &str, first: usize, last: usize) -> Definition {
        Definition { path: path.into(), lines: [first, last] }
    }

    fn twins_outline(snippet: Vec<Definition>) -> SnippetOptions {
        let file =
            vec![def("A", 1, 4), def("A.run", 2, 4), def("B", 7, 13), def("B.other", 8, 9), def("B.run", 11, 13)];
        SnippetOptions { outline: Some(Outline { file, snippet }), ..Default::default() }
    }

    const SNIPPET: &str =
        "class B:\n    # ... existing code ...\n    def run(self):\n        x = 1\n        log(x)\n        return x\n";

    #[test]
    fn a_method_named_in_its_class_lands_in_that_class_only() {
        // By lines the body stands twice.
        assert!(matches!(refused(TWINS, SNIPPET), Error::Ambiguous { .. }));
        let options = twins_outline(vec![def("B", 1, 6), def("B.run", 3, 6)]);
        let merged = merge(TWINS, SNIPPET, &options).unwrap();
        let expected =
            format!("{}        log(x)\n        return x\n", &TWINS[..TWINS.len() - "        return x\n".len()]);
        assert_eq!(merged.text(), expected);
        let chunks = merged.chunks();
        assert_eq!(chunks[1].lines, [11, 13]);
        assert_eq!((chunks[1].alignment, chunks[1].definition.as_deref()), (AlignedBy::Syntax, Some("B.run")));
        assert_eq!(chunks[0].definition.as_deref(), Some("B"));
    }

    #[test]
    fn a_chunk_never_straddles_out_of_its_definition() {
        // By lines, `x = 1` aligns with `B.run`'s and the chunk leaves out `def run` (unaligned);
        // within `B.other` it is a new line.
        let snippet = "class B:\n    # ...\n    def other(self):\n        pass\n        x = 1\n";
        assert!(matches!(refused(TWINS, snippet), Error::Unaligned { .. }));
        let options = twins_outline(vec![def("B", 1, 5), def("B.other", 3, 5)]);
        let merged = merge(TWINS, snippet, &options).unwrap();
        assert_eq!(merged.text(), TWINS.replace("        pass\n", "        pass\n        x = 1\n"));
        assert_eq!(merged.chunks()[1].lines, [8, 9]);
        // A chunk that aligns with nothing of its definition is refused, even where it would
        // align elsewhere.
        let snippet = "class B:\n    def other(self):\n        # ...\n        return x\n        log()\n";
        let options = twins_outline(vec![def("B", 1, 5), def("B.other", 2, 5)]);
        let err = merge(TWINS, snippet, &options).unwrap_err();
        assert!(
            matches!(&err, Error::NotInDefinition { definition, lines: [8, 9], .. } if definition == "B.other"),
            "{err:?}"
        );
    }

    #[test]
    fn a_name_path_defined_twice_is_ambiguous() {
        let file = "def f():\n    return 1\n\n\ndef f():\n    return 2\n";
        let outline = Outline { file: vec![def("f", 1, 2), def("f", 5, 6)], snippet: vec![def("f", 1, 3)] };
        let options = SnippetOptions { outline: Some(outline), ..Default::default() };
        let err = merge(file, "def f():\n    log()\n", &options).unwrap_err();
        assert!(
            matches!(&err, Error::DefinedTwice { definition, lines, .. } if definition == "f" && *lines == [1, 5]),
            "{err:?}"
        );
        assert_eq!(err.error_kind(), crate::ErrorKind::Ambiguous);
        // The chunk's lines choose one of them: the one it aligns with best.
        let merged = merge(file, "def f():\n    log()\n    return 2\n", &options).unwrap();
        assert_eq!(merged.text(), file.replace("    return 2\n", "    log()\n    return 2\n"));
        assert_eq!(merged.chunks()[0].definition.as_deref(), Some("f"));
        assert_eq!(merged.chunks()[0].lines, [5, 6]);
    }

    #[test]
    fn a_chunk_outside_every_definition_aligns_by_lines() {
        let options = twins_outline(vec![]);
        let merged =
            merge(TWINS, "class B:\n    def other(self):\n        pass\n        done()\n# ...\n", &options).unwrap();
        assert_eq!((merged.chunks()[0].alignment, merged.chunks()[0].definition.as_deref()), (AlignedBy::Lines, None));
    }

    #[test]
    fn a_new_method_is_bounded_by_its_class() {
        let snippet = "class B:\n    # ...\n    def run(self):\n        x = 1\n        return x\n\n    def new(self):\n        return 0\n";
        let options = twins_outline(vec![def("B", 1, 8), def("B.run", 3, 5), def("B.new", 7, 8)]);
        let merged = merge(TWINS, snippet, &options).unwrap();
        assert_eq!(merged.text(), format!("{TWINS}\n    def new(self):\n        return 0\n"));
    }

    #[test]
    fn closing_lines_after_a_marker_end_their_definition() {
        let file = "class A {\n  run() {\n    if (x) {\n      go();\n    }\n    stop();\n  }\n}\n\nclass B {\n  run() {\n    if (x) {\n      go();\n    }\n    stop();\n  }\n}\n";
        let snippet =
            "class B {\n  // ...\n  run() {\n    if (x) {\n      go();\n      more();\n    // ...\n  }\n  // ...\n}\n";
        // By lines, `}` alone places nothing.
        assert!(matches!(refused(file, snippet), Error::Ambiguous { .. } | Error::NotFound { .. }));
        let outline = Outline {
            file: vec![def("A", 1, 8), def("A.run", 2, 7), def("B", 10, 17), def("B.run", 11, 16)],
            snippet: vec![def("B", 1, 10), def("B.run", 3, 8)],
        };
        let options = SnippetOptions { outline: Some(outline), ..Default::default() };
        let merged = merge(file, snippet, &options).unwrap();
        let b = file.find("class B").unwrap();
        let expected = format!("{}{}", &file[..b], file[b..].replace("      go();\n", "      go();\n      more();\n"));
        assert_eq!(merged.text(), expected);
        let spans: Vec<[usize; 2]> = merged.chunks().iter().map(|chunk| chunk.lines).collect();
        assert_eq!(spans, [[10, 10], [11, 13], [16, 16], [17, 17]]);
    }
}
