//! The public API: staleness, the failure list, dry runs, locks, JSON results.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use editkit_patch::{Action, ApplyOptions, Error, apply, parse, plan};
use editkit_vfs::{Workspace, WriteOptions};

use crate::support::workspace_with;

#[track_caller]
fn fails_with(workspace: &Workspace, patch: &str, options: &ApplyOptions, kind: &str) -> Error {
    let err = apply(workspace, patch, options).unwrap_err();
    assert_eq!(err.kind(), kind, "{err}");
    err
}

const UPDATE_A: &str = "*** Begin Patch\n*** Update File: a.txt\n-one\n+uno\n*** End Patch\n";

#[test]
fn a_file_changed_since_it_was_read_is_stale_unless_forced() {
    let (tmp, workspace) = workspace_with(&[("a.txt", "one\n")]);
    workspace.read("a.txt").unwrap();
    std::fs::write(tmp.path().join("a.txt"), "one\ntwo\n").unwrap();
    let err = fails_with(&workspace, UPDATE_A, &ApplyOptions::default(), "stale");
    assert!(err.to_string().contains("read it again or pass force"), "{err}");
    assert_eq!(std::fs::read_to_string(tmp.path().join("a.txt")).unwrap(), "one\ntwo\n");
    // Planning must not arm the guard on the changed content: the same call still fails.
    fails_with(&workspace, UPDATE_A, &ApplyOptions::default(), "stale");
    apply(&workspace, UPDATE_A, &ApplyOptions { force: true, ..Default::default() }).unwrap();
    assert_eq!(std::fs::read_to_string(tmp.path().join("a.txt")).unwrap(), "uno\ntwo\n");
}

#[test]
fn an_explicit_hash_is_honoured_even_with_force() {
    let (tmp, workspace) = workspace_with(&[("a.txt", "one\n")]);
    let wrong = ApplyOptions {
        force: true,
        expected_hashes: [("a.txt".to_owned(), "0".repeat(64).parse().unwrap())].into_iter().collect(),
        ..Default::default()
    };
    fails_with(&workspace, UPDATE_A, &wrong, "stale");
    let right = ApplyOptions {
        expected_hashes: [(
            "a.txt".to_owned(),
            editkit_vfs::Sha256::of(b"one\n").to_string().to_uppercase().parse().unwrap(),
        )]
        .into_iter()
        .collect(),
        ..Default::default()
    };
    apply(&workspace, UPDATE_A, &right).unwrap();
    assert_eq!(std::fs::read_to_string(tmp.path().join("a.txt")).unwrap(), "uno\n");
}

#[test]
fn after_a_patch_the_ledger_knows_the_new_content() {
    let (_tmp, workspace) = workspace_with(&[("a.txt", "one\n")]);
    workspace.read("a.txt").unwrap();
    let applied = apply(&workspace, UPDATE_A, &ApplyOptions::default()).unwrap();
    let hash = applied.files[0].sha256_after.unwrap();
    assert_eq!(workspace.recorded_hash("a.txt").unwrap(), Some(hash));
    // An ordinary write right after is not stale.
    workspace.write("a.txt", b"again\n", &WriteOptions::default()).unwrap();
}

