"""Lists the tools of an MCP server and calls one, with the official Python SDK client.

    call_tool.py stdio TOOL ARGS_JSON [NAME=VALUE...] -- COMMAND [ARG...]
    call_tool.py http TOOL ARGS_JSON URL [HEADER=VALUE...]
    call_tool.py sse TOOL ARGS_JSON URL [HEADER=VALUE...]   (legacy HTTP+SSE, 2024-11-05)

Prints one JSON line: {"ok": true, "isError": ..., "structuredContent": ..., "text": [...]}
when the client accepted the result, or {"ok": false, "error": "..."} when the client
raised (for example because structured content does not match the tool's outputSchema).
Over stdio, each NAME=VALUE before `--` is set in the server's environment, as a desktop
host passes a bundle's configured values.
"""

import asyncio
import json
import sys

import httpx2
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.sse import sse_client
from mcp.client.stdio import get_default_environment
from mcp.client.streamable_http import streamable_http_client


async def call(session: ClientSession, tool: str, args: dict) -> dict:
    await session.initialize()
    await session.list_tools()
    try:
        result = await session.call_tool(tool, args)
    except Exception as error:  # the client's own validation failures land here
        return {"ok": False, "error": f"{type(error).__name__}: {error}"}
    texts = [c.text for c in result.content if getattr(c, "type", "") == "text"]
    return {
        "ok": True,
        "isError": bool(result.is_error),
        "structuredContent": result.structured_content,
        "text": texts,
    }


async def main() -> None:
    mode, tool, args = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    if mode == "stdio":
        rest = sys.argv[4:]
        env = None
        if "--" in rest:
            split = rest.index("--")
            pairs = rest[:split]
            rest = rest[split + 1 :]
            if pairs:
                env = {**get_default_environment(), **dict(p.split("=", 1) for p in pairs)}
        params = StdioServerParameters(command=rest[0], args=rest[1:], env=env)
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                out = await call(session, tool, args)
    elif mode == "sse":
        url = sys.argv[4]
        headers = dict(h.split("=", 1) for h in sys.argv[5:])
        async with sse_client(url, headers=headers) as (read, write):
            async with ClientSession(read, write) as session:
                out = await call(session, tool, args)
    else:
        url = sys.argv[4]
        headers = dict(h.split("=", 1) for h in sys.argv[5:])
        async with httpx2.AsyncClient(headers=headers) as http:
            async with streamable_http_client(url, http_client=http) as streams:
                read, write = streams[0], streams[1]
                async with ClientSession(read, write) as session:
                    out = await call(session, tool, args)
    print(json.dumps(out))


asyncio.run(main())
