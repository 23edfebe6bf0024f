"""editkit.compat.file_modify: the file_modify tool of workflow engines, its three documented examples,
its refusals, where its workspace comes from, and each row of its table of deliberate differences."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import editkit
import pytest
from editkit.compat import file_modify as fm
from editkit.compat.file_modify import SCHEMA, TOOL_SCHEMA, FileModify, file_modify


@pytest.fixture
def tool(workspace: Path) -> FileModify:
    return FileModify(workspace)


@pytest.fixture(autouse=True)
def _module_default(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts with no configured workspace and no WORKSPACE_BASE_DIR, and leaves none."""
    monkeypatch.delenv("WORKSPACE_BASE_DIR", raising=False)
    fm.configure()
    yield
    fm.configure()


# -- the three documented examples -------------------------------------------------------------

WRITE_EXAMPLE = """{
  "operation": "write",
  "file_path": "/path/to/new_file.py",
  "content": "print('hello world')"
}"""
EDIT_EXAMPLE = """{
  "operation": "edit",
  "file_path": "/path/to/file.py",
  "old_string": "def old_name():",
  "new_string": "def new_name():"
}"""
REPLACE_ALL_EXAMPLE = """{
  "operation": "edit",
  "file_path": "/path/to/file.py",
  "old_string": "TODO",
  "new_string": "DONE",
  "replace_all": true
}"""


def test_example_write_a_new_file(tool: FileModify, workspace: Path) -> None:
    answer = tool.invoke(json.loads(WRITE_EXAMPLE))
    assert answer == {"operation": "write", "file_path": "/path/to/new_file.py"}
    # The absolute path is rooted at the workspace; the folders are created.
    assert (workspace / "path/to/new_file.py").read_text() == "print('hello world')"


def test_example_edit_an_existing_file(tool: FileModify, workspace: Path) -> None:
    target = workspace / "path/to/file.py"
    target.parent.mkdir(parents=True)
    target.write_text("def old_name():\n    return 1\n\n\nold_name()\n")
    answer = tool.invoke(json.loads(EDIT_EXAMPLE))
    assert answer == {"operation": "edit", "file_path": "/path/to/file.py", "occurrences": 1}
    assert target.read_text() == "def new_name():\n    return 1\n\n\nold_name()\n"


def test_example_replace_all_occurrences(tool: FileModify, workspace: Path) -> None:
    target = workspace / "path/to/file.py"
    target.parent.mkdir(parents=True)
    target.write_text("# TODO one\nx = 1  # TODO two\n# TODO three\n")
    answer = tool.invoke(json.loads(REPLACE_ALL_EXAMPLE))
    assert answer == {"operation": "edit", "file_path": "/path/to/file.py", "occurrences": 3}
    assert target.read_text() == "# DONE one\nx = 1  # DONE two\n# DONE three\n"


# -- the rest of the documented interface -------------------------------------------------------


def test_write_creates_or_replaces_wholesale(tool: FileModify, workspace: Path) -> None:
    assert tool("write", "reports/summary.md", content="# Summary\n") == {
        "operation": "write",
        "file_path": "/reports/summary.md",
    }
    # Any existing file is replaced, whatever happened to it in between (no fail-if-exists).
    (workspace / "reports/summary.md").write_text("edited by another node\n")
    assert tool("write", "reports/summary.md", content="# Second\n")["file_path"] == "/reports/summary.md"
    assert (workspace / "reports/summary.md").read_text() == "# Second\n"
    # content defaults to "".
    tool("write", "empty.txt")
    assert (workspace / "empty.txt").read_bytes() == b""


def test_edit_works_on_the_file_as_it_is_now(tool: FileModify, workspace: Path) -> None:
    tool("write", "a.py", content="x = 1\ny = 2\n")
    (workspace / "a.py").write_text("x = 1\ny = 2\nz = 3\n")  # another tool changed it
    assert tool("edit", "a.py", old_string="z = 3", new_string="z = 4")["occurrences"] == 1
    assert (workspace / "a.py").read_text() == "x = 1\ny = 2\nz = 4\n"
    # new_string defaults to "": the text is removed.
    tool("edit", "a.py", old_string="y = 2\n")
    assert (workspace / "a.py").read_text() == "x = 1\nz = 4\n"


