//! `editkit mcp --http ADDR`: the MCP server over streamable HTTP (rmcp's
//! `StreamableHttpService` on hyper), so several agents share one server and its locks.
//!
//! - Bound to a loopback address unless `--allow-remote` (rmcp then also stops checking the
//!   `Host` header, which it otherwise holds to loopback names against DNS rebinding).
//! - Every request needs `Authorization: Bearer TOKEN` (the scheme word in any case): the token
//!   is `--token`, else `EDITKIT_MCP_TOKEN`, else 32 random bytes printed (hex) on stderr at
//!   start. A missing or wrong token gets 401 before anything runs; the comparison does not
//!   stop at the first differing byte.
//! - A request with an `Origin` header (a browser's) is refused (403) unless the origin was
//!   allowed with `--allow-origin`.
//! - Each session gets its own toolkit on the same roots: its own staleness ledger and editor
//!   sessions, while file locks (flock on the state folder's lock files), patch journals and
//!   undo history are shared, so two agents editing one file serialise and each is refused a
//!   write to a file the other changed since it read it.
//! - The endpoint is `/mcp`; a message may be up to the stdio limit (65 MiB).
//!
//! What a peer can hold is bounded ([`HttpLimits`]): the soft descriptor limit is raised to
//! the hard one at start; at most `--max-connections` connections are served, of which at most
//! `--max-unauthenticated-connections` have not yet sent a request with the token (a new
//! connection past either limit closes the oldest of those; when every connection has sent the
//! token, new ones wait in the kernel's backlog); a
//! request head must arrive within `--header-timeout` (which also closes idle keep-alive
//! connections) and its body within `--body-timeout` (408); at most `--max-http-sessions`
//! sessions are open (an `initialize` past it gets 503 naming the flag) and one idle for
//! `--session-idle-timeout` is closed. Accept errors back off, and every log line goes through
//! [`crate::log`], so a stderr nobody reads never stops the server.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::io::{self, Read as _};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use editkit::Toolkit;
use http_body_util::{BodyExt as _, Full, LengthLimitError, Limited};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::{Semaphore, oneshot};

use crate::exit::{EXIT_REFUSED, EXIT_USAGE};
use crate::log;
use crate::mcp::{McpOptions, Server, Shared as ServerShared, tool_list};
use crate::sync::LockExt;

/// Where and for whom the HTTP transport serves.
#[derive(Debug, Clone)]
pub(crate) struct HttpOptions {
    /// The address to bind (port 0 picks a free one; the bound address is printed).
    pub(crate) addr: SocketAddr,
    /// The bearer token; `None` generates one.
    pub(crate) token: Option<String>,
    /// Browser origins allowed to call (`http://localhost:3000`).
    pub(crate) allowed_origins: Vec<String>,
    /// Allow a non-loopback address.
    pub(crate) allow_remote: bool,
    /// What peers may hold.
    pub(crate) limits: HttpLimits,
}

/// The bounds on what HTTP peers hold: connections, read times and sessions.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct HttpLimits {
    /// With --http: most connections served at once; past it a new one closes the oldest that
    /// has not sent the token, or waits until one closes. Lowered at start when the descriptor limit (raised to the hard
    /// one, `ulimit -Hn`) cannot hold them and the sessions.
    #[arg(long, value_name = "N", requires = "http", default_value_t = 256, value_parser = clap::value_parser!(u32).range(2..))]
    pub(crate) max_connections: u32,
    /// With --http: most connections that have not yet sent a request with the token (fewer
    /// than --max-connections); a new one closes the oldest of them.
    #[arg(long, value_name = "N", requires = "http", default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_unauthenticated_connections: u32,
    /// With --http: seconds a request head may take to arrive (also how long an idle
    /// keep-alive connection stays open); past it the connection is closed.
    #[arg(long, value_name = "SECS", requires = "http", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) header_timeout: u64,
    /// With --http: seconds a request body may take to arrive; past it the answer is 408.
    #[arg(long, value_name = "SECS", requires = "http", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) body_timeout: u64,
    /// With --http: most MCP sessions open at once; an `initialize` past it is refused with
    /// 503 (end a session with DELETE, or wait for an idle one to expire).
    #[arg(long, value_name = "N", requires = "http", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_http_sessions: u32,
    /// With --http: seconds a session may stay idle (no request, notification or reply)
    /// before it is closed; its client must then initialize again.
    #[arg(long, value_name = "SECS", requires = "http", default_value_t = 1800, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) session_idle_timeout: u64,
}

