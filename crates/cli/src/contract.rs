//! The contract's answers as types, read once where they come in: a result object as the
//! facade's response type of its tool, an error object as a [`Refusal`]. The renderers read
//! typed fields, never JSON keys.

use editkit::{ErrorKind, SyntaxErrorInfo};
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::exit::{self, EXIT_REFUSED};

/// A call's answer: the tool's typed response, or its refusal.
pub(crate) enum Answer<T> {
    /// `{"ok": true, ...}`, read as the tool's response type.
    Done(T),
    /// `{"ok": false, "error": {...}}`.
    Refused(Box<Refusal>),
}

/// Reads a contract object as the answer of a tool whose response type is `T`.
///
/// # Errors
/// A successful result that does not have `T`'s shape (the facade and the binary disagree
/// on a tool's response type): the reason, for a message.
pub(crate) fn answer<T: DeserializeOwned>(result: &Value) -> Result<Answer<T>, String> {
    let envelope = Envelope::deserialize(result).unwrap_or_default();
    if envelope.ok {
        return response(result).map(Answer::Done);
    }
    Ok(Answer::Refused(Box::new(envelope.error.unwrap_or_default())))
}

/// [`answer`], taking the object: the response's texts are moved out of it, not copied.
///
/// # Errors
/// As [`answer`].
pub(crate) fn answer_owned<T: DeserializeOwned>(result: Value) -> Result<Answer<T>, String> {
    let envelope = Envelope::deserialize(&result).unwrap_or_default();
    if envelope.ok {
        return T::deserialize(result).map(Answer::Done).map_err(|err| err.to_string());
    }
    Ok(Answer::Refused(Box::new(envelope.error.unwrap_or_default())))
}

/// A successful result object as its typed response.
///
/// # Errors
/// The object does not have `T`'s shape: serde's reason.
pub(crate) fn response<T: DeserializeOwned>(result: &Value) -> Result<T, String> {
    T::deserialize(result).map_err(|err| err.to_string())
}

/// The contract word of a typed value that serializes as one (`insert_before`, `dir`,
/// `update`): the word the JSON result holds, so the text and the JSON agree.
pub(crate) fn word<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(word)) => word,
        _ => String::new(),
    }
}

/// The envelope of a contract object.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Envelope {
    /// Whether the call succeeded.
    #[serde(deserialize_with = "lenient")]
    pub(crate) ok: bool,
    /// The refusal of a call that did not.
    #[serde(deserialize_with = "lenient")]
    pub(crate) error: Option<Refusal>,
}

/// A contract error object: its kind and message, and the details a person is shown.
/// Each detail is read on its own: one of an unexpected shape is left out, not the rest.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Refusal {
    /// The stable kind word (see [`Refusal::error_kind`]).
    #[serde(deserialize_with = "lenient")]
    pub(crate) kind: Option<String>,
    /// What went wrong and what to do.
    #[serde(deserialize_with = "lenient")]
    pub(crate) message: Option<String>,
    /// The argument to blame.
    #[serde(deserialize_with = "lenient")]
    pub(crate) field: Option<String>,
    /// The path the error is about.
    #[serde(deserialize_with = "lenient")]
    pub(crate) path: Option<String>,
    /// A patch's failing hunks.
    #[serde(deserialize_with = "lenient")]
    pub(crate) failures: Vec<Failure>,
    /// The region closest to text that was not found.
    #[serde(deserialize_with = "lenient")]
    pub(crate) closest: Option<Closest>,
    /// The syntax errors content would have had.
    #[serde(deserialize_with = "lenient")]
    pub(crate) syntax_errors: Vec<SyntaxErrorInfo>,
    /// Candidate lines (an ambiguous match).
    #[serde(deserialize_with = "lenient")]
    lines: Vec<LineNumber>,
    /// The line a change already stands at.
    #[serde(deserialize_with = "lenient")]
    pub(crate) line: Option<u64>,
}

impl Refusal {
    /// The refusal of a facade error, as a call answers it.
    pub(crate) fn of_error(err: &editkit::Error) -> Refusal {
        Refusal::of(&err.to_json())
    }

