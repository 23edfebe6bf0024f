//! The benchmark workload: 100 files of 400 lines, 10 hunks in each (1,000 hunks), written as
//! a unified diff and as a Begin Patch. Shared by the divan bench and `examples/bench_vs_git.rs`.

use std::path::Path;

/// Files in the tree.
pub(crate) const FILES: usize = 100;
/// Hunks per file.
pub(crate) const HUNKS_PER_FILE: usize = 10;
/// Lines per file.
pub(crate) const LINES: usize = 400;

/// The content of line `l` (0-based) of file `i`.
fn line(i: usize, l: usize) -> String {
    format!("    let value_{i}_{l} = compute({l}, \"file {i}\");")
}

fn changed(i: usize, l: usize) -> String {
    format!("    let value_{i}_{l} = compute({l} * 2, \"file {i}\"); // changed")
}

fn path(i: usize) -> String {
    format!("src/mod{}/file{i}.rs", i % 10)
}

/// 0-based lines changed in every file.
fn changed_lines() -> impl Iterator<Item = usize> {
    (0..HUNKS_PER_FILE).map(|h| 20 + h * 37)
}

/// Writes the tree under `root`.
pub(crate) fn write_tree(root: &Path) {
    for i in 0..FILES {
        let full = root.join(path(i));
        std::fs::create_dir_all(full.parent().expect("a file path has a parent")).expect("create folders");
        let text: String = (0..LINES).map(|l| line(i, l) + "\n").collect();
        std::fs::write(full, text).expect("write a file");
    }
}

/// The patch as a git-style unified diff with 3 lines of context.
pub(crate) fn unified_diff() -> String {
    let mut out = String::new();
    for i in 0..FILES {
        let p = path(i);
        out.push_str(&format!("diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n"));
        for l in changed_lines() {
            let start = l - 3;
            out.push_str(&format!("@@ -{},7 +{},7 @@\n", start + 1, start + 1));
            for c in start..l {
                out.push_str(&format!(" {}\n", line(i, c)));
            }
            out.push_str(&format!("-{}\n+{}\n", line(i, l), changed(i, l)));
            for c in l + 1..l + 4 {
                out.push_str(&format!(" {}\n", line(i, c)));
            }
        }
    }
    out
}

/// The same patch in the Begin Patch dialect (no line numbers).
pub(crate) fn begin_patch() -> String {
    let mut out = String::from("*** Begin Patch\n");
    for i in 0..FILES {
        out.push_str(&format!("*** Update File: {}\n", path(i)));
        for l in changed_lines() {
            out.push_str("@@\n");
            for c in l - 3..l {
                out.push_str(&format!(" {}\n", line(i, c)));
            }
            out.push_str(&format!("-{}\n+{}\n", line(i, l), changed(i, l)));
            for c in l + 1..l + 4 {
                out.push_str(&format!(" {}\n", line(i, c)));
            }
        }
    }
    out.push_str("*** End Patch\n");
    out
}
