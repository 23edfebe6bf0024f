//! The one error type of this crate.

use crate::FileKind;
use crate::syntax_error::SyntaxError;

/// Everything that can go wrong in `editkit-analyze`.
///
/// Each variant carries the data an agent needs to correct its call; [`Error::kind`] maps it
/// to the stable word of the tool-call contract.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file kind has no grammar for the requested operation.
    #[error("{operation} is not supported for {kind} files; supported: python, typescript, tsx, javascript, jsx")]
    Unsupported {
        /// The operation that was asked for, such as `symbols`.
        operation: &'static str,
        /// The kind of the file.
        kind: FileKind,
    },
    /// The input is larger than the parser accepts.
    #[error("input is {len} bytes, more than the {limit}-byte limit for parsing")]
    TooLarge {
        /// Size of the input in bytes.
        len: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// The input has more tokens than the parser accepts (a syntax tree holds up to a few
    /// hundred bytes per token).
    #[error("input has more than {limit} tokens, the limit for parsing")]
    TooManyTokens {
        /// The limit in tokens ([`crate::MAX_PARSE_TOKENS`]).
        limit: usize,
    },
    /// Parsing took longer than the time limit.
    #[error("parsing gave up after {millis} ms; the input is too large or too deeply nested")]
    Timeout {
        /// The limit that was hit, in milliseconds.
        millis: u64,
    },
    /// No symbol (or Markdown section) matches the requested name.
    #[error("no {what} named `{name}`; available: {}", list_or_none(available))]
    NotFound {
        /// `symbol` or `section`.
        what: &'static str,
        /// The name that was asked for.
        name: String,
        /// Names that do exist, so the caller can pick one.
        available: Vec<String>,
    },
    /// Several symbols (or sections) match the requested name.
    #[error("`{name}` matches {} {what}s, at lines {}; rename or remove the duplicates, or edit by text", lines.len(), join_lines(lines))]
    Ambiguous {
        /// `symbol` or `section`.
        what: &'static str,
        /// The name that was asked for.
        name: String,
        /// 1-based lines of every candidate.
        lines: Vec<usize>,
    },
    /// The edited result would contain syntax errors the original did not have.
    #[error("the result has syntax errors, nothing was changed: {}", describe_errors(errors))]
    SyntaxError {
        /// The errors of the result, with positions in the result.
        errors: Vec<SyntaxError>,
    },
    /// An argument is malformed (empty name, empty implementation, ...).
    #[error("invalid argument `{argument}`: {reason}")]
    InvalidArgs {
        /// Name of the argument.
        argument: &'static str,
        /// What is wrong with it and how to fix it.
        reason: String,
    },
}

impl Error {
    /// The stable snake_case word for this error in the tool-call contract: `not_found`,
    /// `ambiguous`, `syntax_error`, `too_large` (also for a parse that ran out of time) or
    /// `invalid_args` (also for an operation the file kind does not support).
    #[must_use]
    pub fn kind(&self) -> &'static str {
        self.error_kind().as_str()
    }

    /// The typed kind of this error.
    #[must_use]
    pub fn error_kind(&self) -> ErrorKind {
        match self {
            Error::Unsupported { .. } | Error::InvalidArgs { .. } => ErrorKind::InvalidArgs,
            Error::TooLarge { .. } | Error::TooManyTokens { .. } | Error::Timeout { .. } => ErrorKind::TooLarge,
            Error::NotFound { .. } => ErrorKind::NotFound,
            Error::Ambiguous { .. } => ErrorKind::Ambiguous,
            Error::SyntaxError { .. } => ErrorKind::SyntaxError,
        }
    }
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        return "none".to_owned();
    }
    const SHOWN: usize = 50;
    let mut out = names.iter().take(SHOWN).map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ");
    if names.len() > SHOWN {
        out.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    out
}

fn join_lines(lines: &[usize]) -> String {
    lines.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

fn describe_errors(errors: &[SyntaxError]) -> String {
    const SHOWN: usize = 5;
    let mut out = errors
        .iter()
        .take(SHOWN)
        .map(|error| format!("line {} column {}: {}", error.line, error.column, error.message))
        .collect::<Vec<_>>()
        .join("; ");
    if errors.len() > SHOWN {
        out.push_str(&format!("; and {} more", errors.len() - SHOWN));
    }
    out
}

/// What kind of failure an analyze [`Error`] is, in the words of the tool-call contract.
///
/// Not `#[non_exhaustive]` on purpose: the facade maps every kind in one exhaustive `match`, so
/// a kind added here fails to compile there until the contract says what it becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// `invalid_args`: bad arguments, or an operation the file kind does not support
    InvalidArgs,
    /// `too_large`: past a size bound, or a parse that ran out of time
    TooLarge,
    /// `not_found`: no such symbol or section
    NotFound,
    /// `ambiguous`: more than one symbol or section of that name
    Ambiguous,
    /// `syntax_error`: the result would not parse
    SyntaxError,
}

impl ErrorKind {
    /// The stable snake_case word.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidArgs => "invalid_args",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::NotFound => "not_found",
            ErrorKind::Ambiguous => "ambiguous",
            ErrorKind::SyntaxError => "syntax_error",
        }
    }
}
