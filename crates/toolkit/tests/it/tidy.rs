//! ARCHITECTURE.md quotes numbers and names of the code; these checks keep them true, so the
//! document cannot drift from what it describes.

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn architecture() -> String {
    std::fs::read_to_string(repo().join("ARCHITECTURE.md")).unwrap()
}

fn folders(dir: &str) -> usize {
    std::fs::read_dir(repo().join(dir)).unwrap().filter(|e| e.as_ref().unwrap().path().is_dir()).count()
}

/// `text` with runs of whitespace (line breaks included) as single spaces.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[track_caller]
fn quotes(doc: &str, phrase: &str) {
    assert!(doc.contains(&flat(phrase)), "ARCHITECTURE.md should say `{phrase}`");
}

#[test]
fn corpus_counts_are_the_corpora() {
    let doc = flat(&architecture());
    let edits = folders("fixtures/edits");
    let patches = folders("fixtures/patches");
    quotes(&doc, &format!("runs the {edits} cases of `fixtures/edits/`"));
    quotes(&doc, &format!("({edits} cases, zero wrong edits)"));
    quotes(&doc, &format!("`fixtures/patches/` ({patches} cases"));
    // No other count of cases is quoted for them.
    for (at, _) in doc.match_indices(" cases") {
        let before = &doc[..at];
        let number = before.rsplit(' ').next().unwrap().trim_start_matches('(').replace(',', "");
        if let Ok(n) = number.parse::<usize>() {
            assert!(
                n == edits || n == patches,
                "ARCHITECTURE.md quotes {n} cases: {}",
                &doc[at.saturating_sub(80)..at]
            );
        }
    }
}

#[test]
fn limits_are_the_constants() {
    let doc = flat(&architecture());
    let mib = |bytes: usize| bytes >> 20;
    quotes(&doc, &format!("Bounded at {} MiB", mib(editkit::patch::MAX_PATCH_BYTES)));
    quotes(&doc, &format!("with a {} ms deadline", editkit::diff::DIFF_TIMEOUT.as_millis()));
    quotes(&doc, &format!("`MAX_TREE_DEPTH` = {} levels", editkit::vfs::MAX_TREE_DEPTH));
    quotes(&doc, &format!("NUL in the first {} KiB", editkit::vfs::codec::BINARY_SNIFF_BYTES >> 10));
    quotes(&doc, &format!("reporting loops after {} links", editkit::vfs::MAX_LINK_FOLLOWS));
    quotes(&doc, &format!("`max_session_bytes`, {} MiB", editkit::DEFAULT_MAX_SESSION_BYTES >> 20));
    quotes(&doc, &format!("(`DEFAULT_MAX_WORK`, {} Mi)", editkit::patch::DEFAULT_MAX_WORK >> 20));
}

#[test]
fn every_rung_crate_fuzz_target_and_task_is_named() {
    let doc = architecture();
    let matcher = &doc[doc.find("### crates/matcher").unwrap()..doc.find("### crates/patch").unwrap()];
    for rung in editkit::matcher::Rung::ALL {
        assert!(matcher.contains(rung.as_str()), "the matcher section does not name the rung {}", rung.as_str());
    }
    for entry in std::fs::read_dir(repo().join("crates")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(doc.contains(&format!("### crates/{name} ")), "ARCHITECTURE.md has no section for crates/{name}");
    }
    let targets: Vec<String> = std::fs::read_dir(repo().join("fuzz/fuzz_targets"))
        .unwrap()
        .map(|e| e.unwrap().path().file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let fuzz = &doc[doc.find("### fuzz").unwrap()..doc.find("### fixtures").unwrap()];
    let words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
    quotes(fuzz, &format!("{} targets", words[targets.len()]));
    for target in &targets {
        assert!(fuzz.contains(&format!("`{target}`")), "the fuzz section does not name the target {target}");
    }
    let xtask = std::fs::read_to_string(repo().join("xtask/src/main.rs")).unwrap();
    let section = &doc[doc.find("### xtask").unwrap()..doc.find("### fuzz").unwrap()];
    for task in xtask.split("Some(\"").skip(1).filter_map(|rest| rest.split('"').next()) {
        if task != "help" {
            assert!(section.contains(&format!("cargo xtask {task}")), "the xtask section does not name `{task}`");
        }
    }
}

/// Each library crate's section of ARCHITECTURE.md starts the reader at the entry point that
/// crate's lib.rs example uses, so the map and the first example agree.
#[test]
fn each_crate_starts_at_the_entry_point_of_its_example() {
    let doc = architecture();
    for (folder, package) in [
        ("vfs", "editkit-vfs"),
        ("matcher", "editkit-matcher"),
        ("patch", "editkit-patch"),
        ("analyze", "editkit-analyze"),
        ("search", "editkit-search"),
        ("toolkit", "editkit"),
    ] {
        let heading = format!("### crates/{folder} ({package})");
        let section = doc.split(&heading).nth(1).unwrap_or_else(|| panic!("no section `{heading}`"));
        let section = section.split("\n### ").next().unwrap_or_default();
        let start = flat(section);
        let entry = start
            .split("Start at `")
            .nth(1)
            .and_then(|rest| rest.split('`').next())
            .unwrap_or_else(|| panic!("`{heading}` names no entry point (`Start at ...`)"));
        let name = entry.split("::").next().unwrap_or(entry);
        let lib = std::fs::read_to_string(repo().join(format!("crates/{folder}/src/lib.rs"))).unwrap();
        let example: String = lib.lines().filter_map(|line| line.strip_prefix("//!")).collect::<Vec<_>>().join("\n");
        assert!(
            example.contains(name),
            "ARCHITECTURE.md starts {package} at `{entry}`, which its lib.rs example does not use"
        );
    }
}
