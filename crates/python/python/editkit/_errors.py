"""The exceptions a refused tool call raises: one class per error kind of the tool-call contract."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class EditkitError(Exception):
    """A refused tool call. Nothing was changed on disk.

    ``kind`` is the contract's stable word (``not_found``, ``stale``...), ``message`` says what to
    do next, and ``details`` holds the error object's other fields (candidate lines, the closest
    region, hashes, syntax errors, the failing field...).
    """

    kind: str = "io"

    def __init__(self, message: str, *, kind: str | None = None, details: Mapping[str, Any] | None = None):
        super().__init__(message)
        self.message = message
        if kind is not None:
            self.kind = kind
        self.details: dict[str, Any] = dict(details or {})

    def to_dict(self) -> dict[str, Any]:
        """The contract's error object: ``{"kind", "message", ...details}``."""
        return {"kind": self.kind, "message": self.message, **self.details}

    def __getattr__(self, name: str) -> Any:
        # Details read as attributes too (``err.lines``); unknown names stay errors.
        details = self.__dict__.get("details")
        if details is not None and name in details:
            return details[name]
        raise AttributeError(f"{type(self).__name__!s} has no attribute or detail {name!r}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, kind={self.kind!r})"


class NotFound(EditkitError):
    """The file, folder, old text, symbol or session does not exist (``not_found``)."""

    kind = "not_found"


class Ambiguous(EditkitError):
    """The old text matches several places (``ambiguous``); ``details["lines"]`` lists them."""

    kind = "ambiguous"


class AlreadyApplied(EditkitError):
    """The new text already stands where the old text would be (``already_applied``)."""

    kind = "already_applied"


class NoChange(EditkitError):
    """The call would change nothing (``no_change``)."""

    kind = "no_change"


class Stale(EditkitError):
    """The file changed on disk since it was read (``stale``): read it again, or pass force."""

    kind = "stale"


class OutsideWorkspace(EditkitError):
    """The path leads outside every workspace root (``outside_workspace``)."""

    kind = "outside_workspace"


class Blocked(EditkitError):
    """The path is blocked (``.git``, ``.env``, keys, or a ``blocked`` pattern) (``blocked``)."""

    kind = "blocked"


class PermissionDenied(EditkitError, PermissionError):
    """The file is read-only: its owner took away its write bit (``permission_denied``); ``details["mode"]`` gives it."""

    kind = "permission_denied"


class TooLarge(EditkitError):
    """A size bound was passed (``too_large``); the message names the limit."""

    kind = "too_large"


class NotUtf8(EditkitError):
    """The file is not valid UTF-8 (``not_utf8``)."""

    kind = "not_utf8"


class Utf16(EditkitError):
    """The file is UTF-16 or UTF-32 (``utf16``)."""

    kind = "utf16"


class Binary(EditkitError):
    """The file is binary (``binary``)."""

    kind = "binary"


class NotEncodable(EditkitError):
    """The new text holds a character the file's encoding cannot hold (``not_encodable``);
    ``details`` name the character, its line and the encoding. Nothing was written."""

    kind = "not_encodable"


class Exists(EditkitError):
    """The destination already exists (``exists``)."""

    kind = "exists"


class IsDirectory(EditkitError):
    """A file was expected where a directory stands (``is_directory``)."""

    kind = "is_directory"


class InvalidPatch(EditkitError):
    """The patch cannot be parsed or does not apply (``invalid_patch``); nothing was written."""

    kind = "invalid_patch"


class InvalidSyntax(EditkitError):
    """The result would not parse (``syntax_error``); ``details["syntax_errors"]`` lists why."""

    kind = "syntax_error"


class InvalidArgs(EditkitError, ValueError):
    """An argument is missing, unknown or malformed (``invalid_args``); ``details["field"]`` names it."""

    kind = "invalid_args"


class IoError(EditkitError):
    """The operating system refused the operation (``io``)."""

    kind = "io"


class Unavailable(EditkitError):
    """No language server answers for the file (``unavailable``); the message names what to install."""

    kind = "unavailable"


_BY_KIND: dict[str, type[EditkitError]] = {
    cls.kind: cls
    for cls in (
        NotFound,
        Ambiguous,
        AlreadyApplied,
        NoChange,
        Stale,
        OutsideWorkspace,
        Blocked,
        PermissionDenied,
        TooLarge,
        NotUtf8,
        Utf16,
        Binary,
        NotEncodable,
        Exists,
        IsDirectory,
        InvalidPatch,
        InvalidSyntax,
        InvalidArgs,
        IoError,
        Unavailable,
    )
}


def error_class(kind: str) -> type[EditkitError]:
    """The exception class of error ``kind`` (``EditkitError`` itself for a kind it does not know)."""
    return _BY_KIND.get(kind, EditkitError)


def error_from(error: Mapping[str, Any]) -> EditkitError:
    """The exception for a contract error object ``{"kind", "message", ...details}``."""
    kind = str(error.get("kind", "io"))
    message = str(error.get("message", ""))
    details = {key: value for key, value in error.items() if key not in ("kind", "message")}
    return error_class(kind)(message, kind=kind, details=details)
