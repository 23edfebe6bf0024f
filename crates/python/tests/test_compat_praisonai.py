"""editkit.compat.praisonai: PraisonAI's ``edit_tools`` and ``file_tools`` interface, backed by editkit.

The quick-start scenarios of PraisonAI's file-editing documentation, the message formats of
``praisonaiagents`` 1.7.17, and one test per row of the module's "deliberately safer" table.
Nothing here imports PraisonAI: the same scenarios run against the real PraisonAI in
``bench/bench_praisonai.py``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import json
import logging
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any, Callable

import editkit
import pytest
from editkit.compat import praisonai

APP = "def greet(name):\n    return 'hello ' + name\n\n\ndef main():\n    print(greet('a'))\n    print(greet('b'))\n"
SHA = hashlib.sha256


@pytest.fixture(autouse=True)
def _no_approval_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where PraisonAI is installed its approval gate wraps the writing tools: never prompt."""
    monkeypatch.setenv("PRAISONAI_AUTO_APPROVE", "true")


@pytest.fixture
def tools(workspace: Path) -> praisonai.EditTools:
    """An ``EditTools`` on the workspace with post-edit diagnostics off (messages without a tail)."""
    return praisonai.create_edit_tools(root=str(workspace), post_edit_diagnostics="off")


@pytest.fixture
def files(workspace: Path) -> praisonai.FileTools:
    return praisonai.create_file_tools(root=str(workspace))


