//! Every tool through `call()` with JSON, and every error kind of the contract at least once.

use serde_json::json;

use crate::support::Env;

#[test]
fn rereads_give_the_facts_of_what_is_on_disk_now() {
    // The facts of a read are kept by path and content hash: a file changed in between (by
    // anyone) is parsed again, and going back to earlier content gives its facts again.
    let env = Env::with_files(&[("a.py", "def one(): pass\n"), ("b.py", "def one(): pass\n")]);
    let names = |read: &serde_json::Value| -> Vec<String> {
        read["symbols"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap().to_owned()).collect()
    };
    let first = env.ok("read_file", json!({"path": "a.py"}));
    assert_eq!((names(&first), first["is_valid"].as_bool()), (vec!["one".to_owned()], Some(true)));
    assert_eq!(env.ok("read_file", json!({"path": "a.py"})), first);
    env.put("a.py", b"def two(:\n");
    let broken = env.ok("read_file", json!({"path": "a.py"}));
    assert_eq!(broken["is_valid"].as_bool(), Some(false));
    env.put("a.py", b"def one(): pass\n");
    assert_eq!(env.ok("read_file", json!({"path": "a.py"})), first);
    // The same content under another name is that file's own answer.
    let other = env.ok("read_file", json!({"path": "b.py"}));
    assert_eq!((other["path"].as_str(), names(&other)), (Some("b.py"), vec!["one".to_owned()]));
    // Many files in between evict the oldest; its facts are computed again, the same.
    for i in 0..100 {
        env.put(&format!("f{i}.py"), format!("def f{i}(): pass\n").as_bytes());
        let read = env.ok("read_file", json!({"path": format!("f{i}.py")}));
        assert_eq!(names(&read), vec![format!("f{i}")]);
    }
    assert_eq!(env.ok("read_file", json!({"path": "a.py"})), first);
}

#[test]
fn a_python_file_reads_as_python_with_its_symbol() {
    let env = Env::with_files(&[("hello.py", "def hello(): pass\n")]);
    let read = env.ok("read_file", json!({"path": "hello.py"}));
    assert_eq!(read["file_type"], "python");
    assert_eq!(read["is_valid"], true);
    assert_eq!(read["symbols"].as_array().unwrap().len(), 1);
    assert_eq!(read["symbols"][0]["name"], "hello");
    assert_eq!(read["sha256"], editkit::vfs::Sha256::of(b"def hello(): pass\n").to_string());
}

#[test]
fn a_ranged_read_says_which_lines_it_holds_and_carries_no_whole_file_facts() {
    let source: String = (1..=4_500).map(|n| format!("def f{n}():\n    return {n}\n")).collect::<String>();
    let env = Env::with_files(&[("big.py", source.as_str()), ("empty.txt", "")]);
    let whole = env.ok("read_file", json!({"path": "big.py"}));
    assert_eq!(
        (whole["start_line"].as_u64(), whole["end_line"].as_u64(), whole["total_lines"].as_u64()),
        (Some(1), Some(9_000), Some(9_000))
    );
    // 9,000 lines of definitions are over 64 KiB but under the 256 KiB default bound.
    assert_eq!(whole["facts_included"], true);
    assert_eq!(whole["symbols"].as_array().map(Vec::len), Some(4_500));

    let ranged = env.ok("read_file", json!({"path": "big.py", "offset": 101, "limit": 5}));
    assert_eq!(ranged["content"], "def f51():\n    return 51\ndef f52():\n    return 52\ndef f53():\n");
    assert_eq!((ranged["start_line"].as_u64(), ranged["end_line"].as_u64()), (Some(101), Some(105)));
    assert_eq!((ranged["partial"].as_bool(), ranged["total_lines"].as_u64()), (Some(true), Some(9_000)));
    assert_eq!(ranged["facts_included"], false);
    assert!(ranged["symbols"].as_array().is_some_and(Vec::is_empty));
    assert!(ranged.to_string().len() < 4 << 10, "a 5-line read answers {} bytes", ranged.to_string().len());
    let asked = env.ok("read_file", json!({"path": "big.py", "offset": 101, "limit": 5, "include_symbols": true}));
    assert_eq!(asked["facts_included"], true);
    assert_eq!(asked["symbols"].as_array().map(Vec::len), Some(4_500));

    // The last lines, a window running past the end, and an offset past the end.
    let tail = env.ok("read_file", json!({"path": "big.py", "offset": 8_999, "limit": 10}));
    assert_eq!((tail["start_line"].as_u64(), tail["end_line"].as_u64()), (Some(8_999), Some(9_000)));
    let past = env.refused("read_file", json!({"path": "big.py", "offset": 9_001}), "invalid_args");
    assert_eq!(past["error"]["field"], "offset");
    let message = past["error"]["message"].as_str().unwrap();
    assert!(message.contains("9000 lines") && message.contains("between 1 and 9000"), "{message}");
    // An empty file has no line to show: offset 1 reads it, offset 2 is past its end.
    let empty = env.ok("read_file", json!({"path": "empty.txt", "offset": 1}));
    assert_eq!(
        (empty["start_line"].as_u64(), empty["end_line"].as_u64(), empty["content"].as_str()),
        (Some(1), Some(0), Some(""))
    );
    env.refused("read_file", json!({"path": "empty.txt", "offset": 2}), "invalid_args");
    // The last lines, by tail; more than the file holds reads it all; tail with offset is refused.
    let last = env.ok("read_file", json!({"path": "big.py", "tail": 2}));
    assert_eq!(last["content"], "def f4500():\n    return 4500\n");
    assert_eq!(
        (last["start_line"].as_u64(), last["end_line"].as_u64(), last["partial"].as_bool()),
        (Some(8_999), Some(9_000), Some(true))
    );
    let all = env.ok("read_file", json!({"path": "empty.txt", "tail": 10}));
    assert_eq!((all["start_line"].as_u64(), all["end_line"].as_u64()), (Some(1), Some(0)));
    let both = env.refused("read_file", json!({"path": "big.py", "tail": 2, "offset": 3}), "invalid_args");
    assert_eq!(both["error"]["field"], "tail");
    // Past 256 KiB a whole read carries no facts unless asked.
    env.put("huge.py", "x = 1\n".repeat(50_000).as_bytes());
    let huge = env.ok("read_file", json!({"path": "huge.py"}));
    assert_eq!((huge["facts_included"].as_bool(), huge["is_valid"].as_bool()), (Some(false), None));
    let huge = env.ok("read_file", json!({"path": "huge.py", "include_symbols": true}));
    assert_eq!((huge["facts_included"].as_bool(), huge["is_valid"].as_bool()), (Some(true), Some(true)));
    let none = env.ok("read_file", json!({"path": "big.py", "offset": 3, "limit": 0}));
    assert_eq!((none["start_line"].as_u64(), none["end_line"].as_u64()), (Some(3), Some(2)));
}

#[test]
fn python_with_syntax_errors_is_refused_and_not_written() {
    let env = Env::new();
    let result = env.refused("write_python_file", json!({"path": "bad.py", "content": "x = 1 +"}), "syntax_error");
    let errors = result["error"]["syntax_errors"].as_array().unwrap();
    assert!(!errors.is_empty());
    assert_eq!(errors[0]["line"], 1);
    assert!(errors[0]["column"].as_u64().is_some());
    assert!(!env.dir.path().join("bad.py").exists());
    let written = env.ok("write_python_file", json!({"path": "bad.py", "content": "x = 1 +", "validate": false}));
    assert_eq!(written["bytes_written"], 7);
}

