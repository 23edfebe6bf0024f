//! Where a change's syntax check starts and stops: the boundaries of Python's top-level
//! statements, found by a lexical scan, so that a check parses only the statements a change
//! touched instead of the whole file.
//!
//! A top-level statement starts on a line that begins at column 0, outside every string,
//! f-string, bracket and backslash continuation; `else`, `elif`, `except` and `finally` lines
//! continue the statement before them, and a decorated definition starts at its first
//! decorator. Such statements parse on their own exactly as they do in place, so the text
//! between two boundaries can be parsed alone and its errors moved to the file's lines.
//!
//! The scan is a byte loop over the text before the change, through the change, and on until
//! the old and the new text reach a boundary at the same place of their common tail (from
//! there on they lex alike). Its cost is a few nanoseconds per byte; a whole-file tree-sitter
//! parse costs some 350.

use std::ops::Range;
use std::time::Instant;

/// What the scan found that CPython's tokenizer refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Anomaly {
    /// A bracket opened at `at` and never closed.
    Unclosed { at: usize, bracket: u8 },
    /// A string literal opened at `at` and never closed.
    Unterminated { at: usize },
    /// A closing bracket at `at` with nothing open, or a lone `}` in an f-string.
    Stray { at: usize, bracket: u8 },
    /// A bracket opened at `at` is still open where the statements around it end in the old
    /// text, and is closed somewhere after them.
    OpenPast { at: usize, bracket: u8 },
    /// A carriage return not followed by a line feed, at `at` (a line end to Python, none
    /// to tree-sitter): the boundaries are not established.
    LoneCr { at: usize },
}

impl Anomaly {
    pub(crate) fn at(self) -> usize {
        match self {
            Anomaly::Unclosed { at, .. }
            | Anomaly::Unterminated { at }
            | Anomaly::Stray { at, .. }
            | Anomaly::OpenPast { at, .. }
            | Anomaly::LoneCr { at } => at,
        }
    }

    /// What is wrong, in CPython's words where it has some.
    pub(crate) fn message(self) -> String {
        match self {
            Anomaly::Unclosed { bracket, .. } => format!("`{}` was never closed", char::from(bracket)),
            Anomaly::Unterminated { .. } => "unterminated string literal".to_owned(),
            Anomaly::Stray { bracket, .. } => format!("unmatched `{}`", char::from(bracket)),
            Anomaly::OpenPast { bracket, .. } => {
                format!("`{}` is still open after the statement it is in", char::from(bracket))
            }
            Anomaly::LoneCr { .. } => "a carriage return without a line feed".to_owned(),
        }
    }
}

/// One open string literal.
#[derive(Debug, Clone, Copy)]
struct Str {
    quote: u8,
    triple: bool,
    /// An f-string or t-string: `{` opens a replacement field.
    formatted: bool,
    start: usize,
}

impl Str {
    /// The offset of the first byte of `bytes` that [`Scanner::string`] acts on in this
    /// string: a backslash, its quote, a line end ending a one-line string, a brace of a
    /// formatted one. Long docstrings are skipped by `memchr`.
    fn next_stop(&self, bytes: &[u8]) -> Option<usize> {
        match (self.formatted, self.triple) {
            (false, true) => memchr::memchr2(b'\\', self.quote, bytes),
            (false, false) => memchr::memchr3(b'\\', self.quote, b'\n', bytes),
            (true, _) => {
                bytes.iter().position(|&byte| matches!(byte, b'\\' | b'\n' | b'{' | b'}') || byte == self.quote)
            }
        }
    }
}

/// A frame of the scan's stack: a string, or a replacement field of an f-string.
#[derive(Debug, Clone, Copy)]
enum Frame {
    Str(Str),
    /// Inside `{...}` of an f-string: code with its own bracket depth, then (after a `:` at
    /// depth 0) the format spec.
    Field {
        depth: u32,
        spec: bool,
    },
}

/// A lexical scan of Python source that yields top-level statement boundaries in order.
pub(crate) struct Scanner<'t> {
    text: &'t [u8],
    at: usize,
    frames: Vec<Frame>,
    /// Open brackets of top-level code: the bracket and its offset.
    brackets: Vec<(u8, usize)>,
    /// The last statement start was a decorator: the next one belongs to it.
    after_decorator: bool,
    /// Every code line outside strings, brackets and continuations is a boundary, whatever
    /// its indentation (the scan [`narrow`] uses).
    every_line: bool,
    /// The first thing found wrong, if any.
    pub(crate) anomaly: Option<Anomaly>,
    /// The start of every code line outside strings, brackets and continuations scanned so
    /// far (what [`code_lines`] finds), when asked for ([`Lex::record_lines`]).
    recorded: Option<Vec<usize>>,
}

/// The most code lines a scan records for [`Lex::take_lines`] (8 MiB of offsets): past it
/// the lines are found again by a scan of each narrowed region.
const MAX_RECORDED_LINES: usize = 1 << 20;

