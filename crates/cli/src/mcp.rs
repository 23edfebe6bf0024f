//! `editkit mcp`: the toolkit's tools over MCP on stdio, with rmcp.
//!
//! The tool list comes from `editkit::tools::selected_specs()` at run time (the `core` set by
//! default, `--tools` for others), so the `ServerHandler` is written by hand (`list_tools`,
//! `call_tool`, `get_tool`) rather than with rmcp's macros. A successful call answers with the
//! contract object as structured content and a text block written for a model
//! ([`crate::result`]: a read is the file's numbered lines under a one-line header). Output
//! schemas are published only with `--output-schemas` (compact: no descriptions), which keeps
//! `tools/list` small. A refused call answers `isError: true` with the message as text and
//! `{"ok": false, "error": {kind, message, ...details}}` as structured content. An unknown
//! tool is a JSON-RPC error (invalid params), as the MCP specification asks.
//!
//! Roots: with `--roots client` (or no `--root`), the workspace roots are the client's: the
//! server asks `roots/list` once the session opens and again on
//! `notifications/roots/list_changed`, and opens a new toolkit on the answer (tool calls wait
//! for the first answer); a client without roots keeps the fallback (the `--root`s, or the
//! working directory).
//!
//! The transport is editkit's own ([`crate::framing`]): a message may be up to 65 MiB (64 MiB
//! of tool arguments), and every line gets an answer: a longer one an Invalid Request error
//! naming the limit, one that is not UTF-8 or JSON a Parse error (-32700), one with a key
//! given twice a refusal (`invalid_args` for a key in the arguments).

use std::borrow::Cow;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use editkit::tools::ToolSpec;
use editkit::{Toolkit, ToolkitOptions};
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, CreateTaskResult,
    CustomRequest, CustomResult, DetailedTask, ErrorCode, GetTaskParams, GetTaskResult, Implementation, JsonObject,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProtocolVersion, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, ResourceContents, ServerCapabilities, ServerConfig, Task, TaskPayload,
    Tool, ToolAnnotations, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::task_manager::{TaskContext, TaskExit, TaskManager, TaskOptions};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value};
use tokio::sync::watch;

use crate::exit::{EXIT_OK, EXIT_REFUSED};
use crate::protocol::{SUPPORTED_VERSIONS, TASK_TOOLS, TASKS_2025_METHODS, Tasks2025};
use crate::result::{TextStyle, tool_result};
use crate::sync::{LockExt, RwLockExt};

/// The server's instructions: where the tools work and how to use them well.
/// `roots` are the fixed roots; `None` when they are the client's.
fn instructions(roots: Option<&[String]>, style: TextStyle, stateless_hash: bool) -> String {
    let numbers = if style.line_numbers {
        "A read's text is the file with numbered lines (`     12<TAB>line`); do not copy the numbers into \
         old_string (they are stripped if you do). "
    } else {
        ""
    };
    let hash = if stateless_hash {
        "On protocol 2026-07-28 this HTTP server keeps nothing between requests: a write to an existing file \
         (write_file, edit_file, insert_lines, merge_snippet, notebook_edit) must pass the sha256 of your read as \
         expected_hash (or force: true to overwrite whatever is there); without it the write is refused. "
    } else {
        "Passing that sha256 as expected_hash to write_file, edit_file or insert_lines guards the write even \
         across connections. "
    };
    format!(
        "editkit's file tools work inside the workspace root(s) only: {} (list_roots names them; relative \
         paths resolve in the first). Read a file before editing it: reads return a sha256 and arm a staleness \
         guard, so a write to a file that changed since is refused. {hash}{numbers}edit_file needs old_string to match \
         exactly one place (small whitespace drift is tolerated and reported); on `ambiguous`, add context lines; \
         several changes to one file go in one call as edits. merge_snippet (tool set code) takes the changed parts \
         of one file with `... existing code ...` marker comments for the rest. apply_patch changes every file or none. A message may be up to 65 MiB. A refused call returns isError with a stable error kind \
         (not_found, ambiguous, stale, outside_workspace, invalid_args...) in structured content.",
        roots.map_or_else(|| "the roots this client names".to_owned(), |roots| roots.join(", "))
    )
}

/// How long a 2026-07-28 client may keep the tool list (`ttlMs`): it is fixed for the
/// server's life by its flags.
const TOOLS_TTL_MS: u64 = 3_600_000;

/// Whether `context`'s request is on the 2026-07-28 lifecycle (no handshake, no session): it
/// names 2026-07-28 or later, or carries the lifecycle's metadata whatever version it names.
fn stateless(context: &RequestContext<RoleServer>) -> bool {
    context.protocol_version().is_some_and(|version| !version.has_initialize())
        || context.meta.missing_required_keys(&ProtocolVersion::V_2026_07_28).is_empty()
}

/// An `apply_patch` over either bound (files, hunks) runs as a task at once.
const PATCH_TASK_BOUND: (usize, usize) = (32, 256);

/// Most tasks running at once; past it a call runs synchronously.
pub(crate) const MAX_RUNNING_TASKS: usize = 16;

/// How long a task may run (past it, it is marked failed) and is then kept for `tasks/get`.
const TASK_TTL: Duration = Duration::from_secs(1800);

/// Most tasks kept (running or ended, each with its result): a task is kept at most two
/// [`TASK_TTL`]s, so at most this many are started in that window; past it a call runs
/// synchronously.
const MAX_KEPT_TASKS: usize = 64;

