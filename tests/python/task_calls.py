"""Calls a task tool with the official Python SDK client, as a task: the client is pinned to
protocol 2026-07-28 and declares the tasks extension (`io.modelcontextprotocol/tasks`), whose
`resultType: "task"` answer it claims; then it follows the task with `tasks/get`.

    task_calls.py URL KEY OTHER_KEY TOOL ARGS_JSON SLOW_ARGS_JSON

1. Calls TOOL with ARGS_JSON: the answer must be a task at once. Polls `tasks/get` until the
   task ends, keeping every status seen and the final result. Then calls it again as a plain
   `call_tool`, whose claim resolver follows the task to its tool result.
2. Asks for that task with OTHER_KEY (another principal): the answer must be an error.
3. Calls TOOL with SLOW_ARGS_JSON (an operation that never ends), cancels the task with
   `tasks/cancel` and reads its status once more.

Prints one JSON line: {"created": {...}, "statuses": [...], "final": {...}, "other": "...",
"followed": {...}, "cancel": {...} (the acknowledgement), "after_cancel": {...}}.
"""

import asyncio
import json
import sys
from typing import Any, Literal

import httpx2
from mcp import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, Request, RequestParams, Result
from pydantic import ConfigDict

TASKS = "io.modelcontextprotocol/tasks"


class CreatedTask(Result):
    """A `tools/call` answered with a task (SEP-2663): the task's fields, flat."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"]
    task_id: str
    status: str


class TaskState(Result):
    """A `tasks/get` answer: the task, with its result or error once it ended."""

    model_config = ConfigDict(extra="allow")
    task_id: str
    status: str


class Acknowledged(Result):
    """A `tasks/cancel` answer: an acknowledgement (the task's state is for `tasks/get`)."""

    model_config = ConfigDict(extra="allow")


class TaskParams(RequestParams):
    task_id: str


class GetTask(Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param = "taskId"


class CancelTask(Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param = "taskId"


async def follow(task: CreatedTask, ctx: ClaimContext) -> CallToolResult:
    """The claim's resolver: polls the task until it ends, and gives its tool result."""
    for _ in range(200):
        state = await ctx.session.send_request(GetTask(params=TaskParams(task_id=task.task_id)), TaskState)
        if state.status == "completed":
            return CallToolResult.model_validate(state.model_extra["result"])
        if state.status in ("failed", "cancelled"):
            raise RuntimeError(f"task {task.task_id} {state.status}: {dump(state)}")
        await asyncio.sleep(0.2)
    raise RuntimeError(f"task {task.task_id} did not end")


class Tasks(ClientExtension):
    """The tasks extension, declared, with its task answer claimed."""

    identifier = TASKS

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=follow)]


def dump(model: Result) -> dict:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


async def main() -> None:
    url, key, other_key, tool = sys.argv[1:5]
    args, slow_args = json.loads(sys.argv[5]), json.loads(sys.argv[6])
    out: dict[str, Any] = {}

    async def connect(api_key: str):
        http = httpx2.AsyncClient(headers={"X-API-Key": api_key})
        transport = streamable_http_client(url, http_client=http)
        return http, Client(transport, mode="2026-07-28", extensions=[Tasks()])

    http, client = await connect(key)
    async with http, client:
        await client.list_tools()
        created = await client.session.call_tool(tool, args, allow_claimed=True)
        assert isinstance(created, CreatedTask), f"not a task: {created!r}"
        out["created"] = dump(created)
        statuses = []
        for _ in range(200):
            state = await client.session.send_request(GetTask(params=TaskParams(task_id=created.task_id)), TaskState)
            statuses.append(state.status)
            if state.status in ("completed", "failed", "cancelled"):
                out["final"] = dump(state)
                break
            await asyncio.sleep(0.2)
        out["statuses"] = statuses

        other_http, other = await connect(other_key)
        async with other_http, other:
            try:
                seen = await other.session.send_request(
                    GetTask(params=TaskParams(task_id=created.task_id)), TaskState
                )
                out["other"] = f"answered: {dump(seen)}"
            except Exception as error:  # the server's error for an unknown task
                out["other"] = f"{type(error).__name__}: {error}"

        # The claim's resolver follows a task to its tool result, as any call returns it.
        followed = await client.call_tool(tool, args)
        out["followed"] = followed.model_dump(by_alias=True, mode="json", exclude_none=True)

        slow = await client.session.call_tool(tool, slow_args, allow_claimed=True)
        assert isinstance(slow, CreatedTask), f"not a task: {slow!r}"
        await asyncio.sleep(1.5)
        cancelled = await client.session.send_request(
            CancelTask(params=TaskParams(task_id=slow.task_id)), Acknowledged
        )
        out["cancel"] = dump(cancelled)
        await asyncio.sleep(0.5)
        after = await client.session.send_request(GetTask(params=TaskParams(task_id=slow.task_id)), TaskState)
        out["after_cancel"] = dump(after)
    print(json.dumps(out))


asyncio.run(main())
