"""``editkit.compat.gaia``: GAIA's ``FileIOToolsMixin`` interface, backed by editkit.

First GAIA's own documented tests and the five usage examples of its specification
(``docs/spec/file-io-tools-mixin.mdx``), then the rest of the interface, then one test per row
of the adapter's "safer than the original" table, then path escapes.
"""

from __future__ import annotations

import builtins
import inspect
import os
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
    assert agent.register_file_io_tools() == list(TOOL_NAMES)
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

    assert host.write_python_file(str(target), "x = 1") == {
        "status": "error",
        "error": UNCONFINED_WRITE_ERROR,
    }
    assert host.write_file(str(target), "x = 1")["error"] == UNCONFINED_WRITE_ERROR
    assert host.edit_file(str(target), "x", "y")["error"] == UNCONFINED_WRITE_ERROR
    assert not target.exists()
    with pytest.raises(MissingHostAttributeError, match="path_validator"):
        host.read_file(str(target))
    with pytest.raises(AttributeError):
        host.search_code(str(workspace), "x")


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


def test_read_file_of_other_text_names_the_extension(workspace: Path, agent: FileAgent) -> None:
    (workspace / "data.json").write_text('{"a": 1}\n')
    (workspace / "NOTES").write_text("plain\n")

    assert agent.read_file(str(workspace / "data.json"))["file_type"] == "json"
    assert agent.read_file(str(workspace / "NOTES"))["file_type"] == "text"


def test_read_file_of_invalid_python_reports_errors_without_symbols(
    workspace: Path, agent: FileAgent
) -> None:
    (workspace / "broken.py").write_text("def f(:\n    pass\n")

    result = agent.read_file(str(workspace / "broken.py"))

    assert result["status"] == "success"
    assert result["is_valid"] is False
    assert result["errors"]
    assert "line 1" in result["errors"][0]
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

    assert result["status"] == "error"
    assert result["error"].startswith("Content to replace not found in file")
    assert result["error_kind"] == "not_found"
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
    assert result["error"].startswith("Function 'zzz' not found in file")
    assert result["details"]["available"] == ["a"]


def test_replace_function_refuses_a_result_that_does_not_parse(workspace: Path, agent: FileAgent) -> None:
    (workspace / "m.py").write_text("def a():\n    return 1\n")

    result = agent.replace_function(str(workspace / "m.py"), "a", "def a(:\n    return 2\n")

    assert result["status"] == "error"
    assert result["error"] == "Replacement would result in invalid syntax"
    assert result["syntax_errors"]
    assert (workspace / "m.py").read_text() == "def a():\n    return 1\n"


def test_update_gaia_md_creates_then_updates(workspace: Path, agent: FileAgent) -> None:
    first = agent.update_gaia_md(
        project_root=str(workspace),
        project_name="Calc",
        description="A calculator.",
        structure={"src": {"calculator.py": "the maths"}, "README.md": "docs"},
        instructions="Keep it small.",
    )
    second = agent.update_gaia_md(project_root=str(workspace), description="A better calculator.")

    gaia_md = workspace / "GAIA.md"
    assert first["status"] == "success"
    assert first["created"] is True
    assert first["file_path"] == os.path.join(str(workspace), "GAIA.md")
    assert first["message"] == f"GAIA.md created at {first['file_path']}"
    assert set(first["updated_sections"]) >= {"Description", "Structure", "Instructions"}
    assert second["created"] is False
    assert second["message"].startswith("GAIA.md updated at")
    text = gaia_md.read_text()
    assert "Calc" in text
    assert "A better calculator." in text
    assert "A calculator." not in text
    assert "src\n  calculator.py - the maths\nREADME.md - docs" in text
    assert "Keep it small." in text


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
# One test per row of the "safer than the original" table.


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


def test_safer_drifted_old_content_lands_on_the_one_matching_region(
    workspace: Path, agent: FileAgent
) -> None:
    (workspace / "m.py").write_text("def f():\n\treturn 1\n")

    result = agent.edit_python_file(str(workspace / "m.py"), "    return 1", "    return 2")

    assert result["status"] == "success"
    assert result["match_rung"] != "exact"
    assert (workspace / "m.py").read_text() == "def f():\n\treturn 2\n"


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


def test_safer_a_file_with_syntax_errors_can_be_fixed_one_edit_at_a_time(
    workspace: Path, agent: FileAgent
) -> None:
    target = workspace / "m.py"
    target.write_text("def f(:\n    pass\n\nx = (1,\n")

    fixed_one = agent.edit_python_file(str(target), "def f(:", "def f():")
    broken = agent.edit_python_file(str(target), "    pass", "    pass)")

    assert fixed_one["status"] == "success"
    assert broken["status"] == "error"
    assert broken["error"] == "Edit would result in invalid Python syntax"
    assert broken["syntax_errors"]
    assert target.read_text() == "def f():\n    pass\n\nx = (1,\n"


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


def test_safer_search_code_honours_gitignore_and_refuses_a_missing_directory(
    workspace: Path, agent: FileAgent
) -> None:
    (workspace / ".git").mkdir()
    (workspace / ".gitignore").write_text("build/\n")
    for folder in ("build", ".venv", "src"):
        (workspace / folder).mkdir()
        (workspace / folder / "m.py").write_text("# TODO here\n")

    (workspace / "src" / "blob.py").write_bytes(b"\x00\x01# TODO in binary\n")

    found = agent.search_code(str(workspace), "TODO")
    missing = agent.search_code(str(workspace / "srcc"), "TODO")

    assert [result["file"] for result in found["results"]] == ["src/m.py"]
    assert missing["status"] == "error"
    assert missing["error_kind"] == "not_found"


def test_safer_update_gaia_md_keeps_hand_written_sections(workspace: Path, agent: FileAgent) -> None:
    (workspace / "GAIA.md").write_text(
        "# Calc\n\n## Description\nOld.\n\n## Team notes\nAsk Ana before releasing.\n"
    )

    result = agent.update_gaia_md(project_root=str(workspace), description="New.")

    assert result["status"] == "success"
    assert result["created"] is False
    assert result["updated_sections"] == ["Description"]
    text = (workspace / "GAIA.md").read_text()
    assert "New." in text
    assert "Old." not in text
    assert "## Team notes\nAsk Ana before releasing.\n" in text


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
