//! Everything in the workspace is hostile, and so is every program found through a PATH entry
//! that leads into it: checkers and formatters must not run code the repository ships, nor read
//! or write outside the root on its behalf. Each attack is checked against a sentinel folder
//! outside the root (bytes, mtime, link count and entries) and against the root itself.
//!
//! The real tools come from `tests/tools/setup.sh` (ruff and black from PyPI, prettier from
//! npm, under `target/test-tools`, or `$EDITKIT_TEST_TOOLS`); rustfmt and python3 from PATH.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::SystemTime;

use editkit_analyze::{Diagnostics, DiagnosticsMode, DiagnosticsOptions, ExternalTool, FormatOptions, FormatReport};

// ---------------------------------------------------------------------------------------------
// The API under test, in one place.

fn check(root: &Path, rel: &str, source: &str, options: &DiagnosticsOptions) -> Diagnostics {
    editkit_analyze::diagnose(&[root], rel, source, options)
}

fn format(root: &Path, rel: &str, source: &str, options: &FormatOptions) -> FormatReport {
    editkit_analyze::format_source(&[root], rel, source, options)
}

fn formatted_text(_root: &Path, _rel: &str, report: &FormatReport) -> String {
    report.formatted.clone().unwrap_or_else(|| panic!("nothing was formatted: {report:?}"))
}

// ---------------------------------------------------------------------------------------------
// Fixtures

/// A fresh base folder holding the workspace `root/` and the sentinel folder `outside/`.
pub(crate) struct Scene {
    _base: tempfile::TempDir,
    pub(crate) root: PathBuf,
    pub(crate) outside: PathBuf,
    before_outside: Snapshot,
}

type Snapshot = BTreeMap<PathBuf, (Vec<u8>, Option<SystemTime>, u64, String)>;

fn snapshot(dir: &Path) -> Snapshot {
    fn walk(dir: &Path, into: &mut Snapshot) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|entry| entry.unwrap().path()).collect();
        entries.sort();
        for path in entries {
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let kind = if meta.is_symlink() {
                format!("link -> {}", std::fs::read_link(&path).unwrap().display())
            } else if meta.is_dir() {
                "dir".to_owned()
            } else {
                "file".to_owned()
            };
            let bytes = if meta.is_file() { std::fs::read(&path).unwrap() } else { Vec::new() };
            into.insert(
                path.clone(),
                (bytes, meta.modified().ok(), std::os::unix::fs::MetadataExt::nlink(&meta), kind),
            );
            if meta.is_dir() {
                walk(&path, into);
            }
        }
    }
    let mut snapshot = Snapshot::new();
    walk(dir, &mut snapshot);
    snapshot
}

impl Scene {
    pub(crate) fn new() -> Scene {
        let base = tempfile::tempdir().unwrap();
        let root = base.path().join("root");
        let outside = base.path().join("outside");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(outside.join("cache")).unwrap();
        std::fs::write(outside.join("secret.toml"), "SECRET_TOKEN = \"hunter2-outside\"\n").unwrap();
        std::fs::write(outside.join("outside.rs"), "fn   outside( ) { }\n").unwrap();
        let before_outside = snapshot(&outside);
        Scene { _base: base, root, outside, before_outside }
    }

    /// Writes a file under the root (parents created).
    pub(crate) fn put(&self, rel: &str, content: &str) -> PathBuf {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        path
    }

    /// Plants an executable under the root that, when it runs, leaves `outside/pwned-<tag>`
    /// (unless Landlock stops it) and prints `PLANTED-<tag>-RAN` (which Landlock does not stop).
    pub(crate) fn plant(&self, rel: &str, tag: &str) {
        let script =
            format!("#!/bin/sh\necho ran > '{}/pwned-{tag}'\necho PLANTED-{tag}-RAN\nexit 1\n", self.outside.display());
        let path = self.put(rel, &script);
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }

    pub(crate) fn root_snapshot(&self) -> Snapshot {
        snapshot(&self.root)
    }

    /// The sentinel folder is byte for byte, mtime and link count what it was.
    pub(crate) fn assert_outside_untouched(&self, attack: &str) {
        let now = snapshot(&self.outside);
        assert!(
            now == self.before_outside,
            "{attack}: the folder outside the root changed: now {:#?}",
            now.iter().map(|(path, (bytes, _, nlink, kind))| (path, bytes.len(), nlink, kind)).collect::<Vec<_>>()
        );
    }
}

