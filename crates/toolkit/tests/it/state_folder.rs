//! The state folder is the user's alone: a folder planted in a shared state home (a link to the
//! project's `.git`, a folder of another user) is refused with a message naming it, never
//! followed, and nothing editkit keeps there (undo entries, patch journals and their contents,
//! lock files) can be read by others, whatever the folder around it allows.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use editkit::{Toolkit, ToolkitOptions};
use serde_json::{Value, json};

use crate::support::{copy_tree, fixtures};

const PATCH: &str =
    "*** Begin Patch\n*** Update File: src/app.py\n@@\n-# TODO: localise\n+# Localised upstream.\n*** End Patch\n";

/// A project with a `.git` folder, under a temp dir of its own.
struct Project {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Project {
    fn new() -> Project {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap().join("proj");
        fs::create_dir_all(root.join(".git/hooks")).unwrap();
        copy_tree(&fixtures().join("calls/tree"), &root);
        fs::write(root.join(".git/config"), "[core]\n").unwrap();
        Project { _tmp: tmp, root }
    }

    fn toolkit(&self, home: &Path) -> Toolkit {
        let options = ToolkitOptions { state_home: Some(home.to_owned()), ..ToolkitOptions::default() };
        Toolkit::open(&self.root, options).unwrap()
    }
}

/// Every entry under `dir` (links not followed), sorted.
fn entries_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else { return found };
    for entry in entries {
        let path = entry.unwrap().path();
        found.push(path.clone());
        if fs::symlink_metadata(&path).unwrap().is_dir() {
            found.extend(entries_under(&path));
        }
    }
    found.sort();
    found
}

/// A home folder shared by every user (`/tmp`-like, mode `mode`).
fn shared_home(mode: u32) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    fs::set_permissions(home.path(), fs::Permissions::from_mode(mode)).unwrap();
    home
}

/// The calls that write state: an undo entry (`write_file`, `edit_file`), a patch journal and
/// its undo record (`apply_patch`), and each of them a lock file.
fn state_writers(toolkit: &Toolkit) -> Vec<(&'static str, Value)> {
    let calls = [
        ("write_file", json!({"path": "a.txt", "content": "a\n"})),
        (
            "edit_file",
            json!({"path": "src/app.py", "old_string": "self.name = name", "new_string": "self.name = name.strip()"}),
        ),
        ("apply_patch", json!({"patch": PATCH})),
    ];
    calls.into_iter().map(|(tool, args)| (tool, editkit::tools::call(toolkit, tool, args))).collect()
}

#[test]
fn a_state_folder_planted_as_a_link_in_a_shared_home_is_refused_by_every_tool_that_writes_state() {
    let project = Project::new();
    let home = shared_home(0o1777);
    let toolkit = project.toolkit(home.path());
    // Another user of the machine creates the victim's per-root folder before its first use, as
    // a link to the victim's `.git` (the victim owns it and nobody else may write to it).
    let state = toolkit.workspace().state_dir().to_owned();
    assert!(state.starts_with(home.path()), "{state:?}");
    symlink(project.root.join(".git"), &state).unwrap();
    let git_before = entries_under(&project.root.join(".git"));
    let app_before = fs::read(project.root.join("src/app.py")).unwrap();
    for (tool, result) in state_writers(&toolkit) {
        assert_eq!(result["ok"], false, "{tool} used a state folder that is a link: {result:#}");
        assert_eq!(result["error"]["kind"], "io", "{tool}: {result:#}");
        let message = result["error"]["message"].as_str().unwrap();
        assert!(message.contains(&state.display().to_string()), "{tool}: the folder is not named: {message}");
        assert!(message.contains("link"), "{tool}: what is wrong is not said: {message}");
    }
    // The per-file lock alone refuses it too.
    let err = toolkit.workspace().lock("a.txt").unwrap_err();
    assert!(err.to_string().contains("link"), "{err}");
    assert_eq!(entries_under(&project.root.join(".git")), git_before, "editkit wrote into .git");
    assert_eq!(fs::read(project.root.join("src/app.py")).unwrap(), app_before, "a refused call changed a file");
    assert!(!project.root.join("a.txt").exists());
}

