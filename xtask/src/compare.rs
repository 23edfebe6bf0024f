//! `cargo xtask compare`: editkit head to head with the incumbent edit tools.
//!
//! Builds the release `editkit` binary, then hands over to `xtask/compare/compare.py`, which
//! installs the incumbents (PraisonAI's edit tools, and Aider's matcher where it installs) in
//! throwaway virtualenvs under `target/`, runs the same edit corpus, drift set and patches
//! through each of them and through `editkit call --jsonl`, prints the tables and writes
//! `target/compare/report.md`. Needs `python3` (3.11+, standard library only), and PyPI for
//! the first run. See `xtask/compare/README.md` for what is compared and how it is judged.

use anyhow::{Context, Result};

use crate::cmd::{run, workspace_root};

/// Runs the comparison; `args` go to compare.py (`--no-aider`, `--big-reps 15`, ...).
pub(crate) fn compare(args: &[String]) -> Result<()> {
    run("cargo", &["build", "--release", "-p", "editkit-cli"])?;
    // The binary is in the shared target dir, which CARGO_TARGET_DIR may move.
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| workspace_root().join("target"), Into::into);
    let editkit = target.join("release").join(format!("editkit{}", std::env::consts::EXE_SUFFIX));
    let editkit = editkit.to_str().context("the target dir path is not UTF-8")?;
    let mut python_args = vec!["xtask/compare/compare.py", "--editkit", editkit];
    python_args.extend(args.iter().map(String::as_str));
    run("python3", &python_args)
}
