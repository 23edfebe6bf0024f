"""``editkit.compat.gaia``: GAIA's ``FileIOToolsMixin`` interface, backed by editkit.

First GAIA's own documented tests and the five usage examples of its specification
(``docs/spec/file-io-tools-mixin.mdx``), then the rest of the interface, then one test (or more)
per row of the adapter's table of differences, then path escapes, then GAIA's words: its
write-deny list, its validator, its diffs, sizes and messages, and its ``GAIA.md``. Where GAIA's
output can be computed here (``difflib``, ``ast``, its ``GAIA.md`` builder), the tests compare
with it exactly.
"""

from __future__ import annotations

import ast
import builtins
import datetime
import difflib
import inspect
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import editkit
import pytest
from editkit.compat import gaia
from editkit.compat.gaia import (
    _TOOL_REGISTRY,
    TOOL_NAMES,
    UNCONFINED_WRITE_ERROR,
    FileIOToolsMixin,
    MissingHostAttributeError,
    PathValidator,
)

ToolFn = Callable[..., dict[str, Any]]


class FileAgent(FileIOToolsMixin):
    """A host as GAIA's docs write one: it binds a validator, then registers the tools."""

    def __init__(self, validator: PathValidator) -> None:
        self.path_validator = validator
        self.register_file_io_tools()


@pytest.fixture(autouse=True)
def _registry() -> Iterator[None]:
    """Each test registers into an empty tool registry and leaves it as it found it."""
    saved = dict(_TOOL_REGISTRY)
    _TOOL_REGISTRY.clear()
    yield
    _TOOL_REGISTRY.clear()
    _TOOL_REGISTRY.update(saved)


@pytest.fixture(autouse=True)
def _never_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    """GAIA's validator asks on the terminal about paths outside; the adapter never may."""

    def refuse(*_: Any) -> str:
        raise AssertionError("the adapter prompted the user")

    monkeypatch.setattr(builtins, "input", refuse)


@pytest.fixture
def agent(workspace: Path) -> FileAgent:
    return FileAgent(PathValidator(allowed_paths=[str(workspace)]))


@pytest.fixture
def tools(agent: FileAgent) -> dict[str, ToolFn]:
    """The registered tools, as GAIA's agent loop calls them."""
    return {name: _TOOL_REGISTRY[name]["function"] for name in TOOL_NAMES}


# ------------------------------------------------------------------------------------------------
# GAIA's documented tests (tests/agents/code/test_file_io.py in its specification).


def test_read_python_file(workspace: Path, tools: dict[str, ToolFn]) -> None:
    read_file = tools["read_file"]
    file_path = workspace / "test.py"
    file_path.write_text("def hello(): pass")

    result = read_file(str(file_path))

    assert result["status"] == "success"
    assert result["file_type"] == "python"
    assert result["is_valid"]
    assert len(result["symbols"]) == 1
    assert result["symbols"][0]["name"] == "hello"
    assert result["symbols"][0]["type"] == "function"
    assert result["symbols"][0]["line"] == 1
    assert result["content"] == "def hello(): pass"
    assert result["errors"] == []


def test_write_python_with_validation(workspace: Path, tools: dict[str, ToolFn]) -> None:
    write_python_file = tools["write_python_file"]
    file_path = workspace / "test.py"

    result = write_python_file(str(file_path), "x = 1 + 2", validate=True)
    assert result["status"] == "success"
    assert file_path.read_text() == "x = 1 + 2"

    result = write_python_file(str(file_path), "x = 1 +", validate=True)
    assert result["status"] == "error"
    assert "syntax_errors" in result
    assert result["error"] == "Invalid Python syntax"
    assert result["syntax_errors"]
    assert all("line 1" in error for error in result["syntax_errors"])
    assert file_path.read_text() == "x = 1 + 2"


def test_search_code(workspace: Path, tools: dict[str, ToolFn]) -> None:
    search_code = tools["search_code"]
    (workspace / "file1.py").write_text("# TODO: fix this\ndef func(): pass")
    (workspace / "file2.py").write_text("x = 1")

    result = search_code(str(workspace), "TODO", ".py")

    assert result["status"] == "success"
    assert result["files_with_matches"] == 1
    assert "file1.py" in result["results"][0]["file"]
    assert result["results"][0]["matches"] == [{"line": 1, "content": "# TODO: fix this"}]
    assert result["files_searched"] == 2


# ------------------------------------------------------------------------------------------------
# The five usage examples of GAIA's specification, run in the project folder as an agent is.


class MyAgent(FileIOToolsMixin):
    """Example 1's host: ``PathValidator()`` allows the current directory."""

    def __init__(self) -> None:
        self.path_validator = PathValidator()
        self._register_tools()

    def _register_tools(self) -> None:
        self.register_file_io_tools()


