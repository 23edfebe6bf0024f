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

/// A chain's merged text and each operation's hunk reports.
pub(crate) type Chained = (Text, Vec<Vec<HunkReport>>);

/// Several operations' hunks on one file, each placed on the result of the one before from
/// `base`, carried over to `current` as one change. Every base line a hunk's window covered
/// (its matched lines, context included) is claimed; each run of claimed lines between two
/// unclaimed ones is one piece, replaced by what the operations made of it, and carried over
/// when it stands unchanged in `current` with one line each side, as one operation's hunks
/// are. Returns the new text and each operation's hunk reports. `Err(lines)`: the base lines
/// of the piece that could not be carried over (`None`: the hunks do not apply to the base,
/// or not by whole lines).
pub(crate) fn merge_chain(
    base: &Text,
    current: &Text,
    chain: &[&[Hunk]],
    strict: bool,
) -> Result<Chained, Option<[usize; 2]>> {
    let base_starts = starts(base.as_str());
    let n = base_starts.len() - 1;
    // For each line of the text so far, the base line it is (`None`: written by a hunk).
    let mut origin: Vec<Option<usize>> = (0..n).map(Some).collect();
    let mut claimed = vec![false; n];
    // Insertion points (before base line p; p = n: at the end) a window with no old line took.
    let mut gaps = vec![false; n + 1];
    let mut text = base.clone();
    let mut all_reports = Vec::with_capacity(chain.len());
    for hunks in chain {
        let (next, reports, windows) = apply_hunks(&text, hunks, strict).map_err(|_| None)?;
        let windows = windows.ok_or(None)?;
        let mut next_origin: Vec<Option<usize>> = Vec::with_capacity(origin.len());
        let mut at = 0;
        for (old, new) in &windows {
            next_origin.extend(origin.get(at..old.start).ok_or(None)?.iter().copied());
            for line in origin.get(old.clone()).ok_or(None)?.iter().flatten() {
                claimed[*line] = true;
            }
            if old.is_empty() {
                match (old.start.checked_sub(1).and_then(|i| origin.get(i).copied().flatten()), origin.get(old.start)) {
                    (_, Some(Some(after))) => gaps[*after] = true,
                    (Some(before), _) => gaps[before + 1] = true,
                    // Next to lines an earlier hunk wrote: inside a claimed run already.
                    _ => {}
                }
            }
            next_origin.extend(std::iter::repeat_n(None, new.len()));
            at = old.end;
        }
        next_origin.extend(origin.get(at..).ok_or(None)?.iter().copied());
        if next_origin.len() != starts(next.as_str()).len() - 1 {
            return Err(None);
        }
        origin = next_origin;
        text = next;
        all_reports.push(reports);
    }
    let (old, new) = (base.as_str(), text.as_str());
    let new_starts = starts(new);
    // Where each unclaimed base line stands in the final text.
    let mut final_of: Vec<Option<usize>> = vec![None; n];
    for (idx, line) in origin.iter().enumerate() {
        if let Some(line) = line {
            final_of[*line] = Some(idx);
        }
    }
    // Pieces between consecutive unclaimed base lines (sentinels: before the first, after the last).
    let unclaimed: Vec<usize> = (0..n).filter(|&line| !claimed[line]).collect();
    let mut pieces = Vec::new();
    let mut before: Option<usize> = None;
    for after in unclaimed.iter().copied().map(Some).chain(std::iter::once(None)) {
        let s = before.map_or(0, |line| line + 1);
        let e = after.unwrap_or(n);
        if s < e || gaps[s] {
            let from = match before {
                Some(line) => final_of[line].ok_or(None)? + 1,
                None => 0,
            };
            let to = match after {
                Some(line) => final_of[line].ok_or(None)?,
                None => new_starts.len() - 1,
            };
            let range = base_starts[s]..base_starts[e];
            let with = new.get(*new_starts.get(from).ok_or(None)?..*new_starts.get(to).ok_or(None)?).ok_or(None)?;
            if old.get(range.clone()) != Some(with) {
                pieces.push((range, with.to_owned()));
            }
        }
        before = after;
    }
    // The pieces on the base make the operations' result, or nothing is carried.
    let mut rebuilt = String::with_capacity(new.len());
    let mut at = 0;
    for (range, with) in &pieces {
        rebuilt.push_str(old.get(at..range.start).ok_or(None)?);
        rebuilt.push_str(with);
        at = range.end;
    }
    rebuilt.push_str(old.get(at..).ok_or(None)?);
    if rebuilt != new {
        return Err(None);
    }
    let rebased = editkit_matcher::rebase::rebase(old, current.as_str(), &pieces).map_err(Some)?;
    let mut moved: Vec<(std::ops::Range<usize>, &str)> =
        rebased.pieces.iter().map(|(range, with)| (range.clone(), with.as_str())).collect();
    moved.sort_by_key(|(range, _)| range.start);
    let merged = current.spliced(&moved).map_err(|_| None)?;
    // Reports keep their operation's numbering, moved as the outside change moved that line.
    for report in all_reports.iter_mut().flatten() {
        let shift = rebased.line(report.line) as isize - report.line as isize;
        report.line = (report.line as isize + shift).max(1) as usize;
        report.last_line = (report.last_line as isize + shift).max(0) as usize;
    }
    Ok((merged, all_reports))
}
