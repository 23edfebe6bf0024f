//! `editkit mcp`: end to end with the official MCP Python SDK, and raw JSON-RPC checks.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use super::{editkit, repo_root, root_arg, workspace};

/// The virtualenv's python with the MCP Python SDK 2.x, which `tests/mcp/setup.sh` installs
/// (`cargo xtask ci` and `.ci/run` run it first; the test itself never reaches PyPI). A missing
/// venv or another major version fails the test with the command that fixes it.
fn python_with_mcp() -> PathBuf {
    let venv = std::env::var_os("MCP_VENV").map_or_else(|| repo_root().join("target/mcp-venv"), PathBuf::from);
    let python = venv.join("bin/python");
    let check = "import importlib.metadata as m, sys; import jsonschema; v = m.version('mcp'); \
                 sys.exit(0 if v.split('.')[0] == '2' else f'mcp {v} is installed, the test needs 2.x')";
    let output = Command::new(&python).args(["-c", check]).output();
    let problem = match &output {
        Ok(output) if output.status.success() => return python,
        Ok(output) => String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        Err(err) => format!("{}: {err}", python.display()),
    };
    panic!(
        "the MCP end-to-end test needs the MCP Python SDK 2.x and jsonschema in {} ({problem}); install them with \
         `bash crates/cli/tests/mcp/setup.sh` (cargo xtask ci runs it)",
        venv.display()
    );
}

#[test]
fn official_python_sdk_end_to_end() {
    let python = python_with_mcp();
    let script = repo_root().join("crates/cli/tests/mcp/e2e.py");
    let output =
        Command::new(&python).arg(&script).arg(env!("CARGO_BIN_EXE_editkit")).output().expect("the e2e script starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(output.status.success(), "e2e.py failed ({}):\n{stdout}\n{stderr}", output.status);
    assert!(stdout.contains("e2e: all checks passed"), "{stdout}");
}

/// A raw JSON-RPC session over the server's stdio.
pub(super) struct Session {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    /// The server's stdout lines, read by a thread so a dropped reply fails the test instead
    /// of hanging it.
    lines: std::sync::mpsc::Receiver<String>,
}

/// How long to wait for a line before deciding the server dropped the message. Generous: it
/// only turns a hang into a failure.
const NO_REPLY: std::time::Duration = std::time::Duration::from_secs(300);

impl Session {
    pub(super) fn start(args: &[&str]) -> Session {
        let mut session = Session::spawn(args);
        session.initialize();
        session
    }

    /// [`Session::start`] with the installed language servers first on `PATH`.
    pub(super) fn start_with_servers(args: &[&str]) -> Session {
        let mut session = Session::spawn_with(args, |command| {
            command.env("PATH", super::servers_path());
        });
        session.initialize();
        session
    }

    /// A server with no message sent yet.
    fn spawn(args: &[&str]) -> Session {
        Session::spawn_with(args, |_| ())
    }

    /// A server with no message sent yet, its command first adjusted by `adjust` (its
    /// environment).
    fn spawn_with(args: &[&str], adjust: impl FnOnce(&mut std::process::Command)) -> Session {
        let mut command = editkit();
        adjust(&mut command);
        let mut child = command
            .arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("editkit mcp starts");
        let stdin = child.stdin.take().expect("piped stdin");
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            loop {
                let mut line = String::new();
                match stdout.read_line(&mut line) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if sender.send(line).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        Session { child, stdin, lines }
    }

    /// `initialize` and `notifications/initialized`.
    fn initialize(&mut self) {
        let session = self;
        let init = session.request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "it", "version": "0"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "editkit");
        assert_eq!(init["result"]["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("the server reads stdin");
        self.stdin.flush().expect("flush");
    }

    /// Sends a request and returns the reply with its id; every stdout line must be JSON-RPC.
    pub(super) fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string());
        loop {
            let message = self.next_message();
            assert_eq!(message["jsonrpc"], "2.0", "{message}");
            if message["id"] == id {
                return message;
            }
        }
    }

    pub(super) fn finish(mut self) {
        drop(self.stdin);
        let status = self.child.wait().expect("the server exits");
        assert!(status.success(), "editkit mcp exited with {status}");
    }
}

#[test]
fn read_only_lists_only_tools_that_never_write() {
    let dir = workspace(&[("a.txt", "x\n")]);
    let mut session = Session::start(&["--read-only", "--root", &root_arg(dir.path())]);
    let listed = session.request(2, "tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().expect("a tool list");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"read_file") && names.contains(&"search_files"), "{names:?}");
    for forbidden in ["write_file", "edit_file", "apply_patch", "delete", "undo_edit"] {
        assert!(!names.contains(&forbidden), "{forbidden} listed in read-only mode");
    }
    // An editor session ends in a write: none of its tools is offered (before, six were and
    // editor_store was not).
    assert!(!names.iter().any(|name| name.starts_with("editor_")), "{names:?}");
    for tool in tools {
        assert_eq!(tool["annotations"]["readOnlyHint"], true, "{}", tool["name"]);
    }
    let refused =
        session.request(3, "tools/call", json!({"name": "write_file", "arguments": {"path": "a.txt", "content": "y"}}));
    assert!(refused.get("error").is_some(), "{refused}");
    session.finish();
    assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).expect("readable"), "x\n");
}

