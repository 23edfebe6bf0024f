"""editkit: file tools AI coding agents can trust, in-process.

Reads that know what they read (content plus SHA-256), writes that refuse files changed
underneath, edits that land on the one place meant or refuse, multi-file patches that commit
all-or-nothing, ripgrep-speed search and code awareness, all confined to workspace roots by
capabilities. The same toolkit as the ``editkit`` binary (MCP server and JSON CLI), without a
process in between::

    import editkit

    tk = editkit.Toolkit("/home/me/project")
    read = tk.read_file("src/app.py")            # a typed result: read.content, read.sha256...
    tk.edit_file("src/app.py", "return 1", "return 2", expected_hash=read.sha256)
    try:
        tk.edit_file("src/app.py", "x = 1", "x = 2")
    except editkit.Ambiguous as refused:         # one exception class per error kind
        print(refused.message, refused.details["lines"])

    tk.call("read_file", {"path": "src/app.py"})  # the JSON contract: {"ok": True, ...}

Every tool method releases the GIL while the tool runs, so threads editing different files run
in parallel; read-modify-write on one file is serialised by the toolkit's per-file locks (also
across processes). Drop-in adapters for the file tools of agent frameworks live in
``editkit.compat``.
"""

from __future__ import annotations

import inspect
import keyword
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar, Union

from . import _editkit
from ._errors import (
    AlreadyApplied,
    Ambiguous,
    Binary,
    Blocked,
    EditkitError,
    Exists,
    InvalidArgs,
    InvalidPatch,
    InvalidSyntax,
    IoError,
    IsDirectory,
    NoChange,
    NotEncodable,
    NotFound,
    NotUtf8,
    OutsideWorkspace,
    PermissionDenied,
    Stale,
    TooLarge,
    Unavailable,
    Utf16,
    error_class,
    error_from,
)

__version__: str = _editkit.__version__
ERROR_KINDS: tuple[str, ...] = tuple(_editkit.ERROR_KINDS)
DEFAULT_LIMITS: dict[str, int] = dict(_editkit.DEFAULT_LIMITS)

__all__ = [
    "DEFAULT_LIMITS",
    "ERROR_KINDS",
    "AlreadyApplied",
    "Ambiguous",
    "Binary",
    "Blocked",
    "EditkitError",
    "Exists",
    "InvalidArgs",
    "InvalidPatch",
    "InvalidSyntax",
    "IoError",
    "IsDirectory",
    "NoChange",
    "NotEncodable",
    "NotFound",
    "NotUtf8",
    "OutsideWorkspace",
    "PermissionDenied",
    "Result",
    "Stale",
    "TooLarge",
    "Toolkit",
    "Unavailable",
    "Utf16",
    "error_class",
    "error_from",
    "python_name",
    "result_class",
    "specs",
]

PathLike = Union[str, "os.PathLike[str]"]

def specs() -> list[dict[str, Any]]:
    """Every tool's description: ``name``, ``description``, ``input_schema``, ``output_schema``,
    ``read_only``, ``destructive`` and ``idempotent``."""
    return list(_editkit.specs())


