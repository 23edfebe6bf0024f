"""The ``server_diagnostics`` option: each write's diagnostics from its language server."""

from __future__ import annotations

import os
from pathlib import Path

import editkit
import pytest

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def servers_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The language servers ``cargo xtask lsp-tools`` installs, first on ``PATH``."""
    tools = REPO / "target/lsp-tools"
    venv = tools / "venv/bin"
    assert (venv / "basedpyright-langserver").exists(), "run `cargo xtask lsp-tools` to install the language servers"
    monkeypatch.setenv("PATH", os.pathsep.join([str(venv.resolve()), os.environ.get("PATH", "")]))


def test_a_write_gives_the_servers_diagnostics_only_when_asked(workspace: Path, servers_on_path: None) -> None:
    (workspace / "app.py").write_text("def f() -> int:\n    return 1\n")
    off = editkit.Toolkit(workspace)
    edited = off.edit_file("app.py", "return 1", "return 2")
    assert "server_diagnostics" not in edited.diagnostics
    on = editkit.Toolkit(workspace, server_diagnostics=True)
    edited = on.edit_file("app.py", "return 2", "return 'two'")
    server = edited.diagnostics["server_diagnostics"]
    assert server["state"] == "fresh", server
    assert any(d["line"] == 2 and d["severity"] == "error" for d in server["diagnostics"]), server
