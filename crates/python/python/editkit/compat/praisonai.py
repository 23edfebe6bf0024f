"""PraisonAI's ``edit_tools`` and ``file_tools`` (``praisonaiagents`` 1.7.17), backed by editkit.

The file tools a PraisonAI agent edits code with, with the interface PraisonAI documents
(``praisonaiagents.tools.edit_tools`` and ``praisonaiagents.tools.file_tools``): the same
functions, classes, parameters and defaults, the same return types (``str`` messages, a
``(content, sha256)`` tuple, a JSON string, ``bool``, a list of dicts) and the same message
strings (``Success: Made N replacement(s) in …``, ``Error: Ambiguous match - …``, the two
staleness messages, ``Success: Applied patch to N file(s)``…). Every read, match, hash, diff,
patch, search and path decision is made by an :class:`editkit.Toolkit`; this module only
translates arguments and results.

Usage, as PraisonAI's quick start::

    from editkit.compat.praisonai import read_file, edit_file, apply_patch, search_files

    content, sha = read_file("src/app.py")                      # arms the staleness guard
    edit_file("src/app.py", "port = 3000", "port = 8080")         # 'Success: Made 1 replacement(s) in …'
    edit_file("styles.css", "color: blue", "color: green", replace_all=True)
    edit_file("src/app.py", "DEBUG = True", "DEBUG = False", expected_hash=sha)
    edit_file("src/app.py", "x", "y", force=True)                 # a deliberate blind write
    apply_patch("*** Move File: src/old.py -> src/new.py\\n*** Move File: tests/test_old.py -> tests/test_new.py\\n")
    search_files("./src", "getUserName", "*.js")                  # JSON string

    from editkit.compat.praisonai import create_edit_tools, file_tools
    tools = create_edit_tools(root="/home/me/project", post_edit_diagnostics="off")
    tools.edit_file("app.py", "a", "b")
    file_tools.write_file("notes/todo.txt", "ship it\\n")         # True / False
    file_tools.read_file("notes/todo.txt")                        # '     1\\tship it'

As in PraisonAI, the module-level functions work in the current directory as it was when this
module was imported; ``create_edit_tools(root=…)`` / ``EditTools(root=…)`` (or
``workspace=Workspace(root=…)``) confine a tool set to another folder, and absolute paths inside
the root work. ``edit_tools`` and ``file_tools`` are namespaces with each PraisonAI module's
functions (``file_tools.read_file`` is the plain read, ``read_file`` here the ``(content, hash)``
one). Tool sets on the same root share one toolkit, so one staleness guard, as PraisonAI's share
one read-hash registry (when their post-edit settings agree, as the defaults do). ``toolkit=``
gives a tool set a toolkit of your own (durability, blocked paths, size limits...), and the
``toolkit`` property gives the one in use (``undo_edit``, ``undo_patch``...).

When ``praisonaiagents`` is installed, the writing tools carry its
``require_approval(risk_level="high")`` gate, as the originals do. ``formatters=`` (custom
formatter commands) is refused with ``NotImplementedError``: editkit picks the formatter itself
(``post_edit_format="on"``). ``apply_patch`` also takes the patches PraisonAI refuses: Codex
``*** Begin Patch`` patches (``+``/``-`` lines, ``*** Move to:``; an added file whose every line
starts with ``+`` is read as one) and unified diffs. ``copy_file``, ``move_file``,
``delete_file``, ``get_file_info`` and ``download_file`` are not provided.

Where this adapter is deliberately safer than the original (each row has a test; it does not
differ otherwise):

| Situation | PraisonAI 1.7.17 | This adapter |
|---|---|---|
| ``old_string`` differs from the file by indentation or whitespace | the fuzzy ladder pastes ``new_string`` as given, unindented; a block-anchor match may rewrite lines the old text never named | the one matching region is replaced and ``new_string`` re-indented like the file; a similar block is changed line by line or refused, never guessed |
| The same edit is sent twice (a retry) | "String not found", or applied again when the old text sits inside the new (``foo`` → ``foo bar`` twice gives ``foo bar bar``) | refused: ``Error: String not found in file: '…' - the new text is already there …``; the file is not touched |
| ``old_string == new_string`` | ``Success: Made 1 replacement(s)`` (file rewritten, "No changes detected") | refused: ``Error: old_string and new_string are identical - the edit would change nothing`` |
| A file with mixed line endings, lone CRs or a UTF-8 BOM is edited or patched | any CRLF makes every line CRLF; lone CRs become line breaks of the new style | every untouched byte kept: each line keeps its own ending, the BOM stays; new lines take the file's dominant ending (diffs show LF endings) |
| The hash ``read_file`` returns (and ``expected_hash`` is checked against) | SHA-256 of the decoded text without its BOM | SHA-256 of the bytes on disk, BOM included (the same value for a file without BOM), so adding or dropping a BOM is a change |
| A write is interrupted (crash, power loss, full disk) | written in place: a torn or empty file | temp file renamed over the target (and fsynced with the default durability): old or new content, never a mix; ``apply_patch`` commits all files or none through a journal |
| A path leads out of the root (``..``, ``~``, a symlink out, an absolute path elsewhere) | ``realpath`` + ``commonpath`` check, then the open follows whatever is there at that moment | refused (``Path traversal detected: …``), checked by capabilities at the moment of use; ``..`` inside the root is fine |
| ``.git`` internals, ``.env`` files, private keys, credential files | read, edited, searched, listed | refused for reads, edits, patches and writes; left out of searches and listings |
| A ``Workspace`` with ``access="ro"`` or ``"none"`` | ``EditTools`` still edits and patches | every write refused; reads still work |
| Binary files (NUL bytes) | read and edited when they decode as UTF-8 | refused by every tool; ``search_files`` skips them |
| Files over 16 MiB | read whole into memory | refused with the limit named (``toolkit=editkit.Toolkit(..., max_read_bytes=…)`` raises it) |
| A patch opening with ``*** Begin Patch`` that does not end with ``*** End Patch`` | the part present is applied | refused as cut off; nothing is written |
| A patch hunk without its ``===`` line | the old block is deleted | refused as an invalid patch |
| A patch hunk's old lines stand only inside a longer line | replaced inside that line | refused (``Hunk not found``): a hunk's old lines must be whole lines of the file |
| ``*** Add File:`` content | written without its last line end; blank lines before the next section kept | each line ends with a newline; blank lines before the next section are separators |
| ``search_files``, ``list_files(directory, pattern)`` | every file the glob finds, ``.gitignore``d ones (``node_modules``, ``.venv``) included | honour ``.gitignore`` in a git repository, like ripgrep; the search skips binary files and shows a very long line cut |
| ``file_tools`` with an ``encoding`` other than UTF-8 | decodes or encodes with any Python codec | refused (``Error reading file …`` / ``False``): editkit reads and writes UTF-8 (``utf-8``, ``utf-8-sig``) |
| ``file_tools`` paths | checked against the current directory at each call | confined to the root pinned at creation (a later ``os.chdir`` cannot move it) |
| Tool sets on one root with other ``post_edit_diagnostics``/``post_edit_format`` settings | share one read-hash registry | each settings pair keeps its own guard (the toolkit runs its checks): a write through the other counts as a change, read again |
| ``list_files`` ``'modified'``, ``'created'`` | ``st_mtime``, ``st_ctime`` (fractional seconds) | both the modification time in whole seconds: the toolkit's ``file_info`` gives no change time and whole seconds |
"""

