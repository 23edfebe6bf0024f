//! Patches and edits as models write them, through the JSON surface: placements reported,
//! strict placement, merged block-anchor edits.

use serde_json::json;

use crate::support::Env;

#[test]
fn apply_patch_reports_every_hunk_placement_and_takes_strict() {
    let env = Env::with_files(&[("c.py", "HOST = 'db'\nPORT  =  5432\nUSER = 'app'\n")]);
    let patch = "*** Begin Patch\n*** Update File: c.py\n@@\n HOST = 'db'\n-PORT = 5432\n+PORT = 6000\n*** End Patch\n";
    let strict = env.call("apply_patch", json!({"patch": patch, "strict": true}));
    assert_eq!(strict["error"]["kind"], "not_found", "{strict}");
    assert_eq!(env.get("c.py"), "HOST = 'db'\nPORT  =  5432\nUSER = 'app'\n");
    let applied = env.call("apply_patch", json!({"patch": patch}));
    assert_eq!(applied["ok"], true, "{applied}");
    let hunk = &applied["files"][0]["hunks"][0];
    assert_eq!(hunk["hunk"], 1);
    assert_eq!(hunk["lines"], json!([1, 2]));
    assert_eq!(hunk["rung"], "whitespace_normalised");
    assert_eq!(hunk["alignment"], "aligned");
    assert!(hunk["score"].as_f64().unwrap() < 1.0, "{hunk}");
    assert_eq!(env.get("c.py"), "HOST = 'db'\nPORT = 6000\nUSER = 'app'\n");
}

#[test]
fn edit_file_says_when_a_block_anchor_edit_was_merged() {
    let env = Env::with_files(&[("x.py", "x = [\n    1,\n    2,\n    3,\n    4,\n    5,\n]\n")]);
    let result = env.call(
        "edit_file",
        json!({
            "path": "x.py",
            "old_string": "x = [\n    1,\n    2,\n    4,\n    5,\n]\n",
            "new_string": "x = [\n    1,\n    2,\n    4,\n    5,\n    6,\n]\n",
        }),
    );
    assert_eq!(result["ok"], true, "{result}");
    assert_eq!(result["rung"], "block_anchor");
    assert_eq!(result["alignment"], "merged");
    assert_eq!(env.get("x.py"), "x = [\n    1,\n    2,\n    3,\n    4,\n    5,\n    6,\n]\n");
}

#[test]
fn apply_patch_runs_the_post_write_checks_per_file() {
    let env = Env::with_files(&[("ok.py", "A = 1\n"), ("bad.py", "def f():\n    return 1\n")]);
    let patch = "*** Begin Patch\n*** Update File: ok.py\n-A = 1\n+A = 2\n*** Update File: bad.py\n-def f():\n+def f(:\n*** End Patch\n";
    let applied = env.call("apply_patch", json!({"patch": patch}));
    assert_eq!(applied["ok"], true, "{applied}");
    let files = applied["files"].as_array().unwrap();
    assert_eq!(files[0]["path"], "ok.py");
    assert_eq!(files[0]["diagnostics"]["has_problems"], false, "{applied}");
    assert_eq!(files[1]["path"], "bad.py");
    assert_eq!(files[1]["diagnostics"]["has_problems"], true, "{applied}");
    assert_eq!(files[1]["diagnostics"]["syntax_errors"][0]["line"], 1, "{applied}");
}
