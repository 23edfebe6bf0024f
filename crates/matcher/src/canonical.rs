//! The canonical-equivalence rung: text compared in Unicode Normalization Form C, so a file
//! stored decomposed (NFD: `й` as `и` + U+0306, as macOS file names and some editors leave
//! it) and an old text typed composed (NFC), or the other way round, are the same text.
//!
//! Only canonical equivalence: compatibility forms (the `ﬁ` ligature, `①`, `²`, full-width
//! letters), which NFKC would fold, stay different. The haystack is normalised a cluster at a
//! time (a cluster starts at a character nothing before it can compose with), remembering
//! where each came from, so a match is mapped back to the file's own bytes.

use std::borrow::Cow;

use unicode_normalization::char::canonical_combining_class;
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc, is_nfc_quick, is_nfd};

use crate::Error;
use crate::candidate::{Budget, Candidate};

/// A run of the normalised text starting at byte `norm`, made from the source from byte `src`;
/// an `identity` run is the source's bytes as they are, so any offset in it maps back.
#[derive(Debug, Clone, Copy)]
struct Run {
    norm: usize,
    src: usize,
    identity: bool,
}

/// A text in NFC, with the way back to the source's offsets.
struct Canonical<'a> {
    text: Cow<'a, str>,
    runs: Vec<Run>,
    source_len: usize,
}

impl<'a> Canonical<'a> {
    /// `source` in NFC; lines already in NFC (every ASCII line) are taken as they are.
    fn new(source: &'a str) -> Self {
        let mut text = String::new();
        let mut runs: Vec<Run> = Vec::new();
        let mut changed = false;
        let push = |text: &mut String, runs: &mut Vec<Run>, src: usize, piece: &str, identity: bool| {
            if !(identity && runs.last().is_some_and(|run| run.identity)) {
                runs.push(Run { norm: text.len(), src, identity });
            }
            text.push_str(piece);
        };
        let mut offset = 0;
        for line in source.split_inclusive('\n') {
            if line.is_ascii() || is_nfc_quick(line.chars()) == IsNormalized::Yes {
                push(&mut text, &mut runs, offset, line, true);
            } else {
                for (at, cluster) in clusters(line) {
                    let normal: String = cluster.nfc().collect();
                    let identity = normal == cluster;
                    changed |= !identity;
                    push(&mut text, &mut runs, offset + at, &normal, identity);
                }
            }
            offset += line.len();
        }
        let text = if changed { Cow::Owned(text) } else { Cow::Borrowed(source) };
        if !changed {
            runs = vec![Run { norm: 0, src: 0, identity: true }];
        }
        Self { text, runs, source_len: source.len() }
    }

    /// The source offset of normalised offset `norm`, when it falls between source characters.
    fn source_offset(&self, norm: usize) -> Option<usize> {
        if norm == self.text.len() {
            return Some(self.source_len);
        }
        let at = self.runs.partition_point(|run| run.norm <= norm).checked_sub(1)?;
        let run = self.runs.get(at)?;
        match (run.identity, norm - run.norm) {
            (true, into) => Some(run.src + into),
            (false, 0) => Some(run.src),
            (false, _) => None,
        }
    }
}

/// The clusters of `line` with their offsets: each starts at a character with no canonical
/// combining class that never composes with what precedes it, so normalising the clusters
/// one by one gives the normalisation of the whole.
fn clusters(line: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut starts: Vec<usize> = line
        .char_indices()
        .filter(|&(at, c)| {
            at == 0 || canonical_combining_class(c) == 0 && is_nfc_quick(std::iter::once(c)) == IsNormalized::Yes
        })
        .map(|(at, _)| at)
        .collect();
    starts.push(line.len());
    (0..starts.len() - 1).map(move |i| (starts[i], &line[starts[i]..starts[i + 1]]))
}

