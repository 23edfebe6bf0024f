//! The syntax check of a change: whether an edit or a patch introduced a syntax error,
//! decided on the part of the file the change touched.

use std::ops::Range;

use serde::Serialize;
use tree_sitter::Node;

use crate::parse::{LineIndex, Parsed};
use crate::region::{self, Anomaly, NoRegion, Region};
use crate::syntax::{self, check_syntax};
use crate::syntax_error::SyntaxError;
use crate::{Error, FileKind};

/// How much of the file a [`ChangeReport`] looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CheckScope {
    /// The top-level statements (Python) or declarations (TypeScript, JavaScript without JSX)
    /// the change touched.
    Statements,
    /// The whole file: the kind has no statement boundaries editkit can establish (every
    /// kind but Python, or Python whose old text has something CPython's tokenizer refuses
    /// near the change), or there is no old text.
    Whole,
}

/// What a change did to a file's syntax, from [`check_change`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangeReport {
    /// The syntax errors in the checked part of the new text, at their lines in the file
    /// (sorted; at most 50, and one more naming a bracket or string the change left open).
    pub errors: Vec<SyntaxError>,
    /// How many errors the same part of the old text had; counted only when `errors` is not
    /// empty (`None` otherwise, or without an old text).
    pub errors_before: Option<usize>,
    /// What was checked.
    pub scope: CheckScope,
    /// The checked lines of the new text, 1-based and inclusive (`0..=0` for an empty text,
    /// or when every place was proved not to change a token): from the first checked line to
    /// the last.
    pub lines: (usize, usize),
    /// The checked lines of each place the change touched, in order (1-based, inclusive): a
    /// change made in several places is checked on each place's statements alone; one place
    /// (the whole text, for a whole check) otherwise. A place of a Python change in several
    /// places that changes only comments, blanks or the text of plain strings leaves every
    /// token as it was (a lexical proof): it cannot add or remove an error and is not checked.
    pub places: Vec<(usize, usize)>,
    /// The bytes of the new text that were checked (from the first place checked to the
    /// last; those places only that hold a construct judged more strictly, if any does).
    #[serde(skip)]
    pub(crate) checked: Range<usize>,
    /// Lines of the new text before `checked`.
    #[serde(skip)]
    pub(crate) checked_lines_before: usize,
    /// Whether the checked part holds a construct CPython's compiler judges more strictly
    /// than the grammar (Python only).
    #[serde(skip)]
    pub(crate) stricter: bool,
}

impl ChangeReport {
    /// Whether the change left more syntax errors in the checked part than it had before.
    #[must_use]
    pub fn introduced(&self) -> bool {
        !self.errors.is_empty() && self.errors_before.is_none_or(|before| self.errors.len() > before)
    }

    /// Whether the checked part of the new text has no syntax error.
    #[must_use]
    pub fn valid(&self) -> bool {
        self.errors.is_empty()
    }
}

/// Checks the syntax of `new`, the text of a file of `kind` after a change to `old` (`None`
/// for a new file).
///
/// For Python the check parses only the top-level statements the change touched, in the old
/// text and in the new (a lexical scan finds where statements start: outside strings,
/// f-strings, brackets and continuations, at column 0), so its cost follows the size of the
/// change rather than of the file; errors are reported at their line in the file. A change
/// that leaves a bracket or a string open is reported at the opening, in CPython's words
/// (`` `(` was never closed ``). Where the boundaries cannot be established, and for the
/// other kinds, the whole new text is parsed, and the old one only when the new one has
/// errors. A Python change in several places skips the places that change only comments,
/// blanks or the text of plain strings (they leave every token as it was), unless the check
/// of the others finds an error: then every place is checked, as errors before the change are
/// counted on all the statements it touched.
///
/// ```
/// use editkit_analyze::{check_change, CheckScope, FileKind};
/// let old = "def f():\n    return 1\n\ndef g():\n    return 2\n";
/// let new = "def f():\n    return 1\n\ndef g(:\n    return 2\n";
/// let report = check_change(FileKind::Python, Some(old), new)?;
/// assert_eq!(report.scope, CheckScope::Statements);
/// assert!(report.introduced());
/// assert_eq!(report.errors[0].line, 4);
/// # Ok::<(), editkit_analyze::Error>(())
/// ```
///
/// # Errors
/// [`Error::TooLarge`], [`Error::TooManyTokens`] and [`Error::Timeout`] when the part to
/// parse exceeds the parse limits: the check was not made.
pub fn check_change(kind: FileKind, old: Option<&str>, new: &str) -> Result<ChangeReport, Error> {
    check_change_from(kind, old, new, None)
}

