// End-to-end test of `editkit mcp` with the official MCP TypeScript SDK
// (@modelcontextprotocol/sdk, which speaks the handshake revisions up to 2025-11-25), over
// stdio and over streamable HTTP: tools/list, read_file -> edit_file -> a stale write refused
// (isError, kind stale, the person's change kept) -> apply_patch -> search_files, checking the
// files on disk after each step. Every structured result is checked against the tool's output
// schema by the SDK (the server runs with --output-schemas). A third phase declares the
// 2025-11-25 tasks capability on stdio: the same steps, then apply_patch of 40 files as a task
// (created, polled with tasks/get, its result from tasks/result) and a 900-match search answered
// as its head plus a resource_link, read with resources/read.
//
// Usage: node e2e.mjs EDITKIT_BINARY   (ts-e2e.sh installs the SDK and runs this)
// Exits non-zero with a message on the first failed check.

import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const editkit = resolve(process.argv[2] ?? "target/debug/editkit");

function check(condition, message) {
  if (!condition) throw new Error(`check failed: ${message}`);
}

function step(text) {
  console.log(`  - ${text}`);
}

function fixture() {
  const root = mkdtempSync(join(tmpdir(), "editkit-ts-e2e-"));
  mkdirSync(join(root, "lib"));
  writeFileSync(join(root, "app.py"), "def greet(name):\n    return 'hello ' + name\n");
  writeFileSync(join(root, "lib/util.py"), "VERSION = 1\n");
  writeFileSync(join(root, "notes.md"), "# Notes\n");
  return root;
}

const text = (result) => result.content.filter((b) => b.type === "text").map((b) => b.text).join("");
const onDisk = (root, path) => readFileSync(join(root, path), "utf8");

async function checks(client, root) {
  const info = client.getServerVersion();
  check(info?.name === "editkit", `server name ${info?.name}`);
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const name of ["read_file", "edit_file", "write_file", "apply_patch", "search_files"]) {
    check(names.includes(name), `${name} is not listed: ${names}`);
  }
  check(tools.every((t) => t.annotations && t.outputSchema), "a tool lacks annotations or an output schema");
  step(`tools/list: ${tools.length} tools, each with annotations and an output schema`);

  const call = (name, args) => client.callTool({ name, arguments: args });
  let result = await call("read_file", { path: "app.py" });
  check(!result.isError && result.structuredContent.content === onDisk(root, "app.py"), `read: ${text(result)}`);
  const sha = result.structuredContent.sha256;
  step(`read_file app.py: sha256 ${sha.slice(0, 12)}`);

  result = await call("edit_file", { path: "app.py", old_string: "'hello '", new_string: "'hi '", expected_hash: sha });
  check(!result.isError && onDisk(root, "app.py").includes("'hi '"), `edit: ${text(result)}`);
  step(`edit_file app.py: rung ${result.structuredContent.rung}`);

  result = await call("read_file", { path: "notes.md" });
  check(!result.isError, `read notes.md: ${text(result)}`);
  writeFileSync(join(root, "notes.md"), "# Notes\n\nchanged by a person\n");
  result = await call("write_file", { path: "notes.md", content: "# by the agent\n" });
  check(result.isError === true && result.structuredContent.error.kind === "stale", `stale write: ${text(result)}`);
  check(onDisk(root, "notes.md") === "# Notes\n\nchanged by a person\n", "the stale write changed the file");
  step("a write after an outside change: refused as stale, the person's change kept");

  const patch = "*** Begin Patch\n*** Update File: lib/util.py\n@@\n-VERSION = 1\n+VERSION = 2\n*** Add File: lib/new.py\n+NEW = True\n*** End Patch\n";
  result = await call("apply_patch", { patch });
  check(!result.isError && onDisk(root, "lib/util.py") === "VERSION = 2\n" && onDisk(root, "lib/new.py") === "NEW = True\n", `patch: ${text(result)}`);
  step("apply_patch: lib/util.py updated, lib/new.py added");

  result = await call("search_files", { pattern: "VERSION|NEW" });
  const files = result.structuredContent.results.map((r) => r.file).sort();
  check(!result.isError && JSON.stringify(files) === JSON.stringify(["lib/new.py", "lib/util.py"]), `search: ${files}`);
  step(`search_files: ${files.join(", ")}`);
}

