//! Tools over paths rather than contents: read_files, tree, move, list_roots, and the kept
//! contents of a recursive delete.

use std::collections::BTreeMap;

use editkit_vfs::{EntryKind, RenameOptions, Sha256, Workspace};

use crate::Stop;
use crate::catalog::Tool;
use crate::error::{Error, Result};
use crate::history;
use crate::toolkit::Toolkit;
use crate::types::*;

/// Most paths one read_files call takes.
pub const MAX_READ_FILES: usize = 64;
/// Deepest level tree shows.
pub const MAX_TREE_DEPTH: usize = 32;
/// Most files tree walks before it stops (and says so).
pub const MAX_TREE_FILES: usize = 10_000;
/// Most files a recursive delete keeps for undo; a larger directory is refused.
pub const MAX_UNDO_FILES: usize = 10_000;
/// Most bytes a recursive delete keeps for undo; a larger directory is refused.
pub const MAX_UNDO_BYTES: u64 = 256 << 20;

impl Toolkit {
    /// Reads several files; each answers its read or its refusal, and one refusal does not
    /// stop the others. Facts (symbols, outlines) only with `include_symbols`.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    /// let toolkit = editkit::Toolkit::open(dir.path(), Default::default())?;
    /// let read = toolkit.read_files(editkit::ReadFilesRequest::new(vec!["a.txt".into(), "b.txt".into()]))?;
    /// assert_eq!((read.read, read.failed), (1, 1));
    /// assert_eq!(read.files[1].error.as_ref().unwrap().kind, editkit::ErrorKind::NotFound);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// `invalid_args` for no paths or more than [`MAX_READ_FILES`]. The files past the call's
    /// budget ([`crate::ToolkitOptions::max_call_bytes`]) together answer `too_large` unread.
    pub fn read_files(&self, request: ReadFilesRequest) -> Result<ReadFilesResponse> {
        if request.paths.is_empty() {
            return Err(Error::invalid("paths", "give at least one path to read"));
        }
        if request.paths.len() > MAX_READ_FILES {
            return Err(Error::invalid(
                "paths",
                format!(
                    "{} paths given, over the limit of {MAX_READ_FILES} per call; split them over several calls",
                    request.paths.len()
                ),
            ));
        }
        let mut files = Vec::with_capacity(request.paths.len());
        // The files together stay within the call's budget: each is sized before it is read.
        let budget = self.options().max_call_bytes;
        let mut used: u64 = 0;
        for path in request.paths {
            let size = self.route(&path).1.metadata(&path).map_or(0, |m| m.size);
            // A file over the read limit is refused by read_file without being read.
            let readable = size <= self.options().max_read_bytes;
            let read = if readable && used.saturating_add(size) > budget {
                Err(Error::LimitExceeded {
                    what: format!("`{path}` with the files read before it in this call"),
                    size: used.saturating_add(size),
                    limit: budget,
                    option: "max_call_bytes (--max-call-bytes)".into(),
                    advice: "it was not read; read it in another call (read_file reads one file up to the read limit)"
                        .into(),
                })
            } else {
                used = used.saturating_add(if readable { size } else { 0 });
                self.read_file(ReadFileRequest::new(path.clone()).include_symbols(request.include_symbols))
            };
            files.push(match read {
                Ok(file) => ReadFilesItem { path, file: Some(Box::new(file)), error: None },
                Err(err) => ReadFilesItem {
                    path,
                    file: None,
                    error: Some(ItemError { kind: err.error_kind(), message: err.message() }),
                },
            });
        }
        let read = files.iter().filter(|item| item.file.is_some()).count();
        Ok(ReadFilesResponse { failed: files.len() - read, read, files })
    }

    /// The directories and files under a directory to a depth, honouring ignore rules as
    /// search does (with the `search` feature), each directory with the count of files under it.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::create_dir_all(dir.path().join("src/deep")).unwrap();
    /// std::fs::write(dir.path().join("src/deep/a.rs"), "").unwrap();
    /// std::fs::write(dir.path().join("README.md"), "").unwrap();
    /// let toolkit = editkit::Toolkit::open(dir.path(), Default::default())?;
    /// let tree = toolkit.tree(editkit::TreeRequest::new().depth(1))?;
    /// let paths: Vec<&str> = tree.entries.iter().map(|e| e.path.as_str()).collect();
    /// assert_eq!(paths, ["README.md", "src/"]);
    /// assert_eq!(tree.entries[1].files, Some(1));
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// Path errors, `not_found`, `invalid_args` for a file or a depth over [`MAX_TREE_DEPTH`].
    pub fn tree(&self, request: TreeRequest) -> Result<TreeResponse> {
        self.tree_inner(request, &Stop::default())
    }

