#!/usr/bin/env python3
"""The cold path side by side (part of `cargo xtask bench versus`): what a user meets, not a
warm loop. Default settings throughout (checks on, full durability), in one run:

    python3 xtask/compare/cold.py --editkit target/release/editkit [--out DIR]

- First touch of a 3 MB and a 30 MB Python file: the first request a fresh `editkit call
  --jsonl` process gets is the edit (its start is not timed; its first parse, worker start
  and first hash are); PraisonAI and Aider (served by incumbent.py, warmed on another file
  first, so their imports are not timed) edit the same file they have not touched. Also with
  checks off, for the slope in ns per byte, and beside the floor: a durable atomic replace
  (read, write beside, flush, rename, flush the folder) that checks, hashes and keeps nothing.
- Each file touched once: one long-lived process per tool edits each of 70 standard-library
  files once, taking turns; medians per edit.
- One process per command: `editkit apply` of a 100-file, 1,000-hunk unified diff to
  standard-library `.py` files against `git apply` of the same diff, each a process on a fresh
  copy, taking turns; and `editkit edit` as a command. Two diffs: one whose hunks add a
  comment to a line, and one whose hunks add a statement before a `return` (code the syntax
  check must parse: no lexical shortcut proves such a hunk harmless).

`--baseline OLD_BINARY` adds an earlier editkit, with defaults, to every part: the before and
after of a change, measured side by side in one run.

Writes DIR/cold.md (default target/compare). Standard library only.
"""

from __future__ import annotations

import argparse
import difflib
import io
import os
import shutil
import statistics
import subprocess
import sys
import time
import tokenize
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare  # noqa: E402
import speed  # noqa: E402


# An earlier editkit binary (`--baseline`), run side by side with defaults: the "before" of a
# before/after comparison from one run.
BASELINE: Path | None = None


def fresh_tools(binary: Path, venv: Path) -> dict[str, compare.Tool]:
    worker = str(compare.HERE / "incumbent.py")
    aider_venv = venv.with_name(venv.name + "-aider")
    # The read limit raised to 64 MiB, for the 30 MB file.
    base = [str(binary), "call", "--root", "{root}", "--jsonl", "--max-read-bytes", str(64 << 20)]
    before = {}
    if BASELINE is not None:
        before_base = [str(BASELINE), "call", "--root", "{root}", "--jsonl", "--max-read-bytes", str(64 << 20)]
        before = {"editkit before": compare.Editkit("editkit before", before_base)}
    return before | {
        "editkit": compare.Editkit("editkit", base),
        "editkit atomic": compare.Editkit("editkit atomic", base + ["--durability", "atomic"]),
        "editkit checks off": compare.Editkit("editkit checks off", base + ["--diagnostics", "off"]),
        "praisonai": compare.Tool("praisonai", [str(compare.venv_python(venv)), worker, "praisonai", "{root}"]),
        "aider": compare.Tool("aider", [str(compare.venv_python(aider_venv)), worker, "aider", "{root}"]),
    }


def floor_tool(venv: Path) -> dict[str, compare.Tool]:
    """The durable atomic replace alone (incumbent.py's `floor`): what the file's size costs
    any tool that writes it whole, flushed and renamed, before it checks or keeps anything."""
    worker = str(compare.HERE / "incumbent.py")
    return {"durable replace (floor)": compare.Tool("durable replace (floor)",
                                                    [str(compare.venv_python(venv)), worker, "floor", "{root}"])}


def edit_request(path: str, old: str, new: str) -> dict:
    return {"op": "edit", "path": path, "old_string": old, "new_string": new, "replace_all": False}


