//! The post-write hook (`language_servers.after_writes`): each write gives the written file's
//! diagnostics from its real language server (installed by `cargo xtask lsp-tools` under
//! `target/lsp-tools`; a missing one fails the test, naming that command), with a state that
//! is never silent; with the hook off the field is absent and no server starts.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use editkit::{Toolkit, ToolkitOptions};
use serde_json::{Value, json};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `PATH` the servers are looked up in: `first`, the installed servers' folders, then
/// this process's own (node, python3, rustc). Panics, naming the install command, when a
/// server is missing.
pub(crate) fn servers_path(first: &[&Path]) -> OsString {
    let tools = repo().join("target/lsp-tools");
    let venv = tools.join("venv/bin");
    let npm = tools.join("npm/node_modules/.bin");
    for needed in [venv.join("basedpyright-langserver"), npm.join("typescript-language-server"), npm.join("tsserver")] {
        assert!(
            needed.exists(),
            "`{}` is missing: run `cargo xtask lsp-tools` to install the language servers the tests use",
            needed.display()
        );
    }
    let mut entries: Vec<PathBuf> = first.iter().map(|p| p.to_path_buf()).collect();
    entries.push(venv.canonicalize().unwrap());
    entries.push(npm.canonicalize().unwrap());
    entries.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(entries).unwrap()
}

/// Options with the hook on, servers looked up on `path`, generous waits (the machine running
/// the tests may be busy; no time is asserted).
pub(crate) fn hook_on(path: OsString) -> ToolkitOptions {
    let mut options = ToolkitOptions::default();
    options.language_servers.after_writes = true;
    options.language_servers.path = Some(path);
    let wait = Duration::from_secs(90);
    options.language_servers.diagnostics_wait = editkit::LanguageWaits { python: wait, typescript: wait, rust: wait };
    options.language_servers.start_wait = Duration::from_secs(120);
    options
}

