//! Path policy: which spellings are accepted, how absolute paths are treated, what is blocked.

use std::path::{Component, Path, PathBuf};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::error::{Error, Result};

/// Longest accepted path, in bytes (Linux `PATH_MAX`).
pub(crate) const MAX_PATH_BYTES: usize = 4096;
/// Longest accepted path component, in bytes (Linux `NAME_MAX`).
pub(crate) const MAX_COMPONENT_BYTES: usize = 255;
/// How many symlinks one resolution follows before reporting a loop (Linux `MAXSYMLINKS`).
pub(crate) const MAX_LINK_FOLLOWS: usize = 40;

/// Patterns blocked by [`Policy::default`]: version-control internals and files that usually
/// hold secrets (environment files, private keys and their backups, certificate stores,
/// package-registry and cloud credentials). Public keys (`id_rsa.pub`...) stay readable:
/// the `id_*` patterns block a key's name followed by anything except a name ending in `.pub`
/// (`id_rsa.bak`, `id_ed25519~`, `id_ecdsa_sk`).
pub(crate) const DEFAULT_BLOCKED: &[&str] = &[
    "**/.git/**",
    "**/.env",
    "**/.env.*",
    "**/*.pem",
    "**/*.key",
    "**/id_rsa",
    "**/id_ed25519",
    "**/id_ecdsa",
    "**/id_dsa",
    "**/id_{rsa,dsa,ecdsa,ed25519}*[!b]",
    "**/id_{rsa,dsa,ecdsa,ed25519}*[!u]b",
    "**/id_{rsa,dsa,ecdsa,ed25519}*[!p]ub",
    "**/id_{rsa,dsa,ecdsa,ed25519}*[!.]pub",
    "**/id_{rsa,dsa,ecdsa,ed25519}{b,ub,pub}",
    "**/*.p12",
    "**/*.pfx",
    "**/*.keystore",
    "**/*.jks",
    "**/.netrc",
    "**/.npmrc",
    "**/.pypirc",
    "**/.git-credentials",
    "**/.aws/credentials",
];

/// What an absolute path argument means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum AbsolutePaths {
    /// Every absolute path is refused with `OutsideWorkspace`.
    Refuse,
    /// An absolute path under the root (its real path or the path it was opened with) is
    /// remapped to the relative path below the root; anything else is refused. The default.
    #[default]
    RemapUnderRoot,
    /// Paths under the root are remapped as with [`AbsolutePaths::RemapUnderRoot`]; any other
    /// absolute path is taken as rooted at the workspace (`/reports/a.md` names `reports/a.md`),
    /// as some agent tools expect.
    RootedAtWorkspace,
}

impl AbsolutePaths {
    /// Every word an `AbsolutePaths` displays as and `FromStr` takes: the one list the
    /// Python module offers.
    ///
    /// ```
    /// let rooted: editkit_vfs::AbsolutePaths = "rooted".parse().unwrap();
    /// assert_eq!(rooted.to_string(), "rooted");
    /// assert!(editkit_vfs::AbsolutePaths::NAMES.contains(&"rooted"));
    /// ```
    pub const NAMES: &'static [&'static str] = &["remap", "refuse", "rooted"];

    /// `remap`, `refuse` or `rooted`.
    #[must_use]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            AbsolutePaths::RemapUnderRoot => "remap",
            AbsolutePaths::Refuse => "refuse",
            AbsolutePaths::RootedAtWorkspace => "rooted",
        }
    }
}

impl std::str::FromStr for AbsolutePaths {
    type Err = String;

    fn from_str(text: &str) -> std::result::Result<Self, String> {
        match text {
            "remap" => Ok(AbsolutePaths::RemapUnderRoot),
            "refuse" => Ok(AbsolutePaths::Refuse),
            "rooted" => Ok(AbsolutePaths::RootedAtWorkspace),
            other => Err(format!("unknown absolute path mode `{other}`; choose `remap`, `refuse` or `rooted`")),
        }
    }
}

