//! The code-intel tools, answered by language servers (`find_symbol`, `find_references`,
//! `rename_symbol`, `diagnostics`): a workspace file's language and the session of its server
//! ([`Toolkit::language_server`]), started on first use from the pool the toolkit keeps.
//!
//! A server's answer is never shown as more than it is: before references, symbols and
//! renames the server's readiness gate is waited for, and an answer given without it says
//! `complete: false` (a rename is refused instead); diagnostics carry their freshness.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use editkit_lsp::lsp_types::{Position, WorkspaceEdit};
use editkit_lsp::{Language, LineIndex, RpcError, Session, Symbol};
use editkit_vfs::FileText;

use crate::catalog::Tool;
use crate::edit_set::{EditSet, FileEdits};
use crate::error::{Error, Result};
use crate::toolkit::Toolkit;
use crate::types::*;

/// The longest line text a result shows, in characters.
const MAX_LINE_CHARS: usize = 300;
/// find_symbol's default and ceiling for `max_results`.
const SYMBOLS: (usize, usize) = (50, 200);
/// find_references' default and ceiling for `max_results`.
const REFERENCES: (usize, usize) = (200, 10_000);
/// The most files one `diagnostics` call answers for.
const MAX_DIAGNOSTICS_FILES: usize = 500;
/// The longest `wait_ms` a diagnostics call may ask for.
const MAX_WAIT_MS: u64 = 120_000;
/// The longest name path, symbol or new name, in bytes.
const MAX_NAME_BYTES: usize = 1_024;
/// The most files whose symbols find_symbol reads to confirm a container.
const MAX_CONFIRMED_FILES: usize = 64;

/// A workspace file a language server answers for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ServedFile {
    /// Which workspace holds it (an index of [`Toolkit::workspaces`]).
    pub(crate) root: usize,
    /// Its canonical path relative to that root.
    pub(crate) rel: String,
    /// Its absolute path (the root's real path joined with `rel`): what the server is told.
    pub(crate) absolute: PathBuf,
    /// Its language, by extension.
    pub(crate) language: Language,
}

impl Toolkit {
    /// `path` resolved in its workspace (policy checked, symlinks followed inside the root),
    /// with its language; no server is started.
    ///
    /// # Errors
    /// The workspace's refusals of the path (`outside_workspace`, `blocked`...);
    /// `invalid_args` when no language server handles its kind of file.
    pub(crate) fn served_file(&self, path: &str) -> Result<ServedFile> {
        let (root, workspace) = self.route(path);
        let rel = workspace.resolve(path)?;
        let absolute = workspace.root_path().join(&rel);
        let language = Language::of_path(&absolute).ok_or_else(|| {
            Error::invalid(
                "path",
                format!(
                    "`{rel}` is not a file a language server is run for: editkit runs one for Python (.py, .pyi), \
                     TypeScript and JavaScript (.ts, .tsx, .mts, .cts, .js, .jsx, .mjs, .cjs) and Rust (.rs)"
                ),
            )
        })?;
        Ok(ServedFile { root, rel, absolute, language })
    }

    /// The session of the server for `file`'s language on `file`'s root, starting the server
    /// when none runs (a started server is kept warm for the next call).
    ///
    /// # Errors
    /// `unavailable` when language servers are off, none is installed on the `PATH` outside
    /// every root, or it cannot start; the reason never quotes the server's output.
    pub(crate) fn session_for(&self, file: &ServedFile) -> Result<Arc<Session>> {
        if !self.options().language_servers.enabled {
            return Err(servers_off(file.language));
        }
        let workspace = self.workspaces().get(file.root).unwrap_or_else(|| self.workspace());
        let roots = editkit_run::Roots::new(&self.root_paths());
        Ok(self.lsp.session(file.language, workspace.root_path(), &roots)?)
    }

    /// [`Toolkit::served_file`] then [`Toolkit::session_for`]: `path`'s language and the session
    /// of its server.
    ///
    /// # Errors
    /// As those two.
    #[cfg_attr(not(test), allow(dead_code, reason = "the one-call form of the seam, kept for the post-write hook"))]
    pub(crate) fn language_server(&self, path: &str) -> Result<(ServedFile, Arc<Session>)> {
        let file = self.served_file(path)?;
        let session = self.session_for(&file)?;
        Ok((file, session))
    }
}

/// The refusal when [`crate::LanguageServerOptions::enabled`] is false.
pub(crate) fn servers_off(language: Language) -> Error {
    Error::Unavailable {
        language: language.as_str().to_owned(),
        reason: "language servers are off (the toolkit's `language_servers.enabled` is false)".to_owned(),
        install: None,
    }
}

/// Where a symbol is in a file: the position the server is asked about.
struct Located {
    position: Position,
    name: String,
    /// 1-based.
    line: usize,
    /// 1-based, in characters.
    column: usize,
}

/// A place in the workspace a result may show: its root, its path there and the server's
/// position.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Spot {
    root: usize,
    rel: String,
    line: u32,
    character: u32,
}

impl Spot {
    fn new((root, rel): (usize, String), position: Position) -> Spot {
        Spot { root, rel, line: position.line, character: position.character }
    }
}

/// What a result shows of a [`Spot`]: its 1-based line, its 1-based column in characters
/// and the line's text (cut to [`MAX_LINE_CHARS`]).
struct Quoted {
    line: usize,
    column: usize,
    text: String,
}

