//! The facade's error: lower crates' errors wrapped, never flattened, plus the facade's own.

use serde_json::{Map, Value, json};

use crate::types::{ErrorDetails, ErrorKind, Mode, NearMissInfo};

/// Everything a tool call can fail with. [`Error::error_kind`] gives the tool-call contract's stable
/// word and [`Error::details`] the structured data an agent needs to retry.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Refused or failed by the sandbox (paths, staleness, encodings, I/O).
    #[error(transparent)]
    Vfs(#[from] editkit_vfs::Error),
    /// The edit could not be placed in a file.
    #[error("{path}: {source}")]
    Edit {
        /// The file being edited.
        path: String,
        /// Why the matcher refused.
        #[source]
        source: editkit_matcher::Error,
    },
    /// The file changed since it was read, and the change touches what the edit changes (or
    /// the edit does not apply to the version read); nothing was changed.
    #[error("{source}; {}; read the file again (the change is in outside_diff)", match change.edit_lines {
        Some([first, last]) => format!("the change made since the read touches lines {first}-{last} of the version read, which this edit changes"),
        None => "the edit does not apply to the version read either".to_owned(),
    })]
    ChangedOutside {
        /// The staleness refusal.
        #[source]
        source: Box<editkit_vfs::Error>,
        /// The outside change and what it touched.
        change: Box<OutsideChange>,
    },
    /// A snippet could not be merged into a file.
    #[error("{path}: {source}")]
    Snippet {
        /// The file being edited.
        path: String,
        /// Why the merge was refused.
        #[source]
        source: editkit_matcher::snippet::Error,
    },
    /// One edit of a several-edit call (`edits[index]`) was refused; nothing was changed.
    #[error("edits[{index}] of {count}: {source}; nothing was changed, no edit of the call was applied")]
    InEdit {
        /// The edit's place in `edits`, from 0.
        index: usize,
        /// How many edits the call gave.
        count: usize,
        /// Why it was refused.
        #[source]
        source: Box<Error>,
    },
    /// Code analysis refused (unknown symbol, unsupported language, syntax errors in a result).
    #[cfg(feature = "analyze")]
    #[error("{path}: {source}")]
    Analyze {
        /// The file analysed.
        path: String,
        /// What analysis reported.
        #[source]
        source: editkit_analyze::Error,
    },
    /// The search could not run.
    #[cfg(feature = "search")]
    #[error(transparent)]
    Search(#[from] editkit_search::Error),
    /// The patch was refused or failed; nothing was changed.
    #[cfg(feature = "patch")]
    #[error(transparent)]
    Patch(#[from] editkit_patch::Error),
    /// A set of edits across files (a rename's) was refused whole; nothing was changed.
    #[cfg(feature = "patch")]
    #[error(transparent)]
    EditSet(#[from] EditSetError),
    /// The content has syntax errors; nothing was written.
    #[error("`{path}` has syntax errors, nothing was written: {}", describe(errors))]
    SyntaxError {
        /// The file that would have been written.
        path: String,
        /// The errors found.
        errors: Vec<crate::SyntaxErrorInfo>,
    },
    /// The arguments of a call do not fit the tool's schema.
    #[error("invalid arguments{}: {message}", field.as_deref().map(|f| format!(" (field `{f}`)")).unwrap_or_default())]
    InvalidArgs {
        /// The offending field, when one is to blame.
        field: Option<String>,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// No tool has this name.
    #[error("unknown tool `{name}`; available tools: {available}")]
    UnknownTool {
        /// The name asked for.
        name: String,
        /// Comma-separated list of tool names.
        available: String,
    },
    /// No editor session has this id.
    #[error("no editor session `{id}`; open one with editor_load")]
    NoSession {
        /// The id asked for.
        id: String,
    },
    /// The editor session was evicted to keep sessions within their bounds.
    #[error(
        "editor session `{id}` was evicted: it was the least recently used when the session limits ({limits}) were \
         reached{}; load `{path}` again with editor_load",
        if *unstored { ", and its changes that were not stored are lost" } else { "" }
    )]
    SessionEvicted {
        /// The id asked for.
        id: String,
        /// The file the session held.
        path: String,
        /// Whether the session held changes not stored to the file.
        unstored: bool,
        /// The bounds in force, in words.
        limits: String,
    },
    /// The handle of an editor session kept in the state folder (one a stateless request
    /// opened) is unknown, expired or was closed to keep the bounds.
    #[error(
        "editor session `{id}` is unknown or has expired: a session a stateless request opened lasts {minutes} \
         minutes after its last load, change or store, and the least recently changed are closed past the session \
         limits; load `{path}` again with editor_load"
    )]
    SessionExpired {
        /// The handle asked for.
        id: String,
        /// The file the handle names.
        path: String,
        /// The lifetime of a session, in minutes.
        minutes: u64,
    },
    /// Another call is changing this editor session right now.
    #[error(
        "editor session `{id}` is being changed by another call right now; call again once that call has returned \
         (its change is kept)"
    )]
    SessionBusy {
        /// The handle asked for.
        id: String,
    },
    /// A bound on the memory or work one call may use was reached; nothing was changed.
    #[error("{what} is {size} bytes, over the limit of {limit} bytes (`{option}`); {advice}")]
    LimitExceeded {
        /// What is too large.
        what: String,
        /// Its size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
        /// The option that sets the limit.
        option: String,
        /// What to do instead.
        advice: String,
    },
    /// There is no earlier version to go back to.
    #[error("nothing to undo for `{what}`; only changes made through editkit are kept")]
    NothingToUndo {
        /// The file, or `patch`.
        what: String,
    },
    /// A notebook tool refused (not a notebook, no such cell, past a bound).
    #[error("`{path}`: {source}")]
    Notebook {
        /// The notebook.
        path: String,
        /// Why.
        #[source]
        source: crate::notebook::Error,
    },
    /// The toolkit was opened read-only and the tool would write.
    #[error("`{tool}` writes, and this toolkit is read-only")]
    ReadOnly {
        /// The tool refused.
        tool: String,
    },
    /// A language server's rename was refused whole before anything was written: it would
    /// touch a file outside the workspace, create, delete or move a file, or its edits do not
    /// fit the file as editkit sent it.
    #[cfg(feature = "lsp")]
    #[error("{source}; nothing was changed")]
    Rename {
        /// Why.
        #[source]
        source: editkit_lsp::EditError,
    },
    /// No language server answers for this file: none is installed outside the workspace,
    /// it could not start, or language servers are off. Nothing was changed.
    #[error("no {language} language server: {reason}{}", install.as_deref().map(|how| format!("; install one: {how}")).unwrap_or_default())]
    Unavailable {
        /// The language (`python`, `typescript`, `rust`).
        language: String,
        /// Why none answers (never the server's own output, which can quote files).
        reason: String,
        /// What to install, when installing one would help.
        install: Option<String>,
    },
    /// The roots a client named cannot be used (none is a local folder, or they do not open):
    /// every call is refused until it names usable ones.
    #[error("{problem}; fix the client's roots")]
    UnusableRoots {
        /// What is wrong with them.
        problem: String,
    },
}