from __future__ import annotations

import codecs
import json
import logging
import os
import re
import threading
import types
import weakref
from collections.abc import Mapping
from typing import Any, Callable, TypeVar, Union, cast

import editkit

__all__ = [
    "EditTools",
    "FileTools",
    "apply_patch",
    "create_edit_tools",
    "create_file_tools",
    "edit_file",
    "edit_tools",
    "file_tools",
    "list_files",
    "read_file",
    "search_files",
    "write_file",
]

logger = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])

try:  # PraisonAI's human-approval gate, when PraisonAI is there to ask for approval.
    from praisonaiagents.approval import require_approval as _require_approval
except ImportError:
    _require_approval = None


def _approval(risk_level: str) -> Callable[[F], F]:
    """PraisonAI's ``require_approval(risk_level=…)`` when ``praisonaiagents`` is installed, else
    nothing: the writing tools ask for approval exactly where the originals do."""

    def decorate(func: F) -> F:
        if _require_approval is None:
            return func
        return cast(F, _require_approval(risk_level=risk_level)(func))

    return decorate


# ---------------------------------------------------------------------------------------------
# Constants of the original interface.

#: Lines a ``file_tools.read_file`` call returns when no ``limit`` is given.
DEFAULT_MAX_LINES = 2000
#: Characters a line is cut to by ``file_tools.read_file``.
DEFAULT_MAX_LINE_CHARS = 2000

_DIFF_MAX_LINES = 10
_DIFF_MAX_LINE_CHARS = 200
_NO_CHANGES = "No changes detected"
_SENTINELS = ("*** Begin Patch", "*** End Patch")
_HEADERS = (
    ("add", "*** Add File:"),
    ("update", "*** Update File:"),
    ("delete", "*** Delete File:"),
    ("move", "*** Move File:"),
)
_MOVE_TO = "*** Move to:"
_HASH = re.compile(r"[0-9a-f]{64}")
_UNMATCHABLE_HASH = "0" * 64
_MODES = ("auto", "on", "off")
_MAX_SEARCH_RESULTS = 1 << 31

PathLike = Union[str, "os.PathLike[str]"]


# ---------------------------------------------------------------------------------------------
# Toolkits: one per root and settings, shared like PraisonAI's process-wide read-hash registry.

_TOOLKITS: weakref.WeakValueDictionary[tuple[Any, ...], editkit.Toolkit] = weakref.WeakValueDictionary()
_TOOLKITS_LOCK = threading.Lock()


def _shared_toolkit(root: str, *, read_only: bool, diagnostics: str, format: bool) -> editkit.Toolkit:
    """The toolkit every tool set on ``root`` with these settings shares (so one staleness guard)."""
    key = (root, read_only, diagnostics, format)
    with _TOOLKITS_LOCK:
        toolkit = _TOOLKITS.get(key)
        if toolkit is None:
            toolkit = editkit.Toolkit(root, read_only=read_only, diagnostics=diagnostics, format=format)
            _TOOLKITS[key] = toolkit
        return toolkit


def _mode(value: Any, default: str) -> str:
    """PraisonAI's reading of a mode argument: lower-cased, anything unknown is the default."""
    mode = value or default
    if isinstance(mode, str):
        mode = mode.lower()
    return mode if mode in _MODES else default


