//! The command line: `editkit`'s subcommands and their flags, and how a toolkit opens from
//! them.

use std::path::PathBuf;
use std::str::FromStr;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand};
use editkit::analyze::DiagnosticsMode;
use editkit::{Durability, StaleMode};

/// What `editkit --help` ends with: where to start, and the exit codes ([`crate::exit`]).
pub(crate) const AFTER_HELP: &str = "Start with `editkit demo`. Serve an agent with `editkit mcp --root /abs/path/to/project`.\n\
                                     Exit codes: 0 done, 1 refused (not found, ambiguous, stale...), 2 usage or input error.";

#[derive(Debug, Parser)]
#[command(
    name = "editkit",
    version,
    about = "File tools AI coding agents can trust: an MCP server, a JSON tool-call CLI, and commands for people",
    after_help = AFTER_HELP
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// Where the tools work.
#[derive(Debug, Clone, Args)]
pub(crate) struct WorkspaceArgs {
    /// Workspace root; repeat for several (the first is primary). Default: the current directory.
    #[arg(long = "root", value_name = "DIR")]
    pub(crate) roots: Vec<PathBuf>,
    /// Refuse paths matching this pattern (repeatable), besides the built-in list (.git, .env,
    /// private keys, credential files...). `.gitignore` syntax: `*.secret` matches at any depth,
    /// `/a.txt` and `docs/private` only from the root, `secrets/` a directory and all it holds.
    #[arg(long = "block", value_name = "PATTERN")]
    blocked: Vec<String>,
    /// Serve files with several names (hard links) under this folder (repeatable; `.gitignore`
    /// syntax), such as `node_modules/` where pnpm, Bun or Yarn link files from their store.
    /// Elsewhere they are refused: another name of the file may be `.env` or a file outside the
    /// workspace.
    #[arg(long = "hard-links", value_name = "FOLDER")]
    hard_links: Vec<String>,
    /// Folder for editkit's own state (locks, patch journals, undo history), one sub-folder per
    /// root; never inside a workspace. Default: $XDG_STATE_HOME/editkit, else ~/.local/state/editkit.
    #[arg(long = "state-dir", value_name = "DIR")]
    state_dir: Option<PathBuf>,
    /// Most bytes of undo history kept per root (every file's versions and patches together);
    /// past it the oldest versions are dropped first, and `history` says how many went.
    #[arg(long, value_name = "BYTES", default_value_t = editkit::DEFAULT_HISTORY_BYTES)]
    history_bytes: u64,
}

/// What runs after a write.
#[derive(Debug, Clone, Args)]
pub(crate) struct WriteArgs {
    /// Post-write checks: `auto` reports only problems, `on` reports every checker's verdict,
    /// `off` skips the external checkers (ruff, the Python compiler, eslint...; the built-in
    /// syntax check still decides the exit code of a terminal command).
    #[arg(long, default_value_t = DiagnosticsMode::Auto, value_parser = words::<DiagnosticsMode>(DiagnosticsMode::NAMES))]
    diagnostics: DiagnosticsMode,
    /// Run the formatter for each written file's language (ruff/black, prettier, gofmt, rustfmt).
    #[arg(long)]
    format: bool,
    /// How far each write goes before it returns: `full` fsyncs the file and its directory (a
    /// finished write survives a power failure), `atomic` only renames a complete temp file into
    /// place (never torn by a crash, but a power failure may lose the latest writes; faster).
    #[arg(long, default_value_t = Durability::Full, value_parser = words::<Durability>(Durability::NAMES))]
    durability: Durability,
}

