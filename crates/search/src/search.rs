//! The search: a compiled pattern plus filters and bounds, run over a workspace path.

use std::collections::BTreeMap;
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use editkit_vfs::{DecodeError, nul_verdict, utf16_may_decode};
use editkit_vfs::{Workspace, WorkspaceDir};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, MmapChoice, Searcher, SearcherBuilder};

use crate::control::Control;
use crate::error::{Error, Result};
use crate::output::{FileMatches, Match, SearchResults, SkipReason, Skipped};
use crate::rules::{DirNames, DirRules, Filter, WalkOptions};
use crate::sink::{FileSink, SinkConfig, Utf8Check};
use crate::walk::{FileRef, Listing, Visitor, WorkerOutput, walk, walk_error};

/// Default for [`SearchBuilder::max_results`].
pub const DEFAULT_MAX_RESULTS: usize = 200;
/// Most matching lines a search returns, whatever [`SearchBuilder::max_results`] asks: more set
/// `truncated`.
pub const MAX_RESULTS: usize = 100_000;
/// Default for [`SearchBuilder::max_bytes`].
pub const DEFAULT_MAX_BYTES: usize = 32 << 20;
/// Default for [`SearchBuilder::max_line_chars`].
pub const DEFAULT_MAX_LINE_CHARS: usize = 300;
/// Most context lines accepted on either side of a match.
pub const MAX_CONTEXT_LINES: usize = 100;
/// Longest pattern accepted, in bytes.
pub const MAX_PATTERN_BYTES: usize = 64 << 10;
/// At most this many skipped files are listed (the first by path); more set `truncated`.
pub const MAX_SKIPPED: usize = 200;
/// A regex error for a pattern longer than this names the place instead of showing the
/// pattern again.
const MAX_SHOWN_PATTERN_BYTES: usize = 200;
/// Memory the regex compiler may use; bigger patterns are refused rather than slow.
const REGEX_SIZE_LIMIT: usize = 64 << 20;

/// How letter case is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Case {
    /// `a` matches only `a`. The default, as in ripgrep.
    #[default]
    Sensitive,
    /// `a` matches `a` and `A`.
    Insensitive,
    /// Insensitive unless the pattern has an upper-case letter (ripgrep's `--smart-case`).
    Smart,
}

/// Configures a [`Search`]. Every setter documents its default; [`SearchBuilder::build`]
/// compiles the pattern and the globs.
#[derive(Debug, Clone)]
pub struct SearchBuilder {
    pattern: String,
    literal: bool,
    case: Case,
    whole_word: bool,
    multi_line: bool,
    include: Vec<String>,
    exclude: Vec<String>,
    extensions: Vec<String>,
    max_results: usize,
    max_files: usize,
    max_matches_per_file: usize,
    max_file_size: Option<u64>,
    max_line_chars: usize,
    max_bytes: usize,
    before: usize,
    after: usize,
    lossy: bool,
    walk: WalkOptions,
}

impl SearchBuilder {
    /// Search for the pattern as plain text rather than a regular expression. Default: `false`.
    pub fn literal(&mut self, yes: bool) -> &mut Self {
        self.literal = yes;
        self
    }

    /// How letter case is compared. Default: [`Case::Sensitive`].
    pub fn case(&mut self, case: Case) -> &mut Self {
        self.case = case;
        self
    }

    /// Match only whole words (the match is bounded by non-word characters). Default: `false`.
    pub fn whole_word(&mut self, yes: bool) -> &mut Self {
        self.whole_word = yes;
        self
    }

    /// Let the pattern match across lines (`\n` in the pattern; `^`/`$` match at line ends).
    /// Each file is then read whole. Default: `false`.
    pub fn multi_line(&mut self, yes: bool) -> &mut Self {
        self.multi_line = yes;
        self
    }

    /// Search only files matching this glob (gitignore syntax, relative to the searched
    /// directory: `*.py` matches at any depth, `src/*.py` only there). May be given several
    /// times; a file matching any is searched, even one an ignore file would leave out.
    /// Default: none (every file).
    pub fn glob(&mut self, glob: impl Into<String>) -> &mut Self {
        self.include.push(glob.into());
        self
    }

    /// Leave out files and directories matching this glob (gitignore syntax, as
    /// [`SearchBuilder::glob`]); exclusion wins over inclusion. Default: none.
    pub fn exclude(&mut self, glob: impl Into<String>) -> &mut Self {
        self.exclude.push(glob.into());
        self
    }

    /// Search only files with this extension (`py` or `.py`; `d.ts` works too). May be given
    /// several times. Default: any extension.
    pub fn extension(&mut self, extension: impl Into<String>) -> &mut Self {
        self.extensions.push(extension.into());
        self
    }

    /// Most matching lines returned in total; more set `truncated`. `0` returns no lines but
    /// still counts the files with matches. At most [`MAX_RESULTS`], whatever is asked.
    /// Default: [`DEFAULT_MAX_RESULTS`].
    pub fn max_results(&mut self, limit: usize) -> &mut Self {
        self.max_results = limit;
        self
    }

