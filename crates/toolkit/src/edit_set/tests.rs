//! The edit set through `Toolkit::apply_edit_set`: all or nothing over five files, the plan's
//! staleness guard, the dry run's diff against what is written, exact placement in any text,
//! every refusal, and SIGKILL at random moments.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use editkit_vfs::Sha256;

use super::{EditSet, EditSetApplied, FileEdits};
use crate::catalog::Tool;
use crate::error::Error;
use crate::types::ErrorKind;
use crate::{Toolkit, ToolkitOptions, UndoPatchRequest};

struct Case {
    dir: tempfile::TempDir,
    toolkit: Toolkit,
}

fn case(files: &[(&str, &[u8])]) -> Case {
    case_with(ToolkitOptions::default(), files)
}

fn case_with(options: ToolkitOptions, files: &[(&str, &[u8])]) -> Case {
    let dir = tempfile::tempdir().unwrap();
    for (path, bytes) in files {
        put(dir.path(), path, bytes);
    }
    let toolkit = Toolkit::open(dir.path(), options).unwrap();
    Case { dir, toolkit }
}

fn put(root: &Path, path: &str, bytes: &[u8]) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, bytes).unwrap();
}

/// Every file under `root` with its bytes.
fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, into: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                walk(root, &entry.path(), into);
            } else {
                let rel = entry.path().strip_prefix(root).unwrap().to_string_lossy().into_owned();
                into.insert(rel, std::fs::read(entry.path()).unwrap());
            }
        }
    }
    let mut files = BTreeMap::new();
    walk(root, root, &mut files);
    files
}

impl Case {
    fn root(&self) -> &Path {
        self.dir.path()
    }

    /// `edits` of `path` on its text as it is now, with its hash now.
    fn edits(&self, path: &str, edits: &[(Range<usize>, &str)]) -> FileEdits {
        let read = self.toolkit.workspace().peek(path).unwrap();
        FileEdits {
            path: path.to_owned(),
            sha256: read.sha256(),
            edits: edits.iter().map(|(range, new)| (range.clone(), (*new).to_owned())).collect(),
        }
    }

    /// What a rename gives for `path`: every `old` in its text becomes `new`.
    fn rename(&self, path: &str, old: &str, new: &str) -> FileEdits {
        let read = self.toolkit.workspace().peek(path).unwrap();
        let edits = read.text().match_indices(old).map(|(at, _)| (at..at + old.len(), new.to_owned())).collect();
        FileEdits { path: path.to_owned(), sha256: read.sha256(), edits }
    }

    fn apply(
        &self,
        files: Vec<FileEdits>,
        dry_run: bool,
        plan: Option<BTreeMap<String, Sha256>>,
    ) -> crate::Result<EditSetApplied> {
        self.toolkit.apply_edit_set(Tool::ApplyPatch, EditSet { files, dry_run, plan })
    }
}

/// A function used in five files: LF, CRLF, no final newline, a BOM and non-ASCII text.
fn five_files() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("pkg/util.py", b"def compute_total(items):\n    return sum(items)\n".to_vec()),
        ("pkg/a.py", b"from pkg.util import compute_total\n\n\ndef a():\n    return compute_total([1, 2])\n".to_vec()),
        (
            "pkg/b.py",
            b"from pkg.util import compute_total\r\n\r\nX = compute_total([3])\r\nY = compute_total([4])\r\n".to_vec(),
        ),
        ("c.py", b"import pkg.util\n\nprint(pkg.util.compute_total([5]))".to_vec()),
        (
            "d.py",
            "\u{feff}# caf\u{e9} \u{2603}\nfrom pkg.util import compute_total as ct, compute_total\n"
                .as_bytes()
                .to_vec(),
        ),
    ]
}

const PATHS: [&str; 5] = ["pkg/util.py", "pkg/a.py", "pkg/b.py", "c.py", "d.py"];

