//! search_files, search_code and glob through editkit-search (the `search` feature).

use editkit_search as search;

use crate::error::Result;
use crate::toolkit::Toolkit;
use crate::types::*;

/// Most paths glob returns.
const MAX_GLOB_FILES: usize = 10_000;

impl Toolkit {
    /// Searches file contents under a directory with ripgrep's engine, inside the sandbox.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("file1.py"), "# TODO: fix\n").unwrap();
    /// std::fs::write(dir.path().join("file2.py"), "done = True\n").unwrap();
    /// let toolkit = editkit::Toolkit::open(dir.path(), Default::default())?;
    /// let found = toolkit.search_files(editkit::SearchFilesRequest::new("TODO").file_extension(".py"))?;
    /// assert_eq!(found.files_with_matches, 1);
    /// assert_eq!(found.results[0].file, "file1.py");
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// `invalid_args` for a bad regex or glob (with the regex crate's explanation); path
    /// errors for the directory.
    pub fn search_files(&self, request: SearchFilesRequest) -> Result<SearchFilesResponse> {
        self.search_files_with(request, &search::Control::new())
    }

    /// search_files under `control`: cancelled, it answers what it found so far with
    /// `truncated` set; it reports progress as the control asks.
    ///
    /// # Errors
    /// As [`Toolkit::search_files`].
    pub fn search_files_with(
        &self,
        request: SearchFilesRequest,
        control: &search::Control,
    ) -> Result<SearchFilesResponse> {
        let (_, workspace) = self.route(&request.path);
        let mut builder = search::Search::builder(request.pattern.clone());
        builder
            .literal(!request.regex)
            .case(match request.case_sensitive {
                Some(true) => search::Case::Sensitive,
                Some(false) => search::Case::Insensitive,
                None => search::Case::Smart,
            })
            .max_results(request.max_results)
            .max_bytes(usize::try_from(self.options().max_call_bytes).unwrap_or(usize::MAX))
            .context(request.context_lines)
            .walk_options(walk_options(request.hidden, request.ignore_rules, request.follow_links));
        if let Some(lines) = request.before_context {
            builder.before_context(lines);
        }
        if let Some(lines) = request.after_context {
            builder.after_context(lines);
        }
        if let Some(glob) = &request.glob {
            builder.glob(glob.clone());
        }
        if let Some(extension) = &request.file_extension {
            builder.extension(extension.clone());
        }
        let results = builder.build()?.run_with(workspace, &request.path, control)?;
        Ok(SearchFilesResponse {
            pattern: results.pattern,
            directory: results.directory,
            files_searched: results.files_searched as u64,
            files_with_matches: results.files_with_matches as u64,
            results: results
                .results
                .into_iter()
                .map(|file| SearchFileResult {
                    file: file.file,
                    matches: file
                        .matches
                        .into_iter()
                        .map(|m| SearchMatch {
                            line: m.line,
                            column: m.column as u64,
                            end_column: m.end_column as u64,
                            content: m.content,
                            before: m.before,
                            after: m.after,
                        })
                        .collect(),
                    encoding: file.encoding,
                })
                .collect(),
            skipped: results.skipped.into_iter().map(|s| SkippedFile { path: s.path, reason: s.reason }).collect(),
            truncated: results.truncated,
        })
    }

    /// search_files with Python files as the default filter.
    ///
    /// # Errors
    /// As [`Toolkit::search_files`].
    pub fn search_code(&self, request: SearchFilesRequest) -> Result<SearchFilesResponse> {
        self.search_code_with(request, &search::Control::new())
    }

    /// search_code under `control`, as [`Toolkit::search_files_with`].
    ///
    /// # Errors
    /// As [`Toolkit::search_files`].
    pub fn search_code_with(
        &self,
        mut request: SearchFilesRequest,
        control: &search::Control,
    ) -> Result<SearchFilesResponse> {
        if request.file_extension.is_none() && request.glob.is_none() {
            request.file_extension = Some(".py".into());
        }
        self.search_files_with(request, control)
    }

    /// Files under a directory matching a glob, honouring .gitignore like search_files.
    ///
    /// # Errors
    /// `invalid_args` for a bad pattern; path errors.
    pub fn glob(&self, request: GlobRequest) -> Result<GlobResponse> {
        self.glob_with(request, &search::Control::new())
    }

    /// glob under `control`, as [`Toolkit::search_files_with`].
    ///
    /// # Errors
    /// As [`Toolkit::glob`].
    pub fn glob_with(&self, request: GlobRequest, control: &search::Control) -> Result<GlobResponse> {
        let (_, workspace) = self.route(&request.path);
        let listed = search::Files::builder(request.pattern.as_str())
            .max_files(MAX_GLOB_FILES)
            .walk_options(walk_options(request.hidden, request.ignore_rules, request.follow_links))
            .run_with(workspace, &request.path, control)?;
        Ok(GlobResponse { pattern: request.pattern, matches: listed.files, truncated: listed.truncated })
    }
}

/// The walk a search or glob asks for: `hidden` takes dot files in, `ignore_rules: false` leaves
/// `.gitignore` and `.ignore` files unread, `follow_links` takes files linked inside the root.
/// The workspace's blocked paths stay out either way (the walk never lists them), and so does
/// anything behind a link leading out.
fn walk_options(hidden: bool, ignore_rules: bool, follow_links: bool) -> search::WalkOptions {
    search::WalkOptions {
        hidden,
        git_ignore: ignore_rules,
        ignore_files: ignore_rules,
        follow_links,
        ..Default::default()
    }
}
