//! Project automation: `cargo xtask ci | bench [AREA] | fuzz [TARGET] | lsp-tools`.
//!
//! Needs only cargo; tools it uses (cargo-deny, ripgrep for the search bench, the language
//! servers the tests drive) are installed when missing.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use cmd::{run, run_with_env, workspace_root};

mod cmd;
mod compare;
mod fuzz;
mod lsp_tools;
mod python;
mod versus;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest = args.get(1..).unwrap_or_default();
    match args.first().map(String::as_str) {
        Some("ci") => ci(),
        Some("bench") => bench(rest),
        Some("fuzz") => fuzz::fuzz(&workspace_root(), rest),
        Some("compare") => compare::compare(rest),
        Some("lsp-tools") => lsp_tools::lsp_tools(rest),
        Some("mcp-inspect") => run("bash", &["crates/cli/tests/mcp/inspect.sh"]),
        Some("mcp-ts") => run("bash", &["crates/cli/tests/mcp/ts-e2e.sh"]),
        Some("conformance") => {
            run("cargo", &["build", "--locked", "-p", "editkit-cli"])?;
            run("python3", &["crates/cli/tests/mcp/conformance.py", "target/debug/editkit"])
        }
        Some("help" | "--help" | "-h") | None => {
            println!("{HELP}");
            Ok(())
        }
        Some(other) => bail!("unknown task `{other}`\n\n{HELP}"),
    }
}

const HELP: &str = "\
cargo xtask ci              fmt --check, clippy -D warnings, the language servers (lsp-tools),
                            tests and doctests, the Python
                            package's wheel (maturin) and its pytest suite in a fresh virtualenv,
                            feature builds, each library alone without default features,
                            docs -D warnings, publish --dry-run,
                            cargo deny check bans licenses sources (installs cargo-deny if missing)
cargo xtask bench [AREA] [--baseline REV]
                            benchmarks; AREA is vfs, matcher, analyze, search, patch, toolkit,
                            versus or python (all by default); python runs the Python package's
                            PraisonAI-compatible edit_file against PraisonAI's own, in-process,
                            and threads against a serial run; versus runs editkit side by side with PraisonAI
                            and Aider (edits, in virtualenvs it creates), git apply (patches) and
                            rg (search), plus memory and call throughput, and prints the ratios
                            (versus-edits, versus-cold, versus-patch, versus-search run one part);
                            with --baseline, the toolkit's per-call bench also runs on REV, in
                            alternating rounds, and prints the ratios
cargo xtask fuzz [TARGET...] [--seconds N]
                            libFuzzer targets of fuzz/ (installs cargo-fuzz), keeping a minimised
                            corpus and crashers under fixtures/fuzz/<target>/
cargo xtask lsp-tools [--dest DIR]
                            the language servers the tests drive, into DIR (default
                            $EDITKIT_LSP_TOOLS, else target/lsp-tools): basedpyright and pyright
                            (PyPI, in DIR/venv), typescript-language-server 5 with TypeScript 6
                            (npm, in DIR/npm), rust-analyzer and rust-src (rustup); skips what is
                            installed at the wanted version
cargo xtask compare [ARGS]  editkit vs PraisonAI and Aider edit tools on the same corpus; report in
                            target/compare/report.md
cargo xtask mcp-inspect     the MCP Inspector's CLI mode against `editkit mcp` on 2025-11-25 and
                            2026-07-28 (installs it and Node.js 22 under target/inspector once)
cargo xtask mcp-ts          the official MCP TypeScript SDK end to end against `editkit mcp` (stdio
                            and HTTP; installs the SDK under target/ts-sdk once)
cargo xtask conformance     the official MCP conformance suite's server scenarios that apply to a
                            tools-only server, against `editkit mcp --http` (installs the suite
                            and Node.js 22 under target/conformance once)";

fn has_cargo_subcommand(name: &str) -> bool {
    Command::new("cargo").args([name, "--version"]).output().map(|out| out.status.success()).unwrap_or(false)
}

