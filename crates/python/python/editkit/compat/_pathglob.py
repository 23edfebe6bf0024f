"""``pathlib.Path.glob`` over a toolkit, for the adapters of tools that list files with it.

pathlib follows a link to a folder where a pattern's own segment (a name or a wildcard) takes
it, but not where ``**`` meets it; the toolkit's walk never enters a linked folder. So the
segments before the first ``**`` are matched here, folder by folder (``list_dir`` follows a link
inside the root, and nothing leads outside it), and the rest is the toolkit's ``glob`` under each
folder reached, its paths spelt through the links that reached them.
"""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Mapping
from typing import Any, Callable

Call = Callable[[str, Mapping[str, Any]], Mapping[str, Any]]

#: Options of every ``glob`` call: pathlib takes dot names, ignored files and linked files.
_WALK = {"hidden": True, "ignore_rules": False, "follow_links": True}


def path_glob(call: Call, directory: str, pattern: str, bound: int) -> tuple[list[str], bool] | None:
    """The files ``Path(directory).glob(pattern)`` yields, relative to the root (the folder's
    canonical path, then the names the pattern went through), sorted, and whether the list was
    cut at ``bound``; ``None`` when ``directory`` is not a folder that can be listed or the
    pattern is one the toolkit's ``glob`` refuses."""
    listing = call("list_dir", {"path": directory})
    if not listing.get("ok"):
        return None
    base = str(listing.get("path") or "")
    segments = [segment for segment in pattern.split("/") if segment not in ("", ".")]
    if not segments:
        return None
    frontier = [(base, base)]  # (the path as pathlib spells it, the folder's path in the toolkit)
    found: set[str] = set()
    truncated = False
    for index, segment in enumerate(segments):
        if segment == "**":
            tail = "/".join(segments[index:])
            for shown, reached in frontier:
                # The toolkit answers canonical paths: those under the folder's own.
                info = call("file_info", {"path": reached or "."})
                real = str(info.get("path") or "") if info.get("ok") else reached
                answer = call("glob", {"pattern": tail, "path": reached or ".", **_WALK})
                if not answer.get("ok"):
                    if (answer.get("error") or {}).get("kind") == "invalid_args":
                        return None  # a pattern the toolkit refuses: the caller says so
                    continue
                truncated = truncated or bool(answer.get("truncated"))
                for match in answer.get("matches") or ():
                    rest = str(match)[len(real) + 1 :] if real else str(match)
                    found.add(posixpath.join(shown, rest) if shown else rest)
            frontier = []
            break
        last = index == len(segments) - 1
        reached = []
        for shown, real in frontier:
            answer = call("list_dir", {"path": real or "."})
            if not answer.get("ok"):
                continue
            truncated = truncated or bool(answer.get("truncated"))
            canonical = str(answer.get("path") or "")
            for entry in answer.get("entries") or ():
                name = str(entry).rstrip("/")
                if not fnmatch.fnmatchcase(name, segment):
                    continue
                spelt = posixpath.join(shown, name) if shown else name
                if str(entry).endswith("/"):
                    if not last:
                        reached.append((spelt, posixpath.join(canonical, name) if canonical else name))
                elif last:
                    found.add(spelt)
        frontier = reached
        if len(found) + len(frontier) > bound:
            truncated = True
            break
    listed = sorted(found)
    return listed[:bound], truncated or len(listed) > bound
