//! `merge_snippet`: lazy snippets merged into files through the tool-call surface.

use serde_json::json;

use crate::support::Env;

const TS: &str = "import { a } from './a';\n\nexport function one(): number {\n  const x = 1;\n  return x;\n}\n\nexport function two(): number {\n  const y = 2;\n  return y;\n}\n";

#[test]
fn a_snippet_with_markers_lands_and_says_where() {
    let env = Env::with_files(&[("m.ts", TS)]);
    let snippet = "// ... existing code ...\nexport function two(): number {\n  const y = 2;\n  console.log(y);\n  return y;\n}\n";
    let result = env.ok("merge_snippet", json!({"path": "m.ts", "snippet": snippet}));
    assert_eq!(env.get("m.ts"), TS.replace("  const y = 2;\n", "  const y = 2;\n  console.log(y);\n"));
    assert_eq!(result["chunks"][0]["line_range"], json!([8, 11]));
    assert_eq!(result["chunks"][0]["inserted"], 1);
    assert_eq!(result["markers"][0], json!({"snippet_line": 1, "kept": [1, 7]}));
    assert!(result["diff"].as_str().unwrap().contains("+  console.log(y);"));
    // undo_edit takes it back, as after edit_file.
    env.ok("undo_edit", json!({"path": "m.ts"}));
    assert_eq!(env.get("m.ts"), TS);
}

#[test]
fn a_forgotten_marker_is_refused_by_default_and_deletes_when_allowed() {
    let env = Env::with_files(&[("m.ts", TS)]);
    // two() without its first line: a deletion or a forgotten marker.
    let snippet = "export function two(): number {\n  return y;\n}\n";
    let refused = env.refused("merge_snippet", json!({"path": "m.ts", "snippet": snippet}), "not_found");
    assert_eq!(refused["error"]["reason"], "unaligned");
    assert_eq!(env.get("m.ts"), TS, "nothing is written on a refusal");
    // By lines, this one() would run into two() (`return y;`) and delete lines 5-8; the syntax
    // tree bounds it to one(), whose body it replaces.
    let snippet = "export function one(): number {\n  const x = 10;\n  return y;\n}\n";
    let result = env.ok("merge_snippet", json!({"path": "m.ts", "snippet": snippet, "dry_run": true}));
    assert_eq!(result["chunks"][0]["alignment"], "syntax");
    assert_eq!(result["chunks"][0]["definition"], "one");
    assert_eq!(result["chunks"][0]["line_range"], json!([3, 6]));
    assert!(result["diff"].as_str().unwrap().contains("-  return x;\n+  const x = 10;\n+  return y;"), "{result:#}");
    let snippet = "export function one(): number {\n  const x = 10;\n  return x;\n}\n\nexport function two(): number {\n  return y;\n}\n";
    env.refused("merge_snippet", json!({"path": "m.ts", "snippet": snippet}), "not_found");
    env.ok("merge_snippet", json!({"path": "m.ts", "snippet": snippet, "deletions": "allow"}));
    assert_eq!(env.get("m.ts"), TS.replace("const x = 1;", "const x = 10;").replace("  const y = 2;\n", ""));
}

#[test]
fn twins_absent_anchors_and_dry_runs() {
    let twins = "class A:\n    def f(self):\n        return 1\n\n\nclass B:\n    def f(self):\n        return 1\n";
    let env = Env::with_files(&[("t.py", twins), ("m.ts", TS)]);
    let refused = env.refused(
        "merge_snippet",
        json!({"path": "t.py", "snippet": "# ...\n    def f(self):\n        return 2\n# ...\n"}),
        "ambiguous",
    );
    assert_eq!(refused["error"]["lines"], json!([2, 7]), "{refused:#}");
    env.refused(
        "merge_snippet",
        json!({"path": "m.ts", "snippet": "function three() {\n  return 3;\n}\n"}),
        "not_found",
    );
    env.refused("merge_snippet", json!({"path": "m.ts", "snippet": "// ...\n"}), "invalid_args");
    let result = env.ok(
        "merge_snippet",
        json!({"path": "m.ts", "snippet": "  const x = 1;\n  const z = 3;\n  return x;\n", "dry_run": true}),
    );
    assert_eq!(result["dry_run"], true);
    assert_eq!(env.get("m.ts"), TS);
    assert_eq!(env.get("t.py"), twins);
}

#[test]
fn crlf_and_bom_stay_and_a_large_snippet_is_refused_by_its_bound() {
    let env = Env::new();
    env.put("w.py", "\u{feff}a = 1\r\nb = 2\r\nc = 3\r\n".as_bytes());
    env.ok("merge_snippet", json!({"path": "w.py", "snippet": "a = 1\nb = 20\nc = 3\n"}));
    assert_eq!(env.get("w.py"), "\u{feff}a = 1\r\nb = 20\r\nc = 3\r\n");
    let big = "x\n".repeat(editkit::MAX_SNIPPET_BYTES / 2 + 1);
    let refused = env.refused("merge_snippet", json!({"path": "w.py", "snippet": big}), "too_large");
    assert!(refused["error"]["message"].as_str().unwrap().contains("MAX_SNIPPET_BYTES"));
}

