r"""peteos' ``TextEditor`` (``peteos.agentic_objects.text_editor``) on editkit's editor sessions.

The agentic object with the seven editor tools ``load``, ``read``, ``write``, ``edit``, ``store``,
``diff`` and ``clear``, with the original's signatures, return messages, system prompt and tool
descriptions. Where peteos' documentation (``reference/agentic-objects/text-editor.md``) and
its code disagree, it does what the documentation says: ``load()`` of a missing file returns an
error (``Error: file not found: <path>``) and creates nothing (the latest code, commit 487fbff,
creates it empty), and ``diff()`` answers ``No differences`` when the lines match the file (the
code: ``No differences \u2014 internal lines match the file on disk.``); ``write()`` answers
``Replaced (N lines).``, the documented "message with the number of lines replaced". The buffer
lives in an editkit editor session
(``editor_load`` ... ``editor_clear``): matching (exact, as ``str.replace``), the diff, the
staleness check of ``store`` and every path decision are the toolkit's.

When peteos is installed, ``TextEditor`` is a peteos ``AgenticObject``, as the original is: it is
registered under its name, its ``_oap_config`` is what ``@agentic_object()`` sets, its docstring
is the agent's system prompt and its methods carry the ``_tool_name`` and ``_tool_description``
peteos' ``@tool`` sets, so peteos registers it as it registers its own. Without peteos it is a
plain class with the same methods::

    from editkit.compat.peteos import TextEditor

    editor = TextEditor()                  # workspace root: the current directory
    editor.load("notes.txt")               # 'Loaded /home/me/proj/notes.txt (3 lines).'
    editor.edit("old line", "new line")    # "Replaced 'old line' with 'new line'."
    print(editor.diff())                   # the unified diff against the file on disk
    editor.store()                         # 'Stored 3 lines to /home/me/proj/notes.txt.'

``TextEditor(root=...)`` confines the editor to another workspace folder and
``TextEditor(toolkit=...)`` shares an open ``editkit.Toolkit`` (its roots, blocked paths and
staleness guard); both are keyword-only and every other argument goes on to the next class of
the MRO. Relative paths resolve in the (primary) root, and messages name the file as
``os.path.abspath`` would from there. Failures are returned, never raised, as the original
does: ``"Error: <what>: <message>"``.

Where this editor differs from the original, deliberately safer (each row says why; everywhere
else it behaves as documented):

| Situation | peteos' ``TextEditor`` | here |
|---|---|---|
| A path outside the workspace, or a blocked file | loaded, created, stored | refused, nothing created: the agent works on the project and never on ``.git``, ``.env`` or keys |
| Relative paths | resolved in the current directory of each call | in the root fixed when the editor is made: a ``chdir`` elsewhere cannot move the agent's edits |
| The file changed on disk, ``read()`` or ``edit()`` ran, then ``store()`` | the change is overwritten (``read()`` refreshes the mtime it checks) | refused: only ``load()`` shows the agent the file as it is, so only it may bless a change made on disk |
| The file was rewritten but its mtime did not move | the change is overwritten | refused: the check is the content's hash, which any rewrite moves |
| ``store()``'s check | the mtime: a ``touch`` refuses, and so does a second ``store()`` unless ``read()`` ran | the content's SHA-256 (named in the refusal): a ``touch`` does not refuse, a second ``store()`` works: the check follows the content, so no change is missed and none is invented |
| A crash or a full disk during ``store()`` | the file is left truncated or torn | old or new content, whole: a temp file renamed over the target |
| CRLF, lone CR, ``\f``, ``\v``, ``\x1c``-``\x1e``, ``\x85``, U+2028, U+2029 in the file | rewritten as LF line breaks (and counted as lines) | kept byte for byte (new lines take the file's ending): an edit changes only the text it names |
| ``write()`` before any ``load()`` | ``Replaced (N lines).``, text later lost | refused: no file loaded, so nothing the agent writes is lost silently |
| ``load()`` of a folder, a binary file (NUL bytes, even valid UTF-8), one over the read bound (16 MiB) | ``IsADirectoryError`` raised; loaded | ``Error: IsDirectory`` / ``Binary`` / ``TooLarge: ...``: nothing is loaded that ``store()`` would write back changed, nor a file that would fill memory |
| A failed ``load()`` | the new path kept, with the lines loaded before | no file loaded: the old lines cannot be stored into the new path |
| ``edit()`` whose ``old_string`` stands in overlapping places (``aa`` in ``aaa``) | the first replaced | ``Error: '...' found multiple times. ...``: two places are a guess |
| ``edit()`` whose ``new_string`` is its ``old_string`` | ``Replaced ...``, nothing changes | ``Error: NoChange: ...``: the agent learns its edit did nothing |
| ``edit()`` of an empty ``old_string`` with ``replace_all`` | ``new_string`` put between every two characters | ``Error: InvalidArgs: ...``: never a whole-buffer rewrite by mistake |
| ``diff()`` | difflib's diff of the lines, headed with the absolute path; a missing final newline is no difference | editkit's unified diff, headed ``a/<path>`` / ``b/<path>`` (workspace-relative), of the exact text: it shows every byte ``store()`` would change, a final newline added or dropped included |

In words: paths are confined to the workspace root by capabilities (``..`` above the root, absolute
paths elsewhere and links leading out are refused with ``Error: OutsideWorkspace: ...``, ``~``
with ``Error: InvalidArgs: ...``; ``.git``, ``.env*``, private keys and credential files with
``Error: Blocked: ...``). The original's ``read()``, which ``edit()`` calls, re-arms its mtime
check with the file's new mtime, so a change the agent never saw is overwritten; here only
``load()`` shows the agent the file as it is now, and ``store()`` compares the SHA-256 of the
content loaded (or last stored) with the content on disk. ``store()`` writes a temporary file and
renames it over the target, where the original truncates the file and writes in place. The
original splits the text with ``str.splitlines`` and joins it with ``\n``; here untouched lines keep
their bytes. ``edit()`` finds ``old_string`` exactly, as ``str.replace`` does, but editkit counts
overlapping places as several. The two documented refusals of ``edit()`` keep the original's
words on their first line (``Error: '...' found multiple times. ...``, ``Error: '...' not found in
text.``); a second line gives editkit's detail (the candidate lines, the closest region). The
original's private attributes ``_lines``, ``_file_mtime`` and ``_trailing_newline`` do not exist
(``_file_path`` holds the loaded file's absolute path, or ``None``). As the original,
``load()`` reads the file as UTF-8 only: one that is not (invalid UTF-8, or a legacy code page or
UTF-16, which editkit could read) is ``Error: UnicodeDecodeError: 'utf-8' codec can't decode
byte ...``, in Python's words.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar

import editkit
from editkit.compat._utf8 import decode_error

try:  # peteos' own base class when it is installed, so that peteos registers this class as its own
    from peteos.oap.agentic_object import AgenticObject as _AgenticBase
except ImportError:
    _AgenticBase = object  # type: ignore[assignment,misc]

__all__ = ["NO_DIFFERENCES", "NO_FILE_LOADED", "TextEditor"]

_F = TypeVar("_F", bound=Callable[..., Any])

#: The answer of every tool but ``load`` and ``clear`` while no file is loaded.
NO_FILE_LOADED = "Error: no file loaded. Use load() first."
#: ``diff()``'s answer when the buffer matches the file on disk.
NO_DIFFERENCES = "No differences"


def _tool(description: str) -> Callable[[_F], _F]:
    """Marks a method as an agent tool the way peteos' ``@tool(description=...)`` does
    (``_tool_name``, ``_tool_description``), without importing peteos."""

    def mark(method: _F) -> _F:
        method._tool_name = method.__name__  # type: ignore[attr-defined]
        method._tool_description = description  # type: ignore[attr-defined]
        return method

    return mark


def _failure(error: Mapping[str, Any]) -> str:
    """A refusal of the toolkit as the original words its failures: ``Error: <what>: <message>``."""
    kind = str(error.get("kind", "io"))
    return f"Error: {editkit.error_class(kind).__name__}: {error.get('message', '')}"


class TextEditor(_AgenticBase):  # type: ignore[misc,valid-type]
    """You are a text editor. You hold text as a list of lines in memory.

    Use `load` to read a file into your internal representation.
    Use `read` to view the current text content.
    Use `write` to replace all lines with new text (does not write to disk).
    Use `edit` to replace exact line text with new line text (does not write to disk).
    Use `store` to write the lines back to the file (safe against external changes).
    Use `diff` to compare your internal lines against the file on disk.
    Use `clear` to clear your internal lines.

    `store` is refused if the file changed on disk since `load` (reading does not change that):
    then `load` it again. Paths outside the workspace and protected files (.git, .env, keys) are
    refused.
    """

    #: What peteos' ``@agentic_object()`` sets on the class it decorates, with no arguments.
    _oap_config: ClassVar[dict[str, Any]] = {
        "imports": [],
        "import_aliases": {},
        "invoke_sub_agents": False,
        "allow_code_execution": False,
        "define_functions": False,
        "role": None,
    }

    def __init__(
        self,
        *args: Any,
        toolkit: editkit.Toolkit | None = None,
        root: str | os.PathLike[str] | None = None,
        **kwargs: Any,
    ) -> None:
        """Opens the editor on ``toolkit``, or on a toolkit rooted at ``root`` (default: the
        current directory); the other arguments go on to the next class of the MRO."""
        if toolkit is not None and root is not None:
            raise TypeError("TextEditor takes toolkit or root, not both")
        if toolkit is None:
            # The original reads files as UTF-8 only.
            toolkit = editkit.Toolkit(
                os.getcwd() if root is None else root, diagnostics="off", detect_encodings=False
            )
        self._editor_toolkit: editkit.Toolkit = toolkit
        self._editor_session: str | None = None
        self._editor_given: str | None = None
        self._editor_lines = 0
        self._file_path: str | None = None
        super().__init__(*args, **kwargs)

    # -- the seven tools -------------------------------------------------------------------

    @_tool(
        "Try to load a file from disk into the editor. Stores the file path and the SHA-256 of its "
        "content (editkit: rather than its modification time) for safe writing."
    )
    def load(self, file_path: str) -> str:
        """Load a file into the editor's internal line representation (a missing file is an
        error)."""
        self._close()
        loaded = self._call("editor_load", {"path": file_path})
        if not loaded.get("ok"):
            error = loaded["error"]
            if error.get("kind") == "not_found" and not error.get("evicted"):
                # As documented: an error, and nothing is created.
                return f"Error: file not found: {self._absolute(file_path)}"
            if error.get("kind") in ("not_utf8", "utf16"):
                # As the original, which reads the file as UTF-8: Python's own words.
                quoted = decode_error(self._call, file_path)
                if quoted is not None:
                    return f"Error: UnicodeDecodeError: {quoted}"
            return _failure(error)
        self._editor_session = str(loaded["session_id"])
        self._editor_given = file_path
        self._editor_lines = int(loaded["line_count"])
        self._file_path = self._absolute(file_path)
        return f"Loaded {self._file_path} ({self._editor_lines} lines)."

    @_tool(
        "Return the current text content as a string, joined from the internal lines array. "
        "(editkit: it does not refresh what store() checks against; only load() does.)"
    )
    def read(self) -> str:
        """Return the full text content of the editor's lines (LF line endings, whatever the file
        uses on disk)."""
        if self._editor_session is None:
            return NO_FILE_LOADED
        answer = self._call("editor_read", {"session_id": self._editor_session})
        if not answer.get("ok"):
            return _failure(answer["error"])
        return str(answer["content"])

    @_tool(
        "Replace the internal lines array with lines split from the given text. Does not write to "
        "disk. (editkit: a file must be loaded first.)"
    )
    def write(self, text: str) -> str:
        """Split text into lines and replace the internal representation."""
        if self._editor_session is None:
            return NO_FILE_LOADED
        answer = self._call("editor_write", {"session_id": self._editor_session, "text": text})
        if not answer.get("ok"):
            return _failure(answer["error"])
        self._editor_lines = int(answer["line_count"])
        return f"Replaced ({self._editor_lines} lines)."

    @_tool(
        "Replace old_string with new_string in the text content. Does not write to disk. Both "
        "old_string and new_string can span multiple lines. Like the Edit tool \u2014 find old_string, "
        "replace with new_string, optional replace_all for replacing all occurrences."
    )
    def edit(self, old_string: str, new_string: str, replace_all: bool = False) -> str:
        """Replace text content with new text (the exact text, in one place unless
        ``replace_all``)."""
        if self._editor_session is None:
            return NO_FILE_LOADED
        if not old_string and not replace_all:
            # The original counts the empty string once more than the text has characters.
            if self._editor_lines:
                return self._found_many(old_string, "")
            answer = self._call("editor_write", {"session_id": self._editor_session, "text": new_string})
            if not answer.get("ok"):
                return _failure(answer["error"])
            self._editor_lines = int(answer["line_count"])
            return f"Replaced '{old_string}' with '{new_string}'."
        answer = self._editor_edit(old_string, new_string, replace_all)
        error = answer.get("error") or {}
        if error.get("kind") == "already_applied" and not replace_all:
            # The one place stands inside a copy of the new text (replaced again, as the original
            # does), or the old text stands nowhere: replace_all tells which.
            retried = self._editor_edit(old_string, new_string, True)
            if retried.get("ok"):
                answer = retried
        if answer.get("ok"):
            self._editor_lines = int(answer["line_count"])
            if replace_all:
                return f"Replaced {answer['replacements']} occurrence(s) of '{old_string}'."
            return f"Replaced '{old_string}' with '{new_string}'."
        if error.get("kind") == "ambiguous":
            return self._found_many(old_string, f"\n{error.get('message', '')}")
        if error.get("kind") == "already_applied" or (
            error.get("kind") == "not_found" and "closest" in error
        ):
            return f"Error: '{old_string}' not found in text.\n{error.get('message', '')}"
        return _failure(error)

    @_tool(
        "Write the internal lines array back to the file. Fails if the file was modified externally "
        "since last load() (editkit: read() does not reset this)."
    )
    def store(self) -> str:
        """Write lines to disk (atomically), protecting against external file modifications via
        a check of the content's SHA-256."""
        if self._editor_session is None:
            return NO_FILE_LOADED
        answer = self._call("editor_store", {"session_id": self._editor_session})
        if answer.get("ok"):
            return f"Stored {self._editor_lines} lines to {self._file_path}."
        error = answer["error"]
        if error.get("kind") == "stale":
            if error.get("current_sha256") is None:
                return f"Error: file '{self._file_path}' no longer exists."
            return (
                f"Error: file '{self._file_path}' was modified externally. "
                f"Your loaded sha256: {error.get('expected_sha256')}, current sha256: "
                f"{error.get('current_sha256')}. Use load() to refresh before storing."
            )
        return _failure(error)

    @_tool(
        "Compare the internal lines array against the file on disk. Returns a unified-style diff of "
        "added, removed, and unchanged lines."
    )
    def diff(self) -> str:
        """Show the difference between internal lines and the file on disk."""
        if self._editor_session is None or self._editor_given is None:
            return NO_FILE_LOADED
        there = self._call("exists", {"path": self._editor_given})
        if there.get("ok") and not there.get("exists"):
            return f"Error: file no longer exists: {self._file_path}"
        answer = self._call("editor_diff", {"session_id": self._editor_session})
        if not answer.get("ok"):
            return _failure(answer["error"])
        if not answer.get("has_changes"):
            return NO_DIFFERENCES
        return str(answer["diff"])

    @_tool("Clear the internal lines array and reset file path and mtime tracking.")
    def clear(self) -> None:
        """Clear the editor state."""
        self._close()

    # -- helpers ---------------------------------------------------------------------------

    def _call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        return self._editor_toolkit.call(tool, args)

    def _editor_edit(self, old_string: str, new_string: str, replace_all: bool) -> dict[str, Any]:
        """The toolkit's exact replacement in the buffer (no tolerance for drift, as the original)."""
        return self._call(
            "editor_edit",
            {
                "session_id": self._editor_session,
                "old_string": old_string,
                "new_string": new_string,
                "replace_all": replace_all,
                "strict": True,
            },
        )

    @staticmethod
    def _found_many(old_string: str, detail: str) -> str:
        return (
            f"Error: '{old_string}' found multiple times. Set replace_all=True to replace all "
            f"occurrences.{detail}"
        )

    def _close(self) -> None:
        """Closes the open session, if any, and forgets the file."""
        if self._editor_session is not None:
            # A session the toolkit evicted is gone already; nothing else can fail here.
            self._call("editor_clear", {"session_id": self._editor_session})
        self._editor_session = None
        self._editor_given = None
        self._editor_lines = 0
        self._file_path = None

    def _absolute(self, given: str) -> str:
        """The absolute path messages name: ``os.path.abspath`` of the path given, from the root."""
        return os.path.normpath(os.path.join(self._editor_toolkit.roots[0], given))
