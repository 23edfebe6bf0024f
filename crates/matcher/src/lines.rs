//! Line spans of a text, split on `\n`.

/// The lines of a text: `(start, end)` byte offsets, `end` excluding the `\n`.
///
/// A text ending with `\n` has a last, empty line after it, as `str::split('\n')` gives.
pub(crate) struct Lines<'a> {
    text: &'a str,
    spans: Vec<(usize, usize)>,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        let mut spans = Vec::with_capacity(text.len() / 32 + 1);
        let mut start = 0;
        for newline in memchr::memchr_iter(b'\n', text.as_bytes()) {
            spans.push((start, newline));
            start = newline + 1;
        }
        spans.push((start, text.len()));
        Self { text, spans }
    }

    pub(crate) fn text(&self) -> &'a str {
        self.text
    }

    pub(crate) fn len(&self) -> usize {
        self.spans.len()
    }

    /// The line's text without its `\n`. Spans split on an ASCII byte, so they are char boundaries.
    pub(crate) fn line(&self, idx: usize) -> &'a str {
        self.spans.get(idx).and_then(|&(start, end)| self.text.get(start..end)).unwrap_or("")
    }

    pub(crate) fn start(&self, idx: usize) -> usize {
        self.spans.get(idx).map_or(self.text.len(), |span| span.0)
    }

    pub(crate) fn end(&self, idx: usize) -> usize {
        self.spans.get(idx).map_or(self.text.len(), |span| span.1)
    }

    /// The end of the line including its `\n`, when it has one.
    pub(crate) fn end_with_newline(&self, idx: usize) -> usize {
        let end = self.end(idx);
        if end < self.text.len() { end + 1 } else { end }
    }

    /// The index of the line holding byte `offset` (a `\n` belongs to the line it ends).
    pub(crate) fn line_of(&self, offset: usize) -> usize {
        self.spans.partition_point(|&(start, _)| start <= offset).saturating_sub(1)
    }
}

/// A needle cut into lines: one trailing `\n` is remembered, not kept as an empty last line.
pub(crate) struct NeedleLines<'a> {
    pub(crate) lines: Vec<&'a str>,
    pub(crate) trailing_newline: bool,
}

impl<'a> NeedleLines<'a> {
    pub(crate) fn new(needle: &'a str) -> Self {
        let (body, trailing_newline) = match needle.strip_suffix('\n') {
            Some(body) => (body, true),
            None => (needle, false),
        };
        Self { lines: body.split('\n').collect(), trailing_newline }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_follow_split() {
        let lines = Lines::new("a\nbc\n");
        assert_eq!(lines.len(), 3);
        assert_eq!(lines.line(1), "bc");
        assert_eq!(lines.line(2), "");
        assert_eq!(lines.line_of(0), 0);
        assert_eq!(lines.line_of(1), 0);
        assert_eq!(lines.line_of(2), 1);
        assert_eq!(lines.line_of(5), 2);
        assert_eq!(lines.end_with_newline(1), 5);
        assert_eq!(lines.end_with_newline(2), 5);
    }

    #[test]
    fn needle_keeps_one_trailing_newline_apart() {
        let needle = NeedleLines::new("a\n\n");
        assert_eq!(needle.lines, vec!["a", ""]);
        assert!(needle.trailing_newline);
    }
}
