//! A patch's matching work is bounded: hunks × bytes they may search, summed over the patch.

use editkit_patch::{ApplyOptions, apply};

/// A file of about `bytes` bytes of distinct lines.
fn large_file(bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 64);
    let mut n = 0;
    while text.len() < bytes {
        text.push_str(&format!("let value_{n:08} = compute({n}, \"some text to make the line realistic\");\n"));
        n += 1;
    }
    text
}

/// A patch of `count` hunks whose old lines are nowhere in the file.
fn missing_hunks(path: &str, count: usize) -> String {
    let mut patch = format!("*** Begin Patch\n*** Update File: {path}\n");
    for n in 0..count {
        patch.push_str(&format!("@@\n-this line {n} is not in the file\n+replacement {n}\n"));
    }
    patch.push_str("*** End Patch\n");
    patch
}

#[test]
fn eight_hundred_missing_hunks_on_a_4_mb_file_are_refused_by_the_work_budget() {
    let tmp = tempfile::tempdir().unwrap();
    let text = large_file(4 << 20);
    std::fs::write(tmp.path().join("big.rs"), &text).unwrap();
    let workspace = editkit_vfs::Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
    let patch = missing_hunks("big.rs", 800);
    let options = ApplyOptions { dry_run: true, ..Default::default() };
    assert_eq!(options.max_work, editkit_patch::DEFAULT_MAX_WORK);
    let err = apply(&workspace, &patch, &options).unwrap_err();
    assert_eq!(err.kind(), "too_large", "{err}");
    let message = err.to_string();
    assert!(message.contains("max_work"), "{message}");
    assert!(message.contains(&editkit_patch::DEFAULT_MAX_WORK.to_string()), "{message}");
    assert!(message.contains("big.rs") && message.contains("800 hunks"), "{message}");
    assert!(matches!(err, editkit_patch::Error::WorkLimit { limit, .. } if limit == editkit_patch::DEFAULT_MAX_WORK));
    assert_eq!(std::fs::read_to_string(tmp.path().join("big.rs")).unwrap(), text);
}

#[test]
fn the_budget_is_summed_over_the_files_of_a_patch_and_can_be_raised() {
    let tmp = tempfile::tempdir().unwrap();
    let content: String = (0..40).map(|n| format!("ln{n:02}\n")).collect();
    for name in ["a.txt", "b.txt"] {
        std::fs::write(tmp.path().join(name), &content).unwrap();
    }
    let workspace = editkit_vfs::Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
    // Each file: 2 hunks × (200 bytes + 6 bytes of new text) = 412 units; both 824.
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-ln00\n+x0\n@@\n-ln01\n+x1\n*** Update File: b.txt\n@@\n-ln00\n+x0\n@@\n-ln01\n+x1\n*** End Patch\n";
    let tight = ApplyOptions { dry_run: true, max_work: 600, ..Default::default() };
    let err = apply(&workspace, patch, &tight).unwrap_err();
    assert_eq!(err.kind(), "too_large", "{err}");
    assert!(
        matches!(&err, editkit_patch::Error::WorkLimit { path, work: 824, bytes: 206, hunks: 2, .. } if path == "b.txt"),
        "{err:?}"
    );
    let roomy = ApplyOptions { max_work: 824, ..Default::default() };
    let applied = apply(&workspace, patch, &roomy).unwrap();
    assert_eq!(applied.updated, ["a.txt", "b.txt"]);
}

/// A patch never writes a file larger than the workspace reads (one no tool could read back):
/// an added file or an update past the read limit is refused, and nothing changes.
#[test]
fn a_patch_writing_a_file_past_the_read_limit_is_refused_whole() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("small.txt"), "one\n").unwrap();
    let workspace = editkit_vfs::Workspace::builder(tmp.path(), editkit_vfs::ambient_authority())
        .max_read_bytes(1_000)
        .open()
        .unwrap();
    let big: String = (0..100).map(|n| format!("+line {n:04} of the added file\n")).collect();
    for patch in [
        format!(
            "*** Begin Patch\n*** Add File: big.txt\n{big}*** Update File: small.txt\n@@\n-one\n+two\n*** End Patch\n"
        ),
        format!("*** Begin Patch\n*** Update File: small.txt\n@@\n one\n{big}*** End Patch\n"),
    ] {
        let err = apply(&workspace, &patch, &ApplyOptions::default()).unwrap_err();
        assert_eq!(err.kind(), "too_large", "{err}");
        assert!(err.to_string().contains("1000"), "{err}");
        assert!(!tmp.path().join("big.txt").exists());
        assert_eq!(std::fs::read_to_string(tmp.path().join("small.txt")).unwrap(), "one\n");
    }
}
