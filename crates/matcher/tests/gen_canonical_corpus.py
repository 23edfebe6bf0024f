#!/usr/bin/env python3
"""Generates the canonical-equivalence groups of fixtures/edits/ and fixtures/patches/.

Run from the repository root: python3 crates/matcher/tests/gen_canonical_corpus.py
Rerunning rewrites the same folders. Text written by hand for editkit, in five scripts whose
letters have canonical decompositions (Cyrillic й and ё, French accents, Vietnamese stacked
marks, Hangul syllables, German umlauts): a file stored in one normalisation form (NFD, as
macOS file names and some editors leave text; or NFC) and an agent's old text in the other.

Edit groups (`canonical-<form>-file-NNN`): the file in <form>, old and new in the other form;
the edit lands on the `canonical_equivalent` rung and the new text takes the file's form.
`canonical-exact-wins-NNN`: the file holds the line in both forms; the old text's own form is
found exactly. `canonical-refused-NNN`: compatibility forms (a ligature, a circled or
full-width digit, a superscript) are not canonical equivalents, and a line the file holds
twice in the other form is ambiguous.

Patch groups (`<dialect>_canonical_NNN`): the same drift in `-` and context lines of the three
dialects, both directions.
"""
import os, shutil, unicodedata

ROOT = os.getcwd()
EDITS = os.path.join(ROOT, "fixtures/edits")
PATCHES = os.path.join(ROOT, "fixtures/patches")


def nfc(text):
    return unicodedata.normalize("NFC", text)


def nfd(text):
    return unicodedata.normalize("NFD", text)


FORMS = {"nfc": nfc, "nfd": nfd}


def write(folder, files):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for name, text in files.items():
        if text is None:
            continue
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "w", encoding="utf-8", newline="").write(text)


# (file text, old text, new text), written in NFC; each old text stands once in its file.
EDITS_NFC = [
    (
        'def describe(city):\n    # Район: Астана\n    region = "Район: Астана"\n    return f"{region} / {city}"\n',
        '    region = "Район: Астана"\n',
        '    region = "Район: Алматы, ёлка"\n',
    ),
    (
        'MENU = {\n    "drink": "Café crème à emporter",\n    "sweet": "Crêpe brûlée",\n}\n',
        '"Café crème à emporter"',
        '"Café crème sur place"',
    ),
    (
        'def title():\n    return "Tiếng Việt có dấu"\n\n\ndef subtitle():\n    return "Người dùng"\n',
        'def title():\n    return "Tiếng Việt có dấu"',
        'def title():\n    return "Tiếng Việt không dấu"',
    ),
    (
        'const greeting = "안녕하세요";\nconst farewell = "안녕히 가세요";\n',
        'const farewell = "안녕히 가세요";\n',
        'const farewell = "잘 가요";\n',
    ),
    (
        '# Größe ändern\nlabel = "Größe ändern"\nhint = "Über uns"\n',
        'hint = "Über uns"',
        'hint = "Über die Größe"',
    ),
    (
        'cities = ["Астана", "Алматы"]\nprint("Район: Астана, Қазақстан")\n',
        'Район: Астана',
        'Район: Есиль',
    ),
]