/// The bounds of a long-running server or call stream.
#[derive(Debug, Clone, Args)]
pub(crate) struct LimitArgs {
    /// Most matching work one patch may take (hunks × bytes they search, summed over its
    /// files); a patch needing more is refused as `too_large`.
    #[arg(long, value_name = "UNITS", default_value_t = editkit::patch::DEFAULT_MAX_WORK)]
    max_patch_work: u64,
    /// Most editor sessions open at once; past it the least recently used is evicted.
    #[arg(long, value_name = "N", default_value_t = editkit::DEFAULT_MAX_SESSIONS)]
    max_sessions: usize,
    /// Most bytes all editor sessions hold together; past it the least recently used are evicted.
    #[arg(long, value_name = "BYTES", default_value_t = editkit::DEFAULT_MAX_SESSION_BYTES)]
    max_session_bytes: u64,
    /// Largest file a tool reads or edits; a larger one is refused as `too_large`. An edit of a
    /// file of this size holds a few copies of it in memory.
    #[arg(long, value_name = "BYTES", default_value_t = editkit::vfs::DEFAULT_MAX_READ_BYTES)]
    max_read_bytes: u64,
    /// Most bytes of text one call gathers from many places: the files of read_files together,
    /// a search's matches with their context. Past it the rest is left out (`truncated`, or
    /// `too_large` for the files not read).
    #[arg(long, value_name = "BYTES", default_value_t = editkit::DEFAULT_MAX_CALL_BYTES)]
    max_call_bytes: u64,
    /// Most bytes kept of what reads and edits saw (one version per file, the oldest dropped
    /// first): the bases an edit of a file changed since is merged against. An edit whose base
    /// was dropped is refused as `stale`, as before.
    #[arg(long, value_name = "BYTES", default_value_t = editkit::DEFAULT_KEPT_READ_BYTES)]
    kept_read_bytes: u64,
}

/// How a terminal command prints.
#[derive(Debug, Clone, Copy, Args)]
pub(crate) struct OutputArgs {
    /// Print the tool's result object as JSON (what an agent gets) instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Whether a command that writes writes, and what it does with a file changed since editkit
/// read it: the flags `edit`, `snippet` and `apply` share, as the tools' `dry_run`, `force`
/// and `stale`.
#[derive(Debug, Clone, Copy, Args)]
pub(crate) struct ChangeArgs {
    /// Show the diff without writing.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Write even if a file changed since editkit read it.
    #[arg(long)]
    pub(crate) force: bool,
    /// When a file changed since editkit read it: `merge` applies the change to the file as it
    /// is if the lines it changes are untouched (for a patch: all files or none); `strict`
    /// refuses.
    #[arg(long, value_name = "MODE", default_value_t = StaleMode::Merge, value_parser = words::<StaleMode>(StaleMode::NAMES))]
    pub(crate) stale: StaleMode,
}

/// A parser of one of a type's words: clap offers `names` (in `--help`, completions and its
/// refusal of another word), and the type's own `FromStr` makes the value, so the words have
/// one owner, the type.
fn words<T>(names: &'static [&'static str]) -> impl TypedValueParser<Value = T>
where
    T: FromStr<Err = String> + Clone + Send + Sync + 'static,
{
    PossibleValuesParser::new(names.iter().copied()).try_map(|word| word.parse::<T>())
}

/// Where `editkit mcp` takes its roots from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum RootsFrom {
    /// The client's roots (`roots/list`), falling back to --root or the current directory.
    Client,
    /// The --root arguments only.
    Given,
}

