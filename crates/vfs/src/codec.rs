//! The text codec: bytes on disk to LF-normalised text and back, byte for byte.
//!
//! [`Text::decode`] strips a UTF-8 BOM, refuses UTF-16/UTF-32, binary and invalid UTF-8, and
//! turns every line ending (`\n`, `\r\n`, a lone `\r`) into `\n` while remembering each one.
//! [`Text::encode`] gives back the original bytes exactly. [`Text::splice`] replaces a region of
//! the normalised text: lines outside the region keep their original endings, lines inside take
//! the ending they replace or, when there are more of them, the file's dominant ending.
//!
//! A file that is not UTF-8 is decoded from its own encoding when that is established with
//! confidence (see [`crate::encoding`]) and encoded back to it: the text remembers its
//! [`Encoding`].

use std::borrow::Cow;
use std::ops::Range;

use crate::encoding::{Decoded, decode_in, detect_iso_2022_jp, detect_legacy, detect_utf16};
use crate::encoding::{Encoding, Unencodable};

/// How many leading bytes tell UTF-16 without a byte-order mark by its NULs
/// ([`nul_verdict`]), and what a search reads of a file first: a NUL in the first 8 KiB that
/// makes the file binary ends the read there.
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
    pub(crate) fn as_str(self) -> &'static str {
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
    /// UTF-16 or UTF-32, by BOM or by the pattern of NUL bytes, and not established as
    /// UTF-16 (no BOM, too short, or not decoding back to itself).
    #[error("the text is UTF-16 or UTF-32 encoded")]
    Utf16,
    /// A NUL byte, in data that is not UTF-16 or UTF-32 ([`nul_verdict`]).
    #[error("the data looks binary (NUL byte at offset {offset})")]
    Binary {
        /// Offset of the first NUL byte.
        offset: usize,
    },
    /// Invalid UTF-8, and no other encoding established with confidence.
    #[error("the data is not valid UTF-8 (first bad byte at offset {offset})")]
    NotUtf8 {
        /// Byte offset (in the original bytes, BOM included) of the first invalid sequence.
        offset: usize,
        /// The encoding a detector guessed, not established (too little evidence, or the
        /// bytes do not decode and encode back to themselves in it).
        guess: Option<Encoding>,
    },
    /// The bytes are not in the encoding the caller named: they do not decode in it, or do
    /// not encode back to themselves.
    #[error("the data is not valid {encoding} (first bad byte at offset {offset})")]
    NotInEncoding {
        /// The encoding named.
        encoding: Encoding,
        /// Byte offset of the first byte that does not decode or encode back.
        offset: usize,
    },
}

/// A range given to [`Text::splice`] that does not fit the text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "range {start}..{end} does not fit a text of {len} bytes (reversed, past the end, off a char boundary, or \
     overlapping the range before it)"
)]
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
/// use editkit_vfs::{as_text, DecodeError};
/// assert_eq!(as_text(b"\xEF\xBB\xBFone\r\n"), Ok("one\r\n"));
/// assert_eq!(as_text(b"x\0y"), Err(DecodeError::Binary { offset: 1 }));
/// assert_eq!(as_text(b"\xFF\xFEa\0"), Err(DecodeError::Utf16));
/// ```
///
/// # Errors
/// As [`Text::decode`].
pub fn as_text(bytes: &[u8]) -> Result<&str, DecodeError> {
    as_text_sniffed(bytes).map(|(text, _)| text)
}

/// [`as_text`], with what [`sniff`] found on the way.
fn as_text_sniffed(bytes: &[u8]) -> Result<(&str, Sniffed), DecodeError> {
    let sniffed = sniff(bytes)?;
    let bom = sniffed.bom;
    let body = if bom { &bytes[UTF8_BOM.len()..] } else { bytes };
    let text = std::str::from_utf8(body).map_err(|err| DecodeError::NotUtf8 {
        offset: err.valid_up_to() + if bom { UTF8_BOM.len() } else { 0 },
        guess: None,
    })?;
    Ok((text, sniffed))
}

/// What [`sniff`] found in bytes it let through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Sniffed {
    /// They start with a UTF-8 BOM.
    bom: bool,
    /// They hold an escape byte (ISO-2022-JP text starts with one): found by the same scan
    /// that looks for a NUL, so a file is scanned once for both.
    escape: bool,
}

