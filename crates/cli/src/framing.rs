//! The MCP stdio transport: newline-delimited JSON-RPC in which every line gets an answer.
//!
//! rmcp's stdio transport drops, without a reply, a line over 16 MiB and a line that is not
//! JSON, and its JSON reader keeps the last of two equal keys. This transport reads the lines
//! itself and hands rmcp only well-formed messages:
//! - a line of up to [`MAX_MESSAGE_BYTES`] (the toolkit's 64 MiB argument limit plus 1 MiB for
//!   the envelope) is read whole; a longer one is skipped without being held in memory and
//!   answered with an Invalid Request error (-32600) naming the limit, with the request's id
//!   when it stands near the start of the line;
//! - a line that is not UTF-8 or not JSON is answered with a Parse error (-32700), id null;
//! - a line with a key repeated anywhere is refused: in a `tools/call`'s arguments as a tool
//!   result `invalid_args` naming the key (as any bad argument is), elsewhere as an Invalid
//!   Request error; nothing runs;
//! - well-formed JSON that is not a JSON-RPC message gets an Invalid Request error, except the
//!   notifications rmcp ignores for compatibility (non-MCP methods without an id).
//!
//! - before the session opens (`initialize`, then `notifications/initialized`; or, on protocol
//!   2026-07-28, the first request with complete `_meta`), a notification is dropped, a `ping`
//!   answered, `server/discover` and requests naming a protocol version in `_meta` handed on,
//!   and any other request refused (-32600), where rmcp would end the session;
//! - a `tools/call` whose params are not a name and an arguments object gets Invalid params
//!   (-32602), not rmcp's "method not found".
//!
//! The server keeps serving after each of these. Replies and rmcp's own messages go through
//! one writer task, so lines never interleave.

use std::borrow::Cow;
use std::cell::RefCell;
use std::io;

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

/// The longest message read: the toolkit's argument limit plus room for the envelope.
pub(crate) const MAX_MESSAGE_BYTES: usize = editkit::tools::MAX_ARGS_BYTES + (1 << 20);
/// How much of an over-long line is kept to find its id.
const HEAD_BYTES: usize = 64 << 10;
/// Frames waiting for the writer; senders wait beyond it.
const QUEUE: usize = 64;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

/// Starts the writer task on `output` and returns the transport reading `input`, and the
/// writer's handle (it ends once the transport is dropped and every frame is written).
pub(crate) fn transport<R, W>(input: R, output: W) -> (Framed<R>, tokio::task::JoinHandle<()>)
where
    R: AsyncBufRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (frames, mut queue) = mpsc::channel::<Vec<u8>>(QUEUE);
    let writer = tokio::spawn(async move {
        let mut output = output;
        while let Some(frame) = queue.recv().await {
            if output.write_all(&frame).await.is_err() || output.flush().await.is_err() {
                eprintln!("editkit mcp: stdout is closed; replies are dropped");
                return;
            }
        }
    });
    let framed = Framed {
        input,
        line: Vec::new(),
        over: None,
        reply: None,
        frames: Some(frames),
        stage: Stage::New,
        tasks_2025: false,
    };
    (framed, writer)
}

/// A line too long to keep: its size so far and its first bytes.
struct Over {
    size: usize,
    head: Vec<u8>,
}

/// The transport rmcp serves on.
pub(crate) struct Framed<R> {
    input: R,
    /// The line read so far (kept across cancelled reads).
    line: Vec<u8>,
    /// Set while skipping the rest of an over-long line.
    over: Option<Over>,
    /// A reply of this transport's own waiting for room in the writer's queue.
    reply: Option<Vec<u8>>,
    frames: Option<mpsc::Sender<Vec<u8>>>,
    /// Where the session is in the MCP lifecycle (rmcp ends it on any message out of order).
    stage: Stage,
    /// The client initialised protocol 2025-11-25 declaring `capabilities.tasks` (see
    /// [`crate::protocol::Tasks2025`]).
    tasks_2025: bool,
}

/// The MCP lifecycle as far as the transport hands messages on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// No `initialize` request yet.
    New,
    /// `initialize` passed, `notifications/initialized` not yet.
    Initializing,
    /// The session is open.
    Open,
}

/// One line read, or why there is none.
enum Line {
    Complete,
    TooLong(Over),
    Eof,
}

