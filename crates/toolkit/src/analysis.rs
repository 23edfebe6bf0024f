//! The toolkit's analysis, glue to editkit-analyze: file types, code facts, diagnostics. Without the `analyze`
//! feature, files are `text` or `binary` and code facts are empty.

use std::collections::VecDeque;
use std::sync::Mutex;

use editkit_vfs::Sha256;

use crate::sync::LockExt;
use crate::types::{CodeBlockInfo, FileType, HeaderInfo, LinkInfo, SymbolInfo, SyntaxErrorInfo};

/// Most files whose facts [`FactsCache`] keeps.
const FACTS_CACHE_FILES: usize = 64;
/// Most bytes of source the kept facts were computed from, together.
const FACTS_CACHE_BYTES: usize = 32 << 20;

/// The code facts of the last files read, by path and content hash: agents read the same files
/// again and again, and a long-lived process (the MCP server, `call --jsonl`) then answers
/// without parsing them twice. Bounded by [`FACTS_CACHE_FILES`] and [`FACTS_CACHE_BYTES`];
/// the least recently used entry goes first.
#[derive(Debug, Default)]
pub(crate) struct FactsCache {
    /// Path, content hash, source size, facts; most recently used last.
    entries: Mutex<VecDeque<(String, Sha256, usize, Facts)>>,
}

impl FactsCache {
    /// The facts of `text` (whose hash is `sha256`) at `path`, from the cache or computed.
    pub(crate) fn facts(&self, path: &str, sha256: Sha256, text: &str) -> Facts {
        {
            let mut entries = self.entries.lock_unpoisoned();
            if let Some(at) = entries.iter().position(|(p, h, ..)| *h == sha256 && p == path) {
                let entry = entries.remove(at).expect("the position is in range");
                let facts = entry.3.clone();
                entries.push_back(entry);
                return facts;
            }
        }
        let facts = facts(path, text);
        if text.len() <= FACTS_CACHE_BYTES {
            let mut entries = self.entries.lock_unpoisoned();
            entries.retain(|(p, ..)| p != path);
            let mut bytes: usize = entries.iter().map(|e| e.2).sum::<usize>() + text.len();
            while entries.len() >= FACTS_CACHE_FILES || (bytes > FACTS_CACHE_BYTES && !entries.is_empty()) {
                if let Some(evicted) = entries.pop_front() {
                    bytes -= evicted.2;
                }
            }
            entries.push_back((path.to_owned(), sha256, text.len(), facts.clone()));
        }
        facts
    }
}

/// The type of a file's bytes: `binary` by the vfs codec's verdict (the one sniffing function),
/// otherwise the kind of its text.
pub(crate) fn file_type(path: &str, bytes: &[u8]) -> FileType {
    match editkit_vfs::as_text(bytes) {
        Ok(text) => text_type(path, text),
        Err(_) => FileType::Binary,
    }
}

/// Code facts added to read_file results.
#[derive(Debug, Default, Clone)]
pub(crate) struct Facts {
    pub(crate) is_valid: Option<bool>,
    pub(crate) errors: Vec<SyntaxErrorInfo>,
    pub(crate) symbols: Vec<SymbolInfo>,
    pub(crate) headers: Vec<HeaderInfo>,
    pub(crate) code_blocks: Vec<CodeBlockInfo>,
    pub(crate) links: Vec<LinkInfo>,
}

#[cfg(feature = "analyze")]
mod imp {
    use std::path::Path;

    use editkit_analyze as analyze;

    use crate::types::Confinement;
    use editkit_analyze::FileKind;

    use super::Facts;
    use crate::error::{Error, Result};
    use crate::types::{
        CheckerInfo, CodeBlockInfo, DiagnosticsInfo, FileType, HeaderInfo, LinkInfo, SymbolInfo, SymbolKind,
        SyntaxErrorInfo,
    };

    impl From<&analyze::SyntaxError> for SyntaxErrorInfo {
        fn from(e: &analyze::SyntaxError) -> Self {
            SyntaxErrorInfo {
                line: e.line,
                column: e.column,
                end_line: e.end_line,
                end_column: e.end_column,
                message: e.message.clone(),
            }
        }
    }

    impl From<analyze::SymbolKind> for SymbolKind {
        fn from(kind: analyze::SymbolKind) -> Self {
            match kind {
                analyze::SymbolKind::Function => SymbolKind::Function,
                analyze::SymbolKind::AsyncFunction => SymbolKind::AsyncFunction,
                analyze::SymbolKind::Class => SymbolKind::Class,
                analyze::SymbolKind::Method => SymbolKind::Method,
                analyze::SymbolKind::Interface => SymbolKind::Interface,
                analyze::SymbolKind::TypeAlias => SymbolKind::TypeAlias,
                analyze::SymbolKind::Enum => SymbolKind::Enum,
                analyze::SymbolKind::Namespace => SymbolKind::Namespace,
            }
        }
    }