#[test]
fn a_state_folder_planted_as_another_folder_in_a_shared_home_is_refused() {
    let project = Project::new();
    let home = shared_home(0o1777);
    let toolkit = project.toolkit(home.path());
    let state = toolkit.workspace().state_dir().to_owned();
    // A folder others may write to stands in for one another user made (the test cannot
    // change owners): whoever can write there could plant journals.
    fs::create_dir(&state).unwrap();
    fs::set_permissions(&state, fs::Permissions::from_mode(0o777)).unwrap();
    for (tool, result) in state_writers(&toolkit) {
        assert_eq!(result["ok"], false, "{tool}: {result:#}");
        let message = result["error"]["message"].as_str().unwrap();
        assert!(message.contains(&state.display().to_string()) && message.contains("others may write"), "{message}");
    }
    assert!(entries_under(&state).is_empty(), "something was written in a planted folder");
}

#[test]
fn a_home_others_may_write_to_without_the_sticky_bit_is_refused() {
    // In a 0777 folder without the sticky bit another user can rename the victim's state
    // folder away and put one of their own, or a link, in its place at any time.
    let project = Project::new();
    let home = shared_home(0o777);
    let toolkit = project.toolkit(home.path());
    for (tool, result) in state_writers(&toolkit) {
        assert_eq!(result["ok"], false, "{tool}: {result:#}");
        let message = result["error"]["message"].as_str().unwrap();
        assert!(message.contains(&home.path().display().to_string()), "{message}");
        assert!(message.contains("sticky"), "{message}");
    }
    assert!(entries_under(home.path()).is_empty(), "state was created in a home others may rearrange");
}

#[test]
fn in_a_sticky_shared_home_the_state_folder_is_made_private() {
    let project = Project::new();
    let home = shared_home(0o1777);
    let toolkit = project.toolkit(home.path());
    for (tool, result) in state_writers(&toolkit) {
        assert_eq!(result["ok"], true, "{tool}: {result:#}");
    }
    let state = toolkit.workspace().state_dir();
    let meta = fs::symlink_metadata(state).unwrap();
    assert!(meta.is_dir());
    assert_eq!(meta.mode() & 0o777, 0o700);
}

/// Checks that nothing under `state` is readable by others: folders 0700, files 0600 (but
/// undo entries kept as hard links, when `linked`: the workspace's old inode keeps its mode;
/// whether an entry is a link or a copy is `Txn::state_keep`'s policy).
#[track_caller]
fn assert_private(state: &Path, linked: bool) {
    let entries = entries_under(state);
    assert!(entries.iter().any(|path| path.to_string_lossy().contains("/undo/")), "no undo entry: {entries:#?}");
    for path in entries {
        let meta = fs::symlink_metadata(&path).unwrap();
        let mode = meta.mode() & 0o777;
        if meta.is_dir() {
            assert_eq!(mode, 0o700, "{path:?} is a folder others may enter");
        } else if linked && path.extension().is_some_and(|ext| ext == "keep") {
        } else {
            assert_eq!(mode & 0o077, 0, "{path:?} has mode {mode:o}: others may read it");
        }
    }
}

#[test]
fn state_kept_in_a_folder_others_may_read_is_private_to_the_user() {
    // The user's state folder is one everyone may read (0755, made by hand or by an older
    // editkit): what editkit keeps there, copies of 0600 files included, must still not be
    // readable by others. On another file system (tmpfs) undo entries are copies, not links.
    for (base, linked) in [(tempfile::tempdir().unwrap(), true), (tempfile::tempdir_in("/dev/shm").unwrap(), false)] {
        let project = Project::new();
        fs::write(project.root.join("secret.txt"), "token=1\n").unwrap();
        fs::set_permissions(project.root.join("secret.txt"), fs::Permissions::from_mode(0o600)).unwrap();
        let toolkit = project.toolkit(base.path());
        let state = toolkit.workspace().state_dir().to_owned();
        fs::create_dir(&state).unwrap();
        fs::set_permissions(&state, fs::Permissions::from_mode(0o755)).unwrap();
        for (tool, result) in state_writers(&toolkit) {
            assert_eq!(result["ok"], true, "{tool}: {result:#}");
        }
        let secret = json!({"path": "secret.txt", "old_string": "token=1", "new_string": "token=2"});
        assert_eq!(editkit::tools::call(&toolkit, "edit_file", secret)["ok"], true);
        assert_private(&state, linked);
        // The history still undoes what it kept.
        assert_eq!(editkit::tools::call(&toolkit, "undo_edit", json!({"path": "secret.txt"}))["ok"], true);
        assert_eq!(fs::read_to_string(project.root.join("secret.txt")).unwrap(), "token=1\n");
        assert_eq!(editkit::tools::call(&toolkit, "undo_patch", json!({}))["ok"], true);
    }
}

