//! Several edits of one file in one `edit_file` call (`edits`).

use serde_json::json;

use crate::support::Env;

const FILE: &str = "def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n";

#[test]
fn edits_land_on_the_file_as_it_was_whatever_their_order() {
    let env = Env::with_files(&[("m.py", FILE)]);
    // The second edit's old text contains what the first one writes: applied one after the
    // other it would match twice; located in the file before the call it matches once.
    let result = env.ok(
        "edit_file",
        json!({"path": "m.py", "edits": [
            {"old_string": "    return 3", "new_string": "    return 2"},
            {"old_string": "return 2", "new_string": "return 20"},
            {"old_string": "def a():", "new_string": "def a_renamed():"},
        ]}),
    );
    assert_eq!(
        env.get("m.py"),
        "def a_renamed():\n    return 1\n\n\ndef b():\n    return 20\n\n\ndef c():\n    return 2\n"
    );
    let placements = result["edits"].as_array().unwrap();
    assert_eq!(placements.len(), 3, "{result:#}");
    assert_eq!(placements[0]["line_range"], json!([10, 10]));
    assert_eq!(placements[1]["line_range"], json!([6, 6]));
    assert_eq!(placements[2]["line_range"], json!([1, 1]));
    assert_eq!(placements[0]["rung"], "exact");
    assert_eq!(placements[0]["alignment"], "aligned");
    assert_eq!(result["replacements"], 3);
}

#[test]
fn each_edit_climbs_the_ladder_and_reports_its_rung() {
    let env = Env::with_files(&[("m.py", FILE)]);
    let result = env.ok(
        "edit_file",
        json!({"path": "m.py", "edits": [
            {"old_string": "return 1", "new_string": "return 10"},
            {"old_string": "def c():\n  return 3", "new_string": "def c():\n  return 30"},
        ]}),
    );
    assert_eq!(result["edits"][0]["rung"], "exact");
    assert_ne!(result["edits"][1]["rung"], "exact", "{result:#}");
    assert_eq!(result["rung"], result["edits"][1]["rung"], "the loosest rung sums the call up");
    assert!(env.get("m.py").ends_with("def c():\n    return 30\n"), "{}", env.get("m.py"));
}

#[test]
fn overlapping_edits_are_refused_naming_both_and_nothing_changes() {
    let env = Env::with_files(&[("m.py", FILE)]);
    let refused = env.refused(
        "edit_file",
        json!({"path": "m.py", "edits": [
            {"old_string": "return 1", "new_string": "return 10"},
            {"old_string": "def b():\n    return 2", "new_string": "def b():\n    return 20"},
            {"old_string": "return 2", "new_string": "return 22"},
        ]}),
        "invalid_args",
    );
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("edits[1]") && message.contains("edits[2]"), "{message}");
    assert_eq!(refused["error"]["field"], "edits");
    assert_eq!(env.get("m.py"), FILE);
}

#[test]
fn one_edit_refused_refuses_the_call_and_names_it() {
    let env = Env::with_files(&[("m.py", FILE)]);
    for (old, kind) in [("return 42", "not_found"), ("\n\n", "ambiguous")] {
        let refused = env.refused(
            "edit_file",
            json!({"path": "m.py", "edits": [
                {"old_string": "return 1", "new_string": "return 10"},
                {"old_string": old, "new_string": "x"},
            ]}),
            kind,
        );
        assert_eq!(refused["error"]["edit_index"], 1, "{refused:#}");
        assert!(refused["error"]["message"].as_str().unwrap().contains("edits[1]"), "{refused:#}");
        assert_eq!(env.get("m.py"), FILE, "a partial application is the failure");
    }
}

#[test]
fn edits_with_old_string_is_invalid_args_naming_the_field() {
    let env = Env::with_files(&[("m.py", FILE)]);
    for extra in [json!({"old_string": "a"}), json!({"new_str": "b"}), json!({"replace_all": true})] {
        let mut args = json!({"path": "m.py", "edits": [{"old_string": "return 1", "new_string": "return 10"}]});
        args.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        let refused = env.refused("edit_file", args, "invalid_args");
        assert_eq!(refused["error"]["field"], "edits", "{refused:#}");
    }
    // Without edits, old_string and new_string are required as before.
    let refused = env.refused("edit_file", json!({"path": "m.py", "new_string": "x"}), "invalid_args");
    assert_eq!(refused["error"]["field"], "old_string");
    let refused = env.refused("edit_file", json!({"path": "m.py", "old_string": "x"}), "invalid_args");
    assert_eq!(refused["error"]["field"], "new_string");
    assert_eq!(env.get("m.py"), FILE);
}