#[test]
fn search_counts_files_with_matches() {
    let env = Env::with_files(&[("file1.py", "# TODO: fix\nx = 1\n"), ("file2.py", "y = 2\n")]);
    let result = env.ok("search_files", json!({"pattern": "TODO"}));
    assert_eq!(result["files_with_matches"], 1);
    assert_eq!(result["results"][0]["file"], "file1.py");
    assert_eq!(result["results"][0]["matches"][0]["line"], 1);
    let code = env.ok("search_code", json!({"pattern": "TODO"}));
    assert_eq!(code["files_with_matches"], 1);
    env.refused("search_files", json!({"pattern": "(unclosed"}), "invalid_args");
}

#[test]
fn search_and_glob_take_ignored_and_hidden_files_only_when_asked() {
    // `hidden: true` and `ignore_rules: false` change which files the walk takes, nothing else:
    // blocked files (`.env`, `.git`) stay out whatever they say.
    let env = Env::with_files(&[
        (".git/HEAD", "TODO ref\n"),
        (".gitignore", "node_modules/\n"),
        (".ignore", "build/\n"),
        ("a.py", "TODO a\n"),
        ("node_modules/m.py", "TODO m\n"),
        ("build/b.py", "TODO b\n"),
        (".hidden/h.py", "TODO h\n"),
        (".env", "TODO=1\n"),
        (".dot.py", "TODO dot\n"),
    ]);
    let cases = [
        (json!({}), vec!["a.py"]),
        (json!({"hidden": true}), vec![".dot.py", ".hidden/h.py", "a.py"]),
        (json!({"ignore_rules": false}), vec!["a.py", "build/b.py", "node_modules/m.py"]),
        (
            json!({"hidden": true, "ignore_rules": false}),
            vec![".dot.py", ".hidden/h.py", "a.py", "build/b.py", "node_modules/m.py"],
        ),
    ];
    for (options, expected) in cases {
        let mut args = json!({"pattern": "TODO"});
        args.as_object_mut().unwrap().extend(options.as_object().unwrap().clone());
        let found = env.ok("search_files", args.clone());
        let files: Vec<&str> =
            found["results"].as_array().unwrap().iter().map(|r| r["file"].as_str().unwrap()).collect();
        assert_eq!(files, expected, "search_files {args}");
        let code = env.ok("search_code", args.clone());
        assert_eq!(code["files_with_matches"].as_u64(), Some(expected.len() as u64), "search_code {args}");
        args["pattern"] = json!("**/*.py");
        let globbed = env.ok("glob", args.clone());
        assert_eq!(globbed["matches"], json!(expected), "glob {args}");
    }
    env.refused("glob", json!({"pattern": "*", "hidden": "yes"}), "invalid_args");
    // `follow_links: true` takes a file linked inside the root, under the link's name; never a
    // linked folder (a loop cannot trap the walk) nor anything behind a link leading out.
    #[cfg(unix)]
    {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("o.py"), "TODO o\n").unwrap();
        std::os::unix::fs::symlink("a.py", env.dir.path().join("alias.py")).unwrap();
        std::os::unix::fs::symlink(".", env.dir.path().join("loop")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("o.py"), env.dir.path().join("out.py")).unwrap();
        for tool in ["search_files", "glob"] {
            let pattern = if tool == "glob" { "**/*.py" } else { "TODO" };
            let plain = env.ok(tool, json!({"pattern": pattern}));
            let followed = env.ok(tool, json!({"pattern": pattern, "follow_links": true}));
            let names = |found: &serde_json::Value| -> Vec<String> {
                match found.get("matches") {
                    Some(matches) => {
                        matches.as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_owned()).collect()
                    }
                    None => found["results"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|r| r["file"].as_str().unwrap().to_owned())
                        .collect(),
                }
            };
            assert_eq!(names(&plain), ["a.py"], "{tool}");
            assert_eq!(names(&followed), ["a.py", "alias.py"], "{tool}");
        }
    }
}

#[test]
fn edits_keep_crlf_and_bom_and_report_their_rung() {
    let env = Env::new();
    env.put("win.py", b"\xEF\xBB\xBFdef f():\r\n\treturn 1\r\n\r\nx = f()\r\n");
    let edit =
        env.ok("edit_file", json!({"path": "win.py", "old_string": "    return 1", "new_string": "    return 2"}));
    assert_eq!(edit["rung"], "line_trimmed");
    assert_eq!(edit["line_range"], json!([2, 2]));
    assert_eq!(
        std::fs::read(env.dir.path().join("win.py")).unwrap(),
        b"\xEF\xBB\xBFdef f():\r\n\treturn 2\r\n\r\nx = f()\r\n"
    );
    assert!(edit["diff"].as_str().unwrap().contains("+\treturn 2"));
}