/// A switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OnOff {
    On,
    Off,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Serve the tools over MCP on stdio (logs go to stderr).
    ///
    /// Without --root, the roots are the client's (asked with roots/list; a client without
    /// roots gets the current directory). Name an absolute root in a client's configuration:
    /// a relative one resolves against wherever the client starts the server.
    ///
    /// With --http, what clients hold is bounded: the soft descriptor limit is raised to the
    /// hard one at start; connections in total and before they send the token, the time a
    /// request's head and body may take, and the MCP sessions open and how long one may idle
    /// each have a flag (--max-connections ... --session-idle-timeout) and a default shown
    /// below. Log lines are rate-limited and never hold up serving.
    #[command(
        after_help = "Examples:\n  editkit mcp --root /home/me/project\n  editkit mcp --root \"$PWD\" --tools core,editor\n  EDITKIT_MCP_TOKEN=... editkit mcp --root /home/me/project --http 127.0.0.1:8765"
    )]
    Mcp {
        #[command(flatten)]
        workspace: WorkspaceArgs,
        #[command(flatten)]
        write: WriteArgs,
        #[command(flatten)]
        limits: LimitArgs,
        /// Expose only the tools that never write.
        #[arg(long)]
        read_only: bool,
        /// The tools offered: `core` (reading, writing, editing, patching, searching and
        /// arranging files), `all`, or set and tool names separated by commas (sets: core,
        /// paths, code, seed, editor, notebook, code_intel; e.g. `core,editor`).
        #[arg(long, value_name = "SET", default_value = "core")]
        tools: editkit::tools::ToolSelection,
        /// Take the workspace roots from the client (`client`), or only from --root
        /// (`given`). Default: `client` without --root, `given` with it.
        #[arg(long = "roots", id = "roots_from", value_enum)]
        roots_from: Option<RootsFrom>,
        /// Publish each tool's output schema (compact: without descriptions) for clients that
        /// validate structured results; off by default to keep tools/list small.
        #[arg(long)]
        output_schemas: bool,
        /// Number the lines of a read's text (`cat -n` style), as models cite them.
        #[arg(long, value_enum, default_value_t = OnOff::On)]
        line_numbers: OnOff,
        /// Largest read answered whole, in bytes: a longer one answers the lines that fit and
        /// the offset that reads on.
        #[arg(long, value_name = "BYTES", default_value_t = 64 << 10)]
        page_bytes: usize,
        /// For a client that declares the tasks extension (protocol 2026-07-28): a search,
        /// glob, tree or apply_patch still running after this many milliseconds goes on as a
        /// task the client polls (0: at once; a patch over 32 files or 256 hunks at once).
        #[arg(long, value_name = "MS", default_value_t = 2000)]
        task_after_ms: u64,
        /// After each write, the written file's diagnostics from its language server
        /// (basedpyright or pyright, typescript-language-server, rust-analyzer, found on PATH
        /// outside every root and confined), started on first need: `server_diagnostics` in the
        /// result says `fresh`, `stale`, `timed_out` (after 3 s for Python, 5 s for
        /// TypeScript/JavaScript and Rust) or `unavailable`. `off`: no server starts for writes.
        #[arg(long, value_enum, default_value_t = OnOff::On)]
        server_diagnostics: OnOff,
        /// Serve streamable HTTP on this address (`127.0.0.1:8765`; port 0 picks one) instead
        /// of stdio, so several agents share one server and its locks. Each session gets its
        /// own staleness guard and editor sessions.
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        /// The bearer token HTTP clients must send (at least 16 characters). Default:
        /// $EDITKIT_MCP_TOKEN, else a random one printed on stderr.
        #[arg(long, value_name = "TOKEN", requires = "http")]
        token: Option<String>,
        /// A browser origin allowed to call the HTTP server (`http://localhost:3000`;
        /// repeatable). Requests from any other origin are refused.
        #[arg(long, value_name = "ORIGIN", requires = "http")]
        allow_origin: Vec<String>,
        /// Allow --http on an address other than loopback.
        #[arg(long, requires = "http")]
        allow_remote: bool,
        #[command(flatten)]
        http_limits: crate::http::HttpLimits,
    },
    /// Run JSON tool calls: `{"tool": NAME, "args": {...}}` on stdin, one result on stdout.
    ///
    /// A result is `{"ok": true, ...}` or `{"ok": false, "error": {"kind", "message", ...}}`;
    /// a bad call (bad JSON, unknown tool, missing or mistyped argument) is an `invalid_args`
    /// result naming the field. One call exits 0 (ok), 1 (refused) or 2 (invalid call); with
    /// `--jsonl` every line is answered and the exit code is 0 at end of input.
    #[command(
        after_help = "Examples:\n  echo '{\"tool\": \"read_file\", \"args\": {\"path\": \"src/app.py\"}}' | editkit call --root .\n  editkit call --root . --jsonl < calls.jsonl"
    )]
    Call {
        #[command(flatten)]
        workspace: WorkspaceArgs,
        #[command(flatten)]
        write: WriteArgs,
        #[command(flatten)]
        limits: LimitArgs,
        /// One call per line until EOF, one result per line in the same order (an "id" is echoed).
        #[arg(long)]
        jsonl: bool,
        /// Refuse every tool that writes.
        #[arg(long)]
        read_only: bool,
        /// The tools callable: `all`, `core`, or set and tool names separated by commas.
        #[arg(long, value_name = "SET", default_value = "all")]
        tools: editkit::tools::ToolSelection,
        /// `on`: after each write, the written file's diagnostics from its language server
        /// (started on first need, kept for the next lines with --jsonl), as
        /// `server_diagnostics` in the result (see `editkit mcp --help`).
        #[arg(long, value_enum, default_value_t = OnOff::Off)]
        server_diagnostics: OnOff,
    },
    /// Show a file with its hash, type and symbols.
    #[command(after_help = "Examples:\n  editkit read src/app.py\n  editkit read src/app.py --offset 40 --limit 20")]
    Read {
        #[command(flatten)]
        workspace: WorkspaceArgs,
        #[command(flatten)]
        output: OutputArgs,
        /// The file, relative to the root.
        file: String,
        /// First line to show, 1-based.
        #[arg(long)]
        offset: Option<usize>,
        /// Most lines to show.
        #[arg(long)]
        limit: Option<usize>,
    },
    /// Replace one piece of text in a file (it must match exactly one place).
    #[command(
        after_help = "Examples:\n  editkit edit src/app.py --old 'return 0' --new 'return 1'\n  editkit edit src/app.py --old-file old.txt --new-file new.txt --dry-run\n\nExit codes: 0 done, 1 refused or the edit left a syntax error that was not there (see --allow-broken), 2 usage error."
    )]
    Edit(EditArgs),
    /// Merge a lazy snippet (changed parts, the rest elided by `... existing code ...` markers).
    #[command(
        after_help = "Examples:\n  editkit snippet src/app.py change.py\n  pbpaste | editkit snippet src/app.ts - --dry-run\n\nExit codes: 0 done, 1 refused, 2 usage error."
    )]
    Snippet(SnippetArgs),
    /// Apply a multi-file patch atomically (every file changes or none does).
    #[command(
        after_help = "Examples:\n  git diff | editkit apply -\n  editkit apply change.patch --dry-run\n\nExit codes: 0 done, 1 refused or the patch left a syntax error that was not there (see --allow-broken), 2 malformed patch."
    )]
    Apply {
        #[command(flatten)]
        workspace: WorkspaceArgs,
        #[command(flatten)]
        write: WriteArgs,
        #[command(flatten)]
        output: OutputArgs,
        /// The patch file, or `-` for stdin.
        patch: String,
        #[command(flatten)]
        change: ChangeArgs,
        /// Place hunks by exact text only (no tolerant matching).
        #[arg(long)]
        strict: bool,
        /// Write and exit 0 even when the patch leaves a syntax error that was not there before.
        #[arg(long)]
        allow_broken: bool,
    },
    /// Search file contents with a regex, like ripgrep (exit 1 when nothing matches).
    #[command(
        after_help = "Examples:\n  editkit grep 'def \\w+' src\n  editkit grep -F 'greet(' -C 2\n  editkit grep TODO --glob '**/*.py' -i"
    )]
    Grep {
        #[command(flatten)]
        workspace: WorkspaceArgs,
        #[command(flatten)]
        output: OutputArgs,
        /// The regex (a literal with -F).
        pattern: String,
        /// Directory or file to search, relative to the root.
        #[arg(default_value = ".")]
        path: String,
        /// Treat the pattern as a literal string.
        #[arg(short = 'F', long)]
        fixed_strings: bool,
        /// Only files matching this glob (e.g. `src/**/*.ts`).
        #[arg(long)]
        glob: Option<String>,
        /// Case-insensitive.
        #[arg(short = 'i', long)]
        ignore_case: bool,
        /// Lines of context before and after each match.
        #[arg(short = 'C', long, value_name = "N")]
        context: Option<usize>,
        /// Lines of context before each match.
        #[arg(short = 'B', long, value_name = "N")]
        before_context: Option<usize>,
        /// Lines of context after each match.
        #[arg(short = 'A', long, value_name = "N")]
        after_context: Option<usize>,
        /// Most matching lines (default: no limit at a terminal command; agents get 100).
        #[arg(long, value_name = "N")]
        max_results: Option<usize>,
    },
    /// List the functions, classes and methods of a file, or a Markdown file's outline.
    #[command(after_help = "Examples:\n  editkit symbols src/app.py\n  editkit symbols README.md")]
    Symbols {
        #[command(flatten)]
        workspace: WorkspaceArgs,
        #[command(flatten)]
        output: OutputArgs,
        /// The file, relative to the root.
        file: String,
    },
    /// Check a file for syntax errors (exit 1 when it has some).
    #[command(after_help = "Example:\n  editkit check src/app.py")]
    Check {
        #[command(flatten)]
        workspace: WorkspaceArgs,
        #[command(flatten)]
        output: OutputArgs,
        /// The file, relative to the root.
        file: String,
    },
    /// Show the diff between a workspace file and proposed content, without writing (exit 1
    /// when they differ, as diff(1)).
    #[command(
        after_help = "Examples:\n  editkit diff src/app.py /tmp/proposed.py\n  generate | editkit diff src/app.py -"
    )]
    Diff {
        #[command(flatten)]
        workspace: WorkspaceArgs,
        #[command(flatten)]
        output: OutputArgs,
        /// The workspace file, relative to the root.
        file: String,
        /// A file with the proposed content (anywhere), or `-` for stdin.
        new_file: String,
    },
    /// Restore a file to its content before editkit's last change to it (an edit, a write or a
    /// patch), or undo the last patch.
    #[command(after_help = "Examples:\n  editkit undo src/app.py\n  editkit undo --patch\n  editkit history")]
    Undo {
        #[command(flatten)]
        workspace: WorkspaceArgs,
        #[command(flatten)]
        output: OutputArgs,
        /// The file, relative to the root (leave it out with --patch).
        #[arg(required_unless_present = "patch")]
        file: Option<String>,
        /// Undo the last patch (or move, or recursive delete) as a whole.
        #[arg(long, conflicts_with = "file")]
        patch: bool,
        /// Undo a whole patch without asking (needed when stdin is not a terminal).
        #[arg(long, short = 'y')]
        yes: bool,
        /// Restore even if the file changed since.
        #[arg(long)]
        force: bool,
    },
    /// List the undo history: each file's kept versions and the patches, newest first.
    #[command(after_help = "Examples:\n  editkit history\n  editkit history src/app.py")]
    History {
        #[command(flatten)]
        workspace: WorkspaceArgs,
        #[command(flatten)]
        output: OutputArgs,
        /// Only this file's history.
        file: Option<String>,
    },
    /// Repair a patch interrupted by a crash (run automatically before the next patch).
    Recover {
        #[command(flatten)]
        workspace: WorkspaceArgs,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(after_help = "Example:\n  editkit completions bash > ~/.local/share/bash-completion/completions/editkit")]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) for `editkit`.
    #[command(after_help = "Example:\n  editkit man > ~/.local/share/man/man1/editkit.1")]
    Man,
    /// A walkthrough of what editkit does, on a throwaway copy of a small project.
    Demo,
}

