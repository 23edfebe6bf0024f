r"""The ``file_modify`` tool of workflow engines (MachinaOS / OpenCompany's ``fileModify`` node) on editkit.

One tool, two operations, on a per-workflow workspace folder:

- ``write``: create ``file_path`` with ``content``, or replace the whole file; missing parent
  folders are created. Answers ``{"operation": "write", "file_path": "/<path>"}``.
- ``edit``: replace ``old_string`` with ``new_string`` in an existing file; ``old_string`` must
  stand in the file exactly, in one place unless ``replace_all``. Answers
  ``{"operation": "edit", "file_path": "/<path>", "occurrences": <n>}``.

Paths are the original's virtual paths: every path is rooted at the workspace (``reports/a.md``
and ``/reports/a.md`` both name ``<workspace>/reports/a.md``, and the answer's ``file_path`` is
that virtual path, ``/reports/a.md``). As in the original, a path with a ``..`` segment or a
leading ``~`` is refused (``Path traversal not allowed: ...``), and so is a path holding a
control character (C0 or DEL) or longer than 4096 characters (``Path contains unsupported
characters: ...``); both messages end with the original's advice on workspace paths. A refusal
raises the ``editkit.EditkitError`` of its kind (``InvalidArgs``, ``NotFound``, ``Ambiguous``,
``OutsideWorkspace``...); its message is the original's, and where editkit has more to say (the
candidate lines, the closest region) that follows on a second line::

    from editkit.compat.file_modify import FileModify, TOOL_SCHEMA

    tool = FileModify("/srv/workflows/42/workspace")   # created if missing
    tool("write", "/path/to/new_file.py", content="print('hello world')")
    # {'operation': 'write', 'file_path': '/path/to/new_file.py'}
    tool("edit", "/path/to/new_file.py", old_string="hello world", new_string="hello")
    # {'operation': 'edit', 'file_path': '/path/to/new_file.py', 'occurrences': 1}
    tool.invoke({"operation": "edit", "file_path": "x.py", "old_string": "TODO", "new_string": "DONE",
                 "replace_all": True})                 # a model's JSON arguments, as TOOL_SCHEMA says

``edit`` is the original's exact replacement: ``old_string`` and ``new_string`` are read with
their line endings as LF (as the original reads the file), ``old_string`` is counted as
``str.count`` counts it (without overlaps), and an old string standing in several places is
refused unless ``replace_all``. The original's refusals keep its words: ``Error: String not
found in file: '...'``, ``Error: String '...' appears N times in file. ...``, ``Error: old_string
ends with a newline, but the file does not end with a newline. ...`` (an ``old_string`` whose
final newline the file lacks), ``Error: File '...' not found``, ``Cannot write to ...: path is a
directory``, ``Path '...' resolves outside workspace root`` (a link leading out), and
``file_path is required``, ``old_string is required for edit``, ``Unknown operation: ...``.

The workspace is given as the original gives it: ``FileModify(workspace_dir)`` is the
per-workflow folder (the engine's ``workspace_dir``), and the module-level ``file_modify(...)``
uses the workspace ``configure(workspace_dir)`` set or, failing that, the original's default,
``$WORKSPACE_BASE_DIR/default``; with neither, it refuses (``InvalidArgs``) rather than write
into the current directory. ``FileModify(toolkit=...)`` runs on an open ``editkit.Toolkit``
instead (paths are rooted at its first root).

Where this tool is deliberately safer than the original (each row says why; everywhere else it
behaves the same):

| Situation | the original ``file_modify`` | here | Why it is safer |
|---|---|---|---|
| ``edit`` of a file with CRLF or lone-CR endings | every ending rewritten as LF | kept byte for byte; new lines take the file's ending | an edit changes only the text it names, never every line's ending |
| ``edit`` whose ``old_string`` begins with the file's byte order mark | the mark is replaced too | not found: the mark stays | the mark that tells readers the file's encoding is never removed by an edit |
| ``.git``, ``.env*``, private keys, credential files | written and edited | refused (``Blocked``) | secrets and repository internals are never changed by a model |
| ``\`` separators, drive letters, network shares (``C:\reports\a.md``, ``//server/share/a.md``) | reinterpreted (``\`` as ``/``, the drive dropped) | refused (``InvalidArgs``) | a path is never reinterpreted as another file than the one named |
| ``edit`` of a binary file (NUL bytes) or one over editkit's read bound (16 MiB by default) | edited | refused (``Binary``, ``TooLarge``) | a binary file is never edited as text, and a huge one cannot exhaust memory |
| Two edits of one file at once from several processes | one can silently undo the other | both land | no edit is silently undone by another |

In words: the original reads the file with universal newlines and writes LF back, so any ``edit``
turns a CRLF file into an LF one; here untouched lines keep their bytes. The original reads a
byte order mark as part of the text; editkit keeps it out of the text and writes it back.
Blocked are ``.git`` folders, ``.env`` and ``.env.*``, private keys (``*.pem``, ``*.key``,
``id_rsa``...), certificate stores and credential files (``.netrc``, ``.npmrc``, ``.pypirc``,
``.git-credentials``, ``.aws/credentials``). The original reads ``\`` as ``/`` and drops a drive
or share (``C:\reports\a.md`` and ``//server/share/a.md`` become ``/reports/a.md`` and ``/a.md``);
here such a path is refused rather than guessed at. The original serialises read-modify-write
with one ``asyncio`` lock per path in each process, so two worker processes can interleave and
lose an edit; here a per-file lock is shared by threads and processes. A file that is not UTF-8
text (invalid UTF-8, UTF-16, a legacy code page) is refused by both, here as ``NotUtf8`` or
``Utf16`` worded as the original words it (``Error editing file '...': 'utf-8' codec can't
decode byte ...``, Python's own message).
"""

