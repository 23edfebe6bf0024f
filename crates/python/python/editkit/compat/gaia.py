r"""GAIA's ``FileIOToolsMixin`` (``gaia.agents.tools.file_io_tools``), backed by editkit.

The ten file tools of the AMD GAIA code agent, with the interface GAIA documents (its
``docs/spec/file-io-tools-mixin.mdx``): the same method names, parameters and defaults, the same
``{"status": "success", ...}`` / ``{"status": "error", "error": ...}`` dicts, and the same host
contract (a class mixes ``FileIOToolsMixin`` in, sets ``self.path_validator`` and calls
``register_file_io_tools()``, which registers each tool with the ``@tool`` registry). Every read,
write, match, syntax check, diff and path decision is made by an :class:`editkit.Toolkit` whose
roots are the validator's ``allowed_paths`` and whose blocked patterns come from its
``blocked_paths``; this module only translates arguments and results.

Usage, from the project folder (as in GAIA, relative paths resolve against the current
directory, which is also the default allowed path)::

    from editkit.compat.gaia import FileIOToolsMixin, PathValidator, _TOOL_REGISTRY

    class MyAgent(FileIOToolsMixin):               # (Agent, FileIOToolsMixin) in GAIA
        def __init__(self):
            self.path_validator = PathValidator(blocked_paths=["secrets"])
            self.register_file_io_tools()

    agent = MyAgent()
    agent.write_python_file("src/calculator.py", "def add(a, b):\n    return a + b\n")
    agent.read_file("src/calculator.py")["symbols"]    # [{"name": "add", "type": "function", ...}]
    agent.edit_python_file("src/calculator.py", "return a + b", "return int(a) + int(b)")
    _TOOL_REGISTRY["search_code"]["function"]("src", "TODO")   # what the agent loop calls

When GAIA itself is installed, ``tool`` and ``_TOOL_REGISTRY`` are GAIA's own
(``gaia.agents.base.tools``), so a GAIA ``Agent`` finds the tools where it looks for them;
otherwise this module keeps a registry of the same shape.

As in GAIA, relative paths resolve against the current directory (``write_file`` and
``edit_file``: against ``project_dir`` when given), and paths in results are echoed as given
(``write_file`` and ``edit_file``: resolved). Results carry a few fields GAIA lacks (``sha256``,
``error_kind``, ``details``, ``truncated``...); none of GAIA's is missing. Sizes are bytes.

Where this adapter is deliberately safer than the original (each row has a test; it does not
differ otherwise):

| Situation | GAIA's ``FileIOToolsMixin`` | This adapter |
|---|---|---|
| ``old_content`` occurs several times (``edit_file``, ``edit_python_file``) | replaces the first occurrence | refuses, listing the lines of every candidate; nothing written |
| The file changed on disk since the agent's ``read_file`` | overwrites the other change | refuses the write or edit as stale (``error_kind: "stale"``); read again |
| ``old_content`` differs from the file only in whitespace, indentation or quote style | "Content to replace not found" | edits the one region it matches (``match_rung`` names how), refusing when more than one region matches |
| The same edit is sent twice | second call: "Content to replace not found" | refused as already applied, naming the line; the file is not touched |
| A file with CRLF or mixed line endings or a UTF-8 BOM is edited | rewritten in text mode (line endings become the platform's) | every untouched byte kept: endings, BOM, and the edited lines take the file's endings |
| A path leads out of the allowed paths (``..``, a symlink out, an absolute path elsewhere, a sibling sharing the prefix such as ``/work/app-old`` for ``/work/app``) | string-prefix check on the resolved path; anything else prompts on the terminal and may persist an "always" grant | refused (``Access denied``), checked by capabilities at the moment of use; never prompts |
| Blocked paths, ``.env``, private keys, ``.git`` internals | blocked for writes only; readable | refused for reads, searches and writes |
| A write is interrupted (crash, full disk) | file truncated, then written in place: a torn or empty file | temp file renamed over the target and fsynced: the old or the new content, never a mix |
| Backups (``backup=True``) | ``<file>.bak`` beside the file, replacing the previous one | kept outside the project in editkit's undo history (``backup_path``; ``undo_edit`` restores) |
| ``edit_python_file`` on a file that already has syntax errors | refuses every edit that leaves any error, so errors can only be fixed all at once | refuses only edits that add syntax errors |
| ``replace_function`` with a name defined twice (say two classes' ``run``) | replaces the first ``def`` found anywhere | refuses, listing the lines; ``Class.method`` names one |
| ``replace_function`` end of the function | guessed from indentation up to the next ``def``/``class``: code in between is lost | the definition's exact span (decorators kept unless the new code brings its own) |
| ``search_code`` | walks every file, ``.venv``, ``node_modules`` and hidden folders included; a missing directory gives zero results | honours ``.gitignore`` (in a git repository), skips hidden and binary files; a missing directory is an error |
| ``update_gaia_md`` | regenerates the whole ``GAIA.md`` (fixed boilerplate, timestamp), dropping hand-written sections | creates or refreshes only the title and its Description, Structure and Instructions sections |
| Files over 16 MiB (``max_read_bytes``) | read whole into memory | refused (``too_large``, naming the limit) |
"""

