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

/// Every `error.kind` a tool call can return: the tool-call contract's kinds, typed.
///
/// Each lower crate's typed kind maps onto these in one exhaustive `match`
/// ([`crate::Error::error_kind`]), so a kind added below does not compile here until it is given one.
///
/// ```
/// let err = editkit::Error::from(editkit::vfs::Error::NotFound { path: "a.txt".into() });
/// assert_eq!(err.error_kind(), editkit::ErrorKind::NotFound);
/// assert_eq!(err.error_kind().as_str(), "not_found");
/// ```
///
/// Not `#[non_exhaustive]`: the kinds are the contract's closed set ([`ErrorKind::ALL`] has
/// their number in its type), so a caller may match every kind with no catch-all, and a new
/// kind breaks such a match until the caller decides what it means there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// `not_found`: nothing at the path, or the text, symbol or hunk is not there.
    NotFound,
    /// `ambiguous`: more than one place matches.
    Ambiguous,
    /// `already_applied`: the change already stands in the file.
    AlreadyApplied,
    /// `no_change`: the change changes nothing.
    NoChange,
    /// `stale`: the file changed since it was read.
    Stale,
    /// `outside_workspace`: the path leads outside every root.
    OutsideWorkspace,
    /// `blocked`: a blocked path, or a write to a read-only toolkit.
    Blocked,
    /// `permission_denied`: a read-only file (its owner took away its write bit).
    PermissionDenied,
    /// `too_large`: past a bound that names itself.
    TooLarge,
    /// `not_utf8`: bytes that are not UTF-8.
    NotUtf8,
    /// `utf16`: UTF-16 or UTF-32 text.
    Utf16,
    /// `binary`: binary data.
    Binary,
    /// `not_encodable`: the new text holds a character the file's encoding cannot hold.
    NotEncodable,
    /// `exists`: something already there.
    Exists,
    /// `is_directory`: a folder where a file was expected.
    IsDirectory,
    /// `invalid_patch`: the patch text is not a whole patch.
    InvalidPatch,
    /// `syntax_error`: the result would not parse.
    SyntaxError,
    /// `invalid_args`: arguments the tool cannot use.
    InvalidArgs,
    /// `io`: the file system failed or changed underneath.
    Io,
    /// `unavailable`: no language server answers for the file (none installed outside the
    /// workspace, it could not start, or language servers are off); the message names what
    /// to install.
    Unavailable,
}

impl ErrorKind {
    /// Every kind, in the contract's order.
    pub const ALL: [ErrorKind; 20] = [
        ErrorKind::NotFound,
        ErrorKind::Ambiguous,
        ErrorKind::AlreadyApplied,
        ErrorKind::NoChange,
        ErrorKind::Stale,
        ErrorKind::OutsideWorkspace,
        ErrorKind::Blocked,
        ErrorKind::PermissionDenied,
        ErrorKind::TooLarge,
        ErrorKind::NotUtf8,
        ErrorKind::Utf16,
        ErrorKind::Binary,
        ErrorKind::NotEncodable,
        ErrorKind::Exists,
        ErrorKind::IsDirectory,
        ErrorKind::InvalidPatch,
        ErrorKind::SyntaxError,
        ErrorKind::InvalidArgs,
        ErrorKind::Io,
        ErrorKind::Unavailable,
    ];

    /// The stable snake_case word of the contract.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::NotFound => "not_found",
            ErrorKind::Ambiguous => "ambiguous",
            ErrorKind::AlreadyApplied => "already_applied",
            ErrorKind::NoChange => "no_change",
            ErrorKind::Stale => "stale",
            ErrorKind::OutsideWorkspace => "outside_workspace",
            ErrorKind::Blocked => "blocked",
            ErrorKind::PermissionDenied => "permission_denied",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::NotUtf8 => "not_utf8",
            ErrorKind::Utf16 => "utf16",
            ErrorKind::Binary => "binary",
            ErrorKind::NotEncodable => "not_encodable",
            ErrorKind::Exists => "exists",
            ErrorKind::IsDirectory => "is_directory",
            ErrorKind::InvalidPatch => "invalid_patch",
            ErrorKind::SyntaxError => "syntax_error",
            ErrorKind::InvalidArgs => "invalid_args",
            ErrorKind::Io => "io",
            ErrorKind::Unavailable => "unavailable",
        }
    }
}

