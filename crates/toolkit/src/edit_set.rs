//! Several files' edits as one transaction (what a language server's rename gives): byte
//! ranges on each file's decoded text, checked whole, rendered as one unified diff of exact
//! hunks (every old line given, each hunk at its line number, no context), and committed by
//! [`editkit_patch::apply_parsed`] in strict mode with every file's expected hash. So an edit
//! set takes the same locks, staleness guard, intent journal, crash recovery and undo entry
//! (`undo_patch`) as `apply_patch`, and changes all its files or none.
//!
//! A dry run returns the whole diff and the plan (canonical path → SHA-256 of each file it
//! would change); given back with the real run, a plan refuses the whole set as `stale` when
//! any file differs from it, or the set now changes other files. Refused whole, before
//! anything is locked: an edit out of range, off a character boundary or overlapping
//! another, a path named twice, outside the workspace or blocked, a file that is binary or not
//! UTF-8, more than [`editkit_patch::MAX_PATCH_FILES`] files or [`MAX_EDIT_SET_EDITS`] edits, a
//! diff over `max_call_bytes`, a file that would pass `max_read_bytes`.
//!
//! No formatter runs after an edit set: what the dry run shows is what is written.

use std::collections::BTreeMap;
use std::ops::Range;

use editkit_patch as patch;
use editkit_vfs::{Sha256, Workspace};

use crate::catalog::Tool;
use crate::error::{EditSetError, Error, Result};
use crate::history;
use crate::toolkit::Toolkit;
use crate::types::DiagnosticsInfo;

/// Most edits one edit set holds, over all its files.
pub const MAX_EDIT_SET_EDITS: usize = 100_000;

/// One file's edits: byte ranges of its decoded text (`FileText::text`: LF line endings, no
/// BOM) and their replacements, in any order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileEdits {
    /// The file, as a workspace path.
    pub(crate) path: String,
    /// SHA-256 of the file the ranges were taken on: a file that holds anything else now is
    /// refused as `stale`.
    pub(crate) sha256: Sha256,
    /// (range, replacement) pairs; a replacement's `\r\n` and `\r` become the file's endings.
    pub(crate) edits: Vec<(Range<usize>, String)>,
}

/// Edits across files, applied all or none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct EditSet {
    /// Each file once.
    pub(crate) files: Vec<FileEdits>,
    /// Plan only: the diff and the plan, nothing written.
    pub(crate) dry_run: bool,
    /// The plan of an earlier dry run: every file it names must hold that SHA-256 still, and
    /// the set must change exactly those files.
    pub(crate) plan: Option<BTreeMap<String, Sha256>>,
}

/// One file an edit set changed (or would change).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EditedFile {
    /// Canonical path.
    pub(crate) path: String,
    /// Its edits that changed something.
    pub(crate) edits: usize,
    /// SHA-256 before.
    pub(crate) sha256_before: Sha256,
    /// SHA-256 after (the patch crate's, of the bytes it writes).
    pub(crate) sha256_after: Option<Sha256>,
    /// Post-write checks (empty on a dry run).
    pub(crate) diagnostics: DiagnosticsInfo,
}

/// What an edit set did, or would do.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EditSetApplied {
    /// The files it changes, in path order; files whose edits change nothing are left out.
    pub(crate) files: Vec<EditedFile>,
    /// The whole unified diff (names in headers quoted as git quotes them).
    pub(crate) diff: String,
    /// Canonical path → SHA-256 before, of every file in `files`: give it back with the real run.
    pub(crate) plan: BTreeMap<String, Sha256>,
    /// True when nothing was written.
    pub(crate) dry_run: bool,
}

/// One run of whole lines a group of edits touches, before and after.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Hunk {
    /// 1-based first old line; for an insertion at the end (no old line), the line after
    /// which it goes (0 for an empty file).
    old_start: usize,
    /// Old lines, without terminators.
    old: Vec<String>,
    /// New lines, without terminators.
    new: Vec<String>,
    /// The old side's last line is the file's last and has no terminator.
    old_missing_newline: bool,
    /// The new side's last line is the file's last and has no terminator.
    new_missing_newline: bool,
}

/// One file ready to render: canonical path, its hash, its hunks, the edits that count.
#[derive(Debug)]
struct Prepared {
    path: String,
    sha256: Sha256,
    hunks: Vec<Hunk>,
    edits: usize,
}

