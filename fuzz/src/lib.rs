//! The bodies of editkit's fuzz targets, shared with `cargo test`: each libFuzzer target in
//! `fuzz_targets/` calls one of these functions, and the facade's test suite
//! (`crates/toolkit/tests/it/fuzz_replay.rs`) replays every file committed under
//! `fixtures/fuzz/<target>/` through the same function on the stable toolchain, so a past
//! crash cannot come back unnoticed.
//!
//! Every function takes arbitrary bytes and panics only when an invariant is broken.

use std::path::Path;

use editkit::vfs::{Text, Workspace, WriteOptions};

/// Text codec round trip: decode then encode is the identity; a splice keeps every byte
/// before the edited line.
pub fn codec(data: &[u8]) {
    let Ok(text) = Text::decode(data) else { return };
    assert_eq!(text.encode(), data, "decode/encode is not the identity");
    assert!(!text.as_str().contains('\r'));
    let len = text.as_str().len();
    // The prefix arithmetic below is UTF-8's; other encodings are the `encodings` target's.
    if len == 0 || !text.encoding().is_utf8() {
        return;
    }
    // Replace the last line with a marker: everything before it must stay byte-identical.
    let body = text.as_str();
    let start = body.strip_suffix('\n').unwrap_or(body).rfind('\n').map_or(0, |i| i + 1);
    let mut edited = text.clone();
    if edited.splice(start..len, "X").is_ok() {
        let bytes = edited.encode();
        let original_prefix_len = Text::decode(data).map(|t| prefix_bytes(&t, start)).unwrap_or(0);
        assert_eq!(bytes[..original_prefix_len], data[..original_prefix_len], "bytes before the edit changed");
    }
}

/// Encodings an input may name explicitly (its first byte chooses one).
const ENCODINGS: [&str; 16] = [
    "utf-8",
    "utf-16le",
    "utf-16be",
    "windows-1252",
    "windows-1250",
    "windows-1251",
    "iso-8859-2",
    "koi8-r",
    "shift_jis",
    "euc-jp",
    "iso-2022-jp",
    "euc-kr",
    "gbk",
    "gb18030",
    "big5",
    "x-user-defined",
];

/// Detect → decode → encode: whatever encoding detection (or an encoding named explicitly,
/// chosen by the first byte) takes bytes in, encoding the text gives the bytes back exactly, a
/// decoded text holds only characters its encoding holds, and ASCII appended to it leaves every
/// byte before it unchanged.
pub fn encodings(data: &[u8]) {
    let detected = Text::decode(data).ok().map(|text| (text, data));
    let asked = data.split_first().and_then(|(first, rest)| {
        let encoding = editkit::vfs::Encoding::for_label(ENCODINGS[usize::from(*first) % ENCODINGS.len()])?;
        Text::decode_as(rest, encoding).ok().map(|text| (text, rest))
    });
    for (text, bytes) in detected.into_iter().chain(asked) {
        assert_eq!(text.encode(), bytes, "decode/encode is not the identity in {}", text.encoding());
        let encoded = text.try_encoded().expect("a decoded text holds only what its encoding holds");
        assert_eq!(encoded.as_ref(), bytes);
        let mut appended = text.clone();
        let end = appended.as_str().len();
        appended.splice(end..end, "x\n").expect("the end is a char boundary");
        let after = appended.try_encoded().expect("ASCII is in every encoding decoded");
        assert!(after.starts_with(bytes), "appending changed the bytes before it in {}", text.encoding());
    }
}

/// Bytes on disk (BOM included) that encode the first `normalised` bytes of the text.
fn prefix_bytes(text: &Text, normalised: usize) -> usize {
    let lines_before = text.as_str()[..normalised].matches('\n').count();
    let crlf_before =
        text.endings().iter().take(lines_before).filter(|e| **e == editkit::vfs::LineEnding::CrLf).count();
    normalised + crlf_before + if text.bom() { 3 } else { 0 }
}

