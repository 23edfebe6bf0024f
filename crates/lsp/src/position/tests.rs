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

/// The slow mapping, one position at a time: what [`LineIndex::places`] must equal.
fn slow_place(text: &str, index: &LineIndex<'_>, position: Position, encoding: Encoding) -> Option<Place> {
    let offset = index.offset(position, encoding)?;
    let start = index.line_range(usize::try_from(position.line).ok()?)?.start;
    Some(Place { offset, chars: text.get(start..offset)?.chars().count() })
}

proptest::proptest! {
    /// Positions mapped together give what each gives alone, in any order, with repeats,
    /// past the end of a line or of the text, and inside a character.
    #[test]
    fn places_equal_the_slow_mapping(
        text in "(a|é|😀|\r\n|\n|\r| ){0,60}",
        positions in proptest::collection::vec((0u32..8, 0u32..30), 0..40),
    ) {
        let index = LineIndex::new(&text);
        let positions: Vec<Position> = positions.into_iter().map(|(line, character)| at(line, character)).collect();
        for encoding in [Encoding::Utf8, Encoding::Utf16] {
            let slow: Vec<Option<Place>> =
                positions.iter().map(|position| slow_place(&text, &index, *position, encoding)).collect();
            proptest::prop_assert_eq!(index.places(&positions, encoding), slow);
        }
    }
}

#[test]
fn many_places_on_one_multi_megabyte_line_map_in_one_walk() {
    // `é😀x`: 7 bytes, 3 characters, 4 UTF-16 units, repeated to a 3.5 MB line.
    let repeats: u32 = 500_000;
    let text = format!("first\n{}\nlast", "é😀x".repeat(repeats as usize));
    let index = LineIndex::new(&text);
    let base = 6;
    // 20,000 positions spread over the line, shuffled, each unit of a repeat in turn.
    let mut positions = Vec::new();
    for k in 0..20_000u32 {
        let repeat = (k.wrapping_mul(7_919)) % repeats;
        positions.push(at(1, repeat * 4 + k % 4));
    }
    positions.push(at(1, repeats * 4 + 10));
    positions.push(at(2, 2));
    let places = index.places(&positions, Encoding::Utf16);
    for (position, place) in positions.iter().zip(&places) {
        let (repeat, unit) = ((position.character / 4) as usize, position.character % 4);
        let expected = match (position.line, unit) {
            (2, _) => Some(Place { offset: base + 7 * repeats as usize + 1 + 2, chars: 2 }),
            (_, _) if repeat >= repeats as usize => {
                Some(Place { offset: base + 7 * repeats as usize, chars: 3 * repeats as usize })
            }
            (_, 0) => Some(Place { offset: base + 7 * repeat, chars: 3 * repeat }),
            (_, 1) => Some(Place { offset: base + 7 * repeat + 2, chars: 3 * repeat + 1 }),
            (_, 2) => None,
            _ => Some(Place { offset: base + 7 * repeat + 6, chars: 3 * repeat + 2 }),
        };
        assert_eq!(*place, expected, "{position:?}");
    }
    // A sample against the slow mapping too.
    for position in positions.iter().step_by(2_000) {
        assert_eq!(
            index.places(&[*position], Encoding::Utf16)[0],
            slow_place(&text, &index, *position, Encoding::Utf16)
        );
    }
}
