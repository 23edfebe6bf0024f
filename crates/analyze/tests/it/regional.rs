//! The check of a change (`check_change`) parses only the top-level statements the change
//! touched, and says what a whole-file parse says of them: on every edit of the edit corpus
//! (applied and undone), on sloppy edits of real files, and on a 30 MB file.

use editkit_analyze::{
    ChangeReport, CheckScope, FileKind, SyntaxError, check_change, check_change_within, check_syntax,
};

use crate::incremental::{Rng, mutate};

/// The most errors a report lists; a whole parse with this many is cut, and not compared.
const MAX_ERRORS: usize = 50;

/// How a regional report compared with a whole parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Agreement {
    /// The same errors at the same places.
    Exact,
    /// The same verdict; the whole parse's error recovery reached past the checked
    /// statements (an error spanning them, errors moved outside them, or follow-on errors
    /// after the first), so the places differ.
    Verdict,
    /// The verdicts differ, and the language sides with the regional check: CPython's compiler
    /// for Python, the rule that a quoted string ends on its line for TypeScript.
    Cpython,
    /// Not compared: both texts are broken, or a parse was cut at its error limit.
    Skipped,
}

/// Checks the change from `old` to `new` regionally and wholly, and asserts they agree: the
/// verdict (introduced or not) is the same; and where the whole parse's errors stay within
/// the checked lines (outside them it finds what it found before the change), the errors are
/// the same, at the same lines.
fn agrees(kind: FileKind, old: &str, new: &str, what: &str) -> (ChangeReport, Agreement) {
    let report = check_change(kind, Some(old), new).unwrap();
    let whole_new = check_syntax(kind, new).unwrap();
    let whole_old = check_syntax(kind, old).unwrap();
    // A whole parse's error recovery can carry an error of an old text that was already
    // broken across statement boundaries: such a pair is compared only where one is clean.
    if whole_new.errors.len() >= MAX_ERRORS
        || whole_old.errors.len() >= MAX_ERRORS
        || !(whole_old.valid || whole_new.valid)
    {
        return (report, Agreement::Skipped);
    }
    let whole_introduced = whole_new.errors.len() > whole_old.errors.len();
    if report.introduced() != whole_introduced {
        // tree-sitter's grammar takes some text CPython refuses (a string left open at a line
        // end, say); the scan that finds statements does not. Where the verdicts differ,
        // CPython's compiler decides, and must side with the regional check. In TypeScript,
        // the language's rule that a quoted string ends on its line decides.
        if kind == FileKind::Typescript {
            assert!(
                report.introduced() && breaks_a_quoted_string(old, new),
                "{what}: the verdicts differ\n{report:#?}\nwhole new {whole_new:#?}"
            );
            return (report, Agreement::Cpython);
        }
        assert_eq!(kind, FileKind::Python, "{what}: the verdicts differ\n{report:#?}");
        assert_eq!(
            crate::cpython_refuses(new),
            report.introduced(),
            "{what}: the verdicts differ and CPython sides with the whole parse\n{report:#?}\nwhole new {whole_new:#?}"
        );
        return (report, Agreement::Cpython);
    }
    if report.scope == CheckScope::Whole {
        assert_eq!(report.errors, whole_new.errors, "{what}: a whole check differs");
        return (report, Agreement::Exact);
    }
    let (first, last) = report.lines;
    let inside = |error: &&SyntaxError| (first..=last).contains(&error.line);
    // Outside the checked lines (lines alone: messages can quote line numbers).
    let lines_added = new.matches('\n').count() as isize - old.matches('\n').count() as isize;
    let outside_new: Vec<usize> =
        whole_new.errors.iter().filter(|error| !inside(error)).map(|error| error.line).collect();
    let outside_old: Vec<usize> = whole_old
        .errors
        .iter()
        .filter(|error| error.line < first || error.line as isize + lines_added > last as isize)
        .map(|error| if error.line < first { error.line } else { (error.line as isize + lines_added) as usize })
        .collect();
    let spans_out = whole_new.errors.iter().any(|error| {
        (error.line < first) != (error.end_line < first) || (error.line <= last) != (error.end_line <= last)
    });
    if outside_new != outside_old || spans_out || opens(&report) {
        assert!(!report.valid() || whole_new.valid, "{what}: the whole parse finds errors, the regional one none");
        return (report, Agreement::Verdict);
    }
    // The same errors on the same lines. (With a syntax error, tree-sitter's error recovery
    // looks ahead: past the checked statements a whole parse can cut an error node a few
    // columns differently on the same line.)
    let mut expected: Vec<usize> = whole_new.errors.iter().filter(inside).map(|error| error.line).collect();
    let mut found: Vec<usize> = report.errors.iter().map(|error| error.line).collect();
    expected.dedup();
    found.dedup();
    if found == expected {
        return (report, Agreement::Exact);
    }
    // Recovery that looks ahead past the checked statements may start an error node at the
    // statement or at the token, or add a follow-on error nearby (a string broken in Python,
    // a comment broken in TypeScript, turns text into code): both find errors on the checked
    // lines, and the verdict is the same.
    assert!(!found.is_empty() && !expected.is_empty(), "{what}: {report:#?}\n{whole_new:#?}");
    (report, Agreement::Verdict)
}