class _Confined:
    """The root a tool set is pinned to, and the toolkit (created on first use) that confines it."""

    def __init__(
        self,
        workspace: Any,
        root: PathLike | None,
        toolkit: editkit.Toolkit | None,
        diagnostics: str,
        format: bool,
    ) -> None:
        self._workspace = workspace
        if toolkit is not None:
            self._root = toolkit.root
        elif workspace is not None:
            self._root = os.path.realpath(os.fspath(workspace.root))
        elif root:
            self._root = os.path.realpath(os.path.expanduser(os.fspath(root)))
        else:
            self._root = os.path.realpath(os.getcwd())
        # PraisonAI's Workspace access: "rw" writes, "ro" and "none" do not.
        self._read_only = workspace is not None and getattr(workspace, "access", "rw") != "rw"
        self._diagnostics_mode = diagnostics
        self._format = format
        self._toolkit: editkit.Toolkit | None = toolkit
        self._toolkit_lock = threading.Lock()

    @property
    def toolkit(self) -> editkit.Toolkit:
        """The :class:`editkit.Toolkit` behind these tools (opened on first use)."""
        toolkit = self._toolkit
        if toolkit is None:
            with self._toolkit_lock:
                if self._toolkit is None:
                    self._toolkit = _shared_toolkit(
                        self._root,
                        read_only=self._read_only,
                        diagnostics=self._diagnostics_mode,
                        format=self._format,
                    )
                toolkit = self._toolkit
        return toolkit

    @property
    def root(self) -> str:
        """The folder every path is confined to."""
        return self._root

    def _call(self, tool: str, args: Mapping[str, Any]) -> dict[str, Any]:
        """``tool`` through the toolkit: the contract object (a failure to open the toolkit, a
        missing root for instance, is an error object too)."""
        arguments = {
            key: os.fspath(value) if isinstance(value, os.PathLike) else value for key, value in args.items()
        }
        try:
            return self.toolkit.call(tool, arguments)
        except editkit.EditkitError as refused:
            return {"ok": False, "error": refused.to_dict()}
        except TypeError as wrong:  # an argument that is not a JSON value
            return {"ok": False, "error": {"kind": "invalid_args", "message": str(wrong)}}

    def _traversal(self, path: str) -> str:
        return f"Path traversal detected: {path} escapes workspace {self._root}"

    def _reason(self, error: Mapping[str, Any], path: str) -> str:
        """The ``<reason>`` of PraisonAI's ``Error … <path>: <reason>`` messages."""
        if error.get("kind") == "outside_workspace":
            return self._traversal(path)
        return str(error.get("message", ""))

    @staticmethod
    def _logged(message: str) -> str:
        """``message``, logged at ERROR as PraisonAI logs its failures."""
        logger.error(message)
        return message


# ---------------------------------------------------------------------------------------------
# Presentation helpers (PraisonAI's message formats around editkit's results).


def _bound_diff(diff: str, label: str) -> str:
    """editkit's unified diff under PraisonAI's labels (``<label> (before)``/``(after)``) and
    PraisonAI's bound (10 lines, 200 characters a line); ``No changes detected`` when empty."""
    lines = diff.splitlines(keepends=True)
    if len(lines) >= 2 and lines[0].startswith("--- ") and lines[1].startswith("+++ "):
        lines[0:2] = [f"--- {label} (before)\n", f"+++ {label} (after)\n"]
    shown: list[str] = []
    for index, line in enumerate(lines):
        if index >= _DIFF_MAX_LINES:
            shown.append("... (diff truncated)\n")
            break
        if len(line) > _DIFF_MAX_LINE_CHARS:
            line = line[: _DIFF_MAX_LINE_CHARS - 3] + "...\n"
        shown.append(line)
    return "".join(shown) if shown else _NO_CHANGES


def _diagnostics(info: Mapping[str, Any] | None, mode: str, display: str) -> str:
    """editkit's post-write diagnostics as PraisonAI appends them (``\\n\\nDiagnostics (tool):
    …``): problems in ``auto`` mode, every checker's verdict in ``on`` mode, nothing when off."""
    if mode == "off" or not info:
        return ""
    blocks: list[str] = []
    checkers = info.get("checkers") or []
    for checker in checkers:
        output = str(checker.get("output") or "").strip()
        if not checker.get("ok"):
            blocks.append(f"\n\nDiagnostics ({checker['name']}):\n{output or 'check failed'}")
        elif mode == "on":
            blocks.append(f"\n\nDiagnostics ({checker['name']}): no problems found")
    errors = info.get("syntax_errors") or []
    if errors and all(checker.get("ok") for checker in checkers):
        # The built-in syntax check speaks when no checker reported the problem itself.
        lines = "\n".join(
            f"{display}:{error['line']}:{error['column']}: error: {error['message']}" for error in errors
        )
        blocks.insert(0, f"\n\nDiagnostics (syntax):\n{lines}")
    return "".join(blocks)


def _preview(text: str, length: int) -> str:
    return text[:length] + ("..." if len(text) > length else "")


def _count(error: Mapping[str, Any]) -> int:
    """How many places an ambiguous match found."""
    if isinstance(error.get("count"), int):
        return int(error["count"])
    for key in ("lines", "candidates"):
        if isinstance(error.get(key), list):
            return len(error[key])
    match = re.search(r"matches (\d+) places", str(error.get("message", "")))
    return int(match.group(1)) if match else 2


# ---------------------------------------------------------------------------------------------
# apply_patch: PraisonAI's patch envelope, handed to editkit's `@@`/`===` hunks dialect.