impl<R: AsyncBufRead + Unpin + Send> Framed<R> {
    /// Reads up to the next newline into `self.line`, skipping (and measuring) a line over the
    /// limit. Cancel-safe: bytes are consumed only once copied into `self`.
    async fn read_line(&mut self) -> io::Result<Line> {
        loop {
            let available = self.input.fill_buf().await?;
            if available.is_empty() {
                if let Some(over) = self.over.take() {
                    return Ok(Line::TooLong(over));
                }
                return Ok(if self.line.is_empty() { Line::Eof } else { Line::Complete });
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let piece = &available[..newline.unwrap_or(available.len())];
            let taken = piece.len() + usize::from(newline.is_some());
            match self.over.as_mut() {
                Some(over) => {
                    over.size += piece.len();
                    let room = HEAD_BYTES.saturating_sub(over.head.len());
                    over.head.extend_from_slice(&piece[..piece.len().min(room)]);
                }
                None if self.line.len() + piece.len() > MAX_MESSAGE_BYTES => {
                    let mut head = std::mem::take(&mut self.line);
                    let size = head.len() + piece.len();
                    head.truncate(HEAD_BYTES);
                    let room = HEAD_BYTES.saturating_sub(head.len());
                    head.extend_from_slice(&piece[..piece.len().min(room)]);
                    self.line = Vec::new();
                    self.over = Some(Over { size, head });
                }
                None => self.line.extend_from_slice(piece),
            }
            self.input.consume(taken);
            if newline.is_some() {
                return Ok(match self.over.take() {
                    Some(over) => Line::TooLong(over),
                    None => Line::Complete,
                });
            }
        }
    }

    /// Sends this transport's pending reply, waiting for room in the queue (cancel-safe: the
    /// reply stays pending until a slot is reserved).
    async fn flush_reply(&mut self) -> bool {
        let Some(frames) = self.frames.as_ref() else { return false };
        if self.reply.is_some() {
            let Ok(permit) = frames.reserve().await else { return false };
            if let Some(reply) = self.reply.take() {
                permit.send(reply);
            }
        }
        true
    }

    /// What to do with one complete line: a message for rmcp, or a reply of our own; `stage`
    /// moves on when this line is the next lifecycle message.
    fn decide(line: &[u8], stage: &mut Stage, tasks_2025: &mut bool) -> Decision {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return Decision::Skip;
        }
        if let Err(err) = std::str::from_utf8(line) {
            let message =
                format!("Parse error: the message is not UTF-8 (invalid byte at offset {})", err.valid_up_to());
            return Decision::Reply(error_frame(&Value::Null, PARSE_ERROR, &message, None));
        }
        let value = match editkit::json::parse(line) {
            Ok(value) => value,
            Err(editkit::json::ParseError::Syntax(err)) => {
                let message = format!("Parse error: the message is not JSON ({err})");
                return Decision::Reply(error_frame(&Value::Null, PARSE_ERROR, &message, None));
            }
            Err(err) => return Decision::Reply(duplicate_reply(line, &err)),
        };
        let id = request_id(&value);
        if *stage == Stage::New && value.get("method").and_then(Value::as_str) == Some("initialize") {
            *tasks_2025 = declares_tasks_2025(&value);
        }
        if let Some(decision) = lifecycle(&value, &id, stage).or_else(|| call_params(&value, &id)) {
            return decision;
        }
        let mut value = value;
        if *tasks_2025 {
            route_tasks_2025(&mut value);
        }
        let ignored = ignored_notification(&value);
        match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value) {
            Ok(mut message) => {
                if *tasks_2025 && let rmcp::model::JsonRpcMessage::Request(request) = &mut message {
                    use rmcp::model::GetExtensions as _;
                    request.request.extensions_mut().insert(crate::protocol::Tasks2025);
                }
                if *stage == Stage::New && opens_inline(&message) {
                    *stage = Stage::Open;
                }
                Decision::Pass(Box::new(message))
            }
            Err(_) if ignored => Decision::Skip,
            Err(err) => {
                let message = format!("Invalid Request: not a JSON-RPC 2.0 message this server reads ({err})");
                Decision::Reply(error_frame(&id, INVALID_REQUEST, &message, None))
            }
        }
    }
}

enum Decision {
    Pass(Box<RxJsonRpcMessage<RoleServer>>),
    Reply(Vec<u8>),
    Skip,
}

