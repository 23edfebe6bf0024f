//! editkit-analyze alone: kind, symbols and syntax of a source text. `cargo run -p editkit-analyze --example analyze_downstream`
use editkit_analyze::{FileKind, check_syntax, detect, symbols};

fn main() -> Result<(), editkit_analyze::Error> {
    let source = "class Cart:\n    def total(self):\n        return 0\n";
    let kind = detect("cart.py", source);
    assert_eq!(kind, FileKind::Python);
    for symbol in symbols(kind, source)? {
        println!("{} at line {} (in {:?})", symbol.name, symbol.line, symbol.parent);
    }
    let broken = check_syntax(kind, "def total(:\n    pass\n")?;
    assert!(!broken.valid);
    println!("syntax error: {}", broken.errors[0].message);
    Ok(())
}
