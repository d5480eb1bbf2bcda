"""An MCP server of protocol revision 2026-07-28 for the bridge's tests only (never shipped),
built on the Python SDK: its tool `ask` answers its first call with an `InputRequiredResult`
(a form question, and a request state), and the retry that carries the answer with the
answer's action and content and the state it got back, as JSON text. `seen` returns the
protocol version the request's `_meta` named. `grow` adds a tool, `grown`, and announces the
change to the clients that listen (`subscriptions/listen`). The prompt `greeting` asks the same
question in an `InputRequiredResult`, and renders the answer and the state it got back.
"""

import json

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("mrtr-server")

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}},
    "required": ["name"],
}


def asking(state: str) -> types.InputRequiredResult:
    """The user's name asked for, with `state` to be given back."""
    question = types.ElicitRequest(
        params=types.ElicitRequestFormParams(
            mode="form", message="What is your name?", requested_schema=SCHEMA
        )
    )
    return types.InputRequiredResult(input_requests={"name": question}, request_state=state)


def told(ctx: Context) -> str:
    """The answer to the question and the state given back, as JSON text."""
    answer = ctx.input_responses["name"]
    if hasattr(answer, "model_dump"):
        answer = answer.model_dump(mode="json", exclude_none=True)
    return json.dumps({"answer": answer, "state": ctx.request_state})


@server.tool()
async def ask(ctx: Context):
    """Ask the user's name, then tell what they answered."""
    if not ctx.input_responses:
        return asking("asked-once")
    return told(ctx)


@server.prompt()
async def greeting(ctx: Context):
    """Ask the user's name, then render what they answered."""
    if not ctx.input_responses:
        return asking("prompted")
    return told(ctx)


@server.tool()
async def seen(ctx: Context) -> str:
    """The protocol version of this request."""
    return str(ctx.protocol_version)


@server.tool()
async def grow(ctx: Context) -> str:
    """Add the tool `grown`."""

    def grown() -> str:
        """Added by `grow`."""
        return "grown"

    server.add_tool(grown)
    await ctx.notify_tools_changed()
    return "added"


server.run()