/// Names the path-policy target builds paths and links from.
const PARTS: [&str; 12] = ["a", "b", "sub", "..", ".", "link", "out", "~", "", "a/b", "$ROOT", "$OUT"];
const TARGETS: [&str; 8] = ["a", "sub", "..", "../out", "../../", "$OUT", "$ROOT/a", "link"];
const LINK_SPOTS: [&str; 4] = ["link", "a/link", "sub/link", "l2"];

/// A sequence of workspace operations and symlink plantings decoded from the bytes, in a
/// temporary root beside an outside folder: nothing outside is ever read, changed or created.
pub fn paths(data: &[u8]) {
    let Ok(tmp) = tempfile::tempdir() else { return };
    let Ok(base) = std::fs::canonicalize(tmp.path()) else { return };
    let (root, out) = (base.join("root"), base.join("out"));
    for dir in [&root, &out, &root.join("a"), &root.join("sub")] {
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
    }
    let _ = std::fs::write(out.join("sentinel.txt"), "SENTINEL");
    let _ = std::fs::write(root.join("a/file.txt"), "inside");
    let Ok(workspace) = Workspace::builder(&root, editkit::vfs::ambient_authority()).cross_process_locks(false).open()
    else {
        return;
    };
    let before = snapshot(&base, &root);
    let expand = |s: &str| s.replace("$ROOT", &root.to_string_lossy()).replace("$OUT", &out.to_string_lossy());
    let mut bytes = data.iter().copied();
    let mut next = move || bytes.next();
    while let Some(op) = next() {
        let mut path = String::new();
        for _ in 0..=(op >> 5) % 4 {
            let Some(part) = next() else { break };
            if !path.is_empty() {
                path.push('/');
            }
            path.push_str(PARTS[usize::from(part) % PARTS.len()]);
        }
        let path = expand(&path);
        let seen = match op % 8 {
            0 => {
                let spot = LINK_SPOTS[usize::from(next().unwrap_or(0)) % LINK_SPOTS.len()];
                let target = expand(TARGETS[usize::from(next().unwrap_or(0)) % TARGETS.len()]);
                let _ = std::fs::remove_file(root.join(spot));
                let _ = std::os::unix::fs::symlink(target, root.join(spot));
                String::new()
            }
            1 => workspace.read(&path).map(|f| f.text().to_owned()).unwrap_or_default(),
            2 => {
                let _ = workspace.write(&path, b"fuzz", &WriteOptions { force: true, ..Default::default() });
                String::new()
            }
            3 => {
                let _ = workspace.delete(&path);
                String::new()
            }
            4 => workspace.list_dir(&path).map(|names| names.join(",")).unwrap_or_default(),
            5 => {
                let mut names = Vec::new();
                let _ = workspace.open_dir(&path).and_then(|dir| {
                    dir.walk(&mut |entry| {
                        names.push(entry.rel.clone());
                        true
                    })
                });
                names.join(",")
            }
            6 => {
                let _ = workspace.rename(
                    "a/file.txt",
                    &path,
                    editkit::vfs::RenameOptions::default().overwrite(true).create_dirs(true),
                );
                let _ = workspace.rename(
                    &path,
                    "a/file.txt",
                    editkit::vfs::RenameOptions::default().overwrite(true).create_dirs(true),
                );
                String::new()
            }
            _ => {
                let _ = workspace.create_dir_all(&path);
                String::new()
            }
        };
        assert!(!seen.contains("SENTINEL") && !seen.contains("sentinel.txt"), "the outside leaked: {seen}");
    }
    assert_eq!(snapshot(&base, &root), before, "something outside the root changed");
}

/// Everything under `base` except the root itself: names, file contents, link targets.
fn snapshot(base: &Path, root: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![base.to_owned()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path == root {
                continue;
            }
            let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
            let value = if meta.is_symlink() {
                format!("link {:?}", std::fs::read_link(&path).ok())
            } else if meta.is_dir() {
                stack.push(path.clone());
                "dir".to_owned()
            } else {
                std::fs::read_to_string(&path).unwrap_or_default()
            };
            out.push((path.to_string_lossy().into_owned(), value));
        }
    }
    out.sort();
    out
}

