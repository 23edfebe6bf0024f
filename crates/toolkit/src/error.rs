//! The facade's error: lower crates' errors wrapped, never flattened, plus the facade's own.

use serde_json::{Map, Value, json};

/// Everything a tool call can fail with. [`Error::kind`] gives the tool-call contract's stable
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
    /// The toolkit was opened read-only and the tool would write.
    #[error("`{tool}` writes, and this toolkit is read-only")]
    ReadOnly {
        /// The tool refused.
        tool: String,
    },
}

fn describe(errors: &[crate::SyntaxErrorInfo]) -> String {
    let shown: Vec<String> =
        errors.iter().take(5).map(|e| format!("line {}:{} {}", e.line, e.column, e.message)).collect();
    let more = errors.len().saturating_sub(5);
    if more > 0 { format!("{} (and {more} more)", shown.join("; ")) } else { shown.join("; ") }
}

/// Every `error.kind` a tool call can return, the stable words of the tool-call contract.
///
/// ```
/// assert!(editkit::ERROR_KINDS.contains(&"stale"));
/// let err = editkit::Error::from(editkit::vfs::Error::NotFound { path: "a.txt".into() });
/// assert!(editkit::ERROR_KINDS.contains(&err.kind()));
/// ```
pub const ERROR_KINDS: [&str; 17] = [
    "not_found",
    "ambiguous",
    "already_applied",
    "no_change",
    "stale",
    "outside_workspace",
    "blocked",
    "too_large",
    "not_utf8",
    "utf16",
    "binary",
    "exists",
    "is_directory",
    "invalid_patch",
    "syntax_error",
    "invalid_args",
    "io",
];

impl Error {
    /// The stable snake_case word of the tool-call contract (one of [`ERROR_KINDS`]).
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Vfs(err) => err.kind(),
            Error::Edit { source, .. } => match source.kind() {
                "empty_needle" | "invalid_range" => "invalid_args",
                "limit_exceeded" => "too_large",
                other => other,
            },
            #[cfg(feature = "analyze")]
            Error::Analyze { source, .. } => match source.kind() {
                "unsupported" => "invalid_args",
                other => other,
            },
            #[cfg(feature = "search")]
            Error::Search(err) => err.kind(),
            #[cfg(feature = "patch")]
            Error::Patch(err) => err.kind(),
            Error::SyntaxError { .. } => "syntax_error",
            Error::InvalidArgs { .. } | Error::UnknownTool { .. } => "invalid_args",
            Error::NoSession { .. } | Error::SessionEvicted { .. } | Error::NothingToUndo { .. } => "not_found",
            Error::LimitExceeded { .. } => "too_large",
            Error::ReadOnly { .. } => "blocked",
        }
    }

    /// Structured details beside `kind` and `message` (candidate lines, the closest region,
    /// hashes, syntax errors...), as a JSON object.
    #[must_use]
    pub fn details(&self) -> Map<String, Value> {
        let mut map = Map::new();
        match self {
            Error::Vfs(err) => vfs_details(err, &mut map),
            Error::Edit { path, source } => {
                map.insert("path".into(), json!(path));
                matcher_details(source, &mut map);
            }
            #[cfg(feature = "analyze")]
            Error::Analyze { path, source } => {
                map.insert("path".into(), json!(path));
                analyze_details(source, &mut map);
            }
            #[cfg(feature = "search")]
            Error::Search(_) => {}
            #[cfg(feature = "patch")]
            Error::Patch(err) => {
                if let Ok(Value::Object(more)) = serde_json::to_value(crate::patch_error_details(err)) {
                    map.extend(more);
                }
            }
            Error::SyntaxError { path, errors } => {
                map.insert("path".into(), json!(path));
                map.insert("syntax_errors".into(), json!(errors));
            }
            Error::InvalidArgs { field, .. } => {
                if let Some(field) = field {
                    map.insert("field".into(), json!(field));
                }
            }
            Error::UnknownTool { name, .. } => {
                map.insert("tool".into(), json!(name));
                // The call's `tool` field is the one to fix.
                map.insert("field".into(), json!("tool"));
            }
            Error::NoSession { id } => {
                map.insert("session_id".into(), json!(id));
            }
            Error::SessionEvicted { id, path, unstored, .. } => {
                map.insert("session_id".into(), json!(id));
                map.insert("path".into(), json!(path));
                map.insert("evicted".into(), json!(true));
                map.insert("unstored_changes_lost".into(), json!(unstored));
            }
            Error::LimitExceeded { size, limit, option, .. } => {
                map.insert("size_bytes".into(), json!(size));
                map.insert("limit_bytes".into(), json!(limit));
                map.insert("limit".into(), json!(option));
            }
            Error::NothingToUndo { what } => {
                map.insert("path".into(), json!(what));
            }
            Error::ReadOnly { tool } => {
                map.insert("tool".into(), json!(tool));
            }
        }
        map
    }

    /// `{"kind": ..., "message": ..., ...details}`, the error object of the contract.
    #[must_use]
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("kind".into(), json!(self.kind()));
        map.insert("message".into(), json!(self.to_string()));
        map.extend(self.details());
        Value::Object(map)
    }

    pub(crate) fn invalid(field: &str, message: impl Into<String>) -> Error {
        Error::InvalidArgs { field: Some(field.to_owned()), message: message.into() }
    }
}

fn vfs_details(err: &editkit_vfs::Error, map: &mut Map<String, Value>) {
    use editkit_vfs::Error as E;
    map.insert("path".into(), json!(err.path()));
    match err {
        E::Stale { expected, current, .. } => {
            map.insert("expected_sha256".into(), json!(expected));
            map.insert("current_sha256".into(), json!(current));
        }
        E::TooLarge { size, limit, .. } => {
            map.insert("size_bytes".into(), json!(size));
            map.insert("limit_bytes".into(), json!(limit));
        }
        E::Blocked { pattern, .. } => {
            map.insert("pattern".into(), json!(pattern));
        }
        E::NotUtf8 { offset, .. } | E::Binary { offset, .. } => {
            map.insert("offset".into(), json!(offset));
        }
        _ => {}
    }
}

fn matcher_details(err: &editkit_matcher::Error, map: &mut Map<String, Value>) {
    use editkit_matcher::Error as E;
    match err {
        E::NotFound { .. } => {
            map.insert("closest".into(), json!(err.closest()));
        }
        E::Unaligned { reason, .. } => {
            map.insert("closest".into(), json!(err.closest()));
            map.insert("reason".into(), json!(reason));
        }
        E::Ambiguous { count, lines, rung } => {
            map.insert("count".into(), json!(count));
            map.insert("lines".into(), json!(lines));
            map.insert("rung".into(), json!(rung.as_str()));
        }
        E::AlreadyApplied { line } => {
            map.insert("line".into(), json!(line));
        }
        _ => {}
    }
}

#[cfg(feature = "analyze")]
fn analyze_details(err: &editkit_analyze::Error, map: &mut Map<String, Value>) {
    use editkit_analyze::Error as E;
    match err {
        E::NotFound { available, .. } => {
            map.insert("available".into(), json!(available));
        }
        E::Ambiguous { lines, .. } => {
            map.insert("lines".into(), json!(lines));
        }
        E::SyntaxError { errors } => {
            let errors: Vec<crate::SyntaxErrorInfo> = errors.iter().map(crate::SyntaxErrorInfo::from).collect();
            map.insert("syntax_errors".into(), json!(errors));
        }
        _ => {}
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