#[cfg(feature = "lsp")]
impl From<editkit_lsp::Unavailable> for Error {
    fn from(unavailable: editkit_lsp::Unavailable) -> Error {
        Error::Unavailable {
            language: unavailable.language.as_str().to_owned(),
            reason: unavailable.reason,
            install: Some(unavailable.install),
        }
    }
}

/// Why an edit set was refused; nothing was changed.
#[cfg(feature = "patch")]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EditSetError {
    /// More files than one transaction may hold.
    #[error(
        "the edits change {files} files, more than {limit} (`MAX_PATCH_FILES`, the most one transaction holds); \
         nothing was changed"
    )]
    TooManyFiles {
        /// Files named.
        files: usize,
        /// `editkit_patch::MAX_PATCH_FILES`.
        limit: usize,
    },
    /// More edits than one edit set may hold.
    #[error("the edits number {edits}, more than {limit} (`MAX_EDIT_SET_EDITS`); nothing was changed")]
    TooManyEdits {
        /// Edits given, over all files.
        edits: usize,
        /// `MAX_EDIT_SET_EDITS`.
        limit: usize,
    },
    /// The diff of the edits would be larger than one call's answer may be.
    #[error(
        "the diff of the edits is over {size} bytes, more than the limit of {limit} bytes (`max_call_bytes`); \
         nothing was changed"
    )]
    DiffTooLarge {
        /// Bytes of diff counted when the limit was passed.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// An edit's range is reversed, past the end of the text or off a character boundary.
    #[error(
        "`{path}`: edit {index} replaces bytes {start}..{end}, which is not a range of the file's {len} bytes of \
         text on character boundaries; nothing was changed"
    )]
    OutOfRange {
        /// The file.
        path: String,
        /// The edit's place in the file's edits, from 0.
        index: usize,
        /// Start of its range.
        start: usize,
        /// End of its range.
        end: usize,
        /// Bytes of the file's decoded text.
        len: usize,
    },
    /// Two edits of one file overlap, or one inserts at the other's place (in no defined order).
    #[error("`{path}`: edits {first} and {second} overlap; nothing was changed")]
    Overlapping {
        /// The file.
        path: String,
        /// One edit's place in the file's edits, from 0.
        first: usize,
        /// The other's.
        second: usize,
    },
    /// Two entries of the set name the same file.
    #[error("`{path}` is named twice in the edits (as `{again}` too); give each file's edits once")]
    NamedTwice {
        /// The file as first named.
        path: String,
        /// The other name it was given.
        again: String,
    },
    /// A file is not UTF-8 text (a rename's positions are those of UTF-8 text).
    #[error("`{path}` is {encoding} text, not UTF-8; nothing was changed")]
    NotUtf8 {
        /// The file.
        path: String,
        /// Its encoding's label.
        encoding: String,
    },
    /// The set changes a file its plan did not name, or no longer changes one it named.
    #[error(
        "{}; nothing was changed: make the plan again (a dry run)",
        if *in_plan { format!("the plan names `{path}`, which the edits no longer change") }
        else { format!("the edits change `{path}`, which the plan does not name") }
    )]
    PlanDiffers {
        /// The file.
        path: String,
        /// Whether the plan names it (and the edits do not change it).
        in_plan: bool,
    },
    /// The edits change no file.
    #[error("the edits change nothing (every edit puts back the text it replaces)")]
    NothingChanges,
    /// A file's name or text cannot be carried by the diff the transaction is made from.
    #[error("`{path}` cannot be written through a patch ({reason}); nothing was changed")]
    Unrepresentable {
        /// The file.
        path: String,
        /// What did not come through.
        reason: String,
    },
}

