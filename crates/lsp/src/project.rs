//! Which Rust project rust-analyzer loads, decided by editkit: rust-analyzer is never left to
//! discover projects itself, because a `rust-project.json` names a sysroot (`sysroot`,
//! `sysroot_src`, `sysroot_project`) whose `bin/rustc` rust-analyzer runs, and proc-macro
//! libraries it loads. The project is given in `linkedProjects`:
//! - a `rust-project.json` at the root: read once (no link followed, bounded), the keys that
//!   name programs or a toolchain dropped, and passed inline, so rust-analyzer never reads the
//!   file (a later edit of it changes nothing). No sysroot is put in: rust-analyzer loads a
//!   project's sysroot with `cargo metadata` on the standard library's workspace, which needs
//!   registry packages that the private, offline cargo home cannot resolve, and the server
//!   then reports itself unhealthy. The workspace's own crates are what its answers are about;
//!   the standard library's items are not resolved;
//! - else a `Cargo.toml` at the root, by path (cargo's toolchain is pinned by env and the
//!   `cargo.sysroot` setting);
//! - else an empty inline project, so no nested project is discovered either.

use std::io::Read as _;
use std::path::Path;

use serde_json::{Map, Value, json};

/// The largest `rust-project.json` read, in bytes.
pub(crate) const MAX_PROJECT_JSON_BYTES: u64 = 4 * 1024 * 1024;

/// Keys of `rust-project.json` that name a toolchain or a program; dropped.
const DROPPED: &[&str] = &["sysroot", "sysroot_src", "sysroot_project", "runnables"];

/// Keys of each crate that name a program or a library to load; dropped.
const DROPPED_PER_CRATE: &[&str] = &["proc_macro_dylib_path", "build"];

/// The `linkedProjects` value for `root`, naming no toolchain; `Err`: why the workspace's
/// project cannot be loaded.
pub(crate) fn linked_projects(root: &Path) -> Result<Value, String> {
    let json_path = root.join("rust-project.json");
    if std::fs::symlink_metadata(&json_path).is_ok() {
        let project = read_project(&json_path)?;
        return Ok(json!([Value::Object(cleaned(project))]));
    }
    let cargo = root.join("Cargo.toml");
    if std::fs::symlink_metadata(&cargo).is_ok() {
        return Ok(json!([cargo.to_string_lossy()]));
    }
    Ok(json!([{ "crates": [] }]))
}

/// The object in `path`: a regular file (not a link, not a FIFO), at most
/// [`MAX_PROJECT_JSON_BYTES`].
fn read_project(path: &Path) -> Result<Map<String, Value>, String> {
    use rustix::fs::{Mode, OFlags};
    let refused = |why: String| format!("the workspace's `rust-project.json` {why}");
    let fd =
        rustix::fs::open(path, OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC, Mode::empty())
            .map_err(|error| refused(format!("cannot be opened (links are not followed): {error}")))?;
    let file = std::fs::File::from(fd);
    let metadata = file.metadata().map_err(|error| refused(format!("cannot be read: {error}")))?;
    if !metadata.is_file() {
        return Err(refused("is not a regular file".to_owned()));
    }
    if metadata.len() > MAX_PROJECT_JSON_BYTES {
        return Err(refused(format!("has {} bytes, more than the limit of {MAX_PROJECT_JSON_BYTES}", metadata.len())));
    }
    let mut bytes = Vec::new();
    file.take(MAX_PROJECT_JSON_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|error| refused(format!("cannot be read: {error}")))?;
    match serde_json::from_slice(&bytes) {
        Ok(Value::Object(project)) => Ok(project),
        Ok(_) => Err(refused("is not a JSON object".to_owned())),
        Err(error) => Err(refused(format!("is not JSON (line {})", error.line()))),
    }
}

/// `project` without the keys that name a toolchain or a program.
fn cleaned(mut project: Map<String, Value>) -> Map<String, Value> {
    for key in DROPPED {
        project.remove(*key);
    }
    if let Some(Value::Array(crates)) = project.get_mut("crates") {
        for krate in crates.iter_mut() {
            if let Value::Object(krate) = krate {
                for key in DROPPED_PER_CRATE {
                    krate.remove(*key);
                }
            }
        }
    }
    project
}
