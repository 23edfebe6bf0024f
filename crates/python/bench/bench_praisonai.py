#!/usr/bin/env python3
"""editkit.compat.praisonai against PraisonAI's own edit tools, in one run (not a timed test).

    target/py-venv/bin/python crates/python/bench/bench_praisonai.py --praisonai-python /path/to/venv/bin/python

Run it with an interpreter that imports ``editkit``; ``--praisonai-python`` is an interpreter with
``praisonaiagents`` installed (this script installs nothing). Two parts:

1. Conformance: the same scenarios (the quick start, the message formats, the rows of the
   adapter's table of differences) run through ``editkit.compat.praisonai`` and through
   PraisonAI's ``EditTools``/``FileTools``; every call's result and the bytes left on disk are
   compared. A scenario marked ``same`` must come out identical, one naming a table row must
   differ; anything else fails the run.
2. Speed: ``edit_file`` on a small Python file (~20 KB, from the standard library) and on 2-4 MB
   Python files (standard library files concatenated), the same edit sequence for every tool
   (a top-level statement near the middle changes each time), the tools taking turns edit by
   edit (the first one rotating). Each tool runs in its own interpreter as a worker reading
   requests on stdin; the time is measured inside the worker around the call itself. editkit
   runs twice: "editkit" is the adapter as created by default (durability ``atomic``: a complete
   temp file renamed into place, no fsync; PraisonAI writes in place without fsync), "editkit
   full" with ``durability="full"`` (file and folder fsynced); PraisonAI with its post-edit
   diagnostics off, and editkit's checks off too. PraisonAI's ``require_approval`` gate (a
   human-in-the-loop prompt, not editing) is skipped by calling the method it wraps. The final
   bytes of every tool must be identical.

Prints medians and ratios (PraisonAI time / editkit time: above 1, editkit is faster). Measure a
release build of the extension (``maturin build --release``): a debug build's times say little,
and the header names the extension measured. Standard library only (the workers import their
tool).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
REPO = HERE.parents[3]
MARKER = "editkit_bench_marker"
#: editkit's columns: the adapter's default durability ("atomic": renamed into place, no fsync)
#: and ``durability="full"`` (file and folder fsynced).
EDITKIT_SETTINGS = {"editkit": "default", "editkit full": "full"}

APP = "def greet(name):\n    return 'hello ' + name\n\n\ndef main():\n    print(greet('a'))\n    print(greet('b'))\n"

# ---------------------------------------------------------------------------------------------
# Conformance scenarios. Steps: [api, *args] calls a tool ("read_file", "edit_file",
# "apply_patch", "search_files", "fread" = file_tools.read_file, "write_file", "list_names",
# "list_entries"), ["in", folder, api, *args] calls it through a second EditTools rooted in a
# folder of the scenario's, ["outside", path, text] writes a file as another program would,
# ["delete", path] deletes one, ["bytes", path] records what is on disk and ["tree"] every file.
# "same": True means identical results; "row" names the table row that makes them differ.

SCENARIOS: list[dict[str, Any]] = [
    {
        "name": "quick start: read, then edit under the automatic guard",
        "same": True,
        "files": {"src/app.py": APP},
        "steps": [
            ["read_file", "src/app.py"],
            ["edit_file", "src/app.py", "return 'hello ' + name", "return f'hello {name}'"],
            ["edit_file", "src/app.py", "def main():", "def run():"],
            ["bytes", "src/app.py"],
        ],
    },
    {
        "name": "quick start: search, edit all, verify",
        "same": True,
        "files": {"src/user.js": "function getUserName(u) {\n  return u.name;\n}\nexport { getUserName };\n"},
        "steps": [
            ["search_files", "./src", "getusername", "*.js"],
            ["edit_file", "src/user.js", "getUserName", "getUserEmail", True],
            ["read_file", "src/user.js"],
        ],
    },
    {
        "name": "ambiguous match, then replace_all",
        "same": True,
        "files": {"styles.css": "a { color: blue; }\nb { color: blue; }\n"},
        "steps": [
            ["edit_file", "styles.css", "color: blue", "color: green"],
            ["edit_file", "styles.css", "color: blue", "color: green", True],
            ["bytes", "styles.css"],
        ],
    },
    {
        "name": "expected_hash: a stale one, force does not bypass it, a current one",
        "same": True,
        "files": {"config.js": "port: 3000\n"},
        "steps": [
            ["edit_file", "config.js", "port: 3000", "port: 8080", False, "0" * 64],
            ["edit_file", "config.js", "port: 3000", "port: 8080", False, "0" * 64, True],
            ["edit_file", "config.js", "port: 3000", "port: 8080", False, "abc"],
            ["edit_file", "config.js", "port: 3000", "port: 8080", False, "HASH:config.js"],
            ["bytes", "config.js"],
        ],
    },
    {
        "name": "staleness refusal after an outside change, then force",
        "same": True,
        "files": {"app.py": "DEBUG = True\n"},
        "steps": [
            ["read_file", "app.py"],
            ["outside", "app.py", "DEBUG = True\nLEVEL = 1\n"],
            ["edit_file", "app.py", "DEBUG = True", "DEBUG = False"],
            ["edit_file", "app.py", "DEBUG = True", "DEBUG = False", False, None, True],
            ["bytes", "app.py"],
        ],
    },
    {
        "name": "edit_file refusals: not found, empty, missing file, traversal, UTF-16",
        "same": True,
        "files": {"a.py": "x = 1\n", "u16.txt": "hello\n"},
        "utf16": ["u16.txt"],
        "steps": [
            ["edit_file", "a.py", "zzz", "y"],
            ["edit_file", "a.py", "w" * 60, "y"],
            ["edit_file", "a.py", "", "y"],
            ["edit_file", "nope.py", "a", "b"],
            ["edit_file", "../a.py", "x", "y"],
            ["edit_file", "u16.txt", "h", "j"],
            ["read_file", "nope.py"],
        ],
    },
    {
        "name": "atomic two-file rename patch",
        "same": True,
        "files": {
            "src/old_name.py": "def helper():\n    return 1\n",
            "tests/test_old_name.py": "from src.old_name import helper\n",
        },
        "steps": [
            [
                "apply_patch",
                (
                    "*** Begin Patch\n*** Move File: src/old_name.py -> src/new_name.py\n"
                    "*** Move File: tests/test_old_name.py -> tests/test_new_name.py\n@@\n"
                    "from src.old_name import helper\n===\nfrom src.new_name import helper\n*** End Patch\n"
                ),
            ],
            ["bytes", "tests/test_new_name.py"],
            ["bytes", "src/old_name.py"],
            ["outside", "b.py", "b\n"],
            [
                "apply_patch",
                "*** Move File: src/new_name.py -> a.py\n*** Move File: tests/test_new_name.py -> b.py\n",
            ],
            ["bytes", "src/new_name.py"],
        ],
    },
    {
        "name": "apply_patch refusals",
        "same": True,
        "files": {
            "a.py": "def f():\n    return 1\n\ndef g():\n    return 1\n",
            "b.py": "b = 1\n",
            "c.py": "x = 1\ny = 2\nx = 1\n",
        },
        "steps": [
            ["apply_patch", ""],
            ["apply_patch", "*** Begin Patch\n*** End Patch\n"],
            ["apply_patch", None],
            ["apply_patch", "*** Add File: b.py\nx\n"],
            ["apply_patch", "*** Update File: zz.py\n@@\na\n===\nb\n"],
            ["apply_patch", "*** Delete File: zz.py\n"],
            ["apply_patch", "*** Move File: zz.py -> y.py\n"],
            ["apply_patch", "*** Move File: a.py -> b.py\n"],
            ["apply_patch", "*** Update File: c.py\n@@\nx = 1\n===\nx = 2\n"],
            ["apply_patch", "*** Update File: a.py\n@@\nnothing here\n===\nx\n"],
            ["apply_patch", "*** Update File: /etc/hosts\n@@\na\n===\nb\n"],
            ["bytes", "a.py"],
        ],
    },
    {
        "name": "apply_patch staleness refusals, then force",
        "same": True,
        "files": {"u.txt": "one\n", "d.txt": "one\n", "m.txt": "one\n"},
        "steps": [
            ["read_file", "u.txt"],
            ["read_file", "d.txt"],
            ["read_file", "m.txt"],
            ["outside", "u.txt", "one\ntwo\n"],
            ["outside", "d.txt", "one\ntwo\n"],
            ["outside", "m.txt", "one\ntwo\n"],
            ["apply_patch", "*** Update File: u.txt\n@@\none\n===\nONE\n"],
            ["apply_patch", "*** Delete File: d.txt\n"],
            ["apply_patch", "*** Move File: m.txt -> n.txt\n"],
            ["apply_patch", "*** Update File: u.txt\n@@\none\n===\nONE\n", True],
            ["bytes", "u.txt"],
        ],
    },
    {
        "name": "search_files: case-insensitive, file pattern, errors",
        "same": True,
        "files": {
            "pkg/a.py": "import os\n    IMPORT_ME = 1\n",
            "pkg/sub/b.py": "x = 'import'\n",
            "pkg/sub/c.txt": "import\n",
        },
        "steps": [
            ["search_files", "pkg", "Import", "*.py"],
            ["search_files", "pkg", "nothing-like-this"],
            ["search_files", "missing", "x"],
        ],
    },
    {
        "name": "file_tools: numbered windows, plain read, write, list",
        "same": True,
        "files": {"t.txt": "".join(f"line {i}\n" for i in range(1, 8)), "wide.txt": "x" * 30 + "\n"},
        "steps": [
            ["fread", "t.txt"],
            ["fread", "t.txt", "utf-8", 2, 3],
            ["fread", "t.txt", "utf-8", None, None, False],
            ["fread", "t.txt", "utf-8", 99],
            ["fread", "t.txt", "utf-8", None, -1],
            ["fread", "wide.txt", "utf-8", None, None, True, 10],
            ["write_file", "out/hello.txt", "Hello World"],
            ["write_file", "out/data.json", {"a": [1, "é"]}],
            ["list_names", "out"],
            ["bytes", "out/data.json"],
        ],
    },
    {
        "name": "write_file staleness refusal, then force",
        "same": True,
        "files": {"notes.txt": "v1\n"},
        "steps": [
            ["fread", "notes.txt"],
            ["outside", "notes.txt", "v2 from elsewhere\n"],
            ["write_file", "notes.txt", "v3\n"],
            ["bytes", "notes.txt"],
            ["write_file", "notes.txt", "v3\n", "utf-8", True],
            ["bytes", "notes.txt"],
        ],
    },
    {
        "name": "a retried edit",
        "row": "The same edit is sent twice (a retry)",
        "files": {"m.py": "value = foo\n"},
        "steps": [
            ["edit_file", "m.py", "foo", "foo + bar"],
            ["edit_file", "m.py", "foo", "foo + bar"],
            ["bytes", "m.py"],
        ],
    },
    {
        "name": "an edit that changes nothing",
        "row": "old_string == new_string",
        "files": {"m.py": "x = 1\n"},
        "steps": [["edit_file", "m.py", "x = 1", "x = 1"]],
    },
    {
        "name": "drifted indentation",
        "row": "old_string differs from the file by indentation or whitespace",
        "files": {"m.py": "class A:\n    def f(self):\n        return 1\n"},
        "steps": [
            [
                "edit_file",
                "m.py",
                "  def f(self):\n      return 1",
                "  def f(self):\n      return 2\n      # done",
            ],
            ["bytes", "m.py"],
        ],
    },
    {
        "name": "mixed line endings",
        "row": "A file with mixed line endings, lone CRs or a UTF-8 BOM is edited or patched",
        "files": {"mixed.txt": "a\r\nb\nc\rd\n"},
        "steps": [["edit_file", "mixed.txt", "b", "B"], ["bytes", "mixed.txt"]],
    },
    {
        "name": "a secret file",
        "row": ".git internals, .env files, private keys, credential files",
        "files": {".env": "API_KEY=secret\n"},
        "steps": [["read_file", ".env"], ["edit_file", ".env", "secret", "x"], ["bytes", ".env"]],
    },
    {
        "name": "a hunk without its === line",
        "row": "A patch hunk without its === line",
        "files": {"a.py": "keep = 1\ndrop = 2\n"},
        "steps": [["apply_patch", "*** Update File: a.py\n@@\ndrop = 2\n"], ["bytes", "a.py"]],
    },
    {
        "name": "a hunk inside a longer line",
        "row": "A patch hunk's old lines stand only inside a longer line",
        "files": {"a.py": "total = price * count\n"},
        "steps": [["apply_patch", "*** Update File: a.py\n@@\nprice\n===\ncost\n"], ["bytes", "a.py"]],
    },
    {
        "name": "added files",
        "row": "*** Add File: content",
        "files": {},
        "steps": [
            ["apply_patch", "*** Add File: a.txt\none\ntwo\n\n\n*** Add File: b.txt\nb\n"],
            ["bytes", "a.txt"],
            ["bytes", "b.txt"],
        ],
    },
    {
        "name": "a cut-off patch",
        "row": "A patch opening with *** Begin Patch that does not end with *** End Patch",
        "files": {},
        "steps": [["apply_patch", "*** Begin Patch\n*** Add File: a.txt\nfirst half\n"], ["bytes", "a.txt"]],
    },
    {
        "name": "one staleness registry for the process: a nested root, a write, an edit, a patch",
        "same": True,
        "files": {"src/app.py": "DEBUG = True\n"},
        "steps": [
            ["in", "src", "read_file", "app.py"],
            ["outside", "src/app.py", "DEBUG = True\nLEVEL = 1\n"],
            ["write_file", "src/app.py", "lost\n"],
            ["edit_file", "src/app.py", "DEBUG = True", "DEBUG = False"],
            ["apply_patch", "*** Update File: src/app.py\n@@\nDEBUG = True\n===\nDEBUG = False\n"],
            ["bytes", "src/app.py"],
            ["fread", "src/app.py"],
            ["in", "src", "edit_file", "app.py", "LEVEL = 1", "LEVEL = 2"],
            ["write_file", "src/app.py", "v2\n"],
            ["in", "src", "edit_file", "app.py", "v2", "v3"],
            ["apply_patch", "*** Update File: src/app.py\n@@\nv3\n===\nv4\n"],
            ["in", "src", "apply_patch", "*** Move File: app.py -> moved.py\n"],
            ["outside", "src/app.py", "again\n"],
            ["edit_file", "src/app.py", "again", "x"],
            ["tree"],
        ],
    },
    {
        "name": "the guard: a file never read, a refused edit re-arms it, a write over a deleted file",
        "same": True,
        "files": {"a.txt": "one\n"},
        "steps": [
            ["outside", "a.txt", "two\n"],
            ["edit_file", "a.txt", "two", "three"],
            ["outside", "a.txt", "four\n"],
            ["edit_file", "a.txt", "zzz", "y", False, None, True],
            ["outside", "a.txt", "five\n"],
            ["edit_file", "a.txt", "five", "six"],
            ["read_file", "a.txt"],
            ["delete", "a.txt"],
            ["write_file", "a.txt", "seven\n"],
            ["bytes", "a.txt"],
        ],
    },
    {
        "name": "patches: updates, moves, deletes, sentinels, CRLF",
        "same": True,
        "files": {
            "u.txt": "alpha\nbeta\ngamma\n",
            "c.txt": "a\nb\nc\n",
            "n.txt": "a\nb\n",
            "m.txt": "m\r\n",
            "h.txt": "a\nb\n",
            "d.txt": "d\n",
        },
        "steps": [
            ["apply_patch", "*** Update File: u.txt\n@@\nbeta\n===\nBETA\n\nDELTA\n@@\ngamma\n===\nGAMMA\n"],
            [
                "apply_patch",
                "*** Begin Patch\n*** Update File: c.txt\r\n@@\r\nb\r\n===\r\nB\r\n*** End Patch\n",
            ],
            ["apply_patch", "  *** Update File: n.txt\n@@\nb\n===\nB\n*** End Patch\n"],
            [
                "apply_patch",
                "*** Move File: m.txt -> k.txt\n*** Move File: h.txt -> d/h.txt\n@@\nb\n===\nB\n",
            ],
            ["apply_patch", "\n\n*** Delete File: d.txt\n*** Add File: e.txt\n"],
            ["tree"],
        ],
    },
    {
        "name": "messages PraisonAI takes from OSError, and FileTools' own path checks",
        "same": True,
        "files": {"a.py": "x = 1\n", "folder/f.txt": "f\n"},
        "steps": [
            ["edit_file", "folder", "a", "b"],
            ["read_file", "folder"],
            ["fread", "folder"],
            ["fread", "nope.txt"],
            ["fread", "folder/../a.py"],
            ["write_file", "folder", "x"],
            ["write_file", "folder/../b.txt", "x"],
            ["list_entries", "missing"],
            ["list_entries", "missing", "*.py"],
            ["list_entries", "a.py"],
            ["list_entries", "a.py", "*.py"],
            ["list_entries", ".", "../*.py"],
            ["list_entries", ".", "**"],
            ["search_files", "a.py", "x"],
            ["tree"],
        ],
    },
    {
        "name": "dot files: listed by list_files, skipped by search_files",
        "same": True,
        "files": {
            "a.py": "needle\n",
            ".dot.py": "needle\n",
            "sub/s.py": "needle\n",
            "sub/.d2.py": "needle\n",
        },
        "steps": [
            ["list_entries", ".", "*.py"],
            ["list_entries", "."],
            ["list_entries", "sub", ".*"],
            ["search_files", ".", "needle", "*.py"],
            ["search_files", ".", "needle"],
            ["search_files", ".", "needle", ".*.py"],
        ],
    },
    {
        "name": "diffs of a CRLF file and of a file without final newline",
        "row": "The diff in a success message",
        "files": {"c.txt": "a\r\nb\r\nc\r\n", "n.txt": "a\nb"},
        "steps": [
            ["edit_file", "c.txt", "b", "B"],
            ["apply_patch", "*** Update File: n.txt\n@@\nb\n===\nB\n"],
            ["tree"],
        ],
    },
    {
        "name": "a file that is not UTF-8",
        "row": "A file that is not UTF-8",
        "files": {"lat.txt": "caf\xe9\n"},
        "latin1": ["lat.txt"],
        "steps": [["read_file", "lat.txt"], ["edit_file", "lat.txt", "caf", "x"], ["fread", "lat.txt"]],
    },
    {
        "name": "a patch deleting a folder",
        "row": "A *** Delete File: section naming a folder",
        "files": {"folder/f.txt": "f\n"},
        "steps": [["apply_patch", "*** Delete File: folder\n"], ["tree"]],
    },
    {
        "name": "a hunk with nothing after ===",
        "row": "A patch hunk with nothing after its === line",
        "files": {"u.txt": "a\nb\nc\n"},
        "steps": [["apply_patch", "*** Update File: u.txt\n@@\nb\n===\n"], ["bytes", "u.txt"]],
    },
    {
        "name": "blank lines closing a hunk's old and new text",
        "row": "Blank lines closing a hunk's old or new text",
        "files": {"u4.txt": "alpha\nbeta\ngamma\n", "u.txt": "alpha\nbeta\ngamma\n"},
        "steps": [
            ["apply_patch", "*** Update File: u4.txt\n@@\nbeta\n\n===\nBETA\n"],
            ["apply_patch", "*** Update File: u.txt\n@@\nbeta\n===\nBETA\n\n"],
            ["tree"],
        ],
    },
    {
        "name": "a Codex patch",
        "row": "A Codex patch or a unified diff (read in PraisonAI's dialect only)",
        "files": {"x.py": "a = 1\nb = 2\n"},
        "steps": [
            [
                "apply_patch",
                "*** Begin Patch\n*** Update File: x.py\n@@\n a = 1\n-b = 2\n+b = 3\n*** End Patch\n",
            ],
            ["bytes", "x.py"],
        ],
    },
    {
        "name": "malformed patches",
        "row": "A patch PraisonAI refuses as malformed",
        "files": {"a.py": "a\n"},
        "steps": [["apply_patch", "hello\n"], ["apply_patch", "*** Move File: a.py\n"], ["tree"]],
    },
    {
        "name": "two sections on one path",
        "row": "Two sections of one patch produce the same path",
        "files": {},
        "steps": [["apply_patch", "*** Add File: n.txt\nx\n*** Add File: n.txt\ny\n"], ["tree"]],
    },
    {
        "name": "the files apply_patch names",
        "row": "The files apply_patch names",
        "files": {"a.py": "def f():\n    return 1\n"},
        "steps": [
            ["apply_patch", "*** Update File: a.py\n@@\n    nothing here\n===\n    x\n"],
            ["apply_patch", "*** Update File: ./a.py\n@@\n    return 1\n===\n    return 2\n"],
            ["bytes", "a.py"],
        ],
    },
    {
        "name": "a patch with a changed file and another problem",
        "row": "A patch refused for a changed file and for another reason",
        "files": {"a.txt": "one\n", "b.txt": "b\n"},
        "steps": [
            ["read_file", "a.txt"],
            ["outside", "a.txt", "two\n"],
            [
                "apply_patch",
                "*** Update File: a.txt\n@@\ntwo\n===\nTWO\n*** Update File: b.txt\n@@\nzzz\n===\ny\n",
            ],
            ["tree"],
        ],
    },
    {
        "name": "added lines are literal, in sentinels or not",
        "row": "*** Add File: content",
        "files": {},
        "steps": [
            ["apply_patch", "*** Add File: notes.md\n+ milk\n+ eggs\n"],
            ["apply_patch", "*** Begin Patch\n*** Add File: a.txt\none\n*** End Patch\n"],
            ["tree"],
        ],
    },
    {
        "name": "move headers without one ' -> '",
        "row": "A *** Move File: header without exactly one -> between two paths",
        "files": {"m.txt": "m\n", "n.txt": "n\n"},
        "steps": [
            ["apply_patch", "*** Move File: m.txt->k.txt\n"],
            ["apply_patch", "*** Move File: n.txt -> k -> j.txt\n"],
            ["tree"],
        ],
    },
    {
        "name": "update lines outside @@, an update without hunks",
        "row": "Lines of an update section outside an @@ hunk; An *** Update File: section without hunks",
        "files": {"u.txt": "alpha\nbeta\n"},
        "steps": [
            ["apply_patch", "*** Update File: u.txt\nbeta\n===\nBETA\n"],
            ["apply_patch", "*** Update File: u.txt\njunk\n@@\nalpha\n===\nALPHA\n"],
            ["apply_patch", "*** Update File: u.txt\n"],
            ["tree"],
        ],
    },
    {
        "name": "a second === in a hunk",
        "row": "A === line inside a hunk's new text",
        "files": {"u.txt": "alpha\nbeta\n"},
        "steps": [["apply_patch", "*** Update File: u.txt\n@@\nalpha\n===\nALPHA\n===\nGAMMA\n"], ["tree"]],
    },
    {
        "name": "a blank old line",
        "row": "A hunk whose old text is a blank line",
        "files": {"u.txt": "a\n\nb\n"},
        "steps": [["apply_patch", "*** Update File: u.txt\n@@\n\n===\nx\n"], ["tree"]],
    },
    {
        "name": "text after @@",
        "row": "Text after @@",
        "files": {"u.txt": "alpha\nbeta\n"},
        "steps": [["apply_patch", "*** Update File: u.txt\n@@ not in the file\nbeta\n===\nBETA\n"], ["tree"]],
    },
    {
        "name": "a move onto itself",
        "row": "A move onto itself",
        "files": {"u.txt": "a\n"},
        "steps": [["apply_patch", "*** Move File: u.txt -> u.txt\n"], ["tree"]],
    },
    {
        "name": "dot folders and lone CRs in searches",
        "row": "search_files",
        "files": {"sub/.hid/h.py": "needle\n", "cr.txt": "x\rneedle\n"},
        "steps": [["search_files", ".", "needle", "**/.hid/*.py"], ["search_files", ".", "needle"]],
    },
    {
        "name": "list_files with a pattern of several parts",
        "row": "list_files(directory, pattern) with a pattern of several parts",
        "files": {"a.py": "x\n", ".dot.py": "x\n", "sub/s.py": "x\n", "sub/.d2.py": "x\n"},
        "steps": [["list_entries", ".", "**/*.py"]],
    },
]


# ---------------------------------------------------------------------------------------------
# Workers: one interpreter per tool, JSON lines on stdin/stdout.


class Api:
    """The tools of one implementation, called the same way for both."""

    def __init__(self, impl: str, root: Path, durability: str) -> None:
        self.root = root
        if impl == "praisonai":
            os.environ.setdefault("PRAISONAI_AUTO_APPROVE", "true")
            from praisonaiagents.tools import _file_locks
            from praisonaiagents.tools.edit_tools import EditTools
            from praisonaiagents.tools.file_tools import FileTools

            _file_locks._read_hashes.clear()  # one scenario's reads do not arm the next one's guard
            edits = EditTools(root=str(root), post_edit_diagnostics="off", post_edit_format="off")
            files = FileTools()  # FileTools confines to the current directory
            os.chdir(root)
            # `require_approval` asks a human; the bench times (and compares) the tools themselves.
            self.edit_file = EditTools.edit_file.__wrapped__.__get__(edits)
            self.apply_patch = EditTools.apply_patch.__wrapped__.__get__(edits)
            self.write_file = FileTools.write_file.__wrapped__.__get__(files)
            self.nested = lambda folder: EditTools(root=str(root / folder), post_edit_diagnostics="off")
        else:
            from editkit.compat import praisonai

            praisonai._READ_HASHES.clear()  # the same for editkit's process-wide registry
            # The adapter builds its toolkit: its default durability, or the one asked for.
            chosen = {} if durability == "default" else {"durability": durability}
            edits = praisonai.create_edit_tools(root=str(root), post_edit_diagnostics="off", **chosen)
            files = praisonai.create_file_tools(toolkit=edits.toolkit)
            self.edit_file = edits.edit_file
            self.apply_patch = edits.apply_patch
            self.write_file = files.write_file
            self.nested = lambda folder: praisonai.create_edit_tools(
                root=str(root / folder), post_edit_diagnostics="off"
            )
        self.read_file = edits.read_file
        self.search_files = edits.search_files
        self.fread = files.read_file
        self.list_files = files.list_files

    def in_folder(self, folder: str, api: str, *args: Any) -> Any:
        """``api`` through an ``EditTools`` rooted in ``folder`` (the approval gate skipped)."""
        tools = self.nested(folder)
        method = getattr(type(tools), api)
        return getattr(method, "__wrapped__", method)(tools, *args)

    def list_names(self, directory: str) -> list[str]:
        return sorted(str(entry.get("name", entry.get("error"))) for entry in self.list_files(directory))

    def list_entries(self, directory: str, pattern: str | None = None) -> list[list[Any]]:
        """Each entry's name, path and size (or its error), sorted: PraisonAI lists in directory
        order, and its times are not the adapter's (a table row)."""
        return sorted(
            [str(entry.get("name", entry.get("error"))), entry.get("path"), entry.get("size")]
            for entry in self.list_files(directory, pattern)
        )