#[cfg(feature = "patch")]
impl EditSetError {
    /// The contract's kind word of this refusal.
    pub(crate) fn error_kind(&self) -> crate::types::ErrorKind {
        use crate::types::ErrorKind as K;
        match self {
            EditSetError::TooManyFiles { .. }
            | EditSetError::TooManyEdits { .. }
            | EditSetError::DiffTooLarge { .. } => K::TooLarge,
            EditSetError::OutOfRange { .. }
            | EditSetError::Overlapping { .. }
            | EditSetError::NamedTwice { .. }
            | EditSetError::Unrepresentable { .. } => K::InvalidArgs,
            EditSetError::NotUtf8 { .. } => K::NotUtf8,
            EditSetError::PlanDiffers { .. } => K::Stale,
            EditSetError::NothingChanges => K::NoChange,
        }
    }

    /// The file the refusal is about, when one is.
    pub(crate) fn path(&self) -> Option<&str> {
        match self {
            EditSetError::OutOfRange { path, .. }
            | EditSetError::Overlapping { path, .. }
            | EditSetError::NamedTwice { path, .. }
            | EditSetError::NotUtf8 { path, .. }
            | EditSetError::PlanDiffers { path, .. }
            | EditSetError::Unrepresentable { path, .. } => Some(path),
            _ => None,
        }
    }
}

