//! Post-edit diagnostics and formatting through external tools, contained.
//!
//! The containment is described in the crate documentation (`# Security`).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::syntax::{SyntaxReport, check_syntax};
use crate::worker::Worker;
use crate::{CheckCache, detect};
use editkit_run::{
    Done, ExternalTool, MAX_FORMATTED_BYTES, MAX_TOOL_INPUT_BYTES, PrivateDir, Ran, Roots, TOOL_TIMEOUT,
};
use editkit_run::{find_program, run_tool};

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

impl DiagnosticsMode {
    /// Every word [`DiagnosticsMode::as_str`] gives and `FromStr` takes, in the variants'
    /// order: the one list the command line and the Python module offer.
    pub const NAMES: &'static [&'static str] = &["auto", "on", "off"];

    /// `auto`, `on` or `off`.
    ///
    /// ```
    /// let mode: editkit_analyze::DiagnosticsMode = "off".parse().unwrap();
    /// assert_eq!(mode.as_str(), "off");
    /// ```
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            DiagnosticsMode::Auto => "auto",
            DiagnosticsMode::On => "on",
            DiagnosticsMode::Off => "off",
        }
    }
}

impl std::str::FromStr for DiagnosticsMode {
    type Err = String;

    fn from_str(text: &str) -> std::result::Result<Self, String> {
        match text {
            "auto" => Ok(DiagnosticsMode::Auto),
            "on" => Ok(DiagnosticsMode::On),
            "off" => Ok(DiagnosticsMode::Off),
            other => Err(format!("unknown diagnostics mode `{other}`; choose `auto`, `on` or `off`")),
        }
    }
}

impl std::fmt::Display for DiagnosticsMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Settings for [`diagnose`].
#[derive(Debug, Clone)]
pub struct DiagnosticsOptions {
    /// What to report. Default [`DiagnosticsMode::Auto`].
    pub mode: DiagnosticsMode,
    /// Time limit per tool. Default 10 s.
    pub timeout: Duration,
    /// Checkers by lowercase extension, tried in order; the first that runs is used.
    /// Default: `py`/`pyi`: `ruff check --isolated` on stdin, then `python3 -I -B` compiling
    /// stdin with `compile()`; `ts`/`tsx`/`mts`/`cts`/`js`/`jsx`/`mjs`/`cjs`: eslint with
    /// `--no-config-lookup` on stdin. JSON is checked by the built-in check only. tsc is not a
    /// default: it cannot read stdin, and on a private copy it cannot see the project.
    pub checkers: BTreeMap<String, Vec<ExternalTool>>,
}

/// The Python check: compile the source read from stdin, report the first syntax error.
const PYTHON_CHECK: &str = "import sys
name = sys.argv[1]
try:
    compile(sys.stdin.buffer.read(), name, 'exec', dont_inherit=True)
except SyntaxError as error:
    print(f'{name}, line {error.lineno}, column {error.offset}: {type(error).__name__}: {error.msg}')
    sys.exit(1)
except ValueError as error:
    print(f'{name}: {error}')
    sys.exit(1)
";

/// The default Python check: `python3 -I -B` compiling stdin. With a [`CheckCache`] it runs
/// through the cache's persistent worker instead of a process per check.
fn python_tool() -> ExternalTool {
    ExternalTool::new("python", &["python3", "-I", "-B", "-c", PYTHON_CHECK, "{path}"])
}

impl Default for DiagnosticsOptions {
    fn default() -> Self {
        let mut checkers = BTreeMap::new();
        let ruff = ExternalTool::new(
            "ruff",
            &[
                "ruff",
                "check",
                "--isolated",
                "--quiet",
                "--no-cache",
                "--output-format",
                "concise",
                "--stdin-filename",
                "{path}",
                "-",
            ],
        );
        let python = python_tool();
        let eslint = ExternalTool::new(
            "eslint",
            &["eslint", "--no-config-lookup", "--no-color", "--stdin", "--stdin-filename", "{path}"],
        );
        for extension in ["py", "pyi"] {
            checkers.insert(extension.to_owned(), vec![ruff.clone(), python.clone()]);
        }
        for extension in ["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs"] {
            checkers.insert(extension.to_owned(), vec![eslint.clone()]);
        }
        DiagnosticsOptions { mode: DiagnosticsMode::Auto, timeout: TOOL_TIMEOUT, checkers }
    }
}