/// Asserts nothing under the root was added, removed or changed since `before`.
pub(crate) fn assert_root_unchanged(scene: &Scene, before: &Snapshot, attack: &str) {
    let now = scene.root_snapshot();
    let added: Vec<_> = now.keys().filter(|path| !before.contains_key(*path)).collect();
    let removed: Vec<_> = before.keys().filter(|path| !now.contains_key(*path)).collect();
    let changed: Vec<_> =
        now.iter().filter(|(path, entry)| before.get(*path).is_some_and(|old| old != *entry)).map(|(p, _)| p).collect();
    assert!(
        added.is_empty() && removed.is_empty() && changed.is_empty(),
        "{attack}: the workspace changed: added {added:?}, removed {removed:?}, changed {changed:?}"
    );
}

/// Where the real tools are: installed by `tests/tools/setup.sh`, which `cargo xtask ci` and
/// `.ci/run` run first (the tests never reach a registry themselves).
pub(crate) struct RealTools {
    venv_bin: PathBuf,
    npm_bin: PathBuf,
}

pub(crate) fn real_tools() -> &'static RealTools {
    static TOOLS: OnceLock<RealTools> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let dir = std::env::var_os("EDITKIT_TEST_TOOLS")
            .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/test-tools"), PathBuf::from);
        let tools = RealTools { venv_bin: dir.join("venv/bin"), npm_bin: dir.join("npm/bin") };
        let missing: Vec<&str> = [("ruff", tools.venv_bin.join("ruff")), ("black", tools.venv_bin.join("black"))]
            .into_iter()
            .chain([("prettier", tools.npm_bin.join("prettier"))])
            .filter(|(_, path)| !path.exists())
            .map(|(name, _)| name)
            .collect();
        assert!(
            missing.is_empty(),
            "these tests run the real {} from {}, which is not installed there; install ruff and black (PyPI) and \
             prettier (npm) with `bash crates/analyze/tests/tools/setup.sh` (cargo xtask ci runs it)",
            missing.join(", "),
            dir.display()
        );
        tools
    })
}

impl RealTools {
    pub(crate) fn ruff(&self) -> String {
        self.venv_bin.join("ruff").to_string_lossy().into_owned()
    }
    pub(crate) fn black(&self) -> String {
        self.venv_bin.join("black").to_string_lossy().into_owned()
    }
    pub(crate) fn prettier(&self) -> String {
        self.npm_bin.join("prettier").to_string_lossy().into_owned()
    }
}

/// A program from this process's PATH, or a failure saying how to get it.
pub(crate) fn on_path(name: &str, how: &str) -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
        .map(|found| found.to_string_lossy().into_owned())
        .unwrap_or_else(|| panic!("`{name}` is not on PATH; {how}"))
}

/// The default tool named `name` for `extension`, with its program replaced by `program`
/// (an absolute path: the documented way to name a program that is not on PATH).
fn default_tool(
    tools: &BTreeMap<String, Vec<ExternalTool>>,
    extension: &str,
    name: &str,
    program: &str,
) -> ExternalTool {
    let mut tool = tools
        .get(extension)
        .and_then(|tools| tools.iter().find(|tool| tool.name == name))
        .unwrap_or_else(|| panic!("no default `{name}` tool for .{extension}"))
        .clone();
    tool.argv[0] = program.to_owned();
    tool
}

fn diagnostics_with(extension: &str, tools: Vec<ExternalTool>) -> DiagnosticsOptions {
    DiagnosticsOptions {
        mode: DiagnosticsMode::On,
        checkers: BTreeMap::from([(extension.to_owned(), tools)]),
        ..Default::default()
    }
}

fn formatting_with(extension: &str, tools: Vec<ExternalTool>) -> FormatOptions {
    FormatOptions { enabled: true, formatters: BTreeMap::from([(extension.to_owned(), tools)]), ..Default::default() }
}

/// The default Python checkers minus ruff, so the interpreter check is the one that runs.
fn python_checker_only() -> DiagnosticsOptions {
    let mut options = DiagnosticsOptions { mode: DiagnosticsMode::On, ..Default::default() };
    for extension in ["py", "pyi"] {
        if let Some(tools) = options.checkers.get_mut(extension) {
            tools.retain(|tool| tool.name != "ruff");
        }
    }
    options
}

// ---------------------------------------------------------------------------------------------
// Attack 1: code execution

