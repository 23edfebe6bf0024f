//! One syntax error, as checks report it and as `Error::SyntaxError` carries it: a leaf both
//! the check (`syntax.rs`) and the error type use, so neither depends on the other.

use serde::Serialize;

/// One syntax error. Lines and columns are 1-based; columns count characters; the end is
/// exclusive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyntaxError {
    /// Line of the first offending character.
    pub line: usize,
    /// Column of the first offending character.
    pub column: usize,
    /// Line where the offending text ends.
    pub end_line: usize,
    /// Column just after the offending text.
    pub end_column: usize,
    /// What is wrong, quoting the unexpected or missing token and what it follows.
    pub message: String,
}
