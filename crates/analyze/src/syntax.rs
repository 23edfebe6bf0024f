//! Syntax check: tree-sitter for code, serde_json for JSON.

use std::ops::Range;

use serde::Serialize;
use tree_sitter::Node;

use crate::parse::{LineIndex, Parsed};
use crate::syntax_error::SyntaxError;
use crate::{Error, FileKind};

/// At most this many errors are reported; the rest are usually follow-on errors.
const MAX_ERRORS: usize = 50;

/// The longest excerpt of source quoted in a message, in characters.
const MAX_QUOTE_CHARS: usize = 40;

/// The result of a syntax check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyntaxReport {
    /// `true` when the parser found no error.
    pub valid: bool,
    /// The errors, in source order (at most 50).
    pub errors: Vec<SyntaxError>,
}

/// Checks the syntax of `source` as a file of `kind`.
///
/// Python, TypeScript, TSX, JavaScript and JSX go through tree-sitter: an `ERROR` node becomes
/// "unexpected `token` after `previous`", a `MISSING` node "missing `token` after `previous`".
/// JSON goes through serde_json. Markdown and plain text have no syntax errors.
///
/// ```
/// use editkit_analyze::{check_syntax, FileKind};
/// let report = check_syntax(FileKind::Python, "def f(:\n    pass\n")?;
/// assert!(!report.valid);
/// assert_eq!(report.errors[0].line, 1);
/// # Ok::<(), editkit_analyze::Error>(())
/// ```
///
/// # Errors
/// [`Error::TooLarge`] and [`Error::Timeout`]
/// when the input exceeds the parse limits.
pub fn check_syntax(kind: FileKind, source: &str) -> Result<SyntaxReport, Error> {
    match kind {
        FileKind::Json => Ok(check_json(source)),
        FileKind::Markdown | FileKind::Text => Ok(SyntaxReport { valid: true, errors: Vec::new() }),
        _ => {
            let parsed = Parsed::new(kind, source, "syntax check")?;
            Ok(tree_errors(&parsed))
        }
    }
}

fn check_json(source: &str) -> SyntaxReport {
    let text = source.strip_prefix('\u{feff}').unwrap_or(source);
    match serde_json::from_str::<serde::de::IgnoredAny>(text) {
        Ok(_) => SyntaxReport { valid: true, errors: Vec::new() },
        Err(error) => {
            let full = error.to_string();
            // serde_json appends " at line L column C"; the position has its own fields.
            let message = match full.rfind(" at line ") {
                Some(at) => full.get(..at).unwrap_or(&full).to_owned(),
                None => full,
            };
            let line = error.line().max(1);
            let column = error.column().max(1);
            SyntaxReport {
                valid: false,
                errors: vec![SyntaxError {
                    line,
                    column,
                    end_line: line,
                    end_column: column + 1,
                    message: format!("invalid JSON: {message}"),
                }],
            }
        }
    }
}

/// Collects `ERROR` and `MISSING` nodes of a parsed tree, and (Python) empty blocks, as errors.
pub(crate) fn tree_errors(parsed: &Parsed<'_>) -> SyntaxReport {
    tree_errors_after(parsed, 0)
}

/// [`tree_errors`] of a part of a file cut at a line start after its first `before` lines:
/// lines, in positions and in messages, are the file's.
pub(crate) fn tree_errors_after(parsed: &Parsed<'_>, before: usize) -> SyntaxReport {
    let blocks = if parsed.kind == FileKind::Python { empty_blocks(parsed, None) } else { Vec::new() };
    report_after(parsed, &blocks, before)
}

/// The report of a parsed tree whose empty blocks (Python) are already known.
pub(crate) fn report(parsed: &Parsed<'_>, blocks: &[EmptyBlock]) -> SyntaxReport {
    report_after(parsed, blocks, 0)
}

fn report_after(parsed: &Parsed<'_>, blocks: &[EmptyBlock], before: usize) -> SyntaxReport {
    let root = parsed.tree.root_node();
    if !root.has_error() && blocks.is_empty() {
        return SyntaxReport { valid: true, errors: Vec::new() };
    }
    let index = LineIndex::after(parsed.source, before);
    let mut errors: Vec<SyntaxError> = blocks.iter().map(|block| block.error(parsed, &index)).collect();
    if !root.has_error() {
        errors.sort_by_key(|error| (error.line, error.column));
        errors.truncate(MAX_ERRORS);
        return SyntaxReport { valid: errors.is_empty(), errors };
    }
    let mut cursor = root.walk();
    let mut descend = true;
    loop {
        let node = cursor.node();
        let mut visit_children = descend && node.has_error();
        if descend && (node.is_error() || node.is_missing()) {
            if errors.len() < MAX_ERRORS + blocks.len() {
                errors.push(describe(parsed, &index, node));
            }
            visit_children = false;
        }
        if visit_children && cursor.goto_first_child() {
            descend = true;
            continue;
        }
        if cursor.goto_next_sibling() {
            descend = true;
            continue;
        }
        // Climb until a node has a next sibling; stop at the root.
        loop {
            if !cursor.goto_parent() {
                let mut errors = finish(errors, parsed, &index);
                errors.sort_by_key(|error| (error.line, error.column));
                errors.truncate(MAX_ERRORS);
                return SyntaxReport { valid: false, errors };
            }
            if cursor.goto_next_sibling() {
                break;
            }
        }
        descend = true;
    }
}

