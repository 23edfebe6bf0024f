//! Hostile repositories: programs and settings planted in the workspace that a language
//! server would run if asked the usual way. Each planted program leaves a marker in its
//! `TMPDIR` (the server's private folder, the one place a confined server may write) and
//! outside the root; none may run, and the real server must still answer.

use std::path::Path;

use editkit_lsp::Language;

use crate::support::{
    START_WAIT, fixture, marker_module, marker_script, markers, plant, ready_server, references, tools_path,
};

/// The planted program runs and leaves its markers when run directly: the check below can
/// fail.
fn markers_work(script: &Path, outside: &Path, private: &Path) {
    let status = std::process::Command::new(script).env("TMPDIR", private).status().expect("run the planted script");
    assert!(!status.success());
    let left = markers(&[outside, private]);
    assert_eq!(left.len(), 2, "{left:?}");
    for marker in left {
        std::fs::remove_file(marker).expect("remove the control marker");
    }
}

#[test]
fn planted_python_servers_and_interpreters_never_run() {
    let (temp, root) = fixture("py");
    let outside = temp.path().join("outside");
    std::fs::create_dir(&outside).expect("mkdir");
    for name in ["python", "python3", "pyright", "pyright-langserver", "basedpyright-langserver"] {
        plant(&root, &format!(".venv/bin/{name}"), &marker_script(name, &outside), true);
    }
    plant(&root, ".venv/pyvenv.cfg", "home = /usr/bin\nversion = 3.11.7\n", false);
    let path = tools_path(&[&root.join(".venv/bin")]);
    let server = ready_server(Language::Python, &root, &path, "pkg/util.py");
    let found = references(&server, &root, "pkg/util.py", 0, 4);
    assert_eq!(found.len(), 10, "the real server answered: {found:?}");
    assert_eq!(markers(&[&outside, server.private_dir()]), Vec::<std::path::PathBuf>::new());
    markers_work(&root.join(".venv/bin/python"), &outside, server.private_dir());
}

