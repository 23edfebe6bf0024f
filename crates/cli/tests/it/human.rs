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
    assert!(out.contains("edited app.py, line 2 (exact match)"), "{out}");
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
    // The candidates once, with their text (the message names their lines).
    assert!(err.contains("   6 │     greet('a')") && err.contains("   7 │     greet('a')"), "{err}");
    assert!(!err.contains("candidates at lines"), "{err}");
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
    assert!(
        stdout(&applied).contains("hunk 1 at lines 1-2: matched ignoring differences in spacing (similarity 0."),
        "{}",
        stdout(&applied)
    );
    // A cut-off patch is refused.
    let cut = run(&["apply", "-", "--root", &root], "*** Begin Patch\n*** Update File: c.py\n-PORT = 6000\n");
    assert_eq!(cut.status.code(), Some(2), "{}", stderr(&cut));
    assert!(stderr(&cut).contains("the patch is incomplete"), "{}", stderr(&cut));
    assert_eq!(read(dir.path(), "c.py"), "HOST = 'db'\nPORT = 6000\n");
}

#[test]
fn apply_takes_stale_strict_and_refuses_another_mode() {
    let dir = workspace(&[("c.py", "A = 1\n")]);
    let root = root_arg(dir.path());
    let patch = "*** Begin Patch\n*** Update File: c.py\n-A = 1\n+A = 2\n*** End Patch\n";
    let bogus = run(&["apply", "-", "--stale", "sometimes", "--root", &root], patch);
    assert_eq!(bogus.status.code(), Some(2), "{}", stderr(&bogus));
    assert_eq!(read(dir.path(), "c.py"), "A = 1\n");
    let strict = run(&["apply", "-", "--stale", "strict", "--root", &root], patch);
    assert_eq!(strict.status.code(), Some(0), "{}", stderr(&strict));
    assert_eq!(read(dir.path(), "c.py"), "A = 2\n");
}

/// With the checks off, `apply --json` still exits 1 for a patch that breaks a file that
/// parsed, judged on the files the patch names as it names them (a unified diff's `a/` and
/// `b/` too, a moved file at its new path), and 0 where the file was broken before.
#[test]
fn apply_json_with_the_checks_off_judges_the_files_the_patch_names() {
    let dir = workspace(&[
        ("bad.py", "def f():\n    return 1\n"),
        ("was.py", "def g(:\n    return 2\n"),
        ("old.py", "B = 1\n"),
    ]);
    let root = root_arg(dir.path());
    let json_off = |patch: &str| run(&["apply", "-", "--json", "--diagnostics", "off", "--root", &root], patch);
    let broke = json_off("--- a/bad.py\n+++ b/bad.py\n@@ -1,2 +1,2 @@\n-def f():\n+def f(:\n     return 1\n");
    assert_eq!(broke.status.code(), Some(1), "{}", stdout(&broke));
    // The result object is what the toolkit gives with its checks off: no diagnostics shown.
    let result: serde_json::Value = serde_json::from_str(&stdout(&broke)).unwrap();
    assert_eq!(
        result["files"][0]["diagnostics"],
        serde_json::json!({"checkers": [], "has_problems": false, "syntax_errors": []}),
        "{result:#}"
    );
    assert_eq!(read(dir.path(), "bad.py"), "def f(:\n    return 1\n");
    let still = json_off("*** Begin Patch\n*** Update File: was.py\n-    return 2\n+    return 3\n*** End Patch\n");
    assert_eq!(still.status.code(), Some(0), "{}", stdout(&still));
    let moved =
        json_off("*** Begin Patch\n*** Update File: old.py\n*** Move to: new.py\n-B = 1\n+B = (\n*** End Patch\n");
    assert_eq!(moved.status.code(), Some(1), "{}", stdout(&moved));
    assert_eq!(read(dir.path(), "new.py"), "B = (\n");
}

#[test]
fn apply_prints_the_problems_a_patch_leaves() {
    let dir = workspace(&[("bad.py", "def f():\n    return 1\n")]);
    let root = root_arg(dir.path());
    let patch = "*** Begin Patch\n*** Update File: bad.py\n-def f():\n+def f(:\n*** End Patch\n";
    let applied = run(&["apply", "-", "--diagnostics", "on", "--root", &root], patch);
    // Written, shown, and exit 1: the patch broke a file that parsed.
    assert_eq!(applied.status.code(), Some(1), "{}", stderr(&applied));
    assert!(stdout(&applied).contains("syntax error: line 1:"), "{}", stdout(&applied));
    assert!(stderr(&applied).contains("bad.py now has a syntax error it did not have before"), "{}", stderr(&applied));
    assert_eq!(read(dir.path(), "bad.py"), "def f(:\n    return 1\n");
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
    assert_eq!(diff.status.code(), Some(1), "contents differ: exit 1, as diff(1)");
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
    let big: String = (0..200_000).map(|n| format!("line {n}\n")).collect();
    let dir = workspace(&[("big.txt", big.as_str())]);
    ends_quietly_when_the_reader_leaves(&["read", "--root", &root_arg(dir.path()), "big.txt"]);
}

