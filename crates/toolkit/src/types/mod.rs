//! Requests and responses of every tool: serde for JSON, schemars for the schemas agents see,
//! one module per concern.
//!
//! Argument names follow the tool-call contract; common spellings from other agent tools are
//! accepted as aliases (`file_path` for `path`, `old_str` for `old_string`...).

// Constructors and setters of requests, used by each module for its requests.
/// `new` with a request's required fields (every other field takes the default the JSON
/// contract gives it when absent) and one builder-style setter per optional field: text
/// fields take anything that converts into a `String`, the others their own type.
macro_rules! request {
    (
        $request:ident { $($required:ident: $rtype:ty),* $(,)? }
        $(defaults { $($field:ident: $ftype:ty = $default:expr),* $(,)? })?
        $(text_defaults { $($tfield:ident = $tdefault:expr),* $(,)? })?
        $(optional { $($opt:ident: $otype:ty),* $(,)? })?
        $(optional_text { $($topt:ident),* $(,)? })?
    ) => {
        impl $request {
            /// A request with its required fields; every other field takes the default the JSON
            /// contract gives it.
            #[must_use]
            pub fn new($($required: impl Into<$rtype>),*) -> Self {
                $request {
                    $($required: $required.into(),)*
                    $($($field: $default,)*)?
                    $($($tfield: $tdefault,)*)?
                    $($($opt: None,)*)?
                    $($($topt: None,)*)?
                }
            }
            $($(
                #[doc = concat!("Sets `", stringify!($field), "`.")]
                #[must_use]
                pub fn $field(mut self, $field: $ftype) -> Self {
                    self.$field = $field;
                    self
                }
            )*)?
            $($(
                #[doc = concat!("Sets `", stringify!($tfield), "`.")]
                #[must_use]
                pub fn $tfield(mut self, $tfield: impl Into<String>) -> Self {
                    self.$tfield = $tfield.into();
                    self
                }
            )*)?
            $($(
                #[doc = concat!("Sets `", stringify!($opt), "`.")]
                #[must_use]
                pub fn $opt(mut self, $opt: $otype) -> Self {
                    self.$opt = Some($opt);
                    self
                }
            )*)?
            $($(
                #[doc = concat!("Sets `", stringify!($topt), "`.")]
                #[must_use]
                pub fn $topt(mut self, $topt: impl Into<String>) -> Self {
                    self.$topt = Some($topt.into());
                    self
                }
            )*)?
        }
    };
}

/// A request struct with the one workspace `path` it acts on, whose attributes are written
/// here once per kind of path: the names it is also accepted under (serde aliases, listed in
/// the schema as `x-aliases` from the same words), its default if it has one, and its doc line
/// unless the struct writes its own (one `///` line right above `pub path: String,`).
///
/// - `file`: a file, also `file_path` or `filepath`.
/// - `entry`: a file or folder, also `file_path` or `filepath`.
/// - `notebook`: a notebook, also `file_path` or `notebook_path`.
/// - `directory`: a folder, also `directory`; default `.`, the root.
///
/// `path` comes first, or after other fields (which are passed on as written).
macro_rules! path_request {
    (file $($item:tt)*) => {
        path_request! { @kind [] ["file_path", "filepath"] " File path, relative to the workspace root." $($item)* }
    };
    (entry $($item:tt)*) => {
        path_request! { @kind [] ["file_path", "filepath"] " Path, relative to the workspace root." $($item)* }
    };
    (notebook $($item:tt)*) => {
        path_request! { @kind [] ["file_path", "notebook_path"] " Notebook path (.ipynb), relative to the workspace root." $($item)* }
    };
    (directory $($item:tt)*) => {
        path_request! {
            @kind [default = "super::defaults::dot",] ["directory"]
            " Directory, relative to the workspace root (default: the root)." $($item)*
        }
    };
    (@kind $serde:tt $aliases:tt $doc:tt $(#[$meta:meta])* pub struct $name:ident { $($fields:tt)* }) => {
        path_request! { @find [$serde $aliases $doc] [$(#[$meta])* pub struct $name] [] $($fields)* }
    };
    // `path` with a doc line of its own.
    (@find [$serde:tt $aliases:tt $doc:tt] $head:tt [$($before:tt)*] #[doc = $own:tt] pub path: String, $($after:tt)*) => {
        path_request! { @emit $serde $aliases $own $head [$($before)*] [$($after)*] }
    };
    (@find [$serde:tt $aliases:tt $doc:tt] $head:tt [$($before:tt)*] pub path: String, $($after:tt)*) => {
        path_request! { @emit $serde $aliases $doc $head [$($before)*] [$($after)*] }
    };
    (@find $kind:tt $head:tt [$($before:tt)*] $next:tt $($rest:tt)*) => {
        path_request! { @find $kind $head [$($before)* $next] $($rest)* }
    };
    (@emit [$($serde:tt)*] [$($alias:tt),*] $doc:tt [$($head:tt)*] [$($before:tt)*] [$($after:tt)*]) => {
        $($head)* {
            $($before)*
            #[doc = $doc]
            #[serde($($serde)* $(alias = $alias),*)]
            #[schemars(extend("x-aliases" = [$($alias),*]))]
            pub path: String,
            $($after)*
        }
    };
}

mod code;
#[cfg(feature = "lsp")]
mod code_intel;
mod defaults;
mod details;
mod edit;
mod editor;
mod facts;
mod notebook;
mod patch;
mod paths;
mod read;
#[cfg(feature = "search")]
mod search;
mod server_diagnostics;
mod words;
mod write;

pub use code::*;
#[cfg(feature = "lsp")]
pub use code_intel::*;
pub use details::*;
pub use edit::*;
pub use editor::*;
pub use facts::*;
pub use notebook::*;
pub use patch::*;
pub use paths::*;
pub use read::*;
#[cfg(feature = "search")]
pub use search::*;
pub use server_diagnostics::*;
pub use words::*;
pub use write::*;
