use editkit_analyze::{FileKind, SyntaxError, check_syntax};

#[track_caller]
fn first_error(kind: FileKind, source: &str) -> SyntaxError {
    let report = check_syntax(kind, source).unwrap();
    assert!(!report.valid, "expected an error in {source:?}");
    report.errors.into_iter().next().expect("an invalid report has errors")
}

#[track_caller]
fn is_valid(kind: FileKind, source: &str) {
    let report = check_syntax(kind, source).unwrap();
    assert!(report.valid, "{source:?}: {:?}", report.errors);
    assert!(report.errors.is_empty());
}

#[test]
fn valid_sources() {
    is_valid(FileKind::Python, "def f(x):\n    return x\n");
    is_valid(FileKind::Python, "\u{feff}import os\n");
    is_valid(FileKind::Typescript, "export function f(a: number): string { return `${a}`; }\n");
    is_valid(FileKind::Tsx, "export const A = () => <div className=\"a\">{1}</div>;\n");
    is_valid(FileKind::Javascript, "const f = async () => { await g(); };\n");
    is_valid(FileKind::Jsx, "const a = <b>{c}</b>;\n");
    is_valid(FileKind::Json, "{\"a\": [1, 2, null]}");
    is_valid(FileKind::Markdown, "# anything *goes");
    is_valid(FileKind::Text, "((((");
}

#[test]
fn missing_token_says_what_is_missing_and_where() {
    let error = first_error(FileKind::Typescript, "function f() {\n  return g(1;\n}\n");
    assert_eq!(error.line, 2, "{error:?}");
    assert!(error.message.contains("missing") || error.message.contains("unexpected"), "{error:?}");
}

#[test]
fn unexpected_token_is_quoted_with_what_it_follows() {
    let error = first_error(FileKind::Python, "x = 1\ny = = 2\n");
    assert_eq!((error.line, error.column), (2, 5), "{error:?}");
    assert!(error.message.contains("unexpected `=`"), "{error:?}");
    assert!(error.message.contains("after `=`"), "{error:?}");
}

#[test]
fn python_missing_colon() {
    let error = first_error(FileKind::Python, "def f()\n    return 1\n");
    assert_eq!(error.line, 1, "{error:?}");
    assert!(error.message.contains("`def`") || error.message.contains("`:`"), "{error:?}");
}

#[test]
fn columns_count_characters() {
    let error = first_error(FileKind::Python, "s = 'é' +\n");
    assert_eq!(error.line, 1, "{error:?}");
    assert!(error.column <= 10, "{error:?}");
}

#[test]
fn tsx_needs_the_tsx_grammar() {
    let source = "const a = <div>{x}</div>;\n";
    is_valid(FileKind::Tsx, source);
    assert!(!check_syntax(FileKind::Typescript, source).unwrap().valid);
}

#[test]
fn json_errors_carry_serde_positions() {
    let error = first_error(FileKind::Json, "{\n  \"a\": 1,\n  \"b\": ]\n}");
    assert_eq!((error.line, error.column), (3, 8), "{error:?}");
    assert!(error.message.starts_with("invalid JSON: expected value"), "{error:?}");
    assert!(!error.message.contains("at line"), "{error:?}");
}

#[test]
fn report_serialises_with_contract_field_names() {
    let report = check_syntax(FileKind::Python, "def (\n").unwrap();
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["valid"], false);
    let error = &json["errors"][0];
    for field in ["line", "column", "end_line", "end_column", "message"] {
        assert!(error.get(field).is_some(), "{field} missing in {json}");
    }
}

#[test]
fn error_count_is_bounded() {
    let source = "def (\n".repeat(500);
    let report = check_syntax(FileKind::Python, &source).unwrap();
    assert!(!report.valid);
    assert!(report.errors.len() <= 50);
}

#[test]
fn python_body_that_is_not_indented() {
    let error = first_error(FileKind::Python, "def f():\nreturn 1\n");
    assert_eq!(error.line, 1, "{error:?}");
    assert_eq!(error.message, "expected an indented block after `def f():`");
    is_valid(FileKind::Python, "def f():\n    # comment\n    pass\n");
}

#[test]
fn error_recovery_over_several_lines_names_the_lines() {
    let error = first_error(FileKind::Python, "x = (1, 2\ny = 3\n");
    assert_eq!((error.line, error.end_line), (1, 2), "{error:?}");
    assert!(error.message.starts_with("cannot parse lines 1-2, starting with `x`"), "{error:?}");
}

#[test]
fn missing_bracket_in_typescript() {
    let error = first_error(FileKind::Typescript, "function f() {\n  return g(1;\n}\n");
    assert_eq!((error.line, error.column), (2, 13), "{error:?}");
    assert_eq!(error.message, "missing `)` after `1`");
}
