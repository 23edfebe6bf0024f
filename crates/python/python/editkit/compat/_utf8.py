"""A file's bytes as they are on disk, through the toolkit, for the adapters of tools that read
files with Python's codecs: Python's own ``UnicodeDecodeError`` for a file that is not UTF-8
(``open(path, encoding="utf-8").read()``), and reading or writing in any Python codec."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable

Call = Callable[[str, Mapping[str, Any]], Mapping[str, Any]]


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


def decode_error(call: Call, path: str) -> str | None:
    """``str()`` of the ``UnicodeDecodeError`` Python raises reading the file at ``path`` (a
    toolkit path) as UTF-8, or ``None`` when it reads (or cannot be read at all)."""
    data, _ = file_bytes(call, path)
    if data is None:
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        return str(error)
    return None


def file_bytes(call: Call, path: str) -> tuple[bytes | None, Mapping[str, Any]]:
    """The file's bytes as they are on disk, and the toolkit's answer (its ``sha256`` is
    theirs; on a refusal, the refusal), read in an encoding that gives one character for each
    byte (windows-1252), or for each two (UTF-16LE, for a file holding NUL bytes, which no
    single-byte encoding takes). The bytes are ``None`` when neither reads the file (a binary
    file, or a refusal)."""
    args = {"path": path, "raw": True, "include_symbols": False}
    answer = call("read_file", {**args, "encoding": "windows-1252"})
    if not answer.get("ok"):
        return None, answer
    if not answer.get("is_binary"):
        try:
            return bytes(_BYTE_OF[char] for char in str(answer.get("content", ""))), answer
        except KeyError:
            return None, answer
    wide = call("read_file", {**args, "encoding": "utf-16le"})
    if wide.get("ok") and not wide.get("is_binary"):
        content = str(wide.get("content", ""))
        if wide.get("bom") and not content.startswith("\ufeff"):
            content = "\ufeff" + content
        try:
            return content.encode("utf-16-le"), wide
        except UnicodeEncodeError:
            pass
    return None, answer


def transport(data: bytes) -> str:
    """The text whose windows-1252 encoding is exactly ``data``: what a toolkit write takes, with
    ``encoding: "windows-1252"``, to put those bytes on disk."""
    return data.decode("latin-1").translate(_TRANSPORT)


_TRANSPORT = {byte: char for char, byte in _BYTE_OF.items() if ord(char) != byte}