/// Whether a line of `new` that `old` does not have ends inside a string in single or double
/// quotes (not continued by a backslash): ECMAScript allows no line break in such a string,
/// though tree-sitter's TypeScript grammar takes one. Lines with a template literal or a block
/// comment are not judged.
fn breaks_a_quoted_string(old: &str, new: &str) -> bool {
    let before: std::collections::HashSet<&str> = old.lines().collect();
    new.lines().filter(|line| !before.contains(line)).any(|line| {
        let mut quote = None;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match (quote, c) {
                (_, '`') => return false,
                (None, '/') if chars.peek() == Some(&'*') => return false,
                (None, '/') if chars.peek() == Some(&'/') => return false,
                (None, '\'' | '"') => quote = Some(c),
                (Some(_), '\\') => {
                    chars.next();
                }
                (Some(open), c) if c == open => quote = None,
                _ => {}
            }
        }
        quote.is_some() && !line.ends_with('\\')
    })
}

/// Whether the report names a bracket or string the change left open: the whole parse then
/// fails somewhere after the checked lines, as the rest of the file lexes differently.
fn opens(report: &ChangeReport) -> bool {
    report.errors.iter().any(|error| {
        ["was never closed", "is still open after", "unterminated string"].iter().any(|m| error.message.contains(m))
    })
}

#[test]
fn every_edit_of_the_edit_corpus_checks_as_a_whole_parse_does() {
    let dir = crate::fixtures().join("edits");
    let (mut cases, mut regional) = (0, 0);
    for entry in std::fs::read_dir(&dir).unwrap() {
        let case = entry.unwrap().path();
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let kind = if name.starts_with("py-") {
            FileKind::Python
        } else if name.starts_with("ts-") {
            FileKind::Typescript
        } else {
            continue;
        };
        let Ok(after) = std::fs::read_to_string(case.join("after")) else { continue };
        let before = std::fs::read_to_string(case.join("before")).unwrap();
        for (old, new, step) in [(&before, &after, "applied"), (&after, &before, "undone")] {
            if old == new {
                continue;
            }
            let (report, agreement) = agrees(kind, old, new, &format!("{name} {step}"));
            assert_ne!(agreement, Agreement::Verdict, "{name} {step}: {report:#?}");
            if report.scope == CheckScope::Statements {
                regional += 1;
            }
        }
        cases += 1;
    }
    assert!(cases >= 250, "only {cases} corpus edits");
    assert!(regional >= 250, "only {regional} edits were checked by statements");
}

#[test]
fn sloppy_edits_of_real_python_check_as_a_whole_parse_does() {
    // Seeded per run; `EDITKIT_TEST_SEED` replays the seed a failure printed.
    let seed = match std::env::var("EDITKIT_TEST_SEED") {
        Ok(seed) => seed.parse::<u64>().expect("EDITKIT_TEST_SEED is a number") | 1,
        Err(_) => std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1,
    };
    eprintln!("regional check: seed {seed} (EDITKIT_TEST_SEED={seed} replays this run)");
    sloppy_edits(FileKind::Python, "python", "py", seed);
}

#[test]
fn sloppy_edits_of_real_typescript_check_as_a_whole_parse_does() {
    let seed = match std::env::var("EDITKIT_TEST_SEED") {
        Ok(seed) => seed.parse::<u64>().expect("EDITKIT_TEST_SEED is a number") | 1,
        Err(_) => std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1,
    };
    eprintln!("regional check: seed {seed} (EDITKIT_TEST_SEED={seed} replays this run)");
    sloppy_edits(FileKind::Typescript, "typescript", "ts", seed);
}

