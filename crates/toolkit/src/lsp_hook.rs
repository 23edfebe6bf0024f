//! The post-write hook: after a write through the toolkit, the written file's diagnostics
//! from its language server, with a state that is never silent
//! ([`crate::LanguageServerOptions::after_writes`]). It runs in the common post-write stage
//! ([`Toolkit::after_write`]), so every write path gets it; a failure never fails the write,
//! which has landed: it is the `unavailable` state.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use editkit_lsp::{Freshness, Language, ServerDiagnostics, Session};
use editkit_vfs::Workspace;

use crate::error::Error;
use crate::toolkit::Toolkit;
use crate::types::{ServerDiagnosticInfo, ServerDiagnosticsInfo};

/// The largest text the hook sends to a server, in bytes: a larger written file gets the
/// `unavailable` state.
pub const MAX_HOOK_TEXT_BYTES: usize = 8 * 1024 * 1024;

/// The most files one write call's hook asks a server about; the others get `unavailable`
/// naming this bound.
pub const MAX_HOOK_FILES: usize = 16;

/// The most server diagnostics shown for one written file; the rest are counted in
/// `omitted`.
pub const MAX_HOOK_DIAGNOSTICS: usize = 50;

/// The most bytes of server diagnostics (messages and sources) one write call's result
/// carries, over all its files; the rest are counted in `omitted`.
pub const MAX_HOOK_DIAGNOSTIC_BYTES: usize = 256 * 1024;

impl Toolkit {
    /// How many language servers this toolkit runs now (none before a code-intel tool or the
    /// post-write hook needed one).
    #[must_use]
    pub fn language_servers_running(&self) -> usize {
        self.lsp.running()
    }

    /// The language server's diagnostics of `rel` (in `workspace`), just written: `None`
    /// when the hook is off or editkit runs no server for the file's kind. As
    /// [`Toolkit::server_after_writes`] for one file.
    pub(crate) fn server_after_write(&self, workspace: &Workspace, rel: &str) -> Option<ServerDiagnosticsInfo> {
        self.server_after_writes(workspace, &[rel]).pop().flatten()
    }

    /// The language servers' diagnostics of `files`, written by one call, run once the
    /// write has landed: each file's text is read back as finally written (a formatter's
    /// output; a newer write's), so the server is never told a text that is not on disk.
    /// One answer per file (`None`: the hook is off, or no server
    /// for its kind). One deadline for the whole call (the longest diagnostics wait among
    /// the files' languages): every text is sent first, then the answers are waited for
    /// together. A server not running is started on a thread of its own and answers
    /// `unavailable` ("starting") when it has not answered by the deadline. At most
    /// [`MAX_HOOK_FILES`] files are asked about, and the diagnostics shown are bounded per
    /// file ([`MAX_HOOK_DIAGNOSTICS`]) and per call ([`MAX_HOOK_DIAGNOSTIC_BYTES`]).
    pub(crate) fn server_after_writes(
        &self,
        workspace: &Workspace,
        rels: &[&str],
    ) -> Vec<Option<ServerDiagnosticsInfo>> {
        let files: Vec<HookFile<'_>> = rels.iter().map(|rel| HookFile { workspace, rel }).collect();
        let options = &self.options().language_servers;
        let mut answers: Vec<Option<ServerDiagnosticsInfo>> = vec![None; files.len()];
        if !options.after_writes || self.after_writes_off.load(std::sync::atomic::Ordering::Relaxed) {
            return answers;
        }
        let languages: Vec<Option<Language>> =
            files.iter().map(|file| Language::of_path(Path::new(file.rel))).collect();
        let wait = languages.iter().flatten().map(|language| options.diagnostics_wait.of(*language)).max();
        let began = Instant::now();
        let wait = wait.unwrap_or_default();
        let deadline = began + wait;
        let roots = editkit_run::Roots::new(&self.root_paths());
        // (file index, session, decoded text) of the files sent.
        let mut sent: Vec<(usize, Arc<Session>, String)> = Vec::new();
        let mut asked = 0_usize;
        for (index, (file, language)) in files.iter().zip(&languages).enumerate() {
            let Some(language) = *language else { continue };
            asked += 1;
            let refused = if asked > MAX_HOOK_FILES {
                Some(not_asked(language))
            } else if !options.enabled {
                Some(crate::lsp_tools::servers_off(language))
            } else {
                None
            };
            if let Some(error) = refused {
                answers[index] = Some(unavailable(&error));
                continue;
            }
            let text = match read_back(file) {
                Ok(text) => text,
                Err(reason) => {
                    let error = Error::Unavailable { language: language.as_str().to_owned(), reason, install: None };
                    answers[index] = Some(unavailable(&error));
                    continue;
                }
            };
            let root = file.workspace.root_path();
            let session = match self.lsp.session_by(language, root, &roots, deadline) {
                Ok(session) => session,
                Err(failed) => {
                    let starting = failed.reason.starts_with("starting");
                    let mut error = Error::from(failed);
                    if starting && let Error::Unavailable { install, .. } = &mut error {
                        *install = None;
                    }
                    answers[index] = Some(unavailable(&error));
                    continue;
                }
            };
            let path = file.workspace.root_path().join(file.rel);
            if session.sync(&path, &text).is_err() {
                let error = Error::Unavailable {
                    language: language.as_str().to_owned(),
                    reason: "the server stopped before it got the text".to_owned(),
                    install: None,
                };
                answers[index] = Some(unavailable(&error));
                continue;
            }
            sent.push((index, session, text));
        }
        let mut budget = MAX_HOOK_DIAGNOSTIC_BYTES;
        for (index, session, text) in sent {
            let path = files[index].workspace.root_path().join(files[index].rel);
            let left = deadline.saturating_duration_since(Instant::now());
            let answer = session.diagnostics(&path, &text, left);
            let mut shown = bounded(info(&answer), &mut budget);
            if shown.state == "timed_out" {
                // The call's one wait, and how long the write waited for it.
                shown.waited_ms = Some(u64::try_from(began.elapsed().as_millis()).unwrap_or(u64::MAX));
                shown.limit_ms = Some(u64::try_from(wait.as_millis()).unwrap_or(u64::MAX));
            }
            answers[index] = Some(shown);
        }
        answers
    }
}