# The annotations stay evaluated at runtime (no ``from __future__ import annotations``, hence
# ``Optional``/``Union`` on Python 3.9): the ``@tool`` registry reads parameter types from them.
# ruff: noqa: FA100

import inspect
import os
import posixpath
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Optional, Union

import editkit

__all__ = [
    "TOOL_NAMES",
    "UNCONFINED_WRITE_ERROR",
    "_TOOL_REGISTRY",
    "FileIOToolsMixin",
    "MissingHostAttributeError",
    "PathValidator",
    "tool",
]

PathLike = Union[str, "os.PathLike[str]"]

#: The tools ``register_file_io_tools`` registers, in GAIA's order.
TOOL_NAMES: tuple[str, ...] = (
    "read_file",
    "write_python_file",
    "edit_python_file",
    "search_code",
    "generate_diff",
    "write_markdown_file",
    "write_file",
    "edit_file",
    "update_gaia_md",
    "replace_function",
)

#: At most this many matching lines per file in ``search_code`` results, as in GAIA.
MATCHES_PER_FILE = 10
#: Most matching lines ``search_code`` asks the toolkit for while filling its files.
SEARCH_LINES_BOUND = 100_000

_HOST_HINT = "Set self.path_validator = <PathValidator instance>."
#: What a write tool answers when the host never set ``self.path_validator`` (GAIA's wording).
UNCONFINED_WRITE_ERROR = (
    "Write blocked: path confinement is unavailable on this agent (no path_validator configured). "
    f"Refusing to write without a security check. {_HOST_HINT}"
)


class MissingHostAttributeError(AttributeError):
    """A read tool ran on a host without ``self.path_validator`` (GAIA raises the same)."""


# ------------------------------------------------------------------------------------------------
# The tool registry: GAIA's own when GAIA is installed, one of the same shape otherwise.

try:  # pragma: no cover - depends on whether GAIA is installed
    from gaia.agents.base.tools import _TOOL_REGISTRY, tool  # type: ignore[import-not-found]
except ImportError:
    _TOOL_REGISTRY: dict[str, dict[str, Any]] = {}

    _JSON_TYPES: dict[Any, str] = {
        str: "string",
        int: "integer",
        float: "number",
        bool: "boolean",
        tuple: "array",
        dict: "object",
    }

    def tool(func: Optional[Callable[..., Any]] = None, *, atomic: bool = False, **_: Any) -> Any:
        """Registers ``func`` as an agent tool under its name (``@tool`` or ``@tool(atomic=True)``).

        The entry has GAIA's shape: ``name``, ``description`` (the docstring), ``parameters``
        (``{name: {"type", "required"}}`` from the signature) and ``function``, plus ``atomic``.
        The function is returned unchanged.
        """

        def register(f: Callable[..., Any]) -> Callable[..., Any]:
            parameters: dict[str, dict[str, Any]] = {}
            for name, parameter in inspect.signature(f).parameters.items():
                parameters[name] = {
                    "type": _JSON_TYPES.get(parameter.annotation, "unknown"),
                    "required": parameter.default is inspect.Parameter.empty,
                }
            _TOOL_REGISTRY[f.__name__] = {
                "name": f.__name__,
                "description": f.__doc__ or "",
                "parameters": parameters,
                "function": f,
                "atomic": atomic,
            }
            return f

        return register(func) if func is not None else register


# ------------------------------------------------------------------------------------------------
# Paths: GAIA's allowed and blocked lists, as a toolkit's roots and blocked patterns.


