//! Phase 1: resolve, lock, check staleness, place every hunk, compute every new content.
//! Nothing is written.

use std::collections::{BTreeMap, HashMap, HashSet};

use editkit_vfs::DecodeError;
use std::sync::Arc;

use editkit_vfs::{EntryKind, FileLock, LineEnding, Metadata, Sha256, Text, Workspace};

use crate::error::{Cause, Error, Failure, Result};
use crate::limits::{DEFAULT_MAX_WORK, MAX_PATCH_FILES};
use crate::locate::apply_hunks;
use crate::parse::{Operation, Patch};
use crate::report::{Action, Applied, FileReport, Moved};

/// How to apply a patch. Any combination is valid; start from `ApplyOptions::default()`.
///
/// ```
/// let options = editkit_patch::ApplyOptions { dry_run: true, ..Default::default() };
/// assert!(!options.force);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyOptions {
    /// Plan only: report the diff and hashes, write nothing. Default: false.
    pub dry_run: bool,
    /// Apply even to files that changed since this workspace read them. Default: false.
    pub force: bool,
    /// SHA-256 each named file must have now (path as written in the patch, or its
    /// canonical form); always honoured, even with `force`. Default: none.
    pub expected_hashes: BTreeMap<String, Sha256>,
    /// Place hunks by exact text only (no tolerant matcher rungs). Default: false.
    pub strict: bool,
    /// The most matching work the patch may take, summed over its files: each updated file
    /// costs its hunks × the bytes they may search (the file's bytes plus the hunks' new
    /// text). Past it the patch is refused as [`Error::WorkLimit`] before that file's hunks
    /// are placed, and nothing is written. Default: [`DEFAULT_MAX_WORK`].
    pub max_work: u64,
    /// The encoding of every file the patch reads, instead of each one's detected encoding
    /// (checked the same way: the bytes must decode and encode back to themselves).
    /// Default: `None` (detected).
    pub encoding: Option<editkit_vfs::Encoding>,
    /// Per canonical path, the version of the file the caller last read (its SHA-256 and
    /// text): when an updated file is stale only because it changed since that version (the
    /// hash the workspace recorded is the base's; no expected hash given, no `force`), its
    /// hunks are planned on the base and each is carried over to the file as it is when its
    /// region, with one line each side, is unchanged there (a three-way merge); otherwise the
    /// patch is refused with [`crate::Cause::ChangedOutside`]. An update that moves the file
    /// is merged the same way (the base: the version read under its old name; a move without
    /// hunks takes the file as it is). A file several in-place updates name is merged as one
    /// change (each operation's hunks placed on the one before's result from the base, every
    /// line their windows covered carried over); one an update and a move, add or delete name
    /// is refused ([`crate::Cause::NamedTwice`]). Default: empty (a stale file is refused).
    pub bases: BTreeMap<String, (Sha256, Arc<Text>)>,
}

impl Default for ApplyOptions {
    fn default() -> Self {
        ApplyOptions {
            dry_run: false,
            force: false,
            expected_hashes: BTreeMap::new(),
            strict: false,
            max_work: DEFAULT_MAX_WORK,
            encoding: None,
            bases: BTreeMap::new(),
        }
    }
}

/// A stale file several in-place updates name: the operations' indices, the merged text with
/// each operation's hunk reports, and the outside change (reported by the first).
type ChainedFile = (Vec<usize>, crate::merge::Chained, Option<crate::outside::OutsideChange>);

/// Charges placing `hunks` over `text` to the patch's work budget.
fn charge_work(work: &mut u64, path: &str, text: &Text, hunks: &[crate::parse::Hunk], limit: u64) -> Result<()> {
    // The text a hunk searches grows with the new lines placed before it.
    let new_bytes: usize = hunks.iter().map(|hunk| hunk.new.iter().map(|line| line.len() + 1).sum::<usize>()).sum();
    let bytes = text.as_str().len().saturating_add(new_bytes) as u64;
    *work = work.saturating_add((hunks.len() as u64).saturating_mul(bytes));
    if *work > limit {
        return Err(Error::WorkLimit { path: path.to_owned(), hunks: hunks.len(), bytes, work: *work, limit });
    }
    Ok(())
}

/// The new content of one file, ready to commit.
#[derive(Debug, Clone)]
pub(crate) struct FileWrite {
    /// Canonical path.
    pub(crate) path: String,
    /// SHA-256 of the file on disk when planned; `None` when it did not exist.
    pub(crate) sha256_before: Option<Sha256>,
    /// The new content; `None` to delete the file.
    pub(crate) after: Option<Arc<Version>>,
    /// SHA-256 of the new bytes.
    pub(crate) sha256_after: Option<Sha256>,
    /// What was on disk when planned (through a link the path names); `None` when nothing
    /// was there.
    pub(crate) before: Option<Arc<Version>>,
    /// For a new path holding a moved file: the canonical path it came from, whose permission
    /// bits the new file takes.
    pub(crate) permissions_from: Option<String>,
    /// The line windows outside which the new text is the old one, when one update alone
    /// made it (see [`Plan::windows`]).
    pub(crate) windows: Option<Vec<editkit_matcher::diff::Window>>,
}

impl FileWrite {
    /// The new bytes; `None` to delete the file.
    pub(crate) fn bytes(&self) -> Option<&[u8]> {
        self.after.as_deref().map(Version::bytes)
    }

    /// The bytes on disk when planned.
    pub(crate) fn before(&self) -> Option<&[u8]> {
        self.before.as_deref().map(Version::bytes)
    }
}

/// A checked patch: every new content computed, every file locked. Nothing is written until
/// [`crate::commit`]; dropping the plan releases the locks and changes nothing.
#[derive(Debug)]
pub struct Plan<'ws> {
    pub(crate) locks: Vec<FileLock<'ws>>,
    pub(crate) writes: Vec<FileWrite>,
    pub(crate) preview: Applied,
}

