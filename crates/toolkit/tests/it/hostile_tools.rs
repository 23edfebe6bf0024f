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
