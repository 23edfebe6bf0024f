//! `cargo xtask fuzz [TARGET...] [--seconds N]`: runs the libFuzzer targets of `fuzz/` with
//! seeds from `fixtures/`, then keeps a small minimised corpus and every crasher under
//! `fixtures/fuzz/<target>/` (replayed by `cargo test`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// Inputs kept per target after minimisation.
const KEEP: usize = 48;

/// Extra seed folders per target, from the shared corpora.
fn seed_dirs(target: &str) -> &'static [&'static str] {
    match target {
        "matcher" => &["fixtures/edits"],
        "patch" => &["fixtures/patches"],
        "analyze" => &["fixtures/code", "fixtures/markdown"],
        "call" | "json" => &["fixtures/calls"],
        "notebook" => &["fixtures/notebooks"],
        _ => &[],
    }
}

fn targets(root: &Path) -> Result<Vec<String>> {
    let mut names: Vec<String> = std::fs::read_dir(root.join("fuzz/fuzz_targets"))?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".rs")).map(str::to_owned))
        .collect();
    names.sort();
    Ok(names)
}

fn copy_seeds(from: &Path, to: &Path, budget: &mut usize) -> Result<()> {
    if !from.exists() || *budget == 0 {
        return Ok(());
    }
    if from.is_dir() {
        for entry in std::fs::read_dir(from)? {
            copy_seeds(&entry?.path(), to, budget)?;
        }
    } else if std::fs::metadata(from)?.len() <= 64 << 10 {
        let name = format!("seed-{:016x}", fxhash(&from.to_string_lossy()));
        std::fs::copy(from, to.join(name))?;
        *budget -= 1;
    }
    Ok(())
}

fn fxhash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

fn content_name(bytes: &[u8]) -> String {
    format!(
        "{:016x}",
        bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
    )
}

pub(crate) fn fuzz(root: &Path, args: &[String]) -> Result<()> {
    let mut seconds = 60u64;
    let mut chosen = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--seconds" => seconds = iter.next().context("--seconds needs a number")?.parse()?,
            other => chosen.push(other.to_owned()),
        }
    }
    let all = targets(root)?;
    if chosen.is_empty() {
        chosen = all.clone();
    }
    for target in &chosen {
        if !all.contains(target) {
            bail!("unknown fuzz target `{target}`; targets: {}", all.join(", "));
        }
    }
    let has_fuzz = Command::new("cargo").args(["fuzz", "--version"]).output().is_ok_and(|o| o.status.success());
    if !has_fuzz {
        crate::cmd::run("cargo", &["install", "--locked", "cargo-fuzz"])?;
    }
    let mut summary = BTreeMap::new();
    for target in &chosen {
        let corpus = root.join("fuzz/corpus").join(target);
        std::fs::create_dir_all(&corpus)?;
        let kept = root.join("fixtures/fuzz").join(target);
        std::fs::create_dir_all(&kept)?;
        let mut budget = 2000;
        copy_seeds(&kept, &corpus, &mut budget)?;
        for dir in seed_dirs(target) {
            copy_seeds(&root.join(dir), &corpus, &mut budget)?;
        }
        let time = format!("-max_total_time={seconds}");
        let corpus_arg = corpus.to_string_lossy().into_owned();
        eprintln!("$ cargo fuzz run {target} -s none {corpus_arg} -- {time}");
        let output = Command::new("cargo")
            .args(["fuzz", "run", target, "-s", "none", &corpus_arg, "--", &time, "-print_final_stats=1"])
            .current_dir(root.join("fuzz"))
            .output()?;
        let log = String::from_utf8_lossy(&output.stderr).into_owned();
        std::fs::write(root.join(format!("fuzz/{target}.log")), &log)?;
        let stat = |key: &str| {
            log.lines()
                .rev()
                .find_map(|l| l.strip_prefix(key).map(|v| v.trim().trim_start_matches(':').trim().to_owned()))
                .unwrap_or_default()
        };
        let crashes = keep_crashers(root, target, &kept)?;
        minimise(root, target, &corpus, &kept)?;
        summary.insert(
            target.clone(),
            (
                stat("stat::number_of_executed_units"),
                stat("stat::new_units_added"),
                cov(&log),
                crashes,
                output.status.success(),
            ),
        );
    }
    println!(
        "\n{:<10} {:>14} {:>10} {:>8} {:>9} {:>6}",
        "target", "executions", "new units", "edges", "crashers", "clean"
    );
    for (target, (execs, units, edges, crashes, ok)) in summary {
        println!("{target:<10} {execs:>14} {units:>10} {edges:>8} {crashes:>9} {:>6}", if ok { "yes" } else { "NO" });
    }
    Ok(())
}

/// The last `cov: N` libFuzzer printed.
fn cov(log: &str) -> String {
    log.lines()
        .rev()
        .find_map(|l| l.split("cov: ").nth(1).and_then(|rest| rest.split_whitespace().next()).map(str::to_owned))
        .unwrap_or_default()
}

fn keep_crashers(root: &Path, target: &str, kept: &Path) -> Result<usize> {
    let artifacts = root.join("fuzz/artifacts").join(target);
    let mut n = 0;
    if let Ok(entries) = std::fs::read_dir(&artifacts) {
        for entry in entries.flatten() {
            let bytes = std::fs::read(entry.path())?;
            std::fs::write(kept.join(format!("crash-{}", content_name(&bytes))), &bytes)?;
            n += 1;
        }
    }
    Ok(n)
}

/// `cargo fuzz cmin`, then keep the smallest [`KEEP`] inputs (plus crashers, kept already).
fn minimise(root: &Path, target: &str, corpus: &Path, kept: &Path) -> Result<()> {
    let corpus_arg = corpus.to_string_lossy().into_owned();
    let _ = Command::new("cargo")
        .args(["fuzz", "cmin", target, "-s", "none", &corpus_arg])
        .current_dir(root.join("fuzz"))
        .output()?;
    let mut inputs: Vec<(u64, PathBuf)> = std::fs::read_dir(corpus)?
        .filter_map(|e| e.ok())
        .filter_map(|e| Some((e.metadata().ok()?.len(), e.path())))
        .filter(|(len, _)| *len > 0)
        .collect();
    inputs.sort();
    for entry in std::fs::read_dir(kept)?.flatten() {
        if !entry.file_name().to_string_lossy().starts_with("crash-") {
            std::fs::remove_file(entry.path())?;
        }
    }
    for (_, path) in inputs.iter().take(KEEP) {
        let bytes = std::fs::read(path)?;
        std::fs::write(kept.join(content_name(&bytes)), &bytes)?;
    }
    Ok(())
}