/// How often a task's status message says how far it got, and how often a client should poll.
const TASK_STATUS_EVERY: Duration = Duration::from_millis(250);

/// A search with a progressToken reports progress after every this many files.
const PROGRESS_EVERY: u64 = 1000;

/// How long a tool call waits for the client's first answer to `roots/list`.
const ROOTS_WAIT: Duration = Duration::from_secs(10);

/// What `editkit mcp` serves, besides the toolkit.
#[derive(Debug, Clone)]
pub(crate) struct McpOptions {
    /// The tools listed and callable.
    pub(crate) tools: editkit::tools::ToolSelection,
    /// Publish each tool's output schema (compact: without descriptions).
    pub(crate) output_schemas: bool,
    /// How result text is written.
    pub(crate) style: TextStyle,
    /// Take the workspace roots from the client (`roots/list`), falling back to these.
    pub(crate) client_roots: Option<Vec<PathBuf>>,
    /// Refuse writes.
    pub(crate) read_only: bool,
    /// A task-eligible call still running after this long becomes a task (zero: at once).
    pub(crate) task_after: Duration,
}

/// The MCP server: the toolkit and the tools it exposes (one per session over HTTP).
#[derive(Clone)]
pub(crate) struct Server {
    toolkit: Arc<RwLock<Arc<Toolkit>>>,
    tools: Arc<Vec<Tool>>,
    style: TextStyle,
    /// The options a toolkit on the client's roots opens with, when the roots are the client's.
    client_roots: Option<Arc<ToolkitOptions>>,
    /// Whether the roots are settled (at once with fixed roots; after the client's answer, or
    /// its lack of roots, otherwise).
    roots_ready: Arc<watch::Sender<bool>>,
    /// Held by the roots refresh running now.
    refreshing: Arc<tokio::sync::Mutex<()>>,
    /// Set while the client's roots cannot be used.
    roots_problem: Arc<RwLock<Option<String>>>,
    /// Refuse a 2026-07-28 write to an existing file without `expected_hash` or `force`: over
    /// HTTP each such request gets a toolkit of its own, whose staleness ledger is empty.
    stateless_hash: bool,
    /// The tasks of this process (shared by every session and request).
    tasks: TaskManager,
    /// When each task still possibly kept was started, and each call that may still become
    /// one, oldest first (shared likewise).
    task_starts: Arc<std::sync::Mutex<std::collections::VecDeque<TaskStart>>>,
    /// A task-eligible call still running after this long becomes a task.
    task_after: Duration,
    /// The texts of big results, behind resource links (shared likewise).
    links: crate::links::Links,
}

/// A task started (or reserved for a call that may become one), for the bounds on tasks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TaskStart {
    at: std::time::Instant,
    id: u64,
    /// Reserved by a call still running that has not become a task yet.
    pending: bool,
}

/// The room a call that may become a task holds ([`Server::reserve_task`]): kept when it
/// becomes one, given back when it is dropped otherwise.
struct TaskReservation<'a> {
    starts: &'a std::sync::Mutex<std::collections::VecDeque<TaskStart>>,
    id: u64,
    kept: bool,
}

impl TaskReservation<'_> {
    /// The call became a task: its start stays counted, and the task manager now counts it
    /// as running.
    fn keep(mut self) {
        let mut starts = self.starts.lock_unpoisoned();
        if let Some(start) = starts.iter_mut().find(|start| start.id == self.id) {
            start.pending = false;
        }
        self.kept = true;
    }
}

impl Drop for TaskReservation<'_> {
    fn drop(&mut self) {
        if !self.kept {
            let mut starts = self.starts.lock_unpoisoned();
            starts.retain(|start| start.id != self.id);
        }
    }
}

/// What every [`Server`] of one process shares besides its toolkit.
#[derive(Clone)]
pub(crate) struct Shared {
    pub(crate) tools: Arc<Vec<Tool>>,
    pub(crate) style: TextStyle,
    pub(crate) client_roots: bool,
    pub(crate) stateless_hash: bool,
    pub(crate) tasks: TaskManager,
    pub(crate) task_starts: Arc<std::sync::Mutex<std::collections::VecDeque<TaskStart>>>,
    pub(crate) task_after: Duration,
    pub(crate) links: crate::links::Links,
}

/// The tools `options` offer, as MCP tools.
pub(crate) fn tool_list(options: &McpOptions) -> Vec<Tool> {
    editkit::tools::selected_specs(&options.tools)
        .into_iter()
        .filter(|spec| !options.read_only || spec.in_read_only_set)
        .map(|spec| tool(spec, options.output_schemas))
        .collect()
}

impl Server {
    /// A server on `toolkit`; with `client_roots`, it takes the client's roots once the
    /// session opens.
    pub(crate) fn new(toolkit: Toolkit, shared: Shared) -> Server {
        let Shared { tools, style, client_roots, stateless_hash, tasks, task_starts, task_after, links } = shared;
        let client_roots = client_roots.then(|| Arc::new(toolkit.options().clone()));
        let (roots_ready, _) = watch::channel(client_roots.is_none());
        Server {
            toolkit: Arc::new(RwLock::new(Arc::new(toolkit))),
            tools,
            style,
            client_roots,
            roots_ready: Arc::new(roots_ready),
            refreshing: Arc::new(tokio::sync::Mutex::new(())),
            roots_problem: Arc::new(RwLock::new(None)),
            stateless_hash,
            tasks,
            task_starts,
            task_after,
            links,
        }
    }
}

