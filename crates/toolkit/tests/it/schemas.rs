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

/// A request built in Rust from its required fields is the request JSON with those fields
/// alone deserialises to: the constructors and the contract's defaults cannot drift apart.
#[test]
fn request_constructors_take_the_contracts_defaults() {
    use editkit::*;
    macro_rules! same {
        ($built:expr, $json:tt) => {{
            let built = $built;
            let parsed = serde_json::from_value(serde_json::json!($json)).unwrap();
            assert_eq!(built, parsed, "{}", stringify!($built));
        }};
    }
    same!(ReadFileRequest::new("a"), {"path": "a"});
    same!(WriteFileRequest::new("a", "x"), {"path": "a", "content": "x"});
    same!(WritePythonFileRequest::new("a.py", "x"), {"path": "a.py", "content": "x"});
    same!(WriteMarkdownFileRequest::new("a.md", "x"), {"path": "a.md", "content": "x"});
    same!(EditFileRequest::new("a", "o", "n"), {"path": "a", "old_string": "o", "new_string": "n"});
    same!(EditPythonFileRequest::new("a.py", "o", "n"), {"path": "a.py", "old_string": "o", "new_string": "n"});
    same!(ReplaceFunctionRequest::new("a.py", "f", "def f(): pass"), {"path": "a.py", "function_name": "f", "new_implementation": "def f(): pass"});
    same!(ApplyPatchRequest::new("p"), {"patch": "p"});
    same!(UndoEditRequest::new("a"), {"path": "a"});
    same!(UndoPatchRequest::new(), {});
    same!(SearchFilesRequest::new("x"), {"pattern": "x"});
    same!(ListDirRequest::new(), {});
    same!(GlobRequest::new("*.py"), {"pattern": "*.py"});
    same!(PathRequest::new("a"), {"path": "a"});
    same!(DeleteRequest::new("a"), {"path": "a"});
    same!(DeleteRequest::new("a").recursive(true), {"path": "a", "recursive": true});
    same!(ReadFileRequest::new("a").tail(3).include_symbols(true), {"path": "a", "tail": 3, "include_symbols": true});
    same!(GenerateDiffRequest::new("a", "x"), {"path": "a", "new_content": "x"});
    same!(UpdateProjectIndexRequest::new(), {});
    same!(EditorLoadRequest::new("a"), {"path": "a"});
    same!(EditorReadRequest::new("s"), {"session_id": "s"});
    same!(EditorWriteRequest::new("s", "t"), {"session_id": "s", "text": "t"});
    same!(EditorEditRequest::new("s", "o", "n"), {"session_id": "s", "old_string": "o", "new_string": "n"});
    same!(SessionRequest::new("s"), {"session_id": "s"});
    same!(ReadFilesRequest::new(vec!["a".to_owned()]), {"paths": ["a"]});
    same!(TreeRequest::new(), {});
    same!(TreeRequest::new().depth(1).sizes(true), {"depth": 1, "sizes": true});
    same!(MoveRequest::new("a", "b"), {"from": "a", "to": "b"});
    same!(NoArgs::new(), {});
    same!(HistoryRequest::new(), {});
    same!(HistoryRequest::new().path("a"), {"path": "a"});
    // Setters set what they name.
    let hash = editkit::vfs::Sha256::of(b"x");
    same!(
        EditFileRequest::new("a", "o", "n").replace_all(true).expected_hash(hash).within("f"),
        {"path": "a", "old_string": "o", "new_string": "n", "replace_all": true, "expected_hash": hash.to_string(), "within": "f"}
    );
    same!(
        SearchFilesRequest::new("x").path("src").max_results(5).case_sensitive(true),
        {"pattern": "x", "path": "src", "max_results": 5, "case_sensitive": true}
    );
}

/// A read-only toolkit offers the tools that never write, except those whose work can only end
/// in a write: every editor-session tool (an `editor_` tool added later is covered too).
#[test]
fn the_read_only_set_leaves_out_editor_sessions() {
    let specs = editkit::tools::specs();
    for spec in &specs {
        let session = spec.name.starts_with("editor_");
        assert_eq!(spec.in_read_only_set, spec.read_only && !session, "{}", spec.name);
    }
    let offered: Vec<&str> = specs.iter().filter(|spec| spec.in_read_only_set).map(|spec| spec.name).collect();
    for name in ["read_file", "list_dir", "exists", "glob", "search_files", "generate_diff", "check_syntax"] {
        assert!(offered.contains(&name), "{name} missing from the read-only set {offered:?}");
    }
}

