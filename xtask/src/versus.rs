//! `cargo xtask bench versus`: editkit side by side with the tools a user would pick instead,
//! in one run, printing the ratios.
//!
//! - Edits, memory and call throughput: `xtask/compare/speed.py` (PraisonAI and Aider in
//!   virtual environments it creates under `target/`, `editkit call --jsonl` in four settings,
//!   raw MCP stdio).
//! - The cold path: `xtask/compare/cold.py` (the first edit of a 3 MB and a 30 MB file by a
//!   fresh `call --jsonl` process, 70 files each touched once, and `editkit apply` and
//!   `editkit edit` as one process per command against `git apply`).
//! - Patches: the `bench_vs_git` example of editkit-patch (`git apply` of the same 100-file,
//!   1,000-hunk diff).
//! - Search: `editkit grep` and `rg` as processes, on a copy of the Python standard library and
//!   a copy of the cargo registry's sources, literal and regex, with and without matches; the
//!   matches (path, line, column) must be the same. `EDITKIT_BASELINE=<an earlier editkit
//!   binary>` runs it in the same rotation: before and after from one run.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::cmd::{run, workspace_root};

/// Runs the comparisons `parts` names (`edits`, `cold`, `patch`, `search`; all when empty).
pub(crate) fn versus(parts: &[&str]) -> Result<()> {
    let wants = |part: &str| parts.is_empty() || parts.contains(&part);
    run("cargo", &["build", "--locked", "--release", "-p", "editkit-cli"])?;
    let editkit = release_binary()?;
    let editkit_str = editkit.to_str().context("the target dir path is not UTF-8")?;
    if wants("edits") {
        run("python3", &["xtask/compare/speed.py", "--editkit", editkit_str])?;
    }
    if wants("cold") {
        // `EDITKIT_BASELINE=<an earlier editkit binary>` runs it beside this one: before and
        // after from one run.
        let baseline = std::env::var("EDITKIT_BASELINE").ok();
        let mut args = vec!["xtask/compare/cold.py", "--editkit", editkit_str];
        if let Some(baseline) = baseline.as_deref() {
            args.extend(["--baseline", baseline]);
        }
        run("python3", &args)?;
    }
    if wants("patch") {
        run("cargo", &["run", "--locked", "--release", "-q", "-p", "editkit-patch", "--example", "bench_vs_git"])?;
    }
    if wants("search") {
        let baseline = std::env::var_os("EDITKIT_BASELINE").map(PathBuf::from);
        search(&editkit, baseline.as_deref())?;
    }
    Ok(())
}

fn release_binary() -> Result<PathBuf> {
    // The binary is in the shared target dir, which CARGO_TARGET_DIR may move.
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| workspace_root().join("target"), Into::into);
    Ok(target.join("release").join(format!("editkit{}", std::env::consts::EXE_SUFFIX)))
}

/// A tree to search: its name and where its copy is made from.
struct Tree {
    name: &'static str,
    source: PathBuf,
}

fn trees() -> Result<Vec<Tree>> {
    let python = Command::new("python3")
        .args(["-c", "import os; print(os.path.dirname(os.__file__))"])
        .output()
        .context("python3 is needed to find the standard library")?;
    let python = PathBuf::from(String::from_utf8(python.stdout)?.trim());
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))
        .context("neither CARGO_HOME nor HOME is set")?;
    Ok(vec![
        Tree { name: "python-stdlib", source: python },
        Tree { name: "cargo-registry", source: cargo_home.join("registry/src") },
    ])
}

/// Copies `tree` once into `editkit-bench-trees/` of the temp dir: outside this repository,
/// whose `.gitignore` rg would otherwise apply from above (it looks up the parent folders), and
/// a copy, so both tools see the same files.
fn copy_of(tree: &Tree) -> Result<PathBuf> {
    let dest = std::env::temp_dir().join("editkit-bench-trees").join(tree.name);
    let done = dest.with_extension("done");
    if !done.exists() {
        if dest.exists() {
            std::fs::remove_dir_all(&dest)?;
        }
        std::fs::create_dir_all(&dest)?;
        let source = format!("{}/.", tree.source.display());
        run("cp", &["-R", &source, dest.to_str().context("path is not UTF-8")?])?;
        std::fs::write(&done, "")?;
    }
    Ok(dest)
}

/// One search: a label, the pattern, and whether it is a literal.
const CASES: [(&str, &str, bool); 4] = [
    ("literal, no match", "zqxj_editkit_nothing_here", true),
    ("literal, matches", "return None", true),
    ("regex, no match", r"zq[0-9]+xj_editkit", false),
    ("regex, matches", r"[A-Z][a-z]+Error\(", false),
];

const RUNS: usize = 7;

