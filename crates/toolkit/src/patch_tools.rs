//! apply_patch and undo_patch through editkit-patch (the `patch` feature).

use editkit_patch as patch;

use crate::catalog::Tool;
use crate::error::Result;
use crate::history;
use crate::toolkit::Toolkit;
use crate::types::*;

/// A file a patch touched: its path, its content before (none: it did not exist), shared
/// with the plan, and its hash after (none: it is gone or could not be read again).
type Touched = (String, Option<patch::Shared>, Option<editkit_vfs::Sha256>);

/// A written file to check beside the commit: its path, what it held before (`None`:
/// nothing) and what the commit writes there.
struct EarlyJob {
    path: String,
    old: Option<patch::Shared>,
    new: patch::Shared,
    /// The line windows outside which `new` is `old`, when the plan knows them.
    windows: Option<Vec<editkit_matcher::diff::Window>>,
}

/// The checks made beside a commit: each job with its diagnostics (`None`: not made).
type Early = (Vec<EarlyJob>, Vec<Option<DiagnosticsInfo>>);

/// What a commit writes at each path (not the paths it deletes).
type Written = std::collections::HashMap<String, patch::Shared>;

/// What each path a commit writes held before (`None`: nothing), and what it writes there.
type Contents = (Vec<(String, Option<patch::Shared>)>, Written);

/// What is made beside a commit when no formatter runs: the patch's undo entry (its sequence
/// number).
type Recorded = Result<u64>;

/// `bytes` as a kept text, when they are text.
fn decoded_text(bytes: Vec<u8>) -> Option<std::sync::Arc<editkit_vfs::Text>> {
    editkit_vfs::Text::decode_owned(bytes).ok().map(std::sync::Arc::new)
}

/// `files` as an undo entry records them: the contents before are the plan's, hashed when it
/// read them.
fn hashed(files: &[Touched]) -> Vec<history::HashedFileState<'_>> {
    files
        .iter()
        .map(|(path, before, after)| (path.as_str(), before.as_ref().map(|b| (b.bytes(), b.sha256())), *after))
        .collect()
}

/// A check for each file `plan` writes, with what it held before (a moved file: what its
/// old path held), in the plan's order.
fn early_jobs(plan: &patch::Plan<'_>) -> Vec<EarlyJob> {
    let contents: std::collections::HashMap<&str, (Option<patch::Shared>, Option<patch::Shared>)> =
        plan.contents().map(|(path, before, after)| (path, (before, after))).collect();
    plan.preview()
        .files
        .iter()
        .filter_map(|file| {
            let new = contents.get(file.path.as_str())?.1.clone()?;
            let was = file.moved_from.as_deref().unwrap_or(&file.path);
            let old = contents.get(was).and_then(|(before, _)| before.clone());
            let windows = plan.windows(&file.path).map(<[_]>::to_vec);
            Some(EarlyJob { path: file.path.clone(), old, new, windows })
        })
        .collect()
}

fn action(action: patch::Action) -> PatchAction {
    match action {
        patch::Action::Added => PatchAction::Add,
        patch::Action::Updated => PatchAction::Update,
        patch::Action::Deleted => PatchAction::Delete,
        patch::Action::Moved => PatchAction::Move,
    }
}

impl Toolkit {
    /// Applies a multi-file patch to the primary root as one transaction: every file changes
    /// or none does. A patch left half-done by a crash is recovered first.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.py"), "a = 1\n").unwrap();
    /// std::fs::write(dir.path().join("b.py"), "b = 1\n").unwrap();
    /// let toolkit = editkit::Toolkit::open(dir.path(), Default::default())?;
    /// let patch = |b_old: &str| {
    ///     format!("*** Begin Patch\n*** Update File: a.py\n@@\n-a = 1\n+a = 2\n*** Update File: b.py\n@@\n-{b_old}\n+b = 2\n*** End Patch\n")
    /// };
    /// // The second hunk does not match: nothing is written, not even a.py.
    /// let request = editkit::ApplyPatchRequest::new;
    /// assert!(toolkit.apply_patch(request(patch("b = 9"))).is_err());
    /// assert_eq!(std::fs::read_to_string(dir.path().join("a.py")).unwrap(), "a = 1\n");
    /// let applied = toolkit.apply_patch(request(patch("b = 1")))?;
    /// assert_eq!(applied.files.len(), 2);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// `invalid_patch` (with the patch line), or one error listing every failing hunk
    /// (`not_found`, `ambiguous`, `exists`, `stale`...); nothing is written.
    pub fn apply_patch(&self, request: ApplyPatchRequest) -> Result<ApplyPatchResponse> {
        self.apply_patch_inner(request, &crate::Stop::default())
    }

