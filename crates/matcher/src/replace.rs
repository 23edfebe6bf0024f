//! Building the replacement text: escapes, trailing newline, re-indentation.

use std::borrow::Cow;

use crate::Rung;
use crate::normalise::{self, TAB_WIDTH};

/// The text that replaces one match.
///
/// - On the escape rung, a single-line `new` written with the same literal escapes is unescaped.
/// - When `old` ends with `\n` but the match does not (the file's last line), one trailing `\n`
///   of `new` is dropped so the file does not grow a line.
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
    if rung == Rung::EscapeNormalised && !new.contains('\n') && new.contains('\\') {
        text = Cow::Owned(normalise::unescape(new));
    }
    if needle.ends_with('\n') && !matched.ends_with('\n') && text.ends_with('\n') {
        let mut owned = text.into_owned();
        owned.pop();
        text = Cow::Owned(owned);
    }
    if whole_lines
        && rung != Rung::Exact
        && let Some(reindented) = reindent(&text, needle, matched)
    {
        text = Cow::Owned(reindented);
    }
    text
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
    let needle_unit = unit_of(needle.split('\n'), needle_cols);
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
    let same_style = needle_tabs == file_tabs && scale.is_none();
    let lines: Vec<String> = new
        .split('\n')
        .map(|line| {
            if normalise::is_blank(line) {
                return line.to_owned();
            }
            if same_style && let Some(rest) = line.strip_prefix(needle_indent) {
                return format!("{file_indent}{rest}");
            }
            let mut relative = normalise::indent_cols(line) as isize - needle_cols as isize;
            if let Some((from, to)) = scale {
                relative = relative * to as isize / from as isize;
            }
            let cols = (file_cols as isize + relative).max(0) as usize;
            format!("{}{}", render_indent(cols, file_tabs), line.trim_start())
        })
        .collect();
    Some(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

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