/// The JSON dispatcher with arbitrary arguments: the first byte picks the tool, the rest is
/// the arguments (JSON if it parses, else a string in every common field). The result is
/// always a contract object, and nothing outside the root changes.
pub fn call(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else { return };
    let names = editkit::tools::names();
    let tool = names[usize::from(which) % names.len()];
    let args = serde_json::from_slice::<serde_json::Value>(rest).unwrap_or_else(|_| {
        let text = String::from_utf8_lossy(rest);
        serde_json::json!({
            "path": text, "content": text, "old_string": text, "new_string": "x", "pattern": text,
            "patch": text, "function_name": text, "new_implementation": text, "session_id": text,
            "new_content": text, "old_content": text, "within": text,
        })
    });
    let Ok(tmp) = tempfile::tempdir() else { return };
    let Ok(base) = std::fs::canonicalize(tmp.path()) else { return };
    let (root, out) = (base.join("root"), base.join("out"));
    if std::fs::create_dir_all(root.join("src")).is_err() || std::fs::create_dir_all(&out).is_err() {
        return;
    }
    let _ = std::fs::write(out.join("sentinel.txt"), "SENTINEL");
    let _ = std::fs::write(root.join("src/app.py"), "def f():\n    return 1\n");
    let _ = std::fs::write(root.join("README.md"), "# T\n\n## Usage\n\nrun\n");
    let Ok(toolkit) = editkit::Toolkit::open(&root, editkit::ToolkitOptions::default()) else { return };
    let before = snapshot(&base, &root);
    let result = editkit::tools::call(&toolkit, tool, args);
    let ok = result["ok"].as_bool().expect("every result has a boolean `ok`");
    if !ok {
        let kind = result["error"]["kind"].as_str().expect("every error has a kind");
        assert!(editkit::ERROR_KINDS.contains(&kind), "kind {kind:?} is not a contract kind");
        assert!(result["error"]["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    assert!(!result.to_string().contains("SENTINEL"), "the outside leaked through {tool}");
    assert_eq!(snapshot(&base, &root), before, "{tool} changed something outside the root");
}

/// The notebook tools on an arbitrary file named `nb.ipynb`: every result is a contract object,
/// and whenever an edit was written, the file still reads as a notebook with the cell count
/// the edit reported.
pub fn notebook(data: &[u8]) {
    let Ok(tmp) = tempfile::tempdir() else { return };
    let Ok(toolkit) = editkit::Toolkit::open(tmp.path(), editkit::ToolkitOptions::default()) else { return };
    if std::fs::write(tmp.path().join("nb.ipynb"), data).is_err() {
        return;
    }
    let contract = |result: &serde_json::Value| {
        if result["ok"] != true {
            let kind = result["error"]["kind"].as_str().expect("every error has a kind");
            assert!(editkit::ERROR_KINDS.contains(&kind), "kind {kind:?} is not a contract kind");
        }
    };
    let read = editkit::tools::call(&toolkit, "notebook_read", serde_json::json!({"path": "nb.ipynb"}));
    contract(&read);
    let first = read["cells"][0]["id"].as_str().unwrap_or("cell-0").to_owned();
    let edits = [
        (
            "notebook_edit",
            serde_json::json!({"path": "nb.ipynb", "index": 0, "action": "replace", "source": "x = 1\n"}),
        ),
        (
            "notebook_edit",
            serde_json::json!({"path": "nb.ipynb", "index": 0, "action": "replace", "source": "# m", "cell_type": "markdown"}),
        ),
        (
            "notebook_edit",
            serde_json::json!({"path": "nb.ipynb", "index": 0, "action": "insert_before", "source": "a\nb"}),
        ),
        ("notebook_edit", serde_json::json!({"path": "nb.ipynb", "index": 0, "action": "insert_after", "source": ""})),
        (
            "edit_file",
            serde_json::json!({"path": "nb.ipynb", "cell_id": first, "old_string": "x = 1", "new_string": "x = 2"}),
        ),
        ("notebook_edit", serde_json::json!({"path": "nb.ipynb", "index": 0, "action": "delete", "force": true})),
    ];
    for (tool, args) in edits {
        let result = editkit::tools::call(&toolkit, tool, args);
        contract(&result);
        if result["ok"] == true {
            let again = editkit::tools::call(&toolkit, "notebook_read", serde_json::json!({"path": "nb.ipynb"}));
            assert_eq!(again["ok"], true, "{tool} left a file that is not a notebook: {again}");
            if let Some(count) = result["cell_count"].as_u64() {
                assert_eq!(again["cells"].as_array().map(Vec::len), Some(count as usize), "{tool}: cell count");
            }
        }
    }
}

/// Strict JSON parsing against serde_json: text serde_json refuses is refused, text it reads
/// is read to the same value unless a key repeats, and a repeated key is named.
pub fn json(data: &[u8]) {
    let reference = serde_json::from_slice::<serde_json::Value>(data);
    match (editkit::json::parse(data), reference) {
        (Ok(strict), Ok(reference)) => assert_eq!(strict, reference, "strict parsing read another value"),
        (Ok(strict), Err(err)) => panic!("strict parsing accepted {strict} that serde_json refuses: {err}"),
        (Err(err @ editkit::json::ParseError::DuplicateKey { .. }), _) => {
            assert!(err.duplicate_path().is_some(), "a repeated key names where it stands");
        }
        (Err(_), Err(_)) => {}
        (Err(err), Ok(value)) => panic!("strict parsing refused {value} that serde_json reads: {err}"),
    }
}

/// Matcher find/replace over (haystack, needle, new): no panic, ranges on char boundaries, and
/// every replacement is prefix + inserted text + suffix around the matches.
pub fn matcher(data: &[u8]) {
    use editkit::matcher::{MatchOptions, Rung};

    // Fields are separated by 0xFF, which never occurs in UTF-8; the first byte picks the mode.
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut fields = rest.split(|&byte| byte == 0xFF).map(String::from_utf8_lossy);
    let haystack = fields.next().unwrap_or_default();
    let needle = fields.next().unwrap_or_default();
    let new = fields.next().unwrap_or_default();
    let mut options = MatchOptions { strict: mode & 1 == 1, ..MatchOptions::default() };
    if mode & 2 == 2 {
        // A range picked by the high bits of the mode byte, possibly off char boundaries (refused).
        let len = haystack.len();
        let start = usize::from(mode >> 4) * len / 16;
        let end = (start + usize::from(mode >> 2 & 3) * len / 4).min(len);
        options.within = Some(start..end);
    }

    if let Ok(found) = editkit::matcher::find(&haystack, &needle, &options) {
        let range = found.byte_range();
        assert!(range.start < range.end && range.end <= haystack.len());
        assert!(haystack.is_char_boundary(range.start) && haystack.is_char_boundary(range.end));
        if let Some(within) = &options.within {
            assert!(within.start <= range.start && range.end <= within.end);
        }
        let lines = found.line_range();
        assert_eq!(lines.start, haystack[..range.start].matches('\n').count());
        assert!(lines.end > lines.start);
        if found.rung() == Rung::Exact {
            assert_eq!(&haystack[range], &*needle);
        }
    }
    if let Ok(all) = editkit::matcher::find_all(&haystack, &needle, &options) {
        for pair in all.windows(2) {
            assert!(pair[0].byte_range().end <= pair[1].byte_range().start);
        }
    }
    let replaced = if mode & 4 == 4 {
        editkit::matcher::replace_all(&haystack, &needle, &new, &options)
    } else {
        editkit::matcher::replace(&haystack, &needle, &new, &options)
    };
    if let Ok(edited) = replaced {
        check_splice(&haystack, &new, &edited);
    }
}

fn check_splice(before: &str, new: &str, edited: &editkit::matcher::Replaced) {
    let after = edited.text();
    assert_ne!(before, after);
    assert_eq!(edited.matches().len(), edited.inserted().len());
    let (mut before_at, mut after_at) = (0, 0);
    for (found, inserted) in edited.matches().iter().zip(edited.inserted()) {
        let range = found.byte_range();
        assert!(before.is_char_boundary(range.start) && before.is_char_boundary(range.end));
        assert!(after.is_char_boundary(inserted.start) && after.is_char_boundary(inserted.end));
        assert_eq!(before[before_at..range.start], after[after_at..inserted.start]);
        if found.rung() == editkit::matcher::Rung::Exact {
            assert_eq!(&after[inserted.clone()], new);
        }
        before_at = range.end;
        after_at = inserted.end;
    }
    assert_eq!(before[before_at..], after[after_at..]);
}

const ANALYZE_PATHS: [&str; 8] = ["a.py", "a.ts", "a.tsx", "a.js", "a.jsx", "a.md", "a.json", "a"];

/// Arbitrary bytes through detect, syntax check, the check of a change (old and new split at
/// the first `\u{1}`, else the new text is the old one without its middle third), symbols,
/// symbol ranges, function replacement and the Markdown outline: never a panic or a hang, and
/// a change's errors and places are inside the new text.
pub fn analyze(data: &[u8]) {
    use editkit::analyze::{
        FileKind, change_region, check_change, check_syntax, detect, outline, replace_function, section_range,
        symbol_range, symbols,
    };
    // The first byte picks the path, so every grammar sees every input.
    let Some((&selector, bytes)) = data.split_first() else { return };
    let path = ANALYZE_PATHS[usize::from(selector) % ANALYZE_PATHS.len()];
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    let kind = detect(path, text);
    let _ = check_syntax(kind, text);
    let (old, new) = match text.split_once('\u{1}') {
        Some((old, new)) => (old.to_owned(), new.to_owned()),
        None => {
            let (mut third, mut two) = (text.len() / 3, 2 * text.len() / 3);
            while !text.is_char_boundary(third) {
                third -= 1;
            }
            while !text.is_char_boundary(two) {
                two -= 1;
            }
            (text.to_owned(), format!("{}{}", &text[..third], &text[two..]))
        }
    };
    if let Ok(report) = check_change(kind, Some(&old), &new) {
        let lines = new.matches('\n').count() + 1;
        assert!(report.errors.iter().all(|error| (1..=lines).contains(&error.line)), "{report:?}");
        assert!(report.places.windows(2).all(|pair| pair[0].1 <= pair[1].0), "{report:?}");
        assert!(report.places.iter().all(|&(first, last)| first <= last && last <= lines), "{report:?}");
    }
    if let Some(range) = change_region(&old, &new) {
        assert!(new.get(range.clone()).is_some(), "region {range:?} is not on char boundaries");
    }
    let _ = outline(text);
    let _ = section_range(text, "a > b");
    let code_kind = match kind {
        FileKind::Markdown | FileKind::Json | FileKind::Text => FileKind::Python,
        other => other,
    };
    if let Ok(found) = symbols(code_kind, text)
        && let Some(first) = found.first()
        && let Ok(range) = symbol_range(code_kind, text, &first.path())
    {
        let own = text.get(range.clone());
        assert!(own.is_some(), "range {range:?} is not on char boundaries");
        let _ = replace_function(code_kind, text, &first.path(), own.unwrap_or_default());
    }
}

/// A small tree shared by every run; dry runs never change it.
fn patch_workspace() -> &'static editkit::vfs::Workspace {
    static TREE: std::sync::OnceLock<(tempfile::TempDir, editkit::vfs::Workspace)> = std::sync::OnceLock::new();
    let (_, workspace) = TREE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temp dir");
        let files: [(&str, &[u8]); 5] = [
            ("a.txt", b"one\ntwo\nthree\n"),
            ("src/lib.rs", b"fn main() {\r\n    println!(\"hi\");\r\n}\r\n"),
            ("bom.md", b"\xEF\xBB\xBF# Title\n\ntext"),
            ("u16.txt", b"\xFF\xFEh\x00i\x00"),
            ("bin.dat", b"\x00\x01\x02"),
        ];
        for (path, bytes) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().expect("a parent")).expect("folders");
            std::fs::write(full, bytes).expect("a file");
        }
        let workspace =
            editkit::vfs::Workspace::open(dir.path(), editkit::vfs::ambient_authority()).expect("a workspace");
        (dir, workspace)
    });
    workspace
}

