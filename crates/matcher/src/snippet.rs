//! Lazy snippets: the changed parts of a file with the rest elided by marker comments
//! (`// ... existing code ...`), merged into the file deterministically, never by guessing.
//!
//! A snippet is literal chunks separated by marker lines. Each chunk is aligned with the file
//! line by line (whitespace and indentation tolerated): its lines that stand in the file anchor
//! it, its other lines are inserted, or replace the file's lines between their aligned
//! neighbours. Lines the file has between two aligned lines of one chunk that the chunk leaves
//! out are a deletion, refused unless allowed, since a forgotten marker looks the same. A chunk
//! that aligns equally well at two places is ambiguous; one that aligns nowhere is not found.
//!
//! With an [`Outline`] (the definitions of the file and of the snippet, from a syntax tree the
//! caller parsed: the matcher has no grammar), a chunk inside a definition of the snippet
//! (`def run` under `class B`, a method in a class) is aligned only within the one definition
//! of that name path in the file (`B.run`, or its nearest enclosing definition the file has):
//! twins elsewhere in the file do not make it ambiguous, and it can never straddle into a
//! neighbouring definition. A name path the file defines twice (a getter and its setter) takes
//! the one definition the chunk aligns with best; equally well with two is ambiguous.
//!
//! ```
//! use editkit_matcher::snippet::{merge, Comment, SnippetOptions};
//! let file = "def a():\n    return 1\n\n\ndef b():\n    return 2\n";
//! let snippet = "# ... existing code ...\ndef b():\n    log()\n    return 2\n";
//! let options = SnippetOptions { comments: vec![Comment::Hash], ..Default::default() };
//! let merged = merge(file, snippet, &options).unwrap();
//! assert_eq!(merged.text(), "def a():\n    return 1\n\n\ndef b():\n    log()\n    return 2\n");
//! assert_eq!(merged.chunks()[0].lines, [5, 6]);
//! ```

use std::fmt;
use std::ops::Range;

/// A comment syntax a marker line may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Comment {
    /// `# ...` (Python, YAML, TOML, shell).
    Hash,
    /// `// ...` (TypeScript, JavaScript, Rust, Go, JSONC).
    Slashes,
    /// `/* ... */`.
    Block,
    /// `<!-- ... -->` (Markdown, HTML).
    Html,
    /// `{/* ... */}` (JSX, TSX).
    JsxBlock,
}

impl Comment {
    /// Every comment syntax (for files of no known language).
    pub const ALL: [Comment; 5] = [Comment::Hash, Comment::Slashes, Comment::Block, Comment::Html, Comment::JsxBlock];

    /// The comment's body when `trimmed` (a line without its surrounding whitespace) is one
    /// comment of this syntax.
    fn body(self, trimmed: &str) -> Option<&str> {
        match self {
            Comment::Hash => trimmed.strip_prefix('#'),
            Comment::Slashes => trimmed.strip_prefix("//"),
            Comment::Block => trimmed.strip_prefix("/*")?.strip_suffix("*/"),
            Comment::Html => trimmed.strip_prefix("<!--")?.strip_suffix("-->"),
            Comment::JsxBlock => trimmed.strip_prefix("{/*")?.strip_suffix("*/}"),
        }
    }
}

/// How [`merge`] reads a snippet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnippetOptions {
    /// The comment syntaxes of the file's language; a marker is a line that is one such comment
    /// holding `...` or `…`. Default: every syntax.
    pub comments: Vec<Comment>,
    /// Delete the file's lines that a chunk leaves out between two of its aligned lines.
    /// Default: false (refused as unaligned).
    pub allow_deletions: bool,
    /// Most alignment cells (chunk lines × file lines searched, summed over the chunks and the
    /// searches for a second placement) one merge may compute. Default: 64 Mi.
    pub max_cells: u64,
    /// The definitions of the file and of the snippet, when the caller has a grammar for the
    /// file's language; `None` (the default): every chunk is aligned by lines.
    pub outline: Option<Outline>,
}

impl Default for SnippetOptions {
    fn default() -> Self {
        SnippetOptions { comments: Comment::ALL.to_vec(), allow_deletions: false, max_cells: 64 << 20, outline: None }
    }
}

/// A named definition (function, class, method) of a text, from its syntax tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    /// Its dotted name path (`Class.method`), as the enclosing definitions nest it.
    pub path: String,
    /// 1-based first line (its decorators included) and last line.
    pub lines: [usize; 2],
}

