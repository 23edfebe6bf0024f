//! `file:` URIs and paths. Only absolute UTF-8 paths become URIs; a URI a server sends
//! becomes a path only when it is a plain `file:` URI (no host but `localhost`, no query or
//! fragment, no NUL).

use std::path::{Path, PathBuf};

use lsp_types::Uri;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};

/// What is escaped in a path segment: everything but unreserved characters and the
/// sub-delimiters a path may hold.
const PATH_SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/')
    .remove(b'!')
    .remove(b'$')
    .remove(b'&')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b'+')
    .remove(b',')
    .remove(b';')
    .remove(b'=')
    .remove(b':')
    .remove(b'@');

/// The `file:` URI of `path`.
///
/// # Errors
/// A relative or non-UTF-8 path has no URI here (the message says which).
pub fn path_to_uri(path: &Path) -> Result<Uri, String> {
    let Some(text) = path.to_str() else { return Err(format!("`{}` is not UTF-8", path.display())) };
    if !path.is_absolute() {
        return Err(format!("`{text}` is not absolute"));
    }
    let uri = format!("file://{}", utf8_percent_encode(text, PATH_SEGMENT));
    uri.parse::<Uri>().map_err(|error| format!("`{text}` makes no valid URI: {error}"))
}

/// The path a `file:` URI names, or `None` for any other URI.
#[must_use]
pub fn uri_to_path(uri: &Uri) -> Option<PathBuf> {
    let text = uri.as_str();
    let rest = text.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') || rest.contains(['?', '#']) {
        return None;
    }
    let bytes: Vec<u8> = percent_decode_str(rest).collect();
    if bytes.contains(&0) {
        return None;
    }
    let decoded = String::from_utf8(bytes).ok()?;
    Some(PathBuf::from(decoded))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_round_trip_through_uris() {
        for path in ["/work/a b/ü#1?.py", "/tmp/x%y", "/"] {
            let uri = path_to_uri(Path::new(path)).expect("absolute UTF-8");
            assert_eq!(uri_to_path(&uri).as_deref(), Some(Path::new(path)), "{}", uri.as_str());
        }
        assert!(path_to_uri(Path::new("rel/x.py")).is_err());
    }

    #[test]
    fn other_uris_name_no_path() {
        for uri in ["https://example.com/x.py", "file://host/x.py", "file:///x.py?q", "file:///a%00b", "untitled:1"] {
            let uri: Uri = uri.parse().expect("a valid URI");
            assert_eq!(uri_to_path(&uri), None, "{}", uri.as_str());
        }
        let uri: Uri = "file://localhost/tmp/x.py".parse().expect("valid");
        assert_eq!(uri_to_path(&uri), Some(PathBuf::from("/tmp/x.py")));
    }
}
