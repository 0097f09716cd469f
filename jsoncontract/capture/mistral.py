"""Mistral's chat completions: OpenAI's shape, with Mistral's own rule on call ids.

A response, as the ``mistralai`` SDK serialises it, is a ``chat.completion`` whose assistant
messages say ``prefix`` (a member only Mistral writes) and whose ``tool_calls`` carry an
``index``; ``arguments`` is the model's JSON text. Mistral refuses a conversation whose
tool call ids are not nine letters and digits, so an id of another form is the warning
``envelope.call_id_format``: the next request that sends the call back fails.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final

from jsoncontract import codes
from jsoncontract.capture.base import envelope, function_calls, not_read
from jsoncontract.model import Captured, Dialect, Hop, Severity, ToolCall

if TYPE_CHECKING:
    from jsoncontract.capture.interface import DocContext, Handler

#: The call ids Mistral accepts back (its API's 400: "must be a-z, A-Z, 0-9, with a length
#: of 9").
CALL_ID: Final = re.compile(r"[a-zA-Z0-9]{9}")
#: Model names that are Mistral's own.
_MODELS: Final = ("mistral", "codestral", "magistral", "devstral", "ministral", "pixtral")


def message(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """An assistant message: its ``tool_calls``, each id held to Mistral's rule."""
    start = len(out)
    if function_calls(node, ctx, out, pointer, DIALECT) < 0 and node.get("tool_calls") is not None:
        out.append(not_read(ctx, DIALECT, "tool_calls is not a list", pointer))
        return
    for call in out[start:]:
        if (
            type(call) is ToolCall
            and call.call_id is not None
            and not CALL_ID.fullmatch(call.call_id)
        ):
            call.load_findings.append(
                envelope(
                    codes.ENVELOPE_CALL_ID_FORMAT,
                    f"Mistral refuses the call id {call.call_id!r} when the conversation "
                    "sends it back: its ids are nine letters and digits",
                    "map the id to nine letters and digits before the next request",
                    severity=Severity.WARNING,
                )
            )


def response(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """A whole completion: every choice's message, a turn each."""
    choices = node["choices"]
    if not isinstance(choices, list):
        out.append(not_read(ctx, DIALECT, "choices is not a list", pointer))
        return
    outer = ctx.turn
    for i, choice in enumerate(choices):
        found = choice.get("message") if isinstance(choice, dict) else None
        if isinstance(found, dict):
            where = f"{pointer}/choices/{i}/message"
            response_id = node.get("id")
            ctx.turn = f"{response_id}/{i}" if isinstance(response_id, str) else ctx.turn_at(where)
            message(found, ctx, out, where)
    ctx.turn = outer


def _mistral_model(value: dict[str, Any]) -> bool:
    model = value.get("model")
    return isinstance(model, str) and model.lower().startswith(_MODELS)


class Mistral:
    """The Mistral chat dialect (asked before OpenAI Chat, which reads the same shape)."""

    name: Final = Dialect.MISTRAL
    hop: Final = Hop.MODEL
    mark: Final = "choices"
    #: members without one of which :meth:`part` takes no object
    claims: Final = frozenset({"prefix"})
    tools: Final = None

    def new_state(self) -> None:
        """Whole responses only: nothing to keep."""

    def whole(self, value: dict[str, Any], state: None) -> Handler | None:
        """A completion a Mistral model wrote, or whose messages say ``prefix``."""
        choices = value["choices"]
        if not isinstance(choices, list) or value.get("object") == "chat.completion.chunk":
            return None
        if _mistral_model(value):
            return response
        for choice in choices:
            found = choice.get("message") if isinstance(choice, dict) else None
            if isinstance(found, dict) and "prefix" in found:
                return response
        return None

    def part(self, value: dict[str, Any], state: None) -> Handler | None:
        """An assistant message logged on its own, with Mistral's ``prefix``."""
        return message if "prefix" in value and "tool_calls" in value else None


DIALECT: Final = Mistral()
