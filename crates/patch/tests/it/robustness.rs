//! Bad input never panics: the body of the `patch` fuzz target (`editkit_fuzz::patch` in
//! `fuzz/src/lib.rs`), run here on the corpus, on every truncation and line deletion of it, and
//! on generated patch-like text.

use std::path::Path;

use editkit_patch::{ApplyOptions, Error, Operation};
use editkit_vfs::Workspace;
use proptest::prelude::*;

fn tree() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    let files: [(&str, &[u8]); 5] = [
        ("a.txt", b"one\ntwo\nthree\n"),
        ("src/lib.rs", b"fn main() {\r\n    println!(\"hi\");\r\n}\r\n"),
        ("bom.md", b"\xEF\xBB\xBF# Title\n\ntext"),
        ("u16.txt", b"\xFF\xFEh\x00i\x00"),
        ("bin.dat", b"\x00\x01\x02"),
    ];
    for (path, bytes) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, bytes).unwrap();
    }
    let workspace = Workspace::open(dir.path()).unwrap();
    (dir, workspace)
}

/// The fuzz target's body (keep in step with `editkit_fuzz::patch` in `fuzz/src/lib.rs`, which
/// this crate cannot depend on: the fuzz crate sits above the facade).
fn check(workspace: &Workspace, data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let lines = text.split('\n').count();
    match editkit_patch::parse(&text) {
        Ok(patch) => {
            assert!(!patch.operations().is_empty());
            for operation in patch.operations() {
                assert!((1..=lines).contains(&operation.line()));
                if let Operation::Update { hunks, .. } = operation {
                    assert!(hunks.iter().all(|hunk| (1..=lines).contains(&hunk.line)));
                }
            }
            let options = ApplyOptions { dry_run: true, ..Default::default() };
            match editkit_patch::plan(workspace, &patch, &options) {
                Ok(plan) => assert!(plan.preview().dry_run),
                Err(err) => {
                    assert!(!err.kind().is_empty());
                    let _ = err.to_string();
                    if let Error::Plan { failures } = &err {
                        assert!(!failures.is_empty());
                    }
                }
            }
        }
        Err(Error::InvalidPatch { line, .. }) => assert!((1..=lines).contains(&line), "line {line} of {lines}"),
        Err(Error::EmptyHunk { line, .. }) => assert!((1..=lines).contains(&line)),
        Err(err) => assert!(matches!(err, Error::NoOperations | Error::TooLarge { .. }), "{err}"),
    }
}

#[test]
fn every_truncation_and_line_deletion_of_the_corpus_is_handled() {
    let (_dir, workspace) = tree();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/patches");
    let mut inputs = 0;
    for case in std::fs::read_dir(corpus).unwrap() {
        let Ok(input) = std::fs::read(case.unwrap().path().join("input")) else { continue };
        let text = String::from_utf8_lossy(&input).into_owned();
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        for cut in 0..=lines.len() {
            check(&workspace, lines[..cut].concat().as_bytes());
            let mut without = lines.clone();
            if cut < without.len() {
                without.remove(cut);
                check(&workspace, without.concat().as_bytes());
            }
            inputs += 2;
        }
        for cut in (0..input.len()).step_by(7) {
            check(&workspace, &input[..cut]);
            inputs += 1;
        }
    }
    assert!(inputs > 1000, "{inputs}");
}

#[test]
fn long_runs_of_empty_lines_are_linear() {
    let (_dir, workspace) = tree();
    let blank = "\n".repeat(100_000);
    let started = std::time::Instant::now();
    for text in [
        format!("*** Begin Patch\n*** Update File: a.txt\n-one\n{blank}+1\n*** End Patch\n"),
        format!("*** Begin Patch\n*** Update File: a.txt\n-one\n+1\n{blank}*** End Patch\n"),
        format!("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+1\n{blank} x\n"),
        format!("--- a/a.txt\n+++ b/a.txt\n@@\n-one\n+1\n{blank}"),
        format!("*** Update File: a.txt\n@@\none\n===\n1\n{blank}"),
    ] {
        check(&workspace, text.as_bytes());
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "{:?}", started.elapsed());
}

fn patch_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("*** Begin Patch".to_owned()),
        Just("*** End Patch".to_owned()),
        Just("*** Update File: a.txt".to_owned()),
        Just("*** Update File: src/lib.rs".to_owned()),
        Just("*** Update File: u16.txt".to_owned()),
        Just("*** Add File: n.txt".to_owned()),
        Just("*** Delete File: bin.dat".to_owned()),
        Just("*** Move to: m.txt".to_owned()),
        Just("*** End of File".to_owned()),
        Just("@@".to_owned()),
        Just("===".to_owned()),
        Just("--- a/a.txt".to_owned()),
        Just("+++ b/a.txt".to_owned()),
        Just("--- /dev/null".to_owned()),
        Just("diff --git a/a.txt b/b.txt".to_owned()),
        Just("rename from a.txt".to_owned()),
        Just("\\ No newline at end of file".to_owned()),
        Just(String::new()),
        (0usize..5, 0usize..5).prop_map(|(a, b)| format!("@@ -{a},{b} +{b},{a} @@")),
        "[ +-]?(one|two|three|    println!\\(\"hi\"\\);|\\}|é|\t)".prop_map(|s| s),
        "@@ [a-z ():]{0,12}".prop_map(|s| s),
        ".{0,20}".prop_map(|s| s),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn generated_patch_text_never_panics(lines in proptest::collection::vec(patch_line(), 0..40), crlf in any::<bool>()) {
        let (_dir, workspace) = tree();
        let text = lines.join(if crlf { "\r\n" } else { "\n" });
        check(&workspace, text.as_bytes());
    }
}

/// Found by the fuzzer (`fixtures/fuzz/patch/crash-3108650ae07eb864`): an added line ending in
/// `\r` shrinks when the codec normalises it, and the next hunk was placed past the end.
#[test]
fn a_carriage_return_in_added_lines_does_not_push_the_next_hunk_past_the_end() {
    let (dir, workspace) = tree();
    let patch = "--- a/a.txt\n+++ b/a.txt\n@@ -3,1 +3,1 @@\n-three\n+THREE\r\n@@ -3,0 +4,1 @@\n+four\n";
    let applied = editkit_patch::apply(&workspace, patch, &ApplyOptions::default()).unwrap();
    assert_eq!(applied.updated, ["a.txt"]);
    assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "one\ntwo\nTHREE\nfour\n");
    let crash =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/fuzz/patch/crash-3108650ae07eb864"))
            .unwrap();
    check(&workspace, &crash);
}