/// A lexical scan that yields the boundaries of a language's top-level statements in order.
pub(crate) trait Lex<'t>: Sized {
    /// A scan of `text` from its start.
    fn new(text: &'t [u8]) -> Self;
    /// A scan of `text` from `at`, a boundary another scan of the same bytes before `at`
    /// yielded.
    fn resume(text: &'t [u8], at: usize) -> Self;
    /// Whether the line at `at` starts a statement, given that the scan's state there is a
    /// boundary's: what the line's own bytes decide.
    fn line_starts(text: &'t [u8], at: usize) -> bool;
    /// The next boundary; `None` at the end of the text.
    fn next_boundary(&mut self) -> Option<usize>;
    /// The first thing found wrong, if any.
    fn anomaly(&self) -> Option<Anomaly>;
    /// The outermost bracket, string or comment open where the scan stands.
    fn open(&self) -> Option<Anomaly>;
    /// Records the code lines scanned from now on, for [`Lex::take_lines`].
    fn record_lines(&mut self) {}
    /// The code lines of `from..to` (`from`, a boundary this scan yielded, first), when the
    /// scan recorded them and has passed `to`; forgets every line before `to`.
    fn take_lines(&mut self, from: usize, to: usize) -> Option<Vec<usize>> {
        let _ = (from, to);
        None
    }
}

impl<'t> Lex<'t> for Scanner<'t> {
    fn new(text: &'t [u8]) -> Self {
        Scanner::new(text)
    }
    fn resume(text: &'t [u8], at: usize) -> Self {
        Scanner::resume(text, at)
    }
    fn line_starts(text: &'t [u8], at: usize) -> bool {
        at == 0 || Scanner::at_line(text, at).starts_statement(at)
    }
    fn next_boundary(&mut self) -> Option<usize> {
        Scanner::next_boundary(self)
    }
    fn anomaly(&self) -> Option<Anomaly> {
        self.anomaly
    }
    fn open(&self) -> Option<Anomaly> {
        Scanner::open(self)
    }
    fn record_lines(&mut self) {
        self.recorded = Some(Vec::new());
    }
    fn take_lines(&mut self, from: usize, to: usize) -> Option<Vec<usize>> {
        if self.at < to {
            return None;
        }
        let recorded = self.recorded.as_mut()?;
        let first = recorded.partition_point(|&at| at <= from);
        let last = recorded.partition_point(|&at| at < to);
        let lines =
            std::iter::once(from).chain(recorded.get(first..last).unwrap_or_default().iter().copied()).collect();
        recorded.drain(..last);
        Some(lines)
    }
}

/// Bytes that change the scan's state in code.
const fn code_table() -> [bool; 256] {
    let mut table = [false; 256];
    let bytes = b"#'\"()[]{}\\\n\r:";
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
}

static CODE: [bool; 256] = code_table();

/// Whether `line` (a line's bytes on) holds code: something other than blanks and a comment.
fn code_line(line: &[u8]) -> bool {
    let code = line.iter().find(|&&byte| !matches!(byte, b' ' | b'\t' | b'\x0c'));
    code.is_some_and(|byte| !matches!(byte, b'#' | b'\n' | b'\r'))
}

impl<'t> Scanner<'t> {
    /// A scan of `text` from its start.
    pub(crate) fn new(text: &'t [u8]) -> Self {
        let mut scanner = Scanner::at_line(text, 0);
        // The first line is a statement start like any other.
        scanner.starts_statement(0);
        scanner
    }

    /// A scan of `text` from `at`, the start of a line known to begin a statement (a
    /// boundary another scan of the same text before `at` yielded).
    pub(crate) fn resume(text: &'t [u8], at: usize) -> Self {
        let mut scanner = Scanner::at_line(text, at);
        scanner.starts_statement(at);
        scanner
    }

    fn at_line(text: &'t [u8], at: usize) -> Self {
        Scanner {
            text,
            at,
            frames: Vec::new(),
            brackets: Vec::new(),
            after_decorator: false,
            every_line: false,
            anomaly: None,
            recorded: None,
        }
    }

    fn flag(&mut self, anomaly: Anomaly) {
        self.anomaly.get_or_insert(anomaly);
    }

    /// Whether the line starting at `at` (in clean top-level state) starts a top-level
    /// statement; keeps track of decorators.
    fn starts_statement(&mut self, at: usize) -> bool {
        let line = self.text.get(at..).unwrap_or_default();
        if self.every_line {
            return code_line(line);
        }
        let Some(&first) = line.first() else { return false };
        if matches!(first, b' ' | b'\t' | b'\x0c' | b'\r' | b'\n' | b'#' | b')' | b']' | b'}' | b'\\') {
            return false;
        }
        if ["else", "elif", "except", "finally"].iter().any(|word| starts_with_word(line, word.as_bytes())) {
            return false;
        }
        let decorated = std::mem::replace(&mut self.after_decorator, first == b'@');
        !decorated
    }

    /// The next boundary: the offset of the start of the next line that starts a top-level
    /// statement. `None` at the end of the text (an unclosed bracket or string then sets
    /// [`Scanner::anomaly`]).
    pub(crate) fn next_boundary(&mut self) -> Option<usize> {
        let text = self.text;
        let len = text.len();
        while self.at < len {
            match self.frames.last().copied() {
                None | Some(Frame::Field { spec: false, .. }) => {
                    if let Some(boundary) = self.code() {
                        return Some(boundary);
                    }
                }
                Some(Frame::Str(string)) => self.string(string),
                Some(Frame::Field { spec: true, .. }) => self.spec(),
            }
        }
        if let Some(&(bracket, at)) = self.brackets.first() {
            self.flag(Anomaly::Unclosed { at, bracket });
        }
        if let Some(at) = self.frames.iter().find_map(|frame| match frame {
            Frame::Str(string) => Some(string.start),
            Frame::Field { .. } => None,
        }) {
            self.flag(Anomaly::Unterminated { at });
        }
        None
    }

    /// The outermost bracket or string open where the scan stands.
    fn open(&self) -> Option<Anomaly> {
        let bracket = self.brackets.first().map(|&(bracket, at)| Anomaly::Unclosed { at, bracket });
        let string = self.frames.iter().find_map(|frame| match frame {
            Frame::Str(string) => Some(Anomaly::Unterminated { at: string.start }),
            Frame::Field { .. } => None,
        });
        match (bracket, string) {
            (Some(bracket), Some(string)) => Some(if bracket.at() < string.at() { bracket } else { string }),
            (bracket, string) => bracket.or(string),
        }
    }

    /// Whether the scan is outside every string, bracket and continuation.
    fn top_level(&self) -> bool {
        self.frames.is_empty() && self.brackets.is_empty()
    }

    /// Scans code up to one state change; a boundary when a line end leads to one.
    fn code(&mut self) -> Option<usize> {
        let text = self.text;
        let start = self.at;
        let skip = text.get(start..).unwrap_or_default().iter().position(|&byte| CODE[usize::from(byte)]);
        let Some(offset) = skip else {
            self.at = text.len();
            return None;
        };
        let i = start + offset;
        let byte = text.get(i).copied().unwrap_or(0);
        let next = text.get(i + 1).copied();
        self.at = i + 1;
        let in_field = !self.frames.is_empty();
        match byte {
            b'\n' if self.top_level() => {
                if let Some(recorded) = self.recorded.as_mut()
                    && code_line(text.get(i + 1..).unwrap_or_default())
                {
                    if recorded.len() < MAX_RECORDED_LINES {
                        recorded.push(i + 1);
                    } else {
                        self.recorded = None;
                    }
                }
                if self.starts_statement(i + 1) {
                    return Some(i + 1);
                }
            }
            b'\r' if next != Some(b'\n') => self.flag(Anomaly::LoneCr { at: i }),
            b'#' => {
                // A comment runs to the line end, which is scanned as code.
                self.at = memchr::memchr(b'\n', text.get(i..).unwrap_or_default()).map_or(text.len(), |nl| i + nl);
            }
            b'\\' => {
                // A backslash continuation: the line end that follows ends no statement.
                self.at = match (next, text.get(i + 2).copied()) {
                    (Some(b'\n'), _) => i + 2,
                    (Some(b'\r'), Some(b'\n')) => i + 3,
                    _ => i + 1,
                };
            }
            b'\'' | b'"' => self.open_string(i, byte),
            b'(' | b'[' | b'{' => {
                if let Some(Frame::Field { depth, .. }) = self.frames.last_mut() {
                    *depth += 1;
                } else {
                    self.brackets.push((byte, i));
                }
            }
            b')' | b']' | b'}' => match self.frames.last_mut() {
                Some(Frame::Field { depth: 0, .. }) if byte == b'}' => {
                    self.frames.pop();
                }
                Some(Frame::Field { depth, .. }) => *depth = depth.saturating_sub(1),
                _ => {
                    if let Some(anomaly) = close(&mut self.brackets, byte, i) {
                        self.flag(anomaly);
                    }
                }
            },
            b':' => {
                if in_field
                    && next != Some(b'=')
                    && let Some(Frame::Field { depth: 0, spec }) = self.frames.last_mut()
                {
                    *spec = true;
                }
            }
            _ => {}
        }
        None
    }

    /// A quote at `at` in code opens a string; its prefix (`r`, `b`, `f`, `t`, `u` and pairs)
    /// is the run of word characters just before it.
    fn open_string(&mut self, at: usize, quote: u8) {
        let text = self.text;
        let before = text.get(..at).unwrap_or_default();
        let word =
            before.iter().rev().take_while(|&&byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte >= 0x80);
        let prefix: Vec<u8> = word.take(3).map(u8::to_ascii_lowercase).collect();
        let formatted = matches!(prefix.as_slice(), b"f" | b"t" | b"fr" | b"rf" | b"tr" | b"rt");
        let triple = text.get(at + 1) == Some(&quote) && text.get(at + 2) == Some(&quote);
        self.frames.push(Frame::Str(Str { quote, triple, formatted, start: at }));
        self.at = if triple { at + 3 } else { at + 1 };
    }

    /// Scans a string literal up to one state change.
    fn string(&mut self, string: Str) {
        let text = self.text;
        let mut i = self.at;
        while let Some(skip) = string.next_stop(text.get(i..).unwrap_or_default()) {
            i += skip;
            let Some(&byte) = text.get(i) else { break };
            match byte {
                b'\\' => {
                    i += match (text.get(i + 1), text.get(i + 2)) {
                        (Some(b'\r'), Some(b'\n')) => 3,
                        _ => 2,
                    };
                }
                b'\n' if !string.triple => {
                    // Unterminated: the line end belongs to the code around it.
                    self.flag(Anomaly::Unterminated { at: string.start });
                    self.frames.pop();
                    self.at = i;
                    return;
                }
                _ if byte == string.quote => {
                    if !string.triple {
                        self.frames.pop();
                        self.at = i + 1;
                        return;
                    }
                    if text.get(i + 1) == Some(&string.quote) && text.get(i + 2) == Some(&string.quote) {
                        self.frames.pop();
                        self.at = i + 3;
                        return;
                    }
                    i += 1;
                }
                b'{' if string.formatted => {
                    if text.get(i + 1) == Some(&b'{') {
                        i += 2;
                    } else {
                        self.frames.push(Frame::Field { depth: 0, spec: false });
                        self.at = i + 1;
                        return;
                    }
                }
                b'}' if string.formatted => {
                    if text.get(i + 1) == Some(&b'}') {
                        i += 2;
                    } else {
                        self.flag(Anomaly::Stray { at: i, bracket: b'}' });
                        i += 1;
                    }
                }
                _ => i += 1,
            }
        }
        self.at = text.len();
    }

    /// Scans the format spec of a replacement field (after its `:`): literal text where
    /// `{` opens a nested field and `}` closes this one.
    fn spec(&mut self) {
        let text = self.text;
        let enclosing = self.frames.iter().rev().find_map(|frame| match frame {
            Frame::Str(string) => Some(*string),
            Frame::Field { .. } => None,
        });
        let mut i = self.at;
        while let Some(&byte) = text.get(i) {
            match byte {
                b'\\' => i += 2,
                b'{' => {
                    self.frames.push(Frame::Field { depth: 0, spec: false });
                    self.at = i + 1;
                    return;
                }
                b'}' => {
                    self.frames.pop();
                    self.at = i + 1;
                    return;
                }
                _ if enclosing.is_some_and(|string| byte == string.quote || (byte == b'\n' && !string.triple)) => {
                    // The string ends inside the spec: CPython refuses it; the string takes
                    // its quote or line end back.
                    self.frames.pop();
                    self.at = i;
                    return;
                }
                _ => i += 1,
            }
        }
        self.at = text.len();
    }
}

/// A string open at a line start, as [`state_at`] gives it: its quote, where it opened and
/// whether it is an f-string or a t-string.
pub(crate) type OpenString = (u8, usize, bool);

/// The lexical state of Python `text` at `to` (a line start), scanned from `from` (a line
/// start in code, or inside the plain triple-quoted string of quote `open`; no string or
/// f-string open around that): `Some(None)` in code (brackets may be open), `Some(Some(_))`
/// inside the triple-quoted string opened there, `None` inside anything else, or when the
/// scan finds on the way a string left open at a line end or a lone carriage return.
pub(crate) fn state_at(text: &[u8], from: usize, to: usize, open: Option<u8>) -> Option<Option<OpenString>> {
    let mut scan = Scanner::at_line(text.get(..to)?, from);
    if let Some(quote) = open {
        scan.frames.push(Frame::Str(Str { quote, triple: true, formatted: false, start: from }));
    }
    let len = scan.text.len();
    while scan.at < len {
        match scan.frames.last().copied() {
            None | Some(Frame::Field { spec: false, .. }) => {
                scan.code();
            }
            Some(Frame::Str(string)) => scan.string(string),
            Some(Frame::Field { spec: true, .. }) => scan.spec(),
        }
    }
    if matches!(scan.anomaly, Some(Anomaly::Unterminated { .. } | Anomaly::LoneCr { .. })) {
        return None;
    }
    match scan.frames.as_slice() {
        [] => Some(None),
        [Frame::Str(string)] if string.triple => Some(Some((string.quote, string.start, string.formatted))),
        _ => None,
    }
}

/// Closes the bracket `closer` at `at` against the open `brackets`: the matching opener is
/// taken off with any left open inside it (the first of those is what was never closed); a
/// closer that matches nothing open is stray and closes nothing.
fn close(brackets: &mut Vec<(u8, usize)>, closer: u8, at: usize) -> Option<Anomaly> {
    let opener = match closer {
        b')' => b'(',
        b']' => b'[',
        _ => b'{',
    };
    let Some(found) = brackets.iter().rposition(|&(bracket, _)| bracket == opener) else {
        return Some(Anomaly::Stray { at, bracket: closer });
    };
    let unclosed = brackets.get(found + 1).map(|&(bracket, at)| Anomaly::Unclosed { at, bracket });
    brackets.truncate(found);
    unclosed
}

/// Whether `line` starts with the keyword `word` (followed by a character that cannot
/// continue a name).
fn starts_with_word(line: &[u8], word: &[u8]) -> bool {
    line.starts_with(word)
        && line.get(word.len()).is_none_or(|&next| !(next.is_ascii_alphanumeric() || next == b'_' || next >= 0x80))
}

/// The part of an old and a new text a change touched, widened to whole top-level statements
/// that lex alike around it: `old[start..old_end]` became `new[new_start..new_end]`, and the
/// text around it lexes the same in both (for a change made in one place, the text before
/// `start` and from `old_end` (`new_end`) on is the same in both).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Region {
    /// Where the region starts in the old text.
    pub(crate) start: usize,
    pub(crate) old_end: usize,
    /// Where the region starts in the new text: `start`, unless other places changed before.
    pub(crate) new_start: usize,
    pub(crate) new_end: usize,
    /// Lines of the new text before `new_start`.
    pub(crate) lines_before: usize,
    /// The start of the statement before `start` in the old text, if any.
    pub(crate) previous: Option<usize>,
    /// The bytes of the new text the change replaced the old ones with.
    pub(crate) changed: std::ops::Range<usize>,
    /// The places the region holds: each one's bytes in the old text and in the new.
    pub(crate) places: Vec<(Range<usize>, Range<usize>)>,
    /// The new text never lexes like the old again after the change (it opened a bracket or
    /// a string that stays open): the region ends where the touched statements end in the old
    /// text, and this is what the scan of the new text found.
    pub(crate) unsettled: Option<Anomaly>,
    /// The code lines of the old text in `start..old_end` ([`code_lines`]), when the scan that
    /// found the region recorded them.
    pub(crate) code_lines: Option<Vec<usize>>,
}

/// Why no region could be found: the caller checks the whole text instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoRegion {
    /// The texts are the same.
    Unchanged,
    /// The old text has something CPython's tokenizer refuses before or around the change,
    /// or a byte-order mark changed: its statement boundaries are not established.
    Unestablished,
}

/// The most bytes a region grows past the change to find where the two texts lex alike
/// again; past it the region ends where the touched statements end in the old text.
const MAX_SETTLE_BYTES: usize = 1 << 20;

/// Statement starts kept before the change, for moving the region's start back when a
/// change makes a start continue the statement before it.
const KEPT_STARTS: usize = 64;

/// The top-level statements of Python text `old` that a change to `new` touched, and their
/// counterpart in `new`.
pub(crate) fn python_region(old: &str, new: &str) -> Result<Region, NoRegion> {
    region::<Scanner<'_>>(old, new)
}

/// The top-level statements of `old` that a change to `new` touched, and their counterpart
/// in `new`, by the scan `L`.
pub(crate) fn region<'t, L: Lex<'t>>(old: &'t str, new: &'t str) -> Result<Region, NoRegion> {
    let (old_bytes, new_bytes) = (old.as_bytes(), new.as_bytes());
    if old_bytes == new_bytes {
        return Err(NoRegion::Unchanged);
    }
    if crate::parse::bom_len(old) != crate::parse::bom_len(new) {
        return Err(NoRegion::Unestablished);
    }
    let prefix = editkit_matcher::diff::common_prefix_len(old_bytes, new_bytes);
    let suffix = editkit_matcher::diff::common_suffix_len(
        old_bytes.get(prefix..).unwrap_or_default(),
        new_bytes.get(prefix..).unwrap_or_default(),
    );
    let change = Change {
        old,
        new,
        prefix,
        old_change_end: old.len() - suffix,
        new_change_end: new.len() - suffix,
        delta: new.len() as isize - old.len() as isize,
    };
    let (before, start, previous, after_change) = region_start::<L>(&change)?;
    let lines_before = memchr::memchr_iter(b'\n', old_bytes.get(..start).unwrap_or_default()).count();
    let mut scans = Scans { old_scan: before, new_scan: L::resume(new_bytes, start), start, previous, lines_before };
    let (settled, natural_end) = scans.settle(&change, after_change);
    if let Some((old_end, new_end)) = settled {
        if scans.old_scan.anomaly().is_some_and(|anomaly| anomaly.at() < old_end) {
            return Err(NoRegion::Unestablished);
        }
        return Ok(scans.region(&change, old_end, new_end, None));
    }
    // The new text stays open past the change, or never lexes like the old one again.
    if scans.old_scan.anomaly().is_some() {
        return Err(NoRegion::Unestablished);
    }
    scans.unsettled(&change, natural_end)
}

/// Where two texts differ: `old[prefix..old_change_end]` became `new[prefix..new_change_end]`.
struct Change<'t> {
    old: &'t str,
    new: &'t str,
    prefix: usize,
    old_change_end: usize,
    new_change_end: usize,
    /// `new.len() - old.len()`.
    delta: isize,
}

/// The old text's scan and the region's start, as [`region_start`] gives them.
type Start<L> = (L, usize, Option<usize>, Option<usize>);

