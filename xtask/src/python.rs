//! The Python package (`crates/python`): its wheel built with maturin, installed into a fresh
//! virtual environment, and its pytest suite run against the installed wheel (`cargo xtask ci`);
//! and its benches side by side with the framework tools it replaces (`cargo xtask bench python`).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::cmd::{run, run_with_env, workspace_root};

/// The maturin the wheel is built with (a virtual environment of its own under `target/`).
const MATURIN: &str = "maturin>=1.16,<2";

fn python_in(venv: &Path) -> PathBuf {
    venv.join("bin").join("python")
}

fn path_str(path: &Path) -> Result<&str> {
    path.to_str().with_context(|| format!("{} is not UTF-8", path.display()))
}

/// Creates `venv` (fresh when `fresh`) and installs `packages` into it.
fn venv_with(venv: &Path, fresh: bool, packages: &[&str]) -> Result<()> {
    if fresh && venv.exists() {
        std::fs::remove_dir_all(venv).with_context(|| format!("removing {}", venv.display()))?;
    }
    if !python_in(venv).exists() {
        run("python3", &["-m", "venv", path_str(venv)?])?;
    }
    let python = python_in(venv);
    let mut args = vec!["-m", "pip", "install", "--quiet", "--disable-pip-version-check"];
    args.extend(packages);
    run(path_str(&python)?, &args)
}

/// Builds the release wheel into `target/wheels/` and returns its path.
pub(crate) fn build_wheel() -> Result<PathBuf> {
    let root = workspace_root();
    let build_venv = root.join("target/py-build-venv");
    venv_with(&build_venv, false, &[MATURIN])?;
    let out = root.join("target/wheels");
    if out.exists() {
        std::fs::remove_dir_all(&out).context("removing target/wheels")?;
    }
    let maturin = build_venv.join("bin/maturin");
    run(
        path_str(&maturin)?,
        &["build", "--release", "--locked", "--manifest-path", "crates/python/Cargo.toml", "--out", path_str(&out)?],
    )?;
    let wheels: Vec<PathBuf> = std::fs::read_dir(&out)?
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "whl"))
        .collect();
    match wheels.as_slice() {
        [wheel] => Ok(wheel.clone()),
        other => bail!("maturin left {} wheels in target/wheels, expected one", other.len()),
    }
}

/// A fresh virtual environment with the wheel (and pytest) installed; returns its python.
pub(crate) fn install_wheel(wheel: &Path, venv: &Path) -> Result<PathBuf> {
    venv_with(venv, true, &[path_str(wheel)?, "pytest>=8"])?;
    Ok(python_in(venv))
}

/// `cargo xtask ci`'s Python step: the wheel built with `maturin build --release`, installed into
/// a fresh virtual environment, the package's tests run against it (never the source tree), and
/// ruff over the package's Python (when the test tools are installed).
pub(crate) fn ci() -> Result<()> {
    let root = workspace_root();
    let wheel = build_wheel()?;
    let python = install_wheel(&wheel, &root.join("target/py-wheel-venv"))?;
    // From the package folder, pytest's rootdir and options come from its pyproject.toml; the
    // package imported is the installed one (the tests check `EDITKIT_TEST_WHEEL`).
    run_with_env(
        path_str(&python)?,
        &["-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", "crates/python", "crates/python/tests"],
        &[("EDITKIT_TEST_WHEEL", "1"), ("PYTHONSAFEPATH", "1")],
    )?;
    let ruff = root.join("target/test-tools/venv/bin/ruff");
    if !ruff.exists() {
        bail!("ruff is missing: run crates/analyze/tests/tools/setup.sh");
    }
    run(path_str(&ruff)?, &["check", "--isolated", "--line-length", "110", "--target-version", "py39", "crates/python"])
}

/// `cargo xtask bench python`: the Python package's in-process edits against PraisonAI's own
/// `edit_file` (both in-process in their own interpreter), and threads against a serial run.
pub(crate) fn bench() -> Result<()> {
    let root = workspace_root();
    let wheel = build_wheel()?;
    let python = install_wheel(&wheel, &root.join("target/py-bench-venv"))?;
    let praisonai = root.join("target/compare-venv");
    venv_with(&praisonai, false, &["praisonaiagents==1.7.17"])?;
    run(
        path_str(&python)?,
        &["crates/python/bench/bench_praisonai.py", "--praisonai-python", path_str(&python_in(&praisonai))?],
    )?;
    run(path_str(&python)?, &["crates/python/bench/bench_threads.py"])
}
