//! The binary's structure, checked on its sources: renderers read typed responses, no module
//! uses one that uses it back, no function is over 150 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each source file of the binary, without its `#[cfg(test)]` module and its comment lines.
fn sources() -> BTreeMap<String, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).expect("the src folder") {
        let path = entry.expect("an entry of src").path();
        let Some(name) = path.file_stem().and_then(|n| n.to_str()).map(str::to_owned) else { continue };
        if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("a source file");
            let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or_default();
            // A comment line is kept empty, so line numbers stay the file's.
            let code: Vec<&str> =
                code.lines().map(|line| if line.trim_start().starts_with("//") { "" } else { line }).collect();
            files.insert(name, code.join("\n"));
        }
    }
    files
}

/// A renderer reads fields of the facade's response types (`contract::answer`), never a key of
/// a JSON value: `result["is_binary"]`, `.get("rung")`, `.as_str()` on a `Value`.
#[test]
fn renderers_read_no_json_keys() {
    let sources = sources();
    for name in ["result", "human", "render", "demo"] {
        let code = &sources[name];
        for (n, line) in code.lines().enumerate() {
            let line = line.trim_start();
            if line.starts_with("//") {
                continue;
            }
            let indexed = line.match_indices("[\"").any(|(at, _)| {
                line[..at].chars().last().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ']' || c == ')')
            });
            let keyed = [".get(\"", "Value::as_", ".as_u64()", ".as_i64()", ".as_f64()", ".as_bool()"]
                .iter()
                .any(|pattern| line.contains(pattern));
            assert!(!indexed && !keyed, "src/{name}.rs:{}: a renderer reads a JSON key: {line}", n + 1);
        }
    }
}

/// No module of the binary uses one that, directly or through others, uses it back (the crate
/// root counts: `crate::X` for an item of `main.rs` is a use of it).
#[test]
fn no_module_cycle() {
    let sources = sources();
    let names: BTreeSet<&str> = sources.keys().map(String::as_str).collect();
    let mut uses: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (name, code) in &sources {
        let mut used = BTreeSet::new();
        let mut add = |word: &str| {
            let target = names.get(word).copied().unwrap_or("main");
            if target != name.as_str() {
                used.insert(target);
            }
        };
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                let group = &group[..group.find('}').unwrap_or(group.len())];
                for word in group.split(|c: char| !c.is_alphanumeric() && c != '_').filter(|w| !w.is_empty()) {
                    if names.contains(word) || word.starts_with(char::is_uppercase) {
                        add(word);
                    }
                }
            } else {
                let word: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                add(&word);
            }
        }
        if name == "main" {
            for module in &names {
                if code.contains(&format!("{module}::")) {
                    add(module);
                }
            }
        }
        uses.insert(name.as_str(), used);
    }
    let reaches = |from: &str, to: &str| {
        let (mut seen, mut stack) = (BTreeSet::new(), vec![from]);
        while let Some(module) = stack.pop() {
            for next in uses.get(module).into_iter().flatten() {
                if *next == to {
                    return true;
                }
                if seen.insert(*next) {
                    stack.push(next);
                }
            }
        }
        false
    };
    for (module, used) in &uses {
        for other in used {
            assert!(!reaches(other, module), "src/{module}.rs uses {other}, which uses {module} back");
        }
    }
}

/// No function outside tests is over 150 lines.
#[test]
fn no_function_over_150_lines() {
    for (name, code) in sources() {
        let lines: Vec<&str> = code.lines().collect();
        for (start, line) in lines.iter().enumerate() {
            let trimmed = line.trim_start();
            let head =
                ["fn ", "pub(crate) fn ", "async fn ", "pub(crate) async fn ", "const fn ", "pub(crate) const fn "];
            if !head.iter().any(|h| trimmed.starts_with(h)) || trimmed.ends_with(';') {
                continue;
            }
            let indent = &line[..line.len() - trimmed.len()];
            let end =
                lines[start..].iter().position(|l| *l == format!("{indent}}}")).map_or(lines.len(), |n| start + n);
            assert!(end - start < 150, "src/{name}.rs:{}: a function of {} lines", start + 1, end - start + 1);
        }
    }
}