#[test]
fn the_plan_error_lists_every_failing_hunk_of_every_file() {
    let (tmp, workspace) = workspace_with(&[
        ("a.py", "def f():\n    return 1\n\ndef g():\n    return 2\n"),
        ("b.txt", "x\nx\n"),
        ("c.txt", "fine\n"),
    ]);
    let patch = "*** Begin Patch
*** Update File: a.py
@@ def f():
-    return 10
+    return 11
@@ def g():
-    return 2
+    return 3
@@ def h():
-    pass
+    return
*** Update File: b.txt
-x
+y
*** Update File: c.txt
-fine
+FINE
*** Delete File: missing.txt
*** Add File: c.txt
+again
*** End Patch
";
    let err = fails_with(&workspace, patch, &ApplyOptions::default(), "not_found");
    let listed: Vec<(String, Option<usize>, &str)> =
        err.failures().iter().map(|f| (f.path.clone(), f.hunk, f.kind())).collect();
    assert_eq!(
        listed,
        [
            ("a.py".to_owned(), Some(1), "not_found"),
            ("a.py".to_owned(), Some(3), "not_found"),
            ("b.txt".to_owned(), Some(1), "ambiguous"),
            ("missing.txt".to_owned(), None, "not_found"),
            ("c.txt".to_owned(), None, "exists"),
        ]
    );
    let first = &err.failures()[0];
    assert_eq!(first.patch_line, 3);
    assert_eq!(first.preview, "return 10");
    let closest = first.closest().expect("a near miss for a hunk that almost matches");
    assert_eq!(closest.first_line, 2);
    let message = err.to_string();
    for needle in [
        "5 problems",
        "`a.py` hunk 1",
        "`a.py` hunk 3",
        "anchor `def h():`",
        "matches 2 places",
        "`missing.txt`",
        "already exists",
    ] {
        assert!(message.contains(needle), "`{needle}` missing from:\n{message}");
    }
    // Nothing changed anywhere, the good hunks included.
    assert_eq!(std::fs::read_to_string(tmp.path().join("c.txt")).unwrap(), "fine\n");
    assert!(std::fs::read_to_string(tmp.path().join("a.py")).unwrap().contains("return 2"));
    // The failures serialise for the tool-call surface.
    let json = serde_json::to_value(err.failures()).unwrap();
    assert_eq!(json[0]["kind"], "not_found");
    assert_eq!(json[0]["hunk"], 1);
    assert_eq!(json[0]["closest"]["first_line"], 2);
    assert_eq!(json[2]["kind"], "ambiguous");
}

#[test]
fn dry_run_reports_the_diff_and_hashes_and_writes_nothing() {
    let (tmp, workspace) = workspace_with(&[("a.txt", "one\n"), ("old.txt", "o\n")]);
    let patch = "*** Begin Patch\n*** Update File: a.txt\n-one\n+uno\n*** Update File: old.txt\n*** Move to: new.txt\n*** Add File: n.txt\n+n\n*** End Patch\n";
    let preview = apply(&workspace, patch, &ApplyOptions { dry_run: true, ..Default::default() }).unwrap();
    assert!(preview.dry_run);
    assert_eq!(preview.updated, ["a.txt"]);
    assert_eq!(preview.added, ["n.txt"]);
    assert_eq!(preview.moved.len(), 1);
    assert_eq!(preview.files[0].action, Action::Updated);
    assert_eq!(preview.files[0].sha256_before, Some(editkit_vfs::Sha256::of(b"one\n")));
    assert_eq!(preview.files[0].sha256_after, Some(editkit_vfs::Sha256::of(b"uno\n")));
    assert!(preview.diff.contains("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+uno\n"), "{}", preview.diff);
    assert!(preview.diff.contains("rename from old.txt\nrename to new.txt\n"), "{}", preview.diff);
    assert!(preview.diff.contains("--- /dev/null\n+++ b/n.txt\n"), "{}", preview.diff);
    assert!(!tmp.path().join("n.txt").exists());
    assert!(tmp.path().join("old.txt").exists());
    let json = serde_json::to_value(&preview).unwrap();
    assert_eq!(json["dry_run"], true);
    assert_eq!(json["dialect"], "begin_patch");
    assert_eq!(json["files"][0]["action"], "updated");
    assert_eq!(json["files"][0]["hunks"][0]["rung"], "exact");
    assert_eq!(json["moved"][0]["to"], "new.txt");
}

