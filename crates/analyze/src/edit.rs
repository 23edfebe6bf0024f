//! Symbol-scoped edits: `symbol_range` and `replace_function`.

use std::collections::BTreeSet;
use std::ops::Range;

use tree_sitter::Node;

use crate::parse::{LineIndex, Parsed};
use crate::symbols::{Definition, SymbolKind, definitions};
use crate::syntax::tree_errors;
use crate::{Error, FileKind};

/// The byte range of the symbol named by the dotted `path` (`func`, `Class.method`,
/// `Outer.Inner.method`), decorators included, so an edit can be confined to it.
///
/// A path matches a symbol whose full dotted path is equal to it; failing that, one whose full
/// path ends with `.path` (so `method` finds `Class.method` when it is the only one).
///
/// ```
/// use editkit_analyze::{symbol_range, FileKind};
/// let src = "class A:\n    def f(self):\n        return 1\n";
/// let range = symbol_range(FileKind::Python, src, "A.f")?;
/// assert_eq!(&src[range], "def f(self):\n        return 1");
/// # Ok::<(), editkit_analyze::Error>(())
/// ```
///
/// # Errors
/// [`Error::NotFound`] listing the available symbol paths, [`Error::Ambiguous`] with the lines
/// of every candidate, [`Error::InvalidArgs`] for an empty path or segment, and the parse errors
/// of [`crate::symbols`].
pub fn symbol_range(kind: FileKind, source: &str, path: &str) -> Result<Range<usize>, Error> {
    let parsed = Parsed::new(kind, source, "symbol_range")?;
    let found = definitions(kind, &parsed);
    let target = resolve(&found, path, None)?;
    Ok(target.decorated_span.clone())
}

/// Replaces the function, method or class named by the dotted `name` with
/// `new_implementation` and returns the new source.
///
/// The new implementation may be written at any indentation: it is re-indented to the
/// target's. Lines inside multi-line string literals (other than Python docstrings) and
/// whitespace-only lines are kept exactly as given, so string values never change. The target's
/// decorators are kept unless the new implementation starts with its own (`@...`); an `export`
/// is kept unless the new implementation starts with `export`. Line endings follow the file's.
///
/// ```
/// use editkit_analyze::{replace_function, FileKind};
/// let src = "class A:\n    @property\n    def f(self):\n        return 1\n";
/// let out = replace_function(FileKind::Python, src, "A.f", "def f(self):\n    return 2\n")?;
/// assert_eq!(out, "class A:\n    @property\n    def f(self):\n        return 2\n");
/// # Ok::<(), editkit_analyze::Error>(())
/// ```
///
/// # Errors
/// [`Error::NotFound`] (with the available names) when nothing matches, [`Error::Ambiguous`]
/// (with the lines) when several definitions do, such as overloads or redefinitions (a getter
/// and a setter of one property are told apart when the new implementation is one of them:
/// `get x`/`set x`, `@property`/`@x.setter`);
/// [`Error::SyntaxError`] (with positions in the result) when the result has more syntax errors
/// than `source`; [`Error::InvalidArgs`] for an empty name or implementation; the parse errors
/// of [`crate::symbols`]. On error nothing is returned, so nothing changes.
pub fn replace_function(kind: FileKind, source: &str, name: &str, new_implementation: &str) -> Result<String, Error> {
    replace_function_checked(kind, source, name, new_implementation, true)
}