impl Toolkit {
    /// Applies `request` to the primary root as one transaction (see the [module](self)),
    /// admitted as `tool` (the read-only gate).
    ///
    /// # Errors
    /// [`EditSetError`] (`too_large`, `invalid_args`, `not_utf8`, `stale`, `no_change`); the
    /// workspace's refusals of a path (`outside_workspace`, `blocked`, `not_found`, `binary`,
    /// `not_utf8`...); `stale` for a file that changed since its edits were made; the patch
    /// crate's refusals and failures. Nothing is written on any of them.
    pub(crate) fn apply_edit_set(&self, tool: Tool, request: EditSet) -> Result<EditSetApplied> {
        self.admit(tool, request.dry_run)?;
        let workspace = self.workspace();
        // A plan names the files of a set: it is bounded as they are.
        let files = request.files.len().max(request.plan.as_ref().map_or(0, BTreeMap::len));
        if files > patch::MAX_PATCH_FILES {
            return Err(EditSetError::TooManyFiles { files, limit: patch::MAX_PATCH_FILES }.into());
        }
        let edits: usize = request.files.iter().map(|file| file.edits.len()).sum();
        if edits > MAX_EDIT_SET_EDITS {
            return Err(EditSetError::TooManyEdits { edits, limit: MAX_EDIT_SET_EDITS }.into());
        }
        let limit = self.options().max_call_bytes.min(patch::MAX_PATCH_BYTES as u64);
        let mut budget = Budget { used: 0, limit };
        let mut prepared: Vec<Prepared> = Vec::with_capacity(request.files.len());
        for file in &request.files {
            let one = self.prepare_file(workspace, file, &mut budget)?;
            if let Some(earlier) = prepared.iter().find(|earlier| earlier.path == one.path) {
                let again = file.path.clone();
                return Err(EditSetError::NamedTwice { path: earlier.path.clone(), again }.into());
            }
            prepared.push(one);
        }
        prepared.retain(|file| !file.hunks.is_empty());
        prepared.sort_by(|a, b| a.path.cmp(&b.path));
        if let Some(plan) = &request.plan {
            check_plan(workspace, plan, &prepared)?;
        }
        if prepared.is_empty() {
            return Err(EditSetError::NothingChanges.into());
        }
        let text = render(&prepared);
        let parsed = patch::parse_as(&text, Some(patch::Dialect::Unified))?;
        verify(&parsed, &prepared)?;
        self.commit_edit_set(workspace, &parsed, prepared, request.dry_run)
    }

    /// Reads one file, checks its hash and edits, and makes its hunks.
    fn prepare_file(&self, workspace: &Workspace, file: &FileEdits, budget: &mut Budget) -> Result<Prepared> {
        let read = workspace.peek(&file.path)?;
        let path = read.path().to_owned();
        if !read.encoding().is_utf8() {
            return Err(EditSetError::NotUtf8 { path, encoding: read.encoding().label().to_owned() }.into());
        }
        if read.sha256() != file.sha256 {
            return Err(
                editkit_vfs::Error::Stale { path, expected: Some(file.sha256), current: Some(read.sha256()) }.into()
            );
        }
        let text = read.text();
        // The file's two header lines.
        budget.charge(2 * path.len() + 16)?;
        let order = checked_order(&path, text, &file.edits)?;
        let growth: usize = file.edits.iter().map(|(range, new)| new.len().saturating_sub(range.len())).sum();
        self.check_readable(&path, text.len().saturating_add(growth))?;
        let hunks = hunks(text, &file.edits, &order, budget)?;
        let edits = order.iter().filter(|&&idx| changes(text, &file.edits[idx])).count();
        Ok(Prepared { path, sha256: read.sha256(), hunks, edits })
    }

