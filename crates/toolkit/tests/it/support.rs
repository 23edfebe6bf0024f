use std::path::{Path, PathBuf};

use editkit::{Toolkit, ToolkitOptions};
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
    /// Every `error.kind` this environment's calls returned.
    kinds: std::cell::RefCell<std::collections::BTreeSet<String>>,
}

impl Env {
    pub fn new() -> Env {
        Env::with_options(ToolkitOptions::default())
    }

    pub fn with_options(options: ToolkitOptions) -> Env {
        let dir = tempfile::tempdir().unwrap();
        let toolkit = Toolkit::open(dir.path(), options).unwrap();
        Env { dir, toolkit, kinds: Default::default() }
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

    /// Calls a tool; every result must fit the tool's published result schema (success or
    /// the error object with a kind from `ERROR_KINDS`).
    #[track_caller]
    pub fn call(&self, tool: &str, args: Value) -> Value {
        let result = editkit::tools::call(&self.toolkit, tool, args);
        if let Some(validator) = result_validators().get(tool) {
            let errors: Vec<String> = validator.iter_errors(&result).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{tool}: the result does not fit its result schema: {errors:?}\n{result:#}");
        }
        self.record(&result);
        result
    }

    /// Notes the error kind of a result obtained some other way.
    pub fn record(&self, result: &Value) {
        if let Some(kind) = result["error"]["kind"].as_str() {
            self.kinds.borrow_mut().insert(kind.to_owned());
        }
    }

    /// The error kinds returned so far.
    pub fn kinds_seen(&self) -> std::collections::BTreeSet<String> {
        self.kinds.borrow().clone()
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

/// One compiled result-schema validator per tool.
fn result_validators() -> &'static std::collections::HashMap<&'static str, jsonschema::Validator> {
    static VALIDATORS: std::sync::OnceLock<std::collections::HashMap<&'static str, jsonschema::Validator>> =
        std::sync::OnceLock::new();
    VALIDATORS.get_or_init(|| {
        editkit::tools::specs()
            .into_iter()
            .map(|spec| {
                // Every field of a refusal is one the schema describes (`ErrorDetails`): held
                // here by refusing any other.
                let mut schema = spec.result_schema();
                schema["anyOf"][1]["properties"]["error"]["additionalProperties"] = Value::Bool(false);
                (spec.name, jsonschema::validator_for(&schema).unwrap())
            })
            .collect()
    })
}

/// Runs the test `test` of this binary in `count` child processes at once, each with `env`
/// set to `<dir>|<its number>`, and checks that each one passed.
pub fn run_children(test: &str, env: &str, count: usize, dir: &Path) {
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..count)
        .map(|which| {
            std::process::Command::new(&exe)
                .args(["--exact", test, "--test-threads=1", "--quiet"])
                .env(env, format!("{}|{which}", dir.display()))
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
}

/// The `PATH` the language-server tests give editkit: the servers `cargo xtask lsp-tools`
/// installed under `target/lsp-tools`, then this process's own (for node, python3 and
/// rustup). Panics, naming the install command, when a server is missing: these tests never
/// skip.
#[cfg(feature = "lsp")]
pub fn servers_path() -> std::ffi::OsString {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/lsp-tools");
    let venv = tools.join("venv/bin");
    let npm = tools.join("npm/node_modules/.bin");
    for needed in [venv.join("basedpyright-langserver"), npm.join("typescript-language-server"), npm.join("tsserver")] {
        assert!(
            needed.exists(),
            "`{}` is missing: run `cargo xtask lsp-tools` to install the language servers the tests use",
            needed.display()
        );
    }
    let mut entries = vec![venv.canonicalize().unwrap(), npm.canonicalize().unwrap()];
    entries.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(entries).unwrap()
}

/// Default options whose language servers are the installed ones ([`servers_path`]).
#[cfg(feature = "lsp")]
pub fn with_servers() -> ToolkitOptions {
    let mut options = ToolkitOptions::default();
    options.language_servers.path = Some(servers_path());
    options
}
