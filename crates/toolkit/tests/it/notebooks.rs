//! Jupyter notebooks read and edited by cell, on nbformat's own test notebooks
//! (`fixtures/notebooks/`, from the nbformat 5.11.1 sdist on PyPI, BSD-3-Clause): every write is
//! checked by Jupyter's `nbformat` validator, run from the virtual environment
//! `crates/toolkit/tests/notebooks/setup.sh` makes (`.ci/run` runs it). Without it these tests
//! fail, saying what to run.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::{Env, fixtures};

/// nbformat 4.5 (cell ids), 4.0 (no ids, an image output), 4.4 (a traceback), 4.0 (jupyter
/// metadata and a stream output).
const NOTEBOOKS: [&str; 4] = ["test4.5.ipynb", "test4.ipynb", "many_tracebacks.ipynb", "test4jupyter_metadata.ipynb"];

fn corpus(name: &str) -> Vec<u8> {
    std::fs::read(fixtures().join("notebooks").join(name)).unwrap()
}

fn python() -> PathBuf {
    let venv = std::env::var_os("NBFORMAT_VENV")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/nbformat-venv"), PathBuf::from);
    venv.join("bin/python")
}

/// Fails, loudly, unless Jupyter's validator accepts the notebook at `path` in `env`.
#[track_caller]
fn assert_valid(env: &Env, path: &str) {
    let python = python();
    assert!(
        python.exists(),
        "{} is missing: the notebook tests validate with Jupyter's nbformat; run \
         crates/toolkit/tests/notebooks/setup.sh first",
        python.display()
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/notebooks/validate.py");
    let output = std::process::Command::new(&python).arg(script).arg(env.dir.path().join(path)).output().unwrap();
    assert!(
        output.status.success(),
        "nbformat refused `{path}`: {}{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
        env.get(path)
    );
}

fn bytes(env: &Env, path: &str) -> Vec<u8> {
    std::fs::read(env.dir.path().join(path)).unwrap()
}

fn parsed(env: &Env, path: &str) -> Value {
    serde_json::from_slice(&bytes(env, path)).unwrap()
}

/// The part of `old` and of `new` that differs, once their common start and end are taken off.
fn changed<'a>(old: &'a [u8], new: &'a [u8]) -> (&'a str, &'a str) {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let room = old.len().min(new.len()) - prefix;
    let suffix = old.iter().rev().zip(new.iter().rev()).take(room).take_while(|(a, b)| a == b).count();
    let text = |b: &'a [u8]| std::str::from_utf8(&b[prefix..b.len() - suffix]).unwrap_or("<not utf-8>");
    (text(old), text(new))
}

/// Checks the change from `old` to what `path` holds now: a valid notebook whose differing
/// bytes lie within one cell (at most one `"cell_type"` key on either side), every other
/// cell and the notebook's own members equal as values.
#[track_caller]
fn assert_one_cell_changed(env: &Env, path: &str, old: &[u8], changed_index: usize, inserted: bool) {
    assert_valid(env, path);
    let new = bytes(env, path);
    let (before, after) = changed(old, &new);
    assert!(
        before.matches("\"cell_type\"").count() <= 1 && after.matches("\"cell_type\"").count() <= 1,
        "{path}: the change spans several cells:\n--- was\n{before}\n--- now\n{after}"
    );
    let (old, new): (Value, Value) = (serde_json::from_slice(old).unwrap(), serde_json::from_slice(&new).unwrap());
    for key in ["metadata", "nbformat", "nbformat_minor"] {
        assert_eq!(old[key], new[key], "{path}: {key}");
    }
    let (old_cells, new_cells) = (old["cells"].as_array().unwrap(), new["cells"].as_array().unwrap());
    let (mut old_rest, mut new_rest) = (old_cells.clone(), new_cells.clone());
    if inserted {
        new_rest.remove(changed_index);
    } else if new_cells.len() < old_cells.len() {
        old_rest.remove(changed_index);
    } else {
        old_rest.remove(changed_index);
        new_rest.remove(changed_index);
    }
    assert_eq!(old_rest, new_rest, "{path}: another cell changed");
}

fn setup(name: &str) -> Env {
    let env = Env::new();
    env.put(name, &corpus(name));
    env
}

