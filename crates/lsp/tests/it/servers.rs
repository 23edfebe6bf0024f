//! Each real server starts confined, loads a fixture and answers complete references once
//! ready.

use editkit_lsp::{Freshness, Language, Pool, PoolOptions};
use editkit_run::Roots;

use crate::support::{READY_WAIT, START_WAIT, fixture, ready_server, references, tools_path};

#[test]
fn python_references_cross_five_files() {
    let (_temp, root) = fixture("py");
    let server = ready_server(Language::Python, &root, &tools_path(&[]), "pkg/util.py");
    // What holds is said, not a plain `landlock` (crates/run's tests check the word against
    // the kernel).
    assert!(server.confinement().starts_with("landlock (ABI "), "{}", server.confinement());
    assert!(server.confinement().contains("no writes outside the private folder"), "{}", server.confinement());
    let found = references(&server, &root, "pkg/util.py", 0, 4);
    let files: std::collections::BTreeSet<&str> = found.iter().map(|(file, _)| file.as_str()).collect();
    assert_eq!(files.len(), 6, "{found:?}");
    assert_eq!(found.len(), 10, "{found:?}");
}

#[test]
fn typescript_references_cross_modules() {
    let (_temp, root) = fixture("ts");
    let server = ready_server(Language::TypeScript, &root, &tools_path(&[]), "src/shape.ts");
    let found = references(&server, &root, "src/shape.ts", 1, 2);
    assert_eq!(found.len(), 5, "{found:?}");
}

#[test]
fn rust_references_cross_modules() {
    let (_temp, root) = fixture("rs");
    let server = ready_server(Language::Rust, &root, &tools_path(&[]), "src/util.rs");
    let found = references(&server, &root, "src/util.rs", 0, 7);
    assert_eq!(found.len(), 4, "{found:?}");
}

#[test]
fn python_diagnostics_are_fresh_for_the_text_sent() {
    let (_temp, root) = fixture("py");
    let pool = Pool::new(PoolOptions { path: Some(tools_path(&[])), start_wait: START_WAIT, ..PoolOptions::default() });
    let session = pool.session(Language::Python, &root, &Roots::new(&[&root])).expect("starts");
    let file = root.join("pkg/util.py");
    let text = std::fs::read_to_string(&file).expect("read");
    let clean = session.diagnostics(&file, &text, READY_WAIT);
    assert_eq!((clean.freshness, clean.diagnostics.len()), (Freshness::Fresh { version: 1 }, 0));
    let broken = session.diagnostics(&file, &format!("{text}x: int = 'text'\n"), READY_WAIT);
    assert_eq!(broken.freshness, Freshness::Fresh { version: 2 });
    assert!(broken.diagnostics.iter().any(|d| d.severity == "error" && d.line == 3), "{broken:?}");
}

/// typescript-language-server publishes no document versions, so tsserver is asked directly:
/// the answer after a change is for that change.
#[test]
fn typescript_diagnostics_are_fresh_for_the_text_sent() {
    let (_temp, root) = fixture("ts");
    let pool = Pool::new(PoolOptions { path: Some(tools_path(&[])), start_wait: START_WAIT, ..PoolOptions::default() });
    let session = pool.session(Language::TypeScript, &root, &Roots::new(&[&root])).expect("starts");
    let file = root.join("src/shape.ts");
    let broken = session.diagnostics(&file, "export const n: number = 'x';\n", READY_WAIT);
    assert_eq!(broken.freshness, Freshness::Fresh { version: 1 });
    assert!(broken.diagnostics.iter().any(|d| d.severity == "error" && d.line == 1 && d.column == 14), "{broken:?}");
    let fixed = session.diagnostics(&file, "export const n: number = 1;\n", READY_WAIT);
    assert_eq!((fixed.freshness, fixed.diagnostics.len()), (Freshness::Fresh { version: 2 }, 0));
}

/// A crate whose dependencies cannot be resolved (no network, a private cargo home) still
/// loads what it can, and the server says what it could not: never a silent partial answer.
#[test]
fn rust_says_when_dependencies_could_not_be_loaded() {
    let (_temp, root) = fixture("rs");
    std::fs::remove_file(root.join("rust-project.json")).expect("remove");
    let manifest =
        "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nserde = \"1\"\n";
    std::fs::write(root.join("Cargo.toml"), manifest).expect("write");
    let server = ready_server(Language::Rust, &root, &tools_path(&[]), "src/util.rs");
    let problem = server.load_problem().expect("a load problem is reported");
    eprintln!("{problem}");
    assert!(problem.contains("rust reports"), "{problem}");
}

#[test]
fn a_loaded_rust_crate_reports_no_problem() {
    let (_temp, root) = fixture("rs");
    let server = ready_server(Language::Rust, &root, &tools_path(&[]), "src/util.rs");
    assert_eq!(server.load_problem(), None);
}

#[test]
fn rust_diagnostics_are_fresh_for_the_text_sent() {
    let (_temp, root) = fixture("rs");
    let pool = Pool::new(PoolOptions { path: Some(tools_path(&[])), start_wait: START_WAIT, ..PoolOptions::default() });
    let session = pool.session(Language::Rust, &root, &Roots::new(&[&root])).expect("starts");
    let file = root.join("src/util.rs");
    let text = std::fs::read_to_string(&file).expect("read");
    let clean = session.diagnostics(&file, &text, READY_WAIT);
    assert_eq!(clean.freshness, Freshness::Fresh { version: 1 });
    let broken = session.diagnostics(&file, &format!("{text}fn broken( {{\n"), READY_WAIT);
    assert_eq!(broken.freshness, Freshness::Fresh { version: 2 });
    assert!(broken.diagnostics.iter().any(|d| d.severity == "error"), "{broken:?}");
}
