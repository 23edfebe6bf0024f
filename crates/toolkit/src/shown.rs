//! What editkit shows a reader (a model's text block, a terminal) of names and text it did not
//! write: a file name is one line that cannot be mistaken for another, and a file's content
//! printed to a terminal cannot drive it.
//!
//! - [`ShownPath`]: a name (a path, a root, a name given by an agent) as git quotes names. A
//!   name with nothing to escape is shown as it is; otherwise it is put in double quotes with
//!   `\"` and `\\`, C escapes (`\n`, `\r`, `\t`...) and three-digit octal bytes for every other
//!   control character, for the Unicode line and paragraph separators and bidi controls, and
//!   for bytes that are not UTF-8 (`\303`). The structured JSON keeps the exact name; every
//!   text block written for a model and every line printed for a person shows it through this.
//! - [`line()`]: a message that embeds a name or an agent's input, as one line: the same
//!   characters escaped, no quotes added ([`lines()`] keeps the line breaks a message of the
//!   contract was built with: [`crate::Error::message`] escapes everything else).
//! - [`terminal`]: a file's content for a terminal: tabs and line ends kept, every other
//!   control character (ESC, BEL, a lone CR, C1 controls), the separators and bidi controls
//!   shown visibly (`^[`, `^G`, `^M`, `<U+202E>`), so no escape sequence (OSC 52 clipboard
//!   writes, titles, hyperlinks, screen clears) reaches the terminal. Piped output stays
//!   byte-exact: callers use it only when the stream is a terminal.
//!
//! ```
//! use editkit::shown::{ShownPath, line, terminal};
//!
//! assert_eq!(ShownPath::new("src/app.py").to_string(), "src/app.py");
//! assert_eq!(ShownPath::new("a.txt\nb.py").to_string(), r#""a.txt\nb.py""#);
//! assert_eq!(ShownPath::new("n\x1b]0;PWN\x07.py").to_string(), r#""n\033]0;PWN\a.py""#);
//! assert_eq!(ShownPath::from_bytes(b"caf\xc3").to_string(), r#""caf\303""#);
//! assert_eq!(ShownPath::new("a\u{202e}b").to_string(), r#""a\342\200\256b""#);
//! assert_eq!(line("`a\nb` not found"), r"`a\nb` not found");
//! assert_eq!(terminal("x\x1b]52;c;AAAA\x07\n"), "x^[]52;c;AAAA^G\n");
//! ```

use std::borrow::Cow;
use std::fmt;

/// A name shown to a reader, quoted as git quotes names when it holds anything a reader could
/// misread: a control character, a line or paragraph separator, a bidi control, a `"`, a `\`,
/// or bytes that are not UTF-8. See the [module](self) for the rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShownPath<'a>(&'a [u8]);

impl<'a> ShownPath<'a> {
    /// A name as text.
    #[must_use]
    pub fn new(name: &'a str) -> ShownPath<'a> {
        ShownPath(name.as_bytes())
    }

    /// A name as bytes, which need not be UTF-8 (a file name on Unix).
    #[must_use]
    pub fn from_bytes(name: &'a [u8]) -> ShownPath<'a> {
        ShownPath(name)
    }

    /// A path of the platform, its bytes as they are (on Unix, the name on disk).
    #[must_use]
    pub fn from_path(path: &'a std::path::Path) -> ShownPath<'a> {
        ShownPath(path.as_os_str().as_encoded_bytes())
    }

    /// Whether the name is shown quoted (it holds something to escape).
    #[must_use]
    pub fn is_quoted(&self) -> bool {
        needs_quotes(self.0)
    }
}

impl fmt::Display for ShownPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !needs_quotes(self.0) {
            // Checked: the name is UTF-8 with nothing to escape.
            return f.write_str(std::str::from_utf8(self.0).unwrap_or_default());
        }
        f.write_str("\"")?;
        escape_into(f, self.0, true)?;
        f.write_str("\"")
    }
}

/// Whether a character could make a reader misread a line: a control character (C0, DEL,
/// C1), a line or paragraph separator, or a bidi control (Trojan Source).
#[must_use]
pub fn is_misleading(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

fn needs_quotes(bytes: &[u8]) -> bool {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.chars().any(|c| c == '"' || c == '\\' || is_misleading(c)),
        Err(_) => true,
    }
}

/// Writes `bytes` with every misleading character escaped git's way; `quoted` also escapes
/// `"` and `\` (inside quotes they would be ambiguous).
fn escape_into(out: &mut impl fmt::Write, bytes: &[u8], quoted: bool) -> fmt::Result {
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' if quoted => out.write_str("\\\"")?,
                '\\' if quoted => out.write_str("\\\\")?,
                '\x07' => out.write_str("\\a")?,
                '\x08' => out.write_str("\\b")?,
                '\t' => out.write_str("\\t")?,
                '\n' => out.write_str("\\n")?,
                '\x0b' => out.write_str("\\v")?,
                '\x0c' => out.write_str("\\f")?,
                '\r' => out.write_str("\\r")?,
                c if is_misleading(c) => {
                    let mut buf = [0u8; 4];
                    for byte in c.encode_utf8(&mut buf).bytes() {
                        write!(out, "\\{byte:03o}")?;
                    }
                }
                c => out.write_char(c)?,
            }
        }
        for byte in chunk.invalid() {
            write!(out, "\\{byte:03o}")?;
        }
    }
    Ok(())
}

