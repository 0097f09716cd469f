"""Traces written by ``jsoncontract mcp record``: frames read as MCP, with their lines."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from jsoncontract.live.trace import TraceWriter
from jsoncontract.model import ArgumentsForm, Hop, ToolCall

Read = Callable[..., list[ToolCall]]


def _frame(direction: str, frame: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"trace": "mcp", "seq": 1, "from": direction, "frame": frame, **extra}


CALL = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {"name": "get_order", "arguments": {"order_id": "ORD-1"}},
}
ANSWER = {"jsonrpc": "2.0", "id": 7, "result": {"content": [], "isError": False}}


def test_frames_are_mcp_calls_with_their_answers(
    tmp_path: Path, read: Read, jsonl: Callable[..., str]
) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_text(
        jsonl(
            {"trace": "mcp", "event": "start", "version": 1, "server": "s", "transport": "stdio"},
            _frame("client", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            _frame("client", CALL),
            {"trace": "mcp", "seq": 3, "from": "server", "text": "Loading..."},
            _frame("server", ANSWER),
            _frame("client", {**CALL, "id": 8}),
            _frame("server", {**ANSWER, "id": 8}, fault="get_order:timeout", delivered=False),
            {"trace": "mcp", "event": "exit", "code": 0},
        )
    )
    first, second = read(path)
    assert (first.tool, first.hop, first.dialect, first.call_id) == (
        "get_order",
        Hop.MCP,
        "mcp",
        "7",
    )
    assert (first.arguments, first.form) == ({"order_id": "ORD-1"}, ArgumentsForm.VALUE)
    assert (first.source.file, first.source.line) == (str(path), 3)
    assert first.response == ANSWER
    assert second.response is None  # the withheld answer never reached the host
    assert not first.load_findings and not second.load_findings


def test_the_writer_and_the_reader_agree(tmp_path: Path, read: Read) -> None:
    import orjson

    path = tmp_path / "t.jsonl"
    writer = TraceWriter(path, server="s", transport="stdio")
    writer.frame("client", orjson.dumps(CALL))
    writer.frame("server", b'{"jsonrpc":"2.0","id":7,"result":{"content":[]}}')
    writer.close()
    (call,) = read(path)
    assert call.tool == "get_order" and call.response == {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {"content": []},
    }
    assert read(path, dialect="mcp-trace")[0].tool == "get_order"


def test_a_client_frame_marked_undelivered_is_still_a_call(
    tmp_path: Path, read: Read, jsonl: Callable[..., str]
) -> None:
    """Defect 15: a client frame marked ``"delivered": false`` was skipped, so a call of an
    unknown tool vanished (the recorder writes the mark on server answers only)."""
    path = tmp_path / "trace.jsonl"
    unknown = {**CALL, "id": 9, "params": {"name": "drop_database", "arguments": {}}}
    path.write_text(jsonl(_frame("client", unknown, delivered=False)))
    (call,) = read(path)
    assert call.tool == "drop_database"


def test_ids_1_and_string_1_are_two_ids(run_cli: Any, tmp_path: Path) -> None:
    """Defect 16: JSON-RPC ids ``1`` and ``"1"`` were one id: a false missing_result and a
    false orphan_result."""
    import json

    tools = tmp_path / "tools.json"
    tools.write_text(
        json.dumps({"tools": [{"name": "get_order", "inputSchema": {"type": "object"}}]})
    )
    frames = [
        {**CALL, "id": 1},
        {**CALL, "id": "1"},
        {**ANSWER, "id": "1"},
        {**ANSWER, "id": 1},
    ]
    capture = tmp_path / "mcp.jsonl"
    capture.write_text("".join(json.dumps(f) + "\n" for f in frames))
    result = run_cli("check", "--no-config", "-t", str(tools), str(capture), "-f", "json")
    report = json.loads(result.stdout)
    codes = [f["code"] for f in report.get("findings", [])]
    assert "session.missing_result" not in codes and "session.orphan_result" not in codes
    assert all("result" in r for r in report["results"]) and len(report["results"]) == 2
