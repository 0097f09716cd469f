"""MCP frames exactly as the official MCP Python SDK writes them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.model import ArgumentsForm, Dialect, Hop, ToolCall

types = pytest.importorskip("mcp.types")

Write = Callable[[str, object], Path]
Read = Callable[..., list[ToolCall]]


def frame(message: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = message.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dumped


def test_tools_call_exchange(write: Write, read: Read, jsonl: Callable[..., str]) -> None:
    params = types.CallToolRequestParams(name="read_file", arguments={"path": "README.md"})
    request = types.JSONRPCRequest(
        jsonrpc="2.0", id=7, method="tools/call", params=params.model_dump(by_alias=True)
    )
    result = types.CallToolResult(
        content=[types.TextContent(type="text", text="# Title")], isError=False
    )
    response = types.JSONRPCResponse(
        jsonrpc="2.0", id=7, result=result.model_dump(by_alias=True, exclude_none=True)
    )
    other = types.JSONRPCRequest(jsonrpc="2.0", id=8, method="tools/list")
    error = types.JSONRPCError(
        jsonrpc="2.0", id=8, error=types.ErrorData(code=-32601, message="Method not found")
    )
    text = jsonl(frame(request), frame(other), frame(error), frame(response))
    (call,) = read(write("exchange.jsonl", text))
    assert (call.hop, call.dialect, call.tool, call.call_id) == (
        Hop.MCP,
        Dialect.MCP,
        "read_file",
        "7",
    )
    assert (call.arguments, call.form) == ({"path": "README.md"}, ArgumentsForm.VALUE)
    assert call.load_findings == []
    assert call.response == frame(response)