    impl From<FileKind> for FileType {
        fn from(kind: FileKind) -> Self {
            match kind {
                FileKind::Python => FileType::Python,
                FileKind::Typescript => FileType::Typescript,
                FileKind::Tsx => FileType::Tsx,
                FileKind::Javascript => FileType::Javascript,
                FileKind::Jsx => FileType::Jsx,
                FileKind::Markdown => FileType::Markdown,
                FileKind::Json => FileType::Json,
                FileKind::Text => FileType::Text,
            }
        }
    }

    impl From<&analyze::Symbol> for SymbolInfo {
        fn from(s: &analyze::Symbol) -> Self {
            SymbolInfo {
                name: s.name.clone(),
                kind: s.kind.into(),
                line: s.line,
                end_line: s.end_line,
                parent: s.parent.clone(),
            }
        }
    }

    fn kind_of(path: &str, text: &str) -> FileKind {
        analyze::detect(path, text)
    }

    /// The type of decoded text.
    pub(crate) fn text_type(path: &str, text: &str) -> FileType {
        kind_of(path, text).into()
    }

    pub(crate) fn facts(path: &str, text: &str) -> Facts {
        let kind = kind_of(path, text);
        let mut facts = Facts::default();
        if kind == FileKind::Markdown {
            if let Ok(outline) = analyze::outline(text) {
                facts.headers = outline
                    .headers
                    .iter()
                    .map(|h| HeaderInfo { level: h.level, text: h.text.clone(), line: h.line })
                    .collect();
                facts.code_blocks = outline
                    .code_blocks
                    .iter()
                    .map(|c| CodeBlockInfo { language: c.language.clone(), code: c.code.clone(), line: c.line })
                    .collect();
                facts.links = outline
                    .links
                    .iter()
                    .map(|l| LinkInfo { text: l.text.clone(), url: l.url.clone(), line: l.line, image: l.image })
                    .collect();
            }
            return facts;
        }
        if kind.is_code() || kind == FileKind::Json {
            if let Ok(report) = analyze::check_syntax(kind, text) {
                facts.is_valid = Some(report.valid);
                facts.errors = report.errors.iter().map(SyntaxErrorInfo::from).collect();
            }
            if kind.is_code()
                && let Ok(symbols) = analyze::symbols(kind, text)
            {
                facts.symbols = symbols.iter().map(SymbolInfo::from).collect();
            }
        }
        facts
    }

    pub(crate) fn python_syntax_errors(text: &str) -> Vec<SyntaxErrorInfo> {
        analyze::check_syntax(FileKind::Python, text)
            .map(|r| r.errors.iter().map(SyntaxErrorInfo::from).collect())
            .unwrap_or_default()
    }

    /// Post-write diagnostics of `text`, the new content of `rel`; `roots` are every workspace
    /// root (no checker is taken from a PATH entry inside one).
    pub(crate) fn diagnostics(
        roots: &[&Path],
        rel: &str,
        old: (Option<&str>, Option<&[editkit_matcher::diff::Window]>),
        text: &str,
        options: &analyze::DiagnosticsOptions,
        cache: &analyze::CheckCache,
    ) -> DiagnosticsInfo {
        let report = analyze::diagnose_change_within(roots, rel, old, text, options, cache);
        let syntax_errors =
            report.syntax.as_ref().map(|s| s.errors.iter().map(SyntaxErrorInfo::from).collect()).unwrap_or_default();
        let checkers = report
            .checker
            .iter()
            .map(|c| CheckerInfo { name: c.tool.clone(), ok: c.ok, output: c.output.clone() })
            .collect();
        // Said with a checker's report, and whenever a checker ran without Landlock.
        let shown = report.checker.is_some() || options.mode == analyze::DiagnosticsMode::On;
        let has_problems = report.has_problems();
        let confinement = report
            .confinement
            .map(|text| Confinement::from_report(&text))
            .filter(|confinement| shown || !confinement.is_full());
        let skipped = report.check_skipped.map(|skipped| crate::types::SkippedCheckInfo {
            reason: skipped.reason,
            size_bytes: skipped.size_bytes as u64,
        });
        let syntax_errors_before = report.syntax_errors_before.map(|before| before as u64);
        DiagnosticsInfo {
            has_problems,
            syntax_errors,
            syntax_errors_before,
            checkers,
            confinement,
            skipped,
            server_diagnostics: None,
        }
    }

    /// The formatted content of `rel` (whose content is `text`), when a formatter succeeded.
    pub(crate) fn format(roots: &[&Path], rel: &str, text: &str, options: &analyze::FormatOptions) -> Option<String> {
        analyze::format_source(roots, rel, text, options).formatted
    }

    pub(crate) fn symbols(path: &str, text: &str) -> Result<(FileType, Vec<SymbolInfo>)> {
        let kind = kind_of(path, text);
        let symbols =
            analyze::symbols(kind, text).map_err(|source| Error::Analyze { path: path.to_owned(), source })?;
        Ok((kind.into(), symbols.iter().map(SymbolInfo::from).collect()))
    }