/// The library crates, in dependency order.
const LIBRARY_CRATES: [&str; 8] = [
    "editkit-run",
    "editkit-vfs",
    "editkit-matcher",
    "editkit-analyze",
    "editkit-search",
    "editkit-patch",
    "editkit-lsp",
    "editkit",
];

fn ci() -> Result<()> {
    let started = Instant::now();
    run("cargo", &["fmt", "--all", "--check"])?;
    run("cargo", &["clippy", "--locked", "--workspace", "--all-targets", "--", "-D", "warnings"])?;
    // The real tools the tests drive: the MCP Python SDK (end-to-end test) and the checkers and
    // formatters the containment tests run against, installed under target/ when missing.
    run("bash", &["crates/cli/tests/mcp/setup.sh"])?;
    run("bash", &["crates/analyze/tests/tools/setup.sh"])?;
    // Jupyter's nbformat, whose validator checks every notebook the notebook tests write.
    run("bash", &["crates/toolkit/tests/notebooks/setup.sh"])?;
    // The language servers the code-intelligence tests start (PyPI, npm and rustup).
    lsp_tools::install(&lsp_tools::default_dest())?;
    run("cargo", &["test", "--locked", "--workspace"])?;
    // The MCP Inspector's CLI (npm, with the Node.js 22 it needs, under target/inspector) drives
    // every tool of the binary the tests just built, and the 2026-07-28 flow with a task and a link.
    run("bash", &["crates/cli/tests/mcp/inspect.sh", "target/debug/editkit"])?;
    // The official MCP TypeScript SDK (npm, under target/ts-sdk) end to end on stdio and HTTP.
    run("bash", &["crates/cli/tests/mcp/ts-e2e.sh", "target/debug/editkit"])?;
    // The official MCP conformance suite (npm, with the Node.js 22 it needs, both installed
    // under target/conformance) runs its server scenarios that apply to a tools-only server.
    run("python3", &["crates/cli/tests/mcp/conformance.py", "target/debug/editkit"])?;
    // The Python package: its release wheel (maturin) installed into a fresh virtual
    // environment, and its pytest suite run against that installation.
    python::ci()?;
    run("cargo", &["check", "--locked", "--workspace", "--all-targets", "--all-features"])?;
    run("cargo", &["check", "--locked", "--workspace", "--no-default-features"])?;
    // Each library crate builds alone without its default features, its docs have no broken
    // link or warning, and it packages and builds from its packaged sources (dependency order).
    for krate in LIBRARY_CRATES {
        run("cargo", &["check", "--locked", "-p", krate, "--no-default-features"])?;
    }
    // Each library crate's downstream example (under 20 lines, that crate and the vfs only) runs.
    for krate in &LIBRARY_CRATES[..6] {
        let example = format!("{}_downstream", krate.trim_start_matches("editkit-"));
        run("cargo", &["run", "--locked", "-q", "-p", krate, "--example", &example])?;
    }
    run_with_env("cargo", &["doc", "--locked", "--workspace", "--no-deps"], &[("RUSTDOCFLAGS", "-D warnings")])?;
    forget_packaged_sources()?;
    // Its own target dir, fresh each time: artifacts of a registry package are keyed by name
    // and version, so a build of an earlier run's packaged crate would be taken as current.
    let publish_target = workspace_root().join("target/publish-check");
    if publish_target.exists() {
        std::fs::remove_dir_all(&publish_target).context("removing target/publish-check")?;
    }
    run_with_env(
        "cargo",
        &[
            "publish",
            "--dry-run",
            "--locked",
            "--allow-dirty",
            "--workspace",
            "--exclude",
            "editkit-cli",
            "--exclude",
            "xtask",
            "--exclude",
            "editkit-python",
        ],
        &[("CARGO_TARGET_DIR", "target/publish-check")],
    )?;
    if !has_cargo_subcommand("deny") {
        run("cargo", &["install", "--locked", "cargo-deny"])?;
    }
    // The advisory database cannot be downloaded here, so advisories are left out.
    run("cargo", &["deny", "--locked", "check", "bans", "licenses", "sources"])?;
    eprintln!("ci passed in {:.0?}", started.elapsed());
    Ok(())
}