/// Sloppy edits of the real files of `fixtures/code/<folder>` (and their undo), each checked
/// regionally and wholly.
fn sloppy_edits(kind: FileKind, folder: &str, extension: &str, seed: u64) {
    let mut rng = Rng(seed);
    let (mut checks, mut introduced, mut regional, mut exact, mut verdict, mut cpython) = (0, 0, 0, 0, 0, 0);
    let (mut several, mut apart) = (0, 0);
    for path in crate::corpus::files(folder, &[extension]) {
        let original = std::fs::read_to_string(&path).unwrap();
        for round in 0..45 {
            // A sloppy edit of the file, and its undo; from round 30 on, two or three sloppy
            // edits at once, as a patch makes them.
            let places = if round < 30 { 1 } else { 2 + rng.below(2) };
            let mut edited = original.clone();
            for _ in 0..places {
                edited = mutate(&edited, &mut rng);
            }
            if edited == original {
                continue;
            }
            for (old, new, step) in [(&original, &edited, "edit"), (&edited, &original, "undo")] {
                let what = format!("{} round {round} {step} (seed {seed})", path.display());
                let (report, agreement) = agrees(kind, old, new, &what);
                exact += usize::from(agreement == Agreement::Exact);
                verdict += usize::from(agreement == Agreement::Verdict);
                cpython += usize::from(agreement == Agreement::Cpython);
                introduced += usize::from(report.introduced());
                regional += usize::from(report.scope == CheckScope::Statements);
                apart += usize::from(report.places.len() > 1);
                several += usize::from(places > 1);
                checks += 1;
            }
        }
    }
    eprintln!(
        "regional check: {checks} edits, {introduced} introduced errors, {regional} checked by statements; \
         {exact} with errors on the same lines as a whole parse, {verdict} with the same verdict only, \
         {cpython} where CPython sides with the regional check against tree-sitter; \
         {apart} of {several} changes in several places checked place by place"
    );
    // A place left open (a bracket, a string) or next to another is checked with the others.
    assert!(apart * 5 > several, "changes in several places are checked place by place: {apart} of {several}");
    assert!(exact * 10 >= checks * 8, "the errors are a whole parse's in most edits: {exact} of {checks}");
    assert!(
        introduced > checks / 10 && introduced < checks,
        "the edits must break some files: {introduced} of {checks}"
    );
    assert!(regional > checks / 2, "most edits are checked by statements: {regional} of {checks}");
}

/// Real Python of at least `size` bytes: the corpus's files, repeated (`from __future__`
/// lines dropped, since they are valid only at the top).
fn big_python(size: usize) -> String {
    let mut text = String::with_capacity(size + 100_000);
    let files = crate::corpus::files("python", &["py"]);
    while text.len() < size {
        for path in &files {
            let source = std::fs::read_to_string(path).unwrap();
            for line in source.split_inclusive('\n').filter(|line| !line.starts_with("from __future__")) {
                text.push_str(line);
            }
            if !text.ends_with('\n') {
                text.push('\n');
            }
        }
    }
    text
}

#[test]
fn an_error_in_a_30_mb_file_is_found_at_its_line_by_parsing_a_few_statements() {
    let old = big_python(30 << 20);
    assert!(check_syntax(FileKind::Python, &old).is_err(), "a whole parse of 30 MB is past the parse limits");
    // Near the middle: a call left unclosed, and an assignment with a stray `=`.
    let at = old[old.len() / 2..].find("\ndef ").unwrap() + old.len() / 2 + 1;
    let line = old[..at].matches('\n').count() + 1;
    let header_end = at + old[at..].find("):").unwrap();
    let unclosed = format!("{}{}", &old[..header_end], &old[header_end + 1..]);
    let report = check_change(FileKind::Python, Some(&old), &unclosed).unwrap();
    assert_eq!(report.scope, CheckScope::Statements);
    assert!(report.introduced(), "{report:#?}");
    let named =
        report.errors.iter().find(|error| error.message == "`(` was never closed").expect("the opening is named");
    assert_eq!(named.line, line, "{report:#?}");
    assert!(report.lines.1 - report.lines.0 < 500, "a few statements were parsed: {:?}", report.lines);

    let stray = format!("{}x = = 1\n{}", &old[..at], &old[at..]);
    let report = check_change(FileKind::Python, Some(&old), &stray).unwrap();
    assert!(report.introduced(), "{report:#?}");
    assert_eq!(report.errors[0].line, line, "{report:#?}");
    // Two places far apart: each is checked on its own statements, at its lines.
    let early = old[old.len() / 4..].find("\ndef ").unwrap() + old.len() / 4 + 1;
    let early_line = old[..early].matches('\n').count() + 1;
    let two = format!("{}y = = 2\n{}x = = 1\n{}", &old[..early], &old[early..at], &old[at..]);
    let report = check_change(FileKind::Python, Some(&old), &two).unwrap();
    assert!(report.introduced(), "{report:#?}");
    assert_eq!(report.places.len(), 2, "{report:#?}");
    let lines: Vec<usize> = report.errors.iter().map(|error| error.line).collect();
    assert_eq!(lines, [early_line, line + 1], "{report:#?}");
    assert!(report.places.iter().all(|(first, last)| last - first < 500), "{:?}", report.places);
    // A clean change is clean, and undoing it too.
    let clean = format!("{}x = 1\n{}", &old[..at], &old[at..]);
    for (from, to) in [(&old, &clean), (&clean, &old)] {
        let report = check_change(FileKind::Python, Some(from), to).unwrap();
        assert!(report.valid() && report.scope == CheckScope::Statements, "{report:#?}");
    }
}

