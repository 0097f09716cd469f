"""Calls without results: a call whose result never came, while later calls got theirs.

A capture of calls alone (model responses, request bodies without results) has no results
to miss, and the last calls of a conversation are legitimately unanswered when it ends. So
a call without a result is reported (``session.missing_result``, warning) only when a later
call of the same scope got its result: the host dropped it, or the server never answered.
An MCP request still unanswered when the capture ends, in a session whose other requests
were answered, is reported too: every JSON-RPC request gets a response. Results without
calls are :mod:`jsoncontract.pipeline.session`'s.

A scope is an MCP session, or else one hop of one capture file. Calls without an id are
not judged (a result can only be paired with them by position, which their dialect does).

**State** (for a run checked in parts): per scope, whether any call got its result, and
the unanswered calls since the last one that did (tool, call id, place; at most
:data:`PENDING` per scope, the rest counted).
A part read on its own merges into the run by appending its unanswered calls to each
scope's (within the same bound), unless it answered a call of a scope that has unanswered
calls before the part (:meth:`PairingCheck.follows`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from jsoncontract import codes
from jsoncontract.model import EventKind, Finding, Hop, Severity, Source

if TYPE_CHECKING:
    from jsoncontract.model import CallResult, PassedCall, ToolCall, TraceEvent

#: How many unanswered calls per scope are remembered by place.
PENDING: Final = 1000

Scope = tuple[str, str]


def scope_of(call: ToolCall) -> Scope:
    """The scope of a call: its MCP session, else its hop in its capture file."""
    session = call.session
    if session is not None:
        return ("mcp", session.id)
    return (call.hop._value_ if call.hop is not None else "", call.source.file)


def passed_scope(passed: PassedCall) -> Scope:
    """:func:`scope_of` a call that passed the fast lane."""
    session = passed.session
    if session is not None:
        return ("mcp", session.id)
    return (passed.hop._value_, passed.file)


@dataclass(slots=True)
class _Unanswered:
    tool: str | None
    call_id: str | None
    hop: Hop | None
    source: Source


@dataclass(slots=True)
class _Scope:
    pending: list[_Unanswered] = field(default_factory=list)
    overflow: int = 0
    answered: bool = False  # some call of the scope got its result


class PairingCheck:
    """``session.missing_result`` (see the module)."""

    def __init__(self) -> None:
        self._scopes: dict[Scope, _Scope] = {}

    def call(self, checked: CallResult) -> list[Finding]:
        """Calls left unanswered before this answered one; remember this one if it is
        unanswered."""
        call = checked.call
        if call.hop is None or call.call_id is None:  # not a call, or nothing to pair by
            return []
        scope = scope_of(call)
        state = self._scopes.get(scope)
        if call.result is not None:
            if state is None:
                self._scopes[scope] = _Scope(answered=True)
                return []
            state.answered = True
            if not (state.pending or state.overflow):
                return []
            found = list(_findings(state, closing=False))
            state.pending = []
            state.overflow = 0
            return found
        if state is None:
            state = self._scopes[scope] = _Scope()
        if len(state.pending) < PENDING:
            state.pending.append(_Unanswered(call.tool, call.call_id, call.hop, call.source))
        else:
            state.overflow += 1
        return []

    def passed(self, passed: PassedCall) -> list[Finding]:
        """:meth:`call` for a lone call that passed the fast lane (no result)."""
        session = passed.session  # its scope (:func:`passed_scope`), read here: once a call
        scope = ("mcp", session.id) if session is not None else (passed.hop._value_, passed.file)
        state = self._scopes.get(scope)
        if state is None:
            state = self._scopes[scope] = _Scope()
        pending = state.pending
        if len(pending) < PENDING:
            pending.append(
                _Unanswered(
                    passed.tool, passed.call_id, passed.hop, Source(passed.file, passed.line)
                )
            )
        else:
            state.overflow += 1
        return []

    def event(self, event: TraceEvent) -> list[Finding]:
        """A late result answers its call after all: it is not missing."""
        result = event.result
        if event.kind is not EventKind.LATE_RESULT or result is None:
            return []
        answered = (result.call_id, result.hop)
        for state in self._scopes.values():
            state.pending = [p for p in state.pending if (p.call_id, p.hop) != answered]
        return []

    def close(self) -> list[Finding]:
        """MCP requests never answered before the capture ended."""
        out: list[Finding] = []
        for (kind, _), state in self._scopes.items():
            if kind == Hop.MCP.value and state.answered:
                out.extend(_findings(state, closing=True))
        self._scopes.clear()
        return out

    # -- a run checked in parts (see :mod:`jsoncontract.pipeline.contracts`) -------------

    def state(self) -> dict[Scope, _Scope]:
        """Each scope's answered flag and unanswered calls."""
        return self._scopes

    def adopt(self, state: dict[Scope, _Scope]) -> None:
        """Continue from ``state``."""
        self._scopes = dict(state)

    def follows(self, state: dict[Scope, _Scope], files: Any) -> bool:
        """Whether a part that started with no scope saw what this check would have: it
        answered no call of a scope with unanswered calls before it."""
        for scope, part in state.items():
            mine = self._scopes.get(scope)
            if part.answered and mine is not None and (mine.pending or mine.overflow):
                return False
        return True

    def absorb(self, state: dict[Scope, _Scope]) -> None:
        """Continue after a part that :meth:`follows` this check."""
        scopes = self._scopes
        for scope, part in state.items():
            mine = scopes.get(scope)
            if mine is None:
                scopes[scope] = part
            elif part.answered:
                mine.answered = True
                mine.pending, mine.overflow = part.pending, part.overflow
            else:
                joined = mine.pending + part.pending
                mine.overflow += part.overflow + max(0, len(joined) - PENDING)
                mine.pending = joined[:PENDING]


def _findings(state: _Scope, *, closing: bool) -> Iterator[Finding]:
    for missing in state.pending:
        what = f"request id {missing.call_id!r}" if missing.hop is Hop.MCP else "call"
        if closing:
            message = (
                f"the {missing.tool} {what} was never answered before the capture ended: "
                "every JSON-RPC request gets a response"
            )
            hint = "look for a server that hung or crashed on this call, or a host that "
            hint += "stopped reading; give every call a timeout"
        else:
            message = (
                f"the {missing.tool} {what} got no result, though later calls did: the "
                "result was dropped, or never came"
            )
            hint = (
                "answer every request, with an error result when the tool failed"
                if missing.hop is Hop.MCP
                else "hand every call's result back (providers reject a history where a "
                "tool call has no result), with an error result when the tool failed"
            )
        yield Finding(
            codes.SESSION_MISSING_RESULT,
            Severity.WARNING,
            message,
            hop=missing.hop,
            tool=missing.tool,
            call_id=missing.call_id,
            source=missing.source,
            hint=hint,
        )
    if state.overflow:
        first = state.pending[0]
        yield Finding(
            codes.SESSION_MISSING_RESULT,
            Severity.WARNING,
            f"{state.overflow} more calls of the same scope got no result either",
            hop=first.hop,
            source=first.source,
        )