impl Plan<'_> {
    /// What the commit will do (with `dry_run` set): files, hashes and the combined diff.
    #[must_use]
    pub fn preview(&self) -> &Applied {
        &self.preview
    }

    /// Consumes the plan (releasing its locks) and returns the dry-run result.
    #[must_use]
    pub fn into_preview(self) -> Applied {
        self.preview
    }

    /// Canonical paths the commit will write or delete, in commit order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.writes.iter().map(|w| w.path.as_str())
    }

    /// Each path the commit will write or delete, with the bytes it held when planned (`None`
    /// when nothing was there), in commit order: what an undo needs to put back. A deleted
    /// or moved symlink is named by the link's own path and carries its target's bytes.
    pub fn previous(&self) -> impl Iterator<Item = (&str, Option<&[u8]>)> {
        self.writes.iter().map(|w| (w.path.as_str(), w.before()))
    }

    /// Each path the commit will write or delete, in commit order, with what it held when
    /// planned and what the commit writes there (`None`: nothing, or deleted), shared rather
    /// than copied: for work done beside the commit, such as checking the new contents while
    /// they are written.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_patch::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// let patch = editkit_patch::parse("*** Begin Patch\n*** Update File: a.txt\n-one\n+two\n*** End Patch\n")?;
    /// let plan = editkit_patch::plan(&workspace, &patch, &Default::default())?;
    /// let (path, before, after) = plan.contents().next().unwrap();
    /// assert_eq!((path, before.unwrap().bytes(), after.unwrap().bytes()), ("a.txt", &b"one\n"[..], &b"two\n"[..]));
    /// # Ok(()) }
    /// ```
    pub fn contents(&self) -> impl Iterator<Item = (&str, Option<Shared>, Option<Shared>)> {
        self.writes.iter().map(|w| (w.path.as_str(), w.before.clone().map(Shared), w.after.clone().map(Shared)))
    }

    /// The line windows of `path` (old lines and new lines, 0-based, in order) outside which
    /// the text the commit writes there is line for line the text its update read, when one
    /// update alone changed it and each of its hunks replaced whole lines: where a check of
    /// the new text finds the change without diffing the whole file. A hint, not a promise
    /// (the update read the file as text): a user checks that the lines outside agree.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_patch::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "one\ntwo\nthree\nfour\n").unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// let patch = editkit_patch::parse("--- a/a.txt\n+++ b/a.txt\n@@ -2,2 +2,3 @@\n two\n+2.5\n three\n")?;
    /// let plan = editkit_patch::plan(&workspace, &patch, &Default::default())?;
    /// assert_eq!(plan.windows("a.txt"), Some(&[(1..3, 1..4)][..]));
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn windows(&self, path: &str) -> Option<&[editkit_matcher::diff::Window]> {
        self.writes.iter().find(|w| w.path == path)?.windows.as_deref()
    }
}

/// One content of a planned file, shared with the plan (a clone costs no copy of the bytes).
#[derive(Debug, Clone)]
pub struct Shared(Arc<Version>);

impl Shared {
    /// The bytes, as they are (or are to be) on disk.
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        self.0.bytes()
    }

    /// Their SHA-256 (computed once, on first use).
    #[must_use]
    pub fn sha256(&self) -> Sha256 {
        self.0.sha256()
    }

    /// The text they are, when they are editable text, as the plan holds it (a clone costs no
    /// copy). Its bytes are these bytes; whether decoding these bytes gives it back is
    /// [`Text::decodes_to_itself`].
    #[must_use]
    pub fn text(&self) -> Option<&Arc<Text>> {
        match &self.0.content {
            Content::Text(text) => Some(text),
            Content::Raw(..) => None,
        }
    }
}

/// A file as the simulation sees it.
#[derive(Debug, Clone)]
enum Content {
    Text(Arc<Text>),
    /// Bytes that are not editable text (UTF-16, binary, invalid UTF-8): may be deleted or moved.
    Raw(Vec<u8>, DecodeError),
}

impl Content {
    fn diff_text(&self) -> Option<&str> {
        match self {
            Content::Text(text) => Some(text.as_str()),
            Content::Raw(..) => None,
        }
    }
}

/// One content a file has or will have, with its SHA-256 computed once, when first asked for
/// (a read's hash is known; a new content's is computed with its diff, on a few threads).
#[derive(Debug)]
pub(crate) struct Version {
    content: Content,
    sha256: std::sync::OnceLock<Sha256>,
    /// The bytes of a text that are not the text's own (a BOM, CRLF endings), once encoded.
    encoded: std::sync::OnceLock<Vec<u8>>,
}

impl Version {
    fn new(content: Content) -> Arc<Self> {
        Arc::new(Version { content, sha256: std::sync::OnceLock::new(), encoded: std::sync::OnceLock::new() })
    }

    fn hashed(content: Content, sha256: Sha256) -> Arc<Self> {
        Arc::new(Version { content, sha256: std::sync::OnceLock::from(sha256), encoded: std::sync::OnceLock::new() })
    }

    fn sha256(&self) -> Sha256 {
        *self.sha256.get_or_init(|| Sha256::of(self.bytes()))
    }

    /// The bytes on disk: the text's own when it is them (no BOM, LF only), else encoded once.
    fn bytes(&self) -> &[u8] {
        match &self.content {
            Content::Text(text) => match text.verbatim() {
                Some(bytes) => bytes,
                None => self.encoded.get_or_init(|| text.encoded().into_owned()),
            },
            Content::Raw(bytes, _) => bytes,
        }
    }
}

/// A file's unified diff for the report, computed once the whole plan has succeeded.
struct DiffJob {
    /// The old side: path and content (`None`: `/dev/null`).
    old: Option<(String, Arc<Version>)>,
    /// The new side: path and text (`None`: `/dev/null`).
    new: Option<(String, NewSide)>,
    /// The line windows the hunks changed, when known: only they are diffed.
    windows: Option<Vec<editkit_matcher::diff::Window>>,
    /// The diff, when it was made with the new content (see [`place_ahead`]); `run` is then
    /// not called.
    done: Option<String>,
}

/// The new side of a diff.
enum NewSide {
    /// A content of the plan (its hash is taken beside the diff).
    Version(Arc<Version>),
    /// An added file's text as the patch gave it.
    Added(String),
}

impl DiffJob {
    /// The diff, hashing the new content too (so that the hashes are taken on a few threads).
    fn run(&self) -> String {
        let mut out = String::new();
        let old = self.old.as_ref().map(|(path, version)| (path, version.content.diff_text()));
        let new = self.new.as_ref().map(|(path, side)| match side {
            NewSide::Version(version) => {
                version.sha256();
                (path, version.content.diff_text().unwrap_or(""))
            }
            NewSide::Added(text) => (path, text.as_str()),
        });
        push_diff(&mut out, old, new, self.windows.as_deref());
        out
    }
}

