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


def _keyword_options(params: list[str]) -> list[str]:
    return [name for name in params if name not in ("self", "root", "roots")]


def test_the_options_are_named_alike_natively_in_python_and_in_the_stubs() -> None:
    # The native constructor's signature comes from the one list in crates/python/src/lib.rs
    # (`open_options!`); Toolkit.__init__ and the stubs are written by hand, so they are held
    # to it here: the same options, in the same order.
    native_text = editkit._editkit._Toolkit.__text_signature__
    native = ast.parse(f"def f{native_text}: pass").body[0]
    assert isinstance(native, ast.FunctionDef)
    native_names = [arg.arg for arg in native.args.kwonlyargs]
    python = inspect.signature(editkit.Toolkit.__init__)
    python_names = _keyword_options(list(python.parameters))
    tree = ast.parse(STUBS.read_text())
    toolkit = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Toolkit")
    init = next(node for node in toolkit.body if isinstance(node, ast.FunctionDef) and node.name == "__init__")
    stub_names = [arg.arg for arg in init.args.kwonlyargs]
    assert native_names, native_text
    assert python_names == native_names
    assert stub_names == native_names
    # Where the native signature shows a default, Python's is the same.
    for name, default in zip(native_names, native.args.kw_defaults):
        if isinstance(default, ast.Constant) and default.value is not Ellipsis:
            assert python.parameters[name].default == default.value, name
