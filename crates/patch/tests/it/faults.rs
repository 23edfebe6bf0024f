//! Fault injection at every write step of a 10-file patch: after the in-process rollback, and
//! separately after `recover` following a simulated crash, the tree is wholly old or wholly new.

use std::collections::BTreeMap;
use std::path::Path;

use editkit_patch::failpoint::{Fault, Step};
use editkit_patch::{ApplyOptions, Error, commit, commit_with_failpoint, parse, plan, recover};
use editkit_vfs::Workspace;

use crate::support::{dirs, snapshot, write_tree};

/// Ten operations: six updates (two CRLF, one BOM), two additions (one in new folders), a
/// deletion and a move with an edit.
pub fn ten_file_case() -> (BTreeMap<String, Vec<u8>>, String) {
    let mut before = BTreeMap::new();
    let mut patch = String::from("*** Begin Patch\n");
    for i in 0..6 {
        let ending = if i % 3 == 1 { "\r\n" } else { "\n" };
        let bom = if i == 5 { "\u{feff}" } else { "" };
        let body: String = (0..20).map(|l| format!("file {i} line {l}{ending}")).collect();
        before.insert(format!("src/m{i}/f{i}.txt"), format!("{bom}{body}").into_bytes());
        patch.push_str(&format!(
            "*** Update File: src/m{i}/f{i}.txt\n@@\n file {i} line 9\n-file {i} line 10\n+file {i} line ten\n file {i} line 11\n"
        ));
    }
    patch.push_str("*** Add File: new/deep/g6.txt\n+six\n*** Add File: g7.txt\n+seven\n");
    before.insert("f8.txt".into(), b"eight\n".to_vec());
    patch.push_str("*** Delete File: f8.txt\n");
    before.insert("f9.txt".into(), b"nine\n".to_vec());
    patch.push_str("*** Update File: f9.txt\n*** Move to: moved/f9.txt\n-nine\n+NINE\n*** End Patch\n");
    (before, patch)
}

fn fresh(before: &BTreeMap<String, Vec<u8>>) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    write_tree(tmp.path(), before);
    tmp
}

fn all_new(before: &BTreeMap<String, Vec<u8>>, patch: &str) -> BTreeMap<String, Vec<u8>> {
    let tmp = fresh(before);
    let workspace = Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
    editkit_patch::apply(&workspace, patch, &ApplyOptions::default()).unwrap();
    snapshot(tmp.path())
}

/// Commits with `fault` injected at the `at`-th write step; returns the steps seen.
fn commit_faulty(
    root: &Path,
    patch: &str,
    at: usize,
    fault: Fault,
) -> (Result<editkit_patch::Applied, Error>, Vec<Step>) {
    let workspace = Workspace::open(root, editkit_vfs::ambient_authority()).unwrap();
    let parsed = parse(patch).unwrap();
    let planned = plan(&workspace, &parsed, &ApplyOptions::default()).unwrap();
    let mut seen = Vec::new();
    let result = commit_with_failpoint(&workspace, planned, &mut |step| {
        seen.push(step.clone());
        (seen.len() - 1 == at).then_some(fault)
    });
    (result, seen)
}

fn count_steps(before: &BTreeMap<String, Vec<u8>>, patch: &str) -> Vec<Step> {
    let tmp = fresh(before);
    let (result, seen) = commit_faulty(tmp.path(), patch, usize::MAX, Fault::Fail);
    result.unwrap();
    seen
}

fn state_is_clean(root: &Path) -> bool {
    let patch_state =
        editkit_vfs::Workspace::open(root, editkit_vfs::ambient_authority()).unwrap().state_dir().join("patch");
    std::fs::read_dir(&patch_state).map_or(true, |mut entries| entries.next().is_none())
}