def test_argument_errors_are_the_original_messages(tool: FileModify) -> None:
    with pytest.raises(editkit.InvalidArgs, match=r"^Unknown operation: delete$"):
        tool("delete", "a.txt")
    with pytest.raises(editkit.InvalidArgs, match=r"^file_path is required$"):
        tool("write", "", content="x")
    with pytest.raises(editkit.InvalidArgs, match=r"^old_string is required for edit$"):
        tool("edit", "a.txt", new_string="x")
    with pytest.raises(ValueError):  # InvalidArgs is a ValueError too
        tool.invoke({"content": "no path"})


def test_edit_refusals_are_worded_as_the_original_and_change_nothing(
    tool: FileModify, workspace: Path
) -> None:
    text = "TODO a\nTODO b\nTODO c\n"
    (workspace / "t.txt").write_text(text)
    with pytest.raises(editkit.Ambiguous) as many:
        tool("edit", "t.txt", old_string="TODO", new_string="DONE")
    assert many.value.message.splitlines()[0] == (
        "Error: String 'TODO' appears 3 times in file. Use replace_all=True to replace all instances, "
        "or provide a more specific string with surrounding context."
    )
    assert many.value.details["lines"] == [1, 2, 3]
    with pytest.raises(editkit.NotFound) as missing:
        tool("edit", "t.txt", old_string="FIXME", new_string="DONE")
    assert missing.value.message.splitlines()[0] == "Error: String not found in file: 'FIXME'"
    with pytest.raises(editkit.NotFound) as no_file:
        tool("edit", "nope.txt", old_string="a", new_string="b")
    assert no_file.value.message.splitlines()[0] == "Error: File '/nope.txt' not found"
    assert (workspace / "t.txt").read_text() == text
    assert not (workspace / "nope.txt").exists()


def test_the_schema_requires_what_the_documents_table_marks_required() -> None:
    # The file_modify skill's "Schema Fields" table: operation and file_path are required, content
    # "If write", old_string and new_string "If edit", replace_all not.
    assert SCHEMA["required"] == ["operation", "file_path"]
    assert SCHEMA["properties"]["operation"]["enum"] == ["write", "edit"]
    for field in ("content", "old_string", "new_string", "replace_all"):
        assert field not in SCHEMA["required"]


def test_the_schema_is_the_original_parameters(tool: FileModify, workspace: Path) -> None:
    assert TOOL_SCHEMA["name"] == fm.TOOL_NAME == "file_modify"
    assert TOOL_SCHEMA["parameters"] is SCHEMA and TOOL_SCHEMA["description"] == fm.TOOL_DESCRIPTION
    # The original's tool description, word for word.
    assert fm.TOOL_DESCRIPTION == (
        "Write a new file or edit an existing file with string replacement. Operations: write "
        "(create/overwrite), edit (find and replace). Paths resolve inside the per-workflow workspace "
        "\u2014 use workspace-relative paths; '..' is not allowed."
    )
    # FileModifyParams as its model gives it.
    edit_only = {"displayOptions": {"show": {"operation": ["edit"]}}}
    assert SCHEMA == {
        "title": "FileModifyParams",
        "type": "object",
        "properties": {
            "operation": {
                "title": "Operation",
                "type": "string",
                "enum": ["write", "edit"],
                "default": "write",
            },
            "file_path": {"title": "File Path", "type": "string"},
            "content": {
                "title": "Content",
                "type": "string",
                "default": "",
                "displayOptions": {"show": {"operation": ["write"]}},
            },
            "old_string": {"title": "Old String", "type": "string", "default": "", **edit_only},
            "new_string": {"title": "New String", "type": "string", "default": "", **edit_only},
            "replace_all": {"title": "Replace All", "type": "boolean", "default": False, **edit_only},
        },
        "required": ["operation", "file_path"],
    }
    assert set(fm.OUTPUT_SCHEMA["properties"]) == {"written", "replacements"}
    assert fm.OUTPUT_SCHEMA["additionalProperties"] is True
    json.dumps(TOOL_SCHEMA)  # plain JSON
    # As the parameters model: operation defaults to write, unknown keys are ignored.
    answer = tool.invoke({"file_path": "d.txt", "content": "x", "working_directory": "/elsewhere"})
    assert answer == {"operation": "write", "file_path": "/d.txt"}
    assert (workspace / "d.txt").read_text() == "x"