@pytest.fixture
def project(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(workspace)
    return workspace


CALCULATOR = '''
def calculate_sum(a: int, b: int) -> int:
    """Calculate the sum of two integers."""
    return a + b
'''


def test_example_1_read_and_analyze_python_file(project: Path) -> None:
    (project / "calculator.py").write_text(
        CALCULATOR + "\n\nclass Calculator:\n    def total(self):\n        return 0\n"
    )
    agent = MyAgent()

    result = agent.read_file("calculator.py")

    assert result["file_type"] == "python"
    assert result["is_valid"] is True
    found = [(symbol["type"], symbol["name"], symbol["line"]) for symbol in result["symbols"]]
    assert ("function", "calculate_sum", 2) in found
    assert ("class", "Calculator", 7) in found
    assert ("function", "total", 8) in found
    assert result["file_path"] == "calculator.py"


def test_example_2_write_validated_python_code(project: Path) -> None:
    agent = MyAgent()

    result = agent.write_python_file(
        file_path="src/calculator.py", content=CALCULATOR, validate=True, create_dirs=True
    )

    assert result["status"] == "success"
    assert result["file_path"] == "src/calculator.py"
    assert result["bytes_written"] == len(CALCULATOR.encode("utf-8"))
    assert result["line_count"] == len(CALCULATOR.splitlines())
    assert (project / "src" / "calculator.py").read_text() == CALCULATOR


def test_example_3_edit_file_with_diff(project: Path) -> None:
    agent = MyAgent()
    agent.write_python_file(file_path="src/calculator.py", content=CALCULATOR)

    result = agent.edit_python_file(
        file_path="src/calculator.py",
        old_content="return a + b",
        new_content="return int(a) + int(b)  # Ensure integers",
        backup=True,
    )

    assert result["status"] == "success"
    assert "-    return a + b" in result["diff"]
    assert "+    return int(a) + int(b)  # Ensure integers" in result["diff"]
    assert result["backup_created"] is True
    assert Path(result["backup_path"]).read_text() == CALCULATOR
    assert (project / "src" / "calculator.py").read_text() == CALCULATOR.replace(
        "return a + b", "return int(a) + int(b)  # Ensure integers"
    )


def test_example_4_search_codebase(project: Path) -> None:
    (project / "src" / "pkg").mkdir(parents=True)
    (project / "src" / "a.py").write_text("x = 1  # TODO: name\n")
    (project / "src" / "pkg" / "b.py").write_text("def f():\n    pass  # TODO: body\n    # TODO: test\n")
    (project / "src" / "notes.txt").write_text("TODO: not python\n")
    (project / "top.py").write_text("# TODO: outside src\n")
    agent = MyAgent()

    result = agent.search_code(directory="src", pattern="TODO", file_extension=".py", max_results=50)

    assert result["status"] == "success"
    assert result["files_with_matches"] == 2
    by_file = {found["file"]: found["matches"] for found in result["results"]}
    assert by_file == {
        "a.py": [{"line": 1, "content": "x = 1  # TODO: name"}],
        "pkg/b.py": [{"line": 2, "content": "pass  # TODO: body"}, {"line": 3, "content": "# TODO: test"}],
    }
    assert result["directory"] == "src"


def test_example_5_typescript_generic_file_operations(project: Path) -> None:
    tsx_code = "const Button = () => <button>Click</button>;\n\nexport default Button\n"
    agent = MyAgent()

    result = agent.write_file(file_path="src/components/Button.tsx", content=tsx_code, create_dirs=True)
    assert result["status"] == "success"
    assert result["file_path"] == str(project / "src" / "components" / "Button.tsx")
    assert result["file_type"] == "tsx"
    assert result["size_bytes"] == len(tsx_code.encode())

    result = agent.edit_file(
        file_path="src/components/Button.tsx",
        old_content="export default Button",
        new_content="export { Button }",
    )
    assert result["status"] == "success"
    assert result["file_type"] == "tsx"
    assert "+export { Button }" in result["diff"]
    assert result["old_size"] == len(tsx_code.encode())
    assert result["new_size"] == len(tsx_code.replace("export default Button", "export { Button }").encode())
    assert (project / "src" / "components" / "Button.tsx").read_text().endswith("export { Button }\n")


# ------------------------------------------------------------------------------------------------
# The rest of the interface.


def test_register_file_io_tools_fills_the_registry_in_gaias_shape(agent: FileAgent) -> None:
    # GAIA's list leaves out write_file and edit_file, though it registers all ten.
    assert agent.register_file_io_tools() == [
        "read_file",
        "write_python_file",
        "edit_python_file",
        "search_code",
        "generate_diff",
        "write_markdown_file",
        "update_gaia_md",
        "replace_function",
    ]
    assert set(TOOL_NAMES) <= set(_TOOL_REGISTRY)
    entry = _TOOL_REGISTRY["write_python_file"]
    assert entry["name"] == "write_python_file"
    assert entry["description"].startswith("Write Python code to a file.")
    assert entry["parameters"] == {
        "file_path": {"type": "string", "required": True},
        "content": {"type": "string", "required": True},
        "validate": {"type": "boolean", "required": False},
        "create_dirs": {"type": "boolean", "required": False},
    }
    assert _TOOL_REGISTRY["search_code"]["parameters"]["max_results"] == {
        "type": "integer",
        "required": False,
    }
    assert entry["function"].__self__ is agent


def test_the_methods_keep_gaias_signatures() -> None:
    def signature(name: str) -> str:
        return str(inspect.signature(getattr(FileIOToolsMixin, name)))

    assert signature("read_file").startswith("(self, file_path: str)")
    assert "file_path: str, content: str, validate: bool = True, create_dirs: bool = True" in signature(
        "write_python_file"
    )
    assert "old_content: str, new_content: str, backup: bool = True, dry_run: bool = False" in signature(
        "edit_python_file"
    )
    assert "directory: str = '.', pattern: str = '', file_extension: str = '.py', max_results: int = 100" in (
        signature("search_code")
    )
    assert "file_path: str, new_content: str, context_lines: int = 3" in signature("generate_diff")
    assert "create_dirs: bool = True, project_dir: Optional[str] = None" in signature("write_file")
    assert "old_content: str, new_content: str, project_dir: Optional[str] = None" in signature("edit_file")
    assert "function_name: str, new_implementation: str, backup: bool = True" in signature("replace_function")
    assert "file_path: str, content: str, create_dirs: bool = True" in signature("write_markdown_file")
    assert signature("update_gaia_md").startswith(
        "(self, project_root: str = '.', project_name: Optional[str] = None"
    )


def test_a_host_without_a_validator_refuses_writes_and_raises_on_reads(workspace: Path) -> None:
    host = FileIOToolsMixin()
    target = workspace / "new.py"
    (workspace / "old.py").write_text("def f():\n    return 1\n")

    assert UNCONFINED_WRITE_ERROR == (
        "Write blocked: path confinement is unavailable on this agent (no path_validator configured). "
        "Refusing to write without a security check. Set self.path_validator = <PathValidator "
        "instance>. See docs/spec/file-io-tools-mixin.mdx#host-agent-contract for a worked example."
    )
    assert host.write_python_file(str(target), "x = 1") == {
        "status": "error",
        "error": UNCONFINED_WRITE_ERROR,
    }
    for refused in (
        host.write_file(str(target), "x = 1"),
        host.write_markdown_file(str(workspace / "n.md"), "# n\n"),
        host.edit_file(str(workspace / "old.py"), "return 1", "return 2"),
        host.edit_python_file(str(workspace / "old.py"), "return 1", "return 2"),
        host.replace_function(str(workspace / "old.py"), "f", "def f():\n    return 2\n"),
    ):
        assert refused == {"status": "error", "error": UNCONFINED_WRITE_ERROR}
    assert not target.exists()
    assert (workspace / "old.py").read_text() == "def f():\n    return 1\n"
    message = (
        "FileIOToolsMixin registers FileIOToolsMixin's tools but never binds self.path_validator. "
        "Set self.path_validator = <PathValidator instance>. "
        "See docs/spec/file-io-tools-mixin.mdx#host-agent-contract for a worked example."
    )
    assert issubclass(MissingHostAttributeError, RuntimeError)
    for read_tool in (
        lambda: host.read_file(str(target)),
        lambda: host.search_code(str(workspace), "x"),
        lambda: host.generate_diff(str(target), "x = 1\n"),
        lambda: host.update_gaia_md(str(workspace), project_name="P"),
    ):
        with pytest.raises(MissingHostAttributeError) as raised:
            read_tool()
        assert str(raised.value) == message
    assert not (workspace / "GAIA.md").exists()


def test_a_validator_set_to_none_gets_gaias_answers(workspace: Path) -> None:
    host = FileIOToolsMixin()
    host.path_validator = None  # type: ignore[assignment]

    assert host.write_file(str(workspace / "a.txt"), "x") == {
        "status": "error",
        "error": UNCONFINED_WRITE_ERROR,
    }
    # GAIA's read tools call None.is_path_allowed and answer the AttributeError's text.
    assert host.read_file(str(workspace / "a.txt")) == {
        "status": "error",
        "error": "'NoneType' object has no attribute 'is_path_allowed'",
    }
    assert (
        host.update_gaia_md(str(workspace))["error"] == "'NoneType' object has no attribute 'is_path_allowed'"
    )
    assert not (workspace / "a.txt").exists()


def test_read_file_of_markdown_gives_headers_code_blocks_and_links(workspace: Path, agent: FileAgent) -> None:
    (workspace / "README.md").write_text(
        "# Title\n\nSee [the docs](https://example.com/docs).\n\n## Usage\n\n```python\nprint(1)\n```\n"
    )

    result = agent.read_file(str(workspace / "README.md"))

    assert result["status"] == "success"
    assert result["file_type"] == "markdown"
    assert result["headers"] == ["Title", "Usage"]
    assert len(result["code_blocks"]) == 1
    assert result["code_blocks"][0]["language"] == "python"
    assert "print(1)" in result["code_blocks"][0]["code"]
    assert result["links"] == [{"text": "the docs", "url": "https://example.com/docs"}]
    assert result["line_count"] == 9


def test_read_file_type_is_one_of_the_four_the_specification_names(workspace: Path, agent: FileAgent) -> None:
    # docs/spec/file-io-tools-mixin.mdx, read_file: "file_type": "python" | "markdown" | "binary" | "text"
    # ("Text Files: Raw content reading, Line count and size reporting, No special analysis").
    for name in ("notes.txt", "data.json", "Button.tsx", "NOTES", "style.CSS"):
        (workspace / name).write_text("plain\n")
        result = agent.read_file(str(workspace / name))
        assert result["file_type"] == "text", name
        assert result["content"] == "plain\n" and result["line_count"] == 1
        assert not {"is_valid", "symbols", "headers", "is_binary"} & set(result)
    (workspace / "blob.txt").write_bytes(b"\x00\x01")
    assert agent.read_file(str(workspace / "blob.txt"))["file_type"] == "binary"
    assert agent.read_file(str(workspace / "blob.txt"))["is_binary"] is True


def test_read_file_of_invalid_python_reports_errors_without_symbols(
    workspace: Path, agent: FileAgent
) -> None:
    (workspace / "broken.py").write_text("def f(:\n    pass\n")

    result = agent.read_file(str(workspace / "broken.py"))

    assert result["status"] == "success"
    assert result["is_valid"] is False
    assert result["errors"]
    assert re.fullmatch(r".+ \(<unknown>, line 1\)", result["errors"][0])
    assert "symbols" not in result


@pytest.mark.parametrize(
    "data", [b"\x89PNG\r\n\x1a\n\x00\x00\x00", b"caf\xe9 latin-1\n"], ids=["nul", "not-utf8"]
)
def test_read_file_of_binary_or_undecodable_data(workspace: Path, agent: FileAgent, data: bytes) -> None:
    (workspace / "blob.bin").write_bytes(data)

    result = agent.read_file(str(workspace / "blob.bin"))

    assert result == {
        "status": "success",
        "file_path": str(workspace / "blob.bin"),
        "file_type": "binary",
        "content": f"[Binary file, {len(data)} bytes]",
        "is_binary": True,
        "size_bytes": len(data),
    }


def test_read_file_of_a_missing_file(workspace: Path, agent: FileAgent) -> None:
    result = agent.read_file(str(workspace / "nope.py"))

    assert result["status"] == "error"
    assert result["error"] == f"File not found: {workspace / 'nope.py'}"


def test_edit_python_file_dry_run_writes_nothing(workspace: Path, agent: FileAgent) -> None:
    (workspace / "m.py").write_text("x = 1\n")

    result = agent.edit_python_file(str(workspace / "m.py"), "x = 1", "x = 2", dry_run=True)

    assert result["status"] == "success"
    assert result["dry_run"] is True
    assert result["would_change"] is True
    assert "+x = 2" in result["diff"]
    assert (workspace / "m.py").read_text() == "x = 1\n"


def test_an_edit_that_changes_nothing_succeeds_changing_nothing(workspace: Path, agent: FileAgent) -> None:
    (workspace / "m.py").write_text("x = 1\n")

    dry = agent.edit_python_file(str(workspace / "m.py"), "x = 1", "x = 1", dry_run=True)
    real = agent.edit_file(str(workspace / "m.py"), "x = 1", "x = 1")

    assert dry == {"status": "success", "dry_run": True, "diff": "", "would_change": False}
    assert real["status"] == "success"
    assert real["diff"] == ""
    assert real["old_size"] == real["new_size"] == 6
    assert (workspace / "m.py").read_text() == "x = 1\n"


def test_an_edit_whose_text_is_missing_is_refused(workspace: Path, agent: FileAgent) -> None:
    (workspace / "m.py").write_text("x = 1\n")

    result = agent.edit_python_file(str(workspace / "m.py"), "y = 1", "y = 2")
    generic = agent.edit_file(str(workspace / "m.py"), "y = 1", "y = 2")
    same = agent.edit_file(str(workspace / "m.py"), "y = 1", "y = 1")
    missing = agent.edit_file(str(workspace / "gone.py"), "y = 1", "y = 2")

    assert result["status"] == "error"
    assert result["error"] == "Content to replace not found in file"
    assert result["error_kind"] == "not_found"
    assert "old text not found" in result["detail"]
    assert generic["error"] == f"Content to replace not found in {workspace / 'm.py'}"
    # An edit that would change nothing still needs its text in the file, as in GAIA.
    assert same["error"] == f"Content to replace not found in {workspace / 'm.py'}"
    assert missing["error"] == f"File not found: {workspace / 'gone.py'}"
    assert (workspace / "m.py").read_text() == "x = 1\n"


def test_search_code_matches_a_literal_case_sensitive_substring(workspace: Path, agent: FileAgent) -> None:
    (workspace / "m.py").write_text("a = x[0]\nb = xx0\nC = X[0]\n")

    result = agent.search_code(str(workspace), "x[0]")

    assert result["results"] == [{"file": "m.py", "matches": [{"line": 1, "content": "a = x[0]"}]}]


def test_search_code_lists_at_most_ten_lines_per_file_and_max_results_files(
    workspace: Path, agent: FileAgent
) -> None:
    for name in ("a", "b", "c"):
        (workspace / f"{name}.py").write_text("# hit\n" * 12)

    result = agent.search_code(str(workspace), "hit", max_results=2)

    assert [found["file"] for found in result["results"]] == ["a.py", "b.py"]
    assert [len(found["matches"]) for found in result["results"]] == [10, 10]
    assert result["files_with_matches"] == 2


def test_diffs_are_whole(workspace: Path, agent: FileAgent) -> None:
    old = "".join(f"value_{n} = {n}\n" for n in range(1, 41))
    new = "".join(f"value_{n} = {n * 2}\n" for n in range(1, 41))
    (workspace / "m.py").write_text(old)

    result = agent.edit_python_file(str(workspace / "m.py"), old, new)

    assert result["status"] == "success"
    for n in range(1, 41):
        assert f"-value_{n} = {n}\n" in result["diff"]
        assert f"+value_{n} = {n * 2}\n" in result["diff"]


def test_generate_diff_counts_changes_without_writing(workspace: Path, agent: FileAgent) -> None:
    (workspace / "m.py").write_text("a = 1\nb = 2\n")

    result = agent.generate_diff(str(workspace / "m.py"), "a = 1\nb = 3\nc = 4\n", context_lines=1)
    missing = agent.generate_diff(str(workspace / "new.py"), "z = 0\n")

    assert result["status"] == "success"
    assert (result["additions"], result["deletions"], result["has_changes"]) == (2, 1, True)
    assert "-b = 2" in result["diff"]
    assert "+c = 4" in result["diff"]
    assert (missing["additions"], missing["deletions"], missing["has_changes"]) == (1, 0, True)
    assert (workspace / "m.py").read_text() == "a = 1\nb = 2\n"
    assert not (workspace / "new.py").exists()


def test_write_markdown_file(workspace: Path, agent: FileAgent) -> None:
    content = "# Notes\n\n- one\n"

    result = agent.write_markdown_file(str(workspace / "docs" / "notes.md"), content)

    assert result["status"] == "success"
    assert (result["bytes_written"], result["line_count"]) == (len(content.encode()), 3)
    assert (workspace / "docs" / "notes.md").read_text() == content


def test_replace_function_replaces_one_function(workspace: Path, agent: FileAgent) -> None:
    (workspace / "m.py").write_text("def a():\n    return 1\n\n\ndef b():\n    return 2\n")

    result = agent.replace_function(str(workspace / "m.py"), "a", "def a():\n    return 10", backup=False)

    assert result["status"] == "success"
    assert result["function_replaced"] == "a"
    assert result["backup_path"] is None
    assert "+    return 10" in result["diff"]
    assert (workspace / "m.py").read_text() == "def a():\n    return 10\n\n\ndef b():\n    return 2\n"


def test_replace_function_of_an_unknown_name(workspace: Path, agent: FileAgent) -> None:
    (workspace / "m.py").write_text("def a():\n    return 1\n")

    result = agent.replace_function(str(workspace / "m.py"), "zzz", "def zzz():\n    pass\n")

    assert result["status"] == "error"
    assert result["error"] == "Function 'zzz' not found in file"
    assert result["details"]["available"] == ["a"]
    assert "available" in result["detail"]


def test_replace_function_refuses_a_result_that_does_not_parse(workspace: Path, agent: FileAgent) -> None:
    (workspace / "m.py").write_text("def a():\n    return 1\n")

    result = agent.replace_function(str(workspace / "m.py"), "a", "def a(:\n    return 2\n")

    assert result["status"] == "error"
    assert result["error"] == "Replacement would result in invalid syntax"
    assert result["syntax_errors"]
    assert (workspace / "m.py").read_text() == "def a():\n    return 1\n"


def gaia_md_reference(
    project_name: Any = None, description: Any = None, structure: Any = None, instructions: Any = None
) -> str:
    """GAIA's ``update_gaia_md`` file (its code, with the timestamp left as ``STAMP``)."""
    content = "# GAIA.md\n\n"
    content += "This file provides guidance to GAIA Code Agent when working with code in this project.\n\n"
    if project_name:
        content += f"## Project: {project_name}\n\n"
    if description:
        content += f"## Description\n{description}\n\n"
    content += "**Last Updated:** STAMP\n\n"
    if structure:
        content += "## Project Structure\n```\n"

        def format_structure(struct: Any, indent: str = "") -> str:
            result = ""
            if isinstance(struct, dict):
                for key, value in struct.items():
                    if isinstance(value, dict):
                        result += f"{indent}{key}\n"
                        result += format_structure(value, indent + "  ")
                    else:
                        result += f"{indent}{key} - {value}\n"
            return result

        content += format_structure(structure)
        content += "```\n\n"
    if instructions:
        content += f"## Special Instructions\n{instructions}\n\n"
    content += "## Development Guidelines\n"
    content += "- Follow PEP 8 style guidelines\n"
    content += "- Add docstrings to all functions and classes\n"
    content += "- Include type hints where appropriate\n"
    content += "- Write unit tests for new functionality\n\n"
    content += "## Code Quality\n"
    content += "- All code should pass pylint checks\n"
    content += "- Use Black formatter for consistent style\n"
    content += "- Ensure proper error handling\n\n"
    return content


STAMP = re.compile(r"(?<=\*\*Last Updated:\*\* )\S+")


def stamped(text: str) -> tuple[str, list[str]]:
    """``text`` with its timestamps replaced by ``STAMP``, and the timestamps."""
    return STAMP.sub("STAMP", text), STAMP.findall(text)


FIELDS: dict[str, Any] = {
    "project_name": "Calc",
    "description": "A calculator.",
    "structure": {"src": {"calculator.py": "the maths"}, "README.md": "docs"},
    "instructions": "Keep it small.",
}


@pytest.mark.parametrize(
    "fields",
    [FIELDS, {}, {"description": "Only this."}, {"project_name": "P", "instructions": "Be brief."}],
    ids=["every-field", "no-field", "description", "name-and-instructions"],
)
def test_update_gaia_md_creates_gaias_file(workspace: Path, agent: FileAgent, fields: dict[str, Any]) -> None:
    before = datetime.datetime.now()

    result = agent.update_gaia_md(project_root=str(workspace), **fields)

    gaia_md = os.path.join(str(workspace), "GAIA.md")
    assert result == {
        "status": "success",
        "file_path": gaia_md,
        "created": True,
        "message": f"GAIA.md created at {gaia_md}",
        "updated_sections": [
            name
            for key, name in (
                ("project_name", "Project"),
                ("description", "Description"),
                ("structure", "Project Structure"),
                ("instructions", "Special Instructions"),
            )
            if key in fields
        ],
    }
    text, stamps = stamped(Path(gaia_md).read_text())
    assert text == gaia_md_reference(**fields)
    assert len(stamps) == 1
    assert before <= datetime.datetime.fromisoformat(stamps[0]) <= datetime.datetime.now()


def test_update_gaia_md_updates_gaias_sections_in_place(workspace: Path, agent: FileAgent) -> None:
    agent.update_gaia_md(project_root=str(workspace), **FIELDS)

    second = agent.update_gaia_md(
        project_root=str(workspace), project_name="Calc 2", instructions="Keep it smaller."
    )
    third = agent.update_gaia_md(project_root=str(workspace), description="A better calculator.")

    assert second["created"] is False
    assert second["message"] == f"GAIA.md updated at {os.path.join(str(workspace), 'GAIA.md')}"
    assert second["updated_sections"] == ["Project", "Special Instructions"]
    assert third["updated_sections"] == ["Description"]
    text, stamps = stamped((workspace / "GAIA.md").read_text())
    # Each section once, where GAIA puts it; the ones not given this time are kept.
    assert text == gaia_md_reference(
        "Calc 2", "A better calculator.", FIELDS["structure"], "Keep it smaller."
    )
    assert len(stamps) == 1
    assert "## Instructions" not in text


def test_update_gaia_md_with_no_field_refreshes_only_the_timestamp(workspace: Path, agent: FileAgent) -> None:
    agent.update_gaia_md(project_root=str(workspace), **FIELDS)
    (workspace / "GAIA.md").write_text(STAMP.sub("2000-01-01T00:00:00", (workspace / "GAIA.md").read_text()))

    result = agent.update_gaia_md(project_root=str(workspace))

    assert result["status"] == "success"
    assert result["updated_sections"] == []
    text, stamps = stamped((workspace / "GAIA.md").read_text())
    assert text == gaia_md_reference(**FIELDS)
    assert not stamps[0].startswith("2000")


def test_update_gaia_md_needs_its_folder(workspace: Path, agent: FileAgent) -> None:
    result = agent.update_gaia_md(project_root=str(workspace / "nowhere"), project_name="P")

    gaia_md = os.path.join(str(workspace / "nowhere"), "GAIA.md")
    assert result["error"] == f"[Errno 2] No such file or directory: {gaia_md!r}"
    assert not (workspace / "nowhere").exists()


def test_relative_paths_resolve_against_the_current_directory(
    workspace: Path, agent: FileAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    (workspace / "sub").mkdir()
    (workspace / "m.py").write_text("top = 1\n")
    (workspace / "sub" / "m.py").write_text("sub = 1\n")
    monkeypatch.chdir(workspace / "sub")

    read = agent.read_file("m.py")
    written = agent.write_file("x.ts", "export {};\n", project_dir=str(workspace / "web"))

    assert read["content"] == "sub = 1\n"
    assert read["file_path"] == "m.py"
    assert written["file_path"] == str(workspace / "web" / "x.ts")
    assert (workspace / "web" / "x.ts").read_text() == "export {};\n"


def test_is_path_allowed_asks_the_toolkit(workspace: Path, tmp_path: Path) -> None:
    validator = PathValidator(allowed_paths=[workspace])
    outside = tmp_path / "outside"
    outside.mkdir()

    assert validator.is_path_allowed(str(workspace / "any.py"))
    assert not validator.is_path_allowed(str(outside / "any.py"))
    validator.add_allowed_path(outside)
    assert validator.is_path_allowed(str(outside / "any.py"))
    assert validator.is_path_allowed(str(workspace / "any.py"))


def test_allowed_paths_may_be_widened_in_place(workspace: Path, tmp_path: Path, agent: FileAgent) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "o.txt").write_text("o\n")

    assert agent.read_file(str(other / "o.txt"))["status"] == "error"
    agent.path_validator.allowed_paths.add(other.resolve())
    assert agent.read_file(str(other / "o.txt"))["content"] == "o\n"


# ------------------------------------------------------------------------------------------------
# One test per row of the two tables of differences (safer; not yet as GAIA).


def test_safer_ambiguous_old_content_is_refused(workspace: Path, agent: FileAgent) -> None:
    text = "x = 1\ny = 2\nx = 1\n"
    (workspace / "m.py").write_text(text)
    (workspace / "m.ts").write_text("let a = 1;\nlet a = 1;\n")

    python = agent.edit_python_file(str(workspace / "m.py"), "x = 1", "x = 3")
    generic = agent.edit_file(str(workspace / "m.ts"), "let a = 1;", "let a = 2;")

    assert python["status"] == "error"
    assert python["error_kind"] == "ambiguous"
    assert python["details"]["lines"] == [1, 3]
    assert generic["status"] == "error"
    assert generic["error_kind"] == "ambiguous"
    assert (workspace / "m.py").read_text() == text
    assert (workspace / "m.ts").read_text() == "let a = 1;\nlet a = 1;\n"


def test_safer_a_file_changed_since_read_is_not_overwritten(workspace: Path, agent: FileAgent) -> None:
    target = workspace / "m.py"
    target.write_text("x = 1\n")
    assert agent.read_file(str(target))["status"] == "success"
    target.write_text("x = 1\nsomeone_else = True\n")

    edit = agent.edit_python_file(str(target), "x = 1", "x = 2")
    write = agent.write_file(str(target), "x = 3\n")

    assert edit["status"] == "error"
    assert edit["error_kind"] == "stale"
    assert write["status"] == "error"
    assert write["error_kind"] == "stale"
    assert target.read_text() == "x = 1\nsomeone_else = True\n"
    assert agent.read_file(str(target))["status"] == "success"
    assert agent.edit_python_file(str(target), "x = 1", "x = 2")["status"] == "success"


@pytest.mark.parametrize(
    ("text", "old", "new", "expected", "rung"),
    [
        ("def f():\n\treturn 1\n", "    return 1", "    return 2", "def f():\n\treturn 2\n", "line_trimmed"),
        ("x = 1 +  2\n", "x = 1 + 2", "x = 3", "x = 3\n", "whitespace_normalised"),
        (
            "def f():\n    if x:\n        return 1\n    return 0\n",
            "if x:\n    return 1\nreturn 0",
            "if y:\n    return 1\nreturn 0",
            "def f():\n    if y:\n        return 1\n    return 0\n",
            "line_trimmed",
        ),
        ("s = \u201cworld\u201d\n", 's = "world"', 's = "there"', 's = "there"\n', "unicode_normalised"),
        ('s = "it\u2019s"\n', 's = "it\'s"', 's = "it is"', 's = "it is"\n', "unicode_normalised"),
        ("# a \u2013 b\n", "# a - b", "# a - c", "# a - c\n", "unicode_normalised"),
        ("# a \u2014 b\n", "# a - b", "# a - c", "# a - c\n", "unicode_normalised"),
        ("# a\u00a0b\n", "# a b", "# a c", "# a c\n", "unicode_normalised"),
        ('s = "hi"\n', 's = \\"hi\\"', 's = \\"yo\\"', 's = "yo"\n', "escape_normalised"),
    ],
    ids=[
        "indentation",
        "whitespace",
        "block-indentation",
        "curly-quotes",
        "apostrophe",
        "en-dash",
        "em-dash",
        "nbsp",
        "escaped-quotes",
    ],
)
def test_safer_drifted_old_content_lands_on_the_one_matching_region(
    workspace: Path, agent: FileAgent, text: str, old: str, new: str, expected: str, rung: str
) -> None:
    (workspace / "m.py").write_text(text, encoding="utf-8")
    (workspace / "m.txt").write_text(text, encoding="utf-8")
    assert old not in text  # GAIA: "Content to replace not found in file"

    result = agent.edit_python_file(str(workspace / "m.py"), old, new)
    generic = agent.edit_file(str(workspace / "m.txt"), old, new)

    assert result["status"] == "success"
    assert result["match_rung"] == rung
    assert generic["match_rung"] == rung
    # The new text is written as given: the hyphen replaces the en dash the file had.
    assert (workspace / "m.py").read_text(encoding="utf-8") == expected
    assert (workspace / "m.txt").read_text(encoding="utf-8") == expected


def test_safer_drift_matching_two_regions_is_refused(workspace: Path, agent: FileAgent) -> None:
    (workspace / "m.txt").write_text("# a \u2013 b\n# a \u2014 b\n", encoding="utf-8")

    result = agent.edit_file(str(workspace / "m.txt"), "# a - b", "# a - c")

    assert result["error_kind"] == "ambiguous"
    assert (workspace / "m.txt").read_text(encoding="utf-8") == "# a \u2013 b\n# a \u2014 b\n"


def test_another_ascii_quote_is_not_drift(workspace: Path, agent: FileAgent) -> None:
    (workspace / "q.py").write_text("name = 'world'\n")

    result = agent.edit_python_file(str(workspace / "q.py"), 'name = "world"', 'name = "there"')

    assert result["status"] == "error"
    assert result["error"] == "Content to replace not found in file"
    assert (workspace / "q.py").read_text() == "name = 'world'\n"


def test_safer_a_repeated_edit_is_refused_as_already_applied(workspace: Path, agent: FileAgent) -> None:
    (workspace / "m.py").write_text("def f():\n    return 1\n")

    first = agent.edit_python_file(str(workspace / "m.py"), "    return 1", "    return 1 + 1")
    again = agent.edit_python_file(str(workspace / "m.py"), "    return 1", "    return 1 + 1")

    assert first["status"] == "success"
    assert again["status"] == "error"
    assert again["error_kind"] == "already_applied"
    assert (workspace / "m.py").read_text() == "def f():\n    return 1 + 1\n"


def test_safer_line_endings_and_bom_are_kept(workspace: Path, agent: FileAgent) -> None:
    target = workspace / "win.py"
    target.write_bytes(b"\xef\xbb\xbfa = 1\r\nb = 2\r\nc = 3\n")

    result = agent.edit_python_file(str(target), "b = 2", "b = 20\nb2 = 21")
    tsx = workspace / "w.tsx"
    tsx.write_bytes(b"const a = 1;\r\nconst b = 2;\r\n")
    generic = agent.edit_file(str(tsx), "const b = 2;", "const b = 3;")

    assert result["status"] == "success"
    assert generic["status"] == "success"
    assert target.read_bytes() == b"\xef\xbb\xbfa = 1\r\nb = 20\r\nb2 = 21\r\nc = 3\n"
    assert tsx.read_bytes() == b"const a = 1;\r\nconst b = 3;\r\n"


def test_safer_paths_outside_are_refused_without_prompting(
    workspace: Path, tmp_path: Path, agent: FileAgent
) -> None:
    sibling = tmp_path / (workspace.name + "-old")
    sibling.mkdir()
    (sibling / "x.py").write_text("secret = 1\n")

    read = agent.read_file(str(sibling / "x.py"))
    write = agent.write_python_file(str(sibling / "x.py"), "secret = 2\n")

    assert read == {
        "status": "error",
        "error": f"Access denied: {sibling / 'x.py'} is not in allowed paths",
        "error_kind": "outside_workspace",
        "detail": read["detail"],
        "details": read["details"],
    }
    assert write["status"] == "error"
    assert write["error_kind"] == "outside_workspace"
    assert (sibling / "x.py").read_text() == "secret = 1\n"
    assert not agent.path_validator.is_path_allowed(str(sibling / "x.py"), prompt_user=True)


def test_safer_blocked_paths_and_secrets_are_refused_for_reads_too(workspace: Path, tmp_path: Path) -> None:
    (workspace / "secrets").mkdir()
    (workspace / "secrets" / "token.py").write_text("TOKEN = 'x'  # TODO rotate\n")
    (workspace / ".env").write_text("KEY=1\n")
    (workspace / "app.py").write_text("# TODO ship\n")
    agent = FileAgent(PathValidator(allowed_paths=[workspace], blocked_paths=[workspace / "secrets"]))

    read = agent.read_file(str(workspace / "secrets" / "token.py"))
    write = agent.write_python_file(str(workspace / "secrets" / "new.py"), "x = 1\n")
    env = agent.read_file(str(workspace / ".env"))
    found = agent.search_code(str(workspace), "TODO")

    assert read["status"] == "error"
    assert read["error_kind"] == "blocked"
    assert read["error"].startswith(f"Access denied: {workspace / 'secrets' / 'token.py'} is blocked")
    assert write["status"] == "error"
    assert write["error_kind"] == "blocked"
    assert not (workspace / "secrets" / "new.py").exists()
    assert env["status"] == "error"
    assert env["error_kind"] == "blocked"
    assert [result["file"] for result in found["results"]] == ["app.py"]
    assert not agent.path_validator.is_path_allowed(str(workspace / "secrets" / "token.py"))


def test_safer_writes_replace_the_file_whole(workspace: Path, agent: FileAgent) -> None:
    target = workspace / "m.py"
    target.write_text("old = 1\n")
    with open(target, encoding="utf-8") as before:
        result = agent.write_file(str(target), "new = 2\n")
        # A write in place would show the new text through the handle opened before it.
        assert before.read() == "old = 1\n"

    assert result["status"] == "success"
    assert target.read_text() == "new = 2\n"
    assert sorted(path.name for path in workspace.iterdir()) == ["m.py"]


def test_safer_backups_are_kept_outside_the_project(workspace: Path, agent: FileAgent) -> None:
    target = workspace / "m.py"
    target.write_text("x = 1\n")

    result = agent.edit_python_file(str(target), "x = 1", "x = 2", backup=True)

    assert result["status"] == "success"
    assert result["backup_created"] is True
    backup = Path(result["backup_path"])
    assert backup.read_text() == "x = 1\n"
    assert workspace not in backup.parents
    assert sorted(path.name for path in workspace.iterdir()) == ["m.py"]
    undo = agent.path_validator.toolkit.call("undo_edit", {"path": str(target)})
    assert undo["ok"] is True
    assert target.read_text() == "x = 1\n"


def test_an_edit_leaving_a_syntax_error_is_refused_even_in_a_file_that_had_one(
    workspace: Path, agent: FileAgent
) -> None:
    # docs/spec/file-io-tools-mixin.mdx, "3. edit_python_file: Edit a Python file by replacing
    # content with validation": the edited file is validated whole, so an edit that fixes one of
    # two errors is refused (with CPython's message for the one left); fixing both at once works.
    target = workspace / "m.py"
    text = "def f(:\n    pass\n\nx = (1,\n"
    target.write_text(text)
    with pytest.raises(SyntaxError) as left:
        ast.parse("def f():\n    pass\n\nx = (1,\n")

    fixed_one = agent.edit_python_file(str(target), "def f(:", "def f():")
    dry = agent.edit_python_file(str(target), "def f(:", "def f():", dry_run=True)
    fixed_both = agent.edit_python_file(str(target), "def f(:\n    pass\n\nx = (1,", "def f():\n    pass\n\nx = (1,)")

    assert fixed_one == dry == {
        "status": "error",
        "error": "Edit would result in invalid Python syntax",
        "syntax_errors": [str(left.value)],
    }
    assert fixed_both["status"] == "success"
    assert target.read_text() == "def f():\n    pass\n\nx = (1,)\n"


def test_safer_replace_function_refuses_a_name_defined_twice(workspace: Path, agent: FileAgent) -> None:
    text = (
        "class A:\n    def run(self):\n        return 'a'\n\n\n"
        "class B:\n    def run(self):\n        return 'b'\n"
    )
    (workspace / "m.py").write_text(text)

    twice = agent.replace_function(str(workspace / "m.py"), "run", "def run(self):\n    return 'x'\n")
    named = agent.replace_function(str(workspace / "m.py"), "B.run", "def run(self):\n    return 'x'\n")

    assert twice["status"] == "error"
    assert twice["error_kind"] == "ambiguous"
    assert twice["details"]["lines"] == [2, 7]
    assert named["status"] == "success"
    assert (workspace / "m.py").read_text() == text.replace("return 'b'", "return 'x'")


def test_safer_replace_function_replaces_exactly_the_definition(workspace: Path, agent: FileAgent) -> None:
    text = (
        "import functools\n\n\n@functools.cache\ndef foo():\n    return 1\n\n\nCONSTANT = 42\n\n\n"
        "def bar():\n    return CONSTANT\n"
    )
    (workspace / "mod.py").write_text(text)

    result = agent.replace_function(
        str(workspace / "mod.py"), "foo", "def foo():\n    return 99", backup=False
    )

    assert result["status"] == "success"
    assert (workspace / "mod.py").read_text() == text.replace("return 1", "return 99")


def test_search_code_walks_every_folder_as_gaia_does_safer_refuses_a_missing_directory(
    workspace: Path, agent: FileAgent
) -> None:
    # GAIA's search_code: os.walk(directory), every file whose name ends with file_extension,
    # read as UTF-8 (a file that is not is skipped): .gitignored and hidden folders included.
    (workspace / ".git").mkdir()
    (workspace / ".gitignore").write_text("build/\n")
    for folder in ("build", ".venv", "src", "node_modules/pkg"):
        (workspace / folder).mkdir(parents=True)
        (workspace / folder / "m.py").write_text("# TODO here\n")
    (workspace / ".hidden.py").write_text("# TODO hidden\n")
    (workspace / "src" / "blob.py").write_bytes(b"\x00\x01# TODO in binary\n")
    # Text in windows-1252 that editkit could read: GAIA's open(encoding="utf-8") cannot.
    latin = "# TODO café crème brûlée à la française, déjà vu, naïve façade, voilà\n"
    (workspace / "src" / "latin.py").write_bytes(latin.encode("cp1252"))
    for name in ("zeta.py", "alpha.py", "mid.py"):
        (workspace / "src" / name).write_text("# TODO\n")

    found = agent.search_code(str(workspace), "TODO")
    missing = agent.search_code(str(workspace / "srcc"), "TODO")
    one_file = agent.search_code(str(workspace / "src" / "m.py"), "TODO")

    assert sorted(result["file"] for result in found["results"]) == [
        ".hidden.py",
        ".venv/m.py",
        "build/m.py",
        "node_modules/pkg/m.py",
        "src/alpha.py",
        "src/m.py",
        "src/mid.py",
        "src/zeta.py",
    ]
    assert found["files_with_matches"] == 8
    assert found["files_searched"] == 10  # GAIA counts the files it could not read too
    assert missing["status"] == "error"
    assert missing["error_kind"] == "not_found"
    assert one_file["results"] == [{"file": "m.py", "matches": [{"line": 1, "content": "# TODO here"}]}]


def test_safer_update_gaia_md_keeps_hand_written_sections(workspace: Path, agent: FileAgent) -> None:
    (workspace / "GAIA.md").write_text(
        "# Calc\n\nIntro.\n\n## Description\nOld.\n\n## Team notes\nAsk Ana before releasing.\n"
    )

    result = agent.update_gaia_md(project_root=str(workspace), description="New.", instructions="Be kind.")

    assert result["status"] == "success"
    assert result["created"] is False
    assert result["updated_sections"] == ["Description", "Special Instructions"]
    text, stamps = stamped((workspace / "GAIA.md").read_text())
    # Replaced in place; the missing Last Updated line and Special Instructions go where GAIA
    # puts them (after the Description), and the hand-written section stays.
    assert text == (
        "# Calc\n\nIntro.\n\n## Description\nNew.\n\n**Last Updated:** STAMP\n\n"
        "## Special Instructions\nBe kind.\n\n## Team notes\nAsk Ana before releasing.\n"
    )
    assert len(stamps) == 1


def test_update_gaia_md_takes_structure_as_text_as_specified(workspace: Path, agent: FileAgent) -> None:
    result = agent.update_gaia_md(project_root=str(workspace), structure="src/\n  app.py - the app")

    assert result["status"] == "success"
    text, _ = stamped((workspace / "GAIA.md").read_text())
    # GAIA's formatter renders only a dict: its block would be empty.
    assert "## Project Structure\n```\n```\n" in gaia_md_reference(structure="src/\n  app.py - the app")
    assert "## Project Structure\n```\nsrc/\n  app.py - the app\n```\n\n" in text


def test_safer_files_over_the_read_limit_are_refused(workspace: Path) -> None:
    agent = FileAgent(PathValidator(allowed_paths=[workspace], max_read_bytes=1024))
    (workspace / "big.py").write_text("x = 1\n" * 400)

    result = agent.read_file(str(workspace / "big.py"))

    assert result["status"] == "error"
    assert result["error_kind"] == "too_large"


# ------------------------------------------------------------------------------------------------
# Path escapes: `..`, a symlink out, an absolute path outside.


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "victim.py").write_text("victim = 1\n")
    return folder


