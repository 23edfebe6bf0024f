use std::path::{Path, PathBuf};

use editkit::{Options, Toolkit};
use serde_json::Value;

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// Copies a fixture folder into a fresh temp dir.
pub fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

pub struct Env {
    pub dir: tempfile::TempDir,
    pub toolkit: Toolkit,
}

impl Env {
    pub fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let toolkit = Toolkit::open(dir.path(), Options::default()).unwrap();
        Env { dir, toolkit }
    }

    pub fn with_files(files: &[(&str, &str)]) -> Env {
        let env = Env::new();
        for (path, content) in files {
            env.put(path, content.as_bytes());
        }
        env
    }

    pub fn put(&self, path: &str, bytes: &[u8]) {
        let full = self.dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, bytes).unwrap();
    }

    pub fn get(&self, path: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(path)).unwrap()
    }

    pub fn call(&self, tool: &str, args: Value) -> Value {
        editkit::tools::call(&self.toolkit, tool, args)
    }

    /// Calls and asserts success.
    #[track_caller]
    pub fn ok(&self, tool: &str, args: Value) -> Value {
        let result = self.call(tool, args);
        assert_eq!(result["ok"], true, "{tool} failed: {result:#}");
        result
    }

    /// Calls and asserts the error kind.
    #[track_caller]
    pub fn refused(&self, tool: &str, args: Value, kind: &str) -> Value {
        let result = self.call(tool, args);
        assert_eq!(result["ok"], false, "{tool} succeeded: {result:#}");
        assert_eq!(result["error"]["kind"], kind, "{tool}: {result:#}");
        assert!(result["error"]["message"].as_str().is_some_and(|m| !m.is_empty()));
        result
    }
}