# -- paths --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "error"),
    [
        ("../escape.txt", editkit.OutsideWorkspace),
        ("a/../../escape.txt", editkit.OutsideWorkspace),
        ("/../escape.txt", editkit.OutsideWorkspace),
        ("~/escape.txt", editkit.InvalidArgs),
        ("~", editkit.InvalidArgs),
        ("link/escape.txt", editkit.OutsideWorkspace),
    ],
)
def test_paths_leaving_the_workspace_are_refused(
    tool: FileModify, workspace: Path, tmp_path: Path, path: str, error: type
) -> None:
    (workspace / "link").symlink_to(tmp_path, target_is_directory=True)
    with pytest.raises(error):
        tool("write", path, content="escaped")
    with pytest.raises(error):
        tool("edit", path, old_string="a", new_string="b")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ws"]


def test_paths_are_the_originals_virtual_paths(tool: FileModify, workspace: Path) -> None:
    assert (
        tool("write", "/etc/editkit-remapped.conf", content="x")["file_path"] == "/etc/editkit-remapped.conf"
    )
    assert (workspace / "etc/editkit-remapped.conf").read_text() == "x"
    assert not Path("/etc/editkit-remapped.conf").exists()
    # The answer is the normalised virtual path.
    assert tool("write", "./notes//a.md/", content="a") == {"operation": "write", "file_path": "/notes/a.md"}
    assert (workspace / "notes/a.md").read_text() == "a"
    # Every path is rooted at the workspace, even one spelling the workspace folder itself.
    inside = os.path.join(tool.workspace_dir, "here.txt")
    assert tool("write", inside, content="y") == {"operation": "write", "file_path": inside}
    assert (workspace / inside.lstrip("/")).read_text() == "y"
    assert not (workspace / "here.txt").exists()
    # Through a link inside the workspace: the target is written, the answer names the path given.
    (workspace / "real").mkdir()
    (workspace / "alias").symlink_to("real", target_is_directory=True)
    assert tool("write", "alias/x.md", content="x")["file_path"] == "/alias/x.md"
    assert tool("edit", "alias/x.md", old_string="x", new_string="z")["file_path"] == "/alias/x.md"
    assert (workspace / "real/x.md").read_text() == "z"
    # Names a workspace folder holds: spaces, brackets, other scripts, a `~` inside.
    for name in ("my report (1).md", "\u00fcbersicht.md", "a/~b.md"):
        assert tool("write", name, content="n")["file_path"] == "/" + name
        assert (workspace / name).read_text() == "n"


ADVICE = (
    ". The filesystem is sandboxed to the per-workflow workspace root \u2014 use a path relative to the "
    "workspace (e.g. 'reports/data.csv'); '..' and '~' segments are rejected. To see what exists, use "
    "fs_search with mode='ls'."
)


@pytest.mark.parametrize(
    "path", ["a\nb.txt", "esc\x1b[31m.txt", "nul\x00.txt", "tab\there.txt", "del\x7f.txt", "dir\r/x.txt"]
)
def test_control_characters_in_paths_are_refused_as_the_original_refuses_them(
    tool: FileModify, workspace: Path, path: str
) -> None:
    expected = f"Path contains unsupported characters: {path!r}{ADVICE}"
    with pytest.raises(editkit.InvalidArgs) as refused:
        tool("write", path, content="x")
    assert refused.value.message == expected
    with pytest.raises(editkit.InvalidArgs) as refused:
        tool("edit", path, old_string="a", new_string="b")
    assert refused.value.message == expected
    assert list(workspace.iterdir()) == []


