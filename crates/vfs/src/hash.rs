//! SHA-256 digests: one type, one parse, one display, for every hash editkit compares, records
//! or reports.

use std::collections::VecDeque;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use sha2::Digest;

use crate::sync::LockExt;

/// From this many bytes [`Sha256::of_beside`] hashes on a thread of its own (about 0.3 ms of
/// hashing here, against some 30 µs to start and join a thread).
pub(crate) const HASH_BESIDE_FROM: usize = 512 << 10;

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

    /// Whether `len` bytes are enough for work beside them to pay for a thread of its own: what
    /// [`Sha256::of_beside`] decides (about 0.3 ms of hashing, against some 30 µs to start and
    /// join a thread), for a caller that overlaps other work with a large file's.
    #[must_use]
    pub fn pays_beside(len: usize) -> bool {
        len >= HASH_BESIDE_FROM
    }

    /// The digest of `bytes`, computed on another thread while `work` runs on this one when
    /// `bytes` are large enough ([`Sha256::pays_beside`]) for the hand-off to pay; else one after
    /// the other. An edit of a large file hashes the old and the new content this way, beside
    /// the matching and the writing it has to do anyway.
    ///
    /// ```
    /// let bytes = vec![b'x'; 1 << 20];
    /// let (digest, len) = editkit_vfs::Sha256::of_beside(&bytes, || bytes.len());
    /// assert_eq!((digest, len), (editkit_vfs::Sha256::of(&bytes), 1 << 20));
    /// ```
    pub fn of_beside<T>(bytes: &[u8], work: impl FnOnce() -> T) -> (Sha256, T) {
        if bytes.len() < HASH_BESIDE_FROM {
            let out = work();
            return (Sha256::of(bytes), out);
        }
        std::thread::scope(|scope| {
            let hashing = std::thread::Builder::new().spawn_scoped(scope, || Sha256::of(bytes));
            let out = work();
            // A thread that cannot be started (or died) leaves the hash to this one.
            let digest = hashing.ok().and_then(|handle| handle.join().ok()).unwrap_or_else(|| Sha256::of(bytes));
            (digest, out)
        })
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

/// Bytes between two hasher states kept with a remembered content: a new content that starts
/// with the same whole blocks of this size is hashed from the state after them.
pub(crate) const STATE_EVERY: usize = 64 << 10;

/// SHA-256 states of a content: at `i`, the state after its first `(i + 1) * STATE_EVERY` bytes.
pub(crate) type States = Vec<sha2::Sha256>;

/// The digest of `bytes` and its [`States`], resumed when `base` (a content and its states)
/// starts with the same whole [`STATE_EVERY`]-byte blocks: those are compared, not hashed. The
/// digest is always `Sha256::of(bytes)`; `base` only saves work.
pub(crate) fn digest_resuming(base: Option<(&[u8], &[sha2::Sha256])>, bytes: &[u8]) -> (Sha256, States) {
    let mut states = Vec::with_capacity(bytes.len() / STATE_EVERY);
    let mut hasher = sha2::Sha256::new();
    let mut at = 0;
    if let Some((base, base_states)) = base {
        let shared = base
            .chunks_exact(STATE_EVERY)
            .zip(bytes.chunks_exact(STATE_EVERY))
            .zip(base_states)
            .take_while(|((old, new), _)| old == new)
            .count();
        if let Some(state) = shared.checked_sub(1).and_then(|last| base_states.get(last)) {
            hasher = state.clone();
            states.extend_from_slice(base_states.get(..shared).unwrap_or_default());
            at = shared * STATE_EVERY;
        }
    }
    for block in bytes.get(at..).unwrap_or_default().chunks(STATE_EVERY) {
        hasher.update(block);
        if block.len() == STATE_EVERY {
            states.push(hasher.clone());
        }
    }
    (Sha256(hasher.finalize().into()), states)
}

/// Most bytes of content a [`HashMemo`] holds.
pub(crate) const MEMO_BYTES: usize = 32 << 20;
/// Smallest content worth remembering: below it, hashing costs about what comparing does.
const MEMO_FROM: usize = 64 << 10;
/// Most contents a [`HashMemo`] holds.
const MEMO_ENTRIES: usize = 16;
/// Most new contents' states a [`HashMemo`] holds until they are remembered.
const PENDING_ENTRIES: usize = 4;

/// A content remembered: as it was written, or as the text it was encoded from when that
/// text is its bytes (no BOM, LF endings), which a read of the file can then take as it is.
#[derive(Debug, Clone)]
pub(crate) enum Kept {
    /// The bytes written.
    Bytes(Arc<Vec<u8>>),
    /// A text whose bytes are its own ([`crate::Text::verbatim`]).
    Text(Arc<crate::Text>),
}

impl Kept {
    /// The bytes on disk.
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Kept::Bytes(bytes) => bytes,
            Kept::Text(text) => text.as_str().as_bytes(),
        }
    }
}

