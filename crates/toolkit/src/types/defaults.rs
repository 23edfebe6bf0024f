//! Defaults of request fields and schema transforms the request types share.

/// A schema with no `description` or `default` anywhere in it.
pub(super) fn without_descriptions(schema: &mut schemars::Schema) {
    fn strip(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                map.remove("description");
                map.remove("default");
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut value = schema.clone().to_value();
    strip(&mut value);
    if let Ok(stripped) = schemars::Schema::try_from(value) {
        *schema = stripped;
    }
}

/// edit_file's schema without the empty defaults of old_string and new_string, which are
/// required unless `edits` is given.
pub(super) fn without_text_defaults(schema: &mut schemars::Schema) {
    if let Some(serde_json::Value::Object(properties)) = schema.get_mut("properties") {
        for name in ["old_string", "new_string"] {
            if let Some(serde_json::Value::Object(field)) = properties.get_mut(name) {
                field.remove("default");
            }
        }
    }
}

pub(super) fn yes() -> bool {
    true
}

pub(super) fn dot() -> String {
    ".".to_owned()
}

pub(super) fn three() -> usize {
    3
}

#[cfg(feature = "search")]
pub(super) fn hundred() -> usize {
    100
}

pub(super) fn thousand() -> usize {
    1000
}

pub(super) fn project_md() -> String {
    "PROJECT.md".to_owned()
}

/// The words of a unit-variant enum in its variants' order, as serde spells them, read from the
/// schema schemars derives from the same serde attributes (`enum`, or `oneOf` one-word schemas
/// when the variants have docs): the `enum` of a field that takes the type as a plain string,
/// so the schema and what serde takes cannot disagree.
pub(super) fn words<T: schemars::JsonSchema>() -> Vec<serde_json::Value> {
    let schema = schemars::schema_for!(T);
    if let Some(serde_json::Value::Array(words)) = schema.get("enum") {
        return words.clone();
    }
    let one_of = schema.get("oneOf").and_then(serde_json::Value::as_array);
    one_of
        .into_iter()
        .flatten()
        .flat_map(|one| {
            let listed = one.get("enum").and_then(serde_json::Value::as_array).into_iter().flatten();
            one.get("const").into_iter().chain(listed).cloned()
        })
        .collect()
}
