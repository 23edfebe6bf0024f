//! The one error type of this crate, and the per-hunk failures a plan collects.

use std::fmt;

use serde::ser::SerializeStruct;

/// Everything parsing, planning, committing or recovering a patch can refuse or fail with.
///
/// [`Error::kind`] gives the stable snake_case word of the tool-call contract.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The patch text holds no file operation.
    #[error(
        "the patch has no operations; give at least one `*** Add File:`, `*** Update File:`, `*** Delete File:` \
         section or a unified diff"
    )]
    NoOperations,
    /// The patch text is malformed.
    #[error("invalid patch at line {line}: {reason}")]
    InvalidPatch {
        /// 1-based line of the patch text.
        line: usize,
        /// What is wrong there, and what to write instead.
        reason: String,
    },
    /// A hunk with no change in it.
    #[error("empty hunk for `{path}` at patch line {line}: it changes nothing; add `-`/`+` lines or remove it")]
    EmptyHunk {
        /// The file the hunk belongs to.
        path: String,
        /// 1-based line of the patch text where the hunk starts.
        line: usize,
    },
    /// The patch text is larger than [`crate::MAX_PATCH_BYTES`].
    #[error("the patch is {size} bytes, over the limit of {limit} bytes; split it into several patches")]
    TooLarge {
        /// Size of the patch text in bytes.
        size: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// The patch names more files than [`crate::MAX_PATCH_FILES`]; nothing was locked or
    /// written.
    #[error(
        "the patch names {files} files, over the limit of {limit} files per patch (each is locked until the \
         commit); nothing was changed: split it into patches of at most {limit} files"
    )]
    TooManyFiles {
        /// Files the patch names (a move counts two).
        files: usize,
        /// The limit.
        limit: usize,
    },
    /// Placing the hunks would take more matching work than [`crate::ApplyOptions::max_work`]
    /// allows; nothing was written.
    #[error(
        "placing the hunks of this patch takes at least {work} units of matching work (hunks × bytes searched; \
         `{path}`: {hunks} hunks over {bytes} bytes), over the limit of {limit} (`max_work`, default \
         {default}); nothing was changed: split the patch into smaller ones, or raise the limit \
         (`ApplyOptions::max_work`; editkit: `ToolkitOptions::max_patch_work`, `--max-patch-work`)",
        default = crate::limits::DEFAULT_MAX_WORK
    )]
    WorkLimit {
        /// The file whose hunks passed the limit, as written in the patch.
        path: String,
        /// Its hunks.
        hunks: usize,
        /// The bytes each of them may search.
        bytes: u64,
        /// The work counted so far over the patch, this file included.
        work: u64,
        /// The limit.
        limit: u64,
    },
    /// Planning found problems; nothing was written. Every failing file and hunk is listed.
    #[error("the patch does not apply, nothing was changed; {}", list_failures(.failures))]
    Plan {
        /// Every problem found, in patch order (never empty).
        failures: Vec<Failure>,
    },
    /// A write step of the commit failed.
    #[error("{}", commit_message(.step, *.rolled_back, .source))]
    Commit {
        /// The step that failed (`stage src/a.rs`, `journal`, `rename src/a.rs`...).
        step: String,
        /// Whether every file was put back as it was. When false, the journal was left for
        /// [`crate::recover`], which runs before the next patch on this root.
        rolled_back: bool,
        /// What went wrong.
        #[source]
        source: Box<editkit_vfs::Error>,
    },
    /// A journal left under the state folder cannot be read.
    #[error("the patch journal `{name}` is unreadable ({reason}); check the files it names, then delete it")]
    Journal {
        /// The journal's name under the state folder.
        name: String,
        /// Why it cannot be used.
        reason: String,
    },
    /// A workspace operation outside any single hunk failed (listing journals, locking...).
    #[error(transparent)]
    Vfs(#[from] editkit_vfs::Error),
}

