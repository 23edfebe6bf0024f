"""editkit.compat.praisonai: PraisonAI's ``edit_tools`` and ``file_tools`` interface, backed by editkit.

The quick-start scenarios of PraisonAI's file-editing documentation, the message formats of
``praisonaiagents`` 1.7.17, patches with the bytes PraisonAI 1.7.17 writes for them, and one test
per row of the module's table of differences. Nothing here imports PraisonAI (the expected bytes
and messages were taken from running it): the same scenarios run against the real PraisonAI in
``bench/bench_praisonai.py``.
"""

from __future__ import annotations

import difflib
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


@pytest.fixture(autouse=True)
def _fresh_read_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with an empty process-wide read-hash registry."""
    monkeypatch.setattr(praisonai, "_READ_HASHES", praisonai.OrderedDict())


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
        "Added notes.md\n--- notes.md (before)\n+++ notes.md (after)\n@@ -0,0 +1,2 @@\n+# Notes\n+ship it\n\n"
        "Updated app.py\n--- app.py (before)\n+++ app.py (after)\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n\n\n"
        "Deleted old.txt"
    )
    assert (workspace / "notes.md").read_text() == "# Notes\nship it"
    assert (workspace / "app.py").read_text() == "x = 1\ny = 3\n"
    assert not (workspace / "old.txt").exists()


# ---------------------------------------------------------------------------------------------
# Patches against PraisonAI's bytes: what praisonaiagents 1.7.17 answered (its first line) and
# the files it left, taken from running it; where a row of the module's table makes the adapter
# differ, what the adapter does instead.

OK_1 = "Success: Applied patch to 1 file(s)"
OK_2 = "Success: Applied patch to 2 file(s)"
_ROWS: set[str] = set()


def _case(
    name: str,
    before: dict[str, str],
    patch: str,
    praisonai_result: tuple[str, dict[str, str]],
    ours: tuple[str, dict[str, str]] | None = None,
    row: str = "",
) -> Any:
    """One patch: the files before, PraisonAI's result, and the adapter's when the table's
    ``row`` says it differs."""
    assert (ours is None) == (not row), name  # a difference names its row, and only a difference
    if row:
        _ROWS.add(row)
    return pytest.param(before, patch, ours or praisonai_result, id=name)


ABC = {"u.txt": "alpha\nbeta\ngamma\n"}
AB = {"u.txt": "alpha\nbeta\n"}
PATCHES = [
    # The same bytes as PraisonAI.
    _case(
        "update",
        ABC,
        "*** Update File: u.txt\n@@\nbeta\n===\nBETA\n",
        (OK_1, {"u.txt": "alpha\nBETA\ngamma\n"}),
    ),
    _case(
        "update, a blank line inside the new text",
        ABC,
        "*** Update File: u.txt\n@@\nbeta\n===\nBETA\n\nDELTA\n",
        (OK_1, {"u.txt": "alpha\nBETA\n\nDELTA\ngamma\n"}),
    ),
    _case(
        "update, two hunks",
        {"u.txt": "a\nb\nc\nd\n"},
        "*** Update File: u.txt\n@@\nb\n===\nB\n@@\nd\n===\nD\n",
        (OK_1, {"u.txt": "a\nB\nc\nD\n"}),
    ),
    _case(
        "update, several lines",
        {"u.txt": "a\nb\nc\nd\n"},
        "*** Update File: u.txt\n@@\nb\nc\n===\nB\nC\nX\n",
        (OK_1, {"u.txt": "a\nB\nC\nX\nd\n"}),
    ),
    _case(
        "update, a CRLF file",
        {"u.txt": "a\r\nb\r\nc\r\n"},
        "*** Update File: u.txt\n@@\nb\n===\nB\n",
        (OK_1, {"u.txt": "a\r\nB\r\nc\r\n"}),
    ),
    _case(
        "update, a file without final newline",
        {"u.txt": "a\nb"},
        "*** Update File: u.txt\n@@\nb\n===\nB\n",
        (OK_1, {"u.txt": "a\nB"}),
    ),
    _case(
        "update, the last line into two",
        {"u.txt": "a\nb\n"},
        "*** Update File: u.txt\n@@\nb\n===\nB\nC\n",
        (OK_1, {"u.txt": "a\nB\nC\n"}),
    ),
    _case(
        "update, text after @@",
        {"u.txt": "def f():\n    x = 1\n"},
        "*** Update File: u.txt\n@@ def f\n    x = 1\n===\n    x = 2\n",
        (OK_1, {"u.txt": "def f():\n    x = 2\n"}),
    ),
    _case(
        "update, lines starting with - and +",
        {"u.txt": "a\n-b\n+c\n"},
        "*** Update File: u.txt\n@@\n-b\n===\n+B\n",
        (OK_1, {"u.txt": "a\n+B\n+c\n"}),
    ),
    _case(
        "update, in sentinels",
        AB,
        "*** Begin Patch\n*** Update File: u.txt\n@@\nbeta\n===\nBETA\n*** End Patch\n",
        (OK_1, {"u.txt": "alpha\nBETA\n"}),
    ),
    _case(
        "update, End Patch only",
        AB,
        "*** Update File: u.txt\n@@\nbeta\n===\nBETA\n*** End Patch\n",
        (OK_1, {"u.txt": "alpha\nBETA\n"}),
    ),
    _case(
        "update, indented header",
        AB,
        "  *** Update File: u.txt\n@@\nbeta\n===\nBETA\n",
        (OK_1, {"u.txt": "alpha\nBETA\n"}),
    ),
    _case(
        "update, CRLF patch",
        AB,
        "*** Update File: u.txt\r\n@@\r\nbeta\r\n===\r\nBETA\r\n",
        (OK_1, {"u.txt": "alpha\nBETA\n"}),
    ),
    _case("move", {"m.txt": "m\r\n"}, "*** Move File: m.txt -> k.txt\n", (OK_1, {"k.txt": "m\r\n"})),
    _case(
        "move with a hunk",
        {"m.txt": "a\nb\n"},
        "*** Move File: m.txt -> d/k.txt\n@@\nb\n===\nB\n",
        (OK_1, {"d/k.txt": "a\nB\n"}),
    ),
    _case("delete", {"d.txt": "d\n"}, "*** Delete File: d.txt\n", (OK_1, {})),
    _case("delete after blank lines", {"u.txt": "a\n"}, "\n\n*** Delete File: u.txt\n", (OK_1, {})),
    _case("add an empty file", {}, "*** Add File: a.txt\n", (OK_1, {"a.txt": ""})),
    # PraisonAI's add: every line up to the next header or sentinel, blank ones too, joined by
    # newlines (the last without one).
    _case(
        "add",
        {},
        "*** Add File: a.txt\none\ntwo\n",
        (OK_1, {"a.txt": "one\ntwo"}),
    ),
    _case(
        "add, no final newline in the patch",
        {},
        "*** Add File: a.txt\none\ntwo",
        (OK_1, {"a.txt": "one\ntwo"}),
        ours=("Error: Invalid patch: invalid patch at line 3: the patch is incomplete", {}),
        row="A patch without sentinels ending in the middle of a line",
    ),
    _case(
        "add, CRLF patch",
        {},
        "*** Add File: a.txt\r\none\r\ntwo\r\n",
        (OK_1, {"a.txt": "one\ntwo"}),
    ),
    _case(
        "add, a blank line inside",
        {},
        "*** Add File: a.txt\none\n\ntwo\n",
        (OK_1, {"a.txt": "one\n\ntwo"}),
    ),
    _case(
        "add, blank lines before the next section",
        {},
        "*** Add File: a.txt\none\ntwo\n\n\n*** Add File: b.txt\nb\n",
        (OK_2, {"a.txt": "one\ntwo\n\n", "b.txt": "b"}),
    ),
    _case(
        "add, a whitespace-only last line",
        {},
        "*** Add File: a.txt\n  x  \n\t\n",
        (OK_1, {"a.txt": "  x  \n\t"}),
    ),
    _case(
        "add, lines like markers",
        {},
        "*** Add File: a.txt\n*** not a header\n@@\nx\n===\ny\n",
        (OK_1, {"a.txt": "*** not a header\n@@\nx\n===\ny"}),
    ),
    _case(
        "add a + line beside an update",
        AB,
        "*** Add File: n.md\n+ milk\n*** Update File: u.txt\n@@\nbeta\n===\nBETA\n",
        (OK_2, {"n.md": "+ milk", "u.txt": "alpha\nBETA\n"}),
    ),
    _case(
        "add beside an update, in sentinels",
        AB,
        "*** Begin Patch\n*** Add File: a.txt\none\n*** Update File: u.txt\n@@\nbeta\n===\nBETA\n*** End Patch\n",
        (OK_2, {"a.txt": "one", "u.txt": "alpha\nBETA\n"}),
    ),
    _case(
        "paths written ./",
        AB,
        "*** Update File: ./u.txt\n@@\nbeta\n===\nBETA\n*** Add File: ./n.txt\nx\n",
        (OK_2, {"n.txt": "x", "u.txt": "alpha\nBETA\n"}),
    ),
    # Blank lines closing a hunk's old or new text are separators.
    _case(
        "update, a blank line closing the old text",
        {"u4.txt": "alpha\nbeta\ngamma\n"},
        "*** Update File: u4.txt\n@@\nbeta\n\n===\nBETA\n",
        (OK_1, {"u4.txt": "alpha\nBETAgamma\n"}),
        ours=(OK_1, {"u4.txt": "alpha\nBETA\ngamma\n"}),
        row="Blank lines closing a hunk's old or new text",
    ),
    _case(
        "update, a blank line closing the new text",
        ABC,
        "*** Update File: u.txt\n@@\nbeta\n===\nBETA\n\n",
        (OK_1, {"u.txt": "alpha\nBETA\n\ngamma\n"}),
        ours=(OK_1, {"u.txt": "alpha\nBETA\ngamma\n"}),
        row="Blank lines closing a hunk's old or new text",
    ),
    _case(
        "update, a blank line before the next section",
        ABC,
        "*** Update File: u.txt\n@@\nbeta\n===\nBETA\n\n*** Add File: n.txt\nx\n",
        (OK_2, {"n.txt": "x", "u.txt": "alpha\nBETA\n\ngamma\n"}),
        ours=(OK_2, {"n.txt": "x", "u.txt": "alpha\nBETA\ngamma\n"}),
        row="Blank lines closing a hunk's old or new text",
    ),
    _case(
        "update, nothing after ===",
        {"u.txt": "a\nb\nc\n"},
        "*** Update File: u.txt\n@@\nb\n===\n",
        (OK_1, {"u.txt": "a\n\nc\n"}),
        ours=(OK_1, {"u.txt": "a\nc\n"}),
        row="A patch hunk with nothing after its === line",
    ),
    _case(
        "a Codex patch",
        {"x.py": "a = 1\nb = 2\n"},
        "*** Begin Patch\n*** Update File: x.py\n@@\n a = 1\n-b = 2\n+b = 3\n*** End Patch\n",
        ("Error: Hunk not found in 'x.py': ' a = 1", {"x.py": "a = 1\nb = 2\n"}),
        ours=("Error: Invalid patch: invalid patch at line 3: ", {"x.py": "a = 1\nb = 2\n"}),
        row="A Codex patch",
    ),
    _case(
        "not a patch",
        {},
        "hello\n",
        ("Error: Invalid patch: Unexpected line in patch (expected a section header): 'hello'", {}),
    ),
    # PraisonAI's own dialect, read as such (``dialect="hunks"``): added lines are literal.
    _case(
        "add + lines",
        {},
        "*** Add File: notes.md\n+ milk\n+ eggs\n",
        (OK_1, {"notes.md": "+ milk\n+ eggs"}),
    ),
    _case(
        "add +lines",
        {},
        "*** Add File: a.txt\n+one\n+two\n",
        (OK_1, {"a.txt": "+one\n+two"}),
    ),
    _case(
        "add + lines, in sentinels",
        {},
        "*** Begin Patch\n*** Add File: notes.md\n+ milk\n+ eggs\n*** End Patch\n",
        (OK_1, {"notes.md": "+ milk\n+ eggs"}),
    ),
    _case(
        "add, in sentinels",
        {},
        "*** Begin Patch\n*** Add File: a.txt\none\ntwo\n*** End Patch\n",
        (OK_1, {"a.txt": "one\ntwo"}),
    ),
    _case(
        "add beside a move",
        {"m.txt": "m\n"},
        "*** Add File: n.md\nmilk\n*** Move File: m.txt -> k.txt\n",
        (OK_2, {"k.txt": "m\n", "n.md": "milk"}),
    ),
    _case(
        "update, an indented ===",
        AB,
        "*** Update File: u.txt\n@@\nbeta\n  ===  \nBETA\n",
        (OK_1, {"u.txt": "alpha\nBETA\n"}),
    ),
    # Leniencies of PraisonAI's parser the toolkit does not share (a row each).
    _case(
        "move a->b",
        {"m.txt": "m\n"},
        "*** Move File: m.txt->k.txt\n",
        (OK_1, {"k.txt": "m\n"}),
        ours=(
            "Error: Invalid patch: Unexpected line in patch (expected a section header): '*** Move File: m.txt",
            {"m.txt": "m\n"},
        ),
        row="A *** Move File: header without exactly one -> between two paths",
    ),
    _case(
        "move a -> b -> c",
        {"m.txt": "m\n"},
        "*** Move File: m.txt -> k -> j.txt\n",
        (OK_1, {"k -> j.txt": "m\n"}),
        ours=(
            "Error: Invalid patch: Unexpected line in patch (expected a section header): '*** Move File: m.txt",
            {"m.txt": "m\n"},
        ),
        row="A *** Move File: header without exactly one -> between two paths",
    ),
    _case(
        "update, hunk lines without @@",
        AB,
        "*** Update File: u.txt\nbeta\n===\nBETA\n",
        (OK_1, {"u.txt": "alpha\nbeta\n"}),
        ours=(OK_1, {"u.txt": "alpha\nBETA\n"}),
        row="Lines of an update section outside an @@ hunk",
    ),
    _case(
        "update, a line before @@",
        AB,
        "*** Update File: u.txt\njunk\n@@\nbeta\n===\nBETA\n",
        (OK_1, {"u.txt": "alpha\nBETA\n"}),
        ours=("Error: Invalid patch: invalid patch at line 2: ", AB),
        row="Lines of an update section outside an @@ hunk",
    ),
    _case(
        "update without hunks",
        {"u.txt": "alpha\n"},
        "*** Update File: u.txt\n",
        (OK_1, {"u.txt": "alpha\n"}),
        ours=("Error: Invalid patch: invalid patch at line 1: ", {"u.txt": "alpha\n"}),
        row="An *** Update File: section without hunks",
    ),
    _case(
        "update, a second ===",
        AB,
        "*** Update File: u.txt\n@@\nbeta\n===\nBETA\n===\nGAMMA\n",
        (OK_1, {"u.txt": "alpha\nBETA\nGAMMA\n"}),
        ours=(OK_1, {"u.txt": "alpha\nBETA\n===\nGAMMA\n"}),
        row="A === line inside a hunk's new text",
    ),
    _case(
        "update, an old side of a blank line",
        {"u.txt": "a\n\nb\n"},
        "*** Update File: u.txt\n@@\n\n===\nx\n",
        ("Error: Empty hunk in update for 'u.txt'", {"u.txt": "a\n\nb\n"}),
    ),
    _case(
        "update, no old lines",
        {"empty.txt": ""},
        "*** Update File: empty.txt\n@@\n===\ny\n",
        ("Error: Empty hunk in update for 'empty.txt'", {"empty.txt": ""}),
    ),
    _case(
        "update, text after @@ that is not in the file",
        AB,
        "*** Update File: u.txt\n@@ def main\nbeta\n===\nBETA\n",
        (OK_1, {"u.txt": "alpha\nBETA\n"}),
        ours=("Error: Hunk not found in 'u.txt': 'beta'", AB),
        row="Text after @@",
    ),
    _case(
        "move onto itself",
        {"u.txt": "a\n"},
        "*** Move File: u.txt -> u.txt\n",
        ("Error: Cannot move 'u.txt' to 'u.txt': source and destination are the same path", {"u.txt": "a\n"}),
    ),
    _case(
        "move onto itself, spelt another way, with a hunk",
        {"u.txt": "a\n"},
        "*** Move File: ./u.txt -> u.txt\n@@\na\n===\nb\n",
        ("Error: Cannot move './u.txt' to 'u.txt': source and destination are the same path", {"u.txt": "a\n"}),
    ),
]


def test_every_patch_difference_has_its_row_in_the_table() -> None:
    doc = praisonai.__doc__ or ""
    situations = {
        line.split(" | ")[0].lstrip("| ").replace("``", "") for line in doc.splitlines() if line.startswith("| ")
    }
    missing = [row for row in sorted(_ROWS) if not any(situation.startswith(row) for situation in situations)]
    assert _ROWS and not missing


def _tree(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): path.read_bytes().decode()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


@pytest.mark.parametrize(("before", "patch", "expected"), PATCHES)
def test_patches_give_praisonais_bytes(
    tools: praisonai.EditTools,
    workspace: Path,
    before: dict[str, str],
    patch: str,
    expected: tuple[str, dict[str, str]],
) -> None:
    for name, text in before.items():
        write(workspace / name, text)
    first_line, files = expected
    assert tools.apply_patch(patch).split("\n", 1)[0].startswith(first_line)
    assert _tree(workspace) == files


def test_a_patch_goes_to_editkit_as_written(
    tools: praisonai.EditTools, monkeypatch: pytest.MonkeyPatch
) -> None:
    """editkit gets the patch as written, with ``*** End Patch`` added when it has neither
    sentinel and ends with a line break and each added file's lines closed by ``\\ No newline
    at end of file`` (taken as written, as PraisonAI joins them), to read in PraisonAI's dialect
    (a dry run first: the adapter only ranks the problems it finds among PraisonAI's own
    checks)."""
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(
        tools, "_call", lambda tool, args: sent.append(dict(args)) or {"ok": False, "error": {}}
    )
    patches = {
        "*** Add File: notes.md\n+ milk\n+ eggs\n": (
            "*** Add File: notes.md\n+ milk\n+ eggs\n\\ No newline at end of file\n*** End Patch\n"
        ),
        "*** Update File: u4.txt\n@@\nbeta\n\n===\nBETA\n": "*** Update File: u4.txt\n@@\nbeta\n\n===\nBETA\n*** End Patch\n",
        "*** Move File: a -> b\n": "*** Move File: a -> b\n*** End Patch\n",
        # Ending mid-line, it may be cut: editkit gets it as it is and refuses it.
        "*** Move File: a -> b": "*** Move File: a -> b",
        "*** Begin Patch\n*** Delete File: a\n*** End Patch\n": "*** Begin Patch\n*** Delete File: a\n*** End Patch\n",
        "*** Delete File: a\n*** End Patch": "*** Delete File: a\n*** End Patch",
        "*** Begin Patch\n*** Delete File: a\n": "*** Begin Patch\n*** Delete File: a\n",
        "": "",
    }
    for patch, text in patches.items():
        sent.clear()
        tools.apply_patch(patch, force=True)
        assert sent == [{"patch": text, "dialect": "hunks", "force": True, "dry_run": True}], patch
    sent.clear()
    tools.apply_patch("*** Delete File: a\n")  # the guard's dry run reads it as hunks too
    assert [args.get("dialect") for args in sent] == ["hunks"]


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


def test_every_row_of_the_documented_apply_patch_messages_holds(
    tools: praisonai.EditTools, workspace: Path
) -> None:
    """The "apply_patch Error Messages" table of PraisonAI's file-editing documentation, row by
    row; a documented refusal changes nothing."""
    write(workspace / "a.py", "def f():\n    return 1\n\ndef g():\n    return 1\n")
    write(workspace / "b.py", "b = 1\n")
    write(workspace / "empty.txt", "")
    write(workspace / "u16.txt", "x = 1\n".encode("utf-16"))
    write(workspace / "s.txt", "one\n")
    write(workspace / "d.txt", "one\n")
    rows = [
        ("Empty / no operations", "*** Begin Patch\n*** End Patch\n", "Error: Patch contains no operations"),
        (
            "Malformed header",
            "*** Updat File: a.py\n@@\nx\n===\ny\n",
            "Error: Invalid patch: Unexpected line in patch (expected a section header): ",
        ),
        (
            "orphan body",
            "*** Begin Patch\nhello\n*** Update File: a.py\n@@\nx\n===\ny\n*** End Patch\n",
            "Error: Invalid patch: Unexpected line in patch (expected a section header): ",
        ),
        (
            "orphan body after a deletion",
            "*** Delete File: b.py\nstray\n",
            "Error: Invalid patch: Unexpected line in patch (expected a section header): ",
        ),
        ("Add target already exists", "*** Add File: b.py\nx\n", "Error: Cannot add 'b.py': file already exists"),
        ("Delete target missing", "*** Delete File: zz.py\n", "Error: Cannot delete 'zz.py': file not found"),
        (
            "Update target missing",
            "*** Update File: zz.py\n@@\na\n===\nb\n",
            "Error: Cannot update 'zz.py': file not found",
        ),
        ("Empty hunk old-block", "*** Update File: empty.txt\n@@\n===\ny\n", "Error: Empty hunk in update for 'empty.txt'"),
        (
            "Empty hunk old-block, after another section",
            "*** Update File: b.py\n@@\nb = 1\n===\nb = 2\n*** Update File: a.py\n@@\n\n===\nz\n",
            "Error: Empty hunk in update for 'a.py'",
        ),
        (
            "Hunk not found",
            "*** Update File: a.py\n@@\nnothing here\n===\nx\n",
            "Error: Hunk not found in 'a.py': 'nothing here'",
        ),
        (
            "Ambiguous hunk",
            "*** Update File: a.py\n@@\n    return 1\n===\n    return 2\n",
            "Error: Ambiguous hunk in 'a.py': '    return 1' matches 2 locations",
        ),
        (
            "UTF-16 file",
            "*** Update File: u16.txt\n@@\nx = 1\n===\nx = 2\n",
            "Error: Cannot update 'u16.txt': UTF-16 encoding is not supported. Please convert the file to UTF-8.",
        ),
    ]
    before = _tree_bytes(workspace)
    for trigger, patch, message in rows:
        answer = tools.apply_patch(patch)
        assert answer.startswith(message), (trigger, answer)
        assert _tree_bytes(workspace) == before, trigger
    # Automatic staleness, Update and Delete.
    tools.read_file("s.txt")
    tools.read_file("d.txt")
    write(workspace / "s.txt", "changed\n")
    write(workspace / "d.txt", "changed\n")
    before = _tree_bytes(workspace)
    assert tools.apply_patch("*** Update File: s.txt\n@@\nchanged\n===\nx\n") == (
        "Error: Cannot update 's.txt': file changed since it was read - re-read before editing "
        "(or pass force=True to override)."
    )
    assert tools.apply_patch("*** Delete File: d.txt\n") == (
        "Error: Cannot delete 'd.txt': file changed since it was read - re-read before editing "
        "(or pass force=True to override)."
    )
    assert _tree_bytes(workspace) == before
    # Success: "Success: Applied patch to N file(s)\n\n<combined diff>".
    answer = tools.apply_patch("*** Update File: b.py\n@@\nb = 1\n===\nb = 2\n")
    assert answer.startswith("Success: Applied patch to 1 file(s)\n\n") and "+b = 2" in answer


def _tree_bytes(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def test_apply_patch_refusal_messages(tools: praisonai.EditTools, workspace: Path) -> None:
    write(workspace / "a.py", "def f():\n    return 1\n\ndef g():\n    return 1\n")
    write(workspace / "b.py", "b = 1\n")
    assert tools.apply_patch("") == "Error: Patch contains no operations"
    assert tools.apply_patch("*** Begin Patch\n*** End Patch\n") == "Error: Patch contains no operations"
    assert tools.apply_patch("\n  \n") == "Error: Patch contains no operations"
    assert tools.apply_patch("*** End Patch\n") == "Error: Patch contains no operations"
    assert tools.apply_patch("*** Begin Patch\n") == "Error: Patch contains no operations"
    assert tools.apply_patch("garbage").startswith("Error: Invalid patch: ")
    assert tools.apply_patch(None) == (  # type: ignore[arg-type]
        "Error applying patch: 'NoneType' object has no attribute 'splitlines'"
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
    assert tools.apply_patch("*** Update File: a.py\n@@\nnothing here\n===\nx\n") == (
        "Error: Hunk not found in 'a.py': 'nothing here'"
    )
    assert tools.apply_patch("*** Update File: a.py\n@@\n    return 1\n===\n    return 2\n") == (
        "Error: Ambiguous hunk in 'a.py': '    return 1' matches 2 locations"  # the old text as written
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


def test_os_errors_read_as_praisonais(
    tools: praisonai.EditTools, files: praisonai.FileTools, workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Where editkit's error says what Python's would, the message is PraisonAI's (its ``open``'s
    ``OSError`` text, with the absolute real path)."""
    write(workspace / "a.py", "x = 1\n")
    (workspace / "folder").mkdir()
    root = workspace.resolve()
    assert tools.edit_file("folder", "a", "b") == (
        f"Error editing file folder: [Errno 21] Is a directory: '{root}/folder'"
    )
    assert tools.read_file("folder") == (
        f"Error reading file folder: [Errno 21] Is a directory: '{root}/folder'",
        "",
    )
    assert (
        files.read_file("folder") == f"Error reading file folder: [Errno 21] Is a directory: '{root}/folder'"
    )
    assert files.read_file("nope.txt") == (
        f"Error reading file nope.txt: [Errno 2] No such file or directory: '{root}/nope.txt'"
    )
    assert files.list_files("missing") == [
        {"error": f"Error listing files in missing: [Errno 2] No such file or directory: '{root}/missing'"}
    ]
    assert files.list_files("a.py") == [
        {"error": f"Error listing files in a.py: [Errno 20] Not a directory: '{root}/a.py'"}
    ]
    # pathlib's glob finds nothing under a missing folder or a file; glob.glob nothing under a file.
    assert files.list_files("missing", "*.py") == [] and files.list_files("a.py", "*.py") == []
    assert json.loads(tools.search_files("a.py", "x"))["results"] == []
    with caplog.at_level(logging.ERROR, logger="editkit.compat.praisonai"):
        assert files.write_file("folder", "x") is False
    assert f"Error writing to file folder: [Errno 21] Is a directory: '{root}/folder'" in caplog.text


