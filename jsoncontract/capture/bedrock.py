"""Amazon Bedrock Converse: ``toolUse`` content blocks, whole or streamed (ConverseStream).

A Converse response, as boto3 returns it (with or without its ``ResponseMetadata``), holds
the assistant message at ``output.message``; each ``{"toolUse": {"toolUseId", "name",
"input"}}`` block of its ``content`` is a call, ``input`` the arguments the service decoded
from the model's text (an object: a string there is the model's double encoding).
ConverseStream events, one per line as the SDK yields them, open a call with
``contentBlockStart.start.toolUse``, add ``contentBlockDelta.delta.toolUse.input`` fragments
(text) and close it with ``contentBlockStop``, per ``contentBlockIndex``. A request
(``messages`` whose content blocks hold ``toolUse`` and ``toolResult``, ``toolConfig``) is
a conversation history; its ``toolConfig.tools[].toolSpec`` are the tools it offers. Tool
definitions are ``{"toolSpec": {"name", "description", "inputSchema": {"json": {..}}}}``.
"""

from __future__ import annotations

from typing import Any, Final

from jsoncontract import codes
from jsoncontract.capture.base import (
    Assembler,
    answered_id,
    envelope,
    make_call,
    make_result,
    not_read,
    text,
)
from jsoncontract.capture.interface import DocContext, Handler, ToolLayout
from jsoncontract.model import (
    ArgumentsForm,
    Captured,
    Dialect,
    Finding,
    Hop,
    OfferedTools,
    offered_tools,
)

#: The events of a ConverseStream, each the one member of its line.
STREAM_EVENTS: Final = frozenset(
    {"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop",
     "messageStop", "metadata"}
)  # fmt: skip