impl Toolkit {
    /// The line texts and columns of `spots`, which the caller has sorted and cut to what it
    /// shows. Each file is read once, only after its size is charged against the call's
    /// budget (`max_call_bytes`), and dropped before the next is read; the positions of a
    /// file are mapped in one walk of each line ([`LineIndex::places`]). `None` for a spot
    /// whose file cannot be read or whose position is not in its text.
    ///
    /// # Errors
    /// `too_large` when the files together pass `max_call_bytes` (none past it is read).
    fn quote(&self, spots: &[(Spot, editkit_lsp::Encoding)]) -> Result<Vec<Option<Quoted>>> {
        let budget = self.options().max_call_bytes;
        let mut used: u64 = 0;
        let mut out = Vec::with_capacity(spots.len());
        for group in spots.chunk_by(|(a, _), (b, _)| (a.root, &a.rel) == (b.root, &b.rel)) {
            // One file is one language, so its spots share their server's encoding.
            let Some((first, encoding)) = group.first() else { continue };
            let Some(workspace) = self.workspaces().get(first.root) else {
                out.extend(group.iter().map(|_| None));
                continue;
            };
            let size = workspace.metadata(&first.rel).map_or(0, |meta| meta.size);
            used = used.saturating_add(size);
            if used > budget {
                return Err(Error::LimitExceeded {
                    what: format!("`{}` with the files read before it to quote this call's results", first.rel),
                    size: used,
                    limit: budget,
                    option: "max_call_bytes (--max-call-bytes)".into(),
                    advice: "it was not read; ask for fewer results (max_results) or narrow the request".into(),
                });
            }
            let Ok(read) = workspace.peek(&first.rel) else {
                out.extend(group.iter().map(|_| None));
                continue;
            };
            let text = read.text();
            let index = LineIndex::new(text);
            let positions: Vec<Position> =
                group.iter().map(|(spot, _)| Position { line: spot.line, character: spot.character }).collect();
            for ((spot, _), place) in group.iter().zip(index.places(&positions, *encoding)) {
                let quoted = place.and_then(|place| {
                    let range = index.line_range(usize::try_from(spot.line).ok()?)?;
                    let line = usize::try_from(spot.line).ok()?.checked_add(1)?;
                    Some(Quoted { line, column: place.chars + 1, text: cut_line(text.get(range)?) })
                });
                out.push(quoted);
            }
        }
        Ok(out)
    }
}

/// Drops results from the end until their bytes fit the call's budget, as search does;
/// whether any was dropped.
fn fit<T>(results: &mut Vec<T>, budget: u64, size: impl Fn(&T) -> usize) -> bool {
    let mut total: u64 = results.iter().map(|result| size(result) as u64).sum();
    let mut dropped = false;
    while total > budget {
        let Some(last) = results.pop() else { break };
        total = total.saturating_sub(size(&last) as u64);
        dropped = true;
    }
    dropped
}

/// A result's bytes as charged: its path and line text, and its other fields' room.
fn result_bytes(path: &str, text: &str) -> usize {
    path.len() + text.len() + 64
}

/// A line fit to show: at most [`MAX_LINE_CHARS`] characters, a cut one ending in `…`.
fn cut_line(line: &str) -> String {
    let line = line.trim_end_matches('\r');
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}

/// `max_results` within its ceiling.
fn bounded(asked: Option<usize>, (default, ceiling): (usize, usize)) -> Result<usize> {
    match asked {
        None => Ok(default),
        Some(0) => Err(Error::invalid("max_results", "give at least 1")),
        Some(asked) if asked > ceiling => {
            Err(Error::invalid("max_results", format!("{asked} is over the ceiling of {ceiling}; ask for fewer")))
        }
        Some(asked) => Ok(asked),
    }
}

/// The segments of a name path (`Class/method`, `Class.method`, `mod::func`).
fn name_segments(field: &str, name_path: &str) -> Result<Vec<String>> {
    if name_path.len() > MAX_NAME_BYTES {
        return Err(Error::invalid(field, format!("longer than {MAX_NAME_BYTES} bytes")));
    }
    let segments: Vec<String> =
        name_path.replace("::", "/").split(['/', '.']).map(|part| part.trim().to_owned()).collect();
    if segments.iter().any(String::is_empty) || name_path.contains(['\n', '\r']) {
        return Err(Error::invalid(field, "give a name path such as `func` or `Class/method` (no empty parts)"));
    }
    Ok(segments)
}

/// A container as the segments of its name: `pkg.util` → `pkg`, `util`; `impl Trait for
/// Shape<T>` → `Shape`.
fn container_segments(container: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in container.replace("::", "/").split(['/', '.']) {
        let mut part = part.trim();
        if let Some(rest) = part.strip_prefix("impl ") {
            part = rest.rsplit(" for ").next().unwrap_or(rest).trim();
        }
        let part = part.split('<').next().unwrap_or(part).trim();
        if !part.is_empty() {
            out.push(part.to_owned());
        }
    }
    out
}

/// Whether `container`'s segments end with `wanted`.
fn container_matches(container: Option<&str>, wanted: &[String]) -> bool {
    if wanted.is_empty() {
        return true;
    }
    let Some(container) = container else { return false };
    container_segments(container).ends_with(wanted)
}

/// Whether `symbol` is named by `wanted` containers: by its container, or by its file's
/// module path then its container (`util/compute_total` for `compute_total` in `util.rs`;
/// `mod.rs`, `__init__.py`, `index.ts` and `lib.rs` name their folder).
fn symbol_matches(symbol: &Symbol, wanted: &[String]) -> bool {
    if container_matches(symbol.container.as_deref(), wanted) {
        return true;
    }
    let mut chain: Vec<String> = Vec::new();
    let parts: Vec<&std::ffi::OsStr> = symbol.path.iter().collect();
    for (at, part) in parts.iter().enumerate() {
        let part = part.to_string_lossy();
        let part = if at + 1 == parts.len() {
            match part.split('.').next().unwrap_or("") {
                "mod" | "__init__" | "index" | "lib" | "main" => continue,
                stem => stem.to_owned(),
            }
        } else {
            part.into_owned()
        };
        chain.push(part);
    }
    chain.extend(symbol.container.as_deref().map(container_segments).unwrap_or_default());
    chain.ends_with(wanted)
}

/// The identifier around byte `at` of `line` (letters, digits, `_`, `$`), as (start, name).
fn identifier_at(line: &str, at: usize) -> Option<(usize, &str)> {
    let part = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let start = line.get(..at)?.char_indices().rev().take_while(|(_, c)| part(*c)).last().map_or(at, |(i, _)| i);
    let end = line.get(at..)?.char_indices().find(|(_, c)| !part(*c)).map_or(line.len(), |(i, _)| at + i);
    let name = line.get(start..end)?;
    (!name.is_empty()).then_some((start, name))
}

