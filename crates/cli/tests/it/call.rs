//! `editkit call`: one call, JSON lines, and every kind of bad input.

use serde_json::{Value, json};

use super::{json_lines, read, root_arg, run, stdout, workspace};

#[test]
fn one_call_gives_one_result_and_exit_0() {
    let dir = workspace(&[("a.txt", "alpha\nbeta\n")]);
    let output = run(&["call", "--root", &root_arg(dir.path())], r#"{"tool": "read_file", "args": {"path": "a.txt"}}"#);
    assert_eq!(output.status.code(), Some(0));
    let results = json_lines(&output);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["ok"], true);
    assert_eq!(results[0]["content"], "alpha\nbeta\n");
    assert_eq!(results[0]["sha256"].as_str().map(str::len), Some(64));
}

#[test]
fn one_refused_call_exits_1_and_bad_input_exits_2() {
    let dir = workspace(&[("a.txt", "x\nx\n")]);
    let root = root_arg(dir.path());
    let ambiguous = run(
        &["call", "--root", &root],
        r#"{"tool": "edit_file", "args": {"path": "a.txt", "old_string": "x", "new_string": "y"}}"#,
    );
    assert_eq!(ambiguous.status.code(), Some(1));
    assert_eq!(json_lines(&ambiguous)[0]["error"]["kind"], "ambiguous");
    assert_eq!(json_lines(&ambiguous)[0]["error"]["lines"], json!([1, 2]));

    let bad = run(&["call", "--root", &root], "{nope");
    assert_eq!(bad.status.code(), Some(2));
    assert_eq!(json_lines(&bad)[0]["error"]["kind"], "invalid_args");

    let empty = run(&["call", "--root", &root], "");
    assert_eq!(empty.status.code(), Some(2));
    assert_eq!(json_lines(&empty)[0]["error"]["kind"], "invalid_args");
    assert_eq!(read(dir.path(), "a.txt"), "x\nx\n");
}

#[track_caller]
fn invalid(result: &Value, field: Option<&str>) {
    assert_eq!(result["ok"], false, "{result}");
    assert_eq!(result["error"]["kind"], "invalid_args", "{result}");
    assert!(result["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{result}");
    if let Some(field) = field {
        assert_eq!(result["error"]["field"], field, "{result}");
    }
}

#[test]
fn jsonl_answers_every_line_in_order_and_goes_on_after_bad_ones() {
    let dir = workspace(&[("a.txt", "one\ntwo\n")]);
    let lines = [
        r#"{"id": 1, "tool": "read_file", "args": {"path": "a.txt"}}"#,
        r#"{"id": 2, "tool": "read_file", "args": {"path": "a.txt"}"#, // truncated JSON
        r#"[1, 2, 3]"#,
        r#"{"id": "no-tool", "args": {}}"#,
        r#"{"id": 5, "tool": 7}"#,
        r#"{"id": 6, "tool": "frobnicate", "args": {}}"#,
        r#"{"id": 7, "tool": "edit_file", "args": {"path": "a.txt", "new_string": "x"}}"#,
        r#"{"id": 8, "tool": "read_file", "args": {"path": 42}}"#,
        r#"{"id": 9, "tool": "read_file", "args": "a.txt"}"#,
        r#"{"id": 10, "tool": "edit_file", "args": {"path": "a.txt", "old_string": "two", "new_string": "2", "replace_all": "yes"}}"#,
        r#"{"id": 11, "tool": "read_file", "args": {"path": "a.txt", "bogus": true}}"#,
        "",
        "   ",
        r#"{"id": {"nested": [1]}, "tool": "edit_file", "args": {"path": "a.txt", "old_string": "two", "new_string": "2"}}"#,
        "\u{feff}garbage \u{0} bytes",
        r#"{"id": "last", "tool": "read_file", "args": {"path": "a.txt"}}"#,
    ];
    let output = run(&["call", "--jsonl", "--root", &root_arg(dir.path())], lines.join("\n") + "\n");
    assert_eq!(output.status.code(), Some(0), "{}", super::stderr(&output));
    let results = json_lines(&output);
    assert_eq!(results.len(), 14, "blank lines get no result:\n{}", stdout(&output));

    assert_eq!(results[0]["id"], 1);
    assert_eq!(results[0]["content"], "one\ntwo\n");
    invalid(&results[1], None);
    assert!(results[1]["error"]["message"].as_str().is_some_and(|m| m.contains("line 2")), "{}", results[1]);
    invalid(&results[2], Some("tool"));
    invalid(&results[3], Some("tool"));
    assert_eq!(results[3]["id"], "no-tool");
    invalid(&results[4], Some("tool"));
    invalid(&results[5], Some("tool"));
    assert!(results[5]["error"]["message"].as_str().is_some_and(|m| m.contains("read_file")), "lists the tools");
    invalid(&results[6], Some("old_string"));
    assert_eq!(results[6]["id"], 7);
    invalid(&results[7], Some("path"));
    invalid(&results[8], Some("args"));
    invalid(&results[9], Some("replace_all"));
    invalid(&results[10], Some("bogus"));
    assert_eq!(results[11]["ok"], true, "{}", results[11]);
    assert_eq!(results[11]["id"], json!({"nested": [1]}));
    invalid(&results[12], None);
    assert_eq!(results[13]["id"], "last");
    assert_eq!(results[13]["content"], "one\n2\n");
    assert_eq!(read(dir.path(), "a.txt"), "one\n2\n");
}

#[test]
fn jsonl_without_a_final_newline_still_answers_the_last_call() {
    let dir = workspace(&[("a.txt", "x\n")]);
    let output = run(
        &["call", "--jsonl", "--root", &root_arg(dir.path())],
        r#"{"id": 1, "tool": "exists", "args": {"path": "a.txt"}}"#,
    );
    let results = json_lines(&output);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["exists"], true);
}

