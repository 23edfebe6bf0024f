//! Every documented example call validates against its schema, runs, and its result
//! validates against the output schema.

use serde_json::Value;

use crate::support::{Env, copy_tree, fixtures};

#[test]
fn documented_examples_validate_run_and_match_output_schemas() {
    let mut covered = std::collections::BTreeSet::new();
    let mut ran = run_examples("examples.jsonl", &Env::new(), &mut covered);
    // The language-server tools' examples run with the installed servers.
    #[cfg(feature = "lsp")]
    {
        ran += run_examples("examples-lsp.jsonl", &Env::with_options(crate::support::with_servers()), &mut covered);
    }
    let specs = editkit::tools::specs();
    let missing: Vec<&str> = specs.iter().map(|s| s.name).filter(|n| !covered.contains(*n)).collect();
    assert!(missing.is_empty(), "tools without a documented example: {missing:?}");
    assert!(ran >= specs.len());
}

/// Runs the calls of `fixtures/calls/<file>` in `env` (a copy of `fixtures/calls/tree`), each
/// checked against its tool's schemas; the tools run join `covered`.
fn run_examples(file: &str, env: &Env, covered: &mut std::collections::BTreeSet<String>) -> usize {
    copy_tree(&fixtures().join("calls/tree"), env.dir.path());
    let specs = editkit::tools::specs();
    let text = std::fs::read_to_string(fixtures().join("calls").join(file)).unwrap();
    let mut session = String::new();
    let mut ran = 0;
    for (idx, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let line = line.replace("$SESSION", &session);
        let call: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{file}:{}: {e}", idx + 1));
        let tool = call["tool"].as_str().unwrap();
        let Some(spec) = specs.iter().find(|s| s.name == tool) else { continue };
        let input = jsonschema::validator_for(&spec.input_schema).unwrap();
        let errors: Vec<String> = input.iter_errors(&call["args"]).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{file}:{}: {tool} args do not fit the schema: {errors:?}", idx + 1);
        let result = editkit::tools::call_json(&env.toolkit, &call);
        assert_eq!(result["ok"], true, "{file}:{}: {tool} failed: {result:#}", idx + 1);
        let output = jsonschema::validator_for(&spec.output_schema).unwrap();
        let errors: Vec<String> = output.iter_errors(&result).map(|e| e.to_string()).collect();
        assert!(
            errors.is_empty(),
            "{file}:{}: {tool} result does not fit the output schema: {errors:?}\n{result:#}",
            idx + 1
        );
        if tool == "editor_load" {
            session = result["session_id"].as_str().unwrap().to_owned();
        }
        covered.insert(tool.to_owned());
        ran += 1;
    }
    ran
}
