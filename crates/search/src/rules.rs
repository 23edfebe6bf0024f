//! Which entries a walk visits: ripgrep's ignore rules, read through directory handles.
//!
//! For every entry, in this order (as ripgrep's `ignore` crate decides):
//! 1. include/exclude globs (relative to the searched directory, gitignore syntax): an exclude
//!    match leaves the entry out, an include match takes it in whatever the other rules say;
//!    with include globs, a file that matches none is left out;
//! 2. `.ignore` files, then `.gitignore` files, nearest directory first: the first rule that
//!    matches decides (`!pattern` takes an entry back in);
//! 3. hidden names (starting with `.`) are left out unless a rule above took them in;
//! 4. for files, the extension filter.
//!
//! `.gitignore` files count only inside a git repository, that is when a directory from the
//! workspace root down to the entry holds a `.git` entry (ripgrep's `require_git`). Ignore
//! files above the workspace root, `.git/info/exclude` (blocked by the workspace policy) and the
//! global git excludes file are not read: nothing outside the root is.

use std::path::Path;
use std::sync::Arc;

use editkit_vfs::{EntryKind, SkipReason as VfsSkip, WorkspaceDir};
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::overrides::{Override, OverrideBuilder};

use crate::error::{Error, Result};

/// Which files a walk visits. The defaults are ripgrep's.
///
/// ```
/// let options = editkit_search::WalkOptions { hidden: true, ..Default::default() };
/// assert!(options.git_ignore);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkOptions {
    /// Visit hidden files and directories (names starting with `.`). Default: `false`.
    pub hidden: bool,
    /// Honour `.gitignore` files. Default: `true`.
    pub git_ignore: bool,
    /// Honour `.ignore` files (ripgrep's own ignore files; they apply outside git too).
    /// Default: `true`.
    pub ignore_files: bool,
    /// Apply `.gitignore` files only inside a git repository: a `.git` entry in a directory
    /// between the workspace root and the file. Default: `true`, as ripgrep. Nothing above
    /// the root is looked at, so for a workspace root inside a larger repository (whose `.git`
    /// is above the root) set this to `false` to have its `.gitignore` files honoured.
    pub require_git: bool,
    /// Search files reached through symlinks that stay inside the root (reported under the
    /// link's path). Linked directories are never entered, so a link loop cannot trap the walk,
    /// and links leading outside are never followed. Default: `false`, as ripgrep.
    pub follow_links: bool,
    /// Worker threads; `0` picks the number of available cores. Default: `0`.
    pub threads: usize,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            hidden: false,
            git_ignore: true,
            ignore_files: true,
            require_git: true,
            follow_links: false,
            threads: 0,
        }
    }
}

impl WalkOptions {
    /// The number of workers to run.
    pub(crate) fn worker_count(&self) -> usize {
        if self.threads > 0 {
            return self.threads.min(MAX_THREADS);
        }
        // Asking costs a few system calls (cgroup files): ask once per process.
        static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        (*CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))).min(MAX_THREADS)
    }
}

/// More workers than this only add contention on the job queue.
const MAX_THREADS: usize = 64;

/// The walk's filters, compiled once per search.
#[derive(Debug)]
pub(crate) struct Filter {
    pub(crate) options: WalkOptions,
    overrides: Override,
    /// Extensions without the leading dot; empty means any.
    extensions: Vec<String>,
}