/// The built-in syntax check was not made: the part to parse is past a parse limit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedCheck {
    /// Why, naming the limit.
    pub reason: String,
    /// Bytes the check would have parsed.
    pub size_bytes: usize,
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
    /// How many syntax errors the same statements had before the change, given by
    /// [`diagnose_change`] with `syntax` when the new content has errors and there was an old
    /// one: the change introduced errors when there are more now.
    pub syntax_errors_before: Option<usize>,
    /// The external checker that ran, if any.
    pub checker: Option<CheckerReport>,
    /// Checkers that were not installed, timed out or crashed ([`DiagnosticsMode::On`] only).
    pub skipped: Vec<SkippedTool>,
    /// The built-in check, when it could not be made: why, and the size of what it would have
    /// parsed. A skipped check is never a clean one. Filled in every mode.
    pub check_skipped: Option<SkippedCheck>,
    /// How the last external tool started was confined, `None` when none was started:
    /// `landlock` (no writes outside its private directory, no TCP),
    /// `landlock without network rules (kernel Landlock ABI n)`, or `unavailable: <why>`
    /// (it ran with the other measures only). Filled in every mode.
    pub confinement: Option<String>,
}

impl Diagnostics {
    /// `true` when a check found a problem.
    #[must_use]
    pub fn has_problems(&self) -> bool {
        self.syntax.as_ref().is_some_and(|report| !report.valid)
            || self.checker.as_ref().is_some_and(|report| !report.ok)
    }

    /// `true` when the built-in check found more syntax errors in the statements a change
    /// touched than they had before it (any, for a new file).
    #[must_use]
    pub fn introduced_syntax_errors(&self) -> bool {
        self.syntax.as_ref().is_some_and(|report| {
            !report.errors.is_empty() && self.syntax_errors_before.is_none_or(|before| report.errors.len() > before)
        })
    }
}

/// Checks `source`, the new content of the file `path`: the built-in syntax check (always
/// available, in-process), then the first installed external checker for the extension,
/// contained as the crate documentation describes, fed `source` on stdin.
///
/// `roots` are the workspace roots: no program is taken from a PATH entry inside one. `path`
/// only names the file (extension, `{path}`, messages); nothing is read from it.
///
/// A missing, slow (over `options.timeout`) or crashing checker is skipped and the next one
/// tried; nothing here is an error.
///
/// ```
/// use editkit_analyze::{diagnose, DiagnosticsMode, DiagnosticsOptions};
/// let options = DiagnosticsOptions { mode: DiagnosticsMode::Auto, checkers: Default::default(), ..Default::default() };
/// let found = diagnose(&[std::path::Path::new("/work/repo")], "data.json", "{\"a\": }", &options);
/// assert_eq!(found.syntax.map(|report| report.valid), Some(false));
/// ```
///
/// # Security
/// See the crate documentation: no file of the workspace is read, written or run by the checkers editkit
/// starts, unless an argv names a program inside it by absolute path.
#[must_use]
pub fn diagnose(roots: &[&Path], path: &str, source: &str, options: &DiagnosticsOptions) -> Diagnostics {
    diagnose_inner(roots, path, source, options, None)
}

