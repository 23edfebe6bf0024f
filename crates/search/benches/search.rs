//! Searches and a listing over a small generated tree (400 files, ~3 MB), warm cache.
//! `cargo xtask bench search` also runs `examples/bench_tree.rs`, which compares a large real
//! tree side by side with ripgrep.
#![allow(missing_docs)]

use editkit_search::{Files, Search};
use editkit_vfs::Workspace;

fn main() {
    divan::main();
}

fn fixture() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().expect("temp dir");
    let line = "fn example(value: u32) -> u32 { let doubled = value * 2; doubled + compute(value) }\n";
    for d in 0..20 {
        for f in 0..20 {
            let mut text = line.repeat(90);
            if f % 5 == 0 {
                text.push_str("    // TODO: handle the error case here\n");
            }
            let path = dir.path().join(format!("dir{d:02}/file{f:02}.rs"));
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, text).expect("write fixture");
        }
    }
    let workspace = Workspace::open(dir.path(), editkit_vfs::ambient_authority()).expect("workspace");
    (dir, workspace)
}

#[divan::bench]
fn literal(bencher: divan::Bencher<'_, '_>) {
    let (_dir, workspace) = fixture();
    let search = Search::builder("TODO").literal(true).build().expect("search");
    bencher.bench(|| search.run(&workspace, ".").expect("run"));
}

#[divan::bench]
fn regex(bencher: divan::Bencher<'_, '_>) {
    let (_dir, workspace) = fixture();
    let search = Search::builder(r"TODO:\s+\w+").build().expect("search");
    bencher.bench(|| search.run(&workspace, ".").expect("run"));
}

#[divan::bench]
fn regex_with_context(bencher: divan::Bencher<'_, '_>) {
    let (_dir, workspace) = fixture();
    let search = Search::builder(r"doubled \+ \w+").context(2).max_results(1000).build().expect("search");
    bencher.bench(|| search.run(&workspace, ".").expect("run"));
}

#[divan::bench]
fn list_files(bencher: divan::Bencher<'_, '_>) {
    let (_dir, workspace) = fixture();
    let lister = Files::builder("**/*.rs").max_files(10_000).build().expect("glob");
    bencher.bench(|| lister.run(&workspace, ".").expect("files"));
}