/// Runs editkit with `args`, reads 64 bytes of its output and closes the pipe (like
/// `| head -c 64`): the command must exit 0 without a panic.
#[track_caller]
fn ends_quietly_when_the_reader_leaves(args: &[&str]) {
    use std::io::Read;
    let mut child = editkit()
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("editkit starts");
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let mut first = [0u8; 64];
    stdout.read_exact(&mut first).expect("at least 64 bytes of output");
    drop(stdout);
    let output = child.wait_with_output().expect("editkit exits");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(output.status.code(), Some(0), "{stderr}");
}

#[test]
fn grep_writes_its_lines_in_blocks_and_ends_quietly_on_a_closed_pipe() {
    let many: String = (0..50_000).map(|n| format!("needle {n}\n")).collect();
    let dir = workspace(&[("many.txt", many.as_str())]);
    // Every line arrives, in order, though they are written in blocks.
    let all = editkit()
        .args(["grep", "--root", &root_arg(dir.path()), "-F", "needle", "--max-results", "1000000"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(all.status.code(), Some(0));
    let text = String::from_utf8(all.stdout).unwrap();
    assert_eq!(text.lines().count(), 50_000);
    assert_eq!(text.lines().nth(49_999), Some("many.txt:50000:1: needle 49999"));
    ends_quietly_when_the_reader_leaves(&[
        "grep",
        "--root",
        &root_arg(dir.path()),
        "-F",
        "needle",
        "--max-results",
        "1000000",
    ]);
}

// ---------------------------------------------------------------------------------------------
// The terminal command's habits: one test per item of the issue that found them.

/// Item 1: An edit that breaks the syntax is written, shown with its problems, and exits 1, with or
/// without external checkers; `--allow-broken` exits 0.
#[test]
fn an_edit_that_breaks_the_syntax_says_so_and_exits_1() {
    let dir = workspace(&[("src/app.py", APP)]);
    let root = root_arg(dir.path());
    for diagnostics in ["auto", "off"] {
        let output = run(
            &[
                "edit",
                "src/app.py",
                "--old",
                "def main():",
                "--new",
                "def main(:",
                "--diagnostics",
                diagnostics,
                "--root",
                &root,
            ],
            "",
        );
        assert_eq!(output.status.code(), Some(1), "--diagnostics {diagnostics}: {}", stderr(&output));
        assert!(stderr(&output).contains("now has a syntax error it did not have before"), "{}", stderr(&output));
        assert!(stderr(&output).contains("editkit undo src/app.py"), "{}", stderr(&output));
        assert!(read(dir.path(), "src/app.py").contains("def main(:"), "the change is written");
        if diagnostics == "auto" {
            assert!(stdout(&output).contains("syntax error: line 5"), "{}", stdout(&output));
        } else {
            // `off` shows no diagnostics: the built-in check only decides the exit code.
            assert!(!stdout(&output).contains("syntax error"), "{}", stdout(&output));
        }
        assert_eq!(run(&["undo", "src/app.py", "--root", &root], "").status.code(), Some(0));
    }
    let allowed = run(
        &["edit", "src/app.py", "--old", "def main():", "--new", "def main(:", "--allow-broken", "--root", &root],
        "",
    );
    assert_eq!(allowed.status.code(), Some(0), "{}", stderr(&allowed));
    assert!(stderr(&allowed).contains("warning:"), "{}", stderr(&allowed));
    // A file that was already broken is not blamed on the next edit.
    let again =
        run(&["edit", "src/app.py", "--old", "greet('a')\n    greet('a')", "--new", "greet('b')", "--root", &root], "");
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
}

/// Item 2: Nothing appears in the project: no `__pycache__` after a Python edit, no state folder
/// after a dry run or a real edit.
#[test]
fn editing_leaves_nothing_in_the_project() {
    let dir = workspace(&[("src/app.py", APP)]);
    let root = root_arg(dir.path());
    let state = tempfile::tempdir().expect("test setup");
    let state_dir = root_arg(state.path());
    for extra in [&["--dry-run"][..], &[][..]] {
        let args = [
            &[
                "edit",
                "src/app.py",
                "--old",
                "greet('a')\n    greet('a')",
                "--new",
                "greet('b')",
                "--root",
                &root,
                "--state-dir",
                &state_dir,
            ][..],
            extra,
        ]
        .concat();
        let output = run(&args, "");
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    }
    let mut found: Vec<String> = Vec::new();
    for entry in walk(dir.path()) {
        found.push(entry.strip_prefix(dir.path()).expect("test setup").display().to_string());
    }
    found.sort();
    assert_eq!(found, ["src", "src/app.py"], "only the project's own files");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("test setup") {
        let path = entry.expect("test setup").path();
        out.push(path.clone());
        if path.is_dir() {
            out.extend(walk(&path));
        }
    }
    out
}

/// Item 3: `undo FILE` after a patch undoes the whole patch (asking first), `undo --patch` too, and
/// `history` lists what can be undone.
#[test]
fn undo_after_a_patch_undoes_the_patch_and_history_lists_it() {
    let dir = workspace(&[("src/util.ts", "export const a = 1;\n"), ("src/b.ts", "export const b = 1;\n")]);
    let root = root_arg(dir.path());
    let patch = "*** Begin Patch\n*** Update File: src/util.ts\n-export const a = 1;\n+export const a = 2;\n*** Update File: src/b.ts\n-export const b = 1;\n+export const b = 2;\n*** End Patch\n";
    assert_eq!(run(&["apply", "-", "--root", &root], patch).status.code(), Some(0));
    let history = run(&["history", "--root", &root], "");
    assert_eq!(history.status.code(), Some(0), "{}", stderr(&history));
    assert!(
        stdout(&history).contains("src/util.ts, src/b.ts") || stdout(&history).contains("src/b.ts, src/util.ts"),
        "{}",
        stdout(&history)
    );
    assert!(stdout(&history).contains(" UTC"), "times are shown: {}", stdout(&history));
    // Not at a terminal: asks for --yes and changes nothing.
    let asked = run(&["undo", "src/util.ts", "--root", &root], "");
    assert_eq!(asked.status.code(), Some(2), "{}", stderr(&asked));
    assert!(stderr(&asked).contains("undoes the whole patch (src/"), "{}", stderr(&asked));
    assert!(stderr(&asked).contains("--yes"), "{}", stderr(&asked));
    assert_eq!(read(dir.path(), "src/util.ts"), "export const a = 2;\n");
    let undone = run(&["undo", "src/util.ts", "--yes", "--root", &root], "");
    assert_eq!(undone.status.code(), Some(0), "{}", stderr(&undone));
    assert_eq!(
        (read(dir.path(), "src/util.ts"), read(dir.path(), "src/b.ts")),
        ("export const a = 1;\n".into(), "export const b = 1;\n".into())
    );
    // Again, by --patch.
    assert_eq!(run(&["apply", "-", "--root", &root], patch).status.code(), Some(0));
    let by_flag = run(&["undo", "--patch", "--root", &root], "");
    assert_eq!(by_flag.status.code(), Some(0), "{}", stderr(&by_flag));
    assert_eq!(read(dir.path(), "src/b.ts"), "export const b = 1;\n");
    // An edit's history shows its size.
    assert_eq!(run(&["edit", "src/b.ts", "--old", "1", "--new", "3", "--root", &root], "").status.code(), Some(0));
    let one = run(&["history", "src/b.ts", "--root", &root], "");
    assert!(stdout(&one).contains("the version before, 20 bytes"), "{}", stdout(&one));
    assert_eq!(run(&["undo", "src/b.ts", "--root", &root], "").status.code(), Some(0), "an edit needs no --yes");
}

/// Item 4: The whole diff at a terminal, and every place of a multi-place replacement.
#[test]
fn terminal_diffs_are_whole_and_name_every_replaced_line() {
    let body: String = (1..=13).map(|n| format!("line {n}\n")).collect();
    let dir = workspace(&[("a.txt", &body), ("b.txt", "x\ny\nx\n")]);
    let root = root_arg(dir.path());
    let new: String = (1..=13).map(|n| format!("LINE {n}\n")).collect();
    let dry = run(&["edit", "a.txt", "--old", &body, "--new", &new, "--dry-run", "--root", &root], "");
    assert_eq!(dry.status.code(), Some(0), "{}", stderr(&dry));
    assert!(!stdout(&dry).contains("not shown"), "a dry run shows the whole diff too: {}", stdout(&dry));
    assert_eq!(stdout(&dry).matches("\n+LINE ").count(), 13, "{}", stdout(&dry));
    assert_eq!(read(dir.path(), "a.txt"), body);
    let output = run(&["edit", "a.txt", "--old", &body, "--new", &new, "--root", &root], "");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!stdout(&output).contains("not shown"), "{}", stdout(&output));
    assert_eq!(stdout(&output).matches("\n+LINE ").count(), 13, "{}", stdout(&output));
    let all = run(&["edit", "b.txt", "--old", "x", "--new", "z", "--replace-all", "--root", &root], "");
    assert!(stdout(&all).contains("2 replacements, lines 1 and 3"), "{}", stdout(&all));
}

/// Item 5: Messages name the thing and the flag; refusals and errors read differently.
#[test]
fn messages_name_the_root_the_pattern_and_the_flag() {
    let dir = workspace(&[("a.txt", "x\n")]);
    let root = root_arg(dir.path());
    let missing = run(&["read", "a.txt", "--root", "/nonexistent-editkit-root"], "");
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("the workspace root `/nonexistent-editkit-root` does not exist (--root"),
        "{}",
        stderr(&missing)
    );
    let glob = run(&["read", "a.txt", "--root", &root, "--block", "["], "");
    assert!(stderr(&glob).contains("--block `[` is not a usable pattern"), "{}", stderr(&glob));
    let regex = run(&["grep", "(", "--root", &root], "");
    assert_eq!(regex.status.code(), Some(2));
    assert!(!stderr(&regex).contains("(?:"), "{}", stderr(&regex));
    assert!(stderr(&regex).contains("-F"), "{}", stderr(&regex));
    let none = run(&["grep", "nothing-here", "--root", &root], "");
    assert!(!stderr(&none).contains("results cut"), "{}", stderr(&none));
    assert!(stderr(&run(&["read", "nope.txt", "--root", &root], "")).starts_with("error (not_found)"));
    assert!(stderr(&run(&["read", "../x", "--root", &root], "")).starts_with("refused (outside_workspace)"));
    let past = run(&["read", "a.txt", "--offset", "9", "--root", &root], "");
    assert_eq!(past.status.code(), Some(2));
    assert!(stderr(&past).contains("1 line"), "{}", stderr(&past));
}