    /// Commits (or previews) the parsed diff, then records the undo entry and checks the
    /// written files.
    fn commit_edit_set(
        &self,
        workspace: &Workspace,
        parsed: &patch::Patch,
        prepared: Vec<Prepared>,
        dry_run: bool,
    ) -> Result<EditSetApplied> {
        let expected: BTreeMap<String, Sha256> = prepared.iter().map(|file| (file.path.clone(), file.sha256)).collect();
        let options = |_: &patch::Patch| patch::ApplyOptions {
            dry_run,
            strict: true,
            expected_hashes: expected.clone(),
            max_work: self.options().max_patch_work,
            ..Default::default()
        };
        let mut before: Vec<(String, Option<Vec<u8>>)> = Vec::new();
        let planned = |plan: &patch::Plan<'_>| {
            if !dry_run {
                before = plan.previous().map(|(path, bytes)| (path.to_owned(), bytes.map(<[u8]>::to_vec))).collect();
            }
        };
        let applied = patch::apply_parsed(workspace, parsed, options, planned)?;
        let names: Vec<String> = prepared.iter().map(|file| file.path.clone()).collect();
        let diff = crate::shown::quote_diff_headers(applied.diff, &names);
        let mut files: Vec<EditedFile> = prepared
            .iter()
            .map(|file| EditedFile {
                path: file.path.clone(),
                edits: file.edits,
                sha256_before: file.sha256,
                sha256_after: applied
                    .files
                    .iter()
                    .find(|done| done.path == file.path)
                    .and_then(|done| done.sha256_after),
                diagnostics: DiagnosticsInfo::default(),
            })
            .collect();
        if !dry_run {
            self.after_edit_set(workspace, before, &mut files)?;
        }
        Ok(EditSetApplied { files, diff, plan: expected, dry_run })
    }

    /// After the commit: the undo entry (as a patch's), the versions kept for later merges,
    /// and each written file's post-write checks.
    fn after_edit_set(
        &self,
        workspace: &Workspace,
        before: Vec<(String, Option<Vec<u8>>)>,
        files: &mut [EditedFile],
    ) -> Result<()> {
        let mut states = Vec::with_capacity(before.len());
        for (path, bytes) in before {
            // The set is committed: a file that cannot be read again now (changed or linked
            // meanwhile) is recorded without an expected hash, never turned into an error.
            let now = workspace.canonical_recorded(&path).and_then(|path| workspace.txn().read(&path)).ok().flatten();
            let after = now.as_deref().map(Sha256::of);
            if let (Some(now), Some(sha256)) = (now, after)
                && let Some(file) = files.iter_mut().find(|file| file.path == path)
                && let Ok(text) = editkit_vfs::Text::decode_owned(now)
            {
                let old = bytes.as_deref().map(String::from_utf8_lossy);
                let old = old.as_deref().map(|old| old.trim_start_matches('\u{feff}'));
                file.diagnostics = self.after_write(workspace, &path, old, text.as_str());
                if workspace.recorded_hash(&path).ok().flatten() == Some(sha256) {
                    self.read_versions.keep(0, &path, sha256, std::sync::Arc::new(text));
                }
            }
            states.push((path, bytes, after));
        }
        // The servers are told once the whole set landed: one wait for every file.
        let written: Vec<String> =
            files.iter().filter(|file| file.sha256_after.is_some()).map(|file| file.path.clone()).collect();
        let rels: Vec<&str> = written.iter().map(String::as_str).collect();
        let mut answers = self.servers_after(workspace, &rels).into_iter();
        for file in files.iter_mut().filter(|file| file.sha256_after.is_some()) {
            file.diagnostics.server_diagnostics = answers.next().flatten();
        }
        history::record_patch(workspace, &states, &self.history_bounds())
    }
}

/// The bytes of diff text counted so far against the call's limit.
struct Budget {
    used: u64,
    limit: u64,
}

impl Budget {
    fn charge(&mut self, bytes: usize) -> std::result::Result<(), EditSetError> {
        self.used = self.used.saturating_add(bytes as u64);
        if self.used > self.limit {
            return Err(EditSetError::DiffTooLarge { size: self.used, limit: self.limit });
        }
        Ok(())
    }
}

/// Whether an edit changes the text it replaces.
fn changes(text: &str, (range, new): &(Range<usize>, String)) -> bool {
    text.get(range.clone()) != Some(normalised(new).as_str())
}

/// A replacement with `\r\n` and lone `\r` made `\n`, as the decoded text holds them.
fn normalised(new: &str) -> String {
    if new.contains('\r') { new.replace("\r\n", "\n").replace('\r', "\n") } else { new.to_owned() }
}

