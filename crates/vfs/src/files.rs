//! File operations under the policy and the staleness guard: reads (recorded in the read
//! ledger), atomic writes, deletes, moves, and questions about entries.

use std::io::Read;

use cap_std::fs::{Dir, File};

use crate::atomic::{split_parent, sync_dir};
use crate::codec::Text;
use crate::error::{Error, Result};
use crate::hash::{Hasher, Sha256};
use crate::sync::LockExt;
use crate::workspace::{EntryKind, Metadata, Workspace};

/// A file read as text, with the facts an agent needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileText {
    path: String,
    /// Shared with the hash memo when the read took a remembered text.
    text: std::sync::Arc<Text>,
    sha256: Sha256,
    size: u64,
}

impl FileText {
    /// The canonical path relative to the root (symlinks resolved).
    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }
    /// The LF-normalised text without BOM.
    #[must_use]
    pub fn text(&self) -> &str {
        self.text.as_str()
    }
    /// The decoded text with its line endings and BOM, for splicing edits back.
    #[must_use]
    pub fn decoded(&self) -> &Text {
        &self.text
    }
    /// Consumes the value, returning the decoded text.
    #[must_use]
    pub fn into_decoded(self) -> Text {
        std::sync::Arc::try_unwrap(self.text).unwrap_or_else(|shared| (*shared).clone())
    }
    /// SHA-256 of the bytes on disk.
    #[must_use]
    pub fn sha256(&self) -> Sha256 {
        self.sha256
    }
    /// Size on disk in bytes.
    #[must_use]
    pub fn size(&self) -> u64 {
        self.size
    }
    /// Number of lines.
    #[must_use]
    pub fn line_count(&self) -> usize {
        self.text.line_count()
    }
    /// Whether the file starts with its encoding's byte-order mark.
    #[must_use]
    pub fn bom(&self) -> bool {
        self.text.bom()
    }
    /// The encoding the file was read in (and is written back in).
    #[must_use]
    pub fn encoding(&self) -> crate::Encoding {
        self.text.encoding()
    }
}

/// Options of [`Workspace::write`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteOptions {
    /// Create missing parent directories. Default: `true`.
    pub create_dirs: bool,
    /// Write even if the file changed since this workspace read it. Default: `false`.
    pub force: bool,
    /// The SHA-256 the file must have now; always honoured, even with `force`.
    /// `Some` for a file that does not exist refuses the write.
    pub expected_hash: Option<Sha256>,
    /// Refuse ([`Error::Exists`]) if anything exists at the path, decided by the rename itself
    /// (`RENAME_NOREPLACE`), so an entry another process creates meanwhile is never replaced.
    /// Default: `false`.
    pub create_new: bool,
    /// The SHA-256 of the bytes being written, when the caller computed it already (saves a
    /// pass over large files). It is recorded as the file's hash for the staleness guard, so
    /// it must be the hash of exactly those bytes. Default: `None` (computed here).
    pub content_sha256: Option<Sha256>,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions { create_dirs: true, force: false, expected_hash: None, create_new: false, content_sha256: None }
    }
}

/// What a write did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// Canonical path relative to the root.
    pub path: String,
    /// SHA-256 of the new content.
    pub sha256: Sha256,
    /// Bytes written.
    pub size: u64,
    /// Whether the file did not exist before.
    pub created: bool,
    /// SHA-256 of the content that was replaced, if any.
    pub previous_sha256: Option<Sha256>,
}

/// Options of [`Workspace::rename`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RenameOptions {
    /// Replace what exists at the destination. Default: `false` ([`Error::Exists`]).
    pub(crate) overwrite: bool,
    /// Create missing parent directories of the destination. Default: `false`.
    pub(crate) create_dirs: bool,
}

impl RenameOptions {
    /// Replace what exists at the destination.
    #[must_use]
    pub fn overwrite(mut self, overwrite: bool) -> Self {
        self.overwrite = overwrite;
        self
    }

    /// Create missing parent directories of the destination.
    #[must_use]
    pub fn create_dirs(mut self, create_dirs: bool) -> Self {
        self.create_dirs = create_dirs;
        self
    }
}

/// Deepest folder nesting a recursive delete, move or check goes through (one open handle per
/// level).
pub const MAX_TREE_DEPTH: usize = 256;

impl Workspace {
    /// Reads a text file and records its hash in the read ledger.
    ///
    /// # Errors
    /// Policy errors, [`Error::NotFound`], [`Error::IsDirectory`], [`Error::TooLarge`],
    /// [`Error::Utf16`], [`Error::NotUtf8`], [`Error::Binary`], [`Error::Io`].
    pub fn read(&self, path: &str) -> Result<FileText> {
        self.read_expecting(path, None)
    }

    /// Reads a text file once; when `expected` is given and the bytes read do not hash to it,
    /// refuses with [`Error::Stale`] and records nothing, else records the hash like
    /// [`Workspace::read`]. The check and the content are from the same read, so no writer can
    /// slip in between them.
    pub(crate) fn read_expecting(&self, path: &str, expected: Option<Sha256>) -> Result<FileText> {
        self.read_expecting_with(path, expected, None, |_| ()).map(|(file, ())| file)
    }

