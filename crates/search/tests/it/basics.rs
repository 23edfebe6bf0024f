//! The search itself: patterns, case, words, columns, context, multi-line, the result shape.

use editkit_search::{Case, Search};

use crate::support::{Tree, files_of, finds, search};

#[test]
fn a_todo_in_file1_and_none_in_file2_is_one_file_with_matches() {
    let tree =
        Tree::new(&[("file1.py", "def a():\n    # TODO: fix\n    pass\n"), ("file2.py", "def b():\n    return 2\n")]);
    let found = search(&tree, "TODO", ".", |_| {});
    assert_eq!(found.files_searched, 2);
    assert_eq!(found.files_with_matches, 1);
    assert_eq!(files_of(&found), ["file1.py"]);
    let hit = &found.results[0].matches[0];
    assert_eq!((hit.line, hit.column, hit.end_column, hit.content.as_str()), (2, 7, 11, "    # TODO: fix"));
    assert!(!found.truncated);
    assert!(found.skipped.is_empty());
    assert_eq!(found.pattern, "TODO");
    assert_eq!(found.directory, ".");
}

#[test]
fn results_serialise_with_the_contract_field_names() {
    let tree = Tree::new(&[("a.txt", "one\nneedle\n")]);
    let found = search(&tree, "needle", ".", |_| {});
    let json = serde_json::to_value(&found).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "pattern": "needle",
            "directory": ".",
            "files_searched": 1,
            "files_with_matches": 1,
            "results": [{ "file": "a.txt", "matches": [{ "line": 2, "column": 1, "end_column": 7, "content": "needle", "before": [], "after": [] }] }],
            "skipped": [],
            "truncated": false,
        })
    );
    let back: editkit_search::SearchResults = serde_json::from_value(json).unwrap();
    assert_eq!(back, found);
}

#[test]
fn files_are_sorted_and_runs_are_deterministic() {
    let files: Vec<(String, String)> =
        (0..60).map(|i| (format!("d{}/f{:02}.txt", i % 7, (i * 37) % 60), format!("x\nhit {i}\n"))).collect();
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, c)| (p.as_str(), c.as_str())).collect();
    let tree = Tree::new(&refs);
    let first = search(&tree, "hit", ".", |b| {
        b.threads(4);
    });
    let mut sorted = files_of(&first);
    sorted.sort_unstable();
    assert_eq!(files_of(&first), sorted);
    assert_eq!(first.files_with_matches, 60);
    for threads in [1, 2, 3, 8] {
        assert_eq!(
            search(&tree, "hit", ".", |b| {
                b.threads(threads);
            }),
            first
        );
    }
}

#[test]
fn regex_by_default_literal_when_asked() {
    let tree = Tree::new(&[("a.txt", "a.c\nabc\n")]);
    let regex = search(&tree, "a.c", ".", |_| {});
    assert_eq!(regex.results[0].matches.len(), 2);
    let literal = search(&tree, "a.c", ".", |b| {
        b.literal(true);
    });
    assert_eq!(literal.results[0].matches.len(), 1);
    assert_eq!(literal.results[0].matches[0].content, "a.c");
    // Regex metacharacters are plain text in a literal search, even unbalanced ones.
    assert_eq!(
        finds(&Tree::new(&[("b.txt", "call f(x\n")]), "f(x", |b| {
            b.literal(true);
        }),
        ["b.txt"]
    );
}

#[test]
fn case_sensitive_insensitive_and_smart() {
    let tree = Tree::new(&[("lower.txt", "hello\n"), ("upper.txt", "HELLO\n")]);
    assert_eq!(finds(&tree, "hello", |_| {}), ["lower.txt"]);
    assert_eq!(
        finds(&tree, "hello", |b| {
            b.case(Case::Insensitive);
        }),
        ["lower.txt", "upper.txt"]
    );
    assert_eq!(
        finds(&tree, "hello", |b| {
            b.case(Case::Smart);
        }),
        ["lower.txt", "upper.txt"]
    );
    assert_eq!(
        finds(&tree, "HELLO", |b| {
            b.case(Case::Smart);
        }),
        ["upper.txt"]
    );
}

#[test]
fn whole_word_skips_longer_words() {
    let tree = Tree::new(&[("a.txt", "foobar\n"), ("b.txt", "call foo(1)\n")]);
    assert_eq!(finds(&tree, "foo", |_| {}), ["a.txt", "b.txt"]);
    assert_eq!(
        finds(&tree, "foo", |b| {
            b.whole_word(true);
        }),
        ["b.txt"]
    );
}

#[test]
fn columns_count_characters_and_one_result_per_line() {
    let tree = Tree::new(&[("a.txt", "héllo wörld wörld\n")]);
    let found = search(&tree, "wörld", ".", |_| {});
    let hits = &found.results[0].matches;
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].column, 7);
}