#[test]
fn every_hunk_reports_its_line_and_rung() {
    let (_tmp, workspace) = workspace_with(&[("a.py", "def f():\n\tif x:\n\t\treturn 1\n")]);
    let patch =
        "*** Begin Patch\n*** Update File: a.py\n     if x:\n-        return 1\n+        return 2\n*** End Patch\n";
    let applied = apply(&workspace, patch, &ApplyOptions::default()).unwrap();
    let hunk = &applied.files[0].hunks[0];
    assert_eq!(hunk.line, 2);
    assert_ne!(hunk.rung, editkit_matcher::Rung::Exact);
    // Strict placement refuses the same hunk.
    let (_tmp, workspace) = workspace_with(&[("a.py", "def f():\n\tif x:\n\t\treturn 1\n")]);
    fails_with(&workspace, patch, &ApplyOptions { strict: true, ..Default::default() }, "not_found");
}

#[test]
fn the_plan_holds_every_lock_until_it_is_committed_or_dropped() {
    let (_tmp, workspace) = workspace_with(&[("a.txt", "one\n"), ("b.txt", "b\n")]);
    let parsed =
        parse("*** Begin Patch\n*** Update File: a.txt\n-one\n+uno\n*** Delete File: b.txt\n*** End Patch\n").unwrap();
    let planned = plan(&workspace, &parsed, &ApplyOptions::default()).unwrap();
    assert_eq!(planned.paths().collect::<Vec<_>>(), ["a.txt", "b.txt"]);
    let got_lock = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let handle = scope.spawn(|| {
            let _lock = workspace.lock("b.txt").unwrap();
            got_lock.store(true, Ordering::SeqCst);
        });
        std::thread::sleep(Duration::from_millis(150));
        assert!(!got_lock.load(Ordering::SeqCst), "the lock of b.txt was free while planned");
        editkit_patch::commit(&workspace, planned).unwrap();
        handle.join().unwrap();
    });
    assert!(got_lock.load(Ordering::SeqCst));
}

/// Locks kept past the commit hold until released: a writer waiting for one sees the committed
/// file once it gets it, and work run beside the release may take them. (The waits are
/// bounded: a lock never released fails the test instead of hanging it.)
#[test]
fn locks_held_past_the_commit_are_released_beside_the_callers_work() {
    let (tmp, workspace) = workspace_with(&[("a.txt", "one\n"), ("b.txt", "two\n")]);
    let workspace = std::sync::Arc::new(workspace);
    let parsed = parse(
        "*** Begin Patch\n*** Update File: a.txt\n-one\n+uno\n*** Update File: b.txt\n-two\n+dos\n*** End Patch\n",
    )
    .unwrap();
    let options = |_: &editkit_patch::Patch| ApplyOptions::default();
    let (applied, held) = editkit_patch::apply_parsed_holding(&workspace, &parsed, options, |_| {}).unwrap();
    assert_eq!((applied.updated.len(), held.len()), (2, 2));
    assert_eq!(std::fs::read_to_string(tmp.path().join("a.txt")).unwrap(), "uno\n");
    // Takes the lock of `path` on a thread of its own, sending what the file holds then.
    let take = |path: &'static str| {
        let (sent, got) = std::sync::mpsc::channel();
        let workspace = std::sync::Arc::clone(&workspace);
        std::thread::spawn(move || {
            let lock = workspace.lock(path).unwrap();
            let _ = sent.send(lock.read().unwrap().text().to_owned());
        });
        got
    };
    let waiting = take("a.txt");
    assert!(waiting.recv_timeout(Duration::from_millis(150)).is_err(), "the lock of a.txt was free while held");
    let bound = Duration::from_secs(30);
    // The caller's work may take a lock the release has yet to give up.
    let text = held.release_beside(|| take("b.txt").recv_timeout(bound));
    assert_eq!(text.as_deref(), Ok("dos\n"), "a lock was never released");
    assert_eq!(waiting.recv_timeout(bound).as_deref(), Ok("uno\n"), "a.txt's lock was never released");
    // A dry run holds nothing.
    let dry = |_: &editkit_patch::Patch| ApplyOptions { dry_run: true, ..Default::default() };
    let parsed = parse(UPDATE_A.replace("-one\n+uno", "-uno\n+one").as_str()).unwrap();
    let (preview, held) = editkit_patch::apply_parsed_holding(&workspace, &parsed, dry, |_| {}).unwrap();
    assert!(preview.dry_run && held.is_empty());
}

