//! The post-write hook: after a write through the toolkit, the written file's diagnostics
//! from its language server, with a state that is never silent
//! ([`crate::LanguageServerOptions::after_writes`]). It runs in the common post-write stage
//! ([`Toolkit::after_write`]), so every write path gets it; a failure never fails the write,
//! which has landed: it is the `unavailable` state.

use std::path::Path;

use editkit_lsp::{Freshness, Language, ServerDiagnostics};
use editkit_vfs::Workspace;

use crate::error::Error;
use crate::lsp_tools::ServedFile;
use crate::toolkit::Toolkit;
use crate::types::{ServerDiagnosticInfo, ServerDiagnosticsInfo};

/// The largest text the hook sends to a server, in bytes: a larger written file gets the
/// `unavailable` state.
pub const MAX_HOOK_TEXT_BYTES: usize = 8 * 1024 * 1024;

impl Toolkit {
    /// How many language servers this toolkit runs now (none before a code-intel tool or the
    /// post-write hook needed one).
    #[must_use]
    pub fn language_servers_running(&self) -> usize {
        self.lsp.running()
    }

    /// The language server's diagnostics of `rel` (in `workspace`) now holding `text`: `None`
    /// when the hook is off or editkit runs no server for the file's kind. Starts the server
    /// when none runs, sends it `text` and waits at most the language's diagnostics wait.
    pub(crate) fn server_after_write(
        &self,
        workspace: &Workspace,
        rel: &str,
        text: &str,
    ) -> Option<ServerDiagnosticsInfo> {
        let options = &self.options().language_servers;
        if !options.after_writes || self.after_writes_off.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        let language = Language::of_path(Path::new(rel))?;
        if !options.enabled {
            return Some(unavailable(&crate::lsp_tools::servers_off(language)));
        }
        if text.len() > MAX_HOOK_TEXT_BYTES {
            let reason = format!(
                "the file has {} bytes; the post-write hook sends at most {MAX_HOOK_TEXT_BYTES} (MAX_HOOK_TEXT_BYTES)",
                text.len()
            );
            return Some(unavailable(&Error::Unavailable {
                language: language.as_str().to_owned(),
                reason,
                install: None,
            }));
        }
        let root = self.workspaces().iter().position(|candidate| std::ptr::eq(candidate, workspace)).unwrap_or(0);
        let file = ServedFile { root, rel: rel.to_owned(), absolute: workspace.root_path().join(rel), language };
        let session = match self.session_for(&file) {
            Ok(session) => session,
            Err(error) => return Some(unavailable(&error)),
        };
        // The server gets the text as the vfs decodes it (LF endings, no BOM), as the
        // code-intel tools send it, so both speak of one version.
        let decoded = match text.contains('\r') || text.starts_with('\u{feff}') {
            true => editkit_vfs::Text::decode(text.as_bytes()).map(editkit_vfs::Text::into_string).ok(),
            false => None,
        };
        let answer = session.diagnostics(
            &file.absolute,
            decoded.as_deref().unwrap_or(text),
            options.diagnostics_wait.of(language),
        );
        Some(info(&answer))
    }
}

/// The `unavailable` state for `error` (its reason and what to install, never a server's
/// own output).
fn unavailable(error: &Error) -> ServerDiagnosticsInfo {
    let (reason, install) = match error {
        Error::Unavailable { reason, install, .. } => (reason.clone(), install.clone()),
        other => (other.message(), None),
    };
    ServerDiagnosticsInfo {
        state: "unavailable".to_owned(),
        version: None,
        current: None,
        waited_ms: None,
        limit_ms: None,
        last_version: None,
        reason: Some(reason),
        install,
        diagnostics: Vec::new(),
        omitted: 0,
    }
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
