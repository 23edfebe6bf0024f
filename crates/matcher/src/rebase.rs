//! A change planned on one version of a text, carried over to a later version: the pieces
//! whose lines (with a line of context each side) stand unchanged in both move with them;
//! any other is a conflict. The three-way merge of an edit with a change made outside
//! (base: the version read, ours: the edit, theirs: the text now).

use std::ops::Range;

use similar::{DiffOp, DiffTag};

/// Pieces of an edit planned on the base, carried over to the current text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rebased {
    /// The pieces as byte ranges of the current text.
    pub pieces: Vec<(Range<usize>, String)>,
    /// For each base line (0-based), its line in the current text when it is there unchanged.
    pub lines: Vec<Option<usize>>,
}

impl Rebased {
    /// 1-based base line `line` as a 1-based line of the current text (itself when unmapped).
    #[must_use]
    pub fn line(&self, line: usize) -> usize {
        line.checked_sub(1).and_then(|idx| self.lines.get(idx).copied().flatten()).map_or(line, |idx| idx + 1)
    }
}

/// Line starts of `text` (LF-normalised), one per line, plus its length.
fn starts(text: &str) -> Vec<usize> {
    let mut out = vec![0];
    out.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|at| at + 1).filter(|&at| at < text.len()));
    out
}

fn lines_of(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// The lines of `current` (1-based, first and last) that the change from `base` touched.
#[must_use]
pub fn changed_lines(base: &str, current: &str) -> Vec<[usize; 2]> {
    let (old, new) = (lines_of(base), lines_of(current));
    crate::diff::ops(&old, &new)
        .into_iter()
        .filter_map(|op| {
            let (tag, _, range) = op.as_tag_tuple();
            match tag {
                DiffTag::Equal => None,
                // A deletion touched the place between two lines: the line after it.
                DiffTag::Delete => Some([range.start + 1, range.start + 1]),
                _ => Some([range.start + 1, range.end]),
            }
        })
        .collect()
}

/// Carries `pieces` (byte ranges of `base` and their new text) over to `current`. Each piece's
/// lines, with one line of context on each side (the file's start or end standing in at an
/// edge), must stand unchanged and together in `current`; otherwise the 1-based base lines of
/// the first piece that does not are the error.
///
/// # Errors
/// The first and last base line of the first piece that cannot be carried over.
pub fn rebase(base: &str, current: &str, pieces: &[(Range<usize>, String)]) -> Result<Rebased, [usize; 2]> {
    let (old, new) = (lines_of(base), lines_of(current));
    let mut map: Vec<Option<usize>> = vec![None; old.len()];
    for op in crate::diff::ops(&old, &new) {
        if let DiffOp::Equal { old_index, new_index, len } = op {
            for k in 0..len {
                map[old_index + k] = Some(new_index + k);
            }
        }
    }
    let (old_starts, new_starts) = (starts(base), starts(current));
    let line_of = |offset: usize| old_starts.partition_point(|&start| start <= offset).saturating_sub(1);
    let mut out = Vec::with_capacity(pieces.len());
    for (range, piece) in pieces {
        let first = line_of(range.start);
        let last = line_of(range.end.saturating_sub(1).max(range.start));
        let conflict = [first + 1, last + 1];
        let lo = first.saturating_sub(1);
        let hi = (last + 1).min(old.len().saturating_sub(1));
        let Some(Some(anchor)) = map.get(lo) else { return Err(conflict) };
        for (offset, idx) in (lo..=hi).enumerate() {
            if map.get(idx).copied().flatten() != Some(anchor + offset) {
                return Err(conflict);
            }
        }
        // At an edge of the file, the edge itself is the context: nothing came before or after.
        if first == 0 && *anchor != 0 {
            return Err(conflict);
        }
        if last + 1 >= old.len() && anchor + (hi - lo) + 1 != new.len() {
            return Err(conflict);
        }
        let Some(Some(at)) = map.get(first) else { return Err(conflict) };
        let (Some(&old_start), Some(&new_start)) = (old_starts.get(first), new_starts.get(*at)) else {
            return Err(conflict);
        };
        let moved = (range.start - old_start + new_start)..(range.end - old_start + new_start);
        if current.get(moved.clone()) != base.get(range.clone()) {
            return Err(conflict);
        }
        out.push((moved, piece.clone()));
    }
    Ok(Rebased { pieces: out, lines: map })
}

#[cfg(test)]
mod tests {
    use super::{changed_lines, rebase};

    #[test]
    fn a_piece_away_from_the_outside_change_moves_with_it() {
        let base = "a\nb\nc\nd\ne\n";
        let current = "A\nb\nc\nd\ne\nf\n";
        let at = base.find('d').unwrap();
        let rebased = rebase(base, current, &[(at..at + 1, "D".into())]).unwrap();
        assert_eq!(rebased.pieces, vec![(at..at + 1, "D".to_owned())]);
        assert_eq!(rebased.line(4), 4);
        // Next to the change (its context line changed): refused.
        let at = base.find('b').unwrap();
        assert_eq!(rebase(base, current, &[(at..at + 1, "B".into())]).unwrap_err(), [2, 2]);
        assert_eq!(changed_lines(base, current), vec![[1, 1], [6, 6]]);
        // Lines inserted above shift the piece down.
        let current = "x\ny\na\nb\nc\nd\ne\n";
        let at = base.find('d').unwrap();
        let rebased = rebase(base, current, &[(at..at + 1, "D".into())]).unwrap();
        assert_eq!(rebased.pieces[0].0, at + 4..at + 5);
        // The first line, with lines inserted before it: its edge moved, refused.
        assert!(rebase(base, current, &[(0..1, "Z".into())]).is_err());
    }
}
