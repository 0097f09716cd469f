"""OpenAI Chat Completions: tool calls in assistant messages, whole or streamed.

``tool_calls[].function.arguments`` is a JSON *string*; streamed, it arrives as
``choices[].delta.tool_calls[]`` fragments to concatenate per ``index``. Tool definitions are
``{"type": "function", "function": {name, description, parameters, strict}}``.
"""

from __future__ import annotations

from typing import Any, Final

from jsoncontract.capture.base import (
    Assembler,
    DocContext,
    call_without_arguments,
    envelope,
    key,
    make_call,
    text,
)
from jsoncontract.capture.interface import Handler, ToolLayout
from jsoncontract.model import ArgumentsForm, Dialect, Finding, Hop, Severity, ToolCall

#: Where an OpenAI function keeps its input schema (shared with the Responses API, whose
#: functions have the same members; ``parametersJsonSchema`` as Gemini spells it is read too).
FUNCTION_INPUT: Final = ("parametersJsonSchema", "parameters_json_schema", "parameters")


def string_arguments(
    node: dict[str, Any], findings: list[Finding], pointer: str
) -> tuple[Any, ArgumentsForm, str | None]:
    """The ``arguments`` member of an OpenAI function call: a JSON string, as OpenAI sends.

    Returns the arguments, their form and their pointer (``None`` when missing).
    """
    if "arguments" not in node:
        findings.append(
            envelope(
                "envelope.malformed",
                "the function call has no arguments member",
                'OpenAI always sends arguments as a JSON string, "{}" when empty',
            )
        )
        return None, ArgumentsForm.MISSING, None
    value = node["arguments"]
    if isinstance(value, str):
        return value, ArgumentsForm.TEXT, pointer + "/arguments"
    findings.append(
        envelope(
            "envelope.arguments_not_string",
            "arguments should be a JSON-encoded string in this dialect, not a parsed value",
            "a proxy or SDK decoded the arguments before logging; the value is checked as is",
            severity=Severity.WARNING,
        )
    )
    return value, ArgumentsForm.VALUE, pointer + "/arguments"


def tool_call(node: Any, ctx: DocContext, out: list[ToolCall], pointer: str = "") -> None:
    """One ``tool_calls[]`` entry: ``{id, type: "function", function: {name, arguments}}``."""
    findings: list[Finding] = []
    if not isinstance(node, dict):
        findings.append(envelope("envelope.malformed", "a tool call must be an object"))
        out.append(call_without_arguments(ctx, DIALECT, findings, node=pointer))
        return
    function = node.get("function")
    if not isinstance(function, dict):
        if node.get("type") not in (None, "function"):
            return  # a custom or built-in tool call, not a function call
        findings.append(envelope("envelope.malformed", "the tool call has no function object"))
        out.append(
            call_without_arguments(ctx, DIALECT, findings, node=pointer, call_id=node.get("id"))
        )
        return
    name = text(function, "name")
    if not name:
        findings.append(envelope("envelope.malformed", "the function call has no name", path=""))
    if "id" not in node:
        findings.append(
            envelope(
                "envelope.missing_call_id",
                "the tool call has no id, so its result cannot be matched to it",
                severity=Severity.WARNING,
            )
        )
    arguments, form, args = string_arguments(function, findings, pointer + "/function")
    out.append(
        make_call(
            ctx,
            DIALECT,
            tool=name,
            call_id=node.get("id"),
            arguments=arguments,
            form=form,
            node=pointer,
            args=args,
            findings=findings,
        )
    )


def message(node: dict[str, Any], ctx: DocContext, out: list[ToolCall], pointer: str = "") -> None:
    """An assistant message: its ``tool_calls`` (or the legacy ``function_call``)."""
    calls = node.get("tool_calls")
    if isinstance(calls, list):
        for i, call in enumerate(calls):
            tool_call(call, ctx, out, f"{pointer}/tool_calls/{i}")
    elif calls is not None:
        malformed = [envelope("envelope.malformed", "tool_calls must be a list")]
        out.append(call_without_arguments(ctx, DIALECT, malformed, node=pointer))
    legacy = node.get("function_call")
    if isinstance(legacy, dict):
        findings: list[Finding] = []
        arguments, form, args = string_arguments(legacy, findings, f"{pointer}/function_call")
        out.append(
            make_call(
                ctx,
                DIALECT,
                tool=text(legacy, "name"),
                call_id=None,
                arguments=arguments,
                form=form,
                node=f"{pointer}/function_call",
                args=args,
                findings=findings,
            )
        )


