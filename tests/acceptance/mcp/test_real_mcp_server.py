"""jsoncontract against real MCP traffic: the official SDK's client and server over stdio.

A recording proxy sits between them, as a logging proxy would in production. The frames it
records are then read by ``jsoncontract check``, with the tool list taken from the very
``tools/list`` answer on the wire.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import FIXTURES, CliResult

mcp = pytest.importorskip("mcp")
HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.slow


async def _session(capture: Path) -> None:
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=[
            str(HERE / "recording_proxy.py"),
            str(capture),
            sys.executable,
            str(HERE / "warehouse_server.py"),
            str(FIXTURES / "tools" / "mcp-tools-list.json"),
        ],
    )
    with anyio.fail_after(60):
        await _drive(params)


async def _drive(params: Any) -> None:
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.list_tools()
        good: dict[str, Any] = {
            "order_id": "ORD-100200",
            "priority": "expedited",
            "idempotency_key": "retry-safe-0001",
        }
        await session.call_tool("update_shipment", good)
        await session.call_tool("update_shipment", {**good, "priority": "urgent"})
        await session.call_tool("read_file", {"path": "README.md", "max_bytes": 0})


@pytest.fixture(scope="module")
def capture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("wire") / "frames.jsonl"
    anyio.run(_session, path)
    return path


def test_the_proxy_recorded_real_frames(capture: Path) -> None:
    frames = [json.loads(line) for line in capture.read_text().splitlines()]
    methods = [f.get("method") for f in frames if "method" in f]
    assert methods[:3] == ["initialize", "notifications/initialized", "tools/list"]
    assert methods.count("tools/call") == 3


def test_check_reads_the_wire(
    capture: Path, tmp_path: Path, run_cli: Callable[..., CliResult]
) -> None:
    frames = [json.loads(line) for line in capture.read_text().splitlines()]
    listing = next(
        f for f in frames if isinstance(f.get("result"), dict) and "tools" in f["result"]
    )
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(listing))

    result = run_cli("check", "--tools", str(tools), str(capture), "-f", "json")
    report = json.loads(result.stdout)
    assert result.code == 1
    outcomes = [
        (
            r["tool"],
            r["hop"],
            r["ok"],
            [f["code"] for f in r["findings"]],
            [f["path"] for f in r["findings"]],
        )
        for r in report["results"]
    ]
    assert outcomes == [
        ("update_shipment", "mcp", True, [], []),
        ("update_shipment", "mcp", False, ["schema.enum"], ["/priority"]),
        ("read_file", "mcp", False, ["schema.minimum"], ["/max_bytes"]),
    ]


def test_responses_are_attached_to_their_requests(capture: Path) -> None:
    from jsoncontract.capture import CaptureReader

    calls = list(CaptureReader().read([capture]))
    assert [c.tool for c in calls] == ["update_shipment", "update_shipment", "read_file"]
    assert all(c.response is not None and "result" in c.response for c in calls)
    assert "update_shipment done" in calls[0].response["result"]["content"][0]["text"]
