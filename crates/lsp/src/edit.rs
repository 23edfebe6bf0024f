//! A rename's `WorkspaceEdit` turned into byte-range edits per file, checked against the texts
//! the server was given: the edit that comes out is one editkit can apply all or nothing.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Component, Path, PathBuf};

use lsp_types::{DocumentChangeOperation, DocumentChanges, OneOf, ResourceOp, TextEdit, Uri, WorkspaceEdit};

use crate::position::{Encoding, LineIndex};
use crate::uri::uri_to_path;

/// The most text edits one rename may carry.
pub const MAX_RENAME_EDITS: usize = 100_000;

/// The most files one rename may change (editkit-patch's `MAX_PATCH_FILES`): checked before
/// any file's text is asked for.
pub const MAX_RENAME_FILES: usize = 4_096;

/// A file's text, as the caller read it (through the vfs: decoded, LF line endings, no BOM,
/// the text editkit's edit set applies ranges to), and the version last sent to the server
/// (`None` for a file not open with it, which the server reads from disk).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentText {
    /// The text.
    pub text: String,
    /// The version last sent, if the file is open with the server.
    pub version: Option<i32>,
}

/// One replacement, in bytes of the file's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ByteEdit {
    /// The bytes replaced (empty for an insertion).
    pub range: Range<usize>,
    /// What replaces them.
    pub new_text: String,
}

/// The edits of one file: sorted by position, none overlapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEdit {
    /// The file, an absolute path beneath the root.
    pub path: PathBuf,
    /// The edits, in order.
    pub edits: Vec<ByteEdit>,
}

impl FileEdit {
    /// `text` with the edits made (`text` being the one they were checked against).
    #[must_use]
    pub fn apply(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for edit in &self.edits {
            out.push_str(text.get(at..edit.range.start).unwrap_or(""));
            out.push_str(&edit.new_text);
            at = edit.range.end;
        }
        out.push_str(text.get(at..).unwrap_or(""));
        out
    }
}

/// Why a rename's edit cannot be applied; the whole rename is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EditError {
    /// The edit creates, deletes or renames a file.
    #[error(
        "the rename would {operation} a file (`{}`), which editkit does not do as part of a rename",
        crate::clean(uri, 1_000, false)
    )]
    ResourceOperation {
        /// `create`, `delete` or `rename`.
        operation: &'static str,
        /// The file named.
        uri: String,
    },
    /// A URI that is not a `file:` URI.
    #[error("the rename names `{}`, which is not a local file", crate::clean(uri, 1_000, false))]
    NotAFile {
        /// The URI.
        uri: String,
    },
    /// A file outside the root.
    #[error("the rename would change `{}`, outside the workspace root", crate::shown_path(path))]
    Outside {
        /// The file.
        path: PathBuf,
    },
    /// The server edited another version of the file than the one sent.
    #[error("the server's edit of `{}` is for version {server}, but version {} was sent; the file changed, try again", crate::shown_path(path), sent.map_or("none".to_owned(), |v| v.to_string()))]
    Stale {
        /// The file.
        path: PathBuf,
        /// The version sent.
        sent: Option<i32>,
        /// The version the server edited.
        server: i32,
    },
    /// An edit replaces text that is not the old name: the server saw another text.
    #[error(
        "the server's edit of `{}` at line {line} does not replace `{old_name}`; the file changed, try again",
        crate::shown_path(path)
    )]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: u32,
        /// The text the edit would replace when it is an identifier of at most 80
        /// characters, else empty: a file's content is never quoted.
        found: String,
        /// The name being renamed.
        old_name: String,
    },
    /// An edit writes text that is neither the new name nor one of the rename shapes real
    /// servers produce (`old: new`, `new: old`, `old as new`, `new as old`, and insertions of
    /// `old: `, `new: `, `: old`, `: new`, ` as old`, ` as new`, `old as `, `new as `).
    #[error(
        "the server's edit of `{}` at line {line} writes something other than `{new_name}`; the rename is refused",
        crate::shown_path(path)
    )]
    NotTheNewName {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: u32,
        /// The new name.
        new_name: String,
    },
    /// More files than [`MAX_RENAME_FILES`].
    #[error("the rename changes {files} files, more than the limit of {MAX_RENAME_FILES} (MAX_RENAME_FILES)")]
    TooManyFiles {
        /// How many.
        files: usize,
    },
    /// A range that lies outside the text or inside a character.
    #[error("the server's edit of `{}` has a range outside its text (line {line})", crate::shown_path(path))]
    BadRange {
        /// The file.
        path: PathBuf,
        /// The 1-based line of the range's start.
        line: u32,
    },
    /// Two edits of one file overlap.
    #[error("the server's edits of `{}` overlap", crate::shown_path(path))]
    Overlap {
        /// The file.
        path: PathBuf,
    },
    /// The file's text could not be had.
    #[error("cannot read `{}` for the rename: {reason}", crate::shown_path(path))]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The server's answer was for older texts of files it had not been sent or had been
    /// sent other texts of; sent the current ones and asked again, it gave other edits.
    #[error(
        "the server computed the rename on an older text of {files} file(s), now sent to it, and asked again \
         gave other edits; nothing was changed, try again"
    )]
    ViewChanged {
        /// How many files it had an older text of.
        files: usize,
    },
    /// More edits than [`MAX_RENAME_EDITS`].
    #[error("the rename has {edits} edits, more than the limit of {MAX_RENAME_EDITS}")]
    TooLarge {
        /// How many.
        edits: usize,
    },
}