def normalised(value: Any, root: str) -> Any:
    """``value`` with the scenario's root folder written ``<root>`` (each tool has its own)."""
    if isinstance(value, str):
        return value.replace(root, "<root>")
    if isinstance(value, list):
        return [normalised(item, root) for item in value]
    if isinstance(value, dict):
        return {key: normalised(item, root) for key, item in value.items()}
    return value


def run_scenario(impl: str, base: Path, index: int) -> list[Any]:
    scenario = SCENARIOS[index]
    root = base / f"scenario-{index}"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    for name, text in scenario["files"].items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        encoding = "utf-16" if name in scenario.get("utf16", ()) else "utf-8"
        path.write_bytes(text.encode("latin-1" if name in scenario.get("latin1", ()) else encoding))
    api = Api(impl, root, "full")
    results: list[Any] = []
    for step in scenario["steps"]:
        name, args = step[0], list(step[1:])
        if name == "outside":
            target = root / args[0]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(args[1].encode("utf-8"))
            continue
        if name == "delete":
            (root / args[0]).unlink()
            continue
        if name == "bytes":
            target = root / args[0]
            results.append(target.read_bytes().decode("latin-1") if target.exists() else None)
            continue
        if name == "tree":
            results.append(
                {
                    str(path.relative_to(root)): path.read_bytes().decode("latin-1")
                    for path in sorted(root.rglob("*"))
                    if path.is_file()
                }
            )
            continue
        if name == "in":
            name, args = args[1], [args[0], *args[1:]]
            method = api.in_folder
        else:
            method = getattr(api, name)
        args = [
            (
                hashlib.sha256((root / arg[5:]).read_bytes()).hexdigest()
                if isinstance(arg, str) and arg.startswith("HASH:")
                else arg
            )
            for arg in args
        ]
        try:
            out = method(*args)
        except Exception as error:  # noqa: BLE001 (a tool's crash is a result to compare)
            out = f"raised {type(error).__name__}: {error}"
        if name == "search_files":
            parsed = json.loads(out)
            for result in parsed.get("results", []):
                result["matches"].sort(key=lambda match: match["line_number"])
            parsed.get("results", []).sort(key=lambda result: result["file"])
            out = parsed
        results.append(list(out) if isinstance(out, tuple) else out)
    return normalised(results, os.path.realpath(root))


