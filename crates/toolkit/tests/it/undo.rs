//! Undo history: what it keeps, when it prunes, and that it never makes things worse.

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use crate::support::Env;

fn env_with_depth(depth: usize, files: &[(&str, &str)]) -> Env {
    let env = Env::with_options(editkit::ToolkitOptions { history_depth: depth, ..Default::default() });
    for (path, content) in files {
        env.put(path, content.as_bytes());
    }
    env
}

#[test]
fn a_refused_write_costs_no_undo_step() {
    let env = env_with_depth(1, &[("a.txt", "v0\n")]);
    env.ok("write_file", json!({"path": "a.txt", "content": "v1\n"}));
    env.refused("write_file", json!({"path": "a.txt", "content": "v2\n", "expected_hash": "0".repeat(64)}), "stale");
    env.refused("edit_file", json!({"path": "a.txt", "old_string": "nowhere", "new_string": "x"}), "not_found");
    env.ok("undo_edit", json!({"path": "a.txt"}));
    assert_eq!(env.get("a.txt"), "v0\n");
}

#[test]
fn the_depth_bounds_the_steps_kept() {
    let env = env_with_depth(2, &[("a.txt", "v0\n")]);
    for n in 1..=4 {
        env.ok("write_file", json!({"path": "a.txt", "content": format!("v{n}\n")}));
    }
    env.ok("undo_edit", json!({"path": "a.txt"}));
    env.ok("undo_edit", json!({"path": "a.txt"}));
    assert_eq!(env.get("a.txt"), "v2\n");
    env.refused("undo_edit", json!({"path": "a.txt"}), "not_found");
}

#[test]
fn a_lost_undo_entry_never_becomes_a_deletion() {
    let env = Env::with_files(&[("a.txt", "v0\n")]);
    env.ok("write_file", json!({"path": "a.txt", "content": "v1\n"}));
    // Damage the history: the kept content of the last change disappears.
    let mut kept = Vec::new();
    let state = editkit::vfs::Workspace::open(env.dir.path(), editkit::vfs::ambient_authority())
        .unwrap()
        .state_dir()
        .to_owned();
    for dir in std::fs::read_dir(state.join("undo/files")).unwrap().flatten() {
        // The entries, not the folder's `path` marker.
        for entry in std::fs::read_dir(dir.path()).unwrap().flatten() {
            if entry.path().extension().is_some_and(|e| e == "keep" || e == "absent") {
                kept.push(entry.path());
            }
        }
    }
    assert_eq!(kept.len(), 1, "{kept:?}");
    std::fs::remove_file(&kept[0]).unwrap();
    // A link where the kept content was (editkit never makes one there) is not followed.
    let outside = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(outside.path(), "LEAK\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), &kept[0]).unwrap();
    let refused = env.refused("undo_edit", json!({"path": "a.txt"}), "io");
    assert!(refused["error"]["message"].as_str().unwrap().contains("symlink"), "{refused:#}");
    assert_eq!(env.get("a.txt"), "v1\n");
    // The entry is gone altogether: still no deletion.
    std::fs::remove_file(&kept[0]).unwrap();
    env.refused("undo_edit", json!({"path": "a.txt"}), "not_found");
    assert_eq!(env.get("a.txt"), "v1\n");
}

#[test]
fn two_threads_undoing_one_file_take_different_steps() {
    let env = Env::with_files(&[("a.txt", "v0\n")]);
    for n in 1..=2 {
        env.ok("write_file", json!({"path": "a.txt", "content": format!("v{n}\n")}));
    }
    let results: Vec<serde_json::Value> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| editkit::tools::call(&env.toolkit, "undo_edit", json!({"path": "a.txt", "force": true})))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(results.iter().all(|r| r["ok"] == true), "{results:#?}");
    assert_eq!(env.get("a.txt"), "v0\n");
}

#[test]
fn an_undone_deletion_brings_the_mode_back() {
    let env = Env::with_files(&[("run.sh", "#!/bin/sh\necho hi\n")]);
    let path = env.dir.path().join("run.sh");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o751)).unwrap();
    env.ok("delete", json!({"path": "run.sh"}));
    assert!(!path.exists());
    env.ok("undo_edit", json!({"path": "run.sh"}));
    assert_eq!(env.get("run.sh"), "#!/bin/sh\necho hi\n");
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o751);
}

