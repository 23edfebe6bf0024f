//! Fuzz the patch parsers and planner: any text parses or fails with a typed error that has a
//! line inside the text; a parsed patch plans (dry run) against a small tree without panicking.
#![no_main]

use std::sync::OnceLock;

use editkit_patch::{ApplyOptions, Error, Operation};
use editkit_vfs::Workspace;
use libfuzzer_sys::fuzz_target;

/// A small tree shared by every run; dry runs never change it.
fn workspace() -> &'static Workspace {
    static TREE: OnceLock<(tempfile::TempDir, Workspace)> = OnceLock::new();
    let (_, workspace) = TREE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temp dir");
        let files: [(&str, &[u8]); 5] = [
            ("a.txt", b"one\ntwo\nthree\n"),
            ("src/lib.rs", b"fn main() {\r\n    println!(\"hi\");\r\n}\r\n"),
            ("bom.md", b"\xEF\xBB\xBF# Title\n\ntext"),
            ("u16.txt", b"\xFF\xFEh\x00i\x00"),
            ("bin.dat", b"\x00\x01\x02"),
        ];
        for (path, bytes) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().expect("a parent")).expect("folders");
            std::fs::write(full, bytes).expect("a file");
        }
        let workspace = Workspace::open(dir.path()).expect("a workspace");
        (dir, workspace)
    });
    workspace
}

fuzz_target!(|data: &[u8]| {
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
            match editkit_patch::plan(workspace(), &patch, &options) {
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
});
