//! A block-anchor region is not the old text: the agent's change is applied to the file's own
//! lines, a three-way merge with the old text as base.
//!
//! The old text is aligned to the region line by line (whitespace- and typography-normalised
//! equality first, then similar lines within a run of differing ones). The agent's change is
//! the line diff from the old text to the new one. Then:
//! - a line the change keeps is written as the file has it (a misremembered copy is not
//!   written back);
//! - a region line the old text left out is kept where it stands, unless it lies inside a run
//!   of lines the change rewrites, or exactly where the change inserts lines: then which order
//!   was meant cannot be known, and the edit is refused;
//! - a line of the old text that is not in the file (invented) is never written; a change that
//!   rewrites such a line is refused (removing it is a no-op);
//! - with [`crate::MatchOptions::changed_lines_exact`], a line the change removes or rewrites must
//!   stand in the file as in the old text (up to the normalisation above).

use crate::normalise::{self, Level};
use crate::{Alignment, Error};

/// Pairs of lines compared for similarity in one run of differing lines, at most.
const MAX_PAIRED_CELLS: usize = 2_500;
/// Two differing lines at least this similar are the same line, misremembered.
const SIMILAR_LINE: f64 = 0.5;

/// The lines of `text` without terminators (a final `\n` ends the last line) and whether it
/// ended with one.
fn split(text: &str) -> (Vec<&str>, bool) {
    if text.is_empty() {
        return (Vec::new(), false);
    }
    match text.strip_suffix('\n') {
        Some(body) => (body.split('\n').collect(), true),
        None => (text.split('\n').collect(), false),
    }
}

/// A line for a message: at most 60 characters.
fn shorten(line: &str) -> String {
    if line.chars().count() <= 60 {
        return line.to_owned();
    }
    let mut out: String = line.chars().take(59).collect();
    out.push('…');
    out
}

/// How the old text's lines stand in the region.
struct Aligned {
    /// For each old line, the region line it is (`None`: not in the file).
    region_of: Vec<Option<usize>>,
    /// Whether that pair is equal once normalised.
    equal: Vec<bool>,
    /// Region lines the old text left out, by the old line they stand before (`0..=old.len()`).
    left_out: Vec<Vec<usize>>,
}

fn align(old: &[&str], region: &[&str]) -> Aligned {
    let old_keys: Vec<String> = old.iter().map(|l| normalise::key(Level::Whitespace, l)).collect();
    let region_keys: Vec<String> = region.iter().map(|l| normalise::key(Level::Whitespace, l)).collect();
    let mut aligned = Aligned {
        region_of: vec![None; old.len()],
        equal: vec![false; old.len()],
        left_out: vec![Vec::new(); old.len() + 1],
    };
    for op in crate::diff::ops(&old_keys, &region_keys) {
        match op {
            similar::DiffOp::Equal { old_index, new_index, len } => {
                for k in 0..len {
                    aligned.region_of[old_index + k] = Some(new_index + k);
                    aligned.equal[old_index + k] = true;
                }
            }
            similar::DiffOp::Delete { .. } => {}
            similar::DiffOp::Insert { old_index, new_index, new_len } => {
                aligned.left_out[old_index].extend(new_index..new_index + new_len);
            }
            similar::DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                pair_similar(
                    &old_keys,
                    &region_keys,
                    old_index..old_index + old_len,
                    new_index..new_index + new_len,
                    &mut aligned,
                );
            }
        }
    }
    aligned
}

/// Pairs the lines of one run of differing lines by similarity, in order (the best total).
fn pair_similar(
    old_keys: &[String],
    region_keys: &[String],
    olds: std::ops::Range<usize>,
    regions: std::ops::Range<usize>,
    aligned: &mut Aligned,
) {
    let (n, m) = (olds.len(), regions.len());
    let pairs: Vec<Vec<bool>> = if n * m <= MAX_PAIRED_CELLS {
        olds.clone()
            .map(|i| {
                regions
                    .clone()
                    .map(|j| strsim::normalized_levenshtein(&old_keys[i], &region_keys[j]) >= SIMILAR_LINE)
                    .collect()
            })
            .collect()
    } else {
        vec![vec![false; m]; n]
    };
    // Longest chain of similar pairs, in order.
    let mut best = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            let paired = if pairs[i][j] { best[i + 1][j + 1] + 1 } else { 0 };
            best[i][j] = paired.max(best[i + 1][j]).max(best[i][j + 1]);
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && pairs[i][j] && best[i][j] == best[i + 1][j + 1] + 1 {
            aligned.region_of[olds.start + i] = Some(regions.start + j);
            i += 1;
            j += 1;
        } else if j < m && (i == n || best[i][j + 1] >= best[i + 1][j]) {
            aligned.left_out[olds.start + i].push(regions.start + j);
            j += 1;
        } else {
            i += 1;
        }
    }
}