#[test]
fn the_edit_count_is_bounded() {
    let env = Env::with_files(&[("m.py", FILE)]);
    let edits: Vec<_> =
        (0..=editkit::MAX_EDITS).map(|i| json!({"old_string": format!("x{i}"), "new_string": "y"})).collect();
    let refused = env.refused("edit_file", json!({"path": "m.py", "edits": edits}), "invalid_args");
    assert!(refused["error"]["message"].as_str().unwrap().contains("MAX_EDITS"), "{refused:#}");
    // Through the typed API too.
    let items = (0..=editkit::MAX_EDITS).map(|i| editkit::EditItem::new(format!("x{i}"), "y")).collect();
    let err = env.toolkit.edit_file(editkit::EditFileRequest::new("m.py", "", "").edits(items)).unwrap_err();
    assert_eq!(err.error_kind().as_str(), "invalid_args");
}

#[test]
fn crlf_and_bom_bytes_outside_the_regions_stay() {
    let env = Env::new();
    let before = "\u{feff}one\r\ntwo\r\nthree\r\nfour\r\n";
    env.put("w.txt", before.as_bytes());
    env.ok(
        "edit_file",
        json!({"path": "w.txt", "edits": [
            {"old_string": "four", "new_string": "FOUR"},
            {"old_string": "two", "new_string": "TWO\nTWO"},
        ]}),
    );
    assert_eq!(env.get("w.txt"), "\u{feff}one\r\nTWO\r\nTWO\r\nthree\r\nFOUR\r\n");
}

#[test]
fn replace_all_members_and_a_dry_run() {
    let env = Env::with_files(&[("m.py", FILE)]);
    let result = env.ok(
        "edit_file",
        json!({"path": "m.py", "dry_run": true, "edits": [
            {"old_string": "return", "new_string": "yield", "replace_all": true},
            {"old_string": "def a():", "new_string": "def first():"},
        ]}),
    );
    assert_eq!(result["edits"][0]["replacements"], 3);
    assert_eq!(result["replacements"], 4);
    assert!(result["diff"].as_str().unwrap().contains("+def first():"));
    assert_eq!(env.get("m.py"), FILE, "a dry run writes nothing");
}

mod properties {
    use proptest::prelude::*;
    use serde_json::json;

    use crate::support::Env;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        /// Any accepted group of edits over disjoint regions, given in any order, gives the file
        /// the edits make one by one on those regions of the original; a new text may even hold
        /// another edit's old text, which an edit-after-edit tool would then find twice.
        #[test]
        fn several_edits_equal_the_edits_one_by_one_on_the_original(
            n in 4usize..40,
            cuts in prop::collection::vec(any::<prop::sample::Index>(), 2..10),
            copies in prop::collection::vec(any::<bool>(), 5),
            order in any::<prop::sample::Index>(),
        ) {
            let lines: Vec<String> = (0..n).map(|i| format!("line {i}: value_{i}")).collect();
            let mut bounds: Vec<usize> = cuts.iter().map(|cut| cut.index(n + 1)).collect();
            bounds.sort_unstable();
            bounds.dedup();
            let regions: Vec<(usize, usize)> =
                bounds.chunks(2).filter(|pair| pair.len() == 2).map(|pair| (pair[0], pair[1])).take(5).collect();
            prop_assume!(!regions.is_empty());
            let old: Vec<String> = regions.iter().map(|&(a, b)| lines[a..b].join("\n")).collect();
            let new: Vec<String> = (0..regions.len())
                .map(|i| {
                    let other = (i + 1) % regions.len();
                    if copies[i] && other != i { old[other].clone() } else { format!("new {i}") }
                })
                .collect();
            // The expected file: each region replaced in the original, from the last one up.
            let mut expected = lines.clone();
            for (i, &(a, b)) in regions.iter().enumerate().rev() {
                expected.splice(a..b, new[i].split('\n').map(str::to_owned));
            }
            let mut edits: Vec<_> = (0..regions.len())
                .map(|i| json!({"old_string": old[i], "new_string": new[i]}))
                .collect();
            let turn = order.index(edits.len());
            edits.rotate_left(turn);
            let env = Env::new();
            env.put("f.txt", (lines.join("\n") + "\n").as_bytes());
            let result = env.call("edit_file", json!({"path": "f.txt", "edits": edits}));
            prop_assert_eq!(&result["ok"], &json!(true), "{:#}", result);
            prop_assert_eq!(env.get("f.txt"), expected.join("\n") + "\n");
        }
    }
}
