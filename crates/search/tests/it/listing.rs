//! `Files`: the listing the glob tool uses, with the search's rules.

use editkit_search::{Error, Files, WalkOptions};

use crate::support::Tree;

#[track_caller]
fn lists(tree: &Tree, glob: &str, path: &str, options: &WalkOptions) -> Vec<String> {
    Files::builder(glob).walk_options(options.clone()).run(&tree.workspace(), path).unwrap().files
}

fn project() -> Tree {
    let tree = Tree::new(&[
        (".gitignore", "target/\n*.log\n"),
        ("src/main.rs", ""),
        ("src/lib.rs", ""),
        ("src/nested/mod.rs", ""),
        ("target/debug/out.rs", ""),
        ("build.log", ""),
        (".github/ci.yml", ""),
        ("README.md", ""),
    ]);
    tree.git();
    tree
}

#[test]
fn files_honour_the_same_ignore_rules() {
    let tree = project();
    let defaults = WalkOptions::default();
    assert_eq!(lists(&tree, "**/*.rs", ".", &defaults), ["src/lib.rs", "src/main.rs", "src/nested/mod.rs"]);
    assert_eq!(lists(&tree, "**", ".", &defaults), ["README.md", "src/lib.rs", "src/main.rs", "src/nested/mod.rs"]);
    let everything = WalkOptions { git_ignore: false, hidden: true, ..Default::default() };
    assert_eq!(
        lists(&tree, "**", ".", &everything),
        [
            ".github/ci.yml",
            ".gitignore",
            "README.md",
            "build.log",
            "src/lib.rs",
            "src/main.rs",
            "src/nested/mod.rs",
            "target/debug/out.rs"
        ]
    );
}

#[test]
fn star_stays_in_one_directory_and_paths_are_root_relative() {
    let tree = project();
    let defaults = WalkOptions::default();
    assert_eq!(lists(&tree, "*.rs", "src", &defaults), ["src/lib.rs", "src/main.rs"]);
    assert_eq!(lists(&tree, "*.md", ".", &defaults), ["README.md"]);
    assert_eq!(lists(&tree, "{main,mod}.rs", "src", &defaults), ["src/main.rs"]);
    let listed = Files::builder("**/*.rs").walk_options(defaults.clone()).run(&tree.workspace(), "src").unwrap();
    assert_eq!(listed.directory, "src");
    assert_eq!(listed.pattern, "**/*.rs");
}

#[test]
fn listing_is_bounded_and_flags_truncation() {
    let tree = project();
    let listed = Files::builder("**/*.rs").max_files(2).run(&tree.workspace(), ".").unwrap();
    assert_eq!(listed.files, ["src/lib.rs", "src/main.rs"]);
    assert!(listed.truncated);
}

#[test]
fn listing_reports_links_out_and_refuses_bad_globs() {
    let tree = project();
    tree.link(&tree.out, "out_link.rs");
    let listed = Files::builder("**/*.rs").run(&tree.workspace(), ".").unwrap();
    assert!(!listed.files.contains(&"out_link.rs".to_owned()));
    assert_eq!(listed.skipped.len(), 1);
    assert_eq!(
        (listed.skipped[0].path.as_str(), listed.skipped[0].reason.as_str()),
        ("out_link.rs", "outside_workspace")
    );
    for glob in ["", "/etc/*", "../*", "a/../../b", "[", "a\0"] {
        let err = Files::builder(glob).run(&tree.workspace(), ".").unwrap_err();
        assert!(matches!(err, Error::InvalidGlob { .. }), "{glob:?}: {err:?}");
        assert_eq!(err.kind(), "invalid_args");
    }
    let err = Files::builder("*").run(&tree.workspace(), "README.md").unwrap_err();
    assert_eq!(err.kind(), "invalid_args", "a file is not a directory to list: {err}");
    let err = Files::builder("*").run(&tree.workspace(), "../outside").unwrap_err();
    assert_eq!(err.kind(), "outside_workspace");
}
