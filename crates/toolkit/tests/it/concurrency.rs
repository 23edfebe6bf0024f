//! Many edit_file calls on distinct lines of one file: none lost, across threads and processes.

use std::sync::Arc;

use serde_json::json;

const CHILD_ENV: &str = "EDITKIT_TOOLKIT_EDIT_CHILD";

fn numbered(lines: usize) -> String {
    (0..lines).map(|i| format!("line {i}: pending\n")).collect()
}

fn edit_lines(toolkit: &editkit::Toolkit, lines: impl Iterator<Item = usize>, force: bool) {
    for i in lines {
        let result = editkit::tools::call(
            toolkit,
            "edit_file",
            json!({"path": "f.txt", "old_string": format!("line {i}: pending\n"), "new_string": format!("line {i}: done\n"), "force": force}),
        );
        assert_eq!(result["ok"], true, "line {i}: {result:#}");
    }
}

#[test]
fn eight_threads_times_two_hundred_edits_all_land() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), numbered(1600)).unwrap();
    let toolkit = Arc::new(editkit::Toolkit::open(dir.path(), Default::default()).unwrap());
    std::thread::scope(|scope| {
        for thread in 0..8 {
            let toolkit = Arc::clone(&toolkit);
            scope.spawn(move || edit_lines(&toolkit, (0..200).map(|k| k * 8 + thread), false));
        }
    });
    let text = std::fs::read_to_string(dir.path().join("f.txt")).unwrap();
    assert_eq!(text.matches(": done").count(), 1600);
    assert_eq!(text.matches(": pending").count(), 0);
}

/// Runs only as a child process of the test below.
#[test]
fn child_edits() {
    let Ok(spec) = std::env::var(CHILD_ENV) else { return };
    let (root, which) = spec.rsplit_once('|').unwrap();
    let which: usize = which.parse().unwrap();
    let toolkit = editkit::Toolkit::open(root, Default::default()).unwrap();
    // Each process has its own read ledger, so it forces past the other processes' writes;
    // the per-file lock still serialises every read-modify-write.
    edit_lines(&toolkit, (0..400).map(|k| k * 4 + which), true);
}

#[test]
fn four_processes_each_with_a_toolkit_lose_no_edit() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), numbered(1600)).unwrap();
    crate::support::run_children("concurrency::child_edits", CHILD_ENV, 4, dir.path());
    let text = std::fs::read_to_string(dir.path().join("f.txt")).unwrap();
    assert_eq!(text.matches(": done").count(), 1600);
}

#[test]
fn an_expected_hash_is_checked_against_the_bytes_the_edit_is_made_on() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = ("x = 1\n", "x = 1\n# another writer\n");
    std::fs::write(dir.path().join("f.txt"), a).unwrap();
    let toolkit = editkit::Toolkit::open(dir.path(), Default::default()).unwrap();
    let hash_a = editkit::vfs::Sha256::of(a.as_bytes()).to_string();
    let stop = AtomicBool::new(false);
    let results: Vec<serde_json::Value> = std::thread::scope(|scope| {
        // Another program (not editkit, so no lock) keeps swapping the content.
        scope.spawn(|| {
            while !stop.load(Ordering::Relaxed) {
                for content in [a, b] {
                    let temp = dir.path().join("f.txt.tmp");
                    std::fs::write(&temp, content).unwrap();
                    std::fs::rename(&temp, dir.path().join("f.txt")).unwrap();
                }
            }
        });
        let results = (0..3000)
            .map(|_| {
                editkit::tools::call(
                    &toolkit,
                    "edit_file",
                    json!({"path": "f.txt", "old_string": "x = 1", "new_string": "x = 2", "expected_hash": hash_a, "force": true}),
                )
            })
            .collect();
        stop.store(true, Ordering::Relaxed);
        results
    });
    let landed: Vec<&serde_json::Value> = results.iter().filter(|r| r["ok"] == true).collect();
    let wrong: Vec<&&serde_json::Value> = landed.iter().filter(|r| r["old_size"] != a.len()).collect();
    assert!(wrong.is_empty(), "{} edits were made on content without the expected hash: {:#}", wrong.len(), wrong[0]);
    eprintln!("{} of {} edits landed, all on the expected content", landed.len(), results.len());
}
