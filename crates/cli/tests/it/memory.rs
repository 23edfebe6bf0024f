//! Every tool with hostile arguments at their largest (counts, sizes, depths), all in one
//! `editkit call --jsonl` process whose data segment is limited (`ulimit -d`, RLIMIT_DATA):
//! each call answers a typed result, and the process never aborts. The tools are taken from
//! the toolkit's specs, so a tool added later fails this test until it has its cases.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use super::{repo_root, root_arg, stderr};

/// The data segment the process may use: a fraction of what the reported failures reached
/// (5.5 GB for a search, 2.5 GB for a replace_all, 2 GiB for read_files), above what the
/// largest call at the default bounds needs (at 384 MiB the diff of a session holding a
/// 16 MiB file of 8 Mi lines does not fit).
const DATA_LIMIT_BYTES: u64 = 768 << 20;

/// The default read limit, the size of the largest file a tool reads.
const READ_LIMIT: usize = 16 << 20;

fn ten_kib() -> String {
    "b".repeat(10 << 10)
}

/// The hostile calls of each tool, in the order they run (editor session ids count from `s1`
/// in the order `editor_load` runs).
fn cases() -> BTreeMap<&'static str, Vec<Value>> {
    let huge = json!(u64::MAX);
    let too_big = "x".repeat(READ_LIMIT + 1);
    let long_path = format!("{}x.txt", "d/".repeat(2_500));
    let mut many_hunks = String::from("*** Begin Patch\n*** Update File: a.txt\n");
    for _ in 0..3_000 {
        many_hunks.push_str(&format!("@@\n-a\n+{}\n", ten_kib()));
    }
    many_hunks.push_str("*** End Patch\n");
    let cases: Vec<(&str, Vec<Value>)> = vec![
        (
            "read_file",
            vec![
                json!({"path": "x.txt", "offset": 1, "limit": huge}),
                json!({"path": "x.txt", "include_symbols": true}),
                json!({"path": "x.txt", "tail": huge}),
                json!({"path": long_path}),
            ],
        ),
        ("read_files", vec![json!({"paths": vec!["x.txt"; 64], "include_symbols": true})]),
        ("write_file", vec![json!({"path": "w.txt", "content": too_big})]),
        ("write_python_file", vec![json!({"path": "w.py", "content": too_big})]),
        ("write_markdown_file", vec![json!({"path": "w.md", "content": too_big})]),
        (
            "edit_file",
            vec![
                json!({"path": "a.txt", "old_string": "a", "new_string": ten_kib(), "replace_all": true, "dry_run": true}),
                json!({"path": "a.txt", "old_string": "a", "new_string": ten_kib(), "replace_all": true}),
                json!({"path": "big.ipynb", "cell_id": "cell-1", "old_string": "a", "new_string": ten_kib(), "replace_all": true}),
            ],
        ),
        (
            "edit_python_file",
            vec![json!({"path": "a.py", "old_string": "a", "new_string": ten_kib(), "dry_run": true})],
        ),
        ("insert_lines", vec![json!({"path": "a.txt", "line": 1, "text": too_big})]),
        (
            "merge_snippet",
            vec![
                json!({"path": "a.txt", "snippet": too_big}),
                json!({"path": "a.txt", "snippet": format!("a\n{}\n", "b\n".repeat(500_000))}),
            ],
        ),
        ("generate_diff", vec![json!({"path": "a.txt", "new_content": "c\n".repeat(100_000), "context_lines": huge})]),
        ("list_dir", vec![json!({"path": "."}), json!({"path": long_path})]),
        ("exists", vec![json!({"path": long_path})]),
        ("file_info", vec![json!({"path": "x.txt"})]),
        ("create_directory", vec![json!({"path": long_path})]),
        (
            "tree",
            vec![json!({"path": ".", "depth": huge, "sizes": true}), json!({"path": ".", "depth": 32, "sizes": true})],
        ),
        ("move", vec![json!({"from": "a.txt", "to": long_path})]),
        ("list_roots", vec![json!({})]),
        ("history", vec![json!({}), json!({"path": "a.txt"})]),
        ("undo_edit", vec![json!({"path": "a.txt"})]),
        ("undo_patch", vec![json!({})]),
        ("editor_load", vec![json!({"path": "x.txt"}), json!({"path": "a.txt"})]),
        ("editor_read", vec![json!({"session_id": "s1", "offset": 1, "limit": huge})]),
        ("editor_write", vec![json!({"session_id": "s1", "text": too_big})]),
        (
            "editor_edit",
            vec![json!({"session_id": "s2", "old_string": "a", "new_string": ten_kib(), "replace_all": true})],
        ),
        ("editor_diff", vec![json!({"session_id": "s1"})]),
        ("editor_store", vec![json!({"session_id": "s2"})]),
        ("editor_clear", vec![json!({"session_id": "s1"}), json!({"session_id": "s2"})]),
        (
            "replace_function",
            vec![json!({"path": "a.py", "function_name": "f".repeat(5_000), "new_implementation": ten_kib()})],
        ),
        ("file_symbols", vec![json!({"path": "x.py"})]),
        ("check_syntax", vec![json!({"path": "x.py"})]),
        ("update_project_index", vec![json!({"project_root": ".", "description": "d".repeat(READ_LIMIT + 1)})]),
        (
            "search_files",
            vec![
                json!({"pattern": "x", "max_results": 100_000_000, "context_lines": 100}),
                json!({"pattern": "(".repeat(100_000)}),
            ],
        ),
        ("search_code", vec![json!({"pattern": "x", "glob": "*", "max_results": 100_000_000, "context_lines": 100})]),
        ("glob", vec![json!({"pattern": "**/*", "path": "."})]),
        ("apply_patch", vec![json!({"patch": many_hunks, "dry_run": true})]),
        ("delete", vec![json!({"path": "gone", "recursive": true})]),
        // Bounds are checked before any server is asked (none runs here).
        ("find_symbol", vec![json!({"name_path": "f".repeat(5_000)}), json!({"name_path": "f", "max_results": huge})]),
        (
            "find_references",
            vec![
                json!({"path": "x.py", "line": 1, "column": 1, "max_results": huge}),
                json!({"path": "x.py", "line": huge, "column": huge}),
                json!({"path": "x.py", "symbol": "f/".repeat(5_000)}),
            ],
        ),
        (
            "rename_symbol",
            vec![
                json!({"path": "a.py", "line": 1, "symbol": "f", "new_name": "n".repeat(READ_LIMIT + 1)}),
                json!({"path": "x.py", "line": 1, "column": 1, "new_name": "y", "plan": {"x.py": "0".repeat(64)}}),
            ],
        ),
        ("diagnostics", vec![json!({"path": "x.py", "wait_ms": huge}), json!({"path": "x.py"}), json!({})]),
        (
            "notebook_read",
            vec![
                json!({"path": "big.ipynb", "max_output_chars": 20_000}),
                json!({"path": "x.txt", "max_output_chars": huge}),
            ],
        ),
        (
            "notebook_edit",
            vec![
                json!({"path": "big.ipynb", "index": 0, "action": "replace", "source": too_big}),
                json!({"path": "big.ipynb", "index": 9_999, "action": "insert_after", "source": "a\n".repeat(500_000)}),
                json!({"path": "big.ipynb", "cell_id": "cell-5000", "action": "replace", "source": "x", "cell_type": "markdown"}),
                json!({"path": "big.ipynb", "index": 0, "action": "delete"}),
            ],
        ),
    ];
    cases.into_iter().collect()
}

