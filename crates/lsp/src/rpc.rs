//! One JSON-RPC connection to a server: requests with deadlines (cancelled with
//! `$/cancelRequest` when the deadline passes), the server's own requests answered by a fixed
//! policy, and its notifications kept in a bounded queue. One reader thread per connection
//! reads every message; a message that breaks the framing or is not JSON-RPC ends the
//! connection, and the `on_broken` hook (which kills the server) runs. Each request takes an
//! answer only as large as its method needs ([`answer_limit`]): a larger one is dropped
//! before it is parsed, so one answer cannot cost 64 MiB of JSON values; so is any large
//! message whose envelope is not one editkit waits for (a broken envelope ends the
//! connection).

use std::collections::{HashMap, VecDeque};
use std::io::{Read, Write};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, mpsc};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::framing::{MAX_MESSAGE_BYTES, read_message, write_message};

/// The most requests waiting for an answer at once on one connection.
pub const MAX_PENDING: usize = 256;

/// The most notifications kept unread; the oldest are dropped (and counted) past this.
pub const MAX_NOTIFICATIONS: usize = 4_096;

/// The most bytes of notification bodies kept unread (counted as sent, before parsing); the
/// oldest are dropped (and counted) past this.
pub const MAX_NOTIFICATION_BYTES: usize = 16 * 1024 * 1024;

/// The largest notification body kept, in bytes; a larger one is dropped unparsed (and
/// counted). `textDocument/publishDiagnostics` may take [`MAX_DIAGNOSTICS_BODY`].
pub const MAX_NOTIFICATION_BODY: usize = 1024 * 1024;

/// The largest `textDocument/publishDiagnostics` body kept, in bytes.
pub const MAX_DIAGNOSTICS_BODY: usize = 4 * 1024 * 1024;

/// The most items one `workspace/configuration` request may ask for; a larger request gets
/// an error answer.
pub const MAX_CONFIGURATION_ITEMS: usize = 64;

/// The most messages waiting for the writer thread; a server that leaves them unread past a
/// deadline is stopped.
pub const MAX_OUTGOING: usize = 256;

/// How long a notification, or an answer to the server's request, may wait for room among
/// the [`MAX_OUTGOING`] messages before the server is taken as stuck (not reading its input)
/// and stopped. A request waits at most its own wait.
pub const WRITE_WAIT: Duration = Duration::from_secs(10);

/// The largest answer taken for a request, in bytes, unless the method is one below. An
/// answer is parsed into values taking many times its size, so each request takes only what
/// its answer needs; a larger answer fails that request ([`RpcError::TooLarge`]) unparsed and
/// leaves the connection up.
pub const MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// The largest answer taken for a list (`textDocument/references`, `workspace/symbol`,
/// `textDocument/documentSymbol`, `textDocument/diagnostic`, `workspace/executeCommand`
/// (tsserver's diagnostics)), in bytes.
pub const MAX_LIST_ANSWER_BYTES: usize = 4 * 1024 * 1024;

/// The largest answer taken for `textDocument/rename`, in bytes (a rename's edits are
/// bounded by [`crate::MAX_RENAME_EDITS`] too).
pub const MAX_RENAME_ANSWER_BYTES: usize = 8 * 1024 * 1024;

/// The largest answer [`Connection::request`] takes for `method`, in bytes, and the bound's
/// name (for messages).
#[must_use]
pub fn answer_limit(method: &str) -> (usize, &'static str) {
    match method {
        "textDocument/rename" => (MAX_RENAME_ANSWER_BYTES, "MAX_RENAME_ANSWER_BYTES"),
        "textDocument/references"
        | "workspace/symbol"
        | "textDocument/documentSymbol"
        | "textDocument/diagnostic"
        | "workspace/executeCommand" => (MAX_LIST_ANSWER_BYTES, "MAX_LIST_ANSWER_BYTES"),
        _ => (MAX_ANSWER_BYTES, "MAX_ANSWER_BYTES"),
    }
}

/// JSON-RPC's "invalid params".
const INVALID_PARAMS: i64 = -32602;

/// JSON-RPC's "method not found".
const METHOD_NOT_FOUND: i64 = -32601;