    /// [`Workspace::read_expecting`], running `work` on the decoded text while the bytes are
    /// hashed beside it ([`Sha256::of_beside`]). The answers do not change: when the bytes do
    /// not hash to `expected` it is [`Error::Stale`] whatever `work` returned, and a file that
    /// is not text is refused after that check, as before. `work` must only compute.
    pub(crate) fn read_expecting_with<T>(
        &self,
        path: &str,
        expected: Option<Sha256>,
        encoding: Option<crate::Encoding>,
        work: impl FnOnce(&Text) -> T,
    ) -> Result<(FileText, T)> {
        let encoding = encoding.or(self.default_encoding());
        let (rel, mut file, size) = self.open_sized(path)?;
        let vouch = |sha256: Sha256| match expected {
            Some(expected) if expected != sha256 => {
                Err(Error::Stale { path: path.to_owned(), expected: Some(expected), current: Some(sha256) })
            }
            _ => {
                self.record(&rel, sha256);
                Ok(())
            }
        };
        // The text this workspace last wrote to the file, when the file still holds exactly its
        // bytes: taken as it is, without reading the file into memory, decoding or hashing it.
        // (A remembered text is UTF-8: taken when no other encoding is asked for.)
        let utf8 = encoding.is_none_or(crate::Encoding::is_utf8);
        if utf8 && let Some((sha256, text)) = crate::hash::HashMemo::text_of(&self.memo, &rel, size) {
            if holds(&mut file, text.as_str().as_bytes()).map_err(|e| Error::from_io("read", path, e))? {
                vouch(sha256)?;
                let out = work(&text);
                return Ok((FileText { path: rel, text, sha256, size }, out));
            }
            std::io::Seek::rewind(&mut file).map_err(|e| Error::from_io("read", path, e))?;
        }
        let bytes = self.read_sized(path, file, size)?;
        let size = bytes.len() as u64;
        if encoding.is_some() || !crate::codec::is_verbatim(&bytes) {
            // Decoding copies these bytes: hash them first and let them go, so a large file is
            // not held twice while `work` runs.
            let sha256 = Sha256::of(&bytes);
            vouch(sha256)?;
            let text = match encoding {
                Some(encoding) => Text::decode_as(&bytes, encoding),
                None => Text::decode(&bytes),
            }
            .map_err(|err| Error::from_decode(path, err))?;
            drop(bytes);
            let out = work(&text);
            return Ok((FileText { path: rel, text: text.into(), sha256, size }, out));
        }
        let text = match Text::decode_or_return(bytes) {
            Ok(text) => text,
            Err((err, bytes)) => {
                // Not UTF-8: the text (if any) is in another encoding, so it hashes apart from them.
                let sha256 = Sha256::of(&bytes);
                vouch(sha256)?;
                let text = Text::decode_other(&bytes, err).map_err(|err| Error::from_decode(path, err))?;
                drop(bytes);
                let out = work(&text);
                return Ok((FileText { path: rel, text: text.into(), sha256, size }, out));
            }
        };
        let (sha256, out) = match crate::hash::HashMemo::known(&self.memo, text.as_str().as_bytes()) {
            Some(sha256) => (sha256, work(&text)),
            None => Sha256::of_beside(text.as_str().as_bytes(), || work(&text)),
        };
        vouch(sha256)?;
        Ok((FileText { path: rel, text: text.into(), sha256, size }, out))
    }

    /// Reads a text file like [`Workspace::read`] but records nothing: for looking at a file
    /// (its symbols, a diff against it) without arming the staleness guard, which must only
    /// vouch for content the caller was shown.
    ///
    /// # Errors
    /// As [`Workspace::read`].
    pub fn peek(&self, path: &str) -> Result<FileText> {
        let (rel, bytes) = self.read_raw(path)?;
        let sha256 = Sha256::of(&bytes);
        match self.default_encoding() {
            Some(encoding) => {
                let text = Text::decode_as(&bytes, encoding).map_err(|err| Error::from_decode(path, err))?;
                Ok(FileText { path: rel, text: text.into(), sha256, size: bytes.len() as u64 })
            }
            None => file_text(path, rel, bytes, sha256),
        }
    }

    /// Reads a file's bytes as they are and records their hash in the read ledger.
    ///
    /// # Errors
    /// As [`Workspace::read`], without the text checks.
    pub fn read_bytes(&self, path: &str) -> Result<Vec<u8>> {
        let (rel, bytes) = self.read_raw(path)?;
        self.record(&rel, Sha256::of(&bytes));
        Ok(bytes)
    }

    /// SHA-256 of a file's current content, without arming the staleness guard; `None` when
    /// nothing exists at the path.
    ///
    /// # Errors
    /// Policy errors, [`Error::IsDirectory`], [`Error::Io`].
    pub fn current_hash(&self, path: &str) -> Result<Option<Sha256>> {
        let resolved = self.resolve_inner(path, true)?;
        self.hash_of(path, &resolved.rel)
    }

