//! Subcommands for people at a terminal: each builds a tool call, runs it through the
//! toolkit and prints the result (coloured diffs on a terminal).

use std::io::{self, Read, Write};
use std::path::Path;

use clap::Args;
use editkit::Toolkit;
use serde_json::{Value, json};

use crate::render::{self, Style};
use crate::{Command, EXIT_OK, EXIT_REFUSED, EXIT_USAGE, WorkspaceArgs};

/// `editkit edit FILE --old … --new …`.
#[derive(Debug, Args)]
pub(crate) struct EditArgs {
    #[command(flatten)]
    pub(crate) workspace: WorkspaceArgs,
    /// The file, relative to the root.
    file: String,
    /// The text to replace (copy it from the file, with a line of context if it repeats).
    #[arg(long, required_unless_present = "old_file", conflicts_with = "old_file", allow_hyphen_values = true)]
    old: Option<String>,
    /// The replacement text.
    #[arg(long, required_unless_present = "new_file", conflicts_with = "new_file", allow_hyphen_values = true)]
    new: Option<String>,
    /// Read the text to replace from this file (`-` for stdin).
    #[arg(long, value_name = "PATH")]
    old_file: Option<String>,
    /// Read the replacement from this file (`-` for stdin).
    #[arg(long, value_name = "PATH")]
    new_file: Option<String>,
    /// Replace every occurrence instead of requiring exactly one.
    #[arg(long)]
    replace_all: bool,
    /// Show the diff without writing.
    #[arg(long)]
    dry_run: bool,
    /// Edit even if the file changed since editkit read it.
    #[arg(long)]
    force: bool,
}

/// Runs a human subcommand and gives its exit code.
pub(crate) fn run(toolkit: &Toolkit, command: Command) -> u8 {
    let outcome = match command {
        Command::Read { file, offset, limit, .. } => read(toolkit, &file, offset, limit),
        Command::Edit(args) => edit(toolkit, args),
        Command::Apply { patch, dry_run, force, strict, .. } => apply(toolkit, &patch, dry_run, force, strict),
        Command::Grep { pattern, path, fixed_strings, glob, ignore_case, max_results, .. } => {
            let mut args =
                json!({"pattern": pattern, "path": path, "regex": !fixed_strings, "max_results": max_results});
            if let Some(glob) = glob {
                args["glob"] = json!(glob);
            }
            if ignore_case {
                args["case_sensitive"] = json!(false);
            }
            grep(toolkit, args)
        }
        Command::Symbols { file, .. } => symbols(toolkit, &file),
        Command::Check { file, .. } => check(toolkit, &file),
        Command::Diff { file, new_file, .. } => diff(toolkit, &file, &new_file),
        Command::Undo { file, force, .. } => {
            call(toolkit, "undo_edit", json!({"path": file, "force": force})).map(|result| {
                let remaining = result["remaining"].as_u64().unwrap_or(0);
                for path in result["restored"].as_array().into_iter().flatten() {
                    outln!("restored {} ({remaining} earlier version(s) left)", path.as_str().unwrap_or("?"));
                }
                EXIT_OK
            })
        }
        Command::Recover { .. } => recover(toolkit),
        Command::Demo | Command::Mcp { .. } | Command::Call { .. } => Ok(EXIT_USAGE),
    };
    outcome.unwrap_or_else(|code| code)
}

/// Runs one tool; a refusal is printed to stderr and becomes `Err(exit code)`.
fn call(toolkit: &Toolkit, tool: &str, args: Value) -> Result<Value, u8> {
    let result = editkit::tools::call(toolkit, tool, args);
    match result.get("error") {
        Some(error) => {
            eprint!("{}", render::refusal(Style::stderr(), error));
            Err(render::exit_code(error))
        }
        None => Ok(result),
    }
}

/// Reads a local input file (outside the workspace is fine: it is the user's own input), or
/// stdin for `-`.
fn read_input(path: &str, what: &str) -> Result<String, u8> {
    let mut text = String::new();
    let read = if path == "-" {
        io::stdin().read_to_string(&mut text).map(|_| ())
    } else {
        std::fs::read_to_string(Path::new(path)).map(|t| text = t)
    };
    read.map(|()| text).map_err(|err| {
        eprintln!("{} cannot read {what} `{path}`: {err}", Style::stderr().red("error:"));
        EXIT_USAGE
    })
}

