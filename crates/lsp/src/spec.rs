//! What each language server is, where editkit finds it, and how it is started so that
//! nothing the repository ships or configures runs: the program, every program it starts
//! and every setting that could name one are chosen here, outside the workspace.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use std::ffi::OsStr;

use editkit_run::{Invocation, PrivateDir, Roots, Run, find_program_on};
use serde_json::{Value, json};

/// A language editkit has a server for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Language {
    /// basedpyright or pyright.
    Python,
    /// typescript-language-server with TypeScript's tsserver (also JavaScript).
    TypeScript,
    /// rust-analyzer from the toolchain's sysroot.
    Rust,
}

impl Language {
    /// The language of a file, by its extension.
    #[must_use]
    pub fn of_path(path: &Path) -> Option<Language> {
        match path.extension()?.to_str()? {
            "py" | "pyi" => Some(Language::Python),
            "ts" | "tsx" | "mts" | "cts" | "js" | "jsx" | "mjs" | "cjs" => Some(Language::TypeScript),
            "rs" => Some(Language::Rust),
            _ => None,
        }
    }

    /// Its name in results: `python`, `typescript` or `rust`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::TypeScript => "typescript",
            Language::Rust => "rust",
        }
    }

    /// The command that installs its server.
    #[must_use]
    pub fn install(self) -> &'static str {
        match self {
            Language::Python => "pip install basedpyright (or pyright), then put its bin folder on PATH",
            Language::TypeScript => {
                "npm install -g typescript-language-server@5 typescript@6 (tsserver must be on PATH or beside it)"
            }
            Language::Rust => "rustup component add rust-analyzer rust-src",
        }
    }

    /// The protocol's language id for `path`.
    #[must_use]
    pub fn language_id(self, path: &Path) -> &'static str {
        let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        match (self, extension) {
            (Language::Python, _) => "python",
            (Language::Rust, _) => "rust",
            (Language::TypeScript, "tsx") => "typescriptreact",
            (Language::TypeScript, "js" | "mjs" | "cjs") => "javascript",
            (Language::TypeScript, "jsx") => "javascriptreact",
            (Language::TypeScript, _) => "typescript",
        }
    }
}

/// Why no server runs for a language, and what to install.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no {} language server: {reason} (install: {install})", language.as_str())]
pub struct Unavailable {
    /// The language.
    pub language: Language,
    /// Why.
    pub reason: String,
    /// What to install.
    pub install: String,
}

impl Unavailable {
    pub(crate) fn new(language: Language, reason: impl Into<String>) -> Unavailable {
        Unavailable { language, reason: reason.into(), install: language.install().to_owned() }
    }
}

/// How one server is started: all of it decided outside the workspace.
#[derive(Debug, Clone)]
pub(crate) struct Launch {
    pub(crate) program: PathBuf,
    pub(crate) args: Vec<String>,
    pub(crate) env: Vec<(String, OsString)>,
    pub(crate) search_path: OsString,
    pub(crate) init_options: Value,
    /// Answers to `workspace/configuration`, by section.
    pub(crate) configuration: Value,
    /// typescript-language-server must report the tsserver editkit chose.
    pub(crate) check_typescript_source: bool,
}

/// Where programs are looked up: the `PATH` value searched (its entries outside every root
/// only) and the roots.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lookup<'a> {
    pub(crate) path: Option<&'a OsStr>,
    pub(crate) roots: &'a Roots,
}

/// Finds the server for `language` and everything it will start, outside every root.
pub(crate) fn locate(language: Language, lookup: Lookup<'_>, root: &Path, dir: &Path) -> Result<Launch, Unavailable> {
    match language {
        Language::Python => python(lookup),
        Language::TypeScript => typescript(lookup),
        Language::Rust => rust(lookup, root, dir),
    }
}

fn found(language: Language, name: &str, lookup: Lookup<'_>) -> Result<editkit_run::Program, Unavailable> {
    find_program_on(lookup.path, name, lookup.roots)
        .map_err(|error| Unavailable::new(language, format!("`{name}` on PATH outside the workspace: {error}")))
}

fn python(lookup: Lookup<'_>) -> Result<Launch, Unavailable> {
    let language = Language::Python;
    let server = found(language, "basedpyright-langserver", lookup)
        .or_else(|_| found(language, "pyright-langserver", lookup))?;
    // basedpyright runs `.venv/bin/python` of the workspace when it finds one, unless told
    // which interpreter to ask for `sys.path`: the one on PATH outside the workspace.
    let python = found(language, "python3", lookup)?;
    let python_path = python.path.to_string_lossy().into_owned();
    let analysis = json!({"diagnosticMode": "openFilesOnly", "autoSearchPaths": true, "typeCheckingMode": "standard"});
    Ok(Launch {
        program: server.path,
        args: vec!["--stdio".to_owned()],
        env: Vec::new(),
        search_path: server.search_path,
        init_options: json!({}),
        configuration: json!({
            "python": {"pythonPath": python_path, "analysis": analysis},
            "basedpyright": {"analysis": analysis},
        }),
        check_typescript_source: false,
    })
}

