//! What a long-lived process keeps between checks: the last tree of each file, so that the
//! check after an edit reparses only what changed, and one persistent Python compile worker.

use std::ops::Range;
use std::sync::Mutex;

use tree_sitter::Tree;

use crate::parse::Parsed;
use crate::syntax::{self, EmptyBlock, SyntaxReport};
use crate::{Error, FileKind};

/// Files whose trees a [`CheckCache`] keeps by default.
pub const DEFAULT_CACHED_FILES: usize = 16;

/// Bytes of source a [`CheckCache`] keeps by default, summed over its files (each file's tree
/// takes memory of the same order).
pub const DEFAULT_CACHED_BYTES: usize = 64 * 1024 * 1024;

/// What a long-lived process (a server, a call stream) keeps between checks, for
/// [`crate::diagnose_cached`]:
/// - the trees of the files last checked, so that checking a file again after an edit
///   reparses incrementally (tree-sitter's `Tree::edit` and a reparse with the old tree)
///   instead of from scratch. The result is the same as [`crate::check_syntax`]'s, at a cost
///   that follows the size of the change rather than of the file;
/// - one persistent Python interpreter for the default Python check, contained like every
///   external tool and started on first use, so its start-up is paid once. After an edit of a
///   file it last found clean, it compiles only the top-level statements the edit touched
///   (statements compile independently; touched `from __future__` imports, which must come
///   first, are checked with the whole file), so the check follows the size of the change
///   too.
///
/// Entries are found by a key the caller chooses (a file's path), and are used only when the
/// text they were parsed from is known: the edit is worked out by comparing that text with the
/// new one, so any new text is checked correctly, whatever happened to the file in between.
/// Bounded by file count and source bytes (least recently used first out).
///
/// ```
/// use editkit_analyze::{check_syntax, FileKind, CheckCache};
/// let cache = CheckCache::default();
/// let before = "def f():\n    return 1\n";
/// let after = "def f(:\n    return 1\n";
/// assert!(cache.check("a.py", FileKind::Python, before)?.valid);
/// let report = cache.check("a.py", FileKind::Python, after)?;
/// assert_eq!(report, check_syntax(FileKind::Python, after)?);
/// assert!(!report.valid);
/// # Ok::<(), editkit_analyze::Error>(())
/// ```
pub struct CheckCache {
    entries: Mutex<Vec<Entry>>,
    max_files: usize,
    max_bytes: usize,
    pub(crate) worker: Mutex<Option<crate::worker::Worker>>,
}

impl std::fmt::Debug for CheckCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let files = self.entries.lock().map_or(0, |entries| entries.len());
        f.debug_struct("CheckCache").field("files", &files).field("max_files", &self.max_files).finish_non_exhaustive()
    }
}

struct Entry {
    key: String,
    kind: FileKind,
    source: String,
    /// The whole file's tree; `None` after a Python check that parsed only the edited
    /// statements.
    tree: Option<Tree>,
    /// The tree's empty blocks (Python).
    blocks: Vec<EmptyBlock>,
    /// Python with no syntax error: the source ranges of the top-level statements (and
    /// comments), for checking the next edit by parsing only the statements it touched.
    statements: Option<Vec<Range<usize>>>,
    /// Whether the Python compile check found the previous text clean.
    clean_before: bool,
    /// Whether it found this text clean (`None`: not checked yet).
    clean: Option<bool>,
    /// Source byte range and first line (0-based) of the whole top-level statements the last
    /// edit touched, when the tree is valid.
    touched: Option<(Range<usize>, usize)>,
}

impl Default for CheckCache {
    fn default() -> Self {
        CheckCache::new(DEFAULT_CACHED_FILES, DEFAULT_CACHED_BYTES)
    }
}

impl CheckCache {
    /// A cache of at most `max_files` trees over at most `max_bytes` of source.
    #[must_use]
    pub fn new(max_files: usize, max_bytes: usize) -> Self {
        CheckCache { entries: Mutex::new(Vec::new()), max_files, max_bytes, worker: Mutex::new(None) }
    }