/// The definitions of the file and of the snippet (both in their own line numbers), which
/// bound each chunk to the definition it sits in.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Outline {
    /// The file's definitions.
    pub file: Vec<Definition>,
    /// The snippet's definitions (markers are comments of the language, so a snippet parses).
    pub snippet: Vec<Definition>,
}

/// How a chunk was aligned with the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlignedBy {
    /// Within the one file definition of the name path the chunk sits in (see [`Outline`]).
    Syntax,
    /// By lines over the whole file (after the chunk before it).
    Lines,
}

/// Where one chunk of the snippet landed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChunkPlacement {
    /// 1-based first and last line of the chunk in the snippet.
    pub snippet_lines: [usize; 2],
    /// 1-based first and last file line the chunk aligned with (its span), in the file before
    /// the merge.
    pub lines: [usize; 2],
    /// How many of its lines aligned with file lines.
    pub aligned: usize,
    /// How many new lines it wrote.
    pub inserted: usize,
    /// How many file lines inside its span it replaced or deleted.
    pub removed: usize,
    /// Whether it was aligned within a definition or by lines.
    pub alignment: AlignedBy,
    /// The name path of the file definition it was aligned within (with [`AlignedBy::Syntax`]).
    pub definition: Option<String>,
}

/// A marker of the snippet and the file lines it kept.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MarkerKept {
    /// 1-based line of the marker in the snippet.
    pub snippet_line: usize,
    /// 1-based first and last file line it kept, `None` when it stands where there are none.
    pub kept: Option<[usize; 2]>,
}

/// A merged snippet: the edits on the file's text and where everything landed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    text: String,
    edits: Vec<(Range<usize>, String)>,
    chunks: Vec<ChunkPlacement>,
    markers: Vec<MarkerKept>,
}

impl Merged {
    /// The file's text with the snippet merged in.
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The byte ranges of the original text and what replaces each, sorted and disjoint, for
    /// callers that splice into their own copy (keeping each untouched line's ending).
    pub fn edits(&self) -> impl Iterator<Item = (Range<usize>, &str)> {
        self.edits.iter().map(|(range, piece)| (range.clone(), piece.as_str()))
    }

    /// Where each chunk landed, in snippet order.
    #[must_use]
    pub fn chunks(&self) -> &[ChunkPlacement] {
        &self.chunks
    }

    /// Each marker and the lines it kept, in snippet order.
    #[must_use]
    pub fn markers(&self) -> &[MarkerKept] {
        &self.markers
    }
}

/// Why a snippet was not merged; nothing was changed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The snippet holds no line of code, only markers and blank lines.
    Empty,
    /// A chunk aligns with no line of the file (after the chunk before it).
    NotFound {
        /// 1-based number of the chunk.
        chunk: usize,
        /// 1-based first and last snippet line of the chunk.
        snippet_lines: [usize; 2],
        /// 1-based file line after which it was looked for (0: the whole file).
        after_line: usize,
    },
    /// A chunk aligns equally well at two places.
    Ambiguous {
        /// 1-based number of the chunk.
        chunk: usize,
        /// 1-based first and last snippet line of the chunk.
        snippet_lines: [usize; 2],
        /// 1-based first file line of each place.
        lines: Vec<usize>,
    },
    /// A chunk leaves out file lines between two of its aligned lines (a deletion, or a
    /// forgotten marker), and deletions were not allowed.
    Unaligned {
        /// 1-based number of the chunk.
        chunk: usize,
        /// 1-based first and last snippet line of the chunk.
        snippet_lines: [usize; 2],
        /// 1-based first and last file line it would delete.
        lines: [usize; 2],
        /// How many of them it would delete (more than it writes in their place).
        deleted: usize,
    },
    /// A new line at the edge of a chunk looks like a change of the file line next to the
    /// chunk: inserted or replacing it, either would be a guess.
    Edge {
        /// 1-based number of the chunk.
        chunk: usize,
        /// 1-based snippet line of the new line.
        snippet_line: usize,
        /// 1-based file line it resembles.
        line: usize,
    },
    /// A chunk sits in a definition whose name path the file defines more than once, and aligns
    /// as well (or not at all) with more than one of them.
    DefinedTwice {
        /// 1-based number of the chunk.
        chunk: usize,
        /// 1-based first and last snippet line of the chunk.
        snippet_lines: [usize; 2],
        /// The name path.
        definition: String,
        /// 1-based first line of each of the file's definitions of it.
        lines: Vec<usize>,
    },
    /// A chunk sits in a definition of the file and aligns with none of its lines.
    NotInDefinition {
        /// 1-based number of the chunk.
        chunk: usize,
        /// 1-based first and last snippet line of the chunk.
        snippet_lines: [usize; 2],
        /// The name path.
        definition: String,
        /// 1-based first and last file line of the definition.
        lines: [usize; 2],
    },
    /// The merge leaves the file as it is.
    NoChange,
    /// The alignment work would pass [`SnippetOptions::max_cells`].
    LimitExceeded {
        /// The cells the merge needs at least.
        cells: u64,
        /// The limit in force.
        limit: u64,
    },
}

