//! Line keys for the tolerant rungs, unescaping, indentation arithmetic and visible whitespace.

/// How much of a line a tolerant rung ignores; each level includes the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    /// Leading and trailing whitespace ignored.
    Trimmed,
    /// Plus typographic characters compared as ASCII.
    Unicode,
    /// Plus runs of internal whitespace collapsed.
    Whitespace,
}

/// The ASCII form of a typographic character, or `None` when the character stays as it is.
pub(crate) fn ascii_form(c: char) -> Option<&'static str> {
    match c {
        '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{FE58}' | '\u{FE63}' | '\u{FF0D}' => Some("-"),
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{FF07}' => Some("'"),
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{FF02}' => Some("\""),
        '\u{00A0}' | '\u{1680}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => Some(" "),
        '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}' => Some(""),
        '\u{2026}' => Some("..."),
        _ => None,
    }
}

/// Writes the key of `line` at `level` into `out` (cleared first).
pub(crate) fn key_into(level: Level, line: &str, out: &mut String) {
    out.clear();
    let trimmed = line.trim();
    match level {
        Level::Trimmed => out.push_str(trimmed),
        Level::Unicode => {
            for c in trimmed.chars() {
                match ascii_form(c) {
                    Some(form) => out.push_str(form),
                    None => out.push(c),
                }
            }
        }
        Level::Whitespace => {
            let mut in_space = false;
            let mut push = |c: char, out: &mut String| {
                if c.is_whitespace() {
                    if !in_space {
                        out.push(' ');
                    }
                    in_space = true;
                } else {
                    out.push(c);
                    in_space = false;
                }
            };
            for c in trimmed.chars() {
                match ascii_form(c) {
                    Some(form) => form.chars().for_each(|mapped| push(mapped, out)),
                    None => push(c, out),
                }
            }
        }
    }
    // Zero-width characters at the ends of a line vanish and may uncover whitespace.
    if level != Level::Trimmed {
        let kept = out.trim_end().len();
        out.truncate(kept);
        if out.starts_with(char::is_whitespace) {
            *out = out.trim_start().to_owned();
        }
    }
}

/// The key of `line` at `level`, as a new string.
pub(crate) fn key(level: Level, line: &str) -> String {
    let mut out = String::new();
    key_into(level, line, &mut out);
    out
}

/// Compares haystack lines with needle keys at one level, reusing a buffer.
pub(crate) struct KeyMatcher {
    level: Level,
    buffer: String,
}

impl KeyMatcher {
    pub(crate) fn new(level: Level) -> Self {
        Self { level, buffer: String::new() }
    }

    /// Whether `line`'s key equals `key` (a key made at the same level).
    pub(crate) fn eq(&mut self, line: &str, key: &str) -> bool {
        let trimmed = line.trim_start();
        // Cheap rejection: an ASCII first character maps to itself at every level.
        match (trimmed.as_bytes().first(), key.as_bytes().first()) {
            (None, None) => return true,
            (None, Some(_)) => return false,
            (Some(&first), expected) if first.is_ascii() && Some(&first) != expected => {
                return false;
            }
            _ => {}
        }
        if self.level == Level::Trimmed || line.is_ascii() && self.level == Level::Unicode {
            return line.trim() == key;
        }
        if line.is_ascii() {
            return eq_collapsed(line.trim(), key);
        }
        key_into(self.level, line, &mut self.buffer);
        self.buffer == key
    }
}

/// Whether an ASCII line, its whitespace runs collapsed, equals `key`; stops at the first
/// difference instead of building the key.
fn eq_collapsed(trimmed: &str, key: &str) -> bool {
    let mut expected = key.bytes();
    let mut in_space = false;
    for byte in trimmed.bytes() {
        if byte.is_ascii_whitespace() || byte == b'\x0b' {
            in_space = true;
            continue;
        }
        if in_space {
            in_space = false;
            if expected.next() != Some(b' ') {
                return false;
            }
        }
        if expected.next() != Some(byte) {
            return false;
        }
    }
    expected.next().is_none()
}

