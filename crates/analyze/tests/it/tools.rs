use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use editkit_analyze::{
    Diagnostics, DiagnosticsMode, DiagnosticsOptions, ExternalTool, FormatOptions, FormatReport, MAX_OUTPUT_CHARS,
};

fn checkers(extension: &str, tools: Vec<ExternalTool>) -> BTreeMap<String, Vec<ExternalTool>> {
    BTreeMap::from([(extension.to_owned(), tools)])
}

/// A workspace root and a file name in it (the tools only get the name and the content).
fn temp_file(name: &str, content: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), content).unwrap();
    (dir, name.to_owned())
}

fn diagnose(dir: &tempfile::TempDir, path: &str, source: &str, options: &DiagnosticsOptions) -> Diagnostics {
    editkit_analyze::diagnose(&[dir.path()], path, source, options)
}

fn format_source(dir: &tempfile::TempDir, path: &str, source: &str, options: &FormatOptions) -> FormatReport {
    editkit_analyze::format_source(&[dir.path()], path, source, options)
}

#[test]
fn built_in_check_is_always_there() {
    let options = DiagnosticsOptions { checkers: BTreeMap::new(), ..Default::default() };
    let (dir, path) = temp_file("a.py", "def f(:\n");
    let found = diagnose(&dir, &path, "def f(:\n", &options);
    assert!(found.has_problems());
    assert!(found.syntax.is_some());
    let clean = diagnose(&dir, &path, "def f():\n    pass\n", &options);
    assert_eq!(clean.syntax, None, "auto mode reports only problems");
    let on = diagnose(
        &dir,
        &path,
        "def f():\n    pass\n",
        &DiagnosticsOptions { mode: DiagnosticsMode::On, ..options.clone() },
    );
    assert_eq!(on.syntax.map(|report| report.valid), Some(true));
    let off = diagnose(&dir, &path, "def f(:\n", &DiagnosticsOptions { mode: DiagnosticsMode::Off, ..options });
    assert!(!off.has_problems());
}

#[test]
fn missing_slow_and_crashing_checkers_are_skipped() {
    let (dir, path) = temp_file("a.py", "x = 1\n");
    let options = DiagnosticsOptions {
        mode: DiagnosticsMode::On,
        timeout: Duration::from_millis(300),
        checkers: checkers(
            "py",
            vec![
                ExternalTool::new("missing", &["editkit-no-such-checker-xyz", "{path}"]),
                ExternalTool::new("slow", &["sleep", "30"]),
                ExternalTool::new("crash", &["sh", "-c", "kill -9 $$"]),
                ExternalTool::new("silent-failure", &["sh", "-c", "exit 3"]),
                ExternalTool::new("echo", &["sh", "-c", "echo checked \"$0\"; exit 1", "{path}"]),
            ],
        ),
    };
    let started = Instant::now();
    let found = diagnose(&dir, &path, "x = 1\n", &options);
    assert!(started.elapsed() < Duration::from_secs(5), "the slow checker was not cut off");
    let skipped: Vec<&str> = found.skipped.iter().map(|skipped| skipped.tool.as_str()).collect();
    assert_eq!(skipped, ["missing", "slow", "crash", "silent-failure"], "{:?}", found.skipped);
    assert!(found.skipped[1].reason.contains("timed out"));
    let checker = found.checker.unwrap();
    assert_eq!(checker.tool, "echo");
    assert!(!checker.ok);
    assert_eq!(checker.output, "checked a.py", "{{path}} is the name the caller gives");
}

#[test]
fn placeholders_are_replaced_once_and_a_dash_name_is_not_an_option() {
    let dir = tempfile::tempdir().unwrap();
    let options = DiagnosticsOptions {
        mode: DiagnosticsMode::On,
        checkers: checkers("py", vec![ExternalTool::new("echo", &["sh", "-c", "echo \"$0\"; exit 1", "[{path}]"])]),
        ..Default::default()
    };
    let braces = diagnose(&dir, "{file}.py", "x = 1\n", &options).checker.unwrap();
    assert_eq!(braces.output, "[{file}.py]");
    let dash = diagnose(&dir, "-rf.py", "x = 1\n", &options).checker.unwrap();
    assert_eq!(dash.output, "[./-rf.py]");
}

#[test]
fn output_is_capped() {
    let (dir, path) = temp_file("a.py", "x = 1\n");
    let options = DiagnosticsOptions {
        checkers: checkers("py", vec![ExternalTool::new("loud", &["sh", "-c", "yes problem | head -n 5000; exit 1"])]),
        ..Default::default()
    };
    let checker = diagnose(&dir, &path, "x = 1\n", &options).checker.unwrap();
    assert!(checker.output.chars().count() <= MAX_OUTPUT_CHARS, "{}", checker.output.len());
    assert!(checker.output.contains("more characters cut"));
}