fn read(toolkit: &Toolkit, file: &str, offset: Option<usize>, limit: Option<usize>) -> Result<u8, u8> {
    let mut args = json!({"path": file});
    if let Some(offset) = offset {
        args["offset"] = json!(offset);
    }
    if let Some(limit) = limit {
        args["limit"] = json!(limit);
    }
    let result = call(toolkit, "read_file", args)?;
    let style = Style::stdout();
    out!("{}", read_summary(style, &result));
    if result["is_binary"].as_bool() != Some(true) {
        let content = result["content"].as_str().unwrap_or("");
        out!("{}", render::numbered(style, content, offset.unwrap_or(1).max(1)));
    }
    Ok(EXIT_OK)
}

/// The facts of a read: path, type, lines, size, hash, validity and symbols.
pub(crate) fn read_summary(style: Style, result: &Value) -> String {
    let mut out = format!(
        "{}  {} · {} lines · {} bytes · {} endings{}\n  sha256 {}\n",
        style.bold(result["path"].as_str().unwrap_or("?")),
        result["file_type"].as_str().unwrap_or("?"),
        result["line_count"],
        result["size_bytes"],
        result["line_endings"].as_str().unwrap_or("?"),
        if result["bom"].as_bool() == Some(true) { " · BOM" } else { "" },
        result["sha256"].as_str().unwrap_or("?"),
    );
    match result["is_valid"].as_bool() {
        Some(true) => out.push_str(&format!("  syntax {}\n", style.green("ok"))),
        Some(false) => {
            out.push_str(&format!("  syntax {}\n", style.red("errors")));
            for error in result["errors"].as_array().into_iter().flatten().take(10) {
                out.push_str(&format!("    {}\n", render::syntax_error(error)));
            }
        }
        None => {}
    }
    let symbols = symbol_lines(result["symbols"].as_array().map(Vec::as_slice).unwrap_or_default());
    if !symbols.is_empty() {
        out.push_str("  symbols:\n");
        for line in symbols {
            out.push_str(&format!("    {line}\n"));
        }
    }
    let headers = result["headers"].as_array().map(Vec::as_slice).unwrap_or_default();
    if !headers.is_empty() {
        out.push_str("  outline:\n");
        for header in headers {
            let level = header["level"].as_u64().unwrap_or(1) as usize;
            out.push_str(&format!(
                "    {}{} {}\n",
                "  ".repeat(level.saturating_sub(1)),
                header["text"].as_str().unwrap_or(""),
                style.dim(&format!("(line {})", header["line"])),
            ));
        }
    }
    if result["partial"].as_bool() == Some(true) {
        out.push_str(&format!("  {}\n", style.dim("(a range of lines)")));
    }
    out
}

/// `class Cart  lines 3-20`, methods indented under their parent.
pub(crate) fn symbol_lines(symbols: &[Value]) -> Vec<String> {
    symbols
        .iter()
        .map(|symbol| {
            let depth = symbol["parent"].as_str().map_or(0, |p| p.split('.').count());
            format!(
                "{}{} {}  lines {}-{}",
                "  ".repeat(depth),
                symbol["kind"].as_str().unwrap_or("?"),
                symbol["name"].as_str().unwrap_or("?"),
                symbol["line"],
                symbol["end_line"],
            )
        })
        .collect()
}

fn edit(toolkit: &Toolkit, args: EditArgs) -> Result<u8, u8> {
    let old = match (args.old, args.old_file) {
        (Some(old), _) => old,
        (None, Some(path)) => read_input(&path, "the old text")?,
        (None, None) => return Err(EXIT_USAGE),
    };
    let new = match (args.new, args.new_file) {
        (Some(new), _) => new,
        (None, Some(path)) => read_input(&path, "the new text")?,
        (None, None) => return Err(EXIT_USAGE),
    };
    let request = json!({
        "path": args.file, "old_string": old, "new_string": new,
        "replace_all": args.replace_all, "dry_run": args.dry_run, "force": args.force,
    });
    let result = match editkit::tools::call(toolkit, "edit_file", request) {
        result if result.get("error").is_some() => {
            let error = &result["error"];
            let style = Style::stderr();
            eprint!("{}", render::refusal(style, error));
            eprint!("{}", candidates(toolkit, style, &args.file, error));
            return Err(render::exit_code(error));
        }
        result => result,
    };
    let style = Style::stdout();
    outln!("{}", edit_summary(style, &result));
    out!("{}", render::diff(style, result["diff"].as_str().unwrap_or("")));
    Ok(EXIT_OK)
}

