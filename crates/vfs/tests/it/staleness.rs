//! The read ledger refuses writes to files that changed underneath.

use std::fs;

use editkit_vfs::{ErrorKind, WriteOptions};

use crate::support::{Tree, write_over};

#[test]
fn a_file_changed_since_it_was_read_is_not_overwritten() {
    let tree = Tree::new();
    let workspace = tree.workspace();
    let read = workspace.read("file.txt").unwrap();
    fs::write(tree.root.join("file.txt"), "someone else\n").unwrap();
    let err = workspace.write("file.txt", b"mine\n", &WriteOptions::default()).unwrap_err();
    assert_eq!(err.error_kind(), ErrorKind::Stale);
    assert!(err.to_string().contains(&read.sha256().to_string()), "{err}");
    assert_eq!(fs::read_to_string(tree.root.join("file.txt")).unwrap(), "someone else\n");
    // force overrides the ledger.
    workspace.write("file.txt", b"mine\n", &WriteOptions { force: true, ..Default::default() }).unwrap();
    assert_eq!(fs::read_to_string(tree.root.join("file.txt")).unwrap(), "mine\n");
    // After a write the ledger holds the new hash: the next write is fresh.
    workspace.write("file.txt", b"again\n", &WriteOptions::default()).unwrap();
}

#[test]
fn an_explicit_hash_is_honoured_even_with_force() {
    let tree = Tree::new();
    let workspace = tree.workspace();
    let wrong = WriteOptions { force: true, expected_hash: Some(zeros()), ..Default::default() };
    assert_eq!(workspace.write("file.txt", b"x", &wrong).unwrap_err().error_kind(), ErrorKind::Stale);
    // Given in capitals, as some tools print it: one parse, whatever the case.
    let right = editkit_vfs::Sha256::of(b"inside\n").to_string().to_uppercase().parse().unwrap();
    let options = WriteOptions { expected_hash: Some(right), ..Default::default() };
    workspace.write("file.txt", b"x", &options).unwrap();
    let absent = WriteOptions { expected_hash: Some(zeros()), ..Default::default() };
    assert_eq!(workspace.write("new.txt", b"x", &absent).unwrap_err().error_kind(), ErrorKind::Stale);
    assert!(!tree.root.join("new.txt").exists());
}

#[test]
fn a_deleted_file_counts_as_changed_and_unread_files_are_not_guarded() {
    let tree = Tree::new();
    let workspace = tree.workspace();
    workspace.read("file.txt").unwrap();
    fs::remove_file(tree.root.join("file.txt")).unwrap();
    assert_eq!(workspace.write("file.txt", b"x", &WriteOptions::default()).unwrap_err().error_kind(), ErrorKind::Stale);
    fs::write(tree.root.join("dir/inner.txt"), "changed, never read").unwrap();
    workspace.write("dir/inner.txt", b"ok", &WriteOptions::default()).unwrap();
}

#[test]
fn the_ledger_is_keyed_by_canonical_path() {
    let tree = Tree::new();
    std::os::unix::fs::symlink("dir", tree.root.join("alias")).unwrap();
    let workspace = tree.workspace();
    workspace.read("alias/inner.txt").unwrap();
    fs::write(tree.root.join("dir/inner.txt"), "changed").unwrap();
    let err = workspace.write("./dir/inner.txt", b"x", &WriteOptions::default()).unwrap_err();
    assert_eq!(err.error_kind(), ErrorKind::Stale);
    assert_eq!(workspace.recorded_hash("dir/inner.txt").unwrap(), Some(editkit_vfs::Sha256::of(b"inner\n")));
}

fn zeros() -> editkit_vfs::Sha256 {
    "0".repeat(64).parse().unwrap()
}

