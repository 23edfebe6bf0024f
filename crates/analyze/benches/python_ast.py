"""Times Python's ast.parse + ast.walk on the 10k-line input of benches/symbols.rs.

Builds the same text: fixtures/code/python/*.py sorted by path, whole files until 10,000 lines.
Usage: python3 crates/analyze/benches/python_ast.py
"""
import ast
import pathlib
import timeit

ROOT = pathlib.Path(__file__).resolve().parents[3] / "fixtures" / "code" / "python"
files = sorted(str(path) for path in ROOT.rglob("*.py"))
text = ""
index = 0
while len(text.splitlines()) < 10_000:
    text += pathlib.Path(files[index % len(files)]).read_text(encoding="utf-8")
    if not text.endswith("\n"):
        text += "\n"
    index += 1


def parse_and_walk():
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append((node.name, node.lineno))
    return found


runs, total = timeit.Timer(parse_and_walk).autorange()
best = min(timeit.repeat(parse_and_walk, number=runs, repeat=5)) / runs
print(f"{len(text.splitlines())} lines, {len(text.encode())} bytes, {len(parse_and_walk())} definitions")
print(f"ast.parse + walk: {best * 1e3:.2f} ms per run (best of 5 x {runs})")
