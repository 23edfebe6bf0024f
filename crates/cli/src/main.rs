//! `editkit`: the editkit file tools for AI coding agents, served three ways.
//!
//! - `editkit mcp --root DIR`: an MCP server on stdio (the main job). Every toolkit tool is
//!   listed with its input and output JSON Schemas and MCP annotations; a refused call is a
//!   tool result with `isError: true`, its message as text and `{"ok": false, "error": …}` as
//!   structured content.
//! - `editkit call --root DIR [--jsonl]`: the JSON tool-call contract on stdin/stdout
//!   (`{"tool": …, "args": {…}, "id": …}` in, `{"ok": …, …}` out), one call or one per line.
//! - `read`, `edit`, `apply`, `grep`, `symbols`, `check`, `diff`, `undo`, `recover` for people
//!   at a terminal, and `demo`, a walkthrough on a throwaway copy of a small project.
//!
//! Exit codes: 0 done, 1 refused (not found, ambiguous, stale…), 2 usage or input error.
//!
//! The binary holds no file logic: it parses arguments, calls the `editkit` facade and prints.
#![deny(missing_docs)]

/// `print!` for the terminal commands: when stdout is a pipe the reader closed (`| head`),
/// the command ends quietly with success instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if write!(std::io::stdout().lock(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

/// `println!` with [`out!`]'s handling of a closed pipe.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout().lock(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod args;
mod call;
mod contract;
mod demo;
mod exit;
mod framing;
mod http;
mod human;
mod links;
mod log;
mod mcp;
mod protocol;
mod render;
mod result;
mod sync;

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use crate::args::{Cli, Command, OnOff, RootsFrom};
use crate::exit::{EXIT_OK, EXIT_USAGE};

/// The command line, or the exit code of a usage error already printed. clap's message quotes
/// the arguments it refuses as they are: when one holds a control character (an escape
/// sequence typed or pasted into a file name), the message is printed plain, escaped line by
/// line, so it cannot drive the terminal.
fn parse() -> Result<Cli, u8> {
    let err = match Cli::try_parse() {
        Ok(cli) => return Ok(cli),
        Err(err) => err,
    };
    let hostile = std::env::args_os().any(|arg| {
        let bytes = arg.as_encoded_bytes();
        std::str::from_utf8(bytes).map_or(true, |arg| arg.chars().any(editkit::shown::is_misleading))
    });
    if !hostile || !err.use_stderr() {
        err.exit();
    }
    for line in err.render().to_string().lines() {
        eprintln!("{}", editkit::shown::line(line));
    }
    Err(u8::try_from(err.exit_code()).unwrap_or(EXIT_USAGE))
}

/// Descriptors the process's table holds from its start (or the hard limit's count, when
/// lower): a patch's commit holds three per file (its lock file, the file, the new file), so
/// some 1,300 files fit without the table growing while threads run (see
/// [`editkit::vfs::grow_descriptor_table`]).
const DESCRIPTOR_TABLE: u64 = 4096;

fn main() -> anyhow::Result<ExitCode> {
    // Before any thread starts: a table grown later waits for the other threads.
    let _ = editkit::vfs::grow_descriptor_table(DESCRIPTOR_TABLE);
    let cli = match parse() {
        Ok(cli) => cli,
        Err(code) => return Ok(ExitCode::from(code)),
    };
    let code = match cli.command {
        Command::Demo => demo::run()?,
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "editkit", &mut std::io::stdout());
            EXIT_OK
        }
        Command::Man => {
            clap_mangen::Man::new(Cli::command()).render(&mut std::io::stdout())?;
            EXIT_OK
        }
        command @ Command::Mcp { .. } => serve_mcp(command)?,
        Command::Call { workspace, write, limits, jsonl, read_only, tools, server_diagnostics } => {
            let mut base = editkit::ToolkitOptions { read_only, tools, ..Default::default() };
            base.language_servers.after_writes = server_diagnostics == OnOff::On;
            match workspace.open_with(base, Some(&write), Some(&limits)) {
                Ok(toolkit) => call::run(&toolkit, jsonl)?,
                Err(err) => render::cannot_open(&err, &workspace.roots),
            }
        }
        command => {
            let Some(workspace) = command.workspace() else { return Ok(ExitCode::from(EXIT_USAGE)) };
            let (base, write, hidden) = command.for_people();
            match workspace.open_with(base, write.as_ref(), None) {
                Ok(toolkit) => human::run(&toolkit, command, human::Shown { diagnostics: !hidden }),
                Err(err) => render::cannot_open(&err, &workspace.roots),
            }
        }
    };
    Ok(ExitCode::from(code))
}

/// `editkit mcp`: serves on stdio, or over HTTP with `--http`.
///
/// # Errors
/// The server cannot start (the runtime, the address).
fn serve_mcp(command: Command) -> std::io::Result<u8> {
    let Command::Mcp {
        workspace,
        write,
        limits,
        read_only,
        tools,
        roots_from,
        output_schemas,
        line_numbers,
        page_bytes,
        task_after_ms,
        server_diagnostics,
        http,
        token,
        allow_origin,
        allow_remote,
        http_limits,
    } = command
    else {
        return Ok(EXIT_USAGE);
    };
    if http.is_none() && std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        eprintln!(
            "editkit mcp: waiting for an MCP client on stdin (this is a server for agents; press Ctrl-D to stop, \
                     or see `editkit --help` for the terminal commands)"
        );
    }
    let from_client =
        roots_from.unwrap_or(if workspace.roots.is_empty() { RootsFrom::Client } else { RootsFrom::Given });
    let options = mcp::McpOptions {
        tools: tools.clone(),
        output_schemas,
        style: result::TextStyle { line_numbers: line_numbers == OnOff::On },
        client_roots: (from_client == RootsFrom::Client).then(|| workspace.roots.clone()),
        read_only,
        task_after: std::time::Duration::from_millis(task_after_ms),
    };
    let mut base =
        editkit::ToolkitOptions { read_only, tools, read_page_bytes: Some(page_bytes.max(1)), ..Default::default() };
    // A long-lived server keeps language servers warm: the post-write hook is on unless turned off.
    base.language_servers.after_writes = server_diagnostics == OnOff::On;
    Ok(match workspace.open_with(base, Some(&write), Some(&limits)) {
        Ok(toolkit) => match http {
            Some(addr) => {
                let token = token.or_else(|| std::env::var("EDITKIT_MCP_TOKEN").ok().filter(|t| !t.is_empty()));
                let http =
                    http::HttpOptions { addr, token, allowed_origins: allow_origin, allow_remote, limits: http_limits };
                http::serve(toolkit, &options, &http)?
            }
            None => mcp::serve(toolkit, &options)?,
        },
        Err(err) => render::cannot_open(&err, &workspace.roots),
    })
}