    /// SHA-256 of what `path` holds now (`None` when nothing does), like
    /// [`Workspace::current_hash`], taking `known_sha256` without hashing when the file holds
    /// exactly the bytes `known` (compared a block at a time, a fraction of a hash's cost).
    /// `known_sha256` must be the hash of `known`. For the last check before a write of a file
    /// read earlier under its lock.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// let sha = editkit_vfs::Sha256::of(b"one\n");
    /// assert_eq!(workspace.current_hash_knowing("a.txt", b"one\n", sha)?, Some(sha));
    /// std::fs::write(dir.path().join("a.txt"), "two\n").unwrap();
    /// assert_eq!(workspace.current_hash_knowing("a.txt", b"one\n", sha)?, Some(editkit_vfs::Sha256::of(b"two\n")));
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`Workspace::current_hash`].
    pub fn current_hash_knowing(&self, path: &str, known: &[u8], known_sha256: Sha256) -> Result<Option<Sha256>> {
        let resolved = self.resolve_inner(path, true)?;
        self.hash_unless(path, &resolved.rel, Some((known, known_sha256)))
    }

    /// SHA-256 of what `rel` holds now, `None` if nothing: `read`'s hash when the file still
    /// holds exactly the bytes `read` was decoded from.
    fn hash_now(&self, given: &str, rel: &str, read: Option<&FileText>) -> Result<Option<Sha256>> {
        let known = read.filter(|read| read.path == rel).and_then(|read| Some((read.text.verbatim()?, read.sha256)));
        self.hash_unless(given, rel, known)
    }

    /// SHA-256 of what `rel` holds now, `None` if nothing; `known`'s hash without hashing when
    /// the file holds exactly its bytes.
    fn hash_unless(&self, given: &str, rel: &str, known: Option<(&[u8], Sha256)>) -> Result<Option<Sha256>> {
        if let Some((expected, sha256)) = known {
            let mut file = match self.open_regular(given, rel) {
                Ok(file) => file,
                Err(Error::NotFound { .. }) => return Ok(None),
                Err(err) => return Err(err),
            };
            if holds(&mut file, expected).map_err(|e| Error::from_io("read", given, e))? {
                return Ok(Some(sha256));
            }
        }
        self.hash_of(given, rel)
    }

    fn hash_of(&self, given: &str, rel: &str) -> Result<Option<Sha256>> {
        let mut file = match self.open_regular(given, rel) {
            Ok(file) => file,
            Err(Error::NotFound { .. }) => return Ok(None),
            Err(err) => return Err(err),
        };
        let mut hasher = Hasher::new();
        // Sized to the file (a small file's hash would otherwise cost more in zeroing the
        // buffer than in hashing), up to 256 KiB; a file that grows is read on all the same.
        let size = file.metadata().map_or(0, |m| m.len());
        let mut buf =
            vec![0u8; usize::try_from(size).unwrap_or(usize::MAX).saturating_add(1).clamp(4 << 10, 256 << 10)];
        loop {
            let n = file.read(&mut buf).map_err(|e| Error::from_io("read", given, e))?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
        }
        Ok(Some(hasher.finish()))
    }

    /// The encoding a read of the text file at `path` would decode it in, and whether it starts
    /// with that encoding's BOM; `None` when nothing readable is there or it is not text.
    /// Records nothing. A file whose first [`crate::codec::BINARY_SNIFF_BYTES`] are UTF-8 without
    /// an escape is taken as UTF-8 without reading on (a write over it writes what it is given).
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// let text = "été, hiver, printemps, automne: quatre saisons à Paris.\n".repeat(3);
    /// let latin: Vec<u8> = text.chars().map(|c| u8::try_from(c).unwrap()).collect();
    /// std::fs::write(dir.path().join("a.txt"), &latin).unwrap();
    /// std::fs::write(dir.path().join("b.txt"), "plain\n").unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// assert_eq!(workspace.encoding_of("a.txt").map(|(e, bom)| (e.label(), bom)), Some(("windows-1252", false)));
    /// assert_eq!(workspace.encoding_of("b.txt").map(|(e, _)| e.label()), Some("utf-8"));
    /// assert_eq!(workspace.encoding_of("none.txt"), None);
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn encoding_of(&self, path: &str) -> Option<(crate::Encoding, bool)> {
        let (_, file, _) = self.open_sized(path).ok()?;
        let mut head = Vec::with_capacity(crate::codec::BINARY_SNIFF_BYTES);
        file.take(crate::codec::BINARY_SNIFF_BYTES as u64).read_to_end(&mut head).ok()?;
        let utf8_head = match std::str::from_utf8(&head) {
            Ok(_) => true,
            // A character cut at the end of the head.
            Err(err) => err.error_len().is_none(),
        };
        let utf16_bom = head.starts_with(b"\xFF\xFE") || head.starts_with(b"\xFE\xFF");
        if utf8_head && !utf16_bom && memchr::memchr2(0, 0x1B, &head).is_none() {
            return Some((crate::Encoding::utf8(), head.starts_with(b"\xEF\xBB\xBF")));
        }
        let file = self.peek(path).ok()?;
        Some((file.encoding(), file.bom()))
    }

    fn read_raw(&self, path: &str) -> Result<(String, Vec<u8>)> {
        let (rel, file, size) = self.open_sized(path)?;
        Ok((rel, self.read_sized(path, file, size)?))
    }

    /// The regular file at `path` opened for reading, with its canonical path and its size,
    /// refused when larger than the read limit.
    fn open_sized(&self, path: &str) -> Result<(String, File, u64)> {
        let resolved = self.resolve_inner(path, true)?;
        let file = self.open_regular(path, &resolved.rel)?;
        let size = file.metadata().map_err(|e| Error::from_io("read", path, e))?.len();
        if size > self.max_read_bytes {
            return Err(Error::TooLarge { path: path.to_owned(), size, limit: self.max_read_bytes });
        }
        Ok((resolved.rel, file, size))
    }

    /// The bytes of `file`, opened by [`Workspace::open_sized`] at `size` bytes, from where it
    /// stands; refused when it grew past the read limit meanwhile.
    fn read_sized(&self, path: &str, file: File, size: u64) -> Result<Vec<u8>> {
        let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        // Read one byte past the limit to notice a file that grew after the size check.
        file.take(self.max_read_bytes + 1).read_to_end(&mut bytes).map_err(|e| Error::from_io("read", path, e))?;
        if bytes.len() as u64 > self.max_read_bytes {
            return Err(Error::TooLarge {
                path: path.to_owned(),
                size: bytes.len() as u64,
                limit: self.max_read_bytes,
            });
        }
        Ok(bytes)
    }

    /// Opens the regular file at canonical `rel` for reading.
    fn open_regular(&self, given: &str, rel: &str) -> Result<File> {
        if rel.is_empty() {
            return Err(Error::IsDirectory { path: given.to_owned() });
        }
        // No link is followed (the canonical path has none; one that appears is a race), and
        // the open never blocks: a FIFO or device is judged on the handle and refused.
        let file = crate::beneath::file(&self.root, rel).map_err(|e| Error::from_io("read", given, e))?;
        let stat = crate::atomic::regular_stat(given, &file)?;
        self.check_links(given, rel, stat.st_nlink)?;
        Ok(file)
    }

    /// Refuses to move the folder at canonical `from` to canonical `to` (`given`, as the
    /// caller named it) when files with several names are served under `to` and not under
    /// `from` ([`crate::Policy::hard_links_under`]): the folder could bring another name of a
    /// blocked file or of a file outside the workspace. Every rename of a folder asks this.
    pub(crate) fn refuse_folder_into_hard_links(&self, from: &str, to: &str, given: &str) -> Result<()> {
        if self.policy.hard_links_allowed(to) && !self.policy.hard_links_allowed(from) {
            return Err(Error::InvalidPath {
                path: given.to_owned(),
                reason: "a folder is not moved into a folder where files with several names (hard links) are \
                         served (`--hard-links`), since it could bring another name of a blocked file or of \
                         a file outside the workspace; move its files one by one"
                    .into(),
            });
        }
        Ok(())
    }

    /// Refuses a file with more than one name (`links`, from the handle's `fstat`) at canonical
    /// `rel`, unless the policy serves such files there ([`crate::Policy::hard_links_under`]):
    /// another of its names may be `.env` or a file outside the root.
    pub(crate) fn check_links(&self, given: &str, rel: &str, links: u64) -> Result<()> {
        if links > 1 && !self.policy.hard_links_allowed(rel) {
            return Err(Error::HardLinked { path: given.to_owned(), links });
        }
        Ok(())
    }

    /// The ledger's hash of canonical `rel`.
    /// Refuses, as [`Error::ReadOnly`], a change to the regular file at `path` when its owner
    /// took away its write bit, whatever user editkit runs as; `Ok` when it may change, and
    /// when nothing (or no regular file) is there: the change itself then says what stands in
    /// its way. Moving such a file is not changing it; moving another onto it is.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// use std::os::unix::fs::PermissionsExt;
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    /// std::fs::set_permissions(dir.path().join("a.txt"), std::fs::Permissions::from_mode(0o444)).unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// let err = workspace.check_writable("a.txt").unwrap_err();
    /// assert_eq!((err.error_kind(), err.to_string().contains("0444")), (editkit_vfs::ErrorKind::PermissionDenied, true));
    /// assert!(workspace.check_writable("missing.txt").is_ok());
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::ReadOnly`]; policy errors.
    pub fn check_writable(&self, path: &str) -> Result<()> {
        let resolved = self.resolve_inner(path, true)?;
        self.check_writable_at(path, &resolved.rel)
    }

    /// [`Workspace::check_writable`] for canonical `rel`: one no-follow `O_PATH` open and its
    /// `fstat`.
    pub(crate) fn check_writable_at(&self, given: &str, rel: &str) -> Result<()> {
        if rel.is_empty() {
            return Ok(());
        }
        let Ok(fd) = crate::beneath::open(&self.root, rel, rustix::fs::OFlags::PATH, rustix::fs::Mode::empty()) else {
            return Ok(());
        };
        match rustix::fs::fstat(&fd) {
            Ok(stat) if rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::RegularFile => {
                writable(given, stat.st_mode)
            }
            _ => Ok(()),
        }
    }

    pub(crate) fn recorded(&self, rel: &str) -> Option<Sha256> {
        self.ledger.lock_unpoisoned().get(rel).copied()
    }

    pub(crate) fn record(&self, rel: &str, sha256: Sha256) {
        self.ledger.lock_unpoisoned().insert(rel.to_owned(), sha256);
    }

    pub(crate) fn forget(&self, rel: &str) {
        let mut ledger = self.ledger.lock_unpoisoned();
        ledger.remove(rel);
        let prefix = format!("{rel}/");
        ledger.retain(|key, _| !key.starts_with(&prefix) || rel.is_empty());
    }

    /// Lets a later read of exactly `content`, just written to `path`, take its hash from
    /// memory after comparing the bytes, instead of hashing them. `sha256` must be the hash of
    /// `content`, the same promise as [`WriteOptions::content_sha256`]. What was remembered
    /// for `path` before is dropped. Bounded: contents under 64 KiB or over 16 MiB are not
    /// kept (and change nothing, not even what `path` had), and at most 32 MiB in all. The
    /// memo answers by content, never by path, so a file changed since is simply hashed.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// let content = "x = 1\n".repeat(20_000);
    /// let written = workspace.write("big.py", content.as_bytes(), &Default::default())?;
    /// workspace.remember_content("big.py", written.sha256, content.into_bytes());
    /// assert_eq!(workspace.read("big.py")?.sha256(), written.sha256);
    /// # Ok(()) }
    /// ```
    pub fn remember_content(&self, path: &str, sha256: Sha256, content: Vec<u8>) {
        if !crate::hash::HashMemo::worth_keeping(content.len()) {
            return;
        }
        self.remember(path, sha256, crate::hash::Kept::Bytes(std::sync::Arc::new(content)));
    }

    /// As [`Workspace::remember_content`] for a text just written to `path` as its own bytes
    /// (no BOM, LF endings: [`Text::verbatim`]), which read back decode to this very text (no
    /// leading U+FEFF, no NUL near the start); any other text is not kept. The next read of
    /// the file, while it holds exactly those bytes, takes this text as it is: the file is
    /// compared with it, a block at a time, instead of being read into memory, decoded and
    /// hashed. `sha256` must be the hash of the text's bytes.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// let text = editkit_vfs::Text::decode("x = 1\n".repeat(20_000).as_bytes()).unwrap();
    /// let written = workspace.write("big.py", text.as_str().as_bytes(), &Default::default())?;
    /// workspace.remember_text("big.py", written.sha256, text.clone());
    /// let read = workspace.read("big.py")?;
    /// assert_eq!((read.decoded(), read.sha256()), (&text, written.sha256));
    /// // Changed from outside: read as usual.
    /// std::fs::write(dir.path().join("big.py"), "x = 2\n".repeat(20_000)).unwrap();
    /// assert_eq!(workspace.read("big.py")?.text(), "x = 2\n".repeat(20_000));
    /// # Ok(()) }
    /// ```
    pub fn remember_text(&self, path: &str, sha256: Sha256, text: impl Into<std::sync::Arc<Text>>) {
        let text = text.into();
        if !text.decodes_to_itself() || !crate::hash::HashMemo::worth_keeping(text.as_str().len()) {
            return;
        }
        self.remember(path, sha256, crate::hash::Kept::Text(text));
    }

    fn remember(&self, path: &str, sha256: Sha256, content: crate::hash::Kept) {
        let Ok(rel) = self.resolve(path) else { return };
        self.memo.lock_unpoisoned().remember(&rel, sha256, content);
    }

    /// The hash the read ledger holds for a path, if this workspace read or wrote it.
    ///
    /// # Errors
    /// Policy errors.
    pub fn recorded_hash(&self, path: &str) -> Result<Option<Sha256>> {
        Ok(self.recorded(&self.resolve(path)?))
    }

    /// Writes `bytes` atomically: a temp file in the same directory, fsync, rename over the
    /// target, permission bits kept. A symlink that stays inside is written through (its
    /// target changes, the link stays).
    ///
    /// # Errors
    /// Policy errors, [`Error::Stale`], [`Error::IsDirectory`], [`Error::NotFound`] (missing
    /// parent without `create_dirs`), [`Error::Exists`] (with `create_new`), [`Error::Io`].
    pub fn write(&self, path: &str, bytes: &[u8], options: &WriteOptions) -> Result<Written> {
        self.lock(path)?.write(bytes, options)
    }

    /// The write itself; the caller holds the file's lock.
    pub(crate) fn write_locked(&self, given: &str, rel: &str, bytes: &[u8], options: &WriteOptions) -> Result<Written> {
        let hash = || Ok::<_, Error>((options.content_sha256.unwrap_or_else(|| Sha256::of(bytes)), ()));
        self.write_locked_beside(given, rel, bytes, options, None, hash)
            .map(|(written, ())| written)
            .map_err(|(err, _)| err)
    }

    /// The write itself, with `beside` run while a large content is staged (see
    /// [`crate::FileLock::write_beside`]); the caller holds the file's lock.
    pub(crate) fn write_locked_beside<R, E>(
        &self,
        given: &str,
        rel: &str,
        bytes: &[u8],
        options: &WriteOptions,
        read: Option<&FileText>,
        beside: impl FnOnce() -> std::result::Result<(Sha256, R), E> + Send,
    ) -> std::result::Result<(Written, R), (E, Option<R>)>
    where
        R: Send,
        E: From<Error> + Send,
    {
        let refused = |err: Error| (E::from(err), None);
        if given.ends_with('/') || given.ends_with("/.") {
            // `dir/` names a directory: writing a file called `dir` would not be what was asked.
            return Err(refused(Error::InvalidPath {
                path: given.to_owned(),
                reason: "a path ending in `/` names a directory; give the file's name after it".into(),
            }));
        }
        let (parent_rel, name) =
            split_parent(rel).ok_or_else(|| refused(Error::IsDirectory { path: given.to_owned() }))?;
        let parent = self.parent_dir(given, parent_rel, options.create_dirs).map_err(refused)?;
        let existing = match parent.symlink_metadata(name) {
            Ok(meta) if meta.is_dir() => return Err(refused(Error::IsDirectory { path: given.to_owned() })),
            Ok(meta) if meta.is_symlink() => {
                // Resolution saw no link here: the tree changed under us. Never replace a link.
                return Err(refused(Error::Io {
                    op: "write",
                    path: given.to_owned(),
                    source: std::io::Error::other("the path changed to a symlink during the write; retry"),
                }));
            }
            Ok(meta) => Some(meta.permissions()),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
            Err(err) => return Err(refused(Error::from_io("write", given, err))),
        };
        if existing.is_some() && options.create_new {
            return Err(refused(Error::Exists { path: given.to_owned() }));
        }
        if let Some(permissions) = &existing {
            writable(given, cap_std::fs::PermissionsExt::mode(permissions)).map_err(refused)?;
        }
        let placed = |e: std::io::Error| {
            if options.create_new && e.kind() == std::io::ErrorKind::AlreadyExists {
                Error::Exists { path: given.to_owned() }
            } else {
                Error::from_io("write", given, e)
            }
        };
        // The last check: the file still holds what the staleness guard vouched for.
        let check = || match existing {
            Some(_) => self.fresh_hash(given, rel, read, options),
            None => self.check_fresh(given, rel, None, options).map(|()| None),
        };
        let (sha256, out, previous, temp) = if bytes.len() >= crate::hash::HASH_BESIDE_FROM {
            // A large content is written and flushed to a temp file while `beside` runs and the
            // last check reads the old file on another thread. The flush stays on this thread,
            // which holds a core now; the other gets one at the latest when this one waits for
            // the disk. Nothing is renamed unless all of it succeeds.
            let work = std::sync::Mutex::new(Some(|| {
                beside().map_err(|err| (err, None)).and_then(|(sha256, out)| match check() {
                    Ok(previous) => Ok((sha256, out, previous)),
                    Err(err) => Err((E::from(err), Some(out))),
                })
            }));
            let run = || work.lock_unpoisoned().take().map(|work| work());
            let (staged, checked) = std::thread::scope(|scope| {
                let working = std::thread::Builder::new().spawn_scoped(scope, run).ok();
                let staged = crate::atomic::stage(&parent, bytes, existing.clone(), self.durability);
                // A thread that could not start left the work to this one.
                let checked = match working {
                    Some(handle) => handle.join(),
                    None => Ok(run()),
                };
                (staged, checked)
            });
            let checked = match checked {
                Ok(checked) => checked,
                Err(panic) => {
                    // A panic in the work is one here, as if it had run on this thread, once
                    // the temp file is gone.
                    if let Ok(temp) = &staged {
                        let _ = parent.remove_file(temp);
                    }
                    std::panic::resume_unwind(panic)
                }
            };
            // The work runs once, on the thread or here, so it is always there.
            let checked = checked.unwrap_or_else(|| {
                let lost = std::io::Error::other("the write's work did not run; retry");
                Err((E::from(Error::from_io("write", given, lost)), None))
            });
            match (checked, staged) {
                (Ok((sha256, out, previous)), Ok(temp)) => (sha256, out, previous, Some(temp)),
                (Err(err), staged) => {
                    if let Ok(temp) = staged {
                        let _ = parent.remove_file(&temp);
                    }
                    return Err(err);
                }
                (Ok((_, out, _)), Err(err)) => return Err((E::from(placed(err)), Some(out))),
            }
        } else {
            let (sha256, out) = beside().map_err(|err| (err, None))?;
            match check() {
                Ok(previous) => (sha256, out, previous, None),
                Err(err) => return Err((E::from(err), Some(out))),
            }
        };
        debug_assert_eq!(sha256, Sha256::of(bytes), "the hash given for a write must be the hash of its bytes");
        let temp = match temp {
            Some(temp) => temp,
            None => match crate::atomic::stage(&parent, bytes, existing, self.durability) {
                Ok(temp) => temp,
                Err(err) => return Err((E::from(placed(err)), Some(out))),
            },
        };
        // The file about to appear at `rel` is held by this lock as well.
        self.adopt(rel, &parent, &temp);
        let done = crate::atomic::place(&parent, &temp, name, self.durability, options.create_new);
        if let Err(err) = done {
            return Err((E::from(placed(err)), Some(out)));
        }
        self.record(rel, sha256);
        let written = Written {
            path: rel.to_owned(),
            sha256,
            size: bytes.len() as u64,
            created: previous.is_none(),
            previous_sha256: previous,
        };
        Ok((written, out))
    }

    /// The staleness rule, owned here (the patch crate's plan asks it too): the hash a
    /// read-modify-write of canonical `rel` (as resolution returned it) must find there, `None`
    /// when any content will do. An explicit hash is always honoured; otherwise the ledger's
    /// (what this workspace last read or wrote there), unless forced.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// let given = editkit_vfs::Sha256::of(b"two\n");
    /// assert_eq!(workspace.expected_hash("a.txt", None, false), None);
    /// let read = workspace.read("a.txt")?;
    /// assert_eq!(workspace.expected_hash("a.txt", None, false), Some(read.sha256()));
    /// assert_eq!(workspace.expected_hash("a.txt", None, true), None);
    /// assert_eq!(workspace.expected_hash("a.txt", Some(given), true), Some(given));
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn expected_hash(&self, rel: &str, explicit: Option<Sha256>, force: bool) -> Option<Sha256> {
        match explicit {
            Some(expected) => Some(expected),
            None if force => None,
            None => self.ledger.lock_unpoisoned().get(rel).copied(),
        }
    }

    /// The last check of a write: the hash of what `rel` holds now (`None` when nothing), if
    /// it is what the staleness guard expects; else [`Error::Stale`].
    fn fresh_hash(
        &self,
        given: &str,
        rel: &str,
        read: Option<&FileText>,
        options: &WriteOptions,
    ) -> Result<Option<Sha256>> {
        let previous = self.hash_now(given, rel, read)?;
        self.check_fresh(given, rel, previous, options)?;
        Ok(previous)
    }

    /// The staleness guard of a write (see [`Workspace::expected_hash`]).
    fn check_fresh(&self, given: &str, rel: &str, current: Option<Sha256>, options: &WriteOptions) -> Result<()> {
        match self.expected_hash(rel, options.expected_hash, options.force) {
            Some(expected) if current != Some(expected) => {
                Err(Error::Stale { path: given.to_owned(), expected: Some(expected), current })
            }
            _ => Ok(()),
        }
    }

    /// Opens (creating if asked) the directory `parent_rel` as a handle.
    fn parent_dir(&self, given: &str, parent_rel: &str, create: bool) -> Result<Dir> {
        if parent_rel.is_empty() {
            return self.root.try_clone().map_err(|e| Error::from_io("open", given, e));
        }
        match crate::beneath::dir(&self.root, parent_rel) {
            Ok(dir) => Ok(dir),
            Err(err) if err.kind() == std::io::ErrorKind::NotADirectory => {
                Err(Error::NotADirectory { path: parent_rel.to_owned() })
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound && create => {
                crate::beneath::create_dirs(&self.root, parent_rel)
                    .map_err(|e| Error::from_io("create directory", given, e))?;
                crate::beneath::dir(&self.root, parent_rel).map_err(|e| Error::from_io("open", given, e))
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                Err(Error::NotFound { path: format!("{parent_rel}/") })
            }
            Err(err) => Err(Error::from_io("open", given, err)),
        }
    }

    /// Creates a directory and its missing parents.
    ///
    /// # Errors
    /// Policy errors, [`Error::NotADirectory`] when a file is in the way, [`Error::Io`].
    pub fn create_dir_all(&self, path: &str) -> Result<()> {
        let resolved = self.resolve_inner(path, true)?;
        match resolved.kind {
            Some(EntryKind::Dir) => Ok(()),
            Some(_) => Err(Error::NotADirectory { path: path.to_owned() }),
            None => crate::beneath::create_dirs(&self.root, &resolved.rel)
                .map_err(|e| Error::from_io("create directory", path, e)),
        }
    }

    /// Deletes a file, a directory (recursively) or a symlink (never its target).
    ///
    /// # Errors
    /// Policy errors, [`Error::InvalidPath`] for the root, [`Error::NotFound`], [`Error::Io`].
    pub fn delete(&self, path: &str) -> Result<EntryKind> {
        let resolved = self.resolve_inner(path, false)?;
        let (parent_rel, name) = split_parent(&resolved.rel).ok_or_else(|| Error::InvalidPath {
            path: path.to_owned(),
            reason: "the workspace root cannot be deleted".into(),
        })?;
        let kind = resolved.kind.ok_or_else(|| Error::NotFound { path: path.to_owned() })?;
        let parent = self.parent_dir(path, parent_rel, false)?;
        let meta = parent.symlink_metadata(name).map_err(|e| Error::from_io("delete", path, e))?;
        if meta.is_dir() {
            self.refuse_blocked_inside(path, &parent, name, &resolved.rel)?;
            // As `rm -r` asks before each write-protected file, a folder holding one stays.
            let dir = crate::beneath::dir(&parent, name).map_err(|e| Error::from_io("open directory", path, e))?;
            self.refuse_read_only_inside(&dir, &resolved.rel, 1)?;
            // Checked again entry by entry as it goes: something blocked moved in meanwhile
            // stops the deletion there.
            let result = self.remove_tree(&parent, name, &resolved.rel, 0);
            self.forget(&resolved.rel);
            result?;
        } else {
            if meta.is_file() {
                writable(path, cap_std::fs::PermissionsExt::mode(&meta.permissions()))?;
            }
            self.vacate(&resolved.rel);
            parent.remove_file(name).map_err(|e| Error::from_io("delete", path, e))?;
            self.forget(&resolved.rel);
        }
        Ok(kind)
    }

    /// Refuses to delete or move the directory `name` (in `parent`, canonical `rel`) when
    /// anything below it is blocked: a folder holding `.env` or a key file is not removed
    /// wholesale. Links are not followed.
    pub(crate) fn refuse_blocked_inside(&self, given: &str, parent: &Dir, name: &str, rel: &str) -> Result<()> {
        let dir = crate::beneath::dir(parent, name).map_err(|e| Error::from_io("open directory", given, e))?;
        self.check_tree(given, &dir, rel, 1)
    }

    /// Depth-first, one open directory per level (never more than [`MAX_TREE_DEPTH`]), links
    /// never entered.
    fn check_tree(&self, given: &str, dir: &Dir, rel: &str, depth: usize) -> Result<()> {
        if depth > MAX_TREE_DEPTH {
            return Err(too_deep(given));
        }
        for (name, is_dir) in list_names(given, dir)? {
            let child = format!("{rel}/{name}");
            if let Some(pattern) = self.policy.blocked_by(&child) {
                return Err(Error::Blocked { path: child, pattern: pattern.to_owned() });
            }
            if is_dir {
                let sub = crate::beneath::dir(dir, &name).map_err(|e| Error::from_io("open directory", &child, e))?;
                self.check_tree(given, &sub, &child, depth + 1)?;
            }
        }
        Ok(())
    }

    /// Refuses a deletion of the folder `dir` (canonical `rel`) holding a read-only file, at
    /// any depth ([`Error::ReadOnly`] naming the first found); links are not followed.
    fn refuse_read_only_inside(&self, dir: &Dir, rel: &str, depth: usize) -> Result<()> {
        if depth > MAX_TREE_DEPTH {
            return Err(too_deep(rel));
        }
        for (name, is_dir) in list_names(rel, dir)? {
            let child = format!("{rel}/{name}");
            if is_dir {
                let sub = crate::beneath::dir(dir, &name).map_err(|e| Error::from_io("open directory", &child, e))?;
                self.refuse_read_only_inside(&sub, &child, depth + 1)?;
            } else if let Ok(meta) = dir.symlink_metadata(&name)
                && meta.is_file()
            {
                writable(&child, cap_std::fs::PermissionsExt::mode(&meta.permissions()))?;
            }
        }
        Ok(())
    }

    /// Removes the directory `name` of `parent` (canonical `rel`) and everything in it, entry by
    /// entry through handles that follow no link; a blocked entry found on the way stops it.
    fn remove_tree(&self, parent: &Dir, name: &str, rel: &str, depth: usize) -> Result<()> {
        if depth > MAX_TREE_DEPTH {
            return Err(too_deep(rel));
        }
        let dir = crate::beneath::dir(parent, name).map_err(|e| Error::from_io("open directory", rel, e))?;
        for (child_name, is_dir) in list_names(rel, &dir)? {
            let child = format!("{rel}/{child_name}");
            if let Some(pattern) = self.policy.blocked_by(&child) {
                return Err(Error::Blocked { path: child, pattern: pattern.to_owned() });
            }
            if is_dir {
                self.remove_tree(&dir, &child_name, &child, depth + 1)?;
            } else {
                dir.remove_file(&child_name).map_err(|e| Error::from_io("delete", &child, e))?;
            }
        }
        drop(dir);
        parent.remove_dir(name).map_err(|e| Error::from_io("delete", rel, e))
    }

    /// Renames `from` to `to` within the workspace (a symlink is moved as a link).
    ///
    /// # Errors
    /// Policy errors, [`Error::NotFound`], [`Error::Exists`] when `to` exists and
    /// [`RenameOptions::overwrite`] is not set, [`Error::InvalidPath`] for a `to` ending in `/`,
    /// [`Error::Io`].
    pub fn rename(&self, from: &str, to: &str, options: RenameOptions) -> Result<()> {
        let source = self.resolve_inner(from, false)?;
        let target = self.resolve_inner(to, true)?;
        if to.ends_with('/') || to.ends_with("/.") {
            // `dir/` names a directory: a file called `dir` would not be what was asked.
            return Err(Error::InvalidPath {
                path: to.to_owned(),
                reason: "a destination ending in `/` names a directory; give the full new path (`dir/name`)".into(),
            });
        }
        let (from_parent, from_name) = split_parent(&source.rel).ok_or_else(|| Error::InvalidPath {
            path: from.to_owned(),
            reason: "the workspace root cannot be moved".into(),
        })?;
        let (to_parent, to_name) = split_parent(&target.rel).ok_or_else(|| Error::InvalidPath {
            path: to.to_owned(),
            reason: "cannot move onto the workspace root".into(),
        })?;
        if source.kind.is_none() {
            return Err(Error::NotFound { path: from.to_owned() });
        }
        if target.kind.is_some() && !options.overwrite {
            return Err(Error::Exists { path: to.to_owned() });
        }
        // A read-only file moves (its content and mode go with it), but is not replaced.
        if target.kind == Some(EntryKind::File) {
            self.check_writable_at(to, &target.rel)?;
        }
        let from_dir = self.parent_dir(from, from_parent, false)?;
        if source.kind == Some(EntryKind::Dir) {
            self.refuse_blocked_inside(from, &from_dir, from_name, &source.rel)?;
            self.refuse_folder_into_hard_links(&source.rel, &target.rel, to)?;
        }
        let to_dir = self.parent_dir(to, to_parent, options.create_dirs)?;
        self.adopt(&target.rel, &from_dir, from_name);
        self.vacate(&source.rel);
        from_dir.rename(from_name, &to_dir, to_name).map_err(|e| Error::from_io("rename", from, e))?;
        if self.durability.syncs() {
            sync_dir(&to_dir);
            if from_parent != to_parent {
                sync_dir(&from_dir);
            }
        }
        let moved = self.ledger.lock_unpoisoned().remove(&source.rel);
        self.forget(&source.rel);
        if let Some(hash) = moved {
            self.record(&target.rel, hash);
        }
        Ok(())
    }

    /// Whether something exists at `path` (a dangling link inside the root does not count).
    ///
    /// # Errors
    /// Policy errors (a path leading outside is refused, not answered with `false`).
    pub fn exists(&self, path: &str) -> Result<bool> {
        Ok(self.resolve_inner(path, true)?.kind.is_some())
    }

    /// What the directory entry at `path` is, without following a final link (a link is
    /// [`EntryKind::Symlink`], whatever it points to); `None` when there is none.
    ///
    /// ```
    /// # fn main() -> Result<(), editkit_vfs::Error> {
    /// use editkit_vfs::EntryKind;
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("real.txt"), "x\n").unwrap();
    /// std::os::unix::fs::symlink("real.txt", dir.path().join("alias.txt")).unwrap();
    /// let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
    /// assert_eq!(workspace.entry_kind("real.txt")?, Some(EntryKind::File));
    /// assert_eq!(workspace.entry_kind("alias.txt")?, Some(EntryKind::Symlink));
    /// assert_eq!(workspace.entry_kind("none.txt")?, None);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// Policy errors.
    pub fn entry_kind(&self, path: &str) -> Result<Option<EntryKind>> {
        Ok(self.resolve_inner(path, false)?.kind)
    }

    /// What `path` names (following symlinks), and its size in bytes.
    ///
    /// # Errors
    /// Policy errors, [`Error::NotFound`].
    pub fn metadata(&self, path: &str) -> Result<Metadata> {
        let resolved = self.resolve_inner(path, true)?;
        let kind = resolved.kind.ok_or_else(|| Error::NotFound { path: path.to_owned() })?;
        let stat =
            |fd: &dyn std::os::fd::AsFd| rustix::fs::fstat(fd).map_err(|e| Error::from_io("stat", path, e.into()));
        let stat = if resolved.rel.is_empty() {
            stat(&self.root)?
        } else {
            let fd =
                crate::beneath::open(&self.root, &resolved.rel, rustix::fs::OFlags::PATH, rustix::fs::Mode::empty())
                    .map_err(|e| Error::from_io("stat", path, e))?;
            stat(&fd)?
        };
        let size = if resolved.rel.is_empty() { 0 } else { stat.st_size.unsigned_abs() };
        // Whole seconds and nanoseconds of a timestamp as nanoseconds (saturating in 2262).
        let nanos = |seconds: i64, nanos: i64| seconds.saturating_mul(1_000_000_000).saturating_add(nanos);
        Ok(Metadata {
            kind,
            size,
            modified_unix: stat.st_mtime,
            modified_ns: nanos(stat.st_mtime, i64::try_from(stat.st_mtime_nsec).unwrap_or(0)),
            changed_ns: nanos(stat.st_ctime, i64::try_from(stat.st_ctime_nsec).unwrap_or(0)),
            mode: stat.st_mode & 0o7777,
        })
    }
}

