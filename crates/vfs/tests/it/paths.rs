//! The hostile-path corpus (`fixtures/paths/cases.tsv`) against every operation.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use editkit_vfs::{Error, ErrorKind, RenameOptions, Workspace, WriteOptions};

use crate::support::{SENTINEL, Tree};

struct Case {
    line: usize,
    path: String,
    kind: String,
    last_link: bool,
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/paths/cases.tsv")
}

fn expand(raw: &str, tree: &Tree) -> String {
    let mut out = String::new();
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('0') => out.push('\0'),
                Some('\\') => out.push('\\'),
                other => panic!("bad escape \\{other:?} in {raw}"),
            }
        } else {
            out.push(c);
        }
    }
    out.replace("$ROOT", tree.root.to_str().unwrap())
        .replace("$EVIL", tree.evil.to_str().unwrap())
        .replace("$OUT", tree.out.to_str().unwrap())
        .replace("$LONGNAME", &"a".repeat(256))
        .replace("$LONGPATH", &"abcdefghi/".repeat(410))
}

fn load(tree: &Tree) -> (Vec<(String, String)>, Vec<Case>) {
    let text = fs::read_to_string(corpus()).unwrap();
    let (mut links, mut cases) = (Vec::new(), Vec::new());
    for (idx, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        match fields.as_slice() {
            ["link", link, target] => links.push(((*link).to_owned(), expand(target, tree))),
            ["case", path, kind, rest @ ..] => cases.push(Case {
                line: idx + 1,
                path: expand(path, tree),
                kind: (*kind).to_owned(),
                last_link: rest.first() == Some(&"last_link"),
            }),
            _ => panic!("cases.tsv:{}: malformed line {line:?}", idx + 1),
        }
    }
    (links, cases)
}

fn plant(tree: &Tree, links: &[(String, String)]) {
    for (link, target) in links {
        symlink(target, tree.root.join(link)).unwrap();
    }
}

type Op = fn(&Workspace, &str) -> Result<String, Error>;

/// Every operation, each returning what it saw so the test can check for the sentinel.
fn operations() -> Vec<(&'static str, bool, Op)> {
    // (name, follows the last link, operation)
    vec![
        ("read", true, |w, p| w.read(p).map(|f| f.text().to_owned())),
        ("read_bytes", true, |w, p| w.read_bytes(p).map(|b| String::from_utf8_lossy(&b).into_owned())),
        ("current_hash", true, |w, p| w.current_hash(p).map(|h| format!("{h:?}"))),
        ("write", true, |w, p| {
            w.write(p, b"pwned", &WriteOptions { force: true, ..Default::default() }).map(|_| String::new())
        }),
        ("create_dir_all", true, |w, p| w.create_dir_all(p).map(|()| String::new())),
        ("list_dir", true, |w, p| w.list_dir(p).map(|names| names.join(","))),
        ("open_dir", true, |w, p| {
            w.open_dir(p).and_then(|d| d.entries_with_skipped()).map(|(e, _)| e).map(|e| format!("{e:?}"))
        }),
        ("walk", true, |w, p| {
            let dir = w.open_dir(p)?;
            let mut names = Vec::new();
            dir.walk(&mut |entry| {
                names.push(entry.rel.clone());
                true
            })?;
            Ok(names.join(","))
        }),
        ("exists", true, |w, p| w.exists(p).map(|b| b.to_string())),
        ("metadata", true, |w, p| w.metadata(p).map(|m| format!("{m:?}"))),
        ("lock", true, |w, p| w.lock(p).map(|l| l.path().to_owned())),
        ("resolve", true, |w, p| w.resolve(p)),
        ("rename_to", true, |w, p| {
            w.rename("file.txt", p, RenameOptions::default().overwrite(true).create_dirs(true)).map(|()| String::new())
        }),
        ("delete", false, |w, p| w.delete(p).map(|k| format!("{k:?}"))),
        ("rename_from", false, |w, p| w.rename(p, "moved", RenameOptions::default()).map(|()| String::new())),
    ]
}

#[test]
fn hostile_corpus_has_over_a_hundred_cases() {
    let tree = Tree::new();
    assert!(load(&tree).1.len() >= 100);
}