/// [`replace_function`] with its syntax check of the result only when `check` is true: for a
/// caller that judges the result with its own parser (a CPython `ast.parse`).
///
/// # Errors
/// As [`replace_function`], without [`Error::SyntaxError`] when `check` is false.
pub fn replace_function_checked(
    kind: FileKind,
    source: &str,
    name: &str,
    new_implementation: &str,
    check: bool,
) -> Result<String, Error> {
    let parsed = Parsed::new(kind, source, "replace_function")?;
    let found = definitions(kind, &parsed);
    let implementation = trim_blank_edges(new_implementation);
    let hint = Accessor::of(kind, implementation).map(|accessor| (kind, source, accessor));
    let target = resolve(&found, name, hint)?;

    if implementation.trim().is_empty() {
        return Err(Error::InvalidArgs {
            argument: "new_implementation",
            reason: "is empty; pass the complete new definition".to_owned(),
        });
    }
    let head = implementation.trim_start();
    let brings_decorators = head.starts_with('@');
    let brings_export = kind != FileKind::Python && starts_with_word(head, "export");
    let mut span = if brings_decorators { target.decorated_span.clone() } else { target.span.clone() };
    if let Some(export) = target.export_span.as_ref().filter(|_| brings_export) {
        span = span.start.min(export.start)..span.end.max(export.end);
    }

    let line_start = source.get(..span.start).and_then(|before| before.rfind('\n')).map_or(0, |at| at + 1);
    let before_on_line = source.get(line_start..span.start).unwrap_or("");
    let indent_len = before_on_line.len() - before_on_line.trim_start_matches([' ', '\t']).len();
    let target_indent = before_on_line.get(..indent_len).unwrap_or("");

    let crlf = source.contains("\r\n");
    let wrap_in_class = target.symbol.kind == SymbolKind::Method;
    let replacement = reindent(kind, implementation, target_indent, wrap_in_class, crlf)?;

    let mut result = String::with_capacity(source.len() + replacement.len());
    result.push_str(source.get(..span.start).unwrap_or(""));
    result.push_str(&replacement);
    result.push_str(source.get(span.end..).unwrap_or(""));

    if !check {
        return Ok(result);
    }
    // Only the replaced span changed: let tree-sitter reuse the rest of the old tree.
    let old_tree = parsed.edited_tree(span.clone(), &result, replacement.len());
    let after = tree_errors(&Parsed::reparse(kind, &result, "replace_function", old_tree.as_ref())?);
    if !after.valid && after.errors.len() > tree_errors(&parsed).errors.len() {
        return Err(Error::SyntaxError { errors: after.errors });
    }
    Ok(result)
}

/// Finds the one definition named by `path`.
///
/// Several candidates that are the accessors of one property (a getter and a setter) are told
/// apart by `accessor`, the kind of accessor the new implementation defines, when given.
pub(crate) fn resolve<'d>(
    found: &'d [Definition],
    path: &str,
    accessor: Option<(FileKind, &str, Accessor)>,
) -> Result<&'d Definition, Error> {
    let path = path.trim();
    if path.is_empty() || path.split('.').any(|segment| segment.trim().is_empty()) {
        return Err(Error::InvalidArgs {
            argument: "name",
            reason: format!("`{path}` is not a symbol path; use `func`, `Class.method` or `Outer.Inner.method`"),
        });
    }
    let mut candidates: Vec<&Definition> = found.iter().filter(|definition| definition.symbol.path() == path).collect();
    if candidates.is_empty() {
        let suffix = format!(".{path}");
        candidates = found.iter().filter(|definition| definition.symbol.path().ends_with(&suffix)).collect();
    }
    if let Some((kind, source, wanted)) = accessor
        && candidates.len() > 1
    {
        let same: Vec<&Definition> = candidates
            .iter()
            .copied()
            .filter(|definition| {
                let text = source.get(definition.decorated_span.clone()).unwrap_or("");
                Accessor::of(kind, text) == Some(wanted)
            })
            .collect();
        if same.len() == 1 {
            candidates = same;
        }
    }
    match candidates.as_slice() {
        [one] => Ok(one),
        [] => {
            let available: BTreeSet<String> = found.iter().map(|definition| definition.symbol.path()).collect();
            Err(Error::NotFound { what: "symbol", name: path.to_owned(), available: available.into_iter().collect() })
        }
        many => Err(Error::Ambiguous {
            what: "symbol",
            name: path.to_owned(),
            lines: many.iter().map(|definition| definition.symbol.line).collect(),
        }),
    }
}

/// Which accessor of a property a definition is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Accessor {
    Get,
    Set,
    Delete,
}

impl Accessor {
    /// Python: `@property`, `@name.setter`, `@name.deleter`; TypeScript/JavaScript: `get name`,
    /// `set name` after decorators and modifiers.
    fn of(kind: FileKind, text: &str) -> Option<Accessor> {
        if kind == FileKind::Python {
            let decorators = text.lines().map(str::trim).take_while(|line| line.starts_with('@'));
            let mut found = None;
            for decorator in decorators {
                let decorator = decorator.split('(').next().unwrap_or(decorator).trim_end();
                if decorator == "@property" || decorator.ends_with(".getter") {
                    found = Some(Accessor::Get);
                } else if decorator.ends_with(".setter") {
                    found = Some(Accessor::Set);
                } else if decorator.ends_with(".deleter") {
                    found = Some(Accessor::Delete);
                }
            }
            return found;
        }
        const MODIFIERS: [&str; 9] =
            ["static", "public", "private", "protected", "readonly", "override", "abstract", "declare", "accessor"];
        let mut words = text.split_whitespace().skip_while(|word| word.starts_with('@') || MODIFIERS.contains(word));
        match words.next() {
            Some("get") => Some(Accessor::Get),
            Some("set") => Some(Accessor::Set),
            _ => None,
        }
    }
}

