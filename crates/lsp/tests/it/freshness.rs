//! Diagnostics are never shown fresher than they are: a slow server gives `timed_out`, two
//! changes back to back give `fresh` for the newest version; and the pool restarts a
//! crashed server once, then says it is unavailable with the server's last words.

use std::path::{Path, PathBuf};
use std::time::Duration;

use editkit_lsp::{Freshness, Language, Pool, PoolOptions};
use editkit_run::Roots;

use crate::support::{PROXY_DELAY_SECS, READY_WAIT, START_WAIT, fixture, tools_path};

/// A pool whose Python server is the stand-in in `mode`, and the fixture root.
pub(crate) fn stand_in(mode: &str) -> (tempfile::TempDir, PathBuf, Pool) {
    stand_in_as("py", "basedpyright-langserver", mode)
}

/// The TypeScript stand-in (the Python one under typescript-language-server's name) in `mode`.
fn typescript_stand_in(mode: &str) -> (tempfile::TempDir, PathBuf, Pool) {
    stand_in_as("ts", "typescript-language-server", mode)
}

/// A pool whose server `program` is the stand-in in `mode`, and the root of `fixture`.
fn stand_in_as(fixture_name: &str, program: &str, mode: &str) -> (tempfile::TempDir, PathBuf, Pool) {
    let (temp, root) = fixture(fixture_name);
    let bin = temp.path().join("stand-in-bin");
    std::fs::create_dir(&bin).expect("mkdir");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/lsp/stand-in/basedpyright-langserver");
    std::fs::copy(&script, bin.join(program)).expect("copy the stand-in");
    std::fs::write(bin.join("mode"), mode).expect("write the mode");
    let bin = bin.canonicalize().expect("real path");
    let options = PoolOptions { path: Some(tools_path(&[&bin])), start_wait: START_WAIT, ..PoolOptions::default() };
    (temp, root, Pool::new(options))
}

#[test]
fn a_slow_server_gives_timed_out_never_an_empty_success() {
    let (_temp, root, pool) = stand_in("slow");
    let session = pool.session(Language::Python, &root, &Roots::new(&[&root])).expect("the stand-in starts");
    let file = root.join("pkg/util.py");
    let first = session.diagnostics(&file, "a = 1\n", START_WAIT);
    assert_eq!(first.freshness, Freshness::Fresh { version: 1 });
    let second = session.diagnostics(&file, "a = 2\n", Duration::from_millis(300));
    let Freshness::TimedOut { limit_ms, last_version, .. } = second.freshness else {
        panic!("a server that never answers version 2 gave {second:?}")
    };
    assert_eq!((limit_ms, last_version), (300, Some(1)));
    assert_eq!(second.diagnostics.len(), 1, "the version-1 diagnostics are shown, labelled");
    assert_eq!(second.diagnostics[0].message, "version 1");
}

#[test]
fn two_changes_back_to_back_give_the_newest_version_or_say_which() {
    let (_temp, root, pool) = stand_in("latest");
    let session = pool.session(Language::Python, &root, &Roots::new(&[&root])).expect("the stand-in starts");
    let file = root.join("pkg/util.py");
    assert_eq!(session.diagnostics(&file, "a = 1\n", START_WAIT).freshness, Freshness::Fresh { version: 1 });
    assert_eq!(session.sync(&file, "a = 2\n").expect("sent"), 2);
    let third = session.diagnostics(&file, "a = 3\n", START_WAIT);
    assert_eq!(third.freshness, Freshness::Fresh { version: 3 });
    assert_eq!(third.diagnostics[0].message, "version 3");
    assert_eq!(session.sync(&file, "a = 4\n").expect("sent"), 4);
    let peeked = session.peek_diagnostics(&file).expect("open");
    assert_eq!(peeked.freshness, Freshness::Stale { version: Some(3), current: 4 });
    // The same text again is no new version.
    assert_eq!(session.sync(&file, "a = 4\n").expect("sent"), 4);
}

