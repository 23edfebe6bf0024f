//! The undo history of a root is bounded in bytes as well as in versions per file: past the
//! bound the oldest versions go first, and `history` says how many went for it.

use std::path::Path;

use editkit::{Toolkit, ToolkitOptions};
use serde_json::json;

const KIB: usize = 1024;

/// Bytes of regular files under `dir`, but for versions already dropped: those are renamed
/// to a hidden `.reap-` name at once (gone for every reader) and their blocks freed by a
/// background thread, which may not have reached them yet.
fn bytes_under(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .map(|entry| {
            let entry = entry.unwrap();
            if entry.file_name().to_string_lossy().starts_with(".reap-") {
                return 0;
            }
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() { bytes_under(&path) } else { meta.len() }
        })
        .sum()
}

fn content(file: usize, round: usize, size: usize) -> String {
    let line = format!("file {file} round {round}\n");
    line.repeat(size / line.len() + 1)
}

#[test]
fn the_undo_history_stays_within_its_byte_bound_dropping_the_oldest_versions() {
    assert_eq!(editkit::DEFAULT_HISTORY_BYTES, 256 << 20, "the documented default");
    let dir = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let limit: u64 = 1 << 20;
    let options =
        ToolkitOptions { state_home: Some(state.path().to_owned()), history_bytes: limit, ..ToolkitOptions::default() };
    let toolkit = Toolkit::open(dir.path(), options).unwrap();
    // 8 files × 6 writes of 96 KiB: 20 versions per file would keep 8 × 5 × 96 KiB = 3.75 MiB.
    for round in 0..6 {
        for file in 0..8 {
            let args = json!({"path": format!("f{file}.txt"), "content": content(file, round, 96 * KIB)});
            let result = editkit::tools::call(&toolkit, "write_file", args);
            assert_eq!(result["ok"], true, "{result:#}");
        }
    }
    // A patch's kept contents count too.
    std::fs::write(dir.path().join("p.txt"), format!("head\n{}", content(99, 0, 96 * KIB))).unwrap();
    let patch = "*** Begin Patch\n*** Update File: p.txt\n@@\n-head\n+HEAD\n*** End Patch\n";
    let patched = editkit::tools::call(&toolkit, "apply_patch", json!({"patch": patch}));
    assert_eq!(patched["ok"], true, "{patched:#}");
    let kept = bytes_under(&toolkit.workspace().state_dir().join("undo"));
    assert!(kept <= limit + 4 * KIB as u64, "{kept} bytes of history kept for a bound of {limit}");
    // The newest versions stay: the last write of each file can be undone, and the patch.
    let history = editkit::tools::call(&toolkit, "history", json!({}));
    assert_eq!(history["ok"], true, "{history:#}");
    let evicted = &history["evicted"];
    assert!(evicted["versions"].as_u64().unwrap() > 0, "{history:#}");
    assert!(evicted["bytes"].as_u64().unwrap() > 0, "{history:#}");
    assert_eq!(evicted["max_bytes"], limit, "{history:#}");
    assert_eq!(editkit::tools::call(&toolkit, "undo_patch", json!({}))["ok"], true);
    let undone = editkit::tools::call(&toolkit, "undo_edit", json!({"path": "f7.txt"}));
    assert_eq!(undone["ok"], true, "{undone:#}");
    assert_eq!(std::fs::read_to_string(dir.path().join("f7.txt")).unwrap(), content(7, 4, 96 * KIB));
    // The oldest went first: the first file written has fewer versions than the last.
    let versions = |path: &str| {
        let history = editkit::tools::call(&toolkit, "history", json!({"path": path}));
        history["files"].as_array().unwrap().first().map_or(0, |file| file["versions"].as_array().unwrap().len())
    };
    assert!(versions("f1.txt") < 5, "no version of f1.txt was dropped");
}

#[test]
fn a_history_within_its_bound_reports_no_eviction() {
    let dir = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let options = ToolkitOptions { state_home: Some(state.path().to_owned()), ..ToolkitOptions::default() };
    let toolkit = Toolkit::open(dir.path(), options).unwrap();
    for round in 0..3 {
        let args = json!({"path": "a.txt", "content": content(0, round, 4 * KIB)});
        assert_eq!(editkit::tools::call(&toolkit, "write_file", args)["ok"], true);
    }
    let history = editkit::tools::call(&toolkit, "history", json!({}));
    assert!(history["evicted"].is_null(), "{history:#}");
}