/// Undoing a sloppy edit that left a docstring's opening quotes out: the old text's strings
/// are flipped from there to its end, so its statement boundaries past the change are not the
/// new text's. The new text closes everything it opens: the check runs to its end, clean.
#[test]
fn a_change_that_closes_what_the_old_text_left_open_is_checked_to_the_end() {
    let new = std::fs::read_to_string(crate::fixtures().join("code/python/json_decoder.py")).unwrap();
    let opener = "        \"\"\"``object_hook``, if specified, will be called with the result\n        of every JSON object decoded and its return value will be used in\n";
    assert!(new.contains(opener));
    let old =
        new.replacen(opener, "", 1).replacen("``object_pairs_hook`` takes\n", "``object_pairs_hook`` ta\nkes\n", 1);
    assert!(crate::cpython_refuses(&old) && !crate::cpython_refuses(&new));
    let (report, agreement) = agrees(FileKind::Python, &old, &new, "docstring opener restored");
    assert!(report.valid() && !report.introduced(), "{report:#?}");
    assert_eq!(agreement, Agreement::Exact);
}

/// A long class is one top-level statement: an edit inside one of its methods is checked on
/// the statements of that method's block, parsed after the lines opening the class and the
/// method, not on the whole class; an error introduced there is still found at its line.
#[test]
fn an_edit_inside_a_method_of_a_long_class_checks_that_block() {
    let mut old = String::from("import os\n\n\nclass Big:\n    \"\"\"A long class.\"\"\"\n\n");
    for i in 0..300 {
        old.push_str(&format!(
            "    def method_{i}(self, value):\n        total = value + {i}\n        if total > 10:\n            total -= 1\n        return total + {i}\n\n"
        ));
    }
    old.push_str("\nprint(Big().method_1(os.sep))\n");
    let line = old.lines().position(|line| line == "        return total + 150").unwrap() + 1;

    let new = old.replace("        return total + 150\n", "        return total - 150\n");
    let (report, agreement) = agrees(FileKind::Python, &old, &new, "an edit inside a method");
    assert!(report.valid() && report.scope == CheckScope::Statements, "{report:#?}");
    assert_eq!(agreement, Agreement::Exact);
    let (first, last) = report.lines;
    assert!(first <= line && line <= last && last - first < 10, "checked lines {first}..={last}, the edit at {line}");

    // The first statement of the method's block, its indentation kept: still that block, from
    // that statement (not the `def` line).
    let first_line = line - 3;
    let new = old.replace("        total = value + 150\n", "        total = value + 151\n");
    let (report, agreement) = agrees(FileKind::Python, &old, &new, "an edit of a block's first statement");
    assert!(report.valid() && agreement == Agreement::Exact, "{report:#?}");
    let (first, last) = report.lines;
    assert!(first == first_line && last - first < 10, "checked lines {first}..={last}, the edit at {first_line}");

    let broken = old.replace("        return total + 150\n", "        return (total + 150\n");
    let (report, _) = agrees(FileKind::Python, &old, &broken, "an error inside a method");
    assert!(report.introduced(), "{report:#?}");
    assert!(
        report.errors.iter().any(|error| error.line == line && error.message.contains("never closed")),
        "{report:#?}"
    );
}

