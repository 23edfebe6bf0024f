//! Subcommands for people at a terminal: each builds a tool call, runs it through the
//! toolkit and prints the result (coloured diffs on a terminal), or with `--json` the result
//! object an agent would get.
//!
//! A writing command (`edit`, `apply`) shows the whole diff (an agent gets a bounded one; at a
//! terminal a long one goes through `$PAGER`), then the problems the write left (syntax errors
//! and checkers' reports), and exits 1 when it left a syntax error the file did not have
//! before (`--allow-broken` exits 0).
//!
//! Every name printed goes through [`ShownPath`] (quoted as git quotes names), every message
//! through [`editkit::shown::line`]; a file's content is shown with its control characters
//! made visible at a terminal ([`Style::content`]) and byte-exact when piped.

use std::io::{self, IsTerminal, Read, Write};
use std::path::Path;

use editkit::matcher::{Alignment, Rung};
use editkit::shown::{self, ShownPath};
use editkit::vfs::LineEndings;
use editkit::{
    ApplyPatchResponse, CheckSyntaxResponse, DiagnosticsInfo, EditFileResponse, FileInfoResponse, FileSymbolsResponse,
    FileType, GenerateDiffResponse, HeaderInfo, HistoryResponse, MergeSnippetResponse, ReadFileResponse,
    SearchFilesResponse, SearchMatch, SymbolInfo, Toolkit, UndoResponse,
};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::contract::{self, Answer, Refusal, word};

use crate::args::{ChangeArgs, Command, EditArgs, OutputArgs, SnippetArgs};
use crate::exit::{EXIT_OK, EXIT_REFUSED, EXIT_USAGE};
use crate::render::{self, Style};

/// Most lines of one checker's report printed after a write.
const CHECKER_LINES: usize = 20;
/// Most matching lines `grep` asks for when no `--max-results` is given.
const GREP_UNLIMITED: usize = 1_000_000;

/// What a command shows of what the toolkit found.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shown {
    /// A write's diagnostics, for `edit` and `apply` (`--diagnostics off` shows none: the
    /// built-in check they still have made only decides the exit code; `snippet` turns the
    /// checks off).
    pub(crate) diagnostics: bool,
}

/// Runs a human subcommand and gives its exit code.
pub(crate) fn run(toolkit: &Toolkit, command: Command, shown: Shown) -> u8 {
    let outcome = match command {
        Command::Read { file, offset, limit, output, .. } => read(toolkit, &file, offset, limit, output),
        Command::Edit(args) => edit(toolkit, args, shown),
        Command::Snippet(args) => snippet(toolkit, args),
        Command::Apply { patch, change, strict, allow_broken, output, .. } => {
            apply(toolkit, &patch, ApplyFlags { change, strict, allow_broken }, output, shown)
        }
        Command::Grep {
            pattern,
            path,
            fixed_strings,
            glob,
            ignore_case,
            context,
            before_context,
            after_context,
            max_results,
            output,
            ..
        } => {
            let args = arguments([
                ("pattern", Some(json!(pattern))),
                ("path", Some(json!(path))),
                ("regex", Some(json!(!fixed_strings))),
                ("max_results", Some(json!(max_results.unwrap_or(GREP_UNLIMITED)))),
                ("context_lines", Some(json!(context.unwrap_or(0)))),
                ("glob", glob.map(|glob| json!(glob))),
                ("case_sensitive", ignore_case.then_some(json!(false))),
                ("before_context", before_context.map(|lines| json!(lines))),
                ("after_context", after_context.map(|lines| json!(lines))),
            ]);
            grep(toolkit, args, max_results.is_some(), output)
        }
        Command::Symbols { file, output, .. } => symbols(toolkit, &file, output),
        Command::Check { file, output, .. } => check(toolkit, &file, output),
        Command::Diff { file, new_file, output, .. } => diff(toolkit, &file, &new_file, output),
        Command::Undo { file, patch, yes, force, output, .. } => {
            undo(toolkit, file.as_deref(), patch, yes, force, output)
        }
        Command::History { file, output, .. } => history(toolkit, file.as_deref(), output),
        Command::Recover { .. } => recover(toolkit),
        Command::Demo | Command::Mcp { .. } | Command::Call { .. } | Command::Completions { .. } | Command::Man => {
            Ok(EXIT_USAGE)
        }
    };
    outcome.unwrap_or_else(|code| code)
}

/// Runs one tool; a refusal is printed (to stderr, or as JSON to stdout with `--json`) and
/// becomes `Err(exit code)`. The typed response comes back, with the result object when
/// `--json` prints it (else the response takes the object's texts over).
fn call<T: DeserializeOwned>(
    toolkit: &Toolkit,
    tool: &str,
    args: Value,
    output: OutputArgs,
) -> Result<(Option<Value>, T), u8> {
    let result = editkit::tools::call(toolkit, tool, args);
    if output.json {
        return match contract::answer::<T>(&result) {
            Ok(Answer::Done(typed)) => Ok((Some(result), typed)),
            Ok(Answer::Refused(error)) => {
                print_json(&result);
                Err(error.exit_code())
            }
            Err(why) => Err(unexpected(tool, &why)),
        };
    }
    match contract::answer_owned::<T>(result) {
        Ok(Answer::Done(typed)) => Ok((None, typed)),
        Ok(Answer::Refused(error)) => {
            eprint!("{}", render::refusal(Style::stderr(), &error));
            Err(error.exit_code())
        }
        Err(why) => Err(unexpected(tool, &why)),
    }
}

