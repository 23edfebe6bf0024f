//! Side-by-side timing of editkit-search and ripgrep over a large real tree.
//!
//! ```text
//! cargo run --release -p editkit-search --example bench_tree -- [DIR] [--runs N] [--min-files N] [--min-mb N]
//! ```
//!
//! 1. Builds, unless it is already there, a tree under `DIR/tree` (default: a folder in the
//!    temp dir) of at least 50,000 files and 500 MB by copying real source trees of this
//!    machine, repeatedly if needed: the Rust standard library sources, the cargo registry,
//!    Python's library and `/usr/share`. `DIR/tree.done` records its size.
//! 2. Times, warm cache, the median of several runs of editkit's search next to `rg` with the
//!    same options, for a literal and for a regex, two ways: every matching line with line
//!    and column (`rg --no-config -n --column`) and files with matches only (`rg -l`), and
//!    prints the ratios. ripgrep must be installed (`apt-get install -y ripgrep`).

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use editkit_search::Search;
use editkit_vfs::Workspace;

struct Args {
    dir: PathBuf,
    runs: usize,
    min_files: u64,
    min_bytes: u64,
    /// Run only editkit's side of one case, repeatedly (for profiling): `literal` or `regex`.
    profile: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        dir: std::env::temp_dir().join("editkit-bench-search"),
        runs: 7,
        min_files: 50_000,
        min_bytes: 500 << 20,
        profile: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut number = |name: &str| -> Result<u64, String> {
            it.next().and_then(|v| v.parse().ok()).ok_or_else(|| format!("{name} needs a number"))
        };
        match arg.as_str() {
            "--runs" => args.runs = usize::try_from(number("--runs")?).map_err(|e| e.to_string())?.max(1),
            "--min-files" => args.min_files = number("--min-files")?,
            "--min-mb" => args.min_bytes = number("--min-mb")? << 20,
            "--profile" => args.profile = it.next(),
            "-h" | "--help" => {
                return Err(
                    "usage: bench_tree [DIR] [--runs N] [--min-files N] [--min-mb N] [--profile literal|regex]".into(),
                );
            }
            other if !other.starts_with('-') => args.dir = PathBuf::from(other),
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(args)
}

fn main() {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(2);
        }
    };
    if let Err(message) = run(&args) {
        eprintln!("bench_tree: {message}");
        std::process::exit(1);
    }
}

fn run(args: &Args) -> Result<(), String> {
    let tree = args.dir.join("tree");
    let (files, bytes) = ensure_tree(&tree, &args.dir.join("tree.done"), args.min_files, args.min_bytes)?;
    println!("tree: {} ({files} files, {} MB)", tree.display(), bytes >> 20);
    let rg_version = Command::new("rg")
        .arg("--version")
        .output()
        .map_err(|e| format!("cannot run rg ({e}); apt-get install -y ripgrep"))?;
    println!("{}", String::from_utf8_lossy(&rg_version.stdout).lines().next().unwrap_or("rg"));
    println!(
        "cores: {}, runs: {} (median, warm cache)",
        std::thread::available_parallelism().map_or(1, usize::from),
        args.runs
    );
    let workspace = Workspace::builder(&tree, editkit_vfs::ambient_authority())
        .max_read_bytes(u64::MAX)
        .open()
        .map_err(|e| e.to_string())?;
    let cases: [(&str, &str, bool); 2] = [("literal", "unwrap_or_else", true), ("regex", r"fn \w+_to_\w+\(", false)];
    println!();
    println!("wall: median elapsed time; cpu: mean user+sys time per run (robust on a busy machine)");
    println!(
        "{:<22} {:>10} {:>10} {:>7}   {:>10} {:>10} {:>7}   {:>17}",
        "case", "editkit", "rg", "wall", "editkit cpu", "rg cpu", "cpu", "files e / rg"
    );
    for (name, pattern, literal) in cases {
        if let Some(only) = &args.profile {
            if only == name {
                let search = Search::builder(pattern)
                    .literal(literal)
                    .max_results(usize::MAX)
                    .build()
                    .map_err(|e| e.to_string())?;
                for _ in 0..args.runs {
                    std::hint::black_box(search.run(&workspace, ".").map_err(|e| e.to_string())?);
                }
            }
            continue;
        }
        for lines in [true, false] {
            let mut builder = Search::builder(pattern);
            builder.literal(literal).max_file_size(u64::MAX).max_line_chars(usize::MAX);
            builder.max_results(if lines { usize::MAX } else { 0 });
            let search = builder.build().map_err(|e| e.to_string())?;
            let mut rg = Command::new("rg");
            rg.args(["--no-config", "--no-messages", "--color", "never"]);
            if lines {
                rg.args(["-n", "--column", "--no-heading"]);
            } else {
                rg.arg("-l");
            }
            if literal {
                rg.arg("-F");
            }
            rg.args(["-e", pattern]).arg(&tree);
            // Warm the cache and check both find the same files.
            let ours = search.run(&workspace, ".").map_err(|e| e.to_string())?;
            let theirs = rg_files_with_matches(&tree, pattern, literal)?;
            let timing = compare(
                args.runs,
                || {
                    std::hint::black_box(search.run(&workspace, ".").expect("search"));
                },
                &mut rg,
            );
            let case = format!("{name} ({})", if lines { "lines" } else { "files" });
            timing.print(&case, ours.files_with_matches, theirs);
        }
    }
    if args.profile.is_some() {
        return Ok(());
    }
    // The walk alone: every file the rules admit, against `rg --files`.
    let lister = editkit_search::Files::builder("**").max_files(usize::MAX).build().map_err(|e| e.to_string())?;
    let listed = lister.run(&workspace, ".").map_err(|e| e.to_string())?;
    let mut rg = Command::new("rg");
    rg.args(["--no-config", "--no-messages", "--files"]).arg(&tree);
    let rg_listed = rg.output().map_err(|e| e.to_string())?.stdout.iter().filter(|&&b| b == b'\n').count();
    let timing = compare(
        args.runs,
        || {
            std::hint::black_box(lister.run(&workspace, ".").expect("files"));
        },
        &mut rg,
    );
    timing.print("walk only (--files)", listed.files.len(), rg_listed);
    Ok(())
}

