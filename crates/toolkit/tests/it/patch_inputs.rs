//! Bad input never panics: the body of the `patch` fuzz target (`fuzz/src/lib.rs`, shared with
//! libFuzzer) run on every truncation and line deletion of the patch corpus and on generated
//! patch-like text. It lives here, not in editkit-patch, because the fuzz bodies sit above the
//! facade.

use proptest::prelude::*;

use crate::fuzz_targets::patch;
use crate::support::fixtures;

#[test]
fn every_truncation_and_line_deletion_of_the_corpus_is_handled() {
    let corpus = fixtures().join("patches");
    let mut inputs = 0;
    let mut truncations_refused = 0;
    for case in std::fs::read_dir(corpus).unwrap() {
        let Ok(input) = std::fs::read(case.unwrap().path().join("input")) else { continue };
        let text = String::from_utf8_lossy(&input).into_owned();
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        // A Codex patch cut anywhere before its `*** End Patch` is refused as incomplete.
        let codex = text.trim_start().starts_with("*** Begin Patch");
        for cut in 0..=lines.len() {
            let prefix = lines[..cut].concat();
            if codex && prefix.trim_end() != text.trim_end() {
                assert!(editkit::patch::parse(&prefix).is_err(), "a cut-off patch was accepted: {prefix:?}");
                truncations_refused += 1;
            }
            patch(prefix.as_bytes());
            let mut without = lines.clone();
            if cut < without.len() {
                without.remove(cut);
                patch(without.concat().as_bytes());
            }
            inputs += 2;
        }
        for cut in (0..input.len()).step_by(7) {
            patch(&input[..cut]);
            inputs += 1;
        }
    }
    assert!(inputs > 1000, "{inputs}");
    assert!(truncations_refused > 200, "{truncations_refused}");
}

#[test]
fn long_runs_of_empty_lines_are_linear() {
    let blank = "\n".repeat(100_000);
    let started = std::time::Instant::now();
    for text in [
        format!("*** Begin Patch\n*** Update File: a.txt\n-one\n{blank}+1\n*** End Patch\n"),
        format!("*** Begin Patch\n*** Update File: a.txt\n-one\n+1\n{blank}*** End Patch\n"),
        format!("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+1\n{blank} x\n"),
        format!("--- a/a.txt\n+++ b/a.txt\n@@\n-one\n+1\n{blank}"),
        format!("*** Update File: a.txt\n@@\none\n===\n1\n{blank}"),
    ] {
        patch(text.as_bytes());
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "{:?}", started.elapsed());
}

fn patch_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("*** Begin Patch".to_owned()),
        Just("*** End Patch".to_owned()),
        Just("*** Update File: a.txt".to_owned()),
        Just("*** Update File: src/lib.rs".to_owned()),
        Just("*** Update File: u16.txt".to_owned()),
        Just("*** Add File: n.txt".to_owned()),
        Just("*** Delete File: bin.dat".to_owned()),
        Just("*** Move to: m.txt".to_owned()),
        Just("*** End of File".to_owned()),
        Just("@@".to_owned()),
        Just("===".to_owned()),
        Just("--- a/a.txt".to_owned()),
        Just("+++ b/a.txt".to_owned()),
        Just("--- /dev/null".to_owned()),
        Just("diff --git a/a.txt b/b.txt".to_owned()),
        Just("rename from a.txt".to_owned()),
        Just("\\ No newline at end of file".to_owned()),
        Just(String::new()),
        (0usize..5, 0usize..5).prop_map(|(a, b)| format!("@@ -{a},{b} +{b},{a} @@")),
        "[ +-]?(one|two|three|    println!\\(\"hi\"\\);|\\}|é|\t)".prop_map(|s| s),
        "@@ [a-z ():]{0,12}".prop_map(|s| s),
        ".{0,20}".prop_map(|s| s),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn generated_patch_text_never_panics(lines in proptest::collection::vec(patch_line(), 0..40), crlf in any::<bool>()) {
            let text = lines.join(if crlf { "\r\n" } else { "\n" });
        patch(text.as_bytes());
    }
}