def tool_use(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """One ``{"toolUse": {...}}`` content block."""
    use = node.get("toolUse")
    where = pointer + "/toolUse"
    findings: list[Finding] = []
    if not isinstance(use, dict):
        findings.append(envelope(codes.ENVELOPE_MALFORMED, "toolUse is not an object"))
        use = {}
    name = text(use, "name")
    if not name:
        findings.append(envelope(codes.ENVELOPE_MALFORMED, "the toolUse block has no name"))
    if "input" in use:
        arguments, form, args = use["input"], ArgumentsForm.DECODED, where + "/input"
    else:
        findings.append(envelope(codes.ENVELOPE_MALFORMED, "the toolUse block has no input"))
        arguments, form, args = None, ArgumentsForm.MISSING, None
    out.append(
        make_call(
            ctx,
            DIALECT,
            tool=name,
            call_id=use.get("toolUseId"),
            arguments=arguments,
            form=form,
            node=where,
            args=args,
            findings=findings,
        )
    )


def tool_result(
    node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = ""
) -> None:
    """One ``{"toolResult": {"toolUseId", "content", "status"}}`` block: a result."""
    answer = node.get("toolResult")
    if not isinstance(answer, dict):
        return
    call_id, findings = answered_id(answer, "toolUseId", "the toolResult block", "toolUse")
    status = answer.get("status")
    out.append(
        make_result(
            ctx,
            DIALECT,
            call_id=call_id,
            node=pointer + "/toolResult",
            content=answer.get("content"),
            is_error=status == "error" if isinstance(status, str) else None,
            message=answer,
            findings=findings,
        )
    )


def message(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """A message: its ``toolUse`` blocks (an assistant's) and ``toolResult`` blocks (a
    user's, in a history)."""
    content = node.get("content")
    if not isinstance(content, list):
        return
    outer = ctx.turn
    if outer is None:
        ctx.turn = ctx.turn_at(pointer)
    for i, block in enumerate(content):
        if isinstance(block, dict):
            if "toolUse" in block:
                tool_use(block, ctx, out, f"{pointer}/content/{i}")
            elif "toolResult" in block:
                tool_result(block, ctx, out, f"{pointer}/content/{i}")
    ctx.turn = outer


def response(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """A whole Converse response: ``output.message``."""
    output = node["output"]
    found = output.get("message")
    start = len(out)
    if isinstance(found, dict) and isinstance(found.get("content"), list):
        message(found, ctx, out, pointer + "/output/message")
    else:
        out.append(not_read(ctx, DIALECT, "output.message.content is not a list", pointer))
        return
    if node.get("stopReason") == "tool_use" and len(out) == start:
        out.append(not_read(ctx, DIALECT, 'stopReason "tool_use", and no toolUse block', pointer))


def history(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """A request: its ``messages`` are a conversation history, offered its
    ``toolConfig.tools``."""
    messages = node.get("messages")
    if not isinstance(messages, list):
        return
    ctx = ctx.child("", history=True, offered=DIALECT.offered(node))
    for i, entry in enumerate(messages):
        if isinstance(entry, dict):
            where = f"{pointer}/messages/{i}"
            message(entry, ctx.child("", turn=ctx.turn_at(where)), out, where)


class ConverseStream:
    """Reassembles ConverseStream ``toolUse`` blocks by ``contentBlockIndex`` (one message
    at a time per file: a ``messageStart`` closes what the last left open)."""

    __slots__ = ("calls", "turn")

    def __init__(self) -> None:
        self.calls = Assembler(
            DIALECT, unit="toolUse block", unnamed="the streamed toolUse never named its tool"
        )
        self.turn: str | None = None

    def feed(self, event: dict[str, Any], ctx: DocContext, out: list[Captured]) -> None:
        """Take one event; a ``contentBlockStop`` completes its call."""
        calls = self.calls
        if "messageStart" in event:
            calls.flush(out)
            self.turn = ctx.turn_at("")
            return
        for kind in ("contentBlockStart", "contentBlockDelta", "contentBlockStop"):
            body = event.get(kind)
            if isinstance(body, dict):
                break
        else:
            return
        index = body.get("contentBlockIndex")
        if kind == "contentBlockStart":
            start = body.get("start")
            use = start.get("toolUse") if isinstance(start, dict) else None
            if isinstance(use, dict):
                pending = calls.open(index, ctx.child("", turn=self.turn or ctx.turn_at("")))
                pending.call_id = use.get("toolUseId")
                pending.name = text(use, "name")
                pending.initial = {}
        elif kind == "contentBlockDelta":
            delta = body.get("delta")
            use = delta.get("toolUse") if isinstance(delta, dict) else None
            growing = calls.get(index)
            if isinstance(use, dict) and growing is not None:
                part = use.get("input")
                if isinstance(part, str):
                    growing.parts.append(part)
        else:
            done = calls.pop(index)
            if done is not None:
                calls.close(done, out)

    def flush(self, out: list[Captured]) -> None:
        """Blocks whose stream ended without their ``contentBlockStop``."""
        self.calls.flush(out)


def _is_tool(entry: dict[str, Any]) -> bool:
    return isinstance(entry.get("toolSpec"), dict)


def _has_blocks(messages: list[Any]) -> bool:
    for entry in messages:
        content = entry.get("content") if isinstance(entry, dict) else None
        if isinstance(content, list) and any(
            isinstance(b, dict) and ("toolUse" in b or "toolResult" in b) for b in content
        ):
            return True
    return False


class BedrockConverse:
    """The Amazon Bedrock Converse dialect."""

    name: Final = Dialect.BEDROCK_CONVERSE
    hop: Final = Hop.MODEL
    mark: Final = "output"
    #: members without one of which :meth:`part` takes no object
    claims: Final = frozenset({*STREAM_EVENTS, "toolUse", "content", "toolConfig"})
    tools: Final = ToolLayout(
        _is_tool, input=("/toolSpec/inputSchema/json",), body="/toolSpec", input_required=False
    )

    def new_state(self) -> ConverseStream:
        """The file's streamed ``toolUse`` blocks."""
        return ConverseStream()

    def whole(self, value: dict[str, Any], state: ConverseStream) -> Handler | None:
        """A Converse response: ``output`` holds a ``message``."""
        output = value["output"]
        return response if isinstance(output, dict) and "message" in output else None

    def part(self, value: dict[str, Any], state: ConverseStream) -> Handler | None:
        """A stream event, a request, a message with ``toolUse`` blocks, or one block."""
        if len(value) <= 2 and not STREAM_EVENTS.isdisjoint(value):
            return state.feed
        messages = value.get("messages")
        if isinstance(messages, list) and ("toolConfig" in value or _has_blocks(messages)):
            return history
        if isinstance(value.get("toolUse"), dict):
            return tool_use
        content = value.get("content")
        if isinstance(content, list) and _has_blocks([value]):
            return message
        return None

    def offered(self, value: dict[str, Any]) -> OfferedTools | None:
        """The tools a request offers: ``toolConfig.tools``."""
        config = value.get("toolConfig")
        tools = config.get("tools") if isinstance(config, dict) else None
        return offered_tools(tools) if isinstance(tools, list) and tools else None


DIALECT: Final = BedrockConverse()