class _PatchPlan:
    """What the adapter knows of a patch's envelope: its sections in order (to name files in
    messages as the patch wrote them) and the text editkit applies.

    The hunks are editkit's to parse; this only rewrites PraisonAI's ``*** Move File: a -> b``
    header into ``*** Update File: a`` + ``*** Move to: b``, drops a leading ``*** Begin Patch``
    (PraisonAI's sentinels are optional, and its add bodies are plain lines) and closes the
    patch with ``*** End Patch`` when the patch did not open with ``*** Begin Patch``. A patch of
    plain add bodies and moves without hunks has nothing that tells editkit its dialect (a
    ``===`` line does): its add bodies are then given as ``+`` lines, which both dialects read
    alike.
    """

    def __init__(self, patch: str) -> None:
        self.sections: list[tuple[str, str, str | None]] = []  # (op, path, move destination)
        self.error: str | None = None
        self.text = patch
        self.empty = not any(line.strip() and line.strip() not in _SENTINELS for line in patch.splitlines())
        out: list[str] = []
        add_bodies: list[list[int]] = []  # indices into `out` of each add section's body lines
        in_add = False
        separated = False
        for line in patch.split("\n"):
            stripped = line.strip()
            op, payload = _header(stripped)
            if op is not None or stripped in _SENTINELS:
                in_add = op == "add"
                if in_add:
                    add_bodies.append([])
            elif stripped == "===":
                separated = True
            if op == "move":
                source, arrow, destination = payload.partition("->")
                source, destination = source.strip(), destination.strip()
                if not arrow:
                    self.error = f"Malformed Move File header (expected '<old> -> <new>'): {payload!r}"
                    return
                if not source or not destination:
                    self.error = f"Malformed Move File header (empty source or destination): {payload!r}"
                    return
                self.sections.append(("move", source, destination))
                out += [f"*** Update File: {source}", f"{_MOVE_TO} {destination}"]
                continue
            if op is not None:
                self.sections.append((op, payload, None))
            elif stripped.startswith(_MOVE_TO) and self.sections and self.sections[-1][0] == "update":
                _, path, _ = self.sections[-1]
                self.sections[-1] = ("move", path, stripped[len(_MOVE_TO) :].strip())
            elif in_add:
                add_bodies[-1].append(len(out))
            out.append(line)
        if not self.sections:
            return  # no star section: a unified diff, or not a patch; editkit says which
        plain_adds = any(
            out[i].rstrip("\r") and not out[i].startswith("+") for body in add_bodies for i in body
        )
        if plain_adds and not separated and any(op in ("update", "move") for op, _, _ in self.sections):
            for body in add_bodies:
                content = [i for i in body if out[i].strip()]
                last = content[-1] if content else -1
                for i in body:
                    out[i] = "+" + out[i] if i <= last else ""
        meaningful = [line.strip() for line in out if line.strip()]
        opened = bool(meaningful) and meaningful[0].startswith(_SENTINELS[0])
        closed = bool(meaningful) and meaningful[-1] == _SENTINELS[1]
        if opened and closed:
            # Without its opening line the dialect is told by the sections: PraisonAI's plain
            # add bodies and `===` hunks, or the `+`/`-` lines of a Codex patch.
            first = next(i for i, line in enumerate(out) if line.strip())
            del out[first]
        elif not opened and not closed:
            out.append(_SENTINELS[1])
        self.text = "\n".join(out)

    def old_text(self, patch_line: Any) -> str | None:
        """The old text of the ``@@``/``===`` hunk starting at 1-based ``patch_line`` of the text
        editkit applied, as written (PraisonAI quotes it in its messages); ``None`` for a hunk
        of another dialect."""
        lines = self.text.split("\n")
        if not isinstance(patch_line, int) or not 0 < patch_line <= len(lines):
            return None
        start = patch_line - 1
        if lines[start].strip().startswith("@@"):
            start += 1
        old: list[str] = []
        for line in lines[start:]:
            stripped = line.strip()
            if stripped == "===":
                return "\n".join(old)
            if stripped.startswith("@@") or _header(stripped)[0] is not None or stripped in _SENTINELS:
                return None
            old.append(line.rstrip("\r"))
        return None

    def section_of(self, path: str) -> tuple[str, str, str | None] | None:
        """The (last) section naming ``path`` as its file or move source."""
        for section in reversed(self.sections):
            if section[1] == path or section[2] == path:
                return section
        return None


def _header(stripped: str) -> tuple[str | None, str]:
    for op, prefix in _HEADERS:
        if stripped.startswith(prefix):
            return op, stripped.split(":", 1)[1].strip()
    return None, ""


# ---------------------------------------------------------------------------------------------
# edit_tools


