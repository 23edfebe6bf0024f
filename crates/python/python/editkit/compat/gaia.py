r"""GAIA's ``FileIOToolsMixin`` (``gaia.agents.tools.file_io_tools``), backed by editkit.

The ten file tools of the AMD GAIA code agent, with the interface GAIA documents (its
``docs/spec/file-io-tools-mixin.mdx``): the same method names, parameters and defaults, the same
``{"status": "success", ...}`` / ``{"status": "error", "error": ...}`` dicts and messages, and
the same host contract (a class mixes ``FileIOToolsMixin`` in, sets ``self.path_validator`` and
calls ``register_file_io_tools()``, which registers each tool with the ``@tool`` registry).
Every read, write, match, diff and path decision is made by an
:class:`editkit.Toolkit` whose roots are the validator's ``allowed_paths`` and whose blocked
patterns are GAIA's write-deny list (``gaia.security``: shell startup files, credential and key
names and extensions, autostart and git folders, system and credential folders) plus the
validator's ``blocked_paths``; this module only translates arguments and results, in GAIA's
words. Whether Python source is valid is GAIA's judgement, CPython's ``ast.parse`` (in this
process: nothing is run), for ``read_file``, ``write_python_file``, ``edit_python_file`` (of the
whole edited text) and ``replace_function`` (of the file).

The validator is this module's :class:`PathValidator` or GAIA's own
(``gaia.security.PathValidator``): of any other object only ``allowed_paths`` (and
``blocked_paths`` or ``withheld_paths`` when it has them) is read, and the toolkit built from it
is kept until they change.

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

When GAIA itself is installed, ``tool``, ``_TOOL_REGISTRY`` and ``MissingHostAttributeError`` are
GAIA's own (``gaia.agents.base``), so a GAIA ``Agent`` finds the tools where it looks for them;
otherwise this module keeps a registry of the same shape.

As in GAIA, relative paths resolve against the current directory (``write_file`` and
``edit_file``: against ``project_dir`` when given), paths in results are echoed as given
(``write_file`` and ``edit_file``: resolved), ``read_file`` gives the text with LF line endings
and a UTF-8 BOM as ``\ufeff`` (``size_bytes`` and ``line_count`` are those of that text),
``edit_file`` sizes are characters, the write tools' sizes are the content's UTF-8 bytes, and
diffs are ``difflib``'s of the text before and after (editkit's own hunks, laid out as GAIA's,
only when the file changed between the two). Results carry a few fields GAIA lacks (``sha256``,
``match_rung``, ``truncated``, a symbol's ``end_line`` and ``parent``, ``updated_sections``; on a
refusal ``error_kind``, ``detail``, editkit's own explanation, and ``details``); of GAIA's only
the write tools' ``backup_path`` is missing (see Backups).

Where this adapter differs from the original because it is deliberately safer (each row has a
test and says why; it does not differ otherwise):

| Situation | GAIA's ``FileIOToolsMixin`` | This adapter | Why it is safer |
|---|---|---|---|
| ``old_content`` occurs several times (``edit_file``, ``edit_python_file``) | replaces the first occurrence | refuses, listing the lines of every candidate; nothing written | the first of several places is a guess, and a wrong guess edits the wrong code silently |
| The file changed on disk since the agent's ``read_file`` | overwrites the other change | refuses the write or edit as stale (``error_kind: "stale"``); read again | another writer's change is never lost to a write made from an old read |
| ``old_content`` differs from the file only in whitespace or indentation, typographic quotes or dashes (``“ ” ’ – —``) or non-breaking spaces, or has its quotes backslash-escaped | "Content to replace not found" | edits the one region it matches (``match_rung``: ``line_trimmed``, ``whitespace_normalised``, ``unicode_normalised``, ``escape_normalised``...), refusing when more than one region matches; the new text is written as given, so a hyphen in it replaces the en dash the file had. Another ASCII quote (``'`` for ``"``) is not drift: not found, as in GAIA | a refused near-copy sends the agent to rewrite the whole file from memory; one unambiguous region is the smaller risk |
| The same edit is sent twice | second call: "Content to replace not found" | refused as already applied, naming the line; the file is not touched | the agent learns its edit already landed, instead of retrying with a looser ``old_content`` |
| A file with CRLF or mixed line endings or a UTF-8 BOM is edited | rewritten in text mode (line endings become the platform's); a ``.py`` file with a BOM cannot be edited at all (``ast`` rejects U+FEFF: every edit "would result in invalid Python syntax", ``replace_function`` "File has syntax errors") and ``read_file`` calls it invalid | every untouched byte kept: endings, BOM, and the edited lines take the file's endings; a BOM ``.py`` file parses, with its symbols | an edit changes only the text it names, never every line's ending |
| A path leads out of the allowed paths (``..``, a symlink out, an absolute path elsewhere, a sibling sharing the prefix such as ``/work/app-old`` for ``/work/app``) | string-prefix check on the resolved path; anything else prompts on the terminal (as does overwriting a file) and may persist an "always" grant | refused (``Access denied``), checked by capabilities at the moment of use; never prompts | confinement cannot be raced (a link swapped in) nor talked past at a prompt nobody answers |
| GAIA's write-deny list (``.bashrc``, ``.profile``, ``.gitconfig``, ``crontab``... ``credentials.json``, ``secrets.json``, ``id_rsa``... ``*.pem``, ``*.crt``, ``*.cer``... anything in ``.git``, ``.config/autostart``, ``.config/systemd/user``, ``LaunchAgents``..., ``~/.ssh``, ``~/.aws``, ``~/.kube``, ``~/.docker``..., ``/etc``, ``/opt``..., ``~/.gaia``) | the write and edit tools refuse them; ``read_file``, ``search_code`` and ``generate_diff`` read them, and ``is_path_allowed`` allows them | the toolkit refuses them for reads, searches and writes alike (writes in GAIA's words, ``is_path_allowed`` false), as it does the validator's ``blocked_paths`` and editkit's own defaults (``.env.*``, ``.git-credentials``, ``.aws/credentials``, key backups such as ``id_rsa.bak``); a name or extension on the list blocks a folder of that name too; ``~/.gaia`` is blocked whole (GAIA lets writes into its ``documents``, ``chat``, ``screenshots`` and ``eval`` folders); an allowed path inside a write-protected folder is left out, so nothing in it can be read either; a folder blocked below one allowed path is blocked at the same place below every other allowed path | secrets and startup files are neither read into the model's context nor changed |
| An allowed path that is a file, or does not exist | that file, or whatever is created below the folder later, may be used | left out (the toolkit's roots are existing folders); with nothing left every tool answers an error | a path that does not exist yet could be created later as a link to anywhere |
| A write is interrupted (crash, full disk) | file truncated, then written in place: a torn or empty file | temp file renamed over the target and fsynced: the old or the new content, never a mix | a crash never leaves a torn or empty file |
| Backups (``backup=True``, and every overwrite by the write tools) | timestamped copies under ``~/.gaia/cache/backups`` (five per file), named in ``backup_path`` | kept outside the project in editkit's undo history (``undo_edit`` restores); the edit tools name the copy in ``backup_path``, the write tools do not | nothing is written outside the allowed paths, and every change can still be undone |
| An edit whose new text equals the old (``edit_file``, ``edit_python_file``) | rewrites the file (with a backup) | answers the same success without touching the file; ``edit_file``'s sizes then do not count a BOM | a change of nothing never rewrites the file (nor moves its timestamp for other tools) |
| ``replace_function`` with a name defined twice (say two classes' ``run``) | replaces the first ``def`` found anywhere | refuses, listing the lines; ``Class.method`` names one | the first of two definitions is a guess, and a wrong guess replaces the wrong code |
| ``replace_function``: where the function ends, and the new code's indentation | end guessed from indentation up to the next ``def``/``class`` (code in between is lost); the new code pasted as given | the definition's exact span (decorators kept unless the new code brings its own); the new code re-indented to the old one's place | code between the function and the next ``def`` is never lost |
| ``search_code`` of a directory that does not exist, or of a file | zero results | a missing directory is an error (``not_found``); a file is searched | a misspelt path is never answered "no matches", which the agent would take for a fact |
| ``update_gaia_md`` on an existing ``GAIA.md`` | rewrites the whole file: boilerplate, this call's sections only, a new timestamp; hand-written sections and the sections not given this time are dropped | replaces this call's sections and the ``**Last Updated:**`` line in place (inserting a missing one where GAIA puts it) and keeps everything else; a new file is GAIA's, byte for byte | hand-written sections are never dropped |
| Files over 16 MiB (``max_read_bytes``) | read whole into memory | refused (``too_large``, naming the limit) | a huge file cannot exhaust memory or flood the model's context |
| A file with NUL bytes that is valid UTF-8 | read as text; searched by ``search_code`` | read as binary (``[Binary file, N bytes]``); ``search_code`` leaves it out (counted in ``files_searched``, as a file GAIA could not read) | a binary file is never edited as text, which would corrupt it, nor offered to the agent as text to edit |

As GAIA, every file is opened as UTF-8 only: one in another encoding (a legacy code page,
UTF-16), which editkit could read, is binary to ``read_file``, left out by ``search_code`` and,
to the other tools, an error worded as Python's ``UnicodeDecodeError`` (``'utf-8' codec can't
decode byte 0xe9 in position 3: invalid continuation byte``); a read-only file or another
``OSError`` is worded as Python's (``[Errno 13] Permission denied: '…'``). ``search_code`` walks
every folder as ``os.walk`` does, hidden ones and those a ``.gitignore`` names included, follows a
link to a file inside the allowed paths and enters no linked folder; its results are in path
order (``os.walk``'s is the file system's, which nothing fixes).

Where the specification leaves GAIA's code behind, this adapter follows the specification: ``read_file``'s
``file_type`` is one of its four, and ``update_gaia_md`` takes ``structure`` as text too ("``str`` or
``dict``"; GAIA writes an empty ``Project Structure`` block for text).
"""