async function stdio() {
  const root = fixture();
  try {
    const transport = new StdioClientTransport({ command: editkit, args: ["mcp", "--tools", "all", "--output-schemas", "--root", root], stderr: "ignore" });
    const client = new Client({ name: "editkit-ts-e2e", version: "0" });
    await client.connect(transport);
    await checks(client, root);
    await client.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function stdioTasks() {
  const root = fixture();
  mkdirSync(join(root, "src"));
  for (let n = 0; n < 40; n++) writeFileSync(join(root, `src/mod_${n}.py`), "value = 1\n");
  writeFileSync(join(root, "big.txt"), Array.from({ length: 900 }, (_, n) => `needle ${n}\n`).join(""));
  try {
    const transport = new StdioClientTransport({ command: editkit, args: ["mcp", "--tools", "all", "--output-schemas", "--root", root], stderr: "ignore" });
    const client = new Client({ name: "editkit-ts-e2e", version: "0" }, { capabilities: { tasks: { cancel: {} } } });
    await client.connect(transport);
    check(client.getServerCapabilities()?.tasks?.requests?.tools?.call, `no task-augmented tools/call: ${JSON.stringify(client.getServerCapabilities())}`);
    await checks(client, root);
    const { tools } = await client.listTools();
    const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
    check(support.apply_patch === "optional" && support.search_files === "optional" && support.read_file === undefined, `taskSupport: ${JSON.stringify(support)}`);
    step("the server declares task-augmented tools/call; apply_patch and the walks may run as tasks");

    let patch = "*** Begin Patch\n";
    for (let n = 0; n < 40; n++) patch += `*** Update File: src/mod_${n}.py\n@@\n-value = 1\n+value = 2\n`;
    patch += "*** End Patch\n";
    const seen = [];
    let taskId;
    let result;
    for await (const message of client.experimental.tasks.callToolStream({ name: "apply_patch", arguments: { patch } }, undefined, { task: { ttl: 60000 } })) {
      seen.push(message.type);
      if (message.type === "taskCreated") taskId = message.task.taskId;
      if (message.type === "error") throw message.error;
      if (message.type === "result") result = message.result;
    }
    check(taskId && seen[0] === "taskCreated" && seen.includes("taskStatus") && seen.at(-1) === "result", `task stream: ${seen}`);
    check(!result.isError && result.structuredContent.ok === true, `patch task result: ${text(result)}`);
    for (let n = 0; n < 40; n++) check(onDisk(root, `src/mod_${n}.py`) === "value = 2\n", `src/mod_${n}.py not patched`);
    const task = await client.experimental.tasks.getTask(taskId);
    check(task.status === "completed", `tasks/get after the result: ${JSON.stringify(task)}`);
    step(`apply_patch of 40 files as task ${taskId.slice(0, 8)}: ${seen.join(" -> ")}; every file patched`);

    result = await client.callTool({ name: "search_files", arguments: { pattern: "needle", max_results: 1000 } });
    const link = result.content.find((b) => b.type === "resource_link");
    check(!result.isError && link && text(result).includes(link.uri) && text(result).includes("resources/read"), `big search: ${text(result).slice(0, 300)}`);
    const read = await client.readResource({ uri: link.uri });
    const lines = read.contents[0].text.split("\n").filter((line) => line.startsWith("big.txt:"));
    check(lines.length === 900, `the linked text has ${lines.length} matches`);
    step(`search_files of 900 matches: ${text(result).length} bytes inline and ${link.uri}, read whole with resources/read`);
    await client.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function http() {
  const root = fixture();
  const token = "ts-e2e-token-0123456789abcdef";
  const server = spawn(editkit, ["mcp", "--http", "127.0.0.1:0", "--tools", "all", "--output-schemas", "--root", root], {
    env: { ...process.env, EDITKIT_MCP_TOKEN: token },
    stdio: ["ignore", "ignore", "pipe"],
  });
  try {
    const url = await new Promise((done, fail) => {
      let seen = "";
      server.stderr.on("data", (chunk) => {
        seen += chunk;
        const found = seen.match(/ at (http:\/\/127\.0\.0\.1:\d+\/mcp)/);
        if (found) done(found[1]);
      });
      server.on("exit", (code) => fail(new Error(`the server exited (${code}): ${seen}`)));
    });
    step(`listening at ${url}`);
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    const client = new Client({ name: "editkit-ts-e2e", version: "0" });
    await client.connect(transport);
    check(transport.sessionId, "no session over HTTP");
    await checks(client, root);
    await transport.terminateSession();
    await client.close();
  } finally {
    server.kill();
    rmSync(root, { recursive: true, force: true });
  }
}

console.log("phase 1: the official MCP TypeScript SDK, Client over stdio");
await stdio();
console.log("phase 2: the official MCP TypeScript SDK, Client over streamable HTTP (a session)");
await http();
console.log("phase 3: the official MCP TypeScript SDK, Client declaring the 2025-11-25 tasks capability, over stdio");
await stdioTasks();
console.log("ts e2e: all checks passed");