impl std::fmt::Display for AbsolutePaths {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The rules every path argument passes before anything touches the disk.
///
/// Blocked patterns follow `.gitignore` syntax, matched against the path relative to the root
/// (every ancestor is checked too, so a blocked directory blocks everything in it):
/// - a pattern without a slash matches a name at any depth (`*.secret` blocks `a/b/c.secret`);
/// - a leading slash or a slash in the middle anchors it to the root (`/notes.txt` and
///   `docs/private` block only those paths, not `a/docs/private`);
/// - a trailing slash means a directory and everything in it (`secrets/` blocks `secrets/x`
///   and `a/secrets/y`); the check is by name, before the disk is touched, so a file of that
///   name is blocked too;
/// - `*` and `?` do not cross `/`, `**` does; `[...]`, `[!...]` and `{a,b}` are understood;
///   `dir/**` blocks `dir` itself too;
/// - `\#` and `\!` start a pattern with a literal `#` or `!`.
///
/// A pattern that cannot match any path (empty, a `#` comment, a `!` negation, which would
/// unblock paths, an empty, `.` or `..` component, or a glob that does not compile) is refused
/// when the workspace is opened, rather than silently blocking nothing.
///
/// ```
/// let policy = editkit_vfs::Policy {
///     blocked: vec!["**/*.secret".into()],
///     ..Default::default()
/// };
/// assert_eq!(policy.absolute, editkit_vfs::AbsolutePaths::RemapUnderRoot);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// How absolute paths are treated. Default: [`AbsolutePaths::RemapUnderRoot`].
    pub absolute: AbsolutePaths,
    /// Patterns in `.gitignore` syntax (see [`Policy`]) naming what no operation may touch.
    /// Matched without regard to case, since a case-insensitive or case-folding file system
    /// opens `.env` for `.ENV`. Default: version-control internals and files that usually hold
    /// secrets (`.git`, `.env`, private keys, credential stores), as `Policy::default().blocked`
    /// lists them.
    pub blocked: Vec<String>,
    /// Folders, in `.gitignore` syntax, where a file with more than one name (a hard link) is
    /// read and written like any other: a package manager's links into its store, such as
    /// `node_modules/` with pnpm, Bun or Yarn's `hardlinks-global`. Everywhere else such a
    /// file is refused ([`crate::Error::HardLinked`]): another of its names may be a blocked
    /// file (`.env`) or a file outside the root, and nothing on the file says which. Blocked
    /// patterns still apply inside these folders. Default: none.
    pub hard_links_under: Vec<String>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            absolute: AbsolutePaths::default(),
            blocked: DEFAULT_BLOCKED.iter().map(|s| (*s).to_owned()).collect(),
            hard_links_under: Vec::new(),
        }
    }
}

/// A policy with its globs compiled and the root's spellings known.
#[derive(Debug)]
pub(crate) struct CompiledPolicy {
    absolute: AbsolutePaths,
    /// Every blocked pattern in `.gitignore` form; each glob's `from` holds the index of the
    /// pattern in `patterns` it was written for.
    blocked: Gitignore,
    /// The patterns as the user wrote them.
    patterns: Vec<String>,
    /// Where files with several names are served ([`Policy::hard_links_under`]).
    hard_links: Gitignore,
    roots: Vec<PathBuf>,
}

/// Compiles `.gitignore`-style patterns (matched without regard to ASCII case when
/// `case_insensitive`); each glob's `from` holds the index of the pattern it was written for.
/// `what` names them in errors.
fn compile_patterns(patterns: &[String], what: &str, case_insensitive: bool) -> Result<Gitignore> {
    // `.` makes the matcher take paths as they are (relative to the root).
    let mut builder = GitignoreBuilder::new(".");
    builder.allow_unclosed_class(false);
    builder.case_insensitive(case_insensitive).map_err(|err| Error::InvalidPath {
        path: patterns.join(", "),
        reason: format!("{what} patterns do not compile: {err}"),
    })?;
    for (idx, pattern) in patterns.iter().enumerate() {
        let invalid = |reason: String| Error::InvalidPath {
            path: pattern.clone(),
            reason: format!("not a usable {what} pattern: {reason}"),
        };
        if let Some(reason) = never_matches(pattern) {
            return Err(invalid(reason.to_owned()));
        }
        let from = Some(PathBuf::from(idx.to_string()));
        builder.add_line(from.clone(), pattern).map_err(|err| invalid(err.to_string()))?;
        // `dir/**` matches what is inside `dir`; match `dir` itself too, keeping the anchor.
        if let Some(dir) = pattern.strip_suffix("/**") {
            let anchored = if dir.contains('/') { dir.to_owned() } else { format!("/{dir}") };
            builder.add_line(from, &anchored).map_err(|err| invalid(err.to_string()))?;
        }
    }
    builder.build().map_err(|err| Error::InvalidPath {
        path: patterns.join(", "),
        reason: format!("{what} patterns do not compile: {err}"),
    })
}