/// Turns the `WorkspaceEdit` a server answered to a rename of `old_name` to `new_name` into
/// per-file byte edits. `documentChanges` is used when present (as the protocol says), else
/// `changes`. `text_of` gives each file's text (called once per file, only once the number of
/// files is known to be within [`MAX_RENAME_FILES`]): the caller reads it through the vfs,
/// which applies the sandbox policy, and gives the decoded text (LF line endings, no BOM), so
/// the byte ranges are on the text editkit's edit set applies; an `Err` (a path the caller
/// refuses) refuses the whole rename. This crate reads no file. Every file must lie beneath
/// `root` (lexically: no `..`; the caller resolves links); every edit must replace exactly
/// `old_name` by `new_name` (or a rename shape, see [`EditError::NotTheNewName`]); a
/// versioned edit must be for the version sent.
///
/// # Errors
/// [`EditError`]: the first thing that makes the rename unsafe to apply; nothing is applied.
pub fn rename_edits(
    edit: &WorkspaceEdit,
    root: &Path,
    old_name: &str,
    new_name: &str,
    encoding: Encoding,
    mut text_of: impl FnMut(&Path) -> Result<SentText, String>,
) -> Result<Vec<FileEdit>, EditError> {
    // (uri, server's version, edits) in the order given.
    let per_uri = per_uri(edit)?;
    let total: usize = per_uri.iter().map(|(_, _, edits)| edits.len()).sum();
    if total > MAX_RENAME_EDITS {
        return Err(EditError::TooLarge { edits: total });
    }
    // A file named twice gets its edits merged, checked once.
    let mut files: BTreeMap<PathBuf, (Vec<Option<i32>>, Vec<&TextEdit>)> = BTreeMap::new();
    for (uri, version, edits) in per_uri {
        let path = uri_to_path(uri).ok_or_else(|| EditError::NotAFile { uri: uri.as_str().to_owned() })?;
        if !beneath(&path, root) {
            return Err(EditError::Outside { path });
        }
        let entry = files.entry(path).or_default();
        entry.0.push(version);
        entry.1.extend(edits);
    }
    if files.len() > MAX_RENAME_FILES {
        return Err(EditError::TooManyFiles { files: files.len() });
    }
    let names = Names { old: old_name, new: new_name };
    let mut out = Vec::with_capacity(files.len());
    for (path, (versions, edits)) in files {
        let sent = text_of(&path).map_err(|reason| EditError::Unreadable { path: path.clone(), reason })?;
        if let Some(server) = versions.into_iter().flatten().find(|server| Some(*server) != sent.version) {
            return Err(EditError::Stale { path, sent: sent.version, server });
        }
        let edits = check_file(&path, &sent.text, &edits, names, encoding)?;
        out.push(FileEdit { path, edits });
    }
    Ok(out)
}

/// The names of a rename.
/// Each document's edits in `edit`, with the version the server says they are for.
type PerUri<'a> = Vec<(&'a Uri, Option<i32>, Vec<&'a TextEdit>)>;

/// `edit`'s text edits by document (`documentChanges` first, else `changes` by URI).
fn per_uri(edit: &WorkspaceEdit) -> Result<PerUri<'_>, EditError> {
    let mut per_uri: PerUri<'_> = Vec::new();
    if let Some(changes) = &edit.document_changes {
        let edits: Vec<&lsp_types::TextDocumentEdit> = match changes {
            DocumentChanges::Edits(edits) => edits.iter().collect(),
            DocumentChanges::Operations(ops) => {
                let mut edits = Vec::new();
                for operation in ops {
                    match operation {
                        DocumentChangeOperation::Edit(edit) => edits.push(edit),
                        DocumentChangeOperation::Op(op) => return Err(resource_operation(op)),
                    }
                }
                edits
            }
        };
        for document in edits {
            let texts = document.edits.iter().map(|edit| match edit {
                OneOf::Left(edit) => edit,
                OneOf::Right(annotated) => &annotated.text_edit,
            });
            per_uri.push((&document.text_document.uri, document.text_document.version, texts.collect()));
        }
    } else if let Some(changes) = &edit.changes {
        let mut sorted: Vec<_> = changes.iter().collect();
        sorted.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
        per_uri.extend(sorted.into_iter().map(|(uri, edits)| (uri, None, edits.iter().collect())));
    }
    Ok(per_uri)
}