/// A diff header's name (`a/` or `b/` and a path) as git writes it: quoted whole when the
/// path needs quotes (`"a/x\ny"`), so the diff's header lines stay two.
///
/// ```
/// assert_eq!(editkit::shown::diff_label("a/", "src/x.py"), "a/src/x.py");
/// assert_eq!(editkit::shown::diff_label("b/", "x\ny"), r#""b/x\ny""#);
/// ```
#[must_use]
pub fn diff_label(prefix: &str, path: &str) -> String {
    ShownPath::new(&format!("{prefix}{path}")).to_string()
}

/// The unified diff of a file's `old` and `new` text with its header names quoted as
/// [`diff_label`] quotes them ([`crate::diff::file`] for a name with nothing to escape).
#[must_use]
pub fn diff_file(path: &str, old: &str, new: &str, context: usize) -> String {
    crate::diff::unified(&diff_label("a/", path), &diff_label("b/", path), old, new, context)
}

/// [`crate::diff::bounded`] with its header names quoted as [`diff_label`] quotes them.
#[must_use]
pub fn diff_bounded(path: &str, old: &str, new: &str) -> (String, bool) {
    let (diff, truncated) = crate::diff::bounded(path, old, new);
    if !ShownPath::new(path).is_quoted() {
        return (diff, truncated);
    }
    let raw_headers = format!("--- a/{path}\n+++ b/{path}\n");
    match diff.strip_prefix(&raw_headers) {
        Some(body) => (format!("--- {}\n+++ {}\n{body}", diff_label("a/", path), diff_label("b/", path)), truncated),
        None => (diff, truncated),
    }
}

/// A diff whose header lines (`--- a/NAME`, `+++ b/NAME`, `rename from NAME`, `rename to
/// NAME`, `Binary files a/NAME and b/NAME differ`) name `names` as they are, with each name
/// that needs quotes quoted as [`diff_label`] quotes it. Lines that are not exactly such a
/// header are left alone.
#[must_use]
pub fn quote_diff_headers<'a>(diff: String, names: impl IntoIterator<Item = &'a String>) -> String {
    let hostile: Vec<&String> = names.into_iter().filter(|name| ShownPath::new(name).is_quoted()).collect();
    if hostile.is_empty() {
        return diff;
    }
    let mut headers: Vec<(String, String)> = Vec::new();
    for name in &hostile {
        let (a, b) = (format!("a/{name}"), format!("b/{name}"));
        headers.push((format!("--- {a}"), format!("--- {}", diff_label("a/", name))));
        headers.push((format!("+++ {b}"), format!("+++ {}", diff_label("b/", name))));
        headers.push((format!("rename from {name}"), format!("rename from {}", ShownPath::new(name))));
        headers.push((format!("rename to {name}"), format!("rename to {}", ShownPath::new(name))));
    }
    let mut out = String::with_capacity(diff.len() + 64);
    for line in diff.split_inclusive('\n') {
        let (body, end) = line.strip_suffix('\n').map_or((line, ""), |body| (body, "\n"));
        match headers.iter().find(|(raw, _)| raw == body) {
            Some((_, quoted)) => out.push_str(quoted),
            None if body.starts_with("Binary files ") && body.ends_with(" differ") => {
                let mut quoted = body.to_owned();
                for name in &hostile {
                    for prefix in ["a/", "b/"] {
                        quoted = quoted.replace(&format!("{prefix}{name}"), &diff_label(prefix, name));
                    }
                }
                out.push_str(&quoted);
            }
            None => out.push_str(body),
        }
        out.push_str(end);
    }
    out
}

