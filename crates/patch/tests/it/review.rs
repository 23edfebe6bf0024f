//! Cases found by reading the planner and the journal closely.

use crate::support::workspace_with as tree;
use editkit_patch::{ApplyOptions, apply};

fn read(tmp: &tempfile::TempDir, path: &str) -> String {
    std::fs::read_to_string(tmp.path().join(path)).unwrap()
}

#[test]
fn a_journal_shipped_in_the_workspace_is_ignored() {
    let journal =
        r#"{"version":1,"id":"1","entries":[{"target":"a.txt","temp":null,"backup":".env"}],"created_dirs":[]}"#;
    let (tmp, workspace) = tree(&[(".env", "SECRET=1\n"), ("a.txt", "one\n")]);
    std::fs::create_dir_all(tmp.path().join(".editkit/patch/1")).unwrap();
    std::fs::write(tmp.path().join(".editkit/patch/1.json"), journal).unwrap();
    std::fs::write(tmp.path().join(".editkit/patch/1/0"), "planted\n").unwrap();
    apply(&workspace, "*** Begin Patch\n*** Add File: b.txt\n+b\n*** End Patch\n", &ApplyOptions::default()).unwrap();
    assert!(editkit_patch::recover(&workspace).unwrap().is_empty());
    assert_eq!(read(&tmp, "a.txt"), "one\n");
    assert_eq!(read(&tmp, ".env"), "SECRET=1\n");
    assert_eq!(read(&tmp, ".editkit/patch/1.json"), journal);
    assert_eq!(read(&tmp, ".editkit/patch/1/0"), "planted\n");
    assert!(workspace.shipped_state().is_some());
}

#[test]
fn a_forged_journal_in_the_state_folder_is_refused_and_touches_nothing() {
    let journals = [
        r#"{"version":1,"id":"1","entries":[{"target":"leak.txt","temp":null,"backup":".env"}],"created_dirs":[]}"#,
        r#"{"version":1,"id":"1","entries":[{"target":"a.txt","temp":".git/config","backup":null}],"created_dirs":[]}"#,
        r#"{"version":1,"id":"1","entries":[{"target":".git/config","temp":null,"backup":null}],"created_dirs":[]}"#,
        r#"{"version":1,"id":"2","entries":[],"created_dirs":[]}"#,
        r#"{"version":1,"id":"1","entries":[{"target":"a.txt","temp":null,"backup":null}],"created_dirs":["src"]}"#,
    ];
    for journal in journals {
        let (tmp, workspace) =
            tree(&[(".env", "SECRET=1\n"), (".git/config", "[core]\n"), ("a.txt", "one\n"), ("src/x.txt", "x\n")]);
        workspace.txn().state_write("patch/1.json", journal.as_bytes()).unwrap();
        let err =
            apply(&workspace, "*** Begin Patch\n*** Add File: b.txt\n+b\n*** End Patch\n", &ApplyOptions::default())
                .unwrap_err();
        assert!(err.to_string().contains("not a journal editkit wrote"), "{journal}: {err}");
        assert_eq!(read(&tmp, ".env"), "SECRET=1\n");
        assert_eq!(read(&tmp, ".git/config"), "[core]\n");
        assert_eq!(read(&tmp, "a.txt"), "one\n");
        assert!(tmp.path().join("src/x.txt").exists());
        assert!(!tmp.path().join("leak.txt").exists() && !tmp.path().join("b.txt").exists());
    }
}

#[test]
fn a_missing_newline_marker_away_from_the_end_leaves_the_end_alone() {
    let (tmp, workspace) = tree(&[("f.txt", "foo\nbar\n")]);
    let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-foo\n\\ No newline at end of file\n+FOO\n\\ No newline at end of file\n";
    apply(&workspace, patch, &ApplyOptions::default()).unwrap();
    assert_eq!(read(&tmp, "f.txt"), "FOO\nbar\n");
    // At the end it still applies.
    let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -2 +2 @@\n-bar\n+BAR\n\\ No newline at end of file\n";
    apply(&workspace, patch, &ApplyOptions::default()).unwrap();
    assert_eq!(read(&tmp, "f.txt"), "FOO\nBAR");
}

#[test]
fn the_line_hint_chooses_among_every_candidate_not_only_the_listed_ones() {
    let file: String = (1..=50).map(|n| if n % 2 == 1 { "x = 1  \n".to_owned() } else { format!("y{n}\n") }).collect();
    let (tmp, workspace) = tree(&[("f.py", &file)]);
    apply(&workspace, "--- a/f.py\n+++ b/f.py\n@@ -49 +49 @@\n-x = 1\n+x = 2\n", &ApplyOptions::default()).unwrap();
    let lines: Vec<String> = read(&tmp, "f.py").lines().map(str::to_owned).collect();
    let changed: Vec<usize> =
        lines.iter().enumerate().filter(|(_, l)| l.starts_with("x = 2")).map(|(i, _)| i + 1).collect();
    assert_eq!(changed, [49]);
}