#[test]
fn the_fixture_notebooks_are_valid_as_shipped() {
    let env = Env::new();
    for name in NOTEBOOKS {
        env.put(name, &corpus(name));
        assert_valid(&env, name);
    }
}

#[test]
fn notebook_read_gives_cells_with_ids_sources_and_output_summaries() {
    let env = setup("test4.5.ipynb");
    let read = env.ok("notebook_read", json!({"path": "test4.5.ipynb"}));
    assert_eq!(read["nbformat"], "4.5");
    let cells = read["cells"].as_array().unwrap();
    let nb = parsed(&env, "test4.5.ipynb");
    assert_eq!(cells.len(), nb["cells"].as_array().unwrap().len());
    for (cell, raw) in cells.iter().zip(nb["cells"].as_array().unwrap()) {
        assert_eq!(cell["id"], raw["id"]);
        assert_eq!(cell["cell_type"], raw["cell_type"]);
        let source: String = raw["source"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
        assert_eq!(cell["source"], source);
        assert_eq!(cell["execution_count"], raw.get("execution_count").cloned().unwrap_or(Value::Null));
    }
    assert_eq!(cells[0]["source"], "# nbconvert latex test");
    // The image is named with its size, never inlined.
    let text = read.to_string();
    assert!(!text.contains("iVBOR"), "an image was inlined");
    let image = cells.iter().find(|c| c["outputs"].as_str().unwrap().contains("image/png")).unwrap();
    assert!(image["outputs"].as_str().unwrap().contains("bytes, not shown"), "{image}");
    // Older notebooks get positional ids.
    env.put("test4.ipynb", &corpus("test4.ipynb"));
    let old = env.ok("notebook_read", json!({"path": "test4.ipynb"}));
    assert_eq!(old["nbformat"], "4.0");
    assert_eq!(old["cells"][3]["id"], "cell-3");
    // A traceback is counted, not shown; its colours are taken out.
    env.put("many_tracebacks.ipynb", &corpus("many_tracebacks.ipynb"));
    let errors = env.ok("notebook_read", json!({"path": "many_tracebacks.ipynb"}));
    let summary = errors["cells"][0]["outputs"].as_str().unwrap();
    assert!(summary.starts_with("[error] NameError: name 'iAmNotDefined' is not defined (traceback of"), "{summary}");
    assert!(!summary.contains('\u{1b}'), "{summary}");
    // The summary is bounded, and so is the bound.
    let short = env.ok("notebook_read", json!({"path": "test4.5.ipynb", "max_output_chars": 5}));
    let cut = short["cells"].as_array().unwrap().iter().find(|c| c["outputs_truncated"] == true).unwrap();
    assert!(cut["outputs"].as_str().unwrap().contains("more characters)"), "{cut}");
    let refused =
        env.refused("notebook_read", json!({"path": "test4.5.ipynb", "max_output_chars": 20_001}), "invalid_args");
    assert!(refused["error"]["message"].as_str().unwrap().contains("MAX_OUTPUT_CHARS"), "{refused}");
    // Not a notebook.
    env.put("plain.json", b"{\"a\": 1}\n");
    let refused = env.refused("notebook_read", json!({"path": "plain.json"}), "invalid_args");
    assert!(refused["error"]["message"].as_str().unwrap().contains("not an nbformat 4 notebook"), "{refused}");
}

/// Runs `action` on cell `index` of every fixture notebook and checks the result.
#[track_caller]
fn each_notebook(action: &str, index: usize, extra: Value) {
    for name in NOTEBOOKS {
        let env = setup(name);
        let old = corpus(name);
        let count = parsed(&env, name)["cells"].as_array().unwrap().len();
        let index = index.min(count - 1);
        let mut args = json!({"path": name, "action": action, "index": index});
        args.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        let result = env.ok("notebook_edit", args);
        let inserted = action.starts_with("insert");
        let at = if action == "insert_after" { index + 1 } else { index };
        assert_eq!(result["index"], at, "{name}");
        let expected = if inserted {
            count + 1
        } else if action == "delete" {
            count - 1
        } else {
            count
        };
        assert_eq!(result["cell_count"], expected, "{name}");
        assert_one_cell_changed(&env, name, &old, at, inserted);
        let nb = parsed(&env, name);
        if action != "delete" {
            let cell = &nb["cells"][at];
            let source: String = cell["source"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
            assert_eq!(source, extra["source"].as_str().unwrap(), "{name}");
            if cell["cell_type"] == "code" {
                assert_eq!((&cell["outputs"], &cell["execution_count"]), (&json!([]), &Value::Null), "{name}");
            }
            // nbformat 4.5 cells carry ids; older ones must not.
            assert_eq!(cell.get("id").is_some(), nb["nbformat_minor"].as_u64().unwrap() >= 5, "{name}");
            if let Some(id) = cell.get("id") {
                assert_eq!(&result["cell_id"], id, "{name}");
            }
        }
        // Undo gives the notebook back byte for byte.
        env.ok("undo_edit", json!({"path": name}));
        assert_eq!(bytes(&env, name), old, "{name}: undo");
    }
}

#[test]
fn replace_changes_one_cell_and_clears_code_outputs() {
    each_notebook("replace", 3, json!({"source": "x = 1\nprint(x)\n"}));
    each_notebook("replace", 0, json!({"source": "# Title\n\nText."}));
}

#[test]
fn replace_may_change_a_cell_type() {
    each_notebook("replace", 0, json!({"source": "import os", "cell_type": "code"}));
    each_notebook("replace", 3, json!({"source": "A note.", "cell_type": "markdown"}));
    each_notebook("replace", 1, json!({"source": "raw text", "cell_type": "raw"}));
}

#[test]
fn insert_before_and_after_add_one_cell() {
    each_notebook("insert_before", 0, json!({"source": "# Before", "cell_type": "markdown"}));
    each_notebook("insert_after", 2, json!({"source": "y = 2\n"}));
    each_notebook("insert_after", usize::MAX, json!({"source": "last()"}));
}

#[test]
fn delete_removes_one_cell() {
    each_notebook("delete", 0, json!({}));
    each_notebook("delete", 4, json!({}));
    each_notebook("delete", usize::MAX, json!({}));
}

#[test]
fn cells_are_named_by_id_and_ids_are_unique() {
    let env = setup("test4.5.ipynb");
    let name = "test4.5.ipynb";
    let id = parsed(&env, name)["cells"][2]["id"].as_str().unwrap().to_owned();
    env.ok("notebook_read", json!({"path": name}));
    let mut ids = std::collections::BTreeSet::new();
    for n in 0..5 {
        let added = env.ok(
            "notebook_edit",
            json!({"path": name, "cell_id": id, "action": "insert_after", "source": "same", "cell_type": "raw"}),
        );
        assert!(ids.insert(added["cell_id"].as_str().unwrap().to_owned()), "repeated id on insert {n}");
        assert_valid(&env, name);
    }
    let refused =
        env.refused("notebook_edit", json!({"path": name, "cell_id": "nope", "action": "delete"}), "not_found");
    assert!(refused["error"]["message"].as_str().unwrap().contains(&id), "{refused}");
    // A deleted cell, then its id, are gone.
    env.ok("notebook_edit", json!({"path": name, "cell_id": id, "action": "delete"}));
    env.refused("notebook_edit", json!({"path": name, "cell_id": id, "action": "delete"}), "not_found");
    assert_valid(&env, name);
    // Positional ids name cells of older notebooks.
    env.put("test4.ipynb", &corpus("test4.ipynb"));
    env.ok(
        "notebook_edit",
        json!({"path": "test4.ipynb", "cell_id": "cell-3", "action": "replace", "source": "z = 3"}),
    );
    assert_eq!(parsed(&env, "test4.ipynb")["cells"][3]["source"], json!(["z = 3"]));
    assert_valid(&env, "test4.ipynb");
}

#[test]
fn an_emptied_notebook_takes_cells_again() {
    let env = setup("many_tracebacks.ipynb");
    let name = "many_tracebacks.ipynb";
    env.ok("notebook_edit", json!({"path": name, "index": 0, "action": "delete"}));
    assert_eq!(parsed(&env, name)["cells"], json!([]));
    assert_valid(&env, name);
    env.refused("notebook_edit", json!({"path": name, "index": 0, "action": "replace", "source": "x"}), "not_found");
    env.ok("notebook_edit", json!({"path": name, "index": 0, "action": "insert_before", "source": "x = 1\n"}));
    assert_valid(&env, name);
    assert_eq!(parsed(&env, name)["cells"][0]["source"], json!(["x = 1\n"]));
}

#[test]
fn edit_file_with_cell_id_edits_inside_one_cell_with_drift() {
    let env = setup("test4.5.ipynb");
    let name = "test4.5.ipynb";
    let old = corpus(name);
    let nb = parsed(&env, name);
    let (index, cell) = nb["cells"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .find(|(_, c)| c["outputs"] != json!([]) && c["cell_type"] == "code")
        .unwrap();
    let source: String = cell["source"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    let id = cell["id"].as_str().unwrap();
    let first_line = source.lines().next().unwrap().to_owned();
    // The old text drifts: extra indentation and trailing spaces.
    let drifted = format!("    {first_line}   ");
    let edit = env.ok(
        "edit_file",
        json!({"path": name, "cell_id": id, "old_string": drifted, "new_string": format!("{first_line}  # edited")}),
    );
    assert_ne!(edit["rung"], "exact", "{edit}");
    assert_eq!(edit["line_range"], json!([1, 1]));
    assert!(edit["diff"].as_str().unwrap().contains("# edited"), "{edit}");
    assert_one_cell_changed(&env, name, &old, index, false);
    let now = &parsed(&env, name)["cells"][index];
    let new_source: String = now["source"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    assert_eq!(new_source, source.replacen(&first_line, &format!("{first_line}  # edited"), 1));
    assert_eq!((&now["outputs"], &now["execution_count"]), (&json!([]), &Value::Null));
    // Text only another cell holds is not found in this one.
    let elsewhere = nb["cells"][0]["source"][0].as_str().unwrap();
    env.refused(
        "edit_file",
        json!({"path": name, "cell_id": id, "old_string": elsewhere, "new_string": "x"}),
        "not_found",
    );
    env.refused(
        "edit_file",
        json!({"path": name, "cell_id": "nope", "old_string": "a", "new_string": "b"}),
        "not_found",
    );
    // A dry run writes nothing; undo restores every byte.
    let before = bytes(&env, name);
    let dry = json!({"path": name, "cell_id": id, "old_string": "# edited", "new_string": "# again", "dry_run": true});
    assert_eq!(env.ok("edit_file", dry)["dry_run"], true);
    assert_eq!(bytes(&env, name), before);
    env.ok("undo_edit", json!({"path": name}));
    assert_eq!(bytes(&env, name), old);
}

#[test]
fn a_stale_notebook_is_refused_and_nothing_is_written() {
    let env = setup("test4.5.ipynb");
    let name = "test4.5.ipynb";
    env.ok("notebook_read", json!({"path": name}));
    // Someone saves the notebook from Jupyter meanwhile.
    let theirs = String::from_utf8(corpus(name)).unwrap().replace("nbconvert latex test", "saved elsewhere");
    env.put(name, theirs.as_bytes());
    let edit = json!({"path": name, "index": 0, "action": "replace", "source": "# mine"});
    env.refused("notebook_edit", edit.clone(), "stale");
    let id = parsed(&env, name)["cells"][0]["id"].clone();
    env.refused(
        "edit_file",
        json!({"path": name, "cell_id": id, "old_string": "saved elsewhere", "new_string": "mine"}),
        "stale",
    );
    assert_eq!(env.get(name), theirs);
    // Read again, the edit goes through; force does too.
    env.ok("notebook_read", json!({"path": name}));
    env.ok("notebook_edit", edit);
    assert_valid(&env, name);
}

#[test]
fn dry_run_shows_the_diff_and_writes_nothing() {
    let env = setup("test4.ipynb");
    let name = "test4.ipynb";
    let dry = env
        .ok("notebook_edit", json!({"path": name, "index": 0, "action": "replace", "source": "pass", "dry_run": true}));
    assert_eq!(dry["dry_run"], true);
    assert!(dry["diff"].as_str().unwrap().contains("+    \"pass\""), "{dry}");
    assert_eq!(bytes(&env, name), corpus(name));
    env.refused("undo_edit", json!({"path": name}), "not_found");
}

#[test]
fn crlf_notebooks_keep_their_line_endings() {
    let env = Env::new();
    let name = "crlf.ipynb";
    let crlf = String::from_utf8(corpus("test4.5.ipynb")).unwrap().replace('\n', "\r\n");
    env.put(name, crlf.as_bytes());
    env.ok("notebook_edit", json!({"path": name, "index": 3, "action": "replace", "source": "a = 1\nb = 2\n"}));
    env.ok("notebook_edit", json!({"path": name, "index": 0, "action": "insert_after", "source": "# New\n\ntext"}));
    env.ok("notebook_edit", json!({"path": name, "index": 5, "action": "delete"}));
    let text = env.get(name);
    assert_eq!(text.matches('\n').count(), text.matches("\r\n").count(), "a line lost its CR");
    assert_valid(&env, name);
}

#[test]
fn arguments_and_bounds_are_refused_by_name_and_nothing_is_written() {
    let env = setup("test4.5.ipynb");
    let name = "test4.5.ipynb";
    let cases = [
        (json!({"path": name, "action": "replace", "source": "x"}), "invalid_args", "cell_id"),
        (json!({"path": name, "index": 0, "cell_id": "a", "action": "delete"}), "invalid_args", "index"),
        (json!({"path": name, "index": 0, "action": "replace"}), "invalid_args", "source"),
        (json!({"path": name, "index": 0, "action": "delete", "source": "x"}), "invalid_args", "source"),
        (json!({"path": name, "index": 0, "action": "delete", "cell_type": "code"}), "invalid_args", "cell_type"),
        (json!({"path": name, "index": 0, "action": "move", "source": "x"}), "invalid_args", "action"),
        (json!({"path": name, "index": 99, "action": "delete"}), "not_found", ""),
        (
            json!({"path": name, "index": 0, "action": "replace", "source": "x".repeat(editkit::notebook::MAX_SOURCE_BYTES + 1)}),
            "too_large",
            "source",
        ),
    ];
    for (args, kind, field) in cases {
        let refused = env.refused("notebook_edit", args.clone(), kind);
        if !field.is_empty() {
            assert_eq!(refused["error"]["field"], field, "{args:.200}: {refused}");
        }
        assert_eq!(bytes(&env, name), corpus(name), "{args:.200}");
    }
    let big = env.refused(
        "notebook_edit",
        json!({"path": name, "index": 0, "action": "replace", "source": "x".repeat(editkit::notebook::MAX_SOURCE_BYTES + 1)}),
        "too_large",
    );
    assert!(big["error"]["message"].as_str().unwrap().contains("MAX_SOURCE_BYTES"), "{big}");
    // A replacement that changes nothing.
    let same = parsed(&env, name)["cells"][0]["source"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect::<String>();
    env.refused("notebook_edit", json!({"path": name, "index": 0, "action": "replace", "source": same}), "no_change");
    // Too many cells.
    let cell = r#"{"cell_type": "raw", "metadata": {}, "source": []}"#;
    let cells = vec![cell; editkit::notebook::MAX_CELLS + 1].join(",\n  ");
    let many = format!(
        "{{\n \"cells\": [\n  {cells}\n ],\n \"metadata\": {{}},\n \"nbformat\": 4,\n \"nbformat_minor\": 4\n}}\n"
    );
    env.put("many.ipynb", many.as_bytes());
    let refused = env.refused("notebook_read", json!({"path": "many.ipynb"}), "too_large");
    assert!(refused["error"]["message"].as_str().unwrap().contains("MAX_CELLS"), "{refused}");
    env.refused("notebook_edit", json!({"path": "many.ipynb", "index": 0, "action": "delete"}), "too_large");
    assert_eq!(env.get("many.ipynb"), many);
    // nbformat 3 is not edited.
    env.put("v3.ipynb", b"{\"nbformat\": 3, \"nbformat_minor\": 0, \"worksheets\": [], \"metadata\": {}}");
    env.refused("notebook_read", json!({"path": "v3.ipynb"}), "invalid_args");
}

#[test]
fn a_read_only_toolkit_refuses_notebook_edits_but_runs_dry_runs() {
    let env = Env::with_options(editkit::ToolkitOptions { read_only: true, ..Default::default() });
    env.put("n.ipynb", &corpus("test4.ipynb"));
    env.refused("notebook_edit", json!({"path": "n.ipynb", "index": 0, "action": "delete"}), "blocked");
    env.ok("notebook_edit", json!({"path": "n.ipynb", "index": 0, "action": "delete", "dry_run": true}));
    assert_eq!(bytes(&env, "n.ipynb"), corpus("test4.ipynb"));
}