/// [`check_change`] of a change known to lie within `windows`: pairs of line ranges (old lines
/// and new lines, 0-based, in order) outside which `old` and `new` are line for line the same,
/// as a patch's hunks give them. The lines of the windows alone are diffed to find the places
/// of the change, not the whole texts; windows that do not hold (a line outside them differs,
/// or they are out of order or past a text's end) are set aside and the texts diffed, as
/// `check_change` does. The verdict is `check_change`'s either way.
///
/// ```
/// use editkit_analyze::{check_change_within, FileKind};
/// let old = "def f():\n    return 1\n\ndef g():\n    return 2\n";
/// let new = "def f():\n    return 1\n\ndef g():\n    x = (\n    return 2\n";
/// let report = check_change_within(FileKind::Python, Some(old), new, &[(3..5, 3..6)])?;
/// assert!(report.introduced());
/// assert_eq!(report.errors[0].line, 5);
/// # Ok::<(), editkit_analyze::Error>(())
/// ```
///
/// # Errors
/// As [`check_change`].
pub fn check_change_within(
    kind: FileKind,
    old: Option<&str>,
    new: &str,
    windows: &[editkit_matcher::diff::Window],
) -> Result<ChangeReport, Error> {
    let places = match (kind, old) {
        (FileKind::Python | FileKind::Typescript | FileKind::Javascript, Some(old)) => {
            region::places_within(old, new, windows)
        }
        _ => None,
    };
    check_change_from(kind, old, new, places)
}

/// [`check_change`], with the places of the change when they are known.
fn check_change_from(
    kind: FileKind,
    old: Option<&str>,
    new: &str,
    places: Option<Places>,
) -> Result<ChangeReport, Error> {
    let scan = match kind {
        FileKind::Python => Some(Scan::Python),
        FileKind::Typescript | FileKind::Javascript => Some(Scan::Js),
        _ => None,
    };
    // The places of the change (a line diff), found once for the proof and the regions.
    let mut diffed = places;
    if let (Some(Scan::Python), Some(old)) = (scan, old)
        && let Some(report) = without_neutral(kind, old, new, &mut diffed)
    {
        return Ok(report);
    }
    checked_by_places(kind, scan, old, new, diffed)
}

/// Places of a change, each an old and a new range (see [`region::places`]).
type Places = Vec<(Range<usize>, Range<usize>)>;

/// The check of a Python change made in several places some of which are neutral (see
/// [`crate::neutral`]: they leave every token as it was): the other places are checked on the
/// new text with the neutral ones put back as the old text has them. `None` when there is no
/// neutral place, or when that check finds an error or stops at a parse limit: the caller then
/// checks every place, so that the errors it reports (and those before) are what it reported
/// before.
/// `diffed` keeps the places found by a line diff, for the caller's regions.
fn without_neutral(kind: FileKind, old: &str, new: &str, diffed: &mut Option<Places>) -> Option<ChangeReport> {
    if crate::parse::bom_len(old) != crate::parse::bom_len(new) {
        return None;
    }
    // Any places with the same text between them serve the proof; lines compared one to one
    // cost no diff.
    let places = match region::same_line_places(old, new) {
        Some(places) => places,
        None => diffed.get_or_insert_with(|| region::places(old, new)).clone(),
    };
    if places.len() < 2 {
        return None;
    }
    let neutral = crate::neutral::neutral_places(old, new, &places);
    if neutral.is_empty() {
        return None;
    }
    let reverted = crate::neutral::revert(old, new, neutral);
    if reverted.text == old {
        // Every place is neutral: nothing to parse.
        return Some(ChangeReport {
            errors: Vec::new(),
            errors_before: None,
            scope: CheckScope::Statements,
            lines: (0, 0),
            places: Vec::new(),
            checked: 0..0,
            checked_lines_before: 0,
            stricter: false,
        });
    }
    let report = checked_by_places(kind, Some(Scan::Python), Some(old), &reverted.text, None).ok()?;
    if !report.errors.is_empty() {
        return None;
    }
    // The neutral places have as many lines in both texts: the lines are the new text's, and
    // the part for the compile check (the statements holding a construct it judges, if any)
    // is the same statements of the new text, which compile as they do with the neutral
    // places put back.
    let checked = reverted.to_new(new, report.checked.start)..reverted.to_new(new, report.checked.end);
    Some(ChangeReport { checked, ..report })
}

/// [`check_change`] for every place of the change (`places`: those found already, if any).
fn checked_by_places(
    kind: FileKind,
    scan: Option<Scan>,
    old: Option<&str>,
    new: &str,
    places: Option<Places>,
) -> Result<ChangeReport, Error> {
    if let (Some(scan), Some(old)) = (scan, old) {
        // A change in several places is checked place by place, each on its own statements;
        // where a place cannot be checked alone, the change is one region.
        let several = match scan {
            Scan::Python => region::regions::<region::Scanner<'_>>(old, new, places),
            Scan::Js => region::regions::<region::JsScanner<'_>>(old, new, places),
        };
        if let Some(regions) = several {
            return regional(kind, old, new, &regions);
        }
        let one = match scan {
            Scan::Python => region::python_region(old, new),
            Scan::Js => region::js_region(old, new),
        };
        match one {
            Ok(region) => return regional(kind, old, new, &[region]),
            Err(NoRegion::Unchanged) | Err(NoRegion::Unestablished) => {}
        }
    }
    whole(kind, old, new)
}