    /// Most files returned in `results`; more set `truncated`. Default: no limit beyond
    /// [`SearchBuilder::max_results`].
    pub fn max_files(&mut self, limit: usize) -> &mut Self {
        self.max_files = limit;
        self
    }

    /// Most matching lines returned from one file (the rest still count for
    /// `files_with_matches`); more set `truncated`. Default: no limit beyond
    /// [`SearchBuilder::max_results`].
    pub fn max_matches_per_file(&mut self, limit: usize) -> &mut Self {
        self.max_matches_per_file = limit;
        self
    }

    /// Files larger than this many bytes are skipped with reason `too_large`. Default: the
    /// workspace's read limit ([`Workspace::max_read_bytes`]).
    pub fn max_file_size(&mut self, bytes: u64) -> &mut Self {
        self.max_file_size = Some(bytes);
        self
    }

    /// Lines longer than this many characters are cut around the match, with
    /// [`crate::CUT_MARKER`] where text was left out. Default: [`DEFAULT_MAX_LINE_CHARS`].
    pub fn max_line_chars(&mut self, limit: usize) -> &mut Self {
        self.max_line_chars = limit;
        self
    }

    /// Most bytes the returned matches hold together (their lines and context lines, counted
    /// by [`Match::held_bytes`]);
    /// the matches past it are left out and set `truncated`, the first in (path, line) order
    /// kept. Each file's matches are collected up to this bound too, so a search holds at most
    /// about this much per worker thread. Default: [`DEFAULT_MAX_BYTES`].
    pub fn max_bytes(&mut self, bytes: usize) -> &mut Self {
        self.max_bytes = bytes;
        self
    }

    /// Lines of context returned before each match. Default: `0`; at most
    /// [`MAX_CONTEXT_LINES`].
    pub fn before_context(&mut self, lines: usize) -> &mut Self {
        self.before = lines;
        self
    }

    /// Lines of context returned after each match. Default: `0`; at most
    /// [`MAX_CONTEXT_LINES`].
    pub fn after_context(&mut self, lines: usize) -> &mut Self {
        self.after = lines;
        self
    }

    /// Lines of context before and after each match.
    pub fn context(&mut self, lines: usize) -> &mut Self {
        self.before = lines;
        self.after = lines;
        self
    }

    /// Search files that are not valid UTF-8 too, showing bad bytes as U+FFFD, instead of
    /// skipping them with reason `not_utf8`. Default: `false`.
    pub fn lossy(&mut self, yes: bool) -> &mut Self {
        self.lossy = yes;
        self
    }

    /// Search hidden files and directories. Default: `false`.
    pub fn hidden(&mut self, yes: bool) -> &mut Self {
        self.walk.hidden = yes;
        self
    }

    /// Honour `.gitignore` files. Default: `true`.
    pub fn git_ignore(&mut self, yes: bool) -> &mut Self {
        self.walk.git_ignore = yes;
        self
    }

    /// Honour `.ignore` files. Default: `true`.
    pub fn ignore_files(&mut self, yes: bool) -> &mut Self {
        self.walk.ignore_files = yes;
        self
    }

    /// Apply `.gitignore` files only inside a git repository. Default: `true`.
    pub fn require_git(&mut self, yes: bool) -> &mut Self {
        self.walk.require_git = yes;
        self
    }

    /// Search files reached through symlinks that stay inside the root. Default: `false`.
    pub fn follow_links(&mut self, yes: bool) -> &mut Self {
        self.walk.follow_links = yes;
        self
    }

    /// Worker threads; `0` picks the number of cores. Default: `0`.
    pub fn threads(&mut self, threads: usize) -> &mut Self {
        self.walk.threads = threads;
        self
    }

    /// All walk options at once (see [`WalkOptions`]).
    pub fn walk_options(&mut self, options: WalkOptions) -> &mut Self {
        self.walk = options;
        self
    }

