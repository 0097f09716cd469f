"""An MCP server (the official SDK's lowlevel ``Server``) whose tools each keep or break
their contract in one known way, and which can be told to break the protocol too.

    python workbench.py [--http URL_FILE] [--token TOKEN] [options]

Tools (all ``readOnlyHint: true`` except ``delete_order``):

- ``lookup_order``: validates strictly, answers invalid arguments with ``isError``, returns
  structured content that matches its output schema (the well-behaved one);
- ``list_orders``: declares ``additionalProperties: false`` but accepts unknown properties;
- ``get_stock``: coerces ``"3"`` to ``3`` before validating;
- ``order_summary``: returns ``structuredContent`` that breaks its ``outputSchema``;
- ``find_customer``: answers invalid arguments with a JSON-RPC error ``-32602``;
- ``slow_report``: never answers;
- ``crash_report``: the process exits in the middle of the call;
- ``delete_order``: destructive; validates strictly.

Options: ``--only NAME`` (repeatable) serves just those tools; ``--describe TEXT`` changes
every description (a server that changed since it was pinned); ``--call-log FILE`` logs each
``tools/call``; ``--tools N`` serves N
generated well-behaved tools instead (``--latency MS``: each call takes that long, as a
backend would); ``--page-size N`` paginates ``tools/list``;
``--invalid-tool`` adds tools whose definitions break the rules; ``--junk-stdout`` prints a
log line to stdout at start; ``--exit-on-initialize`` exits when the first message
arrives; ``--silent`` reads and never answers; ``--legacy`` answers ``server/discover``
with -32601, as servers before MCP 2026-07-28 do. ``--helper PID_FILE`` starts a helper
process (in the server's process group, as a server's workers are) that outlives the server
unless someone ends the group; ``--non-utf8-stdout`` prints a line of bytes that are not
UTF-8 to stdout at start. ``--resources-error CODE`` declares the ``resources`` capability
and answers ``resources/list`` with JSON-RPC error CODE. ``--leak TEXT`` puts TEXT (a
credential, say) where careless servers do: in every error message, in its crash on stderr,
and as the ``default`` of ``find_customer``'s argument.
"""

from __future__ import annotations

import sys

if __name__ == "__main__" and "--junk-stdout" in sys.argv:  # before the slow imports
    sys.stdout.write("Loading order index... done (3 orders)\n")
    sys.stdout.flush()
if __name__ == "__main__" and "--non-utf8-stdout" in sys.argv:
    sys.stdout.buffer.write(b"Loading \xe9t\xe9 index \xff\n")  # Latin-1, not UTF-8
    sys.stdout.flush()

import argparse
import json
import os
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from jsonschema import Draft202012Validator
from mcp.server.lowlevel.server import Server
from mcp.shared.exceptions import MCPError

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve import serve, started, transport_options

READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}
ORDER_ID = {"type": "string", "pattern": "^ORD-[0-9]{4}$", "description": "Order id, ORD-nnnn."}
STATUS = {"type": "string", "enum": ["open", "shipped", "cancelled"], "description": "State."}


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


TOOLS: dict[str, dict[str, Any]] = {
    "lookup_order": {
        "description": "Look up one order by its id.",
        "inputSchema": _object(
            {"order_id": ORDER_ID, "include_lines": {"type": "boolean"}}, ["order_id"]
        ),
        "outputSchema": _object(
            {"order_id": {"type": "string"}, "status": STATUS}, ["order_id", "status"]
        ),
        "annotations": READ_ONLY,
    },
    "list_orders": {
        "description": "List orders in one state.",
        "inputSchema": _object(
            {"status": STATUS, "limit": {"type": "integer", "minimum": 1, "maximum": 100}},
            ["status"],
        ),
        "annotations": READ_ONLY,
    },
    "get_stock": {
        "description": "Units of a SKU on hand.",
        "inputSchema": _object(
            {"sku": {"type": "string", "maxLength": 32}, "quantity": {"type": "integer"}},
            ["sku", "quantity"],
        ),
        "annotations": READ_ONLY,
    },
    "order_summary": {
        "description": "Totals of one order.",
        "inputSchema": _object({"order_id": ORDER_ID}, ["order_id"]),
        "outputSchema": _object(
            {"total": {"type": "number"}, "currency": {"type": "string", "enum": ["EUR", "USD"]}},
            ["total", "currency"],
        ),
        "annotations": READ_ONLY,
    },
    "find_customer": {
        "description": "Find a customer by e-mail address.",
        "inputSchema": _object({"email": {"type": "string", "maxLength": 254}}, ["email"]),
        "annotations": READ_ONLY,
    },
    "slow_report": {
        "description": "A report that takes forever.",
        "inputSchema": _object({"period": {"type": "string", "maxLength": 7}}, ["period"]),
        "annotations": READ_ONLY,
    },
    "crash_report": {
        "description": "A report whose code path kills the process.",
        "inputSchema": _object({"year": {"type": "integer"}}, ["year"]),
        "annotations": READ_ONLY,
    },
    "delete_order": {
        "description": "Delete an order for good.",
        "inputSchema": _object({"order_id": ORDER_ID}, ["order_id"]),
        "annotations": {"readOnlyHint": False, "destructiveHint": True},
    },
}
#: Tool objects the SDK would refuse to send (``--invalid-tool`` sends them raw).
INVALID_TOOLS: list[dict[str, Any]] = [
    {
        "name": "string_root",
        "description": "Its input schema is not an object schema.",
        "inputSchema": {"type": "string"},
        "annotations": READ_ONLY,
    },
    {
        "name": "bad_keyword",
        "description": "Its input schema is not a valid JSON Schema.",
        "inputSchema": {"type": "object", "properties": {"qty": {"type": "integr"}}},
        "annotations": READ_ONLY,
    },
    {"name": "no_schema", "description": "It has no inputSchema at all."},
    {"description": "It has no name.", "inputSchema": {"type": "object"}},
]