#[test]
fn the_marker_style_follows_the_language() {
    // In a Python file a `//` line is code, not a marker.
    let env = Env::with_files(&[("p.py", "x = 1\ny = 2\n")]);
    env.refused("merge_snippet", json!({"path": "p.py", "snippet": "// ...\ny = 3\n"}), "not_found");
    let env = Env::with_files(&[("d.md", "# Title\n\nText.\n\n## Usage\n\nRun it.\n")]);
    // A new last line that resembles the file's next line could replace it or go before it.
    let refused = env.refused(
        "merge_snippet",
        json!({"path": "d.md", "snippet": "<!-- ... -->\n## Usage\n\nRun it twice.\n"}),
        "ambiguous",
    );
    assert_eq!(refused["error"]["lines"], json!([7]), "{refused:#}");
    env.refused(
        "merge_snippet",
        json!({"path": "d.md", "snippet": "<!-- ... -->\n## Usage\n\nRun it.\n"}),
        "no_change",
    );
    env.refused(
        "merge_snippet",
        json!({"path": "d.md", "snippet": "<!-- ... -->\n## Usage\n\nRun it twice.\n<!-- ... -->\n"}),
        "ambiguous",
    );
    // With the line beyond as context, the new line is placed.
    env.ok(
        "merge_snippet",
        json!({"path": "d.md", "snippet": "<!-- ... -->\nText.\nMore text.\n\n## Usage\n<!-- ... -->\n"}),
    );
    assert_eq!(env.get("d.md"), "# Title\n\nText.\nMore text.\n\n## Usage\n\nRun it.\n");
}

/// Markdown: a chunk under a header the snippet gives (`## macOS`, the file's `Guide > macOS`)
/// lands in that section only, though its lines stand in another section too.
#[test]
fn a_markdown_chunk_lands_in_the_section_the_snippet_names() {
    let doc = "# Guide\n\n## Linux\n\nSteps:\n\nRun the installer.\nThen restart.\n\n## macOS\n\nSteps:\n\nRun the installer.\nThen restart.\n";
    let env = Env::with_files(&[("guide.md", doc), ("guide.txt", doc)]);
    let snippet = "<!-- ... -->\n## macOS\n<!-- ... -->\nRun the installer.\nCheck the version.\nThen restart.\n";
    // By lines alone (a file of no known language) the paragraph stands twice.
    env.refused("merge_snippet", json!({"path": "guide.txt", "snippet": snippet}), "ambiguous");
    let result = env.ok("merge_snippet", json!({"path": "guide.md", "snippet": snippet}));
    let expected = doc
        .replacen("Run the installer.\nThen restart.\n", "@@", 1)
        .replace("Run the installer.\nThen restart.\n", "Run the installer.\nCheck the version.\nThen restart.\n");
    assert_eq!(env.get("guide.md"), expected.replace("@@", "Run the installer.\nThen restart.\n"));
    assert_eq!(result["chunks"][1]["alignment"], "syntax", "{result:#}");
    assert_eq!(result["chunks"][1]["definition"], "Guide > macOS", "{result:#}");
}

/// A property's getter and setter share the name path `C.x`: the chunk's lines choose the one
/// it aligns with; a chunk that fits both as well is refused as ambiguous.
#[test]
fn a_name_path_defined_twice_takes_the_definition_the_chunk_fits() {
    let file = "class C:\n    @property\n    def x(self):\n        return self._x\n\n    @x.setter\n    def x(self, value):\n        self._x = value\n";
    let env = Env::with_files(&[("c.py", file)]);
    let snippet =
        "class C:\n    # ...\n    @x.setter\n    def x(self, value):\n        check(value)\n        self._x = value\n";
    let result = env.ok("merge_snippet", json!({"path": "c.py", "snippet": snippet}));
    assert_eq!(
        env.get("c.py"),
        file.replace("        self._x = value\n", "        check(value)\n        self._x = value\n")
    );
    assert_eq!(
        (&result["chunks"][1]["alignment"], &result["chunks"][1]["definition"]),
        (&json!("syntax"), &json!("C.x"))
    );
    // The getter's own signature picks the getter.
    let snippet = "class C:\n    # ...\n    def x(self):\n        log()\n    # ...\n";
    let result = env.ok("merge_snippet", json!({"path": "c.py", "snippet": snippet, "dry_run": true}));
    assert_eq!(result["chunks"][1]["line_range"], json!([3, 3]), "{result:#}");
    // Two definitions of `sep` the chunk fits as well.
    let twice = "import sys\nif sys.platform == 'win32':\n    def sep():\n        return '\\\\'\nelse:\n    def sep():\n        return '/'\n";
    env.put("s.py", twice.as_bytes());
    let refused =
        env.refused("merge_snippet", json!({"path": "s.py", "snippet": "def sep():\n    log()\n"}), "ambiguous");
    assert_eq!(refused["error"]["definition"], "sep", "{refused:#}");
    assert_eq!(refused["error"]["lines"], json!([3, 6]), "{refused:#}");
    assert_eq!(env.get("s.py"), twice);
}