/// Every check of [`as_text`] but the UTF-8 validation: refuses UTF-16/UTF-32 and binary
/// data; whether the bytes start with a UTF-8 BOM and hold an escape.
fn sniff(bytes: &[u8]) -> Result<Sniffed, DecodeError> {
    if has_utf16_bom(bytes) {
        return Err(DecodeError::Utf16);
    }
    // One scan for both: a NUL, and an escape (past which a NUL is still looked for).
    let (nul, escape) = match memchr::memchr2(0, 0x1B, bytes) {
        None => (None, false),
        Some(at) if bytes.get(at) == Some(&0) => (Some(at), false),
        Some(at) => (bytes.get(at..).and_then(memchr_nul).map(|nul| at + nul), true),
    };
    if let Some(nul) = nul {
        return Err(nul_verdict(bytes, nul));
    }
    Ok(Sniffed { bom: bytes.starts_with(UTF8_BOM), escape })
}

/// A UTF-16 or UTF-32 byte-order mark.
fn has_utf16_bom(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF") || bytes.starts_with(b"\x00\x00\xFE\xFF")
}

/// The binary rule, decided here only: what data holding a NUL byte is. UTF-16 or UTF-32
/// ([`DecodeError::Utf16`]) when it starts with their byte-order mark or when most NULs of its
/// first [`BINARY_SNIFF_BYTES`] sit on one parity of offsets; else binary
/// ([`DecodeError::Binary`]), wherever the NUL is. [`Text::decode`] and every read decide by
/// it, and the search crate asks it of what it has read (the head, the first
/// [`BINARY_SNIFF_BYTES`] and a BOM's length, is enough), so a file is the same kind to every
/// tool.
///
/// `head` is the data's beginning (at least [`BINARY_SNIFF_BYTES`] and a BOM's length when
/// there are that many bytes), `nul` the offset of its first NUL, in `head` or past it.
///
/// ```
/// use editkit_vfs::{nul_verdict, DecodeError};
/// assert_eq!(nul_verdict(b"x\0y", 1), DecodeError::Binary { offset: 1 });
/// assert_eq!(nul_verdict(b"h\0i\0!\0", 1), DecodeError::Utf16);
/// // A NUL far past a head of text: binary all the same.
/// let head = vec![b'x'; 9000];
/// assert_eq!(nul_verdict(&head, 20_000), DecodeError::Binary { offset: 20_000 });
/// ```
#[must_use]
pub fn nul_verdict(head: &[u8], nul: usize) -> DecodeError {
    if has_utf16_bom(head) {
        return DecodeError::Utf16;
    }
    let body = head.strip_prefix(UTF8_BOM).unwrap_or(head);
    if looks_like_utf16(&body[..body.len().min(BINARY_SNIFF_BYTES)]) {
        return DecodeError::Utf16;
    }
    DecodeError::Binary { offset: nul }
}

/// Whether data that [`nul_verdict`] calls [`DecodeError::Utf16`] may still decode as text: only
/// when it starts with a UTF-16 byte-order mark, the one way [`Text::decode`] establishes
/// UTF-16. Without one it is refused whatever follows, so a reader holding its head need not
/// read on (the search stops there).
///
/// ```
/// use editkit_vfs::utf16_may_decode;
/// assert!(utf16_may_decode(b"\xFF\xFEh\0i\0"));
/// assert!(!utf16_may_decode(b"h\0i\0"));
/// ```
#[must_use]
pub fn utf16_may_decode(head: &[u8]) -> bool {
    crate::encoding::utf16_bom(head).is_some()
}

/// Decoded text: LF-normalised content plus what is needed to write it back byte for byte.
///
/// ```
/// use editkit_vfs::Text;
/// let mut text = Text::decode(b"\xEF\xBB\xBFone\r\ntwo\r\nthree").unwrap();
/// assert_eq!(text.as_str(), "one\ntwo\nthree");
/// let at = text.as_str().find("two").unwrap();
/// text.splice(at..at + 3, "2\n2b").unwrap();
/// assert_eq!(text.encode(), b"\xEF\xBB\xBFone\r\n2\r\n2b\r\nthree");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    text: String,
    /// The terminator of each `\n` in `text`, in order.
    endings: Endings,
    /// Whether the file starts with its encoding's byte-order mark.
    bom: bool,
    encoding: Encoding,
}

/// The line endings of a text: a count while every one is LF (the common case needs no
/// bookkeeping per line, so decoding, splicing and encoding a large file cost a scan or a copy
/// of its bytes), else one entry per line. Canonical: `Each` always holds an ending other than
/// LF, so equal texts have equal endings.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Endings {
    /// This many line endings, all LF.
    Lf(usize),
    /// One entry per line, at least one of them not LF.
    Each(Vec<LineEnding>),
}

