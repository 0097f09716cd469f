"""Ollama's native chat API: ``message.tool_calls[].function.{name, arguments}``.

A ``/api/chat`` response, as the ``ollama`` SDK serialises it (``{"model", "created_at",
"message", "done", ...}``), holds the assistant message; its calls carry no ids (a call is
told by its place in the response), and ``arguments`` is the object Ollama decoded from the
model's text (a string there is the model's double encoding). A request (``model``,
``messages``, ``tools``) is read as OpenAI Chat reads one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from jsoncontract.capture.base import function_calls, not_read
from jsoncontract.model import Captured, Dialect, Hop

if TYPE_CHECKING:
    from jsoncontract.capture.interface import DocContext, Handler


def message(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """An assistant message: its ``tool_calls``, one turn."""
    outer = ctx.turn
    if outer is None:
        ctx.turn = ctx.turn_at(pointer)
    if (
        function_calls(node, ctx, out, pointer, DIALECT, ids=False) < 0
        and node.get("tool_calls") is not None
    ):
        out.append(not_read(ctx, DIALECT, "message.tool_calls is not a list", pointer))
    ctx.turn = outer


def response(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """A whole chat response (or one streamed chunk of it): its ``message``."""
    found = node["message"]
    if isinstance(found, dict):
        message(found, ctx, out, pointer + "/message")
    else:
        out.append(not_read(ctx, DIALECT, "message is not an object", pointer))


class Ollama:
    """The Ollama native chat dialect."""

    name: Final = Dialect.OLLAMA
    hop: Final = Hop.MODEL
    mark: Final = "message"
    #: members without one of which :meth:`part` takes no object
    claims: Final[frozenset[str]] = frozenset()
    tools: Final = None

    def new_state(self) -> None:
        """A response is whole (a streamed chunk carries whole calls): nothing to keep."""

    def whole(self, value: dict[str, Any], state: None) -> Handler | None:
        """A chat response: ``message``, ``created_at`` and ``done``."""
        return response if "created_at" in value and "done" in value else None

    def part(self, value: dict[str, Any], state: None) -> Handler | None:
        """Nothing else: a message alone is read as OpenAI Chat reads it."""
        return None


DIALECT: Final = Ollama()