    pub(crate) fn check(path: &str, text: &str) -> Result<(FileType, bool, Vec<SyntaxErrorInfo>)> {
        let kind = kind_of(path, text);
        let report =
            analyze::check_syntax(kind, text).map_err(|source| Error::Analyze { path: path.to_owned(), source })?;
        Ok((kind.into(), report.valid, report.errors.iter().map(SyntaxErrorInfo::from).collect()))
    }

    /// The byte range of a symbol path (code) or heading path (Markdown) for `within`.
    pub(crate) fn scope(path: &str, text: &str, within: &str) -> Result<std::ops::Range<usize>> {
        let kind = kind_of(path, text);
        let result = if kind == FileKind::Markdown {
            analyze::section_range(text, within)
        } else {
            analyze::symbol_range(kind, text, within)
        };
        result.map_err(|source| Error::Analyze { path: path.to_owned(), source })
    }

    /// The definitions of `text` (a file at `path`, or a snippet for it) for `merge_snippet`:
    /// code definitions from their first decorator line, Markdown sections; `None` without a
    /// grammar for the extension's language, or when code has a syntax error or does not parse
    /// within the limits (name paths from a broken tree could name the wrong definition).
    pub(crate) fn snippet_definitions(path: &str, text: &str) -> Option<Vec<editkit_matcher::snippet::Definition>> {
        // By extension alone, as the marker styles: a file's content never picks its grammar
        // here (a `.txt` whose first lines look like Markdown headers stays lines).
        let kind = kind_of(path, "");
        if kind == FileKind::Markdown {
            return markdown_sections(text);
        }
        if !kind.is_code() || !analyze::check_syntax(kind, text).is_ok_and(|report| report.valid) {
            return None;
        }
        let lines: Vec<&str> = text.lines().collect();
        let symbols = analyze::symbols(kind, text).ok()?;
        Some(
            symbols
                .iter()
                .map(|symbol| {
                    // Decorators (`@cache`, `@Component(...)`) belong to the definition below them.
                    let mut first = symbol.line;
                    while first > 1 && lines.get(first - 2).is_some_and(|line| line.trim_start().starts_with('@')) {
                        first -= 1;
                    }
                    editkit_matcher::snippet::Definition { path: symbol.path(), lines: [first, symbol.end_line] }
                })
                .collect(),
        )
    }

    /// A Markdown text's sections as definitions: each header to the line before the next
    /// header of its level or above, named by its headers' texts joined by ` > ` (as `within`).
    fn markdown_sections(text: &str) -> Option<Vec<editkit_matcher::snippet::Definition>> {
        let outline = analyze::outline(text).ok()?;
        let last_line = text.lines().count();
        let headers = &outline.headers;
        let mut sections = Vec::with_capacity(headers.len());
        // The open headers (level, text), outermost first.
        let mut open: Vec<(u8, &str)> = Vec::new();
        for (at, header) in headers.iter().enumerate() {
            while open.last().is_some_and(|(level, _)| *level >= header.level) {
                open.pop();
            }
            open.push((header.level, header.text.as_str()));
            let end = headers[at + 1..]
                .iter()
                .find(|next| next.level <= header.level)
                .map_or(last_line, |next| next.line.saturating_sub(1));
            let path: Vec<&str> = open.iter().map(|(_, text)| *text).collect();
            sections.push(editkit_matcher::snippet::Definition {
                path: path.join(" > "),
                lines: [header.line, end.max(header.line)],
            });
        }
        Some(sections)
    }

    pub(crate) fn replace_function(
        path: &str,
        text: &str,
        name: &str,
        implementation: &str,
        validate: bool,
    ) -> Result<String> {
        let kind = kind_of(path, text);
        analyze::replace_function_checked(kind, text, name, implementation, validate)
            .map_err(|source| Error::Analyze { path: path.to_owned(), source })
    }
}

#[cfg(not(feature = "analyze"))]
mod imp {
    use super::Facts;
    use crate::types::FileType;

    /// Without the `analyze` feature an edit cannot be scoped to a symbol or section.
    pub(crate) fn scope(_rel: &str, _text: &str, _within: &str) -> crate::error::Result<std::ops::Range<usize>> {
        Err(crate::error::Error::invalid("within", "scoping an edit needs the `analyze` feature"))
    }

    /// The type of decoded text: without the `analyze` feature, every text is `text`.
    pub(crate) fn text_type(_path: &str, _text: &str) -> FileType {
        FileType::Text
    }

    pub(crate) fn facts(_path: &str, _text: &str) -> Facts {
        Facts::default()
    }

    /// Without the `analyze` feature every snippet chunk is aligned by lines.
    pub(crate) fn snippet_definitions(_path: &str, _text: &str) -> Option<Vec<editkit_matcher::snippet::Definition>> {
        None
    }
}

pub(crate) use imp::*;