#[test]
fn tools_carry_schemas_annotations_and_structured_errors() {
    let dir = workspace(&[("a.txt", "same\nsame\n")]);
    let mut session = Session::start(&["--tools", "all", "--output-schemas", "--root", &root_arg(dir.path())]);
    let listed = session.request(2, "tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().expect("a tool list");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, editkit::tools::names(), "with --tools all every toolkit tool is served, in order");
    for tool in tools {
        assert_eq!(tool["inputSchema"]["type"], "object", "{}", tool["name"]);
        // The result, or the contract's error object: clients validate tool errors too.
        assert_eq!(tool["outputSchema"]["type"], "object", "{}", tool["name"]);
        assert_eq!(tool["outputSchema"]["anyOf"][0]["properties"]["ok"]["const"], true, "{}", tool["name"]);
        assert_eq!(tool["outputSchema"]["anyOf"][1]["properties"]["ok"]["const"], false, "{}", tool["name"]);
        assert!(tool["annotations"]["readOnlyHint"].is_boolean(), "{}", tool["name"]);
        assert!(tool["annotations"]["destructiveHint"].is_boolean(), "{}", tool["name"]);
        assert!(tool["annotations"]["idempotentHint"].is_boolean(), "{}", tool["name"]);
    }
    let edit =
        json!({"name": "edit_file", "arguments": {"path": "a.txt", "old_string": "same", "new_string": "other"}});
    let reply = session.request(3, "tools/call", edit);
    let result = &reply["result"];
    assert_eq!(result["isError"], true, "{reply}");
    assert_eq!(result["structuredContent"]["ok"], false);
    assert_eq!(result["structuredContent"]["error"]["kind"], "ambiguous");
    assert_eq!(result["structuredContent"]["error"]["lines"], json!([1, 2]));
    let text = result["content"][0]["text"].as_str().expect("a text block");
    assert!(text.starts_with("ambiguous: ") && text.contains("2 places"), "{text}");
    session.finish();
}

impl Session {
    /// Writes raw bytes as one line.
    fn send_bytes(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).expect("the server reads stdin");
        self.stdin.write_all(b"\n").expect("the server reads stdin");
        self.stdin.flush().expect("flush");
    }

    /// The next message the server writes.
    fn next_message(&mut self) -> Value {
        let line = match self.lines.recv_timeout(NO_REPLY) {
            Ok(line) => line,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                panic!("no reply: the server dropped the message without answering")
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                panic!("the server closed stdout instead of answering")
            }
        };
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout is not JSON-RPC ({e}): {line:.300}"))
    }
}

#[track_caller]
fn assert_rpc_error(message: &Value, code: i64, id: &Value) {
    assert_eq!(message["jsonrpc"], "2.0", "{message}");
    assert_eq!(message["error"]["code"], code, "{message}");
    assert_eq!(message["id"], *id, "{message}");
    assert!(message["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{message}");
}

#[test]
fn lines_that_are_not_json_get_a_parse_error_and_the_server_keeps_serving() {
    let dir = workspace(&[("a.txt", "x\n")]);
    let mut session = Session::start(&["--root", &root_arg(dir.path())]);
    session.send("{not json");
    assert_rpc_error(&session.next_message(), -32700, &Value::Null);
    session.send_bytes(b"{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": \"tools/list\xff\"}");
    let reply = session.next_message();
    assert_rpc_error(&reply, -32700, &Value::Null);
    assert!(reply["error"]["message"].as_str().unwrap().contains("UTF-8"), "{reply}");
    session.send_bytes(b"\xc3\x28 garbage");
    assert_rpc_error(&session.next_message(), -32700, &Value::Null);
    let listed = session.request(2, "tools/list", json!({}));
    assert!(listed["result"]["tools"].as_array().is_some_and(|t| !t.is_empty()), "{listed}");
    session.finish();
}

#[test]
fn a_17_mib_message_is_served() {
    let dir = workspace(&[]);
    // Above the default read limit (16 MiB), a file no tool could read back is not written.
    let mut session = Session::start(&["--root", &root_arg(dir.path()), "--max-read-bytes", "33554432"]);
    let content = "0123456789abcdef".repeat(17 << 16);
    assert_eq!(content.len(), 17 << 20);
    let reply = session.request(
        2,
        "tools/call",
        json!({"name": "write_file", "arguments": {"path": "big.txt", "content": content}}),
    );
    assert_eq!(reply["result"]["isError"], false, "{:.500}", reply.to_string());
    assert_eq!(std::fs::metadata(dir.path().join("big.txt")).unwrap().len(), 17 << 20);
    session.finish();
}

#[test]
fn a_message_over_the_limit_gets_an_error_naming_it_and_the_server_keeps_serving() {
    let dir = workspace(&[]);
    let mut session = Session::start(&["--root", &root_arg(dir.path())]);
    // 66 MiB of arguments, over the 65 MiB limit of one message (64 MiB of arguments).
    let mut line = br#"{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "write_file", "arguments": {"path": "huge.txt", "content": ""#.to_vec();
    line.resize(line.len() + (66 << 20), b'x');
    line.extend_from_slice(br#""}}}"#);
    session.send_bytes(&line);
    let reply = session.next_message();
    assert_rpc_error(&reply, -32600, &json!(9));
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains(&(65u64 << 20).to_string()), "{message}");
    assert!(!dir.path().join("huge.txt").exists());
    let listed = session.request(2, "tools/list", json!({}));
    assert!(listed["result"]["tools"].is_array(), "{listed}");
    session.finish();
}

#[test]
fn a_key_given_twice_in_a_call_is_refused_and_nothing_runs() {
    let dir = workspace(&[("a.txt", "keep\n"), ("b.txt", "keep\n")]);
    let mut session = Session::start(&["--root", &root_arg(dir.path())]);
    // In the arguments: a tool error `invalid_args` naming the key, as for any bad argument.
    session.send(r#"{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "delete", "arguments": {"path": "b.txt", "path": "a.txt"}}}"#);
    let reply = session.next_message();
    assert_eq!(reply["id"], 3, "{reply}");
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    let error = &reply["result"]["structuredContent"]["error"];
    assert_eq!(error["kind"], "invalid_args", "{reply}");
    assert_eq!(error["field"], "path", "{reply}");
    // Nested in the arguments.
    session.send(r#"{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "delete", "arguments": {"path": "a.txt", "x": {"y": 1, "y": 2}}}}"#);
    let reply = session.next_message();
    assert_eq!(reply["result"]["structuredContent"]["error"]["field"], "x.y", "{reply}");
    // In the envelope: the tool name twice is an invalid request.
    session.send(r#"{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "read_file", "name": "delete", "arguments": {"path": "a.txt"}}}"#);
    let reply = session.next_message();
    assert_rpc_error(&reply, -32600, &json!(5));
    assert!(reply["error"]["message"].as_str().unwrap().contains("`name`"), "{reply}");
    assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "keep\n");
    assert_eq!(std::fs::read_to_string(dir.path().join("b.txt")).unwrap(), "keep\n");
    let listed = session.request(6, "tools/list", json!({}));
    assert!(listed["result"]["tools"].is_array(), "{listed}");
    session.finish();
}

#[test]
fn messages_before_the_session_opens_do_not_end_it() {
    let dir = workspace(&[("a.txt", "x\n")]);
    let mut session = Session::spawn(&["--root", &root_arg(dir.path())]);
    // The Python SDK sends roots/list_changed before initialize in its auto mode.
    session.send(&json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}).to_string());
    assert_eq!(session.request(1, "ping", json!({}))["result"], json!({}));
    let early = session.request(2, "tools/list", json!({}));
    assert_rpc_error(&early, -32600, &json!(2));
    assert!(early["error"]["message"].as_str().unwrap().contains("before `initialize`"), "{early}");
    let init = session.request(
        3,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "it", "version": "0"}}),
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "editkit");
    // Between initialize and notifications/initialized.
    session.send(&json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}).to_string());
    assert_rpc_error(&session.request(4, "tools/list", json!({})), -32600, &json!(4));
    session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
    let listed = session.request(5, "tools/list", json!({}));
    assert!(listed["result"]["tools"].as_array().is_some_and(|t| !t.is_empty()), "{listed}");
    session.finish();
}