impl Error {
    /// The stable snake_case word of the tool-call contract: `invalid_patch`, `too_large`,
    /// the kind of the first failure for [`Error::Plan`] (`not_found`, `ambiguous`, `exists`,
    /// `stale`, `utf16`, `binary`...), `io` for commit and journal failures, or the workspace's
    /// own word.
    ///
    /// ```
    /// let err = editkit_patch::parse("").unwrap_err();
    /// assert_eq!(err.kind(), "invalid_patch");
    /// ```
    #[must_use]
    pub fn kind(&self) -> &'static str {
        self.error_kind().as_str()
    }

    /// The typed kind of this error (for a plan, its first failure's).
    #[must_use]
    pub fn error_kind(&self) -> ErrorKind {
        match self {
            Error::NoOperations | Error::InvalidPatch { .. } | Error::EmptyHunk { .. } => ErrorKind::InvalidPatch,
            Error::TooLarge { .. } | Error::TooManyFiles { .. } | Error::WorkLimit { .. } => ErrorKind::TooLarge,
            Error::Plan { failures } => failures.first().map_or(ErrorKind::InvalidPatch, Failure::error_kind),
            Error::Commit { .. } | Error::Journal { .. } => ErrorKind::Io,
            Error::Vfs(err) => ErrorKind::Vfs(err.error_kind()),
        }
    }

    /// The failures of a plan (empty for other errors).
    #[must_use]
    pub fn failures(&self) -> &[Failure] {
        match self {
            Error::Plan { failures } => failures,
            _ => &[],
        }
    }
}

fn list_failures(failures: &[Failure]) -> String {
    let mut out = format!("{} problem{}:", failures.len(), if failures.len() == 1 { "" } else { "s" });
    for failure in failures {
        out.push_str("\n- ");
        out.push_str(&failure.to_string());
    }
    out
}

fn commit_message(step: &str, rolled_back: bool, source: &editkit_vfs::Error) -> String {
    if rolled_back {
        format!("commit failed at step `{step}` ({source}); every file was put back as it was, retry the patch")
    } else {
        format!(
            "commit failed at step `{step}` ({source}) and could not be undone; the journal is kept and the next patch \
             or `recover` on this root restores every file"
        )
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// One problem found while planning: which file, which hunk, what and why.
#[derive(Debug)]
#[non_exhaustive]
pub struct Failure {
    /// The file's path as written in the patch.
    pub path: String,
    /// 1-based number of the hunk within its file section; `None` for a file-level problem.
    pub hunk: Option<usize>,
    /// 1-based line of the patch text where the hunk or file section starts.
    pub patch_line: usize,
    /// The hunk's first meaningful line, shortened (empty for file-level problems).
    pub preview: String,
    /// What went wrong.
    pub cause: Cause,
}

impl Failure {
    /// The stable snake_case word for this failure (`not_found`, `ambiguous`, `exists`...).
    #[must_use]
    pub fn kind(&self) -> &'static str {
        self.cause.kind()
    }

    /// The typed kind of this failure.
    #[must_use]
    pub fn error_kind(&self) -> ErrorKind {
        self.cause.error_kind()
    }

    /// The closest region of the file when the hunk was not found, or the similar block a
    /// hunk could not be applied to without guessing.
    #[must_use]
    pub fn closest(&self) -> Option<editkit_matcher::NearMiss> {
        match &self.cause {
            Cause::Matcher(err) => err.closest(),
            _ => None,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.path)?;
        match self.hunk {
            Some(hunk) => write!(f, " hunk {hunk} (patch line {}", self.patch_line)?,
            None => write!(f, " (patch line {}", self.patch_line)?,
        }
        if !self.preview.is_empty() {
            write!(f, ", `{}`", self.preview)?;
        }
        write!(f, "): {} [{}]", self.cause, self.kind())
    }
}

impl serde::Serialize for Failure {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut state = serializer.serialize_struct("Failure", 7)?;
        state.serialize_field("path", &self.path)?;
        state.serialize_field("hunk", &self.hunk)?;
        state.serialize_field("patch_line", &self.patch_line)?;
        state.serialize_field("preview", &self.preview)?;
        state.serialize_field("kind", self.kind())?;
        state.serialize_field("message", &self.cause.to_string())?;
        state.serialize_field("closest", &self.closest())?;
        if let Cause::ChangedOutside { edit_lines, outside, .. } = &self.cause {
            if let Some(edit_lines) = edit_lines {
                state.serialize_field("edit_lines", edit_lines)?;
            }
            state.serialize_field("outside_lines", &outside.lines)?;
            state.serialize_field("outside_diff", &outside.diff)?;
            state.serialize_field("outside_diff_truncated", &outside.diff_truncated)?;
        }
        if let Cause::NamedTwice { operations, outside, .. } = &self.cause {
            state.serialize_field("reason", "named_twice")?;
            state.serialize_field("operations", operations)?;
            state.serialize_field("outside_lines", &outside.lines)?;
            state.serialize_field("outside_diff", &outside.diff)?;
            state.serialize_field("outside_diff_truncated", &outside.diff_truncated)?;
        }
        state.end()
    }
}