#[test]
fn every_tool_answers_hostile_arguments_within_a_memory_limit() {
    let cases = cases();
    let names = editkit::tools::names();
    let missing: Vec<&&str> = names.iter().filter(|name| !cases.contains_key(**name)).collect();
    assert!(missing.is_empty(), "tools without a hostile-argument case: {missing:?}");
    let unknown: Vec<&&str> = cases.keys().filter(|name| !names.contains(name)).collect();
    assert!(unknown.is_empty(), "cases for tools that do not exist: {unknown:?}");

    let dir = tempfile::tempdir().expect("a temp dir");
    let put = |path: &str, content: &str| {
        let target = dir.path().join(path);
        std::fs::create_dir_all(target.parent().expect("a parent")).expect("parent dirs");
        std::fs::write(target, content).expect("fixture written");
    };
    // The largest file a tool reads, of the most lines (each a match).
    let x_lines = "x\n".repeat(READ_LIMIT / 2 - 1);
    put("x.txt", &x_lines);
    put("x.py", &x_lines);
    put("a.txt", &"a\n".repeat(100_000));
    put("a.py", &"def f():\n    a = 1\n".repeat(1_000));
    // A notebook of the most cells a notebook tool takes, just under the read limit.
    let cell = json!({"cell_type": "code", "execution_count": 1, "metadata": {},
        "outputs": [{"name": "stdout", "output_type": "stream", "text": ["o".repeat(300)]}],
        "source": vec!["a = 1\n"; 40]});
    let big = json!({"cells": vec![cell; 10_000], "metadata": {}, "nbformat": 4, "nbformat_minor": 4});
    let big = serde_json::to_string_pretty(&big).expect("a notebook");
    assert!(big.len() < READ_LIMIT, "{}", big.len());
    put("big.ipynb", &big);
    for n in 0..100 {
        put(&format!("gone/f{n}.txt"), "gone\n");
    }
    let mut input = String::new();
    let mut order = Vec::new();
    // editor_load runs first, so the session ids are s1, s2; editor_clear and delete last.
    let mut ordered: Vec<(&str, &Vec<Value>)> = cases.iter().map(|(name, args)| (*name, args)).collect();
    ordered.sort_by_key(|(name, _)| match *name {
        "editor_load" => 0,
        "editor_clear" => 2,
        "delete" => 3,
        _ => 1,
    });
    for (name, calls) in ordered {
        for args in calls {
            input.push_str(&json!({"tool": name, "args": args}).to_string());
            input.push('\n');
            order.push(name);
        }
    }
    let calls = dir.path().with_extension("calls.jsonl");
    std::fs::write(&calls, &input).expect("calls written");

    let state = tempfile::tempdir().expect("a state dir");
    let limit_kib = DATA_LIMIT_BYTES >> 10;
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -d {limit_kib} && exec \"$0\" \"$@\" < \"{}\"", calls.display()))
        .arg(env!("CARGO_BIN_EXE_editkit"))
        .args(["call", "--jsonl", "--root", &root_arg(dir.path()), "--diagnostics", "off"])
        .args(["--state-dir", &root_arg(state.path())])
        .current_dir(repo_root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("sh runs");
    let _ = std::fs::remove_file(&calls);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let answers: Vec<Value> = stdout.lines().map(|line| serde_json::from_str(line).expect("a JSON answer")).collect();
    let tail = stderr(&output);
    assert_eq!(
        output.status.code(),
        Some(0),
        "editkit call did not finish ({} of {} answers, the next was {:?}): {}",
        answers.len(),
        order.len(),
        order.get(answers.len()),
        &tail[..tail.len().min(2_000)]
    );
    assert_eq!(answers.len(), order.len(), "{}", &tail[..tail.len().min(2_000)]);
    for (name, answer) in order.iter().zip(&answers) {
        match answer["ok"].as_bool() {
            Some(true) => {}
            Some(false) => {
                let kind = answer["error"]["kind"].as_str().unwrap_or_default();
                assert!(editkit::ERROR_KINDS.contains(&kind), "{name}: {answer:.300}");
                let message = answer["error"]["message"].as_str().unwrap_or_default();
                assert!(message.len() <= editkit::MAX_MESSAGE_BYTES, "{name}: {} bytes", message.len());
            }
            None => panic!("{name}: not a contract answer: {answer:.300}"),
        }
    }
    // The answers that must be refusals, by what they ask.
    let answer_of = |tool: &str, nth: usize| {
        order.iter().zip(&answers).filter(|(name, _)| **name == tool).nth(nth).map(|(_, answer)| answer.clone())
    };
    for (tool, nth, kind) in [
        ("write_file", 0, "too_large"),
        ("edit_file", 0, "too_large"),
        ("edit_file", 1, "too_large"),
        ("editor_edit", 0, "too_large"),
        ("editor_write", 0, "too_large"),
    ] {
        let answer = answer_of(tool, nth).expect("the call ran");
        assert_eq!(answer["error"]["kind"], kind, "{tool} #{nth}: {answer:.300}");
    }
    let search = answer_of("search_files", 0).expect("the search ran");
    assert_eq!(search["truncated"], true, "{search:.300}");
    let read = answer_of("read_files", 0).expect("read_files ran");
    assert!(read["read"].as_u64() < Some(64), "{read:.300}");
}