#[test]
fn a_py_compile_shipped_beside_the_file_does_not_run() {
    let scene = Scene::new();
    let sentinel = scene.outside.join("pwned-py_compile");
    scene.put(
        "pkg/py_compile.py",
        &format!("open({:?}, 'w').write('ran')\nimport sys\nsys.exit(0)\n", sentinel.display().to_string()),
    );
    let source = "def f(:\n    pass\n";
    scene.put("pkg/a.py", source);
    let before = scene.root_snapshot();
    let found = check(&scene.root, "pkg/a.py", source, &python_checker_only());
    scene.assert_outside_untouched("py_compile.py beside the file");
    assert_root_unchanged(&scene, &before, "python check");
    let checker = found.checker.clone().unwrap_or_else(|| panic!("the python check did not run: {found:?}"));
    assert!(!checker.ok, "the syntax error was not reported: {checker:?}");
    assert!(checker.output.contains("pkg/a.py") && checker.output.contains("line 1"), "{}", checker.output);
}

#[test]
fn a_valid_python_file_passes_the_interpreter_check() {
    let scene = Scene::new();
    let source = "# -*- coding: utf-8 -*-\ndef f():\n    return 'é'\n";
    scene.put("a.py", source);
    let found = check(&scene.root, "a.py", source, &python_checker_only());
    let checker = found.checker.clone().unwrap_or_else(|| panic!("the python check did not run: {found:?}"));
    assert!(checker.ok, "{checker:?}");
}

/// Runs `path_child` in a fresh copy of this test binary with `PATH` set to `path` and the
/// root as working directory, like an editkit started inside the repository.
fn diagnose_in_child(scene: &Scene, path: &str) -> String {
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "hostile_tools::path_child", "--nocapture", "--test-threads=1"])
        .env("PATH", path)
        .env("EDITKIT_HOSTILE_ROOT", &scene.root)
        .current_dir(&scene.root)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "the child failed: {stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    stdout
}

/// Not a test on its own: `programs_planted_in_the_workspace_never_run` runs it in a child
/// process with a hostile PATH.
#[test]
#[ignore = "run by programs_planted_in_the_workspace_never_run with a hostile PATH"]
fn path_child() {
    let root = PathBuf::from(std::env::var_os("EDITKIT_HOSTILE_ROOT").expect("EDITKIT_HOSTILE_ROOT"));
    let source = "def f(:\n    pass\n";
    let found = check(&root, "a.py", source, &DiagnosticsOptions { mode: DiagnosticsMode::On, ..Default::default() });
    println!("CHILD-REPORT {found:?}");
    // The persistent Python worker of a long-lived process resolves its interpreter the same way.
    let cache = editkit_analyze::CheckCache::default();
    let worker = editkit_analyze::diagnose_cached(&[&root], "a.py", source, &python_checker_only(), &cache);
    println!("CHILD-WORKER {:?}", worker.checker);
}

#[test]
fn programs_planted_in_the_workspace_never_run() {
    let system_path = std::env::var("PATH").unwrap();
    on_path("python3", "install Python 3");
    for (entry, name) in [("", "empty"), (".", "dot"), ("bin", "relative"), ("{root}/bin", "inside")] {
        let scene = Scene::new();
        for tool in ["ruff", "python3"] {
            scene.plant(tool, &format!("{tool}-top"));
            scene.plant(&format!("bin/{tool}"), &format!("{tool}-bin"));
        }
        scene.put("a.py", "def f(:\n    pass\n");
        let entry = entry.replace("{root}", &scene.root.to_string_lossy());
        let before = scene.root_snapshot();
        let report = diagnose_in_child(&scene, &format!("{entry}:{system_path}"));
        scene.assert_outside_untouched(&format!("PATH with a {name} entry"));
        assert_root_unchanged(&scene, &before, &format!("PATH with a {name} entry"));
        assert!(report.contains("CHILD-REPORT"), "{report}");
        assert!(!report.contains("PLANTED"), "a planted program ran (PATH with a {name} entry): {report}");
        assert!(report.contains("ok: false"), "a real checker should have reported the error ({name}): {report}");
        let worker = report.split("CHILD-WORKER").nth(1).unwrap_or_default();
        assert!(
            worker.contains("tool: \"python\", ok: false"),
            "the worker should have reported the error ({name}): {report}"
        );
    }
}

