//! `@@` anchors say where: the chunk is searched in the block the anchor opens, and ambiguity
//! is judged there.

use editkit_patch::{ApplyOptions, apply};

use crate::support::workspace_with;

const CLASSES: &str = "class A:\n    def run(self):\n        return 1\n\n\nclass B:\n    def run(self):\n        return 1\n\n\nclass C:\n    def run(self):\n        return 1\n";

#[test]
fn an_anchor_picks_the_class_whose_method_the_chunk_changes() {
    let (tmp, workspace) = workspace_with(&[("m.py", CLASSES)]);
    let patch = "*** Begin Patch\n*** Update File: m.py\n@@ class B:\n     def run(self):\n-        return 1\n+        return 2\n*** End Patch\n";
    apply(&workspace, patch, &ApplyOptions::default()).unwrap();
    let expected = CLASSES.replacen(
        "class B:\n    def run(self):\n        return 1",
        "class B:\n    def run(self):\n        return 2",
        1,
    );
    assert_eq!(std::fs::read_to_string(tmp.path().join("m.py")).unwrap(), expected);
}

#[test]
fn stacked_anchors_narrow_to_the_method() {
    let (tmp, workspace) = workspace_with(&[("m.py", CLASSES)]);
    let patch = "*** Begin Patch\n*** Update File: m.py\n@@ class C:\n@@     def run(self):\n-        return 1\n+        return 3\n*** End Patch\n";
    apply(&workspace, patch, &ApplyOptions::default()).unwrap();
    assert!(
        std::fs::read_to_string(tmp.path().join("m.py"))
            .unwrap()
            .ends_with("class C:\n    def run(self):\n        return 3\n")
    );
}

#[test]
fn without_an_anchor_the_refusal_suggests_one_and_not_replace_all() {
    let (tmp, workspace) = workspace_with(&[("m.py", CLASSES)]);
    let patch = "*** Begin Patch\n*** Update File: m.py\n     def run(self):\n-        return 1\n+        return 2\n*** End Patch\n";
    let err = apply(&workspace, patch, &ApplyOptions::default()).unwrap_err();
    assert_eq!(err.kind(), "ambiguous");
    let message = err.to_string();
    assert!(message.contains("lines 2, 7, 12"), "{message}");
    assert!(!message.contains("replace_all"), "{message}");
    assert!(message.contains("an `@@` line naming the enclosing class or function"), "{message}");
    assert_eq!(std::fs::read_to_string(tmp.path().join("m.py")).unwrap(), CLASSES);
}

#[test]
fn a_chunk_twice_inside_the_anchored_block_is_still_ambiguous() {
    let file = "class B:\n    def a(self):\n        return 1\n    def b(self):\n        return 1\n";
    let (_tmp, workspace) = workspace_with(&[("m.py", file)]);
    let patch =
        "*** Begin Patch\n*** Update File: m.py\n@@ class B:\n-        return 1\n+        return 2\n*** End Patch\n";
    let err = apply(&workspace, patch, &ApplyOptions::default()).unwrap_err();
    assert_eq!(err.kind(), "ambiguous", "{err}");
}

#[test]
fn braces_close_the_anchored_block() {
    let file = "function a() {\n  return 1;\n}\nfunction b() {\n  return 1;\n}\n";
    let (tmp, workspace) = workspace_with(&[("m.js", file)]);
    let patch =
        "*** Begin Patch\n*** Update File: m.js\n@@ function b() {\n-  return 1;\n+  return 2;\n }\n*** End Patch\n";
    apply(&workspace, patch, &ApplyOptions::default()).unwrap();
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("m.js")).unwrap(),
        "function a() {\n  return 1;\n}\nfunction b() {\n  return 2;\n}\n"
    );
}