/// Patch parsers and planner: any text parses or fails with a typed error whose line is inside
/// the text; a parsed patch plans (dry run) against a small tree without panicking.
pub fn patch(data: &[u8]) {
    use editkit::patch::{ApplyOptions, Error, Operation};

    let text = String::from_utf8_lossy(data);
    let lines = text.split('\n').count();
    match editkit::patch::parse(&text) {
        Ok(patch) => {
            assert!(!patch.operations().is_empty());
            for operation in patch.operations() {
                assert!((1..=lines).contains(&operation.line()));
                if let Operation::Update { hunks, .. } = operation {
                    assert!(hunks.iter().all(|hunk| (1..=lines).contains(&hunk.line)));
                }
            }
            let options = ApplyOptions { dry_run: true, ..Default::default() };
            match editkit::patch::plan(patch_workspace(), &patch, &options) {
                Ok(plan) => assert!(plan.preview().dry_run),
                Err(err) => {
                    assert!(!err.kind().is_empty());
                    let _ = err.to_string();
                    if let Error::Plan { failures } = &err {
                        assert!(!failures.is_empty());
                    }
                }
            }
        }
        Err(Error::InvalidPatch { line, .. }) => assert!((1..=lines).contains(&line), "line {line} of {lines}"),
        Err(Error::EmptyHunk { line, .. }) => assert!((1..=lines).contains(&line)),
        Err(err) => assert!(matches!(err, Error::NoOperations | Error::TooLarge { .. }), "{err}"),
    }
}

