use editkit_analyze::{Error, FileKind, replace_function, symbol_range};

#[track_caller]
fn replaces(kind: FileKind, before: &str, name: &str, implementation: &str, after: &str) {
    let result = replace_function(kind, before, name, implementation).unwrap();
    assert_eq!(result, after);
}

#[track_caller]
fn refuses(kind: FileKind, before: &str, name: &str, implementation: &str) -> Error {
    replace_function(kind, before, name, implementation).unwrap_err()
}

const PY: &str = "\
import x

@decorator
def top(a):
    return a

class Outer:
    class Inner:
        def method(self):
            return 1

    @property
    def value(self):
        return 2
";

#[test]
fn top_level_function_keeps_decorators() {
    replaces(
        FileKind::Python,
        PY,
        "top",
        "def top(a, b):\n    return a + b\n",
        &PY.replace("def top(a):\n    return a", "def top(a, b):\n    return a + b"),
    );
}

#[test]
fn new_decorators_replace_old_ones() {
    replaces(FileKind::Python, PY, "top", "@other\ndef top(a):\n    return a", &PY.replace("@decorator\n", "@other\n"));
}

#[test]
fn nested_method_is_reindented_from_any_indentation() {
    let expected = PY.replace("return 1", "return 3");
    replaces(FileKind::Python, PY, "Outer.Inner.method", "def method(self):\n    return 3", &expected);
    replaces(
        FileKind::Python,
        PY,
        "Outer.Inner.method",
        "        def method(self):\n            return 3\n",
        &expected,
    );
    replaces(
        FileKind::Python,
        PY,
        "Inner.method",
        "\n\ndef method(self):\n\treturn 3",
        &expected.replace("            return 3", "        \treturn 3"),
    );
}

#[test]
fn bare_name_finds_a_unique_method() {
    replaces(FileKind::Python, PY, "method", "def method(self):\n    return 3", &PY.replace("return 1", "return 3"));
}

#[test]
fn not_found_lists_available_names() {
    let error = refuses(FileKind::Python, PY, "Outer.missing", "def missing(self): pass");
    assert_eq!(error.kind(), "not_found");
    let message = error.to_string();
    for name in ["`top`", "`Outer`", "`Outer.Inner.method`", "`Outer.value`"] {
        assert!(message.contains(name), "{message}");
    }
}

#[test]
fn redefinitions_are_ambiguous_with_lines() {
    let source = "def f():\n    pass\n\ndef f():\n    return 1\n";
    let error = refuses(FileKind::Python, source, "f", "def f(): pass");
    assert_eq!(error.kind(), "ambiguous");
    assert!(matches!(&error, Error::Ambiguous { lines, .. } if lines == &[1, 4]), "{error:?}");
    assert!(error.to_string().contains("lines 1, 4"), "{error}");
}

#[test]
fn typescript_overloads_are_ambiguous() {
    let source = "function o(a: string): string;\nfunction o(a: number): number;\nfunction o(a: any) { return a; }\n";
    let error = refuses(FileKind::Typescript, source, "o", "function o(a: any) { return 1; }");
    assert!(matches!(&error, Error::Ambiguous { lines, .. } if lines == &[1, 2, 3]), "{error:?}");
}

#[test]
fn a_result_with_new_syntax_errors_is_refused_with_positions() {
    let error = refuses(FileKind::Python, PY, "top", "def top(a:\n    return a");
    assert_eq!(error.kind(), "syntax_error");
    let Error::SyntaxError { errors } = &error else { panic!("{error:?}") };
    // tree-sitter's recovery may blame the whole decorated definition; it must cover line 4.
    assert!(errors.iter().any(|error| error.line <= 4 && 4 <= error.end_line), "{errors:?}");
    assert!(error.to_string().contains("the result has syntax errors, nothing was changed: line"), "{error}");
}

#[test]
fn a_file_already_broken_elsewhere_can_still_be_edited() {
    let source = "def ok():\n    return 1\n\ndef broken(:\n    pass\n";
    let result = replace_function(FileKind::Python, source, "ok", "def ok():\n    return 2").unwrap();
    assert!(result.starts_with("def ok():\n    return 2\n"));
}

#[test]
fn invalid_arguments() {
    assert_eq!(refuses(FileKind::Python, PY, "", "def f(): pass").kind(), "invalid_args");
    assert_eq!(refuses(FileKind::Python, PY, "Outer..x", "def f(): pass").kind(), "invalid_args");
    assert_eq!(refuses(FileKind::Python, PY, "top", "  \n ").kind(), "invalid_args");
    assert_eq!(refuses(FileKind::Markdown, "# a", "a", "b").kind(), "invalid_args");
}

