//! SIGKILL at random moments: a child process applies a 50-file patch and is killed; after
//! `recover` the tree is wholly old or wholly new, every time. With `Durability::Full` (every
//! staged file, journal and directory fsynced) and with `Durability::Atomic` (no fsync: what a
//! killed process wrote is in the page cache, so a crash of the process never tears a file or
//! a patch; only a power failure can lose writes, which a test cannot stage).
//!
//! 20 trials run in every test run; set `EDITKIT_PATCH_CRASH_TRIALS=200` (or more) for the
//! long run.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use editkit_patch::{ApplyOptions, recover};
use editkit_vfs::{Durability, Workspace};

use crate::support::{snapshot, write_tree};

const CHILD_ENV: &str = "EDITKIT_PATCH_CRASH_CHILD";
const DURABILITY_ENV: &str = "EDITKIT_PATCH_CRASH_DURABILITY";
const TRIALS_ENV: &str = "EDITKIT_PATCH_CRASH_TRIALS";
const DEFAULT_TRIALS: usize = 20;

/// 40 updates (two hunks each), 5 additions, 3 deletions and 2 moves.
fn fifty_file_case() -> (BTreeMap<String, Vec<u8>>, String) {
    let mut before = BTreeMap::new();
    let mut patch = String::from("*** Begin Patch\n");
    for i in 0..40 {
        let body: String = (0..200).map(|l| format!("fn f{i}_{l}() -> u32 {{ {l} }}\n")).collect();
        before.insert(format!("src/d{}/u{i}.rs", i % 7), body.into_bytes());
        patch.push_str(&format!(
            "*** Update File: src/d{}/u{i}.rs\n@@\n fn f{i}_9() -> u32 {{ 9 }}\n-fn f{i}_10() -> u32 {{ 10 }}\n+fn f{i}_10() -> u32 {{ 1000 }}\n@@\n-fn f{i}_150() -> u32 {{ 150 }}\n+fn f{i}_150() -> u32 {{ 15000 }}\n+// added\n",
            i % 7
        ));
    }
    for i in 0..5 {
        patch.push_str(&format!("*** Add File: added/a{i}.txt\n+added {i}\n"));
    }
    for i in 0..3 {
        before.insert(format!("gone{i}.txt"), format!("gone {i}\n").into_bytes());
        patch.push_str(&format!("*** Delete File: gone{i}.txt\n"));
    }
    for i in 0..2 {
        before.insert(format!("m{i}.txt"), format!("move {i}\n").into_bytes());
        patch.push_str(&format!("*** Update File: m{i}.txt\n*** Move to: moved/m{i}.txt\n-move {i}\n+moved {i}\n"));
    }
    patch.push_str("*** End Patch\n");
    (before, patch)
}

/// Runs only as a child process of the test below: applies the patch in `$CHILD_ENV/patch`
/// to the tree `$CHILD_ENV/root`.
#[test]
fn child_applies_the_patch() {
    let Ok(dir) = std::env::var(CHILD_ENV) else { return };
    let dir = Path::new(&dir);
    let text = std::fs::read_to_string(dir.join("patch")).unwrap();
    let durability: Durability = std::env::var(DURABILITY_ENV).unwrap().parse().unwrap();
    let workspace =
        Workspace::builder(dir.join("root"), editkit_vfs::ambient_authority()).durability(durability).open().unwrap();
    // What `apply` does, with a marker between planning and committing so that the parent
    // can aim half of its kills at the commit.
    let patch = editkit_patch::parse(&text).unwrap();
    recover(&workspace).unwrap();
    let planned = editkit_patch::plan(&workspace, &patch, &ApplyOptions::default()).unwrap();
    std::fs::write(dir.join("planned"), b"").unwrap();
    editkit_patch::commit(&workspace, planned).unwrap();
}

/// A small deterministic generator (xorshift64*), seeded per run and printed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

fn spawn_child(dir: &Path, durability: Durability) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "crash::child_applies_the_patch", "--test-threads=1", "--quiet"])
        .env(CHILD_ENV, dir)
        .env(DURABILITY_ENV, durability.as_str())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

/// Waits until `path` exists (the child reached a point), at most 30 s.
fn wait_for(path: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !path.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_micros(200));
    }
}

fn prepare(dir: &Path, before: &BTreeMap<String, Vec<u8>>, patch: &str) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join("root")).unwrap();
    write_tree(&dir.join("root"), before);
    std::fs::write(dir.join("patch"), patch).unwrap();
}

#[test]
fn sigkill_at_random_moments_leaves_a_wholly_old_or_wholly_new_tree_after_recover() {
    sigkill_trials(Durability::Full);
}

#[test]
fn with_atomic_durability_a_killed_patch_is_still_wholly_old_or_wholly_new() {
    sigkill_trials(Durability::Atomic);
}

fn sigkill_trials(durability: Durability) {
    let trials: usize = std::env::var(TRIALS_ENV).ok().and_then(|n| n.parse().ok()).unwrap_or(DEFAULT_TRIALS);
    let (before, patch) = fifty_file_case();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("case");
    // The whole new tree, and how long an uninterrupted child takes.
    prepare(&dir, &before, &patch);
    let started = Instant::now();
    let mut child = spawn_child(&dir, durability);
    wait_for(&dir.join("planned"));
    let planned_at = started.elapsed();
    assert!(child.wait().unwrap().success());
    let child_time = started.elapsed();
    let commit_time = child_time.saturating_sub(planned_at);
    let new = snapshot(&dir.join("root"));
    assert_ne!(new, before);
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
    let mut rng = Rng(seed);
    let window = child_time.as_micros() as u64 * 6 / 5 + 1;
    let commit_window = commit_time.as_micros() as u64 * 6 / 5 + 1;
    let (mut old_count, mut new_count, mut mid_commit) = (0usize, 0usize, 0usize);
    for trial in 0..trials {
        prepare(&dir, &before, &patch);
        let mut child = spawn_child(&dir, durability);
        if trial % 2 == 0 {
            // Anywhere in the child's life.
            std::thread::sleep(Duration::from_micros(rng.next() % window));
        } else {
            // During the commit.
            wait_for(&dir.join("planned"));
            std::thread::sleep(Duration::from_micros(rng.next() % commit_window));
        }
        // `Child::kill` sends SIGKILL on Unix.
        let _ = child.kill();
        let _ = child.wait();
        let workspace = Workspace::open(dir.join("root"), editkit_vfs::ambient_authority()).unwrap();
        let recovery = recover(&workspace).unwrap();
        if !recovery.rolled_back.is_empty() {
            mid_commit += 1;
        }
        let now = snapshot(&dir.join("root"));
        if now == before {
            old_count += 1;
        } else if now == new {
            new_count += 1;
        } else {
            let differing: Vec<&String> = now
                .keys()
                .chain(before.keys())
                .filter(|k| now.get(*k) != before.get(*k) && now.get(*k) != new.get(*k))
                .collect();
            panic!(
                "trial {trial} (seed {seed}): mixed tree after recovery {recovery:?}; files neither old nor new: {differing:?}"
            );
        }
        // A second recovery has nothing left to do.
        assert!(recover(&workspace).unwrap().is_empty());
    }
    eprintln!(
        "crash test, {} durability: {trials} SIGKILL trials (seed {seed}, child takes {child_time:?}, its commit {commit_time:?}): {old_count} wholly old, {new_count} wholly new, {mid_commit} killed mid-commit and rolled back by recover",
        durability.as_str()
    );
    assert_eq!(old_count + new_count, trials);
}
