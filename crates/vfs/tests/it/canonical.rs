//! The transaction steps take a `CanonicalPath`, which only resolution and the policy build.
//! Each test names a way the `*_unchecked` steps (plain strings, no policy) let a caller past
//! the policy, and shows that no path the policy refuses becomes one: nothing is read, linked,
//! renamed, removed, copied out or made readable. (That the old calls no longer compile is the
//! `compile_fail` doctests on `CanonicalPath`.)

use std::fs;
use std::os::unix::fs::PermissionsExt;

use editkit_vfs::{ErrorKind, Policy, Workspace, ambient_authority};

use crate::support::Tree;

/// Blocked by the default policy in the test tree: `.env`, `sub/.env`, `key.pem`, `.git/config`.
const BLOCKED: [&str; 4] = [".env", "sub/.env", "key.pem", ".git/config"];

/// Every way a plain string used to reach a file: spelled as given, as a journal would record
/// it, through `..`, or absolute.
fn spellings(tree: &Tree, path: &str) -> Vec<String> {
    vec![path.to_owned(), format!("dir/../{path}"), format!("./{path}"), tree.root.join(path).display().to_string()]
}

#[test]
fn a_blocked_file_never_becomes_a_canonical_path() {
    let tree = Tree::new();
    let workspace = tree.workspace();
    for path in BLOCKED {
        for spelling in spellings(&tree, path) {
            let resolved = workspace.canonical(&spelling).unwrap_err();
            assert_eq!(resolved.error_kind(), ErrorKind::Blocked, "{spelling}: {resolved}");
            assert!(workspace.canonical_recorded(&spelling).is_err(), "{spelling}");
        }
        assert_eq!(workspace.canonical_recorded(path).unwrap_err().error_kind(), ErrorKind::Blocked, "{path}");
    }
}

/// `read_unchecked(".env")`, `read_plain_unchecked`, `entry_exists_unchecked` read or probed a
/// blocked file; a link to it is refused as its target is.
#[test]
fn a_blocked_file_cannot_be_read_or_probed_through_a_link() {
    let tree = Tree::new();
    std::os::unix::fs::symlink(".env", tree.root.join("innocent.txt")).unwrap();
    let workspace = tree.workspace();
    assert_eq!(workspace.canonical("innocent.txt").unwrap_err().error_kind(), ErrorKind::Blocked);
    // Recorded as the link's own name (a journal names entries): the step follows no link.
    let link = workspace.canonical_recorded("innocent.txt").unwrap();
    assert!(workspace.txn().read(&link).is_err(), "a link is never followed");
    assert_eq!(workspace.txn().read_plain(&link, 1 << 20), None);
    assert!(!workspace.txn().folders().holds(&link, b"TOKEN=1\n"));
}

/// `hard_link_unchecked(".env", "leak.txt")` gave a secret an allowed name;
/// `rename_unchecked(".env", "leak.txt")` moved it to one; `remove_unchecked(".git/config")`
/// removed what the policy protects.
#[test]
fn a_blocked_file_cannot_be_linked_renamed_or_removed_under_a_recorded_name() {
    let tree = Tree::new();
    let workspace = tree.workspace();
    let leak = workspace.canonical("leak.txt").unwrap();
    // The only names a caller can build for a blocked file are refused.
    for path in BLOCKED {
        assert!(workspace.canonical_recorded(path).is_err());
    }
    // A temp name is judged by its folder: none beside a blocked file inside a blocked folder.
    assert_eq!(workspace.canonical_recorded(".git/.editkit-1.tmp").unwrap_err().error_kind(), ErrorKind::Blocked);
    // An allowed path's sibling is only ever an editkit temp name, never a blocked one.
    let folders = workspace.txn().folders();
    for name in [".env", "key.pem", "../.env", ".editkit-x/../.env", ""] {
        let refused = folders.stage_deferred(&leak, name, b"mine\n", false).unwrap_err();
        assert_eq!(refused.error_kind(), ErrorKind::InvalidArgs, "{name}");
    }
    let temp = folders.stage_deferred(&leak, ".editkit-t.tmp", b"mine\n", false).unwrap().temp;
    folders.rename(&temp, &leak).unwrap();
    assert_eq!(fs::read_to_string(tree.root.join("leak.txt")).unwrap(), "mine\n");
    assert_eq!(fs::read_to_string(tree.root.join(".env")).unwrap(), "TOKEN=1\n");
    assert_eq!(fs::read_to_string(tree.root.join(".git/config")).unwrap(), "[core]\n");
}