/// Serves MCP on stdio until the client closes the connection (`crate::http` serves
/// streamable HTTP).
///
/// # Errors
/// The async runtime cannot start.
pub(crate) fn serve(toolkit: Toolkit, options: &McpOptions) -> io::Result<u8> {
    let tools = tool_list(options);
    let roots: Vec<String> = toolkit.workspaces().iter().map(|w| w.root_path().display().to_string()).collect();
    eprintln!(
        "editkit {} mcp: serving {} tools ({}){} on {}{} (stdio)",
        env!("CARGO_PKG_VERSION"),
        tools.len(),
        options.tools.as_str(),
        if options.read_only { " read-only" } else { "" },
        roots.join(", "),
        if options.client_roots.is_some() { " until the client names its roots" } else { "" },
    );
    let shared = Shared {
        tools: Arc::new(tools),
        style: options.style,
        client_roots: options.client_roots.is_some(),
        stateless_hash: false,
        tasks: TaskManager::new(),
        task_starts: Arc::default(),
        task_after: options.task_after,
        links: crate::links::Links::under(state_home(&toolkit).as_deref()),
    };
    let server = Server::new(toolkit, shared);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let code = runtime.block_on(async move {
        let input = tokio::io::BufReader::with_capacity(1 << 20, tokio::io::stdin());
        let (transport, writer) = crate::framing::transport(input, tokio::io::stdout());
        let service = match server.serve(transport).await {
            Ok(service) => service,
            Err(err) => {
                eprintln!("editkit mcp: the client did not initialise the session: {err}");
                return EXIT_REFUSED;
            }
        };
        let code = match service.waiting().await {
            Ok(reason) => {
                eprintln!("editkit mcp: session ended ({reason:?})");
                EXIT_OK
            }
            Err(err) => {
                eprintln!("editkit mcp: the session stopped: {err}");
                EXIT_REFUSED
            }
        };
        // The transport is gone: the writer ends once every reply is written.
        let _ = writer.await;
        code
    });
    Ok(code)
}

/// Where the toolkit keeps its state (and the server the texts behind resource links).
pub(crate) fn state_home(toolkit: &Toolkit) -> Option<PathBuf> {
    toolkit.options().state_home.clone().or_else(editkit::vfs::default_state_home)
}

/// The local directory a root URI names: `file://` URIs only, percent-decoded.
fn root_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file:///abs` and `file://localhost/abs`; another host is not this machine.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let decoded = percent_encoding::percent_decode_str(path).decode_utf8().ok()?;
    if decoded.contains('\0') {
        return None;
    }
    Some(PathBuf::from(decoded.as_ref()))
}

impl Server {
    /// The roots the tools work in now.
    fn root_list(&self) -> Vec<String> {
        self.current().workspaces().iter().map(|w| w.root_path().display().to_string()).collect()
    }

    /// The toolkit calls run on now.
    fn current(&self) -> Arc<Toolkit> {
        Arc::clone(&self.toolkit.read_unpoisoned())
    }

    /// Asks the client for its roots and opens the toolkit on them (refreshes run one at a
    /// time, so the latest answer wins). Tool calls wait while a refresh runs. The same roots
    /// keep the toolkit (and its staleness guard and editor sessions). Roots the client names
    /// that cannot be used (none a local `file://` URI, or ones that do not open) refuse every
    /// call until the client names usable ones; a client without the roots capability keeps the
    /// fallback. Roots are deprecated from protocol 2026-07-28 on (rmcp marks them so) but are
    /// what the clients of the handshake revisions send.
    #[allow(deprecated)]
    async fn refresh_roots(&self, peer: &rmcp::Peer<RoleServer>) {
        let Some(options) = &self.client_roots else { return };
        let _one_at_a_time = self.refreshing.lock().await;
        let declared = peer.peer_info().is_some_and(|info| info.capabilities.roots.is_some());
        if declared {
            self.roots_ready.send_replace(false);
            let problem = match tokio::time::timeout(ROOTS_WAIT, peer.list_roots()).await {
                Ok(Ok(list)) => {
                    let paths: Vec<PathBuf> = list.roots.iter().filter_map(|root| root_path(&root.uri)).collect();
                    let refused: Vec<&str> = list
                        .roots
                        .iter()
                        .filter(|root| root_path(&root.uri).is_none())
                        .map(|r| r.uri.as_str())
                        .collect();
                    if !refused.is_empty() {
                        crate::log::line(
                            "roots",
                            format_args!(
                                "editkit mcp: roots that are not local file:// URIs are left out: {}",
                                refused.join(", ")
                            ),
                        );
                    }
                    let current: Vec<PathBuf> =
                        self.current().workspaces().iter().map(|w| w.root_path().to_owned()).collect();
                    if paths.is_empty() {
                        Some(format!(
                            "the client named no local root ({}); editkit works only in file:// roots",
                            refused.join(", ")
                        ))
                    } else if paths == current {
                        None
                    } else {
                        match Toolkit::open_roots(&paths, options.as_ref().clone()) {
                            Ok(toolkit) => {
                                let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
                                crate::log::line(
                                    "roots",
                                    format_args!("editkit mcp: the client's roots: {}", shown.join(", ")),
                                );
                                *self.toolkit.write_unpoisoned() = Arc::new(toolkit);
                                None
                            }
                            Err(err) => Some(format!("the client's roots cannot be opened: {err}")),
                        }
                    }
                }
                // A client that declares roots but cannot list them keeps the fallback.
                Ok(Err(err)) => {
                    crate::log::line(
                        "roots",
                        format_args!("editkit mcp: roots/list failed ({err}); the roots stay as they were"),
                    );
                    None
                }
                Err(_) => {
                    crate::log::line(
                        "roots",
                        format_args!(
                            "editkit mcp: the client did not answer roots/list in {ROOTS_WAIT:?}; the roots stay as they were"
                        ),
                    );
                    None
                }
            };
            if let Some(problem) = &problem {
                crate::log::line(
                    "roots",
                    format_args!("editkit mcp: {problem}; tool calls are refused until the client names usable roots"),
                );
            }
            *self.roots_problem.write_unpoisoned() = problem;
        }
        self.roots_ready.send_replace(true);
    }

