"""Python's own words for a file that is not UTF-8, for the adapters of tools that open files as
UTF-8 (``open(path, encoding="utf-8").read()``) and quote the ``UnicodeDecodeError``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable


def _byte_of() -> dict[str, int]:
    """Each character of WHATWG's windows-1252, which maps every byte to a character of its own
    (the five Python's ``cp1252`` leaves undefined to the C1 control of that number), to its byte."""
    table = {}
    for byte in range(256):
        try:
            table[bytes([byte]).decode("cp1252")] = byte
        except UnicodeDecodeError:
            table[chr(byte)] = byte
    return table


_BYTE_OF = _byte_of()


def decode_error(call: Callable[[str, Mapping[str, Any]], Mapping[str, Any]], path: str) -> str | None:
    """``str()`` of the ``UnicodeDecodeError`` Python raises reading the file at ``path`` (a
    toolkit path) as UTF-8, or ``None`` when it reads (or cannot be read at all).

    The toolkit reads the file's bytes as windows-1252, one character a byte, exactly as they
    are on disk (``raw``: line endings kept); they are decoded here as Python decodes them."""
    data = _bytes_of(call, path)
    if data is None:
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        return str(error)
    return None


def _bytes_of(call: Callable[[str, Mapping[str, Any]], Mapping[str, Any]], path: str) -> bytes | None:
    """The file's bytes as they are on disk, read through the toolkit in an encoding that gives
    one character for each byte (windows-1252), or for each two (UTF-16LE, for a file holding
    NUL bytes, which no single-byte encoding takes); ``None`` when neither reads it."""
    args = {"path": path, "raw": True, "include_symbols": False}
    answer = call("read_file", {**args, "encoding": "windows-1252"})
    if answer.get("ok") and not answer.get("is_binary"):
        try:
            return bytes(_BYTE_OF[char] for char in str(answer.get("content", "")))
        except KeyError:
            return None
    answer = call("read_file", {**args, "encoding": "utf-16le"})
    if answer.get("ok") and not answer.get("is_binary"):
        try:
            body = str(answer.get("content", "")).encode("utf-16-le")
        except UnicodeEncodeError:
            return None
        return (b"\xff\xfe" if answer.get("bom") else b"") + body
    return None
