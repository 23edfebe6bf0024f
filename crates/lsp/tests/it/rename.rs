//! A rename planned by each real server becomes checked byte edits that, applied, leave no
//! use of the old name; a file changed since the server saw it refuses the whole rename.

use editkit_lsp::lsp_types::Position;
use editkit_lsp::{EditError, Language, Pool, PoolOptions, rename_edits};
use editkit_run::Roots;

use crate::support::{READY_WAIT, START_WAIT, fixture, tools_path};

/// Renames the symbol at `line`/`character` of `file`; gives the texts after, by relative path.
fn renamed(name: &str, language: Language, file: &str, at: (u32, u32), old: &str, new: &str) -> Vec<(String, String)> {
    let (_temp, root) = fixture(name);
    let pool = Pool::new(PoolOptions { path: Some(tools_path(&[])), start_wait: START_WAIT, ..PoolOptions::default() });
    let session = pool.session(language, &root, &Roots::new(&[&root])).expect("starts");
    let path = root.join(file);
    session.sync(&path, &std::fs::read_to_string(&path).expect("read")).expect("open");
    assert!(session.server().wait_ready(READY_WAIT), "ready");
    let position = Position { line: at.0, character: at.1 };
    let edit = session.server().rename(&path, position, new, START_WAIT).expect("rename answered").expect("an edit");
    let files = rename_edits(&edit, &root, old, session.server().encoding(), |path| session.sent_text(path))
        .unwrap_or_else(|error| panic!("{error}: {edit:?}"));
    let mut out = Vec::new();
    for file in files {
        let before = std::fs::read_to_string(&file.path).expect("read");
        let relative = file.path.strip_prefix(&root).expect("inside").display().to_string();
        out.push((relative, file.apply(&before)));
    }
    // A file that changed since: its edits no longer replace the old name.
    let changed = root.join(file);
    let text = std::fs::read_to_string(&changed).expect("read").replacen(old, &"x".repeat(old.len()), 1);
    let stale = rename_edits(&edit, &root, old, session.server().encoding(), |path| {
        if path == changed {
            Ok(editkit_lsp::SentText { text: text.clone(), version: session.version(path) })
        } else {
            session.sent_text(path)
        }
    });
    assert!(matches!(stale, Err(EditError::Mismatch { .. })), "{stale:?}");
    out
}

#[track_caller]
fn every_use_renamed(after: &[(String, String)], files: usize, old: &str, new: &str) {
    assert_eq!(after.len(), files, "{after:?}");
    for (path, text) in after {
        assert!(!text.contains(old) && text.contains(new), "{path}: {text}");
    }
}

#[test]
fn python_function_renamed_in_six_files() {
    let after = renamed("py", Language::Python, "pkg/util.py", (0, 4), "compute_total", "sum_items");
    every_use_renamed(&after, 6, "compute_total", "sum_items");
}

#[test]
fn typescript_member_renamed_across_modules() {
    let after = renamed("ts", Language::TypeScript, "src/shape.ts", (1, 2), "area", "size");
    every_use_renamed(&after, 5, "area", "size");
}

#[test]
fn rust_function_renamed_across_modules() {
    let after = renamed("rs", Language::Rust, "src/util.rs", (0, 7), "compute_total", "add_up");
    every_use_renamed(&after, 3, "compute_total", "add_up");
}
