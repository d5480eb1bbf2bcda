"""An MCP server of protocol revision 2026-07-28 with the tasks extension
(`io.modelcontextprotocol/tasks`), for the bridge's tests only (never shipped), built on FastMCP
and its `fastmcp-tasks` package (Docket's in-memory backend, so one process holds it all).

Its tools run as tasks when the client's request declares the extension (polled every 200 ms):
- `crunch` works for `seconds` (default 3) in `steps` (default 4), each reported as the task's
  status message, and ends with `crunched <seconds>`; without the extension it runs as a plain
  call;
- `ask` asks the user's name mid-task (the task turns `input_required`) and ends with what was
  answered, as JSON text; it runs only as a task (without the extension: error -32021);
- `forever` never ends (for cancel and the task's lifetime); only as a task;
- `broken` fails mid-task (the task ends `failed`); only as a task;
- `plain` is no task: it answers at once.

`python ext_task_server.py` speaks stdio; `python ext_task_server.py http PORT` streamable
HTTP at `http://127.0.0.1:PORT/mcp`.
"""

import asyncio
import json
import sys
from datetime import timedelta

import mcp_types as types
from fastmcp import Context, FastMCP
from fastmcp.utilities.tasks import TaskConfig
from fastmcp_tasks import TasksExtension
from mcp.shared.exceptions import MCPError

mcp = FastMCP("ext-task-server")
mcp.add_extension(TasksExtension())

# Polled every 200 ms (FastMCP's default asks for 5 s, which would make the tests slow).
OPTIONAL = TaskConfig(mode="optional", poll_interval=timedelta(milliseconds=200))
REQUIRED = TaskConfig(mode="required", poll_interval=timedelta(milliseconds=200))

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}},
    "required": ["name"],
}


@mcp.tool(task=OPTIONAL)
async def crunch(ctx: Context, seconds: float = 3.0, steps: int = 4) -> str:
    """Work for `seconds` in `steps`, saying how far it got."""
    for step in range(steps):
        await ctx.report_progress(step, steps, f"step {step + 1} of {steps}")
        await asyncio.sleep(seconds / steps)
    return f"crunched {seconds:g}"


@mcp.tool(task=REQUIRED)
async def ask(ctx: Context):
    """Ask the user's name mid-task, then tell what they answered."""
    if not ctx.input_responses:
        await ctx.report_progress(1, 2, "waiting for a name")
        question = types.ElicitRequest(
            params=types.ElicitRequestFormParams(
                mode="form", message="What is your name?", requested_schema=SCHEMA
            )
        )
        return types.InputRequiredResult(input_requests={"name": question})
    answer = ctx.input_responses["name"]
    if hasattr(answer, "model_dump"):
        answer = answer.model_dump(mode="json", exclude_none=True)
    return json.dumps({"answer": answer})


@mcp.tool(task=REQUIRED)
async def forever(ctx: Context) -> str:
    """Never end."""
    await ctx.report_progress(0, None, "started, and never done")
    while True:
        await asyncio.sleep(3600)


@mcp.tool(task=REQUIRED)
async def broken(ctx: Context) -> str:
    """Fail mid-task: the task ends `failed`, with a JSON-RPC error."""
    await ctx.report_progress(0, None, "about to fail")
    await asyncio.sleep(0.5)
    # A JSON-RPC error (any other exception is a tool error: a `completed` task, `isError`).
    raise MCPError(-32603, "broken on purpose")


@mcp.tool()
async def plain() -> str:
    """Answer at once, without a task."""
    return "plain"


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "http":
        mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[2]), path="/mcp")
    else:
        mcp.run(transport="stdio", show_banner=False)