#[test]
fn every_error_kind_of_the_contract_is_reachable() {
    let env = Env::with_files(&[("dup.py", "x = 1\nx = 1\n"), ("a.txt", "alpha\n"), (".env", "SECRET=1\n")]);
    // not_found: no such text, with the closest region.
    let result =
        env.refused("edit_file", json!({"path": "a.txt", "old_string": "alpah", "new_string": "b"}), "not_found");
    assert_eq!(result["error"]["closest"]["first_line"], 1);
    env.refused("read_file", json!({"path": "missing.txt"}), "not_found");
    // ambiguous, with the candidate lines.
    let result =
        env.refused("edit_file", json!({"path": "dup.py", "old_string": "x = 1", "new_string": "x = 2"}), "ambiguous");
    assert_eq!(result["error"]["lines"], json!([1, 2]));
    // already_applied.
    env.ok("edit_file", json!({"path": "a.txt", "old_string": "alpha", "new_string": "beta"}));
    env.refused("edit_file", json!({"path": "a.txt", "old_string": "alpha", "new_string": "beta"}), "already_applied");
    // stale: read, change behind the toolkit's back, write.
    env.ok("read_file", json!({"path": "a.txt"}));
    env.put("a.txt", b"changed elsewhere\n");
    let result = env.refused("write_file", json!({"path": "a.txt", "content": "mine\n"}), "stale");
    assert!(result["error"]["current_sha256"].is_string());
    env.refused("edit_file", json!({"path": "a.txt", "old_string": "changed", "new_string": "x"}), "stale");
    env.ok("write_file", json!({"path": "a.txt", "content": "mine\n", "force": true}));
    env.refused(
        "write_file",
        json!({"path": "a.txt", "content": "x", "force": true, "expected_hash": "0".repeat(64)}),
        "stale",
    );
    // A hash that is not one is an argument error naming the field, not a stale file.
    for malformed in ["0".repeat(12), "z".repeat(64), String::new()] {
        let result = env.refused(
            "edit_file",
            json!({"path": "a.txt", "old_string": "mine", "new_string": "x", "expected_hash": malformed}),
            "invalid_args",
        );
        let message = result["error"]["message"].as_str().unwrap();
        assert!(message.contains("expected_hash") && message.contains("64 hex digits"), "{message}");
    }
    assert_eq!(env.get("a.txt"), "mine\n");
    // outside_workspace and blocked.
    env.refused("read_file", json!({"path": "../etc/passwd"}), "outside_workspace");
    env.refused("write_file", json!({"path": "/etc/editkit-test", "content": "x"}), "outside_workspace");
    env.refused("read_file", json!({"path": ".env"}), "blocked");
    // permission_denied: a file its owner made read-only, with its mode.
    env.put("ro.txt", b"fixed\n");
    std::fs::set_permissions(env.dir.path().join("ro.txt"), std::os::unix::fs::PermissionsExt::from_mode(0o444))
        .unwrap();
    let result =
        env.refused("write_file", json!({"path": "ro.txt", "content": "x", "force": true}), "permission_denied");
    assert_eq!(result["error"]["mode"], "0444");
    // is_directory.
    env.put("dir/x.txt", b"x");
    env.refused("write_file", json!({"path": "dir", "content": "x"}), "is_directory");
    // utf16, not_utf8, binary (a binary read is not an error, an edit is).
    env.put("u16.txt", b"\xFF\xFEa\x00b\x00");
    env.refused("read_file", json!({"path": "u16.txt"}), "utf16");
    env.put("latin1.txt", b"caf\xE9\n");
    env.refused("read_file", json!({"path": "latin1.txt"}), "not_utf8");
    env.put("blob.bin", b"\x00\x01\x02");
    let read = env.ok("read_file", json!({"path": "blob.bin"}));
    assert_eq!(read["is_binary"], true);
    assert_eq!(read["size_bytes"], 3);
    env.refused("edit_file", json!({"path": "blob.bin", "old_string": "a", "new_string": "b"}), "binary");
    // invalid_args.
    env.refused("edit_file", json!({"path": "a.txt"}), "invalid_args");
    env.refused("read_file", json!({"path": "~/x"}), "invalid_args");
    // syntax_error.
    env.refused("write_python_file", json!({"path": "p.py", "content": "def ("}), "syntax_error");
    // no_change.
    env.refused("edit_file", json!({"path": "a.txt", "old_string": "mine", "new_string": "mine"}), "no_change");
    // too_large.
    let small =
        editkit::Toolkit::open(env.dir.path(), editkit::ToolkitOptions { max_read_bytes: 4, ..Default::default() })
            .unwrap();
    let result = editkit::tools::call(&small, "read_file", json!({"path": "a.txt"}));
    assert_eq!(result["error"]["kind"], "too_large");
    env.record(&result);
    // invalid_patch and exists (an add onto an existing file), nothing written.
    env.refused("apply_patch", json!({"patch": "this is not a patch"}), "invalid_patch");
    let result =
        env.call("apply_patch", json!({"patch": "*** Begin Patch\n*** Add File: a.txt\n+new\n*** End Patch\n"}));
    assert_eq!(result["ok"], false);
    assert!(result["error"].to_string().contains("exists"), "{result:#}");
    assert_eq!(env.get("a.txt"), "mine\n");
    // not_encodable: a character the file's encoding cannot hold.
    let latin: Vec<u8> = "d\u{e9}j\u{e0} vu, \u{e9}t\u{e9} \u{e0} Besan\u{e7}on, premi\u{e8}re fois.\n"
        .repeat(2)
        .chars()
        .map(|c| u8::try_from(c).unwrap())
        .collect();
    env.put("latin.txt", &latin);
    let args = json!({"path": "latin.txt", "old_string": "vu", "new_string": "\u{3042}", "replace_all": true});
    env.refused("edit_file", args, "not_encodable");
    // unavailable: no language server on the PATH given.
    let mut options = editkit::ToolkitOptions::default();
    options.language_servers.path = Some(std::ffi::OsString::from("/nonexistent-editkit-bin"));
    let no_servers = editkit::Toolkit::open(env.dir.path(), options).unwrap();
    env.put("lib.py", b"def f():\n    return 1\n");
    let result =
        editkit::tools::call(&no_servers, "find_references", json!({"path": "lib.py", "line": 1, "symbol": "f"}));
    assert_eq!(result["error"]["kind"], "unavailable", "{result:#}");
    env.record(&result);
    // Every kind of the contract was met here (io has its own test below).
    let mut unmet: Vec<&str> = editkit::ERROR_KINDS.into_iter().filter(|k| !env.kinds_seen().contains(*k)).collect();
    unmet.retain(|k| *k != "io");
    assert!(unmet.is_empty(), "kinds never returned: {unmet:?}");
}

#[test]
fn io_errors_are_reported_as_io() {
    // sysfs refuses to create files even for root: a write fails below the policy layer.
    let toolkit = editkit::Toolkit::open("/sys/kernel", editkit::ToolkitOptions::default())
        .expect("this test needs sysfs mounted at /sys (Linux): /sys/kernel refuses new files below the policy layer");
    let result = editkit::tools::call(&toolkit, "write_file", json!({"path": "editkit-test", "content": "x"}));
    assert_eq!(result["error"]["kind"], "io", "{result:#}");
}

#[test]
fn a_failing_hunk_leaves_every_file_untouched_and_lists_each_failure() {
    let env = Env::with_files(&[("a.py", "a = 1\n"), ("b.py", "b = 1\n"), ("c.py", "c = 1\n")]);
    let patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-a = 1\n+a = 2\n*** Update File: b.py\n@@\n-b = 9\n+b = 2\n*** Update File: c.py\n@@\n-c = 8\n+c = 2\n*** End Patch\n";
    let result = env.call("apply_patch", json!({ "patch": patch }));
    assert_eq!(result["ok"], false);
    let failures = result["error"]["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 2, "{result:#}");
    assert_eq!(
        (env.get("a.py"), env.get("b.py"), env.get("c.py")),
        ("a = 1\n".into(), "b = 1\n".into(), "c = 1\n".into())
    );
    let ok = env.ok("apply_patch", json!({"patch": "*** Begin Patch\n*** Update File: a.py\n@@\n-a = 1\n+a = 2\n*** Move to: moved/a.py\n*** End Patch\n".replace("@@\n-a = 1\n+a = 2\n*** Move to: moved/a.py\n", "*** Move to: moved/a.py\n@@\n-a = 1\n+a = 2\n")}));
    assert_eq!(ok["files"][0]["action"], "move");
    assert_eq!(env.get("moved/a.py"), "a = 2\n");
    env.ok("undo_patch", json!({}));
    assert_eq!(env.get("a.py"), "a = 1\n");
    assert!(!env.dir.path().join("moved/a.py").exists());
}

#[test]
fn deleting_a_symlink_removes_only_the_link_and_records_nothing_to_undo() {
    let env = Env::with_files(&[("real.txt", "kept\n")]);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "s\n").unwrap();
    std::os::unix::fs::symlink("real.txt", env.dir.path().join("alias.txt")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), env.dir.path().join("out.txt")).unwrap();
    for link in ["alias.txt", "out.txt"] {
        env.ok("delete", json!({"path": link}));
        assert!(std::fs::symlink_metadata(env.dir.path().join(link)).is_err(), "{link} is gone");
    }
    assert_eq!(env.get("real.txt"), "kept\n");
    assert_eq!(std::fs::read_to_string(outside.path().join("secret.txt")).unwrap(), "s\n");
    env.refused("undo_edit", json!({"path": "real.txt"}), "not_found");
    env.refused("undo_edit", json!({"path": "alias.txt"}), "not_found");
}

