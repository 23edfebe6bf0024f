//! Files in legacy encodings and UTF-16 through every writing tool: read decoded, written back
//! in their own encoding with every byte outside the edit unchanged (`fixtures/encodings/`,
//! written by Python's codecs), characters the encoding cannot hold refused, files whose
//! encoding is not established refused with the best guess.

use serde_json::{Value, json};

use crate::support::{Env, fixtures};

fn corpus(name: &str) -> Vec<u8> {
    std::fs::read(fixtures().join("encodings").join(name)).unwrap()
}

fn cases() -> Vec<Value> {
    let json = std::fs::read_to_string(fixtures().join("encodings/cases.json")).unwrap();
    let cases: Value = serde_json::from_str(&json).unwrap();
    cases.as_array().unwrap().clone()
}

fn text(case: &Value, key: &str) -> String {
    case[key].as_str().unwrap().to_owned()
}

fn bytes_of(env: &Env, path: &str) -> Vec<u8> {
    std::fs::read(env.dir.path().join(path)).unwrap()
}

#[test]
fn read_file_decodes_and_names_the_encoding() {
    let env = Env::new();
    for case in cases() {
        let file = text(&case, "file");
        env.put(&file, &corpus(&file));
        let read = env.ok("read_file", json!({"path": file}));
        assert_eq!(read["encoding"], case["encoding"], "{file}");
        assert_eq!(read["bom"], case["bom"], "{file}");
        assert_eq!(read["content"], case["text"], "{file}");
        assert_eq!(read["file_type"], "python", "{file}");
        assert_eq!(read["symbols"][0]["name"], "average", "{file}");
    }
    env.put("plain.txt", b"plain\n");
    assert_eq!(env.ok("read_file", json!({"path": "plain.txt"}))["encoding"], "utf-8");
    env.put("bin.dat", b"\x00\x01\x02");
    assert_eq!(env.ok("read_file", json!({"path": "bin.dat"}))["encoding"], Value::Null);
}

#[test]
fn edit_file_writes_back_byte_for_byte_in_the_file_encoding() {
    let env = Env::new();
    for case in cases() {
        let file = text(&case, "file");
        let stem = file.trim_end_matches(".py");
        env.put(&file, &corpus(&file));
        env.ok("read_file", json!({"path": file}));
        let args = json!({"path": file, "old_string": "total = sum(values)", "new_string": "total = sum(values, 0)"});
        env.ok("edit_file", args);
        assert_eq!(bytes_of(&env, &file), corpus(&format!("{stem}.ascii.py")), "{file}");
        env.ok("undo_edit", json!({"path": file}));
        assert_eq!(bytes_of(&env, &file), corpus(&file), "{file}: undo");
        let native = json!({"path": file, "old_string": case["native_old"], "new_string": case["native_new"]});
        let dry = env.ok(
            "edit_file",
            json!({"path": file, "old_string": case["native_old"], "new_string": case["native_new"], "dry_run": true}),
        );
        assert!(dry["diff"].as_str().unwrap().contains(&text(&case, "native_new")), "{file}: {dry:#}");
        assert_eq!(bytes_of(&env, &file), corpus(&file), "{file}: a dry run writes nothing");
        env.ok("edit_file", native);
        assert_eq!(bytes_of(&env, &file), corpus(&format!("{stem}.native.py")), "{file}");
    }
}

