#!/usr/bin/env python3
"""Head-to-head comparison of editkit against the incumbent edit tools (`cargo xtask compare`).

    python3 xtask/compare/compare.py --editkit target/release/editkit [options]

Incumbents, each installed into a throwaway virtualenv under target/ and served by
incumbent.py over JSON lines (one process per tool, many calls through it, like
`editkit call --jsonl`):

- PraisonAI: `praisonaiagents.tools.edit_tools.EditTools.edit_file` and `.apply_patch`.
- Aider: `aider.coders.editblock_coder.replace_most_similar_chunk` (when aider-chat installs).

Every tool gets the same inputs: the same file bytes under the same relative name, the same
old/new strings, the same patch text (up to a documented header rewrite). An outcome is judged
only by the bytes left on disk, compared with the expected file byte for byte; what a tool
says about itself is recorded but never trusted.

This script needs only the Python 3.11 standard library; the incumbents run in their venvs.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

# The change made by every generated edit: a comment appended to one line of the block.
MARK = "  # changed by editkit-compare"

# Corpus groups that encode editkit's own policy or features rather than drift any edit tool
# meets: refusing a retried edit whose `new` is already there, unescaping `\n`-escaped text, and
# cases written by hand for editkit. The report gives a total without them too.
EDITKIT_SPECIFIC = ("already-applied", "escape", "hand-written")

OUTCOMES = ("correct", "wrong", "false_refusal", "correct_refusal", "allowed_refusal", "unsupported")
OUTCOME_TITLES = {
    "correct": "correct edits",
    "wrong": "wrong edits",
    "false_refusal": "false refusals",
    "correct_refusal": "correct refusals",
    "allowed_refusal": "refusals allowed",
    "unsupported": "not supported",
}


# ---------------------------------------------------------------------------------------------
# Cases


@dataclass
class EditCase:
    name: str
    category: str
    before: bytes
    old: str
    new: str
    replace_all: bool = False
    after: bytes | None = None  # the expected file; None when a refusal is expected
    refusal: str | None = None  # the expected error kind, for the record
    source: str = "corpus"
    # The old text leaves out or invents lines (a model's sloppy copy): the expected file is
    # what landing it right makes, and refusing it, the file unchanged, is allowed too.
    may_refuse: bool = False


def load_corpus(folder: Path) -> list[EditCase]:
    """fixtures/edits/<case>/: before, old, new, then after (+ rung) or error; replace_all flag."""
    cases = []
    for case_dir in sorted(p for p in folder.iterdir() if p.is_dir()):
        match = re.fullmatch(r"(py|ts)-(.+)-(\d+)", case_dir.name)
        category = match.group(2) if match else case_dir.name
        if category.startswith("hand-"):
            category = "hand-written"
        read = lambda name: (case_dir / name).read_bytes()
        after = read("after") if (case_dir / "after").exists() else None
        refusal = read("error").decode().strip() if (case_dir / "error").exists() else None
        cases.append(EditCase(
            name=case_dir.name,
            category=category,
            before=read("before"),
            old=read("old").decode("utf-8"),
            new=read("new").decode("utf-8"),
            replace_all=(case_dir / "replace_all").exists(),
            after=after,
            refusal=refusal,
            may_refuse=(case_dir / "may_refuse").exists(),
        ))
    return cases


# ---------------------------------------------------------------------------------------------
# The drift set: real functions from the CPython standard library, perturbed the way agents
# misremember them. Each case's expected file is made on the file's own lines, independently
# of every tool: the marked line gets MARK appended before its own line ending.


@dataclass
class Block:
    path: Path
    lines: list[str]  # the file's lines, with their endings
    start: int  # first line of the block (0-based)
    end: int  # one past the last line
    function: tuple[int, int]  # the enclosing function's lines, for decoys

    @property
    def mid(self) -> int:
        return self.start + (self.end - self.start) // 2


def stdlib_dir() -> Path:
    return Path(os.__file__).resolve().parent


def indentation(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def find_blocks(path: Path, rng: random.Random) -> list[Block]:
    """Candidate blocks of 3-6 indented, non-blank, space-indented lines inside functions."""
    try:
        text = path.read_text("utf-8")
        tree = ast.parse(text)
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return []
    if "\t" in text or "\r" in text:
        return []
    lines = text.splitlines(keepends=True)
    stripped = [line.strip() for line in lines]
    blocks = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not node.body:
            continue
        body_start, body_end = node.body[0].lineno - 1, node.end_lineno
        size = rng.randint(3, 6)
        for start in range(body_start, body_end - size + 1):
            chunk = lines[start:start + size]
            if any(not line.strip() or line.rstrip("\n") != line.rstrip() or indentation(line) % 4
                   or line.rstrip().endswith("\\") for line in chunk):
                continue
            # Unique both exactly and with each line trimmed, so one place is right.
            needle = [line.strip() for line in chunk]
            hits = sum(1 for i in range(len(lines) - size + 1) if stripped[i:i + size] == needle)
            if hits != 1:
                continue
            blocks.append(Block(path, lines, start, start + size, (node.lineno - 1, node.end_lineno)))
            break
    return blocks


def mark(lines: list[str], index: int) -> list[str]:
    out = list(lines)
    line = out[index]
    body = line.rstrip("\r\n")
    out[index] = body + MARK + line[len(body):]
    return out


def block_text(lines: list[str]) -> str:
    """The block as an agent writes it: LF endings, no final newline."""
    return "".join(line.rstrip("\r\n") + "\n" for line in lines).rstrip("\n")


def reindent(text: str, delta: int) -> str:
    out = []
    for line in text.split("\n"):
        out.append(" " * delta + line if delta >= 0 else line[min(-delta, indentation(line)):])
    return "\n".join(out)


def to_tabs(line: str) -> str:
    width = indentation(line)
    return "\t" * (width // 4) + " " * (width % 4) + line[width:]


SMART = {'"': ("\u201c", "\u201d"), "'": ("\u2019", "\u2019")}


def smarten(text: str) -> str:
    out, seen = [], {'"': 0, "'": 0}
    for char in text:
        if char in SMART:
            out.append(SMART[char][seen[char] % 2])
            seen[char] += 1
        else:
            out.append(char)
    return "".join(out)


def drift_case(kind: str, block: Block, serial: int) -> EditCase | None:
    lines = block.lines
    start, end, mid = block.start, block.end, block.mid
    old_lines = lines[start:end]
    new_lines = mark(lines, mid)[start:end]
    before_lines = lines
    after_lines = mark(lines, mid)
    old, new = block_text(old_lines), block_text(new_lines)
    refusal = None
    common = min(indentation(line) for line in old_lines)
    if kind == "exact":
        pass
    elif kind == "dedent":
        if common == 0:
            return None
        old, new = reindent(old, -common), reindent(new, -common)
    elif kind == "indent-deeper":
        old, new = reindent(old, 4), reindent(new, 4)
    elif kind == "trailing-ws":
        old = "\n".join(line + "  " for line in old.split("\n"))
    elif kind == "tabs":
        before_lines = [to_tabs(line) for line in lines]
        after_lines = [to_tabs(line) for line in after_lines]
    elif kind == "smart-quotes":
        if not any(q in old for q in "\"'"):
            return None
        old = smarten(old)
    elif kind in ("decoy-exact", "decoy-drifted"):
        # A copy of the enclosing function at the end of the file whose copy of the block has
        # its marked line changed: the decoy shares the block's first and last lines.
        f_start, f_end = block.function
        copy = list(lines[f_start:f_end])
        copy[mid - f_start] = copy[mid - f_start].rstrip("\n") + "  # decoy\n"
        tail = ["\n", "\n"] + copy
        if not lines[-1].endswith("\n"):
            return None
        before_lines = lines + tail
        after_lines = mark(lines, mid) + tail
        if kind == "decoy-drifted":
            # Trailing spaces: no exact match, so fuzzy rungs run with the decoy in reach.
            old = "\n".join(line + "  " for line in old.split("\n"))
    elif kind == "twin-ambiguous":
        # The same function again, four spaces deeper: an old_string at column 0 fits both
        # equally well, so the only right answer is to refuse and change nothing.
        f_start, f_end = block.function
        copy = ["    " + line if line.strip() else line for line in lines[f_start:f_end]]
        if not lines[-1].endswith("\n"):
            return None
        before_lines = lines + ["\n", "\n", "class _Twin:\n"] + copy
        after_lines = None
        refusal = "ambiguous"
        old, new = reindent(old, -common), reindent(new, -common)
    elif kind == "crlf":
        before_lines = [line.rstrip("\n") + "\r\n" if line.endswith("\n") else line for line in lines]
        after_lines = [line.rstrip("\n") + "\r\n" if line.endswith("\n") else line for line in after_lines]
    elif kind == "bom":
        before_lines = ["\ufeff" + lines[0]] + lines[1:]
        after_lines = ["\ufeff" + after_lines[0]] + after_lines[1:]
        if start == 0:
            return None
    elif kind == "mixed-eol":
        # Every seventh line outside the block ends with CRLF, the rest with LF.
        def mixed(source):
            return [line.rstrip("\n") + "\r\n" if i % 7 == 3 and not start <= i < end
                    and line.endswith("\n") else line for i, line in enumerate(source)]
        before_lines, after_lines = mixed(lines), mixed(after_lines)
    elif kind == "no-final-newline":
        # The block's last line becomes the file's last line, without a newline.
        before_lines = lines[:end]
        before_lines[-1] = before_lines[-1].rstrip("\n")
        after_lines = mark(before_lines, mid)
    else:
        raise ValueError(kind)
    before = "".join(before_lines).encode("utf-8")
    after = "".join(after_lines).encode("utf-8") if after_lines is not None else None
    rel = block.path.relative_to(stdlib_dir().parent)
    return EditCase(
        name=f"drift-{kind}-{serial:03d} ({rel}:{start + 1})",
        category=f"drift: {kind}",
        before=before, old=old, new=new, after=after, refusal=refusal, source="drift",
    )


DRIFT_KINDS = ("exact", "dedent", "indent-deeper", "trailing-ws", "tabs", "smart-quotes",
               "decoy-exact", "decoy-drifted", "twin-ambiguous", "crlf", "bom", "mixed-eol",
               "no-final-newline")


def drift_set(per_kind: int, seed: int) -> list[EditCase]:
    rng = random.Random(seed)
    files = sorted(p for p in stdlib_dir().glob("*.py") if p.stat().st_size < 200_000)
    rng.shuffle(files)
    cases = []
    for kind_idx, kind in enumerate(DRIFT_KINDS):
        made = 0
        # Each kind starts further along the shuffled list, so kinds draw on different files.
        shift = kind_idx * per_kind
        for path in files[shift:] + files[:shift]:
            if made == per_kind:
                break
            blocks = find_blocks(path, rng)
            if not blocks:
                continue
            case = drift_case(kind, rng.choice(blocks), made + 1)
            if case is not None:
                cases.append(case)
                made += 1
    return cases


# ---------------------------------------------------------------------------------------------
# Tools: one long-lived process each, JSON lines in and out, timed from here the same way.


class Tool:
    def __init__(self, name: str, argv: list[str]):
        self.name = name
        self.argv = argv
        self.process: subprocess.Popen | None = None
        self.serial = 0

    def start(self, root: Path) -> None:
        self.stop()
        argv = [part.replace("{root}", str(root)) for part in self.argv]
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, cwd=root)

    def stop(self) -> None:
        if self.process is not None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
            self.process = None

    def send(self, request: dict) -> tuple[dict, float]:
        self.serial += 1
        line = (json.dumps(self.wrap(request, self.serial)) + "\n").encode("ascii")
        started = time.perf_counter()
        self.process.stdin.write(line)
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        seconds = time.perf_counter() - started
        if not answer:
            raise RuntimeError(f"{self.name} exited without answering")
        return self.unwrap(json.loads(answer)), seconds

    def wrap(self, request: dict, serial: int) -> dict:
        return {**request, "id": serial}

    def unwrap(self, answer: dict) -> dict:
        return answer


class Editkit(Tool):
    dry_run = False

    def wrap(self, request: dict, serial: int) -> dict:
        if request["op"] == "edit":
            args = {"path": request["path"], "old_string": request["old_string"],
                    "new_string": request["new_string"], "replace_all": request["replace_all"]}
            if self.dry_run:
                args["dry_run"] = True
            return {"tool": "edit_file", "args": args, "id": serial}
        return {"tool": "apply_patch", "args": {"patch": request["patch"]}, "id": serial}

    def unwrap(self, answer: dict) -> dict:
        error = answer.get("error") or {}
        return {"ok": answer.get("ok") is True, "message": error.get("kind") or answer.get("rung", "")}


# ---------------------------------------------------------------------------------------------
# Edit runs


@dataclass
class EditResult:
    case: EditCase
    outcome: str
    said_ok: bool
    seconds: float
    message: str


def judge(case: EditCase, answer: dict, result: bytes) -> str:
    if answer.get("unsupported"):
        return "unsupported"
    if case.after is not None:
        if result == case.after:
            return "correct"
        if result == case.before:
            return "allowed_refusal" if case.may_refuse else "false_refusal"
        return "wrong"
    return "correct_refusal" if result == case.before else "wrong"


def run_edits(tools: dict[str, Tool], cases: list[EditCase], work: Path, suffix: str,
              keep: bool = True) -> dict[str, list[EditResult]]:
    """Every case through every tool, interleaved (case by case, the first tool rotating) so
    that load from other processes on the machine falls on all tools alike."""
    folders = {}
    for tool_name in tools:
        folder = work / tool_name
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        for index, case in enumerate(cases):
            (folder / f"{index:04d}{suffix}").write_bytes(case.before)
        folders[tool_name] = folder
    results: dict[str, list[EditResult]] = {tool_name: [] for tool_name in tools}
    order = list(tools)
    try:
        for tool_name, tool in tools.items():
            tool.start(folders[tool_name])
        for index, case in enumerate(cases):
            name = f"{index:04d}{suffix}"
            request = {"op": "edit", "path": name, "old_string": case.old, "new_string": case.new,
                       "replace_all": case.replace_all}
            shift = index % len(order)
            for tool_name in order[shift:] + order[:shift]:
                answer, seconds = tools[tool_name].send(request)
                path = folders[tool_name] / name
                result = path.read_bytes()
                if not keep:
                    path.unlink()
                message = answer.get("message") or answer.get("unsupported") or answer.get("crash") or ""
                results[tool_name].append(EditResult(case, judge(case, answer, result),
                                                     bool(answer.get("ok")), seconds, message))
    finally:
        for tool in tools.values():
            tool.stop()
    return results


# ---------------------------------------------------------------------------------------------
# Large files: 50k lines of stdlib code with one target function in the middle.

BIG_TARGET = [
    "def editkit_compare_target(values, limit):\n",
    "    total = 0\n",
    "    for value in values:\n",
    "        if value > limit:\n",
    "            total += value - limit\n",
    "    return total\n",
]


def big_file(n_lines: int) -> tuple[list[str], int]:
    lines: list[str] = []
    for path in sorted(stdlib_dir().glob("*.py")):
        try:
            text = path.read_text("utf-8")
        except UnicodeDecodeError:
            continue
        if "\r" in text:
            continue
        lines.extend(text.splitlines(keepends=True))
        if len(lines) >= n_lines:
            break
    lines = lines[:n_lines - len(BIG_TARGET) - 2]
    if not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    at = len(lines) // 2
    while lines[at - 1].strip() or indentation(lines[at]) or not lines[at].strip():
        at += 1  # start the target at a top-level statement after a blank line
    lines[at:at] = BIG_TARGET + ["\n", "\n"]
    return lines, at


def big_cases(n_lines: int, reps: int) -> list[EditCase]:
    lines, at = big_file(n_lines)
    before = "".join(lines).encode("utf-8")
    after = "".join(mark(lines, at + 3)).encode("utf-8")
    old = block_text(BIG_TARGET[2:5])
    new = block_text(mark(BIG_TARGET, 3)[2:5])
    kinds = {
        "exact": (old, new, after),
        "drifted (column 0)": (reindent(old, -4), reindent(new, -4), after),
        "not found": (old.replace("value - limit", "limit - value"), new, None),
    }
    cases = []
    for kind, (kind_old, kind_new, kind_after) in kinds.items():
        for rep in range(reps):
            cases.append(EditCase(f"big-{kind}-{rep}", kind, before, kind_old, kind_new,
                                  after=kind_after, refusal=None if kind_after else "not_found",
                                  source="big"))
    return cases


# ---------------------------------------------------------------------------------------------
# Patches (editkit vs PraisonAI apply_patch)

HEADER = re.compile(r"^(\*\*\* (?:Add File|Update File|Delete File|Move to): ?)(.*?)(\r?)$", re.M)
MOVE_FILE = re.compile(r"^(\*\*\* Move File: ?)(.*?) -> (.*?)(\r?)$", re.M)


def prefix_paths(patch: str, prefix: str) -> str:
    """Moves every path in a patch under `prefix/` (each case gets its own folder)."""
    patch = HEADER.sub(lambda m: f"{m.group(1)}{prefix}/{m.group(2).strip()}{m.group(3)}", patch)
    return MOVE_FILE.sub(lambda m: f"{m.group(1)}{prefix}/{m.group(2).strip()} -> {prefix}/{m.group(3).strip()}{m.group(4)}",
                         patch)


def praisonai_dialect(patch: str) -> str:
    """`*** Update File: A` + `*** Move to: B` is spelled `*** Move File: A -> B` by PraisonAI."""
    return re.sub(r"^\*\*\* Update File: (.*?)\r?\n\*\*\* Move to: (.*?)(\r?)$",
                  r"*** Move File: \1 -> \2\3", patch, flags=re.M)


def tree(folder: Path) -> dict[str, bytes]:
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def write_tree(folder: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)


@dataclass
class PatchCase:
    name: str
    category: str
    before: dict[str, bytes]
    patch: str
    after: dict[str, bytes] | None  # None: must be refused, tree unchanged
    note: str = ""
    read_only: tuple[str, ...] = ()  # made 0444 before the patch (the corpus' `read_only`)


def load_patch_corpus(folder: Path) -> list[PatchCase]:
    cases = []
    for case_dir in sorted(folder.glob("hk_*")):
        after = None if (case_dir / "error").exists() else tree(case_dir / "after")
        marked = (case_dir / "read_only").read_text() if (case_dir / "read_only").exists() else ""
        cases.append(PatchCase(case_dir.name, "corpus (hk_ dialect)", tree(case_dir / "before"),
                               (case_dir / "input").read_bytes().decode("utf-8"), after,
                               read_only=tuple(line for line in marked.splitlines() if line)))
    return cases


def hunk(old: str, new: str) -> str:
    return f"@@\n{old}\n===\n{new}\n"


def patch_scenarios(per_kind: int, seed: int) -> list[PatchCase]:
    """Multi-file patches over real stdlib code: atomicity, CRLF, BOM, mixed endings."""
    rng = random.Random(seed)
    files = sorted(p for p in stdlib_dir().glob("*.py") if p.stat().st_size < 100_000)
    rng.shuffle(files)
    picked = []
    for path in files:
        blocks = find_blocks(path, rng)
        if blocks:
            picked.append(rng.choice(blocks))
        if len(picked) >= per_kind * 3:
            break

    def edit_of(block: Block):
        old = block_text(block.lines[block.start:block.end])
        new = block_text(mark(block.lines, block.mid)[block.start:block.end])
        return old, new, mark(block.lines, block.mid)

    def crlf(lines):
        return [line.rstrip("\n") + "\r\n" if line.endswith("\n") else line for line in lines]

    cases = []
    for n in range(per_kind):
        trio = picked[3 * n:3 * n + 3]
        names = [f"f{i}_{b.path.name}" for i, b in enumerate(trio, 1)]
        edits = [edit_of(b) for b in trio]
        before = {name: "".join(b.lines).encode() for name, b in zip(names, trio)}
        # 1. The last hunk's old text is not in file 3.
        body = "".join(f"*** Update File: {name}\n" + hunk(old, new)
                       for name, (old, new, _) in zip(names[:2], edits[:2]))
        # A hunk written against another version of file 3: every line differs, so no rung
        # (block anchor included) can place it.
        missing = "\n".join(line + "  # stale" for line in edits[2][0].split("\n"))
        body += f"*** Update File: {names[2]}\n" + hunk(missing, edits[2][1])
        cases.append(PatchCase(f"atomic-not-found-{n + 1}", "atomicity: last hunk not found",
                               before, "*** Begin Patch\n" + body + "*** End Patch\n", None))
        # 2. The last hunk's old text occurs twice in file 3.
        twice = dict(before)
        lines3 = trio[2].lines
        twice[names[2]] = "".join(lines3 + ["\n"] + lines3[trio[2].start:trio[2].end]).encode()
        body2 = "".join(f"*** Update File: {name}\n" + hunk(old, new)
                        for name, (old, new, _) in zip(names, edits))
        cases.append(PatchCase(f"atomic-ambiguous-{n + 1}", "atomicity: last hunk ambiguous",
                               twice, "*** Begin Patch\n" + body2 + "*** End Patch\n", None))
        # 3. All three apply, targets in LF, CRLF and BOM+CRLF: each keeps its own bytes.
        kinds = [("lf", lambda l: l), ("crlf", crlf), ("bom+crlf", lambda l: crlf(["\ufeff" + l[0]] + l[1:]))]
        enc_before, enc_after = {}, {}
        for name, block, (_, _, after_lines), (_, encode) in zip(names, trio, edits, kinds):
            enc_before[name] = "".join(encode(block.lines)).encode()
            enc_after[name] = "".join(encode(after_lines)).encode()
        cases.append(PatchCase(f"eol-three-files-{n + 1}", "LF + CRLF + BOM/CRLF files in one patch",
                               enc_before, "*** Begin Patch\n" + body2 + "*** End Patch\n", enc_after))
        # 4. One CRLF file alone, one BOM file alone, one mixed-endings file alone.
        block, (old, new, after_lines) = trio[0], edits[0]
        single = f"*** Begin Patch\n*** Update File: {names[0]}\n" + hunk(old, new) + "*** End Patch\n"
        cases.append(PatchCase(f"crlf-{n + 1}", "CRLF kept", {names[0]: "".join(crlf(block.lines)).encode()},
                               single, {names[0]: "".join(crlf(after_lines)).encode()}))
        cases.append(PatchCase(f"bom-{n + 1}", "BOM kept",
                               {names[0]: b"\xef\xbb\xbf" + "".join(block.lines).encode()},
                               single, {names[0]: b"\xef\xbb\xbf" + "".join(after_lines).encode()}))

        def mixed(lines):
            return [line.rstrip("\n") + "\r\n" if i % 7 == 3 and not block.start <= i < block.end
                    and line.endswith("\n") else line for i, line in enumerate(lines)]
        cases.append(PatchCase(f"mixed-eol-{n + 1}", "mixed line endings kept",
                               {names[0]: "".join(mixed(block.lines)).encode()},
                               single, {names[0]: "".join(mixed(after_lines)).encode()}))
    return cases


@dataclass
class PatchResult:
    case: PatchCase
    outcome: str
    said_ok: bool
    seconds: float
    message: str
    partial: bool  # some but not all files changed


def run_patches(tool: Tool, cases: list[PatchCase], work: Path, dialect=lambda p: p) -> list[PatchResult]:
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    for index, case in enumerate(cases):
        write_tree(work / f"c{index:03d}", case.before)
        for rel in (rel for rel in case.read_only if rel in case.before):
            (work / f"c{index:03d}" / rel).chmod(0o444)
    tool.start(work)
    results = []
    try:
        for index, case in enumerate(cases):
            folder = f"c{index:03d}"
            patch = dialect(prefix_paths(case.patch, folder))
            answer, seconds = tool.send({"op": "patch", "patch": patch})
            result = tree(work / folder)
            changed = {k for k in set(result) | set(case.before) if result.get(k) != case.before.get(k)}
            if case.after is not None:
                outcome = ("correct" if result == case.after
                           else "false_refusal" if not changed else "wrong")
            else:
                outcome = "correct_refusal" if not changed else "wrong"
            # A refused patch that still changed some files broke all-or-nothing.
            partial = case.after is None and bool(changed)
            message = answer.get("message") or answer.get("crash") or ""
            results.append(PatchResult(case, outcome, bool(answer.get("ok")), seconds, message, partial))
    finally:
        tool.stop()
    return results


# ---------------------------------------------------------------------------------------------
# Setup of the incumbents


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def ensure_venv(venv: Path, package: str, module: str, log: Path) -> tuple[bool, str]:
    """Creates `venv` and installs `package` unless `module` already imports there."""
    python = venv_python(venv)
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    probe = subprocess.run([str(python), "-c", f"import {module}"], capture_output=True, text=True)
    if probe.returncode == 0:
        return True, "already installed"
    print(f"installing {package} into {venv} (log: {log})", file=sys.stderr)
    with open(log, "w") as out:
        install = subprocess.run([str(python), "-m", "pip", "install", package], stdout=out, stderr=out)
    probe = subprocess.run([str(python), "-c", f"import {module}"], capture_output=True, text=True)
    if probe.returncode == 0:
        return True, "installed"
    tail = log.read_text(errors="replace").strip().splitlines()[-3:] + probe.stderr.strip().splitlines()[-2:]
    return False, f"pip exited {install.returncode}; " + " | ".join(tail)


def tool_version(tool: Tool, root: Path) -> str:
    tool.start(root)
    try:
        answer, _ = tool.send({"op": "version"})
    finally:
        tool.stop()
    return f"{answer['package']} {answer['version']} (Python {answer['python']})"


# ---------------------------------------------------------------------------------------------
# Reporting


def median_ms(values: list[float]) -> float | None:
    return statistics.median(values) * 1e3 if values else None


def edit_table(results: dict[str, list[EditResult]], tools: list[str]) -> list[str]:
    categories: list[str] = []
    for result in results[tools[0]]:
        if result.case.category not in categories:
            categories.append(result.case.category)
    columns = ["correct", "wrong", "false_refusal", "correct_refusal"]
    if any(r.outcome == "allowed_refusal" for t in tools for r in results[t]):
        columns.append("allowed_refusal")
    has_unsupported = any(r.outcome == "unsupported" for t in tools for r in results[t])
    if has_unsupported:
        columns.append("unsupported")
    head = ["category", "cases", "expected", "tool"] + [OUTCOME_TITLES[c] for c in columns]
    rows = [head, ["---"] * 3 + ["---"] + ["---:"] * len(columns)]
    common = "all but " + ", ".join(EDITKIT_SPECIFIC)
    for category in categories + ["all", common]:
        for tool_idx, tool in enumerate(tools):
            chosen = [r for r in results[tool] if category == "all" or r.case.category == category
                      or (category == common and r.case.category not in EDITKIT_SPECIFIC)]
            counts = {c: sum(1 for r in chosen if r.outcome == c) for c in columns}
            n_edit = sum(1 for r in chosen if r.case.after is not None)
            expected = (f"{n_edit} edit" + (f", {len(chosen) - n_edit} refuse" if len(chosen) > n_edit else "")
                        if n_edit else f"{len(chosen)} refuse")
            first = tool_idx == 0
            label = f"**{category}**" if category in ("all", common) else category
            rows.append([label if first else "", str(len(chosen)) if first else "", expected if first else "",
                         tool] + [str(counts[c]) if counts[c] else "·" for c in columns])
    return markdown_rows(rows)


def markdown_rows(rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(row) + " |" for row in rows]


def timing_table(timings: dict[str, dict[str, list[float]]], tools: list[str]) -> list[str]:
    head = ["files", "edits timed"] + [f"{t} median" for t in tools] + [f"{t} / editkit" for t in tools[1:]]
    rows = [head, ["---"] + ["---:"] * (len(head) - 1)]
    for label in timings[tools[0]]:
        base = median_ms(timings[tools[0]][label])
        row = [label, str(len(timings[tools[0]][label]))]
        medians = [median_ms(timings[t].get(label, [])) for t in tools]
        row += [f"{m:.2f} ms" if m is not None else "n/a" for m in medians]
        row += [f"{m / base:.2f}×" if m is not None and base else "n/a" for m in medians[1:]]
        rows.append(row)
    return markdown_rows(rows)


def patch_table(results: dict[str, list[PatchResult]], tools: list[str]) -> list[str]:
    categories: list[str] = []
    for result in results[tools[0]]:
        if result.case.category not in categories:
            categories.append(result.case.category)
    head = (["scenario", "cases"] + [f"{t}: right" for t in tools]
            + [f"{t}: refused yet changed files" for t in tools])
    rows = [head, ["---"] + ["---:"] * (len(head) - 1)]
    for category in categories:
        row = [category]
        per = {t: [r for r in results[t] if r.case.category == category] for t in tools}
        row.append(str(len(per[tools[0]])))
        for t in tools:
            right = sum(1 for r in per[t] if r.outcome in ("correct", "correct_refusal"))
            row.append(f"{right}/{len(per[t])}")
        for t in tools:
            row.append(str(sum(1 for r in per[t] if r.partial)) if any(r.case.after is None for r in per[t]) else "–")
        rows.append(row)
    return markdown_rows(rows)


def failures(results: dict[str, list], tools: list[str]) -> list[str]:
    """Per tool and category: how many went wrong, with one example and what the tool said."""
    out = []
    for tool in tools:
        bad = [r for r in results[tool] if r.outcome in ("wrong", "false_refusal")]
        if not bad:
            out.append(f"- **{tool}**: none")
            continue
        out.append(f"- **{tool}** ({len(bad)}):")
        groups: dict[tuple[str, str], list] = {}
        for r in bad:
            groups.setdefault((r.case.category, r.outcome), []).append(r)
        for (category, outcome), members in groups.items():
            example = members[0]
            said = "said ok" if example.said_ok else "refused"
            message = " ".join(example.message.split())[:100]
            out.append(f"  - {category}: {len(members)} {OUTCOME_TITLES[outcome].rstrip('s')}"
                       f"{'s' if len(members) > 1 else ''}; e.g. `{example.case.name}`, {said}: {message}")
    return out


# ---------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--editkit", required=True, type=Path, help="the editkit binary (release build)")
    parser.add_argument("--out", type=Path, default=REPO / "target" / "compare", help="results folder")
    parser.add_argument("--venv", type=Path, default=REPO / "target" / "compare-venv",
                        help="virtualenv for praisonaiagents (aider gets <venv>-aider: their pins conflict)")
    parser.add_argument("--no-aider", action="store_true", help="leave Aider out")
    parser.add_argument("--drift-per-kind", type=int, default=12, help="generated cases per drift kind")
    parser.add_argument("--patch-per-kind", type=int, default=5, help="generated patch scenarios per kind")
    parser.add_argument("--big-lines", type=int, default=50_000, help="lines in the large-file timing case")
    parser.add_argument("--big-reps", type=int, default=9, help="large-file edits per kind and tool")
    parser.add_argument("--seed", type=int, default=9)
    options = parser.parse_args()

    out = options.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    editkit_bin = options.editkit.resolve()
    started = datetime.datetime.now(datetime.timezone.utc)
    load = os.getloadavg()[0]

    # Tools and versions.
    versions = {}
    editkit_version = subprocess.run([str(editkit_bin), "--version"], capture_output=True, text=True)
    git_rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO)
    versions["editkit"] = f"{editkit_version.stdout.strip()} (git {git_rev.stdout.strip() or '?'}, working tree)"
    tools: dict[str, Tool] = {"editkit": Editkit("editkit", [str(editkit_bin), "call", "--root", "{root}", "--jsonl"])}
    notes = []
    worker = str(HERE / "incumbent.py")
    ok, how = ensure_venv(options.venv, "praisonaiagents", "praisonaiagents.tools.edit_tools", out / "pip-praisonai.log")
    if not ok:
        print(f"praisonaiagents did not install: {how}", file=sys.stderr)
        return 1
    tools["praisonai"] = Tool("praisonai", [str(venv_python(options.venv)), worker, "praisonai", "{root}"])
    if options.no_aider:
        notes.append("Aider left out (--no-aider).")
    else:
        aider_venv = options.venv.with_name(options.venv.name + "-aider")
        ok, how = ensure_venv(aider_venv, "aider-chat", "aider.coders.editblock_coder", out / "pip-aider.log")
        if ok:
            tools["aider"] = Tool("aider", [str(venv_python(aider_venv)), worker, "aider", "{root}"])
        else:
            notes.append(f"Aider left out: `pip install aider-chat` failed here ({how}).")
    scratch = out / "work"
    scratch.mkdir(parents=True, exist_ok=True)
    for name, tool in tools.items():
        if name != "editkit":
            versions[name] = tool_version(tool, scratch)
    names = list(tools)

    # Edits: corpus + drift set, on small files.
    corpus = load_corpus(REPO / "fixtures" / "edits")
    drift = drift_set(options.drift_per_kind, options.seed)
    drift_dir = out / "drift"
    shutil.rmtree(drift_dir, ignore_errors=True)
    for case in drift:
        folder = drift_dir / case.name.split(" ")[0]
        folder.mkdir(parents=True)
        (folder / "before").write_bytes(case.before)
        (folder / "old").write_text(case.old, "utf-8")
        (folder / "new").write_text(case.new, "utf-8")
        (folder / "source").write_text(case.name.split(" ", 1)[1] + "\n")
        if case.after is not None:
            (folder / "after").write_bytes(case.after)
        else:
            (folder / "error").write_text(f"{case.refusal}\n")
    print(f"{len(corpus)} corpus cases, {len(drift)} drift cases", file=sys.stderr)
    print("edits: " + ", ".join(tools), file=sys.stderr)
    edit_results = run_edits(tools, corpus + drift, scratch / "edits", ".txt")

    # editkit again with dry_run: the same matching and diff, no write, no fsync, no undo copy.
    dry_tool = Editkit("editkit-dry-run", tools["editkit"].argv)
    dry_tool.dry_run = True
    dry = run_edits({"editkit-dry-run": dry_tool}, corpus + drift, scratch / "edits", ".txt")["editkit-dry-run"]

    # Large files.
    big = big_cases(options.big_lines, options.big_reps)
    print(f"{options.big_lines}-line files: " + ", ".join(tools), file=sys.stderr)
    big_results = run_edits(tools, big, scratch / "big", ".txt", keep=False)
    shutil.rmtree(scratch / "big", ignore_errors=True)

    # The cases every tool edited correctly: the same work for all, so the fairest row.
    all_correct = [all(edit_results[n][i].outcome == "correct" for n in names) for i in range(len(corpus + drift))]
    timings: dict[str, dict[str, list[float]]] = {}
    for name in names:
        small = [r.seconds for r in edit_results[name] if r.outcome != "unsupported"]
        small_edits = [r.seconds for r, ok in zip(edit_results[name], all_correct) if ok]
        timings[name] = {
            "small (corpus + drift), every call each tool supports": small,
            "small, the cases every tool edited correctly": small_edits,
        }
        for kind in ("exact", "drifted (column 0)", "not found"):
            timings[name][f"{options.big_lines:,}-line file, {kind}"] = [
                r.seconds for r in big_results[name] if r.case.category == kind]

    # Patches: editkit vs PraisonAI.
    patch_cases = load_patch_corpus(REPO / "fixtures" / "patches") + patch_scenarios(options.patch_per_kind, options.seed)
    patch_tools = [n for n in names if n in ("editkit", "praisonai")]
    patch_results: dict[str, list[PatchResult]] = {}
    for name in patch_tools:
        print(f"patches: {name}", file=sys.stderr)
        dialect = praisonai_dialect if name == "praisonai" else (lambda p: p)
        patch_results[name] = run_patches(tools[name], patch_cases, scratch / "patches" / name, dialect)

    # Report.
    finished = datetime.datetime.now(datetime.timezone.utc)
    big_ok = {n: sum(1 for r in big_results[n] if r.outcome in ("correct", "correct_refusal")) for n in names}
    lines = [
        "# editkit head-to-head comparison",
        "",
        f"Run {started:%Y-%m-%d %H:%M} UTC on {platform.system()} {platform.machine()}, "
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load average {load:.1f} at the start "
        "(times are medians on a shared machine; compare ratios, not absolute values); regenerate with `cargo xtask compare` "
        f"(or `python3 xtask/compare/compare.py --editkit target/release/editkit`).",
        "",
        "Tools:",
        *[f"- {name}: {versions[name]}" for name in names],
        *[f"- {note}" for note in notes],
        "",
        "Judging: every tool edits the same bytes under the same file name with the same old/new "
        "strings; the outcome is read from the file left on disk, compared byte for byte with the "
        "expected file. *Correct refusal* = the case expects a refusal and the file is unchanged; "
        "*false refusal* = an edit was expected and the file is unchanged; *wrong* = the file "
        "changed but differs from the expected file (or changed where a refusal was expected).",
        "",
        "Bias to keep in mind: fixtures/edits was written by the editkit team alongside its matcher, "
        "so some groups encode editkit policy (`already-applied`: refuse a retried edit whose new "
        "text is already there; `escape`: unescape `\\n`-escaped text; `hand-written`); the last "
        "total row leaves them out. Where the agent's text is indented differently from the file "
        "(line-trimmed, indentation, tabs, dedent, indent-deeper), the expected file has the new "
        "text at the file's own indentation and indentation style; splicing it verbatim counts as "
        "wrong. The generated drift set and patch scenarios come from CPython's stdlib on this "
        "machine, not from editkit's tests.",
        "",
        f"## Edits: {len(corpus)} corpus cases (fixtures/edits) + {len(drift)} generated drift cases",
        "",
        *edit_table(edit_results, names),
        "",
        "## Median time per edit (one long-lived process per tool, JSON-lines round trip timed "
        "by the driver the same way for every tool)",
        "",
        *timing_table(timings, names),
        "",
        "What each time includes: editkit writes atomically (temp file, fsync, rename, directory "
        "fsync) and keeps an undo copy of the previous content; the incumbents write in place with "
        "no fsync and keep no undo copy. editkit with `dry_run` "
        "(same matching and diff, nothing written): median "
        f"{median_ms([r.seconds for r in dry]):.2f} ms a call on the small files. "
        "No tool ran an external checker (see the bridges in xtask/compare/README.md).",
        "",
        "Large-file outcomes right: " + ", ".join(f"{n} {big_ok[n]}/{len(big_results[n])}" for n in names) + ".",
        "",
        "## Multi-file patches: editkit vs PraisonAI apply_patch",
        "",
        *patch_table(patch_results, patch_tools),
        "",
        "## Wrong edits and false refusals, by category (every case: target/compare/results.json)",
        "",
        *failures(edit_results, names),
        "",
        "### Patches",
        "",
        *failures(patch_results, patch_tools),
        "",
        f"Finished {finished:%H:%M:%S} UTC. Raw per-case results: target/compare/results.json; "
        "generated drift cases: target/compare/drift/.",
    ]
    report = "\n".join(lines) + "\n"
    (out / "report.md").write_text(report)
    raw = {
        "versions": versions, "notes": notes, "started": started.isoformat(),
        "edits": {n: [{"case": r.case.name, "category": r.case.category, "outcome": r.outcome,
                       "said_ok": r.said_ok, "ms": r.seconds * 1e3, "message": r.message}
                      for r in edit_results[n]] for n in names},
        "big": {n: [{"case": r.case.name, "outcome": r.outcome, "ms": r.seconds * 1e3}
                    for r in big_results[n]] for n in names},
        "patches": {n: [{"case": r.case.name, "category": r.case.category, "outcome": r.outcome,
                         "said_ok": r.said_ok, "partial": r.partial, "message": r.message}
                        for r in patch_results[n]] for n in patch_tools},
    }
    (out / "results.json").write_text(json.dumps(raw, indent=1))
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
