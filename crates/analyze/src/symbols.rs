//! Symbols: functions, classes, methods and TypeScript declarations, with their spans.

use std::ops::Range;

use serde::Serialize;
use tree_sitter::Node;

use crate::parse::{LineIndex, Parsed};
use crate::{Error, FileKind};

/// What a symbol is.
///
/// Not `#[non_exhaustive]` on purpose: the facade maps every kind onto its contract's words in
/// one exhaustive `match`, so a kind added here fails to compile there until it has a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SymbolKind {
    /// A function (including a `const`/`let` bound to an arrow function or function
    /// expression, and a TypeScript overload signature).
    Function,
    /// An `async` function.
    AsyncFunction,
    /// A class.
    Class,
    /// A function defined directly in a class (including class fields holding arrow functions).
    Method,
    /// A TypeScript interface.
    Interface,
    /// A TypeScript type alias.
    TypeAlias,
    /// A TypeScript enum.
    Enum,
    /// A TypeScript namespace or ambient module.
    Namespace,
}

/// A named definition in a source file. Lines are 1-based.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Symbol {
    /// The name as written (`default` for an anonymous default export).
    pub name: String,
    /// What it is.
    pub kind: SymbolKind,
    /// The line of the `def`/`class`/`function` keyword (after any decorators).
    pub line: usize,
    /// The last line of the definition.
    pub end_line: usize,
    /// The dotted path of the enclosing class, function or namespace (`Outer.Inner`), if any.
    pub parent: Option<String>,
}

impl Symbol {
    /// The dotted path that names this symbol in [`crate::replace_function`] and
    /// [`crate::symbol_range`]: `parent.name`, or `name` at the top level.
    #[must_use]
    pub fn path(&self) -> String {
        match &self.parent {
            Some(parent) => format!("{parent}.{}", self.name),
            None => self.name.clone(),
        }
    }
}

/// A symbol with the byte spans that edits need.
#[derive(Debug, Clone)]
pub(crate) struct Definition {
    pub(crate) symbol: Symbol,
    /// The definition itself, without decorators or `export`.
    pub(crate) span: Range<usize>,
    /// The definition with its decorators (equal to `span` when it has none).
    pub(crate) decorated_span: Range<usize>,
    /// The whole `export` statement, when the definition is exported on its own.
    pub(crate) export_span: Option<Range<usize>>,
}

/// Lists the functions, classes, methods and (for TypeScript/JavaScript) interfaces, type
/// aliases, enums, namespaces and function-valued `const`/`let`/class fields of `source`, in
/// source order.
///
/// Python definitions are found at any depth (functions nested in functions too); for
/// TypeScript and JavaScript, declarations at module level, in namespaces and in class bodies.
///
/// ```
/// use editkit_analyze::{symbols, FileKind, SymbolKind};
/// let found = symbols(FileKind::Python, "class A:\n    @staticmethod\n    def f():\n        pass\n")?;
/// assert_eq!(found[1].name, "f");
/// assert_eq!(found[1].kind, SymbolKind::Method);
/// assert_eq!((found[1].line, found[1].parent.as_deref()), (3, Some("A")));
/// # Ok::<(), editkit_analyze::Error>(())
/// ```
///
/// # Errors
/// [`Error::Unsupported`] for kinds other than Python, TypeScript, TSX, JavaScript and JSX;
/// [`Error::TooLarge`] and [`Error::Timeout`] when the input exceeds the parse limits. Syntax
/// errors are not an error: symbols are reported from the parts that parse.
pub fn symbols(kind: FileKind, source: &str) -> Result<Vec<Symbol>, Error> {
    let parsed = Parsed::new(kind, source, "symbols")?;
    Ok(definitions(kind, &parsed).into_iter().map(|definition| definition.symbol).collect())
}

/// Where a definition is: the keyword that starts it, and its spans (see [`Definition`]).
struct Spans {
    keyword_start: usize,
    span: Range<usize>,
    decorated_span: Range<usize>,
    export_span: Option<Range<usize>>,
}

/// One pending node of the walk with the definition that encloses it.
struct Pending<'t> {
    node: Node<'t>,
    /// Index in the output of the enclosing definition.
    parent: Option<usize>,
}

pub(crate) fn definitions(kind: FileKind, parsed: &Parsed<'_>) -> Vec<Definition> {
    let index = LineIndex::new(parsed.source);
    let mut walker = Walker { parsed, index, found: Vec::new(), stack: Vec::new() };
    walker.stack.push(Pending { node: parsed.tree.root_node(), parent: None });
    while let Some(Pending { node, parent }) = walker.stack.pop() {
        if kind == FileKind::Python {
            walker.python(node, parent);
        } else {
            walker.script(node, parent);
        }
    }
    walker.found.sort_by_key(|definition| (definition.span.start, definition.span.end));
    walker.found
}

