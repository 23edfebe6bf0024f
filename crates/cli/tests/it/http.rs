//! `editkit mcp --http`: what holds when connections, sessions and stderr are used against the
//! server. Every test drives the real binary over loopback with a raw HTTP/1.1 client whose
//! reads give up after [`READ_WAIT`], so a server that stops answering fails the test instead
//! of hanging it.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use super::{root_arg, workspace};

/// The token every test server is started with.
const TOKEN: &str = "http-test-token-0123456789";

/// How long a read waits for the server before the test fails.
const READ_WAIT: Duration = Duration::from_secs(20);

/// How long a started server has to say where it listens.
const START_WAIT: Duration = Duration::from_secs(60);

/// The protocol version the raw client speaks (a revision with sessions).
const PROTOCOL: &str = "2025-06-18";

/// A running `editkit mcp --http 127.0.0.1:0` on a temporary workspace, killed on drop.
struct Server {
    child: Child,
    addr: SocketAddr,
    /// The last stderr lines, for failure messages.
    log: Arc<Mutex<Vec<String>>>,
    _dir: tempfile::TempDir,
}

/// How a test server is started.
#[derive(Default)]
struct Start<'a> {
    /// Extra `editkit mcp` arguments.
    args: &'a [&'a str],
    /// Run under `sh -c 'ulimit -Sn N; exec …'`: a soft descriptor limit of N.
    soft_nofile: Option<u64>,
    /// Where stderr goes; `None` is a pipe the test drains.
    stderr: Option<std::io::PipeWriter>,
    /// With `stderr`, a clone of the reading end: read up to the address line, then dropped.
    stderr_reader: Option<std::io::PipeReader>,
    /// Serve this folder instead of a new workspace holding `a.txt`.
    root: Option<&'a std::path::Path>,
    /// The server's `PATH`, when not this process's.
    path: Option<std::ffi::OsString>,
}

impl Server {
    #[track_caller]
    fn start(start: Start<'_>) -> Server {
        let dir = workspace(&[("a.txt", "alpha\n")]);
        let root = root_arg(start.root.unwrap_or(dir.path()));
        let mut args: Vec<String> = ["mcp", "--root", &root, "--http", "127.0.0.1:0", "--token", TOKEN]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        args.extend(start.args.iter().map(|s| (*s).to_owned()));
        let binary = env!("CARGO_BIN_EXE_editkit");
        let mut command = match start.soft_nofile {
            Some(soft) => {
                let mut command = Command::new("sh");
                command.arg("-c").arg(format!("ulimit -Sn {soft} && exec \"$0\" \"$@\"")).arg(binary).args(&args);
                command
            }
            None => {
                let mut command = Command::new(binary);
                command.args(&args);
                command
            }
        };
        command.stdin(Stdio::null()).stdout(Stdio::null());
        if let Some(path) = start.path {
            command.env("PATH", path);
        }
        let log = Arc::new(Mutex::new(Vec::new()));
        let (found, address) = mpsc::channel();
        // A drained pipe keeps being read (the last lines kept); one the test holds is read
        // only up to the address line.
        let drain = start.stderr_reader.is_none();
        let (child, reader): (Child, Box<dyn std::io::Read + Send>) = match (start.stderr, start.stderr_reader) {
            (Some(writer), Some(reader)) => {
                let child = command.stderr(writer).spawn().expect("editkit starts");
                (child, Box::new(reader))
            }
            _ => {
                let mut child = command.stderr(Stdio::piped()).spawn().expect("editkit starts");
                let stderr = child.stderr.take().expect("stderr is piped");
                (child, Box::new(stderr))
            }
        };
        let keep = Arc::clone(&log);
        std::thread::spawn(move || {
            let mut lines = BufReader::new(reader);
            let mut line = String::new();
            let mut sent = false;
            loop {
                line.clear();
                match lines.read_line(&mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                {
                    let mut kept = keep.lock().expect("the log lock is never poisoned");
                    if kept.len() >= 200 {
                        kept.remove(0);
                    }
                    kept.push(line.trim_end().to_owned());
                }
                if !sent && let Some((_, rest)) = line.split_once(" at http://") {
                    let addr = rest.split('/').next().unwrap_or_default().to_owned();
                    let _ = found.send(addr);
                    sent = true;
                    if !drain {
                        break;
                    }
                }
            }
        });
        let addr = match address.recv_timeout(START_WAIT) {
            Ok(addr) => addr.parse().unwrap_or_else(|e| panic!("not an address ({e}): {addr}")),
            Err(_) => panic!(
                "the server did not say where it listens: {:?}",
                log.lock().expect("the log lock is never poisoned")
            ),
        };
        Server { child, addr, log, _dir: dir }
    }

    /// The last stderr lines (for failure messages).
    fn log(&self) -> String {
        self.log.lock().expect("the log lock is never poisoned").join("\n")
    }

    /// A connection to the server.
    #[track_caller]
    fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect_timeout(&self.addr, READ_WAIT).expect("the server's port takes connections");
        stream.set_read_timeout(Some(READ_WAIT)).expect("a read timeout is set");
        stream.set_write_timeout(Some(READ_WAIT)).expect("a write timeout is set");
        stream
    }

