//! Changes that landed between a read and an edit: merged three-way when they leave the
//! edit's lines (and one line each side) alone, else `stale` with the outside change.

use editkit::ToolkitOptions;
use serde_json::json;

use crate::support::Env;

const FILE: &str = "import os\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n";

fn read(env: &Env) {
    env.ok("read_file", json!({"path": "m.py"}));
}

#[test]
fn a_change_elsewhere_in_the_file_is_merged_and_shown() {
    let env = Env::with_files(&[("m.py", FILE)]);
    read(&env);
    // A formatter or another agent changes the first lines.
    env.put("m.py", FILE.replace("import os\n", "import os\nimport sys\n").as_bytes());
    let result = env.ok("edit_file", json!({"path": "m.py", "old_string": "return 3", "new_string": "return 30"}));
    assert_eq!(
        env.get("m.py"),
        FILE.replace("import os\n", "import os\nimport sys\n").replace("return 3", "return 30")
    );
    let merged = &result["merged_with"];
    assert_eq!(merged["lines"], json!([[2, 2]]), "{result:#}");
    assert!(merged["diff"].as_str().unwrap().contains("+import sys"), "{result:#}");
    // Lines are numbered as in the file as found.
    assert_eq!(result["line_range"], json!([14, 14]));
    // The write vouches for the file as written: the next edit needs no read.
    let next = env.ok("edit_file", json!({"path": "m.py", "old_string": "return 1", "new_string": "return 10"}));
    assert!(next.get("merged_with").is_none(), "{next:#}");
}

#[test]
fn a_change_to_the_edited_lines_or_next_to_them_is_stale_with_the_outside_diff() {
    for (changed, what) in [
        (FILE.replace("    return 2", "    return 22"), "the line itself"),
        (FILE.replace("def b():", "def b(x):"), "the line before"),
        (FILE.replace("    return 2\n\n", "    return 2\n# note\n"), "the line after"),
    ] {
        let env = Env::with_files(&[("m.py", FILE)]);
        read(&env);
        env.put("m.py", changed.as_bytes());
        let refused = env.refused(
            "edit_file",
            json!({"path": "m.py", "old_string": "return 2", "new_string": "return 20"}),
            "stale",
        );
        assert_eq!(env.get("m.py"), changed, "{what}: nothing written");
        assert_eq!(refused["error"]["edit_lines"], json!([9, 9]), "{what}: {refused:#}");
        assert!(refused["error"]["outside_diff"].as_str().unwrap().contains("@@"), "{what}: {refused:#}");
        // The guard still vouches for the version read, not the file as found: the change
        // was never shown.
        env.refused(
            "edit_file",
            json!({"path": "m.py", "old_string": "return 3", "new_string": "return 30", "stale": "strict"}),
            "stale",
        );
    }
}

#[test]
fn strict_and_an_explicit_hash_keep_the_old_refusal() {
    let env = Env::with_files(&[("m.py", FILE)]);
    let sha = env.ok("read_file", json!({"path": "m.py"}))["sha256"].clone();
    let changed = FILE.replace("import os", "import re");
    env.put("m.py", changed.as_bytes());
    let args = |extra: serde_json::Value| {
        let mut args = json!({"path": "m.py", "old_string": "return 3", "new_string": "return 30"});
        args.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        args
    };
    let refused = env.refused("edit_file", args(json!({"stale": "strict"})), "stale");
    assert!(refused["error"].get("outside_diff").is_none());
    env.refused("edit_file", args(json!({"expected_hash": sha})), "stale");
    env.refused(
        "merge_snippet",
        json!({"path": "m.py", "snippet": "# ...\ndef c():\n    x = 0\n    return 3\n", "stale": "strict"}),
        "stale",
    );
    assert_eq!(env.get("m.py"), changed);
}