/// The first whole-word occurrence of `name` in `line`, its byte offset.
fn word_in(line: &str, name: &str) -> Option<usize> {
    let part = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    line.match_indices(name).map(|(at, _)| at).find(|&at| {
        let before = line.get(..at).and_then(|b| b.chars().next_back());
        let after = line.get(at + name.len()..).and_then(|a| a.chars().next());
        !before.is_some_and(part) && !after.is_some_and(part)
    })
}

/// `request` (given the wait left) again while the server answers that the content changed
/// under it or it cancelled the request (`ContentModified`, `ServerCancelled`: it was still
/// taking in a change), until `wait` has passed.
fn retrying<T>(wait: Duration, mut request: impl FnMut(Duration) -> Result<T, RpcError>) -> Result<T, RpcError> {
    let deadline = Instant::now() + wait;
    let mut pause = Duration::from_millis(20);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match request(left) {
            Err(RpcError::Server { code: -32801 | -32802, .. }) if Instant::now() + pause < deadline => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(500));
            }
            answer => return answer,
        }
    }
}

/// A request's failure, in the contract's kinds: a server that is gone or does not answer
/// in time is `unavailable`; one that refuses the request says so as `invalid_args`.
fn request_failed(language: Language, error: RpcError) -> Error {
    match error {
        RpcError::Server { .. } => Error::invalid("line", format!("the {} server refused: {error}", language.as_str())),
        other => {
            Error::Unavailable { language: language.as_str().to_owned(), reason: other.to_string(), install: None }
        }
    }
}

/// Checks a rename's new name: non-empty, bounded, one line, and an identifier where that is
/// simply said (Python, Rust: letters, digits and `_`, not starting with a digit; TypeScript
/// also `$`).
fn check_new_name(language: Language, name: &str) -> Result<()> {
    if name.is_empty() || name.len() > MAX_NAME_BYTES {
        return Err(Error::invalid("new_name", format!("give a name of 1 to {MAX_NAME_BYTES} bytes")));
    }
    let dollar = language == Language::TypeScript;
    let identifier = |name: &str| {
        name.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_' || (dollar && c == '$'))
            && name.chars().all(|c| c.is_alphanumeric() || c == '_' || (dollar && c == '$'))
    };
    // A raw identifier is a Rust name too: `r#` then an identifier that may be raw (not
    // `crate`, `self`, `super`, `Self` or `_`).
    let raw = language == Language::Rust
        && name
            .strip_prefix("r#")
            .is_some_and(|rest| identifier(rest) && !["crate", "self", "super", "Self", "_"].contains(&rest));
    if !(raw || identifier(name)) {
        return Err(Error::invalid(
            "new_name",
            format!(
                "`{}` is not a {} identifier (letters, digits and `_`{}, not starting with a digit)",
                crate::shown::line(name),
                language.as_str(),
                if dollar { " or `$`" } else { "" }
            ),
        ));
    }
    Ok(())
}

impl Toolkit {
    /// `file` opened with its server (its text as the vfs reads it sent), and that text.
    /// A server that stopped is started again once (by the pool) before this gives up.
    fn opened(&self, file: &ServedFile) -> Result<(Arc<Session>, FileText)> {
        let workspace = self.workspaces().get(file.root).unwrap_or_else(|| self.workspace());
        let read = workspace.peek(&file.rel)?;
        let mut session = self.session_for(file)?;
        if session.sync(&file.absolute, read.text()).is_err() || session.server().broken().is_some() {
            session = self.session_for(file)?;
            session.sync(&file.absolute, read.text()).map_err(|error| request_failed(file.language, error))?;
        }
        Ok((session, read))
    }

    /// Waits for `session`'s server to have loaded the workspace; `Some(why)` when the answer
    /// may be incomplete.
    fn readiness(&self, session: &Session) -> Option<String> {
        let language = session.language();
        let wait = self.options().language_servers.ready_wait.of(language);
        if !session.server().wait_ready(wait) {
            return Some(format!(
                "the {} server had not finished loading the workspace after {} s",
                language.as_str(),
                wait.as_secs()
            ));
        }
        session.server().load_problem()
    }

    /// A server's file as (root, path relative to it), when it lies in a workspace and the
    /// policy lets it be shown.
    fn workspace_path(&self, path: &Path) -> Option<(usize, String)> {
        let text = path.to_str()?;
        let (root, workspace) =
            self.workspaces().iter().enumerate().find(|(_, workspace)| workspace.contains_absolute(path))?;
        workspace.resolve(text).ok().map(|rel| (root, rel))
    }

    /// The position a request names in `file` (text `text`): `line` with `column` or
    /// `symbol`, or `symbol` alone as a name path found among the file's symbols.
    fn locate(
        &self,
        session: &Session,
        file: &ServedFile,
        text: &str,
        (line, column, symbol): (Option<usize>, Option<usize>, Option<&str>),
        deadline: Instant,
    ) -> Result<Located> {
        let encoding = session.server().encoding();
        let index = LineIndex::new(text);
        let Some(line) = line else {
            let Some(symbol) = symbol else {
                return Err(Error::invalid("line", "give line (with column or symbol), or symbol as a name path"));
            };
            return self.locate_name_path(session, file, text, symbol, deadline);
        };
        let lines = text.split('\n').count();
        let line_text = text.split('\n').nth(line.wrapping_sub(1)).ok_or_else(|| {
            Error::invalid("line", format!("line {line} is not in `{}`, which has {lines} lines (1-based)", file.rel))
        })?;
        let at = match (column, symbol) {
            (Some(column), _) => {
                line_text.char_indices().nth(column.wrapping_sub(1)).map(|(at, _)| at).ok_or_else(|| {
                    Error::invalid(
                        "column",
                        format!("column {column} is past the end of line {line} (1-based, characters)"),
                    )
                })?
            }
            (None, Some(symbol)) => {
                let name = name_segments("symbol", symbol)?.pop().unwrap_or_default();
                word_in(line_text, &name).ok_or_else(|| {
                    Error::invalid("symbol", format!("`{name}` is not on line {line}: `{}`", cut_line(line_text)))
                })?
            }
            (None, None) => return Err(Error::invalid("column", "give column or symbol with line")),
        };
        let (start, name) = identifier_at(line_text, at).ok_or_else(|| {
            Error::invalid("column", format!("no name at line {line}, column {}", column.unwrap_or(0)))
        })?;
        let line_start = text.split('\n').take(line - 1).map(|l| l.len() + 1).sum::<usize>();
        let position = index
            .position(line_start + start, encoding)
            .ok_or_else(|| Error::invalid("column", "the position is not on a character"))?;
        let column = line_text.get(..start).map_or(1, |before| before.chars().count() + 1);
        Ok(Located { position, name: name.to_owned(), line, column })
    }

