//! The read ledger refuses writes to files that changed underneath.

use std::fs;

use editkit_vfs::WriteOptions;

use crate::support::Tree;

#[test]
fn a_file_changed_since_it_was_read_is_not_overwritten() {
    let tree = Tree::new();
    let workspace = tree.workspace();
    let read = workspace.read("file.txt").unwrap();
    fs::write(tree.root.join("file.txt"), "someone else\n").unwrap();
    let err = workspace.write("file.txt", b"mine\n", &WriteOptions::default()).unwrap_err();
    assert_eq!(err.kind(), "stale");
    assert!(err.to_string().contains(read.sha256()), "{err}");
    assert_eq!(fs::read_to_string(tree.root.join("file.txt")).unwrap(), "someone else\n");
    // force overrides the ledger.
    workspace.write("file.txt", b"mine\n", &WriteOptions { force: true, ..Default::default() }).unwrap();
    assert_eq!(fs::read_to_string(tree.root.join("file.txt")).unwrap(), "mine\n");
    // After a write the ledger holds the new hash: the next write is fresh.
    workspace.write("file.txt", b"again\n", &WriteOptions::default()).unwrap();
}

#[test]
fn an_explicit_hash_is_honoured_even_with_force() {
    let tree = Tree::new();
    let workspace = tree.workspace();
    let wrong = WriteOptions { force: true, expected_hash: Some("0".repeat(64)), ..Default::default() };
    assert_eq!(workspace.write("file.txt", b"x", &wrong).unwrap_err().kind(), "stale");
    let right = editkit_vfs::sha256_hex(b"inside\n").to_uppercase();
    let options = WriteOptions { expected_hash: Some(right), ..Default::default() };
    workspace.write("file.txt", b"x", &options).unwrap();
    let absent = WriteOptions { expected_hash: Some("0".repeat(64)), ..Default::default() };
    assert_eq!(workspace.write("new.txt", b"x", &absent).unwrap_err().kind(), "stale");
    assert!(!tree.root.join("new.txt").exists());
}

#[test]
fn a_deleted_file_counts_as_changed_and_unread_files_are_not_guarded() {
    let tree = Tree::new();
    let workspace = tree.workspace();
    workspace.read("file.txt").unwrap();
    fs::remove_file(tree.root.join("file.txt")).unwrap();
    assert_eq!(workspace.write("file.txt", b"x", &WriteOptions::default()).unwrap_err().kind(), "stale");
    fs::write(tree.root.join("dir/inner.txt"), "changed, never read").unwrap();
    workspace.write("dir/inner.txt", b"ok", &WriteOptions::default()).unwrap();
}

#[test]
fn the_ledger_is_keyed_by_canonical_path() {
    let tree = Tree::new();
    std::os::unix::fs::symlink("dir", tree.root.join("alias")).unwrap();
    let workspace = tree.workspace();
    workspace.read("alias/inner.txt").unwrap();
    fs::write(tree.root.join("dir/inner.txt"), "changed").unwrap();
    let err = workspace.write("./dir/inner.txt", b"x", &WriteOptions::default()).unwrap_err();
    assert_eq!(err.kind(), "stale");
    assert_eq!(workspace.recorded_hash("dir/inner.txt").unwrap(), Some(editkit_vfs::sha256_hex(b"inner\n")));
}