fn five_file_case() -> Case {
    let files = five_files();
    let borrowed: Vec<(&str, &[u8])> = files.iter().map(|(path, bytes)| (*path, bytes.as_slice())).collect();
    case(&borrowed)
}

fn renamed(case: &Case) -> Vec<FileEdits> {
    PATHS.iter().map(|path| case.rename(path, "compute_total", "grand_total")).collect()
}

/// The five files with the rename made by hand, byte for byte.
fn renamed_by_hand() -> BTreeMap<String, Vec<u8>> {
    five_files()
        .into_iter()
        .map(|(path, bytes)| {
            let text = String::from_utf8(bytes).unwrap().replace("compute_total", "grand_total");
            (path.to_owned(), text.into_bytes())
        })
        .collect()
}

#[track_caller]
fn refused(result: crate::Result<EditSetApplied>, kind: ErrorKind) -> Error {
    match result {
        Ok(applied) => panic!("expected `{}`, got {applied:?}", kind.as_str()),
        Err(err) => {
            assert_eq!(err.error_kind(), kind, "{err}");
            err
        }
    }
}

#[test]
fn a_rename_across_five_files_changes_each_as_written_and_undoes_as_one() {
    let case = five_file_case();
    let before = snapshot(case.root());
    let applied = case.apply(renamed(&case), false, None).unwrap();
    assert!(!applied.dry_run);
    assert_eq!(snapshot(case.root()), renamed_by_hand());
    let paths: Vec<&str> = applied.files.iter().map(|file| file.path.as_str()).collect();
    assert_eq!(paths, ["c.py", "d.py", "pkg/a.py", "pkg/b.py", "pkg/util.py"]);
    let edits: Vec<usize> = applied.files.iter().map(|file| file.edits).collect();
    assert_eq!(edits, [1, 2, 2, 3, 1]);
    for file in &applied.files {
        let now = std::fs::read(case.root().join(&file.path)).unwrap();
        assert_eq!(file.sha256_after, Some(Sha256::of(&now)), "{}", file.path);
        assert_eq!(Some(&file.sha256_before), applied.plan.get(&file.path));
        assert!(!file.diagnostics.has_problems, "{:?}", file.diagnostics);
    }
    // The undo history holds the set as one patch.
    case.toolkit.undo_patch(UndoPatchRequest { force: false }).unwrap();
    assert_eq!(snapshot(case.root()), before);
}

/// A file put in the case, the edits made of it, and the refusal they get.
type Refused = (&'static str, &'static [u8], fn(&Case) -> FileEdits, ErrorKind);

