//! The incremental syntax check (`CheckCache`) reports exactly what a fresh parse reports: on
//! every edit of the edit corpus (`fixtures/edits/`, applied and undone), and on thousands of
//! line deletions, duplications and character edits of real Python and TypeScript files,
//! which break code and leave empty blocks the way a sloppy edit does.

use std::path::Path;

use editkit_analyze::{CheckCache, FileKind, check_syntax};

fn corpus_kind(name: &str) -> Option<FileKind> {
    if name.starts_with("py-") {
        Some(FileKind::Python)
    } else if name.starts_with("ts-") {
        Some(FileKind::Typescript)
    } else {
        None
    }
}

fn same_as_full(cache: &CheckCache, key: &str, kind: FileKind, text: &str, what: &str) -> bool {
    let cached = cache.check(key, kind, text).unwrap();
    let full = check_syntax(kind, text).unwrap();
    assert_eq!(cached, full, "{what}: the incremental check differs from a full parse");
    !full.valid
}

#[test]
fn every_edit_of_the_edit_corpus_checks_as_a_full_parse_does() {
    let dir = crate::fixtures().join("edits");
    let mut cases = 0;
    let cache = CheckCache::default();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let case = entry.unwrap().path();
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let (Some(kind), Ok(after)) = (corpus_kind(&name), std::fs::read_to_string(case.join("after"))) else {
            continue;
        };
        let before = std::fs::read_to_string(case.join("before")).unwrap();
        for (step, text) in [("before", &before), ("after", &after), ("undone", &before)] {
            same_as_full(&cache, &name, kind, text, &format!("{name} {step}"));
        }
        cases += 1;
    }
    assert!(cases >= 250, "only {cases} corpus edits");
}

/// xorshift64*, seeded per run.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One sloppy edit: a line deleted or duplicated, a range of lines dropped (a body gone, an
/// empty block left), or a bracket, colon or quote inserted or removed.
pub(crate) fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    if lines.is_empty() {
        return "x".to_owned();
    }
    let at = rng.below(lines.len());
    match rng.below(5) {
        0 => {
            lines.remove(at);
            lines.concat()
        }
        1 => {
            lines.insert(at, lines[at]);
            lines.concat()
        }
        2 => {
            let end = (at + 1 + rng.below(6)).min(lines.len());
            lines.drain(at..end);
            lines.concat()
        }
        _ => {
            let mut text = lines.concat();
            let mut offset = rng.below(text.len());
            while !text.is_char_boundary(offset) {
                offset -= 1;
            }
            let tokens = ["(", ")", ":", "\"", "{", "}", "    ", "\n", ""];
            let token = tokens[rng.below(tokens.len())];
            if token.is_empty() {
                let mut end = offset + 1;
                while end < text.len() && !text.is_char_boundary(end) {
                    end += 1;
                }
                text.replace_range(offset..end.min(text.len()), "");
            } else {
                text.insert_str(offset, token);
            }
            text
        }
    }
}

fn mutations_of(path: &Path, kind: FileKind, rounds: usize, rng: &mut Rng) -> (usize, usize) {
    let original = std::fs::read_to_string(path).unwrap();
    let cache = CheckCache::default();
    let key = path.to_string_lossy();
    same_as_full(&cache, &key, kind, &original, "original");
    let (mut checks, mut broken) = (0, 0);
    let mut text = original.clone();
    for round in 0..rounds {
        // A chain of edits, now and then back to the file as it was (an undo).
        text = if round % 7 == 6 { original.clone() } else { mutate(&text, rng) };
        if same_as_full(&cache, &key, kind, &text, &format!("{} round {round}", path.display())) {
            broken += 1;
        }
        checks += 1;
    }
    (checks, broken)
}

#[test]
fn sloppy_edits_of_real_files_check_as_a_full_parse_does() {
    // Seeded per run; `EDITKIT_TEST_SEED` replays the seed a failure printed.
    let seed = match std::env::var("EDITKIT_TEST_SEED") {
        Ok(seed) => seed.parse::<u64>().expect("EDITKIT_TEST_SEED is a number") | 1,
        Err(_) => std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1,
    };
    eprintln!("incremental check: seed {seed} (EDITKIT_TEST_SEED={seed} replays this run)");
    let mut rng = Rng(seed);
    let (mut checks, mut broken, mut files) = (0, 0, 0);
    for (folder, extension, kind) in [("python", "py", FileKind::Python), ("typescript", "ts", FileKind::Typescript)] {
        let paths = crate::corpus::files(folder, &[extension]);
        for path in paths.iter().take(12) {
            let (c, b) = mutations_of(path, kind, 40, &mut rng);
            checks += c;
            broken += b;
            files += 1;
        }
    }
    eprintln!("incremental check: {checks} edits of {files} files (seed {seed}), {broken} left the file broken");
    assert!(files >= 20, "only {files} files");
    assert!(
        broken > checks / 10 && broken < checks,
        "the edits must break some files and not all: {broken} of {checks}"
    );
}

/// Found by the test above (seed 1796274595325244871): a line break inside a comment leaves
/// `r` at column 0, so tree-sitter ends the class there and takes the indented lines after it
/// as top-level statements, without an error. Text cut at such a statement does not parse
/// alone as it does in place: the next edit, which leaves a method without a body, must still
/// be reported as a full parse reports it.
#[test]
fn an_unexpected_indent_at_the_top_level_is_never_checked_by_parts() {
    let path = crate::fixtures().join("code/python/fractions.py");
    let original = std::fs::read_to_string(&path).unwrap();
    let broken_comment = original.replacen("best upper or lower\n", "best upper or lowe\nr\n", 1);
    let empty_method = broken_comment.replacen("    def __floor__(a):\n", "        def __floor__(a):\n", 1);
    assert!(broken_comment != original && empty_method != broken_comment);
    let cache = CheckCache::default();
    for (step, text) in [("original", &original), ("comment", &broken_comment), ("method", &empty_method)] {
        same_as_full(&cache, "fractions.py", FileKind::Python, text, step);
    }
    let report = cache.check("fractions.py", FileKind::Python, &empty_method).unwrap();
    assert!(!report.valid, "{report:?}");
    // Statements sharing a line (`a = 1; b = 2`) still start where they may: edits around
    // them, and one that leaves a method without a body, check as a full parse does.
    let shared = original.replacen("import numbers\n", "import numbers; import array\n", 1);
    assert!(shared != original);
    let cache = CheckCache::default();
    for (step, text) in [
        ("shared", &shared),
        ("edited", &shared.replacen("import array", "import array as a", 1)),
        ("method", &shared.replacen("    def __floor__(a):\n", "        def __floor__(a):\n", 1)),
    ] {
        same_as_full(&cache, "fractions.py", FileKind::Python, text, step);
    }
}
