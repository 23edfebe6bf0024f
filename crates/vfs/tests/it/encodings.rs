//! Files in legacy encodings and UTF-16: detected, decoded and written back byte for byte
//! (`fixtures/encodings/`, written by Python's codecs), or refused when the encoding cannot
//! be established.

use std::path::PathBuf;

use editkit_vfs::{DecodeError, Text};
use editkit_vfs::{Encoding, ErrorKind, WriteOptions};

use crate::support::{read_as, write_over};

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/encodings")
}

struct Case {
    file: String,
    encoding: String,
    bom: bool,
    text: String,
    native_old: String,
    native_new: String,
    foreign: Option<char>,
}

fn cases() -> Vec<Case> {
    let json = std::fs::read_to_string(corpus().join("cases.json")).unwrap();
    let cases: serde_json::Value = serde_json::from_str(&json).unwrap();
    let cases: Vec<Case> = cases
        .as_array()
        .unwrap()
        .iter()
        .map(|case| {
            let text = |key: &str| case[key].as_str().unwrap().to_owned();
            Case {
                file: text("file"),
                encoding: text("encoding"),
                bom: case["bom"].as_bool().unwrap(),
                text: text("text"),
                native_old: text("native_old"),
                native_new: text("native_new"),
                foreign: case["foreign"].as_str().map(|s| s.chars().next().unwrap()),
            }
        })
        .collect();
    assert_eq!(cases.len(), 14, "every listed encoding, and UTF-16 LE and BE");
    cases
}

fn bytes(name: &str) -> Vec<u8> {
    std::fs::read(corpus().join(name)).unwrap()
}

fn replaced(text: &Text, old: &str, new: &str) -> Text {
    let at = text.as_str().find(old).unwrap_or_else(|| panic!("{old:?} in the text"));
    let mut next = text.clone();
    next.splice(at..at + old.len(), new).unwrap();
    next
}

#[test]
fn every_encoding_of_the_corpus_is_detected_and_round_trips_byte_for_byte() {
    for case in cases() {
        let before = bytes(&case.file);
        for text in [Text::decode(&before).unwrap(), Text::decode_owned(before.clone()).unwrap()] {
            assert_eq!(text.encoding().label(), case.encoding, "{}", case.file);
            assert_eq!(text.bom(), case.bom, "{}", case.file);
            assert_eq!(text.as_str(), case.text, "{}", case.file);
            assert_eq!(text.encode(), before, "{}", case.file);
            assert_eq!(text.try_encoded().unwrap().as_ref(), before.as_slice(), "{}", case.file);
        }
    }
}

#[test]
fn ascii_and_non_ascii_edits_change_only_their_bytes() {
    for case in cases() {
        let text = Text::decode(&bytes(&case.file)).unwrap();
        let stem = case.file.trim_end_matches(".py");
        let ascii = replaced(&text, "total = sum(values)", "total = sum(values, 0)");
        assert_eq!(ascii.try_encoded().unwrap().as_ref(), bytes(&format!("{stem}.ascii.py")).as_slice(), "{stem}");
        let native = replaced(&text, &case.native_old, &case.native_new);
        assert_eq!(native.try_encoded().unwrap().as_ref(), bytes(&format!("{stem}.native.py")).as_slice(), "{stem}");
    }
}

#[test]
fn a_character_the_encoding_cannot_hold_is_refused_with_its_line() {
    let mut refused = 0;
    for case in cases() {
        let Some(foreign) = case.foreign else { continue };
        let text = Text::decode(&bytes(&case.file)).unwrap();
        let new = format!("{} {foreign}", case.native_new);
        let edited = replaced(&text, &case.native_old, &new);
        let err = edited.try_encoded().unwrap_err();
        let line = case.text.lines().position(|line| line.starts_with("MESSAGE")).unwrap() + 1;
        assert_eq!((err.character, err.line, err.encoding.label()), (foreign, line, case.encoding.as_str()));
        refused += 1;
    }
    assert_eq!(refused, 11);
}