#[test]
fn a_state_home_inside_a_workspace_is_refused() {
    let project = Project::new();
    for home in [project.root.join("var/state"), project.root.clone(), project.root.join("src")] {
        let options = ToolkitOptions { state_home: Some(home.clone()), ..ToolkitOptions::default() };
        let err = Toolkit::open(&project.root, options).unwrap_err();
        assert_eq!(err.error_kind().as_str(), "invalid_args", "{home:?}: {err}");
        assert!(err.to_string().contains("inside the workspace"), "{err}");
    }
    // Through a link to a folder inside the root as well.
    let outside = tempfile::tempdir().unwrap();
    symlink(project.root.join("docs"), outside.path().join("link")).unwrap();
    let options = ToolkitOptions { state_home: Some(outside.path().join("link/state")), ..ToolkitOptions::default() };
    let err = Toolkit::open(&project.root, options).unwrap_err();
    assert_eq!(err.error_kind().as_str(), "invalid_args", "{err}");
    assert!(!project.root.join("var").exists() && !project.root.join("docs/state").exists());
}

#[test]
fn a_state_folder_of_another_user_is_refused() {
    let project = Project::new();
    let home = shared_home(0o1777);
    let toolkit = project.toolkit(home.path());
    let state = toolkit.workspace().state_dir().to_owned();
    if fs::metadata(home.path()).unwrap().uid() == 0 {
        // Another user (`nobody`) made the root's folder first, private to them.
        fs::create_dir(&state).unwrap();
        std::os::unix::fs::chown(&state, Some(65_534), Some(65_534)).unwrap();
        for (tool, result) in state_writers(&toolkit) {
            assert_eq!(result["ok"], false, "{tool}: {result:#}");
            let message = result["error"]["message"].as_str().unwrap();
            assert!(message.contains(&state.display().to_string()), "{message}");
            assert!(message.contains("belongs to another user"), "{message}");
        }
        assert!(entries_under(&state).is_empty());
    } else {
        // Without root no folder can be given away: one of root's stands in for it.
        let mut builder = editkit::vfs::Workspace::builder(&project.root, editkit::vfs::ambient_authority());
        let workspace = builder.state_dir("/usr").open().unwrap();
        let err = workspace.write("a.txt", b"a", &Default::default()).unwrap_err();
        assert!(err.to_string().contains("`/usr`") && err.to_string().contains("belongs to another user"), "{err}");
    }
}

/// The way to the state home is walked as ssh walks a path: a link another user made on the
/// way (in a folder of theirs, or in one everybody may write to) is never followed, so it
/// cannot lead editkit's state into the user's `.git`, even when everything it leads to is
/// the user's.
#[test]
fn a_link_on_the_way_to_the_state_home_made_by_another_user_is_never_followed() {
    let project = Project::new();
    // The link leads into another project of the user's (one inside this workspace is refused
    // when the toolkit opens).
    let other = Project::new();
    let shared = shared_home(0o1777);
    let team = shared.path().join("team");
    fs::create_dir(&team).unwrap();
    let as_root = fs::metadata("/proc/self").unwrap().uid() == 0;
    if as_root {
        // `nobody` owns `team`, and plants `team/state` as a link to the user's `.git`.
        symlink(other.root.join(".git"), team.join("state")).unwrap();
        std::os::unix::fs::lchown(team.join("state"), Some(65_534), Some(65_534)).unwrap();
        std::os::unix::fs::chown(&team, Some(65_534), Some(65_534)).unwrap();
    } else {
        // Without root no folder can be given away: one everybody may write to stands in.
        symlink(other.root.join(".git"), team.join("state")).unwrap();
        fs::set_permissions(&team, fs::Permissions::from_mode(0o777)).unwrap();
    }
    let git_before = entries_under(&other.root.join(".git"));
    let toolkit = project.toolkit(&team.join("state"));
    for (tool, result) in state_writers(&toolkit) {
        assert_eq!(result["ok"], false, "{tool} followed a planted link: {result:#}");
        let message = result["error"]["message"].as_str().unwrap();
        assert!(message.contains(&team.display().to_string()), "{tool}: the folder is not named: {message}");
    }
    assert_eq!(entries_under(&other.root.join(".git")), git_before, "editkit wrote into .git");
    // A link the user made, through folders only the user may write to, is followed.
    let own = tempfile::tempdir().unwrap();
    fs::set_permissions(own.path(), fs::Permissions::from_mode(0o700)).unwrap();
    fs::create_dir(own.path().join("real")).unwrap();
    symlink(own.path().join("real"), own.path().join("via")).unwrap();
    let toolkit = project.toolkit(&own.path().join("via"));
    let written = editkit::tools::call(&toolkit, "write_file", json!({"path": "b.txt", "content": "b\n"}));
    assert_eq!(written["ok"], true, "{written:#}");
    assert!(!entries_under(&own.path().join("real")).is_empty());
}

