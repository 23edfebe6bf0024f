use editkit_analyze::{Error, outline, section_range};

const DOC: &str = "\
# Tool

Intro with [a link](https://a.test) and ![logo](img/logo.png \"Logo\").

## Usage

```sh
tool --flag
```

### Flags

    indented code

See [the guide][guide] and <https://auto.test>.

## Licence
MIT

Setext title
------------

[guide]: https://guide.test
";

#[test]
fn headers_with_levels_and_lines() {
    let found = outline(DOC).unwrap();
    let headers: Vec<(u8, &str, usize)> =
        found.headers.iter().map(|header| (header.level, header.text.as_str(), header.line)).collect();
    assert_eq!(
        headers,
        [(1, "Tool", 1), (2, "Usage", 5), (3, "Flags", 11), (2, "Licence", 17), (2, "Setext title", 20)]
    );
}

#[test]
fn code_blocks_fenced_and_indented() {
    let found = outline(DOC).unwrap();
    let blocks: Vec<(Option<&str>, &str, usize, bool)> = found
        .code_blocks
        .iter()
        .map(|block| (block.language.as_deref(), block.code.as_str(), block.line, block.fenced))
        .collect();
    assert_eq!(blocks, [(Some("sh"), "tool --flag\n", 7, true), (None, "indented code\n", 13, false)]);
}

#[test]
fn links_images_reference_style_and_autolinks() {
    let found = outline(DOC).unwrap();
    let links: Vec<(&str, &str, usize, bool)> =
        found.links.iter().map(|link| (link.text.as_str(), link.url.as_str(), link.line, link.image)).collect();
    assert_eq!(
        links,
        [
            ("a link", "https://a.test", 3, false),
            ("logo", "img/logo.png", 3, true),
            ("the guide", "https://guide.test", 15, false),
            ("https://auto.test", "https://auto.test", 15, false),
        ]
    );
}

#[test]
fn outline_serialises_with_contract_field_names() {
    let json = serde_json::to_value(outline(DOC).unwrap()).unwrap();
    for field in ["headers", "code_blocks", "links"] {
        assert!(json.get(field).is_some_and(serde_json::Value::is_array), "{field}");
    }
    assert_eq!(json["headers"][0], serde_json::json!({"level": 1, "text": "Tool", "line": 1}));
}

#[track_caller]
fn section(path: &str) -> &'static str {
    let range = section_range(DOC, path).unwrap();
    &DOC[range]
}

#[test]
fn section_by_path_suffix_and_case() {
    assert!(section("Tool > Usage > Flags").starts_with("### Flags\n"));
    assert!(section("Usage > Flags").ends_with("<https://auto.test>.\n\n"));
    assert_eq!(section("Flags"), section("usage > flags"));
    assert!(section("Usage").starts_with("## Usage") && section("Usage").contains("### Flags"));
    assert_eq!(section("Licence"), "## Licence\nMIT\n\n");
    assert!(section("Setext title").ends_with("[guide]: https://guide.test\n"));
    assert_eq!(section("Tool"), DOC);
}

#[test]
fn section_errors() {
    let error = section_range(DOC, "Install").unwrap_err();
    assert_eq!(error.kind(), "not_found");
    assert!(error.to_string().contains("`Tool > Usage > Flags`"), "{error}");
    let doubled = "# A\n## Notes\n# B\n## Notes\n";
    let error = section_range(doubled, "Notes").unwrap_err();
    assert!(matches!(&error, Error::Ambiguous { lines, .. } if lines == &[2, 4]), "{error:?}");
    assert_eq!(section_range(doubled, "B > Notes").unwrap(), 17..26);
    assert_eq!(section_range(DOC, "Usage > ").unwrap_err().kind(), "invalid_args");
}

#[test]
fn markdown_corpus_outlines() {
    let folder = crate::fixtures().join("markdown");
    let Ok(entries) = std::fs::read_dir(&folder) else { return };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|extension| extension == "md") {
            let text = std::fs::read_to_string(&path).unwrap();
            let found = outline(&text).unwrap();
            for header in &found.headers {
                let range = section_range(&text, &header.text);
                assert!(range.is_ok() || range.as_ref().is_err_and(|error| error.kind() == "ambiguous"), "{path:?}");
            }
        }
    }
}
