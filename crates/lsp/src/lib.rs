//! A language-server client for editkit: the protocol's framing with every size bounded, one
//! connection per server with deadlines on every request, positions mapped onto byte offsets,
//! and a rename's edit checked before anything is applied.
//!
//! Reach first for [`Connection`] (requests, notifications and the fixed answers to the
//! server's own requests over a server's stdio), [`LineIndex`] (positions ↔ byte offsets) and
//! [`rename_edits`] (a rename's `WorkspaceEdit` → checked byte edits per file).
//!
//! ```
//! use std::time::Duration;
//! use editkit_lsp::{Answers, Connection, Encoding, LineIndex, RpcError, framing};
//! use lsp_types::Position;
//!
//! // Positions count UTF-16 units unless the server chose UTF-8; CRLF ends a line.
//! let index = LineIndex::new("a😀b\r\nc");
//! assert_eq!(index.offset(Position { line: 0, character: 3 }, Encoding::Utf16), Some(5));
//! assert_eq!(index.position(8, Encoding::Utf8), Some(Position { line: 1, character: 0 }));
//!
//! // A "server" that sends garbage: the connection ends and every request says why.
//! let reply = b"Content-Length: 5\r\n\r\nhello".to_vec();
//! let connection = Connection::new(std::io::Cursor::new(reply), std::io::sink(), Answers::default(), Box::new(|| {}));
//! let answer = connection.request("initialize", serde_json::json!({}), Duration::from_secs(10));
//! assert!(matches!(answer, Err(RpcError::Unavailable { .. })));
//!
//! // The framing refuses a body larger than the limit before allocating it.
//! let huge = b"Content-Length: 999999999999\r\n\r\n";
//! assert!(framing::read_message(&mut &huge[..], framing::MAX_MESSAGE_BYTES).is_err());
//! ```
//!
//! # Security
//! A language server is a program that reads the whole repository; editkit runs only servers
//! found outside every workspace root, confined like its other external tools, and treats
//! everything a server sends as hostile input: sizes are checked before memory is spent, a
//! server that breaks the protocol is stopped, and it never gets to write (`applyEdit` is
//! refused).

#![deny(missing_docs)]

mod edit;
pub mod framing;
mod pool;
mod position;
mod project;
mod rpc;
mod server;
mod session;
mod spec;
mod uri;

pub use edit::{
    ByteEdit, EditError, FileEdit, MAX_RENAME_EDITS, MAX_RENAME_FILES, SentText, edit_files, rename_edits, same_edits,
};
pub use pool::{Pool, PoolOptions, START_BACKOFF};
pub use position::{Encoding, LineIndex, Place};
pub use rpc::{
    Answers, Connection, MAX_ANSWER_BYTES, MAX_CONFIGURATION_ITEMS, MAX_DIAGNOSTICS_BODY, MAX_LIST_ANSWER_BYTES,
    MAX_NOTIFICATION_BODY, MAX_NOTIFICATION_BYTES, MAX_NOTIFICATIONS, MAX_OUTGOING, MAX_PENDING,
    MAX_RENAME_ANSWER_BYTES, Notification, RpcError, WRITE_WAIT, answer_limit,
};
pub use server::{MAX_STDERR_BYTES, MAX_SYMBOL_NAME_CHARS, MAX_SYMBOLS, Published, Server, Symbol};
pub use session::{
    Diagnostic, Freshness, MAX_CLOSED_VERSIONS, MAX_DIAGNOSTICS, MAX_MESSAGE_CHARS, MAX_OPEN_DOCUMENTS,
    MAX_SENT_TEXT_BYTES, MAX_SOURCE_CHARS, ServerDiagnostics, Session,
};
pub use spec::{Language, Unavailable};
pub use uri::{path_to_uri, uri_to_path};

pub use lsp_types;

/// `text` fit to show: at most `max_chars` characters (a cut one ends in `…`), every control
/// character (C0 but `\n` and `\t` when `keep_lines`, DEL, C1) and every bidirectional
/// override or isolate written as `\u{..}`, so nothing a server says moves a terminal's
/// cursor, sets its clipboard or reorders what is shown.
pub(crate) fn clean(text: &str, max_chars: usize, keep_lines: bool) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars.saturating_mul(4)));
    for (count, ch) in text.chars().enumerate() {
        if count >= max_chars {
            out.push('…');
            break;
        }
        let bidi = matches!(ch, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if (ch.is_control() && !(keep_lines && matches!(ch, '\n' | '\t'))) || bidi {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(ch)));
        } else {
            out.push(ch);
        }
    }
    out
}

/// A path from a server's URI, fit to show (see [`clean`]).
pub(crate) fn shown_path(path: &std::path::Path) -> String {
    clean(&path.to_string_lossy(), 1_000, false)
}

/// `mutex`'s guard, also when a thread panicked while holding it: every value kept behind a
/// mutex here stays valid between statements, so a panic elsewhere never leaves it half made.
pub(crate) fn lock<T: ?Sized>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Waits on `condvar` for at most `wait`, taking the guard back as [`lock`] does.
pub(crate) fn wait<'a, T>(
    condvar: &std::sync::Condvar,
    guard: std::sync::MutexGuard<'a, T>,
    wait: std::time::Duration,
) -> std::sync::MutexGuard<'a, T> {
    condvar.wait_timeout(guard, wait).unwrap_or_else(std::sync::PoisonError::into_inner).0
}