impl Error {
    /// The kind word shared with the ladder's errors: an unaligned chunk is `not_found`, as an
    /// unaligned edit is.
    #[must_use]
    pub const fn error_kind(&self) -> crate::ErrorKind {
        match self {
            Error::Empty => crate::ErrorKind::EmptyNeedle,
            Error::NotFound { .. } | Error::Unaligned { .. } | Error::NotInDefinition { .. } => {
                crate::ErrorKind::NotFound
            }
            Error::Ambiguous { .. } | Error::Edge { .. } | Error::DefinedTwice { .. } => crate::ErrorKind::Ambiguous,
            Error::NoChange => crate::ErrorKind::NoChange,
            Error::LimitExceeded { .. } => crate::ErrorKind::LimitExceeded,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Empty => write!(
                f,
                "the snippet holds only markers and blank lines; give the changed lines with a line or two of the \
                 file's own around them"
            ),
            Error::NotFound { chunk, snippet_lines: [a, b], after_line } => {
                let place = if *after_line == 0 { String::new() } else { format!(" after line {after_line}") };
                write!(
                    f,
                    "chunk {chunk} (snippet lines {a}-{b}) aligns with no line of the file{place}; copy a line or two \
                     of the file's own code around the change, in the file's order"
                )
            }
            Error::Ambiguous { chunk, snippet_lines: [a, b], lines } => {
                let lines: Vec<String> = lines.iter().map(ToString::to_string).collect();
                write!(
                    f,
                    "chunk {chunk} (snippet lines {a}-{b}) aligns equally well at lines {}; add a line of context that \
                     stands only at the place meant",
                    lines.join(", ")
                )
            }
            Error::Unaligned { chunk, snippet_lines: [a, b], lines: [first, last], deleted } => write!(
                f,
                "chunk {chunk} (snippet lines {a}-{b}) leaves out {deleted} of the file's lines {first}-{last} \
                 between two of its lines (unaligned); put a marker such as `... existing code ...` where code is \
                 kept, or allow deletions (deletions \"allow\", --allow-deletions) if they are to be deleted"
            ),
            Error::Edge { chunk, snippet_line, line } => write!(
                f,
                "snippet line {snippet_line}, at the edge of chunk {chunk}, is new but resembles file line {line} next \
                 to the chunk: it could be inserted or replace that line; include the file's line beyond it as \
                 context (unchanged), so the chunk places it"
            ),
            Error::DefinedTwice { chunk, snippet_lines: [a, b], definition, lines } => {
                let lines: Vec<String> = lines.iter().map(ToString::to_string).collect();
                write!(
                    f,
                    "chunk {chunk} (snippet lines {a}-{b}) sits in `{definition}`, which the file defines more than \
                     once (lines {}), and aligns as well with more than one; add a line that stands only in the one \
                     meant, or use edit_file",
                    lines.join(", ")
                )
            }
            Error::NotInDefinition { chunk, snippet_lines: [a, b], definition, lines: [first, last] } => write!(
                f,
                "chunk {chunk} (snippet lines {a}-{b}) sits in `{definition}` but aligns with none of its lines \
                 (file lines {first}-{last}); copy a line or two of that definition's own code around the change"
            ),
            Error::NoChange => write!(f, "the snippet changes nothing: every line of it already stands in the file"),
            Error::LimitExceeded { cells, limit } => write!(
                f,
                "aligning the snippet needs {cells} cells (chunk lines × file lines), over the limit of {limit} \
                 (max_cells); send smaller snippets, or use edit_file"
            ),
        }
    }
}

