//! Where each hunk landed reaches the result; `strict` places by exact text only; a stale `-`
//! line is refused, a drifted context line is not.

use editkit_matcher::{Alignment, Rung};
use editkit_patch::{ApplyOptions, apply};

use crate::support::workspace_with;

const CONFIG: &str = "[db]\nhost = \"localhost\"\nport = 5432\nuser = \"app\"\npool = 4\n";

#[test]
fn every_hunk_placement_is_in_the_result() {
    let (_tmp, workspace) = workspace_with(&[("c.toml", CONFIG)]);
    // The context line lost its quotes' spacing: whitespace drift, placed fuzzily.
    let patch = "*** Begin Patch\n*** Update File: c.toml\n@@\n host  =  \"localhost\"\n-port = 5432\n+port = 6000\n*** End Patch\n";
    let applied = apply(&workspace, patch, &ApplyOptions::default()).unwrap();
    let hunk = &applied.files[0].hunks[0];
    assert_eq!((hunk.hunk, hunk.line, hunk.last_line), (1, 2, 3));
    assert_eq!(hunk.rung, Rung::WhitespaceNormalised);
    assert!(hunk.is_fuzzy() && hunk.score < 1.0 && hunk.score > 0.8, "{hunk:?}");
    assert_eq!(hunk.alignment, Alignment::Aligned);
}

#[test]
fn strict_places_by_exact_text_only() {
    let (tmp, workspace) = workspace_with(&[("c.toml", CONFIG)]);
    let patch = "*** Begin Patch\n*** Update File: c.toml\n@@\n host  =  \"localhost\"\n-port = 5432\n+port = 6000\n*** End Patch\n";
    let err = apply(&workspace, patch, &ApplyOptions { strict: true, ..ApplyOptions::default() }).unwrap_err();
    assert_eq!(err.kind(), "not_found");
    assert_eq!(std::fs::read_to_string(tmp.path().join("c.toml")).unwrap(), CONFIG);
}

#[test]
fn a_stale_removed_line_is_refused_with_the_region_it_resembles() {
    let (tmp, workspace) = workspace_with(&[("c.toml", CONFIG)]);
    // The model deletes `port = 5433`; the file holds `port = 5432`.
    let patch = "*** Begin Patch\n*** Update File: c.toml\n@@\n [db]\n host = \"localhost\"\n-port = 5433\n+port = 6000\n user = \"app\"\n pool = 4\n*** End Patch\n";
    let err = apply(&workspace, patch, &ApplyOptions::default()).unwrap_err();
    assert_eq!(err.kind(), "not_found");
    let message = err.to_string();
    assert!(message.contains("lines 1-5 hold a similar block"), "{message}");
    assert!(
        message.contains("the change removes `port·=·5433` where line 3 of the file is `port·=·5432`"),
        "{message}"
    );
    assert_eq!(std::fs::read_to_string(tmp.path().join("c.toml")).unwrap(), CONFIG);
}

#[test]
fn a_misremembered_context_line_is_kept_as_the_file_has_it() {
    let (tmp, workspace) = workspace_with(&[("c.toml", CONFIG)]);
    let patch = "*** Begin Patch\n*** Update File: c.toml\n@@\n [db]\n host = \"127.0.0.1\"\n port = 5432\n user = \"app\"\n-pool = 4\n+pool = 8\n*** End Patch\n";
    let applied = apply(&workspace, patch, &ApplyOptions::default()).unwrap();
    assert_eq!(std::fs::read_to_string(tmp.path().join("c.toml")).unwrap(), CONFIG.replace("pool = 4", "pool = 8"));
    assert_eq!(applied.files[0].hunks[0].rung, Rung::BlockAnchor);
}

#[test]
fn a_context_line_the_hunk_leaves_out_is_kept() {
    let body: String = (1..=9).map(|k| format!("    step_{k}(context, options)\n")).collect();
    let file = format!("def run(context, options):\n{body}    return context\n");
    let (tmp, workspace) = workspace_with(&[("r.py", &file)]);
    let context: String = (1..=9).filter(|k| *k != 4).map(|k| format!("     step_{k}(context, options)\n")).collect();
    let patch = format!(
        "*** Begin Patch\n*** Update File: r.py\n@@\n def run(context, options):\n{context}-    return context\n+    return options\n*** End Patch\n"
    );
    let applied = apply(&workspace, &patch, &ApplyOptions::default()).unwrap();
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("r.py")).unwrap(),
        file.replace("return context", "return options")
    );
    let hunk = &applied.files[0].hunks[0];
    assert_eq!((hunk.rung, hunk.alignment), (Rung::BlockAnchor, Alignment::Merged));
}

