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
one). As PraisonAI's, the staleness guard is one registry for the whole process: a read or write
through any tool set, whatever its root or settings, records the file's hash, and a later
write, edit or patch through any other is refused if the file changed since (the toolkit checks
the recorded hash as ``expected_hash``). Writes are atomic by default (a complete temp file
renamed into place, no fsync); ``durability="full"`` on ``create_edit_tools``, ``EditTools``,
``create_file_tools`` or ``FileTools`` also fsyncs file and folder. Tool sets on one root with the
same settings share one toolkit; ``toolkit=`` gives a tool set a toolkit of your own (its own
durability, blocked paths, size limits...), and the ``toolkit`` property gives the one in use
(``undo_edit``, ``undo_patch``...).

When ``praisonaiagents`` is installed, the writing tools carry its
``require_approval(risk_level="high")`` gate, as the originals do. ``formatters=`` is
PraisonAI's map of custom formatters (``{".py": ("black", ["black", "--quiet"])}``: ``{path}``
in the argv, appended when omitted), run after an edit or a patch when ``post_edit_format`` is
``"auto"`` or ``"on"``, in place of editkit's own for those extensions; a failing one never
fails the edit, and the staleness guard then holds the formatted content. ``apply_patch`` hands the patch to editkit as written (closed with
``*** End Patch`` when it has neither sentinel), and editkit parses it in PraisonAI's own dialect
(``dialect="hunks"``: ``@@`` hunks of old text, ``===``, new text; an added file's lines are
literal, a leading ``+`` included, and closed by ``\\ No newline at end of file``, so that the
file is its lines joined by newlines, blank ones included, as PraisonAI writes it;
``*** Begin Patch``/``*** End Patch`` are optional sentinels). A patch with neither sentinel that ends with a line break is taken as complete, as
PraisonAI takes it: nothing in it tells a patch cut off between two lines from a whole one (open
a patch with ``*** Begin Patch`` to have that refused too: it then needs its ``*** End Patch``). The
adapter reads a patch's section headers and hunks only to say what PraisonAI says, before
anything is written: each file named as the patch writes it (``./a.py``), a hunk quoted by its
old text as written, the first problem in patch order (PraisonAI checks each section in turn:
a move onto itself, the file's presence, a path an earlier section already produces
(``Conflicting operations target the same path …``), its staleness, then its hunks, a hunk whose
old block holds no line being ``Error: Empty hunk in update for '<path>'``); a malformed header
or a line outside any section is ``Error: Invalid patch: Unexpected line in patch (expected a
section header): '<line>'``.
``copy_file``, ``move_file``, ``delete_file``, ``get_file_info`` and
``download_file`` are not provided.

As PraisonAI, the tools open files as UTF-8 (``FileTools`` in the ``encoding`` given, any of
Python's codecs, applied here to the file's bytes): a file that does not decode is an error in
Python's words (``'utf-8' codec can't decode byte 0xe9 in position 3: invalid continuation
byte``), and ``search_files`` skips it. ``search_files`` reads every file ``glob.glob`` finds
(``.gitignore``d ones included; a name starting with a dot only where the pattern names it) and
each line as ``readlines()`` gives it (a lone CR ends a line); ``list_files`` lists what
``Path.glob`` finds (dot files included; a folder linked inside the root where a segment of the
pattern takes it, not where ``**`` meets it) with ``os.stat``'s ``st_mtime`` and ``st_ctime``, in
name order (PraisonAI's is the file system's, which nothing fixes); success messages carry
PraisonAI's own diff of the file's text before and after.

Where this adapter differs from the original because it is deliberately safer (each row has a
test and says why; it does not differ otherwise):