#[test]
fn context_lines_before_and_after_each_match() {
    let tree = Tree::new(&[("a.txt", "1\n2\nhit 3\n4\nhit 5\n6\n7\n8\n")]);
    let found = search(&tree, "hit", ".", |b| {
        b.before_context(2).after_context(1);
    });
    let hits = &found.results[0].matches;
    assert_eq!(hits.len(), 2);
    assert_eq!(
        (hits[0].before.clone(), hits[0].after.clone()),
        (vec!["1".to_owned(), "2".to_owned()], vec!["4".to_owned()])
    );
    // Each match carries its own neighbours, even when they overlap another match's.
    assert_eq!(
        (hits[1].before.clone(), hits[1].after.clone()),
        (vec!["hit 3".to_owned(), "4".to_owned()], vec!["6".to_owned()])
    );
    // Context at the start and end of a file is shorter; CRLF endings are not shown.
    let tree = Tree::new(&[("b.txt", "hit\r\nlast\r\n")]);
    let found = search(&tree, "hit", ".", |b| {
        b.context(3);
    });
    let hit = &found.results[0].matches[0];
    assert!(hit.before.is_empty());
    assert_eq!((hit.content.as_str(), hit.after.clone()), ("hit", vec!["last".to_owned()]));
}

#[test]
fn multi_line_patterns_need_multi_line() {
    let tree = Tree::new(&[("a.rs", "fn main() {\n    body();\n}\n")]);
    let err = Search::builder(r"\{\n\s+body").build().unwrap_err();
    assert_eq!(err.kind(), "invalid_args");
    assert!(err.to_string().contains("multi_line"), "{err}");
    let found = search(&tree, r"\{\n\s+body", ".", |b| {
        b.multi_line(true);
    });
    let hit = &found.results[0].matches[0];
    assert_eq!((hit.line, hit.content.as_str()), (1, "fn main() {\n    body();"));
    assert_eq!(hit.column, 11);
}

#[test]
fn an_invalid_regex_is_invalid_pattern_with_the_explanation() {
    for pattern in ["(", "[a-", "a{2,1}", "\\", "(?P<x>a)(?P<x>b)"] {
        let err = Search::builder(pattern).build().unwrap_err();
        let editkit_search::Error::InvalidPattern { pattern: given, message } = &err else { panic!("{err:?}") };
        assert_eq!(given, pattern);
        assert!(message.contains("regex parse error") || message.contains("error"), "{message}");
        assert!(message.contains("literal"), "the hint is missing: {message}");
        assert_eq!(err.kind(), "invalid_args");
    }
    let err = Search::builder("x".repeat(editkit_search::MAX_PATTERN_BYTES + 1)).build().unwrap_err();
    assert!(matches!(err, editkit_search::Error::InvalidPattern { .. }));
}

#[test]
fn a_file_path_is_searched_alone_whatever_the_rules() {
    let tree = Tree::new(&[("dir/.hidden.txt", "needle\n"), ("dir/other.txt", "needle\n")]);
    let found = search(&tree, "needle", "dir/.hidden.txt", |_| {});
    assert_eq!(files_of(&found), ["dir/.hidden.txt"]);
    assert_eq!(found.files_searched, 1);
    assert_eq!(found.directory, "dir/.hidden.txt");
}

#[test]
fn a_sub_directory_gives_root_relative_paths() {
    let tree = Tree::new(&[("a/b/c.txt", "needle\n"), ("a/d.txt", "needle\n"), ("e.txt", "needle\n")]);
    let found = search(&tree, "needle", "a/b", |_| {});
    assert_eq!(files_of(&found), ["a/b/c.txt"]);
    assert_eq!(found.directory, "a/b");
    // Absolute paths under the root are remapped by the workspace.
    let absolute = tree.root.join("a").display().to_string();
    assert_eq!(files_of(&search(&tree, "needle", &absolute, |_| {})), ["a/b/c.txt", "a/d.txt"]);
}

#[test]
fn missing_paths_are_workspace_errors() {
    let tree = Tree::new(&[]);
    let err = Search::builder("x").build().unwrap().run(&tree.workspace(), "nope").unwrap_err();
    assert_eq!(err.kind(), "not_found");
    assert!(matches!(err, editkit_search::Error::Vfs(_)));
}

#[test]
fn a_search_is_reusable() {
    let one = Tree::new(&[("a.txt", "needle\n")]);
    let two = Tree::new(&[("b.txt", "needle\n")]);
    let search = Search::builder("needle").build().unwrap();
    assert_eq!(search.pattern(), "needle");
    assert_eq!(files_of(&search.run(&one.workspace(), ".").unwrap()), ["a.txt"]);
    assert_eq!(files_of(&search.run(&two.workspace(), ".").unwrap()), ["b.txt"]);
}

#[test]
fn a_utf8_bom_is_not_part_of_the_first_line() {
    let tree = Tree::new(&[("a.txt", "\u{feff}needle here\n")]);
    let hit = &search(&tree, "needle", ".", |_| {}).results[0].matches[0];
    assert_eq!((hit.content.as_str(), hit.column), ("needle here", 1));
}

#[test]
fn a_fifo_named_directly_is_refused_not_opened() {
    let tree = Tree::new(&[("a.txt", "needle\n")]);
    let fifo = tree.root.join("pipe");
    // A missing `mkfifo` fails the test rather than skipping it.
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs (coreutils)");
    assert!(made.success(), "mkfifo made {}", fifo.display());
    let err = Search::builder("needle").build().unwrap().run(&tree.workspace(), "pipe").unwrap_err();
    assert_eq!(err.kind(), "invalid_args");
    // In a walk, FIFOs are passed over rather than opened (which would block).
    assert_eq!(files_of(&search(&tree, "needle", ".", |_| {})), ["a.txt"]);
}
