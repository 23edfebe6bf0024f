//! The `Toolkit`: workspaces, options, and the file tools (read, write, edit, delete, undo).
//! The code, patch, search and editor tools are methods of it too, in their own modules.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::AtomicU64;

use editkit_matcher as matcher;
use editkit_vfs::{Durability, EntryKind, Policy, Text, Workspace, WriteOptions};

use crate::analysis;
use crate::catalog::{Access, Tool};
use crate::error::{Error, Result};
use crate::history;
use crate::outside::{Merged, ReadVersions, Stale};
use crate::sessions::Sessions;
use crate::sync::LockExt;
use crate::types::*;
use editkit_matcher::diff;

/// How a toolkit is opened.
#[derive(Debug, Clone)]
pub struct ToolkitOptions {
    /// Path policy for every root (absolute paths, blocked globs).
    pub policy: Policy,
    /// Largest file read, bytes. Default: 16 MiB.
    pub max_read_bytes: u64,
    /// Largest read answered whole, in bytes of text: a longer read (of the whole file or of
    /// the lines asked for) answers the whole lines that fit and `next_offset`, the line to
    /// read on from. For agents whose client passes results to a model as they are; `editkit
    /// mcp` sets 64 KiB. Default: `None` (a read answers every line asked for).
    pub read_page_bytes: Option<usize>,
    /// Bytes of text kept of what reads and edits saw (one version per file, the oldest
    /// dropped first), the bases an edit of a file changed since is merged against; an edit
    /// whose base was dropped is refused as stale. Default: [`crate::DEFAULT_KEPT_READ_BYTES`].
    pub kept_read_bytes: u64,
    /// Read a file that is not UTF-8 in another encoding established with confidence (UTF-16
    /// with a BOM, ISO-2022-JP, a detected legacy code page), and write it back in it. With
    /// `false` every tool takes UTF-8 only unless a call names its `encoding`, as a tool that
    /// opens files as UTF-8 does: anything else is `not_utf8` (or `utf16`), and searches skip
    /// it. Default: true.
    pub detect_encodings: bool,
    /// Refuse every tool that writes. Default: false.
    pub read_only: bool,
    /// How far writes go before a tool returns: [`Durability::Full`] fsyncs each file and its
    /// directory (a returned write survives a power failure), [`Durability::Atomic`] only
    /// renames a complete temp file into place (never torn; a power failure may lose it).
    /// Default: `Full`.
    pub durability: Durability,
    /// Answer edits with their whole diff instead of the one bounded for agents (each hunk cut
    /// to 10 lines, each line to 200 characters): for a terminal, which pages a long diff.
    /// Default: false.
    pub full_diffs: bool,
    /// The tools `tools::call` runs (others are refused as unknown). Default: all.
    pub tools: crate::catalog::ToolSelection,
    /// Earlier versions kept per file (and patches kept) for undo. Default: 20.
    pub history_depth: usize,
    /// Most bytes the undo history of one root keeps, versions of every file and patches
    /// together; past it the oldest are dropped first (the one just kept stays), and
    /// `history` says how many went. Default: [`crate::DEFAULT_HISTORY_BYTES`] (256 MiB).
    pub history_bytes: u64,
    /// The folder under which each root keeps its state (locks, patch journals, undo
    /// history) in a sub-folder of its own; never inside a workspace. Default: `None`,
    /// [`editkit_vfs::default_state_home`].
    pub state_home: Option<PathBuf>,
    /// Most editor sessions open at once; loading one more evicts the least recently used.
    /// Default: [`crate::DEFAULT_MAX_SESSIONS`] (16).
    pub max_sessions: usize,
    /// Most bytes all editor sessions hold together (each counts its buffer plus the text it
    /// was loaded with); passing it evicts the least recently used sessions, and a session
    /// that alone would hold more is refused as `too_large`.
    /// Default: [`crate::DEFAULT_MAX_SESSION_BYTES`] (128 MiB).
    pub max_session_bytes: u64,
    /// Most matching work one patch may take, summed over its files (hunks × bytes they
    /// search); past it `apply_patch` is refused as `too_large` and nothing is written.
    /// Default: [`editkit_patch::DEFAULT_MAX_WORK`] (256 Mi).
    #[cfg(feature = "patch")]
    pub max_patch_work: u64,
    /// Most bytes of text one call gathers into its answer from many places: the files of
    /// `read_files` together (the files past it answer `too_large` unread), the matches of a
    /// search with their context lines (the rest are left out, `truncated`). One file within
    /// `max_read_bytes` is always read whole by `read_file`. A call's memory stays within a
    /// small multiple of this and of `max_read_bytes`.
    /// Default: [`DEFAULT_MAX_CALL_BYTES`] (32 MiB).
    pub max_call_bytes: u64,
    /// Post-write diagnostics. Default: auto (report only problems). External checkers are
    /// contained (content on stdin, private working directory, scrubbed environment, no
    /// program from a PATH entry inside a root, Landlock): see `editkit_analyze`'s `# Security`.
    #[cfg(feature = "analyze")]
    pub diagnostics: editkit_analyze::DiagnosticsOptions,
    /// Post-write formatting. Default: off. Formatters are contained like the checkers and
    /// return the formatted text, which is written through the workspace under the file's lock.
    #[cfg(feature = "analyze")]
    pub formatting: editkit_analyze::FormatOptions,
    /// Language servers for the `code_intel` tools: on by default, started only when a tool
    /// needs one, only from `PATH` outside every root, confined.
    #[cfg(feature = "lsp")]
    pub language_servers: crate::lsp_options::LanguageServerOptions,
}

impl Default for ToolkitOptions {
    fn default() -> Self {
        ToolkitOptions {
            policy: Policy::default(),
            max_read_bytes: editkit_vfs::DEFAULT_MAX_READ_BYTES,
            read_page_bytes: None,
            kept_read_bytes: crate::outside::DEFAULT_KEPT_READ_BYTES,
            detect_encodings: true,
            read_only: false,
            durability: Durability::Full,
            full_diffs: false,
            tools: crate::catalog::ToolSelection::all(),
            history_depth: 20,
            history_bytes: crate::history::DEFAULT_HISTORY_BYTES,
            state_home: None,
            max_sessions: crate::sessions::DEFAULT_MAX_SESSIONS,
            max_session_bytes: crate::sessions::DEFAULT_MAX_SESSION_BYTES,
            #[cfg(feature = "patch")]
            max_patch_work: editkit_patch::DEFAULT_MAX_WORK,
            max_call_bytes: DEFAULT_MAX_CALL_BYTES,
            #[cfg(feature = "analyze")]
            diagnostics: editkit_analyze::DiagnosticsOptions::default(),
            #[cfg(feature = "analyze")]
            formatting: editkit_analyze::FormatOptions::default(),
            #[cfg(feature = "lsp")]
            language_servers: crate::lsp_options::LanguageServerOptions::default(),
        }
    }
}

/// Most names list_dir answers (the first in its order; more set `truncated`).
pub const MAX_LIST_ENTRIES: usize = 10_000;

/// Default for [`ToolkitOptions::max_call_bytes`]: 32 MiB.
pub const DEFAULT_MAX_CALL_BYTES: u64 = 32 << 20;

/// Most edits one `edit_file` call may hold in `edits`.
pub const MAX_EDITS: usize = 64;

/// Every editkit tool over one or more workspace roots.
///
/// A relative path resolves in the first root; an absolute one in the root that contains it.
/// The blocked globs apply to every root.
///
/// A patch holds three descriptors a file while its threads run: a program grows its
/// descriptor table first thing in `main`, with [`crate::vfs::grow_descriptor_table`], as the
/// `editkit` binary and the Python module do (a table grown while threads run waits for them).
///
/// ```
/// # fn main() -> Result<(), editkit::Error> {
/// use editkit::{EditFileRequest, ToolkitOptions, ReadFileRequest, Toolkit};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("app.py"), "def main():\n\treturn 1\n").unwrap();
/// let toolkit = Toolkit::open(dir.path(), ToolkitOptions::default())?;
///
/// let read = toolkit.read_file(ReadFileRequest::new("app.py"))?;
/// assert_eq!(read.line_count, 2);
///
/// // The agent's old text drifted (spaces for the file's tab): it still lands, says how,
/// // and the new text is indented like the file.
/// let edit = EditFileRequest::new("app.py", "    return 1", "    return 2").expected_hash(read.sha256);
/// let edit = toolkit.edit_file(edit)?;
/// assert_eq!(edit.rung, editkit::matcher::Rung::LineTrimmed);
/// assert_eq!(std::fs::read_to_string(dir.path().join("app.py")).unwrap(), "def main():\n\treturn 2\n");
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Toolkit {
    pub(crate) roots: Vec<Workspace>,
    pub(crate) options: ToolkitOptions,
    pub(crate) sessions: Mutex<Sessions>,
    pub(crate) next_session: AtomicU64,
    /// Whether `editor_load` opens its sessions in the state folder (see
    /// [`Toolkit::share_editor_sessions`]).
    pub(crate) shared_sessions: std::sync::atomic::AtomicBool,
    /// The post-write hook is off for this toolkit whatever its options say (see
    /// [`Toolkit::no_server_diagnostics_after_writes`]).
    #[cfg(feature = "lsp")]
    pub(crate) after_writes_off: std::sync::atomic::AtomicBool,
    /// The last syntax tree of each file checked after a write, so the next check reparses
    /// only what changed.
    #[cfg(feature = "analyze")]
    pub(crate) syntax_cache: editkit_analyze::CheckCache,
    /// The code facts of the last files read, by path and content hash.
    pub(crate) facts_cache: analysis::FactsCache,
    /// Per state folder, the undo history's bytes as last counted plus what was kept since.
    history_estimates: Mutex<std::collections::HashMap<PathBuf, u64>>,
    /// What the last read or edit of each file saw: the bases of three-way merges.
    pub(crate) read_versions: ReadVersions,
    /// The language servers of this toolkit (its own, or shared with other toolkits),
    /// started when a tool first needs one.
    #[cfg(feature = "lsp")]
    pub(crate) lsp: std::sync::Arc<editkit_lsp::Pool>,
}

