//! Which files are searched: ignore files, hidden files, globs and extensions.

use editkit_search::{Error, Search};

use crate::support::{Tree, finds, search};

fn ignored_tree() -> Tree {
    Tree::new(&[
        (".gitignore", "*.log\nbuild/\n!keep.log\n"),
        ("app.py", "needle\n"),
        ("debug.log", "needle\n"),
        ("keep.log", "needle\n"),
        ("build/out.py", "needle\n"),
        ("src/build.py", "needle\n"),
    ])
}

#[test]
fn gitignore_is_respected_in_a_git_repository() {
    let tree = ignored_tree();
    tree.git();
    assert_eq!(finds(&tree, "needle", |_| {}), ["app.py", "keep.log", "src/build.py"]);
}

#[test]
fn gitignore_is_switchable() {
    let tree = ignored_tree();
    tree.git();
    assert_eq!(
        finds(&tree, "needle", |b| {
            b.git_ignore(false);
        }),
        ["app.py", "build/out.py", "debug.log", "keep.log", "src/build.py"]
    );
}

#[test]
fn gitignore_outside_a_git_repository_applies_only_without_require_git() {
    let tree = ignored_tree();
    assert_eq!(finds(&tree, "needle", |_| {}).len(), 5, "no .git: .gitignore is not honoured, as in ripgrep");
    assert_eq!(
        finds(&tree, "needle", |b| {
            b.require_git(false);
        }),
        ["app.py", "keep.log", "src/build.py"]
    );
}

#[test]
fn nested_gitignores_and_parent_rules_apply_when_searching_a_sub_directory() {
    let tree = Tree::new(&[
        (".gitignore", "*.tmp\n"),
        ("pkg/.gitignore", "generated/\n!important.tmp\n"),
        ("pkg/a.tmp", "needle\n"),
        ("pkg/important.tmp", "needle\n"),
        ("pkg/generated/g.py", "needle\n"),
        ("pkg/src/main.py", "needle\n"),
        ("other/b.tmp", "needle\n"),
    ]);
    tree.git();
    assert_eq!(finds(&tree, "needle", |_| {}), ["pkg/important.tmp", "pkg/src/main.py"]);
    let found = search(&tree, "needle", "pkg", |_| {});
    let files: Vec<&str> = found.results.iter().map(|r| r.file.as_str()).collect();
    assert_eq!(files, ["pkg/important.tmp", "pkg/src/main.py"]);
    // A .git in a sub-directory makes that sub-tree a repository.
    let tree = Tree::new(&[("repo/.gitignore", "*.tmp\n"), ("repo/a.tmp", "needle\n"), ("repo/b.py", "needle\n")]);
    std::fs::create_dir_all(tree.root.join("repo/.git")).unwrap();
    assert_eq!(finds(&tree, "needle", |_| {}), ["repo/b.py"]);
}

#[test]
fn dot_ignore_files_apply_outside_git_and_beat_gitignore() {
    let tree = Tree::new(&[
        (".ignore", "vendor/\n!keep.gen\n"),
        (".gitignore", "*.gen\n"),
        ("vendor/v.py", "needle\n"),
        ("a.gen", "needle\n"),
        ("keep.gen", "needle\n"),
        ("main.py", "needle\n"),
    ]);
    assert_eq!(finds(&tree, "needle", |_| {}), ["a.gen", "keep.gen", "main.py"]);
    tree.git();
    assert_eq!(finds(&tree, "needle", |_| {}), ["keep.gen", "main.py"]);
    assert_eq!(
        finds(&tree, "needle", |b| {
            b.ignore_files(false);
        }),
        ["main.py", "vendor/v.py"]
    );
}

#[test]
fn hidden_files_and_directories_are_skipped_unless_asked() {
    let tree =
        Tree::new(&[(".hidden.txt", "needle\n"), (".config/settings.txt", "needle\n"), ("shown.txt", "needle\n")]);
    assert_eq!(finds(&tree, "needle", |_| {}), ["shown.txt"]);
    assert_eq!(
        finds(&tree, "needle", |b| {
            b.hidden(true);
        }),
        [".config/settings.txt", ".hidden.txt", "shown.txt"]
    );
    // A whitelist rule takes a hidden file in, as in ripgrep.
    tree.write(".ignore", b"!.hidden.txt\n");
    assert_eq!(finds(&tree, "needle", |_| {}), [".hidden.txt", "shown.txt"]);
}