impl Endings {
    fn from_each(each: Vec<LineEnding>) -> Endings {
        if each.iter().all(|ending| *ending == LineEnding::Lf) { Endings::Lf(each.len()) } else { Endings::Each(each) }
    }

    fn len(&self) -> usize {
        match self {
            Endings::Lf(count) => *count,
            Endings::Each(each) => each.len(),
        }
    }
}

impl Text {
    /// Decodes file bytes: UTF-8, or another encoding established with confidence (UTF-16
    /// with a BOM, ISO-2022-JP by its escapes, a legacy encoding by detection), always one the
    /// bytes decode in and encode back to exactly.
    ///
    /// ```
    /// use editkit_vfs::{DecodeError, Text};
    /// let line = "hello world, and a little more than one line's worth of text\n";
    /// let bytes: Vec<u8> = [0xFF, 0xFE].into_iter().chain(line.encode_utf16().flat_map(u16::to_le_bytes)).collect();
    /// let text = Text::decode(&bytes).unwrap();
    /// assert_eq!((text.as_str(), text.encoding().label(), text.bom()), (line, "utf-16le", true));
    /// assert_eq!(text.encode(), bytes);
    /// // One accented letter says too little to tell windows-1252 from windows-1251.
    /// assert!(matches!(Text::decode(b"caf\xE9\n"), Err(DecodeError::NotUtf8 { offset: 3, guess: Some(_) })));
    /// ```
    ///
    /// # Errors
    /// [`DecodeError::Utf16`] for UTF-16/UTF-32 not established as UTF-16 (BOM, or NUL bytes
    /// in an alternating pattern), [`DecodeError::Binary`] for a NUL byte anywhere else
    /// ([`nul_verdict`]),
    /// [`DecodeError::NotUtf8`] (with the best guess) when the bytes are not UTF-8 and no other
    /// encoding is established.
    pub fn decode(bytes: &[u8]) -> Result<Text, DecodeError> {
        match as_text_sniffed(bytes) {
            Ok((body, sniffed)) => {
                if sniffed.escape
                    && let Some(decoded) = detect_iso_2022_jp(bytes)
                {
                    return Ok(Text::from_decoded(decoded));
                }
                let (text, endings) = normalise(body);
                Ok(Text { text, endings, bom: bytes.starts_with(UTF8_BOM), encoding: Encoding::utf8() })
            }
            Err(err) => Text::decode_other(bytes, err),
        }
    }

    /// The text of bytes that are not UTF-8 (`err` says why), in the encoding they are
    /// established to be in, else `err` with the best guess.
    pub(crate) fn decode_other(bytes: &[u8], err: DecodeError) -> Result<Text, DecodeError> {
        match err {
            DecodeError::Utf16 => detect_utf16(bytes).map(Text::from_decoded).ok_or(DecodeError::Utf16),
            DecodeError::NotUtf8 { offset, .. } if !bytes.starts_with(UTF8_BOM) => match detect_legacy(bytes) {
                Ok(decoded) => Ok(Text::from_decoded(decoded)),
                Err(guess) => Err(DecodeError::NotUtf8 { offset, guess }),
            },
            err => Err(err),
        }
    }

    /// Decodes file bytes in the encoding the caller names instead of detecting it: the bytes
    /// must decode in it and encode back to exactly themselves (a UTF-16 BOM of that encoding
    /// is kept as the text's BOM; for UTF-8 this is [`Text::decode`] without detection).
    ///
    /// ```
    /// use editkit_vfs::{Encoding, Text};
    /// let latin = Encoding::for_label("windows-1252").unwrap();
    /// let text = Text::decode_as(b"caf\xE9\n", latin).unwrap();
    /// assert_eq!(text.as_str(), "caf\u{e9}\n");
    /// assert_eq!(text.encode(), b"caf\xE9\n");
    /// ```
    ///
    /// # Errors
    /// [`DecodeError::NotInEncoding`] for bytes that do not decode in `encoding` or do not
    /// encode back to themselves; [`DecodeError::Binary`] for a NUL byte anywhere in a file
    /// named in a single- or multi-byte encoding; for UTF-8, as [`Text::decode`].
    pub fn decode_as(bytes: &[u8], encoding: Encoding) -> Result<Text, DecodeError> {
        if encoding.is_utf8() {
            let body = as_text(bytes)?;
            let (text, endings) = normalise(body);
            return Ok(Text { text, endings, bom: bytes.starts_with(UTF8_BOM), encoding });
        }
        if !encoding.is_utf16()
            && let Some(offset) = memchr_nul(bytes)
        {
            return Err(DecodeError::Binary { offset });
        }
        decode_in(bytes, encoding)
            .map(Text::from_decoded)
            .map_err(|mismatch| DecodeError::NotInEncoding { encoding, offset: mismatch.offset })
    }

