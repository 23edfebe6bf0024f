//! Bounded output: result and file caps, file size, long lines, binary and non-UTF-8 files.

use editkit_search::CUT_MARKER;

use crate::support::{Tree, files_of, search, skipped_of};

/// 10 files `f0.txt`..`f9.txt` with 5 matching lines each.
fn fifty_matches() -> Tree {
    let tree = Tree::new(&[]);
    for i in 0..10 {
        tree.write(&format!("f{i}.txt"), "hit\nmiss\n".repeat(5).as_bytes());
    }
    tree
}

#[test]
fn truncation_is_flagged_at_max_results_and_keeps_the_first_lines() {
    let tree = fifty_matches();
    for threads in [1, 2, 4] {
        let found = search(&tree, "hit", ".", |b| {
            b.max_results(12).threads(threads);
        });
        assert!(found.truncated);
        let lines: usize = found.results.iter().map(|r| r.matches.len()).sum();
        assert_eq!(lines, 12);
        assert_eq!(files_of(&found), ["f0.txt", "f1.txt", "f2.txt"]);
        assert_eq!(found.results[2].matches.iter().map(|m| m.line).collect::<Vec<_>>(), [1, 3]);
        // Counts cover every file, also those cut from the results.
        assert_eq!((found.files_searched, found.files_with_matches), (10, 10));
    }
}

#[test]
fn exactly_max_results_is_not_truncated() {
    let tree = fifty_matches();
    let found = search(&tree, "hit", ".", |b| {
        b.max_results(50);
    });
    assert!(!found.truncated);
    assert_eq!(found.results.len(), 10);
    let found = search(&tree, "hit", ".", |b| {
        b.max_results(49);
    });
    assert!(found.truncated);
}

#[test]
fn max_files_and_max_matches_per_file() {
    let tree = fifty_matches();
    let found = search(&tree, "hit", ".", |b| {
        b.max_files(2);
    });
    assert!(found.truncated);
    assert_eq!(files_of(&found), ["f0.txt", "f1.txt"]);
    assert_eq!(found.results[1].matches.len(), 5);
    assert_eq!(found.files_with_matches, 10);
    let found = search(&tree, "hit", ".", |b| {
        b.max_matches_per_file(2);
    });
    assert!(found.truncated);
    assert_eq!(found.results.len(), 10);
    assert!(found.results.iter().all(|r| r.matches.len() == 2));
}

#[test]
fn max_results_zero_only_counts() {
    let tree = fifty_matches();
    let found = search(&tree, "hit", ".", |b| {
        b.max_results(0);
    });
    assert!(found.results.is_empty());
    assert!(found.truncated);
    assert_eq!(found.files_with_matches, 10);
}

#[test]
fn files_over_max_file_size_are_skipped_as_too_large() {
    let tree = Tree::new(&[("small.txt", "needle\n")]);
    tree.write("big.txt", format!("needle\n{}", "x".repeat(5000)).as_bytes());
    let found = search(&tree, "needle", ".", |b| {
        b.max_file_size(1000);
    });
    assert_eq!(files_of(&found), ["small.txt"]);
    assert_eq!(skipped_of(&found), [("big.txt", "too_large")]);
    assert!(found.skipped[0].detail.as_deref().unwrap().contains("5007 bytes"));
    // The default is the workspace's read limit.
    let workspace = editkit_vfs::Workspace::builder(&tree.root, editkit_vfs::ambient_authority())
        .max_read_bytes(100)
        .open()
        .unwrap();
    let found = editkit_search::Search::builder("needle").build().unwrap().run(&workspace, ".").unwrap();
    assert_eq!(skipped_of(&found), [("big.txt", "too_large")]);
}

