#!/usr/bin/env python3
"""Generate the shared edit corpus in fixtures/edits/ from real Python and TypeScript code.

Usage: gen_corpus.py PYTHON_STDLIB_DIR ZOD_PACKAGE_DIR OUT_DIR

Sources (credited in fixtures/edits/README.md):
- Python: the CPython 3.11 standard library (PSF License), e.g. `python3 -c 'import os;print(os.__file__)'`.
- TypeScript: zod 4.6.7 (MIT), `npm pack zod@4.6.7` unpacked; its `src/` holds the .ts sources.

Each case is a folder: `before`, `old`, `new`, then `after` (the expected text) and `rung` (the
rung expected to decide), or `error` (the expected error kind word); an empty `replace_all` file
asks for replace_all. The expected texts are built here independently of the matcher: the edit is
made on the file's own lines, and the agent's `old`/`new` are derived from it by the drift each
group simulates (dedent, trailing spaces, smart quotes, doubled spaces, blank lines dropped,
another indentation unit, tabs, literal escapes, a changed middle line...).
"""

import os
import random
import re
import shutil
import sys

MAX_LINE = 100
COMMENT = {"py": "# editkit: changed", "ts": "// editkit: changed"}
UNIT = {"py": 4, "ts": 2}


def ws_key(line):
    return " ".join(line.split())


def indent_len(line):
    return len(line) - len(line.lstrip(" "))


def is_blank(line):
    return line.strip() == ""


def exact_count(hay, needle):
    count, at = 0, hay.find(needle)
    while at != -1:
        count += 1
        at = hay.find(needle, at + 1)
    return count


def seq_count(hay_lines, needle_lines, key):
    keys = [key(line) for line in needle_lines]
    n = len(keys)
    return sum(
        1
        for i in range(len(hay_lines) - n + 1)
        if all(key(hay_lines[i + j]) == keys[j] for j in range(n))
    )


def nonblank_seq_count(hay_lines, needle_lines):
    wanted = [ws_key(l) for l in needle_lines if not is_blank(l)]
    hay = [ws_key(l) for l in hay_lines if not is_blank(l)]
    n = len(wanted)
    return sum(1 for i in range(len(hay) - n + 1) if hay[i : i + n] == wanted)


def levenshtein(a, b):
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def similarity(a, b):
    longest = max(len(a), len(b))
    return 1.0 if longest == 0 else 1.0 - levenshtein(a, b) / longest


def middle_key(lines):
    return "\n".join(ws_key(l) for l in lines[1:-1])


def text_of(lines):
    return "\n".join(lines) + "\n"


def snippets(paths, lang, rng, per_file=6):
    start_re = {
        "py": re.compile(r"^\s*(async def |def |class )"),
        "ts": re.compile(r"^\s*(export |function |class |const |  [A-Za-z_$][\w$]*\(.*\)\s*\{$)"),
    }[lang]
    found = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            try:
                lines = handle.read().split("\n")
            except UnicodeDecodeError:
                continue
        starts = [i for i, l in enumerate(lines) if start_re.match(l)]
        rng.shuffle(starts)
        taken = []
        for start in starts:
            if len(taken) >= per_file:
                break
            size = rng.randint(14, 22)
            window = lines[start : start + size]
            while window and is_blank(window[-1]):
                window.pop()
            if len(window) < 12 or any(abs(start - t) < 30 for t in taken):
                continue
            if any("\t" in l or "\r" in l or len(l) > MAX_LINE or l != l.rstrip() for l in window):
                continue
            taken.append(start)
            rel = os.path.relpath(path, os.path.dirname(os.path.dirname(path)))
            found.append({"lang": lang, "lines": window, "source": f"{rel}:{start + 1}"})
    return found


def modify(region, lang, variant):
    """The edit itself, made on the file's own lines."""
    comment = COMMENT[lang]
    first, last = region[0], region[-1]
    if variant % 3 == 0:
        return region + [" " * indent_len(last) + comment]
    if variant % 3 == 1:
        nested = first.rstrip().endswith((":", "{", "("))
        depth = indent_len(first) + (UNIT[lang] if nested else 0)
        return [first, " " * depth + comment] + region[1:]
    return region[:-1] + [last + "  " + comment]