#[test]
fn a_formatted_write_reports_and_undoes_the_formatted_content() {
    let mut formatting = editkit::analyze::FormatOptions { enabled: true, ..Default::default() };
    formatting.formatters.insert("txt".into(), vec![editkit::analyze::ExternalTool::new("sed", &["sed", "s/x/X/"])]);
    let env = Env::with_options(editkit::ToolkitOptions { formatting, ..Default::default() });
    let written = env.ok("write_file", json!({"path": "a.txt", "content": "x = 1\n"}));
    assert_eq!(env.get("a.txt"), "X = 1\n");
    assert_eq!(written["sha256"], editkit::vfs::Sha256::of(b"X = 1\n").to_string());
    // The guard knows the formatted content: no re-read needed before the next edit.
    let edited = env.ok("edit_file", json!({"path": "a.txt", "old_string": "X = 1", "new_string": "y = 2"}));
    assert_eq!(env.get("a.txt"), "y = 2\n");
    assert_eq!(edited["sha256"], editkit::vfs::Sha256::of(b"y = 2\n").to_string());
    // Each step undoes without force: the entries expect the formatted hashes.
    env.ok("undo_edit", json!({"path": "a.txt"}));
    assert_eq!(env.get("a.txt"), "X = 1\n");
    env.ok("undo_edit", json!({"path": "a.txt"}));
    assert!(!env.dir.path().join("a.txt").exists());
}

#[test]
fn a_patched_file_is_formatted_like_an_edited_one_and_undone_without_force() {
    let mut formatting = editkit::analyze::FormatOptions { enabled: true, ..Default::default() };
    formatting.formatters.insert("txt".into(), vec![editkit::analyze::ExternalTool::new("sed", &["sed", "s/x/X/"])]);
    let env = Env::with_options(editkit::ToolkitOptions { formatting, ..Default::default() });
    std::fs::write(env.dir.path().join("a.txt"), "a = 1\n").unwrap();
    std::fs::write(env.dir.path().join("keep.txt"), "k\n").unwrap();
    let patch = "*** Begin Patch\n*** Update File: a.txt\n-a = 1\n+x = 1\n*** Add File: b.txt\n+x = 2\n\
                 *** Update File: keep.txt\n-k\n+K\n*** End Patch\n";
    let applied = env.ok("apply_patch", json!({"patch": patch}));
    assert_eq!(env.get("a.txt"), "X = 1\n");
    assert_eq!(env.get("b.txt"), "X = 2\n");
    assert_eq!(env.get("keep.txt"), "K\n");
    let files = applied["files"].as_array().unwrap();
    assert_eq!(files[0]["formatted"], true);
    assert_eq!(files[0]["sha256"], editkit::vfs::Sha256::of(b"X = 1\n").to_string());
    assert_eq!(files[1]["formatted"], true);
    // Nothing for the formatter to change: no `formatted`, the patch's own hash.
    assert!(files[2].get("formatted").is_none(), "{}", files[2]);
    assert_eq!(files[2]["sha256"], editkit::vfs::Sha256::of(b"K\n").to_string());
    // The guard knows the formatted content, and the patch's undo entry expects it.
    env.ok("edit_file", json!({"path": "a.txt", "old_string": "X = 1", "new_string": "y = 1"}));
    env.ok("undo_edit", json!({"path": "a.txt"}));
    env.ok("undo_patch", json!({}));
    assert_eq!(env.get("a.txt"), "a = 1\n");
    assert!(!env.dir.path().join("b.txt").exists());
    assert_eq!(env.get("keep.txt"), "k\n");
}

