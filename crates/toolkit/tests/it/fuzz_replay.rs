//! Replays every committed fuzz input (`fixtures/fuzz/<target>/`) through the same code the
//! libFuzzer targets run, on the stable toolchain.

use crate::fuzz_targets as targets;

use crate::support::fixtures;

type Target = (&'static str, fn(&[u8]));

fn replay(target: &str, run: fn(&[u8])) -> usize {
    let dir = fixtures().join("fuzz").join(target);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let outcome = std::panic::catch_unwind(|| run(&bytes));
        assert!(outcome.is_ok(), "fuzz input {} fails again", path.display());
        n += 1;
    }
    n
}

#[test]
fn every_committed_fuzz_input_replays_cleanly() {
    let targets: &[Target] = &[
        ("codec", targets::codec),
        ("encodings", targets::encodings),
        ("paths", targets::paths),
        ("call", targets::call),
        ("json", targets::json),
        ("notebook", targets::notebook),
        ("matcher", targets::matcher),
        ("analyze", targets::analyze),
        ("patch", targets::patch),
        ("search", targets::search),
    ];
    let dirs: Vec<String> = std::fs::read_dir(fixtures().join("fuzz"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    for dir in &dirs {
        assert!(targets.iter().any(|(name, _)| name == dir), "fixtures/fuzz/{dir} has no replay target");
    }
    for (name, run) in targets {
        assert!(replay(name, *run) > 0, "no committed inputs for {name}");
    }
}