/// `edited app.py: 1 replacement at lines 3-4, rung line_trimmed (score 0.97)`.
pub(crate) fn edit_summary(style: Style, result: &Value) -> String {
    let replacements = result["replacements"].as_u64().unwrap_or(0);
    let rung = result["rung"].as_str().unwrap_or("?");
    let score = result["score"].as_f64().unwrap_or(0.0);
    let range = &result["line_range"];
    let verb = if result["dry_run"].as_bool() == Some(true) { "would edit" } else { "edited" };
    let rung_text = if rung == "exact" { style.green(rung) } else { style.yellow(rung) };
    let merged = if result["alignment"].as_str() == Some("merged") { ", merged into the file's lines" } else { "" };
    format!(
        "{} {}: {replacements} replacement{} at lines {}-{}, rung {rung_text} (score {score:.2}{merged})",
        style.green(verb),
        style.bold(result["path"].as_str().unwrap_or("?")),
        if replacements == 1 { "" } else { "s" },
        range[0],
        range[1],
    )
}

/// The candidate lines of an ambiguous edit, read back from the file.
pub(crate) fn candidates(toolkit: &Toolkit, style: Style, file: &str, error: &Value) -> String {
    let Some(lines) = error.get("lines").and_then(Value::as_array) else { return String::new() };
    let read = editkit::tools::call(toolkit, "read_file", json!({"path": file}));
    let Some(content) = read["content"].as_str() else { return String::new() };
    let all: Vec<&str> = content.lines().collect();
    let mut out = String::new();
    for line in lines.iter().filter_map(Value::as_u64) {
        let text = usize::try_from(line).ok().and_then(|l| all.get(l.checked_sub(1)?)).copied().unwrap_or("");
        out.push_str(&format!("    {} {text}\n", style.dim(&format!("{line:>4} │"))));
    }
    out
}

fn apply(toolkit: &Toolkit, patch: &str, dry_run: bool, force: bool, strict: bool) -> Result<u8, u8> {
    let text = read_input(patch, "the patch")?;
    let result =
        call(toolkit, "apply_patch", json!({"patch": text, "dry_run": dry_run, "force": force, "strict": strict}))?;
    let style = Style::stdout();
    out!("{}", patch_summary(style, &result));
    out!("{}", render::diff(style, result["diff"].as_str().unwrap_or("")));
    Ok(EXIT_OK)
}

/// One line per file a patch touched.
pub(crate) fn patch_summary(style: Style, result: &Value) -> String {
    let files = result["files"].as_array().map(Vec::as_slice).unwrap_or_default();
    let verb = if result["dry_run"].as_bool() == Some(true) { "would patch" } else { "patched" };
    let mut out = format!("{} {} file{}\n", style.green(verb), files.len(), if files.len() == 1 { "" } else { "s" });
    for file in files {
        let action = file["action"].as_str().unwrap_or("?");
        let from = file["from"].as_str().map(|f| format!(" (from {f})")).unwrap_or_default();
        let formatted = if file["formatted"].as_bool() == Some(true) { ", then formatted" } else { "" };
        out.push_str(&format!("  {:<7} {}{from}{formatted}\n", action, file["path"].as_str().unwrap_or("?")));
        // A hunk placed by anything but an exact match is shown, so a person can check it.
        for hunk in file["hunks"].as_array().into_iter().flatten() {
            let rung = hunk["rung"].as_str().unwrap_or("?");
            if rung == "exact" {
                continue;
            }
            let lines = &hunk["lines"];
            let merged =
                if hunk["alignment"].as_str() == Some("merged") { ", merged into the file's lines" } else { "" };
            out.push_str(&format!(
                "          hunk {} at lines {}-{}: {} (score {:.2}{merged})\n",
                hunk["hunk"],
                lines[0],
                lines[1],
                style.yellow(rung),
                hunk["score"].as_f64().unwrap_or(0.0),
            ));
        }
        let diagnostics = &file["diagnostics"];
        if diagnostics["has_problems"].as_bool() == Some(true) {
            for error in diagnostics["syntax_errors"].as_array().into_iter().flatten() {
                out.push_str(&format!(
                    "          {} line {}:{}: {}\n",
                    style.yellow("syntax error"),
                    error["line"],
                    error["column"],
                    error["message"].as_str().unwrap_or("?")
                ));
            }
            for checker in diagnostics["checkers"].as_array().into_iter().flatten() {
                let output = checker["output"].as_str().unwrap_or("");
                out.push_str(&format!("          {}:\n", style.yellow(checker["name"].as_str().unwrap_or("?"))));
                for line in output.lines().take(10) {
                    out.push_str(&format!("            {line}\n"));
                }
            }
        }
    }
    out
}

