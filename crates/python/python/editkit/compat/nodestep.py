"""nodestep's ``LocalWorkspace``, backed by editkit.

A drop-in for ``nodestep.workspace.LocalWorkspace``: the same constructor, methods, return values
and exceptions (``WorkspaceError``, its subclass ``PathAccessError``, and the built-in
``FileNotFoundError``, ``IsADirectoryError``, ``NotADirectoryError``, ``FileExistsError`` and
``ValueError`` where nodestep raises them), with every file operation done by an
``editkit.Toolkit`` on the root::

    from editkit.compat.nodestep import LocalWorkspace, PathAccessError

    workspace = LocalWorkspace("/home/me/project")            # create=True makes a missing root
    workspace.write_file("notes/todo.md", "- ship docs\\n- fix bug\\n")
    workspace.list_dir("notes")                               # ['todo.md']
    workspace.edit("notes/todo.md", "fix bug", "fix the login bug")   # 1 (replacements made)
    workspace.grep("login").matches                           # {'notes/todo.md': ['- fix the login bug']}
    workspace.glob("**/*.md")                                 # ['notes/todo.md']
    try:
        workspace.read_file("../secrets.txt")
    except PathAccessError as error:
        print(error)                        # Path '../secrets.txt' is outside the workspace root

When nodestep itself is installed, its ``WorkspaceError``, ``PathAccessError``, ``GrepResult`` and
``Workspace`` base class are the ones used here, so its handlers, type checks and
``Graph(workspace=...)`` take this class as they take its own. Paths follow nodestep's portable
rules (no absolute, drive or UNC paths, no ``:``, ``<>"|?*`` or control characters, no Windows
device names such as ``CON`` or ``nul.txt``, no segment ending in a dot or a space), and
editkit confines them, and every link on the way, to the root. ``workspace.toolkit`` is the
``editkit.Toolkit`` underneath (its ``undo_edit`` and ``undo_patch`` reverse this class's
writes, edits and deletes).

``edit`` finds ``old`` as nodestep does, exactly (editkit's strict matching: no tolerance for
drift), counted as ``str.count`` counts (overlapping places once), and as spelt in the file's
line endings or, in a CRLF file, with its LFs as CRLFs (in a file mixing line endings, only as
spelt, so, as nodestep's, only there). As nodestep, files are read as UTF-8 only: one in a legacy
code page or UTF-16, which editkit could read, is "not a UTF-8 text file" (in ``grep``'s
``skipped``). ``glob`` and ``grep`` take what ``Path.glob`` and ``rglob`` take: hidden files,
files a ``.gitignore`` names, files linked inside the root, and a folder linked inside the root
where a segment of the pattern (a name or a wildcard, not ``**``) takes them.

Where this class deliberately differs from nodestep's because it is safer (each row has a test
and says why; it behaves the same everywhere else):

| Case | nodestep's ``LocalWorkspace`` | this class | Why it is safer |
|---|---|---|---|
| ``edit`` whose ``old`` stands in several places, without ``replace_all`` | replaces the first, returns 1 | ``WorkspaceError`` (ambiguous, with the lines); the file untouched | the first of several places is a guess, and a wrong guess edits the wrong code silently |
| ``edit`` sent again after it landed (``new`` stands where ``old`` would be) | returns 0, or applies it a second time | ``WorkspaceError`` (already applied); the file untouched | a retry never applies an edit a second time |
| ``edit`` whose ``new`` equals ``old`` | rewrites the file unchanged, returns the count | ``WorkspaceError`` (no change); the file untouched | the caller is never told it changed a file it did not change |
| ``write_file`` over a file changed on disk since this workspace read it | overwrites the other writer's change | ``WorkspaceError`` (stale); the file untouched; read it again to write | another writer's change is never lost to a write made from an old read |
| Line endings of the text ``edit`` puts in | as ``new`` spells them (a CRLF ``old`` with an LF ``new`` leaves lone LFs); an ``old`` that cuts a ``\\r\\n`` in two leaves the other half | the file's own; an ``old`` that cuts a ``\\r\\n`` in two takes it whole; every byte outside the edit stays as it was | an edit never leaves lone LFs or half a CRLF in the file |
| ``edit`` whose ``old`` begins with the byte order mark (``\\ufeff``) of a file that has one | replaces the mark with the rest | ``WorkspaceError`` (the mark stays: leave it out of ``old``); the file untouched | the mark that tells readers the file's encoding is never removed by an edit |
| ``.git``, ``.env``, ``.env.*``, private keys, certificate stores, credential files, ``.editkit`` | read, written, deleted like any file | ``PathAccessError``; left out of ``list_dir``, ``glob`` and ``grep``; a folder holding one is not deleted | secrets are neither read into the model's context nor changed |
| A path with a backslash or a ``~`` segment | a file with that name (``a\\b.txt``, ``~/x``) | ``PathAccessError`` | a name that other tools read as a folder path or the home folder is never created |
| A file holding NUL bytes (binary), even valid UTF-8 | text | ``read_file``, ``edit``: ``WorkspaceError``; ``grep``: in ``skipped`` | a binary file is never edited as text, which would corrupt it |
| Links leading outside the root | listed by ``list_dir``, which follows each to mark a folder with ``/``; ``glob`` leaves them out; ``grep`` names them in ``skipped`` | not listed by ``list_dir`` (nothing outside the root is looked at, not even whether a link's target is a folder); ``glob`` leaves them out; ``grep`` names them in ``skipped``, a link to a folder outside too | nothing outside the root is looked at, not even a link's target |
| ``glob`` or ``grep`` over more than 10,000 files | walks them all | ``WorkspaceError``: narrow the pattern or the path | one call cannot walk a whole disk |
| A FIFO, socket or device | ``read_file``, ``edit`` and ``write_file`` block on it | ``WorkspaceError`` (not a regular file) | a tool never blocks forever on a pipe or a device |
| ``write_file`` and ``edit`` | write the file in place | write a temp file and rename it over the target, fsynced: never torn; a hard link keeps the old content | a crash never leaves a torn file, and a hard-linked copy elsewhere is not changed through the link |
| ``delete`` | removes, nothing kept | keeps the content for ``workspace.toolkit.undo_edit`` (a file) or ``undo_patch`` (a folder); a folder holding a file over ``max_file_read_bytes``, or past 10,000 files or 256 MiB, is refused (``WorkspaceError``) | a deletion can be undone, and one call cannot remove an unbounded tree |
"""