    fn from_decoded(decoded: Decoded) -> Text {
        let (text, endings) = normalise(&decoded.text);
        Text { text, endings, bom: decoded.bom, encoding: decoded.encoding }
    }

    /// Decodes file bytes it takes over: a file without BOM or CR is not copied (its bytes
    /// become the text). The same result and errors as [`Text::decode`].
    ///
    /// ```
    /// use editkit_vfs::Text;
    /// let text = Text::decode_owned(b"one\r\ntwo\n".to_vec()).unwrap();
    /// assert_eq!(text, Text::decode(b"one\r\ntwo\n").unwrap());
    /// assert_eq!(text.as_str(), "one\ntwo\n");
    /// ```
    ///
    /// # Errors
    /// As [`Text::decode`].
    pub fn decode_owned(bytes: Vec<u8>) -> Result<Text, DecodeError> {
        Text::try_decode_owned(bytes).map_err(|(err, _)| err)
    }

    /// [`Text::decode_owned`], giving the bytes back with the error (a caller that keeps a
    /// file it cannot decode as raw bytes copies nothing either way).
    ///
    /// ```
    /// use editkit_vfs::{DecodeError, Text};
    /// let (err, bytes) = Text::try_decode_owned(b"a\0b".to_vec()).unwrap_err();
    /// assert!(matches!(err, DecodeError::Binary { .. }));
    /// assert_eq!(bytes, b"a\0b");
    /// assert_eq!(Text::try_decode_owned(b"ok\n".to_vec()).unwrap().as_str(), "ok\n");
    /// ```
    ///
    /// # Errors
    /// As [`Text::decode`], with the bytes.
    pub fn try_decode_owned(bytes: Vec<u8>) -> Result<Text, (DecodeError, Vec<u8>)> {
        match Text::decode_or_return(bytes) {
            Ok(text) => Ok(text),
            Err((err @ DecodeError::Binary { .. }, bytes)) => Err((err, bytes)),
            Err((err, bytes)) => match Text::decode_other(&bytes, err) {
                Ok(text) => Ok(text),
                Err(err) => Err((err, bytes)),
            },
        }
    }

    /// [`Text::decode_owned`] for UTF-8 (and ISO-2022-JP) only, giving the bytes back with the
    /// error: the caller may hash them before trying other encodings.
    pub(crate) fn decode_or_return(bytes: Vec<u8>) -> Result<Text, (DecodeError, Vec<u8>)> {
        let Sniffed { bom, escape } = match sniff(&bytes) {
            Ok(sniffed) => sniffed,
            Err(err) => return Err((err, bytes)),
        };
        // The BOM is valid UTF-8, so offsets of invalid bytes are already the file's.
        let mut text = String::from_utf8(bytes).map_err(|err| {
            (DecodeError::NotUtf8 { offset: err.utf8_error().valid_up_to(), guess: None }, err.into_bytes())
        })?;
        if escape && let Some(decoded) = detect_iso_2022_jp(text.as_bytes()) {
            return Ok(Text::from_decoded(decoded));
        }
        if bom {
            text.drain(..UTF8_BOM.len());
        }
        if has_cr(&text) {
            let (text, endings) = normalise(&text);
            return Ok(Text { text, endings, bom, encoding: Encoding::utf8() });
        }
        let endings = Endings::Lf(count_newlines(&text));
        Ok(Text { text, endings, bom, encoding: Encoding::utf8() })
    }

    /// Builds a text from LF-normalised content (any `\r\n` or `\r` in it is normalised too)
    /// whose every line ending will be written as `ending`.
    #[must_use]
    pub fn new(content: &str, ending: LineEnding, bom: bool) -> Text {
        let (text, endings) = normalise(content);
        let endings = match endings.len() {
            count if ending == LineEnding::Lf || count == 0 => Endings::Lf(count),
            count => Endings::Each(vec![ending; count]),
        };
        Text { text, endings, bom, encoding: Encoding::utf8() }
    }