#[test]
fn a_rust_toolchain_file_in_the_repository_does_not_pick_rustfmt() {
    let rustfmt = on_path("rustfmt", "run `rustup component add rustfmt`");
    let scene = Scene::new();
    scene.plant("evil-toolchain/bin/rustfmt", "rustfmt");
    scene.plant("evil-toolchain/bin/rustc", "rustc");
    scene.put("rust-toolchain.toml", &format!("[toolchain]\npath = \"{}/evil-toolchain\"\n", scene.root.display()));
    let source = "fn main( ) { }\n";
    scene.put("src/main.rs", source);
    let before = scene.root_snapshot();
    // Through rustup's proxy, as found on PATH, with the default argv.
    let report = format_in_child(&scene, "src/main.rs", source);
    scene.assert_outside_untouched("rust-toolchain.toml pointing into the repository");
    assert!(!report.contains("PLANTED"), "the repository's rustfmt ran: {report}");
    assert_root_unchanged(&scene, &before, "rustfmt");
    assert!(report.contains("fn main() {}"), "real rustfmt ({rustfmt}) should have formatted: {report}");
}

/// Runs `format_child` with the environment cargo gives tests minus `RUSTUP_TOOLCHAIN`, as a
/// user's shell would have it.
fn format_in_child(scene: &Scene, rel: &str, source: &str) -> String {
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "hostile_tools::format_child", "--nocapture", "--test-threads=1"])
        .env_remove("RUSTUP_TOOLCHAIN")
        .env("EDITKIT_HOSTILE_ROOT", &scene.root)
        .env("EDITKIT_HOSTILE_FILE", rel)
        .env("EDITKIT_HOSTILE_SOURCE", source)
        .current_dir(&scene.root)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "the child failed: {stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    stdout
}

/// Not a test on its own: run by `a_rust_toolchain_file_in_the_repository_does_not_pick_rustfmt`.
#[test]
#[ignore = "run by a_rust_toolchain_file_in_the_repository_does_not_pick_rustfmt"]
fn format_child() {
    let root = PathBuf::from(std::env::var_os("EDITKIT_HOSTILE_ROOT").expect("EDITKIT_HOSTILE_ROOT"));
    let rel = std::env::var("EDITKIT_HOSTILE_FILE").expect("EDITKIT_HOSTILE_FILE");
    let source = std::env::var("EDITKIT_HOSTILE_SOURCE").expect("EDITKIT_HOSTILE_SOURCE");
    let report = format(&root, &rel, &source, &FormatOptions { enabled: true, ..Default::default() });
    println!("CHILD-REPORT {report:?}");
    println!("FORMATTED {}", formatted_text(&root, &rel, &report));
}

// ---------------------------------------------------------------------------------------------
// Attack 2: writes and reads outside the root

#[test]
fn a_pycache_link_to_the_outside_gets_nothing_and_no_pycache_appears() {
    let scene = Scene::new();
    let source = "def f():\n    return 1\n";
    scene.put("pkg/a.py", source);
    std::os::unix::fs::symlink(scene.outside.join("cache"), scene.root.join("pkg/__pycache__")).unwrap();
    scene.put("plain/b.py", source);
    let before = scene.root_snapshot();
    let options = python_checker_only();
    let linked = check(&scene.root, "pkg/a.py", source, &options);
    let plain = check(&scene.root, "plain/b.py", source, &options);
    scene.assert_outside_untouched("__pycache__ link to the outside");
    assert_root_unchanged(&scene, &before, "python check");
    assert!(!scene.root.join("plain/__pycache__").exists());
    for found in [linked, plain] {
        assert!(found.checker.as_ref().is_some_and(|checker| checker.ok), "{found:?}");
    }
}

#[test]
fn rustfmt_does_not_follow_a_path_attribute_outside() {
    let rustfmt = on_path("rustfmt", "run `rustup component add rustfmt`");
    let scene = Scene::new();
    let source = format!("#[path = \"{}/outside.rs\"]\nmod x;\nfn main( ) {{ }}\n", scene.outside.display());
    scene.put("src/main.rs", &source);
    let before = scene.root_snapshot();
    let options =
        formatting_with("rs", vec![default_tool(&FormatOptions::default().formatters, "rs", "rustfmt", &rustfmt)]);
    let report = format(&scene.root, "src/main.rs", &source, &options);
    scene.assert_outside_untouched("#[path] module outside the root");
    let formatted = formatted_text(&scene.root, "src/main.rs", &report);
    assert!(formatted.contains("fn main() {}"), "{report:?}");
    assert_root_unchanged(&scene, &before, "formatting");
}