def pick_region(lines, rng, min_len, max_len, tries=40, need=None):
    for _ in range(tries):
        length = rng.randint(min_len, max_len)
        if length > len(lines):
            continue
        start = rng.randint(0, len(lines) - length)
        region = lines[start : start + length]
        if is_blank(region[0]) or is_blank(region[-1]):
            continue
        if any(len(l.strip()) < 3 for l in (region[0], region[-1])):
            continue
        if need and not need(region):
            continue
        return start, region
    return None


def replaced(lines, start, length, new_lines):
    return text_of(lines[:start] + new_lines + lines[start + length :])


def dedent(lines, cols):
    return [l[cols:] if not is_blank(l) else l for l in lines]


def min_indent(lines):
    return min(indent_len(l) for l in lines if not is_blank(l))


def to_unit(lines, source_unit, target_unit, use_tabs=False):
    out = []
    for l in lines:
        if is_blank(l):
            out.append(l)
            continue
        levels = indent_len(l) // source_unit
        prefix = "\t" * levels if use_tabs else " " * (levels * target_unit)
        out.append(prefix + l.lstrip(" "))
    return out


def on_unit(lines, unit):
    return all(indent_len(l) % unit == 0 for l in lines if not is_blank(l))


def nested(lines):
    return len({indent_len(l) for l in lines if not is_blank(l)}) > 1


SMART = [('"', "\u201c", "\u201d"), ("'", "\u2018", "\u2019")]


def smarten(line):
    for plain, left, right in SMART:
        parts = line.split(plain)
        if len(parts) > 2:
            out = parts[0]
            for i, part in enumerate(parts[1:]):
                out += (left if i % 2 == 0 else right) + part
            line = out
    line = line.replace(" - ", " \u2013 ").replace("...", "\u2026")
    return line


class Corpus:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.groups = {}
        self.sources = {}

    def write(self, group, snippet, before, old, new, after=None, rung=None, error=None, replace_all=False):
        self.groups.setdefault(group, 0)
        self.groups[group] += 1
        name = f"{group}-{self.groups[group]:03d}"
        folder = os.path.join(self.out_dir, name)
        os.makedirs(folder)
        files = {"before": before, "old": old, "new": new}
        if after is not None:
            files["after"] = after
            files["rung"] = rung + "\n"
        else:
            files["error"] = error + "\n"
        if replace_all:
            files["replace_all"] = ""
        for file, content in files.items():
            with open(os.path.join(folder, file), "w", encoding="utf-8", newline="") as handle:
                handle.write(content)
        self.sources[name] = snippet["source"]


def build(corpus, pool, lang, rng, quota):
    others = list(pool)

    def attempts(group):
        order = list(pool)
        rng.shuffle(order)
        made = 0
        for snippet in order:
            if made >= quota[group]:
                return
            if GROUPS[group](snippet, corpus, f"{lang}-{group}", rng, others, made):
                made += 1

    for group in quota:
        attempts(group)


# Each group returns True when it wrote a case for the snippet.


def g_exact(s, corpus, name, rng, others, n):
    lines = s["lines"]
    picked = pick_region(lines, rng, 1, 6)
    if not picked:
        return False
    start, region = picked
    newline = n % 2 == 0
    old = "\n".join(region) + ("\n" if newline else "")
    before = text_of(lines)
    if exact_count(before, old) != 1:
        return False
    new_region = modify(region, s["lang"], n)
    new = "\n".join(new_region) + ("\n" if newline else "")
    corpus.write(name, s, before, old, new, replaced(lines, start, len(region), new_region), "exact")
    return True


