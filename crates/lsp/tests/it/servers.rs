//! Each real server starts confined, loads a fixture and answers complete references once
//! ready.

use editkit_lsp::Language;

use crate::support::{fixture, ready_server, references, tools_path};

#[test]
fn python_references_cross_five_files() {
    let (_temp, root) = fixture("py");
    let server = ready_server(Language::Python, &root, &tools_path(&[]), "pkg/util.py");
    assert!(server.confinement().starts_with("landlock"), "{}", server.confinement());
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