#[test]
fn a_character_the_encoding_cannot_hold_is_refused_and_nothing_is_written() {
    let env = Env::new();
    for case in cases() {
        let Some(foreign) = case["foreign"].as_str() else { continue };
        let file = text(&case, "file");
        env.put(&file, &corpus(&file));
        let new = format!("{} {foreign}", text(&case, "native_new"));
        let refused = env.refused(
            "edit_file",
            json!({"path": file, "old_string": case["native_old"], "new_string": new}),
            "not_encodable",
        );
        let line = text(&case, "text").lines().position(|l| l.starts_with("MESSAGE")).unwrap() + 1;
        assert_eq!(refused["error"]["character"], foreign, "{refused:#}");
        assert_eq!(refused["error"]["line"], line, "{refused:#}");
        assert_eq!(refused["error"]["encoding"], case["encoding"]);
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.contains(&format!("on line {line}")), "{message}");
        assert_eq!(bytes_of(&env, &file), corpus(&file), "{file}");
        // write_file over the file, insert_lines and a patch are refused alike.
        let content = format!("{}{foreign}\n", text(&case, "text"));
        env.refused("write_file", json!({"path": file, "content": content}), "not_encodable");
        env.refused("insert_lines", json!({"path": file, "line": 1, "text": foreign}), "not_encodable");
        let patch = format!(
            "*** Begin Patch\n*** Update File: {file}\n@@\n-MESSAGE = \"{}\"\n+MESSAGE = \"{foreign}\"\n*** End Patch\n",
            text(&case, "native_old")
        );
        env.refused("apply_patch", json!({"patch": patch}), "not_encodable");
        assert_eq!(bytes_of(&env, &file), corpus(&file), "{file}");
    }
}

#[test]
fn insert_lines_write_file_patches_and_sessions_keep_the_encoding() {
    let env = Env::new();
    // insert_lines: the new line takes the file's CRLF and its encoding.
    env.put("sjis.py", &corpus("shift_jis.py"));
    env.ok("read_file", json!({"path": "sjis.py"}));
    env.ok("insert_lines", json!({"path": "sjis.py", "line": 1, "text": "# 追加の行"}));
    let sjis = editkit::vfs::Encoding::for_label("shift_jis").unwrap();
    let mut expected = corpus("shift_jis.py");
    let at = expected.iter().position(|b| *b == b'\n').unwrap() + 1;
    expected.splice(at..at, sjis.encode("# 追加の行\r\n", false).unwrap());
    assert_eq!(bytes_of(&env, "sjis.py"), expected);

    // write_file over an existing file writes in its encoding (UTF-16 with its BOM).
    env.put("u16.py", &corpus("utf-16le.py"));
    let read = env.ok("read_file", json!({"path": "u16.py"}));
    let content = read["content"].as_str().unwrap().replace("Mittelwert", "Mittel").replace('\n', "\r\n");
    env.ok("write_file", json!({"path": "u16.py", "content": content}));
    let utf16le = editkit::vfs::Encoding::for_label("utf-16le").unwrap();
    assert_eq!(bytes_of(&env, "u16.py"), utf16le.encode(&content, true).unwrap());
    assert_eq!(env.ok("read_file", json!({"path": "u16.py"}))["encoding"], "utf-16le");
    // A new file is UTF-8 unless an encoding is given.
    env.ok("write_file", json!({"path": "new.txt", "content": "Привет\n"}));
    assert_eq!(bytes_of(&env, "new.txt"), "Привет\n".as_bytes());
    env.ok("write_file", json!({"path": "new1251.txt", "content": "Привет\n", "encoding": "windows-1251"}));
    assert_eq!(bytes_of(&env, "new1251.txt"), b"\xCF\xF0\xE8\xE2\xE5\xF2\n");

    // apply_patch in the file's encoding.
    env.put("kr.py", &corpus("euc-kr.py"));
    let case = cases().into_iter().find(|c| c["file"] == "euc-kr.py").unwrap();
    let patch = format!(
        "*** Begin Patch\n*** Update File: kr.py\n@@\n-MESSAGE = \"{}\"\n+MESSAGE = \"{}\"\n*** End Patch\n",
        text(&case, "native_old"),
        text(&case, "native_new")
    );
    env.ok("apply_patch", json!({"patch": patch}));
    assert_eq!(bytes_of(&env, "kr.py"), corpus("euc-kr.native.py"));

    // An editor session loads, edits and stores in the file's encoding.
    env.put("b5.py", &corpus("big5.py"));
    let case = cases().into_iter().find(|c| c["file"] == "big5.py").unwrap();
    let loaded = env.ok("editor_load", json!({"path": "b5.py"}));
    let session = loaded["session_id"].as_str().unwrap().to_owned();
    env.ok(
        "editor_edit",
        json!({"session_id": session, "old_string": case["native_old"], "new_string": case["native_new"]}),
    );
    env.ok("editor_store", json!({"session_id": session}));
    assert_eq!(bytes_of(&env, "b5.py"), corpus("big5.native.py"));
    env.ok("editor_write", json!({"session_id": session, "text": "x = '\u{1F642}'\n"}));
    env.refused("editor_store", json!({"session_id": session}), "not_encodable");
    assert_eq!(bytes_of(&env, "b5.py"), corpus("big5.native.py"));
}