/// Says that a tool's result does not have its documented shape (the facade and the binary
/// disagree), and gives the exit code.
fn unexpected(tool: &str, why: &str) -> u8 {
    eprintln!(
        "{} the result of {tool} does not have its documented shape ({}); please report it",
        Style::stderr().red("error:"),
        shown::line(why)
    );
    EXIT_REFUSED
}

/// The result object, pretty-printed; DEL, C1, separators and bidi controls escaped as
/// `\uXXXX` (serde_json escapes the C0 controls), so the JSON is the same and nothing in it
/// drives a terminal.
fn print_json(result: &Value) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    let mut json = crate::result::json_pretty(result);
    json.push(b'\n');
    if out.write_all(&json).and_then(|()| out.flush()).is_err() {
        // The reader went away (a closed pipe): nothing more to say, as `outln!` does.
        std::process::exit(0);
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
        eprintln!(
            "{} cannot read {what} `{}`: {}",
            Style::stderr().red("error:"),
            ShownPath::new(path),
            shown::line(&err.to_string())
        );
        EXIT_USAGE
    })
}

/// A tool's arguments: each given one, less those left out (`None`).
fn arguments<const N: usize>(fields: [(&str, Option<Value>); N]) -> Value {
    Value::Object(fields.into_iter().filter_map(|(name, value)| Some((name.to_owned(), value?))).collect())
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

fn read(
    toolkit: &Toolkit,
    file: &str,
    offset: Option<usize>,
    limit: Option<usize>,
    output: OutputArgs,
) -> Result<u8, u8> {
    let args = arguments([
        ("path", Some(json!(file))),
        ("offset", offset.map(|offset| json!(offset))),
        ("limit", limit.map(|limit| json!(limit))),
    ]);
    let (result, read) = call::<ReadFileResponse>(toolkit, "read_file", args, output)?;
    if let Some(result) = &result {
        print_json(result);
        return Ok(EXIT_OK);
    }
    let style = Style::stdout();
    out!("{}", read_summary(style, &read));
    if !read.is_binary {
        out!("{}", render::numbered(style, &read.content, offset.unwrap_or(1).max(1)));
    }
    Ok(EXIT_OK)
}

/// The facts of a read: path, type, lines, size, hash, validity and symbols.
pub(crate) fn read_summary(style: Style, read: &ReadFileResponse) -> String {
    let path = style.bold(&ShownPath::new(&read.path).to_string());
    let size = plural(read.size_bytes, "byte");
    if read.is_binary {
        return format!("{path}  binary file, {size} (not shown)\n  sha256 {}\n", read.sha256);
    }
    let endings = match read.line_endings {
        LineEndings::CrLf => " · CRLF line endings",
        LineEndings::Cr => " · CR line endings",
        LineEndings::Mixed => " · mixed line endings",
        _ => "",
    };
    let mut out = format!(
        "{path}  {} · {} · {size}{endings}{}\n  sha256 {}\n",
        read.file_type.as_str(),
        plural(read.line_count as u64, "line"),
        if read.bom { " · BOM" } else { "" },
        read.sha256,
    );
    match read.is_valid {
        Some(true) => out.push_str(&format!("  syntax {}\n", style.green("ok"))),
        Some(false) => {
            out.push_str(&format!("  syntax {}\n", style.red("errors")));
            for error in read.errors.iter().take(10) {
                out.push_str(&format!("    {}\n", render::syntax_error(error)));
            }
        }
        None => {}
    }
    let symbols = symbol_lines(&read.symbols);
    if !symbols.is_empty() {
        out.push_str("  symbols:\n");
        for line in symbols {
            out.push_str(&format!("    {line}\n"));
        }
    }
    if !read.headers.is_empty() {
        out.push_str("  outline:\n");
        for line in outline_lines(style, &read.headers) {
            out.push_str(&format!("    {line}\n"));
        }
    }
    if read.partial {
        out.push_str(&format!(
            "  {}\n",
            style.dim(&format!("lines {}-{} of {}", read.start_line, read.end_line, read.total_lines))
        ));
    }
    out
}

/// `class Cart  lines 3-20`, methods indented under their parent.
pub(crate) fn symbol_lines(symbols: &[SymbolInfo]) -> Vec<String> {
    symbols
        .iter()
        .map(|symbol| {
            let depth = symbol.parent.as_deref().map_or(0, |p| p.split('.').count());
            format!(
                "{}{} {}  lines {}-{}",
                "  ".repeat(depth),
                shown::line(&word(&symbol.kind)),
                shown::line(&symbol.name),
                symbol.line,
                symbol.end_line,
            )
        })
        .collect()
}

/// A Markdown outline: each heading indented by its level, with its line.
fn outline_lines(style: Style, headers: &[HeaderInfo]) -> Vec<String> {
    headers
        .iter()
        .map(|header| {
            format!(
                "{}{} {}",
                "  ".repeat(usize::from(header.level).saturating_sub(1)),
                shown::line(&header.text),
                style.dim(&format!("(line {})", header.line)),
            )
        })
        .collect()
}

/// The text of a workspace file now, if it is text editkit can read (for full diffs).
fn current_text(toolkit: &Toolkit, file: &str) -> Option<String> {
    let read = editkit::tools::call(toolkit, "read_file", json!({"path": file, "include_symbols": false}));
    match contract::answer_owned::<ReadFileResponse>(read) {
        Ok(Answer::Done(read)) if !read.is_binary => Some(read.content),
        _ => None,
    }
}

/// `f` of each of a patch's files, in order, the files spread over the cores (reads of one
/// file do not wait on another's).
fn each_file<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    editkit::patch::par::map(items, 1, editkit::patch::par::compute_threads(), f)
}

