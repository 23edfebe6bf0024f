//! One running language server: started confined from its private folder, initialised with
//! the settings `spec` chose, its notifications folded into a state (readiness, diagnostics
//! per document, the tsserver it runs), its stderr's tail kept for when it fails.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use editkit_run::{Invocation, PrivateDir, Roots};
use lsp_types::{Location, Position, Uri, WorkspaceEdit};
use serde_json::{Value, json};

use crate::position::Encoding;
use crate::rpc::{Answers, Connection, RpcError};
use crate::spec::{Language, Launch, Lookup, Unavailable, locate, private_dir};
use crate::uri::path_to_uri;

/// How many bytes of a server's stderr are kept (the last ones).
pub const MAX_STDERR_BYTES: usize = 64 * 1024;

/// The diagnostics a server last published for one document.
#[derive(Debug, Clone, PartialEq)]
pub struct Published {
    /// The document version they are for, when the server says.
    pub version: Option<i32>,
    /// The diagnostics, as sent.
    pub diagnostics: Vec<lsp_types::Diagnostic>,
    /// The server had loaded the workspace when it sent them (see [`Server::wait_ready`]):
    /// rust-analyzer publishes an empty list for a file it has not analysed yet.
    pub loaded: bool,
    /// How many items of the list could not be read as diagnostics (left out of
    /// `diagnostics`, counted in the answer's `omitted`).
    pub unreadable: usize,
    /// Why the list itself could not be read (not an array): then nothing it says is shown
    /// as the server's answer.
    pub malformed: Option<String>,
}

#[derive(Debug, Default)]
struct Facts {
    /// A first publish came, or rust-analyzer said it is quiescent: the workspace is loaded.
    ready: bool,
    /// The documents open with the server (their URIs): diagnostics are kept for these only.
    open: HashSet<String>,
    /// The last diagnostics published for each open document.
    published: HashMap<String, Published>,
    typescript_source: Option<String>,
    /// rust-analyzer's last `experimental/serverStatus`.
    status: Option<Value>,
}

/// A running, initialised server for one language and root.
pub struct Server {
    language: Language,
    root: PathBuf,
    connection: Connection,
    child: Arc<Mutex<Option<Child>>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    facts: Mutex<Facts>,
    encoding: Encoding,
    confinement: String,
    dir: PrivateDir,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("language", &self.language).field("root", &self.root).finish_non_exhaustive()
    }
}

impl Server {
    /// Starts and initialises the server for `language` on `root` (`roots`: every workspace
    /// root, none of which may hold the server or anything it runs), looking programs up in
    /// `path` (a `PATH` value, usually this process's; `None`: no `PATH`, nothing found;
    /// only its absolute entries outside every root count), waiting up to `wait` for its `initialize` answer.
    ///
    /// # Errors
    /// [`Unavailable`] when no server is installed outside the roots, it cannot start, or it
    /// does not initialise as required (a tsserver other than the one chosen).
    pub fn start(
        language: Language,
        root: &Path,
        roots: &Roots,
        path: Option<&std::ffi::OsStr>,
        wait: Duration,
    ) -> Result<Server, Unavailable> {
        Server::start_keeping_stderr(language, root, roots, path, wait).map_err(|failed| failed.unavailable)
    }

