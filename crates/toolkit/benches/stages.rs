//! The edit path stage by stage, at 10 KB, 1 MB and 10 MB of Python, so a regression names its
//! stage: read+decode (and a read of a remembered text), hash (from scratch, and resumed from the file's last content), match, splice, encode, write (full and atomic durability), diff,
//! and the post-write syntax check (from scratch, and incremental through a `CheckCache` that
//! holds the file's previous tree), then the whole `edit_file` call with checks off and on.
//! `cargo xtask bench toolkit` runs it with `calls`.

use editkit::analyze::{CheckCache, FileKind, check_syntax};
use editkit::vfs::{Durability, Sha256, Text, Workspace, WriteOptions};
use editkit::{Toolkit, matcher};
use serde_json::json;

fn main() {
    // As the binary does: the descriptor table grown before divan's threads start.
    let _ = editkit::vfs::grow_descriptor_table(4096);
    divan::main();
}

const SIZES: [usize; 3] = [10_000, 1_000_000, 10_000_000];

/// Valid Python of about `size` bytes: numbered functions, so every edit target is unique.
fn source(size: usize) -> String {
    let mut text = String::with_capacity(size + 128);
    let mut n = 0;
    while text.len() < size {
        text.push_str(&format!("def f{n}(x):\n    y = x + {n}\n    return y\n\n\n"));
        n += 1;
    }
    text
}

/// The edit: one line in the middle of the file.
fn target(text: &str) -> (String, String) {
    let middle = text.matches("def f").count() / 2;
    (format!("    y = x + {middle}\n"), format!("    y = x + {middle} * 2\n"))
}

#[divan::bench(args = SIZES)]
fn read_decode(bencher: divan::Bencher<'_, '_>, size: usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("a.py"), source(size)).expect("fixture");
    let workspace = Workspace::open(dir.path(), editkit::vfs::ambient_authority()).expect("workspace");
    bencher.bench(|| {
        let bytes = workspace.read_bytes("a.py").expect("read");
        Text::decode_owned(bytes).expect("text").line_count()
    });
}

/// A read of a file that holds the text this workspace last wrote to it
/// (`Workspace::remember_text`, as an edit leaves it): compared with the file a block at a time
/// and taken as it is, where `read_decode` reads, decodes and hashes. Contents under 64 KiB are
/// not kept, so at 10 KB this is a plain read.
#[divan::bench(args = SIZES)]
fn read_remembered(bencher: divan::Bencher<'_, '_>, size: usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    let workspace = Workspace::open(dir.path(), editkit::vfs::ambient_authority()).expect("workspace");
    let text = Text::decode(source(size).as_bytes()).expect("text");
    let written = workspace.write("a.py", text.as_str().as_bytes(), &WriteOptions::default()).expect("write");
    workspace.remember_text("a.py", written.sha256, text);
    bencher.bench(|| workspace.read("a.py").expect("read").line_count());
}

#[divan::bench(args = SIZES)]
fn hash(bencher: divan::Bencher<'_, '_>, size: usize) {
    let bytes = source(size).into_bytes();
    bencher.bench(|| Sha256::of(&bytes));
}

/// The new content of an edit in the middle, hashed from the states of the file's remembered
/// content (`FileLock::sha256_of_new`): about half of `hash`.
#[divan::bench(args = SIZES)]
fn hash_resumed(bencher: divan::Bencher<'_, '_>, size: usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    let workspace = Workspace::open(dir.path(), editkit::vfs::ambient_authority()).expect("workspace");
    let text = source(size);
    let (old, new) = target(&text);
    let edited = text.replacen(&old, &new, 1).into_bytes();
    let lock = workspace.lock("a.py").expect("lock");
    let sha256 = lock.sha256_of_new(text.as_bytes());
    lock.write(text.as_bytes(), &WriteOptions { content_sha256: Some(sha256), ..Default::default() }).expect("write");
    workspace.remember_content("a.py", sha256, text.into_bytes());
    bencher.bench(|| lock.sha256_of_new(&edited));
}