from __future__ import annotations

import os
import posixpath
import re
import threading
from collections.abc import Mapping
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

import editkit
from editkit.compat._utf8 import decode_error

__all__ = [
    "OUTPUT_SCHEMA",
    "SCHEMA",
    "TOOL_DESCRIPTION",
    "TOOL_NAME",
    "TOOL_SCHEMA",
    "FileModify",
    "configure",
    "default_workspace_dir",
    "file_modify",
]

#: The tool's name, as models call it.
TOOL_NAME = "file_modify"

#: The tool's description, as models read it (the original's, word for word).
TOOL_DESCRIPTION = (
    "Write a new file or edit an existing file with string replacement. "
    "Operations: write (create/overwrite), edit (find and replace). "
    "Paths resolve inside the per-workflow workspace \u2014 use "
    "workspace-relative paths; '..' is not allowed."
)

_WRITE = {"displayOptions": {"show": {"operation": ["write"]}}}
_EDIT = {"displayOptions": {"show": {"operation": ["edit"]}}}

#: The JSON schema of the tool's arguments: the original's ``FileModifyParams``, with
#: ``operation`` and ``file_path`` required as the tool's documentation marks them (its "Schema
#: Fields" table). Calls are read as its model reads them: unknown keys are ignored, a missing
#: ``operation`` is ``write``, the strings default to ``""``.
SCHEMA: dict[str, Any] = {
    "title": "FileModifyParams",
    "type": "object",
    "properties": {
        "operation": {"title": "Operation", "type": "string", "enum": ["write", "edit"], "default": "write"},
        "file_path": {"title": "File Path", "type": "string"},
        "content": {"title": "Content", "type": "string", "default": "", **_WRITE},
        "old_string": {"title": "Old String", "type": "string", "default": "", **_EDIT},
        "new_string": {"title": "New String", "type": "string", "default": "", **_EDIT},
        "replace_all": {"title": "Replace All", "type": "boolean", "default": False, **_EDIT},
    },
    "required": ["operation", "file_path"],
}

#: The JSON schema of the tool's answers: the original's ``FileModifyOutput``, which declares
#: ``written`` and ``replacements`` and allows the keys the answers carry (``operation``,
#: ``file_path`` and, for ``edit``, ``occurrences``).
OUTPUT_SCHEMA: dict[str, Any] = {
    "title": "FileModifyOutput",
    "type": "object",
    "properties": {
        "written": {"title": "Written", "anyOf": [{"type": "boolean"}, {"type": "null"}], "default": None},
        "replacements": {
            "title": "Replacements",
            "anyOf": [{"type": "integer"}, {"type": "null"}],
            "default": None,
        },
    },
    "additionalProperties": True,
}

#: The tool as a model's tool list takes it: name, description and the arguments' schema.
TOOL_SCHEMA: dict[str, Any] = {"name": TOOL_NAME, "description": TOOL_DESCRIPTION, "parameters": SCHEMA}

