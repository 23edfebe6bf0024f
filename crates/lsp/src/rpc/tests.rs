use std::io::BufReader;
use std::sync::atomic::AtomicBool;

use super::*;

/// A connection to a stand-in server: the test reads what the client sent from `from_client`
/// and writes raw bytes to `to_client`.
struct Harness {
    connection: Connection,
    from_client: BufReader<std::io::PipeReader>,
    to_client: std::io::PipeWriter,
    broken_hook_ran: Arc<AtomicBool>,
}

fn harness(configuration: Value) -> Harness {
    let (client_reads, to_client) = std::io::pipe().expect("a pipe");
    let (from_client, client_writes) = std::io::pipe().expect("a pipe");
    let ran = Arc::new(AtomicBool::new(false));
    let hook_ran = Arc::clone(&ran);
    let connection = Connection::new(
        client_reads,
        client_writes,
        Answers { configuration },
        Box::new(move || hook_ran.store(true, Ordering::SeqCst)),
    );
    Harness { connection, from_client: BufReader::new(from_client), to_client, broken_hook_ran: ran }
}

fn received(from_client: &mut BufReader<std::io::PipeReader>) -> Value {
    let body = read_message(from_client, MAX_MESSAGE_BYTES).expect("framed").expect("a message");
    serde_json::from_slice(&body).expect("JSON")
}

fn send(to_client: &mut std::io::PipeWriter, message: &Value) {
    write_message(to_client, &serde_json::to_vec(message).expect("JSON")).expect("write");
}

const WAIT: Duration = Duration::from_secs(20);

#[test]
fn a_request_gets_its_answer_and_errors_come_back_typed() {
    let mut harness = harness(Value::Null);
    std::thread::scope(|scope| {
        let asked = scope.spawn(|| harness.connection.request("textDocument/hover", json!({"x": 1}), WAIT));
        let asked_again = scope.spawn(|| harness.connection.request("textDocument/rename", json!({}), WAIT));
        let mut ids = Vec::new();
        for _ in 0..2 {
            let request = received(&mut harness.from_client);
            ids.push((request["method"].as_str().expect("method").to_owned(), request["id"].clone()));
        }
        for (method, id) in ids {
            let reply = if method == "textDocument/hover" {
                json!({"jsonrpc": "2.0", "id": id, "result": {"contents": "doc"}})
            } else {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32801, "message": "content modified"}})
            };
            send(&mut harness.to_client, &reply);
        }
        assert_eq!(asked.join().expect("joined"), Ok(json!({"contents": "doc"})));
        let refused = asked_again.join().expect("joined");
        assert!(matches!(refused, Err(RpcError::Server { code: -32801, .. })), "{refused:?}");
    });
}

#[test]
fn the_servers_requests_get_the_fixed_answers() {
    let mut harness = harness(json!({"python": {"pythonPath": "/usr/bin/python3", "analysis": {"mode": "open"}}}));
    let items = json!({"items": [{"section": "python"}, {"section": "python.analysis"}, {"section": "other"}]});
    send(
        &mut harness.to_client,
        &json!({"jsonrpc": "2.0", "id": 7, "method": "workspace/configuration", "params": items}),
    );
    let answer = received(&mut harness.from_client);
    assert_eq!(answer["id"], 7);
    assert_eq!(
        answer["result"],
        json!([{"pythonPath": "/usr/bin/python3", "analysis": {"mode": "open"}}, {"mode": "open"}, null])
    );
    send(
        &mut harness.to_client,
        &json!({"jsonrpc": "2.0", "id": "s1", "method": "workspace/applyEdit", "params": {"edit": {}}}),
    );
    let answer = received(&mut harness.from_client);
    assert_eq!((answer["id"].clone(), answer["result"]["applied"].clone()), (json!("s1"), json!(false)));
    send(
        &mut harness.to_client,
        &json!({"jsonrpc": "2.0", "id": 8, "method": "window/workDoneProgress/create", "params": {"token": 1}}),
    );
    assert_eq!(received(&mut harness.from_client)["result"], Value::Null);
    send(&mut harness.to_client, &json!({"jsonrpc": "2.0", "id": 9, "method": "custom/thing", "params": {}}));
    assert_eq!(received(&mut harness.from_client)["error"]["code"], METHOD_NOT_FOUND);
}

