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

fn readme() -> String {
    std::fs::read_to_string(repo().join("README.md")).unwrap()
}

#[test]
fn corpus_counts_are_the_corpora() {
    let edits = folders("fixtures/edits");
    let patches = folders("fixtures/patches");
    let doc = flat(&architecture());
    quotes(&doc, &format!("`edits/` (the matcher's edit corpus, {edits} cases)"));
    quotes(&doc, &format!("({edits} cases, zero wrong edits)"));
    quotes(&doc, &format!("`patches/` (the patch corpus, {patches} cases)"));
    let readme = flat(&readme());
    assert!(
        readme.contains(&format!("the {edits} cases of `fixtures/edits/`")),
        "README.md should say `the {edits} cases of `fixtures/edits/``"
    );
    // No other count of cases is quoted for them, in either document.
    for (name, text) in [("ARCHITECTURE.md", &doc), ("README.md", &readme)] {
        for (at, _) in text.match_indices(" cases of `fixtures/").chain(text.match_indices(" cases, zero wrong")) {
            let number = text[..at].rsplit(' ').next().unwrap().trim_start_matches('(').replace(',', "");
            let n: usize = number.parse().unwrap_or_else(|_| panic!("{name}: no count before `cases` at {at}"));
            assert!(n == edits || n == patches, "{name} quotes {n} cases: {}", &text[at.saturating_sub(80)..at]);
        }
    }
}

/// ARCHITECTURE.md is a map, not a narration: it stays short, and every crate folder has its
/// paragraph (the mechanism lives in module docs).
#[test]
fn the_architecture_document_is_a_map() {
    let doc = architecture();
    let lines = doc.lines().count();
    assert!(
        lines <= 350,
        "ARCHITECTURE.md has {lines} lines; it is a map of at most 350: move mechanism into module docs"
    );
    for section in ["## Bird's-eye view", "## Entry points", "## Code map", "## Threat model"] {
        assert!(doc.contains(section), "ARCHITECTURE.md has no `{section}`");
    }
    assert!(doc.contains("> **Architecture Invariant:**") && doc.contains("> **API Boundary:**"));
}

/// The README keeps its two set-up commands at the top and no leftovers of a session
/// (wall-clock times, "this machine").
#[test]
fn the_readme_starts_with_its_two_commands_and_has_no_leftovers() {
    let readme = readme();
    let top: String = readme.lines().take(15).collect::<Vec<_>>().join("\n");
    assert!(
        top.contains("-- demo") && top.contains("cargo xtask ci"),
        "README.md's first lines give the demo and test commands"
    );
    for leftover in [" UTC", "this machine", "this 2-core", "this session"] {
        assert!(!readme.contains(leftover), "README.md says `{leftover}`: a leftover of a session");
    }
}

#[test]
fn limits_are_the_constants() {
    let doc = flat(&architecture());
    let mib = |bytes: usize| bytes >> 20;
    quotes(&doc, &format!("Bounded at {} MiB", mib(editkit::patch::MAX_PATCH_BYTES)));
    quotes(&doc, &format!("with a {} ms deadline", editkit::diff::DIFF_TIMEOUT.as_millis()));
    quotes(&doc, &format!("`MAX_TREE_DEPTH` = {} levels", editkit::vfs::MAX_TREE_DEPTH));
    quotes(&doc, &format!("NUL in the first {} KiB", editkit::vfs::BINARY_SNIFF_BYTES >> 10));
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
        ("run", "editkit-run"),
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

/// A tool is declared once in the catalog: one behaviour whatever the Cargo features (the
/// `glob` tool used to be declared twice, listing with ignore rules or without them by feature;
/// it now exists only with the `search` feature, through editkit-search).
#[test]
fn every_tool_is_declared_once_whatever_the_features() {
    let catalog = std::fs::read_to_string(repo().join("crates/toolkit/src/catalog.rs")).unwrap();
    let mut declared = std::collections::BTreeMap::<&str, usize>::new();
    for line in catalog.lines() {
        let mut words = line.split_whitespace();
        let (Some(variant), Some(name), Some(open)) = (words.next(), words.next(), words.next()) else { continue };
        if variant.starts_with(char::is_uppercase) && name.starts_with('"') && open.starts_with('(') {
            *declared.entry(name.trim_matches('"')).or_default() += 1;
        }
    }
    assert_eq!(declared.len(), editkit::tools::specs().len(), "{declared:?}");
    let twice: Vec<_> = declared.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "tools declared more than once in the catalog: {twice:?}");
}

/// One binary rule: `editkit_vfs::nul_verdict` decides what a NUL byte makes of a file.
/// A source in another crate that looks for NUL bytes in content asks it, and no other crate
/// keeps a sniff length of its own, so a file is the same kind to `read_file` and
/// `search_files`.
#[test]
fn one_binary_rule_decides_what_a_nul_makes_of_a_file() {
    let mut finders = Vec::new();
    for entry in walk_sources(&repo().join("crates")) {
        let text = std::fs::read_to_string(&entry).unwrap();
        let shown = entry.strip_prefix(repo()).unwrap().display().to_string();
        if shown.starts_with("crates/vfs/") || shown.contains("/tests/") || shown.contains("/benches/") {
            continue;
        }
        if text.contains("memchr(0,") || text.contains("memchr::memchr(0") || text.contains("memchr2(0,") {
            assert!(text.contains("nul_verdict"), "{shown} looks for NUL bytes without asking codec::nul_verdict");
            finders.push(shown.clone());
        }
        assert!(!text.contains("SNIFF_BYTES: usize ="), "{shown} keeps a binary sniff length of its own");
    }
    assert!(!finders.is_empty(), "the search looks for NUL bytes and asks the codec");
}

/// Every `.rs` file under `dir`.
fn walk_sources(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(walk_sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
    found
}

/// Poison recovery has one owner per crate: a lock whose holder panicked is taken back in one
/// helper (a `sync.rs` extension trait, or a `lock` function in `lib.rs`), never inline beside
/// each lock.
#[test]
fn each_crate_takes_back_poisoned_locks_in_one_place() {
    let mut owners: std::collections::BTreeMap<String, Vec<String>> = std::collections::BTreeMap::new();
    for entry in walk_sources(&repo().join("crates")) {
        let shown = entry.strip_prefix(repo()).unwrap().display().to_string();
        if shown.contains("/tests/") || shown.contains("/benches/") {
            continue;
        }
        let text = std::fs::read_to_string(&entry).unwrap();
        let recovers = text.lines().any(|line| {
            line.contains("PoisonError::into_inner")
                || (line.contains("unwrap_or_else(|") && line.contains(".into_inner()"))
        });
        if recovers {
            let krate = shown.split('/').nth(1).unwrap().to_owned();
            owners.entry(krate).or_default().push(shown);
        }
    }
    for (krate, files) in &owners {
        assert_eq!(files.len(), 1, "crate `{krate}` takes back poisoned locks in {files:?}; give it one helper");
    }
    assert!(owners.contains_key("vfs"), "the vfs keeps state behind locks and takes them back in one place");
}
