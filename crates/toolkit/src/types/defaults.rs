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
