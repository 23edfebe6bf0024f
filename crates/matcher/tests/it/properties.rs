//! Properties of the ladder over generated texts.

use editkit_matcher::{Error, MatchOptions, Rung};
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
        let found = editkit_matcher::find(&text, needle, &MatchOptions::default()).unwrap();
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
        match editkit_matcher::find(&haystack, needle, &MatchOptions::default()) {
            Ok(found) => prop_assert_eq!(found.rung(), Rung::Exact),
            Err(Error::Ambiguous { rung, count, .. }) => {
                prop_assert_eq!(rung, Rung::Exact);
                prop_assert_eq!(count, overlapping_count(&haystack, needle));
            }
            Err(err) => prop_assert!(false, "unexpected {err:?}"),
        }
    }
}

/// Runs `property` on `cases` generated values and returns how many it counted (it returns
/// `Ok(true)` for a case that exercised what the property is about, such as an edit that
/// applied): a property whose premise never holds would otherwise pass without checking
/// anything.
fn counted<S: Strategy>(cases: u32, strategy: S, property: impl Fn(S::Value) -> Result<bool, TestCaseError>) -> usize {
    let counted = std::cell::Cell::new(0usize);
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig { cases, ..ProptestConfig::default() });
    let result = runner.run(&strategy, |value| {
        if property(value)? {
            counted.set(counted.get() + 1);
        }
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    counted.get()
}

#[test]
fn replace_changes_nothing_outside_the_match() {
    // The old text is a cut of the text (so edits apply), or any generated text (so misses and
    // fuzzy rungs come too).
    let strategy = (text(), text(), text(), any::<prop::sample::Index>(), any::<prop::sample::Index>(), any::<bool>());
    let applied = counted(512, strategy, |(text, other, new, a, b, from_text)| {
        let old = if from_text {
            let (start, end) = cut(&text, a, b);
            text[start..end].to_owned()
        } else {
            other
        };
        match editkit_matcher::replace(&text, &old, &new, &MatchOptions::default()) {
            Ok(edited) => check_splice(&text, &new, &edited).map(|()| true),
            Err(_) => Ok(false),
        }
    });
    assert!(applied >= 100, "only {applied} of 512 generated edits applied");
}

#[test]
fn replace_of_a_fuzzed_line_changes_nothing_outside_the_match() {
    let strategy = (text(), any::<prop::sample::Index>(), text(), "( |\t){0,3}");
    let applied = counted(512, strategy, |(text, pick, new, pad)| {
        // Cut one line and change its surrounding whitespace so the tolerant rungs run.
        let lines: Vec<&str> = text.split('\n').collect();
        let old = format!("{pad}{}{pad}", pick.get(&lines).trim());
        match editkit_matcher::replace(&text, &old, &new, &MatchOptions::default()) {
            Ok(edited) => check_splice(&text, &new, &edited).map(|()| true),
            Err(_) => Ok(false),
        }
    });
    assert!(applied >= 100, "only {applied} of 512 fuzzed-line edits applied");
}

#[test]
fn arbitrary_input_never_panics() {
    let strategy = (anything(), anything(), anything(), any::<bool>());
    let applied = counted(512, strategy, |(text, old, new, all)| {
        let result = if all {
            editkit_matcher::replace_all(&text, &old, &new, &MatchOptions::default())
        } else {
            editkit_matcher::replace(&text, &old, &new, &MatchOptions::default())
        };
        if let Ok(found) = editkit_matcher::find(&text, &old, &MatchOptions::default()) {
            let range = found.byte_range();
            prop_assert!(text.is_char_boundary(range.start) && text.is_char_boundary(range.end));
        }
        match result {
            Ok(edited) => check_splice(&text, &new, &edited).map(|()| true),
            Err(_) => Ok(false),
        }
    });
    // Arbitrary strings rarely hold each other; the empty old text and short ones still do.
    assert!(applied >= 1, "no arbitrary edit applied in 512 cases");
}

/// Lines of a block of distinct code-like lines (first and last unique, so the block anchors).
fn block() -> impl Strategy<Value = Vec<String>> {
    (4usize..12, 0usize..3).prop_map(|(len, style)| {
        (0..len)
            .map(|k| match (k, style) {
                (0, _) => "values = [".to_owned(),
                (k, _) if k + 1 == len => "]".to_owned(),
                (k, 0) => format!("    item_{k},"),
                (k, 1) => format!("    call_{k}(arg, {k})"),
                (k, _) => format!("    field_{k}: u32 = {k},"),
            })
            .collect()
    })
}

/// What an agent's old text does to the block: leaves lines out, invents one, or misremembers one.
#[derive(Debug, Clone)]
enum Drift {
    LeaveOut(Vec<prop::sample::Index>),
    Invent(prop::sample::Index),
    Misremember(prop::sample::Index),
}

fn drift() -> impl Strategy<Value = Drift> {
    prop_oneof![
        prop::collection::vec(any::<prop::sample::Index>(), 1..3).prop_map(Drift::LeaveOut),
        any::<prop::sample::Index>().prop_map(Drift::Invent),
        any::<prop::sample::Index>().prop_map(Drift::Misremember),
    ]
}

/// What the agent's new text does to its old text.
#[derive(Debug, Clone)]
enum Change {
    Insert(prop::sample::Index),
    Delete(prop::sample::Index),
    Rewrite(prop::sample::Index),
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        any::<prop::sample::Index>().prop_map(Change::Insert),
        any::<prop::sample::Index>().prop_map(Change::Delete),
        any::<prop::sample::Index>().prop_map(Change::Rewrite),
    ]
}