/// A crashed server is started again once, then its language is unavailable. Its stderr can
/// quote files (cargo quotes the TOML line it cannot parse): it is kept for the log, bounded,
/// and never in the reason.
#[test]
fn a_crashing_server_is_restarted_once_then_unavailable_its_stderr_kept_private() {
    let (_temp, root, pool) = stand_in("crash");
    let roots = Roots::new(&[&root]);
    let file = root.join("pkg/util.py");
    for _ in 0..2 {
        let session = pool.session(Language::Python, &root, &roots).expect("it starts");
        let answer = session.diagnostics(&file, "a = 1\n", START_WAIT);
        assert!(!matches!(answer.freshness, Freshness::Fresh { .. }), "{answer:?}");
        let shown = format!("{answer:?}");
        assert!(!shown.contains("AKIASECRET") && !shown.contains("crashed on purpose"), "{shown}");
        // The pool restarts a server it has seen stop: wait until the reader has seen the
        // crash, so that the next call counts a restart however the threads are scheduled.
        let deadline = std::time::Instant::now() + START_WAIT;
        while session.server().broken().is_none() {
            assert!(std::time::Instant::now() < deadline, "the crash is seen within the start wait");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    let error = pool.session(Language::Python, &root, &roots).expect_err("no third start");
    assert!(!error.to_string().contains("AKIASECRET"), "{error}");
    assert!(!error.to_string().contains("crashed on purpose"), "{error}");
    assert!(error.reason.contains("stderr"), "says where its stderr went: {error}");
    assert!(error.install.contains("basedpyright"), "{error}");
    let log = pool.last_stderr(Language::Python, &root).expect("kept for the log");
    assert!(log.contains("stand-in crashed on purpose"), "{log}");
}

#[test]
fn a_server_dying_at_start_keeps_its_stderr_out_of_the_reason() {
    let (_temp, root, pool) = stand_in("die");
    let error = pool.session(Language::Python, &root, &Roots::new(&[&root])).expect_err("it dies");
    assert!(!error.to_string().contains("AKIASECRET"), "{error}");
    assert!(error.reason.contains("stderr"), "says where its stderr went: {error}");
    let log = pool.last_stderr(Language::Python, &root).expect("kept for the log");
    assert!(log.contains("AKIASECRETSECRET123"), "{log}");
}

#[test]
fn the_pool_is_lazy_bounded_and_names_what_to_install() {
    let (_temp, root) = fixture("py");
    let (_other_temp, other) = fixture("py");
    let options =
        PoolOptions { path: Some(tools_path(&[])), start_wait: START_WAIT, max_servers: 1, ..PoolOptions::default() };
    let pool = Pool::new(options);
    assert!(pool.warm(Language::Python, &root).is_none(), "nothing runs before first use");
    assert_eq!(pool.running(), 0);
    pool.session(Language::Python, &root, &Roots::new(&[&root])).expect("starts");
    assert!(pool.warm(Language::Python, &root).is_some());
    pool.session(Language::Python, &other, &Roots::new(&[&other])).expect("starts");
    assert_eq!(pool.running(), 1, "the older server made room");
    assert!(pool.warm(Language::Python, &root).is_none());

    let empty = tempfile::tempdir().expect("a temp dir");
    let nothing = Pool::new(PoolOptions { path: Some(empty.path().as_os_str().to_owned()), ..PoolOptions::default() });
    let error = nothing.session(Language::TypeScript, &root, &Roots::new(&[&root])).expect_err("none on PATH");
    assert!(error.to_string().contains("typescript-language-server"), "{error}");
    assert!(error.install.contains("npm install"), "{error}");
}

/// Diagnostics are kept for the documents editkit opened only, and dropped when they close.
#[test]
fn diagnostics_for_files_never_opened_are_not_kept() {
    let (_temp, root, pool) = stand_in("others");
    let session = pool.session(Language::Python, &root, &Roots::new(&[&root])).expect("the stand-in starts");
    let file = root.join("pkg/util.py");
    assert_eq!(session.diagnostics(&file, "a = 1\n", START_WAIT).freshness, Freshness::Fresh { version: 1 });
    for n in [0, 500, 999] {
        let elsewhere = PathBuf::from(format!("/elsewhere/f{n}.py"));
        assert_eq!(session.server().published(&elsewhere), None, "{}", elsewhere.display());
    }
    assert!(session.server().published(&file).is_some());
    session.server().close(&file).expect("didClose");
    assert_eq!(session.server().published(&file), None);
}

/// What a server says reaches the model escaped and cut: no terminal escape (OSC 52, CSI 2J),
/// no bidi override, no 10,000-character `source`.
#[test]
fn diagnostics_are_escaped_and_cut() {
    let (_temp, root, pool) = stand_in("escape");
    let session = pool.session(Language::Python, &root, &Roots::new(&[&root])).expect("the stand-in starts");
    let answer = session.diagnostics(&root.join("pkg/util.py"), "a = 1\n", START_WAIT);
    assert_eq!(answer.freshness, Freshness::Fresh { version: 1 });
    let diagnostic = &answer.diagnostics[0];
    assert_eq!(diagnostic.message, "version 1\\u{1b}]52;c;aGk=\\u{7}\\u{1b}[2J\\u{202e}evil\nnext line");
    let source = diagnostic.source.as_deref().expect("a source");
    assert_eq!(source.chars().count(), editkit_lsp::MAX_SOURCE_CHARS + 1, "cut, with an ellipsis");
}

/// Runs `work` on a thread and gives its answer, failing the test when it takes more than
/// two minutes: a call that waits for another root's start would wait for good here.
fn within<T: Send + 'static>(what: &str, work: impl FnOnce() -> T + Send + 'static) -> T {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(work());
    });
    receiver.recv_timeout(Duration::from_secs(120)).unwrap_or_else(|_| panic!("{what} waited for a server's start"))
}

