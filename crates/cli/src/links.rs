//! Big outputs as resource links: the text of a search, listing or diff longer than
//! [`INLINE_BYTES`] is answered with its first lines, a line saying where the rest is, and a
//! `resource_link` to the whole text, which `resources/read` returns while it is kept.
//!
//! The texts are files in the state home's `.mcp-results` folder (mode 0600, named by 128
//! random bits), so every server process on this machine reads the links of the others (a
//! stateless client's next request may reach another process). The folder is bounded: at most
//! [`MAX_KEPT`] texts and [`MAX_KEPT_BYTES`] together (the oldest removed first when one is
//! added), each for [`KEPT_FOR`]; a link read after that is refused with what to do. Only
//! 2026-07-28 requests and 2025-11-25 sessions that declared tasks get links (other handshake
//! clients keep their whole text, as before).
//!
//! The same folder holds the task journal: each task's state as `task-<id>.json` (its start,
//! then its end with the result), so `tasks/get` reaching another process answers as the one
//! running it, and `task-<id>.cancel`, a `tasks/cancel` that reached another process, which the
//! running one heeds. Entries older than the retention the caller names are removed as new
//! ones are written.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use rmcp::model::{CallToolResult, ContentBlock, DetailedTask, Resource};

/// Longest text block answered whole.
pub(crate) const INLINE_BYTES: usize = 16 << 10;
/// Most texts kept at once.
const MAX_KEPT: usize = 64;
/// Most bytes of text kept at once (and the longest text kept).
const MAX_KEPT_BYTES: u64 = 64 << 20;
/// How long a text is kept.
pub(crate) const KEPT_FOR: Duration = Duration::from_secs(600);
/// The tools whose text may be linked: searches, listings, diffs.
const LINKED_TOOLS: &[&str] = &["search_files", "search_code", "glob", "tree", "list_dir", "generate_diff"];
/// Where the texts are found.
const SCHEME: &str = "editkit://results/";

/// The folder of the texts kept for links.
#[derive(Clone, Default)]
pub(crate) struct Links {
    /// `None`: no state home, so no links (texts are answered whole).
    dir: Option<PathBuf>,
}

impl Links {
    /// Links kept under `state_home` (its `.mcp-results` folder).
    pub(crate) fn under(state_home: Option<&Path>) -> Links {
        Links { dir: state_home.map(|home| home.join(".mcp-results")) }
    }

    /// `result` with its text cut to its first lines and linked, when `tool`'s text is too long
    /// to answer whole; else as it was (also when the text cannot be kept).
    pub(crate) fn link(&self, tool: &str, mut result: CallToolResult) -> CallToolResult {
        if !LINKED_TOOLS.contains(&tool) || result.is_error == Some(true) {
            return result;
        }
        let Some(ContentBlock::Text(block)) = result.content.first() else { return result };
        let whole = block.text.as_str();
        if whole.len() <= INLINE_BYTES || whole.len() as u64 > MAX_KEPT_BYTES {
            return result;
        }
        let Some(id) = self.keep(whole) else { return result };
        let uri = format!("{SCHEME}{id}");
        let head_end = whole[..whole.floor_char_boundary(INLINE_BYTES)].rfind('\n').map_or(0, |at| at + 1);
        let rest = &whole[head_end..];
        let text = format!(
            "{}[{} more lines ({} bytes) not shown: the whole text is the resource {uri} (resources/read), kept \
             {} minutes; or narrow the call]\n",
            &whole[..head_end],
            rest.lines().count(),
            rest.len(),
            KEPT_FOR.as_secs() / 60
        );
        let mut link = Resource::new(uri, format!("{tool} result"));
        link.mime_type = Some("text/plain".into());
        link.size = Some(whole.len() as u64);
        link.description = Some(format!("the whole text of this {tool} result"));
        result.content = vec![ContentBlock::text(text), ContentBlock::resource_link(link)];
        result
    }

