//! `run_tool`: an argv template run on a text, contained.

use std::path::Path;
use std::time::Duration;

use editkit_run::{ExternalTool, Ran, Roots, run_tool};

fn run(argv: &[&str], path: &str, source: &str, timeout: Duration) -> Ran {
    let roots = Roots::new(&[Path::new("/nonexistent-editkit-root")]);
    run_tool(&ExternalTool::new("tool", argv), &roots, path, source, timeout, 1024)
}

#[test]
fn the_text_goes_in_on_stdin_and_comes_back_on_stdout() {
    let done = run(&["tr", "a-z", "A-Z"], "notes.txt", "hi\n", Duration::from_secs(10)).outcome.unwrap();
    assert_eq!((done.code, done.stdout.as_slice()), (0, b"HI\n".as_slice()));
}

#[test]
fn the_tool_runs_in_a_private_directory_with_a_scrubbed_environment() {
    let script = "pwd; echo \"path=$PATH\"; echo \"odd=${PYTHONPATH:-unset}\"; echo \"tmp=$TMPDIR\"";
    let done = run(&["sh", "-c", script], "a.py", "", Duration::from_secs(10)).outcome.unwrap();
    let out = String::from_utf8(done.stdout).unwrap();
    let mut lines = out.lines();
    let cwd = lines.next().unwrap();
    assert!(cwd.contains("editkit-tool-"), "{out}");
    assert!(out.contains("odd=unset"), "{out}");
    assert!(out.contains(&format!("tmp={cwd}")), "{out}");
    assert!(!out.contains("path=\n"), "{out}");
    assert!(!Path::new(cwd).exists(), "the private directory is removed after the run");
}

#[test]
fn placeholders_are_replaced_once_and_the_file_copy_comes_back() {
    let done = run(
        &[
            "sh",
            "-c",
            "printf '%s' \"$1\"; tr a-z A-Z < \"$2\" > \"$2.t\"; mv \"$2.t\" \"$2\"",
            "sh",
            "{path}",
            "{file}",
        ],
        "{file}.txt",
        "abc",
        Duration::from_secs(10),
    )
    .outcome
    .unwrap();
    assert_eq!(done.stdout, b"{file}.txt");
    assert_eq!(done.copy.as_deref(), Some(b"ABC".as_slice()));
}

#[test]
fn a_slow_tool_is_killed_with_its_children_and_a_missing_one_not_started() {
    let ran = run(&["sh", "-c", "sleep 30 & sleep 30"], "a.txt", "", Duration::from_millis(200));
    assert_eq!(ran.outcome, Err("timed out after 200 ms".to_owned()));
    assert!(ran.confinement.is_some(), "it was started");
    let missing = run(&["editkit-no-such-tool"], "a.txt", "", Duration::from_secs(1));
    assert_eq!(missing, Ran { outcome: Err("not installed".to_owned()), confinement: None });
}

#[test]
fn input_past_the_bound_is_not_handed_to_a_tool() {
    let big = "x".repeat(editkit_run::MAX_TOOL_INPUT_BYTES + 1);
    let ran = run(&["cat"], "a.txt", &big, Duration::from_secs(10));
    assert!(ran.outcome.unwrap_err().contains("limit for external tools"));
}