/// Lines `offset..offset+limit` (1-based offset) of `text`.
/// Whole reads of files up to this size carry their code facts or outline by default.
const FACTS_BY_DEFAULT_BYTES: u64 = 256 << 10;

/// The lines a read shows: `offset` (1-based) on, at most `limit`.
struct Window {
    content: String,
    start_line: usize,
    end_line: usize,
    partial: bool,
    /// The offset that reads on, when the page bound cut the window short.
    next_offset: Option<usize>,
}

/// The whole file as on disk (`raw`): its bytes as text, every line ending and a BOM kept;
/// refused with a range of lines, and past the page bound (a raw read is never cut).
fn raw_window(
    request: &ReadFileRequest,
    bytes: &[u8],
    decoded: &Text,
    total: usize,
    page: Option<usize>,
) -> Result<Window> {
    if request.offset.is_some() || request.limit.is_some() || request.tail.is_some() {
        return Err(Error::invalid("raw", "raw reads the whole file; drop offset, limit and tail, or raw"));
    }
    let content = if decoded.encoding().is_utf8() {
        // The codec accepted the bytes as UTF-8 text.
        String::from_utf8_lossy(bytes).into_owned()
    } else {
        // Another encoding: the decoded text with its line endings, and its BOM as U+FEFF.
        let bom = if decoded.bom() { "\u{feff}" } else { "" };
        format!("{bom}{}", decoded.with_endings())
    };
    if let Some(page) = page
        && content.len() > page
    {
        return Err(Error::LimitExceeded {
            what: format!("`{}`", request.path),
            size: content.len() as u64,
            limit: page as u64,
            option: "read_page_bytes".into(),
            advice: "read it without raw, a range of lines at a time".into(),
        });
    }
    Ok(Window { content, start_line: 1, end_line: total, partial: false, next_offset: None })
}

/// The window of `text` (of `total` lines) a read asks for; an `offset` past the last line is
/// an error naming the line count, never an empty success.
///
/// With a `page` bound (bytes), a longer window is cut after the last whole line that fits
/// (always at least one line) and `next_offset` names the line that reads on.
fn read_window(
    path: &str,
    text: &str,
    total: usize,
    offset: Option<usize>,
    limit: Option<usize>,
    page: Option<usize>,
) -> Result<Window> {
    let start = offset.unwrap_or(1).max(1);
    if start > total.max(1) {
        return Err(Error::invalid(
            "offset",
            format!(
                "offset {start} is past the end of `{path}`, which has {total} line{}; read from an offset between 1 and {}",
                if total == 1 { "" } else { "s" },
                total.max(1)
            ),
        ));
    }
    let (mut content, mut partial) = line_window(text, offset, limit);
    let mut shown = if partial { content.split_inclusive('\n').count() } else { total };
    let mut next_offset = None;
    if let Some(page) = page
        && content.len() > page
    {
        let mut kept = 0;
        let mut lines = 0;
        for line in content.split_inclusive('\n') {
            if lines > 0 && kept + line.len() > page {
                break;
            }
            kept += line.len();
            lines += 1;
        }
        // A window of one line longer than the page is answered whole: there is nothing to cut.
        if kept < content.len() {
            content.truncate(kept);
            partial = true;
            shown = lines;
            next_offset = Some(start + lines);
        }
    }
    Ok(Window { content, start_line: start, end_line: start - 1 + shown, partial, next_offset })
}

pub(crate) fn line_window(text: &str, offset: Option<usize>, limit: Option<usize>) -> (String, bool) {
    if offset.unwrap_or(1) <= 1 && limit.is_none() {
        return (text.to_owned(), false);
    }
    let skip = offset.unwrap_or(1).saturating_sub(1);
    let take = limit.unwrap_or(usize::MAX);
    (text.split_inclusive('\n').skip(skip).take(take).collect(), true)
}

impl Toolkit {
    /// Opens a toolkit on one root.
    ///
    /// # Errors
    /// A root that does not exist or is not a directory; blocked globs that do not compile.
    pub fn open(root: impl AsRef<Path>, options: ToolkitOptions) -> Result<Toolkit> {
        Toolkit::open_roots(&[root.as_ref().to_owned()], options)
    }

    /// Opens a toolkit on several roots (an allowed-directories list); the first is primary.
    ///
    /// # Errors
    /// As [`Toolkit::open`]; an empty list, or roots that overlap (one inside another: a file
    /// would have two names, so its lock, staleness guard and history would split), are
    /// `invalid_args`.
    pub fn open_roots(roots: &[PathBuf], options: ToolkitOptions) -> Result<Toolkit> {
        if roots.is_empty() {
            return Err(Error::invalid("root", "give at least one workspace root"));
        }
        let mut workspaces: Vec<Workspace> = Vec::new();
        for root in roots {
            let mut builder = Workspace::builder(root, editkit_vfs::ambient_authority());
            builder
                .policy(options.policy.clone())
                .max_read_bytes(options.max_read_bytes)
                // A read-only toolkit writes nothing, not even lock files.
                .cross_process_locks(!options.read_only)
                .durability(options.durability)
                .detect_encodings(options.detect_encodings);
            if let Some(home) = &options.state_home {
                builder.state_home(home);
            }
            let workspace = builder.open()?;
            if let Some(other) = workspaces.iter().find(|other| {
                other.root_path().starts_with(workspace.root_path())
                    || workspace.root_path().starts_with(other.root_path())
            }) {
                return Err(Error::invalid(
                    "root",
                    format!(
                        "roots `{}` and `{}` overlap; give roots that do not contain each other",
                        other.root_path().display(),
                        workspace.root_path().display()
                    ),
                ));
            }
            workspaces.push(workspace);
        }
        // A state home given inside a workspace is refused: the repository could ship or rewrite
        // the state there. (The default one may be, when a root holds the user's home: it is
        // then blocked for every tool, as the vfs does for any state folder inside its root.)
        for workspace in workspaces.iter().filter(|_| options.state_home.is_some()) {
            if let Some(root) = workspaces.iter().find(|root| root.encloses(workspace.state_dir())) {
                return Err(Error::invalid(
                    "state_dir",
                    format!(
                        "the state folder `{}` is inside the workspace `{}`; choose a folder outside every root",
                        workspace.state_dir().display(),
                        root.root_path().display()
                    ),
                ));
            }
        }
        let sessions = Sessions::new(options.max_sessions, options.max_session_bytes);
        let options_kept = options.kept_read_bytes;
        #[cfg(feature = "lsp")]
        let lsp = options.language_servers.pool();
        Ok(Toolkit {
            roots: workspaces,
            options,
            sessions: Mutex::new(sessions),
            next_session: AtomicU64::new(1),
            shared_sessions: std::sync::atomic::AtomicBool::new(false),
            #[cfg(feature = "lsp")]
            after_writes_off: std::sync::atomic::AtomicBool::new(false),
            #[cfg(feature = "analyze")]
            syntax_cache: editkit_analyze::CheckCache::default(),
            facts_cache: analysis::FactsCache::default(),
            history_estimates: Mutex::new(std::collections::HashMap::new()),
            read_versions: ReadVersions::new(options_kept),
            #[cfg(feature = "lsp")]
            lsp,
        })
    }

    /// Turns the post-write hook off for this toolkit, whatever
    /// [`LanguageServerOptions::after_writes`](crate::LanguageServerOptions::after_writes) says:
    /// `editkit mcp --http` does so for a stateless request's toolkit, so a request never
    /// waits for a server's start it did not ask for (the `diagnostics` tool still asks).
    #[cfg(feature = "lsp")]
    pub fn no_server_diagnostics_after_writes(&self) {
        self.after_writes_off.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// The bounds of the undo history (versions per file, bytes per root).
    pub(crate) fn history_bounds(&self) -> crate::history::Bounds<'_> {
        crate::history::Bounds {
            depth: self.options.history_depth,
            max_bytes: self.options.history_bytes,
            estimates: &self.history_estimates,
        }
    }

    /// The primary workspace.
    #[must_use]
    pub fn workspace(&self) -> &Workspace {
        &self.roots[0]
    }

    /// Every workspace, primary first.
    #[must_use]
    pub fn workspaces(&self) -> &[Workspace] {
        &self.roots
    }