def test_a_path_over_4096_characters_is_refused_as_the_original_refuses_it(
    tool: FileModify, workspace: Path
) -> None:
    longest = "/".join(["d" * 200] * 20) + "/" + "f" * 75  # 4095 characters, 4096 with the leading /
    assert len(longest) == 4095
    with pytest.raises(editkit.InvalidArgs, match=r"^Path contains unsupported characters: "):
        tool("write", longest + "x", content="x")
    assert list(workspace.iterdir()) == []
    try:  # within the rule: the file system decides
        tool("write", longest, content="x")
    except editkit.EditkitError as refused:
        assert "unsupported characters" not in refused.message


@pytest.mark.parametrize("path", ["a/../b.txt", "../escape.txt", "~", "~/x.txt", "~user/x.txt"])
def test_traversal_is_refused_as_the_original_refuses_it(
    tool: FileModify, workspace: Path, path: str
) -> None:
    for call in (
        lambda: tool("write", path, content="x"),
        lambda: tool("edit", path, old_string="a", new_string="b"),
    ):
        with pytest.raises(editkit.EditkitError) as refused:
            call()
        assert refused.value.message == f"Path traversal not allowed: {path}{ADVICE}"
    assert list(workspace.iterdir()) == []


def test_a_path_is_checked_before_old_string_as_in_the_original(tool: FileModify) -> None:
    with pytest.raises(editkit.OutsideWorkspace, match="^Path traversal not allowed"):
        tool("edit", "../x.txt")


def test_a_link_leading_out_and_a_directory_are_worded_as_the_original(
    tool: FileModify, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "out").symlink_to(tmp_path, target_is_directory=True)
    with pytest.raises(editkit.OutsideWorkspace) as refused:
        tool("write", "out/x.txt", content="x")
    assert refused.value.message.splitlines()[0] == "Path '/out/x.txt' resolves outside workspace root"
    (workspace / "d").mkdir()
    with pytest.raises(editkit.IsDirectory) as refused:
        tool("write", "d", content="x")
    assert refused.value.message.splitlines()[0] == "Cannot write to /d: path is a directory"
    with pytest.raises(editkit.IsDirectory) as refused:
        tool("edit", "/d/", old_string="a", new_string="b")
    assert refused.value.message.splitlines()[0] == "Error: File '/d' not found"


# -- edit: the original's exact replacement ---------------------------------------------------


EOF_ONE = (
    "Error: old_string ends with a newline, but the file does not end with a newline. Retry with the "
    "trailing newline removed from old_string (and from new_string if it also ends with a newline)."
)


def test_an_old_string_with_a_final_newline_the_file_lacks_is_refused(
    tool: FileModify, workspace: Path
) -> None:
    (workspace / "x.py").write_text("x = 1")
    with pytest.raises(editkit.NotFound) as refused:
        tool("edit", "x.py", old_string="x = 1\n", new_string="x = 2\n")
    assert refused.value.message.splitlines()[0] == EOF_ONE
    assert (workspace / "x.py").read_text() == "x = 1"
    # Without the newline the rest stands twice: the message counts them.
    (workspace / "y.py").write_text("x = 1; x = 1")
    with pytest.raises(editkit.NotFound) as refused:
        tool("edit", "y.py", old_string="x = 1\n", new_string="x = 2\n", replace_all=True)
    assert refused.value.message.splitlines()[0] == (
        "Error: old_string ends with a newline, but the file does not end with a newline. With the trailing "
        "newline removed, old_string would appear 2 times in the file. Retry with the trailing newline "
        "removed and add surrounding context so the match is unique."
    )
    # The rest standing elsewhere but not at the end is plainly not found.
    (workspace / "z.py").write_text("x = 1 # one\nz = 3")
    with pytest.raises(editkit.NotFound) as refused:
        tool("edit", "z.py", old_string="x = 1\n", new_string="x = 2\n")
    assert refused.value.message.startswith("Error: String not found in file: 'x = 1\n'\n")
    assert (workspace / "y.py").read_text() == "x = 1; x = 1"
    # Where the newline stands, the edit is made.
    (workspace / "w.py").write_text("x = 1\ny = 2\nx = 1")
    assert tool("edit", "w.py", old_string="x = 1\n", new_string="x = 2\n")["occurrences"] == 1
    assert (workspace / "w.py").read_text() == "x = 2\ny = 2\nx = 1"


