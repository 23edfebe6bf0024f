//! The text codec: bytes on disk to LF-normalised text and back, byte for byte.
//!
//! [`Text::decode`] strips a UTF-8 BOM, refuses UTF-16/UTF-32, binary and invalid UTF-8, and
//! turns every line ending (`\n`, `\r\n`, a lone `\r`) into `\n` while remembering each one.
//! [`Text::encode`] gives back the original bytes exactly. [`Text::splice`] replaces a region of
//! the normalised text: lines outside the region keep their original endings, lines inside take
//! the ending they replace or, when there are more of them, the file's dominant ending.

use std::ops::Range;

/// How many leading bytes are scanned for a NUL when deciding that a file is binary.
pub const BINARY_SNIFF_BYTES: usize = 8 * 1024;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// One line terminator as it was on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum LineEnding {
    /// `\n`
    Lf,
    /// `\r\n`
    CrLf,
    /// A lone `\r` (classic Mac OS).
    Cr,
}

impl LineEnding {
    /// The terminator's bytes.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            LineEnding::Lf => "\n",
            LineEnding::CrLf => "\r\n",
            LineEnding::Cr => "\r",
        }
    }
}

/// The line endings of a whole file, summarised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum LineEndings {
    /// No line terminator at all (empty or single-line file).
    None,
    /// Only `\n`.
    Lf,
    /// Only `\r\n`.
    CrLf,
    /// Only lone `\r`.
    Cr,
    /// More than one kind.
    Mixed,
}

/// Why bytes are not editable text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// UTF-16 or UTF-32, by BOM or by the pattern of NUL bytes.
    #[error("the text is UTF-16 or UTF-32 encoded")]
    Utf16,
    /// A NUL byte in the first [`BINARY_SNIFF_BYTES`] bytes.
    #[error("the data looks binary (NUL byte at offset {offset})")]
    Binary {
        /// Offset of the first NUL byte.
        offset: usize,
    },
    /// Invalid UTF-8.
    #[error("the data is not valid UTF-8 (first bad byte at offset {offset})")]
    NotUtf8 {
        /// Byte offset (in the original bytes, BOM included) of the first invalid sequence.
        offset: usize,
    },
}

/// A range given to [`Text::splice`] that does not fit the text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("range {start}..{end} is not a char-boundary range of a text of {len} bytes")]
pub struct SpliceError {
    /// Start of the offending range.
    pub start: usize,
    /// End of the offending range.
    pub end: usize,
    /// Length of the text.
    pub len: usize,
}

/// Whether bytes are editable text, and if so the text they hold (without a UTF-8 BOM, line
/// endings as they are). The one place any editkit crate decides that a file is binary:
/// [`Text::decode`] builds on it, and the facade types files by it.
///
/// ```
/// use editkit_vfs::codec::{as_text, DecodeError};
/// assert_eq!(as_text(b"\xEF\xBB\xBFone\r\n"), Ok("one\r\n"));
/// assert_eq!(as_text(b"x\0y"), Err(DecodeError::Binary { offset: 1 }));
/// assert_eq!(as_text(b"\xFF\xFEa\0"), Err(DecodeError::Utf16));
/// ```
///
/// # Errors
/// As [`Text::decode`].
pub fn as_text(bytes: &[u8]) -> Result<&str, DecodeError> {
    if bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF") || bytes.starts_with(b"\x00\x00\xFE\xFF") {
        return Err(DecodeError::Utf16);
    }
    let (bom, body) = match bytes.strip_prefix(UTF8_BOM) {
        Some(rest) => (true, rest),
        None => (false, bytes),
    };
    let sniff = &body[..body.len().min(BINARY_SNIFF_BYTES)];
    if let Some(offset) = memchr_nul(sniff) {
        if looks_like_utf16(sniff) {
            return Err(DecodeError::Utf16);
        }
        return Err(DecodeError::Binary { offset: offset + if bom { UTF8_BOM.len() } else { 0 } });
    }
    std::str::from_utf8(body)
        .map_err(|err| DecodeError::NotUtf8 { offset: err.valid_up_to() + if bom { UTF8_BOM.len() } else { 0 } })
}

