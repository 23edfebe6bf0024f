use serde_json::json;

use super::*;

const ROOT: &str = "/work/repo";

fn texts(files: &[(&str, &str, Option<i32>)]) -> impl FnMut(&Path) -> Result<SentText, String> {
    let files: Vec<(PathBuf, SentText)> = files
        .iter()
        .map(|(path, text, version)| {
            (Path::new(ROOT).join(path), SentText { text: (*text).to_owned(), version: *version })
        })
        .collect();
    move |path| {
        files.iter().find(|(p, _)| p == path).map(|(_, sent)| sent.clone()).ok_or_else(|| "no such file".to_owned())
    }
}

fn edit(value: serde_json::Value) -> WorkspaceEdit {
    serde_json::from_value(value).expect("a WorkspaceEdit")
}

fn range(line: u32, start: u32, end: u32) -> serde_json::Value {
    json!({"start": {"line": line, "character": start}, "end": {"line": line, "character": end}})
}

#[test]
fn changes_become_byte_edits_per_file() {
    let workspace_edit = edit(json!({"changes": {
        "file:///work/repo/b.py": [{"range": range(1, 5, 9), "newText": "tally"}],
        "file:///work/repo/a.py": [{"range": range(0, 4, 8), "newText": "tally"}],
    }}));
    let files = [("a.py", "def calc():\n    pass\n", None), ("b.py", "x = 1\r\ny = [calc()]\r\n", None)];
    let got = rename_edits(&workspace_edit, Path::new(ROOT), "calc", Encoding::Utf16, texts(&files)).expect("valid");
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].path, Path::new("/work/repo/a.py"));
    assert_eq!(got[0].apply(files[0].1), "def tally():\n    pass\n");
    assert_eq!(got[1].apply(files[1].1), "x = 1\r\ny = [tally()]\r\n");
}

#[test]
fn document_changes_check_versions_and_count_utf16() {
    let text = "s = '😀'; calc()\n";
    let document = |version: serde_json::Value| {
        edit(json!({"documentChanges": [{
            "textDocument": {"uri": "file:///work/repo/a.py", "version": version},
            "edits": [{"range": range(0, 10, 14), "newText": "tally"}],
        }]}))
    };
    for version in [json!(3), json!(null)] {
        let files = [("a.py", text, Some(3))];
        let got =
            rename_edits(&document(version), Path::new(ROOT), "calc", Encoding::Utf16, texts(&files)).expect("valid");
        assert_eq!(got[0].apply(text), "s = '😀'; tally()\n");
    }
    let files = [("a.py", text, Some(4))];
    let stale = rename_edits(&document(json!(3)), Path::new(ROOT), "calc", Encoding::Utf16, texts(&files));
    assert_eq!(stale, Err(EditError::Stale { path: PathBuf::from("/work/repo/a.py"), sent: Some(4), server: 3 }));
    // The same range read as UTF-8 bytes lands elsewhere, and is refused rather than applied.
    let files = [("a.py", text, Some(3))];
    let wrong = rename_edits(&document(json!(3)), Path::new(ROOT), "calc", Encoding::Utf8, texts(&files));
    assert!(matches!(wrong, Err(EditError::Mismatch { .. })), "{wrong:?}");
}

#[test]
fn unsafe_edits_are_refused_whole() {
    let files = [("a.py", "calc calc\n", None)];
    let cases = [
        (json!({"changes": {"file:///work/other/a.py": [{"range": range(0, 0, 4), "newText": "x"}]}}), "outside"),
        (
            json!({"changes": {"file:///work/repo/../other/a.py": [{"range": range(0, 0, 4), "newText": "x"}]}}),
            "outside",
        ),
        (json!({"changes": {"file:///work/repo/a.py": [{"range": range(0, 0, 3), "newText": "x"}]}}), "replaces"),
        (
            json!({"changes": {"file:///work/repo/a.py": [{"range": range(0, 0, 4), "newText": "x"}, {"range": range(0, 2, 2), "newText": "y"}]}}),
            "overlap",
        ),
        (
            json!({"changes": {"file:///work/repo/a.py": [{"range": range(5, 0, 4), "newText": "x"}]}}),
            "outside its text",
        ),
        (
            json!({"changes": {"file:///work/repo/missing.py": [{"range": range(0, 0, 4), "newText": "x"}]}}),
            "cannot read",
        ),
        (json!({"changes": {"untitled:1": [{"range": range(0, 0, 4), "newText": "x"}]}}), "not a local file"),
        (
            json!({"documentChanges": [{"kind": "rename", "oldUri": "file:///work/repo/a.py", "newUri": "file:///work/repo/b.py"}]}),
            "rename a file",
        ),
        (json!({"documentChanges": [{"kind": "delete", "uri": "file:///work/repo/a.py"}]}), "delete a file"),
        (json!({"documentChanges": [{"kind": "create", "uri": "file:///work/repo/c.py"}]}), "create a file"),
    ];
    for (value, want) in cases {
        let got = rename_edits(&edit(value.clone()), Path::new(ROOT), "calc", Encoding::Utf16, texts(&files));
        let message = got.expect_err("refused").to_string();
        assert!(message.contains(want), "{value}: {message}");
    }
}

#[test]
fn insertions_and_both_names_are_kept() {
    let text = "from m import calc\n";
    let workspace_edit = edit(json!({"changes": {"file:///work/repo/a.py": [
        {"range": range(0, 18, 18), "newText": " as calc"},
        {"range": range(0, 14, 18), "newText": "tally"},
    ]}}));
    let files = [("a.py", text, None)];
    let got = rename_edits(&workspace_edit, Path::new(ROOT), "calc", Encoding::Utf16, texts(&files)).expect("valid");
    assert_eq!(got[0].apply(text), "from m import tally as calc\n");
}

#[test]
fn too_many_edits_are_refused_before_reading() {
    let one = json!({"range": range(0, 0, 4), "newText": "x"});
    let workspace_edit = edit(json!({"changes": {"file:///work/repo/a.py": vec![one; MAX_RENAME_EDITS + 1]}}));
    let got = rename_edits(&workspace_edit, Path::new(ROOT), "calc", Encoding::Utf16, |_| Err("not read".to_owned()));
    assert_eq!(got, Err(EditError::TooLarge { edits: MAX_RENAME_EDITS + 1 }));
}