#[test]
fn a_hunk_before_the_previous_one_is_reported_out_of_order() {
    let (tmp, workspace) = workspace_with(&[("c.toml", CONFIG)]);
    let patch = "*** Begin Patch\n*** Update File: c.toml\n@@\n-pool = 4\n+pool = 8\n@@\n-port = 5432\n+port = 6000\n*** End Patch\n";
    let err = apply(&workspace, patch, &ApplyOptions::default()).unwrap_err();
    assert_eq!(err.kind(), "not_found");
    assert!(err.to_string().contains("hunk lines found at line 3, before the previous hunk"), "{err}");
    assert_eq!(std::fs::read_to_string(tmp.path().join("c.toml")).unwrap(), CONFIG);
}

/// Codex's `test_pure_addition_chunk_followed_by_removal`: a chunk of `+` lines alone names no
/// place, so it goes at the end whatever its rank, and the chunk after it is searched in the
/// whole file: no order problem is reported where there is none.
#[test]
fn a_pure_addition_without_a_place_goes_at_the_end_and_the_next_chunk_is_found_before_it() {
    let (tmp, workspace) = workspace_with(&[("panic.txt", "line1\nline2\nline3\n")]);
    let patch = "*** Begin Patch\n*** Update File: panic.txt\n@@\n+after-context\n+second-line\n@@\n line1\n-line2\n-line3\n+line2-replacement\n*** End Patch\n";
    let applied = apply(&workspace, patch, &ApplyOptions::default()).unwrap();
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("panic.txt")).unwrap(),
        "line1\nline2-replacement\nafter-context\nsecond-line\n"
    );
    // Reported in patch order, each at the line it landed on.
    let hunks: Vec<(usize, usize)> = applied.files[0].hunks.iter().map(|h| (h.hunk, h.line)).collect();
    assert_eq!(hunks, [(1, 3), (2, 1)]);
}

/// An anchored addition lands right after its anchor (Codex puts it at the end), so a chunk
/// standing before the anchor afterwards is out of order, and said so.
#[test]
fn a_chunk_before_an_anchored_addition_is_out_of_order() {
    let file = "def f():\n    return 0\n\ndef g():\n    return 1\n";
    let (tmp, workspace) = workspace_with(&[("m.py", file)]);
    let patch = "*** Begin Patch\n*** Update File: m.py\n@@ def g():\n+    \"\"\"Doc.\"\"\"\n@@\n def f():\n-    return 0\n+    return 2\n*** End Patch\n";
    let err = apply(&workspace, patch, &ApplyOptions::default()).unwrap_err();
    assert!(err.to_string().contains("hunk lines found at line 1, before the previous hunk"), "{err}");
    assert_eq!(std::fs::read_to_string(tmp.path().join("m.py")).unwrap(), file);
}

/// OpenCode's patch tests: a file in NFD and a `-` line in NFC are the same text; the hunk is
/// placed on the canonical-equivalence rung, reported as such, and its new lines take the
/// file's form.
#[test]
fn a_hunk_in_the_other_normalisation_form_is_placed_and_reported_as_canonical() {
    let nfd = |text: &str| text.replace('й', "и\u{306}");
    let (tmp, workspace) = workspace_with(&[("geo.txt", &nfd("Район: Астана\n"))]);
    let patch = "*** Begin Patch\n*** Update File: geo.txt\n@@\n-Район: Астана\n+Район: Есиль\n*** End Patch\n";
    let applied = apply(&workspace, patch, &ApplyOptions::default()).unwrap();
    let hunk = &applied.files[0].hunks[0];
    assert_eq!((hunk.rung, hunk.score), (Rung::CanonicalEquivalent, 1.0));
    assert_eq!(std::fs::read_to_string(tmp.path().join("geo.txt")).unwrap(), nfd("Район: Есиль\n"));
    // A ligature in a `-` line is a compatibility form, not the file's text.
    let (_tmp, workspace) = workspace_with(&[("o.txt", "office\n")]);
    let patch = "*** Begin Patch\n*** Update File: o.txt\n@@\n-o\u{FB01}ce\n+x\n*** End Patch\n";
    assert_eq!(apply(&workspace, patch, &ApplyOptions::default()).unwrap_err().kind(), "not_found");
}