/// The lexical scans that find statement boundaries.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scan {
    Python,
    Js,
}

/// The bytes of `new` that [`check_change`] parses for a Python change from `old`: the
/// top-level statements the change touched, found by the lexical scan alone (no parse).
/// `None` when it checks the whole text instead (no change, or boundaries it cannot
/// establish).
///
/// ```
/// let old = "a = 1\nb = 2\nc = 3\n";
/// let new = "a = 1\nb = 22\nc = 3\n";
/// assert_eq!(editkit_analyze::change_region(old, new).map(|range| &new[range]), Some("b = 22\n"));
/// ```
#[must_use]
pub fn change_region(old: &str, new: &str) -> Option<Range<usize>> {
    region::python_region(old, new).ok().map(|region| region.start..region.new_end)
}

fn whole(kind: FileKind, old: Option<&str>, new: &str) -> Result<ChangeReport, Error> {
    let (errors, stricter) = match crate::parse::language(kind) {
        Some(_) => {
            let parsed = Parsed::new(kind, new, "syntax check")?;
            let changed = match old {
                Some(old) => {
                    let prefix = editkit_matcher::diff::common_prefix_len(old.as_bytes(), new.as_bytes());
                    let suffix = editkit_matcher::diff::common_suffix_len(
                        old.as_bytes().get(prefix..).unwrap_or_default(),
                        new.as_bytes().get(prefix..).unwrap_or_default(),
                    );
                    prefix..new.len() - suffix
                }
                None => 0..new.len(),
            };
            let stricter = kind == FileKind::Python && stricter_constructs(&parsed, &changed, true);
            (syntax::tree_errors(&parsed).errors, stricter)
        }
        None => (check_syntax(kind, new)?.errors, false),
    };
    let errors_before = match old {
        Some(old) if !errors.is_empty() => Some(check_syntax(kind, old)?.errors.len()),
        _ => None,
    };
    let last = LineIndex::new(new).line(new.len().saturating_sub(1));
    let lines = if new.is_empty() { (0, 0) } else { (1, last) };
    Ok(ChangeReport {
        errors,
        errors_before,
        scope: CheckScope::Whole,
        lines,
        places: vec![lines],
        checked: 0..new.len(),
        checked_lines_before: 0,
        stricter,
    })
}

/// The most errors a report of a change in several places lists.
const MAX_REPORTED: usize = 50;

fn regional(kind: FileKind, old: &str, new: &str, regions: &[Region]) -> Result<ChangeReport, Error> {
    let mut errors = Vec::new();
    let mut places = Vec::with_capacity(regions.len());
    // The places that hold a construct judged more strictly, and the lines before them.
    let mut stricter: Option<(Range<usize>, usize)> = None;
    // Each checked part of the old text (with the lines opening its blocks, for a narrowed one).
    let mut checked_regions: Vec<(Region, Option<String>)> = Vec::with_capacity(regions.len());
    for region in regions {
        if let Some(parts) = narrowed_parts(kind, old, new, region)? {
            for (_, part) in parts {
                errors.extend(part.errors);
                places.push(part.lines);
                // The compile check takes the whole top-level statements, which compile alone.
                if part.stricter {
                    let (start, lines_before) =
                        stricter.map_or((region.new_start, region.lines_before), |(hull, lines)| (hull.start, lines));
                    stricter = Some((start..region.new_end, lines_before));
                }
            }
            // Errors before the change are counted on the whole top-level statements: a
            // narrowed part of the old text (an insertion's is empty) may not parse alone.
            checked_regions.push((region.clone(), None));
            continue;
        }
        let (region, part) = checked_part(kind, old, new, region)?;
        errors.extend(part.errors);
        if part.stricter {
            let (start, lines_before) =
                stricter.map_or((region.new_start, region.lines_before), |(hull, lines)| (hull.start, lines));
            stricter = Some((start..region.new_end, lines_before));
        }
        places.push(part.lines);
        checked_regions.push((region, None));
    }
    if checked_regions.len() > 1 {
        errors.sort_by_key(|error| (error.line, error.column));
        errors.truncate(MAX_REPORTED);
    }
    // Counted over every place, as a whole parse counts the whole old text.
    let errors_before = if errors.is_empty() {
        None
    } else {
        let mut before = 0;
        for (region, headers) in &checked_regions {
            let part = old.get(region.start..region.old_end).unwrap_or("");
            let text = match headers {
                Some(headers) => std::borrow::Cow::Owned(format!("{headers}{part}")),
                None => std::borrow::Cow::Borrowed(part),
            };
            before += syntax::tree_errors(&Parsed::new(kind, &text, "syntax check")?).errors.len();
        }
        Some(before)
    };
    let (first, last) = (regions.first(), regions.last());
    let hull = first.zip(last).map_or((0..0, 0), |(first, last)| (first.new_start..last.new_end, first.lines_before));
    let (checked, checked_lines_before) = stricter.clone().unwrap_or(hull);
    Ok(ChangeReport {
        errors,
        errors_before,
        scope: CheckScope::Statements,
        lines: (places.first().map_or(0, |place| place.0), places.last().map_or(0, |place| place.1)),
        places,
        checked,
        checked_lines_before,
        stricter: stricter.is_some(),
    })
}