impl serde::Serialize for ErrorKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for ErrorKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let word = String::deserialize(deserializer)?;
        ErrorKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == word)
            .ok_or_else(|| serde::de::Error::unknown_variant(&word, &ERROR_KINDS))
    }
}

/// A plain string whose values are [`ERROR_KINDS`].
impl schemars::JsonSchema for ErrorKind {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ErrorKind".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "enum": ERROR_KINDS})
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every `error.kind` a tool call can return, the stable words of the tool-call contract
/// ([`ErrorKind::ALL`] as words).
///
/// ```
/// assert!(editkit::ERROR_KINDS.contains(&"stale"));
/// let err = editkit::Error::from(editkit::vfs::Error::NotFound { path: "a.txt".into() });
/// assert!(editkit::ERROR_KINDS.contains(&err.error_kind().as_str()));
/// ```
pub const ERROR_KINDS: [&str; 20] = {
    let mut words = [""; 20];
    let mut i = 0;
    while i < words.len() {
        words[i] = ErrorKind::ALL[i].as_str();
        i += 1;
    }
    words
};

/// Permission bits, written in octal with four digits (`0644`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Mode(pub u32);

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04o}", self.0)
    }
}

impl serde::Serialize for Mode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Mode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let digits = String::deserialize(deserializer)?;
        u32::from_str_radix(&digits, 8)
            .map(Mode)
            .map_err(|_| serde::de::Error::invalid_value(serde::de::Unexpected::Str(&digits), &"octal permission bits"))
    }
}

/// A plain string of octal digits.
impl schemars::JsonSchema for Mode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Mode".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string"})
    }
}

/// How an external checker or formatter was confined, as the result says it:
/// `landlock`, `landlock without network rules (kernel Landlock ABI n)` or
/// `unavailable: <why>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Confinement {
    /// Landlock enforced: no writes outside the run's temp dir, no TCP.
    Landlock,
    /// Landlock enforced on the filesystem only: the kernel's Landlock ABI has no network rules.
    LandlockWithoutNetwork {
        /// The kernel's Landlock ABI version.
        abi: i32,
    },
    /// The tool ran unconfined, and why.
    Unavailable {
        /// Why Landlock could not confine it.
        why: String,
    },
    /// A confinement said in words of no known form, kept as given (not full).
    Other(String),
}

impl Confinement {
    const LANDLOCK: &'static str = "landlock";
    const WITHOUT_NETWORK: &'static str = "landlock without network rules (kernel Landlock ABI ";
    const UNAVAILABLE: &'static str = "unavailable: ";

    /// Reads the confinement an analysis report gives; text of no known form is a run
    /// without full confinement, said as it was given.
    #[must_use]
    pub fn from_report(text: &str) -> Confinement {
        if text == Self::LANDLOCK {
            return Confinement::Landlock;
        }
        if let Some(abi) = text.strip_prefix(Self::WITHOUT_NETWORK).and_then(|rest| rest.strip_suffix(')'))
            && let Ok(abi) = abi.parse()
        {
            return Confinement::LandlockWithoutNetwork { abi };
        }
        match text.strip_prefix(Self::UNAVAILABLE) {
            Some(why) => Confinement::Unavailable { why: why.to_owned() },
            None => Confinement::Other(text.to_owned()),
        }
    }

    /// Whether the run was confined in full (filesystem and network).
    #[must_use]
    pub fn is_full(&self) -> bool {
        matches!(self, Confinement::Landlock)
    }
}

impl std::fmt::Display for Confinement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Confinement::Landlock => f.write_str(Self::LANDLOCK),
            Confinement::LandlockWithoutNetwork { abi } => write!(f, "{}{abi})", Self::WITHOUT_NETWORK),
            Confinement::Unavailable { why } => write!(f, "{}{why}", Self::UNAVAILABLE),
            Confinement::Other(text) => f.write_str(text),
        }
    }
}

impl serde::Serialize for Confinement {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Confinement {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        Ok(Confinement::from_report(&String::deserialize(deserializer)?))
    }
}

/// A plain string.
impl schemars::JsonSchema for Confinement {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Confinement".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string"})
    }
}
