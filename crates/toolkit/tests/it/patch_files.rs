//! A patch naming more files than editkit locks at once is refused as `too_large`, naming the
//! bound, before any lock is taken or anything is written, instead of running out of file
//! descriptors half-way through its locks.

use serde_json::json;

fn patch_adding(files: usize) -> String {
    let mut patch = String::from("*** Begin Patch\n");
    for n in 0..files {
        patch.push_str(&format!("*** Add File: many/f{n}.txt\n+x\n"));
    }
    patch.push_str("*** End Patch\n");
    patch
}

#[test]
fn a_patch_of_a_hundred_thousand_files_is_too_large_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let options = editkit::ToolkitOptions { state_home: Some(state.path().to_owned()), ..Default::default() };
    let toolkit = editkit::Toolkit::open(dir.path(), options).unwrap();
    for dry_run in [false, true] {
        let result =
            editkit::tools::call(&toolkit, "apply_patch", json!({"patch": patch_adding(100_000), "dry_run": dry_run}));
        assert_eq!(result["ok"], false, "{}", result.to_string().chars().take(500).collect::<String>());
        assert_eq!(result["error"]["kind"], "too_large", "{}", &result["error"]["message"]);
        let message = result["error"]["message"].as_str().unwrap();
        assert!(message.contains(&editkit::patch::MAX_PATCH_FILES.to_string()), "the bound is not named: {message}");
    }
    assert!(!dir.path().join("many").exists(), "a refused patch created files");
    assert_eq!(std::fs::read_dir(state.path()).unwrap().count(), 0, "a refused patch left state behind");
}

#[test]
fn a_patch_at_the_bound_applies() {
    let dir = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let options = editkit::ToolkitOptions {
        state_home: Some(state.path().to_owned()),
        durability: editkit::Durability::Atomic,
        ..Default::default()
    };
    let toolkit = editkit::Toolkit::open(dir.path(), options).unwrap();
    let files = editkit::patch::MAX_PATCH_FILES;
    let result = editkit::tools::call(&toolkit, "apply_patch", json!({"patch": patch_adding(files)}));
    assert_eq!(result["ok"], true, "{}", &result["error"]);
    assert_eq!(std::fs::read_dir(dir.path().join("many")).unwrap().count(), files);
}