impl std::error::Error for Error {}

/// Whether `line` is a marker in one of `comments`.
#[must_use]
pub fn is_marker(line: &str, comments: &[Comment]) -> bool {
    let trimmed = line.trim();
    comments.iter().filter_map(|comment| comment.body(trimmed)).any(|body| body.contains("...") || body.contains('…'))
}

/// Merges `snippet` into `text` (LF-normalised).
///
/// # Errors
/// [`Error::Empty`], [`Error::NotFound`], [`Error::Ambiguous`], [`Error::Unaligned`],
/// [`Error::NoChange`], [`Error::LimitExceeded`]; nothing is built on a refusal.
pub fn merge(text: &str, snippet: &str, options: &SnippetOptions) -> Result<Merged, Error> {
    let file = Lines::new(text);
    let keys: Vec<String> = file.lines.iter().map(|line| key(line)).collect();
    let parsed = parse(snippet, &options.comments);
    if parsed.chunks.is_empty() {
        return Err(Error::Empty);
    }
    let cells: u64 = parsed.chunks.iter().map(|chunk| chunk.lines.len() as u64 * file.lines.len() as u64 * 2).sum();
    if cells > options.max_cells {
        return Err(Error::LimitExceeded { cells, limit: options.max_cells });
    }
    let mut placed: Vec<Placed> = Vec::with_capacity(parsed.chunks.len());
    let mut lo = 0;
    for (index, chunk) in parsed.chunks.iter().enumerate() {
        let number = index + 1;
        let chunk_keys: Vec<String> = chunk.lines.iter().map(|line| key(line)).collect();
        let snippet_lines = [chunk.first + 1, chunk.first + chunk.lines.len()];
        let scope = match &options.outline {
            Some(outline) => outline.scope(snippet_lines),
            None => None,
        };
        let scope = match scope {
            Some(Candidates { path, lines, ends_chunk }) => {
                // A name path the file defines more than once (a property's getter and setter,
                // overloads): the one definition the chunk aligns with best, when no other
                // aligns as well.
                let window = |[first, last]: [usize; 2]| (first.saturating_sub(1).max(lo), last.min(file.lines.len()));
                let mut ranked: Vec<([usize; 2], Alignment)> = lines
                    .iter()
                    .filter_map(|&def| {
                        let (from, to) = window(def);
                        align(&chunk_keys, &keys, from, to).map(|found| (def, found))
                    })
                    .collect();
                ranked.sort_by_key(|(_, found)| std::cmp::Reverse(found.rank()));
                match ranked.as_slice() {
                    _ if lines.len() == 1 => Some(Scope { path, lines: lines[0], ends_chunk }),
                    [(def, best), rest @ ..] if rest.first().is_none_or(|(_, next)| next.rank() < best.rank()) => {
                        Some(Scope { path, lines: *def, ends_chunk: false })
                    }
                    _ => {
                        return Err(Error::DefinedTwice {
                            chunk: number,
                            snippet_lines,
                            definition: path,
                            lines: lines.iter().map(|def| def[0]).collect(),
                        });
                    }
                }
            }
            None => None,
        };
        // The file lines the chunk may align with: its definition's, or the whole file's.
        let (scope_lo, scope_hi) = scope.as_ref().map_or((0, file.lines.len()), |scope| {
            (scope.lines[0].saturating_sub(1), scope.lines[1].min(file.lines.len()))
        });
        let closing = scope.as_ref().and_then(|scope| {
            // Closing lines (`}`, `});`) ending the snippet's definition end the file's.
            let punctuation = !chunk_keys.iter().any(|key| key.chars().any(char::is_alphanumeric));
            let first = scope_hi.checked_sub(chunk_keys.len())?;
            (punctuation && scope.ends_chunk && first >= lo.max(scope_lo) && keys[first..scope_hi] == chunk_keys[..])
                .then(|| Alignment { pairs: (0..chunk_keys.len()).map(|at| (at, first + at)).collect(), skipped: 0 })
        });
        let at_closing = closing.is_some();
        let Some(best) = closing.or_else(|| align(&chunk_keys, &keys, lo.max(scope_lo), scope_hi)) else {
            return Err(match scope {
                Some(Scope { path: definition, lines, .. }) => {
                    Error::NotInDefinition { chunk: number, snippet_lines, definition, lines }
                }
                None => Error::NotFound { chunk: number, snippet_lines, after_line: lo },
            });
        };
        let (start, end) = (best.pairs[0].1, best.pairs[best.pairs.len() - 1].1);
        // Another placement as good anywhere else in its scope binds the chunk two ways.
        let others = if at_closing {
            // Placed at its definition's end, as the snippet's definition ends with it.
            [None, None]
        } else {
            [align(&chunk_keys, &keys, scope_lo, start), align(&chunk_keys, &keys, end + 1, scope_hi)]
        };
        let twins: Vec<usize> = others
            .iter()
            .flatten()
            .filter(|other| other.rank() >= best.rank())
            .map(|other| other.pairs[0].1 + 1)
            .collect();
        if !twins.is_empty() {
            let mut lines = twins;
            lines.push(start + 1);
            lines.sort_unstable();
            return Err(Error::Ambiguous { chunk: number, snippet_lines, lines });
        }
        placed.push(Placed { chunk: index, pairs: best.pairs, definition: scope.map(|scope| scope.path) });
        lo = end + 1;
    }
    build(text, &file, &parsed, &placed, options.allow_deletions)
}

