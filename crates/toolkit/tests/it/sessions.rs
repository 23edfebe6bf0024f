//! Editor sessions are bounded in number and bytes; the least recently used are evicted, and a
//! call on an evicted session says so and which file to load again.

use serde_json::{Value, json};

use crate::support::Env;

/// Text of about `bytes` bytes, in numbered lines.
fn large_text(bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 64);
    let mut n = 0;
    while text.len() < bytes {
        text.push_str(&format!("line {n:08} of a large file, padded to a realistic length\n"));
        n += 1;
    }
    text
}

fn load(env: &Env, path: &str) -> Value {
    env.ok("editor_load", json!({"path": path}))["session_id"].clone()
}

#[track_caller]
fn assert_evicted(env: &Env, id: &Value, path: &str) -> Value {
    let refused = env.refused("editor_read", json!({"session_id": id}), "not_found");
    assert_eq!(refused["error"]["evicted"], true, "{refused:#}");
    assert_eq!(refused["error"]["session_id"], *id);
    assert_eq!(refused["error"]["path"], path);
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("evicted") && message.contains("editor_load") && message.contains(path), "{message}");
    refused
}

#[test]
fn twenty_sessions_of_a_large_file_stay_within_the_byte_bound() {
    let env = Env::new();
    let text = large_text(8 << 20);
    env.put("big.txt", text.as_bytes());
    let mut ids = Vec::new();
    for _ in 0..20 {
        ids.push(load(&env, "big.txt"));
        let usage = env.toolkit.session_usage();
        assert!(usage.bytes <= usage.max_bytes, "{usage:?}");
        assert!(usage.sessions <= usage.max_sessions, "{usage:?}");
    }
    let usage = env.toolkit.session_usage();
    assert_eq!(usage.max_bytes, editkit::DEFAULT_MAX_SESSION_BYTES);
    // Each session holds its buffer and the loaded text: 2 × 8 MiB, so 8 fit in 128 MiB.
    let per_session = 2 * text.len() as u64;
    assert_eq!(usage.sessions as u64, editkit::DEFAULT_MAX_SESSION_BYTES / per_session);
    assert_eq!(usage.bytes, usage.sessions as u64 * per_session);
    assert_eq!(usage.evicted, 20 - usage.sessions as u64);
    // The oldest were evicted; the newest still answer.
    for id in &ids[..20 - usage.sessions] {
        assert_evicted(&env, id, "big.txt");
    }
    for id in &ids[20 - usage.sessions..] {
        let read = env.ok("editor_read", json!({"session_id": id, "offset": 2, "limit": 1}));
        assert_eq!(read["content"], "line 00000001 of a large file, padded to a realistic length\n");
    }
    // Closing a session gives its bytes back.
    env.ok("editor_clear", json!({"session_id": ids[19]}));
    assert_eq!(env.toolkit.session_usage().bytes, (usage.sessions as u64 - 1) * per_session);
}

#[test]
fn the_session_count_is_bounded_and_the_least_recently_used_goes_first() {
    let env = Env::with_options(editkit::ToolkitOptions { max_sessions: 3, ..Default::default() });
    for name in ["a.txt", "b.txt", "c.txt", "d.txt", "e.txt"] {
        env.put(name, format!("{name}\n").as_bytes());
    }
    let a = load(&env, "a.txt");
    let b = load(&env, "b.txt");
    let c = load(&env, "c.txt");
    // `b` gets unstored changes, then `a` and `c` are used: `b` is the least recently used.
    env.ok("editor_write", json!({"session_id": b, "text": "changed\n"}));
    env.ok("editor_read", json!({"session_id": a}));
    env.ok("editor_read", json!({"session_id": c}));
    let d = load(&env, "d.txt");
    let refused = assert_evicted(&env, &b, "b.txt");
    assert_eq!(refused["error"]["unstored_changes_lost"], true);
    assert!(refused["error"]["message"].as_str().unwrap().contains("lost"));
    for id in [&c, &a, &d] {
        env.ok("editor_read", json!({"session_id": id}));
    }
    assert_eq!(env.toolkit.session_usage().sessions, 3);
    // `c` is now the least recently used.
    let _e = load(&env, "e.txt");
    let refused = assert_evicted(&env, &c, "c.txt");
    assert_eq!(refused["error"]["unstored_changes_lost"], false);
    let cleared = env.refused("editor_clear", json!({"session_id": c}), "not_found");
    assert_eq!(cleared["error"]["evicted"], true);
    // An id never opened is still the plain error.
    let unknown = env.refused("editor_read", json!({"session_id": "s999"}), "not_found");
    assert_eq!(unknown["error"].get("evicted"), None);
    // Nothing was written by the eviction.
    assert_eq!(env.get("b.txt"), "b.txt\n");
}