/// A change made to a file since it was read that an edit could not be merged with.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OutsideChange {
    /// 1-based first and last line, in the version read, of the edit's piece that could not be
    /// carried over (`None`: the edit does not apply to the version read).
    pub edit_lines: Option<[usize; 2]>,
    /// 1-based line ranges the outside change touched, in the file as it is.
    pub outside_lines: Vec<[usize; 2]>,
    /// The outside change as a bounded diff.
    pub outside_diff: String,
}

fn describe(errors: &[crate::SyntaxErrorInfo]) -> String {
    let shown: Vec<String> =
        errors.iter().take(5).map(|e| format!("line {}:{} {}", e.line, e.column, e.message)).collect();
    let more = errors.len().saturating_sub(5);
    if more > 0 { format!("{} (and {more} more)", shown.join("; ")) } else { shown.join("; ") }
}

/// The contract kind of a refused rename: a file outside the workspace is
/// `outside_workspace`; edits for another version or text of a file are `stale`; past a bound,
/// `too_large`; an edit editkit does not make (creating, deleting or moving a file, writing
/// other text than the new name, ranges that do not fit) is `blocked`.
#[cfg(feature = "lsp")]
fn rename_kind(error: &editkit_lsp::EditError) -> ErrorKind {
    use editkit_lsp::EditError as E;
    match error {
        E::Outside { .. } | E::NotAFile { .. } => ErrorKind::OutsideWorkspace,
        E::Stale { .. } | E::Mismatch { .. } | E::ViewChanged { .. } => ErrorKind::Stale,
        E::TooManyFiles { .. } | E::TooLarge { .. } => ErrorKind::TooLarge,
        E::Unreadable { .. } => ErrorKind::Io,
        _ => ErrorKind::Blocked,
    }
}

fn from_vfs(kind: editkit_vfs::ErrorKind) -> ErrorKind {
    use editkit_vfs::ErrorKind as V;
    match kind {
        V::InvalidArgs => ErrorKind::InvalidArgs,
        V::OutsideWorkspace => ErrorKind::OutsideWorkspace,
        V::Blocked => ErrorKind::Blocked,
        V::NotFound => ErrorKind::NotFound,
        V::IsDirectory => ErrorKind::IsDirectory,
        V::Exists => ErrorKind::Exists,
        V::TooLarge => ErrorKind::TooLarge,
        V::Utf16 => ErrorKind::Utf16,
        V::NotUtf8 => ErrorKind::NotUtf8,
        V::Binary => ErrorKind::Binary,
        V::NotEncodable => ErrorKind::NotEncodable,
        V::Stale => ErrorKind::Stale,
        V::PermissionDenied => ErrorKind::PermissionDenied,
        V::Io => ErrorKind::Io,
    }
}

fn from_matcher(kind: editkit_matcher::ErrorKind) -> ErrorKind {
    use editkit_matcher::ErrorKind as M;
    match kind {
        M::EmptyNeedle | M::InvalidRange => ErrorKind::InvalidArgs,
        M::LimitExceeded => ErrorKind::TooLarge,
        M::NotFound => ErrorKind::NotFound,
        M::Ambiguous => ErrorKind::Ambiguous,
        M::AlreadyApplied => ErrorKind::AlreadyApplied,
        M::NoChange => ErrorKind::NoChange,
    }
}

#[cfg(feature = "analyze")]
fn from_analyze(kind: editkit_analyze::ErrorKind) -> ErrorKind {
    use editkit_analyze::ErrorKind as A;
    match kind {
        A::InvalidArgs => ErrorKind::InvalidArgs,
        A::TooLarge => ErrorKind::TooLarge,
        A::NotFound => ErrorKind::NotFound,
        A::Ambiguous => ErrorKind::Ambiguous,
        A::SyntaxError => ErrorKind::SyntaxError,
    }
}