/// A content remembered: the file it was written to, its hash, its bytes and its [`States`].
#[derive(Debug)]
struct Remembered {
    path: String,
    sha256: Sha256,
    content: Kept,
    states: Arc<States>,
}

/// Contents written lately with their hashes, so that reading one back costs a comparison of
/// its bytes instead of a hash (several times cheaper on a large file). Keyed by content, not
/// by path: an answer is the hash of exactly the bytes asked about, or nothing, so it cannot
/// go stale whatever happens to the files.
///
/// Each content keeps its hasher's [`States`], so the next content of the same file is hashed
/// from the state after the blocks it shares with it ([`HashMemo::digest_new`]).
#[derive(Debug, Default)]
pub(crate) struct HashMemo {
    /// Newest first. The path is only used to replace a file's older content, which no read
    /// will find again, and to find the states a file's next content can resume from.
    entries: VecDeque<Remembered>,
    bytes: usize,
    /// States of new contents hashed by [`HashMemo::digest_new`], until they are remembered:
    /// the path, the content's hash, its states.
    pending: VecDeque<(String, Sha256, States)>,
}

impl HashMemo {
    /// The hash of `bytes` if they are a content remembered; compared outside the lock.
    pub(crate) fn known(memo: &std::sync::Mutex<HashMemo>, bytes: &[u8]) -> Option<Sha256> {
        if bytes.len() < MEMO_FROM {
            return None;
        }
        let same_length: Vec<(Sha256, Kept)> = {
            let memo = memo.lock_unpoisoned();
            memo.entries
                .iter()
                .filter(|kept| kept.content.bytes().len() == bytes.len())
                .map(|kept| (kept.sha256, kept.content.clone()))
                .collect()
        };
        same_length.into_iter().find(|(_, kept)| kept.bytes() == bytes).map(|(sha256, _)| sha256)
    }

    /// The text remembered for `path` as its own bytes, when it is `len` bytes long, with its
    /// hash: what the file holds if its bytes compare equal to the text's.
    pub(crate) fn text_of(
        memo: &std::sync::Mutex<HashMemo>,
        path: &str,
        len: u64,
    ) -> Option<(Sha256, Arc<crate::Text>)> {
        let memo = memo.lock_unpoisoned();
        memo.entries.iter().find(|kept| kept.path == path).and_then(|kept| match &kept.content {
            Kept::Text(text) if text.as_str().len() as u64 == len => Some((kept.sha256, Arc::clone(text))),
            _ => None,
        })
    }

    /// Remembers `content`, whose hash is `sha256`, as what `path` holds now: it replaces
    /// what was remembered for `path`, and the oldest contents go beyond [`MEMO_BYTES`].
    /// Contents under 64 KiB or over half the bound are not kept.
    pub(crate) fn remember(&mut self, path: &str, sha256: Sha256, content: Kept) {
        debug_assert_eq!(Sha256::of(content.bytes()), sha256, "a remembered hash must be the content's");
        debug_assert!(
            !matches!(&content, Kept::Text(text) if text.verbatim().is_none()),
            "a text is remembered only when it is its own bytes"
        );
        if let Some(at) = self.entries.iter().position(|kept| kept.path == path)
            && let Some(old) = self.entries.remove(at)
        {
            self.bytes -= old.content.bytes().len();
        }
        // The states [`HashMemo::digest_new`] computed for exactly this content, if any.
        let states = match self.pending.iter().position(|(known, hash, _)| known == path && *hash == sha256) {
            Some(at) => self.pending.remove(at).map(|(_, _, states)| states).unwrap_or_default(),
            None => States::new(),
        };
        let len = content.bytes().len();
        if !HashMemo::worth_keeping(len) {
            return;
        }
        self.bytes += len;
        let kept = Remembered { path: path.to_owned(), sha256, content, states: Arc::new(states) };
        self.entries.push_front(kept);
        while self.bytes > MEMO_BYTES || self.entries.len() > MEMO_ENTRIES {
            let Some(old) = self.entries.pop_back() else { break };
            self.bytes -= old.content.bytes().len();
        }
    }

    /// Whether a content of `len` bytes is kept (a smaller one hashes about as fast as it
    /// compares; a larger one would crowd out the rest).
    pub(crate) fn worth_keeping(len: usize) -> bool {
        (MEMO_FROM..=MEMO_BYTES / 2).contains(&len)
    }