def g_line_trimmed(s, corpus, name, rng, others, n):
    lines = s["lines"]
    picked = pick_region(lines, rng, 2, 6, need=lambda r: min_indent(r) > 0)
    if not picked:
        return False
    start, region = picked
    before = text_of(lines)
    new_region = modify(region, s["lang"], n)
    variant = n % 3
    if variant == 0:  # the agent dropped the common indentation and left trailing spaces
        cols = min_indent(region)
        old_lines, new_lines = dedent(region, cols), dedent(new_region, cols)
        old_lines[-1] += "  "
    elif variant == 1:  # trailing whitespace only
        old_lines = [l + " " * (1 + i % 2) for i, l in enumerate(region)]
        new_lines = list(new_region)
    else:  # over-indented by one extra level
        extra = " " * UNIT[s["lang"]]
        old_lines = [extra + l if not is_blank(l) else l for l in region]
        new_lines = [extra + l if not is_blank(l) else l for l in new_region]
    old, new = "\n".join(old_lines), "\n".join(new_lines)
    if old in before or seq_count(before.split("\n"), old_lines, str.strip) != 1:
        return False
    corpus.write(name, s, before, old, new, replaced(lines, start, len(region), new_region), "line_trimmed")
    return True


def g_tabs(s, corpus, name, rng, others, n):
    """The file is indented with tabs; the agent writes the original spaces."""
    unit = UNIT[s["lang"]]
    if not on_unit(s["lines"], unit):
        return False
    lines = s["lines"]
    picked = pick_region(lines, rng, 2, 6, need=lambda r: nested(r) and min_indent(r) > 0)
    if not picked:
        return False
    start, region = picked
    new_region = modify(region, s["lang"], n)
    cols = indent_len(region[0])
    if not on_unit(new_region, unit) or any(indent_len(l) < cols for l in region + new_region if not is_blank(l)):
        return False
    tab_lines = to_unit(lines, unit, 1, use_tabs=True)
    before = text_of(tab_lines)
    after = replaced(tab_lines, start, len(region), to_unit(new_region, unit, 1, use_tabs=True))
    old_lines, new_lines = dedent(region, cols), dedent(new_region, cols)
    old = "\n".join(old_lines)
    if old in before or seq_count(before.split("\n"), old_lines, str.strip) != 1:
        return False
    corpus.write(name, s, before, old, "\n".join(new_lines), after, "line_trimmed")
    return True


def g_unicode(s, corpus, name, rng, others, n):
    lines = s["lines"]
    picked = pick_region(lines, rng, 1, 5)
    if not picked:
        return False
    start, region = picked
    old_lines = [smarten(l) for l in region]
    if old_lines == region:
        for i, l in enumerate(region):
            body = l.lstrip(" ")
            if " " in body:
                old_lines = list(region)
                old_lines[i] = l[: len(l) - len(body)] + body.replace(" ", "\u00a0", 1)
                break
        else:
            return False
    before = text_of(lines)
    old = "\n".join(old_lines)
    new_region = modify(region, s["lang"], n)
    if exact_count(before, "\n".join(region)) != 1 or seq_count(before.split("\n"), region, ws_key) != 1:
        return False
    corpus.write(name, s, before, old, "\n".join(new_region), replaced(lines, start, len(region), new_region), "unicode_normalised")
    return True


def g_whitespace(s, corpus, name, rng, others, n):
    lines = s["lines"]
    picked = pick_region(lines, rng, 1, 5, need=lambda r: any(" " in l.strip() for l in r))
    if not picked:
        return False
    start, region = picked
    old_lines = []
    for l in region:
        body = l.lstrip(" ")
        indent = l[: len(l) - len(body)]
        old_lines.append(indent + re.sub(r"(?<=\S) (?=\S)", lambda m: "  " if rng.random() < 0.5 else " ", body))
    if old_lines == region:
        i = next(i for i, l in enumerate(region) if " " in l.strip())
        body = region[i].lstrip(" ")
        old_lines[i] = region[i][: len(region[i]) - len(body)] + body.replace(" ", "   ", 1)
    before = text_of(lines)
    if seq_count(before.split("\n"), region, ws_key) != 1:
        return False
    new_region = modify(region, s["lang"], n)
    corpus.write(name, s, before, "\n".join(old_lines), "\n".join(new_region), replaced(lines, start, len(region), new_region), "whitespace_normalised")
    return True