#[test]
fn a_request_past_its_wait_is_cancelled() {
    let mut harness = harness(Value::Null);
    let timed_out = harness.connection.request("workspace/symbol", json!({"query": "x"}), Duration::from_millis(50));
    assert!(
        matches!(&timed_out, Err(RpcError::TimedOut { method, .. }) if method == "workspace/symbol"),
        "{timed_out:?}"
    );
    let request = received(&mut harness.from_client);
    let cancel = received(&mut harness.from_client);
    assert_eq!(cancel["method"], "$/cancelRequest");
    assert_eq!(cancel["params"]["id"], request["id"]);
    // The late answer is dropped, and the connection still works.
    send(&mut harness.to_client, &json!({"jsonrpc": "2.0", "id": request["id"], "result": []}));
    assert_eq!(harness.connection.broken(), None);
}

#[test]
fn notifications_are_queued_and_bounded() {
    let mut harness = harness(Value::Null);
    for n in 0..(MAX_NOTIFICATIONS + 3) {
        send(&mut harness.to_client, &json!({"jsonrpc": "2.0", "method": "window/logMessage", "params": {"n": n}}));
    }
    send(&mut harness.to_client, &json!({"jsonrpc": "2.0", "method": "last"}));
    let deadline = Instant::now() + WAIT;
    while harness.connection.dropped_notifications() < 4 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(harness.connection.dropped_notifications(), 4);
    let first = harness.connection.next_notification(WAIT).expect("one");
    assert_eq!(first.params["n"], 4);
}

#[test]
fn garbage_ends_the_connection_and_runs_the_hook() {
    for garbage in [
        &b"Content-Length: 5\r\n\r\nhello"[..],
        b"Content-Length: 2\r\n\r\n[]",
        b"Content-Length: 9999999999\r\n\r\n",
        b"{}\r\n\r\n",
    ] {
        let mut harness = harness(Value::Null);
        std::thread::scope(|scope| {
            let asked = scope.spawn(|| harness.connection.request("initialize", json!({}), WAIT));
            received(&mut harness.from_client);
            std::io::Write::write_all(&mut harness.to_client, garbage).expect("write");
            let got = asked.join().expect("joined");
            assert!(matches!(&got, Err(RpcError::Unavailable { reason }) if reason.contains("server")), "{got:?}");
        });
        let deadline = Instant::now() + WAIT;
        while !harness.broken_hook_ran.load(Ordering::SeqCst) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(harness.broken_hook_ran.load(Ordering::SeqCst), "{:?}", String::from_utf8_lossy(garbage));
        let after = harness.connection.request("shutdown", Value::Null, WAIT);
        assert!(matches!(after, Err(RpcError::Unavailable { .. })), "{after:?}");
    }
}

#[test]
fn a_closed_server_makes_requests_unavailable_without_the_hook() {
    let harness = harness(Value::Null);
    drop(harness.to_client);
    let got = harness.connection.request("initialize", json!({}), WAIT);
    assert!(matches!(&got, Err(RpcError::Unavailable { .. })), "{got:?}");
    assert!(!harness.broken_hook_ran.load(Ordering::SeqCst));
}

/// Waits until `dropped` notifications were dropped.
fn dropped(connection: &Connection, dropped: u64) -> u64 {
    let deadline = Instant::now() + WAIT;
    while connection.dropped_notifications() < dropped && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    connection.dropped_notifications()
}

