"""Runs the official MCP conformance suite (npm `@modelcontextprotocol/conformance`) against
`editkit mcp --http`, for the server scenarios that apply to a tools-only server.

Usage: python3 conformance.py EDITKIT_BINARY

The suite and the Node.js it needs (>= 22; the npm package `node` ships one) are installed with
npm under target/conformance on the first run, at the versions pinned below. `cargo xtask ci`
and `cargo xtask conformance` run this script.

The suite's runner sends no `Authorization` header, and editkit answers 401 to any request
without its token; so the runner talks to a small proxy here that adds the header to each
request and passes everything else through byte for byte (the `Host` and `Origin` headers the
DNS-rebinding scenario sends reach editkit as they were sent). Each scenario gets a fresh
server on a fresh workspace. Exits non-zero when a scenario fails, listing each.
"""

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading

# The server scenarios that apply to a tools-only server, each with the flags it runs with.
# dns-rebinding-protection expects a request from a localhost browser origin to be served:
# editkit refuses every browser origin unless allowed, so that one runs with the localhost
# origins allowed (the DNS-rebinding refusal it checks is the Host check, which stays).
APPLICABLE = {
    "server-initialize": [],
    "ping": [],
    "tools-list": [],
    "dns-rebinding-protection": ["--allow-origin", "http://localhost:*"],
    "server-sse-polling": [],
    "server-sse-multiple-streams": [],
}
# The others, and why they do not apply.
NOT_APPLICABLE = {
    "tools-call-*, json-schema-2020-12": "they call the suite's reference tools (test_simple_text, ...)",
    "logging-set-level": "no logging capability (Logging is deprecated from 2026-07-28)",
    "completion-complete": "completions complete prompt and resource arguments; there are none",
    "resources-*, prompts-*": "a tools-only server has no resources or prompts",
    "elicitation-*": "the server never asks the client (server-to-client requests)",
}
CONFORMANCE = "@modelcontextprotocol/conformance@0.1.16"
NODE = "node@22.23.3"
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
PREFIX = os.path.join(ROOT, "target", "conformance")
TOKEN = "conformance-token-0123456789abcdef"
MAX_HEAD = 64 << 10


async def pipe(reader, writer):
    try:
        while data := await reader.read(1 << 16):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def requests_with_token(client, upstream):
    """Copies HTTP/1.1 requests from `client` to `upstream`, each with the Authorization header
    added after its request line; bodies by Content-Length."""
    try:
        while True:
            head = await client.readuntil(b"\r\n\r\n")
            if len(head) > MAX_HEAD:
                break
            line, _, rest = head.partition(b"\r\n")
            length = 0
            for header in rest.split(b"\r\n"):
                name, _, value = header.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            upstream.write(line + b"\r\nAuthorization: Bearer " + TOKEN.encode() + b"\r\n" + rest)
            if length:
                upstream.write(await client.readexactly(length))
            await upstream.drain()
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, asyncio.CancelledError):
        pass
    finally:
        upstream.close()


def start_proxy(target_port):
    """A proxy on a free loopback port to editkit's; returns its port."""
    ready = threading.Event()
    box = {}

    async def handle(client_reader, client_writer):
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", target_port)
        await asyncio.gather(requests_with_token(client_reader, up_writer), pipe(up_reader, client_writer))

    async def main():
        server = await asyncio.start_server(handle, "127.0.0.1", 0, limit=MAX_HEAD * 2)
        box["port"] = server.sockets[0].getsockname()[1]
        ready.set()
        async with server:
            await server.serve_forever()

    threading.Thread(target=lambda: asyncio.run(main()), daemon=True).start()
    if not ready.wait(30):
        sys.exit("conformance.py: the proxy did not start")
    return box["port"]


def install():
    """The suite's runner and a Node.js 22 under target/conformance, installed when missing;
    returns the runner and the folder holding `node`."""
    bin_dir = os.path.join(PREFIX, "node_modules", ".bin")
    runner = os.path.join(bin_dir, "conformance")
    wanted = {"@modelcontextprotocol/conformance": CONFORMANCE.rsplit("@", 1)[1], "node": NODE.rsplit("@", 1)[1]}
    have = {}
    for package in wanted:
        try:
            with open(os.path.join(PREFIX, "node_modules", package, "package.json"), encoding="utf-8") as f:
                have[package] = json.load(f)["version"]
        except (OSError, ValueError, KeyError):
            pass
    if have != wanted:
        os.makedirs(PREFIX, exist_ok=True)
        command = ["npm", "install", "--no-audit", "--no-fund", "--prefix", PREFIX, NODE, CONFORMANCE]
        if subprocess.run(command, check=False).returncode != 0:
            sys.exit(f"conformance.py: `{' '.join(command)}` failed (is the npm registry reachable?)")
    version = subprocess.run([os.path.join(bin_dir, "node"), "--version"], capture_output=True, text=True, check=False)
    if version.returncode != 0 or int(version.stdout.strip().lstrip("v").split(".")[0]) < 22:
        sys.exit(f"conformance.py: {bin_dir}/node is not Node.js 22 or later: {version.stdout}{version.stderr}")
    return runner, bin_dir


def run_scenario(editkit, conformance, node_dir, scenario, flags):
    with tempfile.TemporaryDirectory() as root:
        with open(os.path.join(root, "README.md"), "w", encoding="utf-8") as f:
            f.write("# conformance workspace\n")
        server = subprocess.Popen(
            [editkit, "mcp", "--http", "127.0.0.1:0", "--root", root, *flags],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "EDITKIT_MCP_TOKEN": TOKEN},
        )
        try:
            line = server.stderr.readline()
            if " at http://127.0.0.1:" not in line:
                sys.exit(f"conformance.py: the server did not say where it listens: {line!r}")
            port = int(line.split(" at http://127.0.0.1:", 1)[1].split("/", 1)[0])
            proxy = start_proxy(port)
            env = {**os.environ, "PATH": node_dir + os.pathsep + os.environ.get("PATH", "")}
            with tempfile.TemporaryDirectory() as out:
                result = subprocess.run(
                    [conformance, "server", "--url", f"http://localhost:{proxy}/mcp", "--scenario", scenario, "-o", out],
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=300,
                    check=False,
                )
            return result
        finally:
            server.kill()
            server.wait(timeout=10)
            server.stderr.close()


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: conformance.py EDITKIT_BINARY")
    editkit = os.path.abspath(sys.argv[1])
    conformance, node_dir = install()
    failed = []
    for scenario, flags in APPLICABLE.items():
        result = run_scenario(editkit, conformance, node_dir, scenario, flags)
        output = (result.stdout + result.stderr).strip()
        status = "ok  " if result.returncode == 0 else "FAIL"
        print(f"{status} {scenario}\n" + "\n".join("     " + l for l in output.splitlines()[-12:]), flush=True)
        if result.returncode != 0:
            failed.append(scenario)
    if failed:
        sys.exit(f"conformance: {len(failed)} of {len(APPLICABLE)} scenarios failed: {', '.join(failed)}")
    for scenarios, why in NOT_APPLICABLE.items():
        print(f"n/a  {scenarios}: {why}")
    print(f"conformance: all {len(APPLICABLE)} applicable server scenarios passed", flush=True)


if __name__ == "__main__":
    main()