/// Whether a write's diagnostics say it left more syntax errors in the statements it touched
/// than they had before (the toolkit's verdict, the command's exit code; a skipped check
/// judges nothing). `edit` and `apply` always have the toolkit make its built-in check, with
/// `--diagnostics off` too (see `Command::for_people`).
fn diagnostics_introduced(diagnostics: &DiagnosticsInfo) -> bool {
    let errors = diagnostics.syntax_errors.len() as u64;
    errors > 0 && diagnostics.syntax_errors_before.is_none_or(|before| errors > before)
}

/// With `--diagnostics off`, a write's diagnostics as the toolkit gives them with its checks
/// off (the language server's, never asked for by a terminal command, kept), in the typed
/// response and in the result object at `pointer`.
fn hide_diagnostics(diagnostics: &mut DiagnosticsInfo, result: Option<&mut Value>, pointer: &str) {
    *diagnostics = DiagnosticsInfo { server_diagnostics: diagnostics.server_diagnostics.take(), ..Default::default() };
    if let Some(slot) = result.and_then(|result| result.pointer_mut(pointer))
        && let Ok(hidden) = serde_json::to_value(&*diagnostics)
    {
        *slot = hidden;
    }
}

fn edit(toolkit: &Toolkit, args: EditArgs, shown: Shown) -> Result<u8, u8> {
    let mut olds = args.old;
    if let Some(path) = &args.old_file {
        olds.push(read_input(path, "the old text")?);
    }
    let mut news = args.new;
    if let Some(path) = &args.new_file {
        news.push(read_input(path, "the new text")?);
    }
    if olds.is_empty() || olds.len() != news.len() {
        eprintln!(
            "editkit edit: {} --old and {} --new given; give one --new for each --old, in the same order",
            olds.len(),
            news.len()
        );
        return Err(EXIT_USAGE);
    }
    // The texts before and after, for the whole diff a person sees.
    let texts = !args.change.dry_run && !args.output.json;
    let before = texts.then(|| current_text(toolkit, &args.file)).flatten();
    let one = olds.len() == 1;
    let edits: Vec<Value> = olds
        .iter()
        .zip(&news)
        .map(|(old, new)| json!({"old_string": old, "new_string": new, "replace_all": args.replace_all}))
        .collect();
    let request = arguments([
        ("path", Some(json!(args.file))),
        ("dry_run", Some(json!(args.change.dry_run))),
        ("force", Some(json!(args.change.force))),
        ("stale", Some(json!(args.change.stale))),
        ("old_string", one.then(|| json!(olds[0]))),
        ("new_string", one.then(|| json!(news[0]))),
        ("replace_all", one.then(|| json!(args.replace_all))),
        ("edits", (!one).then(|| json!(edits))),
    ]);
    let mut result = editkit::tools::call(toolkit, "edit_file", request);
    let mut edit = match contract::answer::<EditFileResponse>(&result) {
        Ok(Answer::Done(edit)) => edit,
        Ok(Answer::Refused(error)) => {
            if args.output.json {
                print_json(&result);
            } else {
                let style = Style::stderr();
                eprint!("{}", render::refusal(style, &error));
                eprint!("{}", candidates(toolkit, style, &args.file, &error));
            }
            return Err(error.exit_code());
        }
        Err(why) => return Err(unexpected("edit_file", &why)),
    };
    let after = before.as_ref().and_then(|_| current_text(toolkit, &args.file));
    let broken = !args.change.dry_run && diagnostics_introduced(&edit.diagnostics);
    if !shown.diagnostics {
        hide_diagnostics(&mut edit.diagnostics, Some(&mut result), "/diagnostics");
    }
    if args.output.json {
        print_json(&result);
    } else {
        let style = Style::stdout();
        outln!("{}", edit_summary(style, &edit));
        // The toolkit answers whole diffs; after a write the file is diffed again, since a
        // formatter (`--format`) may have changed more.
        let written = before.zip(after).map(|(before, after)| shown::diff_file(&edit.path, &before, &after, 3));
        show_diff(toolkit, &render::diff(style, written.as_deref().unwrap_or(&edit.diff)));
        out!("{}", problems(style, &edit.diagnostics));
        broken_note(&args.file, broken, args.allow_broken);
    }
    Ok(if broken && !args.allow_broken { EXIT_REFUSED } else { EXIT_OK })
}