#[test]
fn undo_restores_and_survives_a_restart() {
    let env = Env::with_files(&[("a.txt", "one\n")]);
    env.ok("edit_file", json!({"path": "a.txt", "old_string": "one", "new_string": "two"}));
    env.ok("write_file", json!({"path": "b.txt", "content": "new\n"}));
    let again = editkit::Toolkit::open(env.dir.path(), editkit::ToolkitOptions::default()).unwrap();
    let undo = editkit::tools::call(&again, "undo_edit", json!({"path": "a.txt"}));
    assert_eq!(undo["ok"], true, "{undo:#}");
    assert_eq!(env.get("a.txt"), "one\n");
    assert_eq!(editkit::tools::call(&again, "undo_edit", json!({"path": "b.txt"}))["ok"], true);
    assert!(!env.dir.path().join("b.txt").exists());
    let none = editkit::tools::call(&again, "undo_edit", json!({"path": "a.txt"}));
    assert_eq!(none["error"]["kind"], "not_found");
    // A deleted file comes back.
    env.ok("delete", json!({"path": "a.txt"}));
    env.ok("undo_edit", json!({"path": "a.txt"}));
    assert_eq!(env.get("a.txt"), "one\n");
}

#[test]
fn edits_can_be_confined_to_a_symbol_or_section() {
    let env = Env::with_files(&[
        ("m.py", "class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 1\n"),
        ("g.md", "# T\n\n## One\n\nsame\n\n## Two\n\nsame\n"),
    ]);
    env.refused("edit_file", json!({"path": "m.py", "old_string": "return 1", "new_string": "return 2"}), "ambiguous");
    env.ok("edit_file", json!({"path": "m.py", "old_string": "return 1", "new_string": "return 2", "within": "B.f"}));
    assert!(env.get("m.py").ends_with("    def f(self):\n        return 2\n"));
    env.ok("edit_file", json!({"path": "g.md", "old_string": "same", "new_string": "changed", "within": "T > Two"}));
    assert_eq!(env.get("g.md"), "# T\n\n## One\n\nsame\n\n## Two\n\nchanged\n");
    env.refused(
        "edit_file",
        json!({"path": "m.py", "old_string": "x", "new_string": "y", "within": "C.g"}),
        "not_found",
    );
}

#[test]
fn several_roots_route_absolute_paths_to_their_root() {
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    std::fs::write(second.path().join("b.txt"), "bee\n").unwrap();
    let toolkit =
        editkit::Toolkit::open_roots(&[first.path().into(), second.path().into()], Default::default()).unwrap();
    let absolute = std::fs::canonicalize(second.path()).unwrap().join("b.txt");
    let read = editkit::tools::call(&toolkit, "read_file", json!({"path": absolute}));
    assert_eq!(read["content"], "bee\n");
    let relative = editkit::tools::call(&toolkit, "read_file", json!({"path": "b.txt"}));
    assert_eq!(relative["error"]["kind"], "not_found");
    // `..` is applied before routing, and the spelling the root was opened with works too.
    let first_real = std::fs::canonicalize(first.path()).unwrap();
    let second_real = std::fs::canonicalize(second.path()).unwrap();
    let detour =
        format!("{}/sub/../../{}/b.txt", first_real.display(), second_real.file_name().unwrap().to_str().unwrap());
    let read = editkit::tools::call(&toolkit, "read_file", json!({"path": detour}));
    assert_eq!(read["content"], "bee\n", "{read:#}");
    let links = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(&second_real, links.path().join("alias")).unwrap();
    let toolkit =
        editkit::Toolkit::open_roots(&[first.path().into(), links.path().join("alias")], Default::default()).unwrap();
    let through = links.path().join("alias/b.txt");
    let read = editkit::tools::call(&toolkit, "read_file", json!({"path": through}));
    assert_eq!(read["content"], "bee\n", "{read:#}");
}

#[test]
fn overlapping_roots_are_refused() {
    let outer = tempfile::tempdir().unwrap();
    std::fs::create_dir(outer.path().join("inner")).unwrap();
    for roots in [
        vec![outer.path().to_owned(), outer.path().join("inner")],
        vec![outer.path().join("inner"), outer.path().to_owned()],
        vec![outer.path().to_owned(), outer.path().join("inner/..")],
    ] {
        let err = editkit::Toolkit::open_roots(&roots, Default::default()).unwrap_err();
        assert_eq!(err.error_kind().as_str(), "invalid_args");
        assert!(err.to_string().contains("overlap"), "{err}");
    }
}

#[test]
fn read_only_toolkits_refuse_writes() {
    let dir = tempfile::tempdir().unwrap();
    let toolkit =
        editkit::Toolkit::open(dir.path(), editkit::ToolkitOptions { read_only: true, ..Default::default() }).unwrap();
    let result = editkit::tools::call(&toolkit, "write_file", json!({"path": "a", "content": "x"}));
    assert_eq!(result["error"]["kind"], "blocked");
    assert!(!dir.path().join("a").exists());
    // Dry runs through the typed API work and leave nothing behind, not even lock files.
    std::fs::write(dir.path().join("b.txt"), "one\n").unwrap();
    let edit: editkit::EditFileRequest =
        serde_json::from_value(json!({"path": "b.txt", "old_string": "one", "new_string": "two", "dry_run": true}))
            .unwrap();
    assert!(toolkit.edit_file(edit).unwrap().diff.contains("+two"));
    let patch = "*** Begin Patch\n*** Update File: b.txt\n-one\n+two\n*** End Patch\n";
    let request = editkit::ApplyPatchRequest::new(patch).dry_run(true);
    assert!(toolkit.apply_patch(request).unwrap().dry_run);
    // And through JSON.
    let dry = json!({"path": "b.txt", "old_string": "one", "new_string": "two", "dry_run": true});
    assert_eq!(editkit::tools::call(&toolkit, "edit_file", dry.clone())["ok"], true);
    let patch_call = json!({"patch": patch, "dry_run": true});
    assert_eq!(editkit::tools::call(&toolkit, "apply_patch", patch_call)["ok"], true);
    let mut real = dry;
    real["dry_run"] = json!(false);
    assert_eq!(editkit::tools::call(&toolkit, "edit_file", real)["error"]["kind"], "blocked");
    assert_eq!(std::fs::read_to_string(dir.path().join("b.txt")).unwrap(), "one\n");
    assert!(!dir.path().join(".editkit").exists());
}

#[test]
fn editor_sessions_refuse_to_store_over_a_changed_file() {
    let env = Env::with_files(&[("e.txt", "a\nb\n")]);
    let id = env.ok("editor_load", json!({"path": "e.txt"}))["session_id"].as_str().unwrap().to_owned();
    env.ok("editor_edit", json!({"session_id": id, "old": "b", "new": "c"}));
    let diff = env.ok("editor_diff", json!({"session_id": id}));
    assert_eq!(diff["additions"], 1);
    env.put("e.txt", b"changed\n");
    env.refused("editor_store", json!({"session_id": id}), "stale");
    assert_eq!(env.get("e.txt"), "changed\n");
    env.ok("editor_clear", json!({"session_id": id}));
    env.refused("editor_read", json!({"session_id": id}), "not_found");
}

