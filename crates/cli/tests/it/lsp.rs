//! The code-intel tools through the `editkit` binary with the real language servers
//! `cargo xtask lsp-tools` installs: a rename through `editkit call`, its exit codes, and
//! SIGKILL at random moments of a real-server rename (then `editkit recover`: every file all
//! old or all new). A missing server fails the tests.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::{editkit, json_lines, repo_root, root_arg, servers_path};

/// How many SIGKILL trials (`EDITKIT_LSP_CRASH_TRIALS` for more).
const TRIALS: usize = 30;

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// A fresh copy of `fixtures/lsp/<name>` at `to`.
fn copy_fixture(name: &str, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    copy_tree(&repo_root().join("fixtures/lsp").join(name), to);
}

fn snapshot(root: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                files.insert(rel, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    files
}

/// `editkit call ARGS` with the servers on PATH, a private TMPDIR and state folder.
fn call(root: &Path, state: &Path, tmp: &Path, lines: &[Value], jsonl: bool) -> std::process::Output {
    let mut command = editkit();
    command.args(["call", "--root", &root_arg(root), "--state-dir", &root_arg(state)]);
    if jsonl {
        command.arg("--jsonl");
    }
    let mut child = command
        .env("PATH", servers_path())
        .env("TMPDIR", tmp)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = String::new();
    for line in lines {
        input.push_str(&line.to_string());
        input.push('\n');
    }
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

const RENAME: &str = r#"{"tool": "rename_symbol", "args": {"path": "pkg/util.py", "line": 1, "symbol": "compute_total", "new_name": "sum_items"}}"#;

#[test]
fn editkit_call_renames_a_python_function_in_six_files_and_undoes_it() {
    let (tmp, state, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = work.path().join("py");
    copy_fixture("py", &root);
    let before = snapshot(&root);
    let rename: Value = serde_json::from_str(RENAME).unwrap();
    let mut dry = rename.clone();
    dry["args"]["dry_run"] = json!(true);
    let output = call(&root, state.path(), tmp.path(), &[dry], false);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let preview = &json_lines(&output)[0];
    assert_eq!(preview["files"].as_array().unwrap().len(), 6, "{preview:#}");
    assert_eq!(snapshot(&root), before);

    let mut with_plan = rename.clone();
    with_plan["args"]["plan"] = preview["plan"].clone();
    let output = call(&root, state.path(), tmp.path(), &[with_plan], false);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let renamed: BTreeMap<String, String> =
        before.iter().map(|(path, text)| (path.clone(), text.replace("compute_total", "sum_items"))).collect();
    assert_eq!(snapshot(&root), renamed);

    let output = call(&root, state.path(), tmp.path(), &[json!({"tool": "undo_patch", "args": {}})], false);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(snapshot(&root), before);
}

#[test]
fn no_server_on_path_is_unavailable_with_exit_code_1() {
    let work = tempfile::tempdir().unwrap();
    let root = work.path().join("py");
    copy_fixture("py", &root);
    let output = editkit()
        .args(["call", "--root", &root_arg(&root)])
        .env("PATH", "/nonexistent-editkit-bin")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().unwrap().write_all(RENAME.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let answer = &json_lines(&output)[0];
    assert_eq!(answer["error"]["kind"], "unavailable", "{answer:#}");
    assert!(answer["error"]["message"].as_str().unwrap().contains("pip install basedpyright"), "{answer:#}");
}

/// A `call --jsonl` child that warms the server with a find_references, then renames.
/// A real-server rename of one fixture: the request that warms the server (answered before
/// the rename is sent) and the rename.
struct Story {
    fixture: &'static str,
    warm: &'static str,
    rename: &'static str,
}

const PYTHON: Story = Story {
    fixture: "py",
    warm: r#"{"tool": "find_references", "args": {"path": "pkg/util.py", "line": 1, "symbol": "compute_total"}}"#,
    rename: RENAME,
};

const TYPESCRIPT: Story = Story {
    fixture: "ts",
    warm: r#"{"tool": "find_references", "args": {"path": "src/shape.ts", "symbol": "Shape/area"}}"#,
    rename: r#"{"tool": "rename_symbol", "args": {"path": "src/shape.ts", "symbol": "Shape/area", "new_name": "size"}}"#,
};

const RUST: Story = Story {
    fixture: "rs",
    warm: r#"{"tool": "find_references", "args": {"path": "src/util.rs", "line": 1, "column": 10}}"#,
    rename: r#"{"tool": "rename_symbol", "args": {"path": "src/util.rs", "line": 1, "column": 10, "new_name": "add_up"}}"#,
};

fn spawn_renamer(
    story: &Story,
    root: &Path,
    state: &Path,
    tmp: &Path,
) -> (Child, BufReader<std::process::ChildStdout>) {
    let mut child = editkit()
        .args(["call", "--jsonl", "--root", &root_arg(root), "--state-dir", &root_arg(state)])
        .env("PATH", servers_path())
        .env("TMPDIR", tmp)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(format!("{}\n{}\n", story.warm, story.rename).as_bytes()).unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    (child, stdout)
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn sigkill_during_a_real_server_rename_leaves_every_file_all_old_or_all_new() {
    crash_trials(&PYTHON, TRIALS);
}

#[test]
fn sigkill_during_a_typescript_rename_leaves_every_file_all_old_or_all_new() {
    crash_trials(&TYPESCRIPT, TRIALS / 3);
}

#[test]
fn sigkill_during_a_rust_rename_leaves_every_file_all_old_or_all_new() {
    crash_trials(&RUST, TRIALS / 3);
}

/// SIGKILL at random moments of `story`'s rename (a fresh `editkit call` and server each
/// trial, warmed first), then `editkit recover`: the tree is all old or all new, never mixed.
/// "All new" is what an uninterrupted run leaves.
fn crash_trials(story: &Story, default_trials: usize) {
    let trials: usize =
        std::env::var("EDITKIT_LSP_CRASH_TRIALS").ok().and_then(|n| n.parse().ok()).unwrap_or(default_trials);
    let (tmp, state, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root: PathBuf = work.path().join(story.fixture);
    copy_fixture(story.fixture, &root);
    let old = snapshot(&root);
    // An uninterrupted run: what the rename leaves, and how long it takes once the server is warm.
    let (mut child, mut stdout) = spawn_renamer(story, &root, state.path(), tmp.path());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&line).unwrap()["ok"], true, "the warm-up: {line}");
    let warm_at = Instant::now();
    line.clear();
    stdout.read_line(&mut line).unwrap();
    let rename_time = warm_at.elapsed();
    assert!(child.wait().unwrap().success());
    let answer: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(answer["ok"], true, "{line}");
    let new = snapshot(&root);
    let changed = old.iter().filter(|(path, text)| new.get(*path) != Some(*text)).count();
    assert!(changed >= 2, "the rename changes several files: {line}");

    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
    let mut rng = Rng(seed);
    let (mut old_count, mut new_count, mut rolled_back) = (0usize, 0usize, 0usize);
    let window = rename_time.as_micros() as u64 * 6 / 5 + 1;
    for trial in 0..trials {
        copy_fixture(story.fixture, &root);
        let (mut child, mut stdout) = spawn_renamer(story, &root, state.path(), tmp.path());
        let mut first = String::new();
        stdout.read_line(&mut first).unwrap();
        // Half the kills fall in the first eighth of the call, where the commit is (the
        // post-write checks of the files take most of the rest).
        let window = if trial % 2 == 0 { window } else { window / 8 + 1 };
        std::thread::sleep(Duration::from_micros(rng.next() % window));
        // SIGKILL on Unix.
        let _ = child.kill();
        let _ = child.wait();
        let recover = editkit()
            .args(["recover", "--root", &root_arg(&root), "--state-dir", &root_arg(state.path())])
            .output()
            .unwrap();
        assert!(recover.status.success(), "{}", String::from_utf8_lossy(&recover.stderr));
        if !String::from_utf8_lossy(&recover.stdout).contains("nothing to recover") {
            rolled_back += 1;
        }
        let now = snapshot(&root);
        if now == old {
            old_count += 1;
        } else if now == new {
            new_count += 1;
        } else {
            panic!("{} trial {trial} (seed {seed}): a mixed tree: {now:?}", story.fixture);
        }
    }
    eprintln!(
        "real-server rename crash test ({}): {trials} SIGKILL trials (seed {seed}, warm rename {rename_time:?}): \
         {old_count} all old, {new_count} all new, {rolled_back} rolled back by recover",
        story.fixture
    );
    assert_eq!(old_count + new_count, trials);
}

/// Writes `text` at `root/relative`, executable when `executable`.
fn plant(root: &Path, relative: &str, text: &str, executable: bool) {
    use std::os::unix::fs::PermissionsExt as _;
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    if executable {
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// Every `MARK-*` file beneath `dir`.
fn markers(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                stack.push(entry.path());
            } else if entry.file_name().to_string_lossy().starts_with("MARK-") {
                found.push(entry.path());
            }
        }
    }
    found
}

/// The servers, interpreters, tsserver and plugin a repository plants, first on the PATH
/// editkit is given: through `editkit call`, none runs, and the real servers answer.
#[test]
fn editkit_call_runs_no_server_the_repository_plants() {
    let (tmp, state, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let outside = work.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let root = work.path().join("repo");
    copy_fixture("ts", &root);
    copy_tree(&repo_root().join("fixtures/lsp/py"), &root);
    let script = |name: &str| {
        format!(
            "#!/bin/sh\necho ran > \"$TMPDIR/MARK-{name}\"\necho ran > \"{}/MARK-{name}\"\nexit 1\n",
            outside.display()
        )
    };
    let module = |name: &str| {
        format!(
            "const fs = require('fs');\nfor (const d of [process.env.TMPDIR, {:?}]) {{ try {{ fs.writeFileSync(d + '/MARK-{name}', 'ran'); }} catch (e) {{}} }}\n",
            outside.display().to_string()
        )
    };
    for name in ["typescript-language-server", "tsserver"] {
        plant(&root, &format!("node_modules/.bin/{name}"), &script(name), true);
    }
    plant(&root, "node_modules/typescript/package.json", r#"{"name": "typescript", "version": "6.0.3"}"#, false);
    plant(&root, "node_modules/typescript/lib/tsserver.js", &module("tsserver-js"), false);
    plant(&root, "node_modules/evil-plugin/package.json", r#"{"name": "evil-plugin", "main": "index.js"}"#, false);
    plant(&root, "node_modules/evil-plugin/index.js", &module("plugin"), false);
    plant(
        &root,
        "tsconfig.json",
        r#"{ "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext", "plugins": [{ "name": "evil-plugin" }] }, "include": ["src"] }"#,
        false,
    );
    for name in ["python", "python3", "pyright-langserver", "basedpyright-langserver"] {
        plant(&root, &format!(".venv/bin/{name}"), &script(name), true);
    }
    // The planted programs work when run: the marker check below can fail.
    let control = std::process::Command::new(root.join(".venv/bin/python")).env("TMPDIR", tmp.path()).status().unwrap();
    assert!(!control.success());
    assert_eq!(markers(&outside).len(), 1);
    std::fs::remove_file(outside.join("MARK-python")).unwrap();
    std::fs::remove_file(tmp.path().join("MARK-python")).unwrap();

    let mut path = vec![root.join("node_modules/.bin"), root.join(".venv/bin")];
    path.extend(std::env::split_paths(&servers_path()));
    let calls = [
        json!({"tool": "find_references", "args": {"path": "src/shape.ts", "symbol": "Shape/area"}}),
        json!({"tool": "find_references", "args": {"path": "pkg/util.py", "line": 1, "symbol": "compute_total"}}),
        json!({"tool": "diagnostics", "args": {"path": "src/use1.ts", "wait_ms": 30000}}),
    ];
    let mut input = String::new();
    for line in &calls {
        input.push_str(&line.to_string());
        input.push('\n');
    }
    let mut child = editkit()
        .args(["call", "--jsonl", "--root", &root_arg(&root), "--state-dir", &root_arg(state.path())])
        .env("PATH", std::env::join_paths(path).unwrap())
        .env("TMPDIR", tmp.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    let answers = json_lines(&output);
    assert_eq!(answers[0]["total"], 5, "the real TypeScript server answered: {:#}", answers[0]);
    assert_eq!(answers[1]["total"], 10, "the real Python server answered: {:#}", answers[1]);
    assert_eq!(answers[2]["files"][0]["server"]["state"], "fresh", "{:#}", answers[2]);
    assert_eq!(markers(&outside), Vec::<PathBuf>::new());
    assert_eq!(markers(tmp.path()), Vec::<PathBuf>::new());
    assert_eq!(markers(&root), Vec::<PathBuf>::new());
}
