//! An update planned on the version of a file its caller read (the base) and carried over,
//! hunk by hunk, to the file as it is now: each hunk's region, with one line of context on
//! each side, must stand unchanged there ([`editkit_matcher::rebase`]), or nothing is.

use editkit_vfs::Text;

use crate::locate::{HunkReport, apply_hunks};
use crate::parse::Hunk;

/// Line starts of `text`, one per line, then its length.
fn starts(text: &str) -> Vec<usize> {
    let mut out = vec![0];
    out.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|at| at + 1).filter(|&at| at < text.len()));
    out.push(text.len());
    out
}

/// `hunks` placed on `base` and carried over to `current`: the new text and the hunks' reports
/// numbered in `current`. `Err(lines)`: the base lines of the hunk region that could not be
/// carried over (`None`: the hunks do not apply to the base, or not by whole lines).
pub(crate) fn merge(
    base: &Text,
    current: &Text,
    hunks: &[Hunk],
    strict: bool,
) -> Result<(Text, Vec<HunkReport>), Option<[usize; 2]>> {
    let (planned, mut reports, windows) = apply_hunks(base, hunks, strict).map_err(|_| None)?;
    let windows = windows.ok_or(None)?;
    let (old, new) = (base.as_str(), planned.as_str());
    let (old_starts, new_starts) = (starts(old), starts(new));
    let mut pieces = Vec::with_capacity(windows.len());
    for (old_lines, new_lines) in &windows {
        let range = old_starts.get(old_lines.start).copied().zip(old_starts.get(old_lines.end).copied()).ok_or(None)?;
        let with = new_starts.get(new_lines.start).copied().zip(new_starts.get(new_lines.end).copied()).ok_or(None)?;
        let with = new.get(with.0..with.1).ok_or(None)?;
        pieces.push((range.0..range.1, with.to_owned()));
    }
    let rebased = editkit_matcher::rebase::rebase(old, current.as_str(), &pieces).map_err(Some)?;
    let mut moved: Vec<(std::ops::Range<usize>, &str)> =
        rebased.pieces.iter().map(|(range, with)| (range.clone(), with.as_str())).collect();
    moved.sort_by_key(|(range, _)| range.start);
    let merged = current.spliced(&moved).map_err(|_| None)?;
    // A report's lines count the hunks placed before it; the base line it stands for moved
    // as the outside change moved it.
    let mut delta: isize = 0;
    for (report, (old_lines, new_lines)) in reports.iter_mut().zip(&windows) {
        let base_line = (report.line as isize - delta).max(1) as usize;
        let shift = rebased.line(base_line) as isize - base_line as isize;
        report.line = (report.line as isize + shift).max(1) as usize;
        report.last_line = (report.last_line as isize + shift).max(0) as usize;
        delta += new_lines.len() as isize - old_lines.len() as isize;
    }
    Ok((merged, reports))
}