    /// The symbol of `file` named by `name_path`, from the server's document symbols.
    fn locate_name_path(
        &self,
        session: &Session,
        file: &ServedFile,
        text: &str,
        name_path: &str,
        deadline: Instant,
    ) -> Result<Located> {
        let segments = name_segments("symbol", name_path)?;
        let (name, containers) = segments.split_last().ok_or_else(|| Error::invalid("symbol", "empty"))?;
        let wait = deadline.saturating_duration_since(Instant::now());
        let (symbols, _) = retrying(wait, |left| session.server().document_symbols(&file.absolute, left))
            .map_err(|e| request_failed(file.language, e))?;
        let found: Vec<&Symbol> =
            symbols.iter().filter(|symbol| &symbol.name == name && symbol_matches(symbol, containers)).collect();
        let symbol = match found.as_slice() {
            [one] => *one,
            [] => {
                return Err(Error::invalid(
                    "symbol",
                    format!(
                        "no symbol `{}` in `{}` (give line and column instead)",
                        crate::shown::line(name_path),
                        file.rel
                    ),
                ));
            }
            many => {
                let lines: Vec<String> = many.iter().map(|s| (s.position.line + 1).to_string()).collect();
                return Err(Error::invalid(
                    "symbol",
                    format!(
                        "`{}` names {} symbols (lines {}); give line",
                        crate::shown::line(name_path),
                        many.len(),
                        lines.join(", ")
                    ),
                ));
            }
        };
        let encoding = session.server().encoding();
        let offset = LineIndex::new(text)
            .offset(symbol.position, encoding)
            .ok_or_else(|| Error::invalid("symbol", "the server placed the symbol outside the file's text"))?;
        let line_start = text.get(..offset).and_then(|before| before.rfind('\n')).map_or(0, |at| at + 1);
        let column = text.get(line_start..offset).map_or(1, |before| before.chars().count() + 1);
        let line = usize::try_from(symbol.position.line).unwrap_or(usize::MAX).saturating_add(1);
        Ok(Located { position: symbol.position, name: name.clone(), line, column })
    }

    /// The references to a symbol across the workspace, from its language server (see
    /// [`FindReferencesRequest`]).
    ///
    /// # Errors
    /// `unavailable` without a server; `invalid_args` for a position that names no symbol;
    /// the path's refusals.
    pub fn find_references(&self, request: FindReferencesRequest) -> Result<FindReferencesResponse> {
        let limit = bounded(request.max_results, REFERENCES)?;
        let file = self.served_file(&request.path)?;
        let (session, read) = self.opened(&file)?;
        let incomplete = self.readiness(&session);
        // One deadline for the call's requests (`request_wait`), however many it makes.
        let deadline = Instant::now() + self.options().language_servers.request_wait;
        let position = (request.line, request.column, request.symbol.as_deref());
        let at = self.locate(&session, &file, read.text(), position, deadline)?;
        let wait = deadline.saturating_duration_since(Instant::now());
        let locations = retrying(wait, |left| {
            session.server().references_with(&file.absolute, at.position, request.include_declaration, left)
        })
        .map_err(|error| request_failed(file.language, error))?;
        let encoding = session.server().encoding();
        // Sorted, deduplicated and cut to max_results before any file is read.
        let mut omitted_outside = 0;
        let mut spots = Vec::with_capacity(locations.len().min(limit));
        for location in &locations {
            match editkit_lsp::uri_to_path(&location.uri).and_then(|path| self.workspace_path(&path)) {
                Some(at) => spots.push(Spot::new(at, location.range.start)),
                None => omitted_outside += 1,
            }
        }
        drop(locations);
        spots.sort();
        spots.dedup();
        let total = spots.len();
        spots.truncate(limit);
        let spots: Vec<(Spot, editkit_lsp::Encoding)> = spots.into_iter().map(|spot| (spot, encoding)).collect();
        let quoted = self.quote(&spots)?;
        let mut references = Vec::with_capacity(spots.len());
        let mut total = total;
        for ((spot, _), quoted) in spots.into_iter().zip(quoted) {
            match quoted {
                Some(Quoted { line, column, text }) => {
                    references.push(ReferenceInfo { path: spot.rel, line, column, text });
                }
                None => {
                    // A file that cannot be read is shown as nothing, like one outside.
                    omitted_outside += 1;
                    total -= 1;
                }
            }
        }
        references.dedup();
        let fitted = fit(&mut references, self.options().max_call_bytes, |r| result_bytes(&r.path, &r.text));
        Ok(FindReferencesResponse {
            path: file.rel,
            symbol: at.name,
            line: at.line,
            column: at.column,
            truncated: fitted || total > references.len(),
            references,
            total,
            omitted_outside,
            complete: incomplete.is_none(),
            incomplete_reason: incomplete,
        })
    }
}

/// The languages a find_symbol without a path asks, each with a file of it to open (servers
/// load a project around an open file): every language whose files the primary root holds,
/// or the one named.
const LANGUAGE_GLOBS: [(Language, &str); 3] = [
    (Language::Python, "**/*.{py,pyi}"),
    (Language::TypeScript, "**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs}"),
    (Language::Rust, "**/*.rs"),
];

