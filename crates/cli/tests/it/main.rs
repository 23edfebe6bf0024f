//! Integration tests of the `editkit` binary, one binary with a module per area.

mod annotations;
mod bulk;
mod call;
mod demo;
mod hostile;
mod http;
mod human;
mod lsp;
mod mcp;
mod memory;
mod orphans;
mod pager;
mod shown;
mod state;
mod structure;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The `PATH` the language-server tests give editkit: the servers `cargo xtask lsp-tools`
/// installed under `target/lsp-tools`, then this process's own. Panics, naming the install
/// command, when a server is missing: these tests never skip.
fn servers_path() -> std::ffi::OsString {
    let tools = repo_root().join("target/lsp-tools");
    let venv = tools.join("venv/bin");
    let npm = tools.join("npm/node_modules/.bin");
    for needed in [venv.join("basedpyright-langserver"), npm.join("typescript-language-server"), npm.join("tsserver")] {
        assert!(
            needed.exists(),
            "`{}` is missing: run `cargo xtask lsp-tools` to install the language servers the tests use",
            needed.display()
        );
    }
    let mut entries = vec![venv.canonicalize().expect("the venv"), npm.canonicalize().expect("the npm folder")];
    entries.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(entries).expect("a PATH")
}

/// The binary under test.
fn editkit() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_editkit"));
    command.env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
    command
}

/// Runs `editkit ARGS` with `stdin` fed from another thread (so large inputs cannot deadlock).
#[track_caller]
fn run(args: &[&str], stdin: impl Into<Vec<u8>>) -> Output {
    let mut child = editkit()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the editkit binary starts");
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let input = stdin.into();
    let writer = std::thread::spawn(move || {
        // The binary may stop reading early (a usage error); that is its business.
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().expect("editkit runs to the end");
    writer.join().expect("the writer thread finishes");
    output
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Each stdout line parsed as JSON.
#[track_caller]
fn json_lines(output: &Output) -> Vec<serde_json::Value> {
    stdout(output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line:.200}")))
        .collect()
}

/// A temporary workspace with the given files.
fn workspace(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp dir");
    for (path, content) in files {
        let target = dir.path().join(path);
        std::fs::create_dir_all(target.parent().expect("files have a parent")).expect("parent dirs");
        std::fs::write(target, content).expect("fixture file written");
    }
    dir
}

fn root_arg(dir: &Path) -> String {
    dir.to_str().expect("temp paths are UTF-8").to_owned()
}

fn read(dir: &Path, path: &str) -> String {
    std::fs::read_to_string(dir.join(path)).expect("file readable")
}

/// The workspace root (for target/ and the test scripts).
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}