def _assert_refused(result: dict[str, Any]) -> None:
    assert result["status"] == "error"
    assert result["error"].startswith("Access denied: ")
    assert result["error_kind"] == "outside_workspace"


def test_escape_through_dotdot_is_refused(workspace: Path, outside: Path, agent: FileAgent) -> None:
    escaping = str(workspace / ".." / "outside" / "victim.py")

    _assert_refused(agent.read_file(escaping))
    _assert_refused(agent.write_python_file(escaping, "victim = 2\n"))
    _assert_refused(agent.edit_file(escaping, "victim = 1", "victim = 2"))
    _assert_refused(agent.generate_diff(escaping, "victim = 2\n"))
    assert (outside / "victim.py").read_text() == "victim = 1\n"


def test_escape_through_relative_dotdot_is_refused(
    workspace: Path, outside: Path, agent: FileAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workspace)

    _assert_refused(agent.read_file("../outside/victim.py"))
    _assert_refused(agent.write_file("victim.py", "victim = 2\n", project_dir="../outside"))
    _assert_refused(agent.search_code("..", "victim"))
    assert (outside / "victim.py").read_text() == "victim = 1\n"


def test_escape_through_a_symlink_is_refused(workspace: Path, outside: Path, agent: FileAgent) -> None:
    (workspace / "link").symlink_to(outside, target_is_directory=True)
    (workspace / "file_link.py").symlink_to(outside / "victim.py")

    for path in (workspace / "link" / "victim.py", workspace / "file_link.py"):
        _assert_refused(agent.read_file(str(path)))
        _assert_refused(agent.write_python_file(str(path), "victim = 2\n"))
        _assert_refused(agent.edit_python_file(str(path), "victim = 1", "victim = 2"))
        _assert_refused(agent.replace_function(str(path), "f", "def f():\n    pass\n"))
    _assert_refused(agent.write_markdown_file(str(workspace / "link" / "new.md"), "# x\n"))
    assert (outside / "victim.py").read_text() == "victim = 1\n"
    assert sorted(path.name for path in outside.iterdir()) == ["victim.py"]