/// Fewest files worth a reading (or hashing and diffing) thread of their own.
const FILES_PER_THREAD: usize = 16;

/// What is on disk at a canonical path when planning.
#[derive(Debug)]
struct Disk {
    content: Option<Arc<Version>>,
    sha256: Option<Sha256>,
    problem: Option<editkit_vfs::Error>,
}

/// Plans `patch` on `workspace`: resolves every path, takes every file's lock (in one fixed
/// order), checks staleness, places every hunk and computes every new content. Writes nothing.
///
/// ```
/// # fn main() -> Result<(), editkit_patch::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
/// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
/// let patch = editkit_patch::parse("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n")?;
/// let plan = editkit_patch::plan(&workspace, &patch, &Default::default())?;
/// assert_eq!(plan.preview().updated, ["a.txt"]);
/// assert!(plan.preview().diff.contains("+2"));
/// # Ok(()) }
/// ```
///
/// # Errors
/// [`Error::Plan`] listing every failing file and hunk (path refused, missing or existing
/// file, stale file, UTF-16 or binary target, hunk not found or ambiguous...);
/// [`Error::Vfs`] when a lock cannot be taken.
pub fn plan<'ws>(workspace: &'ws Workspace, patch: &Patch, options: &ApplyOptions) -> Result<Plan<'ws>> {
    check_file_count(patch)?;
    let mut failures = Vec::new();
    let (resolved, read_through) = resolve_paths(workspace, patch, &mut failures);
    let all_paths: Vec<&str> = resolved
        .iter()
        .flatten()
        .flat_map(|(source, destination)| std::iter::once(source.as_str()).chain(destination.as_deref()))
        .collect();
    // Keyed by entry, as recovery keys them: a deleted link keeps its key once it is gone. A
    // dry run writes nothing, so it takes no lock (and creates no lock file).
    let locks = if options.dry_run {
        Vec::new()
    } else {
        let canonical: Vec<editkit_vfs::CanonicalPath> =
            all_paths.iter().map(|path| workspace.canonical_recorded(path)).collect::<Result<_, _>>()?;
        workspace.txn().lock_entries(&canonical)?
    };
    let disk = read_all(workspace, &all_paths, &read_through, options);
    let files = Files { workspace, patch, options, resolved: &resolved, read_through: &read_through, disk: &disk };
    let (merging, mut chained) = files.check_staleness(&mut failures);
    // Simulate the operations in order over the files as they would become.
    let mut simulation = Simulation::new(patch, place_ahead(patch, &resolved, &disk, options));
    for (index, (operation, paths)) in patch.operations().iter().zip(&resolved).enumerate() {
        let Some((source, destination)) = paths else { continue };
        let step = Step { index, operation, source, destination: destination.as_ref() };
        simulation.apply(&files, &step, &merging, &mut chained, &mut failures)?;
    }
    files.check_outcome(&simulation, &mut failures);
    if !failures.is_empty() {
        return Err(Error::Plan { failures });
    }
    let (preview, writes) = simulation.finish(&disk);
    Ok(Plan { locks, writes, preview })
}

/// A failure of a whole file (no hunk), at the patch line `patch_line`.
fn file_failure(path: &str, patch_line: usize, cause: Cause) -> Failure {
    Failure { path: path.to_owned(), hunk: None, patch_line, preview: String::new(), cause }
}

/// Each file is locked, with a descriptor or two held, until the commit: bounded first.
fn check_file_count(patch: &Patch) -> Result<()> {
    let files = patch
        .operations()
        .iter()
        .map(|operation| 1 + usize::from(matches!(operation, Operation::Update { move_to: Some(_), .. })))
        .sum::<usize>();
    if files > MAX_PATCH_FILES {
        return Err(Error::TooManyFiles { files, limit: MAX_PATCH_FILES });
    }
    Ok(())
}

/// Each operation's paths (source, destination of a move) resolved, `None` for an operation
/// whose paths were refused (its failure pushed), and the symlinks a deletion or move names:
/// the link's canonical path → where its content lives.
type Resolved = (Vec<Option<(String, Option<String>)>>, HashMap<String, String>);

/// Resolves every path the operations name, by a few threads when there are many.
fn resolve_paths(workspace: &Workspace, patch: &Patch, failures: &mut Vec<Failure>) -> Resolved {
    let mut resolved: Vec<Option<(String, Option<String>)>> = Vec::with_capacity(patch.operations().len());
    let mut read_through: HashMap<String, String> = HashMap::new();
    let found = crate::par::map(patch.operations(), FILES_PER_THREAD, crate::par::compute_threads(), |operation| {
        // A deletion or a move removes the directory entry the patch names: a symlink is
        // removed itself, never the file it points to (whose content is still what the
        // operation checks and carries).
        let unlinks = matches!(operation, Operation::Delete { .. } | Operation::Update { move_to: Some(_), .. });
        let source = if unlinks {
            workspace.resolve_entry(operation.path()).and_then(|entry| {
                let followed = workspace.resolve(operation.path())?;
                Ok((entry, Some(followed)))
            })
        } else {
            workspace.resolve(operation.path()).map(|followed| (followed, None))
        };
        let destination = match operation {
            Operation::Update { move_to: Some(to), .. } => Some(workspace.resolve(to).map_err(|e| (to.clone(), e))),
            _ => None,
        };
        (source, destination.transpose())
    });
    for (operation, (source, destination)) in patch.operations().iter().zip(found) {
        match (source, destination) {
            (Ok((source, followed)), Ok(destination)) => {
                if let Some(followed) = followed.filter(|followed| *followed != source) {
                    read_through.insert(source.clone(), followed);
                }
                resolved.push(Some((source, destination)));
            }
            (Err(err), _) => {
                failures.push(file_failure(operation.path(), operation.line(), Cause::Vfs(err)));
                resolved.push(None);
            }
            (_, Err((to, err))) => {
                failures.push(file_failure(&to, operation.line(), Cause::Vfs(err)));
                resolved.push(None);
            }
        }
    }
    (resolved, read_through)
}