fn grep(toolkit: &Toolkit, args: Value) -> Result<u8, u8> {
    let result = call(toolkit, "search_files", args)?;
    let style = Style::stdout();
    let mut out = io::stdout().lock();
    let mut found = 0usize;
    for file in result["results"].as_array().into_iter().flatten() {
        let name = file["file"].as_str().unwrap_or("?");
        for hit in file["matches"].as_array().into_iter().flatten() {
            found += 1;
            let content = hit["content"].as_str().unwrap_or("");
            let line = format!(
                "{}:{}:{}: {}",
                style.bold(name),
                style.green(&hit["line"].to_string()),
                hit["column"],
                content.trim_end_matches(['\n', '\r'])
            );
            if writeln!(out, "{line}").is_err() {
                return Ok(EXIT_OK);
            }
        }
    }
    if result["truncated"].as_bool() == Some(true) {
        eprintln!("{}", style.dim("(results cut at --max-results)"));
    }
    Ok(if found == 0 { EXIT_REFUSED } else { EXIT_OK })
}

fn symbols(toolkit: &Toolkit, file: &str) -> Result<u8, u8> {
    let result = call(toolkit, "file_symbols", json!({"path": file}))?;
    let symbols = symbol_lines(result["symbols"].as_array().map(Vec::as_slice).unwrap_or_default());
    if symbols.is_empty() {
        outln!("{}: no symbols ({})", file, result["file_type"].as_str().unwrap_or("?"));
    }
    for line in symbols {
        outln!("{line}");
    }
    Ok(EXIT_OK)
}

fn check(toolkit: &Toolkit, file: &str) -> Result<u8, u8> {
    let result = call(toolkit, "check_syntax", json!({"path": file}))?;
    let style = Style::stdout();
    let kind = result["file_type"].as_str().unwrap_or("?");
    if result["valid"].as_bool() == Some(true) {
        outln!("{file}: {} ({kind})", style.green("ok"));
        return Ok(EXIT_OK);
    }
    outln!("{file}: {} ({kind})", style.red("syntax errors"));
    for error in result["errors"].as_array().into_iter().flatten() {
        outln!("  {}", render::syntax_error(error));
    }
    Ok(EXIT_REFUSED)
}

fn diff(toolkit: &Toolkit, file: &str, new_file: &str) -> Result<u8, u8> {
    let new_content = read_input(new_file, "the new content")?;
    let result = call(toolkit, "generate_diff", json!({"path": file, "new_content": new_content}))?;
    let style = Style::stdout();
    if result["has_changes"].as_bool() != Some(true) {
        outln!("{file}: no changes");
        return Ok(EXIT_OK);
    }
    out!("{}", render::diff(style, result["diff"].as_str().unwrap_or("")));
    outln!("{}", style.dim(&format!("+{} -{}", result["additions"], result["deletions"])));
    Ok(EXIT_OK)
}

fn recover(toolkit: &Toolkit) -> Result<u8, u8> {
    let style = Style::stdout();
    for workspace in toolkit.workspaces() {
        let root = workspace.root_path().display().to_string();
        match editkit::patch::recover(workspace) {
            Ok(recovery) if recovery.is_empty() => outln!("{root}: nothing to recover"),
            Ok(recovery) => {
                outln!(
                    "{root}: rolled back {} interrupted patch(es), restored {} file(s), cleaned {} leftover backup(s)",
                    recovery.rolled_back.len(),
                    recovery.restored.len(),
                    recovery.cleaned
                );
                for path in &recovery.restored {
                    outln!("  {} {path}", style.green("restored"));
                }
            }
            Err(err) => {
                let error = editkit::Error::from(err).to_json();
                eprint!("{}", render::refusal(Style::stderr(), &error));
                return Err(render::exit_code(&error));
            }
        }
    }
    Ok(EXIT_OK)
}
