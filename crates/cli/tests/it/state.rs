//! `--state-dir` through the binary: refused inside a workspace, and a folder planted in a
//! shared one is refused with a message naming it; `--history-bytes` bounds the history.

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};

use super::{root_arg, run, stderr, stdout, workspace};

#[test]
fn a_state_dir_inside_the_workspace_is_refused() {
    let dir = workspace(&[("app.py", "x = 1\n")]);
    let root = root_arg(dir.path());
    let inside = dir.path().join("state").display().to_string();
    let out = run(&["edit", "app.py", "--old", "x = 1", "--new", "x = 2", "--root", &root, "--state-dir", &inside], "");
    assert_eq!(out.status.code(), Some(2), "{}{}", stdout(&out), stderr(&out));
    assert!(stderr(&out).contains("inside the workspace"), "{}", stderr(&out));
    assert_eq!(fs::read_to_string(dir.path().join("app.py")).unwrap(), "x = 1\n");
    assert!(!dir.path().join("state").exists());
}

#[test]
fn a_link_planted_as_the_state_folder_in_a_shared_state_dir_is_refused() {
    let dir = workspace(&[("app.py", "x = 1\n")]);
    let root = root_arg(dir.path());
    let shared = tempfile::tempdir().unwrap();
    fs::set_permissions(shared.path(), fs::Permissions::from_mode(0o1777)).unwrap();
    let shared_arg = shared.path().display().to_string();
    let call = |state: &str, line: &str| run(&["call", "--root", &root, "--state-dir", state], line);
    // The name of this root's folder, as a first write elsewhere makes it.
    let probe = tempfile::tempdir().unwrap();
    let first = call(
        &probe.path().display().to_string(),
        r#"{"tool": "write_file", "args": {"path": "probe.txt", "content": "p"}}"#,
    );
    assert!(stdout(&first).contains(r#""ok":true"#), "{}", stdout(&first));
    let name = fs::read_dir(probe.path()).unwrap().next().unwrap().unwrap().file_name();
    // Another user plants the root's folder in the shared one as a link to a folder of the
    // victim's outside the workspace (a link into the workspace is refused as inside it).
    let victims = tempfile::tempdir().unwrap();
    let planted = shared.path().join(&name);
    symlink(victims.path(), &planted).unwrap();
    let out = call(&shared_arg, r#"{"tool": "write_file", "args": {"path": "app.py", "content": "x = 2\n"}}"#);
    let text = stdout(&out);
    assert!(text.contains(r#""ok":false"#), "{text}");
    assert!(text.contains(&planted.display().to_string()) && text.contains("link"), "{text}");
    assert_eq!(fs::read_dir(victims.path()).unwrap().count(), 0, "editkit wrote through the link");
    assert_eq!(fs::read_to_string(dir.path().join("app.py")).unwrap(), "x = 1\n");
}
