//! A lexical proof that a place of a Python change leaves every token as it was: it changes
//! only comments, trailing spaces and tabs, or the text inside plain string literals. Such a
//! place cannot add or remove a syntax error (the parser sees the same tokens on the same
//! lines), so the check of a change made in several places needs no parse for it.
//!
//! The proof is conservative: a place counts only when it has the same number of lines in
//! both texts, each old line and its new line give the same skeleton (the code with comments
//! and trailing blanks cut, every string's text replaced by a mark), and nothing on them is
//! left to doubt: no backslash, NUL or lone carriage return, no f-string or t-string, no
//! quoted string left open at a line end, nothing but ASCII in a bytes literal, and nothing in
//! the first two lines (a coding declaration). Where the lexical state at the place's start
//! is not established (something the scan refuses before it), nothing after counts.

use std::ops::Range;

use crate::region::{Lex, Scanner};

/// Where the mini lexer stands at a line start: in code, or inside a triple-quoted string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Code,
    /// Inside a triple-quoted string of `quote`; `bytes`: a bytes literal.
    Triple {
        quote: u8,
        bytes: bool,
    },
}

/// `new` with each neutral place of the change from `old` put back as `old` has it, and the
/// neutral places (old range, new range); `None` when no place is neutral or the change has
/// fewer than two places.
pub(crate) struct Reverted {
    pub(crate) text: String,
    /// The neutral places: each one's bytes in the old text, in `text` and in the new text.
    pub(crate) places: Vec<(Range<usize>, Range<usize>)>,
}

/// The neutral places of a Python change from `old` to `new`, made in `places` (from
/// [`crate::region::places`]: whole lines, in order, the text between them the same).
pub(crate) fn neutral_places(
    old: &str,
    new: &str,
    places: &[(Range<usize>, Range<usize>)],
) -> Vec<(Range<usize>, Range<usize>)> {
    let (old_bytes, new_bytes) = (old.as_bytes(), new.as_bytes());
    // Only a place that keeps its line count can be neutral: where none does (statements
    // inserted or removed), nothing is scanned.
    let lines = |bytes: &[u8], range: &Range<usize>| {
        memchr::memchr_iter(b'\n', bytes.get(range.clone()).unwrap_or_default()).count()
    };
    if !places.iter().any(|(old_place, new_place)| lines(old_bytes, old_place) == lines(new_bytes, new_place)) {
        return Vec::new();
    }
    // Not in the first two lines, where a comment can declare the encoding.
    // (In the new text as well: a place removed before can bring a line up to them.)
    let second_line_end = |bytes: &[u8]| memchr::memchr_iter(b'\n', bytes).nth(1).map_or(bytes.len(), |nl| nl + 1);
    let (old_head, new_head) = (second_line_end(old_bytes), second_line_end(new_bytes));
    let mut scanner = Scanner::new(old_bytes);
    let mut boundary = 0;
    let mut next = scanner.next_boundary();
    // The end of the last neutral place in the old text, and the state there.
    let mut lexed: Option<(usize, State)> = None;
    let mut found = Vec::new();
    for (old_place, new_place) in places {
        while let Some(at) = next.filter(|&at| at <= old_place.start) {
            boundary = at;
            next = scanner.next_boundary();
        }
        if scanner.anomaly().is_some_and(|anomaly| anomaly.at() < old_place.end) {
            break;
        }
        if old_place.start < old_head || new_place.start < new_head {
            lexed = None;
            continue;
        }
        // The state at the place's start: scanned on from the last neutral place when no
        // statement started in between, else from the statement's start (a clean state).
        let (from, open) = match lexed {
            Some((at, state)) if at >= boundary && at <= old_place.start => (at, state),
            _ => (boundary, State::Code),
        };
        let open = match open {
            State::Code => None,
            State::Triple { quote, .. } => Some(quote),
        };
        let state = match crate::region::state_at(old_bytes, from, old_place.start, open) {
            Some(None) => State::Code,
            Some(Some((quote, start, false))) => {
                // Opened before `from`: a bytes literal is known from the state kept.
                let bytes = match lexed {
                    Some((_, State::Triple { bytes, .. })) if start == from => bytes,
                    _ => plain_prefix(old_bytes, start) == Some(true),
                };
                State::Triple { quote, bytes }
            }
            _ => {
                lexed = None;
                continue;
            }
        };
        let old_lines = old_bytes.get(old_place.clone()).unwrap_or_default();
        let new_lines = new_bytes.get(new_place.clone()).unwrap_or_default();
        match alike(old_lines, new_lines, state) {
            Some(after) => {
                found.push((old_place.clone(), new_place.clone()));
                lexed = Some((old_place.end, after));
            }
            None => lexed = None,
        }
    }
    found
}