# The annotations stay evaluated at runtime (no ``from __future__ import annotations``, hence
# ``Optional``/``Union`` on Python 3.9): the ``@tool`` registry reads parameter types from them.
# ruff: noqa: FA100

import ast
import datetime
import difflib
import inspect
import os
import posixpath
import re
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Optional, Union

import editkit
from editkit.compat._utf8 import decode_error

__all__ = [
    "MAX_WRITE_SIZE_BYTES",
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

#: What ``register_file_io_tools`` returns: GAIA's list, which leaves out ``write_file`` and
#: ``edit_file`` although it registers them.
_REGISTERED_NAMES: tuple[str, ...] = tuple(
    name for name in TOOL_NAMES if name not in ("write_file", "edit_file")
)

#: At most this many matching lines per file in ``search_code`` results, as in GAIA.
MATCHES_PER_FILE = 10
#: Most matching lines ``search_code`` asks the toolkit for while filling its files.
SEARCH_LINES_BOUND = 100_000
#: Largest content a write tool writes and largest new text an edit tool inserts, as in GAIA.
MAX_WRITE_SIZE_BYTES = 10 * 1024 * 1024

_HOST_HINT = "Set self.path_validator = <PathValidator instance>."
_HOST_DOC = "docs/spec/file-io-tools-mixin.mdx#host-agent-contract"
#: What a write tool answers when the host never set ``self.path_validator`` (GAIA's wording).
UNCONFINED_WRITE_ERROR = (
    "Write blocked: path confinement is unavailable on this agent (no path_validator configured). "
    f"Refusing to write without a security check. {_HOST_HINT} See {_HOST_DOC} for a worked example."
)
#: What a read tool answers when the host set ``self.path_validator = None`` (GAIA's, from Python).
_NONE_VALIDATOR_ERROR = "'NoneType' object has no attribute 'is_path_allowed'"

try:  # pragma: no cover - depends on whether GAIA is installed
    from gaia.agents.base.errors import MissingHostAttributeError  # type: ignore[import-not-found]
except ImportError:

    class MissingHostAttributeError(RuntimeError):  # type: ignore[no-redef]
        """A read tool ran on a host that never bound ``self.path_validator`` (GAIA's class)."""


def _missing_host_message(host: object) -> str:
    return (
        f"{type(host).__name__} registers FileIOToolsMixin's tools but never binds self.path_validator. "
        f"{_HOST_HINT} See {_HOST_DOC} for a worked example."
    )


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
# GAIA's write-deny list (``gaia.security``, amd-gaia 0.25.1, POSIX): the data and GAIA's words
# for a refusal. The toolkit enforces the list as blocked patterns (see ``_toolkit_layout``);
# the functions below only word a refusal the toolkit made.

_SENSITIVE_FILE_NAMES = frozenset(
    {
        ".env",
        ".env.local",
        ".env.production",
        ".env.development",
        "credentials.json",
        "service_account.json",
        "secrets.json",
        "id_rsa",
        "id_ed25519",
        "id_ecdsa",
        "id_dsa",
        "authorized_keys",
        "known_hosts",
        "shadow",
        "passwd",
        "sudoers",
        "htpasswd",
        ".netrc",
        ".pgpass",
        ".my.cnf",
        "wallet.dat",
        "keystore.jks",
        ".npmrc",
        ".pypirc",
    }
)
_SENSITIVE_EXTENSIONS = frozenset({".pem", ".key", ".crt", ".cer", ".p12", ".pfx", ".jks", ".keystore"})
_STARTUP_EXECUTION_FILE_NAMES = frozenset(
    {
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".bash_aliases",
        ".profile",
        ".zshrc",
        ".zshenv",
        ".zprofile",
        ".zlogin",
        ".zlogout",
        ".kshrc",
        ".cshrc",
        ".tcshrc",
        ".login",
        ".logout",
        ".inputrc",
        "config.fish",
        ".xinitrc",
        ".xprofile",
        ".xsession",
        ".xsessionrc",
        "profile.ps1",
        "microsoft.powershell_profile.ps1",
        "microsoft.vscode_profile.ps1",
        ".gitconfig",
        "gitconfig",
        "crontab",
    }
)
#: Runs of folder names (lower case) anywhere above a file whose contents execute on their own.
_STARTUP_EXECUTION_DIR_MARKERS: tuple[tuple[str, ...], ...] = (
    (".git",),
    (".config", "autostart"),
    (".config", "systemd", "user"),
    ("launchagents",),
    ("launchdaemons",),
    ("windowspowershell",),
)
_SYSTEM_DIRECTORIES = (
    "/bin",
    "/sbin",
    "/usr/bin",
    "/usr/sbin",
    "/usr/lib",
    "/usr/local/bin",
    "/usr/local/sbin",
    "/etc",
    "/boot",
    "/sys",
    "/proc",
    "/dev",
    "/var/run",
    "/var/log",
    "/var/lib",
    "/var/spool",
    "/opt",
    "/Library/LaunchDaemons",
    "/Library/LaunchAgents",
)
_HOME_PROTECTED_DIRECTORIES = (".ssh", ".gnupg", "Library/LaunchAgents")
_HOME_SECRET_DIRECTORIES = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".config/gcloud",
    "AppData/Roaming/gcloud",
)
#: Folders of GAIA's state folder that hold the user's files; writes there are allowed.
_GAIA_STATE_USER_CONTENT = frozenset({"documents", "chat", "screenshots", "eval"})


def _gaia_state_dirs() -> list[str]:
    """``~/.gaia`` and its relocations (``GAIA_CONFIG_DIR``, ``GAIA_HOME``), as GAIA spells them."""
    found = [os.path.join(str(Path.home()), ".gaia")]
    for variable in ("GAIA_CONFIG_DIR", "GAIA_HOME"):
        value = os.environ.get(variable)
        if value:
            found.append(os.path.expandvars(os.path.expanduser(value)))
    return sorted({os.path.normpath(path) for path in found})


def _gaia_protected_dirs() -> list[str]:
    """GAIA's ``BLOCKED_DIRECTORIES``: system folders, ``~/.ssh``... and its state folders."""
    home = str(Path.home())
    found = [*_SYSTEM_DIRECTORIES, *(os.path.join(home, name) for name in _HOME_PROTECTED_DIRECTORIES)]
    return sorted({os.path.normpath(path) for path in found} | set(_gaia_state_dirs()))


def _gaia_secret_dirs() -> list[str]:
    """GAIA's ``SECRET_DIRECTORIES``: the credential folders in the home folder."""
    home = str(Path.home())
    return sorted({os.path.normpath(os.path.join(home, name)) for name in _HOME_SECRET_DIRECTORIES})


