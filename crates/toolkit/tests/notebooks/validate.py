"""Validates notebooks with Jupyter's own nbformat: `python validate.py NOTEBOOK...`.

Each file must read as nbformat 4 JSON and pass `nbformat.validate` as it is (nbformat 5.10 and
later no longer repair ids there; missing or repeated ids are checked here too); any warning
nbformat raises is an error as well. Prints
one line per failure and exits 1 when any failed.
"""

import json
import sys
import warnings

import nbformat

failed = False
for path in sys.argv[1:]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with open(path, encoding="utf-8", newline="") as f:
                text = f.read()
            nb = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
            if nb.nbformat != 4:
                raise ValueError(f"nbformat {nb.nbformat}, not 4")
            nbformat.validate(nb)
            raw = json.loads(text)
            if raw.get("nbformat_minor", 0) >= 5:
                ids = [cell.get("id") for cell in raw["cells"]]
                if None in ids or len(set(ids)) != len(ids):
                    raise ValueError(f"cell ids missing or repeated: {ids}")
    except Exception as err:  # noqa: BLE001 - every failure is reported the same way
        failed = True
        print(f"{path}: {type(err).__name__}: {err}")
sys.exit(1 if failed else 0)