#[test]
fn long_lines_are_cut_with_a_marker_around_the_match() {
    let minified = format!("{}needle{}\n", "var a=1;".repeat(10_000), "b".repeat(10_000));
    let tree = Tree::new(&[("app.min.js", &minified)]);
    let found = search(&tree, "needle", ".", |b| {
        b.max_line_chars(100);
    });
    let hit = &found.results[0].matches[0];
    assert!(hit.content.contains("needle"), "{}", hit.content);
    assert!(hit.content.starts_with(CUT_MARKER) && hit.content.ends_with(CUT_MARKER));
    assert!(hit.content.chars().count() <= 100 + 2 * CUT_MARKER.chars().count());
    assert_eq!(hit.column, 80_001);
    // The default bound applies to context lines too.
    let tree = Tree::new(&[("a.txt", &format!("{}\nneedle\n", "z".repeat(100_000)))]);
    let hit = &search(&tree, "needle", ".", |b| {
        b.before_context(1);
    })
    .results[0]
        .matches[0];
    assert_eq!(hit.before[0].chars().count(), editkit_search::DEFAULT_MAX_LINE_CHARS + CUT_MARKER.chars().count());
}

#[test]
fn binary_files_are_skipped_with_a_reason() {
    let tree = Tree::new(&[("text.txt", "needle\n")]);
    tree.write("image.png", b"\x89PNG\r\n\x1a\n\0\0\0needle\0");
    // A match before a NUL far into the file does not make it a text file.
    let mut late = b"needle\n".to_vec();
    late.extend("filler line\n".repeat(20_000).as_bytes());
    late.extend_from_slice(b"\0binary tail needle\n");
    tree.write("late.bin", &late);
    let found = search(&tree, "needle", ".", |_| {});
    assert_eq!(files_of(&found), ["text.txt"]);
    assert_eq!(skipped_of(&found), [("image.png", "binary"), ("late.bin", "binary")]);
    assert_eq!(found.files_searched, 1);
}

#[test]
fn files_around_the_binary_sniff_size_are_read_whole() {
    // A file is read in two parts, the first 8 KiB (and a BOM's length) and the rest: a match
    // at the end of each size around that boundary is found, and a NUL just past the codec's
    // sniff window still makes the file binary.
    let sniff = editkit_vfs::BINARY_SNIFF_BYTES;
    let mut files = Vec::new();
    for size in sniff..sniff + 8 {
        let body = "x".repeat(size - "needle\n".len() - 1);
        files.push((format!("s{size}.txt"), format!("{body}\nneedle\n")));
    }
    let tree = Tree::new(&files.iter().map(|(name, text)| (name.as_str(), text.as_str())).collect::<Vec<_>>());
    let mut nul = vec![b'y'; sniff + 1];
    nul.extend_from_slice(b"\0needle\n");
    tree.write("nul.txt", &nul);
    // Files past a MiB stream through a fixed buffer, with the same verdicts.
    let big = "filler line\n".repeat(150_000);
    tree.write("z-big.txt", format!("{big}needle\n").as_bytes());
    tree.write("z-big-nul.txt", format!("{big}\0needle\n").as_bytes());
    let found = search(&tree, "needle", ".", |_| {});
    let mut expected: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
    expected.push("z-big.txt");
    assert_eq!(files_of(&found), expected);
    assert_eq!(skipped_of(&found), [("nul.txt", "binary"), ("z-big-nul.txt", "binary")]);
}

#[test]
fn non_utf8_files_are_skipped_or_searched_lossily() {
    let tree = Tree::new(&[("utf8.txt", "caf\u{e9} needle\n")]);
    let mut latin1 = b"caf\xe9 needle\n".to_vec();
    latin1.extend("plain line\n".repeat(10_000).as_bytes());
    tree.write("latin1.txt", &latin1);
    let mut late = "plain line\n".repeat(20_000).into_bytes();
    late.extend_from_slice(b"needle \xff\n");
    tree.write("late.txt", &late);
    let found = search(&tree, "needle", ".", |_| {});
    assert_eq!(files_of(&found), ["utf8.txt"]);
    assert_eq!(skipped_of(&found), [("late.txt", "not_utf8"), ("latin1.txt", "not_utf8")]);
    assert!(found.skipped[0].detail.as_deref().unwrap().contains("lossy"));
    let found = search(&tree, "needle", ".", |b| {
        b.lossy(true);
    });
    assert_eq!(files_of(&found), ["late.txt", "latin1.txt", "utf8.txt"]);
    assert_eq!(found.results[1].matches[0].content, "caf\u{fffd} needle");
    assert!(found.skipped.is_empty());
}