#[test]
fn the_ten_file_patch_has_a_write_step_per_temp_backup_and_rename() {
    let (before, patch) = ten_file_case();
    let steps = count_steps(&before, &patch);
    let stages = steps.iter().filter(|s| matches!(s, Step::Stage(_))).count();
    let backups = steps.iter().filter(|s| matches!(s, Step::Backup(_))).count();
    let replaces = steps.iter().filter(|s| matches!(s, Step::Replace(_))).count();
    // 6 updates + 2 additions + the moved file's new path; the deleted and moved-away files
    // are removed without a temp file.
    assert_eq!((stages, backups, replaces), (9, 8, 11), "{steps:?}");
    // The temps, the backups' folders and the new folders' parents are made durable in one
    // batch, before any rename.
    let first_replace = steps.iter().position(|s| matches!(s, Step::Replace(_))).unwrap();
    let last_sync = steps.iter().rposition(|s| *s == Step::Sync).expect("sync steps");
    assert!(last_sync < first_replace, "{steps:?}");
    assert_eq!(steps.iter().filter(|s| **s == Step::Sync).count(), 1, "{steps:?}");
    assert_eq!(steps.first(), Some(&Step::Journal));
    assert_eq!(steps.last(), Some(&Step::Finish));
    // The count ARCHITECTURE.md quotes.
    assert_eq!(steps.len(), 31, "{steps:?}");
}

#[test]
fn a_failure_at_every_write_step_rolls_back_to_the_old_tree_in_process_and_after_recover() {
    let (before, patch) = ten_file_case();
    let new = all_new(&before, &patch);
    assert_ne!(new, before);
    let steps = count_steps(&before, &patch);
    for (at, seen) in steps.iter().enumerate() {
        let tmp = fresh(&before);
        let old_dirs = dirs(tmp.path());
        let (result, _) = commit_faulty(tmp.path(), &patch, at, Fault::Fail);
        match result {
            Err(Error::Commit { rolled_back: true, step, .. }) => assert!(!step.is_empty()),
            other => panic!("step {at} ({:?}): expected a rolled-back commit error, got {other:?}", seen),
        }
        // Byte-identical, no temp file left, no folder left behind, no journal.
        assert_eq!(snapshot(tmp.path()), before, "after rollback at step {at} ({:?})", seen);
        assert_eq!(dirs(tmp.path()), old_dirs, "folders after rollback at step {at}");
        assert!(state_is_clean(tmp.path()), "journal left after rollback at step {at}");
        // Recovery finds nothing to do, and the patch then applies.
        let workspace = Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
        assert!(recover(&workspace).unwrap().rolled_back.is_empty());
        assert_eq!(snapshot(tmp.path()), before);
        editkit_patch::apply(&workspace, &patch, &ApplyOptions::default()).unwrap();
        assert_eq!(snapshot(tmp.path()), new);
    }
}

#[test]
fn a_crash_at_every_write_step_is_repaired_by_recover() {
    let (before, patch) = ten_file_case();
    let new = all_new(&before, &patch);
    let steps = count_steps(&before, &patch);
    let (mut old_count, mut new_count) = (0, 0);
    for (at, seen) in steps.iter().enumerate() {
        let tmp = fresh(&before);
        let old_dirs = dirs(tmp.path());
        let (result, _) = commit_faulty(tmp.path(), &patch, at, Fault::Crash);
        assert!(matches!(result, Err(Error::Commit { rolled_back: false, .. })), "step {at}: {result:?}");
        // A new workspace, as a new process would open.
        let workspace = Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
        let recovery = recover(&workspace).unwrap();
        let now = snapshot(tmp.path());
        if now == before {
            old_count += 1;
            assert_eq!(dirs(tmp.path()), old_dirs, "folders after recovery at step {at}");
        } else if now == new {
            new_count += 1;
        } else {
            panic!("step {at} ({:?}): tree is neither old nor new after recovery {recovery:?}", seen);
        }
        assert!(state_is_clean(tmp.path()), "journal or backups left after recovery at step {at}");
        // The journal is written first: every crash after it is rolled back by recovery.
        assert_eq!(recovery.rolled_back.len(), usize::from(at > 0), "step {at}");
    }
    assert_eq!(old_count + new_count, steps.len());
    eprintln!("fault injection: {} crash points, {old_count} recovered to old, {new_count} to new", steps.len());
}