/// Top-level regions of Python at least this long are narrowed to the statements of the
/// blocks the change touched ([`region::narrow`]). A parse costs some 1,000 instructions a
/// byte, the scan that narrows a few dozen: only a region of a few lines is parsed whole.
const NARROW_FROM: usize = 160;

/// The parts of a top-level Python region narrowed to the blocks its places touched, each
/// parsed after the lines opening its blocks; `None` when the region is checked whole: short,
/// not narrowable, or a narrowed parse finds an error (error recovery depends on the text
/// around, so only the parse of the whole statements places and counts errors as a
/// whole-file parse does).
fn narrowed_parts(
    kind: FileKind,
    old: &str,
    new: &str,
    top: &Region,
) -> Result<Option<Vec<(region::Narrowed, Part)>>, Error> {
    if kind != FileKind::Python || top.unsettled.is_some() || top.new_end - top.new_start < NARROW_FROM {
        return Ok(None);
    }
    let Some(narrowed) = region::narrow(old, new, top) else { return Ok(None) };
    let mut parts = Vec::with_capacity(narrowed.len());
    for narrow in narrowed {
        let region = &narrow.region;
        if region.lines_before < narrow.header_lines {
            return Ok(None);
        }
        let part = new.get(region.new_start..region.new_end).unwrap_or("");
        let text = format!("{}{part}", narrow.headers);
        let parsed = Parsed::new(kind, &text, "syntax check")?;
        // Only a clean narrowed parse is trusted: where it finds an error, the parse of the
        // whole top-level statements places and counts it as a whole-file parse would.
        if !syntax::tree_errors(&parsed).errors.is_empty() {
            return Ok(None);
        }
        let shift = |at: usize| narrow.headers.len() + at.saturating_sub(region.new_start);
        // A narrowed parse lacks the statements of its blocks before the region: what it
        // cannot judge without them goes to the parse of the whole top-level statements.
        if stricter_constructs(&parsed, &(shift(region.changed.start)..shift(region.changed.end)), false) {
            return Ok(None);
        }
        let stricter = false;
        let part_lines = memchr::memchr_iter(b'\n', part.as_bytes()).count();
        let last_line = if part.ends_with('\n') || part.is_empty() { part_lines } else { part_lines + 1 };
        let first = region.lines_before + 1;
        let lines = (first, (region.lines_before + last_line).max(first));
        parts.push((narrow, Part { errors: Vec::new(), stricter, lines }));
    }
    Ok(Some(parts))
}

/// What the check of one region found.
struct Part {
    errors: Vec<SyntaxError>,
    stricter: bool,
    lines: (usize, usize),
}

/// Parses one region of the new text; the region as parsed (from the statement before, when
/// an error at its first token needs the token before it to be described as a whole parse
/// describes it: "after `x`").
fn checked_part(kind: FileKind, old: &str, new: &str, region: &Region) -> Result<(Region, Part), Error> {
    let part = parse_part(kind, new, region)?;
    let first_line = region.lines_before + 1;
    let at_start =
        part.errors.iter().any(|error| error.line == first_line && error.message.ends_with("at the start of the file"));
    if let (true, Some(previous)) = (at_start, region.previous) {
        let back = region.start - previous;
        let lines = memchr::memchr_iter(b'\n', old.as_bytes().get(previous..region.start).unwrap_or_default()).count();
        let wider = Region {
            start: previous,
            new_start: region.new_start - back,
            lines_before: region.lines_before - lines,
            previous: None,
            code_lines: None,
            ..region.clone()
        };
        let part = parse_part(kind, new, &wider)?;
        return Ok((wider, part));
    }
    Ok((region.clone(), part))
}

fn parse_part(kind: FileKind, new: &str, region: &Region) -> Result<Part, Error> {
    let part = new.get(region.new_start..region.new_end).unwrap_or("");
    let parsed = Parsed::new(kind, part, "syntax check")?;
    let changed =
        region.changed.start.saturating_sub(region.new_start)..region.changed.end.saturating_sub(region.new_start);
    let stricter = kind == FileKind::Python && stricter_constructs(&parsed, &changed, true);
    let mut errors = syntax::tree_errors_after(&parsed, region.lines_before).errors;
    if let Some(anomaly) = region.unsettled {
        errors.push(opened(new, region, anomaly));
        errors.sort_by_key(|error| (error.line, error.column));
    }
    let part_lines = memchr::memchr_iter(b'\n', part.as_bytes()).count();
    let last_line = if part.ends_with('\n') || part.is_empty() { part_lines } else { part_lines + 1 };
    let first = region.lines_before + 1;
    Ok(Part { errors, stricter, lines: (first, (region.lines_before + last_line).max(first)) })
}

