//! `spawn_no_exec_in`: the child may execute programs anywhere but beneath the roots.

use std::io::Read as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use editkit_run::{Invocation, PrivateDir, Roots, find_program, reap, spawn, spawn_no_exec_in};

fn script(path: &Path, word: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("#!/bin/sh\necho {word}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Runs `sh -c <line>` spawned by `spawner`; gives its stdout and confinement.
fn sh(roots: &Roots, line: &str, no_exec: bool) -> (String, String) {
    let shell = find_program("sh", roots).unwrap();
    let dir = PrivateDir::new(roots).unwrap();
    let invocation = Invocation {
        program: shell.path,
        args: vec!["-c".to_owned(), line.to_owned()],
        stdin: &[],
        dir: dir.path(),
        path: shell.search_path,
        timeout: std::time::Duration::ZERO,
        max_stdout: 0,
        env: Vec::new(),
    };
    let (child, confinement) = if no_exec { spawn_no_exec_in(&invocation, roots) } else { spawn(&invocation) };
    let mut child = child.unwrap();
    drop(child.stdin.take());
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    reap(&mut child);
    (out, confinement)
}

#[test]
fn nothing_beneath_a_root_executes_and_everything_else_does() {
    let temp = tempfile::tempdir().unwrap();
    let base = temp.path().canonicalize().unwrap();
    let root = base.join("repo");
    script(&root.join("bin/planted"), "planted-ran");
    script(&root.join("deep/er/planted"), "deep-ran");
    script(&base.join("outside/tool"), "outside-ran");
    std::os::unix::fs::symlink(root.join("bin"), base.join("link-into-root")).unwrap();
    let roots = Roots::new(&[&root]);
    let line = format!(
        "{0}/bin/planted; {0}/deep/er/planted; {1}/link-into-root/planted; {1}/outside/tool; echo done",
        root.display(),
        base.display()
    );
    let (out, confinement) = sh(&roots, &line, true);
    assert!(confinement.starts_with("landlock"), "{confinement}");
    assert_eq!(out, "outside-ran\ndone\n", "{confinement}");
    // The control: the plain spawn runs them all.
    let (out, _) = sh(&roots, &line, false);
    assert_eq!(out, "planted-ran\ndeep-ran\nplanted-ran\noutside-ran\ndone\n");
}