def test_escape_through_an_absolute_path_is_refused(workspace: Path, outside: Path, agent: FileAgent) -> None:
    victim = str(outside / "victim.py")

    _assert_refused(agent.read_file(victim))
    _assert_refused(agent.write_file(victim, "victim = 2\n"))
    _assert_refused(agent.edit_python_file(victim, "victim = 1", "victim = 2"))
    _assert_refused(agent.search_code(str(outside), "victim"))
    _assert_refused(agent.update_gaia_md(project_root=str(outside), description="x"))
    assert (outside / "victim.py").read_text() == "victim = 1\n"
    assert not (outside / "GAIA.md").exists()


def test_the_module_names_its_interface(workspace: Path) -> None:
    assert gaia.__all__
    assert set(gaia.__all__) <= set(dir(gaia))
    toolkit = gaia.PathValidator(allowed_paths=[workspace]).toolkit
    assert isinstance(toolkit, editkit.Toolkit)
    assert toolkit.roots == [str(workspace.resolve())]


@pytest.fixture(autouse=True)
def _no_gaia_relocation(monkeypatch: pytest.MonkeyPatch) -> None:
    """GAIA's state folder is ``~/.gaia`` in these tests, wherever the user moved theirs."""
    monkeypatch.delenv("GAIA_CONFIG_DIR", raising=False)
    monkeypatch.delenv("GAIA_HOME", raising=False)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder of the test's own (``~/.ssh``, ``~/.gaia``...), outside the workspace."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder.resolve()