/// Where the region starts: the old text's scan stopped at the first boundary at or past the
/// change (that boundary), the start (a statement before the change that also starts one in
/// the new text) and the statement start before it.
fn region_start<'t, L: Lex<'t>>(change: &Change<'t>) -> Result<Start<L>, NoRegion> {
    // Boundaries of the old text strictly before the change: the statement before the
    // change is in the region too, since new text at its end could continue it.
    let mut before = L::new(change.old.as_bytes());
    let mut starts = vec![0];
    let mut after_change = None;
    while let Some(boundary) = before.next_boundary() {
        if boundary >= change.prefix {
            after_change = Some(boundary);
            break;
        }
        starts.push(boundary);
        if starts.len() > 2 * KEPT_STARTS {
            starts.drain(1..=KEPT_STARTS);
        }
    }
    if before.anomaly().is_some_and(|anomaly| anomaly.at() < change.prefix) {
        return Err(NoRegion::Unestablished);
    }
    // The start must begin a statement in the new text as well (a change in the first
    // bytes of its line can make it an `else:`).
    let start = loop {
        let Some(candidate) = starts.pop() else { return Err(NoRegion::Unestablished) };
        if L::line_starts(change.new.as_bytes(), candidate) {
            break candidate;
        }
    };
    Ok((before, start, starts.last().copied(), after_change))
}

/// The scans of both texts from the region's start, and what the region keeps of it.
struct Scans<L> {
    old_scan: L,
    new_scan: L,
    start: usize,
    previous: Option<usize>,
    lines_before: usize,
}

impl<'t, L: Lex<'t>> Scans<L> {
    /// Walks both texts' boundaries past the change until one of the old text, moved by the
    /// change's length, is one of the new text: the region's ends in both (`None` when they
    /// never meet within [`MAX_SETTLE_BYTES`] or a scan stops on something wrong), and the
    /// first old boundary at or past the change.
    fn settle(&mut self, change: &Change<'t>, after_change: Option<usize>) -> (Option<(usize, usize)>, Option<usize>) {
        let (old_scan, new_scan) = (&mut self.old_scan, &mut self.new_scan);
        let mut old_next = after_change;
        let mut new_next = new_scan.next_boundary();
        let mut natural_end = None;
        let limit = change.old_change_end.saturating_add(MAX_SETTLE_BYTES);
        let settled = loop {
            // The first old boundary at or past the change's end, and the first new one.
            while old_next.is_some_and(|boundary| boundary < change.old_change_end) {
                old_next = old_scan.next_boundary();
            }
            while new_next.is_some_and(|boundary| boundary < change.new_change_end) {
                new_next = new_scan.next_boundary();
            }
            if natural_end.is_none() {
                natural_end = Some(old_next.unwrap_or(change.old.len()));
            }
            match (old_next, new_next) {
                (Some(old_at), Some(new_at)) => {
                    let mapped = old_at as isize + change.delta;
                    if old_at > limit {
                        break None;
                    }
                    match mapped.cmp(&(new_at as isize)) {
                        std::cmp::Ordering::Equal => break Some((old_at, new_at)),
                        std::cmp::Ordering::Less => old_next = old_scan.next_boundary(),
                        std::cmp::Ordering::Greater => new_next = new_scan.next_boundary(),
                    }
                }
                // Both reach the end: the region runs to it.
                (None, None) if old_scan.anomaly().is_none() && new_scan.anomaly().is_none() => {
                    break Some((change.old.len(), change.new.len()));
                }
                _ => break None,
            }
        };
        (settled, natural_end)
    }

    /// The region from the start to `old_end` and `new_end`.
    fn region(&self, change: &Change<'t>, old_end: usize, new_end: usize, unsettled: Option<Anomaly>) -> Region {
        Region {
            start: self.start,
            old_end,
            new_start: self.start,
            new_end,
            lines_before: self.lines_before,
            previous: self.previous,
            changed: change.prefix..change.new_change_end,
            places: vec![(change.prefix..change.old_change_end, change.prefix..change.new_change_end)],
            unsettled,
            code_lines: None,
        }
    }

    /// The region when the new text never lexes like the old again after the change: it ends
    /// where the touched statements end in the old text (`natural_end`), naming what stays
    /// open, or runs to the end of both texts when nothing does.
    fn unsettled(&mut self, change: &Change<'t>, natural_end: Option<usize>) -> Result<Region, NoRegion> {
        let (old, new, new_bytes) = (change.old, change.new, change.new.as_bytes());
        let (start, prefix, new_change_end) = (self.start, change.prefix, change.new_change_end);
        // Where the touched statements end in the old text (on at a whole line of the new).
        let mut old_end = natural_end.unwrap_or(old.len()).max(change.old_change_end);
        let mut new_end =
            usize::try_from(old_end as isize + change.delta).unwrap_or(new.len()).clamp(new_change_end, new.len());
        if new_end > 0 && new_bytes.get(new_end - 1) != Some(&b'\n') {
            let rest = memchr::memchr(b'\n', new_bytes.get(new_end..).unwrap_or_default())
                .map_or(new.len() - new_end, |nl| nl + 1);
            new_end += rest;
            old_end = (old_end + rest).min(old.len());
        }
        // The region from `start` to the end of both texts.
        let to_the_end = self.region(change, old.len(), new.len(), None);
        let mut to_end = L::resume(new_bytes.get(..new_end).unwrap_or_default(), start);
        while to_end.next_boundary().is_some() {}
        // What the change left open: a bracket left open inside one closed later, else what is
        // still open at the end.
        let inner =
            to_end.anomaly().filter(|anomaly| matches!(anomaly, Anomaly::Unclosed { .. }) && anomaly.at() >= start);
        let Some(open) = inner.or_else(|| to_end.open()) else {
            // Nothing stays open there: the new text's statements just end elsewhere. Check to
            // the end of both texts.
            return Ok(to_the_end);
        };
        // Something opened before the change's end stays open: the region ends there, and
        // names it; "never closed" when the scan of the whole new text found it open at the
        // end. (Something opened after the change means the old text's statements end
        // elsewhere than the new one's, as when the old text is broken: no region then.)
        if open.at() >= new_change_end.max(prefix + 1) {
            return Err(NoRegion::Unestablished);
        }
        let new_scan = &mut self.new_scan;
        while new_scan.next_boundary().is_some() {}
        // The whole new text scans clean and nothing is open at its end: what was open where
        // the old statements end closes later. The change closed something the old text left
        // open (its boundaries past the change are not the new text's); check to the end of
        // both.
        if new_scan.anomaly().is_none() && new_scan.open().is_none() {
            return Ok(to_the_end);
        }
        let open = match open {
            Anomaly::Unclosed { at, bracket } if new_scan.open().is_none_or(|end| end.at() != at) => {
                Anomaly::OpenPast { at, bracket }
            }
            open => open,
        };
        Ok(self.region(change, old_end, new_end, Some(open)))
    }
}

/// The places where `old` and `new` differ, as whole lines: pairs of byte ranges, in order,
/// with the text between two places (and around them all) the same in both. The lines are
/// compared by Myers' diff, bounded in time ([`places_timeout`], past which a place may take
/// in lines that did not change: still right, only larger).
pub(crate) fn places(old: &str, new: &str) -> Vec<(Range<usize>, Range<usize>)> {
    let (old_bytes, new_bytes) = (old.as_bytes(), new.as_bytes());
    let prefix = editkit_matcher::diff::common_prefix_len(old_bytes, new_bytes);
    let suffix = editkit_matcher::diff::common_suffix_len(
        old_bytes.get(prefix..).unwrap_or_default(),
        new_bytes.get(prefix..).unwrap_or_default(),
    );
    if prefix == old.len() && prefix == new.len() {
        return Vec::new();
    }
    // Whole lines: back to the start of the first changed line, on to the end of the last.
    let from = old_bytes.get(..prefix).and_then(|head| memchr::memrchr(b'\n', head)).map_or(0, |nl| nl + 1);
    let tail = old.len() - suffix;
    let to_line_end = memchr::memchr(b'\n', old_bytes.get(tail..).unwrap_or_default()).map_or(suffix, |nl| nl + 1);
    let old_lines = line_ranges(old_bytes, from, tail + to_line_end);
    let new_lines = line_ranges(new_bytes, from, new.len() - suffix + to_line_end);
    let (old_texts, new_texts) = (line_texts(old_bytes, &old_lines), line_texts(new_bytes, &new_lines));
    let lines = old_texts.len() + new_texts.len();
    let deadline = (lines > UNTIMED_LINES).then(|| Instant::now() + places_timeout(lines));
    let ops = similar::capture_diff_slices_deadline(similar::Algorithm::Myers, &old_texts, &new_texts, deadline);
    let span = |lines: &[Range<usize>], range: Range<usize>| {
        let start = lines.get(range.start).map_or_else(|| lines.last().map_or(from, |line| line.end), |l| l.start);
        let end = if range.end > range.start { lines[range.end - 1].end } else { start };
        start..end
    };
    let mut found: Vec<(Range<usize>, Range<usize>)> = Vec::new();
    let mut open: Option<(Range<usize>, Range<usize>)> = None;
    for op in ops {
        if op.tag() == similar::DiffTag::Equal {
            found.extend(open.take());
            continue;
        }
        let (old_range, new_range) = (op.old_range(), op.new_range());
        open = Some(match open.take() {
            Some((old_open, new_open)) => (old_open.start..old_range.end, new_open.start..new_range.end),
            None => (old_range, new_range),
        });
    }
    found.extend(open);
    found.into_iter().map(|(old_range, new_range)| (span(&old_lines, old_range), span(&new_lines, new_range))).collect()
}

/// The places where `old` and `new` differ, as [`places`] gives them, when both have as many
/// lines: each line compared with the line of the same number, the differing lines next to
/// each other taken as one place. `None` when the line counts differ (lines were added or
/// removed: [`places`] aligns them). A comparison of bytes, without a diff.
pub(crate) fn same_line_places(old: &str, new: &str) -> Option<Vec<(Range<usize>, Range<usize>)>> {
    let (old_bytes, new_bytes) = (old.as_bytes(), new.as_bytes());
    if memchr::memchr_iter(b'\n', old_bytes).count() != memchr::memchr_iter(b'\n', new_bytes).count() {
        return None;
    }
    let mut found: Vec<(Range<usize>, Range<usize>)> = Vec::new();
    let (mut old_at, mut new_at) = (0, 0);
    loop {
        let (old_rest, new_rest) = (old_bytes.get(old_at..)?, new_bytes.get(new_at..)?);
        let same = editkit_matcher::diff::common_prefix_len(old_rest, new_rest);
        if same == old_rest.len() && same == new_rest.len() {
            return Some(found);
        }
        // The differing line, from its start (the same in both) to its end in each.
        let back = old_rest.get(..same).and_then(|head| memchr::memrchr(b'\n', head)).map_or(0, |nl| nl + 1);
        let (old_start, new_start) = (old_at + back, new_at + back);
        let line_end = |bytes: &[u8], from: usize| {
            memchr::memchr(b'\n', bytes.get(from..).unwrap_or_default()).map_or(bytes.len(), |nl| from + nl + 1)
        };
        let (old_end, new_end) = (line_end(old_bytes, old_start), line_end(new_bytes, new_start));
        match found.last_mut() {
            Some((old_last, new_last)) if old_last.end == old_start => {
                old_last.end = old_end;
                new_last.end = new_end;
            }
            _ => found.push((old_start..old_end, new_start..new_end)),
        }
        (old_at, new_at) = (old_end, new_end);
    }
}

fn line_texts<'t>(bytes: &'t [u8], lines: &[Range<usize>]) -> Vec<&'t [u8]> {
    lines.iter().map(|line| bytes.get(line.clone()).unwrap_or_default()).collect()
}

/// Up to how many lines, old and new together, [`places`] compares without a deadline.
const UNTIMED_LINES: usize = 4096;

/// How long [`places`] compares lines before it takes what is left as one place, at least.
const PLACES_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(20);

