//! A server with the documents editkit told it about: versions (full-text sync, one more on
//! every change), the texts sent (a rename's edits are checked against them), and
//! diagnostics with a freshness that is never silent.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::edit::SentText;
use crate::rpc::RpcError;
use crate::server::Server;
use crate::spec::{Language, Unavailable};

/// The most documents kept open with one server; the least recently used is closed.
pub const MAX_OPEN_DOCUMENTS: usize = 64;

/// The most bytes of document texts a session keeps (to check a rename's edits against
/// what the server got); past it the least recently used documents are closed, the one just
/// sent always kept.
pub const MAX_SENT_TEXT_BYTES: usize = 32 * 1024 * 1024;

/// The most closed documents whose last version a session remembers; past it, the versions
/// forgotten raise a floor every later open starts above.
pub const MAX_CLOSED_VERSIONS: usize = 4_096;

/// The most diagnostics kept for one file; the rest are counted.
pub const MAX_DIAGNOSTICS: usize = 200;

/// The longest diagnostic message kept, in characters.
pub const MAX_MESSAGE_CHARS: usize = 2_000;

/// The longest diagnostic `source` kept, in characters.
pub const MAX_SOURCE_CHARS: usize = 64;

/// How current a server's diagnostics are. Never an empty list passed off as clean: only
/// `fresh` says the list is the server's answer for the text editkit last sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Freshness {
    /// The server published these for `version`, the text editkit last sent.
    Fresh {
        /// The document version.
        version: i32,
    },
    /// The newest the server published is for an older text (`version`; `null` when the
    /// server does not say which), and `current` was sent since.
    Stale {
        /// The version the diagnostics are for, when the server says.
        version: Option<i32>,
        /// The version editkit last sent.
        current: i32,
    },
    /// Nothing for the current text came within the wait; the diagnostics shown (if any)
    /// are for `last_version`.
    TimedOut {
        /// How long was waited.
        waited_ms: u64,
        /// The configured wait.
        limit_ms: u64,
        /// The version of the newest diagnostics the server published, if any.
        last_version: Option<i32>,
    },
    /// No server answers for this language, it stopped, or its answer could not be read.
    Unavailable {
        /// Why.
        reason: String,
        /// What to install; empty when a server was found (it stopped, or its answer could
        /// not be read).
        install: String,
    },
}

/// One diagnostic, as editkit shows it: 1-based line and column (in the server's unit).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// 1-based line of the start.
    pub line: u32,
    /// 1-based column of the start, in the server's unit.
    pub column: u32,
    /// `error`, `warning`, `information` or `hint`.
    pub severity: &'static str,
    /// The message, cut to [`MAX_MESSAGE_CHARS`], control characters and bidirectional
    /// overrides escaped (`\u{1b}`); line breaks and tabs kept.
    pub message: String,
    /// Who said it (`basedpyright`, `ts`, `rustc`...), when the server says: cut to
    /// [`MAX_SOURCE_CHARS`], control characters escaped.
    pub source: Option<String>,
}

/// A file's diagnostics from its server, and how current they are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServerDiagnostics {
    /// The state.
    #[serde(flatten)]
    pub freshness: Freshness,
    /// The diagnostics, at most [`MAX_DIAGNOSTICS`].
    pub diagnostics: Vec<Diagnostic>,
    /// How many more there were: past [`MAX_DIAGNOSTICS`], or items the server sent that
    /// could not be read as diagnostics.
    pub omitted: usize,
}

impl ServerDiagnostics {
    /// The answer when no server runs for the language.
    #[must_use]
    pub fn unavailable(unavailable: &Unavailable) -> ServerDiagnostics {
        ServerDiagnostics {
            freshness: Freshness::Unavailable {
                reason: unavailable.reason.clone(),
                install: unavailable.install.clone(),
            },
            diagnostics: Vec::new(),
            omitted: 0,
        }
    }
}

struct Document {
    path: PathBuf,
    version: i32,
    text: String,
}

/// The documents open with a server, and the last version of those closed: a version is
/// never used twice for one path within a session, so a publish for an old text is never
/// taken for a new one.
#[derive(Debug, Default)]
struct Documents {
    open: VecDeque<Document>,
    /// The last version of each closed document, at most [`MAX_CLOSED_VERSIONS`].
    closed: std::collections::HashMap<PathBuf, i32>,
    /// The highest version of a closed document no longer in `closed`.
    floor: i32,
}

