//! Changes that landed between an agent's read and its edit, merged three-way.
//!
//! The toolkit keeps the text of what each file's last read or edit saw (bounded in bytes,
//! oldest dropped first). When an edit finds the file changed since (`stale`), it is planned
//! on that kept version (the base), and each of its pieces is carried over to the current file
//! when its lines, with one line of context on each side, are byte-identical in both: git's
//! three-way merge with the base as ancestor, the edit as ours and the current file as theirs.
//! Otherwise the edit is refused as `stale`, with the outside change in the error.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use std::ops::Range;

use editkit_matcher::rebase::{Rebased, changed_lines, rebase};
use editkit_vfs::{FileText, Sha256, Text, Workspace};

use crate::error::{Error, Result};
use crate::sync::LockExt;
use crate::types::MergedWith;

/// Default for [`crate::ToolkitOptions::kept_read_bytes`]: 32 MiB of kept read versions (an
/// HTTP server holds this much per session at most).
pub const DEFAULT_KEPT_READ_BYTES: u64 = 32 << 20;

/// The text of the last version of each file a read or an edit saw, bounded in bytes, the
/// oldest dropped first.
#[derive(Debug)]
pub(crate) struct ReadVersions {
    limit: u64,
    inner: Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    entries: VecDeque<Version>,
    bytes: u64,
}

#[derive(Debug)]
struct Version {
    root: usize,
    rel: String,
    sha256: Sha256,
    text: Arc<Text>,
}

impl ReadVersions {
    pub(crate) fn new(limit: u64) -> Self {
        ReadVersions { limit, inner: Mutex::new(Kept::default()) }
    }

    /// Keeps `text` (hashing to `sha256`) as what was last seen of `rel` in root `root`,
    /// replacing the version kept before; a text larger than the bound is not kept.
    pub(crate) fn keep(&self, root: usize, rel: &str, sha256: Sha256, text: Arc<Text>) {
        let mut kept = self.inner.lock_unpoisoned();
        if let Some(at) = kept.entries.iter().position(|v| v.root == root && v.rel == rel)
            && let Some(old) = kept.entries.remove(at)
        {
            kept.bytes -= old.text.as_str().len() as u64;
        }
        let size = text.as_str().len() as u64;
        if size > self.limit {
            return;
        }
        kept.bytes += size;
        kept.entries.push_back(Version { root, rel: rel.to_owned(), sha256, text });
        while kept.bytes > self.limit {
            let Some(old) = kept.entries.pop_front() else { break };
            kept.bytes -= old.text.as_str().len() as u64;
        }
    }

    /// The kept text of `rel` when it is the version hashing to `sha256`.
    pub(crate) fn get(&self, root: usize, rel: &str, sha256: Sha256) -> Option<Arc<Text>> {
        let kept = self.inner.lock_unpoisoned();
        kept.entries.iter().find(|v| v.root == root && v.rel == rel && v.sha256 == sha256).map(|v| Arc::clone(&v.text))
    }

    /// Bytes kept now.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> u64 {
        self.inner.lock_unpoisoned().bytes
    }
}

/// An edit planned on the version read and carried over to the file as it is.
pub(crate) struct Merged<P> {
    /// The file as it is now (read without arming the guard).
    pub(crate) file: FileText,
    /// The plan made on the version read.
    pub(crate) planned: P,
    /// Its pieces on the file as it is.
    pub(crate) rebased: Rebased,
    /// What the response says of the outside change.
    pub(crate) merged_with: MergedWith,
}

/// Where an edit was refused as `stale`: the file `rel` of root `root`, and the refusal.
pub(crate) struct Stale<'a> {
    pub(crate) root: usize,
    pub(crate) workspace: &'a Workspace,
    pub(crate) rel: &'a str,
    pub(crate) refusal: editkit_vfs::Error,
}

impl ReadVersions {
    /// The three-way merge of an edit refused as `stale`: `plan` runs on the version of `rel`
    /// the ledger vouches for (kept when it was read or written), and the pieces `pieces_of`
    /// gives of the plan are carried over to the file as it is now. Without a kept base the
    /// refusal stands; when a piece's lines (or the line each side) changed, or the plan fails
    /// on the base, it is [`Error::ChangedOutside`] with the outside diff (made by `diff`).
    /// Called under the file's lock.
    pub(crate) fn merge<P>(
        &self,
        at: Stale<'_>,
        diff: impl FnOnce(&str, &str, &str) -> (String, bool),
        plan: impl FnOnce(&Text) -> Result<P>,
        pieces_of: impl FnOnce(&P) -> Vec<(Range<usize>, String)>,
    ) -> Result<Merged<P>> {
        let Stale { root, workspace, rel, refusal: stale } = at;
        let Some(recorded) = workspace.recorded_hash(rel)? else { return Err(stale.into()) };
        let Some(base) = self.get(root, rel, recorded) else { return Err(stale.into()) };
        // The file as it is, looked at without vouching for it: a refusal leaves the guard as
        // it was, so the agent still has to read the change.
        let file = workspace.peek(rel)?;
        let (diff, diff_truncated) = diff(rel, base.as_str(), file.text());
        let lines = changed_lines(base.as_str(), file.text());
        let changed = |edit_lines| Error::ChangedOutside {
            source: Box::new(stale),
            change: Box::new(crate::error::OutsideChange {
                edit_lines,
                outside_lines: lines.clone(),
                outside_diff: diff.clone(),
            }),
        };
        let Ok(planned) = plan(&base) else { return Err(changed(None)) };
        let pieces = pieces_of(&planned);
        let rebased = match rebase(base.as_str(), file.text(), &pieces) {
            Ok(rebased) => rebased,
            Err(edit_lines) => return Err(changed(Some(edit_lines))),
        };
        Ok(Merged { file, planned, rebased, merged_with: MergedWith { lines: lines.clone(), diff, diff_truncated } })
    }
}

#[cfg(test)]
mod tests {
    use super::ReadVersions;

    #[test]
    fn kept_versions_are_bounded_and_the_oldest_go_first() {
        let versions = ReadVersions::new(10);
        let text = |s: &str| std::sync::Arc::new(editkit_vfs::Text::decode(s.as_bytes()).unwrap());
        let hash = |s: &str| editkit_vfs::Sha256::of(s.as_bytes());
        versions.keep(0, "a", hash("aaaa\n"), text("aaaa\n"));
        versions.keep(0, "b", hash("bbbb\n"), text("bbbb\n"));
        versions.keep(0, "c", hash("cccc\n"), text("cccc\n"));
        assert!(versions.get(0, "a", hash("aaaa\n")).is_none(), "the oldest went");
        assert!(versions.get(0, "c", hash("cccc\n")).is_some());
        assert!(versions.get(0, "c", hash("other")).is_none(), "another version is no base");
        assert!(versions.bytes() <= 10);
        versions.keep(0, "d", hash(&"d".repeat(20)), text(&"d".repeat(20)));
        assert!(versions.get(0, "d", hash(&"d".repeat(20))).is_none(), "larger than the bound: not kept");
    }
}