/// Why a file or hunk cannot be applied. Errors of the layers below are wrapped, not flattened.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Cause {
    /// The workspace refused the path or the file (outside the root, stale, UTF-16, binary...).
    #[error(transparent)]
    Vfs(editkit_vfs::Error),
    /// The matcher did not find exactly one place for the hunk.
    #[error("hunk {}", matcher_message(.0))]
    Matcher(editkit_matcher::Error),
    /// An added file already exists.
    #[error("cannot add the file: it already exists; update it instead, or delete it first")]
    AddTargetExists,
    /// A move destination already exists.
    #[error("cannot move to `{to}`: it already exists; delete it first or choose another path")]
    MoveTargetExists {
        /// The destination as written in the patch.
        to: String,
    },
    /// An updated or deleted file does not exist (on disk, or after earlier operations).
    #[error("cannot {op} the file: it does not exist; check the path, or add it as a new file")]
    Missing {
        /// `update` or `delete`.
        op: &'static str,
    },
    /// A unified diff deletes a file whose content is not what the diff shows.
    #[error(
        "cannot delete the file: it differs from the deleted lines in the diff at line {line}; read it and regenerate the diff"
    )]
    DeleteMismatch {
        /// 1-based first differing line.
        line: usize,
    },
    /// An `@@` anchor line was not found after the previous hunk.
    #[error("anchor `{anchor}` not found after line {after_line}; copy the line exactly from the file")]
    AnchorNotFound {
        /// The anchor as written.
        anchor: String,
        /// 1-based line after which it was searched.
        after_line: usize,
    },
    /// The old lines were only found inside longer lines, not as whole lines.
    #[error("old lines found only inside a longer line at line {line}; give whole lines")]
    InsideLine {
        /// 1-based line of the partial match.
        line: usize,
    },
    /// A hunk pinned to the end of the file (`*** End of File`) matched elsewhere only.
    #[error(
        "old lines are not at the end of the file (found at line {line}); remove `*** End of File` or fix the hunk"
    )]
    NotAtEnd {
        /// 1-based line of the match that is not at the end.
        line: usize,
    },
    /// The hunk's lines stand before the previous hunk: hunks must come in file order.
    #[error(
        "hunk lines found at line {line}, before the previous hunk: hunks are applied in file order; move this hunk before the previous one"
    )]
    OutOfOrder {
        /// 1-based line where the lines stand.
        line: usize,
    },
    /// The file changed since the version the patch was planned on (its base, see
    /// [`crate::ApplyOptions::bases`]) in or next to a hunk's lines: kind `stale`.
    #[error(
        "{source}; the change made since it was read touches {} (see outside_diff): read the file again and regenerate the patch",
        edit_lines.map_or_else(|| "the lines the patch changes".to_owned(), |[first, last]| format!("lines {first}-{last} (with one line each side) of the version read, which the hunk changes"))
    )]
    ChangedOutside {
        /// The staleness refusal this stands for.
        source: Box<editkit_vfs::Error>,
        /// 1-based first and last line, in the base, of the hunk's region that could not be
        /// carried over (`None`: the patch does not apply to the base).
        edit_lines: Option<[usize; 2]>,
        /// The change made outside.
        outside: Box<crate::outside::OutsideChange>,
    },
    /// The file changed since the version the patch was planned on and two or more operations
    /// of the patch name it, not all of them updates in place (a move, an add or a delete):
    /// kind `stale`. Only a file one operation names, or several in-place updates, is merged.
    #[error(
        "{source}; it changed since it was read, and this patch names it in {operations} operations, not all of \
         them updates in place: a change made outside is merged only into a file one operation (or several \
         updates in place) names; move or delete it in a patch of its own, or read it again and regenerate the patch"
    )]
    NamedTwice {
        /// The staleness refusal this stands for.
        source: Box<editkit_vfs::Error>,
        /// How many operations name the file (as source or destination).
        operations: usize,
        /// The change made outside.
        outside: Box<crate::outside::OutsideChange>,
    },
    /// A pure addition's line number is past the end of the file.
    #[error("insertion line {line} is past the end of the file ({lines} lines); add context lines to place it")]
    LineOutOfRange {
        /// The 1-based line asked for.
        line: usize,
        /// Lines in the file.
        lines: usize,
    },
}

