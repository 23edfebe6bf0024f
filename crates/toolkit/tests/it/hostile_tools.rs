//! Post-write checks and formatting through the facade, in a hostile repository: nothing it
//! ships runs, nothing outside the root changes, no file appears in the workspace, and the
//! formatted content is written through the workspace with the reported hash and undo.

use std::path::{Path, PathBuf};

use editkit::analyze::{DiagnosticsMode, DiagnosticsOptions, FormatOptions};
use editkit::{Toolkit, ToolkitOptions, UndoEditRequest, WriteFileRequest};

/// A base folder with the workspace `root/` and a sentinel folder `outside/`.
struct Scene {
    _base: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    before: Vec<(PathBuf, Vec<u8>, std::time::SystemTime, u64)>,
}

fn listing(dir: &Path) -> Vec<(PathBuf, Vec<u8>, std::time::SystemTime, u64)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path.clone());
            }
            let bytes = if meta.is_file() { std::fs::read(&path).unwrap() } else { Vec::new() };
            out.push((path, bytes, meta.modified().unwrap(), std::os::unix::fs::MetadataExt::nlink(&meta)));
        }
    }
    out.sort();
    out
}

impl Scene {
    fn new() -> Scene {
        let base = tempfile::tempdir().unwrap();
        let root = base.path().join("root");
        let outside = base.path().join("outside");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(outside.join("cache")).unwrap();
        std::fs::write(outside.join("outside.rs"), "fn   outside( ) { }\n").unwrap();
        let before = listing(&outside);
        Scene { _base: base, root, outside, before }
    }

    fn put(&self, rel: &str, content: &str) -> PathBuf {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        path
    }

    /// An executable under the root that, when it runs, leaves `outside/pwned-<tag>` (unless
    /// Landlock stops it) and prints `PLANTED` instead of formatting.
    fn plant(&self, rel: &str, tag: &str) {
        let script =
            format!("#!/bin/sh\necho ran > '{}/pwned-{tag}'\necho PLANTED-{tag}-RAN\n", self.outside.display());
        let path = self.put(rel, &script);
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }

    fn assert_outside_untouched(&self, attack: &str) {
        let now = listing(&self.outside);
        assert!(now == self.before, "{attack}: the folder outside the root changed: {:?}", now);
    }

    fn assert_no_pycache(&self) {
        let found: Vec<_> = listing(&self.root)
            .into_iter()
            .filter(|(path, ..)| path.components().any(|c| c.as_os_str() == "__pycache__"))
            .map(|(path, ..)| path)
            .collect();
        assert!(found.is_empty(), "bytecode appeared in the workspace: {found:?}");
    }

    fn toolkit(&self, options: ToolkitOptions) -> Toolkit {
        Toolkit::open(&self.root, options).unwrap()
    }
}

fn write(toolkit: &Toolkit, path: &str, content: &str) -> editkit::WriteFileResponse {
    toolkit.write_file(WriteFileRequest::new(path, content).force(true)).unwrap()
}

/// rustfmt from PATH, or a failure saying how to get it.
fn require_rustfmt() {
    let path = std::env::var_os("PATH").unwrap_or_default();
    assert!(
        std::env::split_paths(&path).any(|dir| dir.is_absolute() && dir.join("rustfmt").is_file()),
        "rustfmt is not on PATH: run `rustup component add rustfmt`"
    );
}

#[test]
fn a_python_write_runs_nothing_the_repository_ships_and_leaves_no_bytecode() {
    let scene = Scene::new();
    let sentinel = scene.outside.join("pwned-py_compile");
    scene.put("pkg/py_compile.py", &format!("open({:?}, 'w').write('ran')\n", sentinel.to_string_lossy()));
    std::os::unix::fs::symlink(scene.outside.join("cache"), scene.root.join("pkg/__pycache__")).unwrap();
    // Only the interpreter check, so it is the one that runs.
    let mut diagnostics = DiagnosticsOptions { mode: DiagnosticsMode::On, ..Default::default() };
    diagnostics.checkers.values_mut().for_each(|tools| tools.retain(|tool| tool.name != "ruff"));
    let toolkit = scene.toolkit(ToolkitOptions { diagnostics, ..Default::default() });
    let broken = write(&toolkit, "pkg/a.py", "def f(:\n    pass\n");
    let clean = write(&toolkit, "other/b.py", "def f():\n    return 1\n");
    scene.assert_outside_untouched("py_compile.py beside the file, __pycache__ link");
    std::fs::remove_file(scene.root.join("pkg/__pycache__")).unwrap();
    scene.assert_no_pycache();
    let checker = &broken.diagnostics.checkers[0];
    assert_eq!(checker.name, "python");
    assert!(!checker.ok && checker.output.contains("pkg/a.py"), "{checker:?}");
    assert!(clean.diagnostics.checkers[0].ok, "{:?}", clean.diagnostics);
    assert_eq!(broken.diagnostics.confinement.as_ref().map(ToString::to_string).as_deref(), Some("landlock"));
}

