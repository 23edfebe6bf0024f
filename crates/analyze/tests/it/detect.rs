use editkit_analyze::{FileKind, detect};

#[track_caller]
fn detects(path: &str, bytes: &[u8], expected: FileKind) {
    let text = std::str::from_utf8(bytes).expect("detect takes decoded text");
    assert_eq!(detect(path, text), expected, "{path}");
}

#[test]
fn by_extension() {
    detects("a.py", b"x = 1\n", FileKind::Python);
    detects("stubs/a.pyi", b"def f() -> int: ...\n", FileKind::Python);
    detects("a.ts", b"let x: number = 1;\n", FileKind::Typescript);
    detects("a.mts", b"", FileKind::Typescript);
    detects("A.TSX", b"<div/>", FileKind::Tsx);
    detects("a.js", b"", FileKind::Javascript);
    detects("a.cjs", b"", FileKind::Javascript);
    detects("a.jsx", b"", FileKind::Jsx);
    detects("README.md", b"hello", FileKind::Markdown);
    detects("package.json", b"{}", FileKind::Json);
    detects("notes.txt", b"hello", FileKind::Text);
    detects("dir.v2/noext", b"hello", FileKind::Text);
}

#[test]
fn by_shebang() {
    detects("bin/run", b"#!/usr/bin/env python3\nprint(1)\n", FileKind::Python);
    detects("bin/run", b"#!/usr/bin/python3.11 -u\n", FileKind::Python);
    detects("bin/run", b"#!/usr/bin/env node\n", FileKind::Javascript);
    detects("bin/run", b"#!/usr/bin/env -S deno run\n", FileKind::Typescript);
    detects("bin/run", b"#!/bin/sh\necho\n", FileKind::Text);
    detects(".bashrc", b"export A=1\n", FileKind::Text);
}

#[test]
fn by_content() {
    detects("data", b"  {\"a\": [1, 2]}\n", FileKind::Json);
    detects("data", b"{not json", FileKind::Text);
    detects("CHANGES", b"intro\n\n## 1.0\n- first\n", FileKind::Markdown);
}

#[test]
fn whether_bytes_are_text_is_the_decoders_verdict() {
    // Binary sniffing has one owner (the vfs codec); text that reaches detect has a kind.
    detects("a.py", b"x = 1\0\n", FileKind::Python);
    detects("a.md", "caf\u{e9}\n".as_bytes(), FileKind::Markdown);
    detects("data", "\u{feff}{\"a\": 1}".as_bytes(), FileKind::Json);
}

#[test]
fn kinds_serialise_as_snake_case_words() {
    let words: Vec<String> = [
        FileKind::Python,
        FileKind::Typescript,
        FileKind::Tsx,
        FileKind::Javascript,
        FileKind::Jsx,
        FileKind::Markdown,
        FileKind::Json,
        FileKind::Text,
    ]
    .iter()
    .map(|kind| serde_json::to_string(kind).unwrap())
    .collect();
    assert_eq!(
        words,
        [
            "\"python\"",
            "\"typescript\"",
            "\"tsx\"",
            "\"javascript\"",
            "\"jsx\"",
            "\"markdown\"",
            "\"json\"",
            "\"text\""
        ]
    );
}
