//! Finding programs on PATH without trusting the workspace.
//!
//! The operating system's own lookup (`execvp`) would take an empty entry, `.` or a relative
//! entry to mean the working directory, and any entry inside the workspace as good as
//! `/usr/bin`: all of them let a repository ship the program that runs. Here only absolute
//! entries outside every workspace root count, the program is spawned by the absolute path
//! found, and the child's own `PATH` holds the same entries, so a `#!/usr/bin/env node`
//! script finds its interpreter under the same rule.

use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

/// The workspace roots, as given and as their real paths.
#[derive(Debug, Clone)]
pub(crate) struct Roots {
    paths: Vec<PathBuf>,
}

impl Roots {
    pub(crate) fn new(roots: &[&Path]) -> Roots {
        let mut paths = Vec::new();
        for root in roots {
            paths.push(lexical(root));
            if let Ok(real) = root.canonicalize() {
                paths.push(real);
            }
        }
        Roots { paths }
    }

    /// Whether `path` (absolute) is a root or lies beneath one, lexically or by its real path.
    pub(crate) fn contain(&self, path: &Path) -> bool {
        let lexical = lexical(path);
        let real = path.canonicalize().ok();
        self.paths
            .iter()
            .any(|root| lexical.starts_with(root) || real.as_ref().is_some_and(|real| real.starts_with(root)))
    }
}

/// `path` with `.` dropped and `..` applied, without touching the filesystem.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The usable entries of a `PATH` value: absolute, existing directories outside every root.
pub(crate) fn safe_entries(path: Option<&OsStr>, roots: &Roots) -> Vec<PathBuf> {
    let Some(path) = path else { return Vec::new() };
    std::env::split_paths(path).filter(|entry| entry.is_absolute() && entry.is_dir() && !roots.contain(entry)).collect()
}

/// How long a lookup on `PATH` ([`lookup`]) is reused: a program installed or removed while a
/// long-lived process runs is seen within this, and a process that checks a file on every edit
/// does not search `PATH` (resolving each entry's real path) every time.
const LOOKUP_REUSED_FOR: std::time::Duration = std::time::Duration::from_secs(5);

/// A lookup of one program, as [`lookup`] keeps it.
struct Lookup {
    program: String,
    path: Option<OsString>,
    roots: Vec<PathBuf>,
    at: std::time::Instant,
    found: (Vec<PathBuf>, Result<PathBuf, String>),
}

/// The usable entries of the process's `PATH` ([`safe_entries`]) and the program `program`
/// resolves to among them ([`program`]), reused for [`LOOKUP_REUSED_FOR`] while `PATH` and
/// the roots stay the same; a program found is checked to be executable still on every use.
pub(crate) fn lookup(program_name: &str, roots: &Roots) -> (Vec<PathBuf>, Result<PathBuf, String>) {
    static LOOKUPS: std::sync::Mutex<Vec<Lookup>> = std::sync::Mutex::new(Vec::new());
    /// Distinct lookups kept (programs times root sets); the oldest goes first.
    const KEPT: usize = 32;
    let path = std::env::var_os("PATH");
    let mut lookups = LOOKUPS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    lookups.retain(|kept| kept.at.elapsed() < LOOKUP_REUSED_FOR);
    if let Some(kept) =
        lookups.iter().find(|kept| kept.program == program_name && kept.path == path && kept.roots == roots.paths)
        && kept.found.1.as_ref().ok().is_none_or(|found| is_executable(found))
    {
        return kept.found.clone();
    }
    let entries = safe_entries(path.as_deref(), roots);
    let found = program(program_name, &entries, roots);
    lookups.retain(|kept| !(kept.program == program_name && kept.path == path && kept.roots == roots.paths));
    if lookups.len() >= KEPT {
        lookups.remove(0);
    }
    let found = (entries, found);
    lookups.push(Lookup {
        program: program_name.to_owned(),
        path,
        roots: roots.paths.clone(),
        at: std::time::Instant::now(),
        found: found.clone(),
    });
    found
}

/// Joins entries back into a `PATH` value.
pub(crate) fn join(entries: &[PathBuf]) -> OsString {
    std::env::join_paths(entries).unwrap_or_default()
}

/// The absolute program to spawn for `program`, or why there is none.
///
/// A bare name is looked up in `entries` (see [`safe_entries`]); an absolute path is taken as
/// it is (the caller's explicit choice); a relative path with a `/` is refused, since it would
/// name a program relative to a directory of the repository.
pub(crate) fn program(program: &str, entries: &[PathBuf], roots: &Roots) -> Result<PathBuf, String> {
    if program.is_empty() {
        return Err("the tool's argv is empty".to_owned());
    }
    let given = Path::new(program);
    if given.is_absolute() {
        return if is_executable(given) { Ok(given.to_owned()) } else { Err("not installed".to_owned()) };
    }
    if program.contains('/') {
        return Err(format!(
            "`{program}` is a relative program path, which is not resolved (it would run a program the \
             repository ships); give an absolute path to choose it"
        ));
    }
    entries
        .iter()
        .map(|entry| entry.join(program))
        .find(|candidate| is_executable(candidate) && !roots.contain(candidate))
        .ok_or_else(|| "not installed".to_owned())
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_absolute_entries_outside_the_roots_count() {
        let base = tempfile::tempdir().expect("temp dir");
        let root = base.path().join("root");
        let bin = root.join("bin");
        let outside = base.path().join("tools");
        std::fs::create_dir_all(&bin).expect("mkdir");
        std::fs::create_dir_all(&outside).expect("mkdir");
        let roots = Roots::new(&[&root]);
        let sneaky = base.path().join("tools/../root/bin");
        let path = std::env::join_paths([
            PathBuf::new(),
            PathBuf::from("."),
            PathBuf::from("bin"),
            bin.clone(),
            sneaky,
            root.clone(),
            outside.clone(),
        ])
        .expect("join");
        assert_eq!(safe_entries(Some(&path), &roots), [outside]);
    }

    #[test]
    fn relative_programs_are_refused_and_absolute_ones_kept() {
        let roots = Roots::new(&[Path::new("/nonexistent-root")]);
        let refused = program("./node_modules/.bin/prettier", &[], &roots).expect_err("refused");
        assert!(refused.contains("absolute path"), "{refused}");
        assert_eq!(program("/bin/sh", &[], &roots), Ok(PathBuf::from("/bin/sh")));
        assert_eq!(program("sh", &[PathBuf::from("/bin")], &roots), Ok(PathBuf::from("/bin/sh")));
        assert_eq!(program("editkit-no-such-tool", &[PathBuf::from("/bin")], &roots), Err("not installed".to_owned()));
    }
}