    /// This text, to be written in `encoding` (with that encoding's BOM when [`Text::bom`]).
    ///
    /// ```
    /// use editkit_vfs::{Encoding, LineEnding, Text};
    /// let koi8 = Encoding::for_label("koi8-r").unwrap();
    /// let text = Text::new("да\n", LineEnding::CrLf, false).in_encoding(koi8);
    /// assert_eq!(text.try_encoded().unwrap().as_ref(), b"\xC4\xC1\r\n");
    /// ```
    #[must_use]
    pub fn in_encoding(mut self, encoding: Encoding) -> Text {
        self.encoding = encoding;
        self
    }

    /// The encoding the text was read in and is written back in.
    #[must_use]
    pub fn encoding(&self) -> Encoding {
        self.encoding
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

    /// Whether the file starts with its encoding's byte-order mark (UTF-8 or UTF-16).
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
    pub fn endings(&self) -> Cow<'_, [LineEnding]> {
        match &self.endings {
            Endings::Lf(count) => Cow::Owned(vec![LineEnding::Lf; *count]),
            Endings::Each(each) => Cow::Borrowed(each),
        }
    }

    /// Summary of the file's line endings.
    #[must_use]
    pub fn line_endings(&self) -> LineEndings {
        let each = match &self.endings {
            Endings::Lf(0) => return LineEndings::None,
            Endings::Lf(_) => return LineEndings::Lf,
            Endings::Each(each) => each,
        };
        let mut seen = [false; 3];
        for ending in each {
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
        let Endings::Each(each) = &self.endings else { return LineEnding::Lf };
        let mut counts = [0usize; 3];
        for ending in each {
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

    /// Encodes back to bytes: BOM, original endings of untouched lines, the text's encoding.
    /// For a text in an encoding other than UTF-8 that may hold a character the encoding
    /// cannot (after a splice), write [`Text::try_encoded`] instead: here such a character
    /// becomes a numeric character reference (`&#12354;`).
    #[must_use]
    pub fn encode(&self) -> Vec<u8> {
        self.encoded().into_owned()
    }

    /// The bytes of this text in its encoding, refusing a character the encoding cannot hold.
    ///
    /// ```
    /// use editkit_vfs::{Encoding, Text};
    /// let latin = Encoding::for_label("windows-1252").unwrap();
    /// let mut text = Text::decode_as(b"caf\xE9\r\nthe\r\n", latin).unwrap();
    /// text.splice(6..9, "\u{3042}").unwrap();
    /// let err = text.try_encoded().unwrap_err();
    /// assert_eq!((err.character, err.line), ('\u{3042}', 2));
    /// ```
    ///
    /// # Errors
    /// [`Unencodable`]: the first character the encoding cannot hold, with its line.
    pub fn try_encoded(&self) -> Result<Cow<'_, [u8]>, Unencodable> {
        if self.encoding.is_utf8() {
            return Ok(self.encoded());
        }
        let utf8 = self.utf8_bytes(false);
        let text = std::str::from_utf8(&utf8).expect("the text's own bytes with ASCII line ends are UTF-8");
        let body = crate::encoding::encode(text, self.encoding).map_err(|err| {
            // The line in the LF-normalised text (a lone CR ends a line the encoded text counts too).
            let at = self.text.find(err.character).unwrap_or(0);
            Unencodable { line: 1 + count_newlines(&self.text[..at]), ..err }
        })?;
        let bom = if self.bom { self.encoding.bom() } else { b"" };
        let mut out = Vec::with_capacity(bom.len() + body.len());
        out.extend_from_slice(bom);
        out.extend_from_slice(&body);
        Ok(Cow::Owned(out))
    }

    /// The bytes [`Text::encode`] gives, borrowed from the text when they are the text's own
    /// (no BOM, every line ending LF): a large file is then written without a copy.
    ///
    /// ```
    /// use std::borrow::Cow;
    /// let text = editkit_vfs::Text::decode(b"a\nb\n").unwrap();
    /// assert!(matches!(text.encoded(), Cow::Borrowed(b"a\nb\n")));
    /// let text = editkit_vfs::Text::decode(b"a\r\nb\n").unwrap();
    /// assert_eq!(text.encoded().as_ref(), b"a\r\nb\n");
    /// ```
    #[must_use]
    pub fn encoded(&self) -> Cow<'_, [u8]> {
        if let Some(bytes) = self.verbatim() {
            return Cow::Borrowed(bytes);
        }
        if !self.encoding.is_utf8() {
            let utf8 = self.utf8_bytes(false);
            let text = String::from_utf8_lossy(&utf8);
            let body = crate::encoding::encode_lossy(&text, self.encoding);
            let bom = if self.bom { self.encoding.bom() } else { b"" };
            return Cow::Owned([bom, body.as_ref()].concat());
        }
        self.utf8_bytes(self.bom)
    }

    /// The text with the line endings it has on disk (no BOM), whatever its encoding.
    ///
    /// ```
    /// let text = editkit_vfs::Text::decode(b"a\r\nb\n").unwrap();
    /// assert_eq!(text.with_endings(), "a\r\nb\n");
    /// ```
    #[must_use]
    pub fn with_endings(&self) -> Cow<'_, str> {
        match self.utf8_bytes(false) {
            Cow::Borrowed(bytes) => Cow::Borrowed(std::str::from_utf8(bytes).expect("the text's own bytes")),
            Cow::Owned(bytes) => {
                Cow::Owned(String::from_utf8(bytes).expect("the text's bytes with ASCII line ends are UTF-8"))
            }
        }
    }

