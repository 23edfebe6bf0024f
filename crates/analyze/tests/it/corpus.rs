//! Real code from `fixtures/code/`: Python's own `ast` as an oracle, and round trips.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use editkit_analyze::{FileKind, SymbolKind, check_syntax, detect, replace_function, symbol_range, symbols};

pub(crate) fn files(folder: &str, extensions: &[&str]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![crate::fixtures().join("code").join(folder)];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|extension| extensions.iter().any(|want| extension == *want)) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

fn python_files() -> Vec<PathBuf> {
    files("python", &["py"])
}

fn typescript_files() -> Vec<PathBuf> {
    files("typescript", &["ts", "tsx"])
}

fn read(path: &Path) -> (FileKind, String) {
    let text = std::fs::read_to_string(path).unwrap();
    (detect(&path.to_string_lossy(), &text), text)
}

#[test]
fn corpus_is_big_enough_and_parses() {
    let python = python_files();
    let typescript = typescript_files();
    assert!(python.len() >= 20, "{} Python files", python.len());
    assert!(typescript.len() >= 20, "{} TypeScript files", typescript.len());
    assert!(typescript.iter().any(|path| path.extension().is_some_and(|extension| extension == "tsx")));
    let mut total = 0;
    for path in python.iter().chain(&typescript) {
        let (kind, text) = read(path);
        let report = check_syntax(kind, &text).unwrap();
        assert!(report.valid, "{path:?}: {:?}", report.errors.first());
        total += symbols(kind, &text).unwrap().len();
    }
    assert!(total > 1000, "{total} symbols");
}

/// Runs Python's `ast` over `paths`: one line per definition, `file\tline\tparent\tname`.
const ORACLE: &str = r#"
import ast, sys
def walk(node, parents, out):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append((child.lineno, ".".join(parents), child.name))
            walk(child, parents + [child.name], out)
        else:
            walk(child, parents, out)
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), path)
    found = []
    walk(tree, [], found)
    for line, parent, name in found:
        print(f"{path}\t{line}\t{parent}\t{name}")
"#;

#[test]
fn python_ast_oracle_agrees() {
    let paths = python_files();
    let output = match Command::new("python3").arg("-c").arg(ORACLE).args(&paths).output() {
        Ok(output) if output.status.success() => output,
        Ok(output) => panic!("the ast oracle failed: {}", String::from_utf8_lossy(&output.stderr)),
        Err(error) => panic!(
            "python3 could not be run ({error}): the ast oracle needs it; install Python 3 (on Debian: apt-get \
             install python3)"
        ),
    };
    let oracle: BTreeSet<(String, usize, String, String)> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            (fields[0].to_owned(), fields[1].parse().unwrap(), fields[2].to_owned(), fields[3].to_owned())
        })
        .collect();
    let mut ours = BTreeSet::new();
    for path in &paths {
        let (kind, text) = read(path);
        for symbol in symbols(kind, &text).unwrap() {
            let parent = symbol.parent.clone().unwrap_or_default();
            ours.insert((path.to_string_lossy().into_owned(), symbol.line, parent, symbol.name));
        }
    }
    let missed: Vec<_> = oracle.difference(&ours).collect();
    let extra: Vec<_> = ours.difference(&oracle).collect();
    eprintln!("ast oracle: {} definitions in {} files; editkit found {}", oracle.len(), paths.len(), ours.len());
    assert!(oracle.len() > 900, "suspiciously few definitions: {}", oracle.len());
    assert!(missed.is_empty(), "missed {} definitions, first: {:?}", missed.len(), missed.first());
    assert!(extra.is_empty(), "{} definitions ast does not know, first: {:?}", extra.len(), extra.first());
}

/// 1-based numbers of the lines that begin inside a multi-line string literal other than a
/// Python docstring: these keep their bytes when code moves. Found with tree-sitter directly.
fn string_lines(kind: FileKind, text: &str) -> BTreeSet<usize> {
    let language: tree_sitter::Language = match kind {
        FileKind::Python => tree_sitter_python::LANGUAGE.into(),
        FileKind::Typescript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        _ => tree_sitter_typescript::LANGUAGE_TSX.into(),
    };
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&language).unwrap();
    let tree = parser.parse(text, None).unwrap();
    let mut lines = BTreeSet::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if matches!(node.kind(), "string" | "template_string") {
            let statement = node.parent().filter(|parent| parent.kind() == "expression_statement");
            let docstring = kind == FileKind::Python
                && statement.is_some_and(|statement| {
                    statement
                        .parent()
                        .is_some_and(|block| block.named_child(0).is_some_and(|first| first.id() == statement.id()))
                });
            if !docstring {
                lines.extend(node.start_position().row + 2..=node.end_position().row + 1);
            }
            continue;
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    lines
}