/// Why a request got no result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RpcError {
    /// The connection is gone: the server exited, or broke the protocol and was stopped.
    #[error("the language server is unavailable: {reason}")]
    Unavailable {
        /// What ended the connection.
        reason: String,
    },
    /// No answer within the wait; the request was cancelled.
    #[error("`{method}` got no answer within {waited_ms} ms")]
    TimedOut {
        /// The request's method.
        method: String,
        /// How long was waited.
        waited_ms: u64,
    },
    /// [`MAX_PENDING`] requests are already waiting.
    #[error("{MAX_PENDING} requests already wait for the language server")]
    Busy,
    /// The server answered with an error.
    #[error("the language server refused `{method}` ({code}): {message}")]
    Server {
        /// The request's method.
        method: String,
        /// The JSON-RPC error code (`-32801` content modified, `-32802` server cancelled).
        code: i64,
        /// Its message, cut to 2,000 characters, control characters escaped.
        message: String,
    },
    /// The answer is larger than editkit takes for that method ([`answer_limit`]); it was
    /// dropped unparsed.
    #[error(
        "the language server's answer to `{method}` is {size} bytes, more than the {limit} bytes editkit takes for it ({bound}); ask for less"
    )]
    TooLarge {
        /// The request's method.
        method: String,
        /// The answer's size in bytes.
        size: u64,
        /// The bound in bytes.
        limit: u64,
        /// The bound's name.
        bound: String,
    },
    /// The answer is not the shape the protocol gives that method.
    #[error("the language server's answer to `{method}` is malformed: {message}")]
    Malformed {
        /// The request's method.
        method: String,
        /// What did not fit.
        message: String,
    },
}

/// A notification the server sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    /// Its method, such as `textDocument/publishDiagnostics`.
    pub method: String,
    /// Its params (`null` when absent).
    pub params: Value,
}

/// How the client answers the server's own requests: `workspace/configuration` from a fixed
/// table, progress tokens and capability registrations accepted, `workspace/applyEdit`
/// always refused (a server never writes to the workspace), anything else "method not found".
#[derive(Debug, Clone, Default)]
pub struct Answers {
    /// The settings answered to `workspace/configuration`: an object whose keys are sections
    /// (`python`, `python.analysis` is looked up as `python` then `analysis`).
    pub configuration: Value,
}

impl Answers {
    /// The result for the server's request `method`, or a JSON-RPC error (code, message).
    fn answer(&self, method: &str, params: &Value) -> Result<Value, (i64, String)> {
        match method {
            "workspace/configuration" => {
                let items = params.get("items").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
                if items.len() > MAX_CONFIGURATION_ITEMS {
                    return Err((
                        INVALID_PARAMS,
                        format!(
                            "editkit answers at most {MAX_CONFIGURATION_ITEMS} configuration items (MAX_CONFIGURATION_ITEMS), not {}",
                            items.len()
                        ),
                    ));
                }
                Ok(Value::Array(items.iter().map(|item| self.section(item.get("section"))).collect()))
            }
            "window/workDoneProgress/create" | "client/registerCapability" | "client/unregisterCapability" => {
                Ok(Value::Null)
            }
            "workspace/applyEdit" => {
                Ok(json!({"applied": false, "failureReason": "editkit applies no edit a server asks for"}))
            }
            _ => Err((METHOD_NOT_FOUND, format!("editkit does not answer `{method}`"))),
        }
    }

    fn section(&self, section: Option<&Value>) -> Value {
        let Some(section) = section.and_then(Value::as_str) else { return self.configuration.clone() };
        let mut at = &self.configuration;
        for key in section.split('.') {
            match at.get(key) {
                Some(next) => at = next,
                None => return Value::Null,
            }
        }
        at.clone()
    }
}

/// What a waiting request gets.
enum Reply {
    Result(Value),
    Error(i64, String),
    /// The answer was larger than the request's limit: `size` bytes.
    TooLarge(usize),
}

/// A request waiting for its answer, and the largest answer it takes.
struct Pending {
    sender: mpsc::Sender<Reply>,
    limit: usize,
}