impl Cause {
    /// The stable snake_case word for this cause.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        self.error_kind().as_str()
    }

    /// The typed kind of this cause.
    #[must_use]
    pub fn error_kind(&self) -> ErrorKind {
        use editkit_matcher::ErrorKind as M;
        match self {
            Cause::Vfs(err) => ErrorKind::Vfs(err.error_kind()),
            Cause::ChangedOutside { source, .. } | Cause::NamedTwice { source, .. } => {
                ErrorKind::Vfs(source.error_kind())
            }
            Cause::Matcher(err) => match err.error_kind() {
                // A hunk with nothing to find, or a line range past the file: the patch is wrong.
                M::EmptyNeedle | M::InvalidRange => ErrorKind::InvalidPatch,
                M::LimitExceeded => ErrorKind::TooLarge,
                M::NotFound => ErrorKind::NotFound,
                M::Ambiguous => ErrorKind::Ambiguous,
                M::AlreadyApplied => ErrorKind::AlreadyApplied,
                M::NoChange => ErrorKind::NoChange,
            },
            Cause::AddTargetExists | Cause::MoveTargetExists { .. } => ErrorKind::Exists,
            Cause::Missing { .. }
            | Cause::DeleteMismatch { .. }
            | Cause::AnchorNotFound { .. }
            | Cause::InsideLine { .. }
            | Cause::NotAtEnd { .. }
            | Cause::OutOfOrder { .. }
            | Cause::LineOutOfRange { .. } => ErrorKind::NotFound,
        }
    }
}

/// A hunk's words for the matcher's messages: what an edit calls its old text is the hunk's
/// context and `-` lines, and a patch has no replace_all: its way to say where is context or
/// an `@@` anchor.
const HUNK_WORDS: editkit_matcher::Words = editkit_matcher::Words {
    subject: "lines",
    disambiguate: "add context lines, or an `@@` line naming the enclosing class or function, to make it unique",
};

fn matcher_message(err: &editkit_matcher::Error) -> String {
    err.message(HUNK_WORDS)
}

/// What kind of failure a patch [`Error`] (or one hunk's [`Failure`]) is: the patch's own kinds,
/// or the workspace's.
///
/// Not `#[non_exhaustive]` on purpose: the facade maps every kind in one exhaustive `match`, so
/// a kind added here fails to compile there until the contract says what it becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// `invalid_patch`: the text is not a whole patch, or a hunk cannot mean anything.
    InvalidPatch,
    /// `too_large`: past a size or work bound.
    TooLarge,
    /// `io`: the commit or its journal failed.
    Io,
    /// `exists`: an add or a move onto a file that exists.
    Exists,
    /// `not_found`: a file or a hunk's lines are not there.
    NotFound,
    /// `ambiguous`: a hunk matches more than one place.
    Ambiguous,
    /// `already_applied`: a hunk's new lines already stand there.
    AlreadyApplied,
    /// `no_change`: a hunk changes nothing.
    NoChange,
    /// A workspace failure, by its own kind.
    Vfs(editkit_vfs::ErrorKind),
}

impl ErrorKind {
    /// The stable snake_case word.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidPatch => "invalid_patch",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::Io => "io",
            ErrorKind::Exists => "exists",
            ErrorKind::NotFound => "not_found",
            ErrorKind::Ambiguous => "ambiguous",
            ErrorKind::AlreadyApplied => "already_applied",
            ErrorKind::NoChange => "no_change",
            ErrorKind::Vfs(kind) => kind.as_str(),
        }
    }
}
