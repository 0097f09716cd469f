"""Sending many ``tools/call`` requests to one server, concurrently, surviving crashes.

A crash ends every call in flight with the connection. The server is started again and the
calls lost (in flight, or not sent yet) are sent one at a time, in the order they were
planned: a call that crashes the server alone is to blame, the others get their real
answers, and the result does not depend on timing. A tool that crashed the server twice
gets no more calls, and after :data:`MAX_RESTARTS`
restarts the rest is given up; both are reported, never silently dropped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from jsoncontract.live.client import Connection
    from jsoncontract.live.server import ServerSpec
    from jsoncontract.live.wire import ConnectOptions, Reply

#: Server restarts after crashes before the remaining calls are given up.
MAX_RESTARTS: Final = 5
#: Crashes of one tool after which its remaining calls are not sent.
CRASHES_PER_TOOL: Final = 2


@dataclass(frozen=True, slots=True)
class Call:
    """One call to send: a key the caller finds its answer by, a tool, the arguments."""

    key: Hashable
    tool: str
    arguments: Any


@dataclass(slots=True)
class Outcome:
    """The reply to a call, or why it was not sent."""

    reply: Reply | None = None
    not_sent: str | None = None


@dataclass(slots=True)
class CallRun:
    """Every call's outcome, by key, and how often the server had to be restarted."""

    outcomes: dict[Hashable, Outcome]
    restarts: int = 0


async def send_calls(
    conn: Connection,
    spec: ServerSpec,
    options: ConnectOptions,
    calls: Sequence[Call],
    *,
    concurrency: int,
    tools: list[dict[str, Any]],
    progress: Callable[[int, int], None] | None = None,
) -> CallRun:
    """Send ``calls`` over ``conn`` (``concurrency`` at a time), restarting the server
    after a crash. ``tools`` are the listed tool objects (a new connection relearns them)."""
    import anyio

    from jsoncontract.live.client import connect
    from jsoncontract.live.wire import ReplyKind

    run = CallRun({})
    crashes: Counter[str] = Counter()
    total = len(calls)

    def finish(call: Call, outcome: Outcome) -> None:
        run.outcomes[call.key] = outcome
        if outcome.reply is not None and outcome.reply.kind is ReplyKind.CLOSED:
            crashes[call.tool] += 1
        if progress is not None:
            progress(len(run.outcomes), total)

    def give_up(call: Call) -> bool:
        if crashes[call.tool] < CRASHES_PER_TOOL:
            return False
        finish(
            call,
            Outcome(
                not_sent=f"the server crashed on {crashes[call.tool]} calls of this tool; "
                "this one was not sent"
            ),
        )
        return True

    async def batch(connection: Connection, todo: list[Call]) -> list[Call]:
        """Send ``todo`` concurrently; the calls lost to a crash (in flight, or not sent
        yet), in the order they were planned."""
        limiter = anyio.CapacityLimiter(concurrency)
        lost: list[Call] = []

        async def one(call: Call) -> None:
            async with limiter:
                if connection.closed:
                    lost.append(call)
                    return
                if give_up(call):
                    return
                reply = await connection.call_tool(call.tool, call.arguments)
            if reply.kind is ReplyKind.CLOSED and concurrency > 1:
                lost.append(call)
            else:
                finish(call, Outcome(reply))

        async with anyio.create_task_group() as tg:
            for call in todo:
                tg.start_soon(one, call)
        return sorted(lost, key=lambda c: order[c.key])

    order = {call.key: index for index, call in enumerate(calls)}
    lost = await batch(conn, list(calls))
    async with AsyncExitStack() as stack:
        while lost:
            if run.restarts >= MAX_RESTARTS:
                reason = (
                    f"the server crashed {run.restarts + 1} times; the remaining calls were "
                    "not sent"
                )
                for call in lost:
                    finish(call, Outcome(not_sent=reason))
                break
            run.restarts += 1
            await stack.aclose()
            current = await stack.enter_async_context(connect(spec, options))
            current.learn_tools(tools)
            while lost and not current.closed:
                call = lost.pop(0)
                if not give_up(call):
                    finish(call, Outcome(await current.call_tool(call.tool, call.arguments)))
    return run