proptest::proptest! {
    /// One parse and one display: a digest's hex, in either case, parses back to the digest;
    /// anything that is not 64 hex digits is refused.
    #[test]
    fn a_digest_parses_from_its_display_in_either_case(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64), cut in 0usize..64) {
        let digest = editkit_vfs::Sha256::of(&bytes);
        let hex = digest.to_string();
        proptest::prop_assert_eq!(hex.len(), 64);
        proptest::prop_assert!(hex.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
        proptest::prop_assert_eq!(hex.parse::<editkit_vfs::Sha256>().unwrap(), digest);
        proptest::prop_assert_eq!(hex.to_uppercase().parse::<editkit_vfs::Sha256>().unwrap(), digest);
        proptest::prop_assert!(hex[..cut].parse::<editkit_vfs::Sha256>().is_err());
        let longer = format!("{hex}0");
        proptest::prop_assert!(longer.parse::<editkit_vfs::Sha256>().is_err());
        let mut wrong = hex.clone();
        wrong.replace_range(cut..=cut, "g");
        proptest::prop_assert!(wrong.parse::<editkit_vfs::Sha256>().is_err());
    }
}

#[test]
fn a_malformed_hash_names_itself_and_what_to_give() {
    let err = "e3b0c442".parse::<editkit_vfs::Sha256>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "`e3b0c442` is not a SHA-256: give the 64 hex digits of a sha256 that read_file returned"
    );
    // Multi-byte text of 64 bytes is not cut inside a character, and not accepted.
    assert!("é".repeat(32).parse::<editkit_vfs::Sha256>().is_err());
}

#[test]
fn a_write_over_what_was_read_still_sees_a_same_size_change_from_outside() {
    for (name, before, changed) in [
        // The text is the file's bytes: the last check compares them.
        ("lf.txt", "alpha\nbeta\n".repeat(40_000), "alpha\nbeTa\n".repeat(40_000)),
        // CRLF and a BOM: the text is not the file's bytes, the last check hashes.
        ("crlf.txt", format!("\u{feff}{}", "alpha\r\nbeta\r\n".repeat(40_000)), "alpha\r\nbeTa\r\n".repeat(40_000)),
    ] {
        let tree = Tree::new();
        fs::write(tree.root.join(name), &before).unwrap();
        let workspace = tree.workspace();
        let lock = workspace.lock(name).unwrap();
        let read = lock.read_for_write(None, false).unwrap();
        let changed = if name == "crlf.txt" { format!("\u{feff}{changed}") } else { changed };
        assert_eq!(changed.len(), before.len());
        fs::write(tree.root.join(name), &changed).unwrap();
        let err = write_over(&lock, &read, b"mine\n", &WriteOptions::default()).unwrap_err();
        assert_eq!(err.error_kind(), ErrorKind::Stale, "{name}");
        assert_eq!(fs::read_to_string(tree.root.join(name)).unwrap(), changed, "{name}");
        // Read again (forced past the ledger, which still holds the first read), then the same
        // bytes written again by someone else (a new inode): not a change.
        let read = lock.read_for_write(None, true).unwrap();
        fs::remove_file(tree.root.join(name)).unwrap();
        fs::write(tree.root.join(name), &changed).unwrap();
        let written = write_over(&lock, &read, b"mine\n", &WriteOptions::default()).unwrap();
        assert_eq!(written.previous_sha256, Some(read.sha256()), "{name}");
    }
}

