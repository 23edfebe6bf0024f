//! Collecting one file's matches from grep-searcher, with context and bounded lines.

use std::collections::VecDeque;
use std::io::{self, Read};

use grep_matcher::Matcher;
use grep_regex::RegexMatcher;
use grep_searcher::{Searcher, Sink, SinkContext, SinkMatch};

use crate::output::Match;

/// Put where a line was cut (at either end) because it is longer than the bound.
pub const CUT_MARKER: &str = "[…]";

/// At most this many lines of one multi-line match are kept in its `content`.
pub(crate) const MAX_MATCH_LINES: usize = 20;

/// How a file's matches are collected.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SinkConfig {
    pub(crate) before: usize,
    pub(crate) after: usize,
    pub(crate) max_line_chars: usize,
    /// Most bytes of text the kept matches may hold (see [`Match::held_bytes`]).
    pub(crate) max_bytes: usize,
}

/// Collects matches of one file. Stops the search after `limit` matches; with `limit == 0`
/// only tells whether the file matches at all.
pub(crate) struct FileSink<'a> {
    matcher: &'a RegexMatcher,
    config: SinkConfig,
    limit: usize,
    pub(crate) matches: Vec<Match>,
    /// For each kept match, the number of its last line (multi-line matches span several).
    last_lines: Vec<u64>,
    /// Index of the first match whose after-context may still grow.
    open: usize,
    /// The last `before` lines seen (matching or not), for before-context.
    recent: VecDeque<(u64, String)>,
    pub(crate) n_matches: usize,
    /// Offset of the first NUL byte, when the file is binary.
    pub(crate) binary: Option<u64>,
    /// Bytes of text the kept matches hold.
    bytes: usize,
    /// The kept matches reached `max_bytes`: the search of the file stopped there.
    pub(crate) full: bool,
}

impl<'a> FileSink<'a> {
    pub(crate) fn new(matcher: &'a RegexMatcher, config: SinkConfig, limit: usize) -> Self {
        FileSink {
            matcher,
            config,
            limit,
            matches: Vec::new(),
            last_lines: Vec::new(),
            open: 0,
            recent: VecDeque::new(),
            n_matches: 0,
            binary: None,
            bytes: 0,
            full: false,
        }
    }

    /// Feeds one line, matching or not, to the context of the matches around it.
    fn observe(&mut self, number: u64, text: &str) {
        let after = self.config.after as u64;
        if after > 0 {
            while self.open < self.matches.len() && self.last_lines[self.open] + after < number {
                self.open += 1;
            }
            for (found, &last) in self.matches[self.open..].iter_mut().zip(&self.last_lines[self.open..]) {
                if number > last && number <= last + after && found.after.len() < self.config.after {
                    self.bytes += text.len() + crate::output::LINE_COST_BYTES;
                    found.after.push(text.to_owned());
                }
            }
        }
        if self.config.before > 0 {
            if self.recent.len() == self.config.before {
                self.recent.pop_front();
            }
            self.recent.push_back((number, text.to_owned()));
        }
    }
}

impl FileSink<'_> {
    /// Whether the kept matches passed the byte bound (then the file's search stops).
    fn over_budget(&mut self) -> bool {
        if self.bytes > self.config.max_bytes {
            self.full = true;
        }
        self.full
    }

    /// With the cap reached (one match past what is kept, to know lines were left out), whether
    /// lines after `number` still belong to the after-context of the last kept match.
    fn wants_more(&self, number: u64) -> bool {
        let after = self.config.after as u64;
        match self.limit.checked_sub(2).and_then(|kept| self.last_lines.get(kept)) {
            Some(&kept_last) if after > 0 => number < kept_last + after,
            _ => false,
        }
    }
}

