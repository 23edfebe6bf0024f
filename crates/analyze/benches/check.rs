//! The syntax check of a change, by stage, on real Python (the files of
//! `fixtures/code/python`, concatenated to 10 KB, 1 MB and 10 MB), with one top-level
//! statement changed near the middle:
//! - `region`: the lexical scan that finds the touched statements (`change_region`);
//! - `regional`: the whole check of the change (`check_change`: the scan, then a parse of the
//!   touched statements, old and new);
//! - `whole`: a whole-file parse of the new text (`check_syntax`), what the check cost before;
//! - `warm`: the incremental check of a long-lived process (`CheckCache`, the old text
//!   checked before), for comparison;
//! - `commented`: the check of a patch that adds a comment to one line in 100 (the places a
//!   lexical proof finds to change no token, which are not parsed).
//!
//! Each is a first touch: nothing is kept between iterations, except by `warm`.

use std::path::Path;

use editkit_analyze::{CheckCache, FileKind, change_region, check_change, check_syntax};

fn main() {
    divan::main();
}

const SIZES: [usize; 3] = [10 << 10, 1 << 20, 10 << 20];

/// Real Python of at least `size` bytes, and the same with one statement changed near the
/// middle.
fn texts(size: usize) -> (String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/code/python");
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .expect("fixtures/code/python is readable")
        .map(|entry| entry.expect("fixture entries are readable").path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "py"))
        .collect();
    files.sort();
    let mut old = String::new();
    'fill: loop {
        for path in &files {
            let source = std::fs::read_to_string(path).expect("fixtures are UTF-8");
            old.extend(source.split_inclusive('\n').filter(|line| !line.starts_with("from __future__")));
            if !old.ends_with('\n') {
                old.push('\n');
            }
            if old.len() >= size {
                break 'fill;
            }
        }
    }
    let middle = old.len() / 2;
    let at = old[middle..].find("\ndef ").map_or(middle, |found| middle + found + 1);
    let new = format!("{}checked_change = 1\n{}", &old[..at], &old[at..]);
    (old, new)
}

#[divan::bench(args = SIZES)]
fn region(bencher: divan::Bencher<'_, '_>, size: usize) {
    let (old, new) = texts(size);
    bencher.bench(|| change_region(divan::black_box(&old), divan::black_box(&new)));
}

#[divan::bench(args = SIZES)]
fn regional(bencher: divan::Bencher<'_, '_>, size: usize) {
    let (old, new) = texts(size);
    bencher.bench(|| check_change(FileKind::Python, Some(divan::black_box(&old)), divan::black_box(&new)));
}

#[divan::bench(args = SIZES, sample_count = 5, sample_size = 1)]
fn whole(bencher: divan::Bencher<'_, '_>, size: usize) {
    let (_, new) = texts(size);
    // 10 MB is past the parse limits: the whole parse gives up (TooManyTokens) at once.
    bencher.bench(|| check_syntax(FileKind::Python, divan::black_box(&new)));
}

#[divan::bench(args = SIZES, sample_count = 5, sample_size = 1)]
fn warm(bencher: divan::Bencher<'_, '_>, size: usize) {
    let (old, new) = texts(size);
    bencher
        .with_inputs(|| {
            let cache = CheckCache::default();
            let _ = cache.check("bench.py", FileKind::Python, &old);
            cache
        })
        .bench_values(|cache| {
            cache.check("bench.py", FileKind::Python, divan::black_box(&new)).map(|report| report.valid)
        });
}

/// `old` with a comment added to one line in 100.
fn commented_text(old: &str) -> String {
    old.split_inclusive('\n')
        .enumerate()
        .map(|(n, line)| match line.strip_suffix('\n') {
            Some(body) if n % 100 == 50 && !body.trim().is_empty() => format!("{body}  # checked\n"),
            _ => line.to_owned(),
        })
        .collect()
}

#[divan::bench(args = SIZES)]
fn commented(bencher: divan::Bencher<'_, '_>, size: usize) {
    let (old, _) = texts(size);
    let new = commented_text(&old);
    bencher.bench(|| check_change(FileKind::Python, Some(divan::black_box(&old)), divan::black_box(&new)));
}
