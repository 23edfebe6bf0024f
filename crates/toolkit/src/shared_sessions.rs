//! Editor sessions kept in the state folder, for callers whose next call may reach another
//! toolkit (MCP 2026-07-28 over stateless HTTP: each request gets its own toolkit, and several
//! server processes of one machine may serve one workspace). Such a session's handle is
//! `e<32 hex digits: 128 random bits>:<path>`; the path is only there so that the refusal of
//! an expired handle can name the file to load again. Its record is the file
//! `editor/<hex>` in the state folder of the root holding the file (0600 in a 0700 folder,
//! never reachable by a tool). The records are bounded like the in-memory sessions
//! (`max_sessions`, `max_session_bytes`: past them the least recently changed are removed) and
//! expire [`LIFETIME_MINUTES`] after their last change. A call that changes a session first
//! renames its record to `editor/<hex>.busy` (one rename wins), so two calls on one handle at
//! once cannot lose an edit: the second is refused as busy.

use std::io::Read;

use editkit_vfs::{Encoding, Sha256, Text, Workspace};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::sessions::Session;

/// How long a shared session lives after its last load, change or store.
pub const LIFETIME_MINUTES: u64 = 30;
const LIFETIME_NANOS: i64 = (LIFETIME_MINUTES * 60 * 1_000_000_000) as i64;
const DIR: &str = "editor";
const BUSY: &str = ".busy";

/// A parsed handle: the random part (the record's name) and the path it names.
pub(crate) struct Handle<'a> {
    pub(crate) key: &'a str,
    pub(crate) path: &'a str,
}

impl<'a> Handle<'a> {
    /// The handle `id`, or `None` for an id that is not a shared session's (an in-memory one).
    pub(crate) fn parse(id: &'a str) -> Option<Handle<'a>> {
        let rest = id.strip_prefix('e')?;
        let (key, path) = rest.split_once(':')?;
        (key.len() == 32 && key.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()))
            .then_some(Handle { key, path })
    }

    fn expired(&self, id: &str) -> Error {
        Error::SessionExpired { id: id.to_owned(), path: self.path.to_owned(), minutes: LIFETIME_MINUTES }
    }
}

/// A new handle for `path`: 128 bits from the system's random source.
pub(crate) fn mint(path: &str) -> Result<(String, String)> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom").and_then(|mut random| random.read_exact(&mut bytes)).map_err(|err| {
        Error::InvalidArgs { field: None, message: format!("no random source for a session handle: {err}") }
    })?;
    let key: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok((format!("e{key}:{path}"), key))
}

/// A session as its record holds it: each text with its own line endings, in UTF-8 (a UTF-8
/// BOM standing for the file's BOM), and the encoding the file is written back in.
#[derive(Serialize, Deserialize)]
struct Record {
    path: String,
    sha256: String,
    encoding: String,
    buffer: String,
    loaded: String,
}

fn text_of(text: &Text) -> String {
    let mut out = String::new();
    if text.bom() {
        out.push('\u{feff}');
    }
    out.push_str(&text.with_endings());
    out
}

fn text_from(stored: &str, encoding: Encoding) -> Result<Text> {
    let bytes = stored.as_bytes();
    Text::decode_as(bytes, Encoding::utf8()).map(|text| text.in_encoding(encoding)).map_err(|err| Error::InvalidArgs {
        field: None,
        message: format!("an editor session's record does not decode: {err}"),
    })
}

fn encode(session: &Session) -> Result<Vec<u8>> {
    let record = Record {
        path: session.path.clone(),
        sha256: session.sha256.to_string(),
        encoding: session.loaded.encoding().label().to_owned(),
        buffer: text_of(&session.buffer),
        loaded: text_of(&session.loaded),
    };
    serde_json::to_vec(&record)
        .map_err(|err| Error::InvalidArgs { field: None, message: format!("an editor session's record: {err}") })
}

fn decode(root: usize, bytes: &[u8]) -> Option<Session> {
    let record: Record = serde_json::from_slice(bytes).ok()?;
    let encoding = Encoding::for_label(&record.encoding)?;
    let sha256: Sha256 = record.sha256.parse().ok()?;
    let loaded = text_from(&record.loaded, encoding).ok()?;
    let mut session = Session::new(root, record.path, sha256, loaded);
    session.buffer = text_from(&record.buffer, encoding).ok()?;
    Some(session)
}

fn now_nanos() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| i64::try_from(since.as_nanos()).unwrap_or(i64::MAX))
}

