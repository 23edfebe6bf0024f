//! Times editkit against `git apply` on the same 100-file, 1,000-hunk patch and tree.
//!
//! ```text
//! cargo build --release -p editkit-patch --example bench_vs_git
//! target/release/examples/bench_vs_git [runs]
//! ```
//!
//! Each run copies a fresh tree, then times `git apply` of the unified diff (a process, as
//! agents' harnesses run it) and editkit's `apply` of the same diff in process (parse, plan,
//! temp files, journal, flushes, renames). `git apply` does not fsync; editkit makes the patch
//! durable (two batched flushes and the journal's fsyncs), so the ratio is also shown with
//! `Durability::Atomic` (no fsync, as `git apply`) and for a dry run (everything but the
//! writes). Each fresh tree is synced to disk before it is timed. The example uses the
//! binary's allocator (mimalloc).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../benches/support/workload.rs"]
mod workload;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use editkit_patch::{ApplyOptions, apply};
use editkit_vfs::{Durability, Workspace};

/// The allocator the `editkit` binary ships with: the library is timed as users run it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// CPU seconds (user + system) of this process and of its waited-for children, from
/// `/proc/self/stat` (clock ticks; summed over many runs, so their 10 ms grain averages out).
fn cpu() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<f64> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0.0))
        .collect();
    // After the `)`: state is field 3, utime 14, stime 15, cutime 16, cstime 17; ticks are 1/100 s.
    let tick = 0.01;
    let at = |n: usize| fields.get(n - 3).copied().unwrap_or(0.0) * tick;
    (at(14) + at(15), at(16) + at(17))
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn fresh(base: &Path, name: &str) -> std::path::PathBuf {
    let root = base.join(name);
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    workload::write_tree(&root);
    // The fresh tree goes to disk first, so no run's flush pays for writing the tree itself.
    let synced = Command::new("sync").status().unwrap();
    assert!(synced.success(), "sync failed");
    root
}

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|n| n.parse().ok()).unwrap_or(15);
    let tmp = tempfile::tempdir().unwrap();
    let diff = workload::unified_diff();
    let begin_patch = workload::begin_patch();
    let diff_path = tmp.path().join("change.diff");
    std::fs::write(&diff_path, &diff).unwrap();
    let (mut git, mut ours, mut ours_begin, mut ours_dry) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut ours_atomic = Vec::new();
    let (mut git_cpu, mut ours_cpu) = (0.0, 0.0);
    let mut reference = None;
    for run in 0..runs {
        let root = fresh(tmp.path(), "git");
        let (_, children_before) = cpu();
        let started = Instant::now();
        let status = Command::new("git").arg("apply").arg(&diff_path).current_dir(&root).status().unwrap();
        git.push(started.elapsed());
        git_cpu += cpu().1 - children_before;
        assert!(status.success(), "git apply failed");
        let git_tree = std::fs::read(root.join("src/mod3/file43.rs")).unwrap();

        let root = fresh(tmp.path(), "editkit");
        let (self_before, _) = cpu();
        let started = Instant::now();
        let workspace = Workspace::open(&root, editkit_vfs::ambient_authority()).unwrap();
        let applied = apply(&workspace, &diff, &ApplyOptions::default()).unwrap();
        ours.push(started.elapsed());
        ours_cpu += cpu().0 - self_before;
        assert_eq!(applied.updated.len(), workload::FILES);
        assert_eq!(std::fs::read(root.join("src/mod3/file43.rs")).unwrap(), git_tree, "editkit and git disagree");

        let root = fresh(tmp.path(), "editkit-begin");
        let started = Instant::now();
        let workspace = Workspace::open(&root, editkit_vfs::ambient_authority()).unwrap();
        apply(&workspace, &begin_patch, &ApplyOptions::default()).unwrap();
        ours_begin.push(started.elapsed());

        let root = fresh(tmp.path(), "editkit-atomic");
        let started = Instant::now();
        let workspace =
            Workspace::builder(&root, editkit_vfs::ambient_authority()).durability(Durability::Atomic).open().unwrap();
        apply(&workspace, &diff, &ApplyOptions::default()).unwrap();
        ours_atomic.push(started.elapsed());

        let root = fresh(tmp.path(), "editkit-dry");
        let started = Instant::now();
        let workspace = Workspace::open(&root, editkit_vfs::ambient_authority()).unwrap();
        apply(&workspace, &diff, &ApplyOptions { dry_run: true, ..Default::default() }).unwrap();
        ours_dry.push(started.elapsed());
        if run == 0 {
            reference = Some(applied.diff.len());
        }
    }
    let (git, ours, ours_begin, ours_dry) = (median(git), median(ours), median(ours_begin), median(ours_dry));
    let ours_atomic = median(ours_atomic);
    println!(
        "workload: {} files, {} hunks, {} bytes of unified diff",
        workload::FILES,
        workload::FILES * workload::HUNKS_PER_FILE,
        diff.len()
    );
    println!("median of {runs} runs:");
    println!("  git apply (unified diff)           {git:>12.2?}");
    println!(
        "  editkit apply (unified diff)       {ours:>12.2?}   ratio {:.2}x",
        ours.as_secs_f64() / git.as_secs_f64()
    );
    println!(
        "  editkit apply (begin patch)        {ours_begin:>12.2?}   ratio {:.2}x",
        ours_begin.as_secs_f64() / git.as_secs_f64()
    );
    println!(
        "  editkit apply, durability atomic   {ours_atomic:>12.2?}   ratio {:.2}x",
        ours_atomic.as_secs_f64() / git.as_secs_f64()
    );
    println!(
        "  editkit dry run (unified, no I/O)  {ours_dry:>12.2?}   ratio {:.2}x",
        ours_dry.as_secs_f64() / git.as_secs_f64()
    );
    println!(
        "  CPU per apply (mean): git apply {:.1} ms, editkit {:.1} ms   ratio {:.2}x",
        git_cpu / runs as f64 * 1e3,
        ours_cpu / runs as f64 * 1e3,
        ours_cpu / git_cpu.max(f64::EPSILON)
    );
    println!("  combined diff reported: {} bytes", reference.unwrap_or(0));
}