#[test]
fn planted_typescript_servers_tsserver_and_plugins_never_run() {
    let (temp, root) = fixture("ts");
    let outside = temp.path().join("outside");
    std::fs::create_dir(&outside).expect("mkdir");
    for name in ["typescript-language-server", "tsserver"] {
        plant(&root, &format!("node_modules/.bin/{name}"), &marker_script(name, &outside), true);
    }
    plant(&root, "node_modules/typescript/package.json", r#"{"name": "typescript", "version": "6.0.3"}"#, false);
    plant(&root, "node_modules/typescript/lib/tsserver.js", &marker_module("tsserver-js", &outside), false);
    plant(&root, "node_modules/typescript/lib/typescript.js", &marker_module("typescript-js", &outside), false);
    plant(&root, "node_modules/evil-plugin/package.json", r#"{"name": "evil-plugin", "main": "index.js"}"#, false);
    plant(&root, "node_modules/evil-plugin/index.js", &marker_module("plugin", &outside), false);
    plant(
        &root,
        "tsconfig.json",
        r#"{ "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext", "plugins": [{ "name": "evil-plugin" }] }, "include": ["src"] }"#,
        false,
    );
    let path = tools_path(&[&root.join("node_modules/.bin")]);
    let server = ready_server(Language::TypeScript, &root, &path, "src/shape.ts");
    let found = references(&server, &root, "src/shape.ts", 1, 2);
    assert_eq!(found.len(), 5, "the real server answered: {found:?}");
    assert_eq!(markers(&[&outside, server.private_dir()]), Vec::<std::path::PathBuf>::new());
    markers_work(&root.join("node_modules/.bin/tsserver"), &outside, server.private_dir());
}

#[test]
fn planted_rust_toolchains_and_cargo_wrappers_never_run() {
    let (temp, root) = fixture("rs");
    let outside = temp.path().join("outside");
    std::fs::create_dir(&outside).expect("mkdir");
    // A Cargo project this time, so rust-analyzer asks cargo about it.
    std::fs::remove_file(root.join("rust-project.json")).expect("remove");
    plant(&root, "Cargo.toml", "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n", false);
    plant(&root, "Cargo.lock", "version = 4\n\n[[package]]\nname = \"demo\"\nversion = \"0.1.0\"\n", false);
    for name in ["rustc", "cargo", "rust-analyzer"] {
        plant(&root, &format!("tc/bin/{name}"), &marker_script(&format!("tc-{name}"), &outside), true);
    }
    plant(&root, "rust-toolchain.toml", "[toolchain]\npath = \"/proc/self/cwd/tc\"\n", false);
    plant(&root, "wrapper.sh", &marker_script("wrapper", &outside), true);
    let wrapper = root.join("wrapper.sh").display().to_string();
    plant(
        &root,
        ".cargo/config.toml",
        &format!("[build]\nrustc = {wrapper:?}\nrustc-wrapper = {wrapper:?}\nrustc-workspace-wrapper = {wrapper:?}\n"),
        false,
    );
    let path = tools_path(&[&root.join("tc/bin")]);
    let server = ready_server(Language::Rust, &root, &path, "src/util.rs");
    let found = references(&server, &root, "src/util.rs", 0, 7);
    assert_eq!(found.len(), 4, "the real server answered: {found:?}");
    assert_eq!(markers(&[&outside, server.private_dir()]), Vec::<std::path::PathBuf>::new());
    markers_work(&root.join("wrapper.sh"), &outside, server.private_dir());
}

/// A `rust-project.json` may name a sysroot: rust-analyzer would run its `bin/rustc`. Every
/// key of the file that names a toolchain (relative, absolute, in a nested project, or added
/// after the server is ready) is ignored: editkit tells rust-analyzer which project to load.
#[test]
fn a_rust_project_json_naming_a_sysroot_in_the_workspace_never_runs_it() {
    let (temp, root) = fixture("rs");
    let outside = temp.path().join("outside");
    std::fs::create_dir(&outside).expect("mkdir");
    for name in ["rustc", "cargo", "rust-analyzer", "rustdoc"] {
        plant(&root, &format!("tc/bin/{name}"), &marker_script(&format!("tc-{name}"), &outside), true);
        plant(&root, &format!("sub/tc/bin/{name}"), &marker_script(&format!("sub-{name}"), &outside), true);
    }
    let project = |sysroot: &str| {
        format!(
            r#"{{"sysroot": {sysroot:?}, "sysroot_src": "{}/tc/lib/rustlib/src/rust/library", "crates": [{{"root_module": "src/lib.rs", "edition": "2021", "deps": [], "display_name": "demo", "is_workspace_member": true, "cfg": []}}]}}"#,
            root.display()
        )
    };
    plant(&root, "rust-project.json", &project("tc"), false);
    plant(&root, "sub/rust-project.json", &project("tc"), false);
    plant(&root, "sub/src/lib.rs", "pub fn f() {}\n", false);
    let server = ready_server(Language::Rust, &root, &tools_path(&[]), "src/util.rs");
    let found = references(&server, &root, "src/util.rs", 0, 7);
    assert_eq!(found.len(), 4, "the real server answered: {found:?}");
    // Rewritten once the server runs, with an absolute sysroot this time.
    plant(&root, "rust-project.json", &project(&root.join("tc").display().to_string()), false);
    std::thread::sleep(std::time::Duration::from_secs(3));
    let found = references(&server, &root, "src/util.rs", 0, 7);
    assert_eq!(found.len(), 4, "the real server answered: {found:?}");
    assert_eq!(markers(&[&outside, server.private_dir()]), Vec::<std::path::PathBuf>::new());
    markers_work(&root.join("tc/bin/rustc"), &outside, server.private_dir());
}

/// The backstop behind choosing what a server runs: a server (and all it starts) cannot
/// execute any file beneath the workspace root, whatever named it.
#[test]
fn a_server_cannot_execute_files_in_the_workspace() {
    let (_temp, root, pool) = crate::freshness::stand_in("exec");
    plant(&root, "pkg/planted", "#!/bin/sh\necho planted-ran\n", true);
    let session =
        pool.session(Language::Python, &root, &editkit_run::Roots::new(&[&root])).expect("the stand-in starts");
    let answer = session.diagnostics(&root.join("pkg/util.py"), "a = 1\n", crate::support::START_WAIT);
    assert_eq!(answer.diagnostics.len(), 1, "{answer:?}");
    assert_eq!(answer.diagnostics[0].message, "refused: Permission denied", "{answer:?}");
    let status = std::process::Command::new(root.join("pkg/planted")).output().expect("run it directly");
    assert_eq!(String::from_utf8_lossy(&status.stdout), "planted-ran\n", "the control runs");
}

/// A rust-analyzer started in this process, whatever its temporary folder, answers the
/// fixture's references. Run on its own it checks that; run by the test below, it runs with
/// a planted toolchain file above its temporary folder.
#[test]
fn a_rust_server_starts_under_this_processs_temporary_folder() {
    let (_temp, root) = fixture("rs");
    let server = ready_server(Language::Rust, &root, &tools_path(&[]), "src/util.rs");
    assert_eq!(references(&server, &root, "src/util.rs", 0, 7).len(), 4);
}

/// rustup looks for `rust-toolchain.toml` in the working folder and every parent: one above
/// the private folders (say a `/tmp/rust-toolchain.toml` any local user can write) must not
/// choose the toolchain.
#[test]
fn a_toolchain_file_above_the_private_folders_chooses_nothing() {
    let trap = tempfile::tempdir().expect("a temp dir");
    let trap = trap.path().canonicalize().expect("real path");
    let outside = trap.join("outside");
    std::fs::create_dir_all(trap.join("tmp")).expect("mkdir");
    std::fs::create_dir(&outside).expect("mkdir");
    for name in ["rustc", "cargo", "rust-analyzer"] {
        plant(&trap, &format!("fake/bin/{name}"), &marker_script(&format!("fake-{name}"), &outside), true);
    }
    plant(&trap, "rust-toolchain.toml", &format!("[toolchain]\npath = \"{}/fake\"\n", trap.display()), false);
    // The control: rustup takes the planted toolchain below the file.
    let control = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        .current_dir(trap.join("tmp"))
        .env("TMPDIR", trap.join("tmp"))
        .env_remove("RUSTUP_TOOLCHAIN")
        .output()
        .expect("run rustc");
    assert!(!control.status.success(), "the planted rustc ran: {control:?}");
    for marker in markers(&[&outside]) {
        std::fs::remove_file(marker).expect("remove the control marker");
    }
    let child = std::process::Command::new(std::env::current_exe().expect("this test binary"))
        .args(["--exact", "hostile::a_rust_server_starts_under_this_processs_temporary_folder"])
        .env("TMPDIR", trap.join("tmp"))
        .env_remove("RUSTUP_TOOLCHAIN")
        .output()
        .expect("run the test binary");
    assert_eq!(markers(&[&outside]), Vec::<std::path::PathBuf>::new());
    assert!(child.status.success(), "{}", String::from_utf8_lossy(&child.stdout));
    assert!(String::from_utf8_lossy(&child.stdout).contains("1 passed"), "{child:?}");
}

/// A `Cargo.toml` linked to a file outside the root: cargo quotes the line it cannot parse in
/// rust-analyzer's stderr and status. Neither reaches what editkit shows: the status keeps no
/// `message`, the stderr stays private.
#[test]
fn a_linked_cargo_toml_leaks_nothing_through_the_servers_words() {
    let (temp, root) = fixture("rs");
    let outside = temp.path().join("outside");
    std::fs::create_dir(&outside).expect("mkdir");
    let secret = outside.join("credentials");
    std::fs::write(&secret, "[default]\naws_access_key_id = AKIASECRETSECRET123\n").expect("write");
    std::fs::remove_file(root.join("rust-project.json")).expect("remove");
    std::os::unix::fs::symlink(&secret, root.join("Cargo.toml")).expect("link");
    let roots = editkit_run::Roots::new(&[&root]);
    let server = editkit_lsp::Server::start(Language::Rust, &root, &roots, Some(&tools_path(&[])), START_WAIT)
        .expect("rust-analyzer starts");
    let file = root.join("src/util.rs");
    server.open(&file, &std::fs::read_to_string(&file).expect("read"), 1).expect("didOpen");
    assert!(server.wait_ready(crate::support::READY_WAIT), "{:?}", server.broken());
    let deadline = std::time::Instant::now() + crate::support::READY_WAIT;
    while !server.stderr_tail().contains("AKIASECRET") && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    assert!(server.stderr_tail().contains("AKIASECRET"), "the control: cargo quoted the line");
    let status = server.status().expect("rust-analyzer reports its status");
    assert!(!status.to_string().contains("AKIASECRET"), "{status}");
    assert!(status.get("health").is_some(), "{status}");
}