/// Keeps the records of `workspace` within the bounds and lifetime: expired records (and busy
/// ones left by a call that never returned) are removed, then the least recently changed
/// others than `keep` while there are more than `max_sessions` or they hold more than
/// `max_bytes` (with `adding` bytes about to be written).
fn prune(workspace: &Workspace, keep: &str, adding: u64, max_sessions: usize, max_bytes: u64) -> Result<()> {
    let txn = workspace.txn();
    let now = now_nanos();
    let mut live = Vec::new();
    for name in txn.state_list(DIR)? {
        let entry = format!("{DIR}/{name}");
        let Some((size, changed)) = txn.state_metadata(&entry)? else { continue };
        if now.saturating_sub(changed) > LIFETIME_NANOS {
            txn.state_remove(&entry)?;
        } else if name.strip_suffix(BUSY).unwrap_or(&name) != keep {
            live.push((changed, size, entry));
        }
    }
    live.sort();
    let mut count = live.len() + 1;
    let mut bytes = live.iter().fold(adding, |sum, (_, size, _)| sum.saturating_add(*size));
    for (_, size, entry) in live {
        if count <= max_sessions.max(1) && bytes <= max_bytes {
            break;
        }
        txn.state_remove(&entry)?;
        count -= 1;
        bytes = bytes.saturating_sub(size);
    }
    Ok(())
}

/// Opens a session under `key` in `workspace`'s state folder.
pub(crate) fn insert(
    workspace: &Workspace,
    key: &str,
    session: &Session,
    max_sessions: usize,
    max_bytes: u64,
) -> Result<()> {
    let bytes = encode(session)?;
    prune(workspace, key, bytes.len() as u64, max_sessions, max_bytes)?;
    Ok(workspace.txn().state_write(&format!("{DIR}/{key}"), &bytes)?)
}

/// The root holding `handle`'s record, and the record if it is live.
fn find(roots: &[Workspace], name: &str) -> Result<Option<(usize, Vec<u8>, i64)>> {
    for (root, workspace) in roots.iter().enumerate() {
        let txn = workspace.txn();
        let Some((_, changed)) = txn.state_metadata(name)? else { continue };
        let Some(bytes) = txn.state_read(name)? else { continue };
        return Ok(Some((root, bytes, changed)));
    }
    Ok(None)
}

/// Runs `f` on the session of `handle` without changing it.
pub(crate) fn read<T>(
    roots: &[Workspace],
    id: &str,
    handle: &Handle<'_>,
    f: impl FnOnce(&Session) -> Result<T>,
) -> Result<T> {
    let key = handle.key;
    for name in [format!("{DIR}/{key}"), format!("{DIR}/{key}{BUSY}")] {
        if let Some((root, bytes, changed)) = find(roots, &name)?
            && now_nanos().saturating_sub(changed) <= LIFETIME_NANOS
            && let Some(session) = decode(root, &bytes)
        {
            return f(&session);
        }
    }
    Err(handle.expired(id))
}

/// What a change does with the session afterwards.
pub(crate) enum After {
    /// Keep it (changed or not).
    Keep,
    /// Close it.
    Close,
}

/// Runs `f` on the session of `handle` holding it for this call alone, then writes it back
/// (on success) or leaves it as it was (on an error).
pub(crate) fn change<T>(
    roots: &[Workspace],
    id: &str,
    handle: &Handle<'_>,
    bounds: (usize, u64),
    f: impl FnOnce(&mut Session) -> Result<(T, After)>,
) -> Result<T> {
    let key = handle.key;
    let (name, busy) = (format!("{DIR}/{key}"), format!("{DIR}/{key}{BUSY}"));
    let Some((root, _, changed)) = find(roots, &name)? else {
        return Err(match find(roots, &busy)? {
            Some((_, _, changed)) if now_nanos().saturating_sub(changed) <= LIFETIME_NANOS => {
                Error::SessionBusy { id: id.to_owned() }
            }
            _ => handle.expired(id),
        });
    };
    let workspace = &roots[root];
    let txn = workspace.txn();
    match txn.state_rename(&name, &busy) {
        Ok(()) => {}
        Err(editkit_vfs::Error::NotFound { .. }) => return Err(Error::SessionBusy { id: id.to_owned() }),
        Err(err) => return Err(err.into()),
    }
    let release = |bytes: Option<&[u8]>| -> Result<()> {
        match bytes {
            Some(bytes) => {
                txn.state_write(&name, bytes)?;
                txn.state_remove(&busy).map_err(Into::into)
            }
            None => txn.state_rename(&busy, &name).map_err(Into::into),
        }
    };
    let claimed = match txn.state_read(&busy) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Err(Error::SessionBusy { id: id.to_owned() }),
        Err(err) => {
            let _ = release(None);
            return Err(err.into());
        }
    };
    let fresh = now_nanos().saturating_sub(changed) <= LIFETIME_NANOS;
    let Some(mut session) = decode(root, &claimed).filter(|_| fresh) else {
        let _ = txn.state_remove(&busy);
        return Err(handle.expired(id));
    };
    match f(&mut session) {
        Ok((value, After::Keep)) => {
            let bytes = encode(&session)?;
            prune(workspace, key, bytes.len() as u64, bounds.0, bounds.1)?;
            release(Some(&bytes))?;
            Ok(value)
        }
        Ok((value, After::Close)) => {
            txn.state_remove(&busy)?;
            Ok(value)
        }
        Err(err) => {
            release(None)?;
            Err(err)
        }
    }
}