impl Documents {
    fn iter(&self) -> impl Iterator<Item = &Document> {
        self.open.iter()
    }

    /// The version `path` opens at: above any it had in this session.
    fn opening(&mut self, path: &Path) -> i32 {
        self.closed.remove(path).unwrap_or(self.floor).max(self.floor).saturating_add(1)
    }

    fn closing(&mut self, document: &Document) {
        if self.closed.len() >= MAX_CLOSED_VERSIONS {
            // Forget them all at once (bounded work per close); the floor stays above them.
            self.floor = self.closed.values().copied().fold(self.floor, i32::max);
            self.closed.clear();
        }
        self.closed.insert(document.path.clone(), document.version);
    }
}

/// A running server and the documents open with it.
#[derive(Debug)]
pub struct Session {
    server: Server,
    documents: std::sync::Mutex<Documents>,
}

impl std::fmt::Debug for Document {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Document").field("path", &self.path).field("version", &self.version).finish_non_exhaustive()
    }
}

impl Session {
    /// A session on a started server.
    #[must_use]
    pub fn new(server: Server) -> Session {
        Session { server, documents: std::sync::Mutex::new(Documents::default()) }
    }

    /// The server.
    #[must_use]
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// The language.
    #[must_use]
    pub fn language(&self) -> Language {
        self.server.language()
    }

    /// Tells the server `path` has `text`: opened at version 1 the first time (above its last
    /// version when it was open before in this session), a change to the next version when
    /// the text differs from the one sent; gives the version now.
    /// `text` should be the file's text as the vfs decodes it (LF line endings, no BOM): the
    /// same text a rename's ranges are later mapped on.
    ///
    /// # Errors
    /// [`RpcError`] when the server is gone.
    pub fn sync(&self, path: &Path, text: &str) -> Result<i32, RpcError> {
        let mut documents = crate::lock(&self.documents);
        if let Some(at) = documents.open.iter().position(|document| document.path == path)
            && let Some(mut document) = documents.open.remove(at)
        {
            if document.text != text {
                document.version = document.version.saturating_add(1);
                document.text = text.to_owned();
                self.server.change(path, text, document.version)?;
            }
            let version = document.version;
            let size = document.text.len();
            documents.open.push_back(document);
            self.make_room(&mut documents, size, 1)?;
            return Ok(version);
        }
        self.make_room(&mut documents, text.len(), 0)?;
        if documents.open.len() >= MAX_OPEN_DOCUMENTS
            && let Some(oldest) = documents.open.pop_front()
        {
            documents.closing(&oldest);
            self.server.close(&oldest.path)?;
        }
        let version = documents.opening(path);
        self.server.open(path, text, version)?;
        documents.open.push_back(Document { path: path.to_owned(), version, text: text.to_owned() });
        Ok(version)
    }

    /// Closes the least recently used documents until `size` more bytes fit in
    /// [`MAX_SENT_TEXT_BYTES`], keeping the last `keep` (the one just sent).
    fn make_room(&self, documents: &mut Documents, size: usize, keep: usize) -> Result<(), RpcError> {
        let mut kept: usize = documents.open.iter().map(|document| document.text.len()).sum();
        if keep == 0 {
            kept += size;
        }
        while kept > MAX_SENT_TEXT_BYTES && documents.open.len() > keep {
            let Some(oldest) = documents.open.pop_front() else { break };
            kept = kept.saturating_sub(oldest.text.len());
            documents.closing(&oldest);
            self.server.close(&oldest.path)?;
        }
        Ok(())
    }

    /// Sends `path`'s last text again as the next version; gives that version.
    fn resend(&self, path: &Path) -> Result<i32, RpcError> {
        let mut documents = crate::lock(&self.documents);
        let Some(document) = documents.open.iter_mut().find(|document| document.path == path) else {
            return Err(RpcError::Unavailable { reason: "the document is no longer open".to_owned() });
        };
        document.version = document.version.saturating_add(1);
        self.server.change(path, &document.text, document.version)?;
        Ok(document.version)
    }

    /// The documents open with the server, least recently used first (at most
    /// [`MAX_OPEN_DOCUMENTS`]).
    #[must_use]
    pub fn documents(&self) -> Vec<PathBuf> {
        crate::lock(&self.documents).iter().map(|document| document.path.clone()).collect()
    }

    /// The version last sent for `path`, if it is open.
    #[must_use]
    pub fn version(&self, path: &Path) -> Option<i32> {
        crate::lock(&self.documents).iter().find(|document| document.path == path).map(|document| document.version)
    }