/// `cargo publish --dry-run` verifies each crate against the others as packaged, unpacked into
/// a local registry's source folder under `$CARGO_HOME/registry/src/-<hash>/`; an unpacked
/// `editkit-*-<version>` from an earlier run is reused as it is, so the check would build
/// against an earlier run's sources. Removes editkit's own unpacked packages there (nothing
/// else).
fn forget_packaged_sources() -> Result<()> {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))
        .context("neither CARGO_HOME nor HOME is set")?;
    let Ok(registries) = std::fs::read_dir(cargo_home.join("registry/src")) else { return Ok(()) };
    for registry in registries.flatten() {
        // Local overlay registries have no host in their name: `-<hash>`.
        if !registry.file_name().to_string_lossy().starts_with('-') {
            continue;
        }
        for package in std::fs::read_dir(registry.path())?.flatten() {
            let name = package.file_name().to_string_lossy().into_owned();
            if name.starts_with("editkit") && package.file_type()?.is_dir() {
                std::fs::remove_dir_all(package.path()).with_context(|| format!("removing {name}"))?;
            }
        }
    }
    Ok(())
}

fn bench(args: &[String]) -> Result<()> {
    let all = ["vfs", "matcher", "analyze", "search", "patch", "toolkit", "versus", "python"];
    let mut baseline = None;
    let mut areas = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--baseline" => baseline = Some(args.next().context("--baseline needs a git revision")?.clone()),
            area => areas.push(area),
        }
    }
    let chosen: Vec<&str> = if areas.is_empty() { all.to_vec() } else { areas };
    for area in chosen {
        match area {
            "vfs" => bench_vfs()?,
            "python" => python::bench()?,
            "toolkit" => bench_toolkit(baseline.as_deref())?,
            "versus" => versus::versus(&[])?,
            part @ ("versus-edits" | "versus-cold" | "versus-patch" | "versus-search") => {
                versus::versus(&[part.trim_start_matches("versus-")])?;
            }
            "matcher" | "analyze" | "patch" | "search" => bench_crate(area)?,
            other => bail!("unknown bench area `{other}`; choose from {}", all.join(", ")),
        }
    }
    Ok(())
}

fn crate_dir(area: &str) -> PathBuf {
    workspace_root().join("crates").join(area)
}

/// Runs a crate's divan benches, then its side-by-side comparison example when it has one.
fn bench_crate(area: &str) -> Result<()> {
    let package = format!("editkit-{area}");
    if crate_dir(area).join("benches").is_dir() {
        run("cargo", &["bench", "--locked", "-p", &package])?;
    }
    let comparisons = [("search", "bench_tree"), ("patch", "bench_vs_git"), ("analyze", "bench_vs_ast")];
    for (owner, example) in comparisons {
        if owner == area && crate_dir(area).join("examples").join(format!("{example}.rs")).is_file() {
            run("cargo", &["run", "--locked", "--release", "-p", &package, "--example", example])?;
        }
    }
    Ok(())
}

