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