#[test]
fn a_deleted_link_is_locked_under_the_key_recovery_uses_after_it_is_gone() {
    let (tmp, workspace) = workspace_with(&[("real.txt", "one\n")]);
    std::os::unix::fs::symlink("real.txt", tmp.path().join("alias.txt")).unwrap();
    let parsed = parse("*** Begin Patch\n*** Delete File: alias.txt\n*** End Patch\n").unwrap();
    let planned = plan(&workspace, &parsed, &ApplyOptions::default()).unwrap();
    let got_lock = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let handle = scope.spawn(|| {
            // What `recover` locks for this journal entry, before and after the link is gone.
            let _locks = workspace.lock_entries(["alias.txt"]).unwrap();
            got_lock.store(true, Ordering::SeqCst);
        });
        std::thread::sleep(Duration::from_millis(150));
        assert!(!got_lock.load(Ordering::SeqCst), "the link's entry lock was free while planned");
        editkit_patch::commit(&workspace, planned).unwrap();
        handle.join().unwrap();
    });
    assert!(got_lock.load(Ordering::SeqCst));
}

#[test]
fn a_symlink_inside_the_root_is_edited_through() {
    let (tmp, workspace) = workspace_with(&[("real/a.txt", "one\n")]);
    std::os::unix::fs::symlink("real/a.txt", tmp.path().join("link.txt")).unwrap();
    apply(&workspace, &UPDATE_A.replace("a.txt", "link.txt"), &ApplyOptions::default()).unwrap();
    assert_eq!(std::fs::read_to_string(tmp.path().join("real/a.txt")).unwrap(), "uno\n");
    assert!(std::fs::symlink_metadata(tmp.path().join("link.txt")).unwrap().file_type().is_symlink());
}

#[test]
fn deleting_a_symlink_removes_the_link_and_never_the_file_it_points_to() {
    let (tmp, workspace) = workspace_with(&[("real/a.txt", "one\n")]);
    std::os::unix::fs::symlink("real/a.txt", tmp.path().join("relative.txt")).unwrap();
    // An absolute target under the root is remapped into it, like any absolute link inside.
    std::os::unix::fs::symlink(tmp.path().join("real/a.txt"), tmp.path().join("absolute.txt")).unwrap();
    let patch = "*** Begin Patch\n*** Delete File: relative.txt\n*** Delete File: absolute.txt\n*** End Patch\n";
    let applied = apply(&workspace, patch, &ApplyOptions::default()).unwrap();
    assert_eq!(applied.deleted, ["relative.txt", "absolute.txt"]);
    assert!(
        !tmp.path().join("relative.txt").exists()
            && std::fs::symlink_metadata(tmp.path().join("relative.txt")).is_err()
    );
    assert!(std::fs::symlink_metadata(tmp.path().join("absolute.txt")).is_err());
    assert_eq!(std::fs::read_to_string(tmp.path().join("real/a.txt")).unwrap(), "one\n");
    // A unified diff deleting a link checks the content it points to.
    std::os::unix::fs::symlink("real/a.txt", tmp.path().join("again.txt")).unwrap();
    let wrong = "--- a/again.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-two\n";
    assert!(apply(&workspace, wrong, &ApplyOptions::default()).is_err());
    assert!(std::fs::symlink_metadata(tmp.path().join("again.txt")).unwrap().file_type().is_symlink());
    apply(&workspace, &wrong.replace("-two", "-one"), &ApplyOptions::default()).unwrap();
    assert!(std::fs::symlink_metadata(tmp.path().join("again.txt")).is_err());
    assert_eq!(std::fs::read_to_string(tmp.path().join("real/a.txt")).unwrap(), "one\n");
}