    /// tree under `control` (see [`Toolkit::search_files_with`]).
    ///
    /// # Errors
    /// As [`Toolkit::tree`].
    #[cfg(feature = "search")]
    pub fn tree_with(&self, request: TreeRequest, control: &editkit_search::Control) -> Result<TreeResponse> {
        self.tree_inner(request, control)
    }

    fn tree_inner(&self, request: TreeRequest, control: &Stop) -> Result<TreeResponse> {
        if request.depth == 0 || request.depth > MAX_TREE_DEPTH {
            return Err(Error::invalid("depth", format!("depth must be between 1 and {MAX_TREE_DEPTH}")));
        }
        let (_, workspace) = self.route(&request.path);
        let base = workspace.resolve(&request.path)?;
        // Refuses a missing path and a file with their own errors.
        workspace.open_dir(&request.path)?;
        let (files, truncated) = listed_files(workspace, &request.path, control)?;
        let prefix = if base.is_empty() { String::new() } else { format!("{base}/") };
        let mut dirs: BTreeMap<String, (usize, u64)> = BTreeMap::new();
        let mut shown: Vec<(String, u64)> = Vec::new();
        for file in &files {
            let below = file.strip_prefix(&prefix).unwrap_or(file);
            let size = if request.sizes { workspace.metadata(file).map(|m| m.size).unwrap_or(0) } else { 0 };
            let parts: Vec<&str> = below.split('/').collect();
            for level in 1..parts.len() {
                let dir = parts[..level].join("/");
                let entry = dirs.entry(dir).or_default();
                entry.0 += 1;
                entry.1 += size;
            }
            if parts.len() <= request.depth {
                shown.push((below.to_owned(), size));
            }
        }
        let mut entries: Vec<TreeEntry> = Vec::new();
        for (dir, (count, size)) in &dirs {
            let depth = dir.split('/').count();
            if depth <= request.depth {
                entries.push(TreeEntry {
                    path: format!("{prefix}{dir}/"),
                    depth,
                    files: Some(*count),
                    size: request.sizes.then_some(*size),
                });
            }
        }
        for (file, size) in shown {
            entries.push(TreeEntry {
                depth: file.split('/').count(),
                path: format!("{prefix}{file}"),
                files: None,
                size: request.sizes.then_some(size),
            });
        }
        // Depth first: a directory's path sorts before everything under it.
        entries.sort_by_cached_key(|entry| tree_key(&entry.path));
        Ok(TreeResponse {
            path: if base.is_empty() { ".".into() } else { base },
            entries,
            total_files: files.len(),
            truncated,
        })
    }