    /// The text with its line endings in UTF-8, with a UTF-8 BOM when `bom`.
    fn utf8_bytes(&self, bom: bool) -> Cow<'_, [u8]> {
        if !bom && let Endings::Lf(_) = self.endings {
            return Cow::Borrowed(self.text.as_bytes());
        }
        let each = match &self.endings {
            Endings::Each(each) => each.as_slice(),
            Endings::Lf(_) => &[],
        };
        let extra = each.iter().filter(|e| **e == LineEnding::CrLf).count();
        let mut out = Vec::with_capacity(self.text.len() + extra + 3);
        if bom {
            out.extend_from_slice(UTF8_BOM);
        }
        if each.is_empty() {
            out.extend_from_slice(self.text.as_bytes());
            return Cow::Owned(out);
        }
        let mut endings = each.iter();
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
        Cow::Owned(out)
    }

    /// The encoded bytes when they are exactly the text's (UTF-8, no BOM, only LF endings).
    #[must_use]
    pub fn verbatim(&self) -> Option<&[u8]> {
        (self.encoding.is_utf8() && !self.bom && matches!(self.endings, Endings::Lf(_))).then_some(self.text.as_bytes())
    }

    /// Whether decoding this text's bytes gives this text back, as it is: its bytes are its
    /// own ([`Text::verbatim`]) and they do not read as anything else (a leading U+FEFF would be
    /// taken for a BOM, a NUL near the start for a binary file).
    ///
    /// ```
    /// use editkit_vfs::{LineEnding, Text};
    /// assert!(Text::new("a = 1\n", LineEnding::Lf, false).decodes_to_itself());
    /// assert!(!Text::new("a = 1\n", LineEnding::CrLf, false).decodes_to_itself());
    /// assert!(!Text::new("\u{feff}a = 1\n", LineEnding::Lf, false).decodes_to_itself());
    /// ```
    #[must_use]
    pub fn decodes_to_itself(&self) -> bool {
        self.verbatim().is_some_and(|bytes| {
            sniff(bytes).is_ok_and(|sniffed| !sniffed.bom && (!sniffed.escape || detect_iso_2022_jp(bytes).is_none()))
        })
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
        let each = match &mut self.endings {
            Endings::Lf(count) => {
                // Every ending reused or added is LF: only the count changes.
                *count = *count - count_newlines(&self.text[start..end]) + count_newlines(&replacement);
                self.text.replace_range(start..end, &replacement);
                return Ok(());
            }
            Endings::Each(each) => each,
        };
        let first_line = count_newlines(&self.text[..start]);
        let removed = count_newlines(&self.text[start..end]);
        let added = count_newlines(&replacement);
        let new_endings: Vec<LineEnding> =
            (0..added).map(|i| if i < removed { each[first_line + i] } else { dominant }).collect();
        each.splice(first_line..first_line + removed, new_endings);
        self.text.replace_range(start..end, &replacement);
        if each.contains(&LineEnding::Cr) {
            keep_lone_crs_apart(&self.text, each, first_line, added);
        }
        if each.iter().all(|ending| *ending == LineEnding::Lf) {
            self.endings = Endings::Lf(each.len());
        }
        Ok(())
    }

    /// A copy with room for `additional` more bytes of text, so splices that grow it by up to
    /// that much never reallocate (an edit of a large file then holds one copy of the new text,
    /// not a copy and a doubled buffer).
    #[must_use]
    pub fn clone_with_capacity(&self, additional: usize) -> Text {
        let mut text = String::with_capacity(self.text.len().saturating_add(additional));
        text.push_str(&self.text);
        Text { text, endings: self.endings.clone(), bom: self.bom, encoding: self.encoding }
    }

    /// A new text with each range of this one replaced (as [`Text::splice`] would, one after
    /// the other from the last): built in one pass for a text whose endings are all LF.
    ///
    /// ```
    /// let text = editkit_vfs::Text::decode(b"a\nb\nc\n").unwrap();
    /// let next = text.spliced(&[(0..1, "A"), (4..5, "C\nD")]).unwrap();
    /// assert_eq!(next.as_str(), "A\nb\nC\nD\n");
    /// assert_eq!(next.line_count(), 4);
    /// ```
    ///
    /// # Errors
    /// [`SpliceError`] for a range that is reversed, past the end, off a char boundary, or
    /// starts before the previous range ends.
    pub fn spliced(&self, edits: &[(Range<usize>, &str)]) -> Result<Text, SpliceError> {
        let mut previous_end = 0;
        for (range, _) in edits {
            let Range { start, end } = range.clone();
            if start < previous_end
                || start > end
                || !self.text.is_char_boundary(start)
                || !self.text.is_char_boundary(end)
            {
                return Err(SpliceError { start, end, len: self.text.len() });
            }
            previous_end = end;
        }
        let growth: usize = edits.iter().map(|(range, piece)| piece.len().saturating_sub(range.len())).sum();
        let Endings::Lf(count) = self.endings else {
            let mut next = self.clone_with_capacity(growth);
            for (range, piece) in edits.iter().rev() {
                next.splice(range.clone(), piece)?;
            }
            return Ok(next);
        };
        let mut text = String::with_capacity(self.text.len().saturating_add(growth));
        let (mut copied_to, mut count) = (0, count);
        for (range, piece) in edits {
            let (piece, _) = normalise(piece);
            text.push_str(&self.text[copied_to..range.start]);
            text.push_str(&piece);
            count = count - count_newlines(&self.text[range.clone()]) + count_newlines(&piece);
            copied_to = range.end;
        }
        text.push_str(&self.text[copied_to..]);
        Ok(Text { text, endings: Endings::Lf(count), bom: self.bom, encoding: self.encoding })
    }
}