def test_edit_matches_exactly(tool: FileModify, workspace: Path) -> None:
    (workspace / "f.py").write_text("def f():\n    x  =  1\n")
    for old in ("x = 1", "    x = 1", "def f():\n  x  =  1"):
        with pytest.raises(editkit.NotFound, match="^Error: String not found in file"):
            tool("edit", "f.py", old_string=old, new_string="y")
    assert (workspace / "f.py").read_text() == "def f():\n    x  =  1\n"


def test_edit_counts_and_replaces_as_str_count_and_str_replace(tool: FileModify, workspace: Path) -> None:
    # Overlapping places count once, and the first is replaced.
    (workspace / "a.txt").write_text("aaa")
    assert tool("edit", "a.txt", old_string="aa", new_string="b")["occurrences"] == 1
    assert (workspace / "a.txt").read_text() == "ba"
    (workspace / "b.txt").write_text("aaaa")
    with pytest.raises(editkit.Ambiguous, match="^Error: String 'aa' appears 2 times in file"):
        tool("edit", "b.txt", old_string="aa", new_string="b")
    assert tool("edit", "b.txt", old_string="aa", new_string="b", replace_all=True)["occurrences"] == 2
    assert (workspace / "b.txt").read_text() == "bb"
    # The one place, standing inside a copy of the new text: replaced again, as the original does.
    (workspace / "c.txt").write_text("x = 1\ny = 2\n")
    assert tool("edit", "c.txt", old_string="y = 2", new_string="x = 1\ny = 2")["occurrences"] == 1
    assert (workspace / "c.txt").read_text() == "x = 1\nx = 1\ny = 2\n"
    # The new text standing where the old one is gone: not found.
    with pytest.raises(editkit.EditkitError, match="^Error: String not found in file: 'z = 0'"):
        tool("edit", "c.txt", old_string="z = 0", new_string="y = 2")
    # An edit whose new text is the old one answers as the original, and changes nothing.
    before = (workspace / "c.txt").read_bytes()
    assert tool("edit", "c.txt", old_string="y = 2", new_string="y = 2") == {
        "operation": "edit",
        "file_path": "/c.txt",
        "occurrences": 1,
    }
    assert tool("edit", "c.txt", old_string="x = 1", new_string="x = 1", replace_all=True)["occurrences"] == 2
    with pytest.raises(editkit.Ambiguous, match="^Error: String 'x = 1' appears 2 times in file"):
        tool("edit", "c.txt", old_string="x = 1", new_string="x = 1")
    with pytest.raises(editkit.NotFound, match="^Error: String not found in file: 'w'"):
        tool("edit", "c.txt", old_string="w", new_string="w")
    assert (workspace / "c.txt").read_bytes() == before


def test_edit_reads_its_strings_with_lf_endings(tool: FileModify, workspace: Path) -> None:
    (workspace / "f.txt").write_text("one\ntwo\nthree\n")
    assert tool("edit", "f.txt", old_string="one\r\ntwo\r", new_string="1\r\n2\r")["occurrences"] == 1
    assert (workspace / "f.txt").read_bytes() == b"1\n2\nthree\n"
    with pytest.raises(editkit.NotFound) as refused:
        tool("edit", "f.txt", old_string="nine\r\n", new_string="9")
    assert refused.value.message.startswith("Error: String not found in file: 'nine\n'\n")


@pytest.mark.parametrize(
    "raw",
    [
        b"caf\xe9\n",
        # Text in a legacy encoding or UTF-16 that editkit could read: the original reads UTF-8.
        "café crème brûlée à la française, déjà vu, naïve façade, et voilà\n".encode("cp1252"),
        "wide text, long enough to be taken for UTF-16 by its BOM\n".encode("utf-16"),
    ],
)
def test_a_file_that_is_not_utf8_is_worded_as_the_original(
    tool: FileModify, workspace: Path, raw: bytes
) -> None:
    # The original: except (OSError, UnicodeDecodeError, ...) as e: "Error editing file '<path>': {e}".
    (workspace / "latin1.txt").write_bytes(raw)
    with pytest.raises(UnicodeDecodeError) as python:
        raw.decode("utf-8")
    with pytest.raises((editkit.NotUtf8, editkit.Utf16)) as refused:
        tool("edit", "latin1.txt", old_string="caf", new_string="bar")
    assert refused.value.message == f"Error editing file '/latin1.txt': {python.value}"
    assert (workspace / "latin1.txt").read_bytes() == raw


