#!/usr/bin/env python3
"""Seeds fuzz/corpus/<target>/ for scripts/fuzz.sh from what the repository ships: the specs,
allowlists and plugin manifests of specs/, the generator's test fixtures, the generated
crates' tools.json (output schemas, argument shapes), the search quality queries, and JSON-RPC
messages and SSE streams as the official clients send them. Existing corpus files are kept."""

import hashlib
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"


def put(target: str, data: bytes) -> None:
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ("seed-" + hashlib.sha1(data).hexdigest())).write_bytes(data)


def files(*patterns: str):
    for pattern in patterns:
        yield from sorted(ROOT.glob(pattern))


META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "seed", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
MESSAGES = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "seed", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": META}},
    {"jsonrpc": "2.0", "id": 3, "method": "ping"},
    {"jsonrpc": "2.0", "id": "x", "method": "server/discover", "params": {"_meta": META}},
    {"jsonrpc": "2.0", "id": 4, "method": "prompts/list"},
    {"jsonrpc": "2.0", "id": 5, "method": "resources/list"},
    {"jsonrpc": "2.0", "id": 6, "result": {}},
    {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
]


# Programs for code mode's `execute`: inner calls, errors, limits and the language's corners.
CODE_PROGRAMS = [
    "return 1;",
    "const r = await tools.synaplan_list_prompts({}); return r;",
    "try { await tools.synaplan_send_message({message: 'hi'}); } catch (e) { return e.message; }",
    "const all = await Promise.all([1, 2, 3].map((i) => tools.synaplan_list_files({page: i}))); return all.length;",
    "console.log('a', {b: [1, 2]}); console.error(new Error('x')); return [null, true, 'x', 1.5];",
    "throw new TypeError('no');",
    "const a = ;",
    "let n: number = 1; return n;",
    "while (true) {}",
    "await new Promise(() => {});",
    "function f(n) { return f(n + 1); } return f(0);",
    "const a = []; while (true) a.push('x'.repeat(1 << 16));",
    "return 'y'.repeat(1 << 20);",
    "for (let i = 0; i < 100; i++) tools.synaplan_list_prompts({});",
    "return [typeof require, typeof process, await import('x').catch((e) => e.message)];",
    "Object.prototype.x = 1; globalThis.y = 2; return eval('1 + 1');",
    "return /(a+)+b/.test('a'.repeat(40));",
    "return JSON.stringify(new Proxy({}, {get: () => 1}));",
    "const m = new Map([[1, 2]]); return [...m];",
    "return 10n ** 10n;",
    "return {toJSON() { throw new Error('no JSON'); }};",
    "}); (async function () {",
]


def main() -> None:
    for spec in files("specs/*/openapi.*", "specs/*/*.yaml", "generator/tests/fixtures/**/*.yaml"):
        put("spec_load", spec.read_bytes())
    for allowlist in files("specs/*/mcp_tools.yaml", "generator/tests/fixtures/**/mcp_tools.yaml"):
        put("allowlist", b"\x00" + allowlist.read_bytes())
    for manifest in files("specs/*/plugins/*/manifest.json"):
        put("allowlist", b"\x01" + manifest.read_bytes())

    tools = []
    for listing in files("generated/*/tools.json"):
        tools.extend(json.loads(listing.read_text())["tools"])
    calls = [
        {"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call", "params": {"name": t["name"], "arguments": {}, "_meta": META}}
        for i, t in enumerate(tools)
    ]
    for message in MESSAGES + calls:
        body = json.dumps(message).encode()
        for mode in (0, 1):
            put("server_http", bytes([mode]) + body)
        put("legacy_sse", b"\x05\x40" + body)
        put("client_frames", b"\x07\x10" + body)
        event = b"event: message\ndata: " + body + b"\n\n"
        put("legacy_sse", b"\x09\x08" + b"event: endpoint\ndata: /message?sessionId=abc\n\n" + event + b": keep-alive\n\n")

    for i, tool in enumerate(tools):
        properties = tool.get("inputSchema", {}).get("properties", {})
        example = {}
        for name, schema in properties.items():
            kind = schema.get("type")
            kind = kind[0] if isinstance(kind, list) and kind else kind
            kind = kind if isinstance(kind, str) else "string"
            example[name] = {"integer": 7, "number": 1.5, "boolean": True, "array": ["a", "b"], "object": {"k": "v"}}.get(kind, "text value")
        put("upstream_encoders", bytes([6 + i]) + json.dumps(example).encode())
        if "outputSchema" in tool:
            put("output_check", json.dumps([tool["outputSchema"], {}]).encode())
    for which in range(6):
        put("upstream_encoders", bytes([which]) + json.dumps({"a": "x y/z", "b": ["p", "q"], "c": {"r": 1}, "d": {"s": [1, 2]}, "e": [1, 2], "f": True, "body": {"n": None}}).encode())
    put("output_check", json.dumps([{"type": "object", "properties": {"a": {"oneOf": [{"type": "string", "enum": ["x"]}, {"type": "integer", "minimum": 3}]}}, "required": ["a"], "additionalProperties": False}, {"a": "x"}]).encode())

    for program in CODE_PROGRAMS:
        put("code_execute", program.encode())

    for tsv in files("tests/data/*.tsv"):
        for line in tsv.read_text().splitlines():
            if line and not line.startswith("#"):
                put("search_query", b"\x0a" + line.split("\t")[0].encode())
    for index in files("generated/*/src/search.rs"):
        text = index.read_text()
        start = text.find('r"mcpgen-search-index')
        if start >= 0:
            end = text.find('";', start)
            put("search_query", b"\x8a" + text[start + 2:end].encode())


if __name__ == "__main__":
    main()