#[test]
fn a_large_write_is_flushed_beside_its_last_check_and_never_renamed_when_stale() {
    let tree = Tree::new();
    let before = "alpha\nbeta\n".repeat(60_000);
    fs::write(tree.root.join("big.txt"), &before).unwrap();
    let workspace = tree.workspace();
    let lock = workspace.lock("big.txt").unwrap();
    let read = lock.read_for_write(None, false).unwrap();
    // Large enough that its temp file is written while the last check reads the old file.
    let mine = "gamma\n".repeat(200_000);
    assert!(editkit_vfs::Sha256::pays_beside(mine.len()));
    let changed = "alpha\nbeTa\n".repeat(60_000);
    fs::write(tree.root.join("big.txt"), &changed).unwrap();
    let err = write_over(&lock, &read, mine.as_bytes(), &WriteOptions::default()).unwrap_err();
    assert_eq!(err.error_kind(), ErrorKind::Stale);
    assert_eq!(fs::read_to_string(tree.root.join("big.txt")).unwrap(), changed);
    let left = temp_files(&tree.root);
    assert!(left.is_empty(), "a temp file was left: {left:?}");
    // Read again (forced past the ledger): now it lands, and says what it replaced.
    let read = lock.read_for_write(None, true).unwrap();
    let written = write_over(&lock, &read, mine.as_bytes(), &WriteOptions::default()).unwrap();
    assert_eq!(written.previous_sha256, Some(read.sha256()));
    assert_eq!(fs::read_to_string(tree.root.join("big.txt")).unwrap(), mine);
}

/// Names of the temp files left in `dir`.
fn temp_files(dir: &std::path::Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".editkit-"))
        .collect()
}

#[test]
fn a_write_beside_work_lands_only_when_the_work_and_the_last_check_succeed() {
    // One after the other, and on two threads (from `Sha256::pays_beside`, 512 KiB).
    for size in [100, (512 << 10) + 1000] {
        let tree = Tree::new();
        let before = "alpha\nbeta\n".repeat(size / 11 + 1);
        fs::write(tree.root.join("f.txt"), &before).unwrap();
        let workspace = tree.workspace();
        let lock = workspace.lock("f.txt").unwrap();
        let read = lock.read_for_write(None, false).unwrap();
        let mine = "gamma\n".repeat(size / 6 + 1);
        assert_eq!(editkit_vfs::Sha256::pays_beside(mine.len()), size > 100);
        let sha256 = editkit_vfs::Sha256::of(mine.as_bytes());

        // The work fails: its error comes back, with no value, and nothing changes.
        let failed = lock.write_beside(Some(&read), mine.as_bytes(), &WriteOptions::default(), || {
            Err::<(editkit_vfs::Sha256, ()), _>(editkit_vfs::Error::NotFound { path: "the work's own".into() })
        });
        let (err, out) = failed.unwrap_err();
        assert_eq!((err.error_kind(), out), (ErrorKind::NotFound, None), "size {size}");
        assert_eq!(fs::read_to_string(tree.root.join("f.txt")).unwrap(), before);
        assert!(temp_files(&tree.root).is_empty(), "size {size}: {:?}", temp_files(&tree.root));

        // The file changes while the work runs: refused as stale, the work's value comes back
        // (so the caller can take back what it did), and the outside change stays.
        let changed = "alpha\nbeTa\n".repeat(size / 11 + 1);
        let stale = lock.write_beside(Some(&read), mine.as_bytes(), &WriteOptions::default(), || {
            fs::write(tree.root.join("f.txt"), &changed).unwrap();
            Ok::<_, editkit_vfs::Error>((sha256, "undo entry"))
        });
        let (err, out) = stale.unwrap_err();
        assert_eq!((err.error_kind(), out), (ErrorKind::Stale, Some("undo entry")), "size {size}");
        assert_eq!(fs::read_to_string(tree.root.join("f.txt")).unwrap(), changed);
        assert!(temp_files(&tree.root).is_empty(), "size {size}: {:?}", temp_files(&tree.root));

        // Read again: it lands, records the hash the work gave, and says what it replaced.
        let read = lock.read_for_write(None, true).unwrap();
        let (written, out) = lock
            .write_beside(Some(&read), mine.as_bytes(), &WriteOptions::default(), || {
                Ok::<_, editkit_vfs::Error>((sha256, 7))
            })
            .unwrap();
        assert_eq!((written.sha256, written.previous_sha256, out), (sha256, Some(read.sha256()), 7));
        assert_eq!(fs::read_to_string(tree.root.join("f.txt")).unwrap(), mine);
        assert!(temp_files(&tree.root).is_empty(), "size {size}: {:?}", temp_files(&tree.root));
        // The guard now vouches for what was written: a write expecting it passes.
        let options = WriteOptions { expected_hash: Some(sha256), ..WriteOptions::default() };
        lock.write(b"last\n", &options).unwrap();
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
    /// A file edited again and again, each content remembered once written: the hash of every
    /// new content, resumed from the last one's, is the content's hash, wherever the edits
    /// fall and whatever they do to its length. A file edited outside meanwhile changes
    /// nothing either.
    #[test]
    fn a_new_content_hashed_after_what_it_shares_with_the_last_has_its_own_hash(
        size in 60_000usize..400_000,
        edits in proptest::collection::vec((0.0f64..=1.0, 0usize..3, proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40)), 1..8),
        outside in proptest::prelude::any::<bool>(),
    ) {
        let tree = Tree::new();
        let workspace = tree.workspace();
        let lock = workspace.lock("big.bin").unwrap();
        let mut content: Vec<u8> = (0..size).map(|i| (i % 97) as u8 + b' ').collect();
        for (round, (at, cut, inserted)) in edits.into_iter().enumerate() {
            let at = ((content.len() as f64 * at) as usize).min(content.len());
            let end = (at + cut).min(content.len());
            content.splice(at..end, inserted);
            let sha256 = lock.sha256_of_new(&content);
            proptest::prop_assert_eq!(sha256, editkit_vfs::Sha256::of(&content));
            let options = WriteOptions { content_sha256: Some(sha256), force: true, ..WriteOptions::default() };
            lock.write(&content, &options).unwrap();
            if outside && round == 1 {
                // Remembered content is keyed by its bytes: a change from outside is hashed.
                content[0] ^= 1;
                fs::write(tree.root.join("big.bin"), &content).unwrap();
                let read = workspace.read_bytes("big.bin").unwrap();
                proptest::prop_assert_eq!(&read, &content);
            } else {
                workspace.remember_content("big.bin", sha256, content.clone());
            }
        }
    }
}

