//! The words of responses, typed. Each serialises to the contract's word and its schema stays a
//! plain string, so the JSON contract is the enum's words.

use serde::{Deserialize, Serialize};

/// What a file holds: `python`, `typescript`, `tsx`, `javascript`, `jsx`, `markdown`, `json`,
/// `text` or `binary`.
///
/// `binary` is the vfs codec's verdict (NUL bytes); every other word is
/// `editkit_analyze::detect`'s kind of the decoded text (`text` without the `analyze` feature).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FileType {
    /// Python source.
    Python,
    /// TypeScript source.
    Typescript,
    /// TypeScript with JSX.
    Tsx,
    /// JavaScript source.
    Javascript,
    /// JavaScript with JSX.
    Jsx,
    /// Markdown.
    Markdown,
    /// JSON.
    Json,
    /// Any other text.
    Text,
    /// Not text.
    Binary,
}

impl FileType {
    /// The contract's word.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            FileType::Python => "python",
            FileType::Typescript => "typescript",
            FileType::Tsx => "tsx",
            FileType::Javascript => "javascript",
            FileType::Jsx => "jsx",
            FileType::Markdown => "markdown",
            FileType::Json => "json",
            FileType::Text => "text",
            FileType::Binary => "binary",
        }
    }
}

impl std::fmt::Display for FileType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a symbol is: `function`, `async_function`, `class`, `method`, `interface`,
/// `type_alias`, `enum` or `namespace`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SymbolKind {
    /// A function (or a binding of an arrow function or function expression).
    Function,
    /// An `async` function.
    AsyncFunction,
    /// A class.
    Class,
    /// A function defined directly in a class.
    Method,
    /// A TypeScript interface.
    Interface,
    /// A TypeScript type alias.
    TypeAlias,
    /// A TypeScript enum.
    Enum,
    /// A TypeScript namespace or ambient module.
    Namespace,
}

/// What a patch does to one file: `add`, `update`, `delete` or `move`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PatchAction {
    /// A new file.
    Add,
    /// A file changed in place.
    Update,
    /// A file removed.
    Delete,
    /// A file moved (and possibly changed).
    Move,
}