/// CPU seconds (user + system) of this process and of its waited-for children, from
/// `/proc/self/stat` (zero where it is unavailable).
fn cpu_seconds() -> (f64, f64) {
    let Ok(stat) = fs::read_to_string("/proc/self/stat") else { return (0.0, 0.0) };
    // Fields after the command name (which may hold spaces) start at field 3.
    let Some((_, rest)) = stat.rsplit_once(')') else { return (0.0, 0.0) };
    let fields: Vec<f64> = rest.split_whitespace().map(|f| f.parse().unwrap_or(0.0)).collect();
    let tick = 100.0; // USER_HZ on Linux
    let at = |i: usize| fields.get(i - 3).copied().unwrap_or(0.0) / tick;
    (at(14) + at(15), at(16) + at(17))
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// Wall and CPU times of editkit and rg for one case.
struct Timing {
    editkit: Duration,
    rg: Duration,
    editkit_cpu: f64,
    rg_cpu: f64,
}

impl Timing {
    fn print(&self, case: &str, editkit_files: usize, rg_files: usize) {
        println!(
            "{case:<22} {:>8.1}ms {:>8.1}ms {:>6.2}x   {:>8.1}ms {:>8.1}ms {:>6.2}x   {:>7} / {:<7}",
            ms(self.editkit),
            ms(self.rg),
            self.editkit.as_secs_f64() / self.rg.as_secs_f64(),
            self.editkit_cpu * 1000.0,
            self.rg_cpu * 1000.0,
            self.editkit_cpu / self.rg_cpu.max(1e-9),
            editkit_files,
            rg_files
        );
    }
}

/// Runs editkit and rg alternately `runs` times (so that load from elsewhere hits both alike);
/// returns the median wall times and the mean CPU times.
fn compare(runs: usize, mut editkit: impl FnMut(), rg: &mut Command) -> Timing {
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    let (mut ours_cpu, mut theirs_cpu) = (0.0, 0.0);
    for _ in 0..runs {
        let (cpu, _) = cpu_seconds();
        let start = Instant::now();
        editkit();
        ours.push(start.elapsed());
        ours_cpu += cpu_seconds().0 - cpu;
        let (_, cpu) = cpu_seconds();
        let start = Instant::now();
        run_captured(rg);
        theirs.push(start.elapsed());
        theirs_cpu += cpu_seconds().1 - cpu;
    }
    ours.sort();
    theirs.sort();
    Timing {
        editkit: ours[runs / 2],
        rg: theirs[runs / 2],
        editkit_cpu: ours_cpu / runs as f64,
        rg_cpu: theirs_cpu / runs as f64,
    }
}

/// Runs the command, reading all of its output through a pipe (ripgrep treats a stdout of
/// `/dev/null` specially, so the output must really be consumed).
fn run_captured(command: &mut Command) {
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("spawn rg");
    let mut sink = Vec::new();
    if let Some(mut stdout) = child.stdout.take() {
        stdout.read_to_end(&mut sink).expect("read rg output");
    }
    child.wait().expect("wait for rg");
    std::hint::black_box(sink);
}

fn rg_files_with_matches(tree: &Path, pattern: &str, literal: bool) -> Result<usize, String> {
    let mut rg = Command::new("rg");
    rg.args(["--no-config", "--no-messages", "-l"]);
    if literal {
        rg.arg("-F");
    }
    let output = rg.args(["-e", pattern]).arg(tree).output().map_err(|e| e.to_string())?;
    Ok(output.stdout.iter().filter(|&&b| b == b'\n').count())
}

/// The source trees copied into the bench tree, in order.
fn sources() -> Vec<PathBuf> {
    let mut sources = Vec::new();
    if let Ok(out) = Command::new("rustc").args(["--print", "sysroot"]).output() {
        let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        sources.push(sysroot.join("lib/rustlib/src"));
    }
    if let Some(home) = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
    {
        sources.push(home.join("registry/src"));
    }
    if let Ok(entries) = fs::read_dir("/usr/lib") {
        let mut pythons: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("python3")))
            .collect();
        pythons.sort();
        sources.extend(pythons);
    }
    sources.push(PathBuf::from("/usr/share"));
    sources.retain(|p| p.is_dir());
    sources
}