#[cfg(feature = "patch")]
fn from_patch(kind: editkit_patch::ErrorKind) -> ErrorKind {
    use editkit_patch::ErrorKind as P;
    match kind {
        P::InvalidPatch => ErrorKind::InvalidPatch,
        P::TooLarge => ErrorKind::TooLarge,
        P::Io => ErrorKind::Io,
        P::Exists => ErrorKind::Exists,
        P::NotFound => ErrorKind::NotFound,
        P::Ambiguous => ErrorKind::Ambiguous,
        P::AlreadyApplied => ErrorKind::AlreadyApplied,
        P::NoChange => ErrorKind::NoChange,
        P::Vfs(kind) => from_vfs(kind),
    }
}

impl Error {
    /// The kind of this error; [`ErrorKind::as_str`] is the stable word of the tool-call
    /// contract (one of [`crate::ERROR_KINDS`]).
    #[must_use]
    pub fn error_kind(&self) -> ErrorKind {
        match self {
            Error::Vfs(err) => from_vfs(err.error_kind()),
            Error::Edit { source, .. } => from_matcher(source.error_kind()),
            Error::InEdit { source, .. } => source.error_kind(),
            Error::Snippet { source, .. } => from_matcher(source.error_kind()),
            Error::ChangedOutside { source, .. } => from_vfs(source.error_kind()),
            #[cfg(feature = "analyze")]
            Error::Analyze { source, .. } => from_analyze(source.error_kind()),
            #[cfg(feature = "search")]
            Error::Search(err) => from_vfs(err.error_kind()),
            #[cfg(feature = "patch")]
            Error::Patch(err) => from_patch(err.error_kind()),
            #[cfg(feature = "patch")]
            Error::EditSet(err) => err.error_kind(),
            Error::SyntaxError { .. } => ErrorKind::SyntaxError,
            Error::InvalidArgs { .. } | Error::UnknownTool { .. } => ErrorKind::InvalidArgs,
            Error::NoSession { .. }
            | Error::SessionEvicted { .. }
            | Error::SessionExpired { .. }
            | Error::NothingToUndo { .. } => ErrorKind::NotFound,
            Error::SessionBusy { .. } => ErrorKind::Stale,
            Error::LimitExceeded { .. } => ErrorKind::TooLarge,
            Error::Notebook { source, .. } => match source {
                crate::notebook::Error::NotNotebook { .. } => ErrorKind::InvalidArgs,
                crate::notebook::Error::NoCell { .. } => ErrorKind::NotFound,
                crate::notebook::Error::TooManyCells { .. } | crate::notebook::Error::SourceTooLarge { .. } => {
                    ErrorKind::TooLarge
                }
            },
            Error::ReadOnly { .. } => ErrorKind::Blocked,
            Error::UnusableRoots { .. } => ErrorKind::OutsideWorkspace,
            Error::Unavailable { .. } => ErrorKind::Unavailable,
            #[cfg(feature = "lsp")]
            Error::Rename { source } => rename_kind(source),
        }
    }