impl Sink for FileSink<'_> {
    type Error = io::Error;

    fn matched(&mut self, _searcher: &Searcher, found: &SinkMatch<'_>) -> Result<bool, io::Error> {
        self.n_matches += 1;
        if self.limit == 0 {
            return Ok(false);
        }
        let first = found.line_number().unwrap_or(1);
        if self.matches.len() >= self.limit {
            // Past the cap: these lines only fill the after-context of the last kept match.
            let mut number = first;
            for line in found.lines() {
                let (line, _) = strip_bom(number, line);
                self.observe(number, &cut_line(line, None, self.config.max_line_chars));
                number += 1;
            }
            return Ok(!self.over_budget() && self.wants_more(number - 1));
        }
        let bytes = found.bytes();
        let span = self.matcher.find(bytes).ok().flatten();
        let start = span.map_or(0, |m| m.start());
        let end = span.map_or(start, |m| m.end());
        let mut lines = found.lines();
        let first_line = lines.next().unwrap_or(bytes);
        let (first_line, bom) = strip_bom(first, first_line);
        let focus = start.saturating_sub(bom).min(first_line.len());
        let column = String::from_utf8_lossy(first_line.get(..focus).unwrap_or_default()).chars().count() + 1;
        let end_focus = end.saturating_sub(bom).min(first_line.len()).max(focus);
        let end_column =
            (String::from_utf8_lossy(first_line.get(..end_focus).unwrap_or_default()).chars().count() + 1).max(column);
        let mut content = cut_line(first_line, Some(focus), self.config.max_line_chars);
        let before = if self.config.before > 0 {
            let from = first.saturating_sub(self.config.before as u64);
            self.recent.iter().filter(|(n, _)| *n >= from && *n < first).map(|(_, text)| text.clone()).collect()
        } else {
            Vec::new()
        };
        self.observe(first, &content.clone());
        let mut last = first;
        for (extra, line) in lines.enumerate() {
            last += 1;
            let text = cut_line(line, None, self.config.max_line_chars);
            if extra + 1 < MAX_MATCH_LINES {
                content.push('\n');
                content.push_str(&text);
            } else if extra + 1 == MAX_MATCH_LINES {
                content.push('\n');
                content.push_str(CUT_MARKER);
            }
            self.observe(last, &text);
        }
        let found = Match { line: first, column, end_column, content, before, after: Vec::new() };
        self.bytes += found.held_bytes();
        self.matches.push(found);
        self.last_lines.push(last);
        if self.over_budget() {
            return Ok(false);
        }
        if self.matches.len() >= self.limit {
            return Ok(self.wants_more(last));
        }
        Ok(true)
    }

    fn context(&mut self, _searcher: &Searcher, context: &SinkContext<'_>) -> Result<bool, io::Error> {
        if let Some(number) = context.line_number() {
            let (line, _) = strip_bom(number, context.bytes());
            let text = cut_line(line, None, self.config.max_line_chars);
            self.observe(number, &text);
            if self.over_budget() {
                return Ok(false);
            }
            if self.matches.len() >= self.limit {
                return Ok(self.wants_more(number));
            }
        }
        Ok(true)
    }

    fn binary_data(&mut self, _searcher: &Searcher, offset: u64) -> Result<bool, io::Error> {
        self.binary = Some(offset);
        Ok(false)
    }
}

/// Drops a UTF-8 byte order mark from the first line; returns the line and the bytes dropped.
fn strip_bom(line_number: u64, line: &[u8]) -> (&[u8], usize) {
    match line.strip_prefix(b"\xEF\xBB\xBF".as_slice()) {
        Some(rest) if line_number == 1 => (rest, 3),
        _ => (line, 0),
    }
}

/// The line without its line ending, cut to `max_chars` characters around the byte offset
/// `focus` (the match), with [`CUT_MARKER`] where text was left out. Invalid UTF-8 is replaced
/// with U+FFFD (only files searched lossily have any).
pub(crate) fn cut_line(line: &[u8], focus: Option<usize>, max_chars: usize) -> String {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = String::from_utf8_lossy(line);
    // Each character is at least one byte: short lines need no counting.
    if text.len() <= max_chars {
        return text.into_owned();
    }
    let n_chars = text.chars().count();
    if n_chars <= max_chars {
        return text.into_owned();
    }
    let focus_char = focus.map_or(0, |byte| {
        let byte = byte.min(line.len());
        String::from_utf8_lossy(line.get(..byte).unwrap_or_default()).chars().count()
    });
    // Keep a quarter of the window before the match, so its start is visible with some lead.
    let start = focus_char.saturating_sub(max_chars / 4).min(n_chars - max_chars);
    let end = start + max_chars;
    let mut out = String::with_capacity(line.len().min(max_chars.saturating_mul(4)) + 2 * CUT_MARKER.len());
    if start > 0 {
        out.push_str(CUT_MARKER);
    }
    out.extend(text.chars().skip(start).take(max_chars));
    if end < n_chars {
        out.push_str(CUT_MARKER);
    }
    out
}

/// A reader that checks, as bytes pass, that they are UTF-8; the first bad offset is kept.
pub(crate) struct Utf8Check<R> {
    inner: R,
    enabled: bool,
    /// An incomplete character at the end of the last chunk.
    pending: [u8; 4],
    pending_len: usize,
    /// Bytes read so far.
    offset: u64,
    pub(crate) invalid_at: Option<u64>,
    /// Whether an escape byte was read (ISO-2022-JP text is valid UTF-8 that starts with one).
    pub(crate) escape_seen: bool,
}