    /// The options in force.
    #[must_use]
    pub fn options(&self) -> &ToolkitOptions {
        &self.options
    }

    /// The root a path belongs to: the one containing an absolute path (`..` applied, either
    /// spelling of the root), else the first.
    pub(crate) fn route(&self, path: &str) -> (usize, &Workspace) {
        if path.starts_with('/') {
            let absolute = Path::new(path);
            for (idx, workspace) in self.roots.iter().enumerate() {
                if workspace.contains_absolute(absolute) {
                    return (idx, workspace);
                }
            }
        }
        (0, &self.roots[0])
    }

    /// An edit's diff: whole with [`ToolkitOptions::full_diffs`], else bounded; and whether
    /// anything was cut.
    pub(crate) fn diff(&self, path: &str, old: &str, new: &str) -> (String, bool) {
        // Names in a diff's header are quoted, as git quotes them, so a header stays two lines.
        if self.options.full_diffs {
            (crate::shown::diff_file(path, old, new, 3), false)
        } else {
            crate::shown::diff_bounded(path, old, new)
        }
    }

    /// The three-way merge of an edit refused as `stale` ([`ReadVersions::merge`]), its
    /// outside diff made as this toolkit makes diffs.
    pub(crate) fn merge_outside<P>(
        &self,
        root: usize,
        workspace: &Workspace,
        rel: &str,
        refusal: editkit_vfs::Error,
        plan: impl FnOnce(&Text) -> Result<P>,
        pieces_of: impl FnOnce(&P) -> Vec<(std::ops::Range<usize>, String)>,
    ) -> Result<Merged<P>> {
        let at = Stale { root, workspace, rel, refusal };
        self.read_versions.merge(at, |path, old, new| self.diff(path, old, new), plan, pieces_of)
    }

    /// The read-only gate, the one place it is decided: a read-only toolkit runs a tool that
    /// reads, and a tool that writes only as a dry run, which writes nothing. Every writing
    /// method opens with it (the JSON dispatcher adds no gate of its own), so a call is
    /// answered alike through JSON and the typed API.
    pub(crate) fn admit(&self, tool: Tool, dry_run: bool) -> Result<()> {
        if self.options.read_only && tool.access() == Access::Writes && !dry_run {
            Err(Error::ReadOnly { tool: tool.name().to_owned() })
        } else {
            Ok(())
        }
    }

    /// Writes through `lock`, first keeping the previous content for undo; returns where it
    /// is kept. The new content is hashed and the undo entry made while a large content is
    /// written and flushed ([`editkit_vfs::FileLock::write_beside`]). `read` is the file as
    /// read through the lock, when it was: the last check then compares instead of hashing.
    pub(crate) fn write_kept(
        &self,
        workspace: &Workspace,
        lock: &editkit_vfs::FileLock<'_>,
        bytes: &[u8],
        options: &WriteOptions,
        read: Option<&editkit_vfs::FileText>,
    ) -> Result<KeptWrite> {
        // A file editkit could not read back is not written.
        self.check_readable(lock.path(), bytes.len())?;
        // Hashed once: the undo entry and the staleness guard both take it.
        let beside = || -> Result<_> {
            let after = lock.sha256_of_new(bytes);
            Ok((after, history::keep(workspace, lock.path(), Some(after))?))
        };
        match lock.write_beside(read, bytes, options, beside) {
            Ok((mut written, mut kept)) => {
                history::settle(workspace, &kept, &self.history_bounds())?;
                let reformatted = self.format_locked(workspace, lock, bytes, &mut kept, &mut written)?;
                Ok(KeptWrite { written, kept: kept.path, reformatted })
            }
            Err((err, kept)) => {
                if let Some(kept) = kept {
                    history::discard(workspace, &kept);
                }
                Err(err)
            }
        }
    }

    /// Runs the formatter (when enabled) on the content just written, still under the file's
    /// lock, so no other editkit writer can interleave; the formatted text is written through
    /// the lock (guarded by the hash just written), and the staleness guard, the undo entry and
    /// the write's report all take the formatted content's hash. `true` when it rewrote it.
    fn format_locked(
        &self,
        workspace: &Workspace,
        lock: &editkit_vfs::FileLock<'_>,
        bytes: &[u8],
        kept: &mut history::Kept,
        written: &mut editkit_vfs::Written,
    ) -> Result<bool> {
        let Some(reformatted) = self.reformat(lock, bytes, written.sha256)? else { return Ok(false) };
        history::retag(workspace, kept, reformatted.sha256)?;
        written.sha256 = reformatted.sha256;
        written.size = reformatted.size;
        Ok(true)
    }

    /// The one formatting step of every write (`write_file`, the edits, each file a patch
    /// wrote): formats `bytes`, which `lock`'s file holds with hash `sha256`, and writes the
    /// result through the lock guarded by that hash. `None` when formatting is off, the
    /// formatter fails or changes nothing.
    #[cfg(feature = "analyze")]
    pub(crate) fn reformat(
        &self,
        lock: &editkit_vfs::FileLock<'_>,
        bytes: &[u8],
        sha256: editkit_vfs::Sha256,
    ) -> Result<Option<editkit_vfs::Written>> {
        if !self.options.formatting.enabled {
            return Ok(None);
        }
        let Ok(text) = std::str::from_utf8(bytes) else { return Ok(None) };
        let Some(formatted) = analysis::format(&self.root_paths(), lock.path(), text, &self.options.formatting) else {
            return Ok(None);
        };
        if formatted.as_bytes() == bytes {
            return Ok(None);
        }
        let options = WriteOptions { create_dirs: false, expected_hash: Some(sha256), ..Default::default() };
        Ok(Some(lock.write(formatted.as_bytes(), &options)?))
    }

    /// Without the `analyze` feature there is no formatter.
    #[cfg(not(feature = "analyze"))]
    pub(crate) fn reformat(
        &self,
        _lock: &editkit_vfs::FileLock<'_>,
        _bytes: &[u8],
        _sha256: editkit_vfs::Sha256,
    ) -> Result<Option<editkit_vfs::Written>> {
        Ok(None)
    }

    /// Every root's path: external tools never come from a PATH entry inside one.
    #[cfg(feature = "analyze")]
    pub(crate) fn root_paths(&self) -> Vec<&Path> {
        self.roots.iter().map(Workspace::root_path).collect()
    }

    /// Post-write diagnostics for canonical path `rel` holding `text`, which held `old` before
    /// (`None`: unknown, or a new file); run after the lock is released: they only read.
    pub(crate) fn after_write(
        &self,
        workspace: &Workspace,
        rel: &str,
        old: Option<&str>,
        text: &str,
    ) -> DiagnosticsInfo {
        self.after_write_within(workspace, rel, (old, None), text)
    }

    /// [`Toolkit::after_write`] of a change known to lie within line windows (old lines, new
    /// lines: a patch's hunks), when given: only their lines are diffed to find the change.
    pub(crate) fn after_write_within(
        &self,
        workspace: &Workspace,
        rel: &str,
        old: (Option<&str>, Option<&[editkit_matcher::diff::Window]>),
        text: &str,
    ) -> DiagnosticsInfo {
        #[cfg(feature = "analyze")]
        let diagnostics =
            analysis::diagnostics(&self.root_paths(), rel, old, text, &self.options.diagnostics, &self.syntax_cache);
        #[cfg(not(feature = "analyze"))]
        let diagnostics = {
            // Without the `analyze` feature there are no diagnostics to run.
            let _ = old;
            DiagnosticsInfo::default()
        };
        // The server's diagnostics (the hook) are not among these: they are asked only once
        // the write has landed ([`Toolkit::server_after`]), never beside it.
        let _ = workspace;
        diagnostics
    }

    /// The language server's diagnostics of `rel`, once its write has landed, when the
    /// post-write hook is on and editkit runs a server for its language (see `lsp_hook.rs`).
    pub(crate) fn server_after(&self, workspace: &Workspace, rel: &str) -> Option<crate::types::ServerDiagnosticsInfo> {
        #[cfg(feature = "lsp")]
        return self.server_after_write(workspace, rel);
        #[cfg(not(feature = "lsp"))]
        {
            let _ = (workspace, rel);
            None
        }
    }

    /// [`Toolkit::server_after`] for every file one call wrote: one wait for them all.
    pub(crate) fn servers_after(
        &self,
        workspace: &Workspace,
        rels: &[&str],
    ) -> Vec<Option<crate::types::ServerDiagnosticsInfo>> {
        #[cfg(feature = "lsp")]
        return self.server_after_writes(workspace, rels);
        #[cfg(not(feature = "lsp"))]
        {
            let _ = workspace;
            vec![None; rels.len()]
        }
    }

    // -----------------------------------------------------------------------------------------
    // Reading