/// A temporary copy of `fixtures/lsp/<name>`, its real path.
pub(crate) fn fixture(name: &str) -> (tempfile::TempDir, PathBuf) {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().canonicalize().unwrap().join(name);
    copy(&repo().join("fixtures/lsp").join(name), &root);
    (temp, root)
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn call(toolkit: &Toolkit, tool: &str, args: Value) -> Value {
    let result = editkit::tools::call(toolkit, tool, args);
    assert!(result.get("error").is_none(), "{tool} refused: {result}");
    result
}

/// The `server_diagnostics` of an edit result.
fn server(result: &Value) -> &Value {
    &result["diagnostics"]["server_diagnostics"]
}

/// An edit that introduces an error gives `fresh` with that error at its line; the next edit
/// right after gives `fresh` for its own version.
#[track_caller]
fn an_error_is_fresh_at_its_line(name: &str, file: &str, old: &str, broken: &str, line: u64, fixed: &str) {
    let (_temp, root) = fixture(name);
    let toolkit = Toolkit::open(&root, hook_on(servers_path(&[]))).unwrap();
    let result = call(&toolkit, "edit_file", json!({"path": file, "old_string": old, "new_string": broken}));
    let answer = server(&result);
    assert_eq!(answer["state"], "fresh", "{result}");
    let version = answer["version"].as_i64().expect("a version");
    let errors: Vec<&Value> =
        answer["diagnostics"].as_array().unwrap().iter().filter(|d| d["severity"] == "error").collect();
    assert!(errors.iter().any(|d| d["line"] == line), "an error at line {line}: {result}");
    // The built-in syntax check answers beside it, unchanged.
    assert!(result["diagnostics"]["syntax_errors"].is_array(), "{result}");
    let result = call(&toolkit, "edit_file", json!({"path": file, "old_string": broken, "new_string": fixed}));
    let answer = server(&result);
    assert_eq!(answer["state"], "fresh", "{result}");
    assert_eq!(answer["version"].as_i64(), Some(version + 1), "the second edit's own version: {result}");
    assert!(!answer["diagnostics"].as_array().unwrap().iter().any(|d| d["line"] == line && d["severity"] == "error"));
    assert_eq!(toolkit.language_servers_running(), 1);
}

#[test]
fn a_python_type_error_is_fresh_at_its_line() {
    an_error_is_fresh_at_its_line(
        "py",
        "pkg/util.py",
        "    return sum(items)\n",
        "    return sum(items)\n\n\nx: int = 'text'\n",
        5,
        "    return sum(items)\n\n\nx: int = 3\n",
    );
}

#[test]
fn a_typescript_type_error_is_fresh_at_its_line() {
    an_error_is_fresh_at_its_line(
        "ts",
        "src/shape.ts",
        "  area(): number { return 1; }\n}\n",
        "  area(): number { return 1; }\n}\nexport const n: number = 'x';\n",
        4,
        "  area(): number { return 1; }\n}\nexport const n: number = 2;\n",
    );
}

#[test]
fn a_rust_type_error_is_fresh_at_its_line() {
    an_error_is_fresh_at_its_line(
        "rs",
        "src/util.rs",
        "    items.iter().sum()\n}\n",
        "    items.iter().sum()\n}\n\npub fn broken() -> i32 { \"text\" }\n",
        5,
        "    items.iter().sum()\n}\n\npub fn broken() -> i32 { 3 }\n",
    );
}

/// Every write path gets the field: write_file (create), apply_patch, and a snippet-free
/// multi-edit; a file of a kind no server is run for gets none.
#[test]
fn every_write_path_gets_server_diagnostics() {
    let (_temp, root) = fixture("py");
    let toolkit = Toolkit::open(&root, hook_on(servers_path(&[]))).unwrap();
    let created = call(&toolkit, "write_file", json!({"path": "pkg/new.py", "content": "y: str = 1\n"}));
    assert_eq!(server(&created)["state"], "fresh", "{created}");
    assert!(server(&created)["diagnostics"].as_array().unwrap().iter().any(|d| d["line"] == 1), "{created}");
    let patch = "--- a/pkg/new.py\n+++ b/pkg/new.py\n@@ -1 +1 @@\n-y: str = 1\n+y: str = 'one'\n";
    let patched = call(&toolkit, "apply_patch", json!({"patch": patch}));
    let file = &patched["files"][0];
    assert_eq!(file["diagnostics"]["server_diagnostics"]["state"], "fresh", "{patched}");
    assert_eq!(file["diagnostics"]["server_diagnostics"]["diagnostics"], json!([]), "{patched}");
    // replace_function and editor_store carry no `diagnostics`: theirs is at the top.
    let fresh_at = |result: &Value, line: u64| {
        let answer = &result["server_diagnostics"];
        assert_eq!(answer["state"], "fresh", "{result}");
        assert!(answer["diagnostics"].as_array().unwrap().iter().any(|d| d["line"] == line), "line {line}: {result}");
    };
    let replaced = call(
        &toolkit,
        "replace_function",
        json!({"path": "pkg/util.py", "function_name": "compute_total", "new_implementation": "def compute_total(items: list[int]) -> int:\n    return 'text'\n"}),
    );
    fresh_at(&replaced, 2);
    let inserted = call(&toolkit, "insert_lines", json!({"path": "pkg/new.py", "line": 0, "text": "z: int = 'z'"}));
    let answer = &inserted["diagnostics"]["server_diagnostics"];
    assert_eq!(answer["state"], "fresh", "{inserted}");
    assert!(answer["diagnostics"].as_array().unwrap().iter().any(|d| d["line"] == 1), "{inserted}");
    let loaded = call(&toolkit, "editor_load", json!({"path": "pkg/new.py"}));
    let session = loaded["session_id"].as_str().expect("a session").to_owned();
    call(
        &toolkit,
        "editor_edit",
        json!({"session_id": session, "old_string": "z: int = 'z'", "new_string": "z: int = 0"}),
    );
    let stored = call(&toolkit, "editor_store", json!({"session_id": session}));
    assert_eq!(stored["server_diagnostics"]["state"], "fresh", "an editor's save: {stored}");
    let notes = call(&toolkit, "write_file", json!({"path": "notes.md", "content": "# notes\n"}));
    assert!(server(&notes).is_null(), "no server for Markdown: {notes}");
}

/// With the hook off (the toolkit's default) the field is absent and no server starts.
#[test]
fn with_the_hook_off_the_field_is_absent_and_no_server_starts() {
    let (_temp, root) = fixture("py");
    let mut options = hook_on(servers_path(&[]));
    options.language_servers.after_writes = false;
    let toolkit = Toolkit::open(&root, options).unwrap();
    let result = call(
        &toolkit,
        "edit_file",
        json!({"path": "pkg/util.py", "old_string": "sum(items)", "new_string": "sum(items) + 'x'"}),
    );
    assert!(server(&result).is_null(), "{result}");
    assert!(result["diagnostics"].get("server_diagnostics").is_none(), "{result}");
    assert_eq!(toolkit.language_servers_running(), 0);
    assert!(!ToolkitOptions::default().language_servers.after_writes, "off by default");
}

/// A server that cannot start never fails the write: the state is `unavailable`, naming
/// what to install, and the file holds the new text.
#[test]
fn no_server_on_path_is_unavailable_and_the_write_lands() {
    let (_temp, root) = fixture("py");
    let empty = tempfile::tempdir().unwrap();
    let toolkit = Toolkit::open(&root, hook_on(empty.path().as_os_str().to_owned())).unwrap();
    let result =
        call(&toolkit, "edit_file", json!({"path": "pkg/util.py", "old_string": "sum(items)", "new_string": "0"}));
    let answer = server(&result);
    assert_eq!(answer["state"], "unavailable", "{result}");
    assert!(answer["install"].as_str().is_some_and(|how| how.contains("basedpyright")), "{result}");
    assert!(std::fs::read_to_string(root.join("pkg/util.py")).unwrap().contains("return 0"));
}

/// A server made slow (a proxy holding back all it writes after the first change) gives
/// `timed_out` in the edit's result, never an empty success.
#[test]
fn a_slow_server_gives_timed_out_in_the_edit_result() {
    let (temp, root) = fixture("py");
    let bin = temp.path().canonicalize().unwrap().join("slow-bin");
    std::fs::create_dir(&bin).unwrap();
    std::fs::copy(repo().join("fixtures/lsp/slow/slow-proxy"), bin.join("basedpyright-langserver")).unwrap();
    let real = repo().join("target/lsp-tools/venv/bin/basedpyright-langserver");
    std::fs::write(bin.join("proxy.json"), json!({"real": real, "delay": 10}).to_string()).unwrap();
    let mut options = hook_on(servers_path(&[&bin]));
    let wait = Duration::from_millis(1_000);
    options.language_servers.diagnostics_wait.python = wait;
    let toolkit = Toolkit::open(&root, options).unwrap();
    // The first write opens the file (nothing held back yet); the second changes it.
    let _ = call(
        &toolkit,
        "edit_file",
        json!({"path": "pkg/util.py", "old_string": "sum(items)", "new_string": "sum(items) + 0"}),
    );
    let result = call(
        &toolkit,
        "edit_file",
        json!({"path": "pkg/util.py", "old_string": "sum(items) + 0", "new_string": "sum(items) + 'x'"}),
    );
    let answer = server(&result);
    assert_eq!(answer["state"], "timed_out", "{result}");
    assert_eq!(answer["limit_ms"], 1_000, "{result}");
    assert!(answer["waited_ms"].as_u64().is_some_and(|waited| waited >= 1_000), "{result}");
}

/// The fixture `py` with the stand-in server in `mode` first on PATH, and hook-on options
/// whose Python diagnostics wait is `wait`.
fn stand_in(mode: &str, wait: Duration) -> (tempfile::TempDir, PathBuf, ToolkitOptions) {
    let (temp, root) = fixture("py");
    let bin = temp.path().canonicalize().unwrap().join("stand-in-bin");
    std::fs::create_dir(&bin).unwrap();
    std::fs::copy(repo().join("fixtures/lsp/stand-in/basedpyright-langserver"), bin.join("basedpyright-langserver"))
        .unwrap();
    std::fs::write(bin.join("mode"), mode).unwrap();
    let mut options = hook_on(servers_path(&[&bin]));
    options.language_servers.diagnostics_wait.python = wait;
    (temp, root, options)
}

/// A patch adding `count` Python files, `f<n>.py` holding `N<n> = 1`.
fn adding(count: usize) -> String {
    let mut patch = "*** Begin Patch\n".to_owned();
    for n in 0..count {
        patch.push_str(&format!("*** Add File: f{n}.py\n+N{n} = 1\n"));
    }
    patch.push_str("*** End Patch\n");
    patch
}

/// F7: a multi-file write sends every text first, then waits once: a server that publishes
/// only once it has all of them (the stand-in's `batch`) answers each; past MAX_HOOK_FILES
/// files the rest are `unavailable`, naming the bound.
#[test]
fn a_patch_sends_every_file_first_then_waits_once_and_asks_at_most_max_hook_files() {
    assert_eq!(editkit::MAX_HOOK_FILES, 16, "the stand-in's `batch` publishes once 16 are open");
    let (_temp, root, options) = stand_in("batch", Duration::from_secs(60));
    let toolkit = Toolkit::open(&root, options).unwrap();
    let patched = call(&toolkit, "apply_patch", json!({"patch": adding(editkit::MAX_HOOK_FILES + 4)}));
    let files = patched["files"].as_array().unwrap();
    let states: Vec<&Value> = files.iter().map(|file| &file["diagnostics"]["server_diagnostics"]).collect();
    let fresh: Vec<&&Value> = states.iter().filter(|state| state["state"] == "fresh").collect();
    assert_eq!(fresh.len(), editkit::MAX_HOOK_FILES, "{patched}");
    for state in &fresh {
        let message = state["diagnostics"][0]["message"].as_str().unwrap();
        assert!(message.starts_with("for text: N"), "{state}");
    }
    let rest: Vec<&&Value> = states.iter().filter(|state| state["state"] != "fresh").collect();
    assert_eq!(rest.len(), 4, "{patched}");
    for state in rest {
        assert_eq!(state["state"], "unavailable", "{state}");
        assert!(state["reason"].as_str().unwrap().contains("MAX_HOOK_FILES"), "{state}");
    }
    assert!(root.join("f19.py").exists(), "every file was written");
}

/// F7: a server slow to start does not hold the write past its wait: the answer is
/// `unavailable` ("starting"), the write lands, and a later write finds the server up.
#[test]
fn a_server_still_starting_answers_starting_and_a_later_write_finds_it() {
    let (_temp, root, options) = stand_in("gate", Duration::from_millis(500));
    std::fs::write(root.join(".gate"), "").unwrap();
    let toolkit = Toolkit::open(&root, options).unwrap();
    let result = call(&toolkit, "write_file", json!({"path": "a.py", "content": "A = 1\n"}));
    let answer = server(&result);
    assert_eq!(answer["state"], "unavailable", "{result}");
    assert!(answer["reason"].as_str().unwrap().starts_with("starting"), "{result}");
    assert!(answer.get("install").is_none(), "nothing to install for a server starting: {result}");
    assert_eq!(std::fs::read_to_string(root.join("a.py")).unwrap(), "A = 1\n");
    std::fs::remove_file(root.join(".gate")).unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while toolkit.language_servers_running() == 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(toolkit.language_servers_running(), 1, "the start went on after the write answered");
    let result = call(&toolkit, "write_file", json!({"path": "a.py", "content": "A = 2\n"}));
    assert_ne!(server(&result)["state"], "unavailable", "{result}");
}

/// F7: a failed start is remembered: the next write gets the failure again at once, naming
/// the back-off, instead of starting the server again.
#[test]
fn a_failed_start_is_not_tried_again_by_every_write() {
    let (_temp, root, options) = stand_in("die", Duration::from_secs(30));
    let toolkit = Toolkit::open(&root, options).unwrap();
    let first = call(&toolkit, "write_file", json!({"path": "a.py", "content": "A = 1\n"}));
    assert_eq!(server(&first)["state"], "unavailable", "{first}");
    let second = call(&toolkit, "write_file", json!({"path": "a.py", "content": "A = 2\n"}));
    assert_eq!(server(&second)["state"], "unavailable", "{second}");
    assert!(server(&second)["reason"].as_str().unwrap().contains("START_BACKOFF"), "{second}");
    assert_eq!(std::fs::read_to_string(root.join("a.py")).unwrap(), "A = 2\n");
}

/// F8: the server is told the text as finally written (a formatter's output), never the
/// text given before formatting.
#[test]
fn the_server_gets_the_formatted_text_as_written() {
    let (_temp, root, mut options) = stand_in("echo", Duration::from_secs(60));
    let mut formatting = editkit::analyze::FormatOptions { enabled: true, ..Default::default() };
    formatting
        .formatters
        .insert("py".into(), vec![editkit::analyze::ExternalTool::new("sed", &["sed", "s/BEFORE/AFTER/"])]);
    options.formatting = formatting;
    let toolkit = Toolkit::open(&root, options).unwrap();
    let result = call(&toolkit, "write_file", json!({"path": "a.py", "content": "BEFORE = 1\n"}));
    assert_eq!(std::fs::read_to_string(root.join("a.py")).unwrap(), "AFTER = 1\n");
    let answer = server(&result);
    assert_eq!(answer["state"], "fresh", "{result}");
    assert_eq!(answer["diagnostics"][0]["message"], "for text: AFTER = 1", "{result}");
}

/// F8: a write that fails tells the server nothing (none is even started).
#[test]
fn a_failed_write_tells_the_server_nothing() {
    let (_temp, root, options) = stand_in("echo", Duration::from_secs(60));
    let toolkit = Toolkit::open(&root, options).unwrap();
    let big = format!("X = 1\n{}", "# pad\n".repeat(200_000));
    let refused = editkit::tools::call(
        &toolkit,
        "write_file",
        json!({"path": "pkg/util.py", "content": big, "expected_hash": "0".repeat(64)}),
    );
    assert!(refused.get("error").is_some(), "{refused}");
    let patch = "*** Begin Patch\n*** Update File: pkg/util.py\n-no such line\n+X = 2\n*** End Patch\n";
    let refused = editkit::tools::call(&toolkit, "apply_patch", json!({"patch": patch}));
    assert!(refused.get("error").is_some(), "{refused}");
    assert_eq!(toolkit.language_servers_running(), 0, "no server was told of a write that failed");
}

/// F16: the server diagnostics in one write's result are bounded per file
/// (MAX_HOOK_DIAGNOSTICS) and per call (MAX_HOOK_DIAGNOSTIC_BYTES); what passes is counted.
#[test]
fn server_diagnostics_in_a_write_result_are_bounded_per_file_and_per_call() {
    let (_temp, root, options) = stand_in("many", Duration::from_secs(60));
    let toolkit = Toolkit::open(&root, options).unwrap();
    let patched = call(&toolkit, "apply_patch", json!({"patch": adding(editkit::MAX_HOOK_FILES)}));
    let mut bytes = 0;
    for file in patched["files"].as_array().unwrap() {
        let answer = &file["diagnostics"]["server_diagnostics"];
        assert_eq!(answer["state"], "fresh", "{answer}");
        let shown = answer["diagnostics"].as_array().unwrap();
        assert!(shown.len() <= editkit::MAX_HOOK_DIAGNOSTICS, "{}", shown.len());
        assert_eq!(shown.len() + answer["omitted"].as_u64().unwrap() as usize, 300, "each one counted");
        bytes += shown.iter().map(|d| d["message"].as_str().unwrap().len()).sum::<usize>();
    }
    assert!(bytes <= editkit::MAX_HOOK_DIAGNOSTIC_BYTES, "{bytes}");
    assert!(bytes > 0);
}