#[test]
fn one_refused_file_refuses_the_whole_set_and_nothing_is_written() {
    let bad: [Refused; 6] = [
        ("e.py", b"x = 1\n", |case| case.edits("e.py", &[(4..99, "2")]), ErrorKind::InvalidArgs),
        ("e.py", b"x = 1\n", |case| case.edits("e.py", &[(0..1, "y"), (0..0, "z")]), ErrorKind::InvalidArgs),
        (
            "e.bin",
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0",
            |_| FileEdits {
                path: "e.bin".into(),
                sha256: Sha256::of(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0"),
                edits: vec![(0..1, "y".into())],
            },
            ErrorKind::Binary,
        ),
        (
            "e.py",
            b"x = 1\n",
            |_| FileEdits { path: "../e.py".into(), sha256: Sha256::of(b"x = 1\n"), edits: vec![(0..1, "y".into())] },
            ErrorKind::OutsideWorkspace,
        ),
        (
            ".env",
            b"KEY=1\n",
            |_| FileEdits { path: ".env".into(), sha256: Sha256::of(b"KEY=1\n"), edits: vec![(0..1, "y".into())] },
            ErrorKind::Blocked,
        ),
        (
            "e.py",
            b"x = 1\n",
            |case| {
                let edits = case.edits("e.py", &[(0..1, "y")]);
                put(case.root(), "e.py", b"x = 2\n");
                edits
            },
            ErrorKind::Stale,
        ),
    ];
    for (name, bytes, make, kind) in bad {
        let case = five_file_case();
        put(case.root(), name, bytes);
        let before = snapshot(case.root());
        let mut files = renamed(&case);
        files.push(make(&case));
        let after_make = snapshot(case.root());
        refused(case.apply(files, false, None), kind);
        assert_eq!(snapshot(case.root()), after_make, "{}", kind.as_str());
        if kind != ErrorKind::Stale {
            assert_eq!(after_make, before);
        }
    }
}

#[test]
fn a_file_changed_since_the_dry_run_refuses_the_real_run_with_its_plan() {
    let case = five_file_case();
    let before = snapshot(case.root());
    let dry = case.apply(renamed(&case), true, None).unwrap();
    assert!(dry.dry_run);
    assert_eq!(snapshot(case.root()), before, "a dry run writes nothing");
    assert_eq!(dry.plan.len(), 5);
    // Someone edits one file, away from the name; the rename is asked again on the files as
    // they are now (as rename_symbol does), with the plan the agent saw.
    put(
        case.root(),
        "pkg/a.py",
        b"from pkg.util import compute_total\n\n\ndef a():\n    return compute_total([1, 2, 3])\n",
    );
    let changed = snapshot(case.root());
    let err = refused(case.apply(renamed(&case), false, Some(dry.plan.clone())), ErrorKind::Stale);
    assert!(err.to_string().contains("pkg/a.py"), "{err}");
    assert_eq!(snapshot(case.root()), changed);
    // A set that no longer changes a planned file, or changes one the plan did not name.
    let case = five_file_case();
    let dry = case.apply(renamed(&case), true, None).unwrap();
    let mut fewer = renamed(&case);
    fewer.pop();
    let err = refused(case.apply(fewer, false, Some(dry.plan.clone())), ErrorKind::Stale);
    assert!(err.to_string().contains("`d.py`, which the edits no longer change"), "{err}");
    put(case.root(), "e.py", b"compute_total()\n");
    let mut more = renamed(&case);
    more.push(case.rename("e.py", "compute_total", "grand_total"));
    let err = refused(case.apply(more, false, Some(dry.plan.clone())), ErrorKind::Stale);
    assert!(err.to_string().contains("`e.py`, which the plan does not name"), "{err}");
    // The plan as made, on the files as planned: applied.
    case.apply(renamed(&case), false, Some(dry.plan)).unwrap();
    let mut expected = renamed_by_hand();
    expected.insert("e.py".into(), b"compute_total()\n".to_vec());
    assert_eq!(snapshot(case.root()), expected);
}

#[test]
fn the_dry_run_shows_the_diff_and_hashes_of_what_the_real_run_writes() {
    let case = five_file_case();
    let dry = case.apply(renamed(&case), true, None).unwrap();
    let real = case.apply(renamed(&case), false, Some(dry.plan.clone())).unwrap();
    assert_eq!(dry.diff, real.diff);
    assert_eq!(dry.plan, real.plan);
    for (planned, written) in dry.files.iter().zip(&real.files) {
        assert_eq!(planned.path, written.path);
        assert_eq!(planned.sha256_after, written.sha256_after);
        let now = std::fs::read(case.root().join(&written.path)).unwrap();
        assert_eq!(written.sha256_after, Some(Sha256::of(&now)));
    }
    // The diff is the one editkit's diffs are made by, file after file.
    let mut expected = String::new();
    for (path, old) in five_files().into_iter().collect::<BTreeMap<_, _>>() {
        let old = editkit_vfs::Text::decode(&old).unwrap();
        let new = old.as_str().replace("compute_total", "grand_total");
        expected.push_str(&crate::shown::diff_file(path, old.as_str(), &new, 3));
    }
    assert_eq!(dry.diff, expected);
}

/// xorshift64*, seeded per run and printed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A random text: lines of words (some non-ASCII, some empty), LF or CRLF (or each line its
/// own, lone CR too), with or without a final newline or a BOM.
fn random_text(rng: &mut Rng) -> Vec<u8> {
    let words =
        ["alpha", "b", "", "caf\u{e9}", "\u{2603}\u{2603}", "x = 1", "    indented", "@@ -1 +1 @@", "--- a/x", "\\ No"];
    let endings = ["\n", "\r\n", "\r"];
    // One ending for the file, or (one file in four) each line its own.
    let (mixed, ending) = (rng.below(4) == 0, endings[rng.below(2)]);
    let mut text = String::new();
    if rng.below(5) == 0 {
        text.push('\u{feff}');
    }
    let lines = rng.below(12);
    for line in 0..lines {
        for _ in 0..rng.below(4) {
            text.push_str(words[rng.below(words.len())]);
            text.push(' ');
        }
        if line + 1 < lines || rng.below(3) > 0 {
            text.push_str(if mixed { endings[rng.below(3)] } else { ending });
        }
    }
    text.into_bytes()
}

/// Random edits on `text`, in random order, never overlapping.
fn random_edits(rng: &mut Rng, text: &str) -> Vec<(Range<usize>, String)> {
    let pieces = ["", "NEW", "a\nb", "\n", "\r\n", "\u{e9}t\u{e9}", "line\n", "-x", "+y\n"];
    let mut cuts: Vec<usize> = (0..rng.below(7) * 2)
        .map(|_| rng.below(text.len() + 1))
        .map(|mut at| {
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            at
        })
        .collect();
    cuts.sort_unstable();
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for pair in cuts.chunks(2) {
        let range = pair[0]..pair[1];
        // An insertion at another edit's end (or two at one place) has no order: refused.
        if let Some((last, _)) = edits.last()
            && (range.is_empty() || last.is_empty())
            && range.start == last.end
        {
            continue;
        }
        edits.push((range, pieces[rng.below(pieces.len())].to_owned()));
    }
    // Their order in the set does not matter.
    for i in (1..edits.len()).rev() {
        edits.swap(i, rng.below(i + 1));
    }
    edits
}

#[test]
fn random_edits_land_exactly_in_texts_of_every_shape() {
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
    let mut rng = Rng(seed);
    let case = case(&[]);
    let (mut applied, mut unchanged) = (0, 0);
    for round in 0..300 {
        let path = format!("f{round}.txt");
        let bytes = random_text(&mut rng);
        put(case.root(), &path, &bytes);
        let original = editkit_vfs::Text::decode(&bytes).unwrap();
        let edits = random_edits(&mut rng, original.as_str());
        let mut sorted: Vec<(Range<usize>, &str)> =
            edits.iter().map(|(range, new)| (range.clone(), new.as_str())).collect();
        sorted.sort_by_key(|(range, _)| (range.start, range.end));
        let expected = original.spliced(&sorted).unwrap();
        let set = vec![FileEdits { path: path.clone(), sha256: Sha256::of(&bytes), edits: edits.clone() }];
        let context = format!("seed {seed}, round {round}: {:?} with {edits:?}", original.as_str());
        if expected.as_str() == original.as_str() {
            assert_eq!(case.apply(set, false, None).unwrap_err().error_kind(), ErrorKind::NoChange, "{context}");
            unchanged += 1;
            continue;
        }
        let result = case.apply(set, false, None).unwrap_or_else(|err| panic!("{context}: {err}"));
        let now = std::fs::read(case.root().join(&path)).unwrap();
        let written = editkit_vfs::Text::decode(&now).unwrap();
        assert_eq!(written.as_str(), expected.as_str(), "{context}");
        assert_eq!(written.bom(), original.bom(), "{context}");
        // A file of one line ending keeps it on every line.
        if !matches!(original.line_endings(), editkit_vfs::LineEndings::Mixed) {
            let crlf = bytes.windows(2).any(|pair| pair == b"\r\n");
            let lone_lf = now.iter().enumerate().any(|(i, &b)| b == b'\n' && (i == 0 || now[i - 1] != b'\r'));
            assert!(!crlf || !lone_lf, "{context}: {:?}", String::from_utf8_lossy(&now));
        }
        assert_eq!(result.files[0].sha256_after, Some(Sha256::of(&now)), "{context}");
        applied += 1;
    }
    eprintln!("edit sets on random texts (seed {seed}): {applied} applied, {unchanged} changed nothing");
    assert!(applied > 200);
}

#[test]
fn every_refusal_names_its_cause_and_writes_nothing() {
    let case = case(&[("a.py", "caf\u{e9} = 1\n".as_bytes()), ("latin.txt", b"caf\xe9 cr\xe8me br\xfbl\xe9e\n")]);
    let before = snapshot(case.root());
    let cases: Vec<(Vec<FileEdits>, ErrorKind, &str)> = vec![
        (vec![case.edits("a.py", &[(3..4, "e")])], ErrorKind::InvalidArgs, "character boundaries"),
        (vec![case.edits("a.py", &[(Range { start: 5, end: 2 }, "e")])], ErrorKind::InvalidArgs, "bytes 5..2"),
        (vec![case.edits("a.py", &[(0..3, "x"), (1..5, "y")])], ErrorKind::InvalidArgs, "edits 0 and 1 overlap"),
        (vec![case.edits("a.py", &[(1..1, "x"), (0..0, "y"), (1..1, "z")])], ErrorKind::InvalidArgs, "overlap"),
        (
            vec![case.edits("a.py", &[(0..1, "x")]), case.edits("./a.py", &[(2..3, "y")])],
            ErrorKind::InvalidArgs,
            "named twice",
        ),
        (vec![case.edits("a.py", &[(0..3, "caf")])], ErrorKind::NoChange, "change nothing"),
        (
            vec![FileEdits { path: "missing.py".into(), sha256: Sha256::of(b""), edits: vec![(0..0, "x".into())] }],
            ErrorKind::NotFound,
            "missing.py",
        ),
        (vec![case.edits("a.py", &[(0..1, "x"), (1..1, "y")])], ErrorKind::InvalidArgs, "overlap"),
        (vec![], ErrorKind::NoChange, "change nothing"),
        (
            vec![FileEdits {
                path: "latin.txt".into(),
                sha256: Sha256::of(b"caf\xe9 cr\xe8me br\xfbl\xe9e\n"),
                edits: vec![(0..1, "C".into())],
            }],
            ErrorKind::NotUtf8,
            "latin.txt",
        ),
    ];
    for (files, kind, words) in cases {
        let err = refused(case.apply(files, false, None), kind);
        assert!(err.to_string().contains(words), "{err}");
        assert_eq!(snapshot(case.root()), before);
    }
}

#[test]
fn bounds_are_checked_before_anything_is_read_and_name_their_limit() {
    let case = case(&[("a.py", b"x = 1\n")]);
    let one = case.edits("a.py", &[(0..1, "y")]);
    let files = vec![one.clone(); crate::patch::MAX_PATCH_FILES + 1];
    let err = refused(case.apply(files, false, None), ErrorKind::TooLarge);
    assert!(err.to_string().contains("MAX_PATCH_FILES"), "{err}");
    let plan: BTreeMap<String, Sha256> =
        (0..=crate::patch::MAX_PATCH_FILES).map(|i| (format!("f{i}.py"), one.sha256)).collect();
    let err = refused(case.apply(vec![one.clone()], false, Some(plan)), ErrorKind::TooLarge);
    assert!(err.to_string().contains("MAX_PATCH_FILES"), "{err}");
    let many = FileEdits { edits: vec![(0..0, String::new()); super::MAX_EDIT_SET_EDITS + 1], ..one.clone() };
    let err = refused(case.apply(vec![many], false, None), ErrorKind::TooLarge);
    assert!(err.to_string().contains("MAX_EDIT_SET_EDITS"), "{err}");
    // The diff is bounded by the call's answer.
    let long = "word ".repeat(100) + "\n";
    let small = case_with(ToolkitOptions { max_call_bytes: 300, ..Default::default() }, &[("a.py", long.as_bytes())]);
    let err = refused(small.apply(vec![small.rename("a.py", "word", "w")], true, None), ErrorKind::TooLarge);
    assert!(err.to_string().contains("max_call_bytes"), "{err}");
    // No file grows past the read limit.
    let tight = case_with(ToolkitOptions { max_read_bytes: 64, ..Default::default() }, &[("a.py", b"x = 1\n")]);
    let err =
        refused(tight.apply(vec![tight.edits("a.py", &[(0..1, &"y".repeat(100))])], false, None), ErrorKind::TooLarge);
    assert!(err.to_string().contains("max_read_bytes"), "{err}");
    assert_eq!(std::fs::read(case.root().join("a.py")).unwrap(), b"x = 1\n");
}

#[test]
fn a_read_only_toolkit_previews_an_edit_set_and_refuses_to_write_it() {
    let options = ToolkitOptions { read_only: true, ..Default::default() };
    let case = case_with(options, &[("a.py", b"x = 1\n")]);
    let preview = case.apply(vec![case.edits("a.py", &[(0..1, "y")])], true, None).unwrap();
    assert!(preview.diff.contains("+y = 1"), "{}", preview.diff);
    refused(case.apply(vec![case.edits("a.py", &[(0..1, "y")])], false, None), ErrorKind::Blocked);
    assert_eq!(std::fs::read(case.root().join("a.py")).unwrap(), b"x = 1\n");
}

#[test]
fn names_a_diff_header_must_quote_come_back_whole() {
    let names = ["sp ace .py", "q\"uote.py", "tab\there.py", "\u{e9}t\u{e9}.py", "\"lead.py"];
    let files: Vec<(&str, &[u8])> = names.iter().map(|name| (*name, b"old = 1\n" as &[u8])).collect();
    let case = case(&files);
    let set: Vec<FileEdits> = names.iter().map(|name| case.rename(name, "old", "new")).collect();
    let applied = case.apply(set, false, None).unwrap();
    assert_eq!(applied.files.len(), names.len());
    for name in names {
        assert_eq!(std::fs::read(case.root().join(name)).unwrap(), b"new = 1\n", "{name:?}");
    }
}

const CHILD_ENV: &str = "EDITKIT_EDIT_SET_CRASH_CHILD";
const TRIALS_ENV: &str = "EDITKIT_EDIT_SET_CRASH_TRIALS";

/// Runs only as a child process of the test below: renames in the five files of
/// `$CHILD_ENV/root`, marking `$CHILD_ENV/started` just before the edit set is applied.
#[test]
fn child_applies_the_edit_set() {
    let Ok(dir) = std::env::var(CHILD_ENV) else { return };
    let dir = Path::new(&dir);
    let toolkit = Toolkit::open(dir.join("root"), ToolkitOptions::default()).unwrap();
    let case = Case { dir: tempfile::tempdir().unwrap(), toolkit };
    let set = renamed(&case);
    std::fs::write(dir.join("started"), b"").unwrap();
    case.toolkit.apply_edit_set(Tool::ApplyPatch, EditSet { files: set, dry_run: false, plan: None }).unwrap();
}

fn spawn_child(dir: &Path) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "edit_set::tests::child_applies_the_edit_set", "--test-threads=1", "--quiet"])
        .env(CHILD_ENV, dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

fn wait_for(path: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !path.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_micros(200));
    }
}

