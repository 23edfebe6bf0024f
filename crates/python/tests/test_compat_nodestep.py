"""editkit.compat.nodestep: nodestep's ``LocalWorkspace`` interface and behaviours, and each row of
the table of where the adapter is safer."""

from __future__ import annotations

import errno
import importlib.util
import inspect
import os
import re
import sys
import types
from pathlib import Path

import editkit
import pytest
from editkit.compat import nodestep
from editkit.compat.nodestep import GrepResult, LocalWorkspace, NodestepError, PathAccessError, WorkspaceError


@pytest.fixture
def ws(workspace: Path) -> LocalWorkspace:
    return LocalWorkspace(workspace)


@pytest.fixture
def layout(tmp_path: Path) -> tuple[LocalWorkspace, Path]:
    """A root beside a secret file and a neighbour root, with a link from inside to the secret."""
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "outside_secret.txt").write_text("TOP SECRET outside", encoding="utf-8")
    (tmp_path / "root2").mkdir()
    (tmp_path / "root2" / "neighbour.txt").write_text("SECRET neighbour", encoding="utf-8")
    (root / "inside.txt").write_text("inside SECRET", encoding="utf-8")
    (root / "notes.txt").symlink_to(tmp_path / "outside_secret.txt")
    return LocalWorkspace(root), tmp_path


def seed(ws: LocalWorkspace, files: dict[str, str]) -> None:
    for path, content in files.items():
        ws.write_file(path, content)


# ---------------------------------------------------------------------------------------------
# The interface


def test_the_module_exports_the_interface() -> None:
    assert set(nodestep.__all__) == {
        "GrepResult",
        "LocalWorkspace",
        "NodestepError",
        "PathAccessError",
        "WorkspaceError",
    }


def test_the_constructor_has_nodesteps_signature(workspace: Path) -> None:
    parameters = inspect.signature(LocalWorkspace).parameters
    assert list(parameters) == ["root_dir", "create", "max_file_read_bytes"]
    assert parameters["root_dir"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert parameters["create"].kind is inspect.Parameter.KEYWORD_ONLY
    assert parameters["create"].default is False
    assert parameters["max_file_read_bytes"].kind is inspect.Parameter.KEYWORD_ONLY
    assert parameters["max_file_read_bytes"].default == 256_000
    with pytest.raises(TypeError):
        LocalWorkspace()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        LocalWorkspace(workspace, python_executable="python")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        LocalWorkspace(workspace, True)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("resolve_path", "(path: 'str | None') -> 'tuple[Path, str]'"),
        ("read_file", "(path: 'str') -> 'str'"),
        ("write_file", "(path: 'str', content: 'str') -> 'None'"),
        ("list_dir", "(path: 'str' = '.') -> 'list[str]'"),
        ("exists", "(path: 'str') -> 'bool'"),
        ("delete", "(path: 'str') -> 'bool'"),
        ("edit", "(path: 'str', old: 'str', new: 'str', *, replace_all: 'bool' = False) -> 'int'"),
        ("glob", "(pattern: 'str', path: 'str' = '.') -> 'list[str]'"),
        ("grep", "(pattern: 'str', path: 'str' = '.', *, glob_pattern: 'str | None' = None) -> 'GrepResult'"),
    ],
)
def test_each_method_has_nodesteps_signature(ws: LocalWorkspace, method: str, expected: str) -> None:
    assert str(inspect.signature(getattr(ws, method))) == expected


def test_the_exceptions_form_nodesteps_hierarchy() -> None:
    assert issubclass(WorkspaceError, NodestepError) and issubclass(NodestepError, Exception)
    assert issubclass(PathAccessError, WorkspaceError)
    # Neither is an OSError: ``except PermissionError`` does not catch a refused path.
    for cls in (WorkspaceError, PathAccessError):
        assert not issubclass(cls, OSError)
    assert not issubclass(WorkspaceError, PathAccessError)


def test_grep_result_is_keyword_only_with_empty_defaults() -> None:
    assert GrepResult() == GrepResult(matches={}, skipped=[])
    result = GrepResult(matches={"a.py": ["x"]}, skipped=["b.bin"])
    assert result.matches == {"a.py": ["x"]} and result.skipped == ["b.bin"]
    assert result.model_dump() == {"matches": {"a.py": ["x"]}, "skipped": ["b.bin"]}
    assert result != GrepResult(matches={"a.py": ["x"]})
    assert repr(result) == "GrepResult(matches={'a.py': ['x']}, skipped=['b.bin'])"
    with pytest.raises(TypeError):
        GrepResult({"a.py": ["x"]})  # type: ignore[misc]
    # Each result has its own containers.
    first, second = GrepResult(), GrepResult()
    first.skipped.append("x")
    assert second.skipped == []


def test_nodesteps_own_classes_are_used_when_it_is_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    exceptions = types.ModuleType("nodestep.exceptions")
    base = types.ModuleType("nodestep.workspace.base")

    class FakeNodestepError(Exception):
        pass

    class FakeWorkspaceError(FakeNodestepError):
        pass

    class FakePathAccessError(FakeWorkspaceError):
        pass

    class FakeGrepResult:
        def __init__(self, *, matches: dict | None = None, skipped: list | None = None) -> None:
            self.matches = matches or {}
            self.skipped = skipped or []

    class FakeWorkspace:
        pass

    exceptions.NodestepError = FakeNodestepError  # type: ignore[attr-defined]
    exceptions.WorkspaceError = FakeWorkspaceError  # type: ignore[attr-defined]
    exceptions.PathAccessError = FakePathAccessError  # type: ignore[attr-defined]
    base.GrepResult = FakeGrepResult  # type: ignore[attr-defined]
    base.Workspace = FakeWorkspace  # type: ignore[attr-defined]
    for name, module in {
        "nodestep": types.ModuleType("nodestep"),
        "nodestep.exceptions": exceptions,
        "nodestep.workspace": types.ModuleType("nodestep.workspace"),
        "nodestep.workspace.base": base,
    }.items():
        monkeypatch.setitem(sys.modules, name, module)
    spec = importlib.util.spec_from_file_location("nodestep_adapter_copy", nodestep.__file__)
    assert spec is not None and spec.loader is not None
    copy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(copy)

    assert copy.WorkspaceError is FakeWorkspaceError and copy.PathAccessError is FakePathAccessError
    assert copy.NodestepError is FakeNodestepError and copy.GrepResult is FakeGrepResult
    assert issubclass(copy.LocalWorkspace, FakeWorkspace)


# ---------------------------------------------------------------------------------------------
# The root


