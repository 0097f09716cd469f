"""A shipping MCP server (the official SDK's lowlevel ``Server``) that does what servers in the
wild do and the guard is there to stop: it accepts what its schemas do not declare, writes on
every call, and lets stack traces, error pages and credentials through.

    python shipping.py [--http URL_FILE] [--pid-file FILE] [--call-log FILE]

Tools:

- ``create_shipment``: a write with an idempotency key it declares but does not require;
  every call it receives is a new shipment (numbered in its answer);
- ``quote``: a read whose schema is open (no ``additionalProperties``), and which accepts
  anything;
- ``track``: answers with a Python stack trace (an unhandled exception, as careless servers
  return it);
- ``carrier_status``: answers with the HTML error page of a proxy in front of the carrier;
- ``summary``: declares an ``outputSchema`` its structured content breaks (a total as a
  string);
- ``diagnostics``: returns its environment, credentials included (``SHIPPING_API_KEY``);
- ``crash``: the process exits in the middle of the call.

``--call-log FILE`` appends every ``tools/call`` it receives.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.server.lowlevel.server import Server

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve import serve, transport_options

ORDER_ID = {"type": "string", "pattern": "^ORD-[0-9]{4}$"}
TOOLS: dict[str, dict[str, Any]] = {
    "create_shipment": {
        "description": "Create a shipment for an order.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "order_id": ORDER_ID,
                "quantity": {"type": "integer", "minimum": 1},
                "idempotency_key": {"type": "string", "minLength": 8},
            },
            "required": ["order_id", "quantity"],
        },
        "annotations": {"readOnlyHint": False, "destructiveHint": False},
    },
    "quote": {
        "description": "Quote a shipping price.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "destination": {"type": "string", "enum": ["AMS", "BER", "LIS"]},
                "weight_kg": {"type": "number", "exclusiveMinimum": 0},
            },
            "required": ["destination", "weight_kg"],
        },
        "annotations": {"readOnlyHint": True},
    },
    "track": {
        "description": "Track a shipment.",
        "inputSchema": {
            "type": "object",
            "properties": {"order_id": ORDER_ID},
            "required": ["order_id"],
        },
        "annotations": {"readOnlyHint": True},
    },
    "carrier_status": {
        "description": "The carrier's service status.",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": {"readOnlyHint": True},
    },
    "summary": {
        "description": "Totals of an order.",
        "inputSchema": {
            "type": "object",
            "properties": {"order_id": ORDER_ID},
            "required": ["order_id"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "total": {"type": "number"},
                "currency": {"type": "string", "enum": ["EUR", "USD"]},
            },
            "required": ["total", "currency"],
        },
        "annotations": {"readOnlyHint": True},
    },
    "diagnostics": {
        "description": "The server's environment, for debugging.",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": {"readOnlyHint": True},
    },
    "crash": {
        "description": "A report whose code path kills the process.",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": {"readOnlyHint": True},
    },
}
TRACEBACK = """Traceback (most recent call last):
  File "/srv/shipping/app.py", line 88, in track
    return carrier.lookup(order_id)
  File "/srv/shipping/carrier.py", line 41, in lookup
    raise KeyError(order_id)
KeyError: 'ORD-1234'
"""
PAGE = """<!DOCTYPE html>
<html><head><title>502 Bad Gateway</title></head>
<body><h1>502 Bad Gateway</h1><hr><center>nginx</center></body></html>
"""


def _text(value: str) -> list[types.TextContent]:
    return [types.TextContent(type="text", text=value)]


def build(options: argparse.Namespace) -> Server[Any]:
    """The server."""
    listed = [types.Tool(name=name, **definition) for name, definition in TOOLS.items()]
    numbers = itertools.count(1)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        name = params.name
        arguments = params.arguments or {}
        if options.call_log:
            with Path(options.call_log).open("a", encoding="utf-8") as log:
                log.write(json.dumps({"tool": name, "arguments": arguments}) + "\n")
        if name == "create_shipment":
            data = {"shipment": f"SHP-{next(numbers):04d}", "order_id": arguments.get("order_id")}
            return types.CallToolResult(content=_text(json.dumps(data)))
        if name == "quote":
            return types.CallToolResult(content=_text(json.dumps({"ok": True, "eur": 12.5})))
        if name == "track":
            return types.CallToolResult(content=_text(TRACEBACK), is_error=True)
        if name == "carrier_status":
            return types.CallToolResult(content=_text(PAGE), is_error=True)
        if name == "summary":
            data = {"total": "12.50", "currency": "EUR"}
            return types.CallToolResult(content=_text(json.dumps(data)), structured_content=data)
        if name == "diagnostics":
            shown = {k: v for k, v in os.environ.items() if k.startswith("SHIPPING_")}
            return types.CallToolResult(content=_text(json.dumps(shown)))
        if name == "crash":
            os._exit(9)
        return types.CallToolResult(content=_text(f"unknown tool {name}"), is_error=True)

    return Server("shipping", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    transport_options(parser)
    parser.add_argument("--call-log", help="append every tools/call to this file")
    opts = parser.parse_args()
    serve(build(opts), opts)