#[test]
fn blocked_files_are_never_searched_even_with_hidden() {
    let tree = Tree::new(&[(".env", "needle=1\n"), ("key.pem", "needle\n"), ("ok.txt", "needle\n")]);
    tree.git();
    tree.write(".git/config", b"needle\n");
    let found = search(&tree, "needle", ".", |b| {
        b.hidden(true).git_ignore(false);
    });
    assert_eq!(found.results.iter().map(|r| r.file.as_str()).collect::<Vec<_>>(), ["ok.txt"]);
    assert!(found.skipped.is_empty(), "blocked entries stay invisible: {:?}", found.skipped);
}

#[test]
fn include_and_exclude_globs() {
    let tree = Tree::new(&[
        ("a.py", "needle\n"),
        ("b.rs", "needle\n"),
        ("src/c.py", "needle\n"),
        ("src/test_d.py", "needle\n"),
        ("docs/e.md", "needle\n"),
    ]);
    assert_eq!(
        finds(&tree, "needle", |b| {
            b.glob("*.py");
        }),
        ["a.py", "src/c.py", "src/test_d.py"]
    );
    assert_eq!(
        finds(&tree, "needle", |b| {
            b.glob("src/*.py");
        }),
        ["src/c.py", "src/test_d.py"]
    );
    assert_eq!(
        finds(&tree, "needle", |b| {
            b.glob("*.py").exclude("test_*");
        }),
        ["a.py", "src/c.py"]
    );
    assert_eq!(
        finds(&tree, "needle", |b| {
            b.exclude("src");
        }),
        ["a.py", "b.rs", "docs/e.md"]
    );
    assert_eq!(
        finds(&tree, "needle", |b| {
            b.glob("*.{rs,md}");
        }),
        ["b.rs", "docs/e.md"]
    );
    // Globs are relative to the searched directory.
    let found = search(&tree, "needle", "src", |b| {
        b.glob("c.py");
    });
    assert_eq!(found.results.len(), 1);
    assert_eq!(found.results[0].file, "src/c.py");
}

#[test]
fn an_include_glob_takes_in_an_ignored_file() {
    let tree = Tree::new(&[(".gitignore", "*.log\n"), ("a.log", "needle\n"), ("b.txt", "needle\n")]);
    tree.git();
    assert_eq!(
        finds(&tree, "needle", |b| {
            b.glob("*.log");
        }),
        ["a.log"]
    );
}

#[test]
fn extension_filter_takes_py_or_dot_py() {
    let tree = Tree::new(&[
        ("a.py", "needle\n"),
        ("b.pyc", "needle\n"),
        ("c.ts", "needle\n"),
        ("d.d.ts", "needle\n"),
        ("py", "needle\n"),
        ("e.PY", "needle\n"),
    ]);
    assert_eq!(
        finds(&tree, "needle", |b| {
            b.extension("py");
        }),
        ["a.py"]
    );
    assert_eq!(
        finds(&tree, "needle", |b| {
            b.extension(".py");
        }),
        ["a.py"]
    );
    assert_eq!(
        finds(&tree, "needle", |b| {
            b.extension("ts").extension(".py");
        }),
        ["a.py", "c.ts", "d.d.ts"]
    );
    assert_eq!(
        finds(&tree, "needle", |b| {
            b.extension("d.ts");
        }),
        ["d.d.ts"]
    );
}

#[test]
fn malformed_globs_and_extensions_are_refused() {
    for glob in ["[", "a[b", "", "{a,", "x\0y"] {
        let err = Search::builder("x").glob(glob).build().unwrap_err();
        assert!(matches!(err, Error::InvalidGlob { .. }), "{glob:?}: {err:?}");
        assert_eq!(err.kind(), "invalid_args");
        let err = Search::builder("x").exclude(glob).build().unwrap_err();
        assert!(matches!(err, Error::InvalidGlob { .. }), "{glob:?}: {err:?}");
    }
    for extension in ["", ".", "a/b", "*.py"] {
        let err = Search::builder("x").extension(extension).build().unwrap_err();
        assert!(matches!(err, Error::InvalidArgs { name: "extension", .. }), "{extension:?}: {err:?}");
    }
    let err = Search::builder("x").context(editkit_search::MAX_CONTEXT_LINES + 1).build().unwrap_err();
    assert!(matches!(err, Error::InvalidArgs { .. }));
}
