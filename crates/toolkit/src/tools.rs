//! The tool list and JSON dispatch of the tool-call contract.
//!
//! [`specs`] describes every tool (name, description written for a model, input and output
//! JSON Schemas, MCP hints); [`call`] runs one tool on JSON arguments and always returns one
//! JSON object: `{"ok": true, ...fields}` or
//! `{"ok": false, "error": {"kind": KIND, "message": TEXT, ...details}}`.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::Stop;
use crate::catalog::tool_list;
pub use crate::catalog::{
    Access, TOOLSETS, Tool, ToolSelection, ToolSet, ToolSpec, names, reference_markdown, selected_specs, specs,
};
use crate::error::{Error, Result};
use crate::toolkit::Toolkit;
use crate::types::*;

/// Largest JSON argument object accepted by [`call`], in bytes of its serialised form.
pub const MAX_ARGS_BYTES: usize = 64 << 20;

/// Deserialises arguments, naming the offending field on failure.
fn args<T: DeserializeOwned>(value: Value) -> Result<T> {
    let value = if value.is_null() { Value::Object(Map::new()) } else { value };
    if !value.is_object() {
        return Err(Error::InvalidArgs { field: None, message: "arguments must be a JSON object".into() });
    }
    serde_path_to_error::deserialize(value).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner().to_string();
        // Missing and unknown fields are reported at the top level; take the name from the text.
        let field = if path == "." { quoted_field(&inner) } else { Some(path) };
        Error::InvalidArgs { field, message: inner }
    })
}

/// edit_file's arguments: `edits`, or `old_string` and `new_string` (in any accepted
/// spelling), never both; one missing is refused by name, as a required field is.
fn edit_args(value: Value) -> Result<EditFileRequest> {
    const OLD: [&str; 4] = ["old_string", "old_str", "old_text", "search"];
    const NEW: [&str; 4] = ["new_string", "new_str", "new_text", "replace"];
    let given = |names: &[&str]| {
        let map = value.as_object()?;
        names.iter().find(|name| map.contains_key(**name)).map(|name| (*name).to_owned())
    };
    let (old, new, replace_all, edits) = (given(&OLD), given(&NEW), given(&["replace_all"]), given(&["edits"]));
    let edit_count = value.get("edits").and_then(Value::as_array).map_or(0, Vec::len);
    // Too many edits are refused before they are read into requests.
    if edit_count > crate::MAX_EDITS {
        return Err(Error::invalid(
            "edits",
            format!(
                "{edit_count} edits in one call, more than the {} a call may hold (MAX_EDITS); split them over several \
                 calls",
                crate::MAX_EDITS
            ),
        ));
    }
    // Unknown fields and wrong types are refused first, as for every tool.
    let request = args(value)?;
    if edits.is_some() {
        if let Some(single) = old.or(new).or(replace_all) {
            return Err(Error::invalid(
                "edits",
                format!(
                    "`edits` and `{single}` were given together; give several edits as `edits` (each with its \
                     old_string, new_string and replace_all), or one as old_string and new_string"
                ),
            ));
        }
    } else {
        for (name, present) in [("old_string", old), ("new_string", new)] {
            if present.is_none() {
                return Err(Error::invalid(
                    name,
                    format!("missing field `{name}`: give old_string and new_string, or several edits as `edits`"),
                ));
            }
        }
    }
    Ok(request)
}

fn quoted_field(message: &str) -> Option<String> {
    let start = message.find('`')? + 1;
    let end = start + message[start..].find('`')?;
    Some(message[start..end].to_owned())
}

fn ok<T: Serialize>(response: T) -> Result<Value> {
    let mut value =
        serde_json::to_value(response).map_err(|e| Error::InvalidArgs { field: None, message: e.to_string() })?;
    if let Some(map) = value.as_object_mut() {
        map.insert("ok".into(), Value::Bool(true));
    }
    Ok(value)
}

/// `schema` without what only documents it (`description`, `title`, `examples`): the same
/// validation in fewer bytes, for clients that receive every tool's schemas on every turn.
///
/// ```
/// let schema = serde_json::json!({"type": "object", "description": "x", "properties": {"a": {"type": "string", "description": "y"}}});
/// assert_eq!(editkit::tools::compact_schema(schema), serde_json::json!({"type": "object", "properties": {"a": {"type": "string"}}}));
/// ```
#[must_use]
pub fn compact_schema(schema: Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(key, _)| !matches!(key.as_str(), "description" | "title" | "examples"))
                .map(|(key, value)| {
                    // Inside `properties` the keys are field names, which may be any word.
                    let value = if key == "properties" {
                        match value {
                            Value::Object(fields) => {
                                Value::Object(fields.into_iter().map(|(k, v)| (k, compact_schema(v))).collect())
                            }
                            other => other,
                        }
                    } else {
                        compact_schema(value)
                    };
                    (key, value)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(compact_schema).collect()),
        other => other,
    }
}

