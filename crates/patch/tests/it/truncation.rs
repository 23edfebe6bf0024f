//! Patches cut off in the middle (a model that reached its output limit) are refused and
//! change nothing: every proper line prefix and every prefix ending in the middle of a line of
//! every patch of `fixtures/patches/` and of the patch texts written in the crates' tests.
//!
//! A `*** Begin Patch` patch and an `@@`/`===` patch end with `*** End Patch`, so none of their
//! prefixes may be accepted; nor may any prefix ending in the middle of a line, in any dialect.
//! A unified diff has no end marker: a prefix cut at a line end exactly between two files or
//! two hunks (or after the lines a hunk's counts asked for, when agents' counts drift) is itself
//! a whole unified diff, byte for byte. Such a prefix may be accepted only when it is exactly
//! that, a leading part of the whole patch in whole lines, which this test checks operation by
//! operation and hunk by hunk, and counts.

use std::path::{Path, PathBuf};

use editkit_patch::{ApplyOptions, Dialect, Hunk, Operation, Patch, apply, parse};
use editkit_vfs::Workspace;

use crate::support::{snapshot, workspace_with, write_tree};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// Every proper prefix of `text`: at each line end, and in the middle of each line.
fn prefixes(text: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = Vec::new();
    let mut at = String::new();
    for (n, line) in lines.iter().enumerate() {
        out.push((format!("first {n} lines"), at.clone()));
        let body = line.trim_end_matches(['\n', '\r']);
        let half: String = body.chars().take(body.chars().count() / 2).collect();
        if !half.is_empty() {
            out.push((format!("cut in line {} after {:?}", n + 1, half), format!("{at}{half}")));
        }
        at.push_str(line);
    }
    // A whole text without its last line end is the whole patch, not a cut.
    out.retain(|(_, prefix)| prefix.trim_end() != text.trim_end());
    out
}

/// Whether `part` is a leading part of the unified diff `whole` in whole lines, which the
/// format cannot tell from a whole patch: whole operations and hunks, then the last operation's
/// hunks, the last of them cut at a line end.
fn leading_part(whole: &Patch, part: &Patch, prefix: &str) -> bool {
    if whole.dialect() != Dialect::Unified || part.dialect() != Dialect::Unified || !prefix.ends_with('\n') {
        return false;
    }
    let (whole_ops, part_ops) = (whole.operations(), part.operations());
    let Some((last, before)) = part_ops.split_last() else { return false };
    if part_ops.len() > whole_ops.len() || whole_ops.get(..before.len()) != Some(before) {
        return false;
    }
    match (last, &whole_ops[before.len()]) {
        (Operation::Add { path, content, .. }, Operation::Add { path: whole_path, content: whole_content, .. }) => {
            // Cut before its `\ No newline at end of file`, an add body ends with a line end.
            path == whole_path && whole_content.starts_with(content.strip_suffix('\n').unwrap_or(content))
        }
        (Operation::Delete { path, .. }, Operation::Delete { path: whole_path, .. }) => path == whole_path,
        (
            Operation::Update { path, move_to, hunks, .. },
            Operation::Update { path: whole_path, move_to: whole_move, hunks: whole_hunks, .. },
        ) => {
            // A move whose hunks were all cut off is a pure move by the format.
            let Some((last_hunk, hunks_before)) = hunks.split_last() else {
                return path == whole_path && move_to == whole_move && move_to.is_some();
            };
            path == whole_path
                && move_to == whole_move
                && hunks.len() <= whole_hunks.len()
                && whole_hunks.get(..hunks_before.len()) == Some(hunks_before)
                && hunk_leading_part(last_hunk, &whole_hunks[hunks_before.len()])
        }
        _ => false,
    }
}

fn hunk_leading_part(part: &Hunk, whole: &Hunk) -> bool {
    let lines_prefix = |part: &[String], whole: &[String]| whole.starts_with(part);
    part.anchors == whole.anchors && lines_prefix(&part.old, &whole.old) && lines_prefix(&part.new, &whole.new)
}