/// One workspace for every run: creating a temp dir per input would dominate the run time.
fn search_workspace() -> &'static (tempfile::TempDir, editkit::vfs::Workspace) {
    static WORKSPACE: std::sync::OnceLock<(tempfile::TempDir, editkit::vfs::Workspace)> = std::sync::OnceLock::new();
    WORKSPACE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let workspace =
            editkit::vfs::Workspace::open(dir.path(), editkit::vfs::ambient_authority()).expect("workspace");
        (dir, workspace)
    })
}

/// Search with arbitrary patterns, globs and file bytes: never a panic, output within bounds.
pub fn search(data: &[u8]) {
    use editkit::search::{CUT_MARKER, Case, Search};

    // Layout: flags byte, then pattern, glob and file content separated by 0xFF.
    let Some((&flags, rest)) = data.split_first() else { return };
    let mut parts = rest.splitn(3, |&b| b == 0xFF);
    let pattern = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let glob = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let content = parts.next().unwrap_or_default();
    let (dir, workspace) = search_workspace();
    std::fs::write(dir.path().join("input.txt"), content).expect("write input");
    let max_line_chars = 40;
    let mut builder = Search::builder(pattern);
    builder
        .literal(flags & 1 != 0)
        .case(if flags & 2 != 0 { Case::Smart } else { Case::Insensitive })
        .whole_word(flags & 4 != 0)
        .multi_line(flags & 8 != 0)
        .lossy(flags & 16 != 0)
        .context(usize::from(flags >> 6))
        .max_results(5)
        .max_line_chars(max_line_chars)
        .threads(1);
    if !glob.is_empty() {
        builder.glob(glob);
    }
    let Ok(search) = builder.build() else { return };
    let Ok(found) = search.run(workspace, ".") else { return };
    let lines: usize = found.results.iter().map(|r| r.matches.len()).sum();
    assert!(lines <= 5, "max_results exceeded");
    let bound = max_line_chars + 2 * CUT_MARKER.chars().count();
    for hit in found.results.iter().flat_map(|r| &r.matches) {
        for line in hit
            .content
            .split('\n')
            .chain(hit.before.iter().map(String::as_str))
            .chain(hit.after.iter().map(String::as_str))
        {
            assert!(line.chars().count() <= bound, "line longer than the bound");
        }
        assert!(hit.line >= 1 && hit.column >= 1);
    }
}