class EditTools(_Confined):
    """PraisonAI's ``EditTools``: ``read_file`` with its hash, ``edit_file``, ``apply_patch`` and
    ``search_files``, confined to one root, backed by editkit.

    ``workspace`` (a PraisonAI ``Workspace``: its ``root``, and ``access`` other than ``"rw"``
    makes every write refused), else ``root``, else the current directory at creation, is the
    folder every path is confined to. ``post_edit_diagnostics`` (``"auto"``, ``"on"``, ``"off"``)
    and ``post_edit_format`` (``"off"``, ``"auto"``, ``"on"``) are PraisonAI's; ``formatters`` is
    refused (``NotImplementedError``). ``toolkit`` uses a toolkit of your own (its root, checks,
    formatter and durability) instead of the shared one for the root.
    """

    def __init__(
        self,
        workspace: Any = None,
        post_edit_diagnostics: str = "auto",
        post_edit_format: str = "off",
        formatters: dict | None = None,
        root: str | None = None,
        *,
        toolkit: editkit.Toolkit | None = None,
    ) -> None:
        if formatters:
            raise NotImplementedError(
                "formatters (custom formatter commands) is not supported by editkit's PraisonAI adapter: editkit "
                "runs the formatter it finds for the file type (post_edit_format='on')"
            )
        self._post_edit_diagnostics = _mode(post_edit_diagnostics, "auto")
        self._post_edit_format = _mode(post_edit_format, "off")
        super().__init__(
            workspace, root, toolkit, self._post_edit_diagnostics, self._post_edit_format != "off"
        )

    def read_file(self, filepath: str) -> tuple[str, str]:
        """Read a file and cache its content hash for staleness checking.

        Args:
            filepath: Path to the file to read

        Returns:
            Tuple of (content, hash) where hash can be used for staleness checking
        """
        # PraisonAI decodes the bytes: every line ending as it stands, the BOM dropped.
        answer = self._call("read_file", {"path": filepath, "include_symbols": False, "raw": True})
        if not answer["ok"]:
            error = answer["error"]
            if error.get("kind") == "not_found":
                return f"Error: File not found: {filepath}", ""
            return self._logged(f"Error reading file {filepath}: {self._reason(error, filepath)}"), ""
        if answer.get("is_binary"):
            reason = f"binary file ({answer.get('size_bytes', 0)} bytes); only text files are read"
            return self._logged(f"Error reading file {filepath}: {reason}"), ""
        content = answer["content"]
        return (content[1:] if answer.get("bom") else content), answer["sha256"]

    @_approval("high")
    def edit_file(
        self,
        filepath: str,
        old_string: str,
        new_string: str,
        replace_all: bool = False,
        expected_hash: str | None = None,
        force: bool = False,
    ) -> str:
        """Edit a file by replacing text using precise find-and-replace.

        The edit is refused when the file changed on disk since it was last read through these
        tools (unless ``force``), when ``old_string`` matches several places (unless
        ``replace_all``) and when it matches nowhere; an explicit ``expected_hash`` is always
        checked and then stands in for the automatic guard.

        Args:
            filepath: Path to the file to edit
            old_string: Text to find and replace
            new_string: Replacement text
            replace_all: Whether to replace all occurrences (default: first only)
            expected_hash: Optional SHA256 hash of expected content for staleness check
            force: Bypass the automatic staleness guard for an intentional
                blind write (an explicit ``expected_hash`` is still honoured)

        Returns:
            Success message with diff or error description
        """
        args: dict[str, Any] = {
            "path": filepath,
            "old_string": old_string,
            "new_string": new_string,
            "replace_all": bool(replace_all),
            "force": bool(force),
        }
        if expected_hash is not None:
            # PraisonAI compares the strings: anything but the current lower-case hex digest
            # fails. A hash that cannot match is sent as one, to learn the current hash.
            args["expected_hash"] = (
                expected_hash if _HASH.fullmatch(str(expected_hash)) else _UNMATCHABLE_HASH
            )
        answer = self._call("edit_file", args)
        if answer["ok"]:
            diff = _bound_diff(answer.get("diff", ""), filepath)
            diagnostics = _diagnostics(answer.get("diagnostics"), self._post_edit_diagnostics, filepath)
            return (
                f"Success: Made {answer['replacements']} replacement(s) in {filepath}\n\nDiff:\n{diff}"
                + diagnostics
            )
        return self._edit_refusal(answer["error"], filepath, old_string, expected_hash)

    def _edit_refusal(
        self, error: Mapping[str, Any], filepath: str, old_string: Any, expected_hash: str | None
    ) -> str:
        kind = error.get("kind")
        if kind == "stale":
            current = str(error.get("current_sha256") or "")
            if expected_hash is not None:
                return (
                    "Error: File has been modified since last read. Please re-read the file before editing. "
                    f"Expected hash: {str(expected_hash)[:8]}..., Current hash: {current[:8]}..."
                )
            recorded = str(error.get("expected_sha256") or "")
            return (
                "Error: File changed since it was read - re-read before editing (or pass force=True to override). "
                f"Recorded hash: {recorded[:8]}..., Current hash: {current[:8]}..."
            )
        if kind == "not_found" and "closest" in error:
            return f"Error: String not found in file: '{_preview(str(old_string), 50)}'"
        if kind == "not_found":
            return f"Error: File not found: {filepath}"
        if kind == "ambiguous":
            return (
                f"Error: Ambiguous match - '{_preview(str(old_string), 30)}' occurs {_count(error)} times. "
                "Please provide more surrounding context to make the match unique, "
                "or use replace_all=True to replace all occurrences."
            )
        if kind == "already_applied":
            where = f" at line {error['line']}" if error.get("line") else ""
            return (
                f"Error: String not found in file: '{_preview(str(old_string), 50)}' - the new text is already "
                f"there{where}; the edit looks applied already (re-read the file before retrying)"
            )
        if kind == "no_change":
            return "Error: old_string and new_string are identical - the edit would change nothing"
        if kind == "invalid_args" and old_string == "":
            return "Error: old_string must be non-empty"
        if kind == "utf16":
            return "Error: UTF-16 encoding is not supported. Please convert the file to UTF-8."
        return self._logged(f"Error editing file {filepath}: {self._reason(error, filepath)}")

    @_approval("high")
    def apply_patch(self, patch: str, force: bool = False) -> str:
        """Apply a structured multi-file patch atomically (Add/Update/Delete/Move).

        Sections: ``*** Add File: <path>`` (the file's lines follow), ``*** Update File:
        <path>`` and ``*** Move File: <old> -> <new>`` with ``@@`` hunks (the old lines, a
        ``===`` line, the new lines; a move may have none), ``*** Delete File: <path>``;
        ``*** Begin Patch`` / ``*** End Patch`` around them are optional. Every operation is
        checked before anything is written, then all are committed or none.

        Args:
            patch: Structured patch text (see above).
            force: Bypass the automatic staleness guard on Update/Move/Delete operations.

        Returns:
            Combined success message with diffs, or an error description.
        """
        if not isinstance(patch, str):
            return self._logged(
                f"Error applying patch: the patch must be a string, not {type(patch).__name__}"
            )
        plan = _PatchPlan(patch)
        if plan.error is not None:
            return f"Error: Invalid patch: {plan.error}"
        if plan.empty:
            return "Error: Patch contains no operations"
        answer = self._call("apply_patch", {"patch": plan.text, "force": bool(force)})
        if not answer["ok"]:
            return self._patch_refusal(answer["error"], plan)
        files = answer.get("files") or []
        blocks = _diff_blocks(answer.get("diff", ""))
        named = len(plan.sections) == len(files)
        messages = []
        for index, file in enumerate(files):
            action, path, source = file.get("action"), file.get("path", ""), file.get("from")
            display_path, display_source = path, source
            if named:
                _, written, destination = plan.sections[index]
                display_path, display_source = (
                    (destination, written) if action == "move" else (written, source)
                )
            if action == "delete":
                messages.append(f"Deleted {display_path}")
                continue
            if action == "move":
                display = f"{display_source} -> {display_path}"
                block = blocks.get((f"a/{source}", f"b/{path}"), "")
                verb = "Renamed"
            else:
                display = display_path
                names = ("/dev/null", f"b/{path}") if action == "add" else (f"a/{path}", f"b/{path}")
                block = blocks.get(names, "")
                verb = "Added" if action == "add" else "Updated"
            diff = _bound_diff(block, display)
            diagnostics = _diagnostics(file.get("diagnostics"), self._post_edit_diagnostics, display_path)
            messages.append(f"{verb} {display}\n{diff}{diagnostics}")
        return "Success: Applied patch to {} file(s)\n\n{}".format(len(files), "\n\n".join(messages))

    def _patch_refusal(self, error: Mapping[str, Any], plan: _PatchPlan) -> str:
        kind = error.get("kind")
        failures = error.get("failures") or []
        if not failures:
            if kind == "invalid_patch":
                return f"Error: Invalid patch: {error.get('message', '')}"
            path = str(error.get("path", ""))
            return self._logged(f"Error applying patch: {self._reason(error, path)}")
        failure = failures[0]
        kind = failure.get("kind")
        path = str(failure.get("path", ""))
        preview = str(failure.get("preview", ""))
        section = plan.section_of(path)
        op, written, destination = section if section else ("update", path, None)
        if op == "move" and written != path:
            # The failure names the destination: it is in the way.
            op, path = "move-to", written
        if failure.get("hunk") is not None:
            written_old = plan.old_text(failure.get("patch_line"))
            if written_old is not None:
                preview = written_old
            if kind == "ambiguous":
                return f"Error: Ambiguous hunk in '{path}': '{_preview(preview, 30)}' matches {_count(failure)} locations"
            if kind == "already_applied":
                return (
                    f"Error: Hunk not found in '{path}': '{_preview(preview, 50)}' - its new text is already there; "
                    "the patch looks applied already (re-read the file before retrying)"
                )
            if kind in ("not_found", "no_change"):
                return f"Error: Hunk not found in '{path}': '{_preview(preview, 50)}'"
            if kind == "invalid_patch":
                return f"Error: Invalid patch: {failure.get('message', '')}"
            return self._logged(f"Error applying patch: {failure.get('message', '')}")
        message = str(failure.get("message", ""))
        if kind in ("outside_workspace", "blocked", "io", "too_large", "is_directory"):
            reason = self._traversal(path) if kind == "outside_workspace" else message
            return self._logged(f"Error applying patch: {reason}")
        if op in ("move", "move-to"):
            if kind == "exists":
                return f"Error: Cannot move '{path}' to '{destination}': destination already exists"
            if kind == "not_found":
                return f"Error: Cannot move '{path}': file not found"
            if kind == "stale":
                return (
                    f"Error: Cannot move '{path}': file changed since it was read - re-read before editing "
                    "(or pass force=True to override)."
                )
            return f"Error: Cannot move '{path}': {message}"
        if kind == "exists":
            return f"Error: Cannot add '{path}': file already exists"
        verb = {"add": "add", "delete": "delete"}.get(op, "update")
        if kind == "not_found":
            return f"Error: Cannot {verb} '{path}': file not found"
        if kind == "stale":
            return (
                f"Error: Cannot {verb} '{path}': file changed since it was read - re-read before editing "
                "(or pass force=True to override)."
            )
        if kind == "utf16":
            return f"Error: Cannot {verb} '{path}': UTF-16 encoding is not supported. Please convert the file to UTF-8."
        return f"Error: Cannot {verb} '{path}': {message}"

    def search_files(self, directory: str, pattern: str, file_pattern: str = "*") -> str:
        """Search for text patterns within files (case-insensitive substring search).

        Args:
            directory: Directory to search in
            pattern: Text pattern to search for
            file_pattern: File name pattern (glob) to filter files

        Returns:
            JSON string with search results
        """
        args: dict[str, Any] = {
            "path": directory,
            "pattern": pattern,
            "regex": False,
            "case_sensitive": False,
            "max_results": _MAX_SEARCH_RESULTS,
        }
        if file_pattern and file_pattern not in ("*", "**", "**/*"):
            # PraisonAI globs `<directory>/**/<file_pattern>`: the pattern matches at any depth.
            args["glob"] = file_pattern if "/" not in file_pattern else "**/" + file_pattern.lstrip("/")
        answer = self._call("search_files", args)
        if not answer["ok"]:
            error = answer["error"]
            if error.get("kind") == "not_found":
                return json.dumps({"error": f"Directory not found: {directory}"})
            return json.dumps(
                {"error": self._logged(f"Error searching files: {self._reason(error, directory)}")}
            )
        base = str(answer.get("directory") or ".").strip("/")
        results = []
        for found in answer.get("results") or []:
            file = str(found["file"])
            relative = (
                file[len(base) + 1 :] if base not in ("", ".") and file.startswith(base + "/") else file
            )
            matches = [
                {
                    "line_number": match["line"],
                    "line": str(match["content"]).strip(),
                    "match_start": max(int(match["column"]) - 1, 0),
                }
                for match in found.get("matches") or []
            ]
            if matches:
                results.append({"file": relative, "matches": matches})
        return json.dumps(
            {
                "pattern": pattern,
                "directory": directory,
                "results": results,
                "total_files": len(results),
                "total_matches": sum(len(result["matches"]) for result in results),
            },
            indent=2,
        )


