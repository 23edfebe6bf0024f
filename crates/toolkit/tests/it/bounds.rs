//! Work an agent sizes is bounded, with an error naming the limit and how to raise it.

use serde_json::json;

use crate::support::Env;

fn missing_hunks(path: &str, count: usize) -> String {
    let mut patch = format!("*** Begin Patch\n*** Update File: {path}\n");
    for n in 0..count {
        patch.push_str(&format!("@@\n-this line {n} is not in the file\n+replacement {n}\n"));
    }
    patch.push_str("*** End Patch\n");
    patch
}

#[test]
fn a_dry_run_patch_of_800_missing_hunks_on_a_4_mb_file_is_refused_by_the_work_budget() {
    let env = Env::new();
    let text: String = (0..80_000).map(|n| format!("let value_{n:08} = compute({n}, \"padding text\");\n")).collect();
    assert!(text.len() >= 4_000_000, "{}", text.len());
    env.put("big.rs", text.as_bytes());
    let refused =
        env.refused("apply_patch", json!({"patch": missing_hunks("big.rs", 800), "dry_run": true}), "too_large");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("max_patch_work") && message.contains("--max-patch-work"), "{message}");
    assert!(message.contains(&editkit::patch::DEFAULT_MAX_WORK.to_string()), "{message}");
    assert_eq!(env.get("big.rs"), text);
}

#[test]
fn the_patch_work_budget_is_an_option() {
    let env = Env::with_options(editkit::ToolkitOptions { max_patch_work: 5, ..Default::default() });
    env.put("a.txt", b"one\ntwo\n");
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+1\n*** End Patch\n";
    env.refused("apply_patch", json!({"patch": patch}), "too_large");
    assert_eq!(env.get("a.txt"), "one\ntwo\n");
    let env = Env::with_options(editkit::ToolkitOptions { max_patch_work: 1_000, ..Default::default() });
    env.put("a.txt", b"one\ntwo\n");
    env.ok("apply_patch", json!({"patch": patch}));
    assert_eq!(env.get("a.txt"), "1\ntwo\n");
}