#[test]
fn project_index_sections_are_refreshed_without_touching_others() {
    let env = Env::with_files(&[("PROJECT.md", "# Old\n\n## Description\n\nold text\n\n## Notes\n\nkeep me\n")]);
    let result = env.ok(
        "update_project_index",
        json!({"project_name": "New", "description": "new text", "instructions": "run it"}),
    );
    assert_eq!(result["updated_sections"], json!(["title", "Description", "Instructions"]));
    assert_eq!(
        env.get("PROJECT.md"),
        "# New\n\n## Description\n\nnew text\n\n## Notes\n\nkeep me\n\n## Instructions\n\nrun it\n"
    );
}

#[test]
fn a_patch_deleting_a_symlink_removes_the_link_only_and_undo_brings_its_content_back() {
    let env = Env::with_files(&[("real.py", "x = 1\n")]);
    std::os::unix::fs::symlink(env.dir.path().join("real.py"), env.dir.path().join("alias.py")).unwrap();
    let ok = env.ok("apply_patch", json!({"patch": "*** Begin Patch\n*** Delete File: alias.py\n*** End Patch\n"}));
    assert_eq!(ok["files"][0]["action"], "delete");
    assert!(std::fs::symlink_metadata(env.dir.path().join("alias.py")).is_err());
    assert_eq!(env.get("real.py"), "x = 1\n");
    env.ok("undo_patch", json!({}));
    assert_eq!(env.get("alias.py"), "x = 1\n");
    assert_eq!(env.get("real.py"), "x = 1\n");
}

#[test]
fn looking_at_a_file_does_not_vouch_for_content_the_agent_never_saw() {
    let env = Env::with_files(&[("m.py", "x = 1\n")]);
    env.ok("read_file", json!({"path": "m.py"}));
    env.put("m.py", b"x = 1\ny = 2\n");
    // Tools that look at the file without showing it do not re-arm the staleness guard...
    env.ok("check_syntax", json!({"path": "m.py"}));
    env.ok("file_symbols", json!({"path": "m.py"}));
    env.ok("generate_diff", json!({"path": "m.py", "new_content": "z = 3\n"}));
    env.refused("write_file", json!({"path": "m.py", "content": "mine\n"}), "stale");
    env.refused("edit_python_file", json!({"path": "m.py", "old_content": "x = 1", "new_content": "x = 5"}), "stale");
    assert_eq!(env.get("m.py"), "x = 1\ny = 2\n");
    // ...reading it does.
    env.ok("read_file", json!({"path": "m.py"}));
    env.ok("edit_python_file", json!({"path": "m.py", "old_content": "x = 1", "new_content": "x = 5"}));
    assert_eq!(env.get("m.py"), "x = 5\ny = 2\n");
}

#[test]
fn an_unaligned_refusal_names_the_similar_block_as_closest() {
    let env = Env::with_files(&[("x.py", "x = [\n    1,\n    2,\n    3,\n    4,\n    5,\n]\n")]);
    // The old text leaves `3,` out and the change inserts exactly where it stands.
    let err = env.refused(
        "edit_file",
        json!({"path": "x.py", "old_string": "x = [\n    1,\n    2,\n    4,\n    5,\n]\n",
               "new_string": "x = [\n    1,\n    2,\n    2.5,\n    4,\n    5,\n]\n"}),
        "not_found",
    )["error"]
        .clone();
    assert_eq!(err["closest"]["first_line"], 1, "{err}");
    assert_eq!(err["closest"]["last_line"], 7, "{err}");
    assert!(err["closest"]["similarity"].as_f64().unwrap() > 0.5, "{err}");
    assert!(err["reason"].as_str().unwrap().contains("3,"), "{err}");
    assert_eq!(env.get("x.py"), "x = [\n    1,\n    2,\n    3,\n    4,\n    5,\n]\n");
}

#[test]
fn the_typed_kinds_are_the_contract_words() {
    let words: Vec<&str> = editkit::ErrorKind::ALL.iter().map(|kind| kind.as_str()).collect();
    assert_eq!(words, editkit::ERROR_KINDS);
    let unique: std::collections::BTreeSet<&str> = words.iter().copied().collect();
    assert_eq!(unique.len(), words.len());
    // A lower crate's kind arrives typed, never by its word.
    let err = editkit::Error::from(editkit::vfs::Error::Stale { path: "a".into(), expected: None, current: None });
    assert_eq!(err.error_kind(), editkit::ErrorKind::Stale);
    assert_eq!(err.error_kind().to_string(), err.error_kind().as_str());
}

#[test]
fn a_project_index_with_a_section_twice_is_refused_not_given_a_third() {
    let doc = "# P\n\n## Description\n\none\n\n## Description\n\ntwo\n";
    let env = Env::with_files(&[("INDEX.md", doc)]);
    env.refused("update_project_index", json!({"file": "INDEX.md", "description": "three"}), "ambiguous");
    assert_eq!(env.get("INDEX.md"), doc);
}

#[test]
fn a_directory_with_entries_is_deleted_only_when_asked_and_a_slash_path_is_never_a_file() {
    let env = Env::with_files(&[("src/a.py", "a = 1\n"), ("src/b.py", "b = 1\n")]);
    std::fs::create_dir(env.dir.path().join("empty")).unwrap();
    let refused = env.refused("delete", json!({"path": "src"}), "invalid_args");
    assert_eq!(refused["error"]["field"], "recursive");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("2 entries (a.py, b.py)") && message.contains("recursive: true"), "{message}");
    assert_eq!(env.get("src/a.py"), "a = 1\n");
    assert_eq!(env.ok("delete", json!({"path": "empty"}))["deleted"], "dir");
    assert_eq!(env.ok("delete", json!({"path": "src", "recursive": true}))["deleted"], "dir");
    assert!(!env.dir.path().join("src").exists());

    // `dir/` names a directory: no file called `dir` appears.
    for path in ["notes/", "src/"] {
        let refused = env.refused("write_file", json!({"path": path, "content": "x"}), "invalid_args");
        assert!(refused["error"]["message"].as_str().unwrap().contains("ending in `/`"), "{refused}");
    }
    assert!(!env.dir.path().join("notes").exists() && !env.dir.path().join("src").exists());
}

