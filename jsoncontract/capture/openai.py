"""OpenAI captures: Chat Completions and Responses, whole or streamed.

Chat Completions carries ``tool_calls[].function.arguments`` as a JSON *string*; streamed, it
arrives as ``choices[].delta.tool_calls[]`` fragments to concatenate per ``index``. The
Responses API has ``function_call`` output items (``arguments`` also a string) and, streamed,
``response.function_call_arguments.delta`` / ``.done`` events per ``item_id``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jsoncontract.capture.base import (
    DocContext,
    call_without_arguments,
    envelope,
    key,
    make_call,
    text,
)
from jsoncontract.model import ArgumentsForm, Dialect, Finding, Severity, ToolCall

_CHAT = Dialect.OPENAI_CHAT
_RESPONSES = Dialect.OPENAI_RESPONSES


def _arguments(
    node: dict[str, Any], findings: list[Finding], pointer: str
) -> tuple[Any, ArgumentsForm, str | None]:
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


def chat_tool_call(node: Any, ctx: DocContext, pointer: str, out: list[ToolCall]) -> None:
    """One ``tool_calls[]`` entry: ``{id, type: "function", function: {name, arguments}}``."""
    findings: list[Finding] = []
    if not isinstance(node, dict):
        findings.append(envelope("envelope.malformed", "a tool call must be an object"))
        out.append(call_without_arguments(ctx, _CHAT, findings, node=pointer))
        return
    function = node.get("function")
    if not isinstance(function, dict):
        if node.get("type") not in (None, "function"):
            return  # a custom or built-in tool call, not a function call
        findings.append(envelope("envelope.malformed", "the tool call has no function object"))
        out.append(
            call_without_arguments(ctx, _CHAT, findings, node=pointer, call_id=node.get("id"))
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
    arguments, form, args = _arguments(function, findings, pointer + "/function")
    out.append(
        make_call(
            ctx,
            _CHAT,
            tool=name,
            call_id=node.get("id"),
            arguments=arguments,
            form=form,
            node=pointer,
            args=args,
            findings=findings,
        )
    )


def chat_message(node: dict[str, Any], ctx: DocContext, pointer: str, out: list[ToolCall]) -> None:
    """An assistant message: its ``tool_calls`` (or the legacy ``function_call``)."""
    calls = node.get("tool_calls")
    if isinstance(calls, list):
        for i, call in enumerate(calls):
            chat_tool_call(call, ctx, f"{pointer}/tool_calls/{i}", out)
    elif calls is not None:
        malformed = [envelope("envelope.malformed", "tool_calls must be a list")]
        out.append(call_without_arguments(ctx, _CHAT, malformed, node=pointer))
    legacy = node.get("function_call")
    if isinstance(legacy, dict):
        findings: list[Finding] = []
        arguments, form, args = _arguments(legacy, findings, f"{pointer}/function_call")
        out.append(
            make_call(
                ctx,
                _CHAT,
                tool=text(legacy, "name"),
                call_id=None,
                arguments=arguments,
                form=form,
                node=f"{pointer}/function_call",
                args=args,
                findings=findings,
            )
        )


def chat_response(node: dict[str, Any], ctx: DocContext, out: list[ToolCall]) -> None:
    """A whole ``chat.completion``: every choice's message."""
    choices = node.get("choices")
    if not isinstance(choices, list):
        return
    for i, choice in enumerate(choices):
        if isinstance(choice, dict) and isinstance(choice.get("message"), dict):
            chat_message(choice["message"], ctx, f"/choices/{i}/message", out)


def responses_item(
    node: dict[str, Any], ctx: DocContext, pointer: str, out: list[ToolCall]
) -> None:
    """A Responses ``function_call`` output item."""
    findings: list[Finding] = []
    name = text(node, "name")
    if not name:
        findings.append(envelope("envelope.malformed", "the function_call item has no name"))
    call_id = node.get("call_id")
    if call_id is None:
        findings.append(
            envelope(
                "envelope.missing_call_id",
                "the function_call item has no call_id, so its output cannot be matched",
                severity=Severity.WARNING,
            )
        )
        call_id = node.get("id")
    arguments, form, args = _arguments(node, findings, pointer)
    out.append(
        make_call(
            ctx,
            _RESPONSES,
            tool=name,
            call_id=call_id,
            arguments=arguments,
            form=form,
            node=pointer,
            args=args,
            findings=findings,
        )
    )


def responses_response(
    node: dict[str, Any], ctx: DocContext, stream: ResponsesStream, out: list[ToolCall]
) -> None:
    """A whole Responses ``response``: its ``function_call`` output items.

    Items the file's ``stream`` already assembled are skipped; items it left open (deltas
    seen, no ``.done``) are closed with the final item, so no call is counted twice.
    """
    output = node.get("output")
    if not isinstance(output, list):
        return
    for i, item in enumerate(output):
        if isinstance(item, dict) and item.get("type") == "function_call":
            stream.close_item(item, ctx, f"/output/{i}", out)


# -- streams -------------------------------------------------------------------------------


