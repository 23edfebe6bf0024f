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
    let patch = parse("*** Add File: a.txt\none\n    two\n").unwrap();
    assert_eq!(patch.dialect(), Dialect::Hunks);
}