fn typescript(lookup: Lookup<'_>) -> Result<Launch, Unavailable> {
    let language = Language::TypeScript;
    let server = found(language, "typescript-language-server", lookup)?;
    let tsserver = tsserver_js(&server.path, lookup).ok_or_else(|| {
        Unavailable::new(
            language,
            "no tsserver.js outside the workspace (TypeScript 6 or older, beside the server or on PATH)",
        )
    })?;
    Ok(Launch {
        program: server.path,
        args: vec!["--stdio".to_owned()],
        env: Vec::new(),
        search_path: server.search_path,
        // An explicit tsserver path keeps the server from taking the workspace's
        // `node_modules/typescript`; no plugins are named, so none load, and automatic type
        // acquisition (which runs npm) is off.
        init_options: json!({
            "tsserver": {"path": tsserver.to_string_lossy()},
            "disableAutomaticTypingAcquisition": true,
            "hostInfo": "editkit",
        }),
        configuration: json!({}),
        check_typescript_source: true,
    })
}

/// TypeScript's `lib/tsserver.js`: beside `tsserver` on PATH, else beside the server's own
/// package; outside every root, and present.
fn tsserver_js(server: &Path, lookup: Lookup<'_>) -> Option<PathBuf> {
    let mut candidates = Vec::new();
    if let Ok(tsserver) = find_program_on(lookup.path, "tsserver", lookup.roots)
        && let Ok(real) = tsserver.path.canonicalize()
        && let Some(package) = real.parent().and_then(Path::parent)
    {
        candidates.push(package.join("lib/tsserver.js"));
    }
    if let Ok(real) = server.canonicalize() {
        // <node_modules>/typescript-language-server/lib/cli.mjs
        if let Some(node_modules) = real.ancestors().nth(3) {
            candidates.push(node_modules.join("typescript/lib/tsserver.js"));
        }
    }
    candidates.into_iter().filter_map(|candidate| candidate.canonicalize().ok()).find(|candidate| {
        candidate.is_file()
            && !lookup.roots.contain(candidate)
            && candidate.parent().is_some_and(|lib| lib.join("../package.json").is_file())
    })
}

fn rust(lookup: Lookup<'_>, root: &Path, dir: &Path) -> Result<Launch, Unavailable> {
    let language = Language::Rust;
    let sysroot = sysroot(lookup, dir)?;
    // Told which project to load, rust-analyzer discovers none, so no `rust-project.json`
    // names its sysroot.
    let linked_projects = crate::project::linked_projects(root).map_err(|reason| Unavailable::new(language, reason))?;
    let program = sysroot.join("bin/rust-analyzer");
    if !program.is_file() {
        return Err(Unavailable::new(
            language,
            format!("no rust-analyzer in the toolchain at `{}`", sysroot.display()),
        ));
    }
    let toolchain = sysroot.file_name().map(OsString::from).unwrap_or_default();
    let private_target = dir.join("target");
    // The toolchain's own folder first: rust-analyzer runs `cargo` and `rustc` by name, and a
    // rustup proxy there would choose a toolchain by the workspace's files.
    let rest = found(language, "rustc", lookup)?.search_path;
    let search_path = std::env::join_paths(std::iter::once(sysroot.join("bin")).chain(std::env::split_paths(&rest)))
        .map_err(|error| Unavailable::new(language, format!("no PATH for the toolchain: {error}")))?;
    // The toolchain is pinned by path, so no `rust-toolchain.toml` picks another; every way a
    // `.cargo/config.toml` could name a program for cargo is overridden by the environment,
    // which cargo reads first.
    let env = vec![
        ("RUSTUP_TOOLCHAIN".to_owned(), toolchain),
        ("RUSTC".to_owned(), sysroot.join("bin/rustc").into_os_string()),
        ("CARGO".to_owned(), sysroot.join("bin/cargo").into_os_string()),
        ("CARGO_BUILD_RUSTC".to_owned(), sysroot.join("bin/rustc").into_os_string()),
        ("RUSTC_WRAPPER".to_owned(), OsString::new()),
        ("RUSTC_WORKSPACE_WRAPPER".to_owned(), OsString::new()),
        ("CARGO_BUILD_RUSTC_WRAPPER".to_owned(), OsString::new()),
        ("CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER".to_owned(), OsString::new()),
        ("CARGO_ENCODED_RUSTFLAGS".to_owned(), OsString::new()),
        ("CARGO_NET_OFFLINE".to_owned(), OsString::from("true")),
        ("CARGO_TARGET_DIR".to_owned(), private_target.into_os_string()),
        // A private cargo home: cargo may write its locks there (the real one is read-only
        // under Landlock), no `$CARGO_HOME/bin` proxy or user configuration is picked up,
        // and rust-analyzer runs the toolchain's own cargo named above. A crate with
        // dependencies then cannot be resolved offline: rust-analyzer says so in its status.
        ("CARGO_HOME".to_owned(), dir.join("cargo-home").into_os_string()),
    ];
    Ok(Launch {
        program,
        args: Vec::new(),
        env,
        search_path,
        init_options: json!({
            "cargo": {"sysroot": sysroot.to_string_lossy(), "buildScripts": {"enable": false}},
            "linkedProjects": linked_projects,
            "files": {"watcher": "client"},
            "procMacro": {"enable": false},
            "checkOnSave": false,
            "cachePriming": {"enable": false},
            "numThreads": 1,
        }),
        configuration: json!({}),
        check_typescript_source: false,
    })
}