/// The endpoint path.
const ENDPOINT: &str = "/mcp";

/// Descriptors kept for the process itself (the state folder, checkers' pipes, the log).
const RESERVED_DESCRIPTORS: u64 = 64;

/// Descriptors one session may hold per root (its toolkit holds three: the root, its state
/// folder and the lock folder; one more for a file a call has open).
const DESCRIPTORS_PER_ROOT: u64 = 4;

/// The first and the longest pause after a failed accept.
const ACCEPT_BACKOFF: (Duration, Duration) = (Duration::from_millis(5), Duration::from_secs(1));

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

type Service = StreamableHttpService<Server, LocalSessionManager>;

/// What every connection's handler shares.
struct Shared {
    service: Service,
    sessions: Arc<LocalSessionManager>,
    token: Box<str>,
    limits: HttpLimits,
    /// Connections that have not yet sent a request with the token, oldest first.
    unauthenticated: Mutex<Unauthenticated>,
    /// Held while an `initialize` is checked against the session cap and handed to rmcp, so
    /// two at once cannot both take the last place.
    opening: tokio::sync::Mutex<()>,
}

/// The connections not yet authenticated, each with the sender that closes it.
#[derive(Default)]
struct Unauthenticated {
    next_id: u64,
    waiting: VecDeque<(u64, oneshot::Sender<()>)>,
}

/// Serves streamable HTTP until the process is stopped.
///
/// # Errors
/// The runtime cannot start, the address cannot be bound, or no random token can be made.
pub(crate) fn serve(toolkit: Toolkit, options: &McpOptions, http: &HttpOptions) -> io::Result<u8> {
    if !http.addr.ip().is_loopback() && !http.allow_remote {
        eprintln!(
            "editkit mcp: {} is not a loopback address; bind 127.0.0.1 or [::1], or pass --allow-remote \
             (every agent that can reach it and holds the token can edit the workspace)",
            http.addr
        );
        return Ok(EXIT_USAGE);
    }
    let token = match &http.token {
        Some(token) if token.len() < 16 => {
            eprintln!("editkit mcp: the token must be at least 16 characters");
            return Ok(EXIT_USAGE);
        }
        Some(token) => token.clone(),
        None => random_token()?,
    };
    let mut limits = http.limits.clone();
    if limits.max_unauthenticated_connections >= limits.max_connections {
        eprintln!(
            "editkit mcp: --max-unauthenticated-connections ({}) must be below --max-connections ({}), so \
             clients with the token always find a place",
            limits.max_unauthenticated_connections, limits.max_connections
        );
        return Ok(EXIT_USAGE);
    }
    fit_descriptor_limit(&mut limits, toolkit.workspaces().len());
    let tools = Arc::new(tool_list(options));
    let count = tools.len();
    // One task store for every session and stateless request of this process.
    let tasks = rmcp::task_manager::TaskManager::new();
    let task_starts = Arc::default();
    let links = crate::links::Links::under(crate::mcp::state_home(&toolkit).as_deref());
    let task_after = options.task_after;
    let roots: Vec<PathBuf> = toolkit.workspaces().iter().map(|w| w.root_path().to_owned()).collect();
    let mut base = toolkit.options().clone();
    // One pool of language servers for the process: every session and stateless request
    // shares its servers (one per language and root), and `max_servers` counts them all.
    base.language_servers.shared = Some(editkit::SharedServers::new(&base.language_servers));
    let (style, client_roots) = (options.style, options.client_roots.is_some());
    // The toolkit opened at start checked the roots; each session opens its own.
    drop(toolkit);
    let shown: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
    let factory = move || {
        let toolkit = Toolkit::open_roots(&roots, base.clone()).map_err(|err| io::Error::other(err.to_string()))?;
        let shared = ServerShared {
            tools: Arc::clone(&tools),
            style,
            client_roots,
            stateless_hash: true,
            tasks: tasks.clone(),
            task_starts: Arc::clone(&task_starts),
            task_after,
            links: links.clone(),
        };
        Ok(Server::new(toolkit, shared))
    };
    let mut config = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(crate::framing::MAX_MESSAGE_BYTES)
        .with_allowed_origins(http.allowed_origins.clone())
        .enforce_origin_validation();
    if http.allow_remote {
        config = config.disable_allowed_hosts();
    }
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(Duration::from_secs(limits.session_idle_timeout));
    let sessions = Arc::new(sessions);
    let service = StreamableHttpService::new(factory, Arc::clone(&sessions), config);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async move {
        let listener = match tokio::net::TcpListener::bind(http.addr).await {
            Ok(listener) => listener,
            Err(err) => {
                eprintln!("editkit mcp: cannot listen on {}: {err}", http.addr);
                return Ok(EXIT_REFUSED);
            }
        };
        let local = listener.local_addr()?;
        eprintln!(
            "editkit {} mcp: serving {count} tools ({}) on {} at http://{local}{ENDPOINT} (streamable HTTP)",
            env!("CARGO_PKG_VERSION"),
            options.tools.as_str(),
            shown.join(", "),
        );
        if http.token.is_none() {
            eprintln!("editkit mcp: token {token} (send `Authorization: Bearer {token}`)");
        }
        // From here on no log line may wait for stderr.
        log::start();
        let connections = Arc::new(Semaphore::new(limits.max_connections as usize));
        let shared = Arc::new(Shared {
            service,
            sessions,
            token: token.into(),
            limits,
            unauthenticated: Mutex::new(Unauthenticated::default()),
            opening: tokio::sync::Mutex::new(()),
        });
        let mut backoff = ACCEPT_BACKOFF.0;
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                Err(err) => {
                    // Out of descriptors or memory: retrying at once would only spin.
                    log::line("accept", format_args!("editkit mcp: accept failed: {err}"));
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(ACCEPT_BACKOFF.1);
                    continue;
                }
            };
            backoff = ACCEPT_BACKOFF.0;
            // Replies go out in several writes (SSE head, event, end): without this, Nagle's
            // algorithm holds the last until the client's delayed ACK, about 40 ms a call on a
            // kept-alive connection.
            if let Err(err) = stream.set_nodelay(true) {
                log::line("connection", format_args!("editkit mcp: cannot set TCP_NODELAY: {err}"));
            }
            // A place for it: when every place is taken, the oldest connection without the
            // token makes room; when all hold it, this one waits for a place (and the next ones
            // in the kernel's backlog).
            let place = match Arc::clone(&connections).try_acquire_owned() {
                Ok(place) => place,
                Err(_) => {
                    shared.close_oldest_unauthenticated();
                    Arc::clone(&connections).acquire_owned().await.expect("the semaphore is never closed")
                }
            };
            let (id, closed) = shared.arrived();
            let shared = Arc::clone(&shared);
            tokio::spawn(async move {
                let _place = place;
                let _leaves = Leaves { shared: Arc::clone(&shared), id };
                serve_connection(shared, id, stream, closed).await;
            });
        }
    })
}

