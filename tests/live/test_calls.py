"""Sending calls through crashes, with a stand-in connection (the policy, without servers)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from jsoncontract.live.calls import CRASHES_PER_TOOL, MAX_RESTARTS, Call, send_calls
from jsoncontract.live.server import ServerSpec
from jsoncontract.live.wire import ConnectOptions, Reply, ReplyKind


class FakeConnection:
    """Answers every call at once; a call of a tool in ``crashing`` ends the connection."""

    def __init__(self, crashing: set[str], log: list[str]) -> None:
        self.crashing = crashing
        self.log = log
        self.closed = False

    def learn_tools(self, tools: list[Any]) -> None:
        """Nothing to learn."""

    async def call_tool(self, tool: str, arguments: Any, **_: Any) -> Reply:
        await anyio.sleep(0)
        if self.closed:
            return Reply(ReplyKind.CLOSED, 0.0, detail="closed")
        self.log.append(tool)
        if tool in self.crashing:
            self.closed = True
            return Reply(ReplyKind.CLOSED, 0.0, detail="the server exited")
        return Reply(ReplyKind.RESULT, 0.0, result={"content": []})


def _run(crashing: set[str], calls: list[Call], concurrency: int, monkeypatch: Any) -> Any:
    log: list[str] = []
    started: list[FakeConnection] = []

    @asynccontextmanager
    async def fake_connect(spec: Any, options: Any) -> AsyncIterator[FakeConnection]:
        conn = FakeConnection(crashing, log)
        started.append(conn)
        yield conn

    monkeypatch.setattr("jsoncontract.live.client.connect", fake_connect)

    async def main() -> Any:
        first = FakeConnection(crashing, log)
        return await send_calls(
            first,  # type: ignore[arg-type]
            ServerSpec(command=("server",)),
            ConnectOptions(),
            calls,
            concurrency=concurrency,
            tools=[],
        )

    return anyio.run(main), log


def test_a_crash_is_blamed_on_the_call_that_crashes_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = [
        Call(i, tool, {}) for i, tool in enumerate(["a", "a", "boom", "b", "boom", "b", "boom"])
    ]
    run, _ = _run({"boom"}, calls, 4, monkeypatch)
    kinds = {
        key: (o.reply.kind.value if o.reply else o.not_sent) for key, o in run.outcomes.items()
    }
    assert [kinds[i] for i in (0, 1, 3, 5)] == ["result"] * 4
    assert (kinds[2], kinds[4]) == ("closed", "closed")
    assert "crashed on 2 calls of this tool" in str(kinds[6])
    assert CRASHES_PER_TOOL == 2


def test_restarts_are_limited(monkeypatch: pytest.MonkeyPatch) -> None:
    tools = [f"t{i}" for i in range(MAX_RESTARTS + 3)]
    calls = [Call(i, tool, {}) for i, tool in enumerate(tools)]
    run, log = _run(set(tools), calls, 1, monkeypatch)
    assert run.restarts == MAX_RESTARTS
    not_sent = [o.not_sent for o in run.outcomes.values() if o.not_sent]
    assert not_sent and all("crashed 6 times" in reason for reason in not_sent)
    assert len(log) == MAX_RESTARTS + 1