impl<R: Read> Utf8Check<R> {
    pub(crate) fn new(inner: R, enabled: bool) -> Self {
        Utf8Check { inner, enabled, pending: [0; 4], pending_len: 0, offset: 0, invalid_at: None, escape_seen: false }
    }

    fn check(&mut self, chunk: &[u8]) {
        self.escape_seen |= memchr::memchr(b'\x1B', chunk).is_some();
        if chunk.is_empty() {
            if self.pending_len > 0 {
                self.invalid_at = Some(self.offset - self.pending_len as u64);
            }
            return;
        }
        let mut rest = chunk;
        if self.pending_len > 0 {
            let width = char_width(self.pending[0]);
            let take = (width - self.pending_len).min(rest.len());
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&rest[..take]);
            self.pending_len += take;
            rest = &rest[take..];
            if self.pending_len < width {
                return;
            }
            if std::str::from_utf8(&self.pending[..width]).is_err() {
                self.invalid_at = Some(self.offset - (width - take) as u64);
                return;
            }
            self.pending_len = 0;
        }
        if simdutf8::basic::from_utf8(rest).is_ok() {
            return;
        }
        if let Err(err) = std::str::from_utf8(rest) {
            let at = chunk.len() - rest.len() + err.valid_up_to();
            match err.error_len() {
                // The chunk ends inside a character: finish checking it with the next chunk.
                None if chunk.len() - at < 4 => {
                    let tail = &chunk[at..];
                    self.pending[..tail.len()].copy_from_slice(tail);
                    self.pending_len = tail.len();
                }
                _ => self.invalid_at = Some(self.offset + at as u64),
            }
        }
    }
}

/// The length of a UTF-8 sequence from its first byte (1 for anything that cannot start one,
/// which makes the completed sequence fail validation).
fn char_width(lead: u8) -> usize {
    match lead {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => 1,
    }
}

impl<R: Read> Read for Utf8Check<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if self.enabled && self.invalid_at.is_none() {
            self.check(buf.get(..n).unwrap_or_default());
        }
        self.offset += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::{CUT_MARKER, Utf8Check, cut_line};

    /// Reads `bytes` through the checker in chunks of `size`.
    fn invalid_at(bytes: &[u8], size: usize) -> Option<u64> {
        struct Chunked<'a>(&'a [u8], usize);
        impl Read for Chunked<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = self.1.min(self.0.len()).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut reader = Utf8Check::new(Chunked(bytes, size), true);
        let mut sink = Vec::new();
        reader.read_to_end(&mut sink).unwrap();
        reader.invalid_at
    }

    #[test]
    fn utf8_split_across_chunks_is_accepted_at_every_split() {
        let text = "aé€😀z".repeat(3);
        for size in 1..=text.len() {
            assert_eq!(invalid_at(text.as_bytes(), size), None, "chunk size {size}");
        }
    }

    #[test]
    fn invalid_bytes_are_found_at_every_split() {
        let mut bytes = "aé€".as_bytes().to_vec();
        let bad = bytes.len() as u64;
        bytes.extend_from_slice(b"\xE9t\xC3");
        for size in 1..=bytes.len() {
            assert_eq!(invalid_at(&bytes, size), Some(bad), "chunk size {size}");
        }
        // A character cut off by the end of the file.
        for size in 1..=4 {
            assert_eq!(invalid_at(b"ab\xF0\x9F\x98", size), Some(2), "chunk size {size}");
        }
    }

    #[test]
    fn proptest_checker_agrees_with_std() {
        proptest::proptest!(|(bytes: Vec<u8>, size in 1usize..9)| {
            let expected = std::str::from_utf8(&bytes).err().map(|e| e.valid_up_to() as u64);
            proptest::prop_assert_eq!(invalid_at(&bytes, size), expected);
        });
    }

    #[test]
    fn long_lines_are_cut_around_the_match() {
        let line = format!("{}NEEDLE{}\n", "a".repeat(1000), "b".repeat(1000));
        let cut = cut_line(line.as_bytes(), Some(1000), 40);
        assert!(cut.starts_with(CUT_MARKER) && cut.ends_with(CUT_MARKER), "{cut}");
        assert!(cut.contains("NEEDLE"), "{cut}");
        assert_eq!(cut.chars().count(), 40 + 2 * CUT_MARKER.chars().count());
        assert_eq!(cut_line(b"short\r\n", None, 40), "short");
        assert_eq!(cut_line("é".repeat(50).as_bytes(), None, 10), format!("{}{CUT_MARKER}", "é".repeat(10)));
    }
}
