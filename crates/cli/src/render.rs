//! Printing for people: colours when the stream is a terminal (never with `NO_COLOR`),
//! coloured unified diffs, and refusals with the details an agent's error carries.
//!
//! Names are printed through [`editkit::shown::ShownPath`] (quoted as git quotes them) and
//! messages through [`editkit::shown::line`], on a terminal or not; a file's content is
//! neutralised ([`Style::content`]) only on a terminal, so piped output stays byte-exact.

use std::borrow::Cow;
use std::io::IsTerminal;

use editkit::shown::{self, ShownPath};
use editkit::{ErrorKind, SyntaxErrorInfo};

use crate::contract::{Closest, Refusal};
use crate::exit::EXIT_USAGE;

/// Whether and how to colour one output stream.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    color: bool,
    /// The stream is a terminal: a file's content is shown with its control characters made
    /// visible, so it cannot drive the terminal.
    terminal: bool,
}

impl Style {
    /// Colours for stdout: on a terminal without `NO_COLOR`, or with `CLICOLOR_FORCE`.
    pub(crate) fn stdout() -> Style {
        let terminal = std::io::stdout().is_terminal();
        Style { color: wants_color(terminal), terminal }
    }

    /// Colours for stderr, by the same rules.
    pub(crate) fn stderr() -> Style {
        let terminal = std::io::stderr().is_terminal();
        Style { color: wants_color(terminal), terminal }
    }

    /// No colours.
    #[cfg(test)]
    pub(crate) fn plain() -> Style {
        Style { color: false, terminal: false }
    }

    /// Colours, whatever the stream.
    #[cfg(test)]
    pub(crate) fn coloured() -> Style {
        Style { color: true, terminal: false }
    }

    /// A file's content (or a checker's report, an agent's text) for this stream: on a
    /// terminal its escape sequences and other control characters are shown, not run
    /// ([`shown::terminal`]); piped, it is left as it is.
    pub(crate) fn content(self, text: &str) -> Cow<'_, str> {
        if self.terminal { shown::terminal(text) } else { Cow::Borrowed(text) }
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
        let content = style.content(body);
        let body = content.as_ref();
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

/// A refusal for people: the kind, the message, then the details worth seeing (candidate
/// lines, the closest region, hashes, failing hunks, syntax errors).
pub(crate) fn refusal(style: Style, error: &Refusal) -> String {
    let kind = error.kind.as_deref().unwrap_or("error");
    let message = error.message.as_deref().unwrap_or("");
    // A patch's message lists its failures; they are printed below with their details.
    let failures = &error.failures;
    let message = if failures.is_empty() { message } else { message.lines().next().unwrap_or(message) };
    // A safety refusal (the input was fine, acting on it was not) reads differently from an
    // error in the input or a missing file.
    let head = if error.error_kind().is_some_and(is_refusal) {
        format!("refused ({kind}):")
    } else {
        format!("error ({kind}):")
    };
    let mut out = format!("{} {}\n", style.red(&style.bold(&head)), shown::lines(message));
    if let Some(closest) = &error.closest {
        out.push_str(&closest_region(style, closest));
    }
    for failure in failures {
        let path = ShownPath::new(failure.path.as_deref().unwrap_or("?"));
        let hunk = failure.hunk.map(|h| format!(" hunk {h}")).unwrap_or_default();
        let line = failure.patch_line;
        let kind = shown::line(failure.kind.as_deref().unwrap_or("?"));
        let why = shown::line(&failure.message);
        out.push_str(&format!("  {} {path}{hunk} (patch line {line}): {why}\n", style.yellow(&format!("[{kind}]"))));
    }
    for e in error.syntax_errors.iter().take(10) {
        out.push_str(&format!("  {}\n", syntax_error(e)));
    }
    if let Some(field) = &error.field
        && !message.contains(&format!("`{field}`"))
    {
        out.push_str(&format!("  field: {}\n", shown::line(field)));
    }
    out
}

/// Whether an error kind is a safety refusal rather than bad input or a missing thing.
const fn is_refusal(kind: ErrorKind) -> bool {
    match kind {
        ErrorKind::Ambiguous
        | ErrorKind::AlreadyApplied
        | ErrorKind::NoChange
        | ErrorKind::Stale
        | ErrorKind::OutsideWorkspace
        | ErrorKind::Blocked
        | ErrorKind::PermissionDenied
        | ErrorKind::Exists
        | ErrorKind::SyntaxError
        | ErrorKind::TooLarge => true,
        ErrorKind::NotFound
        | ErrorKind::NotUtf8
        | ErrorKind::Utf16
        | ErrorKind::Binary
        | ErrorKind::NotEncodable
        | ErrorKind::IsDirectory
        | ErrorKind::InvalidPatch
        | ErrorKind::InvalidArgs
        | ErrorKind::Io
        | ErrorKind::Unavailable => false,
    }
}

/// `line L:C message` for one syntax error.
pub(crate) fn syntax_error(error: &SyntaxErrorInfo) -> String {
    format!("line {}:{} {}", error.line, error.column, shown::line(&error.message))
}

fn closest_region(style: Style, closest: &Closest) -> String {
    let (first, last) = (closest.first_line, closest.last_line);
    let mut out = format!("  closest region: lines {first}-{last} ({:.0}% similar)\n", closest.similarity * 100.0);
    if let Some(divergence) = &closest.divergence {
        out.push_str(&format!("  first difference at line {}:\n", divergence.line));
        out.push_str(&format!("    {} {}\n", style.red("you gave:"), shown::line(&divergence.expected)));
        out.push_str(&format!("    {} {}\n", style.green("file has:"), shown::line(&divergence.found)));
    }
    out
}

/// Lines of `text` with a gutter of 1-based numbers, starting at `first`.
pub(crate) fn numbered(style: Style, text: &str, first: usize) -> String {
    let count = text.lines().count();
    let width = (first + count).to_string().len().max(3);
    let mut out = String::with_capacity(text.len() + count * (width + 3));
    for (idx, line) in text.lines().enumerate() {
        out.push_str(&style.dim(&format!("{:>width$} │", first + idx)));
        out.push(' ');
        out.push_str(&style.content(line));
        out.push('\n');
    }
    out
}

/// Reports a toolkit that cannot be opened (missing root, bad `--block` pattern) naming what
/// and the flag, and gives the exit code.
pub(crate) fn cannot_open(err: &editkit::Error, roots: &[std::path::PathBuf]) -> u8 {
    let style = Style::stderr();
    let error = Refusal::of_error(err);
    let path = error.path.as_deref().unwrap_or("");
    let message = error.message.as_deref().unwrap_or("");
    let given_root = roots.iter().any(|root| root.as_os_str() == path) || (roots.is_empty() && path == ".");
    let shown_path = ShownPath::new(path);
    let text = match err.error_kind() {
        ErrorKind::NotFound if given_root => {
            format!("the workspace root `{shown_path}` does not exist (--root {shown_path})")
        }
        ErrorKind::InvalidArgs if message.contains("blocked pattern") => {
            let why = message.rsplit_once("blocked pattern: ").map_or(message, |(_, why)| why);
            format!("--block `{shown_path}` is not a usable pattern: {}", shown::line(why))
        }
        _ => {
            eprint!("{}", refusal(style, &error));
            return EXIT_USAGE;
        }
    };
    eprintln!("{} {text}", style.red(&style.bold("error:")));
    EXIT_USAGE
}

/// The first 12 hex digits of a hash, enough for people to compare.
pub(crate) fn short_hash(hash: &str) -> String {
    hash.get(..12).map_or_else(|| hash.to_owned(), |h| format!("{h}…"))
}