def first_touch(binary: Path, venv: Path, work: Path, text: str, rounds: int) -> dict[str, list[float]]:
    """Per tool, the wall times of the first edit of `text` by a process that never saw it."""
    times: dict[str, list[float]] = {}
    for round_ in range(rounds):
        tools = fresh_tools(binary, venv) | floor_tool(venv)
        folders = {}
        try:
            for name, tool in tools.items():
                folder = work / f"first-{name.replace(' ', '-')}"
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir(parents=True)
                (folder / "big.py").write_text(text, "utf-8")
                (folder / "warm.py").write_text("x = 0\n", "utf-8")
                folders[name] = folder
                tool.start(folder)
                if not name.startswith("editkit"):
                    answer, _ = tool.send(edit_request("warm.py", "x = 0\n", "x = 1\n"))
                    if not answer.get("ok"):
                        raise RuntimeError(f"{name}: warm-up failed: {answer}")
            order = list(tools)
            shift = round_ % len(order)
            for name in order[shift:] + order[:shift]:
                answer, seconds = tools[name].send(edit_request("big.py", f"{speed.MARKER} = 0\n",
                                                                f"{speed.MARKER} = 1\n"))
                if not answer.get("ok"):
                    raise RuntimeError(f"{name}: first edit failed: {answer}")
                times.setdefault(name, []).append(seconds)
        finally:
            for tool in tools.values():
                tool.stop()
            for folder in folders.values():
                shutil.rmtree(folder, ignore_errors=True)
    return times


def stdlib_files(count: int) -> list[Path]:
    files = []
    for path in sorted(compare.stdlib_dir().glob("*.py")):
        try:
            text = path.read_text("utf-8")
        except UnicodeDecodeError:
            continue
        if "\r" in text or len(text) < 2000 or unique_line(text) is None:
            continue
        files.append(path)
        if len(files) == count:
            break
    return files