/// Item 6: Each command's help lists only its options, with examples.
#[test]
fn help_fits_the_command() {
    for command in ["read", "grep", "symbols", "check", "diff", "recover", "history"] {
        let help = stdout(&run(&[command, "--help"], ""));
        assert!(!help.contains("--diagnostics") && !help.contains("--format"), "{command} --help: {help}");
    }
    for command in ["edit", "apply"] {
        let help = stdout(&run(&[command, "--help"], ""));
        assert!(help.contains("--diagnostics") && help.contains("--allow-broken"), "{command} --help: {help}");
    }
    for command in ["edit", "apply", "grep", "read", "undo", "mcp"] {
        assert!(stdout(&run(&[command, "--help"], "")).contains("Example"), "{command} has examples");
    }
    assert!(stdout(&run(&["grep", "--help"], "")).contains("Directory or file"));
}

/// Item 7: Plain words: no rung names or scores for an exact edit, plurals right, binary files
/// said so, a stale refusal with one hash each.
#[test]
fn output_speaks_plainly() {
    let dir = workspace(&[("one.txt", "only\n"), ("blob.bin", "\u{0}\u{1}\u{2}binary")]);
    let root = root_arg(dir.path());
    let read_one = stdout(&run(&["read", "one.txt", "--root", &root], ""));
    assert!(read_one.contains("1 line ·") && !read_one.contains("1 lines"), "{read_one}");
    assert!(!read_one.contains("endings"), "LF endings go unsaid: {read_one}");
    let blob = stdout(&run(&["read", "blob.bin", "--root", &root], ""));
    assert!(blob.contains("binary file, 9 bytes"), "{blob}");
    let edit = stdout(&run(&["edit", "one.txt", "--old", "only", "--new", "once", "--root", &root], ""));
    assert!(!edit.contains("rung") && !edit.contains("score"), "{edit}");
}