/// The edits' indices in text order, each range checked; refuses overlaps.
fn checked_order(path: &str, text: &str, edits: &[(Range<usize>, String)]) -> Result<Vec<usize>> {
    for (index, (range, _)) in edits.iter().enumerate() {
        let fits = range.start <= range.end
            && range.end <= text.len()
            && text.is_char_boundary(range.start)
            && text.is_char_boundary(range.end);
        if !fits {
            let (start, end, len) = (range.start, range.end, text.len());
            return Err(EditSetError::OutOfRange { path: path.to_owned(), index, start, end, len }.into());
        }
    }
    let mut order: Vec<usize> = (0..edits.len()).collect();
    order.sort_by_key(|&idx| (edits[idx].0.start, edits[idx].0.end));
    for pair in order.windows(2) {
        let (first, second) = (pair[0], pair[1]);
        let (a, b) = (&edits[first].0, &edits[second].0);
        // Ranges sharing bytes overlap; so does an insertion at either end of another edit's
        // range, or two at one place: which goes first would be a guess.
        let touching = (a.is_empty() || b.is_empty()) && b.start == a.end;
        if b.start < a.end || touching {
            return Err(EditSetError::Overlapping { path: path.to_owned(), first, second }.into());
        }
    }
    Ok(order)
}

/// Start of the line holding byte `at`.
fn line_start(text: &str, at: usize) -> usize {
    text.get(..at).and_then(|before| before.rfind('\n')).map_or(0, |newline| newline + 1)
}

/// End of the lines a range ending at `end` touches: just after the first newline at or after
/// `end` (or the end of the text). That newline is no edit's, so the lines after the edits end
/// with it: a range that ends a line takes the next line with it, which its replacement may
/// join.
fn lines_end(text: &str, end: usize) -> usize {
    text.get(end..).and_then(|rest| rest.find('\n')).map_or(text.len(), |newline| end + newline + 1)
}

/// Lines of `region` without terminators, and whether its last line has none.
fn split_lines(region: &str) -> (Vec<String>, bool) {
    if region.is_empty() {
        return (Vec::new(), false);
    }
    let missing = !region.ends_with('\n');
    let body = region.strip_suffix('\n').unwrap_or(region);
    (body.split('\n').map(str::to_owned).collect(), missing)
}

/// The file's hunks: its edits grouped by the whole lines they touch (groups that share or
/// meet at a line merged), each group's lines before and after. Groups that change nothing are
/// left out.
fn hunks(text: &str, edits: &[(Range<usize>, String)], order: &[usize], budget: &mut Budget) -> Result<Vec<Hunk>> {
    // Whole-line regions, each with the edits inside it (in text order).
    let mut groups: Vec<(Range<usize>, Vec<usize>)> = Vec::new();
    for &idx in order {
        let range = &edits[idx].0;
        let region = line_start(text, range.start)..lines_end(text, range.end);
        match groups.last_mut() {
            Some((last, members)) if region.start <= last.end => {
                last.end = last.end.max(region.end);
                members.push(idx);
            }
            _ => groups.push((region, vec![idx])),
        }
    }
    let mut out = Vec::with_capacity(groups.len());
    for (region, members) in groups {
        let old_region = text.get(region.clone()).unwrap_or_default();
        // Charged before the new lines are built: the old lines, and at most the old lines
        // plus every replacement, with their prefixes and the hunk's header.
        let pieces: usize = members.iter().map(|&idx| edits[idx].1.len()).sum();
        budget.charge(2 * old_region.len() + pieces + 2 * members.len() + 64)?;
        let mut new_region = String::with_capacity(old_region.len() + pieces);
        let mut copied = region.start;
        for &idx in &members {
            let (range, new) = &edits[idx];
            new_region.push_str(text.get(copied..range.start).unwrap_or_default());
            new_region.push_str(&normalised(new));
            copied = range.end;
        }
        new_region.push_str(text.get(copied..region.end).unwrap_or_default());
        if new_region == old_region {
            continue;
        }
        // An insertion at the end of a text that ends its last line has no old line: it goes
        // after the lines before it.
        let lines_before = text.get(..region.start).unwrap_or_default().matches('\n').count();
        let old_start = if old_region.is_empty() { lines_before } else { lines_before + 1 };
        // Only a region that ends the text can end without a newline, on either side.
        let (old, old_missing_newline) = split_lines(old_region);
        let (new, new_missing_newline) = split_lines(&new_region);
        out.push(Hunk { old_start, old, new, old_missing_newline, new_missing_newline });
    }
    Ok(out)
}

