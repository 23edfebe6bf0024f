//! Helpers shared by the integration tests: trees on disk as maps, patch builders.

use std::collections::BTreeMap;
use std::path::Path;

/// Every file under `root` (relative path → bytes), skipping the state folder.
pub fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    walk(root, root, &mut files);
    files
}

fn walk(root: &Path, dir: &Path, files: &mut BTreeMap<String, Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries {
        let entry = entry.unwrap();
        let path = entry.path();
        let rel = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        if rel == ".editkit" {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            walk(root, &path, files);
        } else {
            files.insert(rel, std::fs::read(&path).unwrap());
        }
    }
}

/// Writes `files` under `root`.
pub fn write_tree(root: &Path, files: &BTreeMap<String, Vec<u8>>) {
    for (rel, bytes) in files {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

/// Shows a tree compactly for assertion messages.
pub fn show(files: &BTreeMap<String, Vec<u8>>) -> String {
    files.iter().map(|(k, v)| format!("{k}: {:?}\n", String::from_utf8_lossy(v))).collect()
}

/// The workspace root's folders that are not the state folder (empty ones included).
pub fn dirs(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let rel = entry.path().strip_prefix(root).unwrap().to_string_lossy().into_owned();
            if entry.file_type().unwrap().is_dir() && rel != ".editkit" {
                out.push(rel);
                stack.push(entry.path());
            }
        }
    }
    out.sort();
    out
}

/// A temp tree holding `files` (text, in new folders as needed) and a workspace on it.
pub fn workspace_with(files: &[(&str, &str)]) -> (tempfile::TempDir, editkit_vfs::Workspace) {
    let tmp = tempfile::tempdir().unwrap();
    let tree: BTreeMap<String, Vec<u8>> =
        files.iter().map(|(path, content)| ((*path).to_owned(), content.as_bytes().to_vec())).collect();
    write_tree(tmp.path(), &tree);
    let workspace = editkit_vfs::Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
    (tmp, workspace)
}