def edit_groups():
    counts = {}
    for form, other in [("nfd", "nfc"), ("nfc", "nfd")]:
        to_file, to_agent = FORMS[form], FORMS[other]
        for n, (text, old, new) in enumerate(EDITS_NFC, 1):
            before = to_file(text)
            assert before.count(to_file(old)) == 1 and to_agent(old) not in before
            after = before.replace(to_file(old), to_file(new))
            write(
                os.path.join(EDITS, f"canonical-{form}-file-{n:03}"),
                {"before": before, "old": to_agent(old), "new": to_agent(new), "after": after,
                 "rung": "canonical_equivalent"},
            )
            counts[f"canonical-{form}-file"] = n
    # Both forms stand in the file: each old text is found exactly in its own form.
    both = 'a = "Район"\nb = "Café"\n'
    wins = [
        (nfc(both) + nfd(both), nfc('a = "Район"'), nfc('a = "Край"'), nfc('a = "Край"\nb = "Café"\n') + nfd(both)),
        (nfc(both) + nfd(both), nfd('a = "Район"'), nfd('a = "Край"'), nfc(both) + nfd('a = "Край"\nb = "Café"\n')),
        (nfd(both) + nfc(both), nfc('b = "Café"'), nfc('b = "Thé"'), nfd(both) + nfc('a = "Район"\nb = "Thé"\n')),
    ]
    for before, old, *_ in wins:
        assert before.count(old) == 1
    for n, (before, old, new, after) in enumerate(wins, 1):
        write(os.path.join(EDITS, f"canonical-exact-wins-{n:03}"),
              {"before": before, "old": old, "new": new, "after": after, "rung": "exact"})
    refused = [
        # Compatibility forms are not canonical equivalents: NFKC would fold them, NFC does not.
        ("office = open_office()\n", "ofﬁce = open_ofﬁce()", "office = close()", "not_found"),
        ("step = 1\nlevel = 2\n", "step = ①", "step = 3", "not_found"),
        ("code = \"ABC123\"\n", "code = \"ＡＢＣ１２３\"", "code = \"X\"", "not_found"),
        ("area = x2 + y2\n", "area = x² + y²", "area = 0", "not_found"),
        # The file holds the line twice in NFD, the old text is NFC: both are candidates.
        (nfd('name = "Район"\nname = "Район"\n'), nfc('name = "Район"'), nfc('name = "Край"'), "ambiguous"),
    ]
    for n, (before, old, new, error) in enumerate(refused, 1):
        write(os.path.join(EDITS, f"canonical-refused-{n:03}"),
              {"before": before, "old": old, "new": new, "error": error + "\n"})
    return counts


def patch_groups():
    lines = 'def describe(city):\n    region = "Район: Астана"\n    cafe = "Café crème"\n    return region\n'
    n = 0
    for form, other in [("nfd", "nfc"), ("nfc", "nfd")]:
        to_file, to_agent = FORMS[form], FORMS[other]
        before = {"before/geo.py": to_file(lines)}
        after_text = to_file(lines.replace("Астана", "Есиль"))
        # Begin Patch: a `-` line and a context line in the other form.
        bp = to_agent(
            '*** Begin Patch\n*** Update File: geo.py\n@@ def describe(city):\n-    region = "Район: Астана"\n'
            '+    region = "Район: Есиль"\n     cafe = "Café crème"\n*** End Patch\n'
        )
        # Hunks: the old block in the other form.
        hk = to_agent(
            '*** Update File: geo.py\n@@\n    region = "Район: Астана"\n    cafe = "Café crème"\n===\n'
            '    region = "Район: Есиль"\n    cafe = "Café crème"\n*** End Patch\n'
        )
        # Unified: context and removed lines in the other form.
        ud = to_agent(
            '--- a/geo.py\n+++ b/geo.py\n@@ -1,4 +1,4 @@\n def describe(city):\n-    region = "Район: Астана"\n'
            '+    region = "Район: Есиль"\n     cafe = "Café crème"\n     return region\n'
        )
        n += 1
        for dialect, text in [("bp", bp), ("hk", hk), ("ud", ud)]:
            write(os.path.join(PATCHES, f"{dialect}_canonical_{n:03}"),
                  {**before, "input": text, "after/geo.py": after_text})
    # A ligature in a `-` line is not the file's `fi`: refused, in each dialect.
    plain = {"before/office.py": "office = open_office()\n"}
    refusals = {
        "bp": "*** Begin Patch\n*** Update File: office.py\n@@\n-ofﬁce = open_ofﬁce()\n+office = close()\n*** End Patch\n",
        "hk": "*** Update File: office.py\n@@\nofﬁce = open_ofﬁce()\n===\noffice = close()\n*** End Patch\n",
        "ud": "--- a/office.py\n+++ b/office.py\n@@ -1 +1 @@\n-ofﬁce = open_ofﬁce()\n+office = close()\n",
    }
    for dialect, text in refusals.items():
        write(os.path.join(PATCHES, f"{dialect}_canonical_{n + 1:03}"), {**plain, "input": text, "error": "not_found\n"})


if __name__ == "__main__":
    edit_groups()
    patch_groups()