/// An error-bearing tree with no ERROR/MISSING node found still reports one error.
fn finish(mut errors: Vec<SyntaxError>, parsed: &Parsed<'_>, index: &LineIndex<'_>) -> Vec<SyntaxError> {
    if errors.is_empty() {
        let (line, column) = index.position(parsed.source.len());
        errors.push(SyntaxError {
            line,
            column,
            end_line: line,
            end_column: column,
            message: "the parser could not make sense of the file".to_owned(),
        });
    }
    errors
}

fn describe(parsed: &Parsed<'_>, index: &LineIndex<'_>, node: Node<'_>) -> SyntaxError {
    let range = parsed.range(node);
    let (line, column) = index.position(range.start);
    let (end_line, end_column) = index.position(range.end);
    let after = previous_leaf(node)
        .map(|previous| format!(" after {}", quote(parsed.text(previous))))
        .unwrap_or_else(|| " at the start of the file".to_owned());
    let message = if node.is_missing() {
        let what = node.kind();
        let what = if what.chars().all(|c| c.is_alphanumeric() || c == '_') && node.is_named() {
            what.replace('_', " ")
        } else {
            format!("`{what}`")
        };
        format!("missing {what}{after}")
    } else {
        let text = parsed.text(node);
        if text.trim().is_empty() {
            format!("unexpected end of input{after}")
        } else {
            let first_token = first_leaf(node).map_or(text, |leaf| parsed.text(leaf));
            let first_token = if first_token.trim().is_empty() { text } else { first_token };
            let last_line = index.line(range.end.saturating_sub(1).max(range.start));
            if last_line > line {
                // Error recovery swallowed several lines: the fault is somewhere inside them.
                format!(
                    "cannot parse lines {line}-{last_line}, starting with {}{after}; look there for an unclosed bracket or string, a missing separator or bad indentation",
                    quote(first_token)
                )
            } else if node.child_count() > 1 {
                format!("cannot parse {}{after}", quote(text))
            } else {
                format!("unexpected {}{after}", quote(first_token))
            }
        }
    };
    SyntaxError { line, column, end_line, end_column, message }
}

/// Most empty blocks collected from one tree; past it the rest go unreported (the first
/// [`MAX_ERRORS`] errors are all a report shows).
const MAX_EMPTY_BLOCKS: usize = 10_000;

/// A Python compound statement whose body is an empty `block`: tree-sitter-python accepts
/// `def f():` followed by a dedented line, which Python rejects. Offsets are the tree's (a
/// skipped BOM not counted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EmptyBlock {
    /// Where the block starts.
    pub(crate) at: usize,
    /// The statement that owns it (the quoted header), or the block itself at the top.
    pub(crate) owner: Range<usize>,
}

impl EmptyBlock {
    fn error(&self, parsed: &Parsed<'_>, index: &LineIndex<'_>) -> SyntaxError {
        let base = parsed.base();
        let header = parsed.source.get(self.owner.start + base..self.owner.end + base).unwrap_or("");
        let (line, column) = index.position(self.at + base);
        SyntaxError {
            line,
            column,
            end_line: line,
            end_column: column,
            message: format!("expected an indented block after {}", quote(header)),
        }
    }
}

/// The Python nodes that can hold a `block`, themselves or in a child (the grammar's
/// node types): the module, the compound statements and their clauses, a decorated
/// definition and a block.
const HOLD_BLOCKS: [&str; 16] = [
    "module",
    "block",
    "decorated_definition",
    "class_definition",
    "function_definition",
    "if_statement",
    "elif_clause",
    "else_clause",
    "for_statement",
    "while_statement",
    "try_statement",
    "except_clause",
    "finally_clause",
    "with_statement",
    "match_statement",
    "case_clause",
];

