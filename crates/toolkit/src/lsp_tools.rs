//! The code-intel tools, answered by language servers: a workspace file's language and the
//! session of its server ([`Toolkit::language_server`]), started on first use from the pool
//! the toolkit keeps.

use std::path::PathBuf;
use std::sync::Arc;

use editkit_lsp::{Language, Session};

use crate::error::{Error, Result};
use crate::toolkit::Toolkit;

/// A workspace file a language server answers for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ServedFile {
    /// Which workspace holds it (an index of [`Toolkit::workspaces`]).
    pub(crate) root: usize,
    /// Its canonical path relative to that root.
    pub(crate) rel: String,
    /// Its absolute path (the root's real path joined with `rel`): what the server is told.
    pub(crate) absolute: PathBuf,
    /// Its language, by extension.
    pub(crate) language: Language,
}

impl Toolkit {
    /// `path` resolved in its workspace (policy checked, symlinks followed inside the root),
    /// with its language; no server is started.
    ///
    /// # Errors
    /// The workspace's refusals of the path (`outside_workspace`, `blocked`...);
    /// `invalid_args` when no language server handles its kind of file.
    pub(crate) fn served_file(&self, path: &str) -> Result<ServedFile> {
        let (root, workspace) = self.route(path);
        let rel = workspace.resolve(path)?;
        let absolute = workspace.root_path().join(&rel);
        let language = Language::of_path(&absolute).ok_or_else(|| {
            Error::invalid(
                "path",
                format!(
                    "`{rel}` is not a file a language server is run for: editkit runs one for Python (.py, .pyi), \
                     TypeScript and JavaScript (.ts, .tsx, .mts, .cts, .js, .jsx, .mjs, .cjs) and Rust (.rs)"
                ),
            )
        })?;
        Ok(ServedFile { root, rel, absolute, language })
    }

    /// The session of the server for `file`'s language on `file`'s root, starting the server
    /// when none runs (a started server is kept warm for the next call).
    ///
    /// # Errors
    /// `unavailable` when language servers are off, none is installed on the `PATH` outside
    /// every root, or it cannot start; the reason never quotes the server's output.
    pub(crate) fn session_for(&self, file: &ServedFile) -> Result<Arc<Session>> {
        if !self.options().language_servers.enabled {
            return Err(servers_off(file.language));
        }
        let workspace = self.workspaces().get(file.root).unwrap_or_else(|| self.workspace());
        let roots = editkit_run::Roots::new(&self.root_paths());
        Ok(self.lsp.session(file.language, workspace.root_path(), &roots)?)
    }

    /// [`Toolkit::served_file`] then [`Toolkit::session_for`]: `path`'s language and the session
    /// of its server.
    ///
    /// # Errors
    /// As those two.
    pub(crate) fn language_server(&self, path: &str) -> Result<(ServedFile, Arc<Session>)> {
        let file = self.served_file(path)?;
        let session = self.session_for(&file)?;
        Ok((file, session))
    }
}

/// The refusal when [`crate::LanguageServerOptions::enabled`] is false.
pub(crate) fn servers_off(language: Language) -> Error {
    Error::Unavailable {
        language: language.as_str().to_owned(),
        reason: "language servers are off (the toolkit's `language_servers.enabled` is false)".to_owned(),
        install: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolkitOptions;

    fn toolkit(options: ToolkitOptions) -> (tempfile::TempDir, Toolkit) {
        let dir = tempfile::tempdir().expect("a temp dir");
        std::fs::write(dir.path().join("a.py"), "def f():\n    return 1\n").expect("write");
        std::fs::write(dir.path().join("notes.md"), "# notes\n").expect("write");
        let toolkit = Toolkit::open(dir.path(), options).expect("open");
        (dir, toolkit)
    }

    #[test]
    fn a_file_gets_its_language_and_a_path_outside_is_refused_before_any_server() {
        let (_dir, toolkit) = toolkit(ToolkitOptions::default());
        let file = toolkit.served_file("a.py").expect("a Python file");
        assert_eq!((file.language, file.rel.as_str(), file.root), (Language::Python, "a.py", 0));
        assert!(file.absolute.is_absolute() && file.absolute.ends_with("a.py"));
        let refused = toolkit.served_file("notes.md").expect_err("no server for Markdown");
        assert_eq!(refused.error_kind().as_str(), "invalid_args", "{refused}");
        let outside = toolkit.served_file("../x.py").expect_err("outside");
        assert_eq!(outside.error_kind().as_str(), "outside_workspace");
        assert_eq!(toolkit.lsp.running(), 0);
    }

    #[test]
    fn no_server_on_path_is_unavailable_naming_what_to_install() {
        let mut options = ToolkitOptions::default();
        options.language_servers.path = Some(std::ffi::OsString::from("/nonexistent-editkit-bin"));
        let (_dir, toolkit) = toolkit(options);
        let refused = toolkit.language_server("a.py").expect_err("nothing on PATH");
        assert_eq!(refused.error_kind().as_str(), "unavailable");
        let json = refused.to_json();
        assert_eq!(json["language"], "python", "{json}");
        assert!(json["install"].as_str().is_some_and(|how| how.contains("basedpyright")), "{json}");
        assert!(refused.message().contains("basedpyright"), "{}", refused.message());
    }

    #[test]
    fn servers_off_is_unavailable_and_starts_nothing() {
        let mut options = ToolkitOptions::default();
        options.language_servers.enabled = false;
        let (_dir, toolkit) = toolkit(options);
        let refused = toolkit.language_server("a.py").expect_err("off");
        assert_eq!(refused.error_kind().as_str(), "unavailable");
        assert!(refused.message().contains("language servers are off"), "{}", refused.message());
        assert_eq!(toolkit.lsp.running(), 0);
    }
}
