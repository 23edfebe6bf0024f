//! Tools that need code awareness (the `analyze` feature).

use editkit_vfs::WriteOptions;

use crate::analysis;
use crate::catalog::Tool;
use crate::error::{Error, Result};
use crate::toolkit::Toolkit;
use crate::types::*;

/// Sections update_project_index manages, in the order they are created.
const INDEX_SECTIONS: [&str; 3] = ["Description", "Structure", "Instructions"];

impl Toolkit {
    /// Edits a Python file like edit_file, refusing an edit that introduces syntax errors.
    /// On a dry run, `would_change` says whether the edit would change the file.
    ///
    /// # Errors
    /// `syntax_error` with the new errors; as [`Toolkit::edit_file`].
    pub fn edit_python_file(&self, request: EditPythonFileRequest) -> Result<EditPythonFileResponse> {
        self.admit(Tool::EditPythonFile, request.dry_run)?;
        let edit = EditFileRequest {
            path: request.path.clone(),
            old_string: request.old_string,
            new_string: request.new_string,
            replace_all: false,
            edits: Vec::new(),
            expected_hash: None,
            force: false,
            dry_run: request.dry_run,
            backup: request.backup,
            within: None,
            strict: false,
            encoding: None,
            stale: StaleMode::Merge,
            cell_id: None,
        };
        let path = request.path.clone();
        // The errors already there are counted on the text the edit read under its lock.
        let response = self.edit(&edit, |old_text, new_text| {
            let errors = analysis::python_syntax_errors(new_text);
            if errors.len() > analysis::python_syntax_errors(old_text).len() {
                return Err(Error::SyntaxError { path: path.clone(), errors });
            }
            Ok(())
        })?;
        Ok(EditPythonFileResponse { would_change: response.replacements > 0, edit: response })
    }