    /// A POST to `/mcp` with `auth` as the Authorization header and `session` as the
    /// session; the answer's status, head and (de-chunked) body.
    #[track_caller]
    fn post(&self, auth: &str, session: Option<&str>, body: &Value) -> Answer {
        let sent = body;
        let body = body.to_string();
        let mut head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: {auth}\r\nAccept: application/json, text/event-stream\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
            self.addr,
            body.len()
        );
        if let Some(session) = session {
            head.push_str(&format!("Mcp-Session-Id: {session}\r\nMcp-Protocol-Version: {PROTOCOL}\r\n"));
        }
        // A 2026-07-28 request: the version and the standard headers a router reads.
        if let Some(version) = sent.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion") {
            head.push_str(&format!("Mcp-Protocol-Version: {}\r\n", version.as_str().unwrap_or_default()));
            head.push_str(&format!("Mcp-Method: {}\r\n", sent["method"].as_str().unwrap_or_default()));
            let name = ["/params/name", "/params/uri", "/params/taskId"].iter().find_map(|at| sent.pointer(at));
            if let Some(name) = name.and_then(Value::as_str) {
                head.push_str(&format!("Mcp-Name: {name}\r\n"));
            }
        }
        head.push_str("\r\n");
        let mut stream = self.connect();
        stream.write_all(head.as_bytes()).expect("the request head is sent");
        stream.write_all(body.as_bytes()).expect("the request body is sent");
        let mut raw = Vec::new();
        if let Err(err) = stream.read_to_end(&mut raw) {
            panic!(
                "no answer from the server ({err}) after {}:\n{}\nserver log:\n{}",
                String::from_utf8_lossy(&raw),
                body,
                self.log()
            );
        }
        Answer::parse(&raw).unwrap_or_else(|| panic!("not an HTTP answer: {}", String::from_utf8_lossy(&raw)))
    }

    /// A DELETE of `session`: the client ends it.
    #[track_caller]
    fn delete(&self, auth: &str, session: &str) -> Answer {
        let head = format!(
            "DELETE /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: {auth}\r\nMcp-Session-Id: {session}\r\n\
             Mcp-Protocol-Version: {PROTOCOL}\r\nConnection: close\r\n\r\n",
            self.addr
        );
        let mut stream = self.connect();
        stream.write_all(head.as_bytes()).expect("the request is sent");
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).expect("the DELETE is answered");
        Answer::parse(&raw).unwrap_or_else(|| panic!("not an HTTP answer: {}", String::from_utf8_lossy(&raw)))
    }

    /// `initialize` then `notifications/initialized`: the new session's id, or the refusal.
    #[track_caller]
    fn initialize(&self, auth: &str) -> Result<String, Answer> {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
        let answer = self.post(auth, None, &init);
        if answer.status != 200 {
            return Err(answer);
        }
        assert!(answer.body.contains("\"protocolVersion\""), "{answer:?}");
        let session = answer.header("mcp-session-id").unwrap_or_else(|| panic!("no session id: {answer:?}"));
        let done = self.post(auth, Some(&session), &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert_eq!(done.status, 202, "{done:?}");
        Ok(session)
    }

    /// A session's standalone SSE stream (GET), held open: an authenticated connection.
    #[track_caller]
    fn open_stream(&self, session: &str) -> TcpStream {
        let mut stream = self.connect();
        let head = format!(
            "GET /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {TOKEN}\r\nAccept: text/event-stream\r\n\
             Mcp-Session-Id: {session}\r\nMcp-Protocol-Version: {PROTOCOL}\r\n\r\n",
            self.addr
        );
        stream.write_all(head.as_bytes()).expect("the request head is sent");
        let mut seen = Vec::new();
        let mut byte = [0u8; 1];
        while !seen.ends_with(b"\r\n\r\n") {
            match stream.read(&mut byte) {
                Ok(1) => seen.push(byte[0]),
                other => panic!("the stream's head did not arrive ({other:?}): {}", String::from_utf8_lossy(&seen)),
            }
        }
        assert!(seen.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&seen));
        stream
    }

    /// A new session reads `a.txt`: the server serves a new client end to end.
    #[track_caller]
    fn serves_a_new_client(&self) {
        let auth = format!("Bearer {TOKEN}");
        let session = self.initialize(&auth).unwrap_or_else(|a| panic!("initialize refused: {a:?}\n{}", self.log()));
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "read_file", "arguments": {"path": "a.txt"}}});
        let answer = self.post(&auth, Some(&session), &call);
        assert_eq!(answer.status, 200, "{answer:?}");
        assert!(answer.body.contains("alpha"), "{answer:?}\n{}", self.log());
        assert!(answer.body.contains("\"isError\":false"), "{answer:?}\n{}", self.log());
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP answer.
#[derive(Debug)]
struct Answer {
    status: u16,
    head: String,
    body: String,
}

