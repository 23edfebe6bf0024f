//! Properties of the ladder over generated texts.

use editkit_matcher::{Error, Options, Rung};
use proptest::prelude::*;

/// Code-like lines from a small alphabet, so duplicates and near misses are common.
fn text() -> impl Strategy<Value = String> {
    let line = prop::string::string_regex("( |\t){0,4}[abxy(){}=:,.\"'é—\u{a0}]{0,10}( ){0,2}").unwrap();
    prop::collection::vec(line, 0..12).prop_map(|lines| lines.join("\n"))
}

/// Any string, including odd unicode, backslashes and CR.
fn anything() -> impl Strategy<Value = String> {
    prop::string::string_regex("(.|\n|\r|\t|\\\\n|\u{201c}|\u{a0}){0,40}").unwrap()
}

fn overlapping_count(haystack: &str, needle: &str) -> usize {
    (0..haystack.len()).filter(|&at| haystack.get(at..).is_some_and(|rest| rest.starts_with(needle))).count()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, max_global_rejects: 1 << 20, ..ProptestConfig::default() })]

    #[test]
    fn a_unique_cut_is_found_exactly_there(text in text(), a in any::<prop::sample::Index>(), b in any::<prop::sample::Index>()) {
        let (start, end) = cut(&text, a, b);
        let needle = &text[start..end];
        prop_assume!(!needle.is_empty() && overlapping_count(&text, needle) == 1);
        let found = editkit_matcher::find(&text, needle, &Options::default()).unwrap();
        prop_assert_eq!(found.rung(), Rung::Exact);
        prop_assert_eq!(found.byte_range(), start..end);
        prop_assert_eq!(found.score(), 1.0);
    }

    #[test]
    fn no_fuzzy_rung_runs_when_an_exact_match_exists(
        text in text(),
        a in any::<prop::sample::Index>(),
        b in any::<prop::sample::Index>(),
        twice in any::<bool>(),
    ) {
        let (start, end) = cut(&text, a, b);
        let needle = &text[start..end];
        prop_assume!(!needle.is_empty());
        let haystack = if twice { format!("{text}\n{text}") } else { text.clone() };
        match editkit_matcher::find(&haystack, needle, &Options::default()) {
            Ok(found) => prop_assert_eq!(found.rung(), Rung::Exact),
            Err(Error::Ambiguous { rung, count, .. }) => {
                prop_assert_eq!(rung, Rung::Exact);
                prop_assert_eq!(count, overlapping_count(&haystack, needle));
            }
            Err(err) => prop_assert!(false, "unexpected {err:?}"),
        }
    }

    #[test]
    fn replace_changes_nothing_outside_the_match(text in text(), old in text(), new in text()) {
        if let Ok(edited) = editkit_matcher::replace(&text, &old, &new, &Options::default()) {
            check_splice(&text, &new, &edited)?;
        }
    }

    #[test]
    fn replace_of_a_fuzzed_line_changes_nothing_outside_the_match(
        text in text(),
        pick in any::<prop::sample::Index>(),
        new in text(),
        pad in "( |\t){0,3}",
    ) {
        // Cut one line and change its surrounding whitespace so the tolerant rungs run.
        let lines: Vec<&str> = text.split('\n').collect();
        let old = format!("{pad}{}{pad}", pick.get(&lines).trim());
        if let Ok(edited) = editkit_matcher::replace(&text, &old, &new, &Options::default()) {
            check_splice(&text, &new, &edited)?;
        }
    }

    #[test]
    fn arbitrary_input_never_panics(text in anything(), old in anything(), new in anything(), all in any::<bool>()) {
        let result = if all {
            editkit_matcher::replace_all(&text, &old, &new, &Options::default())
        } else {
            editkit_matcher::replace(&text, &old, &new, &Options::default())
        };
        if let Ok(edited) = result {
            check_splice(&text, &new, &edited)?;
        }
        if let Ok(found) = editkit_matcher::find(&text, &old, &Options::default()) {
            let range = found.byte_range();
            prop_assert!(text.is_char_boundary(range.start) && text.is_char_boundary(range.end));
        }
    }
}

/// The output is prefix + inserted + suffix around every match, and each inserted text is `new`
/// up to indentation (and escapes and one trailing newline on the rungs that adjust them).
fn check_splice(before: &str, new: &str, edited: &editkit_matcher::Replaced) -> Result<(), TestCaseError> {
    let after = edited.text();
    let mut before_at = 0;
    let mut after_at = 0;
    for (found, inserted) in edited.matches().iter().zip(edited.inserted()) {
        let range = found.byte_range();
        prop_assert!(before.is_char_boundary(range.start) && before.is_char_boundary(range.end));
        prop_assert_eq!(&before[before_at..range.start], &after[after_at..inserted.start]);
        let text = &after[inserted.clone()];
        match found.rung() {
            Rung::Exact => prop_assert_eq!(text, new),
            Rung::EscapeNormalised => {}
            // This rung leaves the needle's blank edge lines out of the match, and as many
            // from `new`.
            Rung::IndentationFlexible => prop_assert_eq!(without_blank_edges(text), without_blank_edges(new)),
            _ => {
                prop_assert_eq!(unindented(text), unindented(new));
            }
        }
        before_at = range.end;
        after_at = inserted.end;
    }
    prop_assert_eq!(&before[before_at..], &after[after_at..]);
    Ok(())
}

fn without_blank_edges(text: &str) -> Vec<&str> {
    let lines = unindented(text);
    let first = lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(lines.len());
    let last = lines.iter().rposition(|l| !l.trim().is_empty()).map_or(first, |l| l + 1);
    lines.get(first..last.max(first)).unwrap_or_default().to_vec()
}

fn unindented(text: &str) -> Vec<&str> {
    text.trim_end_matches('\n').split('\n').map(str::trim_start).collect()
}

/// Two char boundaries of `text`, in order.
fn cut(text: &str, a: prop::sample::Index, b: prop::sample::Index) -> (usize, usize) {
    let bounds: Vec<usize> = (0..=text.len()).filter(|&at| text.is_char_boundary(at)).collect();
    let (start, end) = (*a.get(&bounds), *b.get(&bounds));
    (start.min(end), start.max(end))
}
