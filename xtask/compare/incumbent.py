"""Serve one incumbent edit tool over JSON lines, the way `editkit call --jsonl` serves editkit.

Runs inside the incumbent's virtualenv (started by compare.py, never imported by it):

    python incumbent.py praisonai ROOT     # praisonaiagents.tools.edit_tools.EditTools
    python incumbent.py aider ROOT         # aider.coders.editblock_coder.replace_most_similar_chunk
    python incumbent.py floor ROOT         # no tool: the least a durable, atomic replace does

One request a line on stdin, one answer a line on stdout, so every tool pays the same pipe
round trip and the driver times all of them the same way:

    {"op": "edit", "path": REL, "old_string": S, "new_string": S, "replace_all": B}
    {"op": "patch", "patch": TEXT}                                   (praisonai only)
    {"op": "version"}

An answer is {"ok": true|false, "message": TEXT} or {"ok": false, "unsupported": TEXT}.
Whatever the tool says, the driver judges by the bytes left on disk.
"""

import json
import os
import sys
import traceback


def praisonai_tool(root):
    # The tool's own post-edit checker runs py_compile/LSP in a subprocess after each edit;
    # editkit's equivalent is only its built-in syntax check on the neutral file names used
    # here, so it is turned off to time the edit itself.
    from praisonaiagents.tools.edit_tools import EditTools

    tools = EditTools(root=root, post_edit_diagnostics="off", post_edit_format="off")
    # `edit_file`/`apply_patch` are wrapped by `require_approval`, a human-in-the-loop gate
    # of the agent framework, not part of editing; call the wrapped method directly.
    edit = EditTools.edit_file.__wrapped__
    patch = EditTools.apply_patch.__wrapped__

    def handle(request):
        op = request["op"]
        if op == "edit":
            message = edit(tools, request["path"], request["old_string"], request["new_string"],
                           bool(request.get("replace_all")))
            return {"ok": message.startswith("Success"), "message": message[:400]}
        if op == "patch":
            message = patch(tools, request["patch"])
            return {"ok": message.startswith("Success"), "message": message[:400]}
        raise ValueError(f"unknown op {op}")

    return handle


def aider_tool(root):
    from aider.coders.editblock_coder import replace_most_similar_chunk

    def handle(request):
        op = request["op"]
        if op == "patch":
            return {"ok": False, "unsupported": "aider has no multi-file patch tool"}
        if op != "edit":
            raise ValueError(f"unknown op {op}")
        if request.get("replace_all"):
            # A SEARCH/REPLACE block always replaces the first match only.
            return {"ok": False, "unsupported": "no replace_all in aider's SEARCH/REPLACE blocks"}
        path = os.path.join(root, request["path"])
        # The file I/O of aider's own InputOutput.read_text/write_text with its defaults
        # (encoding utf-8, line_endings "platform"): text mode, universal newlines in, the
        # platform's newline out.
        with open(path, "r", encoding="utf-8") as f:
            content = f.read()
        new_content = replace_most_similar_chunk(content, request["old_string"], request["new_string"])
        if not new_content:
            return {"ok": False, "message": "SEARCH block did not match"}
        with open(path, "w", encoding="utf-8", newline=None) as f:
            f.write(new_content)
        return {"ok": True, "message": "replaced"}

    return handle


def floor_tool(root):
    """Not an incumbent: the least any tool that replaces a file durably and atomically must
    do (read it, replace once, write a temporary file beside it, flush it, rename it over the
    file, flush the folder), with nothing checked, hashed or kept for undo. Its time against
    file size is the floor under every such tool's slope."""

    def handle(request):
        if request["op"] != "edit":
            return {"ok": False, "unsupported": "the floor only replaces"}
        path = os.path.join(root, request["path"])
        with open(path, "rb") as f:
            content = f.read()
        old, new = request["old_string"].encode(), request["new_string"].encode()
        at = content.find(old)
        if at < 0:
            return {"ok": False, "message": "not found"}
        temp = path + ".floor-tmp"
        with open(temp, "wb") as f:
            f.write(content[:at] + new + content[at + len(old):])
            f.flush()
            os.fsync(f.fileno())
        os.rename(temp, path)
        folder = os.open(os.path.dirname(path) or ".", os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
        return {"ok": True, "message": "replaced"}

    return handle


def versions(name):
    from importlib import metadata

    if name == "floor":
        return {"package": "none", "version": "-", "python": sys.version.split()[0]}

    package = {"praisonai": "praisonaiagents", "aider": "aider-chat"}[name]
    return {"package": package, "version": metadata.version(package),
            "python": sys.version.split()[0]}


def main():
    name, root = sys.argv[1], sys.argv[2]
    # Keep library log lines (PraisonAI logs every refusal at ERROR) off stdout.
    import logging

    logging.disable(logging.CRITICAL)
    handle = {"praisonai": praisonai_tool, "aider": aider_tool, "floor": floor_tool}[name](root)
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            if request["op"] == "version":
                answer = {"ok": True, **versions(name)}
            else:
                answer = handle(request)
        except Exception as error:  # an incumbent crash is an answer, not the end of the run
            answer = {"ok": False, "crash": f"{type(error).__name__}: {error}",
                      "trace": traceback.format_exc()[-600:]}
        if "id" in request:
            answer["id"] = request["id"]
        out.write(json.dumps(answer) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