/// Why a blocked pattern can never match a normalised relative path, if it cannot.
fn never_matches(pattern: &str) -> Option<&'static str> {
    if pattern.trim().is_empty() {
        return Some("it is empty");
    }
    if pattern.starts_with('#') {
        return Some("a leading `#` makes it a comment in .gitignore syntax; write `\\#` for a name starting with `#`");
    }
    if pattern.starts_with('!') {
        return Some(
            "a leading `!` would unblock paths, which blocked patterns do not do; write `\\!` for a name starting with `!`",
        );
    }
    let body = pattern.strip_prefix('/').unwrap_or(pattern);
    let body = body.strip_suffix('/').unwrap_or(body);
    if body.is_empty() {
        return Some("it names no path below the root");
    }
    if body.split('/').any(|part| part.is_empty()) {
        return Some("it has an empty component (`//`), which a path never has");
    }
    if body.split('/').any(|part| part == "." || part == "..") {
        return Some("paths are normalised before they are checked, so a `.` or `..` component never matches");
    }
    None
}

impl CompiledPolicy {
    /// `roots` are the root's spellings that absolute paths may start with.
    pub(crate) fn new(policy: &Policy, state_dir: &str, roots: Vec<PathBuf>) -> Result<Self> {
        let mut patterns: Vec<String> = policy.blocked.clone();
        patterns.push(format!("{state_dir}/**"));
        // `.ENV`, `ID_RSA` and `.GIT/config` open the real files on a case-insensitive or
        // case-folding file system. The hard-link folders are an allowance: exactly as written.
        let blocked = compile_patterns(&patterns, "blocked", true)?;
        let hard_links = compile_patterns(&policy.hard_links_under, "hard-link folder", false)?;
        Ok(CompiledPolicy { absolute: policy.absolute, blocked, patterns, hard_links, roots })
    }

    /// Whether a file with several names may be served at canonical `rel`: under a folder of
    /// [`Policy::hard_links_under`].
    pub(crate) fn hard_links_allowed(&self, rel: &str) -> bool {
        // Each ancestor checked as a directory, as blocked patterns are.
        !rel.is_empty() && prefixes(rel).any(|prefix| self.hard_links.matched(prefix, true).is_ignore())
    }

    /// The pattern blocking exactly `rel` (ancestors not checked), as the user wrote it. The
    /// matcher folds ASCII case only; a name with other letters is also checked case-folded,
    /// since a file system that folds Unicode case (ext4 or f2fs `casefold`, APFS) opens
    /// `id_rsa` for `id_r\u{17f}a` (long s) and `x.key` for `x.\u{212a}ey` (Kelvin sign).
    fn pattern_for(&self, rel: &str) -> Option<&str> {
        if let Some(pattern) = self.pattern_for_spelling(rel) {
            return Some(pattern);
        }
        if rel.is_ascii() {
            return None;
        }
        let folded = case_folded(rel);
        (folded != rel).then(|| self.pattern_for_spelling(&folded)).flatten()
    }

    fn pattern_for_spelling(&self, rel: &str) -> Option<&str> {
        // Checked as a directory: the check is by name, so `secrets/` blocks a file named
        // `secrets` too.
        match self.blocked.matched(rel, true) {
            Match::Ignore(glob) => {
                let idx = glob.from().and_then(|from| from.to_str()).and_then(|idx| idx.parse::<usize>().ok());
                Some(idx.and_then(|idx| self.patterns.get(idx)).map_or(glob.original(), String::as_str))
            }
            Match::None | Match::Whitelist(_) => None,
        }
    }

    /// The blocking pattern for a normalised relative path, checking every ancestor too.
    pub(crate) fn blocked_by(&self, rel: &str) -> Option<&str> {
        if rel.is_empty() {
            return None;
        }
        prefixes(rel).find_map(|prefix| self.pattern_for(prefix))
    }

    /// Whether `rel` itself matches a blocked glob, ancestors not checked: for walkers that
    /// checked every directory on the way down already.
    pub(crate) fn blocked_exact(&self, rel: &str) -> bool {
        !rel.is_empty() && self.pattern_for(rel).is_some()
    }