#[test]
fn formatting_is_contained_and_written_through_the_workspace() {
    require_rustfmt();
    let scene = Scene::new();
    scene.plant("evil-toolchain/bin/rustfmt", "rustfmt");
    scene.put("rust-toolchain.toml", &format!("[toolchain]\npath = \"{}/evil-toolchain\"\n", scene.root.display()));
    scene.put("rustfmt.toml", "hard_tabs = true\n");
    let toolkit = scene.toolkit(ToolkitOptions {
        formatting: FormatOptions { enabled: true, ..Default::default() },
        diagnostics: DiagnosticsOptions { mode: DiagnosticsMode::Off, ..Default::default() },
        ..Default::default()
    });
    let source = format!(
        "#[path = \"{}/outside.rs\"]\nmod x;\nfn main( ) {{ if true {{ let _a = 1; }} }}\n",
        scene.outside.display()
    );
    let written = write(&toolkit, "src/main.rs", &source);
    scene.assert_outside_untouched("rustfmt with a toolchain file and an outside #[path] module");
    let on_disk = std::fs::read_to_string(scene.root.join("src/main.rs")).unwrap();
    assert!(!on_disk.contains("PLANTED"), "the repository's rustfmt ran: {on_disk}");
    assert!(
        on_disk.contains("fn main() {\n    if true {"),
        "formatted by the real rustfmt, spaces not tabs: {on_disk}"
    );
    assert_eq!(written.sha256, editkit::vfs::Sha256::of(on_disk.as_bytes()), "the reported hash is the formatted one");
    assert_eq!(written.size_bytes, on_disk.len() as u64);
    // The undo entry expects the formatted hash: undo needs no force and removes the new file.
    toolkit.undo_edit(UndoEditRequest::new("src/main.rs")).unwrap();
    assert!(!scene.root.join("src/main.rs").exists());
}

#[test]
fn a_failing_formatter_leaves_the_written_content() {
    let scene = Scene::new();
    let mut formatting = FormatOptions { enabled: true, ..Default::default() };
    formatting
        .formatters
        .insert("txt".into(), vec![editkit::analyze::ExternalTool::new("fail", &["sh", "-c", "exit 3"])]);
    let toolkit = scene.toolkit(ToolkitOptions { formatting, ..Default::default() });
    let written = write(&toolkit, "a.txt", "x\n");
    assert_eq!(std::fs::read_to_string(scene.root.join("a.txt")).unwrap(), "x\n");
    assert_eq!(written.sha256, editkit::vfs::Sha256::of(b"x\n"));
}

#[test]
fn a_patched_file_is_formatted_as_contained_as_a_written_one() {
    require_rustfmt();
    let scene = Scene::new();
    scene.plant("evil-toolchain/bin/rustfmt", "rustfmt");
    scene.put("rust-toolchain.toml", &format!("[toolchain]\npath = \"{}/evil-toolchain\"\n", scene.root.display()));
    scene.put("rustfmt.toml", "hard_tabs = true\n");
    scene.put("src/main.rs", "fn main() {}\n");
    let toolkit = scene.toolkit(ToolkitOptions {
        formatting: FormatOptions { enabled: true, ..Default::default() },
        diagnostics: DiagnosticsOptions { mode: DiagnosticsMode::Off, ..Default::default() },
        ..Default::default()
    });
    let patch = "*** Begin Patch\n*** Update File: src/main.rs\n-fn main() {}\n+fn main( ) { if true { let _a = 1; } }\n\
                 *** End Patch\n";
    let applied = toolkit.apply_patch(editkit::ApplyPatchRequest::new(patch)).unwrap();
    scene.assert_outside_untouched("rustfmt with a toolchain file, through a patch");
    let on_disk = std::fs::read_to_string(scene.root.join("src/main.rs")).unwrap();
    assert!(!on_disk.contains("PLANTED"), "the repository's rustfmt ran: {on_disk}");
    assert!(
        on_disk.contains("fn main() {\n    if true {"),
        "formatted by the real rustfmt, spaces not tabs: {on_disk}"
    );
    assert!(applied.files[0].formatted);
    assert_eq!(applied.files[0].sha256, Some(editkit::vfs::Sha256::of(on_disk.as_bytes())));
}

/// Every `MARK-<tag>-*` file in this process's private tool folders (where a confined program
/// may write: its `TMPDIR`) and beneath `also`.
#[cfg(feature = "lsp")]
fn server_markers(tag: &str, also: &[&Path]) -> Vec<PathBuf> {
    let prefix = format!("editkit-tool-{}-", std::process::id());
    let mut stack: Vec<PathBuf> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().starts_with(&prefix))
        .map(|entry| entry.path())
        .chain(also.iter().map(|dir| dir.to_path_buf()))
        .collect();
    let mut found = Vec::new();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                stack.push(entry.path());
            } else if entry.file_name().to_string_lossy().starts_with(&format!("MARK-{tag}-")) {
                found.push(entry.path());
            }
        }
    }
    found
}

