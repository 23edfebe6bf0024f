"""The package README's examples run as written (on a project made to hold what they edit)."""

from __future__ import annotations

import re
from pathlib import Path

import editkit
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.DOTALL)


def test_the_readme_has_its_examples() -> None:
    assert len(BLOCKS) == 2, BLOCKS


@pytest.mark.parametrize("block", BLOCKS, ids=["core", "praisonai"])
def test_each_readme_example_runs(block: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src/app.py").write_text("def main():\n    return 1\n\n\nx = 1\nx = 1\n")
    (project / "app.py").write_text("def main():\n    return 1\n")
    monkeypatch.chdir(project)
    printed: list[str] = []
    code = block.replace("/home/me/project", str(project))
    exec(compile(code, "README.md", "exec"), {"print": lambda *a: printed.append(" ".join(map(str, a)))})  # noqa: S102
    if "create_edit_tools" in block:
        assert printed and printed[0].startswith("Success: Made 1 replacement(s)"), printed
        assert (project / "app.py").read_text() == "def main():\n    return 2\n"
    else:
        # The second edit was ambiguous: refused, with the lines it matched, and nothing written.
        assert len(printed) == 1 and printed[0].endswith("[5, 6]") and "matches 2 places" in printed[0], printed
        assert (project / "src/app.py").read_text() == "def main():\n    return 2\n\n\nx = 1\nx = 1\n"
    assert isinstance(editkit.Toolkit(project), editkit.Toolkit)
