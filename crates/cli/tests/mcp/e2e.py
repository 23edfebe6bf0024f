"""End-to-end test of `editkit mcp` with the official MCP Python SDK (a client nobody here wrote).

Usage: python e2e.py EDITKIT_BINARY

Phases 1 and 2 drive the server (with every tool and their output schemas) through the SDK 2.x, once as `ClientSession` opened with the
`initialize` handshake and once as `mcp.Client` with its default connection (which probes
`server/discover` first, so a server that answers it is used at the newer protocol revision),
each on a fresh workspace, with every structured result validated against the tool's output
schema (by the SDK for successful results, by `call` here for refusals too): list tools,
read_file -> edit_file -> apply_patch -> search_files -> an ambiguous edit (isError) -> a stale
write (isError), checking the files on disk after each step, plus bad arguments, an unknown tool
and a large read.
and every tool added for agents (file_info, create_directory, insert_lines, read_files, tree,
move, list_roots, a recursive delete undone with undo_patch).
Phase 3 is the default server (the core tool set, no output schemas) as a client with roots sees
it: the tool list under 21 KB, the roots the client names (and names again after
roots/list_changed), and a large file read page by page from the text blocks alone.
Phase 4 serves streamable HTTP (`--http 127.0.0.1:0`) to two SDK clients at once: requests
without the bearer token get 401 and a foreign Origin 403; each session keeps its own
staleness guard (a write over the other client's change is refused), and 40 concurrent
read-then-edit rounds on one file all land.
Phase 5 is `mcp.Client` on protocol 2026-07-28 over stateless streamable HTTP, with two server
processes on one workspace behind one address (a round-robin transport sends each request to
the other): identical tool lists with cache hints, an edit without expected_hash refused, one
with the read's sha256 applied, a write after an outside change refused as stale, and a big
listing answered with its head and a resource link that the other process reads.
Phase 6 is `mcp.Client` on 2026-07-28 declaring the tasks extension (stdio): read, a guarded
edit, a stale write refused, a 40-file patch as a task polled with tasks/get (the SDK's typed
requests), and a search of 800 matches answered with its head and a resource link.
Phase 7 speaks raw JSON-RPC over the server's stdio and sends malformed requests, checking that
each gets a JSON-RPC error (or is ignored) and that the server keeps serving.
Exits non-zero with a message on the first failed check.
"""

import asyncio
import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile

# Checked before the SDK is imported, so an old venv fails with what to do, not an ImportError.
SDK_VERSION = importlib.metadata.version("mcp")
if SDK_VERSION.split(".")[0] != "2":
    sys.exit(f"e2e.py is written for the MCP Python SDK 2.x, found mcp {SDK_VERSION}: run crates/cli/tests/mcp/setup.sh")

from jsonschema import Draft202012Validator, validate
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.extension import advertise
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
import httpx2
import mcp_types
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter
from mcp_types import ListRootsResult, Root
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

EDITKIT = sys.argv[1] if len(sys.argv) > 1 else "editkit"
if os.sep in EDITKIT:
    EDITKIT = os.path.abspath(EDITKIT)  # phase 3 starts the server in another directory
STANDARD_FORMATS = {
    "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6",
    "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template", "json-pointer",
    "relative-json-pointer", "regex",
}


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def step(name):
    print(f"  - {name}", flush=True)