/// How long [`places`] may compare `lines` lines (old and new together): [`PLACES_TIMEOUT`]
/// plus 250 ns a line. A few places far apart in a large file are found in a few ms, but the
/// deadline is wall time: on a loaded machine a fixed 20 ms passed while the comparison was
/// waiting for a core, and the places between became one place too large to parse. The
/// budget grows with what is compared (about 270 ms for a million lines), still bounding a
/// diff of everything against everything.
fn places_timeout(lines: usize) -> std::time::Duration {
    PLACES_TIMEOUT + std::time::Duration::from_nanos(u64::try_from(lines).unwrap_or(u64::MAX).saturating_mul(250))
}

/// The places of a change (as [`places`] gives them), found within `windows`: pairs of line
/// ranges (old lines and new lines, 0-based, in order) outside which `old` and `new` are the
/// same, such as a patch's hunks give. Only the lines in the windows are diffed. `None` when
/// the windows do not hold: out of order, past a text's end, or a line outside them differs.
pub(crate) fn places_within(
    old: &str,
    new: &str,
    windows: &[editkit_matcher::diff::Window],
) -> Option<Vec<(Range<usize>, Range<usize>)>> {
    let (old_bytes, new_bytes) = (old.as_bytes(), new.as_bytes());
    let (mut old_lines, mut new_lines) = (LineStarts::new(old_bytes), LineStarts::new(new_bytes));
    // The windows' bytes, those that meet made one.
    let mut spans: Vec<(Range<usize>, Range<usize>)> = Vec::with_capacity(windows.len());
    for (old_window, new_window) in windows {
        let old_span = old_lines.at(old_window.start)?..old_lines.at(old_window.end)?;
        let new_span = new_lines.at(new_window.start)?..new_lines.at(new_window.end)?;
        match spans.last_mut() {
            Some((old_last, new_last)) if old_span.start == old_last.end && new_span.start == new_last.end => {
                old_last.end = old_span.end;
                new_last.end = new_span.end;
            }
            _ => spans.push((old_span, new_span)),
        }
    }
    // Between the windows, and before and after them, the texts are the same.
    let (mut old_at, mut new_at) = (0, 0);
    let ends = (old.len()..old.len(), new.len()..new.len());
    for (old_span, new_span) in spans.iter().chain(std::iter::once(&ends)) {
        if old_bytes.get(old_at..old_span.start)? != new_bytes.get(new_at..new_span.start)? {
            return None;
        }
        (old_at, new_at) = (old_span.end, new_span.end);
    }
    let mut found = Vec::new();
    for (old_span, new_span) in spans {
        let (old_part, new_part) = (old.get(old_span.clone())?, new.get(new_span.clone())?);
        for (old_place, new_place) in places(old_part, new_part) {
            found.push((
                old_span.start + old_place.start..old_span.start + old_place.end,
                new_span.start + new_place.start..new_span.start + new_place.end,
            ));
        }
    }
    Some(found)
}

/// The start of each line of a text, asked for in order ([`places_within`]).
struct LineStarts<'t> {
    bytes: &'t [u8],
    /// The line that starts at `at`.
    line: usize,
    at: usize,
}

impl<'t> LineStarts<'t> {
    fn new(bytes: &'t [u8]) -> Self {
        LineStarts { bytes, line: 0, at: 0 }
    }

    /// Where line `line` (0-based) starts: the text's end for the line after the last; `None`
    /// past it, or for a line before one asked for already.
    fn at(&mut self, line: usize) -> Option<usize> {
        let lines = line.checked_sub(self.line)?;
        let bytes = self.bytes;
        let at = editkit_matcher::diff::skip_lines(bytes, self.at, lines).or_else(|| {
            // The line after a last line without a line end.
            let last = editkit_matcher::diff::skip_lines(bytes, self.at, lines.checked_sub(1)?)?;
            (last < bytes.len() && !bytes.ends_with(b"\n")).then_some(bytes.len())
        })?;
        (self.line, self.at) = (line, at);
        Some(at)
    }
}

/// The lines of `bytes[from..to]`, each with its line end.
fn line_ranges(bytes: &[u8], from: usize, to: usize) -> Vec<Range<usize>> {
    let mut lines = Vec::new();
    let mut start = from;
    for nl in memchr::memchr_iter(b'\n', bytes.get(from..to).unwrap_or_default()) {
        lines.push(start..from + nl + 1);
        start = from + nl + 1;
    }
    if start < to {
        lines.push(start..to);
    }
    lines
}

/// The regions of a change made in several places (see [`places`]), one per group of places
/// whose statements do not meet, by the scan `L`; the old text is scanned once, the new one
/// only around each region. `None` when a place cannot be checked alone (its statements stay
/// open past the change, or their boundaries are not established): the caller then takes the
/// change as one region.
pub(crate) fn regions<'t, L: Lex<'t>>(
    old: &'t str,
    new: &'t str,
    found_places: Option<Vec<(Range<usize>, Range<usize>)>>,
) -> Option<Vec<Region>> {
    let (old_bytes, new_bytes) = (old.as_bytes(), new.as_bytes());
    if crate::parse::bom_len(old) != crate::parse::bom_len(new) {
        return None;
    }
    let places = found_places.unwrap_or_else(|| places(old, new));
    if places.len() < 2 {
        return None;
    }
    let mut old_scan = L::new(old_bytes);
    // The code lines of each region, for narrowing it without scanning it again.
    old_scan.record_lines();
    let mut starts = vec![0];
    // The new text's offset minus the old one's, before the place at hand.
    let mut delta: isize = 0;
    // Lines of the new text before `counted`.
    let (mut counted, mut lines) = (0, 0);
    let mut found = Vec::new();
    let mut next = 0;
    while next < places.len() {
        let place = next;
        let prefix = places[place].0.start;
        let after_change = loop {
            match old_scan.next_boundary() {
                Some(at) if at < prefix => {
                    starts.push(at);
                    if starts.len() > 2 * KEPT_STARTS {
                        starts.drain(1..=KEPT_STARTS);
                    }
                }
                other => break other,
            }
        };
        if old_scan.anomaly().is_some_and(|anomaly| anomaly.at() < prefix) {
            return None;
        }
        let shift = |at: usize, delta: isize| usize::try_from(at as isize + delta).ok();
        let start = loop {
            let candidate = starts.pop()?;
            if L::line_starts(new_bytes, shift(candidate, delta)?) {
                break candidate;
            }
        };
        let previous = starts.last().copied();
        let new_start = shift(start, delta)?;
        let mut new_scan = L::resume(new_bytes, new_start);
        let mut last = place;
        let mut change_delta = delta + places[last].1.len() as isize - places[last].0.len() as isize;
        let (mut old_next, mut new_next) = (after_change, new_scan.next_boundary());
        let (old_end, new_end) = loop {
            let (old_change_end, new_change_end) = (places[last].0.end, places[last].1.end);
            let limit = old_change_end.saturating_add(MAX_SETTLE_BYTES);
            while old_next.is_some_and(|boundary| boundary < old_change_end) {
                old_next = old_scan.next_boundary();
            }
            while new_next.is_some_and(|boundary| boundary < new_change_end) {
                new_next = new_scan.next_boundary();
            }
            // Statements that reach the next place take it into the region.
            if let Some(following) = places.get(last + 1)
                && old_next.is_none_or(|boundary| boundary >= following.0.start)
            {
                last += 1;
                change_delta += following.1.len() as isize - following.0.len() as isize;
                continue;
            }
            match (old_next, new_next) {
                (Some(old_at), Some(new_at)) => {
                    if old_at > limit {
                        return None;
                    }
                    match (old_at as isize + change_delta).cmp(&(new_at as isize)) {
                        std::cmp::Ordering::Equal => break (old_at, new_at),
                        std::cmp::Ordering::Less => old_next = old_scan.next_boundary(),
                        std::cmp::Ordering::Greater => new_next = new_scan.next_boundary(),
                    }
                }
                (None, None) if old_scan.anomaly().is_none() && new_scan.anomaly().is_none() => {
                    break (old.len(), new.len());
                }
                _ => return None,
            }
        };
        if old_scan.anomaly().is_some_and(|anomaly| anomaly.at() < old_end) {
            return None;
        }
        lines += memchr::memchr_iter(b'\n', new_bytes.get(counted..new_start).unwrap_or_default()).count();
        counted = new_start;
        found.push(Region {
            start,
            old_end,
            new_start,
            new_end,
            lines_before: lines,
            previous,
            changed: places[place].1.start..places[last].1.end,
            places: places.get(place..=last).unwrap_or_default().to_vec(),
            unsettled: None,
            code_lines: old_scan.take_lines(start, old_end),
        });
        // The region's end is a boundary of both texts: the next region's earliest start.
        starts = vec![old_end];
        delta = change_delta;
        next = last + 1;
    }
    Some(found)
}

/// A region of Python narrowed to statements inside one block, parsed after `headers`: lines
/// that open the blocks around it as the grammar and the stricter checks see them (see
/// [`opener_like`]), on as many lines as the openers of the old text (`openers`, their code
/// line indexes), which are the same in the new one.
#[derive(Debug, Clone)]
pub(crate) struct Narrowed {
    pub(crate) region: Region,
    pub(crate) headers: String,
    pub(crate) header_lines: usize,
    openers: Vec<usize>,
}

/// What a block's opening line (`code`, after its indentation) is parsed as before a narrowed
/// region: only its kind decides how the block's statements parse and what the stricter
/// checks judge in them (a `return` needs a function, an `await` an async one, a `break` a
/// loop), so a short line of that kind stands for it, the rest a plain `if 1:`. `None` for a
/// line that opens no block (a text already broken there), which is parsed as it is.
fn opener_like(code: &[u8]) -> Option<&'static str> {
    let word = |word: &str| starts_with_word(code, word.as_bytes());
    let after_async = code
        .strip_prefix(b"async")
        .filter(|rest| rest.first().is_some_and(|&byte| matches!(byte, b' ' | b'\t' | b'\x0c')))
        .map(<[u8]>::trim_ascii_start);
    let async_word = |word: &str| after_async.is_some_and(|rest| starts_with_word(rest, word.as_bytes()));
    let like = if word("def") {
        "def f():"
    } else if async_word("def") {
        "async def f():"
    } else if word("class") {
        "class C:"
    } else if word("for") {
        "for _ in _:"
    } else if async_word("for") {
        "async for _ in _:"
    } else if word("while") {
        "while 1:"
    } else if ["if", "elif", "else", "try", "except", "finally", "with", "match", "case"].iter().any(|&kind| word(kind))
        || async_word("with")
    {
        "if 1:"
    } else {
        return None;
    };
    Some(like)
}

/// The lines of `opener` (a block's opening line, up to the next code line) without the
/// comment and blank lines after its last line of code: they change no token, and a class's
/// comment block can be longer than the statements a check parses after it. Kept whole when
/// that line ends in a backslash (a comment line after it would end the statement).
fn code_only(opener: &str) -> &str {
    let mut end = opener.len();
    for line in opener.split_inclusive('\n').rev() {
        let code = line.trim_start_matches([' ', '\t', '\x0c']);
        if !(code.starts_with('#') || code.trim_end_matches(['\r', '\n', ' ', '\t', '\x0c']).is_empty()) {
            break;
        }
        end -= line.len();
    }
    let kept = opener.get(..end).unwrap_or(opener);
    if end == 0 || kept.trim_end_matches(['\r', '\n']).ends_with('\\') { opener } else { kept }
}

/// The leading spaces and tabs of the line at `at`.
fn indent_of(text: &[u8], at: usize) -> &[u8] {
    let line = text.get(at..).unwrap_or_default();
    let width = line.iter().take_while(|&&byte| byte == b' ' || byte == b'\t').count();
    line.get(..width).unwrap_or_default()
}

/// Whether a line (at `at`, indented by `indent`) continues the statement before it at its
/// level: an `else`/`elif`/`except`/`finally` clause.
fn continues(text: &[u8], at: usize, indent: usize) -> bool {
    let line = text.get(at + indent..).unwrap_or_default();
    ["else", "elif", "except", "finally"].iter().any(|word| starts_with_word(line, word.as_bytes()))
}

/// The code lines (outside strings, brackets and continuations) of `text[from..to]`, `from`
/// being a top-level statement start; `None` when the scan finds something wrong there.
fn code_lines(text: &[u8], from: usize, to: usize) -> Option<Vec<usize>> {
    let mut scan = Scanner::at_line(text, from);
    scan.every_line = true;
    let mut lines = vec![from];
    while let Some(at) = scan.next_boundary() {
        if at >= to {
            break;
        }
        lines.push(at);
    }
    if scan.anomaly.is_some_and(|anomaly| anomaly.at() < to) {
        return None;
    }
    Some(lines)
}