/// A message that embeds names or an agent's input, as one line for a reader: every
/// misleading character escaped as [`ShownPath`] escapes it (`\n`, `\033`...), without quotes
/// (`"` and `\` stay as they are). Borrowed when there is nothing to escape.
#[must_use]
pub fn line(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_misleading) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    // Writing to a String cannot fail.
    let _ = escape_into(&mut out, text.as_bytes(), false);
    Cow::Owned(out)
}

/// A message whose line breaks are its own (a contract error's message, built by
/// [`crate::Error::message`]): each line escaped as [`line()`] escapes it, the `\n` between
/// lines kept.
#[must_use]
pub fn lines(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c != '\n' && is_misleading(c)) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.split('\n').map(line).collect::<Vec<_>>().join("\n"))
}

/// A file's content for a terminal: tabs and line ends (`\n`, `\r\n`) kept, every other
/// control character shown in caret notation (`^[` for ESC, `^G` for BEL, `^M` for a lone CR,
/// `^?` for DEL), C1 controls, line and paragraph separators and bidi controls as `<U+XXXX>`.
/// Borrowed when there is nothing to neutralise. For a terminal only: piped output is left
/// byte-exact.
#[must_use]
pub fn terminal(content: &str) -> Cow<'_, str> {
    let harmless = |(i, c): (usize, char)| {
        !is_misleading(c) || c == '\t' || c == '\n' || (c == '\r' && content.as_bytes().get(i + 1) == Some(&b'\n'))
    };
    if content.char_indices().all(harmless) {
        return Cow::Borrowed(content);
    }
    let mut out = String::with_capacity(content.len() + 8);
    for (i, c) in content.char_indices() {
        if harmless((i, c)) {
            out.push(c);
        } else if c.is_ascii_control() {
            out.push('^');
            // Caret notation: ESC is ^[, BEL ^G, DEL ^?.
            out.push(char::from((c as u8) ^ 0x40));
        } else {
            out.push_str(&format!("<U+{:04X}>", u32::from(c)));
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_quoted_as_git_quotes_them() {
        let cases: [(&[u8], &str); 9] = [
            (b"plain/name.py", "plain/name.py"),
            ("caf\u{e9}.md".as_bytes(), "caf\u{e9}.md"),
            (b"a\"b", r#""a\"b""#),
            (b"a\\b", r#""a\\b""#),
            (b"a\rb", r#""a\rb""#),
            (b"\x1b[2J\x7f", r#""\033[2J\177""#),
            (b"\xff\xfe", r#""\377\376""#),
            ("x\u{2028}y\u{85}".as_bytes(), r#""x\342\200\250y\302\205""#),
            (b"t\tv\x0bf\x0cb\x08", r#""t\tv\vf\fb\b""#),
        ];
        for (name, shown) in cases {
            assert_eq!(ShownPath::from_bytes(name).to_string(), shown, "{name:?}");
            assert_eq!(ShownPath::from_bytes(name).is_quoted(), shown.starts_with('"'));
        }
    }

    #[test]
    fn every_shown_name_is_one_line_of_printable_text() {
        let all: Vec<u8> = (0..=255u8).collect();
        let shown = ShownPath::from_bytes(&all).to_string();
        assert!(shown.chars().all(|c| !is_misleading(c)), "{shown}");
        let bidi: String = ('\u{2000}'..='\u{206f}').collect();
        assert!(ShownPath::new(&bidi).to_string().chars().all(|c| !is_misleading(c)));
        assert!(line(&bidi).chars().all(|c| !is_misleading(c)));
    }

    #[test]
    fn terminal_text_keeps_tabs_and_line_ends_only() {
        assert!(matches!(terminal("a\tb\r\nc\n"), Cow::Borrowed(_)));
        assert_eq!(terminal("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"), "^[]8;;http://x^[\\link^[]8;;^[\\");
        assert_eq!(terminal("a\rb\x7f\u{9b}2J\u{202e}"), "a^Mb^?<U+009B>2J<U+202E>");
        assert_eq!(terminal("end\r"), "end^M");
    }
}
