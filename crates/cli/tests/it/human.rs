//! Subcommands for people: output, colours and exit codes (0 done, 1 refused, 2 usage/input).

use super::{editkit, read, root_arg, run, stderr, stdout, workspace};

const APP: &str = "def greet(name):\n    return 'hello ' + name\n\n\ndef main():\n    greet('a')\n    greet('a')\n";

#[test]
fn read_shows_hash_symbols_and_numbered_lines() {
    let dir = workspace(&[("app.py", APP)]);
    let output = run(&["read", "app.py", "--root", &root_arg(dir.path())], "");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(out.contains("sha256 "), "{out}");
    assert!(out.contains("function greet  lines 1-2"), "{out}");
    assert!(out.contains("  2 │     return 'hello ' + name"), "{out}");
    assert!(!out.contains('\x1b'), "no colour when piped");
}

#[test]
fn edit_lands_and_prints_the_rung_and_diff() {
    let dir = workspace(&[("app.py", APP)]);
    let output = run(
        &[
            "edit",
            "app.py",
            "--old",
            "return 'hello ' + name",
            "--new",
            "return f'hello {name}'",
            "--root",
            &root_arg(dir.path()),
        ],
        "",
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(out.contains("edited app.py: 1 replacement at lines 2-2, rung exact"), "{out}");
    assert!(out.contains("-    return 'hello ' + name\n+    return f'hello {name}'\n"), "{out}");
    assert!(read(dir.path(), "app.py").contains("return f'hello {name}'"));
}

#[test]
fn edit_from_files_and_dry_run() {
    let dir = workspace(&[("app.py", APP), ("old.txt", "def main():\n"), ("new.txt", "def main() -> None:\n")]);
    let root = root_arg(dir.path());
    let old = dir.path().join("old.txt");
    let new = dir.path().join("new.txt");
    let args = [
        "edit",
        "app.py",
        "--old-file",
        old.to_str().unwrap_or_default(),
        "--new-file",
        new.to_str().unwrap_or_default(),
    ];
    let dry = run(&[&args[..], &["--dry-run", "--root", &root]].concat(), "");
    assert_eq!(dry.status.code(), Some(0), "{}", stderr(&dry));
    assert!(stdout(&dry).contains("would edit app.py"), "{}", stdout(&dry));
    assert_eq!(read(dir.path(), "app.py"), APP);
    let real = run(&[&args[..], &["--root", &root]].concat(), "");
    assert_eq!(real.status.code(), Some(0), "{}", stderr(&real));
    assert!(read(dir.path(), "app.py").contains("def main() -> None:\n"));
}

#[test]
fn ambiguous_edit_exits_1_with_candidate_lines() {
    let dir = workspace(&[("app.py", APP)]);
    let output =
        run(&["edit", "app.py", "--old", "greet('a')", "--new", "greet('b')", "--root", &root_arg(dir.path())], "");
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("refused (ambiguous)"), "{err}");
    assert!(err.contains("candidates at lines 6, 7"), "{err}");
    assert!(err.contains("   6 │     greet('a')"), "{err}");
    assert_eq!(read(dir.path(), "app.py"), APP);
}

#[test]
fn usage_errors_exit_2() {
    let dir = workspace(&[("app.py", APP)]);
    let root = root_arg(dir.path());
    // clap: a missing required argument.
    assert_eq!(run(&["edit", "app.py", "--root", &root], "").status.code(), Some(2));
    assert_eq!(run(&["frobnicate"], "").status.code(), Some(2));
    // A patch that does not parse is an input error.
    let bad_patch = run(&["apply", "-", "--root", &root], "this is not a patch\n");
    assert_eq!(bad_patch.status.code(), Some(2), "{}", stderr(&bad_patch));
    assert!(stderr(&bad_patch).contains("invalid_patch"), "{}", stderr(&bad_patch));
    // An unreadable input file.
    let missing = run(&["diff", "app.py", "/no/such/file", "--root", &root], "");
    assert_eq!(missing.status.code(), Some(2));
    // Refusals are 1.
    assert_eq!(run(&["read", "../x", "--root", &root], "").status.code(), Some(1));
    assert_eq!(run(&["read", "nope.py", "--root", &root], "").status.code(), Some(1));
}