    /// Reads a file: content (or a range of lines), SHA-256, type, and code or Markdown facts.
    /// Binary files give `is_binary` and their size only. Arms the staleness guard.
    ///
    /// # Errors
    /// Path errors (`outside_workspace`, `blocked`, `invalid_args`), `not_found`,
    /// `is_directory`, `too_large`, `utf16`, `not_utf8` (also for bytes not in the `encoding`
    /// given), `invalid_args` for an unknown `encoding`.
    pub fn read_file(&self, request: ReadFileRequest) -> Result<ReadFileResponse> {
        let (root, workspace) = self.route(&request.path);
        let bytes = workspace.read_bytes(&request.path)?;
        let rel = workspace.resolve(&request.path)?;
        let sha256 = editkit_vfs::Sha256::of(&bytes);
        let size_bytes = bytes.len() as u64;
        let asked = encoding_arg(request.encoding.as_deref())?;
        let decoded = match workspace.decode(&bytes, asked) {
            Ok(text) => text,
            Err(editkit_vfs::DecodeError::Binary { .. }) => {
                return Ok(ReadFileResponse {
                    path: rel,
                    content: String::new(),
                    sha256,
                    file_type: FileType::Binary,
                    line_count: 0,
                    size_bytes,
                    is_binary: true,
                    line_endings: editkit_vfs::LineEndings::None,
                    bom: false,
                    encoding: None,
                    partial: false,
                    start_line: 1,
                    end_line: 0,
                    total_lines: 0,
                    next_offset: None,
                    facts_included: false,
                    is_valid: None,
                    errors: Vec::new(),
                    symbols: Vec::new(),
                    headers: Vec::new(),
                    code_blocks: Vec::new(),
                    links: Vec::new(),
                });
            }
            Err(err) => return Err(editkit_vfs::Error::from_decode(&request.path, err).into()),
        };
        let file_type = analysis::text_type(&rel, decoded.as_str());
        let total = decoded.line_count();
        let (offset, limit) = match (request.tail, request.offset, request.limit) {
            (None, offset, limit) => (offset, limit),
            (Some(tail), None, None) => (Some(total.saturating_sub(tail) + 1), Some(tail)),
            (Some(_), ..) => {
                return Err(Error::invalid("tail", "give tail (the last lines) or offset/limit, not both"));
            }
        };
        let window = if request.raw {
            raw_window(&request, &bytes, &decoded, total, self.options.read_page_bytes)?
        } else {
            read_window(&request.path, decoded.as_str(), total, offset, limit, self.options.read_page_bytes)?
        };
        let facts_included = request.include_symbols.unwrap_or(!window.partial && size_bytes <= FACTS_BY_DEFAULT_BYTES);
        let facts =
            if facts_included { self.facts_cache.facts(&rel, sha256, decoded.as_str()) } else { Default::default() };
        let (line_endings, bom, encoding) = (decoded.line_endings(), decoded.bom(), decoded.encoding());
        // What the agent saw is the base an edit is merged against if the file changes.
        self.read_versions.keep(root, &rel, sha256, std::sync::Arc::new(decoded));
        Ok(ReadFileResponse {
            path: rel,
            content: window.content,
            sha256,
            file_type,
            line_count: total,
            size_bytes,
            is_binary: false,
            line_endings,
            bom,
            encoding: Some(encoding),
            partial: window.partial,
            start_line: window.start_line,
            end_line: window.end_line,
            total_lines: total,
            next_offset: window.next_offset,
            facts_included,
            is_valid: facts.is_valid,
            errors: facts.errors,
            symbols: facts.symbols,
            headers: facts.headers,
            code_blocks: facts.code_blocks,
            links: facts.links,
        })
    }

    /// Lists a directory: sorted names, directories ending with `/`.
    ///
    /// # Errors
    /// Path errors, `not_found`, `invalid_args` for a file.
    pub fn list_dir(&self, request: ListDirRequest) -> Result<ListDirResponse> {
        let (_, workspace) = self.route(&request.path);
        let (entries, total_entries, unnamed_entries) = workspace.list_dir_counted(&request.path, MAX_LIST_ENTRIES)?;
        Ok(ListDirResponse {
            path: workspace.resolve(&request.path)?,
            truncated: total_entries > entries.len(),
            entries,
            total_entries,
            unnamed_entries,
        })
    }

    /// Whether a path exists, and what it is.
    ///
    /// # Errors
    /// Path errors (a path leading outside is refused, not answered with `false`).
    pub fn exists(&self, request: PathRequest) -> Result<ExistsResponse> {
        let (_, workspace) = self.route(&request.path);
        let kind = match workspace.metadata(&request.path) {
            Ok(metadata) => Some(metadata.kind),
            Err(editkit_vfs::Error::NotFound { .. }) => None,
            Err(err) => return Err(err.into()),
        };
        Ok(ExistsResponse { path: request.path, exists: kind.is_some(), kind })
    }

    /// What a path is, its size, modification time and permissions, and for a text file its
    /// type and line count. Looks without arming the staleness guard.
    ///
    /// # Errors
    /// Path errors, `not_found`.
    pub fn file_info(&self, request: PathRequest) -> Result<FileInfoResponse> {
        let (_, workspace) = self.route(&request.path);
        let metadata = workspace.metadata(&request.path)?;
        let rel = workspace.resolve(&request.path)?;
        let (file_type, line_count) = if metadata.kind == EntryKind::File {
            match workspace.peek(&request.path) {
                Ok(file) => (Some(analysis::text_type(&rel, file.text())), Some(file.line_count())),
                Err(
                    editkit_vfs::Error::Binary { .. }
                    | editkit_vfs::Error::Utf16 { .. }
                    | editkit_vfs::Error::NotUtf8 { .. },
                ) => (Some(FileType::Binary), None),
                Err(editkit_vfs::Error::TooLarge { .. }) => (None, None),
                Err(err) => return Err(err.into()),
            }
        } else {
            (None, None)
        };
        Ok(FileInfoResponse {
            path: rel,
            kind: metadata.kind,
            size_bytes: if metadata.kind == EntryKind::File { metadata.size } else { 0 },
            modified_unix: metadata.modified_unix,
            modified_ns: metadata.modified_ns,
            changed_ns: metadata.changed_ns,
            permissions: Mode(metadata.mode),
            file_type,
            line_count,
        })
    }

    // -----------------------------------------------------------------------------------------
    // Writing

    /// Creates a directory and its missing parents; one that exists already is not an error.
    ///
    /// # Errors
    /// Path errors, `invalid_args` when a file is in the way, `io`.
    pub fn create_directory(&self, request: PathRequest) -> Result<CreateDirectoryResponse> {
        self.admit(Tool::CreateDirectory, false)?;
        let (_, workspace) = self.route(&request.path);
        let existed = workspace.entry_kind(&request.path)?.is_some();
        workspace.create_dir_all(&request.path)?;
        Ok(CreateDirectoryResponse { path: workspace.resolve(&request.path)?, created: !existed })
    }

    /// Writes a whole file atomically, refusing a stale one.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit::Error> {
    /// use editkit::{ReadFileRequest, WriteFileRequest};
    /// let dir = tempfile::tempdir().unwrap();
    /// let toolkit = editkit::Toolkit::open(dir.path(), Default::default())?;
    /// let request = |content: &str| WriteFileRequest::new("notes/todo.md", content);
    /// toolkit.write_file(request("- ship\n"))?;
    /// toolkit.read_file(ReadFileRequest::new("notes/todo.md"))?;
    /// // Someone else changes the file after our read: our next write is refused.
    /// std::fs::write(dir.path().join("notes/todo.md"), "- theirs\n").unwrap();
    /// assert_eq!(toolkit.write_file(request("- mine\n")).unwrap_err().error_kind().as_str(), "stale");
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// Path errors, `stale`, `is_directory`, `not_found` (missing parent without create_dirs),
    /// `not_encodable` for content the file's encoding (or the one asked for) cannot hold.
    pub fn write_file(&self, request: WriteFileRequest) -> Result<WriteFileResponse> {
        self.admit(Tool::WriteFile, false)?;
        let asked = encoding_arg(request.encoding.as_deref())?;
        let (_, workspace) = self.route(&request.path);
        let lock = workspace.lock(&request.path)?;
        let rel = lock.path().to_owned();
        // In the encoding asked for (UTF-16 with its BOM), else the existing file's own (its BOM
        // kept); UTF-8 is written as given.
        let target = match asked {
            Some(encoding) => Some((encoding, encoding.is_utf16())),
            None => workspace.encoding_of(&rel),
        };
        let encoded = match target {
            Some((encoding, bom)) if !encoding.is_utf8() => {
                Some(encoding.encode(&request.content, bom).map_err(|err| unencodable(&request.path, err))?)
            }
            _ => None,
        };
        let bytes = encoded.as_deref().unwrap_or(request.content.as_bytes());
        let options = WriteOptions {
            create_dirs: request.create_dirs,
            force: request.force,
            expected_hash: request.expected_hash,
            create_new: request.create_new,
            ..WriteOptions::default()
        };
        let KeptWrite { written, reformatted, .. } = self.write_kept(workspace, &lock, bytes, &options, None)?;
        drop(lock);
        let mut diagnostics = self.after_write(workspace, &rel, None, &request.content);
        diagnostics.server_diagnostics = self.server_after(workspace, &rel);
        let file_type = analysis::file_type(&rel, request.content.as_bytes());
        if !reformatted {
            // The next edit of this file reads these bytes back: it compares instead of hashing.
            workspace.remember_content(&rel, written.sha256, encoded.unwrap_or_else(|| request.content.into_bytes()));
        }
        Ok(WriteFileResponse {
            file_type,
            path: rel,
            size_bytes: written.size,
            sha256: written.sha256,
            created: written.created,
            diagnostics,
        })
    }