/// A sloppy edit in three places of one long class (sloppy-edit seed 1796465546401810677): a
/// method header written twice, and two lines left out further down. The first place is an
/// insertion, so the old text's part of the class there is empty, and parsed alone after the
/// class's opening line it does not parse. Errors before the change are counted on the whole
/// top-level statement: the header without a body is reported as a new error, at its line.
#[test]
fn a_method_header_written_twice_in_a_long_class_is_reported() {
    let old = std::fs::read_to_string(crate::fixtures().join("code/python/asyncio_locks.py")).unwrap();
    let header = "    def release(self):\n        \"\"\"Release a semaphore";
    let line = old[..old.find(header).unwrap()].lines().count() + 1;
    let left_out = [
        "            if self._state in (_BarrierState.RESETTING, _BarrierState.DRAINING):\n",
        "    async def reset(self):\n",
    ];
    let mut new = old.replacen(header, &format!("    def release(self):\n{header}"), 1);
    for gone in left_out {
        assert_eq!(new.matches(gone).count(), 1, "{gone:?}");
        new = new.replacen(gone, "", 1);
    }
    let (report, _) = agrees(FileKind::Python, &old, &new, "a method header written twice");
    assert!(report.introduced() && report.scope == CheckScope::Statements, "{report:#?}");
    assert!(
        report.errors.iter().any(|error| error.line == line && error.message.contains("indented block")),
        "an error at {line}: {report:#?}"
    );
}

/// A patch as a reviewer's pass makes it: a comment added to every tenth line or so, with a
/// sloppy edit among them in some rounds.
fn commented(text: &str, rng: &mut Rng, sloppy: bool) -> String {
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_owned).collect();
    let step = (lines.len() / 10).max(8);
    let mut at = rng.below(step);
    while at < lines.len() {
        let line = &lines[at];
        if !line.trim().is_empty() && line.ends_with('\n') {
            let comment = if rng.below(3) == 0 { " #" } else { "  # patched" };
            lines[at] = format!("{}{comment}\n", line.trim_end_matches('\n'));
        }
        at += step;
    }
    let text = lines.concat();
    if sloppy { mutate(&text, rng) } else { text }
}

#[test]
fn comments_added_in_many_places_check_as_a_whole_parse_does() {
    // Places that change only comments, blanks or the text of a string are proved not to
    // change a token and are not parsed; the verdict and the errors stay a whole parse's,
    // with a real (sloppy) edit among them or not.
    let mut rng = Rng(0x5eed_cafe_f00d_0001);
    let (mut checks, mut clean, mut introduced, mut unparsed) = (0, 0, 0, 0);
    for path in crate::corpus::files("python", &["py"]) {
        let original = std::fs::read_to_string(&path).unwrap();
        for round in 0..8 {
            let edited = commented(&original, &mut rng, round >= 4);
            for (old, new, step) in [(&original, &edited, "edit"), (&edited, &original, "undo")] {
                let what = format!("{} round {round} {step}", path.display());
                let (report, agreement) = agrees(FileKind::Python, old, new, &what);
                // A sloppy edit's errors may be placed as the sloppy edits test allows.
                assert!(round >= 4 || agreement == Agreement::Exact, "{what}: {agreement:?} {report:#?}");
                clean += usize::from(round < 4 && report.valid());
                // Every place proved neutral: nothing was parsed.
                unparsed += usize::from(round < 4 && report.places.is_empty());
                introduced += usize::from(report.introduced());
                checks += 1;
            }
        }
    }
    assert!(clean * 10 >= checks * 4, "the comment-only patches check clean: {clean} of {checks}");
    assert!(introduced * 20 > checks, "some sloppy edits break the files: {introduced} of {checks}");
    assert!(unparsed * 10 >= clean * 8, "most comment-only patches parse nothing: {unparsed} of {clean}");
}

/// Statements an agent inserts into a block, at the indentation of the line they go before:
/// most are whole statements, some only stand after another (`else:`, `case`), open something
/// they never close, or are judged by the compiler where the block's other statements are
/// missing (`nonlocal`, `await`, `yield`).
const INSERTED: &[&str] = &[
    "_patched = None",
    "_patched = None",
    "log.debug('patched %s', value)",
    "x: int = 1",
    "@decorator",
    "'''a docstring'''",
    "(yield 1)",
    "await job()",
    "nonlocal counter",
    "global counter",
    "return",
    "else:",
    "elif ready:",
    "except ValueError:",
    "finally:",
    "case 1:",
    "pass  # no tokens change after this",
    "_patched = (",
    "print('unclosed",
    "    _patched = None",
    "@decorator\ndef helper():\n    return None",
];