struct Walker<'p, 's> {
    parsed: &'p Parsed<'s>,
    index: LineIndex<'s>,
    found: Vec<Definition>,
    stack: Vec<Pending<'p>>,
}

impl<'p> Walker<'p, '_> {
    /// Queues the children of `node` (in reverse, so they pop in source order).
    fn push_children(&mut self, node: Node<'p>, parent: Option<usize>) {
        let mut children: Vec<Node<'p>> = Vec::with_capacity(node.child_count() as usize);
        let mut cursor = node.walk();
        if cursor.goto_first_child() {
            loop {
                children.push(cursor.node());
                if !cursor.goto_next_sibling() {
                    break;
                }
            }
        }
        self.stack.extend(children.into_iter().rev().map(|node| Pending { node, parent }));
    }

    fn parent_path(&self, parent: Option<usize>) -> Option<String> {
        parent.and_then(|at| self.found.get(at)).map(|definition| definition.symbol.path())
    }

    fn parent_kind(&self, parent: Option<usize>) -> Option<SymbolKind> {
        parent.and_then(|at| self.found.get(at)).map(|definition| definition.symbol.kind)
    }

    /// Records a definition and returns its index.
    fn record(&mut self, name: String, kind: SymbolKind, spans: Spans, parent: Option<usize>) -> usize {
        let Spans { keyword_start, span, decorated_span, export_span } = spans;
        let symbol = Symbol {
            name,
            kind,
            line: self.index.line(keyword_start),
            end_line: self.index.line(span.end.saturating_sub(1).max(span.start)),
            parent: self.parent_path(parent),
        };
        self.found.push(Definition { symbol, span, decorated_span, export_span });
        self.found.len() - 1
    }

    fn name_of(&self, node: Node<'_>, field: &str) -> Option<String> {
        let name = node.child_by_field_name(field)?;
        let text = self.parsed.text(name);
        (!text.is_empty()).then(|| text.to_owned())
    }

    fn python(&mut self, node: Node<'p>, parent: Option<usize>) {
        match node.kind() {
            "decorated_definition" => {
                let Some(definition) = node.child_by_field_name("definition") else {
                    self.push_children(node, parent);
                    return;
                };
                let decorated = self.parsed.range(node);
                self.python_definition(definition, decorated, parent);
            }
            "function_definition" | "class_definition" => {
                let range = self.parsed.range(node);
                self.python_definition(node, range, parent);
            }
            _ => self.push_children(node, parent),
        }
    }

    fn python_definition(&mut self, node: Node<'p>, decorated: Range<usize>, parent: Option<usize>) {
        let Some(name) = self.name_of(node, "name") else {
            self.push_children(node, parent);
            return;
        };
        let kind = if node.kind() == "class_definition" {
            SymbolKind::Class
        } else if self.parent_kind(parent) == Some(SymbolKind::Class) {
            SymbolKind::Method
        } else if has_child_kind(node, "async") {
            SymbolKind::AsyncFunction
        } else {
            SymbolKind::Function
        };
        let span = self.parsed.range(node);
        let at = self.record(
            name,
            kind,
            Spans { keyword_start: span.start, span, decorated_span: decorated, export_span: None },
            parent,
        );
        if let Some(body) = node.child_by_field_name("body") {
            self.push_children(body, Some(at));
        }
    }

    fn script(&mut self, node: Node<'p>, parent: Option<usize>) {
        match node.kind() {
            "program" | "statement_block" | "ambient_declaration" | "expression_statement" => {
                self.push_children(node, parent);
            }
            "export_statement" => self.export(node, parent),
            _ => self.script_declaration(node, parent, None),
        }
    }

    fn export(&mut self, node: Node<'p>, parent: Option<usize>) {
        let export_span = Some(self.parsed.range(node));
        if let Some(declaration) = node.child_by_field_name("declaration") {
            self.script_declaration(declaration, parent, export_span);
        } else if let Some(value) = node.child_by_field_name("value") {
            // `export default function () {}` and `export default class {}`.
            let kind = match value.kind() {
                "function_expression" | "function" | "arrow_function" | "generator_function" => {
                    Some(function_kind(value))
                }
                "class" => Some(SymbolKind::Class),
                _ => None,
            };
            if let Some(kind) = kind {
                let name = self.name_of(value, "name").unwrap_or_else(|| "default".to_owned());
                let whole = self.parsed.range(value);
                let keyword = keyword_start(self.parsed, value);
                let span = keyword..whole.end;
                let decorated = self.decorated(value, whole);
                let at = self.record(
                    name,
                    kind,
                    Spans { keyword_start: keyword, span, decorated_span: decorated, export_span },
                    parent,
                );
                if kind == SymbolKind::Class
                    && let Some(body) = value.child_by_field_name("body")
                {
                    self.push_children(body, Some(at));
                }
            }
        }
    }

    /// Start of the definition including decorators that precede it as siblings or lead it as
    /// children.
    fn decorated(&self, node: Node<'_>, span: Range<usize>) -> Range<usize> {
        let mut start = span.start;
        let mut previous = node.prev_named_sibling();
        while let Some(sibling) = previous {
            if sibling.kind() != "decorator" {
                break;
            }
            start = self.parsed.range(sibling).start;
            previous = sibling.prev_named_sibling();
        }
        start..span.end
    }

    fn script_declaration(&mut self, node: Node<'p>, parent: Option<usize>, export_span: Option<Range<usize>>) {
        let in_class = self.parent_kind(parent) == Some(SymbolKind::Class);
        let kind = match node.kind() {
            "function_declaration" | "generator_function_declaration" | "function_signature" => {
                Some(function_kind(node))
            }
            "class_declaration" | "abstract_class_declaration" => Some(SymbolKind::Class),
            "interface_declaration" => Some(SymbolKind::Interface),
            "type_alias_declaration" => Some(SymbolKind::TypeAlias),
            "enum_declaration" => Some(SymbolKind::Enum),
            "internal_module" | "module" => Some(SymbolKind::Namespace),
            "method_definition" | "method_signature" | "abstract_method_signature" if in_class => {
                Some(SymbolKind::Method)
            }
            "public_field_definition" | "field_definition" if in_class => {
                let value = node.child_by_field_name("value");
                if value.is_some_and(|value| is_function_value(value.kind())) { Some(SymbolKind::Method) } else { None }
            }
            "lexical_declaration" | "variable_declaration" => {
                if !in_class {
                    self.bound_functions(node, parent, export_span);
                }
                return;
            }
            "ambient_declaration" | "expression_statement" => {
                self.push_children(node, parent);
                return;
            }
            _ => None,
        };
        let Some(kind) = kind else { return };
        let field = if node.kind() == "field_definition" { "property" } else { "name" };
        let Some(name) = self.name_of(node, field) else { return };
        let whole = self.parsed.range(node);
        let keyword = keyword_start(self.parsed, node);
        let span = keyword..whole.end;
        let decorated = self.decorated(node, whole);
        let at = self.record(
            name,
            kind,
            Spans { keyword_start: keyword, span, decorated_span: decorated, export_span },
            parent,
        );
        if matches!(kind, SymbolKind::Class | SymbolKind::Namespace)
            && let Some(body) = node.child_by_field_name("body")
        {
            self.push_children(body, Some(at));
        }
    }

    /// `const f = () => {}` and `let g = function () {}`.
    fn bound_functions(&mut self, node: Node<'p>, parent: Option<usize>, export_span: Option<Range<usize>>) {
        let mut cursor = node.walk();
        let declarators: Vec<Node<'p>> =
            node.named_children(&mut cursor).filter(|child| child.kind() == "variable_declarator").collect();
        let single = declarators.len() == 1;
        for declarator in declarators {
            let Some(value) = declarator.child_by_field_name("value") else { continue };
            if !is_function_value(value.kind()) {
                continue;
            }
            let Some(name_node) = declarator.child_by_field_name("name") else { continue };
            if name_node.kind() != "identifier" {
                continue;
            }
            let name = self.parsed.text(name_node).to_owned();
            let span = if single { self.parsed.range(node) } else { self.parsed.range(declarator) };
            let export = if single { export_span.clone() } else { None };
            let keyword = span.start;
            let spans = Spans { keyword_start: keyword, span: span.clone(), decorated_span: span, export_span: export };
            self.record(name, function_kind(value), spans, parent);
        }
    }
}

fn is_function_value(kind: &str) -> bool {
    matches!(kind, "arrow_function" | "function_expression" | "function" | "generator_function")
}

fn has_child_kind(node: Node<'_>, kind: &str) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor).any(|child| child.kind() == kind)
}

fn function_kind(node: Node<'_>) -> SymbolKind {
    if has_child_kind(node, "async") { SymbolKind::AsyncFunction } else { SymbolKind::Function }
}

/// Where the definition proper starts, after decorators that are its leading children.
fn keyword_start(parsed: &Parsed<'_>, node: Node<'_>) -> usize {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .find(|child| child.kind() != "decorator" && child.kind() != "comment")
        .map_or_else(|| parsed.range(node).start, |child| parsed.range(child).start)
}