#[test]
fn file_info_says_what_a_path_is_and_create_directory_makes_one() {
    let env = Env::with_files(&[("src/app.py", "def main():\n    pass\n"), ("logo.png", "\u{0}PNG")]);
    std::fs::set_permissions(env.dir.path().join("src/app.py"), std::os::unix::fs::PermissionsExt::from_mode(0o640))
        .unwrap();
    let info = env.ok("file_info", json!({"path": "./src/app.py"}));
    assert_eq!((info["path"].as_str(), info["kind"].as_str()), (Some("src/app.py"), Some("file")));
    assert_eq!((info["size_bytes"].as_u64(), info["line_count"].as_u64()), (Some(21), Some(2)));
    assert_eq!((info["file_type"].as_str(), info["permissions"].as_str()), (Some("python"), Some("0640")));
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    assert!((now - info["modified_unix"].as_i64().unwrap()).abs() < 600, "{info}");
    // The same time to the nanosecond, and the status change time, as `stat` gives them.
    let stat = std::fs::metadata(env.dir.path().join(info["path"].as_str().unwrap())).unwrap();
    let nanos = |time: std::time::SystemTime| {
        i64::try_from(time.duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()).unwrap()
    };
    assert_eq!(info["modified_ns"].as_i64(), Some(nanos(stat.modified().unwrap())), "{info}");
    assert_eq!(info["modified_ns"].as_i64().unwrap() / 1_000_000_000, info["modified_unix"].as_i64().unwrap());
    {
        use std::os::unix::fs::MetadataExt;
        assert_eq!(info["changed_ns"].as_i64(), Some(stat.ctime() * 1_000_000_000 + stat.ctime_nsec()), "{info}");
    }
    let binary = env.ok("file_info", json!({"path": "logo.png"}));
    assert_eq!((binary["file_type"].as_str(), binary["line_count"].as_u64()), (Some("binary"), None));
    let dir = env.ok("file_info", json!({"path": "src"}));
    assert_eq!(
        (dir["kind"].as_str(), dir["size_bytes"].as_u64(), dir["file_type"].as_str()),
        (Some("dir"), Some(0), None)
    );
    // A FIFO planted in the repository is described, never opened for reading (no hang).
    let fifo = env.dir.path().join("pipe");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success(), "mkfifo is needed");
    let pipe = env.ok("file_info", json!({"path": "pipe"}));
    assert_eq!(
        (pipe["kind"].as_str(), pipe["line_count"].as_u64(), pipe["file_type"].as_str()),
        (Some("other"), None, None)
    );
    env.refused("file_info", json!({"path": "missing.txt"}), "not_found");
    env.refused("file_info", json!({"path": "../outside"}), "outside_workspace");
    // Looking at a file does not vouch for it: an edit after file_info alone is not guarded
    // by it (no read happened), and file_info leaves the staleness ledger as it was.
    assert_eq!(env.toolkit.workspace().recorded_hash("src/app.py").unwrap(), None);

    let made = env.ok("create_directory", json!({"path": "build/out"}));
    assert_eq!((made["path"].as_str(), made["created"].as_bool()), (Some("build/out"), Some(true)));
    assert!(env.dir.path().join("build/out").is_dir());
    assert_eq!(env.ok("create_directory", json!({"path": "build/out/"}))["created"], false);
    env.refused("create_directory", json!({"path": "src/app.py"}), "invalid_args");
    env.refused("create_directory", json!({"path": ".git/hooks"}), "blocked");
    env.refused("create_directory", json!({"path": "../escape"}), "outside_workspace");
    assert!(!env.dir.path().join(".git").exists());
}

#[test]
fn insert_lines_lands_after_the_line_keeps_endings_and_can_be_undone() {
    let env = Env::with_files(&[("a.py", "one\ntwo\nthree\n"), ("b.txt", "x\r\ny"), ("c.txt", "")]);
    env.ok("read_file", json!({"path": "a.py"}));
    let top = env.ok("insert_lines", json!({"path": "a.py", "line": 0, "text": "# head"}));
    assert_eq!(top["line_range"], json!([1, 1]));
    assert_eq!(env.get("a.py"), "# head\none\ntwo\nthree\n");
    let middle = env.ok("insert_lines", json!({"path": "a.py", "line": 2, "text": "a\nb\n"}));
    assert_eq!(middle["line_range"], json!([3, 4]));
    assert!(middle["diff"].as_str().unwrap().contains("+a\n+b\n"), "{middle}");
    env.ok("insert_lines", json!({"path": "a.py", "line": 6, "text": "end"}));
    assert_eq!(env.get("a.py"), "# head\none\na\nb\ntwo\nthree\nend\n");
    // CRLF file without a final line end: the new line takes CRLF and the file still ends bare.
    env.ok("read_file", json!({"path": "b.txt"}));
    env.ok("insert_lines", json!({"path": "b.txt", "line": 2, "text": "z"}));
    assert_eq!(env.get("b.txt"), "x\r\ny\r\nz");
    env.ok("insert_lines", json!({"path": "c.txt", "line": 0, "text": "first"}));
    assert_eq!(env.get("c.txt"), "first\n");

    let past = env.refused("insert_lines", json!({"path": "a.py", "line": 8, "text": "x"}), "invalid_args");
    assert!(past["error"]["message"].as_str().unwrap().contains("has 7 lines"), "{past}");
    env.refused("insert_lines", json!({"path": "a.py", "line": 1, "text": ""}), "invalid_args");
    let dry = env.ok("insert_lines", json!({"path": "a.py", "line": 1, "text": "x", "dry_run": true}));
    assert_eq!(dry["dry_run"], true);
    env.put("a.py", b"changed elsewhere\n");
    env.refused("insert_lines", json!({"path": "a.py", "line": 1, "text": "x"}), "stale");
    assert_eq!(env.get("a.py"), "changed elsewhere\n");
    // The last insert into b.txt is undone like an edit.
    env.ok("undo_edit", json!({"path": "b.txt"}));
    assert_eq!(env.get("b.txt"), "x\r\ny");
}

/// A file stored in NFD and an old text in NFC: edited on the canonical-equivalence rung,
/// reported as such, the new text in the file's form.
#[test]
fn edit_file_reports_the_canonical_equivalence_rung() {
    let nfd = |text: &str| text.replace('й', "и\u{306}");
    let env = Env::with_files(&[("geo.py", &nfd("region = \"Район: Астана\"\n"))]);
    env.ok("read_file", json!({"path": "geo.py"}));
    let edited =
        env.ok("edit_file", json!({"path": "geo.py", "old_string": "Район: Астана", "new_string": "Район: Есиль"}));
    assert_eq!((edited["rung"].as_str(), edited["score"].as_f64()), (Some("canonical_equivalent"), Some(1.0)));
    assert_eq!(env.get("geo.py"), nfd("region = \"Район: Есиль\"\n"));
}

/// Goose's and Anthropic's editors take `insert_line: -1` for "after the last line", and
/// Anthropic's newer editor names the text `insert_text`; -1 is the only negative line.
#[test]
fn insert_lines_takes_minus_one_for_the_end_and_insert_text_for_the_text() {
    let env = Env::with_files(&[("a.py", "one\ntwo\n"), ("b.txt", "x\r\ny")]);
    env.ok("read_file", json!({"path": "a.py"}));
    let end = env.ok("insert_lines", json!({"path": "a.py", "insert_line": -1, "new_str": "three"}));
    assert_eq!(env.get("a.py"), "one\ntwo\nthree\n");
    assert_eq!(end["line_range"], json!([3, 3]));
    let named = env.ok("insert_lines", json!({"path": "a.py", "insert_line": 0, "insert_text": "zero\n"}));
    assert_eq!(named["line_range"], json!([1, 1]));
    env.ok("insert_lines", json!({"path": "a.py", "line": -1, "insert_text": "four"}));
    assert_eq!(env.get("a.py"), "zero\none\ntwo\nthree\nfour\n");
    // A file without a final line end keeps ending bare, as with its line count.
    env.ok("read_file", json!({"path": "b.txt"}));
    env.ok("insert_lines", json!({"path": "b.txt", "insert_line": -1, "insert_text": "z"}));
    assert_eq!(env.get("b.txt"), "x\r\ny\r\nz");
    for line in [-2, -100] {
        let refused = env.refused("insert_lines", json!({"path": "a.py", "line": line, "text": "x"}), "invalid_args");
        assert!(refused["error"]["message"].as_str().unwrap().contains("-1"), "{refused}");
    }
    // Two names for the text are one too many.
    env.refused("insert_lines", json!({"path": "a.py", "line": 1, "text": "x", "insert_text": "y"}), "invalid_args");
    assert_eq!(env.get("a.py"), "zero\none\ntwo\nthree\nfour\n");
}