#[test]
fn malformed_calls_get_invalid_params_and_made_up_cursors_are_refused() {
    let dir = workspace(&[("a.txt", "x\n")]);
    let mut session = Session::start(&["--root", &root_arg(dir.path())]);
    let cases = [
        json!({"name": "read_file", "arguments": [1]}),
        json!({"name": "read_file", "arguments": "path=a.txt"}),
        json!({"arguments": {"path": "a.txt"}}),
        json!({"name": 7, "arguments": {}}),
        json!("read_file"),
    ];
    for (n, params) in cases.into_iter().enumerate() {
        let id = 10 + n as u64;
        let reply = session.request(id, "tools/call", params.clone());
        assert_rpc_error(&reply, -32602, &json!(id));
        assert!(reply["error"]["message"].as_str().unwrap().starts_with("Invalid params"), "{params}: {reply}");
    }
    let paged = session.request(20, "tools/list", json!({"cursor": "made-up"}));
    assert_rpc_error(&paged, -32602, &json!(20));
    // The session goes on.
    let read = session.request(21, "tools/call", json!({"name": "read_file", "arguments": {"path": "a.txt"}}));
    assert_eq!(read["result"]["structuredContent"]["content"], "x\n", "{read}");
    session.finish();
}

/// The text block of a tool result.
fn text_of(reply: &Value) -> &str {
    reply["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text block: {reply:.300}"))
}

#[test]
fn the_default_tool_list_is_the_core_set_in_under_21_kb() {
    let dir = workspace(&[]);
    let mut session = Session::start(&["--root", &root_arg(dir.path())]);
    let listed = session.request(2, "tools/list", json!({}));
    let bytes = listed["result"].to_string().len();
    // 20 KB until edit_file took `edits` and `stale` (issue 36): the list was 19.9 KB already.
    assert!(bytes < 21_000, "tools/list is {bytes} bytes of JSON");
    let names: Vec<&str> =
        listed["result"]["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    let core = editkit::tools::selected_specs(&editkit::tools::ToolSelection::core());
    assert_eq!(names, core.iter().map(|s| s.name).collect::<Vec<_>>());
    for needed in [
        "read_file",
        "read_files",
        "edit_file",
        "apply_patch",
        "search_files",
        "glob",
        "tree",
        "move",
        "delete",
        "undo_edit",
        "list_roots",
    ] {
        assert!(names.contains(&needed), "{needed} missing from the default set {names:?}");
    }
    // A tool outside the set is refused, with what to do.
    let refused = session.request(3, "tools/call", json!({"name": "editor_load", "arguments": {"path": "a"}}));
    assert!(refused["error"]["message"].as_str().unwrap().contains("unknown tool"), "{refused}");
    session.finish();
    // The seed-compatible tools come in named sets.
    let mut session = Session::start(&["--tools", "core,seed,editor", "--root", &root_arg(dir.path())]);
    let listed = session.request(2, "tools/list", json!({}));
    let names: Vec<&str> =
        listed["result"]["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    for needed in ["edit_python_file", "write_python_file", "editor_store", "edit_file"] {
        assert!(names.contains(&needed), "{needed} missing from {names:?}");
    }
    session.finish();
}

#[test]
fn a_text_only_client_reads_a_200_kb_file_page_by_page() {
    let body: String = (0..5500).map(|n| format!("line {n:05} with \"quotes\" and a tab\there\n")).collect();
    assert!(body.len() > 200_000);
    let dir = workspace(&[("big.txt", &body)]);
    let mut session = Session::start(&["--root", &root_arg(dir.path())]);
    let mut seen = String::new();
    let mut offset: Option<u64> = None;
    let mut pages = 0;
    loop {
        let mut args = json!({"path": "big.txt"});
        if let Some(offset) = offset {
            args["offset"] = json!(offset);
        }
        let reply = session.request(10 + pages, "tools/call", json!({"name": "read_file", "arguments": args}));
        pages += 1;
        // Only the text block, as a client that forwards content[].text sees it.
        let text = text_of(&reply);
        let (header, lines) = text.split_once('\n').expect("a header line");
        assert!(header.starts_with("big.txt · lines "), "{header}");
        assert!(header.contains("sha256 "), "{header}");
        assert!(text.len() < 80_000, "a page is {} bytes", text.len());
        for line in lines.split_inclusive('\n') {
            if line.starts_with('[') {
                continue;
            }
            let (number, rest) = line.trim_start().split_once('\t').expect("a numbered line");
            assert_eq!(number.parse::<usize>().unwrap(), seen.lines().count() + 1, "{line}");
            seen.push_str(rest);
        }
        match header.split("read on with offset ").nth(1) {
            Some(next) => offset = Some(next.trim().parse().expect("an offset")),
            None => break,
        }
        assert!(pages < 20, "paging does not end");
    }
    assert!(pages >= 3, "{pages} pages");
    assert_eq!(seen, body, "the pages put together are the file");
    session.finish();
}

#[test]
fn a_five_line_read_of_a_4500_line_file_answers_under_4_kb() {
    let body: String = (0..4500).map(|n| format!("def f{n}(x):\n    return x + {n}\n")).collect();
    let dir = workspace(&[("big.py", &body)]);
    let mut session = Session::start(&["--root", &root_arg(dir.path())]);
    let reply = session.request(
        2,
        "tools/call",
        json!({"name": "read_file", "arguments": {"path": "big.py", "offset": 100, "limit": 5}}),
    );
    let bytes = reply.to_string().len();
    assert!(bytes < 4096, "the reply is {bytes} bytes");
    let result = &reply["result"]["structuredContent"];
    assert_eq!(
        (result["start_line"].as_u64(), result["end_line"].as_u64(), result["total_lines"].as_u64()),
        (Some(100), Some(104), Some(9000))
    );
    assert!(text_of(&reply).starts_with("big.py · lines 100-104 of 9000 · sha256 "), "{}", text_of(&reply));
    let past =
        session.request(3, "tools/call", json!({"name": "read_file", "arguments": {"path": "big.py", "offset": 9001}}));
    assert_eq!(past["result"]["isError"], true);
    assert!(text_of(&past).contains("9000 lines"), "{}", text_of(&past));
    session.finish();
}

#[test]
fn an_old_string_copied_with_line_numbers_lands() {
    let dir = workspace(&[("a.py", "def f():\n    return 1\n\ndef g():\n    return 2\n")]);
    let mut session = Session::start(&["--root", &root_arg(dir.path())]);
    let read = session.request(2, "tools/call", json!({"name": "read_file", "arguments": {"path": "a.py"}}));
    let view: Vec<&str> = text_of(&read).lines().skip(1).collect();
    // The model copies lines 4-5 of the view, numbers and all.
    let old = format!("{}\n{}", view[3], view[4]);
    let new = "def g():\n    return 3";
    let edit = session.request(
        3,
        "tools/call",
        json!({"name": "edit_file", "arguments": {"path": "a.py", "old_string": old, "new_string": new}}),
    );
    assert_eq!(edit["result"]["isError"], false, "{edit}");
    assert_eq!(edit["result"]["structuredContent"]["line_numbers_stripped"], true);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
        "def f():\n    return 1\n\ndef g():\n    return 3\n"
    );
    session.finish();
}

