//! `editkit demo` runs with no arguments and shows every promised step.

use super::{run, stderr, stdout};

#[test]
fn demo_walks_through_every_step() {
    let output = run(&["demo"], "");
    let out = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{out}\n{}", stderr(&output));
    for expected in [
        "sha256",
        "class Cart  lines",
        "(matched ignoring indentation and spaces at line ends, similarity",
        "refused (ambiguous)",
        "  15 │         self.changed = True",
        "already applied (line 13)",
        "patched 3 files",
        "+DISCOUNTS = {\"SAVE10\": 0.10, \"SAVE20\": 0.20}",
        "error (not_found): the patch does not apply, nothing was changed",
        "✓ shop/cart.py unchanged",
        "✓ shop/discounts.py unchanged",
        "refused (stale)",
        "read_file ../../../etc/passwd    refused (outside_workspace)",
        "read_file .env                   refused (blocked)",
        "Done.",
    ] {
        assert!(out.contains(expected), "missing {expected:?} in:\n{out}");
    }
    assert!(!out.contains('\x1b'), "no colour when piped");
}