/// What is on disk now (read without arming the staleness guard): each file once, read and
/// hashed by a few threads when there are many.
fn read_all(
    workspace: &Workspace,
    all_paths: &[&str],
    read_through: &HashMap<String, String>,
    options: &ApplyOptions,
) -> HashMap<String, Disk> {
    let mut unique: Vec<&str> = Vec::with_capacity(all_paths.len());
    let mut seen: HashSet<&str> = HashSet::with_capacity(all_paths.len());
    for path in all_paths {
        if seen.insert(*path) {
            unique.push(*path);
        }
    }
    let read = crate::par::map(&unique, FILES_PER_THREAD, crate::par::compute_threads(), |path| {
        read_disk(workspace, read_through.get(*path).map_or(*path, String::as_str), options.encoding)
    });
    unique.iter().map(|path| (*path).to_owned()).zip(read).collect()
}

/// Stale files whose hunks are planned on the version read (`options.bases`) and merged: the
/// hash expected and the base.
type Merging = HashMap<String, (Sha256, Arc<Text>)>;

/// Stale files several updates name, merged as one change: the operations' indices, the merged
/// text, each operation's hunk reports, the outside change (for the first).
type Chains = HashMap<String, ChainedFile>;

/// What planning reads and never changes: the patch, its resolved paths and the files found.
struct Files<'a, 'ws> {
    workspace: &'ws Workspace,
    patch: &'a Patch,
    options: &'a ApplyOptions,
    resolved: &'a [Option<(String, Option<String>)>],
    read_through: &'a HashMap<String, String>,
    disk: &'a HashMap<String, Disk>,
}

/// The operation being simulated, with its resolved paths.
struct Step<'a> {
    index: usize,
    operation: &'a Operation,
    source: &'a String,
    destination: Option<&'a String>,
}

impl Step<'_> {
    fn failure(&self, cause: Cause) -> Failure {
        file_failure(self.operation.path(), self.operation.line(), cause)
    }
}

impl Files<'_, '_> {
    /// The text of `path` on disk, when it is text.
    fn text_on_disk(&self, path: &str) -> Option<&Text> {
        self.disk.get(path).and_then(|d| d.content.as_deref()).and_then(|v| match &v.content {
            Content::Text(text) => Some(text.as_ref()),
            Content::Raw(..) => None,
        })
    }

    /// Staleness, once per existing file an operation reads: a stale file is refused, or, when
    /// its hunks were planned on a base the caller gives, merged with the change (alone, or
    /// chained with the other updates naming it).
    fn check_staleness(&self, failures: &mut Vec<Failure>) -> (Merging, Chains) {
        let (options, disk) = (self.options, self.disk);
        // How many operations name each path: a file merged with an outside change is named once.
        let mut named: HashMap<&str, usize> = HashMap::new();
        for (source, destination) in self.resolved.iter().flatten() {
            for path in std::iter::once(source).chain(destination) {
                *named.entry(path.as_str()).or_default() += 1;
            }
        }
        let mut merging = Merging::new();
        let mut chained = Chains::new();
        let mut checked: HashSet<&str> = HashSet::new();
        for (operation, paths) in self.patch.operations().iter().zip(self.resolved) {
            let Some((source, _)) = paths else { continue };
            if matches!(operation, Operation::Add { .. }) || !checked.insert(source.as_str()) {
                continue;
            }
            let Some(current) = disk.get(source.as_str()).and_then(|d| d.sha256) else { continue };
            let given = options.expected_hashes.get(operation.path()).or_else(|| options.expected_hashes.get(source));
            let expected = self.workspace.expected_hash(source, given.copied(), options.force);
            let Some(expected) = expected.filter(|expected| *expected != current) else { continue };
            let is_text = disk
                .get(source.as_str())
                .and_then(|d| d.content.as_deref())
                .is_some_and(|v| matches!(v.content, Content::Text(_)));
            let stale = editkit_vfs::Error::Stale {
                path: operation.path().to_owned(),
                expected: Some(expected),
                current: Some(current),
            };
            // An update (or a move, which takes the file's content along) merged with the change.
            if given.is_none()
                && is_text
                && matches!(operation, Operation::Update { move_to, hunks, .. } if !hunks.is_empty() || move_to.is_some())
                && let Some((sha256, base)) = options.bases.get(source)
                && *sha256 == expected
            {
                match named.get(source.as_str()).copied().unwrap_or(0) {
                    1 => {
                        merging.insert(source.clone(), (expected, Arc::clone(base)));
                    }
                    operations => {
                        let stale = Stale { operation, source, base, error: stale, operations };
                        if let Some(failure) = self.chain(stale, &mut chained) {
                            failures.push(failure);
                        }
                    }
                }
                continue;
            }
            failures.push(file_failure(operation.path(), operation.line(), Cause::Vfs(stale)));
        }
        (merging, chained)
    }