#[test]
fn apply_recovers_a_crashed_patch_before_the_next_one() {
    let (before, patch) = ten_file_case();
    let tmp = fresh(&before);
    let third_replace =
        count_steps(&before, &patch).iter().position(|s| matches!(s, Step::Replace(_))).expect("renames") + 2;
    let (result, steps) = commit_faulty(tmp.path(), &patch, third_replace, Fault::Crash);
    assert!(result.is_err());
    assert!(matches!(steps.last(), Some(Step::Replace(_))));
    let workspace = Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
    let other = "*** Begin Patch\n*** Add File: unrelated.txt\n+u\n*** End Patch\n";
    let applied = editkit_patch::apply(&workspace, other, &ApplyOptions::default()).unwrap();
    let recovered = applied.recovered.expect("the crashed patch was recovered first");
    assert_eq!(recovered.rolled_back.len(), 1);
    let mut expected = before.clone();
    expected.insert("unrelated.txt".into(), b"u\n".to_vec());
    assert_eq!(snapshot(tmp.path()), expected);
}

#[test]
fn commit_refuses_a_file_changed_behind_the_plan() {
    let (before, patch) = ten_file_case();
    let tmp = fresh(&before);
    let workspace = Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
    let planned = plan(&workspace, &parse(&patch).unwrap(), &ApplyOptions::default()).unwrap();
    // Not an editkit writer: the locks cannot keep it out, the commit's re-check does.
    std::fs::write(tmp.path().join("src/m3/f3.txt"), "changed by someone else\n").unwrap();
    let err = commit(&workspace, planned).unwrap_err();
    assert_eq!(err.kind(), "stale");
    let mut expected = before;
    expected.insert("src/m3/f3.txt".into(), b"changed by someone else\n".to_vec());
    assert_eq!(snapshot(tmp.path()), expected);
}

/// Swapped behind the plan for a link to a file with the planned bytes, or for a FIFO: the
/// commit's last look (through the folder handles it then writes in) never follows the link
/// to call it unchanged without saying so, never blocks on the FIFO, and writes nothing.
#[test]
fn commit_refuses_a_fifo_behind_the_plan_without_blocking_and_judges_a_link_the_slow_way() {
    let (before, patch) = ten_file_case();
    let tmp = fresh(&before);
    let workspace = Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
    let planned = plan(&workspace, &parse(&patch).unwrap(), &ApplyOptions::default()).unwrap();
    let target = tmp.path().join("src/m3/f3.txt");
    std::fs::remove_file(&target).unwrap();
    let made = std::process::Command::new("mkfifo").arg(&target).status().expect("mkfifo runs");
    assert!(made.success(), "mkfifo made the FIFO");
    let err = commit(&workspace, planned).unwrap_err();
    assert_eq!(err.kind(), "invalid_args", "{err}");
    assert!(err.to_string().contains("not a regular file"), "{err}");
    let fifo = std::fs::symlink_metadata(&target).unwrap().file_type();
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&fifo), "the FIFO is left as it was");
    // (Removed before the tree is read back: reading a FIFO would wait for a writer.)
    std::fs::remove_file(&target).unwrap();
    let mut expected = before.clone();
    expected.remove("src/m3/f3.txt");
    assert_eq!(snapshot(tmp.path()), expected, "nothing else was written");

    // A link inside the root to the very bytes planned against: read through, as before the
    // commit looked through folder handles, so the patch lands and the link is replaced.
    let tmp = fresh(&before);
    let workspace = Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
    let planned = plan(&workspace, &parse(&patch).unwrap(), &ApplyOptions::default()).unwrap();
    std::fs::write(tmp.path().join("copy.txt"), &before["src/m3/f3.txt"]).unwrap();
    std::fs::remove_file(tmp.path().join("src/m3/f3.txt")).unwrap();
    std::os::unix::fs::symlink("../../copy.txt", tmp.path().join("src/m3/f3.txt")).unwrap();
    commit(&workspace, planned).unwrap();
    assert!(!std::fs::symlink_metadata(tmp.path().join("src/m3/f3.txt")).unwrap().file_type().is_symlink());
    assert_eq!(
        std::fs::read(tmp.path().join("copy.txt")).unwrap(),
        before["src/m3/f3.txt"],
        "the link's target is untouched"
    );
}

