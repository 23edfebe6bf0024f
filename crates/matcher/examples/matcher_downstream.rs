//! editkit-matcher alone: a drifted edit lands, an ambiguous one is refused. `cargo run -p editkit-matcher --example matcher_downstream`
use editkit_matcher::{MatchOptions, replace};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let file = "def total(items):\n    return sum(items)\n";
    // The agent indented with two spaces: the ladder still finds the block, and re-indents.
    let (old, new) = ("def total(items):\n  return sum(items)\n", "def total(items):\n  return sum(items) + 1\n");
    let edited = replace(file, old, new, &MatchOptions::default())?;
    assert_eq!(edited.text(), "def total(items):\n    return sum(items) + 1\n");
    println!("landed on the {} rung", edited.rung().as_str());
    let twice = "x = 1\nx = 1\n";
    let err = replace(twice, "x = 1", "x = 2", &MatchOptions::default()).err().ok_or("two places must be refused")?;
    assert_eq!(err.kind(), "ambiguous");
    println!("refused: {err}");
    Ok(())
}
