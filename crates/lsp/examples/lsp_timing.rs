//! Times the language servers on the fixtures of `fixtures/lsp`: the first complete
//! `references` answer from a cold start (spawn, initialize, readiness, request), the median
//! of 30 warm ones, and a rename request with its edits checked. One run, printed; servers
//! are looked up on this process's PATH (put `target/lsp-tools/venv/bin` and
//! `target/lsp-tools/npm/node_modules/.bin` first).
//!
//! `cargo run -p editkit-lsp --example lsp_timing`

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use editkit_lsp::lsp_types::Position;
use editkit_lsp::{Language, Pool, PoolOptions, rename_edits};
use editkit_run::Roots;

fn copy(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            copy(&entry.path(), &to.join(entry.file_name()))?;
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name()))?;
        }
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/lsp");
    let wait = Duration::from_secs(240);
    println!(
        "| server | cold references (spawn → complete answer) | warm references (median of 30) | rename request + checked edits |"
    );
    println!("|---|---|---|---|");
    for (name, language, file, at, old, new) in [
        ("py", Language::Python, "pkg/util.py", (0, 4), "compute_total", "sum_items"),
        ("ts", Language::TypeScript, "src/shape.ts", (1, 2), "area", "size"),
        ("rs", Language::Rust, "src/util.rs", (0, 7), "compute_total", "add_up"),
    ] {
        let temp = tempfile::tempdir()?;
        let root: PathBuf = temp.path().canonicalize()?.join(name);
        copy(&fixtures.join(name), &root)?;
        let pool = Pool::new(PoolOptions { start_wait: wait, ..PoolOptions::default() });
        let path = root.join(file);
        let position = Position { line: at.0, character: at.1 };
        let started = Instant::now();
        let session = pool.session(language, &root, &Roots::new(&[&root]))?;
        session.sync(&path, &std::fs::read_to_string(&path)?)?;
        if !session.server().wait_ready(wait) {
            return Err(format!("{} never became ready", language.as_str()).into());
        }
        let cold_found = session.server().references(&path, position, wait)?.len();
        let cold = started.elapsed();
        let mut warm = Vec::new();
        for _ in 0..30 {
            let at = Instant::now();
            session.server().references(&path, position, wait)?;
            warm.push(at.elapsed());
        }
        warm.sort();
        let at = Instant::now();
        let edit = session.server().rename(&path, position, new, wait)?.ok_or("no rename")?;
        let files = rename_edits(&edit, &root, old, new, session.server().encoding(), |p| {
            // editkit reads through its vfs; this example reads the fixture directly.
            session.rename_text(p, std::fs::read_to_string(p).map_err(|e| e.to_string())?)
        })?;
        let rename = at.elapsed();
        println!(
            "| {} | {:.0} ms ({cold_found} found) | {:.2} ms | {:.1} ms ({} files) |",
            language.as_str(),
            cold.as_secs_f64() * 1e3,
            warm[15].as_secs_f64() * 1e3,
            rename.as_secs_f64() * 1e3,
            files.len()
        );
    }
    Ok(())
}