/// The error naming what a change left open, at the opening's position in `new`.
fn opened(new: &str, region: &Region, anomaly: Anomaly) -> SyntaxError {
    let at = anomaly.at();
    let from = region.new_start.min(at);
    let lines_before = if at >= region.new_start {
        region.lines_before
    } else {
        memchr::memchr_iter(b'\n', new.as_bytes().get(..from).unwrap_or_default()).count()
    };
    let line_start = new.get(..at).and_then(|head| head.rfind('\n')).map_or(0, |nl| nl + 1);
    let line = lines_before
        + 1
        + memchr::memchr_iter(b'\n', new.as_bytes().get(from..line_start.max(from)).unwrap_or_default()).count();
    let column = new.get(line_start..at).map_or(1, |text| text.chars().count() + 1);
    SyntaxError { line, column, end_line: line, end_column: column + 1, message: anomaly.message() }
}

/// Node kinds of tree-sitter-python that CPython's compiler may refuse where the grammar
/// accepts them, wherever they stand: Python 2 statements, `global`/`nonlocal`
/// declarations (judged by [`declaration_suspect`] where the parse holds their scopes
/// whole), `__future__` and `*` imports.
const STRICTER: &[&str] = &[
    "print_statement",
    "exec_statement",
    "global_statement",
    "nonlocal_statement",
    "future_import_statement",
    "wildcard_import",
];

/// Whether the parsed Python text holds, where it overlaps `changed` (source offsets, ends
/// included), something CPython's compiler may refuse where the grammar accepts it — what the
/// compile check could add to the built-in one:
/// - a node of a kind in [`STRICTER`];
/// - `return`, `yield` or `await` outside a function, `break` or `continue` outside a loop
///   (the grammar takes them anywhere);
/// - parameters with a repeated name or a plain one after a default; call arguments with a
///   positional one after a keyword or `**`, `*` after `**`, a repeated keyword, or a
///   generator beside other arguments;
/// - an assignment or augmented assignment to something other than names, attributes,
///   subscripts and their tuples and lists; a star expression outside a call; a `del` of
///   anything else; `:=` outside parentheses, a condition or a call argument, or in a
///   comprehension;
/// - a t-string, an f-string with more than plain replacement fields ([`plain_fstring`]); a
///   bytes literal with a character outside ASCII; a string with a
///   `\N{...}` escape or a `\x`, `\u` or `\U` escape without its digits;
/// - a top-level statement that does not start at column 0 (an unexpected indent, which
///   tree-sitter takes).
fn stricter_constructs(parsed: &Parsed<'_>, changed: &Range<usize>, scopes_complete: bool) -> bool {
    let base = parsed.base();
    let touches = |node: Node<'_>| node.start_byte() + base <= changed.end && changed.start <= node.end_byte() + base;
    let root = parsed.tree.root_node();
    let mut top = root.walk();
    if root
        .children(&mut top)
        .any(|node| touches(node) && node.start_position().column != 0 && node.kind() != "comment")
    {
        return true;
    }
    let mut cursor = parsed.tree.walk();
    loop {
        let node = cursor.node();
        if touches(node) && refused_maybe(parsed, node, scopes_complete) {
            return true;
        }
        if touches(node) && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return false;
            }
        }
    }
}

/// Whether CPython's compiler may refuse `node` where the grammar took it (see
/// [`stricter_constructs`]).
fn refused_maybe(parsed: &Parsed<'_>, node: Node<'_>, scopes_complete: bool) -> bool {
    match node.kind() {
        "global_statement" | "nonlocal_statement" if scopes_complete => declaration_suspect(parsed, node),
        kind if STRICTER.contains(&kind) => true,
        "return_statement" => enclosing(node, &["function_definition"], &[]).is_none(),
        "yield" => enclosing(node, &["function_definition", "lambda"], &[]).is_none() || in_comprehension(node),
        "await" => enclosing(node, &["function_definition"], &[]).is_none_or(|function| !is_async(function)),
        "break_statement" | "continue_statement" => {
            enclosing(node, &["for_statement", "while_statement"], &["function_definition"]).is_none()
        }
        "parameters" | "lambda_parameters" => parameters_suspect(parsed, node),
        "argument_list" => arguments_suspect(parsed, node),
        "assignment" | "augmented_assignment" => {
            node.child_by_field_name("left").is_some_and(|left| !plain_target(left, node.kind() == "assignment"))
        }
        "list_splat" | "dictionary_splat" => node.parent().is_none_or(|parent| {
            !matches!(parent.kind(), "argument_list" | "list" | "tuple" | "set" | "dictionary" | "expression_list")
        }),
        "string" => string_suspect(parsed.text(node)),
        "delete_statement" => {
            let mut cursor = node.walk();
            node.named_children(&mut cursor).any(|child| child.kind() != "comment" && !deletable(child))
        }
        "named_expression" => walrus_suspect(node),
        _ => false,
    }
}

