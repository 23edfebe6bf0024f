//! Encodings other than UTF-8: detection, decoding and encoding back, byte for byte.
//!
//! A file that is not UTF-8 is taken in another encoding only when that is established:
//! UTF-16 by its byte-order mark, ISO-2022-JP by its escape sequences, any other by
//! chardetng's guess over enough non-ASCII bytes (`MIN_NON_ASCII_BYTES`, 8), never for a file
//! shorter than `MIN_DETECT_BYTES` (64); and in every case
//! only when the bytes decode without error and the decoded text encodes back to exactly the
//! same bytes, and the text holds no control characters a text file would not. Anything else is
//! refused, naming the best guess, and an explicit encoding ([`crate::Text::decode_as`]) is
//! checked by the same round trip.

use std::borrow::Cow;

/// A character encoding a file can be read and written back in (a WHATWG encoding, as
/// encoding_rs implements it).
///
/// ```
/// use editkit_vfs::Encoding;
/// let latin = Encoding::for_label("latin1").unwrap();
/// assert_eq!(latin.label(), "windows-1252");
/// assert_eq!(Encoding::for_label("Shift_JIS").unwrap().label(), "shift_jis");
/// assert!(Encoding::for_label("ebcdic").is_none());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Encoding(&'static encoding_rs::Encoding);

impl Encoding {
    /// UTF-8, the encoding of every file editkit creates.
    #[must_use]
    pub fn utf8() -> Encoding {
        Encoding(encoding_rs::UTF_8)
    }

    /// The encoding a WHATWG label names (`utf-8`, `windows-1252`, `latin1`, `shift_jis`,
    /// `gbk`, `utf-16le`...; case and surrounding spaces do not matter). `None` for an unknown
    /// label and for `replacement` (which decodes anything to U+FFFD and encodes nothing back).
    #[must_use]
    pub fn for_label(label: &str) -> Option<Encoding> {
        let found = encoding_rs::Encoding::for_label(label.trim().as_bytes())?;
        (found != encoding_rs::REPLACEMENT).then_some(Encoding(found))
    }

