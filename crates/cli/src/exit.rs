//! The exit codes of `editkit` and the one place a refusal's kind picks its code.

use editkit::ErrorKind;

/// Exit code of a finished command.
pub(crate) const EXIT_OK: u8 = 0;
/// Exit code of a refused operation (not found, ambiguous, stale, outside the workspace...).
pub(crate) const EXIT_REFUSED: u8 = 1;
/// Exit code of a usage or input error (bad arguments, malformed patch, unreadable input).
pub(crate) const EXIT_USAGE: u8 = 2;

/// The exit code of a refusal of `kind`: [`EXIT_USAGE`] when the input was at fault (the
/// arguments or the patch text), [`EXIT_REFUSED`] otherwise. Every kind is named, so a kind
/// added to the contract does not compile until it is given its code.
pub(crate) const fn for_kind(kind: ErrorKind) -> u8 {
    match kind {
        ErrorKind::InvalidArgs | ErrorKind::InvalidPatch => EXIT_USAGE,
        ErrorKind::NotFound
        | ErrorKind::Ambiguous
        | ErrorKind::AlreadyApplied
        | ErrorKind::NoChange
        | ErrorKind::Stale
        | ErrorKind::OutsideWorkspace
        | ErrorKind::Blocked
        | ErrorKind::PermissionDenied
        | ErrorKind::TooLarge
        | ErrorKind::NotUtf8
        | ErrorKind::Utf16
        | ErrorKind::Binary
        | ErrorKind::NotEncodable
        | ErrorKind::Exists
        | ErrorKind::IsDirectory
        | ErrorKind::SyntaxError
        | ErrorKind::Io
        | ErrorKind::Unavailable => EXIT_REFUSED,
    }
}

/// The typed kind of a contract error's `kind` word; `None` for a word the contract does not
/// have.
pub(crate) fn kind_of(word: &str) -> Option<ErrorKind> {
    ErrorKind::ALL.into_iter().find(|kind| kind.as_str() == word)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The codes `editkit --help` documents: "0 done, 1 refused (not found, ambiguous,
    /// stale...), 2 usage or input error".
    #[test]
    fn every_error_kind_has_its_documented_exit_code() {
        for kind in ErrorKind::ALL {
            let input_error = matches!(kind.as_str(), "invalid_args" | "invalid_patch");
            let documented = if input_error { 2 } else { 1 };
            assert_eq!(for_kind(kind), documented, "{kind}");
            assert_eq!(kind_of(kind.as_str()), Some(kind));
        }
        assert_eq!(kind_of("no_such_kind"), None);
        let help = crate::args::AFTER_HELP;
        assert!(help.contains("0 done, 1 refused (not found, ambiguous, stale...), 2 usage or input error"), "{help}");
    }
}