impl Answer {
    fn parse(raw: &[u8]) -> Option<Answer> {
        let text = String::from_utf8_lossy(raw);
        let (head, body) = text.split_once("\r\n\r\n")?;
        let status = head.split(' ').nth(1)?.parse().ok()?;
        let chunked = head.to_ascii_lowercase().contains("transfer-encoding: chunked");
        let body = if chunked { dechunk(body)? } else { body.to_owned() };
        Some(Answer { status, head: head.to_owned(), body })
    }

    /// A header's value (names compared without case).
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name).then(|| value.trim().to_owned())
        })
    }
}

/// A chunked body put together.
fn dechunk(mut rest: &str) -> Option<String> {
    let mut body = String::new();
    loop {
        let (size, after) = rest.split_once("\r\n")?;
        let size = usize::from_str_radix(size.trim(), 16).ok()?;
        if size == 0 {
            return Some(body);
        }
        body.push_str(after.get(..size)?);
        rest = after.get(size + 2..)?;
    }
}

/// A connection that sent part of a request head and nothing more.
#[track_caller]
fn idle_connection(server: &Server) -> TcpStream {
    let mut stream = server.connect();
    stream.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n").expect("a partial head is sent");
    stream
}

/// How many sockets the server process holds, from /proc.
fn sockets(server: &Server) -> usize {
    let fds = std::fs::read_dir(format!("/proc/{}/fd", server.child.id())).expect("/proc/PID/fd");
    fds.filter_map(Result::ok)
        .filter(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target.to_string_lossy().starts_with("socket:")))
        .count()
}

/// The server process's soft and hard descriptor limits, from /proc.
fn nofile_limits(server: &Server) -> (String, String) {
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", server.child.id())).expect("/proc/PID/limits");
    let line = limits.lines().find(|line| line.starts_with("Max open files")).expect("a Max open files line");
    let fields: Vec<&str> = line.split_whitespace().collect();
    (fields[3].to_owned(), fields[4].to_owned())
}

