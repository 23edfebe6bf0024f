//! One external tool run on a text: an argv template with placeholders, the program found
//! outside the roots, a fresh private directory, the text on stdin and the result read back.

use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::private::PrivateDir;
use crate::process::{self, Invocation, MAX_FORMATTED_BYTES, MAX_TOOL_INPUT_BYTES, Run};
use crate::resolve::{self, Roots};

/// An external program: a name for reports and an argv template (see the crate documentation's
/// placeholders: `{path}`, `{file}`, `{empty_config}`). The program is a bare name looked up
/// on the safe PATH entries, or an absolute path; a relative path is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExternalTool {
    /// Name shown in reports (`ruff`, `prettier`).
    pub name: String,
    /// Program and arguments, with placeholders.
    pub argv: Vec<String>,
}

impl ExternalTool {
    /// A tool from a name and an argv template.
    #[must_use]
    pub fn new(name: &str, argv: &[&str]) -> Self {
        ExternalTool { name: name.to_owned(), argv: argv.iter().map(|&arg| arg.to_owned()).collect() }
    }
}

/// A finished run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Done {
    /// The exit code.
    pub code: i32,
    /// Its stdout, at most the bytes asked for.
    pub stdout: Vec<u8>,
    /// Whether stdout (or the `{file}` copy) went past its bound.
    pub overflow: bool,
    /// Its stderr, at most 64 KiB.
    pub stderr: Vec<u8>,
    /// The `{file}` copy after the run, when the argv used it.
    pub copy: Option<Vec<u8>>,
}

/// A run's outcome (or why the tool was skipped) and its confinement, when it was started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ran {
    /// How it ended, or why it did not run or finish (not installed, timed out, crashed).
    pub outcome: Result<Done, String>,
    /// How it was confined ([`crate::spawn`]), `None` when it was not started.
    pub confinement: Option<String>,
}

impl Ran {
    /// A tool that was not started, and why.
    #[must_use]
    pub fn skipped(reason: String) -> Ran {
        Ran { outcome: Err(reason), confinement: None }
    }
}

/// Runs `tool` on `source`, the content of the file named `path` (relative to its root, for
/// `{path}` and messages only), in a fresh private directory removed afterwards, as the crate
/// documentation describes; keeps at most `max_stdout` bytes of stdout. Nothing here fails:
/// a tool that cannot run says why in [`Ran::outcome`].
#[must_use]
pub fn run_tool(
    tool: &ExternalTool,
    roots: &Roots,
    path: &str,
    source: &str,
    timeout: Duration,
    max_stdout: usize,
) -> Ran {
    if source.len() > MAX_TOOL_INPUT_BYTES {
        return Ran::skipped(format!(
            "the content is {} bytes, more than the {MAX_TOOL_INPUT_BYTES}-byte limit for external tools",
            source.len()
        ));
    }
    let Some((program, args)) = tool.argv.split_first() else {
        return Ran::skipped("the tool's argv is empty".to_owned());
    };
    let program = match resolve::find_program(program, roots) {
        Ok(program) => program,
        Err(reason) => return Ran::skipped(reason.to_string()),
    };
    let private = match PrivateDir::new(roots) {
        Ok(private) => private,
        Err(error) => return Ran::skipped(format!("could not create its private directory: {error}")),
    };
    let dir = private.path();
    let empty_config = dir.join("empty.toml");
    let name = Path::new(path).file_name().map_or_else(|| "input".into(), ToOwned::to_owned);
    let copy = dir.join("input").join(name);
    let uses_copy = args.iter().any(|arg| arg.contains("{file}"));
    let prepared = std::fs::write(&empty_config, b"")
        .and_then(|()| std::fs::create_dir(dir.join("cache")))
        .and_then(|()| if uses_copy { std::fs::create_dir(dir.join("input")) } else { Ok(()) })
        .and_then(|()| if uses_copy { std::fs::write(&copy, source) } else { Ok(()) });
    if let Err(error) = prepared {
        return Ran::skipped(format!("could not prepare its private directory: {error}"));
    }
    // A name starting with `-` would read as an option.
    let shown = if path.starts_with('-') { format!("./{path}") } else { path.to_owned() };
    let copy_text = copy.to_string_lossy();
    let config_text = empty_config.to_string_lossy();
    let values = [("{path}", shown.as_str()), ("{file}", copy_text.as_ref()), ("{empty_config}", config_text.as_ref())];
    let args = args.iter().map(|arg| substitute(arg, &values)).collect();
    let invocation = Invocation {
        program: program.path,
        args,
        stdin: source.as_bytes(),
        dir,
        path: program.search_path,
        timeout,
        max_stdout,
        env: Vec::new(),
    };
    let (run, confinement) = process::run(&invocation);
    let outcome = match run {
        Run::Exited { code, stdout, overflow, stderr } => {
            let (copy, overflow) = match std::fs::metadata(&copy) {
                Ok(meta) if uses_copy && meta.len() > MAX_FORMATTED_BYTES as u64 => (None, true),
                Ok(_) if uses_copy => (std::fs::read(&copy).ok(), overflow),
                _ => (None, overflow),
            };
            Ok(Done { code, stdout, overflow, stderr, copy })
        }
        Run::NotStarted(reason) => Err(reason),
        Run::TimedOut => Err(format!("timed out after {} ms", timeout.as_millis())),
        Run::Crashed => Err("crashed".to_owned()),
    };
    Ran { outcome, confinement: Some(confinement) }
}

/// `arg` with each placeholder replaced by its value, in one pass (a value is never scanned
/// again, so a file named `{file}.py` stays that name).
fn substitute(arg: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(arg.len());
    let mut rest = arg;
    while !rest.is_empty() {
        if let Some((placeholder, value)) = values.iter().find(|(placeholder, _)| rest.starts_with(placeholder)) {
            out.push_str(value);
            rest = rest.get(placeholder.len()..).unwrap_or("");
        } else if let Some(first) = rest.chars().next() {
            out.push(first);
            rest = rest.get(first.len_utf8()..).unwrap_or("");
        }
    }
    out
}
