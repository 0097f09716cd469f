"""Cohere's v2 chat API: ``message.tool_calls[]``, with the model's ``tool_plan``.

A v2 chat response, as the ``cohere`` SDK serialises it (``{"id", "finish_reason",
"message": {"role", "tool_plan", "tool_calls", ...}, "usage"}``), holds calls in OpenAI's
function shape: ``arguments`` is the model's JSON text. ``finish_reason: "TOOL_CALL"`` with
no call read is a document that was not read. A request (``model``, ``messages``, ``tools``) is
read as OpenAI Chat reads one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from jsoncontract.capture.base import function_calls, not_read
from jsoncontract.model import Captured, Dialect, Hop

if TYPE_CHECKING:
    from jsoncontract.capture.interface import DocContext, Handler


def response(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """A whole v2 chat response: its message's ``tool_calls``, one turn."""
    found = node["message"]
    if not isinstance(found, dict):
        out.append(not_read(ctx, DIALECT, "message is not an object", pointer))
        return
    outer = ctx.turn
    if outer is None:
        ctx.turn = f"{node['id']}" if isinstance(node.get("id"), str) else ctx.turn_at(pointer)
    read = function_calls(found, ctx, out, pointer + "/message", DIALECT)
    ctx.turn = outer
    if read < 0 and found.get("tool_calls") is not None:
        out.append(not_read(ctx, DIALECT, "message.tool_calls is not a list", pointer))
    elif read <= 0 and node.get("finish_reason") == "TOOL_CALL":
        out.append(not_read(ctx, DIALECT, 'finish_reason "TOOL_CALL", and no tool call', pointer))


class Cohere:
    """The Cohere v2 chat dialect."""

    name: Final = Dialect.COHERE
    hop: Final = Hop.MODEL
    mark: Final = "message"
    #: members without one of which :meth:`part` takes no object
    claims: Final[frozenset[str]] = frozenset()
    tools: Final = None

    def new_state(self) -> None:
        """Whole responses only: nothing to keep."""

    def whole(self, value: dict[str, Any], state: None) -> Handler | None:
        """A v2 chat response: ``finish_reason`` beside ``message``, in Cohere's capitals, or
        a message that plans its calls (``tool_plan``)."""
        found = value["message"]
        reason = value.get("finish_reason")
        if isinstance(reason, str) and reason.isupper():
            return response
        return response if isinstance(found, dict) and "tool_plan" in found else None

    def part(self, value: dict[str, Any], state: None) -> Handler | None:
        """Nothing else."""
        return None


DIALECT: Final = Cohere()