    /// The WHATWG name in lower case: `utf-8`, `utf-16le`, `windows-1252`, `shift_jis`...
    #[must_use]
    pub fn label(self) -> &'static str {
        match self.0.name() {
            "UTF-8" => "utf-8",
            "UTF-16LE" => "utf-16le",
            "UTF-16BE" => "utf-16be",
            "Big5" => "big5",
            "EUC-JP" => "euc-jp",
            "EUC-KR" => "euc-kr",
            "GBK" => "gbk",
            "IBM866" => "ibm866",
            "ISO-2022-JP" => "iso-2022-jp",
            "ISO-8859-10" => "iso-8859-10",
            "ISO-8859-13" => "iso-8859-13",
            "ISO-8859-14" => "iso-8859-14",
            "ISO-8859-15" => "iso-8859-15",
            "ISO-8859-16" => "iso-8859-16",
            "ISO-8859-2" => "iso-8859-2",
            "ISO-8859-3" => "iso-8859-3",
            "ISO-8859-4" => "iso-8859-4",
            "ISO-8859-5" => "iso-8859-5",
            "ISO-8859-6" => "iso-8859-6",
            "ISO-8859-7" => "iso-8859-7",
            "ISO-8859-8" => "iso-8859-8",
            "ISO-8859-8-I" => "iso-8859-8-i",
            "KOI8-R" => "koi8-r",
            "KOI8-U" => "koi8-u",
            "Shift_JIS" => "shift_jis",
            "macintosh" => "macintosh",
            "replacement" => "replacement",
            "windows-1250" => "windows-1250",
            "windows-1251" => "windows-1251",
            "windows-1252" => "windows-1252",
            "windows-1253" => "windows-1253",
            "windows-1254" => "windows-1254",
            "windows-1255" => "windows-1255",
            "windows-1256" => "windows-1256",
            "windows-1257" => "windows-1257",
            "windows-1258" => "windows-1258",
            "windows-874" => "windows-874",
            "x-mac-cyrillic" => "x-mac-cyrillic",
            "x-user-defined" => "x-user-defined",
            // Every encoding_rs encoding is named above; a new one keeps its own spelling.
            other => other,
        }
    }

    /// Whether this is UTF-8.
    #[must_use]
    pub fn is_utf8(self) -> bool {
        self.0 == encoding_rs::UTF_8
    }

    /// Whether this is UTF-16 (little or big endian).
    #[must_use]
    pub fn is_utf16(self) -> bool {
        self.0 == encoding_rs::UTF_16LE || self.0 == encoding_rs::UTF_16BE
    }

    /// `text` as it is (line endings included) in this encoding, after this encoding's BOM
    /// when `bom` and it has one.
    ///
    /// ```
    /// let sjis = editkit_vfs::Encoding::for_label("shift_jis").unwrap();
    /// assert_eq!(sjis.encode("日本\r\n", false).unwrap(), b"\x93\xFA\x96\x7B\r\n");
    /// assert_eq!(sjis.encode("\u{e9}t\u{e9}", false).unwrap_err().character, '\u{e9}');
    /// ```
    ///
    /// # Errors
    /// [`Unencodable`]: the first character this encoding cannot hold, with its line.
    pub fn encode(self, text: &str, bom: bool) -> Result<Vec<u8>, Unencodable> {
        let body = encode(text, self)?;
        let bom = if bom { self.bom() } else { b"" };
        Ok([bom, body.as_ref()].concat())
    }

    /// The byte-order mark of this encoding (UTF-8 and UTF-16 have one; others none).
    #[must_use]
    pub(crate) fn bom(self) -> &'static [u8] {
        if self.0 == encoding_rs::UTF_16LE {
            b"\xFF\xFE"
        } else if self.0 == encoding_rs::UTF_16BE {
            b"\xFE\xFF"
        } else if self.is_utf8() {
            b"\xEF\xBB\xBF"
        } else {
            b""
        }
    }
}

impl std::fmt::Debug for Encoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

impl std::fmt::Display for Encoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Encoding {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.label())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Encoding {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Encoding, D::Error> {
        let label = <Cow<'de, str>>::deserialize(deserializer)?;
        Encoding::for_label(&label)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown encoding `{label}`; give a WHATWG label")))
    }
}

/// How many non-ASCII bytes a file in a legacy encoding must hold before its encoding is taken
/// from a detector's guess: with fewer, the same bytes read as well in several encodings
/// (`caf\xE9` is `café` in windows-1252 and `cafщ` in windows-1251), and the guess is the
/// detector's default, not evidence.
pub(crate) const MIN_NON_ASCII_BYTES: usize = 8;

/// How long a file must be before it is taken in another encoding than UTF-8 without being
/// asked (a UTF-16 byte-order mark included): a line's worth of bytes tells too little (eight
/// random bytes read as four Big5 characters, `FF FE` and two bytes as one UTF-16 one).
pub(crate) const MIN_DETECT_BYTES: usize = 64;

/// A character of a text that its encoding cannot hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{encoding} cannot hold the character {character:?} (U+{code:04X}) on line {line}", code = u32::from(*character))]
pub struct Unencodable {
    /// The encoding.
    pub encoding: Encoding,
    /// The first character it cannot hold.
    pub character: char,
    /// Its line (from 1) in the text.
    pub line: usize,
}

/// Text decoded from another encoding than UTF-8 (line endings as they are).
pub(crate) struct Decoded {
    pub(crate) text: String,
    pub(crate) encoding: Encoding,
    pub(crate) bom: bool,
}

/// Why bytes did not decode in an encoding: the offset of the first byte that did not decode
/// or did not encode back to itself.
pub(crate) struct Mismatch {
    pub(crate) offset: usize,
}

