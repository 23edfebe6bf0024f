//! The shared edit corpus in `fixtures/edits/`: every case is a folder, so a new case is files.
//!
//! A case holds `before`, `old`, `new`, and either `after` plus `rung` (the edit expected, and the
//! rung expected to decide) or `error` (the expected error kind word); an empty `replace_all`
//! file asks for replace_all. A wrong edit is an `Ok` whose text differs from `after`, or any
//! `Ok` where an error is expected: there must be none, and every other mismatch fails too.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use editkit_matcher::MatchOptions;

struct Case {
    name: String,
    before: String,
    old: String,
    new: String,
    expected: Expected,
    replace_all: bool,
    /// A `not_found` or `ambiguous` refusal is correct too (the model-input groups: a block the ladder may
    /// not recognise); an edit must still give `after`.
    may_refuse: bool,
}

enum Expected {
    Edit { after: String, rung: String },
    Error { kind: String },
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/edits")
}

fn read(folder: &Path, file: &str) -> Option<String> {
    fs::read_to_string(folder.join(file)).ok()
}

fn load() -> Vec<Case> {
    let mut folders: Vec<PathBuf> =
        fs::read_dir(corpus_dir()).unwrap().map(|entry| entry.unwrap().path()).filter(|path| path.is_dir()).collect();
    folders.sort();
    folders
        .iter()
        .map(|folder| {
            let name = folder.file_name().unwrap().to_string_lossy().into_owned();
            let file = |file: &str| read(folder, file).unwrap_or_else(|| panic!("{name}: missing `{file}`"));
            let expected = match read(folder, "error") {
                Some(kind) => Expected::Error { kind: kind.trim().to_owned() },
                None => Expected::Edit { after: file("after"), rung: file("rung").trim().to_owned() },
            };
            Case {
                before: file("before"),
                old: file("old"),
                new: file("new"),
                expected,
                replace_all: folder.join("replace_all").exists(),
                may_refuse: folder.join("may_refuse").exists(),
                name,
            }
        })
        .collect()
}

#[test]
fn corpus_makes_no_wrong_edit() {
    let cases = load();
    assert!(cases.len() >= 380, "only {} cases", cases.len());
    let mut wrong_edits = Vec::new();
    let mut other_failures = Vec::new();
    let mut edits_per_rung: BTreeMap<String, usize> = BTreeMap::new();
    let mut refusals_per_kind: BTreeMap<String, usize> = BTreeMap::new();
    // Per group: correct edits, correct refusals, edits merged into the file's lines.
    let mut per_group: BTreeMap<String, [usize; 3]> = BTreeMap::new();
    for case in &cases {
        let group = case.name.trim_end_matches(|c: char| c.is_ascii_digit()).trim_end_matches('-').to_owned();
        let counts = per_group.entry(group).or_default();
        let options = MatchOptions::default();
        let result = if case.replace_all {
            editkit_matcher::replace_all(&case.before, &case.old, &case.new, &options)
        } else {
            editkit_matcher::replace(&case.before, &case.old, &case.new, &options)
        };
        match (&case.expected, result) {
            (Expected::Edit { after, rung }, Ok(edited)) => {
                if edited.text() != after {
                    wrong_edits.push(format!("{}: edited differently than expected", case.name));
                } else if edited.rung().as_str() != rung {
                    other_failures.push(format!("{}: decided by {} instead of {rung}", case.name, edited.rung()));
                } else {
                    *edits_per_rung.entry(rung.clone()).or_default() += 1;
                    counts[0] += 1;
                    if edited.matches().iter().any(|m| m.alignment() == editkit_matcher::Alignment::Merged) {
                        counts[2] += 1;
                    }
                }
            }
            (Expected::Edit { .. }, Err(err)) if case.may_refuse && matches!(err.kind(), "not_found" | "ambiguous") => {
                counts[1] += 1;
            }
            (Expected::Edit { rung, .. }, Err(err)) => {
                other_failures.push(format!("{}: expected an edit on {rung}, refused: {err}", case.name));
            }
            (Expected::Error { kind }, Ok(_)) => {
                wrong_edits.push(format!("{}: expected {kind}, but edited", case.name));
            }
            (Expected::Error { kind }, Err(err)) => {
                if err.kind() == kind {
                    *refusals_per_kind.entry(kind.clone()).or_default() += 1;
                    counts[1] += 1;
                } else {
                    other_failures.push(format!("{}: expected {kind}, got {}: {err}", case.name, err.kind()));
                }
            }
        }
    }
    println!("corpus: {} cases", cases.len());
    for (rung, count) in &edits_per_rung {
        println!("  edit  {rung:<22} {count}");
    }
    for (kind, count) in &refusals_per_kind {
        println!("  error {kind:<22} {count}");
    }
    println!("  {:<28} correct refused merged", "group");
    for (group, [correct, refused, merged]) in &per_group {
        println!("  {group:<28} {correct:>7} {refused:>7} {merged:>6}");
    }
    assert!(wrong_edits.is_empty(), "{} wrong edits:\n{}", wrong_edits.len(), wrong_edits.join("\n"));
    assert!(other_failures.is_empty(), "{} failures:\n{}", other_failures.len(), other_failures.join("\n"));
    for rung in editkit_matcher::Rung::ALL {
        assert!(edits_per_rung.contains_key(rung.as_str()), "no corpus edit decided by {rung}");
    }
}
