"""The guard inside a server built with the official Python SDK: no proxy, the same gate.

:func:`guard_middleware` wraps the tool functions of an ``MCPServer`` (or a lowlevel
``Server``) as SDK middleware (``MCPServer(..., middleware=[...])``, or appended to
``server.middleware``). Middleware sees a request before the SDK validates it, so the guard
judges the arguments the client sent, not the ones pydantic coerced (``"2"`` is no ``2``
here), and an undeclared property is still there to refuse:

.. code-block:: python

    from mcp.server.mcpserver import MCPServer
    from jsoncontract import Guard
    from jsoncontract.live.guard.sdk import guard_middleware

    app = MCPServer("orders")
    guard = Guard(rules=["rules.toml"])
    app.middleware.append(guard_middleware(guard, app))

Each ``tools/call`` gets the :class:`~jsoncontract.live.guard.gate.Guard`'s verdict: a call
that may go on reaches the tool function, and its result goes through the result stage; any
other gets the guard's answer (an ``isError`` result, or an ``MCPError`` for the JSON-RPC
errors the protocol version prescribes). A ``tools/list`` answer is what the guard learns
the tools from (and hides drifted ones from); a call that comes first makes it list them.
Each client session has its own retry budget and idempotency table; 2026-07-28 requests,
which belong to no session, share the server's.
"""

from __future__ import annotations

import weakref
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from jsoncontract.live.guard.gate import Action
from jsoncontract.pipeline.answers import MODERN_VERSIONS, version_at_least

MODERN = MODERN_VERSIONS[0]

if TYPE_CHECKING:
    from jsoncontract.live.guard.gate import Guard, GuardState, Verdict


def guard_middleware(guard: Guard, server: Any = None) -> Callable[..., Awaitable[Any]]:
    """SDK middleware that puts ``guard`` in front of every tool of ``server`` (an
    ``MCPServer`` or a lowlevel ``Server``; ``None`` when the guard was given its tools).

    Raises:
        ServerError: the SDK is not installed.
    """
    from jsoncontract.live.client import require_sdk

    require_sdk()
    states: weakref.WeakKeyDictionary[Any, GuardState] = weakref.WeakKeyDictionary()
    events: dict[int, Any] = {}  # calls waiting for the same keyed write, by verdict
    answered: dict[int, dict[str, Any] | None] = {}

    def state_of(ctx: Any) -> GuardState:
        session = getattr(ctx, "session", None)
        version = getattr(ctx, "protocol_version", None)
        if session is None or (isinstance(version, str) and version_at_least(version, MODERN)):
            return guard.state  # a 2026-07-28 request stands alone: the server is the session
        try:
            found = states.get(session)
            if found is None:
                found = states[session] = guard.session()
        except TypeError:  # a session that cannot be weakly referenced
            return guard.state
        return found

    async def middleware(ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        if ctx.method == "tools/list":
            result = _plain(await call_next(ctx))
            if isinstance(result, dict):
                return guard.listed(result, state_of(ctx))
            return result
        if ctx.method != "tools/call" or ctx.request_id is None:
            return await call_next(ctx)
        state = state_of(ctx)
        if state.version is None:
            state.version = getattr(ctx, "protocol_version", None)
        if guard.book is None:
            await _learn(guard, server, state)
        message = {
            "jsonrpc": "2.0",
            "id": ctx.request_id,
            "method": "tools/call",
            "params": dict(ctx.params or {}),
        }
        verdict = guard.call(message, state)
        if verdict.action is Action.WAIT:
            import anyio

            event = events[id(verdict)] = anyio.Event()
            await event.wait()
            events.pop(id(verdict), None)
            answer = answered.pop(id(verdict), None)
            if answer is None:  # the first call failed: this one goes to the tool
                return await _forward(guard, verdict, ctx, call_next, state, released_to)
            return _deliver(answer)
        if verdict.action is not Action.FORWARD:
            return _deliver(verdict.answer)
        return await _forward(guard, verdict, ctx, call_next, state, released_to)

    def released_to(verdict: Verdict, answer: dict[str, Any] | None) -> None:
        answered[id(verdict)] = answer
        event = events.get(id(verdict))
        if event is not None:
            event.set()

    return middleware


async def _forward(
    guard: Guard,
    verdict: Verdict,
    ctx: Any,
    call_next: Callable[[Any], Awaitable[Any]],
    state: GuardState,
    released_to: Callable[[Verdict, dict[str, Any] | None], None],
) -> Any:
    """Call the tool, and run the result stage over what it returned."""
    from mcp.shared.exceptions import MCPError

    try:
        result = _plain(await call_next(ctx))
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": ctx.request_id, "result": result}
    except MCPError as exc:
        error = exc.error.model_dump(by_alias=True, mode="json", exclude_none=True)
        message = {"jsonrpc": "2.0", "id": ctx.request_id, "error": error}
    decision, released = guard.result(verdict, message, state)
    for item in released:
        released_to(item.verdict, item.answer)
    return _deliver(decision.answer if decision.answer is not None else message)


def _deliver(answer: dict[str, Any] | None) -> Any:
    """A JSON-RPC response as the handler's result: its ``result``, or its error raised."""
    from mcp.shared.exceptions import MCPError

    if answer is None:
        raise MCPError(code=-32603, message="the guard has no answer for this call")
    if "error" in answer:
        error = answer["error"]
        raise MCPError(
            code=error.get("code", -32603), message=error.get("message", ""), data=error.get("data")
        )
    return answer.get("result")


def _plain(result: Any) -> Any:
    """A handler's result as JSON (a pydantic model dumped as the wire has it)."""
    dump = getattr(result, "model_dump", None)
    if dump is None:
        return result
    return dump(by_alias=True, mode="json", exclude_none=True)


async def _learn(guard: Guard, server: Any, state: GuardState) -> None:
    """Learn the server's tools from its own listing."""
    if server is None:
        from jsoncontract.errors import UsageError

        raise UsageError("give guard_middleware the server, or the Guard its tools")
    listing = getattr(server, "list_tools", None)
    if listing is None:
        from jsoncontract.errors import UsageError

        raise UsageError(f"{type(server).__name__} has no list_tools(): pass an MCPServer")
    tools = [_plain(tool) for tool in await listing()]
    guard.listed({"tools": tools}, state)


__all__ = ["guard_middleware"]