# The original's path rule: any character but NUL, the other C0 controls and DEL, 1 to 4096 of
# them, checked on the normalised virtual path.
_SAFE_VIRTUAL_PATH = re.compile(r"[^\x00-\x1f\x7f]{1,4096}")
# What the original adds to every refusal of a path.
_PATH_ADVICE = (
    ". The filesystem is sandboxed to the per-workflow workspace root \u2014 use a path relative "
    "to the workspace (e.g. 'reports/data.csv'); '..' and '~' segments are rejected. To see what "
    "exists, use fs_search with mode='ls'."
)
# Refusals of the file's content, worded as the original words a failed read.
_NOT_READABLE = frozenset({"not_utf8", "utf16", "io"})
# How often an edit that takes several calls goes round again when the file changes in between.
_ATTEMPTS = 5


def _refused(kind: str, message: str, **details: Any) -> editkit.EditkitError:
    return editkit.error_from({"kind": kind, "message": message, **details})


def _reworded(error: Mapping[str, Any], first_line: str) -> editkit.EditkitError:
    """The toolkit's refusal, its message under the original's wording."""
    return editkit.error_from({**error, "message": f"{first_line}\n{error.get('message', '')}"})


def _lf(text: str) -> str:
    """``text`` with every line ending as LF, as the original reads its arguments."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _virtual_path(file_path: str) -> str:
    """The original's virtual path for ``file_path`` (``/`` and the normalised path), or its
    refusal: a ``..`` segment or a leading ``~`` (``OutsideWorkspace``, ``InvalidArgs``), a control
    character or more than 4096 characters (``InvalidArgs``). A drive or network share is refused
    too (``InvalidArgs``), where the original drops it."""
    if PureWindowsPath(file_path).drive:
        raise _refused(
            "invalid_args",
            f"invalid path `{file_path}`: Windows drive paths and network shares are not supported; "
            "give a path relative to the workspace root",
            field="file_path",
        )
    if ".." in PurePosixPath(file_path).parts or file_path.startswith("~"):
        kind = "invalid_args" if file_path.startswith("~") else "outside_workspace"
        raise _refused(kind, f"Path traversal not allowed: {file_path}{_PATH_ADVICE}", field="file_path")
    normalized = posixpath.normpath(file_path)
    if not normalized.startswith("/"):
        normalized = f"/{normalized}"
    if not _SAFE_VIRTUAL_PATH.fullmatch(normalized):
        raise _refused(
            "invalid_args",
            f"Path contains unsupported characters: {file_path!r}{_PATH_ADVICE}",
            field="file_path",
        )
    return normalized


class FileModify:
    """The ``file_modify`` tool on one workspace folder.

    ``workspace_dir`` is the workspace (created if missing; default: ``default_workspace_dir()``);
    ``toolkit`` an open ``editkit.Toolkit`` to run on instead. Calling the object runs the tool.
    """

    name = TOOL_NAME
    description = TOOL_DESCRIPTION
    schema = SCHEMA

    def __init__(
        self, workspace_dir: str | os.PathLike[str] | None = None, *, toolkit: editkit.Toolkit | None = None
    ) -> None:
        """Opens the tool on ``workspace_dir`` (created if missing) or on ``toolkit``."""
        if toolkit is not None and workspace_dir is not None:
            raise TypeError("FileModify takes workspace_dir or toolkit, not both")
        if toolkit is None:
            root = os.fspath(workspace_dir) if workspace_dir is not None else default_workspace_dir()
            os.makedirs(root, exist_ok=True)
            toolkit = editkit.Toolkit(root, diagnostics="off", detect_encodings=False)
        self.toolkit: editkit.Toolkit = toolkit

    @property
    def workspace_dir(self) -> str:
        """The workspace folder (the toolkit's primary root)."""
        return self.toolkit.root

    def __call__(
        self,
        operation: str,
        file_path: str,
        content: str | None = None,
        old_string: str | None = None,
        new_string: str | None = None,
        replace_all: bool = False,
    ) -> dict[str, Any]:
        """Runs one ``write`` or ``edit``; see the module's documentation."""
        if operation not in ("write", "edit"):
            raise _refused("invalid_args", f"Unknown operation: {operation}", field="operation")
        if not file_path:
            raise _refused("invalid_args", "file_path is required", field="file_path")
        path = _virtual_path(file_path)
        if operation == "write":
            return self._write(path, content or "")
        if not old_string:
            raise _refused("invalid_args", "old_string is required for edit", field="old_string")
        return self._edit(path, _lf(old_string), _lf(new_string or ""), bool(replace_all))

    def invoke(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Runs the tool on a model's JSON arguments: ``SCHEMA``'s defaults apply and unknown keys
        are ignored, as the original's parameters model does."""
        return self(
            operation=arguments.get("operation", "write"),
            file_path=arguments.get("file_path", ""),
            content=arguments.get("content", ""),
            old_string=arguments.get("old_string", ""),
            new_string=arguments.get("new_string", ""),
            replace_all=arguments.get("replace_all", False),
        )

    # -- the operations --------------------------------------------------------------------

    def _call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        return self.toolkit.call(tool, args)

    def _failure(self, error: Mapping[str, Any], path: str, *, editing: bool) -> editkit.EditkitError:
        """A refusal about the file itself, worded as the original words it."""
        kind = error.get("kind")
        if kind == "outside_workspace":
            return _reworded(error, f"Path '{path}' resolves outside workspace root")
        if kind == "is_directory":
            if editing:
                return _reworded(error, f"Error: File '{path}' not found")
            return _reworded(error, f"Cannot write to {path}: path is a directory")
        if kind == "not_found" and editing and "closest" not in error:
            return _reworded(error, f"Error: File '{path}' not found")
        if kind in _NOT_READABLE and editing:
            # The original reads the file as UTF-8 and quotes the exception.
            quoted = decode_error(self._call, path.lstrip("/") or ".") if kind != "io" else None
            return editkit.error_from(
                {**error, "message": f"Error editing file '{path}': {quoted or error.get('message', '')}"}
            )
        return editkit.error_from(error)

    def _write(self, path: str, content: str) -> dict[str, Any]:
        # `write` replaces the file whatever it holds, as documented: no staleness check (force).
        answer = self._call(
            "write_file",
            {"path": path.lstrip("/") or ".", "content": content, "create_dirs": True, "force": True},
        )
        if not answer.get("ok"):
            raise self._failure(answer["error"], path, editing=False)
        return {"operation": "write", "file_path": path}

    def _edit(self, path: str, old: str, new: str, replace_all: bool) -> dict[str, Any]:
        # The edit lands on the file as it is now (found and replaced under the file's lock), so
        # a change made by another tool since this one last wrote it is no reason to refuse.
        relative = path.lstrip("/") or "."
        args = {
            "path": relative,
            "old_string": old,
            "new_string": new,
            "replace_all": replace_all,
            "strict": True,
        }
        answer = self._call("edit_file", {**args, "force": True})
        for _ in range(_ATTEMPTS):
            if answer.get("ok"):
                return {"operation": "edit", "file_path": path, "occurrences": int(answer["replacements"])}
            error = answer["error"]
            kind = error.get("kind")
            if kind == "not_found" and "closest" in error:
                raise self._not_found(error, relative, path, old)
            if kind not in ("ambiguous", "already_applied", "no_change"):
                raise self._failure(error, path, editing=True)
            # The toolkit refused where the original may not: overlapping places (str.count
            # counts them once), an old string standing inside a copy of the new one, an edit
            # that changes nothing. Count as the original counts, on the file as it is now.
            sha256 = self._sha256(relative, path)
            found = self._count(relative, path, old, sha256)
            if found is None:  # the file changed in between: start again
                answer = self._call("edit_file", {**args, "force": True})
                continue
            if not found:
                raise self._not_found(error, relative, path, old)
            if found > 1 and not replace_all:
                message = (
                    f"Error: String '{old}' appears {found} times in file. Use replace_all=True to replace "
                    "all instances, or provide a more specific string with surrounding context."
                )
                if kind == "ambiguous":
                    raise _reworded({**error, "count": found}, message)
                raise _refused("ambiguous", message, count=found, path=relative)
            if old == new:  # the original writes the text back as it was
                return {"operation": "edit", "file_path": path, "occurrences": found}
            # One place (or every place): replace_all replaces the first of overlapping places,
            # and refuses nothing the original does not, on the content just counted.
            answer = self._call("edit_file", {**args, "replace_all": True, "expected_hash": sha256})
            if not answer.get("ok") and answer["error"].get("kind") == "stale":
                answer = self._call("edit_file", {**args, "force": True})
        if answer.get("ok"):
            return {"operation": "edit", "file_path": path, "occurrences": int(answer["replacements"])}
        raise self._failure(answer["error"], path, editing=True)

    def _sha256(self, relative: str, path: str) -> str:
        """The SHA-256 of the file now, binding the calls of one edit to one content."""
        answer = self._call("read_file", {"path": relative, "tail": 1, "include_symbols": False})
        if not answer.get("ok"):
            raise self._failure(answer["error"], path, editing=True)
        return str(answer["sha256"])

    def _count(self, relative: str, path: str, text: str, sha256: str) -> int | None:
        """How many places ``text`` stands in, as ``str.count`` counts them: the toolkit's exact
        places without overlaps (a dry run of replace_all); ``None`` when the file is no longer
        the content ``sha256`` names."""
        answer = self._call(
            "edit_file",
            {
                "path": relative,
                "old_string": text,
                "new_string": "",
                "replace_all": True,
                "strict": True,
                "dry_run": True,
                "expected_hash": sha256,
            },
        )
        if answer.get("ok"):
            return int(answer["replacements"])
        error = answer["error"]
        if error.get("kind") == "not_found" and "closest" in error:
            return 0
        if error.get("kind") == "stale":
            return None
        raise self._failure(error, path, editing=True)

    def _not_found(
        self, error: Mapping[str, Any], relative: str, path: str, old: str
    ) -> editkit.EditkitError:
        """The original's refusal of an old string that stands nowhere: said of its final newline
        when the file ends with the rest of it."""
        error = {**error, "kind": "not_found"}
        stripped = old[:-1]
        if old.endswith("\n") and stripped:
            # Whether the file ends with the rest: its last lines, as many as that rest spans.
            tail = self._call(
                "read_file", {"path": relative, "tail": stripped.count("\n") + 1, "include_symbols": False}
            )
            if tail.get("ok") and str(tail["content"]).endswith(stripped):
                count = self._count(relative, path, stripped, str(tail["sha256"]))
                if count == 1:
                    return _reworded(
                        error,
                        "Error: old_string ends with a newline, but the file does not end with a newline. "
                        "Retry with the trailing newline removed from old_string (and from new_string if "
                        "it also ends with a newline).",
                    )
                if count is not None:
                    return _reworded(
                        error,
                        "Error: old_string ends with a newline, but the file does not end with a newline. "
                        f"With the trailing newline removed, old_string would appear {count} times in the "
                        "file. Retry with the trailing newline removed and add surrounding context so the "
                        "match is unique.",
                    )
        return _reworded(error, f"Error: String not found in file: '{old}'")


_lock = threading.Lock()
_configured: FileModify | None = None
_from_environment: FileModify | None = None


def default_workspace_dir() -> str:
    """The original's default workspace, ``$WORKSPACE_BASE_DIR/default`` (a relative base resolves
    in the current directory); ``InvalidArgs`` when ``WORKSPACE_BASE_DIR`` is not set."""
    base = os.environ.get("WORKSPACE_BASE_DIR")
    if not base:
        raise _refused(
            "invalid_args",
            "no workspace: give FileModify(workspace_dir), call "
            "editkit.compat.file_modify.configure(workspace_dir), or set WORKSPACE_BASE_DIR",
            field="workspace_dir",
        )
    return os.path.join(os.path.abspath(base), "default")


def configure(
    workspace_dir: str | os.PathLike[str] | None = None, *, toolkit: editkit.Toolkit | None = None
) -> FileModify | None:
    """Sets the workspace the module-level ``file_modify`` works in and returns its tool; with no
    argument, forgets it (``file_modify`` goes back to ``default_workspace_dir()``)."""
    global _configured
    tool = None if workspace_dir is None and toolkit is None else FileModify(workspace_dir, toolkit=toolkit)
    with _lock:
        _configured = tool
    return tool


def _default_tool() -> FileModify:
    global _from_environment
    with _lock:
        if _configured is not None:
            return _configured
        root = default_workspace_dir()
        if _from_environment is None or _from_environment.workspace_dir != os.path.realpath(root):
            _from_environment = FileModify(root)
        return _from_environment


def file_modify(
    operation: str,
    file_path: str,
    content: str | None = None,
    old_string: str | None = None,
    new_string: str | None = None,
    replace_all: bool = False,
) -> dict[str, Any]:
    """Runs ``file_modify`` in the configured workspace (``configure``, else
    ``$WORKSPACE_BASE_DIR/default``); see the module's documentation."""
    return _default_tool()(operation, file_path, content, old_string, new_string, replace_all)