#[test]
fn no_hostile_path_escapes_any_operation() {
    let mut failures = Vec::new();
    let mut checked = 0usize;
    let probe = Tree::new();
    let (_, cases) = load(&probe);
    for case in &cases {
        for (name, follows_last, op) in operations() {
            // A fresh tree per case and operation: an operation that acts on a link itself
            // (delete, rename) must not change what the next one sees.
            let tree = Tree::new();
            let (links, _) = load(&tree);
            plant(&tree, &links);
            let path = expand_again(case, &probe, &tree);
            let before = tree.outside_snapshot();
            let workspace = tree.workspace();
            let result = op(&workspace, &path);
            checked += 1;
            let after = tree.outside_snapshot();
            if before != after {
                failures.push(format!(
                    "line {}: {name}({:?}) changed the outside: {before:?} -> {after:?}",
                    case.line, case.path
                ));
            }
            let acts_on_link = case.last_link && !follows_last;
            match result {
                Ok(seen) if seen.contains(SENTINEL) => {
                    failures.push(format!("line {}: {name}({:?}) read the sentinel", case.line, case.path));
                }
                Ok(_) if acts_on_link => {}
                Ok(seen) => failures.push(format!(
                    "line {}: {name}({:?}) succeeded ({seen:.80}), expected {}",
                    case.line, case.path, case.kind
                )),
                Err(err) if err.error_kind().as_str() != case.kind && !acts_on_link => failures.push(format!(
                    "line {}: {name}({:?}) failed with {} ({err}), expected {}",
                    case.line,
                    case.path,
                    err.error_kind().as_str(),
                    case.kind
                )),
                Err(_) => {}
            }
        }
    }
    assert!(checked >= 100 * 15, "only {checked} checks ran");
    assert!(failures.is_empty(), "{} of {checked} checks failed:\n{}", failures.len(), failures.join("\n"));
}

/// Re-expands a case for another tree (the placeholders name that tree's folders).
fn expand_again(case: &Case, probe: &Tree, tree: &Tree) -> String {
    case.path
        .replace(probe.root.to_str().unwrap(), tree.root.to_str().unwrap())
        .replace(probe.evil.to_str().unwrap(), tree.evil.to_str().unwrap())
        .replace(probe.out.to_str().unwrap(), tree.out.to_str().unwrap())
}

#[test]
fn dangling_link_inside_is_written_through() {
    let tree = Tree::new();
    symlink("dir/made.txt", tree.root.join("dangle_in")).unwrap();
    let workspace = tree.workspace();
    assert!(!workspace.exists("dangle_in").unwrap());
    assert_eq!(workspace.read("dangle_in").unwrap_err().error_kind(), ErrorKind::NotFound);
    workspace.write("dangle_in", b"made", &WriteOptions::default()).unwrap();
    assert!(fs::symlink_metadata(tree.root.join("dangle_in")).unwrap().is_symlink());
    assert_eq!(fs::read_to_string(tree.root.join("dir/made.txt")).unwrap(), "made");
}

#[test]
fn absolute_paths_under_the_root_are_remapped() {
    let tree = Tree::new();
    let workspace = tree.workspace();
    let absolute = format!("{}/dir/inner.txt", tree.root.display());
    assert_eq!(workspace.read(&absolute).unwrap().text(), "inner\n");
    assert_eq!(workspace.resolve(&absolute).unwrap(), "dir/inner.txt");
}

#[test]
fn absolute_paths_can_be_refused_or_rooted() {
    let tree = Tree::new();
    let absolute = format!("{}/file.txt", tree.root.display());
    let refuse = Workspace::builder(&tree.root, editkit_vfs::ambient_authority())
        .policy(editkit_vfs::Policy { absolute: editkit_vfs::AbsolutePaths::Refuse, ..Default::default() })
        .open()
        .unwrap();
    assert_eq!(refuse.read(&absolute).unwrap_err().error_kind(), ErrorKind::OutsideWorkspace);
    let rooted = Workspace::builder(&tree.root, editkit_vfs::ambient_authority())
        .policy(editkit_vfs::Policy { absolute: editkit_vfs::AbsolutePaths::RootedAtWorkspace, ..Default::default() })
        .open()
        .unwrap();
    assert_eq!(rooted.resolve("/reports/a.md").unwrap(), "reports/a.md");
    assert_eq!(rooted.read(&absolute).unwrap().text(), "inside\n");
    assert_eq!(rooted.read("/../outside/sentinel.txt").unwrap_err().error_kind(), ErrorKind::OutsideWorkspace);
}

#[test]
fn links_that_stay_inside_are_followed() {
    let tree = Tree::new();
    symlink("dir", tree.root.join("in_link")).unwrap();
    symlink(tree.root.join("dir/inner.txt"), tree.root.join("abs_in")).unwrap();
    symlink("in_link/../file.txt", tree.root.join("via")).unwrap();
    let workspace = tree.workspace();
    assert_eq!(workspace.read("in_link/inner.txt").unwrap().text(), "inner\n");
    assert_eq!(workspace.read("abs_in").unwrap().text(), "inner\n");
    assert_eq!(workspace.resolve("via").unwrap(), "file.txt");
}

