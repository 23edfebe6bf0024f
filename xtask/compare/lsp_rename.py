#!/usr/bin/env python3
"""A 5-file Python rename side by side, over the same pyright server (`cargo xtask lsp-tools`):

    python3 xtask/compare/lsp_rename.py [--serena-venv target/serena-venv] [--editkit BINARY]
                                        [--rounds N] [--out DIR]

- raw server: `pyright-langserver --stdio` driven directly: `textDocument/rename`, then the
  WorkspaceEdit written file after file with plain reads and writes (no lock, no journal, no
  staleness check): the floor a rename tool stands on.
- Serena (`serena-agent` from PyPI, GPL-3.0: a benchmark only, in its own virtual environment,
  never a dependency): its `rename_symbol` MCP tool over stdio (`serena start-mcp-server`),
  pointed at the same pyright through `ls_specific_settings: {python: {ls_path: ...}}`, with
  its home folder, project and dashboard kept in a temp dir. Serena writes the files one after
  another, in place, with no rollback.
- editkit (only with `--editkit`): a fresh `editkit mcp --tools core,code_intel` session on
  stdio, `rename_symbol` with `{path, symbol, new_name}` (the symbol as a name path), with only
  the same pyright on the PATH it looks servers up in. It commits each rename as one
  transaction (journal, staleness guard, undo entry) and checks the written files.

References: the first `find_references` (server start and workspace load included) and the
warm ones after it, through the raw server (`textDocument/references` after the readiness
gate) and, with `--editkit`, through a fresh editkit session.

Each round renames `compute_total` (defined in pkg/util.py, used in four other files) to a new
name and checks the five files on disk; the name goes back and forth, so every round is a real
rename. The first call of each tool (server start, indexing) is shown apart as `cold`; the rest
give the median. Columns a tool cannot give are left out, with the reason. Writes
DIR/lsp_rename.md (default target/compare). Standard library only.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OLD = "compute_total"

FILES = {
    "pkg/__init__.py": "",
    "pkg/util.py": f"def {OLD}(items):\n    return sum(items)\n\n\ndef unrelated():\n    return 0\n",
    "pkg/a.py": f"from pkg.util import {OLD}\n\n\ndef a():\n    return {OLD}([1, 2])\n",
    "pkg/b.py": f"from pkg.util import {OLD}\n\nX = {OLD}([3])\nY = {OLD}([4])\n",
    "c.py": f"import pkg.util\n\nprint(pkg.util.{OLD}([5]))\n",
    "d.py": f"from pkg import util\n\n\nclass D:\n    def total(self):\n        return util.{OLD}([6])\n",
}


def make_project(base: Path) -> Path:
    project = base / "project"
    for rel, text in FILES.items():
        path = project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return project


def uri(path: Path) -> str:
    return "file://" + str(path.resolve())


def check_renamed(project: Path, name: str) -> None:
    """Every file holds the new name where the old stood, and nothing else changed."""
    for rel, text in FILES.items():
        now = (project / rel).read_text()
        if now.replace(name, OLD) != text or (OLD in text and name not in now):
            raise RuntimeError(f"{rel} is not renamed to {name}:\n{now}")


def names(rounds: int) -> list[tuple[str, str]]:
    """(from, to) per round: to a new name, and from it to the next."""
    steps = [OLD] + [f"total_v{i}" for i in range(1, rounds + 1)]
    return list(itertools.pairwise(steps))


class Lsp:
    """A synchronous LSP client over stdio (Content-Length frames)."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]):
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.inbox: queue.Queue = queue.Queue()
        self.next_id = 1
        self.notes: list[dict] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.proc.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                key, _, value = line.decode().partition(":")
                if key.lower() == "content-length":
                    length = int(value)
            self.inbox.put(json.loads(stream.read(length or 0)))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def _next(self, timeout: float) -> dict:
        message = self.inbox.get(timeout=timeout)
        if message is None:
            raise RuntimeError("the server closed its output")
        if "method" in message and "id" in message:
            # Requests from the server: configuration gets nulls, the rest an empty answer.
            items = (message.get("params") or {}).get("items") or []
            result = [None] * len(items) if message["method"] == "workspace/configuration" else None
            self.send({"id": message["id"], "result": result})
        elif "method" in message:
            self.notes.append(message)
        return message

    def request(self, method: str, params, timeout: float = 120.0):
        rid = self.next_id
        self.next_id += 1
        self.send({"id": rid, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            message = self._next(max(0.01, deadline - time.monotonic()))
            if message.get("id") == rid and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result")

    def wait_note(self, method: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not any(note["method"] == method for note in self.notes):
            self._next(max(0.01, deadline - time.monotonic()))

    def close(self) -> None:
        try:
            self.request("shutdown", None, timeout=10)
            self.send({"method": "exit"})
            self.proc.wait(timeout=5)
        except Exception:  # noqa: BLE001 - a benchmark's cleanup
            self.proc.kill()


def apply_workspace_edit(edit: dict) -> list[Path]:
    """Plain sequential writes of a WorkspaceEdit (UTF-16 columns; ASCII fixture)."""
    changes: dict[str, list] = dict(edit.get("changes") or {})
    for change in edit.get("documentChanges") or []:
        changes.setdefault(change["textDocument"]["uri"], []).extend(change["edits"])
    written = []
    for file_uri, edits in changes.items():
        path = Path(file_uri.removeprefix("file://"))
        lines = path.read_text().split("\n")
        offsets = [0]
        for line in lines:
            offsets.append(offsets[-1] + len(line) + 1)
        text = "\n".join(lines)

        def at(pos: dict, offsets: list[int] = offsets) -> int:
            return offsets[pos["line"]] + pos["character"]

        for item in sorted(edits, key=lambda e: at(e["range"]["start"]), reverse=True):
            text = text[: at(item["range"]["start"])] + item["newText"] + text[at(item["range"]["end"]) :]
        path.write_text(text)
        written.append(path)
    return written


def raw_server(pyright: Path, base: Path, rounds: int) -> dict:
    project = make_project(base / "raw")
    private = base / "raw-private"
    private.mkdir()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(private), "TMPDIR": str(private)}
    started = time.monotonic()
    server = Lsp([str(pyright), "--stdio"], private, env)
    caps = {"workspace": {"workspaceEdit": {"documentChanges": True}, "configuration": True},
            "textDocument": {"rename": {}, "publishDiagnostics": {"versionSupport": True}}}
    server.request("initialize", {"processId": os.getpid(), "rootUri": uri(project),
                                  "workspaceFolders": [{"uri": uri(project), "name": "project"}], "capabilities": caps})
    server.send({"method": "initialized", "params": {}})
    util = project / "pkg/util.py"
    server.send({"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri(util), "languageId": "python", "version": 1, "text": util.read_text()}}})
    # Ready once the opened file's first diagnostics are out (earlier answers are incomplete).
    server.wait_note("textDocument/publishDiagnostics", 120)
    version = 1
    times = []
    for index, (_, new) in enumerate(names(rounds)):
        t0 = time.monotonic()
        edit = server.request("textDocument/rename", {"textDocument": {"uri": uri(util)},
                                                      "position": {"line": 0, "character": 4}, "newName": new})
        written = apply_workspace_edit(edit or {})
        elapsed = time.monotonic() - t0
        times.append(elapsed if index else time.monotonic() - started)
        check_renamed(project, new)
        # The server is told (not timed): the open file's text, the others as changed on disk.
        version += 1
        server.send({"method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri(util), "version": version}, "contentChanges": [{"text": util.read_text()}]}})
        server.send({"method": "workspace/didChangeWatchedFiles", "params": {
            "changes": [{"uri": uri(path), "type": 2} for path in written if path != util]}})
    server.close()
    return {"cold": times[0], "warm": times[1:]}


class Mcp:
    """A synchronous MCP client over stdio (one JSON message per line)."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str], log: Path):
        self.log = open(log, "wb")  # noqa: SIM115 - kept for the process's life
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log)
        self.next_id = 1

    def request(self, method: str, params: dict, timeout: float = 300.0) -> dict:
        rid = self.next_id
        self.next_id += 1
        self.proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}) + "\n").encode())
        self.proc.stdin.flush()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the server exited during {method}")
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                continue
            if message.get("id") == rid and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]
        raise TimeoutError(method)

    def notify(self, method: str) -> None:
        self.proc.stdin.write((json.dumps({"jsonrpc": "2.0", "method": method}) + "\n").encode())
        self.proc.stdin.flush()

    def start(self) -> list[str]:
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "lsp_rename.py", "version": "1"}})
        self.notify("notifications/initialized")
        return [tool["name"] for tool in self.request("tools/list", {})["tools"]]

    def close(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


def timed_calls(client: Mcp, project: Path, rounds: int, arguments) -> dict:
    times = []
    for old, new in names(rounds):
        t0 = time.monotonic()
        result = client.request("tools/call", {"name": "rename_symbol", "arguments": arguments(old, new)})
        times.append(time.monotonic() - t0)
        if result.get("isError"):
            raise RuntimeError(f"rename_symbol failed: {json.dumps(result)[:500]}")
        check_renamed(project, new)
    return {"cold": times[0], "warm": times[1:]}


def serena(venv: Path, pyright: Path, base: Path, rounds: int) -> dict:
    project = make_project(base / "serena")
    home = base / "serena-home"
    home.mkdir()
    (home / "serena_config.yml").write_text(
        "language_backend: LSP\ngui_log_window: False\nweb_dashboard: False\nweb_dashboard_open_on_launch: False\n"
        "record_tool_usage_stats: False\nprojects: []\n"
        f"ls_specific_settings:\n  python:\n    ls_path: {json.dumps(str(pyright))}\n"
    )
    env = {**os.environ, "SERENA_HOME": str(home), "HOME": str(home)}
    argv = [str(venv / "bin/serena"), "start-mcp-server", "--project", str(project), "--transport", "stdio",
            "--enable-web-dashboard", "False", "--enable-gui-log-window", "False", "--open-web-dashboard", "False",
            "--log-level", "WARNING"]
    started = time.monotonic()
    client = Mcp(argv, base, env, base / "serena.log")
    try:
        tools = client.start()
        if "rename_symbol" not in tools:
            raise RuntimeError(f"no rename_symbol among Serena's tools: {tools}")
        ready = time.monotonic() - started
        result = timed_calls(client, project, rounds,
                             lambda old, new: {"name_path": old, "relative_path": "pkg/util.py", "new_name": new})
        result["start"] = ready
        return result
    finally:
        client.close()


def editkit_env(pyright: Path, base: Path) -> dict[str, str]:
    """This process's environment with a PATH whose only language server is `pyright`
    (editkit would take basedpyright first from the venv's folder)."""
    only = base / "editkit-bin"
    only.mkdir(exist_ok=True)
    link = only / "pyright-langserver"
    if not link.exists():
        link.symlink_to(pyright)
    path = [str(only)] + [entry for entry in os.environ.get("PATH", "").split(os.pathsep)
                          if entry and not (Path(entry) / "basedpyright-langserver").exists()]
    return {**os.environ, "PATH": os.pathsep.join(path)}


EDITKIT_ARGS: list[str] = []  # --editkit-arg, each passed to `editkit mcp`


def editkit_mcp(binary: Path, project: Path, env: dict[str, str], log: Path) -> Mcp:
    argv = [str(binary), "mcp", "--tools", "core,code_intel", "--root", str(project), *EDITKIT_ARGS]
    return Mcp(argv, project.parent, env, log)


def editkit(binary: Path, pyright: Path, base: Path, rounds: int) -> dict:
    project = make_project(base / "editkit")
    env = editkit_env(pyright, base)
    started = time.monotonic()
    client = editkit_mcp(binary, project, env, base / "editkit.log")
    try:
        tools = client.start()
        if "rename_symbol" not in tools:
            raise RuntimeError("this editkit has no rename_symbol tool")
        ready = time.monotonic() - started
        result = timed_calls(client, project, rounds,
                             lambda old, new: {"path": "pkg/util.py", "symbol": old, "new_name": new})
        result["start"] = ready
        return result
    finally:
        client.close()


REFERENCES_AT = {"path": "pkg/util.py", "line": 1, "symbol": OLD}
REFERENCES = 8  # compute_total's references in FILES, its declaration included


def editkit_references(binary: Path, pyright: Path, base: Path, rounds: int) -> dict:
    project = make_project(base / "editkit-refs")
    client = editkit_mcp(binary, project, editkit_env(pyright, base), base / "editkit-refs.log")
    times = []
    try:
        client.start()
        for _ in range(rounds):
            t0 = time.monotonic()
            result = client.request("tools/call", {"name": "find_references", "arguments": REFERENCES_AT})
            times.append(time.monotonic() - t0)
            found = result.get("structuredContent") or {}
            if result.get("isError") or found.get("total") != REFERENCES or not found.get("complete"):
                raise RuntimeError(f"find_references: {json.dumps(result)[:500]}")
    finally:
        client.close()
    return {"cold": times[0], "warm": times[1:]}


def raw_references(pyright: Path, base: Path, rounds: int) -> dict:
    project = make_project(base / "raw-refs")
    private = base / "raw-refs-private"
    private.mkdir()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(private), "TMPDIR": str(private)}
    started = time.monotonic()
    server = Lsp([str(pyright), "--stdio"], private, env)
    server.request("initialize", {"processId": os.getpid(), "rootUri": uri(project),
                                  "workspaceFolders": [{"uri": uri(project), "name": "project"}],
                                  "capabilities": {"workspace": {"configuration": True}}})
    server.send({"method": "initialized", "params": {}})
    util = project / "pkg/util.py"
    server.send({"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri(util), "languageId": "python", "version": 1, "text": util.read_text()}}})
    server.wait_note("textDocument/publishDiagnostics", 120)
    times = []
    for index in range(rounds):
        t0 = time.monotonic()
        found = server.request("textDocument/references", {"textDocument": {"uri": uri(util)},
                               "position": {"line": 0, "character": 4}, "context": {"includeDeclaration": True}})
        times.append(time.monotonic() - (t0 if index else started))
        if len(found or []) != REFERENCES:
            raise RuntimeError(f"references: {found}")
    server.close()
    return {"cold": times[0], "warm": times[1:]}


def row(name: str, result: dict, floor: float | None) -> str:
    warm = statistics.median(result["warm"]) if result["warm"] else float("nan")
    ratio = f"{warm / floor:.1f}" if floor else "-"
    start = f"{result['start'] * 1e3:.0f}" if "start" in result else "-"
    return (f"| {name} | {start} | {result['cold'] * 1e3:.0f} | {warm * 1e3:.1f} | "
            f"{min(result['warm'], default=float('nan')) * 1e3:.1f} | {ratio} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pyright", type=Path, default=ROOT / "target/lsp-tools/venv/bin/pyright-langserver")
    parser.add_argument("--serena-venv", type=Path, default=ROOT / "target/serena-venv")
    parser.add_argument("--editkit", type=Path)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--editkit-arg", action="append", default=[],
                        help="an argument for `editkit mcp` (repeat it): `--editkit-arg=--diagnostics=off`")
    parser.add_argument("--out", type=Path, default=ROOT / "target/compare")
    args = parser.parse_args()
    args.pyright = args.pyright.resolve()
    EDITKIT_ARGS.extend(args.editkit_arg)
    if not args.pyright.exists():
        sys.exit(f"{args.pyright} is missing: run `cargo xtask lsp-tools`")
    base = Path(tempfile.mkdtemp(prefix="lsp-rename-"))
    results: dict[str, dict] = {}
    references: dict[str, dict] = {}
    skipped: dict[str, str] = {}
    try:
        results["raw server (rename request + plain writes)"] = raw_server(args.pyright, base, args.rounds)
        if (args.serena_venv / "bin/serena").exists():
            try:
                results["Serena rename_symbol (MCP)"] = serena(args.serena_venv, args.pyright, base, args.rounds)
            except Exception as err:  # noqa: BLE001 - reported in the table's notes
                skipped["Serena"] = str(err)
        else:
            skipped["Serena"] = f"no {args.serena_venv}/bin/serena (python3 -m venv it; pip install serena-agent)"
        if args.editkit:
            try:
                results["editkit rename_symbol (MCP)"] = editkit(args.editkit.resolve(), args.pyright, base, args.rounds)
            except Exception as err:  # noqa: BLE001 - reported in the table's notes
                skipped["editkit"] = str(err)
        references["raw server textDocument/references"] = raw_references(args.pyright, base, args.rounds)
        if args.editkit:
            try:
                references["editkit find_references (MCP)"] = editkit_references(
                    args.editkit.resolve(), args.pyright, base, args.rounds)
            except Exception as err:  # noqa: BLE001 - reported in the table's notes
                skipped["editkit find_references"] = str(err)
    finally:
        keep = os.environ.get("LSP_RENAME_KEEP")
        if not keep:
            shutil.rmtree(base, ignore_errors=True)
    floor = statistics.median(next(iter(results.values()))["warm"])
    lines = [
        f"# A 5-file Python rename ({args.rounds} rounds, pyright {args.pyright})",
        "",
        "| tool | start ms | first rename ms | median ms | min ms | median / raw |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    lines += [row(name, result, floor) for name, result in results.items()]
    ref_floor = statistics.median(next(iter(references.values()))["warm"])
    lines += ["", f"# find_references of `{OLD}` ({REFERENCES} references)", "",
              "| tool | start ms | first (cold) ms | median ms | min ms | median / raw |",
              "|---|---:|---:|---:|---:|---:|"]
    lines += [row(name, result, ref_floor) for name, result in references.items()]
    lines += [""] + [f"- {name} not measured: {why}" for name, why in skipped.items()]
    if EDITKIT_ARGS:
        lines.append(f"- editkit ran with {' '.join(EDITKIT_ARGS)}.")
    lines.append("- the raw server's first rename and first references count from the server's spawn; the "
                 "others' from their start answering tools/list (editkit starts no server before the first call, "
                 "so its first call includes the server's start and workspace load).")
    report = "\n".join(lines) + "\n"
    print(report)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "lsp_rename.md").write_text(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
