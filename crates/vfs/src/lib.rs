//! The capability sandbox every editkit tool stands on.
//!
//! A [`Workspace`] holds a cap-std directory handle on a root directory; every read, write,
//! listing and delete goes through that handle, so no path, symlink or race can reach outside
//! the root. Paths are checked by a [`Policy`] first (relative with `/`; `..` may not climb out;
//! `~`, NUL, drive and UNC forms refused; absolute paths remapped under the root or refused;
//! blocked globs), then resolved component by component with symlinks followed only while they
//! stay inside. Every open after that follows no link at all (`openat2` with
//! `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`), so an entry swapped for a link mid-operation, to
//! `.env`, to `.git` or out of the root, is refused ([`Error::Changed`]) rather than followed,
//! and files are opened non-blocking and judged on the handle (a FIFO is refused, never waited
//! on).
//!
//! Everything in the workspace is untrusted input, so editkit's own state (lock files, patch
//! journals, undo history) is kept outside it, in a folder per root under
//! [`default_state_home`] (`$XDG_STATE_HOME/editkit`), created only when first written; a
//! `.editkit` folder a repository ships is blocked and ignored ([`Workspace::shipped_state`]).
//!
//! On top of the sandbox:
//! - a text codec ([`Text`]) that LF-normalises for editing and writes back untouched
//!   lines byte for byte (BOM, CRLF, lone CR, final newline kept);
//! - atomic writes (temp file in the same directory, fsync, rename, permissions kept);
//! - a read ledger: a write to a file that changed since this workspace read it is refused
//!   ([`Error::Stale`]) unless forced;
//! - per-file locks ([`FileLock`]) serialising read-modify-write across threads and processes;
//! - transaction steps ([`Workspace::txn`]) for the patch crate's commit and the undo history,
//!   which take a [`CanonicalPath`]: a path only resolution and the policy build, so no public
//!   call reads, writes, renames or removes a path the policy did not allow.
//!
//! Opening a workspace is the one use of ambient authority (opening the root by its path): it
//! takes cap-std's [`AmbientAuthority`] token, [`ambient_authority()`], so a caller sees it.
//!
//! Linux only: the sandbox rests on `openat2` (`RESOLVE_BENEATH`, `RESOLVE_NO_SYMLINKS`),
//! `O_PATH` handles, `syncfs` and `flock` as Linux provides them.
//!
//! ```
//! # fn main() -> Result<(), editkit_vfs::Error> {
//! use editkit_vfs::{Workspace, WriteOptions};
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("app.py"), "def main():\r\n    return 1\r\n").unwrap();
//!
//! let workspace = Workspace::open(dir.path(), editkit_vfs::ambient_authority())?;
//! let file = workspace.read("app.py")?;
//! assert_eq!(file.text(), "def main():\n    return 1\n");
//!
//! // Edit the LF-normalised text; untouched lines keep their CRLF endings.
//! let mut text = file.decoded().clone();
//! let at = text.as_str().find("1").unwrap();
//! text.splice(at..at + 1, "2").unwrap();
//! workspace.write("app.py", &text.encode(), &WriteOptions::default())?;
//! assert_eq!(std::fs::read(dir.path().join("app.py")).unwrap(), b"def main():\r\n    return 2\r\n");
//!
//! // Someone else changes the file: the next write is refused until it is read again.
//! std::fs::write(dir.path().join("app.py"), "changed\n").unwrap();
//! let err = workspace.write("app.py", b"mine\n", &WriteOptions::default()).unwrap_err();
//! assert_eq!(err.error_kind(), editkit_vfs::ErrorKind::Stale);
//!
//! // Nothing outside the root is reachable.
//! assert_eq!(workspace.read("../../etc/passwd").unwrap_err().error_kind(), editkit_vfs::ErrorKind::OutsideWorkspace);
//! # Ok(()) }
//! ```
#![deny(missing_docs)]

mod atomic;
mod beneath;
mod canonical;
mod codec;
mod descriptors;
mod encoding;
mod error;
mod files;
mod hash;
mod lock;
mod lock_table;
mod object_lock;
mod policy;
mod reap;
mod resolve;
mod state;
mod sync;
mod txn;
mod walk;
mod workspace;

pub use atomic::Durability;
pub use canonical::CanonicalPath;
pub use cap_std::{AmbientAuthority, ambient_authority};
pub use codec::{
    BINARY_SNIFF_BYTES, DecodeError, LineEnding, LineEndings, SpliceError, Text, as_text, nul_verdict, utf16_may_decode,
};
pub use descriptors::grow_descriptor_table;
pub use encoding::{Encoding, Unencodable};
pub use error::{Error, ErrorKind, Result};
pub use files::{FileText, MAX_TREE_DEPTH, RenameOptions, WriteOptions, Written};
pub use hash::{ParseSha256Error, Sha256};
pub use lock::FileLock;
pub use policy::{AbsolutePaths, Policy};
pub use state::default_state_home;
pub use txn::{Folders, Staged, Txn};
pub use walk::{Entry, SkipReason, SkippedEntry, WorkspaceDir};
pub use workspace::{DEFAULT_MAX_READ_BYTES, EntryKind, Metadata, Workspace, WorkspaceBuilder};