#[derive(Default)]
struct State {
    pending: HashMap<i64, Pending>,
    /// Each with its body's size.
    notifications: VecDeque<(Notification, usize)>,
    /// The sum of those sizes, at most [`MAX_NOTIFICATION_BYTES`].
    queued_bytes: usize,
    dropped: u64,
    broken: Option<String>,
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        crate::lock(&self.state)
    }

    /// Ends the connection: every waiting request learns `reason`.
    fn end(&self, reason: String) {
        let mut state = self.lock();
        if state.broken.is_none() {
            state.broken = Some(reason);
        }
        state.pending.clear();
        drop(state);
        self.changed.notify_all();
    }
}

/// The `on_broken` hook, run once by whichever thread finds the server broken or stuck.
#[derive(Clone)]
struct Hook(Arc<Mutex<Option<OnBroken>>>);

type OnBroken = Box<dyn FnOnce() + Send>;

impl Hook {
    fn run(&self) {
        let hook = crate::lock(&self.0).take();
        if let Some(hook) = hook {
            hook();
        }
    }
}

/// The way to the writer thread: messages are handed over with a deadline, never written on
/// the caller's thread, so a server that stops reading its input blocks no caller and no
/// reader.
#[derive(Clone)]
struct Outgoing {
    sender: SyncSender<Vec<u8>>,
    shared: Arc<Shared>,
    hook: Hook,
}

impl Outgoing {
    /// Hands `body` to the writer thread, waiting until `deadline` for room; past it the
    /// server is stuck: the connection ends and the hook (which kills it) runs.
    fn send(&self, mut body: Vec<u8>, deadline: Instant) -> Result<(), String> {
        loop {
            match self.sender.try_send(body) {
                Ok(()) => return Ok(()),
                Err(TrySendError::Disconnected(_)) => return Err("the writer to the server ended".to_owned()),
                Err(TrySendError::Full(back)) => {
                    if Instant::now() >= deadline {
                        let reason = format!(
                            "the server stopped reading its input ({MAX_OUTGOING} messages waited, MAX_OUTGOING); it was stopped"
                        );
                        self.shared.end(reason.clone());
                        self.hook.run();
                        return Err(reason);
                    }
                    body = back;
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
        }
    }
}

/// Writes each message to the server; a failed write ends the connection.
fn write_loop(receiver: &Receiver<Vec<u8>>, mut writer: impl Write, shared: &Shared, hook: &Hook) {
    for body in receiver {
        if let Err(error) = write_message(&mut writer, &body) {
            shared.end(format!("writing to the server failed: {error}"));
            hook.run();
            return;
        }
    }
}

/// A connection to one language server over its stdin and stdout.
pub struct Connection {
    shared: Arc<Shared>,
    outgoing: Outgoing,
    next_id: AtomicI64,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection").field("broken", &self.broken()).finish_non_exhaustive()
    }
}

impl Connection {
    /// Starts the reader thread on `reader` (the server's stdout) and the writer thread on
    /// `writer` (its stdin). `on_broken` runs once when the server breaks the framing, sends
    /// something that is not JSON-RPC, or stops reading its input past a deadline: it should
    /// kill the server.
    #[must_use]
    pub fn new(
        reader: impl Read + Send + 'static,
        writer: impl Write + Send + 'static,
        answers: Answers,
        on_broken: Box<dyn FnOnce() + Send>,
    ) -> Connection {
        let shared = Arc::new(Shared { state: Mutex::new(State::default()), changed: Condvar::new() });
        let hook = Hook(Arc::new(Mutex::new(Some(on_broken))));
        let (sender, receiver) = mpsc::sync_channel(MAX_OUTGOING);
        let outgoing = Outgoing { sender, shared: Arc::clone(&shared), hook: hook.clone() };
        let (writer_shared, writer_hook) = (Arc::clone(&shared), hook);
        std::thread::spawn(move || write_loop(&receiver, writer, &writer_shared, &writer_hook));
        let (reader_shared, reader_outgoing) = (Arc::clone(&shared), outgoing.clone());
        std::thread::spawn(move || read_loop(reader, &reader_shared, &reader_outgoing, &answers));
        Connection { shared, outgoing, next_id: AtomicI64::new(1) }
    }

    /// Why the connection ended, if it has.
    #[must_use]
    pub fn broken(&self) -> Option<String> {
        self.shared.lock().broken.clone()
    }

