//! `editkit mcp`: end to end with the official MCP Python SDK, and raw JSON-RPC checks.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use super::{editkit, repo_root, root_arg, workspace};

/// The virtualenv's python with the MCP Python SDK 2.x. `tests/mcp/setup.sh` runs every time: it
/// creates the venv when missing, upgrades an older SDK in place, and leaves a venv that already
/// satisfies its requirements as it is (pip checks that without asking PyPI).
fn python_with_mcp() -> PathBuf {
    let venv = std::env::var_os("MCP_VENV").map_or_else(|| repo_root().join("target/mcp-venv"), PathBuf::from);
    let setup = repo_root().join("crates/cli/tests/mcp/setup.sh");
    let status = Command::new("bash").arg(&setup).env("MCP_VENV", &venv).status();
    assert!(
        status.is_ok_and(|s| s.success()),
        "{} failed: the MCP end-to-end test needs `python3 -m venv` and `pip install 'mcp>=2.3,<3' jsonschema` \
         from PyPI into {}; check that python3-venv is installed and PyPI is reachable, then run the script by hand",
        setup.display(),
        venv.display()
    );
    venv.join("bin/python")
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
struct Session {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        let mut child = editkit()
            .arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("editkit mcp starts");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut session = Session { child, stdin, stdout };
        let init = session.request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "it", "version": "0"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "editkit");
        assert_eq!(init["result"]["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
        session
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("the server reads stdin");
        self.stdin.flush().expect("flush");
    }

    /// Sends a request and returns the reply with its id; every stdout line must be JSON-RPC.
    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string());
        loop {
            let mut line = String::new();
            let read = self.stdout.read_line(&mut line).expect("stdout readable");
            assert!(read > 0, "the server closed stdout before answering {id}");
            let message: Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout is not JSON-RPC ({e}): {line}"));
            assert_eq!(message["jsonrpc"], "2.0", "{line}");
            if message["id"] == id {
                return message;
            }
        }
    }

    fn finish(mut self) {
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
    let mut session = Session::start(&["--root", &root_arg(dir.path())]);
    let listed = session.request(2, "tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().expect("a tool list");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, editkit::tools::names(), "every toolkit tool is served, in order");
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
