"""Tool lists exactly as the official MCP Python SDK writes them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.model import Dialect
from jsoncontract.tools import ToolSet, load_tool_file

types = pytest.importorskip("mcp.types")

Write = Callable[[str, object], Path]

INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {"path": {"type": "string", "minLength": 1}},
    "required": ["path"],
    "additionalProperties": False,
}


def sdk_tools() -> Any:
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name="read_file",
                description="Read a file from the workspace.",
                inputSchema=INPUT,
                outputSchema={"type": "object", "properties": {"content": {"type": "string"}}},
                annotations=types.ToolAnnotations(readOnlyHint=True, openWorldHint=False),
            ),
            types.Tool(name="ping", inputSchema={"type": "object"}),
        ]
    )


@pytest.mark.parametrize("exclude_none", [True, False])
def test_list_tools_result(write: Write, exclude_none: bool) -> None:
    dumped = sdk_tools().model_dump(by_alias=True, mode="json", exclude_none=exclude_none)
    read_file, ping = load_tool_file(write("tools.json", dumped))
    assert (read_file.name, read_file.dialect, read_file.input_schema) == (
        "read_file",
        Dialect.MCP,
        INPUT,
    )
    assert read_file.output_schema == {
        "type": "object",
        "properties": {"content": {"type": "string"}},
    }
    assert read_file.annotations is not None
    assert read_file.annotations["readOnlyHint"] is True
    assert read_file.title is None
    assert (ping.output_schema, ping.input_schema) == (None, {"type": "object"})
    tools = ToolSet([read_file, ping])
    assert tools.schema("read_file").is_valid({"path": "README.md"})
    assert not tools.schema("read_file").is_valid({"path": ""})


def test_whole_json_rpc_response(write: Write) -> None:
    result = sdk_tools().model_dump(by_alias=True, mode="json", exclude_none=True)
    response = types.JSONRPCResponse(jsonrpc="2.0", id=1, result=result)
    path = write("response.json", response.model_dump(by_alias=True, mode="json"))
    assert [(t.name, t.source.pointer) for t in load_tool_file(path)] == [
        ("read_file", "/result/tools/0"),
        ("ping", "/result/tools/1"),
    ]
