//! apply_patch and changes made outside since a file was read: each hunk is carried over to
//! the file as it is when its region (and one line each side) is unchanged, in every file of
//! the patch, or the patch is refused as `stale` with the outside change and nothing written.

use editkit::ToolkitOptions;
use serde_json::json;

use crate::support::Env;

const M: &str = "import os\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n";
const N: &str = "x = 1\ny = 2\nz = 3\n";

fn patch(m_old: &str, m_new: &str) -> String {
    format!(
        "*** Begin Patch\n*** Update File: m.py\n@@\n-{m_old}\n+{m_new}\n*** Update File: n.py\n@@\n x = 1\n-y = 2\n+y = 20\n*** \
         End Patch\n"
    )
}

fn read_both(env: &Env) {
    env.ok("read_file", json!({"path": "m.py"}));
    env.ok("read_file", json!({"path": "n.py"}));
}

#[test]
fn a_change_elsewhere_in_one_file_of_two_is_merged_per_hunk() {
    let env = Env::with_files(&[("m.py", M), ("n.py", N)]);
    read_both(&env);
    let changed = M.replace("import os\n", "import os\nimport sys\n");
    env.put("m.py", changed.as_bytes());
    let result = env.ok("apply_patch", json!({"patch": patch("    return 3", "    return 30")}));
    assert_eq!(env.get("m.py"), changed.replace("return 3", "return 30"));
    assert_eq!(env.get("n.py"), N.replace("y = 2", "y = 20"));
    let files = result["files"].as_array().unwrap();
    let m = files.iter().find(|f| f["path"] == "m.py").unwrap();
    let n = files.iter().find(|f| f["path"] == "n.py").unwrap();
    assert_eq!(m["merged_with"]["lines"], json!([[2, 2]]), "{result:#}");
    assert!(m["merged_with"]["diff"].as_str().unwrap().contains("+import sys"), "{result:#}");
    assert!(n.get("merged_with").is_none_or(serde_json::Value::is_null), "{result:#}");
    // Hunk lines are numbered as in the file as found.
    assert_eq!(m["hunks"][0]["lines"], json!([14, 14]), "{result:#}");
    // The patch vouches for what it wrote: the next edit needs no read.
    env.ok("edit_file", json!({"path": "m.py", "old_string": "return 1", "new_string": "return 10"}));
}

#[test]
fn a_change_next_to_a_hunk_refuses_the_whole_patch() {
    for (changed, what) in [
        (M.replace("    return 3", "    return 33"), "the line itself"),
        (M.replace("def c():", "def c(x):"), "the line before"),
        (format!("{M}# end\n"), "the line after"),
    ] {
        let env = Env::with_files(&[("m.py", M), ("n.py", N)]);
        read_both(&env);
        env.put("m.py", changed.as_bytes());
        let refused = env.refused("apply_patch", json!({"patch": patch("    return 3", "    return 30")}), "stale");
        assert_eq!(env.get("m.py"), changed, "{what}: nothing written");
        assert_eq!(env.get("n.py"), N, "{what}: nothing written in the other file either");
        let failure = &refused["error"]["failures"][0];
        assert_eq!(failure["path"], "m.py", "{what}: {refused:#}");
        assert!(failure["outside_diff"].as_str().unwrap().contains("@@"), "{what}: {refused:#}");
        assert_eq!(failure["edit_lines"], json!([13, 13]), "{what}: {refused:#}");
    }
}

#[test]
fn strict_keeps_the_old_refusal() {
    let env = Env::with_files(&[("m.py", M), ("n.py", N)]);
    read_both(&env);
    let changed = M.replace("import os", "import re");
    env.put("m.py", changed.as_bytes());
    let refused = env.refused(
        "apply_patch",
        json!({"patch": patch("    return 3", "    return 30"), "stale": "strict"}),
        "stale",
    );
    assert!(refused["error"]["failures"][0].get("outside_diff").is_none(), "{refused:#}");
    assert_eq!(env.get("m.py"), changed);
    assert_eq!(env.get("n.py"), N);
}

