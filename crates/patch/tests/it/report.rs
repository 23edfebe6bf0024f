//! The report's diff: drawn from the windows the hunks changed, it still turns every old file
//! into its new content.

use editkit_patch::{ApplyOptions, apply};
use editkit_vfs::Workspace;
use proptest::prelude::*;

/// A file of few distinct lines (so that lines repeat around every change).
fn lines() -> impl Strategy<Value = Vec<&'static str>> {
    prop::collection::vec(prop::sample::select(vec!["a", "b", "", "    x", "}"]), 1..60)
}

/// Changes: (first line, lines replaced, new lines).
fn changes() -> impl Strategy<Value = Vec<(usize, usize, Vec<&'static str>)>> {
    prop::collection::vec(
        (0usize..60, 0usize..3, prop::collection::vec(prop::sample::select(vec!["a", "", "new", "}"]), 0..3)),
        1..6,
    )
}

fn text(lines: &[&str]) -> String {
    lines.iter().map(|line| format!("{line}\n")).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// A patch of several hunks (a whole-text diff of the change, as a tool would write it) is
    /// applied; the diff the report gives back, applied to a fresh copy of the old file, gives
    /// the same new file.
    #[test]
    fn the_report_diff_applied_to_the_old_file_gives_the_new_file(old in lines(), changes in changes(), context in 0usize..4) {
        let mut new: Vec<&str> = old.clone();
        let mut changes = changes;
        changes.sort_by_key(|change| std::cmp::Reverse(change.0));
        for (at, len, with) in changes {
            let at = at.min(new.len());
            let end = (at + len).min(new.len());
            new.splice(at..end, with);
        }
        let (old, new) = (text(&old), text(&new));
        prop_assume!(old != new);
        let patch = editkit_matcher::diff::unified("a/f.txt", "b/f.txt", &old, &new, context);
        let first = tempfile::tempdir().unwrap();
        std::fs::write(first.path().join("f.txt"), &old).unwrap();
        let workspace = Workspace::open(first.path(), editkit_vfs::ambient_authority()).unwrap();
        let applied = apply(&workspace, &patch, &ApplyOptions::default());
        let applied = match applied {
            Ok(applied) => applied,
            // Hunks of repeated lines with little context may be ambiguous: refused, not misplaced.
            Err(err) => {
                prop_assert_eq!(std::fs::read_to_string(first.path().join("f.txt")).unwrap(), old);
                return Err(TestCaseError::reject(format!("refused: {err}")));
            }
        };
        prop_assert_eq!(std::fs::read_to_string(first.path().join("f.txt")).unwrap(), new.clone());
        let second = tempfile::tempdir().unwrap();
        std::fs::write(second.path().join("f.txt"), &old).unwrap();
        let again = Workspace::open(second.path(), editkit_vfs::ambient_authority()).unwrap();
        let replayed = apply(&again, &applied.diff, &ApplyOptions::default());
        prop_assert!(replayed.is_ok(), "the report's diff did not apply: {:?}\n{}", replayed.err(), applied.diff);
        prop_assert_eq!(std::fs::read_to_string(second.path().join("f.txt")).unwrap(), new, "{}", applied.diff);
    }
}