#[test]
fn a_file_whose_encoding_is_not_established_is_refused_with_the_best_guess_and_how_to_pass_it() {
    let env = Env::new();
    env.put("latin1.txt", b"caf\xE9\n");
    let refused = env.refused("read_file", json!({"path": "latin1.txt"}), "not_utf8");
    assert_eq!(refused["error"]["guess"], "windows-1252", "{refused:#}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("best guess: windows-1252") && message.contains("encoding"), "{message}");
    // Passing it reads, edits and writes back in it.
    let read = env.ok("read_file", json!({"path": "latin1.txt", "encoding": "windows-1252"}));
    assert_eq!((read["content"].as_str(), read["encoding"].as_str()), (Some("caf\u{e9}\n"), Some("windows-1252")));
    env.refused(
        "edit_file",
        json!({"path": "latin1.txt", "old_string": "caf\u{e9}", "new_string": "th\u{e9}"}),
        "not_utf8",
    );
    let args = json!({"path": "latin1.txt", "old_string": "caf\u{e9}", "new_string": "th\u{e9}", "encoding": "latin1"});
    env.ok("edit_file", args);
    assert_eq!(bytes_of(&env, "latin1.txt"), b"th\xE9\n");
    // A patch with an encoding.
    let patch = "*** Begin Patch\n*** Update File: latin1.txt\n@@\n-th\u{e9}\n+caf\u{e9} cr\u{e8}me\n*** End Patch\n";
    env.refused("apply_patch", json!({"patch": patch}), "not_utf8");
    env.ok("apply_patch", json!({"patch": patch, "encoding": "windows-1252"}));
    assert_eq!(bytes_of(&env, "latin1.txt"), b"caf\xE9 cr\xE8me\n");
    // An encoding the bytes are not in is refused the same way; an unknown label is an argument error.
    let wrong = env.refused("read_file", json!({"path": "latin1.txt", "encoding": "utf-16be"}), "not_utf8");
    assert_eq!(wrong["error"]["encoding"], "utf-16be", "{wrong:#}");
    env.refused("read_file", json!({"path": "latin1.txt", "encoding": "klingon"}), "invalid_args");
    // A short UTF-16 file: refused as before, readable when asked.
    env.put("u16.txt", b"\xFF\xFEh\x00i\x00");
    let refused = env.refused("read_file", json!({"path": "u16.txt"}), "utf16");
    assert!(refused["error"]["message"].as_str().unwrap().contains("utf-16le"), "{refused:#}");
    assert_eq!(env.ok("read_file", json!({"path": "u16.txt", "encoding": "utf-16le"}))["content"], "hi");
}

#[test]
fn a_stale_legacy_file_is_refused_like_any_other() {
    let env = Env::new();
    env.put("ru.py", &corpus("windows-1251.py"));
    env.ok("read_file", json!({"path": "ru.py"}));
    let mut changed = corpus("windows-1251.py");
    changed.extend_from_slice(b"# \xEF\xF0\xE0\xE2\xEA\xE0\r\n");
    env.put("ru.py", &changed);
    env.refused(
        "edit_file",
        json!({"path": "ru.py", "old_string": "total = sum(values)", "new_string": "total = 0", "stale": "strict"}),
        "stale",
    );
    assert_eq!(bytes_of(&env, "ru.py"), changed);
    // Merged with the change made elsewhere (issue 36), and written back in windows-1251.
    let merged =
        env.ok("edit_file", json!({"path": "ru.py", "old_string": "total = sum(values)", "new_string": "total = 0"}));
    assert!(merged["merged_with"]["diff"].as_str().is_some(), "{merged:#}");
    let at = changed.windows(19).position(|w| w == b"total = sum(values)").unwrap();
    let mut expected = changed.clone();
    expected.splice(at..at + 19, b"total = 0".iter().copied());
    assert_eq!(bytes_of(&env, "ru.py"), expected);
}

#[test]
fn search_files_searches_decoded_text_and_names_the_encoding() {
    let env = Env::new();
    for case in cases() {
        let file = text(&case, "file");
        env.put(&file, &corpus(&file));
    }
    env.put("latin1.txt", b"caf\xE9 MESSAGE\n");
    env.put("plain.py", b"MESSAGE = \"plain\"\n");
    let found = env.ok("search_files", json!({"pattern": "^MESSAGE = ", "max_results": 100}));
    let results = found["results"].as_array().unwrap();
    for case in cases() {
        let file = text(&case, "file");
        let result = results.iter().find(|r| r["file"] == file.as_str()).unwrap_or_else(|| panic!("{file}: {found:#}"));
        assert_eq!(result["encoding"], case["encoding"], "{file}");
        let line = text(&case, "text").lines().position(|l| l.starts_with("MESSAGE")).unwrap() + 1;
        assert_eq!(result["matches"][0]["line"], line, "{file}");
        let expected = format!("MESSAGE = \"{}\"", text(&case, "native_old"));
        assert_eq!(result["matches"][0]["content"].as_str().map(str::trim_end), Some(expected.as_str()), "{file}");
    }
    let plain = results.iter().find(|r| r["file"] == "plain.py").unwrap();
    assert!(plain.get("encoding").is_none(), "{plain:#}");
    // A file whose encoding is not established is skipped as before.
    let skipped = found["skipped"].as_array().unwrap();
    assert!(skipped.iter().any(|s| s["path"] == "latin1.txt" && s["reason"] == "not_utf8"), "{found:#}");
    // A search for native text finds it in each encoding.
    let native = env.ok("search_files", json!({"pattern": "計算が正常に終了しました", "regex": false}));
    let files: Vec<&str> = native["results"].as_array().unwrap().iter().map(|r| r["file"].as_str().unwrap()).collect();
    assert_eq!(files, ["shift_jis.py"]);
}

#[test]
fn with_detection_off_every_tool_takes_utf8_only_unless_told() {
    // `detect_encodings: false` is a tool that opens files as UTF-8: every other encoding is
    // refused by every tool (nothing written), skipped by searches, and a write replaces the
    // file with UTF-8; an explicit `encoding` still reads and writes it.
    let env = Env::with_options(editkit::ToolkitOptions { detect_encodings: false, ..Default::default() });
    for case in cases() {
        let file = text(&case, "file");
        let original = corpus(&file);
        env.put(&file, &original);
        if case["encoding"] == "iso-2022-jp" {
            // Seven-bit text is UTF-8: read as it stands, escapes included.
            let read = env.ok("read_file", json!({"path": file}));
            assert_eq!(
                (read["encoding"].as_str(), read["content"].as_str()),
                (Some("utf-8"), std::str::from_utf8(&original).ok())
            );
            continue;
        }
        let kind = if file.starts_with("utf-16") { "utf16" } else { "not_utf8" };
        let edit = json!({"path": file, "old_string": "total = sum(values)", "new_string": "total = sum(values, 0)"});
        let refusals = [
            ("read_file", json!({"path": file})),
            ("edit_file", edit.clone()),
            ("edit_python_file", edit),
            (
                "replace_function",
                json!({"path": file, "function_name": "average", "new_implementation": "def average(values):\n    return 0\n"}),
            ),
            ("generate_diff", json!({"path": file, "new_content": "x = 1\n"})),
            ("insert_lines", json!({"path": file, "line": 1, "text": "# x"})),
            ("editor_load", json!({"path": file})),
            (
                "apply_patch",
                json!({"patch": format!("*** Begin Patch\n*** Update File: {file}\n@@\n-    total = sum(values)\n+    total = 0\n*** End Patch\n")}),
            ),
        ];
        for (tool, args) in refusals {
            let refused = env.call(tool, args);
            assert_eq!(refused["error"]["kind"], kind, "{tool} {file}: {refused:#}");
            assert_eq!(bytes_of(&env, &file), original, "{tool} {file}");
        }
        let found = env.ok("search_files", json!({"pattern": "MESSAGE", "path": file}));
        assert_eq!(found["results"], json!([]), "{file}: {found:#}");
        let told = env.ok("read_file", json!({"path": file, "encoding": case["encoding"]}));
        assert_eq!(told["content"], case["text"], "{file}");
        env.ok("write_file", json!({"path": file, "content": "é\n", "force": true}));
        assert_eq!(bytes_of(&env, &file), "é\n".as_bytes(), "{file}");
    }
}

/// One binary rule (`editkit_vfs::nul_verdict`) for every tool: a file is the same kind
/// to `read_file` and to `search_files`, with detection on and off. A NUL past the first 8 KiB
/// makes a file binary to both (it was text to `read_file`); UTF-16 the codec cannot decode is
/// `utf16` to both (it was `binary` to `search_files`).
#[test]
fn read_file_and_search_files_call_a_file_the_same_kind() {
    // The kind `read_file` gives: `binary`, an error kind, or `text`.
    fn read_kind(env: &Env, path: &str) -> String {
        let read = env.call("read_file", json!({"path": path}));
        match (read["is_binary"].as_bool(), read["error"]["kind"].as_str()) {
            (_, Some(kind)) => kind.to_owned(),
            (Some(true), None) => "binary".to_owned(),
            (_, None) => "text".to_owned(),
        }
    }
    // The kind `search_files` gives: its skip reason, or `text` when it searched the file.
    fn search_kind(env: &Env, path: &str) -> String {
        let found = env.ok("search_files", json!({"pattern": "needle", "path": path}));
        match found["skipped"].as_array().and_then(|skipped| skipped.first()) {
            Some(skipped) => skipped["reason"].as_str().unwrap().to_owned(),
            None => {
                assert_eq!(found["results"][0]["file"], path, "{found:#}");
                "text".to_owned()
            }
        }
    }
    let mut late_nul = "needle\n".repeat(2000).into_bytes();
    assert!(late_nul.len() > 8 << 10);
    late_nul.extend_from_slice(b"tail\0needle\n");
    // Past the search's whole-file read size: the streamed path judges by the head it kept.
    // (A search that has all the matches it may keep stops reading before a late NUL, as
    // ripgrep does: reading on only to call the file binary would cost what a search saves.)
    let mut streamed_nul = "filler line\n".repeat(100_000).into_bytes();
    streamed_nul.extend_from_slice(b"\0needle\n");
    let utf16_short = b"\xFF\xFEn\x00e\x00".to_vec();
    let utf16_no_bom: Vec<u8> = "needle\n".repeat(3).encode_utf16().flat_map(u16::to_le_bytes).collect();
    let files: [(&str, &[u8], &str); 6] = [
        ("late_nul.txt", &late_nul, "binary"),
        ("streamed_nul.txt", &streamed_nul, "binary"),
        ("early_nul.txt", b"needle\0\n", "binary"),
        ("u16_short.txt", &utf16_short, "utf16"),
        ("u16_no_bom.txt", &utf16_no_bom, ""),
        ("plain.txt", b"needle\n", "text"),
    ];
    for detect in [true, false] {
        let env = Env::with_options(editkit::ToolkitOptions { detect_encodings: detect, ..Default::default() });
        for (path, bytes, expected) in files {
            env.put(path, bytes);
            let (read, searched) = (read_kind(&env, path), search_kind(&env, path));
            assert_eq!(read, searched, "{path} (detection {detect}): read_file and search_files disagree");
            if !expected.is_empty() {
                assert_eq!(read, expected, "{path} (detection {detect})");
            }
        }
    }
}