#[test]
fn an_evicted_base_falls_back_to_stale() {
    let env = Env::with_options(ToolkitOptions { kept_read_bytes: 64, ..Default::default() });
    env.put("m.py", M.as_bytes());
    env.put("n.py", N.as_bytes());
    env.put("other.py", "x = 1\n".repeat(20).as_bytes());
    read_both(&env);
    env.ok("read_file", json!({"path": "other.py"}));
    let changed = M.replace("import os", "import re");
    env.put("m.py", changed.as_bytes());
    let refused = env.refused("apply_patch", json!({"patch": patch("    return 3", "    return 30")}), "stale");
    assert!(refused["error"]["failures"][0].get("outside_diff").is_none(), "no base, no diff: {refused:#}");
    assert_eq!(env.get("m.py"), changed);
    assert_eq!(env.get("n.py"), N);
}

#[test]
fn a_dry_run_shows_the_merge_and_writes_nothing() {
    let env = Env::with_files(&[("m.py", M), ("n.py", N)]);
    read_both(&env);
    let changed = M.replace("import os\n", "import os\nimport sys\n");
    env.put("m.py", changed.as_bytes());
    let result = env.ok("apply_patch", json!({"patch": patch("    return 1", "    return 10"), "dry_run": true}));
    assert_eq!(env.get("m.py"), changed);
    assert!(result["diff"].as_str().unwrap().contains("+    return 10"), "{result:#}");
    assert_eq!(result["files"][0]["merged_with"]["lines"], json!([[2, 2]]), "{result:#}");
}

/// A moved file is merged as one updated in place: its hunks are planned on the version read
/// under its old name and carried over to the file as it is; a move without hunks takes the
/// file as it is. An outside change next to a hunk still refuses the whole patch.
#[test]
fn a_moved_file_is_merged_with_the_version_read_under_its_old_name() {
    let env = Env::with_files(&[("m.py", M), ("n.py", N)]);
    read_both(&env);
    let changed = M.replace("import os\n", "import os\nimport sys\n");
    env.put("m.py", changed.as_bytes());
    env.put("n.py", b"x = 1\ny = 2\nz = 3\nw = 4\n");
    let patch = "*** Begin Patch\n*** Update File: m.py\n*** Move to: k.py\n@@\n-    return 3\n+    return 30\n*** Update \
                 File: n.py\n*** Move to: o.py\n*** End Patch\n";
    let result = env.ok("apply_patch", json!({"patch": patch}));
    assert_eq!(env.get("k.py"), changed.replace("return 3", "return 30"));
    assert_eq!(env.get("o.py"), "x = 1\ny = 2\nz = 3\nw = 4\n");
    assert!(!env.dir.path().join("m.py").exists() && !env.dir.path().join("n.py").exists());
    let files = result["files"].as_array().unwrap();
    let k = files.iter().find(|f| f["path"] == "k.py").unwrap();
    assert_eq!((&k["action"], &k["from"]), (&json!("move"), &json!("m.py")), "{result:#}");
    assert_eq!(k["merged_with"]["lines"], json!([[2, 2]]), "{result:#}");
    assert_eq!(k["hunks"][0]["lines"], json!([14, 14]), "{result:#}");
    let o = files.iter().find(|f| f["path"] == "o.py").unwrap();
    assert_eq!(o["merged_with"]["lines"], json!([[4, 4]]), "{result:#}");

    let env = Env::with_files(&[("m.py", M)]);
    env.ok("read_file", json!({"path": "m.py"}));
    let changed = M.replace("def c():", "def c(x):");
    env.put("m.py", changed.as_bytes());
    let patch =
        "*** Begin Patch\n*** Update File: m.py\n*** Move to: k.py\n@@\n-    return 3\n+    return 30\n*** End Patch\n";
    let refused = env.refused("apply_patch", json!({"patch": patch}), "stale");
    assert_eq!(refused["error"]["failures"][0]["edit_lines"], json!([13, 13]), "{refused:#}");
    assert_eq!(env.get("m.py"), changed);
    assert!(!env.dir.path().join("k.py").exists());
}