def _within(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or below it (both normalised strings), as GAIA compares."""
    prefix = folder if folder.endswith(os.sep) else folder + os.sep
    return path == folder or path.startswith(prefix)


def _gaia_user_content(path: str, state_dir: str) -> bool:
    """Whether ``path`` (inside GAIA's state folder ``state_dir``) is in a user-content folder."""
    relative = path[len(state_dir) :].lstrip("\\/")
    return bool(relative) and relative.replace("\\", "/").split("/", 1)[0].lower() in _GAIA_STATE_USER_CONTENT


def _real_text(path: PathLike) -> str:
    return os.path.realpath(os.path.expanduser(os.fspath(path)))


def _startup_reason(real: Path) -> Optional[str]:
    if real.name.lower() in _STARTUP_EXECUTION_FILE_NAMES:
        return f"'{real.name}' is executed automatically when a shell, login session or git command starts"
    segments = [part.lower() for part in real.parts]
    for marker in _STARTUP_EXECUTION_DIR_MARKERS:
        for start in range(max(0, len(segments) - len(marker))):
            if tuple(segments[start : start + len(marker)]) == marker:
                return (
                    f"'{real}' is inside '{'/'.join(marker)}', whose contents are executed automatically "
                    "at login, on a git operation, or by the session manager"
                )
    return None


def _gaia_write_refusal(path: PathLike) -> Optional[str]:
    """GAIA's ``is_write_blocked`` reason for ``path``, or ``None`` when GAIA lets it be written."""
    real_text = _real_text(path)
    real = Path(real_text)
    norm = os.path.normpath(real_text)
    states = _gaia_state_dirs()
    for folder in _gaia_protected_dirs():
        if _within(norm, folder) and not (folder in states and _gaia_user_content(norm, folder)):
            return f"Write blocked: '{real}' is inside protected directory '{folder}'"
    for folder in _gaia_secret_dirs():
        if _within(norm, folder):
            return (
                f"Write blocked: '{real}' is inside protected directory '{folder}', which holds "
                "credentials and tool configuration. Edit it yourself if you need to."
            )
    if real.name.lower() in _SENSITIVE_FILE_NAMES:
        return (
            f"Write blocked: '{real.name}' is a sensitive file (credentials/keys/secrets). "
            "Writing to it is not allowed."
        )
    if real.suffix.lower() in _SENSITIVE_EXTENSIONS:
        return (
            f"Write blocked: files with extension '{real.suffix.lower()}' are sensitive "
            "(certificates/keys). Writing is not allowed."
        )
    startup = _startup_reason(real)
    if startup:
        return (
            f"Write blocked: {startup}. Writing to it would make the agent's content run on your "
            "machine without you asking. Edit it yourself if that is what you intended."
        )
    return None


def _gaia_read_refusal(path: PathLike) -> Optional[str]:
    """GAIA's ``is_read_blocked`` reason for ``path`` (part of its access-denied wording)."""
    real = Path(_real_text(path))
    if real.name.lower() in _SENSITIVE_FILE_NAMES:
        return (
            f"Read blocked: '{real.name}' holds credentials, keys or secrets. Open it yourself if you "
            "need its contents — the agent is not allowed to read it into the conversation."
        )
    if real.suffix.lower() in _SENSITIVE_EXTENSIONS:
        return (
            f"Read blocked: files with extension '{real.suffix.lower()}' are certificates or private "
            "keys. The agent is not allowed to read them into the conversation."
        )
    for folder in _gaia_secret_dirs():
        if _within(os.path.normpath(str(real)), folder):
            return (
                f"Read blocked: '{real}' is inside '{folder}', which holds credentials. The agent is "
                "not allowed to read from it."
            )
    return None


def _gaia_access_denied(path: str) -> str:
    """GAIA's ``access_denied_message`` for a write outside the allowed paths, on a host that
    cannot prompt (the adapter never does)."""
    real = Path(_real_text(path))
    reason = _gaia_read_refusal(path) or _gaia_write_refusal(path)
    if not reason:
        for temp in sorted({tempfile.gettempdir(), "/tmp", "/var/tmp"}):
            if _within(str(real), os.path.realpath(temp)):
                reason = f"'{real}' is inside the system temp directory '{temp}'"
                break
    if reason:
        remedy = f" No approval can grant it: {reason.rstrip('.')}."
    else:
        remedy = (
            " Attach the file to this session, or start the agent with an allowed_paths list that "
            "covers it. Do not copy, move or convert it to another location to get around this."
        )
    return f"Access denied: '{path}' is not in allowed paths.{remedy}"


# ------------------------------------------------------------------------------------------------
# Paths: the allowed and blocked lists, and GAIA's write-deny list, as a toolkit's roots and
# blocked patterns.


def _real(path: PathLike) -> Path:
    """``path`` with ``~`` expanded, absolute, symlinks resolved (how GAIA stores its lists)."""
    return Path(os.fspath(path)).expanduser().resolve()


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or below it (both resolved)."""
    return path == folder or folder in path.parents


def _escaped(text: str) -> str:
    """``text`` with the ``.gitignore`` metacharacters escaped."""
    return "".join("\\" + char if char in "\\*?[]{}!#" else char for char in text)


def _anchored_pattern(relative: str) -> str:
    """A ``.gitignore`` pattern naming exactly ``relative`` below a root (metacharacters escaped)."""
    escaped = _escaped(relative)
    if escaped.endswith(" "):
        escaped = escaped[:-1] + "\\ "
    return "/" + escaped


def _any_case(name: str) -> str:
    """A ``.gitignore`` glob matching ``name`` in any letter case (GAIA compares lower-cased)."""
    out = []
    for char in name:
        lower, upper = char.lower(), char.upper()
        out.append(
            f"[{lower}{upper}]" if lower != upper and len(lower) == len(upper) == 1 else _escaped(char)
        )
    return "".join(out)


def _gaia_deny_patterns() -> list[str]:
    """GAIA's write-deny names, extensions and folder runs, as patterns for every root."""
    names = sorted(_SENSITIVE_FILE_NAMES | _STARTUP_EXECUTION_FILE_NAMES)
    patterns = [f"**/{_any_case(name)}" for name in names]
    # Path.suffix: the name must have something before the extension's dot.
    patterns += [f"**/?*{_any_case(extension)}" for extension in sorted(_SENSITIVE_EXTENSIONS)]
    patterns += [
        "**/" + "/".join(map(_any_case, marker)) + "/**" for marker in _STARTUP_EXECUTION_DIR_MARKERS
    ]
    return patterns


def _marker_layout(root: Path) -> tuple[bool, list[str]]:
    """Whether GAIA's startup folder runs cover all of ``root`` (a run among its own folders), and
    the anchored patterns for the runs that start above it and end below it."""
    segments = [part.lower() for part in root.parts]
    patterns: list[str] = []
    for marker in _STARTUP_EXECUTION_DIR_MARKERS:
        span = len(marker)
        if any(tuple(segments[start : start + span]) == marker for start in range(len(segments) - span + 1)):
            return True, []
        for overlap in range(1, span):
            if len(segments) >= overlap and tuple(segments[-overlap:]) == marker[:overlap]:
                patterns.append("/" + "/".join(map(_any_case, marker[overlap:])) + "/**")
    return False, patterns


def _toolkit_layout(allowed: Iterable[PathLike], blocked: Iterable[PathLike]) -> tuple[list[str], list[str]]:
    """The roots and blocked patterns that confine a toolkit to ``allowed`` minus ``blocked`` and
    minus GAIA's write-deny list.

    An allowed path that is not an existing folder, that lies inside another one, or inside a
    blocked or write-protected folder, is left out; a blocked folder below a root becomes a pattern
    anchored at that root (blocked patterns apply to every root); one outside every root needs none.
    """
    states = {_real(path) for path in _gaia_state_dirs()}
    walls = {_real(path) for path in blocked}
    walls |= {_real(path) for path in (*_gaia_protected_dirs(), *_gaia_secret_dirs())} - states
    kept = []
    for root in sorted({_real(path) for path in allowed}):
        if not root.is_dir() or any(_inside(root, wall) for wall in walls):
            continue
        if any(_inside(root, state) and not _gaia_user_content(str(root), str(state)) for state in states):
            continue
        if _marker_layout(root)[0]:
            continue
        kept.append(root)
    roots = [root for root in kept if not any(other != root and _inside(root, other) for other in kept)]
    if not roots:
        raise ValueError(
            "no allowed path is left to work in: each is missing, not a folder, or inside a blocked "
            "or write-protected folder"
        )
    patterns = set(_gaia_deny_patterns())
    for wall in walls | states:
        for root in roots:
            if wall != root and _inside(wall, root):
                patterns.add(_anchored_pattern(wall.relative_to(root).as_posix()))
    for root in roots:
        patterns.update(_marker_layout(root)[1])
    return [str(root) for root in roots], sorted(patterns)


#: Toolkit options that differ from editkit's defaults, to match GAIA's results: whole diffs,
#: and no post-write checker runs (GAIA reports none).
# GAIA opens every file as UTF-8 (another encoding is "binary" to ``read_file``, an error to the
# edit tools, skipped by ``search_code``): the toolkit reads UTF-8 only, as GAIA does.
_TOOLKIT_DEFAULTS: dict[str, Any] = {"full_diffs": True, "diagnostics": "off", "detect_encodings": False}


def _open_toolkit(
    allowed: Iterable[PathLike], blocked: Iterable[PathLike], options: Mapping[str, Any]
) -> editkit.Toolkit:
    roots, patterns = _toolkit_layout(allowed, blocked)
    return editkit.Toolkit(roots, blocked=patterns, **{**_TOOLKIT_DEFAULTS, **options})


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
    """GAIA's ``PathValidator`` (``gaia.security``): the allowed paths of an agent, plus the
    blocked paths GAIA's specification shows.

    ``allowed_paths`` are folders, the current directory when not given (an explicit empty list
    allows nothing, as in GAIA); ``blocked_paths`` are folders or files below them that no tool
    may touch (``~`` is expanded). GAIA's write-deny list is blocked as well. Both are sets of
    resolved paths that may be changed later (``add_allowed_path``, ``allowed_paths.add``); the
    toolkit is reopened on the next call when they change, which forgets what was read before
    (the staleness guard then protects writes from the next read on).

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
        allowed = [os.getcwd()] if allowed_paths is None else list(allowed_paths)
        self.allowed_paths: set[Path] = {_real(path) for path in allowed}
        self.blocked_paths: set[Path] = {_real(path) for path in blocked_paths or ()}
        self._options: dict[str, Any] = dict(toolkit_options)
        self._toolkit: Optional[editkit.Toolkit] = None
        self._layout_key: Optional[tuple[frozenset[Any], frozenset[Any]]] = None

    @property
    def toolkit(self) -> editkit.Toolkit:
        """The toolkit confined to the allowed paths minus the blocked ones and GAIA's write-deny list.

        Raises ``ValueError`` when nothing is left to work in.
        """
        key = (frozenset(self.allowed_paths), frozenset(self.blocked_paths))
        if self._toolkit is None or key != self._layout_key:
            self._toolkit = _open_toolkit(self.allowed_paths, self.blocked_paths, self._options)
            self._layout_key = key
        return self._toolkit

    def add_allowed_path(self, path: PathLike) -> None:
        """Allows the folder ``path`` from now on."""
        self.allowed_paths.add(_real(path))

    def is_path_allowed(self, path: PathLike, prompt_user: bool = True) -> bool:
        """Whether the tools may use ``path`` (relative to the current directory).

        Asked of the toolkit, so the answer is the one a tool call would get (a path on GAIA's
        write-deny list is not allowed). ``prompt_user`` is accepted for GAIA's signature and
        ignored: a path outside is refused, never prompted for.
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
# Results: editkit's contract objects in GAIA's shapes and words.


def _syntax_error_text(error: Mapping[str, Any]) -> str:
    """One syntax error in the form of GAIA's ``str(SyntaxError)``."""
    return f"{error.get('message')} (<unknown>, line {error.get('line')})"


def _cpython_errors(text: Optional[str], found: list[str]) -> list[str]:
    """GAIA's syntax errors for ``text``, which editkit found invalid (``found``, its messages):
    CPython's message for the first error, ``str(SyntaxError)`` of ``ast.parse``, when CPython
    finds the text invalid too; editkit's own messages otherwise (or when the text is unknown)."""
    if text is None:
        return found
    try:
        ast.parse(text)
    except SyntaxError as error:
        return [str(error)]
    except (ValueError, RecursionError, MemoryError):
        pass
    return found


def _cpython_verdict(text: str) -> Optional[str]:
    """GAIA's judgement of Python source: ``None`` when CPython's ``ast.parse`` takes it, else
    the ``str()`` of what it raised (a ``SyntaxError``; a ``ValueError`` for a NUL byte)."""
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return str(error)
    return None


def _ast_symbols(text: str) -> list[dict[str, Any]]:
    """GAIA's symbols of source CPython parses: each function and class in ``ast.walk`` order,
    with its ``line``, and this adapter's ``end_line`` and ``parent`` (the dotted names of the
    definitions around it, ``None`` at the top)."""
    parents: dict[ast.AST, Optional[str]] = {}
    symbols = []
    definitions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for node in ast.walk(ast.parse(text)):
        above = parents.get(node)
        here = above
        if isinstance(node, definitions):
            symbols.append(
                {
                    "name": node.name,
                    "type": "class" if isinstance(node, ast.ClassDef) else "function",
                    "line": node.lineno,
                    "end_line": node.end_lineno,
                    "parent": above,
                }
            )
            here = f"{above}.{node.name}" if above else node.name
        for child in ast.iter_child_nodes(node):
            parents[child] = here
    return symbols


def _with_cpython_errors(result: dict[str, Any], text: Optional[str]) -> dict[str, Any]:
    """``result`` (a refusal) with GAIA's ``syntax_errors`` for ``text`` when it has them."""
    if "syntax_errors" in result:
        result["syntax_errors"] = _cpython_errors(text, result["syntax_errors"])
    return result


def _failure(text: str, error: Optional[Mapping[str, Any]] = None, **fields: Any) -> dict[str, Any]:
    """GAIA's error dict, with editkit's kind, explanation and details when the toolkit refused."""
    result: dict[str, Any] = {"status": "error", "error": text}
    if error is not None:
        result["error_kind"] = error.get("kind")
        message = str(error.get("message") or "")
        if message and message not in text:
            result["detail"] = message
        result["details"] = {key: value for key, value in error.items() if key not in ("kind", "message")}
        if error.get("kind") == "syntax_error":
            result["syntax_errors"] = [_syntax_error_text(item) for item in error.get("syntax_errors", ())]
    result.update(fields)
    return result


def _refusal(
    error: Mapping[str, Any],
    shown: str,
    target: str,
    mode: str,
    *,
    text_missing: str = "Content to replace not found in file",
    syntax: str = "Invalid Python syntax",
    toolkit: Any = None,
) -> dict[str, Any]:
    """The error dict for a toolkit refusal about ``shown`` (the path as GAIA words it; ``target``
    is the absolute path). ``mode`` says which of GAIA's checks the tool runs: ``read`` (an
    allowlist check), ``edit`` (write-deny list, then allowlist), ``write`` (``validate_write``)
    or ``index`` (``update_gaia_md``: an allowlist check, then ``open(..., "w")``)."""
    kind = error.get("kind")
    message = str(error.get("message", ""))
    denied = f"Access denied: {shown} is not in allowed paths"
    if kind == "outside_workspace":
        if mode == "write":
            text = _gaia_access_denied(shown)
        elif mode == "edit":
            text = _gaia_write_refusal(target) or denied
        else:
            text = denied
    elif kind == "blocked":
        text = (mode in ("edit", "write") and _gaia_write_refusal(target)) or (
            f"Access denied: {shown} is blocked ({message})"
        )
    elif kind == "syntax_error":
        text = syntax
    elif kind == "not_found" and "closest" in error:
        text = text_missing
    elif kind == "not_found":
        text = (
            f"[Errno 2] No such file or directory: {shown!r}"
            if mode in ("write", "index")
            else (f"File not found: {shown}")
        )
    elif kind == "is_directory":
        text = f"[Errno 21] Is a directory: {shown!r}"
    elif kind == "permission_denied":
        text = f"[Errno 13] Permission denied: {shown!r}"  # a read-only file, as open() says
    elif kind == "io" and re.search(r"\(os error (\d+)\)", message):
        # An OSError, worded as Python's: the errno and its strerror, then the path.
        number = int(re.findall(r"\(os error (\d+)\)", message)[-1])
        text = f"[Errno {number}] {os.strerror(number)}: {shown!r}"
    elif kind in ("not_utf8", "utf16") and toolkit is not None:
        # GAIA opens the file as UTF-8 and answers the UnicodeDecodeError's text.
        text = decode_error(toolkit.call, target) or message
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


#: The specification's Markdown analysis: "Header extraction (# patterns)", "Code block extraction
#: with language tags", "Link extraction ([text](url) patterns)".
_MD_HEADER = re.compile(r"^#{1,6}[ \t]+(.+)$", re.MULTILINE)
_MD_CODE_BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.DOTALL)
_MD_LINK = re.compile(r"\[([^\]]+)\]\(([^)]+)\)")


def _walk_order(text: str) -> Callable[[Mapping[str, Any]], tuple[int, ...]]:
    """A sort key giving editkit's symbols the order of the specification's "full AST parsing":
    ``ast.walk`` of the text, breadth first over the syntax tree (``if``/``try``/``with`` blocks
    count as levels). The text is only parsed to order what editkit found; when CPython cannot
    parse it (a newer grammar), the order is breadth first over the definitions."""
    rank: dict[tuple[int, str], int] = {}
    try:
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                rank.setdefault((node.lineno, node.name), len(rank))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        rank = {}

    def key(symbol: Mapping[str, Any]) -> tuple[int, ...]:
        place = rank.get((symbol["line"], symbol["name"]))
        if place is not None:
            return (0, place)
        parent = symbol.get("parent")
        return (1, 0 if parent is None else parent.count(".") + 1, symbol["line"])

    return key


def _lf_lines(text: str) -> list[str]:
    """``text`` split after each LF (and nowhere else), each line keeping its LF."""
    pieces = text.split("\n")
    lines = [piece + "\n" for piece in pieces[:-1]]
    if pieces[-1]:
        lines.append(pieces[-1])
    return lines


def _difflib_lines(diff: str, from_name: str, to_name: str, lineterm: str) -> list[str]:
    """The toolkit's unified diff as the list ``difflib.unified_diff`` yields for it.

    File headers name ``from_name`` and ``to_name``; header and hunk lines end with
    ``lineterm``; a line without a final newline has none (difflib writes no ``\\ No newline``
    marker). Empty when nothing changed.
    """
    body = _lf_lines(diff)[2:]
    if not body:
        return []
    lines = [f"--- {from_name}{lineterm}", f"+++ {to_name}{lineterm}"]
    for line in body:
        if line.startswith("@@"):
            lines.append(line.rstrip("\n") + lineterm)
        elif line.startswith("\\"):
            lines[-1] = lines[-1].removesuffix("\n")
        else:
            lines.append(line)
    return lines


def _text_of(toolkit: "editkit.Toolkit", path: str) -> Optional[str]:
    """The file's text as the toolkit's diffs show it (LF line breaks, no BOM; ``""`` for a
    missing file), read without arming the staleness guard (the diff that would empty it);
    ``None`` when it cannot be read."""
    answer = toolkit.call("generate_diff", {"path": path, "new_content": ""})
    if not answer.get("ok") or answer.get("diff_truncated"):
        return None
    lines: list[str] = []
    for line in _lf_lines(answer.get("diff", ""))[2:]:
        if line.startswith("-"):
            lines.append(line[1:])
        elif line.startswith("\\") and lines:
            lines[-1] = lines[-1].removesuffix("\n")
        elif not line.startswith("@@"):
            return None
    return "".join(lines)


def _applied(before: str, diff: str) -> Optional[str]:
    """``before`` with the toolkit's unified ``diff`` applied, or ``None`` when the diff does not
    apply to it line for line (the file changed meanwhile, or the diff was cut)."""
    old = _lf_lines(before)
    new: list[str] = []
    cursor = 0
    hunks: list[tuple[int, list[tuple[str, str]]]] = []
    for line in _lf_lines(diff)[2:]:
        if line.startswith("@@"):
            try:
                start, _, length = line.split()[1][1:].partition(",")
                first = int(start) - (0 if length == "0" else 1)
            except (IndexError, ValueError):
                return None
            hunks.append((first, []))
        elif line.startswith("\\") and hunks and hunks[-1][1]:
            tag, text = hunks[-1][1][-1]
            hunks[-1][1][-1] = (tag, text.removesuffix("\n"))
        elif line[:1] in (" ", "-", "+") and hunks:
            hunks[-1][1].append((line[0], line[1:]))
        else:
            return None
    for first, body in hunks:
        removed = [text for tag, text in body if tag != "+"]
        if first < cursor or old[first : first + len(removed)] != removed:
            return None
        new.extend(old[cursor:first])
        new.extend(text for tag, text in body if tag != "-")
        cursor = first + len(removed)
    new.extend(old[cursor:])
    return "".join(new)


def _gaia_diff(
    before: Optional[str], diff: str, from_name: str, to_name: str, lineterm: str, context: int = 3
) -> list[str]:
    """The lines GAIA's ``difflib.unified_diff`` (of ``splitlines(keepends=True)``) yields for the
    change the toolkit's ``diff`` made to ``before``; the toolkit's own hunks, laid out as
    difflib's, when ``before`` is unknown or the diff does not apply to it."""
    after = _applied(before, diff) if before is not None else None
    if before is None or after is None:
        return _difflib_lines(diff, from_name, to_name, lineterm)
    return list(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            from_name,
            to_name,
            n=context,
            lineterm=lineterm,
        )
    )


