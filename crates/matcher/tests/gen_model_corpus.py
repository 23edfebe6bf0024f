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
    patches = patch_groups()
    with open(os.path.join(EDITS, "SOURCES-model.tsv"), "w") as f:
        for name, where in sorted(edits.items()):
            f.write(f"{name}\t{where}\n")
    print(len(edits), "edit cases,", len(patches), "patch cases")