impl Session {
    /// Waits for the server's request `method`, and answers it with `result`.
    fn answer(&mut self, method: &str, result: Value) {
        loop {
            let message = self.next_message();
            if message["method"] == method {
                let id = message["id"].clone();
                assert!(!id.is_null(), "{message}");
                self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string());
                return;
            }
        }
    }
}

#[test]
fn roots_come_from_the_client_and_list_changed_switches_them() {
    let first = workspace(&[("a.txt", "first\n")]);
    let second = workspace(&[("a.txt", "second\n")]);
    let uri = |dir: &tempfile::TempDir| format!("file://{}", dir.path().display());
    // No --root: the roots are the client's.
    let mut session = Session::spawn(&[]);
    let init = session.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {"roots": {"listChanged": true}}, "clientInfo": {"name": "it", "version": "0"}}),
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "editkit");
    session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
    session.answer("roots/list", json!({"roots": [{"uri": uri(&first), "name": "first"}]}));
    let read = session.request(2, "tools/call", json!({"name": "read_file", "arguments": {"path": "a.txt"}}));
    assert_eq!(read["result"]["structuredContent"]["content"], "first\n", "{read}");
    let roots = session.request(3, "tools/call", json!({"name": "list_roots", "arguments": {}}));
    let listed = &roots["result"]["structuredContent"]["roots"];
    assert_eq!(
        listed[0]["path"].as_str().map(std::path::PathBuf::from),
        Some(first.path().canonicalize().unwrap()),
        "{roots}"
    );
    session.send(&json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}).to_string());
    session.answer("roots/list", json!({"roots": [{"uri": uri(&second)}]}));
    let read = session.request(4, "tools/call", json!({"name": "read_file", "arguments": {"path": "a.txt"}}));
    assert_eq!(read["result"]["structuredContent"]["content"], "second\n", "{read}");
    // The first root is no longer the workspace.
    let outside = session.request(
        5,
        "tools/call",
        json!({"name": "read_file", "arguments": {"path": first.path().join("a.txt").display().to_string()}}),
    );
    assert_eq!(outside["result"]["structuredContent"]["error"]["kind"], "outside_workspace", "{outside}");
    // Roots that cannot be used refuse every call (never a silent fallback), until usable
    // ones come.
    session.send(&json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}).to_string());
    session.answer("roots/list", json!({"roots": [{"uri": "https://example.com/repo"}]}));
    let refused = session.request(6, "tools/call", json!({"name": "read_file", "arguments": {"path": "a.txt"}}));
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert!(text_of(&refused).contains("no local root"), "{}", text_of(&refused));
    // Refused as what it is, outside every usable root, not as a bad argument.
    let error = &refused["result"]["structuredContent"]["error"];
    assert_eq!(error["kind"], "outside_workspace", "{refused}");
    assert!(error["message"].as_str().is_some_and(|m| m.ends_with("; fix the client's roots")), "{refused}");
    assert!(
        text_of(&refused).starts_with("outside_workspace: the client named no local root"),
        "{}",
        text_of(&refused)
    );
    session.send(&json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}).to_string());
    session.answer("roots/list", json!({"roots": [{"uri": uri(&second)}]}));
    let read = session.request(7, "tools/call", json!({"name": "read_file", "arguments": {"path": "a.txt"}}));
    assert_eq!(read["result"]["structuredContent"]["content"], "second\n", "{read}");
    session.finish();
}

