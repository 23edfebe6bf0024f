"""editkit.compat.peteos: peteos' TextEditor, its documented workflow and messages, and each row of its
table of deliberate differences."""

from __future__ import annotations

import importlib.util
import os
import sys
import types
from pathlib import Path
from typing import Any

import editkit
import pytest
from editkit.compat import peteos
from editkit.compat.peteos import TextEditor

NO_FILE = "Error: no file loaded. Use load() first."
TOOLS = ("load", "read", "write", "edit", "store", "diff", "clear")


@pytest.fixture
def editor(workspace: Path) -> TextEditor:
    return TextEditor(root=workspace)


def absolute(workspace: Path, name: str) -> str:
    return os.path.join(os.path.realpath(workspace), name)


# -- the documented interface -----------------------------------------------------------------


def test_the_typical_workflow_of_the_documentation(editor: TextEditor, workspace: Path) -> None:
    path = workspace / "file.txt"
    path.write_text("hello\nold line\nfoo\n")
    where = absolute(workspace, "file.txt")

    assert editor.load("file.txt") == f"Loaded {where} (3 lines)."
    assert editor.read() == "hello\nold line\nfoo\n"
    assert editor.edit("old line", "new line") == "Replaced 'old line' with 'new line'."
    assert path.read_text() == "hello\nold line\nfoo\n", "edit() must not write to disk"
    diff = editor.diff()
    assert "-old line" in diff and "+new line" in diff and " hello" in diff
    assert editor.store() == f"Stored 3 lines to {where}."
    assert path.read_text() == "hello\nnew line\nfoo\n"
    # "Returns: A unified diff string, or "No differences" if the lines match the file."
    assert editor.diff() == "No differences"

    # Another process changes the file: the next store is refused and the change survives.
    assert editor.edit("new line", "newer line") == "Replaced 'new line' with 'newer line'."
    path.write_text("changed by someone else\n")
    refused = editor.store()
    assert refused.startswith(f"Error: file '{where}' was modified externally. ")
    assert refused.endswith("Use load() to refresh before storing.")
    assert path.read_text() == "changed by someone else\n"
    # load() shows the file as it is now, and the agent can go on from there.
    assert editor.load("file.txt") == f"Loaded {where} (1 lines)."
    assert editor.read() == "changed by someone else\n"


def test_load_write_store_and_replace_all(editor: TextEditor, workspace: Path) -> None:
    path = workspace / "f.txt"
    path.write_text("X\nY\nX\nZ\n")
    editor.load(str(path))  # an absolute path inside the workspace
    assert editor.edit("X", "W", replace_all=True) == "Replaced 2 occurrence(s) of 'X'."
    assert editor.write("new\nnew\nnew\n") == "Replaced (3 lines)."
    assert path.read_text() == "X\nY\nX\nZ\n", "write() must not write to disk"
    assert editor.read() == "new\nnew\nnew\n"
    assert editor.store() == f"Stored 3 lines to {absolute(workspace, 'f.txt')}."
    assert path.read_text() == "new\nnew\nnew\n"


def test_load_of_a_missing_file_returns_an_error_and_creates_nothing(editor: TextEditor, workspace: Path) -> None:
    # load(): "Returns: A message with the number of lines loaded, or an error if the file is not found."
    where = absolute(workspace, "newfile.txt")
    assert editor.load("newfile.txt") == f"Error: file not found: {where}"
    assert not (workspace / "newfile.txt").exists()
    assert editor.read() == NO_FILE
    assert editor.load("no/such/dir/x.txt") == f"Error: file not found: {absolute(workspace, 'no/such/dir/x.txt')}"
    assert not (workspace / "no").exists()
    assert editor.read() == NO_FILE
    assert sorted(os.listdir(workspace)) == []


def test_load_of_a_file_gone_since_it_was_loaded_returns_an_error(editor: TextEditor, workspace: Path) -> None:
    (workspace / "f.txt").write_text("old\n")
    assert editor.load("f.txt") == f"Loaded {absolute(workspace, 'f.txt')} (1 lines)."
    (workspace / "f.txt").unlink()
    assert editor.load("f.txt") == f"Error: file not found: {absolute(workspace, 'f.txt')}"
    assert not (workspace / "f.txt").exists()
    assert editor.read() == NO_FILE


def test_every_tool_but_load_and_clear_needs_a_loaded_file(editor: TextEditor) -> None:
    assert editor.read() == NO_FILE
    assert editor.write("text") == NO_FILE
    assert editor.edit("old", "new") == NO_FILE
    assert editor.store() == NO_FILE
    assert editor.diff() == NO_FILE
    assert editor.clear() is None


