"""Downstream: the body a tool finally sends to the system behind it.

A bare body does not say which tool it belongs to: the caller names it (``--tool``), or a
trace record carries it (``{"hop": "downstream", "tool": .., "payload": ..}``). Any JSON
value is a body, so this dialect is never detected: it is the registry's fallback, used
when the reader knows the tool, when forced, and for trace records at the downstream hop.
Inside an HTTP Archive, request bodies that are no provider or MCP message are bodies too
(:mod:`jsoncontract.capture.containers`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from jsoncontract import codes
from jsoncontract.capture.base import envelope, make_call
from jsoncontract.capture.interface import Shortcut
from jsoncontract.model import ArgumentsForm, Captured, Dialect, Finding, Hop

if TYPE_CHECKING:
    from jsoncontract.capture.interface import DocContext, Handler, LaneCall


def body(node: Any, ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """A JSON body (already parsed) or a body text (a string payload)."""
    findings: list[Finding] = []
    if not ctx.tool:
        findings.append(
            envelope(
                codes.ENVELOPE_MISSING_TOOL,
                "a downstream body does not say which tool sent it",
                "pass --tool NAME, or wrap the body in a trace record with a tool member",
            )
        )
    form = ArgumentsForm.TEXT if isinstance(node, str) else ArgumentsForm.VALUE
    out.append(
        make_call(
            ctx,
            DIALECT,
            tool=ctx.tool,
            call_id=None,
            arguments=node,
            form=form,
            node=pointer,
            args=pointer,
            findings=findings,
        )
    )


def lane_body(node: dict[str, Any], tool: str, file: str, line: int) -> list[LaneCall]:
    """The call of a body that is an object, as :func:`body` reads it when the caller named
    its ``tool`` (which the reader hands the fast lane in place of a dialect's memory)."""
    return [(tool, None, node, ArgumentsForm.VALUE, None)]


class Downstream:
    """The dialect of bare bodies: any JSON value, read as the arguments of the named tool."""

    name: Final = Dialect.DOWNSTREAM
    hop: Final = Hop.DOWNSTREAM
    mark: Final = None
    tools: Final = None
    shortcuts: Final = {body: Shortcut(lane_body)}

    def new_state(self) -> None:
        """Bodies stand alone: nothing to remember."""

    def whole(self, value: Any, state: None) -> Handler | None:
        """Never: no member gives a body away."""
        return None

    def part(self, value: Any, state: None) -> Handler:
        """Every JSON value is a body (objects, and for this dialect arrays and scalars too)."""
        return body


DIALECT: Final = Downstream()
