//! The one error type of this crate.

use std::io;

/// Everything a workspace operation can refuse or fail with.
///
/// Every variant carries the path as the caller spelled it, so an agent can tell which of its
/// arguments was refused. [`Error::error_kind`] gives its kind in the words of the tool-call
/// contract.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The path is malformed: NUL byte, `~` prefix, Windows drive or UNC form, backslash,
    /// overlong component, or it names something an operation cannot act on (the root).
    #[error("invalid path `{path}`: {reason}")]
    InvalidPath {
        /// The path as given.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The path, or a symlink on the way, leads outside the workspace root.
    #[error("`{path}` resolves outside the workspace; use a path inside the workspace root")]
    OutsideWorkspace {
        /// The path as given.
        path: String,
    },
    /// Symlinks on the path form a loop or a chain too long to follow.
    #[error("`{path}` has a symlink loop or a chain longer than {limit} links")]
    SymlinkLoop {
        /// The path as given.
        path: String,
        /// How many links are followed before giving up.
        limit: usize,
    },
    /// The path matches a blocked pattern of the workspace policy.
    #[error("`{path}` is blocked by the workspace policy (pattern `{pattern}`)")]
    Blocked {
        /// The path as given.
        path: String,
        /// The pattern that blocks it.
        pattern: String,
    },
    /// The file has more than one name (hard links) and lies outside the folders where the
    /// policy serves such files ([`crate::Policy::hard_links_under`]): another of its names may
    /// be a blocked file or a file outside the root, so it is neither read nor written.
    #[error(
        "`{path}` has {links} names (hard links); another of them may be a blocked file or a file outside \
         the workspace, so editkit neither reads nor writes it; replace it with a copy of its own \
         (`cp --remove-destination`), or have the user allow its folder (`--hard-links FOLDER`)"
    )]
    HardLinked {
        /// The path as given.
        path: String,
        /// How many names the file has.
        links: u64,
    },
    /// The file is read-only: its owner took away its write bit (`chmod a-w`). editkit never
    /// changes, replaces or deletes such a file, whatever user it runs as (root could write it,
    /// and a write by rename would replace it anyway); moving it is allowed, content and mode
    /// going with it.
    #[error(
        "`{path}` is read-only (mode {mode:04o}): its owner took away its write permission, so editkit does not \
         change, replace or delete it; if it is meant to change, ask the user to make it writable \
         (`chmod u+w`)"
    )]
    ReadOnly {
        /// The path as given.
        path: String,
        /// The file's permission bits.
        mode: u32,
    },
    /// Nothing exists at the path.
    #[error("`{path}` does not exist")]
    NotFound {
        /// The path as given.
        path: String,
    },
    /// The operation needs a file but the path is a directory.
    #[error("`{path}` is a directory; give a file path")]
    IsDirectory {
        /// The path as given.
        path: String,
    },
    /// The operation needs a directory but the path is not one.
    #[error("`{path}` is not a directory")]
    NotADirectory {
        /// The path as given.
        path: String,
    },
    /// Something already exists where the operation would create it.
    #[error("`{path}` already exists")]
    Exists {
        /// The path as given.
        path: String,
    },
    /// The file is larger than the workspace's read limit.
    #[error(
        "`{path}` is {size} bytes, over the read limit of {limit} bytes; no part of it can be read either: the limit \
         can be raised (`max_read_bytes`, `--max-read-bytes`)"
    )]
    TooLarge {
        /// The path as given.
        path: String,
        /// The file's size in bytes.
        size: u64,
        /// The configured limit in bytes.
        limit: u64,
    },
    /// Locking this many files at once would need more file descriptors than the process
    /// may open (each lock holds one or two until it is released).
    #[error(
        "locking {count} files at once needs about {needed} file descriptors, more than this process may open \
         ({limit}, the hard `ulimit -n`); lock fewer files at once (split the patch), or raise the limit"
    )]
    TooManyLocks {
        /// The first path of the set, as given.
        path: String,
        /// Files in the set.
        count: usize,
        /// Descriptors the set needs besides those open already.
        needed: u64,
        /// The process's hard limit on open descriptors.
        limit: u64,
    },
    /// A folder nests deeper than a recursive operation goes (one open handle per level).
    #[error("`{path}` nests folders deeper than {limit} levels; remove or move the deepest folders first")]
    TooDeep {
        /// The path as given.
        path: String,
        /// The deepest nesting followed.
        limit: usize,
    },
    /// The file is UTF-16 or UTF-32 encoded, not established as UTF-16 (no byte-order mark,
    /// too short to tell, or not decoding back to itself).
    #[error(
        "`{path}` is UTF-16 or UTF-32 encoded, without the byte-order mark (or the length) that would \
         establish which; if it is UTF-16, pass `encoding: \"utf-16le\"` (or `\"utf-16be\"`)"
    )]
    Utf16 {
        /// The path as given.
        path: String,
    },
    /// The file is not valid UTF-8, and no other encoding was established with confidence.
    #[error("`{path}` is not valid UTF-8 (first bad byte at offset {offset}){}", guess_advice(*guess))]
    NotUtf8 {
        /// The path as given.
        path: String,
        /// Byte offset of the first invalid sequence.
        offset: usize,
        /// The encoding a detector guessed without confidence, if any.
        guess: Option<crate::Encoding>,
    },
    /// The file is not in the encoding the caller named.
    #[error(
        "`{path}` is not valid {encoding}: the byte at offset {offset} does not decode in it or does not \
         encode back to itself; nothing was done (omit `encoding` to have it detected)"
    )]
    NotInEncoding {
        /// The path as given.
        path: String,
        /// The encoding named.
        encoding: crate::Encoding,
        /// Offset of the first byte that does not decode or encode back.
        offset: usize,
    },
    /// The new text holds a character the file's encoding cannot hold; nothing was written.
    #[error(
        "`{path}` is {encoding} text, which cannot hold {character:?} (U+{code:04X}) on line {line} of the \
         new text; nothing was written: write the character another way (an escape, a plain-ASCII \
         spelling) or convert the file to UTF-8 first", code = u32::from(*character)
    )]
    NotEncodable {
        /// The path as given.
        path: String,
        /// The file's encoding.
        encoding: crate::Encoding,
        /// The first character it cannot hold.
        character: char,
        /// Its line (from 1) in the new text.
        line: usize,
    },
    /// The file looks binary (a NUL byte in its first 8 KiB).
    #[error("`{path}` looks binary (NUL byte at offset {offset}); it is not edited as text")]
    Binary {
        /// The path as given.
        path: String,
        /// Offset of the first NUL byte.
        offset: usize,
    },
    /// The file changed since this workspace last read it, or does not have the expected hash.
    #[error(
        "`{path}` changed since it was read (expected sha256 {}, found {}); read it again or pass force",
        expected.map_or_else(|| "no file".to_owned(), |expected| expected.to_string()),
        current.map_or_else(|| "no file".to_owned(), |current| current.to_string())
    )]
    Stale {
        /// The path as given.
        path: String,
        /// The hash the write expected (from the read ledger or the caller), `None` when it
        /// expected no file.
        expected: Option<crate::Sha256>,
        /// The hash on disk now, `None` when the file is gone.
        current: Option<crate::Sha256>,
    },
    /// An entry on the path was swapped for a symlink (or the folder moved) between resolving
    /// the path and opening it: another process is changing the tree. Nothing was done.
    #[error("`{path}` changed while editkit was using it (a symlink appeared on the way); nothing was done, retry")]
    Changed {
        /// The path as given.
        path: String,
    },
    /// editkit's own state folder (outside the workspace) cannot be used.
    #[error("editkit's state folder `{path}` cannot be used: {reason}")]
    State {
        /// The state folder.
        path: String,
        /// What is wrong with it, and what to do.
        reason: String,
    },
    /// An I/O failure the policy did not foresee.
    #[error("cannot {op} `{path}`: {source}")]
    Io {
        /// The operation that failed (`read`, `write`, `rename`...).
        op: &'static str,
        /// The path as given.
        path: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}