    /// Checks `source` as a file of `kind`, as [`crate::check_syntax`] does; for a kind with a
    /// grammar, through the tree kept under `key` when there is one, and keeps the new tree.
    ///
    /// # Errors
    /// As [`crate::check_syntax`].
    pub fn check(&self, key: &str, kind: FileKind, source: &str) -> Result<SyntaxReport, Error> {
        if crate::parse::language(kind).is_none() {
            return crate::check_syntax(kind, source);
        }
        let previous = {
            let mut entries = crate::lock(&self.entries);
            let at = entries.iter().position(|entry| entry.key == key && entry.kind == kind);
            at.map(|at| entries.remove(at))
        };
        let clean_before = previous.as_ref().and_then(|entry| entry.clean).unwrap_or(false);
        if let Some(entry) = &previous
            && let Some((statements, touched)) = python_statements(entry, source)?
        {
            self.keep(Entry {
                key: key.to_owned(),
                kind,
                source: source.to_owned(),
                tree: None,
                blocks: Vec::new(),
                statements: Some(statements),
                clean_before,
                clean: None,
                touched: Some(touched),
            });
            return Ok(SyntaxReport { valid: true, errors: Vec::new() });
        }
        let (parsed, blocks, touched) = match previous {
            Some(entry) => incremental(kind, entry, source)?,
            None => full(kind, source)?,
        };
        let report = syntax::report(&parsed, &blocks);
        let statements = (kind == FileKind::Python && report.valid && parsed.base() == 0)
            .then(|| top_level_statements(parsed.tree.root_node(), 0))
            .flatten();
        self.keep(Entry {
            key: key.to_owned(),
            kind,
            source: source.to_owned(),
            tree: Some(parsed.tree),
            blocks,
            statements,
            clean_before,
            clean: None,
            touched,
        });
        Ok(report)
    }

    /// What the Python check should compile of `source`, the text just checked under `key`:
    /// the top-level statements the edit touched and the line they start on (0-based), when
    /// the previous text compiled clean; else all of it from line 0.
    pub(crate) fn python_input<'a>(&self, key: &str, source: &'a str) -> (&'a str, usize) {
        let entries = crate::lock(&self.entries);
        let entry = entries.iter().find(|entry| entry.key == key && entry.kind == FileKind::Python);
        let part = entry
            .filter(|entry| entry.clean_before && entry.source == source)
            .and_then(|entry| entry.touched.clone())
            .and_then(|(range, line)| Some((source.get(range)?, line)))
            // A future import is legal only at the top, so touched ones are checked in place.
            // (No future feature changes what `compile()` accepts: `barry_as_FLUFL` is not
            // honoured by it.)
            .filter(|(part, _)| !part.contains("__future__"));
        part.unwrap_or((source, 0))
    }

    /// Records what the Python check said of `source`, the text last checked under `key`.
    pub(crate) fn python_verdict(&self, key: &str, source: &str, clean: bool) {
        let mut entries = crate::lock(&self.entries);
        if let Some(entry) = entries.iter_mut().find(|entry| entry.key == key && entry.source == source) {
            entry.clean = Some(clean);
        }
    }

    /// Forgets the tree kept under `key` (a file deleted or moved).
    pub fn forget(&self, key: &str) {
        crate::lock(&self.entries).retain(|entry| entry.key != key);
    }

    fn keep(&self, entry: Entry) {
        if entry.source.len() > self.max_bytes || self.max_files == 0 {
            return;
        }
        let mut entries = crate::lock(&self.entries);
        entries.retain(|other| other.key != entry.key);
        entries.push(entry);
        // The most recently used entry is last.
        while entries.len() > self.max_files
            || entries.iter().map(|entry| entry.source.len()).sum::<usize>() > self.max_bytes
        {
            entries.remove(0);
        }
    }
}