    /// Checks the spelling of `input` and normalises it lexically to a relative path
    /// (`a/b/c`, `""` for the root). `..` is resolved lexically and may not climb above the
    /// root.
    pub(crate) fn normalise(&self, input: &str) -> Result<String> {
        let invalid = |reason: &str| Error::InvalidPath { path: input.to_owned(), reason: reason.to_owned() };
        if input.len() > MAX_PATH_BYTES {
            return Err(invalid("longer than 4096 bytes"));
        }
        if input.contains('\0') {
            return Err(invalid("contains a NUL byte"));
        }
        if input.starts_with('~') {
            return Err(invalid("`~` is not expanded; give a path relative to the workspace root"));
        }
        if input.starts_with("\\\\") || input.starts_with("//") {
            return Err(invalid("UNC and `//` network paths are not supported"));
        }
        let bytes = input.as_bytes();
        if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
            return Err(invalid("Windows drive paths are not supported; give a path relative to the workspace root"));
        }
        if input.contains('\\') {
            return Err(invalid("backslashes are not separators here; use `/`"));
        }
        let relative = if input.starts_with('/') { self.relative_from_absolute(input)? } else { input.to_owned() };
        let mut parts: Vec<&str> = Vec::new();
        for part in relative.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    if parts.pop().is_none() {
                        return Err(Error::OutsideWorkspace { path: input.to_owned() });
                    }
                }
                part if part.len() > MAX_COMPONENT_BYTES => {
                    return Err(invalid("a path component is longer than 255 bytes"));
                }
                part => parts.push(part),
            }
        }
        Ok(parts.join("/"))
    }

    /// Whether absolute `path` (`.` and `..` applied lexically) is under one of the root's
    /// spellings.
    pub(crate) fn owns(&self, path: &Path) -> bool {
        let absolute = lexical_absolute(path);
        self.roots.iter().any(|root| absolute.starts_with(root))
    }

    fn relative_from_absolute(&self, input: &str) -> Result<String> {
        let outside = || Error::OutsideWorkspace { path: input.to_owned() };
        if self.absolute == AbsolutePaths::Refuse {
            return Err(outside());
        }
        let absolute = lexical_absolute(Path::new(input));
        for root in &self.roots {
            if let Ok(rest) = absolute.strip_prefix(root) {
                return rest.to_str().map(str::to_owned).ok_or_else(outside);
            }
        }
        match self.absolute {
            AbsolutePaths::RootedAtWorkspace => Ok(input.trim_start_matches('/').to_owned()),
            _ => Err(outside()),
        }
    }
}

/// `text` with its letters case-folded as far as the standard library can (upper then lower
/// case: the long s becomes `s`, the Kelvin sign `k`), for matching against patterns that
/// ignore ASCII case.
fn case_folded(text: &str) -> String {
    text.chars().flat_map(char::to_uppercase).flat_map(char::to_lowercase).collect()
}

/// `a`, `a/b`, `a/b/c` for `a/b/c`: the path and its ancestors, shortest first.
fn prefixes(rel: &str) -> impl Iterator<Item = &str> {
    rel.match_indices('/').map(|(i, _)| &rel[..i]).chain(std::iter::once(rel))
}

/// Normalises an absolute path lexically (`..` above `/` stays at `/`).
pub(crate) fn lexical_absolute(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::Normal(part) => out.push(part),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    fn policy(absolute: AbsolutePaths) -> CompiledPolicy {
        let policy = Policy { absolute, ..Policy::default() };
        CompiledPolicy::new(&policy, ".editkit", vec![PathBuf::from("/x/root")]).unwrap()
    }

    #[test]
    fn prefix_sibling_is_outside() {
        let err = policy(AbsolutePaths::RemapUnderRoot).normalise("/x/root_evil/a").unwrap_err();
        assert_eq!(err.error_kind(), ErrorKind::OutsideWorkspace);
        assert_eq!(policy(AbsolutePaths::RemapUnderRoot).normalise("/x/root/a/../b").unwrap(), "b");
    }

    #[test]
    fn rooted_mode_takes_foreign_absolute_paths_as_relative() {
        assert_eq!(policy(AbsolutePaths::RootedAtWorkspace).normalise("/reports/a.md").unwrap(), "reports/a.md");
    }

    #[test]
    fn ancestors_are_checked_against_blocked_globs() {
        let policy = policy(AbsolutePaths::Refuse);
        assert_eq!(policy.blocked_by(".git"), Some("**/.git/**"));
        assert_eq!(policy.blocked_by(".git/objects/ab"), Some("**/.git/**"));
        // A nested clone's hooks are as dangerous as the root's.
        assert_eq!(policy.blocked_by("vendor/x/.git/hooks/pre-commit"), Some("**/.git/**"));
        assert_eq!(policy.blocked_by("vendor/x/.git"), Some("**/.git/**"));
        assert_eq!(policy.blocked_by("src/.gitignore"), None);
        assert_eq!(policy.blocked_by("src/.env"), Some("**/.env"));
        assert_eq!(policy.blocked_by("src/main.rs"), None);
    }
}