/// The code lines of `text[from..to]` as [`code_lines`] finds them, scanned only as far as
/// they are asked for.
struct CodeLines<'t> {
    scan: Scanner<'t>,
    lines: Vec<usize>,
    to: usize,
    ended: bool,
}

impl<'t> CodeLines<'t> {
    /// The code lines from `from`, a top-level statement start, up to `to`.
    fn new(text: &'t [u8], from: usize, to: usize) -> Self {
        let mut scan = Scanner::at_line(text, from);
        scan.every_line = true;
        CodeLines { scan, lines: vec![from], to, ended: false }
    }

    /// The start of code line `index`; `None` past the last one before `to`.
    fn get(&mut self, index: usize) -> Option<usize> {
        while self.lines.len() <= index && !self.ended {
            match self.scan.next_boundary() {
                Some(at) if at < self.to => self.lines.push(at),
                _ => self.ended = true,
            }
        }
        self.lines.get(index).copied()
    }

    /// Whether the scan so far found nothing wrong before `to`.
    fn clean(&self) -> bool {
        self.scan.anomaly.is_none_or(|anomaly| anomaly.at() >= self.to)
    }
}

/// Regions narrower than the top-level `top` (Python): each place it holds checked on the
/// statements of the innermost block holding it, found by indentation on the code lines of
/// the old text, and parsed after the lines opening the blocks around (from the old text:
/// they are outside every place). `None` when a place cannot be narrowed (it touches
/// column 0, changes indentation past its block, or the block's lines are not established):
/// the caller checks `top` whole, as it does a region holding a form feed: CPython and
/// tree-sitter count a line's indentation from the last one before its code, which the
/// indentation compared here as bytes does not.
pub(crate) fn narrow(old: &str, new: &str, top: &Region) -> Option<Vec<Narrowed>> {
    let form_feed =
        |text: &str, range: Range<usize>| memchr::memchr(b'\x0c', text.as_bytes().get(range).unwrap_or_default());
    if form_feed(old, top.start..top.old_end).is_some() || form_feed(new, top.new_start..top.new_end).is_some() {
        return None;
    }
    let lines = match &top.code_lines {
        Some(lines) => lines.clone(),
        None => code_lines(old.as_bytes(), top.start, top.old_end)?,
    };
    let places = whole_places(old, new, top);
    let narrowing = Narrowing { old, new, top, lines, places };
    let mut found: Vec<Narrowed> = Vec::new();
    let mut delta = top.new_start as isize - top.start as isize;
    let mut next = 0;
    while next < narrowing.places.len() {
        let (mut narrowed, change_delta, last_place) = narrowing.place(next, delta)?;
        // Regions that overlap are one: a region of an outer block that holds the one before
        // takes its places; one of the same block goes from the first one's start to the
        // second one's end, a boundary of that level in the common tail.
        while let Some(before) = found.pop_if(|before| before.region.old_end > narrowed.region.start) {
            if narrowed.region.start <= before.region.start {
                if !before.openers.starts_with(&narrowed.openers) {
                    return None;
                }
                narrowed.region.changed.start = before.region.changed.start;
                let mut places = before.region.places;
                places.append(&mut narrowed.region.places);
                narrowed.region.places = places;
                continue;
            }
            let level = |region: &Region| indent_of(old.as_bytes(), region.start);
            if before.openers != narrowed.openers || level(&before.region) != level(&narrowed.region) {
                return None;
            }
            let mut merged = before;
            merged.region.old_end = narrowed.region.old_end;
            merged.region.new_end = narrowed.region.new_end;
            merged.region.changed.end = narrowed.region.changed.end;
            merged.region.places.append(&mut narrowed.region.places);
            narrowed = merged;
        }
        found.push(narrowed);
        delta = change_delta;
        next = last_place + 1;
    }
    Some(found)
}

/// The places of `top` as whole lines (the same lines around each in both texts, so each
/// keeps its length difference); places that then share a line are one.
fn whole_places(old: &str, new: &str, top: &Region) -> Vec<(Range<usize>, Range<usize>)> {
    let (old_bytes, new_bytes) = (old.as_bytes(), new.as_bytes());
    // The bytes after each place are the same in both texts: both ends go on by the same
    // count, to the end of the line, when either ends inside one.
    let at_line_start = |text: &[u8], at: usize| at == 0 || text.get(at - 1) == Some(&b'\n');
    let whole = |old_place: &Range<usize>, new_place: &Range<usize>| {
        let back = old_place.start
            - memchr::memrchr(b'\n', old_bytes.get(..old_place.start).unwrap_or_default()).map_or(0, |nl| nl + 1);
        let on = if at_line_start(old_bytes, old_place.end) && at_line_start(new_bytes, new_place.end) {
            0
        } else {
            memchr::memchr(b'\n', old_bytes.get(old_place.end..).unwrap_or_default())
                .map_or(old.len() - old_place.end, |nl| nl + 1)
        };
        (
            old_place.start - back..(old_place.end + on).max(old_place.start - back),
            new_place.start.saturating_sub(back)..(new_place.end + on).max(new_place.start.saturating_sub(back)),
        )
    };
    // Whole lines put before or after the old lines of a place, which a diff of characters
    // can give as a change of those lines, are an insertion of those lines alone.
    let inserted = |(old_place, new_place): (Range<usize>, Range<usize>)| {
        let was = old_bytes.get(old_place.clone()).unwrap_or_default();
        let now = new_bytes.get(new_place.clone()).unwrap_or_default();
        let lines = |text: &[u8]| text.ends_with(b"\n");
        if was.is_empty() || now.len() <= was.len() {
            (old_place, new_place)
        } else if now.ends_with(was) && lines(now.get(..now.len() - was.len()).unwrap_or_default()) {
            (old_place.start..old_place.start, new_place.start..new_place.end - was.len())
        } else if now.starts_with(was) && lines(was) && lines(now) {
            (old_place.end..old_place.end, new_place.start + was.len()..new_place.end)
        } else {
            (old_place, new_place)
        }
    };
    let mut places: Vec<(Range<usize>, Range<usize>)> = Vec::with_capacity(top.places.len());
    for (old_place, new_place) in &top.places {
        let (old_place, new_place) = whole(old_place, new_place);
        match places.last_mut() {
            Some((old_last, new_last)) if old_last.end > old_place.start => {
                old_last.end = old_place.end;
                new_last.end = new_place.end;
            }
            _ => places.push((old_place, new_place)),
        }
    }
    // Each place whole, once places that share a line are one.
    places.into_iter().map(inserted).collect()
}

/// What [`narrow`] works on: both texts, the top-level region, the old text's code lines in
/// it and its places as whole lines.
struct Narrowing<'t> {
    old: &'t str,
    new: &'t str,
    top: &'t Region,
    lines: Vec<usize>,
    places: Vec<(Range<usize>, Range<usize>)>,
}

/// The block a place is checked in: the first and last code lines (old text) of the place
/// and of the block's statements before it, and the line that opens the block.
struct Block {
    first: usize,
    last: usize,
    header: usize,
}