impl Command {
    /// The workspace arguments of a subcommand that opens a workspace.
    pub(crate) fn workspace(&self) -> Option<&WorkspaceArgs> {
        match self {
            Command::Read { workspace, .. }
            | Command::Apply { workspace, .. }
            | Command::Grep { workspace, .. }
            | Command::Symbols { workspace, .. }
            | Command::Check { workspace, .. }
            | Command::Diff { workspace, .. }
            | Command::Undo { workspace, .. }
            | Command::History { workspace, .. }
            | Command::Recover { workspace }
            | Command::Mcp { workspace, .. }
            | Command::Call { workspace, .. } => Some(workspace),
            Command::Edit(args) => Some(&args.workspace),
            Command::Snippet(args) => Some(&args.workspace),
            Command::Demo | Command::Completions { .. } | Command::Man => None,
        }
    }

    /// What a command for people opens the toolkit with: the base options, its write
    /// arguments, and whether it hides the diagnostics. People get whole diffs (paged at a
    /// terminal; agents keep the bounded ones). `edit` and `apply` exit 1 when a write leaves a
    /// syntax error its file did not have, with `--diagnostics off` too: then the toolkit makes
    /// its built-in check alone, beside the write (no external checker runs), and the command
    /// shows what `off` shows.
    pub(crate) fn for_people(&self) -> (editkit::ToolkitOptions, Option<WriteArgs>, bool) {
        let mut options = editkit::ToolkitOptions { full_diffs: true, ..Default::default() };
        let judged = matches!(self, Command::Edit(_) | Command::Apply { .. });
        let mut write = self.write().cloned();
        let hidden = judged && write.as_ref().is_some_and(|write| write.diagnostics == DiagnosticsMode::Off);
        if let Some(write) = write.as_mut().filter(|_| hidden) {
            write.diagnostics = DiagnosticsMode::Auto;
            options.diagnostics.checkers.clear();
        }
        (options, write, hidden)
    }