    /// Compiles the pattern and globs.
    ///
    /// # Errors
    /// [`Error::InvalidPattern`] for a regex that does not parse (with the regex crate's
    /// explanation), one that matches `\n` without [`SearchBuilder::multi_line`], or one too
    /// long or too big; [`Error::InvalidGlob`] for a glob that does not compile;
    /// [`Error::InvalidArgs`] for a malformed extension or too many context lines.
    pub fn build(&self) -> Result<Search> {
        let invalid = |message: String| Error::InvalidPattern { pattern: self.pattern.clone(), message };
        if self.pattern.len() > MAX_PATTERN_BYTES {
            return Err(invalid(format!("the pattern is longer than {MAX_PATTERN_BYTES} bytes")));
        }
        for (name, lines) in [("before_context", self.before), ("after_context", self.after)] {
            if lines > MAX_CONTEXT_LINES {
                return Err(Error::InvalidArgs {
                    name,
                    message: format!("{lines} lines of context is more than the {MAX_CONTEXT_LINES} allowed"),
                });
            }
        }
        let mut builder = RegexMatcherBuilder::new();
        builder
            .fixed_strings(self.literal)
            .case_insensitive(self.case == Case::Insensitive)
            .case_smart(self.case == Case::Smart)
            .word(self.whole_word)
            .size_limit(REGEX_SIZE_LIMIT)
            .dfa_size_limit(REGEX_SIZE_LIMIT);
        if self.multi_line {
            builder.multi_line(true);
        } else {
            builder.line_terminator(Some(b'\n'));
        }
        let matcher = builder.build(&self.pattern).map_err(|err| {
            let hint = match err.kind() {
                grep_regex::ErrorKind::NotAllowed(_) => "; set multi_line to match across lines",
                _ if self.literal => "",
                _ => "; to search for the text as written, search it as a literal (`regex: false`, `editkit grep -F`)",
            };
            // grep-regex reports the pattern as it rewrote it (`(?:()`); the parser's own
            // error shows the pattern as given.
            // A long pattern is not shown again: the error's kind and where it is.
            let detail = match regex_syntax::Parser::new().parse(&self.pattern) {
                Err(parse) if !self.literal && self.pattern.len() > MAX_SHOWN_PATTERN_BYTES => match &parse {
                    regex_syntax::Error::Parse(ast) => {
                        format!("regex parse error at byte {}: {}", ast.span().start.offset, ast.kind())
                    }
                    regex_syntax::Error::Translate(hir) => {
                        format!("regex parse error at byte {}: {}", hir.span().start.offset, hir.kind())
                    }
                    _ => "regex parse error".to_owned(),
                },
                Err(parse) if !self.literal => parse.to_string(),
                _ => err.to_string(),
            };
            invalid(format!("{detail}{hint}"))
        })?;
        let filter = Filter::new(self.walk.clone(), &self.include, &self.exclude, &self.extensions)?;
        let mut builder = self.clone();
        builder.max_results = builder.max_results.min(MAX_RESULTS);
        Ok(Search { builder, matcher, filter: Arc::new(filter) })
    }

    /// Builds the search and runs it once; see [`Search::run`].
    ///
    /// # Errors
    /// As [`SearchBuilder::build`] and [`Search::run`].
    pub fn run(&self, workspace: &Workspace, path: &str) -> Result<SearchResults> {
        self.build()?.run(workspace, path)
    }
}

/// A compiled search, reusable across paths and workspaces.
///
/// ```
/// # fn main() -> Result<(), editkit_search::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.py"), "x = 1\n# todo: more\n").unwrap();
/// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
/// let search = editkit_search::Search::builder("TODO")
///     .case(editkit_search::Case::Insensitive)
///     .extension("py")
///     .build()?;
/// let found = search.run(&workspace, ".")?;
/// assert_eq!(found.results[0].matches[0].line, 2);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Search {
    builder: SearchBuilder,
    matcher: RegexMatcher,
    filter: Arc<Filter>,
}

impl Search {
    /// A builder for a search for `pattern` (a regular expression in Rust's `regex` syntax,
    /// unless [`SearchBuilder::literal`]).
    pub fn builder(pattern: impl Into<String>) -> SearchBuilder {
        SearchBuilder {
            pattern: pattern.into(),
            literal: false,
            case: Case::default(),
            whole_word: false,
            multi_line: false,
            include: Vec::new(),
            exclude: Vec::new(),
            extensions: Vec::new(),
            max_results: DEFAULT_MAX_RESULTS,
            max_files: usize::MAX,
            max_matches_per_file: usize::MAX,
            max_file_size: None,
            max_line_chars: DEFAULT_MAX_LINE_CHARS,
            max_bytes: DEFAULT_MAX_BYTES,
            before: 0,
            after: 0,
            lossy: false,
            walk: WalkOptions::default(),
        }
    }

    /// The pattern as given.
    #[must_use]
    pub fn pattern(&self) -> &str {
        &self.builder.pattern
    }

    /// Searches the file or directory `path` of the workspace. A directory is walked with the
    /// ignore rules (see [`WalkOptions`]); a file named directly is searched whatever they say.
    ///
    /// Files are opened relative to directory handles of the workspace, never by joined paths:
    /// a link leading outside the root is reported under `skipped` and never read, and a
    /// directory exchanged for such a link mid-walk is never entered.
    ///
    /// # Errors
    /// Workspace errors for `path` ([`editkit_vfs::Error::OutsideWorkspace`], `Blocked`,
    /// `NotFound`...) as [`Error::Vfs`]. Problems with single files are not errors: they are
    /// listed in `skipped`.
    pub fn run(&self, workspace: &Workspace, path: &str) -> Result<SearchResults> {
        self.run_with(workspace, path, &Control::new())
    }

