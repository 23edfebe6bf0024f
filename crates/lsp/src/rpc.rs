//! One JSON-RPC connection to a server: requests with deadlines (cancelled with
//! `$/cancelRequest` when the deadline passes), the server's own requests answered by a fixed
//! policy, and its notifications kept in a bounded queue. One reader thread per connection
//! reads every message; a message that breaks the framing or is not JSON-RPC ends the
//! connection, and the `on_broken` hook (which kills the server) runs.

use std::collections::{HashMap, VecDeque};
use std::io::{Read, Write};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, mpsc};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::framing::{MAX_MESSAGE_BYTES, read_message, write_message};

/// The most requests waiting for an answer at once on one connection.
pub const MAX_PENDING: usize = 256;

/// The most notifications kept unread; the oldest are dropped (and counted) past this.
pub const MAX_NOTIFICATIONS: usize = 4_096;

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
        /// Its message, cut to 2,000 characters.
        message: String,
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

type Reply = Result<Value, (i64, String)>;

#[derive(Default)]
struct State {
    pending: HashMap<i64, mpsc::Sender<Reply>>,
    notifications: VecDeque<Notification>,
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

type Writer = Arc<Mutex<Box<dyn Write + Send>>>;

/// A connection to one language server over its stdin and stdout.
pub struct Connection {
    shared: Arc<Shared>,
    writer: Writer,
    next_id: AtomicI64,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection").field("broken", &self.broken()).finish_non_exhaustive()
    }
}

impl Connection {
    /// Starts the reader thread on `reader` (the server's stdout); messages go out on
    /// `writer` (its stdin). `on_broken` runs once, on the reader thread, when the server
    /// breaks the framing or sends something that is not JSON-RPC: it should kill the server.
    #[must_use]
    pub fn new(
        reader: impl Read + Send + 'static,
        writer: impl Write + Send + 'static,
        answers: Answers,
        on_broken: Box<dyn FnOnce() + Send>,
    ) -> Connection {
        let shared = Arc::new(Shared { state: Mutex::new(State::default()), changed: Condvar::new() });
        let writer: Writer = Arc::new(Mutex::new(Box::new(writer)));
        let thread_shared = Arc::clone(&shared);
        let thread_writer = Arc::clone(&writer);
        std::thread::spawn(move || read_loop(reader, &thread_shared, &thread_writer, &answers, on_broken));
        Connection { shared, writer, next_id: AtomicI64::new(1) }
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
            state.pending.insert(id, sender);
        }
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let started = Instant::now();
        match receiver.recv_timeout(wait) {
            Ok(Ok(result)) => Ok(result),
            Ok(Err((code, message))) => Err(RpcError::Server {
                method: method.to_owned(),
                code,
                message: message.chars().take(2_000).collect(),
            }),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                self.shared.lock().pending.remove(&id);
                // The server may be gone by now; the timeout is the answer either way.
                let _ = self.notify("$/cancelRequest", json!({"id": id}));
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
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
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
            if let Some(notification) = state.notifications.pop_front() {
                return Some(notification);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if state.broken.is_some() || left.is_zero() {
                return None;
            }
            state = crate::wait(&self.shared.changed, state, left);
        }
    }

    /// How many notifications were dropped unread because the queue was full.
    #[must_use]
    pub fn dropped_notifications(&self) -> u64 {
        self.shared.lock().dropped
    }

    fn send(&self, message: &Value) -> Result<(), RpcError> {
        if self.shared.lock().broken.is_some() {
            return Err(self.unavailable());
        }
        let body = serde_json::to_vec(message).map_err(|error| RpcError::Unavailable { reason: error.to_string() })?;
        let mut writer = crate::lock(&self.writer);
        if let Err(error) = write_message(&mut *writer, &body) {
            drop(writer);
            self.shared.end(format!("writing to the server failed: {error}"));
            return Err(self.unavailable());
        }
        Ok(())
    }

    fn unavailable(&self) -> RpcError {
        RpcError::Unavailable { reason: self.broken().unwrap_or_else(|| "the connection ended".to_owned()) }
    }
}

fn read_loop(
    reader: impl Read,
    shared: &Shared,
    writer: &Writer,
    answers: &Answers,
    on_broken: Box<dyn FnOnce() + Send>,
) {
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
        let message = match serde_json::from_slice::<Value>(&body) {
            Ok(Value::Object(message)) => message,
            Ok(_) | Err(_) => break "the server sent a message that is not a JSON-RPC object".to_owned(),
        };
        if let Err(reason) = route(message, shared, writer, answers) {
            break reason;
        }
    };
    shared.end(broken);
    on_broken();
}

/// Hands one message on: a response to its waiting request, a server request to the
/// answers, a notification to the queue. `Err` for a message that is none of these.
fn route(
    mut message: serde_json::Map<String, Value>,
    shared: &Shared,
    writer: &Writer,
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
            let mut writer = crate::lock(writer);
            // A failed write shows up on the next request; the reader keeps reading.
            let _ = write_message(&mut *writer, &body);
        }
        (Some(method), None) => {
            let mut state = shared.lock();
            if state.notifications.len() >= MAX_NOTIFICATIONS {
                state.notifications.pop_front();
                state.dropped += 1;
            }
            state.notifications.push_back(Notification { method, params });
            drop(state);
            shared.changed.notify_all();
        }
        (None, Some(id)) => {
            let Some(id) = id.as_i64() else {
                return Err(format!("the server answered an id editkit never sent: {id}"));
            };
            let reply = match (message.remove("result"), message.remove("error")) {
                (_, Some(error)) => Err((
                    error.get("code").and_then(Value::as_i64).unwrap_or(0),
                    error.get("message").and_then(Value::as_str).unwrap_or("").to_owned(),
                )),
                (result, None) => Ok(result.unwrap_or(Value::Null)),
            };
            // An answer to a request already given up on (timed out) is dropped.
            if let Some(sender) = shared.lock().pending.remove(&id) {
                let _ = sender.send(reply);
            }
        }
        (None, None) => return Err("the server sent a message with neither method nor id".to_owned()),
    }
    Ok(())
}

#[cfg(test)]
mod tests;