def test_the_root_dir_is_the_absolute_resolved_root(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    link = tmp_path / "link-to-ws"
    link.symlink_to(workspace, target_is_directory=True)
    ws = LocalWorkspace(link)
    assert isinstance(ws.root_dir, Path)
    assert ws.root_dir == workspace.resolve() and ws.root_dir.is_absolute()
    monkeypatch.chdir(tmp_path)
    assert LocalWorkspace("ws").root_dir == workspace.resolve()


def test_a_missing_root_raises_unless_create(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    with pytest.raises(WorkspaceError, match="create=True"):
        LocalWorkspace(missing)
    assert not missing.exists()


def test_create_makes_the_root_and_its_parents(tmp_path: Path) -> None:
    root = tmp_path / "a" / "b"
    ws = LocalWorkspace(root, create=True)
    assert root.is_dir()
    assert ws.root_dir == root.resolve()
    ws.write_file("x.txt", "x")
    assert (root / "x.txt").read_text() == "x"
    # An existing root is fine with create=True too.
    assert LocalWorkspace(root, create=True).read_file("x.txt") == "x"


def test_the_root_must_be_a_directory(tmp_path: Path) -> None:
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    with pytest.raises(WorkspaceError, match="not a directory"):
        LocalWorkspace(tmp_path / "file.txt", create=True)


def test_the_root_is_not_expanded_with_the_home_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "home" / "project").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(WorkspaceError, match="does not exist"):
        LocalWorkspace("~/project")


def test_the_toolkit_underneath_is_rooted_at_the_root(ws: LocalWorkspace) -> None:
    assert isinstance(ws.toolkit, editkit.Toolkit)
    assert ws.toolkit.roots == [str(ws.root_dir)]


# ---------------------------------------------------------------------------------------------
# Paths


def test_resolve_path_gives_the_absolute_and_relative_path(ws: LocalWorkspace, workspace: Path) -> None:
    assert ws.resolve_path("subdir/file.txt") == (workspace / "subdir" / "file.txt", "subdir/file.txt")
    for root in (".", "", None):
        assert ws.resolve_path(root) == (workspace.resolve(), ".")
    assert ws.resolve_path("a/../b.txt") == (workspace / "b.txt", "b.txt")
    assert ws.resolve_path("a/..") == (workspace, ".")


def test_resolve_path_follows_links_inside_the_root(ws: LocalWorkspace, workspace: Path) -> None:
    (workspace / "real").mkdir()
    (workspace / "real" / "f.txt").write_text("x")
    (workspace / "alias").symlink_to("real", target_is_directory=True)
    assert ws.resolve_path("alias/f.txt") == (workspace / "real" / "f.txt", "real/f.txt")
    assert ws.resolve_path("alias/new/deeper.txt") == (
        workspace / "real" / "new" / "deeper.txt",
        "real/new/deeper.txt",
    )


@pytest.mark.parametrize("path", ["../secret.txt", "a/../../x.txt", "notes.txt", "notes.txt/x", "escape/x"])
def test_resolve_path_refuses_what_leaves_the_root(layout: tuple[LocalWorkspace, Path], path: str) -> None:
    ws, base = layout
    (base / "root" / "escape").symlink_to(base / "root2", target_is_directory=True)
    with pytest.raises(PathAccessError):
        ws.resolve_path(path)


REFUSED_PATHS = [
    "C:foo",
    "c:foo/bar.txt",
    "C:/x",
    "\\\\server\\share\\x.txt",
    "//server/share/x.txt",
    "/etc/passwd",
    "\\windows\\system32",
    "notes.txt:secret",
    "dir/file.txt::$DATA",
    "CON",
    "con",
    "Prn.txt",
    "aux.tar.gz",
    "nul .txt",
    "dir/COM1",
    "lpt9.txt",
    "COM\u00b9",
    "conout$.log",
    "name.",
    "name ",
    "dir./x.txt",
    "...",
    "a<b.txt",
    'say"hi".txt',
    "a|b",
    "what?.txt",
    "star*.txt",
    "tab\there.txt",
    "dir/\x1f.txt",
]


@pytest.mark.parametrize("path", REFUSED_PATHS)
def test_paths_nodestep_refuses_are_refused_everywhere(
    ws: LocalWorkspace, workspace: Path, path: str
) -> None:
    for call in (
        lambda: ws.write_file(path, "x"),
        lambda: ws.read_file(path),
        lambda: ws.delete(path),
        lambda: ws.exists(path),
        lambda: ws.edit(path, "a", "b"),
        lambda: ws.list_dir(path),
        lambda: ws.resolve_path(path),
        lambda: ws.glob("*", path),
        lambda: ws.grep("x", path),
    ):
        with pytest.raises(PathAccessError):
            call()
    assert list(workspace.iterdir()) == []


@pytest.mark.parametrize(
    "path",
    [
        "notes.txt",
        "src/pkg/module.py",
        "a/../b.txt",
        "./x.txt",
        ".hidden",
        "a b/c d.txt",
        "console.txt",
        "nullable",
        "COM",
        "COM10",
        "LPT0",
        "auxiliary/x.txt",
        "COM\u2074",
        "CONIN",
        "price$.txt",
        "caf\u00e9.txt",
    ],
)
def test_portable_relative_paths_are_allowed(ws: LocalWorkspace, workspace: Path, path: str) -> None:
    ws.write_file(path, "x")
    assert ws.read_file(path) == "x"
    assert (workspace / os.path.normpath(path)).read_text() == "x"


def test_refusals_read_as_nodesteps_documented_messages(ws: LocalWorkspace) -> None:
    messages = []
    for path in ["../secrets.txt", "/etc/passwd", "notes/CON"]:
        with pytest.raises(PathAccessError) as refused:
            ws.read_file(path)
        messages.append(str(refused.value))
    assert messages == [
        "Path '../secrets.txt' is outside the workspace root",
        "Path '/etc/passwd' is absolute; use a relative path",
        "Path 'notes/CON' uses the reserved device name 'CON'",
    ]


@pytest.mark.parametrize("path", ["../x.txt", "a/../../x.txt", "/etc/passwd", str(Path("/tmp").resolve())])
def test_paths_leaving_the_root_are_rejected(ws: LocalWorkspace, path: str) -> None:
    with pytest.raises(PathAccessError):
        ws.read_file(path)
    with pytest.raises(PathAccessError):
        ws.write_file(path, "x")


def test_an_absolute_path_inside_the_root_is_refused_too(ws: LocalWorkspace, workspace: Path) -> None:
    (workspace / "a.txt").write_text("x")
    with pytest.raises(PathAccessError, match="absolute"):
        ws.read_file(str(workspace / "a.txt"))


def test_dot_dot_that_stays_inside_is_allowed(ws: LocalWorkspace) -> None:
    seed(ws, {"a/b/c.txt": "x"})
    assert ws.read_file("a/b/../b/c.txt") == "x"


# ---------------------------------------------------------------------------------------------
# read_file and write_file


def test_read_write_round_trip(ws: LocalWorkspace) -> None:
    ws.write_file("hello.txt", "world")
    assert ws.read_file("hello.txt") == "world"
    assert ws.exists("hello.txt")
    assert ws.write_file("hello.txt", "again") is None
    assert ws.read_file("hello.txt") == "again"


def test_write_file_creates_parents_and_writes_bytes_as_given(ws: LocalWorkspace, workspace: Path) -> None:
    ws.write_file("deep/er/mixed.txt", "a\r\nb\nc\r\ufeff\u00e9")
    assert (workspace / "deep/er/mixed.txt").read_bytes() == "a\r\nb\nc\r\ufeff\u00e9".encode()


@pytest.mark.parametrize(
    "raw",
    [
        b"line1\r\nline2\r\nline3\r\n",
        b"a\r\nb",
        b"old\rmac\r",
        b"lf\nonly\n",
        b"",
        b"one line",
        b"\xef\xbb\xbfbom\r\n",
        b"one\r\ntwo\nthree\r\n",  # mixed
        b"crlf\r\nlone cr\rlf\nend",  # all three, no final ending
        b"\rleading cr\r\r\n\n",
        b"\xef\xbb\xbfbom\rmixed\r\nend\n",
        b"\xef\xbb\xbf",
    ],
)
def test_read_file_keeps_line_endings_and_bom(ws: LocalWorkspace, workspace: Path, raw: bytes) -> None:
    (workspace / "f.txt").write_bytes(raw)
    assert ws.read_file("f.txt") == raw.decode("utf-8")
    ws.write_file("copy.txt", ws.read_file("f.txt"))
    assert (workspace / "copy.txt").read_bytes() == raw


def test_a_mixed_file_reads_as_it_stands_and_the_read_guards_later_writes(
    ws: LocalWorkspace, workspace: Path
) -> None:
    raw = b"one\r\ntwo\nthree\rfour\r\n"
    (workspace / "mixed.txt").write_bytes(raw)
    text = ws.read_file("mixed.txt")
    assert text == "one\r\ntwo\nthree\rfour\r\n"
    assert ws.grep("t").matches == {"mixed.txt": ["two", "three"]}
    (workspace / "mixed.txt").write_bytes(b"theirs\n")
    with pytest.raises(WorkspaceError, match="changed"):
        ws.write_file("mixed.txt", text.upper())
    assert (workspace / "mixed.txt").read_bytes() == b"theirs\n"
    (workspace / "mixed.txt").write_bytes(raw)
    ws.write_file("mixed.txt", ws.read_file("mixed.txt").upper())
    assert (workspace / "mixed.txt").read_bytes() == raw.upper()
    assert ws.edit("mixed.txt", "TWO", "two") == 1
    assert ws.edit("mixed.txt", "FOUR\r\n", "four\r\n") == 1
    assert (workspace / "mixed.txt").read_bytes() == b"ONE\r\ntwo\nTHREE\rfour\r\n"


def test_crlf_round_trips(ws: LocalWorkspace) -> None:
    ws.write_file("w.txt", "a\r\nb")
    assert ws.read_file("w.txt") == "a\r\nb"


def test_read_file_of_a_missing_file_raises_file_not_found(ws: LocalWorkspace) -> None:
    with pytest.raises(FileNotFoundError) as missing:
        ws.read_file("nope.txt")
    assert missing.value.errno == errno.ENOENT and missing.value.filename == "nope.txt"


def test_read_file_of_a_directory_raises_is_a_directory(ws: LocalWorkspace, workspace: Path) -> None:
    (workspace / "d").mkdir()
    with pytest.raises(IsADirectoryError):
        ws.read_file("d")


def test_writing_over_a_directory_fails(ws: LocalWorkspace) -> None:
    seed(ws, {"dir/inner.txt": "x"})
    with pytest.raises(IsADirectoryError):
        ws.write_file("dir", "y")
    assert ws.read_file("dir/inner.txt") == "x"


def test_writing_below_a_file_fails(ws: LocalWorkspace) -> None:
    seed(ws, {"f.txt": "x"})
    with pytest.raises(FileExistsError):
        ws.write_file("f.txt/child", "y")
    assert ws.read_file("f.txt") == "x"


def test_an_oversize_read_is_refused_with_the_limit(workspace: Path) -> None:
    ws = LocalWorkspace(workspace, max_file_read_bytes=1000)
    (workspace / "big.txt").write_text("x" * 5000, encoding="utf-8")
    (workspace / "edge.txt").write_text("y" * 1000, encoding="utf-8")
    with pytest.raises(WorkspaceError, match="1000") as refused:
        ws.read_file("big.txt")
    assert not isinstance(refused.value, PathAccessError)
    assert "5000" in str(refused.value)
    assert ws.read_file("edge.txt") == "y" * 1000  # the limit itself is allowed
    with pytest.raises(WorkspaceError, match="1000"):
        ws.edit("big.txt", "x", "z")
    assert (workspace / "big.txt").read_text() == "x" * 5000


def test_the_read_limit_defaults_to_256000_bytes_and_can_be_changed(
    ws: LocalWorkspace, workspace: Path
) -> None:
    assert ws.max_file_read_bytes == 256_000
    (workspace / "big.txt").write_text("x" * 256_001, encoding="utf-8")
    with pytest.raises(WorkspaceError, match="256000"):
        ws.read_file("big.txt")
    ws.max_file_read_bytes = 300_000
    assert ws.max_file_read_bytes == 300_000
    assert len(ws.read_file("big.txt")) == 256_001


@pytest.mark.parametrize(
    "raw", [bytes(range(256)), "caf\u00e9\n".encode("latin-1"), "hi".encode("utf-16"), b"\xff\xfe\x00"]
)
def test_a_file_that_is_not_utf8_text_raises_a_workspace_error(
    ws: LocalWorkspace, workspace: Path, raw: bytes
) -> None:
    (workspace / "img.bin").write_bytes(raw)
    with pytest.raises(WorkspaceError, match="UTF-8") as refused:
        ws.read_file("img.bin")
    assert not isinstance(refused.value, PathAccessError)
    with pytest.raises(WorkspaceError, match="UTF-8"):
        ws.edit("img.bin", "a", "b")
    assert (workspace / "img.bin").read_bytes() == raw


# ---------------------------------------------------------------------------------------------
# list_dir and exists


def test_list_dir_sorts_and_marks_directories(ws: LocalWorkspace, workspace: Path) -> None:
    seed(ws, {"b.txt": "b", "a.txt": "a", "sub/c.txt": "c", "a-b/x.txt": "x", ".hidden": "h"})
    (workspace / "a").mkdir()
    assert ws.list_dir() == [".hidden", "a-b/", "a.txt", "a/", "b.txt", "sub/"]
    assert ws.list_dir(".") == ws.list_dir("") == ws.list_dir()
    assert ws.list_dir("sub") == ["c.txt"]
    assert ws.list_dir("a") == []


def test_list_dir_follows_links_inside_the_root(ws: LocalWorkspace, workspace: Path) -> None:
    seed(ws, {"real/x.txt": "x", "f.txt": "f"})
    (workspace / "alias").symlink_to("real", target_is_directory=True)
    (workspace / "f-link").symlink_to("f.txt")
    assert ws.list_dir() == ["alias/", "f-link", "f.txt", "real/"]
    assert ws.list_dir("alias") == ["x.txt"]


def test_list_dir_of_a_missing_directory_raises(ws: LocalWorkspace) -> None:
    with pytest.raises(FileNotFoundError):
        ws.list_dir("typo")


def test_list_dir_of_a_file_raises(ws: LocalWorkspace) -> None:
    seed(ws, {"f.txt": "x"})
    with pytest.raises(NotADirectoryError) as refused:
        ws.list_dir("f.txt")
    assert refused.value.errno == errno.ENOTDIR


def test_exists(ws: LocalWorkspace, workspace: Path) -> None:
    seed(ws, {"dir/file.txt": "x"})
    (workspace / "dangling").symlink_to("nowhere")
    assert ws.exists(".") and ws.exists("")
    assert ws.exists("dir") and ws.exists("dir/file.txt")
    assert not ws.exists("nope.txt") and not ws.exists("dir/nope/deeper")
    assert not ws.exists("dangling")


def test_exists_refuses_a_link_leading_outside(layout: tuple[LocalWorkspace, Path]) -> None:
    ws, _ = layout
    with pytest.raises(PathAccessError):
        ws.exists("notes.txt")
    with pytest.raises(PathAccessError):
        ws.read_file("notes.txt")


# ---------------------------------------------------------------------------------------------
# delete


def test_delete_a_file_a_directory_and_nothing(ws: LocalWorkspace, workspace: Path) -> None:
    seed(ws, {"f.txt": "data", "d/a.txt": "a", "d/e/b.txt": "b"})
    assert ws.delete("f.txt") is True
    assert not ws.exists("f.txt")
    assert ws.delete("d") is True
    assert not (workspace / "d").exists()
    assert ws.delete("nope.txt") is False
    assert ws.delete("nope/deeper.txt") is False


def test_delete_of_a_symlink_removes_only_the_link(layout: tuple[LocalWorkspace, Path]) -> None:
    ws, base = layout
    important = base / "root" / "important.db"
    important.write_text("data", encoding="utf-8")
    (base / "root" / "shortcut").symlink_to(important)
    assert ws.delete("shortcut") is True
    assert important.exists()
    assert not (base / "root" / "shortcut").exists()


def test_delete_of_a_link_leading_outside_removes_the_link_not_its_target(
    layout: tuple[LocalWorkspace, Path],
) -> None:
    ws, base = layout
    assert ws.delete("notes.txt") is True
    assert not (base / "root" / "notes.txt").is_symlink()
    assert (base / "outside_secret.txt").read_text() == "TOP SECRET outside"


def test_delete_of_a_link_to_a_directory_keeps_the_directory(ws: LocalWorkspace, workspace: Path) -> None:
    seed(ws, {"real/x.txt": "x"})
    (workspace / "alias").symlink_to("real", target_is_directory=True)
    (workspace / "self").symlink_to(".", target_is_directory=True)
    assert ws.delete("alias") is True
    assert ws.delete("self") is True
    assert (workspace / "real" / "x.txt").read_text() == "x"


def test_delete_of_a_dangling_link_removes_it(ws: LocalWorkspace, workspace: Path) -> None:
    (workspace / "dangling").symlink_to("nowhere")
    (workspace / "far").symlink_to("/nonexistent/far/away")
    assert ws.delete("dangling") is True
    assert ws.delete("far") is True
    assert list(workspace.iterdir()) == []


@pytest.mark.parametrize("path", [".", "", "sub/..", "./", "a/b/../.."])
def test_deleting_the_root_is_refused(layout: tuple[LocalWorkspace, Path], path: str) -> None:
    ws, base = layout
    with pytest.raises(WorkspaceError, match="root") as refused:
        ws.delete(path)
    assert not isinstance(refused.value, PathAccessError)
    assert (base / "root" / "inside.txt").exists()


def test_delete_through_a_symlinked_directory_is_refused(layout: tuple[LocalWorkspace, Path]) -> None:
    ws, base = layout
    (base / "root" / "escape").symlink_to(base / "root2", target_is_directory=True)
    with pytest.raises(PathAccessError):
        ws.delete("escape/neighbour.txt")
    assert (base / "root2" / "neighbour.txt").exists()


# ---------------------------------------------------------------------------------------------
# edit


def test_edit_replaces_the_one_place(ws: LocalWorkspace) -> None:
    seed(ws, {"f.txt": "foo bar baz"})
    assert ws.edit("f.txt", "bar", "qux") == 1
    assert ws.read_file("f.txt") == "foo qux baz"


def test_edit_replace_all_counts_the_replacements(ws: LocalWorkspace) -> None:
    seed(ws, {"f.txt": "foo bar foo", "a.txt": "aaa"})
    assert ws.edit("f.txt", "foo", "baz", replace_all=True) == 2
    assert ws.read_file("f.txt") == "baz bar baz"
    assert ws.edit("a.txt", "aa", "b", replace_all=True) == 1
    assert ws.read_file("a.txt") == "ba"


def test_overlapping_places_count_once_as_str_count_counts_them(ws: LocalWorkspace, workspace: Path) -> None:
    seed(ws, {"a.txt": "aaa", "b.txt": "aaaa"})
    assert ws.edit("a.txt", "aa", "b") == 1  # one place for str.count: the first is replaced
    assert ws.read_file("a.txt") == "ba"
    with pytest.raises(WorkspaceError, match="places"):  # two places without overlap: ambiguous
        ws.edit("b.txt", "aa", "b")
    assert ws.edit("b.txt", "aa", "b", replace_all=True) == 2
    assert ws.read_file("b.txt") == "bb"


@pytest.mark.parametrize("replace_all", [False, True])
def test_edit_without_a_match_returns_zero(ws: LocalWorkspace, workspace: Path, replace_all: bool) -> None:
    seed(ws, {"f.txt": "hello"})
    assert ws.edit("f.txt", "missing", "x", replace_all=replace_all) == 0
    assert (workspace / "f.txt").read_bytes() == b"hello"


def test_edit_matches_exactly_as_nodestep_does(ws: LocalWorkspace, workspace: Path) -> None:
    """editkit tolerates whitespace and indentation drift; nodestep's match is exact."""
    seed(ws, {"ind.py": "def f():\n    x = 1\n    return x\n"})
    for old in ("x  =  1", "\tx = 1\n\treturn x", "def f():\n  x = 1"):
        assert ws.edit("ind.py", old, "y = 2") == 0
    assert (workspace / "ind.py").read_text() == "def f():\n    x = 1\n    return x\n"
    # Two places that match only with drift: nothing matches exactly, so nothing is ambiguous.
    seed(ws, {"two.py": "a  =  1\nb = 2\na  =  1\n"})
    assert ws.edit("two.py", "a = 1", "a = 3") == 0
    assert (workspace / "two.py").read_text() == "a  =  1\nb = 2\na  =  1\n"
    # A substring of a line matches, and the new text is put in as given.
    assert ws.edit("ind.py", "  x = 1", "y = 2") == 1
    assert (workspace / "ind.py").read_text() == "def f():\n  y = 2\n    return x\n"


def test_edit_does_not_strip_line_numbers_copied_from_a_view(ws: LocalWorkspace, workspace: Path) -> None:
    seed(ws, {"f.py": "a = 1\nb = 2\n"})
    assert ws.edit("f.py", "     2\tb = 2", "b = 3") == 0
    assert (workspace / "f.py").read_text() == "a = 1\nb = 2\n"


@pytest.mark.parametrize("replace_all", [False, True])
def test_edit_with_empty_old_text_raises_value_error(ws: LocalWorkspace, replace_all: bool) -> None:
    seed(ws, {"f.txt": "abc"})
    with pytest.raises(ValueError, match="old"):
        ws.edit("f.txt", "", "X", replace_all=replace_all)
    assert ws.read_file("f.txt") == "abc"
    with pytest.raises(ValueError, match="old"):
        ws.edit("missing.txt", "", "X")  # checked before the path


def test_edit_of_a_missing_file_raises_file_not_found(ws: LocalWorkspace) -> None:
    with pytest.raises(FileNotFoundError):
        ws.edit("nope.txt", "a", "b")


def test_edit_of_a_directory_raises_is_a_directory(ws: LocalWorkspace, workspace: Path) -> None:
    (workspace / "d").mkdir()
    with pytest.raises(IsADirectoryError):
        ws.edit("d", "a", "b")


def test_crlf_edits_with_lf_or_crlf_text(ws: LocalWorkspace, workspace: Path) -> None:
    (workspace / "win.txt").write_bytes(b"line1\r\nline2\r\nline3\r\n")
    assert ws.read_file("win.txt") == "line1\r\nline2\r\nline3\r\n"
    assert ws.edit("win.txt", "line1\r\nline2", "LINE1\r\nLINE2") == 1
    assert ws.edit("win.txt", "line3\n", "LINE3\n") == 1
    assert (workspace / "win.txt").read_bytes() == b"LINE1\r\nLINE2\r\nLINE3\r\n"


def test_crlf_replace_all_with_lf_text(ws: LocalWorkspace, workspace: Path) -> None:
    (workspace / "win.txt").write_bytes(b"a\r\nx\r\na\r\nx\r\n")
    assert ws.edit("win.txt", "a\nx", "b\ny", replace_all=True) == 2
    assert (workspace / "win.txt").read_bytes() == b"b\r\ny\r\nb\r\ny\r\n"


@pytest.mark.parametrize(
    ("raw", "old"),
    [
        (b"a\r\nb\r\n", "a\r\nb\n"),  # a lone LF next to a CRLF: nodestep converts nothing
        (b"a\r\nb\r\n", "a\rb"),  # a lone CR never stands in a CRLF file
        (b"a\nb\n", "a\r\nb"),  # CRLF text in an LF file
        (b"a\rb\r", "a\nb"),  # LF text in a CR file
        (b"a\r\nb\r\n", "x\ra\r\nb"),  # a lone CR in CRLF text
        (b"a\nb\n", "a\rb"),  # CR text in an LF file
    ],
)
def test_line_endings_the_file_does_not_hold_match_nothing(
    ws: LocalWorkspace, workspace: Path, raw: bytes, old: str
) -> None:
    (workspace / "f.txt").write_bytes(raw)
    assert ws.edit("f.txt", old, "z") == 0
    assert (workspace / "f.txt").read_bytes() == raw


@pytest.mark.parametrize(
    ("raw", "old", "new", "edited"),
    [
        (b"a\r\nb\nc\r\n", "a\nb", "x\ny", b"x\r\ny\nc\r\n"),  # found as CRLF: nodestep's retry
        (b"a\r\nb\nc\r\n", "b\nc", "x\ny", b"a\r\nx\ny\r\n"),  # found as spelt
        (b"a\nb\r\nc\n", "a\nb", "x\ny", b"x\ny\r\nc\n"),
        (b"a\r\nb\nc\rd", "c\rd", "C\rD", b"a\r\nb\nC\rD"),
    ],
)
def test_mixed_files_are_edited_where_nodestep_finds_old(
    ws: LocalWorkspace, workspace: Path, raw: bytes, old: str, new: str, edited: bytes
) -> None:
    (workspace / "f.txt").write_bytes(raw)
    assert ws.edit("f.txt", old, new) == 1
    assert (workspace / "f.txt").read_bytes() == edited


def test_cr_files_are_edited_with_cr_text(ws: LocalWorkspace, workspace: Path) -> None:
    (workspace / "mac.txt").write_bytes(b"one\rtwo\rthree\r")
    assert ws.edit("mac.txt", "one\rtwo", "ONE\rTWO") == 1
    assert (workspace / "mac.txt").read_bytes() == b"ONE\rTWO\rthree\r"


# ---------------------------------------------------------------------------------------------
# glob


def test_glob_matches_files_relative_to_the_root(ws: LocalWorkspace) -> None:
    seed(ws, {"a.py": "x", "b.txt": "x", "sub/c.py": "x", "src/a.py": "x", "src/b.txt": "x"})
    assert ws.glob("*.py") == ["a.py"]
    assert ws.glob("**/*.py") == ["a.py", "src/a.py", "sub/c.py"]
    assert ws.glob("*.py", "src") == ["src/a.py"]
    assert ws.glob("*") == ["a.py", "b.txt"]  # files only


def test_double_star_matches_whole_directory_segments(ws: LocalWorkspace) -> None:
    seed(ws, {"src/pkg/test_a.py": "", "src/footest_x.py": "", "src/test_top.py": ""})
    assert ws.glob("src/**/test_*.py") == ["src/pkg/test_a.py", "src/test_top.py"]


def test_character_classes_are_supported(ws: LocalWorkspace) -> None:
    seed(ws, {"a1.py": "", "b1.py": ""})
    assert ws.glob("[a]1.py") == ["a1.py"]
    assert ws.glob("[!a]1.py") == ["b1.py"]


def test_glob_sorts_paths_as_strings(ws: LocalWorkspace) -> None:
    seed(ws, {"a/b.txt": "", "a-b.txt": "", "a.txt": "", "B.txt": ""})
    assert ws.glob("**/*.txt") == ["B.txt", "a-b.txt", "a.txt", "a/b.txt"]


def test_a_path_through_a_link_is_resolved_first(ws: LocalWorkspace, workspace: Path) -> None:
    """As nodestep resolves ``path`` before it globs or greps: results name the real files."""
    seed(ws, {"real/d.py": "needle\n"})
    (workspace / "alias").symlink_to("real", target_is_directory=True)
    assert ws.glob("*.py", "alias") == ["real/d.py"]
    assert ws.grep("needle", "alias").matches == {"real/d.py": ["needle"]}
    assert ws.grep("needle", "alias/d.py").matches == {"real/d.py": ["needle"]}


def test_glob_on_a_missing_path_raises(ws: LocalWorkspace) -> None:
    seed(ws, {"src/a.py": "needle\n"})
    with pytest.raises(FileNotFoundError, match="scr"):
        ws.glob("*.py", "scr")


def test_glob_on_a_file_finds_nothing(ws: LocalWorkspace) -> None:
    seed(ws, {"a.py": "x"})
    assert ws.glob("*", "a.py") == []


def test_glob_and_grep_on_an_empty_root_find_nothing(ws: LocalWorkspace) -> None:
    assert ws.glob("*.py") == []
    assert ws.grep("needle") == GrepResult()


@pytest.mark.parametrize(
    "pattern",
    ["../*", "../root2/*", "/etc/*", "sub/../../*", "sub/..", "C:*", "C:\\*.txt", "\\*", "//server/share/*"],
)
def test_glob_patterns_cannot_leave_the_root(layout: tuple[LocalWorkspace, Path], pattern: str) -> None:
    ws, _ = layout
    with pytest.raises(PathAccessError):
        ws.glob(pattern)
    with pytest.raises(PathAccessError):
        ws.grep("SECRET", glob_pattern=pattern)


def test_symlinks_pointing_outside_are_not_listed_or_searched(layout: tuple[LocalWorkspace, Path]) -> None:
    ws, _ = layout
    assert ws.glob("*.txt") == ["inside.txt"]
    assert ws.grep("SECRET").matches == {"inside.txt": ["inside SECRET"]}


def test_an_invalid_glob_pattern_raises_value_error(ws: LocalWorkspace) -> None:
    with pytest.raises(ValueError, match="glob"):
        ws.glob("")


# ---------------------------------------------------------------------------------------------
# grep


def test_grep_returns_matching_lines_by_file(ws: LocalWorkspace) -> None:
    seed(ws, {"a.py": "import os\nimport sys\n", "b.txt": "no match\n", "w.txt": "import x\r\nimport y\r\n"})
    result = ws.grep("import")
    assert isinstance(result, GrepResult)
    assert result == GrepResult(
        matches={"a.py": ["import os", "import sys"], "w.txt": ["import x", "import y"]}
    )


def test_grep_uses_pythons_regular_expressions(ws: LocalWorkspace) -> None:
    seed(ws, {"a.py": "foo = 1\nfoobar = 2\nbar = foo\n"})
    assert ws.grep(r"^(?!foo)\w+ = (?P<v>foo)$").matches == {"a.py": ["bar = foo"]}
    assert ws.grep(r"(o)\1bar").matches == {"a.py": ["foobar = 2"]}
    with pytest.raises(re.error):
        ws.grep("(unclosed")


def test_grep_with_a_glob_pattern(ws: LocalWorkspace) -> None:
    seed(ws, {"a.py": "import os\n", "b.txt": "import sys\n", "src/c.py": "import re\n"})
    assert ws.grep("import", glob_pattern="*.py").matches == {"a.py": ["import os"]}
    assert ws.grep("import", glob_pattern="**/*.py").matches == {
        "a.py": ["import os"],
        "src/c.py": ["import re"],
    }
    assert ws.grep("import", "src", glob_pattern="*.py").matches == {"src/c.py": ["import re"]}
    assert ws.grep("import", glob_pattern="").matches == ws.grep("import").matches


@pytest.mark.parametrize("glob_pattern", [None, "*.py", "*.md"])
def test_grep_on_a_file_searches_it_whatever_the_glob(ws: LocalWorkspace, glob_pattern: str | None) -> None:
    seed(ws, {"a.py": "hello\n", "b.py": "hello\n"})
    result = ws.grep("hello", "a.py", glob_pattern=glob_pattern)
    assert result == GrepResult(matches={"a.py": ["hello"]}, skipped=[])


def test_grep_on_a_missing_path_raises(ws: LocalWorkspace) -> None:
    seed(ws, {"src/a.py": "needle\n"})
    with pytest.raises(FileNotFoundError, match="scr"):
        ws.grep("needle", "scr")
    with pytest.raises(FileNotFoundError, match="scr"):
        ws.grep("needle", "scr", glob_pattern="*.py")
    assert ws.grep("needle", "src").matches == {"src/a.py": ["needle"]}
    assert ws.grep("needle", "src/a.py").matches == {"src/a.py": ["needle"]}


def test_grep_reports_files_it_could_not_read(workspace: Path) -> None:
    ws = LocalWorkspace(workspace, max_file_read_bytes=100)
    ws.write_file("ok.txt", "needle\n")
    (workspace / "big.txt").write_text("needle\n" * 100, encoding="utf-8")
    (workspace / "latin1.txt").write_bytes("needle \xe9\n".encode("latin-1"))
    assert ws.grep("needle") == GrepResult(matches={"ok.txt": ["needle"]}, skipped=["big.txt", "latin1.txt"])


def test_grep_orders_files_segment_by_segment(ws: LocalWorkspace) -> None:
    seed(ws, {"a-b.txt": "n\n", "a/b.txt": "n\n", "a.txt": "n\n"})
    assert list(ws.grep("n").matches) == ["a/b.txt", "a-b.txt", "a.txt"]


def test_grep_sees_a_bom_as_nodestep_does(ws: LocalWorkspace, workspace: Path) -> None:
    (workspace / "bom.txt").write_bytes(b"\xef\xbb\xbfimport os\nimport re\n")
    assert ws.grep("^import").matches == {"bom.txt": ["import re"]}


def test_grep_searches_more_files_than_one_batch(ws: LocalWorkspace, workspace: Path) -> None:
    for index in range(150):
        (workspace / f"f{index:03}.txt").write_text("needle\n" if index % 7 == 0 else "hay\n")
    assert list(ws.grep("needle").matches) == [f"f{index:03}.txt" for index in range(0, 150, 7)]


# ---------------------------------------------------------------------------------------------
# Where the adapter is safer (one test per row of the module's table)


def test_row_ambiguous_edits_are_refused(ws: LocalWorkspace, workspace: Path) -> None:
    seed(ws, {"f.txt": "foo bar foo"})
    with pytest.raises(WorkspaceError, match="2 places") as refused:
        ws.edit("f.txt", "foo", "baz")
    assert isinstance(refused.value.__cause__, editkit.Ambiguous)
    assert (workspace / "f.txt").read_text() == "foo bar foo"


def test_row_already_applied_edits_are_refused(ws: LocalWorkspace, workspace: Path) -> None:
    seed(ws, {"f.txt": "x = 1\n", "g.txt": "x = 1\n"})
    assert ws.edit("f.txt", "x = 1", "x = 1\ny = 2") == 1
    with pytest.raises(WorkspaceError, match="already"):
        ws.edit("f.txt", "x = 1", "x = 1\ny = 2")  # retried: nodestep would add a second y = 2
    with pytest.raises(WorkspaceError, match="already"):
        ws.edit("g.txt", "x = 0\n", "x = 1\n")  # retried: new stands, old is gone
    assert (workspace / "f.txt").read_text() == "x = 1\ny = 2\n"
    assert (workspace / "g.txt").read_text() == "x = 1\n"


def test_row_edits_that_change_nothing_are_refused(ws: LocalWorkspace, workspace: Path) -> None:
    seed(ws, {"f.txt": "foo bar foo"})
    before = (workspace / "f.txt").stat().st_mtime_ns
    with pytest.raises(WorkspaceError, match="unchanged"):
        ws.edit("f.txt", "foo", "foo", replace_all=True)
    assert (workspace / "f.txt").stat().st_mtime_ns == before


def test_row_stale_writes_are_refused(ws: LocalWorkspace, workspace: Path) -> None:
    seed(ws, {"f.txt": "mine\n"})
    assert ws.read_file("f.txt") == "mine\n"
    (workspace / "f.txt").write_text("theirs\n")
    with pytest.raises(WorkspaceError, match="changed") as refused:
        ws.write_file("f.txt", "overwrite\n")
    assert isinstance(refused.value.__cause__, editkit.Stale)
    assert (workspace / "f.txt").read_text() == "theirs\n"
    # Read again, and the write goes through; an edit always reads first.
    ws.read_file("f.txt")
    ws.write_file("f.txt", "merged\n")
    (workspace / "f.txt").write_text("again\n")
    assert ws.edit("f.txt", "again", "edited") == 1
    assert (workspace / "f.txt").read_text() == "edited\n"


def test_row_new_text_takes_the_files_line_endings(ws: LocalWorkspace, workspace: Path) -> None:
    (workspace / "win.txt").write_bytes(b"a\r\nb\r\n")
    assert ws.edit("win.txt", "a\r\nb", "x\ny") == 1  # nodestep would write x\ny with a lone LF
    assert (workspace / "win.txt").read_bytes() == b"x\r\ny\r\n"
    (workspace / "unix.txt").write_bytes(b"hello\n")
    assert ws.edit("unix.txt", "hell", "a\r\nb") == 1  # nodestep would write a CRLF into the LF file
    assert (workspace / "unix.txt").read_bytes() == b"a\nbo\n"
    (workspace / "cut.txt").write_bytes(b"a\r\nb\r\nc\r\n")
    assert ws.edit("cut.txt", "a\r", "x") == 1  # nodestep would leave the \n: x\nb
    assert ws.edit("cut.txt", "\nc", "y") == 1  # nodestep would leave the \r: xb\ry
    assert (workspace / "cut.txt").read_bytes() == b"xby\r\n"


def _nodestep_edit(content: str, old: str, new: str, replace_all: bool) -> tuple[str, int]:
    """nodestep's LocalWorkspace.edit on a file's text (read with newline=""): "In a CRLF file,
    old and new written with LF match and are written with CRLF"; otherwise old as spelt."""
    if old not in content and "\r\n" in content and "\r\n" not in old:
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
    if replace_all:
        return content.replace(old, new), content.count(old)
    return (content.replace(old, new, 1), 1) if old in content else (content, 0)


@pytest.mark.parametrize(
    ("raw", "old", "new", "replace_all"),
    [
        (b"x\r\ny\nx\ny\n", "x\ny", "z", False),  # as spelt once, twice with any ending
        (b"x\r\ny\nx\ny\n", "x\ny", "w\nv", True),
        (b"w\r\nv\nz\ny\n", "x\ny", "q", True),  # not as spelt: 0
        (b"a\rb\nc\n", "a\nb", "A\nB", False),  # a CR where old has an LF: 0
        (b"a\r\nb\na\nb\n", "a\nb", "c\nd", True),  # the LF one only
        (b"a\nb\r\na\r\nb\n", "a\r\nb", "c\r\nd", False),  # the CRLF one only
        (b"one\r\ntwo\nthree\n", "one\ntwo", "1\n2", False),  # LFs as CRLFs: nodestep's retry
    ],
)
def test_in_a_mixed_file_old_is_found_only_as_spelt(
    ws: LocalWorkspace, workspace: Path, raw: bytes, old: str, new: str, replace_all: bool
) -> None:
    (workspace / "mixed.txt").write_bytes(raw)
    expected, count = _nodestep_edit(raw.decode(), old, new, replace_all)
    assert ws.edit("mixed.txt", old, new, replace_all=replace_all) == count
    assert (workspace / "mixed.txt").read_bytes() == expected.encode()


def test_row_in_a_mixed_file_old_spelt_as_several_places_is_refused(
    ws: LocalWorkspace, workspace: Path
) -> None:
    raw = b"x\r\ny\nx\ny\nx\ny\n"
    (workspace / "mixed.txt").write_bytes(raw)
    with pytest.raises(WorkspaceError, match="2 times"):
        ws.edit("mixed.txt", "x\ny", "z")  # nodestep: replaces the first
    assert (workspace / "mixed.txt").read_bytes() == raw


def test_row_an_old_text_taking_in_the_byte_order_mark_is_refused(
    ws: LocalWorkspace, workspace: Path
) -> None:
    raw = b"\xef\xbb\xbfa = 1\r\nb = 2\r\n"
    (workspace / "bom.py").write_bytes(raw)
    assert ws.read_file("bom.py").startswith("\ufeffa = 1")
    with pytest.raises(WorkspaceError, match="byte order mark"):
        ws.edit("bom.py", "\ufeffa = 1", "a = 0")  # nodestep: drops the mark
    assert (workspace / "bom.py").read_bytes() == raw
    assert ws.edit("bom.py", "a = 1", "a = 0") == 1
    assert (workspace / "bom.py").read_bytes() == b"\xef\xbb\xbfa = 0\r\nb = 2\r\n"


@pytest.mark.parametrize(
    ("path", "folder", "entry"),
    [
        (".git/config", ".", ".git/"),
        ("sub/.git/HEAD", "sub", ".git/"),
        (".env", ".", ".env"),
        (".env.local", ".", ".env.local"),
        ("id_rsa", ".", "id_rsa"),
        ("keys/server.pem", "keys", "server.pem"),
        (".netrc", ".", ".netrc"),
    ],
)
def test_row_blocked_paths_are_refused(
    ws: LocalWorkspace, workspace: Path, path: str, folder: str, entry: str
) -> None:
    target = workspace / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("secret needle\n")
    for call in (
        lambda: ws.read_file(path),
        lambda: ws.write_file(path, "x"),
        lambda: ws.edit(path, "secret", "x"),
        lambda: ws.exists(path),
        lambda: ws.delete(path),
        lambda: ws.resolve_path(path),
    ):
        with pytest.raises(PathAccessError, match="blocked"):
            call()
    assert target.read_text() == "secret needle\n"
    assert ws.grep("needle") == GrepResult()
    assert ws.glob("**") == []
    assert entry not in ws.list_dir(folder)


def test_row_a_folder_holding_a_blocked_entry_is_not_deleted(ws: LocalWorkspace, workspace: Path) -> None:
    (workspace / "repo" / ".git").mkdir(parents=True)
    (workspace / "repo" / ".git" / "HEAD").write_text("ref\n")
    (workspace / "repo" / "a.txt").write_text("a\n")
    with pytest.raises(PathAccessError, match="blocked"):
        ws.delete("repo")
    assert (workspace / "repo" / ".git" / "HEAD").exists() and (workspace / "repo" / "a.txt").exists()


@pytest.mark.parametrize("path", ["a\\b.txt", "~/x.txt", "~"])
def test_row_backslashes_and_tilde_are_refused(ws: LocalWorkspace, workspace: Path, path: str) -> None:
    with pytest.raises(PathAccessError):
        ws.write_file(path, "x")
    with pytest.raises(PathAccessError):
        ws.exists(path)
    assert list(workspace.iterdir()) == []


def test_row_binary_files_are_not_text(ws: LocalWorkspace, workspace: Path) -> None:
    (workspace / "blob.txt").write_bytes(b"needle\x00needle\n")  # valid UTF-8, but binary
    with pytest.raises(WorkspaceError, match="UTF-8"):
        ws.read_file("blob.txt")
    with pytest.raises(WorkspaceError, match="UTF-8"):
        ws.edit("blob.txt", "needle", "x")
    assert ws.grep("needle") == GrepResult(skipped=["blob.txt"])
    assert (workspace / "blob.txt").read_bytes() == b"needle\x00needle\n"


def test_glob_and_grep_take_hidden_ignored_and_linked_files_as_path_glob_does(
    ws: LocalWorkspace, workspace: Path
) -> None:
    # nodestep's glob and grep: Path.glob / rglob("*"), which take dot names and files a
    # .gitignore names like any others, and files reached through links inside the root.
    seed(
        ws,
        {
            "a.py": "needle\n",
            ".hidden.py": "needle\n",
            ".cache/b.py": "needle\n",
            "ignored.py": "needle\n",
            "build/c.py": "needle\n",
            ".gitignore": "ignored.py\nbuild/\n",
            "real/d.py": "needle\n",
        },
    )
    (workspace / ".git").mkdir()  # .gitignore would apply in a git repository
    (workspace / "alias.py").symlink_to("a.py")
    (workspace / "alias-dir").symlink_to("real", target_is_directory=True)
    files = [".cache/b.py", ".hidden.py", "a.py", "alias.py", "build/c.py", "ignored.py", "real/d.py"]
    assert ws.glob("**/*.py") == files
    assert ws.grep("needle") == GrepResult(matches={name: ["needle"] for name in files})
    globbed = ws.grep("needle", glob_pattern="**/*.py")
    assert globbed == GrepResult(matches={name: ["needle"] for name in files})


def test_a_linked_folder_is_entered_where_path_glob_enters_it(ws: LocalWorkspace, workspace: Path) -> None:
    # Path.glob: ** enters no linked folder (nor a loop); a segment of the pattern, a name or a
    # wildcard, follows a link to a folder inside the root.
    seed(ws, {"real/d.py": "needle\n"})
    (workspace / "alias-dir").symlink_to("real", target_is_directory=True)
    (workspace / "real" / "loop").symlink_to("..", target_is_directory=True)
    assert ws.glob("**/*.py") == ["real/d.py"]
    assert ws.grep("needle") == GrepResult(matches={"real/d.py": ["needle"]})
    assert ws.glob("alias-dir/*.py") == ["alias-dir/d.py"]
    assert ws.glob("*/d.py") == ["alias-dir/d.py", "real/d.py"]
    assert ws.glob("alias-dir/**/*.py") == ["alias-dir/d.py"]
    assert ws.glob("real/loop/real/*.py") == ["real/loop/real/d.py"]
    found = ws.grep("needle", glob_pattern="alias-dir/*.py")
    assert found == GrepResult(matches={"alias-dir/d.py": ["needle"]})
    assert ws.read_file("alias-dir/d.py") == "needle\n"


def test_a_file_that_is_not_utf8_is_not_a_utf8_text_file(ws: LocalWorkspace, workspace: Path) -> None:
    # nodestep: "Read a UTF-8 text file" - WorkspaceError "'<path>' is not a UTF-8 text file";
    # grep lists in skipped the files that are "not UTF-8 text". Text in a legacy encoding or
    # UTF-16, which editkit could read, is no different, and edit writes nothing.
    cases = {
        "latin.txt": ("# café crème brûlée à la française, déjà vu, naïve\nneedle in a haystack\n").encode(
            "cp1252"
        ),
        "wide.txt": "wide text, long enough to be taken for UTF-16 by its BOM\nneedle\n".encode("utf-16"),
    }
    for name, data in cases.items():
        (workspace / name).write_bytes(data)
        with pytest.raises(WorkspaceError, match=f"^'{name}' is not a UTF-8 text file"):
            ws.read_file(name)
        with pytest.raises(WorkspaceError, match=f"^'{name}' is not a UTF-8 text file"):
            ws.edit(name, "needle", "pin")
        assert (workspace / name).read_bytes() == data
    assert ws.grep("needle") == GrepResult(skipped=["latin.txt", "wide.txt"])


def test_row_links_leading_outside_are_not_listed_and_never_followed(layout: tuple[LocalWorkspace, Path]) -> None:
    ws, base = layout
    (base / "root" / "escape").symlink_to(base / "root2", target_is_directory=True)
    assert ws.list_dir() == ["inside.txt"]
    assert ws.glob("**") == ["inside.txt"]
    # grep names them in skipped (as documented), and never reads behind them.
    result = ws.grep("SECRET")
    assert result == GrepResult(matches={"inside.txt": ["inside SECRET"]}, skipped=["escape", "notes.txt"])
    assert ws.grep("SECRET", glob_pattern="*.txt").skipped == ["notes.txt"]
    assert "neighbour" not in repr(result) and "TOP" not in repr(result)


def test_grep_names_in_skipped_the_symlinks_that_point_outside_the_root(
    layout: tuple[LocalWorkspace, Path],
) -> None:
    # LocalWorkspace.grep's documentation: skipped holds "the files that are larger than
    # max_file_read_bytes, not UTF-8 text, not readable, or symlinks that point outside the root".
    _, base = layout
    (base / "root" / "sub").mkdir()
    (base / "root" / "sub" / "deep.txt").symlink_to(base / "outside_secret.txt")
    (base / "root" / "sub" / "big.txt").write_text("SECRET " * 10)
    small = LocalWorkspace(base / "root", max_file_read_bytes=32)
    result = small.grep("SECRET")
    assert result.matches == {"inside.txt": ["inside SECRET"]}
    assert result.skipped == ["notes.txt", "sub/big.txt", "sub/deep.txt"]
    assert small.grep("SECRET", "sub").skipped == ["sub/big.txt", "sub/deep.txt"]
    assert small.grep("SECRET", "sub", glob_pattern="deep*").skipped == ["sub/deep.txt"]
    assert "TOP SECRET" not in repr(result)


def test_row_glob_and_grep_are_bounded(ws: LocalWorkspace, workspace: Path) -> None:
    many = workspace / "many"
    many.mkdir()
    for index in range(10_001):
        (many / f"{index}.txt").write_bytes(b"")
    with pytest.raises(WorkspaceError, match="10,000"):
        ws.glob("**", "many")
    with pytest.raises(WorkspaceError, match="10,000"):
        ws.grep("needle")
    assert len(ws.glob("1*.txt", "many")) == 1 + 10 + 100 + 1000 + 1


def test_row_fifos_sockets_and_devices_are_refused(ws: LocalWorkspace, workspace: Path) -> None:
    os.mkfifo(workspace / "pipe")
    (workspace / "ok.txt").write_text("needle\n")
    with pytest.raises(WorkspaceError, match="not a regular file") as refused:
        ws.read_file("pipe")
    assert not isinstance(refused.value, PathAccessError)
    with pytest.raises(WorkspaceError, match="not a regular file"):
        ws.edit("pipe", "a", "b")
    with pytest.raises(NotADirectoryError):
        ws.list_dir("pipe")
    assert ws.exists("pipe")
    assert ws.glob("*", "pipe") == []
    assert ws.grep("needle", "pipe") == GrepResult()
    assert ws.grep("needle") == GrepResult(matches={"ok.txt": ["needle"]})
    with pytest.raises(WorkspaceError, match="not a regular file"):
        ws.write_file("pipe", "x")
    assert ws.delete("pipe") is True
    assert not os.path.lexists(workspace / "pipe")


def test_row_writes_replace_the_file_atomically(ws: LocalWorkspace, workspace: Path) -> None:
    seed(ws, {"f.txt": "old text\n"})
    # A reader holding the old file keeps it whole: the new content is a new file renamed over
    # the name, never written in place.
    with open(workspace / "f.txt") as held:
        ws.write_file("f.txt", "new text\n")
        ws.edit("f.txt", "new", "newer")
        assert held.read() == "old text\n"
    assert (workspace / "f.txt").read_text() == "newer text\n"
    # A file with a second name (a hard link) is neither read nor written: the other name may
    # be a secret or a file outside the workspace.
    os.link(workspace / "f.txt", workspace / "hard-link.txt")
    with pytest.raises(PathAccessError, match="hard links"):
        ws.write_file("f.txt", "again\n")
    assert (workspace / "hard-link.txt").read_text() == "newer text\n"


def test_row_deletes_can_be_undone(ws: LocalWorkspace, workspace: Path) -> None:
    seed(ws, {"f.txt": "keep me\n", "d/a.txt": "a\n", "d/e/b.txt": "b\n"})
    assert ws.delete("f.txt") and ws.delete("d")
    ws.toolkit.undo_edit("f.txt")
    ws.toolkit.undo_patch()
    assert (workspace / "f.txt").read_text() == "keep me\n"
    assert (workspace / "d/e/b.txt").read_text() == "b\n"


def test_row_a_folder_too_large_to_keep_is_not_deleted(workspace: Path) -> None:
    ws = LocalWorkspace(workspace, max_file_read_bytes=1000)
    (workspace / "d").mkdir()
    (workspace / "d" / "big.bin").write_bytes(b"\x00" * 5000)
    with pytest.raises(WorkspaceError, match="1000") as refused:
        ws.delete("d")
    assert not isinstance(refused.value, PathAccessError)
    assert (workspace / "d" / "big.bin").exists()
    # A single large file is deleted.
    (workspace / "big.bin").write_bytes(b"\x00" * 5000)
    assert ws.delete("big.bin") is True