    /// Reserves a task for a call that may become one: there is room while fewer than
    /// [`MAX_RUNNING_TASKS`] run or are reserved, and fewer than [`MAX_KEPT_TASKS`] were
    /// started or reserved in the last two [`TASK_TTL`]s (the longest a task is kept). The
    /// room is taken at once, so calls arriving together cannot pass the bounds; a call that
    /// ends before it becomes a task gives it back.
    fn reserve_task(&self) -> Option<TaskReservation<'_>> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let mut starts = self.task_starts.lock_unpoisoned();
        while starts.front().is_some_and(|start| !start.pending && start.at.elapsed() > TASK_TTL * 2) {
            starts.pop_front();
        }
        let pending = starts.iter().filter(|start| start.pending).count();
        if self.tasks.running_task_count() + pending >= MAX_RUNNING_TASKS || starts.len() >= MAX_KEPT_TASKS {
            return None;
        }
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        starts.push_back(TaskStart { at: std::time::Instant::now(), id, pending: true });
        Some(TaskReservation { starts: &self.task_starts, id, kept: false })
    }

    /// Why tool calls are refused now, when the client's roots cannot be used.
    fn roots_problem(&self) -> Option<String> {
        self.roots_problem.read_unpoisoned().clone()
    }
}

/// One toolkit spec as an MCP tool: schemas, title and annotations.
fn tool(spec: ToolSpec, output_schema: bool) -> Tool {
    let result = editkit::tools::compact_schema(spec.result_schema());
    let input = match spec.input_schema {
        Value::Object(mut map) => {
            // How Python passes arguments positionally is no concern of an MCP client.
            map.remove("x-positional");
            map.remove("x-required-unless");
            map
        }
        _ => object_schema(),
    };
    // The title is the tool's own (`Tool::title`), not repeated in the annotations.
    let annotations = ToolAnnotations::new()
        .read_only(spec.read_only)
        .destructive(spec.destructive)
        .idempotent(spec.idempotent)
        .open_world(false);
    let tool = Tool::new(spec.name, spec.description, Arc::new(input)).with_title(title(spec.name));
    let tool = match result {
        Value::Object(output) if output_schema => tool.with_raw_output_schema(Arc::new(output)),
        _ => tool,
    };
    tool.with_annotations(annotations)
}

fn object_schema() -> JsonObject {
    let mut map = Map::new();
    map.insert("type".into(), Value::String("object".into()));
    map
}

/// `read_file` → `Read file`.
fn title(name: &str) -> String {
    let spaced = name.replace('_', " ");
    let mut chars = spaced.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().enable_tasks().build())
            .with_server_info(Implementation::new("editkit", env!("CARGO_PKG_VERSION")))
            .with_instructions(instructions(
                self.client_roots.is_none().then(|| self.root_list()).as_deref(),
                self.style,
                self.stateless_hash,
            ))
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(SUPPORTED_VERSIONS)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.refresh_roots(&context.peer).await;
    }

    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {
        self.refresh_roots(&context.peer).await;
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // The list is one page: no cursor was ever handed out, so any cursor is made up.
        if let Some(cursor) = request.and_then(|params| params.cursor) {
            return Err(ErrorData::invalid_params(
                format!("unknown cursor `{cursor:.80}`: the tool list is one page; call tools/list without a cursor"),
                None,
            ));
        }
        let mut list = ListToolsResult::with_all_items(self.tools.as_ref().clone());
        if stateless(&context) {
            // The same list for every client of this server (its flags choose it).
            list.ttl_ms = Some(TOOLS_TTL_MS);
            list.cache_scope = Some(CacheScope::Private);
        }
        Ok(list)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let text = self.links.read(&request.uri).map_err(|message| ErrorData::resource_not_found(message, None))?;
        let contents = ResourceContents::text(text, request.uri).with_mime_type("text/plain");
        // A kept text never changes.
        let result = ReadResourceResult::new(vec![contents])
            .with_ttl_ms(crate::links::KEPT_FOR.as_millis() as u64)
            .with_cache_scope(CacheScope::Private);
        Ok(result.into())
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        Ok(GetTaskResult::new(self.detailed_task(&request.task_id)?))
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        match request.method.strip_prefix(TASKS_2025_METHODS) {
            Some(method) if context.extensions.get::<Tasks2025>().is_some() => {
                self.tasks_2025(method, request.params.unwrap_or(Value::Null), context).await.map(CustomResult)
            }
            _ => Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, request.method, None)),
        }
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.update_task(&request.task_id, request.input_responses).map_err(unknown_task)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        match self.tasks.cancel_task(&request.task_id) {
            Ok(()) => Ok(()),
            // A task another process runs: it heeds the request at its next status tick.
            Err(_) if self.links.ask_cancel(&request.task_id) => Ok(()),
            Err(error) => Err(unknown_task(error)),
        }
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|tool| tool.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.run_call(request, context, false).await
    }
}