fn snippet(toolkit: &Toolkit, args: SnippetArgs) -> Result<u8, u8> {
    let text = read_input(&args.snippet, "the snippet")?;
    let request = json!({
        "path": args.file, "snippet": text, "dry_run": args.change.dry_run, "force": args.change.force,
        "stale": args.change.stale,
        "deletions": if args.allow_deletions { editkit::Deletions::Allow } else { editkit::Deletions::Refuse },
    });
    let (result, merged) = call::<MergeSnippetResponse>(toolkit, "merge_snippet", request, args.output)?;
    if let Some(result) = &result {
        print_json(result);
    } else {
        let style = Style::stdout();
        let verb = if args.change.dry_run { "would merge" } else { "merged" };
        outln!(
            "{} {}: {}, {}",
            style.green(verb),
            style.bold(&ShownPath::new(&merged.path).to_string()),
            plural(merged.chunks.len() as u64, "chunk"),
            line_list(&merged.line_ranges)
        );
        show_diff(toolkit, &render::diff(style, &merged.diff));
        out!("{}", problems(style, &merged.diagnostics));
    }
    Ok(EXIT_OK)
}

/// Diffs longer than this many lines go through the pager at a terminal.
const PAGE_LINES: usize = 40;

/// Prints a diff; at a terminal a long one goes through `$PAGER` (default `less -FRX`, which
/// quits at once when the text fits the screen), as git does. The pager is looked up only in
/// absolute `PATH` entries outside every workspace root, so a repository cannot ship one.
fn show_diff(toolkit: &Toolkit, text: &str) {
    if text.lines().count() > PAGE_LINES
        && io::stdout().is_terminal()
        && let Some(mut pager) = pager(toolkit)
        && let Ok(mut child) = pager.stdin(std::process::Stdio::piped()).spawn()
    {
        if let Some(mut input) = child.stdin.take() {
            let _ = input.write_all(text.as_bytes());
        }
        let _ = child.wait();
        return;
    }
    out!("{text}");
}

/// The pager command: `$PAGER` (empty or `cat`: none), else `less -FRX`, its program found by
/// `editkit_run::find_program` as every program editkit runs is (outside the workspace roots;
/// a relative program path is refused).
fn pager(toolkit: &Toolkit) -> Option<std::process::Command> {
    let spec = std::env::var("PAGER").unwrap_or_else(|_| "less -FRX".to_owned());
    let mut words = spec.split_whitespace();
    let program = words.next()?;
    if program == "cat" {
        return None;
    }
    let roots: Vec<&Path> = toolkit.workspaces().iter().map(|workspace| workspace.root_path()).collect();
    let found = editkit_run::find_program(program, &editkit_run::Roots::new(&roots)).ok()?;
    let mut command = std::process::Command::new(found.path);
    command.args(words);
    if std::env::var_os("LESS").is_none() {
        command.env("LESS", "FRX");
    }
    Some(command)
}

/// Says on stderr that a write left new syntax errors, and what to do.
fn broken_note(file: &str, broken: bool, allowed: bool) {
    if broken {
        let style = Style::stderr();
        let what = if allowed { style.yellow("warning:") } else { style.red("error:") };
        let file = ShownPath::new(file);
        eprintln!(
            "{what} {file} now has a syntax error it did not have before; the change is written: fix it, or undo it with \
             `editkit undo {file}`{}",
            if allowed { "" } else { " (--allow-broken exits 0 for such a change)" }
        );
    }
}

/// Post-write problems: syntax errors and the reports of checkers that failed, bounded.
fn problems(style: Style, diagnostics: &DiagnosticsInfo) -> String {
    let mut out = String::new();
    for error in diagnostics.syntax_errors.iter().take(10) {
        out.push_str(&format!("{} {}\n", style.yellow("syntax error:"), render::syntax_error(error)));
    }
    for checker in diagnostics.checkers.iter().filter(|checker| !checker.ok) {
        let name = shown::line(&checker.name);
        out.push_str(&format!("{}\n", style.yellow(&format!("{name} reports:"))));
        let lines: Vec<&str> = checker.output.lines().collect();
        for line in lines.iter().take(CHECKER_LINES) {
            out.push_str(&format!("  {}\n", style.content(line)));
        }
        if lines.len() > CHECKER_LINES {
            out.push_str(&format!("  {}\n", style.dim(&format!("… {} more lines", lines.len() - CHECKER_LINES))));
        }
    }
    out
}

/// What a match's rung means, for people.
fn rung_words(rung: Rung) -> &'static str {
    match rung {
        Rung::Exact => "exact match",
        Rung::CanonicalEquivalent => "matched as the same Unicode text in another normalisation form (NFC/NFD)",
        Rung::LineTrimmed => "matched ignoring indentation and spaces at line ends",
        Rung::UnicodeNormalised => "matched with typographic quotes or dashes read as plain ones",
        Rung::WhitespaceNormalised => "matched ignoring differences in spacing",
        Rung::IndentationFlexible => "matched ignoring blank lines and indentation depth",
        Rung::EscapeNormalised => "matched after reading \\n and \\\" escapes",
        Rung::BlockAnchor => "matched by its first and last lines",
        _ => "matched",
    }
}