def worker(impl: str, root: str, durability: str) -> None:
    import logging

    logging.disable(logging.CRITICAL)
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # library prints go to stderr; stdout carries the protocol only
    base = Path(root)
    api: Api | None = None
    for line in sys.stdin:
        request = json.loads(line)
        op = request["op"]
        try:
            if op == "version":
                from importlib import metadata

                package = "praisonaiagents" if impl == "praisonai" else "editkit"
                answer: dict[str, Any] = {
                    "version": metadata.version(package),
                    "python": sys.version.split()[0],
                }
                if impl != "praisonai":
                    import editkit._editkit as extension

                    answer["module"] = extension.__file__
                    answer["module_mb"] = os.path.getsize(extension.__file__) / 1e6
            elif op == "scenario":
                answer = {"results": run_scenario(impl, base / "scenarios", request["index"])}
            elif op == "edit":
                if api is None:
                    os.chdir(base)
                    api = Api(impl, base, durability)
                started = time.perf_counter()
                message = api.edit_file(request["path"], request["old_string"], request["new_string"])
                seconds = time.perf_counter() - started
                answer = {"ok": message.startswith("Success"), "seconds": seconds, "message": message[:300]}
            else:
                raise ValueError(f"unknown op {op}")
        except Exception as error:  # noqa: BLE001 (reported to the driver, which stops the run)
            answer = {"crash": f"{type(error).__name__}: {error}"}
        out.write(json.dumps(answer) + "\n")
        out.flush()