class Result(Mapping[str, Any]):
    """A tool's successful result: the contract object without ``ok``.

    Fields read as attributes (``result.sha256``) or items (``result["sha256"]``); a field the
    tool's result schema has but this result left out reads as ``None``. ``to_dict()`` gives a
    plain ``dict``. Each tool has its own subclass (``ReadFileResult``...; ``result_class``).
    """

    __slots__ = ("_data",)
    tool: ClassVar[str] = ""
    fields: ClassVar[tuple[str, ...]] = ()

    def __init__(self, data: Mapping[str, Any]):
        object.__setattr__(self, "_data", {key: value for key, value in data.items() if key != "ok"})

    def __getattr__(self, name: str) -> Any:
        data = object.__getattribute__(self, "_data")
        if name in data:
            return data[name]
        if name in type(self).fields:
            return None
        raise AttributeError(f"{type(self).__name__} has no field {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._data) | set(type(self).fields))

    def to_dict(self) -> dict[str, Any]:
        """The result as a plain ``dict`` (a shallow copy)."""
        return dict(self._data)

    def __repr__(self) -> str:
        def short(value: Any) -> str:
            text = repr(value)
            return text if len(text) <= 80 else text[:77] + "..."

        fields = ", ".join(f"{key}={short(value)}" for key, value in self._data.items())
        return f"{type(self).__name__}({fields})"

    def __reduce__(self) -> Any:
        return (_rebuild_result, (type(self).tool, self._data))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Result):
            return type(self) is type(other) and self._data == other._data
        if isinstance(other, Mapping):
            return self._data == dict(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


def _class_name(tool: str) -> str:
    return "".join(part.capitalize() for part in tool.split("_")) + "Result"


_RESULT_CLASSES: dict[str, type[Result]] = {}
_SPECS: dict[str, dict[str, Any]] = {spec["name"]: spec for spec in _editkit.specs()}

for _spec in _SPECS.values():
    _fields = tuple(name for name in _spec["output_schema"].get("properties", {}) if name != "ok")
    _cls = type(
        _class_name(_spec["name"]),
        (Result,),
        {"__slots__": (), "tool": _spec["name"], "fields": _fields, "__module__": __name__,
         "__doc__": f"The result of ``{_spec['name']}``: {_spec['description']}"},
    )
    _RESULT_CLASSES[_spec["name"]] = _cls
    globals()[_cls.__name__] = _cls
    __all__.append(_cls.__name__)


def result_class(tool: str) -> type[Result]:
    """The result class of ``tool`` (``ReadFileResult`` for ``read_file``)."""
    try:
        return _RESULT_CLASSES[tool]
    except KeyError:
        raise error_from(
            {"kind": "invalid_args", "field": "tool", "message": f"unknown tool `{tool}`"}
        ) from None


def _rebuild_result(tool: str, data: Mapping[str, Any]) -> Result:
    return _RESULT_CLASSES.get(tool, Result)(data)


def _positional(spec: Mapping[str, Any]) -> tuple[str, ...]:
    # Required arguments, in the order the tool declares them (path, old_string, new_string);
    # a tool may name its positional arguments itself (``x-positional``: edit_file's old_string
    # and new_string are optional beside ``edits``).
    schema = spec["input_schema"]
    return tuple(schema.get("x-positional") or schema.get("required", ()))


def _required(spec: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(spec["input_schema"].get("required", ()))


def _required_unless(spec: Mapping[str, Any]) -> dict[str, str]:
    # Arguments required unless another is given (``x-required-unless``: edit_file's
    # old_string and new_string, unless ``edits``).
    return dict(spec["input_schema"].get("x-required-unless", {}))


def python_name(argument: str) -> str:
    """The Python spelling of a tool argument: a keyword gets a trailing underscore (``from_``)."""
    return argument + "_" if keyword.iskeyword(argument) else argument


def _tool_name(argument: str) -> str:
    if argument.endswith("_") and keyword.iskeyword(argument[:-1]):
        return argument[:-1]
    return argument


def _defaults(spec: Mapping[str, Any]) -> dict[str, Any]:
    properties = spec["input_schema"].get("properties", {})
    return {name: prop.get("default") for name, prop in properties.items()}


class Toolkit:
    """Every editkit tool over one or more workspace roots, in-process.

    ``root`` is a folder, or a list of folders (the first is primary: relative paths resolve
    there; an absolute path in the root that contains it). Options:

    - ``read_only``: refuse every tool that writes.
    - ``blocked``: more blocked paths, ``.gitignore`` patterns, added to the defaults (``.git``,
      ``.env*``, private keys, credential files, ``.editkit/``).
    - ``hard_links``: folders (``.gitignore`` patterns, such as ``"node_modules/"``) where files
      with several names (hard links, as pnpm, Bun or Yarn make into their store) are served;
      elsewhere they are refused as ``Blocked``, since another name may be a secret or a file
      outside the workspace.
    - ``diagnostics``: post-write checks, ``"auto"`` (report problems), ``"on"`` (report all) or
      ``"off"``; ``format``: run the formatter after each write.
    - ``formatters``: the application's own formatters, replacing editkit's for the extensions it
      names: ``{"py": [("black", ["black", "--quiet", "{file}"])]}`` (extension with or without its
      dot; each a name and an argv, tried in order until one runs). The program is a bare name
      found on ``PATH`` (absolute entries outside every root) or an absolute path; a relative one
      (``./node_modules/.bin/prettier``, a program the repository ships) is not run. Placeholders:
      ``{file}``, a private copy of the file (same name) the formatter may rewrite in place;
      ``{path}``, the file's path in the workspace, for display; ``{empty_config}``. Without
      ``{file}`` the formatter reads stdin and prints the result. It runs contained as editkit's
      own (a private folder, a scrubbed environment, Landlock); a failing one changes nothing.
      Taken from the application only, never from the workspace; used with ``format``.
    - ``durability``: ``"full"`` (fsync file and folder before returning) or ``"atomic"`` (temp file
      renamed into place: never torn, a power failure may lose the latest writes).
    - ``absolute_paths``: ``"remap"`` (an absolute path inside a root is used, others refused),
      ``"refuse"``, or ``"rooted"`` (any other absolute path is taken as rooted at the workspace).
    - ``state_dir``: where locks, patch journals and undo history live (never inside a root).
    - ``detect_encodings``: read a file that is not UTF-8 in another encoding established with
      confidence (UTF-16 with a BOM, a detected legacy code page) and write it back in it
      (default); ``False`` takes UTF-8 only, as a tool that opens files as UTF-8 does: anything
      else is ``NotUtf8`` (or ``Utf16``) unless a call names its ``encoding``.
    - bounds: ``max_read_bytes``, ``read_page_bytes``, ``max_sessions``, ``max_session_bytes``,
      ``max_patch_work``, ``history_depth``, ``history_bytes`` (undo history per root, default
      256 MiB), ``kept_read_bytes`` (the versions reads and edits saw, kept as the bases an edit of
      a file changed since is merged against; default 32 MiB, oldest dropped first; 0 keeps none,
      so such an edit is refused as stale); ``tools`` selects the tool sets (``"core,editor"``).
    - ``server_diagnostics``: after each write, the written file's diagnostics from its language
      server (basedpyright or pyright, typescript-language-server, rust-analyzer, found on
      ``PATH`` outside every root, confined, started on first need and kept warm while the
      toolkit lives) in the result's ``diagnostics["server_diagnostics"]``: ``state`` ``fresh``,
      ``stale``, ``timed_out`` (after 3 s for Python, 5 s for TypeScript and Rust) or
      ``unavailable``. Default ``False``: no server starts.

    Refused options or roots raise ``InvalidArgs`` / ``NotFound`` / ``IoError``...
    """

    def __init__(
        self,
        root: PathLike | Sequence[PathLike],
        *,
        read_only: bool = False,
        blocked: Sequence[str] = (),
        hard_links: Sequence[str] = (),
        diagnostics: str = "auto",
        format: bool = False,
        formatters: Mapping[str, Sequence[tuple[str, Sequence[str]]]] | None = None,
        durability: str = "full",
        absolute_paths: str = "remap",
        state_dir: PathLike | None = None,
        max_read_bytes: int | None = None,
        read_page_bytes: int | None = None,
        full_diffs: bool = False,
        detect_encodings: bool = True,
        tools: str | None = None,
        history_depth: int | None = None,
        history_bytes: int | None = None,
        max_sessions: int | None = None,
        max_session_bytes: int | None = None,
        max_patch_work: int | None = None,
        kept_read_bytes: int | None = None,
        server_diagnostics: bool = False,
    ):
        given = dict(locals())
        if isinstance(root, (str, os.PathLike)):
            roots = [os.fspath(root)]
        else:
            roots = [os.fspath(item) for item in root]
        if isinstance(blocked, str):
            blocked = [blocked]
        if isinstance(hard_links, str):
            hard_links = [hard_links]
        # The bounds are the options the native module declares as whole numbers; a bool (an
        # int to Python) or a negative one is refused here, naming it.
        for field in _editkit.BOUND_OPTIONS:
            value = given[field]
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise error_from({
                    "kind": "invalid_args",
                    "field": field,
                    "message": f"{field} must be a whole number of at least 0 (1 for a size), not {value!r}",
                })
        chosen = None
        if formatters is not None:
            chosen = {}
            for extension, entries in dict(formatters).items():
                if not isinstance(extension, str):
                    raise error_from({
                        "kind": "invalid_args",
                        "field": "formatters",
                        "message": f"formatters: an extension is a string, not {extension!r}",
                    })
                listed = []
                for entry in entries:
                    name, argv = entry
                    if isinstance(argv, str) or not all(isinstance(arg, str) for arg in argv):
                        raise error_from({
                            "kind": "invalid_args",
                            "field": "formatters",
                            "message": f"formatters: the argv of {name!r} for {extension!r} is a list of strings",
                        })
                    listed.append((str(name), list(argv)))
                chosen[extension] = listed
        try:
            self._inner = _editkit._Toolkit(
                roots,
                read_only=read_only,
                blocked=list(blocked),
                hard_links=list(hard_links),
                diagnostics=diagnostics,
                format=format,
                formatters=chosen,
                durability=durability,
                absolute_paths=absolute_paths,
                state_dir=None if state_dir is None else os.fspath(state_dir),
                max_read_bytes=max_read_bytes,
                read_page_bytes=read_page_bytes,
                full_diffs=full_diffs,
                detect_encodings=detect_encodings,
                tools=tools,
                history_depth=history_depth,
                history_bytes=history_bytes,
                max_sessions=max_sessions,
                max_session_bytes=max_session_bytes,
                max_patch_work=max_patch_work,
                kept_read_bytes=kept_read_bytes,
                server_diagnostics=server_diagnostics,
            )
        except _editkit.OpenError as refused:
            raise error_from(refused.args[0]) from None
        self.read_only = read_only

    @property
    def roots(self) -> list[str]:
        """The workspace roots as absolute real paths; the first is primary."""
        return [os.fspath(path) for path in self._inner.roots]

    @property
    def root(self) -> str:
        """The primary workspace root."""
        return self.roots[0]

    @property
    def notes(self) -> list[str]:
        """Notes about the roots (a ``.editkit/`` folder a repository ships is ignored)."""
        return list(self._inner.notes)

    def tool_names(self) -> list[str]:
        """The tools this toolkit runs."""
        return list(self._inner.tool_names())

    def call(self, name: str, args: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Runs tool ``name`` on ``args`` and returns the JSON contract object, never raising for a
        refusal: ``{"ok": True, ...}`` or ``{"ok": False, "error": {"kind", "message", ...}}``.
        Raises ``TypeError`` only for arguments that are not JSON values."""
        return self._inner.call(name, None if args is None else dict(args))

    def run(self, name: str, args: Mapping[str, Any] | None = None) -> Result:
        """Runs tool ``name`` on ``args``: its typed result, or the ``EditkitError`` of its kind."""
        answer = self._inner.call(name, None if args is None else dict(args))
        if not answer.get("ok"):
            raise error_from(answer.get("error") or {"kind": "io", "message": "no result"})
        cls = _RESULT_CLASSES.get(name, Result)
        return cls(answer)

    def __repr__(self) -> str:
        flags = " read_only" if self.read_only else ""
        return f"<editkit.Toolkit {', '.join(self.roots)}{flags}>"


def _json_value(value: Any) -> Any:
    """Paths as strings (``pathlib.Path`` arguments, alone or in lists); everything else as given."""
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (list, tuple)):
        return [_json_value(item) for item in value]
    return value


def _aliases(spec: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    properties = spec["input_schema"].get("properties", {})
    return {name: (name, *prop.get("x-aliases", ())) for name, prop in properties.items()}


def _tool_method(spec: Mapping[str, Any]) -> Any:
    name = spec["name"]
    positional = _positional(spec)
    required = _required(spec)
    unless = _required_unless(spec)
    defaults = _defaults(spec)
    spellings = _aliases(spec)

    def method(self: Toolkit, *args: Any, **kwargs: Any) -> Result:
        # Signature mistakes are TypeErrors, as for any Python function; the tool itself judges
        # the values (InvalidArgs).
        if len(args) > len(positional):
            raise TypeError(
                f"{name}() takes {len(positional)} positional argument(s) "
                f"({', '.join(positional) or 'none'}) but {len(args)} were given; pass the others by keyword"
            )
        call_args = {_tool_name(key): _json_value(value) for key, value in kwargs.items() if value is not None}
        for key, value in zip(positional, args):
            if key in call_args:
                raise TypeError(f"{name}() got multiple values for argument '{python_name(key)}'")
            call_args[key] = _json_value(value)
        def given(key: str) -> bool:
            return any(alias in call_args for alias in spellings.get(key, (key,)))

        missing = [key for key in required if not given(key)]
        missing += [key for key in positional if key in unless and not given(key) and not given(unless[key])]
        if missing:
            listed = ", ".join(f"'{python_name(key)}'" for key in missing)
            raise TypeError(f"{name}() missing {len(missing)} required argument(s): {listed}")
        return self.run(name, call_args)

    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    parameters += [
        inspect.Parameter(python_name(key), inspect.Parameter.POSITIONAL_OR_KEYWORD)
        if key in required
        else inspect.Parameter(python_name(key), inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)
        for key in positional
    ]
    parameters += [
        inspect.Parameter(python_name(key), inspect.Parameter.KEYWORD_ONLY, default=default)
        for key, default in sorted(defaults.items())
        if key not in positional
    ]
    method.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    method.__name__ = name
    method.__qualname__ = f"Toolkit.{name}"
    method.__doc__ = spec["description"]
    return method


for _spec in _SPECS.values():
    setattr(Toolkit, _spec["name"], _tool_method(_spec))

del _spec, _cls, _fields
