"""Shared fixtures: a fresh workspace root and a toolkit on it, with state kept out of the home folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import editkit
import pytest


@pytest.fixture(autouse=True)
def _state_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Keeps every toolkit's locks, journals and undo history under the test's temp folder."""
    state = tmp_path_factory.mktemp("state")
    os.chmod(state, 0o700)
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    yield state


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """An empty workspace root."""
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def tk(workspace: Path) -> editkit.Toolkit:
    """A toolkit on ``workspace`` with post-write checks off (the tests here are about the binding)."""
    return editkit.Toolkit(workspace, diagnostics="off")
