//! A 100-file, 1,000-hunk patch: parse, plan (dry run) and apply (with fsyncs), in both the
//! unified and the Begin Patch dialects.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

#[path = "support/workload.rs"]
mod workload;

use editkit_patch::{ApplyOptions, apply};
use editkit_vfs::Workspace;

fn main() {
    // As the binary does: the descriptor table grown before divan's threads start.
    let _ = editkit_vfs::grow_descriptor_table(4096);
    divan::main();
}

fn fresh_tree() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    workload::write_tree(tmp.path());
    tmp
}

#[divan::bench(args = ["unified", "begin_patch"])]
fn parse(bencher: divan::Bencher<'_, '_>, dialect: &str) {
    let text = if dialect == "unified" { workload::unified_diff() } else { workload::begin_patch() };
    bencher.bench(|| editkit_patch::parse(divan::black_box(&text)).unwrap());
}

#[divan::bench(args = ["unified", "begin_patch"], sample_count = 20)]
fn dry_run(bencher: divan::Bencher<'_, '_>, dialect: &str) {
    let text = if dialect == "unified" { workload::unified_diff() } else { workload::begin_patch() };
    let tmp = fresh_tree();
    let workspace = Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
    let options = ApplyOptions { dry_run: true, ..Default::default() };
    bencher.bench(|| apply(&workspace, &text, &options).unwrap());
}

#[divan::bench(args = ["unified", "begin_patch"], sample_count = 10, sample_size = 1)]
fn apply_and_commit(bencher: divan::Bencher<'_, '_>, dialect: &str) {
    let text = if dialect == "unified" { workload::unified_diff() } else { workload::begin_patch() };
    bencher.with_inputs(fresh_tree).bench_values(|tmp| {
        let workspace = Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
        let applied = apply(&workspace, &text, &ApplyOptions::default()).unwrap();
        assert_eq!(applied.updated.len(), workload::FILES);
        tmp
    });
}