/// [`diagnose`], with the built-in syntax check done through `cache` (keyed by `path`), so
/// that checking a file again after an edit reparses only what changed. Long-lived callers
/// (a server checking file after file) keep one cache.
///
/// # Security
/// As [`diagnose`].
#[must_use]
pub fn diagnose_cached(
    roots: &[&Path],
    path: &str,
    source: &str,
    options: &DiagnosticsOptions,
    cache: &CheckCache,
) -> Diagnostics {
    diagnose_inner(roots, path, source, options, Some(cache))
}

/// Checks `new`, the content of the file `path` after a change to `old` (`None` for a new
/// file), as [`diagnose`] does, at the cost of the change rather than of the file:
/// - the built-in check is [`crate::check_change`]'s: for Python, only the top-level
///   statements the change touched are parsed, and its errors are those of these statements;
///   a check past the parse limits is reported in [`Diagnostics::check_skipped`];
/// - the default Python check (`compile()` in `cache`'s persistent worker) compiles the same
///   statements, and in [`DiagnosticsMode::Auto`] runs only where it can add to the built-in
///   check: when that found no error, and the statements hold a construct CPython's compiler
///   judges more strictly than the grammar (a `return` or `break` outside its place, a
///   Python 2 `print` statement, argument order, string escapes, and the like). So an edit
///   that needs it not never starts an interpreter. Other checkers run on the whole text.
///
/// # Security
/// As [`diagnose`].
#[must_use]
pub fn diagnose_change(
    roots: &[&Path],
    path: &str,
    old: Option<&str>,
    new: &str,
    options: &DiagnosticsOptions,
    cache: &CheckCache,
) -> Diagnostics {
    diagnose_change_within(roots, path, (old, None), new, options, cache)
}

/// [`diagnose_change`] of a change known to lie within `windows` (see
/// [`crate::check_change_within`]): `(old, windows)`, where `None` windows leave the texts to
/// be diffed.
///
/// # Security
/// As [`diagnose`].
#[must_use]
pub fn diagnose_change_within(
    roots: &[&Path],
    path: &str,
    (old, windows): (Option<&str>, Option<&[editkit_matcher::diff::Window]>),
    new: &str,
    options: &DiagnosticsOptions,
    cache: &CheckCache,
) -> Diagnostics {
    let mut diagnostics = Diagnostics::default();
    if options.mode == DiagnosticsMode::Off {
        return diagnostics;
    }
    let report_all = options.mode == DiagnosticsMode::On;
    let kind = detect(path, new);
    let mut compile = Some((new, 0));
    let mut compile_needed = true;
    let checked = match windows {
        Some(windows) => crate::check_change_within(kind, old, new, windows),
        None => crate::check_change(kind, old, new),
    };
    match checked {
        Ok(report) => {
            compile_needed = report_all || (report.valid() && report.stricter);
            compile = new.get(report.checked.clone()).map(|part| (part, report.checked_lines_before));
            if report_all || !report.valid() {
                diagnostics.syntax_errors_before = report.errors_before;
                diagnostics.syntax = Some(SyntaxReport { valid: report.valid(), errors: report.errors });
            }
        }
        Err(error) => diagnostics.check_skipped = skipped_check(&error, new.len()),
    }
    run_checkers(&mut diagnostics, roots, path, new, options, Some(cache), compile.filter(|_| compile_needed));
    diagnostics
}

/// What a parse error says of a check that was not made.
fn skipped_check(error: &crate::Error, len: usize) -> Option<SkippedCheck> {
    match error {
        crate::Error::TooLarge { len, limit } => Some(SkippedCheck {
            reason: format!("the part to parse is {len} bytes, more than the {limit}-byte parse limit"),
            size_bytes: *len,
        }),
        crate::Error::TooManyTokens { limit } => Some(SkippedCheck {
            reason: format!("the part to parse has more than {limit} tokens, the parse limit"),
            size_bytes: len,
        }),
        crate::Error::Timeout { millis } => Some(SkippedCheck {
            reason: format!("parsing gave up after {millis} ms, the parse time limit"),
            size_bytes: len,
        }),
        _ => None,
    }
}

