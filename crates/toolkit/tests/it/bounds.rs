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

/// A search asking for a hundred million results gets the ceiling, `MAX_RESULTS`, and
/// `truncated`: the matches are bounded before they are collected.
#[test]
fn search_results_have_a_ceiling_whatever_max_results_says() {
    let env = Env::new();
    env.put("x.txt", "x\n".repeat(editkit::search::MAX_RESULTS + 10_000).as_bytes());
    let found = env.ok("search_files", json!({"pattern": "x", "max_results": 100_000_000u64}));
    let matches = found["results"][0]["matches"].as_array().unwrap();
    assert_eq!(matches.len(), editkit::search::MAX_RESULTS);
    assert_eq!(found["truncated"], true);
}

/// The matches a search returns, with their context lines, stay within the call's budget.
#[test]
fn search_matches_stay_within_the_call_budget() {
    let env = Env::with_options(editkit::ToolkitOptions { max_call_bytes: 64 << 10, ..Default::default() });
    env.put("x.txt", format!("x{}\n", "y".repeat(299)).repeat(2_000).as_bytes());
    let found = env.ok("search_files", json!({"pattern": "x", "max_results": 10_000, "context_lines": 100}));
    let text: usize = found["results"][0]["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let lines = m["before"].as_array().unwrap().iter().chain(m["after"].as_array().unwrap());
            m["content"].as_str().unwrap().len() + lines.map(|l| l.as_str().unwrap().len()).sum::<usize>()
        })
        .sum();
    assert!(text <= 64 << 10, "{text}");
    assert_eq!(found["truncated"], true);
}

/// `replace_all` of a one-byte text by 10 KiB on a 1,000-line file would write 10 MB: with a
/// 1 MiB read limit it is refused before the text is built, naming the limit, and nothing
/// is written (a file editkit could not read back).
#[test]
fn a_replace_all_past_the_read_limit_is_refused_before_it_is_built() {
    let env = Env::with_options(editkit::ToolkitOptions { max_read_bytes: 1 << 20, ..Default::default() });
    let text = "a\n".repeat(1_000);
    env.put("a.txt", text.as_bytes());
    let big = "b".repeat(10 << 10);
    for dry_run in [true, false] {
        let args =
            json!({"path": "a.txt", "old_string": "a", "new_string": big, "replace_all": true, "dry_run": dry_run});
        let refused = env.refused("edit_file", args, "too_large");
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.contains("max_read_bytes"), "{message}");
        assert_eq!(refused["error"]["limit_bytes"], 1 << 20);
        assert_eq!(refused["error"]["size_bytes"], text.len() + 1_000 * (big.len() - 1));
        assert_eq!(env.get("a.txt"), text);
    }
    // The editor session refuses it the same way, and its buffer is unchanged.
    let loaded = env.ok("editor_load", json!({"path": "a.txt"}));
    let id = loaded["session_id"].as_str().unwrap();
    let args = json!({"session_id": id, "old_string": "a", "new_string": big, "replace_all": true});
    let refused = env.refused("editor_edit", args, "too_large");
    assert!(refused["error"]["message"].as_str().unwrap().contains("max_read_bytes"), "{refused}");
    let read = env.ok("editor_read", json!({"session_id": id}));
    assert_eq!(read["content"].as_str().unwrap().len(), text.len());
}

/// Whole new texts larger than the read limit are refused too: nothing is written that no
/// tool could read back.
#[test]
fn writes_past_the_read_limit_are_refused() {
    let env = Env::with_options(editkit::ToolkitOptions { max_read_bytes: 1 << 10, ..Default::default() });
    let big = "x".repeat(2 << 10);
    env.refused("write_file", json!({"path": "a.txt", "content": big}), "too_large");
    assert!(!env.dir.path().join("a.txt").exists());
    env.put("b.txt", b"small\n");
    let loaded = env.ok("editor_load", json!({"path": "b.txt"}));
    let id = loaded["session_id"].as_str().unwrap();
    env.refused("editor_write", json!({"session_id": id, "text": big}), "too_large");
    env.refused("write_python_file", json!({"path": "c.py", "content": big}), "too_large");
    assert_eq!(env.get("b.txt"), "small\n");
}

/// read_files reads files while they fit the call's budget together; the rest answer
/// `too_large` unread, naming the budget.
#[test]
fn read_files_share_the_call_budget() {
    let env = Env::with_options(editkit::ToolkitOptions { max_call_bytes: 1 << 20, ..Default::default() });
    env.put("a.txt", "a".repeat(400_000).as_bytes());
    let paths = vec!["a.txt"; 4];
    let read = env.ok("read_files", json!({"paths": paths}));
    assert_eq!((read["read"].as_u64(), read["failed"].as_u64()), (Some(2), Some(2)), "{read:.300}");
    let refused = &read["files"][2]["error"];
    assert_eq!(refused["kind"], "too_large");
    assert!(refused["message"].as_str().unwrap().contains("max_call_bytes"), "{refused}");
}