    /// Runs the search as [`Search::run`] does, under `control`: it stops opening files once
    /// cancelled (answering what it found, with `truncated` set) and reports progress.
    ///
    /// # Errors
    /// As [`Search::run`].
    pub fn run_with(&self, workspace: &Workspace, path: &str, control: &Control) -> Result<SearchResults> {
        let rel = workspace.resolve(path)?;
        let visitor = SearchVisitor::new(self, workspace);
        let outputs = match workspace.open_dir(path) {
            Ok(_) => {
                let (start, listing, rules) = open_start(workspace, &rel, &self.filter.options)?;
                walk(start, listing, rules, &self.filter, &visitor, self.filter.options.worker_count(), control)
            }
            Err(editkit_vfs::Error::NotADirectory { .. }) => {
                // Opening a FIFO would block: only regular files are searched.
                if workspace.metadata(path)?.kind != editkit_vfs::EntryKind::File {
                    return Err(Error::InvalidArgs {
                        name: "path",
                        message: format!("`{path}` is neither a regular file nor a directory"),
                    });
                }
                let (parent, name) = rel.rsplit_once('/').unwrap_or(("", rel.as_str()));
                let dir = workspace.open_dir(parent)?;
                let mut state = visitor.state();
                visitor.file(&mut state, &FileRef { dir: &dir, name, rel: &rel, symlink: false });
                vec![WorkerOutput { state, skipped: Vec::new() }]
            }
            Err(err) => return Err(err.into()),
        };
        let mut results = visitor.finish(outputs, &rel);
        results.truncated |= control.is_cancelled();
        Ok(results)
    }
}

/// Opens the directory `rel` through the handles of its ancestors, gathering the ignore rules
/// of every directory from the root down; returns its handle, listing and rules.
pub(crate) fn open_start<'ws>(
    workspace: &'ws Workspace,
    rel: &str,
    options: &WalkOptions,
) -> Result<(WorkspaceDir<'ws>, Listing, Arc<DirRules>)> {
    let mut dir = workspace.open_dir("")?;
    let mut rules: Option<Arc<DirRules>> = None;
    let mut parts = rel.split('/').filter(|part| !part.is_empty()).peekable();
    loop {
        let listing = dir.entries_with_skipped()?;
        let names = DirNames::scan(&listing.0, &listing.1);
        let here = DirRules::for_dir(options, &dir, rules.take(), &names);
        match parts.next() {
            None => return Ok((dir, listing, here)),
            Some(part) => {
                rules = Some(here);
                dir = dir.open_subdir(part)?;
            }
        }
    }
}

/// `.` for the root, the relative path otherwise.
pub(crate) fn display_dir(rel: &str) -> String {
    if rel.is_empty() { ".".to_owned() } else { rel.to_owned() }
}

/// Matches kept so far: the first `max_results` matching lines in (path, line) order, within
/// `max_bytes`.
#[derive(Debug, Default)]
struct Collected {
    files: BTreeMap<String, Vec<Match>>,
    /// The encoding of each file whose decoded text was searched (not UTF-8).
    encodings: BTreeMap<String, &'static str>,
    total: usize,
    /// Bytes of text the kept matches hold ([`Match::held_bytes`]).
    bytes: usize,
    files_with_matches: usize,
    truncated: bool,
}

impl Collected {
    /// Drops the last kept match in (path, line) order; `false` when none is left.
    fn drop_last(&mut self) -> bool {
        let Some(mut last) = self.files.last_entry() else { return false };
        if let Some(dropped) = last.get_mut().pop() {
            self.bytes -= dropped.held_bytes();
            self.total -= 1;
        }
        if last.get().is_empty() {
            last.remove();
        }
        true
    }
}

struct SearchVisitor<'s, 'ws> {
    search: &'s Search,
    workspace: &'ws Workspace,
    max_file_size: u64,
    sink: SinkConfig,
    collected: Mutex<Collected>,
    /// Set once the bounds are reached; files sorting after the last kept one are then only
    /// checked for a match (for `files_with_matches`), not collected.
    capped: AtomicBool,
}

/// A file left out of a search, and why.
fn skipped(rel: &str, reason: SkipReason, detail: String) -> Skipped {
    Skipped { path: rel.to_owned(), reason, detail: Some(detail) }
}