    /// [`Server::start`], and when it fails, the server's stderr for the log.
    pub(crate) fn start_keeping_stderr(
        language: Language,
        root: &Path,
        roots: &Roots,
        path: Option<&std::ffi::OsStr>,
        wait: Duration,
    ) -> Result<Server, Failed> {
        let dir = private_dir(language, roots)?;
        let launch = locate(language, Lookup { path, roots }, root, dir.path())?;
        let invocation = Invocation {
            program: launch.program.clone(),
            args: launch.args.clone(),
            stdin: &[],
            dir: dir.path(),
            path: launch.search_path.clone(),
            timeout: Duration::ZERO,
            max_stdout: 0,
            env: launch.env.clone(),
        };
        let (spawned, confinement) = editkit_run::spawn_no_exec_in(&invocation, roots);
        let mut child = spawned.map_err(|error| Unavailable::new(language, format!("could not start: {error}")))?;
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            editkit_run::reap(&mut child);
            return Err(Unavailable::new(language, "could not start: no pipes").into());
        };
        let child = Arc::new(Mutex::new(Some(child)));
        let kill = Arc::clone(&child);
        let connection = Connection::new(
            stdout,
            stdin,
            Answers { configuration: launch.configuration.clone() },
            Box::new(move || stop(&kill)),
        );
        let stderr_tail = Arc::new(Mutex::new(Vec::new()));
        let tail = Arc::clone(&stderr_tail);
        let stderr_thread = std::thread::spawn(move || keep_tail(stderr, &tail));
        let mut server = Server {
            language,
            root: root.to_owned(),
            connection,
            child,
            stderr: stderr_tail,
            facts: Mutex::new(Facts::default()),
            encoding: Encoding::Utf16,
            confinement,
            dir,
        };
        if let Err(reason) = server.initialize(&launch, wait) {
            server.kill();
            // The stderr it wrote before it ended, for the log: a second at most (a child
            // of the server may hold the pipe open).
            let waited = Instant::now();
            while !stderr_thread.is_finished() && waited.elapsed() < Duration::from_secs(1) {
                std::thread::sleep(Duration::from_millis(10));
            }
            return Err(Failed {
                unavailable: Unavailable::new(language, kept_private(&reason)),
                stderr: server.stderr_tail(),
            });
        }
        Ok(server)
    }

    fn initialize(&mut self, launch: &Launch, wait: Duration) -> Result<(), String> {
        let root_uri = path_to_uri(&self.root)?;
        let params = json!({
            // No process id: servers built on vscode-languageserver (typescript-language-server)
            // exit when `kill(processId, 0)` fails, and Landlock's signal scope makes it fail
            // with EPERM, so a server named one ended 3 s after it started. Without it they end
            // when their input closes (editkit also kills their process group).
            "processId": Value::Null,
            "rootUri": root_uri.as_str(),
            "workspaceFolders": [{"uri": root_uri.as_str(), "name": "workspace"}],
            "initializationOptions": launch.init_options,
            "capabilities": capabilities(self.language),
        });
        let answer = self.connection.request("initialize", params, wait).map_err(|error| error.to_string())?;
        let encoding = answer.pointer("/capabilities/positionEncoding").and_then(Value::as_str);
        self.encoding = if encoding == Some("utf-8") { Encoding::Utf8 } else { Encoding::Utf16 };
        self.connection.notify("initialized", json!({})).map_err(|error| error.to_string())?;
        if launch.check_typescript_source {
            // typescript-language-server says which tsserver it runs; anything but the one
            // editkit named (say the workspace's `node_modules/typescript`) is refused.
            let deadline = Instant::now() + wait;
            let source = loop {
                self.pump(Duration::from_millis(50));
                if let Some(source) = crate::lock(&self.facts).typescript_source.clone() {
                    break source;
                }
                if Instant::now() >= deadline || self.connection.broken().is_some() {
                    break "none reported".to_owned();
                }
            };
            if source != "user-setting" {
                self.kill();
                return Err(format!(
                    "typescript-language-server runs a tsserver from `{}`, not the one editkit chose",
                    crate::clean(&source, 200, false)
                ));
            }
        }
        Ok(())
    }

    /// The language.
    #[must_use]
    pub fn language(&self) -> Language {
        self.language
    }

    /// The server's private folder: its working directory, `TMPDIR` and caches, the only
    /// place it may write.
    #[must_use]
    pub fn private_dir(&self) -> &Path {
        self.dir.path()
    }

    /// How the server was confined, saying exactly what holds, as
    /// [`editkit_run::spawn_no_exec_in`] reports it (`landlock (ABI 7) in a network namespace
    /// of its own (unshare -n): no writes outside the private folder, nothing beneath a root
    /// executed, no network; pathname Unix sockets open`, or `unavailable: <why>`).
    #[must_use]
    pub fn confinement(&self) -> &str {
        &self.confinement
    }

    /// The unit the server counts columns in.
    #[must_use]
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Why the server is gone, if it is.
    #[must_use]
    pub fn broken(&self) -> Option<String> {
        self.connection.broken()
    }

    /// The last lines the server wrote to stderr (at most 2,000 characters), for the user's
    /// log only: a server's stderr can quote any file it read (cargo quotes the TOML line it
    /// cannot parse, a linked `Cargo.toml` being anything), so editkit never puts it in a
    /// reason, an error or a result.
    #[must_use]
    pub fn stderr_tail(&self) -> String {
        let bytes = crate::lock(&self.stderr).clone();
        let text = String::from_utf8_lossy(&bytes);
        let chars: Vec<char> = text.trim_end().chars().collect();
        chars.get(chars.len().saturating_sub(2_000)..).unwrap_or(&[]).iter().collect()
    }

    /// Tells the server `path` is open with `text` at `version`.
    ///
    /// # Errors
    /// [`RpcError`] when the server is gone or the path has no URI.
    pub fn open(&self, path: &Path, text: &str, version: i32) -> Result<(), RpcError> {
        let uri = uri_of(path)?;
        let item = json!({"uri": uri.as_str(), "languageId": self.language.language_id(path), "version": version, "text": text});
        crate::lock(&self.facts).open.insert(uri.as_str().to_owned());
        self.connection.notify("textDocument/didOpen", json!({"textDocument": item}))
    }

    /// Tells the server `path` now has `text` at `version` (full-text sync).
    ///
    /// # Errors
    /// As [`Server::open`].
    pub fn change(&self, path: &Path, text: &str, version: i32) -> Result<(), RpcError> {
        let uri = uri_of(path)?;
        self.connection.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri.as_str(), "version": version}, "contentChanges": [{"text": text}]}),
        )
    }

    /// Tells the server `path` is no longer open.
    ///
    /// # Errors
    /// As [`Server::open`].
    pub fn close(&self, path: &Path) -> Result<(), RpcError> {
        let uri = uri_of(path)?;
        let mut facts = crate::lock(&self.facts);
        facts.open.remove(uri.as_str());
        facts.published.remove(uri.as_str());
        drop(facts);
        self.connection.notify("textDocument/didClose", json!({"textDocument": {"uri": uri.as_str()}}))
    }

    /// Waits up to `wait` for the next notification (any), folding what came into the
    /// state; for callers waiting on [`Server::published`].
    pub fn wait_published(&self, _path: &Path, wait: Duration) {
        self.pump(wait);
    }

    /// Waits up to `wait` for the server to have loaded the workspace: its first published
    /// diagnostics, or rust-analyzer's `quiescent` status. Before that, answers can be
    /// plausible and incomplete.
    #[must_use]
    pub fn wait_ready(&self, wait: Duration) -> bool {
        let deadline = Instant::now() + wait;
        loop {
            if crate::lock(&self.facts).ready {
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || self.connection.broken().is_some() {
                return false;
            }
            self.pump(left.min(Duration::from_millis(200)));
        }
    }

    /// The server's own word on its health, when it gives one (rust-analyzer's last
    /// `experimental/serverStatus`: `health` and `quiescent`). Its `message` is left out: it
    /// quotes cargo's errors, which quote files.
    #[must_use]
    pub fn status(&self) -> Option<Value> {
        self.pump(Duration::ZERO);
        let status = crate::lock(&self.facts).status.clone()?;
        let kept =
            ["health", "quiescent"].into_iter().filter_map(|key| Some((key.to_owned(), status.get(key)?.clone())));
        Some(Value::Object(kept.collect()))
    }

    /// What kept the server from loading the whole workspace, when it says (rust-analyzer's
    /// status with a health other than `ok`: a crate whose dependencies could not be
    /// resolved offline, say). Only the health word is given: the server's own message can
    /// quote workspace files (as its stderr can), so it stays with the server's log. Answers
    /// given while this is `Some` may miss what it could not load: show it beside them.
    #[must_use]
    pub fn load_problem(&self) -> Option<String> {
        let status = self.status()?;
        let health = status.get("health").and_then(Value::as_str).unwrap_or("ok");
        let health = match health {
            "ok" => return None,
            "warning" | "error" => health,
            _ => "an unknown health",
        };
        Some(format!(
            "{} reports `{health}`: it could not load all of the workspace (its own words are kept \
             for the log, not shown, as they can quote files)",
            self.language.as_str()
        ))
    }

    /// What the server last published for `path`, if anything (kept only while `path` is
    /// open with the server).
    #[must_use]
    pub fn published(&self, path: &Path) -> Option<Published> {
        let uri = uri_of(path).ok()?;
        self.pump(Duration::ZERO);
        crate::lock(&self.facts).published.get(uri.as_str()).cloned()
    }

    /// The references to the symbol at `position` of `path`, its declaration included.
    ///
    /// # Errors
    /// [`RpcError`] as the request gives it.
    pub fn references(&self, path: &Path, position: Position, wait: Duration) -> Result<Vec<Location>, RpcError> {
        let params = json!({
            "textDocument": {"uri": uri_of(path)?.as_str()},
            "position": position,
            "context": {"includeDeclaration": true},
        });
        let answer = self.connection.request("textDocument/references", params, wait)?;
        decode("textDocument/references", answer).map(Option::unwrap_or_default)
    }

    /// The edit renaming the symbol at `position` of `path` to `new_name`, as the server
    /// plans it (`None`: nothing to rename there). Check it with [`crate::rename_edits`].
    ///
    /// # Errors
    /// [`RpcError`] as the request gives it.
    pub fn rename(
        &self,
        path: &Path,
        position: Position,
        new_name: &str,
        wait: Duration,
    ) -> Result<Option<WorkspaceEdit>, RpcError> {
        let params =
            json!({"textDocument": {"uri": uri_of(path)?.as_str()}, "position": position, "newName": new_name});
        let answer = self.connection.request("textDocument/rename", params, wait)?;
        decode("textDocument/rename", answer)
    }

    /// The references to the symbol at `position` of `path`, its declaration included when
    /// `include_declaration`.
    ///
    /// # Errors
    /// [`RpcError`] as the request gives it.
    pub fn references_with(
        &self,
        path: &Path,
        position: Position,
        include_declaration: bool,
        wait: Duration,
    ) -> Result<Vec<Location>, RpcError> {
        let params = json!({
            "textDocument": {"uri": uri_of(path)?.as_str()},
            "position": position,
            "context": {"includeDeclaration": include_declaration},
        });
        let answer = self.connection.request("textDocument/references", params, wait)?;
        decode("textDocument/references", answer).map(Option::unwrap_or_default)
    }

    /// The workspace's symbols the server matches to `query` (`workspace/symbol`; servers
    /// match loosely, so the caller keeps the exact names it wants): at most
    /// [`MAX_SYMBOLS`], names cleaned (see [`Symbol`]), and how many more there were
    /// (symbols with no file range, which a server may send, are counted with them).
    ///
    /// # Errors
    /// [`RpcError`] as the request gives it.
    pub fn workspace_symbols(&self, query: &str, wait: Duration) -> Result<(Vec<Symbol>, usize), RpcError> {
        let answer = self.connection.request("workspace/symbol", json!({"query": query}), wait)?;
        let answer: Option<lsp_types::WorkspaceSymbolResponse> = decode("workspace/symbol", answer)?;
        let mut found = Vec::new();
        let mut omitted = 0_usize;
        let mut keep = |symbol: Option<Symbol>| match symbol {
            Some(symbol) if found.len() < MAX_SYMBOLS => found.push(symbol),
            _ => omitted += 1,
        };
        match answer {
            None => {}
            Some(lsp_types::WorkspaceSymbolResponse::Flat(symbols)) => {
                for symbol in symbols {
                    keep(Symbol::new(&symbol.name, symbol.kind, symbol.container_name.as_deref(), &symbol.location));
                }
            }
            Some(lsp_types::WorkspaceSymbolResponse::Nested(symbols)) => {
                for symbol in symbols {
                    let location = match &symbol.location {
                        lsp_types::OneOf::Left(location) => Some(location),
                        lsp_types::OneOf::Right(_) => None,
                    };
                    keep(location.and_then(|location| {
                        Symbol::new(&symbol.name, symbol.kind, symbol.container_name.as_deref(), location)
                    }));
                }
            }
        }
        Ok((found, omitted))
    }

    /// The symbols of `path` (`textDocument/documentSymbol`), flattened in the server's
    /// order, each with its container: the names of the symbols it is nested in, joined by
    /// `/` (for a hierarchical answer), or the server's `containerName` (for a flat one). At
    /// most [`MAX_SYMBOLS`]; the rest are counted.
    ///
    /// # Errors
    /// [`RpcError`] as the request gives it.
    pub fn document_symbols(&self, path: &Path, wait: Duration) -> Result<(Vec<Symbol>, usize), RpcError> {
        let uri = uri_of(path)?;
        let answer = self.connection.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri.as_str()}}),
            wait,
        )?;
        let answer: Option<lsp_types::DocumentSymbolResponse> = decode("textDocument/documentSymbol", answer)?;
        let mut found = Vec::new();
        let mut omitted = 0_usize;
        match answer {
            None => {}
            Some(lsp_types::DocumentSymbolResponse::Flat(symbols)) => {
                for symbol in symbols {
                    match Symbol::new(&symbol.name, symbol.kind, symbol.container_name.as_deref(), &symbol.location) {
                        Some(symbol) if found.len() < MAX_SYMBOLS => found.push(symbol),
                        _ => omitted += 1,
                    }
                }
            }
            Some(lsp_types::DocumentSymbolResponse::Nested(symbols)) => {
                // Depth first, with the chain of containers; the stack bounds the work by the
                // symbols sent, never by their nesting's recursion.
                let mut stack: Vec<(lsp_types::DocumentSymbol, Option<String>)> =
                    symbols.into_iter().rev().map(|symbol| (symbol, None)).collect();
                while let Some((mut symbol, container)) = stack.pop() {
                    let location = Location { uri: uri.clone(), range: symbol.selection_range };
                    let children = symbol.children.take().unwrap_or_default();
                    match Symbol::new(&symbol.name, symbol.kind, container.as_deref(), &location) {
                        Some(kept) if found.len() < MAX_SYMBOLS => {
                            let chain = match &container {
                                Some(outer) => format!("{outer}/{}", kept.name),
                                None => kept.name.clone(),
                            };
                            found.push(kept);
                            stack.extend(children.into_iter().rev().map(|child| (child, Some(chain.clone()))));
                        }
                        _ => omitted += 1 + children.len(),
                    }
                }
            }
        }
        Ok((found, omitted))
    }

    /// The underlying connection, for requests this type has no method for.
    #[must_use]
    pub fn connection(&self) -> &Connection {
        &self.connection
    }

    /// Folds the notifications that came (waiting up to `wait` for the first) into the state.
    fn pump(&self, wait: Duration) {
        let mut next = self.connection.next_notification(wait);
        while let Some(notification) = next {
            let mut facts = crate::lock(&self.facts);
            match notification.method.as_str() {
                "textDocument/publishDiagnostics" => {
                    // A publish says the workspace is loaded, but not rust-analyzer's: it
                    // publishes (empty) before it loaded the project; its `quiescent` says.
                    if self.language != Language::Rust {
                        facts.ready = true;
                    }
                    let loaded = facts.ready;
                    let uri = notification.params.get("uri").and_then(Value::as_str).unwrap_or("").to_owned();
                    let version =
                        notification.params.get("version").and_then(Value::as_i64).and_then(|v| i32::try_from(v).ok());
                    let (diagnostics, unreadable, malformed) =
                        match read_diagnostics(notification.params.get("diagnostics")) {
                            Ok((diagnostics, unreadable)) => (diagnostics, unreadable, None),
                            Err(reason) => (Vec::new(), 0, Some(reason)),
                        };
                    // Kept for documents editkit opened only: a server cannot grow the map
                    // by publishing for other URIs.
                    if facts.open.contains(&uri) {
                        let published = Published { version, diagnostics, loaded, unreadable, malformed };
                        facts.published.insert(uri, published);
                    }
                }
                "experimental/serverStatus" => {
                    facts.status = Some(notification.params.clone());
                    if notification.params.get("quiescent").and_then(Value::as_bool) == Some(true) {
                        facts.ready = true;
                    }
                }
                "$/typescriptVersion" => {
                    facts.typescript_source =
                        notification.params.get("source").and_then(Value::as_str).map(str::to_owned);
                }
                _ => {}
            }
            drop(facts);
            next = self.connection.next_notification(Duration::ZERO);
        }
    }

    fn kill(&self) {
        stop(&self.child);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.connection.broken().is_none() {
            // A polite end first; the process group is killed either way.
            let _ = self.connection.request("shutdown", Value::Null, Duration::from_secs(2));
            let _ = self.connection.notify("exit", Value::Null);
        }
        self.kill();
    }
}

