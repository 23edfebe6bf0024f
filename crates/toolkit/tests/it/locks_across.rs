//! Read-modify-write on one file is serialised across processes whatever their state folder:
//! the cross-process lock is taken on the file itself, not only in the state folder.

use editkit::{Toolkit, ToolkitOptions};
use serde_json::json;

const CHILD_ENV: &str = "EDITKIT_TEST_LOCKS_ACROSS_CHILD";

/// Attempts each process makes.
const ATTEMPTS: usize = 300;

/// Runs only as a child process of the test below: `ATTEMPTS` read-then-write increments of
/// `counter.txt`, each write guarded by the hash its read returned, with a state folder of
/// its own; writes the number of writes acknowledged to `acked-<which>`.
#[test]
fn child_increments_with_expected_hash() {
    let Ok(spec) = std::env::var(CHILD_ENV) else { return };
    let (root, which) = spec.rsplit_once('|').unwrap();
    let state = tempfile::tempdir().unwrap();
    let options = ToolkitOptions { state_home: Some(state.path().to_owned()), ..ToolkitOptions::default() };
    let toolkit = Toolkit::open(root, options).unwrap();
    let mut acked = 0;
    for _ in 0..ATTEMPTS {
        let read = editkit::tools::call(&toolkit, "read_file", json!({"path": "counter.txt"}));
        assert_eq!(read["ok"], true, "{read:#}");
        let content = read["content"].as_str().unwrap();
        let n: u64 = content.lines().next().unwrap().split('|').next_back().unwrap().trim().parse().unwrap();
        let args = json!({"path": "counter.txt", "content": format!("{}\n", n + 1), "expected_hash": read["sha256"]});
        let written = editkit::tools::call(&toolkit, "write_file", args);
        if written["ok"] == true {
            acked += 1;
        } else {
            assert_eq!(written["error"]["kind"], "stale", "{written:#}");
        }
    }
    std::fs::write(std::path::Path::new(root).join(format!("acked-{which}")), acked.to_string()).unwrap();
}

#[test]
fn two_processes_with_different_state_folders_lose_no_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("counter.txt"), "0\n").unwrap();
    crate::support::run_children("locks_across::child_increments_with_expected_hash", CHILD_ENV, 2, dir.path());
    let acked: u64 = (0..2)
        .map(|which| {
            std::fs::read_to_string(dir.path().join(format!("acked-{which}"))).unwrap().parse::<u64>().unwrap()
        })
        .sum();
    let counter: u64 = std::fs::read_to_string(dir.path().join("counter.txt")).unwrap().trim().parse().unwrap();
    assert!(acked >= ATTEMPTS as u64 / 4, "too few writes went through to test anything: {acked}");
    assert_eq!(counter, acked, "{} acknowledged writes were lost", acked - counter);
}