    /// write_file with the staleness guard and no expected hash: the typed writers' common path.
    fn write_guarded(&self, path: String, content: String, create_dirs: bool) -> Result<WriteFileResponse> {
        self.write_file(WriteFileRequest {
            path,
            content,
            create_dirs,
            force: false,
            expected_hash: None,
            create_new: false,
            encoding: None,
        })
    }

    /// Writes a Markdown file.
    ///
    /// # Errors
    /// As [`Toolkit::write_file`].
    pub fn write_markdown_file(&self, request: WriteMarkdownFileRequest) -> Result<WriteMarkdownFileResponse> {
        self.admit(Tool::WriteMarkdownFile, false)?;
        let written = self.write_guarded(request.path, request.content, request.create_dirs)?;
        Ok(WriteMarkdownFileResponse { path: written.path, size_bytes: written.size_bytes, sha256: written.sha256 })
    }

    /// Writes a Python file; with `validate`, content with syntax errors is refused and
    /// nothing is written.
    ///
    /// # Errors
    /// `syntax_error` with the errors; as [`Toolkit::write_file`].
    pub fn write_python_file(&self, request: WritePythonFileRequest) -> Result<WritePythonFileResponse> {
        self.admit(Tool::WritePythonFile, false)?;
        self.check_readable(&request.path, request.content.len())?;
        #[cfg(feature = "analyze")]
        if request.validate {
            let errors = analysis::python_syntax_errors(&request.content);
            if !errors.is_empty() {
                return Err(Error::SyntaxError { path: request.path, errors });
            }
        }
        let line_count = Text::new(&request.content, editkit_vfs::LineEnding::Lf, false).line_count();
        let written = self.write_guarded(request.path, request.content, request.create_dirs)?;
        Ok(WritePythonFileResponse {
            path: written.path,
            bytes_written: written.size_bytes,
            line_count,
            sha256: written.sha256,
        })
    }

    /// Deletes a file, a directory or a symlink (never its target). A directory that is not
    /// empty needs `recursive`. A file's content is kept for undo_edit, a directory's files
    /// as one change for undo_patch (up to [`crate::MAX_UNDO_FILES`] files and
    /// [`crate::MAX_UNDO_BYTES`]; a larger directory is refused); a deleted symlink is not
    /// kept (the file it pointed to is untouched).
    ///
    /// # Errors
    /// Path errors, `not_found`, `invalid_args` for the root and for a directory with entries
    /// without `recursive`.
    pub fn delete(&self, request: DeleteRequest) -> Result<DeleteResponse> {
        self.admit(Tool::Delete, false)?;
        let (_, workspace) = self.route(&request.path);
        if workspace.resolve_entry(&request.path)?.is_empty() {
            // The root: the vfs refuses it, before anything below is listed or kept for undo.
            let deleted = workspace.delete(&request.path)?;
            return Ok(DeleteResponse { path: request.path, deleted });
        }
        if !request.recursive && workspace.entry_kind(&request.path).ok().flatten() == Some(EntryKind::Dir) {
            let (shown, total) = workspace.list_dir_first(&request.path, 5)?;
            if total > 0 {
                return Err(Error::invalid(
                    "recursive",
                    format!(
                        "`{}` is a directory with {} entr{} ({}{}); pass recursive: true to delete it with everything \
                         in it (undo_patch restores its files), or delete the entries one by one",
                        request.path,
                        total,
                        if total == 1 { "y" } else { "ies" },
                        shown.join(", "),
                        if total > shown.len() { ", ..." } else { "" }
                    ),
                ));
            }
        }
        // A file is kept for undo; a link (removed itself, never its target) and a folder are not.
        if workspace.entry_kind(&request.path).ok().flatten() == Some(EntryKind::File) {
            let lock = workspace.lock(&request.path)?;
            let rel = lock.path().to_owned();
            let kept = history::keep(workspace, &rel, None)?;
            let deleted = workspace.delete(&request.path).inspect_err(|_| history::discard(workspace, &kept))?;
            history::settle(workspace, &kept, &self.history_bounds())?;
            return Ok(DeleteResponse { path: request.path, deleted });
        }
        // A directory's files are kept as one change, which undo_patch reverses; a delete that
        // fails (a blocked file inside) leaves no entry behind.
        if workspace.entry_kind(&request.path).ok().flatten() == Some(EntryKind::Dir)
            && workspace.list_dir_first(&request.path, 0)?.1 > 0
        {
            let (kept, files) = self.keep_tree(workspace, &request.path)?;
            let deleted = workspace.delete(&request.path).inspect_err(|_| {
                // Nothing removed (refused up front): no entry. Some files gone (the tree changed
                // during the delete): the entry stays, so undo_patch can bring them back.
                if files.iter().all(|rel| workspace.exists(rel).unwrap_or(true)) {
                    history::forget_patch(workspace, kept);
                }
            })?;
            history::prune_patches(workspace, &self.history_bounds())?;
            return Ok(DeleteResponse { path: request.path, deleted });
        }
        let deleted = workspace.delete(&request.path)?;
        Ok(DeleteResponse { path: request.path, deleted })
    }

    // -----------------------------------------------------------------------------------------
    // Editing

    /// Replaces `old_string` with `new_string` where exactly one place matches best (every
    /// place with `replace_all`), tolerating whitespace, indentation, typography and escaping
    /// drift. Refuses ambiguity, stale files and no-ops; untouched bytes stay identical.
    ///
    /// # Errors
    /// `not_found` (with the closest region), `ambiguous` (with lines), `already_applied`,
    /// `no_change`, `stale`, `not_encodable` for a new text holding a character the file's
    /// encoding cannot hold (nothing written), path and encoding errors.
    pub fn edit_file(&self, request: EditFileRequest) -> Result<EditFileResponse> {
        self.admit(Tool::EditFile, request.dry_run)?;
        self.edit(&request, |_, _| Ok(()))
    }

    /// The edit behind edit_file; `vet(old, new)` may refuse the new text before anything is
    /// written.
    pub(crate) fn edit(
        &self,
        request: &EditFileRequest,
        vet: impl Fn(&str, &str) -> Result<()>,
    ) -> Result<EditFileResponse> {
        if !request.edits.is_empty() {
            if !request.old_string.is_empty() || !request.new_string.is_empty() || request.replace_all {
                return Err(Error::invalid(
                    "edits",
                    "`edits` and old_string/new_string were given together; give several edits as `edits`, or one \
                     as old_string and new_string",
                ));
            }
            if request.edits.len() > MAX_EDITS {
                return Err(Error::invalid(
                    "edits",
                    format!(
                        "{} edits in one call, more than the {MAX_EDITS} a call may hold (MAX_EDITS); split them over \
                         several calls",
                        request.edits.len()
                    ),
                ));
            }
        }
        if let Some(cell_id) = &request.cell_id {
            if !request.edits.is_empty() {
                return Err(Error::invalid(
                    "edits",
                    "`edits` cannot be given with cell_id; edit a cell with old_string and new_string",
                ));
            }
            return self.edit_cell(request, cell_id, &vet);
        }
        let (root, workspace) = self.route(&request.path);
        let lock = workspace.lock(&request.path)?;
        let rel = lock.path().to_owned();
        // The edit is worked out while the staleness guard's hash of a large file is computed.
        let asked = encoding_arg(request.encoding.as_deref())?;
        let attempt = lock.read_for_write_in(asked, request.expected_hash, request.force, |old_text| {
            self.prepare_edit(&rel, old_text, request, &vet, false)
        });
        let (file, prepared, merged_with) = match attempt {
            // The file changed since it was read: the edit is made on the version read and
            // carried over, when what it changes is untouched (in the encoding editkit detects:
            // an edit naming its encoding is not merged).
            Err(stale @ editkit_vfs::Error::Stale { .. })
                if asked.is_none()
                    && request.expected_hash.is_none()
                    && !request.force
                    && request.stale == StaleMode::Merge =>
            {
                let merged = self.merge_outside(
                    root,
                    workspace,
                    &rel,
                    stale,
                    |base| self.prepare_edit(&rel, base, request, &vet, true),
                    |prepared| prepared.pieces.clone(),
                )?;
                let prepared = merged.planned.rebased(merged.file.decoded(), &merged.rebased)?;
                vet(merged.file.text(), prepared.new_text.as_str())?;
                (merged.file, prepared, Some(merged.merged_with))
            }
            attempt => {
                let (file, prepared) = attempt?;
                (file, prepared?, None)
            }
        };
        // A merged edit is written over the file as found, which the guard did not vouch for.
        let expected = merged_with.as_ref().map(|_| file.sha256());
        let bytes = prepared.new_text.try_encoded().map_err(|err| unencodable(&request.path, err))?;
        let (old, new) = (file.decoded().as_str(), prepared.new_text.as_str());
        if request.dry_run {
            let (sha256, diff) = editkit_vfs::Sha256::of_beside(&bytes, || self.diff(&rel, old, new));
            let new_size = bytes.len() as u64;
            drop(bytes);
            let mut response = prepared.into_response(request, diff, file.size(), new_size, sha256).0;
            response.merged_with = merged_with;
            return Ok(response);
        }
        // The new content is hashed while it is written; on a large file the diff, which only
        // the response needs, is drawn meanwhile too.
        let (wrote, diagnostics, diff) = self.write_edited(
            workspace,
            lock,
            ReadForWrite { file: &file, expected_hash: expected },
            &bytes,
            new,
            || self.diff(&rel, old, new),
        )?;
        drop(bytes);
        // A formatter may have changed the bytes on disk.
        let KeptWrite { written, kept, reformatted } = wrote;
        let (mut response, new_text) = prepared.into_response(request, diff, file.size(), written.size, written.sha256);
        response.merged_with = merged_with;
        if !reformatted {
            // The next edit of this file takes this text back after comparing the file with it,
            // instead of reading, decoding and hashing the file; it is also the base of a merge
            // with a change made outside before the next edit.
            let new_text = std::sync::Arc::new(new_text);
            self.read_versions.keep(root, &rel, written.sha256, std::sync::Arc::clone(&new_text));
            workspace.remember_text(&rel, written.sha256, new_text);
        }
        if request.backup {
            response.backup_path = kept;
        }
        response.diagnostics = diagnostics;
        Ok(response)
    }