#[test]
fn the_skipped_list_is_bounded() {
    let tree = Tree::new(&[]);
    for i in 0..(editkit_search::MAX_SKIPPED + 5) {
        tree.write(&format!("bin{i:04}.dat"), b"\0");
    }
    let found = search(&tree, "needle", ".", |_| {});
    assert_eq!(found.skipped.len(), editkit_search::MAX_SKIPPED);
    assert_eq!(found.skipped[0].path, "bin0000.dat");
    assert!(found.truncated);
}

#[test]
fn the_last_kept_match_keeps_its_whole_after_context_when_results_are_capped() {
    let tree = Tree::new(&[("a.txt", "hit 1\nhit 2\nl3\nl4\nl5\n")]);
    for (cap, after) in [(1, 3), (2, 2)] {
        let found = search(&tree, "hit", ".", |b| {
            b.max_results(cap).after_context(after);
        });
        assert!(found.truncated || cap == 2);
        let kept = &found.results[0].matches;
        assert_eq!(kept.len(), cap);
        let expected: Vec<String> =
            if cap == 1 { vec!["hit 2".into(), "l3".into(), "l4".into()] } else { vec!["l3".into(), "l4".into()] };
        assert_eq!(kept[cap - 1].after, expected, "cap {cap}");
    }
}

/// `max_results` has a ceiling whatever is asked: a file of more matching lines than
/// `MAX_RESULTS` searched with a limit of a hundred million answers `MAX_RESULTS` lines and
/// `truncated`.
#[test]
fn max_results_has_a_ceiling() {
    let tree = Tree::new(&[]);
    tree.write("x.txt", "x\n".repeat(editkit_search::MAX_RESULTS + 10_000).as_bytes());
    let found = search(&tree, "x", ".", |b| {
        b.max_results(100_000_000);
    });
    let lines: usize = found.results.iter().map(|r| r.matches.len()).sum();
    assert_eq!(lines, editkit_search::MAX_RESULTS);
    assert!(found.truncated);
}

/// The kept matches hold at most `max_bytes` of text (lines and context), the first in (path,
/// line) order, on one thread as on several.
#[test]
fn matches_are_bounded_in_bytes_and_keep_the_first() {
    let tree = Tree::new(&[]);
    let line = format!("x{}\n", "y".repeat(99));
    for name in ["a.txt", "b.txt", "c.txt"] {
        tree.write(name, line.repeat(200).as_bytes());
    }
    for threads in [1, 2, 4] {
        let found = search(&tree, "x", ".", |b| {
            b.max_results(10_000).context(5).max_bytes(50_000).threads(threads);
        });
        assert!(found.truncated);
        let bytes: usize = found.results.iter().flat_map(|r| &r.matches).map(|m| m.held_bytes()).sum();
        assert!(bytes <= 50_000 && bytes > 40_000, "{bytes}");
        assert_eq!(files_of(&found), ["a.txt"]);
        assert_eq!(found.results[0].matches[0].line, 1);
        assert_eq!(found.files_with_matches, 3);
    }
}

/// A long pattern that does not parse is not shown again in the error: its kind and place are.
#[test]
fn a_long_bad_pattern_is_named_by_place_not_repeated() {
    let pattern = format!("{}x", "(".repeat(60_000));
    let err = editkit_search::Search::builder(pattern.as_str()).build().unwrap_err();
    let editkit_search::Error::InvalidPattern { message, .. } = &err else { panic!("{err:?}") };
    assert!(message.len() < 300, "{message}");
    assert!(message.contains("unclosed group") && message.contains("at byte"), "{message}");
}

/// The bounds hold together: matches cut by `max_results` no longer count against
/// `max_bytes`, so exactly the first `max_results` stay when they fit the bytes.
#[test]
fn matches_cut_by_count_free_their_bytes() {
    let tree = fifty_matches();
    let held = 3 + editkit_search::LINE_COST_BYTES;
    for threads in [1, 2, 4] {
        let found = search(&tree, "hit", ".", |b| {
            b.max_results(7).max_bytes(7 * held).threads(threads);
        });
        let lines: usize = found.results.iter().map(|r| r.matches.len()).sum();
        assert_eq!(lines, 7, "{threads} threads");
        assert_eq!(files_of(&found), ["f0.txt", "f1.txt"]);
        assert!(found.truncated);
    }
}