/// Every other name an argument is accepted under is listed in its tool's input schema
/// (`x-aliases`, and in the description), so nothing a refusal mentions is missing from the
/// schema. The accepted names come from the refusal of an unknown field, which lists them all.
#[test]
fn every_accepted_alias_is_listed_in_the_schema() {
    let env = crate::support::Env::new();
    for spec in editkit::tools::specs() {
        if spec.input_schema["properties"].as_object().is_none_or(serde_json::Map::is_empty) {
            continue;
        }
        let refused = env.refused(spec.name, serde_json::json!({"zz_probe": 1}), "invalid_args");
        let message = refused["error"]["message"].as_str().unwrap();
        let accepted: std::collections::BTreeSet<String> =
            message.split('`').skip(1).step_by(2).filter(|name| *name != "zz_probe").map(str::to_owned).collect();
        assert!(!accepted.is_empty(), "{}: {message}", spec.name);
        let properties = spec.input_schema["properties"].as_object().unwrap();
        let mut listed: std::collections::BTreeSet<String> = properties.keys().cloned().collect();
        for property in properties.values() {
            for alias in property["x-aliases"].as_array().into_iter().flatten() {
                let alias = alias.as_str().unwrap();
                assert!(
                    property["description"].as_str().unwrap().contains(&format!("`{alias}`")),
                    "{}: {alias}",
                    spec.name
                );
                listed.insert(alias.to_owned());
            }
        }
        assert_eq!(accepted, listed, "{}: accepted names vs the schema's", spec.name);
    }
}

/// `docs/tools.md`, the tool reference the README points to, is the one generated from the
/// specs. `EDITKIT_UPDATE_DOCS=1 cargo test -p editkit --test it tool_reference` rewrites it.
#[test]
fn the_tool_reference_is_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/tools.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (start, end) = ("<!-- tool-reference:start -->\n", "<!-- tool-reference:end -->");
    let from = doc.find(start).expect("docs/tools.md has the tool-reference start marker") + start.len();
    let to = doc.find(end).expect("docs/tools.md has the tool-reference end marker");
    let current = editkit::tools::reference_markdown();
    if doc[from..to] != current {
        if std::env::var_os("EDITKIT_UPDATE_DOCS").is_some() {
            std::fs::write(&path, format!("{}{current}{}", &doc[..from], &doc[to..])).unwrap();
            return;
        }
        panic!(
            "docs/tools.md is out of date: run `EDITKIT_UPDATE_DOCS=1 cargo test -p editkit --test it tool_reference`"
        );
    }
    for spec in editkit::tools::specs() {
        assert!(current.contains(&format!("**`{}`**", spec.name)), "{} is missing from the reference", spec.name);
    }
    let readme =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md")).unwrap();
    assert!(readme.contains("[docs/tools.md](docs/tools.md)"), "README.md points to docs/tools.md");
}

/// A model choosing how to edit reads when to use which: each of the three edit tools'
/// descriptions names the other two, and the README's "Which edit tool" gives each a few lines.
#[test]
fn the_edit_tools_say_when_to_use_which() {
    let specs = editkit::tools::specs();
    let trio = ["edit_file", "merge_snippet", "apply_patch"];
    for name in trio {
        let spec = specs.iter().find(|spec| spec.name == name).unwrap();
        for other in trio.iter().filter(|other| **other != name) {
            assert!(spec.description.contains(other), "{name}'s description does not say when to use {other}");
        }
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let section = readme.split("## Which edit tool\n").nth(1).expect("README has `## Which edit tool`");
    let section = section.split("\n## ").next().unwrap();
    for name in trio {
        let entry = section
            .split("\n- ")
            .find(|entry| entry.starts_with(&format!("**`{name}`**")))
            .unwrap_or_else(|| panic!("README's `Which edit tool` has no entry for {name}"));
        let entry = entry.split("\n\n").next().unwrap();
        assert!(entry.lines().count() <= 6, "{name}'s entry is more than a few lines");
    }
}

/// `stale`'s words have one owner, [`editkit::StaleMode`]: what serde reads and writes, what
/// `as_str` and `FromStr` say, and the enum every schema offers are its `NAMES`.
#[test]
fn the_stale_words_are_stale_modes_names() {
    for name in editkit::StaleMode::NAMES {
        let mode: editkit::StaleMode = serde_json::from_value(serde_json::json!(name)).unwrap();
        assert_eq!(serde_json::to_value(mode).unwrap(), serde_json::json!(name));
        assert_eq!(mode.as_str(), *name);
        assert_eq!(name.parse::<editkit::StaleMode>(), Ok(mode));
    }
    // Every variant has its word in NAMES: the variants schemars derives from serde's names.
    let derived = schemars::schema_for!(editkit::StaleMode);
    let variants: Vec<&serde_json::Value> =
        derived.get("oneOf").and_then(serde_json::Value::as_array).unwrap().iter().map(|one| &one["const"]).collect();
    assert_eq!(serde_json::json!(variants), serde_json::json!(editkit::StaleMode::NAMES));
    let mut offering = 0;
    for spec in editkit::tools::specs() {
        if let Some(stale) = spec.input_schema["properties"].get("stale") {
            assert_eq!(stale["enum"], serde_json::json!(editkit::StaleMode::NAMES), "{}", spec.name);
            offering += 1;
        }
    }
    assert!(offering >= 4, "edit_file, insert_lines, merge_snippet and apply_patch take `stale`");
}

/// A request's `path` is declared once per kind of path, by `path_request!` in
/// `src/types/mod.rs` (the names it is also accepted under, its default, its doc line): no
/// request module spells those aliases itself, and every tool's `path` takes one kind's names.
/// The one exception is `history`'s optional filter, which takes `file_path` alone.
#[test]
fn every_request_path_is_declared_by_its_kind() {
    let types = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/types");
    for entry in std::fs::read_dir(&types).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().is_some_and(|name| name == "mod.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for spelled in [r#"alias = "filepath""#, r#"alias = "notebook_path""#, r#"alias = "directory""#] {
            assert!(!text.contains(spelled), "{} spells `{spelled}`: use path_request!", path.display());
        }
    }
    let kinds = [
        serde_json::json!(["file_path", "filepath"]),
        serde_json::json!(["file_path", "notebook_path"]),
        serde_json::json!(["directory"]),
    ];
    let mut declared = Vec::new();
    for spec in editkit::tools::specs() {
        let Some(aliases) = spec.input_schema["properties"].get("path").and_then(|path| path.get("x-aliases")) else {
            continue;
        };
        if spec.name == "history" {
            assert_eq!(aliases, &serde_json::json!(["file_path"]));
            continue;
        }
        assert!(kinds.contains(aliases), "{}: {aliases}", spec.name);
        declared.push(spec.name);
    }
    assert!(declared.len() >= 20, "{declared:?}");
}