/// read_files of 64 files of 16 MiB each (the largest counts and sizes) would hold 1 GiB
/// of text at once; the default budget holds at most `DEFAULT_MAX_CALL_BYTES`.
#[test]
fn read_files_default_budget_bounds_many_large_files() {
    let env = Env::new();
    let size = 9 << 20;
    env.put("big.txt", "y\n".repeat(size / 2).as_bytes());
    let read = env.ok("read_files", json!({"paths": vec!["big.txt"; 8]}));
    let read_count = read["read"].as_u64().unwrap();
    assert!(read_count * size as u64 <= editkit::DEFAULT_MAX_CALL_BYTES, "{read_count}");
    assert_eq!(read["files"][7]["error"]["kind"], "too_large");
}

/// A directory of more entries than `MAX_LIST_ENTRIES` is listed up to the bound, the first
/// names in order, with the count and `truncated`.
#[test]
fn list_dir_is_cut_at_its_bound() {
    let env = Env::new();
    let total = editkit::MAX_LIST_ENTRIES + 50;
    for n in 0..total {
        env.put(&format!("d/f{n:06}"), b"");
    }
    let listed = env.ok("list_dir", json!({"path": "d"}));
    let entries = listed["entries"].as_array().unwrap();
    assert_eq!(entries.len(), editkit::MAX_LIST_ENTRIES);
    assert_eq!((entries[0].as_str(), entries.last().unwrap().as_str()), (Some("f000000"), Some("f009999")));
    assert_eq!((listed["total_entries"].as_u64(), listed["truncated"].as_bool()), (Some(total as u64), Some(true)));
    let small = env.ok("list_dir", json!({"path": "."}));
    assert_eq!((&small["entries"], small["truncated"].as_bool()), (&json!(["d/"]), Some(false)));
}

/// A name that is not UTF-8 cannot be named by any path, so it is left out of a listing, but
/// the listing says so instead of looking complete.
#[test]
fn list_dir_counts_the_entries_it_cannot_name() {
    use std::os::unix::ffi::OsStrExt as _;
    let env = Env::new();
    env.put("d/ok.txt", b"x");
    std::fs::write(env.dir.path().join("d").join(std::ffi::OsStr::from_bytes(b"bad\xff.txt")), "x").unwrap();
    let listed = env.ok("list_dir", json!({"path": "d"}));
    assert_eq!(listed["entries"], json!(["ok.txt"]), "{listed:#}");
    assert_eq!(listed["unnamed_entries"], 1, "{listed:#}");
    let clean = env.ok("list_dir", json!({"path": "."}));
    assert_eq!(clean["unnamed_entries"], 0, "{clean:#}");
}

/// Messages quoting a call's input (a 100 KB pattern, a 5 KB path) quote a few hundred
/// bytes of it, never the whole.
#[test]
fn error_messages_quote_at_most_a_few_hundred_bytes_of_input() {
    let env = Env::new();
    let pattern = "(".repeat(100_000);
    let long_regex = format!("{}x", "(".repeat(60_000));
    let path = format!("{}x.txt", "a/".repeat(2_500));
    let name = "t".repeat(5_000);
    let results = [
        env.refused("search_files", json!({"pattern": pattern}), "invalid_args"),
        env.refused("search_files", json!({"pattern": long_regex}), "invalid_args"),
        env.call("read_file", json!({"path": path})),
        env.call("write_file", json!({"path": path, "content": "x"})),
        env.call(&name, json!({})),
    ];
    for result in results {
        assert_eq!(result["ok"], false, "{result:.300}");
        let error = result["error"].as_object().unwrap();
        let message = error["message"].as_str().unwrap();
        assert!(message.len() <= 1_000, "{} bytes: {message:.300}", message.len());
        for (key, value) in error {
            if let Some(text) = value.as_str().filter(|_| key != "message") {
                assert!(text.len() <= 300, "{key}: {} bytes", text.len());
            }
        }
    }
}

/// A file over the read limit is refused, and so is a range of it: the message does not
/// suggest reading a range, it names the limit that would let it be read.
#[test]
fn the_too_large_advice_only_suggests_what_works() {
    let env = Env::with_options(editkit::ToolkitOptions { max_read_bytes: 1 << 10, ..Default::default() });
    env.put("big.txt", "line\n".repeat(1_000).as_bytes());
    let whole = env.refused("read_file", json!({"path": "big.txt"}), "too_large");
    env.refused("read_file", json!({"path": "big.txt", "offset": 1, "limit": 2}), "too_large");
    let message = whole["error"]["message"].as_str().unwrap();
    assert!(!message.contains("range"), "{message}");
    assert!(message.contains("max_read_bytes"), "{message}");
    let env = Env::with_options(editkit::ToolkitOptions { max_read_bytes: 1 << 20, ..Default::default() });
    env.put("big.txt", "line\n".repeat(1_000).as_bytes());
    env.ok("read_file", json!({"path": "big.txt", "offset": 1, "limit": 2}));
}