/// The files `edit` changes, before any is read: each a local file beneath `root`, at most
/// [`MAX_RENAME_FILES`] of them.
///
/// # Errors
/// The refusals [`rename_edits`] gives before reading: a resource operation, a URI that is
/// not a local file, a file outside `root`, too many files.
pub fn edit_files(edit: &WorkspaceEdit, root: &Path) -> Result<Vec<PathBuf>, EditError> {
    let mut files = Vec::new();
    for (uri, _, _) in per_uri(edit)? {
        let path = uri_to_path(uri).ok_or_else(|| EditError::NotAFile { uri: uri.as_str().to_owned() })?;
        if !beneath(&path, root) {
            return Err(EditError::Outside { path });
        }
        files.push(path);
    }
    files.sort();
    files.dedup();
    if files.len() > MAX_RENAME_FILES {
        return Err(EditError::TooManyFiles { files: files.len() });
    }
    Ok(files)
}

/// Whether two answers make the same text edits (in any order, whatever document versions
/// they name); an answer with a resource operation is never the same.
#[must_use]
pub fn same_edits(a: &WorkspaceEdit, b: &WorkspaceEdit) -> bool {
    type Key = (String, u32, u32, u32, u32, String);
    let keys = |edit: &WorkspaceEdit| -> Option<Vec<Key>> {
        let mut keys: Vec<Key> = Vec::new();
        for (uri, _, edits) in per_uri(edit).ok()? {
            keys.extend(edits.iter().map(|edit| {
                let (start, end) = (edit.range.start, edit.range.end);
                (uri.as_str().to_owned(), start.line, start.character, end.line, end.character, edit.new_text.clone())
            }));
        }
        keys.sort();
        Some(keys)
    };
    keys(a).is_some_and(|a| Some(a) == keys(b))
}

#[derive(Debug, Clone, Copy)]
struct Names<'a> {
    old: &'a str,
    new: &'a str,
}

impl Names<'_> {
    /// Whether `new_text` may replace `replaced` (the old name, or nothing): the new name,
    /// or a shape real servers produce for shorthand properties and import specifiers.
    fn allowed(self, replaced: &str, new_text: &str) -> bool {
        let Names { old, new } = self;
        if replaced.is_empty() {
            [format!("{old}: "), format!("{new}: "), format!(": {old}"), format!(": {new}")]
                .into_iter()
                .chain([format!(" as {old}"), format!(" as {new}"), format!("{old} as "), format!("{new} as ")])
                .any(|shape| shape == new_text)
        } else {
            new_text == new
                || [
                    format!("{old}: {new}"),
                    format!("{new}: {old}"),
                    format!("{old} as {new}"),
                    format!("{new} as {old}"),
                ]
                .into_iter()
                .any(|shape| shape == new_text)
        }
    }
}

fn check_file(
    path: &Path,
    text: &str,
    edits: &[&TextEdit],
    names: Names<'_>,
    encoding: Encoding,
) -> Result<Vec<ByteEdit>, EditError> {
    let index = LineIndex::new(text);
    // Every start and end mapped in one walk of each line (a long line is walked once).
    let ends: Vec<_> = edits.iter().flat_map(|edit| [edit.range.start, edit.range.end]).collect();
    let places = index.places(&ends, encoding);
    let mut out = Vec::with_capacity(edits.len());
    for (edit, pair) in edits.iter().zip(places.chunks(2)) {
        let line = edit.range.start.line.saturating_add(1);
        let bad_range = || EditError::BadRange { path: path.to_owned(), line };
        let start = pair.first().copied().flatten().ok_or_else(bad_range)?.offset;
        let end = pair.get(1).copied().flatten().ok_or_else(bad_range)?.offset;
        let replaced = text.get(start..end).ok_or_else(bad_range)?;
        if !replaced.is_empty() && replaced != names.old {
            let identifier =
                replaced.chars().count() <= 80 && replaced.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$');
            return Err(EditError::Mismatch {
                path: path.to_owned(),
                line,
                found: if identifier { replaced.to_owned() } else { String::new() },
                old_name: names.old.to_owned(),
            });
        }
        if !names.allowed(replaced, &edit.new_text) {
            return Err(EditError::NotTheNewName { path: path.to_owned(), line, new_name: names.new.to_owned() });
        }
        out.push(ByteEdit { range: start..end, new_text: edit.new_text.clone() });
    }
    // Stable: insertions at one place keep the server's order.
    out.sort_by_key(|edit| edit.range.start);
    if out.windows(2).any(|pair| pair.first().zip(pair.get(1)).is_some_and(|(a, b)| a.range.end > b.range.start)) {
        return Err(EditError::Overlap { path: path.to_owned() });
    }
    Ok(out)
}

fn resource_operation(op: &ResourceOp) -> EditError {
    let (operation, uri) = match op {
        ResourceOp::Create(create) => ("create", &create.uri),
        ResourceOp::Rename(rename) => ("rename", &rename.old_uri),
        ResourceOp::Delete(delete) => ("delete", &delete.uri),
    };
    EditError::ResourceOperation { operation, uri: uri.as_str().to_owned() }
}

/// Whether `path` lies beneath `root`, lexically, with no `.` or `..` on the way.
fn beneath(path: &Path, root: &Path) -> bool {
    path.components().all(|component| matches!(component, Component::RootDir | Component::Normal(_)))
        && path.starts_with(root)
        && path != root
}

#[cfg(test)]
mod tests;