/// Decoded text: LF-normalised content plus what is needed to write it back byte for byte.
///
/// ```
/// use editkit_vfs::codec::Text;
/// let mut text = Text::decode(b"\xEF\xBB\xBFone\r\ntwo\r\nthree").unwrap();
/// assert_eq!(text.as_str(), "one\ntwo\nthree");
/// let at = text.as_str().find("two").unwrap();
/// text.splice(at..at + 3, "2\n2b").unwrap();
/// assert_eq!(text.encode(), b"\xEF\xBB\xBFone\r\n2\r\n2b\r\nthree");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    text: String,
    /// One entry per `\n` in `text`, in order.
    endings: Vec<LineEnding>,
    bom: bool,
}

impl Text {
    /// Decodes file bytes.
    ///
    /// # Errors
    /// [`DecodeError::Utf16`] for UTF-16/UTF-32 (BOM, or NUL bytes in an alternating pattern),
    /// [`DecodeError::Binary`] for a NUL byte in the first 8 KiB, [`DecodeError::NotUtf8`]
    /// otherwise when the bytes are not UTF-8.
    pub fn decode(bytes: &[u8]) -> Result<Text, DecodeError> {
        let body = as_text(bytes)?;
        let (text, endings) = normalise(body);
        Ok(Text { text, endings, bom: bytes.starts_with(UTF8_BOM) })
    }

    /// Builds a text from LF-normalised content (any `\r\n` or `\r` in it is normalised too)
    /// whose every line ending will be written as `ending`.
    #[must_use]
    pub fn new(content: &str, ending: LineEnding, bom: bool) -> Text {
        let (text, mut endings) = normalise(content);
        endings.iter_mut().for_each(|e| *e = ending);
        Text { text, endings, bom }
    }

    /// The LF-normalised text, without BOM.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Consumes the value, returning the LF-normalised text.
    #[must_use]
    pub fn into_string(self) -> String {
        self.text
    }

    /// Whether the file starts with a UTF-8 byte-order mark.
    #[must_use]
    pub fn bom(&self) -> bool {
        self.bom
    }

    /// Number of lines (a final line without terminator counts; an empty text has none).
    #[must_use]
    pub fn line_count(&self) -> usize {
        self.endings.len() + usize::from(!self.text.is_empty() && !self.text.ends_with('\n'))
    }

    /// Whether the text ends with a line terminator.
    #[must_use]
    pub fn trailing_newline(&self) -> bool {
        self.text.ends_with('\n')
    }

    /// The terminator of each line, in order.
    #[must_use]
    pub fn endings(&self) -> &[LineEnding] {
        &self.endings
    }

    /// Summary of the file's line endings.
    #[must_use]
    pub fn line_endings(&self) -> LineEndings {
        let mut seen = [false; 3];
        for ending in &self.endings {
            seen[*ending as usize] = true;
        }
        match seen {
            [false, false, false] => LineEndings::None,
            [true, false, false] => LineEndings::Lf,
            [false, true, false] => LineEndings::CrLf,
            [false, false, true] => LineEndings::Cr,
            _ => LineEndings::Mixed,
        }
    }

    /// The most common line ending (`Lf` for a text without any; ties go to `Lf`, then `CrLf`).
    #[must_use]
    pub fn dominant_ending(&self) -> LineEnding {
        let mut counts = [0usize; 3];
        for ending in &self.endings {
            counts[*ending as usize] += 1;
        }
        let [lf, crlf, cr] = counts;
        if lf >= crlf && lf >= cr {
            LineEnding::Lf
        } else if crlf >= cr {
            LineEnding::CrLf
        } else {
            LineEnding::Cr
        }
    }