/// Builds the tree unless `done` says it exists; returns (files, bytes).
fn ensure_tree(tree: &Path, done: &Path, min_files: u64, min_bytes: u64) -> Result<(u64, u64), String> {
    if let Ok(text) = fs::read_to_string(done) {
        let mut numbers = text.split_whitespace().filter_map(|n| n.parse::<u64>().ok());
        if let (Some(files), Some(bytes)) = (numbers.next(), numbers.next())
            && files >= min_files
            && bytes >= min_bytes
            && tree.is_dir()
        {
            return Ok((files, bytes));
        }
    }
    let sources = sources();
    if sources.is_empty() {
        return Err("no source trees to copy on this machine".into());
    }
    let _ = fs::remove_dir_all(tree);
    fs::create_dir_all(tree).map_err(|e| format!("cannot create {}: {e}", tree.display()))?;
    eprintln!("building {} from {} source trees...", tree.display(), sources.len());
    let mut total = Totals { files: 0, bytes: 0, min_files, min_bytes };
    let mut copy = 0;
    while !total.enough() {
        let before = total.files;
        for (i, source) in sources.iter().enumerate() {
            let name = source.to_string_lossy().trim_start_matches('/').replace('/', "_");
            copy_tree(source, &tree.join(format!("copy{copy}/{i}-{name}")), &mut total);
            if total.enough() {
                break;
            }
        }
        if total.files == before {
            return Err("the source trees hold no readable files".into());
        }
        copy += 1;
    }
    fs::write(done, format!("{} {}\n", total.files, total.bytes)).map_err(|e| e.to_string())?;
    Ok((total.files, total.bytes))
}

struct Totals {
    files: u64,
    bytes: u64,
    min_files: u64,
    min_bytes: u64,
}

impl Totals {
    fn enough(&self) -> bool {
        self.files >= self.min_files && self.bytes >= self.min_bytes
    }
}

/// Copies regular files and directories (not links, not special files) until `total` is enough.
fn copy_tree(from: &Path, to: &Path, total: &mut Totals) {
    let Ok(entries) = fs::read_dir(from) else { return };
    if fs::create_dir_all(to).is_err() {
        return;
    }
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        if total.enough() {
            return;
        }
        let Ok(kind) = entry.file_type() else { continue };
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target, total);
        } else if kind.is_file()
            && let Ok(bytes) = fs::copy(entry.path(), &target)
        {
            total.files += 1;
            total.bytes += bytes;
        }
    }
}