/// A file several updates of the patch name is merged as one change: each operation's hunks
/// are placed on the one before's result from the version read, and every line a hunk's
/// window covered, with one line each side, must stand unchanged in the file as it is. A file
/// named by an update and a move is refused, saying why.
#[test]
fn a_file_named_by_several_updates_is_merged_as_one_change() {
    let changed = M.replace("import os\n", "import os\nimport sys\n");
    let env = Env::with_files(&[("m.py", M)]);
    env.ok("read_file", json!({"path": "m.py"}));
    env.put("m.py", changed.as_bytes());
    // The second update edits the first one's result.
    let patch = "*** Begin Patch\n*** Update File: m.py\n@@\n-    return 3\n+    return 30\n*** Update File: m.py\n@@\n-    \
                 return 1\n+    return 10\n*** Update File: m.py\n@@\n-    return 30\n+    return 300\n*** End Patch\n";
    let result = env.ok("apply_patch", json!({"patch": patch}));
    assert_eq!(env.get("m.py"), changed.replace("return 1", "return 10").replace("return 3", "return 300"));
    let files = result["files"].as_array().unwrap();
    assert_eq!(files.len(), 3, "{result:#}");
    assert_eq!(files[0]["merged_with"]["lines"], json!([[2, 2]]), "{result:#}");
    assert!(result["diff"].as_str().unwrap().contains("+    return 300"), "{result:#}");

    // Next to the second update's hunk: stale, nothing written.
    let env = Env::with_files(&[("m.py", M)]);
    env.ok("read_file", json!({"path": "m.py"}));
    let near = M.replace("def a():", "def a(x):");
    env.put("m.py", near.as_bytes());
    let patch = "*** Begin Patch\n*** Update File: m.py\n@@\n-    return 3\n+    return 30\n*** Update File: m.py\n@@\n-    \
                 return 1\n+    return 10\n*** End Patch\n";
    let refused = env.refused("apply_patch", json!({"patch": patch}), "stale");
    assert_eq!(refused["error"]["failures"][0]["edit_lines"], json!([5, 5]), "{refused:#}");
    assert_eq!(env.get("m.py"), near);

    // Named by an update and a move: refused, saying why.
    let env = Env::with_files(&[("m.py", M)]);
    env.ok("read_file", json!({"path": "m.py"}));
    env.put("m.py", changed.as_bytes());
    let patch = "*** Begin Patch\n*** Update File: m.py\n@@\n-    return 3\n+    return 30\n*** Update File: m.py\n*** Move \
                 to: k.py\n*** End Patch\n";
    let refused = env.refused("apply_patch", json!({"patch": patch}), "stale");
    let failure = &refused["error"]["failures"][0];
    assert_eq!(failure["reason"], "named_twice", "{refused:#}");
    assert!(failure["message"].as_str().unwrap().contains("2 operations"), "{refused:#}");
    assert!(failure["outside_diff"].as_str().unwrap().contains("+import sys"), "{refused:#}");
    assert_eq!(env.get("m.py"), changed);
    assert!(!env.dir.path().join("k.py").exists());
}

