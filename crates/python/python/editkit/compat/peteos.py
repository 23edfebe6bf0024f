r"""peteos' ``TextEditor`` (``peteos.agentic_objects.text_editor``) on editkit's editor sessions.

A mixin that gives an agentic object the seven editor tools ``load``, ``read``, ``write``, ``edit``,
``store``, ``diff`` and ``clear``, with the original's signatures and return messages. The buffer
lives in an editkit editor session (``editor_load`` ... ``editor_clear``): matching, the diff,
the staleness check of ``store`` and every path decision are the toolkit's. Each method carries
the ``_tool_name`` and ``_tool_description`` attributes peteos' ``@tool`` decorator sets, so
peteos registers them as tools::

    from peteos.oap.base import AgenticObjectBase
    from editkit.compat.peteos import TextEditor

    class MyAgent(TextEditor, AgenticObjectBase):
        '''You are an agent that can edit text files.'''

    agent = MyAgent()                      # workspace root: the current directory
    agent.load("notes.txt")                # 'Loaded /home/me/proj/notes.txt (3 lines).'
    agent.edit("old line", "new line")     # "Replaced 'old line' with 'new line'."
    print(agent.diff())                    # the unified diff against the file on disk
    agent.store()                          # 'Stored 3 lines to /home/me/proj/notes.txt.'

``TextEditor(root=...)`` confines the editor to another workspace folder and
``TextEditor(toolkit=...)`` shares an open ``editkit.Toolkit`` (its roots, blocked paths and
staleness guard); both are keyword-only and every other argument goes on to the next class of
the MRO. Relative paths resolve in the (primary) root. Failures are returned, never raised, as
the original does: ``"Error: <what>: <message>"``.

Where this editor is deliberately safer than the original:

| Situation | peteos' ``TextEditor`` | here |
|---|---|---|
| A path outside the workspace, or a blocked file | loaded, created, stored | refused, nothing created |
| The file changed on disk, ``read()`` ran, then ``store()`` | the change is overwritten | refused |
| The file was rewritten but its mtime did not move | the change is overwritten | refused |
| A crash or a full disk during ``store()`` | the file is left truncated or torn | old or new content, whole |
| CRLF, lone CR, ``\f``, ``\v``, U+2028 in the file | rewritten as LF line breaks | kept byte for byte |
| ``write()`` before any ``load()`` | ``Replaced (N lines).``, text later lost | refused: no file loaded |

In words: paths are confined to the workspace root by capabilities (``..`` above the root, ``~``,
absolute paths elsewhere and links leading out are refused with ``Error: OutsideWorkspace: ...``;
``.git``, ``.env*``, private keys and credential files with ``Error: Blocked: ...``). The original's
``read()``, which ``edit()`` calls, re-arms its mtime check with the file's new mtime, so a change
the agent never saw is overwritten; here only ``load()`` shows the agent the file as it is now,
and ``store()`` compares the SHA-256 of the content loaded with the content on disk, which also
catches a rewrite within one mtime tick or with the mtime set back. ``store()`` writes a temporary
file and renames it over the target, where the original truncates the file and writes in place.
The original splits the text with ``str.splitlines`` and joins it with ``\n``, so CRLF and lone
CR endings become LF and form feeds, vertical tabs, ``\x1c``-``\x1e``, ``\x85``, U+2028 and
U+2029 become line breaks; here untouched lines keep their bytes and new lines take the file's
ending.

Also different, and said here so that nothing differs silently:

- ``edit()`` finds ``old_string`` with editkit's matcher: the exact text first, then the same
  text with drifted whitespace, indentation, quotes or escapes, or copied with line numbers;
  a match must still be the only one at its rung (``replace_all`` replaces every place the
  deciding rung finds). An edit that changes nothing, or whose new text already stands where
  the old text was, is refused (``Error: NoChange: ...``, ``Error: AlreadyApplied: ...``). The
  two documented refusals keep the original's words on their first line (``Error: '...' found
  multiple times. ...``, ``Error: '...' not found in text.``); a second line gives editkit's
  detail (the candidate lines, the closest region).
- ``store()``'s refusal names SHA-256 hashes where the original names mtimes. A ``touch`` that
  leaves the content as it was does not refuse ``store()``; a second ``store()`` after a
  successful one works (the session goes on from what it stored).
- ``diff()`` is editkit's unified diff, headed ``--- a/<path>`` / ``+++ b/<path>`` with the
  workspace-relative path; it compares the text exactly, so a missing final newline counts.
- ``load()`` of a missing file creates the empty file, as the original does, but only inside the
  workspace and without creating folders, and only if nothing stands there when it is created
  (decided atomically): a file another process creates in the meantime is loaded as it is, never
  emptied. A failed ``load()`` leaves no file loaded. Files over the toolkit's read bound
  (16 MiB by default), binary, UTF-16 and invalid UTF-8 files are refused.
- Relative paths resolve in the root fixed when the editor is made (by default the current
  directory at that time), not in the current directory of each call; messages name the
  canonical path, so a file reached through a symlink inside the workspace is named by its
  target.
- The original's private attributes (``_lines``, ``_file_mtime``, ``_trailing_newline``) do not
  exist; ``_file_path`` holds the loaded file's absolute path, or ``None``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import editkit

__all__ = ["NO_DIFFERENCES", "NO_FILE_LOADED", "TextEditor"]

_F = TypeVar("_F", bound=Callable[..., Any])

#: The answer of every tool but ``load`` and ``clear`` while no file is loaded.
NO_FILE_LOADED = "Error: no file loaded. Use load() first."
#: ``diff()``'s answer when the buffer matches the file on disk.
NO_DIFFERENCES = "No differences \u2014 internal lines match the file on disk."


def _tool(description: str) -> Callable[[_F], _F]:
    """Marks a method as an agent tool the way peteos' ``@tool`` does (``_tool_name``,
    ``_tool_description``), without importing peteos."""

    def mark(method: _F) -> _F:
        method._tool_name = method.__name__  # type: ignore[attr-defined]
        method._tool_description = description  # type: ignore[attr-defined]
        return method

    return mark


def _failure(error: Mapping[str, Any]) -> str:
    """A refusal of the toolkit as the original words its failures: ``Error: <what>: <message>``."""
    kind = str(error.get("kind", "io"))
    return f"Error: {editkit.error_class(kind).__name__}: {error.get('message', '')}"


class TextEditor:
    """You are a text editor. You hold the text of one file in memory.

    Use `load` to read a file into the editor (a missing file is created empty).
    Use `read` to view the current text.
    Use `write` to replace all of the text (nothing is written to disk).
    Use `edit` to replace exact text with new text (nothing is written to disk).
    Use `diff` to compare your text with the file on disk.
    Use `store` to write your text to the file; it is refused if the file changed on disk since
    `load`, and then you must `load` it again.
    Use `clear` to drop your text.
    """

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
            toolkit = editkit.Toolkit(os.getcwd() if root is None else root, diagnostics="off")
        self._editor_toolkit: editkit.Toolkit = toolkit
        self._editor_session: str | None = None
        self._editor_given: str | None = None
        self._editor_lines = 0
        self._file_path: str | None = None
        super().__init__(*args, **kwargs)

    # -- the seven tools -------------------------------------------------------------------

    @_tool(
        "Load a file into the editor (a missing file is created empty). Paths are relative to "
        "the workspace root. Remembers the file's content so that store() can refuse to "
        "overwrite changes made on disk in the meantime."
    )
    def load(self, file_path: str) -> str:
        """Loads ``file_path`` into a new buffer, creating the file empty when it is missing."""
        self._close()
        loaded = self._call("editor_load", {"path": file_path})
        created = False
        error = loaded.get("error") or {}
        if not loaded.get("ok") and error.get("kind") == "not_found" and not error.get("evicted"):
            # The original creates the file it was asked to load; folders are not created. Only
            # where nothing stands, decided when the file is made: a file another process made
            # since is loaded as it is, never emptied. (force: a read of the file before it went
            # missing is no reason to refuse.)
            made = self._call(
                "write_file",
                {"path": file_path, "content": "", "create_dirs": False, "create_new": True, "force": True},
            )
            if not made.get("ok") and made["error"].get("kind") != "exists":
                return _failure(made["error"])
            created = bool(made.get("ok"))
            loaded = self._call("editor_load", {"path": file_path})
        if not loaded.get("ok"):
            return _failure(loaded["error"])
        self._editor_session = str(loaded["session_id"])
        self._editor_given = file_path
        self._editor_lines = int(loaded["line_count"])
        self._file_path = self._absolute(file_path, str(loaded["path"]))
        if created:
            return f"File not found. Created empty file: {self._file_path}."
        return f"Loaded {self._file_path} ({self._editor_lines} lines)."

    @_tool("Return the editor's current text.")
    def read(self) -> str:
        """The whole buffer (LF line endings, whatever the file uses on disk)."""
        if self._editor_session is None:
            return NO_FILE_LOADED
        answer = self._call("editor_read", {"session_id": self._editor_session})
        if not answer.get("ok"):
            return _failure(answer["error"])
        return str(answer["content"])

    @_tool("Replace all of the editor's text with the given text. Does not write to disk.")
    def write(self, text: str) -> str:
        """Replaces the whole buffer with ``text``."""
        if self._editor_session is None:
            return NO_FILE_LOADED
        answer = self._call("editor_write", {"session_id": self._editor_session, "text": text})
        if not answer.get("ok"):
            return _failure(answer["error"])
        self._editor_lines = int(answer["line_count"])
        return f"Replaced ({self._editor_lines} lines)."

    @_tool(
        "Replace old_string with new_string in the editor's text. Does not write to disk. Both "
        "can span several lines. old_string must match exactly one place (copy it with a line "
        "of context); set replace_all to replace every occurrence."
    )
    def edit(self, old_string: str, new_string: str, replace_all: bool = False) -> str:
        """Replaces the one place ``old_string`` matches (every place with ``replace_all``)."""
        if self._editor_session is None:
            return NO_FILE_LOADED
        answer = self._call(
            "editor_edit",
            {
                "session_id": self._editor_session,
                "old_string": old_string,
                "new_string": new_string,
                "replace_all": replace_all,
            },
        )
        if answer.get("ok"):
            self._editor_lines = int(answer["line_count"])
            if replace_all:
                return f"Replaced {answer['replacements']} occurrence(s) of '{old_string}'."
            return f"Replaced '{old_string}' with '{new_string}'."
        error = answer["error"]
        if error.get("kind") == "ambiguous":
            return (
                f"Error: '{old_string}' found multiple times. Set replace_all=True to replace all "
                f"occurrences.\n{error.get('message', '')}"
            )
        if error.get("kind") == "not_found" and "closest" in error:
            return f"Error: '{old_string}' not found in text.\n{error.get('message', '')}"
        return _failure(error)

    @_tool(
        "Write the editor's text to the loaded file. Refused if the file changed on disk since "
        "load(); then load() it again."
    )
    def store(self) -> str:
        """Writes the buffer to the file atomically, unless the file changed since ``load()``."""
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

    @_tool("Show a unified diff from the file on disk to the editor's text.")
    def diff(self) -> str:
        """The unified diff from the file on disk to the buffer, or the no-differences message."""
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

    @_tool("Clear the editor: drop its text and forget the loaded file.")
    def clear(self) -> None:
        """Closes the session, discarding what was not stored."""
        self._close()

    # -- helpers ---------------------------------------------------------------------------

    def _call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        return self._editor_toolkit.call(tool, args)

    def _close(self) -> None:
        """Closes the open session, if any, and forgets the file."""
        if self._editor_session is not None:
            # A session the toolkit evicted is gone already; nothing else can fail here.
            self._call("editor_clear", {"session_id": self._editor_session})
        self._editor_session = None
        self._editor_given = None
        self._editor_lines = 0
        self._file_path = None

    def _absolute(self, given: str, canonical: str) -> str:
        """The absolute path messages name: the canonical path in its root."""
        roots = self._editor_toolkit.roots
        if len(roots) > 1 and os.path.isabs(given):
            return os.path.normpath(given)
        return os.path.join(roots[0], canonical)