def read(root, path):
    with open(os.path.join(root, path), encoding="utf-8", newline="") as f:
        return f.read()


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def formats_in(schema):
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "format" and isinstance(value, str):
                yield value
            else:
                yield from formats_in(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from formats_in(item)


def text_of(result):
    return "".join(block.text for block in result.content if getattr(block, "type", None) == "text")


async def call(session, tools, name, arguments):
    """tools/call through the SDK, with the result's structured content checked against the tool's
    output schema. The SDK checks successful results itself; refusals (isError) it lets through
    unchecked, so they are validated here, as the TypeScript SDK does: every structured result is."""
    result = await session.call_tool(name, arguments)
    check(result.structured_content is not None, f"{name}: the result has no structured content")
    validate(result.structured_content, tools[name].output_schema)
    return result


async def phase_handshake(root):
    """`ClientSession` over `stdio_client`, opened with the `initialize` handshake."""
    params = StdioServerParameters(command=EDITKIT, args=["mcp", "--tools", "all", "--output-schemas", "--root", root])
    async with stdio_client(params) as (read_stream, write_stream):
        async with ClientSession(read_stream, write_stream) as session:
            init = await session.initialize()
            check(init.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS, f"handshake at {init.protocol_version}")
            check(init.server_info == session.server_info, "initialize and the session disagree on the server")
            await session_checks(session, root)


async def phase_client(root):
    """The SDK's high-level `mcp.Client` with its default connection (`mode="auto"`): it probes
    `server/discover` first, which editkit answers, so every request after it carries protocol
    2026-07-28 and the client's capabilities in `_meta` (no `initialize`)."""
    params = StdioServerParameters(command=EDITKIT, args=["mcp", "--tools", "all", "--output-schemas", "--root", root])
    async with Client(params) as client:
        check(client.session.protocol_version == "2026-07-28", f"negotiated {client.session.protocol_version}")
        check(client.session.protocol_version in MODERN_PROTOCOL_VERSIONS, "2026-07-28 is not modern to the SDK")
        discovered = client.session.discover_result
        check(discovered is not None and "2025-11-25" in discovered.supported_versions, f"discover: {discovered}")
        check("expected_hash" in (discovered.instructions or ""), "the instructions do not name expected_hash")
        await session_checks(client.session, root)


async def session_checks(session, root):
    """Every SDK check, on a connected session over a fresh copy of the fixture."""
    info = session.server_info
    step(f"connected: server {info.name} {info.version}, protocol {session.protocol_version}")
    check(info.name == "editkit", f"server name is {info.name!r}")
    check(session.server_capabilities.tools is not None, "the server does not announce tools")

    listed = await session.list_tools()
    tools = {tool.name: tool for tool in listed.tools}
    step(f"tools/list: {len(tools)} tools")
    for needed in ["read_file", "write_file", "edit_file", "apply_patch", "search_files", "list_dir"]:
        check(needed in tools, f"tool {needed} is missing; got {sorted(tools)}")
    for tool in listed.tools:
        check(tool.description, f"{tool.name} has no description")
        check(tool.input_schema.get("type") == "object", f"{tool.name}: input schema is not an object")
        check(tool.output_schema is not None, f"{tool.name} has no output schema")
        Draft202012Validator.check_schema(tool.input_schema)
        Draft202012Validator.check_schema(tool.output_schema)
        odd = [f for f in formats_in([tool.input_schema, tool.output_schema]) if f not in STANDARD_FORMATS]
        check(not odd, f"{tool.name}: non-standard formats {odd}")
        check(tool.annotations is not None, f"{tool.name} has no annotations")
    check(tools["read_file"].annotations.read_only_hint is True, "read_file is not marked read-only")
    check(tools["write_file"].annotations.read_only_hint is False, "write_file is marked read-only")
    check(tools["write_file"].annotations.destructive_hint is True, "write_file is not marked destructive")
    check(tools["read_file"].annotations.idempotent_hint is True, "read_file is not marked idempotent")

    # read_file
    result = await call(session, tools, "read_file", {"path": "app.py"})
    check(not result.is_error, f"read_file failed: {text_of(result)}")
    data = result.structured_content
    check(data["ok"] is True and data["content"] == read(root, "app.py"), "read_file content differs")
    check(len(data["sha256"]) == 64, "read_file has no sha256")
    check([s["name"] for s in data["symbols"]] == ["greet", "main"], f"symbols: {data['symbols']}")
    step(f"read_file app.py: {data['line_count']} lines, sha256 {data['sha256'][:12]}, symbols greet, main")

    # a tail read names its lines
    result = await call(session, tools, "read_file", {"path": "app.py", "tail": 2})
    data_tail = result.structured_content
    check(not result.is_error and (data_tail["start_line"], data_tail["end_line"]) == (data["line_count"] - 1, data["line_count"]), f"tail: {data_tail}")
    check(data_tail["content"] == "".join(read(root, "app.py").splitlines(keepends=True)[-2:]), "tail content differs")
    step(f"read_file tail 2: lines {data_tail['start_line']}-{data_tail['end_line']}")

    # file_info and create_directory
    result = await call(session, tools, "file_info", {"path": "app.py"})
    info = result.structured_content
    check(not result.is_error and info["kind"] == "file" and info["file_type"] == "python", f"file_info: {info}")
    check(info["line_count"] == data["line_count"] and len(info["permissions"]) == 4, f"file_info: {info}")
    result = await call(session, tools, "create_directory", {"path": "made/here"})
    check(not result.is_error and result.structured_content["created"] is True, f"create_directory: {text_of(result)}")
    check(os.path.isdir(os.path.join(root, "made", "here")), "create_directory made no directory")
    step(f"file_info app.py: {info['size_bytes']} bytes, {info['permissions']}; create_directory made/here")
    write(root, "made/here/notes.txt", "one\nthree\n")
    result = await call(session, tools, "insert_lines", {"path": "made/here/notes.txt", "line": 1, "text": "two", "force": True})
    check(not result.is_error and result.structured_content["line_range"] == [2, 2], f"insert_lines: {text_of(result)}")
    check(read(root, "made/here/notes.txt") == "one\ntwo\nthree\n", "insert_lines put the line elsewhere")
    step("insert_lines: line 2 of made/here/notes.txt")

    # edit_file, with the indentation drifted
    result = await call(
        session,
        tools,
        "edit_file",
        {"path": "app.py", "old_string": "  return 'hello ' + name", "new_string": "  return f'hello {name}!'"},
    )
    check(not result.is_error, f"edit_file failed: {text_of(result)}")
    check(result.structured_content["replacements"] == 1, "edit_file did not replace once")
    expected = "def greet(name):\n    return f'hello {name}!'\n\n\ndef main():\n    print(greet('world'))\n"
    check(read(root, "app.py") == expected, f"after edit_file: {read(root, 'app.py')!r}")
    step(f"edit_file app.py: rung {result.structured_content['rung']}, score {result.structured_content['score']}")

    # apply_patch over two files, one added
    patch = (
        "*** Begin Patch\n"
        "*** Update File: app.py\n"
        "@@ def main():\n"
        "-    print(greet('world'))\n"
        "+    print(greet('editkit'))\n"
        "*** Update File: lib/util.py\n"
        "@@\n"
        "-VERSION = 1\n"
        "+VERSION = 2\n"
        "*** Add File: lib/new.py\n"
        "+NEW = True\n"
        "*** End Patch\n"
    )
    result = await call(session, tools, "apply_patch", {"patch": patch})
    check(not result.is_error, f"apply_patch failed: {text_of(result)}")
    check("print(greet('editkit'))" in read(root, "app.py"), "apply_patch did not update app.py")
    check(read(root, "lib/util.py") == "VERSION = 2\nNAME = 'util'\n", f"lib/util.py: {read(root, 'lib/util.py')!r}")
    check(read(root, "lib/new.py") == "NEW = True\n", "apply_patch did not add lib/new.py")
    step(f"apply_patch: {[f['path'] for f in result.structured_content['files']]}")

    # search_files
    result = await call(session, tools, "search_files", {"pattern": "VERSION|NEW"})
    check(not result.is_error, f"search_files failed: {text_of(result)}")
    files = sorted(r["file"] for r in result.structured_content["results"])
    check(files == ["lib/new.py", "lib/util.py"], f"search_files found {files}")
    step(f"search_files: {files}")

    # an ambiguous edit is a tool error, and changes nothing
    before = read(root, "twice.py")
    result = await call(session, tools, "edit_file", {"path": "twice.py", "old_string": "x = 1", "new_string": "x = 2"})
    check(result.is_error is True, "the ambiguous edit was not an error")
    check(result.structured_content["ok"] is False, "the ambiguous edit's structured content is not ok: false")
    error = result.structured_content["error"]
    check(error["kind"] == "ambiguous", f"kind is {error['kind']}")
    check(error["lines"] == [1, 3], f"candidate lines: {error['lines']}")
    check(error["message"] in text_of(result), "the message is not in the text content")
    check(read(root, "twice.py") == before, "the ambiguous edit changed the file")
    step(f"ambiguous edit refused: lines {error['lines']}")

    # a stale write is a tool error, and the person's change survives
    result = await call(session, tools, "read_file", {"path": "notes.md"})
    check(not result.is_error, "read_file notes.md failed")
    write(root, "notes.md", "# Notes\n\nchanged by a person\n")
    result = await call(session, tools, "write_file", {"path": "notes.md", "content": "# Notes\n\nby the agent\n"})
    check(result.is_error is True, "the stale write was not an error")
    check(result.structured_content["error"]["kind"] == "stale", f"kind: {result.structured_content['error']}")
    check(read(root, "notes.md") == "# Notes\n\nchanged by a person\n", "the stale write changed the file")
    step("stale write refused")

    # bad arguments are tool errors naming the field
    result = await call(session, tools, "edit_file", {"path": "app.py", "new_string": "x"})
    check(result.is_error is True, "missing old_string was not an error")
    error = result.structured_content["error"]
    check(error["kind"] == "invalid_args" and error.get("field") == "old_string", f"missing field: {error}")
    result = await call(session, tools, "read_file", {"path": 5})
    error = result.structured_content["error"]
    check(result.is_error and error["kind"] == "invalid_args" and error.get("field") == "path", f"wrong type: {error}")
    result = await call(session, tools, "read_file", {"path": "../outside.txt"})
    check(result.structured_content["error"]["kind"] == "outside_workspace", "escape not refused")
    step("bad arguments and an escape: invalid_args naming the field, outside_workspace")

    # an unknown tool is a JSON-RPC error, and the session goes on
    try:
        await session.call_tool("no_such_tool", {})
        check(False, "calling an unknown tool did not fail")
    except MCPError as err:
        step(f"unknown tool: JSON-RPC error {err.error.code}: {err.error.message[:60]}...")
    check(len((await session.list_tools()).tools) == len(tools), "the server stopped serving")

    # read_files: one result each, a refusal does not stop the others
    result = await call(session, tools, "read_files", {"paths": ["app.py", "missing.py", "lib/util.py"]})
    data = result.structured_content
    check(not result.is_error and data["read"] == 2 and data["failed"] == 1, f"read_files: {text_of(result)[:300]}")
    check(data["files"][1]["error"]["kind"] == "not_found", f"read_files item: {data['files'][1]}")
    check(data["files"][2]["file"]["content"] == read(root, "lib/util.py"), "read_files content differs")
    step("read_files: 2 read, missing.py not_found")

    # tree, honouring .gitignore
    write(root, ".ignore", "ignored/\n")  # honoured like .gitignore is in a git repository, as rg does
    write(root, "ignored/skip.txt", "x\n")
    result = await call(session, tools, "tree", {"depth": 2})
    paths = [e["path"] for e in result.structured_content["entries"]]
    check(not result.is_error and "lib/" in paths and "lib/util.py" in paths, f"tree: {paths}")
    check(not any(p.startswith("ignored") for p in paths), f"tree shows an ignored folder: {paths}")
    step(f"tree: {len(paths)} entries, ignored/ left out")

    # move a file, undone with undo_patch
    result = await call(session, tools, "move", {"from": "lib/new.py", "to": "pkg/moved.py"})
    check(not result.is_error and result.structured_content["undoable"] is True, f"move: {text_of(result)}")
    check(read(root, "pkg/moved.py") == "NEW = True\n" and not os.path.exists(os.path.join(root, "lib/new.py")), "move did not move")
    result = await call(session, tools, "move", {"from": "app.py", "to": "lib/util.py"})
    check(result.is_error and result.structured_content["error"]["kind"] == "exists", "move over a file was not refused")
    result = await call(session, tools, "undo_patch", {})
    check(not result.is_error and os.path.exists(os.path.join(root, "lib/new.py")), f"undo_patch after move: {text_of(result)}")
    check(not os.path.exists(os.path.join(root, "pkg/moved.py")), "undo_patch left the moved file")
    step("move lib/new.py -> pkg/moved.py, refused over an existing file, undone")

    # a recursive delete is undoable
    result = await call(session, tools, "delete", {"path": "lib"})
    check(result.is_error and result.structured_content["error"]["field"] == "recursive", "deleting a full directory needed no flag")
    result = await call(session, tools, "delete", {"path": "lib", "recursive": True})
    check(not result.is_error and not os.path.exists(os.path.join(root, "lib")), f"recursive delete: {text_of(result)}")
    result = await call(session, tools, "undo_patch", {})
    check(not result.is_error and read(root, "lib/util.py") == "VERSION = 2\nNAME = 'util'\n", f"undo of delete: {text_of(result)}")
    step("delete lib (recursive: true) and undo_patch brought it back")

    # list_roots
    result = await call(session, tools, "list_roots", {})
    roots = result.structured_content["roots"]
    check(len(roots) == 1 and os.path.samefile(roots[0]["path"], root) and roots[0]["primary"], f"list_roots: {roots}")
    step(f"list_roots: {roots[0]['path']}")

    # a large read is paged: the text block is the file, numbered, and says where to read on
    big = "".join(f"line {i} " + "x" * 90 + "\n" for i in range(20000))
    write(root, "big.txt", big)
    result = await call(session, tools, "read_file", {"path": "big.txt"})
    check(not result.is_error, "large read failed")
    data = result.structured_content
    check(data["next_offset"] == data["end_line"] + 1 and big.startswith(data["content"]), "large read is not its first page")
    text = text_of(result)
    check(f"read on with offset {data['next_offset']}" in text and "     1\tline 0 " in text, f"page text: {text[:200]}")
    step(f"large read: lines 1-{data['end_line']} of {data['total_lines']}, next_offset {data['next_offset']}")


async def phase_default_with_roots(root):
    """The default server (no --root, core tools, no output schemas) as a client with roots
    sees it: the roots it names, again after roots/list_changed, and a file read page by page
    from the text blocks alone."""
    other = tempfile.mkdtemp()
    write(other, "app.py", "OTHER = True\n")
    current = {"root": root}

    async def list_roots(context):
        return ListRootsResult(roots=[Root(uri=f"file://{current['root']}", name="project")])

    params = StdioServerParameters(command=EDITKIT, args=["mcp"], cwd=tempfile.gettempdir())
    async with stdio_client(params) as (read_stream, write_stream):
        async with ClientSession(read_stream, write_stream, list_roots_callback=list_roots) as session:
            await session.initialize()
            listed = await session.list_tools()
            size = len(json.dumps(listed.model_dump(mode="json", by_alias=True, exclude_none=True)))
            check(size < 21000, f"the default tools/list is {size} bytes")
            names = [tool.name for tool in listed.tools]
            check("read_file" in names and "editor_load" not in names, f"default tools: {names}")
            step(f"default tools/list: {len(names)} tools, {size} bytes")

            result = await session.call_tool("read_file", {"path": "app.py"})
            check(not result.is_error and result.structured_content["content"] == read(root, "app.py"), f"read in the client's root: {text_of(result)}")
            result = await session.call_tool("list_roots", {})
            check(os.path.samefile(result.structured_content["roots"][0]["path"], root), f"roots: {text_of(result)}")
            step("the client's root is the workspace")

            current["root"] = other
            await session.send_roots_list_changed()
            for _ in range(100):
                result = await session.call_tool("read_file", {"path": "app.py"})
                if result.structured_content.get("content") == "OTHER = True\n":
                    break
                await asyncio.sleep(0.05)
            check(result.structured_content.get("content") == "OTHER = True\n", f"after list_changed: {text_of(result)}")
            step("roots/list_changed switched the workspace")

            big = "".join(f"row {i}: " + "y" * 60 + "\n" for i in range(3000))
            write(other, "big.txt", big)
            seen, offset, pages = [], None, 0
            while True:
                args = {"path": "big.txt"} if offset is None else {"path": "big.txt", "offset": offset}
                text = text_of(await session.call_tool("read_file", args))
                pages += 1
                header, _, body = text.partition("\n")
                for line in body.splitlines(keepends=True):
                    if not line.startswith("["):
                        seen.append(line.split("\t", 1)[1])
                if "read on with offset " not in header:
                    break
                offset = int(header.rsplit("read on with offset ", 1)[1])
                check(pages < 20, "paging does not end")
            check("".join(seen) == big, "the pages put together are not the file")
            step(f"a {len(big)}-byte file read from text blocks alone in {pages} pages")


async def phase_http(root):
    """Two SDK clients over streamable HTTP on one server."""
    token = "e2e-token-0123456789abcdef"
    proc = subprocess.Popen(
        [EDITKIT, "mcp", "--http", "127.0.0.1:0", "--root", root, "--tools", "all"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "EDITKIT_MCP_TOKEN": token},
    )
    try:
        line = proc.stderr.readline()
        check(" at http://127.0.0.1:" in line, f"the server did not say where it listens: {line!r}")
        url = line.split(" at ", 1)[1].split()[0]
        step(f"listening at {url}")
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
        headers = {"accept": "application/json, text/event-stream"}
        async with httpx2.AsyncClient() as raw:
            refused = await raw.post(url, json=init, headers=headers)
            check(refused.status_code == 401, f"no token: HTTP {refused.status_code}")
            refused = await raw.post(url, json=init, headers={**headers, "authorization": "Bearer wrong-token-0123456789ab"})
            check(refused.status_code == 401, f"wrong token: HTTP {refused.status_code}")
            refused = await raw.post(url, json=init, headers={**headers, "authorization": f"Bearer {token}", "origin": "http://evil.example"})
            check(refused.status_code == 403, f"foreign origin: HTTP {refused.status_code}")
        step("no token and a wrong token: 401; a foreign Origin: 403")

        write(root, "shared.txt", "".join(f"slot {n}: empty\n" for n in range(40)))

        async def client(name, body):
            http = httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=60)
            async with http, streamable_http_client(url, http_client=http) as (read_stream, write_stream):
                async with ClientSession(read_stream, write_stream) as session:
                    await session.initialize()
                    return await body(name, session)

        a_read, b_read = asyncio.Event(), asyncio.Event()
        a_wrote = asyncio.Event()

        async def first(name, session):
            result = await session.call_tool("read_file", {"path": "shared.txt"})
            check(not result.is_error, f"{name} read: {text_of(result)}")
            a_read.set()
            await b_read.wait()
            result = await session.call_tool("edit_file", {"path": "shared.txt", "old_string": "slot 0: empty", "new_string": "slot 0: a"})
            check(not result.is_error, f"{name} edit: {text_of(result)}")
            a_wrote.set()

        async def second(name, session):
            await a_read.wait()
            result = await session.call_tool("read_file", {"path": "shared.txt"})
            check(not result.is_error, f"{name} read: {text_of(result)}")
            b_read.set()
            await a_wrote.wait()
            # This session read the file before the other one changed it: refused.
            result = await session.call_tool("write_file", {"path": "shared.txt", "content": "clobbered\n"})
            check(result.is_error and result.structured_content["error"]["kind"] == "stale", f"{name} stale write: {text_of(result)}")

        await asyncio.gather(client("a", first), client("b", second))
        check(read(root, "shared.txt").startswith("slot 0: a\n"), "the first client's edit is lost")
        step("sessions keep their own staleness guard: a write over the other client's edit is refused")

        async def rounds(name, session):
            mine = range(1, 40, 2) if name == "a" else range(2, 40, 2)
            for n in mine:
                for _attempt in range(20):
                    await session.call_tool("read_file", {"path": "shared.txt"})
                    result = await session.call_tool(
                        "edit_file", {"path": "shared.txt", "old_string": f"slot {n}: empty", "new_string": f"slot {n}: {name}"})
                    if not result.is_error:
                        break
                    check(result.structured_content["error"]["kind"] == "stale", f"{name} slot {n}: {text_of(result)}")
                else:
                    check(False, f"{name} slot {n}: stale 20 times in a row")

        await asyncio.gather(client("a", rounds), client("b", rounds))
        final = read(root, "shared.txt").splitlines()
        want = ["slot 0: a"] + [f"slot {n}: {'a' if n % 2 else 'b'}" for n in range(1, 40)]
        check(final == want, f"concurrent edits lost: {final}")
        step("two clients, 39 concurrent read-then-edit rounds on one file: every edit landed")
    finally:
        proc.kill()
        proc.wait(timeout=10)
        proc.stderr.close()