#[test]
fn multi_line_strings_are_kept_verbatim() {
    let source = "class A:\n    def f(self):\n        return '''\nline\n  two'''\n";
    let implementation = "def f(self):\n    return '''\nline\n  three'''";
    replaces(FileKind::Python, source, "A.f", implementation, &source.replace("two", "three"));
}

#[test]
fn docstrings_move_with_the_code() {
    let source = "class A:\n    def f(self):\n        \"\"\"Doc.\n\n        More.\n        \"\"\"\n";
    let implementation = "def f(self):\n    \"\"\"Doc.\n\n    Changed.\n    \"\"\"";
    replaces(FileKind::Python, source, "A.f", implementation, &source.replace("More", "Changed"));
}

#[test]
fn crlf_files_keep_crlf() {
    let source = "class A:\r\n    def f(self):\r\n        return 1\r\n";
    replaces(FileKind::Python, source, "A.f", "def f(self):\n    return 2\n", &source.replace("1", "2"));
}

#[test]
fn typescript_export_is_kept_or_replaced() {
    let source = "export function f(): number {\n  return 1;\n}\n";
    replaces(FileKind::Typescript, source, "f", "function f(): number {\n  return 2;\n}", &source.replace('1', "2"));
    replaces(FileKind::Typescript, source, "f", "export async function f() {}", "export async function f() {}\n");
}

#[test]
fn typescript_method_and_arrow_field() {
    let source = "class A {\n  handler = () => {\n    go();\n  };\n  @dec\n  run(): void {\n    stop();\n  }\n}\n";
    replaces(FileKind::Typescript, source, "A.run", "run(): void {\n  start();\n}", &source.replace("stop", "start"));
    replaces(
        FileKind::Typescript,
        source,
        "A.handler",
        "handler = () => {\n  leave();\n}",
        &source.replace("go()", "leave()"),
    );
}

#[test]
fn template_literals_are_kept_verbatim() {
    let source = "class A {\n  f() {\n    return `\nline\n`;\n  }\n}\n";
    replaces(FileKind::Typescript, source, "A.f", "f() {\n  return `\nline\n`;\n}", source);
}

#[test]
fn const_arrow_in_tsx() {
    let source = "export const View = () => <div>a</div>;\n";
    replaces(
        FileKind::Tsx,
        source,
        "View",
        "const View = () => <span>b</span>;",
        "export const View = () => <span>b</span>;\n",
    );
}

#[test]
fn symbol_range_confines_edits() {
    let range = symbol_range(FileKind::Python, PY, "Outer.value").unwrap();
    assert_eq!(&PY[range], "@property\n    def value(self):\n        return 2");
    let range = symbol_range(FileKind::Python, PY, "Outer").unwrap();
    assert!(PY[range].ends_with("return 2"));
    assert_eq!(symbol_range(FileKind::Python, PY, "nope").unwrap_err().kind(), "not_found");
}

#[test]
fn accessors_are_told_apart_by_the_new_implementation() {
    let source = "class A {\n  get size(): number {\n    return 1;\n  }\n  set size(value: number) {\n    this.n = value;\n  }\n}\n";
    replaces(
        FileKind::Typescript,
        source,
        "A.size",
        "set size(value: number) {\n  this.m = value;\n}",
        &source.replace("this.n", "this.m"),
    );
    replaces(
        FileKind::Typescript,
        source,
        "A.size",
        "get size(): number {\n  return 2;\n}",
        &source.replace("return 1", "return 2"),
    );
    assert_eq!(refuses(FileKind::Typescript, source, "A.size", "size() {}").kind(), "ambiguous");

    let source = "class A:\n    @property\n    def x(self):\n        return 1\n\n    @x.setter\n    def x(self, value):\n        pass\n";
    replaces(
        FileKind::Python,
        source,
        "A.x",
        "@x.setter\ndef x(self, value):\n    self._x = value",
        &source.replace("        pass", "        self._x = value"),
    );
    assert_eq!(refuses(FileKind::Python, source, "A.x", "def x(self): pass").kind(), "ambiguous");
}

#[test]
fn broken_replacement_in_a_real_file_is_refused() {
    let path = crate::fixtures().join("code/python/textwrap.py");
    let source = std::fs::read_to_string(path).unwrap();
    let error = refuses(
        FileKind::Python,
        &source,
        "TextWrapper.wrap",
        "def wrap(self, text):\n    return [x for x in text.split(]",
    );
    let Error::SyntaxError { errors } = &error else { panic!("{error:?}") };
    let line = source.lines().position(|line| line.contains("def wrap(self, text):")).unwrap() + 1;
    assert!(errors.iter().any(|error| error.line >= line && error.line <= line + 2), "{errors:?}");
}