/// `lines 6 and 8`, `lines 3-4`, `line 2`.
fn line_list(ranges: &[[usize; 2]]) -> String {
    let spans: Vec<String> = ranges
        .iter()
        .map(|&[first, last]| if first == last { first.to_string() } else { format!("{first}-{last}") })
        .collect();
    let single = matches!(ranges, [[first, last]] if first == last);
    let word = if single { "line" } else { "lines" };
    match spans.as_slice() {
        [] => String::new(),
        [one] => format!("{word} {one}"),
        [rest @ .., last] => format!("{word} {} and {last}", rest.join(", ")),
    }
}

/// `edited app.py, line 2 (exact match)`; `edited app.py: 2 replacements, lines 6 and 8 (…)`.
pub(crate) fn edit_summary(style: Style, edit: &EditFileResponse) -> String {
    let ranges: &[[usize; 2]] =
        if edit.line_ranges.is_empty() { std::slice::from_ref(&edit.line_range) } else { &edit.line_ranges };
    let verb = if edit.dry_run { "would edit" } else { "edited" };
    let how = if edit.rung.is_exact() {
        style.green(rung_words(edit.rung))
    } else {
        style.yellow(&format!("{}, similarity {:.2}", rung_words(edit.rung), edit.score))
    };
    let merged = if edit.alignment == Alignment::Merged { "; merged into the file's lines" } else { "" };
    let replacements = edit.replacements;
    let count = if replacements == 1 { ",".to_owned() } else { format!(": {replacements} replacements,") };
    format!(
        "{} {}{count} {} ({how}{merged})",
        style.green(verb),
        style.bold(&ShownPath::new(&edit.path).to_string()),
        line_list(ranges),
    )
}

/// The candidate lines of an ambiguous edit, read back from the file.
pub(crate) fn candidates(toolkit: &Toolkit, style: Style, file: &str, error: &Refusal) -> String {
    let lines: Vec<u64> = error.candidate_lines().collect();
    if lines.is_empty() {
        return String::new();
    }
    let read = editkit::tools::call(toolkit, "read_file", json!({"path": file}));
    let Ok(Answer::Done(read)) = contract::answer_owned::<ReadFileResponse>(read) else { return String::new() };
    let all: Vec<&str> = read.content.lines().collect();
    let mut out = String::new();
    for line in lines {
        let text = usize::try_from(line).ok().and_then(|l| all.get(l.checked_sub(1)?)).copied().unwrap_or("");
        out.push_str(&format!("    {} {}\n", style.dim(&format!("{line:>4} │")), style.content(text)));
    }
    out
}

/// `editkit apply`'s flags.
struct ApplyFlags {
    change: ChangeArgs,
    strict: bool,
    allow_broken: bool,
}

fn apply(toolkit: &Toolkit, patch: &str, flags: ApplyFlags, output: OutputArgs, shown: Shown) -> Result<u8, u8> {
    let ApplyFlags { change: ChangeArgs { dry_run, force, stale }, strict, allow_broken } = flags;
    let text = read_input(patch, "the patch")?;
    // What the files were, for the whole diff a person sees (the toolkit's verdict per written
    // file is the command's, so `--json` needs no texts): the whole diff names each file as
    // the patch resolved it, found by a dry run.
    let before: Vec<(String, Option<String>)> = if dry_run || output.json {
        Vec::new()
    } else {
        let preview = editkit::tools::call(
            toolkit,
            "apply_patch",
            json!({"patch": text, "dry_run": true, "force": force, "strict": strict, "stale": stale}),
        );
        let files = match contract::answer::<ApplyPatchResponse>(&preview) {
            Ok(Answer::Done(preview)) => preview.files,
            _ => Vec::new(),
        };
        let paths: Vec<String> = files.into_iter().flat_map(|file| [Some(file.path), file.from]).flatten().collect();
        each_file(&paths, |path| (path.clone(), current_text(toolkit, path)))
    };
    let (mut result, mut patched) = call::<ApplyPatchResponse>(
        toolkit,
        "apply_patch",
        json!({"patch": text, "dry_run": dry_run, "force": force, "strict": strict, "stale": stale}),
        output,
    )?;
    let after: Vec<Option<String>> = each_file(&before, |(path, _)| current_text(toolkit, path));
    let broken: Vec<String> = if dry_run {
        Vec::new()
    } else {
        patched
            .files
            .iter()
            .filter(|file| diagnostics_introduced(&file.diagnostics))
            .map(|file| file.path.clone())
            .collect()
    };
    if !shown.diagnostics {
        for (index, file) in patched.files.iter_mut().enumerate() {
            hide_diagnostics(&mut file.diagnostics, result.as_mut(), &format!("/files/{index}/diagnostics"));
        }
    }
    if let Some(result) = &result {
        print_json(result);
    } else {
        let style = Style::stdout();
        out!("{}", patch_summary(style, &patched));
        let full: Option<String> = (!dry_run).then(|| {
            before
                .iter()
                .zip(&after)
                .map(|((path, old), new)| match (old, new) {
                    (Some(old), Some(new)) => shown::diff_file(path, old, new, 3),
                    (None, Some(new)) => {
                        editkit::diff::unified("/dev/null", &shown::diff_label("b/", path), "", new, 3)
                    }
                    (Some(old), None) => {
                        editkit::diff::unified(&shown::diff_label("a/", path), "/dev/null", old, "", 3)
                    }
                    (None, None) => String::new(),
                })
                .collect()
        });
        show_diff(toolkit, &render::diff(style, full.as_deref().unwrap_or(&patched.diff)));
        for path in &broken {
            broken_note(path, true, allow_broken);
        }
    }
    Ok(if !broken.is_empty() && !allow_broken { EXIT_REFUSED } else { EXIT_OK })
}