/// Reparses `source` from `entry`'s tree: the edit is the span between the longest common
/// prefix and suffix of the two texts.
fn incremental(kind: FileKind, entry: Entry, source: &str) -> Result<Checked<'_>, Error> {
    let old = entry.source.as_str();
    let prefix = editkit_matcher::diff::common_prefix_len(old.as_bytes(), source.as_bytes());
    let suffix = editkit_matcher::diff::common_suffix_len(
        old.as_bytes().get(prefix..).unwrap_or_default(),
        source.as_bytes().get(prefix..).unwrap_or_default(),
    );
    let replaced = prefix..old.len() - suffix;
    let new_len = source.len() - suffix - prefix;
    let Some(tree) = entry.tree else { return full(kind, source) };
    let previous = Parsed::adopt(kind, old, tree);
    let edited = (crate::parse::bom_len(old) == crate::parse::bom_len(source))
        .then(|| previous.edited_tree(replaced.clone(), source, new_len))
        .flatten();
    let Some(edited) = edited else {
        // The edit touches a byte-order mark: parse from scratch.
        return full(kind, source);
    };
    let parsed = Parsed::reparse(kind, source, "syntax check", Some(&edited))?;
    if parsed.tree.root_node().has_error() {
        // Error recovery may shape a reused tree differently: a report with errors is always
        // the one a fresh parse gives.
        return full(kind, source);
    }
    if kind != FileKind::Python {
        return Ok((parsed, Vec::new(), None));
    }
    // Tree offsets of the edit: the old range and its new end.
    let base = parsed.base();
    let start = replaced.start.saturating_sub(base);
    let old_end = replaced.end.saturating_sub(base);
    let new_end = start + new_len;
    let touched = touched_statements(&parsed, start..new_end);
    let mut dirty: Vec<Range<usize>> =
        edited.changed_ranges(&parsed.tree).map(|range| range.start_byte..range.end_byte).collect();
    dirty.push(start..new_end);
    // Empty blocks whose statement lies wholly before or after the edit, and outside every
    // changed range, are still there; the rest are looked for again.
    let shift = |at: usize| if at >= old_end { at - old_end + new_end } else { at };
    let outside = |range: &Range<usize>| dirty.iter().all(|d| range.end < d.start || d.end < range.start);
    let mut blocks: Vec<EmptyBlock> = entry
        .blocks
        .into_iter()
        .filter(|block| block.owner.end < start || block.owner.start > old_end)
        .map(|block| EmptyBlock { at: shift(block.at), owner: shift(block.owner.start)..shift(block.owner.end) })
        .filter(|block| outside(&block.owner))
        .collect();
    blocks.extend(syntax::empty_blocks(&parsed, Some(&dirty)));
    blocks.sort_by_key(|block| block.at);
    blocks.dedup_by_key(|block| block.at);
    Ok((parsed, blocks, touched))
}

/// Python whose previous text had no syntax error: top-level statements parse on their own
/// (each starts at column 0, outside any bracket or string), so the new text is checked by
/// parsing only the whole lines from the statement before the edit to the statement after
/// it. When that part parses without an error or an empty block, the file has none either;
/// the new statement ranges, and the part (for the compile check) with its first line, are
/// returned. `None` when the part has a problem (the caller parses the file, so an error
/// report is always a whole parse's) or the texts carry a byte-order mark.
fn python_statements(entry: &Entry, source: &str) -> Result<Option<Statements>, Error> {
    let Some(statements) = entry.statements.as_ref().filter(|_| entry.kind == FileKind::Python) else {
        return Ok(None);
    };
    let old = entry.source.as_str();
    if crate::parse::bom_len(old) != 0 || crate::parse::bom_len(source) != 0 {
        return Ok(None);
    }
    let prefix = editkit_matcher::diff::common_prefix_len(old.as_bytes(), source.as_bytes());
    let suffix = editkit_matcher::diff::common_suffix_len(
        old.as_bytes().get(prefix..).unwrap_or_default(),
        source.as_bytes().get(prefix..).unwrap_or_default(),
    );
    let (start, old_end) = (prefix, old.len() - suffix);
    let line_start = |at: usize| old.get(..at).and_then(|head| head.rfind('\n')).map_or(0, |nl| nl + 1);
    let line_end = |at: usize| old.get(at..).and_then(|tail| tail.find('\n')).map_or(old.len(), |nl| at + nl + 1);
    // From the line of the last statement starting at or before the edit...
    let before = statements.partition_point(|range| range.start <= start);
    let lo = before.checked_sub(1).and_then(|at| statements.get(at)).map_or(0, |range| line_start(range.start));
    // ...to the end of the line of the first statement ending at or after it.
    let after = statements.partition_point(|range| range.end < old_end);
    let hi = statements.get(after).map_or(old.len(), |range| line_end(range.end)).max(old_end);
    let new_hi = hi - old_end + (source.len() - suffix);
    let Some(part) = source.get(lo..new_hi) else { return Ok(None) };
    let parsed = Parsed::new(FileKind::Python, part, "syntax check")?;
    if parsed.tree.root_node().has_error() || !syntax::empty_blocks(&parsed, None).is_empty() {
        return Ok(None);
    }
    let Some(part_statements) = top_level_statements(parsed.tree.root_node(), lo) else { return Ok(None) };
    let mut ranges: Vec<Range<usize>> = statements.iter().filter(|range| range.end <= lo).cloned().collect();
    ranges.extend(part_statements);
    ranges.extend(
        statements
            .iter()
            .filter(|range| range.start >= hi)
            .map(|range| range.start - hi + new_hi..range.end - hi + new_hi),
    );
    let first_line = old.as_bytes().get(..lo).map_or(0, |head| head.iter().filter(|&&byte| byte == b'\n').count());
    Ok(Some((ranges, (lo..new_hi, first_line))))
}