/// The most symbols one `workspace/symbol` or `documentSymbol` answer gives; the rest are
/// counted.
pub const MAX_SYMBOLS: usize = 2_000;

/// The longest symbol name or container kept, in characters.
pub const MAX_SYMBOL_NAME_CHARS: usize = 300;

/// One symbol as a server located it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// Its name, cut to [`MAX_SYMBOL_NAME_CHARS`], control characters and bidirectional
    /// overrides escaped.
    pub name: String,
    /// Its kind (`function`, `class`, `method`...).
    pub kind: &'static str,
    /// What it is declared in, as the server says (cleaned as `name`), when it says.
    pub container: Option<String>,
    /// The file (from a `file:` URI).
    pub path: PathBuf,
    /// Where its name starts, in the server's unit.
    pub position: Position,
}

impl Symbol {
    /// `None` when the location is not a local file.
    fn new(name: &str, kind: lsp_types::SymbolKind, container: Option<&str>, location: &Location) -> Option<Symbol> {
        let path = crate::uri::uri_to_path(&location.uri)?;
        Some(Symbol {
            name: crate::clean(name, MAX_SYMBOL_NAME_CHARS, false),
            kind: symbol_kind(kind),
            container: container
                .filter(|container| !container.is_empty())
                .map(|container| crate::clean(container, MAX_SYMBOL_NAME_CHARS, false)),
            path,
            position: location.range.start,
        })
    }
}

