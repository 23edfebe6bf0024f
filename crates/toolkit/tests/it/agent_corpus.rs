//! The agent-shaped edit corpora: `fixtures/multi-edits/` (several edits in one `edit_file`
//! call), `fixtures/snippets/` (`merge_snippet`) and `fixtures/outside-changes/` (an edit after
//! the file changed since it was read; `patch-*` cases send the change as `apply_patch`), generated from real code by
//! `crates/toolkit/tests/gen_agent_edit_corpus.py`. Zero wrong files: every write is the
//! expected file, every expected refusal refuses with its kind and leaves the file as it was.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::support::{Env, fixtures};

/// Per group: (edits as expected, refusals as expected, refusals where an edit was expected).
type Counts = BTreeMap<String, (usize, usize, usize)>;

fn run_corpus(folder: &str, tool: &str) -> Counts {
    let root = fixtures().join(folder);
    let mut cases: Vec<_> =
        std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    cases.sort();
    assert!(cases.len() >= 40, "{folder}: only {} cases", cases.len());
    let mut counts = Counts::new();
    let mut wrong = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_str().unwrap();
        let group = name.rsplit_once('-').map_or(name, |(group, _)| group).to_owned();
        let outcome = run_case(case, tool);
        let entry = counts.entry(group).or_default();
        match outcome {
            Outcome::Edited => entry.0 += 1,
            Outcome::Refused => entry.1 += 1,
            Outcome::Missed => entry.2 += 1,
            Outcome::Wrong(why) => wrong.push(format!("{name}: {why}")),
        }
    }
    for (group, (edited, refused, missed)) in &counts {
        eprintln!("{folder} {group}: {edited} correct edits, {refused} correct refusals, {missed} refused edits");
    }
    assert!(wrong.is_empty(), "{folder}: {} wrong outcomes:\n{}", wrong.len(), wrong.join("\n"));
    counts
}

enum Outcome {
    Edited,
    Refused,
    /// A refusal where an edit was expected: no file harmed, counted.
    Missed,
    Wrong(String),
}

fn run_case(case: &Path, tool: &str) -> Outcome {
    let env = Env::new();
    let before = std::fs::read(case.join("before")).unwrap();
    let args: Value = serde_json::from_str(&std::fs::read_to_string(case.join("args.json")).unwrap()).unwrap();
    let path = args["path"].as_str().unwrap().to_owned();
    env.put(&path, &before);
    // An outside-change case: the agent read `before`, then the file changed to `outside`.
    let before = match std::fs::read(case.join("outside")) {
        Ok(outside) => {
            env.ok("read_file", serde_json::json!({"path": path}));
            env.put(&path, &outside);
            outside
        }
        Err(_) => before,
    };
    // A patch case (`fixtures/outside-changes/patch-*`): the same change, sent as apply_patch.
    // A patch that moves the file (`patch-moved-*`) leaves it at `moved_to`.
    let moved_to = args.get("moved_to").and_then(Value::as_str).map(str::to_owned);
    let (tool, args) = match args.get("patch") {
        Some(patch) => ("apply_patch", serde_json::json!({"patch": patch})),
        None => (tool, args),
    };
    let result = env.call(tool, args);
    let now = std::fs::read(env.dir.path().join(&path)).unwrap_or_default();
    match (std::fs::read(case.join("after")).ok(), std::fs::read_to_string(case.join("error")).ok()) {
        (Some(after), _) if result["ok"] == true => {
            if let Some(moved_to) = &moved_to {
                let moved = std::fs::read(env.dir.path().join(moved_to)).unwrap_or_default();
                if moved == after && !env.dir.path().join(&path).exists() {
                    Outcome::Edited
                } else {
                    Outcome::Wrong(format!("moved to a file other than `after`:\n{}", result["diff"]))
                }
            } else if now == after {
                Outcome::Edited
            } else {
                Outcome::Wrong(format!("wrote a file other than `after`:\n{}", result["diff"]))
            }
        }
        (Some(_), _) => {
            if now == before {
                Outcome::Missed
            } else {
                Outcome::Wrong(format!("refused but changed the file: {result}"))
            }
        }
        (None, Some(kind)) if result["ok"] == false => {
            if now != before {
                Outcome::Wrong(format!("refused but changed the file: {result}"))
            } else if result["error"]["kind"] != kind.trim() {
                Outcome::Wrong(format!("refused as {} instead of {}: {}", result["error"]["kind"], kind.trim(), result))
            } else {
                Outcome::Refused
            }
        }
        (None, Some(kind)) => Outcome::Wrong(format!("expected `{}` but it wrote:\n{}", kind.trim(), result["diff"])),
        (None, None) => panic!("{}: neither `after` nor `error`", case.display()),
    }
}

#[test]
fn the_multi_edit_corpus_makes_no_wrong_file() {
    let counts = run_corpus("multi-edits", "edit_file");
    let missed: usize = counts.values().map(|c| c.2).sum();
    assert_eq!(missed, 0, "every placeable group of edits lands: {counts:?}");
}

#[test]
fn the_snippet_corpus_makes_no_wrong_file() {
    let counts = run_corpus("snippets", "merge_snippet");
    let missed: usize = counts.values().map(|c| c.2).sum();
    assert_eq!(missed, 0, "every snippet that can be placed lands: {counts:?}");
}

#[test]
fn the_outside_change_corpus_makes_no_wrong_file() {
    let counts = run_corpus("outside-changes", "edit_file");
    let missed: usize = counts.values().map(|c| c.2).sum();
    assert_eq!(missed, 0, "every edit apart from the outside change is merged: {counts:?}");
}

/// `fixtures/snippets/named-twins-*`: a method whose body stands twice in the file (a copy in
/// another class), the snippet naming its class. Each lands by the syntax tree (the corpus run
/// above checks the file) and is refused when aligned by lines alone (the same file under a
/// name of no language).
#[test]
fn the_named_twin_snippets_land_only_by_the_syntax_tree() {
    let root = fixtures().join("snippets");
    let mut cases: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with("named-twins-"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 12, "only {} named-twins cases", cases.len());
    for case in &cases {
        let before = std::fs::read(case.join("before")).unwrap();
        let after = std::fs::read(case.join("after")).unwrap();
        let args: Value = serde_json::from_str(&std::fs::read_to_string(case.join("args.json")).unwrap()).unwrap();
        let path = args["path"].as_str().unwrap();
        let env = Env::new();
        env.put(path, &before);
        let result = env.ok("merge_snippet", args.clone());
        assert_eq!(std::fs::read(env.dir.path().join(path)).unwrap(), after, "{}", case.display());
        let by_syntax: Vec<&Value> =
            result["chunks"].as_array().unwrap().iter().filter(|chunk| chunk["alignment"] == "syntax").collect();
        assert!(
            by_syntax.iter().any(|chunk| chunk["definition"].as_str().is_some_and(|name| name.contains('.'))),
            "{}: no chunk aligned within a method: {result:#}",
            case.display()
        );
        let mut lines_only = args.clone();
        lines_only["path"] = "target.txt".into();
        env.put("target.txt", &before);
        let refused = env.call("merge_snippet", lines_only);
        assert_eq!(refused["ok"], false, "{}: aligned by lines, it landed: {refused:#}", case.display());
        assert_eq!(std::fs::read(env.dir.path().join("target.txt")).unwrap(), before);
    }
}
