//! Building the replacement text: escapes, trailing newline, re-indentation.
//!
//! The new text is re-indented by the indentation delta between the old text and the matched
//! region (tabs stay tabs); `Replaced::inserted` gives the new text's ranges so callers can splice
//! with the vfs codec. `plan_replace`/`plan_replace_all` decide the same replacement (same checks,
//! same errors) without building the new text (`Planned`: each match with the piece that goes
//! there), for callers that splice into their own copy.
//!
//! On the tolerant rungs other than block_anchor, a whole-line match whose lines are nested
//! otherwise than the old text's (two lines indented alike in one and not in the other, or in the
//! opposite order; a consistent change of width or style is no mismatch) is refused as `Unaligned`
//! naming the two lines (`nesting_mismatch`): the new text's indentation would be a guess. The
//! text a replacement makes is counted before each piece is built; past
//! `Limits::max_output_bytes` it is `OutputTooLarge`, having built at most that much.

use std::borrow::Cow;

use crate::Rung;
use crate::normalise::{self, TAB_WIDTH};

/// The text that replaces one match.
///
/// - On the escape rung, a single-line `new` written with the same literal escapes is unescaped.
/// - When `old` ends with `\n` but the match does not (the file's last line), one trailing `\n`
///   of `new` is dropped so the file does not grow a line.
/// - On the indentation-flexible rung, which leaves the needle's leading and trailing blank
///   lines out of the match, as many blank lines are dropped from `new`'s ends.
/// - On a tolerant rung matching whole lines whose indentation differs from the needle's, `new`
///   is re-indented by the same delta, in the file's style (tabs stay tabs).
pub(crate) fn replacement<'t>(
    new: &'t str,
    needle: &str,
    matched: &str,
    rung: Rung,
    whole_lines: bool,
) -> Cow<'t, str> {
    let mut text = Cow::Borrowed(new);
    if rung == Rung::CanonicalEquivalent {
        text = crate::canonical::in_form_of(matched, text);
    }
    if rung == Rung::EscapeNormalised && !new.contains('\n') && new.contains('\\') {
        text = Cow::Owned(normalise::unescape(new));
    }
    if needle.ends_with('\n') && !matched.ends_with('\n') && text.ends_with('\n') {
        let mut owned = text.into_owned();
        owned.pop();
        text = Cow::Owned(owned);
    }
    if rung == Rung::IndentationFlexible
        && let Some(trimmed) = drop_blank_edges(&text, needle)
    {
        text = Cow::Owned(trimmed);
    }
    if whole_lines
        && rung != Rung::Exact
        && let Some(reindented) = reindent(&text, needle, matched)
    {
        text = Cow::Owned(reindented);
    }
    text
}

/// Blank lines before the first and after the last non-blank line (a final `\n` ends a line,
/// it does not start a blank one).
fn blank_edges(text: &str) -> (usize, usize) {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let parts: Vec<&str> = body.split('\n').collect();
    let lead = parts.iter().take_while(|line| normalise::is_blank(line)).count();
    if lead == parts.len() {
        return (0, 0);
    }
    (lead, parts.iter().rev().take_while(|line| normalise::is_blank(line)).count())
}

/// `new` without as many leading and trailing blank lines as the needle has (the ones the
/// match left out), or `None` when there are none to drop.
fn drop_blank_edges(new: &str, needle: &str) -> Option<String> {
    let (needle_lead, needle_trail) = blank_edges(needle);
    let (new_lead, new_trail) = blank_edges(new);
    let (lead, trail) = (needle_lead.min(new_lead), needle_trail.min(new_trail));
    if lead == 0 && trail == 0 {
        return None;
    }
    let (body, terminator) = match new.strip_suffix('\n') {
        Some(body) => (body, "\n"),
        None => (new, ""),
    };
    let parts: Vec<&str> = body.split('\n').collect();
    let kept = parts.get(lead..parts.len() - trail)?;
    Some(format!("{}{terminator}", kept.join("\n")))
}

fn first_non_blank(text: &str) -> Option<&str> {
    text.split('\n').find(|line| !normalise::is_blank(line))
}