/// Applies the drift to the middle lines of `block` (never the anchoring first and last).
fn drifted(block: &[String], drift: &Drift) -> (Vec<String>, Option<String>) {
    let middle = 1..block.len() - 1;
    let pick = |index: &prop::sample::Index| middle.start + index.index(middle.len());
    let mut old = block.to_vec();
    match drift {
        Drift::LeaveOut(indexes) => {
            let mut gone: Vec<usize> = indexes.iter().map(pick).collect();
            gone.sort_unstable();
            gone.dedup();
            for at in gone.into_iter().rev() {
                old.remove(at);
            }
            (old, None)
        }
        Drift::Invent(index) => {
            let at = pick(index);
            let invented = format!("{}_copy", old[at].trim_end_matches(','));
            old.insert(at, invented.clone());
            (old, Some(invented))
        }
        Drift::Misremember(index) => {
            let at = pick(index);
            old[at] = old[at].replacen('_', "x_", 1);
            let misremembered = old[at].clone();
            (old, Some(misremembered))
        }
    }
}

fn changed(old: &[String], change: &Change) -> Vec<String> {
    let mut new = old.to_vec();
    let middle = 1..old.len().saturating_sub(1).max(1);
    let pick = |index: &prop::sample::Index| middle.start + index.index(middle.len().max(1));
    match change {
        Change::Insert(index) => new.insert(pick(index), "    inserted_line,".to_owned()),
        Change::Delete(index) if old.len() > 3 => {
            new.remove(pick(index));
        }
        Change::Delete(_) => {}
        Change::Rewrite(index) => {
            let at = pick(index);
            new[at] = format!("{} # rewritten", new[at]);
        }
    }
    new
}

fn count<'a>(lines: impl Iterator<Item = &'a str>, wanted: &str) -> usize {
    lines.filter(|line| line.trim() == wanted.trim()).count()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    /// For any accepted edit, every line of the file outside the matched region is still there,
    /// and so is every line inside it that equals a line of the old text the new text keeps; a
    /// line of the old text that the file does not have is never written unless the new text
    /// writes it as a change.
    #[test]
    fn merges_keep_every_line_the_change_does_not_touch(
        block in block(),
        drift in drift(),
        change in change(),
        prefix in "(head_[0-9]\n){0,3}",
        suffix in "(tail_[0-9]\n){0,3}",
    ) {
        let (old, misremembered) = drifted(&block, &drift);
        let new = changed(&old, &change);
        let file = format!("{prefix}{}\n{suffix}", block.join("\n"));
        let (old_text, new_text) = (format!("{}\n", old.join("\n")), format!("{}\n", new.join("\n")));
        let Ok(edited) = editkit_matcher::replace(&file, &old_text, &new_text, &MatchOptions::default()) else {
            return Ok(());
        };
        let found = edited.matches()[0].clone();
        let range = found.byte_range();
        let inserted = edited.inserted()[0].clone();
        prop_assert_eq!(&file[..range.start], &edited.text()[..inserted.start]);
        prop_assert_eq!(&file[range.end..], &edited.text()[inserted.end..]);
        let region: Vec<&str> = file[range].lines().collect();
        let result: Vec<&str> = edited.text()[inserted].lines().collect();
        let kept: Vec<&str> = similar::capture_diff_slices(similar::Algorithm::Myers, &old, &new)
            .into_iter()
            .flat_map(|op| match op {
                similar::DiffOp::Equal { old_index, len, .. } => (old_index..old_index + len).collect::<Vec<_>>(),
                _ => Vec::new(),
            })
            .map(|i| old[i].as_str())
            .collect();
        for line in &region {
            if kept.iter().any(|k| k.trim() == line.trim()) {
                prop_assert!(
                    count(result.iter().copied(), line) >= count(region.iter().copied(), line),
                    "`{}` lost: region {:?}, result {:?}", line, region, result
                );
            }
        }
        if let Some(never) = misremembered {
            let written_as_change = new.iter().filter(|l| **l == never).count() > old.iter().filter(|l| **l == never).count();
            if !written_as_change && !region.iter().any(|l| l.trim() == never.trim()) {
                prop_assert!(!result.iter().any(|l| l.trim() == never.trim()), "`{}` written: {:?}", never, result);
            }
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
            // The change was applied to the file's own lines: see `merges_keep_every_line_*`.
            _ if found.alignment() == editkit_matcher::Alignment::Merged => {}
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