/// Every place `needle` stands in `text` up to canonical equivalence (the exact rung found
/// none), as candidates on the source's character boundaries; empty when both are ASCII or
/// already the same in NFC.
pub(crate) fn find(text: &str, needle: &str, cap: usize, budget: &mut Budget) -> Result<Vec<Candidate>, Error> {
    if needle.is_ascii() && text.is_ascii() {
        return Ok(Vec::new());
    }
    let wanted: Cow<'_, str> = if is_nfc(needle) { Cow::Borrowed(needle) } else { Cow::Owned(needle.nfc().collect()) };
    let canonical = Canonical::new(text);
    if matches!(canonical.text, Cow::Borrowed(_)) && wanted == needle {
        // Nothing normalised on either side: the exact rung has said it all.
        return Ok(Vec::new());
    }
    let found = crate::exact::exact(&canonical.text, &wanted, cap, budget)?;
    // Normalising never adds or drops a line end, so the line numbers stand as found.
    Ok(found
        .into_iter()
        .filter_map(|candidate| {
            let start = canonical.source_offset(candidate.start)?;
            let end = canonical.source_offset(candidate.end)?;
            Some(Candidate { start, end, score: Some(1.0), ..candidate })
        })
        .collect())
}

/// `new` in the normalisation form of `matched`, the file's text it replaces (NFC or NFD),
/// so the file keeps one form; as written when the file's text is in neither.
pub(crate) fn in_form_of<'t>(matched: &str, new: Cow<'t, str>) -> Cow<'t, str> {
    if is_nfc(matched) {
        if is_nfc(&new) { new } else { Cow::Owned(new.nfc().collect()) }
    } else if is_nfd(matched) {
        if is_nfd(&new) { new } else { Cow::Owned(new.nfd().collect()) }
    } else {
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Limits;

    fn nfd(text: &str) -> String {
        text.nfd().collect()
    }

    #[test]
    fn offsets_map_back_to_cluster_boundaries_only() {
        let source = nfd("x = \"Район\"\nplain\n");
        let canonical = Canonical::new(&source);
        assert_eq!(canonical.text, "x = \"Район\"\nplain\n");
        let at = canonical.text.find("й").unwrap();
        assert_eq!(canonical.source_offset(at), source.find("и\u{306}"));
        // Inside the composed letter is no place in the source.
        assert_eq!(canonical.source_offset(at + 1), None);
        let after = canonical.text.find("\nplain").unwrap();
        assert_eq!(canonical.source_offset(after), source.find("\nplain"));
        assert_eq!(canonical.source_offset(canonical.text.len()), Some(source.len()));
    }

    #[test]
    fn both_directions_and_hangul_are_found() {
        let mut budget = Budget::new(&Limits::default());
        for (file, needle) in [
            (nfd("a\n안녕히 가세요\n"), "안녕히".to_owned()),
            ("a\nCafé crème\n".to_owned(), nfd("Café")),
            (nfd("Tiếng Việt\n"), "Việt".to_owned()),
        ] {
            let found = find(&file, &needle, 10, &mut budget).unwrap();
            assert_eq!(found.len(), 1, "{file:?} {needle:?}");
            let matched = &file[found[0].start..found[0].end];
            assert_eq!(matched.nfc().collect::<String>(), needle.nfc().collect::<String>());
        }
        // A ligature is a compatibility form, not a canonical one.
        assert!(find("office\n", "o\u{FB01}ce", 10, &mut budget).unwrap().is_empty());
        // A base letter alone is not found inside a composed letter.
        assert!(find("é\n", "e", 10, &mut budget).unwrap().is_empty());
    }

    #[test]
    fn the_new_text_takes_the_form_of_the_text_it_replaces() {
        let composed = "й";
        let decomposed = nfd(composed);
        assert_eq!(in_form_of(&decomposed, Cow::Borrowed(composed)), decomposed);
        assert_eq!(in_form_of(composed, Cow::Borrowed(&decomposed)), composed);
        assert_eq!(in_form_of("ascii", Cow::Borrowed(&decomposed)), composed);
    }
}