#[test]
fn blocked_globs_are_configurable() {
    let tree = Tree::new();
    let workspace = Workspace::builder(&tree.root, editkit_vfs::ambient_authority())
        .policy(editkit_vfs::Policy { blocked: vec!["dir/**".into()], ..Default::default() })
        .open()
        .unwrap();
    assert_eq!(workspace.read(".env").unwrap().text(), "TOKEN=1\n");
    let err = workspace.read("dir/inner.txt").unwrap_err();
    assert_eq!(err.error_kind(), ErrorKind::Blocked);
    assert!(err.to_string().contains("dir/**"), "{err}");
    assert!(!workspace.list_dir("").unwrap().contains(&"dir/".to_owned()));
}

#[test]
fn links_to_blocked_places_are_refused_through_directory_handles_too() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join(".git")).unwrap();
    std::fs::write(tmp.path().join(".git/config"), "token=S\n").unwrap();
    std::fs::write(tmp.path().join(".env"), "K=1\n").unwrap();
    std::fs::write(tmp.path().join("ok.txt"), "fine\n").unwrap();
    std::os::unix::fs::symlink(".git/config", tmp.path().join("cfg")).unwrap();
    std::os::unix::fs::symlink(".git", tmp.path().join("g")).unwrap();
    std::os::unix::fs::symlink(".env", tmp.path().join("e")).unwrap();
    std::os::unix::fs::symlink("ok.txt", tmp.path().join("alias")).unwrap();
    let workspace = editkit_vfs::Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
    let root = workspace.open_dir("").unwrap();
    for name in ["cfg", "e"] {
        assert_eq!(root.read(name).unwrap_err().error_kind(), ErrorKind::Blocked, "{name}");
    }
    assert_eq!(root.open_subdir("g").unwrap_err().error_kind(), ErrorKind::Blocked);
    assert_eq!(root.read("alias").unwrap(), b"fine\n");
}

#[test]
fn a_folder_holding_blocked_files_is_neither_deleted_nor_moved() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("config/deep")).unwrap();
    std::fs::write(tmp.path().join("config/app.toml"), "a\n").unwrap();
    std::fs::write(tmp.path().join("config/deep/server.key"), "k\n").unwrap();
    let workspace = editkit_vfs::Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
    assert_eq!(workspace.delete("config").unwrap_err().error_kind(), ErrorKind::Blocked);
    assert_eq!(
        workspace.rename("config", "moved", RenameOptions::default()).unwrap_err().error_kind(),
        ErrorKind::Blocked
    );
    assert!(tmp.path().join("config/deep/server.key").exists());
    std::fs::remove_file(tmp.path().join("config/deep/server.key")).unwrap();
    workspace.delete("config").unwrap();
    assert!(!tmp.path().join("config").exists());
}

#[test]
fn paths_without_links_resolve_to_themselves_and_everything_else_as_before() {
    // The one-open path (no link on the way) and the component walk must agree.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("a/b")).unwrap();
    std::fs::write(tmp.path().join("a/b/f.txt"), "x\n").unwrap();
    std::os::unix::fs::symlink("a", tmp.path().join("to_a")).unwrap();
    std::os::unix::fs::symlink("b/f.txt", tmp.path().join("a/alias")).unwrap();
    let workspace = editkit_vfs::Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
    for (path, resolved) in [
        ("a/b/f.txt", "a/b/f.txt"),
        ("a/b", "a/b"),
        ("a/b/new.txt", "a/b/new.txt"),
        ("a/missing/deeper.txt", "a/missing/deeper.txt"),
        ("to_a/b/f.txt", "a/b/f.txt"),
        ("a/alias", "a/b/f.txt"),
        ("./a//b/../b/f.txt", "a/b/f.txt"),
    ] {
        assert_eq!(workspace.resolve(path).unwrap(), resolved, "{path}");
    }
    assert_eq!(workspace.resolve_entry("a/alias").unwrap(), "a/alias");
    assert_eq!(workspace.metadata("a/alias").unwrap().kind, editkit_vfs::EntryKind::File);
    // A file used as a folder is not there, whichever way it is reached.
    for path in ["a/b/f.txt/x", "to_a/b/f.txt/x"] {
        assert_eq!(workspace.resolve(path).unwrap_err().error_kind(), ErrorKind::NotFound, "{path}");
    }
}