def _diff_blocks(diff: str) -> dict[tuple[str, str], str]:
    """editkit's combined patch diff cut into its files' diffs, keyed by their ``---``/``+++``
    names (``rename from``/``to`` blocks, a move without changes, are left out)."""
    lines = diff.splitlines(keepends=True)
    starts: list[tuple[int, tuple[str, str]]] = []
    for index in range(len(lines) - 1):
        first, second = lines[index], lines[index + 1]
        if first.startswith("--- ") and second.startswith("+++ "):
            names = (first[4:].rstrip("\r\n"), second[4:].rstrip("\r\n"))
            if all(name == "/dev/null" or name.startswith(("a/", "b/")) for name in names):
                starts.append((index, names))
        elif first.startswith("rename from ") and second.startswith("rename to "):
            starts.append((index, ("", "")))
    blocks: dict[tuple[str, str], str] = {}
    for number, (index, names) in enumerate(starts):
        end = starts[number + 1][0] if number + 1 < len(starts) else len(lines)
        if names != ("", "") and names not in blocks:
            blocks[names] = "".join(lines[index:end])
    return blocks


def create_edit_tools(
    workspace: Any = None,
    post_edit_diagnostics: str = "auto",
    post_edit_format: str = "off",
    formatters: dict | None = None,
    root: str | None = None,
    *,
    toolkit: editkit.Toolkit | None = None,
) -> EditTools:
    """Create an ``EditTools`` confined to ``workspace.root``, else ``root``, else the current
    directory; see :class:`EditTools`."""
    return EditTools(
        workspace=workspace,
        post_edit_diagnostics=post_edit_diagnostics,
        post_edit_format=post_edit_format,
        formatters=formatters,
        root=root,
        toolkit=toolkit,
    )


