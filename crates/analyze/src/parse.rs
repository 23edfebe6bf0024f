//! Bounded tree-sitter parsing shared by the syntax check, symbols and replacement.

use std::ops::{ControlFlow, Range};
use std::time::{Duration, Instant};

use tree_sitter::{InputEdit, Language, Node, ParseOptions, Parser, Point, Tree};

use crate::{Error, FileKind};

/// The largest input parsed, in bytes; larger sources give [`Error::TooLarge`].
pub const MAX_PARSE_BYTES: usize = 16 * 1024 * 1024;

/// The most tokens parsed, counted roughly before parsing (a run of word characters, each
/// other visible character, each line end); more give [`Error::TooManyTokens`]. A syntax tree
/// holds up to a few hundred bytes per token: a 4 MiB file of one-letter lines, 4 Mi tokens,
/// took 1.2 GB to parse, while code of this many tokens is some 5 MiB.
pub const MAX_PARSE_TOKENS: usize = 1 << 20;

/// The tokens of `text` as [`MAX_PARSE_TOKENS`] counts them, stopping past `limit`.
fn count_tokens(text: &[u8], limit: usize) -> usize {
    let mut tokens = 0;
    let mut in_word = false;
    for &byte in text {
        let word = byte.is_ascii_alphanumeric() || byte == b'_' || byte >= 0x80;
        if word {
            if !in_word {
                tokens += 1;
            }
        } else if byte == b'\n' || !byte.is_ascii_whitespace() {
            tokens += 1;
        }
        in_word = word;
        if tokens > limit {
            break;
        }
    }
    tokens
}

/// The longest a single parse may take before it is abandoned with [`Error::Timeout`].
pub const PARSE_TIME_LIMIT: Duration = Duration::from_secs(5);

/// Parsers kept per thread for the next parse of their language: a check of a patch parses
/// hundreds of short parts, and a new parser's buffers cost as much as a short parse.
const KEPT_PARSERS: usize = 4;

/// A parser that parsed more than this many bytes is dropped rather than kept, with the
/// buffers that parse grew.
const KEPT_PARSER_BYTES: usize = 1 << 20;

thread_local! {
    static PARSERS: std::cell::RefCell<Vec<(FileKind, Parser)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A parser for `kind` with no parse under way: one this thread kept, or a new one.
fn take_parser(kind: FileKind, language: &Language) -> Parser {
    let kept = PARSERS.with(|parsers| {
        let mut parsers = parsers.try_borrow_mut().ok()?;
        let at = parsers.iter().position(|(kept, _)| *kept == kind)?;
        Some(parsers.swap_remove(at).1)
    });
    kept.unwrap_or_else(|| {
        let mut parser = Parser::new();
        parser.set_language(language).expect("bundled grammars match the tree-sitter ABI they were built for");
        parser
    })
}

/// Keeps `parser`, which parsed `parsed` bytes, for this thread's next parse of `kind`; reset
/// first, so that a parse stopped at the time limit is not resumed on another text.
fn keep_parser(kind: FileKind, mut parser: Parser, parsed: usize) {
    if parsed > KEPT_PARSER_BYTES {
        return;
    }
    parser.reset();
    PARSERS.with(|parsers| {
        if let Ok(mut parsers) = parsers.try_borrow_mut()
            && parsers.len() < KEPT_PARSERS
        {
            parsers.push((kind, parser));
        }
    });
}

/// Which grammar parses a kind; `None` for kinds without one.
pub(crate) fn language(kind: FileKind) -> Option<Language> {
    let language = match kind {
        FileKind::Python => tree_sitter_python::LANGUAGE.into(),
        FileKind::Typescript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        FileKind::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        FileKind::Javascript | FileKind::Jsx => tree_sitter_javascript::LANGUAGE.into(),
        FileKind::Markdown | FileKind::Json | FileKind::Text => return None,
    };
    Some(language)
}

/// A tree over `source`, whose byte offsets are shifted by the length of a skipped UTF-8 BOM.
pub(crate) struct Parsed<'s> {
    pub(crate) kind: FileKind,
    pub(crate) source: &'s str,
    pub(crate) tree: Tree,
    /// Bytes skipped at the start (a UTF-8 byte-order mark), added to every node offset.
    base: usize,
}

impl<'s> Parsed<'s> {
    /// Parses `source` with the grammar of `kind`, within the size and time limits.
    pub(crate) fn new(kind: FileKind, source: &'s str, operation: &'static str) -> Result<Self, Error> {
        Self::reparse(kind, source, operation, None)
    }

    /// A tree parsed earlier from `source`.
    pub(crate) fn adopt(kind: FileKind, source: &'s str, tree: Tree) -> Self {
        Parsed { kind, source, tree, base: bom_len(source) }
    }

