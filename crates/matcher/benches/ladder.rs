//! `find` on every rung over 1k to 1M-line files with the needle near the end, and a miss that
//! climbs the whole ladder (and computes the near-miss hint). Run with `cargo bench -p
//! editkit-matcher`; growth should be near-linear in the file size.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use editkit_matcher::{MatchOptions, Rung};

fn main() {
    divan::main();
}

const SIZES: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];

/// Five lines per function, one of them blank, each function distinct.
fn function(idx: usize) -> String {
    format!("def func_{idx}(a, b):\n    name = \"item {idx}\"\n    total = a + b * {idx}\n\n    return total - {idx}\n")
}

fn text(lines: usize) -> &'static str {
    static TEXTS: LazyLock<Mutex<HashMap<usize, &'static str>>> = LazyLock::new(Default::default);
    let mut texts = TEXTS.lock().expect("bench texts lock");
    texts.entry(lines).or_insert_with(|| {
        let text: String = (0..lines / 5).map(function).collect();
        Box::leak(text.into_boxed_str())
    })
}

/// The needle each rung needs, cut from a function near the end of the file.
fn needle(rung: Option<Rung>, lines: usize) -> String {
    let idx = lines / 5 - 3;
    match rung {
        Some(Rung::Exact) => format!("    name = \"item {idx}\"\n    total = a + b * {idx}\n"),
        Some(Rung::LineTrimmed) => format!("name = \"item {idx}\"  \ntotal = a + b * {idx}\n"),
        Some(Rung::UnicodeNormalised) => {
            format!("    name = \u{201c}item {idx}\u{201d}\n    total = a + b * {idx}\n")
        }
        Some(Rung::WhitespaceNormalised) => {
            format!("    name  =  \"item {idx}\"\n    total = a  +  b * {idx}\n")
        }
        Some(Rung::IndentationFlexible) => {
            format!("  total = a + b * {idx}\n  return total - {idx}\n")
        }
        Some(Rung::EscapeNormalised) => {
            format!("    name = \\\"item {idx}\\\"\\n    total = a + b * {idx}")
        }
        Some(Rung::BlockAnchor) => format!(
            "def func_{idx}(a, b):\n    name = \"itm {idx}\"\n    total = a + b * {idx}\n\n    return total - {idx}\n"
        ),
        _ => "def missing(x):\n    return x.nothing_like_this()\n".to_owned(),
    }
}

fn run(bencher: divan::Bencher<'_, '_>, rung: Option<Rung>, lines: usize) {
    let haystack = text(lines);
    let needle = needle(rung, lines);
    let options = MatchOptions::default();
    let result = editkit_matcher::find(haystack, &needle, &options);
    match rung {
        Some(rung) => assert_eq!(result.as_ref().map(editkit_matcher::Match::rung), Ok(rung)),
        None => assert_eq!(result.as_ref().map_err(editkit_matcher::Error::kind), Err("not_found")),
    }
    bencher.bench(|| editkit_matcher::find(divan::black_box(haystack), divan::black_box(&needle), &options));
}

macro_rules! rung_bench {
    ($name:ident, $rung:expr) => {
        #[divan::bench(args = SIZES, sample_count = 10, sample_size = 1)]
        fn $name(bencher: divan::Bencher<'_, '_>, lines: usize) {
            run(bencher, $rung, lines);
        }
    };
}

rung_bench!(exact, Some(Rung::Exact));
rung_bench!(line_trimmed, Some(Rung::LineTrimmed));
rung_bench!(unicode_normalised, Some(Rung::UnicodeNormalised));
rung_bench!(whitespace_normalised, Some(Rung::WhitespaceNormalised));
rung_bench!(indentation_flexible, Some(Rung::IndentationFlexible));
rung_bench!(escape_normalised, Some(Rung::EscapeNormalised));
rung_bench!(block_anchor, Some(Rung::BlockAnchor));
rung_bench!(miss_whole_ladder, None);
