#!/usr/bin/env python3
"""Generates the model-input groups of fixtures/edits/ and fixtures/patches/ from fixtures/code/.

Run from the repository root: python3 crates/matcher/tests/gen_model_corpus.py
Deterministic (seeded); rerunning rewrites the same folders.
"""
import os, random, re, shutil

ROOT = os.getcwd()
CODE = os.path.join(ROOT, "fixtures/code")
EDITS = os.path.join(ROOT, "fixtures/edits")
PATCHES = os.path.join(ROOT, "fixtures/patches")
rng = random.Random(14)
# The shape groups draw from their own generator, so the groups above stay as they were.
shape_rng = random.Random(1414)


def sources(lang):
    sub = "python" if lang == "py" else "typescript"
    ext = ".py" if lang == "py" else ".ts"
    out = []
    for dirpath, _, files in os.walk(os.path.join(CODE, sub)):
        for f in sorted(files):
            if f.endswith(ext):
                out.append(os.path.join(dirpath, f))
    return sorted(out)


def blocks(path, size):
    """Runs of `size` non-blank, distinct, substantial lines at one indentation or deeper."""
    lines = open(path, encoding="utf-8").read().split("\n")
    found = []
    for start in range(0, len(lines) - size):
        run = lines[start:start + size]
        if any(len(l.strip()) < 8 for l in run) or len(set(l.strip() for l in run)) < size:
            continue
        if any("\t" in l or "\\" in l for l in run):
            continue
        # Every line of the run occurs once in the file: a unique, anchored block.
        if any(lines.count(l) != 1 for l in run):
            continue
        found.append(start)
    return lines, found