async def phase_tasks(root):
    """`mcp.Client` on 2026-07-28 declaring the tasks extension, through the SDK's typed requests
    (its `call_tool` does not take a task handle yet): read, edit with the read's sha256, a stale
    write refused, a 40-file patch as a task polled with tasks/get, a big search as a resource link."""
    for n in range(40):
        write(root, f"many/f{n:02}.py", f"value = {n}\n" + "needle = True\n" * 20)
    params = StdioServerParameters(
        command=EDITKIT, args=["mcp", "--root", root, "--task-after-ms", "600000"])  # searches stay synchronous
    raw = TypeAdapter(dict)
    async with Client(params, extensions=[advertise("io.modelcontextprotocol/tasks")]) as client:
        session = client.session
        check(session.protocol_version == "2026-07-28", f"negotiated {session.protocol_version}")
        result = await session.call_tool("read_file", {"path": "app.py"})
        sha = result.structured_content["sha256"]
        result = await session.call_tool("edit_file", {"path": "app.py", "old_string": "'hello '", "new_string": "'hey '", "expected_hash": sha})
        check(not result.is_error and "'hey '" in read(root, "app.py"), f"edit: {text_of(result)}")
        await session.call_tool("read_file", {"path": "notes.md"})
        write(root, "notes.md", "# changed by a person\n")
        result = await session.call_tool("write_file", {"path": "notes.md", "content": "# agent\n"})
        check(result.is_error and result.structured_content["error"]["kind"] == "stale", f"stale: {text_of(result)}")
        step("read, an edit with expected_hash, a stale write refused")

        patch = "*** Begin Patch\n" + "".join(
            f"*** Update File: many/f{n:02}.py\n@@\n-value = {n}\n+value = {n + 100}\n" for n in range(40)) + "*** End Patch\n"
        call = mcp_types.CallToolRequest(params=mcp_types.CallToolRequestParams(name="apply_patch", arguments={"patch": patch}))
        created = await session.send_request(call, raw)
        check(created.get("resultType") == "task" and created["status"] == "working", f"not a task: {created}")
        polls = 0
        while True:
            get = mcp_types.GetTaskRequest(params=mcp_types.GetTaskRequestParams(task_id=created["taskId"]))
            state = await session.send_request(get, raw)
            polls += 1
            if state["status"] != "working":
                break
            check(polls < 600, "the task never finished")
            await asyncio.sleep(state.get("pollIntervalMs", 250) / 1000)
        check(state["status"] == "completed" and state["result"]["structuredContent"]["ok"], f"task: {str(state)[:400]}")
        check(all(read(root, f"many/f{n:02}.py").startswith(f"value = {n + 100}\n") for n in range(40)), "the patch is not on disk")
        step(f"a 40-file apply_patch as a task: {state['status']} after {polls} tasks/get, every file patched")

        result = await session.call_tool("search_files", {"pattern": "needle", "max_results": 1000})
        links = [block for block in result.content if block.type == "resource_link"]
        check(not result.is_error and len(links) == 1, f"big search: {[b.type for b in result.content]}")
        whole = await session.read_resource(links[0].uri)
        hits = [line for line in whole.contents[0].text.splitlines() if "needle = True" in line]
        check(len(hits) == 800, f"the linked search text has {len(hits)} of 800 matches")
        step(f"a search with 800 matches: {len(text_of(result))} bytes inline and a resource link to all of it")