/// A hostile repository through the post-write hook: a planted
/// `node_modules/.bin/typescript-language-server` and `tsserver.js`, a `tsconfig.json` naming
/// a plugin that sits in `node_modules`, a `.venv/bin/pyright` and `.venv/bin/python`, and a
/// `rust-toolchain.toml` whose `path` names a planted toolchain, with the planted folders first
/// on the servers' `PATH`. Edits of a Python, a TypeScript and a Rust file with
/// `after_writes` on start the real servers (their answers are fresh) and none of the
/// planted programs runs.
#[cfg(feature = "lsp")]
#[test]
fn the_post_write_hook_runs_nothing_a_hostile_repository_plants() {
    use crate::server_hook::{fixture, hook_on, servers_path};
    let (temp, root) = fixture("py");
    let (_ts_temp, ts) = fixture("ts");
    let (_rs_temp, rs) = fixture("rs");
    for (from, name) in [(&ts, "tsconfig.json"), (&rs, "rust-project.json")] {
        std::fs::copy(from.join(name), root.join(name)).unwrap();
    }
    std::fs::create_dir(root.join("src")).unwrap();
    for from in [ts.join("src"), rs.join("src")] {
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), root.join("src").join(entry.file_name())).unwrap();
        }
    }
    let outside = temp.path().canonicalize().unwrap().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let tag = format!("hook{}", std::process::id());
    let script = |name: &str| {
        format!(
            "#!/bin/sh\necho ran > \"$TMPDIR/MARK-{tag}-{name}\" 2>/dev/null\necho ran > '{}/MARK-{tag}-{name}' 2>/dev/null\nexit 1\n",
            outside.display()
        )
    };
    let module = |name: &str| {
        format!(
            "const fs = require('fs');\nfor (const dir of [process.env.TMPDIR, {:?}]) {{ try {{ fs.writeFileSync(dir + '/MARK-{tag}-{name}', 'ran'); }} catch (e) {{}} }}\n",
            outside.display().to_string()
        )
    };
    let plant = |rel: &str, text: &str, executable: bool| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        if executable {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    };
    for name in ["typescript-language-server", "tsserver"] {
        plant(&format!("node_modules/.bin/{name}"), &script(name), true);
    }
    plant("node_modules/typescript/package.json", r#"{"name": "typescript", "version": "6.0.3"}"#, false);
    plant("node_modules/typescript/lib/tsserver.js", &module("tsserver-js"), false);
    plant("node_modules/evil-plugin/package.json", r#"{"name": "evil-plugin", "main": "index.js"}"#, false);
    plant("node_modules/evil-plugin/index.js", &module("plugin"), false);
    plant(
        "tsconfig.json",
        r#"{ "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext", "plugins": [{ "name": "evil-plugin" }] }, "include": ["src"] }"#,
        false,
    );
    for name in ["python", "python3", "pyright", "pyright-langserver", "basedpyright-langserver"] {
        plant(&format!(".venv/bin/{name}"), &script(name), true);
    }
    plant(".venv/pyvenv.cfg", "home = /usr/bin\nversion = 3.11.7\n", false);
    for name in ["rustc", "cargo", "rust-analyzer"] {
        plant(&format!("tc/bin/{name}"), &script(&format!("tc-{name}")), true);
    }
    plant("rust-toolchain.toml", &format!("[toolchain]\npath = \"{}\"\n", root.join("tc").display()), false);
    let path = servers_path(&[&root.join("node_modules/.bin"), &root.join(".venv/bin")]);
    let toolkit = Toolkit::open(&root, hook_on(path)).unwrap();
    for (file, old, new) in [
        ("pkg/util.py", "return sum(items)", "return sum(items) + 0"),
        ("src/shape.ts", "return 1;", "return 2;"),
        ("src/util.rs", "items.iter().sum()", "items.iter().copied().sum()"),
    ] {
        let result = editkit::tools::call(
            &toolkit,
            "edit_file",
            serde_json::json!({"path": file, "old_string": old, "new_string": new}),
        );
        let answer = &result["diagnostics"]["server_diagnostics"];
        assert_eq!(answer["state"], "fresh", "the real server answered for {file}: {result}");
    }
    assert_eq!(toolkit.language_servers_running(), 3);
    assert_eq!(server_markers(&tag, &[&outside, &root]), Vec::<PathBuf>::new());
    // The control: a planted program run directly leaves its marker, so the check can fail.
    let private = tempfile::tempdir().unwrap();
    let status =
        std::process::Command::new(root.join(".venv/bin/python")).env("TMPDIR", private.path()).status().unwrap();
    assert!(!status.success());
    assert_eq!(server_markers(&tag, &[private.path()]).len(), 1);
}
