//! A rename planned by each real server becomes checked byte edits that, applied, leave no
//! use of the old name; a file changed since the server saw it refuses the whole rename.

use editkit_lsp::lsp_types::Position;
use editkit_lsp::{EditError, Language, Pool, PoolOptions, rename_edits};
use editkit_run::Roots;

use crate::support::{READY_WAIT, START_WAIT, fixture, tools_path};

/// What editkit's vfs gives for a file: decoded, LF line endings, no BOM.
pub(crate) fn decoded(path: &std::path::Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|error| error.to_string())?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    Ok(text.replace("\r\n", "\n").replace('\r', "\n"))
}

/// Renames the symbol at `line`/`character` of `file` (after `prepare` ran on the root); gives
/// the texts after (applied to the decoded texts), by relative path.
fn renamed(name: &str, language: Language, file: &str, at: (u32, u32), old: &str, new: &str) -> Vec<(String, String)> {
    renamed_in(name, language, file, at, (old, new), |_| {})
}

fn renamed_in(
    name: &str,
    language: Language,
    file: &str,
    at: (u32, u32),
    (old, new): (&str, &str),
    prepare: impl FnOnce(&std::path::Path),
) -> Vec<(String, String)> {
    let (_temp, root) = fixture(name);
    prepare(&root);
    let pool = Pool::new(PoolOptions { path: Some(tools_path(&[])), start_wait: START_WAIT, ..PoolOptions::default() });
    let session = pool.session(language, &root, &Roots::new(&[&root])).expect("starts");
    let path = root.join(file);
    session.sync(&path, &decoded(&path).expect("read")).expect("open");
    assert!(session.server().wait_ready(READY_WAIT), "ready");
    let position = Position { line: at.0, character: at.1 };
    let edit = session.server().rename(&path, position, new, START_WAIT).expect("rename answered").expect("an edit");
    let encoding = session.server().encoding();
    let files = rename_edits(&edit, &root, old, new, encoding, |path| session.rename_text(path, decoded(path)?))
        .unwrap_or_else(|error| panic!("{error}: {edit:?}"));
    let mut out = Vec::new();
    for file in files {
        let before = decoded(&file.path).expect("read");
        let relative = file.path.strip_prefix(&root).expect("inside").display().to_string();
        out.push((relative, file.apply(&before)));
    }
    // A file that changed since: its edits no longer replace the old name.
    let changed = root.join(file);
    let text = decoded(&changed).expect("read").replacen(old, &"_".repeat(old.len()), 1);
    let stale = rename_edits(&edit, &root, old, new, encoding, |path| {
        if path == changed {
            Ok(editkit_lsp::SentText { text: text.clone(), version: session.version(path) })
        } else {
            session.rename_text(path, decoded(path)?)
        }
    });
    assert!(matches!(stale, Err(EditError::Mismatch { .. })), "{stale:?}");
    // A file the caller refuses (a blocked name, a link out) refuses the whole rename.
    let refused = rename_edits(&edit, &root, old, new, encoding, |path| {
        if path == changed {
            Err("blocked by the policy".to_owned())
        } else {
            session.rename_text(path, decoded(path)?)
        }
    });
    assert!(matches!(refused, Err(EditError::Unreadable { .. })), "{refused:?}");
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

/// A file with CRLF endings and a BOM, not open with the server (which reads it from disk):
/// the ranges land on the decoded text the edit set applies, every use renamed, nothing else.
#[test]
fn python_rename_in_a_crlf_file_with_a_bom_lands_on_the_decoded_text() {
    let crlf = |root: &std::path::Path| {
        for file in ["pkg/use1.py", "pkg/use2.py"] {
            let text = std::fs::read_to_string(root.join(file)).expect("read");
            let text = format!("\u{feff}# first line\r\n{}", text.replace('\n', "\r\n"));
            std::fs::write(root.join(file), text).expect("write");
        }
    };
    let after = renamed_in("py", Language::Python, "pkg/util.py", (0, 4), ("compute_total", "sum_items"), crlf);
    every_use_renamed(&after, 6, "compute_total", "sum_items");
    for (path, text) in &after {
        let before =
            decoded(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/lsp/py").join(path))
                .expect("read the fixture");
        let before = if path.ends_with("use1.py") || path.ends_with("use2.py") {
            format!("# first line\n{before}")
        } else {
            before
        };
        assert_eq!(*text, before.replace("compute_total", "sum_items"), "{path}");
    }
}

#[test]
fn rust_function_renamed_across_modules() {
    let after = renamed("rs", Language::Rust, "src/util.rs", (0, 7), "compute_total", "add_up");
    every_use_renamed(&after, 3, "compute_total", "add_up");
}

/// The shapes real servers send for shorthand properties, import and export specifiers and
/// struct patterns (`width: w`, `w as width`, an inserted `z: ` or `: y`) pass the check; the
/// texts after are exact.
#[test]
fn rename_shapes_the_real_servers_send_are_accepted() {
    let ts = |root: &std::path::Path| {
        let sh = "export const width = 1;\nexport const o = { width };\nexport { width as wd };\n";
        crate::support::plant(root, "src/sh.ts", sh, false);
        let imp = "import { width } from \"./sh.js\";\nexport const z = width;\nexport { width };\n";
        crate::support::plant(root, "src/imp.ts", imp, false);
    };
    let after = renamed_in("ts", Language::TypeScript, "src/sh.ts", (0, 14), ("width", "w"), ts);
    assert_eq!(
        after,
        vec![
            (
                "src/imp.ts".to_owned(),
                "import { w } from \"./sh.js\";\nexport const z = w;\nexport { w as width };\n".to_owned()
            ),
            (
                "src/sh.ts".to_owned(),
                "export const w = 1;\nexport const o = { width: w };\nexport { w as wd };\n".to_owned()
            ),
        ]
    );
    let rs = |root: &std::path::Path| {
        crate::support::plant(root, "src/lib.rs", "pub mod util;\npub mod a;\npub mod b;\npub mod sh;\n", false);
        let sh = "pub struct P { pub x: i32 }\npub fn mk(x: i32) -> P { P { x } }\npub fn get(p: P) -> i32 { let P { x } = p; x }\n";
        crate::support::plant(root, "src/sh.rs", sh, false);
    };
    let after = renamed_in("rs", Language::Rust, "src/sh.rs", (0, 19), ("x", "z"), rs);
    let want = "pub struct P { pub z: i32 }\npub fn mk(x: i32) -> P { P { z: x } }\npub fn get(p: P) -> i32 { let P { z: x } = p; x }\n";
    assert_eq!(after, vec![("src/sh.rs".to_owned(), want.to_owned())]);
}