impl Server {
    /// A task as `tasks/get` answers it: this process's own, or one another process of the
    /// machine runs, as it recorded it.
    fn detailed_task(&self, id: &str) -> Result<DetailedTask, ErrorData> {
        match self.tasks.get_task(id) {
            Ok(task) => Ok(task),
            Err(error) => self.links.load_task(id).ok_or_else(|| unknown_task(error)),
        }
    }

    /// A request of the 2025-11-25 tasks ([`Tasks2025`]), `method` without its prefix: a
    /// task-augmented `tools/call` answers the task (`{"task": ...}`) at once, `tasks/get` the
    /// task, `tasks/result` the call's result once the task ends, `tasks/cancel` the task.
    async fn tasks_2025(
        &self,
        method: &str,
        params: Value,
        context: RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let invalid = |message: String| ErrorData::invalid_params(message, None);
        if method == "tools/call" {
            let call: CallToolRequestParams =
                serde_json::from_value(params).map_err(|err| invalid(format!("tools/call params: {err}")))?;
            return match self.run_call(call, context, true).await? {
                CallToolResponse::Task(created) => Ok(serde_json::json!({"task": task_2025(&created.task)})),
                // Refused before it could start (the client's roots cannot be used).
                CallToolResponse::Complete(result) => {
                    let text =
                        result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.as_str()).collect::<String>();
                    Err(ErrorData::invalid_request(text, None))
                }
                _ => Err(ErrorData::internal_error("no task was started", None)),
            };
        }
        let id = params
            .get("taskId")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid(format!("{method} needs params.taskId, the task's id")))?
            .to_owned();
        match method {
            "tasks/get" => Ok(task_2025(&self.detailed_task(&id)?.task)),
            "tasks/cancel" => {
                match self.tasks.cancel_task(&id) {
                    Ok(()) => {}
                    Err(_) if self.links.ask_cancel(&id) => {}
                    Err(error) => return Err(unknown_task(error)),
                }
                Ok(task_2025(&self.detailed_task(&id)?.task))
            }
            "tasks/result" => loop {
                // A task ends within its TTL (past it the manager marks it failed).
                match self.detailed_task(&id)?.payload {
                    TaskPayload::Completed { mut result } => {
                        result.remove("resultType");
                        let meta = result.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
                        if let Some(meta) = meta.as_object_mut() {
                            meta.insert(
                                "io.modelcontextprotocol/related-task".into(),
                                serde_json::json!({"taskId": id}),
                            );
                        }
                        return Ok(Value::Object(result));
                    }
                    TaskPayload::Failed { error } => {
                        let message = error.get("message").and_then(Value::as_str).unwrap_or("the task failed");
                        return Err(ErrorData::internal_error(format!("task {id} failed: {message}"), None));
                    }
                    TaskPayload::Cancelled => {
                        return Err(ErrorData::invalid_request(format!("task {id} was cancelled"), None));
                    }
                    _ => {
                        tokio::select! {
                            () = context.ct.cancelled() => {
                                return Err(ErrorData::invalid_request("tasks/result was cancelled", None));
                            }
                            () = tokio::time::sleep(TASK_STATUS_EVERY) => {}
                        }
                    }
                }
            },
            _ => Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, method.to_owned(), None)),
        }
    }

    /// Runs a tool call; `task_2025`: the call is a 2025-11-25 task-augmented one, answered
    /// with a task at once (or refused when the tool never runs as a task, or no task may
    /// start now).
    async fn run_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
        task_2025: bool,
    ) -> Result<CallToolResponse, ErrorData> {
        let name: Cow<'static, str> = request.name;
        if !self.tools.iter().any(|tool| tool.name == name) {
            let available: Vec<&str> = self.tools.iter().map(|tool| tool.name.as_ref()).collect();
            return Err(ErrorData::invalid_params(
                format!("unknown tool `{name}`; available tools: {}", available.join(", ")),
                None,
            ));
        }
        let mut args = request.arguments.map_or_else(|| Value::Object(Map::new()), Value::Object);
        let stateless = stateless(&context);
        let toolkit = match self.toolkit_for(&name, &mut args, &context, stateless).await {
            Ok(toolkit) => toolkit,
            Err(refused) => return Ok(refused),
        };
        // A client that declares the tasks extension gets a long walk or a large patch as a
        // task: a patch over the bound at once, the others once they run past `task_after`. A
        // 2025-11-25 task-augmented call is a task at once.
        if task_2025 && !TASK_TOOLS.contains(&name.as_ref()) {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!(
                    "`{name}` does not run as a task (its execution.taskSupport is not set); call it without `task`. \
                     The tools that may run as a task: {}",
                    TASK_TOOLS.join(", ")
                ),
                None,
            ));
        }
        // The extension's tasks are a 2026-07-28 result shape: a handshake client that
        // declares the extension anyway (the Inspector 2.12 does) reads only a plain result.
        let wants_task = TASK_TOOLS.contains(&name.as_ref())
            && (task_2025 || (stateless && context.client_capabilities().is_some_and(|caps| caps.supports_tasks())));
        let reservation = if wants_task { self.reserve_task() } else { None };
        if task_2025 && reservation.is_none() {
            return Err(ErrorData::invalid_request(
                format!(
                    "no task may start now: at most {MAX_RUNNING_TASKS} run at once and {MAX_KEPT_TASKS} are kept \
                     ({} minutes each); call again without `task` to run the call at once, or later",
                    TASK_TTL.as_secs() * 2 / 60
                ),
                None,
            ));
        }
        let declared_2025 = context.extensions.get::<Tasks2025>().is_some();
        let task_eligible = reservation.is_some();
        let task_at_once = task_2025 || (task_eligible && name == "apply_patch" && patch_over_bound(&args));
        let owned = name.into_owned();
        let tool = owned.clone();
        let Watch { flag, watcher, control, visited, forwarder } = watch(&context, task_eligible);
        // Tools do blocking file I/O; keep the runtime free to read the next request.
        let mut work =
            tokio::task::spawn_blocking(move || editkit::tools::call_with_control(&toolkit, &owned, args, &control));
        let finished = if task_at_once || (task_eligible && self.task_after.is_zero()) {
            None
        } else if task_eligible {
            tokio::time::timeout(self.task_after, &mut work).await.ok()
        } else {
            Some((&mut work).await)
        };
        let Some(result) = finished else {
            // From here on the task's own cancellation applies, not the request's.
            watcher.abort();
            if let Some(forwarder) = forwarder {
                forwarder.abort();
            }
            let (style, links) = (self.style, self.links.clone());
            if let Some(reservation) = reservation {
                reservation.keep();
            }
            let options = TaskOptions::new()
                .with_ttl_ms(TASK_TTL.as_millis() as u64)
                .with_poll_interval_ms(TASK_STATUS_EVERY.as_millis() as u64)
                .with_status_message(format!("{tool} is running"));
            let task = self
                .tasks
                .spawn(options, move |context| Box::pin(finish_task(context, work, flag, visited, tool, style, links)));
            // Recorded before the task's future first runs (nothing here yields), so its end
            // replaces this start.
            self.links.save_task(&DetailedTask::new(task.clone(), TaskPayload::Working), TASK_TTL * 2);
            return Ok(CallToolResponse::Task(CreateTaskResult::new(task)));
        };
        let result = result.map_err(|err| ErrorData::internal_error(format!("the tool call stopped: {err}"), None));
        watcher.abort();
        if let Some(forwarder) = forwarder {
            let _ = forwarder.await;
        }
        let answer = tool_result(&tool, result?, self.style);
        // A 2026-07-28 client, or a 2025-11-25 one that declared tasks, gets a big text linked.
        let answer = if stateless || declared_2025 { self.links.link(&tool, answer) } else { answer };
        Ok(CallToolResponse::from(answer))
    }

    /// The toolkit a call runs on, once the client's roots are known; or the call's answer
    /// when it is refused first (the client's roots cannot be used, or a stateless write does
    /// not prove what it read).
    async fn toolkit_for(
        &self,
        name: &str,
        args: &mut Value,
        context: &RequestContext<RoleServer>,
        stateless: bool,
    ) -> Result<Arc<Toolkit>, CallToolResponse> {
        // With the client's roots, calls wait for its answer to roots/list. A request without
        // `initialize` (protocol 2026-07-28: no roots) has nothing to wait for.
        if context.peer.peer_info().is_none() || stateless {
            self.roots_ready.send_replace(true);
        }
        let mut ready = self.roots_ready.subscribe();
        let _ = tokio::time::timeout(ROOTS_WAIT, ready.wait_for(|ready| *ready)).await;
        if let Some(problem) = self.roots_problem() {
            let refusal = editkit::Error::UnusableRoots { problem };
            return Err(CallToolResponse::from(tool_result(
                name,
                serde_json::json!({"ok": false, "error": refusal.to_json()}),
                self.style,
            )));
        }
        let toolkit = self.current();
        // This request's toolkit is its own: its editor sessions live in the state folder,
        // as handles the next request (on any process of the machine) continues.
        if self.stateless_hash && stateless {
            toolkit.share_editor_sessions();
            // No request waits for a language server's start it did not ask for.
            toolkit.no_server_diagnostics_after_writes();
        }
        if self.stateless_hash
            && stateless
            && let Some(refusal) = unproven_write(&toolkit, name, args)
        {
            return Err(CallToolResponse::from(tool_result(name, refusal, self.style)));
        }
        Ok(toolkit)
    }
}