def g_indentation(s, corpus, name, rng, others, n):
    unit = UNIT[s["lang"]]
    lines = s["lines"]
    has_inner_blank = lambda r: any(is_blank(l) for l in r[1:-1]) and on_unit(r, unit) and nested(r)
    picked = pick_region(lines, rng, 4, 9, need=has_inner_blank)
    if not picked:
        return False
    start, region = picked
    new_region = modify(region, s["lang"], n)
    if not on_unit(new_region, unit):
        return False
    variant = n % 3
    if variant == 0:  # another indentation unit (4 <-> 2), shifted to column 0
        other = 2 if unit == 4 else 4
        old_lines, new_lines = to_unit(region, unit, other), to_unit(new_region, unit, other)
    elif variant == 1:  # tabs
        old_lines, new_lines = to_unit(region, unit, 1, True), to_unit(new_region, unit, 1, True)
    else:  # same unit, dedented
        old_lines, new_lines = region, new_region
    first = indent_len(old_lines[0]) if variant != 1 else 0
    if variant != 1:
        if any(indent_len(l) < first for l in old_lines + new_lines if not is_blank(l)):
            return False
        old_lines, new_lines = dedent(old_lines, first), dedent(new_lines, first)
    else:
        tabs = len(old_lines[0]) - len(old_lines[0].lstrip("\t"))
        if any(len(l) - len(l.lstrip("\t")) < tabs for l in old_lines + new_lines if not is_blank(l)):
            return False
        old_lines = [l[tabs:] if not is_blank(l) else l for l in old_lines]
        new_lines = [l[tabs:] if not is_blank(l) else l for l in new_lines]
    old_lines = [l for l in old_lines if not is_blank(l)]  # the agent dropped the blank lines
    before = text_of(lines)
    if nonblank_seq_count(before.split("\n"), region) != 1:
        return False
    corpus.write(name, s, before, "\n".join(old_lines), "\n".join(new_lines), replaced(lines, start, len(region), new_region), "indentation_flexible")
    return True


def g_escape(s, corpus, name, rng, others, n):
    lines = s["lines"]
    picked = pick_region(lines, rng, 2, 5, need=lambda r: not any("\\" in l or "`" in l for l in r))
    if not picked:
        return False
    start, region = picked
    before = text_of(lines)
    if exact_count(before, "\n".join(region)) != 1:
        return False
    new_region = modify(region, s["lang"], n)
    escape = lambda ls: "\\n".join(ls).replace('"', '\\"')
    corpus.write(name, s, before, escape(region), escape(new_region), replaced(lines, start, len(region), new_region), "escape_normalised")
    return True


def anchored(lines, rng, min_len=5, max_len=9):
    before_lines = lines
    def need(r):
        return (
            sum(1 for l in before_lines if ws_key(l) == ws_key(r[0])) == 1
            and sum(1 for l in before_lines if ws_key(l) == ws_key(r[-1])) == 1
            and len(middle_key(r)) >= 40
        )
    return pick_region(lines, rng, min_len, max_len, need=need)


def drift_middle(region, rng):
    """A copy of the region with one middle line changed the way a model misremembers it."""
    old = list(region)
    choices = [i for i in range(1, len(region) - 1) if re.search(r"[A-Za-z_]{3,}", region[i])]
    if not choices:
        return old
    i = rng.choice(choices)
    word = rng.choice(re.findall(r"[A-Za-z_]{3,}", old[i]))
    old[i] = old[i].replace(word, word[:-1] + ("x" if word[-1] != "x" else "y"), 1)
    return old


def g_block(s, corpus, name, rng, others, n):
    lines = s["lines"]
    picked = anchored(lines, rng)
    if not picked:
        return False
    start, region = picked
    old_lines = drift_middle(region, rng)
    if old_lines == region or similarity(middle_key(old_lines), middle_key(region)) < 0.8:
        return False
    before = text_of(lines)
    old = "\n".join(old_lines)
    if old in before or seq_count(before.split("\n"), old_lines, ws_key) != 0:
        return False
    new_region = modify(region, s["lang"], n)
    corpus.write(name, s, before, old, "\n".join(new_region), replaced(lines, start, len(region), new_region), "block_anchor")
    return True