#[test]
fn a_panic_beside_a_large_write_leaves_no_temp_file_and_the_file_as_it_was() {
    let tree = Tree::new();
    let before = "alpha\n".repeat(100_000);
    fs::write(tree.root.join("f.txt"), &before).unwrap();
    let workspace = tree.workspace();
    let lock = workspace.lock("f.txt").unwrap();
    let read = lock.read_for_write(None, false).unwrap();
    let mine = "gamma\n".repeat(100_000);
    assert!(editkit_vfs::Sha256::pays_beside(mine.len()));
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = lock.write_beside(Some(&read), mine.as_bytes(), &WriteOptions::default(), || {
            if mine.len() > 1 {
                panic!("the caller's work failed");
            }
            Ok::<_, editkit_vfs::Error>((editkit_vfs::Sha256::of(mine.as_bytes()), ()))
        });
    }));
    assert!(panicked.is_err(), "the panic reaches the caller");
    assert_eq!(fs::read_to_string(tree.root.join("f.txt")).unwrap(), before);
    assert!(temp_files(&tree.root).is_empty(), "{:?}", temp_files(&tree.root));
}

/// A text remembered after a write is taken back by the next read only while the file holds
/// exactly its bytes: any change from outside (the same size, a byte at either end, longer,
/// shorter, another file renamed over it) is read from the file, with its own hash, and a read
/// expecting the remembered hash is then refused as stale.
#[test]
fn a_remembered_text_is_read_back_only_while_the_file_holds_its_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let workspace = editkit_vfs::Workspace::open(tmp.path(), editkit_vfs::ambient_authority()).unwrap();
    let content = "value = 1\n".repeat(20_000);
    let text = editkit_vfs::Text::decode(content.as_bytes()).unwrap();
    let written = workspace.write("big.py", content.as_bytes(), &Default::default()).unwrap();
    let remember = || workspace.remember_text("big.py", written.sha256, text.clone());
    remember();
    let read = workspace.read("big.py").unwrap();
    assert_eq!((read.text(), read.sha256(), read.size()), (content.as_str(), written.sha256, content.len() as u64));
    assert_eq!(read.line_count(), 20_000);

    let first = content.replacen('v', "V", 1);
    let last = format!("{}2\n", &content[..content.len() - 2]);
    let longer = format!("{content}x\n");
    let shorter = content[..content.len() - 10].to_owned();
    for changed in [first, last, longer, shorter] {
        remember();
        std::fs::write(tmp.path().join("big.py"), &changed).unwrap();
        let read = workspace.read("big.py").unwrap();
        assert_eq!(read.text(), changed);
        assert_eq!(read.sha256(), editkit_vfs::Sha256::of(changed.as_bytes()));
        // Written back as it was, the remembered text is taken again.
        std::fs::write(tmp.path().join("big.py"), &content).unwrap();
        assert_eq!(workspace.read("big.py").unwrap().sha256(), written.sha256);
    }
    // Another file renamed over it.
    remember();
    let other = content.replace("1\n", "3\n");
    std::fs::write(tmp.path().join("other.py"), &other).unwrap();
    std::fs::rename(tmp.path().join("other.py"), tmp.path().join("big.py")).unwrap();
    assert_eq!(workspace.read("big.py").unwrap().text(), other);
    // The staleness guard sees the change: a write over what was remembered is refused.
    remember();
    std::fs::write(tmp.path().join("big.py"), &content).unwrap();
    workspace.read("big.py").unwrap();
    std::fs::write(tmp.path().join("big.py"), content.replace("1\n", "4\n")).unwrap();
    let err = workspace.write("big.py", b"mine\n", &Default::default()).unwrap_err();
    assert_eq!(err.error_kind(), ErrorKind::Stale);
    // A text that would not read back as itself is never kept, whatever the file holds: one
    // with CRLF endings (its LF form on disk is another text), one starting with U+FEFF (read
    // back as a BOM) and one with a NUL near the start (read back as binary).
    let lf = "value = 1\n".repeat(20_000);
    let crlf = editkit_vfs::Text::decode("value = 1\r\n".repeat(20_000).as_bytes()).unwrap();
    std::fs::write(tmp.path().join("crlf.py"), &lf).unwrap();
    workspace.remember_text("crlf.py", editkit_vfs::Sha256::of(lf.as_bytes()), crlf);
    let read = workspace.read("crlf.py").unwrap();
    assert_eq!(read.decoded(), &editkit_vfs::Text::decode(lf.as_bytes()).unwrap());
    assert_eq!(read.decoded().line_endings(), editkit_vfs::LineEndings::Lf);
    let mut feff = editkit_vfs::Text::decode(lf.as_bytes()).unwrap();
    feff.splice(0..0, "\u{feff}").unwrap();
    let feff_bytes = feff.verbatim().unwrap().to_vec();
    std::fs::write(tmp.path().join("feff.py"), &feff_bytes).unwrap();
    workspace.remember_text("feff.py", editkit_vfs::Sha256::of(&feff_bytes), feff);
    let read = workspace.read("feff.py").unwrap();
    assert!(read.bom(), "the leading U+FEFF reads back as a BOM");
    assert_eq!(read.text(), lf);
    let mut nul = editkit_vfs::Text::decode(lf.as_bytes()).unwrap();
    nul.splice(5..5, "\0").unwrap();
    let nul_bytes = nul.verbatim().unwrap().to_vec();
    std::fs::write(tmp.path().join("nul.py"), &nul_bytes).unwrap();
    workspace.remember_text("nul.py", editkit_vfs::Sha256::of(&nul_bytes), nul);
    assert_eq!(workspace.read("nul.py").unwrap_err().error_kind(), ErrorKind::Binary);
}