/// A path outside the workspace is refused with the roots, so the agent learns where it may work.
#[test]
fn a_path_outside_the_workspace_is_told_the_roots() {
    let env = Env::new();
    let refused = env.refused("read_file", serde_json::json!({"path": "../elsewhere.txt"}), "outside_workspace");
    let root = env.toolkit.workspace().root_path().display().to_string();
    assert_eq!(refused["error"]["roots"], serde_json::json!([root]));
    assert!(
        refused["error"]["message"].as_str().unwrap().contains(&format!("the workspace root is: {root}")),
        "{refused}"
    );
}

/// Lines copied from a numbered read land, with the lines a model added between them; numbers
/// that point elsewhere than the match refuse the edit.
#[test]
fn numbered_lines_copied_into_an_edit_land_only_where_their_numbers_say() {
    let env = Env::new();
    env.put("m.py", b"import os\n\ndef f():\n    return 1\n\ndef g():\n    return 2\n");
    env.ok("read_file", json!({"path": "m.py"}));
    let edit = env.ok(
        "edit_file",
        json!({"path": "m.py", "old_string": "     6\tdef g():\n     7\t    return 2", "new_string": "     6\tdef g():\n    x = 3\n     7\t    return x"}),
    );
    assert_eq!(edit["line_numbers_stripped"], true);
    assert_eq!(env.get("m.py"), "import os\n\ndef f():\n    return 1\n\ndef g():\n    x = 3\n    return x\n");
    // Copied from another version of the file: `def f():` stands at line 3, not 9.
    let refused = env.refused(
        "edit_file",
        json!({"path": "m.py", "old_string": "     9\tdef f():", "new_string": "def h():"}),
        "invalid_args",
    );
    assert!(refused["error"]["message"].as_str().unwrap().contains("matches at line 3"), "{refused}");
    assert!(env.get("m.py").contains("def f():"));
}

/// A page bound cuts a long read at a whole line and names the offset that reads on; one line
/// longer than the page is answered whole, with nothing to read on.
#[test]
fn reads_longer_than_the_page_bound_end_at_a_line_with_the_offset_to_read_on() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("rows.txt"), "0123456789\n".repeat(10)).unwrap();
    std::fs::write(dir.path().join("one.txt"), "x".repeat(100)).unwrap();
    let options = editkit::ToolkitOptions { read_page_bytes: Some(25), ..Default::default() };
    let toolkit = editkit::Toolkit::open(dir.path(), options).unwrap();
    let page = editkit::tools::call(&toolkit, "read_file", json!({"path": "rows.txt"}));
    assert_eq!(
        (page["start_line"].as_u64(), page["end_line"].as_u64(), page["next_offset"].as_u64()),
        (Some(1), Some(2), Some(3))
    );
    assert_eq!(page["content"], "0123456789\n0123456789\n");
    let last = editkit::tools::call(&toolkit, "read_file", json!({"path": "rows.txt", "offset": 9}));
    assert_eq!((last["end_line"].as_u64(), last["next_offset"].clone()), (Some(10), serde_json::Value::Null));
    let one = editkit::tools::call(&toolkit, "read_file", json!({"path": "one.txt"}));
    assert_eq!(
        (one["content"].as_str().map(str::len), one["next_offset"].clone(), one["partial"].clone()),
        (Some(100), serde_json::Value::Null, json!(false))
    );
    let tail = editkit::tools::call(&toolkit, "read_file", json!({"path": "rows.txt", "tail": 1}));
    assert_eq!((tail["start_line"].as_u64(), tail["end_line"].as_u64()), (Some(10), Some(10)));
}

/// `move` to a path ending in `/` is refused (it would create a file named like the folder),
/// and onto an existing file without overwrite.
#[test]
fn a_move_to_a_folder_spelling_or_onto_a_file_is_refused() {
    let env = Env::new();
    env.put("a.txt", b"a\n");
    env.put("b.txt", b"b\n");
    env.refused("move", json!({"from": "a.txt", "to": "newdir/"}), "invalid_args");
    assert!(!env.dir.path().join("newdir").exists());
    env.refused("move", json!({"from": "a.txt", "to": "b.txt"}), "exists");
    let moved = env.ok("move", json!({"from": "a.txt", "to": "b.txt", "overwrite": true}));
    assert_eq!(moved["overwritten"], true);
    assert_eq!(env.get("b.txt"), "a\n");
    // Undone: both files as they were.
    env.ok("undo_patch", json!({}));
    assert_eq!((env.get("a.txt"), env.get("b.txt")), ("a\n".to_owned(), "b\n".to_owned()));
}

/// `raw` answers the file exactly as on disk (mixed endings, lone CR, BOM), whole or not at all;
/// the hash is the same as a plain read's, so either arms the guard for the same bytes.
#[test]
fn a_raw_read_gives_the_bytes_as_they_are() {
    let bytes = "\u{feff}one\r\ntwo\nthree\rfour".as_bytes();
    let env = Env::new();
    env.put("mixed.txt", bytes);
    let plain = env.ok("read_file", json!({"path": "mixed.txt"}));
    assert_eq!(plain["content"], "one\ntwo\nthree\nfour");
    let raw = env.ok("read_file", json!({"path": "mixed.txt", "raw": true}));
    assert_eq!(raw["content"].as_str().unwrap().as_bytes(), bytes);
    assert_eq!((raw["sha256"].clone(), raw["line_endings"].clone()), (plain["sha256"].clone(), json!("mixed")));
    assert_eq!(
        (raw["start_line"].clone(), raw["end_line"].clone(), raw["partial"].clone()),
        (json!(1), json!(4), json!(false))
    );
    for range in [json!({"offset": 2}), json!({"limit": 1}), json!({"tail": 1})] {
        let mut args = json!({"path": "mixed.txt", "raw": true});
        args.as_object_mut().unwrap().extend(range.as_object().unwrap().clone());
        let refused = env.refused("read_file", args, "invalid_args");
        assert_eq!(refused["error"]["field"], "raw");
    }
    let paged = Env::with_options(editkit::ToolkitOptions { read_page_bytes: Some(8), ..Default::default() });
    paged.put("mixed.txt", bytes);
    let refused = paged.refused("read_file", json!({"path": "mixed.txt", "raw": true}), "too_large");
    assert_eq!(refused["error"]["limit"], "read_page_bytes");
}

/// `create_new` writes only where nothing stands: an existing file (or link, or folder) is
/// refused as `exists` and left as it was.
#[test]
fn create_new_writes_only_where_nothing_stands() {
    let env = Env::new();
    env.put("taken.txt", b"mine\n");
    env.refused("write_file", json!({"path": "taken.txt", "content": "theirs\n", "create_new": true}), "exists");
    env.refused(
        "write_file",
        json!({"path": "taken.txt", "content": "x", "create_new": true, "force": true}),
        "exists",
    );
    assert_eq!(env.get("taken.txt"), "mine\n");
    std::os::unix::fs::symlink("taken.txt", env.dir.path().join("link.txt")).unwrap();
    env.refused("write_file", json!({"path": "link.txt", "content": "x", "create_new": true}), "exists");
    assert_eq!(env.get("taken.txt"), "mine\n");
    // A link inside the root that leads nowhere yet is followed, as by every write: its target
    // is created and the link stays.
    std::os::unix::fs::symlink("later.txt", env.dir.path().join("dangling.txt")).unwrap();
    let through = env.ok("write_file", json!({"path": "dangling.txt", "content": "l\n", "create_new": true}));
    assert_eq!((through["path"].clone(), env.get("later.txt")), (json!("later.txt"), "l\n".to_owned()));
    assert!(env.dir.path().join("dangling.txt").symlink_metadata().unwrap().file_type().is_symlink());
    env.refused("write_file", json!({"path": "dangling.txt", "content": "again\n", "create_new": true}), "exists");
    let created = env.ok("write_file", json!({"path": "new/fresh.txt", "content": "fresh\n", "create_new": true}));
    assert_eq!((created["created"].clone(), env.get("new/fresh.txt")), (json!(true), "fresh\n".to_owned()));
}