#[divan::bench(args = SIZES)]
fn match_old_string(bencher: divan::Bencher<'_, '_>, size: usize) {
    let text = source(size);
    let (old, new) = target(&text);
    bencher.bench(|| matcher::plan_replace(&text, &old, &new, &Default::default()).expect("one match").matches().len());
}

#[divan::bench(args = SIZES)]
fn splice_and_encode(bencher: divan::Bencher<'_, '_>, size: usize) {
    let text = source(size);
    let (old, new) = target(&text);
    let decoded = Text::decode(text.as_bytes()).expect("text");
    let at = text.find(&old).expect("target");
    bencher.bench(|| {
        let next = decoded.spliced(&[(at..at + old.len(), new.as_str())]).expect("splice");
        next.encoded().len()
    });
}

#[divan::bench(args = SIZES, consts = [true, false])]
fn write<const FULL: bool>(bencher: divan::Bencher<'_, '_>, size: usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    let durability = if FULL { Durability::Full } else { Durability::Atomic };
    let workspace = Workspace::builder(dir.path(), editkit::vfs::ambient_authority())
        .durability(durability)
        .open()
        .expect("workspace");
    let bytes = source(size).into_bytes();
    let options = WriteOptions { force: true, ..Default::default() };
    bencher.bench(|| workspace.write("a.py", &bytes, &options).expect("write").size);
}

#[divan::bench(args = SIZES)]
fn diff(bencher: divan::Bencher<'_, '_>, size: usize) {
    let text = source(size);
    let (old, new) = target(&text);
    let edited = text.replacen(&old, &new, 1);
    bencher.bench(|| editkit::diff::bounded("a.py", &text, &edited).0.len());
}

#[divan::bench(args = SIZES)]
fn check_from_scratch(bencher: divan::Bencher<'_, '_>, size: usize) {
    let text = source(size);
    bencher.bench(|| check_syntax(FileKind::Python, &text).expect("parses").valid);
}

#[divan::bench(args = SIZES)]
fn check_incremental(bencher: divan::Bencher<'_, '_>, size: usize) {
    let text = source(size);
    let (old, new) = target(&text);
    let edited = text.replacen(&old, &new, 1);
    let cache = CheckCache::default();
    cache.check("a.py", FileKind::Python, &text).expect("parses");
    let mut forward = true;
    bencher.bench_local(|| {
        let next = if forward { &edited } else { &text };
        forward = !forward;
        cache.check("a.py", FileKind::Python, next).expect("parses").valid
    });
}

/// The whole call through the JSON surface, checks `off` or `auto` (the built-in check and
/// the Python compile worker; the worker starts before timing), atomic durability.
#[divan::bench(args = SIZES, consts = [false, true])]
fn edit_file<const CHECKS: bool>(bencher: divan::Bencher<'_, '_>, size: usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    let text = source(size);
    std::fs::write(dir.path().join("a.py"), &text).expect("fixture");
    let mut options = editkit::ToolkitOptions { durability: Durability::Atomic, ..Default::default() };
    if !CHECKS {
        options.diagnostics.mode = editkit::analyze::DiagnosticsMode::Off;
    }
    options.diagnostics.checkers.values_mut().for_each(|tools| tools.retain(|tool| tool.name == "python"));
    let toolkit = Toolkit::open(dir.path(), options).expect("toolkit");
    let (a, b) = target(&text);
    let mut forward = true;
    let mut edit = || {
        let (old, new) = if forward { (&a, &b) } else { (&b, &a) };
        forward = !forward;
        let result = editkit::tools::call(
            &toolkit,
            "edit_file",
            json!({"path": "a.py", "old_string": old, "new_string": new, "force": true}),
        );
        assert_eq!(result["ok"], true, "{result}");
    };
    // The first check parses from scratch and starts the worker.
    edit();
    bencher.bench_local(edit);
}
