//! What a parsed patch is ([`Patch`], [`Operation`], [`Hunk`], [`Dialect`]) and the pieces the
//! three parsers share (lines, markers, messages): a leaf under `parse`, so the dialect parsers
//! and the detection in `parse.rs` depend on it and not on each other.

use serde::Serialize;

use crate::error::Error;

/// The notation a patch was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Dialect {
    /// `*** Update File:` sections with `@@` hunks of `old`, a `===` line, then `new`; add
    /// bodies are plain content.
    Hunks,
    /// The `*** Begin Patch` format of Codex-style agents: ` `/`-`/`+` lines, `@@ anchor`
    /// chunks, `*** Move to:`, `*** End of File`; add bodies are `+` lines.
    BeginPatch,
    /// Unified diffs from `git diff` or `diff -u`.
    Unified,
}

impl Dialect {
    /// The stable snake_case name (`hunks`, `begin_patch`, `unified`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Dialect::Hunks => "hunks",
            Dialect::BeginPatch => "begin_patch",
            Dialect::Unified => "unified",
        }
    }
}

/// A parsed patch: its dialect and its operations in patch order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    pub(super) dialect: Dialect,
    pub(super) operations: Vec<Operation>,
    pub(super) directory: Option<String>,
}

impl Patch {
    /// The dialect the text was written in.
    #[must_use]
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The file operations, in patch order, with their paths as they will be resolved (under
    /// [`Patch::directory`] when the wrapper changed folder).
    #[must_use]
    pub fn operations(&self) -> &[Operation] {
        &self.operations
    }

    /// The folder a `cd DIR && apply_patch <<'EOF'` wrapper changed to; the operations' paths
    /// are already joined to it, and resolved by the workspace's rules like any other path.
    #[must_use]
    pub fn directory(&self) -> Option<&str> {
        self.directory.as_deref()
    }
}

/// One file operation of a patch. Paths are as written in the patch (resolved later).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Operation {
    /// Create a file that must not exist yet.
    Add {
        /// Path of the new file.
        path: String,
        /// Its whole content, LF line endings.
        content: String,
        /// 1-based patch line of the header.
        line: usize,
    },
    /// Delete a file that must exist.
    Delete {
        /// Path of the file.
        path: String,
        /// The content the patch says is deleted (unified diffs with hunks), checked before
        /// deleting so that a file changed since the diff was made is not lost.
        content: Option<String>,
        /// 1-based patch line of the header.
        line: usize,
    },
    /// Change a file that must exist, optionally moving it.
    Update {
        /// Path of the file.
        path: String,
        /// New path, when the file is also moved (the destination must not exist).
        move_to: Option<String>,
        /// The changes, in file order.
        hunks: Vec<Hunk>,
        /// 1-based patch line of the header.
        line: usize,
    },
}

impl Operation {
    /// The path the operation reads or creates first.
    #[must_use]
    pub fn path(&self) -> &str {
        match self {
            Operation::Add { path, .. } | Operation::Delete { path, .. } | Operation::Update { path, .. } => path,
        }
    }

    /// Joins the operation's paths to `dir` (absolute paths stay as written).
    pub(super) fn rebase(&mut self, dir: &str) {
        let join = |path: &mut String| {
            if !path.starts_with('/') {
                *path = format!("{dir}/{path}");
            }
        };
        match self {
            Operation::Add { path, .. } | Operation::Delete { path, .. } => join(path),
            Operation::Update { path, move_to, .. } => {
                join(path);
                if let Some(to) = move_to {
                    join(to);
                }
            }
        }
    }

    /// 1-based patch line of the operation's header.
    #[must_use]
    pub fn line(&self) -> usize {
        match self {
            Operation::Add { line, .. } | Operation::Delete { line, .. } | Operation::Update { line, .. } => *line,
        }
    }
}

/// One change inside a file: these old lines become these new lines.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Hunk {
    /// Lines to find first, in order (`@@ def f():`); the old lines are searched after the last.
    pub anchors: Vec<String>,
    /// The lines to find (context and removed lines), without terminators.
    pub old: Vec<String>,
    /// The lines to put in their place (context and added lines), without terminators.
    pub new: Vec<String>,
    /// The hunk must end at the end of the file (`*** End of File`).
    pub end_of_file: bool,
    /// 1-based line where the old lines started in the patch author's copy (unified diffs): a
    /// tie-breaker between equally good places, never a requirement.
    pub old_start: Option<usize>,
    /// The old side's last line has no terminator (`\ No newline at end of file`).
    pub old_missing_newline: bool,
    /// The new side's last line has no terminator (`\ No newline at end of file`).
    pub new_missing_newline: bool,
    /// 1-based patch line where the hunk starts.
    pub line: usize,
}

impl Hunk {
    /// The old lines joined, each with a `\n`.
    #[must_use]
    pub fn old_text(&self) -> String {
        join_lines(&self.old)
    }

    /// The new lines joined, each with a `\n`.
    #[must_use]
    pub fn new_text(&self) -> String {
        join_lines(&self.new)
    }

    /// The first non-blank old line (or anchor, or new line), shortened, for messages.
    #[must_use]
    pub fn preview(&self) -> String {
        let line = self
            .old
            .iter()
            .chain(self.anchors.iter())
            .chain(self.new.iter())
            .find(|line| !line.trim().is_empty())
            .map_or("", |line| line.trim());
        shorten(line, 80)
    }
}

pub(crate) fn join_lines(lines: &[String]) -> String {
    let mut out = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
    out
}

pub(crate) fn shorten(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max_chars.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// One line of patch text: its 1-based number and its content without `\r\n`/`\n`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Line<'a> {
    pub(crate) number: usize,
    pub(crate) text: &'a str,
}

/// The message of a patch that stops before its end.
pub(crate) fn incomplete(line: usize, what: &str) -> Error {
    Error::InvalidPatch {
        line,
        reason: format!("the patch is incomplete: it ends at line {line} {what}; it may have been cut off"),
    }
}

pub(crate) const ADD_FILE: &str = "*** Add File:";
pub(crate) const UPDATE_FILE: &str = "*** Update File:";
pub(crate) const DELETE_FILE: &str = "*** Delete File:";
/// `*** Move File: FROM -> TO`, a section renaming a file (with or without hunks), as the hunk
/// dialect of some agent frameworks writes it; the same as `*** Update File: FROM` followed by
/// `*** Move to: TO`.
pub(crate) const MOVE_FILE: &str = "*** Move File:";
pub(crate) const BEGIN_PATCH: &str = "*** Begin Patch";
pub(crate) const END_PATCH: &str = "*** End Patch";
pub(crate) const NO_NEWLINE_MARKER: &str = "\\ No newline at end of file";