/// A whole line normalised at `level` (not trimmed), remembering where each piece came from.
pub(crate) struct Mapped {
    pub(crate) text: String,
    /// `starts[i]`: the line offset of the source character whose form begins at byte `i`.
    starts: Vec<Option<usize>>,
    /// `ends[i]`: the line offset just past the source character whose form ends at byte `i`.
    ends: Vec<Option<usize>>,
}

impl Mapped {
    pub(crate) fn new(level: Level, line: &str) -> Self {
        let mut mapped = Self {
            text: String::with_capacity(line.len()),
            starts: Vec::with_capacity(line.len() + 1),
            ends: Vec::with_capacity(line.len() + 1),
        };
        mapped.ends.push(Some(0));
        for (offset, c) in line.char_indices() {
            let mut utf8 = [0; 4];
            let form = match (level, ascii_form(c)) {
                (Level::Trimmed, _) | (_, None) => &*c.encode_utf8(&mut utf8),
                (_, Some(form)) => form,
            };
            if form.is_empty() {
                continue;
            }
            let collapse = level == Level::Whitespace && form.chars().all(char::is_whitespace);
            if collapse && mapped.text.ends_with(' ') {
                continue;
            }
            mapped.starts.push(Some(offset));
            if collapse {
                mapped.text.push(' ');
            } else {
                mapped.text.push_str(form);
            }
            // Pad the maps so they stay indexed by normalised byte.
            while mapped.starts.len() < mapped.text.len() {
                mapped.starts.push(None);
            }
            while mapped.ends.len() < mapped.text.len() {
                mapped.ends.push(None);
            }
            mapped.ends.push(Some(offset + c.len_utf8()));
        }
        mapped.starts.push(None);
        mapped
    }

    /// The line range of normalised bytes `start..end`, when both ends fall between source
    /// characters.
    pub(crate) fn source_range(&self, start: usize, end: usize) -> Option<(usize, usize)> {
        Some(((*self.starts.get(start)?)?, (*self.ends.get(end)?)?))
    }
}

/// Resolves `\n`, `\t`, `\r`, `\"`, `\'`, `` \` `` and `\\`; any other backslash stays.
pub(crate) fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let resolved = match chars.peek() {
            Some('n') => '\n',
            Some('t') => '\t',
            Some('r') => '\r',
            Some('"') => '"',
            Some('\'') => '\'',
            Some('`') => '`',
            // A JavaScript template literal written escaped: `\${name}`.
            Some('$') => '$',
            Some('\\') => '\\',
            _ => {
                out.push('\\');
                continue;
            }
        };
        chars.next();
        out.push(resolved);
    }
    out
}

/// Columns a tab advances; used only to compare and convert indentation.
pub(crate) const TAB_WIDTH: usize = 4;

/// The leading whitespace of a line.
pub(crate) fn indent_of(line: &str) -> &str {
    let content = line.trim_start();
    line.get(..line.len() - content.len()).unwrap_or("")
}

/// The width of leading whitespace in columns (a tab counts [`TAB_WIDTH`]).
pub(crate) fn indent_cols(line: &str) -> usize {
    indent_of(line).chars().map(|c| if c == '\t' { TAB_WIDTH } else { 1 }).sum()
}