#[test]
fn an_insertion_pointing_before_the_previous_hunk_is_refused() {
    let file: String = (1..=9).map(|n| format!("{n}\n")).collect();
    let (tmp, workspace) = tree(&[("f.txt", &file)]);
    let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -7 +7 @@\n-7\n+seven\n@@ -2,0 +3 @@\n+two-and-a-half\n";
    assert!(apply(&workspace, patch, &ApplyOptions::default()).is_err());
    assert_eq!(read(&tmp, "f.txt"), file);
}

#[test]
fn end_of_file_wins_over_an_anchor_for_an_insertion() {
    let file = "def f():\n    return 1\n\ndef g():\n    return 2\n";
    let (tmp, workspace) = tree(&[("m.py", file)]);
    let patch = "*** Begin Patch\n*** Update File: m.py\n@@ def f():\n+def h(): pass\n*** End of File\n*** End Patch\n";
    apply(&workspace, patch, &ApplyOptions::default()).unwrap();
    assert_eq!(read(&tmp, "m.py"), format!("{file}def h(): pass\n"));
}

#[test]
fn context_lines_keep_their_own_endings_in_a_mixed_file() {
    let (tmp, workspace) = tree(&[("m.txt", "a\nb\nctx\nx\r\ny\n")]);
    apply(
        &workspace,
        "*** Begin Patch\n*** Update File: m.txt\n@@\n ctx\n+NEW\n x\n*** End Patch\n",
        &ApplyOptions::default(),
    )
    .unwrap();
    assert_eq!(std::fs::read(tmp.path().join("m.txt")).unwrap(), b"a\nb\nctx\nNEW\nx\r\ny\n");
}

#[test]
fn a_move_onto_a_folder_is_refused_when_planned() {
    let (tmp, workspace) = tree(&[("a.txt", "one\n"), ("dir/inside.txt", "x\n")]);
    let patch = "*** Begin Patch\n*** Update File: a.txt\n*** Move to: dir\n*** End Patch\n";
    let dry = ApplyOptions { dry_run: true, ..Default::default() };
    assert!(apply(&workspace, patch, &dry).is_err(), "the dry run must see the folder too");
    assert!(apply(&workspace, patch, &ApplyOptions::default()).is_err());
    assert_eq!(read(&tmp, "a.txt"), "one\n");
}

#[test]
fn a_file_and_a_file_inside_it_cannot_both_be_added() {
    let (tmp, workspace) = tree(&[]);
    let patch = "*** Begin Patch\n*** Add File: a\n+x\n*** Add File: a/b\n+y\n*** End Patch\n";
    let dry = ApplyOptions { dry_run: true, ..Default::default() };
    let err = apply(&workspace, patch, &dry).unwrap_err();
    assert!(err.to_string().contains("a/b"), "{err}");
    assert!(!tmp.path().join("a").exists());
}

/// A user policy blocking what editkit's own temp and backup names end with (`*.tmp`, `*.bak`)
/// either lets a patch through or refuses it with nothing changed and nothing left behind (a
/// first fix judging every temp name whole stopped the commit at its first backup, leaving a
/// temp file).
#[test]
fn a_policy_blocking_temp_suffixes_leaves_a_patch_whole() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    std::fs::create_dir(dir.path().join("d")).unwrap();
    std::fs::write(dir.path().join("d/b.txt"), "two\n").unwrap();
    let mut policy = editkit_vfs::Policy::default();
    policy.blocked.extend(["**/*.tmp".to_owned(), "**/*.bak".to_owned()]);
    let workspace =
        editkit_vfs::Workspace::builder(dir.path(), editkit_vfs::ambient_authority()).policy(policy).open().unwrap();
    let patch =
        "*** Begin Patch\n*** Update File: a.txt\n-one\n+1\n*** Update File: d/b.txt\n-two\n+2\n*** End Patch\n";
    let result = editkit_patch::apply(&workspace, patch, &editkit_patch::ApplyOptions::default());
    let names = |rel: &str| {
        let mut names: Vec<String> = std::fs::read_dir(dir.path().join(rel))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    };
    assert_eq!(names(""), ["a.txt", "d"], "{result:?}");
    assert_eq!(names("d"), ["b.txt"], "{result:?}");
    let (a, b) = (
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        std::fs::read_to_string(dir.path().join("d/b.txt")).unwrap(),
    );
    match &result {
        Ok(_) => assert_eq!((a.as_str(), b.as_str()), ("1\n", "2\n")),
        Err(_) => assert_eq!((a.as_str(), b.as_str()), ("one\n", "two\n"), "{result:?}"),
    }
    assert!(editkit_patch::recover(&workspace).unwrap().is_empty());
}