    /// apply_patch reporting progress through `control`: the files planned (once every hunk is
    /// placed, before anything is written), then each file, in order, once the post-write
    /// checks are in. A patch is all or nothing, so a cancel does not stop it.
    ///
    /// # Errors
    /// As [`Toolkit::apply_patch`].
    #[cfg(feature = "search")]
    pub fn apply_patch_with(
        &self,
        request: ApplyPatchRequest,
        control: &editkit_search::Control,
    ) -> Result<ApplyPatchResponse> {
        self.apply_patch_inner(request, control)
    }

    fn apply_patch_inner(&self, request: ApplyPatchRequest, control: &crate::Stop) -> Result<ApplyPatchResponse> {
        self.admit(Tool::ApplyPatch, request.dry_run)?;
        let workspace = self.workspace();
        let dialect = request.dialect.map(|dialect| match dialect {
            PatchDialect::Hunks => patch::Dialect::Hunks,
            PatchDialect::BeginPatch => patch::Dialect::BeginPatch,
            PatchDialect::Unified => patch::Dialect::Unified,
        });
        let encoding = crate::toolkit::encoding_arg(request.encoding.as_deref())?;
        let parsed = patch::parse_as(&request.patch, dialect)?;
        // A file changed since it was read is merged hunk by hunk with the version read, kept
        // since (see `crate::outside`), unless the call asks for the old refusal.
        let merge = !request.force && encoding.is_none() && request.stale == StaleMode::Merge;
        let options = |parsed: &patch::Patch| patch::ApplyOptions {
            dry_run: request.dry_run,
            force: request.force,
            strict: request.strict,
            max_work: self.options().max_patch_work,
            encoding,
            bases: if merge { self.patch_bases(workspace, parsed) } else { Default::default() },
            ..Default::default()
        };
        // What each file held before, for the undo entry and for checking only what the
        // patch changed.
        let mut before: Vec<(String, Option<patch::Shared>)> = Vec::new();
        // What the commit writes at each path, shared with the plan.
        let mut written: Written = std::collections::HashMap::new();
        // The checks of the new contents need only the old and new texts, which the plan
        // holds: they run while the commit writes (their verdicts stand for the files that
        // hold, once written, what was checked), and stop when the patch fails.
        let check_early = !request.dry_run && self.checks_after_write();
        // The undo entry needs only the plan too (what each file held, and the hash of what
        // the commit writes there): it is written while the commit writes, and forgotten if
        // the patch fails. A formatter changes what the files hold after: then it is written
        // once they are formatted.
        let record_early = !request.dry_run && !self.formats();
        let abandon = &std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|scope| {
            let mut early = None;
            let mut recording = None;
            let planned = |plan: &patch::Plan<'_>| {
                control.advance(plan.previous().count() as u64);
                if !request.dry_run {
                    before = plan.contents().map(|(path, before, _)| (path.to_owned(), before)).collect();
                    written = plan.contents().filter_map(|(path, _, after)| Some((path.to_owned(), after?))).collect();
                }
                if record_early {
                    let files: Vec<Touched> = plan
                        .contents()
                        .map(|(path, before, after)| (path.to_owned(), before, after.map(|after| after.sha256())))
                        .collect();
                    recording = std::thread::Builder::new()
                        .spawn_scoped(scope, move || history::record_hashed_patch_kept(workspace, &hashed(&files)))
                        .ok();
                }
                if check_early {
                    let jobs = early_jobs(plan);
                    early = std::thread::Builder::new()
                        .spawn_scoped(scope, move || {
                            let checked = self.check_early(workspace, &jobs, abandon);
                            (jobs, checked)
                        })
                        .ok();
                }
            };
            let (applied, held) = match patch::apply_parsed_holding(workspace, &parsed, options, planned) {
                Ok(applied) => applied,
                Err(err) => {
                    abandon.store(true, std::sync::atomic::Ordering::Relaxed);
                    // The change did not happen: neither does its undo entry.
                    if let Some(Ok(seq)) = recording.and_then(|recording| recording.join().ok()) {
                        history::forget_patch(workspace, seq);
                    }
                    return Err(err.into());
                }
            };
            // Releasing the locks frees the blocks of every file the patch replaced: done
            // beside the undo entry's settling, the checks' collection and the response. A
            // formatter takes each file's lock again, and waits for its release.
            held.release_beside(|| {
                let recorded = recording.and_then(|recording| recording.join().ok());
                self.after_commit(workspace, &request, applied, (before, written), (early, recorded), control)
            })
        })
    }

    /// What follows a patch's commit (or dry run): formatting, the undo entry, the response
    /// and the checks of each written file (`early`: those made beside the commit).
    fn after_commit(
        &self,
        workspace: &editkit_vfs::Workspace,
        request: &ApplyPatchRequest,
        mut applied: patch::Applied,
        (before, written): Contents,
        (early, recorded): (Option<std::thread::ScopedJoinHandle<'_, Early>>, Option<Recorded>),
        control: &crate::Stop,
    ) -> Result<ApplyPatchResponse> {
        let mut formatted_paths: Vec<String> = Vec::new();
        let mut olds: Vec<Touched> = Vec::new();
        if !request.dry_run {
            // The formatter, as `edit_file` runs it, per written file under its own lock; the
            // patch's undo entry then expects the formatted content.
            for file in applied.files.iter_mut().filter(|_| self.formats()) {
                if let Some(sha256) = file.sha256_after
                    && let Some(formatted) = self.format_patched(workspace, &file.path, sha256)
                {
                    file.sha256_after = Some(formatted);
                    formatted_paths.push(file.path.clone());
                }
            }
            let mut files = Vec::new();
            for (path, bytes) in before {
                // The patch is applied, and each file holds what the commit wrote, its hash
                // known, unless a formatter ran: then what the file holds is read again, and a
                // file that cannot be read again now (changed or linked meanwhile) is recorded
                // without an expected hash, never turned into an error.
                let wrote = written.get(&path).filter(|_| !self.formats());
                let (after, now) = match wrote {
                    Some(wrote) => (Some(wrote.sha256()), None),
                    None => {
                        let now = workspace
                            .canonical_recorded(&path)
                            .and_then(|path| workspace.txn().read(&path))
                            .ok()
                            .flatten();
                        (now.as_deref().map(editkit_vfs::Sha256::of), now)
                    }
                };
                // What the patch wrote is the base of a merge with a change made outside before
                // the next edit or patch, as an edit's is: the plan's own text, shared, when a
                // read of the file gives it back (else its bytes decoded, as a read would), or
                // what a formatter left, decoded now.
                if let Some(sha256) = after
                    && workspace.recorded_hash(&path).ok().flatten() == Some(sha256)
                {
                    let text = match wrote {
                        Some(wrote) => match wrote.text().filter(|text| text.decodes_to_itself()) {
                            Some(text) => Some(std::sync::Arc::clone(text)),
                            None => decoded_text(wrote.bytes().to_vec()),
                        },
                        None => now.and_then(decoded_text),
                    };
                    if let Some(text) = text {
                        self.read_versions.keep(0, &path, sha256, text);
                    }
                }
                files.push((path, bytes, after));
            }
            let hashed = hashed(&files);
            match recorded {
                // Written beside the commit: settled now that the change is made.
                Some(recorded) => {
                    recorded?;
                    history::settle_patch(workspace, history::kept_bytes(&hashed), &self.history_bounds())?;
                }
                None => history::record_hashed_patch(workspace, &hashed, &self.history_bounds())?,
            }
            olds = files;
        }
        let mut response = ApplyPatchResponse {
            files: applied
                .files
                .iter()
                .map(|file| PatchedFile {
                    path: file.path.clone(),
                    action: action(file.action),
                    from: file.moved_from.clone(),
                    sha256: file.sha256_after,
                    hunks: file
                        .hunks
                        .iter()
                        .map(|hunk| PatchedHunk {
                            hunk: hunk.hunk,
                            lines: [hunk.line, hunk.last_line],
                            rung: hunk.rung,
                            score: hunk.score,
                            alignment: hunk.alignment,
                        })
                        .collect(),
                    formatted: formatted_paths.contains(&file.path),
                    merged_with: file.merged_with.as_ref().map(|outside| MergedWith {
                        lines: outside.lines.clone(),
                        diff: crate::shown::quote_diff_headers(outside.diff.clone(), [&file.path]),
                        diff_truncated: outside.diff_truncated,
                    }),
                    diagnostics: DiagnosticsInfo::default(),
                })
                .collect(),
            diff: String::new(),
            dry_run: applied.dry_run,
        };
        // The patch crate writes names in the diff's headers as they are: quoted here, as git
        // quotes them, so each header stays one line.
        let names = response.files.iter().flat_map(|file| std::iter::once(&file.path).chain(file.from.as_ref()));
        response.diff = crate::shown::quote_diff_headers(applied.diff, names);
        if !response.dry_run {
            let early = early.and_then(|early| early.join().ok()).unwrap_or_default();
            self.check_patched(workspace, &mut response.files, &olds, &early, control);
            // The servers are told once the whole patch landed (never beside the commit),
            // each file's text as written: one wait for them all.
            let written: Vec<String> =
                response.files.iter().filter(|file| file.sha256.is_some()).map(|file| file.path.clone()).collect();
            let rels: Vec<&str> = written.iter().map(String::as_str).collect();
            let mut answers = self.servers_after(workspace, &rels).into_iter();
            for file in response.files.iter_mut().filter(|file| file.sha256.is_some()) {
                file.diagnostics.server_diagnostics = answers.next().flatten();
            }
        }
        Ok(response)
    }

    /// Diagnostics per written file, while the patch's locks are released (they only read),
    /// the files spread over the cores: each is checked on its own text, so the order they
    /// finish in does not matter. `olds` holds what each file was before the patch.
    fn check_patched(
        &self,
        workspace: &editkit_vfs::Workspace,
        files: &mut [PatchedFile],
        olds: &[Touched],
        early: &Early,
        control: &crate::Stop,
    ) {
        let (jobs, checked) = early;
        let early: std::collections::HashMap<&str, (editkit_vfs::Sha256, &DiagnosticsInfo)> = jobs
            .iter()
            .zip(checked)
            .filter_map(|(job, checked)| Some((job.path.as_str(), (job.new.sha256(), checked.as_ref()?))))
            .collect();
        let check = |file: &PatchedFile| {
            file.sha256?;
            // Checked beside the commit, and the file holds what was checked.
            let now = olds.iter().find(|(path, ..)| *path == file.path).and_then(|(.., now)| *now);
            if let Some((sha256, checked)) = early.get(file.path.as_str())
                && now == Some(*sha256)
            {
                return Some((*checked).clone());
            }
            let bytes =
                workspace.canonical_recorded(&file.path).and_then(|path| workspace.txn().read(&path)).ok()??;
            let was = file.from.as_ref().unwrap_or(&file.path);
            let old = olds.iter().find(|(path, ..)| path == was).and_then(|(_, before, _)| before.as_ref());
            let old = old.map(patch::Shared::bytes);
            Some(self.check_bytes(workspace, &file.path, (old, None), &bytes))
        };
        let checked = patch::par::map(files, 1, patch::par::compute_threads(), check);
        // Progress counts the files in order once their checks are in, so a reader sees every
        // step: two threads reporting at once would race, and a progress that went back is
        // dropped.
        for (file, diagnostics) in files.iter_mut().zip(checked) {
            if let Some(diagnostics) = diagnostics {
                file.diagnostics = diagnostics;
            }
            control.advance(1);
        }
    }

    /// The diagnostics of `path` holding `new`, which held `old` before (`None`: nothing), with
    /// the line windows outside which they are the same, when known.
    fn check_bytes(
        &self,
        workspace: &editkit_vfs::Workspace,
        path: &str,
        (old, windows): (Option<&[u8]>, Option<&[editkit_matcher::diff::Window]>),
        new: &[u8],
    ) -> DiagnosticsInfo {
        // Text is almost always UTF-8, which a plain check takes faster than a lossy decode.
        let lossy = |bytes| {
            std::str::from_utf8(bytes).map_or_else(|_| String::from_utf8_lossy(bytes), std::borrow::Cow::Borrowed)
        };
        let text = lossy(new);
        let old = old.map(lossy);
        let old = old.as_deref().map(|old| old.trim_start_matches('\u{feff}'));
        self.after_write_within(workspace, path, (old, windows), text.trim_start_matches('\u{feff}'))
    }

    /// The checks of `jobs`, spread over the cores, made while the commit writes them; a job
    /// not started when `abandon` is set (the patch failed) gives `None`.
    fn check_early(
        &self,
        workspace: &editkit_vfs::Workspace,
        jobs: &[EarlyJob],
        abandon: &std::sync::atomic::AtomicBool,
    ) -> Vec<Option<DiagnosticsInfo>> {
        patch::par::map(jobs, 1, patch::par::compute_threads(), |job| {
            if abandon.load(std::sync::atomic::Ordering::Relaxed) {
                return None;
            }
            let old = job.old.as_ref().map(patch::Shared::bytes);
            Some(self.check_bytes(workspace, &job.path, (old, job.windows.as_deref()), job.new.bytes()))
        })
    }

    /// Whether a written file is checked (the diagnostics are not off).
    fn checks_after_write(&self) -> bool {
        #[cfg(feature = "analyze")]
        return self.options().diagnostics.mode != editkit_analyze::DiagnosticsMode::Off;
        #[cfg(not(feature = "analyze"))]
        false
    }

    /// Whether a written file is formatted (formatting is on).
    fn formats(&self) -> bool {
        #[cfg(feature = "analyze")]
        return self.options().formatting.enabled;
        #[cfg(not(feature = "analyze"))]
        false
    }

    /// For each file the patch updates (or moves), the version of it this toolkit kept when it
    /// was last read or written, when that is the version the workspace vouches for: what a
    /// stale file's hunks are planned on before they are merged with the outside change.
    fn patch_bases(
        &self,
        workspace: &editkit_vfs::Workspace,
        parsed: &patch::Patch,
    ) -> std::collections::BTreeMap<String, (editkit_vfs::Sha256, std::sync::Arc<editkit_vfs::Text>)> {
        let mut bases = std::collections::BTreeMap::new();
        for operation in parsed.operations() {
            let patch::Operation::Update { .. } = operation else { continue };
            let Ok(rel) = workspace.resolve(operation.path()) else { continue };
            let Ok(Some(recorded)) = workspace.recorded_hash(&rel) else { continue };
            if let Some(base) = self.read_versions.get(0, &rel, recorded) {
                bases.insert(rel, (recorded, base));
            }
        }
        bases
    }

    /// Formats one file a patch just wrote (see `Toolkit::reformat`), under its own lock and
    /// only while it still holds what the patch wrote (`sha256`); the formatted content's hash
    /// when the formatter changed it. A file changed in between, or a formatter that fails,
    /// leaves the file as it is: the patch stands either way.
    fn format_patched(
        &self,
        workspace: &editkit_vfs::Workspace,
        path: &str,
        sha256: editkit_vfs::Sha256,
    ) -> Option<editkit_vfs::Sha256> {
        let lock = workspace.lock(path).ok()?;
        let bytes = lock.read_expecting(Some(sha256)).ok()?.decoded().encode();
        self.reformat(&lock, &bytes, sha256).ok().flatten().map(|written| written.sha256)
    }
}