fn prepare(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    for (path, bytes) in five_files() {
        put(&dir.join("root"), path, &bytes);
    }
}

#[test]
fn sigkill_at_random_moments_leaves_the_five_files_all_old_or_all_new_after_recover() {
    let trials: usize = std::env::var(TRIALS_ENV).ok().and_then(|n| n.parse().ok()).unwrap_or(20);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("case");
    let old: BTreeMap<String, Vec<u8>> =
        five_files().into_iter().map(|(path, bytes)| (path.to_owned(), bytes)).collect();
    let new = renamed_by_hand();
    // An uninterrupted child: the whole new tree, and how long its edit set takes.
    prepare(&dir);
    let mut child = spawn_child(&dir);
    let started = Instant::now();
    wait_for(&dir.join("started"));
    let marked = started.elapsed();
    assert!(child.wait().unwrap().success());
    let apply_time = started.elapsed().saturating_sub(marked);
    let life = started.elapsed();
    assert_eq!(snapshot(&dir.join("root")), new);
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
    let mut rng = Rng(seed);
    let (mut old_count, mut new_count, mut rolled_back) = (0usize, 0usize, 0usize);
    for trial in 0..trials {
        prepare(&dir);
        let mut child = spawn_child(&dir);
        if trial % 2 == 0 {
            std::thread::sleep(Duration::from_micros(rng.next() % (life.as_micros() as u64 * 6 / 5 + 1)));
        } else {
            wait_for(&dir.join("started"));
            std::thread::sleep(Duration::from_micros(rng.next() % (apply_time.as_micros() as u64 * 6 / 5 + 1)));
        }
        // SIGKILL on Unix.
        let _ = child.kill();
        let _ = child.wait();
        let workspace = editkit_vfs::Workspace::open(dir.join("root"), editkit_vfs::ambient_authority()).unwrap();
        let recovery = crate::patch::recover(&workspace).unwrap();
        if !recovery.rolled_back.is_empty() {
            rolled_back += 1;
        }
        let now = snapshot(&dir.join("root"));
        if now == old {
            old_count += 1;
        } else if now == new {
            new_count += 1;
        } else {
            panic!("trial {trial} (seed {seed}): a mixed tree after {recovery:?}: {now:?}");
        }
    }
    eprintln!(
        "edit set crash test: {trials} SIGKILL trials (seed {seed}, edit set {apply_time:?}): {old_count} all old, \
         {new_count} all new, {rolled_back} rolled back by recover"
    );
    assert_eq!(old_count + new_count, trials);
}

