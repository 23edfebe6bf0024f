#!/usr/bin/env python3
"""Speed side by side (part of `cargo xtask bench versus`): editkit's edits, memory and call
throughput next to PraisonAI's and Aider's edit tools, in one run.

    python3 xtask/compare/speed.py --editkit target/release/editkit [--out DIR] [--reps N]

- Edits: the same sequence of edits (a top-level statement in the middle of the file changes
  each time) on a small Python file and on a 2-4 MB one, through one long-lived process per
  tool (`editkit call --jsonl` in four settings; PraisonAI's `EditTools.edit_file` with its
  diagnostics off and Aider's `replace_most_similar_chunk`, both served by incumbent.py, the
  same way compare.py drives them). The tools take turns edit by edit (the first one rotating),
  so load from other processes falls on all alike. Wall time is the driver's round trip; CPU is
  the utime + stime of the tool's process tree (editkit's compile worker included).
- Slope: editkit's CPU per edit on 1 MB and 4 MB files, in ns per byte.
- Memory: the peak resident size (VmHWM) of `editkit call` editing a 100 MB file, against the
  file's size.
- Calls: `read_file` calls per second on a small file, pipelined through one `call --jsonl`
  process and over one raw MCP stdio session.

Prints the tables and writes DIR/speed.md (default target/compare). Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare  # noqa: E402  (the Tool classes, venvs and corpus helpers)

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
MARKER = "editkit_speed_marker"


def tree_cpu(pid: int) -> float:
    """Seconds of CPU used so far by `pid` and every live descendant (and reaped children)."""
    total, stack = 0.0, [pid]
    while stack:
        current = stack.pop()
        try:
            with open(f"/proc/{current}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        # utime, stime, cutime, cstime: fields 14-17 of stat(5), counted after the `)`.
        total += sum(int(value) for value in fields[11:15]) / CLOCK_TICKS
        for task in tasks:
            try:
                with open(f"/proc/{current}/task/{task}/children") as children:
                    stack.extend(int(child) for child in children.read().split())
            except OSError:
                pass
    return total


def peak_rss(pid: int) -> int:
    """VmHWM of `pid` in bytes."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM")


def stdlib_python(min_bytes: int) -> str:
    """Top-level code of the standard library, concatenated to at least `min_bytes` (whole files,
    repeated if needed; `from __future__` lines dropped, since they are only valid first)."""
    parts, size = [], 0
    files = sorted(compare.stdlib_dir().glob("*.py"))
    while size < min_bytes:
        for path in files:
            try:
                text = path.read_text("utf-8")
            except UnicodeDecodeError:
                continue
            if "\r" in text or "\f" in text:
                continue
            text = "".join(line for line in text.splitlines(keepends=True)
                           if not line.startswith("from __future__"))
            if not text.endswith("\n"):
                text += "\n"
            parts.append(text)
            size += len(text.encode("utf-8"))
            if size >= min_bytes:
                break
    return "".join(parts)


def with_marker(text: str) -> str:
    """`text` with `MARKER = 0` as a top-level statement after a blank line near its middle."""
    lines = text.splitlines(keepends=True)
    at = len(lines) // 2
    while at < len(lines) and (lines[at - 1].strip() or not lines[at].strip() or lines[at][0] in " \t#)]}"):
        at += 1
    lines[at:at] = [f"{MARKER} = 0\n", "\n"]
    return "".join(lines)


def editkit_tools(binary: Path, extra: dict[str, list[str]]) -> dict[str, compare.Tool]:
    base = [str(binary), "call", "--root", "{root}", "--jsonl"]
    return {name: compare.Editkit(name, base + flags) for name, flags in extra.items()}


def run_series(tools: dict[str, compare.Tool], work: Path, name: str, text: str, reps: int) -> dict:
    """`reps` edits of the marker through every tool, taking turns; per tool the wall times of
    the edits and their CPU seconds in total."""
    folders, cpu_before = {}, {}
    for tool_name, tool in tools.items():
        folder = work / tool_name.replace(" ", "-").replace(",", "")
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        (folder / name).write_text(text, "utf-8")
        folders[tool_name] = folder
        tool.start(folder)
    order = list(tools)
    walls: dict[str, list[float]] = {tool_name: [] for tool_name in tools}
    cpu: dict[str, float] = {}
    try:
        # One warm-up edit each (imports, first parse, worker start), not timed.
        for tool_name, tool in tools.items():
            answer, _ = tool.send({"op": "edit", "path": name, "old_string": f"{MARKER} = 0\n",
                                   "new_string": f"{MARKER} = 1\n", "replace_all": False})
            if not answer.get("ok"):
                raise RuntimeError(f"{tool_name}: warm-up edit failed: {answer}")
            cpu_before[tool_name] = tree_cpu(tool.process.pid)
        for rep in range(1, reps + 1):
            request = {"op": "edit", "path": name, "old_string": f"{MARKER} = {rep}\n",
                       "new_string": f"{MARKER} = {rep + 1}\n", "replace_all": False}
            shift = rep % len(order)
            for tool_name in order[shift:] + order[:shift]:
                answer, seconds = tools[tool_name].send(request)
                if not answer.get("ok"):
                    raise RuntimeError(f"{tool_name}: edit {rep} failed: {answer}")
                walls[tool_name].append(seconds)
        for tool_name, tool in tools.items():
            cpu[tool_name] = tree_cpu(tool.process.pid) - cpu_before[tool_name]
        for tool_name, folder in folders.items():
            final = (folder / name).read_text("utf-8")
            expected = text.replace(f"{MARKER} = 0\n", f"{MARKER} = {reps + 1}\n", 1)
            if final != expected:
                raise RuntimeError(f"{tool_name} left a different file than the edits ask for")
    finally:
        for tool in tools.values():
            tool.stop()
        for folder in folders.values():
            shutil.rmtree(folder, ignore_errors=True)
    return {tool_name: {"wall": walls[tool_name], "cpu": cpu[tool_name] / reps} for tool_name in tools}