    /// A stale file `operations` operations name: when they are all updates in place, their
    /// hunks chained on the base and carried over as one change (into `chained`); else, or
    /// when they cannot be merged, the failure.
    fn chain(&self, stale: Stale<'_>, chained: &mut Chains) -> Option<Failure> {
        let Stale { operation, source, base, error, operations } = stale;
        let now = self.text_on_disk(source);
        let naming: Vec<(usize, &[crate::parse::Hunk])> = self
            .patch
            .operations()
            .iter()
            .zip(self.resolved)
            .enumerate()
            .filter(|(_, (_, paths))| {
                paths.as_ref().is_some_and(|(from, to)| from == source || to.as_ref() == Some(source))
            })
            .map(|(index, (operation, paths))| match (operation, paths) {
                (Operation::Update { move_to: None, hunks, .. }, Some((_, None))) if !hunks.is_empty() => {
                    Some((index, hunks.as_slice()))
                }
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .unwrap_or_default();
        if let Some(now) = now
            && naming.len() == operations
        {
            let chain: Vec<&[crate::parse::Hunk]> = naming.iter().map(|(_, hunks)| *hunks).collect();
            let outside = crate::outside::OutsideChange::between(source, base.as_str(), now.as_str());
            return match crate::merge::merge_chain(base, now, &chain, self.options.strict) {
                Ok((merged, reports)) => {
                    let indices = naming.iter().map(|(index, _)| *index).collect();
                    chained.insert(source.clone(), (indices, (merged, reports), Some(outside)));
                    None
                }
                Err(edit_lines) => Some(file_failure(
                    operation.path(),
                    operation.line(),
                    Cause::ChangedOutside { source: Box::new(error), edit_lines, outside: Box::new(outside) },
                )),
            };
        }
        let now = now.map(Text::as_str);
        Some(file_failure(
            operation.path(),
            operation.line(),
            Cause::NamedTwice {
                source: Box::new(error),
                operations,
                outside: Box::new(crate::outside::OutsideChange::between(
                    source,
                    base.as_str(),
                    now.unwrap_or_default(),
                )),
            },
        ))
    }

    /// What is refused once every operation is simulated: a read-only file changed or
    /// removed, a file written where another written file needs a folder, a file written
    /// larger than the workspace reads.
    fn check_outcome(&self, simulation: &Simulation, failures: &mut Vec<Failure>) {
        let state = &simulation.state;
        // A read-only file (its owner took away its write bit) is neither changed nor removed,
        // whoever runs the patch; moved whole, it keeps its content and mode, as `mv` does. A
        // link the patch removes leaves the file it points to as it is.
        for path in &simulation.order {
            let Some(before) = self.disk.get(path).and_then(|d| d.sha256) else { continue };
            let unchanged = |version: Option<&Arc<Version>>| version.is_some_and(|version| version.sha256() == before);
            let kept = match state.get(path).and_then(Option::as_ref) {
                Some(version) => unchanged(Some(version)),
                None => {
                    self.read_through.contains_key(path)
                        || simulation
                            .origin
                            .iter()
                            .any(|(to, from)| from == path && unchanged(state.get(to).and_then(Option::as_ref)))
                }
            };
            if let (false, Err(err)) = (kept, self.workspace.check_writable(path)) {
                failures.push(file_failure(path, 0, Cause::Vfs(err)));
            }
        }
        // A file the patch writes cannot also be a folder of another file it writes.
        let written: HashSet<&str> =
            state.iter().filter(|(_, content)| content.is_some()).map(|(path, _)| path.as_str()).collect();
        let mut in_order: Vec<&str> = written.iter().copied().collect();
        in_order.sort_unstable();
        for path in &in_order {
            let mut parent = *path;
            while let Some((above, _)) = parent.rsplit_once('/') {
                if written.contains(above) {
                    let cause = Cause::Vfs(editkit_vfs::Error::NotADirectory { path: above.to_owned() });
                    failures.push(file_failure(path, 0, cause));
                    break;
                }
                parent = above;
            }
        }
        // No file is written larger than the workspace reads: it would be one no tool could
        // read back (the new texts are bounded already, by the files read and the patch's own
        // size).
        let limit = self.workspace.max_read_bytes();
        for path in &in_order {
            if let Some(Some(version)) = state.get(*path)
                && let size = version.bytes().len() as u64
                && size > limit
            {
                let cause = Cause::Vfs(editkit_vfs::Error::TooLarge { path: (*path).to_owned(), size, limit });
                failures.push(file_failure(path, 0, cause));
            }
        }
    }
}

/// A stale file several operations name, as [`Files::chain`] takes it.
struct Stale<'a> {
    operation: &'a Operation,
    source: &'a String,
    base: &'a Arc<Text>,
    error: editkit_vfs::Error,
    operations: usize,
}

/// The operations simulated in order over the files as they would become.
struct Simulation {
    /// Each file's content as it would become (each content is hashed once).
    state: HashMap<String, Option<Arc<Version>>>,
    /// The report's diffs, in operation order.
    diffs: Vec<DiffJob>,
    /// The reports whose new hash the diffs give.
    new_hashes: Vec<(usize, Arc<Version>)>,
    /// Where a moved file's content came from on disk (for its permission bits).
    origin: HashMap<String, String>,
    /// Every path in the order operations first name it.
    order: Vec<String>,
    preview: Applied,
    /// Updates placed ahead on a few threads ([`place_ahead`]), by operation.
    ahead: HashMap<usize, std::result::Result<Placed, Vec<crate::locate::HunkFailure>>>,
    /// The matching work charged so far.
    work: u64,
}

impl Simulation {
    fn new(
        patch: &Patch,
        ahead: HashMap<usize, std::result::Result<Placed, Vec<crate::locate::HunkFailure>>>,
    ) -> Simulation {
        Simulation {
            state: HashMap::new(),
            diffs: Vec::new(),
            new_hashes: Vec::new(),
            origin: HashMap::new(),
            order: Vec::new(),
            preview: Applied {
                dry_run: true,
                dialect: patch.dialect(),
                added: Vec::new(),
                updated: Vec::new(),
                deleted: Vec::new(),
                moved: Vec::new(),
                files: Vec::new(),
                diff: String::new(),
                recovered: None,
            },
            ahead,
            work: 0,
        }
    }

    /// Simulates one operation; a refusal goes to `failures`.
    ///
    /// # Errors
    /// `Error::TooMuchWork` when placing its hunks would pass the work budget.
    fn apply(
        &mut self,
        files: &Files<'_, '_>,
        step: &Step<'_>,
        merging: &Merging,
        chained: &mut Chains,
        failures: &mut Vec<Failure>,
    ) -> Result<()> {
        for path in std::iter::once(step.source).chain(step.destination) {
            if !self.state.contains_key(path) {
                let content = files.disk.get(path).and_then(|d| d.content.clone());
                self.state.insert(path.clone(), content);
                self.order.push(path.clone());
            }
        }
        let source = step.source;
        let problem = files.disk.get(source.as_str()).and_then(|d| d.problem.as_ref());
        let current = self.state.get(source).cloned().flatten();
        let missing =
            |op| match disk_problem(files.workspace, files.read_through.get(source).unwrap_or(source), problem) {
                Some(err) => Cause::Vfs(err),
                None => Cause::Missing { op },
            };
        match step.operation {
            Operation::Add { content, .. } => {
                if current.is_some() || problem.is_some() {
                    failures.push(step.failure(Cause::AddTargetExists));
                } else {
                    self.add(source, content);
                }
            }
            Operation::Delete { content: expected, .. } => match current {
                None => failures.push(step.failure(missing("delete"))),
                Some(current) => {
                    if let (Some(expected), Some(actual)) = (expected, current.content.diff_text())
                        && let Some(line) = first_difference(expected, actual)
                    {
                        failures.push(step.failure(Cause::DeleteMismatch { line }));
                    } else {
                        self.delete(source, current);
                    }
                }
            },
            Operation::Update { hunks, .. } => match current {
                None => failures.push(step.failure(missing("update"))),
                Some(current) => {
                    let update = Update { step, hunks, current };
                    if let Err(failure) = self.update(files, &update, merging, chained)? {
                        failures.extend(failure);
                    }
                }
            },
        }
        Ok(())
    }