def test_file_tools_paths_are_checked_as_praisonai_checks_them(
    files: praisonai.FileTools, workspace: Path
) -> None:
    write(workspace / "sub/a.txt", "a\n")
    # Without a workspace PraisonAI's FileTools refuses any `..`, even one that stays inside.
    assert files.read_file("sub/../sub/a.txt") == (
        "Error reading file sub/../sub/a.txt: Path traversal detected: sub/../sub/a.txt"
    )
    assert files.write_file("sub/../b.txt", "b") is False and not (workspace / "b.txt").exists()
    assert files.list_files("sub/..") == [
        {"error": "Error listing files in sub/..: Path traversal detected: sub/.."}
    ]
    # `~` is the home folder, refused when it is outside the root.
    home = os.path.expanduser("~/x.txt")
    assert files.read_file("~/x.txt") == (
        f"Error reading file ~/x.txt: Path traversal detected: {home} escapes workspace {workspace.resolve()}"
    )
    # Patterns leading out are refused; one ending in `**` finds folders only.
    for pattern in ("../*.txt", "/etc/*", "sub/..x/*"):
        assert files.list_files(".", pattern) == [
            {"error": f"Error listing files in .: Invalid file pattern: {pattern}"}
        ], pattern
    assert files.list_files(".", "**") == [] and files.list_files(".", "sub/**") == []