impl Error {
    /// The error for `path` whose bytes are not editable text: the one mapping of a
    /// [`DecodeError`](crate::DecodeError) every crate uses (`utf16`, `binary`,
    /// `not_utf8`).
    #[must_use]
    pub fn from_decode(path: &str, err: crate::DecodeError) -> Error {
        use crate::codec::DecodeError;
        let path = path.to_owned();
        match err {
            DecodeError::Utf16 => Error::Utf16 { path },
            DecodeError::Binary { offset } => Error::Binary { path, offset },
            DecodeError::NotUtf8 { offset, guess } => Error::NotUtf8 { path, offset, guess },
            DecodeError::NotInEncoding { encoding, offset } => Error::NotInEncoding { path, encoding, offset },
        }
    }

    /// The error for `path` whose new text its encoding cannot hold.
    #[must_use]
    pub fn from_unencodable(path: &str, err: crate::Unencodable) -> Error {
        let crate::Unencodable { encoding, character, line } = err;
        Error::NotEncodable { path: path.to_owned(), encoding, character, line }
    }

    /// The typed kind of this error; [`ErrorKind::as_str`] gives the stable snake_case word of
    /// the tool-call contract.
    ///
    /// ```
    /// use editkit_vfs::{Error, ErrorKind};
    ///
    /// let err = Error::NotFound { path: "a.txt".into() };
    /// assert_eq!(err.error_kind(), ErrorKind::NotFound);
    /// assert_eq!(err.error_kind().as_str(), "not_found");
    /// ```
    #[must_use]
    pub fn error_kind(&self) -> ErrorKind {
        match self {
            Error::InvalidPath { .. } | Error::SymlinkLoop { .. } | Error::NotADirectory { .. } => {
                ErrorKind::InvalidArgs
            }
            Error::OutsideWorkspace { .. } => ErrorKind::OutsideWorkspace,
            Error::Blocked { .. } | Error::HardLinked { .. } => ErrorKind::Blocked,
            Error::ReadOnly { .. } => ErrorKind::PermissionDenied,
            Error::NotFound { .. } => ErrorKind::NotFound,
            Error::IsDirectory { .. } => ErrorKind::IsDirectory,
            Error::Exists { .. } => ErrorKind::Exists,
            Error::TooLarge { .. } | Error::TooDeep { .. } | Error::TooManyLocks { .. } => ErrorKind::TooLarge,
            Error::Utf16 { .. } => ErrorKind::Utf16,
            Error::NotUtf8 { .. } | Error::NotInEncoding { .. } => ErrorKind::NotUtf8,
            Error::NotEncodable { .. } => ErrorKind::NotEncodable,
            Error::Binary { .. } => ErrorKind::Binary,
            Error::Stale { .. } => ErrorKind::Stale,
            Error::Changed { .. } | Error::State { .. } | Error::Io { .. } => ErrorKind::Io,
        }
    }