/// A `global` or `nonlocal` declaration CPython may refuse: one outside a function or class
/// (whose module the parse may not hold whole), a name that is a parameter of its function or
/// appears in its scope before it, and for `nonlocal`, a name no enclosing function binds by
/// a parameter or a plain assignment (or declares `global` there). The parse must hold the
/// declaration's scopes whole (a top-level statement holds every scope inside it).
fn declaration_suspect(parsed: &Parsed<'_>, node: Node<'_>) -> bool {
    let Some(scope) = enclosing(node, &["function_definition", "class_definition"], &[]) else { return true };
    let nonlocal = node.kind() == "nonlocal_statement";
    if nonlocal && scope.kind() != "function_definition" {
        return true;
    }
    let mut cursor = node.walk();
    let names: Vec<&str> = node
        .named_children(&mut cursor)
        .filter(|child| child.kind() == "identifier")
        .map(|child| parsed.text(child))
        .collect();
    if names.is_empty() {
        return true;
    }
    let parameters = |function: Node<'_>| -> Vec<&str> {
        let Some(list) = function.child_by_field_name("parameters") else { return Vec::new() };
        let mut cursor = list.walk();
        list.named_children(&mut cursor)
            .filter_map(|parameter| match parameter.kind() {
                "identifier" => Some(parameter),
                "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => parameter.named_child(0),
                "default_parameter" | "typed_default_parameter" => parameter.child_by_field_name("name"),
                _ => None,
            })
            .map(|name| parsed.text(name))
            .collect()
    };
    if scope.kind() == "function_definition" && parameters(scope).iter().any(|parameter| names.contains(parameter)) {
        return true;
    }
    // A use of the name in the scope before the declaration (nested scopes counted too).
    let body = scope.child_by_field_name("body").unwrap_or(scope);
    if identifiers_before(parsed, body, node.start_byte(), &names) {
        return true;
    }
    if !nonlocal {
        return false;
    }
    // Each name bound in an enclosing function: a parameter, or `name = ...` in its body.
    let mut outer = scope.parent();
    let mut bound = vec![false; names.len()];
    while let Some(ancestor) = outer {
        if ancestor.kind() == "function_definition" {
            let own = parameters(ancestor);
            let assigned = assigned_names(parsed, ancestor.child_by_field_name("body").unwrap_or(ancestor));
            if assigned.1.iter().any(|declared| names.contains(declared)) {
                return true;
            }
            for (index, name) in names.iter().enumerate() {
                bound[index] |= own.contains(name) || assigned.0.contains(name);
            }
        }
        outer = ancestor.parent();
    }
    !bound.iter().all(|bound| *bound)
}

/// Whether an identifier spelt as one of `names` starts under `node` before `before`.
fn identifiers_before(parsed: &Parsed<'_>, node: Node<'_>, before: usize, names: &[&str]) -> bool {
    let mut cursor = node.walk();
    loop {
        let current = cursor.node();
        if current.start_byte() >= before {
            // Past the declaration: nothing after it counts.
        } else if current.kind() == "identifier" && names.contains(&parsed.text(current)) {
            return true;
        } else if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() || cursor.node().id() == node.id() {
                return false;
            }
        }
    }
}

/// The names a function body binds by a plain assignment (`name = ...`, at any depth of its
/// own statements, nested functions included: an overestimate only makes fewer declarations
/// look plain), and the names it declares `global`.
fn assigned_names<'t>(parsed: &Parsed<'t>, body: Node<'t>) -> (Vec<&'t str>, Vec<&'t str>) {
    let (mut assigned, mut declared) = (Vec::new(), Vec::new());
    let mut cursor = body.walk();
    loop {
        let current = cursor.node();
        match current.kind() {
            "assignment" => {
                if let Some(left) = current.child_by_field_name("left").filter(|left| left.kind() == "identifier") {
                    assigned.push(parsed.text(left));
                }
            }
            "global_statement" => {
                let mut names = current.walk();
                declared.extend(
                    current
                        .named_children(&mut names)
                        .filter(|name| name.kind() == "identifier")
                        .map(|name| parsed.text(name)),
                );
            }
            _ => {}
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() || cursor.node().id() == body.id() {
                return (assigned, declared);
            }
        }
    }
}

/// Whether a `del` target is one CPython takes: names, attributes, subscripts, and tuples and
/// lists of them.
fn deletable(node: Node<'_>) -> bool {
    match node.kind() {
        "identifier" | "attribute" | "subscript" => true,
        "tuple" | "list" | "expression_list" | "parenthesized_expression" => {
            let mut cursor = node.walk();
            node.named_children(&mut cursor).all(|child| child.kind() == "comment" || deletable(child))
        }
        _ => false,
    }
}