/// What watches a running call: its cancellation flag (set by `notifications/cancelled`, by
/// the task's cancellation later), the files it visited, and the progress it reports.
struct Watch {
    flag: Arc<AtomicBool>,
    watcher: tokio::task::JoinHandle<()>,
    control: editkit::search::Control,
    visited: Arc<AtomicU64>,
    forwarder: Option<tokio::task::JoinHandle<()>>,
}

/// Watches a call of `context`: a cancelled request stops the walk; with a progressToken,
/// progress goes out every [`PROGRESS_EVERY`] files, in order and before the reply; a call
/// that may become a task counts its files for its status message.
fn watch(context: &RequestContext<RoleServer>, task_eligible: bool) -> Watch {
    // notifications/cancelled for this request cancels `context.ct`: the search stops
    // opening files (rmcp then drops the reply).
    let flag = Arc::new(AtomicBool::new(false));
    let watched = context.ct.clone();
    let set = Arc::clone(&flag);
    let watcher = tokio::spawn(async move {
        watched.cancelled().await;
        set.store(true, Ordering::Relaxed);
    });
    let mut control = editkit::search::Control::with_flag(Arc::clone(&flag));
    // With a progressToken, progress goes out every PROGRESS_EVERY files, in order and
    // before the reply; a task says it in its status message.
    let visited = Arc::new(AtomicU64::new(0));
    let token = context.meta.get_progress_token();
    let (sender, receiver) = match token {
        Some(_) => {
            let (sender, receiver) = tokio::sync::mpsc::unbounded_channel::<u64>();
            (Some(sender), Some(receiver))
        }
        None => (None, None),
    };
    if sender.is_some() || task_eligible {
        let seen = Arc::clone(&visited);
        control = std::mem::take(&mut control).on_progress(PROGRESS_EVERY, move |files| {
            seen.fetch_max(files, Ordering::Relaxed);
            if let Some(sender) = &sender {
                let _ = sender.send(files);
            }
        });
    }
    let forwarder = token.zip(receiver).map(|(token, mut receiver)| {
        let peer = context.peer.clone();
        tokio::spawn(async move {
            // Workers may report out of order; progress only ever goes up.
            let mut last = 0;
            while let Some(files) = receiver.recv().await {
                if files <= last {
                    continue;
                }
                last = files;
                let note = ProgressNotificationParam::new(token.clone(), files as f64)
                    .with_message(format!("{files} files visited"));
                if peer.notify_progress(note).await.is_err() {
                    return;
                }
            }
        })
    });
    Watch { flag, watcher, control, visited, forwarder }
}