    /// Parses `source`, reusing the unchanged parts of `old`, a tree of the previous text
    /// already adjusted with [`Parsed::edited_tree`].
    pub(crate) fn reparse(
        kind: FileKind,
        source: &'s str,
        operation: &'static str,
        old: Option<&Tree>,
    ) -> Result<Self, Error> {
        let language = language(kind).ok_or(Error::Unsupported { operation, kind })?;
        if source.len() > MAX_PARSE_BYTES {
            return Err(Error::TooLarge { len: source.len(), limit: MAX_PARSE_BYTES });
        }
        let base = bom_len(source);
        let text = source.get(base..).unwrap_or(source).as_bytes();
        let tokens = count_tokens(text, MAX_PARSE_TOKENS);
        if tokens > MAX_PARSE_TOKENS {
            return Err(Error::TooManyTokens { limit: MAX_PARSE_TOKENS });
        }
        let mut parser = take_parser(kind, &language);
        let started = Instant::now();
        let mut timed_out = false;
        let mut progress = |_: &tree_sitter::ParseState| {
            if started.elapsed() > PARSE_TIME_LIMIT {
                timed_out = true;
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let mut read = |offset: usize, _: Point| text.get(offset..).unwrap_or(&[]);
        let tree =
            parser.parse_with_options(&mut read, old, Some(ParseOptions::new().progress_callback(&mut progress)));
        keep_parser(kind, parser, text.len());
        match tree {
            Some(tree) => Ok(Parsed { kind, source, tree, base }),
            None => Err(Error::Timeout { millis: u64::try_from(PARSE_TIME_LIMIT.as_millis()).unwrap_or(u64::MAX) }),
        }
    }

    /// A copy of the tree told that `replaced` of the source now holds `new_len` bytes of
    /// `new_source`, for [`Parsed::reparse`]. `None` when the edit touches a skipped BOM.
    pub(crate) fn edited_tree(&self, replaced: Range<usize>, new_source: &str, new_len: usize) -> Option<Tree> {
        let base = self.base;
        let start = replaced.start.checked_sub(base)?;
        let old_end = replaced.end.checked_sub(base)?;
        let new_end = start + new_len;
        let old_text = self.source.get(base..)?;
        let new_text = new_source.get(base..)?;
        let mut tree = self.tree.clone();
        tree.edit(&InputEdit {
            start_byte: start,
            old_end_byte: old_end,
            new_end_byte: new_end,
            start_position: point(old_text, start)?,
            old_end_position: point(old_text, old_end)?,
            new_end_position: point(new_text, new_end)?,
        });
        Some(tree)
    }

    /// Bytes skipped at the start of the source (a UTF-8 BOM): tree offset + base = source offset.
    pub(crate) fn base(&self) -> usize {
        self.base
    }

    /// The byte range of `node` in `source`.
    pub(crate) fn range(&self, node: Node<'_>) -> Range<usize> {
        node.start_byte() + self.base..node.end_byte() + self.base
    }

    /// The text of `node`, or `""` if its range is not on character boundaries.
    pub(crate) fn text(&self, node: Node<'_>) -> &'s str {
        self.source.get(self.range(node)).unwrap_or("")
    }
}

/// The length of a leading UTF-8 byte-order mark, skipped by the parser.
pub(crate) fn bom_len(source: &str) -> usize {
    if source.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 }
}

/// The tree-sitter position (0-based row, byte column) of `offset` in `text`.
fn point(text: &str, offset: usize) -> Option<Point> {
    let before = text.as_bytes().get(..offset)?;
    let row = before.iter().filter(|&&byte| byte == b'\n').count();
    let column = before.iter().rev().take_while(|&&byte| byte != b'\n').count();
    Some(Point { row, column })
}

/// Converts byte offsets to 1-based lines and columns (columns count characters).
pub(crate) struct LineIndex<'s> {
    source: &'s str,
    starts: Vec<usize>,
    /// Lines of the file before `source` (a part cut from a file at a line start).
    before: usize,
}

impl<'s> LineIndex<'s> {
    pub(crate) fn new(source: &'s str) -> Self {
        LineIndex::after(source, 0)
    }

    /// The index of `source`, a part of a file that starts after its first `before` lines:
    /// lines are the file's.
    pub(crate) fn after(source: &'s str, before: usize) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', source.as_bytes()).map(|at| at + 1));
        LineIndex { source, starts, before }
    }

    /// 1-based line of the byte at `offset`.
    pub(crate) fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&start| start <= offset).max(1) + self.before
    }

    /// Byte offset where the 1-based `line` starts.
    pub(crate) fn line_start(&self, line: usize) -> usize {
        let line = line.saturating_sub(self.before);
        self.starts.get(line.saturating_sub(1)).copied().unwrap_or(self.source.len())
    }

    /// 1-based line and 1-based character column of `offset`.
    pub(crate) fn position(&self, offset: usize) -> (usize, usize) {
        let line = self.line(offset);
        let start = self.line_start(line);
        let column = match self.source.get(start..offset) {
            Some(prefix) => prefix.chars().count(),
            None => offset.saturating_sub(start),
        };
        (line, column + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_and_count_characters() {
        let index = LineIndex::new("aé\nb\n\nc");
        assert_eq!(index.position(0), (1, 1));
        assert_eq!(index.position(3), (1, 3), "é is two bytes, one column");
        assert_eq!(index.position(4), (2, 1));
        assert_eq!(index.position(7), (4, 1));
        assert_eq!(index.position(2), (1, 3), "an offset inside é falls back to bytes");
        assert_eq!(index.line_start(3), 6);
        assert_eq!(index.line_start(99), 8);
    }

    #[test]
    fn bom_is_skipped_and_offsets_shifted() {
        let source = "\u{feff}def f(): pass\n";
        let parsed = Parsed::new(FileKind::Python, source, "test").unwrap();
        let root = parsed.tree.root_node();
        assert!(!root.has_error());
        assert_eq!(parsed.text(root.child(0).unwrap()), "def f(): pass");
    }

    #[test]
    fn kinds_without_grammar_are_unsupported() {
        let error = Parsed::new(FileKind::Json, "{}", "symbols").err().unwrap();
        assert_eq!(error.to_string().split(';').next(), Some("symbols is not supported for json files"));
    }
}