/// An assignment expression (`:=`) outside the places CPython takes it on every version
/// since 3.8: in parentheses, as the condition of `if`, `elif` or `while`, or a positional
/// call argument, and not inside a comprehension (whose iteration variables it may not bind).
fn walrus_suspect(node: Node<'_>) -> bool {
    let placed = node.parent().is_some_and(|parent| match parent.kind() {
        "parenthesized_expression" | "argument_list" => true,
        "if_statement" | "elif_clause" | "while_statement" => {
            parent.child_by_field_name("condition").is_some_and(|condition| condition.id() == node.id())
        }
        _ => false,
    });
    !placed
        || enclosing(
            node,
            &["list_comprehension", "set_comprehension", "dictionary_comprehension", "generator_expression"],
            &["lambda"],
        )
        .is_some()
}

/// The nearest ancestor of `node` of one of `kinds`, searched up to (not past) a function or
/// class definition, or one of `stop`: a `break` in a loop's `else` belongs to the loop around.
fn enclosing<'t>(node: Node<'t>, kinds: &[&str], stop: &[&str]) -> Option<Node<'t>> {
    let mut child = node;
    let mut current = node.parent();
    while let Some(ancestor) = current {
        let kind = ancestor.kind();
        let in_else = child.kind() == "else_clause";
        if kinds.contains(&kind) && !in_else {
            return Some(ancestor);
        }
        if stop.contains(&kind)
            || kind == "class_definition"
            || (kind == "function_definition" && !kinds.contains(&kind))
        {
            return None;
        }
        child = ancestor;
        current = ancestor.parent();
    }
    None
}

fn in_comprehension(node: Node<'_>) -> bool {
    let mut current = node.parent();
    while let Some(ancestor) = current {
        match ancestor.kind() {
            "list_comprehension" | "set_comprehension" | "dictionary_comprehension" | "generator_expression" => {
                return true;
            }
            "function_definition" | "lambda" | "class_definition" => return false,
            _ => current = ancestor.parent(),
        }
    }
    false
}

fn is_async(function: Node<'_>) -> bool {
    function.child(0).is_some_and(|first| first.kind() == "async")
}

/// A parameter list with a repeated name, a plain parameter after a default one, or a shape
/// beyond names, defaults, annotations, `*`, `**` and `/`.
fn parameters_suspect(parsed: &Parsed<'_>, node: Node<'_>) -> bool {
    let mut names = Vec::new();
    let (mut default_seen, mut star_seen) = (false, false);
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        let name = match child.kind() {
            "identifier" => Some(child),
            "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => {
                child.named_child(0).filter(|first| first.kind() == "identifier")
            }
            "default_parameter" | "typed_default_parameter" => child.child_by_field_name("name"),
            "keyword_separator" | "positional_separator" => None,
            "comment" => continue,
            _ => return true,
        };
        match child.kind() {
            "default_parameter" | "typed_default_parameter" => default_seen = true,
            "list_splat_pattern" | "keyword_separator" => star_seen = true,
            "identifier" | "typed_parameter" if default_seen && !star_seen => return true,
            _ => {}
        }
        if let Some(name) = name {
            let text = parsed.text(name);
            if names.contains(&text) {
                return true;
            }
            names.push(text);
        }
    }
    false
}

/// Call arguments with a positional one after a keyword or `**`, `*` after `**`, a repeated
/// keyword, or a generator beside other arguments.
fn arguments_suspect(parsed: &Parsed<'_>, node: Node<'_>) -> bool {
    let (mut keyword_seen, mut double_seen) = (false, false);
    let mut keywords = Vec::new();
    let mut cursor = node.walk();
    let count = node.named_child_count();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "keyword_argument" => {
                keyword_seen = true;
                if let Some(name) = child.child_by_field_name("name") {
                    let text = parsed.text(name);
                    if keywords.contains(&text) {
                        return true;
                    }
                    keywords.push(text);
                }
            }
            "dictionary_splat" => double_seen = true,
            "list_splat" if double_seen => return true,
            "list_splat" | "comment" => {}
            "generator_expression" if count > 1 => return true,
            _ if keyword_seen || double_seen => return true,
            _ => {}
        }
    }
    false
}

/// Whether an assignment target is names, attributes and subscripts (and, for a plain
/// assignment, tuples and lists of them, one starred).
fn plain_target(node: Node<'_>, unpacking: bool) -> bool {
    match node.kind() {
        "identifier" | "attribute" | "subscript" => true,
        "pattern_list" | "tuple_pattern" | "list_pattern" | "tuple" | "list" | "expression_list" if unpacking => {
            let mut cursor = node.walk();
            let mut stars = 0;
            let plain = node.named_children(&mut cursor).all(|child| match child.kind() {
                "list_splat_pattern" | "list_splat" => {
                    stars += 1;
                    child.named_child(0).is_some_and(|inner| plain_target(inner, false))
                }
                _ => plain_target(child, true),
            });
            plain && stars <= 1
        }
        _ => false,
    }
}

