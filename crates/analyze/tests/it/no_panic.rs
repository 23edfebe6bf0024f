//! Arbitrary input never panics (the fuzz target does the same with libFuzzer).

use editkit_analyze::{
    FileKind, check_syntax, detect, outline, replace_function, section_range, symbol_range, symbols,
};
use proptest::prelude::*;

const CODE_KINDS: [FileKind; 5] =
    [FileKind::Python, FileKind::Typescript, FileKind::Tsx, FileKind::Javascript, FileKind::Jsx];

/// Snippets that stress the grammars, joined at random.
fn code_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("def f(".to_owned()),
        Just("class A:\n    ".to_owned()),
        Just("@d\n".to_owned()),
        Just("'''".to_owned()),
        Just("`${".to_owned()),
        Just("<div>".to_owned()),
        Just("export default ".to_owned()),
        Just("const f = () => {".to_owned()),
        Just("\u{feff}".to_owned()),
        Just("\r\n".to_owned()),
        Just("é€😀".to_owned()),
        "[ -~\n\t]{0,12}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512), path in "[a-z]{0,3}\\.(py|ts|tsx|js|md|json|txt)") {
        // Random bytes are rarely UTF-8: the parsers see the text a lossy decode gives, always.
        let text = String::from_utf8_lossy(&bytes);
        let kind = detect(&path, &text);
        let _ = check_syntax(kind, &text);
        let _ = symbols(kind, &text);
        let _ = outline(&text);
    }

    #[test]
    fn arbitrary_code(pieces in proptest::collection::vec(code_piece(), 0..24), name in "[A-Za-z.]{0,8}", kind_at in 0_usize..5) {
        let source: String = pieces.concat();
        let kind = CODE_KINDS[kind_at];
        let _ = check_syntax(kind, &source);
        let _ = symbols(kind, &source);
        let _ = symbol_range(kind, &source, &name);
        let _ = replace_function(kind, &source, &name, &source);
        let _ = outline(&source);
        let _ = section_range(&source, &name);
    }
}

#[test]
fn deep_nesting_does_not_overflow() {
    let deep = "(".repeat(50_000);
    for kind in CODE_KINDS {
        let _ = check_syntax(kind, &deep);
        let _ = symbols(kind, &deep);
    }
    let nested_classes: String = (0..300).map(|depth| format!("{}class C{depth}:\n", "    ".repeat(depth))).collect();
    let found = symbols(FileKind::Python, &format!("{nested_classes}{}pass\n", "    ".repeat(300))).unwrap();
    assert_eq!(found.len(), 300);
    let _ = outline(&">".repeat(50_000));
    let _ = outline(&"[".repeat(50_000));
}

#[test]
fn too_large_input_is_refused() {
    let big = "x".repeat(editkit_analyze::MAX_PARSE_BYTES + 1);
    assert_eq!(symbols(FileKind::Python, &big).unwrap_err().kind(), "too_large");
    assert_eq!(outline(&big).unwrap_err().kind(), "too_large");
}

#[test]
fn parsing_is_bounded_in_time() {
    // Millions of unclosed brackets keep tree-sitter's error recovery busy for long.
    let pathological = "(".repeat(15_000_000);
    let started = std::time::Instant::now();
    let result = check_syntax(FileKind::Python, &pathological);
    let elapsed = started.elapsed();
    assert!(elapsed < editkit_analyze::PARSE_TIME_LIMIT + std::time::Duration::from_secs(5), "{elapsed:?}");
    if let Err(error) = result {
        assert_eq!(error.kind(), "too_large");
        assert!(error.to_string().contains("gave up") || error.to_string().contains("tokens"), "{error}");
    }
}

/// A dense source far under the byte limit (one-letter lines: 2 tokens per 2 bytes) would
/// take hundreds of bytes per token to parse; past `MAX_PARSE_TOKENS` it is refused unparsed.
#[test]
fn dense_input_is_refused_by_its_token_count() {
    let dense = "x\n".repeat(editkit_analyze::MAX_PARSE_TOKENS / 2 + 1);
    assert!(dense.len() < editkit_analyze::MAX_PARSE_BYTES);
    for result in [check_syntax(FileKind::Python, &dense).map(|_| ()), symbols(FileKind::Python, &dense).map(|_| ())] {
        let error = result.unwrap_err();
        assert_eq!(error.kind(), "too_large");
        assert!(error.to_string().contains("tokens"), "{error}");
    }
    let fits = "x\n".repeat(editkit_analyze::MAX_PARSE_TOKENS / 2);
    assert!(check_syntax(FileKind::Python, &fits).is_ok());
}
