//! Post-edit diagnostics and formatting through external tools.
//!
//! # Security
//! These functions run programs on a file path and, for formatters, let them rewrite that
//! file. They do not check where the path leads: the caller (the editkit facade) must pass a
//! file it has already resolved inside the workspace. Commands come from [`DiagnosticsOptions`]
//! and [`FormatOptions`], never from file contents.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::process::{Run, TOOL_TIMEOUT, run};
use crate::syntax::{SyntaxReport, check_syntax};
use crate::{FileKind, detect};

/// An external program: a name for reports and an argv template where `{path}` stands for the
/// file. A relative program with a `/` (`./node_modules/.bin/prettier`) resolves from the
/// file's folder, which is also the working directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tool {
    /// Name shown in reports (`ruff`, `prettier`).
    pub name: String,
    /// Program and arguments; `{path}` is replaced by the file's path.
    pub argv: Vec<String>,
}

impl Tool {
    /// A tool from a name and an argv template.
    #[must_use]
    pub fn new(name: &str, argv: &[&str]) -> Self {
        Tool { name: name.to_owned(), argv: argv.iter().map(|&arg| arg.to_owned()).collect() }
    }
}

/// A tool that was not used, and why (not installed, timed out, crashed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedTool {
    /// The tool's name.
    pub tool: String,
    /// Why it was skipped.
    pub reason: String,
}

/// How much post-edit diagnostics report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DiagnosticsMode {
    /// Run the checks, report only problems.
    #[default]
    Auto,
    /// Run the checks, report everything, including clean results and skipped tools.
    On,
    /// Run nothing.
    Off,
}

/// Settings for [`diagnose`].
#[derive(Debug, Clone)]
pub struct DiagnosticsOptions {
    /// What to report. Default [`DiagnosticsMode::Auto`].
    pub mode: DiagnosticsMode,
    /// Time limit per tool. Default 10 s.
    pub timeout: Duration,
    /// Checkers by lowercase extension, tried in order; the first that runs is used.
    /// Default: `py`/`pyi`: ruff, then `python3 -m py_compile`; `ts`/`tsx`/`mts`/`cts`: eslint
    /// with `--no-config-lookup`, then tsc (no tsconfig); `js`/`jsx`/`mjs`/`cjs`: eslint.
    /// JSON is checked by the built-in check only.
    pub checkers: BTreeMap<String, Vec<Tool>>,
}

impl Default for DiagnosticsOptions {
    fn default() -> Self {
        let mut checkers = BTreeMap::new();
        let ruff =
            Tool::new("ruff", &["ruff", "check", "--quiet", "--no-cache", "--output-format", "concise", "{path}"]);
        let py_compile = Tool::new("py_compile", &["python3", "-m", "py_compile", "{path}"]);
        let eslint = Tool::new("eslint", &["eslint", "--no-config-lookup", "--no-color", "{path}"]);
        let tsc = |jsx: bool| {
            let mut argv = vec!["tsc", "--noEmit", "--pretty", "false", "--skipLibCheck", "--target", "es2022"];
            if jsx {
                argv.extend(["--jsx", "preserve"]);
            }
            argv.push("{path}");
            Tool::new("tsc", &argv)
        };
        for extension in ["py", "pyi"] {
            checkers.insert(extension.to_owned(), vec![ruff.clone(), py_compile.clone()]);
        }
        for extension in ["ts", "mts", "cts"] {
            checkers.insert(extension.to_owned(), vec![eslint.clone(), tsc(false)]);
        }
        checkers.insert("tsx".to_owned(), vec![eslint.clone(), tsc(true)]);
        for extension in ["js", "jsx", "mjs", "cjs"] {
            checkers.insert(extension.to_owned(), vec![eslint.clone()]);
        }
        DiagnosticsOptions { mode: DiagnosticsMode::Auto, timeout: TOOL_TIMEOUT, checkers }
    }
}

