//! `editkit mcp --http ADDR`: the MCP server over streamable HTTP (rmcp's
//! `StreamableHttpService` on hyper), so several agents share one server and its locks.
//!
//! - Bound to a loopback address unless `--allow-remote` (rmcp then also stops checking the
//!   `Host` header, which it otherwise holds to loopback names against DNS rebinding).
//! - Every request needs `Authorization: Bearer TOKEN`: the token is `--token`, else
//!   `EDITKIT_MCP_TOKEN`, else 32 random bytes printed (hex) on stderr at start. A missing or
//!   wrong token gets 401 before anything runs; the comparison does not stop at the first
//!   differing byte.
//! - A request with an `Origin` header (a browser's) is refused (403) unless the origin was
//!   allowed with `--allow-origin`.
//! - Each session gets its own toolkit on the same roots: its own staleness ledger and editor
//!   sessions, while file locks (flock on the state folder's lock files), patch journals and
//!   undo history are shared, so two agents editing one file serialise and each is refused a
//!   write to a file the other changed since it read it.
//! - The endpoint is `/mcp`; a message may be up to the stdio limit (65 MiB).

use std::convert::Infallible;
use std::io::{self, Read as _};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use bytes::Bytes;
use editkit::Toolkit;
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use crate::mcp::{McpOptions, Server, tool_list};
use crate::{EXIT_REFUSED, EXIT_USAGE};

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
}

/// The endpoint path.
const ENDPOINT: &str = "/mcp";

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

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
    let tools = Arc::new(tool_list(options));
    let count = tools.len();
    let roots: Vec<PathBuf> = toolkit.workspaces().iter().map(|w| w.root_path().to_owned()).collect();
    let base = toolkit.options().clone();
    let (style, client_roots) = (options.style, options.client_roots.is_some());
    // The toolkit opened at start checked the roots; each session opens its own.
    drop(toolkit);
    let shown: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
    let factory = move || {
        let toolkit = Toolkit::open_roots(&roots, base.clone()).map_err(|err| io::Error::other(err.to_string()))?;
        Ok(Server::new(toolkit, Arc::clone(&tools), style, client_roots))
    };
    let mut config = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(crate::framing::MAX_MESSAGE_BYTES)
        .with_allowed_origins(http.allowed_origins.clone())
        .enforce_origin_validation();
    if http.allow_remote {
        config = config.disable_allowed_hosts();
    }
    let service = StreamableHttpService::new(factory, Arc::new(LocalSessionManager::default()), config);
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
        let token: Arc<str> = token.into();
        loop {
            let (stream, _) = match listener.accept().await {
                Ok(accepted) => accepted,
                Err(err) => {
                    eprintln!("editkit mcp: accept failed: {err}");
                    continue;
                }
            };
            let service = service.clone();
            let token = Arc::clone(&token);
            tokio::spawn(async move {
                let handler = hyper::service::service_fn(move |request: http::Request<Incoming>| {
                    let mut service = service.clone();
                    let token = Arc::clone(&token);
                    async move {
                        if request.uri().path() != ENDPOINT {
                            return Ok::<_, Infallible>(plain(http::StatusCode::NOT_FOUND, "the MCP endpoint is /mcp"));
                        }
                        if !authorized(request.headers(), &token) {
                            let mut answer = plain(
                                http::StatusCode::UNAUTHORIZED,
                                "send the token editkit printed at start as `Authorization: Bearer TOKEN`",
                            );
                            answer
                                .headers_mut()
                                .insert(http::header::WWW_AUTHENTICATE, http::HeaderValue::from_static("Bearer"));
                            return Ok(answer);
                        }
                        // rmcp answers a session's DELETE with 202; the session is gone by then,
                        // and clients (the Python SDK) expect 200 or 204.
                        let delete = request.method() == http::Method::DELETE;
                        let mut answer = tower_call(&mut service, request).await?;
                        if delete && answer.status() == http::StatusCode::ACCEPTED {
                            *answer.status_mut() = http::StatusCode::NO_CONTENT;
                        }
                        Ok(answer)
                    }
                });
                let connection =
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), handler);
                if let Err(err) = connection.await {
                    eprintln!("editkit mcp: connection ended: {err}");
                }
            });
        }
    })
}

/// Hands a request to rmcp's service (whose error type is `Infallible`).
async fn tower_call(
    service: &mut StreamableHttpService<Server, LocalSessionManager>,
    request: http::Request<Incoming>,
) -> Result<http::Response<Body>, Infallible> {
    use tower_service::Service as _;
    service.call(request).await
}

/// A short plain-text answer.
fn plain(status: http::StatusCode, text: &'static str) -> http::Response<Body> {
    let mut answer = http::Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *answer.status_mut() = status;
    answer
        .headers_mut()
        .insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("text/plain; charset=utf-8"));
    answer
}

/// Whether the request carries `Authorization: Bearer <token>`, compared in time that does not
/// depend on where the first difference is.
fn authorized(headers: &http::HeaderMap, token: &str) -> bool {
    let Some(given) = headers.get(http::header::AUTHORIZATION).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let Some(given) = given.strip_prefix("Bearer ").map(str::trim) else {
        return false;
    };
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