# ---------------------------------------------------------------------------------------------
# file_tools


def _utf8(encoding: str) -> tuple[bool, bool]:
    """(whether editkit can serve ``encoding``, whether it is ``utf-8-sig``). Raises
    ``LookupError`` for an unknown encoding, as Python's ``open`` does."""
    name = codecs.lookup(encoding).name
    return name in ("utf-8", "utf-8-sig"), name == "utf-8-sig"


def _render_with_line_numbers(lines: list[str], start_index: int, max_line_chars: int) -> str:
    """PraisonAI's gutter: right-aligned 1-based numbers (at least 6 wide), a tab, the line."""
    if not lines:
        return ""
    width = max(len(str(start_index + len(lines))), 6)
    rendered = []
    for offset, line in enumerate(lines):
        if max_line_chars and max_line_chars > 0 and len(line) > max_line_chars:
            line = line[:max_line_chars] + "... (line truncated)"
        rendered.append(f"{str(start_index + offset + 1).rjust(width)}\t{line}")
    return "\n".join(rendered)


class FileTools(_Confined):
    """PraisonAI's ``FileTools``: ``read_file`` (windowed, line-numbered), ``write_file`` and
    ``list_files``, confined to one root, backed by editkit.

    ``workspace`` (a PraisonAI ``Workspace``), else ``root``, else the current directory at
    creation, is the folder every path is confined to; ``toolkit`` uses a toolkit of your own.
    Tool sets on the same root share its toolkit (and staleness guard) with ``EditTools``.
    """

    def __init__(
        self, workspace: Any = None, *, root: str | None = None, toolkit: editkit.Toolkit | None = None
    ) -> None:
        super().__init__(workspace, root, toolkit, "auto", False)

    def read_file(
        self,
        filepath: str,
        encoding: str = "utf-8",
        offset: int | None = None,
        limit: int | None = None,
        line_numbers: bool = True,
        max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
    ) -> str:
        """Read content from a file (windowed and line-numbered by default).

        Pass ``line_numbers=False`` (with no ``offset``/``limit``) for the plain content. Reading
        arms the staleness guard of later writes and edits.

        Args:
            filepath: Path to the file
            encoding: File encoding (UTF-8: ``utf-8`` or ``utf-8-sig``)
            offset: 1-based first line to read (default: start of file)
            limit: Maximum number of lines to read (default: up to ``DEFAULT_MAX_LINES`` lines
                from ``offset``); a negative value yields an empty window.
            line_numbers: Prefix each line with its 1-based number (default: True).
            max_line_chars: Truncate any single line longer than this many characters.

        Returns:
            str: Content of the requested window; when it stops before the end, a trailing hint
            says how to page on with ``offset``.
        """
        try:
            supported, sig = _utf8(encoding)
        except LookupError as unknown:
            return self._logged(f"Error reading file {filepath}: {unknown}")
        if not supported:
            return self._logged(
                f"Error reading file {filepath}: editkit reads UTF-8 text only, not {encoding!r}"
            )
        answer = self._call("read_file", {"path": filepath, "include_symbols": False})
        if not answer["ok"]:
            return self._logged(f"Error reading file {filepath}: {self._reason(answer['error'], filepath)}")
        if answer.get("is_binary"):
            return self._logged(
                f"Error reading file {filepath}: binary file ({answer.get('size_bytes', 0)} bytes); "
                "only text files are read"
            )
        # Text mode: universal newlines (editkit's LF text), and a BOM is a character unless
        # the encoding is utf-8-sig.
        data = ("\ufeff" if answer.get("bom") and not sig else "") + answer["content"]
        if not line_numbers and offset is None and limit is None:
            return data
        lines = data.splitlines()
        total = len(lines)
        start = min((offset - 1) if offset and offset > 0 else 0, total)
        if limit is not None and limit < 0:
            end = start
        elif limit is not None:
            end = start + limit
        else:
            end = start + DEFAULT_MAX_LINES
        end = min(end, total)
        if line_numbers:
            body = _render_with_line_numbers(lines[start:end], start, max_line_chars)
        else:
            body = "".join(data.splitlines(keepends=True)[start:end])
        if end < total:
            if body and not body.endswith("\n"):
                body += "\n"
            body += (
                f"... (showing lines {start + 1}-{end} of {total}; call again with offset={end + 1} for more)"
            )
        return body

    @_approval("high")
    def write_file(self, filepath: str, content: str, encoding: str = "utf-8", force: bool = False) -> bool:
        """Write content to a file (atomically; parent folders are created).

        Refused (``False``) when the file changed on disk since it was read through these tools,
        unless ``force=True``.

        Args:
            filepath: Path to the file
            content: Content to write (a dict or list is written as JSON, anything else as ``str``)
            encoding: File encoding (UTF-8: ``utf-8`` or ``utf-8-sig``)
            force: Bypass the automatic staleness guard for a blind overwrite

        Returns:
            bool: True if successful, False otherwise
        """
        if not isinstance(content, str):
            if isinstance(content, (dict, list)):
                content = json.dumps(content, indent=2, ensure_ascii=False)
            else:
                content = str(content)
        try:
            supported, sig = _utf8(encoding)
        except LookupError as unknown:
            self._logged(f"Error writing to file {filepath}: {unknown}")
            return False
        if not supported:
            self._logged(
                f"Error writing to file {filepath}: editkit writes UTF-8 text only, not {encoding!r}"
            )
            return False
        if sig:
            content = "\ufeff" + content
        answer = self._call("write_file", {"path": filepath, "content": content, "force": bool(force)})
        if answer["ok"]:
            return True
        error = answer["error"]
        if error.get("kind") == "stale":
            logger.error(
                "Refusing to write %s: file changed since it was read - re-read before writing (or pass force=True)",
                filepath,
            )
        else:
            self._logged(f"Error writing to file {filepath}: {self._reason(error, filepath)}")
        return False

    def list_files(self, directory: str, pattern: str | None = None) -> list[dict[str, str | int]]:
        """List the files (not folders) in a directory, or those matching a glob under it.

        Args:
            directory: Directory path
            pattern: Optional glob pattern (e.g., ``"*.txt"``, ``"**/*.py"``)

        Returns:
            List[Dict]: ``name``, ``path`` (absolute), ``size``, ``modified`` and ``created`` of
            each file, or ``[{"error": …}]``.
        """
        paths: list[str] = []
        if pattern:
            answer = self._call("glob", {"pattern": pattern, "path": directory})
            if answer["ok"]:
                paths = list(answer.get("matches") or [])
        else:
            answer = self._call("list_dir", {"path": directory})
            if answer["ok"]:
                base = str(answer.get("path") or ".")
                paths = [
                    name if base in ("", ".") else f"{base.rstrip('/')}/{name}"
                    for name in answer.get("entries") or []
                    if not name.endswith("/")
                ]
        if not answer["ok"]:
            return [
                {
                    "error": self._logged(
                        f"Error listing files in {directory}: {self._reason(answer['error'], directory)}"
                    )
                }
            ]
        result: list[dict[str, str | int]] = []
        for path in paths:
            info = self._call("file_info", {"path": path})
            if not info["ok"] or info.get("kind") != "file":
                continue
            modified = float(info.get("modified_unix", 0))
            result.append(
                {
                    "name": path.rsplit("/", 1)[-1],
                    "path": os.path.join(self.root, path),
                    "size": int(info.get("size_bytes", 0)),
                    "modified": modified,
                    "created": modified,
                }
            )
        return result


