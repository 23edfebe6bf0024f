//! What a search reads of a file it does not search: no more than the codec needs to judge it.

use editkit_search::Search;

use crate::support::{Tree, files_of, skipped_of};

/// Bytes this thread has read from files so far (`rchar` of `/proc/thread-self/io`). A search
/// with one worker thread reads on the calling thread only.
fn bytes_read() -> u64 {
    let io = std::fs::read_to_string("/proc/thread-self/io").unwrap();
    let line = io.lines().find(|line| line.starts_with("rchar:")).unwrap();
    line.trim_start_matches("rchar:").trim().parse().unwrap()
}

/// `text` as UTF-16LE bytes, with its byte-order mark when `bom`.
fn utf16le(text: &str, bom: bool) -> Vec<u8> {
    let mut bytes = if bom { vec![0xFF, 0xFE] } else { Vec::new() };
    bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    bytes
}

/// UTF-16 without a byte-order mark is never decoded (its encoding is not established): the
/// search calls it `utf16` by its head, as before, and reads no further, whether the file is
/// small enough to be read whole or streamed. (Binary archives whose tables hold NULs on one
/// parity look like this: in a copy of the cargo registry, 100 MB of them were read for nothing.)
#[test]
fn utf16_without_a_bom_is_judged_by_its_head_and_read_no_further() {
    let tree = Tree::new(&[]);
    let line = "needle in a haystack\n";
    tree.write("small.txt", &utf16le(&line.repeat(20_000), false));
    tree.write("large.txt", &utf16le(&line.repeat(200_000), false));
    for (name, size) in [("small.txt", 840_000), ("large.txt", 8_400_000)] {
        assert_eq!(std::fs::metadata(tree.root.join(name)).unwrap().len(), size);
    }
    for detect in [true, false] {
        let workspace = editkit_vfs::Workspace::builder(&tree.root, editkit_vfs::ambient_authority())
            .detect_encodings(detect)
            .open()
            .unwrap();
        for name in ["small.txt", "large.txt"] {
            let search = Search::builder("needle").threads(1).build().unwrap();
            let before = bytes_read();
            let found = search.run(&workspace, name).unwrap();
            let read = bytes_read() - before;
            assert_eq!(skipped_of(&found), [(name, "utf16")], "{name} (detection {detect})");
            assert!(read < 200_000, "{name} (detection {detect}): {read} bytes read to skip it");
        }
    }
}

/// UTF-16 with its byte-order mark is decoded and searched, small or streamed.
#[test]
fn utf16_with_a_bom_is_still_searched_small_or_streamed() {
    let tree = Tree::new(&[]);
    let line = "needle in a haystack\n";
    tree.write("small.txt", &utf16le(&line.repeat(20_000), true));
    tree.write("large.txt", &utf16le(&line.repeat(200_000), true));
    let workspace = tree.workspace();
    for name in ["small.txt", "large.txt"] {
        let found = Search::builder("needle").max_results(1).build().unwrap().run(&workspace, name).unwrap();
        assert_eq!(files_of(&found), [name]);
        assert_eq!(found.results[0].encoding.as_deref(), Some("utf-16le"), "{name}");
    }
}