fn starts_with_word(text: &str, word: &str) -> bool {
    text.strip_prefix(word).is_some_and(|rest| rest.starts_with(|c: char| c.is_whitespace()))
}

/// Drops leading blank lines and trailing whitespace.
fn trim_blank_edges(text: &str) -> &str {
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        if !line.trim().is_empty() {
            break;
        }
        start += line.len();
    }
    text.get(start..).unwrap_or("").trim_end()
}

/// Re-indents `snippet` so its least-indented code line sits at `indent`, the first line
/// without indentation (it goes where the old definition started).
fn reindent(kind: FileKind, snippet: &str, indent: &str, wrap_in_class: bool, crlf: bool) -> Result<String, Error> {
    let snippet = snippet.replace("\r\n", "\n");
    let verbatim = string_lines(kind, &snippet, wrap_in_class)?;
    let lines: Vec<&str> = snippet.split('\n').collect();
    let is_code = |number: usize, line: &str| !line.trim().is_empty() && !verbatim.contains(&number);
    let base = lines
        .iter()
        .enumerate()
        .filter(|(number, line)| is_code(*number, line))
        .map(|(_, line)| line.get(..line.len() - line.trim_start_matches([' ', '\t']).len()).unwrap_or(""))
        .min_by_key(|whitespace| whitespace.len())
        .unwrap_or("");
    let newline = if crlf { "\r\n" } else { "\n" };
    let mut out = String::with_capacity(snippet.len() + lines.len() * indent.len());
    for (number, line) in lines.iter().enumerate() {
        if number == 0 {
            out.push_str(line.trim_start_matches([' ', '\t']));
            continue;
        }
        out.push_str(newline);
        match line.strip_prefix(base) {
            Some(rest) if is_code(number, line) => {
                out.push_str(indent);
                out.push_str(rest);
            }
            _ => out.push_str(line),
        }
    }
    Ok(out)
}

/// 0-based numbers of the lines of `snippet` that begin inside a multi-line string literal
/// (Python docstrings excepted: they move with the code).
fn string_lines(kind: FileKind, snippet: &str, wrap_in_class: bool) -> Result<BTreeSet<usize>, Error> {
    // Parse in a context where the snippet is valid: a method inside a class, an indented
    // Python definition inside a class body.
    let first_indented = snippet.starts_with([' ', '\t']);
    let (prefix, suffix) = match kind {
        FileKind::Python if first_indented || wrap_in_class => ("class _:\n", ""),
        FileKind::Python => ("", ""),
        _ if wrap_in_class => ("class _ {\n", "\n}"),
        _ => ("", ""),
    };
    let wrapped = format!("{prefix}{snippet}{suffix}");
    let parsed = Parsed::new(kind, &wrapped, "replace_function")?;
    let index = LineIndex::new(&wrapped);
    let skipped_lines = prefix.matches('\n').count();
    let mut lines = BTreeSet::new();
    let mut stack = vec![parsed.tree.root_node()];
    while let Some(node) = stack.pop() {
        let range = parsed.range(node);
        if index.line(range.start) == index.line(range.end) {
            continue;
        }
        if matches!(node.kind(), "string" | "template_string") && !is_docstring(kind, node) {
            let first = index.line(range.start) + 1;
            let last = index.line(range.end);
            for line in first..=last {
                if let Some(number) = (line - 1).checked_sub(skipped_lines)
                    && index.line_start(line) < range.end
                {
                    lines.insert(number);
                }
            }
            continue;
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    Ok(lines)
}

fn is_docstring(kind: FileKind, node: Node<'_>) -> bool {
    if kind != FileKind::Python {
        return false;
    }
    let Some(statement) = node.parent().filter(|parent| parent.kind() == "expression_statement") else {
        return false;
    };
    let Some(block) = statement.parent() else { return false };
    matches!(block.kind(), "block" | "module") && block.named_child(0).is_some_and(|first| first.id() == statement.id())
}