impl Filter {
    /// Compiles include and exclude globs (gitignore syntax, relative to the searched directory)
    /// and normalises extensions (`.py` or `py`).
    pub(crate) fn new(
        options: WalkOptions,
        include: &[String],
        exclude: &[String],
        extensions: &[String],
    ) -> Result<Filter> {
        let mut builder = OverrideBuilder::new(".");
        for (glob, negate) in include.iter().map(|g| (g, false)).chain(exclude.iter().map(|g| (g, true))) {
            check_glob(glob)?;
            let line = if negate { format!("!{glob}") } else { glob.clone() };
            builder.add(&line).map_err(|e| Error::InvalidGlob { glob: glob.clone(), message: glob_message(&e) })?;
        }
        let overrides = builder.build().map_err(|e| Error::InvalidGlob {
            glob: include.iter().chain(exclude).cloned().collect::<Vec<_>>().join(", "),
            message: glob_message(&e),
        })?;
        let mut normalised = Vec::with_capacity(extensions.len());
        for extension in extensions {
            let bare = extension.strip_prefix('.').unwrap_or(extension);
            if bare.is_empty() || bare.contains(['/', '\\', '\0', '*', '?', '[', '{']) {
                return Err(Error::InvalidArgs {
                    name: "extension",
                    message: format!("`{extension}` is not a file extension; give one like `py` or `.py`"),
                });
            }
            normalised.push(bare.to_owned());
        }
        Ok(Filter { options, overrides, extensions: normalised })
    }

    /// Whether the file name passes the extension filter.
    fn extension_ok(&self, name: &str) -> bool {
        self.extensions.is_empty()
            || self.extensions.iter().any(|ext| {
                name.len() > ext.len() + 1
                    && name.ends_with(ext.as_str())
                    && name.as_bytes().get(name.len() - ext.len() - 1) == Some(&b'.')
            })
    }

    /// Whether the walk visits an entry. `below_start` is its path relative to the searched
    /// directory, `rel` relative to the root; `rules` are those of its directory.
    pub(crate) fn admits(&self, rules: &DirRules, name: &str, rel: &str, below_start: &str, is_dir: bool) -> bool {
        let mut taken_in = false;
        if !self.overrides.is_empty() {
            match self.overrides.matched(Path::new(below_start), is_dir) {
                Match::Ignore(_) => return false,
                Match::Whitelist(_) => taken_in = true,
                Match::None => {}
            }
        }
        if !taken_in {
            match rules.matched(rel, is_dir) {
                Match::Ignore(_) => return false,
                Match::Whitelist(_) => taken_in = true,
                Match::None => {}
            }
        }
        if !taken_in && !self.options.hidden && name.starts_with('.') {
            return false;
        }
        is_dir || self.extension_ok(name)
    }
}

fn check_glob(glob: &str) -> Result<()> {
    let invalid = |message: &str| Err(Error::InvalidGlob { glob: glob.to_owned(), message: message.to_owned() });
    if glob.is_empty() || glob == "!" {
        return invalid("the glob is empty");
    }
    if glob.contains('\0') {
        return invalid("the glob contains a NUL byte");
    }
    if glob.len() > MAX_GLOB_BYTES {
        return invalid("the glob is longer than 4096 bytes");
    }
    Ok(())
}

/// Longest glob accepted (Linux `PATH_MAX`).
pub(crate) const MAX_GLOB_BYTES: usize = 4096;

fn glob_message(err: &ignore::Error) -> String {
    // ignore's messages name the glob again; keep the explanation only.
    let text = err.to_string();
    match text.rsplit_once(": ") {
        Some((_, reason)) if !reason.is_empty() => reason.to_owned(),
        _ => text,
    }
}

/// The ignore rules in force in one directory: its own ignore files plus its parents'.
#[derive(Debug)]
pub(crate) struct DirRules {
    /// The directory relative to the root (`""` for the root).
    rel: String,
    ignore: Option<Gitignore>,
    gitignore: Option<Gitignore>,
    /// Whether this directory or one above it (up to the root) holds `.git`.
    in_git: bool,
    parent: Option<Arc<DirRules>>,
}