    /// The text and version the server last got for `path`, when it is open with the server
    /// (else `Err`: this crate reads no file; see [`Session::rename_text`]).
    ///
    /// # Errors
    /// When `path` is not open with the server.
    pub fn sent_text(&self, path: &Path) -> Result<SentText, String> {
        crate::lock(&self.documents)
            .iter()
            .find(|document| document.path == path)
            .map(|document| SentText { text: document.text.clone(), version: Some(document.version) })
            .ok_or_else(|| format!("`{}` is not open with the language server", path.display()))
    }

    /// What [`crate::rename_edits`] checks `path`'s edits against: `text`, as the caller read
    /// it through the vfs (decoded: LF line endings, no BOM), and the version last sent when
    /// the file is open with the server, whose text must then be `text`.
    ///
    /// # Errors
    /// When the file is open with another text: it changed since the server got it.
    pub fn rename_text(&self, path: &Path, text: String) -> Result<SentText, String> {
        let documents = crate::lock(&self.documents);
        match documents.iter().find(|document| document.path == path) {
            None => Ok(SentText { text, version: None }),
            Some(document) if document.text == text => Ok(SentText { text, version: Some(document.version) }),
            Some(_) => Err(format!("`{}` changed since the language server got it; try again", path.display())),
        }
    }

    /// Sends `text` for `path` and waits up to `wait` for the server's diagnostics of that
    /// version: its publish for that version (a publish without a version is never taken
    /// for `fresh`), or for TypeScript tsserver's answer to a request sent after the change.
    #[must_use]
    pub fn diagnostics(&self, path: &Path, text: &str, wait: Duration) -> ServerDiagnostics {
        let current = match self.sync(path, text) {
            Ok(version) => version,
            Err(error) => {
                let unavailable = Unavailable::new(self.language(), crate::server::kept_private(&error.to_string()));
                return ServerDiagnostics::unavailable(&unavailable);
            }
        };
        let started = Instant::now();
        if self.language() == Language::TypeScript {
            return self.typescript_diagnostics(path, current, started, wait);
        }
        if self.language() == Language::Rust {
            return self.pulled_diagnostics(path, current, started, wait);
        }
        let deadline = started + wait;
        let mut current = current;
        loop {
            let published = self.server.published(path);
            if let Some(published) = &published
                && published.version == Some(current)
            {
                if published.loaded {
                    return shown_published(Freshness::Fresh { version: current }, published);
                }
                // Published before the server had loaded the workspace (rust-analyzer's empty
                // list): once it has, the same text is sent again as a new version, whose
                // diagnostics are then the loaded server's.
                if self.server.wait_ready(Duration::ZERO) {
                    match self.resend(path) {
                        Ok(version) => current = version,
                        Err(error) => {
                            let reason = crate::server::kept_private(&error.to_string());
                            return ServerDiagnostics::unavailable(&Unavailable::new(self.language(), reason));
                        }
                    }
                    continue;
                }
            }
            if let Some(broken) = self.server.broken() {
                return stopped(&broken);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                let waited_ms = millis(started.elapsed());
                let last_version = published.as_ref().and_then(|published| published.version);
                let freshness = Freshness::TimedOut { waited_ms, limit_ms: millis(wait), last_version };
                return match &published {
                    Some(published) => shown_published(freshness, published),
                    None => shown(freshness, &[]),
                };
            }
            self.server.wait_published(path, left.min(Duration::from_millis(200)));
        }
    }

    /// rust-analyzer's diagnostics, pulled (`textDocument/diagnostic`) once it has loaded the
    /// workspace: the answer reflects every change sent before the request, so it is for the
    /// version just sent. A "content modified" or "server cancelled" answer is asked again
    /// within the wait.
    fn pulled_diagnostics(&self, path: &Path, current: i32, started: Instant, wait: Duration) -> ServerDiagnostics {
        let timed_out = || {
            let freshness = Freshness::TimedOut {
                waited_ms: millis(started.elapsed()),
                limit_ms: millis(wait),
                last_version: None,
            };
            shown(freshness, &[])
        };
        if !self.server.wait_ready(wait) {
            return timed_out();
        }
        let Ok(uri) = crate::uri::path_to_uri(path) else { return timed_out() };
        loop {
            let left = wait.saturating_sub(started.elapsed());
            if left.is_zero() {
                return timed_out();
            }
            let params = serde_json::json!({"textDocument": {"uri": uri.as_str()}});
            match self.server.connection().request("textDocument/diagnostic", params, left) {
                Ok(answer) => return pulled(&answer, current),
                Err(RpcError::Server { code: -32801 | -32802, .. }) => std::thread::sleep(Duration::from_millis(50)),
                Err(RpcError::TimedOut { .. }) => return timed_out(),
                Err(error) => {
                    let unavailable =
                        Unavailable::new(self.language(), crate::server::kept_private(&error.to_string()));
                    return ServerDiagnostics::unavailable(&unavailable);
                }
            }
        }
    }