/// The source ranges (shifted by `offset`) of the top-level statements and comments under a
/// Python tree's `root`, when every statement starts at column 0 or on the line the one before
/// it ends on (`a = 1; b = 2`); `None` otherwise. tree-sitter takes an unexpected indent at
/// the top level without an error (an indented `if` after a dedent becomes a top-level
/// statement), and text cut at such a statement does not parse alone as it does in place, so
/// a file like that is never checked by parts. Comments may be indented: they do not open or
/// close blocks.
fn top_level_statements(root: tree_sitter::Node<'_>, offset: usize) -> Option<Vec<Range<usize>>> {
    let mut cursor = root.walk();
    let mut last_row = None;
    root.children(&mut cursor)
        .map(|node| {
            let start = node.start_position();
            let placed = node.kind() == "comment" || start.column == 0 || last_row == Some(start.row);
            last_row = Some(node.end_position().row);
            placed.then(|| node.start_byte() + offset..node.end_byte() + offset)
        })
        .collect()
}

/// The source range of whole lines an edit touched, and the 0-based line it starts on.
type Touched = (Range<usize>, usize);

/// The top-level statement ranges of a Python text, and what its last edit touched.
type Statements = (Vec<Range<usize>>, Touched);

/// A parse, its empty blocks, and the top-level statements an edit touched.
type Checked<'s> = (Parsed<'s>, Vec<EmptyBlock>, Option<(Range<usize>, usize)>);

/// The source range of the whole lines holding the top-level statements that overlap `edit`
/// (tree offsets), and the 0-based line it starts on; `None` when the edit is outside every
/// statement.
fn touched_statements(parsed: &Parsed<'_>, edit: Range<usize>) -> Option<(Range<usize>, usize)> {
    let root = parsed.tree.root_node();
    let mut cursor = root.walk();
    let mut first: Option<tree_sitter::Node<'_>> = None;
    let mut last: Option<tree_sitter::Node<'_>> = None;
    for statement in root.children(&mut cursor) {
        if statement.end_byte() < edit.start {
            continue;
        }
        if statement.start_byte() > edit.end {
            break;
        }
        first.get_or_insert(statement);
        last = Some(statement);
    }
    let (first, last) = (first?, last?);
    let base = parsed.base();
    let text = parsed.source;
    // Whole lines: statements separated by `;` share a line.
    let start = text.get(..first.start_byte() + base)?.rfind('\n').map_or(base, |at| at + 1);
    let end = text.get(last.end_byte() + base..)?.find('\n').map_or(text.len(), |at| last.end_byte() + base + at + 1);
    Some((start..end, first.start_position().row))
}

/// A parse from scratch and its empty blocks.
fn full(kind: FileKind, source: &str) -> Result<Checked<'_>, Error> {
    let parsed = Parsed::new(kind, source, "syntax check")?;
    let blocks = if kind == FileKind::Python { syntax::empty_blocks(&parsed, None) } else { Vec::new() };
    Ok((parsed, blocks, None))
}