/// One line per file a patch touched, and the problems each write left.
pub(crate) fn patch_summary(style: Style, patch: &ApplyPatchResponse) -> String {
    let verb = if patch.dry_run { "would patch" } else { "patched" };
    let mut out = format!("{} {}\n", style.green(verb), plural(patch.files.len() as u64, "file"));
    for file in &patch.files {
        let action = shown::line(&word(&file.action)).into_owned();
        let from = file.from.as_deref().map(|f| format!(" (from {})", ShownPath::new(f))).unwrap_or_default();
        let formatted = if file.formatted { ", then formatted" } else { "" };
        out.push_str(&format!("  {:<7} {}{from}{formatted}\n", action, ShownPath::new(&file.path)));
        // A hunk placed by anything but an exact match is shown, so a person can check it.
        for hunk in file.hunks.iter().filter(|hunk| !hunk.rung.is_exact()) {
            let merged = if hunk.alignment == Alignment::Merged { "; merged into the file's lines" } else { "" };
            out.push_str(&format!(
                "          hunk {} at lines {}-{}: {} (similarity {:.2}{merged})\n",
                hunk.hunk,
                hunk.lines[0],
                hunk.lines[1],
                style.yellow(rung_words(hunk.rung)),
                hunk.score,
            ));
        }
        for line in problems(style, &file.diagnostics).lines() {
            out.push_str(&format!("          {line}\n"));
        }
    }
    out
}

fn grep(toolkit: &Toolkit, args: Value, capped: bool, output: OutputArgs) -> Result<u8, u8> {
    let (result, search) = call::<SearchFilesResponse>(toolkit, "search_files", args, output)?;
    let found: usize = search.results.iter().map(|file| file.matches.len()).sum();
    if let Some(result) = &result {
        print_json(result);
        return Ok(if found == 0 { EXIT_REFUSED } else { EXIT_OK });
    }
    let style = Style::stdout();
    // The whole result is known: written in large blocks, not a write per line.
    let mut out = io::BufWriter::with_capacity(64 << 10, io::stdout().lock());
    for file in &search.results {
        let name = ShownPath::new(&file.file).to_string();
        for hit in &file.matches {
            for line in hit_lines(style, &name, hit) {
                if writeln!(out, "{line}").is_err() {
                    return Ok(EXIT_OK);
                }
            }
        }
    }
    if out.flush().is_err() {
        // The reader went away (a closed pipe): what it did not take is not an error.
        return Ok(EXIT_OK);
    }
    drop(out);
    if found > 0 && search.truncated {
        let why = if capped { "--max-results" } else { "its bound" };
        eprintln!("{}", style.dim(&format!("(results cut at {why}; narrow the search with a path or --glob)")));
    }
    Ok(if found == 0 { EXIT_REFUSED } else { EXIT_OK })
}

/// The lines of one match in `name`: its context before, the line with the match
/// highlighted, its context after.
fn hit_lines(style: Style, name: &str, hit: &SearchMatch) -> Vec<String> {
    let line_no = hit.line;
    let mut lines = Vec::new();
    for (n, text) in hit.before.iter().enumerate() {
        let number = line_no.saturating_sub((hit.before.len() - n) as u64);
        lines.push(format!("{}-{number}-{}", style.bold(name), style.content(text)));
    }
    let content = hit.content.trim_end_matches(['\n', '\r']);
    let column = hit.column as usize;
    let end_column = hit.end_column as usize;
    lines.push(format!(
        "{}:{}:{column}: {}",
        style.bold(name),
        style.green(&line_no.to_string()),
        highlight(style, content, column, end_column)
    ));
    for (n, text) in hit.after.iter().enumerate() {
        lines.push(format!("{}-{}-{}", style.bold(name), line_no + 1 + n as u64, style.content(text)));
    }
    lines
}

/// The line with its match (`column..end_column`, in characters) highlighted. A line cut
/// around its match is shown as it is, and so is a line whose control characters were made
/// visible for the terminal (its columns moved).
fn highlight(style: Style, content: &str, column: usize, end_column: usize) -> String {
    let shown = style.content(content);
    if matches!(shown, std::borrow::Cow::Owned(_)) {
        return shown.into_owned();
    }
    if content.contains(editkit::search::CUT_MARKER) || content.contains('\n') {
        return content.to_owned();
    }
    let at = |col: usize| content.char_indices().nth(col.saturating_sub(1)).map_or(content.len(), |(i, _)| i);
    let (start, end) = (at(column), at(end_column.max(column)));
    if start >= end {
        return content.to_owned();
    }
    format!("{}{}{}", &content[..start], style.red(&style.bold(&content[start..end])), &content[end..])
}