impl Toolkit {
    /// The files find_symbol opens: `path`'s, or one per language the workspace holds.
    fn symbol_targets(&self, path: Option<&str>, language: Option<&str>) -> Result<Vec<ServedFile>> {
        if let Some(path) = path {
            return Ok(vec![self.served_file(path)?]);
        }
        let wanted = match language {
            None => None,
            Some(word) => Some(
                LANGUAGE_GLOBS
                    .iter()
                    .map(|(language, _)| *language)
                    .find(|language| {
                        language.as_str() == word || (word == "javascript" && *language == Language::TypeScript)
                    })
                    .ok_or_else(|| {
                        Error::invalid(
                            "language",
                            format!("`{}` is not python, typescript, javascript or rust", crate::shown::line(word)),
                        )
                    })?,
            ),
        };
        let mut targets = Vec::new();
        for (language, pattern) in LANGUAGE_GLOBS {
            if wanted.is_some_and(|wanted| wanted != language) {
                continue;
            }
            let found = self.glob(GlobRequest::new(pattern))?;
            if let Some(first) = found.matches.first() {
                targets.push(self.served_file(first)?);
            }
        }
        if targets.is_empty() {
            return Err(Error::invalid(
                "path",
                format!(
                    "the workspace holds no {} files; give path",
                    language.map_or("Python, TypeScript, JavaScript or Rust".to_owned(), str::to_owned)
                ),
            ));
        }
        Ok(targets)
    }

    /// Where the symbols named by a name path are, from the language servers (see
    /// [`FindSymbolRequest`]).
    ///
    /// # Errors
    /// `unavailable` when no server answers (naming what to install); `invalid_args` for a
    /// malformed name path; the path's refusals.
    pub fn find_symbol(&self, request: FindSymbolRequest) -> Result<FindSymbolResponse> {
        let segments = name_segments("name_path", &request.name_path)?;
        let limit = bounded(request.max_results, SYMBOLS)?;
        let targets = self.symbol_targets(request.path.as_deref(), request.language.as_deref())?;
        let mut found = Vec::new();
        let mut omitted_outside = 0;
        let mut reasons: Vec<String> = Vec::new();
        let mut failure: Option<Error> = None;
        let mut answered = false;
        // One deadline for the call's requests (`request_wait`), however many it makes.
        let deadline = Instant::now() + self.options().language_servers.request_wait;
        for file in &targets {
            let (session, _) = match self.opened(file) {
                Ok(opened) => opened,
                // One language without a server does not hide another's answer.
                Err(error @ Error::Unavailable { .. }) if targets.len() > 1 => {
                    reasons.push(error.message());
                    failure.get_or_insert(error);
                    continue;
                }
                Err(error) => return Err(error),
            };
            answered = true;
            reasons.extend(self.readiness(&session));
            let (symbols, cut) = self.symbols_named(&session, file, (request.path.is_some(), &segments), deadline)?;
            reasons.extend(cut);
            let encoding = session.server().encoding();
            for symbol in symbols {
                match self.workspace_path(&symbol.path) {
                    Some(at) => {
                        let spot = Spot::new(at, symbol.position);
                        found.push(((spot, encoding), symbol.name, symbol.kind, symbol.container, file.language));
                    }
                    None => omitted_outside += 1,
                }
            }
        }
        if !answered && let Some(failure) = failure {
            return Err(failure);
        }
        // Sorted, deduplicated and cut to max_results before any file is read.
        found.sort_by(|a, b| (&a.0.0, &a.1).cmp(&(&b.0.0, &b.1)));
        found.dedup_by(|a, b| (&a.0.0, &a.1, a.2, &a.3, a.4) == (&b.0.0, &b.1, b.2, &b.3, b.4));
        let mut truncated = found.len() > limit;
        found.truncate(limit);
        let spots: Vec<(Spot, editkit_lsp::Encoding)> = found.iter().map(|entry| entry.0.clone()).collect();
        let quoted = self.quote(&spots)?;
        let mut symbols = Vec::with_capacity(found.len());
        for (((spot, _), name, kind, container, language), quoted) in found.into_iter().zip(quoted) {
            let Some(Quoted { line, column, text }) = quoted else {
                omitted_outside += 1;
                continue;
            };
            let language = language.as_str().to_owned();
            let kind = kind.to_owned();
            symbols.push(SymbolMatch { path: spot.rel, line, column, name, kind, container, text, language });
        }
        truncated |= fit(&mut symbols, self.options().max_call_bytes, |s| result_bytes(&s.path, &s.text));
        Ok(FindSymbolResponse {
            name_path: request.name_path,
            symbols,
            truncated,
            omitted_outside,
            complete: reasons.is_empty(),
            incomplete_reason: (!reasons.is_empty()).then(|| reasons.join("; ")),
        })
    }