/// Refuses a regular file of permission bits `mode` whose owner may not write it.
fn writable(given: &str, mode: u32) -> Result<()> {
    if mode & 0o200 == 0 {
        return Err(Error::ReadOnly { path: given.to_owned(), mode: mode & 0o7777 });
    }
    Ok(())
}

fn too_deep(given: &str) -> Error {
    Error::TooDeep { path: given.to_owned(), limit: MAX_TREE_DEPTH }
}

/// The names in `dir` with whether each is a real directory (not a link), read in full so the
/// listing's descriptor is closed before the caller descends.
fn list_names(given: &str, dir: &Dir) -> Result<Vec<(String, bool)>> {
    let mut names = Vec::new();
    for entry in dir.entries().map_err(|e| Error::from_io("list", given, e))? {
        let entry = entry.map_err(|e| Error::from_io("list", given, e))?;
        let is_dir = entry.file_type().map_err(|e| Error::from_io("list", given, e))?.is_dir();
        let Ok(name) = entry.file_name().into_string() else {
            return Err(Error::InvalidPath {
                path: format!("{given}/{}", entry.file_name().to_string_lossy()),
                reason: "a name inside is not UTF-8, so the policy cannot judge it; remove it by hand".into(),
            });
        };
        names.push((name, is_dir));
    }
    Ok(names)
}

/// Whether `file` holds exactly `expected` from where it stands to its end, read and compared
/// a block at a time.
pub(crate) fn holds(file: &mut impl Read, expected: &[u8]) -> std::io::Result<bool> {
    // No bigger than needed to see the end after `expected` (a small file's compare would
    // otherwise cost more in zeroing the buffer than in reading).
    let mut buf = vec![0u8; expected.len().saturating_add(1).min(64 << 10)];
    let mut at = 0;
    loop {
        let n = match file.read(&mut buf) {
            Ok(n) => n,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if n == 0 {
            return Ok(at == expected.len());
        }
        if expected.get(at..at + n) != buf.get(..n) {
            return Ok(false);
        }
        at += n;
    }
}

/// The decoded text of bytes read from canonical `rel` (`path` as given, for errors).
fn file_text(path: &str, rel: String, bytes: Vec<u8>, sha256: Sha256) -> Result<FileText> {
    let size = bytes.len() as u64;
    let text = Text::decode_owned(bytes).map_err(|err| Error::from_decode(path, err))?;
    Ok(FileText { path: rel, text: text.into(), sha256, size })
}
