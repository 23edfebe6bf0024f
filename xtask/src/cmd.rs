//! Running commands in the workspace root: what every task uses, a leaf module.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// The workspace's root folder.
pub(crate) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_owned).unwrap_or_else(|| PathBuf::from("."))
}

/// Runs a command in the workspace root, failing on a non-zero exit.
pub(crate) fn run(program: &str, args: &[&str]) -> Result<()> {
    run_with_env(program, args, &[])
}

/// [`run`] with extra environment variables.
pub(crate) fn run_with_env(program: &str, args: &[&str], env: &[(&str, &str)]) -> Result<()> {
    let shown: Vec<String> = env.iter().map(|(key, value)| format!("{key}={value:?} ")).collect();
    eprintln!("$ {}{program} {}", shown.concat(), args.join(" "));
    let status = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(workspace_root())
        .status()
        .with_context(|| format!("cannot start `{program}`"))?;
    if !status.success() {
        bail!("`{program} {}` failed with {status}", args.join(" "));
    }
    Ok(())
}
