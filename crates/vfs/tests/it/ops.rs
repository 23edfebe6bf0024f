//! Behaviour of each operation on ordinary input.

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};

use editkit_vfs::{EntryKind, ErrorKind, LineEndings, RenameOptions, Workspace, WriteOptions};

use crate::support::Tree;

#[test]
fn read_reports_text_facts() {
    let tree = Tree::new();
    fs::write(tree.root.join("crlf.txt"), b"\xEF\xBB\xBFa\r\nb\r\n").unwrap();
    let file = tree.workspace().read("crlf.txt").unwrap();
    assert_eq!(file.text(), "a\nb\n");
    assert!(file.bom());
    assert_eq!(file.decoded().line_endings(), LineEndings::CrLf);
    assert_eq!(file.line_count(), 2);
    assert!(file.decoded().trailing_newline());
    assert_eq!(file.size(), 9);
    assert_eq!(file.sha256(), editkit_vfs::Sha256::of(b"\xEF\xBB\xBFa\r\nb\r\n"));
}

#[test]
fn read_refuses_what_is_not_editable_text() {
    let tree = Tree::new();
    fs::write(tree.root.join("utf16.txt"), b"\xFF\xFEh\x00i\x00").unwrap();
    fs::write(tree.root.join("bin.dat"), b"ELF\x00\x01\x02").unwrap();
    fs::write(tree.root.join("latin1.txt"), b"caf\xE9\n").unwrap();
    let workspace = Workspace::builder(&tree.root, editkit_vfs::ambient_authority()).max_read_bytes(16).open().unwrap();
    fs::write(tree.root.join("big.txt"), "x".repeat(17)).unwrap();
    assert_eq!(workspace.read("utf16.txt").unwrap_err().error_kind(), ErrorKind::Utf16);
    assert_eq!(workspace.read("bin.dat").unwrap_err().error_kind(), ErrorKind::Binary);
    let err = workspace.read("latin1.txt").unwrap_err();
    assert_eq!(err.error_kind(), ErrorKind::NotUtf8);
    assert!(err.to_string().contains("offset 3"), "{err}");
    let err = workspace.read("big.txt").unwrap_err();
    assert_eq!(err.error_kind(), ErrorKind::TooLarge);
    assert!(err.to_string().contains("17 bytes"), "{err}");
    assert_eq!(workspace.read("dir").unwrap_err().error_kind(), ErrorKind::IsDirectory);
    assert_eq!(workspace.read("nope.txt").unwrap_err().error_kind(), ErrorKind::NotFound);
    assert_eq!(workspace.read("file.txt/x").unwrap_err().error_kind(), ErrorKind::NotFound);
    assert_eq!(workspace.read_bytes("bin.dat").unwrap(), b"ELF\x00\x01\x02");
}

#[test]
fn write_is_atomic_keeps_mode_and_creates_parents() {
    let tree = Tree::new();
    let script = tree.root.join("run.sh");
    fs::write(&script, "old").unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o751)).unwrap();
    let workspace = tree.workspace();
    let written = workspace.write("run.sh", b"new", &WriteOptions::default()).unwrap();
    assert!(!written.created);
    assert_eq!(written.previous_sha256, Some(editkit_vfs::Sha256::of(b"old")));
    assert_eq!(fs::read_to_string(&script).unwrap(), "new");
    assert_eq!(fs::metadata(&script).unwrap().permissions().mode() & 0o777, 0o751);
    let written = workspace.write("a/b/c.txt", b"deep", &WriteOptions::default()).unwrap();
    assert!(written.created);
    assert_eq!(fs::read_to_string(tree.root.join("a/b/c.txt")).unwrap(), "deep");
    let no_dirs = WriteOptions { create_dirs: false, ..Default::default() };
    assert_eq!(workspace.write("x/y.txt", b"", &no_dirs).unwrap_err().error_kind(), ErrorKind::NotFound);
    assert!(!tree.root.join("x").exists());
    assert_eq!(workspace.write("dir", b"", &WriteOptions::default()).unwrap_err().error_kind(), ErrorKind::IsDirectory);
    assert_eq!(workspace.write("", b"", &WriteOptions::default()).unwrap_err().error_kind(), ErrorKind::IsDirectory);
    let create_new = WriteOptions { create_new: true, ..Default::default() };
    assert_eq!(workspace.write("run.sh", b"", &create_new).unwrap_err().error_kind(), ErrorKind::Exists);
    // No temp files are left behind.
    let names: Vec<_> = fs::read_dir(&tree.root).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(names.iter().all(|n| !n.to_string_lossy().ends_with(".tmp")), "{names:?}");
}

#[test]
fn write_through_an_inside_link_changes_the_target_not_the_link() {
    let tree = Tree::new();
    symlink("dir/inner.txt", tree.root.join("alias")).unwrap();
    let workspace = tree.workspace();
    workspace.write("alias", b"via link", &WriteOptions::default()).unwrap();
    assert!(fs::symlink_metadata(tree.root.join("alias")).unwrap().is_symlink());
    assert_eq!(fs::read_to_string(tree.root.join("dir/inner.txt")).unwrap(), "via link");
}