fn uses_tabs(first: &str, text: &str) -> bool {
    let indent = normalise::indent_of(first);
    if !indent.is_empty() {
        return indent.starts_with('\t');
    }
    text.split('\n').any(|line| !normalise::is_blank(line) && normalise::indent_of(line).starts_with('\t'))
}

fn unit_of<'a>(lines: impl Iterator<Item = &'a str>, base_cols: usize) -> Option<usize> {
    normalise::indent_unit(
        lines
            .filter(|line| !normalise::is_blank(line))
            .map(|line| normalise::indent_cols(line) as isize - base_cols as isize),
    )
}

fn render_indent(cols: usize, tabs: bool) -> String {
    if tabs {
        let mut indent = "\t".repeat(cols / TAB_WIDTH);
        indent.push_str(&" ".repeat(cols % TAB_WIDTH));
        indent
    } else {
        " ".repeat(cols)
    }
}

/// Two lines (0-based, counted in `matched`) whose nesting the needle gives otherwise: indented
/// alike in one and not in the other, or in the opposite order. The needle's non-blank lines
/// are paired with the region's in order; any consistent change of width or style (2 spaces for
/// 4, tabs for spaces, the whole block shifted) is no mismatch. `None` when they agree, or when
/// the two do not have as many non-blank lines (the rung pairs them otherwise).
pub(crate) fn nesting_mismatch(needle: &str, matched: &str) -> Option<(usize, usize)> {
    let needle_lines: Vec<usize> =
        needle.split('\n').filter(|line| !normalise::is_blank(line)).map(normalise::indent_cols).collect();
    let file_lines: Vec<(usize, usize)> = matched
        .split('\n')
        .enumerate()
        .filter(|(_, line)| !normalise::is_blank(line))
        .map(|(at, line)| (at, normalise::indent_cols(line)))
        .collect();
    if needle_lines.len() != file_lines.len() {
        return None;
    }
    // Alike must stay alike: each needle indentation maps to one file indentation (the first
    // line showing it is kept to name). Then the order must hold: over the needle's distinct
    // indentations, ascending, the file's must ascend too. O(n log n) in the lines.
    let mut map: std::collections::BTreeMap<usize, (usize, usize)> = std::collections::BTreeMap::new();
    for (needle, &(at, file)) in needle_lines.iter().zip(&file_lines) {
        match map.get(needle) {
            Some(&(mapped, first)) if mapped != file => return Some((first, at)),
            Some(_) => {}
            None => {
                map.insert(*needle, (file, at));
            }
        }
    }
    let mut previous: Option<(usize, usize)> = None;
    for &(file, at) in map.values() {
        if let Some((before, before_at)) = previous
            && file <= before
        {
            return Some((before_at.min(at), before_at.max(at)));
        }
        previous = Some((file, at));
    }
    None
}

