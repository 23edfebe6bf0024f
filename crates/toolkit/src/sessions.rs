//! Editor sessions: in-memory buffers bounded in number and in bytes. When a bound is passed,
//! the least recently used sessions are closed (evicted); a later call on one of them is told
//! so, with the file to load again.

use std::collections::{HashMap, VecDeque};

use editkit_vfs::Text;

use crate::error::{Error, Result};

/// Default for [`crate::ToolkitOptions::max_sessions`].
pub const DEFAULT_MAX_SESSIONS: usize = 16;
/// Default for [`crate::ToolkitOptions::max_session_bytes`]: 128 MiB.
pub const DEFAULT_MAX_SESSION_BYTES: u64 = 128 << 20;
/// Evicted session ids remembered, so that a call on one says it was evicted.
const EVICTED_REMEMBERED: usize = 4096;

/// How much the open editor sessions hold, as the toolkit accounts it: each session counts the
/// bytes of its buffer plus those of the text it was loaded (or last stored) with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionUsage {
    /// Open sessions.
    pub sessions: usize,
    /// Bytes held by them.
    pub bytes: u64,
    /// The bound on `sessions` ([`crate::ToolkitOptions::max_sessions`]).
    pub max_sessions: usize,
    /// The bound on `bytes` ([`crate::ToolkitOptions::max_session_bytes`]).
    pub max_bytes: u64,
    /// Sessions evicted so far to stay within the bounds.
    pub evicted: u64,
}

/// An in-memory editor buffer.
#[derive(Debug, Clone)]
pub(crate) struct Session {
    pub(crate) root: usize,
    pub(crate) path: String,
    pub(crate) buffer: Text,
    pub(crate) loaded: Text,
    pub(crate) sha256: editkit_vfs::Sha256,
    last_used: u64,
}

impl Session {
    pub(crate) fn new(root: usize, path: String, sha256: editkit_vfs::Sha256, loaded: Text) -> Session {
        Session { root, path, sha256, buffer: loaded.clone(), loaded, last_used: 0 }
    }

    fn bytes(&self) -> u64 {
        cost(self.buffer.as_str().len(), self.loaded.as_str().len())
    }
}

/// The accounted size of a session holding a buffer and a loaded text of these lengths.
pub(crate) fn cost(buffer: usize, loaded: usize) -> u64 {
    (buffer as u64).saturating_add(loaded as u64)
}

/// Refuses a session that would hold more than `max_bytes` on its own.
pub(crate) fn check_fits(path: &str, bytes: u64, max_bytes: u64) -> Result<()> {
    if bytes <= max_bytes {
        return Ok(());
    }
    Err(Error::LimitExceeded {
        what: format!("an editor session of `{path}` (its buffer plus the text it was loaded with)"),
        size: bytes,
        limit: max_bytes,
        // The contract's word for the bound, kept as agents have seen it (the Rust option is
        // `ToolkitOptions::max_session_bytes`).
        option: "Options::max_session_bytes".into(),
        advice: "edit the file with edit_file or apply_patch instead, or ask the operator for a larger limit".into(),
    })
}

#[derive(Debug)]
struct Evicted {
    path: String,
    unstored: bool,
}

/// The open sessions and the bounds they live within.
#[derive(Debug)]
pub(crate) struct Sessions {
    live: HashMap<String, Session>,
    evicted: HashMap<String, Evicted>,
    evicted_order: VecDeque<String>,
    evicted_total: u64,
    clock: u64,
    bytes: u64,
    max_sessions: usize,
    max_bytes: u64,
}

impl Sessions {
    pub(crate) fn new(max_sessions: usize, max_bytes: u64) -> Sessions {
        Sessions {
            live: HashMap::new(),
            evicted: HashMap::new(),
            evicted_order: VecDeque::new(),
            evicted_total: 0,
            clock: 0,
            bytes: 0,
            max_sessions: max_sessions.max(1),
            max_bytes,
        }
    }

    pub(crate) fn usage(&self) -> SessionUsage {
        SessionUsage {
            sessions: self.live.len(),
            bytes: self.bytes,
            max_sessions: self.max_sessions,
            max_bytes: self.max_bytes,
            evicted: self.evicted_total,
        }
    }

    /// Opens a session under `id`, evicting the least recently used others if the bounds
    /// are passed.
    pub(crate) fn insert(&mut self, id: String, mut session: Session) -> Result<()> {
        check_fits(&session.path, session.bytes(), self.max_bytes)?;
        self.clock += 1;
        session.last_used = self.clock;
        self.bytes = self.bytes.saturating_add(session.bytes());
        self.live.insert(id.clone(), session);
        self.evict_beyond_bounds(&id);
        Ok(())
    }

    /// Runs `f` on session `id`, marking it used; its size is accounted again afterwards.
    pub(crate) fn with<T>(&mut self, id: &str, f: impl FnOnce(&mut Session) -> Result<T>) -> Result<T> {
        self.clock += 1;
        let clock = self.clock;
        let session = match self.live.get_mut(id) {
            Some(session) => session,
            None => return Err(self.missing(id)),
        };
        session.last_used = clock;
        let before = session.bytes();
        let result = f(session);
        let after = session.bytes();
        self.bytes = self.bytes.saturating_sub(before).saturating_add(after);
        self.evict_beyond_bounds(id);
        result
    }

    /// Closes session `id`.
    pub(crate) fn remove(&mut self, id: &str) -> Result<Session> {
        match self.live.remove(id) {
            Some(session) => {
                self.bytes = self.bytes.saturating_sub(session.bytes());
                Ok(session)
            }
            None => Err(self.missing(id)),
        }
    }

    /// The error for an id that is not open: evicted, or never opened (or closed).
    fn missing(&self, id: &str) -> Error {
        match self.evicted.get(id) {
            Some(evicted) => Error::SessionEvicted {
                id: id.to_owned(),
                path: evicted.path.clone(),
                unstored: evicted.unstored,
                limits: format!("{} sessions, {} bytes", self.max_sessions, self.max_bytes),
            },
            None => Error::NoSession { id: id.to_owned() },
        }
    }

    /// Closes the least recently used sessions other than `keep` while a bound is passed.
    fn evict_beyond_bounds(&mut self, keep: &str) {
        while self.live.len() > self.max_sessions || self.bytes > self.max_bytes {
            let oldest = self
                .live
                .iter()
                .filter(|(id, _)| id.as_str() != keep)
                .min_by_key(|(_, session)| session.last_used)
                .map(|(id, _)| id.clone());
            let Some(oldest) = oldest else { break };
            let Some(session) = self.live.remove(&oldest) else { break };
            self.bytes = self.bytes.saturating_sub(session.bytes());
            self.evicted_total += 1;
            let unstored = session.buffer.as_str() != session.loaded.as_str();
            self.evicted.insert(oldest.clone(), Evicted { path: session.path, unstored });
            self.evicted_order.push_back(oldest);
            while self.evicted_order.len() > EVICTED_REMEMBERED {
                if let Some(forgotten) = self.evicted_order.pop_front() {
                    self.evicted.remove(&forgotten);
                }
            }
        }
    }
}