/// An edit set that deletes the lines between a line ending in a lone CR and an empty line
/// (a random round found it): every line survives, as the spliced text has them.
#[test]
fn deleting_lines_after_a_lone_cr_keeps_the_empty_line_after_them() {
    let case = case(&[]);
    let raw = "\\ No \r☃☃ b --- a/x \n    indented \n\n\nalpha x = 1 \n";
    put(case.root(), "f.txt", raw.as_bytes());
    let original = editkit_vfs::Text::decode(raw.as_bytes()).unwrap();
    let edits: Vec<(Range<usize>, String)> = vec![
        (32..39, "été".into()),
        (22..24, "\n".into()),
        (41..43, "\r\n".into()),
        (6..22, "\n".into()),
        (49..50, "\n".into()),
    ];
    let mut sorted: Vec<(Range<usize>, &str)> = edits.iter().map(|(r, t)| (r.clone(), t.as_str())).collect();
    sorted.sort_by_key(|(r, _)| (r.start, r.end));
    let expected = original.spliced(&sorted).unwrap();
    let set = vec![FileEdits { path: "f.txt".into(), sha256: Sha256::of(raw.as_bytes()), edits }];
    case.apply(set, false, None).unwrap();
    let written = editkit_vfs::Text::decode(&std::fs::read(case.root().join("f.txt")).unwrap()).unwrap();
    assert_eq!(written.as_str(), expected.as_str());
    assert_eq!(written.as_str(), "\\ No \n\n\n    indeété\na\nha x =\n1 \n");
}