#[test]
fn notifications_are_bounded_in_bytes_and_each_in_size() {
    let mut harness = harness(Value::Null);
    // Too large to keep: dropped unparsed; diagnostics may be larger.
    let big = "x".repeat(MAX_NOTIFICATION_BODY + 1);
    send(&mut harness.to_client, &json!({"jsonrpc": "2.0", "method": "window/logMessage", "params": {"m": big}}));
    assert_eq!(dropped(&harness.connection, 1), 1);
    let diagnostics = json!({"uri": "file:///a.py", "diagnostics": [], "pad": big});
    send(
        &mut harness.to_client,
        &json!({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": diagnostics}),
    );
    let huge = "x".repeat(MAX_DIAGNOSTICS_BODY + 1);
    let too_big = json!({"uri": "file:///a.py", "diagnostics": [], "pad": huge});
    send(
        &mut harness.to_client,
        &json!({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": too_big}),
    );
    assert_eq!(dropped(&harness.connection, 2), 2);
    let kept = harness.connection.next_notification(WAIT).expect("the diagnostics");
    assert_eq!(kept.method, "textDocument/publishDiagnostics");
    // Many just under the size each: the queue keeps at most MAX_NOTIFICATION_BYTES of them.
    let just_under = "y".repeat(MAX_NOTIFICATION_BODY - 100);
    let sent = 2 * MAX_NOTIFICATION_BYTES / MAX_NOTIFICATION_BODY;
    for n in 0..sent {
        send(
            &mut harness.to_client,
            &json!({"jsonrpc": "2.0", "method": "window/logMessage", "params": {"n": n, "m": just_under}}),
        );
    }
    send(&mut harness.to_client, &json!({"jsonrpc": "2.0", "method": "last"}));
    // Read only once the queue went over its budget.
    let over = 2 + sent - MAX_NOTIFICATION_BYTES / MAX_NOTIFICATION_BODY;
    assert!(dropped(&harness.connection, over as u64) >= over as u64);
    let deadline = Instant::now() + WAIT;
    let mut kept = Vec::new();
    while Instant::now() < deadline {
        let Some(notification) = harness.connection.next_notification(Duration::from_millis(200)) else { continue };
        let last = notification.method == "last";
        kept.push(notification);
        if last {
            break;
        }
    }
    assert_eq!(kept.last().map(|n| n.method.as_str()), Some("last"));
    assert!(kept.len() <= MAX_NOTIFICATION_BYTES / (MAX_NOTIFICATION_BODY - 100) + 1, "{}", kept.len());
    let dropped_now = harness.connection.dropped_notifications();
    assert_eq!(dropped_now as usize, 2 + sent + 1 - kept.len(), "every notification kept or counted");
}

#[test]
fn a_configuration_request_with_too_many_items_gets_an_error() {
    let mut harness = harness(json!({"python": {"pythonPath": "/usr/bin/python3"}}));
    let items: Vec<Value> = (0..=MAX_CONFIGURATION_ITEMS).map(|_| json!({})).collect();
    send(
        &mut harness.to_client,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "workspace/configuration", "params": {"items": items}}),
    );
    let answer = received(&mut harness.from_client);
    assert_eq!(answer["error"]["code"], INVALID_PARAMS, "{answer}");
    assert!(answer["error"]["message"].as_str().is_some_and(|m| m.contains("MAX_CONFIGURATION_ITEMS")), "{answer}");
    let items: Vec<Value> = (0..MAX_CONFIGURATION_ITEMS).map(|_| json!({"section": "python"})).collect();
    send(
        &mut harness.to_client,
        &json!({"jsonrpc": "2.0", "id": 4, "method": "workspace/configuration", "params": {"items": items}}),
    );
    assert_eq!(received(&mut harness.from_client)["result"].as_array().map(Vec::len), Some(MAX_CONFIGURATION_ITEMS));
}

/// A server that stops reading its input: no call hangs, the server is stopped (the hook
/// runs), and the reader still answers nothing on the caller's thread.
#[test]
fn a_server_that_never_reads_its_input_hangs_no_call() {
    let harness = harness(Value::Null);
    // `from_client` is never read: the pipe fills, the writer thread blocks, the queue fills.
    let text = "z".repeat(64 * 1024 + 1);
    let mut outcome = Ok(());
    for _ in 0..=MAX_OUTGOING + 2 {
        outcome = harness.connection.notify("textDocument/didChange", json!({"text": text}));
        if outcome.is_err() {
            break;
        }
        // A request gives up within its own wait, the writing included.
        let answer = harness.connection.request("workspace/symbol", json!({}), Duration::from_millis(20));
        assert!(matches!(answer, Err(RpcError::TimedOut { .. } | RpcError::Unavailable { .. })), "{answer:?}");
    }
    assert!(
        matches!(outcome, Err(RpcError::Unavailable { ref reason }) if reason.contains("MAX_OUTGOING")),
        "{outcome:?}"
    );
    assert!(harness.broken_hook_ran.load(Ordering::SeqCst), "the stuck server was stopped");
    drop(harness.from_client);
}

/// An answer larger than its request takes fails that request, unparsed and naming the
/// bound; the connection stays up and a smaller answer still comes through.
#[test]
fn an_answer_larger_than_its_request_takes_fails_that_request_only() {
    let mut harness = harness(Value::Null);
    std::thread::scope(|scope| {
        let asked = scope.spawn(|| harness.connection.request("textDocument/references", json!({}), WAIT));
        let request = received(&mut harness.from_client);
        let location = json!({"uri": "file:///a.py", "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}});
        let many = vec![location.clone(); MAX_LIST_ANSWER_BYTES / 80];
        send(&mut harness.to_client, &json!({"jsonrpc": "2.0", "id": request["id"], "result": many}));
        let refused = asked.join().expect("joined");
        let Err(RpcError::TooLarge { method, size, limit, bound }) = &refused else {
            panic!("a {} MiB answer to references gave {refused:?}", MAX_LIST_ANSWER_BYTES >> 20)
        };
        assert_eq!(
            (method.as_str(), *limit, bound.as_str()),
            ("textDocument/references", 4 << 20, "MAX_LIST_ANSWER_BYTES")
        );
        assert!(*size > *limit);
        let shown = refused.clone().expect_err("an error").to_string();
        assert!(shown.contains("MAX_LIST_ANSWER_BYTES") && shown.contains(&limit.to_string()), "{shown}");
        // A rename may take more than a list; any other request less.
        let asked = scope.spawn(|| harness.connection.request("textDocument/rename", json!({}), WAIT));
        let request = received(&mut harness.from_client);
        send(&mut harness.to_client, &json!({"jsonrpc": "2.0", "id": request["id"], "result": many}));
        assert!(asked.join().expect("joined").is_ok(), "a rename takes up to MAX_RENAME_ANSWER_BYTES");
        let asked = scope.spawn(|| harness.connection.request("textDocument/hover", json!({}), WAIT));
        let request = received(&mut harness.from_client);
        let over = vec![location; MAX_ANSWER_BYTES / 80];
        send(&mut harness.to_client, &json!({"jsonrpc": "2.0", "id": request["id"], "result": over}));
        let refused = asked.join().expect("joined");
        assert!(matches!(&refused, Err(RpcError::TooLarge { limit, .. }) if *limit == 1 << 20), "{refused:?}");
    });
    assert_eq!(harness.connection.broken(), None, "the connection stays up");
    assert!(!harness.broken_hook_ran.load(Ordering::SeqCst));
}

/// A server request too large to parse gets an error answer, unparsed.
#[test]
fn a_server_request_too_large_gets_an_error() {
    let mut harness = harness(Value::Null);
    let items = vec![json!({"section": "python"}); MAX_NOTIFICATION_BODY / 20];
    send(
        &mut harness.to_client,
        &json!({"jsonrpc": "2.0", "id": 7, "method": "workspace/configuration", "params": {"items": items}}),
    );
    let answer = received(&mut harness.from_client);
    assert_eq!(answer["id"], 7);
    assert_eq!(answer["error"]["code"], INVALID_PARAMS, "{answer}");
    assert_eq!(harness.connection.broken(), None);
}

/// A body of just over `size` bytes: `{"jsonrpc": "2.0", <envelope>, "result": <value>}`,
/// where the value is `0,0,...` in an array (`deep` false) or arrays nested `size / 2` deep,
/// which a full parse refuses (past serde_json's recursion limit) while an envelope skips it.
fn large_body(envelope: &str, size: usize, deep: bool) -> Vec<u8> {
    let mut body = format!(r#"{{"jsonrpc":"2.0",{envelope},"result":"#).into_bytes();
    if deep {
        let depth = size / 2 + 1;
        body.extend(std::iter::repeat_n(b'[', depth));
        body.extend(std::iter::repeat_n(b']', depth));
    } else {
        body.push(b'[');
        while body.len() < size {
            body.extend_from_slice(b"0,");
        }
        body.push(b'0');
        body.push(b']');
    }
    body.push(b'}');
    assert!(body.len() > size);
    body
}

/// F1: a large answer whose envelope has an id no request waits for (`null`, a string, a
/// fraction) or no id and no method is dropped unparsed, and the connection stays up: the
/// bodies nest arrays far past the depth a full parse takes, so a full parse would have
/// ended the connection.
#[test]
fn a_large_answer_with_an_id_nobody_waits_for_is_dropped_unparsed() {
    let mut harness = harness(Value::Null);
    std::thread::scope(|scope| {
        let asked = scope.spawn(|| harness.connection.request("textDocument/references", json!({}), WAIT));
        let request = received(&mut harness.from_client);
        let id = request["id"].as_i64().expect("a number id");
        let shapes = [
            r#""id":null"#.to_owned(),
            format!(r#""id":"{id}""#),
            format!(r#""id":{id}.0"#),
            r#""error":null"#.to_owned(),
        ];
        for (index, shape) in shapes.iter().enumerate() {
            let body = large_body(shape, MAX_NOTIFICATION_BODY + 1, true);
            write_message(&mut harness.to_client, &body).expect("write");
            assert_eq!(dropped(&harness.connection, index as u64 + 1), index as u64 + 1, "{shape} is dropped");
            assert_eq!(harness.connection.broken(), None, "{shape} leaves the connection up");
        }
        send(&mut harness.to_client, &json!({"jsonrpc": "2.0", "id": id, "result": []}));
        assert_eq!(asked.join().expect("joined"), Ok(json!([])), "the request still gets its answer");
    });
    assert!(!harness.broken_hook_ran.load(Ordering::SeqCst));
}

/// F1: a large message whose envelope does not parse (a duplicate `id`, a method that is not
/// a string) ends the connection before it is parsed whole; the waiting request never takes
/// the body as its answer.
#[test]
fn a_large_message_with_a_broken_envelope_ends_the_connection_unparsed() {
    for shape in [r#""id":{id},"id":{id}"#, r#""id":{id},"method":5"#] {
        let mut harness = harness(Value::Null);
        std::thread::scope(|scope| {
            let asked = scope.spawn(|| harness.connection.request("textDocument/references", json!({}), WAIT));
            let request = received(&mut harness.from_client);
            let id = request["id"].as_i64().expect("a number id").to_string();
            let body = large_body(&shape.replace("{id}", &id), MAX_NOTIFICATION_BODY + 1, false);
            write_message(&mut harness.to_client, &body).expect("write");
            let answer = asked.join().expect("joined");
            let Err(RpcError::Unavailable { reason }) = &answer else { panic!("{shape}: the request took {answer:?}") };
            assert!(reason.contains("not a JSON-RPC envelope"), "{shape}: {reason}");
        });
        assert!(harness.connection.broken().is_some(), "{shape} ends the connection");
        // The hook runs on the reader thread just after the connection is marked broken.
        let deadline = Instant::now() + WAIT;
        while !harness.broken_hook_ran.load(Ordering::SeqCst) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(harness.broken_hook_ran.load(Ordering::SeqCst), "{shape}: the hook ran");
    }
}
