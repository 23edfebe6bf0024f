//! Properties of `snippet::merge` over generated files and snippets.

use editkit_matcher::snippet::{AlignedBy, Comment, Definition, Outline, SnippetOptions, merge};
use proptest::prelude::*;

/// Lines from a small alphabet, so repeats (twins) are common, some indented, some blank.
fn file() -> impl Strategy<Value = Vec<String>> {
    let line = prop::string::string_regex("( ){0,4}(def |return |x = |y = |}|)[abcd]{0,2}").unwrap();
    prop::collection::vec(line, 1..30)
}

#[derive(Debug, Clone)]
enum Change {
    Keep,
    Insert,
    Replace,
    Omit,
    Dedent,
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        6 => Just(Change::Keep),
        1 => Just(Change::Insert),
        1 => Just(Change::Replace),
        1 => Just(Change::Omit),
        1 => Just(Change::Dedent),
    ]
}

/// A snippet made of windows of the file, each line kept, changed, dropped or preceded by a new
/// one, with markers between the windows (and maybe at the ends).
fn snippet(lines: &[String], cuts: &[usize], changes: &[Change], ends: (bool, bool)) -> String {
    let mut bounds: Vec<usize> = cuts.iter().map(|cut| cut % (lines.len() + 1)).collect();
    bounds.sort_unstable();
    let mut out = Vec::new();
    if ends.0 {
        out.push("# ... existing code ...".to_owned());
    }
    let mut changes = changes.iter().cycle();
    let mut new = 0;
    for (window, pair) in bounds.chunks(2).enumerate() {
        let [start, end] = [pair[0], *pair.get(1).unwrap_or(&lines.len())];
        if window > 0 {
            out.push("# ...".to_owned());
        }
        for line in &lines[start..end] {
            new += 1;
            match changes.next().unwrap_or(&Change::Keep) {
                Change::Keep => out.push(line.clone()),
                Change::Insert => {
                    out.push(format!("new_{new} = {new}"));
                    out.push(line.clone());
                }
                Change::Replace => out.push(format!("{line} # changed {new}")),
                Change::Omit => {}
                Change::Dedent => out.push(line.trim_start().to_owned()),
            }
        }
    }
    if ends.1 {
        out.push("# … rest …".to_owned());
    }
    out.join("\n") + "\n"
}

/// The property below, on one generated case: whether the merge was accepted.
fn outside_lines_kept(
    lines: &[String],
    cuts: &[usize],
    changes: &[Change],
    ends: (bool, bool),
    allow: bool,
    outline: Option<Outline>,
) -> Result<bool, TestCaseError> {
    let text = lines.join("\n") + "\n";
    let snippet = snippet(lines, cuts, changes, ends);
    let options = SnippetOptions {
        comments: vec![Comment::Hash],
        allow_deletions: allow,
        outline: outline.clone(),
        ..Default::default()
    };
    let Ok(merged) = merge(&text, &snippet, &options) else { return Ok(false) };
    // A chunk aligned by the syntax tree lies within a file definition of its name path.
    for chunk in merged.chunks() {
        if chunk.alignment == AlignedBy::Syntax {
            let outline = outline.as_ref().expect("syntax alignment needs an outline");
            let name = chunk.definition.as_deref().expect("a syntax-aligned chunk names its definition");
            let within = |def: &&Definition| def.lines[0] <= chunk.lines[0] && chunk.lines[1] <= def.lines[1];
            let defs: Vec<&Definition> = outline.file.iter().filter(|def| def.path == name).collect();
            prop_assert!(defs.iter().any(within), "{:?} outside every {name}: {defs:?}", chunk.lines);
        }
    }
    let result: Vec<&str> = merged.text().strip_suffix('\n').unwrap_or(merged.text()).split('\n').collect();
    let spans: Vec<[usize; 2]> = merged.chunks().iter().map(|chunk| chunk.lines).collect();
    for pair in spans.windows(2) {
        prop_assert!(pair[0][1] < pair[1][0], "spans overlap or go back: {spans:?}");
    }
    // The segments outside the spans, as 0-based line ranges.
    let mut segments = Vec::new();
    let mut at = 0;
    for [first, last] in &spans {
        segments.push(at..first - 1);
        at = *last;
    }
    segments.push(at..lines.len());
    let (head, tail) = (&segments[0], &segments[segments.len() - 1]);
    prop_assert!(result.len() >= head.len() + tail.len());
    for (offset, idx) in head.clone().enumerate() {
        prop_assert_eq!(result[offset], lines[idx].as_str());
    }
    for (offset, idx) in tail.clone().rev().enumerate() {
        prop_assert_eq!(result[result.len() - 1 - offset], lines[idx].as_str());
    }
    let mut from = 0;
    for segment in &segments {
        let wanted: Vec<&str> = lines[segment.clone()].iter().map(String::as_str).collect();
        if wanted.is_empty() {
            continue;
        }
        let found =
            (from..=result.len().saturating_sub(wanted.len())).find(|&at| result[at..at + wanted.len()] == wanted[..]);
        prop_assert!(found.is_some(), "segment {segment:?} {wanted:?} not kept in order in {result:?}");
        from = found.unwrap_or(0) + wanted.len();
    }
    // Without deletions allowed, no line of code is lost.
    if !allow {
        let code = |lines: &mut dyn Iterator<Item = &str>| lines.filter(|line| !line.trim().is_empty()).count();
        prop_assert!(code(&mut result.iter().copied()) >= code(&mut lines.iter().map(String::as_str)));
    }
    Ok(true)
}