/// Serves one connection until it ends, or until a newer unauthenticated connection closes it.
async fn serve_connection(shared: Arc<Shared>, id: u64, stream: tokio::net::TcpStream, closed: oneshot::Receiver<()>) {
    let authenticated = Arc::new(AtomicBool::new(false));
    let handler_shared = Arc::clone(&shared);
    let handler = hyper::service::service_fn(move |request: http::Request<Incoming>| {
        let shared = Arc::clone(&handler_shared);
        let authenticated = Arc::clone(&authenticated);
        async move { answer(&shared, id, &authenticated, request).await }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(Duration::from_secs(shared.limits.header_timeout));
    let connection = builder.serve_connection(TokioIo::new(stream), handler);
    let mut connection = std::pin::pin!(connection);
    let result = tokio::select! {
        result = connection.as_mut() => result,
        signal = closed => {
            if signal.is_ok() {
                // Closed for a newer unauthenticated connection: dropping it closes the socket.
                return;
            }
            // Authenticated: nothing can close it from outside any more.
            connection.await
        }
    };
    if let Err(err) = result {
        log::line("connection", format_args!("editkit mcp: connection ended: {err}"));
    }
}

/// Removes a connection from the unauthenticated ones when it ends.
struct Leaves {
    shared: Arc<Shared>,
    id: u64,
}

impl Drop for Leaves {
    fn drop(&mut self) {
        self.shared.authenticated(self.id);
    }
}

impl Shared {
    /// Registers a new unauthenticated connection, closing the oldest one past the limit; its
    /// id and the receiver that says it was closed (`Ok`) or authenticated (`Err`).
    fn arrived(&self) -> (u64, oneshot::Receiver<()>) {
        let mut waiting = self.unauthenticated.lock_unpoisoned();
        let (sender, receiver) = oneshot::channel();
        let id = waiting.next_id;
        waiting.next_id += 1;
        while waiting.waiting.len() >= self.limits.max_unauthenticated_connections as usize {
            let Some((_, oldest)) = waiting.waiting.pop_front() else { break };
            let _ = oldest.send(());
        }
        waiting.waiting.push_back((id, sender));
        (id, receiver)
    }

    /// Closes the oldest connection that has not sent the token, if there is one.
    fn close_oldest_unauthenticated(&self) {
        let mut waiting = self.unauthenticated.lock_unpoisoned();
        if let Some((_, oldest)) = waiting.waiting.pop_front() {
            let _ = oldest.send(());
        }
    }

    /// Takes connection `id` off the unauthenticated ones (dropping its sender).
    fn authenticated(&self, id: u64) {
        let mut waiting = self.unauthenticated.lock_unpoisoned();
        waiting.waiting.retain(|(waiting_id, _)| *waiting_id != id);
    }
}

/// Answers one request: the path, the token, the body's time and size, the session cap, then
/// rmcp.
async fn answer(
    shared: &Shared,
    id: u64,
    authenticated: &AtomicBool,
    request: http::Request<Incoming>,
) -> Result<http::Response<Body>, Infallible> {
    if request.uri().path() != ENDPOINT {
        return Ok(plain(http::StatusCode::NOT_FOUND, "the MCP endpoint is /mcp"));
    }
    if !authorized(request.headers(), &shared.token) {
        let mut answer = plain(
            http::StatusCode::UNAUTHORIZED,
            "send the token editkit printed at start as `Authorization: Bearer TOKEN`",
        );
        answer.headers_mut().insert(http::header::WWW_AUTHENTICATE, http::HeaderValue::from_static("Bearer"));
        return Ok(answer);
    }
    if !authenticated.swap(true, Ordering::Relaxed) {
        shared.authenticated(id);
    }
    let (parts, body) = request.into_parts();
    let limit = Duration::from_secs(shared.limits.body_timeout);
    let body = match tokio::time::timeout(limit, Limited::new(body, crate::framing::MAX_MESSAGE_BYTES).collect()).await
    {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(err)) if err.downcast_ref::<LengthLimitError>().is_some() => {
            return Ok(closing(plain(
                http::StatusCode::PAYLOAD_TOO_LARGE,
                format!("a message may be up to {} bytes", crate::framing::MAX_MESSAGE_BYTES),
            )));
        }
        Ok(Err(err)) => {
            return Ok(closing(plain(
                http::StatusCode::BAD_REQUEST,
                format!("the request body could not be read: {err}"),
            )));
        }
        Err(_) => {
            return Ok(closing(plain(
                http::StatusCode::REQUEST_TIMEOUT,
                format!("the request body did not arrive within {} s (--body-timeout)", shared.limits.body_timeout),
            )));
        }
    };
    let opens =
        parts.method == http::Method::POST && !parts.headers.contains_key("mcp-session-id") && is_initialize(&body);
    // rmcp answers a session's DELETE with 202; the session is gone by then, and clients (the
    // Python SDK) expect 200 or 204.
    let delete = parts.method == http::Method::DELETE;
    let request = http::Request::from_parts(parts, Full::new(body));
    let mut service = shared.service.clone();
    let mut answer = if opens {
        let _one_at_a_time = shared.opening.lock().await;
        let open = shared.sessions.sessions.read().await.len();
        let cap = shared.limits.max_http_sessions as usize;
        if open >= cap {
            log::line("sessions", format_args!("editkit mcp: an initialize was refused: {open} sessions are open"));
            let mut answer = plain(
                http::StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "{open} MCP sessions are open, the most this server keeps (--max-http-sessions {cap}); end one \
                     (DELETE /mcp with its Mcp-Session-Id) or wait until one has been idle for {} s \
                     (--session-idle-timeout)",
                    shared.limits.session_idle_timeout
                ),
            );
            answer.headers_mut().insert(http::header::RETRY_AFTER, http::HeaderValue::from(10u32));
            return Ok(answer);
        }
        tower_call(&mut service, request).await?
    } else {
        tower_call(&mut service, request).await?
    };
    if delete && answer.status() == http::StatusCode::ACCEPTED {
        *answer.status_mut() = http::StatusCode::NO_CONTENT;
    }
    Ok(answer)
}