    /// An edit worked out on the file's text, nothing written: the new text and what the
    /// response says of the match and the change.
    pub(crate) fn prepare_edit(
        &self,
        rel: &str,
        old_text: &Text,
        request: &EditFileRequest,
        vet: &impl Fn(&str, &str) -> Result<()>,
        keep_pieces: bool,
    ) -> Result<PreparedEdit> {
        let within = match request.within.as_deref() {
            Some(scope) => Some(analysis::scope(rel, old_text.as_str(), scope)?),
            None => None,
        };
        let options = matcher::MatchOptions {
            within,
            strict: request.strict,
            limits: self.output_limits(),
            ..Default::default()
        };
        if !request.edits.is_empty() {
            return self.prepare_edits(rel, old_text, request, &options, vet, keep_pieces);
        }
        let (replaced, numbered) = self.plan_one(
            rel,
            old_text.as_str(),
            (&request.old_string, &request.new_string, request.replace_all),
            request.strict,
            &options,
        )?;
        let new_text = splice_replaced(old_text, &replaced, "old_string")?;
        vet(old_text.as_str(), new_text.as_str())?;
        let placement = placement(&replaced);
        let pieces = if keep_pieces {
            replaced.edits().map(|(range, piece)| (range, piece.to_owned())).collect()
        } else {
            Vec::new()
        };
        Ok(PreparedEdit {
            path: rel.to_owned(),
            replacements: placement.replacements,
            rung: placement.rung,
            score: placement.score,
            alignment: placement.alignment,
            line_range: placement.line_range,
            line_ranges: placement.line_ranges,
            line_numbers_stripped: numbered,
            new_text,
            placements: Vec::new(),
            pieces,
        })
    }

    /// One edit (`old`, `new`, `replace_all`) planned on `text`, nothing built: the matcher's
    /// plan, and whether the old text lost the numbers of a numbered view.
    fn plan_one(
        &self,
        rel: &str,
        text: &str,
        (old, new, replace_all): (&str, &str, bool),
        strict: bool,
        options: &matcher::MatchOptions,
    ) -> Result<(matcher::Planned, bool)> {
        let replace = if replace_all { matcher::plan_replace_all } else { matcher::plan_replace };
        // Text copied from a numbered view (`    12<TAB>line`) keeps its numbers only when the
        // file itself holds that text.
        let numbered = if strict {
            None
        } else {
            // Looked for in the file (a scan of it) only when the old text looks numbered.
            strip_view_numbers(old).filter(|_| !text.contains(old))
        };
        let (old_string, new_string) = match &numbered {
            Some((_, stripped)) => (stripped.as_str(), strip_view_prefixes(new)),
            None => (old, new.to_owned()),
        };
        let replaced =
            replace(text, old_string, &new_string, options).map_err(|source| self.edit_error(rel, source))?;
        // The numbers say where the copied lines stood: the match must be there.
        if let Some((line, _)) = numbered
            && !replace_all
            && let Some(found) = replaced.matches().first()
            && found.first_line() as u64 != line
        {
            return Err(Error::invalid(
                "old_string",
                format!(
                    "old_string was copied from line {line} of a numbered read but matches at line {}; read the \
                     file again and copy the lines without their numbers",
                    found.first_line()
                ),
            ));
        }
        Ok((replaced, numbered.is_some()))
    }

    /// Several edits of one file: each found in the text as it is before the call, whatever
    /// their order; regions that overlap are refused naming both; one new text or none.
    fn prepare_edits(
        &self,
        rel: &str,
        old_text: &Text,
        request: &EditFileRequest,
        options: &matcher::MatchOptions,
        vet: &impl Fn(&str, &str) -> Result<()>,
        keep_pieces: bool,
    ) -> Result<PreparedEdit> {
        let count = request.edits.len();
        let mut planned = Vec::with_capacity(count);
        let mut numbered_any = false;
        for (index, item) in request.edits.iter().enumerate() {
            let in_edit = |source: Error| Error::InEdit { index, count, source: Box::new(source) };
            let (replaced, numbered) = self
                .plan_one(
                    rel,
                    old_text.as_str(),
                    (&item.old_string, &item.new_string, item.replace_all),
                    request.strict,
                    options,
                )
                .map_err(in_edit)?;
            numbered_any |= numbered;
            planned.push(replaced);
        }
        // Every piece of every edit, in file order; two that overlap belong to two edits (one
        // edit's own places never overlap) and refuse the call.
        let mut pieces: Vec<(std::ops::Range<usize>, &str, usize)> = Vec::new();
        for (index, replaced) in planned.iter().enumerate() {
            pieces.extend(replaced.edits().map(|(range, piece)| (range, piece, index)));
        }
        pieces.sort_by_key(|(range, _, _)| (range.start, range.end));
        for pair in pieces.windows(2) {
            let [(first, _, a), (second, _, b)] = pair else { continue };
            if second.start < first.end {
                let (a, b) = (*a.min(b), *a.max(b));
                let lines = |index: usize| {
                    planned[index].matches().first().map(|m| format!("{}-{}", m.first_line(), m.last_line()))
                };
                return Err(Error::invalid(
                    "edits",
                    format!(
                        "edits[{a}] (lines {}) and edits[{b}] (lines {}) overlap in `{rel}`; nothing was changed: \
                         make them one edit, or give each old_string a region of its own",
                        lines(a).unwrap_or_default(),
                        lines(b).unwrap_or_default()
                    ),
                ));
            }
        }
        let growth: i64 = pieces.iter().map(|(range, piece, _)| piece.len() as i64 - range.len() as i64).sum();
        let size = (old_text.as_str().len() as i64 + growth).max(0) as usize;
        self.check_readable(rel, size)?;
        let edits: Vec<(std::ops::Range<usize>, &str)> =
            pieces.iter().map(|(range, piece, _)| (range.clone(), *piece)).collect();
        let new_text =
            old_text.spliced(&edits).map_err(|e| Error::invalid("edits", format!("internal range error: {e}")))?;
        vet(old_text.as_str(), new_text.as_str())?;
        let placements: Vec<EditPlacement> = planned.iter().map(placement).collect();
        let first = placements.first().map_or([0, 0], |p| p.line_range);
        Ok(PreparedEdit {
            path: rel.to_owned(),
            replacements: placements.iter().map(|p| p.replacements).sum(),
            rung: placements.iter().map(|p| p.rung).max().unwrap_or(matcher::Rung::Exact),
            score: placements.iter().map(|p| p.score).fold(1.0_f64, f64::min),
            alignment: if placements.iter().any(|p| p.alignment == matcher::Alignment::Merged) {
                matcher::Alignment::Merged
            } else {
                matcher::Alignment::Aligned
            },
            line_range: first,
            line_ranges: placements.iter().flat_map(|p| p.line_ranges.iter().copied()).collect(),
            line_numbers_stripped: numbered_any,
            new_text,
            placements,
            pieces: if keep_pieces {
                edits.iter().map(|(range, piece)| (range.clone(), (*piece).to_owned())).collect()
            } else {
                Vec::new()
            },
        })
    }

