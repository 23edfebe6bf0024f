//! Block-anchor regions differing from the old text by whole lines: the agent's change is applied
//! to the file's own lines (merged), or refused; never a line deleted that the old text left out,
//! never a line written that the file did not have.

use editkit_matcher::{Alignment, Error, MatchOptions, Rung};

#[test]
fn a_line_the_old_text_leaves_out_is_kept() {
    let file = "x = [\n    1,\n    2,\n    3,\n    4,\n    5,\n]\n";
    let old = "x = [\n    1,\n    2,\n    4,\n    5,\n]\n";
    let new = "x = [\n    1,\n    2,\n    4,\n    5,\n    6,\n]\n";
    let edited = editkit_matcher::replace(file, old, new, &MatchOptions::default()).unwrap();
    assert_eq!(edited.text(), "x = [\n    1,\n    2,\n    3,\n    4,\n    5,\n    6,\n]\n");
    assert_eq!(edited.rung(), Rung::BlockAnchor);
    assert_eq!(edited.matches()[0].alignment(), Alignment::Merged);
}

#[test]
fn two_lines_left_out_of_a_call_sequence_are_kept() {
    let calls = [
        "open_database(settings.database_url)",
        "load_configuration(settings.config_path)",
        "check_configuration(settings)",
        "start_cache()",
        "warm_cache()",
        "register_signal_handlers(settings.signals)",
        "start_workers()",
        "serve_forever(settings.address)",
    ];
    let body = |calls: &[&str]| calls.iter().map(|c| format!("    {c}\n")).collect::<String>();
    let file = format!("def setup():\n{}    return True\n", body(&calls));
    let without: Vec<&str> = calls.iter().copied().filter(|c| !c.ends_with("cache()")).collect();
    let old = format!("def setup():\n{}    return True\n", body(&without));
    let new = old.replace("start_workers()", "start_workers(4)");
    let edited = editkit_matcher::replace(&file, &old, &new, &MatchOptions::default()).unwrap();
    assert_eq!(edited.text(), file.replace("start_workers()", "start_workers(4)"));
    assert_eq!(edited.rung(), Rung::BlockAnchor);
    assert_eq!(edited.matches()[0].alignment(), Alignment::Merged);
}

#[test]
fn an_invented_line_is_never_written() {
    // The old text holds a neighbour's copy with one token changed, which the file does not have.
    let file = "config = {\n    'host': 'localhost',\n    'port': 5432,\n    'user': 'admin',\n    'timeout': 30,\n}\n";
    let old = "config = {\n    'host': 'localhost',\n    'port': 5432,\n    'portal': 5432,\n    'user': 'admin',\n    'timeout': 30,\n}\n";
    let new = "config = {\n    'host': 'localhost',\n    'port': 5432,\n    'portal': 5432,\n    'user': 'admin',\n    'timeout': 60,\n}\n";
    let edited = editkit_matcher::replace(file, old, new, &MatchOptions::default()).unwrap();
    assert_eq!(
        edited.text(),
        "config = {\n    'host': 'localhost',\n    'port': 5432,\n    'user': 'admin',\n    'timeout': 60,\n}\n"
    );
    assert_eq!(edited.matches()[0].alignment(), Alignment::Merged);
}

#[test]
fn a_misremembered_line_the_change_keeps_stays_as_the_file_has_it() {
    let file = "fn run() {\n    let a = load(path);\n    let b = parse(&a);\n    let c = check(&b);\n    emit(c);\n}\n";
    let old =
        "fn run() {\n    let a = load(path);\n    let b = parse_all(&a);\n    let c = check(&b);\n    emit(c);\n}\n";
    let new =
        "fn run() {\n    let a = load(path);\n    let b = parse_all(&a);\n    let c = check(&b)?;\n    emit(c);\n}\n";
    let edited = editkit_matcher::replace(file, old, new, &MatchOptions::default()).unwrap();
    assert_eq!(
        edited.text(),
        "fn run() {\n    let a = load(path);\n    let b = parse(&a);\n    let c = check(&b)?;\n    emit(c);\n}\n"
    );
}

#[test]
fn a_left_out_line_inside_the_rewritten_lines_is_refused() {
    let file = "x = [\n    1,\n    2,\n    3,\n    4,\n    5,\n]\n";
    let old = "x = [\n    1,\n    2,\n    4,\n    5,\n]\n";
    let new = "x = [\n    1,\n    20,\n    40,\n    5,\n]\n";
    let err = editkit_matcher::replace(file, old, new, &MatchOptions::default()).unwrap_err();
    assert_eq!(err.kind(), "not_found");
    assert_eq!(
        err.to_string(),
        "old text not found as written: lines 1-7 hold a similar block, but line 4 (`····3,`) stands among the \
         lines the change rewrites and the old text leaves it out; read those lines and copy them exactly, then retry"
    );
    // An insertion exactly where the left-out line stands: before or after it cannot be known.
    let new = "x = [\n    1,\n    2,\n    2.5,\n    4,\n    5,\n]\n";
    let err = editkit_matcher::replace(file, old, new, &MatchOptions::default()).unwrap_err();
    assert!(matches!(err, Error::Unaligned { .. }), "{err}");
}

#[test]
fn a_stale_line_to_remove_is_refused_when_changes_must_be_exact() {
    let file = "settings:\n  host = db\n  port = 5432\n  user = app\n  pool = 4\nend\n";
    let old = "settings:\n  host = db\n  port = 5433\n  user = app\n  pool = 4\nend\n";
    let new = "settings:\n  host = db\n  port = 6000\n  user = app\n  pool = 4\nend\n";
    let exact = MatchOptions { changed_lines_exact: true, ..MatchOptions::default() };
    let err = editkit_matcher::replace(file, old, new, &exact).unwrap_err();
    assert!(
        err.to_string().contains("the change removes `··port·=·5433` where line 3 of the file is `··port·=·5432`"),
        "{err}"
    );
    // An edit_file old text may misremember the line it rewrites.
    let edited = editkit_matcher::replace(file, old, new, &MatchOptions::default()).unwrap();
    assert_eq!(edited.text(), "settings:\n  host = db\n  port = 6000\n  user = app\n  pool = 4\nend\n");
    assert_eq!(edited.matches()[0].alignment(), Alignment::Aligned);
}