def g_decoy(s, corpus, name, rng, others, n):
    """Same first and last lines, a very different middle: refused."""
    lines = s["lines"]
    picked = anchored(lines, rng)
    if not picked:
        return False
    start, region = picked
    other = rng.choice(others)
    if other is s:
        return False
    middle = [l.strip() for l in other["lines"][2 : 2 + len(region) - 2]]
    indent = " " * indent_len(region[1])
    old_lines = [region[0]] + [indent + l for l in middle] + [region[-1]]
    if len(old_lines) != len(region) or similarity(middle_key(old_lines), middle_key(region)) > 0.45:
        return False
    corpus.write(name, s, text_of(lines), "\n".join(old_lines), "\n".join(modify(region, s["lang"], n)), error="not_found")
    return True


def g_ambiguous_exact(s, corpus, name, rng, others, n):
    lines = s["lines"]
    before = text_of(lines)
    if n % 2 == 0:  # a line the real code repeats
        repeated = [l.strip() for l in lines if len(l.strip()) >= 8 and exact_count(before, l.strip()) >= 2]
        if not repeated:
            return False
        old = rng.choice(repeated)
    else:  # a block pasted twice
        picked = pick_region(lines, rng, 2, 5)
        if not picked:
            return False
        _, region = picked
        before = before + "\n" + text_of(region)
        old = "\n".join(region)
    corpus.write(name, s, before, old, old + " " + COMMENT[s["lang"]], error="ambiguous")
    return True


def g_ambiguous_fuzzy(s, corpus, name, rng, others, n):
    lines = s["lines"]
    if n % 2 == 0:  # the same block at another indentation; the agent's copy has trailing spaces
        picked = pick_region(lines, rng, 2, 5)
        if not picked:
            return False
        _, region = picked
        copy = ["    " + l if not is_blank(l) else l for l in region]
        before = text_of(lines) + "\n" + text_of(copy)
        old_lines = [l + "  " for l in dedent(region, min_indent(region))]
    else:  # the same block twice; the agent's copy drifted in the middle
        picked = anchored(lines, rng)
        if not picked:
            return False
        _, region = picked
        before = text_of(lines) + "\n" + text_of(region)
        old_lines = drift_middle(region, rng)
        if old_lines == region or similarity(middle_key(old_lines), middle_key(region)) < 0.8 or "\n".join(old_lines) in before:
            return False
    corpus.write(name, s, before, "\n".join(old_lines), "\n".join(old_lines) + "\n" + COMMENT[s["lang"]], error="ambiguous")
    return True