    /// The SHA-256 of `bytes`, a new content for `path`: resumed from the states of `path`'s
    /// remembered content after the whole blocks both start with ([`digest_resuming`]), so an
    /// edit late in a large file hashes little more than what follows it. The new content's
    /// states wait for [`HashMemo::remember`]. Compared and hashed outside the lock.
    pub(crate) fn digest_new(memo: &std::sync::Mutex<HashMemo>, path: &str, bytes: &[u8]) -> Sha256 {
        if !HashMemo::worth_keeping(bytes.len()) {
            return Sha256::of(bytes);
        }
        let base = {
            let memo = memo.lock_unpoisoned();
            memo.entries
                .iter()
                .find(|kept| kept.path == path)
                .map(|kept| (kept.content.clone(), Arc::clone(&kept.states)))
        };
        let (sha256, states) =
            digest_resuming(base.as_ref().map(|(content, states)| (content.bytes(), states.as_slice())), bytes);
        debug_assert_eq!(sha256, Sha256::of(bytes), "a resumed hash must be the content's");
        let mut memo = memo.lock_unpoisoned();
        memo.pending.retain(|(known, _, _)| known != path);
        memo.pending.push_front((path.to_owned(), sha256, states));
        memo.pending.truncate(PENDING_ENTRIES);
        sha256
    }
}

#[cfg(test)]
mod tests {
    use super::{HashMemo, Kept, MEMO_BYTES, Sha256};
    use std::sync::Arc;

    fn bytes(content: Vec<u8>) -> Kept {
        Kept::Bytes(Arc::new(content))
    }

    #[test]
    fn the_memo_answers_for_exactly_the_bytes_it_holds_and_stays_bounded() {
        let memo = std::sync::Mutex::new(HashMemo::default());
        let content = vec![b'a'; 100 << 10];
        let sha256 = Sha256::of(&content);
        memo.lock().unwrap().remember("a", sha256, bytes(content.clone()));
        assert_eq!(HashMemo::known(&memo, &content), Some(sha256));
        let mut other = content.clone();
        other[70_000] = b'b';
        assert_eq!(HashMemo::known(&memo, &other), None, "one byte differs");
        assert_eq!(HashMemo::known(&memo, &content[1..]), None, "another length");
        // Small contents are not kept: hashing them is as cheap.
        memo.lock().unwrap().remember("b", Sha256::of(b"x"), bytes(b"x".to_vec()));
        assert_eq!(HashMemo::known(&memo, b"x"), None);
        // A path's newer content replaces its older one.
        let newer = vec![b'c'; 100 << 10];
        memo.lock().unwrap().remember("a", Sha256::of(&newer), bytes(newer.clone()));
        assert_eq!(HashMemo::known(&memo, &content), None);
        assert_eq!(HashMemo::known(&memo, &newer), Some(Sha256::of(&newer)));
        // Bounded: the oldest contents go first.
        for i in 0..40u8 {
            let content = vec![i; 4 << 20];
            memo.lock().unwrap().remember(&i.to_string(), Sha256::of(&content), bytes(content));
        }
        let memo = memo.into_inner().unwrap();
        assert!(memo.bytes <= MEMO_BYTES && memo.entries.len() <= 8, "{} bytes", memo.bytes);
        assert_eq!(memo.entries.front().map(|kept| kept.content.bytes()[0]), Some(39));
    }

    #[test]
    fn a_resumed_digest_is_the_digest_whatever_the_contents_share() {
        use super::{STATE_EVERY, digest_resuming};
        use sha2::Digest;
        let base: Vec<u8> = (0..STATE_EVERY * 5 + 100).map(|i| (i % 251) as u8).collect();
        let (base_digest, base_states) = digest_resuming(None, &base);
        assert_eq!((base_digest, base_states.len()), (Sha256::of(&base), 5));
        // A change at the start, inside each block, on each block's edges and past the end;
        // shorter and longer contents; the same content.
        let mut cases: Vec<Vec<u8>> = vec![base.clone(), base[..STATE_EVERY * 3].to_vec(), Vec::new()];
        for at in [0, 1, STATE_EVERY - 1, STATE_EVERY, STATE_EVERY + 1, STATE_EVERY * 3 + 7, STATE_EVERY * 5 + 99] {
            let mut changed = base.clone();
            changed[at] ^= 1;
            cases.push(changed);
            let mut grown = base.clone();
            grown.splice(at..at, b"inserted".iter().copied());
            cases.push(grown);
        }
        let mut longer = base.clone();
        longer.extend(std::iter::repeat_n(7u8, STATE_EVERY * 2));
        cases.push(longer);
        for new in cases {
            let (digest, states) = digest_resuming(Some((&base, &base_states)), &new);
            assert_eq!(digest, Sha256::of(&new));
            // Its states are the ones hashing it from scratch gives.
            let (_, fresh) = digest_resuming(None, &new);
            assert_eq!(states.len(), fresh.len());
            for (resumed, fresh) in states.into_iter().zip(fresh) {
                assert_eq!(resumed.finalize(), fresh.finalize());
            }
        }
        // Fewer states than shared blocks: it resumes from the last state it has.
        let (digest, states) = digest_resuming(Some((&base, &base_states[..2])), &base);
        assert_eq!((digest, states.len()), (Sha256::of(&base), 5));
    }
}
