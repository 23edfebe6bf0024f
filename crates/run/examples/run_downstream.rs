//! editkit-run alone: a program found outside the roots, run contained on a text. `cargo run -p editkit-run --example run_downstream`
use std::path::Path;
use std::time::Duration;

use editkit_run::{ExternalTool, Roots, find_program, run_tool};

fn main() {
    let roots = Roots::new(&[Path::new(".")]);
    match find_program("tr", &roots) {
        Ok(found) => println!("tr is {}", found.path.display()),
        Err(why) => println!("tr: {why}"),
    }
    let upper = ExternalTool::new("upper", &["tr", "a-z", "A-Z"]);
    let ran = run_tool(&upper, &roots, "notes.txt", "hello\n", Duration::from_secs(10), 1 << 20);
    println!("confinement: {:?}", ran.confinement);
    match ran.outcome {
        Ok(done) => print!("exit {}: {}", done.code, String::from_utf8_lossy(&done.stdout)),
        Err(why) => println!("not run: {why}"),
    }
}