/// A patched file is checked on what it holds once written: the formatter's content, not the
/// patch's (whose checks run beside the commit), when the formatter changed it; the other files
/// keep the verdicts on the patch's contents.
#[test]
fn a_patched_file_is_checked_as_the_formatter_left_it() {
    let mut formatting = editkit::analyze::FormatOptions { enabled: true, ..Default::default() };
    formatting.formatters.insert("py".into(), vec![editkit::analyze::ExternalTool::new("sed", &["sed", "s/OPEN/(/"])]);
    let env = Env::with_options(editkit::ToolkitOptions { formatting, ..Default::default() });
    std::fs::write(env.dir.path().join("a.py"), "a = 1\n").unwrap();
    std::fs::write(env.dir.path().join("b.py"), "b = 1\n").unwrap();
    let patch = "*** Begin Patch\n*** Update File: a.py\n-a = 1\n+a = OPEN\n*** Update File: b.py\n-b = 1\n+b = (\n\
                 *** End Patch\n";
    let applied = env.ok("apply_patch", json!({"patch": patch}));
    assert_eq!(env.get("a.py"), "a = (\n");
    let files = applied["files"].as_array().unwrap();
    assert_eq!(files[0]["formatted"], true, "{applied}");
    assert_eq!(files[0]["diagnostics"]["has_problems"], true, "{applied}");
    assert_eq!(files[0]["diagnostics"]["syntax_errors"][0]["line"], 1, "{applied}");
    assert_eq!(files[1]["diagnostics"]["has_problems"], true, "{applied}");
}

/// A recursive delete refused for a blocked file inside leaves no undo entry: undo_patch still
/// undoes the change before it.
#[test]
fn a_refused_recursive_delete_leaves_the_history_as_it_was() {
    let env = crate::support::Env::new();
    env.put("config/app.toml", b"a = 1\n");
    env.put("config/.env", b"SECRET=1\n");
    env.put("note.txt", b"one\n");
    env.ok("move", serde_json::json!({"from": "note.txt", "to": "moved.txt"}));
    env.refused("delete", serde_json::json!({"path": "config", "recursive": true}), "blocked");
    assert_eq!(env.get("config/app.toml"), "a = 1\n");
    let undone = env.ok("undo_patch", serde_json::json!({}));
    assert_eq!(undone["restored"], serde_json::json!(["note.txt", "moved.txt"]));
    assert_eq!(env.get("note.txt"), "one\n");
    // A recursive delete that goes through is undone whole.
    env.put("build/a.txt", b"a\n");
    env.put("build/sub/b.txt", b"b\n");
    env.ok("delete", serde_json::json!({"path": "build", "recursive": true}));
    assert!(!env.dir.path().join("build").exists());
    env.ok("undo_patch", serde_json::json!({}));
    assert_eq!((env.get("build/a.txt"), env.get("build/sub/b.txt")), ("a\n".to_owned(), "b\n".to_owned()));
}