/// Every file line outside the chunks' spans is in the result unchanged and in order: the
/// lines before the first span start it, the lines after the last end it, the lines between
/// two spans stand together between them; without deletions allowed no line of code is lost.
/// A good share of the generated snippets must be accepted, or the property says little.
#[test]
fn lines_outside_the_spans_are_kept() {
    let mut runner =
        proptest::test_runner::TestRunner::new(ProptestConfig { cases: 2048, ..ProptestConfig::default() });
    let accepted = std::cell::Cell::new(0usize);
    let strategy = (
        file(),
        prop::collection::vec(any::<usize>(), 1..6),
        prop::collection::vec(change(), 1..12),
        any::<(bool, bool)>(),
        any::<bool>(),
    );
    runner
        .run(&strategy, |(lines, cuts, changes, ends, allow)| {
            if outside_lines_kept(&lines, &cuts, &changes, ends, allow, None)? {
                accepted.set(accepted.get() + 1);
            }
            Ok(())
        })
        .unwrap();
    eprintln!("accepted {}", accepted.get());
    assert!(accepted.get() >= 200, "only {} of 2048 generated snippets were accepted", accepted.get());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// A snippet that is a window of the file, unchanged, changes nothing; one with a new line
    /// between two unique lines lands there.
    #[test]
    fn a_new_line_between_unique_neighbours_lands_between_them(n in 3usize..40, at in any::<prop::sample::Index>()) {
        let lines: Vec<String> = (0..n).map(|i| format!("line_{i} = {i}")).collect();
        let text = lines.join("\n") + "\n";
        let at = at.index(n - 1);
        let snippet = format!("# ...\n{}\nadded = 1\n{}\n# ...\n", lines[at], lines[at + 1]);
        let merged = merge(&text, &snippet, &SnippetOptions::default()).unwrap();
        let mut expected = lines.clone();
        expected.insert(at + 1, "added = 1".to_owned());
        prop_assert_eq!(merged.text(), expected.join("\n") + "\n");
        let unchanged = format!("{}\n{}\n", lines[at], lines[at + 1]);
        prop_assert!(merge(&text, &unchanged, &SnippetOptions::default()).is_err());
    }
}

/// Random definitions over `len` lines, named from a small set so name paths repeat.
fn definitions(len: usize) -> impl Strategy<Value = Vec<Definition>> {
    let names = prop::sample::select(vec!["a", "b", "a.c", "b.c"]);
    prop::collection::vec((names, any::<usize>(), any::<usize>()), 0..5).prop_map(move |defs| {
        defs.into_iter()
            .map(|(name, x, y)| {
                let (x, y) = (x % len.max(1) + 1, y % len.max(1) + 1);
                Definition { path: name.to_owned(), lines: [x.min(y), x.max(y)] }
            })
            .collect()
    })
}

/// The same property with definitions (any, even overlapping ones): lines outside the spans
/// are kept, and a chunk aligned by the syntax tree lies within its named definition.
#[test]
fn lines_outside_the_spans_are_kept_within_definitions() {
    let mut runner =
        proptest::test_runner::TestRunner::new(ProptestConfig { cases: 2048, ..ProptestConfig::default() });
    let (accepted, by_syntax) = (std::cell::Cell::new(0usize), std::cell::Cell::new(0usize));
    let strategy = (
        file(),
        prop::collection::vec(any::<usize>(), 1..6),
        prop::collection::vec(change(), 1..12),
        any::<(bool, bool)>(),
        any::<bool>(),
    )
        .prop_flat_map(|(lines, cuts, changes, ends, allow)| {
            let len = lines.len();
            (Just((lines, cuts, changes, ends, allow)), definitions(len), definitions(len + 12))
        });
    runner
        .run(&strategy, |((lines, cuts, changes, ends, allow), file, snippet_defs)| {
            // Often one definition holds the whole snippet, so its chunks have a scope.
            let (mut file, mut snippet_defs) = (file, snippet_defs);
            if cuts.len() % 2 == 1 {
                snippet_defs.push(Definition { path: "a".into(), lines: [1, lines.len() + 12] });
                let at = cuts[0] % lines.len();
                file.push(Definition { path: "a".into(), lines: [at / 2 + 1, (at + lines.len()) / 2 + 1] });
            }
            let outline = Outline { file, snippet: snippet_defs };
            if outside_lines_kept(&lines, &cuts, &changes, ends, allow, Some(outline.clone()))? {
                accepted.set(accepted.get() + 1);
                let text = lines.join("\n") + "\n";
                let options = SnippetOptions {
                    comments: vec![Comment::Hash],
                    allow_deletions: allow,
                    outline: Some(outline),
                    ..Default::default()
                };
                let snippet = snippet(&lines, &cuts, &changes, ends);
                if merge(&text, &snippet, &options)
                    .is_ok_and(|merged| merged.chunks().iter().any(|chunk| chunk.alignment == AlignedBy::Syntax))
                {
                    by_syntax.set(by_syntax.get() + 1);
                }
            }
            Ok(())
        })
        .unwrap();
    eprintln!("accepted {}, {} with a chunk aligned by syntax", accepted.get(), by_syntax.get());
    assert!(by_syntax.get() >= 40, "only {} merges aligned a chunk by syntax", by_syntax.get());
}