    /// The server's symbols named `segments` (name last, containers before it): the file's
    /// own (`in_file`), else the workspace's, whose containers are confirmed with each
    /// file's document symbols when the server gives none that match; with why some could
    /// not be confirmed before `deadline`.
    fn symbols_named(
        &self,
        session: &Session,
        file: &ServedFile,
        (in_file, segments): (bool, &[String]),
        deadline: Instant,
    ) -> Result<(Vec<Symbol>, Option<String>)> {
        let (name, containers) = segments.split_last().ok_or_else(|| Error::invalid("name_path", "empty"))?;
        let wait = || deadline.saturating_duration_since(Instant::now());
        let server = session.server();
        let failed = |error| request_failed(file.language, error);
        if in_file {
            let (symbols, _) =
                retrying(wait(), |left| server.document_symbols(&file.absolute, left)).map_err(failed)?;
            let named = symbols.into_iter().filter(|symbol| &symbol.name == name && symbol_matches(symbol, containers));
            return Ok((named.collect(), None));
        }
        // rust-analyzer searches types only unless the query ends in `#`.
        let query = if file.language == Language::Rust { format!("{name}#") } else { name.clone() };
        let (symbols, _) = retrying(wait(), |left| server.workspace_symbols(&query, left)).map_err(failed)?;
        let mut kept = Vec::new();
        let mut cut = None;
        let mut confirmed: BTreeMap<PathBuf, Vec<Symbol>> = BTreeMap::new();
        for mut symbol in symbols.into_iter().filter(|symbol| &symbol.name == name) {
            if symbol_matches(&symbol, containers) {
                kept.push(symbol);
                continue;
            }
            if confirmed.len() >= MAX_CONFIRMED_FILES && !confirmed.contains_key(&symbol.path) {
                continue;
            }
            if !confirmed.contains_key(&symbol.path) {
                if wait().is_zero() {
                    cut = Some("the call's deadline (request_wait) passed before every container was confirmed".into());
                    continue;
                }
                // Only files in the workspace are opened to confirm.
                let Some((root, rel)) = self.workspace_path(&symbol.path) else { continue };
                let Some(text) = self.workspaces().get(root).and_then(|w| w.peek(&rel).ok()) else { continue };
                session.sync(&symbol.path, text.text()).map_err(failed)?;
                let (tree, _) = retrying(wait(), |left| server.document_symbols(&symbol.path, left)).map_err(failed)?;
                confirmed.insert(symbol.path.clone(), tree);
            }
            let tree = confirmed.get(&symbol.path).map_or(&[][..], Vec::as_slice);
            let nested = tree.iter().find(|outer| {
                outer.name == symbol.name
                    && outer.position.line == symbol.position.line
                    && symbol_matches(outer, containers)
            });
            if let Some(outer) = nested {
                symbol.container.clone_from(&outer.container);
                kept.push(symbol);
            }
        }
        Ok((kept, cut))
    }
}

impl Toolkit {
    /// Renames a symbol everywhere its language server finds it, as one transaction (see
    /// [`RenameSymbolRequest`]).
    ///
    /// # Errors
    /// `unavailable` without a server or before it loaded the workspace; `invalid_args` for a
    /// bad new name or a position that names no symbol; `outside_workspace`, `blocked`... for
    /// a file the rename would touch that the policy refuses; `stale` for a file that changed
    /// since the server read it or since the plan; the edit set's refusals. Nothing is
    /// written on any of them.
    pub fn rename_symbol(&self, request: RenameSymbolRequest) -> Result<RenameSymbolResponse> {
        self.admit(Tool::RenameSymbol, request.dry_run)?;
        let file = self.served_file(&request.path)?;
        check_new_name(file.language, &request.new_name)?;
        if file.root != 0 {
            return Err(Error::invalid(
                "path",
                "rename_symbol renames in the primary workspace root; give a file there",
            ));
        }
        let (session, read) = self.opened(&file)?;
        if let Some(reason) = self.readiness(&session) {
            return Err(Error::Unavailable {
                language: file.language.as_str().to_owned(),
                reason: format!("{reason}; a rename now could miss uses, so none was made (try again)"),
                install: None,
            });
        }
        // One deadline for the call's requests (`request_wait`), however many it makes.
        let deadline = Instant::now() + self.options().language_servers.request_wait;
        let position = (request.line, request.column, request.symbol.as_deref());
        let at = self.locate(&session, &file, read.text(), position, deadline)?;
        let (edit, reads) = self.current_rename(&session, &file, &at, &request.new_name, deadline)?;
        let workspace = self.workspace();
        let encoding = session.server().encoding();
        let checked =
            editkit_lsp::rename_edits(&edit, workspace.root_path(), &at.name, &request.new_name, encoding, |path| {
                let read = reads.get(path).ok_or_else(|| "it was not read for the rename".to_owned())?;
                session.rename_text(path, read.text().to_owned())
            });
        let files = checked.map_err(|source| Error::Rename { source })?;
        let mut set = EditSet { files: Vec::new(), dry_run: request.dry_run, plan: request.plan };
        for file_edit in files {
            let read = reads
                .get(&file_edit.path)
                .ok_or_else(|| Error::invalid("path", "a file of the rename was not read"))?;
            set.files.push(FileEdits {
                path: read.path().to_owned(),
                sha256: read.sha256(),
                edits: file_edit.edits.into_iter().map(|edit| (edit.range, edit.new_text)).collect(),
            });
        }
        let applied = self.apply_edit_set(Tool::RenameSymbol, set)?;
        if !applied.dry_run {
            // The server hears of every file changed, so its next answer is on the new text.
            for changed in &applied.files {
                if let Ok(read) = workspace.peek(&changed.path) {
                    let _ = session.sync(&workspace.root_path().join(&changed.path), read.text());
                }
            }
        }
        Ok(RenameSymbolResponse {
            old_name: at.name,
            new_name: request.new_name,
            files: applied
                .files
                .iter()
                .map(|changed| RenamedFileInfo {
                    path: changed.path.clone(),
                    edits: changed.edits,
                    sha256_before: changed.sha256_before,
                    sha256_after: changed.sha256_after,
                })
                .collect(),
            diff: applied.dry_run.then_some(applied.diff),
            plan: applied.plan,
            dry_run: applied.dry_run,
        })
    }