/// Whether a request body is a JSON-RPC `initialize` request (which opens a session).
fn is_initialize(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe<'a> {
        #[serde(borrow)]
        method: Option<std::borrow::Cow<'a, str>>,
    }
    serde_json::from_slice::<Probe<'_>>(body).is_ok_and(|probe| probe.method.as_deref() == Some("initialize"))
}

/// Raises the soft descriptor limit to the hard one, and lowers `limits.max_connections` when
/// even that cannot hold the connections (each with a stateless request's toolkit), the
/// sessions and the running tasks (on `roots` roots each).
fn fit_descriptor_limit(limits: &mut HttpLimits, roots: usize) {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let before = getrlimit(Resource::Nofile);
    if before.current != before.maximum {
        let raised = Rlimit { current: before.maximum, maximum: before.maximum };
        if let Err(err) = setrlimit(Resource::Nofile, raised) {
            eprintln!(
                "editkit mcp: cannot raise the descriptor limit from {} to {} ({err})",
                shown_limit(before.current),
                shown_limit(before.maximum)
            );
        }
    }
    let Some(limit) = getrlimit(Resource::Nofile).current else { return };
    let per_session = DESCRIPTORS_PER_ROOT.saturating_mul(u64::try_from(roots).unwrap_or(u64::MAX));
    // Sessions and running tasks each hold a toolkit; so does a connection's stateless
    // (2026-07-28) request while it runs.
    let toolkits = u64::from(limits.max_http_sessions) + crate::mcp::MAX_RUNNING_TASKS as u64;
    let for_sessions = toolkits.saturating_mul(per_session);
    let room = limit.saturating_sub(RESERVED_DESCRIPTORS.saturating_add(for_sessions)) / (1 + per_session);
    if room < u64::from(limits.max_connections) {
        let fitted = u32::try_from(room).unwrap_or(u32::MAX).max(2);
        eprintln!(
            "editkit mcp: the descriptor limit is {limit} (ulimit -Hn); serving at most {fitted} connections \
             besides {} sessions",
            limits.max_http_sessions
        );
        limits.max_connections = fitted;
        limits.max_unauthenticated_connections = limits.max_unauthenticated_connections.min(fitted - 1);
    }
}

