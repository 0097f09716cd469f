"""A real MCP server (the official SDK, stdio) serving the bundled example tools.

Its tools/list answer uses the input schemas of fixtures/tools/mcp-tools-list.json exactly.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server

TOOLS = json.loads(Path(sys.argv[1]).read_text())["result"]["tools"]


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name=tool["name"],
                description=tool.get("description"),
                input_schema=tool["inputSchema"],
            )
            for tool in TOOLS
        ]
    )


async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
    text = f"{params.name} done with {json.dumps(params.arguments or {}, sort_keys=True)}"
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


server = Server("warehouse", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


anyio.run(main)