def _changed_chars(lines: Iterable[str]) -> int:
    """Characters the change adds minus those it removes, from ``_difflib_lines``."""
    total = 0
    for line in list(lines)[2:]:
        if line.startswith("+"):
            total += len(line) - 1
        elif line.startswith("-"):
            total -= len(line) - 1
    return total


def _structure_text(structure: Union[Mapping[str, Any], str]) -> str:
    """GAIA's rendering of a project structure: nested names indented two spaces, ``name - note``,
    each line ending with a newline (a text structure is taken as it is)."""
    if isinstance(structure, str):
        return structure if structure.endswith("\n") else structure + "\n"

    def lines(node: Mapping[str, Any], indent: str) -> Iterable[str]:
        for key, value in node.items():
            if isinstance(value, Mapping):
                yield f"{indent}{key}\n"
                yield from lines(value, indent + "  ")
            else:
                yield f"{indent}{key} - {value}\n"

    return "".join(lines(structure, ""))


# ------------------------------------------------------------------------------------------------
# GAIA.md: GAIA's file as sections, and the in-place update of an existing one.

_GAIA_MD_PREAMBLE = (
    "# GAIA.md\n\nThis file provides guidance to GAIA Code Agent when working with code in this project.\n\n"
)
_GAIA_MD_GUIDELINES = (
    "## Development Guidelines\n"
    "- Follow PEP 8 style guidelines\n"
    "- Add docstrings to all functions and classes\n"
    "- Include type hints where appropriate\n"
    "- Write unit tests for new functionality\n\n"
)
_GAIA_MD_QUALITY = (
    "## Code Quality\n"
    "- All code should pass pylint checks\n"
    "- Use Black formatter for consistent style\n"
    "- Ensure proper error handling\n\n"
)
_LAST_UPDATED = "**Last Updated:**"
#: The sections of GAIA's file, in its order (``updated`` is the ``**Last Updated:**`` line).
_GAIA_MD_ORDER = (
    "title",
    "project",
    "description",
    "updated",
    "structure",
    "instructions",
    "guidelines",
    "quality",
)
_GAIA_MD_HEADINGS = {
    "Description": "description",
    "Project Structure": "structure",
    "Special Instructions": "instructions",
    "Development Guidelines": "guidelines",
    "Code Quality": "quality",
}
_GAIA_MD_NAMES = {
    "project": "Project",
    "description": "Description",
    "structure": "Project Structure",
    "instructions": "Special Instructions",
}