/// `new` with the neutral places of the change from `old` put back as `old` has them.
pub(crate) fn revert(old: &str, new: &str, neutral: Vec<(Range<usize>, Range<usize>)>) -> Reverted {
    let mut text = String::with_capacity(old.len().max(new.len()));
    let mut copied = 0;
    let mut places = Vec::with_capacity(neutral.len());
    for (old_place, new_place) in neutral {
        text.push_str(new.get(copied..new_place.start).unwrap_or_default());
        let at = text.len();
        text.push_str(old.get(old_place.clone()).unwrap_or_default());
        places.push((at..text.len(), new_place.clone()));
        copied = new_place.end;
    }
    text.push_str(new.get(copied..).unwrap_or_default());
    Reverted { text, places }
}

impl Reverted {
    /// The offset in the new text of `at`, an offset of the reverted text at a line start or
    /// at its end: the lines of a neutral place are as many in both.
    pub(crate) fn to_new(&self, new: &str, at: usize) -> usize {
        let mut delta: isize = 0;
        for (reverted, new_place) in &self.places {
            if reverted.end <= at {
                delta += new_place.len() as isize - reverted.len() as isize;
                continue;
            }
            if reverted.start < at {
                // Inside a place: the same line of the new one.
                let lines =
                    memchr::memchr_iter(b'\n', self.text.as_bytes().get(reverted.start..at).unwrap_or_default())
                        .count();
                let bytes = new.as_bytes().get(new_place.clone()).unwrap_or_default();
                let offset = memchr::memchr_iter(b'\n', bytes).nth(lines.wrapping_sub(1)).map_or(0, |nl| nl + 1);
                return if lines == 0 { new_place.start } else { new_place.start + offset };
            }
            break;
        }
        usize::try_from(at as isize + delta).unwrap_or(new.len()).min(new.len())
    }
}

/// The prefix of a string opening at `at` in `text` (the word characters before the quote,
/// lowercased, at most 3): `None` for an f-string or a t-string, else whether it is bytes.
fn plain_prefix(text: &[u8], at: usize) -> Option<bool> {
    let before = text.get(..at).unwrap_or_default();
    let word = before.iter().rev().take_while(|&&byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte >= 0x80);
    let mut bytes = false;
    for byte in word.take(3) {
        match byte.to_ascii_lowercase() {
            b'f' | b't' => return None,
            b'b' => bytes = true,
            _ => {}
        }
    }
    Some(bytes)
}

/// Whether the lines `old` and `new` (whole lines, entered in `state`) have the same
/// skeletons line by line; the state after them.
fn alike(old: &[u8], new: &[u8], state: State) -> Option<State> {
    let mut old_lines = old.split_inclusive(|&byte| byte == b'\n');
    let mut new_lines = new.split_inclusive(|&byte| byte == b'\n');
    let (mut old_skeleton, mut new_skeleton) = (Vec::new(), Vec::new());
    let mut state = state;
    loop {
        match (old_lines.next(), new_lines.next()) {
            (None, None) => return Some(state),
            (Some(old_line), Some(new_line)) => {
                old_skeleton.clear();
                new_skeleton.clear();
                let old_after = line_skeleton(old_line, state, &mut old_skeleton)?;
                let new_after = line_skeleton(new_line, state, &mut new_skeleton)?;
                if old_after != new_after || old_skeleton != new_skeleton {
                    return None;
                }
                state = new_after;
            }
            _ => return None,
        }
    }
}

/// The mark a string's text leaves in a skeleton (a NUL: none is let through).
const TEXT: u8 = 0;