    /// The server's rename at `at`, computed on the texts the vfs reads now, with those texts
    /// by absolute path. Every file the edit names is sized (the sizes charged together
    /// against `max_call_bytes`), read, and sent to the server; when any had not been sent
    /// or had been sent another text, the server answered on an older view, so the rename is
    /// asked again and must give the same edits.
    ///
    /// # Errors
    /// `too_large` past the budget; the refusals of a file the edit names (`outside_workspace`,
    /// `blocked`...); `stale` when the edits asked again differ (the server now has the
    /// current texts, so trying again can help); `unavailable` when the server does not
    /// answer before `deadline`.
    fn current_rename(
        &self,
        session: &Session,
        file: &ServedFile,
        at: &Located,
        new_name: &str,
        deadline: Instant,
    ) -> Result<(WorkspaceEdit, BTreeMap<PathBuf, FileText>)> {
        let ask = || {
            let wait = deadline.saturating_duration_since(Instant::now());
            retrying(wait, |left| session.server().rename(&file.absolute, at.position, new_name, left))
                .map_err(|error| request_failed(file.language, error))?
                .ok_or_else(|| {
                    Error::invalid(
                        "line",
                        format!("the server finds nothing to rename at `{}` line {}", file.rel, at.line),
                    )
                })
        };
        let edit = ask()?;
        let workspace = self.workspace();
        let paths = editkit_lsp::edit_files(&edit, workspace.root_path()).map_err(|source| Error::Rename { source })?;
        let mut named = Vec::with_capacity(paths.len());
        let (budget, mut used) = (self.options().max_call_bytes, 0_u64);
        for path in paths {
            let text = path
                .to_str()
                .ok_or_else(|| Error::invalid("path", "a file the rename touches has a name that is not UTF-8"))?
                .to_owned();
            used = used.saturating_add(workspace.metadata(&text)?.size);
            if used > budget {
                return Err(Error::LimitExceeded {
                    what: format!("the files the rename changes, up to `{}`,", crate::shown::line(&text)),
                    size: used,
                    limit: budget,
                    option: "max_call_bytes (--max-call-bytes)".into(),
                    advice: "nothing was read or changed; rename in smaller steps or raise the budget".into(),
                });
            }
            named.push((path, text));
        }
        let mut reads = BTreeMap::new();
        let mut older = 0;
        for (path, text) in named {
            let read = workspace.peek(&text)?;
            let before = session.version(&path);
            let now = session.sync(&path, read.text()).map_err(|error| request_failed(file.language, error))?;
            if before != Some(now) {
                older += 1;
            }
            reads.insert(path, read);
        }
        if older == 0 {
            return Ok((edit, reads));
        }
        let again = ask()?;
        if !editkit_lsp::same_edits(&edit, &again) {
            return Err(Error::Rename { source: editkit_lsp::EditError::ViewChanged { files: older } });
        }
        Ok((again, reads))
    }

    /// A file's diagnostics from its language server with their freshness, beside the
    /// built-in syntax check (see [`DiagnosticsRequest`]). No server is not an error here: the
    /// state says `unavailable`.
    ///
    /// # Errors
    /// `invalid_args` for a wait over the ceiling or a file no server is run for; the path's
    /// refusals.
    pub fn diagnostics(&self, request: DiagnosticsRequest) -> Result<DiagnosticsResponse> {
        if let Some(wait) = request.wait_ms
            && wait > MAX_WAIT_MS
        {
            return Err(Error::invalid("wait_ms", format!("{wait} is over the ceiling of {MAX_WAIT_MS} ms")));
        }
        let mut files = match &request.path {
            Some(path) => vec![self.served_file(path)?],
            None => self.open_documents(),
        };
        let omitted_files = files.len().saturating_sub(MAX_DIAGNOSTICS_FILES);
        files.truncate(MAX_DIAGNOSTICS_FILES);
        let mut answers = Vec::with_capacity(files.len());
        // One deadline for the call: `wait_ms` (else the longest per-language wait of its
        // files) in all, each file waiting at most its own wait within what is left.
        let waits = &self.options().language_servers.diagnostics_wait;
        let own = |file: &ServedFile| request.wait_ms.map_or_else(|| waits.of(file.language), Duration::from_millis);
        let deadline = Instant::now() + files.iter().map(own).max().unwrap_or_default();
        for (at, file) in files.iter().enumerate() {
            // The first file waits its whole wait (it is within the call's).
            let left = deadline.saturating_duration_since(Instant::now());
            let wait = if at == 0 { own(file) } else { own(file).min(left) };
            answers.push(self.file_diagnostics(file, wait)?);
        }
        Ok(DiagnosticsResponse { files: answers, omitted_files })
    }

    /// The files open with this toolkit's running servers, by path.
    fn open_documents(&self) -> Vec<ServedFile> {
        let mut files: Vec<ServedFile> = Vec::new();
        for workspace in self.workspaces() {
            for (language, _) in LANGUAGE_GLOBS {
                let Some(session) = self.lsp.warm(language, workspace.root_path()) else { continue };
                for path in session.documents() {
                    if let Some(file) = path.to_str().and_then(|text| self.served_file(text).ok()) {
                        files.push(file);
                    }
                }
            }
        }
        files.sort_by(|a, b| (a.root, &a.rel).cmp(&(b.root, &b.rel)));
        files.dedup();
        files
    }