/// `text` with statements from [`INSERTED`] put before some indented lines (a few right
/// after one another, so that their checks meet), each at that line's indentation.
fn inserted(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_owned).collect();
    let step = (lines.len() / 8).max(6);
    let mut at = rng.below(step);
    while at < lines.len() {
        let line = lines[at].clone();
        let indent = &line[..line.len() - line.trim_start().len()];
        if !indent.is_empty() && !line.trim().is_empty() {
            let statement = INSERTED[rng.below(INSERTED.len())];
            let block: String = statement.lines().map(|part| format!("{indent}{part}\n")).collect();
            lines[at] = format!("{block}{line}");
        }
        // Now and then the next line too: places a line apart are checked as one.
        at += if rng.below(4) == 0 { 1 } else { step };
    }
    lines.concat()
}

/// `check(rng, old, new, what)` for each edit of `rounds` rounds of insertions into each file
/// of the Python corpus, and for its undo.
fn each_inserted(rng: &mut Rng, rounds: usize, mut check: impl FnMut(&mut Rng, &str, &str, &str)) {
    for path in crate::corpus::files("python", &["py"]) {
        let original = std::fs::read_to_string(&path).unwrap();
        for round in 0..rounds {
            let edited = inserted(&original, rng);
            for (old, new, step) in [(&original, &edited, "edit"), (&edited, &original, "undo")] {
                check(rng, old, new, &format!("{} round {round} {step}", path.display()));
            }
        }
    }
}

#[test]
fn statements_inserted_into_blocks_check_as_a_whole_parse_does() {
    // A statement inserted before another of its block is checked from where it starts, not
    // from the statement before it; statements that only stand after another, or that the
    // compiler judges on the whole block, are checked as before.
    let (mut checks, mut clean, mut introduced, mut by_statements) = (0, 0, 0, 0);
    each_inserted(&mut Rng(0x5eed_cafe_f00d_0002), 6, |_, old, new, what| {
        let (report, _) = agrees(FileKind::Python, old, new, what);
        clean += usize::from(report.valid());
        introduced += usize::from(report.introduced());
        by_statements += usize::from(report.scope == CheckScope::Statements);
        checks += 1;
    });
    assert!(introduced * 4 > checks, "many insertions break the files: {introduced} of {checks}");
    assert!(clean * 4 > checks, "the undos check clean: {clean} of {checks}");
    assert!(by_statements * 3 > checks * 2, "most checks parse statements only: {by_statements} of {checks}");
}

/// The line windows of the change from `old` to `new` (a line diff's changed runs, each with
/// `context` lines around it, those that meet made one), as a patch's hunks give them.
fn windows(old: &str, new: &str, context: usize) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let diff = similar::TextDiff::from_lines(old, new);
    let (old_count, new_count) = (old.split_inclusive('\n').count(), new.split_inclusive('\n').count());
    let mut found: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> = Vec::new();
    for op in diff.ops().iter().filter(|op| op.tag() != similar::DiffTag::Equal) {
        let (old_range, new_range) = (op.old_range(), op.new_range());
        let before = context.min(old_range.start).min(new_range.start);
        let after = context.min(old_count - old_range.end).min(new_count - new_range.end);
        let window = (old_range.start - before..old_range.end + after, new_range.start - before..new_range.end + after);
        match found.last_mut() {
            Some((old_last, new_last)) if old_last.end >= window.0.start => {
                old_last.end = old_last.end.max(window.0.end);
                new_last.end = new_last.end.max(window.1.end);
            }
            _ => found.push(window),
        }
    }
    found
}