# ------------------------------------------------------------------------------------------------
# GAIA's write-deny list (gaia.security.is_write_blocked), enforced by the toolkit, in GAIA's words.

STARTUP_TAIL = (
    ". Writing to it would make the agent's content run on your machine without you asking. "
    "Edit it yourself if that is what you intended."
)


def startup_name(real: str) -> str:
    name = os.path.basename(real)
    return (
        f"Write blocked: '{name}' is executed automatically when a shell, login session or git command starts"
        + (STARTUP_TAIL)
    )


def sensitive_name(real: str) -> str:
    name = os.path.basename(real)
    return (
        f"Write blocked: '{name}' is a sensitive file (credentials/keys/secrets). "
        "Writing to it is not allowed."
    )


def sensitive_extension(real: str) -> str:
    extension = os.path.splitext(real)[1].lower()
    return (
        f"Write blocked: files with extension '{extension}' are sensitive (certificates/keys). "
        "Writing is not allowed."
    )


def startup_folder(marker: str) -> Callable[[str], str]:
    def reason(real: str) -> str:
        return (
            f"Write blocked: '{real}' is inside '{marker}', whose contents are executed automatically "
            f"at login, on a git operation, or by the session manager{STARTUP_TAIL}"
        )

    return reason


DENIED_ANYWHERE: list[tuple[str, Callable[[str], str]]] = [
    (".bashrc", startup_name),
    (".profile", startup_name),
    (".zshrc", startup_name),
    ("src/.BASHRC", startup_name),
    ("config.fish", startup_name),
    (".gitconfig", startup_name),
    ("crontab", startup_name),
    ("scripts/Profile.ps1", startup_name),
    ("credentials.json", sensitive_name),
    ("secrets.json", sensitive_name),
    ("config/service_account.json", sensitive_name),
    ("known_hosts", sensitive_name),
    (".pgpass", sensitive_name),
    ("Secrets.JSON", sensitive_name),
    ("certs/site.crt", sensitive_extension),
    ("site.cer", sensitive_extension),
    ("SITE.CRT", sensitive_extension),
    ("store.pfx", sensitive_extension),
    (".config/autostart/app.desktop", startup_folder(".config/autostart")),
    (".config/systemd/user/x.service", startup_folder(".config/systemd/user")),
    ("Library/LaunchAgents/x.plist", startup_folder("launchagents")),
    ("x/WindowsPowerShell/notes.txt", startup_folder("windowspowershell")),
    (".git/hooks/pre-commit", startup_folder(".git")),
]


@pytest.mark.parametrize(("relative", "reason"), DENIED_ANYWHERE, ids=[case[0] for case in DENIED_ANYWHERE])
def test_gaias_write_deny_list_is_refused_in_its_words(
    workspace: Path, agent: FileAgent, relative: str, reason: Callable[[str], str]
) -> None:
    target = workspace / relative
    real = os.path.realpath(target)

    written = agent.write_file(str(target), "x = 1\n")
    python = agent.write_python_file(str(target), "x = 1\n")

    assert written["status"] == "error"
    assert written["error"] == reason(real)
    assert written["error_kind"] == "blocked"
    assert python["error"] == reason(real)
    assert not target.exists()
    # The toolkit enforces the list: edits are refused alike, and (safer) reads too.
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("x = 1\n")
    assert agent.edit_file(str(target), "x = 1", "x = 2")["error"] == reason(real)
    assert agent.edit_python_file(str(target), "x = 1", "x = 2")["error"] == reason(real)
    assert agent.read_file(str(target))["error_kind"] == "blocked"
    assert not agent.path_validator.is_path_allowed(str(target))
    assert (
        agent.path_validator.toolkit.call("write_file", {"path": str(target), "content": "y"})["ok"] is False
    )
    assert target.read_text() == "x = 1\n"


DENIED_IN_HOME: list[tuple[str, str, bool]] = [
    # (path below the home folder, the folder GAIA names, whether it is a credential folder)
    (".ssh/config", ".ssh", False),
    (".gnupg/pubring.kbx", ".gnupg", False),
    ("Library/LaunchAgents/x.plist", "Library/LaunchAgents", False),
    (".gaia/mcp_servers.json", ".gaia", False),
    (".kube/config", ".kube", True),
    (".docker/config.json", ".docker", True),
    (".aws/config", ".aws", True),
    (".azure/profile.json", ".azure", True),
    (".config/gcloud/configurations/default", ".config/gcloud", True),
]