from __future__ import annotations

import errno
import os
import posixpath
import re
from collections.abc import Iterator
from pathlib import Path, PureWindowsPath
from typing import Any

import editkit
from editkit.compat._pathglob import path_glob

try:  # nodestep's own classes when it is installed, so its handlers and type checks take ours
    from nodestep.exceptions import NodestepError, PathAccessError, WorkspaceError
    from nodestep.workspace.base import GrepResult
    from nodestep.workspace.base import Workspace as _WorkspaceBase
except ImportError:
    _WorkspaceBase = object

    class NodestepError(Exception):  # type: ignore[no-redef]
        """Base class of the errors nodestep raises (nodestep's own class when it is installed)."""

    class WorkspaceError(NodestepError):  # type: ignore[no-redef]
        """A workspace operation failed (nodestep's own class when it is installed)."""

    class PathAccessError(WorkspaceError):  # type: ignore[no-redef]
        """A path points outside the workspace root (nodestep's own class when it is installed)."""

    class GrepResult:  # type: ignore[no-redef]
        """Matching lines by relative path, and the files that could not be read.

        nodestep's own (pydantic) class when it is installed.

        Attributes
        ----------
        matches : dict[str, list[str]]
            Matching lines, keyed by the file's path relative to the root.
        skipped : list[str]
            Relative paths of files that are too large, not UTF-8 text or not readable, or
            symlinks that point outside the root.
        """

        __slots__ = ("matches", "skipped")

        def __init__(
            self, *, matches: dict[str, list[str]] | None = None, skipped: list[str] | None = None
        ) -> None:
            self.matches: dict[str, list[str]] = {} if matches is None else matches
            self.skipped: list[str] = [] if skipped is None else skipped

        def model_dump(self) -> dict[str, Any]:
            """The fields as plain data, as pydantic's ``model_dump`` gives them."""
            return {
                "matches": {path: list(lines) for path, lines in self.matches.items()},
                "skipped": list(self.skipped),
            }

        def __eq__(self, other: object) -> bool:
            if not isinstance(other, GrepResult):
                return NotImplemented
            return self.matches == other.matches and self.skipped == other.skipped

        __hash__ = None  # type: ignore[assignment]

        def __repr__(self) -> str:
            return f"GrepResult(matches={self.matches!r}, skipped={self.skipped!r})"