    fn add(&mut self, source: &str, content: &str) {
        let added = Version::new(Content::Text(Arc::new(Text::new(content, LineEnding::Lf, false))));
        self.diffs.push(DiffJob {
            old: None,
            new: Some((source.to_owned(), NewSide::Added(content.to_owned()))),
            windows: None,
            done: None,
        });
        self.preview.added.push(source.to_owned());
        self.new_hashes.push((self.preview.files.len(), Arc::clone(&added)));
        self.preview.files.push(FileReport {
            action: Action::Added,
            path: source.to_owned(),
            moved_from: None,
            sha256_before: None,
            sha256_after: None,
            hunks: Vec::new(),
            merged_with: None,
        });
        self.state.insert(source.to_owned(), Some(added));
    }

    fn delete(&mut self, source: &str, current: Arc<Version>) {
        let sha256_before = Some(current.sha256());
        self.diffs.push(DiffJob { old: Some((source.to_owned(), current)), new: None, windows: None, done: None });
        self.preview.deleted.push(source.to_owned());
        self.preview.files.push(FileReport {
            action: Action::Deleted,
            path: source.to_owned(),
            moved_from: None,
            sha256_before,
            sha256_after: None,
            hunks: Vec::new(),
            merged_with: None,
        });
        self.state.insert(source.to_owned(), None);
    }

    /// Simulates an update (a move too) of a file that exists: `Ok(Err(failures))` when it is
    /// refused.
    fn update(
        &mut self,
        files: &Files<'_, '_>,
        update: &Update<'_>,
        merging: &Merging,
        chained: &mut Chains,
    ) -> Result<std::result::Result<(), Vec<Failure>>> {
        let Update { step, current, .. } = update;
        let source = step.source;
        let target = step.destination.cloned().unwrap_or_else(|| source.clone());
        if target != *source && self.state.get(&target).is_some_and(Option::is_some) {
            let to = match step.operation {
                Operation::Update { move_to: Some(to), .. } => to.clone(),
                _ => target.clone(),
            };
            return Ok(Err(vec![step.failure(Cause::MoveTargetExists { to })]));
        }
        if target != *source
            && self.state.get(&target).is_some_and(Option::is_none)
            && let Some(err) =
                disk_problem(files.workspace, &target, files.disk.get(&target).and_then(|d| d.problem.as_ref()))
        {
            // A folder, a device or a file too large to read stands at the destination.
            return Ok(Err(vec![step.failure(Cause::Vfs(err))]));
        }
        let (Placed { version: updated, reports, windows, diff }, merged_with) =
            match self.place(files, update, merging, chained)? {
                Ok(placed) => placed,
                Err(failures) => return Ok(Err(failures)),
            };
        // A new text its file's encoding cannot hold is refused; one it holds is encoded once.
        if let Content::Text(text) = &updated.content
            && !text.encoding().is_utf8()
        {
            match text.try_encoded() {
                Ok(bytes) => {
                    let _ = updated.encoded.set(bytes.into_owned());
                }
                Err(err) => {
                    let cause = Cause::Vfs(editkit_vfs::Error::from_unencodable(step.operation.path(), err));
                    return Ok(Err(vec![step.failure(cause)]));
                }
            }
        }
        let moved = target != *source;
        self.diffs.push(DiffJob {
            old: Some((source.clone(), Arc::clone(current))),
            new: Some((target.clone(), NewSide::Version(Arc::clone(&updated)))),
            windows,
            done: diff,
        });
        if moved {
            self.preview.moved.push(Moved { from: source.clone(), to: target.clone() });
        } else {
            self.preview.updated.push(source.clone());
        }
        self.new_hashes.push((self.preview.files.len(), Arc::clone(&updated)));
        self.preview.files.push(FileReport {
            action: if moved { Action::Moved } else { Action::Updated },
            path: target.clone(),
            moved_from: moved.then(|| source.clone()),
            sha256_before: Some(current.sha256()),
            sha256_after: None,
            hunks: reports,
            merged_with,
        });
        if moved {
            self.state.insert(source.clone(), None);
            let first = self.origin.remove(source).unwrap_or_else(|| source.clone());
            self.origin.insert(target.clone(), first);
        }
        self.state.insert(target, Some(updated));
        Ok(Ok(()))
    }