    /// What runs after a write, for the commands that write.
    pub(crate) fn write(&self) -> Option<&WriteArgs> {
        match self {
            Command::Apply { write, .. } | Command::Mcp { write, .. } | Command::Call { write, .. } => Some(write),
            Command::Edit(args) => Some(&args.write),
            Command::Snippet(args) => Some(&args.write),
            _ => None,
        }
    }
}

impl WorkspaceArgs {
    /// Opens the toolkit with `options` as the base, and `write` and `limits` applied.
    pub(crate) fn open_with(
        &self,
        mut options: editkit::ToolkitOptions,
        write: Option<&WriteArgs>,
        limits: Option<&LimitArgs>,
    ) -> Result<editkit::Toolkit, editkit::Error> {
        let roots = if self.roots.is_empty() { vec![PathBuf::from(".")] } else { self.roots.clone() };
        options.policy.blocked.extend(self.blocked.iter().cloned());
        options.policy.hard_links_under.extend(self.hard_links.iter().cloned());
        if let Some(limits) = limits {
            options.max_patch_work = limits.max_patch_work;
            options.max_sessions = limits.max_sessions;
            options.max_session_bytes = limits.max_session_bytes;
            options.max_read_bytes = limits.max_read_bytes;
            options.max_call_bytes = limits.max_call_bytes;
            options.kept_read_bytes = limits.kept_read_bytes;
        }
        if let Some(write) = write {
            options.diagnostics.mode = write.diagnostics;
            options.formatting.enabled = write.format;
            options.durability = write.durability;
        }
        options.history_bytes = self.history_bytes;
        if let Some(dir) = &self.state_dir {
            // Relative to where editkit was started, like --root.
            options.state_home = Some(std::path::absolute(dir).unwrap_or_else(|_| dir.clone()));
        }
        let toolkit = editkit::Toolkit::open_roots(&roots, options)?;
        for workspace in toolkit.workspaces() {
            if let Some(note) = workspace.shipped_state() {
                eprintln!("editkit: {}", editkit::shown::line(&note.to_string()));
            }
        }
        Ok(toolkit)
    }
}

