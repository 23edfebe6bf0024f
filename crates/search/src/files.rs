//! Listing the files under a directory that match a glob, with the search's ignore rules.

use editkit_vfs::Workspace;
use globset::{GlobBuilder, GlobMatcher};

use crate::error::{Error, Result};
use crate::output::{FileList, Skipped};
use crate::rules::{Filter, MAX_GLOB_BYTES, WalkOptions, below};
use crate::search::{MAX_SKIPPED, display_dir, open_start};
use crate::walk::{FileRef, Visitor, walk};

/// Default for [`FilesBuilder::max_files`].
pub const DEFAULT_MAX_FILES: usize = 1000;

/// Lists the files under a directory whose path relative to it matches a glob, visiting the
/// same files a search would (ignore files, hidden files and links as the [`WalkOptions`]
/// say). In the glob `*` does not cross `/` and `**` does (`**/*.py` finds Python files at any
/// depth, `*.py` only directly in the directory); `{a,b}` and `[ab]` work. The paths are
/// relative to the workspace root, sorted, at most [`FilesBuilder::max_files`] of them (the
/// first by path; more set `truncated`).
///
/// ```
/// # fn main() -> Result<(), editkit_search::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::create_dir_all(dir.path().join("src")).unwrap();
/// std::fs::write(dir.path().join("src/app.py"), "").unwrap();
/// std::fs::write(dir.path().join("notes.md"), "").unwrap();
/// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
/// let listed = editkit_search::Files::builder("**/*.py").max_files(100).run(&workspace, ".")?;
/// assert_eq!(listed.files, ["src/app.py"]);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Files {
    glob: String,
    matcher: GlobMatcher,
    options: WalkOptions,
    max_files: usize,
}

/// Configures a [`Files`] listing.
#[derive(Debug, Clone)]
pub struct FilesBuilder {
    glob: String,
    options: WalkOptions,
    max_files: usize,
}

impl FilesBuilder {
    /// How the walk treats ignore files, hidden files and links. Default: as a search does.
    pub fn walk_options(&mut self, options: WalkOptions) -> &mut Self {
        self.options = options;
        self
    }

    /// Most paths listed. Default: [`DEFAULT_MAX_FILES`].
    pub fn max_files(&mut self, limit: usize) -> &mut Self {
        self.max_files = limit;
        self
    }

    /// Compiles the glob.
    ///
    /// # Errors
    /// [`Error::InvalidGlob`] for an empty or absolute glob, one with `..`, or one that does
    /// not compile.
    pub fn build(&self) -> Result<Files> {
        Ok(Files {
            glob: self.glob.clone(),
            matcher: compile(&self.glob)?,
            options: self.options.clone(),
            max_files: self.max_files,
        })
    }

    /// Builds and runs the listing in one step; see [`Files::run`].
    ///
    /// # Errors
    /// As [`FilesBuilder::build`] and [`Files::run`].
    pub fn run(&self, workspace: &Workspace, path: &str) -> Result<FileList> {
        self.build()?.run(workspace, path)
    }

    /// Builds and runs the listing under `control`; see [`Files::run_with`].
    ///
    /// # Errors
    /// As [`FilesBuilder::build`] and [`Files::run`].
    pub fn run_with(&self, workspace: &Workspace, path: &str, control: &crate::Control) -> Result<FileList> {
        self.build()?.run_with(workspace, path, control)
    }
}

impl Files {
    /// A builder listing the files that match `glob`.
    pub fn builder(glob: impl Into<String>) -> FilesBuilder {
        FilesBuilder { glob: glob.into(), options: WalkOptions::default(), max_files: DEFAULT_MAX_FILES }
    }

    /// Lists the matching files under the directory `path`.
    ///
    /// # Errors
    /// Workspace errors for `path` (which must be a directory) as [`Error::Vfs`].
    pub fn run(&self, workspace: &Workspace, path: &str) -> Result<FileList> {
        self.run_with(workspace, path, &crate::Control::new())
    }

    /// Lists as [`Files::run`] does, under `control` (see [`crate::Control`]): cancelled, it
    /// answers the files found so far with `truncated` set; progress counts the files visited.
    ///
    /// # Errors
    /// As [`Files::run`].
    pub fn run_with(&self, workspace: &Workspace, path: &str, control: &crate::Control) -> Result<FileList> {
        let matcher = self.matcher.clone();
        let glob = &self.glob;
        let options = &self.options;
        let max_files = self.max_files;
        let rel = workspace.resolve(path)?;
        // Refuses a file or a missing path with the workspace's own error.
        drop(workspace.open_dir(path)?);
        let filter = Filter::new(options.clone(), &[], &[], &[])?;
        let (start, listing, rules) = open_start(workspace, &rel, options)?;
        let visitor = ListVisitor { matcher, start_rel: &rel, max_files };
        let outputs = walk(start, listing, rules, &filter, &visitor, options.worker_count(), control);
        let mut files = Vec::new();
        let mut skipped: Vec<Skipped> = Vec::new();
        let mut truncated = control.is_cancelled();
        for output in outputs {
            truncated |= output.state.left_out;
            files.extend(output.state.kept);
            skipped.extend(output.skipped);
        }
        files.sort_unstable();
        if files.len() > max_files {
            files.truncate(max_files);
            truncated = true;
        }
        skipped.retain(|entry| visitor.matcher.is_match(below(&rel, &entry.path)));
        skipped.sort_by(|a, b| a.path.cmp(&b.path));
        if skipped.len() > MAX_SKIPPED {
            skipped.truncate(MAX_SKIPPED);
            truncated = true;
        }
        Ok(FileList { pattern: glob.to_owned(), directory: display_dir(&rel), files, skipped, truncated })
    }
}

fn compile(glob: &str) -> Result<GlobMatcher> {
    let invalid = |message: String| Error::InvalidGlob { glob: glob.to_owned(), message };
    if glob.is_empty() {
        return Err(invalid("the glob is empty; use `**` for every file".into()));
    }
    if glob.len() > MAX_GLOB_BYTES {
        return Err(invalid(format!("the glob is longer than {MAX_GLOB_BYTES} bytes")));
    }
    if glob.starts_with('/') || glob.split('/').any(|part| part == "..") {
        return Err(invalid("globs are relative to the directory and may not contain `..`".into()));
    }
    if glob.contains('\0') {
        return Err(invalid("the glob contains a NUL byte".into()));
    }
    let glob = glob.strip_prefix("./").unwrap_or(glob);
    GlobBuilder::new(glob)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map(|compiled| compiled.compile_matcher())
        .map_err(|err| invalid(err.kind().to_string()))
}

struct ListVisitor<'a> {
    matcher: GlobMatcher,
    start_rel: &'a str,
    max_files: usize,
}

/// One worker's matching files: the first `max_files` by path it found (the first of all are
/// among the workers' firsts), so a listing holds at most that many per worker.
struct Firsts {
    /// A max-heap: the last path leaves when one more comes in.
    kept: std::collections::BinaryHeap<String>,
    /// Whether a matching file was left out.
    left_out: bool,
}

impl Visitor for ListVisitor<'_> {
    type State = Firsts;

    fn state(&self) -> Firsts {
        Firsts { kept: std::collections::BinaryHeap::new(), left_out: false }
    }

    fn file(&self, state: &mut Firsts, file: &FileRef<'_, '_>) {
        if self.matcher.is_match(below(self.start_rel, file.rel)) {
            state.kept.push(file.rel.to_owned());
            if state.kept.len() > self.max_files {
                state.kept.pop();
                state.left_out = true;
            }
        }
    }
}