    /// Encodes back to bytes: BOM, original endings of untouched lines.
    #[must_use]
    pub fn encode(&self) -> Vec<u8> {
        let extra = self.endings.iter().filter(|e| **e == LineEnding::CrLf).count();
        let mut out = Vec::with_capacity(self.text.len() + extra + 3);
        if self.bom {
            out.extend_from_slice(UTF8_BOM);
        }
        if self.endings.iter().all(|e| *e == LineEnding::Lf) {
            out.extend_from_slice(self.text.as_bytes());
            return out;
        }
        let mut endings = self.endings.iter();
        for piece in self.text.split_inclusive('\n') {
            match piece.strip_suffix('\n') {
                Some(line) => {
                    out.extend_from_slice(line.as_bytes());
                    let ending = endings.next().copied().unwrap_or(LineEnding::Lf);
                    out.extend_from_slice(ending.as_str().as_bytes());
                }
                None => out.extend_from_slice(piece.as_bytes()),
            }
        }
        out
    }

    /// A copy with room for `additional` more bytes of text, so splices that grow it by up to
    /// that much never reallocate (an edit of a large file then holds one copy of the new text,
    /// not a copy and a doubled buffer).
    ///
    /// ```
    /// let text = editkit_vfs::Text::decode(b"a\r\nb\r\n").unwrap();
    /// let mut copy = text.clone_with_capacity(3);
    /// copy.splice(0..1, "xyz").unwrap();
    /// assert_eq!(copy.encode(), b"xyz\r\nb\r\n");
    /// assert_eq!(text.as_str(), "a\nb\n");
    /// ```
    #[must_use]
    pub fn clone_with_capacity(&self, additional: usize) -> Text {
        let mut text = String::with_capacity(self.text.len().saturating_add(additional));
        text.push_str(&self.text);
        Text { text, endings: self.endings.clone(), bom: self.bom }
    }

    /// Replaces `range` of the normalised text with `replacement` (normalised first).
    ///
    /// Lines wholly before or after the range keep their original terminators. The terminators
    /// inside the range are reused in order for the replacement's lines; extra lines take the
    /// dominant ending.
    ///
    /// # Errors
    /// [`SpliceError`] when the range is reversed, past the end, or not on char boundaries; the
    /// text is then unchanged.
    pub fn splice(&mut self, range: Range<usize>, replacement: &str) -> Result<(), SpliceError> {
        let Range { start, end } = range;
        if start > end || !self.text.is_char_boundary(start) || !self.text.is_char_boundary(end) {
            return Err(SpliceError { start, end, len: self.text.len() });
        }
        let (replacement, _) = normalise(replacement);
        let dominant = self.dominant_ending();
        let first_line = count_newlines(&self.text[..start]);
        let removed = count_newlines(&self.text[start..end]);
        let added = count_newlines(&replacement);
        // The line after the new ones is touched unless the splice ends exactly at a line start
        // with a replacement that ends its own last line.
        let ends_at_line_start = end == 0 || self.text.as_bytes().get(end - 1) == Some(&b'\n');
        let tail_touched = !(ends_at_line_start && (replacement.is_empty() || replacement.ends_with('\n')));
        let new_endings: Vec<LineEnding> =
            (0..added).map(|i| if i < removed { self.endings[first_line + i] } else { dominant }).collect();
        self.endings.splice(first_line..first_line + removed, new_endings);
        self.text.replace_range(start..end, &replacement);
        if self.endings.contains(&LineEnding::Cr) {
            self.keep_lone_crs_apart(first_line, added, tail_touched);
        }
        Ok(())
    }

