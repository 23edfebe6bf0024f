//! The fixture corpus: `fixtures/patches/<case>/{before/, input, after/ | error}`, and
//! `read_only` (optional): paths made read-only (0444) in the tree before, which must still be
//! 0444 wherever they stand after.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use editkit_patch::{ApplyOptions, apply};
use editkit_vfs::Workspace;

use crate::support::{show, snapshot, write_tree};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/patches")
}

/// Runs one case; `Err` describes the mismatch.
fn run_case(case: &Path) -> Result<(), String> {
    let before = snapshot(&case.join("before"));
    let input = std::fs::read_to_string(case.join("input")).map_err(|e| format!("no input: {e}"))?;
    let tmp = tempfile::tempdir().unwrap();
    write_tree(tmp.path(), &before);
    let read_only = std::fs::read_to_string(case.join("read_only")).unwrap_or_default();
    let read_only: Vec<&str> = read_only.lines().filter(|line| !line.is_empty()).collect();
    for path in &read_only {
        if before.contains_key(*path) {
            std::fs::set_permissions(tmp.path().join(path), std::fs::Permissions::from_mode(0o444)).unwrap();
        }
    }
    let workspace = Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
    let result = apply(&workspace, &input, &ApplyOptions::default());
    let now = snapshot(tmp.path());
    for path in &read_only {
        if let Ok(meta) = std::fs::metadata(tmp.path().join(path))
            && meta.permissions().mode() & 0o7777 != 0o444
        {
            return Err(format!("`{path}` is no longer read-only: mode {:04o}", meta.permissions().mode() & 0o7777));
        }
    }
    if let Ok(kind) = std::fs::read_to_string(case.join("error")) {
        let kind = kind.trim();
        match result {
            Ok(applied) => return Err(format!("expected error `{kind}`, applied:\n{}", applied.diff)),
            Err(err) if err.kind() != kind => return Err(format!("expected `{kind}`, got `{}`: {err}", err.kind())),
            Err(_) => {}
        }
        if now != before {
            return Err(format!("the tree changed after a failed patch:\n{}", show(&now)));
        }
        return Ok(());
    }
    let after = snapshot(&case.join("after"));
    match result {
        Err(err) => Err(format!("expected success, got `{}`: {err}", err.kind())),
        Ok(_) if now != after => Err(format!("expected:\n{}got:\n{}", show(&after), show(&now))),
        Ok(applied) => {
            // A dry run on the result would be redundant; check the report names real files.
            for path in applied.added.iter().chain(&applied.updated) {
                if !after.contains_key(path) {
                    return Err(format!("reported `{path}` which is not in the expected tree"));
                }
            }
            Ok(())
        }
    }
}

#[test]
fn every_case_of_the_corpus_gives_its_tree_or_error() {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    cases.sort();
    assert!(cases.len() >= 60, "the corpus holds {} cases", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            run_case(case).err().map(|why| format!("{}: {why}", case.file_name().unwrap().to_string_lossy()))
        })
        .collect();
    // Per group (a numbered case's name without its number, else the dialect's prefix): cases
    // expecting a tree, cases expecting a refusal.
    let mut groups: std::collections::BTreeMap<String, [usize; 2]> = std::collections::BTreeMap::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let group = if name.ends_with(|c: char| c.is_ascii_digit()) {
            name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '_').to_owned()
        } else {
            name[..3].to_owned()
        };
        groups.entry(group).or_default()[usize::from(case.join("error").exists())] += 1;
    }
    println!("patch corpus: {} cases ({} failed)", cases.len(), failures.len());
    for (group, [applied, refused]) in &groups {
        println!("  {group:<28} applied {applied:>3} refused {refused:>3}");
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n\n{}", failures.len(), cases.len(), failures.join("\n\n"));
}

#[test]
fn every_dialect_is_covered_by_at_least_twenty_cases() {
    for prefix in ["bp_", "hk_", "ud_"] {
        let n = std::fs::read_dir(corpus_dir())
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with(prefix))
            .count();
        assert!(n >= 20, "{prefix}: {n} cases");
    }
}

#[test]
fn dry_run_of_every_successful_case_writes_nothing_and_previews_the_same_diff() {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(corpus_dir()).unwrap().map(|e| e.unwrap().path()).collect();
    cases.retain(|case| case.join("after").is_dir());
    cases.sort();
    for case in cases {
        let before = snapshot(&case.join("before"));
        let input = std::fs::read_to_string(case.join("input")).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        write_tree(tmp.path(), &before);
        let workspace = Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
        let preview = apply(&workspace, &input, &ApplyOptions { dry_run: true, ..Default::default() }).unwrap();
        assert!(preview.dry_run);
        assert_eq!(snapshot(tmp.path()), before, "{}", case.display());
        let applied = apply(&workspace, &input, &ApplyOptions::default()).unwrap();
        assert!(!applied.dry_run);
        assert_eq!(applied.diff, preview.diff, "{}", case.display());
        assert_eq!(applied.files, preview.files, "{}", case.display());
    }
}