#[test]
fn commit_refuses_a_same_size_change_behind_the_plan_and_takes_the_same_bytes_rewritten() {
    let (before, patch) = ten_file_case();
    // f0 is LF (compared with the planned bytes), f1 is CRLF and f5 has a BOM (hashed).
    for path in ["src/m0/f0.txt", "src/m1/f1.txt", "src/m5/f5.txt"] {
        let tmp = fresh(&before);
        let workspace = Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
        let planned = plan(&workspace, &parse(&patch).unwrap(), &ApplyOptions::default()).unwrap();
        let mut changed = before[path].clone();
        let at = changed.iter().position(|b| *b == b'l').unwrap();
        changed[at] = b'L';
        std::fs::write(tmp.path().join(path), &changed).unwrap();
        let err = commit(&workspace, planned).unwrap_err();
        assert_eq!(err.kind(), "stale", "{path}");
        let mut expected = before.clone();
        expected.insert(path.into(), changed);
        assert_eq!(snapshot(tmp.path()), expected, "{path}");
        // Rewritten with the very bytes planned against (a new inode): not a change.
        let tmp = fresh(&before);
        let workspace = Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
        let planned = plan(&workspace, &parse(&patch).unwrap(), &ApplyOptions::default()).unwrap();
        std::fs::remove_file(tmp.path().join(path)).unwrap();
        std::fs::write(tmp.path().join(path), &before[path]).unwrap();
        let applied = commit(&workspace, planned).unwrap();
        assert!(applied.updated.iter().any(|updated| updated == path), "{path}: {:?}", applied.updated);
    }
}

/// Where each entry of `root` points if it is a symlink, beside the regular files' bytes.
fn links(root: &Path) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    for entry in std::fs::read_dir(root).unwrap().flatten() {
        if entry.file_type().unwrap().is_symlink() {
            let target = std::fs::read_link(entry.path()).unwrap();
            found.insert(entry.file_name().to_string_lossy().into_owned(), target.to_string_lossy().into_owned());
        }
    }
    found
}

#[test]
fn a_deleted_symlink_comes_back_as_a_link_after_a_failure_or_a_crash_at_every_step() {
    let patch = "*** Begin Patch\n*** Delete File: alias.txt\n*** Update File: other.txt\n-x\n+y\n*** End Patch\n";
    let setup = || {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("real.txt"), "kept\n").unwrap();
        std::fs::write(tmp.path().join("other.txt"), "x\n").unwrap();
        std::os::unix::fs::symlink("real.txt", tmp.path().join("alias.txt")).unwrap();
        tmp
    };
    let probe = setup();
    let (result, steps) = commit_faulty(probe.path(), patch, usize::MAX, Fault::Fail);
    result.unwrap();
    assert!(links(probe.path()).is_empty(), "the link is deleted");
    assert_eq!(std::fs::read_to_string(probe.path().join("real.txt")).unwrap(), "kept\n");
    for at in 0..steps.len() {
        for fault in [Fault::Fail, Fault::Crash] {
            let tmp = setup();
            let (result, _) = commit_faulty(tmp.path(), patch, at, fault);
            assert!(result.is_err(), "step {at}");
            recover(&Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap()).unwrap();
            let now = links(tmp.path());
            let other = std::fs::read_to_string(tmp.path().join("other.txt")).unwrap();
            // Wholly old (the link back, as a link) or wholly new (no link, other.txt edited).
            match other.as_str() {
                "x\n" => assert_eq!(now.get("alias.txt").map(String::as_str), Some("real.txt"), "{fault:?} at {at}"),
                "y\n" => assert!(now.is_empty(), "{fault:?} at {at}"),
                _ => panic!("{fault:?} at {at}: other.txt is {other:?}"),
            }
            assert_eq!(std::fs::read_to_string(tmp.path().join("real.txt")).unwrap(), "kept\n");
            assert!(state_is_clean(tmp.path()), "{fault:?} at {at}");
        }
    }
}