impl DirRules {
    /// Rules of a directory, given its parent's and its listing: reads `.ignore` and
    /// `.gitignore` through the directory handle when they are listed.
    pub(crate) fn for_dir(
        options: &WalkOptions,
        dir: &WorkspaceDir<'_>,
        parent: Option<Arc<DirRules>>,
        names: &DirNames,
    ) -> Arc<DirRules> {
        let in_git = names.has_git || parent.as_ref().is_some_and(|p| p.in_git);
        let ignore = if options.ignore_files && names.has_ignore { read_rules(dir, ".ignore") } else { None };
        let gitignore = if options.git_ignore && names.has_gitignore && (in_git || !options.require_git) {
            read_rules(dir, ".gitignore")
        } else {
            None
        };
        // Without rules of its own, a directory shares its parent's node (most do).
        if ignore.is_none()
            && gitignore.is_none()
            && let Some(parent) = &parent
            && parent.in_git == in_git
        {
            return Arc::clone(parent);
        }
        Arc::new(DirRules { rel: dir.rel().to_owned(), ignore, gitignore, in_git, parent })
    }

    /// The decision of the nearest matching rule: `.ignore` files first, then `.gitignore`.
    fn matched(&self, rel: &str, is_dir: bool) -> Match<()> {
        fn ignore_file(rules: &DirRules) -> Option<&Gitignore> {
            rules.ignore.as_ref()
        }
        fn gitignore_file(rules: &DirRules) -> Option<&Gitignore> {
            rules.gitignore.as_ref()
        }
        for pick in [ignore_file as fn(&DirRules) -> Option<&Gitignore>, gitignore_file] {
            let mut node = Some(self);
            while let Some(rules) = node {
                if let Some(matcher) = pick(rules) {
                    let below = below(&rules.rel, rel);
                    match matcher.matched(Path::new(below), is_dir) {
                        Match::Ignore(_) => return Match::Ignore(()),
                        Match::Whitelist(_) => return Match::Whitelist(()),
                        Match::None => {}
                    }
                }
                node = rules.parent.as_deref();
            }
        }
        Match::None
    }
}

/// `rel` relative to the directory `dir` (both relative to the root, `rel` below `dir`).
pub(crate) fn below<'a>(dir: &str, rel: &'a str) -> &'a str {
    if dir.is_empty() { rel } else { rel.get(dir.len() + 1..).unwrap_or(rel) }
}

/// What a directory listing says about ignore files and git.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct DirNames {
    pub(crate) has_git: bool,
    pub(crate) has_ignore: bool,
    pub(crate) has_gitignore: bool,
}

impl DirNames {
    /// Looks at a listing from [`WorkspaceDir::entries_with_skipped`]: `.git` counts whether it
    /// is listed or left out as blocked (it is blocked by the default policy).
    pub(crate) fn scan(entries: &[editkit_vfs::Entry], skipped: &[editkit_vfs::SkippedEntry]) -> DirNames {
        let mut names = DirNames::default();
        for entry in entries {
            match entry.name.as_str() {
                ".git" => names.has_git = true,
                ".ignore" => names.has_ignore = entry.kind == Some(EntryKind::File),
                ".gitignore" => names.has_gitignore = entry.kind == Some(EntryKind::File),
                _ => {}
            }
        }
        names.has_git |= skipped.iter().any(|s| s.name == ".git" && s.reason == VfsSkip::Blocked);
        names
    }
}

/// Largest ignore file read; a bigger one is ignored rather than slowing every search.
const MAX_IGNORE_FILE_BYTES: usize = 1 << 20;

fn read_rules(dir: &WorkspaceDir<'_>, name: &str) -> Option<Gitignore> {
    let bytes = dir.read(name).ok()?;
    if bytes.len() > MAX_IGNORE_FILE_BYTES {
        return None;
    }
    let text = String::from_utf8_lossy(&bytes);
    // Paths are matched relative to the ignore file's directory, so the matcher's root is `.`
    // (nothing is stripped from the candidate path).
    let mut builder = GitignoreBuilder::new(".");
    for line in text.lines() {
        // A malformed line is skipped, as git and ripgrep do.
        let _ = builder.add_line(None, line);
    }
    let matcher = builder.build().ok()?;
    if matcher.is_empty() { None } else { Some(matcher) }
}
