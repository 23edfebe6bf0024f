//! A process killed while an external tool ran never removed the tool's private folder in the
//! temporary folder; the next editkit process that runs a tool removes the folders of
//! processes that are gone (older than a minute, their lock free), and nothing else. (The
//! edits write f-strings with a nested format spec: the compile check runs only where it can
//! add to the built-in one.)

#![allow(clippy::unwrap_used)]

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::Stdio;

use crate::{editkit, root_arg, workspace};

fn tool_folders(tmp: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(tmp)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("editkit-tool-"))
        .collect();
    names.sort();
    names
}

#[test]
fn tool_folders_of_killed_processes_are_removed_by_the_next_run() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let ws = workspace(&[("a.py", "x = 1\n")]);
    let root = root_arg(ws.path());

    // A real kill: a `call --jsonl` process whose Python check worker holds its private folder.
    let mut child = editkit()
        .args(["call", "--jsonl", "--root", &root])
        .env("TMPDIR", tmp.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"tool": "edit_file", "args": {{"path": "a.py", "old_string": "x = 1", "new_string": "x = f'{{y:{{w}}}}'"}}}}"#
    )
    .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert!(line.contains(r#""ok":true"#), "{line}");
    let killed = format!("editkit-tool-{}-", child.id());
    assert!(
        tool_folders(tmp.path()).iter().any(|name| name.starts_with(&killed)),
        "the check worker's folder is not there: {:?}",
        tool_folders(tmp.path())
    );
    for name in tool_folders(tmp.path()) {
        let mode =
            std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(tmp.path().join(&name)).unwrap().permissions());
        assert_eq!(mode & 0o777, 0o700, "{name} is readable by others");
    }
    child.kill().unwrap();
    child.wait().unwrap();
    drop(stdin);

    // Planted beside it: a folder of another process that is gone, one of a live process (this
    // test), a link and a file under the same kind of name.
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let gone_pid = gone.id();
    gone.wait().unwrap();
    let dead = tmp.path().join(format!("editkit-tool-{gone_pid}-planted"));
    std::fs::create_dir_all(dead.join("deep")).unwrap();
    std::fs::write(dead.join("deep/file"), "x").unwrap();
    let live = tmp.path().join(format!("editkit-tool-{}-live", std::process::id()));
    std::fs::create_dir(&live).unwrap();
    std::fs::write(outside.path().join("keep.txt"), "keep").unwrap();
    let link = tmp.path().join(format!("editkit-tool-{gone_pid}-link"));
    std::os::unix::fs::symlink(outside.path(), &link).unwrap();
    let file = tmp.path().join(format!("editkit-tool-{gone_pid}-file"));
    std::fs::write(&file, "x").unwrap();
    // A folder whose process lives in another PID namespace: its id looks gone from here, but
    // the process still holds the folder's lock.
    let elsewhere = tmp.path().join(format!("editkit-tool-{gone_pid}-namespace"));
    std::fs::create_dir(&elsewhere).unwrap();
    let held = std::fs::File::open(&elsewhere).unwrap();
    held.lock_shared().unwrap();
    // A folder of a gone process made a moment ago: its process may not have locked it yet.
    let young = tmp.path().join(format!("editkit-tool-{gone_pid}-young"));
    std::fs::create_dir(&young).unwrap();
    // Everything but the young one is older than a minute.
    let long_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(120);
    for name in tool_folders(tmp.path()) {
        let path = tmp.path().join(&name);
        if path != young && !path.symlink_metadata().unwrap().is_symlink() {
            std::fs::File::open(&path).unwrap().set_modified(long_ago).unwrap();
        }
    }

    // The next process that runs a tool sweeps.
    let output = editkit()
        .args(["call", "--root", &root])
        .env("TMPDIR", tmp.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut next| {
            next.stdin.take().unwrap().write_all(
                br#"{"tool": "edit_file", "args": {"path": "a.py", "old_string": "x = f'{y:{w}}'", "new_string": "x = f'{z:{w}}'"}}"#,
            )?;
            next.wait_with_output()
        })
        .unwrap();
    assert!(String::from_utf8_lossy(&output.stdout).contains(r#""ok":true"#), "{output:?}");
    let left = tool_folders(tmp.path());
    assert!(!left.iter().any(|name| name.starts_with(&killed)), "the killed process's folder stayed: {left:?}");
    assert!(!dead.exists(), "a gone process's folder stayed: {left:?}");
    assert!(live.is_dir(), "a live process's folder was removed");
    assert!(link.symlink_metadata().unwrap().is_symlink(), "a link was removed");
    assert_eq!(std::fs::read_to_string(outside.path().join("keep.txt")).unwrap(), "keep");
    assert!(file.is_file(), "a file was removed");
    assert!(elsewhere.is_dir(), "a folder whose lock is held was removed");
    assert!(young.is_dir(), "a folder made a moment ago was removed");
    drop(held);
}