/// Writes the skeleton of `line` (one line with its line end, entered in `state`) to `out`:
/// its code with the comment and the blanks before the line end cut, each string's text
/// replaced by [`TEXT`]; the state after it. `None` for what the proof does not follow.
fn line_skeleton(line: &[u8], state: State, out: &mut Vec<u8>) -> Option<State> {
    let end = line.len() - usize::from(line.ends_with(b"\n"));
    let end = end - usize::from(line.get(..end).is_some_and(|body| body.ends_with(b"\r")));
    let (body, line_end) = line.split_at(end);
    let mut state = state;
    let mut i = 0;
    loop {
        match state {
            State::Triple { quote, bytes } => {
                let (end, closed) = string_text(body, i, quote, true, bytes, out)?;
                i = end;
                if !closed {
                    break;
                }
                state = State::Code;
            }
            State::Code => {
                let Some(&byte) = body.get(i) else {
                    while out.last().is_some_and(|&byte| byte == b' ' || byte == b'\t') {
                        out.pop();
                    }
                    break;
                };
                match byte {
                    b'#' => {
                        if body.get(i..).unwrap_or_default().iter().any(|&byte| byte == 0 || byte == b'\r') {
                            return None;
                        }
                        // A comment alone on its line keeps its column: the indentation of
                        // comment lines decides where a block's end is put among them.
                        if out.iter().all(|&byte| matches!(byte, b' ' | b'\t' | b'\x0c')) {
                            out.push(b'#');
                        }
                        i = body.len();
                    }
                    b'\\' | 0 | b'\r' => return None,
                    b'\'' | b'"' => {
                        let bytes = plain_prefix(body, i)?;
                        let triple = body.get(i + 1) == Some(&byte) && body.get(i + 2) == Some(&byte);
                        if triple {
                            out.extend_from_slice(&[byte; 3]);
                            i += 3;
                            state = State::Triple { quote: byte, bytes };
                            continue;
                        }
                        out.push(byte);
                        let (end, closed) = string_text(body, i + 1, byte, false, bytes, out)?;
                        if !closed {
                            return None;
                        }
                        i = end;
                    }
                    _ => {
                        out.push(byte);
                        i += 1;
                    }
                }
            }
        }
    }
    out.extend_from_slice(line_end);
    Some(state)
}

