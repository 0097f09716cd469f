"""The gate over a whole run: what no single call shows.

:class:`SessionFindings` is the default :class:`~jsoncontract.pipeline.checker.SessionGate`:
it reports the results the capture holds without their call. A result in a conversation
history that names a call id no earlier message of the history holds is an error (the
provider rejects such a request); a result elsewhere whose call is not in the capture (a
trace that starts mid-session, a response whose request was not recorded) is a warning; a
result that arrived after its call had been checked without it is a warning saying how to
wait longer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from jsoncontract import codes
from jsoncontract.model import EventKind, Finding, Hop, Severity

if TYPE_CHECKING:
    from jsoncontract.model import CallResult, PassedCall, ToolResult, TraceEvent

#: The codes this module reports (declared in :mod:`jsoncontract.codes`), with their
#: summaries.
SESSION_CODES = {entry.code: entry.summary for entry in codes.CATALOG.of(codes.SESSION)}


class SessionFindings:
    """Reports results without calls; the rest of the run passes through unremarked."""

    #: nothing to say of a lone model call (see :mod:`jsoncontract.pipeline.contracts`)
    lone_calls = False

    #: nothing to say about single calls: the checker does not ask
    per_call = False

    def call(self, checked: CallResult) -> Iterable[Finding]:
        """Nothing about a single call."""
        return ()

    def event(self, event: TraceEvent) -> Iterable[Finding]:
        """A finding for a result without its call, a second result, a reused call id."""
        kind = event.kind
        if kind is EventKind.REUSED_CALL_ID and event.call is not None:
            return (reused(event),)
        result = event.result
        if result is None:
            return ()
        if kind is EventKind.ORPHAN_RESULT:
            return (orphan(result),)
        if kind is EventKind.LATE_RESULT:
            return (late(result),)
        if kind is EventKind.CONFLICTING_RESULT:
            return (conflicting(result),)
        return ()

    def passed(self, passed: PassedCall) -> Iterable[Finding]:
        """Nothing about a single call."""
        return ()

    def close(self) -> Iterable[Finding]:
        """Nothing more at the end."""
        return ()

    # -- a run checked in parts: nothing is kept ------------------------------------------

    def state(self) -> None:
        """Nothing."""

    def adopt(self, state: None) -> None:
        """Nothing to continue from."""

    def follows(self, state: None, files: Any) -> bool:
        """Always."""
        return True

    def absorb(self, state: None) -> None:
        """Nothing to continue from."""


def _named(result: ToolResult) -> str:
    if result.call_id is None:
        return "a result without a call id"
    what = "request id" if result.hop is Hop.MCP else "call id"
    return f"the result for {what} {result.call_id!r}"


def orphan(result: ToolResult) -> Finding:
    """The finding for a result no call in the capture claims."""
    if result.in_history:
        if result.call_id is None:  # paired by place: no call before it is left to answer
            message = (
                f"{_named(result)} answers no call: no call without an id is waiting for its "
                "result in the history before it"
            )
            hint = (
                "put each result right after the assistant message of its call, in the order "
                "of the calls, or give the call and its result the same id"
            )
        else:
            message = (
                f"{_named(result)} answers no call: no earlier assistant message of the "
                "history holds that id"
            )
            hint = (
                "the provider rejects a history whose tool result names an unknown call id; "
                "keep each result's id equal to its call's"
            )
        return _about(result, codes.SESSION_ORPHAN_RESULT, Severity.ERROR, message, hint)
    if result.hop is Hop.MCP:
        message = f"{_named(result)} answers no tools/call request of the capture"
        hint = "record the whole session, from initialize on"
    else:
        message = f"{_named(result)} answers no call of the capture"
        hint = "capture the call too (the response, or the history that holds it)"
    return _about(result, codes.SESSION_ORPHAN_RESULT, Severity.WARNING, message, hint)


def _about(result: ToolResult, code: str, severity: Severity, message: str, hint: str) -> Finding:
    """A session finding about ``result``, placed where the result is."""
    return Finding(
        code=code,
        severity=severity,
        message=message,
        hop=result.hop,
        tool=result.tool,
        call_id=result.call_id,
        source=result.source,
        hint=hint,
    )


def late(result: ToolResult) -> Finding:
    """The finding for a result that came after its call had been checked without it."""
    return _about(
        result,
        codes.SESSION_LATE_RESULT,
        Severity.WARNING,
        (
            f"{_named(result)} arrived after its call had been checked without it, too far "
            "from the call to be paired; the result was checked on its own"
        ),
        "pass --result-window with a larger number of lines to wait for results",
    )


def conflicting(result: ToolResult) -> Finding:
    """The finding for a second result of one call that differs from the first."""
    return _about(
        result,
        codes.SESSION_CONFLICTING_RESULT,
        Severity.WARNING,
        (
            f"{_named(result)} differs from the result that call already had: one call, "
            "two answers (this one was checked too)"
        ),
        "answer each call once, and never edit the results of a history",
    )


def reused(event: TraceEvent) -> Finding:
    """The finding for a call id given to another call."""
    call = event.call
    assert call is not None
    where = f" (first at {event.earlier})" if event.earlier is not None else ""
    return Finding(
        code=codes.SESSION_REUSED_CALL_ID,
        severity=Severity.WARNING,
        message=(
            f"call id {call.call_id!r} was already given to another call{where}: this call "
            "of another tool or with other arguments is counted and checked on its own"
        ),
        hop=call.hop,
        tool=call.tool,
        call_id=call.call_id,
        source=event.source,
        hint="give every call an id of its own; a retry is a new call with a new id",
    )
