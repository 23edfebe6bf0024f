//! Property tests of the text codec.

use editkit_vfs::{LineEndings, Text};
use proptest::prelude::*;

/// Arbitrary text built from lines with any mix of terminators, optional BOM.
fn file_bytes() -> impl Strategy<Value = Vec<u8>> {
    let line = "[a-zé\u{4e2d}\t \u{1F600}]{0,12}";
    let ending = prop_oneof![Just("\n"), Just("\r\n"), Just("\r"), Just("")];
    (any::<bool>(), prop::collection::vec((line, ending), 0..12)).prop_map(|(bom, lines)| {
        let mut out = Vec::new();
        if bom {
            out.extend_from_slice(b"\xEF\xBB\xBF");
        }
        for (line, ending) in lines {
            out.extend_from_slice(line.as_bytes());
            out.extend_from_slice(ending.as_bytes());
        }
        out
    })
}

/// Splits original bytes into (line content, terminator) pairs, the way the codec sees them.
fn raw_lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\n' || bytes[i] == b'\r' {
            let end = if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') { i + 2 } else { i + 1 };
            lines.push(&bytes[start..end]);
            start = end;
            i = end;
        } else {
            i += 1;
        }
    }
    if start < bytes.len() {
        lines.push(&bytes[start..]);
    }
    lines
}

proptest! {
    #[test]
    fn decode_then_encode_is_the_identity(bytes in file_bytes()) {
        let text = Text::decode(&bytes).unwrap();
        prop_assert!(!text.as_str().contains('\r'));
        prop_assert_eq!(text.encode(), bytes);
    }

    #[test]
    fn replacing_a_line_range_changes_no_byte_outside_it(
        bytes in file_bytes(),
        first in 0usize..12,
        count in 0usize..4,
        replacement in "[a-z\n]{0,20}",
    ) {
        let mut text = Text::decode(&bytes).unwrap();
        let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
        let lines: Vec<&str> = text.as_str().split_inclusive('\n').collect();
        let first = first.min(lines.len());
        let last = (first + count).min(lines.len());
        let start: usize = lines[..first].iter().map(|l| l.len()).sum();
        let end: usize = start + lines[first..last].iter().map(|l| l.len()).sum::<usize>();
        // Keep the replacement a whole-line region when it replaces whole lines.
        let mut replacement = replacement;
        if last > first && lines[last - 1].ends_with('\n') && !replacement.ends_with('\n') {
            replacement.push('\n');
        }
        text.splice(start..end, &replacement).unwrap();
        let encoded = text.encode();
        let encoded_body = encoded.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&encoded);
        prop_assert_eq!(encoded.starts_with(b"\xEF\xBB\xBF"), bytes.starts_with(b"\xEF\xBB\xBF"));
        let raw = raw_lines(body);
        let prefix: Vec<u8> = raw[..first].concat();
        let suffix: Vec<u8> = raw[last..].concat();
        prop_assert!(encoded_body.starts_with(&prefix), "prefix changed");
        prop_assert!(encoded_body.ends_with(&suffix), "suffix changed");
        prop_assert!(encoded_body.len() >= prefix.len() + suffix.len());
    }

    #[test]
    fn decoding_owned_bytes_gives_what_decoding_borrowed_ones_gives(
        bytes in prop_oneof![file_bytes(), prop::collection::vec(any::<u8>(), 0..40)],
    ) {
        let owned = Text::decode_owned(bytes.clone());
        prop_assert_eq!(&owned, &Text::decode(&bytes));
        // The same again, with the bytes given back whole where they do not decode.
        match Text::try_decode_owned(bytes.clone()) {
            Ok(text) => prop_assert_eq!(Ok(text), owned.clone()),
            Err((err, back)) => {
                prop_assert_eq!(Err(err), owned.clone());
                prop_assert_eq!(back, bytes.clone());
            }
        }
        if let Ok(text) = owned {
            let encoded = text.encoded();
            prop_assert_eq!(encoded.as_ref(), bytes.as_slice());
            // Borrowed exactly when the text is the bytes.
            let verbatim = !bytes.starts_with(b"\xEF\xBB\xBF") && !bytes.contains(&b'\r');
            prop_assert_eq!(text.verbatim().is_some(), verbatim);
            prop_assert_eq!(matches!(text.encoded(), std::borrow::Cow::Borrowed(_)), verbatim);
        }
    }

    #[test]
    fn splicing_many_ranges_at_once_is_splicing_them_one_by_one_from_the_last(
        bytes in file_bytes(),
        cuts in prop::collection::vec((0usize..200, 0usize..8, "[a-z\r\n]{0,6}"), 0..5),
    ) {
        let text = Text::decode(&bytes).unwrap();
        let s = text.as_str();
        let boundary = |at: usize| (0..=at.min(s.len())).rev().find(|i| s.is_char_boundary(*i)).unwrap_or(0);
        // Sorted, non-overlapping ranges on char boundaries.
        let mut edits = Vec::new();
        let mut from = 0;
        for (start, len, piece) in &cuts {
            let start = boundary(from + start % (s.len() - from + 1));
            if start < from {
                continue;
            }
            let end = boundary(start + len).max(start);
            edits.push((start..end, piece.as_str()));
            from = end;
        }
        let mut one_by_one = text.clone();
        for (range, piece) in edits.iter().rev() {
            one_by_one.splice(range.clone(), piece).unwrap();
        }
        let at_once = text.spliced(&edits).unwrap();
        prop_assert_eq!(at_once.encode(), one_by_one.encode());
        prop_assert_eq!(at_once.line_count(), one_by_one.line_count());
        prop_assert_eq!(at_once.line_endings(), one_by_one.line_endings());
        // Endings are kept as a count exactly while they are all LF: equal texts compare equal
        // whatever splices made them.
        for text in [&at_once, &one_by_one] {
            let all_lf = matches!(text.line_endings(), LineEndings::Lf | LineEndings::None);
            prop_assert_eq!(all_lf && !text.bom(), text.verbatim().is_some());
        }
    }

    #[test]
    fn splice_refuses_ranges_off_char_boundaries(at in 0usize..8) {
        let mut text = Text::decode("héllo\r\nwörld".as_bytes()).unwrap();
        let before = text.clone();
        let result = text.splice(at..at + 1, "x");
        if result.is_err() {
            prop_assert_eq!(text, before);
        }
    }
}

