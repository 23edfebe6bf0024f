//! Symbols of a 10k-line Python file and a 10k-line TypeScript file, built by concatenating
//! the real files of `fixtures/code/` (sorted by name, whole files until 10,000 lines).
//!
//! Compare with Python's own parser on the same Python input:
//! `python3 crates/analyze/benches/python_ast.py` builds the same file and times
//! `ast.parse` + `ast.walk`.

use std::path::Path;

use editkit_analyze::{FileKind, check_syntax, symbols};

fn main() {
    divan::main();
}

const TARGET_LINES: usize = 10_000;

/// Whole files from `folder` (recursively, sorted by path) until `TARGET_LINES` lines.
fn concatenated(folder: &str, extensions: &[&str]) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/code").join(folder);
    let mut files = Vec::new();
    let mut pending = vec![root];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("fixtures/code is readable") {
            let path = entry.expect("fixture entries are readable").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|extension| extensions.iter().any(|want| extension == *want)) {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut text = String::new();
    for path in files.iter().cycle() {
        if text.lines().count() >= TARGET_LINES {
            break;
        }
        text.push_str(&std::fs::read_to_string(path).expect("fixtures are UTF-8"));
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    text
}

fn python() -> String {
    concatenated("python", &["py"])
}

fn typescript() -> String {
    concatenated("typescript", &["ts"])
}

#[divan::bench]
fn symbols_python_10k(bencher: divan::Bencher<'_, '_>) {
    let source = python();
    bencher
        .counter(divan::counter::BytesCount::of_str(&source))
        .bench(|| symbols(FileKind::Python, divan::black_box(&source)).expect("the corpus parses"));
}

#[divan::bench]
fn symbols_typescript_10k(bencher: divan::Bencher<'_, '_>) {
    let source = typescript();
    bencher
        .counter(divan::counter::BytesCount::of_str(&source))
        .bench(|| symbols(FileKind::Typescript, divan::black_box(&source)).expect("the corpus parses"));
}

#[divan::bench]
fn check_syntax_python_10k(bencher: divan::Bencher<'_, '_>) {
    let source = python();
    bencher.bench(|| check_syntax(FileKind::Python, divan::black_box(&source)).expect("the corpus parses"));
}
