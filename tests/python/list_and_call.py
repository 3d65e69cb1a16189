"""Lists the tools of an MCP server and makes one or more calls, with the official Python SDK
client, over Streamable HTTP.

    list_and_call.py CALLS_JSON URL [HEADER=VALUE...]

CALLS_JSON is an array of {"name": ..., "arguments": {...}}. Prints one JSON line:
{"ok": true, "tools": [names...], "results": [{"ok": true, "isError": ...,
"structuredContent": ..., "text": [...]} | {"ok": false, "error": "..."}]}, or
{"ok": false, "error": "..."} when the client could not connect or list.
"""

import asyncio
import json
import sys

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def run(session: ClientSession, calls: list) -> dict:
    await session.initialize()
    listed = await session.list_tools()
    results = []
    for call in calls:
        try:
            result = await session.call_tool(call["name"], call.get("arguments", {}))
        except Exception as error:  # the client's own validation failures land here
            results.append({"ok": False, "error": f"{type(error).__name__}: {error}"})
            continue
        texts = [c.text for c in result.content if getattr(c, "type", "") == "text"]
        results.append(
            {
                "ok": True,
                "isError": bool(result.is_error),
                "structuredContent": result.structured_content,
                "text": texts,
            }
        )
    return {"ok": True, "tools": [t.name for t in listed.tools], "results": results}


async def main() -> None:
    calls, url = json.loads(sys.argv[1]), sys.argv[2]
    headers = dict(h.split("=", 1) for h in sys.argv[3:])
    try:
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            async with streamable_http_client(url, http_client=http) as streams:
                read, write = streams[0], streams[1]
                async with ClientSession(read, write) as session:
                    out = await run(session, calls)
    except Exception as error:
        out = {"ok": False, "error": f"{type(error).__name__}: {error}"}
    print(json.dumps(out))


asyncio.run(main())