impl Outline {
    /// The file definitions a chunk (snippet lines `[a, b]`) is bounded by: those of the
    /// innermost snippet definition holding the whole chunk whose name path the file defines;
    /// `None` when no enclosing definition is in the file.
    fn scope(&self, snippet_lines: [usize; 2]) -> Option<Candidates> {
        let [a, b] = snippet_lines;
        let mut enclosing: Vec<&Definition> =
            self.snippet.iter().filter(|def| def.lines[0] <= a && b <= def.lines[1]).collect();
        // Innermost first: the latest start, then the earliest end.
        enclosing.sort_by_key(|def| (std::cmp::Reverse(def.lines[0]), def.lines[1]));
        for def in enclosing {
            let lines: Vec<[usize; 2]> =
                self.file.iter().filter(|file_def| file_def.path == def.path).map(|file_def| file_def.lines).collect();
            if !lines.is_empty() {
                return Some(Candidates { path: def.path.clone(), lines, ends_chunk: def.lines[1] == b });
            }
        }
        None
    }
}

/// The file definitions of the name path a chunk sits in.
struct Candidates {
    /// The name path.
    path: String,
    /// The 1-based first and last file line of each definition of it.
    lines: Vec<[usize; 2]>,
    /// Whether the snippet's definition ends with the chunk's last line.
    ends_chunk: bool,
}

/// The file definition a chunk is aligned within.
struct Scope {
    /// Its name path.
    path: String,
    /// Its 1-based first and last file line.
    lines: [usize; 2],
    /// Whether the snippet's definition ends with the chunk's last line.
    ends_chunk: bool,
}

/// The lines of a text, with where each starts.
struct Lines<'t> {
    lines: Vec<&'t str>,
    starts: Vec<usize>,
    len: usize,
    trailing_newline: bool,
}

impl<'t> Lines<'t> {
    fn new(text: &'t str) -> Self {
        let body = text.strip_suffix('\n').unwrap_or(text);
        let mut lines = Vec::new();
        let mut starts = Vec::new();
        if !text.is_empty() {
            let mut at = 0;
            for line in body.split('\n') {
                starts.push(at);
                lines.push(line);
                at += line.len() + 1;
            }
        }
        Lines { lines, starts, len: text.len(), trailing_newline: text.ends_with('\n') }
    }

    /// Byte offset where line `idx` starts (the text's end past the last line).
    fn start(&self, idx: usize) -> usize {
        self.starts.get(idx).copied().unwrap_or(self.len)
    }
}

/// A line's alignment key: its words, whitespace runs as one space (blank lines: empty).
fn key(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    for word in line.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

struct Chunk<'s> {
    /// 0-based snippet line of its first line.
    first: usize,
    lines: Vec<&'s str>,
}

struct Parsed<'s> {
    chunks: Vec<Chunk<'s>>,
    /// 0-based snippet line of each marker, with how many chunks come before it.
    markers: Vec<(usize, usize)>,
}