/// `editkit edit FILE --old … --new …`.
#[derive(Debug, Args)]
pub(crate) struct EditArgs {
    #[command(flatten)]
    pub(crate) workspace: WorkspaceArgs,
    #[command(flatten)]
    pub(crate) write: WriteArgs,
    #[command(flatten)]
    pub(crate) output: OutputArgs,
    /// The file, relative to the root.
    pub(crate) file: String,
    /// The text to replace (copy it from the file, with a line of context if it repeats).
    /// Repeat `--old … --new …` for several edits of the file in one write: each is found in
    /// the file as it is before the call, and all land or none does.
    #[arg(long, required_unless_present = "old_file", conflicts_with = "old_file", allow_hyphen_values = true)]
    pub(crate) old: Vec<String>,
    /// The replacement text (one for each `--old`, in the same order).
    #[arg(long, required_unless_present = "new_file", conflicts_with = "new_file", allow_hyphen_values = true)]
    pub(crate) new: Vec<String>,
    /// Read the text to replace from this file (`-` for stdin).
    #[arg(long, value_name = "PATH")]
    pub(crate) old_file: Option<String>,
    /// Read the replacement from this file (`-` for stdin).
    #[arg(long, value_name = "PATH")]
    pub(crate) new_file: Option<String>,
    /// Replace every occurrence instead of requiring exactly one.
    #[arg(long)]
    pub(crate) replace_all: bool,
    #[command(flatten)]
    pub(crate) change: ChangeArgs,
    /// Write and exit 0 even when the edit leaves a syntax error that was not there before.
    #[arg(long)]
    pub(crate) allow_broken: bool,
}