/// The empty blocks of a Python tree. With `dirty` (tree byte ranges), only statements
/// overlapping one are looked into: the blocks found are those whose owner overlaps a range.
pub(crate) fn empty_blocks(parsed: &Parsed<'_>, dirty: Option<&[Range<usize>]>) -> Vec<EmptyBlock> {
    // A kind's id is found by comparing names with every symbol's: once, not per tree.
    static IDS: std::sync::OnceLock<(u16, u16, Vec<u16>)> = std::sync::OnceLock::new();
    let ids = || {
        let language = parsed.tree.language();
        let id = |kind: &str| language.id_for_node_kind(kind, true);
        (id("block"), id("comment"), HOLD_BLOCKS.iter().map(|kind| id(kind)).collect())
    };
    let computed;
    let (block, comment, holders) = if parsed.kind == FileKind::Python {
        IDS.get_or_init(ids)
    } else {
        computed = ids();
        &computed
    };
    let (block, comment) = (*block, *comment);
    // A block stands only in the nodes that can hold one, or in a part the parser recovered
    // from an error: expressions, most of a tree, are not looked into.
    let may_hold = |node: Node<'_>| node.has_error() || holders.contains(&node.kind_id());
    let overlaps = |node: Node<'_>| {
        dirty.is_none_or(|ranges| {
            ranges.iter().any(|range| node.start_byte() <= range.end && range.start <= node.end_byte())
        })
    };
    let mut found = Vec::new();
    let mut cursor = parsed.tree.walk();
    let mut inner = parsed.tree.walk();
    'walk: loop {
        let node = cursor.node();
        if node.kind_id() == block && !node.is_error() && found.len() < MAX_EMPTY_BLOCKS {
            inner.reset(node);
            let empty = node.named_children(&mut inner).all(|child| child.kind_id() == comment);
            if empty {
                let owner = node.parent().unwrap_or(node);
                found.push(EmptyBlock { at: node.start_byte(), owner: owner.start_byte()..owner.end_byte() });
            }
        }
        // A node is looked into only when it overlaps a dirty range; its children are all
        // checked, so a block whose owner overlaps is found even when the block does not.
        if may_hold(node) && overlaps(node) && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    found.sort_by_key(|block| block.at);
    found.dedup_by_key(|block| block.at);
    found
}

fn first_leaf(node: Node<'_>) -> Option<Node<'_>> {
    let mut current = node.child(0)?;
    while let Some(child) = current.child(0) {
        current = child;
    }
    Some(current)
}

/// The last leaf before `node` that has text, for "after `...`" in messages.
fn previous_leaf(node: Node<'_>) -> Option<Node<'_>> {
    let mut current = node;
    loop {
        if let Some(mut previous) = current.prev_sibling() {
            while let Some(last) = previous.child_count().checked_sub(1).and_then(|at| previous.child(at)) {
                previous = last;
            }
            if previous.end_byte() > previous.start_byte() {
                return Some(previous);
            }
            current = previous;
        } else {
            current = current.parent()?;
        }
    }
}

fn quote(text: &str) -> String {
    let line = text.trim().lines().next().unwrap_or("");
    let mut shown: String = line.chars().take(MAX_QUOTE_CHARS).collect();
    if line.chars().count() > MAX_QUOTE_CHARS || text.trim().lines().nth(1).is_some() {
        shown.push('…');
    }
    format!("`{}`", shown.replace('`', "'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk for empty blocks looks only into [`HOLD_BLOCKS`] and parts with an error: every
    /// block of the corpus, whole and with lines cut out (which leaves error nodes and empty
    /// blocks), has only such nodes around it.
    #[test]
    fn every_block_stands_in_a_node_the_walk_looks_into() {
        let mut blocks = 0;
        for path in crate::python_corpus() {
            let source = std::fs::read_to_string(&path).unwrap();
            let lines: Vec<&str> = source.split_inclusive('\n').collect();
            let cuts = (0..lines.len()).step_by(lines.len() / 12 + 1);
            let texts = std::iter::once(source.clone()).chain(cuts.map(|cut| {
                lines.iter().enumerate().filter(|&(at, _)| at != cut && at != cut + 1).map(|(_, line)| *line).collect()
            }));
            for text in texts {
                let parsed = Parsed::new(FileKind::Python, &text, "test").unwrap();
                let mut cursor = parsed.tree.walk();
                'walk: loop {
                    let node = cursor.node();
                    if node.kind() == "block" {
                        blocks += 1;
                        let mut around = node.parent();
                        while let Some(parent) = around {
                            assert!(
                                parent.has_error() || HOLD_BLOCKS.contains(&parent.kind()),
                                "{}: a block in `{}`",
                                path.display(),
                                parent.kind()
                            );
                            around = parent.parent();
                        }
                    }
                    if cursor.goto_first_child() {
                        continue;
                    }
                    while !cursor.goto_next_sibling() {
                        if !cursor.goto_parent() {
                            break 'walk;
                        }
                    }
                }
            }
        }
        assert!(blocks > 1000, "{blocks} blocks");
    }
}