    /// The path the error is about, as the caller gave it.
    #[must_use]
    pub fn path(&self) -> &str {
        match self {
            Error::InvalidPath { path, .. }
            | Error::OutsideWorkspace { path }
            | Error::SymlinkLoop { path, .. }
            | Error::Blocked { path, .. }
            | Error::HardLinked { path, .. }
            | Error::ReadOnly { path, .. }
            | Error::NotFound { path }
            | Error::IsDirectory { path }
            | Error::NotADirectory { path }
            | Error::Exists { path }
            | Error::TooLarge { path, .. }
            | Error::TooDeep { path, .. }
            | Error::TooManyLocks { path, .. }
            | Error::Utf16 { path }
            | Error::NotUtf8 { path, .. }
            | Error::NotInEncoding { path, .. }
            | Error::NotEncodable { path, .. }
            | Error::Binary { path, .. }
            | Error::Stale { path, .. }
            | Error::Changed { path }
            | Error::State { path, .. }
            | Error::Io { path, .. } => path,
        }
    }

    /// Maps an I/O error of operation `op` on `path` to the most telling variant.
    ///
    /// cap-std reports an attempted escape as a `PermissionDenied` without an errno (see
    /// `is_escape`); a component that is a file where a directory was expected is `NotFound`.
    pub(crate) fn from_io(op: &'static str, path: &str, source: io::Error) -> Self {
        let path = path.to_owned();
        if crate::beneath::is_swapped(&source) {
            return Error::Changed { path };
        }
        match source.kind() {
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => Error::NotFound { path },
            io::ErrorKind::AlreadyExists => Error::Exists { path },
            io::ErrorKind::IsADirectory => Error::IsDirectory { path },
            io::ErrorKind::PermissionDenied if is_escape(&source) => Error::OutsideWorkspace { path },
            _ if source.raw_os_error() == Some(rustix::io::Errno::XDEV.raw_os_error()) => {
                Error::OutsideWorkspace { path }
            }
            _ => Error::Io { op, path, source },
        }
    }
}

