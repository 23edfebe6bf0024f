use super::*;

fn at(line: u32, character: u32) -> Position {
    Position { line, character }
}

#[test]
fn columns_count_utf16_units_or_bytes() {
    let text = "a😀b\r\né\rx\n";
    let index = LineIndex::new(text);
    assert_eq!(index.line_count(), 4);
    assert_eq!(index.offset(at(0, 3), Encoding::Utf16), Some(5));
    assert_eq!(index.offset(at(0, 5), Encoding::Utf8), Some(5));
    assert_eq!(index.offset(at(0, 2), Encoding::Utf16), None, "inside the surrogate pair");
    assert_eq!(index.offset(at(1, 1), Encoding::Utf16), Some(10));
    assert_eq!(index.offset(at(2, 0), Encoding::Utf16), Some(11), "a lone \\r ends a line");
    assert_eq!(index.offset(at(3, 0), Encoding::Utf16), Some(13));
    assert_eq!(index.offset(at(4, 0), Encoding::Utf16), None);
    assert_eq!(index.offset(at(1, 99), Encoding::Utf16), Some(10), "past the end: the line's end");
    assert_eq!(index.position(5, Encoding::Utf16), Some(at(0, 3)));
    assert_eq!(index.position(7, Encoding::Utf16), None, "inside \\r\\n");
    assert_eq!(index.position(2, Encoding::Utf16), None, "inside a character");
    assert_eq!(index.position(99, Encoding::Utf16), None);
}

proptest::proptest! {
    /// Every byte offset that is a place between characters (not inside a `\r\n`) maps to a
    /// position and back, in both encodings.
    #[test]
    fn offsets_round_trip(text in "(a|é|😀|\r\n|\n|\r| ){0,40}") {
        let index = LineIndex::new(&text);
        for offset in 0..=text.len() {
            let inside_crlf = offset > 0 && text.as_bytes().get(offset - 1) == Some(&b'\r') && text.as_bytes().get(offset) == Some(&b'\n');
            for encoding in [Encoding::Utf8, Encoding::Utf16] {
                let position = index.position(offset, encoding);
                if !text.is_char_boundary(offset) || inside_crlf {
                    proptest::prop_assert_eq!(position, None);
                } else {
                    let position = position.expect("a boundary has a position");
                    proptest::prop_assert_eq!(index.offset(position, encoding), Some(offset));
                }
            }
        }
    }
}
