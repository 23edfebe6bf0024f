"""The type stubs are current, and they say what the module does."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import editkit
from editkit import _stubs

STUBS = Path(__file__).resolve().parents[1] / "python/editkit/__init__.pyi"


def test_the_committed_stubs_are_what_the_specs_render() -> None:
    assert STUBS.read_text() == _stubs.render(), (
        "regenerate with: python -m editkit._stubs > crates/python/python/editkit/__init__.pyi"
    )


def test_the_stubs_parse_and_name_every_tool_and_result() -> None:
    tree = ast.parse(STUBS.read_text())
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    toolkit = {node.name for node in classes["Toolkit"].body if isinstance(node, ast.FunctionDef)}
    for spec in editkit.specs():
        assert spec["name"] in toolkit
        assert editkit.result_class(spec["name"]).__name__ in classes


def test_the_methods_signatures_match_the_stubs() -> None:
    tree = ast.parse(STUBS.read_text())
    toolkit = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Toolkit")
    stubbed = {node.name: node for node in toolkit.body if isinstance(node, ast.FunctionDef)}
    for spec in editkit.specs():
        runtime = inspect.signature(getattr(editkit.Toolkit, spec["name"]))
        positional = [p.name for p in runtime.parameters.values() if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
        assert [arg.arg for arg in stubbed[spec["name"]].args.args] == positional, spec["name"]