#[test]
fn a_search_over_30000_files_reports_progress_and_stops_on_cancel() {
    let dir = tempfile::tempdir().unwrap();
    for n in 0..30_000 {
        let sub = dir.path().join(format!("d{:03}", n % 300));
        if n < 300 {
            std::fs::create_dir_all(&sub).unwrap();
        }
        std::fs::write(sub.join(format!("f{n}.txt")), "plain text, no match here\n").unwrap();
    }
    let mut session = Session::start(&["--root", &root_arg(dir.path())]);
    let call =
        json!({"name": "search_files", "arguments": {"pattern": "needle"}, "_meta": {"progressToken": "search-1"}});
    session.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": call}).to_string());
    // The first progress notification.
    let first = loop {
        let message = session.next_message();
        assert_ne!(message["id"], 7, "the search ended before any progress: {message}");
        if message["method"] == "notifications/progress" {
            break message;
        }
    };
    assert_eq!(first["params"]["progressToken"], "search-1", "{first}");
    let at_cancel = first["params"]["progress"].as_f64().unwrap();
    assert!(at_cancel > 0.0 && at_cancel < 30_000.0, "{first}");
    let cancelled = std::time::Instant::now();
    session.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7, "reason": "test"}})
            .to_string(),
    );
    // A ping round trip, then a pause long enough for the rest of the search to report if it
    // went on; only the notifications already in flight may follow the cancel.
    session.send(&json!({"jsonrpc": "2.0", "id": 8, "method": "ping"}).to_string());
    let mut late = Vec::new();
    loop {
        let message = session.next_message();
        assert_ne!(message["id"], 7, "a cancelled call was answered: {message}");
        if message["id"] == 8 {
            break;
        }
        late.push((cancelled.elapsed(), message["params"]["progress"].as_f64().unwrap_or(0.0)));
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    session.send(&json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}).to_string());
    loop {
        let message = session.next_message();
        assert_ne!(message["id"], 7, "a cancelled call was answered: {message}");
        if message["id"] == 9 {
            break;
        }
        late.push((cancelled.elapsed(), message["params"]["progress"].as_f64().unwrap_or(0.0)));
    }
    // Stopped: at most the two notifications already in flight, for files visited before the
    // cancel was seen (counted, not timed: on a loaded machine one may be written late).
    assert!(late.len() <= 2, "the search went on after the cancel: {late:?}");
    for (elapsed, progress) in &late {
        assert!(
            *progress <= at_cancel + 3_000.0,
            "progress {progress} came {elapsed:?} after the cancel at {at_cancel}: the search went on"
        );
    }
    // The session goes on: a search with nothing to cancel answers in full.
    let reply = session.request(
        10,
        "tools/call",
        json!({"name": "search_files", "arguments": {"pattern": "needle", "path": "d000"}}),
    );
    assert_eq!(reply["result"]["structuredContent"]["files_searched"], 100, "{reply}");
    session.finish();
}

#[test]
fn http_binds_only_loopback_unless_allowed_and_needs_a_long_token() {
    let dir = workspace(&[]);
    let root = root_arg(dir.path());
    let output = super::run(&["mcp", "--root", &root, "--http", "0.0.0.0:0"], "");
    assert_eq!(output.status.code(), Some(2));
    assert!(super::stderr(&output).contains("not a loopback address"), "{}", super::stderr(&output));
    let output = super::run(&["mcp", "--root", &root, "--http", "127.0.0.1:0", "--token", "short"], "");
    assert_eq!(output.status.code(), Some(2));
    assert!(super::stderr(&output).contains("at least 16 characters"), "{}", super::stderr(&output));
    // A token without --http is a usage error.
    let output = super::run(&["mcp", "--root", &root, "--token", "0123456789abcdef"], "");
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn a_patch_with_a_progress_token_reports_its_files_before_the_reply() {
    let dir = workspace(&[("a.txt", "a\n"), ("b.txt", "b\n"), ("c.txt", "c\n")]);
    let mut session = Session::start(&["--root", &root_arg(dir.path())]);
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B\n*** Update File: c.txt\n@@\n-c\n+C\n*** End Patch\n";
    let call = json!({"name": "apply_patch", "arguments": {"patch": patch}, "_meta": {"progressToken": 41}});
    session.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call}).to_string());
    let mut progress = Vec::new();
    let reply = loop {
        let message = session.next_message();
        if message["id"] == 3 {
            break message;
        }
        assert_eq!(message["method"], "notifications/progress", "{message}");
        assert_eq!(message["params"]["progressToken"], 41, "{message}");
        progress.push(message["params"]["progress"].as_f64().unwrap() as u64);
    };
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    // The three files planned, then each one checked.
    assert_eq!(progress, [3, 4, 5, 6]);
    assert_eq!(std::fs::read_to_string(dir.path().join("c.txt")).unwrap(), "C\n");
    session.finish();
}

/// Protocol 2026-07-28's request `_meta`: its version and the client's capabilities.
fn meta_2026() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}})
}

#[test]
fn protocol_2026_07_28_is_served_without_a_handshake_and_handshake_revisions_as_before() {
    let dir = workspace(&[("a.txt", "alpha\n")]);
    let root = root_arg(dir.path());
    let mut session = Session::spawn(&["--root", &root]);
    // server/discover before anything else, as the 2026-07-28 clients probe.
    let discover = session.request(1, "server/discover", json!({"_meta": meta_2026()}));
    let versions = discover["result"]["supportedVersions"].as_array().unwrap_or_else(|| panic!("{discover}"));
    for version in ["2026-07-28", "2025-11-25", "2025-06-18"] {
        assert!(versions.contains(&json!(version)), "{version} is not offered: {discover}");
    }
    let instructions = discover["result"]["instructions"].as_str().unwrap_or_default();
    assert!(instructions.contains("expected_hash"), "{discover}");
    // Each request names its version; the tool list says how long it keeps.
    let listed = session.request(2, "tools/list", json!({"_meta": meta_2026()}));
    assert!(listed["result"]["ttlMs"].as_u64().is_some_and(|ttl| ttl > 0), "{listed}");
    assert_eq!(listed["result"]["cacheScope"], "private", "{listed}");
    // A notification once the session is open is no message out of order.
    session
        .send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}).to_string());
    let read = session.request(
        3,
        "tools/call",
        json!({"name": "read_file", "arguments": {"path": "a.txt"}, "_meta": meta_2026()}),
    );
    assert_eq!(read["result"]["structuredContent"]["content"], "alpha\n", "{read}");
    // Without its metadata a request is refused (rmcp: invalid params), and the session goes on.
    let bare = session.request(4, "tools/list", json!({}));
    assert!(bare["error"]["message"].as_str().is_some_and(|m| m.contains("_meta")), "{bare}");
    let again = session.request(5, "tools/list", json!({"_meta": meta_2026()}));
    // Deterministic: the same list, byte for byte, every time and from every process.
    assert_eq!(again["result"], listed["result"]);
    let mut other = Session::spawn(&["--root", &root]);
    let elsewhere = other.request(1, "tools/list", json!({"_meta": meta_2026()}));
    assert_eq!(elsewhere["result"].to_string(), listed["result"].to_string());
    other.finish();
    session.finish();

    // A handshake client sees the list as before: no cache hints, no resultType.
    let mut legacy = Session::start(&["--root", &root]);
    let listed = legacy.request(2, "tools/list", json!({}));
    let result = listed["result"].as_object().unwrap_or_else(|| panic!("{listed}"));
    assert!(!result.contains_key("ttlMs") && !result.contains_key("resultType"), "{listed}");
    legacy.finish();
}