/// Item 8: Terminal habits: --json, completions, a man page, grep context and no default cap,
/// Markdown outlines, diff exit codes.
#[test]
fn terminal_habits() {
    let many: String = (0..150).map(|n| format!("hit {n}\n")).collect();
    let dir = workspace(&[
        ("a.py", "x = 1\ny = 2\nz = 3\n"),
        ("many.txt", &many),
        ("README.md", "# Title\n\n## Usage\n\ntext\n"),
    ]);
    let root = root_arg(dir.path());
    let json = run(&["read", "a.py", "--json", "--root", &root], "");
    let value: serde_json::Value = serde_json::from_str(&stdout(&json)).expect("--json prints the result object");
    assert_eq!((value["ok"].as_bool(), value["line_count"].as_u64()), (Some(true), Some(3)));
    let refused = run(&["read", "missing.py", "--json", "--root", &root], "");
    let value: serde_json::Value = serde_json::from_str(&stdout(&refused)).expect("test setup");
    assert_eq!((refused.status.code(), value["error"]["kind"].as_str()), (Some(1), Some("not_found")));
    assert!(stdout(&run(&["completions", "bash"], "")).contains("editkit"));
    assert!(stdout(&run(&["man"], "")).contains(".TH"));
    let context = stdout(&run(&["grep", "y = 2", "-C", "1", "--root", &root], ""));
    assert_eq!(context, "a.py-1-x = 1\na.py:2:1: y = 2\na.py-3-z = 3\n");
    let after = stdout(&run(&["grep", "x = 1", "-A", "1", "--root", &root], ""));
    assert_eq!(after, "a.py:1:1: x = 1\na.py-2-y = 2\n");
    let all = stdout(&run(&["grep", "hit", "many.txt", "--root", &root], ""));
    assert_eq!(all.lines().count(), 150, "no default cap at a terminal");
    let outline = stdout(&run(&["symbols", "README.md", "--root", &root], ""));
    assert!(outline.contains("Title (line 1)") && outline.contains("  Usage (line 3)"), "{outline}");
    let same = dir.path().join("a.py");
    assert_eq!(run(&["diff", "a.py", same.to_str().expect("test setup"), "--root", &root], "").status.code(), Some(0));
}