def unique_line(text: str) -> str | None:
    """A line near the middle that occurs once, with its line end: the edit's old text."""
    lines = text.splitlines(keepends=True)
    for line in lines[len(lines) // 2:] + lines[: len(lines) // 2]:
        if line.strip() and line.endswith("\n") and not line.strip().startswith("#") and text.count(line) == 1:
            return line
    return None


def each_once(binary: Path, venv: Path, work: Path, files: list[Path]) -> dict[str, list[float]]:
    """Per tool, the wall time of one edit in each file (each touched once)."""
    tools = fresh_tools(binary, venv)
    times: dict[str, list[float]] = {name: [] for name in tools}
    folders = {}
    try:
        for name, tool in tools.items():
            folder = work / f"once-{name.replace(' ', '-')}"
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            for path in files:
                shutil.copyfile(path, folder / path.name)
            (folder / "warm.py").write_text("x = 0\n", "utf-8")
            folders[name] = folder
            tool.start(folder)
            answer, _ = tool.send(edit_request("warm.py", "x = 0\n", "x = 1\n"))
            if not answer.get("ok"):
                raise RuntimeError(f"{name}: warm-up failed: {answer}")
        order = list(tools)
        for index, path in enumerate(files):
            line = unique_line(path.read_text("utf-8"))
            new = line.rstrip("\n") + "  # touched\n"
            shift = index % len(order)
            for name in order[shift:] + order[:shift]:
                answer, seconds = tools[name].send(edit_request(path.name, line, new))
                if not answer.get("ok"):
                    raise RuntimeError(f"{name}: edit of {path.name} failed: {answer}")
                times[name].append(seconds)
    finally:
        for tool in tools.values():
            tool.stop()
        for folder in folders.values():
            shutil.rmtree(folder, ignore_errors=True)
    return times


# What each kind of hunk writes, and the mark that shows a tool applied the diff.
PATCH_MARKS = {"comment": "# patched", "code": "_patched = None"}


def return_lines(text: str) -> list[int]:
    """0-based numbers of the lines where a `return` statement starts a logical line."""
    starts, first = [], True
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            first = True
            continue
        if token.type in (tokenize.NL, tokenize.COMMENT):
            continue
        if first and token.type == tokenize.NAME and token.string == "return":
            starts.append(token.start[0] - 1)
        first = False
    return starts


def patch_workload(files: list[Path], hunks_per_file: int, kind: str = "comment") -> tuple[dict[str, str], str]:
    """The files' texts and a unified diff of `hunks_per_file` hunks spread over each: a comment
    added to a line (`comment`), or a statement added before a `return` (`code`)."""
    tree, diff = {}, []
    for path in files:
        text = path.read_text("utf-8")
        lines = text.splitlines(keepends=True)
        tree[path.name] = text
        changed = list(lines)
        if kind == "code":
            places = return_lines(text)
            step = max(len(places) // hunks_per_file, 1)
            for at in places[::step][:hunks_per_file]:
                indent = lines[at][: len(lines[at]) - len(lines[at].lstrip(" \t"))]
                changed[at] = f"{indent}{PATCH_MARKS['code']}\n{lines[at]}"
            new_text = "".join(changed)
            compile(new_text, path.name, "exec")  # the code diff must leave every file valid
            changed = new_text.splitlines(keepends=True)
        else:
            step = max(len(lines) // (hunks_per_file + 1), 8)
            done = 0
            for at in range(step, len(lines), step):
                if done == hunks_per_file:
                    break
                if lines[at].strip() and lines[at].endswith("\n"):
                    changed[at] = lines[at].rstrip("\n") + "  # patched\n"
                    done += 1
        diff += difflib.unified_diff(lines, changed, f"a/{path.name}", f"b/{path.name}", n=3)
    return tree, "".join(diff)


def write_tree(folder: Path, tree: dict[str, str]) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name, text in tree.items():
        (folder / name).write_text(text, "utf-8")


def timed(argv: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed: {done.stderr.decode(errors='replace')[:400]}")
    return seconds


def commands(binary: Path, work: Path, rounds: int) -> tuple[dict[str, list[float]], int, dict[str, int]]:
    """Per command, wall times of one process each: apply against git apply, for a diff of
    comment hunks and one of code hunks (rows ending `(code)`); an edit."""
    files = stdlib_files(100)
    workloads = {}
    for kind in PATCH_MARKS:
        tree, diff = patch_workload(files, 10, kind)
        patch = work / f"change-{kind}.diff"
        patch.write_text(diff, "utf-8")
        workloads[kind] = (tree, patch, diff.count("\n@@") + diff.startswith("@@"))
    tree = workloads["comment"][0]
    times: dict[str, list[float]] = {"editkit edit": []}
    if BASELINE is not None:
        times["editkit before: edit"] = []
    for round_ in range(rounds):
        for kind, (kind_tree, patch, _) in workloads.items():
            suffix = "" if kind == "comment" else f" ({kind})"
            runs = {
                "git apply": ["git", "apply", str(patch)],
                "editkit apply": [str(binary), "apply", str(patch), "--root", ".", "--json"],
                "editkit apply --diagnostics off": [str(binary), "apply", str(patch), "--root", ".", "--json",
                                                    "--diagnostics", "off"],
            }
            if BASELINE is not None:
                runs["editkit before: apply"] = [str(BASELINE), "apply", str(patch), "--root", ".", "--json"]
            order = list(runs)
            shift = round_ % len(order)
            for name in order[shift:] + order[:shift]:
                folder = work / f"cmd-{len(name)}"
                write_tree(folder, kind_tree)
                os.sync()
                times.setdefault(name + suffix, []).append(timed(runs[name], folder))
                if PATCH_MARKS[kind] not in (folder / files[0].name).read_text("utf-8"):
                    raise RuntimeError(f"{name} did not apply the {kind} patch")
        folder = work / "cmd-edit"
        line = unique_line(tree[files[0].name])
        for name, program in [("editkit edit", binary), ("editkit before: edit", BASELINE)]:
            if program is None:
                continue
            write_tree(folder, {files[0].name: tree[files[0].name]})
            times[name].append(timed([str(program), "edit", files[0].name, "--old", line, "--new",
                                      line.rstrip("\n") + "  # edited\n", "--root", ".", "--json"], folder))
    return times, len(files), {kind: hunks for kind, (_, _, hunks) in workloads.items()}


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1e3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--editkit", required=True, type=Path)
    parser.add_argument("--out", type=Path, default=compare.REPO / "target" / "compare")
    parser.add_argument("--venv", type=Path, default=compare.REPO / "target" / "compare-venv")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", type=Path, default=None,
                        help="an earlier editkit binary, run side by side with defaults (rows 'editkit before')")
    parser.add_argument("--parts", default="first,once,commands",
                        help="comma-separated: first (first touch), once (each file once), commands")
    options = parser.parse_args()
    global BASELINE
    BASELINE = options.baseline.resolve() if options.baseline else None
    out = options.out.resolve()
    work = out / "cold-work"
    work.mkdir(parents=True, exist_ok=True)
    binary = options.editkit.resolve()
    for package, module, venv in [("praisonaiagents", "praisonaiagents.tools.edit_tools", options.venv),
                                  ("aider-chat", "aider.coders.editblock_coder",
                                   options.venv.with_name(options.venv.name + "-aider"))]:
        ok, how = compare.ensure_venv(venv, package, module, out / f"pip-{package}.log")
        if not ok:
            print(f"{package} did not install: {how}", file=sys.stderr)
            return 1
    report = ["# The cold path side by side", "",
              f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs, load average "
              f"{os.getloadavg()[0]:.1f}. Medians; ratios are the other tool's time over editkit's (above 1: "
              "editkit is faster).", ""]

    parts = set(options.parts.split(","))
    sizes = {"3 MB": speed.with_marker(speed.stdlib_python(3 << 20)),
             "30 MB": speed.with_marker(speed.stdlib_python(30 << 20))} if "first" in parts else {}
    firsts = {}
    for label, text in sizes.items():
        print(f"first touch: {label}", file=sys.stderr)
        firsts[label] = first_touch(binary, options.venv, work, text, options.rounds)
        result = firsts[label]
        praisonai, aider = median_ms(result["praisonai"]), median_ms(result["aider"])
        table = [["tool", "first edit, median", "PraisonAI / this", "Aider / this"], ["---", "---:", "---:", "---:"]]
        for name, walls in result.items():
            wall = median_ms(walls)
            table.append([name, f"{wall:.1f} ms", f"{praisonai / wall:.2f}×", f"{aider / wall:.2f}×"])
        report += [f"## First edit of a {label} Python file ({options.rounds} rounds)", ""] + speed.rows(table) + [""]
        print("\n".join(speed.rows(table)), file=sys.stderr)
    if sizes:
        small, big = (len(sizes[key].encode()) for key in ("3 MB", "30 MB"))
        table = [["setting", "30 MB / 3 MB", "slope"], ["---", "---:", "---:"]]
        for name in (("editkit", "editkit checks off", "editkit atomic")
                     + (("editkit before",) if BASELINE is not None else ())
                     + ("aider", "durable replace (floor)")):
            a, b = median_ms(firsts["3 MB"][name]), median_ms(firsts["30 MB"][name])
            table.append([name, f"{b / a:.2f}×", f"{(b - a) / 1e3 / (big - small) * 1e9:.1f} ns/byte"])
        report += ["## First edit against file size", ""] + speed.rows(table) + [""]

    if "once" in parts:
        report += once_section(binary, options, work)
    if "commands" in parts:
        report += commands_section(binary, options, work)

    text = "\n".join(report)
    (out / "cold.md").write_text(text + "\n", "utf-8")
    print(text)
    shutil.rmtree(work, ignore_errors=True)
    return 0


def once_section(binary: Path, options: argparse.Namespace, work: Path) -> list[str]:
    print("each file touched once", file=sys.stderr)
    files = stdlib_files(70)
    result = each_once(binary, options.venv, work, files)
    praisonai, aider = median_ms(result["praisonai"]), median_ms(result["aider"])
    table = [["tool", "per edit, median", "PraisonAI / this", "Aider / this"], ["---", "---:", "---:", "---:"]]
    for name, walls in result.items():
        wall = median_ms(walls)
        table.append([name, f"{wall:.2f} ms", f"{praisonai / wall:.2f}×", f"{aider / wall:.2f}×"])
    print("\n".join(speed.rows(table)), file=sys.stderr)
    return [f"## One edit in each of {len(files)} standard-library files, each touched once", ""] + speed.rows(table) + [""]


def commands_section(binary: Path, options: argparse.Namespace, work: Path) -> list[str]:
    print("commands", file=sys.stderr)
    times, file_count, hunks = commands(binary, work, options.rounds)
    table = [["command (one process)", "wall, median", "this / git apply"], ["---", "---:", "---:"]]
    for name, walls in sorted(times.items(), key=lambda item: ("(code)" in item[0], "apply" not in item[0])):
        wall = median_ms(walls)
        git = median_ms(times["git apply (code)" if "(code)" in name else "git apply"])
        table.append([name, f"{wall:.1f} ms", f"{wall / git:.2f}×" if "apply" in name else ""])
    title = (f"## Commands: {file_count}-file diffs to `.py` files, {hunks['comment']} hunks adding a comment "
             f"and {hunks['code']} adding a statement (code); an edit")
    return [title, ""] + speed.rows(table) + [""]


if __name__ == "__main__":
    sys.exit(main())
