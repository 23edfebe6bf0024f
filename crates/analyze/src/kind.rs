//! File kind detection: by extension, then shebang, then content.

use serde::Serialize;

/// What a file contains, as far as editkit's analyses are concerned.
///
/// Not `#[non_exhaustive]` on purpose: the facade maps every kind onto its contract's words in
/// one exhaustive `match`, so a kind added here fails to compile there until it has a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    /// Python source (`.py`, `.pyi`, `.pyw`, or a `python` shebang).
    Python,
    /// TypeScript source (`.ts`, `.mts`, `.cts`).
    Typescript,
    /// TypeScript with JSX (`.tsx`).
    Tsx,
    /// JavaScript source (`.js`, `.mjs`, `.cjs`, or a `node` shebang).
    Javascript,
    /// JavaScript with JSX (`.jsx`).
    Jsx,
    /// Markdown (`.md`, `.markdown`).
    Markdown,
    /// JSON (`.json`, or content that parses as a JSON object or array).
    Json,
    /// Any other text.
    Text,
}

impl FileKind {
    /// The snake_case word used in JSON and messages (`python`, `tsx`, ...).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::Python => "python",
            FileKind::Typescript => "typescript",
            FileKind::Tsx => "tsx",
            FileKind::Javascript => "javascript",
            FileKind::Jsx => "jsx",
            FileKind::Markdown => "markdown",
            FileKind::Json => "json",
            FileKind::Text => "text",
        }
    }

    /// Whether symbols, [`crate::replace_function`] and [`crate::symbol_range`] work on this kind.
    #[must_use]
    pub fn is_code(self) -> bool {
        matches!(self, FileKind::Python | FileKind::Typescript | FileKind::Tsx | FileKind::Javascript | FileKind::Jsx)
    }
}

impl std::fmt::Display for FileKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Detects the kind of a text file from its path and decoded contents.
///
/// The extension decides; without a known extension, a shebang (`python`, `node`, `deno`,
/// `ts-node`, `tsx`, `bun`), then the content (a JSON object or array, a Markdown heading) do.
/// Everything else is [`FileKind::Text`].
///
/// Whether bytes are text at all is not decided here: that is the decoder's verdict
/// (`editkit_vfs::Text::decode` refuses NUL bytes, UTF-16 and invalid UTF-8), so one
/// function says "binary" for every editkit crate.
///
/// ```
/// use editkit_analyze::{detect, FileKind};
/// assert_eq!(detect("src/app.tsx", "export const A = () => <div/>;"), FileKind::Tsx);
/// assert_eq!(detect("bin/tool", "#!/usr/bin/env python3\nprint(1)\n"), FileKind::Python);
/// assert_eq!(detect("notes", "plain words\n"), FileKind::Text);
/// ```
#[must_use]
pub fn detect(path: &str, text: &str) -> FileKind {
    if let Some(kind) = by_extension(path) {
        return kind;
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some(kind) = by_shebang(text) {
        return kind;
    }
    by_content(text)
}

fn by_extension(path: &str) -> Option<FileKind> {
    let file_name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let (stem, extension) = file_name.rsplit_once('.')?;
    if stem.is_empty() {
        // A dot file such as `.bashrc` has no extension.
        return None;
    }
    let kind = match extension.to_ascii_lowercase().as_str() {
        "py" | "pyi" | "pyw" => FileKind::Python,
        "ts" | "mts" | "cts" => FileKind::Typescript,
        "tsx" => FileKind::Tsx,
        "js" | "mjs" | "cjs" => FileKind::Javascript,
        "jsx" => FileKind::Jsx,
        "md" | "markdown" | "mdown" | "mkd" => FileKind::Markdown,
        "json" => FileKind::Json,
        _ => return None,
    };
    Some(kind)
}

fn by_shebang(text: &str) -> Option<FileKind> {
    let first_line = text.strip_prefix("#!")?.lines().next().unwrap_or("");
    let mut words = first_line.split_whitespace();
    let mut program = words.next()?.rsplit('/').next().unwrap_or("");
    if program == "env" {
        // `#!/usr/bin/env -S node --flag` and `#!/usr/bin/env python3`.
        program = words.find(|word| !word.starts_with('-')).map_or("", |word| word.rsplit('/').next().unwrap_or(word));
    }
    if program.starts_with("python") || program == "pypy" || program == "pypy3" {
        Some(FileKind::Python)
    } else if program == "node" || program == "nodejs" {
        Some(FileKind::Javascript)
    } else if matches!(program, "deno" | "ts-node" | "tsx" | "bun") {
        Some(FileKind::Typescript)
    } else {
        None
    }
}

fn by_content(text: &str) -> FileKind {
    let trimmed = text.trim_start();
    if (trimmed.starts_with('{') || trimmed.starts_with('['))
        && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
    {
        return FileKind::Json;
    }
    let looks_like_heading = |line: &str| {
        let hashes = line.bytes().take_while(|&b| b == b'#').count();
        (1..=6).contains(&hashes) && line.as_bytes().get(hashes) == Some(&b' ')
    };
    if text.lines().take(50).any(looks_like_heading) {
        return FileKind::Markdown;
    }
    FileKind::Text
}
