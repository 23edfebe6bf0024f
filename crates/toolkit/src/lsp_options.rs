//! How a toolkit runs language servers ([`LanguageServerOptions`]): whether at all, where
//! they are looked up, how many run, and how long an answer is waited for.

use std::ffi::OsString;
use std::sync::Arc;
use std::time::Duration;

use editkit_lsp::{Language, Pool, PoolOptions};

/// A wait per language: Python (basedpyright or pyright), TypeScript/JavaScript
/// (typescript-language-server) and Rust (rust-analyzer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LanguageWaits {
    /// Python.
    pub python: Duration,
    /// TypeScript and JavaScript.
    pub typescript: Duration,
    /// Rust.
    pub rust: Duration,
}

impl LanguageWaits {
    /// The wait for `language`.
    #[must_use]
    pub fn of(&self, language: Language) -> Duration {
        match language {
            Language::Python => self.python,
            Language::TypeScript => self.typescript,
            // A language added to the client waits as long as Rust, the longest.
            _ => self.rust,
        }
    }
}

/// How a toolkit runs language servers (the `code_intel` tools `find_symbol`,
/// `find_references`, `rename_symbol` and `diagnostics`).
///
/// A server is only ever one found on [`LanguageServerOptions::path`] outside every workspace
/// root (never one the repository ships or configures), started confined the first time a
/// tool needs it (never when the toolkit opens), one per language and root, kept warm while
/// the toolkit lives and shut down after [`LanguageServerOptions::idle`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LanguageServerOptions {
    /// Language servers run at all. Default: true. When false every code-intel tool answers
    /// `unavailable` ("language servers are off"; `diagnostics` says so in its `state`) and
    /// no server ever starts; `file_symbols` (tree-sitter) works either way.
    pub enabled: bool,
    /// After every write through the toolkit (edit, write, patch, snippet, editor save),
    /// attach the written file's diagnostics from its server as `diagnostics.server_diagnostics`
    /// (`fresh`, `stale`, `timed_out` or `unavailable`), starting the server when none runs
    /// and waiting at most [`LanguageServerOptions::diagnostics_wait`]; a failure never fails
    /// the write. Default: false (a one-shot command starts no server); `editkit mcp` turns it on.
    pub after_writes: bool,
    /// How long a diagnostics answer waits for the server's diagnostics of the text just
    /// sent before it says `timed_out` (with the version of what it has, if anything).
    /// Default: Python 3 s, TypeScript/JavaScript 5 s, Rust 5 s.
    pub diagnostics_wait: LanguageWaits,
    /// How long a freshly started server may take to load the workspace (its readiness gate)
    /// before references, renames and symbols are answered; an answer given before it is
    /// marked incomplete or refused, never shown as complete. Default: Python 60 s,
    /// TypeScript/JavaScript 60 s, Rust 120 s.
    pub ready_wait: LanguageWaits,
    /// How long the server's requests of one code-intel call (references, rename, symbols),
    /// however many it makes, may take together: one deadline per call, after the readiness
    /// gate. Default: 30 s.
    pub request_wait: Duration,
    /// The `PATH` servers are looked up in; `None`: this process's. Only absolute entries
    /// outside every workspace root count.
    pub path: Option<OsString>,
    /// The most servers running at once; the least recently used is shut down to start
    /// another. Default: 8.
    pub max_servers: usize,
    /// A server unused this long is shut down. Default: 10 minutes.
    pub idle: Duration,
    /// How long a server may take to start and answer `initialize`. Default: 60 s.
    pub start_wait: Duration,
    /// The servers to use, shared with other toolkits: `editkit mcp --http` gives every
    /// session's (and stateless request's) toolkit the same, so one server runs per language
    /// and root for the whole process and `max_servers` counts them all. `max_servers`,
    /// `idle`, `start_wait` and `path` are then those the shared servers were made with.
    /// `None` (default): the toolkit runs its own.
    pub shared: Option<SharedServers>,
}

/// Language servers several toolkits share (see [`LanguageServerOptions::shared`]): one pool
/// for the process, made from the options given to [`SharedServers::new`].
#[derive(Debug, Clone)]
pub struct SharedServers(Arc<Pool>);

impl SharedServers {
    /// An empty pool run by `options` (no server starts before a tool needs one).
    #[must_use]
    pub fn new(options: &LanguageServerOptions) -> SharedServers {
        SharedServers(Arc::new(Pool::new(options.pool_options())))
    }

    /// How many servers run.
    #[must_use]
    pub fn running(&self) -> usize {
        self.0.running()
    }
}

/// The same servers: the same pool.
impl PartialEq for SharedServers {
    fn eq(&self, other: &SharedServers) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for SharedServers {}

impl Default for LanguageServerOptions {
    fn default() -> Self {
        let pool = PoolOptions::default();
        LanguageServerOptions {
            enabled: true,
            after_writes: false,
            diagnostics_wait: LanguageWaits {
                python: Duration::from_secs(3),
                typescript: Duration::from_secs(5),
                rust: Duration::from_secs(5),
            },
            ready_wait: LanguageWaits {
                python: Duration::from_secs(60),
                typescript: Duration::from_secs(60),
                rust: Duration::from_secs(120),
            },
            request_wait: Duration::from_secs(30),
            path: None,
            max_servers: pool.max_servers,
            idle: pool.idle,
            start_wait: pool.start_wait,
            shared: None,
        }
    }
}

impl LanguageServerOptions {
    /// The pool a toolkit with these options uses: the shared one, else its own.
    pub(crate) fn pool(&self) -> Arc<Pool> {
        match &self.shared {
            Some(shared) => Arc::clone(&shared.0),
            None => Arc::new(Pool::new(self.pool_options())),
        }
    }

    /// The pool these options make.
    #[allow(clippy::needless_update, reason = "the pool's options may gain fields, which keep their defaults")]
    pub(crate) fn pool_options(&self) -> PoolOptions {
        PoolOptions {
            max_servers: self.max_servers,
            idle: self.idle,
            start_wait: self.start_wait,
            path: self.path.clone(),
            ..PoolOptions::default()
        }
    }
}