impl Narrowing<'_> {
    /// The indentation of code line `index` of the old text.
    fn indent(&self, index: usize) -> &[u8] {
        indent_of(self.old.as_bytes(), self.lines[index])
    }

    /// Where code line `index` ends: at the next one, or at the region's end.
    fn line_end(&self, index: usize) -> usize {
        self.lines.get(index + 1).copied().unwrap_or(self.top.old_end)
    }

    /// The region for place `next` (and the places after it it takes in), the length
    /// difference of the texts after it, and the last place it holds; `delta` is the
    /// difference before it.
    fn place(&self, next: usize, delta: isize) -> Option<(Narrowed, isize, usize)> {
        let (old_place, new_place) = self.places[next].clone();
        let block = self.block(&old_place, &new_place)?;
        let new_bytes = self.new.as_bytes();
        let body = self.indent(block.header + 1);
        let width = body.len();
        let new_text = new_bytes.get(new_place.clone()).unwrap_or_default();
        let same_block = |line: &[u8]| line.len() < width || line.starts_with(body);
        if !(block.first..=block.last).all(|index| same_block(self.indent(index)))
            || !new_text.split(|&byte| byte == b'\n').all(|line| same_block(indent_of(line, 0)))
        {
            return None;
        }
        let at_place = self.at_place(&block, body, &old_place, new_text);
        let start = at_place.unwrap_or_else(|| self.start_in(&block, body));
        let (headers, openers) = self.headers(start)?;
        // Forward until both texts reach a boundary at the same place of their common tail.
        let new_start =
            usize::try_from(self.lines[start] as isize + self.delta_at(self.lines[start], next, delta)?).ok()?;
        let mut new_lines = CodeLines::new(new_bytes, new_start, self.top.new_end);
        let change_delta = delta + new_place.len() as isize - old_place.len() as isize;
        // Statements inserted whole before the place's own line leave that line to lex and
        // parse as it did: the region ends where they do (else after the line they touch).
        let last = match at_place {
            Some(index) if inserts_whole(&old_place, new_text, body) => index.checked_sub(1)?,
            _ => block.last,
        };
        let tail = Tail { next, last, body, change_delta };
        let (old_end, new_end, last_place, change_delta) = self.end(&tail, &mut new_lines)?;
        // Past the region's end the new text lexes as the old one does, up to the next
        // place, whose own region scans it: what was scanned is all that can be wrong here.
        if !new_lines.clean() {
            return None;
        }
        let lines_before = self.top.lines_before
            + memchr::memchr_iter(b'\n', new_bytes.get(self.top.new_start..new_start).unwrap_or_default()).count();
        let region = Region {
            start: self.lines[start],
            old_end,
            new_start,
            new_end,
            lines_before,
            previous: None,
            changed: new_place.start..self.places[last_place].1.end,
            places: self.places.get(next..=last_place).unwrap_or_default().to_vec(),
            unsettled: None,
            code_lines: None,
        };
        let header_lines = memchr::memchr_iter(b'\n', headers.as_bytes()).count();
        Some((Narrowed { region, header_lines, headers, openers }, change_delta, last_place))
    }

    /// The new text's offset minus the old one's at `at`, a line start of the old text at or
    /// before place `next`, where the difference is `delta`: the places that start before
    /// `at` have been made (one that starts there has not). Walks back only over the places
    /// from `at` on. `None` when `at` is inside a place.
    fn delta_at(&self, at: usize, next: usize, delta: isize) -> Option<isize> {
        let mut delta = delta;
        for (old_place, new_place) in self.places.get(..next).unwrap_or_default().iter().rev() {
            if old_place.start < at {
                return (old_place.end <= at).then_some(delta);
            }
            delta -= new_place.len() as isize - old_place.len() as isize;
        }
        Some(delta)
    }

    /// The innermost block holding a place whose first line's indentation it keeps: `None`
    /// when the place reaches column 0 or its block's body is not indented past its header.
    fn block(&self, old_place: &Range<usize>, new_place: &Range<usize>) -> Option<Block> {
        let (old_bytes, new_bytes) = (self.old.as_bytes(), self.new.as_bytes());
        let lines = &self.lines;
        // The code lines the place touches: an insertion touches the lines on both sides,
        // unless it puts whole statements before a statement of its own level (then the
        // lines before lex as they did).
        let (from, to) = if old_place.is_empty() {
            let from = if self.inserts_statements(old_place, new_place) {
                old_place.start
            } else {
                old_place.start.saturating_sub(1)
            };
            (from, old_place.start + 1)
        } else {
            (old_place.start, old_place.end)
        };
        let first = lines.partition_point(|&at| at <= from).checked_sub(1)?;
        let last = lines.partition_point(|&at| at < to).checked_sub(1)?.max(first);
        let old_min = (first..=last).map(|index| self.indent(index).len()).min()?;
        // The new lines' own indentation bounds the block too (a line moved left leaves it).
        let new_text = new_bytes.get(new_place.clone()).unwrap_or_default();
        let new_min = new_text
            .split(|&byte| byte == b'\n')
            .filter(|line| line.iter().any(|byte| !matches!(byte, b' ' | b'\t' | b'\r' | b'\x0c')))
            .map(|line| line.iter().take_while(|&&byte| byte == b' ' || byte == b'\t').count())
            .min()
            .unwrap_or(usize::MAX);
        let (mut first, mut least) = (first, old_min.min(new_min));
        let header = loop {
            if least == 0 || first == 0 {
                return None;
            }
            // The block: the nearest line before with less indentation opens it.
            let header = (0..first).rev().find(|&index| self.indent(index).len() < least)?;
            // A change to the first line of a block's first statement can change the block's
            // indentation, which decides the lines after it: such a place is checked in the
            // block around that one, from the line opening it. (A place on its later lines,
            // as in a docstring, leaves the indentation as it was, as does one whose new first
            // line is code indented as the old one was.)
            let keeps_indent = |line: usize| {
                let own = indent_of(old_bytes, line);
                let new_line = new_bytes.get(new_place.start..).unwrap_or_default();
                old_place.start == line
                    && !new_place.is_empty()
                    && new_line.starts_with(own)
                    && new_line
                        .get(own.len())
                        .is_some_and(|&byte| !matches!(byte, b' ' | b'\t' | b'\x0c' | b'\r' | b'\n' | b'#'))
            };
            if first > header + 1
                || lines.get(header + 1).is_some_and(|&line| old_place.start > line || keeps_indent(line))
            {
                break header;
            }
            (first, least) = (header, self.indent(header).len().min(new_min));
        };
        let width = self.indent(header + 1).len();
        if width > least || width <= self.indent(header).len() {
            return None;
        }
        Some(Block { first, last, header })
    }

    /// Whether an insertion puts whole lines before a code line, the first of them code at
    /// that line's indentation and no clause: then it starts a statement of that line's
    /// level, and the line before keeps its tokens (an insertion after a block's opening
    /// line stays in that block).
    fn inserts_statements(&self, old_place: &Range<usize>, new_place: &Range<usize>) -> bool {
        let old_bytes = self.old.as_bytes();
        let new_text = self.new.as_bytes().get(new_place.clone()).unwrap_or_default();
        if !old_place.is_empty() || !new_text.ends_with(b"\n") || self.lines.binary_search(&old_place.start).is_err() {
            return false;
        }
        let own = indent_of(old_bytes, old_place.start);
        let Some(code) = new_text.strip_prefix(own) else { return false };
        let opens_code = code.first().is_some_and(|&byte| {
            byte.is_ascii_alphanumeric() || byte >= 0x80 || matches!(byte, b'_' | b'(' | b'[' | b'{' | b'"' | b'\'')
        });
        opens_code && !is_clause(code)
    }

    /// The code line of the place itself, when the region can start there rather than at the
    /// statement before: the place starts at a statement of the block's level (not a clause
    /// such as `else`, nor a definition under a decorator), and its new text starts with code
    /// at exactly that level that is not a clause either, so it closes the statement before
    /// as the old line did and lexes from there as a statement of the block. Not in a `match`
    /// block, whose statements are `case` clauses. `None` otherwise.
    fn at_place(&self, block: &Block, body: &[u8], old_place: &Range<usize>, new_text: &[u8]) -> Option<usize> {
        let old_bytes = self.old.as_bytes();
        let width = body.len();
        let index = self.lines.binary_search(&old_place.start).ok()?;
        if index <= block.header || index > block.first + 1 || indent_of(old_bytes, old_place.start) != body {
            return None;
        }
        let old_line = old_bytes.get(old_place.start + width..).unwrap_or_default();
        let header = old_bytes.get(self.lines[block.header]..).unwrap_or_default();
        let header = header.get(indent_of(header, 0).len()..).unwrap_or_default();
        let after_decorator = index > block.header + 1
            && indent_of(old_bytes, self.lines[index - 1]) == body
            && old_bytes.get(self.lines[index - 1] + width) == Some(&b'@');
        if is_clause(old_line) || starts_with_word(header, b"match") || after_decorator {
            return None;
        }
        let first = new_text.split(|&byte| byte == b'\n').next().unwrap_or_default();
        let code = first.strip_prefix(body)?;
        let opens_code = code.first().is_some_and(|&byte| {
            byte.is_ascii_alphanumeric()
                || byte >= 0x80
                || matches!(byte, b'_' | b'(' | b'[' | b'{' | b'"' | b'\'' | b'@')
        });
        (opens_code && !is_clause(code)).then_some(index)
    }

    /// The code line the region starts at: the statement before the place (new text at its
    /// end could continue it), or the block's first statement; a decorated definition at its
    /// first decorator.
    fn start_in(&self, block: &Block, body: &[u8]) -> usize {
        let old_bytes = self.old.as_bytes();
        let (header, width) = (block.header, body.len());
        let mut start = (header + 1..block.first)
            .rev()
            .find(|&index| boundary(old_bytes, self.lines[index], body))
            .unwrap_or(header + 1);
        while start > header + 1 && old_bytes.get(self.lines[start - 1] + width) == Some(&b'@') {
            start -= 1;
        }
        start
    }

    /// The lines opening the blocks around code line `start`, outermost first, as the region
    /// is parsed after them (see [`opener_like`]), and their code line indexes; `None` when a
    /// place touches one.
    fn headers(&self, start: usize) -> Option<(String, Vec<usize>)> {
        let mut openers = Vec::new();
        let mut level = self.indent(start).len();
        for index in (0..start).rev() {
            if self.indent(index).len() < level {
                openers.push(index);
                level = self.indent(index).len();
                if level == 0 {
                    break;
                }
            }
        }
        openers.reverse();
        let mut headers = String::new();
        for &index in &openers {
            let range = self.lines[index]..self.line_end(index);
            // The places are in order: the first that ends past the line's start is the one
            // that could touch it.
            let after = self.places.partition_point(|(place, _)| place.end.max(place.start + 1) <= range.start);
            if self.places.get(after).is_some_and(|(place, _)| place.start < range.end) {
                return None;
            }
            let opener = code_only(self.old.get(range)?);
            let own = self.indent(index);
            match opener_like(opener.get(own.len()..).unwrap_or_default().as_bytes()) {
                Some(like) => {
                    headers.push_str(std::str::from_utf8(own).ok()?);
                    headers.push_str(like);
                    headers.extend(std::iter::repeat_n('\n', memchr::memchr_iter(b'\n', opener.as_bytes()).count()));
                }
                None => headers.push_str(opener),
            }
        }
        Some((headers, openers))
    }

    /// Where the region ends in both texts: the first boundary of the block's level past the
    /// place (and past the places it reaches) at the same place of their common tail. Gives
    /// the ends, the last place taken in and the length difference after it; `None` when the
    /// block ends in either text first.
    fn end(&self, tail: &Tail<'_>, new_lines: &mut CodeLines<'_>) -> Option<(usize, usize, usize, isize)> {
        let (old_bytes, new_bytes) = (self.old.as_bytes(), self.new.as_bytes());
        let (lines, places, top) = (&self.lines, &self.places, self.top);
        let width = tail.body.len();
        // A boundary that is not the definition a decorator line just above belongs to.
        let boundary_after = |text: &[u8], lines: &[usize], index: usize| {
            boundary(text, lines[index], tail.body)
                && (index == 0
                    || indent_of(text, lines[index]).len() != width
                    || text.get(lines[index - 1] + width) != Some(&b'@')
                    || indent_of(text, lines[index - 1]).len() != width)
        };
        let mut last_place = tail.next;
        let mut change_delta = tail.change_delta;
        let mut old_index = tail.last + 1;
        let mut new_index = 0;
        loop {
            let (old_change_end, new_change_end) = (places[last_place].0.end, places[last_place].1.end);
            while old_index < lines.len()
                && (lines[old_index] < old_change_end || !boundary_after(old_bytes, lines, old_index))
            {
                old_index += 1;
            }
            while let Some(at) = new_lines.get(new_index)
                && (at < new_change_end || !boundary_after(new_bytes, &new_lines.lines, new_index))
            {
                new_index += 1;
            }
            let old_at = lines.get(old_index).copied().unwrap_or(top.old_end);
            let new_at = new_lines.get(new_index).unwrap_or(top.new_end);
            if let Some(following) = places.get(last_place + 1)
                && old_at >= following.0.start
            {
                last_place += 1;
                change_delta += following.1.len() as isize - following.0.len() as isize;
                continue;
            }
            // The block's end (a line left of its statements, or the top-level region's end)
            // is as far as a region inside it may go: past it the lines belong elsewhere.
            let old_ends = old_index >= lines.len() || indent_of(old_bytes, old_at).len() < width;
            let new_ends = new_lines.get(new_index).is_none() || indent_of(new_bytes, new_at).len() < width;
            match (old_at as isize + change_delta).cmp(&(new_at as isize)) {
                std::cmp::Ordering::Equal => return Some((old_at, new_at, last_place, change_delta)),
                std::cmp::Ordering::Less if !old_ends => old_index += 1,
                std::cmp::Ordering::Greater if !new_ends => new_index += 1,
                _ => return None,
            }
        }
    }
}

/// Whether an insertion's `new_text` is whole statements of a block whose statements are
/// indented by `body`, complete before the line after them: every line that holds anything
/// starts with that indentation (none leaves the block), and the last of them opens no block
/// (no `:` at its end), continues no line (no backslash) and holds no comment (which could
/// hide either). Brackets and strings left open are caught by the scan of the region's lines.
fn inserts_whole(old_place: &Range<usize>, new_text: &[u8], body: &[u8]) -> bool {
    if !old_place.is_empty() || !new_text.ends_with(b"\n") {
        return false;
    }
    let mut last = None;
    for line in new_text.split(|&byte| byte == b'\n') {
        if line.iter().all(|byte| matches!(byte, b' ' | b'\t' | b'\r' | b'\x0c')) {
            continue;
        }
        if !line.starts_with(body) {
            return false;
        }
        last = Some(line.trim_ascii_end());
    }
    last.is_some_and(|line| !line.ends_with(b":") && !line.ends_with(b"\\") && !line.contains(&b'#'))
}

/// Where [`Narrowing::end`] starts: the first place, the last code line it touches, the
/// block's statements' indentation and the length difference after the place.
struct Tail<'b> {
    next: usize,
    last: usize,
    body: &'b [u8],
    change_delta: isize,
}

/// Whether a line's code (after its indentation) is a clause that stands only after
/// another statement: `else`, `elif`, `except`, `finally` or `case`.
fn is_clause(code: &[u8]) -> bool {
    ["else", "elif", "except", "finally", "case"].iter().any(|word| starts_with_word(code, word.as_bytes()))
}

/// Whether the code line at `at` is a boundary at the level of a block whose statements are
/// indented by `body`: a statement start there, or a line left of it.
fn boundary(text: &[u8], at: usize, body: &[u8]) -> bool {
    let own = indent_of(text, at);
    own.len() < body.len() || (own == body && !continues(text, at, body.len()))
}

/// One open construct of a JavaScript or TypeScript scan.
#[derive(Debug, Clone, Copy)]
enum JsFrame {
    /// The text of a template literal opened at the offset.
    Template(usize),
    /// Inside `${...}` of a template: code with its own brace depth.
    Substitution(u32),
}

/// A lexical scan of JavaScript or TypeScript (without JSX) that yields the lines where a
/// top-level declaration starts: at column 0, outside strings, templates, comments, regular
/// expressions and brackets, with a keyword that opens a declaration or statement (`function`,
/// `class`, `const`, `export`, `import`, `interface`, `type`, ...) after a previous statement
/// that ended (the last token before is not an operator, an opening bracket or a keyword such
/// as `return` that takes an expression after it). A decorated declaration starts at its
/// first decorator.
pub(crate) struct JsScanner<'t> {
    text: &'t [u8],
    at: usize,
    frames: Vec<JsFrame>,
    brackets: Vec<(u8, usize)>,
    /// The last significant byte of code, and whether it ended a keyword that takes an
    /// expression after it.
    last: u8,
    last_keyword: bool,
    after_decorator: bool,
    anomaly: Option<Anomaly>,
}

/// Keywords a top-level declaration or statement starts with.
const JS_STARTS: &[&str] = &[
    "function",
    "class",
    "const",
    "let",
    "var",
    "export",
    "import",
    "interface",
    "type",
    "enum",
    "declare",
    "namespace",
    "module",
    "abstract",
    "async",
    "if",
    "for",
    "while",
    "do",
    "switch",
    "try",
    "return",
    "throw",
];