def _gaia_md_sections(
    project_name: Optional[str],
    description: Optional[str],
    structure: Optional[Union[Mapping[str, Any], str]],
    instructions: Optional[str],
) -> list[tuple[str, str]]:
    """GAIA's ``GAIA.md`` for these fields as ``(section, text)`` pairs; joined, GAIA's file."""
    sections = [("title", _GAIA_MD_PREAMBLE)]
    if project_name:
        sections.append(("project", f"## Project: {project_name}\n\n"))
    if description:
        sections.append(("description", f"## Description\n{description}\n\n"))
    sections.append(("updated", f"{_LAST_UPDATED} {datetime.datetime.now().isoformat()}\n\n"))
    if structure:
        sections.append(("structure", f"## Project Structure\n```\n{_structure_text(structure)}```\n\n"))
    if instructions:
        sections.append(("instructions", f"## Special Instructions\n{instructions}\n\n"))
    sections += [("guidelines", _GAIA_MD_GUIDELINES), ("quality", _GAIA_MD_QUALITY)]
    return sections


def _gaia_md_split(read: Mapping[str, Any]) -> list[list[Any]]:
    """An existing index file (a ``read_file`` answer with its Markdown outline) as
    ``[section or None, text]`` pieces that join to its text: one per heading of level 1 or 2
    and per ``**Last Updated:**`` line, the text before them as ``title``."""
    lines = _lf_lines(read["content"])
    fenced: set[int] = set()
    for block in read.get("code_blocks", ()):
        fenced.update(range(block["line"], block["line"] + block["code"].count("\n") + 2))
    cuts: dict[int, Optional[str]] = {}
    for header in read.get("headers", ()):
        if header["level"] == 1:
            cuts[header["line"]] = None
        elif header["level"] == 2:
            text = header["text"].strip()
            cuts[header["line"]] = "project" if text.startswith("Project:") else _GAIA_MD_HEADINGS.get(text)
    for number, line in enumerate(lines, 1):
        if line.startswith(_LAST_UPDATED) and number not in fenced and number not in cuts:
            cuts[number] = "updated"
            after = number + 1
            while after <= len(lines) and not lines[after - 1].strip():
                after += 1
            if after <= len(lines):
                cuts.setdefault(after, None)
    starts = sorted(cuts)
    pieces: list[list[Any]] = [["title", "".join(lines[: starts[0] - 1] if starts else lines)]]
    for index, start in enumerate(starts):
        end = starts[index + 1] - 1 if index + 1 < len(starts) else len(lines)
        pieces.append([cuts[start], "".join(lines[start - 1 : end])])
    if not pieces[0][1].strip() and len(pieces) > 1 and pieces[1][0] is None:
        # A file opening with its level-1 title: that heading's piece is the title.
        pieces[1] = ["title", pieces[0][1] + pieces[1][1]]
        del pieces[0]
    return pieces