/// The vfs bench plus read+hash and write throughput as ratios to `sha256sum` and `cp`.
fn bench_vfs() -> Result<()> {
    run("cargo", &["bench", "--locked", "-p", "editkit-vfs"])?;
    let dir = std::env::temp_dir().join(format!("editkit-vfs-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let sizes = [("1KiB", 1usize << 10), ("1MiB", 1 << 20), ("64MiB", 64 << 20)];
    let line = b"fn example() { let value = compute(42); println!(\"{value}\"); }\n";
    for (name, size) in sizes {
        let bytes: Vec<u8> = line.iter().copied().cycle().take(size).collect();
        std::fs::write(dir.join(name), bytes)?;
    }
    let runs = "15";
    let dir_str = dir.to_str().context("temp dir is not UTF-8")?;
    let mut args = vec!["run", "--locked", "--release", "-q", "-p", "editkit-vfs", "--example", "throughput", "--"];
    args.push(dir_str);
    args.push(runs);
    args.extend(sizes.iter().map(|(name, _)| *name));
    let output = Command::new("cargo").args(&args).current_dir(workspace_root()).output()?;
    if !output.status.success() {
        bail!("throughput example failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    println!(
        "\n{:<6} {:>14} {:>14} {:>8} {:>14} {:>14} {:>8}",
        "size", "editkit read", "cat|sha256sum", "ratio", "editkit write", "cp", "ratio"
    );
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [name, read_ns, write_ns] = fields.as_slice() else { continue };
        let read_ns: f64 = read_ns.parse()?;
        let write_ns: f64 = write_ns.parse()?;
        let file = dir.join(name);
        let file_str = file.to_str().context("path is not UTF-8")?;
        let sha = median_ns(15, || {
            Command::new("sh").args(["-c", &format!("cat '{file_str}' | sha256sum > /dev/null")]).status().map(|_| ())
        })?;
        let copy = format!("{file_str}.cp");
        let cp = median_ns(15, || Command::new("cp").args([file_str, &copy]).status().map(|_| ()))?;
        println!(
            "{name:<6} {:>12.1}µs {:>12.1}µs {:>8.2} {:>12.1}µs {:>12.1}µs {:>8.2}",
            read_ns / 1e3,
            sha / 1e3,
            read_ns / sha,
            write_ns / 1e3,
            cp / 1e3,
            write_ns / cp
        );
    }
    println!("(ratio = editkit time / tool time; below 1 means editkit is faster; the tools pay a process start)");
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// Per-call times of `read_file` and `edit_file` (divan, `crates/toolkit/benches/calls.rs`);
/// with a baseline revision, the same bench on that revision (in a throwaway worktree) and the
/// ratios after/before.
/// A bench run's median per bench name, in nanoseconds.
type Medians = Vec<(String, f64)>;

/// Rounds of each side in a baseline comparison.
const BASELINE_ROUNDS: usize = 6;

/// Per bench, the median over rounds of its per-round median (benches missing from a round are
/// left out of it).
fn median_of_rounds(rounds: &[Medians]) -> Medians {
    let Some(first) = rounds.first() else { return Vec::new() };
    first
        .iter()
        .map(|(name, _)| {
            let mut values: Vec<f64> = rounds
                .iter()
                .filter_map(|round| round.iter().find(|(other, _)| other == name).map(|(_, ns)| *ns))
                .collect();
            values.sort_by(f64::total_cmp);
            (name.clone(), values[values.len() / 2])
        })
        .collect()
}

fn bench_toolkit(baseline: Option<&str>) -> Result<()> {
    let root = workspace_root();
    let Some(revision) = baseline else {
        for (name, ns) in &divan_medians(&root, &root.join("target"))? {
            println!("{name:<28} {:>10.1}µs", ns / 1e3);
        }
        // The edit path stage by stage at 10 KB, 1 MB and 10 MB.
        run("cargo", &["bench", "--locked", "-p", "editkit", "--bench", "stages"])?;
        return Ok(());
    };
    let tree = root.join("target/bench-baseline-tree");
    let _ = Command::new("git").args(["worktree", "remove", "--force"]).arg(&tree).current_dir(&root).status();
    run(
        "git",
        &[
            "-C",
            root.to_str().context("root is not UTF-8")?,
            "worktree",
            "add",
            "--detach",
            tree.to_str().context("path is not UTF-8")?,
            revision,
        ],
    )?;
    let result = (|| -> Result<(Medians, Medians)> {
        // The same bench file on the old code: its Cargo.toml gains the bench if it lacks it.
        std::fs::create_dir_all(tree.join("crates/toolkit/benches"))?;
        std::fs::copy(root.join("crates/toolkit/benches/calls.rs"), tree.join("crates/toolkit/benches/calls.rs"))?;
        let manifest = tree.join("crates/toolkit/Cargo.toml");
        let mut text = std::fs::read_to_string(&manifest)?;
        if !text.contains("name = \"calls\"") {
            text = text.replacen("[dev-dependencies]\n", "[dev-dependencies]\ndivan = { workspace = true }\n", 1);
            text.push_str("\n[[bench]]\nname = \"calls\"\nharness = false\n");
            std::fs::write(&manifest, text)?;
        }
        // Alternating rounds, so a machine that slows down or speeds up during the run (it is
        // shared) weighs on both sides alike; each side's median is the median of its rounds.
        let (mut now, mut then) = (Vec::new(), Vec::new());
        for round in 0..BASELINE_ROUNDS {
            if round % 2 == 0 {
                now.push(divan_medians(&root, &root.join("target"))?);
                then.push(divan_medians(&tree, &root.join("target/bench-baseline"))?);
            } else {
                then.push(divan_medians(&tree, &root.join("target/bench-baseline"))?);
                now.push(divan_medians(&root, &root.join("target"))?);
            }
        }
        Ok((median_of_rounds(&now), median_of_rounds(&then)))
    })();
    let _ = Command::new("git").args(["worktree", "remove", "--force"]).arg(&tree).current_dir(&root).status();
    let (after, before) = result?;
    println!(
        "\n{:<28} {:>12} {:>12} {:>8}   (medians of {BASELINE_ROUNDS} alternating rounds)",
        "bench", revision, "now", "ratio"
    );
    for (name, now) in &after {
        if let Some((_, then)) = before.iter().find(|(other, _)| other == name) {
            println!("{name:<28} {:>10.1}µs {:>10.1}µs {:>8.3}", then / 1e3, now / 1e3, now / then);
        }
    }
    println!("(ratio = now / {revision}; above 1 means slower now)");
    Ok(())
}

/// Runs the toolkit's `calls` bench in `tree` and returns each benchmark's median in ns.
fn divan_medians(tree: &Path, target: &Path) -> Result<Vec<(String, f64)>> {
    let output = Command::new("cargo")
        .args(["bench", "-p", "editkit", "--bench", "calls"])
        .env("CARGO_TARGET_DIR", target)
        .current_dir(tree)
        .output()?;
    if !output.status.success() {
        bail!("the calls bench failed in {}: {}", tree.display(), String::from_utf8_lossy(&output.stderr));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let mut group = String::new();
    let mut medians = Vec::new();
    for line in text.lines() {
        // Nested rows start with the tree's own `│`; the first column is the name.
        let row = line.trim_start().trim_start_matches('│');
        let columns: Vec<&str> = row.split('│').map(str::trim).collect();
        let name = columns.first().copied().unwrap_or("").trim_start_matches(['├', '╰', '─', ' ']).trim();
        if columns.len() < 4 || name.is_empty() || name == "calls" {
            continue;
        }
        let mut fields = name.split_whitespace();
        let label = fields.next().unwrap_or_default();
        if fields.next().is_none() && columns.get(2).is_some_and(|c| c.is_empty()) {
            group = label.to_owned();
            continue;
        }
        // Columns: name+fastest, slowest, median, mean, samples, iters.
        let Some(median) = columns.get(2).and_then(|cell| parse_duration(cell)) else { continue };
        medians.push((format!("{group}/{label}"), median));
    }
    if medians.is_empty() {
        bail!("no medians found in the bench output:\n{text}");
    }
    Ok(medians)
}

/// `12.5 µs` → 12500.0 (ns).
fn parse_duration(cell: &str) -> Option<f64> {
    let (value, unit) = cell.split_once(' ')?;
    let value: f64 = value.parse().ok()?;
    let scale = match unit.trim() {
        "ns" => 1.0,
        "µs" | "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return None,
    };
    Some(value * scale)
}

fn median_ns(runs: usize, mut f: impl FnMut() -> std::io::Result<()>) -> Result<f64> {
    let mut samples = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        f()?;
        samples.push(start.elapsed().as_secs_f64() * 1e9);
    }
    samples.sort_by(f64::total_cmp);
    Ok(samples[runs / 2])
}