#[test]
fn moving_a_symlink_moves_the_entry_and_leaves_the_file_it_points_to() {
    let (tmp, workspace) = workspace_with(&[("real/a.txt", "one\n")]);
    std::os::unix::fs::symlink("real/a.txt", tmp.path().join("link.txt")).unwrap();
    let patch = "*** Begin Patch\n*** Update File: link.txt\n*** Move to: moved.txt\n-one\n+uno\n*** End Patch\n";
    let applied = apply(&workspace, patch, &ApplyOptions::default()).unwrap();
    assert_eq!(applied.moved[0].from, "link.txt");
    assert!(std::fs::symlink_metadata(tmp.path().join("link.txt")).is_err());
    assert_eq!(std::fs::read_to_string(tmp.path().join("moved.txt")).unwrap(), "uno\n");
    assert_eq!(std::fs::read_to_string(tmp.path().join("real/a.txt")).unwrap(), "one\n");
}

#[test]
fn a_symlink_leading_outside_is_refused_for_deletion_and_left_in_place() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "s\n").unwrap();
    let (tmp, workspace) = workspace_with(&[("a.txt", "one\n")]);
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), tmp.path().join("out.txt")).unwrap();
    std::os::unix::fs::symlink("../../../../../../../../etc/hostname", tmp.path().join("up.txt")).unwrap();
    for name in ["out.txt", "up.txt"] {
        let patch = format!("*** Begin Patch\n*** Delete File: {name}\n*** End Patch\n");
        let err = apply(&workspace, &patch, &ApplyOptions::default()).unwrap_err();
        assert!(err.to_string().contains(name), "{err}");
        assert!(std::fs::symlink_metadata(tmp.path().join(name)).unwrap().file_type().is_symlink());
    }
    assert_eq!(std::fs::read_to_string(outside.path().join("secret.txt")).unwrap(), "s\n");
}

#[test]
fn permissions_of_updated_files_are_kept() {
    use std::os::unix::fs::PermissionsExt;
    let (tmp, workspace) = workspace_with(&[("run.sh", "echo one\n")]);
    std::fs::set_permissions(tmp.path().join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    apply(&workspace, "--- a/run.sh\n+++ b/run.sh\n@@ -1 +1 @@\n-echo one\n+echo two\n", &ApplyOptions::default())
        .unwrap();
    let mode = std::fs::metadata(tmp.path().join("run.sh")).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o755);
}

#[test]
fn a_moved_file_keeps_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let (tmp, workspace) = workspace_with(&[("run.sh", "echo one\n"), ("plain.sh", "echo\n")]);
    std::fs::set_permissions(tmp.path().join("run.sh"), std::fs::Permissions::from_mode(0o751)).unwrap();
    let patch = "*** Begin Patch\n*** Update File: run.sh\n*** Move to: bin/run.sh\n-echo one\n+echo two\n*** Update File: plain.sh\n*** Move to: bin/plain.sh\n*** End Patch\n";
    apply(&workspace, patch, &ApplyOptions::default()).unwrap();
    let mode = |p: &str| std::fs::metadata(tmp.path().join(p)).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode("bin/run.sh"), 0o751);
    assert_eq!(std::fs::read_to_string(tmp.path().join("bin/run.sh")).unwrap(), "echo two\n");
    assert!(!tmp.path().join("run.sh").exists());
    assert_eq!(
        mode("bin/plain.sh"),
        std::fs::metadata(tmp.path().join("bin/plain.sh")).unwrap().permissions().mode() & 0o777
    );
}

#[test]
fn a_directory_in_the_way_is_a_typed_failure() {
    let (_tmp, workspace) = workspace_with(&[("dir/x.txt", "x\n")]);
    fails_with(
        &workspace,
        "*** Begin Patch\n*** Update File: dir\n-x\n+y\n*** End Patch\n",
        &ApplyOptions::default(),
        "is_directory",
    );
    fails_with(
        &workspace,
        "*** Begin Patch\n*** Add File: dir\n+y\n*** End Patch\n",
        &ApplyOptions::default(),
        "exists",
    );
}