def _gaia_md_merge(read: Mapping[str, Any], sections: Mapping[str, str]) -> str:
    """The existing index file with ``sections`` replaced in place, or inserted after the last
    section that comes before them in GAIA's order."""
    pieces = _gaia_md_split(read)
    for name in _GAIA_MD_ORDER:
        if name not in sections:
            continue
        found = next((piece for piece in pieces if piece[0] == name), None)
        if found is not None:
            found[1] = sections[name]
            continue
        rank = _GAIA_MD_ORDER.index(name)
        after = max(
            (
                i
                for i, piece in enumerate(pieces)
                if piece[0] in _GAIA_MD_ORDER and _GAIA_MD_ORDER.index(piece[0]) < rank
            ),
            default=0,
        )
        previous = pieces[after]
        if previous[1] and not previous[1].endswith("\n"):
            previous[1] += "\n"
        if previous[1] and not previous[1].endswith("\n\n"):
            previous[1] += "\n"
        pieces.insert(after + 1, [name, sections[name]])
    return "".join(piece[1] for piece in pieces)


# ------------------------------------------------------------------------------------------------
# The mixin.


class FileIOToolsMixin:
    """GAIA's file I/O tools for code agents: read, write, edit, search and diff, backed by editkit.

    The host sets ``self.path_validator`` (a :class:`PathValidator`, or GAIA's) before the tools
    run and calls :meth:`register_file_io_tools` to register them with the ``@tool`` registry.
    Each tool is also a method (``agent.read_file(path)``). A host without a validator gets
    GAIA's answers: write tools refuse (``UNCONFINED_WRITE_ERROR``), read tools and
    ``update_gaia_md`` raise :class:`MissingHostAttributeError`. When the host has a ``console``
    (GAIA's ``AgentConsole``), ``write_file`` and ``edit_file`` show what they wrote there, as in
    GAIA.
    """

    path_validator: PathValidator

    # -- plumbing ---------------------------------------------------------------------------------

    def register_file_io_tools(self) -> list[str]:
        """Registers every file I/O tool with the ``@tool`` registry and returns GAIA's list of them.

        The registered functions are this object's bound methods. As in GAIA, the returned list
        leaves out ``write_file`` and ``edit_file`` although they are registered too.
        """
        for name in TOOL_NAMES:
            tool(getattr(self, name))
        return list(_REGISTERED_NAMES)

    def _toolkit_for(self, *, write: bool) -> Union[editkit.Toolkit, dict[str, Any]]:
        """The toolkit the validator confines, or GAIA's error dict when there is none to use.

        A host that never bound ``path_validator`` gets ``UNCONFINED_WRITE_ERROR`` from a write
        tool and ``MissingHostAttributeError`` from the others, as in GAIA.
        """
        try:
            validator = self.path_validator
        except AttributeError as missing:
            if write:
                return _failure(UNCONFINED_WRITE_ERROR)
            raise MissingHostAttributeError(_missing_host_message(self)) from missing
        if validator is None:
            return _failure(UNCONFINED_WRITE_ERROR if write else _NONE_VALIDATOR_ERROR)
        try:
            return self._validator_toolkit(validator)
        except ValueError as refused:
            return _failure(str(refused))
        except editkit.EditkitError as refused:
            return _failure(refused.message, refused.to_dict())

    def _validator_toolkit(self, validator: Any) -> editkit.Toolkit:
        """This module's validator's toolkit, or one built (and kept) from GAIA's validator."""
        if isinstance(validator, PathValidator):
            return validator.toolkit
        allowed = getattr(validator, "allowed_paths", None)
        if allowed is None:
            raise ValueError(
                f"path_validator ({type(validator).__name__}) has no allowed_paths to confine the tools to"
            )
        blocked = [
            *(getattr(validator, "blocked_paths", None) or ()),
            *(getattr(validator, "withheld_paths", None) or ()),
        ]
        key = (frozenset(map(str, allowed)), frozenset(map(str, blocked)))
        cache = getattr(self, "__dict__", None)
        kept = cache.get("_editkit_toolkit") if cache is not None else None
        if kept is None or kept[0] != key:
            kept = (key, _open_toolkit(list(allowed), blocked, {}))
            if cache is not None:
                cache["_editkit_toolkit"] = kept
        return kept[1]

    @staticmethod
    def _oversize(
        toolkit: editkit.Toolkit, path: str, shown: str, size: int, mode: str
    ) -> Optional[dict[str, Any]]:
        """GAIA's refusal of content over ``MAX_WRITE_SIZE_BYTES``, after its path checks."""
        if size <= MAX_WRITE_SIZE_BYTES:
            return None
        where = toolkit.call("exists", {"path": path})
        if not where.get("ok"):
            return _refusal(where.get("error") or {}, shown, path, mode, toolkit=toolkit)
        megabytes = size / (1024 * 1024)
        limit = MAX_WRITE_SIZE_BYTES / (1024 * 1024)
        if mode == "write":
            text = (
                f"Write blocked: content size ({megabytes:.1f} MB) exceeds maximum allowed size "
                f"({limit:.0f} MB)"
            )
        else:
            text = (
                f"Edit blocked: replacement content ({megabytes:.1f} MB) exceeds maximum allowed size "
                f"({limit:.0f} MB)"
            )
        return _failure(text)

    @staticmethod
    def _text_present(toolkit: editkit.Toolkit, path: str, old: str) -> Optional[Mapping[str, Any]]:
        """``None`` when ``old`` stands in the file, else the toolkit's refusal (asked with a dry
        run of a replacement that changes something)."""
        answer = toolkit.call(
            "edit_file", {"path": path, "old_string": old, "new_string": old + "\ue000", "dry_run": True}
        )
        error = answer.get("error") or {}
        if answer.get("ok") or error.get("kind") == "ambiguous":
            return None
        return error

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
            ``content`` (LF line endings, a BOM as ``\\ufeff``), ``file_type`` (``python``,
            ``markdown``, ``binary`` or ``text``), ``line_count``,
            ``size_bytes`` (of that text in UTF-8) and ``sha256``; for ``.py`` also ``is_valid``,
            ``errors`` and, when valid, ``symbols``; for ``.md`` ``headers``, ``code_blocks`` and
            ``links``; for binary or undecodable files ``is_binary`` and a placeholder ``content``.
        """
        toolkit = self._toolkit_for(write=False)
        if isinstance(toolkit, dict):
            return toolkit
        path = _absolute(file_path)
        extension = _extension(file_path)
        answer = toolkit.call("read_file", {"path": path, "include_symbols": extension in (".py", ".md")})
        if not answer.get("ok"):
            error = answer.get("error") or {}
            if error.get("kind") in ("not_utf8", "utf16"):
                info = toolkit.call("file_info", {"path": path})
                if info.get("ok"):
                    return self._binary(file_path, int(info["size_bytes"]))
            return _refusal(error, file_path, path, "read", toolkit=toolkit)
        if answer["is_binary"]:
            return self._binary(file_path, int(answer["size_bytes"]))
        content = ("\ufeff" if answer.get("bom") else "") + answer["content"]
        result: dict[str, Any] = {
            "status": "success",
            "file_path": file_path,
            "content": content,
            "line_count": len(content.splitlines()),
            "size_bytes": len(content.encode("utf-8")),
            "sha256": answer["sha256"],
        }
        if extension == ".py":
            result["file_type"] = "python"
            # GAIA's verdict is CPython's (ast.parse of the text, its BOM left out: see the table).
            verdict = _cpython_verdict(answer["content"])
            result["is_valid"] = verdict is None
            result["errors"] = [] if verdict is None else [verdict]
            if result["is_valid"] and not answer.get("is_valid"):
                # CPython takes what editkit's parser does not: the symbols are CPython's too.
                result["symbols"] = _ast_symbols(answer["content"])
            elif result["is_valid"]:
                symbols = [symbol for symbol in answer.get("symbols", ()) if _symbol_type(symbol["kind"])]
                symbols.sort(key=_walk_order(answer["content"]))
                result["symbols"] = [
                    {
                        "name": symbol["name"],
                        "type": _symbol_type(symbol["kind"]),
                        "line": symbol["line"],
                        "end_line": symbol.get("end_line"),
                        "parent": symbol.get("parent"),
                    }
                    for symbol in symbols
                ]
        elif extension == ".md":
            result["file_type"] = "markdown"
            # The specification's "# patterns", "code block extraction with language tags" and
            # "[text](url) patterns", read off the text as it is returned.
            result["headers"] = _MD_HEADER.findall(content)
            result["code_blocks"] = [
                {"language": language, "code": code} for language, code in _MD_CODE_BLOCK.findall(content)
            ]
            result["links"] = [{"text": text, "url": url} for text, url in _MD_LINK.findall(content)]
        else:
            # The specification's four types: any other text file is "text".
            result["file_type"] = "text"
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
        toolkit = self._toolkit_for(write=True)
        if isinstance(toolkit, dict):
            if validate and toolkit.get("error") == UNCONFINED_WRITE_ERROR:
                # GAIA validates the code before it looks for the validator: invalid code on an
                # unconfined host is "Invalid Python syntax" (CPython's judgement: there is no
                # toolkit without roots), and nothing is written either way.
                try:
                    ast.parse(content)
                except SyntaxError as error:
                    return _failure("Invalid Python syntax", syntax_errors=[str(error)])
                except (ValueError, RecursionError, MemoryError):
                    pass
            return toolkit
        if validate:
            # GAIA validates with CPython's ast.parse before anything else.
            verdict = _cpython_verdict(content)
            if verdict is not None:
                return _failure("Invalid Python syntax", syntax_errors=[verdict])
        path = _absolute(file_path)
        refused = self._oversize(toolkit, path, file_path, len(content.encode("utf-8")), "write")
        if refused:
            return refused
        args = {"path": path, "content": content, "validate": False, "create_dirs": create_dirs}
        answer = toolkit.call("write_python_file", args)
        if not answer.get("ok"):
            refused = _refusal(answer.get("error") or {}, file_path, path, "write", toolkit=toolkit)
            return _with_cpython_errors(refused, content)
        return {
            "status": "success",
            "file_path": file_path,
            "bytes_written": answer["bytes_written"],
            "line_count": len(content.splitlines()),
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
        toolkit = self._toolkit_for(write=True)
        if isinstance(toolkit, dict):
            return toolkit
        path = _absolute(file_path)
        refused = self._oversize(toolkit, path, file_path, len(new_content.encode("utf-8")), "edit")
        if refused:
            return refused
        args = {
            "path": path,
            "old_string": old_content,
            "new_string": new_content,
            "backup": backup,
            "dry_run": dry_run,
        }
        before = _text_of(toolkit, path)
        refused, judged = self._cpython_judges(toolkit, path, args, before)
        if refused:
            return refused
        # Judged by CPython, the edit is made without editkit's own syntax check (edit_file).
        answer = toolkit.call("edit_file" if judged else "edit_python_file", args)
        if answer.get("ok") and "would_change" not in answer:
            answer["would_change"] = answer["replacements"] > 0
        if not answer.get("ok"):
            error = answer.get("error") or {}
            if error.get("kind") == "no_change":
                missing = self._text_present(toolkit, path, old_content)
                if missing is not None:
                    return _refusal(missing, file_path, path, "edit", toolkit=toolkit)
                # GAIA answers an edit that changes nothing as a success that changed nothing.
                if dry_run:
                    return {"status": "success", "dry_run": True, "diff": "", "would_change": False}
                return {
                    "status": "success",
                    "file_path": file_path,
                    "diff": "",
                    "backup_created": bool(backup),
                    "backup_path": None,
                }
            # GAIA's edit is the first exact occurrence replaced; the errors are CPython's for that.
            edited = (
                before.replace(old_content, new_content, 1)
                if before is not None and before.count(old_content) == 1
                else None
            )
            return _with_cpython_errors(
                _refusal(
                    error,
                    file_path,
                    path,
                    "edit",
                    syntax="Edit would result in invalid Python syntax",
                    toolkit=toolkit,
                ),
                edited,
            )
        diff = "\n".join(_gaia_diff(before, answer["diff"], file_path, file_path, "\n"))
        if dry_run:
            return {
                "status": "success",
                "dry_run": True,
                "diff": diff,
                "would_change": answer["would_change"],
                "match_rung": answer["rung"],
            }
        return {
            "status": "success",
            "file_path": file_path,
            "diff": diff,
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
            file_extension: File extension to filter (file names ending with it: ``py`` takes
                ``numpy`` too, ``""`` every file)
            max_results: Maximum number of results (files; each lists at most 10 lines)

        Returns:
            Dictionary with search results: ``status``, ``pattern``, ``directory``,
            ``files_searched``, ``files_with_matches`` and ``results``, a list of
            ``{"file": path relative to directory, "matches": [{"line", "content"}]}``, plus
            ``truncated`` when the result bound cut the search short.
        """
        toolkit = self._toolkit_for(write=False)
        if isinstance(toolkit, dict):
            return toolkit
        wanted = max(0, max_results)
        path = _absolute(directory)
        args: dict[str, Any] = {
            "path": path,
            "pattern": pattern,
            "regex": False,
            "case_sensitive": True,
            "max_results": wanted * MATCHES_PER_FILE,
            # GAIA keeps the files whose name ends with file_extension.
            "glob": "**/*" + _escaped(file_extension or ""),
            # GAIA walks every folder (os.walk): hidden ones and those .gitignore names too, and
            # reads the files linked there (os.walk does not enter a linked folder, nor does this).
            "hidden": True,
            "ignore_rules": False,
            "follow_links": True,
        }
        while True:
            answer = toolkit.call("search_code", args)
            if not answer.get("ok"):
                return _refusal(answer.get("error") or {}, directory, path, "read", toolkit=toolkit)
            cut_short = self._search_cut_short(answer, wanted, args["max_results"])
            if not cut_short or args["max_results"] >= SEARCH_LINES_BOUND:
                break
            # A file with many matching lines used up the bound: ask for more lines.
            args["max_results"] = min(args["max_results"] * 4, SEARCH_LINES_BOUND)
        searched = answer["directory"]
        results: list[dict[str, Any]] = []
        for found in answer["results"][:wanted]:
            relative = found["file"] if searched in (".", "") else posixpath.relpath(found["file"], searched)
            if relative == ".":  # the directory given is this file
                relative = posixpath.basename(found["file"])
            matches = [{"line": hit["line"], "content": hit["content"].strip()} for hit in found["matches"]]
            results.append({"file": relative, "matches": matches[:MATCHES_PER_FILE]})
        return {
            "status": "success",
            "pattern": pattern,
            "directory": directory,
            # GAIA counts every file it tries, one it cannot read (binary, undecodable) too.
            "files_searched": answer["files_searched"] + len(answer.get("skipped") or ()),
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
        toolkit = self._toolkit_for(write=False)
        if isinstance(toolkit, dict):
            return toolkit
        path = _absolute(file_path)
        args = {"path": path, "new_content": new_content, "context_lines": context_lines}
        answer = toolkit.call("generate_diff", args)
        if not answer.get("ok"):
            return _refusal(answer.get("error") or {}, file_path, path, "read", toolkit=toolkit)
        before = _text_of(toolkit, path)
        if before is None:
            lines = _difflib_lines(answer["diff"], file_path, file_path, "\n")
        else:  # GAIA's difflib of the text and the new content as given
            lines = list(
                difflib.unified_diff(
                    before.splitlines(keepends=True),
                    new_content.splitlines(keepends=True),
                    file_path,
                    file_path,
                    n=context_lines,
                )
            )
        return {
            "status": "success",
            "file_path": file_path,
            "diff": "".join(lines),
            "additions": sum(1 for line in lines if line.startswith("+") and not line.startswith("+++")),
            "deletions": sum(1 for line in lines if line.startswith("-") and not line.startswith("---")),
            "has_changes": bool(lines),
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
        toolkit = self._toolkit_for(write=True)
        if isinstance(toolkit, dict):
            return toolkit
        path = _absolute(file_path)
        refused = self._oversize(toolkit, path, file_path, len(content.encode("utf-8")), "write")
        if refused:
            return refused
        answer = toolkit.call(
            "write_markdown_file", {"path": path, "content": content, "create_dirs": create_dirs}
        )
        if not answer.get("ok"):
            return _refusal(answer.get("error") or {}, file_path, path, "write", toolkit=toolkit)
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
        toolkit = self._toolkit_for(write=True)
        if isinstance(toolkit, dict):
            return toolkit
        path = _absolute(file_path, project_dir)
        resolved = str(Path(path).resolve())
        refused = self._oversize(toolkit, path, resolved, len(content.encode("utf-8")), "write")
        if refused:
            return refused
        answer = toolkit.call("write_file", {"path": path, "content": content, "create_dirs": create_dirs})
        if not answer.get("ok"):
            return _refusal(answer.get("error") or {}, resolved, path, "write", toolkit=toolkit)
        self._show_write(resolved, content)
        return {
            "status": "success",
            "file_path": resolved,
            "size_bytes": answer["size_bytes"],
            "file_type": _suffix_type(resolved),
            "sha256": answer["sha256"],
        }

    @staticmethod
    @staticmethod
    def _cpython_judges(
        toolkit: editkit.Toolkit, path: str, args: Mapping[str, Any], before: Optional[str]
    ) -> tuple[Optional[dict[str, Any]], bool]:
        """GAIA's judgement of an edit: CPython's ``ast.parse`` of the whole edited text. The
        edit is found as editkit finds it (a dry run) and applied to ``before``; its result is
        GAIA's refusal (``Edit would result in invalid Python syntax``) when CPython refuses
        the text, and whether CPython judged it (``False``: the text could not be rebuilt, and
        editkit's own check stands)."""
        if before is None:
            return None, False
        dry = toolkit.call("edit_file", {**args, "dry_run": True})
        after = _applied(before, dry["diff"]) if dry.get("ok") and not dry.get("diff_truncated") else None
        if after is None:
            return None, False
        verdict = _cpython_verdict(after)
        if verdict is not None:
            return _failure("Edit would result in invalid Python syntax", syntax_errors=[verdict]), True
        return None, True

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
            dict: ``status``, ``file_path`` (resolved), ``old_size``, ``new_size`` (characters),
            ``file_type``, ``diff`` and ``backup_path`` (the previous content, kept for undo).
        """
        toolkit = self._toolkit_for(write=True)
        if isinstance(toolkit, dict):
            return toolkit
        path = _absolute(file_path, project_dir)
        resolved = str(Path(path).resolve())
        refused = self._oversize(toolkit, path, resolved, len(new_content.encode("utf-8")), "edit")
        if refused:
            return refused
        args = {"path": path, "old_string": old_content, "new_string": new_content, "backup": True}
        before = _text_of(toolkit, path)
        answer = toolkit.call("edit_file", args)
        if not answer.get("ok"):
            error = answer.get("error") or {}
            if error.get("kind") == "no_change":
                missing = self._text_present(toolkit, path, old_content)
                if missing is not None:
                    error = missing
                else:
                    self._show_edit(resolved, "")
                    size = self._text_size(toolkit, path)
                    return {
                        "status": "success",
                        "file_path": resolved,
                        "old_size": size,
                        "new_size": size,
                        "file_type": _suffix_type(resolved),
                        "diff": "",
                    }
            if error.get("kind") == "not_found" and "closest" not in error:
                return _failure(f"File not found: {file_path}", error)
            return _refusal(
                error,
                resolved,
                path,
                "edit",
                text_missing=f"Content to replace not found in {file_path}",
                toolkit=toolkit,
            )
        name = os.path.basename(resolved)
        lines = _gaia_diff(before, answer["diff"], f"a/{name}", f"b/{name}", "")
        diff = "\n".join(lines)
        self._show_edit(resolved, diff)
        after = toolkit.call("read_file", {"path": path, "include_symbols": False})
        if after.get("ok") and after.get("sha256") == answer["sha256"]:
            new_size = len(after["content"]) + (1 if after.get("bom") else 0)
            old_size = new_size - _changed_chars(lines)
        else:  # changed again meanwhile: the sizes the toolkit measured, in bytes
            old_size, new_size = answer["old_size"], answer["new_size"]
        return {
            "status": "success",
            "file_path": resolved,
            "old_size": old_size,
            "new_size": new_size,
            "file_type": _suffix_type(resolved),
            "diff": diff,
            "backup_path": answer.get("backup_path"),
            "match_rung": answer["rung"],
            "sha256": answer["sha256"],
        }

    @staticmethod
    def _text_size(toolkit: editkit.Toolkit, path: str) -> int:
        """Characters of the file's text (LF endings; a BOM not counted), read without arming the
        staleness guard (the diff that would empty it)."""
        answer = toolkit.call("generate_diff", {"path": path, "new_content": ""})
        lines = _difflib_lines(answer.get("diff", ""), "", "", "\n") if answer.get("ok") else []
        return -_changed_chars(lines)

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
            project_name: Name of the project (the ``## Project:`` heading)
            description: Project description (the ``## Description`` section)
            structure: Project structure dictionary, or its text (the ``## Project Structure`` block)
            instructions: Special instructions for GAIA (the ``## Special Instructions`` section)

        Returns:
            Dictionary with update results: ``status``, ``file_path``, ``created``,
            ``message`` and ``updated_sections`` (the sections given). A new file is GAIA's; in an
            existing one these sections and the ``**Last Updated:**`` line are replaced in place.
        """
        toolkit = self._toolkit_for(write=False)
        if isinstance(toolkit, dict):
            return toolkit
        gaia_path = os.path.join(project_root, "GAIA.md")
        path = _absolute(gaia_path)
        sections = _gaia_md_sections(project_name, description, structure, instructions)
        given = [_GAIA_MD_NAMES[name] for name, _ in sections if name in _GAIA_MD_NAMES]
        read = toolkit.call("read_file", {"path": path, "include_symbols": True})
        error = read.get("error") or {}
        whole = "".join(text for _, text in sections)
        if read.get("ok") and not read.get("is_binary"):
            wanted = {name: text for name, text in sections if name in _GAIA_MD_NAMES or name == "updated"}
            args: dict[str, Any] = {
                "path": path,
                "content": _gaia_md_merge(read, wanted),
                "expected_hash": read["sha256"],
            }
            created = False
        elif read.get("ok") or error.get("kind") in ("not_utf8", "utf16"):
            # Not text: GAIA writes its file over it.
            args = {"path": path, "content": whole, "force": True}
            created = False
        elif error.get("kind") == "not_found":
            args = {"path": path, "content": whole, "create_new": True, "create_dirs": False}
            created = True
        else:
            return _refusal(error, gaia_path, path, "index", toolkit=toolkit)
        answer = toolkit.call("write_file", args)
        if not answer.get("ok"):
            return _refusal(answer.get("error") or {}, gaia_path, path, "index", toolkit=toolkit)
        return {
            "status": "success",
            "file_path": gaia_path,
            "created": created,
            "message": f"GAIA.md {'created' if created else 'updated'} at {gaia_path}",
            "updated_sections": given,
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
            ``function_replaced``, ``backup_path`` (``None`` without backup) and ``diff``. A file
            that does not parse is refused (``File has syntax errors: ...``), as is a result
            that would not (``Replacement would result in invalid syntax``).
        """
        toolkit = self._toolkit_for(write=True)
        if isinstance(toolkit, dict):
            return toolkit
        path = _absolute(file_path)
        refused = self._oversize(toolkit, path, file_path, len(new_implementation.encode("utf-8")), "edit")
        if refused:
            return refused
        check = toolkit.call("check_syntax", {"path": path})
        if not check.get("ok"):
            return _refusal(check.get("error") or {}, file_path, path, "edit", toolkit=toolkit)
        # GAIA parses the file with ast.parse first (any file is read as Python).
        text = _text_of(toolkit, path)
        verdict = _cpython_verdict(text) if text is not None else None
        if verdict is not None:
            return _failure(f"File has syntax errors: {verdict}")
        if text is None and not check["valid"] and check["errors"]:
            return _failure(f"File has syntax errors: {_syntax_error_text(check['errors'][0])}")
        args = {
            "path": path,
            "function_name": function_name,
            "new_implementation": new_implementation,
            "backup": backup,
        }
        before = _text_of(toolkit, path)
        if text is not None and before is not None:
            # GAIA's judgement of the result: CPython's ast.parse of the replaced text, shown by
            # a dry run, applied to the text read.
            dry = toolkit.call("replace_function", {**args, "dry_run": True, "validate": False})
            after = _applied(before, dry["diff"]) if dry.get("ok") else None
            if after is not None:
                verdict = _cpython_verdict(after)
                if verdict is not None:
                    return _failure("Replacement would result in invalid syntax", syntax_errors=[verdict])
                args["validate"] = False
        answer = toolkit.call("replace_function", args)
        if not answer.get("ok"):
            error = answer.get("error") or {}
            if error.get("kind") == "not_found" and "available" in error:
                return _failure(f"Function '{function_name}' not found in file", error)
            return _refusal(
                error,
                file_path,
                path,
                "edit",
                syntax="Replacement would result in invalid syntax",
                toolkit=toolkit,
            )
        return {
            "status": "success",
            "file_path": file_path,
            "function_replaced": answer["function_replaced"],
            "backup_path": answer.get("backup_path") if backup else None,
            "diff": "\n".join(_gaia_diff(before, answer["diff"], file_path, file_path, "\n")),
            "sha256": answer["sha256"],
        }