/// `strict` takes old_string exactly as written: drift that the ladder would tolerate is refused
/// as not found, an exact match lands, and ambiguity is still refused; editor sessions alike.
#[test]
fn a_strict_edit_matches_only_the_text_as_written() {
    let env = Env::new();
    env.put("a.py", b"def f():\n\treturn 1\n\nx = 'a'\nx = 'a'\n");
    let drifted = json!({"path": "a.py", "old_string": "    return 1", "new_string": "    return 2", "strict": true});
    env.refused("edit_file", drifted.clone(), "not_found");
    env.refused(
        "edit_file",
        json!({"path": "a.py", "old_string": "x = \u{2018}a\u{2019}", "new_string": "y", "strict": true}),
        "not_found",
    );
    env.refused(
        "edit_file",
        json!({"path": "a.py", "old_string": "     1\t\treturn 1", "new_string": "\treturn 2", "strict": true}),
        "not_found",
    );
    env.refused(
        "edit_file",
        json!({"path": "a.py", "old_string": "x = 'a'", "new_string": "x = 'b'", "strict": true}),
        "ambiguous",
    );
    assert_eq!(env.get("a.py"), "def f():\n\treturn 1\n\nx = 'a'\nx = 'a'\n");
    let exact = env.ok(
        "edit_file",
        json!({"path": "a.py", "old_string": "\treturn 1", "new_string": "\treturn 2", "strict": true}),
    );
    assert_eq!(exact["rung"], "exact");
    // Without strict, the same drift lands.
    let mut loose = drifted;
    loose["strict"] = json!(false);
    loose["old_string"] = json!("    return 2");
    loose["new_string"] = json!("    return 3");
    env.ok("edit_file", loose);
    assert_eq!(env.get("a.py"), "def f():\n\treturn 3\n\nx = 'a'\nx = 'a'\n");

    let session = env.ok("editor_load", json!({"path": "a.py"}))["session_id"].clone();
    let edit = |old: &str, strict: bool| json!({"session_id": session, "old_string": old, "new_string": "\treturn 4", "strict": strict});
    env.refused("editor_edit", edit("    return 3", true), "not_found");
    env.ok("editor_edit", edit("\treturn 3", true));
}

/// `dialect` reads a patch as its writer meant it: an added file's `+ item` lines are literal
/// text in the hunk dialect, `+`-prefixed lines in a Begin Patch one (what the markers suggest
/// when no dialect is given).
#[test]
fn a_patch_is_read_in_the_dialect_given() {
    let env = Env::new();
    let patch = "*** Add File: notes.md\n+ milk\n+ eggs\n*** End Patch\n";
    env.ok("apply_patch", json!({"patch": patch, "dialect": "hunks"}));
    assert_eq!(env.get("notes.md"), "+ milk\n+ eggs\n");
    env.ok("apply_patch", json!({"patch": patch.replace("notes.md", "guessed.md")}));
    assert_eq!(env.get("guessed.md"), " milk\n eggs\n");
    let opened = "*** Begin Patch\n*** Add File: plain.txt\none\ntwo\n*** End Patch\n";
    env.refused("apply_patch", json!({"patch": opened}), "invalid_patch");
    env.ok("apply_patch", json!({"patch": opened, "dialect": "hunks"}));
    assert_eq!(env.get("plain.txt"), "one\ntwo\n");
    let hunks = "*** Update File: plain.txt\n@@\none\n===\nONE\n*** End Patch\n";
    env.refused("apply_patch", json!({"patch": hunks, "dialect": "begin_patch"}), "invalid_patch");
    assert_eq!(env.get("plain.txt"), "one\ntwo\n");
    let refused = env.refused("apply_patch", json!({"patch": hunks, "dialect": "git"}), "invalid_args");
    assert_eq!(refused["error"]["field"], "dialect");
}

/// A patch cut off is refused whatever dialect it is read in, also in the middle of a
/// `*** Move File:` header; nothing is written or moved.
#[test]
fn a_cut_patch_is_refused_in_every_dialect_given() {
    let env = Env::new();
    env.put("src/app.py", b"x = 1\n");
    let whole = "*** Move File: src/app.py -> lib/app.py\n@@\nx = 1\n===\nx = 2\n*** End Patch\n";
    for cut in [whole.len() - 5, whole.len() - 14, 30, 20] {
        let text = &whole[..cut];
        for dialect in ["hunks", "begin_patch"] {
            let refused = env.refused("apply_patch", json!({"patch": text, "dialect": dialect}), "invalid_patch");
            assert!(
                refused["error"]["message"].as_str().unwrap().contains("incomplete"),
                "{text:?} {dialect}: {refused}"
            );
        }
        env.refused("apply_patch", json!({"patch": text}), "invalid_patch");
    }
    assert_eq!(env.get("src/app.py"), "x = 1\n");
    assert!(!env.dir.path().join("lib").exists());
    env.ok("apply_patch", json!({"patch": whole, "dialect": "hunks"}));
    assert_eq!(env.get("lib/app.py"), "x = 2\n");
}

#[test]
fn replace_function_dry_run_shows_the_change_and_validate_false_skips_the_syntax_check() {
    let source = "def f():\n    return 1\n\n\ndef g():\n    return 2\n";
    let env = Env::with_files(&[("m.py", source)]);
    // A dry run answers the diff and the hash the file would have, and writes nothing.
    let dry = env.ok(
        "replace_function",
        json!({"path": "m.py", "function_name": "f", "new_implementation": "def f():\n    return 3\n", "dry_run": true}),
    );
    assert_eq!(dry["dry_run"], true);
    assert!(dry["diff"].as_str().unwrap().contains("-    return 1\n+    return 3\n"), "{dry}");
    assert_eq!(env.get("m.py"), source);
    let expected = source.replace("return 1", "return 3");
    assert_eq!(dry["sha256"], editkit::vfs::Sha256::of(expected.as_bytes()).to_string());
    // A result editkit's parser refuses is refused, unless validate is false (the caller judges).
    let broken = json!({"path": "m.py", "function_name": "f", "new_implementation": "def f():\n    return (\n"});
    env.refused("replace_function", broken.clone(), "syntax_error");
    let mut unchecked = broken;
    unchecked["validate"] = json!(false);
    unchecked["dry_run"] = json!(true);
    let shown = env.ok("replace_function", unchecked.clone());
    assert!(shown["diff"].as_str().unwrap().contains("+    return (\n"), "{shown}");
    assert_eq!(env.get("m.py"), source);
    unchecked["dry_run"] = json!(false);
    let written = env.ok("replace_function", unchecked);
    assert_eq!(written["dry_run"], false);
    assert!(env.get("m.py").contains("return (\n"));
}