#[test]
fn a_custom_state_dir_holds_the_journal_and_nothing_lands_in_the_workspace() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("a.txt"), "one\n").unwrap();
    let workspace = Workspace::builder(tmp.path(), editkit_vfs::ambient_authority())
        .state_dir(state.path().join("editkit"))
        .open()
        .unwrap();
    // A dry run creates no state at all.
    apply(&workspace, UPDATE_A, &ApplyOptions { dry_run: true, ..ApplyOptions::default() }).unwrap();
    assert!(!state.path().join("editkit").exists());
    apply(&workspace, UPDATE_A, &ApplyOptions::default()).unwrap();
    assert!(state.path().join("editkit/locks").is_dir());
    let names: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["a.txt"]);
    assert!(editkit_patch::recover(&workspace).unwrap().is_empty());
}

#[test]
fn parse_errors_are_invalid_patch_with_a_line() {
    let (_tmp, workspace) = workspace_with(&[("a.txt", "one\n")]);
    let err = fails_with(
        &workspace,
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\nbad\n",
        &ApplyOptions::default(),
        "invalid_patch",
    );
    assert!(err.to_string().starts_with("invalid patch at line 5:"), "{err}");
    let err = fails_with(&workspace, "   \n", &ApplyOptions::default(), "invalid_patch");
    assert!(err.to_string().contains("no operations"), "{err}");
}

/// `ApplyOptions::bases` with `a.txt`'s version as read.
fn base_of(text: &str) -> ApplyOptions {
    let base = editkit_vfs::Text::decode(text.as_bytes()).unwrap();
    let sha256 = editkit_vfs::Sha256::of(text.as_bytes());
    ApplyOptions {
        bases: [("a.txt".to_owned(), (sha256, std::sync::Arc::new(base)))].into_iter().collect(),
        ..Default::default()
    }
}

#[test]
fn a_stale_file_with_a_base_is_merged_per_hunk_unless_a_hash_is_given() {
    let read = "one\ntwo\nthree\nfour\nfive\n";
    let (tmp, workspace) = workspace_with(&[("a.txt", read)]);
    workspace.read("a.txt").unwrap();
    let now = "zero\none\ntwo\nthree\nfour\nfive\n";
    std::fs::write(tmp.path().join("a.txt"), now).unwrap();
    let patch = "*** Begin Patch\n*** Update File: a.txt\n three\n-four\n+FOUR\n*** End Patch\n";
    // An explicit expected hash keeps its meaning: the base is not used.
    let mut pinned = base_of(read);
    pinned.expected_hashes.insert("a.txt".to_owned(), editkit_vfs::Sha256::of(read.as_bytes()));
    fails_with(&workspace, patch, &pinned, "stale");
    // A base that is not the version the workspace vouches for is not used either.
    fails_with(&workspace, patch, &base_of("other\n"), "stale");
    let applied = apply(&workspace, patch, &base_of(read)).unwrap();
    assert_eq!(std::fs::read_to_string(tmp.path().join("a.txt")).unwrap(), now.replace("four", "FOUR"));
    let file = &applied.files[0];
    assert_eq!(file.merged_with.as_ref().unwrap().lines, vec![[1, 1]]);
    assert_eq!((file.hunks[0].line, file.hunks[0].last_line), (4, 5), "numbered in the file as found");
    // Next to the outside change: refused with it, nothing written.
    workspace.read("a.txt").unwrap();
    let read = std::fs::read_to_string(tmp.path().join("a.txt")).unwrap();
    std::fs::write(tmp.path().join("a.txt"), read.replace("two", "TWO")).unwrap();
    let patch = "*** Begin Patch\n*** Update File: a.txt\n-three\n+THREE\n*** End Patch\n";
    let err = fails_with(&workspace, patch, &base_of(&read), "stale");
    let failure = serde_json::to_value(&err.failures()[0]).unwrap();
    assert_eq!(failure["edit_lines"], serde_json::json!([4, 4]), "{failure:#}");
    assert!(failure["outside_diff"].as_str().unwrap().contains("+TWO"), "{failure:#}");
    assert_eq!(std::fs::read_to_string(tmp.path().join("a.txt")).unwrap(), read.replace("two", "TWO"));
}