def _real(path: PathLike) -> Path:
    """``path`` with ``~`` expanded, absolute, symlinks resolved (how GAIA stores its lists)."""
    return Path(os.fspath(path)).expanduser().resolve()


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or below it (both resolved)."""
    return path == folder or folder in path.parents


def _anchored_pattern(relative: str) -> str:
    """A ``.gitignore`` pattern naming exactly ``relative`` below a root (metacharacters escaped)."""
    escaped = "".join("\\" + char if char in "\\*?[]{}!#" else char for char in relative)
    if escaped.endswith(" "):
        escaped = escaped[:-1] + "\\ "
    return "/" + escaped


def _toolkit_layout(allowed: Iterable[PathLike], blocked: Iterable[PathLike]) -> tuple[list[str], list[str]]:
    """The roots and blocked patterns that confine a toolkit to ``allowed`` minus ``blocked``.

    An allowed path inside another one, or inside a blocked path, adds nothing and is left
    out; a blocked path below a root becomes a pattern anchored at that root (blocked patterns
    apply to every root); a blocked path outside every root needs none.
    """
    blocked_real = sorted({_real(path) for path in blocked})
    roots = sorted({_real(path) for path in allowed})
    roots = [root for root in roots if not any(_inside(root, block) for block in blocked_real)]
    roots = [root for root in roots if not any(other != root and _inside(root, other) for other in roots)]
    if not roots:
        raise ValueError("every allowed path is inside a blocked path: nothing is left to work in")
    patterns: list[str] = []
    for block in blocked_real:
        for root in roots:
            if _inside(block, root):
                patterns.append(_anchored_pattern(block.relative_to(root).as_posix()))
    return [str(root) for root in roots], sorted(set(patterns))


def _absolute(path: PathLike, base: Optional[PathLike] = None) -> str:
    """``path`` made absolute against ``base`` or the current directory, as GAIA's ``open`` sees it.

    Nothing is normalised or resolved here: ``..`` and symlinks are the toolkit's to judge.
    """
    text = os.fspath(path)
    if os.path.isabs(text):
        return text
    anchor = os.getcwd() if base is None else os.fspath(base)
    if not os.path.isabs(anchor):
        anchor = os.path.join(os.getcwd(), anchor)
    return os.path.join(anchor, text)


class PathValidator:
    """GAIA's ``PathValidator`` (``gaia.security``): the allowed and blocked paths of an agent.

    ``allowed_paths`` are folders, the current directory by default (each must exist: a missing
    one is reported by every tool); ``blocked_paths`` are folders or files below them that no
    tool may touch (``~`` is expanded). Both are sets of resolved paths that
    may be changed later (``add_allowed_path``, ``allowed_paths.add``); the toolkit is reopened
    on the next call when they change, which forgets what was read before (the staleness guard
    then protects writes from the next read on).

    Other keyword arguments are :class:`editkit.Toolkit` options (``read_only``,
    ``durability``, ``state_dir``, ``max_read_bytes``...). Defaults differ from the toolkit's
    in two places, to match GAIA's results: whole diffs (``full_diffs=True``) and no post-write
    checker runs (``diagnostics="off"``), since GAIA reports none.
    """

    def __init__(
        self,
        allowed_paths: Optional[Iterable[PathLike]] = None,
        blocked_paths: Optional[Iterable[PathLike]] = None,
        **toolkit_options: Any,
    ) -> None:
        allowed = list(allowed_paths) if allowed_paths else [os.getcwd()]
        self.allowed_paths: set[Path] = {_real(path) for path in allowed}
        self.blocked_paths: set[Path] = {_real(path) for path in blocked_paths or ()}
        self._options: dict[str, Any] = {"full_diffs": True, "diagnostics": "off", **toolkit_options}
        self._toolkit: Optional[editkit.Toolkit] = None
        self._layout_key: Optional[tuple[frozenset[Any], frozenset[Any]]] = None

    @property
    def toolkit(self) -> editkit.Toolkit:
        """The toolkit confined to the allowed paths minus the blocked ones.

        Raises ``ValueError`` when nothing is left to work in and ``editkit.EditkitError`` when a
        root cannot be opened (an allowed path that does not exist).
        """
        key = (frozenset(self.allowed_paths), frozenset(self.blocked_paths))
        if self._toolkit is None or key != self._layout_key:
            roots, patterns = _toolkit_layout(self.allowed_paths, self.blocked_paths)
            self._toolkit = editkit.Toolkit(roots, blocked=patterns, **self._options)
            self._layout_key = key
        return self._toolkit

    def add_allowed_path(self, path: PathLike) -> None:
        """Allows the folder ``path`` from now on."""
        self.allowed_paths.add(_real(path))

    def is_path_allowed(self, path: PathLike, prompt_user: bool = True) -> bool:
        """Whether the tools may use ``path`` (relative to the current directory).

        Asked of the toolkit, so the answer is the one a tool call would get. ``prompt_user`` is
        accepted for GAIA's signature and ignored: a path outside is refused, never prompted for.
        """
        del prompt_user
        try:
            answer = self.toolkit.call("exists", {"path": _absolute(path)})
        except (ValueError, editkit.EditkitError):
            return False
        return bool(answer.get("ok"))

    def __repr__(self) -> str:
        allowed = ", ".join(sorted(map(str, self.allowed_paths)))
        blocked = ", ".join(sorted(map(str, self.blocked_paths)))
        return f"PathValidator(allowed_paths=[{allowed}], blocked_paths=[{blocked}])"


# ------------------------------------------------------------------------------------------------
# Results: editkit's contract objects in GAIA's shapes.


def _syntax_error_text(error: Mapping[str, Any]) -> str:
    """One syntax error as GAIA words them (its validators answer strings)."""
    return f"Syntax error at line {error.get('line')}, column {error.get('column')}: {error.get('message')}"


def _failure(text: str, error: Optional[Mapping[str, Any]] = None, **fields: Any) -> dict[str, Any]:
    """GAIA's error dict, with editkit's kind and details when the toolkit refused."""
    result: dict[str, Any] = {"status": "error", "error": text}
    if error is not None:
        result["error_kind"] = error.get("kind")
        result["details"] = {key: value for key, value in error.items() if key not in ("kind", "message")}
        if error.get("kind") == "syntax_error":
            result["syntax_errors"] = [_syntax_error_text(item) for item in error.get("syntax_errors", ())]
    result.update(fields)
    return result


def _refusal(
    error: Mapping[str, Any],
    shown: str,
    *,
    text_missing: str = "Content to replace not found in file",
    syntax: str = "Invalid Python syntax",
) -> dict[str, Any]:
    """The error dict for a toolkit refusal about ``shown`` (the path as the caller gave it)."""
    kind = error.get("kind")
    message = str(error.get("message", ""))
    if kind == "outside_workspace":
        text = f"Access denied: {shown} is not in allowed paths"
    elif kind == "blocked":
        text = f"Access denied: {shown} is blocked ({message})"
    elif kind == "syntax_error":
        text = syntax
    elif kind == "not_found" and "closest" in error:
        text = f"{text_missing}: {message}"
    elif kind == "not_found" and "available" in error:
        text = message
    elif kind == "not_found":
        text = f"File not found: {shown}"
    else:
        text = message
    return _failure(text, error)


def _extension(path: str) -> str:
    """The lower-case extension of ``path`` with its dot (``""`` when none), as GAIA detects types."""
    return os.path.splitext(path)[1].lower()


def _suffix_type(path: str) -> str:
    """GAIA's ``file_type`` of ``write_file``/``edit_file``: the suffix without its dot, or ``unknown``."""
    suffix = Path(path).suffix
    return suffix[1:] if suffix else "unknown"