def g_replace_all(s, corpus, name, rng, others, n):
    lines = s["lines"]
    before = text_of(lines)
    if n % 3 != 2:  # exact: rename an identifier everywhere
        words = sorted({w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]{3,}", before) if exact_count(before, w) >= 2})
        words = [w for w in words if not any(w in other and w != other for other in words)]
        if not words:
            return False
        old = rng.choice(words)
        new = old + "_v2"
        corpus.write(name, s, before, old, new, before.replace(old, new), "exact", replace_all=True)
        return True
    # line_trimmed: a repeated line, written with trailing spaces
    counts = {}
    for l in lines:
        if len(l.strip()) >= 4:
            counts[l.strip()] = counts.get(l.strip(), 0) + 1
    repeated = [k for k, v in counts.items() if v >= 2]
    if not repeated:
        return False
    target = rng.choice(repeated)
    old = target + "  "
    if old in before:
        return False
    new = target + "  " + COMMENT[s["lang"]]
    after = text_of([l[: indent_len(l)] + new if l.strip() == target else l for l in lines])
    corpus.write(name, s, before, old, new, after, "line_trimmed", replace_all=True)
    return True


def g_already_applied(s, corpus, name, rng, others, n):
    lines = s["lines"]
    picked = pick_region(lines, rng, 1, 6)
    if not picked:
        return False
    start, region = picked
    new_region = modify(region, s["lang"], n)
    before = replaced(lines, start, len(region), new_region)
    old, new = "\n".join(region), "\n".join(new_region)
    if exact_count(before, new) != 1 or exact_count(before, old) != (1 if old in new else 0):
        return False
    corpus.write(name, s, before, old, new, error="already_applied")
    return True


def g_no_change(s, corpus, name, rng, others, n):
    lines = s["lines"]
    picked = pick_region(lines, rng, 1, 5)
    if not picked:
        return False
    _, region = picked
    before = text_of(lines)
    if exact_count(before, "\n".join(region)) != 1 or seq_count(before.split("\n"), region, str.strip) != 1:
        return False
    new = "\n".join(region)
    old = new if n % 2 == 0 else "\n".join(l + "  " for l in region)
    corpus.write(name, s, before, old, new, error="no_change")
    return True


def g_not_found(s, corpus, name, rng, others, n):
    other = rng.choice(others)
    if other is s:
        return False
    picked = pick_region(other["lines"], rng, 2, 4)
    if not picked:
        return False
    _, region = picked
    before = text_of(s["lines"])
    old = "\n".join(region)
    if any(ws_key(l) in {ws_key(x) for x in s["lines"]} for l in region):
        return False
    corpus.write(name, s, before, old, old + "\n" + COMMENT[s["lang"]], error="not_found")
    return True


GROUPS = {
    "exact": g_exact,
    "line-trimmed": g_line_trimmed,
    "tabs": g_tabs,
    "unicode": g_unicode,
    "whitespace": g_whitespace,
    "indentation": g_indentation,
    "escape": g_escape,
    "block-anchor": g_block,
    "decoy": g_decoy,
    "ambiguous-exact": g_ambiguous_exact,
    "ambiguous-fuzzy": g_ambiguous_fuzzy,
    "replace-all": g_replace_all,
    "already-applied": g_already_applied,
    "no-change": g_no_change,
    "not-found": g_not_found,
}

QUOTA = {
    "exact": 18,
    "line-trimmed": 15,
    "tabs": 10,
    "unicode": 12,
    "whitespace": 12,
    "indentation": 12,
    "escape": 10,
    "block-anchor": 16,
    "decoy": 10,
    "ambiguous-exact": 8,
    "ambiguous-fuzzy": 8,
    "replace-all": 12,
    "already-applied": 10,
    "no-change": 6,
    "not-found": 5,
}

PY_FILES = """textwrap.py shlex.py calendar.py fractions.py statistics.py argparse.py configparser.py
csv.py difflib.py json/encoder.py json/decoder.py heapq.py bisect.py queue.py string.py
dataclasses.py functools.py pprint.py tokenize.py ipaddress.py glob.py fnmatch.py shutil.py
gettext.py getopt.py graphlib.py netrc.py numbers.py operator.py sched.py secrets.py selectors.py
smtplib.py tabnanny.py timeit.py trace.py uuid.py wave.py zipapp.py contextlib.py enum.py""".split()


def main():
    stdlib, zod, out_dir = sys.argv[1:4]
    rng = random.Random(20261130)
    if os.path.isdir(out_dir):
        for entry in os.listdir(out_dir):
            path = os.path.join(out_dir, entry)
            # Only generated groups are replaced; hand-written cases stay.
            if os.path.isdir(path) and entry.startswith(("py-", "ts-")):
                shutil.rmtree(path)
    os.makedirs(out_dir, exist_ok=True)
    py_paths = [os.path.join(stdlib, f) for f in PY_FILES if os.path.exists(os.path.join(stdlib, f))]
    ts_paths = []
    for root, _, files in os.walk(os.path.join(zod, "src")):
        if "tests" in root:
            continue
        ts_paths += [os.path.join(root, f) for f in sorted(files) if f.endswith(".ts") and not f.endswith(".d.ts")]
    ts_paths.sort()
    corpus = Corpus(out_dir)
    for lang, paths in (("py", py_paths), ("ts", ts_paths)):
        pool = snippets(paths, lang, rng)
        build(corpus, pool, lang, rng, QUOTA)
    with open(os.path.join(out_dir, "SOURCES.tsv"), "w", encoding="utf-8") as handle:
        for name in sorted(corpus.sources):
            handle.write(f"{name}\t{corpus.sources[name]}\n")
    for group, count in sorted(corpus.groups.items()):
        print(f"{group}\t{count}")
    print("total", sum(corpus.groups.values()))


if __name__ == "__main__":
    main()