/// Reads `reader` into `buffer` from `filled` on, until `to` bytes or the end, and gives how
/// many bytes the buffer then holds. The buffer is kept initialised between files (its length
/// is what was ever zeroed), so a worker zeroes memory only when a file is larger than any
/// before; it grows to `expected` (the size the file had) at once, and by doubling past it.
fn fill(
    reader: &mut impl Read,
    buffer: &mut Vec<u8>,
    mut filled: usize,
    to: usize,
    expected: usize,
) -> std::io::Result<usize> {
    while filled < to {
        if filled == buffer.len() {
            let grown = buffer.len().saturating_mul(2).max(expected).max(filled + 1).min(to);
            buffer.resize(grown, 0);
        }
        let end = buffer.len().min(to);
        match reader.read(&mut buffer[filled..end]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(filled)
}

/// What one pass over a file's bytes finds before it is searched: its first NUL, and whether
/// it holds an escape byte (ISO-2022-JP text is valid UTF-8 that starts with one), which send
/// it to the codec.
#[derive(Debug, Clone, Copy)]
struct Scan {
    nul: Option<usize>,
    /// Known only when there is no NUL (then the codec decides, whatever the escapes).
    escape: bool,
}

impl Scan {
    fn of(bytes: &[u8]) -> Scan {
        match memchr::memchr2(0, 0x1B, bytes) {
            None => Scan { nul: None, escape: false },
            Some(at) if bytes.get(at) == Some(&0) => Scan { nul: Some(at), escape: false },
            Some(at) => {
                let nul = bytes.get(at..).and_then(|rest| memchr::memchr(0, rest)).map(|nul| at + nul);
                Scan { nul, escape: true }
            }
        }
    }

    /// This scan of the bytes before `offset` followed by the scan of `rest`, from `offset` on.
    fn then(self, rest: &[u8], offset: usize) -> Scan {
        if self.nul.is_some() {
            return self;
        }
        let more = Scan::of(rest);
        Scan { nul: more.nul.map(|nul| offset + nul), escape: self.escape || more.escape }
    }
}

/// Where `bytes` stop being UTF-8, if they do: checked with SIMD, and again by `std` for the
/// offset only when they are not.
pub(crate) fn invalid_utf8_at(bytes: &[u8]) -> Option<usize> {
    if simdutf8::basic::from_utf8(bytes).is_ok() {
        return None;
    }
    std::str::from_utf8(bytes).err().map(|err| err.valid_up_to())
}

/// Why a file holding a NUL at `nul` is not searched, as the codec judges it by its `head`
/// (the first bytes, at least the sniff window): binary, or UTF-16/UTF-32 it cannot decode.
fn not_text(head: &[u8], nul: usize) -> (SkipReason, String) {
    not_text_by(nul_verdict(head, nul), nul)
}

/// [`not_text`] from the codec's verdict on the NUL at `nul`.
fn not_text_by(verdict: DecodeError, nul: usize) -> (SkipReason, String) {
    match verdict {
        DecodeError::Utf16 => (
            SkipReason::Utf16,
            "UTF-16 or UTF-32 text whose encoding is not established; read it naming its encoding".into(),
        ),
        _ => (SkipReason::Binary, format!("NUL byte at offset {nul}")),
    }
}

/// How [`SearchVisitor::read_file`] ended.
enum FileRead {
    /// The whole file: this many bytes of the buffer, and their [`Scan`].
    Whole { filled: usize, scan: Scan },
    /// The head (the buffer's first bytes) holds a NUL at `nul` and the codec refuses the file
    /// whatever follows.
    NotText { nul: usize, verdict: DecodeError },
    /// The caller's check stopped the read after the head.
    Stopped,
}

/// What a search reads of a file first: the codec's sniff window and a BOM's length, what it
/// judges a file holding a NUL by ([`nul_verdict`]).
const HEAD_BYTES: usize = editkit_vfs::BINARY_SNIFF_BYTES + 3;

/// Up to which size a file is read whole into a worker's buffer (above it, it is streamed).
const WHOLE_FILE_BYTES: u64 = 1 << 20;

struct SearchState {
    searcher: Searcher,
    /// For files only checked for a match: no line numbers or context to compute.
    counter: Searcher,
    matcher: RegexMatcher,
    files_searched: usize,
    skipped: Vec<Skipped>,
    /// The file being searched, read whole (kept between files).
    buffer: Vec<u8>,
}

impl<'s, 'ws> SearchVisitor<'s, 'ws> {
    fn new(search: &'s Search, workspace: &'ws Workspace) -> Self {
        let builder = &search.builder;
        SearchVisitor {
            search,
            workspace,
            max_file_size: builder.max_file_size.unwrap_or_else(|| workspace.max_read_bytes()),
            sink: SinkConfig {
                before: builder.before,
                after: builder.after,
                max_line_chars: builder.max_line_chars,
                max_bytes: builder.max_bytes,
            },
            collected: Mutex::new(Collected::default()),
            capped: AtomicBool::new(builder.max_results == 0 || builder.max_files == 0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Collected> {
        crate::lock(&self.collected)
    }

    /// Whether a file's matches can no longer make it into the results.
    fn beyond_cutoff(&self, rel: &str) -> bool {
        let builder = &self.search.builder;
        if builder.max_results == 0 || builder.max_files == 0 {
            return true;
        }
        if !self.capped.load(Ordering::Acquire) {
            return false;
        }
        self.lock().files.keys().next_back().is_some_and(|last| rel > last.as_str())
    }

    fn add(&self, rel: &str, matches: Vec<Match>, cut: bool) {
        let builder = &self.search.builder;
        let mut guard = self.lock();
        // Through the guard once, so fields borrow apart.
        let collected = &mut *guard;
        collected.files_with_matches += 1;
        collected.truncated |= cut;
        if matches.is_empty() {
            return;
        }
        collected.total += matches.len();
        collected.bytes += matches.iter().map(Match::held_bytes).sum::<usize>();
        collected.files.insert(rel.to_owned(), matches);
        // Past a bound, the last matches in (path, line) order go first: what stays is the
        // longest run of first matches within every bound.
        while collected.total > builder.max_results && collected.drop_last() {
            collected.truncated = true;
        }
        while collected.files.len() > builder.max_files {
            collected.truncated = true;
            if let Some((_, dropped)) = collected.files.pop_last() {
                collected.total -= dropped.len();
                collected.bytes -= dropped.iter().map(Match::held_bytes).sum::<usize>();
            }
        }
        let mut full = false;
        while collected.bytes > builder.max_bytes && collected.drop_last() {
            full = true;
            collected.truncated = true;
        }
        if full || collected.total >= builder.max_results || collected.files.len() >= builder.max_files {
            self.capped.store(true, Ordering::Release);
        }
    }

    /// The text of a file that is not UTF-8, when the codec establishes another encoding for it
    /// (read again through its handle, within the size limit already checked).
    /// `nul`: where the stream met a NUL byte.
    fn decoded(&self, file: &FileRef<'_, '_>, nul: Option<u64>) -> Option<editkit_vfs::Text> {
        if self.workspace.default_encoding().is_some() {
            return None; // the workspace reads UTF-8 only
        }
        let (mut handle, size) = self.open(file).ok()?;
        if size > self.max_file_size {
            return None;
        }
        // A file the codec refuses by its head is not read whole: it judges a NUL past the
        // head by the head.
        let mut bytes = Vec::new();
        let past_head = |head: &[u8]| {
            nul.and_then(|nul| usize::try_from(nul).ok()).is_some_and(|nul| self.refused(head, nul).is_some())
        };
        let Ok(FileRead::Whole { filled, .. }) = self.read_file(&mut handle, size, &mut bytes, past_head) else {
            return None;
        };
        bytes.truncate(filled);
        if bytes.len() as u64 > self.max_file_size {
            return None;
        }
        editkit_vfs::Text::decode_owned(bytes).ok().filter(|text| !text.encoding().is_utf8())
    }

    /// Whether this workspace's decoding refuses data holding a NUL at `nul`, whatever follows
    /// its `head` (the first [`editkit_vfs::BINARY_SNIFF_BYTES`] and a BOM's length):
    /// binary to the codec, or UTF-16 it cannot decode (without its byte-order mark, or in a
    /// workspace that reads UTF-8 only). A search reads no further than such a head.
    /// Gives the codec's verdict when it refuses.
    fn refused(&self, head: &[u8], nul: usize) -> Option<DecodeError> {
        let verdict = nul_verdict(head, nul);
        let may_decode = matches!(verdict, DecodeError::Utf16)
            && self.workspace.default_encoding().is_none()
            && utf16_may_decode(head);
        (!may_decode).then_some(verdict)
    }

    /// Reads the open file (of `size` bytes when opened) into `buffer` as a search does: its
    /// head first (the first 8 KiB and a BOM's length, what the codec sniffs), where a NUL that
    /// makes the codec refuse the file whatever follows ends the read ([`Self::refused`]), as
    /// does `stop` returning true for the head; then the rest, up to the size limit and a byte
    /// more (so a file that grew past it shows).
    fn read_file(
        &self,
        handle: &mut cap_std::fs::File,
        size: u64,
        buffer: &mut Vec<u8>,
        stop: impl Fn(&[u8]) -> bool,
    ) -> std::io::Result<FileRead> {
        let limit = usize::try_from(self.max_file_size.saturating_add(1)).unwrap_or(usize::MAX);
        let expected = usize::try_from(size).unwrap_or(usize::MAX).saturating_add(1);
        let head = HEAD_BYTES.min(limit);
        let filled = fill(handle, buffer, 0, head, expected)?;
        let bytes = buffer.get(..filled).unwrap_or_default();
        let scan = Scan::of(bytes);
        if let Some(nul) = scan.nul
            && let Some(verdict) = self.refused(bytes, nul)
        {
            return Ok(FileRead::NotText { nul, verdict });
        }
        if stop(bytes) {
            return Ok(FileRead::Stopped);
        }
        if filled < head {
            return Ok(FileRead::Whole { filled, scan });
        }
        let whole = fill(handle, buffer, filled, limit, expected)?;
        let scan = scan.then(buffer.get(filled..whole).unwrap_or_default(), filled);
        Ok(FileRead::Whole { filled: whole, scan })
    }

    /// The open file and its size (from the one `fstat` that checks it is a regular file).
    fn open(&self, file: &FileRef<'_, '_>) -> editkit_vfs::Result<(cap_std::fs::File, u64)> {
        if !file.symlink {
            return file.dir.open_file_sized(file.name);
        }
        // A followed link: open its target through the workspace root, which keeps it inside.
        let target = self.workspace.resolve(file.rel)?;
        let (parent, name) = target.rsplit_once('/').unwrap_or(("", target.as_str()));
        self.workspace.open_dir(parent)?.open_file_sized(name)
    }

    fn finish(&self, outputs: Vec<WorkerOutput<SearchState>>, rel: &str) -> SearchResults {
        let mut files_searched = 0;
        let mut skipped = Vec::new();
        for output in outputs {
            files_searched += output.state.files_searched;
            skipped.extend(output.skipped);
            skipped.extend(output.state.skipped);
        }
        let collected = std::mem::take(&mut *self.lock());
        let mut truncated = collected.truncated;
        skipped.sort_by(|a, b| a.path.cmp(&b.path).then(a.reason.cmp(&b.reason)));
        skipped.dedup_by(|a, b| a.path == b.path);
        if skipped.len() > MAX_SKIPPED {
            skipped.truncate(MAX_SKIPPED);
            truncated = true;
        }
        SearchResults {
            pattern: self.search.builder.pattern.clone(),
            directory: display_dir(rel),
            files_searched,
            files_with_matches: collected.files_with_matches,
            results: collected
                .files
                .into_iter()
                .map(|(file, matches)| {
                    let encoding = collected.encodings.get(&file).map(|label| (*label).to_owned());
                    FileMatches { file, matches, encoding }
                })
                .collect(),
            skipped,
            truncated,
        }
    }
}

impl Visitor for SearchVisitor<'_, '_> {
    type State = SearchState;

    fn state(&self) -> SearchState {
        let builder = &self.search.builder;
        let mut config = SearcherBuilder::new();
        config
            .binary_detection(BinaryDetection::quit(0))
            .multi_line(builder.multi_line)
            .bom_sniffing(false)
            .memory_map(MmapChoice::never());
        let counter = config.line_number(false).build();
        let searcher = config.line_number(true).before_context(builder.before).after_context(builder.after).build();
        SearchState {
            searcher,
            counter,
            matcher: self.search.matcher.clone(),
            files_searched: 0,
            skipped: Vec::new(),
            buffer: Vec::new(),
        }
    }

    fn file(&self, state: &mut SearchState, file: &FileRef<'_, '_>) {
        let skip = |reason: SkipReason, detail: String| skipped(file.rel, reason, detail);
        let (handle, size) = match self.open(file) {
            Ok(opened) => opened,
            Err(err) => return state.skipped.push(walk_error(file.rel.to_owned(), &err)),
        };
        if size > self.max_file_size {
            let detail = format!("{size} bytes, over the limit of {} bytes", self.max_file_size);
            return state.skipped.push(skip(SkipReason::TooLarge, detail));
        }
        // A file up to a MiB is read whole into the worker's buffer: one read; a larger one
        // is searched as it streams through a fixed buffer, so memory stays flat.
        if size <= WHOLE_FILE_BYTES {
            self.search_whole(state, file, handle, size);
        } else {
            self.search_streamed(state, file, handle, size);
        }
    }
}

impl SearchVisitor<'_, '_> {
    /// Searches a file read whole into the worker's buffer, after the checks every tool shares.
    fn search_whole(&self, state: &mut SearchState, file: &FileRef<'_, '_>, handle: cap_std::fs::File, size: u64) {
        let mut buffer = std::mem::take(&mut state.buffer);
        self.search_in(state, file, handle, size, &mut buffer);
        state.buffer = buffer;
    }

    fn search_in(
        &self,
        state: &mut SearchState,
        file: &FileRef<'_, '_>,
        mut handle: cap_std::fs::File,
        size: u64,
        buffer: &mut Vec<u8>,
    ) {
        let skip = |reason: SkipReason, detail: String| skipped(file.rel, reason, detail);
        let (filled, Scan { nul, escape }) = match self.read_file(&mut handle, size, buffer, |_| false) {
            Ok(FileRead::Whole { filled, scan }) => (filled, scan),
            Ok(FileRead::NotText { nul, verdict }) => {
                let (reason, detail) = not_text_by(verdict, nul);
                return state.skipped.push(skip(reason, detail));
            }
            // Nothing stops this read after the head; were it stopped, the file is not searched.
            Ok(FileRead::Stopped) => {
                return state.skipped.push(skip(SkipReason::Unreadable, "read stopped after its head".into()));
            }
            Err(err) => return state.skipped.push(skip(SkipReason::Unreadable, err.to_string())),
        };
        if filled as u64 > self.max_file_size {
            let detail = format!("over the limit of {} bytes (it grew while being read)", self.max_file_size);
            return state.skipped.push(skip(SkipReason::TooLarge, detail));
        }
        let bytes = &buffer[..filled];
        let builder = &self.search.builder;
        // Collect one line more than can be kept, to know whether lines were left out.
        let keep = if self.beyond_cutoff(file.rel) {
            None
        } else {
            Some(builder.max_results.min(builder.max_matches_per_file))
        };
        // Data holding a NUL is the codec's to judge: its UTF-8 is not checked.
        let invalid = if builder.lossy || nul.is_some() { None } else { invalid_utf8_at(bytes) };
        let mut sink = FileSink::new(&state.matcher, self.sink, keep.map_or(0, |n| n.saturating_add(1)));
        let searcher = if keep.is_some() { &mut state.searcher } else { &mut state.counter };
        let plain = nul.is_none() && invalid.is_none() && !escape;
        // The scan above found no NUL in plain text: the searcher need not look again.
        searcher.set_binary_detection(if plain { BinaryDetection::none() } else { BinaryDetection::quit(0) });
        let outcome = if plain {
            searcher.search_slice(&state.matcher, bytes, &mut sink)
        } else {
            // Not plain UTF-8 text: the codec decides whether it is text in another encoding
            // (the one decision every tool shares), and then its decoded text is searched.
            // (A workspace that reads UTF-8 only decodes nothing else.)
            let decoded = self.workspace.decode(bytes, None).ok().filter(|text| !text.encoding().is_utf8());
            match decoded {
                Some(text) => {
                    let outcome = searcher.search_slice(&state.matcher, text.with_endings().as_bytes(), &mut sink);
                    if outcome.is_ok() && sink.n_matches > 0 {
                        self.lock().encodings.insert(file.rel.to_owned(), text.encoding().label());
                    }
                    outcome
                }
                // Escapes in UTF-8 text: searched as it is.
                None if nul.is_none() && invalid.is_none() => searcher.search_slice(&state.matcher, bytes, &mut sink),
                None => {
                    if let Some(offset) = nul {
                        let (reason, detail) = not_text(bytes, offset);
                        return state.skipped.push(skip(reason, detail));
                    }
                    let offset = invalid.unwrap_or(0);
                    let detail = format!("invalid UTF-8 at byte offset {offset}; set lossy to search it anyway");
                    return state.skipped.push(skip(SkipReason::NotUtf8, detail));
                }
            }
        };
        if let Err(err) = outcome {
            return state.skipped.push(skip(SkipReason::Unreadable, err.to_string()));
        }
        self.found(&mut state.files_searched, file.rel, sink, keep);
    }

    /// Searches a file as it streams, checking as it goes that it is UTF-8; a file that is not
    /// is read again whole for the codec, which decides whether it is text in another encoding.
    /// Its head is read first, as for a file read whole: the codec judges a NUL by it, and a
    /// file it refuses by its head is read no further.
    fn search_streamed(
        &self,
        state: &mut SearchState,
        file: &FileRef<'_, '_>,
        mut handle: cap_std::fs::File,
        size: u64,
    ) {
        let skip = |reason: SkipReason, detail: String| skipped(file.rel, reason, detail);
        let builder = &self.search.builder;
        let mut head = Vec::new();
        let expected = usize::try_from(size).unwrap_or(usize::MAX).saturating_add(1);
        match fill(&mut handle, &mut head, 0, HEAD_BYTES, expected.min(HEAD_BYTES)) {
            Ok(filled) => head.truncate(filled),
            Err(err) => return state.skipped.push(skip(SkipReason::Unreadable, err.to_string())),
        }
        if let Some(nul) = memchr::memchr(0, &head)
            && let Some(verdict) = self.refused(&head, nul)
        {
            let (reason, detail) = not_text_by(verdict, nul);
            return state.skipped.push(skip(reason, detail));
        }
        // Collect one line more than can be kept, to know whether lines were left out.
        let keep = if self.beyond_cutoff(file.rel) {
            None
        } else {
            Some(builder.max_results.min(builder.max_matches_per_file))
        };
        let mut sink = FileSink::new(&state.matcher, self.sink, keep.map_or(0, |n| n.saturating_add(1)));
        let mut reader = Utf8Check::new(std::io::Cursor::new(&head).chain(handle), !builder.lossy);
        let searcher = if keep.is_some() { &mut state.searcher } else { &mut state.counter };
        searcher.set_binary_detection(BinaryDetection::quit(0));
        if let Err(err) = searcher.search_reader(&state.matcher, &mut reader, &mut sink) {
            return state.skipped.push(skip(SkipReason::Unreadable, err.to_string()));
        }
        if sink.binary.is_some() || reader.invalid_at.is_some() || reader.escape_seen {
            // Not UTF-8 text: the codec decides whether it is text in another encoding (the one
            // decision every tool shares), and then its decoded text is searched.
            let decoded = self.decoded(file, sink.binary);
            let Some(text) = decoded else {
                if sink.binary.is_none() && reader.invalid_at.is_none() {
                    // Escapes in UTF-8 text: searched as it is (above).
                    return self.found(&mut state.files_searched, file.rel, sink, keep);
                }
                if let Some(offset) = sink.binary.and_then(|offset| usize::try_from(offset).ok()) {
                    let (reason, detail) = not_text(&head, offset);
                    return state.skipped.push(skip(reason, detail));
                }
                let offset = reader.invalid_at.unwrap_or(0);
                let detail = format!("invalid UTF-8 at byte offset {offset}; set lossy to search it anyway");
                return state.skipped.push(skip(SkipReason::NotUtf8, detail));
            };
            sink = FileSink::new(&state.matcher, self.sink, keep.map_or(0, |n| n.saturating_add(1)));
            let searcher = if keep.is_some() { &mut state.searcher } else { &mut state.counter };
            if let Err(err) = searcher.search_slice(&state.matcher, text.with_endings().as_bytes(), &mut sink) {
                return state.skipped.push(skip(SkipReason::Unreadable, err.to_string()));
            }
            if sink.n_matches > 0 {
                self.lock().encodings.insert(file.rel.to_owned(), text.encoding().label());
            }
        }
        self.found(&mut state.files_searched, file.rel, sink, keep);
    }
}

impl SearchVisitor<'_, '_> {
    /// Counts a searched file and keeps its matches.
    fn found(&self, files_searched: &mut usize, rel: &str, sink: FileSink<'_>, keep: Option<usize>) {
        *files_searched += 1;
        if sink.n_matches > 0 {
            let mut matches = sink.matches;
            let cut = match keep {
                None => true,
                Some(_) if sink.full => true,
                Some(n) if matches.len() > n => {
                    matches.truncate(n);
                    true
                }
                Some(_) => false,
            };
            self.add(rel, matches, cut);
        }
    }
}
