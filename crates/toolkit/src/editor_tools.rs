//! Editor sessions: a file loaded into a buffer, edited in steps (`editor_write`,
//! `editor_edit`), diffed and stored once, under the staleness guard of the load. The store of
//! sessions and its bounds are `sessions.rs`'.

use std::sync::atomic::Ordering;

use editkit_matcher as matcher;
use editkit_matcher::diff;
use editkit_vfs::{Text, WriteOptions};

use crate::catalog::Tool;
use crate::error::Result;
use crate::sessions::{Session, SessionUsage, Sessions};
use crate::shared_sessions::{self as shared, After, Handle};
use crate::sync::LockExt;
use crate::toolkit::{Toolkit, line_window, splice_replaced};
use crate::types::*;

impl Toolkit {
    fn sessions(&self) -> std::sync::MutexGuard<'_, Sessions> {
        self.sessions.lock_unpoisoned()
    }

    /// Runs `f` on session `id`: an in-memory one, or one kept in the state folder (a handle
    /// [`Toolkit::share_editor_sessions`] minted), written back after `f` succeeds.
    fn session<T>(&self, id: &str, f: impl FnOnce(&mut Session) -> Result<T>) -> Result<T> {
        match Handle::parse(id) {
            Some(handle) => {
                shared::change(&self.roots, id, &handle, self.session_bounds(), |s| Ok((f(s)?, After::Keep)))
            }
            None => self.sessions().with(id, f),
        }
    }

    /// Runs `f` on session `id` without changing it.
    fn session_view<T>(&self, id: &str, f: impl FnOnce(&Session) -> Result<T>) -> Result<T> {
        match Handle::parse(id) {
            Some(handle) => shared::read(&self.roots, id, &handle, f),
            None => self.sessions().with(id, |s| f(s)),
        }
    }

    fn session_bounds(&self) -> (usize, u64) {
        (self.options.max_sessions, self.options.max_session_bytes)
    }

    /// From now on, `editor_load` opens each session in the state folder of the file's root
    /// and answers a handle (`e<128 random bits in hex>:<path>`) that any toolkit on the
    /// same state folder (another request, another process of the machine) can continue.
    /// Such sessions are bounded as the in-memory ones ([`ToolkitOptions::max_sessions`](crate::ToolkitOptions::max_sessions),
    /// [`ToolkitOptions::max_session_bytes`](crate::ToolkitOptions::max_session_bytes): the least recently changed are closed), last
    /// [`crate::SHARED_SESSION_MINUTES`] minutes after their last load, change or store,
    /// and a call on an expired or unknown handle is refused as `not_found` naming the file
    /// to load again. A call changing a session while another changes it is refused as
    /// `stale` (busy), so no edit is lost. For servers whose every request gets a toolkit of
    /// its own (MCP 2026-07-28 over stateless HTTP).
    ///
    /// ```
    /// # fn main() -> Result<(), editkit::Error> {
    /// use editkit::{EditorEditRequest, EditorLoadRequest, SessionRequest};
    /// let dir = tempfile::tempdir().unwrap();
    /// let state = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    /// let options = editkit::ToolkitOptions { state_home: Some(state.path().into()), ..Default::default() };
    /// let first = editkit::Toolkit::open(dir.path(), options.clone())?;
    /// first.share_editor_sessions();
    /// let handle = first.editor_load(EditorLoadRequest::new("a.txt"))?.session_id;
    /// let second = editkit::Toolkit::open(dir.path(), options)?;
    /// second.editor_edit(EditorEditRequest::new(handle.clone(), "one", "1"))?;
    /// first.editor_store(SessionRequest::new(handle))?;
    /// assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "1\n");
    /// # Ok(()) }
    /// ```
    pub fn share_editor_sessions(&self) {
        self.shared_sessions.store(true, Ordering::Relaxed);
    }

    /// How many editor sessions are open and how many bytes they hold, with the bounds
    /// ([`ToolkitOptions::max_sessions`](crate::ToolkitOptions::max_sessions), [`ToolkitOptions::max_session_bytes`](crate::ToolkitOptions::max_session_bytes)) and the number evicted.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    /// let toolkit = editkit::Toolkit::open(dir.path(), Default::default()).unwrap();
    /// toolkit.editor_load(editkit::EditorLoadRequest::new("a.txt")).unwrap();
    /// let usage = toolkit.session_usage();
    /// assert_eq!((usage.sessions, usage.bytes), (1, 8));
    /// ```
    #[must_use]
    pub fn session_usage(&self) -> SessionUsage {
        self.sessions().usage()
    }

    /// Loads a file into a new editor session (in memory, or in the state folder after
    /// [`Toolkit::share_editor_sessions`]).
    ///
    /// Sessions are bounded ([`ToolkitOptions::max_sessions`](crate::ToolkitOptions::max_sessions), [`ToolkitOptions::max_session_bytes`](crate::ToolkitOptions::max_session_bytes)): when
    /// a bound is passed, the least recently used sessions are evicted, and a later call on
    /// one is refused as `not_found` saying it was evicted and which file to load again.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit::Error> {
    /// use editkit::{EditorEditRequest, EditorLoadRequest, SessionRequest};
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
    /// let toolkit = editkit::Toolkit::open(dir.path(), Default::default())?;
    /// let session = toolkit.editor_load(EditorLoadRequest::new("a.txt"))?.session_id;
    /// for (old, new) in [("one", "1"), ("two", "2")] {
    ///     let edit = EditorEditRequest::new(session.clone(), old, new);
    ///     toolkit.editor_edit(edit)?;
    /// }
    /// toolkit.editor_store(SessionRequest::new(session))?;
    /// assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "1\n2\n");
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// Path and encoding errors; `too_large` for a file whose session alone would pass
    /// [`ToolkitOptions::max_session_bytes`](crate::ToolkitOptions::max_session_bytes).
    pub fn editor_load(&self, request: EditorLoadRequest) -> Result<EditorLoadResponse> {
        let (root, workspace) = self.route(&request.path);
        let file = workspace.read(&request.path)?;
        let (id, key) = if self.shared_sessions.load(Ordering::Relaxed) {
            let (id, key) = shared::mint(file.path())?;
            (id, Some(key))
        } else {
            (format!("s{}", self.next_session.fetch_add(1, Ordering::Relaxed)), None)
        };
        let response = EditorLoadResponse {
            session_id: id.clone(),
            path: file.path().to_owned(),
            line_count: file.line_count(),
            sha256: file.sha256(),
        };
        let size = file.text().len();
        crate::sessions::check_fits(file.path(), crate::sessions::cost(size, size), self.options.max_session_bytes)?;
        let session = Session::new(root, file.path().to_owned(), file.sha256(), file.into_decoded());
        match key {
            Some(key) => {
                shared::insert(workspace, &key, &session, self.options.max_sessions, self.options.max_session_bytes)?
            }
            None => self.sessions().insert(id, session)?,
        }
        Ok(response)
    }

    /// Reads a session's buffer (or a range of its lines).
    ///
    /// # Errors
    /// `not_found` for an unknown session.
    pub fn editor_read(&self, request: EditorReadRequest) -> Result<EditorReadResponse> {
        self.session_view(&request.session_id, |s| {
            let (content, _) = line_window(s.buffer.as_str(), request.offset, request.limit);
            Ok(EditorReadResponse {
                session_id: request.session_id.clone(),
                content,
                line_count: s.buffer.line_count(),
                modified: s.buffer.as_str() != s.loaded.as_str(),
            })
        })
    }

    /// Replaces a session's whole buffer.
    ///
    /// # Errors
    /// `not_found` for an unknown session.
    pub fn editor_write(&self, request: EditorWriteRequest) -> Result<EditorStateResponse> {
        self.session(&request.session_id, |s| {
            self.check_readable(&s.path, request.text.len())?;
            let size = crate::sessions::cost(request.text.len(), s.loaded.as_str().len());
            crate::sessions::check_fits(&s.path, size, self.options.max_session_bytes)?;
            s.buffer =
                Text::new(&request.text, s.loaded.dominant_ending(), s.loaded.bom()).in_encoding(s.loaded.encoding());
            Ok(EditorStateResponse {
                session_id: request.session_id.clone(),
                line_count: s.buffer.line_count(),
                replacements: 0,
                rung: None,
                modified: s.buffer.as_str() != s.loaded.as_str(),
            })
        })
    }

    /// Edits a session's buffer with the same ladder as edit_file.
    ///
    /// # Errors
    /// `not_found` for an unknown session or text; `ambiguous`, `no_change`...
    pub fn editor_edit(&self, request: EditorEditRequest) -> Result<EditorStateResponse> {
        self.session(&request.session_id, |s| {
            let replace = if request.replace_all { matcher::plan_replace_all } else { matcher::plan_replace };
            let replaced = replace(
                s.buffer.as_str(),
                &request.old_string,
                &request.new_string,
                &matcher::MatchOptions { strict: request.strict, limits: self.output_limits(), ..Default::default() },
            )
            .map_err(|source| self.edit_error(&s.path, source))?;
            let next = splice_replaced(&s.buffer, &replaced, "old")?;
            crate::sessions::check_fits(
                &s.path,
                crate::sessions::cost(next.as_str().len(), s.loaded.as_str().len()),
                self.options.max_session_bytes,
            )?;
            s.buffer = next;
            Ok(EditorStateResponse {
                session_id: request.session_id.clone(),
                line_count: s.buffer.line_count(),
                replacements: replaced.matches().len(),
                rung: Some(replaced.rung()),
                modified: s.buffer.as_str() != s.loaded.as_str(),
            })
        })
    }

    /// The diff between the file on disk now and a session's buffer.
    ///
    /// # Errors
    /// `not_found` for an unknown session; path and encoding errors.
    pub fn editor_diff(&self, request: SessionRequest) -> Result<GenerateDiffResponse> {
        let (root, path, buffer) =
            self.session_view(&request.session_id, |s| Ok((s.root, s.path.clone(), s.buffer.clone())))?;
        let workspace = &self.roots[root];
        let disk = match workspace.peek(&path) {
            Ok(file) => file.text().to_owned(),
            Err(editkit_vfs::Error::NotFound { .. }) => String::new(),
            Err(err) => return Err(err.into()),
        };
        let diff = crate::shown::diff_file(&path, &disk, buffer.as_str(), 3);
        let (additions, deletions) = diff::counts(&disk, buffer.as_str());
        Ok(GenerateDiffResponse { has_changes: disk != buffer.as_str(), diff, additions, deletions })
    }

    /// Writes a session's buffer to its file; refused if the file changed on disk since the
    /// session loaded it.
    ///
    /// # Errors
    /// `not_found` for an unknown session; `stale`; `not_encodable` for a buffer holding a
    /// character the file's encoding cannot hold; path errors.
    pub fn editor_store(&self, request: SessionRequest) -> Result<EditorStoreResponse> {
        self.admit(Tool::EditorStore, false)?;
        let id = request.session_id.clone();
        if let Some(handle) = Handle::parse(&id) {
            let (mut response, root) = shared::change(&self.roots, &id, &handle, self.session_bounds(), |s| {
                let workspace = &self.roots[s.root];
                let lock = workspace.lock(&s.path)?;
                let bytes = s.buffer.try_encoded().map_err(|err| crate::toolkit::unencodable(&s.path, err))?;
                let options = WriteOptions { expected_hash: Some(s.sha256), create_dirs: false, ..Default::default() };
                let written = self.write_kept(workspace, &lock, &bytes, &options, None)?.written;
                drop(lock);
                s.sha256 = written.sha256;
                s.loaded = s.buffer.clone();
                let response = EditorStoreResponse {
                    session_id: request.session_id,
                    path: s.path.clone(),
                    size_bytes: written.size,
                    sha256: written.sha256,
                    server_diagnostics: None,
                };
                Ok(((response, s.root), After::Keep))
            })?;
            // Asked of the server once the session is let go: it may wait seconds.
            response.server_diagnostics = self.server_after(&self.roots[root], &response.path);
            return Ok(response);
        }
        let (root, path, buffer, sha256) =
            self.session(&request.session_id, |s| Ok((s.root, s.path.clone(), s.buffer.clone(), s.sha256)))?;
        let workspace = &self.roots[root];
        let lock = workspace.lock(&path)?;
        let bytes = buffer.try_encoded().map_err(|err| crate::toolkit::unencodable(&path, err))?;
        let options = WriteOptions { expected_hash: Some(sha256), create_dirs: false, ..Default::default() };
        let written = self.write_kept(workspace, &lock, &bytes, &options, None)?.written;
        drop(lock);
        self.session(&request.session_id, |s| {
            s.sha256 = written.sha256;
            s.loaded = s.buffer.clone();
            Ok(())
        })?;
        let server_diagnostics = self.server_after(workspace, &path);
        Ok(EditorStoreResponse {
            session_id: request.session_id,
            path,
            size_bytes: written.size,
            sha256: written.sha256,
            server_diagnostics,
        })
    }

    /// Closes a session, discarding unstored changes.
    ///
    /// # Errors
    /// `not_found` for an unknown session.
    pub fn editor_clear(&self, request: SessionRequest) -> Result<EditorClearResponse> {
        let id = request.session_id.clone();
        if let Some(handle) = Handle::parse(&id) {
            return shared::change(&self.roots, &id, &handle, self.session_bounds(), |s| {
                let discarded_changes = s.buffer.as_str() != s.loaded.as_str();
                Ok((EditorClearResponse { session_id: request.session_id, discarded_changes }, After::Close))
            });
        }
        let session = self.sessions().remove(&request.session_id)?;
        Ok(EditorClearResponse {
            session_id: request.session_id,
            discarded_changes: session.buffer.as_str() != session.loaded.as_str(),
        })
    }
}