/// A task as the 2025-11-25 tasks write it (`ttl`, `pollInterval`).
fn task_2025(task: &Task) -> Value {
    let mut value = serde_json::json!({
        "taskId": task.task_id,
        "status": task.status,
        "createdAt": task.created_at,
        "lastUpdatedAt": task.last_updated_at,
        "ttl": task.ttl_ms,
    });
    if let Some(map) = value.as_object_mut() {
        if let Some(every) = task.poll_interval_ms {
            map.insert("pollInterval".into(), every.into());
        }
        if let Some(message) = &task.status_message {
            map.insert("statusMessage".into(), message.clone().into());
        }
    }
    value
}

/// A task error, saying how long tasks are kept when the task is unknown.
fn unknown_task(mut error: ErrorData) -> ErrorData {
    if error.message.starts_with("unknown task") {
        error.message = format!(
            "{}: a task is kept {} minutes after it ends, for every server process on this machine (in the \
             state home); start the call again",
            error.message,
            TASK_TTL.as_secs() / 60
        )
        .into();
    }
    error
}

/// Whether a patch names more files or hunks than [`PATCH_TASK_BOUND`] (counted from its
/// header lines, before anything is parsed).
fn patch_over_bound(args: &Value) -> bool {
    let Some(patch) = args.get("patch").and_then(Value::as_str) else { return false };
    let (mut files, mut hunks) = (0, 0);
    for line in patch.lines() {
        if ["*** Update File:", "*** Add File:", "*** Delete File:", "+++ "].iter().any(|head| line.starts_with(head)) {
            files += 1;
        } else if line.starts_with("@@") || line == "===" {
            hunks += 1;
        }
        if files > PATCH_TASK_BOUND.0 || hunks > PATCH_TASK_BOUND.1 {
            return true;
        }
    }
    false
}

/// Runs a tool call on as a task: its status message says how many files were visited, and
/// `tasks/cancel` stops a walk (the task ends cancelled); a patch runs to its end, as it writes
/// every file or none.
async fn finish_task(
    context: TaskContext,
    mut work: tokio::task::JoinHandle<Value>,
    flag: Arc<AtomicBool>,
    visited: Arc<AtomicU64>,
    tool: String,
    style: TextStyle,
    links: crate::links::Links,
) -> Result<CallToolResult, TaskExit> {
    let mut tick = tokio::time::interval(TASK_STATUS_EVERY);
    let id = context.task_id().to_owned();
    let ended = |payload: TaskPayload, message: String| {
        let now = rmcp::task_manager::current_timestamp();
        let mut task =
            links.load_task(&id).map_or_else(|| Task::new(id.clone(), payload.status(), &now, &now), |t| t.task);
        task.last_updated_at = now;
        task.status_message = Some(message);
        links.save_task(&DetailedTask::new(task, payload), TASK_TTL * 2);
    };
    loop {
        tokio::select! {
            done = &mut work => {
                let Ok(result) = done else {
                    let error = ErrorData::internal_error("the tool call stopped", None);
                    let recorded = serde_json::to_value(&error).ok().and_then(|v| v.as_object().cloned()).unwrap_or_default();
                    ended(TaskPayload::Failed { error: recorded }, format!("{tool} stopped"));
                    return Err(TaskExit::Error(error));
                };
                if flag.load(Ordering::Relaxed) && tool != "apply_patch" {
                    ended(TaskPayload::Cancelled, format!("{tool} cancelled"));
                    return Err(TaskExit::Cancelled);
                }
                context.set_status_message(format!("{tool} finished"));
                // Only clients that read links run tasks (the 2026-07-28 extension, or a
                // 2025-11-25 client that declared tasks): a big text is linked.
                let answer = links.link(&tool, tool_result(&tool, result, style));
                let recorded = serde_json::to_value(&answer).ok().and_then(|v| v.as_object().cloned()).unwrap_or_default();
                ended(TaskPayload::Completed { result: recorded }, format!("{tool} finished"));
                return Ok(answer);
            }
            () = context.cancelled(), if !flag.load(Ordering::Relaxed) => flag.store(true, Ordering::Relaxed),
            _ = tick.tick() => {
                if !flag.load(Ordering::Relaxed) && links.cancel_asked(&id) {
                    flag.store(true, Ordering::Relaxed);
                }
                let files = visited.load(Ordering::Relaxed);
                if files > 0 {
                    context.set_status_message(format!("{tool}: {files} files visited"));
                }
            }
        }
    }
}