    /// Structured details beside `kind` and `message` (candidate lines, the closest region,
    /// hashes, syntax errors...); [`Error::to_json`] writes them as fields of the error object.
    #[must_use]
    pub fn details(&self) -> ErrorDetails {
        let mut details = ErrorDetails::default();
        let at = |path: &str| Some(path.to_owned());
        match self {
            Error::Vfs(err) => vfs_details(err, &mut details),
            Error::Edit { path, source } => {
                details.path = at(path);
                matcher_details(source, &mut details);
            }
            Error::ChangedOutside { source, change } => {
                vfs_details(source, &mut details);
                details.edit_lines = change.edit_lines;
                details.outside_lines = Some(change.outside_lines.clone());
                details.outside_diff = Some(change.outside_diff.clone());
            }
            Error::Snippet { path, source } => {
                details.path = at(path);
                snippet_details(source, &mut details);
            }
            Error::InEdit { index, source, .. } => {
                details = source.details();
                details.edit_index = Some(*index);
            }
            #[cfg(feature = "analyze")]
            Error::Analyze { path, source } => {
                details.path = at(path);
                analyze_details(source, &mut details);
            }
            #[cfg(feature = "search")]
            Error::Search(_) => {}
            #[cfg(feature = "patch")]
            Error::Patch(err) => details.failures = patch_failures(err),
            #[cfg(feature = "patch")]
            Error::EditSet(err) => details.path = err.path().map(str::to_owned),
            Error::SyntaxError { path, errors } => {
                details.path = at(path);
                details.syntax_errors = Some(errors.clone());
            }
            Error::InvalidArgs { field, .. } => details.field.clone_from(field),
            Error::UnknownTool { name, .. } => {
                details.tool = Some(name.clone());
                // The call's `tool` field is the one to fix.
                details.field = at("tool");
            }
            Error::NoSession { id } => details.session_id = Some(id.clone()),
            Error::SessionExpired { id, path, .. } => {
                details.session_id = Some(id.clone());
                details.path = at(path);
                details.expired = Some(true);
            }
            Error::SessionBusy { id } => {
                details.session_id = Some(id.clone());
                details.busy = Some(true);
            }
            Error::SessionEvicted { id, path, unstored, .. } => {
                details.session_id = Some(id.clone());
                details.path = at(path);
                details.evicted = Some(true);
                details.unstored_changes_lost = Some(*unstored);
            }
            Error::LimitExceeded { size, limit, option, .. } => {
                details.size_bytes = Some(*size);
                details.limit_bytes = Some(*limit);
                details.limit = Some(option.clone());
            }
            Error::NothingToUndo { what } => details.path = at(what),
            Error::ReadOnly { tool } => details.tool = Some(tool.clone()),
            Error::UnusableRoots { .. } => {}
            #[cfg(feature = "lsp")]
            Error::Rename { .. } => {}
            Error::Unavailable { language, install, .. } => {
                details.language = Some(language.clone());
                details.install.clone_from(install);
            }
            Error::Notebook { path, source } => {
                details.path = at(path);
                notebook_details(source, &mut details);
            }
        }
        details
    }

    /// The message of the contract's error object: [`Error`]'s `Display` written for a reader
    /// (every control character, separator and bidi control escaped by [`crate::shown::line`],
    /// so a name or an agent's input inside it cannot add a line or drive a terminal; a
    /// patch's failures stay one line each, and a regex engine's explanation of a pattern
    /// keeps its lines), with every quote of input (a path, a pattern, a name between
    /// backticks) longer than [`MAX_QUOTE_BYTES`] cut to its start and end, and the whole kept
    /// within [`MAX_MESSAGE_BYTES`], so a call never gets its own large input back.
    ///
    /// ```
    /// let path = "a/".repeat(2_500);
    /// let err = editkit::Error::from(editkit::vfs::Error::NotFound { path: path.clone() });
    /// assert!(err.to_string().len() > 5_000);
    /// assert!(err.message().len() < 400, "{}", err.message());
    /// ```
    #[must_use]
    pub fn message(&self) -> String {
        cut_message(&self.shown())
    }

    /// `{"kind": ..., "message": ..., ...details}`, the error object of the contract. The
    /// message is [`Error::message`]; details that repeat input (`path`, `tool`, `field`,
    /// `session_id`) are cut like its quotes.
    #[must_use]
    pub fn to_json(&self) -> Value {
        let mut details = self.details();
        for text in
            [&mut details.path, &mut details.tool, &mut details.field, &mut details.session_id].into_iter().flatten()
        {
            if text.len() > MAX_QUOTE_BYTES {
                *text = cut_middle(text, MAX_QUOTE_BYTES);
            }
        }
        let mut map = match serde_json::to_value(details) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        map.insert("kind".into(), json!(self.error_kind()));
        map.insert("message".into(), json!(self.message()));
        Value::Object(map)
    }