/// Decodes `bytes` in `encoding` (a UTF-16 BOM of that encoding is stripped and remembered),
/// checking the round trip: the text must encode back to exactly `bytes`.
pub(crate) fn decode_in(bytes: &[u8], encoding: Encoding) -> Result<Decoded, Mismatch> {
    let bom = encoding.is_utf16() && bytes.starts_with(encoding.bom());
    let body = if bom { &bytes[encoding.bom().len()..] } else { bytes };
    let (text, _) = encoding.0.decode_without_bom_handling(body);
    let text = text.into_owned();
    let again = encode_lossy(&text, encoding);
    if again.as_ref() != body {
        let offset = again.iter().zip(body).position(|(a, b)| a != b).unwrap_or(again.len().min(body.len()));
        let offset = offset + if bom { encoding.bom().len() } else { 0 };
        return Err(Mismatch { offset });
    }
    Ok(Decoded { text, encoding, bom })
}

/// `text` in `encoding`, without BOM; characters the encoding cannot hold become encoding_rs's
/// numeric character references (only for texts checked with [`encode`] first, or to compare).
pub(crate) fn encode_lossy(text: &str, encoding: Encoding) -> Cow<'_, [u8]> {
    if encoding.0 == encoding_rs::UTF_16LE {
        return Cow::Owned(text.encode_utf16().flat_map(u16::to_le_bytes).collect());
    }
    if encoding.0 == encoding_rs::UTF_16BE {
        return Cow::Owned(text.encode_utf16().flat_map(u16::to_be_bytes).collect());
    }
    if encoding.0.output_encoding() != encoding.0 {
        // Encodings that encode as another (replacement, x-user-defined) never round-trip.
        return Cow::Owned(Vec::new());
    }
    let (bytes, _, _) = encoding.0.encode(text);
    bytes
}

/// `text` in `encoding`, without BOM.
///
/// # Errors
/// The first character `encoding` cannot hold, with its line in `text`.
pub(crate) fn encode(text: &str, encoding: Encoding) -> Result<Cow<'_, [u8]>, Unencodable> {
    if encoding.is_utf8() {
        return Ok(Cow::Borrowed(text.as_bytes()));
    }
    if !encoding.is_utf16() {
        let mut encoder = encoding.0.new_encoder();
        let mut out = Vec::with_capacity(text.len().saturating_add(16));
        let mut rest = text;
        loop {
            out.reserve(rest.len().saturating_add(16));
            let (result, read) = encoder.encode_from_utf8_to_vec_without_replacement(rest, &mut out, true);
            rest = &rest[read..];
            match result {
                encoding_rs::EncoderResult::InputEmpty => return Ok(Cow::Owned(out)),
                encoding_rs::EncoderResult::OutputFull => {}
                encoding_rs::EncoderResult::Unmappable(character) => {
                    let at = text.len() - rest.len();
                    let line = 1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..at]).count();
                    return Err(Unencodable { encoding, character, line });
                }
            }
        }
    }
    Ok(encode_lossy(text, encoding))
}

/// The encoding `bytes` (not UTF-8, no NUL in the first bytes) are in, when established with
/// confidence; else the detector's best guess as the error.
pub(crate) fn detect_legacy(bytes: &[u8]) -> Result<Decoded, Option<Encoding>> {
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Allow);
    detector.feed(bytes, true);
    let guess = Encoding(detector.guess(None, chardetng::Utf8Detection::Deny));
    let non_ascii = bytes.iter().filter(|byte| !byte.is_ascii()).count();
    if bytes.len() < MIN_DETECT_BYTES || non_ascii < MIN_NON_ASCII_BYTES {
        return Err(Some(guess));
    }
    let decoded = match decode_in(bytes, guess) {
        Ok(decoded) => decoded,
        // encoding_rs's GBK decodes all of GB18030 but encodes back only its two-byte part.
        Err(_) if guess.0 == encoding_rs::GBK => {
            decode_in(bytes, Encoding(encoding_rs::GB18030)).map_err(|_| Some(guess))?
        }
        Err(_) => return Err(Some(guess)),
    };
    if !plausible(&decoded.text) || (latin_script(guess) && has_non_ascii_run(&decoded.text)) {
        return Err(Some(guess));
    }
    // chardetng never names KOI8-R (KOI8-U holds it and a few Ukrainian letters more): a text
    // KOI8-R holds and reads alike in it is named KOI8-R.
    if guess.0 == encoding_rs::KOI8_U {
        let koi8_r = Encoding(encoding_rs::KOI8_R);
        if let Ok(as_r) = decode_in(bytes, koi8_r)
            && as_r.text == decoded.text
        {
            return Ok(as_r);
        }
    }
    Ok(decoded)
}