/// Writes the mark of a string's text to `out`: the text of `body` from `from` (after the
/// opening quotes) to the closing quotes or the line's end; where that ends (after the closing
/// quotes) and whether the quotes close it on this line. The mark is [`TEXT`] for any text
/// without a backslash, the text itself with one (an escape is kept as it was, so it neither
/// ends the string elsewhere nor becomes one CPython refuses). `None` for a NUL or a carriage
/// return, a byte outside ASCII in a bytes literal, or a quoted string open at the line end.
fn string_text(
    body: &[u8],
    from: usize,
    quote: u8,
    triple: bool,
    bytes: bool,
    out: &mut Vec<u8>,
) -> Option<(usize, bool)> {
    let mut i = from;
    let mut escaped = false;
    let closed = loop {
        let Some(&byte) = body.get(i) else { break false };
        match byte {
            0 | b'\r' => return None,
            _ if bytes && !byte.is_ascii() => return None,
            b'\\' => {
                escaped = true;
                i += 2;
            }
            _ if byte == quote && (!triple || (body.get(i + 1) == Some(&quote) && body.get(i + 2) == Some(&quote))) => {
                break true;
            }
            _ => i += 1,
        }
    };
    let end = i.min(body.len());
    if escaped {
        out.extend_from_slice(body.get(from..end).unwrap_or_default());
    } else {
        out.push(TEXT);
    }
    if !closed {
        return triple.then_some((body.len(), false));
    }
    let quotes = if triple { 3 } else { 1 };
    out.extend(std::iter::repeat_n(quote, quotes));
    Some((end + quotes, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn neutral(old: &str, new: &str) -> usize {
        neutral_places(old, new, &crate::region::places(old, new)).len()
    }

    const HEAD: &str = "# one\n# two\n";

    #[test]
    fn comments_and_string_text_are_neutral() {
        let old = format!(
            "{HEAD}x = 1\ny = 'abc'\nz = f'{{x}}'\nw = b'\\n'\ndef f():\n    \"\"\"Doc\n    more\n    \"\"\"\n    return (1,\n        2)\n"
        );
        for (from, to) in [
            ("x = 1\n", "x = 1  # patched\n"),
            ("'abc'", "'abd # not a comment'"),
            ("    more\n", "    more  # in a docstring\n"),
            ("    \"\"\"\n    return", "    \"\"\"  # after it\n    return"),
            ("        2)\n", "        2)  # in brackets\n"),
            ("w = b'\\n'\n", "w = b'\\n'  # an escape kept as it was\n"),
            ("def f():\n", "def f():  # after an f-string\n"),
        ] {
            let new = old.replacen(from, to, 1);
            assert_eq!(neutral(&old, &new), 1, "{to:?}");
        }
    }

    #[test]
    fn code_and_doubtful_text_are_not_neutral() {
        let old = format!("{HEAD}x = 1 + \\\n    2\ny = b'abc'\nz = f'{{a}}'\nw = 1\n");
        for (from, to) in [
            ("1 + \\\n", "1 + \\  # c\n"),
            ("b'abc'", "b'ab\u{e9}'"),
            ("'abc'", "'ab\\c'"),
            ("f'{a}'", "f'{a} # x'"),
            ("w = 1\n", "w = 2\n"),
            ("w = 1\n", "w = 1 \\\n"),
            ("w = 1\n", "w = 1  # a\rb\n"),
            ("w = 1\n", "w = 1\n# a new line\n"),
            ("w = 1\n", "w = 1  # \u{0}\n"),
        ] {
            let new = old.replacen(from, to, 1);
            assert_ne!(old, new, "{from:?}");
            assert_eq!(neutral(&old, &new), 0, "{to:?}");
        }
        // A coding declaration in the first two lines, also when a line removed before
        // brings it up there.
        assert_eq!(neutral("# a\nx = 1\n", "# -*- coding: latin-1 -*-\nx = 1\n"), 0);
        let old = "x = 1\ny = 2\n# a\nz = 3\n";
        assert_eq!(neutral(old, "y = 2\n# -*- coding: latin-1 -*-\nz = 3\n"), 0);
        assert_eq!(neutral(old, "x = 1\ny = 2\n# -*- coding: latin-1 -*-\nz = 3\n"), 1);
        // After a string the scan cannot close.
        assert_eq!(neutral(&format!("{HEAD}s = '''\nx = 1\n"), &format!("{HEAD}s = '''\nx = 1 # c\n")), 0);
    }

    #[test]
    fn a_reverted_text_maps_its_line_starts_to_the_new_text() {
        let old = format!("{HEAD}a = 1\n\nb = 2\n\nc = 3\nd = 4\n");
        let new = format!("{HEAD}a = 1  # x\n\nb = 20\n\nc = 3  # y\nd = 4\n");
        let places = crate::region::places(&old, &new);
        let reverted = revert(&old, &new, neutral_places(&old, &new, &places));
        assert_eq!(reverted.text, format!("{HEAD}a = 1\n\nb = 20\n\nc = 3\nd = 4\n"));
        let line = |text: &str, n: usize| text.match_indices('\n').nth(n - 1).map_or(0, |(at, _)| at + 1);
        for n in 1..=8 {
            assert_eq!(reverted.to_new(&new, line(&reverted.text, n)), line(&new, n), "line {}", n + 1);
        }
        assert_eq!(reverted.to_new(&new, reverted.text.len()), new.len());
    }

    /// A xorshift generator: the same edits on every run.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n.max(1) as u64) as usize
        }
    }

    /// One edit of one line: mostly what leaves the tokens alone (a comment, text inside a
    /// string, blanks), some that do not (a quote, a backslash, a bracket, code).
    fn edit_line(line: &str, rng: &mut Rng) -> String {
        let (body, end) = line.strip_suffix('\n').map_or((line, ""), |body| (body, "\n"));
        let columns: Vec<usize> = body.char_indices().map(|(at, _)| at).chain([body.len()]).collect();
        let at = columns[rng.below(columns.len())];
        let inserted = ["  # patched", " #", "x", "#", "'", "\"", "\\", "{", ")", "\u{e9}", "   ", "\"\"\"", "# c"];
        match rng.below(4) {
            0 => format!("{body}{}{end}", inserted[rng.below(3)]),
            1 => format!("{}{}{}{end}", &body[..at], inserted[rng.below(inserted.len())], &body[at..]),
            2 => format!("{body} \\{end}"),
            _ => format!("{}# c{end}", " ".repeat(rng.below(9))),
        }
    }

    #[test]
    fn a_text_with_its_neutral_places_put_back_parses_clean_exactly_when_it_does() {
        let files = crate::python_corpus();
        let mut texts: Vec<(String, String)> =
            files.iter().map(|path| (path.display().to_string(), std::fs::read_to_string(path).unwrap())).collect();
        // What the corpus has little of, many times over.
        let tricky = concat!(
            "# one\n# two\nx = 1 + \\\n    2\ns = 'a\\'b' \\\n    'c'\nb = b'\\x00'  # c\n",
            "f = f'{x!r:>{w}} {{' + rf\"\\d{x}\"\nt = '''a\n  b \\\n'''\nd = {\n    'k': [1,  # one\n          2],\n}\n",
            "@dec  # c\ndef g(a,\n      b):\n    \"\"\"Doc\n\n    # not a comment\n    \"\"\"\n    if a:\n        return b\n",
            "# a comment\n    else:\n        pass\n",
            "g = f\"{a} and {b + c}\" + f'{d[0]}'\n",
        );
        texts.push(("tricky".to_owned(), tricky.repeat(20)));
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut neutral_found, mut other_found, mut mixed_clean) = (0, 0, 0);
        for (name, old) in &texts {
            let lines: Vec<&str> = old.split_inclusive('\n').collect();
            // Lines with a quote, a backslash or a comment: where a mistake would be.
            let doubtful: Vec<usize> =
                (0..lines.len()).filter(|&at| lines[at].contains(['\'', '"', '\\', '#'])).collect();
            for _ in 0..12 {
                let mut edited: Vec<String> = lines.iter().map(|line| (*line).to_owned()).collect();
                for _ in 0..2 + rng.below(4) {
                    let at = match rng.below(2) {
                        0 if !doubtful.is_empty() => doubtful[rng.below(doubtful.len())],
                        _ => rng.below(edited.len()),
                    };
                    edited[at] = edit_line(&edited[at], &mut rng);
                }
                let new = edited.concat();
                let places = crate::region::places(old, &new);
                let neutral = neutral_places(old, &new, &places);
                neutral_found += neutral.len();
                other_found += places.len() - neutral.len();
                let reverted = revert(old, &new, neutral);
                let whole = |text: &str| crate::check_syntax(crate::FileKind::Python, text).unwrap().valid;
                let (new_valid, reverted_valid) = (whole(&new), whole(&reverted.text));
                assert_eq!(new_valid, reverted_valid, "{name}: {:?}", crate::region::places(&reverted.text, &new));
                mixed_clean += usize::from(new_valid && reverted.text != *old);
            }
        }
        assert!(neutral_found > 300 && other_found > 300, "{neutral_found} neutral places, {other_found} others");
        assert!(mixed_clean > 20, "{mixed_clean} clean texts with neutral places");
    }

    #[test]
    fn the_compile_check_gets_the_new_text_of_the_statements_it_judges() {
        let old = format!("{HEAD}a = 1\n\ndef f(x):\n    return f'{{x!r:>{{w}}}}'\n\nb = 2\n\nc = 3\n");
        // Comments on two lines (neutral), and an f-string changed: a construct the compile
        // check judges, in a part of the reverted text that has to be found in the new one.
        let new = old.replace("a = 1\n", "a = 1  # one\n").replace("x!r", "x!s").replace("c = 3\n", "c = 3  # two\n");
        let report = crate::check_change(crate::FileKind::Python, Some(&old), &new).unwrap();
        assert!(report.valid() && report.stricter, "{report:#?}");
        let checked = &new[report.checked.clone()];
        assert!(checked.contains("x!s") && checked.ends_with('\n'), "{checked:?}");
        assert!(report.checked.start == 0 || new.as_bytes()[report.checked.start - 1] == b'\n');
        assert_eq!(new[..report.checked.start].matches('\n').count(), report.checked_lines_before);
        assert!(!checked.contains("c = 3"), "{checked:?}");
    }
}