/// The protocol's symbol kind as a word.
fn symbol_kind(kind: lsp_types::SymbolKind) -> &'static str {
    use lsp_types::SymbolKind as K;
    const WORDS: [(K, &str); 26] = [
        (K::FILE, "file"),
        (K::MODULE, "module"),
        (K::NAMESPACE, "namespace"),
        (K::PACKAGE, "package"),
        (K::CLASS, "class"),
        (K::METHOD, "method"),
        (K::PROPERTY, "property"),
        (K::FIELD, "field"),
        (K::CONSTRUCTOR, "constructor"),
        (K::ENUM, "enum"),
        (K::INTERFACE, "interface"),
        (K::FUNCTION, "function"),
        (K::VARIABLE, "variable"),
        (K::CONSTANT, "constant"),
        (K::STRING, "string"),
        (K::NUMBER, "number"),
        (K::BOOLEAN, "boolean"),
        (K::ARRAY, "array"),
        (K::OBJECT, "object"),
        (K::KEY, "key"),
        (K::NULL, "null"),
        (K::ENUM_MEMBER, "enum_member"),
        (K::STRUCT, "struct"),
        (K::EVENT, "event"),
        (K::OPERATOR, "operator"),
        (K::TYPE_PARAMETER, "type_parameter"),
    ];
    WORDS.iter().find(|(known, _)| *known == kind).map_or("symbol", |(_, word)| word)
}