/// Protocol 2026-07-28's request `_meta` of a client that declares the tasks extension.
fn meta_with_tasks() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}})
}

/// Polls `tasks/get` until the task is no longer working; its last state.
fn wait_for_task(session: &mut Session, id: &mut u64, task: &str) -> Value {
    for _ in 0..600 {
        *id += 1;
        let got = session.request(*id, "tasks/get", json!({"taskId": task, "_meta": meta_with_tasks()}));
        let state = got["result"].clone();
        assert!(state.is_object(), "{got}");
        if state["status"] != "working" {
            return state;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("task {task} still working after 30 s");
}

#[test]
fn long_work_runs_as_a_task_for_clients_that_declare_the_extension() {
    // A patch over the bound (33 files): a task at once.
    let files: Vec<(String, String)> = (0..33).map(|n| (format!("f{n}.txt"), format!("value {n}\n"))).collect();
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, c)| (p.as_str(), c.as_str())).collect();
    let dir = workspace(&refs);
    let mut patch = String::from("*** Begin Patch\n");
    for n in 0..33 {
        patch.push_str(&format!("*** Update File: f{n}.txt\n@@\n-value {n}\n+patched {n}\n"));
    }
    patch.push_str("*** End Patch\n");
    let mut session = Session::spawn(&["--root", &root_arg(dir.path())]);
    let created = session.request(
        1,
        "tools/call",
        json!({"name": "apply_patch", "arguments": {"patch": patch}, "_meta": meta_with_tasks()}),
    );
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task = created["result"]["taskId"].as_str().unwrap_or_else(|| panic!("{created}")).to_owned();
    let mut id = 1;
    let done = wait_for_task(&mut session, &mut id, &task);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["structuredContent"]["ok"], true, "{done}");
    for n in 0..33 {
        assert_eq!(std::fs::read_to_string(dir.path().join(format!("f{n}.txt"))).unwrap(), format!("patched {n}\n"));
    }
    // A client without the extension gets the same work synchronously.
    let plain = session.request(
        100,
        "tools/call",
        json!({"name": "apply_patch", "arguments": {"patch": patch.replace("-value", "-patched").replace("+patched", "+again")},
            "_meta": meta_2026()}),
    );
    assert_eq!(plain["result"]["structuredContent"]["ok"], true, "{plain}");
    assert!(plain["result"].get("taskId").is_none(), "{plain}");
    // An unknown task is an error naming it.
    let unknown = session.request(101, "tasks/get", json!({"taskId": "no-such-task", "_meta": meta_with_tasks()}));
    let says = |m: &str| m.contains("no-such-task") && m.contains("minutes after it ends");
    assert!(unknown["error"]["message"].as_str().is_some_and(says), "{unknown}");
    session.finish();

    // A walk that runs past --task-after-ms (0: at once) goes on as a task.
    let mut session = Session::spawn(&["--root", &root_arg(dir.path()), "--task-after-ms", "0"]);
    let created = session.request(
        1,
        "tools/call",
        json!({"name": "search_files", "arguments": {"pattern": "again 3$"}, "_meta": meta_with_tasks()}),
    );
    let task = created["result"]["taskId"].as_str().unwrap_or_else(|| panic!("{created}")).to_owned();
    let mut id = 1;
    let done = wait_for_task(&mut session, &mut id, &task);
    assert_eq!(done["status"], "completed", "{done}");
    let found: Vec<&str> = done["result"]["structuredContent"]["results"]
        .as_array()
        .unwrap_or_else(|| panic!("{done}"))
        .iter()
        .filter_map(|r| r["file"].as_str())
        .collect();
    assert_eq!(found, ["f3.txt"], "{done}");
    session.finish();
}

#[test]
fn a_big_listing_is_its_head_and_a_resource_link_to_the_whole() {
    let files: Vec<(String, String)> = (0..1500).map(|n| (format!("dir/file_{n:04}.txt"), String::new())).collect();
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, c)| (p.as_str(), c.as_str())).collect();
    let dir = workspace(&refs);
    let mut session = Session::spawn(&["--root", &root_arg(dir.path())]);
    let globbed = session.request(
        1,
        "tools/call",
        json!({"name": "glob", "arguments": {"pattern": "**/*.txt"}, "_meta": meta_2026()}),
    );
    let content = globbed["result"]["content"].as_array().unwrap_or_else(|| panic!("{globbed}"));
    let head = content[0]["text"].as_str().unwrap_or_default();
    assert_eq!(content[1]["type"], "resource_link", "{globbed}");
    let uri = content[1]["uri"].as_str().unwrap_or_default().to_owned();
    assert!(head.len() < 17 << 10 && head.contains(&uri) && head.contains("resources/read"), "{head:.300}");
    assert!(head.starts_with("1500 files matching") && head.contains("\ndir/file_0000.txt\n"), "{head:.300}");
    // The structured content keeps every match.
    assert_eq!(
        globbed["result"]["structuredContent"]["matches"].as_array().map(Vec::len),
        Some(1500),
        "{globbed:.300}"
    );
    let read = session.request(2, "resources/read", json!({"uri": uri, "_meta": meta_2026()}));
    let whole = read["result"]["contents"][0]["text"].as_str().unwrap_or_else(|| panic!("{read:.300}"));
    assert!(whole.starts_with(head.lines().next().unwrap_or_default()) && whole.contains("dir/file_1499.txt"));
    assert_eq!(whole.lines().filter(|line| line.starts_with("dir/")).count(), 1500);
    let gone = session.request(3, "resources/read", json!({"uri": "editkit://results/0000", "_meta": meta_2026()}));
    assert!(gone["error"]["message"].as_str().is_some_and(|m| m.contains("run the tool again")), "{gone}");
    session.finish();

    // A handshake client gets the whole text, as before.
    let mut legacy = Session::start(&["--root", &root_arg(dir.path())]);
    let globbed = legacy.request(2, "tools/call", json!({"name": "glob", "arguments": {"pattern": "**/*.txt"}}));
    let content = globbed["result"]["content"].as_array().unwrap_or_else(|| panic!("{globbed}"));
    assert_eq!(content.len(), 1, "{globbed:.300}");
    assert!(content[0]["text"].as_str().is_some_and(|t| t.contains("dir/file_1499.txt")));
    legacy.finish();
}