    /// typescript-language-server publishes no versions, so its diagnostics are asked of
    /// tsserver directly: tsserver answers in the order it got the messages, so the answer
    /// after the change is for the version just sent.
    fn typescript_diagnostics(&self, path: &Path, current: i32, started: Instant, wait: Duration) -> ServerDiagnostics {
        let mut found = Vec::new();
        let mut unreadable = 0_usize;
        for command in ["syntacticDiagnosticsSync", "semanticDiagnosticsSync"] {
            let Ok(uri) = crate::uri::path_to_uri(path) else { break };
            let params = serde_json::json!({"command": "typescript.tsserverRequest", "arguments": [command, {"file": uri.as_str()}]});
            let left = wait.saturating_sub(started.elapsed());
            match self.server.connection().request("workspace/executeCommand", params, left) {
                Ok(answer) => match tsserver_body(&answer, command) {
                    Ok(body) => {
                        let before = found.len();
                        found.extend(body.iter().filter_map(tsserver_diagnostic));
                        let read = found.len().saturating_sub(before);
                        unreadable = unreadable.saturating_add(body.len().saturating_sub(read));
                    }
                    Err(reason) => return not_read(reason),
                },
                Err(RpcError::TimedOut { .. }) => {
                    let freshness = Freshness::TimedOut {
                        waited_ms: millis(started.elapsed()),
                        limit_ms: millis(wait),
                        last_version: None,
                    };
                    return shown(freshness, &[]);
                }
                Err(error) => {
                    let unavailable = Unavailable::new(self.language(), error.to_string());
                    return ServerDiagnostics::unavailable(&unavailable);
                }
            }
        }
        let mut answer = shown(Freshness::Fresh { version: current }, &found);
        answer.omitted = answer.omitted.saturating_add(unreadable);
        answer
    }

    /// The diagnostics the server last published for `path`, without waiting: `fresh` only
    /// when they are for the version last sent, else `stale`.
    #[must_use]
    pub fn peek_diagnostics(&self, path: &Path) -> Option<ServerDiagnostics> {
        let current = self.version(path)?;
        let published = self.server.published(path)?;
        let freshness = match published.version {
            Some(version) if version == current && published.loaded => Freshness::Fresh { version },
            version => Freshness::Stale { version, current },
        };
        Some(shown_published(freshness, &published))
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn shown(freshness: Freshness, diagnostics: &[lsp_types::Diagnostic]) -> ServerDiagnostics {
    let kept = diagnostics
        .iter()
        .take(MAX_DIAGNOSTICS)
        .map(|diagnostic| Diagnostic {
            line: diagnostic.range.start.line.saturating_add(1),
            column: diagnostic.range.start.character.saturating_add(1),
            severity: match diagnostic.severity {
                Some(lsp_types::DiagnosticSeverity::WARNING) => "warning",
                Some(lsp_types::DiagnosticSeverity::INFORMATION) => "information",
                Some(lsp_types::DiagnosticSeverity::HINT) => "hint",
                _ => "error",
            },
            message: crate::clean(&diagnostic.message, MAX_MESSAGE_CHARS, true),
            source: diagnostic.source.as_deref().map(|source| crate::clean(source, MAX_SOURCE_CHARS, false)),
        })
        .collect();
    ServerDiagnostics { freshness, diagnostics: kept, omitted: diagnostics.len().saturating_sub(MAX_DIAGNOSTICS) }
}

/// What a server sent, shown with `freshness`: its items that could not be read counted in
/// `omitted`; a list that could not be read at all is no answer (`unavailable`).
fn shown_published(freshness: Freshness, published: &crate::server::Published) -> ServerDiagnostics {
    if let Some(reason) = &published.malformed {
        return not_read(reason.clone());
    }
    let mut answer = shown(freshness, &published.diagnostics);
    answer.omitted = answer.omitted.saturating_add(published.unreadable);
    answer
}

/// A `textDocument/diagnostic` answer (a full report; editkit names no earlier result, so an
/// `unchanged` report has nothing to stand on) for `current`.
fn pulled(answer: &serde_json::Value, current: i32) -> ServerDiagnostics {
    if answer.get("kind").and_then(serde_json::Value::as_str) == Some("unchanged") {
        return not_read("the server answered `unchanged` though editkit named no earlier result".to_owned());
    }
    match crate::server::read_diagnostics(answer.get("items")) {
        Ok((found, unreadable)) => {
            let mut answer = shown(Freshness::Fresh { version: current }, &found);
            answer.omitted = answer.omitted.saturating_add(unreadable);
            answer
        }
        Err(reason) => not_read(reason),
    }
}

/// tsserver's list for `command`, or why there is none (`success: false`, no list).
fn tsserver_body<'a>(answer: &'a serde_json::Value, command: &str) -> Result<&'a Vec<serde_json::Value>, String> {
    if answer.get("success").and_then(serde_json::Value::as_bool) == Some(false) {
        let message = answer.get("message").and_then(serde_json::Value::as_str).unwrap_or("no message");
        return Err(format!(
            "tsserver did not answer `{command}`: {}",
            crate::clean(message, MAX_MESSAGE_CHARS, false)
        ));
    }
    answer
        .get("body")
        .and_then(serde_json::Value::as_array)
        .ok_or_else(|| format!("tsserver sent no list for `{command}`"))
}