@pytest.mark.parametrize(
    ("relative", "folder", "secret"), DENIED_IN_HOME, ids=[case[0] for case in DENIED_IN_HOME]
)
def test_gaias_protected_home_folders_are_refused_in_its_words(
    home: Path, relative: str, folder: str, secret: bool
) -> None:
    agent = FileAgent(PathValidator(allowed_paths=[home]))
    target = home / relative
    real = os.path.realpath(target)
    reason = f"Write blocked: '{real}' is inside protected directory '{home / folder}'"
    if secret:
        reason += ", which holds credentials and tool configuration. Edit it yourself if you need to."

    assert agent.write_file(str(target), "x\n")["error"] == reason
    assert not target.exists()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("x\n")
    assert agent.edit_file(str(target), "x", "y")["error"] == reason
    assert agent.read_file(str(target))["error_kind"] == "blocked"
    assert target.read_text() == "x\n"


def test_gaias_credential_folders_are_those_of_the_home_folder(
    home: Path, workspace: Path, agent: FileAgent
) -> None:
    # As in GAIA, a project's own .kube or .ssh folder is not the user's.
    for relative in (".kube/config", ".ssh/config", ".docker/config.json"):
        assert agent.write_file(str(workspace / relative), "x\n")["status"] == "success"


def test_safer_the_toolkit_blocks_more_than_gaia(workspace: Path, agent: FileAgent) -> None:
    # editkit's own defaults, and a folder named like a denied file.
    for relative in (".env.test", "crontab/notes.txt", "deploy/id_rsa.bak", ".git-credentials"):
        result = agent.write_file(str(workspace / relative), "x\n")
        assert result["error_kind"] == "blocked", relative
        assert result["error"].startswith(f"Access denied: {workspace / relative} is blocked (")
        assert not (workspace / relative).exists()


def test_safer_gaias_state_folder_is_blocked_whole(home: Path) -> None:
    documents = home / ".gaia" / "documents"
    documents.mkdir(parents=True)
    from_home = FileAgent(PathValidator(allowed_paths=[home]))
    in_documents = FileAgent(PathValidator(allowed_paths=[documents]))

    # GAIA lets writes into ~/.gaia/documents (its uploads), from any allowed path.
    assert from_home.write_file(str(documents / "notes.txt"), "x\n")["error_kind"] == "blocked"
    assert in_documents.write_file(str(documents / "notes.txt"), "x\n")["status"] == "success"
    assert from_home.write_file(str(home / ".gaia" / "config.json"), "x\n")["error"] == (
        f"Write blocked: '{home / '.gaia' / 'config.json'}' is inside protected directory '{home / '.gaia'}'"
    )


def test_safer_an_allowed_path_inside_a_write_protected_folder_is_left_out(
    home: Path, workspace: Path
) -> None:
    (home / ".ssh").mkdir()
    (home / ".ssh" / "notes.txt").write_text("n\n")
    (workspace / "a.txt").write_text("a\n")
    both = FileAgent(PathValidator(allowed_paths=[home / ".ssh", workspace]))
    only = FileAgent(PathValidator(allowed_paths=[home / ".ssh"]))

    assert both.read_file(str(workspace / "a.txt"))["content"] == "a\n"
    assert both.read_file(str(home / ".ssh" / "notes.txt"))["error_kind"] == "outside_workspace"
    assert only.read_file(str(home / ".ssh" / "notes.txt")) == {
        "status": "error",
        "error": "no allowed path is left to work in: each is missing, not a folder, or inside a blocked "
        "or write-protected folder",
    }


def test_a_startup_folder_run_may_start_above_the_allowed_path(tmp_path: Path) -> None:
    config = tmp_path / "project" / ".config"
    (config / "autostart").mkdir(parents=True)
    agent = FileAgent(PathValidator(allowed_paths=[config]))
    inside = FileAgent(PathValidator(allowed_paths=[config / "autostart"]))
    target = config / "autostart" / "app.desktop"

    assert agent.write_file(str(target), "x\n")["error"] == startup_folder(".config/autostart")(str(target))
    assert agent.write_file(str(config / "other.txt"), "x\n")["status"] == "success"
    assert inside.read_file(str(target))["error"].startswith("no allowed path is left to work in")
    assert not target.exists()


