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
    let got =
        rename_edits(&workspace_edit, Path::new(ROOT), "calc", "tally", Encoding::Utf16, texts(&files)).expect("valid");
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
        let got = rename_edits(&document(version), Path::new(ROOT), "calc", "tally", Encoding::Utf16, texts(&files))
            .expect("valid");
        assert_eq!(got[0].apply(text), "s = '😀'; tally()\n");
    }
    let files = [("a.py", text, Some(4))];
    let stale = rename_edits(&document(json!(3)), Path::new(ROOT), "calc", "tally", Encoding::Utf16, texts(&files));
    assert_eq!(stale, Err(EditError::Stale { path: PathBuf::from("/work/repo/a.py"), sent: Some(4), server: 3 }));
    // The same range read as UTF-8 bytes lands elsewhere, and is refused rather than applied.
    let files = [("a.py", text, Some(3))];
    let wrong = rename_edits(&document(json!(3)), Path::new(ROOT), "calc", "tally", Encoding::Utf8, texts(&files));
    assert!(matches!(wrong, Err(EditError::Mismatch { .. })), "{wrong:?}");
}

#[test]
fn unsafe_edits_are_refused_whole() {
    let files = [("a.py", "calc calc\n", None)];
    let cases = [
        (json!({"changes": {"file:///work/other/a.py": [{"range": range(0, 0, 4), "newText": "tally"}]}}), "outside"),
        (
            json!({"changes": {"file:///work/repo/../other/a.py": [{"range": range(0, 0, 4), "newText": "tally"}]}}),
            "outside",
        ),
        (
            json!({"changes": {"file:///work/repo/a.py": [{"range": range(0, 0, 3), "newText": "tally"}]}}),
            "does not replace",
        ),
        (
            json!({"changes": {"file:///work/repo/a.py": [{"range": range(0, 0, 4), "newText": "tally"}, {"range": range(0, 2, 2), "newText": "tally: "}]}}),
            "overlap",
        ),
        (
            json!({"changes": {"file:///work/repo/a.py": [{"range": range(5, 0, 4), "newText": "tally"}]}}),
            "outside its text",
        ),
        (
            json!({"changes": {"file:///work/repo/missing.py": [{"range": range(0, 0, 4), "newText": "tally"}]}}),
            "cannot read",
        ),
        (json!({"changes": {"untitled:1": [{"range": range(0, 0, 4), "newText": "tally"}]}}), "not a local file"),
        (
            json!({"documentChanges": [{"kind": "rename", "oldUri": "file:///work/repo/a.py", "newUri": "file:///work/repo/b.py"}]}),
            "rename a file",
        ),
        (json!({"documentChanges": [{"kind": "delete", "uri": "file:///work/repo/a.py"}]}), "delete a file"),
        (json!({"documentChanges": [{"kind": "create", "uri": "file:///work/repo/c.py"}]}), "create a file"),
    ];
    for (value, want) in cases {
        let got = rename_edits(&edit(value.clone()), Path::new(ROOT), "calc", "tally", Encoding::Utf16, texts(&files));
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
    let got =
        rename_edits(&workspace_edit, Path::new(ROOT), "calc", "tally", Encoding::Utf16, texts(&files)).expect("valid");
    assert_eq!(got[0].apply(text), "from m import tally as calc\n");
}

#[test]
fn too_many_edits_are_refused_before_reading() {
    let one = json!({"range": range(0, 0, 4), "newText": "x"});
    let workspace_edit = edit(json!({"changes": {"file:///work/repo/a.py": vec![one; MAX_RENAME_EDITS + 1]}}));
    let got =
        rename_edits(
            &workspace_edit,
            Path::new(ROOT),
            "calc",
            "tally",
            Encoding::Utf16,
            |_| Err("not read".to_owned()),
        );
    assert_eq!(got, Err(EditError::TooLarge { edits: MAX_RENAME_EDITS + 1 }));
}

#[test]
fn a_replacement_other_than_the_new_name_is_refused_whole() {
    let files = [("a.py", "calc = 1\n", None), ("setup.py", "x = 1\n", None)];
    let cases = [
        json!({"changes": {"file:///work/repo/a.py": [{"range": range(0, 0, 4), "newText": "tally; __import__('os').system('x')"}]}}),
        json!({"changes": {"file:///work/repo/a.py": [{"range": range(0, 0, 4), "newText": "tally"}],
                           "file:///work/repo/setup.py": [{"range": range(0, 0, 0), "newText": "import os\n"}]}}),
        json!({"changes": {"file:///work/repo/a.py": [{"range": range(0, 0, 4), "newText": "tally as os"}]}}),
        json!({"changes": {"file:///work/repo/a.py": [{"range": range(0, 4, 4), "newText": ": tally = 2; y"}]}}),
    ];
    for value in cases {
        let got = rename_edits(&edit(value.clone()), Path::new(ROOT), "calc", "tally", Encoding::Utf16, texts(&files));
        assert!(matches!(got, Err(EditError::NotTheNewName { .. })), "{value}: {got:?}");
    }
}

#[test]
fn the_rename_shapes_of_real_servers_are_kept() {
    let text = "calc; calc; x\n";
    for (start, end, new_text, want) in [
        (0, 4, "calc: tally", "calc: tally; calc; x\n"),
        (0, 4, "tally: calc", "tally: calc; calc; x\n"),
        (0, 4, "calc as tally", "calc as tally; calc; x\n"),
        (0, 4, "tally as calc", "tally as calc; calc; x\n"),
        (0, 0, "calc: ", "calc: calc; calc; x\n"),
        (4, 4, " as tally", "calc as tally; calc; x\n"),
    ] {
        let value =
            json!({"changes": {"file:///work/repo/a.py": [{"range": range(0, start, end), "newText": new_text}]}});
        let files = [("a.py", text, None)];
        let got = rename_edits(&edit(value), Path::new(ROOT), "calc", "tally", Encoding::Utf16, texts(&files))
            .expect("a rename shape");
        assert_eq!(got[0].apply(text), want);
    }
}

#[test]
fn a_mismatch_never_quotes_the_file() {
    let files = [("a.py", "SECRET_KEY = 'hunter2-hunter2'\n", None)];
    let value = json!({"changes": {"file:///work/repo/a.py": [{"range": range(0, 0, 30), "newText": "tally"}]}});
    let got = rename_edits(&edit(value), Path::new(ROOT), "calc", "tally", Encoding::Utf16, texts(&files));
    let Err(error @ EditError::Mismatch { .. }) = got else { panic!("{got:?}") };
    assert!(!format!("{error} {error:?}").contains("hunter2"), "{error:?}");
}

#[test]
fn too_many_files_are_refused_before_any_is_read() {
    let one = json!([{"range": range(0, 0, 4), "newText": "tally"}]);
    let changes: serde_json::Map<String, serde_json::Value> =
        (0..=MAX_RENAME_FILES).map(|n| (format!("file:///work/repo/f{n}.py"), one.clone())).collect();
    let mut asked = 0;
    let got =
        rename_edits(&edit(json!({"changes": changes})), Path::new(ROOT), "calc", "tally", Encoding::Utf16, |_| {
            asked += 1;
            Err("not read".to_owned())
        });
    assert_eq!(got, Err(EditError::TooManyFiles { files: MAX_RENAME_FILES + 1 }));
    assert_eq!(asked, 0);
}
