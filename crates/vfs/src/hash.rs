//! SHA-256 digests: one type, one parse, one display, for every hash editkit compares, records
//! or reports.

use std::fmt;
use std::str::FromStr;

use sha2::Digest;

/// A SHA-256 digest.
///
/// Parsed from 64 hex digits of either case ([`str::parse`]); shown (and serialised, with the
/// `serde` feature) as 64 lowercase hex digits. Two digests are equal when their bytes are, so
/// no caller compares hex strings.
///
/// ```
/// use editkit_vfs::Sha256;
/// let empty = Sha256::of(b"");
/// assert_eq!(empty.to_string(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
/// let upper: Sha256 = "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855".parse()?;
/// assert_eq!(upper, empty);
/// assert!("e3b0c442".parse::<Sha256>().is_err());
/// # Ok::<(), editkit_vfs::ParseSha256Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sha256([u8; 32]);

impl Sha256 {
    /// The digest of `bytes`.
    #[must_use]
    pub fn of(bytes: &[u8]) -> Sha256 {
        let mut hasher = Hasher::new();
        hasher.update(bytes);
        hasher.finish()
    }

    /// The first 12 hex digits, for messages to people (never for comparing).
    #[must_use]
    pub fn short(&self) -> String {
        let mut hex = self.to_string();
        hex.truncate(12);
        hex
    }

    /// The digest's 32 bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Display for Sha256 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = [0u8; 64];
        for (pair, byte) in out.chunks_exact_mut(2).zip(self.0) {
            pair[0] = HEX[usize::from(byte >> 4)];
            pair[1] = HEX[usize::from(byte & 0x0f)];
        }
        // Only ASCII hex digits were written.
        f.write_str(std::str::from_utf8(&out).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Sha256 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sha256({self})")
    }
}

/// Text that is not a SHA-256 in hex.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{given}` is not a SHA-256: give the 64 hex digits of a sha256 that read_file returned")]
pub struct ParseSha256Error {
    /// The text given (cut to 80 characters).
    pub given: String,
}

impl FromStr for Sha256 {
    type Err = ParseSha256Error;

    fn from_str(text: &str) -> Result<Sha256, ParseSha256Error> {
        let error = || ParseSha256Error { given: text.chars().take(80).collect() };
        let digits = text.as_bytes();
        if digits.len() != 64 {
            return Err(error());
        }
        let nibble = |digit: u8| -> Option<u8> {
            match digit {
                b'0'..=b'9' => Some(digit - b'0'),
                b'a'..=b'f' => Some(digit - b'a' + 10),
                b'A'..=b'F' => Some(digit - b'A' + 10),
                _ => None,
            }
        };
        let mut bytes = [0u8; 32];
        for (byte, pair) in bytes.iter_mut().zip(digits.chunks_exact(2)) {
            *byte = (nibble(pair[0]).ok_or_else(error)? << 4) | nibble(pair[1]).ok_or_else(error)?;
        }
        Ok(Sha256(bytes))
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Sha256 {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Sha256 {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Sha256, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Incremental SHA-256 for streamed content.
#[derive(Debug, Clone, Default)]
pub(crate) struct Hasher(sha2::Sha256);

impl Hasher {
    pub(crate) fn new() -> Self {
        Hasher(sha2::Sha256::new())
    }

    pub(crate) fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    pub(crate) fn finish(self) -> Sha256 {
        Sha256(self.0.finalize().into())
    }
}