#[test]
fn a_low_soft_descriptor_limit_and_300_idle_connections_leave_new_clients_served() {
    let hard = rustix::process::getrlimit(rustix::process::Resource::Nofile).maximum;
    assert!(
        hard.is_none_or(|hard| hard >= 1024),
        "this test needs a hard descriptor limit of at least 1024 (ulimit -Hn), not {hard:?}"
    );
    let server = Server::start(Start {
        args: &["--max-connections", "48", "--max-unauthenticated-connections", "16"],
        soft_nofile: Some(256),
        ..Start::default()
    });
    // The soft limit the server was started with was raised to the hard one.
    let (soft, hard) = nofile_limits(&server);
    assert_eq!(soft, hard, "the soft descriptor limit stayed below the hard one");
    assert_ne!(soft, "256");
    // More connections that never finish their heads than the old soft limit.
    let idle: Vec<TcpStream> = (0..300).map(|_| idle_connection(&server)).collect();
    server.serves_a_new_client();
    server.serves_a_new_client();
    // The server holds at most 16 of them (and its listening socket): older ones were closed.
    let mut held = usize::MAX;
    for _ in 0..200 {
        held = sockets(&server);
        if held <= 17 {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(held <= 17, "the server holds {held} sockets with --max-unauthenticated-connections 16");
    drop(idle);
    server.serves_a_new_client();
}

#[test]
fn connections_past_the_total_are_not_served_and_never_crowd_out_a_client_with_the_token() {
    let server = Server::start(Start {
        args: &["--max-connections", "3", "--max-unauthenticated-connections", "1"],
        ..Start::default()
    });
    let auth = format!("Bearer {TOKEN}");
    let sessions: Vec<String> = (0..3).map(|_| server.initialize(&auth).expect("a session opens")).collect();
    // Two places held by clients with the token; idle connections take turns in the third.
    let first = server.open_stream(&sessions[0]);
    let _second = server.open_stream(&sessions[1]);
    let idle: Vec<TcpStream> = (0..20).map(|_| idle_connection(&server)).collect();
    server.serves_a_new_client();
    // All three places held by clients with the token: a fourth connection waits.
    let _third = server.open_stream(&sessions[2]);
    let extra: Vec<TcpStream> = (0..10).map(|_| idle_connection(&server)).collect();
    let waiting = {
        let server_addr = server.addr;
        std::thread::spawn(move || {
            let mut stream = TcpStream::connect(server_addr).expect("a connection");
            stream.set_read_timeout(Some(READ_WAIT * 3)).expect("a read timeout is set");
            let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
            let request = format!(
                "POST /mcp HTTP/1.1\r\nHost: {server_addr}\r\nAuthorization: Bearer {TOKEN}\r\n\
                 Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            stream.write_all(request.as_bytes()).expect("the request is sent");
            let mut raw = Vec::new();
            let _ = stream.read_to_end(&mut raw);
            raw
        })
    };
    // The server holds its listener, the three streams and one accepted connection waiting
    // for a place; the others stay in the backlog.
    for _ in 0..200 {
        if sockets(&server) >= 5 {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    let held = sockets(&server);
    assert!(held <= 5, "the server holds {held} sockets with --max-connections 3");
    // A stream ends: the waiting connections are served in turn, the ping among them.
    drop(first);
    drop(extra);
    let raw = waiting.join().expect("the waiting client finishes");
    let answer = Answer::parse(&raw).unwrap_or_else(|| panic!("no answer: {}", String::from_utf8_lossy(&raw)));
    // A ping without a session is refused by rmcp, but it was answered.
    assert!(answer.status >= 200, "{answer:?}");
    drop(idle);
}

#[test]
fn a_connection_that_never_finishes_its_head_is_closed_after_the_header_timeout() {
    let server = Server::start(Start { args: &["--header-timeout", "1"], ..Start::default() });
    let mut stream = idle_connection(&server);
    let mut rest = Vec::new();
    // The server closes the connection (perhaps after a 408); the read ends instead of waiting.
    match stream.read_to_end(&mut rest) {
        Ok(_) => {}
        Err(err) if err.kind() == std::io::ErrorKind::ConnectionReset => {}
        Err(err) => panic!("the connection was held open ({err}): {}", String::from_utf8_lossy(&rest)),
    }
    server.serves_a_new_client();
}

#[test]
fn a_body_that_never_arrives_is_answered_408_after_the_body_timeout() {
    let server = Server::start(Start { args: &["--body-timeout", "1"], ..Start::default() });
    let mut stream = server.connect();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {TOKEN}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"jsonrpc\"",
        server.addr
    );
    stream.write_all(head.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let answer = Answer::parse(&raw).unwrap_or_else(|| panic!("no answer: {}", String::from_utf8_lossy(&raw)));
    assert_eq!(answer.status, 408, "{answer:?}");
    assert!(answer.body.contains("--body-timeout"), "{answer:?}");
    server.serves_a_new_client();
}

#[test]
fn sessions_past_the_cap_are_refused_and_idle_ones_expire() {
    let auth = format!("Bearer {TOKEN}");
    // The cap: sessions that cannot expire during the test.
    let server = Server::start(Start { args: &["--max-http-sessions", "2"], ..Start::default() });
    server.initialize(&auth).expect("the first session opens");
    let second = server.initialize(&auth).expect("the second session opens");
    let refused = server.initialize(&auth).expect_err("a third session is refused");
    assert_eq!(refused.status, 503, "{refused:?}");
    assert!(refused.body.contains("--max-http-sessions"), "{refused:?}");
    assert!(refused.header("retry-after").is_some(), "{refused:?}");
    // A session ended by its client makes room.
    let ended = server.delete(&auth, &second);
    assert!(ended.status == 200 || ended.status == 204, "{ended:?}");
    server.initialize(&auth).expect("a session opens in the room made");
    drop(server);

    // Expiry: a session idle past the timeout is gone, and its place with it.
    let server =
        Server::start(Start { args: &["--max-http-sessions", "1", "--session-idle-timeout", "1"], ..Start::default() });
    let first = server.initialize(&auth).expect("the session opens");
    let mut opened = None;
    for _ in 0..60 {
        std::thread::sleep(Duration::from_millis(500));
        if let Ok(session) = server.initialize(&auth) {
            opened = Some(session);
            break;
        }
    }
    assert!(opened.is_some(), "the idle session did not expire:\n{}", server.log());
    let ping = server.post(&auth, Some(&first), &json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}));
    assert_eq!(ping.status, 404, "an expired session still answers: {ping:?}");
}

#[test]
fn a_stderr_nobody_reads_never_stops_the_server() {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    let filler = writer.try_clone().expect("the pipe's writing end cloned");
    let server = Server::start(Start {
        stderr: Some(writer),
        stderr_reader: Some(reader.try_clone().expect("the pipe's reading end cloned")),
        ..Start::default()
    });
    // Fill the pipe: from now on every write the server makes to stderr would block.
    std::thread::spawn(move || {
        let mut filler = filler;
        let _ = filler.write_all(&vec![b'.'; 4 << 20]);
    });
    let capacity = rustix::pipe::fcntl_getpipe_size(&reader).expect("the pipe's size");
    let mut full = false;
    for _ in 0..400 {
        if rustix::io::ioctl_fionread(&reader).expect("bytes in the pipe") as usize >= capacity {
            full = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(full, "the stderr pipe did not fill");
    // Connections that end in errors the server reports, many of them.
    for n in 0..200 {
        let mut stream = server.connect();
        let _ = stream.write_all(b"NOT HTTP AT ALL\r\n\r\n");
        let mut sink = Vec::new();
        if let Err(err) = stream.read_to_end(&mut sink) {
            assert!(
                !matches!(err.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut),
                "connection {n} was not answered: the server stopped"
            );
        }
    }
    server.serves_a_new_client();
    drop(reader);
}

#[test]
fn log_lines_of_a_kind_are_rate_limited_and_the_rest_counted() {
    let server = Server::start(Start::default());
    let started = std::time::Instant::now();
    let bad_connection = || {
        let mut stream = server.connect();
        let _ = stream.write_all(b"NOT HTTP AT ALL\r\n\r\n");
        let mut sink = Vec::new();
        let _ = stream.read_to_end(&mut sink);
    };
    for _ in 0..300 {
        bad_connection();
    }
    let seconds = started.elapsed().as_secs() + 1;
    // One more after the window has passed carries the count of those left out.
    std::thread::sleep(Duration::from_millis(1100));
    bad_connection();
    let mut log = String::new();
    for _ in 0..200 {
        log = server.log();
        if log.contains("more like it were left out") {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let lines = log.lines().filter(|line| line.contains("connection ended")).count();
    assert!(log.contains("more like it were left out"), "no count of the lines left out:\n{log}");
    // At most 5 a second (plus the window the last one opened).
    assert!(lines as u64 <= 5 * (seconds + 2), "{lines} lines in about {seconds} s:\n{log}");
    server.serves_a_new_client();
}

#[test]
fn a_lowercase_bearer_scheme_is_accepted() {
    let server = Server::start(Start::default());
    for scheme in ["bearer", "BEARER", "Bearer"] {
        let session = server.initialize(&format!("{scheme} {TOKEN}"));
        assert!(session.is_ok(), "`{scheme}` refused: {session:?}");
    }
    let refused = server.initialize(&format!("bearer {TOKEN}x")).expect_err("a wrong token is refused");
    assert_eq!(refused.status, 401, "{refused:?}");
}

#[test]
fn http_limits_that_cannot_hold_are_usage_errors() {
    let dir = workspace(&[]);
    let root = root_arg(dir.path());
    let base = ["mcp", "--root", &root, "--http", "127.0.0.1:0", "--token", TOKEN];
    let output =
        super::run(&[&base[..], &["--max-connections", "8", "--max-unauthenticated-connections", "8"]].concat(), "");
    assert_eq!(output.status.code(), Some(2), "{}", super::stderr(&output));
    assert!(super::stderr(&output).contains("must be below --max-connections"), "{}", super::stderr(&output));
    for flag in ["--header-timeout", "--body-timeout", "--session-idle-timeout", "--max-http-sessions"] {
        let output = super::run(&[&base[..], &[flag, "0"]].concat(), "");
        assert_eq!(output.status.code(), Some(2), "{flag} 0: {}", super::stderr(&output));
    }
    // The limits need --http.
    let output = super::run(&["mcp", "--root", &root, "--max-http-sessions", "4"], "");
    assert_eq!(output.status.code(), Some(2), "{}", super::stderr(&output));
}

/// A 2026-07-28 request (no session: its version and the client's capabilities in `_meta`).
fn stateless_call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments,
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}})
}

/// The JSON-RPC message of an answer (a JSON body, or the last `data:` line of an SSE one).
#[track_caller]
fn message_of(answer: &Answer) -> Value {
    let text = answer.body.lines().rev().find_map(|line| line.strip_prefix("data:")).unwrap_or(&answer.body).trim();
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON-RPC ({e}): {answer:?}"))
}

#[test]
fn stateless_requests_to_two_servers_of_one_workspace_keep_the_staleness_guard() {
    let dir = workspace(&[("a.txt", "alpha\n")]);
    let file = dir.path().join("a.txt");
    let servers = [0, 1].map(|_| Server::start(Start { root: Some(dir.path()), ..Start::default() }));
    let auth = format!("Bearer {TOKEN}");
    // One agent's requests, each to the other process in turn.
    let mut turn = 0;
    let mut call = |tool: &str, arguments: Value| {
        turn += 1;
        let server = &servers[turn % 2];
        let answer = server.post(&auth, None, &stateless_call(turn as u64, tool, arguments));
        assert_eq!(answer.status, 200, "{answer:?}\n{}", server.log());
        assert!(answer.header("mcp-session-id").is_none(), "a stateless request opened a session: {answer:?}");
        message_of(&answer)["result"].clone()
    };
    let read = call("read_file", json!({"path": "a.txt"}));
    let sha = read["structuredContent"]["sha256"].as_str().unwrap_or_else(|| panic!("{read}")).to_owned();
    // The other process never saw that read: without the hash the edit is refused.
    let unproven = call("edit_file", json!({"path": "a.txt", "old_string": "alpha", "new_string": "beta"}));
    assert_eq!(unproven["isError"], true, "{unproven}");
    let error = &unproven["structuredContent"]["error"];
    assert_eq!(
        (error["kind"].as_str(), error["field"].as_str()),
        (Some("invalid_args"), Some("expected_hash")),
        "{error}"
    );
    assert!(error["message"].as_str().is_some_and(|m| m.contains("sha256")), "{error}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "alpha\n");
    let guarded =
        call("edit_file", json!({"path": "a.txt", "old_string": "alpha", "new_string": "beta", "expected_hash": sha}));
    assert_eq!(guarded["isError"], false, "{guarded}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "beta\n");
    let read = call("read_file", json!({"path": "a.txt"}));
    let sha = read["structuredContent"]["sha256"].as_str().unwrap_or_else(|| panic!("{read}")).to_owned();
    std::fs::write(&file, "changed by a person\n").unwrap();
    let stale = call("write_file", json!({"path": "a.txt", "content": "gamma\n", "expected_hash": sha}));
    assert_eq!(stale["structuredContent"]["error"]["kind"], "stale", "{stale}");
    let unproven = call("write_file", json!({"path": "a.txt", "content": "gamma\n"}));
    assert_eq!(unproven["structuredContent"]["error"]["field"], "expected_hash", "{unproven}");
    // A request with the lifecycle's metadata is sessionless whatever version it names.
    let mut older = stateless_call(60, "write_file", json!({"path": "a.txt", "content": "gamma\n"}));
    older["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2025-11-25");
    let answer = servers[0].post(&auth, None, &older);
    assert_eq!(message_of(&answer)["result"]["structuredContent"]["error"]["field"], "expected_hash", "{answer:?}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "changed by a person\n");
    // A new file needs no hash; force overwrites knowingly.
    let created = call("write_file", json!({"path": "b.txt", "content": "new\n"}));
    assert_eq!(created["isError"], false, "{created}");
    let forced = call("write_file", json!({"path": "a.txt", "content": "forced\n", "force": true}));
    assert_eq!(forced["isError"], false, "{forced}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "forced\n");
    // A task started on one process is polled on the other, to its end.
    let mut patch = String::from("*** Begin Patch\n");
    for n in 0..33 {
        std::fs::write(dir.path().join(format!("t{n}.txt")), format!("value {n}\n")).unwrap();
        patch.push_str(&format!("*** Update File: t{n}.txt\n@@\n-value {n}\n+patched {n}\n"));
    }
    patch.push_str("*** End Patch\n");
    let tasks_meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}});
    let mut start = stateless_call(70, "apply_patch", json!({"patch": patch}));
    start["params"]["_meta"] = tasks_meta.clone();
    let created = message_of(&servers[0].post(&auth, None, &start));
    let task = created["result"]["taskId"].as_str().unwrap_or_else(|| panic!("no task: {created}")).to_owned();
    let get =
        json!({"jsonrpc": "2.0", "id": 71, "method": "tasks/get", "params": {"taskId": task, "_meta": tasks_meta}});
    let mut state = Value::Null;
    for _ in 0..600 {
        let answer = message_of(&servers[1].post(&auth, None, &get));
        state = answer["result"].clone();
        assert!(state["status"].is_string(), "{answer}");
        if state["status"] != "working" {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(state["status"], "completed", "{state}");
    assert_eq!(state["result"]["structuredContent"]["ok"], true, "{state}");
    assert_eq!(std::fs::read_to_string(dir.path().join("t32.txt")).unwrap(), "patched 32\n");
    // A big listing from one process is a link the other reads.
    for n in 0..1500 {
        std::fs::write(dir.path().join(format!("many_{n:04}.log")), "").unwrap();
    }
    let listed = call("glob", json!({"pattern": "*.log"}));
    let uri = listed["content"][1]["uri"].as_str().unwrap_or_else(|| panic!("no link: {listed:.400}")).to_owned();
    let read = json!({"jsonrpc": "2.0", "id": 99, "method": "resources/read", "params": {"uri": uri,
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}});
    for server in &servers {
        let answer = server.post(&auth, None, &read);
        let text = message_of(&answer)["result"]["contents"][0]["text"].as_str().unwrap_or_default().to_owned();
        assert_eq!(text.lines().filter(|l| l.starts_with("many_")).count(), 1500, "{answer:?}");
    }
}

#[test]
fn an_editor_session_loaded_on_one_server_is_edited_on_another_and_stored_on_the_first() {
    let dir = workspace(&[("a.txt", "alpha\nbeta\n")]);
    let file = dir.path().join("a.txt");
    let start = || Server::start(Start { root: Some(dir.path()), args: &["--tools", "all"], ..Start::default() });
    let servers = [start(), start()];
    let auth = format!("Bearer {TOKEN}");
    let mut id = 0;
    let mut call = |server: usize, tool: &str, arguments: Value| {
        id += 1;
        let answer = servers[server].post(&auth, None, &stateless_call(id, tool, arguments));
        assert_eq!(answer.status, 200, "{answer:?}\n{}", servers[server].log());
        assert!(answer.header("mcp-session-id").is_none(), "a stateless request opened a session: {answer:?}");
        message_of(&answer)["result"].clone()
    };
    let loaded = call(0, "editor_load", json!({"path": "a.txt"}));
    assert_eq!(loaded["isError"], false, "{loaded}");
    let handle = loaded["structuredContent"]["session_id"].as_str().unwrap_or_else(|| panic!("{loaded}")).to_owned();
    // A handle is unguessable: 128 random bits (32 hex digits) after its `e`.
    let key = handle.strip_prefix('e').and_then(|rest| rest.split_once(':')).map(|(key, _)| key).unwrap_or_default();
    assert!(key.len() == 32 && key.bytes().all(|b| b.is_ascii_hexdigit()), "{handle}");
    let edited = call(1, "editor_edit", json!({"session_id": handle, "old_string": "alpha", "new_string": "ALPHA"}));
    assert_eq!(edited["isError"], false, "{edited}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "alpha\nbeta\n", "an edit is not stored yet");
    let read = call(0, "editor_read", json!({"session_id": handle}));
    assert_eq!(read["structuredContent"]["content"], "ALPHA\nbeta\n", "{read}");
    let stored = call(0, "editor_store", json!({"session_id": handle}));
    assert_eq!(stored["isError"], false, "{stored}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "ALPHA\nbeta\n");
    // The staleness guard of the load (then of the last store) holds at store time.
    let edited = call(1, "editor_edit", json!({"session_id": handle, "old_string": "beta", "new_string": "BETA"}));
    assert_eq!(edited["isError"], false, "{edited}");
    std::fs::write(&file, "changed by a person\n").unwrap();
    let stale = call(0, "editor_store", json!({"session_id": handle}));
    assert_eq!(stale["structuredContent"]["error"]["kind"], "stale", "{stale}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "changed by a person\n");
    // A closed (or expired, or unknown) handle is refused, naming the file to load again.
    let cleared = call(1, "editor_clear", json!({"session_id": handle}));
    assert_eq!(cleared["structuredContent"]["discarded_changes"], true, "{cleared}");
    let unknown = format!("e{}:a.txt", "0".repeat(32));
    for gone in [&handle, &unknown] {
        let refused = call(0, "editor_edit", json!({"session_id": gone, "old_string": "a", "new_string": "b"}));
        let error = &refused["structuredContent"]["error"];
        assert_eq!((error["kind"].as_str(), error["expired"].as_bool()), (Some("not_found"), Some(true)), "{refused}");
        let message = error["message"].as_str().unwrap_or_default();
        assert!(message.contains("30 minutes") && message.contains("load `a.txt` again with editor_load"), "{message}");
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "changed by a person\n");
}

#[test]
fn a_stateless_write_naming_its_file_by_an_alias_still_needs_the_reads_hash() {
    let server = Server::start(Start::default());
    let auth = format!("Bearer {TOKEN}");
    let file = server._dir.path().join("a.txt");
    // Every accepted name of the path argument (`file_path`, `filepath`) is a write to the
    // same existing file: each must prove its read as `path` does.
    let calls = [
        ("write_file", json!({"file_path": "a.txt", "content": "overwritten\n"})),
        ("write_file", json!({"filepath": "a.txt", "content": "overwritten\n"})),
        ("edit_file", json!({"file_path": "a.txt", "old_string": "alpha", "new_string": "beta"})),
        ("insert_lines", json!({"filepath": "a.txt", "line": 1, "text": "inserted\n"})),
    ];
    for (n, (tool, arguments)) in calls.into_iter().enumerate() {
        let answer = server.post(&auth, None, &stateless_call(n as u64 + 1, tool, arguments.clone()));
        let result = &message_of(&answer)["result"];
        assert_eq!(
            result["structuredContent"]["error"]["field"], "expected_hash",
            "{tool} {arguments} ran without the read's hash: {result}"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "alpha\n", "{tool} {arguments}");
    }
}

/// Every session of one `editkit mcp --http` process shares its language servers: sessions
/// writing a `.py` file of one root get diagnostics from one server process (the stand-in
/// in mode `pid` names its process id in every diagnostic), never one server per session. A
/// stateless request's write starts none (the hook is off for it).
#[test]
fn http_sessions_share_one_language_server_per_root() {
    let dir = workspace(&[("a.py", "a = 1\n")]);
    let bin = tempfile::tempdir().expect("set up");
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/lsp/stand-in/basedpyright-langserver");
    std::fs::copy(&script, bin.path().join("basedpyright-langserver")).expect("set up");
    std::fs::write(bin.path().join("mode"), "pid").expect("set up");
    let mut entries = vec![bin.path().canonicalize().expect("set up")];
    entries.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    let path = std::env::join_paths(entries).expect("set up");
    let server = Server::start(Start { root: Some(dir.path()), path: Some(path), ..Start::default() });
    let auth = format!("Bearer {TOKEN}");
    let mut pids = std::collections::BTreeSet::new();
    for n in 0..3 {
        let session = server.initialize(&auth).expect("a session opens");
        let call = json!({"jsonrpc": "2.0", "id": 10 + n, "method": "tools/call", "params": {"name": "write_file",
            "arguments": {"path": format!("s{n}.py"), "content": format!("a = {n}\n")}}});
        let answer = message_of(&server.post(&auth, Some(&session), &call));
        let shown = &answer["result"]["structuredContent"]["diagnostics"]["server_diagnostics"];
        assert_eq!(shown["state"], "fresh", "{answer}\n{}", server.log());
        let message = shown["diagnostics"][0]["message"].as_str().expect("the stand-in's diagnostic").to_owned();
        pids.insert(message);
    }
    assert_eq!(pids.len(), 1, "one server for the root, whatever the session: {pids:?}");
    // A stateless request gets no post-write diagnostics: it never waits for a start.
    let call = stateless_call(20, "write_file", json!({"path": "t.py", "content": "a = 9\n"}));
    let answer = message_of(&server.post(&auth, None, &call));
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    let diagnostics = &answer["result"]["structuredContent"]["diagnostics"];
    assert!(diagnostics.get("server_diagnostics").is_none(), "{answer}");
}