    /// An update's hunks placed on the file's current content: through a chain of updates
    /// merged with an outside change, merged alone with one, placed ahead, or placed now. Gives
    /// the placement and the outside change it was merged with.
    fn place(
        &mut self,
        files: &Files<'_, '_>,
        update: &Update<'_>,
        merging: &Merging,
        chained: &mut Chains,
    ) -> Result<Placement> {
        let Update { step, hunks, current } = update;
        let (source, index, options) = (step.source, step.index, files.options);
        let text = match (&current.content, hunks.is_empty()) {
            // A move without hunks keeps the content, and its hash.
            (content, true) => {
                let merged_with = match (merging.get(source), content) {
                    (Some((_, base)), Content::Text(text)) => {
                        Some(crate::outside::OutsideChange::between(source, base.as_str(), text.as_str()))
                    }
                    _ => None,
                };
                let placed = Placed { version: Arc::clone(current), reports: Vec::new(), windows: None, diff: None };
                return Ok(Ok((placed, merged_with)));
            }
            (Content::Raw(_, err), false) => {
                let cause = Cause::Vfs(editkit_vfs::Error::from_decode(step.operation.path(), *err));
                return Ok(Err(vec![step.failure(cause)]));
            }
            (Content::Text(text), false) => text,
        };
        charge_work(&mut self.work, step.operation.path(), text, hunks, options.max_work)?;
        let in_chain = chained.get_mut(source).and_then(|(indices, (merged, reports), outside)| {
            let at = indices.iter().position(|at| *at == index)?;
            // The first operation writes the merged text; the others keep it.
            let version =
                if at == 0 { Version::new(Content::Text(Arc::new(merged.clone()))) } else { Arc::clone(current) };
            Some((version, std::mem::take(&mut reports[at]), outside.take()))
        });
        if let Some((version, reports, outside)) = in_chain {
            self.ahead.remove(&index);
            return Ok(Ok((Placed { version, reports, windows: None, diff: None }, outside)));
        }
        if let Some((expected, base)) = merging.get(source) {
            self.ahead.remove(&index);
            let stale = editkit_vfs::Error::Stale {
                path: step.operation.path().to_owned(),
                expected: Some(*expected),
                current: Some(current.sha256()),
            };
            let outside = crate::outside::OutsideChange::between(source, base.as_str(), text.as_str());
            return Ok(match crate::merge::merge(base, text, hunks, options.strict) {
                Ok((text, reports)) => {
                    let version = Version::new(Content::Text(Arc::new(text)));
                    Ok((Placed { version, reports, windows: None, diff: None }, Some(outside)))
                }
                Err(edit_lines) => Err(vec![step.failure(Cause::ChangedOutside {
                    source: Box::new(stale),
                    edit_lines,
                    outside: Box::new(outside),
                })]),
            });
        }
        let placed = self.ahead.remove(&index).unwrap_or_else(|| {
            apply_hunks(text, hunks, options.strict).map(|(text, reports, windows)| Placed {
                version: Version::new(Content::Text(Arc::new(text))),
                reports,
                windows,
                diff: None,
            })
        });
        Ok(match placed {
            Ok(placed) => Ok((placed, None)),
            Err(hunk_failures) => Err(hunk_failures
                .into_iter()
                .map(|(idx, cause)| {
                    let hunk = hunks.get(idx);
                    Failure {
                        path: step.operation.path().to_owned(),
                        hunk: Some(idx + 1),
                        patch_line: hunk.map_or(step.operation.line(), |h| h.line),
                        preview: hunk.map(crate::parse::Hunk::preview).unwrap_or_default(),
                        cause,
                    }
                })
                .collect()),
        })
    }

    /// The report (its diffs, and the new contents' hashes with them, made on a few threads)
    /// and the writes: every file whose content changes, in the order operations named them.
    fn finish(mut self, disk: &HashMap<String, Disk>) -> (Applied, Vec<FileWrite>) {
        let mut preview = self.preview;
        // The windows of each file one update alone wrote.
        let mut windows: HashMap<String, Option<Vec<editkit_matcher::diff::Window>>> = HashMap::new();
        for job in &self.diffs {
            if let Some((target, NewSide::Version(_))) = &job.new {
                windows.entry(target.clone()).and_modify(|twice| *twice = None).or_insert_with(|| job.windows.clone());
            }
        }
        let todo: Vec<&DiffJob> = self.diffs.iter().filter(|job| job.done.is_none()).collect();
        let mut made =
            crate::par::map(&todo, FILES_PER_THREAD, crate::par::compute_threads(), |job| job.run()).into_iter();
        for job in self.diffs {
            match job.done {
                Some(done) => preview.diff.push_str(&done),
                None => preview.diff.push_str(&made.next().unwrap_or_default()),
            }
        }
        for (index, version) in self.new_hashes {
            if let Some(file) = preview.files.get_mut(index) {
                file.sha256_after = Some(version.sha256());
            }
        }
        let mut writes = Vec::new();
        for path in self.order {
            let before = disk.get(&path);
            let after = self.state.remove(&path).flatten();
            let sha256_before = before.and_then(|d| d.sha256);
            let unchanged = match (&after, sha256_before) {
                (None, None) => true,
                (Some(after), Some(sha256_before)) => after.sha256() == sha256_before,
                _ => false,
            };
            let sha256_after = after.as_ref().map(|version| version.sha256());
            if !unchanged {
                let permissions_from = match (&sha256_before, &after) {
                    (None, Some(_)) => self
                        .origin
                        .get(&path)
                        .filter(|from| disk.get(*from).is_some_and(|d| d.sha256.is_some()))
                        .cloned(),
                    _ => None,
                };
                let before = before.and_then(|d| d.content.clone());
                let windows = windows.remove(&path).flatten();
                writes.push(FileWrite { path, sha256_before, after, sha256_after, before, permissions_from, windows });
            }
        }
        (preview, writes)
    }
}

/// An update placed, with the outside change it was merged with, or why it is refused.
type Placement = std::result::Result<(Placed, Option<crate::outside::OutsideChange>), Vec<Failure>>;

/// An update of a file that exists, as [`Simulation::update`] takes it.
struct Update<'a> {
    step: &'a Step<'a>,
    hunks: &'a [crate::parse::Hunk],
    current: Arc<Version>,
}

/// An update's hunks placed: the new content, each hunk's report, the line windows changed
/// and, when it was made with them, the report's diff.
struct Placed {
    version: Arc<Version>,
    reports: Vec<crate::locate::HunkReport>,
    windows: Option<Vec<editkit_matcher::diff::Window>>,
    diff: Option<String>,
}