#[test]
fn a_session_too_large_on_its_own_is_refused_and_changes_nothing() {
    let env = Env::with_options(editkit::ToolkitOptions { max_session_bytes: 1_000, ..Default::default() });
    env.put("big.txt", "x".repeat(600).as_bytes());
    env.put("small.txt", b"small\n");
    let refused = env.refused("editor_load", json!({"path": "big.txt"}), "too_large");
    assert_eq!(refused["error"]["limit"], "Options::max_session_bytes");
    assert_eq!(refused["error"]["limit_bytes"], 1_000);
    assert_eq!(refused["error"]["size_bytes"], 1_200);
    assert_eq!(env.toolkit.session_usage().sessions, 0);

    let id = load(&env, "small.txt");
    let refused = env.refused("editor_write", json!({"session_id": id, "text": "y".repeat(995)}), "too_large");
    assert!(refused["error"]["message"].as_str().unwrap().contains("max_session_bytes"), "{refused:#}");
    let edit = json!({"session_id": id, "old": "small", "new": "z".repeat(995)});
    env.refused("editor_edit", edit, "too_large");
    assert_eq!(env.ok("editor_read", json!({"session_id": id}))["content"], "small\n");
    assert_eq!(env.toolkit.session_usage().bytes, 12);
}

/// A toolkit on `env`'s workspace and state folder that keeps its editor sessions there.
fn sharing(env: &Env, options: editkit::ToolkitOptions) -> editkit::Toolkit {
    let toolkit = editkit::Toolkit::open(env.dir.path(), options).unwrap();
    toolkit.share_editor_sessions();
    toolkit
}

fn call(toolkit: &editkit::Toolkit, tool: &str, args: Value) -> Value {
    editkit::tools::call(toolkit, tool, args)
}

#[test]
fn a_shared_session_keeps_the_encoding_bom_and_each_line_ending_across_toolkits() {
    let env = Env::new();
    // A legacy single-byte encoding and a UTF-8 BOM, each with mixed line endings.
    let french = "Le café était très élégant, à côté de la fenêtre où l'été brûlait.\r\n";
    let latin = editkit::vfs::Encoding::for_label("windows-1252").unwrap();
    let latin_text = |middle: &str| latin.encode(&format!("{french}{middle}\n{french}{french}"), false).unwrap();
    env.put("latin.txt", &latin_text("two"));
    env.put("bom.txt", b"\xEF\xBB\xBFone\r\ntwo\nthree\r\n");
    for (path, expected) in [("latin.txt", &latin_text("2")[..]), ("bom.txt", &b"\xEF\xBB\xBFone\r\n2\nthree\r\n"[..])]
    {
        let first = sharing(&env, Default::default());
        let loaded = call(&first, "editor_load", json!({"path": path}));
        let handle = loaded["session_id"].clone();
        assert!(handle.as_str().is_some_and(|h| h.starts_with('e')), "{loaded}");
        // Another toolkit (a later request) edits; the first stores.
        let second = editkit::Toolkit::open(env.dir.path(), Default::default()).unwrap();
        let edited =
            call(&second, "editor_edit", json!({"session_id": handle, "old_string": "two", "new_string": "2"}));
        assert_eq!(edited["ok"], true, "{edited}");
        let stored = call(&first, "editor_store", json!({"session_id": handle}));
        assert_eq!(stored["ok"], true, "{stored}");
        let bytes = std::fs::read(env.dir.path().join(path)).unwrap();
        assert_eq!(bytes, expected, "{path}");
    }
}

