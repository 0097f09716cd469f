"""LiteLLM's standard logging payload: the request and response of one call, as a callback
receives it (``kwargs["standard_logging_object"]``).

The payload (``{"id", "call_type", "model", "messages", "response", "model_parameters",
...}``) holds the response LiteLLM returned, in OpenAI's Chat Completions shape whatever the
provider, and the parameters of the request: ``model_parameters.tools`` are the tools
offered to the response's calls. A payload whose response cannot be read is not passed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from jsoncontract.capture.base import function_calls, not_read, request_tools
from jsoncontract.model import Captured, Dialect, Hop

if TYPE_CHECKING:
    from jsoncontract.capture.interface import DocContext, Handler


def payload(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """A standard logging payload: the calls of its ``response``, offered the tools of its
    ``model_parameters``."""
    answer = node.get("response")
    choices = answer.get("choices") if isinstance(answer, dict) else None
    if not isinstance(answer, dict) or not isinstance(choices, list):
        if node.get("status") != "failure":
            out.append(not_read(ctx, DIALECT, "response.choices is not a list", pointer))
        return
    parameters = node.get("model_parameters")
    offered = request_tools(parameters) if isinstance(parameters, dict) else None
    ctx = ctx.child("", offered=offered)
    response_id = answer.get("id")
    for i, choice in enumerate(choices):
        found = choice.get("message") if isinstance(choice, dict) else None
        if isinstance(found, dict):
            where = f"{pointer}/response/choices/{i}/message"
            ctx.turn = f"{response_id}/{i}" if isinstance(response_id, str) else ctx.turn_at(where)
            if function_calls(found, ctx, out, where, DIALECT) < 0 and found.get("tool_calls"):
                out.append(not_read(ctx, DIALECT, "tool_calls is not a list", where))


class LiteLLM:
    """The LiteLLM standard logging payload dialect."""

    name: Final = Dialect.LITELLM
    hop: Final = Hop.MODEL
    mark: Final = "call_type"
    #: members without one of which :meth:`part` takes no object
    claims: Final[frozenset[str]] = frozenset()
    tools: Final = None

    def new_state(self) -> None:
        """Whole payloads only: nothing to keep."""

    def whole(self, value: dict[str, Any], state: None) -> Handler | None:
        """A payload: ``call_type`` beside ``response`` and ``model_parameters``."""
        return payload if "response" in value and "model_parameters" in value else None

    def part(self, value: dict[str, Any], state: None) -> Handler | None:
        """Nothing else."""
        return None


DIALECT: Final = LiteLLM()