@pytest.fixture
def module(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """The module-level functions, working in the workspace as if it were the directory at import."""
    monkeypatch.setattr(
        praisonai, "_edit_tools", praisonai.EditTools(root=str(workspace), post_edit_diagnostics="off")
    )
    monkeypatch.setattr(praisonai, "_file_tools", praisonai.FileTools(root=str(workspace)))
    return praisonai


def write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    path.write_bytes(data)
    return path


# ---------------------------------------------------------------------------------------------
# The quick start: read, then edit under the automatic guard; replace_all; expected_hash; force;
# an atomic two-file rename; the staleness refusal after an outside change.


def test_quick_start_read_then_edit_under_the_automatic_guard(module: Any, workspace: Path) -> None:
    app = write(workspace / "src/app.py", APP)
    content, sha = module.read_file("src/app.py")
    assert content == APP and sha == SHA(APP.encode()).hexdigest()

    message = module.edit_file("src/app.py", "return 'hello ' + name", "return f'hello {name}'")
    assert message == (
        "Success: Made 1 replacement(s) in src/app.py\n\nDiff:\n"
        "--- src/app.py (before)\n+++ src/app.py (after)\n"
        "@@ -1,5 +1,5 @@\n def greet(name):\n-    return 'hello ' + name\n+    return f'hello {name}'\n \n \n def main():\n"
    )
    assert app.read_text() == APP.replace("'hello ' + name", "f'hello {name}'")
    # The edit re-armed the guard at its own result: a second edit needs no read.
    assert module.edit_file("src/app.py", "def main():", "def run():").startswith(
        "Success: Made 1 replacement(s)"
    )


def test_quick_start_search_edit_verify(module: Any, workspace: Path) -> None:
    write(
        workspace / "src/user.js", "function getUserName(u) {\n  return u.name;\n}\nexport { getUserName };\n"
    )
    write(workspace / "src/other.py", "getUserName = None\n")
    found = json.loads(module.search_files("./src", "getusername", "*.js"))
    assert found == {
        "pattern": "getusername",
        "directory": "./src",
        "results": [
            {
                "file": "user.js",
                "matches": [
                    {"line_number": 1, "line": "function getUserName(u) {", "match_start": 9},
                    {"line_number": 4, "line": "export { getUserName };", "match_start": 9},
                ],
            }
        ],
        "total_files": 1,
        "total_matches": 2,
    }
    message = module.edit_file("src/user.js", "getUserName", "getUserEmail", replace_all=True)
    assert message.startswith("Success: Made 2 replacement(s) in src/user.js\n\nDiff:\n")
    content, _ = module.read_file("src/user.js")
    assert "getUserName" not in content and content.count("getUserEmail") == 2


def test_replace_all_and_the_ambiguity_it_resolves(module: Any, workspace: Path) -> None:
    css = write(workspace / "styles.css", "a { color: blue; }\nb { color: blue; }\n")
    assert module.edit_file("styles.css", "color: blue", "color: green") == (
        "Error: Ambiguous match - 'color: blue' occurs 2 times. Please provide more surrounding context to "
        "make the match unique, or use replace_all=True to replace all occurrences."
    )
    assert css.read_text() == "a { color: blue; }\nb { color: blue; }\n"
    message = module.edit_file("styles.css", "color: blue", "color: green", replace_all=True)
    assert message == (
        "Success: Made 2 replacement(s) in styles.css\n\nDiff:\n--- styles.css (before)\n+++ styles.css (after)\n"
        "@@ -1,2 +1,2 @@\n-a { color: blue; }\n-b { color: blue; }\n+a { color: green; }\n+b { color: green; }\n"
    )
    assert css.read_text() == "a { color: green; }\nb { color: green; }\n"


def test_expected_hash_is_checked_and_then_stands_in_for_the_guard(module: Any, workspace: Path) -> None:
    config = write(workspace / "config.js", "port: 3000\n")
    _, sha = module.read_file("config.js")
    assert module.edit_file("config.js", "port: 3000", "port: 8080", expected_hash=sha).startswith("Success")

    # A stale expected hash: refused with both hashes' first 8 digits, nothing written.
    current = SHA(b"port: 8080\n").hexdigest()
    assert module.edit_file("config.js", "port: 8080", "port: 9090", expected_hash=sha) == (
        "Error: File has been modified since last read. Please re-read the file before editing. "
        f"Expected hash: {sha[:8]}..., Current hash: {current[:8]}..."
    )
    # expected_hash > force: force does not bypass an explicit hash.
    refused = module.edit_file("config.js", "port: 8080", "port: 9090", expected_hash=sha, force=True)
    assert refused.startswith("Error: File has been modified since last read.")
    # A malformed hash can never match: the same message, with the current hash.
    assert module.edit_file("config.js", "port: 8080", "port: 9090", expected_hash="abc") == (
        "Error: File has been modified since last read. Please re-read the file before editing. "
        f"Expected hash: abc..., Current hash: {current[:8]}..."
    )
    assert config.read_text() == "port: 8080\n"

    # An outside change after the read: the automatic guard would refuse, but a current
    # expected_hash is the caller saying it knows this content.
    config.write_text("port: 8080\nhost: x\n")
    fresh = SHA(b"port: 8080\nhost: x\n").hexdigest()
    assert module.edit_file("config.js", "host: x", "host: y").startswith(
        "Error: File changed since it was read"
    )
    assert module.edit_file("config.js", "host: x", "host: y", expected_hash=fresh).startswith("Success")
    assert config.read_text() == "port: 8080\nhost: y\n"


def test_staleness_refusal_after_an_outside_change_then_force(module: Any, workspace: Path) -> None:
    app = write(workspace / "app.py", "DEBUG = True\n")
    _, sha = module.read_file("app.py")
    app.write_text("DEBUG = True\nLEVEL = 1\n")  # another agent, an editor, git checkout...
    current = SHA(b"DEBUG = True\nLEVEL = 1\n").hexdigest()
    assert module.edit_file("app.py", "DEBUG = True", "DEBUG = False") == (
        "Error: File changed since it was read - re-read before editing (or pass force=True to override). "
        f"Recorded hash: {sha[:8]}..., Current hash: {current[:8]}..."
    )
    assert app.read_text() == "DEBUG = True\nLEVEL = 1\n"
    # force: a deliberate blind write.
    assert module.edit_file("app.py", "DEBUG = True", "DEBUG = False", force=True).startswith("Success")
    assert app.read_text() == "DEBUG = False\nLEVEL = 1\n"
    # Or read again, then edit.
    app.write_text("DEBUG = False\nLEVEL = 2\n")
    module.read_file("app.py")
    assert module.edit_file("app.py", "LEVEL = 2", "LEVEL = 3").startswith("Success")


def test_atomic_two_file_rename_patch(module: Any, workspace: Path) -> None:
    write(workspace / "src/old_name.py", "def helper():\n    return 1\n")
    write(workspace / "tests/test_old_name.py", "from src.old_name import helper\n")
    patch = (
        "*** Begin Patch\n"
        "*** Move File: src/old_name.py -> src/new_name.py\n"
        "*** Move File: tests/test_old_name.py -> tests/test_new_name.py\n"
        "@@\n"
        "from src.old_name import helper\n"
        "===\n"
        "from src.new_name import helper\n"
        "*** End Patch\n"
    )
    assert module.apply_patch(patch) == (
        "Success: Applied patch to 2 file(s)\n\n"
        "Renamed src/old_name.py -> src/new_name.py\nNo changes detected\n\n"
        "Renamed tests/test_old_name.py -> tests/test_new_name.py\n"
        "--- tests/test_old_name.py -> tests/test_new_name.py (before)\n"
        "+++ tests/test_old_name.py -> tests/test_new_name.py (after)\n"
        "@@ -1 +1 @@\n-from src.old_name import helper\n+from src.new_name import helper\n"
    )
    assert sorted(str(p.relative_to(workspace)) for p in workspace.rglob("*.py")) == [
        "src/new_name.py",
        "tests/test_new_name.py",
    ]
    assert (workspace / "tests/test_new_name.py").read_text() == "from src.new_name import helper\n"

    # All or nothing: the second move's destination is taken, so the first does not happen.
    write(workspace / "b.py", "b\n")
    assert module.apply_patch(
        "*** Move File: src/new_name.py -> a.py\n*** Move File: tests/test_new_name.py -> b.py\n"
    ) == ("Error: Cannot move 'tests/test_new_name.py' to 'b.py': destination already exists")
    assert (workspace / "src/new_name.py").exists() and not (workspace / "a.py").exists()


def test_apply_patch_success_message_for_every_operation(module: Any, workspace: Path) -> None:
    write(workspace / "app.py", "x = 1\ny = 2\n")
    write(workspace / "old.txt", "bye\n")
    patch = (
        "*** Add File: notes.md\n# Notes\nship it\n"
        "*** Update File: app.py\n@@\ny = 2\n===\ny = 3\n"
        "*** Delete File: old.txt\n"
    )
    assert module.apply_patch(patch) == (
        "Success: Applied patch to 3 file(s)\n\n"
        "Added notes.md\n--- notes.md (before)\n+++ notes.md (after)\n@@ -0,0 +1,2 @@\n+# Notes\n+ship it\n\n\n"
        "Updated app.py\n--- app.py (before)\n+++ app.py (after)\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n\n\n"
        "Deleted old.txt"
    )
    assert (workspace / "notes.md").read_text() == "# Notes\nship it\n"
    assert (workspace / "app.py").read_text() == "x = 1\ny = 3\n"
    assert not (workspace / "old.txt").exists()


# ---------------------------------------------------------------------------------------------
# Message formats.


def test_edit_file_refusal_messages(tools: praisonai.EditTools, workspace: Path) -> None:
    write(workspace / "a.py", "x = 1\n")
    write(workspace / "u16.txt", "hello\n".encode("utf-16"))
    assert tools.edit_file("nope.py", "a", "b") == "Error: File not found: nope.py"
    assert tools.edit_file("a.py", "", "y") == "Error: old_string must be non-empty"
    assert tools.edit_file("a.py", "zzz", "y") == "Error: String not found in file: 'zzz'"
    long = "w" * 60
    assert tools.edit_file("a.py", long, "y") == f"Error: String not found in file: '{'w' * 50}...'"
    write(workspace / "b.py", f"{long}\n{long}\n")
    assert tools.edit_file("b.py", long, "y").startswith(
        f"Error: Ambiguous match - '{'w' * 30}...' occurs 2 times."
    )
    assert tools.edit_file("u16.txt", "h", "j") == (
        "Error: UTF-16 encoding is not supported. Please convert the file to UTF-8."
    )
    assert tools.edit_file("../a.py", "x", "y") == (
        f"Error editing file ../a.py: Path traversal detected: ../a.py escapes workspace {workspace.resolve()}"
    )
    assert tools.edit_file("/etc/hostname", "x", "y").startswith(
        "Error editing file /etc/hostname: Path traversal detected: /etc/hostname escapes workspace "
    )


def test_read_file_returns_content_and_hash_or_an_error_and_empty_hash(
    tools: praisonai.EditTools, workspace: Path
) -> None:
    write(workspace / "crlf.txt", b"alpha\r\nbeta\r\n")
    assert tools.read_file("crlf.txt") == ("alpha\r\nbeta\r\n", SHA(b"alpha\r\nbeta\r\n").hexdigest())
    assert tools.read_file("missing.txt") == ("Error: File not found: missing.txt", "")
    assert tools.read_file("/etc/passwd") == (
        f"Error reading file /etc/passwd: Path traversal detected: /etc/passwd escapes workspace {workspace.resolve()}",
        "",
    )
    (workspace / "folder").mkdir()
    message, sha = tools.read_file("folder")
    assert message.startswith("Error reading file folder: ") and sha == ""
    # Absolute paths inside the root are fine.
    assert tools.read_file(str(workspace / "crlf.txt"))[0] == "alpha\r\nbeta\r\n"


@pytest.mark.parametrize(
    "raw",
    [b"a\r\nb\nc\rd\n", b"lone\rcr\r", b"\r\n\n\r", b"\xef\xbb\xbfbom\r\nmixed\n", b"\xef\xbb\xbf", b""],
)
def test_read_file_gives_the_text_as_on_disk_without_its_bom(
    tools: praisonai.EditTools, workspace: Path, raw: bytes
) -> None:
    write(workspace / "f.txt", raw)
    text = raw.removeprefix(b"\xef\xbb\xbf").decode()  # as PraisonAI decodes the bytes
    assert tools.read_file("f.txt") == (text, SHA(raw).hexdigest())


def test_apply_patch_refusal_messages(tools: praisonai.EditTools, workspace: Path) -> None:
    write(workspace / "a.py", "def f():\n    return 1\n\ndef g():\n    return 1\n")
    write(workspace / "b.py", "b = 1\n")
    assert tools.apply_patch("") == "Error: Patch contains no operations"
    assert tools.apply_patch("*** Begin Patch\n*** End Patch\n") == "Error: Patch contains no operations"
    assert tools.apply_patch("garbage").startswith("Error: Invalid patch: ")
    assert tools.apply_patch("*** Move File: a.py\n") == (
        "Error: Invalid patch: Malformed Move File header (expected '<old> -> <new>'): 'a.py'"
    )
    assert tools.apply_patch("*** Move File: a.py -> \n") == (
        "Error: Invalid patch: Malformed Move File header (empty source or destination): 'a.py ->'"
    )
    assert tools.apply_patch("*** Add File: b.py\nx\n") == "Error: Cannot add 'b.py': file already exists"
    assert (
        tools.apply_patch("*** Update File: zz.py\n@@\na\n===\nb\n")
        == "Error: Cannot update 'zz.py': file not found"
    )
    assert tools.apply_patch("*** Delete File: zz.py\n") == "Error: Cannot delete 'zz.py': file not found"
    assert tools.apply_patch("*** Move File: zz.py -> y.py\n") == "Error: Cannot move 'zz.py': file not found"
    assert tools.apply_patch("*** Move File: a.py -> b.py\n") == (
        "Error: Cannot move 'a.py' to 'b.py': destination already exists"
    )
    assert tools.apply_patch("*** Update File: a.py\n@@\n    nothing here\n===\n    x\n") == (
        "Error: Hunk not found in 'a.py': '    nothing here'"
    )
    assert tools.apply_patch("*** Update File: a.py\n@@\n    return 1\n===\n    return 2\n") == (
        "Error: Ambiguous hunk in 'a.py': '    return 1' matches 2 locations"
    )
    assert tools.apply_patch("*** Update File: /etc/hosts\n@@\na\n===\nb\n") == (
        f"Error applying patch: Path traversal detected: /etc/hosts escapes workspace {workspace.resolve()}"
    )
    assert (workspace / "a.py").read_text() == "def f():\n    return 1\n\ndef g():\n    return 1\n"


def test_apply_patch_staleness_messages_and_force(tools: praisonai.EditTools, workspace: Path) -> None:
    for name in ("u.txt", "d.txt", "m.txt"):
        write(workspace / name, "one\n")
        tools.read_file(name)
        write(workspace / name, "one\ntwo\n")
    tail = "file changed since it was read - re-read before editing (or pass force=True to override)."
    assert (
        tools.apply_patch("*** Update File: u.txt\n@@\none\n===\nONE\n")
        == f"Error: Cannot update 'u.txt': {tail}"
    )
    assert tools.apply_patch("*** Delete File: d.txt\n") == f"Error: Cannot delete 'd.txt': {tail}"
    assert tools.apply_patch("*** Move File: m.txt -> n.txt\n") == f"Error: Cannot move 'm.txt': {tail}"
    assert tools.apply_patch("*** Update File: u.txt\n@@\none\n===\nONE\n", force=True).startswith(
        "Success: Applied patch to 1 file(s)"
    )
    assert (workspace / "u.txt").read_text() == "ONE\ntwo\n"


def test_search_files_messages(tools: praisonai.EditTools, workspace: Path) -> None:
    write(workspace / "pkg/a.py", "import os\n    IMPORT_ME = 1\n")
    write(workspace / "pkg/sub/b.py", "x = 'import'\n")
    write(workspace / "pkg/sub/c.txt", "import\n")
    result = json.loads(tools.search_files("pkg", "Import", "*.py"))
    assert [(r["file"], [m["line_number"] for m in r["matches"]]) for r in result["results"]] == [
        ("a.py", [1, 2]),
        ("sub/b.py", [1]),
    ]
    assert result["results"][0]["matches"][1] == {"line_number": 2, "line": "IMPORT_ME = 1", "match_start": 4}
    assert (result["total_files"], result["total_matches"]) == (2, 3)
    # A pattern with a folder matches at any depth, as PraisonAI's `<dir>/**/<pattern>` does.
    assert [r["file"] for r in json.loads(tools.search_files(".", "import", "sub/*.txt"))["results"]] == [
        "pkg/sub/c.txt"
    ]
    assert json.loads(tools.search_files("pkg", "nothing-like-this"))["results"] == []
    assert tools.search_files("missing", "x") == json.dumps({"error": "Directory not found: missing"})
    assert json.loads(tools.search_files("/etc", "x")) == {
        "error": f"Error searching files: Path traversal detected: /etc escapes workspace {workspace.resolve()}"
    }


def test_file_tools_read_file_windows_and_numbers(files: praisonai.FileTools, workspace: Path) -> None:
    write(workspace / "t.txt", "".join(f"line {i}\n" for i in range(1, 8)))
    assert files.read_file("t.txt", offset=2, limit=3) == (
        "     2\tline 2\n     3\tline 3\n     4\tline 4\n... (showing lines 2-4 of 7; call again with offset=5 for more)"
    )
    assert files.read_file("t.txt", line_numbers=False) == "".join(f"line {i}\n" for i in range(1, 8))
    assert files.read_file("t.txt", offset=6, line_numbers=False) == "line 6\nline 7\n"
    assert files.read_file("t.txt", offset=99) == ""
    assert (
        files.read_file("t.txt", limit=-1)
        == "... (showing lines 1-0 of 7; call again with offset=1 for more)"
    )
    assert files.read_file("t.txt", offset=7).startswith("     7\tline 7")
    write(workspace / "wide.txt", "x" * 30 + "\n")
    assert files.read_file("wide.txt", max_line_chars=10) == "     1\txxxxxxxxxx... (line truncated)"
    many = "".join(f"{i}\n" for i in range(2005))
    write(workspace / "many.txt", many)
    assert files.read_file("many.txt").endswith(
        "  2000\t1999\n... (showing lines 1-2000 of 2005; call again with offset=2001 for more)"
    )
    assert files.read_file("nope.txt").startswith("Error reading file nope.txt: ")
    assert (
        files.read_file("t.txt", encoding="no-such-codec")
        == "Error reading file t.txt: unknown encoding: no-such-codec"
    )


def test_file_tools_write_and_list(files: praisonai.FileTools, workspace: Path) -> None:
    assert files.write_file("out/hello.txt", "Hello World") is True
    assert (workspace / "out/hello.txt").read_text() == "Hello World"
    assert files.write_file("out/data.json", {"a": [1, "é"]}) is True
    assert (workspace / "out/data.json").read_text() == '{\n  "a": [\n    1,\n    "é"\n  ]\n}'
    assert files.write_file("out/n.txt", 42) is True and (workspace / "out/n.txt").read_text() == "42"
    assert files.write_file("../escape.txt", "x") is False and not (workspace.parent / "escape.txt").exists()

    listed = files.list_files("out")
    assert sorted(entry["name"] for entry in listed) == ["data.json", "hello.txt", "n.txt"]
    hello = next(entry for entry in listed if entry["name"] == "hello.txt")
    assert set(hello) == {"name", "path", "size", "modified", "created"}
    assert hello["path"] == str(workspace.resolve() / "out/hello.txt") and hello["size"] == 11
    assert isinstance(hello["modified"], float)
    (workspace / "out/sub").mkdir()
    assert "sub" not in [entry["name"] for entry in files.list_files("out")]
    assert [entry["name"] for entry in files.list_files("out", "*.txt")] == ["hello.txt", "n.txt"]
    (workspace / ".git").mkdir()
    write(workspace / ".gitignore", "build/\n")
    write(workspace / "build/gen.txt", "generated\n")
    assert [entry["name"] for entry in files.list_files(".", "**/*.txt")] == ["hello.txt", "n.txt"]
    assert files.list_files("missing")[0]["error"].startswith("Error listing files in missing: ")


def test_write_file_staleness_guard_and_force(
    files: praisonai.FileTools, workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    target = write(workspace / "notes.txt", "v1\n")
    files.read_file("notes.txt")
    target.write_text("v2 from elsewhere\n")
    with caplog.at_level(logging.ERROR, logger="editkit.compat.praisonai"):
        assert files.write_file("notes.txt", "v3\n") is False
    assert "Refusing to write notes.txt: file changed since it was read" in caplog.text
    assert target.read_text() == "v2 from elsewhere\n"
    assert files.write_file("notes.txt", "v3\n", force=True) is True
    assert target.read_text() == "v3\n"
    # A write re-arms the guard at what it wrote: the next write goes through.
    assert files.write_file("notes.txt", "v4\n") is True


def test_file_tools_and_edit_tools_share_one_staleness_guard(workspace: Path) -> None:
    target = write(workspace / "crlf.txt", b"alpha\r\nbeta\r\n")
    files = praisonai.FileTools(root=str(workspace))
    edits = praisonai.EditTools(root=str(workspace))
    files.read_file("crlf.txt")
    assert edits.edit_file("crlf.txt", "beta", "gamma").startswith("Success")  # not falsely stale
    files.read_file("crlf.txt")
    target.write_bytes(b"changed\r\n")
    assert edits.edit_file("crlf.txt", "changed", "x").startswith("Error: File changed since it was read")


def test_tool_sets_with_other_post_edit_settings_keep_their_own_guard(workspace: Path) -> None:
    target = write(workspace / "a.txt", "one\n")
    files = praisonai.FileTools(root=str(workspace))
    quiet = praisonai.EditTools(root=str(workspace), post_edit_diagnostics="off")
    assert quiet.toolkit is not files.toolkit
    quiet.read_file("a.txt")
    assert files.write_file("a.txt", "two\n") is True
    # For `quiet`, the write through the other tool set is a change like any other.
    assert quiet.edit_file("a.txt", "two", "three").startswith("Error: File changed since it was read")
    quiet.read_file("a.txt")
    assert quiet.edit_file("a.txt", "two", "three").startswith("Success")
    assert target.read_text() == "three\n"


def test_post_edit_diagnostics_modes(workspace: Path) -> None:
    write(workspace / "m.py", "x = 1\n")
    on = praisonai.EditTools(root=str(workspace), post_edit_diagnostics="ON")
    assert on._post_edit_diagnostics == "on"
    clean = on.edit_file("m.py", "x = 1", "x = 2")
    assert clean.startswith("Success") and clean.endswith("): no problems found")
    auto = praisonai.EditTools(
        root=str(workspace), post_edit_diagnostics="bogus"
    )  # PraisonAI: unknown -> auto
    assert auto._post_edit_diagnostics == "auto"
    broken = auto.edit_file("m.py", "x = 2", "x = (")
    assert broken.startswith("Success: Made 1 replacement(s) in m.py") and "\n\nDiagnostics (" in broken
    assert "m.py" in broken.split("\n\nDiagnostics (", 1)[1]
    off = praisonai.EditTools(root=str(workspace), post_edit_diagnostics="off")
    assert "Diagnostics" not in off.edit_file("m.py", "x = (", "x = (1")


def test_the_interface_is_praisonais(workspace: Path) -> None:
    def params(func: Callable[..., Any]) -> list[tuple[str, Any]]:
        return [
            (p.name, p.default)
            for p in inspect.signature(func).parameters.values()
            if p.name != "self" and p.kind is not p.KEYWORD_ONLY
        ]

    assert params(praisonai.edit_file) == [
        ("filepath", inspect.Parameter.empty),
        ("old_string", inspect.Parameter.empty),
        ("new_string", inspect.Parameter.empty),
        ("replace_all", False),
        ("expected_hash", None),
        ("force", False),
    ]
    assert params(praisonai.EditTools.edit_file) == params(praisonai.edit_file)
    assert (
        params(praisonai.apply_patch)
        == params(praisonai.EditTools.apply_patch)
        == [
            ("patch", inspect.Parameter.empty),
            ("force", False),
        ]
    )
    assert (
        params(praisonai.read_file)
        == params(praisonai.EditTools.read_file)
        == [("filepath", inspect.Parameter.empty)]
    )
    assert (
        params(praisonai.search_files)
        == params(praisonai.EditTools.search_files)
        == [
            ("directory", inspect.Parameter.empty),
            ("pattern", inspect.Parameter.empty),
            ("file_pattern", "*"),
        ]
    )
    assert (
        params(praisonai.create_edit_tools)
        == params(praisonai.EditTools.__init__)
        == [
            ("workspace", None),
            ("post_edit_diagnostics", "auto"),
            ("post_edit_format", "off"),
            ("formatters", None),
            ("root", None),
        ]
    )
    assert (
        params(praisonai.file_tools.read_file)
        == params(praisonai.FileTools.read_file)
        == [
            ("filepath", inspect.Parameter.empty),
            ("encoding", "utf-8"),
            ("offset", None),
            ("limit", None),
            ("line_numbers", True),
            ("max_line_chars", 2000),
        ]
    )
    assert (
        params(praisonai.write_file)
        == params(praisonai.FileTools.write_file)
        == [
            ("filepath", inspect.Parameter.empty),
            ("content", inspect.Parameter.empty),
            ("encoding", "utf-8"),
            ("force", False),
        ]
    )
    assert params(praisonai.list_files) == [("directory", inspect.Parameter.empty), ("pattern", None)]
    assert (
        params(praisonai.create_file_tools) == params(praisonai.FileTools.__init__) == [("workspace", None)]
    )
    assert praisonai.file_tools.read_file.__name__ == "read_file"
    assert praisonai.edit_tools.read_file is praisonai.read_file
    assert praisonai.file_tools.write_file is praisonai.write_file


def test_formatters_are_refused_loudly(workspace: Path) -> None:
    with pytest.raises(NotImplementedError, match="formatters"):
        praisonai.create_edit_tools(root=str(workspace), formatters={".py": ("black", ["black", "{path}"])})
    # The empty mapping and None change nothing.
    praisonai.create_edit_tools(root=str(workspace), formatters={})


def test_post_edit_format_runs_editkits_formatter(workspace: Path) -> None:
    tools = praisonai.create_edit_tools(
        root=str(workspace), post_edit_format="on", post_edit_diagnostics="off"
    )
    same = praisonai.create_edit_tools(
        root=str(workspace), post_edit_format="auto", post_edit_diagnostics="off"
    )
    assert tools.toolkit is same.toolkit
    assert (
        tools.toolkit
        is not praisonai.create_edit_tools(root=str(workspace), post_edit_diagnostics="off").toolkit
    )
    write(workspace / "f.py", "x = 1\n")
    assert tools.edit_file("f.py", "x = 1", "x = 2").startswith("Success")


def test_a_praisonai_workspace_gives_the_root(workspace: Path) -> None:
    write(workspace / "src/app.js", "const a = 1;\n")
    stand_in = types.SimpleNamespace(
        root=workspace, access="rw"
    )  # praisonaiagents.workspace.Workspace's fields
    tools = praisonai.create_edit_tools(workspace=stand_in, post_edit_diagnostics="off")
    assert tools.root == str(workspace.resolve())
    assert tools.edit_file("src/app.js", "const a = 1", "const a = 2").startswith("Success")
    assert (
        praisonai.create_file_tools(workspace=stand_in).read_file("src/app.js", line_numbers=False)
        == "const a = 2;\n"
    )


def test_the_module_level_tools_work_where_the_module_was_imported(workspace: Path, tmp_path: Path) -> None:
    write(workspace / "a.py", "x = 1\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = (
        "import os, sys\n"
        "from editkit.compat import praisonai\n"
        "os.chdir(sys.argv[1])\n"  # a later chdir moves nothing
        "print(praisonai.edit_file('a.py', 'x = 1', 'x = 2').splitlines()[0])\n"
        "print(praisonai.file_tools.read_file('a.py', line_numbers=False), end='')\n"
        "print(praisonai.edit_tools.edit_file('../a.py', 'x', 'y').split(':')[0])\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run(
        [sys.executable, "-c", code, str(elsewhere)],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out == "Success: Made 1 replacement(s) in a.py\nx = 2\nError editing file ../a.py\n"
    assert (workspace / "a.py").read_text() == "x = 2\n"


def test_the_writing_tools_carry_praisonais_approval_gate_when_praisonai_is_installed(
    monkeypatch: pytest.MonkeyPatch, workspace: Path
) -> None:
    gated: list[tuple[str, str]] = []

    def require_approval(risk_level: str = "high") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                gated.append((func.__name__, risk_level))
                return func(*args, **kwargs)

            return wrapper

        return decorate

    package = types.ModuleType("praisonaiagents")
    approval = types.ModuleType("praisonaiagents.approval")
    approval.require_approval = require_approval  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "praisonaiagents", package)
    monkeypatch.setitem(sys.modules, "praisonaiagents.approval", approval)
    spec = importlib.util.spec_from_file_location("praisonai_gated", praisonai.__file__)
    assert spec and spec.loader
    gated_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gated_module)

    write(workspace / "a.txt", "a\n")
    tools = gated_module.EditTools(root=str(workspace), post_edit_diagnostics="off")
    files = gated_module.FileTools(root=str(workspace))
    tools.read_file("a.txt")
    assert gated == []
    tools.edit_file("a.txt", "a", "b")
    tools.apply_patch("*** Add File: c.txt\nc\n")
    files.write_file("d.txt", "d")
    assert gated == [("edit_file", "high"), ("apply_patch", "high"), ("write_file", "high")]
    # Without PraisonAI there is no gate (and nothing to approve with).
    assert praisonai._require_approval is None or "praisonaiagents" in sys.modules


def test_apply_patch_also_takes_codex_patches_and_unified_diffs(
    tools: praisonai.EditTools, workspace: Path
) -> None:
    target = write(workspace / "x.py", "a = 1\nb = 2\n")
    codex = "*** Begin Patch\n*** Update File: x.py\n@@\n a = 1\n-b = 2\n+b = 3\n*** Add File: y.txt\n+hi\n*** End Patch\n"
    assert tools.apply_patch(codex).startswith("Success: Applied patch to 2 file(s)\n\nUpdated x.py\n")
    assert (workspace / "y.txt").read_text() == "hi\n"
    unified = "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n a = 1\n-b = 3\n+b = 4\n"
    assert tools.apply_patch(unified).startswith("Success: Applied patch to 1 file(s)")
    assert target.read_text() == "a = 1\nb = 4\n"


def test_paths_may_be_path_objects_and_odd_arguments_are_messages(
    tools: praisonai.EditTools, workspace: Path
) -> None:
    write(workspace / "a.py", "x = 1\n")
    assert tools.read_file(Path("a.py"))[0] == "x = 1\n"  # type: ignore[arg-type]
    assert tools.edit_file(Path("a.py"), "x = 1", "x = 2").startswith(
        "Success: Made 1 replacement(s) in a.py"
    )  # type: ignore[arg-type]
    assert tools.edit_file("a.py", b"x", "y").startswith("Error editing file a.py: ")  # type: ignore[arg-type]
    assert tools.apply_patch(None).startswith("Error applying patch: ")  # type: ignore[arg-type]


def test_the_toolkit_in_use_undoes_an_edit(tools: praisonai.EditTools, workspace: Path) -> None:
    target = write(workspace / "a.py", "x = 1\n")
    assert tools.edit_file("a.py", "x = 1", "x = 2").startswith("Success")
    tools.toolkit.undo_edit("a.py")
    assert target.read_text() == "x = 1\n"


def test_a_missing_root_is_an_error_message_not_an_exception(tmp_path: Path) -> None:
    tools = praisonai.create_edit_tools(root=str(tmp_path / "not-there"), post_edit_diagnostics="off")
    assert tools.read_file("a.py")[1] == ""
    assert tools.edit_file("a.py", "a", "b").startswith("Error")
    assert tools.apply_patch("*** Add File: a.py\nx\n").startswith("Error")
    assert "error" in json.loads(tools.search_files(".", "x"))


# ---------------------------------------------------------------------------------------------
# One test per row of the "deliberately safer" table.


def test_safer_drifted_old_string_is_reindented_like_the_file(
    tools: praisonai.EditTools, workspace: Path
) -> None:
    target = write(workspace / "m.py", "class A:\n    def f(self):\n        return 1\n")
    message = tools.edit_file(
        "m.py", "  def f(self):\n      return 1", "  def f(self):\n      return 2\n      # done"
    )
    assert message.startswith("Success: Made 1 replacement(s) in m.py")
    assert target.read_text() == "class A:\n    def f(self):\n        return 2\n        # done\n"


def test_safer_a_similar_block_is_changed_line_by_line_never_guessed(
    tools: praisonai.EditTools, workspace: Path
) -> None:
    source = "def compute(values):\n    total = 0\n    for value in values:\n        total += value\n    return total\n"
    target = write(workspace / "m.py", source)
    # old_string remembers a line wrongly (`* weight` is not in the file) and changes another.
    old = "def compute(values):\n    total = 0\n    for value in values:\n        total += value * weight\n    return total"
    new = old.replace("total = 0", "total = 1")
    assert tools.edit_file("m.py", old, new).startswith("Success: Made 1 replacement(s) in m.py")
    # Only the intended change lands; PraisonAI also writes the invented `total += value * weight`.
    assert target.read_text() == source.replace("total = 0", "total = 1")


def test_safer_a_retried_edit_is_refused_as_already_applied(
    tools: praisonai.EditTools, workspace: Path
) -> None:
    target = write(workspace / "m.py", "value = foo\n")
    assert tools.edit_file("m.py", "foo", "foo + bar").startswith("Success")
    again = tools.edit_file("m.py", "foo", "foo + bar")  # PraisonAI: `foo + bar + bar`
    assert again.startswith("Error: String not found in file: 'foo' - the new text is already there")
    assert target.read_text() == "value = foo + bar\n"
    write(workspace / "n.py", "a = 2\n")
    assert tools.edit_file("n.py", "a = 1", "a = 2").startswith(
        "Error: String not found in file: 'a = 1' - the new"
    )


def test_safer_an_edit_that_changes_nothing_is_refused(tools: praisonai.EditTools, workspace: Path) -> None:
    target = write(workspace / "m.py", "x = 1\n")
    before = target.stat().st_mtime_ns
    assert tools.edit_file("m.py", "x = 1", "x = 1") == (
        "Error: old_string and new_string are identical - the edit would change nothing"
    )
    assert target.stat().st_mtime_ns == before


def test_safer_line_endings_and_bom_are_kept(tools: praisonai.EditTools, workspace: Path) -> None:
    mixed = write(workspace / "mixed.txt", b"a\r\nb\nc\rd\n")
    assert tools.edit_file("mixed.txt", "b", "B").startswith("Success")
    assert mixed.read_bytes() == b"a\r\nB\nc\rd\n"  # PraisonAI: b"a\r\nB\r\nc\r\nd\r\n"
    bom = write(workspace / "bom.py", b"\xef\xbb\xbfx = 1\r\ny = 2\r\n")
    assert tools.edit_file("bom.py", "x = 1\ny = 2", "x = 1\ny = 3\nz = 4").startswith("Success")
    assert bom.read_bytes() == b"\xef\xbb\xbfx = 1\r\ny = 3\r\nz = 4\r\n"
    assert tools.apply_patch("*** Update File: mixed.txt\n@@\nd\n===\nD\nE\n").startswith("Success")
    assert mixed.read_bytes() == b"a\r\nB\nc\rD\nE\n"
    # read_file gives the text as PraisonAI decodes the bytes: every ending as it stands.
    assert tools.read_file("bom.py")[0] == "x = 1\r\ny = 3\r\nz = 4\r\n"
    assert tools.read_file("mixed.txt")[0] == "a\r\nB\nc\rD\nE\n"


def test_safer_the_hash_covers_the_bytes_bom_included(tools: praisonai.EditTools, workspace: Path) -> None:
    plain = write(workspace / "plain.txt", "same\n")
    assert tools.read_file("plain.txt")[1] == SHA(b"same\n").hexdigest()  # PraisonAI's value too
    bom = write(workspace / "bom.txt", b"\xef\xbb\xbfsame\n")
    _, sha = tools.read_file("bom.txt")
    assert sha == SHA(b"\xef\xbb\xbfsame\n").hexdigest()
    bom.write_bytes(b"same\n")  # the BOM dropped by another tool: a change
    assert tools.edit_file("bom.txt", "same", "other").startswith("Error: File changed since it was read")
    assert plain.read_text() == "same\n"


def test_safer_writes_replace_the_file_and_patches_are_all_or_nothing(
    tools: praisonai.EditTools, files: praisonai.FileTools, workspace: Path
) -> None:
    target = write(workspace / "a.txt", "one\n")
    inode = target.stat().st_ino
    assert tools.edit_file("a.txt", "one", "two").startswith("Success")
    assert target.stat().st_ino != inode  # a new file renamed over the old one, not rewritten in place
    inode = target.stat().st_ino
    assert files.write_file("a.txt", "three\n") is True and target.stat().st_ino != inode
    tools.read_file("a.txt")
    write(workspace / "b.txt", "b\n")
    refused = tools.apply_patch(
        "*** Update File: a.txt\n@@\nthree\n===\nfour\n*** Update File: b.txt\n@@\nzzz\n===\ny\n"
    )
    assert refused == "Error: Hunk not found in 'b.txt': 'zzz'"
    assert target.read_text() == "three\n" and (workspace / "b.txt").read_text() == "b\n"


def test_safer_paths_are_confined_by_capabilities(
    tools: praisonai.EditTools, workspace: Path, tmp_path: Path
) -> None:
    outside = write(tmp_path / "outside.txt", "secret\n")
    os.symlink(outside, workspace / "link.txt")
    write(workspace / "sub/a.txt", "a\n")
    for path in ("link.txt", "../outside.txt", str(outside), "~/outside.txt"):
        assert tools.edit_file(path, "secret", "x").startswith(f"Error editing file {path}: "), path
        assert tools.read_file(path)[1] == "", path
    assert tools.read_file("link.txt")[0] == (
        f"Error reading file link.txt: Path traversal detected: link.txt escapes workspace {workspace.resolve()}"
    )
    assert tools.apply_patch("*** Delete File: link.txt\n*** Add File: ../x.txt\nx\n").startswith(
        "Error applying patch"
    )
    assert outside.read_text() == "secret\n" and not (tmp_path / "x.txt").exists()
    # `..` that stays inside the root is fine, as are absolute paths inside it.
    assert tools.read_file("sub/../sub/a.txt")[0] == "a\n"
    assert tools.edit_file(str(workspace / "sub/a.txt"), "a", "b").startswith("Success")


def test_safer_secrets_are_blocked(
    tools: praisonai.EditTools, files: praisonai.FileTools, workspace: Path
) -> None:
    env = write(workspace / ".env", "API_KEY=secret\n")
    write(workspace / ".git/config", "[core]\n")
    write(workspace / "id_rsa", "-----BEGIN KEY-----\n")
    for path in (".env", ".git/config", "id_rsa"):
        assert tools.read_file(path)[1] == "" and "blocked" in tools.read_file(path)[0], path
        assert tools.edit_file(path, "e", "x").startswith(f"Error editing file {path}: "), path
        assert files.read_file(path).startswith(f"Error reading file {path}: "), path
        assert files.write_file(path, "x") is False, path
    assert tools.apply_patch("*** Update File: .env\n@@\nAPI_KEY=secret\n===\nAPI_KEY=x\n").startswith(
        "Error applying patch: "
    )
    assert json.loads(tools.search_files(".", "secret"))["results"] == []
    assert [entry["name"] for entry in files.list_files(".")] == ["id_rsa"] or files.list_files(".") == []
    assert env.read_text() == "API_KEY=secret\n"


def test_safer_a_read_only_workspace_refuses_every_write(workspace: Path) -> None:
    target = write(workspace / "a.txt", "a\n")
    for access in ("ro", "none"):
        stand_in = types.SimpleNamespace(root=workspace, access=access)
        tools = praisonai.create_edit_tools(workspace=stand_in, post_edit_diagnostics="off")
        files = praisonai.create_file_tools(workspace=stand_in)
        assert tools.read_file("a.txt")[0] == "a\n"
        assert tools.edit_file("a.txt", "a", "b").startswith("Error editing file a.txt: ")
        assert tools.apply_patch("*** Add File: b.txt\nb\n").startswith("Error")
        assert files.write_file("c.txt", "c") is False
    assert target.read_text() == "a\n" and sorted(p.name for p in workspace.iterdir()) == ["a.txt"]


def test_safer_binary_files_are_refused(
    tools: praisonai.EditTools, files: praisonai.FileTools, workspace: Path
) -> None:
    data = write(workspace / "blob.bin", b"abc\x00def\n")
    assert tools.read_file("blob.bin") == (
        "Error reading file blob.bin: binary file (8 bytes); only text files are read",
        "",
    )
    assert tools.edit_file("blob.bin", "abc", "x").startswith("Error editing file blob.bin: ")
    assert files.read_file("blob.bin").startswith("Error reading file blob.bin: binary file")
    assert json.loads(tools.search_files(".", "abc"))["results"] == []
    assert data.read_bytes() == b"abc\x00def\n"


def test_safer_files_over_the_size_limit_are_refused(workspace: Path) -> None:
    write(workspace / "big.txt", "x" * 5000 + "\n")
    tools = praisonai.create_edit_tools(
        toolkit=editkit.Toolkit(workspace, diagnostics="off", max_read_bytes=4096)
    )
    message, sha = tools.read_file("big.txt")
    assert message.startswith("Error reading file big.txt: ") and "4096" in message and sha == ""
    assert "4096" in tools.edit_file("big.txt", "x", "y")


def test_safer_a_cut_off_patch_is_refused(tools: praisonai.EditTools, workspace: Path) -> None:
    message = tools.apply_patch("*** Begin Patch\n*** Add File: a.txt\nfirst half\n")
    assert message.startswith("Error: Invalid patch: ") and "cut off" in message
    assert not (workspace / "a.txt").exists()
    # Without the sentinels (PraisonAI's own examples have none) a patch is complete as given.
    assert tools.apply_patch("*** Add File: a.txt\nwhole\n").startswith("Success")


def test_safer_a_hunk_without_its_separator_is_refused(tools: praisonai.EditTools, workspace: Path) -> None:
    target = write(workspace / "a.py", "keep = 1\ndrop = 2\n")
    assert tools.apply_patch("*** Update File: a.py\n@@\ndrop = 2\n").startswith("Error: Invalid patch: ")
    assert target.read_text() == "keep = 1\ndrop = 2\n"  # PraisonAI deletes `drop = 2`


def test_safer_hunks_replace_whole_lines(tools: praisonai.EditTools, workspace: Path) -> None:
    target = write(workspace / "a.py", "total = price * count\n")
    assert (
        tools.apply_patch("*** Update File: a.py\n@@\nprice\n===\ncost\n")
        == "Error: Hunk not found in 'a.py': 'price'"
    )
    assert target.read_text() == "total = price * count\n"  # PraisonAI: `total = cost * count`
    assert tools.apply_patch(
        "*** Update File: a.py\n@@\ntotal = price * count\n===\ntotal = cost * count\n"
    ).startswith("Success")


def test_safer_added_files_end_with_a_newline(tools: praisonai.EditTools, workspace: Path) -> None:
    assert tools.apply_patch("*** Add File: a.txt\none\ntwo\n\n\n*** Add File: b.txt\nb\n").startswith(
        "Success: Applied patch to 2 file(s)"
    )
    assert (workspace / "a.txt").read_text() == "one\ntwo\n"  # PraisonAI: "one\ntwo\n\n"
    assert (workspace / "b.txt").read_text() == "b\n"  # PraisonAI: "b"


def test_safer_search_honours_gitignore(tools: praisonai.EditTools, workspace: Path) -> None:
    (workspace / ".git").mkdir()  # a repository: its .gitignore applies, as with ripgrep
    write(workspace / ".gitignore", "node_modules/\n*.log\n")
    write(workspace / "src/a.js", "needle\n")
    write(workspace / "node_modules/lib/index.js", "needle\n")
    write(workspace / "debug.log", "needle\n")
    write(workspace / "src/long.txt", "x" * 3000 + " needle " + "y" * 3000 + "\n")
    found = json.loads(tools.search_files(".", "NEEDLE"))
    assert [result["file"] for result in found["results"]] == ["src/a.js", "src/long.txt"]
    long_match = found["results"][1]["matches"][0]
    assert long_match["match_start"] == 3001 and len(long_match["line"]) < 1000  # shown cut


def test_safer_file_tools_speak_utf8_only(files: praisonai.FileTools, workspace: Path) -> None:
    write(workspace / "bom.txt", b"\xef\xbb\xbfhi\r\n")
    assert files.read_file("bom.txt", line_numbers=False) == "\ufeffhi\n"  # text mode: BOM a character
    assert files.read_file("bom.txt", encoding="utf-8-sig", line_numbers=False) == "hi\n"
    assert files.read_file("bom.txt", encoding="UTF8", line_numbers=False) == "\ufeffhi\n"
    assert files.read_file("bom.txt", encoding="latin-1") == (
        "Error reading file bom.txt: editkit reads UTF-8 text only, not 'latin-1'"
    )
    assert (
        files.write_file("l.txt", "café", encoding="latin-1") is False and not (workspace / "l.txt").exists()
    )
    assert files.write_file("s.txt", "x", encoding="utf-8-sig") is True
    assert (workspace / "s.txt").read_bytes() == b"\xef\xbb\xbfx"


def test_safer_file_tools_root_is_pinned_at_creation(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(workspace / "a.txt", "mine\n")
    monkeypatch.chdir(workspace)
    files = praisonai.FileTools()
    edits = praisonai.EditTools(post_edit_diagnostics="off")
    other = tmp_path / "other"
    write(other / "a.txt", "theirs\n")
    monkeypatch.chdir(other)
    assert files.read_file("a.txt", line_numbers=False) == "mine\n"
    assert (
        files.write_file("b.txt", "b") is True
        and (workspace / "b.txt").exists()
        and not (other / "b.txt").exists()
    )
    assert edits.read_file("a.txt")[0] == "mine\n"


def test_safer_list_files_created_is_the_modification_time(
    files: praisonai.FileTools, workspace: Path
) -> None:
    target = write(workspace / "a.txt", "a\n")
    os.utime(target, (1_700_000_000, 1_700_000_000))
    (entry,) = files.list_files(".")
    assert entry["modified"] == entry["created"] == 1_700_000_000.0