/// What an external checker said.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckerReport {
    /// The tool's name.
    pub tool: String,
    /// `true` when it exited with status 0.
    pub ok: bool,
    /// Its stdout and stderr, at most 2,000 characters.
    pub output: String,
}

/// The result of [`diagnose`]. With [`DiagnosticsMode::Auto`] only problems are filled in.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Diagnostics {
    /// The built-in tree-sitter (or JSON) syntax check of the new content.
    pub syntax: Option<SyntaxReport>,
    /// The external checker that ran, if any.
    pub checker: Option<CheckerReport>,
    /// Checkers that were not installed, timed out or crashed ([`DiagnosticsMode::On`] only).
    pub skipped: Vec<SkippedTool>,
}

impl Diagnostics {
    /// `true` when a check found a problem.
    #[must_use]
    pub fn has_problems(&self) -> bool {
        self.syntax.as_ref().is_some_and(|report| !report.valid)
            || self.checker.as_ref().is_some_and(|report| !report.ok)
    }
}

/// Checks a file after an edit: the built-in syntax check over `source` (always available),
/// then the first installed external checker for the file's extension, run on `path`.
///
/// A missing, slow (over `options.timeout`) or crashing checker is skipped and the next one
/// tried; nothing here is an error.
///
/// ```
/// use editkit_analyze::{diagnose, DiagnosticsMode, DiagnosticsOptions};
/// let options = DiagnosticsOptions { mode: DiagnosticsMode::Auto, checkers: Default::default(), ..Default::default() };
/// let found = diagnose(std::path::Path::new("data.json"), "{\"a\": }", &options);
/// assert_eq!(found.syntax.map(|report| report.valid), Some(false));
/// ```
///
/// # Security
/// `path` must be a file the caller has already resolved inside the workspace; it is passed to
/// the checker as an argument and its folder becomes the working directory.
#[must_use]
pub fn diagnose(path: &Path, source: &str, options: &DiagnosticsOptions) -> Diagnostics {
    let mut diagnostics = Diagnostics::default();
    if options.mode == DiagnosticsMode::Off {
        return diagnostics;
    }
    let report_all = options.mode == DiagnosticsMode::On;
    let path_text = path.to_string_lossy();
    let kind = detect(&path_text, source.as_bytes());
    if kind != FileKind::Binary
        && let Ok(report) = check_syntax(kind, source)
        && (report_all || !report.valid)
    {
        diagnostics.syntax = Some(report);
    }
    let tools = extension(path).and_then(|extension| options.checkers.get(&extension));
    let mut skipped = Vec::new();
    for tool in tools.into_iter().flatten() {
        match run_tool(tool, path, options.timeout) {
            Ok((code, output)) if code != 0 && output.trim().is_empty() => {
                skipped.push(SkippedTool {
                    tool: tool.name.clone(),
                    reason: format!("exited with status {code} and no output"),
                });
            }
            Ok((code, output)) => {
                if report_all || code != 0 {
                    diagnostics.checker = Some(CheckerReport { tool: tool.name.clone(), ok: code == 0, output });
                }
                break;
            }
            Err(reason) => skipped.push(SkippedTool { tool: tool.name.clone(), reason }),
        }
    }
    if report_all {
        diagnostics.skipped = skipped;
    }
    diagnostics
}

/// Settings for [`format_file`]. Formatting is off unless `enabled` is set.
#[derive(Debug, Clone)]
pub struct FormatOptions {
    /// Whether to format at all. Default `false`.
    pub enabled: bool,
    /// Time limit per tool. Default 10 s.
    pub timeout: Duration,
    /// Formatters by lowercase extension, tried in order; the first that runs is used.
    /// Default: `py`/`pyi`: `ruff format`, then black; web files, JSON, CSS, Markdown, YAML:
    /// prettier with `--no-config --no-editorconfig`; `go`: gofmt; `rs`: rustfmt. Insert or
    /// replace entries to override.
    pub formatters: BTreeMap<String, Vec<Tool>>,
}