    /// A line ending in a lone CR followed by an empty line ending in LF would encode as one
    /// CRLF and lose a line. Only a splice can make that pair, so one of the two is a line the
    /// splice touched: that one's ending changes (the empty line takes a CR, or else the CR
    /// line an LF).
    fn keep_lone_crs_apart(&mut self, first_line: usize, added: usize, tail_touched: bool) {
        let from = first_line.saturating_sub(1);
        let empty: Vec<bool> = self.text.split('\n').skip(from).take(added + 2).map(str::is_empty).collect();
        for (offset, pair) in empty.windows(2).enumerate() {
            let (line, next) = (from + offset, from + offset + 1);
            let lone_cr_then_blank_lf = pair[1]
                && self.endings.get(line) == Some(&LineEnding::Cr)
                && self.endings.get(next) == Some(&LineEnding::Lf);
            if !lone_cr_then_blank_lf {
                continue;
            }
            // The lines the splice touched: its new lines, and the line its end falls in unless
            // the splice ended exactly at that line's start.
            let is_new = |idx: usize| {
                idx >= first_line && (idx < first_line + added || (idx == first_line + added && tail_touched))
            };
            if is_new(next) {
                self.endings[next] = LineEnding::Cr;
            } else if is_new(line) {
                self.endings[line] = LineEnding::Lf;
            }
        }
    }
}

fn memchr_nul(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|b| *b == 0)
}

/// UTF-16 without BOM: most of the NULs sit on one parity of offsets.
fn looks_like_utf16(sniff: &[u8]) -> bool {
    let pairs = sniff.len() / 2;
    if pairs < 2 {
        return false;
    }
    let (mut even, mut odd) = (0usize, 0usize);
    for pair in sniff.chunks_exact(2) {
        if pair[0] == 0 && pair[1] != 0 {
            even += 1;
        } else if pair[1] == 0 && pair[0] != 0 {
            odd += 1;
        }
    }
    even.max(odd) * 10 >= pairs * 4
}

fn count_newlines(s: &str) -> usize {
    s.bytes().filter(|b| *b == b'\n').count()
}

/// LF-normalises `s`, returning the text and the original terminator of each line.
fn normalise(s: &str) -> (String, Vec<LineEnding>) {
    if !s.contains('\r') {
        return (s.to_owned(), vec![LineEnding::Lf; count_newlines(s)]);
    }
    let mut text = String::with_capacity(s.len());
    let mut endings = Vec::new();
    let mut rest = s;
    while let Some(pos) = rest.find(['\r', '\n']) {
        text.push_str(&rest[..pos]);
        text.push('\n');
        let tail = &rest[pos..];
        let (ending, len) = if tail.starts_with("\r\n") {
            (LineEnding::CrLf, 2)
        } else if tail.starts_with('\r') {
            (LineEnding::Cr, 1)
        } else {
            (LineEnding::Lf, 1)
        };
        endings.push(ending);
        rest = &tail[len..];
    }
    text.push_str(rest);
    (text, endings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blank_line_spliced_after_a_lone_cr_survives_encoding() {
        // "a" ends in a lone CR; each splice leaves an empty line right after it.
        for (range, insert, expected) in [(2..2, "\n", "a\n\nb\nc\n"), (2..3, "", "a\n\nc\n")] {
            let mut text = Text::decode(b"a\rb\nc\n").unwrap();
            text.splice(range.clone(), insert).unwrap();
            assert_eq!(text.as_str(), expected);
            let again = Text::decode(&text.encode()).unwrap();
            assert_eq!(again.as_str(), expected, "{range:?} {insert:?}: {:?}", text.encode());
        }
    }

    #[test]
    fn lone_cr_round_trips() {
        let text = Text::decode(b"a\rb\r\nc\n").unwrap();
        assert_eq!(text.as_str(), "a\nb\nc\n");
        assert_eq!(text.line_endings(), LineEndings::Mixed);
        assert_eq!(text.encode(), b"a\rb\r\nc\n");
    }

    #[test]
    fn utf16_without_bom_is_recognised() {
        let bytes: Vec<u8> = "hello world".encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert_eq!(Text::decode(&bytes), Err(DecodeError::Utf16));
    }

    #[test]
    fn splice_reuses_endings_in_place() {
        let mut text = Text::decode(b"a\r\nb\nc\r\n").unwrap();
        text.splice(2..4, "B\n").unwrap();
        assert_eq!(text.encode(), b"a\r\nB\nc\r\n");
    }
}