def pipelined(argv: list[str], cwd: Path, requests: list[bytes], preamble: list[bytes] = ()) -> float:
    """Calls per second: `requests` written by one thread while this one reads the answers."""
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               cwd=cwd)
    try:
        for line in preamble:
            process.stdin.write(line)
            process.stdin.flush()
            if b'"id"' in line:
                answer = json.loads(process.stdout.readline())
                if "error" in answer:
                    raise RuntimeError(f"handshake refused: {answer}")

        def write() -> None:
            for line in requests:
                process.stdin.write(line)
            process.stdin.flush()

        writer = threading.Thread(target=write)
        started = time.perf_counter()
        writer.start()
        for _ in requests:
            answer = process.stdout.readline()
            if not answer:
                raise RuntimeError(f"{argv[1]} stopped answering")
            if b'"ok":false' in answer.replace(b" ", b"") or b'"isError":true' in answer.replace(b" ", b""):
                raise RuntimeError(f"a read_file call failed: {answer[:300]!r}")
        seconds = time.perf_counter() - started
        writer.join()
        return len(requests) / seconds
    finally:
        process.stdin.close()
        process.wait(timeout=30)


def call_rates(binary: Path, work: Path, calls: int) -> dict[str, float]:
    root = work / "calls"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    (root / "small.py").write_text("".join(f"value_{i} = {i}\n" for i in range(40)), "utf-8")
    jsonl = [json.dumps({"tool": "read_file", "args": {"path": "small.py"}, "id": i}).encode() + b"\n"
             for i in range(calls)]
    mcp = [json.dumps({"jsonrpc": "2.0", "id": i + 2, "method": "tools/call",
                       "params": {"name": "read_file", "arguments": {"path": "small.py"}}}).encode() + b"\n"
           for i in range(calls)]
    handshake = [
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "speed", "version": "1"}}}).encode() + b"\n",
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode() + b"\n",
    ]
    rates = {
        "call --jsonl": pipelined([str(binary), "call", "--root", str(root), "--jsonl"], root, jsonl),
        "mcp (stdio)": pipelined([str(binary), "mcp", "--root", str(root), "--roots", "given"], root, mcp,
                                 handshake),
    }
    shutil.rmtree(root, ignore_errors=True)
    return rates


def memory_peak(binary: Path, work: Path, size: int) -> tuple[int, int, int]:
    """(file size, VmHWM after a small call, VmHWM after editing the big file) of one
    `editkit call --jsonl` process."""
    root = work / "memory"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    text = with_marker(stdlib_python(size))
    (root / "big.py").write_text(text, "utf-8")
    (root / "small.py").write_text("x = 1\n", "utf-8")
    tool = compare.Tool("editkit", [str(binary), "call", "--root", "{root}", "--jsonl", "--diagnostics", "off",
                                    "--max-read-bytes", str(2 * len(text))])
    tool.start(root)
    try:
        answer, _ = tool.send({"tool": "read_file", "args": {"path": "small.py"}})
        if not answer.get("ok"):
            raise RuntimeError(f"read failed: {answer}")
        baseline = peak_rss(tool.process.pid)
        answer, _ = tool.send({"tool": "edit_file", "args": {"path": "big.py", "old_string": f"{MARKER} = 0\n",
                                                             "new_string": f"{MARKER} = 1\n"}})
        if not answer.get("ok"):
            raise RuntimeError(f"the 100 MB edit failed: {str(answer)[:300]}")
        peak = peak_rss(tool.process.pid)
    finally:
        tool.stop()
        shutil.rmtree(root, ignore_errors=True)
    return len(text.encode("utf-8")), baseline, peak


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1e3