def test_edit_refusals_keep_the_original_words_and_change_nothing(
    editor: TextEditor, workspace: Path
) -> None:
    (workspace / "f.txt").write_text("apple\nbanana\napple\n")
    editor.load("f.txt")
    many = editor.edit("apple", "orange")
    assert many.splitlines()[0] == (
        "Error: 'apple' found multiple times. Set replace_all=True to replace all occurrences."
    )
    assert "lines 1, 3" in many  # editkit's detail: where the candidates start
    missing = editor.edit("cherry", "grape")
    assert missing.splitlines()[0] == "Error: 'cherry' not found in text."
    assert editor.read() == "apple\nbanana\napple\n"
    assert editor.edit("banana", "orange") == "Replaced 'banana' with 'orange'."
    assert editor.read() == "apple\norange\napple\n"


def test_diff_and_store_when_the_file_is_gone(editor: TextEditor, workspace: Path) -> None:
    (workspace / "f.txt").write_text("content\n")
    editor.load("f.txt")
    (workspace / "f.txt").unlink()
    where = absolute(workspace, "f.txt")
    assert editor.diff() == f"Error: file no longer exists: {where}"
    assert editor.store() == f"Error: file '{where}' no longer exists."
    assert not (workspace / "f.txt").exists()


def test_clear_forgets_the_file_and_its_unstored_text(editor: TextEditor, workspace: Path) -> None:
    (workspace / "f.txt").write_text("content\n")
    editor.load("f.txt")
    editor.write("unstored\n")
    assert editor._file_path == absolute(workspace, "f.txt")
    assert editor.clear() is None
    assert editor._file_path is None
    assert editor.read() == NO_FILE
    assert (workspace / "f.txt").read_text() == "content\n"


