#!/usr/bin/env python3
"""Generates fixtures/multi-edits/, fixtures/snippets/ and fixtures/outside-changes/ from the real
code in fixtures/code/.

Run from the repository root: python3 crates/toolkit/tests/gen_agent_edit_corpus.py
Deterministic (seeded); rerunning rewrites the same folders.

Each case is a folder: `before` (the file's bytes), `args.json` (the tool's arguments, with the
`path` the file is written to), then `after` (the file's expected bytes) or `error` (the
expected error kind word). The expected `after` is built here on the file's own lines,
independently of editkit; the agent's text carries the drift each group names.
`crates/toolkit/tests/it/agent_corpus.rs` walks both folders.
"""
import json
import os
import random
import re
import shutil

ROOT = os.getcwd()
CODE = os.path.join(ROOT, "fixtures/code")
MULTI = os.path.join(ROOT, "fixtures/multi-edits")
SNIPPETS = os.path.join(ROOT, "fixtures/snippets")
OUTSIDE = os.path.join(ROOT, "fixtures/outside-changes")
rng = random.Random(36)

CHANGED = {"py": "  # editkit: changed", "ts": "  // editkit: changed", "tsx": "  // editkit: changed"}


def key(line):
    return " ".join(line.split())


def sources():
    out = []
    for sub, exts in [("python", (".py",)), ("typescript", (".ts", ".tsx"))]:
        for dirpath, _, files in os.walk(os.path.join(CODE, sub)):
            for name in sorted(files):
                if name.endswith(exts):
                    out.append(os.path.join(dirpath, name))
    return sorted(out)


def lang_of(path):
    return "py" if path.endswith(".py") else "tsx" if path.endswith(".tsx") else "ts"


def load(path):
    text = open(path, encoding="utf-8").read()
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def unique_lines(lines):
    counts = {}
    for line in lines:
        counts[key(line)] = counts.get(key(line), 0) + 1
    return [
        i for i, line in enumerate(lines)
        if len(line.strip()) >= 8 and counts[key(line)] == 1 and "\t" not in line and "\\" not in line
        and "..." not in line and "…" not in line and not line.strip().startswith(("#", "//", "/*", "*", "{/*"))
        and not line.rstrip().endswith("\r")
    ]


def runs(lines, size):
    """Starts of runs of `size` consecutive unique substantial lines."""
    good = set(unique_lines(lines))
    return [s for s in range(len(lines) - size + 1) if all(s + k in good for k in range(size))]


def disjoint(starts, count, size, gap):
    """`count` starts from `starts` whose runs of `size` lie at least `gap` lines apart."""
    pool = list(starts)
    rng.shuffle(pool)
    chosen = []
    for s in pool:
        if all(abs(s - c) >= size + gap for c in chosen):
            chosen.append(s)
        if len(chosen) == count:
            return sorted(chosen)
    return None


def encode(lines, crlf=False, bom=False):
    text = ("\r\n" if crlf else "\n").join(lines) + ("\r\n" if crlf else "\n")
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")