def rows(table: list[list[str]]) -> list[str]:
    return compare.markdown_rows(table)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--editkit", required=True, type=Path)
    parser.add_argument("--out", type=Path, default=compare.REPO / "target" / "compare")
    parser.add_argument("--venv", type=Path, default=compare.REPO / "target" / "compare-venv")
    parser.add_argument("--reps", type=int, default=21, help="timed edits per file and tool")
    parser.add_argument("--calls", type=int, default=20_000, help="read_file calls per throughput run")
    parser.add_argument("--memory-mb", type=int, default=100, help="size of the memory case's file")
    options = parser.parse_args()
    out = options.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    work = out / "speed-work"
    work.mkdir(parents=True, exist_ok=True)
    binary = options.editkit.resolve()

    settings = {
        "editkit": [],
        "editkit atomic": ["--durability", "atomic"],
        "editkit checks off": ["--diagnostics", "off"],
        "editkit checks off, atomic": ["--diagnostics", "off", "--durability", "atomic"],
    }
    tools = editkit_tools(binary, settings)
    worker = str(compare.HERE / "incumbent.py")
    ok, how = compare.ensure_venv(options.venv, "praisonaiagents", "praisonaiagents.tools.edit_tools",
                                  out / "pip-praisonai.log")
    if not ok:
        print(f"praisonaiagents did not install: {how}", file=sys.stderr)
        return 1
    tools["praisonai"] = compare.Tool("praisonai", [str(compare.venv_python(options.venv)), worker, "praisonai",
                                                    "{root}"])
    aider_venv = options.venv.with_name(options.venv.name + "-aider")
    ok, how = compare.ensure_venv(aider_venv, "aider-chat", "aider.coders.editblock_coder", out / "pip-aider.log")
    if not ok:
        print(f"aider-chat did not install: {how}", file=sys.stderr)
        return 1
    tools["aider"] = compare.Tool("aider", [str(compare.venv_python(aider_venv)), worker, "aider", "{root}"])
    versions = {name: compare.tool_version(tools[name], work) for name in ("praisonai", "aider")}

    small_source = (compare.stdlib_dir() / "textwrap.py").read_text("utf-8")
    cases = {
        f"small file ({len(small_source.encode()) // 1024} KB Python)": with_marker(small_source),
        "3 MB Python file": with_marker(stdlib_python(3 << 20)),
    }
    report = [
        "# editkit speed side by side",
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.1f}; {versions['praisonai']}, {versions['aider']}. Medians of {options.reps} "
        "edits per tool, taking turns; ratios are the other tool's time over editkit's (above 1: editkit is "
        "faster).",
        "",
    ]
    for label, text in cases.items():
        print(f"edits: {label}", file=sys.stderr)
        reps = options.reps * (5 if text is cases[next(iter(cases))] else 1)
        result = run_series(tools, work, "target.py", text, reps)
        table = [["tool", "wall, median", "CPU per edit", "PraisonAI wall / this", "Aider wall / this",
                  "PraisonAI CPU / this"],
                 ["---"] + ["---:"] * 5]
        praisonai, aider = median_ms(result["praisonai"]["wall"]), median_ms(result["aider"]["wall"])
        for name, measured in result.items():
            wall = median_ms(measured["wall"])
            cpu = measured["cpu"] * 1e3
            table.append([name, f"{wall:.2f} ms", f"{cpu:.2f} ms", f"{praisonai / wall:.2f}×", f"{aider / wall:.2f}×",
                          f"{result['praisonai']['cpu'] / measured['cpu']:.2f}×" if measured["cpu"] else "n/a"])
        report += [f"## Edits: {label}, {reps} edits", ""] + rows(table) + [""]

    print("slope", file=sys.stderr)
    slope_tools = {name: tools[name] for name in ("editkit", "editkit checks off")}
    sizes = {1 << 20: stdlib_python(1 << 20), 4 << 20: stdlib_python(4 << 20)}
    per_size = {size: run_series(slope_tools, work, "slope.py", with_marker(text), options.reps)
                for size, text in sizes.items()}
    (small, big) = sorted(per_size)
    table = [["setting", "CPU per edit, 1 MB", "CPU per edit, 4 MB", "slope"], ["---", "---:", "---:", "---:"]]
    for name in slope_tools:
        cpu_small, cpu_big = per_size[small][name]["cpu"], per_size[big][name]["cpu"]
        bytes_small, bytes_big = len(sizes[small].encode()), len(sizes[big].encode())
        slope = (cpu_big - cpu_small) / (bytes_big - bytes_small) * 1e9
        table.append([name, f"{cpu_small * 1e3:.2f} ms", f"{cpu_big * 1e3:.2f} ms", f"{slope:.2f} ns/byte"])
    report += ["## CPU per edit against file size", ""] + rows(table) + [""]

    print("memory", file=sys.stderr)
    size, baseline, peak = memory_peak(binary, work, options.memory_mb << 20)
    report += [
        "## Memory",
        "",
        f"One `editkit call --jsonl --diagnostics off` process edits a {size / 2**20:.0f} MiB Python file: peak "
        f"resident size {peak / 2**20:.0f} MiB, {baseline / 2**20:.1f} MiB of it before the edit; "
        f"(peak - before) / size = {(peak - baseline) / size:.2f}.",
        "",
    ]

    print("calls", file=sys.stderr)
    rates = call_rates(binary, work, options.calls)
    report += ["## read_file calls per second (pipelined, one session)", ""]
    report += rows([["transport", "calls/s"], ["---", "---:"]] + [[k, f"{v:,.0f}"] for k, v in rates.items()])
    report.append("")

    text = "\n".join(report)
    (out / "speed.md").write_text(text + "\n", "utf-8")
    print(text)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
