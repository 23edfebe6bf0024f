//! A key given twice anywhere in a call refuses it, and nothing runs; on text without repeated
//! keys, `editkit::json::parse` reads exactly what serde_json reads.

use proptest::prelude::*;
use serde_json::Value;

use crate::support::Env;

/// Runs `text` as a call; asserts `invalid_args` naming `field`, and that `a.txt` is still there.
#[track_caller]
fn refused_by_duplicate(text: &str, field: &str) {
    let env = Env::with_files(&[("a.txt", "keep\n"), ("keep.txt", "keep\n")]);
    let result = editkit::tools::call_json_text(&env.toolkit, text.as_bytes());
    assert_eq!(result["ok"], false, "{result:#}");
    assert_eq!(result["error"]["kind"], "invalid_args", "{result:#}");
    assert_eq!(result["error"]["field"], field, "{result:#}");
    let message = result["error"]["message"].as_str().unwrap();
    assert!(message.contains("more than once"), "{message}");
    assert_eq!(env.get("a.txt"), "keep\n", "the delete ran");
    assert_eq!(env.get("keep.txt"), "keep\n", "the delete ran");
}

#[test]
fn a_repeated_tool_is_refused_and_nothing_runs() {
    refused_by_duplicate(r#"{"tool": "read_file", "tool": "delete", "args": {"path": "a.txt"}}"#, "tool");
    refused_by_duplicate(r#"{"tool": "delete", "args": {"path": "keep.txt"}, "args": {"path": "a.txt"}}"#, "args");
}

#[test]
fn a_repeated_argument_is_refused_and_nothing_runs() {
    refused_by_duplicate(r#"{"tool": "delete", "args": {"path": "keep.txt", "path": "a.txt"}}"#, "args.path");
    refused_by_duplicate(r#"{"tool": "delete", "arguments": {"path": "a.txt", "path": "a.txt"}}"#, "arguments.path");
}

#[test]
fn a_repeated_key_nested_anywhere_is_refused_and_nothing_runs() {
    refused_by_duplicate(r#"{"tool": "delete", "args": {"path": "a.txt", "x": {"y": 1, "y": 2}}}"#, "args.x.y");
    refused_by_duplicate(
        r#"{"tool": "delete", "args": {"path": "a.txt", "x": [{"k": 1}, {"k": 1, "k": 2}]}}"#,
        "args.x[1].k",
    );
    refused_by_duplicate(r#"{"tool": "delete", "id": {"n": 1, "n": 2}, "args": {"path": "a.txt"}}"#, "id.n");
}

#[test]
fn equal_keys_in_different_objects_are_fine() {
    let env = Env::with_files(&[("a.txt", "x\n")]);
    let text = br#"{"tool": "read_file", "args": {"path": "a.txt"}, "id": {"path": [{"path": 1}, {"path": 2}]}}"#;
    let result = editkit::tools::call_json_text(&env.toolkit, text);
    assert_eq!(result["ok"], true, "{result:#}");
}

#[test]
fn text_that_is_not_json_is_invalid_args() {
    let env = Env::new();
    for text in [&b"{not json"[..], b"", b"{\"tool\": \"\xff\"}", b"{} {}"] {
        let result = editkit::tools::call_json_text(&env.toolkit, text);
        assert_eq!(result["error"]["kind"], "invalid_args", "{result:#}");
        assert!(result["error"]["message"].as_str().unwrap().contains("not valid JSON"), "{result:#}");
    }
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        ".*".prop_map(Value::String),
        "[a-c\\\\\"\\n\\u{0}-\\u{1f}é😀]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::btree_map("[a-d\"\\\\é]{0,3}", inner, 0..8)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn strict_parsing_reads_what_serde_json_reads(value in json_value(), pretty in any::<bool>()) {
        let text = if pretty { serde_json::to_string_pretty(&value) } else { serde_json::to_string(&value) }.unwrap();
        let reference: Value = serde_json::from_str(&text).unwrap();
        let strict = editkit::json::parse(text.as_bytes()).unwrap();
        prop_assert_eq!(&strict, &reference);
        prop_assert_eq!(strict.to_string(), reference.to_string());
    }

    #[test]
    fn strict_parsing_agrees_with_serde_json_on_arbitrary_text(text in "[\\[\\]{}:, \"a-c0-9.eE+\\-\\\\ntrufalse]{0,40}") {
        let reference = serde_json::from_str::<Value>(&text);
        match (editkit::json::parse(text.as_bytes()), reference) {
            (Ok(strict), Ok(reference)) => prop_assert_eq!(strict, reference),
            (Err(editkit::json::ParseError::Syntax(_)), Err(_)) => {}
            // A repeated key is reported where it stands, even if the text breaks later.
            (Err(err @ editkit::json::ParseError::DuplicateKey { .. }), _) => {
                prop_assert!(err.duplicate_path().is_some());
            }
            (strict, reference) => prop_assert!(false, "{text:?}: strict {strict:?}, serde_json {reference:?}"),
        }
    }

    #[test]
    fn strict_parsing_agrees_with_serde_json_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let reference = serde_json::from_slice::<Value>(&bytes);
        match (editkit::json::parse(&bytes), reference) {
            (Ok(strict), Ok(reference)) => prop_assert_eq!(strict, reference),
            (Err(_), Err(_)) => {}
            (Err(editkit::json::ParseError::DuplicateKey { .. }), Ok(_)) => {}
            (strict, reference) => prop_assert!(false, "{bytes:?}: strict {strict:?}, serde_json {reference:?}"),
        }
    }
}

#[test]
fn nesting_deeper_than_serde_json_allows_is_a_syntax_error_not_a_crash() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(matches!(editkit::json::parse(deep.as_bytes()), Err(editkit::json::ParseError::Syntax(_))));
    let ok = format!("{}{}", "[".repeat(100), "]".repeat(100));
    assert_eq!(editkit::json::parse(ok.as_bytes()).unwrap(), serde_json::from_str::<Value>(&ok).unwrap());
}