/// `set_mode_unchecked(".env", 0o644)` and `copy_permissions_unchecked` made a secret readable
/// to others; `state_keep(".env", ..)` copied it into the state folder, where `state_read`
/// gave it back.
#[test]
fn a_blocked_file_is_never_kept_in_the_state_folder_or_given_a_mode() {
    let tree = Tree::new();
    fs::set_permissions(tree.root.join(".env"), fs::Permissions::from_mode(0o600)).unwrap();
    let workspace = tree.workspace();
    let allowed = workspace.canonical("file.txt").unwrap();
    workspace.txn().state_keep(&allowed, "undo/kept").unwrap();
    assert_eq!(workspace.txn().state_read("undo/kept").unwrap().as_deref(), Some(&b"inside\n"[..]));
    for spelling in spellings(&tree, ".env") {
        assert!(workspace.canonical_recorded(&spelling).is_err());
    }
    let mode = fs::metadata(tree.root.join(".env")).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

/// A path checked by one workspace is refused by another (whose policy may block it), so a
/// canonical path never carries one policy's verdict into another's steps.
#[test]
fn a_canonical_path_of_another_workspace_is_refused() {
    let tree = Tree::new();
    fs::create_dir(tree.root.join("private")).unwrap();
    fs::write(tree.root.join("private/notes.txt"), "mine\n").unwrap();
    let open = Workspace::open(&tree.root, ambient_authority()).unwrap();
    let mut policy = Policy::default();
    policy.blocked.push("private/**".to_owned());
    let strict = Workspace::builder(&tree.root, ambient_authority()).policy(policy).open().unwrap();
    let notes = open.canonical("private/notes.txt").unwrap();
    assert_eq!(strict.canonical("private/notes.txt").unwrap_err().error_kind(), ErrorKind::Blocked);
    let txn = strict.txn();
    assert_eq!(txn.read(&notes).unwrap_err().error_kind(), ErrorKind::InvalidArgs);
    assert_eq!(txn.read_plain(&notes, 1 << 20), None);
    assert_eq!(txn.remove(&notes).unwrap_err().error_kind(), ErrorKind::InvalidArgs);
    assert_eq!(txn.entry_exists(&notes).unwrap_err().error_kind(), ErrorKind::InvalidArgs);
    assert_eq!(txn.set_mode(&notes, 0o777).unwrap_err().error_kind(), ErrorKind::InvalidArgs);
    assert_eq!(txn.state_keep(&notes, "undo/x").unwrap_err().error_kind(), ErrorKind::InvalidArgs);
    assert!(txn.lock_entries([&notes]).is_err());
    let folders = txn.folders();
    assert!(!folders.holds(&notes, b"mine\n"));
    assert!(folders.remove_file(&notes).is_err());
    assert!(folders.stage_deferred(&notes, ".editkit-x.tmp", b"x", false).is_err());
    assert_eq!(fs::read_to_string(tree.root.join("private/notes.txt")).unwrap(), "mine\n");
    assert_eq!(fs::read_dir(tree.root.join("private")).unwrap().count(), 1);
}

/// A recorded path must still be canonical: a journal entry naming `..`, an absolute path or a
/// spelling with `.` is refused, never resolved on the way.
#[test]
fn a_recorded_path_that_is_not_canonical_is_refused() {
    let tree = Tree::new();
    let workspace = tree.workspace();
    for (path, kind) in [
        ("../outside/sentinel.txt", ErrorKind::OutsideWorkspace),
        ("dir/../file.txt", ErrorKind::InvalidArgs),
        ("./file.txt", ErrorKind::InvalidArgs),
        ("dir//inner.txt", ErrorKind::InvalidArgs),
        ("dir/inner.txt/", ErrorKind::InvalidArgs),
        ("/etc/passwd", ErrorKind::OutsideWorkspace),
        ("~/x", ErrorKind::InvalidArgs),
    ] {
        assert_eq!(workspace.canonical_recorded(path).unwrap_err().error_kind(), kind, "{path}");
    }
    assert_eq!(workspace.canonical_recorded("dir/inner.txt").unwrap().as_str(), "dir/inner.txt");
    let absolute = tree.root.join("file.txt").display().to_string();
    assert_eq!(workspace.canonical_recorded(&absolute).unwrap_err().error_kind(), ErrorKind::InvalidArgs);
}

/// The ledger has no public writer but a file's lock: a caller cannot make a stale write pass
/// by recording the hash it wants, except for a file it holds the lock of.
#[test]
fn the_ledger_is_written_only_through_a_held_lock() {
    let tree = Tree::new();
    let workspace = tree.workspace();
    workspace.read("file.txt").unwrap();
    fs::write(tree.root.join("file.txt"), "changed\n").unwrap();
    let options = editkit_vfs::WriteOptions::default();
    assert_eq!(workspace.write("file.txt", b"mine\n", &options).unwrap_err().error_kind(), ErrorKind::Stale);
    let lock = workspace.lock("file.txt").unwrap();
    lock.record(Some(editkit_vfs::Sha256::of(b"changed\n")));
    assert_eq!(workspace.recorded_hash("file.txt").unwrap(), Some(editkit_vfs::Sha256::of(b"changed\n")));
    drop(lock);
    workspace.write("file.txt", b"mine\n", &options).unwrap();
}

/// `Workspace::rename` refuses a folder holding a blocked entry; the transaction steps renamed
/// one on canonical paths: `secret/` (allowed) moved to `open/` brought `secret/a.txt`
/// (blocked by `secret/*.txt`) out as `open/a.txt`, readable.
#[test]
fn a_folder_holding_a_blocked_file_is_not_renamed_by_a_step() {
    let tree = Tree::new();
    fs::create_dir(tree.root.join("secret")).unwrap();
    fs::write(tree.root.join("secret/a.txt"), "hidden\n").unwrap();
    let mut policy = Policy::default();
    policy.blocked.push("secret/*.txt".to_owned());
    let workspace = Workspace::builder(&tree.root, ambient_authority()).policy(policy).open().unwrap();
    let (secret, open) = (workspace.canonical("secret").unwrap(), workspace.canonical("open").unwrap());
    assert_eq!(workspace.canonical("secret/a.txt").unwrap_err().error_kind(), ErrorKind::Blocked);
    assert_eq!(workspace.txn().rename(&secret, &open).unwrap_err().error_kind(), ErrorKind::Blocked);
    assert_eq!(workspace.txn().folders().rename(&secret, &open).unwrap_err().error_kind(), ErrorKind::Blocked);
    assert!(!tree.root.join("open").exists());
    assert_eq!(fs::read_to_string(tree.root.join("secret/a.txt")).unwrap(), "hidden\n");
}

/// A second name of `.env` (a hard link `tar x` may make) is refused by every open; the mode
/// steps changed the shared inode through it: `set_mode(leak.txt, 0o644)` or
/// `copy_permissions(open.txt, leak.txt)` made `.env` readable to others.
#[test]
fn a_second_name_of_a_blocked_file_is_never_given_a_mode() {
    let tree = Tree::new();
    fs::set_permissions(tree.root.join(".env"), fs::Permissions::from_mode(0o600)).unwrap();
    fs::hard_link(tree.root.join(".env"), tree.root.join("leak.txt")).unwrap();
    fs::write(tree.root.join("open.txt"), "x\n").unwrap();
    fs::set_permissions(tree.root.join("open.txt"), fs::Permissions::from_mode(0o644)).unwrap();
    let workspace = tree.workspace();
    let txn = workspace.txn();
    let (leak, open) = (workspace.canonical("leak.txt").unwrap(), workspace.canonical("open.txt").unwrap());
    assert!(txn.read(&leak).is_err());
    assert!(txn.set_mode(&leak, 0o644).is_err());
    assert!(txn.copy_permissions(&open, &leak).is_err());
    let mode = fs::metadata(tree.root.join(".env")).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

/// `Workspace::rename` refuses to move a folder into one where files with several names are
/// served (`--hard-links`); the transaction steps moved one: `incoming/` holding `leak.txt`, a
/// second name of `.env` refused where it was, came out under `linked/`, where it is served.
#[test]
fn a_folder_is_not_moved_into_a_hard_links_folder_by_a_step() {
    let tree = Tree::new();
    fs::create_dir(tree.root.join("incoming")).unwrap();
    fs::create_dir(tree.root.join("linked")).unwrap();
    fs::hard_link(tree.root.join(".env"), tree.root.join("incoming/leak.txt")).unwrap();
    let mut policy = Policy::default();
    policy.hard_links_under.push("linked".to_owned());
    let workspace = Workspace::builder(&tree.root, ambient_authority()).policy(policy).open().unwrap();
    let incoming = workspace.canonical("incoming").unwrap();
    assert!(workspace.txn().read(&workspace.canonical("incoming/leak.txt").unwrap()).is_err());
    let moved = workspace.canonical("linked/incoming").unwrap();
    assert_eq!(workspace.txn().rename(&incoming, &moved).unwrap_err().error_kind(), ErrorKind::InvalidArgs);
    assert_eq!(workspace.txn().folders().rename(&incoming, &moved).unwrap_err().error_kind(), ErrorKind::InvalidArgs);
    assert!(!tree.root.join("linked/incoming").exists());
    assert!(tree.root.join("incoming/leak.txt").exists());
    // A file is still moved one by one, and judged by its own links where it lands.
    fs::write(tree.root.join("incoming/plain.txt"), "x\n").unwrap();
    let (plain, landed) =
        (workspace.canonical("incoming/plain.txt").unwrap(), workspace.canonical("linked/plain.txt").unwrap());
    workspace.txn().rename(&plain, &landed).unwrap();
    assert_eq!(fs::read_to_string(tree.root.join("linked/plain.txt")).unwrap(), "x\n");
}