#[test]
fn ruff_does_not_read_an_outside_file_named_by_the_repository_config() {
    let tools = real_tools();
    let scene = Scene::new();
    scene.put("pyproject.toml", &format!("[tool.ruff]\nextend = \"{}/secret.toml\"\n", scene.outside.display()));
    scene.put("ruff.toml", &format!("extend = \"{}/secret.toml\"\n", scene.outside.display()));
    let source = "import os\n";
    scene.put("a.py", source);
    let before = scene.root_snapshot();
    let options = diagnostics_with(
        "py",
        vec![default_tool(&DiagnosticsOptions::default().checkers, "py", "ruff", &tools.ruff())],
    );
    let found = check(&scene.root, "a.py", source, &options);
    scene.assert_outside_untouched("ruff extend");
    assert_root_unchanged(&scene, &before, "ruff check");
    let checker = found.checker.clone().unwrap_or_else(|| panic!("ruff did not run: {found:?}"));
    assert!(!checker.output.contains("hunter2") && !checker.output.contains("SECRET"), "{}", checker.output);
    assert!(checker.output.contains("F401"), "ruff should report the unused import: {}", checker.output);
}

#[test]
fn black_ignores_the_repository_config() {
    let tools = real_tools();
    let scene = Scene::new();
    scene.put("pyproject.toml", "[tool.black]\nline-length = 20\nskip-string-normalization = true\n");
    let source = "x = {'alpha': 1, 'beta': 2, 'gamma': 3}\n";
    scene.put("a.py", source);
    let before = scene.root_snapshot();
    let options =
        formatting_with("py", vec![default_tool(&FormatOptions::default().formatters, "py", "black", &tools.black())]);
    let report = format(&scene.root, "a.py", source, &options);
    scene.assert_outside_untouched("black");
    assert_eq!(report.formatter.as_deref(), Some("black"), "{report:?}");
    assert_eq!(formatted_text(&scene.root, "a.py", &report), "x = {\"alpha\": 1, \"beta\": 2, \"gamma\": 3}\n");
    assert_root_unchanged(&scene, &before, "formatting");
}

#[test]
fn prettier_ignores_the_repository_config() {
    let tools = real_tools();
    let scene = Scene::new();
    scene.put(".prettierrc", "{\"semi\": false, \"singleQuote\": true, \"plugins\": [\"./evil.js\"]}\n");
    scene.put(
        "evil.js",
        &format!(
            "require('fs').writeFileSync({:?}, 'ran')\n",
            scene.outside.join("pwned-prettier").display().to_string()
        ),
    );
    scene.put(".prettierignore", "*\n");
    scene.put("src/.prettierignore", "*\n");
    scene.put(".editorconfig", "root = true\n[*]\nindent_style = tab\n");
    scene.put("package.json", "{\"prettier\": {\"semi\": false}}\n");
    let source = "const a = {b:1}\n";
    scene.put("src/a.js", source);
    let before = scene.root_snapshot();
    let options = formatting_with(
        "js",
        vec![default_tool(&FormatOptions::default().formatters, "js", "prettier", &tools.prettier())],
    );
    let report = format(&scene.root, "src/a.js", source, &options);
    scene.assert_outside_untouched("prettier");
    assert_eq!(report.formatter.as_deref(), Some("prettier"), "{report:?}");
    assert_eq!(formatted_text(&scene.root, "src/a.js", &report), "const a = { b: 1 };\n");
    assert_root_unchanged(&scene, &before, "formatting");
}

// ---------------------------------------------------------------------------------------------
// Landlock

#[test]
fn a_confined_tool_cannot_write_outside_its_private_directory() {
    let scene = Scene::new();
    let target = tempfile::tempdir().unwrap();
    let script = "echo made > \"$0/made\" && echo wrote-outside || echo refused-outside; \
                  echo kept > \"$TMPDIR/scratch\" && echo wrote-private; \
                  echo gone > /dev/null && echo wrote-null; exit 1";
    let tool = ExternalTool::new("writer", &["sh", "-c", script, &target.path().to_string_lossy()]);
    let found = check(&scene.root, "a.py", "x = 1\n", &diagnostics_with("py", vec![tool]));
    assert_eq!(found.confinement.as_deref(), Some("landlock"), "{found:?}");
    let output = found.checker.map(|checker| checker.output).unwrap_or_default();
    for expected in ["refused-outside", "wrote-private", "wrote-null"] {
        assert!(output.contains(expected), "{expected}: {output}");
    }
    assert!(!target.path().join("made").exists(), "the confined child created a file outside");
    scene.assert_outside_untouched("writer");
    // Only the child was confined: this thread still writes where it likes.
    std::fs::write(target.path().join("after"), "free").unwrap();
}

