//! Median time of read+hash and of atomic write through a workspace, for files named on the
//! command line. `cargo xtask bench vfs` runs it beside `cat FILE | sha256sum` and `cp`.
//!
//! Usage: `throughput DIR RUNS FILE...` (files relative to DIR); prints
//! `FILE read_ns write_ns` per file.

use std::time::Instant;

use editkit_vfs::{Workspace, WriteOptions};

fn median(mut samples: Vec<u128>) -> u128 {
    samples.sort_unstable();
    samples.get(samples.len() / 2).copied().unwrap_or(0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, runs, files @ ..] = args.as_slice() else {
        return Err("usage: throughput DIR RUNS FILE...".into());
    };
    let runs: usize = runs.parse()?;
    let workspace = Workspace::builder(dir, editkit_vfs::ambient_authority()).max_read_bytes(1 << 30).open()?;
    let options = WriteOptions { force: true, ..Default::default() };
    for file in files {
        let content = workspace.read_bytes(file)?;
        let copy = format!("{file}.copy");
        let mut reads = Vec::new();
        let mut writes = Vec::new();
        for _ in 0..runs {
            let start = Instant::now();
            let text = workspace.read(file)?;
            std::hint::black_box(text.sha256());
            reads.push(start.elapsed().as_nanos());
            let start = Instant::now();
            workspace.write(&copy, &content, &options)?;
            writes.push(start.elapsed().as_nanos());
        }
        workspace.delete(&copy)?;
        println!("{file} {} {}", median(reads), median(writes));
    }
    Ok(())
}