# -- where the workspace comes from --------------------------------------------------------------


def test_the_module_function_needs_a_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(editkit.InvalidArgs, match="WORKSPACE_BASE_DIR"):
        file_modify("write", "a.txt", content="x")
    assert not (tmp_path / "a.txt").exists()  # never the current directory


def test_the_module_function_uses_the_original_default_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORKSPACE_BASE_DIR", str(tmp_path / "base"))
    assert fm.default_workspace_dir() == str(tmp_path / "base" / "default")
    assert file_modify("write", "notes/a.md", content="hi") == {
        "operation": "write",
        "file_path": "/notes/a.md",
    }
    assert (tmp_path / "base/default/notes/a.md").read_text() == "hi"
    # A new base is followed.
    monkeypatch.setenv("WORKSPACE_BASE_DIR", str(tmp_path / "other"))
    file_modify("write", "b.md", content="b")
    assert (tmp_path / "other/default/b.md").read_text() == "b"


def test_configure_sets_and_forgets_the_workspace(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    configured = fm.configure(workspace)
    assert isinstance(configured, FileModify) and configured.workspace_dir == os.path.realpath(workspace)
    file_modify("write", "c.txt", content="c")
    assert (workspace / "c.txt").read_text() == "c"
    assert file_modify("edit", "c.txt", old_string="c", new_string="d")["occurrences"] == 1
    assert (workspace / "c.txt").read_text() == "d"
    assert fm.configure() is None
    with pytest.raises(editkit.InvalidArgs):
        file_modify("write", "c.txt", content="x")
    # A toolkit of one's own: its options (here, a blocked pattern) apply, and paths are rooted at
    # its first root whatever it does with absolute paths.
    fm.configure(toolkit=editkit.Toolkit(workspace, blocked=["*.secret"], absolute_paths="refuse"))
    with pytest.raises(editkit.Blocked):
        file_modify("write", "notes.secret", content="x")
    assert file_modify("write", "/rooted.txt", content="x") == {
        "operation": "write",
        "file_path": "/rooted.txt",
    }
    assert (workspace / "rooted.txt").read_text() == "x"
    with pytest.raises(TypeError):
        FileModify(workspace, toolkit=editkit.Toolkit(workspace))


def test_a_missing_workspace_folder_is_created(tmp_path: Path) -> None:
    tool = FileModify(tmp_path / "workflows" / "42")
    tool("write", "out.txt", content="ok")
    assert (tmp_path / "workflows/42/out.txt").read_text() == "ok"


# -- the table of deliberate differences -------------------------------------------------------


def test_row_edit_keeps_crlf_and_lone_cr_line_endings(tool: FileModify, workspace: Path) -> None:
    (workspace / "win.py").write_bytes(b"def f():\r\n    return 1\r\n\r\nprint(f())\r\n")
    tool("edit", "win.py", old_string="    return 1", new_string="    x = 1\n    return x")
    assert (
        workspace / "win.py"
    ).read_bytes() == b"def f():\r\n    x = 1\r\n    return x\r\n\r\nprint(f())\r\n"
    (workspace / "mac.txt").write_bytes(b"a\rb\rc\r")
    tool("edit", "mac.txt", old_string="b", new_string="B")
    assert (workspace / "mac.txt").read_bytes() == b"a\rB\rc\r"


@pytest.mark.parametrize(
    "path", [".env", "config/.env.local", ".git/config", "keys/id_rsa", "server.pem", ".netrc"]
)
def test_row_blocked_paths_are_refused(tool: FileModify, workspace: Path, path: str) -> None:
    with pytest.raises(editkit.Blocked):
        tool("write", path, content="SECRET=1\n")
    assert not (workspace / path).exists()
    (workspace / path).parent.mkdir(parents=True, exist_ok=True)
    (workspace / path).write_text("SECRET=1\n")
    with pytest.raises(editkit.Blocked):
        tool("edit", path, old_string="SECRET=1", new_string="SECRET=2")
    assert (workspace / path).read_text() == "SECRET=1\n"


@pytest.mark.parametrize(
    "path",
    [
        "reports\\a.md",
        "C:\\reports\\a.md",
        "C:/reports/a.md",
        "c:a.md",
        "\\\\server\\share\\a.md",
        "//server/share/a.md",
    ],
)
def test_row_backslashes_and_drive_letters_are_refused(tool: FileModify, workspace: Path, path: str) -> None:
    with pytest.raises(editkit.InvalidArgs):
        tool("write", path, content="x")
    assert list(workspace.iterdir()) == []


def test_row_an_old_string_taking_in_the_byte_order_mark_is_not_found(
    tool: FileModify, workspace: Path
) -> None:
    (workspace / "bom.py").write_bytes(b"\xef\xbb\xbfa = 1\nb = 2\n")
    with pytest.raises(editkit.NotFound, match="^Error: String not found in file"):
        tool("edit", "bom.py", old_string="\ufeffa = 1", new_string="a = 0")
    assert tool("edit", "bom.py", old_string="a = 1", new_string="a = 0")["occurrences"] == 1
    assert (workspace / "bom.py").read_bytes() == b"\xef\xbb\xbfa = 0\nb = 2\n"


def test_row_binary_and_oversize_files_are_not_edited(workspace: Path) -> None:
    tool = FileModify(toolkit=editkit.Toolkit(workspace, diagnostics="off", max_read_bytes=64))
    (workspace / "nul.txt").write_bytes(b"a = 1\x00\n")
    with pytest.raises(editkit.Binary):
        tool("edit", "nul.txt", old_string="a = 1", new_string="a = 2")
    (workspace / "big.txt").write_text("a = 1\n" * 20)
    with pytest.raises(editkit.TooLarge):
        tool("edit", "big.txt", old_string="a = 1\n" * 20, new_string="")
    assert (workspace / "nul.txt").read_bytes() == b"a = 1\x00\n"
    assert (workspace / "big.txt").read_text() == "a = 1\n" * 20


EDITS_PER_WORKER = 6


def _slots(workers: int) -> str:
    return "".join(f"slot {w}-{i} = pending\n" for w in range(workers) for i in range(EDITS_PER_WORKER))


def test_row_concurrent_edits_from_threads_all_land(tool: FileModify, workspace: Path) -> None:
    workers = 6
    (workspace / "shared.txt").write_text(_slots(workers))
    failures: list[editkit.EditkitError] = []

    def work(w: int) -> None:
        try:
            for i in range(EDITS_PER_WORKER):
                tool(
                    "edit",
                    "shared.txt",
                    old_string=f"slot {w}-{i} = pending",
                    new_string=f"slot {w}-{i} = done",
                )
        except editkit.EditkitError as error:
            failures.append(error)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert (workspace / "shared.txt").read_text() == _slots(workers).replace("pending", "done")


WORKER = """
import sys
from editkit.compat.file_modify import FileModify
tool = FileModify(sys.argv[1])
w = int(sys.argv[2])
for i in range(int(sys.argv[3])):
    tool("edit", "shared.txt", old_string=f"slot {w}-{i} = pending", new_string=f"slot {w}-{i} = done")
"""


def test_row_concurrent_edits_from_processes_all_land(workspace: Path) -> None:
    workers = 4
    (workspace / "shared.txt").write_text(_slots(workers))
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(workspace), str(w), str(EDITS_PER_WORKER)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for w in range(workers)
    ]
    for process in processes:
        _, err = process.communicate(timeout=120)
        assert process.returncode == 0, err.decode()
    assert (workspace / "shared.txt").read_text() == _slots(workers).replace("pending", "done")