/// ISO-2022-JP text (7-bit, so valid UTF-8): taken as such only when it designates JIS X 0208
/// (`ESC $ @` or `ESC $ B`), decodes without error and encodes back to itself.
pub(crate) fn detect_iso_2022_jp(bytes: &[u8]) -> Option<Decoded> {
    let designates =
        memchr::memmem::find(bytes, b"\x1B$B").is_some() || memchr::memmem::find(bytes, b"\x1B$@").is_some();
    if !designates || bytes.len() < MIN_DETECT_BYTES {
        return None;
    }
    let decoded = decode_in(bytes, Encoding(encoding_rs::ISO_2022_JP)).ok()?;
    plausible(&decoded.text).then_some(decoded)
}

/// UTF-16 by its byte-order mark, long enough to tell, decoding and encoding back to itself,
/// holding no NUL (UTF-32 starts with the UTF-16 LE mark and a NUL character).
pub(crate) fn detect_utf16(bytes: &[u8]) -> Option<Decoded> {
    let encoding = utf16_bom(bytes)?;
    if bytes.len() < MIN_DETECT_BYTES {
        return None;
    }
    let decoded = decode_in(bytes, encoding).ok()?;
    (!decoded.text.contains('\0') && plausible(&decoded.text)).then_some(decoded)
}

/// The UTF-16 encoding whose byte-order mark `bytes` start with: the only UTF-16
/// [`detect_utf16`] establishes.
pub(crate) fn utf16_bom(bytes: &[u8]) -> Option<Encoding> {
    if bytes.starts_with(b"\xFF\xFE") {
        Some(Encoding(encoding_rs::UTF_16LE))
    } else if bytes.starts_with(b"\xFE\xFF") {
        Some(Encoding(encoding_rs::UTF_16BE))
    } else {
        None
    }
}

/// Longest run of non-ASCII characters a text in a Latin-script single-byte encoding holds:
/// words of those languages mix accented letters with ASCII ones, while bytes of another
/// encoding (CJK text, UTF-8 cut short) read as long runs of accented letters and symbols.
const MAX_LATIN_NON_ASCII_RUN: usize = 3;

/// Whether `encoding` is a single-byte encoding for Latin script, which decodes any byte and so
/// is the detector's fallback when nothing else fits.
fn latin_script(encoding: Encoding) -> bool {
    [
        encoding_rs::WINDOWS_1252,
        encoding_rs::WINDOWS_1250,
        encoding_rs::WINDOWS_1254,
        encoding_rs::WINDOWS_1257,
        encoding_rs::WINDOWS_1258,
        encoding_rs::ISO_8859_2,
        encoding_rs::ISO_8859_4,
        encoding_rs::ISO_8859_13,
    ]
    .contains(&encoding.0)
}

/// Whether `text` holds more than [`MAX_LATIN_NON_ASCII_RUN`] non-ASCII characters in a row.
fn has_non_ascii_run(text: &str) -> bool {
    let mut run = 0;
    text.chars().any(|c| {
        run = if c.is_ascii() { 0 } else { run + 1 };
        run > MAX_LATIN_NON_ASCII_RUN
    })
}

/// Whether decoded text reads as text: no control characters but tab, line ends and form
/// feed (a wrong single-byte guess shows C1 controls), no replacement character.
fn plausible(text: &str) -> bool {
    !text
        .chars()
        .any(|c| (c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0C')) || c == char::REPLACEMENT_CHARACTER)
}