/// The definition's own text moved to column 0: the indentation of its first line is removed
/// from every later line that has it, except whitespace-only lines and string contents.
fn dedent(text: &str, range: std::ops::Range<usize>, verbatim: &BTreeSet<usize>) -> String {
    let line_start = text[..range.start].rfind('\n').map_or(0, |at| at + 1);
    let indent = &text[line_start..range.start];
    let indent = &indent[..indent.len() - indent.trim_start().len()];
    let first_line = text[..range.start].matches('\n').count() + 1;
    let own = &text[range];
    own.split('\n')
        .enumerate()
        .map(|(number, line)| {
            if number == 0 || line.trim().is_empty() || verbatim.contains(&(first_line + number)) {
                line
            } else {
                line.strip_prefix(indent).unwrap_or(line)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_round_trip_target(kind: SymbolKind, parent: Option<&str>) -> bool {
    match kind {
        SymbolKind::Method => true,
        SymbolKind::Function | SymbolKind::AsyncFunction => parent.is_none(),
        _ => false,
    }
}

/// A different, valid body for the symbol.
fn new_body(kind: FileKind, symbol: &editkit_analyze::Symbol) -> String {
    let name = &symbol.name;
    match (kind, symbol.kind) {
        (FileKind::Python, SymbolKind::AsyncFunction) => {
            format!("async def {name}(*args, **kwargs):\n    return 'replaced'")
        }
        (FileKind::Python, _) => format!("def {name}(*args, **kwargs):\n    return 'replaced'"),
        (_, SymbolKind::Method) => format!("{name}(...args: unknown[]) {{\n  return 'replaced'\n}}"),
        _ => format!("function {name}(...args: unknown[]) {{\n  return 'replaced'\n}}"),
    }
}

/// Replaces every top-level function and method of every file with its own text (from column
/// 0) and with a new body. Returns (identical round trips, changed bodies, ambiguous names).
fn round_trips(paths: &[PathBuf]) -> (usize, usize, usize) {
    let (mut identical, mut changed, mut ambiguous) = (0, 0, 0);
    for path in paths {
        let (kind, text) = read(path);
        let verbatim = string_lines(kind, &text);
        for symbol in symbols(kind, &text).unwrap() {
            if !is_round_trip_target(symbol.kind, symbol.parent.as_deref()) {
                continue;
            }
            let name = symbol.path();
            let range = match symbol_range(kind, &text, &name) {
                Ok(range) => range,
                Err(error) => {
                    assert_eq!(error.kind(), "ambiguous", "{path:?} {name}: {error}");
                    ambiguous += 1;
                    continue;
                }
            };
            let own = dedent(&text, range.clone(), &verbatim);
            let result =
                replace_function(kind, &text, &name, &own).unwrap_or_else(|error| panic!("{path:?} {name}: {error}"));
            assert!(
                result == text,
                "{path:?} {name}: round trip changed the file\n{}",
                first_difference(&text, &result)
            );
            identical += 1;

            let body = new_body(kind, &symbol);
            let result =
                replace_function(kind, &text, &name, &body).unwrap_or_else(|error| panic!("{path:?} {name}: {error}"));
            let report = check_syntax(kind, &result).unwrap();
            assert!(report.valid, "{path:?} {name}: {:?}", report.errors.first());
            assert!(result.starts_with(&text[..range.start]), "{path:?} {name}: text before the symbol changed");
            assert!(result.ends_with(&text[range.end..]), "{path:?} {name}: text after the symbol changed");
            assert!(result.contains("'replaced'"));
            changed += 1;
        }
    }
    (identical, changed, ambiguous)
}

fn first_difference(before: &str, after: &str) -> String {
    let line = before.lines().zip(after.lines()).position(|(a, b)| a != b).unwrap_or(0);
    format!(
        "line {}:\n- {:?}\n+ {:?}",
        line + 1,
        before.lines().nth(line).unwrap_or(""),
        after.lines().nth(line).unwrap_or("")
    )
}

#[test]
fn python_round_trips() {
    let (identical, changed, ambiguous) = round_trips(&python_files());
    eprintln!("python round trips: {identical} identical, {changed} new bodies, {ambiguous} ambiguous names skipped");
    assert!(identical > 500, "{identical}");
}

#[test]
fn typescript_round_trips() {
    let (identical, changed, ambiguous) = round_trips(&typescript_files());
    eprintln!(
        "typescript round trips: {identical} identical, {changed} new bodies, {ambiguous} ambiguous names skipped"
    );
    assert!(identical > 100, "{identical}");
}