class RoundRobin(httpx2.AsyncBaseTransport):
    """A load balancer in front of several server processes: one address for the client, each
    request to the next process in turn."""

    def __init__(self, ports):
        self.ports, self.turn, self.served = ports, 0, [0] * len(ports)
        self.inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request):
        backend = self.turn % len(self.ports)
        self.turn += 1
        self.served[backend] += 1
        request.url = request.url.copy_with(port=self.ports[backend])
        return await self.inner.handle_async_request(request)

    async def aclose(self):
        await self.inner.aclose()


def start_http_server(root, token):
    """`editkit mcp --http 127.0.0.1:0` and the URL it says it listens at."""
    proc = subprocess.Popen(
        [EDITKIT, "mcp", "--http", "127.0.0.1:0", "--root", root],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "EDITKIT_MCP_TOKEN": token},
    )
    line = proc.stderr.readline()
    check(" at http://127.0.0.1:" in line, f"the server did not say where it listens: {line!r}")
    return proc, line.split(" at ", 1)[1].split()[0]


async def phase_stateless_http(root):
    """`mcp.Client` on protocol 2026-07-28 over streamable HTTP, with two server processes
    behind one address answering alternate requests: no session, so the staleness guard is the
    read's sha256 passed back as expected_hash."""
    token = "e2e-token-0123456789abcdef"
    servers = [start_http_server(root, token) for _ in range(2)]
    try:
        url = servers[0][1]
        ports = [int(u.rsplit(":", 1)[1].split("/")[0]) for _, u in servers]
        balancer = RoundRobin(ports)
        step(f"two servers at ports {ports} behind {url}")
        http = httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=60, transport=balancer)
        async with http, Client(streamable_http_client(url, http_client=http)) as client:
            session = client.session
            check(session.protocol_version == "2026-07-28", f"negotiated {session.protocol_version}")
            first = await session.list_tools()
            second = await session.list_tools()  # the session itself does not cache
            dump = lambda listed: json.dumps([t.model_dump(mode="json", by_alias=True) for t in listed.tools])
            check(dump(first) == dump(second), "the two processes list different tools")
            check(first.ttl_ms and first.ttl_ms > 0 and first.cache_scope == "private", f"tools/list cache hints: {first.ttl_ms} {first.cache_scope}")
            step(f"tools/list from both processes: {len(first.tools)} tools, identical; ttlMs {first.ttl_ms}, cacheScope {first.cache_scope}")

            result = await session.call_tool("read_file", {"path": "app.py"})
            check(not result.is_error, f"read: {text_of(result)}")
            sha = result.structured_content["sha256"]
            check(sha in text_of(result), "the read's text does not show its sha256")
            before = read(root, "app.py")
            result = await session.call_tool("edit_file", {"path": "app.py", "old_string": "'hello '", "new_string": "'hi '"})
            error = result.structured_content.get("error", {})
            check(result.is_error and error.get("kind") == "invalid_args" and error.get("field") == "expected_hash", f"unproven edit: {text_of(result)}")
            check("sha256" in error["message"] and read(root, "app.py") == before, f"unproven edit: {error}")
            step("an edit without expected_hash: refused (invalid_args, field expected_hash), nothing written")

            result = await session.call_tool("edit_file", {"path": "app.py", "old_string": "'hello '", "new_string": "'hi '", "expected_hash": sha})
            check(not result.is_error and "'hi '" in read(root, "app.py"), f"guarded edit: {text_of(result)}")
            result = await session.call_tool("read_file", {"path": "app.py"})
            sha = result.structured_content["sha256"]
            step("an edit with the read's sha256 as expected_hash: applied")

            write(root, "app.py", read(root, "app.py") + "# changed by a person\n")
            result = await session.call_tool("write_file", {"path": "app.py", "content": "clobbered\n", "expected_hash": sha})
            check(result.is_error and result.structured_content["error"]["kind"] == "stale", f"stale write: {text_of(result)}")
            check(read(root, "app.py").endswith("# changed by a person\n"), "the stale write changed the file")
            step("a write after an outside change: refused as stale, the person's change kept")

            result = await session.call_tool("write_file", {"path": "fresh.txt", "content": "new\n"})
            check(not result.is_error and read(root, "fresh.txt") == "new\n", f"new file: {text_of(result)}")
            patch = "*** Begin Patch\n*** Update File: lib/util.py\n@@\n-VERSION = 1\n+VERSION = 2\n*** End Patch\n"
            result = await session.call_tool("apply_patch", {"patch": patch})
            check(not result.is_error and read(root, "lib/util.py").startswith("VERSION = 2\n"), f"patch: {text_of(result)}")
            result = await session.call_tool("search_files", {"pattern": "VERSION"})
            check(not result.is_error and result.structured_content["results"], f"search: {text_of(result)}")
            step("a new file needs no hash; apply_patch (guarded by its context lines) and search_files")

            for n in range(1500):
                write(root, f"logs/run_{n:04}.log", "")
            result = await session.call_tool("glob", {"pattern": "logs/*.log"})
            links = [block for block in result.content if block.type == "resource_link"]
            check(not result.is_error and len(links) == 1, f"big listing: {[b.type for b in result.content]}")
            head = text_of(result)
            check(len(head) < 17000 and links[0].uri in head and "resources/read" in head, f"head: {head[-300:]}")
            check(len(result.structured_content["matches"]) == 1500, "the structured content lost matches")
            whole = await session.read_resource(links[0].uri)
            lines = [line for line in whole.contents[0].text.splitlines() if line.startswith("logs/")]
            check(len(lines) == 1500, f"the linked text has {len(lines)} of 1500 entries")
            step(f"a 1500-entry listing: {len(head)} bytes inline and a resource link, read whole from the other process")
        check(min(balancer.served) >= 4, f"requests per process: {balancer.served}")
        step(f"requests per process: {balancer.served}")
    finally:
        for proc, _ in servers:
            proc.kill()
            proc.wait(timeout=10)
            proc.stderr.close()


