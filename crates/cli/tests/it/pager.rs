//! The pager a long diff goes through at a terminal is found as every program editkit runs
//! is (`editkit_run::find_program`): a `PAGER` the repository ships on a `PATH` entry inside
//! the root never runs, and a relative `PAGER` path is not resolved.

#![allow(clippy::unwrap_used)] // A test: a failed setup step panics with its error.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use super::editkit;

/// An executable script `dir/name` printing `said` and swallowing its input.
fn pager(dir: &Path, name: &str, said: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\necho {said}\ncat >/dev/null\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Runs `editkit ARGS` in `cwd` with stdout and stderr on a pseudo-terminal, under `env`, and
/// gives what reached the terminal.
fn at_terminal(args: &[&str], cwd: &Path, env: &[(&str, &std::ffi::OsStr)]) -> String {
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
    use std::io::Read as _;
    let controller = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).expect("a pseudo-terminal");
    grantpt(&controller).expect("grantpt");
    unlockpt(&controller).expect("unlockpt");
    let name = ptsname(&controller, Vec::new()).expect("ptsname");
    let open =
        || std::fs::OpenOptions::new().read(true).write(true).open(name.to_str().unwrap()).expect("the terminal side");
    let mut command = editkit();
    command.args(args).current_dir(cwd).stdin(std::process::Stdio::null()).stdout(open()).stderr(open());
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn().expect("editkit starts");
    // The command holds this side's copies of the terminal: closed, the read below ends when
    // editkit (and its pager) have closed theirs.
    drop(command);
    let mut reader = std::fs::File::from(controller);
    let mut seen = Vec::new();
    let mut buf = [0u8; 64 << 10];
    while let Ok(n) = reader.read(&mut buf) {
        if n == 0 {
            break;
        }
        seen.extend_from_slice(&buf[..n]);
    }
    let status = child.wait().expect("editkit ends");
    assert_eq!(status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&seen));
    String::from_utf8_lossy(&seen).into_owned()
}

#[test]
fn the_pager_is_the_program_find_program_names_never_one_the_repository_ships() {
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("root");
    let shipped = pager(&root.join("bin"), "editkit-test-pager", "SHIPPED-PAGER-RAN");
    let outside = pager(&base.path().join("tools"), "editkit-test-pager", "OUTSIDE-PAGER-RAN");
    let old: String = (0..60).map(|n| format!("line {n}\n")).collect();
    let new: String = (0..60).map(|n| format!("row {n}\n")).collect();
    std::fs::write(root.join("a.txt"), &old).unwrap();
    let path =
        std::env::join_paths([root.join("bin"), base.path().join("tools"), "/usr/bin".into(), "/bin".into()]).unwrap();
    // The one lookup, asked directly, names the pager outside the root.
    let roots = editkit_run::Roots::new(&[root.as_path()]);
    let found = editkit_run::find_program_on(Some(&path), "editkit-test-pager", &roots).unwrap();
    assert_eq!(found.path, outside);
    assert_ne!(found.path, shipped);
    let root_arg = root.to_str().unwrap();
    let edit = |old: &str, new: &str, pager: &str| {
        at_terminal(
            &["edit", "a.txt", "--old", old, "--new", new, "--root", root_arg],
            // From the root, where a relative `./bin/...` would name the shipped pager.
            &root,
            &[("PATH", &path), ("PAGER", pager.as_ref())],
        )
    };
    // The binary runs that one.
    let seen = edit(&old, &new, "editkit-test-pager");
    assert!(seen.contains("OUTSIDE-PAGER-RAN"), "{seen}");
    assert!(!seen.contains("SHIPPED-PAGER-RAN"), "{seen}");
    // A relative pager path is refused: the diff is printed without a pager.
    let seen = edit(&new, &old, "./bin/editkit-test-pager");
    assert!(!seen.contains("PAGER-RAN"), "{seen}");
    assert!(seen.contains("line 59"), "{seen}");
}