def test_safer_a_blocked_folder_is_blocked_below_every_allowed_path(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for root in (first, second):
        (root / "secrets").mkdir(parents=True)
    agent = FileAgent(PathValidator(allowed_paths=[first, second], blocked_paths=[first / "secrets"]))

    assert agent.write_file(str(first / "secrets" / "a.txt"), "x\n")["error_kind"] == "blocked"
    # The toolkit's blocked patterns hold for every root: the same place below the other is blocked.
    assert agent.write_file(str(second / "secrets" / "a.txt"), "x\n")["error_kind"] == "blocked"
    assert agent.write_file(str(second / "open.txt"), "x\n")["status"] == "success"


def test_safer_allowed_paths_that_are_files_or_missing_are_left_out(workspace: Path, tmp_path: Path) -> None:
    (tmp_path / "single.txt").write_text("s\n")
    (workspace / "a.txt").write_text("a\n")
    agent = FileAgent(PathValidator(allowed_paths=[tmp_path / "single.txt", tmp_path / "later", workspace]))

    assert agent.read_file(str(workspace / "a.txt"))["content"] == "a\n"
    assert agent.read_file(str(tmp_path / "single.txt"))["error_kind"] == "outside_workspace"
    assert agent.write_file(str(tmp_path / "later" / "x.txt"), "x\n")["error_kind"] == "outside_workspace"
    assert not (tmp_path / "later").exists()


def test_an_empty_allowed_list_allows_nothing(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(workspace)
    agent = FileAgent(PathValidator(allowed_paths=[]))

    assert agent.write_file("a.txt", "x\n")["error"].startswith("no allowed path is left to work in")
    assert not (workspace / "a.txt").exists()


def test_writes_outside_are_refused_in_gaias_words(workspace: Path, agent: FileAgent) -> None:
    attach = (
        " Attach the file to this session, or start the agent with an allowed_paths list that covers it."
        " Do not copy, move or convert it to another location to get around this."
    )

    elsewhere = agent.write_python_file("/srv/editkit-test/app.py", "x = 1\n")
    system = agent.write_markdown_file("/etc/editkit-test.md", "# x\n")
    edit = agent.edit_file("/etc/editkit-test.conf", "a", "b")
    python_edit = agent.edit_python_file("/srv/editkit-test/app.py", "a", "b")

    assert elsewhere["error"] == f"Access denied: '/srv/editkit-test/app.py' is not in allowed paths.{attach}"
    assert system["error"] == (
        "Access denied: '/etc/editkit-test.md' is not in allowed paths. No approval can grant it: "
        "Write blocked: '/etc/editkit-test.md' is inside protected directory '/etc'."
    )
    # The edit tools check GAIA's write-deny list before the allowed paths.
    assert edit["error"] == "Write blocked: '/etc/editkit-test.conf' is inside protected directory '/etc'"
    assert python_edit["error"] == "Access denied: /srv/editkit-test/app.py is not in allowed paths"


# ------------------------------------------------------------------------------------------------
# GAIA's own validator (gaia.security.PathValidator): only its allowed paths are read.


class GaiaPathValidator:
    """Shaped like GAIA's ``PathValidator``: resolved ``allowed_paths``, ``read_only_paths`` and
    ``withheld_paths`` sets and GAIA's methods, and no ``toolkit``."""

    def __init__(self, allowed_paths: Any = None) -> None:
        chosen = [Path.cwd()] if allowed_paths is None else allowed_paths
        self.allowed_paths: set[Path] = {Path(path).resolve() for path in chosen}
        self.read_only_paths: set[Path] = set()
        self.withheld_paths: set[Path] = set()

    def add_allowed_path(self, path: str) -> None:
        self.allowed_paths.add(Path(path).resolve())

    def withhold_path(self, path: str) -> None:
        self.withheld_paths.add(Path(path).resolve())

    def is_path_allowed(self, path: str, prompt_user: bool = True) -> bool:
        raise AssertionError("the toolkit decides, not the validator's methods")

    def is_write_blocked(self, path: str) -> tuple[bool, str]:
        raise AssertionError("the toolkit decides, not the validator's methods")


def test_gaias_own_validator_confines_the_tools(workspace: Path, tmp_path: Path) -> None:
    (workspace / "m.py").write_text("x = 1\n")
    agent = FileAgent(GaiaPathValidator(allowed_paths=[str(workspace)]))  # type: ignore[arg-type]

    assert agent.read_file(str(workspace / "m.py"))["content"] == "x = 1\n"
    assert agent.edit_python_file(str(workspace / "m.py"), "x = 1", "x = 2")["status"] == "success"
    assert agent.write_file(str(workspace / "n.txt"), "n\n")["status"] == "success"
    assert agent.write_file(str(workspace / ".bashrc"), "n\n")["error"] == startup_name(".bashrc")
    assert agent.read_file(str(tmp_path / "elsewhere.py"))["error_kind"] == "outside_workspace"
    assert (workspace / "m.py").read_text() == "x = 2\n"


def test_gaias_own_validator_keeps_its_toolkit_until_its_paths_change(
    workspace: Path, tmp_path: Path
) -> None:
    validator = GaiaPathValidator(allowed_paths=[str(workspace)])
    agent = FileAgent(validator)  # type: ignore[arg-type]
    target = workspace / "m.py"
    target.write_text("x = 1\n")
    agent.read_file(str(target))
    target.write_text("x = 1\nchanged = True\n")

    # The same toolkit remembers the read: the change made meanwhile is not overwritten.
    assert agent.write_file(str(target), "x = 3\n")["error_kind"] == "stale"
    other = tmp_path / "other"
    other.mkdir()
    (other / "o.txt").write_text("o\n")
    assert agent.read_file(str(other / "o.txt"))["error_kind"] == "outside_workspace"
    validator.add_allowed_path(str(other))
    assert agent.read_file(str(other / "o.txt"))["content"] == "o\n"
    (workspace / "private").mkdir()
    validator.withhold_path(str(workspace / "private"))
    assert agent.write_file(str(workspace / "private" / "p.txt"), "p\n")["error_kind"] == "blocked"
    assert not (workspace / "private" / "p.txt").exists()


def test_a_validator_without_allowed_paths_is_an_error(workspace: Path) -> None:
    agent = FileAgent(object())  # type: ignore[arg-type]

    assert agent.read_file(str(workspace / "m.py")) == {
        "status": "error",
        "error": "path_validator (object) has no allowed_paths to confine the tools to",
    }


# ------------------------------------------------------------------------------------------------
# GAIA's results: read_file's text and sizes, diffs, edit sizes, search filters, messages.


def gaia_text(data: bytes) -> str:
    """What GAIA's ``open(path, encoding="utf-8").read()`` gives: universal newlines, BOM kept."""
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


@pytest.mark.parametrize(
    "data",
    [
        b"a\r\nb\r\n",
        b"\xef\xbb\xbfhello\n",
        b"\xef\xbb\xbfx\r\ny\rz",
        "caf\u00e9\n\u2028next\n".encode(),
        b"",
    ],
    ids=["crlf", "bom", "bom-mixed", "non-ascii", "empty"],
)
def test_read_file_gives_gaias_text_and_sizes(workspace: Path, agent: FileAgent, data: bytes) -> None:
    (workspace / "f.txt").write_bytes(data)

    result = agent.read_file(str(workspace / "f.txt"))

    expected = gaia_text(data)
    assert result["content"] == expected
    assert result["size_bytes"] == len(expected.encode("utf-8"))
    assert result["line_count"] == len(expected.splitlines())
    assert (workspace / "f.txt").read_bytes() == data


def test_safer_a_python_file_with_a_bom_parses(workspace: Path, agent: FileAgent) -> None:
    (workspace / "b.py").write_bytes(b"\xef\xbb\xbfdef f():\n    return 1\n")
    with pytest.raises(SyntaxError, match="U\\+FEFF"):
        ast.parse(gaia_text((workspace / "b.py").read_bytes()))  # what GAIA checks

    read = agent.read_file(str(workspace / "b.py"))
    replaced = agent.replace_function(str(workspace / "b.py"), "f", "def f():\n    return 2\n")

    assert read["content"].startswith("\ufeffdef f")
    assert read["is_valid"] is True
    assert [symbol["name"] for symbol in read["symbols"]] == ["f"]
    assert replaced["status"] == "success"
    assert (workspace / "b.py").read_bytes() == b"\xef\xbb\xbfdef f():\n    return 2\n"


def test_safer_nul_bytes_in_valid_utf8_read_as_binary(workspace: Path, agent: FileAgent) -> None:
    (workspace / "nul.txt").write_bytes(b"a\x00b\n")
    assert gaia_text((workspace / "nul.txt").read_bytes()) == "a\x00b\n"  # GAIA reads it as text

    result = agent.read_file(str(workspace / "nul.txt"))

    assert result["is_binary"] is True
    assert result["content"] == "[Binary file, 4 bytes]"


def test_syntax_errors_are_cpythons_as_with_full_ast_parsing(workspace: Path, agent: FileAgent) -> None:
    # docs/spec/file-io-tools-mixin.mdx, "Python Files (.py): Full AST parsing, Syntax
    # validation ... Error reporting with line numbers" (ast among the dependencies), and its test
    # write_python_file("x = 1 +") -> "syntax_errors": the errors are ast.parse's, the first one.
    text = "def f(:\n    pass\n\nx = (1,\n"
    (workspace / "bad.py").write_text(text)
    with pytest.raises(SyntaxError) as gaia:
        ast.parse(text)
    with pytest.raises(SyntaxError) as plus:
        ast.parse("x = 1 +")
    (workspace / "ok.py").write_text("x = 1\ny = 2\n")
    with pytest.raises(SyntaxError) as edited:
        ast.parse("x = 1\ny = (\n")

    read = agent.read_file(str(workspace / "bad.py"))
    written = agent.write_python_file(str(workspace / "new.py"), "x = 1 +")
    edit = agent.edit_python_file(str(workspace / "ok.py"), "y = 2", "y = (")
    replace = agent.replace_function(str(workspace / "bad.py"), "f", "def f():\n    pass\n")

    assert read["errors"] == [str(gaia.value)]
    assert written["error"] == "Invalid Python syntax"
    assert written["syntax_errors"] == [str(plus.value)]
    assert edit["error"] == "Edit would result in invalid Python syntax"
    assert edit["syntax_errors"] == [str(edited.value)]
    assert replace["error"] == f"File has syntax errors: {gaia.value}"
    assert not (workspace / "new.py").exists()
    assert (workspace / "ok.py").read_text() == "x = 1\ny = 2\n"


SYMBOLS = """class C:
    def m(self):
        def inner():
            pass
        return 1

    async def am(self):
        pass


def g():
    class Local:
        pass


async def h():
    pass
"""


def gaia_symbols(text: str) -> list[tuple[str, str, int]]:
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append((node.name, "function", node.lineno))
        elif isinstance(node, ast.ClassDef):
            found.append((node.name, "class", node.lineno))
    return found


def test_symbols_come_in_gaias_order(workspace: Path, agent: FileAgent) -> None:
    (workspace / "s.py").write_text(SYMBOLS)

    result = agent.read_file(str(workspace / "s.py"))

    assert [(s["name"], s["type"], s["line"]) for s in result["symbols"]] == gaia_symbols(SYMBOLS)


def test_symbols_come_in_the_order_of_the_full_ast_walk(workspace: Path, agent: FileAgent) -> None:
    # docs/spec/file-io-tools-mixin.mdx, "Python Files (.py): Full AST parsing ... Symbol
    # extraction (functions, classes)" (ast among its dependencies): a ``def`` under an ``if`` is
    # one level deeper in the tree than a class beside it, so it comes after that class.
    text = (
        "import typing\nif typing.TYPE_CHECKING:\n    def guarded():\n        pass\n"
        "class C:\n    def m(self):\n        pass\n"
    )
    (workspace / "s.py").write_text(text)

    result = agent.read_file(str(workspace / "s.py"))

    assert [name for name, _, _ in gaia_symbols(text)] == ["C", "guarded", "m"]
    assert [symbol["name"] for symbol in result["symbols"]] == ["C", "guarded", "m"]


def test_markdown_structure_is_read_by_the_specifications_patterns(workspace: Path, agent: FileAgent) -> None:
    # docs/spec/file-io-tools-mixin.mdx, "Markdown Files (.md): Header extraction (# patterns),
    # Code block extraction with language tags, Link extraction ([text](url) patterns)": a header
    # is a ``#`` line (its text as written; a setext underline is no ``#`` pattern), and links
    # and blocks are the patterns' text.
    text = "# Title ##\n\n```sh\n# a shell comment\n```\n\nSetext\n======\n\n## See [docs](d.md)\n"
    (workspace / "r.md").write_text(text)

    result = agent.read_file(str(workspace / "r.md"))

    assert result["headers"] == ["Title ##", "a shell comment", "See [docs](d.md)"]
    assert result["code_blocks"] == [{"language": "sh", "code": "# a shell comment\n"}]
    assert result["links"] == [{"text": "docs", "url": "d.md"}]


def gaia_edit_diff(old: str, new: str, name: str) -> str:
    """GAIA's ``edit_python_file`` and ``replace_function`` diff."""
    return "\n".join(
        difflib.unified_diff(old.splitlines(True), new.splitlines(True), fromfile=name, tofile=name)
    )


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("one\ntwo\nthree", "one\nTWO\nthree"),
        ("a = 1\nb = 2\n", "a = 1\nb = 3\nc = 4\n"),
        (
            "".join(f"v{n} = {n}\n" for n in range(30)),
            "".join(f"v{n} = {n * (n % 7 != 0)}\n" for n in range(30)),
        ),
    ],
    ids=["no-final-newline", "small", "several-hunks"],
)
def test_diffs_are_gaias(workspace: Path, agent: FileAgent, old: str, new: str) -> None:
    target = workspace / "t.py"
    target.write_text(old)

    generated = agent.generate_diff(str(target), new, context_lines=2)
    dry = agent.edit_python_file(str(target), old, new, dry_run=True)
    edited = agent.edit_python_file(str(target), old, new, backup=False)

    reference = list(
        difflib.unified_diff(old.splitlines(True), new.splitlines(True), str(target), str(target), n=2)
    )
    assert generated["diff"] == "".join(reference)
    assert generated["additions"] == sum(
        1 for x in reference if x.startswith("+") and not x.startswith("+++")
    )
    assert generated["deletions"] == sum(
        1 for x in reference if x.startswith("-") and not x.startswith("---")
    )
    assert dry["diff"] == edited["diff"] == gaia_edit_diff(old, new, str(target))
    target.write_text(old)
    agent.read_file(str(target))  # changed since the edit: read again
    generic = agent.edit_file(str(target), old, new)
    assert generic["diff"] == "\n".join(
        difflib.unified_diff(old.splitlines(True), new.splitlines(True), "a/t.py", "b/t.py", lineterm="")
    )


def test_replace_function_diff_is_gaias(workspace: Path, agent: FileAgent) -> None:
    old = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    (workspace / "m.py").write_text(old)

    result = agent.replace_function(str(workspace / "m.py"), "b", "def b():\n    return 3")

    new = old.replace("return 2", "return 3")
    assert result["diff"] == gaia_edit_diff(old, new, str(workspace / "m.py"))


def test_diffs_are_difflibs_where_lines_repeat(workspace: Path, agent: FileAgent) -> None:
    # docs/spec/file-io-tools-mixin.mdx: generate_diff "Generate a unified diff for a file", the
    # edit tools return a "diff", and the module's dependencies are ast, difflib and os: the diff
    # is difflib's unified diff, so a change among repeated lines is shown where difflib shows it.
    old = "c\nc\nd\nc\nd\nd\na\na\nc\nd\nc\n"
    new = "b\nc\nc\nd\nc\nd\na\na\nc\nz\n"
    target = workspace / "f.txt"
    target.write_text(old)
    name = str(target)

    result = agent.generate_diff(name, new)

    assert result["diff"] == "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), name, name))
    assert (result["additions"], result["deletions"]) == (2, 3)

    result = agent.generate_diff(name, new, context_lines=1)
    assert result["diff"] == "".join(
        difflib.unified_diff(old.splitlines(True), new.splitlines(True), name, name, n=1)
    )

    code = workspace / "r.py"
    code.write_text("x = 1\ny = 2\nx = 1\ny = 2\nx = 1\n")
    result = agent.edit_python_file(str(code), "y = 2\nx = 1\ny = 2", "y = 3", backup=False)
    after = "x = 1\ny = 3\nx = 1\n"
    assert code.read_text() == after
    assert result["diff"] == "\n".join(
        difflib.unified_diff(
            "x = 1\ny = 2\nx = 1\ny = 2\nx = 1\n".splitlines(True), after.splitlines(True), str(code), str(code)
        )
    )


@pytest.mark.parametrize(
    "data",
    [b"alpha\nbeta\n", b"alpha\r\nbeta\r\n", b"\xef\xbb\xbfcaf\xc3\xa9\nbeta\n"],
    ids=["lf", "crlf", "bom-non-ascii"],
)
def test_edit_file_sizes_are_gaias_characters(workspace: Path, agent: FileAgent, data: bytes) -> None:
    (workspace / "e.txt").write_bytes(data)
    before = gaia_text(data)

    result = agent.edit_file(str(workspace / "e.txt"), "beta", "gamma \u00e9")

    after = before.replace("beta", "gamma \u00e9", 1)
    assert (result["old_size"], result["new_size"]) == (len(before), len(after))


def test_safer_an_edit_that_changes_nothing_leaves_the_file_alone(workspace: Path, agent: FileAgent) -> None:
    target = workspace / "e.txt"
    target.write_bytes(b"\xef\xbb\xbfalpha\r\nbeta\r\n")
    before = os.stat(target)

    generic = agent.edit_file(str(target), "beta", "beta")
    python = agent.edit_python_file(str(target), "beta", "beta")

    assert generic["status"] == python["status"] == "success"
    assert generic["diff"] == python["diff"] == ""
    assert python["backup_path"] is None
    # GAIA counts the BOM as a character: 12.
    assert generic["old_size"] == generic["new_size"] == len("alpha\nbeta\n")
    after = os.stat(target)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_search_code_keeps_files_whose_name_ends_with_the_extension(
    workspace: Path, agent: FileAgent
) -> None:
    for name in ("a.py", "numpy", "b.pyc", "c[x].py", "notes.txt"):
        (workspace / name).write_text("hit\n")

    def files(extension: str) -> list[str]:
        return [found["file"] for found in agent.search_code(str(workspace), "hit", extension)["results"]]

    assert files(".py") == ["a.py", "c[x].py"]
    assert files("py") == ["a.py", "c[x].py", "numpy"]
    assert files("") == ["a.py", "b.pyc", "c[x].py", "notes.txt", "numpy"]
    assert files("].py") == ["c[x].py"]