def test_a_read_only_workspace_refuses_writes_with_praisonais_words(
    workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    for access, reason in (
        ("ro", "Workspace is not writable: access='ro'"),
        ("none", "Workspace access is disabled"),
    ):
        files = praisonai.create_file_tools(workspace=types.SimpleNamespace(root=workspace, access=access))
        caplog.clear()
        with caplog.at_level(logging.ERROR, logger="editkit.compat.praisonai"):
            assert files.write_file("a.txt", "a") is False
        assert f"Error writing to file a.txt: {reason}" in caplog.text


def test_dot_files_in_listings_and_searches_as_praisonai(
    tools: praisonai.EditTools, files: praisonai.FileTools, workspace: Path
) -> None:
    for name in ("a.py", ".dot.py", "sub/s.py", "sub/.d2.py", ".cfg"):
        write(workspace / name, "needle\n")
    # list_files: pathlib's glob lists dot files; search_files: glob.glob skips them unless the
    # pattern names a dot.
    assert [entry["name"] for entry in files.list_files(".", "*.py")] == [".dot.py", "a.py"]
    assert [entry["name"] for entry in files.list_files(".")] == [".cfg", ".dot.py", "a.py"]
    assert [entry["name"] for entry in files.list_files("sub", ".*")] == [".d2.py"]

    def found(file_pattern: str) -> list[str]:
        return [
            result["file"]
            for result in json.loads(tools.search_files(".", "needle", file_pattern))["results"]
        ]

    assert found("*.py") == ["a.py", "sub/s.py"]
    assert found("*") == ["a.py", "sub/s.py"]
    assert found(".*.py") == [".dot.py", "sub/.d2.py"]


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
    # Path.glob: a .gitignored file is a file like any other.
    listed = files.list_files(".", "**/*.txt")
    assert sorted(entry["name"] for entry in listed) == ["gen.txt", "hello.txt", "n.txt"]
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


def test_one_guard_for_the_process_across_nested_roots(workspace: Path) -> None:
    """PraisonAI's registry is keyed by absolute path: a read through a tool set on ``src``
    guards a write through one on the project root."""
    app = write(workspace / "src/app.py", "DEBUG = True\n")
    edits = praisonai.EditTools(root=str(workspace / "src"), post_edit_diagnostics="off")
    files = praisonai.FileTools(root=str(workspace))
    project = praisonai.EditTools(root=str(workspace), post_edit_diagnostics="off")
    _, sha = edits.read_file("app.py")
    app.write_text("DEBUG = True\nLEVEL = 1\n")  # another program changes it
    assert files.write_file("src/app.py", "lost\n") is False
    current = SHA(b"DEBUG = True\nLEVEL = 1\n").hexdigest()
    assert project.edit_file(str(app), "DEBUG = True", "DEBUG = False") == (
        "Error: File changed since it was read - re-read before editing (or pass force=True to override). "
        f"Recorded hash: {sha[:8]}..., Current hash: {current[:8]}..."
    )
    assert project.apply_patch("*** Update File: src/app.py\n@@\nDEBUG = True\n===\nDEBUG = False\n") == (
        "Error: Cannot update 'src/app.py': file changed since it was read - re-read before editing "
        "(or pass force=True to override)."
    )
    assert app.read_text() == "DEBUG = True\nLEVEL = 1\n"
    # A read through any of them re-arms it for all.
    files.read_file("src/app.py")
    assert edits.edit_file("app.py", "LEVEL = 1", "LEVEL = 2").startswith("Success")
    # ...and each write records what it wrote: no false refusal through another tool set.
    assert files.write_file("src/app.py", "v2\n") is True
    assert edits.edit_file("app.py", "v2", "v3").startswith("Success")
    assert project.apply_patch("*** Update File: src/app.py\n@@\nv3\n===\nv4\n").startswith("Success")
    assert edits.edit_file("app.py", "v4", "v5").startswith("Success")
    assert app.read_text() == "v5\n"


def test_one_guard_for_the_process_across_settings(workspace: Path) -> None:
    target = write(workspace / "a.txt", "one\n")
    files = praisonai.FileTools(root=str(workspace))
    quiet = praisonai.EditTools(root=str(workspace), post_edit_diagnostics="off")
    loud = praisonai.EditTools(root=str(workspace), post_edit_diagnostics="on")
    assert quiet.toolkit is not files.toolkit  # other settings, another toolkit: one registry all the same
    quiet.read_file("a.txt")
    assert files.write_file("a.txt", "two\n") is True
    assert quiet.edit_file("a.txt", "two", "three").startswith("Success")
    target.write_text("outside\n")
    for tool_set in (quiet, loud):
        assert tool_set.edit_file("a.txt", "outside", "x").startswith("Error: File changed since it was read")
    assert files.write_file("a.txt", "x\n") is False
    loud.read_file("a.txt")
    assert quiet.edit_file("a.txt", "outside", "four").startswith("Success")
    assert target.read_text() == "four\n"


def test_the_guard_follows_praisonais_registry(tools: praisonai.EditTools, workspace: Path) -> None:
    target = write(workspace / "a.txt", "one\n")
    # A file never read is not guarded.
    target.write_text("two\n")
    assert tools.edit_file("a.txt", "two", "three").startswith("Success")
    # A refused edit records the file as it stands (PraisonAI records the hash it found before
    # looking for the old text): an outside change after it is caught.
    target.write_text("four\n")
    assert tools.edit_file("a.txt", "zzz", "y", force=True) == "Error: String not found in file: 'zzz'"
    target.write_text("five\n")
    assert tools.edit_file("a.txt", "five", "six").startswith("Error: File changed since it was read")
    # force, then expected_hash, bypass the recorded hash; a write records its result.
    assert tools.edit_file("a.txt", "five", "six", force=True).startswith("Success")
    assert tools.edit_file("a.txt", "six", "seven").startswith("Success")
    # A moved file's record goes with it; a deleted file's is forgotten.
    assert tools.apply_patch("*** Move File: a.txt -> b.txt\n").startswith("Success")
    write(workspace / "a.txt", "new\n")
    assert tools.edit_file("a.txt", "new", "x").startswith("Success")
    write(workspace / "b.txt", "changed\n")
    assert tools.edit_file("b.txt", "changed", "x").startswith("Error: File changed since it was read")
    tools.read_file("b.txt")
    assert (
        tools.apply_patch("*** Delete File: b.txt\n")
        == "Success: Applied patch to 1 file(s)\n\nDeleted b.txt"
    )
    write(workspace / "b.txt", "again\n")
    assert tools.edit_file("b.txt", "again", "x").startswith("Success")


def test_a_write_over_a_file_deleted_since_its_read_creates_it(
    tools: praisonai.EditTools, files: praisonai.FileTools, workspace: Path
) -> None:
    target = write(workspace / "a.txt", "one\n")
    tools.read_file("a.txt")
    target.unlink()  # PraisonAI's guard covers a file that exists
    assert files.write_file("a.txt", "two\n") is True
    assert target.read_text() == "two\n"


def test_the_registry_is_bounded_like_praisonais(monkeypatch: pytest.MonkeyPatch, workspace: Path) -> None:
    monkeypatch.setattr(praisonai, "_MAX_READ_HASHES", 2)
    tools = praisonai.EditTools(root=str(workspace), post_edit_diagnostics="off")
    for name in ("a", "b", "c"):
        write(workspace / name, f"{name}\n")
        tools.read_file(name)
    assert list(praisonai._READ_HASHES) == [str(workspace.resolve() / "b"), str(workspace.resolve() / "c")]
    write(workspace / "a", "changed\n")  # forgotten: no longer guarded, as in PraisonAI
    assert tools.edit_file("a", "changed", "x").startswith("Success")


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


def _formatter(folder: Path, name: str, body: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / name
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    return str(script)


def test_custom_formatters_as_documented(workspace: Path, tmp_path: Path) -> None:
    # PraisonAI's documentation: "formatters maps lowercase extensions to (tool_name, argv_template).
    # Use {path} in argv entries; if omitted, the path is appended." ... "A missing or failing
    # formatter never fails the edit" ... "The on-disk hash baseline is only refreshed when the
    # formatter exits 0."
    bin_dir = tmp_path / "bin"
    upper = _formatter(bin_dir, "upper", 'for f; do :; done; tr a-z A-Z < "$f" > "$f.new" && mv "$f.new" "$f"\n')
    stamp = _formatter(bin_dir, "stamp", 'echo "# formatted" >> "$2"\n')
    failing = _formatter(bin_dir, "failing", "echo broken >&2; exit 1\n")
    tools = praisonai.create_edit_tools(
        root=str(workspace),
        post_edit_format="auto",
        post_edit_diagnostics="off",
        formatters={
            ".txt": ("upper", [upper]),  # {path} omitted: appended
            ".py": ("stamp", [stamp, "--quiet", "{path}"]),
            ".cfg": ("failing", [failing, "{path}"]),
        },
    )
    write(workspace / "a.txt", "hello\n")
    write(workspace / "m.py", "x = 1\n")
    write(workspace / "c.cfg", "key = 1\n")
    for name in ("a.txt", "m.py", "c.cfg"):
        tools.read_file(name)
    assert tools.edit_file("a.txt", "hello", "bye").startswith("Success: Made 1 replacement(s) in a.txt")
    assert (workspace / "a.txt").read_text() == "BYE\n"
    assert tools.edit_file("m.py", "x = 1", "x = 2").startswith("Success")
    assert (workspace / "m.py").read_text() == "x = 2\n# formatted\n"
    # A failing formatter never fails the edit: the edit stands as written.
    assert tools.edit_file("c.cfg", "key = 1", "key = 2").startswith("Success")
    assert (workspace / "c.cfg").read_text() == "key = 2\n"
    # The staleness baseline is the formatted content: the next edit, without a read, lands.
    assert tools.edit_file("a.txt", "BYE", "again").startswith("Success")
    assert (workspace / "a.txt").read_text() == "AGAIN\n"
    assert tools.edit_file("m.py", "x = 2", "x = 3").startswith("Success")
    # apply_patch formats too.
    assert tools.apply_patch("*** Update File: a.txt\n@@\nAGAIN\n===\nonce more\n").startswith("Success")
    assert (workspace / "a.txt").read_text() == "ONCE MORE\n"
    assert tools.edit_file("a.txt", "ONCE MORE", "last").startswith("Success")


def test_the_documented_formatter_map_is_taken_and_a_relative_program_is_not_run(
    workspace: Path, tmp_path: Path
) -> None:
    planted = _formatter(workspace / "node_modules/.bin", "prettier", f'touch "{tmp_path}/planted-ran"\n')
    tools = praisonai.create_edit_tools(
        root=str(workspace),
        post_edit_format="auto",
        post_edit_diagnostics="off",
        formatters={
            ".py": ("black", ["black", "--quiet"]),
            ".ts": ("local-prettier", ["./node_modules/.bin/prettier", "--write", "{path}"]),
        },
    )
    write(workspace / "src/app.ts", "const a = 1;\n")
    tools.read_file("src/app.ts")
    assert tools.edit_file("src/app.ts", "const a = 1;", "const a = 2;").startswith("Success")
    assert (workspace / "src/app.ts").read_text() == "const a = 2;\n"
    assert not (tmp_path / "planted-ran").exists() and Path(planted).exists()
    # Formatters only run with post_edit_format on or auto; an empty map and None change nothing.
    assert praisonai.create_edit_tools(root=str(workspace), formatters={}).toolkit is not None
    with pytest.raises((TypeError, ValueError)):
        praisonai.create_edit_tools(root=str(workspace), post_edit_format="on", formatters={".py": 42})


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


def _fresh_adapter(name: str) -> types.ModuleType:
    """A new copy of the adapter module, imported with whatever ``sys.modules`` holds now."""
    spec = importlib.util.spec_from_file_location(name, praisonai.__file__)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _praisonai_importable() -> bool:
    try:
        importlib.import_module("praisonaiagents.approval")
    except ImportError:
        return False
    return True


def test_the_writing_tools_carry_praisonais_approval_gate_exactly_when_praisonai_is_installed(
    monkeypatch: pytest.MonkeyPatch, workspace: Path
) -> None:
    def gates(module: types.ModuleType) -> list[bool]:
        """Whether each decorated writing tool runs another function's code first (a wrapper's,
        ``functools.wraps`` or not). As in PraisonAI, ``edit_tools``' functions and the
        ``EditTools`` and ``FileTools`` methods carry the gate; ``file_tools.write_file`` calls
        the gated method."""
        tools = [
            (module.edit_file, "edit_file"),
            (module.apply_patch, "apply_patch"),
            (module.EditTools.edit_file, "edit_file"),
            (module.EditTools.apply_patch, "apply_patch"),
            (module.FileTools.write_file, "write_file"),
        ]
        return [func.__code__.co_name != name for func, name in tools]

    # The module as imported here: gated exactly when praisonaiagents imports in this environment.
    installed = _praisonai_importable()
    assert (praisonai._require_approval is not None) is installed
    assert gates(praisonai) == gates(_fresh_adapter("praisonai_as_installed")) == [installed] * 5

    # Without PraisonAI (its import fails): no gate, the tools are the plain functions.
    monkeypatch.setitem(sys.modules, "praisonaiagents", None)
    monkeypatch.setitem(sys.modules, "praisonaiagents.approval", None)
    plain = _fresh_adapter("praisonai_without_praisonai")
    assert plain._require_approval is None and gates(plain) == [False] * 5

    # With it (a stand-in for praisonaiagents.approval): every writing tool asks, at PraisonAI's
    # risk level, and nothing else does.
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
    gated_module = _fresh_adapter("praisonai_gated")
    assert gated_module._require_approval is require_approval and gates(gated_module) == [True] * 5

    write(workspace / "a.txt", "a\n")
    tools = gated_module.EditTools(root=str(workspace), post_edit_diagnostics="off")
    files = gated_module.FileTools(root=str(workspace))
    tools.read_file("a.txt")
    tools.search_files(".", "a")
    files.read_file("a.txt")
    files.list_files(".")
    assert gated == []
    tools.edit_file("a.txt", "a", "b")
    tools.apply_patch("*** Add File: c.txt\nc\n")
    files.write_file("d.txt", "d")
    assert gated == [("edit_file", "high"), ("apply_patch", "high"), ("write_file", "high")]
    # The module-level functions: edit_tools' own gate then the method's, as PraisonAI's;
    # file_tools.write_file is the gated method.
    monkeypatch.setattr(gated_module, "_edit_tools", tools)
    monkeypatch.setattr(gated_module, "_file_tools", files)
    gated.clear()
    gated_module.edit_file("a.txt", "b", "c")
    gated_module.file_tools.write_file("e.txt", "e")
    assert gated == [("edit_file", "high"), ("edit_file", "high"), ("write_file", "high")]


def test_differs_patches_are_read_in_praisonais_dialect_only(
    tools: praisonai.EditTools, workspace: Path
) -> None:
    target = write(workspace / "x.py", "a = 1\nb = 2\n")
    codex = "*** Begin Patch\n*** Update File: x.py\n@@\n a = 1\n-b = 2\n+b = 3\n*** Add File: y.txt\n+hi\n*** End Patch\n"
    assert tools.apply_patch(codex) == (
        "Error: Invalid patch: invalid patch at line 3: hunk has no `===` line between the old and the new text"
    )  # PraisonAI: "Error: Hunk not found in 'x.py': ' a = 1..."
    unified = "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n+b = 4\n"
    assert tools.apply_patch(unified) == (
        "Error: Invalid patch: Unexpected line in patch (expected a section header): '--- a/x.py'"
    )  # as PraisonAI
    assert target.read_text() == "a = 1\nb = 2\n" and not (workspace / "y.txt").exists()
    # PraisonAI's own patches, with or without the sentinels: an added line is written as it stands.
    wrapped = "*** Begin Patch\n*** Add File: y.txt\n+hi\n*** Update File: x.py\n@@\nb = 2\n===\nb = 3\n*** End Patch\n"
    assert tools.apply_patch(wrapped).startswith("Success: Applied patch to 2 file(s)")
    assert (workspace / "y.txt").read_text() == "+hi" and target.read_text() == "a = 1\nb = 3\n"
    assert tools.apply_patch("*** Add File: z.txt\n+ milk\n").startswith("Success")
    assert (workspace / "z.txt").read_text() == "+ milk"


def test_paths_may_be_path_objects_and_odd_arguments_are_messages(
    tools: praisonai.EditTools, workspace: Path
) -> None:
    write(workspace / "a.py", "x = 1\n")
    assert tools.read_file(Path("a.py"))[0] == "x = 1\n"  # type: ignore[arg-type]
    assert tools.edit_file(Path("a.py"), "x = 1", "x = 2").startswith(
        "Success: Made 1 replacement(s) in a.py"
    )  # type: ignore[arg-type]
    assert tools.edit_file("a.py", b"x", "y").startswith("Error editing file a.py: ")  # type: ignore[arg-type]
    assert tools.apply_patch(b"*** Delete File: a.py").startswith("Error applying patch: ")  # type: ignore[arg-type]


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
# One test per row of the table of differences (the patch rows also in PATCHES above).


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


def test_safer_writes_are_atomic_by_default_and_fsynced_on_request(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The adapter's toolkits write atomically (no fsync) unless ``durability="full"``; a toolkit
    passed in keeps its own durability."""
    opened: list[dict[str, Any]] = []
    real = editkit.Toolkit

    def recording(*args: Any, **kwargs: Any) -> editkit.Toolkit:
        opened.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(praisonai.editkit, "Toolkit", recording)
    write(workspace / "a.txt", "one\n")
    made = [
        praisonai.create_edit_tools(root=str(workspace), post_edit_diagnostics="off"),
        praisonai.EditTools(root=str(workspace), post_edit_diagnostics="on"),
        praisonai.create_file_tools(root=str(workspace)),
        praisonai.create_edit_tools(root=str(workspace), post_edit_diagnostics="off", durability="full"),
        praisonai.EditTools(root=str(workspace), post_edit_diagnostics="on", durability="full"),
        praisonai.FileTools(root=str(workspace), durability="full"),
    ]
    assert [tools.durability for tools in made] == ["atomic"] * 3 + ["full"] * 3
    for tools in made:
        assert tools.toolkit.root == str(workspace.resolve())
    assert [kwargs["durability"] for kwargs in opened] == ["atomic"] * 3 + ["full"] * 3
    assert praisonai.create_file_tools(root=str(workspace)).toolkit is made[2].toolkit  # shared
    assert praisonai.create_file_tools(root=str(workspace), durability="full").toolkit is made[5].toolkit
    assert made[0].toolkit is not made[3].toolkit
    # Both write, in place of the old file.
    assert made[0].edit_file("a.txt", "one", "two").startswith("Success")
    assert made[3].edit_file("a.txt", "two", "three").startswith("Success")
    assert (workspace / "a.txt").read_text() == "three\n"
    # A toolkit of one's own keeps its durability: the adapter opens none and records none.
    opened.clear()
    own = real(workspace, diagnostics="off", durability="full")
    tools = praisonai.create_edit_tools(toolkit=own, durability="atomic")
    assert tools.toolkit is own and tools.durability is None and opened == []
    assert praisonai._edit_tools.durability == praisonai._file_tools.durability == "atomic"
    with pytest.raises(ValueError, match="durability"):
        praisonai.create_edit_tools(root=str(workspace), durability="fsync")


def test_safer_paths_are_confined_by_capabilities(
    tools: praisonai.EditTools, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    outside = write(tmp_path / "outside.txt", "secret\n")
    os.symlink(outside, workspace / "link.txt")
    write(workspace / "sub/a.txt", "a\n")
    for path in ("link.txt", "../outside.txt", str(outside), "~/outside.txt"):
        assert tools.edit_file(path, "secret", "x").startswith(f"Error editing file {path}: "), path
        assert tools.read_file(path)[1] == "", path
    root = workspace.resolve()
    assert tools.read_file("link.txt")[0] == (
        f"Error reading file link.txt: Path traversal detected: link.txt escapes workspace {root}"
    )
    # `~` is expanded as PraisonAI expands it, then confined like any other path.
    assert tools.edit_file("~/outside.txt", "secret", "x") == (
        f"Error editing file ~/outside.txt: Path traversal detected: {tmp_path}/outside.txt escapes workspace {root}"
    )
    assert tools.read_file(f"~/{workspace.name}/sub/a.txt")[0] == "a\n"  # the root is in that home
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
    # A patch cut in the middle of its last line is refused, with or without sentinels.
    (workspace / "u.txt").write_text("alpha\nbeta\n")
    cut = "*** Update File: u.txt\n@@\nbeta\n===\nBETA and mo"
    for text in ("*** Begin Patch\n" + cut, cut):
        refused = tools.apply_patch(text)
        assert refused.startswith("Error: Invalid patch: ") and "incomplete" in refused, refused
        assert (workspace / "u.txt").read_text() == "alpha\nbeta\n"
    # Ending with a line break, a patch without sentinels is whole, as PraisonAI takes it.
    assert tools.apply_patch(cut + "re\n").startswith("Success")
    assert (workspace / "u.txt").read_text() == "alpha\nBETA and more\n"


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


def test_added_files_are_their_lines_joined_as_praisonai_joins_them(
    tools: praisonai.EditTools, workspace: Path
) -> None:
    # PraisonAI: an added file's content is "\n".join(body), body every line up to the next
    # header or sentinel.
    assert tools.apply_patch("*** Add File: a.txt\none\ntwo\n\n\n*** Add File: b.txt\nb\n").startswith(
        "Success: Applied patch to 2 file(s)"
    )
    assert (workspace / "a.txt").read_text() == "one\ntwo\n\n"
    assert (workspace / "b.txt").read_text() == "b"


def test_search_files_reads_every_file_glob_glob_finds(tools: praisonai.EditTools, workspace: Path) -> None:
    # PraisonAI's search_files: glob.glob(os.path.join(directory, "**", file_pattern),
    # recursive=True), each file read as UTF-8 (UnicodeDecodeError: skipped) with readlines(),
    # a match where pattern.lower() is in line.lower(), shown as line.strip() with its
    # match_start. glob.glob takes .gitignored files, enters a dot folder only where the pattern
    # names it, and text mode ends a line at a lone CR.
    (workspace / ".git").mkdir()
    write(workspace / ".gitignore", "node_modules/\n*.log\n")
    write(workspace / "src/a.js", "needle\n")
    write(workspace / "node_modules/lib/index.js", "needle\n")
    write(workspace / "debug.log", "needle\n")
    write(workspace / "src/long.txt", "x" * 3000 + " needle " + "y" * 3000 + "\n")
    write(workspace / "sub/.hid/h.py", "needle\n")
    write(workspace / ".dot.py", "needle\n")
    write(workspace / "cr.txt", b"x\rneedle\r\nNEEDLE twice: needle\n")
    write(workspace / "bom.txt", b"\xef\xbb\xbf  Needle \n")
    latin = "café crème brûlée à la française, déjà vu, naïve façade, voilà: needle\n"
    write(workspace / "latin.txt", latin.encode("cp1252"))
    (workspace / "linked.txt").symlink_to("src/a.js")  # glob.glob takes a link to a file
    found = json.loads(tools.search_files(".", "NEEDLE"))
    assert sorted(result["file"] for result in found["results"]) == [
        "bom.txt",
        "cr.txt",
        "debug.log",
        "linked.txt",
        "node_modules/lib/index.js",
        "src/a.js",
        "src/long.txt",
    ]
    by_file = {result["file"]: result["matches"] for result in found["results"]}
    assert by_file["cr.txt"] == [
        {"line_number": 2, "line": "needle", "match_start": 0},
        {"line_number": 3, "line": "NEEDLE twice: needle", "match_start": 0},
    ]
    assert by_file["bom.txt"] == [{"line_number": 1, "line": "\ufeff  Needle", "match_start": 3}]
    assert by_file["src/long.txt"] == [
        {"line_number": 1, "line": "x" * 3000 + " needle " + "y" * 3000, "match_start": 3001}
    ]
    assert found["total_files"] == 7 and found["total_matches"] == 8
    named = json.loads(tools.search_files(".", "needle", "**/.hid/*.py"))
    assert named["results"] == [
        {"file": "sub/.hid/h.py", "matches": [{"line_number": 1, "line": "needle", "match_start": 0}]}
    ]
    dotted = json.loads(tools.search_files(".", "needle", ".*.py"))
    assert [result["file"] for result in dotted["results"]] == [".dot.py"]


def test_file_tools_read_and_write_in_the_encoding_given(files: praisonai.FileTools, workspace: Path) -> None:
    # PraisonAI's file-editing documentation: "read_file (file_tools) | filepath, encoding='utf-8'"
    # and "write_file | filepath, content, encoding='utf-8', force=False": the encoding named is
    # the file's, for reading and for writing.
    assert files.write_file("legacy.txt", "café\nnaïve\n", encoding="cp1252") is True
    assert (workspace / "legacy.txt").read_bytes() == "café\nnaïve\n".encode("cp1252")
    assert files.read_file("legacy.txt", encoding="cp1252", line_numbers=False) == "café\nnaïve\n"
    assert files.read_file("legacy.txt", encoding="windows-1252") == "     1\tcafé\n     2\tnaïve"
    write(workspace / "cyr.txt", "привет\n".encode("koi8-r"))
    assert files.read_file("cyr.txt", encoding="koi8-r", line_numbers=False) == "привет\n"
    assert files.write_file("cyr.txt", "мир\n", encoding="koi8_r") is True
    assert (workspace / "cyr.txt").read_bytes() == "мир\n".encode("koi8-r")
    # A character the encoding cannot hold: refused, as Python's strict codec refuses it.
    assert files.write_file("legacy.txt", "\u4e2d\n", encoding="cp1252") is False
    assert (workspace / "legacy.txt").read_bytes() == "café\nnaïve\n".encode("cp1252")


@pytest.mark.parametrize(
    ("encoding", "text"),
    [
        ("latin-1", "café\x85\x9c naïve\n"),  # C1 controls, as Python's latin-1 gives them
        ("iso8859-1", "crème brûlée\n"),
        ("cp1252", "“quoted” – €5\n"),
        ("koi8-u", "Привіт, ґанок\n"),
        ("koi8-r", "мир\n"),
        ("cp437", "│box│ ñ\n"),
        ("cp037", "EBCDIC text\n"),
        ("mac-roman", "café ∑\n"),
        ("shift_jis", "日本語のテキスト\n"),
        ("euc-jp", "日本語\n"),
        ("iso2022_jp", "日本語\n"),
        ("gb2312", "中文文本\n"),
        ("gbk", "中文文本\n"),
        ("big5", "繁體中文\n"),
        ("euc-kr", "한국어 텍스트\n"),
        ("utf-16", "wide ünïcödé\n"),
        ("utf-16-le", "wide\n"),
        ("utf-16-be", "wide\n"),
        ("utf-32", "wider 𝄞\n"),
        ("utf-8-sig", "signed\n"),
        ("cp1251", "line one\r\nline two\rthree\n"),  # universal newlines on reading
    ],
)
def test_file_tools_read_and_write_in_any_python_codec(
    files: praisonai.FileTools, workspace: Path, encoding: str, text: str
) -> None:
    # PraisonAI's file_tools: read_file(filepath, encoding='utf-8') opens the file with
    # open(safe_path, 'r', encoding=encoding); write_file(filepath, content, encoding='utf-8')
    # with open(..., 'w', encoding=encoding): any codec Python has.
    assert files.write_file("f.txt", text, encoding=encoding) is True
    assert (workspace / "f.txt").read_bytes() == text.encode(encoding)
    universal = text.replace("\r\n", "\n").replace("\r", "\n")
    assert files.read_file("f.txt", encoding=encoding, line_numbers=False) == universal
    assert files.read_file("f.txt", encoding=encoding) == _render(universal)


def _render(text: str) -> str:
    return "\n".join(f"{number:>6}\t{line}" for number, line in enumerate(text.splitlines(), 1))


def test_file_tools_codec_errors_are_pythons(files: praisonai.FileTools, workspace: Path) -> None:
    write(workspace / "bad.txt", b"ok \x81\n")
    try:
        b"ok \x81\n".decode("cp1252")
    except UnicodeDecodeError as error:
        reason = str(error)  # 'charmap' codec can't decode byte 0x81 in position 3: ...
    assert files.read_file("bad.txt", encoding="cp1252") == f"Error reading file bad.txt: {reason}"
    assert files.read_file("bad.txt", encoding="no-such-codec").startswith("Error reading file bad.txt: ")
    assert files.write_file("k.txt", "中", encoding="koi8-u") is False and not (workspace / "k.txt").exists()
    # The staleness guard holds for any codec: a write after a change on disk is refused.
    assert files.write_file("l.txt", "café\n", encoding="latin-1") is True
    files.read_file("l.txt", encoding="latin-1")
    write(workspace / "l.txt", "changed\n".encode("latin-1"))
    assert files.write_file("l.txt", "mine\n", encoding="latin-1") is False
    assert (workspace / "l.txt").read_bytes() == b"changed\n"


def test_file_tools_utf8_reads_keep_the_bom_as_text_mode_does(
    files: praisonai.FileTools, workspace: Path
) -> None:
    write(workspace / "bom.txt", b"\xef\xbb\xbfhi\r\n")
    assert files.read_file("bom.txt", line_numbers=False) == "\ufeffhi\n"  # text mode: BOM a character
    assert files.read_file("bom.txt", encoding="utf-8-sig", line_numbers=False) == "hi\n"
    assert files.read_file("bom.txt", encoding="UTF8", line_numbers=False) == "\ufeffhi\n"
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


def test_list_files_times_are_st_mtime_and_st_ctime(files: praisonai.FileTools, workspace: Path) -> None:
    # PraisonAI's list_files: 'modified': stat.st_mtime, 'created': stat.st_ctime.
    target = write(workspace / "a.txt", "a\n")
    os.utime(target, ns=(1_700_000_000_123_456_789, 1_700_000_000_123_456_789))
    write(workspace / "sub/b.txt", "b\n")
    for entry in [*files.list_files("."), *files.list_files(".", "**/*.txt")]:
        stat = os.stat(entry["path"])
        assert (entry["modified"], entry["created"]) == (stat.st_mtime, stat.st_ctime), entry
    (entry,) = files.list_files(".")
    assert entry["modified"] == os.stat(target).st_mtime != 1_700_000_000.0


def test_success_diffs_are_praisonais_render_diff(tools: praisonai.EditTools, workspace: Path) -> None:
    # PraisonAI's _render_diff: difflib.unified_diff(old.splitlines(keepends=True),
    # new.splitlines(keepends=True), fromfile="<path> (before)", tofile="<path> (after)", n=3),
    # bounded to 10 lines of 200 characters.
    write(workspace / "c.txt", b"a\r\nb\r\nc\r\n")
    assert tools.edit_file("c.txt", "b", "B").endswith(
        "--- c.txt (before)\n+++ c.txt (after)\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n"
    )
    assert (workspace / "c.txt").read_bytes() == b"a\r\nB\r\nc\r\n"
    write(workspace / "n.txt", "a\nb")
    assert tools.apply_patch("*** Update File: n.txt\n@@\nb\n===\nB\n").endswith(
        "--- n.txt (before)\n+++ n.txt (after)\n@@ -1,2 +1,2 @@\n a\n-b+B"
    )
    write(workspace / "bom.txt", b"\xef\xbb\xbfone\ntwo\n")
    assert tools.edit_file("bom.txt", "two", "2").endswith("@@ -1,2 +1,2 @@\n one\n-two\n+2\n")
    long = "".join(f"line {n}\n" for n in range(30))
    write(workspace / "long.txt", long)
    shown = tools.edit_file("long.txt", long, long.upper()).split("Diff:\n", 1)[1]
    before, after = long.splitlines(keepends=True), long.upper().splitlines(keepends=True)
    expected = list(difflib.unified_diff(before, after, "long.txt (before)", "long.txt (after)", n=3))
    assert shown == "".join(expected[:10]) + "... (diff truncated)\n"


def test_a_file_that_is_not_utf8_is_pythons_unicode_decode_error(
    tools: praisonai.EditTools, files: praisonai.FileTools, workspace: Path
) -> None:
    # PraisonAI opens files with encoding="utf-8" and words a failure "Error reading file
    # <path>: <the exception>" (edit: "Error editing file", a patch: "Error: Cannot update
    # '<path>': ..."). Text in a legacy encoding, which editkit could read, is no different.
    cases = {
        "lat.txt": b"caf\xe9\n",
        "long.txt": "café crème brûlée à la française, déjà vu, naïve façade, voilà\nx\n".encode(
            "cp1252"
        ),
    }
    for name, data in cases.items():
        write(workspace / name, data)
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as error:
            reason = str(error)
        assert tools.read_file(name) == (f"Error reading file {name}: {reason}", "")
        assert tools.edit_file(name, "x", "y") == f"Error editing file {name}: {reason}"
        assert files.read_file(name) == f"Error reading file {name}: {reason}"
        assert (
            tools.apply_patch(f"*** Update File: {name}\n@@\nx\n===\ny\n")
            == f"Error: Cannot update '{name}': {reason}"
        )
        assert (workspace / name).read_bytes() == data
    assert reason.startswith("'utf-8' codec can't decode byte 0xe9 in position 3")


def test_safer_a_folder_is_not_deleted_by_a_patch(tools: praisonai.EditTools, workspace: Path) -> None:
    write(workspace / "folder/f.txt", "f\n")
    assert tools.apply_patch("*** Delete File: folder\n") == (
        f"Error applying patch: [Errno 21] Is a directory: '{workspace.resolve()}/folder'"
    )
    assert (workspace / "folder/f.txt").read_text() == "f\n"  # PraisonAI: renamed to folder.praison_patch_tmp


def test_differs_malformed_patches_give_editkits_reason(tools: praisonai.EditTools, workspace: Path) -> None:
    write(workspace / "a.py", "a\n")
    # PraisonAI: "Error: Invalid patch: Malformed Move File header (expected '<old> -> <new>'): 'a.py'";
    # its documentation: "Unexpected line in patch (expected a section header): ..." for a malformed header.
    assert tools.apply_patch("*** Move File: a.py\n") == (
        "Error: Invalid patch: Unexpected line in patch (expected a section header): '*** Move File: a.py' - "
        "`*** Move File:` takes `FROM -> TO` (one ` -> ` between two paths), found `a.py`"
    )
    # PraisonAI: "... (empty source or destination): 'a.py ->'"
    assert tools.apply_patch("*** Move File: a.py -> \n").startswith(
        "Error: Invalid patch: Unexpected line in patch (expected a section header): '*** Move File: a.py ->' - "
    )
    # As PraisonAI: a line after the end.
    assert tools.apply_patch("*** Add File: b.txt\nx\n*** End Patch\ntrailing\n") == (
        "Error: Invalid patch: Unexpected line in patch (expected a section header): 'trailing'"
    )
    assert sorted(path.name for path in workspace.iterdir()) == ["a.py"]


def test_differs_leniencies_of_praisonais_patch_parser_not_shared(
    tools: praisonai.EditTools, workspace: Path
) -> None:
    # Text after @@ anchors the hunk: PraisonAI ignores it (and finds `x = 1` twice).
    code = write(workspace / "f.py", "def a():\n    x = 1\ndef b():\n    x = 1\n")
    assert tools.apply_patch("*** Update File: f.py\n@@ def b\n    x = 1\n===\n    x = 2\n").startswith("Success")
    assert code.read_text() == "def a():\n    x = 1\ndef b():\n    x = 2\n"
    # A blank old line is an empty old block, as PraisonAI documents it.
    blanks = write(workspace / "b.txt", "a\n\nb\n\nc\n")
    assert tools.apply_patch("*** Update File: b.txt\n@@\n\n===\nx\n") == "Error: Empty hunk in update for 'b.txt'"
    assert blanks.read_text() == "a\n\nb\n\nc\n"
    # A move onto itself is refused, as PraisonAI refuses it, and writes nothing.
    same = write(workspace / "m.txt", "m\n")
    before = same.stat()
    assert tools.apply_patch("*** Move File: m.txt -> m.txt\n") == (
        "Error: Cannot move 'm.txt' to 'm.txt': source and destination are the same path"
    )
    after = same.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    # A === after a hunk's first is new text (a reST underline).
    doc = write(workspace / "d.rst", "Title\n-----\n")
    assert tools.apply_patch("*** Update File: d.rst\n@@\n-----\n===\n=====\n").startswith("Success")
    assert tools.apply_patch("*** Update File: d.rst\n@@\nTitle\n=====\n===\nTitle\n===\n").startswith(
        "Success"
    )
    assert doc.read_text() == "Title\n===\n"  # PraisonAI drops the second `===`: "Title\n"
    # An update without hunks, lines before the first @@: refused, nothing written.
    assert tools.apply_patch("*** Update File: d.rst\n").startswith("Error: Invalid patch: ")
    assert tools.apply_patch("*** Update File: d.rst\njunk\n@@\nTitle\n===\nT\n").startswith(
        "Error: Invalid patch: "
    )
    assert doc.read_text() == "Title\n===\n"


def test_two_sections_producing_one_path_are_refused_as_a_conflict(
    tools: praisonai.EditTools, workspace: Path
) -> None:
    # PraisonAI 1.7.17 checks every section against the files on disk before the patch, then
    # against the paths earlier sections produce.
    assert tools.apply_patch("*** Add File: n.txt\nx\n*** Add File: n.txt\ny\n") == (
        "Error: Conflicting operations target the same path 'n.txt' (also produced by 'n.txt')"
    )
    assert not (workspace / "n.txt").exists()
    write(workspace / "u.txt", "a\n")
    twice = "*** Update File: u.txt\n@@\na\n===\nb\n*** Update File: ./u.txt\n@@\nb\n===\nc\n"
    assert tools.apply_patch(twice) == (
        "Error: Conflicting operations target the same path './u.txt' (also produced by 'u.txt')"
    )
    moved = "*** Add File: n.txt\nx\n*** Move File: u.txt -> n.txt\n"
    assert tools.apply_patch(moved) == (
        "Error: Conflicting operations target the same path 'u.txt -> n.txt' (also produced by 'n.txt')"
    )
    assert tools.apply_patch("*** Add File: n.txt\nx\n*** Update File: n.txt\n@@\nx\n===\ny\n") == (
        "Error: Cannot update 'n.txt': file not found"
    )
    assert (workspace / "u.txt").read_text() == "a\n" and not (workspace / "n.txt").exists()
    # A file deleted by an earlier section may be produced again.
    assert tools.apply_patch("*** Delete File: u.txt\n*** Add File: u.txt\nnew\n").startswith("Success")
    assert (workspace / "u.txt").read_text() == "new"


def test_apply_patch_names_files_as_the_patch_writes_them(tools: praisonai.EditTools, workspace: Path) -> None:
    # PraisonAI's documentation gives every apply_patch message with the '<path>' of the patch,
    # and quotes a hunk by its '<preview>': the old block as written, cut at 50 characters.
    write(workspace / "a.py", "def f():\n    return 1\n")
    assert tools.apply_patch(
        f"*** Update File: ./a.py\n@@\n    return 1\n===\n    return 2\n*** Add File: {workspace}/n.txt\nn\n"
    ) == (
        "Success: Applied patch to 2 file(s)\n\n"
        "Updated ./a.py\n--- ./a.py (before)\n+++ ./a.py (after)\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n"
        f"+    return 2\n\n\nAdded {workspace}/n.txt\n--- {workspace}/n.txt (before)\n+++ {workspace}/n.txt (after)\n"
        "@@ -0,0 +1 @@\n+n"
    )
    tools.read_file("a.py")
    write(workspace / "a.py", "changed\n")
    assert tools.apply_patch("*** Update File: ./a.py\n@@\nchanged\n===\nx\n") == (
        "Error: Cannot update './a.py': file changed since it was read - re-read before editing "
        "(or pass force=True to override)."
    )
    tools.read_file("a.py")
    assert tools.apply_patch("*** Update File: a.py\n@@\n    nothing here\n    and more\n===\n    x\n") == (
        "Error: Hunk not found in 'a.py': '    nothing here\n    and more'"
    )
    long = "    " + "x" * 60
    assert tools.apply_patch(f"*** Update File: a.py\n@@\n{long}\n===\ny\n") == (
        f"Error: Hunk not found in 'a.py': '{long[:50]}...'"
    )
    assert tools.apply_patch("*** Move File: a.py -> b.py\n@@\n\n===\ny\n") == "Error: Empty hunk in move for 'a.py'"


def test_a_patch_is_refused_for_its_first_problem_in_patch_order(
    tools: praisonai.EditTools, workspace: Path
) -> None:
    # PraisonAI 1.7.17 validates the sections in patch order and says the first problem: here
    # the changed file of the first section, not the missing hunk of the second.
    write(workspace / "a.txt", "one\n")
    write(workspace / "b.txt", "b\n")
    tools.read_file("a.txt")
    write(workspace / "a.txt", "two\n")
    patch = "*** Update File: a.txt\n@@\ntwo\n===\nTWO\n*** Update File: b.txt\n@@\nzzz\n===\ny\n"
    stale = (
        "Error: Cannot update 'a.txt': file changed since it was read - re-read before editing "
        "(or pass force=True to override)."
    )
    assert tools.apply_patch(patch) == stale
    # The other way round, the missing hunk comes first; forced, staleness is not checked.
    swapped = "*** Update File: b.txt\n@@\nzzz\n===\ny\n*** Update File: a.txt\n@@\ntwo\n===\nTWO\n"
    assert tools.apply_patch(swapped) == "Error: Hunk not found in 'b.txt': 'zzz'"
    assert tools.apply_patch(patch, force=True) == "Error: Hunk not found in 'b.txt': 'zzz'"
    assert (workspace / "a.txt").read_text() == "two\n" and (workspace / "b.txt").read_text() == "b\n"


def test_list_files_with_a_pattern_of_several_parts_is_path_glob(
    files: praisonai.FileTools, workspace: Path
) -> None:
    # PraisonAI's list_files: Path(directory).glob(pattern), files only; pathlib's glob takes
    # dot files and dot folders like any others.
    for name in ("a.py", ".dot.py", "sub/s.py", "sub/.d2.py", "sub/.hid/h.py"):
        write(workspace / name, "x\n")
    listed = files.list_files(".", "**/*.py")
    assert sorted(entry["name"] for entry in listed) == [".d2.py", ".dot.py", "a.py", "h.py", "s.py"]
    assert [entry["name"] for entry in files.list_files(".", "sub/.hid/*")] == ["h.py"]


def test_safer_search_files_enters_no_linked_folder(tools: praisonai.EditTools, workspace: Path) -> None:
    write(workspace / "d/a.py", "needle\n")
    (workspace / "d/up").symlink_to("..", target_is_directory=True)  # glob.glob: 41 copies of a.py
    (workspace / "alias").symlink_to("d", target_is_directory=True)  # glob.glob: alias/a.py too
    found = json.loads(tools.search_files(".", "needle"))
    assert [result["file"] for result in found["results"]] == ["d/a.py"]


def test_list_files_enters_a_linked_folder_where_path_glob_enters_it(
    files: praisonai.FileTools, workspace: Path
) -> None:
    # Path.glob: ** enters no linked folder; a segment of the pattern follows one.
    write(workspace / "d/a.py", "x\n")
    (workspace / "alias").symlink_to("d", target_is_directory=True)
    assert [entry["name"] for entry in files.list_files(".", "**/*.py")] == ["a.py"]
    listed = files.list_files(".", "alias/*.py")
    assert [entry["path"] for entry in listed] == [str(workspace.resolve() / "alias" / "a.py")]
    assert sorted(entry["path"] for entry in files.list_files(".", "*/a.py")) == [
        str(workspace.resolve() / "alias" / "a.py"),
        str(workspace.resolve() / "d" / "a.py"),
    ]