/// `editkit snippet FILE SNIPPET`.
#[derive(Debug, Args)]
pub(crate) struct SnippetArgs {
    #[command(flatten)]
    pub(crate) workspace: WorkspaceArgs,
    #[command(flatten)]
    pub(crate) write: WriteArgs,
    #[command(flatten)]
    pub(crate) output: OutputArgs,
    /// The file, relative to the root.
    pub(crate) file: String,
    /// The snippet: a file holding it, or `-` for stdin.
    pub(crate) snippet: String,
    /// Delete file lines a chunk leaves out between two of its lines (refused by default: a
    /// forgotten marker looks the same).
    #[arg(long)]
    pub(crate) allow_deletions: bool,
    #[command(flatten)]
    pub(crate) change: ChangeArgs,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `edit` and `apply` with `--diagnostics off` open the toolkit with its built-in check
    /// alone and hide it; `snippet`, whose exit code it never decides, keeps the checks off.
    #[test]
    fn commands_for_people_with_the_checks_off_keep_the_built_in_check_alone() {
        let parsed = |args: &[&str]| Cli::try_parse_from(args).expect("parses").command;
        let defaults = editkit::ToolkitOptions::default().diagnostics.checkers;
        assert!(!defaults.is_empty());
        for args in [
            &["editkit", "edit", "a.py", "--old", "x", "--new", "y", "--diagnostics", "off"][..],
            &["editkit", "apply", "p.diff", "--diagnostics", "off"],
        ] {
            let (options, write, hidden) = parsed(args).for_people();
            assert!(hidden && options.full_diffs, "{args:?}");
            assert!(options.diagnostics.checkers.is_empty(), "{args:?}: no external checker may run");
            assert_eq!(write.map(|write| write.diagnostics), Some(DiagnosticsMode::Auto), "{args:?}");
        }
        for (args, mode) in [
            (&["editkit", "edit", "a.py", "--old", "x", "--new", "y"][..], DiagnosticsMode::Auto),
            (&["editkit", "apply", "p.diff", "--diagnostics", "on"], DiagnosticsMode::On),
            (&["editkit", "snippet", "a.py", "s.py", "--diagnostics", "off"], DiagnosticsMode::Off),
        ] {
            let (options, write, hidden) = parsed(args).for_people();
            assert!(!hidden, "{args:?}");
            assert_eq!(options.diagnostics.checkers, defaults, "{args:?}");
            assert_eq!(write.map(|write| write.diagnostics), Some(mode), "{args:?}");
        }
        let (_, write, hidden) = parsed(&["editkit", "read", "a.py"]).for_people();
        assert!(write.is_none() && !hidden);
    }