/// The tools that write over a file's content and take the read's sha256 as `expected_hash`.
const HASH_GUARDED: &[&str] = &["write_file", "edit_file", "insert_lines", "merge_snippet", "notebook_edit"];

/// The tools that write over a file's content with no `expected_hash` to prove what was read.
const UNGUARDED_WRITERS: &[&str] =
    &["write_python_file", "write_markdown_file", "edit_python_file", "replace_function"];

/// Every name the writing tools accept for their file (`path` and its `x-aliases`).
const PATH_NAMES: &[&str] = &["path", "file_path", "filepath", "notebook_path"];

/// The refusal of a stateless write to an existing file that does not prove what its caller
/// read (`expected_hash`) or say it overwrites whatever is there (`force`); `None` lets the
/// call run. A `write_file` to a file that is not there yet runs with `create_new`, so a file
/// created meanwhile is not overwritten unseen.
fn unproven_write(toolkit: &Toolkit, tool: &str, args: &mut Value) -> Option<Value> {
    let guarded = HASH_GUARDED.contains(&tool);
    if !guarded && !UNGUARDED_WRITERS.contains(&tool) {
        return None;
    }
    let flag = |name: &str| args.get(name).and_then(Value::as_bool) == Some(true);
    if args.get("expected_hash").is_some_and(|hash| !hash.is_null()) || flag("force") || flag("dry_run") {
        return None;
    }
    // The path under any name the tools accept for it; a bad or missing one is the tool's to
    // refuse.
    let path = PATH_NAMES.iter().find_map(|name| args.get(*name).and_then(Value::as_str))?.to_owned();
    let exists = toolkit.exists(editkit::PathRequest::new(path.clone())).ok()?.exists;
    if !exists {
        if tool == "write_file"
            && let Some(map) = args.as_object_mut()
        {
            map.entry("create_new").or_insert(Value::Bool(true));
        }
        return None;
    }
    let message = if guarded {
        format!(
            "`{path}` exists and this server keeps no state between requests (MCP 2026-07-28 over HTTP), so a \
             write must prove what it read: pass expected_hash, the sha256 of your read_file of `{path}` (read \
             it first if you have not), or force: true to overwrite whatever is there"
        )
    } else {
        format!(
            "`{path}` exists and this server keeps no state between requests (MCP 2026-07-28 over HTTP), and \
             {tool} cannot prove what was read: use edit_file or write_file with expected_hash, the sha256 of \
             your read_file of `{path}`"
        )
    };
    let field = if guarded { "expected_hash" } else { "path" };
    let refusal = editkit::Error::InvalidArgs { field: Some(field.to_owned()), message };
    Some(serde_json::json!({"ok": false, "error": refusal.to_json()}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stateless_guard_knows_every_name_of_a_writers_path() {
        for spec in editkit::tools::specs() {
            if !HASH_GUARDED.contains(&spec.name) && !UNGUARDED_WRITERS.contains(&spec.name) {
                continue;
            }
            let path = &spec.input_schema["properties"]["path"];
            assert!(path.is_object(), "{} takes no `path`", spec.name);
            for alias in path["x-aliases"].as_array().into_iter().flatten() {
                let alias = alias.as_str().unwrap_or_default();
                assert!(PATH_NAMES.contains(&alias), "{}'s `{alias}` is not in PATH_NAMES", spec.name);
            }
        }
    }

    #[test]
    fn task_room_is_taken_when_a_call_may_become_a_task_and_given_back_if_it_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let toolkit = Toolkit::open(dir.path(), editkit::ToolkitOptions::default()).unwrap();
        let shared = Shared {
            tools: Arc::new(Vec::new()),
            style: TextStyle::default(),
            client_roots: false,
            stateless_hash: true,
            tasks: TaskManager::new(),
            task_starts: Arc::default(),
            task_after: Duration::from_secs(2),
            links: crate::links::Links::under(None),
        };
        let server = Server::new(toolkit, shared);
        // Calls arriving together: no more than MAX_RUNNING_TASKS may wait to become tasks.
        let waiting: Vec<_> = (0..MAX_RUNNING_TASKS).map(|_| server.reserve_task().unwrap()).collect();
        assert!(server.reserve_task().is_none(), "a reservation past the running bound");
        // Calls that ended before becoming tasks give their room back.
        drop(waiting);
        assert!(server.task_starts.lock().unwrap().is_empty());
        // Calls that became tasks stay counted against the tasks kept.
        for _ in 0..MAX_KEPT_TASKS {
            server.reserve_task().unwrap().keep();
        }
        assert!(server.reserve_task().is_none(), "a reservation past the kept bound");
    }

    #[test]
    fn root_uris_are_local_paths() {
        assert_eq!(root_path("file:///home/a%20b/src"), Some(PathBuf::from("/home/a b/src")));
        assert_eq!(root_path("file://localhost/srv"), Some(PathBuf::from("/srv")));
        assert_eq!(root_path("file://other-host/srv"), None);
        assert_eq!(root_path("https://example.com/x"), None);
        assert_eq!(root_path("file:///a%00b"), None);
    }

    #[test]
    fn titles_read_like_words() {
        assert_eq!(title("read_file"), "Read file");
        assert_eq!(title("glob"), "Glob");
    }
}
