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

/// An edit's diff is bounded for agents (a hunk cut at `MAX_HUNK_LINES` body lines, with a
/// note) and whole with `full_diffs`, as a terminal wants it; the edit is the same either way.
#[test]
fn edit_diffs_are_bounded_for_agents_and_whole_with_full_diffs() {
    let old: String = (1..=30).map(|n| format!("line {n}\n")).collect();
    let new: String = (1..=30).map(|n| format!("LINE {n}\n")).collect();
    for (full, truncated) in [(false, true), (true, false)] {
        let env = Env::with_options(editkit::ToolkitOptions { full_diffs: full, ..Default::default() });
        env.put("a.txt", old.as_bytes());
        let result =
            env.ok("edit_file", json!({"path": "a.txt", "old_string": old, "new_string": new, "dry_run": true}));
        let diff = result["diff"].as_str().unwrap();
        assert_eq!(result["diff_truncated"].as_bool(), Some(truncated), "{diff}");
        assert_eq!(diff.contains("not shown"), truncated, "{diff}");
        let added = diff.lines().filter(|line| line.starts_with("+LINE ")).count();
        assert_eq!(added == 30, full, "{diff}");
        assert_eq!(env.get("a.txt"), old);
    }
}