fn symbols(toolkit: &Toolkit, file: &str, output: OutputArgs) -> Result<u8, u8> {
    // Markdown has an outline, not symbols: read it.
    let info = editkit::tools::call(toolkit, "file_info", json!({"path": file}));
    let markdown = matches!(
        contract::answer::<FileInfoResponse>(&info),
        Ok(Answer::Done(FileInfoResponse { file_type: Some(FileType::Markdown), .. }))
    );
    if markdown {
        let args = json!({"path": file, "include_symbols": true});
        let (_, read) = call::<ReadFileResponse>(toolkit, "read_file", args, output)?;
        if output.json {
            print_json(
                &json!({"ok": true, "path": read.path, "file_type": FileType::Markdown, "headers": read.headers}),
            );
            return Ok(EXIT_OK);
        }
        if read.headers.is_empty() {
            outln!("{}: no headings (markdown)", ShownPath::new(file));
        }
        for line in outline_lines(Style::stdout(), &read.headers) {
            outln!("{line}");
        }
        return Ok(EXIT_OK);
    }
    let (result, symbols) = call::<FileSymbolsResponse>(toolkit, "file_symbols", json!({"path": file}), output)?;
    if let Some(result) = &result {
        print_json(result);
        return Ok(EXIT_OK);
    }
    let lines = symbol_lines(&symbols.symbols);
    if lines.is_empty() {
        outln!("{}: no symbols ({})", ShownPath::new(file), symbols.file_type.as_str());
    }
    for line in lines {
        outln!("{line}");
    }
    Ok(EXIT_OK)
}

fn check(toolkit: &Toolkit, file: &str, output: OutputArgs) -> Result<u8, u8> {
    let (result, checked) = call::<CheckSyntaxResponse>(toolkit, "check_syntax", json!({"path": file}), output)?;
    if let Some(result) = &result {
        print_json(result);
        return Ok(if checked.valid { EXIT_OK } else { EXIT_REFUSED });
    }
    let style = Style::stdout();
    let kind = checked.file_type.as_str();
    let file = ShownPath::new(file);
    if checked.valid {
        outln!("{file}: {} ({kind})", style.green("ok"));
        return Ok(EXIT_OK);
    }
    outln!("{file}: {} ({kind})", style.red("syntax errors"));
    for error in &checked.errors {
        outln!("  {}", render::syntax_error(error));
    }
    Ok(EXIT_REFUSED)
}

fn diff(toolkit: &Toolkit, file: &str, new_file: &str, output: OutputArgs) -> Result<u8, u8> {
    let new_content = read_input(new_file, "the new content")?;
    let args = json!({"path": file, "new_content": new_content});
    let (result, diff) = call::<GenerateDiffResponse>(toolkit, "generate_diff", args, output)?;
    if let Some(result) = &result {
        print_json(result);
    } else if diff.has_changes {
        let style = Style::stdout();
        out!("{}", render::diff(style, &diff.diff));
        outln!("{}", style.dim(&format!("+{} -{}", diff.additions, diff.deletions)));
    } else {
        outln!("{}: no changes", ShownPath::new(file));
    }
    // As diff(1): 0 when the same, 1 when they differ.
    Ok(if diff.has_changes { EXIT_REFUSED } else { EXIT_OK })
}

fn undo(
    toolkit: &Toolkit,
    file: Option<&str>,
    patch: bool,
    yes: bool,
    force: bool,
    output: OutputArgs,
) -> Result<u8, u8> {
    let whole_patch = match (patch, file) {
        (true, _) => true,
        (false, Some(file)) => {
            // The last change to the file may have been a patch: then undoing it means undoing
            // the whole patch, which the user confirms.
            let history = editkit::tools::call(toolkit, "history", json!({"path": file}));
            let last_patch = match contract::answer::<HistoryResponse>(&history) {
                Ok(Answer::Done(history)) if history.last_change.as_deref() == Some("patch") => {
                    Some(history.patches.into_iter().next().map(|patch| patch.files).unwrap_or_default())
                }
                _ => None,
            };
            if let Some(files) = &last_patch {
                let files = shown_files(files);
                if !confirm(
                    &format!(
                        "the last change to {} was a patch; undoing it undoes the whole patch ({})",
                        ShownPath::new(file),
                        files.join(", ")
                    ),
                    yes,
                ) {
                    return Err(EXIT_USAGE);
                }
            }
            last_patch.is_some()
        }
        (false, None) => return Err(EXIT_USAGE),
    };
    let (result, undone) = if whole_patch {
        call::<UndoResponse>(toolkit, "undo_patch", json!({"force": force}), output)?
    } else {
        call::<UndoResponse>(toolkit, "undo_edit", json!({"path": file.unwrap_or_default(), "force": force}), output)?
    };
    if let Some(result) = &result {
        print_json(result);
        return Ok(EXIT_OK);
    }
    for path in &undone.restored {
        outln!("restored {}", ShownPath::new(path));
    }
    let left = match (whole_patch, undone.remaining) {
        (true, 1) => "1 patch".to_owned(),
        (true, n) => format!("{n} patches"),
        (false, n) => plural(n as u64, "earlier version"),
    };
    outln!("{}", Style::stdout().dim(&format!("{left} left to undo")));
    Ok(EXIT_OK)
}

