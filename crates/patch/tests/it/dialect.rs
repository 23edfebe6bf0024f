//! The dialect is decided by the first marker: `*** Begin Patch` opens a Codex patch.

use editkit_patch::{ApplyOptions, Dialect, apply, parse};

use crate::support::workspace_with;

#[test]
fn an_add_only_begin_patch_with_an_unprefixed_line_is_refused_at_that_line() {
    let (tmp, workspace) = workspace_with(&[("keep.txt", "k\n")]);
    let patch = "*** Begin Patch\n*** Add File: a.py\n+def f():\n    \n+    return 1\n*** End Patch\n";
    let err = apply(&workspace, patch, &ApplyOptions::default()).unwrap_err();
    assert_eq!(err.kind(), "invalid_patch");
    assert!(
        err.to_string().starts_with("invalid patch at line 4: line 4 of an added file does not start with `+`"),
        "{err}"
    );
    assert!(!tmp.path().join("a.py").exists());
}

#[test]
fn begin_patch_decides_the_dialect_for_the_whole_patch() {
    let patch = parse("*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** End Patch\n").unwrap();
    assert_eq!(patch.dialect(), Dialect::BeginPatch);
    // The `@@`/`===` dialect inside the sentinels is still told by its `===` line.
    let patch = parse("*** Begin Patch\n*** Update File: a.txt\n@@\none\n===\nuno\n*** End Patch\n").unwrap();
    assert_eq!(patch.dialect(), Dialect::Hunks);
    // Without the opener, plain add lines are the hunk dialect's plain content.
    let patch = parse("*** Add File: a.txt\none\n    two\n*** End Patch\n").unwrap();
    assert_eq!(patch.dialect(), Dialect::Hunks);
}

#[test]
fn a_hunk_patch_ends_with_end_patch_because_its_last_new_text_has_no_other_end() {
    // Cut after the first line of the new text: taken whole, it would delete `return a + b`.
    let cut = "*** Update File: calc.py\n@@\ndef add(a, b):\n    return a + b\n===\ndef add(a, b):\n";
    let err = parse(cut).unwrap_err();
    assert_eq!(err.kind(), "invalid_patch");
    assert_eq!(
        err.to_string(),
        "invalid patch at line 6: the patch is incomplete: it ends at line 6 without `*** End Patch` (an `@@`/`===` \
         patch ends with `*** End Patch`: the new text of its last hunk has no other end); it may have been cut off"
    );
    assert!(parse(&format!("{cut}    return b + a\n*** End Patch")).is_ok());
}

#[test]
fn a_unified_diff_whose_last_line_has_no_line_end_may_be_cut_in_that_line() {
    let head = "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a + b\n";
    // The counts are met either way: only the line end tells `+    return b + a` whole.
    for cut in [format!("{head}+    return b +"), format!("{head}+    return b + a")] {
        let err = parse(&cut).unwrap_err();
        assert!(err.to_string().contains("without the line end of its last line"), "{err}");
    }
    assert!(parse(&format!("{head}+    return b + a\n")).is_ok());
    // Nor a `-` line (`-` alone removes a blank line), and the marker is whole or not the marker.
    assert!(parse("--- a/x\n+++ b/x\n@@ -1,2 +1 @@\n a\n-b").is_err());
    assert!(parse("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-b\n+B\n ").is_err());
    assert!(parse("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file").is_ok());
    assert!(parse("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at").is_err());
}

#[test]
fn a_cd_wrapper_resolves_the_paths_in_that_folder() {
    let (tmp, workspace) = workspace_with(&[("a.txt", "root\n"), ("sub/a.txt", "one\n")]);
    for (opener, close) in [("cd sub && apply_patch <<'EOF'", "EOF"), ("cd \"sub\"; apply_patch <<PATCH", "PATCH")] {
        let patch = format!(
            "{opener}\n*** Begin Patch\n*** Update File: a.txt\n-one\n+two\n*** Add File: b.txt\n+new\n*** End Patch\n{close}\n"
        );
        let parsed = parse(&patch).unwrap();
        assert_eq!(parsed.directory(), Some("sub"));
        let applied = apply(&workspace, &patch, &ApplyOptions { dry_run: true, ..ApplyOptions::default() }).unwrap();
        assert_eq!(applied.updated, ["sub/a.txt"]);
        assert_eq!(applied.added, ["sub/b.txt"]);
    }
    let patch =
        "cd sub && apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.txt\n-one\n+two\n*** End Patch\nEOF\n";
    apply(&workspace, patch, &ApplyOptions::default()).unwrap();
    assert_eq!(std::fs::read_to_string(tmp.path().join("sub/a.txt")).unwrap(), "two\n");
    assert_eq!(std::fs::read_to_string(tmp.path().join("a.txt")).unwrap(), "root\n");
}

#[test]
fn a_cd_wrapper_obeys_the_sandbox_or_is_refused() {
    let (tmp, workspace) = workspace_with(&[("a.txt", "root\n")]);
    // Out of the root: the workspace refuses the path, as any other.
    let out = "cd .. && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: x.txt\n+x\n*** End Patch\nEOF\n";
    let err = apply(&workspace, out, &ApplyOptions::default()).unwrap_err();
    assert_eq!(err.kind(), "outside_workspace", "{err}");
    // A folder that cannot be resolved here is refused, never dropped.
    for dir in ["$DIR", "~/src", "-", "`pwd`"] {
        let patch =
            format!("cd {dir} && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: x.txt\n+x\n*** End Patch\nEOF\n");
        let err = apply(&workspace, &patch, &ApplyOptions::default()).unwrap_err();
        assert_eq!(err.kind(), "invalid_patch", "{dir}: {err}");
        assert!(err.to_string().contains("cannot resolve"), "{err}");
    }
    assert!(!tmp.path().join("x.txt").exists());
}
