//! Positions as servers count them (a line and a column in UTF-16 code units or UTF-8 bytes)
//! and byte offsets as editkit counts them. Lines end at `\n`, `\r\n` or a lone `\r`, as the
//! protocol says, so a file with CRLF endings maps back onto itself.

use lsp_types::{Position, PositionEncodingKind};

/// The unit a server counts columns in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Encoding {
    /// UTF-8 bytes (rust-analyzer, when offered).
    Utf8,
    /// UTF-16 code units: the protocol's default, and what a server that chose none uses.
    Utf16,
}

impl Encoding {
    /// The encoding a server chose in its `initialize` answer (none chosen: UTF-16).
    #[must_use]
    pub fn negotiated(kind: Option<&PositionEncodingKind>) -> Encoding {
        match kind {
            Some(kind) if *kind == PositionEncodingKind::UTF8 => Encoding::Utf8,
            _ => Encoding::Utf16,
        }
    }

    fn units(self, ch: char) -> usize {
        match self {
            Encoding::Utf8 => ch.len_utf8(),
            Encoding::Utf16 => ch.len_utf16(),
        }
    }
}

/// A place in a text: its byte offset and its column in characters (0-based) on its line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// The byte offset.
    pub offset: usize,
    /// How many characters precede it on its line.
    pub chars: usize,
}

/// Where each line of a text starts, to turn positions into byte offsets and back.
#[derive(Debug, Clone)]
pub struct LineIndex<'a> {
    text: &'a str,
    /// Byte offset of each line's first byte; the first is 0.
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// Indexes `text`'s lines.
    #[must_use]
    pub fn new(text: &'a str) -> LineIndex<'a> {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        let mut at = 0;
        while let Some(found) = bytes.get(at..).and_then(|rest| rest.iter().position(|b| *b == b'\n' || *b == b'\r')) {
            let end = at + found;
            let next =
                if bytes.get(end) == Some(&b'\r') && bytes.get(end + 1) == Some(&b'\n') { end + 2 } else { end + 1 };
            starts.push(next);
            at = next;
        }
        LineIndex { text, starts }
    }

    /// How many lines the text has (a text ending in a line break has an empty last line).
    #[must_use]
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// The byte range of line `line` (0-based), without its line break.
    #[must_use]
    pub fn line_range(&self, line: usize) -> Option<std::ops::Range<usize>> {
        let start = *self.starts.get(line)?;
        let next = self.starts.get(line + 1).copied().unwrap_or(self.text.len());
        let line_text = self.text.get(start..next)?;
        let content = line_text.trim_end_matches(['\n', '\r']);
        Some(start..start + content.len())
    }

    /// The byte offset of `position`. A column past the line's end means the line's end (the
    /// protocol's rule); `None` for a line past the text or a column inside a character.
    #[must_use]
    pub fn offset(&self, position: Position, encoding: Encoding) -> Option<usize> {
        let range = self.line_range(usize::try_from(position.line).ok()?)?;
        let wanted = usize::try_from(position.character).ok()?;
        let mut units = 0;
        for (idx, ch) in self.text.get(range.clone())?.char_indices() {
            if units == wanted {
                return Some(range.start + idx);
            }
            units += encoding.units(ch);
            if units > wanted {
                return None;
            }
        }
        Some(range.end)
    }

    /// Many positions at once, as [`LineIndex::offset`] gives each, with the column in
    /// characters of each place: each line is walked once for all the positions on it (they
    /// are taken in order), so the work is the text's length plus the positions', whatever
    /// the lines' lengths.
    #[must_use]
    pub fn places(&self, positions: &[Position], encoding: Encoding) -> Vec<Option<Place>> {
        let mut order: Vec<usize> = (0..positions.len()).collect();
        order.sort_by_key(|at| positions.get(*at).map(|p| (p.line, p.character)));
        let mut out = vec![None; positions.len()];
        // Where the walk is: the line, its range, and a byte with its units and characters.
        let mut cursor: Option<(u32, std::ops::Range<usize>, usize, usize, usize)> = None;
        for at in order {
            let Some(position) = positions.get(at) else { continue };
            if cursor.as_ref().is_none_or(|(line, ..)| *line != position.line) {
                cursor = usize::try_from(position.line)
                    .ok()
                    .and_then(|line| self.line_range(line))
                    .map(|range| (position.line, range.clone(), range.start, 0, 0));
            }
            let Some((_, range, byte, units, chars)) = cursor.as_mut() else { continue };
            let Ok(wanted) = usize::try_from(position.character) else { continue };
            while *units < wanted && *byte < range.end {
                let Some(ch) = self.text.get(*byte..range.end).and_then(|rest| rest.chars().next()) else { break };
                *units += encoding.units(ch);
                *byte += ch.len_utf8();
                *chars += 1;
            }
            if let Some(slot) = out.get_mut(at) {
                // Past the line's end is the line's end; a column inside a character is none.
                *slot = (*units <= wanted).then_some(Place { offset: *byte, chars: *chars });
            }
        }
        out
    }

    /// The position of byte offset `offset`; `None` when it is past the text, inside a
    /// character or inside a `\r\n` line break.
    #[must_use]
    pub fn position(&self, offset: usize, encoding: Encoding) -> Option<Position> {
        if !self.text.is_char_boundary(offset) {
            return None;
        }
        let line = self.starts.partition_point(|start| *start <= offset).checked_sub(1)?;
        let range = self.line_range(line)?;
        if offset > range.end {
            return None;
        }
        let character: usize = self.text.get(range.start..offset)?.chars().map(|ch| encoding.units(ch)).sum();
        Some(Position { line: u32::try_from(line).ok()?, character: u32::try_from(character).ok()? })
    }
}

#[cfg(test)]
mod tests;
