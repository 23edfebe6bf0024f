#!/usr/bin/env python3
"""Threads against a serial run (part of `cargo xtask bench python`): 8 threads each editing
their own file through one shared ``editkit.Toolkit``, against the same edits made one after the
other, in rounds that alternate which runs first. Each edit releases the GIL while it runs, so
the threaded run overlaps the edits' CPU work (on as many cores as the machine has) and their
fsyncs.

    python crates/python/bench/bench_threads.py [--rounds N] [--lines N] [--edits N]

Prints the median wall time of each and the ratio serial / threaded (above 1: threads finish
sooner). Standard library and editkit only.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

import editkit

THREADS = 8


def make_files(root: Path, lines: int) -> None:
    for n in range(THREADS):
        body = "".join(f"def function_{i}(value):\n    return value * {i}\n\n" for i in range(lines // 3))
        (root / f"module_{n}.py").write_text(body)


def edits_of(n: int, edits: int, round_: int) -> list[tuple[str, str, str]]:
    # Each round flips the sign of the same lines, so every edit changes the file.
    sign = "-" if round_ % 2 == 0 else ""
    old_sign = "" if round_ % 2 == 0 else "-"
    return [
        (f"module_{n}.py", f"    return value * {old_sign}{i}\n", f"    return value * {sign}{i}\n")
        for i in range(1, edits * 7, 7)
    ]


def run_serial(tk: editkit.Toolkit, work: list[list[tuple[str, str, str]]]) -> float:
    started = time.perf_counter()
    for edits in work:
        for path, old, new in edits:
            tk.edit_file(path, old, new)
    return time.perf_counter() - started


def run_threaded(tk: editkit.Toolkit, work: list[list[tuple[str, str, str]]]) -> float:
    errors: list[BaseException] = []

    def worker(edits: list[tuple[str, str, str]]) -> None:
        try:
            for path, old, new in edits:
                tk.edit_file(path, old, new)
        except BaseException as err:  # noqa: BLE001 (reported below)
            errors.append(err)

    threads = [threading.Thread(target=worker, args=(edits,)) for edits in work]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    if errors:
        raise errors[0]
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--lines", type=int, default=30_000, help="lines per file (default 30,000: about 1 MB)")
    parser.add_argument("--edits", type=int, default=10, help="edits per thread and round")
    options = parser.parse_args()

    print(f"{THREADS} threads x {options.edits} edits of their own ~{options.lines:,}-line file, "
          f"{options.rounds} rounds, {os.cpu_count()} cores")
    for durability in ("full", "atomic"):
        with tempfile.TemporaryDirectory(prefix="editkit-threads-") as folder:
            root = Path(folder)
            make_files(root, options.lines)
            tk = editkit.Toolkit(root, diagnostics="off", durability=durability)
            serial: list[float] = []
            threaded: list[float] = []
            for round_ in range(options.rounds * 2):
                work = [edits_of(n, options.edits, round_) for n in range(THREADS)]
                # Alternate which way runs first in each pair of rounds.
                if (round_ // 2 + round_) % 2 == 0:
                    serial.append(run_serial(tk, work))
                else:
                    threaded.append(run_threaded(tk, work))
            s, t = statistics.median(serial), statistics.median(threaded)
            print(f"durability {durability:<6}  serial {s * 1e3:8.1f} ms   threaded {t * 1e3:8.1f} ms   "
                  f"serial / threaded {s / t:5.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
