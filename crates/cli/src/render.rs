//! Printing for people: colours when the stream is a terminal (never with `NO_COLOR`),
//! coloured unified diffs, and refusals with the details an agent's error carries.

use std::io::IsTerminal;

use serde_json::Value;

use crate::{EXIT_REFUSED, EXIT_USAGE};

/// Whether and how to colour one output stream.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    color: bool,
}

impl Style {
    /// Colours for stdout: on a terminal without `NO_COLOR`, or with `CLICOLOR_FORCE`.
    pub(crate) fn stdout() -> Style {
        Style { color: wants_color(std::io::stdout().is_terminal()) }
    }

    /// Colours for stderr, by the same rules.
    pub(crate) fn stderr() -> Style {
        Style { color: wants_color(std::io::stderr().is_terminal()) }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.color { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
    }

    pub(crate) fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }
    pub(crate) fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }
    pub(crate) fn red(self, text: &str) -> String {
        self.paint("31", text)
    }
    pub(crate) fn green(self, text: &str) -> String {
        self.paint("32", text)
    }
    pub(crate) fn yellow(self, text: &str) -> String {
        self.paint("33", text)
    }
    pub(crate) fn cyan(self, text: &str) -> String {
        self.paint("36", text)
    }
}

fn wants_color(terminal: bool) -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    if set("NO_COLOR") {
        return false;
    }
    terminal || set("CLICOLOR_FORCE")
}

/// A unified diff with added lines green, removed lines red and hunk headers cyan.
pub(crate) fn diff(style: Style, diff: &str) -> String {
    let mut out = String::with_capacity(diff.len());
    for line in diff.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        let painted = if body.starts_with("+++") || body.starts_with("---") {
            style.bold(body)
        } else if body.starts_with('+') {
            style.green(body)
        } else if body.starts_with('-') {
            style.red(body)
        } else if body.starts_with("@@") {
            style.cyan(body)
        } else {
            body.to_owned()
        };
        out.push_str(&painted);
        out.push_str(end);
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// The exit code for a contract error object: 2 for bad input, 1 for a refusal.
pub(crate) fn exit_code(error: &Value) -> u8 {
    match error.get("kind").and_then(Value::as_str) {
        Some("invalid_args" | "invalid_patch") => EXIT_USAGE,
        _ => EXIT_REFUSED,
    }
}

/// A refusal for people: the kind, the message, then the details worth seeing (candidate
/// lines, the closest region, hashes, failing hunks, syntax errors).
pub(crate) fn refusal(style: Style, error: &Value) -> String {
    let kind = error.get("kind").and_then(Value::as_str).unwrap_or("error");
    let message = error.get("message").and_then(Value::as_str).unwrap_or("");
    // A patch's message lists its failures; they are printed below with their details.
    let failures = error.get("failures").and_then(Value::as_array).filter(|f| !f.is_empty());
    let message = if failures.is_some() { message.lines().next().unwrap_or(message) } else { message };
    let mut out = format!("{} {}\n", style.red(&style.bold(&format!("refused ({kind}):"))), message);
    if let Some(lines) = error.get("lines").and_then(Value::as_array) {
        let lines: Vec<String> = lines.iter().map(Value::to_string).collect();
        out.push_str(&format!("  candidates at lines {}\n", lines.join(", ")));
    }
    if let Some(closest) = error.get("closest").filter(|c| c.is_object()) {
        out.push_str(&closest_region(style, closest));
    }
    if let (Some(expected), Some(current)) = (error.get("expected_sha256"), error.get("current_sha256")) {
        out.push_str(&format!(
            "  expected sha256 {}\n  on disk  sha256 {}\n",
            short_hash(expected.as_str().unwrap_or("-")),
            short_hash(current.as_str().unwrap_or("(none)"))
        ));
    }
    if let Some(failures) = failures {
        for failure in failures {
            let path = failure.get("path").and_then(Value::as_str).unwrap_or("?");
            let hunk = failure.get("hunk").and_then(Value::as_u64).map(|h| format!(" hunk {h}")).unwrap_or_default();
            let line = failure.get("patch_line").and_then(Value::as_u64).unwrap_or(0);
            let kind = failure.get("kind").and_then(Value::as_str).unwrap_or("?");
            let why = failure.get("message").and_then(Value::as_str).unwrap_or("");
            out.push_str(&format!(
                "  {} {path}{hunk} (patch line {line}): {why}\n",
                style.yellow(&format!("[{kind}]"))
            ));
        }
    }
    if let Some(errors) = error.get("syntax_errors").and_then(Value::as_array) {
        for e in errors.iter().take(10) {
            out.push_str(&format!("  {}\n", syntax_error(e)));
        }
    }
    if let Some(field) = error.get("field").and_then(Value::as_str) {
        out.push_str(&format!("  field: {field}\n"));
    }
    out
}

/// `line L:C message` for one syntax error object.
pub(crate) fn syntax_error(error: &Value) -> String {
    let line = error.get("line").and_then(Value::as_u64).unwrap_or(0);
    let column = error.get("column").and_then(Value::as_u64).unwrap_or(0);
    let message = error.get("message").and_then(Value::as_str).unwrap_or("");
    format!("line {line}:{column} {message}")
}

fn closest_region(style: Style, closest: &Value) -> String {
    let first = closest.get("first_line").and_then(Value::as_u64).unwrap_or(0);
    let last = closest.get("last_line").and_then(Value::as_u64).unwrap_or(0);
    let similarity = closest.get("similarity").and_then(Value::as_f64).unwrap_or(0.0);
    let mut out = format!("  closest region: lines {first}-{last} ({:.0}% similar)\n", similarity * 100.0);
    if let Some(divergence) = closest.get("divergence").filter(|d| d.is_object()) {
        let line = divergence.get("line").and_then(Value::as_u64).unwrap_or(0);
        let expected = divergence.get("expected").and_then(Value::as_str).unwrap_or("");
        let found = divergence.get("found").and_then(Value::as_str).unwrap_or("");
        out.push_str(&format!("  first difference at line {line}:\n"));
        out.push_str(&format!("    {} {expected}\n", style.red("you gave:")));
        out.push_str(&format!("    {} {found}\n", style.green("file has:")));
    }
    out
}

/// The first 12 hex digits of a hash, enough for people to compare.
pub(crate) fn short_hash(hash: &str) -> String {
    hash.get(..12).map_or_else(|| hash.to_owned(), |h| format!("{h}…"))
}

/// Lines of `text` with a gutter of 1-based numbers, starting at `first`.
pub(crate) fn numbered(style: Style, text: &str, first: usize) -> String {
    let count = text.lines().count();
    let width = (first + count).to_string().len().max(3);
    let mut out = String::with_capacity(text.len() + count * (width + 3));
    for (idx, line) in text.lines().enumerate() {
        out.push_str(&style.dim(&format!("{:>width$} │", first + idx)));
        out.push(' ');
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Reports a toolkit that cannot be opened (missing root, bad glob) and gives the exit code.
pub(crate) fn cannot_open(err: &editkit::Error) -> u8 {
    let style = Style::stderr();
    eprint!("{}", refusal(style, &err.to_json()));
    EXIT_USAGE
}