    /// The text a link names, while it is kept.
    pub(crate) fn read(&self, uri: &str) -> Result<String, String> {
        let gone = || {
            format!(
                "{uri:.200} is gone: results are kept {} minutes, the latest {MAX_KEPT}; run the tool again",
                KEPT_FOR.as_secs() / 60
            )
        };
        let id = uri.strip_prefix(SCHEME).ok_or_else(|| {
            format!("`{uri:.200}` is no resource of this server; it serves the {SCHEME}… links of its results")
        })?;
        // Only a name this module made: no separator, no dot.
        if id.len() != 32 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(gone());
        }
        let dir = self.private_dir().ok_or_else(gone)?;
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, rustix::fs::OFlags::NOFOLLOW.bits() as i32);
        let mut file = options.open(dir.join(format!("{id}.txt"))).map_err(|_| gone())?;
        let fresh = file.metadata().and_then(|m| m.modified()).ok().is_some_and(|at| !expired(at));
        if !fresh {
            return Err(gone());
        }
        let mut text = String::new();
        (&mut file).take(MAX_KEPT_BYTES).read_to_string(&mut text).map_err(|err| format!("{uri:.200}: {err}"))?;
        Ok(text)
    }

    /// Keeps `text` in a new file, removing expired ones and the oldest past the bounds; its id.
    fn keep(&self, text: &str) -> Option<String> {
        let dir = self.private_dir()?;
        let mut kept: Vec<(SystemTime, u64, PathBuf)> = std::fs::read_dir(dir)
            .ok()?
            .filter_map(|entry| {
                let entry = entry.ok()?;
                let meta = entry.metadata().ok()?;
                let text = entry.file_name().to_string_lossy().ends_with(".txt");
                (meta.is_file() && text)
                    .then(|| (meta.modified().unwrap_or(SystemTime::UNIX_EPOCH), meta.len(), entry.path()))
            })
            .collect();
        kept.sort();
        let mut bytes: u64 = kept.iter().map(|k| k.1).sum::<u64>() + text.len() as u64;
        let mut count = kept.len() + 1;
        for (at, size, path) in kept {
            if expired(at) || count > MAX_KEPT || bytes > MAX_KEPT_BYTES {
                let _ = std::fs::remove_file(path);
                count -= 1;
                bytes -= size;
            }
        }
        let id = new_id()?;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, rustix::fs::OFlags::NOFOLLOW.bits() as i32);
        let path = dir.join(format!("{id}.txt"));
        let written = options.open(&path).and_then(|mut file| file.write_all(text.as_bytes()));
        if written.is_err() {
            let _ = std::fs::remove_file(&path);
            return None;
        }
        Some(id)
    }
}

impl Links {
    /// Records `task`'s state for every process, replacing what was recorded (written whole,
    /// then renamed into place); removes journal entries older than `kept_for`, and the oldest
    /// past [`MAX_KEPT`] entries or [`MAX_KEPT_BYTES`] together. A record larger than that
    /// bound is not kept: other processes then answer the task as unknown.
    pub(crate) fn save_task(&self, task: &DetailedTask, kept_for: Duration) {
        let Some(dir) = self.private_dir() else { return };
        let id = &task.task.task_id;
        if !task_id_ok(id) {
            return;
        }
        let Ok(json) = serde_json::to_vec(task) else { return };
        let own = format!("task-{id}.json");
        let mut kept: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
        if let Ok(entries) = std::fs::read_dir(dir) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let Some(meta) = entry.metadata().ok().filter(|meta| meta.is_file()) else { continue };
                if !name.starts_with("task-") {
                    continue;
                }
                let at = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                if at.elapsed().is_ok_and(|age| age > kept_for) || name == own {
                    // Expired, or this task's own record, replaced below.
                    if name != own {
                        let _ = std::fs::remove_file(entry.path());
                    }
                    continue;
                }
                kept.push((at, meta.len(), entry.path()));
            }
        }
        if json.len() as u64 > MAX_KEPT_BYTES {
            let _ = std::fs::remove_file(dir.join(&own));
            return;
        }
        kept.sort();
        let mut bytes: u64 = kept.iter().map(|k| k.1).sum::<u64>() + json.len() as u64;
        let mut count = kept.len() + 1;
        for (_, size, path) in kept {
            if count > MAX_KEPT || bytes > MAX_KEPT_BYTES {
                let _ = std::fs::remove_file(path);
                count -= 1;
                bytes -= size;
            }
        }
        let Some(salt) = new_id() else { return };
        let temporary = dir.join(format!("task-{id}.{salt}.tmp"));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, rustix::fs::OFlags::NOFOLLOW.bits() as i32);
        let written = options.open(&temporary).and_then(|mut file| file.write_all(&json));
        if written.is_err() || std::fs::rename(&temporary, dir.join(format!("task-{id}.json"))).is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
    }

    /// The state another process recorded for task `id`, if any.
    pub(crate) fn load_task(&self, id: &str) -> Option<DetailedTask> {
        if !task_id_ok(id) {
            return None;
        }
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, rustix::fs::OFlags::NOFOLLOW.bits() as i32);
        let file = options.open(self.private_dir()?.join(format!("task-{id}.json"))).ok()?;
        serde_json::from_reader(std::io::BufReader::new(file.take(MAX_KEPT_BYTES))).ok()
    }

    /// Asks the process running task `id` to cancel it; whether the task is recorded.
    pub(crate) fn ask_cancel(&self, id: &str) -> bool {
        let Some(task) = self.load_task(id) else { return false };
        if let Some(dir) = self.private_dir()
            && !task.status().is_terminal()
        {
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create(true);
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, rustix::fs::OFlags::NOFOLLOW.bits() as i32);
            let _ = options.open(dir.join(format!("task-{id}.cancel")));
        }
        true
    }

    /// Whether another process asked to cancel task `id`.
    pub(crate) fn cancel_asked(&self, id: &str) -> bool {
        task_id_ok(id) && self.private_dir().is_some_and(|dir| dir.join(format!("task-{id}.cancel")).exists())
    }

    /// The folder, made (mode 0700) when missing, when it is a folder of this user that nobody
    /// else may write to (made 0700 if others may list it); never a link. The state home above it was checked when the toolkit
    /// opened; in a shared sticky one (`--state-dir /tmp`) another user may have put their own
    /// folder or a link here first, and then no text is kept.
    fn private_dir(&self) -> Option<&Path> {
        use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _};
        let dir = self.dir.as_deref()?;
        // The state home itself may not exist yet (a machine where nothing was written).
        let mut builder = std::fs::DirBuilder::new();
        builder.mode(0o700).recursive(true);
        builder.create(dir).ok()?;
        let meta = std::fs::symlink_metadata(dir).ok()?;
        let own = meta.uid() == rustix::process::geteuid().as_raw() && meta.mode() & 0o022 == 0;
        if !(meta.is_dir() && own) {
            return None;
        }
        // The names in it are the ids that reach texts and tasks: a folder others may list (made
        // by hand, or under another umask) is made private first, through a handle that is no link.
        if meta.mode() & 0o077 != 0 {
            use rustix::fs::{Mode, OFlags};
            let folder =
                rustix::fs::open(dir, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW, Mode::empty()).ok()?;
            let now = rustix::fs::fstat(&folder).ok()?;
            if now.st_uid != meta.uid() || now.st_ino != meta.ino() {
                return None;
            }
            rustix::fs::fchmod(&folder, Mode::from_raw_mode(0o700)).ok()?;
        }
        Some(dir)
    }
}

