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

/// The workspace roots, as given and as their real paths: no program is taken from beneath one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roots {
    paths: Vec<PathBuf>,
}

impl Roots {
    /// The roots `roots`, kept lexically (`.` and `..` applied) and by their real paths.
    #[must_use]
    pub fn new(roots: &[&Path]) -> Roots {
        let mut paths = Vec::new();
        for root in roots {
            paths.push(lexical(root));
            if let Ok(real) = root.canonicalize() {
                paths.push(real);
            }
        }
        Roots { paths }
    }

    /// The roots, lexically and by their real paths.
    pub(crate) fn paths(&self) -> Vec<PathBuf> {
        self.paths.clone()
    }

    /// Whether `path` (absolute) is a root or lies beneath one, lexically or by its real path.
    #[must_use]
    pub fn contain(&self, path: &Path) -> bool {
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
fn safe_entries(path: Option<&OsStr>, roots: &Roots) -> Vec<PathBuf> {
    let Some(path) = path else { return Vec::new() };
    std::env::split_paths(path).filter(|entry| entry.is_absolute() && entry.is_dir() && !roots.contain(entry)).collect()
}

/// Why no program was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotFound {
    /// The argv names no program.
    #[error("the tool's argv is empty")]
    Empty,
    /// A relative path such as `./node_modules/.bin/prettier`: it would name a program the
    /// repository ships, relative to one of its folders.
    #[error(
        "`{program}` is a relative program path, which is not resolved (it would run a program the \
         repository ships); give an absolute path to choose it"
    )]
    Relative {
        /// The program as given.
        program: String,
    },
    /// No executable file of that name in a usable `PATH` entry, or the absolute path given
    /// is not an executable file.
    #[error("not installed")]
    NotInstalled,
}

/// A program found by [`find_program`]: where it is, and the `PATH` its child gets (the same
/// usable entries, so a `#!/usr/bin/env node` script finds its interpreter under the same rule).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// The absolute path to spawn.
    pub path: PathBuf,
    /// The child's `PATH`: the usable entries of this process's `PATH`.
    pub search_path: OsString,
}

/// How long a lookup on `PATH` ([`find_program`]) is reused: a program installed or removed
/// while a long-lived process runs is seen within this, and a process that checks a file on
/// every edit does not search `PATH` (resolving each entry's real path) every time.
const LOOKUP_REUSED_FOR: std::time::Duration = std::time::Duration::from_secs(5);

/// A lookup of one program, as [`find_program`] keeps it.
struct Lookup {
    program: String,
    path: Option<OsString>,
    roots: Vec<PathBuf>,
    at: std::time::Instant,
    found: Result<Program, NotFound>,
}

/// Finds `program` as editkit runs programs: a bare name in the absolute entries of this
/// process's `PATH` that exist and lie outside every root (an empty, `.` or relative entry, or
/// one inside a root, is passed over, and so is a candidate whose real path leads into a
/// root); an absolute path as it is (the caller's explicit choice); a relative path with a `/`
/// is refused. Lookups are reused for a few seconds while `PATH` and the roots stay the same;
/// a program found is checked to be executable still on every use.
///
/// # Errors
/// [`NotFound`] says why there is no program to run.
///
/// # Security
/// The operating system's own lookup (`execvp`) would let a repository ship the program that
/// runs; spawn the [`Program::path`] returned here instead of a bare name.
pub fn find_program(program: &str, roots: &Roots) -> Result<Program, NotFound> {
    find_program_on(std::env::var_os("PATH").as_deref(), program, roots)
}

/// [`find_program`] with `path` in place of this process's `PATH` (`None`: no `PATH`).
///
/// # Errors
/// As [`find_program`].
pub fn find_program_on(path: Option<&OsStr>, program: &str, roots: &Roots) -> Result<Program, NotFound> {
    static LOOKUPS: std::sync::Mutex<Vec<Lookup>> = std::sync::Mutex::new(Vec::new());
    /// Distinct lookups kept (programs times root sets); the oldest goes first.
    const KEPT: usize = 32;
    let path = path.map(OsStr::to_owned);
    let mut lookups = crate::lock(&LOOKUPS);
    lookups.retain(|kept| kept.at.elapsed() < LOOKUP_REUSED_FOR);
    if let Some(kept) =
        lookups.iter().find(|kept| kept.program == program && kept.path == path && kept.roots == roots.paths)
        && kept.found.as_ref().ok().is_none_or(|found| is_executable(&found.path))
    {
        return kept.found.clone();
    }
    let entries = safe_entries(path.as_deref(), roots);
    let found = resolve(program, &entries, roots)
        .map(|found| Program { path: found, search_path: std::env::join_paths(&entries).unwrap_or_default() });
    lookups.retain(|kept| !(kept.program == program && kept.path == path && kept.roots == roots.paths));
    if lookups.len() >= KEPT {
        lookups.remove(0);
    }
    lookups.push(Lookup {
        program: program.to_owned(),
        path,
        roots: roots.paths.clone(),
        at: std::time::Instant::now(),
        found: found.clone(),
    });
    found
}

/// The absolute program to spawn for `program` among `entries` (see [`safe_entries`]).
fn resolve(program: &str, entries: &[PathBuf], roots: &Roots) -> Result<PathBuf, NotFound> {
    if program.is_empty() {
        return Err(NotFound::Empty);
    }
    let given = Path::new(program);
    if given.is_absolute() {
        return if is_executable(given) { Ok(given.to_owned()) } else { Err(NotFound::NotInstalled) };
    }
    if program.contains('/') {
        return Err(NotFound::Relative { program: program.to_owned() });
    }
    entries
        .iter()
        .map(|entry| entry.join(program))
        .find(|candidate| is_executable(candidate) && !roots.contain(candidate))
        .ok_or(NotFound::NotInstalled)
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
        let refused = resolve("./node_modules/.bin/prettier", &[], &roots).expect_err("refused");
        assert!(refused.to_string().contains("absolute path"), "{refused}");
        assert_eq!(resolve("/bin/sh", &[], &roots), Ok(PathBuf::from("/bin/sh")));
        assert_eq!(resolve("sh", &[PathBuf::from("/bin")], &roots), Ok(PathBuf::from("/bin/sh")));
        assert_eq!(resolve("editkit-no-such-tool", &[PathBuf::from("/bin")], &roots), Err(NotFound::NotInstalled));
    }
}
