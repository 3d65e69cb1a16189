"""Makes many tool calls through one URL with the official Python SDK client, in one era.

    replica_calls.py URL ERA CLIENTS CALLS TOOL [HEADER=VALUE...]

ERA is `stateless` (the client pinned to protocol 2026-07-28: no handshake, every request a
single exchange), `session` (the initialize handshake: one session per client) or
`session-REVISION` (the handshake asking for that revision, e.g. `session-2025-06-18`, as a
client of that revision does). CLIENTS
clients run side by side, each making CALLS calls of TOOL with no arguments.

Prints one JSON line: {"ok": N, "failed": N, "errors": [...], "sessions": [...], "versions": [...]}
with the calls the client accepted as successful results, the calls that raised or came back
with isError (and the first few errors), the session ids the server issued and the protocol
versions the clients negotiated.
"""

import asyncio
import json
import sys

import httpx2
import mcp.client.session
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


async def run_client(url: str, era: str, calls: int, tool: str, headers: dict, out: dict) -> None:
    async def seen(response: httpx2.Response) -> None:
        session = response.headers.get("mcp-session-id")
        if session:
            out["sessions"].add(session)

    mode = "2026-07-28" if era == "stateless" else "legacy"
    async with httpx2.AsyncClient(headers=headers, event_hooks={"response": [seen]}) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode) as client:
            out["versions"].add(client.protocol_version)
            for _ in range(calls):
                try:
                    result = await client.call_tool(tool, {})
                except Exception as error:  # a transport or protocol failure
                    out["failed"] += 1
                    out["errors"].append(f"{type(error).__name__}: {error}")
                    continue
                if result.is_error:
                    out["failed"] += 1
                    texts = [c.text for c in result.content if getattr(c, "type", "") == "text"]
                    out["errors"].append(f"isError: {texts}")
                else:
                    out["ok"] += 1


async def main() -> None:
    url, era, clients, calls, tool = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    if era.startswith("session-"):
        # The revision the handshake asks for: the client's own constant, as an older release has it.
        mcp.client.session.LATEST_HANDSHAKE_VERSION = era.removeprefix("session-")
        era = "session"
    headers = dict(h.split("=", 1) for h in sys.argv[6:])
    out = {"ok": 0, "failed": 0, "errors": [], "sessions": set(), "versions": set()}
    await asyncio.gather(*(run_client(url, era, calls, tool, headers, out) for _ in range(clients)))
    out["errors"] = out["errors"][:5]
    out["sessions"] = sorted(out["sessions"])
    out["versions"] = sorted(out["versions"])
    print(json.dumps(out))


asyncio.run(main())