fn parse<'s>(snippet: &'s str, comments: &[Comment]) -> Parsed<'s> {
    let body = snippet.strip_suffix('\n').unwrap_or(snippet);
    let mut chunks = Vec::new();
    let mut markers = Vec::new();
    let mut current: Vec<(usize, &str)> = Vec::new();
    let flush = |current: &mut Vec<(usize, &'s str)>, chunks: &mut Vec<Chunk<'s>>| {
        // Blank lines next to a marker or at the snippet's ends belong to no change.
        while current.last().is_some_and(|(_, line)| line.trim().is_empty()) {
            current.pop();
        }
        let first_code = current.iter().position(|(_, line)| !line.trim().is_empty());
        if let Some(first_code) = first_code {
            let first = current[first_code].0;
            chunks.push(Chunk { first, lines: current[first_code..].iter().map(|(_, line)| *line).collect() });
        }
        current.clear();
    };
    for (idx, line) in body.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if is_marker(line, comments) {
            flush(&mut current, &mut chunks);
            markers.push((idx, chunks.len()));
        } else {
            current.push((idx, line));
        }
    }
    flush(&mut current, &mut chunks);
    Parsed { chunks, markers }
}

/// One alignment of a chunk: its (chunk line, file line) pairs in order, with how many file
/// lines of code it skips between them.
struct Alignment {
    pairs: Vec<(usize, usize)>,
    skipped: usize,
}

impl Alignment {
    /// More aligned lines first, then fewer skipped lines.
    fn rank(&self) -> (usize, std::cmp::Reverse<usize>) {
        (self.pairs.len(), std::cmp::Reverse(self.skipped))
    }
}

/// The best alignment of `chunk` with the file lines `lo..hi`: the most chunk lines of code
/// aligned, in order, with the fewest lines of code skipped between them; `None` when no line
/// aligns. Ties go to the earliest.
fn align(chunk: &[String], file: &[String], lo: usize, hi: usize) -> Option<Alignment> {
    let n = chunk.len();
    let m = hi.saturating_sub(lo);
    if n == 0 || m == 0 {
        return None;
    }
    // Scores: each aligned line weighs more than every skip the window can hold, so more
    // aligned lines always win and fewer skips break ties.
    let weight = m as i64 + 1;
    const NONE: i64 = i64::MIN / 4;
    // G[i][j]: the best alignment of chunk[..i] with file[..j] ending at or before (i, j), minus
    // the code lines skipped after its last pair. M: one ending exactly at pair (i-1, j-1).
    let width = m + 1;
    let mut g_prev = vec![NONE; width];
    let mut g_row = vec![NONE; width];
    // Traceback: per cell, G's source (0: M, 1: up, 2: left, 3: none) and whether M started.
    let mut trace = vec![0u8; (n + 1) * width];
    let mut best: Option<(i64, usize, usize)> = None;
    for i in 1..=n {
        g_row[0] = NONE;
        let code = !chunk[i - 1].is_empty();
        for j in 1..=m {
            let f = &file[lo + j - 1];
            let mut m_score = NONE;
            let mut fresh = false;
            if code && *f == chunk[i - 1] {
                let before = g_prev[j - 1];
                if before > 0 {
                    m_score = weight + before;
                } else {
                    m_score = weight;
                    fresh = true;
                }
                if best.is_none_or(|(score, _, _)| m_score > score) {
                    best = Some((m_score, i, j));
                }
            }
            let skip = i64::from(!f.is_empty());
            let up = g_prev[j];
            let left = if g_row[j - 1] == NONE { NONE } else { g_row[j - 1] - skip };
            let (value, source) = if m_score != NONE && m_score >= up && m_score >= left {
                (m_score, 0)
            } else if left >= up && left != NONE {
                (left, 2)
            } else if up != NONE {
                (up, 1)
            } else {
                (NONE, 3)
            };
            g_row[j] = value;
            trace[i * width + j] = source | (u8::from(fresh) << 2);
        }
        std::mem::swap(&mut g_prev, &mut g_row);
    }
    let (score, mut i, mut j) = best?;
    // Walk back from the best pair.
    let mut pairs = Vec::new();
    let mut at_match = true;
    loop {
        let cell = trace[i * width + j];
        if at_match {
            pairs.push((i - 1, lo + j - 1));
            if cell & 4 != 0 {
                break;
            }
            i -= 1;
            j -= 1;
            at_match = false;
            continue;
        }
        match cell & 3 {
            0 => at_match = true,
            1 => i -= 1,
            2 => j -= 1,
            _ => break,
        }
        if i == 0 || j == 0 {
            break;
        }
    }
    pairs.reverse();
    // Lines of punctuation alone (`}`, `);`) stand in too many places to place a chunk.
    if !pairs.iter().any(|&(c, _)| chunk[c].chars().any(char::is_alphanumeric)) {
        return None;
    }
    let aligned = pairs.len() as i64;
    let skipped = usize::try_from(aligned * weight - score).unwrap_or(0);
    Some(Alignment { pairs, skipped })
}