#[test]
fn shared_sessions_are_bounded_in_count_and_a_busy_one_refuses_a_second_change() {
    let env = Env::new();
    for name in ["a.txt", "b.txt", "c.txt"] {
        env.put(name, format!("{name}\n").as_bytes());
    }
    let options = editkit::ToolkitOptions { max_sessions: 2, ..Default::default() };
    let toolkit = sharing(&env, options);
    let handles: Vec<Value> = ["a.txt", "b.txt", "c.txt"]
        .iter()
        .map(|path| call(&toolkit, "editor_load", json!({"path": path}))["session_id"].clone())
        .collect();
    // Three loads over a bound of two: one older record is gone (the least recently changed,
    // as far as the file system's change times tell apart loads in one tick), and a call on it
    // is refused naming its file; the one just loaded stays.
    let mut gone = Vec::new();
    for (handle, path) in handles.iter().zip(["a.txt", "b.txt", "c.txt"]) {
        let read = call(&toolkit, "editor_read", json!({"session_id": handle}));
        if read["ok"] == false {
            assert_eq!(
                (read["error"]["kind"].as_str(), read["error"]["expired"].as_bool()),
                (Some("not_found"), Some(true))
            );
            let message = read["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains(&format!("load `{path}` again with editor_load")), "{message}");
            gone.push(path);
        }
    }
    assert!(gone.len() == 1 && gone[0] != "c.txt", "{gone:?}");
    let live = if gone[0] == "b.txt" { &handles[0] } else { &handles[1] };
    let live_path = if gone[0] == "b.txt" { "a.txt" } else { "b.txt" };
    let state = env.toolkit.workspaces()[0].state_dir().join("editor");
    let mut records: Vec<String> =
        std::fs::read_dir(&state).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    records.sort();
    assert_eq!(records.len(), 2, "{records:?}");
    // The records are the owner's alone.
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&state).unwrap().permissions().mode() & 0o777, 0o700);
    for record in &records {
        assert_eq!(std::fs::metadata(state.join(record)).unwrap().permissions().mode() & 0o777, 0o600);
    }
    // A call that is changing `b` holds its record (renamed `.busy`); a second change is
    // refused as busy, and a read still answers.
    let handle = live.as_str().unwrap();
    let key = &handle[1..33];
    std::fs::rename(state.join(key), state.join(format!("{key}.busy"))).unwrap();
    let busy = call(&toolkit, "editor_edit", json!({"session_id": handle, "old_string": "t", "new_string": "T"}));
    assert_eq!(
        (busy["error"]["kind"].as_str(), busy["error"]["busy"].as_bool()),
        (Some("stale"), Some(true)),
        "{busy}"
    );
    let read = call(&toolkit, "editor_read", json!({"session_id": handle}));
    assert_eq!(read["content"], format!("{live_path}\n"), "{read}");
    std::fs::rename(state.join(format!("{key}.busy")), state.join(key)).unwrap();
    let edited =
        call(&toolkit, "editor_edit", json!({"session_id": handle, "old_string": live_path, "new_string": "B"}));
    assert_eq!(edited["ok"], true, "{edited}");
    // A refused change leaves the session as it was.
    let refused = call(&toolkit, "editor_edit", json!({"session_id": handle, "old_string": "zzz", "new_string": "y"}));
    assert_eq!(refused["ok"], false, "{refused}");
    assert_eq!(call(&toolkit, "editor_read", json!({"session_id": handle}))["content"], "B\n");
    assert_eq!(env.get(live_path), format!("{live_path}\n"));
}