impl Default for FormatOptions {
    fn default() -> Self {
        let mut formatters = BTreeMap::new();
        let python = vec![
            Tool::new("ruff", &["ruff", "format", "--quiet", "--no-cache", "{path}"]),
            Tool::new("black", &["black", "--quiet", "{path}"]),
        ];
        for extension in ["py", "pyi"] {
            formatters.insert(extension.to_owned(), python.clone());
        }
        let prettier = Tool::new("prettier", &["prettier", "--no-config", "--no-editorconfig", "--write", "{path}"]);
        for extension in [
            "ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs", "json", "css", "scss", "less", "html", "vue", "md",
            "markdown", "yaml", "yml",
        ] {
            formatters.insert(extension.to_owned(), vec![prettier.clone()]);
        }
        formatters.insert("go".to_owned(), vec![Tool::new("gofmt", &["gofmt", "-w", "{path}"])]);
        formatters.insert("rs".to_owned(), vec![Tool::new("rustfmt", &["rustfmt", "--edition", "2024", "{path}"])]);
        FormatOptions { enabled: false, timeout: TOOL_TIMEOUT, formatters }
    }
}

/// What [`format_file`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FormatReport {
    /// The formatter that ran and exited successfully, if any.
    pub formatter: Option<String>,
    /// Formatters that were not installed, timed out, crashed or failed.
    pub skipped: Vec<SkippedTool>,
}

/// Formats the file at `path` in place with the first installed formatter for its extension.
/// Failures are swallowed: they only show up in [`FormatReport::skipped`].
///
/// # Security
/// `path` must be a file the caller has already resolved inside the workspace: the formatter
/// rewrites it directly, outside editkit-vfs, and its folder becomes the working directory.
/// The caller should re-read the file through the workspace afterwards.
#[must_use]
pub fn format_file(path: &Path, options: &FormatOptions) -> FormatReport {
    let mut report = FormatReport::default();
    if !options.enabled {
        return report;
    }
    let tools = extension(path).and_then(|extension| options.formatters.get(&extension));
    for tool in tools.into_iter().flatten() {
        match run_tool(tool, path, options.timeout) {
            Ok((0, _)) => {
                report.formatter = Some(tool.name.clone());
                break;
            }
            Ok((code, output)) => {
                let detail = output.lines().next().unwrap_or("").to_owned();
                report.skipped.push(SkippedTool {
                    tool: tool.name.clone(),
                    reason: format!("exited with status {code}: {detail}"),
                });
                break;
            }
            Err(reason) => report.skipped.push(SkippedTool { tool: tool.name.clone(), reason }),
        }
    }
    report
}

fn extension(path: &Path) -> Option<String> {
    path.extension().map(|extension| extension.to_string_lossy().to_ascii_lowercase())
}

/// Runs one tool on `path`: `Ok((exit code, output))`, or why it was skipped.
fn run_tool(tool: &Tool, path: &Path, timeout: Duration) -> Result<(i32, String), String> {
    let folder = path.parent().filter(|parent| !parent.as_os_str().is_empty()).map(Path::to_path_buf);
    let path_text = path.to_string_lossy();
    let mut argv: Vec<String> = tool.argv.iter().map(|arg| arg.replace("{path}", &path_text)).collect();
    if let (Some(program), Some(folder)) = (argv.first_mut(), folder.as_ref()) {
        let program_path = PathBuf::from(program.as_str());
        if program.contains('/') && program_path.is_relative() {
            *program = folder.join(program_path).to_string_lossy().into_owned();
        }
    }
    // With a relative `path`, the working directory stays put so the argument still resolves.
    let dir = if path.is_absolute() { folder.as_deref() } else { None };
    match run(&argv, dir, timeout) {
        Run::Exited { code, output } => Ok((code, output)),
        Run::NotInstalled => Err("not installed".to_owned()),
        Run::TimedOut => Err(format!("timed out after {} ms", timeout.as_millis())),
        Run::Crashed => Err("crashed".to_owned()),
    }
}