/// `FileType` and `SymbolKind` spell the words of analyze's `FileKind` and `SymbolKind` again:
/// analyze is an optional dependency (the words must exist without it) and `binary` is the
/// codec's verdict, not analyze's. Each kind analyze has maps onto the same word here (the
/// `match` fails to compile when analyze gains a kind this list lacks).
#[cfg(feature = "analyze")]
#[test]
fn the_contracts_file_and_symbol_words_are_analyzes() {
    use editkit::analyze::{FileKind, SymbolKind};
    let files = [
        FileKind::Python,
        FileKind::Typescript,
        FileKind::Tsx,
        FileKind::Javascript,
        FileKind::Jsx,
        FileKind::Markdown,
        FileKind::Json,
        FileKind::Text,
    ];
    for kind in files {
        match kind {
            FileKind::Python
            | FileKind::Typescript
            | FileKind::Tsx
            | FileKind::Javascript
            | FileKind::Jsx
            | FileKind::Markdown
            | FileKind::Json
            | FileKind::Text => {}
        }
        let word = editkit::FileType::from(kind);
        assert_eq!(word.as_str(), kind.as_str());
        assert_eq!(serde_json::to_value(word).unwrap(), serde_json::to_value(kind).unwrap());
    }
    let symbols = [
        SymbolKind::Function,
        SymbolKind::AsyncFunction,
        SymbolKind::Class,
        SymbolKind::Method,
        SymbolKind::Interface,
        SymbolKind::TypeAlias,
        SymbolKind::Enum,
        SymbolKind::Namespace,
    ];
    for kind in symbols {
        match kind {
            SymbolKind::Function
            | SymbolKind::AsyncFunction
            | SymbolKind::Class
            | SymbolKind::Method
            | SymbolKind::Interface
            | SymbolKind::TypeAlias
            | SymbolKind::Enum
            | SymbolKind::Namespace => {}
        }
        let word = editkit::SymbolKind::from(kind);
        assert_eq!(serde_json::to_value(word).unwrap(), serde_json::to_value(kind).unwrap());
    }
}

/// A field that takes a unit-variant enum as a plain string lists its words from the type
/// (`defaults::words::<T>()`, read from serde's names, or the type's `NAMES`), never by hand.
#[test]
fn no_request_lists_an_enums_words_by_hand() {
    let types = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/types");
    let mut from_types = 0;
    for entry in std::fs::read_dir(&types).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains(r#""enum" = ["#), "{} lists enum words by hand", path.display());
        from_types += text.matches(r#""enum" = super::defaults::words::<"#).count();
        from_types += text.matches(r#""enum" = StaleMode::NAMES"#).count();
    }
    assert!(from_types >= 8, "{from_types}");
}
