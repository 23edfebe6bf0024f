//! The bounded line diffs every crate uses.

use editkit_matcher::diff;

#[test]
fn long_hunks_and_lines_are_cut_with_a_note() {
    let old: String = (0..30).map(|i| format!("line {i} {}\n", "x".repeat(if i == 0 { 300 } else { 0 }))).collect();
    let new: String = (0..30).map(|i| format!("LINE {i}\n")).collect();
    let (text, truncated) = diff::bounded("f.txt", &old, &new);
    assert!(truncated);
    assert!(text.contains("more line(s) in this hunk not shown"), "{text}");
    assert!(text.contains("(line cut)"), "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= diff::MAX_LINE_CHARS + 20));
}

/// Applies a unified diff with `@@ -start,count` headers to `old`.
fn apply(old: &str, unified: &str) -> String {
    let old: Vec<&str> = old.lines().collect();
    let (mut out, mut at) = (Vec::new(), 0);
    for line in unified.lines().filter(|l| !l.starts_with("--- ") && !l.starts_with("+++ ")) {
        if let Some(header) = line.strip_prefix("@@ -") {
            let range = header.split(' ').next().unwrap();
            let (start, count) = range.split_once(',').unwrap_or((range, "1"));
            let (start, count): (usize, usize) = (start.parse().unwrap(), count.parse().unwrap());
            let copy_to = if count == 0 { start } else { start - 1 };
            out.extend_from_slice(&old[at..copy_to]);
            at = copy_to;
        } else if line.starts_with('-') {
            at += 1;
        } else if let Some(added) = line.strip_prefix('+') {
            out.push(added);
        } else if let Some(context) = line.strip_prefix(' ') {
            out.push(context);
            at += 1;
        }
    }
    out.extend_from_slice(&old[at..]);
    out.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn a_diff_past_its_deadline_is_still_exact() {
    // Two long texts sharing only scattered lines: Myers' worst case, cut short by the deadline.
    let old: String = (0..40_000).map(|i| format!("{}\n", i * 7 % 1009)).collect();
    let new: String = (0..40_000).map(|i| format!("{}\n", i * 13 % 1013)).collect();
    let text = diff::file("f.txt", &old, &new, 0);
    assert_eq!(apply(&old, &text), new);
    let small = diff::file("f.txt", "a\nb\nc\n", "a\nB\nc\nd\n", 1);
    assert_eq!(apply("a\nb\nc\n", &small), "a\nB\nc\nd\n");
}

/// A line one window inserts and the next window takes away is no change: the two windows'
/// changes, joined into one, are diffed again as one, so the diff shows only the real change.
#[test]
fn changes_of_two_windows_that_undo_each_other_are_not_shown() {
    let old = "\na\nq\n";
    let new = "\na\nQ\n";
    // An empty line inserted at the top, the old empty line removed after it, `q` changed.
    let windows = [(0..0, 0..1), (0..1, 1..1), (2..3, 2..3)];
    let diff = editkit_matcher::diff::unified_windows("a/x", "b/x", old, new, &windows, 0).unwrap();
    assert_eq!(diff, "--- a/x\n+++ b/x\n@@ -3 +3 @@\n-q\n+Q\n");
    assert_eq!(apply(old, &diff), new);
    // And texts that end up equal have no diff at all, even with windows far apart.
    // (Without context the two changes are not neighbours, so only the texts' equality can
    // tell.)
    let same = "a\nb\nc\na\nb\n";
    let windows = [(0..2, 0..0), (5..5, 3..5)];
    assert_eq!(editkit_matcher::diff::unified_windows("a/x", "b/x", same, same, &windows, 0).unwrap(), "");
}

mod trimmed {
    use editkit_matcher::diff;
    use proptest::prelude::*;

    /// The diff as `similar` gives it for the whole texts, which `diff::unified` must equal.
    fn whole(old: &str, new: &str, context: usize) -> String {
        similar::TextDiffConfig::default()
            .timeout(diff::DIFF_TIMEOUT)
            .diff_lines(old, new)
            .unified_diff()
            .context_radius(context)
            .header("a/x", "b/x")
            .to_string()
    }

    fn text() -> impl Strategy<Value = String> {
        // Few distinct lines, so texts share long runs and repeat lines; some lack a final newline.
        (prop::collection::vec(prop::sample::select(vec!["a", "b", "c", "", "x y", "é"]), 0..40), any::<bool>())
            .prop_map(|(lines, end)| {
                let mut text = lines.join("\n");
                if end && !text.is_empty() {
                    text.push('\n');
                }
                text
            })
    }

    /// Applies a unified diff (as `diff::unified` writes it) to `old`, checking every context
    /// and removed line against it.
    fn apply(old: &str, diff: &str) -> Result<String, String> {
        let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
        let mut out = String::new();
        let mut at = 0usize; // next old line to copy (0-based)
        let mut last: Option<char> = None;
        for line in diff.split_inclusive('\n').skip(2) {
            if let Some(rest) = line.strip_prefix("@@ -") {
                let start: usize = rest.split([',', ' ']).next().unwrap().parse().map_err(|_| line.to_owned())?;
                let len_given = rest.split(' ').next().unwrap().contains(',');
                let len: usize = if len_given {
                    rest.split(' ').next().unwrap().split(',').nth(1).unwrap().parse().unwrap()
                } else {
                    1
                };
                let first = if len == 0 { start } else { start - 1 };
                while at < first {
                    out.push_str(old_lines.get(at).ok_or("past the end")?);
                    at += 1;
                }
                continue;
            }
            if line.starts_with('\\') {
                // "\ No newline at end of file": the previous line had none.
                if last.is_some() && out.ends_with('\n') && last != Some('-') {
                    out.pop();
                }
                continue;
            }
            let (tag, body) = line.split_at(1);
            match tag {
                " " | "-" => {
                    let want = old_lines.get(at).ok_or("past the end")?;
                    if want.trim_end_matches('\n') != body.trim_end_matches('\n') {
                        return Err(format!("line {} is {want:?}, the diff says {body:?}", at + 1));
                    }
                    if tag == " " {
                        out.push_str(want);
                    }
                    at += 1;
                }
                "+" => out.push_str(body),
                _ => return Err(format!("bad line {line:?}")),
            }
            last = tag.chars().next();
        }
        while at < old_lines.len() {
            out.push_str(old_lines[at]);
            at += 1;
        }
        Ok(out)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Cutting the shared lines may align repeated lines differently (both diffs minimal),
        /// but the diff still turns `old` into `new`, with the same numbers of lines changed.
        #[test]
        fn cutting_the_shared_lines_keeps_the_diff_exact(old in text(), new in text(), context in 0usize..5) {
            let trimmed = diff::unified("a/x", "b/x", &old, &new, context);
            let count = |diff: &str, tag: char| diff.lines().skip(2).filter(|line| line.starts_with(tag)).count();
            let full = whole(&old, &new, context);
            prop_assert_eq!((count(&trimmed, '+'), count(&trimmed, '-')), (count(&full, '+'), count(&full, '-')));
            let applied = apply(&old, &trimmed);
            prop_assert_eq!(applied.as_deref().map(|text| text.trim_end_matches('\n')), Ok(new.trim_end_matches('\n')), "{}", trimmed);
        }

        /// Whatever the changes, a diff of the windows they touched turns `old` into `new`, and
        /// one more change outside the windows makes it refuse (`None`), never misreport.
        #[test]
        fn a_diff_of_the_changed_windows_turns_old_into_new(
            old in text(),
            edits in prop::collection::vec((0usize..40, 0usize..4, prop::collection::vec(prop::sample::select(vec!["a", "b", "", "z"]), 0..4)), 0..5),
            context in 0usize..5,
        ) {
            let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
            let mut edits = edits;
            edits.sort_by_key(|edit| edit.0);
            let (mut new, mut windows, mut at) = (String::new(), Vec::new(), 0usize);
            let mut new_count = 0usize;
            for (start, len, lines) in edits {
                // (Lines put after a last line without a newline would join it: not an edit of lines.)
                let after_unterminated = start == old_lines.len() && !old.is_empty() && !old.ends_with('\n');
                if start < at || start + len > old_lines.len() || after_unterminated {
                    continue;
                }
                for line in &old_lines[at..start] {
                    new.push_str(line);
                }
                new_count += start - at;
                for line in &lines {
                    new.push_str(line);
                    new.push('\n');
                }
                windows.push((start..start + len, new_count..new_count + lines.len()));
                new_count += lines.len();
                at = start + len;
            }
            for line in &old_lines[at..] {
                new.push_str(line);
            }
            let windowed = diff::unified_windows("a/x", "b/x", &old, &new, &windows, context);
            prop_assert!(windowed.is_some(), "refused windows that hold every change: {:?}", windows);
            let windowed = windowed.unwrap();
            let applied = apply(&old, &windowed);
            prop_assert_eq!(applied.as_deref().map(|text| text.trim_end_matches('\n')), Ok(new.trim_end_matches('\n')), "{}", windowed);
            if old == new {
                prop_assert_eq!(windowed, "");
            }
            // A change the windows do not hold: refused.
            if let Some(first) = windows.first().cloned() && first.0.start > 0 && first.1.start > 0 {
                let mut changed = new.clone();
                changed.insert_str(0, "not in any window\n");
                let shifted: Vec<diff::Window> = windows.iter().map(|(o, n)| (o.clone(), n.start + 1..n.end + 1)).collect();
                prop_assert_eq!(diff::unified_windows("a/x", "b/x", &old, &changed, &shifted, context), None);
            }
        }

        #[test]
        fn one_edit_in_a_long_text_diffs_as_the_whole_text(lines in 30usize..200, at in 0usize..200, context in 0usize..5) {
            let old: String = (0..lines).map(|n| format!("line {}\n", n % 7)).collect();
            let at = at % lines;
            let new = old.replacen(&format!("line {}\n", at % 7), "changed\n", 1);
            prop_assert_eq!(diff::unified("a/x", "b/x", &old, &new, context), whole(&old, &new, context));
        }
    }
}