/// Commits the ten-file case while another process moves `src/m0` out of the root when the
/// commit reaches `at` (and puts a copy of its file back at that path when `put_back`): the
/// commit rolls back, refusing `src/m0` as changed, never renames into the moved folder or
/// leaves anything of its own there, and the tree is as it was (less `src/m0/f0.txt` when
/// nothing was put back).
fn commit_with_m0_moved_away_at(at: &Step, put_back: bool) {
    let (before, patch) = ten_file_case();
    let tmp = fresh(&before);
    let outside = tempfile::tempdir().unwrap();
    let root = tmp.path().to_owned();
    let workspace = Workspace::open(&root, editkit_vfs::ambient_authority()).unwrap();
    let planned = plan(&workspace, &parse(&patch).unwrap(), &ApplyOptions::default()).unwrap();
    let result = commit_with_failpoint(&workspace, planned, &mut |step| {
        if step == at {
            std::fs::rename(root.join("src/m0"), outside.path().join("m0")).unwrap();
            if put_back {
                std::fs::create_dir(root.join("src/m0")).unwrap();
                std::fs::write(root.join("src/m0/f0.txt"), &before["src/m0/f0.txt"]).unwrap();
            }
        }
        None
    });
    match result {
        Err(Error::Commit { rolled_back: true, source, .. }) => {
            assert!(matches!(&*source, editkit_vfs::Error::Changed { path } if path == "src/m0"), "{source}");
        }
        other => panic!("expected a rolled-back commit, got {other:?}"),
    }
    assert_eq!(names_in(&outside.path().join("m0")), ["f0.txt"], "nothing of the commit's in the moved folder");
    assert_eq!(std::fs::read(outside.path().join("m0/f0.txt")).unwrap(), before["src/m0/f0.txt"]);
    let mut expected = before.clone();
    if !put_back {
        expected.remove("src/m0/f0.txt");
    }
    assert_eq!(snapshot(&root), expected, "moved at {at:?}, put back {put_back}: nothing else changed");
    assert!(state_is_clean(&root));
}

/// Handles are kept for the batch: a folder moved away between the staging and the renames
/// (another one, with the same file, put at its path) is never renamed into.
#[test]
fn a_folder_moved_away_during_the_commit_is_never_renamed_into() {
    commit_with_m0_moved_away_at(&Step::Sync, true);
}

/// The last staleness check opens the folders the commit then writes in; one moved away
/// between that check and the staging (while the journal is written), with or without a copy
/// put back at its path, is refused before anything is staged or linked in it.
#[test]
fn a_folder_moved_away_after_the_last_check_gets_nothing_written_in_it() {
    for put_back in [false, true] {
        commit_with_m0_moved_away_at(&Step::Journal, put_back);
    }
}

/// A commit that fails before an added file's step never removes what stands at that path:
/// here another process created it meanwhile, and the rollback leaves it.
#[test]
fn a_rollback_never_removes_a_file_the_commit_did_not_write() {
    let (before, patch) = ten_file_case();
    let tmp = fresh(&before);
    let root = tmp.path().to_owned();
    let workspace = Workspace::open(&root, editkit_vfs::ambient_authority()).unwrap();
    let planned = plan(&workspace, &parse(&patch).unwrap(), &ApplyOptions::default()).unwrap();
    let result = commit_with_failpoint(&workspace, planned, &mut |step| match step {
        Step::Stage(0) => {
            std::fs::write(root.join("g7.txt"), "someone else's\n").unwrap();
            None
        }
        Step::Stage(1) => Some(Fault::Fail),
        _ => None,
    });
    assert!(matches!(result, Err(Error::Commit { rolled_back: true, .. })), "{result:?}");
    let mut expected = before.clone();
    expected.insert("g7.txt".into(), b"someone else's\n".to_vec());
    assert_eq!(snapshot(&root), expected, "the other process's file stays; nothing else changed");
    assert!(state_is_clean(&root));
}

/// The file names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