#[test]
fn the_results_folder_is_no_tools_business_when_a_root_holds_the_state_home() {
    // A root holding the user's home holds the default state home, and so the folder of every
    // server's results on this machine: no tool may list, read or write it.
    let files: Vec<(String, String)> = (0..1500).map(|n| (format!("dir/file_{n:04}.txt"), String::new())).collect();
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, c)| (p.as_str(), c.as_str())).collect();
    let home = workspace(&refs);
    std::fs::create_dir_all(home.path().join(".local/state/editkit")).unwrap();
    let mut session = Session::spawn_with(&["--root", &root_arg(home.path()), "--tools", "all"], |command| {
        command.env("HOME", home.path()).env_remove("XDG_STATE_HOME");
    });
    let globbed = session.request(
        1,
        "tools/call",
        json!({"name": "glob", "arguments": {"pattern": "dir/*.txt"}, "_meta": meta_2026()}),
    );
    let uri = globbed["result"]["content"][1]["uri"].as_str().unwrap_or_else(|| panic!("no link: {globbed:.400}"));
    let id = uri.rsplit('/').next().unwrap_or_default().to_owned();
    let results = ".local/state/editkit/.mcp-results";
    assert!(home.path().join(results).join(format!("{id}.txt")).is_file(), "the text is kept elsewhere");
    let task = "0f8fad5b-d9cb-469f-a165-70867728950e";
    let calls = [
        ("read_file", json!({"path": format!("{results}/{id}.txt")})),
        ("list_dir", json!({"path": results})),
        ("glob", json!({"pattern": ".local/state/editkit/**", "hidden": true})),
        ("write_file", json!({"path": format!("{results}/task-{task}.json"), "content": "{}"})),
    ];
    for (n, (tool, arguments)) in calls.into_iter().enumerate() {
        let answer = session.request(
            n as u64 + 2,
            "tools/call",
            json!({"name": tool, "arguments": arguments, "_meta": meta_2026()}),
        );
        let result = &answer["result"];
        let listed = result["structuredContent"]["matches"].as_array().is_some_and(|m| !m.is_empty());
        assert!(result["isError"] == true || (tool == "glob" && !listed), "{tool} {arguments}: {answer:.600}");
    }
    assert!(!home.path().join(results).join(format!("task-{task}.json")).exists());
    session.finish();
}

#[test]
fn a_results_folder_others_may_list_is_made_private_before_a_text_goes_in() {
    use std::os::unix::fs::PermissionsExt as _;
    // Names in the folder are the ids that reach results and tasks: nobody else may list them.
    let files: Vec<(String, String)> = (0..1500).map(|n| (format!("dir/file_{n:04}.txt"), String::new())).collect();
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, c)| (p.as_str(), c.as_str())).collect();
    let dir = workspace(&refs);
    let state = tempfile::tempdir().unwrap();
    let results = state.path().join("editkit/.mcp-results");
    std::fs::create_dir_all(&results).unwrap();
    std::fs::set_permissions(&results, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut session = Session::spawn_with(&["--root", &root_arg(dir.path())], |command| {
        command.env("XDG_STATE_HOME", state.path());
    });
    let globbed = session.request(
        1,
        "tools/call",
        json!({"name": "glob", "arguments": {"pattern": "dir/*.txt"}, "_meta": meta_2026()}),
    );
    assert_eq!(globbed["result"]["content"][1]["type"], "resource_link", "{globbed:.400}");
    let mode = std::fs::metadata(&results).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "the results folder is {mode:o}");
    session.finish();
}