/// One request of a tool's type from JSON arguments: through the tool's own parser when it
/// names one, else [`args`].
macro_rules! parse_request {
    ($value:ident, $request:ty) => {
        args::<$request>($value)
    };
    ($value:ident, $request:ty, $parse:ident) => {
        $parse($value)
    };
}

macro_rules! declare_dispatch {
    ($(
        $(#[$attr:meta])*
        $variant:ident $name:literal ($request:ty => $response:ty) $method:ident $(parse $parse:ident)? $(with $with:ident)?,
        $access:ident, destructive = $destructive:literal, idempotent = $idempotent:literal,
        $description:literal;
    )*) => {
        /// The dispatcher: parses the arguments into the tool's request and runs its method,
        /// under `control` when given and the method takes one. Each writing method opens with
        /// the toolkit's one read-only gate ([`Toolkit::admit`]), so JSON and typed calls are
        /// refused alike.
        fn run(tool: Tool, toolkit: &Toolkit, value: Value, control: Option<&Stop>) -> Result<Value> {
            let _ = control;
            match tool {
                $(
                    $(#[$attr])*
                    Tool::$variant => {
                        let request = parse_request!(value, $request $(, $parse)?)?;
                        $(
                            #[cfg(feature = "search")]
                            if let Some(control) = control {
                                return ok(toolkit.$with(request, control)?);
                            }
                        )?
                        ok(toolkit.$method(request)?)
                    }
                )*
            }
        }
    };
}

tool_list!(declare_dispatch);

/// Runs tool `name` with JSON `args`, returning its typed result as JSON or the error.
///
/// # Errors
/// `invalid_args` for an unknown tool or arguments that do not fit; the tool's own errors.
pub fn try_call(toolkit: &Toolkit, name: &str, args: Value) -> Result<Value> {
    dispatch(toolkit, name, args, None)
}

/// The one way a named call runs: the tool must be offered, its arguments within
/// [`MAX_ARGS_BYTES`]; then [`run`].
fn dispatch(toolkit: &Toolkit, name: &str, args: Value, control: Option<&Stop>) -> Result<Value> {
    let selection = &toolkit.options().tools;
    let Some(tool) = Tool::named(name).filter(|tool| selection.offers(*tool)) else {
        let available: Vec<&str> =
            Tool::ALL.iter().filter(|tool| selection.offers(**tool)).map(|tool| tool.name()).collect();
        let mut available = available.join(", ");
        if Tool::named(name).is_some() {
            available.push_str(&format!(
                " (`{name}` is not in the tool set `{}`: start with --tools all, or add it)",
                selection.as_str()
            ));
        }
        return Err(Error::UnknownTool { name: name.to_owned(), available });
    };
    admit_size(&args)?;
    run(tool, toolkit, args, control)
}

/// Refuses arguments over [`MAX_ARGS_BYTES`], naming the largest.
fn admit_size(args: &Value) -> Result<()> {
    let size = serde_json::to_string(args).map(|s| s.len()).unwrap_or(0);
    if size > MAX_ARGS_BYTES {
        // Name the largest argument, so the caller knows which one to shrink.
        let field = args.as_object().and_then(|map| {
            map.iter()
                .max_by_key(|(_, v)| serde_json::to_string(v).map(|s| s.len()).unwrap_or(0))
                .map(|(k, _)| k.clone())
        });
        return Err(Error::InvalidArgs {
            field,
            message: format!("arguments are {size} bytes, over the {MAX_ARGS_BYTES}-byte limit"),
        });
    }
    Ok(())
}

/// Runs tool `name` like [`call`], under `control`: the walks (`search_files`, `search_code`,
/// `glob`, `tree`) stop opening files once it is cancelled and report progress through it,
/// `apply_patch` reports its files as they are planned and checked; other tools run as
/// [`call`] runs them.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "needle\n").unwrap();
/// let toolkit = editkit::Toolkit::open(dir.path(), Default::default()).unwrap();
/// let control = editkit::search::Control::new();
/// control.cancel();
/// let result = editkit::tools::call_with_control(&toolkit, "search_files", serde_json::json!({"pattern": "needle"}), &control);
/// assert_eq!((result["files_searched"].as_u64(), result["truncated"].as_bool()), (Some(0), Some(true)));
/// ```
#[cfg(feature = "search")]
#[must_use]
pub fn call_with_control(toolkit: &Toolkit, name: &str, args: Value, control: &editkit_search::Control) -> Value {
    dispatch(toolkit, name, args, Some(control)).unwrap_or_else(|err| refusal(toolkit, &err))
}

/// Runs tool `name` with JSON `args` and always returns one contract object:
/// `{"ok": true, ...}` or `{"ok": false, "error": {"kind", "message", ...}}`.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let toolkit = editkit::Toolkit::open(dir.path(), Default::default()).unwrap();
/// let result = editkit::tools::call(&toolkit, "exists", serde_json::json!({"path": "nope.txt"}));
/// assert_eq!(result, serde_json::json!({"ok": true, "path": "nope.txt", "exists": false, "kind": null}));
/// let bad = editkit::tools::call(&toolkit, "exists", serde_json::json!({}));
/// assert_eq!(bad["error"]["kind"], "invalid_args");
/// assert_eq!(bad["error"]["field"], "path");
/// ```
#[must_use]
pub fn call(toolkit: &Toolkit, name: &str, args: Value) -> Value {
    match try_call(toolkit, name, args) {
        Ok(value) => value,
        Err(err) => refusal(toolkit, &err),
    }
}

/// The contract object of a refused call. A path outside the workspace also gets the roots
/// (`roots`, and named in the message), so the agent learns where it may work.
fn refusal(toolkit: &Toolkit, err: &Error) -> Value {
    let mut error = err.to_json();
    if err.error_kind() == crate::ErrorKind::OutsideWorkspace
        && let Some(map) = error.as_object_mut()
    {
        let roots: Vec<String> = toolkit.workspaces().iter().map(|w| w.root_path().display().to_string()).collect();
        // The message names each root as a reader sees it; `roots` keeps them exact.
        let shown: Vec<String> = toolkit
            .workspaces()
            .iter()
            .map(|w| crate::shown::ShownPath::from_path(w.root_path()).to_string())
            .collect();
        if let Some(Value::String(message)) = map.get_mut("message") {
            message.push_str(&format!(
                " (the workspace root{}: {})",
                if roots.len() == 1 { " is" } else { "s are" },
                shown.join(", ")
            ));
        }
        map.insert("roots".into(), json!(roots));
    }
    json!({"ok": false, "error": error})
}

/// Parses a contract call `{"tool": NAME, "args": {...}}` and runs it. `arguments` (the MCP
/// spelling) is taken for `args`; an `"id"` is allowed and ignored here (the caller echoes
/// it); any other key is refused by name, since it would otherwise run the tool with its
/// defaults. A [`Value`] cannot hold a repeated key: for JSON text, use [`call_json_text`],
/// which refuses one.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let toolkit = editkit::Toolkit::open(dir.path(), Default::default()).unwrap();
/// let call = serde_json::json!({"tool": "list_dir", "params": {"path": "src"}});
/// let result = editkit::tools::call_json(&toolkit, &call);
/// assert_eq!(result["error"]["field"], "params");
/// ```
#[must_use]
pub fn call_json(toolkit: &Toolkit, request: &Value) -> Value {
    match envelope(request) {
        Ok((name, args)) => call(toolkit, name, args),
        Err(err) => json!({"ok": false, "error": err.to_json()}),
    }
}

/// Parses a contract call from JSON text and runs it, as [`call_json`] does; the text is read
/// with [`crate::json::parse`], so a key repeated anywhere in it (the envelope, the arguments,
/// any nested object) refuses the call as `invalid_args` naming the key, and nothing runs.
/// Use this, not `serde_json` and [`call_json`], for text from outside: a parsed [`Value`]
/// has already dropped all but the last of two equal keys.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "keep\n").unwrap();
/// let toolkit = editkit::Toolkit::open(dir.path(), Default::default()).unwrap();
/// let text = br#"{"tool": "read_file", "tool": "delete", "args": {"path": "a.txt"}}"#;
/// let refused = editkit::tools::call_json_text(&toolkit, text);
/// assert_eq!(refused["error"]["kind"], "invalid_args");
/// assert_eq!(refused["error"]["field"], "tool");
/// assert!(dir.path().join("a.txt").exists());
/// ```
#[must_use]
pub fn call_json_text(toolkit: &Toolkit, text: &[u8]) -> Value {
    match crate::json::parse(text) {
        Ok(request) => call_json(toolkit, &request),
        Err(err) => json!({"ok": false, "error": Error::from(err).to_json()}),
    }
}

/// The tool name and arguments of a call object.
fn envelope(request: &Value) -> Result<(&str, Value)> {
    let invalid = |field: &str, message: String| Error::InvalidArgs { field: Some(field.into()), message };
    let Value::Object(map) = request else {
        return Err(invalid("tool", "a call is a JSON object {\"tool\": NAME, \"args\": {...}}".into()));
    };
    let name = match map.get("tool") {
        Some(Value::String(name)) => name.as_str(),
        Some(_) => return Err(invalid("tool", "`tool` must be a string naming a tool".into())),
        None => return Err(invalid("tool", "missing field `tool`: the name of the tool to call".into())),
    };
    if let Some(unknown) = map.keys().find(|key| !matches!(key.as_str(), "tool" | "args" | "arguments" | "id")) {
        let message = format!(
            "unknown field `{unknown}` in the call; a call is {{\"tool\": NAME, \"args\": {{...}}, \"id\": ANY}}"
        );
        return Err(invalid(unknown, message));
    }
    let args = match (map.get("args"), map.get("arguments")) {
        (Some(_), Some(_)) => return Err(invalid("arguments", "give `args` or `arguments`, not both".into())),
        (args, arguments) => args.or(arguments),
    };
    match args {
        None | Some(Value::Null) => Ok((name, Value::Object(Map::new()))),
        Some(args @ Value::Object(_)) => Ok((name, args.clone())),
        Some(_) => Err(invalid("args", "`args` must be a JSON object of the tool's arguments".into())),
    }
}
