//! The code-intel tools with the real language servers `cargo xtask lsp-tools` installs
//! (basedpyright, typescript-language-server, rust-analyzer): renames across files, atomic
//! and refused whole when a file changed since the plan; symbols by name path; references
//! with their line texts; `unavailable` without a server. A missing server fails the tests.

use std::collections::BTreeMap;
use std::path::Path;

use editkit::{Toolkit, ToolkitOptions};
use serde_json::{Value, json};

use crate::support::{copy_tree, fixtures, with_servers};

/// A copy of `fixtures/lsp/<name>` in a temp dir, and a toolkit with the installed servers.
fn fixture(name: &str) -> (tempfile::TempDir, Toolkit) {
    fixture_with(name, with_servers())
}

fn fixture_with(name: &str, options: ToolkitOptions) -> (tempfile::TempDir, Toolkit) {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures().join("lsp").join(name), dir.path());
    let toolkit = Toolkit::open(dir.path(), options).unwrap();
    (dir, toolkit)
}

/// Every file under `root` (the state folder lives elsewhere), by relative path.
fn snapshot(root: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                files.insert(rel, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    files
}

/// `before` with every whole-word `old` made `new`.
fn renamed_by_hand(before: &BTreeMap<String, String>, old: &str, new: &str) -> BTreeMap<String, String> {
    before.iter().map(|(path, text)| (path.clone(), text.replace(old, new))).collect()
}

#[track_caller]
fn ok(toolkit: &Toolkit, tool: &str, args: Value) -> Value {
    let result = editkit::tools::call(toolkit, tool, args.clone());
    assert_eq!(result["ok"], true, "{tool} {args}: {result:#}");
    result
}

#[track_caller]
fn refused(toolkit: &Toolkit, tool: &str, args: Value, kind: &str) -> Value {
    let result = editkit::tools::call(toolkit, tool, args.clone());
    assert_eq!(result["ok"], false, "{tool} {args}: {result:#}");
    assert_eq!(result["error"]["kind"], kind, "{tool} {args}: {result:#}");
    result
}

/// The whole story of one rename: a dry run shows every file's diff and writes nothing; a
/// file changed between the dry run and the run with its plan refuses the whole rename; the
/// run with a fresh plan writes exactly the renamed tree; undo_patch restores all of it.
fn rename_story(name: &str, args: Value, (old, new): (&str, &str), files: usize, changed: &str) {
    let (dir, toolkit) = fixture(name);
    let root = dir.path();
    let before = snapshot(root);
    let mut dry = args.clone();
    dry["dry_run"] = json!(true);
    let preview = ok(&toolkit, "rename_symbol", dry.clone());
    assert_eq!(preview["dry_run"], true);
    assert_eq!(preview["old_name"], old);
    assert_eq!(preview["files"].as_array().unwrap().len(), files, "{preview:#}");
    let diff = preview["diff"].as_str().unwrap();
    for file in preview["files"].as_array().unwrap() {
        let path = file["path"].as_str().unwrap();
        assert!(diff.contains(&format!("+++ b/{path}")), "{path} missing from the diff:\n{diff}");
    }
    assert!(diff.contains(&format!("-{}", before[changed].lines().find(|l| l.contains(old)).unwrap())), "{diff}");
    assert_eq!(snapshot(root), before, "a dry run wrote");

    // A file of the plan changes: the whole rename is refused, nothing written.
    let plan = preview["plan"].clone();
    let touched = format!("{}// or # touched\n", before[changed]);
    std::fs::write(root.join(changed), &touched).unwrap();
    let mut with_plan = args.clone();
    with_plan["plan"] = plan;
    refused(&toolkit, "rename_symbol", with_plan, "stale");
    let mut expected_now = before.clone();
    expected_now.insert(changed.to_owned(), touched);
    assert_eq!(snapshot(root), expected_now, "a refused rename wrote");
    std::fs::write(root.join(changed), &before[changed]).unwrap();

    // A fresh plan, then the rename with it: the tree renamed, all files at once.
    let preview = ok(&toolkit, "rename_symbol", dry);
    let mut with_plan = args;
    with_plan["plan"] = preview["plan"].clone();
    let done = ok(&toolkit, "rename_symbol", with_plan);
    assert_eq!(done["dry_run"], false);
    assert_eq!(done["files"].as_array().unwrap().len(), files);
    assert_eq!(snapshot(root), renamed_by_hand(&before, old, new));

    // One undo brings every file back.
    ok(&toolkit, "undo_patch", json!({}));
    assert_eq!(snapshot(root), before);
}

#[test]
fn a_python_function_used_in_five_files_is_renamed_atomically() {
    let args = json!({"path": "pkg/util.py", "line": 1, "symbol": "compute_total", "new_name": "sum_items"});
    rename_story("py", args, ("compute_total", "sum_items"), 6, "pkg/use3.py");
}

#[test]
fn a_typescript_class_member_used_across_modules_is_renamed_atomically() {
    // By name path, without a line.
    let args = json!({"path": "src/shape.ts", "symbol": "Shape/area", "new_name": "size"});
    rename_story("ts", args, ("area", "size"), 5, "src/use2.ts");
}

#[test]
fn a_rust_function_across_modules_is_renamed_atomically() {
    let args = json!({"path": "src/util.rs", "line": 1, "column": 10, "new_name": "add_up"});
    rename_story("rs", args, ("compute_total", "add_up"), 3, "src/b.rs");
}

#[test]
fn find_symbol_takes_a_name_path_and_gives_lines_and_their_text() {
    let (_dir, toolkit) = fixture("ts");
    let found = ok(&toolkit, "find_symbol", json!({"name_path": "Shape/area"}));
    assert_eq!(found["complete"], true, "{found:#}");
    assert_eq!(
        found["symbols"],
        json!([{"path": "src/shape.ts", "line": 2, "column": 3, "name": "area", "kind": "method",
                "container": "Shape", "text": "  area(): number { return 1; }", "language": "typescript"}])
    );
    // Another container: nothing.
    let none = ok(&toolkit, "find_symbol", json!({"name_path": "Circle/area"}));
    assert_eq!(none["symbols"], json!([]));

    let (dir, python) = fixture("py");
    copy_tree(&fixtures().join("calls/tree"), dir.path());
    let found = ok(&python, "find_symbol", json!({"name_path": "Greeter/greet", "language": "python"}));
    let symbols = found["symbols"].as_array().unwrap();
    assert_eq!(symbols.len(), 1, "{found:#}");
    assert_eq!(symbols[0]["path"], "src/app.py");
    assert_eq!(symbols[0]["line"], 8);
    assert_eq!(symbols[0]["text"], "    def greet(self):");
    // A module path names a function too; in one file only with path.
    let found = ok(&python, "find_symbol", json!({"name_path": "util/compute_total"}));
    assert_eq!(found["symbols"][0]["path"], "pkg/util.py", "{found:#}");
    assert_eq!(found["symbols"].as_array().unwrap().len(), 1);
    let in_file = ok(&python, "find_symbol", json!({"name_path": "compute_total", "path": "pkg/use1.py"}));
    assert_eq!(in_file["symbols"], json!([]), "{in_file:#}");

    let (_dir, toolkit) = fixture("rs");
    let found = ok(&toolkit, "find_symbol", json!({"name_path": "util::compute_total"}));
    assert_eq!(found["symbols"][0]["path"], "src/util.rs", "{found:#}");
    assert_eq!(found["symbols"][0]["line"], 1);
    assert_eq!(found["symbols"][0]["text"], "pub fn compute_total(items: &[i32]) -> i32 {");
}

#[test]
fn find_references_gives_every_use_with_its_line_text() {
    let (_dir, toolkit) = fixture("py");
    let found = ok(&toolkit, "find_references", json!({"path": "pkg/util.py", "line": 1, "symbol": "compute_total"}));
    assert_eq!(found["complete"], true);
    assert_eq!(found["total"], 10, "{found:#}");
    assert_eq!(found["omitted_outside"], 0);
    let shown: Vec<(String, u64, String)> = found["references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_owned(),
                r["line"].as_u64().unwrap(),
                r["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(shown[0], ("main.py".to_owned(), 3, "print(util.compute_total([1]))".to_owned()));
    assert_eq!(shown[1], ("pkg/use1.py".to_owned(), 1, "from pkg.util import compute_total".to_owned()));
    assert_eq!(shown[2], ("pkg/use1.py".to_owned(), 5, "    return compute_total([1, 2, 3])".to_owned()));
    assert_eq!(shown[9], ("pkg/util.py".to_owned(), 1, "def compute_total(items: list[int]) -> int:".to_owned()));
    // Without the declaration, and bounded.
    let uses = ok(
        &toolkit,
        "find_references",
        json!({"path": "pkg/use2.py", "line": 5, "column": 14, "include_declaration": false, "max_results": 3}),
    );
    assert_eq!(uses["symbol"], "compute_total");
    assert_eq!(uses["total"], 9, "{uses:#}");
    assert_eq!(uses["references"].as_array().unwrap().len(), 3);
    assert_eq!(uses["truncated"], true);

    let (_dir, toolkit) = fixture("ts");
    let found = ok(&toolkit, "find_references", json!({"path": "src/shape.ts", "symbol": "Shape/area"}));
    let lines: Vec<(&str, u64, &str)> = found["references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["path"].as_str().unwrap(), r["line"].as_u64().unwrap(), r["text"].as_str().unwrap()))
        .collect();
    assert_eq!(lines.len(), 5, "{found:#}");
    assert_eq!(lines[1], ("src/use1.ts", 2, "export function f1(s: Shape): number { return s.area() + 1; }"));
    assert_eq!(found["references"][1]["column"], 49);
}

#[test]
fn diagnostics_are_fresh_for_the_current_text_beside_the_syntax_check() {
    let (dir, toolkit) = fixture("py");
    std::fs::write(dir.path().join("bad.py"), "def f() -> int:\n    return \"text\"\n").unwrap();
    let first = ok(&toolkit, "diagnostics", json!({"path": "bad.py", "wait_ms": 60000}));
    let file = &first["files"][0];
    assert_eq!(file["server"]["state"], "fresh", "{first:#}");
    assert_eq!(file["server"]["version"], 1);
    assert!(file["server"]["diagnostics"].as_array().is_some_and(|d| !d.is_empty()), "{first:#}");
    assert_eq!(file["syntax"]["valid"], true);
    // The file changes: the answer is for the new text, version 2.
    std::fs::write(dir.path().join("bad.py"), "def f() -> int:\n    return 1\n").unwrap();
    let second = ok(&toolkit, "diagnostics", json!({"path": "bad.py", "wait_ms": 60000}));
    assert_eq!(second["files"][0]["server"]["state"], "fresh", "{second:#}");
    assert_eq!(second["files"][0]["server"]["version"], 2);
    assert_eq!(second["files"][0]["server"]["diagnostics"], json!([]));
    // Without a path: the files open with the running servers.
    let open = ok(&toolkit, "diagnostics", json!({}));
    assert!(open["files"].as_array().unwrap().iter().any(|f| f["path"] == "bad.py"), "{open:#}");
    // A syntax error: the built-in check says so at once, beside the server.
    std::fs::write(dir.path().join("bad.py"), "def f(:\n").unwrap();
    let broken = ok(&toolkit, "diagnostics", json!({"path": "bad.py", "wait_ms": 60000}));
    assert_eq!(broken["files"][0]["syntax"]["valid"], false, "{broken:#}");
}

#[test]
fn without_a_server_each_tool_says_unavailable_and_what_to_install() {
    let mut options = ToolkitOptions::default();
    options.language_servers.path = Some(std::ffi::OsString::from("/nonexistent-editkit-bin"));
    let (dir, toolkit) = fixture_with("py", options);
    let before = snapshot(dir.path());
    let at = json!({"path": "pkg/util.py", "line": 1, "symbol": "compute_total"});
    let mut rename = at.clone();
    rename["new_name"] = json!("sum_items");
    for (tool, args) in [
        ("find_symbol", json!({"name_path": "compute_total"})),
        ("find_references", at.clone()),
        ("rename_symbol", rename),
    ] {
        let result = refused(&toolkit, tool, args, "unavailable");
        let message = result["error"]["message"].as_str().unwrap();
        assert!(message.contains("pip install basedpyright"), "{tool}: {message}");
        assert_eq!(result["error"]["language"], "python");
        assert!(result["error"]["install"].as_str().unwrap().contains("basedpyright"));
    }
    let diagnostics = ok(&toolkit, "diagnostics", json!({"path": "pkg/util.py"}));
    let server = &diagnostics["files"][0]["server"];
    assert_eq!(server["state"], "unavailable", "{diagnostics:#}");
    assert!(server["install"].as_str().unwrap().contains("basedpyright"));
    assert_eq!(diagnostics["files"][0]["syntax"]["valid"], true);
    // tree-sitter's symbols need no server.
    let symbols = ok(&toolkit, "file_symbols", json!({"path": "pkg/util.py"}));
    assert_eq!(symbols["symbols"][0]["name"], "compute_total");
    assert_eq!(snapshot(dir.path()), before);

    // Servers turned off: the same, saying so, even with them on PATH.
    let mut off = with_servers();
    off.language_servers.enabled = false;
    let (_dir, toolkit) = fixture_with("ts", off);
    let result = refused(&toolkit, "find_symbol", json!({"name_path": "Shape/area"}), "unavailable");
    assert!(result["error"]["message"].as_str().unwrap().contains("language servers are off"), "{result:#}");
    let diagnostics = ok(&toolkit, "diagnostics", json!({"path": "src/shape.ts"}));
    assert_eq!(diagnostics["files"][0]["server"]["state"], "unavailable");
}

#[test]
fn a_bad_new_name_or_position_is_refused_before_anything_is_written() {
    let (dir, toolkit) = fixture("py");
    let before = snapshot(dir.path());
    for new_name in ["", "two words", "1st", "a\nb", "sum-items"] {
        let args = json!({"path": "pkg/util.py", "line": 1, "symbol": "compute_total", "new_name": new_name});
        let result = refused(&toolkit, "rename_symbol", args, "invalid_args");
        assert_eq!(result["error"]["field"], "new_name", "{result:#}");
    }
    let args = json!({"path": "pkg/util.py", "line": 9, "column": 1, "new_name": "x"});
    assert_eq!(refused(&toolkit, "rename_symbol", args, "invalid_args")["error"]["field"], "line");
    let args = json!({"path": "pkg/util.py", "line": 1, "symbol": "absent", "new_name": "x"});
    assert_eq!(refused(&toolkit, "rename_symbol", args, "invalid_args")["error"]["field"], "symbol");
    let args = json!({"path": "../outside.py", "line": 1, "column": 1, "new_name": "x"});
    refused(&toolkit, "rename_symbol", args, "outside_workspace");
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn a_rename_across_a_read_only_file_is_refused_whole() {
    use std::os::unix::fs::PermissionsExt as _;
    let (dir, toolkit) = fixture("py");
    let locked = dir.path().join("pkg/use4.py");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = snapshot(dir.path());
    let args = json!({"path": "pkg/util.py", "line": 1, "symbol": "compute_total", "new_name": "sum_items"});
    let result = refused(&toolkit, "rename_symbol", args, "permission_denied");
    assert!(result["error"]["message"].as_str().unwrap().contains("use4.py"), "{result:#}");
    assert_eq!(snapshot(dir.path()), before);
}

/// A toolkit on a copy of the Python fixture whose Python server is the stand-in in `mode`
/// (`fixtures/lsp/stand-in`), first on its PATH.
fn with_stand_in(mode: &str) -> (tempfile::TempDir, std::path::PathBuf, Toolkit) {
    with_stand_in_options(mode, ToolkitOptions::default())
}

/// [`with_stand_in`] with `options` (its PATH set to the stand-in's first).
fn with_stand_in_options(mode: &str, mut options: ToolkitOptions) -> (tempfile::TempDir, std::path::PathBuf, Toolkit) {
    let temp = tempfile::tempdir().unwrap();
    let bin = temp.path().join("stand-in-bin");
    std::fs::create_dir(&bin).unwrap();
    std::fs::copy(fixtures().join("lsp/stand-in/basedpyright-langserver"), bin.join("basedpyright-langserver"))
        .unwrap();
    std::fs::write(bin.join("mode"), mode).unwrap();
    let root = temp.path().join("root");
    std::fs::create_dir(&root).unwrap();
    copy_tree(&fixtures().join("lsp/py"), &root);
    let mut path = vec![bin];
    path.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    options.language_servers.path = Some(std::env::join_paths(path).unwrap());
    let toolkit = Toolkit::open(&root, options).unwrap();
    (temp, root, toolkit)
}

#[test]
fn a_rename_whose_edit_reaches_outside_the_workspace_is_refused_whole() {
    let (temp, root, toolkit) = with_stand_in("outside");
    std::fs::write(temp.path().join("outside.py"), "x = 1\n").unwrap();
    let before = snapshot(&root);
    let args = json!({"path": "pkg/util.py", "line": 1, "column": 5, "new_name": "sum_items"});
    let result = refused(&toolkit, "rename_symbol", args.clone(), "outside_workspace");
    assert!(result["error"]["message"].as_str().unwrap().contains("outside"), "{result:#}");
    let mut dry = args;
    dry["dry_run"] = json!(true);
    refused(&toolkit, "rename_symbol", dry, "outside_workspace");
    assert_eq!(snapshot(&root), before);
    assert_eq!(std::fs::read_to_string(temp.path().join("outside.py")).unwrap(), "x = 1\n");
}

#[test]
fn a_server_that_never_answers_the_current_text_gives_timed_out_never_an_empty_fresh() {
    let (_temp, root, toolkit) = with_stand_in("slow");
    let first = ok(&toolkit, "diagnostics", json!({"path": "pkg/util.py", "wait_ms": 20000}));
    assert_eq!(first["files"][0]["server"]["state"], "fresh", "{first:#}");
    assert_eq!(first["files"][0]["server"]["version"], 1);
    // Version 2 never gets an answer: timed out, showing version 1's diagnostics as such.
    std::fs::write(root.join("pkg/util.py"), "def compute_total(items):\n    return 0\n").unwrap();
    let second = ok(&toolkit, "diagnostics", json!({"path": "pkg/util.py", "wait_ms": 1500}));
    let server = &second["files"][0]["server"];
    assert_eq!(server["state"], "timed_out", "{second:#}");
    assert_eq!(server["limit_ms"], 1500);
    assert_eq!(server["last_version"], 1);
    assert_eq!(server["diagnostics"][0]["message"], "version 1", "{second:#}");
}

/// The stand-in's `refs.json`: the references it answers, as (path under `root`, line,
/// UTF-16 character).
fn answer_references(temp: &Path, root: &Path, spots: &[(&str, u32, u32)]) {
    let locations: Vec<Value> = spots
        .iter()
        .map(|(path, line, character)| {
            let at = json!({"line": line, "character": character});
            json!({"uri": format!("file://{}", root.join(path).display()), "range": {"start": at, "end": at}})
        })
        .collect();
    std::fs::write(temp.join("stand-in-bin/refs.json"), serde_json::to_vec(&locations).unwrap()).unwrap();
}

#[test]
fn references_on_one_multi_megabyte_line_map_right_and_max_results_caps_before_any_read() {
    let options = ToolkitOptions { max_read_bytes: 5_000_000, max_call_bytes: 8_000_000, ..Default::default() };
    let (temp, root, toolkit) = with_stand_in_options("refs", options);
    // One 4 MB line of `😀foo ` (8 bytes, 6 UTF-16 units, 5 characters each).
    let repeats: u32 = 500_000;
    std::fs::write(root.join("dist.py"), format!("# bundle\n{}\n", "😀foo ".repeat(repeats as usize))).unwrap();
    // Files after it in path order, each over the read limit: never read when cut off.
    for name in ["zz_big1.py", "zz_big2.py"] {
        std::fs::write(root.join(name), "x = 1\n".repeat(1_000_000)).unwrap();
    }
    let mut spots: Vec<(&str, u32, u32)> = (0..5_000u32).map(|k| ("dist.py", 1, (k * 97 % repeats) * 6 + 2)).collect();
    spots.extend([("zz_big1.py", 0, 0), ("zz_big2.py", 0, 0)]);
    answer_references(temp.path(), &root, &spots);
    let args = json!({"path": "pkg/util.py", "line": 1, "column": 5, "max_results": 5});
    let found = ok(&toolkit, "find_references", args);
    let references = found["references"].as_array().unwrap();
    assert_eq!(references.len(), 5, "{found:#}");
    assert_eq!((found["total"].as_u64(), found["truncated"].as_bool()), (Some(5_002), Some(true)), "{found:#}");
    assert_eq!(found["omitted_outside"], 0, "the files past the cut are not read: {found:#}");
    let mut expected: Vec<u32> = (0..5_000u32).map(|k| k * 97 % repeats).collect();
    expected.sort_unstable();
    for (reference, repeat) in references.iter().zip(expected) {
        assert_eq!((reference["path"].as_str(), reference["line"].as_u64()), (Some("dist.py"), Some(2)));
        assert_eq!(reference["column"], repeat * 5 + 2, "{reference}");
        let text = reference["text"].as_str().unwrap();
        assert!(text.starts_with("😀foo 😀foo") && text.ends_with('…') && text.chars().count() == 301, "{text}");
    }
    // Past the cut the files are sized first: the second is over the call's budget.
    let args = json!({"path": "pkg/util.py", "line": 1, "column": 5, "max_results": 6_000});
    let result = refused(&toolkit, "find_references", args, "too_large");
    let message = result["error"]["message"].as_str().unwrap();
    assert!(message.contains("zz_big1.py") && message.contains("max_call_bytes"), "{message}");
}

#[test]
fn references_past_the_calls_byte_budget_are_cut_and_say_truncated() {
    let options = ToolkitOptions { max_call_bytes: 5_000, ..Default::default() };
    let (temp, root, toolkit) = with_stand_in_options("refs", options);
    std::fs::write(root.join("many.py"), "total = 1\n".repeat(200)).unwrap();
    let spots: Vec<(&str, u32, u32)> = (0..200u32).map(|line| ("many.py", line, 0)).collect();
    answer_references(temp.path(), &root, &spots);
    let args = json!({"path": "pkg/util.py", "line": 1, "column": 5});
    let found = ok(&toolkit, "find_references", args);
    let references = found["references"].as_array().unwrap();
    assert!(!references.is_empty() && references.len() < 200, "{}", references.len());
    assert_eq!((found["total"].as_u64(), found["truncated"].as_bool()), (Some(200), Some(true)));
    assert!(serde_json::to_vec(references).unwrap().len() <= 5_000);
    assert_eq!(references.last().unwrap()["line"], references.len(), "the first ones are kept");
}

#[test]
fn a_rename_on_the_servers_older_view_is_refused_stale_then_made_on_the_current_texts() {
    let (_temp, root, toolkit) = with_stand_in("view");
    // The server starts and reads every file; use1.py is open with it at its first text.
    ok(&toolkit, "diagnostics", json!({"path": "pkg/use1.py", "wait_ms": 20000}));
    // Both then change outside editkit: the server holds an older text of one (open) and
    // missed the change of the other (not open).
    for (file, call) in [("pkg/use1.py", "run1"), ("pkg/use2.py", "run2")] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        std::fs::write(
            root.join(file),
            format!("{text}\n\ndef {call}_more() -> int:\n    return compute_total([9])\n"),
        )
        .unwrap();
    }
    let before = snapshot(&root);
    let args = json!({"path": "pkg/util.py", "line": 1, "symbol": "compute_total", "new_name": "sum_items"});
    let result = refused(&toolkit, "rename_symbol", args.clone(), "stale");
    assert!(result["error"]["message"].as_str().unwrap().contains("try again"), "{result:#}");
    assert_eq!(snapshot(&root), before, "nothing is written");
    // The server now has the current texts: trying again renames every use, the new ones too.
    let done = ok(&toolkit, "rename_symbol", args);
    assert_eq!(done["files"].as_array().unwrap().len(), 6, "{done:#}");
    for (file, text) in snapshot(&root) {
        assert!(!text.contains("compute_total"), "{file}: {text}");
    }
    for file in ["pkg/use1.py", "pkg/use2.py"] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        assert_eq!(text.matches("sum_items").count(), 3, "{file}: {text}");
    }
}