def _symbol_type(kind: str) -> Optional[str]:
    """GAIA's symbol ``type`` (``function`` or ``class``) for an editkit symbol kind."""
    if kind == "class":
        return "class"
    if kind in ("function", "async_function", "method"):
        return "function"
    return None


def _structure_text(structure: Union[Mapping[str, Any], str]) -> str:
    """GAIA's rendering of a project structure: nested names indented two spaces, ``name - note``."""
    if isinstance(structure, str):
        return structure

    def lines(node: Mapping[str, Any], indent: str) -> Iterable[str]:
        for key, value in node.items():
            if isinstance(value, Mapping):
                yield f"{indent}{key}"
                yield from lines(value, indent + "  ")
            else:
                yield f"{indent}{key} - {value}"

    return "\n".join(lines(structure, ""))


# ------------------------------------------------------------------------------------------------
# The mixin.


class FileIOToolsMixin:
    """GAIA's file I/O tools for code agents: read, write, edit, search and diff, backed by editkit.

    The host sets ``self.path_validator`` (a :class:`PathValidator`) before the tools run and
    calls :meth:`register_file_io_tools` to register them with the ``@tool`` registry. Each
    tool is also a method (``agent.read_file(path)``). A host without a validator gets GAIA's
    answers: write tools refuse (``UNCONFINED_WRITE_ERROR``), read tools raise
    :class:`MissingHostAttributeError`. When the host has a ``console`` (GAIA's
    ``AgentConsole``), ``write_file`` and ``edit_file`` show what they wrote there, as in GAIA.
    """

    path_validator: PathValidator

    # -- plumbing ---------------------------------------------------------------------------------

    def register_file_io_tools(self) -> list[str]:
        """Registers every file I/O tool with the ``@tool`` registry and returns their names.

        The registered functions are this object's bound methods. GAIA's returned list leaves
        out ``write_file`` and ``edit_file`` although it registers them; this one names all ten.
        """
        for name in TOOL_NAMES:
            tool(getattr(self, name))
        return list(TOOL_NAMES)

    def _validator_for_read(self) -> PathValidator:
        validator = getattr(self, "path_validator", None)
        if validator is None:
            raise MissingHostAttributeError(
                f"{type(self).__name__} uses FileIOToolsMixin but has no path_validator. {_HOST_HINT}"
            )
        return validator

    def _call(self, tool_name: str, args: Mapping[str, Any], *, write: bool) -> dict[str, Any]:
        """Runs an editkit tool and returns its contract object.

        Without a toolkit to run it on (no validator, nothing allowed, a root that cannot be
        opened) the answer is ``{"ok": False, "gaia": <GAIA's error dict>}``.
        """
        validator = getattr(self, "path_validator", None)
        if validator is None:
            if write:
                return {"ok": False, "gaia": _failure(UNCONFINED_WRITE_ERROR)}
            validator = self._validator_for_read()
        try:
            toolkit = validator.toolkit
        except ValueError as refused:
            return {"ok": False, "gaia": _failure(str(refused))}
        except editkit.EditkitError as refused:
            return {"ok": False, "gaia": _failure(refused.message, refused.to_dict())}
        return toolkit.call(tool_name, dict(args))

    @staticmethod
    def _failed(answer: Mapping[str, Any], shown: str, **wording: str) -> dict[str, Any]:
        """The error dict for a call that did not succeed."""
        if "gaia" in answer:
            return dict(answer["gaia"])
        return _refusal(answer.get("error") or {}, shown, **wording)

    def _show_write(self, path: str, content: str) -> None:
        console = getattr(self, "console", None)
        if console is None:
            return
        if content.strip():
            console.print_prompt(content, title=f"✏️ write_file → {path}")
        else:
            console.print_info(f"write_file: {path} was created but no content was written.")

    def _show_edit(self, path: str, diff: str) -> None:
        console = getattr(self, "console", None)
        if console is None:
            return
        if diff.strip():
            console.print_diff(diff, os.path.basename(path))
        else:
            console.print_info(f"edit_file: No changes were made to {path}")

    # -- the tools --------------------------------------------------------------------------------

    def read_file(self, file_path: str) -> dict[str, Any]:
        """Read any file and intelligently analyze based on file type.

        Automatically detects file type and provides appropriate analysis:
        - Python files (.py): Syntax validation + symbol extraction (functions/classes)
        - Markdown files (.md): Headers + code blocks + links
        - Other text files: Raw content

        Args:
            file_path: Path to the file to read

        Returns:
            Dictionary with file content and type-specific metadata: ``status``, ``file_path``,
            ``content``, ``file_type``, ``line_count``, ``size_bytes`` (on disk) and ``sha256``;
            for ``.py`` also ``is_valid``, ``errors`` and, when valid, ``symbols``; for ``.md``
            ``headers``, ``code_blocks`` and ``links``; for binary or undecodable files
            ``is_binary`` and a placeholder ``content``.
        """
        path = _absolute(file_path)
        extension = _extension(file_path)
        answer = self._call(
            "read_file", {"path": path, "include_symbols": extension in (".py", ".md")}, write=False
        )
        if not answer.get("ok"):
            error = answer.get("error") or {}
            if error.get("kind") in ("not_utf8", "utf16"):
                info = self._call("file_info", {"path": path}, write=False)
                if info.get("ok"):
                    return self._binary(file_path, int(info["size_bytes"]))
            return self._failed(answer, file_path)
        if answer["is_binary"]:
            return self._binary(file_path, int(answer["size_bytes"]))
        result: dict[str, Any] = {
            "status": "success",
            "file_path": file_path,
            "content": answer["content"],
            "line_count": answer["line_count"],
            "size_bytes": answer["size_bytes"],
            "sha256": answer["sha256"],
        }
        if extension == ".py":
            result["file_type"] = "python"
            result["is_valid"] = bool(answer.get("is_valid"))
            result["errors"] = [_syntax_error_text(error) for error in answer.get("errors", ())]
            if result["is_valid"]:
                result["symbols"] = [
                    {
                        "name": symbol["name"],
                        "type": _symbol_type(symbol["kind"]),
                        "line": symbol["line"],
                        "end_line": symbol.get("end_line"),
                        "parent": symbol.get("parent"),
                    }
                    for symbol in answer.get("symbols", ())
                    if _symbol_type(symbol["kind"]) is not None
                ]
        elif extension == ".md":
            result["file_type"] = "markdown"
            result["headers"] = [header["text"] for header in answer.get("headers", ())]
            result["code_blocks"] = [
                {"language": block.get("language") or "", "code": block["code"]}
                for block in answer.get("code_blocks", ())
            ]
            result["links"] = [{"text": link["text"], "url": link["url"]} for link in answer.get("links", ())]
        else:
            result["file_type"] = extension[1:] if extension else "text"
        return result

    @staticmethod
    def _binary(file_path: str, size: int) -> dict[str, Any]:
        return {
            "status": "success",
            "file_path": file_path,
            "file_type": "binary",
            "content": f"[Binary file, {size} bytes]",
            "is_binary": True,
            "size_bytes": size,
        }

    def write_python_file(
        self,
        file_path: str,
        content: str,
        validate: bool = True,
        create_dirs: bool = True,
    ) -> dict[str, Any]:
        """Write Python code to a file.

        Args:
            file_path: Path where to write the file
            content: Python code content
            validate: Whether to validate syntax before writing
            create_dirs: Whether to create parent directories

        Returns:
            Dictionary with write operation results: ``status``, ``file_path``,
            ``bytes_written``, ``line_count``; refused for invalid syntax with
            ``error: "Invalid Python syntax"`` and ``syntax_errors`` (nothing is written).
        """
        args = {
            "path": _absolute(file_path),
            "content": content,
            "validate": validate,
            "create_dirs": create_dirs,
        }
        answer = self._call("write_python_file", args, write=True)
        if not answer.get("ok"):
            return self._failed(answer, file_path)
        return {
            "status": "success",
            "file_path": file_path,
            "bytes_written": answer["bytes_written"],
            "line_count": answer["line_count"],
            "sha256": answer["sha256"],
        }

    def edit_python_file(
        self,
        file_path: str,
        old_content: str,
        new_content: str,
        backup: bool = True,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """Edit a Python file by replacing content.

        Args:
            file_path: Path to the file to edit
            old_content: Content to find and replace
            new_content: New content to insert
            backup: Whether to create a backup
            dry_run: Whether to only simulate the edit

        Returns:
            Dictionary with edit operation results: ``status``, ``file_path``, ``diff``,
            ``backup_created`` and ``backup_path``; on a dry run ``dry_run: True``, ``diff`` and
            ``would_change``. An edit that would add syntax errors is refused with
            ``error: "Edit would result in invalid Python syntax"`` and ``syntax_errors``.
        """
        args = {
            "path": _absolute(file_path),
            "old_string": old_content,
            "new_string": new_content,
            "backup": backup,
            "dry_run": dry_run,
        }
        answer = self._call("edit_python_file", args, write=not dry_run)
        if not answer.get("ok"):
            if (answer.get("error") or {}).get("kind") == "no_change":
                # GAIA answers an edit that changes nothing as a success that changed nothing.
                if dry_run:
                    return {"status": "success", "dry_run": True, "diff": "", "would_change": False}
                return {
                    "status": "success",
                    "file_path": file_path,
                    "diff": "",
                    "backup_created": False,
                    "backup_path": None,
                }
            return self._failed(answer, file_path, syntax="Edit would result in invalid Python syntax")
        if dry_run:
            return {
                "status": "success",
                "dry_run": True,
                "diff": answer["diff"],
                "would_change": answer["would_change"],
                "match_rung": answer["rung"],
            }
        return {
            "status": "success",
            "file_path": file_path,
            "diff": answer["diff"],
            "backup_created": bool(backup),
            "backup_path": answer.get("backup_path"),
            "match_rung": answer["rung"],
            "sha256": answer["sha256"],
        }

    def search_code(
        self,
        directory: str = ".",
        pattern: str = "",
        file_extension: str = ".py",
        max_results: int = 100,
    ) -> dict[str, Any]:
        """Search for patterns in code files.

        Args:
            directory: Directory to search in
            pattern: Pattern to search for (a literal, case-sensitive substring)
            file_extension: File extension to filter
            max_results: Maximum number of results (files; each lists at most 10 lines)

        Returns:
            Dictionary with search results: ``status``, ``pattern``, ``directory``,
            ``files_searched``, ``files_with_matches`` and ``results``, a list of
            ``{"file": path relative to directory, "matches": [{"line", "content"}]}``, plus
            ``truncated`` when the result bound cut the search short.
        """
        wanted = max(0, max_results)
        args: dict[str, Any] = {
            "path": _absolute(directory),
            "pattern": pattern,
            "regex": False,
            "case_sensitive": True,
            "max_results": wanted * MATCHES_PER_FILE,
        }
        if file_extension:
            args["file_extension"] = file_extension
        else:
            args["glob"] = "**"
        while True:
            answer = self._call("search_code", args, write=False)
            if not answer.get("ok"):
                return self._failed(answer, directory)
            cut_short = self._search_cut_short(answer, wanted, args["max_results"])
            if not cut_short or args["max_results"] >= SEARCH_LINES_BOUND:
                break
            # A file with many matching lines used up the bound: ask for more lines.
            args["max_results"] = min(args["max_results"] * 4, SEARCH_LINES_BOUND)
        searched = answer["directory"]
        results: list[dict[str, Any]] = []
        for found in answer["results"][:wanted]:
            relative = found["file"] if searched in (".", "") else posixpath.relpath(found["file"], searched)
            matches = [{"line": hit["line"], "content": hit["content"].strip()} for hit in found["matches"]]
            results.append({"file": relative, "matches": matches[:MATCHES_PER_FILE]})
        return {
            "status": "success",
            "pattern": pattern,
            "directory": directory,
            "files_searched": answer["files_searched"],
            "files_with_matches": min(answer["files_with_matches"], wanted),
            "results": results,
            "truncated": cut_short or answer["files_with_matches"] > len(results),
        }

    @staticmethod
    def _search_cut_short(answer: Mapping[str, Any], wanted: int, lines: int) -> bool:
        """Whether the bound of ``lines`` matching lines cut one of the first ``wanted`` files'
        first ten matching lines short (so that asking for more lines shows more)."""
        found = answer["results"]
        if not answer["truncated"] or sum(len(file["matches"]) for file in found) < lines:
            return False  # not cut, or cut by another bound than the lines'
        if len(found) > wanted:
            return False  # the files shown are followed by another: they are whole
        if len(found) < min(wanted, answer["files_with_matches"]):
            return True
        return bool(found) and len(found[-1]["matches"]) < MATCHES_PER_FILE

    def generate_diff(self, file_path: str, new_content: str, context_lines: int = 3) -> dict[str, Any]:
        """Generate a unified diff for a file.

        Args:
            file_path: Path to the original file (a missing file diffs against empty)
            new_content: New content to compare
            context_lines: Number of context lines in diff

        Returns:
            Dictionary with diff information: ``status``, ``file_path``, ``diff``,
            ``additions``, ``deletions`` and ``has_changes``.
        """
        args = {"path": _absolute(file_path), "new_content": new_content, "context_lines": context_lines}
        answer = self._call("generate_diff", args, write=False)
        if not answer.get("ok"):
            return self._failed(answer, file_path)
        return {
            "status": "success",
            "file_path": file_path,
            "diff": answer["diff"],
            "additions": answer["additions"],
            "deletions": answer["deletions"],
            "has_changes": answer["has_changes"],
        }

    def write_markdown_file(self, file_path: str, content: str, create_dirs: bool = True) -> dict[str, Any]:
        """Write content to a markdown file.

        Args:
            file_path: Path where to write the file
            content: Markdown content
            create_dirs: Whether to create parent directories

        Returns:
            Dictionary with write operation results: ``status``, ``file_path``,
            ``bytes_written`` (also as ``size_bytes``) and ``line_count``.
        """
        args = {"path": _absolute(file_path), "content": content, "create_dirs": create_dirs}
        answer = self._call("write_markdown_file", args, write=True)
        if not answer.get("ok"):
            return self._failed(answer, file_path)
        return {
            "status": "success",
            "file_path": file_path,
            "bytes_written": answer["size_bytes"],
            "size_bytes": answer["size_bytes"],
            "line_count": len(content.splitlines()),
            "sha256": answer["sha256"],
        }

    def write_file(
        self,
        file_path: str,
        content: str,
        create_dirs: bool = True,
        project_dir: Optional[str] = None,
    ) -> dict[str, Any]:
        """Write content to any file (TypeScript, JavaScript, JSON, etc.) without syntax validation.

        Use this tool for non-Python files like .tsx, .ts, .js, .json, etc.

        Args:
            file_path: Path where to write the file
            content: Content to write to the file
            create_dirs: Whether to create parent directories if they don't exist
            project_dir: Project root directory for resolving relative paths

        Returns:
            dict: ``status``, ``file_path`` (resolved), ``size_bytes`` and ``file_type`` (the
            suffix, or ``unknown``).
        """
        path = _absolute(file_path, project_dir)
        answer = self._call(
            "write_file", {"path": path, "content": content, "create_dirs": create_dirs}, write=True
        )
        if not answer.get("ok"):
            return self._failed(answer, file_path)
        resolved = str(Path(path).resolve())
        self._show_write(resolved, content)
        return {
            "status": "success",
            "file_path": resolved,
            "size_bytes": answer["size_bytes"],
            "file_type": _suffix_type(resolved),
            "sha256": answer["sha256"],
        }

    def edit_file(
        self,
        file_path: str,
        old_content: str,
        new_content: str,
        project_dir: Optional[str] = None,
    ) -> dict[str, Any]:
        """Edit any file by replacing old content with new content (no syntax validation).

        Use this tool for non-Python files like .tsx, .ts, .js, .json, etc.

        Args:
            file_path: Path to the file to edit
            old_content: Exact content to find and replace
            new_content: New content to replace with
            project_dir: Project root directory for resolving relative paths

        Returns:
            dict: ``status``, ``file_path`` (resolved), ``old_size``, ``new_size`` (bytes),
            ``file_type``, ``diff`` and ``backup_path`` (the previous content, kept for undo).
        """
        path = _absolute(file_path, project_dir)
        args = {"path": path, "old_string": old_content, "new_string": new_content, "backup": True}
        answer = self._call("edit_file", args, write=True)
        resolved = str(Path(path).resolve())
        if not answer.get("ok"):
            if (answer.get("error") or {}).get("kind") == "no_change":
                self._show_edit(resolved, "")
                size = self._size(path)
                return {
                    "status": "success",
                    "file_path": resolved,
                    "old_size": size,
                    "new_size": size,
                    "file_type": _suffix_type(resolved),
                    "diff": "",
                }
            return self._failed(
                answer, file_path, text_missing=f"Content to replace not found in {file_path}"
            )
        self._show_edit(resolved, answer["diff"])
        return {
            "status": "success",
            "file_path": resolved,
            "old_size": answer["old_size"],
            "new_size": answer["new_size"],
            "file_type": _suffix_type(resolved),
            "diff": answer["diff"],
            "backup_path": answer.get("backup_path"),
            "match_rung": answer["rung"],
            "sha256": answer["sha256"],
        }

    def _size(self, path: str) -> Optional[int]:
        info = self._call("file_info", {"path": path}, write=False)
        return int(info["size_bytes"]) if info.get("ok") else None

    def update_gaia_md(
        self,
        project_root: str = ".",
        project_name: Optional[str] = None,
        description: Optional[str] = None,
        structure: Optional[Union[dict[str, Any], str]] = None,
        instructions: Optional[str] = None,
    ) -> dict[str, Any]:
        """Create or update GAIA.md file for project context.

        Args:
            project_root: Root directory of the project
            project_name: Name of the project (the title)
            description: Project description (the Description section)
            structure: Project structure dictionary, or its text (the Structure section)
            instructions: Special instructions for GAIA (the Instructions section)

        Returns:
            Dictionary with update results: ``status``, ``file_path``, ``created``,
            ``message`` and ``updated_sections``. At least one of the four is needed.
        """
        gaia_path = os.path.join(project_root, "GAIA.md")
        args: dict[str, Any] = {"project_root": _absolute(project_root), "file": "GAIA.md"}
        if project_name:
            args["project_name"] = project_name
        if description:
            args["description"] = description
        if structure:
            args["structure"] = f"```\n{_structure_text(structure)}\n```"
        if instructions:
            args["instructions"] = instructions
        answer = self._call("update_project_index", args, write=True)
        if not answer.get("ok"):
            return self._failed(answer, gaia_path)
        created = bool(answer["created"])
        return {
            "status": "success",
            "file_path": gaia_path,
            "created": created,
            "message": f"GAIA.md {'created' if created else 'updated'} at {gaia_path}",
            "updated_sections": list(answer["updated_sections"]),
        }

    def replace_function(
        self,
        file_path: str,
        function_name: str,
        new_implementation: str,
        backup: bool = True,
    ) -> dict[str, Any]:
        """Replace a specific function in a Python file.

        Args:
            file_path: Path to the Python file
            function_name: Name of the function to replace (``func`` or ``Class.method``)
            new_implementation: New function implementation
            backup: Whether to create backup

        Returns:
            Dictionary with replacement result: ``status``, ``file_path``,
            ``function_replaced``, ``backup_path`` (``None`` without backup) and ``diff``.
        """
        args = {
            "path": _absolute(file_path),
            "function_name": function_name,
            "new_implementation": new_implementation,
            "backup": backup,
        }
        answer = self._call("replace_function", args, write=True)
        if not answer.get("ok"):
            error = answer.get("error") or {}
            if error.get("kind") == "not_found" and "available" in error:
                return _failure(
                    f"Function '{function_name}' not found in file: {error.get('message')}", error
                )
            return self._failed(answer, file_path, syntax="Replacement would result in invalid syntax")
        return {
            "status": "success",
            "file_path": file_path,
            "function_replaced": answer["function_replaced"],
            "backup_path": answer.get("backup_path") if backup else None,
            "diff": answer["diff"],
            "sha256": answer["sha256"],
        }