impl<R: AsyncBufRead + Unpin + Send + 'static> Transport<RoleServer> for Framed<R> {
    type Error = io::Error;

    fn name() -> Cow<'static, str> {
        "editkit-stdio".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let frames = self.frames.clone();
        let frame = if self.tasks_2025 { tasks_2025_reply(&item) } else { None };
        let frame = frame.map_or_else(|| serde_json::to_vec(&item), Ok).map(|mut bytes| {
            bytes.push(b'\n');
            bytes
        });
        async move {
            let frame = frame.map_err(io::Error::other)?;
            let closed = || io::Error::new(io::ErrorKind::BrokenPipe, "the MCP output is closed");
            frames.ok_or_else(closed)?.send(frame).await.map_err(|_| closed())
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if !self.flush_reply().await {
                return None;
            }
            let line = match self.read_line().await {
                Ok(line) => line,
                Err(err) => {
                    eprintln!("editkit mcp: reading stdin failed: {err}");
                    return None;
                }
            };
            match line {
                Line::Eof => return None,
                Line::TooLong(over) => {
                    let id = leading_id(&over.head);
                    let message = format!(
                        "Invalid Request: the message is {} bytes, over the limit of {MAX_MESSAGE_BYTES} bytes for one \
                         MCP message (tool arguments may take {} bytes); nothing was run: send smaller arguments, \
                         for instance several edits instead of one whole file",
                        over.size,
                        editkit::tools::MAX_ARGS_BYTES
                    );
                    let data = json!({"size_bytes": over.size, "limit_bytes": MAX_MESSAGE_BYTES});
                    self.reply = Some(error_frame(&id, INVALID_REQUEST, &message, Some(data)));
                }
                Line::Complete => {
                    let decision = Self::decide(&self.line, &mut self.stage, &mut self.tasks_2025);
                    self.line = Vec::new();
                    match decision {
                        Decision::Pass(message) => return Some(*message),
                        Decision::Reply(reply) => self.reply = Some(reply),
                        Decision::Skip => {}
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.frames = None;
        Ok(())
    }
}

/// Whether an `initialize` request names protocol 2025-11-25 and declares `capabilities.tasks`
/// (the revision's experimental tasks).
fn declares_tasks_2025(value: &Value) -> bool {
    value.pointer("/params/protocolVersion").and_then(Value::as_str) == Some("2025-11-25")
        && value.pointer("/params/capabilities/tasks").is_some_and(Value::is_object)
}

/// In a session that declared the 2025-11-25 tasks: a task-augmented `tools/call` and the
/// `tasks/*` requests go to the server's handler of that revision's tasks (rmcp models only the
/// 2026-07-28 tasks extension), renamed under [`crate::protocol::TASKS_2025_METHODS`].
fn route_tasks_2025(value: &mut Value) {
    let Some(method) = value.get("method").and_then(Value::as_str) else { return };
    let task_call = method == "tools/call" && value.pointer("/params/task").is_some_and(Value::is_object);
    if (task_call || ["tasks/get", "tasks/result", "tasks/cancel"].contains(&method)) && value.get("id").is_some() {
        let renamed = format!("{}{method}", crate::protocol::TASKS_2025_METHODS);
        value["method"] = Value::String(renamed);
    }
}

/// In a session that declared the 2025-11-25 tasks, the replies that say so: `initialize`
/// declares `capabilities.tasks` (task-augmented `tools/call`, and `tasks/cancel`), and
/// `tools/list` marks the tools that may run as a task `execution.taskSupport: optional`.
/// `None`: the reply goes out as it is.
fn tasks_2025_reply(item: &TxJsonRpcMessage<RoleServer>) -> Option<Vec<u8>> {
    use rmcp::model::{JsonRpcMessage, ServerResult};
    let JsonRpcMessage::Response(response) = item else { return None };
    let mut value = serde_json::to_value(item).ok()?;
    match &response.result {
        ServerResult::InitializeResult(_) => {
            let capabilities = value.pointer_mut("/result/capabilities")?.as_object_mut()?;
            capabilities.insert("tasks".into(), json!({"requests": {"tools": {"call": {}}}, "cancel": {}}));
        }
        ServerResult::ListToolsResult(_) => {
            for tool in value.pointer_mut("/result/tools")?.as_array_mut()? {
                let task_tool =
                    tool.get("name").and_then(Value::as_str).is_some_and(|n| crate::protocol::TASK_TOOLS.contains(&n));
                if let (true, Some(tool)) = (task_tool, tool.as_object_mut()) {
                    tool.insert("execution".into(), json!({"taskSupport": "optional"}));
                }
            }
        }
        _ => return None,
    }
    serde_json::to_vec(&value).ok()
}

/// A JSON-RPC error response line.
fn error_frame(id: &Value, code: i64, message: &str, data: Option<Value>) -> Vec<u8> {
    let mut error = json!({"code": code, "message": message});
    if let (Some(data), Some(map)) = (data, error.as_object_mut()) {
        map.insert("data".into(), data);
    }
    frame(&json!({"jsonrpc": "2.0", "id": id, "error": error}))
}

fn frame(value: &Value) -> Vec<u8> {
    let mut bytes = value.to_string().into_bytes();
    bytes.push(b'\n');
    bytes
}

/// A request's id when it is a valid one (a number or a string), else null.
fn request_id(value: &Value) -> Value {
    match value.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
        _ => Value::Null,
    }
}

/// The refusal of a message with a repeated key: a tool error for a key in a `tools/call`'s
/// arguments, an Invalid Request error otherwise.
fn duplicate_reply(line: &[u8], err: &editkit::json::ParseError) -> Vec<u8> {
    // Read again keeping the last of equal keys, only to know what to answer.
    let lenient: Value = serde_json::from_slice(line).unwrap_or(Value::Null);
    let path = err.duplicate_path().unwrap_or_default();
    let id = if path == "id" { Value::Null } else { request_id(&lenient) };
    let field = path.strip_prefix("params.arguments.");
    if let Some(field) = field
        && lenient.get("method").and_then(Value::as_str) == Some("tools/call")
        && !id.is_null()
    {
        let refusal = editkit::Error::InvalidArgs { field: Some(field.to_owned()), message: err.to_string() };
        let contract = json!({"ok": false, "error": refusal.to_json()});
        let tool = lenient.pointer("/params/name").and_then(Value::as_str).unwrap_or("");
        let mut result = crate::result::tool_result(tool, contract, crate::result::TextStyle::default());
        // Absent means complete, for every protocol version.
        result.result_type = None;
        let result = serde_json::to_value(result).unwrap_or_else(|_| json!({"isError": true}));
        return frame(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }
    error_frame(&id, INVALID_REQUEST, &format!("Invalid Request: {err}"), Some(json!({"field": path})))
}

/// Before the session is open: a notification out of order is dropped (clients send
/// `roots/list_changed` early), a `ping` answered, any other request refused with the way out,
/// and the session kept; `initialize`, then `notifications/initialized`, move it on. `None`:
/// hand the message on.
fn lifecycle(value: &Value, id: &Value, stage: &mut Stage) -> Option<Decision> {
    if *stage == Stage::Open {
        return None;
    }
    let method = value.get("method").and_then(Value::as_str)?;
    let request = value.get("id").is_some();
    match (*stage, method, request) {
        (Stage::New, "initialize", true) => {
            *stage = Stage::Initializing;
            None
        }
        (Stage::Initializing, "notifications/initialized", false) => {
            *stage = Stage::Open;
            None
        }
        (_, _, false) => Some(Decision::Skip),
        (_, "ping", true) => Some(Decision::Reply(frame(&json!({"jsonrpc": "2.0", "id": id, "result": {}})))),
        // Protocol 2026-07-28 has no handshake: `server/discover` is answered at any time, and a
        // request carrying its protocol version in `_meta` opens the session by itself (rmcp
        // answers one whose metadata is incomplete, and the session stays new).
        (Stage::New, "server/discover", true) => None,
        (Stage::New, _, true) if value.pointer(META_PROTOCOL_VERSION).is_some() => None,
        (Stage::New, _, true) => Some(Decision::Reply(error_frame(
            id,
            INVALID_REQUEST,
            &format!(
                "Invalid Request: `{method:.80}` before `initialize`; send initialize first, then \
                 notifications/initialized (protocol 2025-11-25 and earlier), or name the protocol version and \
                 client capabilities in the request's _meta (protocol 2026-07-28)"
            ),
            None,
        ))),
        (_, _, true) => Some(Decision::Reply(error_frame(
            id,
            INVALID_REQUEST,
            &format!(
                "Invalid Request: `{method:.80}` before `notifications/initialized`; send that notification first"
            ),
            None,
        ))),
    }
}

/// Where a request names its protocol version (protocol 2026-07-28).
const META_PROTOCOL_VERSION: &str = "/params/_meta/io.modelcontextprotocol~1protocolVersion";

/// Whether rmcp opens the session on `message` without a handshake: a request other than
/// `server/discover` with the 2026-07-28 metadata complete, naming a version the server
/// speaks. (rmcp answers any other request before the session opens and keeps waiting.)
fn opens_inline(message: &RxJsonRpcMessage<RoleServer>) -> bool {
    use rmcp::model::{ClientRequest, GetMeta as _, JsonRpcMessage, ProtocolVersion};
    let JsonRpcMessage::Request(request) = message else { return false };
    if matches!(request.request, ClientRequest::DiscoverRequest(_) | ClientRequest::InitializeRequest(_)) {
        return false;
    }
    let meta = request.request.get_meta();
    meta.missing_required_keys(&ProtocolVersion::V_2026_07_28).is_empty()
        && meta.protocol_version().is_some_and(|version| crate::protocol::SUPPORTED_VERSIONS.contains(&version))
}

/// A `tools/call` request whose params are not `{"name": string, "arguments": object}`: an
/// Invalid params error naming what is wrong (rmcp would answer "method not found").
fn call_params(value: &Value, id: &Value) -> Option<Decision> {
    if value.get("method").and_then(Value::as_str) != Some("tools/call") || value.get("id").is_none() {
        return None;
    }
    let params = value.get("params");
    let problem = match params {
        Some(Value::Object(params)) => match (params.get("name"), params.get("arguments")) {
            (None, _) => "params.name is missing: give the tool's name",
            (Some(name), _) if !name.is_string() => "params.name must be a string, the tool's name",
            (_, Some(arguments)) if !arguments.is_object() && !arguments.is_null() => {
                "params.arguments must be an object of the tool's arguments"
            }
            _ => return None,
        },
        _ => "params must be an object with the tool's name and arguments",
    };
    let message = format!("Invalid params: {problem}");
    Some(Decision::Reply(error_frame(id, INVALID_PARAMS, &message, None)))
}

/// Whether rmcp would ignore this message: a notification (no id) of a method outside MCP,
/// an LSP message say, or an unknown `notifications/...`.
fn ignored_notification(value: &Value) -> bool {
    const NOTIFICATIONS: &[&str] = &[
        "notifications/cancelled",
        "notifications/initialized",
        "notifications/message",
        "notifications/progress",
        "notifications/prompts/list_changed",
        "notifications/resources/list_changed",
        "notifications/resources/updated",
        "notifications/roots/list_changed",
        "notifications/subscriptions/acknowledged",
        "notifications/tools/list_changed",
    ];
    const METHODS: &[&str] = &[
        "initialize",
        "ping",
        "server/discover",
        "prompts/get",
        "prompts/list",
        "resources/list",
        "resources/read",
        "resources/subscribe",
        "resources/unsubscribe",
        "resources/templates/list",
        "subscriptions/listen",
        "tools/call",
        "tools/list",
        "completion/complete",
        "elicitation/create",
        "logging/setLevel",
        "roots/list",
        "sampling/createMessage",
    ];
    let Some(method) = value.get("method").and_then(Value::as_str) else { return false };
    let standard = METHODS.contains(&method) || NOTIFICATIONS.contains(&method);
    (value.get("id").is_none() && !standard)
        || (method.starts_with("notifications/") && !NOTIFICATIONS.contains(&method))
}

/// The `id` of a top-level object from the first bytes of its text, if it stands there
/// before anything too long; else null.
fn leading_id(head: &[u8]) -> Value {
    let found = RefCell::new(None);
    let mut reader = serde_json::Deserializer::from_slice(head);
    // The text is cut short, so the object never ends: only what was seen before counts.
    let _ = IdFinder { found: &found }.deserialize(&mut reader);
    match found.into_inner() {
        Some(id @ (Value::Number(_) | Value::String(_))) => id,
        _ => Value::Null,
    }
}

/// Reads a top-level object's keys, keeping the value of `id` and skipping the others.
struct IdFinder<'a> {
    found: &'a RefCell<Option<Value>>,
}

impl<'de> Visitor<'de> for IdFinder<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "id" {
                let id: Value = map.next_value()?;
                *self.found.borrow_mut() = Some(id);
                return Ok(());
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for IdFinder<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_found_at_the_start_of_a_cut_message() {
        assert_eq!(
            leading_id(br#"{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"a": "xxx"#),
            json!(9)
        );
        assert_eq!(leading_id(br#"{"id": "r-1", "params": {"#), json!("r-1"));
        assert_eq!(leading_id(br#"{"params": {"content": "xxxx"#), Value::Null);
        assert_eq!(leading_id(br#"{"id": {"x": 1}}"#), Value::Null);
        assert_eq!(leading_id(b"\xff"), Value::Null);
    }

    #[test]
    fn non_mcp_notifications_are_ignored_and_requests_are_not() {
        assert!(ignored_notification(&json!({"jsonrpc": "2.0", "method": "textDocument/didOpen"})));
        assert!(ignored_notification(&json!({"jsonrpc": "2.0", "method": "notifications/unknown"})));
        assert!(!ignored_notification(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})));
        assert!(!ignored_notification(&json!({"jsonrpc": "2.0", "id": 1, "method": "frobnicate"})));
    }
}