    /// [`Display`](std::fmt::Display)'s text escaped for a reader (see [`Error::message`]).
    fn shown(&self) -> String {
        let text = self.to_string();
        #[cfg(feature = "patch")]
        if let Error::Patch(err) = self
            && !err.failures().is_empty()
        {
            let head = text.split_once('\n').map_or(text.as_str(), |(head, _)| head);
            let mut message = crate::shown::line(head).into_owned();
            for failure in err.failures() {
                message.push_str("\n- ");
                message.push_str(&crate::shown::line(&failure.to_string()));
            }
            return message;
        }
        // A regex engine's explanation points at the pattern on lines of its own: they stay
        // when the pattern holds nothing to escape (so the lines are the engine's).
        #[cfg(feature = "search")]
        if let Error::Search(editkit_search::Error::InvalidPattern { pattern, .. }) = self
            && !pattern.chars().any(crate::shown::is_misleading)
        {
            return crate::shown::lines(&text).into_owned();
        }
        crate::shown::line(&text).into_owned()
    }

    pub(crate) fn invalid(field: &str, message: impl Into<String>) -> Error {
        Error::InvalidArgs { field: Some(field.to_owned()), message: message.into() }
    }
}

/// Longest quote of input an error message keeps whole, in bytes; a longer one keeps its
/// start and end around a note of how much was left out.
pub const MAX_QUOTE_BYTES: usize = 200;
/// Longest line of an error message, in bytes (a regex error shows the pattern on a line of
/// its own); cut like a quote.
const MAX_MESSAGE_LINE_BYTES: usize = 500;
/// Longest error message, in bytes.
pub const MAX_MESSAGE_BYTES: usize = 4_000;

/// `message` with its long quotes, long lines and its length cut (see [`Error::message`]).
pub(crate) fn cut_message(message: &str) -> String {
    if message.len() <= MAX_QUOTE_BYTES {
        return message.to_owned();
    }
    // Between backticks at odd positions: the quotes.
    let quoted: Vec<String> = message
        .split('`')
        .enumerate()
        .map(|(at, part)| if at % 2 == 1 { cut_middle(part, MAX_QUOTE_BYTES) } else { part.to_owned() })
        .collect();
    let lines: Vec<String> =
        quoted.join("`").split('\n').map(|line| cut_middle(line, MAX_MESSAGE_LINE_BYTES)).collect();
    cut_middle(&lines.join("\n"), MAX_MESSAGE_BYTES)
}

/// `text` within about `max` bytes: its start and end around `…[N bytes left out]…`.
pub(crate) fn cut_middle(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let head = text.floor_char_boundary(max * 2 / 3);
    let tail = text.ceil_char_boundary(text.len() - max / 3);
    format!("{}…[{} bytes left out]…{}", &text[..head], tail - head, &text[tail..])
}

fn vfs_details(err: &editkit_vfs::Error, details: &mut ErrorDetails) {
    use editkit_vfs::Error as E;
    details.path = Some(err.path().to_owned());
    match err {
        E::Stale { expected, current, .. } => {
            details.expected_sha256 = Some(*expected);
            details.current_sha256 = Some(*current);
        }
        E::TooLarge { size, limit, .. } => {
            details.size_bytes = Some(*size);
            details.limit_bytes = Some(*limit);
        }
        E::Blocked { pattern, .. } => details.pattern = Some(pattern.clone()),
        E::HardLinked { links, .. } => details.links = Some(*links),
        E::ReadOnly { mode, .. } => details.mode = Some(Mode(*mode)),
        E::NotUtf8 { offset, guess, .. } => {
            details.offset = Some(*offset);
            details.guess = guess.map(|guess| guess.label().to_owned());
        }
        E::NotInEncoding { offset, encoding, .. } => {
            details.offset = Some(*offset);
            details.encoding = Some(encoding.label().to_owned());
        }
        E::Binary { offset, .. } => details.offset = Some(*offset),
        E::NotEncodable { encoding, character, line, .. } => {
            details.encoding = Some(encoding.label().to_owned());
            details.character = Some(character.to_string());
            details.line = Some(*line);
        }
        _ => {}
    }
}

fn matcher_details(err: &editkit_matcher::Error, details: &mut ErrorDetails) {
    use editkit_matcher::Error as E;
    match err {
        E::NotFound { .. } => details.closest = Some(err.closest().map(NearMissInfo::from)),
        E::Unaligned { reason, .. } => {
            details.closest = Some(err.closest().map(NearMissInfo::from));
            details.reason = Some(reason.clone());
        }
        E::Ambiguous { count, lines, rung } => {
            details.count = Some(*count);
            details.lines = Some(lines.clone());
            details.rung = Some(rung.as_str().to_owned());
        }
        E::AlreadyApplied { line } => details.line = Some(*line),
        _ => {}
    }
}