    /// Moves (renames) a file or directory inside its root. A file move is kept in the undo
    /// history as a two-file change (`undo_patch` moves it back); a directory is one rename.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("old.py"), "x = 1\n").unwrap();
    /// let toolkit = editkit::Toolkit::open(dir.path(), Default::default())?;
    /// let moved = toolkit.move_path(editkit::MoveRequest::new("old.py", "pkg/new.py"))?;
    /// assert_eq!(moved.to, "pkg/new.py");
    /// assert!(dir.path().join("pkg/new.py").exists() && !dir.path().join("old.py").exists());
    /// toolkit.undo_patch(editkit::UndoPatchRequest::new())?;
    /// assert!(dir.path().join("old.py").exists() && !dir.path().join("pkg/new.py").exists());
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// Path errors, `not_found`, `exists` when `to` exists (a file, without `overwrite`; a
    /// directory, always), `invalid_args` for paths in different roots or a directory moved
    /// into itself.
    pub fn move_path(&self, request: MoveRequest) -> Result<MoveResponse> {
        self.admit(Tool::Move, false)?;
        let (from_root, workspace) = self.route(&request.from);
        let (to_root, _) = self.route(&request.to);
        if from_root != to_root {
            return Err(Error::invalid("to", "a move stays inside one workspace root; copy and delete across roots"));
        }
        let from = workspace.resolve_entry(&request.from)?;
        let to = workspace.resolve_entry(&request.to)?;
        let Some(kind) = workspace.entry_kind(&request.from)? else {
            return Err(editkit_vfs::Error::NotFound { path: request.from }.into());
        };
        if to == from {
            return Err(Error::invalid("to", format!("`{}` and `{}` are the same path", request.from, request.to)));
        }
        if kind == EntryKind::Dir && to.starts_with(&format!("{from}/")) {
            return Err(Error::invalid("to", format!("cannot move the directory `{from}` into itself (`{to}`)")));
        }
        let target_kind = workspace.entry_kind(&request.to)?;
        if target_kind == Some(EntryKind::Dir) {
            return Err(editkit_vfs::Error::Exists { path: request.to }.into());
        }
        let overwrite = request.overwrite && target_kind.is_some();
        let options = RenameOptions::default().overwrite(request.overwrite).create_dirs(request.create_dirs);
        if kind != EntryKind::File {
            workspace.rename(&request.from, &request.to, options)?;
            return Ok(MoveResponse { from, to, kind, overwritten: overwrite, undoable: false });
        }
        let locks = workspace.lock_entries([request.from.as_str(), request.to.as_str()])?;
        let bytes = workspace.read_bytes(&from)?;
        let replaced = match target_kind {
            Some(_) if request.overwrite => Some(workspace.read_bytes(&to)?),
            Some(_) => return Err(editkit_vfs::Error::Exists { path: request.to }.into()),
            None => None,
        };
        workspace.rename(&request.from, &request.to, options)?;
        drop(locks);
        let states = vec![(from.clone(), Some(bytes.clone()), None), (to.clone(), replaced, Some(Sha256::of(&bytes)))];
        history::record_patch(workspace, &states, &self.history_bounds())?;
        Ok(MoveResponse { from, to, kind, overwritten: overwrite, undoable: true })
    }

    /// Reverses the last multi-file change made through editkit as a whole: a patch, a file
    /// move or a recursive delete.
    ///
    /// # Errors
    /// `not_found` when no patch is recorded; `stale` when a file changed since (unless
    /// forced).
    pub fn undo_patch(&self, request: UndoPatchRequest) -> Result<UndoResponse> {
        self.admit(Tool::UndoPatch, false)?;
        let (restored, remaining) = history::undo_patch(self.workspace(), request.force)?;
        Ok(UndoResponse { restored, remaining })
    }

    /// The undo history: each file's kept versions and the recorded multi-file changes, newest
    /// first; for one file, also which of them made its current content.
    ///
    /// # Errors
    /// Path errors for `path`; state folder errors.
    pub fn history(&self, request: HistoryRequest) -> Result<HistoryResponse> {
        let workspace = match &request.path {
            Some(path) => self.route(path).1,
            None => self.workspace(),
        };
        let rel = request.path.as_deref().map(|path| workspace.resolve(path)).transpose()?;
        let paths = match &rel {
            Some(rel) => vec![rel.clone()],
            None => history::files_with_history(workspace)?,
        };
        let mut files = Vec::new();
        let mut newest_edit = None;
        for path in paths {
            let versions = history::file_versions(workspace, &path)?;
            if versions.is_empty() {
                continue;
            }
            newest_edit = versions.first().map(|v| (v.after, v.time));
            files.push(FileHistory {
                path,
                versions: versions
                    .into_iter()
                    .map(|v| HistoryVersion { existed: v.existed, size_bytes: v.size, time_unix: v.time })
                    .collect(),
            });
        }
        let records = history::patches(workspace)?;
        let touching =
            |record: &history::PatchRecord| rel.as_ref().is_none_or(|rel| record.files.iter().any(|(p, _)| p == rel));
        let last_change = match &rel {
            Some(rel) => {
                let current = workspace.current_hash(rel)?;
                // Only the newest patch can be undone: it made the content if its record says so.
                let by_patch = records.first().and_then(|record| {
                    record
                        .files
                        .iter()
                        .find(|(p, _)| p == rel)
                        .filter(|(_, after)| *after == current)
                        .map(|_| record.time)
                });
                let by_edit = newest_edit.filter(|(after, _)| *after == current).map(|(_, time)| time);
                match (by_edit, by_patch) {
                    (Some(edit), Some(patch)) => Some(if patch > edit { "patch" } else { "edit" }),
                    (Some(_), None) => Some("edit"),
                    (None, Some(_)) => Some("patch"),
                    (None, None) => None,
                }
            }
            None => None,
        };
        let patches = records
            .iter()
            .filter(|record| touching(record))
            .map(|record| ChangeHistory {
                files: record.files.iter().map(|(path, _)| path.clone()).collect(),
                time_unix: record.time,
            })
            .collect();
        let evicted = history::evicted(workspace, self.options().history_bytes)?;
        Ok(HistoryResponse { files, patches, last_change: last_change.map(str::to_owned), evicted })
    }