/// Whether `id` is a task id as rmcp makes them (a UUID): nothing that could name another file.
fn task_id_ok(id: &str) -> bool {
    id.len() == 36 && id.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
}

/// Whether a text kept at `at` is past [`KEPT_FOR`].
fn expired(at: SystemTime) -> bool {
    at.elapsed().is_ok_and(|age| age > KEPT_FOR)
}

/// 16 random bytes in hex: a link cannot be guessed from another.
fn new_id() -> Option<String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes)).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(result: &CallToolResult) -> &str {
        match result.content.first() {
            Some(ContentBlock::Text(block)) => &block.text,
            _ => "",
        }
    }

    fn uri_of(result: &CallToolResult) -> String {
        match &result.content[1] {
            ContentBlock::ResourceLink(link) => link.uri.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_long_listing_is_its_head_and_a_link_to_the_whole() {
        let home = tempfile::tempdir().unwrap();
        let links = Links::under(Some(home.path()));
        let whole: String = (0..5000).map(|n| format!("src/file{n}.rs\n")).collect();
        let result = links.link("glob", CallToolResult::success(vec![ContentBlock::text(whole.clone())]));
        let head = text_of(&result);
        assert!(head.len() < INLINE_BYTES + 300 && head.starts_with("src/file0.rs\n"), "{head:.200}");
        let uri = uri_of(&result);
        assert!(head.contains(&uri) && head.contains("resources/read"), "{head}");
        // Another process on the same state home reads it.
        assert_eq!(Links::under(Some(home.path())).read(&uri).unwrap(), whole);
        assert!(
            links
                .read("editkit://results/0123456789abcdef0123456789abcdef")
                .unwrap_err()
                .contains("run the tool again")
        );
        assert!(links.read("editkit://results/../../etc/passwd").is_err());
        // A short text and a read are answered whole; so is everything without a state home.
        let short = links.link("glob", CallToolResult::success(vec![ContentBlock::text("a\n")]));
        assert_eq!(short.content.len(), 1);
        let read = links.link("read_file", CallToolResult::success(vec![ContentBlock::text(whole.clone())]));
        assert_eq!(read.content.len(), 1);
        let nowhere = Links::under(None).link("glob", CallToolResult::success(vec![ContentBlock::text(whole)]));
        assert_eq!(nowhere.content.len(), 1);
    }

    #[test]
    fn a_task_recorded_by_one_process_is_read_and_cancelled_by_another() {
        use rmcp::model::{Task, TaskPayload, TaskStatus};
        let home = tempfile::tempdir().unwrap();
        let (running, other) = (Links::under(Some(home.path())), Links::under(Some(home.path())));
        let id = "0f8fad5b-d9cb-469f-a165-70867728950e";
        let task = Task::new(id, TaskStatus::Working, "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z");
        running.save_task(&DetailedTask::new(task.clone(), TaskPayload::Working), KEPT_FOR);
        assert_eq!(other.load_task(id).map(|t| t.status()), Some(TaskStatus::Working));
        assert!(!running.cancel_asked(id));
        assert!(other.ask_cancel(id));
        assert!(running.cancel_asked(id));
        running.save_task(&DetailedTask::new(task, TaskPayload::Cancelled), KEPT_FOR);
        assert_eq!(other.load_task(id).map(|t| t.status()), Some(TaskStatus::Cancelled));
        assert!(!other.ask_cancel("no-such-task") && other.load_task("../../etc/passwd").is_none());
    }

    #[test]
    fn the_task_journal_keeps_the_latest_within_its_bounds() {
        use rmcp::model::{Task, TaskPayload, TaskStatus};
        let home = tempfile::tempdir().unwrap();
        let links = Links::under(Some(home.path()));
        let id = |n: usize| format!("0f8fad5b-d9cb-469f-a165-{n:012}");
        let task = |n: usize, payload| {
            let task = Task::new(id(n), TaskStatus::Working, "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z");
            DetailedTask::new(task, payload)
        };
        // A record past the whole bound is not kept.
        let mut huge = rmcp::model::JsonObject::new();
        huge.insert("text".into(), serde_json::Value::String("x".repeat(MAX_KEPT_BYTES as usize)));
        links.save_task(&task(0, TaskPayload::Completed { result: huge }), KEPT_FOR);
        assert!(links.load_task(&id(0)).is_none());
        // Records of a few MiB each: the oldest go past the byte bound.
        let mut big = rmcp::model::JsonObject::new();
        big.insert("text".into(), serde_json::Value::String("x".repeat(5 << 20)));
        for n in 1..=20 {
            links.save_task(&task(n, TaskPayload::Completed { result: big.clone() }), KEPT_FOR);
        }
        let bytes: u64 = std::fs::read_dir(home.path().join(".mcp-results"))
            .unwrap()
            .map(|entry| entry.unwrap().metadata().unwrap().len())
            .sum();
        assert!(bytes <= MAX_KEPT_BYTES, "{bytes} bytes kept");
        assert!(links.load_task(&id(20)).is_some() && links.load_task(&id(1)).is_none());
        // Many small records: the latest MAX_KEPT.
        for n in 21..21 + MAX_KEPT + 5 {
            links.save_task(&task(n, TaskPayload::Working), KEPT_FOR);
        }
        assert_eq!(std::fs::read_dir(home.path().join(".mcp-results")).unwrap().count(), MAX_KEPT);
        assert!(links.load_task(&id(21 + MAX_KEPT + 4)).is_some());
        // A task's own record is replaced, never counted twice.
        let last = 21 + MAX_KEPT + 4;
        links.save_task(&task(last, TaskPayload::Cancelled), KEPT_FOR);
        assert_eq!(links.load_task(&id(last)).map(|t| t.status()), Some(TaskStatus::Cancelled));
    }

    #[test]
    fn a_state_home_not_made_yet_is_made_private_for_the_first_link() {
        use std::os::unix::fs::PermissionsExt as _;
        let base = tempfile::tempdir().unwrap();
        let home = base.path().join("state/editkit");
        let links = Links::under(Some(&home));
        let whole: String = "x\n".repeat(INLINE_BYTES);
        let result = links.link("tree", CallToolResult::success(vec![ContentBlock::text(whole.clone())]));
        assert_eq!(result.content.len(), 2, "no link without a state home made first");
        assert_eq!(links.read(&uri_of(&result)).unwrap(), whole);
        for dir in [base.path().join("state"), home.clone(), home.join(".mcp-results")] {
            assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700, "{}", dir.display());
        }
    }

    #[test]
    fn a_link_in_place_of_the_folder_is_never_followed() {
        let home = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), home.path().join(".mcp-results")).unwrap();
        let links = Links::under(Some(home.path()));
        let whole: String = "x\n".repeat(INLINE_BYTES);
        let result = links.link("tree", CallToolResult::success(vec![ContentBlock::text(whole)]));
        assert_eq!(result.content.len(), 1, "a text was linked through a planted link");
        assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    }

    #[test]
    fn the_folder_keeps_the_latest_within_its_bounds() {
        let home = tempfile::tempdir().unwrap();
        let links = Links::under(Some(home.path()));
        let whole: String = "x\n".repeat(INLINE_BYTES);
        let uris: Vec<String> = (0..MAX_KEPT + 3)
            .map(|_| uri_of(&links.link("tree", CallToolResult::success(vec![ContentBlock::text(whole.clone())]))))
            .collect();
        assert!(links.read(uris.last().unwrap()).is_ok());
        let kept = std::fs::read_dir(home.path().join(".mcp-results")).unwrap().count();
        assert_eq!(kept, MAX_KEPT);
        assert_eq!(uris.iter().filter(|uri| links.read(uri).is_ok()).count(), MAX_KEPT);
    }
}