| Situation | PraisonAI 1.7.17 | This adapter | Why it is safer |
|---|---|---|---|
| ``old_string`` differs from the file by indentation or whitespace | the fuzzy ladder pastes ``new_string`` as given, unindented; a block-anchor match may rewrite lines the old text never named | the one matching region is replaced and ``new_string`` re-indented like the file; a similar block is changed line by line or refused, never guessed | a guessed block can rewrite lines the old text never named, and unindented code changes its meaning |
| The same edit is sent twice (a retry) | "String not found", or applied again when the old text sits inside the new (``foo`` → ``foo bar`` twice gives ``foo bar bar``) | refused: ``Error: String not found in file: '…' - the new text is already there …``; the file is not touched | a retry never applies an edit a second time |
| ``old_string == new_string`` | ``Success: Made 1 replacement(s)`` (file rewritten, "No changes detected") | refused: ``Error: old_string and new_string are identical - the edit would change nothing`` | the agent is never told it changed a file it did not change |
| A file with mixed line endings, lone CRs or a UTF-8 BOM is edited or patched | any CRLF makes every line CRLF; lone CRs become line breaks of the new style | every untouched byte kept: each line keeps its own ending, the BOM stays; new lines take the file's dominant ending (and the success message's diff shows them so, where PraisonAI's shows the new text as given) | an edit changes only the text it names, never every line's ending |
| The hash ``read_file`` returns (and ``expected_hash`` is checked against) | SHA-256 of the decoded text without its BOM | SHA-256 of the bytes on disk, BOM included (the same value for a file without BOM), so adding or dropping a BOM is a change | adding or dropping a BOM is a change the staleness guard sees |
| A write is interrupted (crash, power loss, full disk) | written in place, never fsynced: a torn or empty file | a complete temp file renamed over the target: old or new content, never a mix; ``apply_patch`` commits all files or none through a journal. The default durability, ``"atomic"``, does not fsync (a power failure may lose the latest writes, as with PraisonAI, but never tears a file); ``durability="full"`` (``create_edit_tools``, ``EditTools``, ``FileTools``, ``create_file_tools``) fsyncs file and folder before returning; a ``toolkit=`` passed in keeps its own | a crash never leaves a torn or empty file |
| A custom formatter (``formatters=``) | run on the file in place, from the project, with the project's configuration files in reach | run on a private copy of the file (the same name) in a private folder, contained as editkit's own formatters (a scrubbed environment, no network, no writes outside that folder); its result is written through editkit under the file's lock: a formatter changes nothing but the file, and no configuration the repository ships is read | a formatter cannot change anything but the file, nor run on configuration the repository ships |
| A formatter whose program is a relative path (``./node_modules/.bin/prettier``) | resolved from the edited file's folder and run | not run (the edit stands unformatted, as after a failing formatter): it is a program the repository ships, and the repository never chooses what runs; a bare name (found on ``PATH``, outside the workspace) or an absolute path is the application's explicit choice | the repository never chooses a program that runs |
| A path leads out of the root (``..``, ``~``, a symlink out, an absolute path elsewhere) | ``realpath`` + ``commonpath`` check, then the open follows whatever is there at that moment | refused with the same message (``Path traversal detected: …``), checked by capabilities at the moment of use | confinement cannot be raced by a link swapped in between check and open |
| ``.git`` internals, ``.env`` files, private keys, credential files | read, edited, searched, listed | refused for reads, edits, patches and writes; left out of searches and listings | secrets are neither read into the model's context nor changed |
| A ``Workspace`` with ``access="ro"`` or ``"none"`` | ``EditTools`` still edits and patches | every write refused; reads still work | a read-only workspace is read-only for every tool |
| Binary files (NUL bytes) | read and edited when they decode as UTF-8 | refused by every tool; ``search_files`` skips them | a binary file is never edited as text, which would corrupt it |
| A folder linked inside the root, in ``search_files`` | walked (``glob.glob`` follows it: a link to a parent folder is walked again at every level, 40 deep, each file found 41 times) | not entered (a link to a file is followed, as PraisonAI follows it) | one call cannot loop through a link cycle, nor show a file many times |
| Files over 16 MiB | read whole into memory | refused with the limit named (``toolkit=editkit.Toolkit(..., max_read_bytes=…)`` raises it) | a huge file cannot exhaust memory or flood the model's context |
| A ``*** Delete File:`` section naming a folder | the folder is renamed aside (``<folder>.praison_patch_tmp``) and reported ``Deleted`` | refused (``Error applying patch: [Errno 21] Is a directory: '…'``) | a file deletion never takes a whole folder with it |
| A patch opening with ``*** Begin Patch`` that does not end with ``*** End Patch`` | the part present is applied | refused as cut off; nothing is written | a patch cut off in transit is never half applied |
| A patch without sentinels ending in the middle of a line (no final line break) | applied, its last line as it stands | refused as cut off (the line may be half written); nothing is written | a half-written last line is never written into a file |
| A patch hunk without its ``===`` line | the old block is deleted | refused as an invalid patch | a malformed hunk never deletes code |
| A patch hunk's old lines stand only inside a longer line | replaced inside that line | refused (``Hunk not found``): a hunk's old lines must be whole lines of the file | a hunk never rewrites part of a line it does not name |
| Blank lines closing a hunk's old or new text (before ``===``, the next ``@@``, section or the end) | kept: a blank last old line takes the line break with it (``beta`` + blank → ``BETA`` gives ``BETAgamma``), a blank last new line is written | separators: left out of the hunk | a hunk never joins two lines (``BETAgamma``) |
| A Codex patch (``*** Begin Patch``, update hunks of context, ``-`` and ``+`` lines) | refused: ``Error: Hunk not found in …`` (its context lines searched as old text) | refused as an invalid patch, with editkit's reason (``Error: Invalid patch: invalid patch at line 3: hunk has no `===` line …``): the patch is read in PraisonAI's dialect only, never guessed to be another (an ``*** Add File:`` line ``+ milk`` is written ``+ milk``), so the refusal says what is wrong with it as written | a patch guessed to be in another dialect could write its ``-``/``+`` lines as text |
| A ``*** Move File:`` header without exactly one ``->`` between two paths (``a->b``, ``a -> b -> c``) | split at its first arrow: moved to ``b``, to ``b -> c`` | refused as the documentation words a malformed header (``Error: Invalid patch: Unexpected line in patch (expected a section header): '*** Move File: a->b' - `*** Move File:` takes `FROM -> TO` …``): a path may hold ``->`` itself, so a header that does not split one way only is not guessed | a header that splits two ways is never guessed |
| Lines of an update section outside an ``@@`` hunk | skipped: a section of ``old``/``===``/``new`` lines without any ``@@`` reports success and changes nothing; a line before the first ``@@`` is dropped | nothing is dropped silently: hunk lines without any ``@@`` are applied as the hunk they spell; a line before the first ``@@`` is refused as an invalid patch | nothing the patch says is dropped silently |
| An ``*** Update File:`` section without hunks | success; nothing changes | refused as an invalid patch (``… has no hunks; add a change or remove the section``): a change asked for and missing is a mistake to report, not a success | a change asked for and missing is reported, never called a success |
| A patch hunk with nothing after its ``===`` line | the old text replaced by an empty string: the line break after it stays, so an empty line is left where the lines stood (``a``/``b``/``c`` without ``b`` gives ``a``, an empty line, ``c``) | the old lines are removed, as blank lines closing a hunk's new text are separators | a hunk that deletes lines leaves nothing behind the patch did not write |
| A ``===`` line inside a hunk's new text (a second ``===``) | dropped: the lines around it joined | written as a line: everything after a hunk's first ``===`` is new text, taken literally (a ``===`` can be content, a reST underline) | nothing the patch says is dropped silently |
| Text after ``@@`` (``@@ def main``) | ignored | an anchor, as in Codex patches: the hunk is looked for after the first line holding it (``@@ def b`` picks ``b``'s ``x = 1`` where PraisonAI finds two), and refused (``Error: Hunk not found …``) when the anchor is not in the file rather than applied where the patch did not point | a hunk is never applied where the patch did not point |
| ``file_tools`` paths | checked against the current directory at each call | confined to the root pinned at creation (a later ``os.chdir`` cannot move it) | a later ``os.chdir`` cannot move the boundary |

"""

from __future__ import annotations

import codecs
import difflib
import errno
import fnmatch
import io
import json
import logging
import os
import re
import threading
import types
import weakref
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from functools import partial
from pathlib import PurePosixPath
from typing import Any, Callable, TypeVar, Union, cast

import editkit
from editkit.compat._pathglob import path_glob
from editkit.compat._utf8 import decode_error, file_bytes, transport

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
_MOVE_FILE = "*** Move File:"
_HEADERS = (
    ("add", "*** Add File:"),
    ("update", "*** Update File:"),
    ("delete", "*** Delete File:"),
    ("move", _MOVE_FILE),
)
_MOVE_TO = "*** Move to:"
#: PraisonAI's patches are always its own dialect: ``@@`` hunks of old text, ``===``, new text,
#: and added files' lines taken literally. editkit reads them so instead of guessing.
_DIALECT = "hunks"
_HASH = re.compile(r"[0-9a-f]{64}")
_UNMATCHABLE_HASH = "0" * 64
#: The diagnostics modes and durabilities are the words the toolkit's own options take.
_MODES = tuple(editkit._editkit.OPTION_WORDS["diagnostics"])
#: How the adapter's own toolkits write: ``"atomic"`` (the default: a complete temp file renamed
#: into place, never torn, no fsync) or ``"full"`` (file and folder fsynced before returning).
_DURABILITIES = tuple(editkit._editkit.OPTION_WORDS["durability"])
DEFAULT_DURABILITY = "atomic"
_MAX_SEARCH_RESULTS = 1 << 31
#: Paths whose last read hash is kept (PraisonAI's bound); the oldest is forgotten first.
_MAX_READ_HASHES = 4096

PathLike = Union[str, "os.PathLike[str]"]


# ---------------------------------------------------------------------------------------------
# The read-hash registry: PraisonAI's process-wide staleness guard.
#
# Like PraisonAI's ``_file_locks`` registry, one map for the whole process, shared by every tool
# set whatever its root or settings: the absolute real path of a file -> the SHA-256 editkit gave
# for it at its last read or write through any tool set here. A guarded write or edit hands the
# recorded hash to the toolkit as ``expected_hash`` (the toolkit hashes the file and decides);
# a path with nothing recorded is not guarded, as in PraisonAI.

_READ_HASHES: OrderedDict[str, str] = OrderedDict()
_READ_HASHES_LOCK = threading.Lock()


def _record_hash(key: str, sha256: Any) -> None:
    if not isinstance(sha256, str) or not sha256:
        return
    with _READ_HASHES_LOCK:
        _READ_HASHES[key] = sha256
        _READ_HASHES.move_to_end(key)
        while len(_READ_HASHES) > _MAX_READ_HASHES:
            _READ_HASHES.popitem(last=False)


def _recorded_hash(key: str) -> str | None:
    with _READ_HASHES_LOCK:
        sha256 = _READ_HASHES.get(key)
        if sha256 is not None:
            _READ_HASHES.move_to_end(key)
        return sha256


def _forget_hash(key: str) -> None:
    with _READ_HASHES_LOCK:
        _READ_HASHES.pop(key, None)


def _guard(key: str, expected_hash: Any, force: bool) -> dict[str, Any]:
    """The staleness arguments of a write, PraisonAI's precedence: an explicit hash, else no
    guard with ``force``, else the hash the registry recorded for the file, else no guard (a
    file never read here is not guarded)."""
    if expected_hash is not None:
        # PraisonAI compares the strings: anything but the current lower-case hex digest fails.
        # A hash that cannot match is sent as one, to learn the current hash.
        return {"expected_hash": expected_hash if _HASH.fullmatch(str(expected_hash)) else _UNMATCHABLE_HASH}
    recorded = None if force else _recorded_hash(key)
    return {"expected_hash": recorded} if recorded else {"force": True}


# ---------------------------------------------------------------------------------------------
# Toolkits: one per root and settings, shared by the tool sets opened with them.

_TOOLKITS: weakref.WeakValueDictionary[tuple[Any, ...], editkit.Toolkit] = weakref.WeakValueDictionary()
_TOOLKITS_LOCK = threading.Lock()


#: editkit's formatters from a ``formatters=`` map: ``((extension, name, argv), ...)``.
_Formatters = tuple[tuple[str, str, tuple[str, ...]], ...]


def _shared_toolkit(
    root: str,
    *,
    read_only: bool,
    diagnostics: str,
    format: bool,
    durability: str,
    formatters: _Formatters = (),
) -> editkit.Toolkit:
    """The toolkit every tool set on ``root`` with these settings shares."""
    key = (root, read_only, diagnostics, format, durability, formatters)
    with _TOOLKITS_LOCK:
        toolkit = _TOOLKITS.get(key)
        if toolkit is None:
            toolkit = editkit.Toolkit(
                root,
                # PraisonAI opens files as UTF-8 unless ``FileTools`` is given an encoding (passed
                # on explicitly): another encoding is its UnicodeDecodeError.
                detect_encodings=False,
                read_only=read_only,
                diagnostics=diagnostics,
                format=format,
                durability=durability,
                formatters={extension: [(name, list(argv))] for extension, name, argv in formatters} or None,
            )
            _TOOLKITS[key] = toolkit
        return toolkit


def _formatters(formatters: Mapping[str, Any] | None) -> _Formatters:
    """PraisonAI's ``formatters`` map (lowercase extension to ``(tool_name, argv_template)``, or
    to an argv alone) as editkit's: the formatter rewrites ``{path}``, which editkit gives it as
    a private copy of the file (its ``{file}``), appended when the argv does not name it."""
    chosen = []
    for extension, entry in (formatters or {}).items():
        if not isinstance(extension, str):
            raise TypeError(f"formatters: an extension is a string, not {extension!r}")
        if isinstance(entry, (list, tuple)) and len(entry) == 2 and isinstance(entry[1], (list, tuple)):
            name, argv = entry
        elif isinstance(entry, (list, tuple)) and entry and all(isinstance(arg, str) for arg in entry):
            name, argv = entry[0], entry
        else:
            raise ValueError(f"formatters[{extension!r}]: expected (tool_name, argv_template), not {entry!r}")
        if not argv or not all(isinstance(arg, str) for arg in argv):
            raise ValueError(f"formatters[{extension!r}]: the argv template is a non-empty list of strings")
        args = [arg.replace("{path}", "{file}") for arg in argv]
        if not any("{file}" in arg for arg in args[1:]):
            args.append("{file}")
        chosen.append((extension.lower().lstrip("."), str(name), tuple(args)))
    return tuple(chosen)


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
        durability: str = DEFAULT_DURABILITY,
        formatters: _Formatters = (),
    ) -> None:
        if durability not in _DURABILITIES:
            raise ValueError(f"durability must be 'atomic' or 'full', not {durability!r}")
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
        self._formatters = formatters
        # A toolkit passed in keeps its own durability.
        self._durability: str | None = None if toolkit is not None else durability
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
                        durability=self._durability or DEFAULT_DURABILITY,
                        formatters=self._formatters,
                    )
                toolkit = self._toolkit
        return toolkit

    @property
    def root(self) -> str:
        """The folder every path is confined to."""
        return self._root

    @property
    def durability(self) -> str | None:
        """How the toolkit these tools open writes (``"atomic"`` or ``"full"``); ``None`` when a
        toolkit was passed in (it keeps its own)."""
        return self._durability

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

    @staticmethod
    def _path(path: Any) -> Any:
        """A path argument as PraisonAI takes it: ``~`` expanded (then confined like any other)."""
        if isinstance(path, os.PathLike):
            path = os.fspath(path)
        return os.path.expanduser(path) if isinstance(path, str) else path

    def _key(self, path: Any) -> str:
        """``path``'s entry in the read-hash registry: its absolute real path (PraisonAI's key)."""
        try:
            return os.path.realpath(os.path.join(self._root, self._path(path)))
        except (TypeError, ValueError):
            return ""

    def _traversal(self, path: str) -> str:
        return f"Path traversal detected: {path} escapes workspace {self._root}"

    def _os_error(self, code: int, path: Any) -> str:
        """The text of the ``OSError`` PraisonAI's ``open`` raises for ``path`` (``[Errno 21] Is a
        directory: '/abs/path'``)."""
        return f"[Errno {code}] {os.strerror(code)}: {self._key(path)!r}"

    def _reason(self, error: Mapping[str, Any], path: Any) -> str:
        """The ``<reason>`` of PraisonAI's ``Error … <path>: <reason>`` messages: its own words
        where editkit's error carries what they say, else editkit's message."""
        kind = error.get("kind")
        if kind == "outside_workspace":
            return self._traversal(self._path(path))
        if kind == "is_directory":
            return self._os_error(errno.EISDIR, path)
        if kind == "not_utf8":
            # PraisonAI reads as UTF-8 and quotes Python's UnicodeDecodeError.
            quoted = decode_error(self._call, self._path(path))
            if quoted is not None:
                return quoted
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


def _render_diff(before: str, after: str, label: str) -> str:
    """PraisonAI's diff of a change: ``difflib``'s unified diff of the text before and after
    (each line with its own ending, as ``splitlines(keepends=True)`` gives it), under its labels
    and within its bound (10 lines, 200 characters a line)."""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"{label} (before)",
        tofile=f"{label} (after)",
        n=3,
    )
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
# apply_patch: the patch goes to editkit as written; editkit parses it.


def _toolkit_patch(patch: str) -> str:
    """``patch`` with its end written when it has neither ``*** Begin Patch`` nor ``*** End
    Patch`` and ends with a line break: PraisonAI's sentinels are optional and such a patch is
    complete as given, where editkit takes a patch without its end for one cut off. A patch
    ending in the middle of a line is left as it is, so editkit refuses it as cut off (its last
    line may be half written). Nothing else is touched."""
    meaningful = [line.strip() for line in patch.splitlines() if line.strip()]
    closed = meaningful and (meaningful[0] == _SENTINELS[0] or meaningful[-1] == _SENTINELS[1])
    if meaningful and not closed and patch.endswith("\n"):
        patch = patch + _SENTINELS[1] + "\n"
    return _literal_adds(patch)


#: The marker that closes an added file's lines as written in editkit's ``@@``/``===`` dialect.
_NO_NEWLINE = "\\ No newline at end of file\n"


def _literal_adds(patch: str) -> str:
    """``patch`` with each ``*** Add File:`` body closed by ``\\ No newline at end of file``:
    PraisonAI writes an added file as its lines joined by newlines (every line up to the next
    header or sentinel, blank ones too, the last without a line end), which editkit's dialect
    spells so. A body running to the end of a patch cut off mid-line is left as it is."""
    out: list[str] = []
    adding = False
    for line in patch.splitlines(keepends=True):
        stripped = line.strip()
        boundary = stripped in _SENTINELS or any(stripped.startswith(prefix) for _, prefix in _HEADERS)
        if adding and boundary:
            out.append(_NO_NEWLINE)
            adding = False
        out.append(line)
        if stripped.startswith("*** Add File:"):
            adding = True
    if adding and patch.endswith(("\n", "\r")):
        out.append(_NO_NEWLINE)
    return "".join(out)


#: editkit's refusal of a line where a section header belongs: ``invalid patch at line N:
#: expected `*** Add File:` ... found `...```.
_WHERE_A_HEADER_BELONGS = re.compile(r"invalid patch at line (\d+): (expected `\*\*\* Add File:`.*)", re.DOTALL)
#: editkit's refusal of a malformed ``*** Move File:`` header.
_AT_LINE = re.compile(r"invalid patch at line (\d+): (.*)", re.DOTALL)


def _unexpected_line(message: str, text: str) -> str | None:
    """PraisonAI's documented words for a malformed header or an orphan body line
    (``Unexpected line in patch (expected a section header): '<line>'``), when editkit's
    refusal ``message`` of ``text`` is one: a line where a section header belongs, or a
    ``*** Move File:`` header it cannot split (then followed by editkit's reason)."""
    lines = text.splitlines()

    def line(number: str) -> str:
        index = int(number) - 1
        return lines[index].strip() if 0 <= index < len(lines) else ""

    words = "Unexpected line in patch (expected a section header): "
    found = _WHERE_A_HEADER_BELONGS.match(message)
    if found:
        return f"{words}{line(found.group(1))!r}"
    found = _AT_LINE.match(message)
    if found and line(found.group(1)).startswith(_MOVE_FILE):
        return f"{words}{line(found.group(1))!r} - {found.group(2)}"
    return None


def _key_in(root: str, written: str) -> str:
    """The root-relative path editkit names a patch's ``written`` path by."""
    if not written:
        return ""
    resolved = os.path.normpath(os.path.join(root, os.path.expanduser(written)))
    return os.path.relpath(resolved, root).replace(os.sep, "/")


def _sections(text: str, root: str) -> list[dict[str, Any]]:
    """The sections of a patch in PraisonAI's dialect, in order, as PraisonAI reads them: each
    with its header's 1-based ``line``, ``op``, ``path`` as written (a move's source) and its
    root-relative ``key``, a move's ``to``/``to_key``, and its ``@@`` hunks (``line`` of the
    ``@@``, ``old`` lines up to the first ``===``)."""
    sections: list[dict[str, Any]] = []
    section: dict[str, Any] | None = None
    hunk: dict[str, Any] | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        header = next(((op, prefix) for op, prefix in _HEADERS if stripped.startswith(prefix)), None)
        if header is not None or stripped in _SENTINELS:
            section = hunk = None
            if header is not None:
                op, prefix = header
                written, target = stripped[len(prefix) :].strip(), ""
                if op == "move":
                    parts = written.split(" -> ")
                    if len(parts) == 2:
                        written, target = parts[0].strip(), parts[1].strip()
                section = {
                    "line": number,
                    "op": op,
                    "path": written,
                    "key": _key_in(root, written),
                    "to": target,
                    "to_key": _key_in(root, target),
                    "hunks": [],
                }
                sections.append(section)
            continue
        if section is None or section["op"] not in ("update", "move"):
            continue
        if stripped.startswith("@@"):
            hunk = {"line": number, "old": [], "new": False}
            section["hunks"].append(hunk)
        elif hunk is not None and stripped == "===":
            hunk["new"] = True
        elif hunk is not None and not hunk["new"]:
            hunk["old"].append(raw)
    return sections


def _written_names(sections: list[dict[str, Any]]) -> dict[str, str]:
    """Each file of the patch as the patch writes it (``./a.txt``, ``/abs/root/a.txt``), keyed by
    the root-relative path editkit names it by: PraisonAI's messages name files as written."""
    names: dict[str, str] = {}
    for section in sections:
        for key, written in ((section["key"], section["path"]), (section["to_key"], section["to"])):
            if key and written:
                names.setdefault(key, written)
    return names


def _old_block(text: str, patch_line: Any) -> str | None:
    """The old text of the hunk editkit names by ``patch_line`` (its ``@@`` line, or its first
    line), as PraisonAI quotes it: the lines up to ``===``, joined by line breaks."""
    lines = text.splitlines()
    if not isinstance(patch_line, int) or not 0 < patch_line <= len(lines):
        return None
    index = patch_line - 1
    if lines[index].strip().startswith("@@"):
        index += 1
    old: list[str] = []
    for raw in lines[index:]:
        stripped = raw.strip()
        if stripped == "===" or stripped.startswith("@@") or stripped in _SENTINELS:
            break
        if any(stripped.startswith(prefix) for _, prefix in _HEADERS):
            break
        old.append(raw)
    return "\n".join(old)


def _section_at(text: str, patch_line: Any) -> tuple[str, str]:
    """The operation (``add``, ``update``, ``delete``, ``move``) of the section whose header
    editkit names by its 1-based ``patch_line`` in ``text``, and a move's destination."""
    lines = text.splitlines()
    if not isinstance(patch_line, int) or not 0 < patch_line <= len(lines):
        return "update", ""
    header = lines[patch_line - 1].strip()
    following = lines[patch_line].strip() if patch_line < len(lines) else ""
    if header.startswith(_MOVE_FILE):
        return "move", header[len(_MOVE_FILE) :].split(" -> ")[-1].strip()
    if following.startswith(_MOVE_TO):
        return "move", following[len(_MOVE_TO) :].strip()
    for op, prefix in _HEADERS:
        if header.startswith(prefix):
            return op, ""
    return "update", ""


# ---------------------------------------------------------------------------------------------
# edit_tools


class EditTools(_Confined):
    """PraisonAI's ``EditTools``: ``read_file`` with its hash, ``edit_file``, ``apply_patch`` and
    ``search_files``, confined to one root, backed by editkit.

    ``workspace`` (a PraisonAI ``Workspace``: its ``root``, and ``access`` other than ``"rw"``
    makes every write refused), else ``root``, else the current directory at creation, is the
    folder every path is confined to. ``post_edit_diagnostics`` (``"auto"``, ``"on"``, ``"off"``)
    and ``post_edit_format`` (``"off"``, ``"auto"``, ``"on"``) are PraisonAI's, and so is
    ``formatters`` (lowercase extension to ``(tool_name, argv_template)``: ``{path}`` in the argv,
    appended when omitted), given to the toolkit as the application's own formatters (see
    :class:`editkit.Toolkit`): run contained on a private copy of the file, a bare program name
    found on ``PATH``, an absolute one taken as given, a relative one (a program the repository
    ships) not run. ``durability`` is how the toolkit writes: ``"atomic"``
    (the default: a complete temp file renamed into place, never torn; a power failure may lose
    the latest writes) or ``"full"`` (file and folder fsynced before each call returns).
    ``toolkit`` uses a toolkit of your own (its root, checks, formatter and durability) instead of
    the shared one for the root.
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
        durability: str = DEFAULT_DURABILITY,
    ) -> None:
        self._post_edit_diagnostics = _mode(post_edit_diagnostics, "auto")
        self._post_edit_format = _mode(post_edit_format, "off")
        super().__init__(
            workspace,
            root,
            toolkit,
            self._post_edit_diagnostics,
            self._post_edit_format != "off",
            durability,
            _formatters(formatters),
        )

    def read_file(self, filepath: str) -> tuple[str, str]:
        """Read a file and cache its content hash for staleness checking.

        Args:
            filepath: Path to the file to read

        Returns:
            Tuple of (content, hash) where hash can be used for staleness checking
        """
        # PraisonAI decodes the bytes: every line ending as it stands, the BOM dropped.
        answer = self._call(
            "read_file", {"path": self._path(filepath), "include_symbols": False, "raw": True}
        )
        if not answer["ok"]:
            error = answer["error"]
            if error.get("kind") == "not_found":
                return f"Error: File not found: {filepath}", ""
            return self._logged(f"Error reading file {filepath}: {self._reason(error, filepath)}"), ""
        if answer.get("is_binary"):
            reason = f"binary file ({answer.get('size_bytes', 0)} bytes); only text files are read"
            return self._logged(f"Error reading file {filepath}: {reason}"), ""
        _record_hash(self._key(filepath), answer["sha256"])
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

        The edit is refused when the file changed on disk since it was last read or written
        through any of these tools (unless ``force``), when ``old_string`` matches several places
        (unless ``replace_all``) and when it matches nowhere; an explicit ``expected_hash`` is
        always checked and then stands in for the automatic guard.

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
        key = self._key(filepath)
        args: dict[str, Any] = {
            "path": self._path(filepath),
            "old_string": old_string,
            "new_string": new_string,
            "replace_all": bool(replace_all),
        }
        args.update(_guard(key, expected_hash, force))
        before = self._raw_text(filepath)
        answer = self._call("edit_file", args)
        if answer["ok"]:
            _record_hash(key, answer.get("sha256"))
            diff = self._change_diff(before, filepath, answer.get("sha256"), filepath)
            if diff is None:
                diff = _bound_diff(answer.get("diff", ""), filepath)
            diagnostics = _diagnostics(answer.get("diagnostics"), self._post_edit_diagnostics, filepath)
            return (
                f"Success: Made {answer['replacements']} replacement(s) in {filepath}\n\nDiff:\n{diff}"
                + diagnostics
            )
        error = answer["error"]
        kind = error.get("kind")
        if kind in ("ambiguous", "already_applied", "no_change") or (
            kind == "not_found" and "closest" in error or kind == "invalid_args" and old_string == ""
        ):
            # PraisonAI records the hash it found before looking for the old text: a refused
            # edit leaves the guard armed at the file as it stands.
            self._rearm(filepath, key)
        return self._edit_refusal(error, filepath, old_string, expected_hash)

    def _rearm(self, filepath: Any, key: str) -> None:
        """Records the file's current hash (read through the toolkit) in the registry."""
        answer = self._call(
            "read_file", {"path": self._path(filepath), "include_symbols": False, "raw": True}
        )
        if answer["ok"]:
            _record_hash(key, answer.get("sha256"))

    def _raw_args(self, filepath: Any) -> dict[str, Any]:
        """A read of the file's text as it stands: line endings kept, UTF-8 only."""
        return {"path": self._path(filepath), "include_symbols": False, "raw": True, "encoding": "utf-8"}

    def _raw_text(self, filepath: Any) -> str | None:
        """The file's text as PraisonAI decodes it for an edit (its line endings kept, a UTF-8
        BOM left out), or ``None`` when it is not there or not text."""
        answer = self._call("read_file", self._raw_args(filepath))
        if not answer["ok"] or answer.get("is_binary"):
            return None
        return str(answer.get("content", "")).removeprefix("\ufeff")

    def _change_diff(self, before: str | None, filepath: Any, sha256: Any, label: str) -> str | None:
        """PraisonAI's diff of the change that left ``filepath`` with content ``sha256``, from
        its text ``before``; ``None`` when the file no longer holds that content (changed since)
        or ``before`` is unknown."""
        if before is None:
            return None
        answer = self._call("read_file", self._raw_args(filepath))
        if not answer["ok"] or answer.get("is_binary") or answer.get("sha256") != sha256:
            return None
        return _render_diff(before, str(answer.get("content", "")).removeprefix("\ufeff"), label)

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
            if hasattr(patch, "splitlines"):
                return self._logged(
                    f"Error applying patch: the patch must be text, not {type(patch).__name__}"
                )
            return self._logged(
                f"Error applying patch: '{type(patch).__name__}' object has no attribute 'splitlines'"
            )
        text = _toolkit_patch(patch)
        sections = _sections(text, self._root)
        names = _written_names(sections)
        dry = self._call("apply_patch", {"patch": text, "dialect": _DIALECT, "force": True, "dry_run": True})
        if not dry["ok"] and not dry["error"].get("failures"):
            # The patch does not parse: said before anything else, as PraisonAI's parser says it.
            return self._patch_refusal(dry["error"], patch, text, names)
        refusal = self._first_refusal(dry, sections, names, patch, text, force)
        if refusal is not None:
            return refusal
        if not dry["ok"]:
            return self._patch_refusal(dry["error"], patch, text, names)
        # Unless forced, the toolkit's own guard was armed at the hashes just checked, so the
        # patch is refused if a file changes between that check and the commit.
        # Each file the patch changes as it stands now, for PraisonAI's diffs.
        sources = [str(file.get("from") or file.get("path")) for file in dry.get("files") or []
                   if file.get("action") in ("update", "move")]
        befores = {source: self._raw_text(source) for source in sources}
        args = {"patch": text, "dialect": _DIALECT, **({"force": True} if force else {})}
        answer = self._call("apply_patch", args)
        if not answer["ok"]:
            return self._patch_refusal(answer["error"], patch, text, names)
        files = answer.get("files") or []
        blocks = _diff_blocks(answer.get("diff", ""))
        messages = []
        for file in files:
            action, path, source = file.get("action"), str(file.get("path", "")), file.get("from")
            if action == "delete":
                _forget_hash(self._key(path))
                messages.append(f"Deleted {names.get(path, path)}")
                continue
            if action == "move":
                _forget_hash(self._key(source))
                display = f"{names.get(source, source)} -> {names.get(path, path)}"
                block = blocks.get((f"a/{source}", f"b/{path}"), "")
                verb = "Renamed"
            else:
                display = names.get(path, path)
                headers = ("/dev/null", f"b/{path}") if action == "add" else (f"a/{path}", f"b/{path}")
                block = blocks.get(headers, "")
                verb = "Added" if action == "add" else "Updated"
            _record_hash(self._key(path), file.get("sha256"))
            before = "" if action == "add" else befores.get(str(source or path))
            diff = self._change_diff(before, path, file.get("sha256"), display)
            if diff is None:
                diff = _bound_diff(block, display)
            diagnostics = _diagnostics(file.get("diagnostics"), self._post_edit_diagnostics, path)
            messages.append(f"{verb} {display}\n{diff}{diagnostics}")
        return "Success: Applied patch to {} file(s)\n\n{}".format(len(files), "\n\n".join(messages))

    def _first_refusal(
        self,
        dry: Mapping[str, Any],
        sections: list[dict[str, Any]],
        names: Mapping[str, str],
        patch: str,
        text: str,
        force: bool,
    ) -> str | None:
        """PraisonAI's refusal of the patch, or ``None`` when it applies. PraisonAI checks each
        section in patch order, and within one: a move onto itself, whether the file is there
        (or a path refused), whether an earlier section already produces its path, its decoding,
        its staleness (unless ``force``), then its hunks in order (an empty old block among
        them). The problems editkit's dry run found (``dry``) are ranked so among the adapter's
        own checks, and the first one is said."""
        found: list[tuple[tuple[int, int, int], Callable[[], str]]] = []
        lines = [section["line"] for section in sections]

        def section_of(patch_line: Any) -> int:
            if not isinstance(patch_line, int):
                return len(sections)
            return max((index for index, line in enumerate(lines) if line <= patch_line), default=0)

        error = dry.get("error") or {}
        for failure in error.get("failures") or []:
            if failure.get("hunk") is not None:
                step = (4, 2 * int(failure["hunk"]))
            elif failure.get("kind") in ("utf16", "not_utf8"):
                step = (2, 0)
            else:
                step = (0, 0)
            one = {**error, "failures": [failure]}
            found.append(((section_of(failure.get("patch_line")), *step), partial(self._patch_refusal, one, patch, text, names)))
        # What each earlier section produces, and whether that file was on disk before the patch
        # (an update's) or is new (an add's, a move's destination): PraisonAI checks each section
        # against the files on disk before the patch, then against what earlier sections produce.
        produced: dict[str, tuple[str, bool]] = {}
        for index, section in enumerate(sections):
            op, written, key = section["op"], section["path"], section["key"]
            output, display = key, written
            if op == "move" and section["to"]:
                if key == section["to_key"]:
                    said = f"Error: Cannot move '{written}' to '{section['to']}': source and destination are the same path"
                    found.append(((index, -1, 0), partial(str, said)))
                    continue
                output, display = section["to_key"], f"{written} -> {section['to']}"
            prior = produced.get(output) if op in ("add", "update", "move") else None
            if prior is not None:
                conflict = f"Error: Conflicting operations target the same path '{display}' (also produced by '{prior[0]}')"
                if op == "update" and not prior[1]:
                    said = f"Error: Cannot update '{written}': file not found"
                    found.append(((index, 0, -1), partial(str, said)))
                elif op == "update":
                    found.append(((index, 1, 0), partial(str, conflict)))
                elif not prior[1]:  # an add or a move onto a file an earlier section creates
                    found.append(((index, 0, -1), partial(str, conflict)))
            if op in ("add", "update") or op == "move" and section["to"]:
                produced.setdefault(output, (display, op == "update"))
            if op in ("move", "delete"):
                produced.pop(key, None)
            for number, hunk in enumerate(section["hunks"], 1):
                if not any(line.strip() for line in hunk["old"]):
                    said = f"Error: Empty hunk in {'move' if op == 'move' else 'update'} for '{written}'"
                    found.append(((index, 4, 2 * number - 1), partial(str, said)))
                    break
        first = min(found, key=lambda item: item[0])[0] if found else (len(sections), 0, 0)
        if not force:
            for index, section in enumerate(sections[: first[0] + 1]):
                if section["op"] not in ("update", "move", "delete") or (index, 3, 0) > first:
                    continue
                stale = self._stale(section["key"])
                if stale:
                    said = (
                        f"Error: Cannot {section['op']} '{section['path']}': file changed since it was read - "
                        "re-read before editing (or pass force=True to override)."
                    )
                    found.append(((index, 3, 0), partial(str, said)))
                    break
        if not found:
            return None
        return min(found, key=lambda item: item[0])[1]()

    def _stale(self, path: str) -> bool:
        """Whether ``path`` changed since its recorded read (reading it arms the toolkit's guard
        at its current hash)."""
        current = self._call("read_file", {"path": path, "include_symbols": False, "raw": True})
        recorded = _recorded_hash(self._key(path))
        return bool(current["ok"] and recorded and current.get("sha256") not in (None, recorded))

    def _patch_refusal(self, error: Mapping[str, Any], patch: str, text: str, names: Mapping[str, str]) -> str:
        """PraisonAI's message for editkit's refusal of ``text`` (``patch`` as given), naming each
        file as the patch writes it (``names``)."""
        kind = error.get("kind")
        failures = error.get("failures") or []
        if not failures:
            if kind == "invalid_patch":
                if all(not line.strip() or line.strip() in _SENTINELS for line in patch.splitlines()):
                    return "Error: Patch contains no operations"
                unexpected = _unexpected_line(str(error.get("message", "")), text)
                if unexpected is not None:
                    return f"Error: Invalid patch: {unexpected}"
                return f"Error: Invalid patch: {error.get('message', '')}"
            path = str(error.get("path", ""))
            return self._logged(f"Error applying patch: {self._reason(error, path)}")
        failure = failures[0]
        kind = failure.get("kind")
        path = str(failure.get("path", ""))
        path = names.get(path, path)
        message = str(failure.get("message", ""))
        if failure.get("hunk") is not None:
            # PraisonAI quotes the hunk's old text as the patch writes it (editkit's preview,
            # its first line, when the patch line is unknown).
            block = _old_block(text, failure.get("patch_line"))
            preview = str(failure.get("preview", "")) if block is None else block
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
                return f"Error: Invalid patch: {message}"
            return self._logged(f"Error applying patch: {self._reason(failure, path)}")
        if kind in ("outside_workspace", "blocked", "io", "too_large", "is_directory"):
            return self._logged(f"Error applying patch: {self._reason(failure, path)}")
        op, destination = _section_at(text, failure.get("patch_line"))
        if op == "move":
            if kind == "exists":
                return f"Error: Cannot move '{path}' to '{destination}': destination already exists"
            if kind == "not_found":
                return f"Error: Cannot move '{path}': file not found"
        elif kind == "exists":
            return f"Error: Cannot add '{path}': file already exists"
        elif kind == "not_found":
            return f"Error: Cannot {op} '{path}': file not found"
        if kind == "stale":
            return (
                f"Error: Cannot {op} '{path}': file changed since it was read - re-read before editing "
                "(or pass force=True to override)."
            )
        if kind == "utf16":
            return f"Error: Cannot {op} '{path}': UTF-16 encoding is not supported. Please convert the file to UTF-8."
        if kind == "not_utf8":
            return f"Error: Cannot {op} '{path}': {self._reason(failure, path)}"
        return f"Error: Cannot {op} '{path}': {message}"

    def _texts(self, files: list[tuple[str, str]]) -> Iterator[tuple[str, str]]:
        """Each ``(path, shown)`` of ``files`` that reads as text, with its text as Python's
        text mode reads it (universal newlines, a BOM as ``\\ufeff``); what cannot be read now
        is left out, as PraisonAI skips it."""
        for start in range(0, len(files), _READ_BATCH):
            batch = files[start : start + _READ_BATCH]
            read = self._call("read_files", {"paths": [path for path, _ in batch], "include_symbols": False})
            for (path, shown), item in zip(batch, read.get("files") or ()):
                text = item.get("file")
                if (item.get("error") or {}).get("kind") == "too_large":
                    # Past the call's bound together with the others: alone, within the file's.
                    alone = self._call("read_file", {"path": path, "include_symbols": False})
                    text = alone if alone.get("ok") else None
                if text and not text.get("is_binary"):
                    yield shown, ("\ufeff" if text.get("bom") else "") + str(text.get("content", ""))

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
            "path": self._path(directory),
            "pattern": pattern,
            "regex": False,
            "case_sensitive": False,
            "max_results": _MAX_SEARCH_RESULTS,
        }
        if file_pattern and file_pattern not in ("*", "**", "**/*"):
            # PraisonAI globs `<directory>/**/<file_pattern>`: the pattern matches at any depth.
            args["glob"] = file_pattern if "/" not in file_pattern else "**/" + file_pattern.lstrip("/")
        # glob.glob walks every folder, .gitignored ones too, and dot names where the pattern
        # names them (checked below, as glob.glob matches them).
        args.update(hidden=True, ignore_rules=False, follow_links=True)
        answer = self._call("search_files", args)
        if not answer["ok"]:
            error = answer["error"]
            if error.get("kind") == "not_found":
                return json.dumps({"error": f"Directory not found: {directory}"})
            return json.dumps(
                {"error": self._logged(f"Error searching files: {self._reason(error, directory)}")}
            )
        base = str(answer.get("directory") or ".").strip("/")
        wanted = ["**", *str(file_pattern or "*").split("/")]
        found_files = []
        for found in answer.get("results") or []:
            file = str(found["file"])
            relative = (
                file[len(base) + 1 :] if base not in ("", ".") and file.startswith(base + "/") else file
            )
            # glob.glob finds nothing under a file, and a name as its pattern matches it.
            if file != base and _glob_finds(wanted, relative.split("/")):
                found_files.append((file, relative))
        # Each line as PraisonAI reads it: universal newlines (a lone CR ends a line), the BOM a
        # character, the pattern in ``line.lower()``. editkit's search found every file holding
        # such a line (its lines are at least as long), so only these are read again.
        needle = pattern.lower()
        results = []
        for relative, text in self._texts(found_files):
            matches = [
                {"line_number": number, "line": line.strip(), "match_start": line.lower().find(needle)}
                for number, line in enumerate(io.StringIO(text, newline="\n").readlines(), 1)
                if needle in line.lower()
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


def _stat_time(nanoseconds: int) -> float:
    """A time as ``os.stat`` gives it in ``st_mtime``/``st_ctime``: seconds plus nanoseconds
    times 1e-9, computed as CPython computes it."""
    seconds, nanos = divmod(nanoseconds, 1_000_000_000)
    return float(seconds) + nanos * 1e-9


#: Most files ``list_files`` lists for a pattern (the toolkit's ``glob`` bound).
_LIST_BOUND = 10_000

#: Files one ``read_files`` call takes while ``search_files`` reads its matches again.
_READ_BATCH = 64


def _glob_finds(pattern: list[str], path: list[str]) -> bool:
    """Whether ``glob.glob(recursive=True)`` finds ``path`` (its segments) for ``pattern`` (its
    segments): ``**`` takes any number of folders, each segment is ``fnmatch``'d, and a name
    starting with a dot is matched only by a segment that starts with one."""
    if not pattern:
        return not path
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return _glob_finds(rest, path) or (
            bool(path) and not path[0].startswith(".") and _glob_finds(pattern, path[1:])
        )
    if not path or (path[0].startswith(".") and not head.startswith(".")):
        return False
    return fnmatch.fnmatchcase(path[0], head) and _glob_finds(rest, path[1:])


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
    durability: str = DEFAULT_DURABILITY,
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
        durability=durability,
    )