    /// The workspace roots: where every tool may work.
    ///
    /// # Errors
    /// None today; the signature matches the other tools.
    pub fn list_roots(&self, _request: NoArgs) -> Result<ListRootsResponse> {
        let roots = self
            .workspaces()
            .iter()
            .enumerate()
            .map(|(idx, w)| RootInfo { path: w.root_path().display().to_string(), primary: idx == 0 })
            .collect();
        Ok(ListRootsResponse { roots, read_only: self.options().read_only })
    }

    /// Keeps every file under directory `rel` in the undo history (as one change that deleted
    /// them), before a recursive delete; returns the entry, to forget if the delete fails or to
    /// settle once it is done. Bounded by [`MAX_UNDO_FILES`] and [`MAX_UNDO_BYTES`].
    pub(crate) fn keep_tree(&self, workspace: &Workspace, given: &str) -> Result<(u64, Vec<String>)> {
        let dir = workspace.open_dir(given)?;
        let mut found: Vec<String> = Vec::new();
        let mut over = false;
        dir.walk(&mut |entry| {
            if entry.kind == Some(EntryKind::File) && !entry.symlink {
                if found.len() == MAX_UNDO_FILES {
                    over = true;
                    return false;
                }
                found.push(entry.rel.clone());
            }
            !over
        })?;
        let too_many = |what: String| {
            Error::invalid(
                "recursive",
                format!(
                    "`{given}` holds {what}, over what a delete keeps for undo ({MAX_UNDO_FILES} files, \
                     {} MiB); delete its sub-directories one by one",
                    MAX_UNDO_BYTES >> 20
                ),
            )
        };
        if over {
            return Err(too_many(format!("more than {MAX_UNDO_FILES} files")));
        }
        let mut states = Vec::with_capacity(found.len());
        let mut total = 0u64;
        for rel in found {
            let bytes = workspace.read_bytes(&rel)?;
            total += bytes.len() as u64;
            if total > MAX_UNDO_BYTES {
                return Err(too_many(format!("more than {} MiB of files", MAX_UNDO_BYTES >> 20)));
            }
            states.push((rel, Some(bytes), None));
        }
        let seq = history::record_patch_kept(workspace, &states)?;
        Ok((seq, states.into_iter().map(|(rel, ..)| rel).collect()))
    }
}

/// `a/b/` sorts as `a/b` followed by a separator below every other character, so a directory
/// comes right before its contents.
fn tree_key(path: &str) -> Vec<u8> {
    path.trim_end_matches('/').bytes().map(|b| if b == b'/' { 0 } else { b }).collect()
}

/// The files under `path`, as search would visit them, and whether the walk stopped at its
/// bound.
#[cfg(feature = "search")]
fn listed_files(workspace: &Workspace, path: &str, control: &Stop) -> Result<(Vec<String>, bool)> {
    let listed = editkit_search::Files::builder("**").max_files(MAX_TREE_FILES).run_with(workspace, path, control)?;
    Ok((listed.files, listed.truncated))
}

/// The files under `path` (without the `search` feature: no ignore rules).
#[cfg(not(feature = "search"))]
fn listed_files(workspace: &Workspace, path: &str, _control: &Stop) -> Result<(Vec<String>, bool)> {
    let dir = workspace.open_dir(path)?;
    let mut files = Vec::new();
    let mut truncated = false;
    dir.walk(&mut |entry| {
        if files.len() == MAX_TREE_FILES {
            truncated = true;
            return false;
        }
        if entry.kind == Some(EntryKind::File) {
            files.push(entry.rel.clone());
        }
        true
    })?;
    files.sort();
    Ok((files, truncated))
}