#[test]
fn empty_and_single_line_files() {
    let empty = Text::decode(b"").unwrap();
    assert_eq!(empty.line_count(), 0);
    assert_eq!(empty.line_endings(), editkit_vfs::LineEndings::None);
    let one = Text::decode(b"no newline").unwrap();
    assert_eq!(one.line_count(), 1);
    assert!(!one.trailing_newline());
}

#[test]
fn new_lines_take_the_dominant_ending() {
    let mut text = Text::decode(b"a\r\nb\r\nc\n").unwrap();
    let end = text.as_str().len();
    text.splice(end..end, "d\ne\n").unwrap();
    assert_eq!(text.encode(), b"a\r\nb\r\nc\nd\r\ne\r\n");
}

/// The codec crasher the fuzzer found (`fixtures/fuzz/codec/crash-ebb778e47a503d7a`): a text
/// opening with U+FEDF, whose UTF-8 (`EF BB 9F`) shares its first two bytes with a BOM
/// (`EF BB BF`). It is content, not a BOM, and a splice of the last line keeps every byte before.
#[test]
fn a_character_that_starts_like_a_bom_is_content() {
    let bytes = "\u{fedf}A`\nl\u{fedf}".as_bytes();
    let committed = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/fuzz/codec/crash-ebb778e47a503d7a"),
    )
    .unwrap();
    assert_eq!(committed, bytes);
    let text = Text::decode(bytes).unwrap();
    assert!(!text.bom());
    assert_eq!(text.as_str(), "\u{fedf}A`\nl\u{fedf}");
    assert_eq!(text.encode(), bytes);
    let mut edited = text.clone();
    let last_line = text.as_str().rfind('\n').unwrap() + 1;
    edited.splice(last_line..text.as_str().len(), "X").unwrap();
    assert_eq!(edited.encode(), "\u{fedf}A`\nX".as_bytes());
}

#[test]
fn spliced_refuses_ranges_out_of_order_and_changes_nothing() {
    let text = Text::decode(b"one\ntwo\nthree\n").unwrap();
    let err = text.spliced(&[(4..7, "2"), (0..3, "1")]).unwrap_err();
    assert_eq!((err.start, err.end), (0, 3));
    assert!(text.spliced(&[(0..5, "x"), (4..6, "y")]).is_err(), "overlapping");
    let reversed = std::ops::Range { start: 3, end: 2 };
    assert!(text.spliced(&[(reversed, "x")]).is_err(), "reversed");
    assert!(text.spliced(&[(0..99, "x")]).is_err(), "past the end");
    assert_eq!(text.as_str(), "one\ntwo\nthree\n");
    assert_eq!(text.spliced(&[]).unwrap(), text);
}

/// Every way a file fails to decode gives its bytes back whole.
#[test]
fn bytes_that_do_not_decode_come_back_whole() {
    for (bytes, kind) in [
        (&b"h\0i\0!\0"[..], "utf16"),
        (&b"\xFF\xFEh\0i\0"[..], "utf16"),
        (&b"text\0more"[..], "binary"),
        (&b"caf\xC3(\xA9 \x81\x8D\x8F"[..], "not utf8"),
    ] {
        let (err, back) = Text::try_decode_owned(bytes.to_vec()).unwrap_err();
        assert_eq!(back, bytes, "{kind}");
        assert_eq!(Err(err), Text::decode(bytes), "{kind}");
    }
}