    /// A contract error object as a refusal.
    pub(crate) fn of(error: &Value) -> Refusal {
        Refusal::deserialize(error).unwrap_or_default()
    }

    /// The typed kind; `None` for a word the contract does not have.
    pub(crate) fn error_kind(&self) -> Option<ErrorKind> {
        self.kind.as_deref().and_then(exit::kind_of)
    }

    /// The exit code of this refusal ([`exit::for_kind`]); a kind the contract does not have
    /// is a refusal.
    pub(crate) fn exit_code(&self) -> u8 {
        self.error_kind().map_or(EXIT_REFUSED, exit::for_kind)
    }

    /// The candidate line numbers (1-based) of an ambiguous match.
    pub(crate) fn candidate_lines(&self) -> impl Iterator<Item = u64> + '_ {
        self.lines.iter().filter_map(|line| match line {
            LineNumber::Number(number) => Some(*number),
            LineNumber::Other(_) => None,
        })
    }
}

/// One failing hunk of a patch.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Failure {
    #[serde(deserialize_with = "lenient")]
    pub(crate) path: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(crate) hunk: Option<u64>,
    #[serde(deserialize_with = "lenient")]
    pub(crate) patch_line: u64,
    #[serde(deserialize_with = "lenient")]
    pub(crate) kind: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(crate) message: String,
}

/// The region of a file closest to text that was not found.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Closest {
    #[serde(deserialize_with = "lenient")]
    pub(crate) first_line: u64,
    #[serde(deserialize_with = "lenient")]
    pub(crate) last_line: u64,
    #[serde(deserialize_with = "lenient")]
    pub(crate) similarity: f64,
    #[serde(deserialize_with = "lenient")]
    pub(crate) divergence: Option<Divergence>,
}

/// The first line where the text given and the closest region differ.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Divergence {
    #[serde(deserialize_with = "lenient")]
    pub(crate) line: u64,
    #[serde(deserialize_with = "lenient")]
    pub(crate) expected: String,
    #[serde(deserialize_with = "lenient")]
    pub(crate) found: String,
}

/// An entry of `lines`: a line number, or something else (ranges, in some refusals).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum LineNumber {
    Number(u64),
    Other(IgnoredAny),
}

/// A detail of an unexpected shape reads as absent.
fn lenient<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned + Default,
{
    let value = Value::deserialize(deserializer)?;
    Ok(T::deserialize(&value).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_refusal_keeps_the_details_of_the_right_shape() {
        let refusal = Refusal::of(&json!({"kind": "ambiguous", "message": "2 places", "lines": [3, 9],
            "closest": null, "failures": "not a list", "field": 7}));
        assert_eq!(refusal.error_kind(), Some(ErrorKind::Ambiguous));
        assert_eq!(refusal.candidate_lines().collect::<Vec<_>>(), [3, 9]);
        assert!(refusal.closest.is_none() && refusal.failures.is_empty() && refusal.field.is_none());
        assert_eq!(refusal.exit_code(), 1);
        assert_eq!(Refusal::of(&json!({"kind": "invalid_patch"})).exit_code(), 2);
        assert_eq!(Refusal::of(&json!({"kind": "new_kind"})).exit_code(), 1);
    }

    #[test]
    fn an_answer_is_typed_or_refused() {
        let done = answer::<editkit::UndoResponse>(&json!({"ok": true, "restored": ["a"], "remaining": 2}));
        assert!(matches!(done, Ok(Answer::Done(undo)) if undo.remaining == 2));
        let refused = answer::<editkit::UndoResponse>(&json!({"ok": false, "error": {"kind": "stale"}}));
        assert!(matches!(refused, Ok(Answer::Refused(r)) if r.error_kind() == Some(ErrorKind::Stale)));
        assert!(answer::<editkit::UndoResponse>(&json!({"ok": true, "restored": 1})).is_err());
        let owned = answer_owned::<editkit::UndoResponse>(json!({"ok": true, "restored": ["a"], "remaining": 0}));
        assert!(matches!(owned, Ok(Answer::Done(undo)) if undo.restored == ["a"]));
    }
}