/// The string literals of a Rust source file that hold a newline (escapes undone).
fn string_literals(source: &str) -> Vec<String> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '\'' => {
                // A char literal (`'"'`, `'\n'`) or a lifetime.
                if chars.get(i + 1) == Some(&'\\') {
                    i += 2;
                    while i < chars.len() && chars[i] != '\'' {
                        i += 1;
                    }
                } else if chars.get(i + 2) == Some(&'\'') {
                    i += 2;
                }
                i += 1;
            }
            'r' if matches!(chars.get(i + 1), Some('"' | '#')) && (i == 0 || !chars[i - 1].is_alphanumeric()) => {
                let mut hashes = 0;
                let mut j = i + 1;
                while chars.get(j) == Some(&'#') {
                    hashes += 1;
                    j += 1;
                }
                if chars.get(j) != Some(&'"') {
                    i += 1;
                    continue;
                }
                let close: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
                let rest: String = chars[j + 1..].iter().collect();
                let end = rest.find(&close).unwrap_or(rest.len());
                out.push(rest[..end].to_owned());
                i = j + 1 + rest[..end].chars().count() + close.chars().count();
            }
            '"' => {
                let mut literal = String::new();
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' {
                        i += 1;
                        match chars.get(i) {
                            Some('n') => literal.push('\n'),
                            Some('r') => literal.push('\r'),
                            Some('t') => literal.push('\t'),
                            Some('0') => literal.push('\0'),
                            Some('\n') => {
                                while chars.get(i + 1).is_some_and(|c| c.is_whitespace()) {
                                    i += 1;
                                }
                            }
                            Some('u') => {
                                let end = chars[i..].iter().position(|&c| c == '}').map_or(i, |p| i + p);
                                let hex: String = chars[i + 2..end].iter().collect();
                                literal.extend(u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32));
                                i = end;
                            }
                            Some(&c) => literal.push(c),
                            None => {}
                        }
                    } else {
                        literal.push(chars[i]);
                    }
                    i += 1;
                }
                out.push(literal);
                i += 1;
            }
            _ => i += 1,
        }
    }
    out.retain(|literal| literal.contains('\n'));
    out
}

/// The whole patches written in the tests of this crate, the facade and the CLI.
fn test_patches() -> Vec<(String, String)> {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = vec![crate_dir.join("src/parse/tests.rs"), crate_dir.join("src/lib.rs")];
    for dir in ["tests/it", "../toolkit/tests/it", "../cli/tests/it", "../toolkit/src"] {
        // Source folders hold modules of their own (`toolkit/src/types/`): walk them too.
        let mut dirs = vec![crate_dir.join(dir)];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() { dirs.push(path) } else { sources.push(path) }
            }
        }
    }
    sources.sort();
    let mut out = Vec::new();
    for source in sources {
        let text = std::fs::read_to_string(&source).unwrap();
        for literal in string_literals(&text) {
            // Pieces of `format!` templates are not patches.
            let template = literal.contains("{{") || literal.contains("{}") || literal.contains("{i}");
            if !template && parse(&literal).is_ok() {
                out.push((source.file_name().unwrap().to_string_lossy().into_owned(), literal));
            }
        }
    }
    out
}

#[test]
fn the_cut_off_patch_of_the_report_is_refused_and_writes_nothing() {
    let (tmp, workspace) = workspace_with(&[("a.py", "def f():\n    x = compute()\n    y = x + 1\n    return y\n")]);
    let cut = "*** Begin Patch\n*** Update File: a.py\n@@ def f():\n     x = compute()\n-    y = x + 1\n+    y = x +";
    let err = apply(&workspace, cut, &ApplyOptions::default()).unwrap_err();
    assert_eq!(err.kind(), "invalid_patch");
    assert_eq!(
        err.to_string(),
        "invalid patch at line 6: the patch is incomplete: it ends at line 6 without `*** End Patch`; it may have \
         been cut off"
    );
    let after_minus = "*** Begin Patch\n*** Update File: a.py\n     x = compute()\n-    y = x + 1\n";
    assert_eq!(apply(&workspace, after_minus, &ApplyOptions::default()).unwrap_err().kind(), "invalid_patch");
    let half_add = "*** Begin Patch\n*** Add File: b.py\n+def g():\n+    return";
    assert_eq!(apply(&workspace, half_add, &ApplyOptions::default()).unwrap_err().kind(), "invalid_patch");
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("a.py")).unwrap(),
        "def f():\n    x = compute()\n    y = x + 1\n    return y\n"
    );
    assert!(!tmp.path().join("b.py").exists());
}

#[test]
fn a_wrapper_opened_and_never_closed_is_a_cut_off_patch() {
    for text in [
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: x\n*** End Patch\n",
        "```diff\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
    ] {
        let err = parse(text).unwrap_err();
        assert!(err.to_string().contains("the patch is incomplete"), "{text:?}: {err}");
    }
}

#[test]
fn unified_hunks_short_of_their_counts_at_the_end_are_cut_off() {
    let err = parse("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n").unwrap_err();
    assert!(err.to_string().contains("the patch is incomplete: it ends at line 6 inside the hunk of line 3"), "{err}");
    // Counts met, or no counts at all: a whole hunk.
    assert!(parse("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n").is_ok());
    assert!(parse("--- a/x\n+++ b/x\n@@\n a\n-b\n+B\n").is_ok());
    // A file section that stops before its hunks, and a header line cut in its middle.
    for text in [
        "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/y b/y\nindex 1..2 100644\n",
        "--- a/x\n+++ b/x\n",
        "diff --git a/x b/x\nrename from x\nrename to ne",
    ] {
        let err = parse(text).unwrap_err();
        assert!(err.to_string().contains("the patch is incomplete"), "{text:?}: {err}");
    }
}