fn diagnose_inner(
    roots: &[&Path],
    path: &str,
    source: &str,
    options: &DiagnosticsOptions,
    cache: Option<&CheckCache>,
) -> Diagnostics {
    let mut diagnostics = Diagnostics::default();
    if options.mode == DiagnosticsMode::Off {
        return diagnostics;
    }
    let report_all = options.mode == DiagnosticsMode::On;
    let kind = detect(path, source);
    let checked = match cache {
        Some(cache) => cache.check(path, kind, source),
        None => check_syntax(kind, source),
    };
    match checked {
        Ok(report) if report_all || !report.valid => diagnostics.syntax = Some(report),
        Ok(_) => {}
        Err(error) => diagnostics.check_skipped = skipped_check(&error, source.len()),
    }
    let compile = cache.map(|cache| cache.python_input(path, source));
    run_checkers(&mut diagnostics, roots, path, source, options, cache, compile);
    diagnostics
}

/// Runs the first installed external checker for `path`'s extension on `source`; the default
/// Python check, through `cache`'s worker, compiles `compile` (a part of `source` and the
/// lines before it), and is passed over when `compile` is `None`.
fn run_checkers(
    diagnostics: &mut Diagnostics,
    roots: &[&Path],
    path: &str,
    source: &str,
    options: &DiagnosticsOptions,
    cache: Option<&CheckCache>,
    compile: Option<(&str, usize)>,
) {
    let report_all = options.mode == DiagnosticsMode::On;
    let tools = extension(path).and_then(|extension| options.checkers.get(&extension));
    let mut skipped = Vec::new();
    // Found only when a tool runs (each root's real path is looked up).
    let found = std::cell::OnceCell::new();
    let roots = || found.get_or_init(|| Roots::new(roots));
    let python = python_tool();
    for tool in tools.into_iter().flatten() {
        let worker = cache.filter(|_| *tool == python);
        let ran = match (worker, compile) {
            (Some(cache), Some(input)) => run_python_worker(cache, roots(), path, input, options.timeout),
            // Nothing the compiler could add: the built-in check stands.
            (Some(_), None) => break,
            (None, _) => run_tool(tool, roots(), path, source, options.timeout, MAX_CAPTURE_FOR_CHECKERS),
        };
        if let Some(confinement) = &ran.confinement {
            diagnostics.confinement = Some(confinement.clone());
        }
        match ran.outcome {
            Ok(done) => {
                if let Some(cache) = worker {
                    cache.python_verdict(path, source, done.code == 0);
                }
                let mut bytes = done.stdout;
                if !bytes.is_empty() && !done.stderr.is_empty() && !bytes.ends_with(b"\n") {
                    bytes.push(b'\n');
                }
                bytes.extend_from_slice(&done.stderr);
                let output = editkit_run::cap(&String::from_utf8_lossy(&bytes));
                if done.code != 0 && output.trim().is_empty() {
                    skipped.push(SkippedTool {
                        tool: tool.name.clone(),
                        reason: format!("exited with status {} and no output", done.code),
                    });
                    continue;
                }
                if report_all || done.code != 0 {
                    diagnostics.checker = Some(CheckerReport { tool: tool.name.clone(), ok: done.code == 0, output });
                }
                break;
            }
            Err(reason) => skipped.push(SkippedTool { tool: tool.name.clone(), reason }),
        }
    }
    if report_all {
        diagnostics.skipped = skipped;
    }
}

/// How much of a checker's stdout is kept before capping.
const MAX_CAPTURE_FOR_CHECKERS: usize = 64 * 1024;

