r"""The ``file_modify`` tool of workflow engines (MachinaOS / OpenCompany's ``fileModify`` node) on editkit.

One tool, two operations, on a per-workflow workspace folder:

- ``write``: create ``file_path`` with ``content``, or replace the whole file; missing parent
  folders are created. Answers ``{"operation": "write", "file_path": "/<path>"}``.
- ``edit``: replace ``old_string`` with ``new_string`` in an existing file; ``old_string`` must
  match one place unless ``replace_all``. Answers
  ``{"operation": "edit", "file_path": "/<path>", "occurrences": <n>}``.

``file_path`` is the workspace path with a leading ``/``, as the original's virtual paths are.
Paths resolve inside the workspace: a relative path from its root, an absolute path as rooted at
the workspace (``/reports/a.md`` is ``<workspace>/reports/a.md``); ``..`` above the root and
``~`` are refused. A refusal raises the ``editkit.EditkitError`` of its kind (``InvalidArgs``,
``NotFound``, ``Ambiguous``, ``OutsideWorkspace``...), worded as the original words it::

    from editkit.compat.file_modify import FileModify, TOOL_SCHEMA

    tool = FileModify("/srv/workflows/42/workspace")   # created if missing
    tool("write", "/path/to/new_file.py", content="print('hello world')")
    # {'operation': 'write', 'file_path': '/path/to/new_file.py'}
    tool("edit", "/path/to/new_file.py", old_string="hello world", new_string="hello")
    # {'operation': 'edit', 'file_path': '/path/to/new_file.py', 'occurrences': 1}
    tool.invoke({"operation": "edit", "file_path": "x.py", "old_string": "TODO", "new_string": "DONE",
                 "replace_all": True})                 # a model's JSON arguments, as TOOL_SCHEMA says

The workspace is given as the original gives it: ``FileModify(workspace_dir)`` is the
per-workflow folder (the engine's ``workspace_dir``), and the module-level ``file_modify(...)``
uses the workspace ``configure(workspace_dir)`` set or, failing that, the original's default,
``$WORKSPACE_BASE_DIR/default``; with neither, it refuses (``InvalidArgs``) rather than write
into the current directory. ``FileModify(toolkit=...)`` runs on an open ``editkit.Toolkit``
instead (open it with ``absolute_paths="rooted"`` to keep absolute paths rooted at the workspace).

Where this tool is deliberately safer than the original:

| Situation | the original ``file_modify`` | here |
|---|---|---|
| ``edit`` of a file with CRLF or lone-CR endings | every ending rewritten as LF | kept byte for byte |
| ``.git``, ``.env*``, private keys, credential files | written and edited | refused (``Blocked``) |
| ``\`` separators, drive letters (``C:\reports\a.md``) | reinterpreted | refused (``InvalidArgs``) |
| Two edits of one file at once from several processes | one can silently undo the other | both land |

In words: the original reads the file with universal newlines and writes LF back, so any ``edit``
turns a CRLF file into an LF one; here untouched lines keep their bytes and new lines take the
file's ending. Blocked are ``.git`` folders, ``.env`` and ``.env.*``, private keys (``*.pem``,
``*.key``, ``id_rsa``...), certificate stores and credential files (``.netrc``, ``.npmrc``,
``.pypirc``, ``.git-credentials``, ``.aws/credentials``). The original reads ``\`` as ``/`` and
drops a drive (``C:\reports\a.md`` becomes ``/reports/a.md``); here such a path is refused
rather than guessed at. The original serialises read-modify-write with one ``asyncio`` lock per
path in each process, so two worker processes can interleave and lose an edit; here a per-file
lock is shared by threads and processes.

Also different, and said here so that nothing differs silently:

- ``edit`` finds ``old_string`` with editkit's matcher: the exact text first, then the same text
  with drifted whitespace, indentation, quotes or escapes, or copied with line numbers; a match
  must still be the only one at its rung (``replace_all`` replaces every place the deciding rung
  finds, and ``occurrences`` counts them). An edit that changes nothing, or whose new text
  already stands where the old text was, is refused (``NoChange``, ``AlreadyApplied``). The
  documented refusals keep the original's words on their first line (``Error: String not found
  in file: '...'``, ``Error: String '...' appears N times in file. ...``, ``Error: File '...'
  not found``); a second line gives editkit's detail (the candidate lines, the closest region).
- ``..`` that stays inside the workspace (``a/../b.md``) is resolved, not refused; an absolute
  path naming a file inside the workspace folder itself (``<workspace>/a.md``) names that file,
  where the original would nest it (``<workspace>/<workspace>/a.md``). The answer's
  ``file_path`` is the canonical path: through a symlink inside the workspace, its target's
  (``alias/x.md`` answers ``/real/x.md``).
- Files over editkit's read bound (16 MiB by default), binary, UTF-16 and invalid UTF-8 files
  are refused by ``edit`` with the error of their kind (``TooLarge``, ``Binary``, ``Utf16``,
  ``NotUtf8``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from typing import Any

import editkit

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

#: The tool's description, as models read it.
TOOL_DESCRIPTION = (
    "Write a new file or edit an existing file by exact string replacement. Operations: write "
    "(create the file or replace all of it with content), edit (replace old_string with "
    "new_string; old_string must be unique in the file unless replace_all). Paths resolve inside "
    "the per-workflow workspace: use workspace-relative paths; absolute paths are taken as rooted "
    "at the workspace; '..' above the workspace and '~' are refused."
)

#: The JSON schema of the tool's arguments (the original's ``FileModifyParams``): unknown keys
#: are ignored, ``operation`` defaults to ``write``, the strings to ``""``.
SCHEMA: dict[str, Any] = {
    "title": "FileModifyParams",
    "type": "object",
    "properties": {
        "operation": {
            "title": "Operation",
            "type": "string",
            "enum": ["write", "edit"],
            "default": "write",
            "description": "write: create the file or replace all of it; edit: find and replace inside it",
        },
        "file_path": {
            "title": "File Path",
            "type": "string",
            "description": "Path of the file in the workspace (e.g. reports/summary.md)",
        },
        "content": {
            "title": "Content",
            "type": "string",
            "default": "",
            "description": "write: the whole new content; replaces any file at file_path",
        },
        "old_string": {
            "title": "Old String",
            "type": "string",
            "default": "",
            "description": "edit: the text to find; unique in the file unless replace_all",
        },
        "new_string": {
            "title": "New String",
            "type": "string",
            "default": "",
            "description": "edit: the replacement text",
        },
        "replace_all": {
            "title": "Replace All",
            "type": "boolean",
            "default": False,
            "description": "edit: replace every occurrence of old_string",
        },
    },
    "required": ["file_path"],
}

#: The JSON schema of the tool's answers: ``occurrences`` only for ``edit``.
OUTPUT_SCHEMA: dict[str, Any] = {
    "title": "FileModifyOutput",
    "type": "object",
    "properties": {
        "operation": {"type": "string", "enum": ["write", "edit"]},
        "file_path": {"type": "string", "description": "The workspace path written, with a leading /"},
        "occurrences": {"type": "integer", "description": "edit: how many places were replaced"},
    },
    "required": ["operation", "file_path"],
}

#: The tool as a model's tool list takes it: name, description and the arguments' schema.
TOOL_SCHEMA: dict[str, Any] = {"name": TOOL_NAME, "description": TOOL_DESCRIPTION, "parameters": SCHEMA}


def _refused(kind: str, message: str, **details: Any) -> editkit.EditkitError:
    return editkit.error_from({"kind": kind, "message": message, **details})


def _reworded(error: Mapping[str, Any], first_line: str) -> editkit.EditkitError:
    """The toolkit's refusal, its message under the original's wording."""
    return editkit.error_from({**error, "message": f"{first_line}\n{error.get('message', '')}"})


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
            toolkit = editkit.Toolkit(root, absolute_paths="rooted", diagnostics="off")
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
        if operation == "write":
            return self._write(file_path, content or "")
        if not old_string:
            raise _refused("invalid_args", "old_string is required for edit", field="old_string")
        return self._edit(file_path, old_string, new_string or "", bool(replace_all))

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

    def _write(self, file_path: str, content: str) -> dict[str, Any]:
        # `write` replaces the file whatever it holds, as documented: no staleness check (force).
        answer = self.toolkit.call(
            "write_file", {"path": file_path, "content": content, "create_dirs": True, "force": True}
        )
        if not answer.get("ok"):
            raise editkit.error_from(answer["error"])
        return {"operation": "write", "file_path": "/" + str(answer["path"])}

    def _edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool) -> dict[str, Any]:
        # The edit lands on the file as it is now (found and replaced under the file's lock), so
        # a change made by another tool since this one last wrote it is no reason to refuse.
        answer = self.toolkit.call(
            "edit_file",
            {
                "path": file_path,
                "old_string": old_string,
                "new_string": new_string,
                "replace_all": replace_all,
                "force": True,
            },
        )
        if answer.get("ok"):
            path = "/" + str(answer["path"])
            return {"operation": "edit", "file_path": path, "occurrences": int(answer["replacements"])}
        error = answer["error"]
        kind = error.get("kind")
        if kind == "ambiguous":
            raise _reworded(
                error,
                f"Error: String '{old_string}' appears {error.get('count')} times in file. Use "
                "replace_all=True to replace all instances, or provide a more specific string with "
                "surrounding context.",
            )
        if kind == "not_found" and "closest" in error:
            raise _reworded(error, f"Error: String not found in file: '{old_string}'")
        if kind == "not_found":
            raise _reworded(error, f"Error: File '{file_path}' not found")
        raise editkit.error_from(error)


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
