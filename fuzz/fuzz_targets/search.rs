//! libFuzzer target for editkit-search: arbitrary patterns, globs and file bytes never panic,
//! and the output stays within its bounds.
//!
//! Not yet wired: add to fuzz/Cargo.toml
//! `editkit-search = { path = "../crates/search" }` under `[dependencies]` and a `[[bin]]` with
//! `name = "search"`, `path = "fuzz_targets/search.rs"` (like the other targets); the body can
//! move to `editkit_fuzz::search` in fuzz/src/lib.rs for replay by `cargo test`.
#![no_main]

use std::sync::OnceLock;

use editkit_search::{CUT_MARKER, Case, Search};

/// One workspace for every run: creating a temp dir per input would dominate the run time.
fn workspace() -> &'static (tempfile::TempDir, editkit_vfs::Workspace) {
    static WORKSPACE: OnceLock<(tempfile::TempDir, editkit_vfs::Workspace)> = OnceLock::new();
    WORKSPACE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let workspace = editkit_vfs::Workspace::open(dir.path()).expect("workspace");
        (dir, workspace)
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // Layout: flags byte, then pattern, glob and file content separated by 0xFF.
    let Some((&flags, rest)) = data.split_first() else { return };
    let mut parts = rest.splitn(3, |&b| b == 0xFF);
    let pattern = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let glob = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let content = parts.next().unwrap_or_default();
    let (dir, workspace) = workspace();
    std::fs::write(dir.path().join("input.txt"), content).expect("write input");
    let max_line_chars = 40;
    let mut builder = Search::builder(pattern);
    builder
        .literal(flags & 1 != 0)
        .case(if flags & 2 != 0 { Case::Smart } else { Case::Insensitive })
        .whole_word(flags & 4 != 0)
        .multi_line(flags & 8 != 0)
        .lossy(flags & 16 != 0)
        .context(usize::from(flags >> 6))
        .max_results(5)
        .max_line_chars(max_line_chars)
        .threads(1);
    if !glob.is_empty() {
        builder.glob(glob);
    }
    let Ok(search) = builder.build() else { return };
    let Ok(found) = search.run(workspace, ".") else { return };
    let lines: usize = found.results.iter().map(|r| r.matches.len()).sum();
    assert!(lines <= 5, "max_results exceeded");
    let bound = max_line_chars + 2 * CUT_MARKER.chars().count();
    for hit in found.results.iter().flat_map(|r| &r.matches) {
        for line in hit.content.split('\n').chain(hit.before.iter().map(String::as_str)).chain(hit.after.iter().map(String::as_str)) {
            assert!(line.chars().count() <= bound, "line longer than the bound");
        }
        assert!(hit.line >= 1 && hit.column >= 1);
    }
});