    /// Inserts `text` after line `line` (0: before the first; [`InsertLinesRequest::END`]
    /// after the last), under the same staleness guard,
    /// lock and undo entry as `edit_file`; the new lines take the file's line ending, and a file
    /// without a final line end keeps that.
    ///
    /// # Errors
    /// `invalid_args` for empty text or a line past the end (naming the line count), `stale`,
    /// path errors.
    pub fn insert_lines(&self, request: InsertLinesRequest) -> Result<InsertLinesResponse> {
        self.admit(Tool::InsertLines, request.dry_run)?;
        if request.text.is_empty() {
            return Err(Error::invalid("text", "text is empty; give the lines to insert"));
        }
        let (root, workspace) = self.route(&request.path);
        let lock = workspace.lock(&request.path)?;
        let rel = lock.path().to_owned();
        let body = request.text.strip_suffix('\n').unwrap_or(&request.text);
        let inserted = body.split('\n').count();
        // The line it goes after and the insertion, on a version of the file.
        let plan = |old_text: &editkit_vfs::Text| {
            let total = old_text.line_count();
            let line = if request.line == InsertLinesRequest::END { total } else { request.line };
            if line > total {
                return Err(Error::invalid(
                    "line",
                    format!(
                        "line {} is past the end of `{}`, which has {total} lines; give 0 to {total} ({total} appends)",
                        request.line, request.path
                    ),
                ));
            }
            let (at, piece) = match line {
                0 => (0, format!("{body}\n")),
                line if line == total && !old_text.trailing_newline() => (old_text.as_str().len(), format!("\n{body}")),
                line => {
                    let at = old_text
                        .as_str()
                        .match_indices('\n')
                        .nth(line - 1)
                        .map_or(old_text.as_str().len(), |(i, _)| i + 1);
                    (at, format!("{body}\n"))
                }
            };
            Ok((line, at..at, piece))
        };
        let splice = |text: &editkit_vfs::Text, edits: &[(std::ops::Range<usize>, &str)]| {
            text.spliced(edits).map_err(|e| Error::invalid("line", format!("internal range error: {e}")))
        };
        let attempt = lock.read_for_write_with(request.expected_hash, request.force, |old_text| {
            let (line, range, piece) = plan(old_text)?;
            let new_text = splice(old_text, &[(range, piece.as_str())])?;
            Ok::<_, Error>((line, new_text))
        });
        let (file, line, new_text, merged_with) = match attempt {
            // Changed since it was read: the insertion planned on the version read and carried
            // over, as an edit is.
            Err(stale @ editkit_vfs::Error::Stale { .. })
                if request.expected_hash.is_none() && !request.force && request.stale == StaleMode::Merge =>
            {
                let outside = self.merge_outside(root, workspace, &rel, stale, plan, |(_, range, piece)| {
                    vec![(range.clone(), piece.clone())]
                })?;
                let edits: Vec<(std::ops::Range<usize>, &str)> =
                    outside.rebased.pieces.iter().map(|(range, piece)| (range.clone(), piece.as_str())).collect();
                let new_text = splice(outside.file.decoded(), &edits)?;
                let line = match outside.planned.0 {
                    0 => 0,
                    line => outside.rebased.line(line),
                };
                (outside.file, line, new_text, Some(outside.merged_with))
            }
            attempt => {
                let (file, planned) = attempt?;
                let (line, new_text) = planned?;
                (file, line, new_text, None)
            }
        };
        let expected = merged_with.as_ref().map(|_| file.sha256());
        let old_text = file.decoded();
        let (diff, diff_truncated) = self.diff(&rel, old_text.as_str(), new_text.as_str());
        let bytes = new_text.try_encoded().map_err(|err| unencodable(&request.path, err))?;
        let response = |sha256, diagnostics| InsertLinesResponse {
            path: rel.clone(),
            line_range: [line + 1, line + inserted],
            diff,
            diff_truncated,
            sha256,
            dry_run: request.dry_run,
            diagnostics,
            merged_with: merged_with.clone(),
        };
        if request.dry_run {
            return Ok(response(editkit_vfs::Sha256::of(&bytes), DiagnosticsInfo::default()));
        }
        // The new content is hashed while it is written.
        let (wrote, diagnostics, ()) = self.write_edited(
            workspace,
            lock,
            ReadForWrite { file: &file, expected_hash: expected },
            &bytes,
            new_text.as_str(),
            || (),
        )?;
        let KeptWrite { written, reformatted, .. } = wrote;
        if !reformatted {
            // The base of a merge with a change made outside before the next edit.
            drop(bytes);
            self.read_versions.keep(root, &rel, written.sha256, std::sync::Arc::new(new_text));
        }
        Ok(response(written.sha256, diagnostics))
    }

    /// Writes the edited `bytes` of an existing file through its `lock` (undo entry, formatter),
    /// releases the lock, then runs the post-write diagnostics on `text` and `also`: the write
    /// step every in-place edit shares. On a large file the diagnostics and `also` run on
    /// another thread while the file is written. Returns what was written (with the undo
    /// entry's path), the diagnostics and what `also` gave.
    pub(crate) fn write_edited<T: Send>(
        &self,
        workspace: &Workspace,
        lock: editkit_vfs::FileLock<'_>,
        read: ReadForWrite<'_>,
        bytes: &[u8],
        text: &str,
        also: impl FnOnce() -> T + Send,
    ) -> Result<(KeptWrite, DiagnosticsInfo, T)> {
        let ReadForWrite { file: read, expected_hash } = read;
        let write = || {
            let written = self.write_kept(
                workspace,
                &lock,
                bytes,
                &WriteOptions { create_dirs: false, expected_hash, ..Default::default() },
                Some(read),
            );
            drop(lock);
            written
        };
        if !editkit_vfs::Sha256::pays_beside(text.len()) {
            let wrote = write()?;
            let mut diagnostics = self.after_write(workspace, read.path(), Some(read.text()), text);
            diagnostics.server_diagnostics = self.server_after(workspace, read.path());
            return Ok((wrote, diagnostics, also()));
        }
        // The checks read the new text, not the file: on a large file they run while it is
        // written and flushed. A thread that cannot start leaves them to this one.
        let also = std::sync::Mutex::new(Some(also));
        let beside = || {
            let also = also.lock_unpoisoned().take();
            (self.after_write(workspace, read.path(), Some(read.text()), text), also.map(|also| also()))
        };
        let (written, checked) = std::thread::scope(|scope| {
            let checks = std::thread::Builder::new().spawn_scoped(scope, beside).ok();
            let written = write();
            // A panic there is one here, as if it had run on this thread.
            (written, checks.map(|handle| handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))))
        });
        let wrote = written?;
        let (mut diagnostics, done) = checked.unwrap_or_else(beside);
        // The server is told only once the write landed, never beside it.
        diagnostics.server_diagnostics = self.server_after(workspace, read.path());
        let done = done.expect("`also` runs exactly once: on the thread, or here when none started");
        Ok((wrote, diagnostics, done))
    }

    /// Restores a file to its content before the last change made through editkit (the file
    /// is deleted if the change created it). Refused if the file changed since, unless forced.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit::Error> {
    /// use editkit::{UndoEditRequest, WriteFileRequest};
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "before\n").unwrap();
    /// let toolkit = editkit::Toolkit::open(dir.path(), Default::default())?;
    /// toolkit.write_file(WriteFileRequest::new("a.txt", "after\n"))?;
    /// toolkit.undo_edit(UndoEditRequest::new("a.txt"))?;
    /// assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "before\n");
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// `not_found` when there is nothing to undo, `stale`, path errors.
    pub fn undo_edit(&self, request: UndoEditRequest) -> Result<UndoResponse> {
        self.admit(Tool::UndoEdit, false)?;
        let (_, workspace) = self.route(&request.path);
        let rel = workspace.resolve(&request.path)?;
        let remaining = history::undo(workspace, &request.path, &rel, request.force)?;
        Ok(UndoResponse { restored: vec![rel], remaining })
    }

    /// The unified diff between a file and proposed content, without writing.
    ///
    /// # Errors
    /// Path and encoding errors.
    pub fn generate_diff(&self, request: GenerateDiffRequest) -> Result<GenerateDiffResponse> {
        let (_, workspace) = self.route(&request.path);
        let old = match workspace.peek(&request.path) {
            Ok(file) => file.text().to_owned(),
            Err(editkit_vfs::Error::NotFound { .. }) => String::new(),
            Err(err) => return Err(err.into()),
        };
        let new = Text::new(&request.new_content, editkit_vfs::LineEnding::Lf, false).into_string();
        let rel = workspace.resolve(&request.path)?;
        let diff = crate::shown::diff_file(&rel, &old, &new, request.context_lines);
        let (additions, deletions) = diff::counts(&old, &new);
        Ok(GenerateDiffResponse { has_changes: old != new, diff, additions, deletions })
    }
}

/// `text` with each replacement of `replaced` spliced into the decoded text, so untouched lines
/// keep their bytes (line endings, BOM); `field` names the argument a range error is about.
/// A line's number and text when it starts with the prefix of editkit's numbered views: the
/// number right-aligned in six columns (or wider when longer) and a tab, as `cat -n` writes it.
fn view_prefix(line: &str) -> Option<(u64, &str)> {
    let tab = line.find('\t')?;
    let prefix = &line[..tab];
    let digits = prefix.trim_start_matches(' ');
    if digits.is_empty() || digits.len() > 12 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if prefix.len() != digits.len().max(6) {
        return None;
    }
    Some((digits.parse().ok()?, &line[tab + 1..]))
}