/// Why a server did not start, and its stderr for the log (never for the reason).
#[derive(Debug)]
pub(crate) struct Failed {
    pub(crate) unavailable: Unavailable,
    pub(crate) stderr: String,
}

impl From<Unavailable> for Failed {
    fn from(unavailable: Unavailable) -> Failed {
        Failed { unavailable, stderr: String::new() }
    }
}

/// A server's list of diagnostics read item by item: those lsp_types reads, and how many it
/// could not (one odd item never hides the others); `Err` with the reason when the list
/// itself is missing or not an array.
pub(crate) fn read_diagnostics(list: Option<&Value>) -> Result<(Vec<lsp_types::Diagnostic>, usize), String> {
    let items = match list {
        Some(Value::Array(items)) => items,
        Some(other) => {
            let kind = match other {
                Value::Null => "null",
                Value::Bool(_) => "a boolean",
                Value::Number(_) => "a number",
                Value::String(_) => "a string",
                _ => "an object",
            };
            return Err(format!("the server sent {kind} where its list of diagnostics belongs"));
        }
        None => return Err("the server sent no list of diagnostics".to_owned()),
    };
    let mut diagnostics = Vec::new();
    let mut unreadable = 0_usize;
    for item in items {
        match <lsp_types::Diagnostic as serde::Deserialize>::deserialize(item) {
            Ok(diagnostic) => diagnostics.push(diagnostic),
            Err(_) => unreadable = unreadable.saturating_add(1),
        }
    }
    Ok((diagnostics, unreadable))
}