/// Keywords after which an expression follows: a line after one continues it.
const JS_EXPRESSION_KEYWORDS: &[&str] = &[
    "return",
    "typeof",
    "instanceof",
    "new",
    "delete",
    "void",
    "throw",
    "case",
    "do",
    "else",
    "in",
    "of",
    "yield",
    "await",
    "extends",
    "implements",
    "default",
    "export",
    "as",
    "is",
    "keyof",
    "readonly",
];

fn is_word(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$' || byte >= 0x80
}

impl<'t> JsScanner<'t> {
    fn at_line(text: &'t [u8], at: usize) -> Self {
        JsScanner {
            text,
            at,
            frames: Vec::new(),
            brackets: Vec::new(),
            last: b';',
            last_keyword: false,
            after_decorator: false,
            anomaly: None,
        }
    }

    fn flag(&mut self, anomaly: Anomaly) {
        self.anomaly.get_or_insert(anomaly);
    }

    /// Whether the previous statement ended: the last token is not an operator, an opening
    /// bracket, a `.` or a keyword that takes an expression.
    fn ended(&self) -> bool {
        !self.last_keyword && !b"=+-*/%&|^!~?:,([{<>.@".contains(&self.last)
    }

    /// Whether the line at `at` opens a declaration by its own bytes.
    fn line_opens(text: &[u8], at: usize) -> bool {
        let line = text.get(at..).unwrap_or_default();
        if line.first() == Some(&b'@') {
            return true;
        }
        JS_STARTS.iter().any(|word| {
            starts_with_word(line, word.as_bytes())
                // `type`, `module`, `let`... are also plain names: a name must follow.
                && line.get(word.len()) == Some(&b' ')
                && line.get(word.len() + 1).is_some_and(|&next| is_word(next) || matches!(next, b'{' | b'*' | b'['))
        })
    }

    /// Whether the line at `at`, reached in top-level state, starts a declaration; keeps
    /// track of decorators.
    fn starts_statement(&mut self, at: usize) -> bool {
        if !JsScanner::line_opens(self.text, at) || !self.ended() {
            // A line that does not open one, after a decorator, does not close it either.
            return false;
        }
        let decorated = std::mem::replace(&mut self.after_decorator, self.text.get(at) == Some(&b'@'));
        !decorated
    }

    fn top_level(&self) -> bool {
        self.frames.is_empty() && self.brackets.is_empty()
    }

    /// Marks the last significant token: `byte`, or the word that ends at `end`.
    fn note(&mut self, byte: u8, end: usize) {
        self.last = byte;
        self.last_keyword = false;
        if is_word(byte) {
            let text = self.text.get(..end).unwrap_or_default();
            let start = end - text.iter().rev().take_while(|&&b| is_word(b)).count();
            let word = text.get(start..).unwrap_or_default();
            self.last_keyword = JS_EXPRESSION_KEYWORDS.iter().any(|keyword| keyword.as_bytes() == word);
        }
    }

    /// Whether a `/` here starts a regular expression rather than a division.
    fn regex_allowed(&self) -> bool {
        self.last_keyword || !(is_word(self.last) || matches!(self.last, b')' | b']' | b'\'' | b'"' | b'`'))
    }

    fn skip_quoted(&mut self, start: usize, quote: u8) {
        let text = self.text;
        let mut i = start + 1;
        while let Some(&byte) = text.get(i) {
            match byte {
                b'\\' => i += if text.get(i + 1) == Some(&b'\r') && text.get(i + 2) == Some(&b'\n') { 3 } else { 2 },
                b'\n' => {
                    self.flag(Anomaly::Unterminated { at: start });
                    self.at = i;
                    return;
                }
                _ if byte == quote => {
                    self.at = i + 1;
                    self.note(quote, i + 1);
                    return;
                }
                _ => i += 1,
            }
        }
        self.flag(Anomaly::Unterminated { at: start });
        self.at = text.len();
    }

    fn skip_regex(&mut self, start: usize) {
        let text = self.text;
        let mut i = start + 1;
        let mut class = false;
        while let Some(&byte) = text.get(i) {
            match byte {
                b'\\' => i += 2,
                b'\n' => {
                    self.flag(Anomaly::Unterminated { at: start });
                    self.at = i;
                    return;
                }
                b'[' => {
                    class = true;
                    i += 1;
                }
                b']' => {
                    class = false;
                    i += 1;
                }
                b'/' if !class => {
                    i += 1;
                    while text.get(i).is_some_and(|&flag| is_word(flag)) {
                        i += 1;
                    }
                    self.at = i;
                    self.note(b'/', i);
                    // A regex is a value: what follows it is not a regex start.
                    self.last = b')';
                    return;
                }
                _ => i += 1,
            }
        }
        self.flag(Anomaly::Unterminated { at: start });
        self.at = text.len();
    }

    /// Scans template text up to its end or a `${`.
    fn template(&mut self) {
        let text = self.text;
        let mut i = self.at;
        while let Some(&byte) = text.get(i) {
            match byte {
                b'\\' => i += 2,
                b'`' => {
                    self.frames.pop();
                    self.at = i + 1;
                    self.note(b'`', i + 1);
                    return;
                }
                b'$' if text.get(i + 1) == Some(&b'{') => {
                    self.frames.push(JsFrame::Substitution(0));
                    self.at = i + 2;
                    self.last = b'{';
                    self.last_keyword = false;
                    return;
                }
                _ => i += 1,
            }
        }
        self.at = text.len();
    }

    /// Scans code up to one state change; a boundary when a line end leads to one.
    fn code(&mut self) -> Option<usize> {
        let text = self.text;
        let i = self.at;
        let &byte = text.get(i)?;
        self.at = i + 1;
        match byte {
            b'\n' => {
                if self.top_level() && self.starts_statement(i + 1) {
                    return Some(i + 1);
                }
            }
            b' ' | b'\t' | b'\r' | b'\x0c' => {}
            b'/' if text.get(i + 1) == Some(&b'/') => {
                self.at = memchr::memchr(b'\n', text.get(i..).unwrap_or_default()).map_or(text.len(), |nl| i + nl);
            }
            b'/' if text.get(i + 1) == Some(&b'*') => {
                match memchr::memmem::find(text.get(i + 2..).unwrap_or_default(), b"*/") {
                    Some(end) => self.at = i + 2 + end + 2,
                    None => {
                        self.flag(Anomaly::Unterminated { at: i });
                        self.at = text.len();
                    }
                }
            }
            b'/' if self.regex_allowed() => self.skip_regex(i),
            b'\'' | b'"' => self.skip_quoted(i, byte),
            b'`' => {
                self.frames.push(JsFrame::Template(i));
                self.last = b'`';
            }
            b'(' | b'[' | b'{' => {
                if let Some(JsFrame::Substitution(depth)) = self.frames.last_mut() {
                    *depth += 1;
                } else {
                    self.brackets.push((byte, i));
                }
                self.note(byte, i + 1);
            }
            b')' | b']' | b'}' => {
                match self.frames.last_mut() {
                    Some(JsFrame::Substitution(0)) if byte == b'}' => {
                        self.frames.pop();
                        return None;
                    }
                    Some(JsFrame::Substitution(depth)) => *depth = depth.saturating_sub(1),
                    _ => {
                        if let Some(anomaly) = close(&mut self.brackets, byte, i) {
                            self.flag(anomaly);
                        }
                    }
                }
                self.note(byte, i + 1);
            }
            _ if is_word(byte) => {
                let end = i + text.get(i..).unwrap_or_default().iter().take_while(|&&b| is_word(b)).count();
                self.at = end;
                self.note(byte, end);
            }
            _ => self.note(byte, i + 1),
        }
        None
    }
}

impl<'t> Lex<'t> for JsScanner<'t> {
    fn new(text: &'t [u8]) -> Self {
        let mut scanner = JsScanner::at_line(text, 0);
        scanner.starts_statement(0);
        scanner
    }

    fn resume(text: &'t [u8], at: usize) -> Self {
        let mut scanner = JsScanner::at_line(text, at);
        scanner.starts_statement(at);
        scanner
    }

    fn line_starts(text: &'t [u8], at: usize) -> bool {
        at == 0 || JsScanner::line_opens(text, at)
    }

    fn next_boundary(&mut self) -> Option<usize> {
        while self.at < self.text.len() {
            match self.frames.last().copied() {
                Some(JsFrame::Template(_)) => self.template(),
                _ => {
                    if let Some(boundary) = self.code() {
                        return Some(boundary);
                    }
                }
            }
        }
        if let Some(&(bracket, at)) = self.brackets.first() {
            self.flag(Anomaly::Unclosed { at, bracket });
        }
        if let Some(at) = self.frames.iter().find_map(|frame| match frame {
            JsFrame::Template(at) => Some(*at),
            JsFrame::Substitution(_) => None,
        }) {
            self.flag(Anomaly::Unterminated { at });
        }
        None
    }

    fn anomaly(&self) -> Option<Anomaly> {
        self.anomaly
    }

    fn open(&self) -> Option<Anomaly> {
        let bracket = self.brackets.first().map(|&(bracket, at)| Anomaly::Unclosed { at, bracket });
        let template = self.frames.iter().find_map(|frame| match frame {
            JsFrame::Template(at) => Some(Anomaly::Unterminated { at: *at }),
            JsFrame::Substitution(_) => None,
        });
        match (bracket, template) {
            (Some(bracket), Some(template)) => Some(if bracket.at() < template.at() { bracket } else { template }),
            (bracket, template) => bracket.or(template),
        }
    }
}