#[test]
fn a_change_checked_within_its_hunks_windows_checks_as_when_diffed() {
    // The windows a patch gives (each change with its context lines) spare the diff of the
    // whole texts; the check says what it says when the texts are diffed. Windows that do
    // not hold (one left out, or out of order) are set aside: the report is the diffed one.
    let (mut checks, mut introduced, mut set_aside, mut several) = (0, 0, 0, 0);
    each_inserted(&mut Rng(0x5eed_cafe_f00d_0003), 3, |rng, old, new, what| {
        let diffed = check_change(FileKind::Python, Some(old), new).unwrap();
        let held = windows(old, new, rng.below(4));
        several += usize::from(held.len() > 1);
        let within = check_change_within(FileKind::Python, Some(old), new, &held).unwrap();
        assert_eq!(within.introduced(), diffed.introduced(), "{what}\n{within:#?}\n{diffed:#?}");
        assert_eq!(within.errors, diffed.errors, "{what}");
        assert_eq!(within.errors_before, diffed.errors_before, "{what}");
        introduced += usize::from(diffed.introduced());
        checks += 1;
        // One window left out: a line outside the others differs.
        let mut missing = held.clone();
        if missing.is_empty() {
            return;
        }
        missing.remove(rng.below(missing.len()));
        let report = check_change_within(FileKind::Python, Some(old), new, &missing).unwrap();
        assert_eq!(report, diffed, "{what}: a window left out");
        set_aside += 1;
        // Out of order.
        if held.len() > 1 {
            let mut reversed = held.clone();
            reversed.reverse();
            let report = check_change_within(FileKind::Python, Some(old), new, &reversed).unwrap();
            assert_eq!(report, diffed, "{what}: windows out of order");
            set_aside += 1;
        }
    });
    assert!(introduced * 4 > checks, "many insertions break the files: {introduced} of {checks}");
    assert!(set_aside > 100, "{set_aside} windows set aside");
    assert!(several * 10 > checks * 9, "most edits are in several windows: {several} of {checks}");
}

#[test]
fn a_statement_inserted_after_a_long_one_is_checked_from_where_it_starts() {
    let body: String = (0..40).map(|n| format!("        total += {n}\n")).collect();
    let old = format!("import os\n\n\ndef f(items):\n    total = 0\n    for item in items:\n{body}    return total\n");
    let new = old.replace("    return total\n", "    _patched = None\n    return total\n");
    let report = check_change(FileKind::Python, Some(&old), &new).unwrap();
    assert!(report.valid(), "{report:#?}");
    // Line 47 is the inserted one: the loop before it is not parsed, nor the return after it,
    // which lexes and parses as it did.
    assert_eq!(report.places, [(47, 47)], "{report:#?}");
    // A clause cannot start the check: it only stands after the statement before it.
    let clause = old.replace("    return total\n", "    else:\n        pass\n    return total\n");
    let report = check_change(FileKind::Python, Some(&old), &clause).unwrap();
    assert!(report.valid(), "a `for` takes an `else`: {report:#?}");
    let stray = old.replace("    total = 0\n", "    total = 0\n    else:\n        pass\n");
    assert!(check_change(FileKind::Python, Some(&old), &stray).unwrap().introduced());
    // Nor can a statement between a decorator and what it decorates.
    let methods: String = (0..30).map(|n| format!("    def m{n}(self):\n        return {n}\n\n")).collect();
    let class = format!("class C:\n{methods}    @property\n    def x(self):\n        return 1\n");
    let between = class.replace("    def x(self)", "    _patched = None\n    def x(self)");
    let report = check_change(FileKind::Python, Some(&class), &between).unwrap();
    assert!(report.introduced(), "{report:#?}");
}

#[test]
fn a_statement_inserted_first_in_a_block_is_checked_in_that_block() {
    // Long methods before the one changed: the check must not reach back into them.
    let loops: String = (0..20).map(|n| format!("        for i in range({n}):\n            total += i\n")).collect();
    let methods: String =
        (0..5).map(|n| format!("    def m{n}(self):\n        total = 0\n{loops}        return total\n\n")).collect();
    let old = format!("class C:\n{methods}    def f(self, x):\n        with x:\n            return x\n");
    let line = |text: &str, wanted: &str| text.lines().position(|line| line == wanted).unwrap() + 1;
    for (before, inserted) in [
        ("        with x:\n", "        _patched = None\n"),
        ("            return x\n", "            _patched = None\n"),
    ] {
        let new = old.replace(before, &format!("{inserted}{before}"));
        let what = format!("{inserted:?} before {before:?}");
        let (report, _) = agrees(FileKind::Python, &old, &new, &what);
        assert!(report.valid(), "{what}: {report:#?}");
        // The inserted line alone: not the method before, nor the statement after, which
        // lexes and parses as it did.
        let first = line(&new, inserted.trim_end_matches('\n'));
        assert_eq!(report.places, [(first, first)], "{what}: {report:#?}");
    }
    // What the lines before or after decide is still checked with them: a clause joins the
    // statement before, a line left of the block's leaves the `def` empty, an open bracket
    // or a backslash runs on into the statements after, and a block opened last takes the
    // line after as its body.
    for (inserted, breaks) in [
        ("        else:\n            pass\n", true),
        ("    _patched = None\n", true),
        ("        _patched = (\n", true),
        ("        _patched = 1 + \\\n", true),
        ("        if x:\n", true),
        ("        if x:  # a comment\n", true),
        ("        # a comment\n", false),
        ("        \"\"\"A docstring.\"\"\"\n", false),
        ("        _patched = None  # a comment:\n", false),
        ("        _a = 1\n        _b = 2\n", false),
        ("        if x:\n            _a = 1\n", false),
    ] {
        let new = old.replace("        with x:\n", &format!("{inserted}        with x:\n"));
        let what = format!("{inserted:?}");
        let (report, _) = agrees(FileKind::Python, &old, &new, &what);
        assert_eq!(report.introduced(), breaks, "{what}: {report:#?}");
    }
}