#[test]
fn delete_removes_files_dirs_and_links_but_never_a_links_target() {
    let tree = Tree::new();
    symlink("dir", tree.root.join("dir_link")).unwrap();
    let workspace = tree.workspace();
    assert_eq!(workspace.delete("dir_link").unwrap(), EntryKind::Symlink);
    assert!(tree.root.join("dir/inner.txt").exists());
    assert_eq!(workspace.delete("file.txt").unwrap(), EntryKind::File);
    assert_eq!(workspace.delete("dir").unwrap(), EntryKind::Dir);
    assert!(!tree.root.join("dir").exists());
    assert_eq!(workspace.delete("").unwrap_err().error_kind(), ErrorKind::InvalidArgs);
    assert_eq!(workspace.delete(".").unwrap_err().error_kind(), ErrorKind::InvalidArgs);
    assert_eq!(workspace.delete("missing").unwrap_err().error_kind(), ErrorKind::NotFound);
    assert!(tree.root.exists());
}

#[test]
fn list_dir_is_sorted_marks_dirs_and_hides_blocked_and_escaping_entries() {
    let tree = Tree::new();
    symlink("dir", tree.root.join("b_link")).unwrap();
    symlink(&tree.out, tree.root.join("escape")).unwrap();
    let names = tree.workspace().list_dir(".").unwrap();
    assert_eq!(names, ["b_link/", "dir/", "file.txt", "sub/"]);
    assert_eq!(tree.workspace().list_dir("file.txt").unwrap_err().error_kind(), ErrorKind::InvalidArgs);
}

#[test]
fn a_walk_stays_below_its_directory_and_inside_the_root() {
    let tree = Tree::new();
    fs::write(tree.root.join("dir/two.txt"), "").unwrap();
    fs::create_dir(tree.root.join("dir/deeper")).unwrap();
    fs::write(tree.root.join("dir/deeper/three.txt"), "").unwrap();
    symlink(&tree.out, tree.root.join("dir/escape")).unwrap();
    let workspace = tree.workspace();
    let mut names = Vec::new();
    workspace
        .open_dir("dir")
        .unwrap()
        .walk(&mut |entry| {
            names.push(entry.rel.clone());
            true
        })
        .unwrap();
    names.sort();
    assert_eq!(names, ["dir/deeper", "dir/deeper/three.txt", "dir/inner.txt", "dir/two.txt"]);
}

#[test]
fn rename_moves_and_refuses_to_clobber() {
    let tree = Tree::new();
    let workspace = tree.workspace();
    workspace.rename("file.txt", "moved/file.txt", RenameOptions::default().create_dirs(true)).unwrap();
    assert_eq!(fs::read_to_string(tree.root.join("moved/file.txt")).unwrap(), "inside\n");
    assert_eq!(
        workspace.rename("moved/file.txt", "dir/inner.txt", RenameOptions::default()).unwrap_err().error_kind(),
        ErrorKind::Exists
    );
    assert_eq!(
        workspace.rename("nothing", "x", RenameOptions::default()).unwrap_err().error_kind(),
        ErrorKind::NotFound
    );
}

#[test]
fn two_spellings_resolve_to_one_canonical_path() {
    let tree = Tree::new();
    symlink("dir", tree.root.join("alias")).unwrap();
    let workspace = tree.workspace();
    assert_eq!(workspace.resolve("./dir//x/../inner.txt").unwrap(), "dir/inner.txt");
    assert_eq!(workspace.resolve("alias/inner.txt").unwrap(), "dir/inner.txt");
    assert_eq!(workspace.resolve("").unwrap(), "");
    assert_eq!(workspace.resolve(".").unwrap(), "");
}

#[test]
fn opening_a_missing_root_is_a_typed_error() {
    let tree = Tree::new();
    let err = Workspace::open(tree.root.join("missing"), editkit_vfs::ambient_authority()).unwrap_err();
    assert_eq!(err.error_kind(), ErrorKind::NotFound);
    let err = Workspace::open(tree.root.join("file.txt"), editkit_vfs::ambient_authority()).unwrap_err();
    assert_eq!(err.error_kind(), ErrorKind::InvalidArgs);
    let err = Workspace::builder(&tree.root, editkit_vfs::ambient_authority()).state_dir("../x").open().unwrap_err();
    assert_eq!(err.error_kind(), ErrorKind::InvalidArgs);
}

#[test]
fn a_state_folder_placed_inside_the_root_is_blocked_for_every_tool() {
    let tree = Tree::new();
    let workspace = Workspace::builder(&tree.root, editkit_vfs::ambient_authority())
        .state_dir(tree.root.join("var/editkit"))
        .open()
        .unwrap();
    workspace.write("a.txt", b"a\n", &editkit_vfs::WriteOptions::default()).unwrap();
    assert!(tree.root.join("var/editkit/locks").is_dir(), "the state went where it was told");
    assert_eq!(workspace.list_dir("var/editkit").unwrap_err().error_kind(), ErrorKind::Blocked);
    assert_eq!(
        workspace.write("var/editkit/x", b"x", &Default::default()).unwrap_err().error_kind(),
        ErrorKind::Blocked
    );
    let err =
        Workspace::builder(&tree.root, editkit_vfs::ambient_authority()).state_dir(&tree.root).open().unwrap_err();
    assert_eq!(err.error_kind(), ErrorKind::InvalidArgs, "the root itself cannot be the state folder");
}

#[test]
fn a_write_to_a_path_ending_in_a_slash_is_refused_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("existing")).unwrap();
    let workspace = Workspace::open(dir.path(), editkit_vfs::ambient_authority()).unwrap();
    for path in ["notes/", "new/", "existing/", "notes/.", "a/b/"] {
        let err = workspace.write(path, b"x", &WriteOptions::default()).unwrap_err();
        assert_eq!(err.error_kind(), ErrorKind::InvalidArgs, "{path}: {err}");
        assert!(err.to_string().contains("ending in `/`"), "{err}");
    }
    let mut names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, ["existing"]);
    assert!(std::fs::read_dir(dir.path().join("existing")).unwrap().next().is_none());
}