/// A line ending in a lone CR followed by an empty line ending in LF would encode as one CRLF
/// and lose a line. Only a splice can make that pair, within the lines it touched and the one
/// before them: the empty line then takes a CRLF, which reads back as its own line after the
/// CR and which no line after it can join. (Giving it a CR instead would let the next empty LF
/// line join it; giving the CR line an LF would let a CR before it join that.)
fn keep_lone_crs_apart(text: &str, endings: &mut [LineEnding], first_line: usize, added: usize) {
    let from = first_line.saturating_sub(1);
    let empty: Vec<bool> = text.split('\n').skip(from).take(added + 2).map(str::is_empty).collect();
    for (offset, pair) in empty.windows(2).enumerate() {
        let (line, next) = (from + offset, from + offset + 1);
        if pair[1] && endings.get(line) == Some(&LineEnding::Cr) && endings.get(next) == Some(&LineEnding::Lf) {
            endings[next] = LineEnding::CrLf;
        }
    }
}

fn memchr_nul(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(0, bytes)
}

/// UTF-16 without BOM: most of the NULs sit on one parity of offsets.
fn looks_like_utf16(sniff: &[u8]) -> bool {
    let pairs = sniff.len() / 2;
    if pairs < 2 {
        return false;
    }
    // Counted without branches, in blocks whose counts fit a byte, which the compiler turns
    // into vector code: this runs on the head of every binary file a search meets.
    let (mut even, mut odd) = (0usize, 0usize);
    for block in sniff.chunks(2 * usize::from(u8::MAX)) {
        let (e, o) = block.chunks_exact(2).fold((0u8, 0u8), |(e, o), pair| {
            let (first, second) = (pair[0] == 0, pair[1] == 0);
            (e + u8::from(first & !second), o + u8::from(second & !first))
        });
        even += usize::from(e);
        odd += usize::from(o);
    }
    even.max(odd) * 10 >= pairs * 4
}

fn count_newlines(s: &str) -> usize {
    memchr::memchr_iter(b'\n', s.as_bytes()).count()
}

