//! A change made to a file outside since a patch was planned on it: shown in reports and in
//! refusals, so a leaf both `report` and `error` use.

use serde::Serialize;

/// A change made to a file since the version a patch was planned on (the base): shown when the
/// patch's hunks were merged with it, and in the refusal when they could not be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutsideChange {
    /// 1-based first and last line of each changed region, in the file as it was found.
    pub lines: Vec<[usize; 2]>,
    /// The change (base → the file as found) as a unified diff, bounded.
    pub diff: String,
    /// Whether the diff was cut.
    pub diff_truncated: bool,
}

impl OutsideChange {
    pub(crate) fn between(path: &str, base: &str, current: &str) -> Self {
        let (diff, diff_truncated) = editkit_matcher::diff::bounded(path, base, current);
        OutsideChange { lines: editkit_matcher::rebase::changed_lines(base, current), diff, diff_truncated }
    }
}