/// The top-level declarations of JavaScript or TypeScript text `old` (without JSX) that a
/// change to `new` touched, and their counterpart in `new`.
pub(crate) fn js_region(old: &str, new: &str) -> Result<Region, NoRegion> {
    region::<JsScanner<'_>>(old, new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opening_line_is_parsed_as_a_short_line_of_its_kind() {
        for (code, like) in [
            (&b"def method(self, a: int = 1) -> Dict[str, int]:  # c\n"[..], Some("def f():")),
            (b"async  def fetch(self):\n", Some("async def f():")),
            (b"async\tfor item in queue:\n", Some("async for _ in _:")),
            (b"async with lock:\n", Some("if 1:")),
            (b"class Fraction(numbers.Rational, metaclass=Meta):\n", Some("class C:")),
            (b"for key, value in items:\n", Some("for _ in _:")),
            (b"while not done:\n", Some("while 1:")),
            (b"with open(path) as file:\n", Some("if 1:")),
            (b"else:\n", Some("if 1:")),
            (b"except (OSError, ValueError) as error:\n", Some("if 1:")),
            (b"match command:\n", Some("if 1:")),
            // No block opens there (a text already broken), or a name that only starts like a
            // keyword: parsed as it is.
            (b"x = 1\n", None),
            (b"asyncdef(x): int\n", None),
            (b"definition = 2\n", None),
            (b"format(x)\n", None),
        ] {
            assert_eq!(opener_like(code), like, "{:?}", String::from_utf8_lossy(code));
        }
    }

    #[test]
    fn the_code_lines_a_region_scan_records_are_those_a_scan_of_the_region_finds() {
        let mut recorded = 0;
        for path in crate::python_corpus() {
            let old = std::fs::read_to_string(&path).expect("a corpus file");
            let lines: Vec<&str> = old.split_inclusive('\n').collect();
            // A `pass` before four lines spread over the file, at each one's indentation.
            let mut new = String::with_capacity(old.len() + 64);
            for (index, line) in lines.iter().enumerate() {
                if index % (lines.len() / 4).max(1) == lines.len() / 8 {
                    let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
                    new.push_str(&line[..indent]);
                    new.push_str("pass\n");
                }
                new.push_str(line);
            }
            let Some(regions) = regions::<Scanner<'_>>(&old, &new, None) else { continue };
            for region in regions {
                if let Some(lines) = &region.code_lines {
                    recorded += 1;
                    let scanned = code_lines(old.as_bytes(), region.start, region.old_end);
                    assert_eq!(Some(lines), scanned.as_ref(), "{} at {}", path.display(), region.start);
                }
            }
        }
        assert!(recorded > 20, "only {recorded} regions had their code lines recorded");
    }

    #[test]
    fn places_within_windows_that_hold_are_the_places_a_diff_finds() {
        let line_of = |text: &str, at: usize| memchr::memchr_iter(b'\n', &text.as_bytes()[..at]).count();
        let mut within = 0;
        for path in crate::python_corpus() {
            let old = std::fs::read_to_string(&path).expect("a corpus file");
            let lines: Vec<&str> = old.split_inclusive('\n').collect();
            let new: String = lines
                .iter()
                .enumerate()
                .map(|(index, line)| if index % 40 == 7 { format!("{line}x = {index}\n") } else { (*line).to_owned() })
                .collect();
            let diffed = places(&old, &new);
            // Each place's lines, with two lines around.
            let windows: Vec<editkit_matcher::diff::Window> = diffed
                .iter()
                .map(|(old_place, new_place)| {
                    let (old_start, new_start) = (line_of(&old, old_place.start), line_of(&new, new_place.start));
                    let back = old_start.min(new_start).min(2);
                    let (old_end, new_end) = (line_of(&old, old_place.end), line_of(&new, new_place.end));
                    (old_start - back..old_end, new_start - back..new_end)
                })
                .collect();
            assert_eq!(places_within(&old, &new, &windows), Some(diffed.clone()), "{}", path.display());
            within += usize::from(diffed.len() > 1);
            // A window left out: the lines outside the others differ.
            if let Some((_, rest)) = windows.split_first() {
                assert_eq!(places_within(&old, &new, rest), None, "{}", path.display());
            }
        }
        assert!(within > 10, "{within} files changed in several places");
        // A window to the end of a text whose last line has no line end; one past it.
        let (old, new) = ("a = 1\nb = 2\nc = 3", "a = 1\nb = 22\nc = 3");
        assert_eq!(places_within(old, new, &[(1..3, 1..3)]), Some(places(old, new)));
        assert_eq!(places_within(old, new, &[(1..4, 1..4)]), None);
    }

    #[test]
    fn a_header_is_parsed_without_the_comments_after_it() {
        assert_eq!(code_only("class A:\n    # one\n\n    # two\n"), "class A:\n");
        assert_eq!(code_only("def f(a,\n      b):  # c\n\r\n"), "def f(a,\n      b):  # c\n");
        // Kept whole after a backslash, and when nothing but comments is there.
        assert_eq!(code_only("if a and \\\n    # c\n"), "if a and \\\n    # c\n");
        assert_eq!(code_only("# c\n"), "# c\n");
    }

    #[test]
    fn lines_compared_one_to_one_give_the_places_a_diff_gives() {
        let old: String = (0..60).map(|n| format!("x{n} = {n}\n")).collect::<String>() + "last";
        let mut state = 0x2545_f491_u64;
        for round in 0..200 {
            let mut lines: Vec<String> = old.split_inclusive('\n').map(str::to_owned).collect();
            for _ in 0..1 + round % 7 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let at = (state % lines.len() as u64) as usize;
                let end = if lines[at].ends_with('\n') { "\n" } else { "" };
                lines[at] = format!("{}  # {round}{end}", lines[at].trim_end_matches('\n'));
            }
            let new = lines.concat();
            assert_eq!(same_line_places(&old, &new), Some(places(&old, &new)), "round {round}");
        }
        assert_eq!(same_line_places("a\nb\n", "a\nb\n"), Some(Vec::new()));
        assert_eq!(same_line_places("a\nb\n", "a\nc\nb\n"), None);
    }

    fn boundaries(text: &str) -> Vec<usize> {
        let mut scanner = Scanner::new(text.as_bytes());
        let mut found = vec![0];
        while let Some(at) = scanner.next_boundary() {
            found.push(at);
        }
        found
    }

    fn lines_of(text: &str) -> Vec<usize> {
        boundaries(text).iter().map(|&at| text[..at].matches('\n').count() + 1).collect()
    }

    fn texts<'a>(new: &'a str, places: &[(Range<usize>, Range<usize>)], old: &'a str) -> Vec<(&'a str, &'a str)> {
        places.iter().map(|(o, n)| (&old[o.clone()], &new[n.clone()])).collect()
    }

    #[test]
    fn places_are_the_lines_that_differ_between_anchors() {
        let old = "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6\n";
        let new = "a = 1\nb = 22\nc = 3\nd = 4\ne = 5\nf = 66\n";
        assert_eq!(texts(new, &places(old, new), old), [("b = 2\n", "b = 22\n"), ("f = 6\n", "f = 66\n")]);
        // Lines that repeat are not anchors, yet are trimmed around a place; an insertion is
        // a place with nothing old.
        let old = "x\npass\npass\ny\npass\nz\n";
        let new = "x\npass\nnew\npass\ny\npass\nz\nw\n";
        assert_eq!(texts(new, &places(old, new), old), [("", "new\n"), ("", "w\n")]);
        assert!(places("same\n", "same\n").is_empty());
        // A moved line: the anchors keep their longest run in order.
        let old = "a\nb\nc\nd\n";
        let new = "b\nc\nd\na\n";
        assert_eq!(texts(new, &places(old, new), old), [("a\n", ""), ("", "a\n")]);
        // No final line end.
        assert_eq!(texts("q\nr", &places("p\nr", "q\nr"), "p\nr"), [("p\n", "q\n")]);
        assert_eq!(texts("p\ns", &places("p\nr", "p\ns"), "p\nr"), [("r", "s")]);
    }

    #[test]
    fn a_change_in_several_places_is_checked_in_several_regions() {
        let old = "def f():\n    return 1\n\nx = 1\n\ndef g():\n    return 2\n\ny = 2\n";
        let new = "def f():\n    return 11\n\nx = 1\n\ndef g():\n    return 22\n\ny = 2\n";
        let found = regions::<Scanner<'_>>(old, new, None).unwrap();
        let parts: Vec<&str> = found.iter().map(|region| &new[region.new_start..region.new_end]).collect();
        assert_eq!(parts, ["def f():\n    return 11\n\n", "def g():\n    return 22\n\n"]);
        assert_eq!(found.iter().map(|region| region.lines_before).collect::<Vec<_>>(), [0, 5]);
        // The old text's parts line up with the new one's.
        assert_eq!(&old[found[1].start..found[1].old_end], "def g():\n    return 2\n\n");
        // Places whose statements meet are one region.
        let new = "def f():\n    return 11\n\nx = 1\n\ndef g():\n    return 2\n\ny = 22\n";
        let old2 = "def f():\n    return 1\n\nx = 1\n\ndef g():\n    return 2\n\ny = 2\n";
        assert_eq!(regions::<Scanner<'_>>(old2, new, None).unwrap().len(), 2);
        let joined = "def f():\n    return 11\nx = 1\n";
        assert!(regions::<Scanner<'_>>("def f():\n    return 1\nx = 2\n", joined, None).is_none_or(|r| r.len() == 1));
        // A place that leaves a bracket open cannot be checked alone.
        let open = "def f():\n    return (1\n\nx = 1\n\ndef g():\n    return 22\n\ny = 2\n";
        assert!(regions::<Scanner<'_>>(old, open, None).is_none());
        // Lines shift: a place that adds lines moves the next one's.
        let longer = "def f():\n    a = 0\n    return 1\n\nx = 1\n\ndef g():\n    return 22\n\ny = 2\n";
        let found = regions::<Scanner<'_>>(old, longer, None).unwrap();
        assert_eq!(found[1].lines_before, 6);
        assert_eq!(&longer[found[1].new_start..found[1].new_end], "def g():\n    return 22\n\n");
    }

    #[test]
    fn statements_start_at_column_zero_outside_strings_and_brackets() {
        let text = "import os\nx = (1,\n2)\ns = '''\ny = 1\n'''\n# c\n\ndef f():\n    return 1\nz = 2\n";
        assert_eq!(lines_of(text), [1, 2, 4, 9, 11]);
    }

    #[test]
    fn decorators_continuations_and_else_belong_to_their_statement() {
        let text = "@a\n@b(\n1)\ndef f(): pass\nif x:\n    pass\nelse:\n    pass\ntry:\n    pass\nexcept E:\n    pass\nfinally:\n    pass\nx = 1 + \\\n2\nelsewhere = 1\n";
        assert_eq!(lines_of(text), [1, 5, 9, 15, 17]);
    }

    #[test]
    fn f_strings_nest_quotes_and_fields() {
        let text = "a = f\"{x[\"k\"]:>{w}} }}\"\nb = rf'\\'{y}'\nc = f'''{\n1}'''\nd = 1\n";
        assert_eq!(lines_of(text), [1, 2, 3, 5]);
        let mut scanner = Scanner::new(text.as_bytes());
        while scanner.next_boundary().is_some() {}
        assert_eq!(scanner.anomaly, None);
    }

    #[test]
    fn anomalies_are_named() {
        let mut scanner = Scanner::new(b"x = (1,\ny = 2\n");
        while scanner.next_boundary().is_some() {}
        assert_eq!(scanner.anomaly, Some(Anomaly::Unclosed { at: 4, bracket: b'(' }));
        let mut scanner = Scanner::new(b"x = 'abc\ny = 2\n");
        while scanner.next_boundary().is_some() {}
        assert_eq!(scanner.anomaly, Some(Anomaly::Unterminated { at: 4 }));
    }

    #[test]
    fn a_region_is_the_touched_statements_and_the_one_before() {
        let old = "a = 1\nb = 2\nc = 3\nd = 4\n";
        let new = "a = 1\nb = 2\nc = 33\nd = 4\n";
        let region = python_region(old, new).unwrap();
        assert_eq!((&old[region.start..region.old_end], &new[region.start..region.new_end]), ("c = 3\n", "c = 33\n"));
        assert_eq!(region.lines_before, 2);
        // A change at the start of a statement takes the one before it in.
        let new = "a = 1\nb = 2\n    x = 0\nc = 3\nd = 4\n";
        let region = python_region(old, new).unwrap();
        assert_eq!(&new[region.start..region.new_end], "b = 2\n    x = 0\n");
    }

    #[test]
    fn an_opened_bracket_is_named_and_the_region_stays_small() {
        let old = "a = 1\nb = f(2)\nc = 3\nd = 4\n";
        let new = "a = 1\nb = f(2\nc = 3\nd = 4\n";
        let region = python_region(old, new).unwrap();
        assert_eq!(region.unsettled, Some(Anomaly::Unclosed { at: 11, bracket: b'(' }));
        assert_eq!(&new[region.start..region.new_end], "b = f(2\n");
    }

    fn js_lines(text: &str) -> Vec<usize> {
        let mut scanner = JsScanner::new(text.as_bytes());
        let mut found = vec![0];
        while let Some(at) = scanner.next_boundary() {
            found.push(at);
        }
        assert_eq!(scanner.anomaly, None, "{text}");
        found.iter().map(|&at| text[..at].matches('\n').count() + 1).collect()
    }

    #[test]
    fn js_declarations_start_outside_strings_templates_comments_and_regexes() {
        let text = "import a from 'a'\nconst t = `x ${ {a: 1}.a }\nfunction no() {}\n`\n/* \nclass No {}\n*/\nconst r = /[/]'\\//g\nexport function f() {\n  return 1\n}\nconst x =\nfunction () {}\n@dec()\nexport class C {}\ntype T = string\n";
        assert_eq!(js_lines(text), [1, 2, 8, 9, 12, 14, 16]);
    }

    #[test]
    fn a_js_region_is_the_touched_declarations() {
        let old = "const a = 1\nfunction f() {\n  return 2\n}\nconst c = 3\n";
        let new = "const a = 1\nfunction f() {\n  return 22\n}\nconst c = 3\n";
        let region = js_region(old, new).unwrap();
        assert_eq!(&new[region.start..region.new_end], "function f() {\n  return 22\n}\n");
        let open = "const a = 1\nfunction f() {\n  return g(2\n}\nconst c = 3\n";
        // The function's `}` closes it, leaving the call open inside: the texts lex alike
        // after it, and the parse of the function finds the error.
        let region = js_region(old, open).unwrap();
        assert_eq!(&open[region.start..region.new_end], "function f() {\n  return g(2\n}\n", "{region:?}");
        let report = crate::check_change(crate::FileKind::Typescript, Some(old), open).unwrap();
        assert!(report.introduced() && report.errors.iter().all(|error| (2..=4).contains(&error.line)), "{report:?}");
        // A bracket opened and never closed is named.
        let never = "const a = 1\nfunction f() {\n  return 2\n}\nconst c = g(3\n";
        let report = crate::check_change(crate::FileKind::Typescript, Some(old), never).unwrap();
        assert!(
            report.errors.iter().any(|error| error.message == "`(` was never closed" && error.line == 5),
            "{report:?}"
        );
    }
}