def create_file_tools(
    workspace: Any = None, *, root: str | None = None, toolkit: editkit.Toolkit | None = None
) -> FileTools:
    """Create a ``FileTools`` confined to ``workspace.root``, else ``root``, else the current
    directory; see :class:`FileTools`."""
    return FileTools(workspace=workspace, root=root, toolkit=toolkit)


# ---------------------------------------------------------------------------------------------
# The module-level tools: default instances pinned to the current directory at import (their
# toolkit opens on first use), shared by both namespaces.

_edit_tools = EditTools()
_file_tools = FileTools()


@_approval("high")
def edit_file(
    filepath: str,
    old_string: str,
    new_string: str,
    replace_all: bool = False,
    expected_hash: str | None = None,
    force: bool = False,
) -> str:
    """Edit a file by replacing text using precise find-and-replace.

    Args:
        filepath: Path to the file to edit
        old_string: Text to find and replace
        new_string: Replacement text
        replace_all: Whether to replace all occurrences (default: first only)
        expected_hash: Optional SHA256 hash of expected content for staleness check
        force: Bypass the automatic staleness guard for an intentional blind write

    Returns:
        Success message with diff or error description
    """
    return _edit_tools.edit_file(filepath, old_string, new_string, replace_all, expected_hash, force)


@_approval("high")
def apply_patch(patch: str, force: bool = False) -> str:
    """Apply a structured multi-file patch atomically (Add/Update/Delete/Move).

    Args:
        patch: Structured patch text with ``*** Add File:``, ``*** Update File:``,
            ``*** Delete File:`` and ``*** Move File: <old> -> <new>`` sections. A Move may carry
            optional ``@@`` hunks to rename and edit a file in one operation.
        force: Bypass the automatic staleness guard on Update/Move operations.

    Returns:
        Combined success message with diffs or an error description.
    """
    return _edit_tools.apply_patch(patch, force)


def read_file(filepath: str) -> tuple[str, str]:
    """Read a file and cache its content hash for staleness checking.

    Args:
        filepath: Path to the file to read

    Returns:
        Tuple of (content, hash) where hash can be used for staleness checking
    """
    return _edit_tools.read_file(filepath)


def search_files(directory: str, pattern: str, file_pattern: str = "*") -> str:
    """Search for text patterns within files.

    Args:
        directory: Directory to search in
        pattern: Text pattern to search for
        file_pattern: File name pattern (glob) to filter files

    Returns:
        JSON string with search results
    """
    return _edit_tools.search_files(directory, pattern, file_pattern)


def _plain_read_file(
    filepath: str,
    encoding: str = "utf-8",
    offset: int | None = None,
    limit: int | None = None,
    line_numbers: bool = True,
    max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
) -> str:
    """``file_tools.read_file``: see :meth:`FileTools.read_file`."""
    return _file_tools.read_file(filepath, encoding, offset, limit, line_numbers, max_line_chars)


def write_file(filepath: str, content: str, encoding: str = "utf-8", force: bool = False) -> bool:
    """Write content to a file; see :meth:`FileTools.write_file`."""
    return _file_tools.write_file(filepath, content, encoding, force)


def list_files(directory: str, pattern: str | None = None) -> list[dict[str, str | int]]:
    """List files in a directory; see :meth:`FileTools.list_files`."""
    return _file_tools.list_files(directory, pattern)


_plain_read_file.__name__ = _plain_read_file.__qualname__ = "read_file"

#: ``praisonaiagents.tools.edit_tools``'s functions.
edit_tools = types.SimpleNamespace(
    EditTools=EditTools,
    create_edit_tools=create_edit_tools,
    edit_file=edit_file,
    apply_patch=apply_patch,
    read_file=read_file,
    search_files=search_files,
)

#: ``praisonaiagents.tools.file_tools``'s functions (``read_file`` is the plain, windowed read).
file_tools = types.SimpleNamespace(
    FileTools=FileTools,
    create_file_tools=create_file_tools,
    read_file=_plain_read_file,
    write_file=write_file,
    list_files=list_files,
    DEFAULT_MAX_LINES=DEFAULT_MAX_LINES,
    DEFAULT_MAX_LINE_CHARS=DEFAULT_MAX_LINE_CHARS,
)