@dataclass(slots=True)
class _Pending:
    ctx: DocContext
    call_id: Any = None
    name: str | None = None
    parts: list[str] = field(default_factory=list)
    final: str | None = None


class ChatStream:
    """Reassembles ``chat.completion.chunk`` tool-call fragments per (response, choice, index)."""

    def __init__(self) -> None:
        self._open: dict[tuple[Any, Any, Any], _Pending] = {}

    def feed(self, chunk: dict[str, Any], ctx: DocContext, out: list[ToolCall]) -> None:
        """Take one chunk; add the calls its ``finish_reason`` completes to ``out``."""
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
                    where = (response, number, key(fragment.get("index", 0)))
                    pending = self._open.get(where)
                    if pending is None:
                        pending = self._open[where] = _Pending(ctx)
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
                self._close(lambda k, r=response, n=number: k[0] == r and k[1] == n, out)

    def _close(self, which: Any, out: list[ToolCall]) -> None:
        for done in [k for k in self._open if which(k)]:
            pending = self._open.pop(done)
            out.append(_assembled(pending, _CHAT, complete=True))

    def flush(self, out: list[ToolCall]) -> None:
        """Calls whose stream ended without a ``finish_reason`` (possibly cut off)."""
        out.extend(_assembled(p, _CHAT, complete=False) for p in self._open.values())
        self._open.clear()


class ResponsesStream:
    """Reassembles Responses ``function_call`` items from their stream events, per item id."""

    def __init__(self) -> None:
        self._open: dict[Any, _Pending] = {}
        self.emitted: set[Any] = set()

    def feed(self, event: dict[str, Any], ctx: DocContext, out: list[ToolCall]) -> None:
        """Take one event; add the call a ``.done`` event completes to ``out``."""
        kind = event.get("type")
        if kind in ("response.output_item.added", "response.output_item.done"):
            item = event.get("item")
            if not isinstance(item, dict) or item.get("type") != "function_call":
                return
            if kind == "response.output_item.added":
                pending = self._open.setdefault(key(item.get("id")), _Pending(ctx))
                pending.call_id = item.get("call_id")
                pending.name = text(item, "name")
            else:
                self.close_item(item, ctx.child("/item"), "", out)
        elif kind == "response.function_call_arguments.delta":
            pending = self._open.setdefault(key(event.get("item_id")), _Pending(ctx))
            if isinstance(event.get("delta"), str):
                pending.parts.append(event["delta"])
        elif kind == "response.function_call_arguments.done":
            item_id = key(event.get("item_id"))
            pending = self._open.pop(item_id) if item_id in self._open else _Pending(ctx)
            pending.name = text(event, "name") or pending.name
            if isinstance(event.get("arguments"), str):
                pending.final = event["arguments"]
            if item_id is None:  # nothing says it was seen before: every one is a call
                out.append(_assembled(pending, _RESPONSES, complete=True))
            elif item_id not in self.emitted:
                self.emitted.add(item_id)
                out.append(_assembled(pending, _RESPONSES, complete=True))

    def close_item(
        self, item: dict[str, Any], ctx: DocContext, pointer: str, out: list[ToolCall]
    ) -> None:
        """A final ``function_call`` item (``output_item.done``, or a completed response).

        It closes the item the stream opened, checking the fragments against the final
        arguments; an item never seen streaming is read as it is; one already produced is
        skipped.
        """
        item_id = key(item.get("id"))
        if item_id in self.emitted:
            return
        pending = self._open.pop(item_id, None)
        if pending is None:
            responses_item(item, ctx, pointer, out)
        else:
            pending.call_id = item.get("call_id", pending.call_id)
            pending.name = text(item, "name") or pending.name
            if isinstance(item.get("arguments"), str):
                pending.final = item["arguments"]
            out.append(_assembled(pending, _RESPONSES, complete=True))
        if item_id is not None:
            self.emitted.add(item_id)

    def flush(self, out: list[ToolCall]) -> None:
        """Items whose stream ended before their ``.done`` event."""
        out.extend(_assembled(p, _RESPONSES, complete=False) for p in self._open.values())
        self._open.clear()


def _assembled(pending: _Pending, dialect: Dialect, *, complete: bool) -> ToolCall:
    findings: list[Finding] = []
    joined = "".join(pending.parts)
    arguments = pending.final if pending.final is not None else joined
    if pending.final is not None and pending.parts and joined != pending.final:
        findings.append(
            envelope(
                "envelope.stream_mismatch",
                "the streamed argument fragments do not add up to the final arguments",
                "events were lost or reordered; the final arguments are checked",
                severity=Severity.WARNING,
            )
        )
    if not complete:
        findings.append(
            envelope(
                "envelope.incomplete_stream",
                "the stream ended before this call was finished",
                "the capture was cut off, or the connection dropped mid-call",
                severity=Severity.WARNING,
            )
        )
    if not pending.name:
        findings.append(envelope("envelope.malformed", "the streamed call never named its tool"))
    return make_call(
        pending.ctx,
        dialect,
        tool=pending.name,
        call_id=pending.call_id,
        arguments=arguments,
        form=ArgumentsForm.TEXT,
        node="",
        args=None,
        findings=findings,
    )