#[test]
fn every_prefix_of_every_corpus_patch_is_refused_and_changes_nothing() {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(fixtures().join("patches"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    let (mut refused, mut leading, mut problems) = (0usize, 0usize, Vec::new());
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let Ok(text) = std::fs::read_to_string(case.join("input")) else { continue };
        let Ok(whole) = parse(&text) else { continue };
        let before = snapshot(&case.join("before"));
        for (how, prefix) in prefixes(&text) {
            let tmp = tempfile::tempdir().unwrap();
            write_tree(tmp.path(), &before);
            let workspace = Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
            let parsed = parse(&prefix);
            let result = apply(&workspace, &prefix, &ApplyOptions::default());
            match (parsed, result) {
                (_, Err(_)) if snapshot(tmp.path()) != before => {
                    problems.push(format!("{name}, {how}: refused but the tree changed"));
                }
                (_, Err(_)) => refused += 1,
                (Ok(part), Ok(_)) if leading_part(&whole, &part, &prefix) => leading += 1,
                (_, Ok(applied)) => problems.push(format!("{name}, {how}: applied\n{}", applied.diff)),
            }
        }
    }
    println!("corpus truncations: {refused} refused, {leading} accepted as a leading part of the whole patch");
    assert!(refused > 1000, "{refused}");
    assert!(problems.is_empty(), "{} truncations accepted:\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn every_prefix_of_every_patch_written_in_the_tests_is_refused() {
    let patches = test_patches();
    assert!(patches.len() >= 45, "only {} patches found in the tests", patches.len());
    let (mut refused, mut leading, mut problems) = (0usize, 0usize, Vec::new());
    for (source, text) in &patches {
        let whole = parse(text).unwrap();
        for (how, prefix) in prefixes(text) {
            match parse(&prefix) {
                Err(_) => refused += 1,
                Ok(part) if leading_part(&whole, &part, &prefix) => leading += 1,
                Ok(part) => problems.push(format!("{source}: {text:?}, {how}: parsed as {:?}", part.operations())),
            }
        }
    }
    println!("{} test patches: {refused} truncations refused, {leading} accepted as a leading part", patches.len());
    assert!(problems.is_empty(), "{} truncations accepted:\n{}", problems.len(), problems.join("\n\n"));
}

#[test]
fn a_git_section_cut_before_its_hunks_is_refused_when_its_header_says_the_content_changes() {
    for text in [
        // A new file whose `index` line names a blob other than the empty one.
        "diff --git a/n.txt b/n.txt\nnew file mode 100644\nindex 0000000..94954ab\n",
        // A new file without any `index` line: git always writes one.
        "diff --git a/n.txt b/n.txt\nnew file mode 100644\n",
        // A rename whose content changes.
        "diff --git a/old.py b/new.py\nsimilarity index 80%\nrename from old.py\nrename to new.py\n",
        "diff --git a/old.py b/new.py\nrename from old.py\nrename to new.py\nindex 1a2b3c4..5d6e7f8 100644\n",
    ] {
        let err = parse(text).unwrap_err();
        assert!(err.to_string().contains("though its header says the content changes"), "{text:?}: {err}");
    }
    // What git writes for an empty new file and a pure rename stays whole.
    for text in [
        "diff --git a/e.txt b/e.txt\nnew file mode 100644\nindex 0000000..e69de29\n",
        "diff --git a/old.py b/new.py\nsimilarity index 100%\nrename from old.py\nrename to new.py\n",
    ] {
        assert!(parse(text).is_ok(), "{text:?}");
    }
}

#[test]
fn a_git_deletion_cut_before_its_removed_lines_deletes_only_an_empty_file() {
    let (tmp, workspace) = workspace_with(&[("gone.txt", "bye\n"), ("empty.txt", "")]);
    let cut = "diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n";
    let err = apply(&workspace, cut, &ApplyOptions::default()).unwrap_err();
    assert_eq!(err.kind(), "not_found", "{err}");
    assert!(err.to_string().contains("it differs from the deleted lines"), "{err}");
    assert!(tmp.path().join("gone.txt").exists());
    let empty = "diff --git a/empty.txt b/empty.txt\ndeleted file mode 100644\nindex e69de29..0000000\n";
    apply(&workspace, empty, &ApplyOptions::default()).unwrap();
    assert!(!tmp.path().join("empty.txt").exists());
}

#[test]
fn a_format_patch_mail_short_of_its_summary_is_cut_off() {
    let head = "From 1234 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] two\n\n---\n a.txt | 2 +-\n b.txt | 2 +-\n \
                2 files changed, 2 insertions(+), 2 deletions(-)\n\n";
    let a = "diff --git a/a.txt b/a.txt\nindex 1..2 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n";
    let b = "diff --git a/b.txt b/b.txt\nindex 3..4 100644\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+B\n";
    let err = parse(&format!("{head}{a}")).unwrap_err();
    assert!(
        err.to_string().contains("1 file(s), 1 added and 1 removed line(s), short of the summary at line 7"),
        "{err}"
    );
    assert_eq!(parse(&format!("{head}{a}{b}-- \n2.43.0\n")).unwrap().operations().len(), 2);
}