__all__ = ["GrepResult", "LocalWorkspace", "NodestepError", "PathAccessError", "WorkspaceError"]

# ---------------------------------------------------------------------------------------------
# nodestep's portable path rules: the spelling of a path, before editkit confines it.

_DEVICE_NAMES = frozenset(
    ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
    + [device + digit for device in ("COM", "LPT") for digit in "123456789\u00b9\u00b2\u00b3"]
)
_NOT_PORTABLE = re.compile(r'[\x00-\x1f<>:"|?*]')
_SEPARATORS = re.compile(r"[/\\]")


# A regular expression no line matches (an empty class): a search for it only walks the files.
_MATCHES_NOTHING = r"[^\s\S]"


def _refuse_anchored(text: str, what: str) -> None:
    """Refuses a drive, a UNC share or a leading separator (on every system, as nodestep does)."""
    windows = PureWindowsPath(text)
    if windows.drive:
        raise PathAccessError(f"{what} '{text}' names a drive or network share")
    if windows.root:
        raise PathAccessError(f"{what} '{text}' is absolute; use a relative path")


def _check_path(path: str) -> None:
    """Refuses a path nodestep refuses: anchored, or with a segment Windows could not hold."""
    _refuse_anchored(path, "Path")
    for segment in _SEPARATORS.split(path):
        if segment in ("", ".", ".."):
            continue
        bad = _NOT_PORTABLE.search(segment)
        if bad:
            raise PathAccessError(f"Path '{path}' contains {bad.group()!r} in {segment!r}")
        if segment.split(".", 1)[0].rstrip(" ").upper() in _DEVICE_NAMES:
            raise PathAccessError(f"Path '{path}' uses the reserved device name '{segment}'")
        if segment[-1] in ". ":
            raise PathAccessError(f"Path '{path}' has the segment '{segment}' ending in a dot or space")


def _check_glob_pattern(pattern: str) -> None:
    """Refuses a glob pattern that is anchored or climbs with a ``..`` segment."""
    _refuse_anchored(pattern, "Glob pattern")
    if ".." in _SEPARATORS.split(pattern):
        raise PathAccessError(f"Glob pattern '{pattern}' may not leave the workspace root")


def _is_root(path: str | None) -> bool:
    return path in (None, "", ".")


# ---------------------------------------------------------------------------------------------
# editkit's refusals as nodestep's exceptions.

#: Kinds that make ``grep`` list a file in ``skipped`` instead of failing.
_UNREADABLE = frozenset({"too_large", "not_utf8", "utf16", "binary", "io", "outside_workspace", "blocked"})
_NOT_TEXT = frozenset({"not_utf8", "utf16", "binary"})
#: editkit's bound on the files one glob lists.
_GLOB_BOUND = 10_000
#: Most files one ``read_files`` call takes.
_READ_BATCH = 64


def _os_error(cls: type[OSError], code: int, path: str) -> OSError:
    """``cls`` as the operating system raises it (``errno``, ``strerror``, ``filename``)."""
    return cls(code, os.strerror(code), path)


def _translate(kind: str, message: str, details: dict[str, Any], path: str) -> Exception:
    """The nodestep exception for an editkit refusal of an operation on ``path``."""
    if kind == "outside_workspace":
        return PathAccessError(f"Path '{path}' is outside the workspace root")
    if kind == "blocked":
        return PathAccessError(f"Path '{path}' is refused: {message}")
    if kind == "invalid_args":
        return PathAccessError(f"Path '{path}' cannot be used: {message}")
    if kind == "not_found":
        return _os_error(FileNotFoundError, errno.ENOENT, path)
    if kind == "is_directory":
        return _os_error(IsADirectoryError, errno.EISDIR, path)
    if kind == "exists":
        return _os_error(FileExistsError, errno.EEXIST, path)
    if kind == "too_large" and "size_bytes" in details and "limit_bytes" in details:
        return WorkspaceError(
            f"'{path}' is {details['size_bytes']} bytes; the read limit is {details['limit_bytes']}"
        )
    if kind in _NOT_TEXT:
        return WorkspaceError(f"'{path}' is not a UTF-8 text file: {message}")
    return WorkspaceError(message)


