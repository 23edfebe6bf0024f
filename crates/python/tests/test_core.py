"""The core API: the toolkit, typed results, one exception per error kind, the JSON contract."""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import editkit
import pytest

REPO = Path(__file__).resolve().parents[3]


def test_the_example_at_the_top_of_lib_rs_runs() -> None:
    source = (REPO / "crates/python/src/lib.rs").read_text()
    block = re.search(r"//! ```python\n(.*?)//! ```", source, re.DOTALL)
    assert block, "lib.rs has no Python example"
    code = "\n".join(line[4:] if line.startswith("//! ") else line[3:] for line in block.group(1).splitlines())
    exec(compile(code, "lib.rs example", "exec"), {})  # noqa: S102 (the example is ours)


def test_the_module_is_the_installed_one_and_has_its_type_marker() -> None:
    package = Path(editkit.__file__).parent
    assert (package / "py.typed").exists()
    assert (package / "__init__.pyi").exists()
    if os.environ.get("EDITKIT_TEST_WHEEL"):
        assert "site-packages" in str(package), f"tests ran against {package}, not the installed wheel"


def test_the_import_leaves_a_descriptor_table_of_4096() -> None:
    # A patch's commit holds three descriptors a file; a table grown while threads run waits
    # for an RCU grace period. The import grows it to 4,096, or the hard limit, and keeps the
    # limits as they were.
    probe = (
        "import resource\n"
        "before = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
        "import editkit\n"
        "assert resource.getrlimit(resource.RLIMIT_NOFILE) == before\n"
        "hard = before[1]\n"
        "size = next(int(line.split()[1]) for line in open('/proc/self/status') if line.startswith('FDSize:'))\n"
        "print(size, 4096 if hard == resource.RLIM_INFINITY else min(hard, 4096))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    size, wanted = map(int, out.split())
    assert size >= wanted, f"the table holds {size} descriptors, {wanted} wanted"


def test_results_are_typed_and_carry_the_contract_fields(tk: editkit.Toolkit, workspace: Path) -> None:
    (workspace / "app.py").write_bytes(b"def main():\r\n    return 1\r\n")
    read = tk.read_file("app.py")
    assert type(read).__name__ == "ReadFileResult" and isinstance(read, editkit.Result)
    assert read.content == "def main():\n    return 1\n"
    assert read.sha256 == hashlib.sha256(b"def main():\r\n    return 1\r\n").hexdigest()
    assert read["line_count"] == read.line_count == 2
    assert read.to_dict()["path"] == "app.py" and "ok" not in read.to_dict()
    assert read == read.to_dict() and pickle.loads(pickle.dumps(read)) == read
    # A field of the schema the result left out reads as None; an unknown one is an error.
    assert "next_offset" in type(read).fields and read.next_offset is None
    with pytest.raises(AttributeError):
        read.no_such_field  # noqa: B018
    with pytest.raises(AttributeError):
        read.content = "x"  # type: ignore[misc]

    edit = tk.edit_file("app.py", "return 1", "return 2", expected_hash=read.sha256)
    assert type(edit) is editkit.EditFileResult and edit.replacements == 1
    # CRLF kept on untouched and edited lines alike.
    assert (workspace / "app.py").read_bytes() == b"def main():\r\n    return 2\r\n"


@pytest.mark.parametrize("kind", editkit.ERROR_KINDS)
def test_every_error_kind_has_its_exception_class(kind: str) -> None:
    cls = editkit.error_class(kind)
    assert issubclass(cls, editkit.EditkitError) and cls is not editkit.EditkitError
    assert cls.kind == kind
    err = editkit.error_from({"kind": kind, "message": "m", "line": 3})
    assert type(err) is cls and err.message == "m" and err.details == {"line": 3} and err.line == 3
    assert err.to_dict() == {"kind": kind, "message": "m", "line": 3}


def test_refusals_raise_their_kind_with_details_and_change_nothing(tk: editkit.Toolkit, workspace: Path) -> None:
    target = workspace / "a.py"
    target.write_text("x = 1\ny = 2\nx = 1\n")
    before = target.read_bytes()
    with pytest.raises(editkit.Ambiguous) as ambiguous:
        tk.edit_file("a.py", "x = 1", "x = 3")
    assert ambiguous.value.kind == "ambiguous" and ambiguous.value.details["lines"]
    with pytest.raises(editkit.NotFound):
        tk.edit_file("a.py", "z = 9", "z = 10")
    with pytest.raises(editkit.OutsideWorkspace) as outside:
        tk.read_file("../escape.txt")
    assert outside.value.details["roots"] == tk.roots
    with pytest.raises(editkit.Blocked):
        tk.write_file(".env", "SECRET=1")
    with pytest.raises(editkit.InvalidArgs) as invalid:
        tk.read_file("a.py", no_such_argument=1)
    assert invalid.value.details["field"] == "no_such_argument" and isinstance(invalid.value, ValueError)
    assert target.read_bytes() == before and not (workspace / ".env").exists()


def test_the_staleness_guard_refuses_a_write_over_an_outside_change(tk: editkit.Toolkit, workspace: Path) -> None:
    (workspace / "n.txt").write_text("one\n")
    tk.read_file("n.txt")
    (workspace / "n.txt").write_text("changed underneath\n")
    with pytest.raises(editkit.Stale):
        tk.write_file("n.txt", "mine\n")
    assert (workspace / "n.txt").read_text() == "changed underneath\n"
    tk.write_file("n.txt", "mine\n", force=True)
    assert (workspace / "n.txt").read_text() == "mine\n"


def test_call_answers_the_json_contract_and_never_raises_for_a_refusal(tk: editkit.Toolkit) -> None:
    assert tk.call("exists", {"path": "nope.txt"}) == {"ok": True, "path": "nope.txt", "exists": False, "kind": None}
    refused = tk.call("read_file", {"path": "nope.txt"})
    assert refused["ok"] is False and refused["error"]["kind"] == "not_found"
    unknown = tk.call("no_such_tool", {})
    assert unknown["error"]["kind"] == "invalid_args"
    with pytest.raises(TypeError, match="JSON values"):
        tk.call("exists", {"path": object()})


def test_positional_and_keyword_arguments_follow_the_tool(tk: editkit.Toolkit, workspace: Path) -> None:
    tk.write_file("d/new.md", "# Title\n")
    assert (workspace / "d/new.md").read_text() == "# Title\n"
    # Aliases of the contract are accepted as keywords; None means "not given".
    assert tk.read_file(file_path="d/new.md", offset=None).content == "# Title\n"
    with pytest.raises(TypeError, match="positional"):
        tk.exists("a", "b")
    with pytest.raises(TypeError, match="multiple values for argument 'path'"):
        tk.exists("a", path="b")
    with pytest.raises(TypeError, match="missing 2 required argument.*'old_string', 'new_string'"):
        tk.edit_file("d/new.md")
    # pathlib paths are paths, alone and in lists.
    assert tk.read_file(workspace / "d/new.md").content == "# Title\n"
    assert tk.read_files([Path("d/new.md")]).files[0]["file"]["content"] == "# Title\n"
    import inspect

    signature = inspect.signature(editkit.Toolkit.edit_file)
    assert list(signature.parameters)[:4] == ["self", "path", "old_string", "new_string"]
    assert signature.parameters["replace_all"].kind is inspect.Parameter.KEYWORD_ONLY


def test_required_arguments_are_positional_in_the_tools_order(tk: editkit.Toolkit, workspace: Path) -> None:
    import inspect

    for spec in editkit.specs():
        # A tool may name its positional arguments itself (edit_file: old_string and new_string,
        # optional beside `edits`).
        named = spec["input_schema"].get("x-positional") or spec["input_schema"].get("required", ())
        required = [editkit.python_name(name) for name in named]
        signature = inspect.signature(getattr(editkit.Toolkit, spec["name"]))
        positional = [p.name for p in signature.parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD]
        assert positional == ["self", *required], spec["name"]
        assert editkit.result_class(spec["name"]).tool == spec["name"]
    # An argument named by a Python keyword takes a trailing underscore.
    (workspace / "a.txt").write_text("a\n")
    tk.move("a.txt", "b.txt")
    tk.move(from_="b.txt", to="c.txt")
    assert (workspace / "c.txt").read_text() == "a\n" and not (workspace / "a.txt").exists()


def test_word_options_take_the_words_of_their_rust_types(workspace: Path) -> None:
    from editkit import _editkit

    words = dict(_editkit.OPTION_WORDS)
    assert words == {
        "diagnostics": ["auto", "on", "off"],
        "durability": ["full", "atomic"],
        "absolute_paths": ["remap", "refuse", "rooted"],
    }
    for option, names in words.items():
        for name in names:
            editkit.Toolkit(workspace, **{option: name})
        listed = ", ".join(f'"{name}"' for name in names)
        with pytest.raises(editkit.InvalidArgs, match=f"{option} must be one of {listed}, not"):
            editkit.Toolkit(workspace, **{option: "nonsense"})


def test_every_bound_the_native_module_declares_is_checked(workspace: Path) -> None:
    # The bounds come from the native module (`open_options!` and each option's Rust type), so
    # Toolkit.__init__ keeps no list of its own: each is an `int | None` option there, and each
    # refuses what is not a whole number of at least 0 by name (without the check, a bool would
    # pass as 1 and a negative number or a string would raise a bare OverflowError/TypeError).
    import inspect

    from editkit import _editkit

    bounds = list(_editkit.BOUND_OPTIONS)
    parameters = inspect.signature(editkit.Toolkit.__init__).parameters
    assert bounds == [name for name, parameter in parameters.items() if parameter.annotation == "int | None"]
    assert {"max_read_bytes", "kept_read_bytes", "history_depth"} <= set(bounds)
    for field in bounds:
        for bad in (-1, True, 1.5, "10"):
            with pytest.raises(editkit.InvalidArgs, match=f"{field} must be a whole number") as refused:
                editkit.Toolkit(workspace, **{field: bad})
            assert refused.value.details["field"] == field
        editkit.Toolkit(workspace, **{field: 1 << 20})


def test_options_are_checked_and_applied(workspace: Path, tmp_path: Path) -> None:
    with pytest.raises(editkit.InvalidArgs, match="durability"):
        editkit.Toolkit(workspace, durability="sometimes")
    with pytest.raises(editkit.InvalidArgs, match="diagnostics"):
        editkit.Toolkit(workspace, diagnostics="maybe")
    with pytest.raises(editkit.InvalidArgs, match="max_read_bytes"):
        editkit.Toolkit(workspace, max_read_bytes=0)
    for bad in (-1, 1.5, "10", True):
        with pytest.raises(editkit.InvalidArgs, match="max_session_bytes"):
            editkit.Toolkit(workspace, max_session_bytes=bad)
    with pytest.raises(editkit.EditkitError):
        editkit.Toolkit(tmp_path / "missing-root")

    (workspace / "big.txt").write_text("x" * 100)
    small = editkit.Toolkit(workspace, max_read_bytes=10, blocked=["*.secret"], durability="atomic")
    with pytest.raises(editkit.TooLarge, match="10"):
        small.read_file("big.txt")
    with pytest.raises(editkit.Blocked):
        small.write_file("a/b.secret", "x")

    readonly = editkit.Toolkit(workspace, read_only=True)
    with pytest.raises(editkit.Blocked, match="read-only|read only"):
        readonly.write_file("new.txt", "x")
    assert not (workspace / "new.txt").exists()

    rooted = editkit.Toolkit(workspace, absolute_paths="rooted")
    rooted.write_file("/reports/a.md", "# A\n")
    assert (workspace / "reports/a.md").read_text() == "# A\n"


def _script(folder: Path, name: str, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / name
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    return script


def test_the_applications_formatters_run_contained_on_a_private_copy(workspace: Path, tmp_path: Path) -> None:
    tools = tmp_path / "tools"
    # Rewrites the file it is given in place (the copy), and notes where it ran.
    upper = _script(tools, "upper", 'tr a-z A-Z < "$1" > "$1.new" && mv "$1.new" "$1"\n')
    failing = _script(tools, "failing", "exit 3\n")
    planted = _script(workspace / "node_modules/.bin", "prettier", f'touch "{tmp_path}/planted-ran"\n')
    tk = editkit.Toolkit(
        workspace,
        diagnostics="off",
        format=True,
        formatters={
            ".txt": [("missing", [str(tmp_path / "no-such-tool"), "{file}"]), ("upper", [str(upper), "{file}"])],
            "CFG": [("failing", [str(failing), "{file}"])],
            "md": [("planted", ["./node_modules/.bin/prettier", "{file}"])],
        },
    )
    written = tk.write_file("notes.txt", "hello\n")
    assert (workspace / "notes.txt").read_text() == "HELLO\n"
    assert written.sha256 == hashlib.sha256(b"HELLO\n").hexdigest()
    # The next edit is not refused as stale: the guard took the formatted content.
    tk.edit_file("notes.txt", "HELLO", "bye")
    assert (workspace / "notes.txt").read_text() == "BYE\n"
    # A formatter that fails changes nothing: the write stands.
    tk.write_file("a.cfg", "key = 1\n")
    assert (workspace / "a.cfg").read_text() == "key = 1\n"
    # A relative program is one the repository ships: not run, and the write stands.
    tk.write_file("a.md", "# a\n")
    assert (workspace / "a.md").read_text() == "# a\n"
    assert not (tmp_path / "planted-ran").exists() and planted.exists()
    assert sorted(p.name for p in workspace.iterdir()) == ["a.cfg", "a.md", "node_modules", "notes.txt"]
    for bad in ({"": [("x", ["x"])]}, {"py": [("x", [])]}, {"py": [("x", "black")]}):
        with pytest.raises(editkit.InvalidArgs, match="formatters"):
            editkit.Toolkit(workspace, format=True, formatters=bad)


def test_hard_linked_files_are_served_only_under_the_folders_given(workspace: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    (store / "abc").write_text("export const answer = 42;\n")
    (workspace / "node_modules" / "pkg").mkdir(parents=True)
    os.link(store / "abc", workspace / "node_modules" / "pkg" / "index.js")
    with pytest.raises(editkit.Blocked, match="hard links"):
        editkit.Toolkit(workspace).read_file("node_modules/pkg/index.js")
    allowed = editkit.Toolkit(workspace, hard_links="node_modules/")
    assert "answer" in allowed.read_file("node_modules/pkg/index.js")["content"]


def test_several_roots_resolve_relative_paths_in_the_first(tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    (second / "s.txt").write_text("second\n")
    tk = editkit.Toolkit([first, second])
    assert tk.roots == [str(first.resolve()), str(second.resolve())] and tk.root == tk.roots[0]
    tk.write_file("f.txt", "first\n")
    assert (first / "f.txt").read_text() == "first\n"
    assert tk.read_file(str(second / "s.txt")).content == "second\n"


def test_a_patch_changes_every_file_or_none(tk: editkit.Toolkit, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    (workspace / "b.txt").write_text("beta\n")
    failing = (
        "*** Begin Patch\n*** Update File: a.txt\n-alpha\n+ALPHA\n"
        "*** Update File: b.txt\n-gamma\n+GAMMA\n*** End Patch\n"
    )
    with pytest.raises(editkit.NotFound, match="nothing was changed"):
        tk.apply_patch(failing)
    with pytest.raises(editkit.InvalidPatch, match="incomplete"):
        tk.apply_patch(failing[: failing.index("*** Update File: b.txt")])
    assert (workspace / "a.txt").read_text() == "alpha\n"
    result = tk.apply_patch(failing.replace("gamma", "beta").replace("GAMMA", "BETA"))
    assert type(result) is editkit.ApplyPatchResult
    assert ((workspace / "a.txt").read_text(), (workspace / "b.txt").read_text()) == ("ALPHA\n", "BETA\n")


def test_calls_release_the_gil(tk: editkit.Toolkit, workspace: Path) -> None:
    """While a tool runs in one thread, other Python threads keep running (the GIL is released)."""
    lines = [f"value_{n} = {n}  # padding to make the file large enough to take a while\n" for n in range(60_000)]
    (workspace / "big.py").write_text("".join(lines))
    in_call = threading.Event()
    done = threading.Event()

    def editor() -> None:
        for n in range(6):
            in_call.set()
            tk.edit_file("big.py", f"value_{30_000 + n} = {30_000 + n} ", f"value_{30_000 + n} = -{n} ")
            in_call.clear()
        done.set()

    thread = threading.Thread(target=editor)
    thread.start()
    spins_during_calls = 0
    while not done.is_set():
        if in_call.is_set():
            spins_during_calls += 1
    thread.join()
    # Holding the GIL, this thread could only run in the microseconds of Python between the
    # flag and the call; released, it spins for the whole of six edits of a 4 MB file.
    assert spins_during_calls > 20_000, spins_during_calls
    assert "value_30005 = -5 " in (workspace / "big.py").read_text()


def test_eight_threads_editing_different_files_all_land(tk: editkit.Toolkit, workspace: Path) -> None:
    for n in range(8):
        (workspace / f"f{n}.py").write_text("".join(f"line_{i} = {i}\n" for i in range(2_000)))

    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(10, 200, 10):
                tk.edit_file(f"f{n}.py", f"line_{i} = {i}\n", f"line_{i} = {-i}\n")
        except BaseException as err:  # noqa: BLE001 (reported by the test below)
            errors.append(err)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    for n in range(8):
        text = (workspace / f"f{n}.py").read_text()
        assert all(f"line_{i} = {-i}\n" in text for i in range(10, 200, 10)), n


def test_eight_threads_doing_read_modify_write_on_one_file_lose_no_update(tk: editkit.Toolkit, workspace: Path) -> None:
    (workspace / "counter.txt").write_text("count=0;\n")
    rounds = 25
    refusals = []

    def by_hash() -> None:
        # The read's hash is the write's expected hash: a write after another thread's is
        # refused as stale and the thread reads again.
        for _ in range(rounds):
            while True:
                read = tk.read_file("counter.txt")
                try:
                    count = int(read.content[len("count="):-2])
                    tk.write_file("counter.txt", f"count={count + 1};\n", expected_hash=read.sha256)
                    break
                except editkit.Stale:
                    refusals.append(1)

    def by_edit() -> None:
        # edit_file matches and writes under the file's lock: an old count no longer found is
        # refused and the thread reads again.
        for _ in range(rounds):
            while True:
                count = int(tk.read_file("counter.txt").content[len("count="):-2])
                try:
                    tk.edit_file("counter.txt", f"count={count};", f"count={count + 1};")
                    break
                except (editkit.NotFound, editkit.Stale, editkit.AlreadyApplied):
                    refusals.append(1)

    threads = [threading.Thread(target=by_hash if n % 2 else by_edit) for n in range(8)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(thread.is_alive() for thread in threads), f"stuck after {time.monotonic() - started:.0f} s"
    assert (workspace / "counter.txt").read_text() == f"count={8 * rounds};\n"


def test_several_edits_and_lazy_snippets(tk: editkit.Toolkit, workspace: Path) -> None:
    (workspace / "m.py").write_text("def a():\n    return 1\n\n\ndef b():\n    return 2\n")
    edited = tk.edit_file("m.py", edits=[
        {"old_string": "return 2", "new_string": "return 20"},
        {"old_string": "return 1", "new_string": "return 10"},
    ])
    assert [placement["line_range"] for placement in edited.edits] == [[6, 6], [2, 2]]
    with pytest.raises(editkit.InvalidArgs) as refused:
        tk.edit_file("m.py", "return 10", "x", edits=[{"old_string": "a", "new_string": "b"}])
    assert refused.value.details["field"] == "edits"
    merged = tk.merge_snippet("m.py", "# ... existing code ...\ndef b():\n    log()\n    return 20\n")
    assert type(merged).__name__ == "MergeSnippetResult"
    assert merged.chunks[0]["line_range"] == [5, 6]
    assert (workspace / "m.py").read_text() == "def a():\n    return 10\n\n\ndef b():\n    log()\n    return 20\n"
    with pytest.raises(editkit.NotFound) as unaligned:
        tk.merge_snippet("m.py", "def a():\n    return 10\n\n\ndef b():\n    return 20\n")
    assert unaligned.value.details["reason"] == "unaligned"


def test_an_outside_change_elsewhere_is_merged_and_strict_refuses(tk: editkit.Toolkit, workspace: Path) -> None:
    (workspace / "m.py").write_text("import os\n\n\ndef a():\n    return 1\n")
    tk.read_file("m.py")
    (workspace / "m.py").write_text("import os\nimport sys\n\n\ndef a():\n    return 1\n")
    with pytest.raises(editkit.Stale):
        tk.edit_file("m.py", "return 1", "return 2", stale="strict")
    edited = tk.edit_file("m.py", "return 1", "return 2")
    assert edited.merged_with["lines"] == [[2, 2]]
    assert (workspace / "m.py").read_text() == "import os\nimport sys\n\n\ndef a():\n    return 2\n"


def test_kept_read_bytes_bounds_the_merge_bases_and_insert_lines_takes_stale(workspace: Path) -> None:
    (workspace / "m.py").write_text("import os\n\n\ndef a():\n    return 1\n")
    outside = "import os\nimport sys\n\n\ndef a():\n    return 1\n"
    # No version kept: an outside change is refused as stale, as before merging.
    none_kept = editkit.Toolkit(workspace, kept_read_bytes=0)
    none_kept.read_file("m.py")
    (workspace / "m.py").write_text(outside)
    with pytest.raises(editkit.Stale):
        none_kept.edit_file("m.py", "return 1", "return 2")
    assert editkit.DEFAULT_LIMITS["kept_read_bytes"] == 32 << 20
    for wrong in (-1, 1.5, True, "1"):
        with pytest.raises(editkit.InvalidArgs, match="kept_read_bytes"):
            editkit.Toolkit(workspace, kept_read_bytes=wrong)
    tk = editkit.Toolkit(workspace, kept_read_bytes=1 << 20)
    tk.read_file("m.py")
    (workspace / "m.py").write_text(outside.replace("import sys\n", "import sys\nimport re\n"))
    with pytest.raises(editkit.Stale):
        tk.insert_lines("m.py", 5, "    log()", stale="strict")
    # After line 5 (`def a():`) of the version read: line 6 of the file now.
    inserted = tk.insert_lines("m.py", 5, "    log()")
    assert inserted.merged_with["lines"] == [[3, 3]]
    assert inserted.line_range == [7, 7]
    assert (workspace / "m.py").read_text() == "import os\nimport sys\nimport re\n\n\ndef a():\n    log()\n    return 1\n"