/// How similar (normalised Levenshtein of the keys) a new line at a chunk's edge and the file
/// line beyond it may be before the line could be a change of it.
pub const EDGE_SIMILARITY: f64 = 0.5;

/// Whether a new line could be a change of `old`: similar text, or the same first word
/// (`return`, `main`, `import`, a name being assigned).
fn resembles(new: &str, old: &str) -> bool {
    let first_word = |line: &str| {
        let word: String = line.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        (!word.is_empty()).then_some(word)
    };
    strsim::normalized_levenshtein(&key(new), &key(old)) >= EDGE_SIMILARITY
        || first_word(new).is_some_and(|word| first_word(old) == Some(word))
}

struct Placed {
    chunk: usize,
    pairs: Vec<(usize, usize)>,
    /// The file definition it was aligned within.
    definition: Option<String>,
}

/// `line` moved from the indentation of the chunk's line `from` to that of the file's line
/// `to` (the aligned pair nearest it), as an edit re-indents its new text.
fn reindent(line: &str, from: &str, to: &str) -> String {
    if line.trim().is_empty() {
        return String::new();
    }
    let indent_of = |text: &str| text.len() - text.trim_start().len();
    let (from_indent, to_indent) = (&from[..indent_of(from)], &to[..indent_of(to)]);
    if from_indent == to_indent {
        return line.to_owned();
    }
    let own = &line[..indent_of(line)];
    if let Some(rest) = own.strip_prefix(from_indent) {
        // Deeper than its anchor: the extra indentation in the file's unit when the file
        // indents with tabs and the snippet with spaces.
        let rest = if to_indent.contains('\t') && !rest.contains('\t') && !from_indent.contains('\t') {
            let unit = from_indent.len().clamp(1, 4);
            "\t".repeat(rest.len().div_ceil(unit))
        } else {
            rest.to_owned()
        };
        return format!("{to_indent}{rest}{}", line.trim_start());
    }
    if let Some(less) = from_indent.len().checked_sub(own.len())
        && from_indent.starts_with(own)
    {
        let kept = to_indent.len().saturating_sub(less);
        if let Some(indent) = to_indent.get(..kept) {
            return format!("{indent}{}", line.trim_start());
        }
    }
    line.to_owned()
}