    /// Sends request `method` and waits up to `wait` for its result. When the wait passes,
    /// the request is cancelled with `$/cancelRequest`.
    ///
    /// # Errors
    /// [`RpcError`] says why there is no result.
    pub fn request(&self, method: &str, params: Value, wait: Duration) -> Result<Value, RpcError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (sender, receiver) = mpsc::channel();
        {
            let mut state = self.shared.lock();
            if let Some(reason) = &state.broken {
                return Err(RpcError::Unavailable { reason: reason.clone() });
            }
            if state.pending.len() >= MAX_PENDING {
                return Err(RpcError::Busy);
            }
            state.pending.insert(id, Pending { sender, limit: answer_limit(method).0 });
        }
        let started = Instant::now();
        let deadline = started + wait;
        if let Err(error) =
            self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}), deadline)
        {
            self.shared.lock().pending.remove(&id);
            return Err(error);
        }
        match receiver.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(Reply::Result(result)) => Ok(result),
            Ok(Reply::Error(code, message)) => {
                Err(RpcError::Server { method: method.to_owned(), code, message: crate::clean(&message, 2_000, true) })
            }
            Ok(Reply::TooLarge(size)) => {
                let (limit, bound) = answer_limit(method);
                Err(RpcError::TooLarge {
                    method: method.to_owned(),
                    size: u64::try_from(size).unwrap_or(u64::MAX),
                    limit: u64::try_from(limit).unwrap_or(u64::MAX),
                    bound: bound.to_owned(),
                })
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                self.shared.lock().pending.remove(&id);
                // The server may be gone by now; the timeout is the answer either way.
                // No further wait for room: a server with MAX_OUTGOING messages unread is stuck.
                let _ = self.send(
                    &json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": id}}),
                    Instant::now(),
                );
                let waited_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
                Err(RpcError::TimedOut { method: method.to_owned(), waited_ms })
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(self.unavailable()),
        }
    }

    /// [`Connection::request`] with the protocol's types for request `R`.
    ///
    /// # Errors
    /// As [`Connection::request`], and [`RpcError::Malformed`] for an answer of another shape.
    pub fn call<R: lsp_types::request::Request>(
        &self,
        params: R::Params,
        wait: Duration,
    ) -> Result<R::Result, RpcError> {
        let malformed =
            |error: serde_json::Error| RpcError::Malformed { method: R::METHOD.to_owned(), message: error.to_string() };
        let params = serde_json::to_value(params).map_err(malformed)?;
        let result = self.request(R::METHOD, params, wait)?;
        serde_json::from_value(result).map_err(malformed)
    }

    /// Sends notification `method`.
    ///
    /// # Errors
    /// [`RpcError::Unavailable`] when the server is gone.
    pub fn notify(&self, method: &str, params: Value) -> Result<(), RpcError> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}), Instant::now() + WRITE_WAIT)
    }

    /// [`Connection::notify`] with the protocol's types for notification `N`.
    ///
    /// # Errors
    /// As [`Connection::notify`].
    pub fn notify_typed<N: lsp_types::notification::Notification>(&self, params: N::Params) -> Result<(), RpcError> {
        let params = serde_json::to_value(params)
            .map_err(|error| RpcError::Malformed { method: N::METHOD.to_owned(), message: error.to_string() })?;
        self.notify(N::METHOD, params)
    }

    /// The oldest unread notification, waiting up to `wait` for one; `None` when none came
    /// (or the connection ended and none is left).
    #[must_use]
    pub fn next_notification(&self, wait: Duration) -> Option<Notification> {
        let deadline = Instant::now() + wait;
        let mut state = self.shared.lock();
        loop {
            if let Some((notification, bytes)) = state.notifications.pop_front() {
                state.queued_bytes = state.queued_bytes.saturating_sub(bytes);
                return Some(notification);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if state.broken.is_some() || left.is_zero() {
                return None;
            }
            state = crate::wait(&self.shared.changed, state, left);
        }
    }

    /// How many notifications were dropped unread: the queue was full ([`MAX_NOTIFICATIONS`],
    /// [`MAX_NOTIFICATION_BYTES`]) or the body too large ([`MAX_NOTIFICATION_BODY`]).
    #[must_use]
    pub fn dropped_notifications(&self) -> u64 {
        self.shared.lock().dropped
    }

    fn send(&self, message: &Value, deadline: Instant) -> Result<(), RpcError> {
        if self.shared.lock().broken.is_some() {
            return Err(self.unavailable());
        }
        let body = serde_json::to_vec(message).map_err(|error| RpcError::Unavailable { reason: error.to_string() })?;
        self.outgoing.send(body, deadline).map_err(|reason| RpcError::Unavailable { reason })
    }

    fn unavailable(&self) -> RpcError {
        RpcError::Unavailable { reason: self.broken().unwrap_or_else(|| "the connection ended".to_owned()) }
    }
}