def _refused(error: editkit.EditkitError, path: str) -> Exception:
    return _translate(error.kind, error.message, error.details, path)


_LINE_BREAKS = re.compile(r"\r\n|\r|\n")


def _findable(old: str, endings: str) -> bool:
    """Whether nodestep can find ``old`` in a file whose line endings are all ``endings`` (``lf``,
    ``cr_lf`` or ``cr``, as editkit reports them): it looks for ``old`` as spelt and, in a CRLF
    file, with its LFs as CRLFs, so the line breaks ``old`` holds must be the file's, or LFs in a
    CRLF file (where a CRLF cut in two may begin or end ``old``). editkit matches any line ending,
    so an ``old`` spelt otherwise is nodestep's "not found"; in a file without line endings or
    mixing them, editkit decides (see the table)."""
    if endings == "lf":
        return "\r" not in old
    if endings == "cr":
        return "\n" not in old
    if endings == "cr_lf":
        core = old.removeprefix("\n")
        core = core.removesuffix("\r")
        breaks = set(_LINE_BREAKS.findall(core))
        return breaks <= {"\r\n"} or breaks <= {"\n"}
    return True


# ---------------------------------------------------------------------------------------------


class LocalWorkspace(_WorkspaceBase):
    """Workspace backed by a directory on disk, through editkit.

    Paths, globs and symlinks cannot reach outside the root; paths follow nodestep's portable
    rules. See the module docstring for where this class is safer than nodestep's.

    Parameters
    ----------
    root_dir : str or Path
        Root directory (``~`` is not expanded).
    create : bool, optional
        Create ``root_dir`` and its parents if missing; otherwise a missing root raises.
    max_file_read_bytes : int, optional
        Largest file ``read_file``, ``edit`` and ``grep`` accept.

    Raises
    ------
    WorkspaceError
        If ``root_dir`` is missing and ``create`` is false, or is not a directory.
    """

    def __init__(
        self,
        root_dir: str | Path,
        *,
        create: bool = False,
        max_file_read_bytes: int = 256_000,
    ) -> None:
        root = Path(root_dir)
        if create and not root.exists():
            root.mkdir(parents=True)
        if not root.exists():
            raise WorkspaceError(f"Workspace root '{root}' does not exist; pass create=True to create it")
        if not root.is_dir():
            raise WorkspaceError(f"Workspace root '{root}' is not a directory")
        self._root_dir = root.resolve()
        self._toolkit = self._open(max_file_read_bytes)
        self._max_file_read_bytes = max_file_read_bytes

    def _open(self, max_file_read_bytes: int) -> editkit.Toolkit:
        try:
            return editkit.Toolkit(
                self._root_dir,
                diagnostics="off",
                # nodestep opens every file as UTF-8: another encoding is "not a UTF-8 text file".
                detect_encodings=False,
                absolute_paths="refuse",
                max_read_bytes=max_file_read_bytes,
            )
        except editkit.EditkitError as error:
            raise WorkspaceError(
                f"Workspace root '{self._root_dir}' cannot be used: {error.message}"
            ) from error

    @property
    def root_dir(self) -> Path:
        """Absolute root directory."""
        return self._root_dir

    @property
    def max_file_read_bytes(self) -> int:
        """Largest file ``read_file``, ``edit`` and ``grep`` accept.

        Setting it reopens the toolkit with the new limit (what was read before no longer guards
        later writes against files changed underneath).
        """
        return self._max_file_read_bytes

    @max_file_read_bytes.setter
    def max_file_read_bytes(self, limit: int) -> None:
        self._toolkit = self._open(limit)
        self._max_file_read_bytes = limit

    @property
    def toolkit(self) -> editkit.Toolkit:
        """The ``editkit.Toolkit`` doing the work (for ``undo_edit``, ``undo_patch``, ``history``...)."""
        return self._toolkit

    # -----------------------------------------------------------------------------------------
    # editkit calls

    def _kind(self, path: str) -> str | None:
        """What is at ``path``, links followed (``"file"``, ``"dir"``...), or ``None`` for nothing."""
        try:
            found = self._toolkit.exists(path or ".")
        except editkit.EditkitError as error:
            raise _refused(error, path) from error
        return found.kind if found.exists else None

    def _canonical(self, path: str) -> str:
        """The path editkit resolves ``path`` to, relative to the root (``""`` for the root), links
        followed; a missing path resolves through its deepest existing folder."""
        try:
            return self._toolkit.file_info(path).path
        except editkit.NotFound:
            pass
        except editkit.EditkitError as error:
            raise _refused(error, path) from error
        # editkit applies `..` before it follows links, as normpath does.
        head = posixpath.normpath(path)
        missing: list[str] = []
        while head not in ("", "."):
            head, name = posixpath.split(head)
            missing.insert(0, name)
            try:
                found = self._toolkit.file_info(head or ".").path
            except editkit.NotFound:
                continue
            except editkit.EditkitError as error:
                raise _refused(error, path) from error
            return posixpath.join(found, *missing)
        raise _os_error(FileNotFoundError, errno.ENOENT, path)

    def _refused_file(self, error: editkit.EditkitError, path: str) -> Exception:
        """As ``_refused``, for a refusal to read or write the file ``path``: a FIFO, socket or
        device there (on which nodestep would block) is a ``WorkspaceError``."""
        if isinstance(error, editkit.InvalidArgs) and self._kind(path) == "other":
            return WorkspaceError(f"'{path}' is not a regular file: {error.message}")
        return _refused(error, path)

    def _read(self, path: str) -> editkit.ReadFileResult:
        """Reads a whole text file exactly as on disk (every line ending as it stands, a byte
        order mark as ``\\ufeff``), arming editkit's guard against writes over later changes."""
        try:
            read = self._toolkit.read_file(path, raw=True, include_symbols=False)
        except editkit.EditkitError as error:
            raise self._refused_file(error, path) from error
        if read.is_binary:
            raise WorkspaceError(f"'{path}' is not a UTF-8 text file: it holds NUL bytes (binary)")
        return read

    # -----------------------------------------------------------------------------------------
    # Workspace

    def resolve_path(self, path: str | None) -> tuple[Path, str]:
        """Resolve a path inside the root, following symlinks.

        Parameters
        ----------
        path : str or None
            Path relative to the root; ``None``, ``""`` or ``"."`` is the root.

        Returns
        -------
        tuple[Path, str]
            Absolute resolved path and the relative path with ``/`` separators (``"."`` for the
            root).

        Raises
        ------
        PathAccessError
            If the path, or a symlink in it, leaves the root, the path is blocked, or it breaks
            nodestep's portable path rules.
        """
        if path is None or _is_root(path):
            return self._root_dir, "."
        _check_path(path)
        relative = self._canonical(path)
        return (self._root_dir / relative if relative else self._root_dir), relative or "."

    def read_file(self, path: str) -> str:
        """Read a UTF-8 text file, keeping its line endings (and a byte order mark as ``\\ufeff``).

        Parameters
        ----------
        path : str
            Path relative to the workspace root.

        Returns
        -------
        str

        Raises
        ------
        FileNotFoundError
            If the file does not exist.
        IsADirectoryError
            If the path is a directory.
        WorkspaceError
            If the file is larger than ``max_file_read_bytes``, not UTF-8 text (or binary), or not
            a regular file.
        PathAccessError
            If the path leaves the root, is blocked, or breaks the portable path rules.
        """
        _check_path(path)
        return str(self._read(path).content)

    def write_file(self, path: str, content: str) -> None:
        """Write a UTF-8 text file as given, creating parent directories.

        Parameters
        ----------
        path : str
            Path relative to the workspace root.
        content : str

        Raises
        ------
        IsADirectoryError
            If the path is a directory.
        FileExistsError
            If a file stands where a parent directory is needed.
        WorkspaceError
            If the file changed on disk since this workspace read it, or is not a regular file.
        PathAccessError
            If the path leaves the root, is blocked, or breaks the portable path rules.
        """
        _check_path(path)
        try:
            self._toolkit.write_file(path, content)
        except editkit.NotFound as error:  # parents are created: only a file in the way is missing
            raise _os_error(FileExistsError, errno.EEXIST, path) from error
        except editkit.EditkitError as error:
            raise self._refused_file(error, path) from error

    def list_dir(self, path: str = ".") -> list[str]:
        """List a directory; subdirectories end with ``/``.

        Parameters
        ----------
        path : str
            Path relative to the workspace root.

        Returns
        -------
        list[str]
            Sorted entry names (blocked entries and links leading outside left out).

        Raises
        ------
        FileNotFoundError
            If the path does not exist.
        NotADirectoryError
            If the path is a file.
        PathAccessError
            If the path leaves the root, is blocked, or breaks the portable path rules.
        """
        if not _is_root(path):
            _check_path(path)
        try:
            entries = self._toolkit.list_dir(path=path or ".").entries
        except editkit.InvalidArgs as error:
            if self._kind(path) not in (None, "dir"):
                raise _os_error(NotADirectoryError, errno.ENOTDIR, path) from error
            raise _refused(error, path) from error
        except editkit.EditkitError as error:
            raise _refused(error, path) from error
        return entries

    def exists(self, path: str) -> bool:
        """Whether a file or directory exists.

        Parameters
        ----------
        path : str
            Path relative to the workspace root.

        Returns
        -------
        bool

        Raises
        ------
        PathAccessError
            If the path leaves the root, is blocked, or breaks the portable path rules.
        """
        if not _is_root(path):
            _check_path(path)
        return self._kind(path) is not None

    def delete(self, path: str) -> bool:
        """Delete a file, directory or symlink (never its target).

        Parameters
        ----------
        path : str
            Path relative to the workspace root.

        Returns
        -------
        bool
            Whether something was deleted.

        Raises
        ------
        WorkspaceError
            If ``path`` is the workspace root, or a directory too large to keep for undo.
        PathAccessError
            If the path leaves the root, is blocked, holds a blocked entry, or breaks the
            portable path rules.
        """
        if not _is_root(path):
            _check_path(path)
        # Only a spelling reaches the root: a link to it is deleted as a link. Refused here so
        # that editkit does not first copy the whole tree for undo.
        if posixpath.normpath(path or ".") == ".":
            raise WorkspaceError("Refusing to delete the workspace root")
        try:
            self._toolkit.delete(path, recursive=True)
        except editkit.NotFound:
            return False
        except editkit.TooLarge as error:
            raise WorkspaceError(
                f"Refusing to delete '{path}': {error.message} (editkit keeps what it deletes for undo)"
            ) from error
        except editkit.EditkitError as error:
            raise _refused(error, path) from error
        return True

    def edit(self, path: str, old: str, new: str, *, replace_all: bool = False) -> int:
        """Replace text in a file, keeping its line endings.

        In a CRLF file, ``old`` and ``new`` written with LF match and are written with CRLF.
        ``old`` must stand in the file exactly (no tolerance for drift), and once unless
        ``replace_all``.

        Parameters
        ----------
        path : str
            Path relative to the workspace root.
        old : str
            Text to find.
        new : str
            Its replacement.
        replace_all : bool, optional
            Replace every occurrence instead of the one.

        Returns
        -------
        int
            Number of replacements (0 when ``old`` is not in the file).

        Raises
        ------
        ValueError
            If ``old`` is empty.
        FileNotFoundError
            If the file does not exist.
        WorkspaceError
            If the file is larger than ``max_file_read_bytes`` or not UTF-8 text, or the edit is
            refused: ``old`` stands in several places, begins with the byte order mark, the edit is
            already applied or changes nothing, or the file changed during the edit.
        PathAccessError
            If the path leaves the root, is blocked, or breaks the portable path rules.
        """
        if not old:
            raise ValueError("edit needs non-empty old text")
        _check_path(path)
        read = self._read(path)  # the file as it is now: what the edit is bound to
        if read.bom and old.startswith("\ufeff"):
            raise WorkspaceError(
                f"Old text takes in the byte order mark of '{path}', which edit keeps; leave it out"
            )
        if not _findable(old, str(read.line_endings)):
            return 0
        if str(read.line_endings) == "mixed" and _LINE_BREAKS.search(old):
            spelt = self._edit_as_spelt(path, read, old, new, replace_all)
            if spelt is not None:
                return spelt
        # The same text in editkit's view of the file, where every line ending is an LF; editkit
        # finds it exactly (strict), as str.count and str.replace do.
        wanted = old.replace("\r\n", "\n").replace("\r", "\n")
        try:
            try:
                done = self._toolkit.edit_file(
                    path, wanted, new, replace_all=replace_all, strict=True, expected_hash=read.sha256
                )
            except editkit.Ambiguous:
                # editkit counts overlapping places as several, str.count once: where they make
                # one place without overlaps, nodestep replaces the first, as replace_all does.
                places = self._toolkit.edit_file(
                    path, wanted, "", replace_all=True, strict=True, dry_run=True, expected_hash=read.sha256
                )
                if places.replacements != 1:
                    raise
                done = self._toolkit.edit_file(
                    path, wanted, new, replace_all=True, strict=True, expected_hash=read.sha256
                )
        except editkit.NotFound as error:
            if "closest" in error.details:  # the text, not the file
                return 0
            raise _refused(error, path) from error
        except editkit.EditkitError as error:
            raise _refused(error, path) from error
        return done.replacements

    def _edit_as_spelt(
        self, path: str, read: editkit.ReadFileResult, old: str, new: str, replace_all: bool
    ) -> int | None:
        """nodestep's edit of a file mixing line endings: ``old`` found only as spelt (or, when
        it is not and holds no CRLF, with its LFs as CRLFs), where editkit's strict matching
        takes any line endings. ``None`` when editkit finds exactly those places (its own edit
        then runs); else the places are edited here, the new text's line breaks taking the
        ending of the text it replaces, and the count returned."""
        content = str(read.content)
        target = old
        if old not in content and "\r\n" in content and "\r\n" not in old:
            target = old.replace("\n", "\r\n")
        count = content.count(target)
        wanted = old.replace("\r\n", "\n").replace("\r", "\n")
        try:
            places = self._toolkit.edit_file(
                path, wanted, new, replace_all=True, strict=True, dry_run=True, expected_hash=read.sha256
            ).replacements
        except editkit.AlreadyApplied as error:
            raise _refused(error, path) from error
        except editkit.EditkitError:
            places = 0
        if count == 0:
            return 0  # not as spelt: nodestep's "not found", whatever editkit finds spelt otherwise
        if places == count:
            return None
        if count > 1 and not replace_all:
            raise WorkspaceError(
                f"Old text stands {count} times in '{path}'; give more context or pass replace_all=True"
            )
        ending = _LINE_BREAKS.search(target)
        replacement = _LINE_BREAKS.sub(ending.group() if ending else "\n", new)
        edited = content.replace(target, replacement, -1 if replace_all else 1)
        try:
            self._toolkit.write_file(path, edited, expected_hash=read.sha256)
        except editkit.EditkitError as error:
            raise _refused(error, path) from error
        return count if replace_all else 1

    def _files(self, pattern: str, path: str) -> list[str]:
        """The files under the directory ``path`` matching ``pattern``, relative to the root."""
        if pattern.split("/", 1)[0] != "**":
            # Path.glob follows a linked folder its own segments take it to.
            globbed = path_glob(self._toolkit.call, path or ".", pattern, _GLOB_BOUND)
            if globbed is not None and not globbed[1]:
                return globbed[0]
        try:
            # Path.glob takes dot names, .gitignored files and files linked inside the root as
            # any others.
            found = self._toolkit.glob(
                pattern, path=path or ".", hidden=True, ignore_rules=False, follow_links=True
            )
        except editkit.InvalidArgs as error:
            if self._kind(path) == "dir":
                raise ValueError(f"Invalid glob pattern '{pattern}': {error.message}") from error
            raise _refused(error, path) from error
        except editkit.EditkitError as error:
            raise _refused(error, path) from error
        if found.truncated:
            raise WorkspaceError(
                f"Glob pattern '{pattern}' under '{path}' matches more than {_GLOB_BOUND:,} files; "
                "narrow the pattern or the path"
            )
        return list(found.matches)

    def glob(self, pattern: str, path: str = ".") -> list[str]:
        """List files matching a glob pattern, without symlinks leaving the root.

        Parameters
        ----------
        pattern : str
            Pattern such as ``"src/**/*.py"``, relative to ``path``.
        path : str, optional
            Directory to search from, relative to the root.

        Returns
        -------
        list[str]
            Sorted matching file paths relative to the root.

        Raises
        ------
        FileNotFoundError
            If ``path`` does not exist.
        PathAccessError
            If ``pattern`` names a drive, is absolute or contains ``..``, or ``path`` leaves the
            root, is blocked, or breaks the portable path rules.
        WorkspaceError
            If more than 10,000 files match.
        """
        _check_glob_pattern(pattern)
        if not _is_root(path):
            _check_path(path)
        kind = self._kind(path or ".")
        if kind is None:
            raise _os_error(FileNotFoundError, errno.ENOENT, path)
        if kind != "dir":
            return []
        return self._files(pattern, path)

    def _texts(self, files: list[str]) -> Iterator[tuple[str, str | None]]:
        """Each file with its text as nodestep reads it for ``grep`` (``None``: not readable)."""
        for start in range(0, len(files), _READ_BATCH):
            batch = files[start : start + _READ_BATCH]
            answer = self._toolkit.read_files(batch, include_symbols=False)
            for relative, item in zip(batch, answer.files):
                error = item.get("error")
                if error:
                    if error["kind"] in _UNREADABLE:
                        yield relative, None
                        continue
                    raise _translate(error["kind"], error["message"], error, relative)
                read = item["file"]
                if read["is_binary"]:
                    yield relative, None
                else:
                    yield relative, ("\ufeff" if read["bom"] else "") + read["content"]

    def grep(
        self,
        pattern: str,
        path: str = ".",
        *,
        glob_pattern: str | None = None,
    ) -> GrepResult:
        """Find lines matching a regular expression inside the root.

        Parameters
        ----------
        pattern : str
            Regular expression (Python's ``re``), searched in each line.
        path : str, optional
            File or directory to search, relative to the root.
        glob_pattern : str, optional
            Only search the files of a directory ``path`` that match it; a file ``path`` is
            always searched.

        Returns
        -------
        GrepResult
            Matching lines by relative path, and in ``skipped`` the files that are larger than
            ``max_file_read_bytes``, not UTF-8 text (or binary), or not readable, or symlinks
            that point outside the root (named, never followed: a link to a folder outside is
            named too).

        Raises
        ------
        FileNotFoundError
            If ``path`` does not exist.
        re.error
            If ``pattern`` is not a valid regular expression.
        PathAccessError
            If ``glob_pattern`` names a drive, is absolute or contains ``..``, or ``path``
            leaves the root, is blocked, or breaks the portable path rules.
        WorkspaceError
            If more than 10,000 files are to be searched.
        """
        if glob_pattern:
            _check_glob_pattern(glob_pattern)
        if not _is_root(path):
            _check_path(path)
        kind = self._kind(path or ".")
        if kind is None:
            raise _os_error(FileNotFoundError, errno.ENOENT, path)
        regex = re.compile(pattern)
        outside: list[str] = []
        if kind == "dir":
            files = self._files(glob_pattern or "**", path)
            outside = self._links_leading_out(path, glob_pattern)
        else:  # a FIFO, socket or device is not a file to search, as in nodestep
            files = [self._canonical(path)] if kind == "file" else []
        result = GrepResult()
        texts = dict(self._texts(files))
        # nodestep's order: paths compared segment by segment.
        for relative in sorted([*files, *outside], key=lambda name: name.split("/")):
            text = texts.get(relative)
            if text is None:
                result.skipped.append(relative)
                continue
            matching = [line for line in text.splitlines() if regex.search(line)]
            if matching:
                result.matches[relative] = matching
        return result

    def _links_leading_out(self, path: str, glob_pattern: str | None) -> list[str]:
        """The symlinks under the directory ``path`` (matching ``glob_pattern``) that point
        outside the root, as the search meets them: named, never followed (the search that
        finds them matches no line, so it reads nothing behind them)."""
        args: dict[str, Any] = {
            "pattern": _MATCHES_NOTHING,
            "path": path or ".",
            "max_results": 1,
            "hidden": True,
            "ignore_rules": False,
        }
        if glob_pattern:
            args["glob"] = glob_pattern
        answer = self._toolkit.call("search_files", args)
        if not answer.get("ok"):
            return []
        return [item["path"] for item in answer.get("skipped", ()) if item.get("reason") == "outside_workspace"]