/// Whether bytes that decode as UTF-8 decode to themselves: no BOM, no CR, no escape (which
/// ISO-2022-JP text starts with).
pub(crate) fn is_verbatim(bytes: &[u8]) -> bool {
    !bytes.starts_with(UTF8_BOM) && memchr::memchr2(b'\r', 0x1B, bytes).is_none()
}

/// Bytes that are valid UTF-8 but ISO-2022-JP text, decoded (a scan for ESC first).
fn has_cr(s: &str) -> bool {
    memchr::memchr(b'\r', s.as_bytes()).is_some()
}

/// LF-normalises `s`, returning the text and the original terminator of each line.
fn normalise(s: &str) -> (String, Endings) {
    if !has_cr(s) {
        return (s.to_owned(), Endings::Lf(count_newlines(s)));
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
    (text, Endings::from_each(endings))
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

    /// Removing whole lines can bring a lone-CR line next to an empty LF line neither of which
    /// the splice touched (a patch deleting lines of a file that mixes endings did): the empty
    /// line takes a CRLF, and no line is lost, nor the empty line after it.
    #[test]
    fn lines_removed_between_a_lone_cr_and_an_empty_line_keep_both() {
        for (bytes, range, expected) in [
            (&b"a\rdel\n\nc\n"[..], 2..6, "a\n\nc\n"),
            (&b"a\rone\ntwo\n\nc\n"[..], 2..10, "a\n\nc\n"),
            (&b"a\rdel\r\n\r\n"[..], 2..6, "a\n\n"),
            (&b"a\rdel\n\n\nc\n"[..], 2..6, "a\n\n\nc\n"),
        ] {
            let mut text = Text::decode(bytes).unwrap();
            text.splice(range.clone(), "").unwrap();
            assert_eq!(text.as_str(), expected);
            let again = Text::decode(&text.encode()).unwrap();
            assert_eq!(again.as_str(), expected, "{bytes:?} {range:?}: {:?}", text.encode());
        }
    }

    /// An empty line the splice leaves after a lone-CR line, with another empty LF line after
    /// it: neither pair may read back as one CRLF (a CR on the first empty line would join it
    /// to the next). Found by the edit set's random test.
    #[test]
    fn empty_lines_after_a_lone_cr_stay_apart_however_many_follow() {
        for (bytes, range, insert, expected) in [
            (&b"a\rb\n\n"[..], 2..3, "", "a\n\n\n"),
            (&b"a\rb\n\n\n"[..], 2..3, "", "a\n\n\n\n"),
            (&b"a\rb\nc\n\n"[..], 2..5, "\n", "a\n\n\n\n"),
            (&b"\r\n\rcaf\xc3\xa9 \r--- a/x \rx = 1 \n\n\n"[..], 3..24, "\n", "\n\nc\n\n\n\n"),
            // Whole lines, as a patch replaces them.
            (&b"\r\n\rcaf\xc3\xa9 \r--- a/x \rx = 1 \n\n\n"[..], 2..25, "c\n\n", "\n\nc\n\n\n\n"),
        ] {
            let mut text = Text::decode(bytes).unwrap();
            text.splice(range.clone(), insert).unwrap();
            assert_eq!(text.as_str(), expected, "{bytes:?} {range:?}");
            let again = Text::decode(&text.encode()).unwrap();
            assert_eq!(again.as_str(), expected, "{bytes:?} {range:?} {insert:?}: {:?}", text.encode());
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
    fn proptest_utf16_sniff_counts_the_nuls_of_each_parity() {
        // The plain count the vectorised one must equal.
        fn counted(sniff: &[u8]) -> bool {
            let pairs = sniff.len() / 2;
            let even = sniff.chunks_exact(2).filter(|p| p[0] == 0 && p[1] != 0).count();
            let odd = sniff.chunks_exact(2).filter(|p| p[1] == 0 && p[0] != 0).count();
            pairs >= 2 && even.max(odd) * 10 >= pairs * 4
        }
        let byte = proptest::prop_oneof![
            proptest::strategy::Just(0u8),
            proptest::strategy::Just(b'a'),
            proptest::num::u8::ANY
        ];
        proptest::proptest!(|(bytes in proptest::collection::vec(byte, 0..2000))| {
            proptest::prop_assert_eq!(looks_like_utf16(&bytes), counted(&bytes));
        });
        let utf16: Vec<u8> = "hello world".repeat(200).encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert!(looks_like_utf16(&utf16) && looks_like_utf16(&utf16[1..]));
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
