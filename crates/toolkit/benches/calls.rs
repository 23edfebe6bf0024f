//! Per-call time of `read_file` and `edit_file` through the JSON surface, the way an agent
//! calls them: on a 300-line Python file (diagnostics off, so no external checker's start-up
//! is timed) and on a Markdown file with the default options. `cargo xtask bench toolkit`
//! runs this; `--baseline REV` runs it on another revision too and prints the ratios.

use editkit::Toolkit;
use serde_json::json;

fn main() {
    // As the binary does: the descriptor table grown before divan's threads start.
    let _ = editkit::vfs::grow_descriptor_table(4096);
    divan::main();
}

fn python_source() -> String {
    (0..100).map(|n| format!("def f{n}(x):\n    y = x + {n}\n    return y\n")).collect()
}

fn toolkit(diagnostics_off: bool) -> (tempfile::TempDir, Toolkit) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("app.py"), python_source()).expect("fixture");
    let notes: String = (0..300).map(|n| format!("- item {n}\n")).collect();
    std::fs::write(dir.path().join("notes.md"), notes).expect("fixture");
    // The options type is never named, so this file also builds on a baseline revision whose
    // options type had another name (`cargo xtask bench toolkit --baseline REV`).
    let mut options = Toolkit::open(dir.path(), Default::default()).expect("toolkit").options().clone();
    if diagnostics_off {
        options.diagnostics.mode = editkit::analyze::DiagnosticsMode::Off;
    }
    let toolkit = Toolkit::open(dir.path(), options).expect("toolkit");
    (dir, toolkit)
}

#[divan::bench(args = ["app.py", "notes.md"])]
fn read_file(bencher: divan::Bencher<'_, '_>, path: &str) {
    let (_dir, toolkit) = toolkit(path.ends_with(".py"));
    bencher.bench(|| {
        let result = editkit::tools::call(&toolkit, "read_file", json!({ "path": path }));
        assert_eq!(result["ok"], true);
    });
}

#[divan::bench(args = ["app.py", "notes.md"])]
fn edit_file(bencher: divan::Bencher<'_, '_>, path: &str) {
    let (_dir, toolkit) = toolkit(path.ends_with(".py"));
    let (a, b) = if path.ends_with(".py") { ("y = x + 50", "y = x + 5000") } else { ("- item 150", "- item 15000") };
    let _ = editkit::tools::call(&toolkit, "read_file", json!({ "path": path }));
    let mut forward = true;
    bencher.bench_local(|| {
        let (old, new) = if forward { (a, b) } else { (b, a) };
        forward = !forward;
        let result =
            editkit::tools::call(&toolkit, "edit_file", json!({ "path": path, "old_string": old, "new_string": new }));
        assert_eq!(result["ok"], true, "{result}");
    });
}