/// `text` copied from a numbered view: when every line has the view's prefix and the numbers
/// count up by one, the first number and the text without them.
///
/// ```text
/// "    12\tdef f():\n    13\t    pass\n" -> (12, "def f():\n    pass\n")
/// ```
fn strip_view_numbers(text: &str) -> Option<(u64, String)> {
    let mut out = String::with_capacity(text.len());
    let mut first = None;
    let mut expected: Option<u64> = None;
    for line in text.split_inclusive('\n') {
        let (number, rest) = view_prefix(line)?;
        if expected.is_some_and(|want| want != number) {
            return None;
        }
        first.get_or_insert(number);
        expected = Some(number + 1);
        out.push_str(rest);
    }
    Some((first?, out))
}

/// `text` with the view prefix taken off each line that has one (new text a model wrote
/// around lines it copied from a numbered view).
fn strip_view_prefixes(text: &str) -> String {
    text.split_inclusive('\n').map(|line| view_prefix(line).map_or(line, |(_, rest)| rest)).collect()
}

/// An edit worked out, before anything is written ([`Toolkit::edit`]).
#[derive(Debug)]
pub(crate) struct PreparedEdit {
    /// The file's canonical path.
    path: String,
    replacements: usize,
    rung: matcher::Rung,
    score: f64,
    alignment: matcher::Alignment,
    line_range: [usize; 2],
    line_ranges: Vec<[usize; 2]>,
    line_numbers_stripped: bool,
    pub(crate) new_text: Text,
    /// Each edit's placement, for a several-edit call.
    placements: Vec<EditPlacement>,
    /// The byte ranges replaced and their new text, when asked for (a merge carries them over
    /// to the file as it is now).
    pieces: Vec<(std::ops::Range<usize>, String)>,
}

impl PreparedEdit {
    /// This edit, planned on the version read, on the file as it is now (`current`): its pieces
    /// where `rebased` put them and its lines numbered as there.
    fn rebased(self, current: &Text, rebased: &matcher::rebase::Rebased) -> Result<PreparedEdit> {
        let edits: Vec<(std::ops::Range<usize>, &str)> =
            rebased.pieces.iter().map(|(range, piece)| (range.clone(), piece.as_str())).collect();
        let new_text =
            current.spliced(&edits).map_err(|e| Error::invalid("old_string", format!("internal range error: {e}")))?;
        let line = |[first, last]: [usize; 2]| [rebased.line(first), rebased.line(last)];
        Ok(PreparedEdit {
            line_range: line(self.line_range),
            line_ranges: self.line_ranges.into_iter().map(line).collect(),
            placements: self
                .placements
                .into_iter()
                .map(|placement| EditPlacement {
                    line_range: line(placement.line_range),
                    line_ranges: placement.line_ranges.into_iter().map(line).collect(),
                    ..placement
                })
                .collect(),
            new_text,
            pieces: Vec::new(),
            ..self
        })
    }
}

/// Where one planned edit lands.
fn placement(replaced: &matcher::Planned) -> EditPlacement {
    let matches = replaced.matches();
    EditPlacement {
        replacements: matches.len(),
        rung: replaced.rung(),
        score: matches.iter().map(matcher::Match::score).fold(1.0_f64, f64::min),
        alignment: if matches.iter().any(|m| m.alignment() == matcher::Alignment::Merged) {
            matcher::Alignment::Merged
        } else {
            matcher::Alignment::Aligned
        },
        line_range: matches.first().map_or([0, 0], |m| [m.first_line(), m.last_line()]),
        line_ranges: matches.iter().map(|m| [m.first_line(), m.last_line()]).collect(),
    }
}

impl PreparedEdit {
    /// The response to `request`, given the diff (and whether it was cut), the sizes and the
    /// hash of what the file holds (no diagnostics or backup path yet), and the new text.
    pub(crate) fn into_response(
        self,
        request: &EditFileRequest,
        diff: (String, bool),
        old_size: u64,
        new_size: u64,
        sha256: editkit_vfs::Sha256,
    ) -> (EditFileResponse, Text) {
        let response = EditFileResponse {
            path: self.path,
            replacements: self.replacements,
            rung: self.rung,
            score: self.score,
            alignment: self.alignment,
            line_range: self.line_range,
            line_ranges: self.line_ranges,
            diff: diff.0,
            diff_truncated: diff.1,
            old_size,
            new_size,
            sha256,
            backup_path: None,
            dry_run: request.dry_run,
            line_numbers_stripped: self.line_numbers_stripped,
            diagnostics: DiagnosticsInfo::default(),
            edits: self.placements,
            merged_with: None,
        };
        (response, self.new_text)
    }
}

/// A file as read for an edit, and the hash a write over it must find (`None`: the one the
/// staleness guard vouches for; a merged edit gives the file as found).
pub(crate) struct ReadForWrite<'a> {
    pub(crate) file: &'a editkit_vfs::FileText,
    pub(crate) expected_hash: Option<editkit_vfs::Sha256>,
}

/// What [`Toolkit::write_kept`] did.
#[derive(Debug)]
pub(crate) struct KeptWrite {
    /// The write; the formatter's, when it rewrote the content.
    pub(crate) written: editkit_vfs::Written,
    /// Where the previous content is kept for undo, when the file existed.
    pub(crate) kept: Option<String>,
    /// The formatter rewrote the content given.
    pub(crate) reformatted: bool,
}

impl Toolkit {
    /// The matcher's bounds for an edit: its text may not grow past the read limit, which no
    /// tool could read back.
    pub(crate) fn output_limits(&self) -> matcher::Limits {
        let max_output_bytes = usize::try_from(self.options.max_read_bytes).unwrap_or(usize::MAX);
        matcher::Limits { max_output_bytes, ..Default::default() }
    }

    /// The matcher's refusal of an edit of `path`; an edit whose text would pass the read limit
    /// names the limit and its option.
    pub(crate) fn edit_error(&self, path: &str, source: matcher::Error) -> Error {
        match source {
            matcher::Error::OutputTooLarge { size, limit } => too_large_to_read(path, size, limit),
            source => Error::Edit { path: path.to_owned(), source },
        }
    }

    /// Refuses text of `size` bytes for `path` that would be larger than the read limit (the
    /// check before it is encoded and written).
    pub(crate) fn check_readable(&self, path: &str, size: usize) -> Result<()> {
        let limit = self.options.max_read_bytes;
        if size as u64 > limit {
            return Err(too_large_to_read(path, size as u64, limit));
        }
        Ok(())
    }
}

/// `path` would hold `size` bytes, more than the read limit `limit`.
fn too_large_to_read(path: &str, size: u64, limit: u64) -> Error {
    Error::LimitExceeded {
        what: format!("`{path}` after this change"),
        size,
        limit,
        option: "max_read_bytes (--max-read-bytes)".into(),
        advice: "no tool could read the file back, so nothing was changed; replace fewer places or with shorter text, \
                 or write less"
            .into(),
    }
}

/// `text` with the planned pieces in place: one copy of the text.
pub(crate) fn splice_replaced(text: &Text, planned: &matcher::Planned, field: &str) -> Result<Text> {
    let edits: Vec<(std::ops::Range<usize>, &str)> = planned.edits().collect();
    text.spliced(&edits).map_err(|e| Error::invalid(field, format!("internal range error: {e}")))
}

/// The encoding an `encoding` argument names (`None` when none is given).
pub(crate) fn encoding_arg(label: Option<&str>) -> Result<Option<editkit_vfs::Encoding>> {
    label
        .map(|label| {
            editkit_vfs::Encoding::for_label(label).ok_or_else(|| {
                Error::invalid(
                    "encoding",
                    format!(
                        "unknown encoding `{label}`; give a WHATWG label such as `utf-8`, `windows-1252`, \
                         `windows-1251`, `shift_jis`, `euc-kr`, `gbk`, `big5` or `utf-16le`"
                    ),
                )
            })
        })
        .transpose()
}

/// The error for a new text of `path` holding a character its encoding cannot hold.
pub(crate) fn unencodable(path: &str, err: editkit_vfs::Unencodable) -> Error {
    editkit_vfs::Error::from_unencodable(path, err).into()
}

#[cfg(test)]
mod tests {
    use super::{strip_view_numbers, strip_view_prefixes};

    #[test]
    fn numbered_views_lose_their_numbers() {
        assert_eq!(
            strip_view_numbers("    12\tdef f():\n    13\t    pass\n"),
            Some((12, "def f():\n    pass\n".to_owned()))
        );
        assert_eq!(strip_view_numbers("     7\t"), Some((7, String::new())));
        assert_eq!(strip_view_numbers("1234567\tlong\n"), Some((1234567, "long\n".to_owned())));
        // Not consecutive: not a copied view.
        assert_eq!(strip_view_numbers("     1\ta\n     3\tb\n"), None);
        // A line without the prefix, another width (a TSV row), or digits without a tab.
        assert_eq!(strip_view_numbers("     1\ta\nb\n"), None);
        assert_eq!(strip_view_numbers("1\ta\n2\tb\n"), None);
        assert_eq!(strip_view_numbers("   123 x\n"), None);
        assert_eq!(strip_view_numbers(""), None);
        // New text: numbered lines lose the prefix, lines the model added keep theirs.
        assert_eq!(strip_view_prefixes("    12\tfoo\nbar\n    13\tbaz"), "foo\nbar\nbaz");
        assert_eq!(strip_view_prefixes("5\tcell\n"), "5\tcell\n");
    }
}