def test_replace_function_refuses_a_file_with_syntax_errors(workspace: Path, agent: FileAgent) -> None:
    (workspace / "bad.py").write_text("def f(:\n    pass\n")

    with pytest.raises(SyntaxError) as gaia:
        ast.parse("def f(:\n    pass\n")

    result = agent.replace_function(str(workspace / "bad.py"), "f", "def f():\n    pass\n")
    missing = agent.replace_function(str(workspace / "gone.py"), "f", "def f():\n    pass\n")

    assert result == {"status": "error", "error": f"File has syntax errors: {gaia.value}"}
    assert (workspace / "bad.py").read_text() == "def f(:\n    pass\n"
    assert missing["error"] == f"File not found: {workspace / 'gone.py'}"


def test_replace_function_replaces_a_function_in_a_python_file_only(workspace: Path, agent: FileAgent) -> None:
    # docs/spec/file-io-tools-mixin.mdx, "8. replace_function: Replace a specific function in a
    # Python file ... file_path: Path to Python file": a TypeScript file is not Python; refused,
    # unchanged, in GAIA's words for a file that does not parse.
    text = "export function add(a: number, b: number): number {\n  return a + b;\n}\n"
    (workspace / "m.ts").write_text(text)
    with pytest.raises(SyntaxError) as raised:
        ast.parse(text)

    result = agent.replace_function(
        str(workspace / "m.ts"),
        "add",
        "export function add(a: number, b: number): number {\n  return b + a;\n}",
    )

    assert result == {"status": "error", "error": f"File has syntax errors: {raised.value}"}
    assert (workspace / "m.ts").read_text() == text


def test_content_over_ten_megabytes_is_refused_as_in_gaia(workspace: Path, agent: FileAgent) -> None:
    (workspace / "m.py").write_text("x = 1\n")
    big = "#" * (10 * 1024 * 1024 + 1)

    written = agent.write_file(str(workspace / "big.txt"), big)
    edited = agent.edit_file(str(workspace / "m.py"), "x = 1", big)
    blocked_first = agent.write_file(str(workspace / ".bashrc"), big)

    assert written == {
        "status": "error",
        "error": "Write blocked: content size (10.0 MB) exceeds maximum allowed size (10 MB)",
    }
    assert (
        edited["error"] == "Edit blocked: replacement content (10.0 MB) exceeds maximum allowed size (10 MB)"
    )
    assert blocked_first["error"] == startup_name(".bashrc")
    assert not (workspace / "big.txt").exists()
    assert (workspace / "m.py").read_text() == "x = 1\n"


def test_a_directory_is_refused_in_pythons_words(workspace: Path, agent: FileAgent) -> None:
    (workspace / "pkg").mkdir()

    assert (
        agent.read_file(str(workspace / "pkg"))["error"]
        == f"[Errno 21] Is a directory: {str(workspace / 'pkg')!r}"
    )
    assert (
        agent.write_file(str(workspace / "pkg"), "x")["error"]
        == f"[Errno 21] Is a directory: {str(workspace / 'pkg')!r}"
    )


def test_safer_whole_file_writes_are_kept_for_undo_without_a_backup_path(
    workspace: Path, agent: FileAgent
) -> None:
    target = workspace / "m.py"
    target.write_text("x = 1\n")

    result = agent.write_python_file(str(target), "x = 2\n")

    assert "backup_path" not in result
    assert agent.path_validator.toolkit.call("undo_edit", {"path": str(target)})["ok"] is True
    assert target.read_text() == "x = 1\n"


def test_invalid_code_on_a_host_without_a_validator_is_refused_as_invalid_first(workspace: Path) -> None:
    # docs/spec/file-io-tools-mixin.mdx, "2. write_python_file: Write Python code to a file with
    # syntax validation ... validate: Validate syntax before writing (default: True)": the code is
    # validated before anything else, so invalid code is "Invalid Python syntax" even on a host
    # that never bound a validator (which still refuses every valid write: the host contract).
    with pytest.raises(SyntaxError) as error:
        ast.parse("x = (")

    result = FileIOToolsMixin().write_python_file(str(workspace / "x.py"), "x = (")
    unchecked = FileIOToolsMixin().write_python_file(str(workspace / "x.py"), "x = (", validate=False)
    valid = FileIOToolsMixin().write_python_file(str(workspace / "x.py"), "x = 1\n")

    assert result == {"status": "error", "error": "Invalid Python syntax", "syntax_errors": [str(error.value)]}
    assert unchecked == valid == {"status": "error", "error": UNCONFINED_WRITE_ERROR}
    assert not (workspace / "x.py").exists()


def test_an_undecodable_file_answers_pythons_unicode_decode_error(workspace: Path, agent: FileAgent) -> None:
    # GAIA opens every file with open(file_path, "r", encoding="utf-8") inside try/except
    # Exception as e: return {"status": "error", "error": str(e)}; read_file answers a file it
    # cannot decode as binary. Text in a legacy encoding, which editkit could read, is no
    # different, and nothing is written.
    latin = "# café crème brûlée à la française, déjà vu, naïve façade\nx = 1\n".encode("cp1252")
    cases = {
        "latin.txt": latin,
        "short.txt": b"caf\xe9\n",
        "wide.txt": "wide text, long enough to be taken for UTF-16 by its BOM\n".encode("utf-16"),
    }
    for name, data in cases.items():
        path = workspace / name
        path.write_bytes(data)
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as error:
            expected = str(error)
        results = [
            agent.generate_diff(str(path), "x\n"),
            agent.edit_file(str(path), "x", "y"),
            agent.edit_python_file(str(path), "x", "y"),
        ]
        for result in results:
            assert (result["status"], result["error"]) == ("error", expected), name
        read = agent.read_file(str(path))
        assert (read["file_type"], read["content"]) == ("binary", f"[Binary file, {len(data)} bytes]"), name
        assert path.read_bytes() == data, name
    assert agent.search_code(str(workspace), "x", "")["results"] == []



def test_a_read_only_file_is_pythons_permission_error(workspace: Path, agent: FileAgent) -> None:
    # GAIA writes with open(file_path, "w") inside try/except Exception as e: str(e), which for
    # a file its owner made read-only is "[Errno 13] Permission denied: '<path>'"; nothing changes.
    target = workspace / "locked.py"
    target.write_text("x = 1\n")
    target.chmod(0o444)
    try:
        results = [
            (agent.write_python_file(str(target), "x = 2\n"), str(target)),
            (agent.edit_python_file(str(target), "x = 1", "x = 2"), str(target)),
            (agent.edit_file(str(target), "x = 1", "x = 2"), str(target.resolve())),
        ]
        for result, shown in results:
            assert (result["status"], result["error"]) == ("error", f"[Errno 13] Permission denied: {shown!r}")
        assert target.read_text() == "x = 1\n"
    finally:
        target.chmod(0o644)


@pytest.mark.parametrize(
    "source",
    [
        "if True:\n\tx = 1\n        y = 2\n",  # inconsistent tabs: CPython's TabError
        "x = '\\N{NO SUCH CHARACTER NAME}'\n",  # an unknown character name
        "x = f'{\"\\n\".join(a)}'\n",  # a backslash in an f-string field (CPython < 3.12)
        "def f[T](x: T) -> T:\n    return x\n",  # type parameters (CPython >= 3.12)
        "class A:\n    def m(self):\n        async def inner():\n            pass\n",
    ],
)
def test_validity_is_cpythons_ast_parse(workspace: Path, agent: FileAgent, source: str) -> None:
    # GAIA validates with ast.parse (read_file's is_valid and errors, write_python_file's
    # "Invalid Python syntax", edit_python_file's "Edit would result in invalid Python syntax"),
    # whatever another parser says of the text.
    try:
        ast.parse(source)
        expected = None
    except SyntaxError as error:
        expected = str(error)
    target = workspace / "m.py"
    written = agent.write_python_file(str(target), source)
    if expected is None:
        assert written["status"] == "success"
        read = agent.read_file(str(target))
        assert (read["is_valid"], read["errors"]) == (True, [])
        tree = ast.parse(source)
        kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        walked = [node for node in ast.walk(tree) if isinstance(node, kinds)]
        assert [(s["name"], s["line"]) for s in read["symbols"]] == [(n.name, n.lineno) for n in walked]
    else:
        assert written == {"status": "error", "error": "Invalid Python syntax", "syntax_errors": [expected]}
        assert not target.exists()
        target.write_text(source)
        read = agent.read_file(str(target))
        assert (read["is_valid"], read["errors"]) == (False, [expected])
        target.write_text("x = 0\n")
        agent.read_file(str(target))  # the agent reads what it edits (the staleness guard)
        edited = agent.edit_python_file(str(target), "x = 0\n", source)
        assert (edited["status"], edited["error"]) == ("error", "Edit would result in invalid Python syntax")
        assert edited["syntax_errors"] == [expected]
        assert target.read_text() == "x = 0\n"


def test_cpython_and_editkits_parser_disagree_on_these_texts(workspace: Path) -> None:
    # What the test above is about: editkit's own parser takes texts CPython refuses.
    toolkit = editkit.Toolkit(workspace)
    for source in ("if True:\n\tx = 1\n        y = 2\n", "x = '\\N{NO SUCH CHARACTER NAME}'\n"):
        (workspace / "probe.py").write_text(source)
        assert toolkit.call("check_syntax", {"path": "probe.py"})["valid"] is True
        with pytest.raises(SyntaxError):
            ast.parse(source)


def test_replace_function_judges_the_result_with_cpython(workspace: Path, agent: FileAgent) -> None:
    # GAIA: ast.parse(modified_content); on SyntaxError "Replacement would result in invalid
    # syntax" with "syntax_errors": [str(e)], and nothing written. editkit's parser takes this
    # text; CPython does not (an unknown character name).
    target = workspace / "m.py"
    target.write_text("def f():\n    return 0\n")
    agent.read_file(str(target))
    implementation = "def f():\n    return '\\N{NO SUCH CHARACTER NAME}'\n"
    with pytest.raises(SyntaxError) as error:
        ast.parse(implementation)
    result = agent.replace_function(str(target), "f", implementation, backup=False)
    assert result == {
        "status": "error",
        "error": "Replacement would result in invalid syntax",
        "syntax_errors": [str(error.value)],
    }
    assert target.read_text() == "def f():\n    return 0\n"
    done = agent.replace_function(str(target), "f", "def f():\n    return 1\n", backup=False)
    assert done["status"] == "success" and target.read_text() == "def f():\n    return 1\n"