/// Whether a line holds only whitespace.
pub(crate) fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Whether `text` holds a zero-width character the Unicode level drops (U+200B, U+200C,
/// U+200D, U+2060, U+FEFF).
pub(crate) fn has_zero_width(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memmem::find(bytes, "\u{FEFF}".as_bytes()).is_some()
        || memchr::memchr_iter(0xE2, bytes)
            .any(|at| matches!(bytes.get(at + 1..at + 3), Some([0x80, 0x8B..=0x8D]) | Some([0x81, 0xA0])))
}

/// The indentation unit of lines given as column widths relative to their first line:
/// the greatest common divisor of the non-zero offsets, or `None` when all are equal.
pub(crate) fn indent_unit(relative: impl IntoIterator<Item = isize>) -> Option<usize> {
    let unit = relative.into_iter().map(isize::unsigned_abs).fold(0, gcd);
    (unit > 0).then_some(unit)
}

/// Makes whitespace, CR and invisible characters visible, and cuts long lines.
pub(crate) fn visible(line: &str) -> String {
    const MAX_CHARS: usize = 160;
    let mut out = String::with_capacity(line.len() + 8);
    for (idx, c) in line.chars().enumerate() {
        if idx == MAX_CHARS {
            out.push('…');
            break;
        }
        match c {
            ' ' => out.push('·'),
            '\t' => out.push('→'),
            '\r' => out.push('␍'),
            c if c.is_whitespace() || ascii_form(c).is_some() || c.is_control() => {
                out.push_str(&format!("\\u{{{:04x}}}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_loosen_level_by_level() {
        let line = "  x\u{00A0}=\u{201C}a\u{201D}  \u{2014}   b \t";
        assert_eq!(key(Level::Trimmed, line), "x\u{00A0}=\u{201C}a\u{201D}  \u{2014}   b");
        assert_eq!(key(Level::Unicode, line), "x =\"a\"  -   b");
        assert_eq!(key(Level::Whitespace, line), "x =\"a\" - b");
    }

    #[test]
    fn matcher_agrees_with_key() {
        let mut matcher = KeyMatcher::new(Level::Whitespace);
        assert!(matcher.eq("\t  a   b  ", "a b"));
        assert!(!matcher.eq("a  c", "a b"));
        assert!(matcher.eq("   ", ""));
        assert!(!matcher.eq("x", ""));
        let mut unicode = KeyMatcher::new(Level::Unicode);
        assert!(unicode.eq("\u{200B}a\u{2019}s", "a's"));
    }

    #[test]
    fn mapped_lines_point_back_at_their_source() {
        let line = "  a\u{a0}\u{a0}=\u{201c}b\u{201d}\u{2026}";
        let mapped = Mapped::new(Level::Whitespace, line);
        assert_eq!(mapped.text, " a =\"b\"...");
        let start = mapped.text.find('a').unwrap();
        let end = mapped.text.len();
        assert_eq!(mapped.source_range(start, end), Some((2, line.len())));
        // Inside the ellipsis' expansion is not a source boundary.
        assert_eq!(mapped.source_range(start, end - 1), None);
        let unicode = Mapped::new(Level::Unicode, "x\u{200b}y");
        assert_eq!(unicode.text, "xy");
        assert_eq!(unicode.source_range(1, 2), Some((4, 5)));
    }

    #[test]
    fn collapsed_comparison_agrees_with_the_key() {
        for line in ["a  b", "a\tb  c", "ab", "a b c", "a\x0bb", "a\x0cb", "x"] {
            for other in ["a b", "a b c", "ab", "a  b", "x", ""] {
                let key = key(Level::Whitespace, other);
                assert_eq!(
                    eq_collapsed(line.trim(), &key),
                    self::key(Level::Whitespace, line) == key,
                    "{line:?} {other:?}"
                );
            }
        }
    }

    #[test]
    fn unescape_resolves_common_escapes() {
        assert_eq!(unescape(r#"a\nb\t\"c\"\\d\q"#), "a\nb\t\"c\"\\d\\q");
        assert_eq!(unescape("trailing\\"), "trailing\\");
    }

    #[test]
    fn indentation_helpers() {
        assert_eq!(indent_of("\t  x"), "\t  ");
        assert_eq!(indent_cols("\t  x"), 6);
        assert_eq!(indent_unit([0, 4, 8, -4]), Some(4));
        assert_eq!(indent_unit([0, 0]), None);
        assert_eq!(visible(" \t\r\u{a0}x"), "·→␍\\u{00a0}x");
    }
}
