use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use editkit_analyze::{
    DiagnosticsMode, DiagnosticsOptions, FormatOptions, MAX_OUTPUT_CHARS, Tool, diagnose, format_file,
};

fn checkers(extension: &str, tools: Vec<Tool>) -> BTreeMap<String, Vec<Tool>> {
    BTreeMap::from([(extension.to_owned(), tools)])
}

fn temp_file(name: &str, content: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, content).unwrap();
    (dir, path)
}

#[test]
fn built_in_check_is_always_there() {
    let options = DiagnosticsOptions { checkers: BTreeMap::new(), ..Default::default() };
    let (_dir, path) = temp_file("a.py", "def f(:\n");
    let found = diagnose(&path, "def f(:\n", &options);
    assert!(found.has_problems());
    assert!(found.syntax.is_some());
    let clean = diagnose(&path, "def f():\n    pass\n", &options);
    assert_eq!(clean.syntax, None, "auto mode reports only problems");
    let on =
        diagnose(&path, "def f():\n    pass\n", &DiagnosticsOptions { mode: DiagnosticsMode::On, ..options.clone() });
    assert_eq!(on.syntax.map(|report| report.valid), Some(true));
    let off = diagnose(&path, "def f(:\n", &DiagnosticsOptions { mode: DiagnosticsMode::Off, ..options });
    assert!(!off.has_problems());
}

#[test]
fn missing_slow_and_crashing_checkers_are_skipped() {
    let (_dir, path) = temp_file("a.py", "x = 1\n");
    let options = DiagnosticsOptions {
        mode: DiagnosticsMode::On,
        timeout: Duration::from_millis(300),
        checkers: checkers(
            "py",
            vec![
                Tool::new("missing", &["editkit-no-such-checker-xyz", "{path}"]),
                Tool::new("slow", &["sleep", "30"]),
                Tool::new("crash", &["sh", "-c", "kill -9 $$"]),
                Tool::new("silent-failure", &["sh", "-c", "exit 3"]),
                Tool::new("echo", &["sh", "-c", "echo checked \"$0\"; exit 1", "{path}"]),
            ],
        ),
    };
    let started = Instant::now();
    let found = diagnose(&path, "x = 1\n", &options);
    assert!(started.elapsed() < Duration::from_secs(5), "the slow checker was not cut off");
    let skipped: Vec<&str> = found.skipped.iter().map(|skipped| skipped.tool.as_str()).collect();
    assert_eq!(skipped, ["missing", "slow", "crash", "silent-failure"], "{:?}", found.skipped);
    assert!(found.skipped[1].reason.contains("timed out"));
    let checker = found.checker.unwrap();
    assert_eq!(checker.tool, "echo");
    assert!(!checker.ok);
    assert_eq!(checker.output, format!("checked {}", path.display()));
}

#[test]
fn output_is_capped() {
    let (_dir, path) = temp_file("a.py", "x = 1\n");
    let options = DiagnosticsOptions {
        checkers: checkers("py", vec![Tool::new("loud", &["sh", "-c", "yes problem | head -n 5000; exit 1"])]),
        ..Default::default()
    };
    let checker = diagnose(&path, "x = 1\n", &options).checker.unwrap();
    assert!(checker.output.chars().count() <= MAX_OUTPUT_CHARS, "{}", checker.output.len());
    assert!(checker.output.contains("more characters cut"));
}

#[test]
fn default_python_checker_runs_when_installed() {
    let (_dir, path) = temp_file("a.py", "def f(:\n");
    let found = diagnose(&path, "def f(:\n", &DiagnosticsOptions { mode: DiagnosticsMode::On, ..Default::default() });
    // ruff or python3 may be absent; then they are skipped, never an error.
    match &found.checker {
        Some(checker) => assert!(!checker.ok, "{checker:?}"),
        None => assert!(!found.skipped.is_empty()),
    }
}

#[test]
fn formatting_is_off_by_default_and_overridable() {
    let (_dir, path) = temp_file("a.py", "x=1\n");
    let report = format_file(&path, &FormatOptions::default());
    assert_eq!(report.formatter, None);
    assert!(report.skipped.is_empty());

    let mut options = FormatOptions { enabled: true, ..Default::default() };
    options.formatters.insert(
        "py".to_owned(),
        vec![
            Tool::new("missing", &["./no-such-formatter", "{path}"]),
            Tool::new("upper", &["sh", "-c", "tr a-z A-Z < \"$0\" > \"$0.tmp\" && mv \"$0.tmp\" \"$0\"", "{path}"]),
        ],
    );
    let report = format_file(&path, &options);
    assert_eq!(report.formatter.as_deref(), Some("upper"), "{report:?}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "X=1\n");
    assert_eq!(report.skipped[0].tool, "missing");
}

#[test]
fn relative_formatter_resolves_from_the_files_folder() {
    let (dir, path) = temp_file("a.md", "# a\n");
    let script = dir.path().join("fmt.sh");
    std::fs::write(&script, "#!/bin/sh\necho formatted > \"$1\"\n").unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut options = FormatOptions { enabled: true, ..Default::default() };
    options.formatters.insert("md".to_owned(), vec![Tool::new("local", &["./fmt.sh", "{path}"])]);
    // Executing a file just written can fail with ETXTBSY while another test thread forks:
    // retry a few times rather than flake.
    let mut report = format_file(&path, &options);
    for _ in 0..3 {
        if report.formatter.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        report = format_file(&path, &options);
    }
    assert_eq!(report.formatter.as_deref(), Some("local"), "{report:?}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "formatted\n");
}