/// Whether an f-string's quoted body (after its prefix) holds nothing CPython judges more
/// strictly than the grammar, on any version since 3.8: each replacement field is a simple
/// expression (names, numbers, attributes, calls, subscripts, operators, strings in the other
/// quote; no backslashes, comments, braces, line breaks or `lambda`), an optional `=`, a conversion
/// `!r`, `!s` or `!a`, and a format spec without braces, quotes or backslashes; a `}` outside
/// a field is doubled. Anything else goes to the compile check.
fn plain_fstring(quoted: &str, raw: bool) -> bool {
    let quote = if quoted.starts_with("\"\"\"") || quoted.starts_with("'''") { 3 } else { 1 };
    let Some(body) = quoted.get(quote..quoted.len().saturating_sub(quote)) else { return false };
    let body = body.as_bytes();
    let mut at = 0;
    while let Some(&byte) = body.get(at) {
        match byte {
            b'{' if body.get(at + 1) == Some(&b'{') => at += 2,
            b'}' if body.get(at + 1) == Some(&b'}') => at += 2,
            b'}' => return false,
            b'{' => match plain_field(body, at + 1, quoted.as_bytes().first().copied().unwrap_or(b'"')) {
                Some(end) => at = end + 1,
                None => return false,
            },
            b'\\' if !raw => at += 2,
            _ => at += 1,
        }
    }
    true
}

/// The end (its `}`) of a plain replacement field whose expression starts at `from`, in an
/// f-string quoted by `quote` (a string inside the field takes the other quote).
fn plain_field(body: &[u8], from: usize, quote: u8) -> Option<usize> {
    let mut depth = 0usize;
    let mut at = from;
    // The expression: up to `!`, `:`, `=` or `}` outside brackets (`!=`, `==`, `<=`, `>=` are
    // operators).
    loop {
        let byte = *body.get(at)?;
        match byte {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.checked_sub(1)?,
            b'!' | b'=' | b'<' | b'>' if body.get(at + 1) == Some(&b'=') => at += 1,
            b'!' | b':' | b'=' | b'}' if depth == 0 => break,
            b'\'' | b'"' if byte != quote => {
                let close = memchr::memchr(byte, body.get(at + 1..)?)? + at + 1;
                if body
                    .get(at + 1..close)?
                    .iter()
                    .any(|&inner| matches!(inner, b'\\' | b'\n' | b'\r' | b'{' | b'}') || inner == quote)
                {
                    return None;
                }
                at = close;
            }
            b'\'' | b'"' | b'\\' | b'#' | b'{' | b'}' | b'\n' | b'\r' => return None,
            _ => {}
        }
        at += 1;
    }
    let expression = std::str::from_utf8(body.get(from..at)?).ok()?;
    if expression.trim().is_empty()
        || expression
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|word| word == "lambda" || word == "yield")
    {
        return None;
    }
    if body.get(at) == Some(&b'=') {
        at += 1;
    }
    if body.get(at) == Some(&b'!') {
        if !matches!(body.get(at + 1), Some(b'r' | b's' | b'a')) {
            return None;
        }
        at += 2;
    }
    if body.get(at) == Some(&b':') {
        at += 1;
        while let Some(&byte) = body.get(at) {
            match byte {
                b'}' => break,
                b'{' | b'\'' | b'"' | b'\\' | b'\n' | b'\r' => return None,
                _ => at += 1,
            }
        }
    }
    (body.get(at) == Some(&b'}')).then_some(at)
}

/// A string literal CPython may refuse where the grammar took it: an f-string or t-string, a
/// bytes literal with a character outside ASCII, `\N{...}`, or `\x`, `\u`, `\U` without their
/// digits.
fn string_suspect(text: &str) -> bool {
    let prefix: String = text.chars().take_while(|c| c.is_ascii_alphabetic()).map(|c| c.to_ascii_lowercase()).collect();
    if prefix.contains('t') {
        return true;
    }
    if prefix.contains('f') {
        return !plain_fstring(text.get(prefix.len()..).unwrap_or_default(), prefix.contains('r'));
    }
    let bytes = prefix.contains('b');
    if bytes && !text.is_ascii() {
        return true;
    }
    if prefix.contains('r') || !text.contains('\\') {
        return false;
    }
    let body = text.as_bytes();
    let mut at = 0;
    while let Some(offset) = memchr::memchr(b'\\', body.get(at..).unwrap_or_default()) {
        let escape = at + offset + 1;
        let digits = |count: usize| {
            body.get(escape + 1..escape + 1 + count).is_some_and(|digits| digits.iter().all(u8::is_ascii_hexdigit))
        };
        let suspect = match body.get(escape) {
            Some(b'N') => !bytes,
            Some(b'x') => !digits(2),
            Some(b'u') => !bytes && !digits(4),
            Some(b'U') => !bytes && !digits(8),
            _ => false,
        };
        if suspect {
            return true;
        }
        at = escape + 1;
    }
    false
}