#[test]
fn a_confined_tool_cannot_connect_to_a_tcp_port() {
    on_path("python3", "install Python 3");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let script = "import socket, sys\ntry:\n    socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=5)\n    print('connected')\nexcept OSError as error:\n    print('refused', error)\nsys.exit(1)\n";
    let tool = ExternalTool::new("connector", &["python3", "-I", "-c", script, &port]);
    let scene = Scene::new();
    let found = check(&scene.root, "a.py", "x = 1\n", &diagnostics_with("py", vec![tool]));
    assert_eq!(found.confinement.as_deref(), Some("landlock"), "{found:?}");
    let output = found.checker.map(|checker| checker.output).unwrap_or_default();
    assert!(output.contains("refused") && !output.contains("connected"), "{output}");
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err_and(|error| error.kind() == std::io::ErrorKind::WouldBlock));
}

#[test]
fn formatting_reports_its_confinement_and_writes_nothing() {
    let scene = Scene::new();
    let source = "hello\n";
    scene.put("notes.txt", source);
    let before = scene.root_snapshot();
    let report = format(
        &scene.root,
        "notes.txt",
        source,
        &formatting_with("txt", vec![ExternalTool::new("upper", &["tr", "a-z", "A-Z"])]),
    );
    assert_eq!(report.formatted.as_deref(), Some("HELLO\n"), "{report:?}");
    assert_eq!(report.confinement.as_deref(), Some("landlock"));
    assert_root_unchanged(&scene, &before, "formatting");
}

// ---------------------------------------------------------------------------------------------
// Environment

/// Not a test on its own: `the_environment_is_scrubbed` runs it with a hostile environment.
#[test]
#[ignore = "run by the_environment_is_scrubbed with a hostile environment"]
fn env_child() {
    let root = PathBuf::from(std::env::var_os("EDITKIT_HOSTILE_ROOT").expect("EDITKIT_HOSTILE_ROOT"));
    let found = check(&root, "a.py", "x = 1\n", &diagnostics_with("py", vec![ExternalTool::new("env", &["env"])]));
    let output = found.checker.map(|checker| checker.output).unwrap_or_default();
    for line in output.lines() {
        println!("CHILD-ENV {line}");
    }
}

#[test]
fn the_environment_is_scrubbed() {
    let scene = Scene::new();
    let system_path = std::env::var("PATH").unwrap();
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "hostile_tools::env_child", "--nocapture", "--test-threads=1"])
        .env("PATH", format!(":.:bin:{}/bin:{system_path}", scene.root.display()))
        .env("EDITKIT_HOSTILE_ROOT", &scene.root)
        .env("PYTHONSTARTUP", scene.root.join("evil.py"))
        .env("PYTHONPATH", &scene.root)
        .env("NODE_OPTIONS", format!("--require {}/evil.js", scene.root.display()))
        .env("RUSTUP_TOOLCHAIN", "evil")
        .env("LD_PRELOAD", scene.root.join("evil.so"))
        .env("BASH_ENV", scene.root.join("evil.sh"))
        .env("LANG", "C.UTF-8")
        .current_dir(&scene.root)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    let vars: BTreeMap<&str, &str> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("CHILD-ENV "))
        .filter_map(|line| line.split_once('='))
        .collect();
    let allowed = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "RUSTUP_HOME", "CARGO_HOME"];
    let extra = ["TMPDIR", "XDG_CACHE_HOME", "NO_COLOR"];
    for name in vars.keys() {
        assert!(
            allowed.contains(name) || extra.contains(name) || name.starts_with("LC_"),
            "`{name}` reached the tool: {vars:?}"
        );
    }
    assert_eq!(vars.get("LANG"), Some(&"C.UTF-8"), "{vars:?}");
    let path = vars.get("PATH").unwrap_or_else(|| panic!("no PATH: {stdout}"));
    for entry in path.split(':') {
        assert!(entry.starts_with('/') && !Path::new(entry).starts_with(&scene.root), "PATH entry `{entry}` in {path}");
    }
    let tmpdir = vars.get("TMPDIR").unwrap_or_else(|| panic!("no TMPDIR: {stdout}"));
    assert!(Path::new(tmpdir).file_name().unwrap().to_string_lossy().starts_with("editkit-tool-"), "{tmpdir}");
    assert!(!Path::new(tmpdir).exists(), "the private directory is removed after the run");
}