    /// One file's answer: the server's diagnostics (or why there are none) and the syntax
    /// check's.
    fn file_diagnostics(&self, file: &ServedFile, wait: Duration) -> Result<FileDiagnosticsInfo> {
        let workspace = self.workspaces().get(file.root).unwrap_or_else(|| self.workspace());
        let read = workspace.peek(&file.rel)?;
        let server = match self.session_for(file) {
            Ok(session) => {
                let answer = session.diagnostics(&file.absolute, read.text(), wait);
                serde_json::to_value(&answer)
                    .ok()
                    .and_then(|value| serde_json::from_value::<ServerDiagnosticsInfo>(value).ok())
                    .unwrap_or_else(|| {
                        ServerDiagnosticsInfo::unavailable("the server's answer could not be read".to_owned(), None)
                    })
            }
            Err(Error::Unavailable { reason, install, .. }) => ServerDiagnosticsInfo::unavailable(reason, install),
            Err(error) => return Err(error),
        };
        let syntax = match crate::analysis::check(read.path(), read.text()) {
            Ok((_, valid, errors)) => SyntaxCheckInfo { valid, errors },
            Err(_) => SyntaxCheckInfo { valid: true, errors: Vec::new() },
        };
        Ok(FileDiagnosticsInfo { path: file.rel.clone(), language: file.language.as_str().to_owned(), server, syntax })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolkitOptions;

    fn toolkit(options: ToolkitOptions) -> (tempfile::TempDir, Toolkit) {
        let dir = tempfile::tempdir().expect("a temp dir");
        std::fs::write(dir.path().join("a.py"), "def f():\n    return 1\n").expect("write");
        std::fs::write(dir.path().join("notes.md"), "# notes\n").expect("write");
        let toolkit = Toolkit::open(dir.path(), options).expect("open");
        (dir, toolkit)
    }

    #[test]
    fn name_paths_split_on_slashes_dots_and_double_colons_and_refuse_empty_parts() {
        assert_eq!(name_segments("f", "Shape/area").unwrap(), ["Shape", "area"]);
        assert_eq!(name_segments("f", "pkg.util.compute_total").unwrap(), ["pkg", "util", "compute_total"]);
        assert_eq!(name_segments("f", "util::compute_total").unwrap(), ["util", "compute_total"]);
        for bad in ["", "a//b", "a/", "a\nb", &"x".repeat(MAX_NAME_BYTES + 1)] {
            assert!(name_segments("f", bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn containers_match_by_their_last_segments_impls_by_their_type() {
        let wanted = ["Shape".to_owned()];
        assert!(container_matches(Some("Shape"), &wanted));
        assert!(container_matches(Some("geometry.Shape"), &wanted));
        assert!(container_matches(Some("impl Display for Shape<T>"), &wanted));
        assert!(!container_matches(Some("Circle"), &wanted));
        assert!(!container_matches(None, &wanted));
        assert!(container_matches(None, &[]));
        let symbol = |path: &str, container: Option<&str>| Symbol {
            name: "compute_total".into(),
            kind: "function",
            container: container.map(str::to_owned),
            path: PathBuf::from(path),
            position: Position { line: 0, character: 0 },
        };
        let util = ["util".to_owned()];
        assert!(symbol_matches(&symbol("/w/src/util.rs", None), &util));
        assert!(symbol_matches(&symbol("/w/src/util/mod.rs", None), &util));
        assert!(!symbol_matches(&symbol("/w/src/other.rs", None), &util));
        let nested = ["pkg".to_owned(), "util".to_owned(), "Acc".to_owned()];
        assert!(symbol_matches(&symbol("/w/pkg/util.py", Some("Acc")), &nested));
    }

    #[test]
    fn a_position_names_the_identifier_around_it_and_a_symbol_its_whole_word() {
        assert_eq!(identifier_at("    return s.area() + 1;", 15), Some((13, "area")));
        assert_eq!(identifier_at("x = $el_1;", 5), Some((4, "$el_1")));
        assert_eq!(identifier_at("a + b", 2), None);
        assert_eq!(word_in("total = subtotal + total_x + total", "total"), Some(0));
        assert_eq!(word_in("subtotal + total_x + total", "total"), Some(21));
        assert_eq!(word_in("subtotal", "total"), None);
    }

    #[test]
    fn a_new_name_is_an_identifier_of_its_language() {
        for good in ["sum_items", "_x", "été", "x1"] {
            assert!(check_new_name(Language::Python, good).is_ok(), "{good}");
        }
        assert!(check_new_name(Language::TypeScript, "$store").is_ok());
        assert!(check_new_name(Language::Python, "$store").is_err());
        assert!(check_new_name(Language::Rust, "r#type").is_ok());
        for bad in ["", "1st", "two words", "a-b", "a\nb", "a.b", "r#", "r#x); std::process::exit(0); //", "r#a\nb"] {
            assert!(check_new_name(Language::Rust, bad).is_err(), "{bad:?}");
        }
        for bad in ["r#1x", "r#crate", "r#self", "r#a b", "r#r#x"] {
            assert!(check_new_name(Language::Rust, bad).is_err(), "{bad:?}");
        }
        assert!(check_new_name(Language::Python, "r#type").is_err(), "raw names are Rust's only");
    }

    #[test]
    fn lines_are_cut_to_their_bound() {
        assert_eq!(cut_line("short\r"), "short");
        let long = "é".repeat(MAX_LINE_CHARS + 10);
        assert_eq!(cut_line(&long).chars().count(), MAX_LINE_CHARS + 1);
        assert!(cut_line(&long).ends_with('…'));
    }

    #[test]
    fn a_file_gets_its_language_and_a_path_outside_is_refused_before_any_server() {
        let (_dir, toolkit) = toolkit(ToolkitOptions::default());
        let file = toolkit.served_file("a.py").expect("a Python file");
        assert_eq!((file.language, file.rel.as_str(), file.root), (Language::Python, "a.py", 0));
        assert!(file.absolute.is_absolute() && file.absolute.ends_with("a.py"));
        let refused = toolkit.served_file("notes.md").expect_err("no server for Markdown");
        assert_eq!(refused.error_kind().as_str(), "invalid_args", "{refused}");
        let outside = toolkit.served_file("../x.py").expect_err("outside");
        assert_eq!(outside.error_kind().as_str(), "outside_workspace");
        assert_eq!(toolkit.lsp.running(), 0);
    }

    #[test]
    fn no_server_on_path_is_unavailable_naming_what_to_install() {
        let mut options = ToolkitOptions::default();
        options.language_servers.path = Some(std::ffi::OsString::from("/nonexistent-editkit-bin"));
        let (_dir, toolkit) = toolkit(options);
        let refused = toolkit.language_server("a.py").expect_err("nothing on PATH");
        assert_eq!(refused.error_kind().as_str(), "unavailable");
        let json = refused.to_json();
        assert_eq!(json["language"], "python", "{json}");
        assert!(json["install"].as_str().is_some_and(|how| how.contains("basedpyright")), "{json}");
        assert!(refused.message().contains("basedpyright"), "{}", refused.message());
    }

    #[test]
    fn servers_off_is_unavailable_and_starts_nothing() {
        let mut options = ToolkitOptions::default();
        options.language_servers.enabled = false;
        let (_dir, toolkit) = toolkit(options);
        let refused = toolkit.language_server("a.py").expect_err("off");
        assert_eq!(refused.error_kind().as_str(), "unavailable");
        assert!(refused.message().contains("language servers are off"), "{}", refused.message());
        assert_eq!(toolkit.lsp.running(), 0);
    }
}