fn build(
    text: &str,
    file: &Lines<'_>,
    parsed: &Parsed<'_>,
    placed: &[Placed],
    allow_deletions: bool,
) -> Result<Merged, Error> {
    // Line edits: (first file line, end file line, new lines), in file order.
    let mut edits: Vec<(usize, usize, Vec<String>)> = Vec::new();
    let mut chunks = Vec::with_capacity(placed.len());
    for place in placed {
        let chunk = &parsed.chunks[place.chunk];
        let number = place.chunk + 1;
        let snippet_lines = [chunk.first + 1, chunk.first + chunk.lines.len()];
        let (mut inserted, mut removed) = (0, 0);
        let pairs = &place.pairs;
        let (first_c, first_f) = pairs[0];
        let (last_c, last_f) = pairs[pairs.len() - 1];
        // A new line at an edge that resembles the file's line beyond the span may be meant to
        // replace it: refused rather than guessed.
        let code = |line: &&str| !line.trim().is_empty();
        let edges = [
            (chunk.lines[..first_c].iter().rposition(code), file.lines[..first_f].iter().rposition(code)),
            (
                chunk.lines[last_c + 1..].iter().position(code).map(|at| last_c + 1 + at),
                file.lines[last_f + 1..].iter().position(code).map(|at| last_f + 1 + at),
            ),
        ];
        for (new_line, file_line) in edges {
            if let (Some(new_idx), Some(file_idx)) = (new_line, file_line)
                && let (Some(new), Some(old)) = (chunk.lines.get(new_idx), file.lines.get(file_idx))
                && resembles(new, old)
            {
                return Err(Error::Edge { chunk: number, snippet_line: chunk.first + new_idx + 1, line: file_idx + 1 });
            }
        }
        // Chunk lines before its first aligned line go in just before it.
        if first_c > 0 {
            let new: Vec<String> =
                chunk.lines[..first_c].iter().map(|l| reindent(l, chunk.lines[first_c], file.lines[first_f])).collect();
            inserted += new.len();
            edits.push((first_f, first_f, new));
        }
        for pair in pairs.windows(2) {
            let [(ca, fa), (cb, fb)] = [pair[0], pair[1]];
            let gap_chunk = &chunk.lines[ca + 1..cb];
            let gap_file = &file.lines[fa + 1..fb];
            let code = |lines: &[&str]| lines.iter().filter(|l| !l.trim().is_empty()).count();
            let (code_chunk, code_file) = (code(gap_chunk), code(gap_file));
            if code_chunk == 0 && code_file == 0 {
                // Blank lines only: the file's stay.
                continue;
            }
            if code_file > code_chunk && !allow_deletions {
                return Err(Error::Unaligned {
                    chunk: number,
                    snippet_lines,
                    lines: [fa + 2, fb],
                    deleted: code_file - code_chunk,
                });
            }
            let new: Vec<String> = gap_chunk.iter().map(|l| reindent(l, chunk.lines[ca], file.lines[fa])).collect();
            if new.iter().map(String::as_str).eq(gap_file.iter().copied()) {
                continue;
            }
            inserted += code_chunk;
            removed += code_file;
            edits.push((fa + 1, fb, new));
        }
        // Chunk lines after its last aligned line go in just after it.
        if last_c + 1 < chunk.lines.len() {
            let new: Vec<String> = chunk.lines[last_c + 1..]
                .iter()
                .map(|l| reindent(l, chunk.lines[last_c], file.lines[last_f]))
                .collect();
            inserted += new.len();
            edits.push((last_f + 1, last_f + 1, new));
        }
        chunks.push(ChunkPlacement {
            snippet_lines,
            lines: [first_f + 1, last_f + 1],
            aligned: pairs.len(),
            inserted,
            removed,
            alignment: if place.definition.is_some() { AlignedBy::Syntax } else { AlignedBy::Lines },
            definition: place.definition.clone(),
        });
    }
    if edits.is_empty() {
        return Err(Error::NoChange);
    }
    let markers = parsed
        .markers
        .iter()
        .map(|&(snippet_line, before)| {
            // The file lines between the chunk before the marker and the chunk after it.
            let from = if before == 0 { 0 } else { chunks[before - 1].lines[1] };
            let to = chunks.get(before).map_or(file.lines.len(), |chunk| chunk.lines[0] - 1);
            MarkerKept { snippet_line: snippet_line + 1, kept: (to > from).then_some([from + 1, to]) }
        })
        .collect();
    // Line edits as byte edits of the text.
    let mut byte_edits: Vec<(Range<usize>, String)> = Vec::with_capacity(edits.len());
    for (first, end, new) in edits {
        let (start, stop) = (file.start(first), file.start(end));
        let mut piece = String::new();
        if end == file.lines.len() && !file.trailing_newline {
            // The last line has no line end: what follows it gets one before it, and the file
            // keeps ending without one.
            if first == end {
                piece.push('\n');
                piece.push_str(&new.join("\n"));
            } else {
                piece.push_str(&new.join("\n"));
                if new.is_empty() && start > 0 {
                    // Deleting through the last line: the line end before it goes too.
                    byte_edits.push((start - 1..stop, String::new()));
                    continue;
                }
            }
        } else {
            for line in &new {
                piece.push_str(line);
                piece.push('\n');
            }
        }
        byte_edits.push((start..stop, piece));
    }
    let mut merged = String::with_capacity(text.len());
    let mut at = 0;
    for (range, piece) in &byte_edits {
        merged.push_str(&text[at..range.start]);
        merged.push_str(piece);
        at = range.end;
    }
    merged.push_str(&text[at..]);
    if merged == text {
        return Err(Error::NoChange);
    }
    Ok(Merged { text: merged, edits: byte_edits, chunks, markers })
}

#[cfg(test)]
mod tests;