/// Settings for [`format_source`]. Formatting is off unless `enabled` is set.
#[derive(Debug, Clone)]
pub struct FormatOptions {
    /// Whether to format at all. Default `false`.
    pub enabled: bool,
    /// Time limit per tool. Default 10 s.
    pub timeout: Duration,
    /// Formatters by lowercase extension, tried in order; the first that runs is used. Each
    /// prints the formatted text on stdout (or rewrites `{file}`).
    /// Default: `py`/`pyi`: `ruff format --isolated`, then black with `--config` on an empty
    /// file; web files, JSON, CSS, Markdown, YAML: prettier with `--no-config
    /// --no-editorconfig --stdin-filepath`; `go`: gofmt; `rs`: rustfmt `--emit stdout` with
    /// `--config-path` on an empty file. All read stdin. Insert or replace entries to override.
    pub formatters: BTreeMap<String, Vec<ExternalTool>>,
}

impl Default for FormatOptions {
    fn default() -> Self {
        let mut formatters = BTreeMap::new();
        let python = vec![
            ExternalTool::new(
                "ruff",
                &["ruff", "format", "--isolated", "--quiet", "--no-cache", "--stdin-filename", "{path}", "-"],
            ),
            ExternalTool::new(
                "black",
                &["black", "--quiet", "--config", "{empty_config}", "--stdin-filename", "{path}", "-"],
            ),
        ];
        for extension in ["py", "pyi"] {
            formatters.insert(extension.to_owned(), python.clone());
        }
        let prettier = ExternalTool::new(
            "prettier",
            &["prettier", "--no-config", "--no-editorconfig", "--stdin-filepath", "{path}"],
        );
        for extension in [
            "ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs", "json", "css", "scss", "less", "html", "vue", "md",
            "markdown", "yaml", "yml",
        ] {
            formatters.insert(extension.to_owned(), vec![prettier.clone()]);
        }
        formatters.insert("go".to_owned(), vec![ExternalTool::new("gofmt", &["gofmt"])]);
        formatters.insert(
            "rs".to_owned(),
            vec![ExternalTool::new(
                "rustfmt",
                &["rustfmt", "--edition", "2024", "--emit", "stdout", "--config-path", "{empty_config}"],
            )],
        );
        FormatOptions { enabled: false, timeout: TOOL_TIMEOUT, formatters }
    }
}

/// What [`format_source`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FormatReport {
    /// The formatter that ran and exited successfully, if any.
    pub formatter: Option<String>,
    /// Its result, the whole new content (possibly equal to the input), when one succeeded.
    pub formatted: Option<String>,
    /// Formatters that were not installed, timed out, crashed or failed.
    pub skipped: Vec<SkippedTool>,
    /// How the last formatter started was confined; see [`Diagnostics::confinement`].
    pub confinement: Option<String>,
}