/// One side of a comparison: its label, program and arguments, and what a run gave.
struct Side {
    label: &'static str,
    program: PathBuf,
    args: Vec<&'static str>,
    times: Vec<f64>,
    out: Vec<u8>,
}

impl Side {
    /// Runs the program once in `root` and records its time and output (when `record`).
    fn run(&mut self, root: &Path, label: &str, record: bool) -> Result<()> {
        let started = Instant::now();
        let output = Command::new(&self.program).args(&self.args).env("NO_COLOR", "1").current_dir(root).output()?;
        let elapsed = started.elapsed().as_secs_f64();
        // 0: matches, 1: none; anything else is a failure.
        if !matches!(output.status.code(), Some(0 | 1)) {
            bail!("{} failed on {label}: {}", self.label, String::from_utf8_lossy(&output.stderr));
        }
        if record {
            self.times.push(elapsed);
        }
        self.out = output.stdout;
        Ok(())
    }
}

fn search(editkit: &Path, baseline: Option<&Path>) -> Result<()> {
    let rg_version = Command::new("rg").arg("--version").output();
    let Ok(rg_version) = rg_version else { bail!("rg is not installed (apt-get install -y ripgrep)") };
    let rg_version = String::from_utf8_lossy(&rg_version.stdout).lines().next().unwrap_or("rg").to_owned();
    let mut rows = Vec::new();
    for tree in trees()? {
        let root = copy_of(&tree)?;
        for (label, pattern, literal) in CASES {
            let mut rg_args = vec!["--no-config", "-n", "--column", "--no-heading", "--color", "never"];
            let mut ek_args = vec!["grep", "--root", ".", "--max-results", "100000000"];
            if literal {
                rg_args.push("-F");
                ek_args.push("-F");
            }
            rg_args.extend(["--", pattern, "."]);
            ek_args.extend(["--", pattern, "."]);
            let side = |label, program: &Path, args: &Vec<&'static str>| Side {
                label,
                program: program.to_owned(),
                args: args.clone(),
                times: Vec::new(),
                out: Vec::new(),
            };
            let mut sides = vec![side("rg", Path::new("rg"), &rg_args), side("editkit grep", editkit, &ek_args)];
            if let Some(baseline) = baseline {
                sides.push(side("baseline editkit grep", baseline, &ek_args));
            }
            // Rotating runs, after one warm-up of each (the page cache).
            for run in 0..=RUNS {
                let n = sides.len();
                for k in 0..n {
                    let at = if run % 2 == 0 { k } else { n - 1 - k };
                    sides[at].run(&root, label, run > 0)?;
                }
            }
            let rg_hits = hits(&sides[0].out);
            let rg = median(&mut sides[0].times);
            let mut row = format!("| {} | {label} | {} | {:.1} ms |", tree.name, rg_hits.len(), rg * 1e3);
            for side in &mut sides[1..] {
                let ek_hits = hits(&side.out);
                let only_rg = rg_hits.difference(&ek_hits).count();
                let only_ek = ek_hits.difference(&rg_hits).count();
                let ek = median(&mut side.times);
                let same = if rg_hits == ek_hits {
                    "identical".to_owned()
                } else {
                    format!("{only_rg} only rg, {only_ek} only editkit")
                };
                row.push_str(&format!(" {:.1} ms | {:.2}× | {same} |", ek * 1e3, ek / rg));
                for hit in rg_hits.symmetric_difference(&ek_hits).take(5) {
                    eprintln!("  {} differs: {hit:?}", side.label);
                }
            }
            rows.push(row);
        }
    }
    println!("\n## Search: `editkit grep` and {rg_version}, as processes, median of {RUNS} alternating runs\n");
    if baseline.is_some() {
        println!(
            "| tree | search | matches | rg | editkit | editkit / rg | results | baseline | baseline / rg | results |"
        );
        println!("| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- |");
    } else {
        println!("| tree | search | matches | rg | editkit | editkit / rg | results |");
        println!("| --- | --- | ---: | ---: | ---: | ---: | --- |");
    }
    for row in rows {
        println!("{row}");
    }
    println!("(ratio = editkit time / rg time; below 1 means editkit is faster)");
    Ok(())
}

/// The (path, line, column) of every match line of `rg -n --column` or `editkit grep` output.
fn hits(output: &[u8]) -> BTreeSet<(String, u64, u64)> {
    String::from_utf8_lossy(output)
        .lines()
        .filter_map(|line| {
            let mut parts = line.splitn(4, ':');
            let path = parts.next()?.trim_start_matches("./").to_owned();
            let line: u64 = parts.next()?.parse().ok()?;
            let column: u64 = parts.next()?.parse().ok()?;
            Some((path, line, column))
        })
        .collect()
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