    /// Each word a type lists parses to a value that shows as that word, so the list clap
    /// offers and the words the type takes cannot drift apart.
    #[test]
    fn the_word_lists_are_their_types_words() {
        #[track_caller]
        fn round_trips<T: FromStr<Err = String> + std::fmt::Display>(names: &[&str]) {
            for name in names {
                let value: T = name.parse().unwrap_or_else(|err| panic!("{name}: {err}"));
                assert_eq!(value.to_string(), *name);
            }
            assert!("nonsense".parse::<T>().is_err());
        }
        round_trips::<Durability>(Durability::NAMES);
        round_trips::<DiagnosticsMode>(DiagnosticsMode::NAMES);
        round_trips::<editkit::vfs::AbsolutePaths>(editkit::vfs::AbsolutePaths::NAMES);
        round_trips::<StaleMode>(StaleMode::NAMES);
        let command = <Cli as clap::CommandFactory>::command();
        let offered = |subcommand: &str, flag: &str| -> Vec<String> {
            let subcommand = command.find_subcommand(subcommand).expect(subcommand);
            let arg = subcommand.get_arguments().find(|arg| arg.get_id() == flag).expect(flag);
            arg.get_possible_values().iter().map(|v| v.get_name().to_owned()).collect()
        };
        for (flag, names) in [("durability", Durability::NAMES), ("diagnostics", DiagnosticsMode::NAMES)] {
            assert_eq!(offered("call", flag), names, "--{flag}");
        }
        for subcommand in ["edit", "snippet", "apply"] {
            assert_eq!(offered(subcommand, "stale"), StaleMode::NAMES, "{subcommand} --stale");
        }
    }

    /// `mcp --tools`'s help names the tool sets by hand (a doc comment): it names each of
    /// `TOOLSETS` and no other set, and `core`'s purpose as the set says it.
    #[test]
    fn the_tools_help_names_the_tool_sets() {
        let command = <Cli as clap::CommandFactory>::command();
        let mcp = command.find_subcommand("mcp").expect("mcp");
        let tools = mcp.get_arguments().find(|arg| arg.get_id() == "tools").expect("--tools");
        let help = tools.get_help().map(ToString::to_string).unwrap_or_default().replace('\n', " ");
        let listed = help.split("(sets: ").nth(1).and_then(|rest| rest.split(';').next()).expect(&help);
        let listed: Vec<&str> = listed.split(',').map(str::trim).collect();
        let sets: Vec<&str> = editkit::tools::TOOLSETS.iter().map(|set| set.name).collect();
        assert_eq!(listed, sets, "{help}");
        let core = editkit::tools::TOOLSETS.iter().find(|set| set.name == "core").expect("core");
        assert!(help.contains(&format!("`core` ({})", core.about)), "{help}");
    }

    /// `edit`, `snippet` and `apply` take `--dry-run`, `--force` and `--stale` from one group,
    /// [`ChangeArgs`]: the same help and default in each, and each parses into the group.
    #[test]
    fn the_commands_that_write_share_one_change_group() {
        let command = <Cli as clap::CommandFactory>::command();
        let group = ChangeArgs::augment_args(clap::Command::new("group"));
        for subcommand in ["edit", "snippet", "apply"] {
            let subcommand = command.find_subcommand(subcommand).expect(subcommand);
            for want in group.get_arguments() {
                let got = subcommand.get_arguments().find(|arg| arg.get_id() == want.get_id());
                let got = got.unwrap_or_else(|| panic!("{} lacks --{}", subcommand.get_name(), want.get_id()));
                assert_eq!(got.get_help().map(ToString::to_string), want.get_help().map(ToString::to_string));
                assert_eq!(got.get_default_values(), want.get_default_values(), "--{}", want.get_id());
            }
        }
        let parsed = |line: &str| Cli::try_parse_from(line.split(' ')).expect(line).command;
        match parsed("editkit edit a --old x --new y --dry-run --stale strict") {
            Command::Edit(args) => {
                assert!(args.change.dry_run && !args.change.force);
                assert_eq!(args.change.stale, StaleMode::Strict);
            }
            other => panic!("{other:?}"),
        }
        match parsed("editkit snippet a b --force") {
            Command::Snippet(args) => assert!(args.change.force && args.change.stale == StaleMode::Merge),
            other => panic!("{other:?}"),
        }
        match parsed("editkit apply p --stale strict --force") {
            Command::Apply { change, .. } => assert!(change.force && change.stale == StaleMode::Strict),
            other => panic!("{other:?}"),
        }
        assert!(Cli::try_parse_from(["editkit", "apply", "p", "--stale", "lenient"]).is_err());
    }
}