/// `new` shifted from the needle's indentation to the file's, or `None` when nothing changes.
pub(crate) fn reindent(new: &str, needle: &str, matched: &str) -> Option<String> {
    let needle_first = first_non_blank(needle)?;
    let file_first = first_non_blank(matched)?;
    let needle_indent = normalise::indent_of(needle_first);
    let file_indent = normalise::indent_of(file_first);
    let needle_tabs = uses_tabs(needle_first, needle) || uses_tabs(needle_first, new);
    let file_tabs = uses_tabs(file_first, matched);
    let needle_cols = normalise::indent_cols(needle_first);
    let file_cols = normalise::indent_cols(file_first);
    // A one-line needle shows no step: `new`, written in the needle's style, may.
    let needle_unit = unit_of(needle.split('\n'), needle_cols).or_else(|| unit_of(new.split('\n'), needle_cols));
    let file_unit = unit_of(matched.split('\n'), file_cols);
    // Scale relative indentation only when both sides show a step and the steps differ.
    let scale = match (needle_unit, file_unit) {
        (Some(from), Some(to)) if from != to => Some((from, to)),
        (Some(from), None) if file_tabs && !needle_tabs && from != TAB_WIDTH => Some((from, TAB_WIDTH)),
        _ => None,
    };
    if needle_indent == file_indent && needle_tabs == file_tabs && scale.is_none() {
        return None;
    }
    let relative_of = |line: &str| {
        let mut relative = normalise::indent_cols(line) as isize - needle_cols as isize;
        if let Some((from, to)) = scale {
            relative = relative * to as isize / from as isize;
        }
        relative
    };
    // Lines that would land left of column 0 move the whole block right instead, so the
    // nesting inside `new` survives.
    let lowest = new
        .split('\n')
        .filter(|line| !normalise::is_blank(line))
        .map(|line| file_cols as isize + relative_of(line))
        .min();
    let shift = lowest.map_or(0, |lowest| (-lowest).max(0));
    let same_style = needle_tabs == file_tabs && scale.is_none() && shift == 0;
    let lines: Vec<String> = new
        .split('\n')
        .map(|line| {
            if normalise::is_blank(line) {
                return line.to_owned();
            }
            if same_style && let Some(rest) = line.strip_prefix(needle_indent) {
                return format!("{file_indent}{rest}");
            }
            let cols = (file_cols as isize + relative_of(line) + shift).max(0) as usize;
            format!("{}{}", render_indent(cols, file_tabs), line.trim_start())
        })
        .collect();
    Some(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pairwise definition, quadratic: the one `nesting_mismatch` must agree with.
    fn mismatch_by_pairs(needle: &[usize], file: &[usize]) -> bool {
        let pairs: Vec<(usize, usize)> = needle.iter().copied().zip(file.iter().copied()).collect();
        pairs.iter().enumerate().any(|(i, a)| pairs[i + 1..].iter().any(|b| a.0.cmp(&b.0) != a.1.cmp(&b.1)))
    }

    fn indented(indents: &[usize]) -> String {
        indents.iter().map(|n| format!("{}x", " ".repeat(*n))).collect::<Vec<_>>().join("\n")
    }

    proptest::proptest! {
        #[test]
        fn nesting_mismatch_agrees_with_every_pair(
            pairs in proptest::collection::vec((0usize..4, 0usize..4), 0..12)
        ) {
            let needle: Vec<usize> = pairs.iter().map(|p| p.0 * 2).collect();
            let file: Vec<usize> = pairs.iter().map(|p| p.1 * 4).collect();
            let found = nesting_mismatch(&indented(&needle), &indented(&file));
            proptest::prop_assert_eq!(found.is_some(), mismatch_by_pairs(&needle, &file));
            if let Some((a, b)) = found {
                proptest::prop_assert!(a < b && b < pairs.len());
                proptest::prop_assert!(needle[a].cmp(&needle[b]) != file[a].cmp(&file[b]));
            }
        }
    }

    #[test]
    fn nesting_mismatch_is_not_quadratic_in_the_lines() {
        // 200,000 lines nested alike on both sides: a quadratic check would not finish.
        let needle: Vec<usize> = (0..200_000).map(|i| (i % 3) * 2).collect();
        let file: Vec<usize> = needle.iter().map(|n| n * 2).collect();
        assert_eq!(nesting_mismatch(&indented(&needle), &indented(&file)), None);
    }

    #[test]
    fn spaces_shift_by_the_delta() {
        let out = reindent("if x:\n    y()\nz()", "if x:\n    a()", "    if x:\n        a()");
        assert_eq!(out.as_deref(), Some("    if x:\n        y()\n    z()"));
    }

    #[test]
    fn tabs_stay_tabs() {
        let out = reindent("if x:\n    y()", "if x:\n    a()", "\tif x:\n\t\ta()");
        assert_eq!(out.as_deref(), Some("\tif x:\n\t\ty()"));
    }

    #[test]
    fn dedented_lines_move_by_columns() {
        let out = reindent("    a()\nb()", "    a()", "        a()");
        assert_eq!(out.as_deref(), Some("        a()\n    b()"));
    }

    #[test]
    fn equal_indentation_changes_nothing() {
        assert_eq!(reindent("  b", "  a", "  a"), None);
    }

    #[test]
    fn step_is_scaled() {
        let out = reindent("if x:\n  y()", "if x:\n  a()", "if x:\n    a()");
        assert_eq!(out.as_deref(), Some("if x:\n    y()"));
    }
}