#[test]
fn apply_patch_from_stdin_dry_run_then_for_real() {
    let dir = workspace(&[("a.py", "A = 1\n"), ("b.py", "B = 1\n")]);
    let root = root_arg(dir.path());
    let patch = "*** Begin Patch\n*** Update File: a.py\n-A = 1\n+A = 2\n*** Update File: b.py\n-B = 1\n+B = 2\n*** End Patch\n";
    let dry = run(&["apply", "-", "--dry-run", "--root", &root], patch);
    assert_eq!(dry.status.code(), Some(0), "{}", stderr(&dry));
    assert!(stdout(&dry).contains("would patch 2 files"), "{}", stdout(&dry));
    assert_eq!(read(dir.path(), "a.py"), "A = 1\n");
    let real = run(&["apply", "-", "--root", &root], patch);
    assert_eq!(real.status.code(), Some(0), "{}", stderr(&real));
    assert!(stdout(&real).contains("patched 2 files"));
    assert!(stdout(&real).contains("-A = 1\n+A = 2\n"), "{}", stdout(&real));
    assert_eq!((read(dir.path(), "a.py"), read(dir.path(), "b.py")), ("A = 2\n".into(), "B = 2\n".into()));
    // One bad hunk: refused, nothing changes.
    let bad = "*** Begin Patch\n*** Update File: a.py\n-A = 2\n+A = 3\n*** Update File: b.py\n-B = 9\n+B = 3\n*** End Patch\n";
    let refused = run(&["apply", "-", "--root", &root], bad);
    assert_eq!(refused.status.code(), Some(1));
    assert!(stderr(&refused).contains("b.py hunk 1"), "{}", stderr(&refused));
    assert_eq!((read(dir.path(), "a.py"), read(dir.path(), "b.py")), ("A = 2\n".into(), "B = 2\n".into()));
}

#[test]
fn apply_prints_fuzzy_placements_and_takes_strict() {
    let dir = workspace(&[("c.py", "HOST = 'db'\nPORT  =  5432\n")]);
    let root = root_arg(dir.path());
    let patch = "*** Begin Patch\n*** Update File: c.py\n@@\n HOST = 'db'\n-PORT = 5432\n+PORT = 6000\n*** End Patch\n";
    let strict = run(&["apply", "-", "--strict", "--root", &root], patch);
    assert_eq!(strict.status.code(), Some(1), "{}", stdout(&strict));
    assert_eq!(read(dir.path(), "c.py"), "HOST = 'db'\nPORT  =  5432\n");
    let applied = run(&["apply", "-", "--root", &root], patch);
    assert_eq!(applied.status.code(), Some(0), "{}", stderr(&applied));
    assert!(stdout(&applied).contains("hunk 1 at lines 1-2: whitespace_normalised (score 0."), "{}", stdout(&applied));
    // A cut-off patch is refused.
    let cut = run(&["apply", "-", "--root", &root], "*** Begin Patch\n*** Update File: c.py\n-PORT = 6000\n");
    assert_eq!(cut.status.code(), Some(2), "{}", stderr(&cut));
    assert!(stderr(&cut).contains("the patch is incomplete"), "{}", stderr(&cut));
    assert_eq!(read(dir.path(), "c.py"), "HOST = 'db'\nPORT = 6000\n");
}

#[test]
fn apply_prints_the_problems_a_patch_leaves() {
    let dir = workspace(&[("bad.py", "def f():\n    return 1\n")]);
    let root = root_arg(dir.path());
    let patch = "*** Begin Patch\n*** Update File: bad.py\n-def f():\n+def f(:\n*** End Patch\n";
    let applied = run(&["apply", "-", "--diagnostics", "on", "--root", &root], patch);
    assert_eq!(applied.status.code(), Some(0), "{}", stderr(&applied));
    assert!(stdout(&applied).contains("syntax error line 1:"), "{}", stdout(&applied));
}