def phase_raw(root):
    proc = subprocess.Popen(
        [EDITKIT, "mcp", "--root", root],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )

    def send(line):
        proc.stdin.write(line + "\n")
        proc.stdin.flush()

    def receive(want_id):
        while True:
            line = proc.stdout.readline()
            check(line != "", f"the server closed stdout while waiting for id {want_id}")
            message = json.loads(line)
            if message.get("id") == want_id:
                return message

    try:
        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}))
        check("result" in receive(1), "initialize failed")
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        # Unparsable JSON has no id to answer to: it is ignored, as the other official SDKs do.
        send("{this is not json")
        # Well-formed JSON that is not a request, and requests with bad params or unknown
        # names, each get a JSON-RPC error (id null when the id cannot be read).
        malformed = [
            (None, "[]"),
            (None, '{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": "not an object"}'),
            (2, '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": 5}}'),
            (3, '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "no_such_tool", "arguments": {}}}'),
            (4, '{"jsonrpc": "2.0", "id": 4, "method": "no/such/method"}'),
        ]
        for want_id, line in malformed:
            send(line)
            reply = receive(want_id)
            check("error" in reply, f"malformed request {line} got {reply}")
            step(f"malformed {line[:60]}: JSON-RPC error {reply['error']['code']} {reply['error']['message'][:40]}")
        send(json.dumps({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {
            "name": "read_file", "arguments": {"path": "app.py"}}}))
        reply = receive(6)
        check(reply["result"]["structuredContent"]["ok"] is True, f"read after malformed requests: {reply}")
        step("still serving after malformed requests: read_file ok")
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise AssertionError("the server did not exit when stdin closed")
        finally:
            proc.stdout.close()
    check(proc.returncode == 0, f"the server exited with {proc.returncode}")
    step("server exited cleanly when stdin closed")