    /// Replaces a whole function or method (`func`, `Class.method`, `Outer.Inner.method`),
    /// re-indenting the new definition and keeping decorators unless it brings its own.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit::Error> {
    /// use editkit::{PathRequest, ReplaceFunctionRequest};
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("m.py"), "class A:\n    def f(self):\n        return 1\n").unwrap();
    /// let toolkit = editkit::Toolkit::open(dir.path(), Default::default())?;
    /// let symbols = toolkit.file_symbols(PathRequest::new("m.py"))?.symbols;
    /// assert_eq!((symbols[1].name.as_str(), symbols[1].parent.as_deref()), ("f", Some("A")));
    /// let new = "def f(self):\n    return 2\n";
    /// toolkit.replace_function(ReplaceFunctionRequest::new("m.py", "A.f", new).backup(false))?;
    /// assert_eq!(std::fs::read_to_string(dir.path().join("m.py")).unwrap(), "class A:\n    def f(self):\n        return 2\n");
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// `not_found` (listing the available names), `ambiguous` (with lines), `syntax_error`
    /// when the result would not parse, `stale`, path errors.
    pub fn replace_function(&self, request: ReplaceFunctionRequest) -> Result<ReplaceFunctionResponse> {
        self.admit(Tool::ReplaceFunction, request.dry_run)?;
        let (_, workspace) = self.route(&request.path);
        let lock = workspace.lock(&request.path)?;
        let file = lock.read_for_write(None, false)?;
        let rel = file.path().to_owned();
        let old = file.text();
        let new = analysis::replace_function(
            &rel,
            old,
            &request.function_name,
            &request.new_implementation,
            request.validate,
        )?;
        let mut text = file.decoded().clone();
        // Splice only the changed middle so untouched lines keep their original endings.
        let prefix = crate::diff::common_prefix_len(old.as_bytes(), new.as_bytes());
        let prefix = floor_boundary(old, floor_boundary(&new, prefix));
        let suffix = crate::diff::common_suffix_len(
            old.as_bytes().get(prefix..).unwrap_or_default(),
            new.as_bytes().get(prefix..).unwrap_or_default(),
        );
        let old_end = ceil_boundary(old, old.len() - suffix);
        let new_end = new.len() - (old.len() - old_end);
        text.splice(prefix..old_end, new.get(prefix..new_end).unwrap_or_default())
            .map_err(|e| Error::invalid("new_implementation", e.to_string()))?;
        let bytes = text.try_encoded().map_err(|err| crate::toolkit::unencodable(&request.path, err))?;
        if request.dry_run {
            drop(lock);
            let (diff, _) = self.diff(&rel, old, text.as_str());
            return Ok(ReplaceFunctionResponse {
                path: rel,
                function_replaced: request.function_name,
                backup_path: None,
                diff,
                sha256: editkit_vfs::Sha256::of(&bytes),
                dry_run: true,
                server_diagnostics: None,
            });
        }
        let crate::toolkit::KeptWrite { written, kept, .. } = self.write_kept(
            workspace,
            &lock,
            &bytes,
            &WriteOptions { create_dirs: false, ..Default::default() },
            Some(&file),
        )?;
        drop(lock);
        let (diff, _) = self.diff(&rel, old, text.as_str());
        let server_diagnostics = self.server_after(workspace, &rel);
        Ok(ReplaceFunctionResponse {
            path: rel,
            function_replaced: request.function_name,
            backup_path: if request.backup { kept } else { None },
            diff,
            sha256: written.sha256,
            dry_run: false,
            server_diagnostics,
        })
    }

    /// Functions, classes, methods and other definitions of a code file.
    ///
    /// # Errors
    /// `invalid_args` for a file that is not Python/TypeScript/TSX/JavaScript; path errors.
    pub fn file_symbols(&self, request: PathRequest) -> Result<FileSymbolsResponse> {
        let (_, workspace) = self.route(&request.path);
        let file = workspace.peek(&request.path)?;
        let (file_type, symbols) = analysis::symbols(file.path(), file.text())?;
        Ok(FileSymbolsResponse { path: file.path().to_owned(), file_type, symbols })
    }

    /// Syntax check of a code or JSON file, with error positions.
    ///
    /// # Errors
    /// `invalid_args` for a file kind without a parser; path errors.
    pub fn check_syntax(&self, request: PathRequest) -> Result<CheckSyntaxResponse> {
        let (_, workspace) = self.route(&request.path);
        let file = workspace.peek(&request.path)?;
        let (file_type, valid, errors) = analysis::check(file.path(), file.text())?;
        Ok(CheckSyntaxResponse { path: file.path().to_owned(), file_type, valid, errors })
    }

    /// Creates or refreshes the title and the `Description`, `Structure` and `Instructions`
    /// sections of a project index file, leaving every other section as it is.
    ///
    /// # Errors
    /// `invalid_args` when no section is given; path errors.
    pub fn update_project_index(&self, request: UpdateProjectIndexRequest) -> Result<UpdateProjectIndexResponse> {
        self.admit(Tool::UpdateProjectIndex, false)?;
        if request.file.contains('/') || request.file.is_empty() {
            return Err(Error::invalid("file", "give a file name, without directories (use project_root for those)"));
        }
        let path = if request.project_root == "." || request.project_root.is_empty() {
            request.file.clone()
        } else {
            format!("{}/{}", request.project_root.trim_end_matches('/'), request.file)
        };
        let bodies = [request.description.as_deref(), request.structure.as_deref(), request.instructions.as_deref()];
        if request.project_name.is_none() && bodies.iter().all(Option::is_none) {
            return Err(Error::invalid(
                "description",
                "give at least one of project_name, description, structure, instructions",
            ));
        }
        let (_, workspace) = self.route(&path);
        let lock = workspace.lock(&path)?;
        let (mut text, created) = match lock.read() {
            Ok(file) => (file.into_decoded(), false),
            Err(editkit_vfs::Error::NotFound { .. }) => {
                (editkit_vfs::Text::new("", editkit_vfs::LineEnding::Lf, false), true)
            }
            Err(err) => return Err(err.into()),
        };
        let mut updated = Vec::new();
        if let Some(name) = &request.project_name {
            let splice = editkit_analyze::set_title(text.as_str(), name);
            text.splice(splice.range, &splice.text).map_err(|e| Error::invalid("project_name", e.to_string()))?;
            updated.push("title".to_owned());
        }
        for (section, body) in INDEX_SECTIONS.iter().zip(bodies) {
            let Some(body) = body else { continue };
            let splice = editkit_analyze::set_section(text.as_str(), section, body)
                .map_err(|source| Error::Analyze { path: path.clone(), source })?;
            text.splice(splice.range, &splice.text).map_err(|e| Error::invalid(section, e.to_string()))?;
            updated.push((*section).to_owned());
        }
        let bytes = text.try_encoded().map_err(|err| crate::toolkit::unencodable(&path, err))?;
        self.write_kept(workspace, &lock, &bytes, &WriteOptions::default(), None)?;
        Ok(UpdateProjectIndexResponse { path: lock.path().to_owned(), updated_sections: updated, created })
    }
}

fn floor_boundary(s: &str, mut at: usize) -> usize {
    at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_boundary(s: &str, mut at: usize) -> usize {
    at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at += 1;
    }
    at
}
