use editkit_analyze::{FileKind, SymbolKind, symbols};

/// `(path, kind, line, end_line)` of every symbol.
#[track_caller]
fn listed(kind: FileKind, source: &str) -> Vec<(String, SymbolKind, usize, usize)> {
    symbols(kind, source)
        .unwrap()
        .into_iter()
        .map(|symbol| (symbol.path(), symbol.kind, symbol.line, symbol.end_line))
        .collect()
}

fn entry(path: &str, kind: SymbolKind, line: usize, end_line: usize) -> (String, SymbolKind, usize, usize) {
    (path.to_owned(), kind, line, end_line)
}

#[test]
fn python_functions_classes_methods_nested() {
    let source = "\
import functools

@functools.cache
def top(a):
    def helper():
        return a
    return helper

async def fetch():
    pass

class Outer:
    class Inner:
        @staticmethod
        @other
        def method():
            pass
    async def run(self):
        pass
";
    use SymbolKind::*;
    assert_eq!(
        listed(FileKind::Python, source),
        [
            entry("top", Function, 4, 7),
            entry("top.helper", Function, 5, 6),
            entry("fetch", AsyncFunction, 9, 10),
            entry("Outer", Class, 12, 19),
            entry("Outer.Inner", Class, 13, 17),
            entry("Outer.Inner.method", Method, 16, 17),
            entry("Outer.run", Method, 18, 19),
        ]
    );
}

#[test]
fn parent_is_the_dotted_path() {
    let found = symbols(FileKind::Python, "class A:\n    class B:\n        def c(self): pass\n").unwrap();
    let method = found.iter().find(|symbol| symbol.name == "c").unwrap();
    assert_eq!(method.parent.as_deref(), Some("A.B"));
    assert_eq!(found[0].parent, None);
}

const TYPESCRIPT: &str = "\
export interface Props { a: number }
type Alias = string | number;
enum Color { Red, Green }
export function exported(a: number): number { return a; }
export default function () { return 1; }
const arrow = (x: number) => x * 2;
let expression = function named() {};
export const asyncArrow = async () => {};
function overloaded(a: string): string;
function overloaded(a: number): number;
function overloaded(a: any): any { return a; }
@decorated
export class Service extends Base {
  private count = 0;
  handler = (event: Event) => { this.count++; };
  @logged
  async load(id: string): Promise<void> {}
  get size(): number { return this.count; }
  static create(): Service { return new Service(); }
}
abstract class Shape {
  abstract area(): number;
}
namespace Space {
  export function inside() {}
}
";

#[test]
fn typescript_declarations() {
    use SymbolKind::*;
    assert_eq!(
        listed(FileKind::Typescript, TYPESCRIPT),
        [
            entry("Props", Interface, 1, 1),
            entry("Alias", TypeAlias, 2, 2),
            entry("Color", Enum, 3, 3),
            entry("exported", Function, 4, 4),
            entry("default", Function, 5, 5),
            entry("arrow", Function, 6, 6),
            entry("expression", Function, 7, 7),
            entry("asyncArrow", AsyncFunction, 8, 8),
            entry("overloaded", Function, 9, 9),
            entry("overloaded", Function, 10, 10),
            entry("overloaded", Function, 11, 11),
            entry("Service", Class, 13, 20),
            entry("Service.handler", Method, 15, 15),
            entry("Service.load", Method, 17, 17),
            entry("Service.size", Method, 18, 18),
            entry("Service.create", Method, 19, 19),
            entry("Shape", Class, 21, 23),
            entry("Shape.area", Method, 22, 22),
            entry("Space", Namespace, 24, 26),
            entry("Space.inside", Function, 25, 25),
        ]
    );
}

#[test]
fn tsx_components() {
    let source = "\
export const Button = ({ label }: { label: string }) => <button>{label}</button>;
export default function App() {
  return <Button label=\"x\" />;
}
";
    use SymbolKind::*;
    assert_eq!(listed(FileKind::Tsx, source), [entry("Button", Function, 1, 1), entry("App", Function, 2, 4)]);
}

#[test]
fn javascript_and_jsx() {
    let source = "\
class Counter {
  count = 0;
  increment = () => { this.count++; };
  *values() {}
}
const make = function () { return new Counter(); };
export async function main() {}
";
    use SymbolKind::*;
    let expected = [
        entry("Counter", Class, 1, 5),
        entry("Counter.increment", Method, 3, 3),
        entry("Counter.values", Method, 4, 4),
        entry("make", Function, 6, 6),
        entry("main", AsyncFunction, 7, 7),
    ];
    assert_eq!(listed(FileKind::Javascript, source), expected);
    assert_eq!(listed(FileKind::Jsx, source), expected);
}

#[test]
fn symbols_survive_syntax_errors() {
    let found = listed(FileKind::Python, "def good():\n    pass\n\ndef bad(:\n");
    assert_eq!(found.first().map(|symbol| symbol.0.as_str()), Some("good"));
}

#[test]
fn non_code_kinds_are_unsupported() {
    for kind in [FileKind::Markdown, FileKind::Json, FileKind::Text] {
        let error = symbols(kind, "x").unwrap_err();
        assert_eq!(error.kind(), "invalid_args");
        assert!(error.to_string().contains("not supported"), "{error}");
    }
}

#[test]
fn symbols_serialise_with_contract_field_names() {
    let found = symbols(FileKind::Python, "class A:\n    async def f(self): pass\n").unwrap();
    let json = serde_json::to_value(&found).unwrap();
    assert_eq!(
        json,
        serde_json::json!([
            {"name": "A", "kind": "class", "line": 1, "end_line": 2, "parent": null},
            {"name": "f", "kind": "method", "line": 2, "end_line": 2, "parent": "A"},
        ])
    );
    let found = symbols(FileKind::Typescript, "type T = 1;\nasync function g() {}\n").unwrap();
    let kinds: Vec<_> = found.iter().map(|symbol| serde_json::to_value(symbol.kind).unwrap()).collect();
    assert_eq!(kinds, [serde_json::json!("type_alias"), serde_json::json!("async_function")]);
}