/// `reason`, saying where the server's stderr went.
pub(crate) fn kept_private(reason: &str) -> String {
    format!("{reason}; the server's stderr is kept for the log, not shown (it can quote files)")
}

fn stop(child: &Mutex<Option<Child>>) {
    if let Some(mut child) = crate::lock(child).take() {
        editkit_run::reap(&mut child);
    }
}

fn uri_of(path: &Path) -> Result<Uri, RpcError> {
    path_to_uri(path).map_err(|message| RpcError::Malformed { method: "uri".to_owned(), message })
}

fn decode<T: serde::de::DeserializeOwned>(method: &str, answer: Value) -> Result<T, RpcError> {
    serde_json::from_value(answer)
        .map_err(|error| RpcError::Malformed { method: method.to_owned(), message: error.to_string() })
}

/// Keeps the last [`MAX_STDERR_BYTES`] of `stream`.
fn keep_tail(mut stream: impl Read, tail: &Mutex<Vec<u8>>) {
    let mut buffer = [0_u8; 8192];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                let mut kept = crate::lock(tail);
                kept.extend_from_slice(buffer.get(..n).unwrap_or(&[]));
                let excess = kept.len().saturating_sub(MAX_STDERR_BYTES);
                kept.drain(..excess);
            }
        }
    }
}

/// What editkit tells servers it can do.
fn capabilities(language: Language) -> Value {
    let mut capabilities = json!({
        "general": {"positionEncodings": ["utf-8", "utf-16"]},
        "workspace": {
            "workspaceEdit": {"documentChanges": true, "resourceOperations": ["rename"], "failureHandling": "abort"},
            "configuration": true,
            "workspaceFolders": true,
            "symbol": {},
        },
        "textDocument": {
            "synchronization": {"didSave": false, "dynamicRegistration": false},
            "publishDiagnostics": {"versionSupport": true, "relatedInformation": false},
            "references": {},
            "rename": {"prepareSupport": true},
            "documentSymbol": {"hierarchicalDocumentSymbolSupport": true},
        },
        "window": {"workDoneProgress": true},
        "experimental": {"serverStatusNotification": true},
    });
    // rust-analyzer's diagnostics are pulled: it publishes a file's syntax errors and its
    // other errors separately, both for one version, so no publish says it is complete.
    if language == Language::Rust
        && let Some(text_document) = capabilities.get_mut("textDocument").and_then(Value::as_object_mut)
    {
        text_document.insert("diagnostic".to_owned(), json!({"dynamicRegistration": false}));
    }
    capabilities
}