/// The text replacing `region` (the file's lines matched on the block-anchor rung): `replacement`
/// (the new text, already re-indented, line for line with `new`) merged into the region.
///
/// # Errors
/// [`Error::Unaligned`] when the change cannot be applied to the file's lines without guessing.
pub(crate) fn merge<'a>(
    old: &'a str,
    new: &'a str,
    region: &'a str,
    replacement: &'a str,
    first_line: usize,
    changed_lines_exact: bool,
) -> Result<(String, Alignment), Error> {
    let (old_lines, _) = split(old);
    let (new_lines, _) = split(new);
    let (region_lines, _) = split(region);
    let (replacement_lines, replacement_newline) = split(replacement);
    let output_of_new = |j: usize| -> &'a str {
        if replacement_lines.len() == new_lines.len() { replacement_lines[j] } else { new_lines[j] }
    };
    let aligned = align(&old_lines, &region_lines);
    let last_line = first_line + region_lines.len().saturating_sub(1);
    let refuse = |reason: String| Error::Unaligned { first_line, last_line, similarity: 0.0, reason };
    let shown = |line: &str| shorten(&normalise::visible(line));
    let mut out: Vec<&'a str> = Vec::with_capacity(region_lines.len() + new_lines.len());
    let mut emitted_left_out = vec![false; old_lines.len() + 1];
    let mut emit_left_out = |at: usize, out: &mut Vec<&'a str>| {
        if !emitted_left_out[at] {
            emitted_left_out[at] = true;
            out.extend(aligned.left_out[at].iter().map(|&r| region_lines[r]));
        }
    };
    for op in crate::diff::ops(&old_lines, &new_lines) {
        match op {
            similar::DiffOp::Equal { old_index, len, .. } => {
                for i in old_index..old_index + len {
                    emit_left_out(i, &mut out);
                    if let Some(r) = aligned.region_of[i] {
                        out.push(region_lines[r]);
                    }
                }
            }
            similar::DiffOp::Insert { old_index, new_index, new_len } => {
                let inserted = new_index..new_index + new_len;
                let already = aligned.left_out[old_index].len() == new_len
                    && aligned.left_out[old_index].iter().zip(inserted.clone()).all(|(&r, j)| {
                        normalise::key(Level::Whitespace, region_lines[r])
                            == normalise::key(Level::Whitespace, new_lines[j])
                    });
                if already {
                    // The file already holds the inserted lines where the change puts them.
                    emit_left_out(old_index, &mut out);
                    continue;
                }
                if let Some(&r) = aligned.left_out[old_index].first()
                    && old_index > 0
                    && old_index < old_lines.len()
                {
                    return Err(refuse(format!(
                        "the new lines go between two lines that the file separates with line {} (`{}`), which \
                         the old text leaves out",
                        first_line + r,
                        shown(region_lines[r])
                    )));
                }
                emit_left_out(old_index, &mut out);
                out.extend(inserted.map(output_of_new));
            }
            similar::DiffOp::Delete { old_index, old_len, .. } => {
                check_changed(
                    &aligned,
                    &old_lines,
                    &region_lines,
                    old_index..old_index + old_len,
                    false,
                    changed_lines_exact,
                    first_line,
                )
                .map_err(refuse)?;
                emit_left_out(old_index, &mut out);
            }
            similar::DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                check_changed(
                    &aligned,
                    &old_lines,
                    &region_lines,
                    old_index..old_index + old_len,
                    true,
                    changed_lines_exact,
                    first_line,
                )
                .map_err(refuse)?;
                emit_left_out(old_index, &mut out);
                out.extend((new_index..new_index + new_len).map(output_of_new));
            }
        }
    }
    emit_left_out(old_lines.len(), &mut out);
    let mut text = out.join("\n");
    if replacement_newline {
        text.push('\n');
    }
    let alignment = if text == replacement { Alignment::Aligned } else { Alignment::Merged };
    Ok((text, alignment))
}

/// Whether the old lines `changed` (removed, or rewritten when `rewritten`) can be changed in the
/// file: no left-out file line among them, no invented line rewritten, and with `exact` no stale
/// copy of a line removed.
fn check_changed(
    aligned: &Aligned,
    old_lines: &[&str],
    region_lines: &[&str],
    changed: std::ops::Range<usize>,
    rewritten: bool,
    exact: bool,
    first_line: usize,
) -> Result<(), String> {
    let shown = |line: &str| shorten(&normalise::visible(line));
    for at in changed.start + 1..changed.end {
        if let Some(&r) = aligned.left_out[at].first() {
            return Err(format!(
                "line {} (`{}`) stands among the lines the change rewrites and the old text leaves it out",
                first_line + r,
                shown(region_lines[r])
            ));
        }
    }
    for i in changed {
        match aligned.region_of[i] {
            None if rewritten => {
                return Err(format!(
                    "the old text's line `{}` is not in the file, and the change rewrites it",
                    shown(old_lines[i])
                ));
            }
            Some(r) if exact && !aligned.equal[i] => {
                return Err(format!(
                    "the change removes `{}` where line {} of the file is `{}`",
                    shown(old_lines[i]),
                    first_line + r,
                    shown(region_lines[r])
                ));
            }
            _ => {}
        }
    }
    Ok(())
}
