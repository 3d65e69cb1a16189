"""Holds one session with an MCP server over stdio, with the official Python SDK client,
counting the `notifications/tools/list_changed` it receives.

    watch_client.py STDERR_FILE -- COMMAND [ARG...]

The server's stderr goes to STDERR_FILE. Commands come one a line on stdin; each is answered
with one JSON line on stdout:

    list      {"tools": [NAME...], "changes": N}, N the notifications received so far
    changed   waits (at most 30 s) for one more notification than the last answer counted,
              then answers as `list`; {"error": "..."} if none arrives
"""

import json
import sys

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client, types


async def main() -> None:
    errlog_path = sys.argv[1]
    command = sys.argv[sys.argv.index("--") + 1 :]
    changes = 0
    arrived = anyio.Event()

    async def on_message(message) -> None:
        nonlocal changes, arrived
        if isinstance(message, types.ToolListChangedNotification):
            changes += 1
            arrived.set()

    def answer(value: dict) -> None:
        print(json.dumps(value), flush=True)

    params = StdioServerParameters(command=command[0], args=command[1:])
    with open(errlog_path, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, message_handler=on_message) as session:
                await session.initialize()
                counted = 0
                while True:
                    line = await anyio.to_thread.run_sync(sys.stdin.readline)
                    if not line:
                        return
                    if line.strip() == "changed":
                        with anyio.move_on_after(30):
                            while changes <= counted:
                                await arrived.wait()
                                arrived = anyio.Event()
                        if changes <= counted:
                            answer({"error": "no notifications/tools/list_changed in 30 s"})
                            continue
                    listed = await session.list_tools()
                    counted = changes
                    answer({"tools": [tool.name for tool in listed.tools], "changes": changes})


anyio.run(main)