/// Formats `source`, the content of the file `path`, with the first installed formatter for
/// its extension, contained as the crate documentation describes, and returns the formatted text in
/// [`FormatReport::formatted`]. Nothing is written: the caller writes the result (through its
/// workspace, under the file's lock). Failures are swallowed: they only show up in
/// [`FormatReport::skipped`]; a formatter printing nothing for a non-empty input, or text
/// that is not UTF-8, counts as failed.
///
/// ```
/// use editkit_analyze::{format_source, FormatOptions, ExternalTool};
/// let mut options = FormatOptions { enabled: true, ..Default::default() };
/// options.formatters.insert("txt".into(), vec![ExternalTool::new("upper", &["tr", "a-z", "A-Z"])]);
/// let report = format_source(&[std::path::Path::new("/work/repo")], "notes.txt", "hi\n", &options);
/// assert_eq!(report.formatted.as_deref(), Some("HI\n"));
/// ```
///
/// # Security
/// See the crate documentation: formatters get the content on stdin and write nothing outside their
/// private directory.
#[must_use]
pub fn format_source(roots: &[&Path], path: &str, source: &str, options: &FormatOptions) -> FormatReport {
    let mut report = FormatReport::default();
    if !options.enabled {
        return report;
    }
    let tools = extension(path).and_then(|extension| options.formatters.get(&extension));
    let roots = Roots::new(roots);
    for tool in tools.into_iter().flatten() {
        let ran = run_tool(tool, &roots, path, source, options.timeout, MAX_FORMATTED_BYTES);
        if let Some(confinement) = &ran.confinement {
            report.confinement = Some(confinement.clone());
        }
        let skip = |reason: String| SkippedTool { tool: tool.name.clone(), reason };
        match ran.outcome {
            Ok(done) if done.code == 0 => {
                let (bytes, overflow) = match done.copy {
                    Some(copy) => (copy, false),
                    None => (done.stdout, done.overflow),
                };
                if overflow {
                    report.skipped.push(skip(format!("printed more than {MAX_FORMATTED_BYTES} bytes")));
                } else if bytes.is_empty() && !source.is_empty() {
                    report.skipped.push(skip(
                        "printed nothing; a formatter must print the formatted text on stdout (or rewrite {file})"
                            .to_owned(),
                    ));
                } else {
                    match String::from_utf8(bytes) {
                        Ok(text) => {
                            report.formatter = Some(tool.name.clone());
                            report.formatted = Some(text);
                        }
                        Err(_) => report.skipped.push(skip("printed text that is not UTF-8".to_owned())),
                    }
                }
                break;
            }
            Ok(done) => {
                let output = if done.stderr.is_empty() { done.stdout } else { done.stderr };
                let text = String::from_utf8_lossy(&output);
                let detail = text.lines().find(|line| !line.trim().is_empty()).unwrap_or("");
                report.skipped.push(skip(editkit_run::cap(&format!("exited with status {}: {detail}", done.code))));
                break;
            }
            Err(reason) => report.skipped.push(skip(reason)),
        }
    }
    report
}

fn extension(path: &str) -> Option<String> {
    Path::new(path).extension().map(|extension| extension.to_string_lossy().to_ascii_lowercase())
}

/// The default Python check through `cache`'s persistent worker (started, or restarted when
/// the interpreter found on the PATH changed): the statements an edit touched when the file
/// compiled clean before, else the whole source. A worker that times out or dies is dropped
/// (its process group killed) and the check skipped; the next check starts a new one.
fn run_python_worker(cache: &CheckCache, roots: &Roots, path: &str, input: (&str, usize), timeout: Duration) -> Ran {
    let (input, offset) = input;
    if input.len() > MAX_TOOL_INPUT_BYTES {
        return Ran::skipped(format!(
            "the content is {} bytes, more than the {MAX_TOOL_INPUT_BYTES}-byte limit for external tools",
            input.len()
        ));
    }
    let program = match find_program("python3", roots) {
        Ok(program) => program,
        Err(reason) => return Ran::skipped(reason.to_string()),
    };
    let mut slot = crate::lock(&cache.worker);
    if slot.as_ref().is_some_and(|worker| worker.program != program.path) {
        *slot = None;
    }
    if slot.is_none() {
        let dir = match PrivateDir::new(roots) {
            Ok(dir) => dir,
            Err(error) => return Ran::skipped(format!("could not create its private directory: {error}")),
        };
        match Worker::start(program.path, program.search_path, dir) {
            Ok(worker) => *slot = Some(worker),
            Err(reason) => return Ran::skipped(reason),
        }
    }
    let Some(worker) = slot.as_mut() else { return Ran::skipped("could not start".to_owned()) };
    let confinement = Some(worker.confinement.clone());
    // A name starting with `-` reads as in the one-shot check.
    let shown = if path.starts_with('-') { format!("./{path}") } else { path.to_owned() };
    match worker.compile(&shown, input.as_bytes(), offset, timeout) {
        Ok((code, message)) => Ran {
            outcome: Ok(Done { code, stdout: message, overflow: false, stderr: Vec::new(), copy: None }),
            confinement,
        },
        Err(reason) => {
            *slot = None;
            Ran { outcome: Err(reason), confinement }
        }
    }
}