/// What a `not_utf8` message adds about the best guess: how to pass it if it is right.
fn guess_advice(guess: Option<crate::Encoding>) -> String {
    match guess {
        Some(guess) => format!(
            "; its encoding could not be established with confidence (best guess: {guess}); if it is {guess}, \
             pass `encoding: \"{guess}\"`"
        ),
        None => String::new(),
    }
}

/// cap-std's sandbox refusal, as opposed to a real permission problem: judged by the error's
/// shape, never its words. A `PermissionDenied` from the kernel carries its errno (`EACCES`,
/// `EPERM`); cap-std's refusal of a path leading out of its directory is the only one vfs can
/// meet without an errno (vfs makes no other synthetic I/O errors of that kind).
fn is_escape(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::PermissionDenied && err.raw_os_error().is_none()
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What kind of failure a vfs [`Error`] is, in the words of the tool-call contract.
///
/// Not `#[non_exhaustive]` on purpose: the facade maps every kind in one exhaustive `match`, so
/// a kind added here fails to compile there until the contract says what it becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// `invalid_args`: a path that cannot be used as given
    InvalidArgs,
    /// `outside_workspace`: the path leads outside the root
    OutsideWorkspace,
    /// `blocked`: a blocked path
    Blocked,
    /// `not_found`: nothing there
    NotFound,
    /// `is_directory`: a folder where a file was expected
    IsDirectory,
    /// `exists`: something already there
    Exists,
    /// `too_large`: past a size or depth bound
    TooLarge,
    /// `utf16`: UTF-16 or UTF-32 text
    Utf16,
    /// `not_utf8`: bytes that are not UTF-8
    NotUtf8,
    /// `binary`: binary data
    Binary,
    /// `not_encodable`: a character the file's encoding cannot hold
    NotEncodable,
    /// `stale`: the file changed since it was read
    Stale,
    /// `permission_denied`: a read-only file (no write bit for its owner)
    PermissionDenied,
    /// `io`: the file system failed or changed underneath
    Io,
}

impl ErrorKind {
    /// The stable snake_case word.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidArgs => "invalid_args",
            ErrorKind::OutsideWorkspace => "outside_workspace",
            ErrorKind::Blocked => "blocked",
            ErrorKind::NotFound => "not_found",
            ErrorKind::IsDirectory => "is_directory",
            ErrorKind::Exists => "exists",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::Utf16 => "utf16",
            ErrorKind::NotUtf8 => "not_utf8",
            ErrorKind::Binary => "binary",
            ErrorKind::NotEncodable => "not_encodable",
            ErrorKind::Stale => "stale",
            ErrorKind::PermissionDenied => "permission_denied",
            ErrorKind::Io => "io",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_escape_is_told_from_a_permission_problem_by_its_errno_not_its_words() {
        let escape = io::Error::new(io::ErrorKind::PermissionDenied, "any words at all");
        assert!(matches!(Error::from_io("read", "a", escape), Error::OutsideWorkspace { path } if path == "a"));
        let denied = io::Error::from_raw_os_error(rustix::io::Errno::ACCESS.raw_os_error());
        assert!(matches!(Error::from_io("read", "a", denied), Error::Io { op: "read", .. }));
        let beneath = io::Error::from_raw_os_error(rustix::io::Errno::XDEV.raw_os_error());
        assert!(matches!(Error::from_io("read", "a", beneath), Error::OutsideWorkspace { .. }));
    }
}