/// The 2025-11-25 tasks (the handshake revision's experimental tasks, which the TypeScript SDK
/// 1.x speaks): a client that declares `capabilities.tasks` at initialize and sends
/// `params.task` gets a task, polled with `tasks/get` and answered by `tasks/result`.
#[test]
fn a_2025_11_25_client_that_declares_tasks_gets_its_task_augmented_call_as_a_task() {
    let files: Vec<(String, String)> = (0..40).map(|n| (format!("f{n}.txt"), format!("value {n}\n"))).collect();
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, c)| (p.as_str(), c.as_str())).collect();
    let dir = workspace(&refs);
    let mut patch = String::from("*** Begin Patch\n");
    for n in 0..40 {
        patch.push_str(&format!("*** Update File: f{n}.txt\n@@\n-value {n}\n+patched {n}\n"));
    }
    patch.push_str("*** End Patch\n");
    let mut session = Session::spawn(&["--root", &root_arg(dir.path())]);
    let init = session.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {"tasks": {"cancel": {}}},
            "clientInfo": {"name": "it", "version": "0"}}),
    );
    assert_eq!(init["result"]["capabilities"]["tasks"]["requests"]["tools"]["call"], json!({}), "{init}");
    session.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let list = session.request(2, "tools/list", json!({}));
    let support = |name: &str| {
        list["result"]["tools"]
            .as_array()
            .and_then(|tools| tools.iter().find(|t| t["name"] == name))
            .map(|t| t["execution"].clone())
    };
    assert_eq!(support("apply_patch"), Some(json!({"taskSupport": "optional"})), "{list:.300}");
    assert_eq!(support("read_file"), Some(Value::Null), "{list:.300}");

    let created = session.request(
        3,
        "tools/call",
        json!({"name": "apply_patch", "arguments": {"patch": patch}, "task": {"ttl": 60000}}),
    );
    let task = &created["result"]["task"];
    let id = task["taskId"].as_str().unwrap_or_else(|| panic!("{created}")).to_owned();
    assert!(task["ttl"].is_u64() && task["pollInterval"].is_u64() && task["createdAt"].is_string(), "{created}");
    let mut n = 10;
    let polled = loop {
        n += 1;
        let polled = session.request(n, "tasks/get", json!({"taskId": id}));
        if polled["result"]["status"] != "working" {
            break polled;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(polled["result"]["status"], "completed", "{polled}");
    assert_eq!(polled["result"]["taskId"], id.as_str(), "{polled}");
    let result = session.request(100, "tasks/result", json!({"taskId": id}));
    assert_eq!(result["result"]["structuredContent"]["ok"], true, "{result:.300}");
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str(),
        "{result:.300}"
    );
    for n in 0..40 {
        assert_eq!(std::fs::read_to_string(dir.path().join(format!("f{n}.txt"))).unwrap(), format!("patched {n}\n"));
    }
    // A tool that does not run as a task refuses the augmentation.
    let refused =
        session.request(101, "tools/call", json!({"name": "read_file", "arguments": {"path": "f1.txt"}, "task": {}}));
    assert!(refused["error"]["message"].as_str().is_some_and(|m| m.contains("apply_patch")), "{refused}");
    // A big search: its head and a link this client can read (it declared the newer features).
    let big: String = (0..900).map(|n| format!("needle {n}\n")).collect();
    std::fs::write(dir.path().join("big.txt"), &big).unwrap();
    let found = session.request(
        102,
        "tools/call",
        json!({"name": "search_files", "arguments": {"pattern": "needle", "max_results": 1000}}),
    );
    let content = found["result"]["content"].as_array().unwrap_or_else(|| panic!("{found:.300}"));
    assert_eq!(content[1]["type"], "resource_link", "{found:.300}");
    let uri = content[1]["uri"].as_str().unwrap_or_default();
    assert!(
        content[0]["text"].as_str().is_some_and(|t| t.contains(uri) && t.contains("resources/read")),
        "{found:.300}"
    );
    let read = session.request(103, "resources/read", json!({"uri": uri}));
    let whole = read["result"]["contents"][0]["text"].as_str().unwrap_or_else(|| panic!("{read:.300}"));
    assert_eq!(whole.lines().filter(|line| line.starts_with("big.txt:")).count(), 900);
    session.finish();

    // A 2025-11-25 client that does not declare tasks: as before (no capability, no execution,
    // the call runs synchronously), even when it declares the 2026-07-28 tasks extension, whose
    // task results it would not read (the Inspector 2.12 declares it on 2025-11-25).
    let mut plain = Session::spawn(&["--root", &root_arg(dir.path())]);
    let init = plain.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
            "clientInfo": {"name": "it", "version": "0"}}),
    );
    assert!(init["result"]["capabilities"].get("tasks").is_none(), "{init}");
    plain.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let list = plain.request(2, "tools/list", json!({}));
    assert!(!list.to_string().contains("taskSupport"), "{list:.300}");
    let back = patch.replace("-value", "-patched").replace("+patched", "+value");
    let called =
        plain.request(3, "tools/call", json!({"name": "apply_patch", "arguments": {"patch": back}, "task": {}}));
    assert_eq!(called["result"]["structuredContent"]["ok"], true, "{called:.300}");
    let unknown = plain.request(4, "tasks/result", json!({"taskId": id}));
    assert!(unknown["error"].is_object(), "{unknown}");
    let found = plain.request(
        5,
        "tools/call",
        json!({"name": "search_files", "arguments": {"pattern": "needle", "max_results": 1000}}),
    );
    assert_eq!(found["result"]["content"].as_array().map(Vec::len), Some(1), "the whole text inline: {found:.300}");
    plain.finish();
}

/// `PATH` with the language servers `cargo xtask lsp-tools` installs first; fails, naming
/// that command, when one is missing.
pub(super) fn servers_path() -> std::ffi::OsString {
    let tools = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/lsp-tools");
    let (venv, npm) = (tools.join("venv/bin"), tools.join("npm/node_modules/.bin"));
    for needed in [venv.join("basedpyright-langserver"), npm.join("typescript-language-server")] {
        assert!(needed.exists(), "`{}` is missing: run `cargo xtask lsp-tools`", needed.display());
    }
    let mut entries = vec![venv.canonicalize().expect("set up"), npm.canonicalize().expect("set up")];
    entries.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(entries).expect("set up")
}

/// `editkit mcp` gives each write the server's diagnostics by default (a long-lived server
/// keeps the language server warm); `--server-diagnostics off` leaves them out.
#[test]
fn mcp_gives_server_diagnostics_after_writes_unless_turned_off() {
    for (flag, expected) in [(None, Some("fresh")), (Some("off"), None)] {
        let dir = workspace(&[("a.py", "def f() -> int:\n    return 1\n")]);
        let root = root_arg(dir.path());
        let mut args = vec!["--root", root.as_str()];
        if let Some(flag) = flag {
            args.extend(["--server-diagnostics", flag]);
        }
        let mut session = Session::spawn_with(&args, |command| {
            command.env("PATH", servers_path());
        });
        session.initialize();
        let edit = session.request(
            2,
            "tools/call",
            json!({"name": "edit_file", "arguments": {"path": "a.py", "old_string": "return 1", "new_string": "return 'one'"}}),
        );
        assert_eq!(edit["result"]["isError"], false, "{edit}");
        let server = &edit["result"]["structuredContent"]["diagnostics"]["server_diagnostics"];
        assert_eq!(server["state"].as_str(), expected, "{edit}");
        if expected.is_some() {
            let lines: Vec<&Value> =
                server["diagnostics"].as_array().expect("set up").iter().filter(|d| d["line"] == 2).collect();
            assert!(!lines.is_empty(), "the type error at line 2: {edit}");
        }
        session.finish();
    }
}