# ---------------------------------------------------------------------------------------------
# file_tools


def _codec(encoding: str) -> tuple[bool, bool]:
    """(whether ``encoding`` is UTF-8, read and written by the toolkit as text; whether it is
    ``utf-8-sig``). Any other codec is Python's own, applied here to the file's bytes. Raises
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
    creation, is the folder every path is confined to; ``durability`` (``"atomic"``, the default,
    or ``"full"``) is how it writes, as for ``EditTools``; ``toolkit`` uses a toolkit of your own.
    Tool sets on the same root share its toolkit (and staleness guard) with ``EditTools``.
    """

    def __init__(
        self,
        workspace: Any = None,
        *,
        root: str | None = None,
        toolkit: editkit.Toolkit | None = None,
        durability: str = DEFAULT_DURABILITY,
    ) -> None:
        super().__init__(workspace, root, toolkit, "auto", False, durability)

    def _refused_path(self, path: Any) -> str | None:
        """PraisonAI's own check of a ``FileTools`` path (without a workspace): any ``..`` in it
        is refused, even one that stays inside the folder."""
        path = self._path(path)
        if self._workspace is None and isinstance(path, str) and ".." in path:
            return f"Path traversal detected: {path}"
        return None

    def _file_reason(self, error: Mapping[str, Any], path: Any) -> str:
        """The reason of a ``FileTools`` failure: a missing file is ``open``'s ``ENOENT``."""
        if error.get("kind") == "not_found":
            return self._os_error(errno.ENOENT, path)
        return self._reason(error, path)

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
            encoding: File encoding, any of Python's (``utf-8``, ``utf-8-sig``, ``latin-1``,
                ``cp1252``, ``koi8-u``, ``shift_jis``, ``utf-16``...)
            offset: 1-based first line to read (default: start of file)
            limit: Maximum number of lines to read (default: up to ``DEFAULT_MAX_LINES`` lines
                from ``offset``); a negative value yields an empty window.
            line_numbers: Prefix each line with its 1-based number (default: True).
            max_line_chars: Truncate any single line longer than this many characters.

        Returns:
            str: Content of the requested window; when it stops before the end, a trailing hint
            says how to page on with ``offset``.
        """
        refused = self._refused_path(filepath)
        if refused is not None:
            return self._logged(f"Error reading file {filepath}: {refused}")
        try:
            utf8, sig = _codec(encoding)
        except LookupError as error:
            unknown: LookupError | None = error
            utf8, sig = True, False
        else:
            unknown = None
        args: dict[str, Any] = {"path": self._path(filepath), "include_symbols": False}
        if utf8:
            raw, answer = None, self._call("read_file", {**args, "encoding": "utf-8"})
        else:
            raw, answer = file_bytes(self._call, self._path(filepath))
        if not answer["ok"]:
            return self._logged(
                f"Error reading file {filepath}: {self._file_reason(answer['error'], filepath)}"
            )
        if unknown is not None:
            return self._logged(f"Error reading file {filepath}: {unknown}")
        if answer.get("is_binary") or (raw is None and not utf8):
            return self._logged(
                f"Error reading file {filepath}: binary file ({answer.get('size_bytes', 0)} bytes); "
                "only text files are read"
            )
        if raw is not None:
            # Python's codec on the file's bytes, as open(filepath, encoding=encoding) reads them
            # (universal newlines).
            try:
                decoded = raw.decode(encoding)
            except UnicodeDecodeError as error:
                return self._logged(f"Error reading file {filepath}: {error}")
            decoded = decoded.replace("\r\n", "\n").replace("\r", "\n")
            answer = {**answer, "content": decoded, "bom": False}
        _record_hash(self._key(filepath), answer.get("sha256"))
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

        Refused (``False``) when the file changed on disk since it was last read or written
        through any of these tools, unless ``force=True``.

        Args:
            filepath: Path to the file
            content: Content to write (a dict or list is written as JSON, anything else as ``str``)
            encoding: File encoding, any of Python's (``utf-8``, ``utf-8-sig``, ``latin-1``,
                ``cp1252``, ``koi8-u``, ``shift_jis``, ``utf-16``...)
            force: Bypass the automatic staleness guard for a blind overwrite

        Returns:
            bool: True if successful, False otherwise
        """
        refused = self._refused_path(filepath)
        if refused is None and self._read_only:
            access = getattr(self._workspace, "access", "ro")
            refused = (
                "Workspace access is disabled"
                if access == "none"
                else f"Workspace is not writable: access={access!r}"
            )
        if refused is not None:
            self._logged(f"Error writing to file {filepath}: {refused}")
            return False
        if not isinstance(content, str):
            if isinstance(content, (dict, list)):
                content = json.dumps(content, indent=2, ensure_ascii=False)
            else:
                content = str(content)
        try:
            utf8, sig = _codec(encoding)
        except LookupError as unknown:
            self._logged(f"Error writing to file {filepath}: {unknown}")
            return False
        if sig:
            content = "\ufeff" + content
        key = self._key(filepath)
        args = {"path": self._path(filepath), "content": content, **_guard(key, None, force)}
        if not utf8:
            # Python's codec makes the bytes, as open(filepath, "w", encoding=encoding) writes
            # them; the toolkit writes exactly those bytes.
            try:
                data = content.encode(encoding)
            except UnicodeEncodeError as error:
                self._logged(f"Error writing to file {filepath}: {error}")
                return False
            args.update(content=transport(data), encoding="windows-1252")
        else:
            args["encoding"] = "utf-8"
        answer = self._call("write_file", args)
        error = answer.get("error") or {}
        if error.get("kind") == "stale" and error.get("current_sha256") is None:
            # The file is gone: PraisonAI's guard covers a file that exists. Create it, unless
            # something stands there again.
            answer = self._call(
                "write_file", {**args, "expected_hash": None, "force": True, "create_new": True}
            )
        if answer["ok"]:
            _record_hash(key, answer.get("sha256"))
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
        refused = self._refused_path(directory)
        if refused is None and pattern:
            parts = PurePosixPath(pattern).parts
            if PurePosixPath(pattern).is_absolute() or any(part.startswith("..") for part in parts):
                refused = f"Invalid file pattern: {pattern}"
            elif not parts:
                refused = f"Unacceptable pattern: {pattern!r}"
        if refused is not None:
            return [{"error": self._logged(f"Error listing files in {directory}: {refused}")}]
        paths: list[str] = []
        if pattern and PurePosixPath(pattern).parts[-1] == "**":
            return []  # pathlib's glob gives folders only for a pattern ending in `**`
        globbed = None
        if pattern and len(PurePosixPath(pattern).parts) > 1 and PurePosixPath(pattern).parts[0] != "**":
            # Path.glob follows a linked folder its own segments take it to.
            globbed = path_glob(self._call, self._path(directory), pattern, _LIST_BOUND)
        if globbed is not None:
            answer, paths = {"ok": True}, globbed[0]
        elif pattern and len(PurePosixPath(pattern).parts) > 1:
            # Path.glob takes dot names and .gitignored files as any others.
            answer = self._call(
                "glob",
                {
                    "pattern": pattern,
                    "path": self._path(directory),
                    "hidden": True,
                    "ignore_rules": False,
                    "follow_links": True,
                },
            )
            if answer["ok"]:
                paths = list(answer.get("matches") or [])
        else:
            answer = self._call("list_dir", {"path": self._path(directory)})
            if answer["ok"]:
                base = str(answer.get("path") or ".")
                paths = [
                    name if base in ("", ".") else f"{base.rstrip('/')}/{name}"
                    for name in answer.get("entries") or []
                    # A one-part pattern is matched against the folder's names, dot names too, as
                    # pathlib's glob does.
                    if not name.endswith("/") and (not pattern or fnmatch.fnmatchcase(name, pattern))
                ]
        if not answer["ok"]:
            error = answer["error"]
            if pattern and error.get("kind") in ("not_found", "invalid_args", "io"):
                return []  # pathlib's glob finds nothing under a missing folder or a file
            if error.get("kind") == "not_found":
                reason = self._os_error(errno.ENOENT, directory)
            elif error.get("kind") in ("invalid_args", "io") and "not a directory" in str(
                error.get("message")
            ):
                reason = self._os_error(errno.ENOTDIR, directory)
            else:
                reason = self._reason(error, directory)
            return [{"error": self._logged(f"Error listing files in {directory}: {reason}")}]
        result: list[dict[str, str | int]] = []
        for path in paths:
            info = self._call("file_info", {"path": path})
            if not info["ok"] or info.get("kind") != "file":
                continue
            result.append(
                {
                    "name": path.rsplit("/", 1)[-1],
                    "path": os.path.join(self.root, path),
                    "size": int(info.get("size_bytes", 0)),
                    "modified": _stat_time(int(info.get("modified_ns", 0))),
                    "created": _stat_time(int(info.get("changed_ns", 0))),
                }
            )
        return result


def create_file_tools(
    workspace: Any = None,
    *,
    root: str | None = None,
    toolkit: editkit.Toolkit | None = None,
    durability: str = DEFAULT_DURABILITY,
) -> FileTools:
    """Create a ``FileTools`` confined to ``workspace.root``, else ``root``, else the current
    directory; see :class:`FileTools`."""
    return FileTools(workspace=workspace, root=root, toolkit=toolkit, durability=durability)


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