def write_case(root, name, before, args, after=None, error=None):
    folder = os.path.join(root, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    open(os.path.join(folder, "before"), "wb").write(before)
    open(os.path.join(folder, "args.json"), "w", encoding="utf-8").write(json.dumps(args, indent=1, ensure_ascii=False) + "\n")
    if after is not None:
        open(os.path.join(folder, "after"), "wb").write(after)
    if error is not None:
        open(os.path.join(folder, "error"), "w").write(error + "\n")


def dedent(block):
    code = [l for l in block if l.strip()]
    cut = min(len(l) - len(l.lstrip(" ")) for l in code) if code else 0
    return [l[cut:] if l.strip() else "" for l in block]


def target_name(lang):
    return {"py": "target.py", "ts": "target.ts", "tsx": "target.tsx"}[lang]


# ---------------------------------------------------------------------------------------------
# Several edits in one call


def multi_edit_groups(files):
    counts = {}
    groups = [("clean", 12), ("drift", 14), ("crlf-bom", 8), ("overlap", 8), ("ambiguous", 8), ("absent", 8)]
    for group, n in groups:
        made = 0
        tries = 0
        while made < n and tries < 500:
            tries += 1
            path = rng.choice(files)
            lang = lang_of(path)
            lines = load(path)
            k = rng.randint(2, 5)
            size = rng.randint(1, 3)
            starts = disjoint(runs(lines, size), k, size, 2)
            if starts is None:
                continue
            drift = group in ("drift", "crlf-bom")
            edits, after = [], list(lines)
            for s in starts:
                block = lines[s:s + size]
                changed = block[:-1] + [block[-1] + CHANGED[lang]]
                after[s + size - 1] = changed[-1]
                old, new = block, changed
                if drift:
                    style = rng.choice(["dedent", "trailing", "doubled", "dedent"])
                    if style == "dedent":
                        old, new = dedent(block), dedent(changed)
                    elif style == "trailing":
                        old = [l + "  " for l in block]
                    else:
                        old = [re.sub(r"(\S) (\S)", r"\1  \2", l, count=1) for l in block]
                edits.append({"old_string": "\n".join(old), "new_string": "\n".join(new)})
            text = "\n".join(lines)
            # An old text that stands in the file also inside another line is ambiguous on the
            # exact rung: such a pick is left out, so every member is placeable alone.
            if any(text.count(e["old_string"]) > 1 for e in edits):
                continue
            crlf = bom = False
            if group == "crlf-bom":
                crlf, bom = rng.choice([(True, False), (False, True), (True, True)])
            error = None
            if group == "overlap":
                # A second edit over the first one's last line and the line after it.
                s = starts[0]
                if s + size >= len(lines) or not lines[s + size].strip():
                    continue
                extra = lines[s + size - 1:s + size + 1]
                if text.count("\n".join(extra)) != 1:
                    continue
                edits.append({"old_string": "\n".join(extra), "new_string": "\n".join(extra) + "\n" + "x = 0"})
                error = "invalid_args"
            elif group == "ambiguous":
                counts_by_key = {}
                for line in lines:
                    counts_by_key[key(line)] = counts_by_key.get(key(line), 0) + 1
                repeated = [l for l in lines if len(l.strip()) >= 8 and counts_by_key[key(l)] >= 2 and "\\" not in l]
                if not repeated:
                    continue
                edits.append({"old_string": rng.choice(repeated).strip(), "new_string": "changed()"})
                error = "ambiguous"
            elif group == "absent":
                other = load(rng.choice([f for f in files if f != path]))
                keys = set(key(l) for l in lines)
                candidates = [i for i in unique_lines(other) if key(other[i]) not in keys
                              and i + 1 < len(other) and other[i + 1].strip() and key(other[i + 1]) not in keys]
                if not candidates:
                    continue
                i = rng.choice(candidates)
                edits.append({"old_string": "\n".join(other[i:i + 2]), "new_string": "changed()"})
                error = "not_found"
            rng.shuffle(edits)
            made += 1
            name = f"{group}-{made:03d}"
            args = {"path": target_name(lang), "edits": edits}
            before = encode(lines, crlf, bom)
            if error:
                write_case(MULTI, name, before, args, error=error)
            else:
                write_case(MULTI, name, before, args, after=encode(after, crlf, bom))
            counts[name] = os.path.relpath(path, CODE)
    return counts


# ---------------------------------------------------------------------------------------------
# Lazy snippets

MARKERS = {
    "py": ["# ... existing code ...", "# ...", "# … rest of the file …"],
    "ts": ["// ... existing code ...", "// ...", "/* ... */", "// … rest …"],
    "tsx": ["// ... existing code ...", "{/* ... existing code ... */}", "/* … */"],
}


def new_line(lang, indent, n):
    if lang == "py":
        return f"{indent}_editkit_added_{n} = {n}"
    return f"{indent}const editkitAdded{n} = {n};"


def indent_of(line):
    return line[: len(line) - len(line.lstrip())]


def snippet_groups(files):
    counts = {}
    groups = [
        ("insert", 14), ("replace", 14), ("indent", 10), ("edges", 10), ("crlf-bom", 6),
        ("missing-marker", 10), ("missing-marker-allow", 10), ("twins", 8), ("absent", 8),
        ("edge-change", 8), ("reordered", 8),
    ]
    for group, n in groups:
        made = 0
        tries = 0
        while made < n and tries < 1000:
            tries += 1
            path = rng.choice(files)
            lang = lang_of(path)
            lines = load(path)
            regions = rng.randint(1, 3) if group in ("insert", "replace", "indent", "crlf-bom") else 1
            if group.startswith("missing-marker") or group == "reordered":
                regions = 2
            starts = disjoint(runs(lines, 3), regions, 3, 3)
            if starts is None:
                continue
            marker = rng.choice(MARKERS[lang])
            chunks, after, options, error = [], list(lines), {}, None
            # Edits on `after` are made from the last region up, so indices hold.
            edits = []
            for r, s in enumerate(starts):
                a, b, c = lines[s:s + 3]
                if group == "replace" or (group in ("indent", "crlf-bom") and r % 2 == 1):
                    changed = b + CHANGED[lang]
                    chunk = [a, changed, c]
                    edits.append((s + 1, s + 2, [changed]))
                else:
                    added = new_line(lang, indent_of(b) if b.strip() else indent_of(c), r + 1)
                    chunk = [a, b, added, c]
                    edits.append((s + 2, s + 2, [added]))
                if group == "indent":
                    chunk = dedent(chunk)
                chunks.append(chunk)
            if group == "edges":
                # A new first line of the file, or a new last line.
                if rng.random() < 0.5:
                    if not lines[0].strip() or lines[0] in lines[1:] or not lines[1].strip():
                        continue
                    if key(lines[0]) not in set(key(lines[i]) for i in unique_lines(lines)):
                        continue
                    added = new_line(lang, "", 1) if lang != "py" else "_editkit_first = 1"
                    chunks = [[added, lines[0], lines[1]]]
                    edits = [(0, 0, [added])]
                else:
                    last = len(lines) - 1
                    if last < 2 or key(lines[last]) not in set(key(lines[i]) for i in unique_lines(lines)):
                        continue
                    if key(lines[last - 1]) not in set(key(lines[i]) for i in unique_lines(lines)):
                        continue
                    added = "_editkit_last = 1" if lang == "py" else "export const editkitLast = 1;"
                    chunks = [[lines[last - 1], lines[last], added]]
                    edits = [(last + 1, last + 1, [added])]
            if group.startswith("missing-marker"):
                # The two regions in one chunk, the lines between them left out without a marker.
                (s1, s2) = starts
                if not any(l.strip() for l in lines[s1 + 3:s2]):
                    continue
                chunks = [chunks[0] + chunks[1]]
                if group == "missing-marker":
                    error = "not_found"
                else:
                    options["deletions"] = "allow"
                    edits.insert(1, (s1 + 3, s2, []))
            if group == "edge-change":
                # The chunk's last line changed, with no line of the file beyond it: inserted
                # after it or replacing it, either would be a guess.
                s = starts[0]
                if s + 3 >= len(lines) or not lines[s + 3].strip():
                    continue
                a, b, c = lines[s:s + 3]
                chunks = [[a, b, c + CHANGED[lang]]]
                error = "ambiguous"
            if group == "reordered":
                # Two chunks in the opposite order of the file's.
                chunks = [chunks[1], chunks[0]]
                error = "not_found"
            if group == "twins":
                # The file holds the region twice (pasted again at the end).
                s = starts[0]
                lines = lines + ["", ""] + lines[s:s + 3]
                error = "ambiguous"
            if group == "absent":
                other = load(rng.choice([f for f in files if f != path and lang_of(f) == lang]))
                keys = set(key(l) for l in lines)
                good = [s for s in runs(other, 3) if all(key(l) not in keys for l in other[s:s + 3])]
                if not good:
                    continue
                s = rng.choice(good)
                chunks = [[other[s], other[s + 1], new_line(lang, indent_of(other[s + 1]), 9), other[s + 2]]]
                error = "not_found"
            for first, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
                after[first:end] = new
            # Markers: between every two chunks; before the first and after the last one unless
            # the chunk touches that end of the file (and sometimes left out anyway).
            body = []
            first_line = starts[0] if group != "edges" else (0 if edits[0][0] == 0 else len(lines) - 2)
            if first_line > 0 and rng.random() < 0.8:
                body.append(marker)
            for k, chunk in enumerate(chunks):
                if k:
                    body.append(marker)
                body.extend(chunk)
            if not (group == "edges" and edits[0][0] != 0) and rng.random() < 0.8:
                body.append(marker)
            crlf = bom = False
            if group == "crlf-bom":
                crlf, bom = rng.choice([(True, False), (False, True), (True, True)])
            args = {"path": target_name(lang), "snippet": "\n".join(body) + "\n", **options}
            made += 1
            name = f"{group}-{made:03d}"
            before = encode(lines, crlf, bom)
            if error:
                write_case(SNIPPETS, name, before, args, error=error)
            else:
                write_case(SNIPPETS, name, before, args, after=encode(after, crlf, bom))
            counts[name] = os.path.relpath(path, CODE)
    return counts


# ---------------------------------------------------------------------------------------------
# Snippets only the syntax tree places: a method whose body stands twice in the file (a copy
# of it in another class), the snippet naming its class. Its own generator, so the groups
# above keep their cases.

syntax_rng = random.Random(3602)
PY_CLASS = re.compile(r"^class (\w+)\b.*:\s*$")
PY_METHOD = re.compile(r"^    (async )?def (\w+)\(.*\).*:\s*$")
TS_CLASS = re.compile(r"^(export )?(default )?(abstract )?class (\w+)\b.*\{\s*$")
TS_METHOD = re.compile(
    r"^  (?:(?:public|private|protected|static|async|override|readonly) +)*(#?\w+) *(<[^>]*>)? *\(.*\) *(: *[^={]+)? *\{\s*$"
)
TS_MARKERS = ["// ... existing code ...", "// ...", "/* ... */", "// … rest …"]


def balanced(line):
    return all(line.count(a) == line.count(b) for a, b in ("()", "[]", "{}")) and "`" not in line


def ts_statement(line, opens=False):
    """Whether `line` is a whole statement (or, with `opens`, ends where one may follow)."""
    text = line.strip()
    if opens and (not text or text.endswith("{")):
        return True
    return (bool(text) and balanced(text) and not text.startswith((".", "?", ":", "|", "&", "+", "-", "*", "}", "//", "/*"))
            and (text[-1].isalnum() or text[-1] in ")];'\"_"))


def class_methods(lines, lang):
    """(class header, class end, method header, method end) of every method directly in a
    top-level class, ends inclusive (Python: the last non-blank line of the body)."""
    out = []
    for c, line in enumerate(lines):
        if lang == "py":
            if not PY_CLASS.match(line):
                continue
            end = next((i for i in range(c + 1, len(lines)) if lines[i].strip() and not lines[i][0].isspace()), len(lines))
            while end > c + 1 and not lines[end - 1].strip():
                end -= 1
            end -= 1
            for m in range(c + 1, end + 1):
                if PY_METHOD.match(lines[m]):
                    stop = next((i for i in range(m + 1, end + 1) if lines[i].strip() and len(indent_of(lines[i])) <= 4), end + 1)
                    last = stop - 1
                    while last > m and not lines[last].strip():
                        last -= 1
                    out.append((c, end, m, last))
        else:
            if not TS_CLASS.match(line):
                continue
            end = next((i for i in range(c + 1, len(lines)) if lines[i] == "}"), None)
            if end is None:
                continue
            for m in range(c + 1, end):
                head = TS_METHOD.match(lines[m])
                if head and head.group(1) not in ("if", "for", "while", "switch", "catch", "return"):
                    last = next((i for i in range(m + 1, end) if lines[i] == "  }"), None)
                    if last is not None:
                        out.append((c, end, m, last))
    return out


def syntax_groups(files):
    counts = {}
    made = 0
    tries = 0
    used = set()
    while made < 16 and tries < 2000:
        tries += 1
        lang_wanted = "py" if made < 8 else "ts"
        path = syntax_rng.choice([f for f in files if lang_of(f) == lang_wanted])
        lang = lang_of(path)
        lines = load(path)
        methods = class_methods(lines, lang)
        if not methods:
            continue
        c, end, m, last = syntax_rng.choice(methods)
        good = set(unique_lines(lines))
        body_indent = None
        regions = []
        for s in range(m + 1, last - 1):
            trio = lines[s:s + 3]
            if s + 2 > last or not all(s + k in good for k in range(3)):
                continue
            if len(set(indent_of(l) for l in trio)) != 1 or not all(balanced(l) for l in trio):
                continue
            if lang == "py" and any(l.rstrip().endswith(":") or l.lstrip().startswith(("else", "elif", "except", "finally", "@")) for l in trio):
                continue
            if lang != "py" and not (all(ts_statement(l) for l in trio) and ts_statement(lines[s - 1], opens=True)):
                continue
            regions.append(s)
        if not regions or key(lines[c]) not in set(key(lines[i]) for i in good):
            continue
        s = syntax_rng.choice(regions)
        if (path, m) in used:
            continue
        used.add((path, m))
        a, b, cc = lines[s:s + 3]
        added = new_line(lang, indent_of(b), 1)
        comment = "#" if lang == "py" else None
        marker = syntax_rng.choice(MARKERS["py"] if lang == "py" else TS_MARKERS)
        inner = indent_of(a)
        body = []
        if c > 0:
            body.append(marker)
        body += [lines[c], ("    " if lang == "py" else "  ") + marker, lines[m]]
        if s > m + 1:
            body.append(inner + marker)
        body += [a, b, added, cc]
        if s + 2 < last:
            body.append(inner + marker)
        if lang != "py":
            body.append("  }")
        body.append(("    " if lang == "py" else "  ") + marker)
        if lang != "py":
            body.append("}")
        body.append(marker)
        snippet = "\n".join(body) + "\n"
        if lang == "py":
            try:
                compile(snippet, "snippet", "exec")
                compile("\n".join(lines) + "\n", "file", "exec")
            except SyntaxError:
                continue
        method = lines[m:last + 1]
        twin = ["", "", "class EditkitTwin:"] + method if lang == "py" else ["", "class EditkitTwin {"] + method + ["}"]
        before = lines + twin
        after = lines[:s + 2] + [added] + lines[s + 2:] + twin
        made += 1
        name = f"named-twins-{made:03d}"
        write_case(SNIPPETS, name, encode(before), {"path": target_name(lang), "snippet": snippet}, after=encode(after))
        counts[name] = os.path.relpath(path, CODE) + f":{lines[m].strip()}"
    return counts


# ---------------------------------------------------------------------------------------------
# Changes made outside between the read and the edit


def outside_change(lines, at, kind, lang):
    """`lines` with line `at` changed, a line inserted before it, or it deleted."""
    out = list(lines)
    if kind == "change":
        out[at] = out[at] + CHANGED[lang].replace("changed", "reformatted")
    elif kind == "insert":
        out.insert(at, indent_of(lines[at]) + ("# inserted outside" if lang == "py" else "// inserted outside"))
    else:
        del out[at]
    return out


def as_patch(path, blocks, lang, variant=None):
    """A `*** Begin Patch` text making the same change as the edits of `blocks`: one hunk per
    block (its lines as context, the last one changed), in file order; `variant` as in
    `outside_groups`."""
    out = ["*** Begin Patch", f"*** Update File: {path}"]
    if variant == "moved":
        out.append(f"*** Move to: moved_{path}")
    for k, b in enumerate(blocks):
        if variant == "twice" and k:
            out.append(f"*** Update File: {path}")
        out.append("@@")
        out.extend(" " + line for line in b[:-1])
        out.append("-" + b[-1])
        out.append("+" + b[-1] + CHANGED[lang])
    out.append("*** End Patch")
    return "\n".join(out) + "\n"


def outside_groups(files, groups=None, patch=False, variant=None, gen=None):
    """Outside-change cases for edit_file or, with `patch`, for apply_patch (groups named
    `patch-...`, the same change as a patch with one hunk per region). `variant` "moved": the
    patch also moves the file (`*** Move to:`, expected at `moved_to`); "twice": each region
    in an operation of its own, so two operations name the file (merged as one change)."""
    gen = gen or rng
    counts = {}
    if groups is None:
        groups = [("apart", 16), ("apart-multi", 8), ("adjacent", 12), ("overlapping", 12)]
    for group, n in groups:
        made = 0
        tries = 0
        while made < n and tries < 1000:
            tries += 1
            path = gen.choice(files)
            lang = lang_of(path)
            lines = load(path)
            k = 2 if group == "apart-multi" or variant == "twice" else 1
            size = gen.randint(1, 3)
            starts = disjoint(runs(lines, size), k, size, 8)
            if starts is None:
                continue
            text = "\n".join(lines)
            blocks = [lines[s:s + size] for s in starts]
            if any(text.count("\n".join(b)) != 1 for b in blocks):
                continue
            kind = gen.choice(["change", "insert", "delete"])
            s = starts[0]
            if group in ("apart", "apart-multi"):
                # At least 3 lines from every edited region, and not a blank line.
                far = [i for i in range(len(lines)) if lines[i].strip()
                       and all(i < t - 2 or i > t + size + 1 for t in starts)]
                if not far:
                    continue
                at = gen.choice(far)
            elif group == "adjacent":
                # The line just before or after the region changed or deleted, or a line put
                # between it and the region.
                before_region = gen.random() < 0.5
                if kind == "insert":
                    at = s if before_region else s + size
                else:
                    at = s - 1 if before_region else s + size
                if at < 0 or at >= len(lines) or (kind != "insert" and not lines[at].strip()):
                    continue
            else:
                at = s + gen.randrange(size)
                kind = "change" if kind == "insert" else kind
            outside = outside_change(lines, at, kind, lang)
            if outside == lines:
                continue
            edits = [{"old_string": "\n".join(b), "new_string": "\n".join(b[:-1] + [b[-1] + CHANGED[lang]])} for b in blocks]
            # The expected file: the outside change, then each region changed where it now stands.
            after = list(outside)
            error = None
            if group.startswith("apart"):
                for b in blocks:
                    joined = "\n".join(after)
                    if joined.count("\n".join(b)) != 1:
                        error = "skip"
                        break
                    idx = next(i for i in range(len(after)) if after[i:i + size] == b)
                    after[idx + size - 1] = b[-1] + CHANGED[lang]
                if error:
                    continue
            else:
                error = "stale"
            args = {"path": target_name(lang)}
            if patch:
                if any(line.startswith(("***", "@@")) for b in blocks for line in b):
                    continue
                order = sorted(range(len(blocks)), key=lambda i: starts[i])
                args["patch"] = as_patch(target_name(lang), [blocks[i] for i in order], lang, variant)
                if variant == "moved":
                    args["moved_to"] = "moved_" + target_name(lang)
            elif len(edits) == 1:
                args.update(edits[0])
            else:
                args["edits"] = edits
            made += 1
            name = f"{'patch-' if patch else ''}{variant + '-' if variant else ''}{group}-{made:03d}"
            write_case(OUTSIDE, name, encode(lines), args, after=None if error else encode(after), error=error)
            open(os.path.join(OUTSIDE, name, "outside"), "wb").write(encode(outside))
            counts[name] = os.path.relpath(path, CODE) + f":{kind}"
    return counts


def main():
    files = sources()
    for root in (MULTI, SNIPPETS, OUTSIDE):
        for entry in os.listdir(root) if os.path.isdir(root) else []:
            if os.path.isdir(os.path.join(root, entry)):
                shutil.rmtree(os.path.join(root, entry))
        os.makedirs(root, exist_ok=True)
    for root, counts in (
        (MULTI, multi_edit_groups(files)),
        (SNIPPETS, {**snippet_groups(files), **syntax_groups(files)}),
        (OUTSIDE, {**outside_groups(files), **outside_groups(
            files, [("apart", 16), ("apart-multi", 8), ("adjacent", 12), ("overlapping", 12)], patch=True),
            # Their own generator, so the groups above keep their cases.
            **outside_groups(files, [("apart", 10), ("adjacent", 6), ("overlapping", 6)], patch=True,
                             variant="moved", gen=random.Random(3603)),
            **outside_groups(files, [("apart-multi", 8), ("adjacent", 6), ("overlapping", 6)], patch=True,
                             variant="twice", gen=random.Random(3604))}),
    ):
        with open(os.path.join(root, "SOURCES.tsv"), "w", encoding="utf-8") as out:
            for name in sorted(counts):
                out.write(f"{name}\t{counts[name]}\n")
        print(root, len(counts))


if __name__ == "__main__":
    main()