/// The toolchain's sysroot, asked of `rustc` on PATH, outside every root. rustup looks for a
/// `rust-toolchain.toml` in the working folder and every parent, the private folder's parents
/// too (a `/tmp/rust-toolchain.toml` any local user can write): the toolchain is pinned with
/// `RUSTUP_TOOLCHAIN` to rustup's own default (`rustup default`, which reads no such file),
/// when `rustup` is on PATH; without it `rustc` is no rustup proxy.
fn sysroot(lookup: Lookup<'_>, dir: &Path) -> Result<PathBuf, Unavailable> {
    let language = Language::Rust;
    let rustc = found(language, "rustc", lookup)?;
    let mut env = Vec::new();
    if let Ok(rustup) = find_program_on(lookup.path, "rustup", lookup.roots) {
        let default = ask(rustup.path, &["default"], rustup.search_path, Vec::new(), dir)?;
        let name = default.split_whitespace().next().unwrap_or("").to_owned();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)) {
            return Err(Unavailable::new(language, "`rustup default` names no toolchain"));
        }
        env.push(("RUSTUP_TOOLCHAIN".to_owned(), OsString::from(name)));
    }
    let stdout = ask(rustc.path, &["--print", "sysroot"], rustc.search_path, env, dir)?;
    let sysroot = PathBuf::from(stdout.trim());
    let sysroot = sysroot
        .canonicalize()
        .map_err(|error| Unavailable::new(language, format!("sysroot `{}`: {error}", sysroot.display())))?;
    if lookup.roots.contain(&sysroot) {
        return Err(Unavailable::new(language, format!("the sysroot `{}` lies in the workspace", sysroot.display())));
    }
    Ok(sysroot)
}

/// The stdout of `program args` run confined from `dir`; its stderr is never shown (it can
/// quote files).
fn ask(
    program: PathBuf,
    args: &[&str],
    path: OsString,
    env: Vec<(String, OsString)>,
    dir: &Path,
) -> Result<String, Unavailable> {
    let shown = format!("`{} {}`", program.file_name().unwrap_or_default().to_string_lossy(), args.join(" "));
    let invocation = Invocation {
        program,
        args: args.iter().map(|arg| (*arg).to_owned()).collect(),
        stdin: &[],
        dir,
        path,
        timeout: Duration::from_secs(30),
        max_stdout: 4096,
        env,
    };
    let (ran, _) = editkit_run::run(&invocation);
    match ran {
        Run::Exited { code: 0, stdout, .. } => Ok(String::from_utf8_lossy(&stdout).into_owned()),
        Run::Exited { code, .. } => Err(Unavailable::new(Language::Rust, format!("{shown} exited with code {code}"))),
        Run::TimedOut => Err(Unavailable::new(Language::Rust, format!("{shown} took more than 30 s"))),
        _ => Err(Unavailable::new(Language::Rust, format!("{shown} could not run"))),
    }
}

/// A fresh private folder for one server, with its cache folder.
pub(crate) fn private_dir(language: Language, roots: &Roots) -> Result<PrivateDir, Unavailable> {
    let dir =
        PrivateDir::new(roots).map_err(|error| Unavailable::new(language, format!("no private folder: {error}")))?;
    if roots.contain(dir.path()) {
        // Its parents would be the workspace's: toolchain files there would be read.
        return Err(Unavailable::new(
            language,
            format!("the private folder `{}` would lie in the workspace; set TMPDIR outside it", dir.path().display()),
        ));
    }
    std::fs::create_dir_all(dir.path().join("cache"))
        .map_err(|error| Unavailable::new(language, format!("no private folder: {error}")))?;
    Ok(dir)
}