/// Asks before a wide undo: `--yes`, or a `y` typed at a terminal.
fn confirm(question: &str, yes: bool) -> bool {
    if yes {
        return true;
    }
    if !io::stdin().is_terminal() {
        eprintln!("{} {question}; pass --yes to do so", Style::stderr().red("error:"));
        return false;
    }
    eprint!("{question}. Undo it? [y/N] ");
    let mut answer = String::new();
    io::stdin().read_line(&mut answer).is_ok() && matches!(answer.trim(), "y" | "Y" | "yes")
}

fn history(toolkit: &Toolkit, file: Option<&str>, output: OutputArgs) -> Result<u8, u8> {
    let args = file.map_or_else(|| json!({}), |file| json!({"path": file}));
    let (result, history) = call::<HistoryResponse>(toolkit, "history", args, output)?;
    if let Some(result) = &result {
        print_json(result);
        return Ok(EXIT_OK);
    }
    let style = Style::stdout();
    if history.files.is_empty() && history.patches.is_empty() {
        outln!("no undo history{}", file.map(|f| format!(" for {}", ShownPath::new(f))).unwrap_or_default());
        return Ok(EXIT_OK);
    }
    for entry in &history.files {
        outln!("{}", style.bold(&ShownPath::new(&entry.path).to_string()));
        for version in &entry.versions {
            let kept = match version.size_bytes {
                Some(size) => format!("the version before, {}", plural(size, "byte")),
                None => "the file did not exist before".to_owned(),
            };
            outln!("  {}  {kept}", when(version.time_unix));
        }
    }
    for patch in &history.patches {
        let files = shown_files(&patch.files);
        outln!("{} {}  {}", style.bold("change"), when(patch.time_unix), files.join(", "));
    }
    if let Some(evicted) = &history.evicted {
        outln!(
            "{} older {} ({}) dropped to keep the history within {} (--history-bytes), the last {}",
            evicted.versions,
            if evicted.versions == 1 { "version" } else { "versions" },
            plural(evicted.bytes, "byte"),
            plural(evicted.max_bytes, "byte"),
            when(Some(evicted.time_unix))
        );
    }
    Ok(EXIT_OK)
}

/// A history time for people: `2026-12-01 18:39:17 UTC`, or `unknown time`.
fn when(time: Option<i64>) -> String {
    let Some(time) = time.filter(|t| *t > 0) else { return "(time unknown)".to_owned() };
    let (days, seconds) = (time.div_euclid(86_400), time.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC", seconds / 3600, seconds / 60 % 60, seconds % 60)
}

/// The proleptic Gregorian date of a day count from 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn recover(toolkit: &Toolkit) -> Result<u8, u8> {
    let style = Style::stdout();
    for workspace in toolkit.workspaces() {
        let root = ShownPath::from_path(workspace.root_path()).to_string();
        match editkit::patch::recover(workspace) {
            Ok(recovery) if recovery.is_empty() => outln!("{root}: nothing to recover"),
            Ok(recovery) => {
                outln!(
                    "{root}: rolled back {}, restored {}, cleaned {}",
                    plural(recovery.rolled_back.len() as u64, "interrupted patch"),
                    plural(recovery.restored.len() as u64, "file"),
                    plural(recovery.cleaned as u64, "leftover backup")
                );
                for path in &recovery.restored {
                    outln!("  {} {}", style.green("restored"), ShownPath::new(path));
                }
            }
            Err(err) => {
                let error = Refusal::of_error(&editkit::Error::from(err));
                eprint!("{}", render::refusal(Style::stderr(), &error));
                return Err(error.exit_code());
            }
        }
    }
    Ok(EXIT_OK)
}

/// Paths, each quoted for a reader.
fn shown_files(files: &[String]) -> Vec<String> {
    files.iter().map(|f| ShownPath::new(f).to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_lists_read_as_words() {
        assert_eq!(line_list(&[[2, 2]]), "line 2");
        assert_eq!(line_list(&[[3, 4]]), "lines 3-4");
        assert_eq!(line_list(&[[6, 6], [8, 8]]), "lines 6 and 8");
        assert_eq!(line_list(&[[1, 1], [4, 5], [9, 9]]), "lines 1, 4-5 and 9");
    }

    #[test]
    fn dates_are_civil() {
        assert_eq!(when(Some(0)), "(time unknown)");
        assert_eq!(when(Some(1_796_150_357)), "2026-12-01 18:39:17 UTC");
        assert_eq!(when(Some(951_782_400)), "2000-02-29 00:00:00 UTC");
    }

    #[test]
    fn highlights_cover_the_match() {
        assert_eq!(highlight(Style::plain(), "x = greet(a)", 5, 11), "x = greet(a)");
        assert_eq!(highlight(Style::coloured(), "x = greet(a)", 5, 11), "x = \x1b[31m\x1b[1mgreet(\x1b[0m\x1b[0ma)");
        assert_eq!(highlight(Style::coloured(), "é = 1", 1, 2), "\x1b[31m\x1b[1mé\x1b[0m\x1b[0m = 1");
    }
}