def fixture(root):
    write(root, "app.py", "def greet(name):\n    return 'hello ' + name\n\n\ndef main():\n    print(greet('world'))\n")
    write(root, "lib/util.py", "VERSION = 1\nNAME = 'util'\n")
    write(root, "twice.py", "x = 1\ny = 0\nx = 1\n")
    write(root, "notes.md", "# Notes\n")


def main():
    connections = [
        ("ClientSession, initialize handshake", phase_handshake),
        ("mcp.Client, default connection (server/discover, else initialize)", phase_client),
        ("ClientSession with roots, the default server", phase_default_with_roots),
        ("two ClientSessions over streamable HTTP", phase_http),
        ("mcp.Client over stateless streamable HTTP, two server processes behind one address", phase_stateless_http),
        ("mcp.Client with the tasks extension: a patch as a task, a big search as a link", phase_tasks),
    ]
    for number, (how, phase) in enumerate(connections, start=1):
        with tempfile.TemporaryDirectory() as root:
            fixture(root)
            print(f"phase {number}: the official MCP Python SDK (mcp {SDK_VERSION}), {how}", flush=True)
            asyncio.run(phase(root))
    with tempfile.TemporaryDirectory() as root:
        fixture(root)
        print(f"phase {len(connections) + 1}: raw JSON-RPC with malformed requests", flush=True)
        phase_raw(root)
    print("e2e: all checks passed", flush=True)


if __name__ == "__main__":
    main()
