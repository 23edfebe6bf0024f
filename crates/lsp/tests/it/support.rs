//! The servers' PATH, fixture copies, and markers left by planted programs.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use editkit_lsp::lsp_types::Position;
use editkit_lsp::{Language, Server};
use editkit_run::Roots;

/// How long a server may take to start and to load a fixture; generous, since the machine
/// running the tests may be busy. Never asserted on.
pub(crate) const START_WAIT: Duration = Duration::from_secs(120);
pub(crate) const READY_WAIT: Duration = Duration::from_secs(60);

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `PATH` the tests give editkit: the installed servers' folders first, then this
/// process's own (for node, python3, rustc). Panics, naming the install command, when a
/// server is missing.
pub(crate) fn tools_path(first: &[&Path]) -> OsString {
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
    entries.push(venv.canonicalize().expect("the venv folder"));
    entries.push(npm.canonicalize().expect("the npm folder"));
    entries.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(entries).expect("a PATH")
}

/// A temporary copy of `fixtures/lsp/<name>`, its real path.
pub(crate) fn fixture(name: &str) -> (tempfile::TempDir, PathBuf) {
    let temp = tempfile::tempdir().expect("a temp dir");
    let root = temp.path().canonicalize().expect("real path").join(name);
    copy(&repo().join("fixtures/lsp").join(name), &root);
    (temp, root)
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read fixture") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy");
        }
    }
}

/// Writes `text` to `root/relative`, making folders; executable when `executable`.
pub(crate) fn plant(root: &Path, relative: &str, text: &str, executable: bool) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(&path, text).expect("write");
    if executable {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
}

/// A shell script that leaves `MARK-<name>` in its `TMPDIR` (the only place a confined
/// server may write) and in `outside`, then fails.
pub(crate) fn marker_script(name: &str, outside: &Path) -> String {
    format!(
        "#!/bin/sh\necho ran > \"$TMPDIR/MARK-{name}\" 2>/dev/null\necho ran > \"{}/MARK-{name}\" 2>/dev/null\nexit 1\n",
        outside.display()
    )
}

/// The same for node: a module that writes the markers when loaded.
pub(crate) fn marker_module(name: &str, outside: &Path) -> String {
    format!(
        "const fs = require('fs');\nfor (const dir of [process.env.TMPDIR, {:?}]) {{ try {{ fs.writeFileSync(dir + '/MARK-{name}', 'ran'); }} catch (e) {{}} }}\n",
        outside.display().to_string()
    )
}

/// Every `MARK-*` file beneath the folders.
pub(crate) fn markers(folders: &[&Path]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack: Vec<PathBuf> = folders.iter().map(|p| p.to_path_buf()).collect();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path);
            } else if entry.file_name().to_string_lossy().starts_with("MARK-") {
                found.push(path);
            }
        }
    }
    found
}

/// Starts the server for `language` on `root`, opens `file` and waits until it is ready.
pub(crate) fn ready_server(language: Language, root: &Path, path: &OsString, file: &str) -> Server {
    let roots = Roots::new(&[root]);
    let server = Server::start(language, root, &roots, Some(path), START_WAIT)
        .unwrap_or_else(|error| panic!("the {} server did not start: {error}", language.as_str()));
    let file = root.join(file);
    let text = std::fs::read_to_string(&file).expect("read the fixture file");
    server.open(&file, &text, 1).expect("didOpen");
    assert!(
        server.wait_ready(READY_WAIT),
        "the {} server never became ready; {:?}; status {:?}; stderr: {}",
        language.as_str(),
        server.broken(),
        server.status(),
        server.stderr_tail()
    );
    server
}

/// The references to the symbol at `line`/`character` of `file`, as sorted relative paths
/// with 0-based lines.
pub(crate) fn references(server: &Server, root: &Path, file: &str, line: u32, character: u32) -> Vec<(String, u32)> {
    let found = server
        .references(&root.join(file), Position { line, character }, START_WAIT)
        .unwrap_or_else(|error| panic!("references failed: {error}; stderr: {}", server.stderr_tail()));
    let mut out: Vec<(String, u32)> = found
        .iter()
        .map(|location| {
            let path = editkit_lsp::uri_to_path(&location.uri).expect("a file URI");
            let relative = path.strip_prefix(root).expect("inside the root").display().to_string();
            (relative, location.range.start.line)
        })
        .collect();
    out.sort();
    out
}

/// How long the slow proxy holds back each message the server writes after the first change.
pub(crate) const PROXY_DELAY_SECS: u64 = 4;

/// The real sysroot of the default toolchain, asked of `rustc` from a folder with no
/// toolchain file.
pub(crate) fn real_sysroot() -> PathBuf {
    let out = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        .current_dir(std::env::temp_dir())
        .output()
        .expect("rustc runs");
    assert!(out.status.success(), "rustc --print sysroot failed");
    PathBuf::from(String::from_utf8(out.stdout).expect("UTF-8").trim()).canonicalize().expect("the sysroot")
}

/// The fixture for `language` with its server made slow: `fixtures/lsp/slow/slow-proxy`,
/// under the server's name first on PATH (for Rust, as the `rust-analyzer` of a sysroot a
/// `rustc` first on PATH names, its `rustc`, `cargo` and `lib` the real ones), runs the real
/// server and holds back everything it writes after the first change by
/// [`PROXY_DELAY_SECS`]. Gives the temp dir, the root, the `PATH` and the file to change.
pub(crate) fn slow_server(language: Language) -> (tempfile::TempDir, PathBuf, OsString, &'static str) {
    let (name, file) = match language {
        Language::Python => ("py", "pkg/util.py"),
        Language::TypeScript => ("ts", "src/shape.ts"),
        _ => ("rs", "src/util.rs"),
    };
    let (temp, root) = fixture(name);
    let base = temp.path().canonicalize().expect("real path");
    let bin = base.join("slow-bin");
    std::fs::create_dir(&bin).expect("mkdir");
    let proxy = repo().join("fixtures/lsp/slow/slow-proxy");
    let tools = repo().join("target/lsp-tools");
    let install = |dir: &Path, name: &str, real: &Path| {
        std::fs::copy(&proxy, dir.join(name)).expect("copy the proxy");
        let config = serde_json::json!({"real": real, "delay": PROXY_DELAY_SECS});
        std::fs::write(dir.join("proxy.json"), config.to_string()).expect("write the proxy's config");
    };
    let path = tools_path(&[&bin]);
    match language {
        Language::Python => {
            let real = tools.join("venv/bin/basedpyright-langserver");
            install(&bin, "basedpyright-langserver", &real);
        }
        Language::TypeScript => {
            let real = tools.join("npm/node_modules/.bin/typescript-language-server").canonicalize().expect("tsls");
            install(&bin, "typescript-language-server", &real);
        }
        _ => {
            let sysroot = real_sysroot();
            let fake = base.join("fake-sysroot").join(sysroot.file_name().expect("a toolchain name"));
            std::fs::create_dir_all(fake.join("bin")).expect("mkdir");
            install(&fake.join("bin"), "rust-analyzer", &sysroot.join("bin/rust-analyzer"));
            for program in ["rustc", "cargo"] {
                std::os::unix::fs::symlink(sysroot.join("bin").join(program), fake.join("bin").join(program))
                    .expect("link");
            }
            std::os::unix::fs::symlink(sysroot.join("lib"), fake.join("lib")).expect("link");
            plant(&bin, "rustc", &format!("#!/bin/sh\necho '{}'\n", fake.display()), true);
        }
    }
    (temp, root, path, file)
}