#[test]
fn short_ambiguous_files_are_refused_with_the_best_guess() {
    let short: [&[u8]; 4] = [
        b"caf\xE9\n",
        // "Привет" in windows-1251: six bytes that read as well in KOI8-R or windows-1252.
        b"print('\xCF\xF0\xE8\xE2\xE5\xF2')\n",
        // "日本" in Shift_JIS.
        b"# \x93\xFA\x96\x7B\n",
        // One accented letter in a long file.
        &[b"caf\xE9 needle\n".as_slice(), "plain line\n".repeat(10_000).as_bytes()].concat(),
    ];
    for bytes in short {
        match Text::decode(bytes) {
            Err(DecodeError::NotUtf8 { guess: Some(_), .. }) => {}
            other => panic!("{:?}: {other:?}", String::from_utf8_lossy(&bytes[..bytes.len().min(20)])),
        }
    }
    // A BOM and a few bytes: too short to take UTF-16 without being asked.
    assert_eq!(Text::decode(b"\xFF\xFEh\x00i\x00"), Err(DecodeError::Utf16));
    let utf16le = Encoding::for_label("utf-16le").unwrap();
    let asked = Text::decode_as(b"\xFF\xFEh\x00i\x00", utf16le).unwrap();
    assert_eq!((asked.as_str(), asked.bom(), asked.encode()), ("hi", true, b"\xFF\xFEh\x00i\x00".to_vec()));
}

#[test]
fn bytes_that_do_not_decode_back_to_themselves_are_refused() {
    // Shift_JIS text named EUC-JP, a lone surrogate in UTF-16, a half character at the end.
    let sjis = bytes("shift_jis.py");
    let euc_jp = Encoding::for_label("euc-jp").unwrap();
    assert!(matches!(Text::decode_as(&sjis, euc_jp), Err(DecodeError::NotInEncoding { .. })));
    let mut surrogate = bytes("utf-16le.py");
    surrogate.extend_from_slice(b"\x00\xD8a\x00");
    assert_eq!(Text::decode(&surrogate), Err(DecodeError::Utf16));
    let mut cut = bytes("gbk.py");
    cut.push(0xB5);
    let decoded = Text::decode(&cut);
    assert!(
        matches!(decoded, Err(DecodeError::NotUtf8 { .. })),
        "a lead byte without its trail: {:?}",
        decoded.map(|t| t.encoding())
    );
    // UTF-8 named as such is never detected as anything else.
    let utf8 = Encoding::for_label("utf-8").unwrap();
    assert!(matches!(Text::decode_as(&bytes("windows-1252.py"), utf8), Err(DecodeError::NotUtf8 { guess: None, .. })));
}

#[test]
fn utf8_is_never_taken_for_another_encoding() {
    for case in cases() {
        let utf8 = case.text.as_bytes();
        let text = Text::decode(utf8).unwrap();
        assert!(text.encoding().is_utf8(), "{}", case.file);
        assert_eq!(text.encode(), utf8);
    }
    // Escapes that are not ISO-2022-JP's designations keep a UTF-8 file UTF-8.
    let ansi = b"\x1b[31mred\x1b[0m and \x1b(B plain\n";
    assert!(Text::decode(ansi).unwrap().encoding().is_utf8());
}

#[test]
fn a_workspace_reads_and_writes_back_in_the_file_encoding() {
    let dir = tempfile::tempdir().unwrap();
    let before = bytes("shift_jis.py");
    std::fs::write(dir.path().join("m.py"), &before).unwrap();
    let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority()).unwrap();
    let lock = workspace.lock("m.py").unwrap();
    let (read, edited) = lock
        .read_for_write_with(None, false, |text| replaced(text, "計算が正常に終了しました", "変更を保存しました"))
        .unwrap();
    assert_eq!(read.encoding().label(), "shift_jis");
    write_over(&lock, &read, &edited.try_encoded().unwrap(), &WriteOptions::default()).unwrap();
    drop(lock);
    assert_eq!(std::fs::read(dir.path().join("m.py")).unwrap(), bytes("shift_jis.native.py"));
    // The staleness guard holds the bytes written: a second edit reads them back as Shift_JIS.
    let again = workspace.lock("m.py").unwrap().read_for_write(None, false).unwrap();
    assert_eq!(again.encoding().label(), "shift_jis");
    // An explicit encoding overrides detection, and is checked the same way.
    std::fs::write(dir.path().join("l.txt"), b"caf\xE9\n").unwrap();
    assert_eq!(workspace.read("l.txt").unwrap_err().error_kind(), ErrorKind::NotUtf8);
    let latin = Encoding::for_label("latin1").unwrap();
    assert_eq!(read_as(&workspace, "l.txt", Some(latin)).unwrap().text(), "caf\u{e9}\n");
    let big5 = Encoding::for_label("big5").unwrap();
    let err = read_as(&workspace, "l.txt", Some(big5)).unwrap_err();
    assert_eq!(err.error_kind(), ErrorKind::NotUtf8);
    assert!(err.to_string().contains("is not valid big5"), "{err}");
}