def write_edit(name, before, old, new, after=None, rung=None, error=None, may_refuse=False):
    folder = os.path.join(EDITS, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for file, text in [("before", before), ("old", old), ("new", new), ("after", after), ("rung", rung), ("error", error)]:
        if text is not None:
            open(os.path.join(folder, file), "w", encoding="utf-8", newline="").write(text)
    if may_refuse:
        # A refusal (not_found) is a correct outcome too; an edit must give `after`.
        open(os.path.join(folder, "may_refuse"), "w").write("")


def edit_groups():
    count = {}
    for lang in ["py", "ts"]:
        files = sources(lang)
        picks = []
        for path in files:
            lines, starts = blocks(path, 8)
            # Non-overlapping picks per file.
            last = -100
            for s in starts:
                if s > last + 12:
                    picks.append((path, lines, s))
                    last = s
        rng.shuffle(picks)
        groups = [("omit-one", 8), ("omit-two", 8), ("invent", 8)]
        used = 0
        for group, n in groups:
            for k in range(n):
                path, lines, s = picks[used]
                used += 1
                region = lines[s:s + 8]
                before = "\n".join(lines)
                middle = list(range(2, 6))
                if group == "omit-one":
                    gone = [rng.choice(middle)]
                elif group == "omit-two":
                    a = rng.choice(middle)
                    gone = [a, a + 1]
                else:
                    gone = []
                old_lines = [l for i, l in enumerate(region) if i not in gone]
                if group == "invent":
                    at = rng.choice(middle)
                    base = region[at]
                    invented = re.sub(r"([A-Za-z_][A-Za-z0-9_]*)", lambda m: m.group(1) + "_copy", base, count=1)
                    old_lines.insert(at + 1, invented)
                # The agent changes the last line.
                new_lines = list(old_lines)
                new_lines[-1] = new_lines[-1] + ("  # editkit: changed" if lang == "py" else "  // editkit: changed")
                after_region = list(region)
                after_region[-1] = new_lines[-1]
                after = "\n".join(lines[:s] + after_region + lines[s + 8:])
                name = f"{lang}-{group}-{k + 1:03d}"
                write_edit(name, before, "\n".join(old_lines) + "\n", "\n".join(new_lines) + "\n", after=after,
                           rung="block_anchor", may_refuse=True)
                count[name] = os.path.relpath(path, CODE) + f":{s + 1}"
        if lang == "ts":
            # `\$` in a template literal written escaped.
            k = 0
            for path in files:
                lines = open(path, encoding="utf-8").read().split("\n")
                for i, l in enumerate(lines):
                    if "${" in l and "\\" not in l and lines.count(l) == 1 and k < 6:
                        k += 1
                        escaped = l.replace("$", "\\$").replace("`", "\\`")
                        changed = l.rstrip() + " // editkit: changed"
                        before = "\n".join(lines)
                        after = "\n".join(lines[:i] + [changed] + lines[i + 1:])
                        name = f"ts-escape-dollar-{k:03d}"
                        write_edit(name, before, escaped.strip(), changed.strip(), after=after, rung="escape_normalised")
                        count[name] = os.path.relpath(path, CODE) + f":{i + 1}"
    return count


# Shapes of repeated, similar lines, where leaving a line out is easiest and most dangerous:
# the items of a list, the entries of a dict literal, the arguments of a call or definition
# (one per line), a run of call statements, the fields of a struct-like declaration.
ITEM = re.compile(r"^\s+\S.*,\s*$")
CALL = re.compile(r"^\s*(await\s+)?[A-Za-z_][\w.]*\(.*\)\s*;?\s*$")
# A class body's fields: annotated (`name: type = value`) or plain attributes (`NAME = value`).
FIELD_PY = re.compile(r"^    [A-Za-z_][A-Za-z0-9_]*\s*(:\s*[^=]+)?=\s*[^=].*$|^    [a-z_][a-z0-9_]*\s*:\s*[^=]+$")
FIELD_TS = re.compile(r"^\s+(readonly\s+)?[A-Za-z_$][\w$]*\??\s*:\s*[^=(]+;?\s*$")
SHAPES = ["list", "dict", "args", "calls", "fields"]


def opener_kind(line):
    t = line.rstrip()
    if t.endswith("["):
        return "list"
    if t.endswith("{") and ("=" in t or t.strip().startswith(("return", "(")) or t.endswith("({") or t.endswith(": {")):
        return "dict"
    if t.endswith("("):
        return "args"
    return None


def shape_blocks(path):
    """(shape, start, end) of bracketed item runs (opener .. closer) and of line runs."""
    lines = open(path, encoding="utf-8").read().split("\n")
    found = []
    for i, line in enumerate(lines):
        kind = opener_kind(line)
        if kind is None or "\t" in line or "\\" in line:
            continue
        indent = len(line) - len(line.lstrip())
        j = i + 1
        while j < len(lines) and lines[j].strip() and (len(lines[j]) - len(lines[j].lstrip())) > indent:
            j += 1
        items = lines[i + 1:j]
        closer = lines[j] if j < len(lines) else ""
        if not (6 <= len(items) <= 14) or not closer.strip()[:1] in ")]}":
            continue
        # Every item ends with a comma but the last, which may not.
        if not all(ITEM.match(l) for l in items[:-1]) or any("\\" in l or "\t" in l for l in items):
            continue
        if kind == "dict" and not all(":" in l for l in items):
            continue
        found.append((kind, i, j))
    ts = path.endswith(".ts")
    for kind, rx in [("calls", CALL), ("fields", FIELD_TS if ts else FIELD_PY)]:
        i = 0
        while i < len(lines):
            j = i
            indent = len(lines[i]) - len(lines[i].lstrip())
            while j < len(lines) and rx.match(lines[j]) and len(lines[j]) - len(lines[j].lstrip()) == indent \
                    and "\\" not in lines[j] and "\t" not in lines[j]:
                j += 1
            if j - i >= 5:
                found.append((kind, i, min(j, i + 10) - 1))
                i = j
            else:
                i += 1
    return lines, found


def added_line(shape, lang, like):
    indent = like[:len(like) - len(like.lstrip())]
    py = lang == "py"
    text = {
        "list": '"editkit_added",' if py else '"editkitAdded",',
        "dict": '"editkit_added": None,' if py else "editkitAdded: undefined,",
        "args": "editkit_added=None," if py else "editkitAdded,",
        "calls": "editkit_added()" if py else "editkitAdded();",
        "fields": "editkit_added: int = 0" if py else "editkitAdded?: unknown;",
    }[shape]
    return indent + text


def shape_groups():
    """`<lang>-omit-one-<shape>` / `<lang>-omit-two-<shape>`: the old text of a block of that
    shape leaves one or two middle lines out, and the agent adds an item before the block's
    last line. The lines left out must stay; a refusal is correct too."""
    count = {}
    for lang in ["py", "ts"]:
        by_shape = {shape: [] for shape in SHAPES}
        # `fixtures/code/python-shapes/` adds stdlib modules rich in these shapes (kept apart so
        # the groups above draw from the same files as before).
        extra = sorted(os.path.join(CODE, "python-shapes", f) for f in os.listdir(os.path.join(CODE, "python-shapes"))
                       if f.endswith(".py")) if lang == "py" else []
        for path in sources(lang) + extra:
            lines, found = shape_blocks(path)
            text = "\n".join(lines)
            for shape, start, end in found:
                block = "\n".join(lines[start:end + 1])
                # The block itself is unique in its file (its lines alone may not be).
                if text.count(block) == 1:
                    by_shape[shape].append((path, lines, start, end))
        for shape in SHAPES:
            picks = by_shape[shape]
            shape_rng.shuffle(picks)
            for omit in ["one", "two"]:
                k = 0
                for path, lines, start, end in picks:
                    if k == 4:
                        break
                    region = lines[start:end + 1]
                    # Lines left out: among the middle ones, two lines from either end kept.
                    middle = list(range(2, len(region) - 3 if omit == "two" else len(region) - 2))
                    if not middle:
                        continue
                    a = shape_rng.choice(middle)
                    gone = [a] if omit == "one" else [a, a + 1]
                    old_lines = [l for i, l in enumerate(region) if i not in gone]
                    # The agent adds an item before the block's last line (its closer, for a
                    # bracketed shape; after the run's last line for a run).
                    run = shape in ("calls", "fields")
                    at = len(region) if run else len(region) - 1
                    new_line = added_line(shape, lang, region[at - 1])
                    old_at = len(old_lines) if run else len(old_lines) - 1
                    new_lines = old_lines[:old_at] + [new_line] + old_lines[old_at:]
                    after_region = region[:at] + [new_line] + region[at:]
                    before = "\n".join(lines)
                    after = "\n".join(lines[:start] + after_region + lines[end + 1:])
                    k += 1
                    name = f"{lang}-omit-{omit}-{shape}-{k:03d}"
                    write_edit(name, before, "\n".join(old_lines) + "\n", "\n".join(new_lines) + "\n", after=after,
                               rung="block_anchor", may_refuse=True)
                    count[name] = os.path.relpath(path, CODE) + f":{start + 1}"
    return count


def write_patch(name, files, patch, after=None, error=None):
    folder = os.path.join(PATCHES, name)
    shutil.rmtree(folder, ignore_errors=True)
    for rel, text in files.items():
        p = os.path.join(folder, "before", rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        open(p, "w", encoding="utf-8", newline="").write(text)
    if after is not None:
        for rel, text in after.items():
            p = os.path.join(folder, "after", rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            open(p, "w", encoding="utf-8", newline="").write(text)
    if error is not None:
        open(os.path.join(folder, "error"), "w").write(error + "\n")
    open(os.path.join(folder, "input"), "w", encoding="utf-8", newline="").write(patch)


def patch_groups():
    count = {}
    picks = []
    for path in sources("py") + sources("ts"):
        lines, starts = blocks(path, 4)
        last = -100
        for s in starts:
            if s > last + 10:
                picks.append((path, lines, s))
                last = s
    rng.shuffle(picks)
    used = 0
    for k in range(6):
        # A stale `-` line: one token of the removed line differs from the file.
        path, lines, s = picks[used]; used += 1
        rel = os.path.basename(path)
        text = "\n".join(lines)
        region = lines[s:s + 4]
        stale = re.sub(r"([A-Za-z_][A-Za-z0-9_]*)", lambda m: m.group(1) + "x", region[2], count=1)
        body = f" {region[0]}\n {region[1]}\n-{stale}\n+{region[2]}  # editkit: changed\n {region[3]}\n"
        patch = f"*** Begin Patch\n*** Update File: {rel}\n@@\n{body}*** End Patch\n"
        write_patch(f"bp_model_stale_minus_{k + 1:03d}", {rel: text}, patch, error="not_found")
        count[f"bp_model_stale_minus_{k + 1:03d}"] = path
    for k in range(6):
        # `cd sub &&` wrapper: the file lives in sub/, a decoy of the same name at the root.
        path, lines, s = picks[used]; used += 1
        rel = os.path.basename(path)
        text = "\n".join(lines)
        region = lines[s:s + 4]
        changed = region[2] + "  # editkit: changed"
        body = f" {region[1]}\n-{region[2]}\n+{changed}\n"
        patch = f"cd sub && apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: {rel}\n@@\n{body}*** End Patch\nEOF\n"
        after_text = "\n".join(lines[:s + 2] + [changed] + lines[s + 3:])
        write_patch(f"bp_model_cd_wrapper_{k + 1:03d}", {rel: text, f"sub/{rel}": text}, patch,
                    after={rel: text, f"sub/{rel}": after_text})
        count[f"bp_model_cd_wrapper_{k + 1:03d}"] = path
    for k in range(6):
        # Add body with a line that lost its `+`.
        path, lines, s = picks[used]; used += 1
        region = lines[s:s + 4]
        body = "".join("+" + l + "\n" for l in region[:2]) + region[2] + "\n" + "+" + region[3] + "\n"
        patch = f"*** Begin Patch\n*** Add File: new_{k + 1}.txt\n{body}*** End Patch\n"
        write_patch(f"bp_model_add_unprefixed_{k + 1:03d}", {"keep.txt": "keep\n"}, patch, error="invalid_patch")
        count[f"bp_model_add_unprefixed_{k + 1:03d}"] = path
    for k in range(6):
        # Anchors that disambiguate: the same real lines as the body of three classes.
        path, lines, s = picks[used]; used += 1
        region = [l.strip() for l in lines[s:s + 3]]
        def cls(name, body):
            return f"class {name}:\n    def run(self):\n" + "".join(f"        {l}\n" for l in body)
        text = "\n\n".join(cls(n, region) for n in ["First", "Second", "Third"])
        target = rng.choice(["First", "Second", "Third"])
        changed = region[1] + "  # editkit: changed"
        stacked = k % 2 == 1
        anchors = f"@@ class {target}:\n" + ("@@     def run(self):\n" if stacked else "")
        body = f"         {region[0]}\n-        {region[1]}\n+        {changed}\n"
        patch = f"*** Begin Patch\n*** Update File: m.py\n{anchors}{body}*** End Patch\n"
        after = "\n\n".join(cls(n, [region[0], changed, region[2]] if n == target else region) for n in ["First", "Second", "Third"])
        write_patch(f"bp_model_anchor_{k + 1:03d}", {"m.py": text}, patch, after={"m.py": after})
        count[f"bp_model_anchor_{k + 1:03d}"] = path
    return count


if __name__ == "__main__":
    edits = edit_groups()
    edits.update(shape_groups())
    patches = patch_groups()
    with open(os.path.join(EDITS, "SOURCES-model.tsv"), "w") as f:
        for name, where in sorted(edits.items()):
            f.write(f"{name}\t{where}\n")
    print(len(edits), "edit cases,", len(patches), "patch cases")
