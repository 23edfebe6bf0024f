//! A temp tree per test and one helper per API call, so API changes touch one place.

use std::fs;
use std::path::{Path, PathBuf};

use editkit_search::{Search, SearchBuilder, SearchResults};
use editkit_vfs::Workspace;

pub struct Tree {
    pub _tmp: tempfile::TempDir,
    /// The workspace root.
    pub root: PathBuf,
    /// A folder beside the root, outside the workspace.
    pub out: PathBuf,
}

impl Tree {
    /// A workspace root holding `files` (path, content), plus an outside folder.
    pub fn new(files: &[(&str, &str)]) -> Tree {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("root");
        let out = base.join("outside");
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(&out).unwrap();
        let tree = Tree { _tmp: tmp, root, out };
        for (path, content) in files {
            tree.write(path, content.as_bytes());
        }
        tree
    }

    pub fn write(&self, path: &str, content: &[u8]) {
        let full = self.root.join(path);
        fs::create_dir_all(full.parent().unwrap()).unwrap();
        fs::write(full, content).unwrap();
    }

    /// Makes the root a git repository (an empty `.git` folder is all ripgrep looks for).
    pub fn git(&self) -> &Tree {
        fs::create_dir_all(self.root.join(".git")).unwrap();
        self
    }

    pub fn link(&self, target: impl AsRef<Path>, link: &str) {
        std::os::unix::fs::symlink(target, self.root.join(link)).unwrap();
    }

    pub fn workspace(&self) -> Workspace {
        Workspace::open(&self.root, editkit_vfs::ambient_authority()).unwrap()
    }
}

/// Runs a search for `pattern` over `path`, configured by `configure`.
#[track_caller]
pub fn search(tree: &Tree, pattern: &str, path: &str, configure: impl FnOnce(&mut SearchBuilder)) -> SearchResults {
    let mut builder = Search::builder(pattern);
    configure(&mut builder);
    builder.build().unwrap().run(&tree.workspace(), path).unwrap()
}

/// The files with matches, in result order.
pub fn files_of(found: &SearchResults) -> Vec<&str> {
    found.results.iter().map(|r| r.file.as_str()).collect()
}

/// The skipped paths with their reasons.
pub fn skipped_of(found: &SearchResults) -> Vec<(&str, &str)> {
    found.skipped.iter().map(|s| (s.path.as_str(), s.reason.as_str())).collect()
}

/// Which of the tree's files a search for `pattern` finds, configured by `configure`.
#[track_caller]
pub fn finds(tree: &Tree, pattern: &str, configure: impl FnOnce(&mut SearchBuilder)) -> Vec<String> {
    files_of(&search(tree, pattern, ".", configure)).into_iter().map(str::to_owned).collect()
}