def response(node: dict[str, Any], ctx: DocContext, out: list[ToolCall], pointer: str = "") -> None:
    """A whole ``chat.completion``: every choice's message."""
    choices = node.get("choices")
    if not isinstance(choices, list):
        return
    for i, choice in enumerate(choices):
        if isinstance(choice, dict) and isinstance(choice.get("message"), dict):
            message(choice["message"], ctx, out, f"{pointer}/choices/{i}/message")


class ChatStream:
    """Reassembles ``chat.completion.chunk`` tool-call fragments per (response, choice, index)."""

    __slots__ = ("calls",)

    def __init__(self) -> None:
        self.calls = Assembler(
            DIALECT, unit="call", unnamed="the streamed call never named its tool"
        )

    def feed(self, chunk: dict[str, Any], ctx: DocContext, out: list[ToolCall]) -> None:
        """Take one chunk; add the calls its ``finish_reason`` completes to ``out``."""
        calls = self.calls
        response = key(chunk.get("id"))
        choices = chunk.get("choices")
        if type(choices) is not list:
            return
        for choice in choices:
            if not isinstance(choice, dict):
                continue
            number = key(choice.get("index", 0))
            delta = choice.get("delta")
            if isinstance(delta, dict):
                fragments = delta.get("tool_calls")
                for fragment in fragments if type(fragments) is list else ():
                    if not isinstance(fragment, dict):
                        continue
                    pending = calls.open((response, number, key(fragment.get("index", 0))), ctx)
                    if fragment.get("id"):
                        pending.call_id = fragment["id"]
                    function = fragment.get("function")
                    if isinstance(function, dict):
                        if function.get("name"):
                            pending.name = (pending.name or "") + str(function["name"])
                        part = function.get("arguments")
                        if isinstance(part, str):
                            pending.parts.append(part)
            if choice.get("finish_reason") is not None:
                for done in calls.opened():
                    if done[0] == response and done[1] == number:
                        finished = calls.pop(done)
                        if finished is not None:
                            calls.close(finished, out)

    def flush(self, out: list[ToolCall]) -> None:
        """Calls whose stream ended without a ``finish_reason`` (possibly cut off)."""
        self.calls.flush(out)


def is_chunk(value: dict[str, Any]) -> bool:
    """A ``chat.completion.chunk`` (also when a log dropped ``object``: its choices have deltas)."""
    kind: object = value.get("object")
    if kind is not None:
        return kind == "chat.completion.chunk"
    choices = value.get("choices")
    return (
        isinstance(choices, list)
        and bool(choices)
        and isinstance(choices[0], dict)
        and "delta" in choices[0]
    )


def _is_tool(entry: dict[str, Any]) -> bool:
    return entry.get("type") == "function" and isinstance(entry.get("function"), dict)


class OpenAIChat:
    """The OpenAI Chat Completions dialect."""

    name: Final = Dialect.OPENAI_CHAT
    hop: Final = Hop.MODEL
    mark: Final = "choices"
    tools: Final = ToolLayout(
        _is_tool,
        input=tuple("/function/" + member for member in FUNCTION_INPUT),
        output=("/output_schema",),
        body="/function",
        input_required=False,
    )

    def new_state(self) -> ChatStream:
        """The file's open chunk streams."""
        return ChatStream()

    def whole(self, value: dict[str, Any], state: ChatStream) -> Handler | None:
        """A completion or one of its chunks: only Chat answers with ``choices``."""
        kind = value.get("object")
        if kind == "chat.completion.chunk" or (kind is None and is_chunk(value)):
            return state.feed
        return response if isinstance(value["choices"], list) else None

    def part(self, value: dict[str, Any], state: ChatStream) -> Handler | None:
        """A completion or chunk without usable ``choices``, an assistant message, or one
        ``tool_calls`` entry."""
        kind = value.get("object")
        if kind == "chat.completion.chunk":
            return state.feed
        if kind == "chat.completion":
            return response
        legacy = value.get("function_call")
        if "tool_calls" in value or (
            isinstance(legacy, dict) and ("arguments" in legacy or value.get("role") == "assistant")
        ):
            return message
        if value.get("type") == "function" and isinstance(value.get("function"), dict):
            return tool_call
        return None


DIALECT: Final = OpenAIChat()