/// Chained updates at the file's edges, one on the other's lines, and appending: each merged
/// with a change elsewhere lands as the operations meant on the file as it is.
#[test]
fn chained_updates_at_the_edges_merge_exactly() {
    let base = "a = 1\nb = 2\n\n\nc = 3\nd = 4\n\n\ne = 5\nf = 6";
    let outside = base.replace("c = 3\n", "c = 3\nc2 = 33\n");
    let update = |hunk: &str| format!("*** Update File: m.py\n{hunk}");
    let cases = [
        // First line, then last line (no final newline).
        (
            vec![update("@@\n-a = 1\n+a = 10\n"), update("@@\n e = 5\n-f = 6\n+f = 60\n")],
            outside.replace("a = 1", "a = 10").replace("f = 6", "f = 60"),
        ),
        // The second edits the line the first wrote, and adds one after it.
        (
            vec![update("@@\n-b = 2\n+b = 20\n"), update("@@\n-b = 20\n+b = 200\n+b2 = 2\n")],
            outside.replace("b = 2\n", "b = 200\nb2 = 2\n"),
        ),
        // Appending after the last line, twice.
        (vec![update("@@\n f = 6\n+g = 7\n"), update("@@\n g = 7\n+h = 8\n")], format!("{outside}\ng = 7\nh = 8")),
    ];
    for (operations, expected) in cases {
        let env = Env::with_files(&[("m.py", base)]);
        env.ok("read_file", json!({"path": "m.py"}));
        env.put("m.py", outside.as_bytes());
        let patch = format!("*** Begin Patch\n{}*** End Patch\n", operations.concat());
        let result = env.ok("apply_patch", json!({"patch": patch}));
        assert_eq!(env.get("m.py"), expected, "{patch}\n{result:#}");
        // The same chain with no outside change makes the same edit.
        let env = Env::with_files(&[("m.py", base)]);
        env.ok("apply_patch", json!({"patch": patch}));
        assert_eq!(env.get("m.py"), expected.replace("c2 = 33\n", ""), "{patch}");
    }
}

/// What a patch wrote (the plan's own text, kept without decoding it again) is the base the
/// next edit and the next patch are merged against when the file changes outside after it,
/// CRLF line endings included.
#[test]
fn what_a_patch_wrote_is_the_base_of_the_next_merge() {
    let crlf = N.replace('\n', "\r\n");
    let env = Env::with_files(&[("m.py", M), ("n.py", &crlf)]);
    env.ok("apply_patch", json!({"patch": patch("    return 3", "    return 30")}));
    let written = env.get("n.py");
    assert_eq!(written, crlf.replace("y = 2", "y = 20"));
    env.put("n.py", format!("{written}w = 4\r\n").as_bytes());
    let edited = env.ok("edit_file", json!({"path": "n.py", "old_string": "x = 1", "new_string": "x = 10"}));
    assert_eq!(env.get("n.py"), "x = 10\r\ny = 20\r\nz = 3\r\nw = 4\r\n");
    assert_eq!(edited["merged_with"]["lines"], json!([[4, 4]]), "{edited:#}");

    let m_written = env.get("m.py");
    env.put("m.py", m_written.replace("import os\n", "import os\nimport sys\n").as_bytes());
    let patched = env.ok("apply_patch", json!({"patch": "*** Begin Patch\n*** Update File: m.py\n@@\n-    return 30\n+    return 300\n*** End Patch\n"}));
    assert_eq!(
        env.get("m.py"),
        m_written.replace("import os\n", "import os\nimport sys\n").replace("return 30", "return 300")
    );
    assert_eq!(patched["files"][0]["merged_with"]["lines"], json!([[2, 2]]), "{patched:#}");

    // A text whose bytes read back as something else (a leading U+FEFF reads as a BOM) is kept
    // as a read of the file gives it: the outside change is the line added, nothing more, and
    // an edit of the first line merges.
    let add = "*** Begin Patch\n*** Add File: b.py\n+\u{feff}x = 1\n+y = 2\n+w = 0\n*** End Patch\n";
    env.ok("apply_patch", json!({"patch": add}));
    let b = env.get("b.py");
    env.put("b.py", format!("{b}z = 3\n").as_bytes());
    let edited = env.ok("edit_file", json!({"path": "b.py", "old_string": "x = 1", "new_string": "x = 10"}));
    assert_eq!(env.get("b.py"), format!("{}z = 3\n", b.replace("x = 1", "x = 10")));
    assert_eq!(edited["merged_with"]["lines"], json!([[4, 4]]), "{edited:#}");
}