/// Arguments for every tool that writes, so each one meets the planted state folder; a tool
/// that writes and has no entry here fails the test below.
fn writing_call(tool: &str, session: &str) -> Option<Value> {
    Some(match tool {
        "write_file" => json!({"path": "a.txt", "content": "a\n"}),
        "edit_file" => {
            json!({"path": "src/app.py", "old_string": "self.name = name", "new_string": "self.name = name.strip()"})
        }
        "insert_lines" => json!({"path": "src/app.py", "line": 0, "text": "# added"}),
        "merge_snippet" => {
            json!({"path": "src/app.py", "snippet": "# ...\n        self.name = name\n        self.seen = 0\n# ...\n"})
        }
        "apply_patch" => json!({"patch": PATCH}),
        "rename_symbol" => json!({"path": "src/app.py", "line": 8, "symbol": "greet", "new_name": "hello"}),
        "undo_edit" => json!({"path": "src/app.py", "force": true}),
        "undo_patch" => json!({"force": true}),
        "create_directory" => json!({"path": "build/out"}),
        "move" => json!({"from": "docs/guide.md", "to": "docs/moved.md"}),
        "delete" => json!({"path": "src/util.ts"}),
        "replace_function" => {
            json!({"path": "src/app.py", "function_name": "main", "new_implementation": "def main():\n    pass\n"})
        }
        "edit_python_file" => json!({"path": "src/app.py", "old_string": "# TODO: localise", "new_string": "# done"}),
        "write_python_file" => json!({"path": "src/new.py", "content": "x = 1\n"}),
        "write_markdown_file" => json!({"path": "docs/new.md", "content": "# New\n"}),
        "update_project_index" => json!({"project_name": "p", "description": "d", "structure": "s"}),
        "notebook_edit" => json!({"path": "docs/analysis.ipynb", "index": 0, "action": "delete"}),
        "editor_load" => json!({"path": "docs/guide.md"}),
        "editor_edit" => json!({"session_id": session, "old_string": "say more", "new_string": "say much more"}),
        "editor_write" => json!({"session_id": session, "text": "# Guide\n"}),
        "editor_store" => json!({"session_id": session}),
        "editor_clear" => json!({"session_id": session}),
        "editor_read" | "editor_diff" => json!({"session_id": session}),
        _ => return None,
    })
}

/// Every tool that writes meets a state folder planted as a link to the project's `.git`:
/// none writes anything there, and each one that needs the state folder names it.
#[test]
fn every_tool_that_writes_leaves_a_planted_state_folder_alone() {
    let project = Project::new();
    let home = shared_home(0o1777);
    let toolkit = project.toolkit(home.path());
    let state = toolkit.workspace().state_dir().to_owned();
    symlink(project.root.join(".git"), &state).unwrap();
    let git_before = entries_under(&project.root.join(".git"));
    let loaded = editkit::tools::call(&toolkit, "editor_load", json!({"path": "docs/guide.md"}));
    let session = loaded["session_id"].as_str().unwrap_or("none").to_owned();
    let mut refused = 0;
    for spec in editkit::tools::specs().into_iter().filter(|spec| !spec.read_only || spec.name.starts_with("editor_")) {
        let args =
            writing_call(spec.name, &session).unwrap_or_else(|| panic!("no call for the writing tool `{}`", spec.name));
        let result = editkit::tools::call(&toolkit, spec.name, args);
        if result["ok"] == false
            && result["error"]["message"].as_str().is_some_and(|m| m.contains(&state.display().to_string()))
        {
            refused += 1;
        }
        assert_eq!(entries_under(&project.root.join(".git")), git_before, "{} wrote into .git: {result:#}", spec.name);
    }
    assert!(refused >= 8, "only {refused} tools named the refused state folder");
}
