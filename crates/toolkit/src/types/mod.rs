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

mod code;
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
mod words;
mod write;

pub use code::*;
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
pub use words::*;
pub use write::*;