class Worker:
    """A worker process, driven over its pipes."""

    def __init__(self, name: str, python: str, impl: str, root: Path, durability: str = "default") -> None:
        self.name = name
        env = dict(os.environ, PRAISONAI_AUTO_APPROVE="true", PYTHONDONTWRITEBYTECODE="1")
        self.process = subprocess.Popen(
            [python, str(HERE), "--worker", impl, str(root), durability],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )

    def send(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.name}: the worker stopped")
        answer = json.loads(line)
        if "crash" in answer:
            raise RuntimeError(f"{self.name}: {answer['crash']}")
        return answer

    def stop(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(timeout=60)


# ---------------------------------------------------------------------------------------------
# The driver.


def stdlib_files() -> list[Path]:
    files = []
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py")):
        try:
            text = path.read_text("utf-8")
        except UnicodeDecodeError:
            continue
        if "\r" not in text and "\f" not in text:
            files.append(path)
    return files


def small_python(target: int = 20_000) -> tuple[str, str]:
    """The standard library file nearest ``target`` bytes: (name, text)."""
    best = min(stdlib_files(), key=lambda path: abs(path.stat().st_size - target))
    return best.name, best.read_text("utf-8")


def large_python(min_bytes: int) -> str:
    """Standard library files concatenated to at least ``min_bytes`` (``from __future__`` lines
    dropped: they are only valid first)."""
    parts, size = [], 0
    while size < min_bytes:
        for path in stdlib_files():
            text = "".join(
                line
                for line in path.read_text("utf-8").splitlines(keepends=True)
                if not line.startswith("from __future__")
            )
            parts.append(text if text.endswith("\n") else text + "\n")
            size += len(parts[-1].encode())
            if size >= min_bytes:
                break
    return "".join(parts)


def with_marker(text: str) -> str:
    """``text`` with ``MARKER = 0`` as a top-level statement after a blank line near its middle."""
    lines = text.splitlines(keepends=True)
    at = len(lines) // 2
    while at < len(lines) and (lines[at - 1].strip() or not lines[at].strip() or lines[at][0] in " \t#)]}"):
        at += 1
    lines[at:at] = [f"{MARKER} = 0\n", "\n"]
    return "".join(lines)


def conformance(praisonai_python: str, work: Path) -> tuple[list[list[str]], int]:
    """Runs every scenario through both; the table rows and the number of unexpected outcomes."""
    workers = {
        "praisonai": Worker("praisonai", praisonai_python, "praisonai", work / "conf-praisonai"),
        "editkit": Worker("editkit", sys.executable, "editkit", work / "conf-editkit"),
    }
    rows, unexpected = [], 0
    try:
        for index, scenario in enumerate(SCENARIOS):
            theirs = workers["praisonai"].send({"op": "scenario", "index": index})["results"]
            ours = workers["editkit"].send({"op": "scenario", "index": index})["results"]
            same = theirs == ours
            expected_same = scenario.get("same", False)
            if same == expected_same:
                verdict = "identical" if same else f"differs as documented ({scenario['row']})"
            else:
                unexpected += 1
                verdict = "UNEXPECTED: " + ("identical" if same else "differs")
                for step, (a, b) in enumerate(zip(theirs, ours)):
                    if a != b:
                        print(
                            f"  {scenario['name']}, result {step}:\n    praisonai: {a!r}\n    editkit:   {b!r}"
                        )
            rows.append([scenario["name"], verdict])
    finally:
        for w in workers.values():
            w.stop()
    return rows, unexpected


def series(workers: dict[str, Worker], name: str, reps: int, warmup: int = 1) -> dict[str, list[float]]:
    """``reps`` timed edits of the marker through every worker, taking turns (after untimed
    warm-up edits); the seconds each edit took inside its worker."""
    order = list(workers)
    times: dict[str, list[float]] = {tool: [] for tool in workers}
    total = warmup + reps
    for step in range(total):
        request = {
            "op": "edit",
            "path": name,
            "old_string": f"{MARKER} = {step}\n",
            "new_string": f"{MARKER} = {step + 1}\n",
        }
        shift = step % len(order)
        for tool in order[shift:] + order[:shift]:
            answer = workers[tool].send(request)
            if not answer["ok"]:
                raise RuntimeError(f"{tool}: edit {step} failed: {answer['message']}")
            if step >= warmup:
                times[tool].append(answer["seconds"])
    return times


def markdown(table: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines = ["| " + " | ".join(cell.ljust(width) for cell, width in zip(row, widths)) + " |" for row in table]
    lines.insert(1, "|" + "|".join("-" * (width + 2) for width in widths) + "|")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--praisonai-python", help="an interpreter with praisonaiagents installed (required)")
    parser.add_argument(
        "--work", type=Path, default=REPO / "target" / "bench-praisonai", help="scratch folder"
    )
    parser.add_argument("--small-reps", type=int, default=101, help="timed edits of the small file per tool")
    parser.add_argument("--large-reps", type=int, default=21, help="timed edits of each large file per tool")
    parser.add_argument(
        "--large-mb", type=float, nargs="+", default=[2.0, 4.0], help="sizes of the large files"
    )
    parser.add_argument("--skip-conformance", action="store_true")
    parser.add_argument("--skip-speed", action="store_true", help="run the conformance scenarios only")
    parser.add_argument("--worker", nargs=3, metavar=("IMPL", "ROOT", "DURABILITY"), help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.worker:
        worker(*options.worker)
        return 0
    if not options.praisonai_python:
        parser.error("--praisonai-python is required")

    options.work.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="run-", dir=options.work))
    praisonai_python = options.praisonai_python
    try:
        probe = Worker("praisonai", praisonai_python, "praisonai", work / "probe")
        theirs = probe.send({"op": "version"})
        probe.stop()
        probe = Worker("editkit", sys.executable, "editkit", work / "probe")
        ours = probe.send({"op": "version"})
        probe.stop()
        print(
            f"# editkit.compat.praisonai against PraisonAI\n\n{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
            f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}; editkit {ours['version']} (Python {ours['python']}), "
            f"praisonaiagents {theirs['version']} (Python {theirs['python']}); scratch on {options.work}; "
            f"editkit's extension: {ours['module']} ({ours['module_mb']:.0f} MB).\n"
        )
        if ours["module_mb"] > 50:
            print("WARNING: that extension looks like a debug build; its times say little.\n")
        unexpected = 0
        if not options.skip_conformance:
            rows, unexpected = conformance(praisonai_python, work)
            print("## Conformance: the same scenarios through both\n")
            print(markdown([["scenario", "outcome"], *rows]) + "\n")
        if options.skip_speed:
            if unexpected:
                print(f"\n{unexpected} conformance scenario(s) came out unexpectedly.", file=sys.stderr)
            return 1 if unexpected else 0

        small_name, small_text = small_python()
        cases: list[tuple[str, str, int]] = [
            (
                f"small file ({len(small_text.encode()) / 1000:.0f} KB, {small_name})",
                with_marker(small_text),
                options.small_reps,
            )
        ]
        for megabytes in options.large_mb:
            text = with_marker(large_python(int(megabytes * 1e6)))
            cases.append(
                (
                    f"large file ({len(text.encode()) / 1e6:.1f} MB, standard library)",
                    text,
                    options.large_reps,
                )
            )

        print("## edit_file speed (time inside each worker around the call; medians)\n")
        table = [
            [
                "file",
                "edits",
                "PraisonAI",
                *EDITKIT_SETTINGS,
                *(f"ratio, {name}" for name in EDITKIT_SETTINGS),
            ]
        ]
        for label, text, reps in cases:
            workers: dict[str, Worker] = {}
            roots: dict[str, Path] = {}
            for tool, impl, durability, python in [
                ("praisonai", "praisonai", "in place", praisonai_python),
                *((name, "editkit", value, sys.executable) for name, value in EDITKIT_SETTINGS.items()),
            ]:
                roots[tool] = work / "speed" / tool.replace(" ", "-")
                shutil.rmtree(roots[tool], ignore_errors=True)
                roots[tool].mkdir(parents=True)
                (roots[tool] / "target.py").write_text(text, "utf-8")
                workers[tool] = Worker(tool, python, impl, roots[tool], durability)
            try:
                times = series(workers, "target.py", reps)
            finally:
                for w in workers.values():
                    w.stop()
            final = {tool: (root / "target.py").read_bytes() for tool, root in roots.items()}
            expected = text.replace(f"{MARKER} = 0\n", f"{MARKER} = {reps + 1}\n", 1).encode()
            if any(data != expected for data in final.values()):
                bad = [tool for tool, data in final.items() if data != expected]
                raise RuntimeError(f"{label}: the final bytes differ ({', '.join(bad)})")
            medians = {tool: statistics.median(values) for tool, values in times.items()}
            table.append(
                [
                    label,
                    str(reps),
                    f"{medians['praisonai'] * 1e3:.2f} ms",
                    *(f"{medians[name] * 1e3:.2f} ms" for name in EDITKIT_SETTINGS),
                    *(f"{medians['praisonai'] / medians[name]:.2f}×" for name in EDITKIT_SETTINGS),
                ]
            )
            print(f"{label}: done, final bytes identical across the {len(final)} tools", file=sys.stderr)
        print(markdown(table))
        print(
            "\nRatios are PraisonAI's median over editkit's (above 1: editkit is faster). Final bytes were "
            "identical across all tools for every file."
        )
        if unexpected:
            print(f"\n{unexpected} conformance scenario(s) came out unexpectedly.", file=sys.stderr)
            return 1
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
