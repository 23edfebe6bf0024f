//! SHA-256 as lowercase hex, the form every editkit result and argument uses.

use sha2::{Digest, Sha256};

/// SHA-256 of `bytes` as 64 lowercase hex digits.
///
/// ```
/// assert_eq!(
///     editkit_vfs::sha256_hex(b""),
///     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
/// );
/// ```
#[must_use]
pub fn sha256_hex(bytes: &[u8]) -> String {
    let mut hasher = Hasher::new();
    hasher.update(bytes);
    hasher.finish_hex()
}

/// Incremental SHA-256 for streamed content.
#[derive(Debug, Clone, Default)]
pub(crate) struct Hasher(Sha256);

impl Hasher {
    pub(crate) fn new() -> Self {
        Hasher(Sha256::new())
    }

    pub(crate) fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    pub(crate) fn finish_hex(self) -> String {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let digest = self.0.finalize();
        let mut out = String::with_capacity(64);
        for byte in digest.iter() {
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0x0f)]));
        }
        out
    }
}