/// A server slow to start holds up no other root, no other language and no `warm`: the
/// stand-in answers `initialize` only once its root's `.gate` is gone, and the gate is
/// removed only after the other calls answered.
#[test]
fn a_server_slow_to_start_holds_up_no_other_root_language_or_warm() {
    let (temp, root, _) = stand_in("gate");
    let (_other_temp, other) = fixture("py");
    let (_rust_temp, rust) = fixture("rs");
    std::fs::write(root.join(".gate"), "").expect("close the gate");
    let bin = temp.path().join("stand-in-bin").canonicalize().expect("real path");
    let options = PoolOptions { path: Some(tools_path(&[&bin])), start_wait: START_WAIT, ..PoolOptions::default() };
    let pool = std::sync::Arc::new(Pool::new(options));
    let slow = {
        let (pool, root) = (std::sync::Arc::clone(&pool), root.clone());
        std::thread::spawn(move || pool.session(Language::Python, &root, &Roots::new(&[&root])).map(|_| ()))
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while pool.starting() == 0 {
        assert!(std::time::Instant::now() < deadline, "the slow start never began");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Another caller of the same server waits for that start, and gets its session.
    let same = {
        let (pool, root) = (std::sync::Arc::clone(&pool), root.clone());
        std::thread::spawn(move || pool.session(Language::Python, &root, &Roots::new(&[&root])))
    };
    let warm = {
        let (pool, root) = (std::sync::Arc::clone(&pool), root.clone());
        within("warm", move || pool.warm(Language::Python, &root).is_none())
    };
    assert!(warm, "nothing is warm while it starts");
    let other_root = {
        let (pool, other) = (std::sync::Arc::clone(&pool), other.clone());
        within("another root", move || pool.session(Language::Python, &other, &Roots::new(&[&other])).map(|_| ()))
    };
    other_root.expect("another root's server starts");
    let other_language = {
        let (pool, rust) = (std::sync::Arc::clone(&pool), rust.clone());
        within("another language", move || pool.session(Language::Rust, &rust, &Roots::new(&[&rust])).map(|_| ()))
    };
    other_language.expect("rust-analyzer starts");
    assert_eq!(pool.starting(), 1, "the gated server is still starting");
    std::fs::remove_file(root.join(".gate")).expect("open the gate");
    slow.join().expect("no panic").expect("the gated server starts");
    let same = same.join().expect("no panic").expect("the waiting caller gets the session");
    assert!(std::sync::Arc::ptr_eq(&same, &pool.warm(Language::Python, &root).expect("warm now")));
    assert_eq!((pool.starting(), pool.running()), (0, 3));
}

/// A caller waiting for another's start that fails gets that failure, without starting the
/// server again itself.
#[test]
fn a_caller_waiting_for_a_failed_start_gets_its_failure() {
    let (_temp, root, pool) = stand_in("die");
    let pool = std::sync::Arc::new(pool);
    let callers: Vec<_> = (0..3)
        .map(|_| {
            let (pool, root) = (std::sync::Arc::clone(&pool), root.clone());
            std::thread::spawn(move || pool.session(Language::Python, &root, &Roots::new(&[&root])).map(|_| ()))
        })
        .collect();
    for caller in callers {
        let error = caller.join().expect("no panic").expect_err("the server dies at start");
        assert!(error.reason.contains("stderr"), "{error}");
    }
    assert_eq!((pool.starting(), pool.running()), (0, 0));
}

/// A real server made slow by a proxy that holds back all it writes after the first change:
/// the wait passes and the answer says `timed_out` (with the version of what it has), never
/// an empty success; then two changes back to back (no wait between) give `fresh` for the
/// newest version, and a peek after one more says which version its diagnostics are for.
#[track_caller]
fn slow_server_is_never_passed_off_as_fresh(language: Language, first: &str, second: &str, third: &str) {
    let (_temp, root, path, file) = crate::support::slow_server(language);
    let pool = Pool::new(PoolOptions { path: Some(path), start_wait: START_WAIT, ..PoolOptions::default() });
    let session = pool.session(language, &root, &Roots::new(&[&root])).expect("the slow server starts");
    let file = root.join(file);
    let settled = session.diagnostics(&file, first, READY_WAIT);
    assert_eq!(settled.freshness, Freshness::Fresh { version: 1 }, "before any change nothing is held back");
    let wait = Duration::from_millis(500);
    let held = session.diagnostics(&file, second, wait);
    let Freshness::TimedOut { limit_ms, last_version, .. } = held.freshness else {
        panic!("a server held back {PROXY_DELAY_SECS} s gave {held:?} within {wait:?}")
    };
    assert_eq!(limit_ms, 500);
    // basedpyright publishes versioned diagnostics; tsserver's are asked for, rust-analyzer's
    // pulled: those say no version of their own.
    let published_versions = language == Language::Python;
    assert_eq!(last_version, published_versions.then_some(1), "{held:?}");
    // Two changes back to back, then the answer for the newest.
    assert_eq!(session.sync(&file, third).expect("sent"), 3);
    let newest = session.diagnostics(&file, second, READY_WAIT);
    assert_eq!(newest.freshness, Freshness::Fresh { version: 4 }, "{newest:?}; {}", session.server().stderr_tail());
    assert!(newest.diagnostics.iter().any(|d| d.severity == "error"), "the error of version 4: {newest:?}");
    assert_eq!(session.sync(&file, first).expect("sent"), 5);
    match session.peek_diagnostics(&file) {
        Some(peeked) if published_versions => {
            assert_eq!(peeked.freshness, Freshness::Stale { version: Some(4), current: 5 }, "{peeked:?}");
        }
        Some(peeked) => assert!(matches!(peeked.freshness, Freshness::Stale { current: 5, .. }), "{peeked:?}"),
        None => assert!(!published_versions, "the version-4 diagnostics were published"),
    }
}

#[test]
fn a_slow_python_server_gives_timed_out_then_fresh_for_the_newest_version() {
    let (_temp, root) = fixture("py");
    let text = std::fs::read_to_string(root.join("pkg/util.py")).expect("read");
    let broken = format!("{text}x: int = 'text'\n");
    slow_server_is_never_passed_off_as_fresh(Language::Python, &text, &broken, &format!("{text}\n"));
}

#[test]
fn a_slow_typescript_server_gives_timed_out_then_fresh_for_the_newest_version() {
    slow_server_is_never_passed_off_as_fresh(
        Language::TypeScript,
        "export const n: number = 1;\n",
        "export const n: number = 'x';\n",
        "export const n: number = 2;\n",
    );
}

#[test]
fn a_slow_rust_server_gives_timed_out_then_fresh_for_the_newest_version() {
    let (_temp, root) = fixture("rs");
    let text = std::fs::read_to_string(root.join("src/util.rs")).expect("read");
    let broken = format!("{text}fn broken( {{\n");
    slow_server_is_never_passed_off_as_fresh(Language::Rust, &text, &broken, &format!("{text}\n"));
}

/// One diagnostic lsp_types cannot read hides none of the others: they are shown, `fresh`,
/// and the odd one is counted in `omitted`.
#[test]
fn an_unreadable_diagnostic_is_counted_and_the_others_kept() {
    let (_temp, root, pool) = stand_in("badpub");
    let session = pool.session(Language::Python, &root, &Roots::new(&[&root])).expect("the stand-in starts");
    let file = root.join("pkg/util.py");
    let answer = session.diagnostics(&file, "a = 1\n", START_WAIT);
    assert_eq!(answer.freshness, Freshness::Fresh { version: 1 }, "{answer:?}");
    let messages: Vec<&str> = answer.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!((messages, answer.omitted), (vec!["version 1"], 1));
    let peeked = session.peek_diagnostics(&file).expect("open");
    assert_eq!((peeked.diagnostics.len(), peeked.omitted), (1, 1));
}

/// A publish whose list is not a list is no answer: never `fresh` with nothing.
#[test]
fn a_publish_that_is_not_a_list_is_unavailable_never_fresh_and_clean() {
    let (_temp, root, pool) = stand_in("notalist");
    let session = pool.session(Language::Python, &root, &Roots::new(&[&root])).expect("the stand-in starts");
    let answer = session.diagnostics(&root.join("pkg/util.py"), "a = 1\n", START_WAIT);
    let Freshness::Unavailable { reason, install } = &answer.freshness else { panic!("{answer:?}") };
    assert!(reason.contains("a string where its list of diagnostics belongs"), "{reason}");
    assert_eq!(install, "", "the server was found: nothing to install");
}

/// A server that stops while editkit waits is `unavailable` (it stopped), not `timed_out`,
/// and names nothing to install: it was found.
#[test]
fn a_server_that_stops_mid_wait_is_unavailable_not_timed_out() {
    let (_temp, root, pool) = stand_in("crash");
    let session = pool.session(Language::Python, &root, &Roots::new(&[&root])).expect("it starts");
    let answer = session.diagnostics(&root.join("pkg/util.py"), "a = 1\n", START_WAIT);
    let Freshness::Unavailable { reason, install } = &answer.freshness else { panic!("{answer:?}") };
    assert!(reason.contains("stopped"), "{reason}");
    assert!(!reason.contains("AKIASECRET"), "{reason}");
    assert_eq!(install, "", "{answer:?}");
}

/// tsserver answering `success: false` (`No Project`) is no answer: `unavailable`, with its
/// message; never `fresh` with nothing.
#[test]
fn a_failed_tsserver_answer_is_unavailable_never_fresh_and_clean() {
    let (_temp, root, pool) = typescript_stand_in("tsfail");
    let session = pool.session(Language::TypeScript, &root, &Roots::new(&[&root])).expect("the stand-in starts");
    let answer = session.diagnostics(&root.join("src/shape.ts"), "export const n = 1;\n", START_WAIT);
    let Freshness::Unavailable { reason, .. } = &answer.freshness else { panic!("{answer:?}") };
    assert!(reason.contains("No Project."), "{reason}");
}

/// tsserver items editkit cannot read are counted in `omitted`; the others are shown.
#[test]
fn an_unreadable_tsserver_item_is_counted_and_the_others_kept() {
    let (_temp, root, pool) = typescript_stand_in("tsodd");
    let session = pool.session(Language::TypeScript, &root, &Roots::new(&[&root])).expect("the stand-in starts");
    let answer = session.diagnostics(&root.join("src/shape.ts"), "export const n = 1;\n", START_WAIT);
    assert_eq!(answer.freshness, Freshness::Fresh { version: 1 }, "{answer:?}");
    // Two commands (syntactic, semantic), each one good item and one odd.
    let messages: Vec<&str> = answer.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!((messages, answer.omitted), (vec!["REAL ERROR", "REAL ERROR"], 2));
}

/// F2: a document closed (past MAX_OPEN_DOCUMENTS) and opened again never reuses a version,
/// so the server's late publish for the old text is never `fresh` for the new one.
#[test]
fn a_late_publish_for_a_closed_document_is_never_fresh_after_it_reopens() {
    let (_temp, root, pool) = stand_in("late");
    let session = pool.session(Language::Python, &root, &Roots::new(&[&root])).expect("the stand-in starts");
    let file = root.join("pkg/util.py");
    let first = session.diagnostics(&file, "OLD_TEXT = 1\n", Duration::from_millis(200));
    assert!(matches!(first.freshness, Freshness::TimedOut { .. }), "{first:?}");
    for n in 0..editkit_lsp::MAX_OPEN_DOCUMENTS {
        session.sync(&root.join(format!("other{n}.py")), "b = 1\n").expect("sent");
    }
    assert_eq!(session.version(&file), None, "the least recently used document was closed");
    let reopened = session.diagnostics(&file, "NEW_TEXT = 2\n", START_WAIT);
    let Freshness::Fresh { version } = reopened.freshness else { panic!("{reopened:?}") };
    assert!(version > 1, "the reopened document took version {version} again");
    assert_eq!(reopened.diagnostics[0].message, "for text: NEW_TEXT = 2", "{reopened:?}");
}

/// F18: the texts a session keeps (to check a rename's edits against) are bounded in bytes:
/// past MAX_SENT_TEXT_BYTES the least recently used documents are closed.
#[test]
fn the_texts_a_session_keeps_are_bounded_in_bytes() {
    let (_temp, root, pool) = stand_in("latest");
    let session = pool.session(Language::Python, &root, &Roots::new(&[&root])).expect("the stand-in starts");
    let text = format!("A = 1\n{}", "# pad\n".repeat(editkit_lsp::MAX_SENT_TEXT_BYTES / 4 / 6));
    let files: Vec<PathBuf> = (0..5).map(|n| root.join(format!("big{n}.py"))).collect();
    for file in &files {
        session.sync(file, &text).expect("sent");
    }
    let open: Vec<&PathBuf> = files.iter().filter(|file| session.version(file).is_some()).collect();
    assert!(open.len() * text.len() <= editkit_lsp::MAX_SENT_TEXT_BYTES, "{} kept", open.len());
    assert_eq!(open.last(), files.last().as_ref(), "the newest is kept");
    assert_eq!(session.version(&files[0]), None, "the oldest was closed");
}

/// F4: `max_servers` holds while servers are starting: with one allowed and one starting
/// (gated), a call for another root waits for it, and past its deadline says so instead of
/// starting a second server.
#[test]
fn max_servers_holds_while_a_server_is_starting() {
    let (temp, root, _) = stand_in("gate");
    let (_other_temp, other) = fixture("py");
    std::fs::write(root.join(".gate"), "").expect("close the gate");
    let bin = temp.path().join("stand-in-bin").canonicalize().expect("real path");
    let options = PoolOptions {
        path: Some(tools_path(&[&bin])),
        start_wait: START_WAIT,
        max_servers: 1,
        ..PoolOptions::default()
    };
    let pool = std::sync::Arc::new(Pool::new(options));
    let slow = {
        let (pool, root) = (std::sync::Arc::clone(&pool), root.clone());
        std::thread::spawn(move || pool.session(Language::Python, &root, &Roots::new(&[&root])).map(|_| ()))
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while pool.starting() == 0 {
        assert!(std::time::Instant::now() < deadline, "the slow start never began");
        std::thread::sleep(Duration::from_millis(20));
    }
    let soon = std::time::Instant::now() + Duration::from_millis(300);
    let refused = pool.session_by(Language::Python, &other, &Roots::new(&[&other]), soon).map(|_| ());
    let Err(unavailable) = refused else { panic!("a second server started past max_servers 1") };
    assert!(unavailable.reason.contains("max_servers"), "{}", unavailable.reason);
    assert_eq!(pool.starting() + pool.running(), 1);
    std::fs::remove_file(root.join(".gate")).expect("open the gate");
    slow.join().expect("no panic").expect("the gated server starts");
    // Now the running one is shut down to make room.
    pool.session(Language::Python, &other, &Roots::new(&[&other])).expect("the other root's server starts");
    assert_eq!(pool.running(), 1);
}