/// No answer to show: the server's list could not be read (`reason`). Its install hint is
/// empty: the server was found and runs.
fn not_read(reason: String) -> ServerDiagnostics {
    ServerDiagnostics {
        freshness: Freshness::Unavailable { reason, install: String::new() },
        diagnostics: Vec::new(),
        omitted: 0,
    }
}

/// The server stopped (`broken` says how) while editkit waited: no install hint, it was found.
fn stopped(broken: &str) -> ServerDiagnostics {
    not_read(crate::server::kept_private(&format!(
        "the language server stopped while editkit waited for its diagnostics ({broken}); the next call starts it again unless it stopped too often"
    )))
}

/// One diagnostic of tsserver's own shape (1-based line and UTF-16 offset) in the protocol's.
fn tsserver_diagnostic(value: &serde_json::Value) -> Option<lsp_types::Diagnostic> {
    let at = |key: &str| -> Option<lsp_types::Position> {
        let point = value.get(key)?;
        let line = u32::try_from(point.get("line")?.as_u64()?).ok()?.checked_sub(1)?;
        let character = u32::try_from(point.get("offset")?.as_u64()?).ok()?.checked_sub(1)?;
        Some(lsp_types::Position { line, character })
    };
    let severity = match value.get("category").and_then(serde_json::Value::as_str) {
        Some("warning") => lsp_types::DiagnosticSeverity::WARNING,
        Some("suggestion") => lsp_types::DiagnosticSeverity::HINT,
        Some("message") => lsp_types::DiagnosticSeverity::INFORMATION,
        _ => lsp_types::DiagnosticSeverity::ERROR,
    };
    Some(lsp_types::Diagnostic {
        range: lsp_types::Range { start: at("start")?, end: at("end")? },
        severity: Some(severity),
        message: value.get("text")?.as_str()?.to_owned(),
        source: Some("ts".to_owned()),
        ..lsp_types::Diagnostic::default()
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Freshness, pulled};

    /// rust-analyzer's pulled report: one odd item hides none of the others; a report with
    /// no list, or `unchanged` (editkit names no earlier result), is never `fresh` and clean.
    #[test]
    fn a_pulled_report_keeps_what_it_can_read_and_never_passes_off_nothing() {
        let good = json!({"range": {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 1}},
            "severity": 1, "message": "REAL ERROR"});
        let odd = json!({"range": "here", "message": "odd"});
        let answer = pulled(&json!({"kind": "full", "items": [good, odd]}), 3);
        assert_eq!(answer.freshness, Freshness::Fresh { version: 3 });
        assert_eq!((answer.diagnostics.len(), answer.diagnostics[0].line, answer.omitted), (1, 3, 1));
        for report in [json!({"kind": "unchanged", "resultId": "1"}), json!({"kind": "full"}), json!({"items": 5})] {
            let answer = pulled(&report, 3);
            assert!(matches!(answer.freshness, Freshness::Unavailable { .. }), "{report}: {answer:?}");
        }
    }
}