def generated(count: int) -> dict[str, dict[str, Any]]:
    """``count`` well-behaved read-only tools (for timing a probe)."""
    return {
        f"report_{i:02d}": {
            "description": f"Report number {i}.",
            "inputSchema": _object(
                {
                    "region": {"type": "string", "enum": ["north", "south", "east", "west"]},
                    "year": {"type": "integer", "minimum": 2000, "maximum": 2100},
                    "label": {"type": "string", "maxLength": 40},
                },
                ["region", "year"],
            ),
            "annotations": READ_ONLY,
        }
        for i in range(1, count + 1)
    }


def _text(value: str) -> list[types.TextContent]:
    return [types.TextContent(type="text", text=value)]


def _errors(schema: dict[str, Any], arguments: Any) -> list[str]:
    validator = Draft202012Validator(schema)
    return [
        f"{'/'.join(str(p) for p in error.absolute_path) or '(root)'}: {error.message}"
        for error in validator.iter_errors(arguments)
    ]


def _lenient(schema: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k != "additionalProperties"}


def _coerced(arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        key: int(value) if isinstance(value, str) and value.lstrip("-").isdigit() else value
        for key, value in arguments.items()
    }


def build(options: argparse.Namespace) -> Server[Any]:
    """The server the options describe."""
    tools = generated(options.tools) if options.tools else dict(TOOLS)
    if options.only:
        tools = {name: tools[name] for name in options.only}
    if options.describe:
        tools = {
            name: {**d, "description": d["description"] + options.describe}
            for name, d in tools.items()
        }
    if options.leak and "find_customer" in tools:
        email = {"type": "string", "maxLength": 254, "default": options.leak}
        tools["find_customer"] = {
            **tools["find_customer"],
            "inputSchema": _object({"email": email}, ["email"]),
        }
    leak = f" ({options.leak})" if options.leak else ""
    listed = [types.Tool(name=name, **definition) for name, definition in tools.items()]

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> Any:
        if not options.page_size:
            return types.ListToolsResult(tools=listed)
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + options.page_size
        return types.ListToolsResult(
            tools=listed[start:end], next_cursor=str(end) if end < len(listed) else None
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        name = params.name
        if options.call_log:
            with Path(options.call_log).open("a", encoding="utf-8") as log:
                log.write(json.dumps({"tool": name, "arguments": params.arguments}) + "\n")
        definition = tools.get(name)
        if definition is None:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {name}{leak}")
        arguments = params.arguments or {}
        schema = definition["inputSchema"]
        if name == "slow_report":
            await anyio.sleep_forever()
        if options.latency:
            await anyio.sleep(options.latency / 1000)
        if name == "crash_report":
            sys.stderr.write(f"crash_report: segmentation fault in the report engine{leak}\n")
            sys.stderr.flush()
            os._exit(7)
        if name == "list_orders":
            problems = _errors(_lenient(schema), arguments)
        elif name == "get_stock":
            problems = _errors(schema, _coerced(arguments))
        else:
            problems = _errors(schema, arguments)
        if problems and name == "find_customer":
            raise MCPError(
                types.INVALID_PARAMS, f"Invalid arguments for {name}: {problems[0]}{leak}"
            )
        if problems:
            return types.CallToolResult(content=_text("; ".join(problems) + leak), is_error=True)
        if name == "lookup_order":
            data: dict[str, Any] = {"order_id": arguments["order_id"], "status": "open"}
            return types.CallToolResult(content=_text(json.dumps(data)), structured_content=data)
        if name == "order_summary":
            data = {"total": "12.50", "currency": "EUR"}  # total should be a number
            return types.CallToolResult(content=_text(json.dumps(data)), structured_content=data)
        return types.CallToolResult(content=_text(f"{name}: {json.dumps(arguments)}"))

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        message = "Method not found" if options.resources_error == -32601 else "index offline"
        raise MCPError(options.resources_error, message)

    handlers: dict[str, Any] = {}
    if options.resources_error is not None:
        handlers["on_list_resources"] = list_resources
    return Server(
        "workbench",
        version="0.9.0",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        **handlers,
    )


def _raw_misbehaviour(options: argparse.Namespace) -> None:
    """The faults that happen before (or instead of) any MCP exchange (``--junk-stdout``
    is written at the very start)."""
    if options.exit_on_initialize:
        sys.stdin.buffer.readline()
        sys.stderr.write("workbench: cannot read config.yaml: no such file\n")
        sys.exit(3)
    if options.silent:
        while sys.stdin.buffer.readline():
            pass
        sys.exit(0)


def _sifted(server: Server[Any], options: argparse.Namespace) -> None:
    """Serve stdio through a layer that answers what the SDK would not send: -32601 for
    ``server/discover`` (``--legacy``), and a tool list with broken tools
    (``--invalid-tool``)."""
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage

    tools = [{"name": name, **definition} for name, definition in TOOLS.items()]
    if options.only:
        tools = [t for t in tools if t["name"] in options.only]
    tools += INVALID_TOOLS

    async def main() -> None:
        async with stdio_server() as (read, write):
            inner_send, inner_read = anyio.create_memory_object_stream[Any](16)

            async def answer(request: types.JSONRPCRequest) -> bool:
                reply: Any = None
                if request.method == "server/discover" and options.legacy:
                    error = types.ErrorData(code=types.METHOD_NOT_FOUND, message="Method not found")
                    reply = types.JSONRPCError(jsonrpc="2.0", id=request.id, error=error)
                elif request.method == "tools/list" and options.invalid_tool:
                    reply = types.JSONRPCResponse(
                        jsonrpc="2.0", id=request.id, result={"tools": tools}
                    )
                if reply is None:
                    return False
                await write.send(SessionMessage(reply))
                return True

            async def sift() -> None:
                async with inner_send:
                    async for item in read:
                        message = getattr(item, "message", None)
                        if isinstance(message, types.JSONRPCRequest) and await answer(message):
                            continue
                        await inner_send.send(item)

            async with anyio.create_task_group() as tg:
                tg.start_soon(sift)
                await server.run(inner_read, write, server.create_initialization_options())

    anyio.run(main)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    transport_options(parser)
    parser.add_argument("--only", action="append")
    parser.add_argument("--tools", type=int, default=0)
    parser.add_argument("--page-size", type=int, default=0)
    parser.add_argument("--invalid-tool", action="store_true")
    parser.add_argument("--junk-stdout", action="store_true")
    parser.add_argument("--exit-on-initialize", action="store_true")
    parser.add_argument("--silent", action="store_true")
    parser.add_argument("--legacy", action="store_true")
    parser.add_argument("--call-log", help="append every tools/call to this file")
    parser.add_argument("--latency", type=float, default=0, help="ms each call takes")
    parser.add_argument("--describe", default="", help="append this to every description")
    parser.add_argument("--helper", help="start a helper process; write its id here")
    parser.add_argument("--non-utf8-stdout", action="store_true")
    parser.add_argument("--leak", default="", help="a secret careless errors show")
    parser.add_argument("--resources-error", type=int, help="resources/list fails so")
    opts = parser.parse_args()
    if opts.helper:
        import subprocess

        helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        Path(opts.helper).write_text(str(helper.pid))
    if opts.pid_file and (opts.exit_on_initialize or opts.silent or opts.junk_stdout):
        started(opts)
    _raw_misbehaviour(opts)
    if (opts.legacy or opts.invalid_tool) and not opts.http:
        started(opts)
        _sifted(build(opts), opts)
    else:
        serve(build(opts), opts)
