//! The tool list is well-formed: unique names, descriptions, valid JSON Schemas.

#[test]
fn every_schema_is_a_valid_json_schema_without_nonstandard_formats() {
    let specs = editkit::tools::specs();
    let mut names: Vec<&str> = specs.iter().map(|s| s.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), specs.len(), "duplicate tool names");
    for spec in &specs {
        assert!(spec.description.len() > 30, "{} needs a description a model can use", spec.name);
        for schema in [&spec.input_schema, &spec.output_schema, &spec.result_schema()] {
            jsonschema::meta::validate(schema).unwrap_or_else(|e| panic!("{}: invalid schema: {e}", spec.name));
            let text = schema.to_string();
            assert!(!text.contains("\"format\":\"uint"), "{}: non-standard format left in {text}", spec.name);
        }
        assert_eq!(spec.input_schema["type"], "object", "{}", spec.name);
        assert!(!spec.input_schema.to_string().contains("\"null\""), "{}: nullable input types", spec.name);
        if spec.read_only {
            assert!(!spec.destructive, "{} cannot be read-only and destructive", spec.name);
        }
    }
    for required in
        ["read_file", "write_file", "edit_file", "list_dir", "glob", "exists", "delete", "generate_diff", "undo_edit"]
    {
        assert!(specs.iter().any(|s| s.name == required), "missing tool {required}");
    }
}

#[test]
fn unknown_fields_and_wrong_types_name_the_field() {
    let env = crate::support::Env::new();
    let result = env.refused("read_file", serde_json::json!({"path": "a", "bogus": 1}), "invalid_args");
    assert_eq!(result["error"]["field"], "bogus");
    let result =
        env.refused("edit_file", serde_json::json!({"path": "a", "old_string": 5, "new_string": ""}), "invalid_args");
    assert_eq!(result["error"]["field"], "old_string");
    let result = env.refused("no_such_tool", serde_json::json!({}), "invalid_args");
    assert!(result["error"]["message"].as_str().unwrap().contains("read_file"));
    env.refused("read_file", serde_json::json!(["a"]), "invalid_args");
    // Aliases used by other agent tools are accepted.
    env.put("a.txt", b"x\n");
    env.ok("edit_file", serde_json::json!({"file_path": "a.txt", "old_str": "x", "new_str": "y"}));
}