/// A path in a diff header with `a/` or `b/`, quoted (in the escapes the patch parser reads
/// back) when it holds a character a header cannot carry as it is.
fn header_name(prefix: &str, path: &str) -> String {
    let name = format!("{prefix}{path}");
    let plain = !name.starts_with('"')
        && !name.ends_with(char::is_whitespace)
        && !name.chars().any(|c| c == '"' || c == '\\' || c.is_control());
    if plain {
        return name;
    }
    let mut quoted = String::with_capacity(name.len() + 2);
    quoted.push('"');
    for c in name.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            '\t' => quoted.push_str("\\t"),
            c if c.is_control() => {
                let mut buf = [0u8; 4];
                for byte in c.encode_utf8(&mut buf).bytes() {
                    quoted.push_str(&format!("\\{byte:03o}"));
                }
            }
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// One unified diff of every file's hunks.
fn render(files: &[Prepared]) -> String {
    let mut out = String::new();
    for file in files {
        out.push_str(&format!("--- {}\n+++ {}\n", header_name("a/", &file.path), header_name("b/", &file.path)));
        let mut shift: isize = 0;
        for hunk in &file.hunks {
            let new_start = (hunk.old_start as isize + shift).max(0);
            out.push_str(&format!("@@ -{},{} +{},{} @@\n", hunk.old_start, hunk.old.len(), new_start, hunk.new.len()));
            for (prefix, lines, missing) in
                [("-", &hunk.old, hunk.old_missing_newline), ("+", &hunk.new, hunk.new_missing_newline)]
            {
                for line in lines {
                    out.push_str(prefix);
                    out.push_str(line);
                    out.push('\n');
                }
                if missing && !lines.is_empty() {
                    out.push_str("\\ No newline at end of file\n");
                }
            }
            shift += hunk.new.len() as isize - hunk.old.len() as isize;
        }
    }
    out
}

/// Checks that the parsed diff says exactly what was rendered: one update per file, its
/// hunks' lines and line numbers.
fn verify(parsed: &patch::Patch, files: &[Prepared]) -> Result<()> {
    let operations = parsed.operations();
    for (index, file) in files.iter().enumerate() {
        let unrepresentable = |reason: &str| {
            Error::from(EditSetError::Unrepresentable { path: file.path.clone(), reason: reason.to_owned() })
        };
        let Some(patch::Operation::Update { path, move_to: None, hunks, .. }) = operations.get(index) else {
            return Err(unrepresentable("its diff section did not read back as one update"));
        };
        if *path != file.path {
            return Err(unrepresentable("its name did not read back from the diff header"));
        }
        let same = hunks.len() == file.hunks.len()
            && hunks.iter().zip(&file.hunks).all(|(parsed, hunk)| {
                parsed.old == hunk.old
                    && parsed.new == hunk.new
                    && parsed.old_start == Some(hunk.old_start)
                    && parsed.anchors.is_empty()
                    && parsed.old_missing_newline == (hunk.old_missing_newline && !hunk.old.is_empty())
                    && parsed.new_missing_newline == (hunk.new_missing_newline && !hunk.new.is_empty())
            });
        if !same {
            return Err(unrepresentable("its lines did not read back from the diff"));
        }
    }
    if operations.len() != files.len() {
        return Err(EditSetError::Unrepresentable {
            path: files.first().map(|file| file.path.clone()).unwrap_or_default(),
            reason: "the diff read back with another number of files".into(),
        }
        .into());
    }
    Ok(())
}

/// A plan must name exactly the files the set changes, each with the hash it holds now.
fn check_plan(workspace: &Workspace, plan: &BTreeMap<String, Sha256>, files: &[Prepared]) -> Result<()> {
    let mut planned: BTreeMap<String, Sha256> = BTreeMap::new();
    for (path, sha256) in plan {
        planned.insert(workspace.resolve(path)?, *sha256);
    }
    for file in files {
        match planned.remove(&file.path) {
            None => return Err(EditSetError::PlanDiffers { path: file.path.clone(), in_plan: false }.into()),
            Some(sha256) if sha256 != file.sha256 => {
                return Err(editkit_vfs::Error::Stale {
                    path: file.path.clone(),
                    expected: Some(sha256),
                    current: Some(file.sha256),
                }
                .into());
            }
            Some(_) => {}
        }
    }
    match planned.into_keys().next() {
        Some(path) => Err(EditSetError::PlanDiffers { path, in_plan: true }.into()),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests;
