//! `find_program`: the one lookup of a program outside the workspace roots, used by the
//! checkers and formatters and by the binary's pager.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use editkit_run::{NotFound, Roots, find_program, find_program_on};

/// An executable script `name` in `dir`.
fn program(dir: &Path, name: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, "#!/bin/sh\necho hi\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The lookup under a `PATH` of `entries`.
fn find_with_path(program: &str, entries: &[PathBuf], roots: &[&Path]) -> Result<PathBuf, NotFound> {
    let path = std::env::join_paths(entries).unwrap();
    find_program_on(Some(&path), program, &Roots::new(roots)).map(|found| found.path)
}

#[test]
fn a_program_in_a_path_entry_inside_a_root_is_passed_over_for_one_outside() {
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("root");
    let shipped = program(&root.join("bin"), "tool");
    let outside = program(&base.path().join("tools"), "tool");
    let entries = [root.join("bin"), base.path().join("tools")];
    assert_eq!(find_with_path("tool", &entries, &[&root]), Ok(outside.clone()));
    // Without the root, the first entry wins: the rule is the roots, not the order.
    assert_eq!(find_with_path("tool", &entries, &[Path::new("/nonexistent-root")]), Ok(shipped));
}

#[test]
fn an_entry_that_leads_into_a_root_through_a_link_or_dots_is_passed_over() {
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("root");
    program(&root.join("bin"), "tool");
    std::os::unix::fs::symlink(root.join("bin"), base.path().join("linked")).unwrap();
    let entries = [base.path().join("linked"), base.path().join("elsewhere/../root/bin"), PathBuf::from("root/bin")];
    std::fs::create_dir_all(base.path().join("elsewhere")).unwrap();
    assert_eq!(find_with_path("tool", &entries, &[&root]), Err(NotFound::NotInstalled));
}

#[test]
fn relative_and_empty_programs_are_refused_and_absolute_ones_taken_as_given() {
    let roots = Roots::new(&[Path::new("/nonexistent-root")]);
    assert!(matches!(find_program("./node_modules/.bin/prettier", &roots), Err(NotFound::Relative { .. })));
    assert_eq!(find_program("", &roots), Err(NotFound::Empty));
    assert_eq!(find_program("/bin/sh", &roots).map(|found| found.path), Ok(PathBuf::from("/bin/sh")));
    assert_eq!(find_program("/nonexistent/editkit-tool", &roots), Err(NotFound::NotInstalled));
}