/// A message's method and id, read without building the whole value.
#[derive(serde::Deserialize)]
struct Envelope {
    id: Option<Id>,
    method: Option<String>,
}

/// A message's id: a number, a string, or anything else (skipped without building it).
enum Id {
    Number(i64),
    Text(String),
    Other,
}

impl<'de> serde::Deserialize<'de> for Id {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Id, D::Error> {
        deserializer.deserialize_any(IdVisitor)
    }
}

struct IdVisitor;

impl<'de> serde::de::Visitor<'de> for IdVisitor {
    type Value = Id;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON-RPC id")
    }

    fn visit_i64<E>(self, value: i64) -> Result<Id, E> {
        Ok(Id::Number(value))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Id, E> {
        Ok(i64::try_from(value).map_or(Id::Other, Id::Number))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Id, E> {
        Ok(Id::Other)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Id, E> {
        Ok(Id::Other)
    }

    fn visit_unit<E>(self) -> Result<Id, E> {
        Ok(Id::Other)
    }

    fn visit_str<E>(self, value: &str) -> Result<Id, E> {
        Ok(if value.len() <= 200 { Id::Text(value.to_owned()) } else { Id::Other })
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Id, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(Id::Other)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Id, A::Error> {
        while map.next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?.is_some() {}
        Ok(Id::Other)
    }
}

/// What happens to one message before it is parsed into a value.
enum Verdict {
    /// Parse it and route it.
    Parse,
    /// Dropped unparsed (and counted, or answered).
    Dropped,
    /// The connection ends: a large message whose envelope is not JSON-RPC.
    Broken(String),
}

/// Whether a large `body` (over [`MAX_NOTIFICATION_BODY`]) is parsed into a value (which
/// takes many times its size). Only a well-formed envelope earns that: an answer with a
/// number id to a waiting request within its bound, or a `publishDiagnostics` within
/// [`MAX_DIAGNOSTICS_BODY`]. Any other notification, an answer too large for its request
/// (which then fails with [`RpcError::TooLarge`]) or with an id no request waits for (a
/// string, a fraction, `null`), and a message with neither is dropped unparsed and counted;
/// a server request gets an error answer. An envelope that does not parse (a duplicate key,
/// a method that is not a string) ends the connection.
fn verdict(body: &[u8], shared: &Shared, outgoing: &Outgoing) -> Verdict {
    if body.len() <= MAX_NOTIFICATION_BODY {
        return Verdict::Parse;
    }
    let envelope = match serde_json::from_slice::<Envelope>(body) {
        Ok(envelope) => envelope,
        Err(error) => {
            return Verdict::Broken(format!(
                "the server sent a {}-byte message that is not a JSON-RPC envelope: {error}",
                body.len()
            ));
        }
    };
    match envelope {
        Envelope { id: None, method: Some(method) } => {
            if method == "textDocument/publishDiagnostics" && body.len() <= MAX_DIAGNOSTICS_BODY {
                return Verdict::Parse;
            }
            shared.lock().dropped += 1;
            Verdict::Dropped
        }
        Envelope { id: Some(id), method: Some(_) } => {
            let id = match id {
                Id::Number(id) => json!(id),
                Id::Text(id) => json!(id),
                Id::Other => return Verdict::Dropped,
            };
            let message = format!("editkit takes requests of at most {MAX_NOTIFICATION_BODY} bytes");
            let reply = json!({"jsonrpc": "2.0", "id": id, "error": {"code": INVALID_PARAMS, "message": message}});
            if let Ok(reply) = serde_json::to_vec(&reply) {
                let _ = outgoing.send(reply, Instant::now() + WRITE_WAIT);
            }
            Verdict::Dropped
        }
        Envelope { id: Some(Id::Number(id)), method: None } => {
            let mut state = shared.lock();
            match state.pending.get(&id) {
                Some(pending) if body.len() <= pending.limit => Verdict::Parse,
                Some(_) => {
                    if let Some(pending) = state.pending.remove(&id) {
                        let _ = pending.sender.send(Reply::TooLarge(body.len()));
                    }
                    Verdict::Dropped
                }
                // An answer to a request already given up on (timed out) is dropped.
                None => Verdict::Dropped,
            }
        }
        Envelope { id: Some(Id::Text(_) | Id::Other) | None, method: None } => {
            shared.lock().dropped += 1;
            Verdict::Dropped
        }
    }
}

fn read_loop(reader: impl Read, shared: &Shared, outgoing: &Outgoing, answers: &Answers) {
    let mut reader = std::io::BufReader::new(reader);
    let broken = loop {
        let body = match read_message(&mut reader, MAX_MESSAGE_BYTES) {
            Ok(Some(body)) => body,
            Ok(None) => {
                shared.end("the server closed its output".to_owned());
                return;
            }
            Err(error) => break format!("the server broke the protocol: {error}"),
        };
        match verdict(&body, shared, outgoing) {
            Verdict::Parse => {}
            Verdict::Dropped => continue,
            Verdict::Broken(reason) => break reason,
        }
        let size = body.len();
        let message = match serde_json::from_slice::<Value>(&body) {
            Ok(Value::Object(message)) => message,
            Ok(_) | Err(_) => break "the server sent a message that is not a JSON-RPC object".to_owned(),
        };
        if let Err(reason) = route(message, size, shared, outgoing, answers) {
            break reason;
        }
    };
    shared.end(broken);
    outgoing.hook.run();
}

/// Hands one message on: a response to its waiting request, a server request to the
/// answers, a notification to the queue. `Err` for a message that is none of these.
fn route(
    mut message: serde_json::Map<String, Value>,
    size: usize,
    shared: &Shared,
    outgoing: &Outgoing,
    answers: &Answers,
) -> Result<(), String> {
    let method = message.get("method").and_then(Value::as_str).map(str::to_owned);
    let params = message.remove("params").unwrap_or(Value::Null);
    match (method, message.remove("id")) {
        (Some(method), Some(id)) => {
            let reply = match answers.answer(&method, &params) {
                Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Err((code, text)) => json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": text}}),
            };
            let body = serde_json::to_vec(&reply).map_err(|error| error.to_string())?;
            // Handed to the writer thread, never written here: a server that does not read
            // its input cannot stop this thread reading its output for longer than the wait.
            // A stuck server has been stopped by then, which the next request learns.
            let _ = outgoing.send(body, Instant::now() + WRITE_WAIT);
        }
        (Some(method), None) => {
            let mut state = shared.lock();
            while state.notifications.len() >= MAX_NOTIFICATIONS
                || (!state.notifications.is_empty() && state.queued_bytes + size > MAX_NOTIFICATION_BYTES)
            {
                if let Some((_, bytes)) = state.notifications.pop_front() {
                    state.queued_bytes = state.queued_bytes.saturating_sub(bytes);
                }
                state.dropped += 1;
            }
            state.queued_bytes += size;
            state.notifications.push_back((Notification { method, params }, size));
            drop(state);
            shared.changed.notify_all();
        }
        (None, Some(id)) => {
            let Some(id) = id.as_i64() else {
                return Err(format!("the server answered an id editkit never sent: {id}"));
            };
            let reply = match (message.remove("result"), message.remove("error")) {
                (_, Some(error)) => Reply::Error(
                    error.get("code").and_then(Value::as_i64).unwrap_or(0),
                    error.get("message").and_then(Value::as_str).unwrap_or("").to_owned(),
                ),
                (result, None) => Reply::Result(result.unwrap_or(Value::Null)),
            };
            // An answer to a request already given up on (timed out) is dropped.
            if let Some(pending) = shared.lock().pending.remove(&id) {
                let _ = pending.sender.send(reply);
            }
        }
        (None, None) => return Err("the server sent a message with neither method nor id".to_owned()),
    }
    Ok(())
}

#[cfg(test)]
mod tests;