/// Item 9: the README's serving section installs first and configures clients with an
/// absolute root (a relative one resolves wherever the client starts the server).
#[test]
fn the_readme_installs_first_and_names_an_absolute_root() {
    let readme = std::fs::read_to_string(super::repo_root().join("README.md")).expect("README.md");
    let section = readme.split("## Serving an agent").nth(1).expect("a serving section");
    let install = section.find("cargo install --locked --path crates/cli").expect("an install command");
    let serve = section.find("editkit mcp").expect("a serve command");
    assert!(install < serve, "install before serving");
    assert!(!readme.contains(r#""--root", ".""#), "no relative root in a client configuration");
    assert!(readme.contains(r#""args": ["mcp", "--root", "/"#), "a client configuration with an absolute root");
}

/// Item 8: `editkit mcp` typed at a terminal says on stderr that it waits for a client; with
/// stdin a pipe (a client) it says nothing. The terminal is a real pseudo-terminal.
#[test]
fn mcp_at_a_terminal_hints_that_it_waits_for_a_client() {
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
    use std::io::Read as _;
    let dir = workspace(&[("a.py", "x = 1\n")]);
    let root = root_arg(dir.path());
    let controller = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).expect("a pseudo-terminal");
    grantpt(&controller).expect("grantpt");
    unlockpt(&controller).expect("unlockpt");
    let name = ptsname(&controller, Vec::new()).expect("ptsname");
    let terminal = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(name.to_str().expect("a UTF-8 terminal name"))
        .expect("the terminal side");
    let mut child = editkit()
        .args(["mcp", "--root", &root])
        .stdin(terminal)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("editkit starts");
    let mut stderr_pipe = child.stderr.take().expect("stderr is piped");
    let mut first = Vec::new();
    let mut byte = [0u8; 1];
    while !first.ends_with(b"\n") && stderr_pipe.read(&mut byte).expect("stderr reads") == 1 {
        first.push(byte[0]);
    }
    child.kill().expect("the server stops");
    child.wait().expect("the server exits");
    drop(controller);
    let first = String::from_utf8_lossy(&first);
    assert!(first.starts_with("editkit mcp: waiting for an MCP client on stdin"), "{first}");
    assert!(first.contains("Ctrl-D"), "{first}");

    let piped = run(&["mcp", "--root", &root], "");
    assert!(!stderr(&piped).contains("waiting for an MCP client"), "{}", stderr(&piped));
}