#[test]
fn default_python_checker_runs_when_installed() {
    let (dir, path) = temp_file("a.py", "def f(:\n");
    let found =
        diagnose(&dir, &path, "def f(:\n", &DiagnosticsOptions { mode: DiagnosticsMode::On, ..Default::default() });
    // ruff or python3 may be absent; then they are skipped, never an error.
    match &found.checker {
        Some(checker) => assert!(!checker.ok, "{checker:?}"),
        None => assert!(!found.skipped.is_empty()),
    }
}

#[test]
fn formatting_is_off_by_default_and_overridable() {
    let (dir, path) = temp_file("a.py", "x=1\n");
    let report = format_source(&dir, &path, "x=1\n", &FormatOptions::default());
    assert_eq!(report, FormatReport::default());

    let mut options = FormatOptions { enabled: true, ..Default::default() };
    options.formatters.insert(
        "py".to_owned(),
        vec![
            ExternalTool::new("missing", &["editkit-no-such-formatter", "{path}"]),
            ExternalTool::new("upper", &["tr", "a-z", "A-Z"]),
        ],
    );
    let report = format_source(&dir, &path, "x=1\n", &options);
    assert_eq!(report.formatter.as_deref(), Some("upper"), "{report:?}");
    assert_eq!(report.formatted.as_deref(), Some("X=1\n"));
    assert_eq!(std::fs::read_to_string(dir.path().join("a.py")).unwrap(), "x=1\n", "nothing is written");
    assert_eq!(report.skipped[0].tool, "missing");
    assert_eq!(report.skipped[0].reason, "not installed");
}

#[test]
fn a_formatter_may_rewrite_its_private_copy_instead_of_printing() {
    let (dir, path) = temp_file("a.md", "# a\n");
    let mut options = FormatOptions { enabled: true, ..Default::default() };
    let rewrite = ExternalTool::new(
        "rewrite",
        &["sh", "-c", "test \"$(cat \"$0\")\" = '# a' && echo formatted > \"$0\"", "{file}"],
    );
    options.formatters.insert("md".to_owned(), vec![rewrite]);
    let report = format_source(&dir, &path, "# a\n", &options);
    assert_eq!(report.formatted.as_deref(), Some("formatted\n"), "{report:?}");
    assert_eq!(std::fs::read_to_string(dir.path().join("a.md")).unwrap(), "# a\n");
}

#[test]
fn a_formatter_that_prints_nothing_or_fails_changes_nothing() {
    let (dir, path) = temp_file("a.md", "# a\n");
    let mut options = FormatOptions { enabled: true, ..Default::default() };
    options.formatters.insert("md".to_owned(), vec![ExternalTool::new("silent", &["true"])]);
    let report = format_source(&dir, &path, "# a\n", &options);
    assert_eq!(report.formatted, None);
    assert!(report.skipped[0].reason.contains("printed nothing"), "{report:?}");
    options
        .formatters
        .insert("md".to_owned(), vec![ExternalTool::new("failing", &["sh", "-c", "echo bad input >&2; exit 2"])]);
    let report = format_source(&dir, &path, "# a\n", &options);
    assert_eq!(report.formatted, None);
    assert_eq!(report.skipped[0].reason, "exited with status 2: bad input");
}

#[test]
fn a_relative_program_is_not_resolved_from_the_repository() {
    let (dir, path) = temp_file("a.md", "# a\n");
    let script = dir.path().join("fmt.sh");
    std::fs::write(&script, "#!/bin/sh\necho formatted\n").unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut options = FormatOptions { enabled: true, ..Default::default() };
    options.formatters.insert("md".to_owned(), vec![ExternalTool::new("local", &["./fmt.sh", "{path}"])]);
    let report = format_source(&dir, &path, "# a\n", &options);
    assert_eq!(report.formatted, None);
    assert!(report.skipped[0].reason.contains("relative program path"), "{report:?}");
    assert_eq!(report.confinement, None, "nothing was started");

    // An absolute path is the explicit opt-in. Executing a file just written can fail with
    // ETXTBSY while another test thread forks: retry a few times rather than flake.
    let absolute = script.to_string_lossy().into_owned();
    options.formatters.insert("md".to_owned(), vec![ExternalTool::new("local", &[&absolute, "{path}"])]);
    let mut report = format_source(&dir, &path, "# a\n", &options);
    for _ in 0..3 {
        if report.formatter.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        report = format_source(&dir, &path, "# a\n", &options);
    }
    assert_eq!(report.formatted.as_deref(), Some("formatted\n"), "{report:?}");
}

#[test]
fn too_large_input_is_not_handed_to_tools() {
    let (dir, path) = temp_file("a.py", "");
    let big = "x = 1\n".repeat(editkit_analyze::MAX_TOOL_INPUT_BYTES / 6 + 1);
    let options = DiagnosticsOptions {
        mode: DiagnosticsMode::On,
        checkers: checkers("py", vec![ExternalTool::new("cat", &["cat"])]),
        ..Default::default()
    };
    let found = diagnose(&dir, &path, &big, &options);
    assert!(found.skipped[0].reason.contains("limit for external tools"), "{:?}", found.skipped);
}