fn snippet_details(err: &editkit_matcher::snippet::Error, details: &mut ErrorDetails) {
    use editkit_matcher::snippet::Error as E;
    match err {
        E::Empty => details.field = Some("snippet".to_owned()),
        E::NotFound { chunk, snippet_lines, .. } => {
            details.chunk = Some(*chunk);
            details.snippet_lines = Some(*snippet_lines);
        }
        E::Ambiguous { chunk, snippet_lines, lines } | E::DefinedTwice { chunk, snippet_lines, lines, .. } => {
            details.chunk = Some(*chunk);
            details.snippet_lines = Some(*snippet_lines);
            details.lines = Some(lines.clone());
        }
        E::Unaligned { chunk, snippet_lines, lines, deleted } => {
            details.reason = Some("unaligned".to_owned());
            details.chunk = Some(*chunk);
            details.snippet_lines = Some(*snippet_lines);
            details.lines = Some(lines.to_vec());
            details.deleted = Some(*deleted);
        }
        E::NotInDefinition { chunk, snippet_lines, lines, .. } => {
            details.chunk = Some(*chunk);
            details.snippet_lines = Some(*snippet_lines);
            details.lines = Some(lines.to_vec());
        }
        E::Edge { chunk, snippet_line, line } => {
            details.chunk = Some(*chunk);
            details.snippet_line = Some(*snippet_line);
            details.lines = Some(vec![*line]);
        }
        _ => {}
    }
    if let E::DefinedTwice { definition, .. } | E::NotInDefinition { definition, .. } = err {
        details.definition = Some(definition.clone());
    }
}

fn notebook_details(err: &crate::notebook::Error, details: &mut ErrorDetails) {
    use crate::notebook::Error as E;
    match err {
        E::NoCell { count, .. } => details.cell_count = Some(*count),
        E::TooManyCells { count, limit } => {
            details.cell_count = Some(*count);
            details.limit = Some("MAX_CELLS".to_owned());
            details.max_cells = Some(*limit);
        }
        E::SourceTooLarge { size, limit } => {
            details.size_bytes = Some(*size as u64);
            details.limit_bytes = Some(*limit as u64);
            details.limit = Some("MAX_SOURCE_BYTES".to_owned());
            details.field = Some("source".to_owned());
        }
        E::NotNotebook { .. } => details.field = Some("path".to_owned()),
    }
}

/// Every failing hunk of a patch with its path, number, preview, kind and closest region;
/// `None` when the patch failed as a whole.
#[cfg(feature = "patch")]
fn patch_failures(err: &editkit_patch::Error) -> Option<Vec<Value>> {
    let failures = err.failures();
    if failures.is_empty() {
        return None;
    }
    let mut failures: Vec<Value> = failures.iter().map(|failure| json!(failure)).collect();
    // Each failure's message is text a reader sees: one line, as the error's.
    for failure in &mut failures {
        if let Some(Value::String(message)) = failure.get_mut("message") {
            *message = crate::shown::line(message).into_owned();
        }
    }
    Some(failures)
}

#[cfg(feature = "analyze")]
fn analyze_details(err: &editkit_analyze::Error, details: &mut ErrorDetails) {
    use editkit_analyze::Error as E;
    match err {
        E::NotFound { available, .. } => details.available = Some(available.clone()),
        E::Ambiguous { lines, .. } => details.lines = Some(lines.clone()),
        E::SyntaxError { errors } => {
            details.syntax_errors = Some(errors.iter().map(crate::SyntaxErrorInfo::from).collect());
        }
        _ => {}
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<crate::json::ParseError> for Error {
    fn from(err: crate::json::ParseError) -> Self {
        let field = err.duplicate_path().map(str::to_owned);
        Error::InvalidArgs { field, message: err.to_string() }
    }
}
