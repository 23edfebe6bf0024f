//! The one error type of this crate.

/// Everything a search or a listing can refuse or fail with.
///
/// Files that cannot be searched (too large, binary, not UTF-8, unreadable, links leading out)
/// are not errors: they are reported under `skipped` in the result. An error means the whole
/// call was refused. [`Error::kind`] gives the stable snake_case word of the tool-call contract.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The workspace refused the path (outside the root, blocked, missing...) or failed to read it.
    #[error(transparent)]
    Vfs(#[from] editkit_vfs::Error),
    /// The pattern is not a valid regular expression, or cannot be searched as given.
    #[error("invalid pattern `{pattern}`: {message}")]
    InvalidPattern {
        /// The pattern as given.
        pattern: String,
        /// The regex engine's explanation, with a hint.
        message: String,
    },
    /// An include, exclude or listing glob does not compile or is not allowed.
    #[error("invalid glob `{glob}`: {message}")]
    InvalidGlob {
        /// The glob as given.
        glob: String,
        /// What is wrong with it.
        message: String,
    },
    /// Another argument is out of range or malformed.
    #[error("invalid argument `{name}`: {message}")]
    InvalidArgs {
        /// The argument's name.
        name: &'static str,
        /// What is wrong with it.
        message: String,
    },
}

impl Error {
    /// The stable snake_case word of the tool-call contract for this error: the workspace
    /// error's own word for [`Error::Vfs`], `invalid_args` for everything else.
    ///
    /// ```
    /// let err = editkit_search::Search::builder("(unclosed").build().unwrap_err();
    /// assert_eq!(err.kind(), "invalid_args");
    /// ```
    #[must_use]
    pub fn kind(&self) -> &'static str {
        self.error_kind().as_str()
    }

    /// The typed kind of this error: a search fails the ways a workspace does, or on bad
    /// arguments (a pattern, a glob).
    #[must_use]
    pub fn error_kind(&self) -> editkit_vfs::ErrorKind {
        match self {
            Error::Vfs(err) => err.error_kind(),
            Error::InvalidPattern { .. } | Error::InvalidGlob { .. } | Error::InvalidArgs { .. } => {
                editkit_vfs::ErrorKind::InvalidArgs
            }
        }
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
