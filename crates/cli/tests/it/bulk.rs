//! 10,000 edit calls through one `editkit call --jsonl` process.

use std::time::Instant;

use super::{json_lines, read, root_arg, run, workspace};

#[test]
fn ten_thousand_edits_through_one_process() {
    const CALLS: usize = 10_000;
    let dir = workspace(&[("counter.txt", "header\nvalue = 0\nfooter\n")]);
    let mut input = String::new();
    for idx in 0..CALLS {
        let call = serde_json::json!({
            "id": idx,
            "tool": "edit_file",
            "args": {"path": "counter.txt", "old_string": format!("value = {idx}"), "new_string": format!("value = {}", idx + 1)},
        });
        input.push_str(&call.to_string());
        input.push('\n');
    }
    let started = Instant::now();
    let output = run(&["call", "--jsonl", "--root", &root_arg(dir.path())], input);
    let elapsed = started.elapsed();
    assert_eq!(output.status.code(), Some(0), "{}", super::stderr(&output));
    let results = json_lines(&output);
    assert_eq!(results.len(), CALLS);
    for (idx, result) in results.iter().enumerate() {
        assert_eq!(result["ok"], true, "call {idx}: {result}");
        assert_eq!(result["id"], idx, "results come back in order");
        assert_eq!(result["rung"], "exact");
    }
    assert_eq!(read(dir.path(), "counter.txt"), format!("header\nvalue = {CALLS}\nfooter\n"));
    // Measured, not asserted: the machine's disk decides (each edit is an atomic, fsynced write).
    println!(
        "{CALLS} edit calls through one `editkit call --jsonl` process in {:.2?}: {:.0} calls/second",
        elapsed,
        CALLS as f64 / elapsed.as_secs_f64()
    );
}