/// A descriptor limit as `ulimit` shows it.
fn shown_limit(limit: Option<u64>) -> String {
    limit.map_or_else(|| "unlimited".to_owned(), |limit| limit.to_string())
}

/// Hands a request to rmcp's service (whose error type is `Infallible`).
async fn tower_call(
    service: &mut Service,
    request: http::Request<Full<Bytes>>,
) -> Result<http::Response<Body>, Infallible> {
    use tower_service::Service as _;
    service.call(request).await
}

/// A short plain-text answer.
fn plain(status: http::StatusCode, text: impl Into<Bytes>) -> http::Response<Body> {
    let mut answer = http::Response::new(Full::new(text.into()).boxed());
    *answer.status_mut() = status;
    answer
        .headers_mut()
        .insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("text/plain; charset=utf-8"));
    answer
}

/// `answer` with `Connection: close` (its request's body was not read to the end).
fn closing(mut answer: http::Response<Body>) -> http::Response<Body> {
    answer.headers_mut().insert(http::header::CONNECTION, http::HeaderValue::from_static("close"));
    answer
}

/// Whether the request carries `Authorization: Bearer <token>` (the scheme in any case), compared in time that does not
/// depend on where the first difference is.
fn authorized(headers: &http::HeaderMap, token: &str) -> bool {
    let Some(given) = headers.get(http::header::AUTHORIZATION).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    // The scheme word is case-insensitive (RFC 9110, section 11.1).
    let Some((scheme, given)) = given.split_once(' ') else {
        return false;
    };
    if !scheme.eq_ignore_ascii_case("bearer") {
        return false;
    }
    let given = given.trim();
    given.len() == token.len() && given.bytes().zip(token.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

/// 32 random bytes from the system, in hex.
fn random_token() -> io::Result<String> {
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_bearer_token_is_authorized() {
        let token = "0123456789abcdef0123";
        let mut headers = http::HeaderMap::new();
        assert!(!authorized(&headers, token));
        for (value, ok) in [
            ("Bearer 0123456789abcdef0123", true),
            ("bearer 0123456789abcdef0123", true),
            ("BEARER  0123456789abcdef0123", true),
            ("Bearers 0123456789abcdef0123", false),
            ("Bearer 0123456789abcdef012", false),
            ("Bearer 0123456789abcdef0124", false),
            ("Basic 0123456789abcdef0123", false),
            ("0123456789abcdef0123", false),
        ] {
            headers.insert(http::header::AUTHORIZATION, http::HeaderValue::from_static(value));
            assert_eq!(authorized(&headers, token), ok, "{value}");
        }
    }

    #[test]
    fn generated_tokens_are_64_hex_digits_and_differ() {
        let (a, b) = (random_token().unwrap(), random_token().unwrap());
        assert_eq!(a.len(), 64);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