#[test]
fn several_edits_and_snippets_merge_too_all_or_nothing() {
    let env = Env::with_files(&[("m.py", FILE)]);
    read(&env);
    let changed = FILE.replace("import os\n", "import os\nimport sys\n");
    env.put("m.py", changed.as_bytes());
    // One member next to the change: the whole call is refused.
    env.refused(
        "edit_file",
        json!({"path": "m.py", "edits": [
            {"old_string": "return 3", "new_string": "return 30"},
            {"old_string": "import os", "new_string": "import os.path"},
        ]}),
        "stale",
    );
    assert_eq!(env.get("m.py"), changed);
    let result = env.ok(
        "edit_file",
        json!({"path": "m.py", "edits": [
            {"old_string": "return 3", "new_string": "return 30"},
            {"old_string": "return 1", "new_string": "return 10"},
        ]}),
    );
    assert_eq!(result["edits"][0]["line_range"], json!([14, 14]));
    // Another outside change, then a snippet: merged against what the last edit wrote.
    let now = env.get("m.py");
    env.put("m.py", format!("# header\n{now}").as_bytes());
    let merged = env
        .ok("merge_snippet", json!({"path": "m.py", "snippet": "# ...\ndef b():\n    x = 0\n    return 2\n# ...\n"}));
    assert_eq!(merged["merged_with"]["lines"], json!([[1, 1]]), "{merged:#}");
    assert_eq!(merged["chunks"][0]["line_range"], json!([10, 11]));
    assert_eq!(env.get("m.py"), format!("# header\n{}", now.replace("def b():\n", "def b():\n    x = 0\n")));
}

#[test]
fn an_evicted_base_falls_back_to_stale() {
    let env = Env::with_options(ToolkitOptions { kept_read_bytes: 64, ..Default::default() });
    env.put("m.py", FILE.as_bytes());
    env.put("other.py", "x = 1\n".repeat(20).as_bytes());
    read(&env);
    // Reading another file pushes the first one's version out of the 64-byte bound.
    env.ok("read_file", json!({"path": "other.py"}));
    env.put("m.py", FILE.replace("import os", "import re").as_bytes());
    let refused =
        env.refused("edit_file", json!({"path": "m.py", "old_string": "return 3", "new_string": "return 30"}), "stale");
    assert!(refused["error"].get("outside_diff").is_none(), "no base, no diff: {refused:#}");
}

/// insert_lines takes `stale` as edit_file does: its line numbers are the version read's, the
/// insertion is carried over to the file as it is when the lines around it are unchanged, and
/// `strict` (or a change next to it) refuses as `stale`.
#[test]
fn insert_lines_merges_at_the_line_it_read() {
    let changed = FILE.replace("import os\n", "import os\nimport sys\n");
    let env = Env::with_files(&[("m.py", FILE)]);
    read(&env);
    env.put("m.py", changed.as_bytes());
    // After line 12 (`def c():`) of the version read: line 13 of the file now.
    let result = env.ok("insert_lines", json!({"path": "m.py", "line": 12, "text": "    log()"}));
    assert_eq!(env.get("m.py"), changed.replace("def c():\n", "def c():\n    log()\n"));
    assert_eq!(result["line_range"], json!([14, 14]), "{result:#}");
    assert_eq!(result["merged_with"]["lines"], json!([[2, 2]]), "{result:#}");
    // The next insert needs no read: what it wrote is the base.
    let now = env.get("m.py");
    env.put("m.py", now.replace("    return 3\n", "    return 33\n").as_bytes());
    let result = env.ok("insert_lines", json!({"path": "m.py", "line": 0, "text": "# top"}));
    assert_eq!(result["merged_with"]["lines"], json!([[15, 15]]), "{result:#}");
    assert_eq!(env.get("m.py"), format!("# top\n{}", now.replace("    return 3\n", "    return 33\n")));

    let env = Env::with_files(&[("m.py", FILE)]);
    read(&env);
    env.put("m.py", changed.as_bytes());
    env.refused("insert_lines", json!({"path": "m.py", "line": 12, "text": "    log()", "stale": "strict"}), "stale");
    // Next to the change: stale, with the outside diff.
    let refused = env.refused("insert_lines", json!({"path": "m.py", "line": 1, "text": "import re"}), "stale");
    assert!(refused["error"]["outside_diff"].as_str().unwrap().contains("+import sys"), "{refused:#}");
    assert_eq!(env.get("m.py"), changed);
}