/// The hunks of every update no other operation touches (its file's content is then what is
/// on disk, whatever the order), placed on a few threads before the operations are simulated
/// in order; keyed by operation. The same thread hashes the new content and makes the
/// report's diff while both texts are in its cache: nothing else changes that file, so they
/// are final. Only as much as the work budget allows: past it the simulation refuses at the
/// operation that crosses it, as it would without this.
fn place_ahead(
    patch: &Patch,
    resolved: &[Option<(String, Option<String>)>],
    disk: &HashMap<String, Disk>,
    options: &ApplyOptions,
) -> HashMap<usize, Result<Placed, Vec<crate::locate::HunkFailure>>> {
    let mut touches: HashMap<&str, usize> = HashMap::new();
    for (source, destination) in resolved.iter().flatten() {
        for path in std::iter::once(source).chain(destination) {
            *touches.entry(path.as_str()).or_default() += 1;
        }
    }
    // Charged as the simulation charges, every update in order (a file's content on disk
    // standing for what earlier operations made of it), so nothing past the operation that
    // crosses the budget is placed ahead: the work stays within the budget.
    let mut work = 0u64;
    let mut ahead: Vec<(usize, &String, &Text, &[crate::parse::Hunk])> = Vec::new();
    for (index, (operation, paths)) in patch.operations().iter().zip(resolved).enumerate() {
        let (Operation::Update { hunks, move_to, .. }, Some((source, destination))) = (operation, paths) else {
            continue;
        };
        let Some(Content::Text(text)) = disk.get(source).and_then(|d| d.content.as_deref()).map(|v| &v.content) else {
            continue;
        };
        if hunks.is_empty() {
            continue;
        }
        if charge_work(&mut work, source, text, hunks, options.max_work).is_err() {
            break;
        }
        if move_to.is_none() && destination.is_none() && touches.get(source.as_str()) == Some(&1) {
            ahead.push((index, source, text, hunks));
        }
    }
    crate::par::map(&ahead, FILES_PER_THREAD, crate::par::compute_threads(), |(index, source, text, hunks)| {
        let placed = apply_hunks(text, hunks, options.strict).map(|(new, reports, windows)| {
            let mut diff = String::new();
            push_diff(&mut diff, Some((source, Some(text.as_str()))), Some((source, new.as_str())), windows.as_deref());
            let version = Version::new(Content::Text(Arc::new(new)));
            version.sha256();
            Placed { version, reports, windows, diff: Some(diff) }
        });
        (*index, placed)
    })
    .into_iter()
    .collect()
}

/// The first 1-based line where the content a deletion expects differs from the file
/// (trailing whitespace and a missing final newline forgiven); `None` when they agree.
fn first_difference(expected: &str, actual: &str) -> Option<usize> {
    let mut expected_lines = expected.lines();
    let mut actual_lines = actual.lines();
    let mut line = 0;
    loop {
        line += 1;
        match (expected_lines.next(), actual_lines.next()) {
            (None, None) => return None,
            (Some(a), Some(b)) if a.trim_end() == b.trim_end() => {}
            _ => return Some(line),
        }
    }
}

fn read_disk(workspace: &Workspace, path: &str, encoding: Option<editkit_vfs::Encoding>) -> Disk {
    let encoding = encoding.or(workspace.default_encoding());
    // The common case in one open; anything else is looked at step by step below.
    let canonical = workspace.canonical_recorded(path);
    if let Some(bytes) =
        canonical.as_ref().ok().and_then(|canonical| workspace.txn().read_plain(canonical, workspace.max_read_bytes()))
    {
        return disk_of(bytes, encoding);
    }
    let problem = |err| Disk { content: None, sha256: None, problem: Some(err) };
    match workspace.metadata(path) {
        Err(editkit_vfs::Error::NotFound { .. }) => return Disk { content: None, sha256: None, problem: None },
        Err(err) => return problem(err),
        Ok(Metadata { kind: EntryKind::Dir, .. }) => {
            return problem(editkit_vfs::Error::IsDirectory { path: path.to_owned() });
        }
        Ok(Metadata { kind: EntryKind::File | EntryKind::Symlink, size, .. }) if size > workspace.max_read_bytes() => {
            return problem(editkit_vfs::Error::TooLarge {
                path: path.to_owned(),
                size,
                limit: workspace.max_read_bytes(),
            });
        }
        Ok(Metadata { kind: EntryKind::File | EntryKind::Symlink, .. }) => {}
        Ok(_) => {
            return problem(editkit_vfs::Error::InvalidPath {
                path: path.to_owned(),
                reason: "not a regular file".into(),
            });
        }
    }
    match canonical.and_then(|canonical| workspace.txn().read(&canonical)) {
        Ok(Some(bytes)) => disk_of(bytes, encoding),
        Ok(None) => Disk { content: None, sha256: None, problem: None },
        Err(err) => problem(err),
    }
}

/// A file read: its content, decoded when it is text (in `encoding` when given), and its hash.
fn disk_of(bytes: Vec<u8>, encoding: Option<editkit_vfs::Encoding>) -> Disk {
    let sha256 = Sha256::of(&bytes);
    // Taken over: a UTF-8 file without BOM or CR becomes its text without a copy.
    let decoded = match encoding {
        Some(encoding) => Text::decode_as(&bytes, encoding).map_err(|err| (err, bytes)),
        None => Text::try_decode_owned(bytes),
    };
    let content = match decoded {
        Ok(text) => Content::Text(Arc::new(text)),
        Err((err, bytes)) => Content::Raw(bytes, err),
    };
    Disk { content: Some(Version::hashed(content, sha256)), sha256: Some(sha256), problem: None }
}

/// The disk problem of a path (directory, too large...), rebuilt for a failure.
fn disk_problem(workspace: &Workspace, path: &str, problem: Option<&editkit_vfs::Error>) -> Option<editkit_vfs::Error> {
    problem?;
    // The stored error is not `Clone`; reading it again gives the same answer.
    read_disk(workspace, path, None).problem
}

/// Appends one file's unified diff (`None` side = `/dev/null`; `None` text = not text).
/// With `windows`, the lines outside them are compared rather than diffed (see
/// [`editkit_matcher::diff::unified_windows`]), and the whole texts are diffed only when they
/// differ there.
fn push_diff(
    out: &mut String,
    old: Option<(&String, Option<&str>)>,
    new: Option<(&String, &str)>,
    windows: Option<&[editkit_matcher::diff::Window]>,
) {
    let old_name = old.map_or_else(|| "/dev/null".to_owned(), |(path, _)| format!("a/{path}"));
    let new_name = new.map_or_else(|| "/dev/null".to_owned(), |(path, _)| format!("b/{path}"));
    let Some(old_text) = old.map_or(Some(""), |(_, text)| text) else {
        out.push_str(&format!("Binary files {old_name} and {new_name} differ\n"));
        return;
    };
    let new_text = new.map_or("", |(_, text)| text);
    if old_text == new_text {
        if let (Some((from, _)), Some((to, _))) = (old, new)
            && from != to
        {
            out.push_str(&format!("rename from {from}\nrename to {to}\n"));
        }
        return;
    }
    let windowed = windows.and_then(|windows| {
        editkit_matcher::diff::unified_windows(&old_name, &new_name, old_text, new_text, windows, 3)
    });
    match windowed {
        Some(diff) => out.push_str(&diff),
        None => out.push_str(&editkit_matcher::diff::unified(&old_name, &new_name, old_text, new_text, 3)),
    }
}
