"""``mcp guard --lock``: a tool that drifted from what ``mcp pin`` locked is hidden or flagged,
and ``list_changed`` makes the guard list the tools again (the notification injected by an
``mcp record`` between the guard and the server)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.live.conftest import PYTHON, WORKBENCH
from tests.live.guard.test_stdio import JSONCONTRACT, guarded, run, trace_lines

pytestmark = pytest.mark.slow

PINNED = ["--only", "lookup_order", "--only", "list_orders"]


@pytest.fixture(scope="module")
def lock(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("lock") / "servers.lock"
    done = subprocess.run(
        [*JSONCONTRACT, "mcp", "pin", "--lock", str(path), "--name", "workbench", "--",
         PYTHON, str(WORKBENCH), *PINNED],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return path


def _server(*extra: str) -> list[str]:
    """The workbench with a tool the lock does not hold, behind an mcp record that sends
    list_changed after each list_orders answer."""
    return [*JSONCONTRACT, "mcp", "record", "--inject", "list_orders:list-changed", "--",
            PYTHON, str(WORKBENCH), *PINNED, "--only", "get_stock", *extra]  # fmt: skip


async def _session(session: Any) -> dict[str, Any]:
    from mcp.shared.exceptions import MCPError

    listed = (await session.list_tools()).tools
    seen: dict[str, Any] = {"listed": {t.name: t for t in listed}}
    try:
        seen["hidden"] = await session.call_tool("get_stock", {"sku": "A-1", "quantity": 1})
    except MCPError as exc:
        seen["hidden"] = exc
    seen["orders"] = await session.call_tool("list_orders", {"status": "open"})
    seen["after"] = await session.call_tool("lookup_order", {"order_id": "ORD-1234"})
    return seen


def test_a_tool_the_lock_does_not_hold_is_hidden(lock: Path, tmp_path: Path) -> None:
    trace = tmp_path / "guard.jsonl"
    args = guarded("--lock", str(lock), "--name", "workbench", "-o", str(trace), server=_server())
    seen = run(args, _session, mode="legacy")
    assert sorted(seen["listed"]) == ["list_orders", "lookup_order"]
    hidden = seen["hidden"]
    assert hidden.code == -32602 and "hidden by the guard" in hidden.message
    assert hidden.error.data["code"] == "pin.tool_added"
    assert seen["orders"].is_error is False and seen["after"].is_error is False
    lines = trace_lines(trace)
    changed = next(
        i
        for i, line in enumerate(lines)
        if line.get("frame", {}).get("method") == "notifications/tools/list_changed"
    )
    relisted = [
        line for line in lines[changed:]
        if line.get("from") == "guard" and line.get("frame", {}).get("method") == "tools/list"
    ]  # fmt: skip
    assert relisted, "list_changed made the guard list the tools again"
    marks = [line["guard"] for line in lines if line.get("guard", {}).get("decision") == "hide"]
    assert marks and marks[0]["tools"] == ["get_stock"]


def test_flag_keeps_the_tool_listed_and_says_what_changed(lock: Path) -> None:
    args = guarded(
        "--lock", str(lock), "--name", "workbench", "--on-drift", "flag", server=_server()
    )
    seen = run(args, _session, mode="legacy")
    assert sorted(seen["listed"]) == ["get_stock", "list_orders", "lookup_order"]
    drift = seen["listed"]["get_stock"].meta["jsoncontract/drift"]
    assert drift == ["tool 'get_stock' is not in the lock (new, or renamed)"]
    assert seen["hidden"].is_error is False


def test_a_lock_without_the_server_is_a_usage_error(lock: Path) -> None:
    done = subprocess.run(
        [*JSONCONTRACT, "mcp", "guard", "--lock", str(lock), "--name", "billing", "--",
         PYTHON, str(WORKBENCH)],
        cwd=REPO, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 2
    assert "the lock has no entry for billing (servers pinned: workbench)" in done.stderr
    assert "Traceback" not in done.stderr