/// A file one call wrote, for [`Toolkit::server_after_writes`].
struct HookFile<'a> {
    /// Its workspace.
    workspace: &'a Workspace,
    /// Its canonical path in the workspace.
    rel: &'a str,
}

/// `file`'s text as it is now on disk, as the vfs decodes it (LF endings, no BOM): the text
/// the code-intel tools send too, so both speak of one version.
fn read_back(file: &HookFile<'_>) -> Result<String, String> {
    let workspace = file.workspace;
    let size = std::fs::metadata(workspace.root_path().join(file.rel)).map(|meta| meta.len()).unwrap_or(0);
    if size > MAX_HOOK_TEXT_BYTES as u64 {
        return Err(format!(
            "the file has {size} bytes; the post-write hook sends at most {MAX_HOOK_TEXT_BYTES} (MAX_HOOK_TEXT_BYTES)"
        ));
    }
    let bytes = workspace
        .canonical_recorded(file.rel)
        .and_then(|path| workspace.txn().read(&path))
        .ok()
        .flatten()
        .ok_or_else(|| "the written file could not be read back".to_owned())?;
    if bytes.len() > MAX_HOOK_TEXT_BYTES {
        return Err(format!(
            "the file has {} bytes; the post-write hook sends at most {MAX_HOOK_TEXT_BYTES} (MAX_HOOK_TEXT_BYTES)",
            bytes.len()
        ));
    }
    editkit_vfs::Text::decode_owned(bytes)
        .map(editkit_vfs::Text::into_string)
        .map_err(|_| "the written file is not text the server can be sent".to_owned())
}

/// The answer for a file past [`MAX_HOOK_FILES`].
fn not_asked(language: Language) -> Error {
    Error::Unavailable {
        language: language.as_str().to_owned(),
        reason: format!(
            "not asked: the post-write hook asks the server about at most {MAX_HOOK_FILES} files per write (MAX_HOOK_FILES); call `diagnostics` for this file"
        ),
        install: None,
    }
}

/// `info` with at most [`MAX_HOOK_DIAGNOSTICS`] diagnostics, and only as many bytes of them
/// as `budget` has left (taken from it); the rest counted in `omitted`.
fn bounded(mut info: ServerDiagnosticsInfo, budget: &mut usize) -> ServerDiagnosticsInfo {
    let mut kept = 0;
    for diagnostic in &info.diagnostics {
        let size = 64 + diagnostic.message.len() + diagnostic.source.as_ref().map_or(0, String::len);
        if kept >= MAX_HOOK_DIAGNOSTICS || size > *budget {
            break;
        }
        *budget -= size;
        kept += 1;
    }
    info.omitted += info.diagnostics.len() - kept;
    info.diagnostics.truncate(kept);
    info
}

/// The `unavailable` state for `error` (its reason and what to install, never a server's
/// own output).
fn unavailable(error: &Error) -> ServerDiagnosticsInfo {
    let (reason, install) = match error {
        Error::Unavailable { reason, install, .. } => (reason.clone(), install.clone()),
        other => (other.message(), None),
    };
    ServerDiagnosticsInfo::unavailable(reason, install)
}

/// The client's answer in the result's shape.
pub(crate) fn info(answer: &ServerDiagnostics) -> ServerDiagnosticsInfo {
    let mut out = ServerDiagnosticsInfo {
        state: String::new(),
        version: None,
        current: None,
        waited_ms: None,
        limit_ms: None,
        last_version: None,
        reason: None,
        install: None,
        diagnostics: answer
            .diagnostics
            .iter()
            .map(|diagnostic| ServerDiagnosticInfo {
                line: diagnostic.line,
                column: diagnostic.column,
                severity: diagnostic.severity.to_owned(),
                message: diagnostic.message.clone(),
                source: diagnostic.source.clone(),
            })
            .collect(),
        omitted: answer.omitted,
    };
    out.state = match &answer.freshness {
        Freshness::Fresh { version } => {
            out.version = Some(*version);
            "fresh"
        }
        Freshness::Stale { version, current } => {
            out.version = *version;
            out.current = Some(*current);
            "stale"
        }
        Freshness::TimedOut { waited_ms, limit_ms, last_version } => {
            out.waited_ms = Some(*waited_ms);
            out.limit_ms = Some(*limit_ms);
            out.last_version = *last_version;
            "timed_out"
        }
        Freshness::Unavailable { reason, install } => {
            out.reason = Some(reason.clone());
            out.install = Some(install.clone());
            "unavailable"
        }
        // A state the client adds later is shown as unavailable, never as fresh.
        _ => {
            out.reason = Some("the language server's answer has a state this editkit does not know".to_owned());
            "unavailable"
        }
    }
    .to_owned();
    out
}