#[test]
fn huge_arguments_are_invalid_args_naming_the_field_and_the_stream_goes_on() {
    let dir = workspace(&[("a.txt", "x\n")]);
    let limit = 64 << 20;
    let huge = "y".repeat(limit + 10);
    let over_args =
        json!({"id": 1, "tool": "edit_file", "args": {"path": "a.txt", "old_string": huge, "new_string": "z"}});
    // Longer than any call the reader keeps: skipped without being held in memory.
    let over_line =
        format!(r#"{{"id": 2, "tool": "read_file", "args": {{"path": "{}"}}}}"#, "w".repeat(limit + (2 << 20)));
    let last = r#"{"id": 3, "tool": "read_file", "args": {"path": "a.txt"}}"#;
    let input = format!("{over_args}\n{over_line}\n{last}\n");
    drop(huge);
    let output = run(&["call", "--jsonl", "--root", &root_arg(dir.path())], input);
    let results = json_lines(&output);
    assert_eq!(results.len(), 3);
    invalid(&results[0], Some("old_string"));
    assert_eq!(results[0]["id"], 1);
    invalid(&results[1], Some("args"));
    assert_eq!(results[2]["ok"], true);
    assert_eq!(results[2]["id"], 3);
    assert_eq!(read(dir.path(), "a.txt"), "x\n");
}

#[test]
fn read_only_refuses_writes() {
    let dir = workspace(&[("a.txt", "x\n")]);
    let output = run(
        &["call", "--read-only", "--root", &root_arg(dir.path())],
        r#"{"tool": "write_file", "args": {"path": "a.txt", "content": "y\n"}}"#,
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(json_lines(&output)[0]["error"]["kind"], "blocked");
    assert_eq!(read(dir.path(), "a.txt"), "x\n");
}

#[test]
fn a_missing_root_is_a_usage_error() {
    let output = run(&["call", "--root", "/definitely/not/here"], r#"{"tool": "list_dir"}"#);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        super::stderr(&output).contains("the workspace root `/definitely/not/here` does not exist"),
        "{}",
        super::stderr(&output)
    );
}

#[test]
fn block_adds_globs_to_the_policy() {
    let dir = workspace(&[("keys/prod.secret", "s3cret\n"), ("a.txt", "x\n")]);
    let lines = [
        r#"{"id": 1, "tool": "read_file", "args": {"path": "keys/prod.secret"}}"#,
        r#"{"id": 2, "tool": "read_file", "args": {"path": ".env"}}"#,
        r#"{"id": 3, "tool": "read_file", "args": {"path": "a.txt"}}"#,
    ];
    let output = run(&["call", "--jsonl", "--block", "**/*.secret", "--root", &root_arg(dir.path())], lines.join("\n"));
    let results = json_lines(&output);
    assert_eq!(results[0]["error"]["kind"], "blocked", "{}", results[0]);
    assert_eq!(results[1]["error"]["kind"], "blocked", "the built-in list still applies: {}", results[1]);
    assert_eq!(results[2]["ok"], true);
}

#[test]
fn the_call_envelope_takes_mcp_arguments_and_refuses_unknown_keys() {
    let dir = workspace(&[("src/a.txt", "x\n"), ("top.txt", "y\n")]);
    let root = root_arg(dir.path());
    let lines = [
        r#"{"id": 1, "tool": "list_dir", "arguments": {"path": "src"}}"#,
        r#"{"id": 2, "tool": "list_dir", "params": {"path": "src"}}"#,
        r#"{"id": 3, "tool": "list_dir", "args": {"path": "src"}, "arguments": {"path": "."}}"#,
    ]
    .join("\n");
    let results = json_lines(&run(&["call", "--jsonl", "--root", &root], lines));
    assert_eq!(results[0]["ok"], true, "{}", results[0]);
    assert!(results[0].to_string().contains("a.txt") && !results[0].to_string().contains("top.txt"));
    invalid(&results[1], Some("params"));
    invalid(&results[2], Some("arguments"));
    assert_eq!((results[1]["id"].clone(), results[2]["id"].clone()), (json!(2), json!(3)));
}

#[test]
fn a_key_given_twice_anywhere_refuses_the_call_and_nothing_runs() {
    let dir = workspace(&[("a.txt", "keep\n"), ("b.txt", "keep\n")]);
    let lines = [
        r#"{"id": 1, "tool": "read_file", "tool": "delete", "args": {"path": "a.txt"}}"#,
        r#"{"id": 2, "tool": "delete", "args": {"path": "b.txt", "path": "a.txt"}}"#,
        r#"{"id": 3, "tool": "delete", "args": {"path": "a.txt", "opts": [{"x": 1, "x": 2}]}}"#,
        r#"{"id": 4, "tool": "read_file", "args": {"path": "a.txt"}}"#,
    ];
    let output = run(&["call", "--jsonl", "--root", &root_arg(dir.path())], lines.join("\n"));
    let results = json_lines(&output);
    assert_eq!(results.len(), 4);
    invalid(&results[0], Some("tool"));
    invalid(&results[1], Some("args.path"));
    invalid(&results[2], Some("args.opts[0].x"));
    assert!(results[0]["error"]["message"].as_str().unwrap().contains("`tool`"), "{}", results[0]);
    assert_eq!(results[3]["ok"], true, "{}", results[3]);
    assert_eq!(read(dir.path(), "a.txt"), "keep\n");
    assert_eq!(read(dir.path(), "b.txt"), "keep\n");
}

#[test]
fn block_patterns_follow_gitignore_semantics() {
    let dir =
        workspace(&[("secrets/x", "s\n"), ("a/secrets/y", "s\n"), ("a/b/c.secret", "s\n"), ("a/ok.txt", "fine\n")]);
    let lines = [
        r#"{"tool": "read_file", "args": {"path": "secrets/x"}}"#,
        r#"{"tool": "read_file", "args": {"path": "a/secrets/y"}}"#,
        r#"{"tool": "read_file", "args": {"path": "a/b/c.secret"}}"#,
        r#"{"tool": "read_file", "args": {"path": "a/ok.txt"}}"#,
        r#"{"tool": "list_dir", "args": {"path": "a"}}"#,
    ];
    let root = root_arg(dir.path());
    let output =
        run(&["call", "--jsonl", "--block", "secrets/", "--block", "*.secret", "--root", &root], lines.join("\n"));
    let results = json_lines(&output);
    for result in &results[..3] {
        assert_eq!(result["error"]["kind"], "blocked", "{result}");
    }
    assert_eq!(results[3]["ok"], true, "{}", results[3]);
    assert!(!results[4].to_string().contains("secrets"), "{}", results[4]);

    // A pattern that can match nothing is refused at start-up, not ignored.
    let output = run(&["call", "--block", "a//b", "--root", &root], r#"{"tool": "list_dir"}"#);
    assert_eq!(output.status.code(), Some(2), "{}", super::stderr(&output));
    assert!(super::stderr(&output).contains("a//b"), "{}", super::stderr(&output));
}

#[test]
fn a_five_line_read_of_a_big_python_file_answers_a_few_kilobytes_and_says_which_lines() {
    // 4,500 lines of real-looking code (1,500 three-line functions): the whole-file facts
    // (symbols) stay out of a ranged read.
    let source: String = (1..=1_500)
        .map(|n| format!("def handler_{n}(request):\n    value = request.get({n})\n    return value\n"))
        .collect();
    let dir = workspace(&[("app.py", &source)]);
    let output = run(
        &["call", "--root", &root_arg(dir.path())],
        r#"{"tool": "read_file", "args": {"path": "app.py", "offset": 2001, "limit": 5}}"#,
    );
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    assert!(text.len() < 4 << 10, "the answer is {} bytes", text.len());
    let result = &json_lines(&output)[0];
    assert_eq!((result["start_line"].as_u64(), result["end_line"].as_u64()), (Some(2001), Some(2005)));
    assert_eq!(result["total_lines"].as_u64(), Some(4_500));
    assert_eq!(result["content"].as_str().map(|c| c.lines().count()), Some(5));

    let past = run(
        &["call", "--root", &root_arg(dir.path())],
        r#"{"tool": "read_file", "args": {"path": "app.py", "offset": 4501}}"#,
    );
    // An argument error, so the exit code of bad input.
    assert_eq!(past.status.code(), Some(2));
    let refusal = &json_lines(&past)[0]["error"];
    assert_eq!((refusal["kind"].as_str(), refusal["field"].as_str()), (Some("invalid_args"), Some("offset")));
    assert!(refusal["message"].as_str().is_some_and(|m| m.contains("4500 lines")), "{refusal}");
}

#[test]
fn max_read_bytes_bounds_what_a_call_reads_and_edits() {
    let big = "x = 1\n".repeat(2_000); // 12,000 bytes
    let dir = workspace(&[("big.py", big.as_str()), ("small.py", "y = 2\n")]);
    let root = root_arg(dir.path());
    let calls = [
        r#"{"id": 1, "tool": "read_file", "args": {"path": "big.py"}}"#,
        r#"{"id": 2, "tool": "edit_file", "args": {"path": "big.py", "old_string": "x = 1\nx = 1\n", "new_string": "z", "replace_all": true}}"#,
        r#"{"id": 3, "tool": "read_file", "args": {"path": "small.py"}}"#,
    ];
    let limited = run(&["call", "--root", &root, "--jsonl", "--max-read-bytes", "10000"], calls.join("\n"));
    let results = json_lines(&limited);
    for result in &results[..2] {
        assert_eq!(result["error"]["kind"], "too_large", "{result}");
        assert!(result["error"]["message"].as_str().unwrap().contains("10000"), "{result}");
    }
    assert_eq!(results[2]["ok"], true);
    assert_eq!(read(dir.path(), "big.py"), big);
    // The default limit (16 MiB) lets the same file through.
    let default = run(&["call", "--root", &root, "--jsonl"], calls[0]);
    assert_eq!(json_lines(&default)[0]["ok"], true);
}

/// `editkit call` starts no language server unless `--server-diagnostics on`; with it, each
/// write's result carries the server's diagnostics.
#[test]
fn call_gives_server_diagnostics_only_when_asked() {
    let line =
        r#"{"tool": "edit_file", "args": {"path": "a.py", "old_string": "return 1", "new_string": "return 'one'"}}"#;
    for (on, expected) in [(false, None), (true, Some("fresh"))] {
        let dir = workspace(&[("a.py", "def f() -> int:\n    return 1\n")]);
        let root = root_arg(dir.path());
        let mut args = vec!["call", "--root", root.as_str(), "--jsonl"];
        if on {
            args.extend(["--server-diagnostics", "on"]);
        }
        let mut command = super::editkit();
        command.env("PATH", super::mcp::servers_path()).args(&args);
        command.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped());
        let mut child = command.spawn().expect("set up");
        std::io::Write::write_all(&mut child.stdin.take().expect("set up"), format!("{line}\n").as_bytes())
            .expect("set up");
        let output = child.wait_with_output().expect("set up");
        let results = json_lines(&output);
        assert_eq!(results[0]["ok"], true, "{}", results[0]);
        let server = &results[0]["diagnostics"]["server_diagnostics"];
        assert_eq!(server["state"].as_str(), expected, "{}", results[0]);
    }
}

/// A line of `/proc/PID/FILE` starting with `prefix`, the rest of it.
fn proc_line(pid: u32, file: &str, prefix: &str) -> String {
    let text = std::fs::read_to_string(format!("/proc/{pid}/{file}")).expect("the process's /proc entry is readable");
    let line = text.lines().find_map(|line| line.strip_prefix(prefix)).unwrap_or_else(|| panic!("{prefix} in {file}"));
    line.trim().to_owned()
}

/// A patch's commit holds three descriptors a file: a table grown then, while threads run,
/// waits for an RCU grace period (28 ms was seen inside a 100-file commit). The process grows
/// it first thing in `main`, to 4,096 or the hard limit.
#[test]
fn a_process_holds_a_descriptor_table_of_4096_from_its_start() {
    use std::io::{BufRead, Write};
    let dir = workspace(&[("a.txt", "alpha\n")]);
    let mut child = super::editkit()
        .args(["call", "--jsonl", "--root", &root_arg(dir.path())])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the editkit binary starts");
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, r#"{{"tool": "read_file", "args": {{"path": "a.txt"}}}}"#).unwrap();
    let mut answer = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut answer).unwrap();
    assert!(answer.contains(r#""ok":true"#), "{answer}");
    // The process is up and has answered: its table and its limit, as the kernel has them.
    let size: u64 = proc_line(child.id(), "status", "FDSize:").parse().unwrap();
    let limits = proc_line(child.id(), "limits", "Max open files");
    let hard = limits.split_whitespace().nth(1).unwrap();
    let wanted = if hard == "unlimited" { 4096 } else { hard.parse::<u64>().unwrap().min(4096) };
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert!(size >= wanted, "the table holds {size} descriptors, {wanted} wanted");
}