#[test]
fn a_place_left_open_after_a_clean_one_in_the_same_class_is_reported() {
    // The first place's region ends where both texts settle; what the second leaves open is
    // found by the scan of its own region.
    let methods: String =
        (0..30).map(|n| format!("    def m{n}(self):\n        x = {n}\n        return x\n\n")).collect();
    let old = format!("class C:\n{methods}");
    for (second, breaks) in [
        ("        y = (\n", true),
        ("        y = 'open\n", true),
        ("        y = \"\"\"open\n", true),
        ("        y = )\n", true),
        ("        y = 1\n", false),
    ] {
        let new = old
            .replace("        x = 3\n", "        x = 3\n        _patched = None\n")
            .replace("        x = 25\n", &format!("        x = 25\n{second}"));
        let what = format!("second place {second:?}");
        let (report, _) = agrees(FileKind::Python, &old, &new, &what);
        assert_eq!(report.introduced(), breaks, "{what}: {report:#?}");
    }
}

#[test]
fn a_change_whose_block_holds_the_place_before_it_is_checked_with_it() {
    // The second place adds a line to the `if` block from below: it is checked on the whole
    // `if` statement, which holds the first place, checked on its own before.
    let methods: String = (0..30).map(|n| format!("    def m{n}(self):\n        return {n}\n\n")).collect();
    let tail = "    def f(self, x):\n        if x:\n            a = 1\n            b = 2\n            d = 4\n            e = 5\n        return 2\n";
    let old = format!("class C:\n{methods}{tail}");
    let line = |text: &str, wanted: &str| {
        text.lines().collect::<Vec<_>>().iter().rposition(|line| *line == wanted).unwrap() + 1
    };
    for (second, breaks) in [("            c = 3\n", false), ("            c = (\n", true), ("        c = )\n", true)] {
        let new = old
            .replace("            a = 1\n", "            a = 1\n            _patched = None\n")
            .replace("            e = 5\n", &format!("            e = 5\n{second}"));
        let what = format!("second place {second:?}");
        let (report, _) = agrees(FileKind::Python, &old, &new, &what);
        assert_eq!(report.introduced(), breaks, "{what}: {report:#?}");
        assert_eq!(check_syntax(FileKind::Python, &new).unwrap().valid, !breaks, "{what}");
        if !breaks {
            // One part, from the `if` to the end of the method: not the whole class.
            assert_eq!(
                report.places,
                [(line(&new, "        if x:"), line(&new, "        return 2"))],
                "{what}: {report:#?}"
            );
        }
    }
}

#[test]
fn a_form_feed_in_an_indentation_is_checked_whole() {
    // CPython and tree-sitter count a line's indentation from the last form feed before its
    // code: eight spaces, a form feed and four spaces indent by four, which leaves the `if`
    // block, and the `else` after it stands alone. A function of about 200 bytes, and one
    // past 512.
    let first = "    v0 = compute_value(0, option=True)\n    v1 = compute_value(1, option=True)\n";
    for more in [1, 20] {
        let body: String = (2..2 + more).map(|n| format!("    v{n} = compute_value({n}, option=True)\n")).collect();
        let old = format!(
            "def f(x):\n{first}{body}    if c:\n        a = 1\n        a = 3\n    else:\n        a = 2\n    return a\n"
        );
        for new in [
            old.replace("        a = 3\n", "        \x0c    y = 2\n        a = 3\n"),
            old.replace("        a = 3\n", "        \x0c    a = 3\n"),
        ] {
            let what = format!("{} bytes: {new:?}", old.len());
            let (report, _) = agrees(FileKind::Python, &old, &new, &what);
            assert!(report.introduced(), "{what}: {report:#?}");
        }
    }
}