#[test]
fn grep_symbols_check_diff_undo_recover() {
    let dir = workspace(&[("app.py", APP), ("bad.py", "def f(:\n"), ("new.py", "def greet(name):\n    return name\n")]);
    let root = root_arg(dir.path());

    let grep = run(&["grep", "greet\\(", "--root", &root], "");
    assert_eq!(grep.status.code(), Some(0));
    assert!(stdout(&grep).contains("app.py:6:5:     greet('a')"), "{}", stdout(&grep));
    assert_eq!(run(&["grep", "nothing-matches-this", "--root", &root], "").status.code(), Some(1));

    let symbols = run(&["symbols", "app.py", "--root", &root], "");
    assert_eq!(stdout(&symbols), "function greet  lines 1-2\nfunction main  lines 5-7\n");

    let ok = run(&["check", "app.py", "--root", &root], "");
    assert_eq!((ok.status.code(), stdout(&ok)), (Some(0), "app.py: ok (python)\n".into()));
    let bad = run(&["check", "bad.py", "--root", &root], "");
    assert_eq!(bad.status.code(), Some(1));
    assert!(stdout(&bad).contains("syntax errors"), "{}", stdout(&bad));

    let new = dir.path().join("new.py");
    let diff = run(&["diff", "app.py", new.to_str().unwrap_or_default(), "--root", &root], "");
    assert_eq!(diff.status.code(), Some(0));
    assert!(stdout(&diff).contains("-    return 'hello ' + name\n"), "{}", stdout(&diff));
    assert!(stdout(&diff).contains("+    return name\n"), "{}", stdout(&diff));
    assert_eq!(read(dir.path(), "app.py"), APP, "diff writes nothing");

    let edit = run(&["edit", "app.py", "--old", "def main():", "--new", "def run():", "--root", &root], "");
    assert_eq!(edit.status.code(), Some(0));
    let undo = run(&["undo", "app.py", "--root", &root], "");
    assert_eq!(undo.status.code(), Some(0), "{}", stderr(&undo));
    assert!(stdout(&undo).starts_with("restored app.py"), "{}", stdout(&undo));
    assert_eq!(read(dir.path(), "app.py"), APP);
    assert_eq!(run(&["undo", "app.py", "--root", &root], "").status.code(), Some(1), "nothing left to undo");

    let recover = run(&["recover", "--root", &root], "");
    assert_eq!(recover.status.code(), Some(0), "{}", stderr(&recover));
    assert!(stdout(&recover).contains("nothing to recover"), "{}", stdout(&recover));
}

#[test]
fn diffs_are_coloured_on_request_and_plain_with_no_color() {
    let dir = workspace(&[("a.txt", "one\n")]);
    let root = root_arg(dir.path());
    let coloured = editkit()
        .args(["edit", "a.txt", "--old", "one", "--new", "two", "--dry-run", "--root", &root])
        .env("CLICOLOR_FORCE", "1")
        .output()
        .expect("runs");
    assert!(stdout(&coloured).contains("\x1b[32m+two\x1b[0m"), "{:?}", stdout(&coloured));
    assert!(stdout(&coloured).contains("\x1b[31m-one\x1b[0m"), "{:?}", stdout(&coloured));
    let plain = editkit()
        .args(["edit", "a.txt", "--old", "one", "--new", "two", "--dry-run", "--root", &root])
        .env("CLICOLOR_FORCE", "1")
        .env("NO_COLOR", "1")
        .output()
        .expect("runs");
    assert!(!stdout(&plain).contains('\x1b'), "{:?}", stdout(&plain));
}

#[test]
fn a_reader_closing_the_pipe_early_ends_the_command_quietly() {
    use std::io::Read;
    let big: String = (0..200_000).map(|n| format!("line {n}\n")).collect();
    let dir = workspace(&[("big.txt", big.as_str())]);
    let mut child = editkit()
        .args(["read", "--root", &root_arg(dir.path()), "big.txt"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout); // like `| head -c 64`
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(output.status.code(), Some(0), "{stderr}");
}