/// The state folder is input too: a `path` marker that does not match its folder's name (a
/// forged or moved entry) is not listed by `history`, and an entry name with a bad time is
/// not an entry.
#[test]
fn history_lists_only_entries_whose_marker_matches_their_folder() {
    let env = Env::with_files(&[("a.txt", "v0\n")]);
    env.ok("write_file", json!({"path": "a.txt", "content": "v1\n"}));
    let state = editkit::vfs::Workspace::open(env.dir.path(), editkit::vfs::ambient_authority())
        .unwrap()
        .state_dir()
        .to_owned();
    let forged = state.join("undo/files/000000000000000000000000");
    std::fs::create_dir_all(&forged).unwrap();
    std::fs::write(forged.join("path"), "secret.txt").unwrap();
    std::fs::write(forged.join("0000000001-none-tnever.absent"), "").unwrap();
    let listed = env.ok("history", json!({}));
    let paths: Vec<&str> = listed["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["a.txt"]);
    assert_eq!(listed["files"][0]["versions"][0]["size_bytes"], 3);
    let one = env.ok("history", json!({"path": "a.txt"}));
    assert_eq!(one["last_change"], "edit");
}

/// Deleting the root is refused before anything is kept for undo: the refusal says the root
/// cannot be deleted (not that a file inside is too large or blocked), and no change is recorded.
#[test]
fn deleting_the_root_is_refused_before_its_files_are_kept() {
    // A file over the read limit would refuse the undo copy of the tree as too_large.
    let env = Env::with_options(editkit::ToolkitOptions { max_read_bytes: 1_000, ..Default::default() });
    env.put("src/a.py", b"a = 1\n");
    env.put("big.bin", "x".repeat(5_000).as_bytes());
    env.put(".git/HEAD", b"ref: refs/heads/main\n");
    for path in [".", "", "src/..", "./"] {
        let refused = env.refused("delete", json!({"path": path, "recursive": true}), "invalid_args");
        assert!(
            refused["error"]["message"].as_str().unwrap().contains("workspace root cannot be deleted"),
            "{path:?}: {refused}"
        );
    }
    assert_eq!(env.get("src/a.py"), "a = 1\n");
    let listed = env.ok("history", json!({}));
    assert_eq!(listed["patches"], json!([]), "{listed}");
}

#[test]
fn steps_past_the_depth_leave_no_file_behind_once_the_toolkit_is_dropped() {
    let filler = "y = 1\n".repeat(120_000);
    let env = env_with_depth(2, &[("big.py", &format!("x = 0\n{filler}"))]);
    for n in 1..=6 {
        // Large writes and edits: the kept versions are megabytes, removed off the reply's path.
        if n % 2 == 0 {
            env.ok(
                "edit_file",
                json!({"path": "big.py", "old_string": format!("x = {}\n", n - 1), "new_string": format!("x = {n}\n")}),
            );
        } else {
            env.ok("write_file", json!({"path": "big.py", "content": format!("x = {n}\n{filler}")}));
        }
        // Gone for the history at once: never more versions than the depth.
        let history = env.ok("history", json!({"path": "big.py"}));
        let versions = history["files"][0]["versions"].as_array().map(Vec::len);
        assert_eq!(versions, Some(n.min(2)), "{history}");
    }
    let state = env.toolkit.workspace().state_dir().to_owned();
    let Env { dir, toolkit, .. } = env;
    drop(toolkit);
    let mut left = Vec::new();
    for folder in std::fs::read_dir(state.join("undo/files")).unwrap().flatten() {
        for entry in std::fs::read_dir(folder.path()).unwrap().flatten() {
            left.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    left.sort();
    // The folder's `path` marker and the two steps kept; nothing hidden waiting for removal.
    assert_eq!(left.len(), 3, "{left:?}");
    assert!(left.iter().all(|name| !name.starts_with('.')), "{left:?}");
    assert_eq!(left.last().map(String::as_str), Some("path"));
    drop(dir);
}

/// A patch's undo entry keeps every file's content in one state file (one file, one flush and
/// one rename, however many files the patch touched), each checked by its hash: a damaged
/// contents file restores nothing, and a record kept one file per content (as earlier
/// versions kept them) still undoes.
#[test]
fn a_patch_keeps_its_contents_in_one_state_file_checked_on_undo() {
    let names: Vec<String> = (0..12).map(|n| format!("m{n:02}.txt")).collect();
    let originals: Vec<String> = (0..12)
        .map(|n| format!("line {n}\n") + &(0..n).map(|k| format!("more {n} {k}\n")).collect::<String>())
        .collect();
    let files: Vec<(&str, &str)> = names.iter().map(String::as_str).zip(originals.iter().map(String::as_str)).collect();
    let env = Env::with_files(&files);
    let mut patch = String::from("*** Begin Patch\n");
    for (n, name) in names.iter().enumerate() {
        patch.push_str(&format!("*** Update File: {name}\n@@\n-line {n}\n+LINE {n}\n"));
    }
    patch.push_str("*** Add File: new.txt\n+new\n*** End Patch\n");
    let apply = |env: &Env| {
        env.ok("apply_patch", json!({"patch": patch}));
    };
    apply(&env);
    let state = env.toolkit.workspace().state_dir().join("undo/patches");
    let mut kept: Vec<String> =
        std::fs::read_dir(&state).unwrap().flatten().map(|e| e.file_name().into_string().unwrap()).collect();
    kept.sort();
    assert_eq!(kept, ["0000000001-all.bytes", "0000000001.json"], "{kept:?}");
    let contents = state.join("0000000001-all.bytes");
    assert_eq!(std::fs::read(&contents).unwrap(), originals.concat().as_bytes());

    // One byte of one content changed: the whole undo is refused, nothing restored.
    let mut damaged = std::fs::read(&contents).unwrap();
    damaged[originals[0].len() + 3] ^= 0x20;
    std::fs::write(&contents, &damaged).unwrap();
    let refused = env.refused("undo_patch", json!({}), "not_found");
    assert!(refused["error"]["message"].as_str().unwrap().contains("m01.txt"), "{refused:#}");
    // A contents file of another size than the record says: refused before it is read.
    std::fs::write(&contents, b"short").unwrap();
    env.refused("undo_patch", json!({}), "not_found");
    for (name, original) in names.iter().zip(&originals) {
        assert_eq!(env.get(name), original.replacen("line", "LINE", 1));
    }
    assert!(env.dir.path().join("new.txt").exists());

    // The same record kept the earlier way, one `<seq>-<n>.bytes` per content and no offsets:
    // undone whole.
    std::fs::write(&contents, originals.concat()).unwrap();
    let record_path = state.join("0000000001.json");
    let mut record: serde_json::Value = serde_json::from_slice(&std::fs::read(&record_path).unwrap()).unwrap();
    for (n, file) in record["files"].as_array_mut().unwrap().iter_mut().enumerate() {
        if let Some(kept) = file.as_object_mut().unwrap().remove("kept") {
            let (offset, len) = (kept["offset"].as_u64().unwrap() as usize, kept["len"].as_u64().unwrap() as usize);
            std::fs::write(
                state.join(format!("0000000001-{n}.bytes")),
                &originals.concat().as_bytes()[offset..offset + len],
            )
            .unwrap();
        }
    }
    std::fs::remove_file(&contents).unwrap();
    std::fs::write(&record_path, serde_json::to_vec(&record).unwrap()).unwrap();
    env.ok("undo_patch", json!({}));
    for (name, original) in names.iter().zip(&originals) {
        assert_eq!(&env.get(name), original);
    }
    assert!(!env.dir.path().join("new.txt").exists());
    let left = std::fs::read_dir(&state).unwrap().count();
    assert_eq!(left, 0, "the undone record's entries are gone");

    // And the new way, undone whole.
    apply(&env);
    env.ok("undo_patch", json!({}));
    for (name, original) in names.iter().zip(&originals) {
        assert_eq!(&env.get(name), original);
    }
}

#[test]
fn a_patch_whose_commit_fails_leaves_no_undo_entry() {
    // The undo entry is written beside the commit; a commit refused (a file changed between
    // the plan and the writes) takes it back, so the patch before stays the one undone.
    let env = Env::with_files(&[("a.txt", "one\n"), ("b.txt", "two\n")]);
    env.ok("apply_patch", json!({"patch": "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch\n"}));
    let b = env.dir.path().join("b.txt");
    // Progress is first reported once every hunk is placed, before anything is written.
    let changed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = std::sync::Arc::clone(&changed);
    let control = editkit::search::Control::new().on_progress(1, move |_| {
        if !flag.swap(true, std::sync::atomic::Ordering::SeqCst) {
            std::fs::write(&b, "changed outside\n").unwrap();
        }
    });
    let request: editkit::ApplyPatchRequest = serde_json::from_value(json!({
        "patch": "*** Begin Patch\n*** Update File: b.txt\n@@\n-two\n+TWO\n*** End Patch\n"
    }))
    .unwrap();
    let refused = env.toolkit.apply_patch_with(request, &control).unwrap_err();
    assert!(changed.load(std::sync::atomic::Ordering::SeqCst), "the file was changed between plan and commit");
    assert_eq!(refused.to_json()["kind"], "stale", "{refused}");
    assert_eq!(env.get("b.txt"), "changed outside\n");
    let state = env.toolkit.workspace().state_dir().join("undo/patches");
    let records = std::fs::read_dir(&state)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .count();
    assert_eq!(records, 1, "only the first patch is recorded");
    env.ok("undo_patch", json!({}));
    assert_eq!(env.get("a.txt"), "one\n");
    assert_eq!(env.get("b.txt"), "changed outside\n");
}