def test_the_default_root_is_the_current_directory(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(workspace)
    (workspace / "a.txt").write_text("a\n")
    editor = TextEditor()
    assert editor.load("a.txt") == f"Loaded {absolute(workspace, 'a.txt')} (1 lines)."


def test_a_shared_toolkit_and_its_blocked_patterns(workspace: Path) -> None:
    (workspace / "notes.secret").write_text("s\n")
    tk = editkit.Toolkit(workspace, blocked=["*.secret"], diagnostics="off")
    editor = TextEditor(toolkit=tk)
    assert editor.load("notes.secret").startswith("Error: Blocked: ")
    with pytest.raises(TypeError):
        TextEditor(toolkit=tk, root=workspace)


def test_the_methods_are_tools_a_peteos_agent_registers(workspace: Path) -> None:
    class AgenticBase:
        """Stands for peteos' AgenticObjectBase: no arguments, tools found by ``_tool_name``."""

        def __init__(self) -> None:
            self.tools: dict[str, Any] = {}
            for cls in type(self).__mro__:
                for name, member in vars(cls).items():
                    if callable(member) and hasattr(member, "_tool_name"):
                        self.tools.setdefault(member._tool_name, getattr(self, name))

    class MyAgent(TextEditor, AgenticBase):
        """You are an agent that can edit text files."""

    agent = MyAgent(root=workspace)
    assert sorted(agent.tools) == sorted(TOOLS)
    for name in TOOLS:
        assert getattr(TextEditor, name)._tool_description.strip()
    (workspace / "f.txt").write_text("one\n")
    assert agent.tools["load"]("f.txt").startswith("Loaded ")
    assert agent.tools["read"]() == "one\n"


# The original's (peteos 487fbff) system prompt and tool descriptions: here kept word for word, or
# with an editkit note where this editor is safer.
ORIGINAL_PROMPT_LINES = [
    "You are a text editor. You hold text as a list of lines in memory.",
    "Use `load` to read a file into your internal representation.",
    "Use `write` to replace all lines with new text (does not write to disk).",
    "Use `edit` to replace exact line text with new line text (does not write to disk).",
    "Use `store` to write the lines back to the file (safe against external changes).",
    "Use `diff` to compare your internal lines against the file on disk.",
    "Use `clear` to clear your internal lines.",
]
VERBATIM_DESCRIPTIONS = {
    "edit": (
        "Replace old_string with new_string in the text content. Does not write to disk. Both old_string "
        "and new_string can span multiple lines. Like the Edit tool \u2014 find old_string, replace with "
        "new_string, optional replace_all for replacing all occurrences."
    ),
    "diff": (
        "Compare the internal lines array against the file on disk. Returns a unified-style diff of added, "
        "removed, and unchanged lines."
    ),
    "clear": "Clear the internal lines array and reset file path and mtime tracking.",
}
NOTED_DESCRIPTIONS = {
    "load": "Try to load a file from disk into the editor. Stores the file path and ",
    "read": "Return the current text content as a string, joined from the internal lines array. (editkit: ",
    "write": (
        "Replace the internal lines array with lines split from the given text. Does not write to disk. "
        "(editkit: "
    ),
    "store": (
        "Write the internal lines array back to the file. Fails if the file was modified externally " "since "
    ),
}


def test_the_system_prompt_and_tool_descriptions_are_the_originals() -> None:
    prompt = [line.strip() for line in (TextEditor.__doc__ or "").strip().splitlines()]
    for line in ORIGINAL_PROMPT_LINES:
        assert line in prompt
    assert "Use `read` to view the current text content." in prompt  # it does not refresh mtime here
    for name, description in VERBATIM_DESCRIPTIONS.items():
        assert getattr(TextEditor, name)._tool_description == description
    for name, start in NOTED_DESCRIPTIONS.items():
        assert getattr(TextEditor, name)._tool_description.startswith(start)


def test_the_class_carries_the_oap_config_of_agentic_object() -> None:
    assert TextEditor._oap_config == {
        "imports": [],
        "import_aliases": {},
        "invoke_sub_agents": False,
        "allow_code_execution": False,
        "define_functions": False,
        "role": None,
    }


def test_peteos_registers_it_as_its_own_when_it_is_installed(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry: dict[str, type] = {}

    class FakeAgenticObject:
        """Stands for peteos' AgenticObject: registers subclasses by name, builds the prompt from the
        docstrings of its direct subclasses and registers the tools it finds by ``_tool_name``."""

        def __init_subclass__(cls, **kwargs: Any) -> None:
            super().__init_subclass__(**kwargs)
            registry[cls.__name__] = cls

        def __init__(self) -> None:
            super().__init__()
            cls = type(self)
            self.role = getattr(cls, "_oap_config", {}).get("role") or cls.__name__
            self.prompt = "\n\n".join(
                (parent.__doc__ or "").strip()
                for parent in cls.__mro__
                if FakeAgenticObject in parent.__bases__ and (parent.__doc__ or "").strip()
            )
            self.tools = {
                member._tool_name: (member._tool_description, getattr(self, name))
                for klass in reversed(cls.__mro__)
                for name, member in vars(klass).items()
                if callable(member) and hasattr(member, "_tool_name")
            }

    module = types.ModuleType("peteos.oap.agentic_object")
    module.AgenticObject = FakeAgenticObject  # type: ignore[attr-defined]
    for name, value in {
        "peteos": types.ModuleType("peteos"),
        "peteos.oap": types.ModuleType("peteos.oap"),
        "peteos.oap.agentic_object": module,
    }.items():
        monkeypatch.setitem(sys.modules, name, value)
    spec = importlib.util.spec_from_file_location("peteos_adapter_copy", peteos.__file__)
    assert spec is not None and spec.loader is not None
    copy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(copy)

    assert issubclass(copy.TextEditor, FakeAgenticObject)
    assert registry == {"TextEditor": copy.TextEditor}
    editor = copy.TextEditor(root=workspace)
    assert editor.role == "TextEditor"
    assert editor.prompt == (TextEditor.__doc__ or "").strip()
    assert sorted(editor.tools) == sorted(TOOLS)
    (workspace / "f.txt").write_text("one\n")
    assert editor.tools["load"][1]("f.txt").startswith("Loaded ")
    assert editor.tools["read"][1]() == "one\n"


def test_edit_matches_exactly_and_counts_as_str_replace(editor: TextEditor, workspace: Path) -> None:
    (workspace / "f.py").write_text("def f():\n    x  =  1\n")
    editor.load("f.py")
    for old in ("x = 1", "  x  =  1\n  ", "def f():\n  x  =  1"):
        assert editor.edit(old, "y").startswith(f"Error: '{old}' not found in text.")
    # The one place, inside a copy of the new text, is replaced again, as the original does.
    assert editor.edit("x  =  1", "x  =  1; x  =  1") == "Replaced 'x  =  1' with 'x  =  1; x  =  1'."
    assert editor.edit("x  =  1", "z").startswith("Error: 'x  =  1' found multiple times.")
    assert editor.edit("x  =  1", "z", replace_all=True) == "Replaced 2 occurrence(s) of 'x  =  1'."
    assert editor.read() == "def f():\n    z; z\n"
    # The new text standing where the old text is gone: not found.
    assert editor.edit("w", "z").startswith("Error: 'w' not found in text.")


def test_an_empty_old_string_answers_as_the_original(editor: TextEditor, workspace: Path) -> None:
    (workspace / "f.txt").write_text("abc\n")
    editor.load("f.txt")
    assert editor.edit("", "x") == (
        "Error: '' found multiple times. Set replace_all=True to replace all occurrences."
    )
    (workspace / "empty.txt").write_text("")
    editor.load("empty.txt")
    assert editor.edit("", "first\n") == "Replaced '' with 'first\n'."
    assert editor.read() == "first\n"


def test_messages_name_the_path_as_given_from_the_root(editor: TextEditor, workspace: Path) -> None:
    (workspace / "real.txt").write_text("one\n")
    (workspace / "alias.txt").symlink_to("real.txt")
    (workspace / "sub").mkdir()
    where = absolute(workspace, "alias.txt")
    assert editor.load("sub/../alias.txt") == f"Loaded {where} (1 lines)."
    assert editor._file_path == where
    editor.write("two\n")
    assert editor.store() == f"Stored 1 lines to {where}."
    assert (workspace / "real.txt").read_text() == "two\n"


# -- the table of deliberate differences -------------------------------------------------------


def test_row_paths_outside_the_workspace_and_blocked_files_are_refused(
    editor: TextEditor, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    (workspace / "link").symlink_to(outside)
    (workspace / ".env").write_text("TOKEN=1\n")
    for path in (str(outside), "../outside.txt", "link"):
        assert editor.load(path).startswith("Error: OutsideWorkspace: "), path
        assert editor.read() == NO_FILE
    assert editor.load("~/notes.txt").startswith("Error: InvalidArgs: ")
    assert editor.load(".env").startswith("Error: Blocked: ")
    assert editor.load(".git/config").startswith("Error: Blocked: ")
    # A missing file outside the workspace is not created either.
    assert editor.load("../created.txt").startswith("Error: OutsideWorkspace: ")
    assert not (tmp_path / "created.txt").exists()
    assert not (workspace / ".git").exists()
    assert outside.read_text() == "secret\n"


@pytest.mark.parametrize("between", ["read", "edit"])
def test_row_read_does_not_bless_a_change_made_on_disk(
    editor: TextEditor, workspace: Path, between: str
) -> None:
    path = workspace / "f.txt"
    path.write_text("one\ntwo\n")
    editor.load("f.txt")
    path.write_text("one\ntwo\nadded outside\n")
    if between == "read":
        assert editor.read() == "one\ntwo\n"
    else:
        assert editor.edit("two", "2") == "Replaced 'two' with '2'."
    assert "was modified externally" in editor.store()
    assert path.read_text() == "one\ntwo\nadded outside\n"


def test_row_a_rewrite_that_keeps_the_mtime_is_noticed(editor: TextEditor, workspace: Path) -> None:
    path = workspace / "f.txt"
    path.write_text("alpha\n")
    before = path.stat()
    editor.load("f.txt")
    editor.write("mine\n")
    path.write_text("bravo\n")  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_mtime_ns == before.st_mtime_ns
    refused = editor.store()
    assert "was modified externally" in refused and "sha256" in refused
    assert path.read_text() == "bravo\n"
    # The check is by content: a touch that leaves the content alone does not refuse the store.
    editor.load("f.txt")
    editor.write("mine\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 5_000_000_000))
    assert editor.store().startswith("Stored 1 lines to ")
    assert path.read_text() == "mine\n"
    # And a second store after a successful one works.
    editor.write("mine again\n")
    assert editor.store().startswith("Stored 1 lines to ")
    assert path.read_text() == "mine again\n"


def test_row_store_replaces_the_file_whole_instead_of_writing_in_place(
    editor: TextEditor, workspace: Path
) -> None:
    path = workspace / "f.txt"
    path.write_text("old content\n")
    editor.load("f.txt")
    editor.write("new content\n")
    # A reader holding the old file shows how it was written: in place, it would see the new
    # content (or a torn mix); a temporary file renamed over the target leaves the old whole.
    with open(path) as held:
        assert editor.store().startswith("Stored 1 lines to ")
        assert held.read() == "old content\n"
    assert path.read_text() == "new content\n"
    assert sorted(p.name for p in workspace.iterdir()) == ["f.txt"]


def test_row_line_endings_and_odd_line_breaks_are_kept(editor: TextEditor, workspace: Path) -> None:
    path = workspace / "f.txt"
    original = "first\r\nsecond\r\nform\x0cfeed\r\nline\u2028separator\r\nvertical\x0btab\r\n"
    path.write_bytes(original.encode())
    editor.load("f.txt")
    assert editor.edit("second", "2nd") == "Replaced 'second' with '2nd'."
    editor.store()
    assert path.read_bytes() == original.replace("second", "2nd").encode()
    # New text takes the file's line ending.
    editor.write("a\nb\n")
    editor.store()
    assert path.read_bytes() == b"a\r\nb\r\n"
    # Lone CR endings too.
    lone = workspace / "cr.txt"
    lone.write_bytes(b"x\ry\rz\r")
    editor.load("cr.txt")
    editor.edit("y", "why")
    editor.store()
    assert lone.read_bytes() == b"x\rwhy\rz\r"


def test_row_write_before_load_is_refused(editor: TextEditor, workspace: Path) -> None:
    (workspace / "f.txt").write_text("on disk\n")
    assert editor.write("typed before loading\n") == NO_FILE
    assert editor.edit("a", "b") == NO_FILE
    editor.load("f.txt")
    assert editor.read() == "on disk\n"


def test_row_load_of_a_missing_folder_or_a_folder_returns_the_error(
    editor: TextEditor, workspace: Path
) -> None:
    (workspace / "f.txt").write_text("kept\n")
    editor.load("f.txt")
    assert editor.load("no/such/x.txt").startswith("Error: file not found: ")
    (workspace / "d").mkdir()
    assert editor.load("d").startswith("Error: IsDirectory: ")
    assert editor.read() == NO_FILE  # a failed load leaves no file loaded
    assert editor._file_path is None


def test_row_a_binary_file_is_refused(editor: TextEditor, workspace: Path) -> None:
    (workspace / "f.bin").write_bytes(b"line one\nline\x00two\nline three\n")
    assert editor.load("f.bin").startswith("Error: Binary: ")
    assert editor.read() == NO_FILE


@pytest.mark.parametrize(
    "raw",
    [
        b"caf\xe9\n",
        b"\xff\xfea\x00\n\x00",
        # Text in a legacy encoding or UTF-16 that editkit could read: the original reads UTF-8.
        "café crème brûlée à la française, déjà vu, naïve façade, et voilà\n".encode("cp1252"),
        "wide text, long enough to be taken for UTF-16 by its BOM\n".encode("utf-16"),
    ],
)
def test_a_file_that_is_not_utf8_is_the_originals_unicode_decode_error(
    editor: TextEditor, workspace: Path, raw: bytes
) -> None:
    # The original: "Error: UnicodeDecodeError: ..." for a file that does not decode as UTF-8.
    (workspace / "f.txt").write_bytes(raw)
    with pytest.raises(UnicodeDecodeError) as error:
        raw.decode("utf-8")
    assert editor.load("f.txt") == f"Error: UnicodeDecodeError: {error.value}"
    assert editor.read() == NO_FILE
    assert (workspace / "f.txt").read_bytes() == raw


def test_row_overlapping_places_are_several(editor: TextEditor, workspace: Path) -> None:
    (workspace / "f.txt").write_text("aaa\n")
    editor.load("f.txt")
    assert editor.edit("aa", "b").startswith("Error: 'aa' found multiple times.")  # the original: "ba"
    assert editor.edit("aa", "b", replace_all=True) == "Replaced 1 occurrence(s) of 'aa'."
    assert editor.read() == "ba\n"


def test_row_an_edit_that_changes_nothing_is_refused(editor: TextEditor, workspace: Path) -> None:
    (workspace / "f.txt").write_text("same\n")
    editor.load("f.txt")
    assert editor.edit("same", "same").startswith("Error: NoChange: ")
    assert editor.edit("", "x", replace_all=True).startswith("Error: InvalidArgs: ")
    assert editor.read() == "same\n"


def test_row_diff_is_editkits_unified_diff_of_the_exact_text(editor: TextEditor, workspace: Path) -> None:
    (workspace / "f.txt").write_text("one\ntwo")
    editor.load("f.txt")
    editor.write("one\ntwo\n")  # the original: the same lines, "No differences"
    diff = editor.diff()
    assert diff.startswith("--- a/f.txt\n+++ b/f.txt\n")
    assert "\\ No newline at end of file" in diff
